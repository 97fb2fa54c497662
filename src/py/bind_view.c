/* bind_view.c - Python-facing bindings of the view ops (view.c).
 *
 * Each binding parses PyTorch's argument forms (varargs or one sequence for
 * shapes, keywords, 0-d integer tensors as ints), raises PyTorch-shaped
 * TypeErrors for wrong arguments, calls view.c and wraps the result.
 * Same-object results (flatten(d, d), mT on 0-d, conj() on real ...) return
 * the receiver value itself so that `is` holds at every level.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "ops.h"
#include "util.h"
#include "view.h"

/* ------------------------------------------------------------------ */
/* argument helpers                                                    */
/* ------------------------------------------------------------------ */

static int missing(const char *fname, const char *argname, tl_error *err)
{
    return tl_error_set(err, TL_ERR_TYPE, "%s() missing 1 required "
                        "positional arguments: \"%s\"", fname, argname);
}

/* A wrong-typed argument: one overload gives PyTorch's "argument 'x'
 * (position n) must be T, not U"; several give the invalid-combination
 * message. */
static int bad_arg(const tl_args *a, const char *fname, const char *sig,
                   const char *kw, size_t pos, const char *want,
                   const tl_value *v, tl_error *err)
{
    if (!sig || strchr(sig, '\n') || !kw)
        return tl_args_type_error(a, fname, sig, err);
    return tl_error_set(err, TL_ERR_TYPE, "%s(): argument '%s' (position %zu) "
                        "must be %s, not %s", fname, kw, pos + 1, want,
                        tl_value_type_name(v));
}

static bool as_int(const tl_value *v, int64_t *out)
{
    return v->kind != TL_V_BOOL && tl_value_as_index(v, out);
}

/* Optional/required int argument i (or keyword kw). */
static int arg_int(const tl_args *a, size_t i, const char *kw, bool required,
                   int64_t dflt, int64_t *out, const char *fname,
                   const char *sig, tl_error *err)
{
    tl_value *v = tl_arg(a, i, kw);
    if (!v || (v->kind == TL_V_NONE && !required)) {
        if (required)
            return (sig && strchr(sig, '\n'))
                       ? tl_args_type_error(a, fname, sig, err)
                       : missing(fname, kw, err);
        *out = dflt;
        return 0;
    }
    if (!as_int(v, out))
        return bad_arg(a, fname, sig, kw, i, "int", v, err);
    return 0;
}

/* Keyword check for varargs functions (only keyword-only names allowed). */
static int kw_only(const tl_args *a, const char *fname,
                   const char *const *allowed, tl_error *err)
{
    for (size_t k = 0; k < a->nkw; k++) {
        bool ok = false;
        for (size_t j = 0; allowed && allowed[j]; j++)
            if (strcmp(allowed[j], a->kwnames[k]) == 0)
                ok = true;
        if (!ok)
            return tl_error_set(err, TL_ERR_TYPE, "%s() got an unexpected "
                                "keyword argument '%s'", fname,
                                a->kwnames[k]);
    }
    return 0;
}

static tl_tensor *self_t(tl_value *self, const char *fname, tl_error *err)
{
    return tl_bind_self_tensor(self, fname, err);
}

/* Wrap a result; the receiver itself when r is its tensor. */
static tl_value *wrap_result(tl_value *self, tl_tensor *r)
{
    if (!r)
        return NULL;
    if (self && self->kind == TL_V_TENSOR && self->u.tensor == r) {
        tl_tensor_release(r);
        return tl_value_retain(self);
    }
    return tl_value_tensor(r);
}

/* The end of an in-place view op (t.t_(), t.squeeze_() ...): t takes the
 * metadata of r (consumed; NULL: the error is already set) and returns
 * the receiver itself. */
static tl_value *apply_inplace(tl_value *self, tl_tensor *t, tl_tensor *r)
{
    if (!r)
        return NULL;
    tl_view_set_meta(t, r);
    tl_tensor_release(r);
    tl_tensor_bump_version(t);
    return tl_value_retain(self);
}

/* Move a tensor list into a tuple (ownership transferred). */
static tl_value *list_to_tuple(tl_tensor_list *l)
{
    tl_value *tup = tl_tuple_new((size_t)l->n);
    for (int64_t i = 0; i < l->n; i++)
        tl_seq_set(tup, (size_t)i, tl_value_tensor(l->items[i]));
    free(l->items);
    l->items = NULL;
    l->n = 0;
    return tup;
}

/* The parts of a split as a tuple; NULL when the split (rc) failed. */
static tl_value *parts_tuple(int rc, tl_tensor_list *l)
{
    return rc ? NULL : list_to_tuple(l);
}

#define CHECK(fname, maxpos, sig, ...)                                        \
    do {                                                                      \
        static const char *const kw_[] = {__VA_ARGS__, NULL};                 \
        if (tl_args_check(a, fname, maxpos, kw_, sig, err))                   \
            return NULL;                                                      \
    } while (0)

#define NOARGS(fname)                                                         \
    do {                                                                      \
        if (tl_args_check(a, fname, 0, NULL, "()", err))                      \
            return NULL;                                                      \
    } while (0)

#define SELF(fname)                                                           \
    tl_tensor *t = self_t(self, fname, err);                                  \
    if (!t)                                                                   \
        return NULL

/* ------------------------------------------------------------------ */
/* reshaping                                                           */
/* ------------------------------------------------------------------ */

static const char SIG_VIEW[] = "(torch.dtype dtype)\n(tuple of SymInts size)";

static tl_value *m_view(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("view");
    CHECK("view", TL_MAX_DIMS, SIG_VIEW, "size", "dtype");
    tl_value *d = tl_arg(a, 0, "dtype");
    if (d && d->kind == TL_V_DTYPE) {
        if (a->npos + a->nkw != 1)
            return tl_args_type_error(a, "view", SIG_VIEW, err), NULL;
        return wrap_result(self, tl_view_dtype(t, d->u.dtype, err));
    }
    if (tl_arg(a, (size_t)-1, "dtype"))
        return tl_args_type_error(a, "view", SIG_VIEW, err), NULL;
    int64_t shape[TL_MAX_DIMS];
    static const tl_shape_param p = {.fname = "view", .name = "size",
                                     .symint = true, .varargs = true,
                                     .sig = SIG_VIEW};
    int n = tl_to_shape(a, &p, shape, err);
    if (n == TL_SHAPE_ABSENT)
        return tl_args_type_error(a, "view", SIG_VIEW, err), NULL;
    if (n < 0)
        return NULL;
    return wrap_result(self, tl_view_view(t, n, shape, err));
}

/* The one argument of NAME_as(Tensor other); NULL with the error set. */
static const tl_tensor *other_arg(const tl_args *a, const char *fname, tl_error *err)
{
    static const char *const kw[] = {"other", NULL};
    if (tl_args_check(a, fname, 1, kw, "(Tensor other)", err))
        return NULL;
    tl_value *o = tl_arg(a, 0, "other");
    if (!o)
        return missing(fname, "other", err), NULL;
    if (!tl_value_is_tensorlike(o))
        return bad_arg(a, fname, "(Tensor other)", "other", 0, "Tensor", o, err), NULL;
    return o->u.tensor;
}

static tl_value *m_view_as(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("view_as");
    const tl_tensor *ot = other_arg(a, "view_as", err);
    if (!ot)
        return NULL;
    return wrap_result(self, tl_view_view(t, ot->ndim, ot->sizes, err));
}

