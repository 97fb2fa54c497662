/* outarg.c - out= for the torch functions that take it (torch.add(a, b,
 * out=o), torch.cumsum(x, 0, out=o), torch.sort(x, out=(v, i)), ...), with
 * PyTorch's semantics:
 *   - the result is computed as without out=, then written into o with
 *     o.copy_(result) (o keeps its strides, its version counter moves on by
 *     one, views of o see the values);
 *   - which dtypes o may have is the op's own rule (policy below, checked
 *     against torch 1.13 and 2.x's sources): most ops cast the result when
 *     torch's canCast allows ("result type Float can't be cast to the
 *     desired output type Long"); cumsum, cumprod, sum, prod and mean
 *     compute in o's dtype (as with dtype=o.dtype); structured kernels that
 *     do not cast want o's dtype to be the result's ("Expected out tensor to
 *     have dtype float, but got double instead", or the op's own words);
 *   - an o of another shape is resized first (resize_: contiguous, its
 *     storage kept when large enough), with PyTorch's deprecation
 *     UserWarning when o had elements (pywarn.c; once per statement);
 *   - the call returns o itself (`torch.add(a, b, out=o) is o`); the ops
 *     with two results (sort, topk, kthvalue, max/min with dim) take
 *     out=(values, indices) and return torch.return_types.NAME_out of them;
 *   - out= with an argument that requires grad (grad mode on) is torch's
 *     "functions with out=... arguments don't support automatic
 *     differentiation" RuntimeError.
 * Only torch.* functions take out= (the methods do not): a name outside
 * the table below, or a method call, goes on to the binding, which
 * refuses out= as outside tlab's subset (bind.c).
 */
#include "outarg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "bind_grad.h"
#include "ops_impl.h"
#include "pywarn.h"
#include "shape.h"
#include "tensor.h"
#include "util.h"

/* How an op's out= may differ in dtype from its result. */
typedef enum {
    OUT_CAST,    /* canCast(result, out), then copy_ (TensorIterator ops) */
    OUT_COMPUTE, /* computed in out's dtype: the call with dtype=out.dtype */
    OUT_MEAN,    /* canCast, then computed in out's dtype */
    OUT_SAME,    /* "Expected out tensor to have dtype float, but got ..." */
    OUT_FOUND,   /* "Found dtype Double but expected Float" */
    OUT_CAT,     /* "torch.cat(): input types can't be cast to ..." */
    OUT_OWN,     /* the op's own words (own_message) */
    OUT_PAIR,    /* out=(values, indices): values the result's dtype, int64 */
    OUT_PAIR_KTH /* kthvalue: the same in its own words, keepdim resize */
} out_policy;

typedef struct {
    const char *name;
    out_policy pol;
} out_op;

/* torch.* functions with an out= overload in PyTorch 2.x that tlab
 * implements (factories excluded: their dtype comes from out=), sorted.
 * Deviation from torch 1.13 (2.x followed): diag's out is checked as
 * diagonal_copy's ("Expected out tensor to have dtype ..."; 1.13: "expected
 * scalar type Float but found Double"), where's as where_self_out's
 * ("Expected out type to be Float but got Double"; 1.13: an internal
 * assert), and cumsum/cumprod/prod compute in float16 (1.13's CPU kernels
 * are not implemented for Half). */
