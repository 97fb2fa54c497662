/* bind_scatter.c - bindings of the scatter family (runtime/scatter.c,
 * issue #27): index_fill(_), index_copy(_), scatter(_) with src=, value=
 * and reduce=, scatter_add(_), masked_scatter(_), put_ / put.
 *
 * The in-place forms return self (their one version bump is the
 * runtime's). The out-of-place forms are torch's: a clone, written in
 * place, handed out as a fresh tensor (_version 0). The clone's layout is
 * torch's too: index_fill and put keep self's strides (clone), index_copy,
 * scatter, scatter_add and masked_scatter are row-major (their
 * TensorIterator / contiguous clone); masked_scatter first broadcasts self
 * with the mask.
 */
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "ops.h"
#include "pyops.h"
#include "scatter.h"
#include "shape.h"
#include "util.h"
#include "view.h"

static tl_value *missing(const char *fname, const char *argname, tl_error *err)
{
    tl_error_set(err, TL_ERR_TYPE, "%s() missing 1 required positional arguments: \"%s\"",
                 fname, argname);
    return NULL;
}

static int need_tensor(const tl_value *v, const char *fname, const char *arg, int pos,
                       tl_tensor **out, tl_error *err)
{
    if (v->kind != TL_V_TENSOR)
        return tl_error_set(err, TL_ERR_TYPE, "%s(): argument '%s' (position %d) must be "
                            "Tensor, not %s", fname, arg, pos, tl_value_type_name(v));
    *out = v->u.tensor;
    return 0;
}

static int need_dim(const tl_value *v, const tl_args *a, const char *fname, const char *sig,
                    int64_t *dim, tl_error *err)
{
    if (v->kind == TL_V_BOOL || !tl_value_as_index(v, dim))
        return tl_args_type_error(a, fname, sig, err);
    return 0;
}

/* the number of a 0-d tensor, as torch's value.item() */
static int tensor_number(const tl_tensor *t, tl_scalar *s, tl_error *err)
{
    memset(s, 0, sizeof *s);
    if (tl_dtype_is_floating(t->dtype)) {
        s->is_float = true;
        return tl_tensor_get_f64(t, 0, &s->f, err);
    }
    if (tl_tensor_get_i64(t, 0, &s->i, err))
        return -1;
    s->f = (double)s->i;
    return 0;
}

/* self's working copy for an out-of-place form */
static tl_tensor *work_copy(tl_value *self, bool inplace, tl_memfmt fmt, tl_error *err)
{
    tl_tensor *t = self->u.tensor;
    if (inplace)
        return tl_tensor_retain(t);
    return tl_ops_clone(t, fmt, err);
}

static tl_value *finish(tl_value *self, bool inplace, tl_tensor *c, int rc)
{
    if (rc) {
        tl_tensor_release(c);
        return NULL;
    }
    if (inplace) {
        tl_tensor_release(c);
        return tl_value_retain(self);
    }
    c->version->value = 0; /* the out-of-place result is fresh */
    return tl_value_tensor(c);
}

static tl_value *index_fill_impl(const char *fname, bool inplace, tl_value *self,
                                 const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"dim", "index", "value", NULL};
    static const char sig[] = "(int dim, Tensor index, Tensor value)\n"
                              "(int dim, Tensor index, Number value)";
    if (!tl_bind_self_tensor(self, fname, err) || tl_args_check(a, fname, 3, kw, sig, err))
        return NULL;
    tl_value *d = tl_arg(a, 0, "dim"), *i = tl_arg(a, 1, "index"), *v = tl_arg(a, 2, "value");
    if (!d || !i || !v)
        return missing(fname, !d ? "dim" : !i ? "index" : "value", err);
    int64_t dim;
    tl_operand vo;
    if (need_dim(d, a, fname, sig, &dim, err) || i->kind != TL_V_TENSOR ||
        v->kind == TL_V_NDARRAY || !tl_pyops_operand(v, &vo)) {
        if (err->kind == TL_OK)
            tl_args_type_error(a, fname, sig, err);
        return NULL;
    }
    tl_scalar s = vo.s;
    if (vo.t) {
        if (vo.t->ndim != 0)
            return tl_error_set(err, TL_ERR_RUNTIME, "index_fill_ only supports a "
                                "0-dimensional value tensor, but got tensor with %d "
                                "dimension(s).", vo.t->ndim), NULL;
        if (tensor_number(vo.t, &s, err))
            return NULL;
    }
    tl_tensor *c = work_copy(self, inplace, TL_MEMFMT_PRESERVE, err);
    if (!c)
        return NULL;
    return finish(self, inplace, c, tl_scatter_index_fill_(c, dim, i->u.tensor, &s, err));
}

