/* bind_index.c - bindings of the indexing functions (index.c):
 * index_select, gather, take, masked_select, nonzero / argwhere,
 * index_put_ / index_put.
 *
 * Argument errors follow PyTorch's python_arg_parser shapes; the ops
 * themselves raise PyTorch's texts from index.c. (Subscripts x[i] are
 * index_parse.c's.) All results are new
 * tensors (copies), except index_put_ which returns self.
 */
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "index.h"
#include "ops.h"
#include "util.h"
#include "view.h"

static int missing(const char *fname, const char *argname, tl_error *err)
{
    return tl_error_set(err, TL_ERR_TYPE, "%s() missing 1 required "
                        "positional arguments: \"%s\"", fname, argname);
}

static tl_value *ret(tl_tensor *t)
{
    return t ? tl_value_tensor(t) : NULL;
}

/* (dim, index) with PyTorch's overload messages */
static int dim_index(const tl_args *a, const char *fname, const char *sig,
                     int64_t *dim, tl_tensor **index, tl_error *err)
{
    static const char *const kw[] = {"dim", "index", NULL};
    if (tl_args_check(a, fname, 2, kw, sig, err))
        return -1;
    tl_value *d = tl_arg(a, 0, "dim"), *i = tl_arg(a, 1, "index");
    if (!d || !i)
        return tl_args_type_error(a, fname, sig, err);
    if (d->kind == TL_V_BOOL || !tl_value_as_index(d, dim) ||
        i->kind != TL_V_TENSOR)
        return tl_args_type_error(a, fname, sig, err);
    *index = i->u.tensor;
    return 0;
}

static tl_value *m_index_select(tl_value *self, const tl_args *a,
                                tl_error *err)
{
    int64_t dim;
    tl_tensor *idx = NULL, *t = tl_bind_self_tensor(self, "index_select", err);
    if (!t || dim_index(a, "index_select", "(int dim, Tensor index)\n"
                        "(name dim, Tensor index)", &dim, &idx, err))
        return NULL;
    return ret(tl_index_select(t, dim, idx, err));
}

static tl_value *m_gather(tl_value *self, const tl_args *a, tl_error *err)
{
    int64_t dim;
    tl_tensor *idx, *t = tl_bind_self_tensor(self, "gather", err);
    if (!t)
        return NULL;
    /* sparse_grad= is accepted and ignored */
    static const char *const kw[] = {"dim", "index", "sparse_grad", NULL};
    static const char sig[] = "(int dim, Tensor index, *, bool sparse_grad = "
                              "False)\n(name dim, Tensor index, *, bool "
                              "sparse_grad = False)";
    if (tl_args_check(a, "gather", 2, kw, sig, err))
        return NULL;
    tl_value *d = tl_arg(a, 0, "dim"), *i = tl_arg(a, 1, "index");
    if (!d || !i || d->kind == TL_V_BOOL || !tl_value_as_index(d, &dim) ||
        i->kind != TL_V_TENSOR)
        return tl_args_type_error(a, "gather", sig, err), NULL;
    idx = i->u.tensor;
    return ret(tl_index_gather(t, dim, idx, err));
}

static tl_value *m_take(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"index", NULL};
    tl_tensor *t = tl_bind_self_tensor(self, "take", err);
    if (!t || tl_args_check(a, "take", 1, kw, "(Tensor index)", err))
        return NULL;
    tl_value *i = tl_arg(a, 0, "index");
    if (!i)
        return missing("take", "index", err), NULL;
    if (i->kind != TL_V_TENSOR)
        return tl_error_set(err, TL_ERR_TYPE, "take(): argument 'index' "
                            "(position 1) must be Tensor, not %s",
                            tl_value_type_name(i)), NULL;
    return ret(tl_index_take(t, i->u.tensor, err));
}

static tl_value *m_masked_select(tl_value *self, const tl_args *a,
                                 tl_error *err)
{
    static const char *const kw[] = {"mask", NULL};
    tl_tensor *t = tl_bind_self_tensor(self, "masked_select", err);
    if (!t || tl_args_check(a, "masked_select", 1, kw, "(Tensor mask)", err))
        return NULL;
    tl_value *m = tl_arg(a, 0, "mask");
    if (!m)
        return missing("masked_select", "mask", err), NULL;
    if (m->kind != TL_V_TENSOR)
        return tl_error_set(err, TL_ERR_TYPE, "masked_select(): argument "
                            "'mask' (position 1) must be Tensor, not %s",
                            tl_value_type_name(m)), NULL;
    return ret(tl_index_masked_select(t, m->u.tensor, err));
}

