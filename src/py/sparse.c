/* sparse.c - sparse COO tensors (torch.sparse_coo_tensor) and layouts.
 *
 * A sparse tensor is a host object (value.h TL_V_OBJECT, class "Tensor")
 * over two strided tensors: indices (int64, [sparse_dim, nnz]) and values
 * ([nnz, dense dims...]), its size and a coalesced flag. What PyTorch does
 * and this file keeps:
 *   - sparse_coo_tensor(indices, values, size=None, *, dtype, device,
 *     requires_grad) keeps the very tensors it is given when indices are
 *     int64 and values already have the dtype (their storages are shared:
 *     _indices() and _values() are views of them); size is inferred as
 *     max index + 1 per sparse dim; nnz <= 1 is coalesced, more is not;
 *   - _nnz() counts stored entries, duplicates included; indices() and
 *     values() refuse an uncoalesced tensor with PyTorch's message;
 *   - coalesce() sorts the entries by their row-major linear index and sums
 *     duplicates into new tensors (a coalesced tensor returns itself);
 *   - to_dense() is a new zeroed strided tensor that the values are added
 *     into (duplicates sum); a dense x.to_sparse() stores the nonzero
 *     entries in row-major order (coalesced);
 *   - repr is PyTorch 2.x's: tensor(indices=tensor(...),\n values=...,
 *     size=(..), nnz=N[, dtype=...], layout=torch.sparse_coo);
 *   - any other Tensor method or attribute is PyTorch's NotImplementedError
 *     for the SparseCPU backend (strides: "sparse tensors do not have
 *     strides"), never a result computed on the wrong layout.
 * Loops over entries poll the run's deadline through the element access
 * of tensor.h (bounded by nnz and numel, which the runtime limits).
 */
#include "sparse.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "ops.h"
#include "repr.h"
#include "util.h"

/* ---- layouts: static singletons as objects ---- */

static const char layout_strided[] = "torch.strided";
static const char layout_sparse[] = "torch.sparse_coo";

static tl_value *layout_attr(tl_value *obj, const char *name, tl_error *err)
{
    (void)obj;
    tl_error_set(err, TL_ERR_ATTRIBUTE, "'torch.layout' object has no attribute '%s'", name);
    return NULL;
}

static void layout_repr(const tl_value *obj, tl_buf *b)
{
    tl_buf_puts(b, (const char *)obj->u.obj.data);
}

static const tl_objclass layout_class = {
    .name = "layout", .attr = layout_attr, .repr = layout_repr, .drop = NULL};

tl_value *tl_sparse_layout(bool sparse)
{
    return tl_value_object(&layout_class, (void *)(sparse ? layout_sparse : layout_strided));
}

/* ---- the sparse tensor ---- */

typedef struct sparse {
    tl_tensor *indices; /* int64 [sparse_dim, nnz] */
    tl_tensor *values;  /* [nnz, dense sizes...] */
    int ndim;
    int64_t sizes[TL_MAX_DIMS];
    bool coalesced;
} sparse;

static void sparse_drop(void *data)
{
    sparse *s = data;
    tl_tensor_release(s->indices);
    tl_tensor_release(s->values);
    free(s);
}

static tl_value *sparse_attr(tl_value *obj, const char *name, tl_error *err);
static void sparse_repr(const tl_value *obj, tl_buf *b);

static const tl_objclass sparse_class = {
    .name = "Tensor", .attr = sparse_attr, .repr = sparse_repr, .drop = sparse_drop};

bool tl_sparse_is(const tl_value *v)
{
    return tl_value_object_data(v, &sparse_class) != NULL;
}

static int sparse_dim(const sparse *s) { return s->indices->sizes[0] ? (int)s->indices->sizes[0] : 0; }
static int64_t nnz_of(const sparse *s) { return s->indices->sizes[1]; }

/* steals indices and values */
static tl_value *sparse_new(tl_tensor *indices, tl_tensor *values, int ndim,
                            const int64_t *sizes, bool coalesced)
{
    sparse *s = tl_xcalloc(1, sizeof *s);
    s->indices = indices;
    s->values = values;
    s->ndim = ndim;
    memcpy(s->sizes, sizes, (size_t)ndim * sizeof *sizes);
    s->coalesced = coalesced;
    return tl_value_object(&sparse_class, s);
}

