/* outarg.c - out= for the torch functions that take it (torch.add(a, b,
 * out=o), torch.cumsum(x, 0, out=o), ...), with PyTorch's semantics:
 *   - the result is computed as without out=, then written into o: o's
 *     dtype must be one the result's may be cast to (torch's canCast:
 *     "result type Float can't be cast to the desired output type Long"),
 *     and the write is o.copy_(result) (o keeps its strides, its version
 *     counter moves on by one, views of o see the values);
 *   - an o of another shape is resized first (resize_: contiguous, its
 *     storage kept when large enough), with PyTorch's deprecation
 *     UserWarning when o had elements (pywarn.c; once per statement);
 *   - the call returns o itself (`torch.add(a, b, out=o) is o`);
 *   - out= with an argument that requires grad (grad mode on) is torch's
 *     "functions with out=... arguments don't support automatic
 *     differentiation" RuntimeError.
 * Only torch.* functions take out= (the methods do not): a name outside
 * the table below, or a method call, goes on to the binding, which
 * refuses out= as outside tlab's subset (bind.c). Tuple outs (sort, max
 * with dim) are not handled here: refused the same way.
 */
#include "outarg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "bind_grad.h"
#include "ops_impl.h"
#include "pywarn.h"
#include "tensor.h"
#include "util.h"

/* torch.* functions with an out= overload in PyTorch 2.x that tlab
 * implements (factories excluded: their dtype comes from out=) */
static const char *const out_ops[] = {
    "abs", "acos", "add", "addmm", "amax", "amin", "argmax", "argmin", "asin", "atan",
    "atan2", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "bmm", "cat",
    "ceil", "clamp", "clamp_max", "clamp_min", "concat", "cos", "cosh", "cross", "cumprod",
    "cumsum", "diag", "div", "dot", "eq", "erf", "exp", "exp2", "expm1", "floor",
    "floor_divide", "fmod", "frac", "gather", "ge", "gt", "index_add", "index_copy",
    "index_select", "le", "lerp", "log", "log10", "log1p", "log2", "logical_and",
    "logical_not", "logical_or", "logical_xor", "lt", "masked_select", "matmul", "maximum",
    "mean", "minimum", "mm", "msort", "mul", "mv", "narrow_copy", "ne", "neg", "nonzero",
    "outer", "pow", "prod", "reciprocal", "remainder", "round", "rsqrt", "scatter",
    "scatter_add", "sigmoid", "sign", "sin", "sinh", "sqrt", "square", "stack", "sub",
    "sum", "take", "take_along_dim", "tan", "tanh", "tril", "triu", "true_divide", "trunc",
    "where",
};

static bool takes_out(const char *name)
{
    for (size_t i = 0; i < TL_ARRAY_LEN(out_ops); i++)
        if (strcmp(out_ops[i], name) == 0)
            return true;
    return false;
}

/* PyTorch writes into out directly, so out may not share memory with an
 * input partly, nor with itself (at::assert_no_partial_overlap and
 * assert_no_internal_overlap); v: an argument, or a list of them */
static int overlap_check(const tl_tensor *o, const tl_value *v, tl_error *err)
{
    if (v->kind == TL_V_TENSOR)
        return tl_ops_assert_no_partial_overlap(o, v->u.tensor, err);
    if (v->kind == TL_V_LIST || v->kind == TL_V_TUPLE)
        for (size_t i = 0; i < v->u.seq.n; i++)
            if (v->u.seq.items[i]->kind == TL_V_TENSOR &&
                tl_ops_assert_no_partial_overlap(o, v->u.seq.items[i]->u.tensor, err) < 0)
                return -1;
    return 0;
}

/* torch's canCast(from, to): no floating to integral, no non-bool to bool */
static bool can_cast(tl_dtype from, tl_dtype to)
{
    if (tl_dtype_is_floating(from) && !tl_dtype_is_floating(to))
        return false;
    if (from != TL_BOOL && to == TL_BOOL)
        return false;
    return true;
}

/* "[2, 3]" */
static void shape_str(tl_buf *b, const tl_tensor *t)
{
    tl_buf_puts(b, "[");
    for (int d = 0; d < t->ndim; d++)
        tl_buf_printf(b, "%s%lld", d ? ", " : "", (long long)t->sizes[d]);
    tl_buf_puts(b, "]");
}

static tl_value *call_method(const char *m, tl_value *self, size_t npos, tl_value **pos,
                             tl_error *err)
{
    const tl_binding *b = tl_bind_find(TL_BIND_METHOD, m);
    if (!b)
        return tl_error_set(err, TL_ERR_INTERNAL, "out=: no Tensor.%s binding", m), NULL;
    tl_args a = {npos, pos, 0, NULL, NULL};
    return b->fn(self, &a, err);
}

