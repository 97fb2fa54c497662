/* scatter.c - the scatter family (issue #27): index_fill_, index_copy_,
 * scatter_ / scatter_add_ (reduce add, multiply), masked_scatter_, put_.
 *
 * Design: each op reads self, its index and its source once to the host
 * (tl_tensor_read_host_bytes: row-major bytes), applies the writes there in
 * torch's CPU order - the index in row-major order, so with repeated
 * indices and no accumulation the last write wins, and accumulation adds
 * (multiplies) in index order, one rounding per step in the tensor's
 * dtype - and writes the result back with one copy_ (one version bump, as
 * torch's kernels bump once). The same host computation runs for every
 * backend, so the CPU and the CUDA backend give bit-identical results. A
 * destination with internal overlap (an expanded view, which torch writes
 * element by element) is written back element by element instead.
 * Checks run in torch 1.13's order with its texts and exception types.
 */
#include "scatter.h"

#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "ops.h"
#include "shape.h"
#include "util.h"
#include "view.h"

/* the host copies are not charged to the ledger: each is bounded (an op
 * holds at most three) */
#define SCATTER_MAX_BYTES (64 << 20)

typedef struct hbuf {
    unsigned char *p;
    int64_t n;
    size_t isz;
} hbuf;

static int hread(const tl_tensor *t, hbuf *b, tl_error *err)
{
    b->n = tl_tensor_numel(t);
    b->isz = tl_dtype_size(t->dtype);
    b->p = NULL;
    if (b->n > TL_INDEX_MAX_ELEMS || (uint64_t)b->n * b->isz > SCATTER_MAX_BYTES)
        return tl_error_set(err, TL_ERR_LIMIT, "a scatter over a tensor of more than %d "
                            "MiB is not supported", SCATTER_MAX_BYTES >> 20);
    b->p = malloc((size_t)(b->n ? b->n : 1) * b->isz);
    if (!b->p)
        return tl_error_set(err, TL_ERR_LIMIT, "out of memory");
    if (b->n && tl_tensor_read_host_bytes(t, b->p, err)) {
        free(b->p);
        b->p = NULL;
        return -1;
    }
    return 0;
}

static int read_index(const tl_tensor *t, int64_t **out, int64_t *n, tl_error *err)
{
    hbuf b;
    if (hread(t, &b, err))
        return -1;
    *out = (int64_t *)b.p;
    *n = b.n;
    return 0;
}

static bool overlapping(const tl_tensor *x)
{
    for (int d = 0; d < x->ndim; d++)
        if (x->strides[d] == 0 && x->sizes[d] > 1)
            return true;
    return false;
}

/* x's elements become b's (row-major); one version bump */
static int write_back(tl_tensor *x, const hbuf *b, tl_error *err)
{
    if (overlapping(x)) {
        /* only the elements the op changed: an unchanged alias of a
         * written location must not write its old value back */
        hbuf o;
        if (hread(x, &o, err))
            return -1;
        for (int64_t i = 0; i < b->n; i++)
            if (memcmp(o.p + (size_t)i * b->isz, b->p + (size_t)i * b->isz, b->isz) &&
                tl_tensor_set_raw(x, i, b->p + (size_t)i * b->isz, err)) {
                free(o.p);
                return -1;
            }
        free(o.p);
        tl_tensor_bump_version(x);
        return 0;
    }
    tl_tensor *h = tl_tensor_new(tl_backend_cpu(), x->dtype, x->ndim, x->sizes, err);
    if (!h)
        return -1;
    if (b->n)
        memcpy(tl_tensor_addr(h), b->p, (size_t)b->n * b->isz);
    int rc = tl_ops_copy_(x, h, err);
    tl_tensor_release(h);
    return rc;
}

static void store_scalar(tl_dtype dt, void *p, const tl_scalar *v)
{
    if (v->is_float)
        tl_dtype_store_f64(dt, p, v->f);
    else
        tl_dtype_store_i64(dt, p, v->i);
}