static void sizes_list(const int64_t *v, int n, tl_buf *b)
{
    tl_buf_putc(b, '[');
    for (int i = 0; i < n; i++)
        tl_buf_printf(b, "%s%" PRId64, i ? ", " : "", v[i]);
    tl_buf_putc(b, ']');
}

/* the dense repr of t without "tensor(" and the closing ")" and without a
 * dtype= suffix, continuation lines shifted right by `shift` */
static void inner_repr(const tl_tensor *t, int shift, tl_buf *b)
{
    if (tl_tensor_numel(t) == 0) {
        tl_buf_puts(b, "[], size=");
        tl_buf_put_tuple(b, t->sizes, t->ndim);
        return;
    }
    tl_buf r = {0};
    tl_repr_tensor(t, &r);
    const char *s = tl_buf_str(&r);
    size_t n = r.len;
    if (n >= 8 && strncmp(s, "tensor(", 7) == 0) {
        s += 7;
        n -= 8; /* the final ')' */
    }
    /* drop the device= and dtype= suffixes (the sparse repr prints them
     * itself): from the first one after the last ']' on */
    size_t close = n;
    while (close > 0 && s[close - 1] != ']')
        close--;
    for (size_t i = close; i < n; i++)
        if (strncmp(s + i, "dtype=", 6) == 0 || strncmp(s + i, "device=", 7) == 0) {
            size_t j = i;
            while (j > close && (s[j - 1] == ' ' || s[j - 1] == '\n'))
                j--;
            if (j > close && s[j - 1] == ',')
                j--;
            n = j;
            break;
        }
    for (size_t i = 0; i < n; i++) {
        tl_buf_putc(b, s[i]);
        if (s[i] == '\n' && i + 1 < n && s[i + 1] != '\n')
            for (int k = 0; k < shift; k++)
                tl_buf_putc(b, ' ');
    }
    tl_buf_free(&r);
}

static void sparse_repr(const tl_value *obj, tl_buf *b)
{
    const sparse *s = obj->u.obj.data;
    tl_buf_puts(b, "tensor(indices=tensor(");
    inner_repr(s->indices, 15, b);
    tl_buf_puts(b, "),\n       values=tensor(");
    inner_repr(s->values, 14, b);
    tl_buf_puts(b, "),\n       ");
    tl_device dev = tl_tensor_device(s->values);
    if (dev.kind != TL_DEV_CPU) {
        char name[32];
        tl_device_str(dev, name, sizeof name);
        tl_buf_printf(b, "device='%s', ", name);
    }
    tl_buf_puts(b, "size=");
    tl_buf_put_tuple(b, s->sizes, s->ndim);
    tl_buf_printf(b, ", nnz=%" PRId64, nnz_of(s));
    tl_dtype dt = s->values->dtype;
    if (dt != tl_repr_default_dtype() && dt != TL_INT64 && dt != TL_BOOL)
        tl_buf_printf(b, ", dtype=torch.%s", tl_dtype_name(dt));
    tl_buf_puts(b, ", layout=torch.sparse_coo)");
}

/* ---- entries ---- */

static int get_index(const sparse *s, int d, int64_t k, int64_t *out, tl_error *err)
{
    return tl_tensor_get_i64(s->indices, (int64_t)d * nnz_of(s) + k, out, err);
}

/* the row-major linear index of entry k over the sparse dims */
static int linear_of(const sparse *s, int64_t k, int64_t *out, tl_error *err)
{
    int64_t lin = 0;
    for (int d = 0; d < sparse_dim(s); d++) {
        int64_t v;
        if (get_index(s, d, k, &v, err) < 0)
            return -1;
        lin = lin * s->sizes[d] + v;
    }
    *out = lin;
    return 0;
}

static int64_t dense_block(const sparse *s)
{
    int64_t n = 1;
    for (int d = 1; d < s->values->ndim; d++)
        n *= s->values->sizes[d];
    return n;
}