static tl_value *m_reshape(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char sig[] = "(tuple of ints shape)";
    SELF("reshape");
    CHECK("reshape", TL_MAX_DIMS, sig, "shape");
    int64_t shape[TL_MAX_DIMS];
    static const tl_shape_param p = {.fname = "reshape", .name = "shape",
                                     .symint = true, .varargs = true};
    int n = tl_to_shape(a, &p, shape, err);
    if (n == TL_SHAPE_ABSENT)
        return missing("reshape", "shape", err), NULL;
    if (n < 0)
        return NULL;
    return wrap_result(self, tl_view_reshape(t, n, shape, err));
}

static tl_value *m_reshape_as(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("reshape_as");
    const tl_tensor *ot = other_arg(a, "reshape_as", err);
    if (!ot)
        return NULL;
    return wrap_result(self, tl_view_reshape(t, ot->ndim, ot->sizes, err));
}

static tl_value *m_flatten(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char sig[] = "(int start_dim = 0, int end_dim = -1)";
    int64_t s, e;
    SELF("flatten");
    CHECK("flatten", 2, sig, "start_dim", "end_dim");
    if (arg_int(a, 0, "start_dim", false, 0, &s, "flatten", sig, err) ||
        arg_int(a, 1, "end_dim", false, -1, &e, "flatten", sig, err))
        return NULL;
    return wrap_result(self, tl_view_flatten(t, s, e, err));
}

static tl_value *m_ravel(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("ravel");
    NOARGS("ravel");
    return wrap_result(self, tl_view_ravel(t, err));
}

static tl_value *m_unflatten(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char sig[] = "(int dim, tuple of ints sizes)";
    int64_t dim, sizes[TL_MAX_DIMS];
    SELF("unflatten");
    CHECK("unflatten", 2, sig, "dim", "sizes");
    if (arg_int(a, 0, "dim", true, 0, &dim, "unflatten", sig, err))
        return NULL;
    static const tl_shape_param p = {.fname = "unflatten", .name = "sizes",
                                     .pos = 1};
    int n = tl_to_shape(a, &p, sizes, err);
    if (n == TL_SHAPE_ABSENT)
        return missing("unflatten", "sizes", err), NULL;
    if (n < 0)
        return NULL;
    return wrap_result(self, tl_view_unflatten(t, dim, n, sizes, err));
}

/* ------------------------------------------------------------------ */
/* dimension reordering                                                */
/* ------------------------------------------------------------------ */

static tl_value *transpose_like(tl_value *self, const tl_args *a,
                                const char *fname, const char *k0,
                                const char *k1, const char *sig, bool inplace,
                                tl_error *err)
{
    int64_t d0, d1;
    SELF(fname);
    static const char *const kws[][3] = {{"dim0", "dim1", NULL},
                                         {"axis0", "axis1", NULL}};
    if (tl_args_check(a, fname, 2, kws[k0[0] == 'a'], sig, err))
        return NULL;
    if (arg_int(a, 0, k0, true, 0, &d0, fname, sig, err) ||
        arg_int(a, 1, k1, true, 0, &d1, fname, sig, err))
        return NULL;
    if (inplace && tl_view_check_inplace(t, err))
        return NULL;
    tl_tensor *r = tl_view_transpose(t, d0, d1, err);
    return inplace ? apply_inplace(self, t, r) : wrap_result(self, r);
}

static const char SIG_TRANSPOSE[] =
    "(int dim0, int dim1)\n(name dim0, name dim1)";

static tl_value *m_transpose(tl_value *self, const tl_args *a, tl_error *err)
{
    return transpose_like(self, a, "transpose", "dim0", "dim1", SIG_TRANSPOSE,
                          false, err);
}
static tl_value *m_transpose_(tl_value *self, const tl_args *a, tl_error *err)
{
    return transpose_like(self, a, "transpose_", "dim0", "dim1",
                          "(int dim0, int dim1)", true, err);
}
static tl_value *m_swapaxes(tl_value *self, const tl_args *a, tl_error *err)
{
    return transpose_like(self, a, "swapaxes", "axis0", "axis1",
                          "(int axis0, int axis1)", false, err);
}
static tl_value *m_swapaxes_(tl_value *self, const tl_args *a, tl_error *err)
{
    return transpose_like(self, a, "swapaxes_", "axis0", "axis1",
                          "(int axis0, int axis1)", true, err);
}
static tl_value *m_swapdims(tl_value *self, const tl_args *a, tl_error *err)
{
    return transpose_like(self, a, "swapdims", "dim0", "dim1",
                          "(int dim0, int dim1)", false, err);
}
static tl_value *m_swapdims_(tl_value *self, const tl_args *a, tl_error *err)
{
    return transpose_like(self, a, "swapdims_", "dim0", "dim1",
                          "(int dim0, int dim1)", true, err);
}

static tl_value *m_t(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("t");
    NOARGS("t");
    return wrap_result(self, tl_view_t(t, "t", err));
}

static tl_value *m_t_(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("t_");
    NOARGS("t_");
    if (tl_view_check_inplace(t, err))
        return NULL;
    return apply_inplace(self, t, tl_view_t(t, "t_", err));
}

static tl_value *a_T(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("T");
    return wrap_result(self, tl_view_T(t, err));
}
static tl_value *a_mT(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("mT");
    return wrap_result(self, tl_view_mT(t, "mT", err));
}
static tl_value *a_mH(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("mH");
    return wrap_result(self, tl_view_mT(t, "mH", err));
}
static tl_value *a_H(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("H");
    return wrap_result(self, tl_view_H(t, err));
}
static tl_value *m_adjoint(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("adjoint");
    NOARGS("adjoint");
    return wrap_result(self, tl_view_mT(t, "adjoint()", err));
}

static tl_value *m_permute(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char sig[] = "(tuple of ints dims)";
    int64_t dims[TL_MAX_DIMS];
    SELF("permute");
    CHECK("permute", TL_MAX_DIMS, sig, "dims");
    static const tl_shape_param p = {.fname = "permute", .name = "dims",
                                     .varargs = true};
    int n = tl_to_shape(a, &p, dims, err);
    if (n == TL_SHAPE_ABSENT)
        return missing("permute", "dims", err), NULL;
    if (n < 0)
        return NULL;
    return wrap_result(self, tl_view_permute(t, n, dims, err));
}

static tl_value *movedim_impl(tl_value *self, const tl_args *a,
                              const char *fname, tl_error *err)
{
    static const char sig[] =
        "(tuple of ints source, tuple of ints destination)\n"
        "(int source, int destination)";
    int64_t src[TL_MAX_DIMS], dst[TL_MAX_DIMS];
    SELF(fname);
    CHECK(fname, 2, sig, "source", "destination");
    if (!tl_arg(a, 0, "source") || !tl_arg(a, 1, "destination"))
        return tl_args_type_error(a, fname, sig, err), NULL;
    const tl_shape_param psrc = {.fname = fname, .name = "source",
                                 .scalar = true, .sig = sig};
    int ns = tl_to_shape(a, &psrc, src, err);
    if (ns < 0)
        return NULL;
    const tl_shape_param pdst = {.fname = fname, .name = "destination",
                                 .pos = 1, .scalar = true, .sig = sig};
    int nd = tl_to_shape(a, &pdst, dst, err);
    if (nd < 0)
        return NULL;
    return wrap_result(self, tl_view_movedim(t, ns, src, nd, dst, err));
}
static tl_value *m_movedim(tl_value *self, const tl_args *a, tl_error *err)
{
    return movedim_impl(self, a, "movedim", err);
}
static tl_value *m_moveaxis(tl_value *self, const tl_args *a, tl_error *err)
{
    return movedim_impl(self, a, "moveaxis", err);
}

/* ------------------------------------------------------------------ */
/* squeeze / unsqueeze / expand                                        */
/* ------------------------------------------------------------------ */

static const char SIG_SQUEEZE[] =
    "()\n(int dim)\n(tuple of ints dim)\n(name dim)";