/* *dst = *dst (op) *src in dt, one rounding */
static void accumulate(tl_dtype dt, void *dst, const void *src, tl_scatter_reduce r)
{
    if (r == TL_SCATTER_REDUCE_NONE) {
        memcpy(dst, src, tl_dtype_size(dt));
    } else if (dt == TL_BOOL) {
        unsigned char a = *(unsigned char *)dst != 0, b = *(const unsigned char *)src != 0;
        *(unsigned char *)dst = r == TL_SCATTER_REDUCE_ADD ? (a | b) : (a & b);
    } else if (tl_dtype_is_floating(dt)) {
        double a = tl_dtype_load_f64(dt, dst), b = tl_dtype_load_f64(dt, src);
        tl_dtype_store_f64(dt, dst, r == TL_SCATTER_REDUCE_ADD ? a + b : a * b);
    } else {
        uint64_t a = (uint64_t)tl_dtype_load_i64(dt, dst);
        uint64_t b = (uint64_t)tl_dtype_load_i64(dt, src);
        tl_dtype_store_i64(dt, dst, (int64_t)(r == TL_SCATTER_REDUCE_ADD ? a + b : a * b));
    }
}

/* row-major strides of a shape */
static void rm_strides(int nd, const int64_t *sz, int64_t *st)
{
    int64_t s = 1;
    for (int d = nd - 1; d >= 0; d--) {
        st[d] = s;
        s *= sz[d];
    }
}

static int64_t outer_inner(const tl_tensor *x, int d, int64_t *inner)
{
    int64_t o = 1, in = 1;
    for (int i = 0; i < x->ndim; i++) {
        if (i < d)
            o *= x->sizes[i];
        else if (i > d)
            in *= x->sizes[i];
    }
    *inner = in;
    return o;
}

int tl_scatter_index_fill_(tl_tensor *x, int64_t dim, const tl_tensor *index,
                           const tl_scalar *value, tl_error *err)
{
    int d;
    if (tl_shape_wrap_dim(dim, x->ndim, &d, err))
        return -1;
    if (index->dtype != TL_INT64)
        return tl_error_set(err, TL_ERR_INDEX, "index_fill_(): Expected dtype int64 for index.");
    if (index->ndim > 1)
        return tl_error_set(err, TL_ERR_RUNTIME, "Index has to be a vector/scalar");
    int64_t *ix, ni;
    if (read_index(index, &ix, &ni, err))
        return -1;
    int64_t size = x->ndim ? x->sizes[d] : 1;
    for (int64_t k = 0; k < ni; k++)
        if (ix[k] < -size || ix[k] >= size) {
            tl_error_set(err, TL_ERR_INDEX, "index %lld is out of bounds for dimension %d "
                         "with size %lld", (long long)ix[k], d, (long long)size);
            free(ix);
            return -1;
        }
    hbuf b;
    if (hread(x, &b, err)) {
        free(ix);
        return -1;
    }
    unsigned char v[16];
    store_scalar(x->dtype, v, value);
    int64_t inner, outer = x->ndim ? outer_inner(x, d, &inner) : (inner = 1);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t k = 0; k < ni; k++) {
            int64_t j = ix[k] < 0 ? ix[k] + size : ix[k];
            for (int64_t i = 0; i < inner; i++)
                memcpy(b.p + (size_t)((o * size + j) * inner + i) * b.isz, v, b.isz);
        }
    free(ix);
    int rc = write_back(x, &b, err);
    free(b.p);
    return rc;
}

static void fmt_sliced(tl_buf *s, const tl_tensor *t, int d)
{
    bool first = true;
    for (int i = 0; i < t->ndim; i++) {
        if (i == d)
            continue;
        tl_buf_printf(s, first ? "%lld" : " %lld", (long long)t->sizes[i]);
        first = false;
    }
}