/* dst[di] += src[si] in dst's dtype */
static int add_elem(tl_tensor *dst, int64_t di, const tl_tensor *src, int64_t si, tl_error *err)
{
    if (tl_dtype_is_floating(dst->dtype)) {
        double a, v;
        if (tl_tensor_get_f64(dst, di, &a, err) < 0 || tl_tensor_get_f64(src, si, &v, err) < 0)
            return -1;
        return tl_tensor_set_f64(dst, di, a + v, err);
    }
    int64_t a, v;
    if (tl_tensor_get_i64(dst, di, &a, err) < 0 || tl_tensor_get_i64(src, si, &v, err) < 0)
        return -1;
    if (dst->dtype == TL_BOOL)
        return tl_tensor_set_i64(dst, di, (a || v) ? 1 : 0, err);
    return tl_tensor_set_i64(dst, di, (int64_t)((uint64_t)a + (uint64_t)v), err);
}

static tl_tensor *to_dense(const sparse *s, tl_error *err)
{
    tl_tensor *d = tl_tensor_new(tl_tensor_backend(s->values), s->values->dtype, s->ndim,
                                 s->sizes, err);
    if (!d)
        return NULL;
    int64_t blk = dense_block(s), n = nnz_of(s);
    for (int64_t k = 0; k < n; k++) {
        int64_t lin;
        if (linear_of(s, k, &lin, err) < 0)
            goto fail;
        for (int64_t j = 0; j < blk; j++)
            if (add_elem(d, lin * blk + j, s->values, k * blk + j, err) < 0)
                goto fail;
    }
    return d;
fail:
    tl_tensor_release(d);
    return NULL;
}

/* coalesce's order: the index tuples, lexicographically (the row-major
 * linear index, without forming it: a sparse size may exceed int64) */
typedef struct entry {
    const int64_t *idx; /* host copy of the indices, [sd][n] */
    int64_t k, n;
    int sd;
} entry;

static int cmp_tuple(const entry *x, const entry *y)
{
    for (int d = 0; d < x->sd; d++) {
        int64_t a = x->idx[(int64_t)d * x->n + x->k], b = y->idx[(int64_t)d * y->n + y->k];
        if (a != b)
            return a < b ? -1 : 1;
    }
    return 0;
}

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    int c = cmp_tuple(x, y);
    if (c)
        return c;
    return x->k < y->k ? -1 : x->k > y->k;
}

static tl_value *coalesce(tl_value *self, const sparse *s, tl_error *err)
{
    if (s->coalesced)
        return tl_value_retain(self);
    int64_t n = nnz_of(s), blk = dense_block(s);
    int sd = sparse_dim(s);
    entry *e = tl_xmalloc((size_t)(n ? n : 1) * sizeof *e);
    int64_t *idx = tl_xmalloc((size_t)(n * sd != 0 ? n * sd : 1) * sizeof *idx);
    tl_tensor *ind = NULL, *val = NULL;
    for (int d = 0; d < sd; d++)
        for (int64_t k = 0; k < n; k++)
            if (get_index(s, d, k, &idx[(int64_t)d * n + k], err) < 0)
                goto fail;
    for (int64_t k = 0; k < n; k++)
        e[k] = (entry){idx, k, n, sd};
    qsort(e, (size_t)n, sizeof *e, cmp_entry);
    int64_t m = 0;
    for (int64_t k = 0; k < n; k++)
        if (k == 0 || cmp_tuple(&e[k], &e[k - 1]) != 0)
            m++;
    const tl_backend *be = tl_tensor_backend(s->values);
    int64_t isz[2] = {sd, m};
    int64_t vsz[TL_MAX_DIMS];
    memcpy(vsz, s->values->sizes, (size_t)s->values->ndim * sizeof *vsz);
    vsz[0] = m;
    /* PyTorch fills an nnz-wide indices buffer and narrows it to the m
     * entries it keeps: the result's stride is (nnz, 1) */
    int64_t full[2] = {sd, n};
    tl_tensor *buf = tl_tensor_new(tl_tensor_backend(s->indices), TL_INT64, 2, full, err);
    int64_t istr[2] = {n, 1};
    ind = buf ? tl_tensor_view(buf, 2, isz, istr, 0) : NULL;
    tl_tensor_release(buf);
    val = ind ? tl_tensor_new(be, s->values->dtype, s->values->ndim, vsz, err) : NULL;
    if (!val)
        goto fail;
    int64_t out = -1;
    for (int64_t k = 0; k < n; k++) {
        if (k == 0 || cmp_tuple(&e[k], &e[k - 1]) != 0) {
            out++;
            for (int d = 0; d < sd; d++)
                if (tl_tensor_set_i64(ind, (int64_t)d * m + out, idx[(int64_t)d * n + e[k].k],
                                      err) < 0) /* logical index */
                    goto fail;
        }
        for (int64_t j = 0; j < blk; j++)
            if (add_elem(val, out * blk + j, s->values, e[k].k * blk + j, err) < 0)
                goto fail;
    }
    free(e);
    free(idx);
    return sparse_new(ind, val, s->ndim, s->sizes, true);
fail:
    free(e);
    free(idx);
    tl_tensor_release(ind);
    tl_tensor_release(val);
    return NULL;
}