static const out_op out_ops[] = {
    {"abs", OUT_FOUND}, {"acos", OUT_CAST}, {"add", OUT_CAST}, {"addmm", OUT_SAME},
    {"amax", OUT_OWN}, {"amin", OUT_OWN}, {"argmax", OUT_SAME}, {"argmin", OUT_SAME},
    {"asin", OUT_CAST}, {"atan", OUT_CAST}, {"atan2", OUT_CAST}, {"bitwise_and", OUT_CAST},
    {"bitwise_not", OUT_FOUND}, {"bitwise_or", OUT_CAST}, {"bitwise_xor", OUT_CAST},
    {"bmm", OUT_SAME}, {"cat", OUT_CAT}, {"ceil", OUT_FOUND}, {"clamp", OUT_FOUND},
    {"clamp_max", OUT_CAST}, {"clamp_min", OUT_CAST}, {"concat", OUT_CAT}, {"cos", OUT_CAST},
    {"cosh", OUT_CAST}, {"cross", OUT_SAME}, {"cumprod", OUT_COMPUTE},
    {"cumsum", OUT_COMPUTE}, {"diag", OUT_SAME}, {"div", OUT_CAST}, {"dot", OUT_OWN},
    {"eq", OUT_CAST}, {"erf", OUT_CAST}, {"exp", OUT_CAST}, {"exp2", OUT_CAST},
    {"expm1", OUT_CAST}, {"floor", OUT_FOUND}, {"floor_divide", OUT_CAST},
    {"fmod", OUT_CAST}, {"frac", OUT_FOUND}, {"gather", OUT_SAME}, {"ge", OUT_CAST},
    {"gt", OUT_CAST}, {"index_add", OUT_SAME}, {"index_copy", OUT_SAME},
    {"index_select", OUT_OWN}, {"kthvalue", OUT_PAIR_KTH}, {"le", OUT_CAST},
    {"lerp", OUT_CAST}, {"log", OUT_CAST}, {"log10", OUT_CAST}, {"log1p", OUT_CAST},
    {"log2", OUT_CAST}, {"logical_and", OUT_CAST}, {"logical_not", OUT_CAST},
    {"logical_or", OUT_CAST}, {"logical_xor", OUT_CAST}, {"lt", OUT_CAST},
    {"masked_select", OUT_OWN}, {"matmul", OUT_SAME}, {"max", OUT_PAIR},
    {"maximum", OUT_CAST}, {"mean", OUT_MEAN}, {"min", OUT_PAIR}, {"minimum", OUT_CAST},
    {"mm", OUT_SAME}, {"msort", OUT_SAME}, {"mul", OUT_CAST}, {"mv", OUT_SAME},
    {"narrow_copy", OUT_OWN}, {"ne", OUT_CAST}, {"neg", OUT_FOUND}, {"nonzero", OUT_OWN},
    {"outer", OUT_CAST}, {"pow", OUT_CAST}, {"prod", OUT_COMPUTE},
    {"reciprocal", OUT_CAST}, {"remainder", OUT_CAST}, {"round", OUT_FOUND},
    {"rsqrt", OUT_CAST}, {"scatter", OUT_SAME}, {"scatter_add", OUT_SAME},
    {"sigmoid", OUT_CAST}, {"sign", OUT_FOUND}, {"sin", OUT_CAST}, {"sinh", OUT_CAST},
    {"sort", OUT_PAIR}, {"sqrt", OUT_CAST}, {"square", OUT_FOUND}, {"stack", OUT_CAT},
    {"sub", OUT_CAST}, {"sum", OUT_COMPUTE}, {"take", OUT_OWN},
    {"take_along_dim", OUT_SAME}, {"tan", OUT_CAST}, {"tanh", OUT_CAST}, {"topk", OUT_PAIR},
    {"tril", OUT_SAME}, {"triu", OUT_SAME}, {"true_divide", OUT_CAST}, {"trunc", OUT_FOUND},
    {"where", OUT_OWN},
};

static const out_op *find_out_op(const char *name)
{
    for (size_t i = 0; i < TL_ARRAY_LEN(out_ops); i++)
        if (strcmp(out_ops[i].name, name) == 0)
            return &out_ops[i];
    return NULL;
}

/* The op's own words when out's dtype o is not the result's r (OUT_OWN);
 * 0 when they agree. */