int tl_scatter_index_copy_(tl_tensor *x, int64_t dim, const tl_tensor *index,
                           const tl_tensor *source, tl_error *err)
{
    int d;
    if (tl_shape_wrap_dim(dim, x->ndim, &d, err))
        return -1;
    if (index->ndim > 1)
        return tl_error_set(err, TL_ERR_INDEX, "index_copy_(): Index should have dimension "
                            "1 or 0 (got %d)", index->ndim);
    int64_t ni = tl_tensor_numel(index);
    if (source->ndim == 0 && ni != 1)
        return tl_error_set(err, TL_ERR_INDEX, "index_copy_(): When source is scalar, index "
                            "should have one element (got %lld)", (long long)ni);
    if (source->ndim != x->ndim && source->ndim != 0 && x->ndim != 0)
        return tl_error_set(err, TL_ERR_INDEX, "index_copy_(): When source and destination "
                            "are not scalars, their dimensionality must match. Source "
                            "dimensionality (%d), destination dimensionality (%d)",
                            source->ndim, x->ndim);
    if (index->dtype != TL_INT64)
        return tl_error_set(err, TL_ERR_RUNTIME, "index_copy_(): Expected a long tensor for "
                            "index, but got %s", tl_dtype_scalar_name(index->dtype));
    if (x->dtype != source->dtype)
        return tl_error_set(err, TL_ERR_RUNTIME, "index_copy_(): self and source expected to "
                            "have the same dtype, but got (self) %s and (source) %s",
                            tl_dtype_scalar_name(x->dtype),
                            tl_dtype_scalar_name(source->dtype));
    bool same = source->ndim == x->ndim || (source->ndim <= 1 && x->ndim <= 1);
    if (same && source->ndim == x->ndim)
        for (int i = 0; i < x->ndim; i++)
            if (i != d && x->sizes[i] != source->sizes[i])
                same = false;
    if (!same) {
        tl_buf s = {0};
        tl_buf_printf(&s, "index_copy_(): Source/destination tensor must have same slice "
                      "shapes. Destination slice shape: ");
        fmt_sliced(&s, x, d);
        tl_buf_printf(&s, " at dimension %d and source slice shape: ", d);
        fmt_sliced(&s, source, d);
        tl_buf_printf(&s, " at dimension 0.");
        tl_error_set(err, TL_ERR_RUNTIME, "%s", s.data ? s.data : "");
        tl_buf_free(&s);
        return -1;
    }
    int64_t ssize = source->ndim ? source->sizes[d] : 1;
    if (source->ndim && ni != ssize)
        return tl_error_set(err, TL_ERR_INDEX, "index_copy_(): Number of indices (%lld) should "
                            "be equal to source.size(dim) (%lld)", (long long)ni,
                            (long long)ssize);
    int64_t *ix;
    if (read_index(index, &ix, &ni, err))
        return -1;
    int64_t size = x->ndim ? x->sizes[d] : 1;
    for (int64_t k = 0; k < ni; k++)
        if (ix[k] < 0 || ix[k] >= size) {
            tl_error_set(err, TL_ERR_INDEX, "index_copy_(): index %lld is out of bounds for "
                         "dimension %d with size %lld", (long long)ix[k], d, (long long)size);
            free(ix);
            return -1;
        }
    hbuf b, s;
    if (hread(x, &b, err)) {
        free(ix);
        return -1;
    }
    if (hread(source, &s, err)) {
        free(ix);
        free(b.p);
        return -1;
    }
    int64_t inner, outer = x->ndim ? outer_inner(x, d, &inner) : (inner = 1);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t k = 0; k < ni; k++)
            for (int64_t i = 0; i < inner; i++)
                memcpy(b.p + (size_t)((o * size + ix[k]) * inner + i) * b.isz,
                       s.p + (size_t)((o * ni + k) * inner + i) * b.isz, b.isz);
    free(ix);
    free(s.p);
    int rc = write_back(x, &b, err);
    free(b.p);
    return rc;
}

static void fmt_sizes(tl_buf *s, const tl_tensor *t)
{
    tl_buf_printf(s, "[");
    for (int i = 0; i < t->ndim; i++)
        tl_buf_printf(s, i ? ", %lld" : "%lld", (long long)t->sizes[i]);
    tl_buf_printf(s, "]");
}