static tl_tensor *squeeze_args(tl_tensor *t, const tl_args *a,
                               const char *fname, tl_error *err)
{
    static const char *const kw[] = {"dim", NULL};
    if (tl_args_check(a, fname, 1, kw, SIG_SQUEEZE, err))
        return NULL;
    tl_value *d = tl_arg(a, 0, "dim");
    if (!d || d->kind == TL_V_NONE)
        return tl_view_squeeze(t, -1, NULL, err);
    int64_t dims[TL_MAX_DIMS];
    const tl_shape_param p = {.fname = fname, .name = "dim", .scalar = true,
                              .sig = SIG_SQUEEZE};
    int n = tl_to_shape(a, &p, dims, err);
    if (n < 0)
        return NULL;
    return tl_view_squeeze(t, n, dims, err);
}

static tl_value *m_squeeze(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("squeeze");
    return wrap_result(self, squeeze_args(t, a, "squeeze", err));
}

static tl_value *m_squeeze_(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("squeeze_");
    if (tl_view_check_inplace(t, err))
        return NULL;
    return apply_inplace(self, t, squeeze_args(t, a, "squeeze_", err));
}

static tl_value *unsqueeze_impl(tl_value *self, const tl_args *a,
                                const char *fname, bool inplace, tl_error *err)
{
    static const char sig[] = "(int dim)";
    int64_t d;
    SELF(fname);
    CHECK(fname, 1, sig, "dim");
    if (arg_int(a, 0, "dim", true, 0, &d, fname, sig, err))
        return NULL;
    if (inplace && tl_view_check_inplace(t, err))
        return NULL;
    tl_tensor *r = tl_view_unsqueeze(t, d, err);
    return inplace ? apply_inplace(self, t, r) : wrap_result(self, r);
}
static tl_value *m_unsqueeze(tl_value *self, const tl_args *a, tl_error *err)
{
    return unsqueeze_impl(self, a, "unsqueeze", false, err);
}
static tl_value *m_unsqueeze_(tl_value *self, const tl_args *a, tl_error *err)
{
    return unsqueeze_impl(self, a, "unsqueeze_", true, err);
}

static tl_value *m_expand(tl_value *self, const tl_args *a, tl_error *err)
{
    int64_t sizes[TL_MAX_DIMS];
    SELF("expand");
    static const char *const ekw[] = {"size", "implicit", NULL};
    if (kw_only(a, "expand", ekw, err))
        return NULL;
    /* `implicit` is accepted and ignored, as in PyTorch's Python API */
    static const tl_shape_param p = {.fname = "expand", .name = "size",
                                     .symint = true, .varargs = true,
                                     .kwonly_follow = true};
    int n = tl_to_shape(a, &p, sizes, err);
    if (n == TL_SHAPE_ABSENT)
        return missing("expand", "size", err), NULL;
    if (n < 0)
        return NULL;
    return wrap_result(self, tl_view_expand(t, n, sizes, err));
}

static tl_value *m_expand_as(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("expand_as");
    const tl_tensor *ot = other_arg(a, "expand_as", err);
    if (!ot)
        return NULL;
    return wrap_result(self, tl_view_expand(t, ot->ndim, ot->sizes, err));
}

static tl_value *m_broadcast_to(tl_value *self, const tl_args *a,
                                tl_error *err)
{
    static const char sig[] = "(tuple of ints size)";
    int64_t sizes[TL_MAX_DIMS];
    SELF("broadcast_to");
    CHECK("broadcast_to", TL_MAX_DIMS, sig, "size");
    static const tl_shape_param p = {.fname = "broadcast_to", .name = "size",
                                     .varargs = true};
    int n = tl_to_shape(a, &p, sizes, err);
    if (n == TL_SHAPE_ABSENT)
        return missing("broadcast_to", "size", err), NULL;
    if (n < 0)
        return NULL;
    return wrap_result(self, tl_view_expand(t, n, sizes, err));
}

/* Tensors of a varargs-or-one-sequence call; borrowed pointers in out. */
static int tensor_args(const tl_args *a, const char *fname, tl_tensor **out,
                       size_t cap, tl_value **seqv, tl_error *err)
{
    const tl_value *const *items = (const tl_value *const *)a->pos;
    size_t n = a->npos;
    *seqv = NULL;
    if (n == 1 && (a->pos[0]->kind == TL_V_LIST ||
                   a->pos[0]->kind == TL_V_TUPLE)) {
        *seqv = a->pos[0];
        items = (const tl_value *const *)a->pos[0]->u.seq.items;
        n = a->pos[0]->u.seq.n;
    }
    if (n > cap)
        return tl_error_set(err, TL_ERR_LIMIT, "%s(): more than %zu tensors "
                            "are not supported", fname, cap);
    for (size_t i = 0; i < n; i++) {
        if (items[i]->kind != TL_V_TENSOR)
            return tl_error_set(err, TL_ERR_TYPE, "expected Tensor as element "
                                "%zu in argument 0, but got %s", i,
                                tl_value_type_name(items[i]));
        out[i] = items[i]->u.tensor;
    }
    return (int)n;
}

#define MAX_TENSOR_ARGS 1024

static tl_value *f_broadcast_tensors(tl_value *self, const tl_args *a,
                                     tl_error *err)
{
    tl_tensor *ts[MAX_TENSOR_ARGS];
    if (tl_args_check(a, "broadcast_tensors", MAX_TENSOR_ARGS, NULL,
                      "(Tensor tensors, ...)", err))
        return NULL;
    /* broadcast_tensors(*tensors): a list/tuple argument is a TypeError */
    for (size_t i = 0; i < a->npos; i++) {
        if (a->pos[i]->kind != TL_V_TENSOR)
            return tl_error_set(err, TL_ERR_TYPE, "expected Tensor as element "
                                "%zu in argument 0, but got %s", i,
                                tl_value_type_name(a->pos[i])), NULL;
        if (i >= MAX_TENSOR_ARGS)
            return tl_error_set(err, TL_ERR_LIMIT, "too many tensors"), NULL;
        ts[i] = a->pos[i]->u.tensor;
    }
    size_t n = a->npos;
    int64_t shape[TL_MAX_DIMS];
    int nd = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0) {
            nd = ts[0]->ndim;
            memcpy(shape, ts[0]->sizes, sizeof(int64_t) * (size_t)nd);
        } else {
            int64_t tmp[TL_MAX_DIMS];
            nd = tl_shape_broadcast(nd, shape, ts[i]->ndim, ts[i]->sizes,
                                          tmp, err);
            if (nd < 0)
                return NULL;
            memcpy(shape, tmp, sizeof(int64_t) * (size_t)nd);
        }
    }
    tl_value *tup = tl_tuple_new(n);
    for (size_t i = 0; i < n; i++) {
        if (tl_shape_equal(ts[i]->ndim, ts[i]->sizes, nd, shape)) {
            tl_seq_set(tup, i, tl_value_retain(a->pos[i]));
            continue;
        }
        tl_tensor *r = tl_view_expand(ts[i], nd, shape, err);
        if (!r) {
            tl_value_release(tup);
            return NULL;
        }
        tl_seq_set(tup, i, tl_value_tensor(r));
    }
    return tup;
}