static int own_message(const char *name, tl_dtype r, tl_dtype o, tl_error *err)
{
    if (r == o)
        return 0;
    const char *rs = tl_dtype_scalar_name(r), *os = tl_dtype_scalar_name(o);
    if (!strcmp(name, "index_select") || !strcmp(name, "masked_select"))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "%s(): self and result must have the same scalar type", name);
    if (!strcmp(name, "take"))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "take(): self and out expected to have the same dtype, but got "
                            "self.dtype = %s and out.dtype = %s", rs, os);
    if (!strcmp(name, "amax") || !strcmp(name, "amin"))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "Expected the dtype for input and out to match, but got %s for "
                            "input's dtype and %s for out's dtype.", rs, os);
    if (!strcmp(name, "dot"))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "result dtype %s does not match input dtype %s", os, rs);
    if (!strcmp(name, "nonzero"))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "nonzero: Expected out tensor to have scalar type Long but got "
                            "scalar type%s", os);
    if (!strcmp(name, "where"))
        return tl_error_set(err, TL_ERR_RUNTIME, "Expected out type to be %s but got %s", rs,
                            os);
    if (!strcmp(name, "narrow_copy"))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "Expected self.dtype() == output.dtype() to be true, but got "
                            "false.  (Could this error message be improved?  If so, please "
                            "report an enhancement request to PyTorch.)");
    return tl_error_set(err, TL_ERR_INTERNAL, "out=: no dtype rule for %s()", name);
}