/* ---- methods of sparse tensors ---- */

static int no_args(const tl_args *a, const char *name, tl_error *err)
{
    if (a->npos || a->nkw)
        return tl_error_set(err, TL_ERR_TYPE, "%s() takes no arguments (%zu given)", name,
                            a->npos + a->nkw);
    return 0;
}

#define SP(self) ((sparse *)(self)->u.obj.data)

static tl_value *m_nnz(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_args(a, "_nnz", err) < 0)
        return NULL;
    return tl_int(nnz_of(SP(self)));
}

static tl_value *m_indices_(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_args(a, "_indices", err) < 0)
        return NULL;
    return tl_value_tensor(tl_tensor_alias(SP(self)->indices));
}

static tl_value *m_values_(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_args(a, "_values", err) < 0)
        return NULL;
    return tl_value_tensor(tl_tensor_alias(SP(self)->values));
}

static tl_value *m_indices(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_args(a, "indices", err) < 0)
        return NULL;
    if (!SP(self)->coalesced) {
        tl_error_set(err, TL_ERR_RUNTIME, "Cannot get indices on an uncoalesced tensor, please "
                                          "call .coalesce() first");
        return NULL;
    }
    return tl_value_tensor(tl_tensor_alias(SP(self)->indices));
}

static tl_value *m_values(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_args(a, "values", err) < 0)
        return NULL;
    if (!SP(self)->coalesced) {
        tl_error_set(err, TL_ERR_RUNTIME, "Cannot get values on an uncoalesced tensor, please "
                                          "call .coalesce() first");
        return NULL;
    }
    return tl_value_tensor(tl_tensor_alias(SP(self)->values));
}

static tl_value *m_coalesce(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_args(a, "coalesce", err) < 0)
        return NULL;
    return coalesce(self, SP(self), err);
}

static tl_value *m_is_coalesced(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_args(a, "is_coalesced", err) < 0)
        return NULL;
    return tl_bool(SP(self)->coalesced);
}

static tl_value *m_to_dense(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_args(a, "to_dense", err) < 0)
        return NULL;
    tl_tensor *d = to_dense(SP(self), err);
    return d ? tl_value_tensor(d) : NULL;
}

static tl_value *m_size(tl_value *self, const tl_args *a, tl_error *err)
{
    const sparse *s = SP(self);
    if (a->nkw || a->npos > 1) {
        tl_error_set(err, TL_ERR_TYPE, "size() takes at most 1 argument");
        return NULL;
    }
    if (a->npos == 0)
        return tl_size_new(s->ndim, s->sizes);
    int64_t d;
    if (!tl_value_as_index(a->pos[0], &d)) {
        tl_error_set(err, TL_ERR_TYPE, "size(): argument 'dim' must be int");
        return NULL;
    }
    if (d < -s->ndim || d >= s->ndim) {
        tl_error_set(err, TL_ERR_INDEX, "Dimension out of range (expected to be in range of "
                     "[%d, %d], but got %" PRId64 ")", -s->ndim, s->ndim - 1, d);
        return NULL;
    }
    return tl_int(s->sizes[d < 0 ? d + s->ndim : d]);
}