static tl_value *f_meshgrid(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *ts[TL_MAX_DIMS];
    tl_value *seqv;
    static const char *const kw[] = {"indexing", NULL};
    if (kw_only(a, "meshgrid", kw, err))
        return NULL;
    int n = tensor_args(a, "meshgrid", ts, TL_MAX_DIMS, &seqv, err);
    if (n < 0)
        return NULL;
    tl_value *ix = tl_arg(a, (size_t)-1, "indexing");
    const char *indexing = "ij";
    if (ix && ix->kind != TL_V_NONE) {
        if (ix->kind != TL_V_STR)
            return tl_error_set(err, TL_ERR_TYPE, "meshgrid(): argument "
                                "'indexing' must be str, not %s",
                                tl_value_type_name(ix)), NULL;
        indexing = ix->u.str.s;
    }
    if (n == 0)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "meshgrid expects a non-empty TensorList"), NULL;
    for (int i = 0; i + 1 < n; i++) {
        if (ts[i]->dtype != ts[i + 1]->dtype)
            return tl_error_set(err, TL_ERR_RUNTIME, "meshgrid expects all "
                                "tensors to have the same dtype"), NULL;
        tl_device d0 = tl_tensor_device(ts[i]), d1 = tl_tensor_device(ts[i + 1]);
        if (d0.kind != d1.kind || d0.index != d1.index)
            return tl_error_set(err, TL_ERR_RUNTIME, "meshgrid expects all "
                                "tensors to have the same device"), NULL;
    }
    bool swap = false;
    if (strcmp(indexing, "xy") == 0)
        swap = n >= 2;
    else if (strcmp(indexing, "ij") != 0)
        return tl_error_set(err, TL_ERR_RUNTIME, "torch.meshgrid: indexing "
                            "must be one of \"xy\" or \"ij\", but received: %s",
                            indexing), NULL;
    if (swap) {
        tl_tensor *tmp = ts[0];
        ts[0] = ts[1];
        ts[1] = tmp;
    }
    int64_t shape[TL_MAX_DIMS], vshape[TL_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        if (ts[i]->ndim > 1) {
            tl_buf b = {0};
            tl_value *tv = tl_value_tensor(tl_tensor_retain(ts[i]));
            tl_value_repr(tv, &b);
            tl_value_release(tv);
            tl_error_set(err, TL_ERR_RUNTIME, "torch.meshgrid: Expected 0D or "
                         "1D tensor in the tensor list but got: %s",
                         tl_buf_str(&b));
            tl_buf_free(&b);
            return NULL;
        }
        shape[i] = tl_tensor_numel(ts[i]);
        vshape[i] = 1;
    }
    tl_value *tup = tl_tuple_new((size_t)n);
    for (int i = 0; i < n; i++) {
        vshape[i] = -1;
        tl_tensor *v = tl_view_view(ts[i], n, vshape, err);
        vshape[i] = 1;
        tl_tensor *r = v ? tl_view_expand(v, n, shape, err) : NULL;
        tl_tensor_release(v);
        if (!r) {
            tl_value_release(tup);
            return NULL;
        }
        int slot = swap && i < 2 ? 1 - i : i;
        tl_seq_set(tup, (size_t)slot, tl_value_tensor(r));
    }
    return tup;
}

static tl_value *atleast_impl(const tl_args *a, int k, const char *fname,
                              tl_error *err)
{
    tl_tensor *ts[MAX_TENSOR_ARGS];
    tl_value *seqv;
    if (tl_args_check(a, fname, MAX_TENSOR_ARGS, NULL, "(Tensor input)\n"
                      "(tuple of Tensors tensors)", err))
        return NULL;
    int n = tensor_args(a, fname, ts, MAX_TENSOR_ARGS, &seqv, err);
    if (n < 0)
        return NULL;
    if (a->npos == 1 && !seqv) {
        tl_tensor *r = tl_view_atleast(ts[0], k, err);
        return wrap_result(a->pos[0], r);
    }
    tl_value *tup = tl_tuple_new((size_t)n);
    for (int i = 0; i < n; i++) {
        tl_tensor *r = tl_view_atleast(ts[i], k, err);
        if (!r) {
            tl_value_release(tup);
            return NULL;
        }
        tl_value *src = seqv ? seqv->u.seq.items[i] : a->pos[i];
        tl_seq_set(tup, (size_t)i, wrap_result(src, r));
    }
    return tup;
}
static tl_value *f_atleast_1d(tl_value *self, const tl_args *a, tl_error *err)
{
    return atleast_impl(a, 1, "atleast_1d", err);
}
static tl_value *f_atleast_2d(tl_value *self, const tl_args *a, tl_error *err)
{
    return atleast_impl(a, 2, "atleast_2d", err);
}
static tl_value *f_atleast_3d(tl_value *self, const tl_args *a, tl_error *err)
{
    return atleast_impl(a, 3, "atleast_3d", err);
}

/* ------------------------------------------------------------------ */
/* sub-ranges                                                          */
/* ------------------------------------------------------------------ */

static tl_value *m_select(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char sig[] = "(name dim, int index)\n(int dim, int index)";
    int64_t d, i;
    SELF("select");
    CHECK("select", 2, sig, "dim", "index");
    if (arg_int(a, 0, "dim", true, 0, &d, "select", sig, err) ||
        arg_int(a, 1, "index", true, 0, &i, "select", sig, err))
        return NULL;
    return wrap_result(self, tl_view_select(t, d, i, err));
}

static tl_value *m_narrow(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char sig[] = "(int dim, Tensor start, int length)\n"
                              "(int dim, int start, int length)";
    int64_t d, s, l;
    SELF("narrow");
    CHECK("narrow", 3, sig, "dim", "start", "length");
    const tl_value *sv = tl_arg(a, 1, "start");
    if (sv && sv->kind == TL_V_TENSOR) {
        /* narrow.Tensor: a 0-dim integral (not bool) tensor, then item() */
        const tl_tensor *st = sv->u.tensor;
        if (st->ndim != 0 || !tl_dtype_is_integral(st->dtype))
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "start must be an 0-dim integral Tensor."), NULL;
        if (arg_int(a, 0, "dim", true, 0, &d, "narrow", sig, err) ||
            arg_int(a, 2, "length", true, 0, &l, "narrow", sig, err) ||
            tl_tensor_get_i64(st, 0, &s, err) < 0)
            return NULL;
        return wrap_result(self, tl_view_narrow(t, d, s, l, err));
    }
    if (arg_int(a, 0, "dim", true, 0, &d, "narrow", sig, err) ||
        arg_int(a, 1, "start", true, 0, &s, "narrow", sig, err) ||
        arg_int(a, 2, "length", true, 0, &l, "narrow", sig, err))
        return NULL;
    return wrap_result(self, tl_view_narrow(t, d, s, l, err));
}

static tl_value *m_unfold(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char sig[] = "(int dimension, int size, int step)";
    int64_t d, s, st;
    SELF("unfold");
    CHECK("unfold", 3, sig, "dimension", "size", "step");
    if (arg_int(a, 0, "dimension", true, 0, &d, "unfold", sig, err) ||
        arg_int(a, 1, "size", true, 0, &s, "unfold", sig, err) ||
        arg_int(a, 2, "step", true, 0, &st, "unfold", sig, err))
        return NULL;
    return wrap_result(self, tl_view_unfold(t, d, s, st, err));
}

static tl_value *m_diagonal(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char sig[] =
        "(*, name outdim, name dim1, name dim2, int offset = 0)\n"
        "(int offset = 0, int dim1 = 0, int dim2 = 1)";
    int64_t o, d1, d2;
    SELF("diagonal");
    CHECK("diagonal", 3, sig, "offset", "dim1", "dim2");
    if (arg_int(a, 0, "offset", false, 0, &o, "diagonal", sig, err) ||
        arg_int(a, 1, "dim1", false, 0, &d1, "diagonal", sig, err) ||
        arg_int(a, 2, "dim2", false, 1, &d2, "diagonal", sig, err))
        return NULL;
    return wrap_result(self, tl_view_diagonal(t, o, d1, d2, err));
}