/* "Expected out tensor to have dtype float, but got double instead" */
static int same_message(tl_dtype r, tl_dtype o, tl_error *err)
{
    return tl_error_set(err, TL_ERR_RUNTIME,
                        "Expected out tensor to have dtype %s, but got %s instead",
                        tl_dtype_typemeta_name(r), tl_dtype_typemeta_name(o));
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
static void shape_str(tl_buf *b, int ndim, const int64_t *sizes)
{
    tl_buf_puts(b, "[");
    for (int d = 0; d < ndim; d++)
        tl_buf_printf(b, "%s%lld", d ? ", " : "", (long long)sizes[d]);
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

/* torch's resize_output warning: o had elements and shape had, the op wants
 * shape want */
static void resize_warning(int hnd, const int64_t *had, int wnd, const int64_t *want)
{
    tl_buf w = {0};
    tl_buf_puts(&w, "An output with one or more elements was resized since it had shape ");
    shape_str(&w, hnd, had);
    tl_buf_puts(&w, ", which does not match the required output shape ");
    shape_str(&w, wnd, want);
    tl_buf_puts(&w, ". This behavior is deprecated, and in a future PyTorch release "
                    "outputs will not be resized unless they have zero elements. You "
                    "can explicitly reuse an out tensor t by resizing it, inplace, to "
                    "zero elements with t.resize_(0). (Triggered internally at  "
                    "./aten/src/ATen/native/Resize.cpp:17.)");
    tl_pywarn_emit("UserWarning", tl_buf_str(&w));
    tl_buf_free(&w);
}

/* out takes result t: resized to t's shape when it differs (warning unless
 * warned is set: the caller warned in the op's own shapes), then
 * out.copy_(t) */
static int store(tl_value *out, tl_value *r, bool warned, tl_error *err)
{
    tl_tensor *o = out->u.tensor, *t = r->u.tensor;
    if (!tl_shape_equal(o->ndim, o->sizes, t->ndim, t->sizes)) {
        if (!warned && tl_tensor_numel(o) > 0)
            resize_warning(o->ndim, o->sizes, t->ndim, t->sizes);
        tl_value *shape = tl_tuple_new((size_t)t->ndim);
        for (int d = 0; d < t->ndim; d++)
            tl_seq_set(shape, (size_t)d, tl_int(t->sizes[d]));
        tl_value *rs = call_method("resize_", out, 1, &shape, err);
        tl_value_release(shape);
        if (!rs)
            return -1;
        tl_value_release(rs);
    }
    tl_value *c = call_method("copy_", out, 1, &r, err);
    if (!c)
        return -1;
    tl_value_release(c);
    return 0;
}

/* kthvalue resizes its outs to the keepdim shape first (torch's
 * _reduction_with_indices_allocate_or_resize_output: an out one dim short
 * is unsqueezed at dim), then squeezes: its warning names those shapes */
static bool kth_warn(const tl_args *a, const tl_tensor *in, const tl_tensor *o)
{
    tl_value *dv = a->npos > 2 ? a->pos[2] : tl_arg(a, (size_t)-1, "dim");
    tl_value *kv = a->npos > 3 ? a->pos[3] : tl_arg(a, (size_t)-1, "keepdim");
    int64_t dim = dv && dv->kind == TL_V_INT ? dv->u.i : -1;
    bool keepdim = kv && kv->kind == TL_V_BOOL && kv->u.b;
    int nd = in->ndim;
    if (tl_tensor_numel(o) <= 0 || nd == 0 || dim < -nd || dim >= nd)
        return false;
    if (dim < 0)
        dim += nd;
    int64_t want[TL_MAX_DIMS], had[TL_MAX_DIMS];
    memcpy(want, in->sizes, sizeof(int64_t) * (size_t)nd);
    want[dim] = 1;
    int hnd = o->ndim;
    memcpy(had, o->sizes, sizeof(int64_t) * (size_t)hnd);
    if (!keepdim && hnd == nd - 1) {
        memmove(had + dim + 1, had + dim, sizeof(int64_t) * (size_t)(hnd - dim));
        had[dim] = 1;
        hnd++;
    }
    if (!tl_shape_equal(hnd, had, nd, want))
        resize_warning(hnd, had, nd, want);
    return true;
}

/* The call without its out= keyword (k), with dtype=dt added when dt >= 0. */
static tl_value *call_without(tl_value *fn, const tl_args *a, size_t k, int dt,
                              tl_error *err)
{
    const char *names[17];
    tl_value *vals[17];
    size_t m = 0;
    for (size_t i = 0; i < a->nkw; i++)
        if (i != k) {
            names[m] = a->kwnames[i];
            vals[m++] = a->kwvals[i];
        }
    tl_value *dv = NULL;
    if (dt >= 0) {
        dv = tl_value_dtype((tl_dtype)dt);
        names[m] = "dtype";
        vals[m++] = dv;
    }
    tl_args b = {a->npos, a->pos, m, names, vals};
    tl_value *r = tl_value_call(fn, &b, err);
    if (dv)
        tl_value_release(dv);
    return r;
}

static bool has_kw(const tl_args *a, const char *kw)
{
    for (size_t i = 0; i < a->nkw; i++)
        if (!strcmp(a->kwnames[i], kw))
            return true;
    return false;
}

/* The dtype check of a one-tensor out (the op's policy): 0, or -1 with err */
static int check_dtype(const out_op *op, tl_dtype r, tl_dtype o, tl_error *err)
{
    if (r == o)
        return 0;
    switch (op->pol) {
    case OUT_SAME:
        return same_message(r, o, err);
    case OUT_FOUND:
        return tl_error_set(err, TL_ERR_RUNTIME, "Found dtype %s but expected %s",
                            tl_dtype_scalar_name(o), tl_dtype_scalar_name(r));
    case OUT_OWN:
        return own_message(op->name, r, o, err);
    case OUT_CAT:
        if (!can_cast(r, o))
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "torch.cat(): input types can't be cast to the desired "
                                "output type %s", tl_dtype_scalar_name(o));
        return 0;
    default:
        if (!can_cast(r, o))
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "result type %s can't be cast to the desired output type %s",
                                tl_dtype_scalar_name(r), tl_dtype_scalar_name(o));
        return 0;
    }
}

/* sort, kthvalue, max, min given one tensor as out=: no overload takes it
 * (they want a tuple of two), except max/min(input, other, out=Tensor),
 * which the binding answers (returns 0); torch's argument-parser text,
 * ending in a newline as torch's does (1.13 and 2.x list the same) */
