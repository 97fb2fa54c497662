/* grad_kernels.c - gradient buffers (dense doubles standing for a dtype)
 * and the loops backward formulas are made of.
 *
 * Invariants: a tl_gbuf's values are always representable in its dtype
 * (every producer rounds); its memory is a storage on the CPU backend, so
 * the ledger (--max-bytes) sees it and refuses past the limit with the
 * allocator's usual error. Tensors are read and written through their
 * backend (to_host/from_host) when their memory is not host memory.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grad_kernels.h"

#include "freelist.h"
#include "util.h"

void tl_geom_of(const tl_tensor *t, tl_geom *g)
{
    g->ndim = t->ndim;
    for (int d = 0; d < t->ndim; d++) {
        g->sizes[d] = t->sizes[d];
        g->strides[d] = t->strides[d];
    }
    g->offset = t->offset;
}

int64_t tl_geom_numel(const tl_geom *g)
{
    int64_t n = 1;
    for (int d = 0; d < g->ndim; d++)
        n *= g->sizes[d];
    return n;
}

double tl_gk_round(tl_dtype dt, double v)
{
    switch (dt) {
    case TL_FLOAT32: return (double)(float)v;
    case TL_FLOAT16: return (double)tl_f16_to_f32(tl_f32_to_f16((float)v));
    case TL_BFLOAT16: return (double)tl_bf16_to_f32(tl_f32_to_bf16((float)v));
    default: return v;
    }
}

static int64_t numel_of(int ndim, const int64_t *sizes)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++)
        n *= sizes[d];
    return n;
}

/* gradient buffers are made and dropped several times a backward pass:
 * their headers are kept for reuse (freelist.h) */
static _Thread_local tl_freelist gbufs;

tl_gbuf *tl_gbuf_new(tl_dtype dt, int ndim, const int64_t *sizes, tl_error *err)
{
    int64_t n = numel_of(ndim, sizes);
    if (n < 0 || n > TL_MAX_NUMEL) {
        tl_error_set(err, TL_ERR_LIMIT, "gradient of %lld elements is past "
                     "tlab's limit", (long long)n);
        return NULL;
    }
    tl_storage *st = tl_storage_new(tl_backend_cpu(), (size_t)n * sizeof(double), err);
    if (!st)
        return NULL;
    tl_gbuf *g = tl_freelist_pop(&gbufs);
    if (!g)
        g = tl_xmalloc(sizeof *g);
    /* sizes past ndim are never read: not cleared (512 bytes a gradient) */
    g->dt = dt;
    g->ndim = ndim;
    for (int d = 0; d < ndim; d++)
        g->sizes[d] = sizes[d];
    g->n = n;
    g->st = st;
    g->v = st->data;
    return g;
}

tl_gbuf *tl_gbuf_ones(tl_dtype dt, int ndim, const int64_t *sizes, tl_error *err)
{
    tl_gbuf *g = tl_gbuf_new(dt, ndim, sizes, err);
    if (g)
        for (int64_t i = 0; i < g->n; i++)
            g->v[i] = 1.0;
    return g;
}

void tl_gbuf_free(tl_gbuf *g)
{
    if (!g)
        return;
    tl_storage_release(g->st);
    tl_freelist_push(&gbufs, g, 256);
}

tl_gbuf *tl_gbuf_copy(const tl_gbuf *g, tl_error *err)
{
    tl_gbuf *c = tl_gbuf_new(g->dt, g->ndim, g->sizes, err);
    if (c && g->n)
        memcpy(c->v, g->v, (size_t)g->n * sizeof(double));
    return c;
}

void tl_gbuf_cast(tl_gbuf *g, tl_dtype dt)
{
    g->dt = dt;
    for (int64_t i = 0; i < g->n; i++)
        g->v[i] = tl_gk_round(dt, g->v[i]);
}

void tl_gbuf_add(tl_gbuf *acc, const tl_gbuf *g)
{
    for (int64_t i = 0; i < acc->n && i < g->n; i++)
        acc->v[i] = tl_gk_round(acc->dt, acc->v[i] + g->v[i]);
}

/* The host bytes of t's storage: t's own memory when the host can read it,
 * else a copy (*tmp, freed by the caller). */