static tl_tensor *as_strided_args(tl_tensor *t, const tl_args *a,
                                  const char *fname, tl_error *err)
{
    static const char sig[] = "(tuple of ints size, tuple of ints stride, "
                              "int storage_offset = None)";
    static const char *const kw[] = {"size", "stride", "storage_offset", NULL};
    int64_t sz[TL_MAX_DIMS], st[TL_MAX_DIMS], off = 0;
    if (tl_args_check(a, fname, 3, kw, sig, err))
        return NULL;
    tl_value *sv = tl_arg(a, 0, "size"), *tv = tl_arg(a, 1, "stride");
    if (!sv || !tv) {
        missing(fname, !sv ? "size" : "stride", err);
        return NULL;
    }
    const tl_shape_param psize = {.fname = fname, .name = "size",
                                  .symint = true};
    int n = tl_to_shape(a, &psize, sz, err);
    if (n < 0)
        return NULL;
    const tl_shape_param pstride = {.fname = fname, .name = "stride",
                                    .pos = 1, .symint = true};
    int m = tl_to_shape(a, &pstride, st, err);
    if (m < 0)
        return NULL;
    tl_value *ov = tl_arg(a, 2, "storage_offset");
    bool has = ov && ov->kind != TL_V_NONE;
    if (has && arg_int(a, 2, "storage_offset", false, 0, &off, fname, sig,
                       err))
        return NULL;
    return tl_view_as_strided(t, n, sz, m, st, has, off, err);
}

static tl_value *m_as_strided(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("as_strided");
    return wrap_result(self, as_strided_args(t, a, "as_strided", err));
}

static tl_value *m_as_strided_(tl_value *self, const tl_args *a,
                               tl_error *err)
{
    SELF("as_strided_");
    if (tl_view_check_inplace(t, err))
        return NULL;
    return apply_inplace(self, t, as_strided_args(t, a, "as_strided_", err));
}

/* ------------------------------------------------------------------ */
/* split family                                                        */
/* ------------------------------------------------------------------ */

static tl_value *m_split(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char sig[] = "(int split_size, int dim = 0)\n"
                              "(tuple of ints split_size, int dim = 0)";
    static const char *const kw[] = {"split_size", "dim",
                                     "split_size_or_sections", NULL};
    int64_t d, sizes[TL_MAX_DIMS], one;
    tl_tensor_list out;
    SELF("split");
    if (tl_args_check(a, "split", 2, kw, sig, err))
        return NULL;
    tl_value *s = tl_arg(a, 0, "split_size");
    if (!s)
        s = tl_arg(a, (size_t)-1, "split_size_or_sections");
    if (!s)
        return missing("split", "split_size", err), NULL;
    if (arg_int(a, 1, "dim", false, 0, &d, "split", sig, err))
        return NULL;
    if (as_int(s, &one)) {
        return parts_tuple(tl_view_split(t, one, d, &out, err), &out);
    }
    /* Tensor.split calls split_with_sizes(self, split_size, dim) */
    tl_value *inner_pos[] = {self, s};
    tl_args inner = {2, inner_pos, 0, NULL, NULL};
    static const tl_shape_param p = {.fname = "split_with_sizes",
                                     .name = "split_sizes", .pos = 1};
    int n = tl_to_shape(&inner, &p, sizes, err);
    if (n < 0)
        return NULL;
    return parts_tuple(tl_view_split_sizes(t, n, sizes, d, &out, err), &out);
}

static tl_value *m_split_with_sizes(tl_value *self, const tl_args *a,
                                    tl_error *err)
{
    static const char sig[] = "(tuple of ints split_sizes, int dim = 0)";
    int64_t d, sizes[TL_MAX_DIMS];
    tl_tensor_list out;
    SELF("split_with_sizes");
    CHECK("split_with_sizes", 2, sig, "split_sizes", "dim");
    static const tl_shape_param p = {.fname = "split_with_sizes",
                                     .name = "split_sizes"};
    int n = tl_to_shape(a, &p, sizes, err);
    if (n == TL_SHAPE_ABSENT)
        return missing("split_with_sizes", "split_sizes", err), NULL;
    if (n < 0 || arg_int(a, 1, "dim", false, 0, &d, "split_with_sizes", sig,
                         err))
        return NULL;
    return parts_tuple(tl_view_split_sizes(t, n, sizes, d, &out, err), &out);
}

static tl_value *m_chunk(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char sig[] = "(int chunks, int dim = 0)";
    int64_t c, d;
    tl_tensor_list out;
    SELF("chunk");
    CHECK("chunk", 2, sig, "chunks", "dim");
    if (arg_int(a, 0, "chunks", true, 0, &c, "chunk", sig, err) ||
        arg_int(a, 1, "dim", false, 0, &d, "chunk", sig, err))
        return NULL;
    return parts_tuple(tl_view_chunk(t, c, d, &out, err), &out);
}

#define MAX_SPLIT_INDICES 100000

/* indices from a list/tuple or a 1-D long tensor; NULL-free heap array */
static int64_t *split_indices(const tl_value *v, int *n, const tl_args *a,
                              const char *fname, const char *sig,
                              tl_error *err)
{
    if (v->kind == TL_V_TENSOR) {
        const tl_tensor *it = v->u.tensor;
        int64_t m = tl_tensor_numel(it);
        if (m > MAX_SPLIT_INDICES) {
            tl_error_set(err, TL_ERR_LIMIT, "too many split indices");
            return NULL;
        }
        int64_t *out = tl_xcalloc((size_t)(m > 0 ? m : 1), sizeof(int64_t));
        tl_tensor *h = tl_tensor_read_host(it, err); /* one transfer */
        for (int64_t i = 0; i < m; i++) {
            if (!h || tl_tensor_get_i64(h, i, &out[i], err)) {
                tl_tensor_release(h);
                free(out);
                return NULL;
            }
        }
        tl_tensor_release(h);
        *n = (int)m;
        return out;
    }
    size_t m = v->u.seq.n;
    if (m > MAX_SPLIT_INDICES) {
        tl_error_set(err, TL_ERR_LIMIT, "too many split indices");
        return NULL;
    }
    int64_t *out = tl_xcalloc(m > 0 ? m : 1, sizeof(int64_t));
    for (size_t i = 0; i < m; i++) {
        if (!as_int(v->u.seq.items[i], &out[i])) {
            free(out);
            tl_args_type_error(a, fname, sig, err);
            return NULL;
        }
    }
    *n = (int)m;
    return out;
}

/* t split at the indices in v (a sequence or a 1-D integer tensor) */
static tl_value *split_at(const tl_tensor *t, const tl_value *v, int64_t dim,
                          const tl_args *a, const char *fname, const char *sig,
                          tl_error *err)
{
    int n;
    int64_t *idx = split_indices(v, &n, a, fname, sig, err);
    if (!idx)
        return NULL;
    tl_tensor_list out;
    int rc = tl_view_tensor_split_idx(t, n, idx, dim, &out, err);
    free(idx);
    return parts_tuple(rc, &out);
}