static tl_value *index_copy_impl(const char *fname, bool inplace, tl_value *self,
                                 const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"dim", "index", "source", NULL};
    static const char sig[] = "(int dim, Tensor index, Tensor source)\n"
                              "(name dim, Tensor index, Tensor source)";
    if (!tl_bind_self_tensor(self, fname, err) || tl_args_check(a, fname, 3, kw, sig, err))
        return NULL;
    tl_value *d = tl_arg(a, 0, "dim"), *i = tl_arg(a, 1, "index"), *v = tl_arg(a, 2, "source");
    if (!d || !i || !v)
        return missing(fname, !d ? "dim" : !i ? "index" : "source", err);
    int64_t dim;
    if (need_dim(d, a, fname, sig, &dim, err))
        return NULL;
    if (i->kind != TL_V_TENSOR || v->kind != TL_V_TENSOR)
        return tl_args_type_error(a, fname, sig, err), NULL;
    tl_tensor *c = work_copy(self, inplace, TL_MEMFMT_CONTIGUOUS, err);
    if (!c)
        return NULL;
    return finish(self, inplace, c,
                  tl_scatter_index_copy_(c, dim, i->u.tensor, v->u.tensor, err));
}

static tl_value *scatter_impl(const char *fname, bool inplace, bool add, tl_value *self,
                              const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"dim", "index", "src", "*", "reduce", "value", NULL};
    static const char *const kw_add[] = {"dim", "index", "src", NULL};
    static const char sig[] = "(int dim, Tensor index, Tensor src)\n"
                              "(int dim, Tensor index, Tensor src, *, str reduce)\n"
                              "(int dim, Tensor index, Number value)\n"
                              "(int dim, Tensor index, Number value, *, str reduce)";
    static const char sig_add[] = "(int dim, Tensor index, Tensor src)\n"
                                  "(name dim, Tensor index, Tensor src)";
    const char *s = add ? sig_add : sig;
    if (!tl_bind_self_tensor(self, fname, err) ||
        tl_args_check(a, fname, 3, add ? kw_add : kw, s, err))
        return NULL;
    tl_value *d = tl_arg(a, 0, "dim"), *i = tl_arg(a, 1, "index"), *v = tl_arg(a, 2, "src");
    tl_value *vv = add ? NULL : tl_arg(a, (size_t)-1, "value");
    tl_value *rv = add ? NULL : tl_arg(a, (size_t)-1, "reduce");
    if (v && vv)
        return tl_args_type_error(a, fname, s, err), NULL;
    if (!v)
        v = vv;
    if (!d || !i || !v)
        return missing(fname, !d ? "dim" : !i ? "index" : "src", err);
    int64_t dim;
    if (need_dim(d, a, fname, s, &dim, err))
        return NULL;
    if (i->kind != TL_V_TENSOR)
        return tl_args_type_error(a, fname, s, err), NULL;
    tl_scatter_reduce red = add ? TL_SCATTER_REDUCE_ADD : TL_SCATTER_REDUCE_NONE;
    if (rv) {
        if (rv->kind != TL_V_STR)
            return tl_args_type_error(a, fname, s, err), NULL;
        const char *r = rv->u.str.s;
        if (!strcmp(r, "add"))
            red = TL_SCATTER_REDUCE_ADD;
        else if (!strcmp(r, "multiply"))
            red = TL_SCATTER_REDUCE_MUL;
        else
            return tl_error_set(err, TL_ERR_RUNTIME, "reduce argument must be either add or "
                                "multiply."), NULL;
    }
    tl_scalar num = {0};
    const tl_tensor *src = NULL;
    if (v->kind == TL_V_TENSOR && v != vv) {
        src = v->u.tensor;
    } else {
        tl_operand vo;
        if (add || v->kind == TL_V_NDARRAY || !tl_pyops_operand(v, &vo) || vo.t)
            return tl_args_type_error(a, fname, s, err), NULL;
        num = vo.s;
    }
    tl_tensor *c = work_copy(self, inplace, TL_MEMFMT_CONTIGUOUS, err);
    if (!c)
        return NULL;
    return finish(self, inplace, c,
                  tl_scatter_scatter_(c, dim, i->u.tensor, src, &num, red, err));
}