static const char *host_bytes(const tl_tensor *t, char **tmp, tl_error *err)
{
    const tl_backend *be = tl_tensor_backend(t);
    *tmp = NULL;
    if (tl_backend_host_accessible(be) || !t->storage->nbytes)
        return t->storage->data;
    *tmp = malloc(t->storage->nbytes);
    if (!*tmp) {
        tl_error_set(err, TL_ERR_INTERNAL, "out of host memory");
        return NULL;
    }
    if (tl_backend_to_host(be, *tmp, t->storage->data, t->storage->nbytes, err) < 0) {
        free(*tmp);
        *tmp = NULL;
        return NULL;
    }
    return *tmp;
}

/* Visit every element of a (ndim, sizes, strides) layout in row-major
 * order, yielding its element offset from the first element. */
#define FOR_EACH_OFFSET(ndim, sizes, strides, n, OFF, BODY)                  \
    do {                                                                    \
        int64_t idx_[TL_MAX_DIMS] = {0};                                    \
        int64_t OFF = 0;                                                    \
        for (int64_t lin_ = 0; lin_ < (n); lin_++) {                        \
            BODY;                                                           \
            for (int d_ = (ndim) - 1; d_ >= 0; d_--) {                      \
                if (++idx_[d_] < (sizes)[d_]) {                             \
                    OFF += (strides)[d_];                                   \
                    break;                                                  \
                }                                                           \
                OFF -= (strides)[d_] * (idx_[d_] - 1);                      \
                idx_[d_] = 0;                                               \
            }                                                               \
        }                                                                   \
    } while (0)

tl_gbuf *tl_gbuf_from_tensor(const tl_tensor *t, tl_error *err)
{
    tl_gbuf *g = tl_gbuf_new(t->dtype, t->ndim, t->sizes, err);
    if (!g || !g->n)
        return g;
    char *tmp;
    const char *base = host_bytes(t, &tmp, err);
    if (!base) {
        tl_gbuf_free(g);
        return NULL;
    }
    size_t isz = tl_dtype_size(t->dtype);
    const char *p0 = base + (size_t)t->offset * isz;
    double *v = g->v;
    FOR_EACH_OFFSET(t->ndim, t->sizes, t->strides, g->n, off,
                    v[lin_] = tl_dtype_load_f64(t->dtype, p0 + off * (int64_t)isz));
    free(tmp);
    return g;
}

tl_tensor *tl_gbuf_to_tensor(const tl_gbuf *g, const tl_backend *be, tl_error *err)
{
    tl_tensor *t = tl_tensor_new(be, g->dt, g->ndim, g->sizes, err);
    if (!t)
        return NULL;
    if (tl_gbuf_store(g, t, err) < 0) {
        tl_tensor_release(t);
        return NULL;
    }
    return t;
}

int tl_gbuf_store(const tl_gbuf *g, tl_tensor *t, tl_error *err)
{
    int64_t n = tl_tensor_numel(t);
    if (!n)
        return 0;
    const tl_backend *be = tl_tensor_backend(t);
    bool host = tl_backend_host_accessible(be);
    char *base = t->storage->data;
    if (!host) {
        base = malloc(t->storage->nbytes);
        if (!base)
            return tl_error_set(err, TL_ERR_INTERNAL, "out of host memory");
        if (tl_backend_to_host(be, base, t->storage->data, t->storage->nbytes, err) < 0) {
            free(base);
            return -1;
        }
    }
    size_t isz = tl_dtype_size(t->dtype);
    char *p0 = base + (size_t)t->offset * isz;
    const double *v = g->v;
    FOR_EACH_OFFSET(t->ndim, t->sizes, t->strides, n, off,
                    tl_dtype_store_f64(t->dtype, p0 + off * (int64_t)isz, v[lin_]));
    if (!host) {
        int rc = tl_backend_from_host(be, t->storage->data, base, t->storage->nbytes, err);
        free(base);
        return rc;
    }
    return 0;
}

/* Row-major strides of a shape, in elements. */
static void dense_strides(int ndim, const int64_t *sizes, int64_t *st)
{
    int64_t s = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        st[d] = s;
        s *= sizes[d];
    }
}

void tl_gk_sum_to(const tl_gbuf *g, tl_gbuf *out)
{
    /* out's strides laid over g's dims (right-aligned), 0 where out has
     * size 1 or no dim: each element of g adds into its reduced slot */
    int64_t ost[TL_MAX_DIMS], map[TL_MAX_DIMS];
    dense_strides(out->ndim, out->sizes, ost);
    int lead = g->ndim - out->ndim;
    for (int d = 0; d < g->ndim; d++) {
        int od = d - lead;
        map[d] = (od < 0 || out->sizes[od] == 1) ? 0 : ost[od];
    }
    for (int64_t i = 0; i < out->n; i++)
        out->v[i] = 0;
    const double *v = g->v;
    double *o = out->v;
    FOR_EACH_OFFSET(g->ndim, g->sizes, map, g->n, off, o[off] += v[lin_]);
    for (int64_t i = 0; i < out->n; i++)
        out->v[i] = tl_gk_round(out->dt, out->v[i]);
}