int tl_scatter_scatter_(tl_tensor *x, int64_t dim, const tl_tensor *index,
                        const tl_tensor *src, const tl_scalar *value,
                        tl_scatter_reduce reduce, tl_error *err)
{
    int d;
    if (tl_shape_wrap_dim(dim, x->ndim, &d, err))
        return -1;
    if (index->dtype != TL_INT64)
        return tl_error_set(err, TL_ERR_RUNTIME, "scatter(): Expected dtype int64 for index");
    if (src && src->dtype != x->dtype)
        return tl_error_set(err, TL_ERR_RUNTIME, "scatter(): Expected self.dtype to be equal "
                            "to src.dtype");
    int64_t ni = tl_tensor_numel(index);
    int xnd = x->ndim ? x->ndim : 1, ind = index->ndim ? index->ndim : 1;
    if (ni == 0)
        return tl_tensor_bump_version(x), 0;
    if (ind != xnd)
        return tl_error_set(err, TL_ERR_RUNTIME, "Index tensor must have the same number of "
                            "dimensions as self tensor");
    if (src && (src->ndim ? src->ndim : 1) != xnd)
        return tl_error_set(err, TL_ERR_RUNTIME, "Index tensor must have the same number of "
                            "dimensions as src tensor");
    int64_t xs[TL_MAX_DIMS], is[TL_MAX_DIMS], ss[TL_MAX_DIMS];
    for (int i = 0; i < xnd; i++) {
        xs[i] = x->ndim ? x->sizes[i] : 1;
        is[i] = index->ndim ? index->sizes[i] : 1;
        ss[i] = src ? (src->ndim ? src->sizes[i] : 1) : 0;
    }
    bool bad = false;
    for (int i = 0; i < xnd; i++) {
        if (i != d && is[i] > xs[i])
            bad = true;
        if (src && is[i] > ss[i])
            bad = true;
    }
    if (bad) {
        tl_buf s = {0};
        tl_buf_printf(&s, "Expected index ");
        fmt_sizes(&s, index);
        tl_buf_printf(&s, " to be smaller than self ");
        fmt_sizes(&s, x);
        tl_buf_printf(&s, " apart from dimension %d", d);
        if (src) {
            tl_buf_printf(&s, " and to be smaller size than src ");
            fmt_sizes(&s, src);
        }
        tl_error_set(err, TL_ERR_RUNTIME, "%s", s.data ? s.data : "");
        tl_buf_free(&s);
        return -1;
    }
    int64_t *ix;
    if (read_index(index, &ix, &ni, err))
        return -1;
    for (int64_t k = 0; k < ni; k++)
        if (ix[k] < 0 || ix[k] >= xs[d]) {
            tl_error_set(err, TL_ERR_RUNTIME, "index %lld is out of bounds for dimension %d "
                         "with size %lld", (long long)ix[k], d, (long long)xs[d]);
            free(ix);
            return -1;
        }
    hbuf b, s = {0};
    if (hread(x, &b, err)) {
        free(ix);
        return -1;
    }
    if (src && hread(src, &s, err)) {
        free(ix);
        free(b.p);
        return -1;
    }
    unsigned char v[16];
    if (!src)
        store_scalar(x->dtype, v, value);
    int64_t xst[TL_MAX_DIMS], sst[TL_MAX_DIMS];
    rm_strides(xnd, xs, xst);
    if (src)
        rm_strides(xnd, ss, sst);
    int64_t pos[TL_MAX_DIMS] = {0};
    for (int64_t k = 0; k < ni; k++) {
        int64_t xo = 0, so = 0;
        for (int i = 0; i < xnd; i++) {
            xo += (i == d ? ix[k] : pos[i]) * xst[i];
            if (src)
                so += pos[i] * sst[i];
        }
        accumulate(x->dtype, b.p + (size_t)xo * b.isz, src ? s.p + (size_t)so * b.isz : v,
                   reduce);
        for (int i = xnd - 1; i >= 0; i--) {
            if (++pos[i] < is[i])
                break;
            pos[i] = 0;
        }
    }
    free(ix);
    free(s.p);
    int rc = write_back(x, &b, err);
    free(b.p);
    return rc;
}