static tl_value *masked_scatter_impl(const char *fname, bool inplace, tl_value *self,
                                     const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"mask", "source", NULL};
    tl_tensor *t = tl_bind_self_tensor(self, fname, err), *m = NULL, *src = NULL;
    if (!t || tl_args_check(a, fname, 2, kw, "(Tensor mask, Tensor source)", err))
        return NULL;
    tl_value *mv = tl_arg(a, 0, "mask"), *sv = tl_arg(a, 1, "source");
    if (!mv || !sv)
        return missing(fname, !mv ? "mask" : "source", err);
    if (need_tensor(mv, fname, "mask", 1, &m, err) ||
        need_tensor(sv, fname, "source", 2, &src, err))
        return NULL;
    tl_tensor *c;
    if (inplace) {
        c = tl_tensor_retain(t);
    } else {
        /* torch.masked_scatter: self broadcast with the mask, then cloned */
        int64_t shp[TL_MAX_DIMS];
        int nd = tl_shape_broadcast(m->ndim, m->sizes, t->ndim, t->sizes, shp, err);
        if (nd < 0)
            return NULL;
        tl_tensor *e = tl_view_expand(t, nd, shp, err);
        if (!e)
            return NULL;
        c = tl_ops_clone(e, TL_MEMFMT_CONTIGUOUS, err);
        tl_tensor_release(e);
        if (!c)
            return NULL;
    }
    return finish(self, inplace, c, tl_scatter_masked_scatter_(c, m, src, err));
}

static tl_value *put_impl(const char *fname, bool inplace, tl_value *self, const tl_args *a,
                          tl_error *err)
{
    static const char *const kw[] = {"index", "source", "accumulate", NULL};
    static const char sig[] = "(Tensor index, Tensor source, bool accumulate = False)";
    tl_tensor *ix = NULL, *src = NULL;
    if (!tl_bind_self_tensor(self, fname, err) || tl_args_check(a, fname, 3, kw, sig, err))
        return NULL;
    tl_value *iv = tl_arg(a, 0, "index"), *sv = tl_arg(a, 1, "source"),
             *av = tl_arg(a, 2, "accumulate");
    if (!iv || !sv)
        return missing(fname, !iv ? "index" : "source", err);
    if (need_tensor(iv, fname, "index", 1, &ix, err) ||
        need_tensor(sv, fname, "source", 2, &src, err))
        return NULL;
    bool acc = false;
    if (av && tl_to_bool(av, "accumulate", &acc, err))
        return NULL;
    tl_tensor *c = work_copy(self, inplace, TL_MEMFMT_PRESERVE, err);
    if (!c)
        return NULL;
    return finish(self, inplace, c, tl_scatter_put_(c, ix, src, acc, err));
}

#define M2(NAME, WORKER, ...)                                                  \
    static tl_value *m_##NAME(tl_value *self, const tl_args *a, tl_error *err) \
    {                                                                          \
        return WORKER(#NAME, __VA_ARGS__, self, a, err);                       \
    }
M2(index_fill, index_fill_impl, false)
M2(index_fill_, index_fill_impl, true)
M2(index_copy, index_copy_impl, false)
M2(index_copy_, index_copy_impl, true)
M2(scatter, scatter_impl, false, false)
M2(scatter_, scatter_impl, true, false)
M2(scatter_add, scatter_impl, false, true)
M2(scatter_add_, scatter_impl, true, true)
M2(masked_scatter, masked_scatter_impl, false)
M2(masked_scatter_, masked_scatter_impl, true)
M2(put, put_impl, false)
M2(put_, put_impl, true)

static const tl_binding methods[] = {
    {"index_fill", m_index_fill, false, false},
    {"index_fill_", m_index_fill_, false, true},
    {"index_copy", m_index_copy, false, false},
    {"index_copy_", m_index_copy_, false, true},
    {"scatter", m_scatter, false, false},
    {"scatter_", m_scatter_, false, true},
    {"scatter_add", m_scatter_add, false, false},
    {"scatter_add_", m_scatter_add_, false, true},
    {"masked_scatter", m_masked_scatter, false, false},
    {"masked_scatter_", m_masked_scatter_, false, true},
    {"put", m_put, false, false},
    {"put_", m_put_, false, true},
    {NULL, NULL, false, false},
};

const tl_bind_table tl_bind_scatter_tables[] = {
    {TL_BIND_METHOD, methods},
    {TL_BIND_METHOD, NULL},
};