static tl_value *m_tensor_split(tl_value *self, const tl_args *a,
                                tl_error *err)
{
    static const char sig[] =
        "(tuple of ints indices, int dim = 0)\n"
        "(Tensor tensor_indices_or_sections, int dim = 0)\n"
        "(int sections, int dim = 0)";
    static const char *const kw[] = {"indices_or_sections", "dim", "indices",
                                     "sections", "tensor_indices_or_sections",
                                     NULL};
    int64_t d, sec;
    tl_tensor_list out;
    SELF("tensor_split");
    if (tl_args_check(a, "tensor_split", 2, kw, sig, err))
        return NULL;
    tl_value *v = tl_arg(a, 0, "indices_or_sections");
    const char *kname = NULL;
    for (size_t k = 0; !v && k < 3; k++) {
        kname = kw[2 + k];
        v = tl_arg(a, (size_t)-1, kname);
    }
    if (!v)
        return tl_args_type_error(a, "tensor_split", sig, err), NULL;
    if (arg_int(a, 1, "dim", false, 0, &d, "tensor_split", sig, err))
        return NULL;
    if (v->kind == TL_V_TENSOR) {
        const tl_tensor *it = v->u.tensor;
        if (t->ndim == 0)
            return tl_error_set(err, TL_ERR_RUNTIME, "tensor_split expected "
                                "at least a 1-dimensional tensor, but got a "
                                "tensor with 0 dims"), NULL;
        if (tl_tensor_device(it).kind != TL_DEV_CPU)
            return tl_error_set(err, TL_ERR_RUNTIME, "tensor_split expected "
                                "tensor_indices_or_sections to be on cpu, but "
                                "it's on cuda:%d",
                                tl_tensor_device(it).index), NULL;
        if (it->dtype != TL_INT64)
            return tl_error_set(err, TL_ERR_RUNTIME, "tensor_split expected "
                                "tensor_indices_or_sections to have dtype of "
                                "long, but got %s",
                                tl_dtype_scalar_name(it->dtype)), NULL;
        if (it->ndim > 1)
            return tl_error_set(err, TL_ERR_RUNTIME, "tensor_split expected "
                                "tensor_indices_or_sections to be a "
                                "zero-dimensional or one-dimensional tensor, "
                                "but got a tensor with %d dims",
                                it->ndim), NULL;
        if (it->ndim == 0) {
            if (tl_tensor_get_i64(it, 0, &sec, err) ||
                tl_view_tensor_split_n(t, sec, d, &out, err))
                return NULL;
            return list_to_tuple(&out);
        }
    } else if (as_int(v, &sec)) {
        if (kname && strcmp(kname, "indices") == 0)
            return tl_args_type_error(a, "tensor_split", sig, err), NULL;
        return parts_tuple(tl_view_tensor_split_n(t, sec, d, &out, err), &out);
    } else if (!tl_value_is_seq(v)) {
        return tl_args_type_error(a, "tensor_split", sig, err), NULL;
    }
    return split_at(t, v, d, a, "tensor_split", sig, err);
}

/* hsplit / vsplit / dsplit: dims_needed 1/2/3 */
static tl_value *xsplit(tl_value *self, const tl_args *a, const char *fname,
                        int need, tl_error *err)
{
    static const char sig[] = "(int sections)\n(tuple of ints indices)";
    static const char *const kw[] = {"indices_or_sections", "sections",
                                     "indices", NULL};
    char tname[16];
    int64_t sec;
    tl_tensor_list out;
    SELF(fname);
    snprintf(tname, sizeof tname, "torch.%s", fname);
    if (tl_args_check(a, fname, 1, kw, sig, err))
        return NULL;
    tl_value *v = tl_arg(a, 0, "indices_or_sections");
    for (size_t k = 1; !v && k < 3; k++)
        v = tl_arg(a, (size_t)-1, kw[k]);
    if (!v)
        return tl_args_type_error(a, fname, sig, err), NULL;
    if (t->ndim < need)
        return tl_error_set(err, TL_ERR_RUNTIME, "%s requires a tensor with "
                            "at least %d dimension, but got a tensor with %d "
                            "dimensions!", tname, need, t->ndim), NULL;
    int dim = need == 1 ? (t->ndim == 1 ? 0 : 1) : need == 2 ? 0 : 2;
    if (as_int(v, &sec)) {
        if (sec == 0 || t->sizes[dim] % sec != 0)
            return tl_error_set(err, TL_ERR_RUNTIME, "%s attempted to split "
                                "along dimension %d, but the size of the "
                                "dimension %lld is not divisible by the "
                                "split_size %lld!", tname, dim,
                                (long long)t->sizes[dim],
                                (long long)sec), NULL;
        return parts_tuple(tl_view_tensor_split_n(t, sec, dim, &out, err), &out);
    }
    if (!tl_value_is_seq(v))
        return tl_args_type_error(a, fname, sig, err), NULL;
    return split_at(t, v, dim, a, fname, sig, err);
}
static tl_value *m_hsplit(tl_value *self, const tl_args *a, tl_error *err)
{
    return xsplit(self, a, "hsplit", 1, err);
}
static tl_value *m_vsplit(tl_value *self, const tl_args *a, tl_error *err)
{
    return xsplit(self, a, "vsplit", 2, err);
}
static tl_value *m_dsplit(tl_value *self, const tl_args *a, tl_error *err)
{
    return xsplit(self, a, "dsplit", 3, err);
}

static tl_value *m_unbind(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char sig[] = "(int dim = 0)\n(name dim)";
    int64_t d;
    tl_tensor_list out;
    SELF("unbind");
    CHECK("unbind", 1, sig, "dim");
    if (arg_int(a, 0, "dim", false, 0, &d, "unbind", sig, err))
        return NULL;
    return parts_tuple(tl_view_unbind(t, d, &out, err), &out);
}

/* ------------------------------------------------------------------ */
/* aliases                                                             */
/* ------------------------------------------------------------------ */

static tl_value *m_detach(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("detach");
    NOARGS("detach");
    return tl_value_tensor(tl_view_detach(t));
}

static tl_value *a_data(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("data");
    return tl_value_tensor(tl_view_data(t));
}

/* conj(), resolve_conj(), resolve_neg(): self on real dtypes */
static tl_value *m_conj(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("conj");
    NOARGS("conj");
    (void)t;
    return tl_value_retain(self);
}
static tl_value *m_resolve_conj(tl_value *self, const tl_args *a,
                                tl_error *err)
{
    SELF("resolve_conj");
    NOARGS("resolve_conj");
    (void)t;
    return tl_value_retain(self);
}
static tl_value *m_resolve_neg(tl_value *self, const tl_args *a,
                               tl_error *err)
{
    SELF("resolve_neg");
    NOARGS("resolve_neg");
    (void)t;
    return tl_value_retain(self);
}
static tl_value *a_real(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("real");
    (void)t;
    return tl_value_retain(self);
}
static tl_value *a_imag(tl_value *self, const tl_args *a, tl_error *err)
{
    SELF("imag");
    (void)t;
    return tl_error_set(err, TL_ERR_RUNTIME, "imag is not implemented for "
                        "tensors with non-complex dtypes."), NULL;
}

static tl_value *m_view_as_real(tl_value *self, const tl_args *a,
                                tl_error *err)
{
    SELF("view_as_real");
    NOARGS("view_as_real");
    (void)t;
    return tl_error_set(err, TL_ERR_RUNTIME, "view_as_real is only supported "
                        "for complex tensors"), NULL;
}

static tl_value *m_view_as_complex(tl_value *self, const tl_args *a,
                                   tl_error *err)
{
    SELF("view_as_complex");
    NOARGS("view_as_complex");
    if (t->dtype != TL_FLOAT32 && t->dtype != TL_FLOAT64 &&
        t->dtype != TL_FLOAT16)
        return tl_error_set(err, TL_ERR_RUNTIME, "view_as_complex is only "
                            "supported for half, float and double tensors, "
                            "but got a tensor of scalar type: %s",
                            tl_dtype_scalar_name(t->dtype)), NULL;
    if (t->ndim == 0)
        return tl_error_set(err, TL_ERR_RUNTIME, "Input tensor must have one "
                            "or more dimensions"), NULL;
    if (t->sizes[t->ndim - 1] != 2)
        return tl_error_set(err, TL_ERR_RUNTIME, "Tensor must have a last "
                            "dimension of size 2"), NULL;
    if (t->strides[t->ndim - 1] != 1)
        return tl_error_set(err, TL_ERR_RUNTIME, "Tensor must have a last "
                            "dimension with stride 1"), NULL;
    for (int i = 0; i < t->ndim - 1; i++)
        if (t->strides[i] % 2 != 0)
            return tl_error_set(err, TL_ERR_RUNTIME, "Tensor must have a "
                                "stride divisible by 2 for all but last "
                                "dimension"), NULL;
    if (t->offset % 2 != 0)
        return tl_error_set(err, TL_ERR_RUNTIME, "Tensor must have a "
                            "storage_offset divisible by 2"), NULL;
    return tl_error_set(err, TL_ERR_UNSUPPORTED,
                        "complex tensors are not supported by tlab"), NULL;
}