static tl_value *m_int(tl_value *self, const tl_args *a, tl_error *err, const char *name,
                       int64_t v)
{
    (void)self;
    if (no_args(a, name, err) < 0)
        return NULL;
    return tl_int(v);
}

static tl_value *m_dim(tl_value *self, const tl_args *a, tl_error *err)
{
    return m_int(self, a, err, "dim", SP(self)->ndim);
}

static tl_value *m_sparse_dim(tl_value *self, const tl_args *a, tl_error *err)
{
    return m_int(self, a, err, "sparse_dim", sparse_dim(SP(self)));
}

static tl_value *m_dense_dim(tl_value *self, const tl_args *a, tl_error *err)
{
    return m_int(self, a, err, "dense_dim", SP(self)->values->ndim - 1);
}

static tl_value *m_numel(tl_value *self, const tl_args *a, tl_error *err)
{
    int64_t n = 1;
    for (int d = 0; d < SP(self)->ndim; d++)
        n *= SP(self)->sizes[d];
    return m_int(self, a, err, "numel", n);
}

static tl_value *m_element_size(tl_value *self, const tl_args *a, tl_error *err)
{
    return m_int(self, a, err, "element_size", (int64_t)tl_dtype_size(SP(self)->values->dtype));
}

static tl_value *m_stride(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    (void)a;
    tl_error_set(err, TL_ERR_RUNTIME, "sparse tensors do not have strides");
    return NULL;
}

static const struct {
    const char *name;
    tl_cfunc fn;
} sparse_methods[] = {
    {"_nnz", m_nnz},         {"indices", m_indices},       {"_indices", m_indices_},
    {"values", m_values},    {"_values", m_values_},       {"coalesce", m_coalesce},
    {"is_coalesced", m_is_coalesced},                      {"to_dense", m_to_dense},
    {"size", m_size},        {"dim", m_dim},               {"sparse_dim", m_sparse_dim},
    {"dense_dim", m_dense_dim},                            {"numel", m_numel},
    {"element_size", m_element_size},                      {"stride", m_stride},
};

static tl_value *sparse_attr(tl_value *obj, const char *name, tl_error *err)
{
    const sparse *s = obj->u.obj.data;
    if (strcmp(name, "shape") == 0)
        return tl_size_new(s->ndim, s->sizes);
    if (strcmp(name, "dtype") == 0)
        return tl_value_dtype(s->values->dtype);
    if (strcmp(name, "device") == 0)
        return tl_value_device(tl_tensor_device(s->values));
    if (strcmp(name, "layout") == 0)
        return tl_sparse_layout(true);
    if (strcmp(name, "is_sparse") == 0)
        return tl_bool(true);
    if (strcmp(name, "ndim") == 0)
        return tl_int(s->ndim);
    if (strcmp(name, "requires_grad") == 0)
        return tl_bool(false);
    if (strcmp(name, "is_leaf") == 0)
        return tl_bool(true);
    for (size_t i = 0; i < TL_ARRAY_LEN(sparse_methods); i++)
        if (strcmp(name, sparse_methods[i].name) == 0)
            return tl_value_func(sparse_methods[i].name, sparse_methods[i].fn, obj);
    if (tl_bind_find(TL_BIND_METHOD, name) || tl_bind_find(TL_BIND_ATTR, name)) {
        tl_error_set(err, TL_ERR_NOTIMPL,
                     "Could not run 'aten::%s' with arguments from the 'SparseCPU' backend. "
                     "(tlab's sparse COO tensors support only _nnz, indices, values, "
                     "coalesce, is_coalesced, to_dense and the shape queries)",
                     name);
        return NULL;
    }
    tl_error_set(err, TL_ERR_ATTRIBUTE, "'Tensor' object has no attribute '%s'", name);
    return NULL;
}

