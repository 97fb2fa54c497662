/* setattr.c - attribute assignment in the lab programs: `x.grad = None`,
 * `x.requires_grad = True`, `x.data = y` (and `w.data -= lr * w.grad`,
 * which the interpreter runs as get, in-place op, set).
 *
 * The three tensor setters follow torch 2.x's (torch/csrc/autograd/
 * python_variable.cpp) in their checks, their order and their texts;
 * torch 1.13's differ only in the grad checks' wording (see
 * tests/exec/setattr.py). A tensor's other properties are read-only there:
 * assigning one raises its AttributeError. What torch allows beyond these
 * (a new attribute in the tensor's __dict__, names/real/imag, attributes
 * of other objects) is outside tlab's subset and says so.
 */
#include "setattr.h"

#include <stdio.h>
#include <string.h>

#include "autograd.h"
#include "bind.h"
#include "view.h"

/* "[2, 3]": torch's print of a size in these messages */
static void size_text(const tl_tensor *t, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < t->ndim && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? ", " : "", (long long)t->sizes[i]);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
}

static const char *devtype(const tl_tensor *t)
{
    return tl_tensor_device(t).kind == TL_DEV_CUDA ? "cuda" : "cpu";
}

static int set_grad(tl_tensor *t, tl_value *v, tl_error *err)
{
    if (v->kind == TL_V_NONE)
        return tl_ag_set_grad(t, NULL, err);
    if (v->kind != TL_V_TENSOR)
        return tl_error_set(err, TL_ERR_TYPE,
                            "assigned grad expected to be a Tensor or None but got grad of type %s",
                            tl_value_type_name(v));
    tl_tensor *g = v->u.tensor;
    if (g == t)
        return tl_error_set(err, TL_ERR_RUNTIME, "can't assign Variable as its own grad");
    if (g->dtype != t->dtype)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "attempting to assign a gradient with dtype '%s' to a tensor with "
                            "grad_dtype '%s'. The gradient must match the tensor's grad_dtype "
                            "(defaults to the tensor's dtype). You can set the tensor's "
                            "grad_dtype attribute with a specific dtype, or None to allow any "
                            "dtype. Set grad_dtype with caution. Diverging the dtypes of a "
                            "tensor and its gradient may break downstream systems that assume "
                            "they match.",
                            tl_dtype_typemeta_name(g->dtype), tl_dtype_typemeta_name(t->dtype));
    if (tl_tensor_device(g).kind != tl_tensor_device(t).kind)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "attempting to assign a gradient with device type '%s' to a tensor "
                            "with device type '%s'. Please ensure that the gradient and the "
                            "tensor are on the same device",
                            devtype(g), devtype(t));
    if (g->ndim != t->ndim ||
        memcmp(g->sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim) != 0) {
        char a[400], b[400];
        size_text(g, a, sizeof a);
        size_text(t, b, sizeof b);
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "attempting to assign a gradient of size '%s' to a tensor of size "
                            "'%s'. Please ensure that the gradient and the tensor are the same "
                            "size",
                            a, b);
    }
    return tl_ag_set_grad(t, g, err);
}

static int set_requires_grad(tl_tensor *t, tl_value *v, tl_error *err)
{
    if (v->kind != TL_V_BOOL)
        return tl_error_set(err, TL_ERR_RUNTIME, "requires_grad must be a bool");
    bool rg = v->u.b;
    if (!t->is_leaf)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            rg ? "you can only change requires_grad flags of leaf variables."
                               : "you can only change requires_grad flags of leaf variables. If "
                                 "you want to use a computed variable in a subgraph that doesn't "
                                 "require differentiation use var_no_grad = var.detach().");
    if (rg && !tl_dtype_is_floating(t->dtype))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "only Tensors of floating point and complex dtype can require "
                            "gradients");
    t->requires_grad = rg;
    return 0;
}

static int set_data(tl_tensor *t, tl_value *v, tl_error *err)
{
    if (v->kind != TL_V_TENSOR)
        return tl_error_set(err, TL_ERR_TYPE, "Variable data has to be a tensor, but got %s",
                            tl_value_type_name(v));
    if (tl_tensor_device(v->u.tensor).kind != tl_tensor_device(t).kind)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "Attempted to call `variable.set_data(tensor)`, but `variable` and "
                            "`tensor` have incompatible tensor type.");
    tl_view_set_data(t, v->u.tensor);
    return 0;
}

/* settable in torch, not in tlab */
static const char *const unsupported[] = {
    "names", "real", "imag", "grad_dtype", "volatile", "_backward_hooks",
    "_post_accumulate_grad_hooks", NULL};

int tl_setattr_assign(tl_value *obj, const char *name, tl_value *v, tl_error *err)
{
    if (obj->kind != TL_V_TENSOR)
        return tl_error_set(err, TL_ERR_UNSUPPORTED,
                            "tlab does not support assigning to attributes of %s objects ('%s')",
                            tl_value_type_name(obj), name);
    tl_tensor *t = obj->u.tensor;
    if (strcmp(name, "grad") == 0)
        return set_grad(t, v, err);
    if (strcmp(name, "requires_grad") == 0)
        return set_requires_grad(t, v, err);
    if (strcmp(name, "data") == 0)
        return set_data(t, v, err);
    for (int i = 0; unsupported[i]; i++)
        if (strcmp(name, unsupported[i]) == 0)
            return tl_error_set(err, TL_ERR_UNSUPPORTED,
                                "tlab does not support assigning to a tensor's '%s'", name);
    if (tl_bind_find(TL_BIND_ATTR, name))
        return tl_error_set(err, TL_ERR_ATTRIBUTE,
                            "attribute '%s' of 'torch._C.TensorBase' objects is not writable",
                            name);
    return tl_error_set(err, TL_ERR_UNSUPPORTED,
                        "tlab does not support setting new attributes on a tensor ('%s')", name);
}