static tl_value *nonzero_impl(tl_value *self, const tl_args *a,
                              const char *fname, bool allow_tuple,
                              tl_error *err)
{
    static const char *const kw[] = {"as_tuple", NULL};
    tl_tensor *t = tl_bind_self_tensor(self, fname, err);
    if (!t || tl_args_check(a, fname, 0, allow_tuple ? kw : NULL,
                            allow_tuple ? "(*, bool as_tuple = False)" : "()",
                            err))
        return NULL;
    bool as_tuple = false;
    tl_value *v = tl_arg(a, (size_t)-1, "as_tuple");
    if (v && tl_to_bool(v, "as_tuple", &as_tuple, err))
        return NULL;
    if (!as_tuple)
        return ret(tl_index_nonzero(t, err));
    /* nonzero(as_tuple=True): nonzero().unbind(1), 0-d read as (1,) */
    tl_tensor *src = t->ndim == 0 ? tl_view_unsqueeze(t, 0, err)
                                  : tl_tensor_retain(t);
    if (!src)
        return NULL;
    tl_tensor *nz = tl_index_nonzero(src, err);
    tl_tensor_release(src);
    if (!nz)
        return NULL;
    tl_tensor_list l;
    int rc = tl_view_unbind(nz, 1, &l, err);
    tl_tensor_release(nz);
    if (rc)
        return NULL;
    tl_value *tup = tl_tuple_new((size_t)l.n);
    for (int64_t i = 0; i < l.n; i++) {
        tl_tensor *r = l.items[i];
        /* the pieces are outputs of an op, not user-visible views */
        r->requires_grad = false;
        r->is_leaf = true;
        r->is_view_of_grad_leaf = false;
        tl_seq_set(tup, (size_t)i, tl_value_tensor(r));
    }
    free(l.items);
    return tup;
}

static tl_value *m_nonzero(tl_value *self, const tl_args *a, tl_error *err)
{
    return nonzero_impl(self, a, "nonzero", true, err);
}

static tl_value *m_argwhere(tl_value *self, const tl_args *a, tl_error *err)
{
    return nonzero_impl(self, a, "argwhere", false, err);
}

/* index_put_'s indices as C: tensors, NULL for None (borrowed into ts,
 * which holds TL_MAX_DIMS + 1). A non-tensor element is a TypeError, but
 * "too many indices" (index.c's check) wins when both apply. */
static int put_indices(const tl_value *iv, const tl_tensor *x, tl_tensor **ts,
                       tl_error *err)
{
    size_t m = iv->u.seq.n;
    bool too_many = m > (size_t)x->ndim && m > 0;
    for (size_t i = 0; i < m && i <= TL_MAX_DIMS; i++) {
        const tl_value *it = iv->u.seq.items[i];
        ts[i] = NULL;
        if (it->kind == TL_V_NONE)
            continue;
        if (it->kind == TL_V_TENSOR) {
            ts[i] = it->u.tensor;
            continue;
        }
        if (!too_many)
            return tl_error_set(err, TL_ERR_TYPE, "expected Tensor as element "
                                "%zu in argument 0, but got %s", i,
                                tl_value_type_name(it));
    }
    return 0;
}

static tl_value *index_put_impl(tl_value *self, const tl_args *a,
                                const char *fname, bool inplace,
                                tl_error *err)
{
    static const char *const kw[] = {"indices", "values", "accumulate", NULL};
    static const char sig[] = "(tuple of Tensors indices, Tensor values, "
                              "bool accumulate = False)";
    tl_tensor *t = tl_bind_self_tensor(self, fname, err);
    if (!t || tl_args_check(a, fname, 3, kw, sig, err))
        return NULL;
    tl_value *iv = tl_arg(a, 0, "indices"), *vv = tl_arg(a, 1, "values"),
             *av = tl_arg(a, 2, "accumulate");
    if (!iv)
        return missing(fname, "indices", err), NULL;
    if (!vv)
        return missing(fname, "values", err), NULL;
    if (!tl_value_is_seq(iv))
        return tl_error_set(err, TL_ERR_TYPE, "%s(): argument 'indices' "
                            "(position 1) must be tuple of Tensors, not %s",
                            fname, tl_value_type_name(iv)), NULL;
    if (vv->kind != TL_V_TENSOR)
        return tl_error_set(err, TL_ERR_TYPE, "%s(): argument 'values' "
                            "(position 2) must be Tensor, not %s", fname,
                            tl_value_type_name(vv)), NULL;
    bool acc = false;
    if (av && tl_to_bool(av, "accumulate", &acc, err))
        return NULL;
    tl_tensor *ts[TL_MAX_DIMS + 1];
    size_t m = iv->u.seq.n;
    if (put_indices(iv, t, ts, err) < 0)
        return NULL;
    if (inplace) {
        if (tl_index_put_(t, ts, m, vv->u.tensor, acc, err))
            return NULL;
        return tl_value_retain(self);
    }
    tl_tensor *c = tl_ops_clone(t, TL_MEMFMT_PRESERVE, err);
    if (!c)
        return NULL;
    tl_value *cv = tl_value_tensor(c);
    if (tl_index_put_(c, ts, m, vv->u.tensor, acc, err)) {
        tl_value_release(cv);
        return NULL;
    }
    cv->u.tensor->version->value = 0; /* the out-of-place result is fresh */
    return cv;
}

static tl_value *m_index_put_(tl_value *self, const tl_args *a, tl_error *err)
{
    return index_put_impl(self, a, "index_put_", true, err);
}

static tl_value *m_index_put(tl_value *self, const tl_args *a, tl_error *err)
{
    return index_put_impl(self, a, "index_put", false, err);
}

static const tl_binding methods[] = {
    {"index_select", m_index_select, false, false},
    {"gather", m_gather, false, false},
    {"take", m_take, false, false},
    {"masked_select", m_masked_select, false, false},
    {"nonzero", m_nonzero, false, false},
    {"argwhere", m_argwhere, false, false},
    {"index_put_", m_index_put_, false, true},
    {"index_put", m_index_put, false, false},
    {NULL, NULL, false, false},
};

const tl_bind_table tl_bind_index_tables[] = {
    {TL_BIND_METHOD, methods},
    {TL_BIND_METHOD, NULL},
};