static int pair_tensor_out(const char *name, const tl_args *a, tl_error *err)
{
    static const struct {
        const char *name, *sigs;
    } table[] = {
        {"sort", " * (Tensor input, *, bool stable, int dim, bool descending, tuple of Tensors out)\n"
                 " * (Tensor input, int dim, bool descending, *, tuple of Tensors out)\n"
                 " * (Tensor input, *, bool stable, name dim, bool descending, tuple of Tensors out)\n"
                 " * (Tensor input, name dim, bool descending, *, tuple of Tensors out)\n"},
        {"kthvalue", " * (Tensor input, int k, int dim, bool keepdim, *, tuple of Tensors out)\n"
                     " * (Tensor input, int k, name dim, bool keepdim, *, tuple of Tensors out)\n"},
        {"max", NULL},
        {"min", NULL},
    };
    static const char minmax[] = " * (Tensor input)\n"
                                 " * (Tensor input, Tensor other, *, Tensor out)\n"
                                 " * (Tensor input, int dim, bool keepdim, *, tuple of Tensors out)\n"
                                 " * (Tensor input, name dim, bool keepdim, *, tuple of Tensors out)\n";
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(name, table[i].name))
            continue;
        const char *sigs = table[i].sigs;
        if (!sigs) {
            tl_value *other = a->npos > 1 ? a->pos[1] : tl_arg(a, (size_t)-1, "other");
            if (other && other->kind == TL_V_TENSOR)
                return 0;
            sigs = minmax;
        }
        tl_buf b = {0};
        tl_buf_printf(&b, "%s() received an invalid combination of arguments - got ", name);
        tl_args_describe(a, &b);
        tl_buf_printf(&b, ", but expected one of:\n%s", sigs);
        tl_error_set(err, TL_ERR_TYPE, "%s", tl_buf_str(&b));
        tl_buf_free(&b);
        return -1;
    }
    return 0;
}