/* ---- bindings ---- */

/* a tensor argument, or torch.tensor(v) of a list (new reference) */
static tl_tensor *tensor_arg(tl_value *v, tl_error *err)
{
    if (v->kind == TL_V_TENSOR)
        return tl_tensor_retain(v->u.tensor);
    if (tl_sparse_is(v)) {
        tl_error_set(err, TL_ERR_NOTIMPL, "Could not run 'aten::sparse_coo_tensor' with a "
                                          "sparse argument");
        return NULL;
    }
    const tl_binding *b = tl_bind_find(TL_BIND_TORCH, "tensor");
    tl_args ta = {1, &v, 0, NULL, NULL};
    tl_value *t = b ? b->fn(NULL, &ta, err) : NULL;
    if (!t)
        return NULL;
    tl_tensor *r = t->kind == TL_V_TENSOR ? tl_tensor_retain(t->u.tensor) : NULL;
    tl_value_release(t);
    if (!r)
        tl_error_set(err, TL_ERR_TYPE, "sparse_coo_tensor(): expected a tensor or a list");
    return r;
}

static tl_value *t_sparse_coo_tensor(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    static const char *const kw[] = {"indices", "values", "size", "*", "dtype", "device",
                                     "requires_grad", "check_invariants", "is_coalesced",
                                     NULL};
    static const char *const sig =
        "(Tensor indices, Tensor values, *, torch.dtype dtype = None, torch.device device = "
        "None, bool requires_grad = False, bool check_invariants = None)\n"
        " * (Tensor indices, Tensor values, tuple of ints size, *, torch.dtype dtype = None, "
        "torch.device device = None, bool requires_grad = False, bool check_invariants = None)";
    if (tl_args_check(a, "sparse_coo_tensor", 3, kw, sig, err) < 0)
        return NULL;
    tl_value *iv = tl_arg(a, 0, "indices"), *vv = tl_arg(a, 1, "values");
    tl_value *sv = tl_arg(a, 2, "size"), *dv = tl_arg(a, SIZE_MAX, "dtype");
    if (!iv || !vv) {
        tl_args_type_error(a, "sparse_coo_tensor", sig, err);
        return NULL;
    }
    tl_value *rg = tl_arg(a, SIZE_MAX, "requires_grad");
    bool req = false;
    if (rg && tl_to_bool(rg, "requires_grad", &req, err) < 0)
        return NULL;
    if (req) {
        tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab does not support autograd on sparse "
                                              "tensors");
        return NULL;
    }
    tl_tensor *ind = tensor_arg(iv, err);
    if (!ind)
        return NULL;
    tl_tensor *val = tensor_arg(vv, err);
    if (!val) {
        tl_tensor_release(ind);
        return NULL;
    }
    tl_value *r = NULL;
    if (dv && dv->kind != TL_V_NONE) {
        tl_dtype dt;
        if (tl_to_dtype(dv, "dtype", &dt, err) < 0)
            goto out;
        tl_tensor *c = tl_ops_to(val, tl_tensor_backend(val), dt, false, TL_MEMFMT_PRESERVE, err);
        if (!c)
            goto out;
        tl_tensor_release(val);
        val = c;
    }
    if (ind->dtype != TL_INT64) {
        tl_tensor *c = tl_ops_to(ind, tl_tensor_backend(ind), TL_INT64, false,
                                 TL_MEMFMT_PRESERVE, err);
        if (!c)
            goto out;
        tl_tensor_release(ind);
        ind = c;
    }
    if (ind->ndim != 2) {
        tl_buf b = {0};
        sizes_list(ind->sizes, ind->ndim, &b);
        tl_error_set(err, TL_ERR_RUNTIME, "indices must be sparse_dim x nnz, but got: %s",
                     tl_buf_str(&b));
        tl_buf_free(&b);
        goto out;
    }
    if (val->ndim == 0 || ind->sizes[1] != val->sizes[0]) {
        tl_error_set(err, TL_ERR_RUNTIME, "indices and values must have same nnz, but got nnz "
                     "from indices: %" PRId64 ", nnz from values: %" PRId64, ind->sizes[1],
                     val->ndim ? val->sizes[0] : 1);
        goto out;
    }
    int sd = (int)ind->sizes[0], dd = val->ndim - 1;
    if (sd + dd > TL_MAX_DIMS) {
        tl_error_set(err, TL_ERR_LIMIT, "more than %d dimensions", TL_MAX_DIMS);
        goto out;
    }
    int64_t sizes[TL_MAX_DIMS];
    int ndim = sd + dd;
    int64_t nnz = ind->sizes[1];
    /* the indices' bounds (one pass; negative ones are refused) */
    int64_t maxi[TL_MAX_DIMS];
    for (int d = 0; d < sd; d++) {
        int64_t mini = 0;
        maxi[d] = -1;
        for (int64_t k = 0; k < nnz; k++) {
            int64_t v;
            if (tl_tensor_get_i64(ind, (int64_t)d * nnz + k, &v, err) < 0)
                goto out;
            if (v > maxi[d])
                maxi[d] = v;
            if (v < mini)
                mini = v;
        }
        if (mini < 0) {
            tl_error_set(err, TL_ERR_RUNTIME, "found negative index %" PRId64 " for dim %d",
                         mini, d);
            goto out;
        }
    }
    if (sv && sv->kind != TL_V_NONE) {
        int64_t given[TL_MAX_DIMS];
        int n = tl_to_int_list(sv, "size", false, given, TL_MAX_DIMS, err);
        if (n < 0)
            goto out;
        if (n != ndim) {
            tl_error_set(err, TL_ERR_RUNTIME, "number of dimensions must be sparse_dim (%d) + "
                         "dense_dim (%d), but got %d", sd, dd, n);
            goto out;
        }
        for (int d = 0; d < n; d++)
            if (given[d] < 0) {
                tl_error_set(err, TL_ERR_RUNTIME, "Trying to create tensor with negative "
                             "dimension %" PRId64, given[d]);
                goto out;
            }
        for (int d = 0; d < sd; d++)
            if (maxi[d] >= given[d]) {
                tl_error_set(err, TL_ERR_RUNTIME, "size is inconsistent with indices: for dim "
                             "%d, size is %" PRId64 " but found index %" PRId64, d, given[d],
                             maxi[d]);
                goto out;
            }
        for (int d = sd; d < ndim; d++)
            if (given[d] != val->sizes[d - sd + 1]) {
                tl_error_set(err, TL_ERR_RUNTIME, "values has incorrect size, expected %s",
                             "the dense sizes of size");
                goto out;
            }
        memcpy(sizes, given, (size_t)n * sizeof *sizes);
    } else {
        for (int d = 0; d < sd; d++) {
            if (maxi[d] == INT64_MAX) {
                tl_error_set(err, TL_ERR_OVERFLOW, "sparse_coo_tensor(): size of dim %d "
                                                    "overflows int64", d);
                goto out;
            }
            sizes[d] = maxi[d] + 1;
        }
        for (int d = sd; d < ndim; d++)
            sizes[d] = val->sizes[d - sd + 1];
    }
    r = sparse_new(ind, val, ndim, sizes, nnz <= 1);
    ind = val = NULL;