int tl_scatter_masked_scatter_(tl_tensor *x, const tl_tensor *mask,
                               const tl_tensor *source, tl_error *err)
{
    if (mask->dtype != TL_BOOL && mask->dtype != TL_UINT8)
        return tl_error_set(err, TL_ERR_RUNTIME, "masked_scatter_ only supports boolean "
                            "masks, but got mask with dtype %s",
                            tl_dtype_scalar_name(mask->dtype));
    if (x->dtype != source->dtype)
        return tl_error_set(err, TL_ERR_RUNTIME, "masked_scatter: expected self and source to "
                            "have same dtypes but got%s and %s",
                            tl_dtype_scalar_name(x->dtype), tl_dtype_scalar_name(source->dtype));
    /* in place: the mask expands to self (expand_inplace), never self to it */
    tl_tensor *me = tl_view_expand(mask, x->ndim, x->sizes, err);
    if (!me)
        return -1;
    hbuf m, b, s;
    int rc = hread(me, &m, err);
    tl_tensor_release(me);
    if (rc)
        return -1;
    int64_t ones = 0;
    for (int64_t i = 0; i < m.n; i++)
        ones += m.p[i] != 0;
    if (ones > tl_tensor_numel(source)) {
        free(m.p);
        return tl_error_set(err, TL_ERR_RUNTIME, "Number of elements of source < number of "
                            "ones in mask");
    }
    if (hread(x, &b, err)) {
        free(m.p);
        return -1;
    }
    if (hread(source, &s, err)) {
        free(m.p);
        free(b.p);
        return -1;
    }
    /* torch 1.13's CPU kernel walks self in its memory order (the
     * TensorIterator's dims, innermost the smallest stride), taking the
     * source's elements in row-major order */
    int nd = x->ndim, perm[TL_MAX_DIMS];
    int64_t st[TL_MAX_DIMS], pos[TL_MAX_DIMS] = {0};
    rm_strides(nd, x->sizes, st);
    for (int i = 0; i < nd; i++)
        perm[i] = i;
    for (int i = 1; i < nd; i++) /* stable: by stride, largest outermost */
        for (int j = i; j > 0 && x->strides[perm[j - 1]] < x->strides[perm[j]]; j--) {
            int tmp = perm[j];
            perm[j] = perm[j - 1];
            perm[j - 1] = tmp;
        }
    int64_t k = 0;
    for (int64_t n = 0; n < m.n; n++) {
        int64_t i = 0;
        for (int q = 0; q < nd; q++)
            i += pos[q] * st[perm[q]];
        if (m.p[i])
            memcpy(b.p + (size_t)i * b.isz, s.p + (size_t)(k++) * b.isz, b.isz);
        for (int q = nd - 1; q >= 0; q--) {
            if (++pos[q] < x->sizes[perm[q]])
                break;
            pos[q] = 0;
        }
    }
    free(m.p);
    free(s.p);
    rc = write_back(x, &b, err);
    free(b.p);
    return rc;
}

int tl_scatter_put_(tl_tensor *x, const tl_tensor *index, const tl_tensor *source,
                    bool accumulate_, tl_error *err)
{
    if (index->dtype != TL_INT64)
        return tl_error_set(err, TL_ERR_RUNTIME, "put_(): Expected a long tensor for index, "
                            "but got %s", tl_dtype_scalar_name(index->dtype));
    if (x->dtype != source->dtype)
        return tl_error_set(err, TL_ERR_RUNTIME, "put_(): self and source expected to have the "
                            "same dtype, but got self.dtype = %s and source.dtype = %s",
                            tl_dtype_scalar_name(x->dtype), tl_dtype_scalar_name(source->dtype));
    int64_t ni = tl_tensor_numel(index), ns = tl_tensor_numel(source);
    if (ni != ns)
        return tl_error_set(err, TL_ERR_INDEX, "put_(): Expected source and index to have the "
                            "same number of elements, but got source.numel() = %lld, "
                            "index.numel() = %lld", (long long)ns, (long long)ni);
    int64_t *ix;
    if (read_index(index, &ix, &ni, err))
        return -1;
    int64_t n = tl_tensor_numel(x);
    for (int64_t k = 0; k < ni; k++)
        if (ix[k] < -n || ix[k] >= n) {
            tl_error_set(err, TL_ERR_INDEX, "out of range: tried to access index %lld on a "
                         "tensor of %lld elements.", (long long)ix[k], (long long)n);
            free(ix);
            return -1;
        }
    hbuf b, s;
    if (hread(x, &b, err)) {
        free(ix);
        return -1;
    }
    if (hread(source, &s, err)) {
        free(ix);
        free(b.p);
        return -1;
    }
    for (int64_t k = 0; k < ni; k++) {
        int64_t j = ix[k] < 0 ? ix[k] + n : ix[k];
        accumulate(x->dtype, b.p + (size_t)j * b.isz, s.p + (size_t)k * b.isz,
                   accumulate_ ? TL_SCATTER_REDUCE_ADD : TL_SCATTER_REDUCE_NONE);
    }
    free(ix);
    free(s.p);
    int rc = write_back(x, &b, err);
    free(b.p);
    return rc;
}