tl_value *tl_outarg_call(tl_value *fn, const struct tl_args *a, tl_error *err)
{
    if (a->nkw == 0) /* nearly every call */
        return tl_value_call_plain(fn, a, err);
    size_t k = 0;
    while (k < a->nkw && (strcmp(a->kwnames[k], "out") != 0 || a->kwvals[k]->kind == TL_V_NONE))
        k++;
    const char *name = fn->u.func.name;
    tl_value *self = fn->u.func.self;
    /* a method, or a function without out=: the binding answers (bind.c
     * refuses out= as outside the subset) */
    if (k == a->nkw || (self && self->kind == TL_V_TENSOR) || !takes_out(name))
        return tl_value_call_plain(fn, a, err);
    tl_value *out = a->kwvals[k];
    if (out->kind != TL_V_TENSOR)
        return tl_value_call_plain(fn, a, err);
    tl_tensor *o = out->u.tensor;
    bool grad = tl_tensor_grad_mode() && o->requires_grad;
    for (size_t i = 0; !grad && i < a->npos; i++)
        grad = tl_grad_requires_grad(a->pos[i]);
    for (size_t i = 0; !grad && i < a->nkw; i++)
        grad = i != k && tl_grad_requires_grad(a->kwvals[i]);
    if (grad && tl_tensor_grad_mode())
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "%s(): functions with out=... arguments don't support automatic "
                            "differentiation, but one of the arguments requires grad.",
                            name),
               NULL;
    if (tl_ops_assert_no_internal_overlap(o, err) < 0)
        return NULL;
    for (size_t i = 0; i < a->npos; i++)
        if (overlap_check(o, a->pos[i], err) < 0)
            return NULL;
    for (size_t i = 0; i < a->nkw; i++)
        if (i != k && overlap_check(o, a->kwvals[i], err) < 0)
            return NULL;
    /* the call without out= */
    const char *names[16];
    tl_value *vals[16];
    if (a->nkw > 16)
        return tl_value_call_plain(fn, a, err);
    size_t m = 0;
    for (size_t i = 0; i < a->nkw; i++)
        if (i != k) {
            names[m] = a->kwnames[i];
            vals[m++] = a->kwvals[i];
        }
    tl_args b = {a->npos, a->pos, m, names, vals};
    tl_value *r = tl_value_call(fn, &b, err);
    if (!r)
        return NULL;
    if (r->kind != TL_V_TENSOR) {
        tl_value_release(r);
        return tl_error_set(err, TL_ERR_UNSUPPORTED,
                            "tlab does not support out= for %s() (its result is no tensor)",
                            name),
               NULL;
    }
    tl_tensor *t = r->u.tensor;
    if (t->dtype != o->dtype && !can_cast(t->dtype, o->dtype)) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "result type %s can't be cast to the desired output type %s",
                     tl_dtype_scalar_name(t->dtype), tl_dtype_scalar_name(o->dtype));
        tl_value_release(r);
        return NULL;
    }
    bool same = o->ndim == t->ndim;
    for (int d = 0; same && d < t->ndim; d++)
        same = o->sizes[d] == t->sizes[d];
    if (!same) {
        if (tl_tensor_numel(o) > 0) {
            tl_buf w = {0};
            tl_buf_puts(&w, "An output with one or more elements was resized since it had "
                            "shape ");
            shape_str(&w, o);
            tl_buf_puts(&w, ", which does not match the required output shape ");
            shape_str(&w, t);
            tl_buf_puts(&w, ". This behavior is deprecated, and in a future PyTorch release "
                            "outputs will not be resized unless they have zero elements. You "
                            "can explicitly reuse an out tensor t by resizing it, inplace, to "
                            "zero elements with t.resize_(0). (Triggered internally at  "
                            "./aten/src/ATen/native/Resize.cpp:17.)");
            tl_pywarn_emit("UserWarning", tl_buf_str(&w));
            tl_buf_free(&w);
        }
        tl_value *shape = tl_tuple_new((size_t)t->ndim);
        for (int d = 0; d < t->ndim; d++)
            tl_seq_set(shape, (size_t)d, tl_int(t->sizes[d]));
        tl_value *rs = call_method("resize_", out, 1, &shape, err);
        tl_value_release(shape);
        if (!rs) {
            tl_value_release(r);
            return NULL;
        }
        tl_value_release(rs);
    }
    tl_value *c = call_method("copy_", out, 1, &r, err);
    tl_value_release(r);
    if (!c)
        return NULL;
    tl_value_release(c);
    return tl_value_retain(out);
}

void tl_outarg_install(void)
{
    tl_value_set_out_hook(tl_outarg_call);
}