/* ------------------------------------------------------------------ */
/* resize_, set_                                                       */
/* ------------------------------------------------------------------ */

static tl_value *m_resize_(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"memory_format", NULL};
    int64_t sz[TL_MAX_DIMS];
    SELF("resize_");
    if (kw_only(a, "resize_", kw, err))
        return NULL;
    const tl_shape_param p = {.fname = "resize_", .name = "size",
                              .symint = true, .varargs = true,
                              .kwonly_follow = true};
    int n = tl_to_shape(a, &p, sz, err);
    if (n == TL_SHAPE_ABSENT)
        return missing("resize_", "size", err), NULL;
    if (n < 0)
        return NULL;
    tl_value *mf = tl_arg(a, (size_t)-1, "memory_format");
    bool has = mf && mf->kind != TL_V_NONE;
    if (has && mf->kind != TL_V_MEMFMT)
        return tl_error_set(err, TL_ERR_TYPE, "resize_(): argument "
                            "'memory_format' must be torch.memory_format, not %s",
                            tl_value_type_name(mf)), NULL;
    if (tl_view_resize_(t, n, sz, has, has ? mf->u.memfmt : TL_MEMFMT_PRESERVE,
                        err))
        return NULL;
    return tl_value_retain(self);
}

static tl_value *m_set_(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char sig[] =
        "()\n(Storage source)\n(Storage source, int storage_offset, "
        "tuple of ints size, tuple of ints stride = None)\n(Tensor source)";
    static const char *const kw[] = {"source", "storage_offset", "size",
                                     "stride", NULL};
    int64_t sz[TL_MAX_DIMS], st[TL_MAX_DIMS], off = 0;
    SELF("set_");
    if (tl_args_check(a, "set_", 4, kw, sig, err))
        return NULL;
    tl_value *src = tl_arg(a, 0, "source");
    int rc;
    if (!src) { /* set_(): an empty storage of self's kind */
        if (a->npos || a->nkw)
            return tl_args_type_error(a, "set_", sig, err), NULL;
        tl_storage *e = tl_storage_new(t->storage->backend, 0, err);
        if (!e)
            return NULL;
        int64_t zero = 0, one = 1;
        rc = tl_view_set_(t, e, 0, 1, &zero, &one, err);
        tl_storage_release(e);
    } else if (src->kind == TL_V_TENSOR) {
        const tl_tensor *o = src->u.tensor;
        if (a->npos + a->nkw != 1)
            return tl_args_type_error(a, "set_", sig, err), NULL;
        if (o->dtype != t->dtype)
            return tl_error_set(err, TL_ERR_RUNTIME, "source.dtype() == "
                                "self.dtype() INTERNAL ASSERT FAILED at "
                                "\"./torch/csrc/autograd/generated/"
                                "python_variable_methods.cpp\":16761, please "
                                "report a bug to PyTorch. "), NULL;
        rc = tl_view_set_(t, o->storage, o->offset, o->ndim, o->sizes,
                          o->strides, err);
    } else if (src->kind == TL_V_STORAGE) {
        tl_storage *s = src->u.storage;
        size_t isz = tl_dtype_size(t->dtype);
        if (a->npos + a->nkw == 1) { /* the whole storage as 1-D */
            int64_t n = (int64_t)(s->nbytes / isz), one = 1;
            rc = tl_view_set_(t, s, 0, 1, &n, &one, err);
        } else {
            tl_value *ov = tl_arg(a, 1, "storage_offset");
            if (!ov || !tl_arg(a, 2, "size"))
                return tl_args_type_error(a, "set_", sig, err), NULL;
            if (arg_int(a, 1, "storage_offset", true, 0, &off, "set_", sig, err))
                return NULL;
            const tl_shape_param ps = {.fname = "set_", .name = "size",
                                       .pos = 2, .sig = sig};
            int n = tl_to_shape(a, &ps, sz, err);
            if (n < 0)
                return NULL;
            tl_value *sv = tl_arg(a, 3, "stride");
            if (sv && sv->kind != TL_V_NONE) {
                const tl_shape_param pt = {.fname = "set_", .name = "stride",
                                           .pos = 3, .sig = sig};
                int m = tl_to_shape(a, &pt, st, err);
                if (m < 0)
                    return NULL;
                if (m != n)
                    return tl_error_set(err, TL_ERR_RUNTIME, "mismatch in "
                                        "length of strides and shape"), NULL;
            } else {
                tl_shape_contiguous_strides(n, sz, st);
            }
            rc = tl_view_set_(t, s, off, n, sz, st, err);
        }
    } else {
        return tl_args_type_error(a, "set_", sig, err), NULL;
    }
    return rc ? NULL : tl_value_retain(self);
}

/* ------------------------------------------------------------------ */
/* the *_copy family (reference sheet row 81)                          */
/* ------------------------------------------------------------------ */

/* torch.slice_copy's view: slice(input, dim=0, start=None, end=None,
 * step=1); not a Tensor method, so it lives here only. */
static tl_value *m_slice(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char sig[] = "(int dim = 0, SymInt start = None, "
                              "SymInt end = None, SymInt step = 1)";
    int64_t dim, start = 0, end = 0, step;
    int d;
    SELF("slice_copy");
    CHECK("slice_copy", 4, sig, "dim", "start", "end", "step");
    tl_value *sv = tl_arg(a, 1, "start"), *ev = tl_arg(a, 2, "end");
    bool hs = sv && sv->kind != TL_V_NONE, he = ev && ev->kind != TL_V_NONE;
    if (arg_int(a, 0, "dim", false, 0, &dim, "slice_copy", sig, err) ||
        (hs && arg_int(a, 1, "start", false, 0, &start, "slice_copy", sig, err)) ||
        (he && arg_int(a, 2, "end", false, 0, &end, "slice_copy", sig, err)) ||
        arg_int(a, 3, "step", false, 1, &step, "slice_copy", sig, err))
        return NULL;
    if (tl_shape_wrap_dim(dim, t->ndim, &d, err))
        return NULL;
    if (step <= 0)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "slice step must be positive"), NULL;
    return wrap_result(self, tl_view_slice(t, d, hs, start, he, end, step));
}

/* A copy of one result of the view op: contiguous, new storage (2.x's
 * generated *_copy kernels: view, then clone(contiguous_format)). */
static tl_value *copy_of(tl_value *v, tl_error *err)
{
    if (v->kind == TL_V_TENSOR) {
        tl_tensor *c = tl_ops_clone(v->u.tensor, TL_MEMFMT_CONTIGUOUS, err);
        return c ? tl_value_tensor(c) : NULL;
    }
    if (v->kind == TL_V_TUPLE) {
        tl_value *tup = tl_tuple_new(v->u.seq.n);
        for (size_t i = 0; i < v->u.seq.n; i++) {
            tl_value *c = copy_of(v->u.seq.items[i], err);
            if (!c) {
                tl_value_release(tup);
                return NULL;
            }
            tl_seq_set(tup, i, c);
        }
        return tup;
    }
    return tl_value_retain(v);
}

/* torch.NAME_copy(input, ...): the view op `view` (a Tensor method, or
 * m_slice) on input with the remaining arguments, then copy_of. */