/* out=(values, indices) of sort, topk, kthvalue, max/min with dim */
static tl_value *pair_call(tl_value *fn, const out_op *op, const tl_args *a, size_t k,
                           tl_error *err)
{
    tl_value *out = a->kwvals[k];
    tl_value *r = call_without(fn, a, k, -1, err);
    if (!r)
        return NULL;
    if (r->kind != TL_V_TUPLE || r->u.seq.n != 2 || r->u.seq.items[0]->kind != TL_V_TENSOR ||
        r->u.seq.items[1]->kind != TL_V_TENSOR) {
        tl_value_release(r);
        return tl_error_set(err, TL_ERR_UNSUPPORTED,
                            "tlab does not support out=(values, indices) for %s() without "
                            "dim", op->name),
               NULL;
    }
    tl_value *ov = out->u.seq.items[0], *oi = out->u.seq.items[1];
    tl_dtype rv = r->u.seq.items[0]->u.tensor->dtype;
    bool kth = op->pol == OUT_PAIR_KTH;
    int rc = 0;
    if (ov->u.tensor->dtype != rv)
        rc = kth ? tl_error_set(err, TL_ERR_RUNTIME,
                                "output values must be of same type as input")
                 : same_message(rv, ov->u.tensor->dtype, err);
    else if (oi->u.tensor->dtype != TL_INT64)
        rc = kth ? tl_error_set(err, TL_ERR_RUNTIME,
                                "output indices must be of scalar type Long")
                 : same_message(TL_INT64, oi->u.tensor->dtype, err);
    tl_value *in = a->npos ? a->pos[0] : tl_arg(a, (size_t)-1, "input");
    for (int j = 0; rc == 0 && j < 2; j++) {
        tl_value *o = j ? oi : ov;
        bool warned = kth && in && in->kind == TL_V_TENSOR && kth_warn(a, in->u.tensor, o->u.tensor);
        rc = store(o, r->u.seq.items[j], warned, err);
    }
    tl_value_release(r);
    if (rc < 0)
        return NULL;
    const char *rtype = !strcmp(op->name, "sort")   ? "sort_out"
                        : !strcmp(op->name, "topk") ? "topk_out"
                        : !strcmp(op->name, "max")  ? "max_out"
                        : !strcmp(op->name, "min")  ? "min_out"
                                                    : "kthvalue_out";
    return tl_return_pair(rtype, tl_value_retain(ov), tl_value_retain(oi));
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
    const out_op *op = NULL;
    /* a method, or a function without out=: the binding answers (bind.c
     * refuses out= as outside the subset) */
    if (k == a->nkw || (self && self->kind == TL_V_TENSOR) || !(op = find_out_op(name)) ||
        a->nkw > 16)
        return tl_value_call_plain(fn, a, err);
    tl_value *out = a->kwvals[k];
    bool pair = op->pol == OUT_PAIR || op->pol == OUT_PAIR_KTH;
    tl_value *outs[2] = {out, NULL};
    size_t nout = 1;
    if (pair) {
        if (out->kind == TL_V_TENSOR && !strcmp(name, "topk"))
            return tl_error_set(err, TL_ERR_TYPE,
                                "topk(): argument 'out' must be tuple of Tensors, not Tensor"),
                   NULL;
        if (out->kind == TL_V_TENSOR)
            return pair_tensor_out(name, a, err) < 0 ? NULL : tl_value_call_plain(fn, a, err);
        if (out->kind != TL_V_TUPLE && out->kind != TL_V_LIST)
            return tl_value_call_plain(fn, a, err);
        if (out->u.seq.n != 2)
            return tl_error_set(err, TL_ERR_TYPE, "expected tuple of 2 elements but got %zu",
                                out->u.seq.n),
                   NULL;
        outs[0] = out->u.seq.items[0];
        outs[1] = out->u.seq.items[1];
        nout = 2;
        if (outs[0]->kind != TL_V_TENSOR || outs[1]->kind != TL_V_TENSOR)
            return tl_value_call_plain(fn, a, err);
    } else if (out->kind != TL_V_TENSOR) {
        return tl_value_call_plain(fn, a, err);
    }
    bool grad = false;
    for (size_t j = 0; j < nout; j++)
        grad = grad || (tl_tensor_grad_mode() && outs[j]->u.tensor->requires_grad);
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
    for (size_t j = 0; j < nout; j++) {
        tl_tensor *o = outs[j]->u.tensor;
        if (tl_ops_assert_no_internal_overlap(o, err) < 0)
            return NULL;
        for (size_t i = 0; i < a->npos; i++)
            if (overlap_check(o, a->pos[i], err) < 0)
                return NULL;
        for (size_t i = 0; i < a->nkw; i++)
            if (i != k && overlap_check(o, a->kwvals[i], err) < 0)
                return NULL;
    }
    if (pair)
        return pair_call(fn, op, a, k, err);
    tl_tensor *o = out->u.tensor;
    /* the same-dtype unary kernels check out's dtype before they run (torch
     * says "Found dtype Double but expected Long" before "frac_cpu" is
     * found missing for Long) */
    if (op->pol == OUT_FOUND && strcmp(name, "clamp") && a->npos &&
        a->pos[0]->kind == TL_V_TENSOR &&
        check_dtype(op, a->pos[0]->u.tensor->dtype, o->dtype, err) < 0)
        return NULL;
    /* the call without out= (cumsum, cumprod, sum, prod: in out's dtype) */
    bool in_out_dtype = op->pol == OUT_COMPUTE && !has_kw(a, "dtype");
    tl_value *r = call_without(fn, a, k, in_out_dtype ? (int)o->dtype : -1, err);
    if (!r)
        return NULL;
    if (r->kind != TL_V_TENSOR) {
        tl_value_release(r);
        return tl_error_set(err, TL_ERR_UNSUPPORTED,
                            "tlab does not support out= for %s() (its result is no tensor)",
                            name),
               NULL;
    }
    if (check_dtype(op, r->u.tensor->dtype, o->dtype, err) < 0) {
        tl_value_release(r);
        return NULL;
    }
    if (op->pol == OUT_MEAN && r->u.tensor->dtype != o->dtype && !has_kw(a, "dtype")) {
        /* mean into a wider out computes there */
        tl_value_release(r);
        r = call_without(fn, a, k, (int)o->dtype, err);
        if (!r)
            return NULL;
        if (r->kind != TL_V_TENSOR) {
            tl_value_release(r);
            return tl_error_set(err, TL_ERR_INTERNAL, "out=: mean() gave no tensor"), NULL;
        }
    }
    int rc = store(out, r, false, err);
    tl_value_release(r);
    return rc < 0 ? NULL : tl_value_retain(out);
}

void tl_outarg_install(void)
{
    tl_value_set_out_hook(tl_outarg_call);
}