out:
    tl_tensor_release(ind);
    tl_tensor_release(val);
    return r;
}

static tl_value *d_is_sparse(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    (void)a;
    (void)err;
    return tl_bool(false);
}

static tl_value *d_layout(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    (void)a;
    (void)err;
    return tl_sparse_layout(false);
}

/* x.to_sparse([sparse_dim]): the nonzero entries (over the first
 * sparse_dim dims) in row-major order, coalesced */
static tl_value *d_to_sparse(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"sparse_dim", NULL};
    if (tl_args_check(a, "to_sparse", 1, kw, "(int sparse_dim)\n * (*, torch.layout layout "
                                                "= None)", err) < 0)
        return NULL;
    tl_tensor *t = tl_bind_self_tensor(self, "to_sparse", err);
    if (!t)
        return NULL;
    int64_t sd = t->ndim;
    tl_value *sdv = tl_arg(a, 0, "sparse_dim");
    if (sdv && tl_to_int(sdv, "sparse_dim", &sd, err) < 0)
        return NULL;
    if (sd == 0 && t->ndim > 0) {
        tl_error_set(err, TL_ERR_RUNTIME, "sparse_dim must be >0 if dimensionality > 0");
        return NULL;
    }
    if (sd < 0 || sd > t->ndim) {
        tl_error_set(err, TL_ERR_RUNTIME, "sparse_dim must be in [0, %d], but got %" PRId64,
                     t->ndim, sd);
        return NULL;
    }
    int64_t rows = 1, blk = 1;
    for (int d = 0; d < t->ndim; d++)
        *(d < sd ? &rows : &blk) *= t->sizes[d];
    tl_tensor *h = tl_tensor_read_host(t, err);
    if (!h)
        return NULL;
    /* which rows hold a nonzero element */
    int64_t m = 0;
    unsigned char *keep = tl_xcalloc((size_t)(rows ? rows : 1), 1);
    size_t isz = tl_dtype_size(t->dtype);
    unsigned char zero[16] = {0}, buf[16];
    for (int64_t r = 0; r < rows; r++) {
        for (int64_t j = 0; j < blk && !keep[r]; j++) {
            if (tl_tensor_get_raw(h, r * blk + j, buf, err) < 0)
                goto fail;
            if (tl_dtype_is_floating(t->dtype)) {
                double v;
                if (tl_tensor_get_f64(h, r * blk + j, &v, err) < 0)
                    goto fail;
                keep[r] = v != 0;
            } else {
                keep[r] = memcmp(buf, zero, isz) != 0;
            }
        }
        m += keep[r];
    }
    int64_t isizes[2] = {sd, m};
    int64_t vsizes[TL_MAX_DIMS];
    vsizes[0] = m;
    for (int d = (int)sd; d < t->ndim; d++)
        vsizes[d - sd + 1] = t->sizes[d];
    tl_tensor *ind = tl_tensor_new(tl_tensor_backend(t), TL_INT64, 2, isizes, err);
    tl_tensor *val = ind ? tl_tensor_new(tl_tensor_backend(t), t->dtype,
                                         t->ndim - (int)sd + 1, vsizes, err) : NULL;
    if (!val) {
        tl_tensor_release(ind);
        goto fail;
    }
    int64_t out = 0;
    for (int64_t r = 0; r < rows; r++) {
        if (!keep[r])
            continue;
        int64_t rem = r;
        for (int d = (int)sd - 1; d >= 0; d--) {
            if (tl_tensor_set_i64(ind, (int64_t)d * m + out, rem % t->sizes[d], err) < 0)
                goto fail2;
            rem /= t->sizes[d];
        }
        for (int64_t j = 0; j < blk; j++) {
            if (tl_tensor_get_raw(h, r * blk + j, buf, err) < 0 ||
                tl_tensor_set_raw(val, out * blk + j, buf, err) < 0)
                goto fail2;
        }
        out++;
    }
    free(keep);
    tl_tensor_release(h);
    return sparse_new(ind, val, t->ndim, t->sizes, true);
fail2:
    tl_tensor_release(ind);
    tl_tensor_release(val);
fail:
    free(keep);
    tl_tensor_release(h);
    return NULL;
}

static const tl_binding torch_fns[] = {
    {"sparse_coo_tensor", t_sparse_coo_tensor, false, false},
    {NULL, NULL, false, false},
};

static const tl_binding attrs[] = {
    {"is_sparse", d_is_sparse, false, false},
    {"layout", d_layout, false, false},
    {NULL, NULL, false, false},
};

static const tl_binding methods[] = {
    {"to_sparse", d_to_sparse, false, false},
    {NULL, NULL, false, false},
};

const tl_bind_table tl_bind_sparse_tables[] = {
    {TL_BIND_TORCH, torch_fns},
    {TL_BIND_ATTR, attrs},
    {TL_BIND_METHOD, methods},
    {TL_BIND_TORCH, NULL},
};