static tl_value *view_copy_op(const char *fname, const char *view,
                              tl_cfunc fn, const tl_args *a, tl_error *err)
{
    tl_value *in = a->npos ? a->pos[0] : NULL;
    tl_args rest = *a;
    const char *kn[16];
    tl_value *kv[16];
    if (in) {
        rest.pos = a->pos + 1;
        rest.npos = a->npos - 1;
    } else { /* input= given by keyword: drop it from the keywords */
        size_t m = 0;
        for (size_t k = 0; k < a->nkw; k++) {
            if (!in && strcmp(a->kwnames[k], "input") == 0) {
                in = a->kwvals[k];
                continue;
            }
            if (m == 16)
                return tl_error_set(err, TL_ERR_TYPE, "%s() got too many "
                                    "keyword arguments", fname), NULL;
            kn[m] = a->kwnames[k];
            kv[m++] = a->kwvals[k];
        }
        rest.nkw = m;
        rest.kwnames = kn;
        rest.kwvals = kv;
    }
    if (!in)
        return missing(fname, "input", err), NULL;
    if (in->kind != TL_V_TENSOR)
        return tl_error_set(err, TL_ERR_TYPE, "%s(): argument 'input' "
                            "(position 1) must be Tensor, not %s", fname,
                            tl_value_type_name(in)), NULL;
    if (!fn) {
        const tl_binding *b = tl_bind_find(TL_BIND_METHOD, view);
        TL_ASSERT(b != NULL);
        fn = b->fn;
    }
    tl_value *r = fn(in, &rest, err);
    if (!r && strcmp(view, "view") == 0 && strncmp(err->msg, "view size is not compatible", 27) == 0) {
        /* 2.x view_copy: where computeStride finds no view, it is
         * self.reshape(size), a fresh contiguous copy */
        const tl_binding *rb = tl_bind_find(TL_BIND_METHOD, "reshape");
        TL_ASSERT(rb != NULL);
        tl_error_clear(err);
        return rb->fn(in, &rest, err);
    }
    if (!r)
        return NULL;
    tl_value *c = copy_of(r, err);
    tl_value_release(r);
    return c;
}

#define VIEW_COPY(NAME, VIEW, FN)                                             \
    static tl_value *f_##NAME##_copy(tl_value *self, const tl_args *a,        \
                                     tl_error *err)                           \
    {                                                                         \
        (void)self;                                                           \
        return view_copy_op(#NAME "_copy", VIEW, FN, a, err);                 \
    }
VIEW_COPY(view, "view", NULL)
VIEW_COPY(permute, "permute", NULL)
VIEW_COPY(expand, "expand", NULL)
VIEW_COPY(transpose, "transpose", NULL)
VIEW_COPY(select, "select", NULL)
VIEW_COPY(slice, "slice", m_slice)
VIEW_COPY(unsqueeze, "unsqueeze", NULL)
VIEW_COPY(squeeze, "squeeze", NULL)
VIEW_COPY(diagonal, "diagonal", NULL)
VIEW_COPY(as_strided, "as_strided", NULL)
VIEW_COPY(unbind, "unbind", NULL)
VIEW_COPY(split, "split", NULL)
VIEW_COPY(split_with_sizes, "split_with_sizes", NULL)
VIEW_COPY(t, "t", NULL)
VIEW_COPY(detach, "detach", NULL)
VIEW_COPY(alias, "detach", NULL)
VIEW_COPY(unfold, "unfold", NULL)
#undef VIEW_COPY

/* ------------------------------------------------------------------ */
/* tables                                                              */
/* ------------------------------------------------------------------ */

static const tl_binding methods[] = {
    {"view", m_view, false, false},
    {"view_as", m_view_as, false, false},
    {"reshape", m_reshape, false, false},
    {"reshape_as", m_reshape_as, false, false},
    {"flatten", m_flatten, false, false},
    {"ravel", m_ravel, false, false},
    {"unflatten", m_unflatten, false, false},
    {"t", m_t, false, false},
    {"t_", m_t_, false, true},
    {"transpose", m_transpose, false, false},
    {"transpose_", m_transpose_, false, true},
    {"swapaxes", m_swapaxes, false, false},
    {"swapaxes_", m_swapaxes_, false, true},
    {"swapdims", m_swapdims, false, false},
    {"swapdims_", m_swapdims_, false, true},
    {"adjoint", m_adjoint, false, false},
    {"permute", m_permute, false, false},
    {"movedim", m_movedim, false, false},
    {"moveaxis", m_moveaxis, false, false},
    {"squeeze", m_squeeze, false, false},
    {"squeeze_", m_squeeze_, false, true},
    {"unsqueeze", m_unsqueeze, false, false},
    {"unsqueeze_", m_unsqueeze_, false, true},
    {"expand", m_expand, false, false},
    {"expand_as", m_expand_as, false, false},
    {"broadcast_to", m_broadcast_to, false, false},
    {"select", m_select, false, false},
    {"narrow", m_narrow, false, false},
    {"unfold", m_unfold, false, false},
    {"diagonal", m_diagonal, false, false},
    {"as_strided", m_as_strided, false, false},
    {"as_strided_", m_as_strided_, false, true},
    {"split", m_split, false, false},
    {"split_with_sizes", m_split_with_sizes, false, false},
    {"chunk", m_chunk, false, false},
    {"tensor_split", m_tensor_split, false, false},
    {"hsplit", m_hsplit, false, false},
    {"vsplit", m_vsplit, false, false},
    {"dsplit", m_dsplit, false, false},
    {"unbind", m_unbind, false, false},
    {"detach", m_detach, false, false},
    {"conj", m_conj, false, false},
    {"resolve_conj", m_resolve_conj, false, false},
    {"resolve_neg", m_resolve_neg, false, false},
    {"view_as_real", m_view_as_real, false, false},
    {"view_as_complex", m_view_as_complex, false, false},
    {"resize_", m_resize_, false, true},
    {"set_", m_set_, false, true},
    {NULL, NULL, false, false},
};

static const tl_binding attrs[] = {
    {"T", a_T, true, false},
    {"mT", a_mT, true, false},
    {"H", a_H, true, false},
    {"mH", a_mH, true, false},
    {"data", a_data, true, false},
    {"real", a_real, true, false},
    {"imag", a_imag, true, false},
    {NULL, NULL, false, false},
};

static const tl_binding torch_fns[] = {
    {"broadcast_tensors", f_broadcast_tensors, false, false},
    {"meshgrid", f_meshgrid, false, false},
    {"atleast_1d", f_atleast_1d, false, false},
    {"atleast_2d", f_atleast_2d, false, false},
    {"atleast_3d", f_atleast_3d, false, false},
    {"view_copy", f_view_copy, false, false},
    {"permute_copy", f_permute_copy, false, false},
    {"expand_copy", f_expand_copy, false, false},
    {"transpose_copy", f_transpose_copy, false, false},
    {"select_copy", f_select_copy, false, false},
    {"slice_copy", f_slice_copy, false, false},
    {"unsqueeze_copy", f_unsqueeze_copy, false, false},
    {"squeeze_copy", f_squeeze_copy, false, false},
    {"diagonal_copy", f_diagonal_copy, false, false},
    {"as_strided_copy", f_as_strided_copy, false, false},
    {"unbind_copy", f_unbind_copy, false, false},
    {"split_copy", f_split_copy, false, false},
    {"split_with_sizes_copy", f_split_with_sizes_copy, false, false},
    {"t_copy", f_t_copy, false, false},
    {"detach_copy", f_detach_copy, false, false},
    {"alias_copy", f_alias_copy, false, false},
    {"unfold_copy", f_unfold_copy, false, false},
    {NULL, NULL, false, false},
};

const tl_bind_table tl_bind_view_tables[] = {
    {TL_BIND_METHOD, methods},
    {TL_BIND_ATTR, attrs},
    {TL_BIND_TORCH, torch_fns},
    {TL_BIND_METHOD, NULL},
};