void tl_gk_broadcast(const tl_gbuf *src, tl_gbuf *out)
{
    int64_t sst[TL_MAX_DIMS], map[TL_MAX_DIMS];
    dense_strides(src->ndim, src->sizes, sst);
    int lead = out->ndim - src->ndim;
    for (int d = 0; d < out->ndim; d++) {
        int sd = d - lead;
        map[d] = (sd < 0 || src->sizes[sd] == 1) ? 0 : sst[sd];
    }
    const double *v = src->v;
    double *o = out->v;
    FOR_EACH_OFFSET(out->ndim, out->sizes, map, out->n, off, o[lin_] = v[off]);
}

void tl_gk_expand_reduced(const tl_gbuf *g, tl_gbuf *out, int nd,
                          const int64_t *dims, bool all_dims, bool keepdim)
{
    /* strides of g over out's dims: 0 on reduced dims */
    bool red[TL_MAX_DIMS] = {false};
    for (int d = 0; d < out->ndim; d++)
        red[d] = all_dims;
    for (int i = 0; i < nd; i++)
        if (dims[i] >= 0 && dims[i] < out->ndim)
            red[dims[i]] = true;
    int64_t gsz[TL_MAX_DIMS], gst[TL_MAX_DIMS], map[TL_MAX_DIMS];
    for (int d = 0; d < out->ndim; d++)
        gsz[d] = red[d] ? 1 : out->sizes[d];
    dense_strides(out->ndim, gsz, gst);
    (void)keepdim; /* same element order with or without the kept dims */
    for (int d = 0; d < out->ndim; d++)
        map[d] = red[d] ? 0 : gst[d];
    const double *v = g->v;
    double *o = out->v;
    FOR_EACH_OFFSET(out->ndim, out->sizes, map, out->n, off, o[lin_] = v[off]);
}

int tl_gk_view_map(const tl_geom *in, const tl_geom *out, int64_t *map,
                   tl_error *err)
{
    int64_t nin = tl_geom_numel(in), nout = tl_geom_numel(out);
    if (!nout)
        return 0;
    if (!nin) {
        for (int64_t j = 0; j < nout; j++)
            map[j] = -1;
        return 0;
    }
    /* storage span of `in` */
    int64_t lo = in->offset, hi = in->offset;
    for (int d = 0; d < in->ndim; d++) {
        int64_t ext = (in->sizes[d] - 1) * in->strides[d];
        if (ext < 0)
            lo += ext;
        else
            hi += ext;
    }
    int64_t span = hi - lo + 1;
    if (span > 4 * nin + 4096 || span > TL_MAX_NUMEL)
        return tl_error_set(err, TL_ERR_LIMIT, "view backward over a storage "
                            "span of %lld elements (tlab limit)", (long long)span);
    tl_error e2;
    tl_storage *st = tl_storage_new(tl_backend_cpu(), (size_t)span * sizeof(int64_t), &e2);
    if (!st) {
        *err = e2;
        return -1;
    }
    int64_t *inv = st->data;
    for (int64_t i = 0; i < span; i++)
        inv[i] = -1;
    int64_t base = in->offset - lo;
    FOR_EACH_OFFSET(in->ndim, in->sizes, in->strides, nin, off,
                    inv[base + off] = lin_);
    int64_t obase = out->offset - lo;
    FOR_EACH_OFFSET(out->ndim, out->sizes, out->strides, nout, off, {
        int64_t p = obase + off;
        map[lin_] = (p >= 0 && p < span) ? inv[p] : -1;
    });
    tl_storage_release(st);
    return 0;
}

void tl_gk_bmm(int64_t nb, int64_t n, int64_t k, int64_t m, const double *A,
               bool ta, const double *B, bool tb, double *C)
{
    for (int64_t b = 0; b < nb; b++) {
        const double *a = A + b * n * k, *bb = B + b * k * m;
        double *c = C + b * n * m;
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < m; j++) {
                double s = 0;
                for (int64_t p = 0; p < k; p++) {
                    double x = ta ? a[p * n + i] : a[i * k + p];
                    double y = tb ? bb[j * k + p] : bb[p * m + j];
                    s += x * y;
                }
                c[i * m + j] = s;
            }
    }
}
