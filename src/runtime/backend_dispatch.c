/* backend_dispatch.c - the dispatch side of the backend interface (backend.h):
 * the tl_backend_* wrappers, the host fallbacks of optional entries, the
 * per-thread counters, the registry, the device resolver and the one
 * cross-device copy.
 *
 * Invariants:
 *   - every wrapper counts what it does in the calling thread's context,
 *     under the backend's device kind: a kernel entry is one launch (also
 *     when it fails), a transfer adds its bytes, whether the backend or a
 *     fallback ran it. A fallback's own staging transfers are counted too,
 *     so a test sees every byte that crossed the host boundary.
 *   - fallbacks use only required entries of the same backend, plus the
 *     CPU backend's kernels on host buffers; they never dereference device
 *     memory.
 *   - tl_backend_for is the only place that maps a device to a backend.
 *   - the cross-device copy moves a dense same-dtype, same-layout pair with
 *     one transfer straight into the destination (pinned memory included);
 *     anything else goes through a dense block on each side.
 */
#include "backend_impl.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ------------------------------------------------------------------------
 * Handle accessors and counters
 * ---------------------------------------------------------------------- */

const char *tl_backend_name(const tl_backend *be) { return be->name; }
tl_device tl_backend_device(const tl_backend *be) { return be->device; }
unsigned tl_backend_caps(const tl_backend *be) { return be->caps; }

bool tl_backend_host_accessible(const tl_backend *be)
{
    return (be->caps & TL_BACKEND_CAP_HOST_MEMORY) != 0;
}

const char *tl_backend_kernel_suffix(const tl_backend *be)
{
    return be->device.kind == TL_DEV_CUDA ? "cuda" : "cpu";
}

static tl_backend_counters *counters(const tl_backend *be)
{
    return &tl_context_get()->counters[be->device.kind];
}

static void launched(const tl_backend *be)
{
    counters(be)->launches++;
}

tl_backend_counters tl_backend_counters_get(tl_devkind kind)
{
    return tl_context_get()->counters[kind];
}

void tl_backend_counters_reset(void)
{
    memset(tl_context_get()->counters, 0, sizeof tl_context_get()->counters);
}

/* ------------------------------------------------------------------------
 * Memory
 * ---------------------------------------------------------------------- */

int tl_backend_alloc(const tl_backend *be, size_t nbytes, void **out,
                     tl_error *err)
{
    *out = NULL;
    if (nbytes == 0)
        return 0;
    return be->ops->alloc(be, nbytes, out, err);
}

int tl_backend_alloc_uninit(const tl_backend *be, size_t nbytes, void **out,
                            tl_error *err)
{
    *out = NULL;
    if (nbytes == 0)
        return 0;
    if (be->ops->alloc_uninit)
        return be->ops->alloc_uninit(be, nbytes, out, err);
    return be->ops->alloc(be, nbytes, out, err);
}

int tl_backend_gemm(const tl_backend *be, const tl_strided *c,
                    const tl_strided *a, const tl_strided *b, tl_error *err)
{
    return be->ops->gemm ? be->ops->gemm(be, c, a, b, err) : 0;
}

void tl_backend_free(const tl_backend *be, void *p)
{
    if (p)
        be->ops->free(be, p);
}

int tl_backend_to_host(const tl_backend *be, void *host_dst,
                       const void *dev_src, size_t n, tl_error *err)
{
    if (n == 0)
        return 0;
    counters(be)->d2h_bytes += n;
    return be->ops->to_host(be, host_dst, dev_src, n, err);
}

int tl_backend_from_host(const tl_backend *be, void *dev_dst,
                         const void *host_src, size_t n, tl_error *err)
{
    if (n == 0)
        return 0;
    counters(be)->h2d_bytes += n;
    return be->ops->from_host(be, dev_dst, host_src, n, err);
}

int tl_backend_copy_d2d(const tl_backend *be, void *dev_dst,
                        const void *dev_src, size_t n, tl_error *err)
{
    if (n == 0)
        return 0;
    counters(be)->d2d_bytes += n;
    if (be->ops->copy_d2d)
        return be->ops->copy_d2d(be, dev_dst, dev_src, n, err);
    /* fallback: one byte-wise strided copy (the ranges do not overlap) */
    int64_t len = (int64_t)n, one = 1;
    tl_strided d = {dev_dst, TL_UINT8, 1, &len, &one};
    tl_strided s = {(void *)dev_src, TL_UINT8, 1, &len, &one};
    launched(be);
    return be->ops->copy_strided(be, &d, &s, err);
}

int tl_backend_sync(const tl_backend *be, tl_error *err)
{
    return be->ops->sync ? be->ops->sync(be, err) : 0;
}

int tl_backend_host_alloc(const tl_backend *be, size_t nbytes, void **out,
                          tl_error *err)
{
    if (be->ops->host_alloc)
        return be->ops->host_alloc(be, nbytes, out, err);
    *out = calloc(1, nbytes ? nbytes : 1);
    if (!*out)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "[enforce fail at alloc_cpu.cpp:75] data. "
                            "DefaultCPUAllocator: not enough memory: you tried "
                            "to allocate %zu bytes.",
                            nbytes);
    return 0;
}

void tl_backend_host_free(const tl_backend *be, void *p)
{
    if (!p)
        return;
    if (be->ops->host_free)
        be->ops->host_free(be, p);
    else
        free(p);
}

/* ------------------------------------------------------------------------
 * Required kernels
 * ---------------------------------------------------------------------- */

int tl_backend_copy_strided(const tl_backend *be, const tl_strided *dst,
                            const tl_strided *src, tl_error *err)
{
    launched(be);
    return be->ops->copy_strided(be, dst, src, err);
}

int tl_backend_fill(const tl_backend *be, const tl_strided *dst, tl_scalar v,
                    tl_error *err)
{
    launched(be);
    return be->ops->fill(be, dst, v, err);
}

int tl_backend_binary(const tl_backend *be, tl_binop op, tl_dtype compute,
                      const tl_strided *dst, const tl_strided *a,
                      const tl_strided *b, tl_error *err)
{
    launched(be);
    return be->ops->binary(be, op, compute, dst, a, b, err);
}

int tl_backend_unary(const tl_backend *be, tl_unop op, tl_dtype compute,
                     const tl_strided *dst, const tl_strided *src,
                     tl_error *err)
{
    launched(be);
    return be->ops->unary(be, op, compute, dst, src, err);
}

int tl_backend_where(const tl_backend *be, const tl_strided *dst,
                     const tl_strided *cond, const tl_strided *a,
                     const tl_strided *b, tl_error *err)
{
    launched(be);
    return be->ops->where(be, dst, cond, a, b, err);
}

int tl_backend_reduce(const tl_backend *be, tl_redop op, tl_dtype compute,
                      const tl_strided *dst, const tl_strided *src,
                      uint64_t reduce_mask, tl_error *err)
{
    launched(be);
    return be->ops->reduce(be, op, compute, dst, src, reduce_mask, err);
}

/* ------------------------------------------------------------------------
 * Host staging, for the fallbacks of optional kernels
 * ---------------------------------------------------------------------- */

typedef struct staged {
    void *host;                    /* dense row-major copy of the operand */
    int64_t strides[TL_MAX_DIMS];
    tl_strided h;                  /* the host descriptor */
    size_t nbytes;
} staged;

static int64_t numel_of(const tl_strided *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->ndim; i++)
        n *= t->sizes[i];
    return n;
}

static void dense_strides(const tl_strided *t, int64_t *st)
{
    int64_t acc = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        st[i] = acc;
        acc *= t->sizes[i] > 1 ? t->sizes[i] : 1;
    }
}

static void staged_free(const tl_backend *be, staged *s)
{
    tl_backend_host_free(be, s->host);
    s->host = NULL;
}

/* A dense device block of t's shape and dtype on be. */
static int dense_scratch(const tl_backend *be, const tl_strided *t,
                         int64_t *st, tl_strided *out, tl_error *err)
{
    dense_strides(t, st);
    size_t nbytes = (size_t)numel_of(t) * tl_dtype_size(t->dtype);
    void *p;
    if (tl_backend_alloc(be, nbytes, &p, err) < 0)
        return -1;
    *out = (tl_strided){p, t->dtype, t->ndim, t->sizes, st};
    return 0;
}

/* s <- host copy of device operand t (read = false: zeroed, not read). */
static int stage_down(const tl_backend *be, const tl_strided *t, bool read,
                      staged *s, tl_error *err)
{
    memset(s, 0, sizeof *s);
    dense_strides(t, s->strides);
    s->nbytes = (size_t)numel_of(t) * tl_dtype_size(t->dtype);
    if (tl_backend_host_alloc(be, s->nbytes, &s->host, err) < 0)
        return -1;
    s->h = (tl_strided){s->host, t->dtype, t->ndim, t->sizes, s->strides};
    if (!read || s->nbytes == 0)
        return 0;
    int64_t st[TL_MAX_DIMS];
    tl_strided d;
    if (dense_scratch(be, t, st, &d, err) < 0)
        goto fail;
    int rc = tl_backend_copy_strided(be, &d, t, err);
    if (rc == 0)
        rc = tl_backend_to_host(be, s->host, d.data, s->nbytes, err);
    tl_backend_free(be, d.data);
    if (rc == 0)
        return 0;
fail:
    staged_free(be, s);
    return -1;
}

/* device operand t <- s's host bytes (then s is freed). */
static int stage_up(const tl_backend *be, const tl_strided *t, staged *s,
                    tl_error *err)
{
    int rc = 0;
    if (s->nbytes) {
        int64_t st[TL_MAX_DIMS];
        tl_strided d;
        rc = dense_scratch(be, t, st, &d, err);
        if (rc == 0) {
            rc = tl_backend_from_host(be, d.data, s->host, s->nbytes, err);
            if (rc == 0)
                rc = tl_backend_copy_strided(be, t, &d, err);
            tl_backend_free(be, d.data);
        }
    }
    staged_free(be, s);
    return rc;
}

/* ------------------------------------------------------------------------
 * Optional kernels
 * ---------------------------------------------------------------------- */

int tl_backend_gather(const tl_backend *be, const tl_strided *dst,
                      const tl_strided *src, int dim, const int64_t *index,
                      int64_t n_index, tl_error *err)
{
    launched(be);
    if (be->ops->gather)
        return be->ops->gather(be, dst, src, dim, index, n_index, err);
    const tl_backend *cpu = tl_backend_cpu();
    staged hs, hd;
    if (stage_down(be, src, true, &hs, err) < 0)
        return -1;
    if (stage_down(be, dst, false, &hd, err) < 0) {
        staged_free(be, &hs);
        return -1;
    }
    int rc = cpu->ops->gather(cpu, &hd.h, &hs.h, dim, index, n_index, err);
    staged_free(be, &hs);
    if (rc < 0) {
        staged_free(be, &hd);
        return -1;
    }
    return stage_up(be, dst, &hd, err);
}

/* the device-index entries have no host fallback */
static int no_device_index(const tl_backend *be, tl_error *err)
{
    return tl_error_set(err, TL_ERR_INTERNAL, "backend %s: no device indexing", be->name);
}

int tl_backend_index_offsets(const tl_backend *be, int64_t *out, int nidx,
                             const tl_adv_index *ix, int64_t *bad_pos,
                             int *bad_j, int64_t *bad_value, tl_error *err)
{
    if (!be->ops->index_offsets)
        return no_device_index(be, err);
    launched(be);
    return be->ops->index_offsets(be, out, nidx, ix, bad_pos, bad_j, bad_value, err);
}

int tl_backend_index_gather(const tl_backend *be, const tl_strided *dst,
                            const tl_strided *src, int dim, const int64_t *offs,
                            int64_t n, tl_error *err)
{
    if (!be->ops->index_gather)
        return no_device_index(be, err);
    launched(be);
    return be->ops->index_gather(be, dst, src, dim, offs, n, err);
}

int tl_backend_index_scatter(const tl_backend *be, tl_scatter_mode mode,
                             const tl_strided *dst, const tl_strided *src,
                             int dim, const int64_t *offs, int64_t n,
                             tl_error *err)
{
    if (!be->ops->index_scatter)
        return no_device_index(be, err);
    launched(be);
    return be->ops->index_scatter(be, mode, dst, src, dim, offs, n, err);
}

int tl_backend_scatter(const tl_backend *be, tl_scatter_mode mode,
                       const tl_strided *dst, const tl_strided *src, int dim,
                       const int64_t *index, int64_t n_index, tl_error *err)
{
    launched(be);
    if (be->ops->scatter)
        return be->ops->scatter(be, mode, dst, src, dim, index, n_index, err);
    const tl_backend *cpu = tl_backend_cpu();
    staged hs, hd;
    if (stage_down(be, src, true, &hs, err) < 0)
        return -1;
    if (stage_down(be, dst, true, &hd, err) < 0) {
        staged_free(be, &hs);
        return -1;
    }
    int rc = cpu->ops->scatter(cpu, mode, &hd.h, &hs.h, dim, index, n_index,
                               err);
    staged_free(be, &hs);
    if (rc < 0) {
        staged_free(be, &hd);
        return -1;
    }
    return stage_up(be, dst, &hd, err);
}

int tl_backend_sort(const tl_backend *be, const tl_strided *vals,
                    const tl_strided *idx, const tl_strided *src, int dim,
                    bool descending, int64_t k, tl_error *err)
{
    launched(be);
    if (be->ops->sort)
        return be->ops->sort(be, vals, idx, src, dim, descending, k, err);
    const tl_backend *cpu = tl_backend_cpu();
    staged hs, hv, hi;
    if (stage_down(be, src, true, &hs, err) < 0)
        return -1;
    if (stage_down(be, vals, false, &hv, err) < 0) {
        staged_free(be, &hs);
        return -1;
    }
    if (stage_down(be, idx, false, &hi, err) < 0) {
        staged_free(be, &hs);
        staged_free(be, &hv);
        return -1;
    }
    int rc = cpu->ops->sort(cpu, &hv.h, &hi.h, &hs.h, dim, descending, k, err);
    staged_free(be, &hs);
    if (rc < 0) {
        staged_free(be, &hv);
        staged_free(be, &hi);
        return -1;
    }
    rc = stage_up(be, vals, &hv, err);
    if (rc < 0) {
        staged_free(be, &hi);
        return -1;
    }
    return stage_up(be, idx, &hi, err);
}

int tl_backend_scan(const tl_backend *be, bool prod, const tl_strided *dst,
                    const tl_strided *src, int dim, tl_error *err)
{
    launched(be);
    if (be->ops->scan)
        return be->ops->scan(be, prod, dst, src, dim, err);
    /* host fallback: src staged down, the CPU's kernel, dst staged up
     * (dst may alias src: it is read from src's staged copy) */
    const tl_backend *cpu = tl_backend_cpu();
    staged hs, hd;
    if (stage_down(be, src, true, &hs, err) < 0)
        return -1;
    if (stage_down(be, dst, false, &hd, err) < 0) {
        staged_free(be, &hs);
        return -1;
    }
    int rc = cpu->ops->scan(cpu, prod, &hd.h, &hs.h, dim, err);
    staged_free(be, &hs);
    if (rc < 0) {
        staged_free(be, &hd);
        return -1;
    }
    return stage_up(be, dst, &hd, err);
}

/* ------------------------------------------------------------------------
 * Registry and resolver
 * ---------------------------------------------------------------------- */

int tl_backend_registry(const tl_backend **out, int cap)
{
    const tl_backend *all[3];
    int n = 0;
    all[n++] = tl_backend_cpu();
    all[n++] = tl_backend_cuda_emulated();
    const tl_backend *real = tl_backend_cuda();
    if (real)
        all[n++] = real;
    for (int i = 0; i < n && i < cap; i++)
        out[i] = all[i];
    return n;
}

const tl_backend *tl_backend_for(tl_device dev, tl_error *err)
{
    if (dev.kind == TL_DEV_CPU)
        return tl_backend_cpu();
    const tl_backend *be = tl_context_get()->cuda_backend;
    if (!be) {
        tl_error_set(err, TL_ERR_ASSERTION, "Torch not compiled with CUDA enabled");
        return NULL;
    }
    if (dev.index != be->device.index) {
        tl_error_set(err, TL_ERR_RUNTIME, "CUDA error: invalid device ordinal");
        return NULL;
    }
    return be;
}

/* ------------------------------------------------------------------------
 * The cross-device copy
 * ---------------------------------------------------------------------- */

/* The bytes of t when its elements fill [data, data + bytes) exactly once
 * (contiguous, or a permutation of contiguous: every dim of size > 1 has a
 * positive stride, and sorted by stride each is the product of the sizes
 * below it); 0 otherwise. */
static size_t dense_bytes(const tl_strided *t)
{
    int64_t sz[TL_MAX_DIMS], st[TL_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (t->sizes[d] == 1)
            continue;
        if (t->strides[d] <= 0)
            return 0;
        /* insertion by stride, smallest first */
        int i = n++;
        for (; i > 0 && st[i - 1] > t->strides[d]; i--) {
            sz[i] = sz[i - 1];
            st[i] = st[i - 1];
        }
        sz[i] = t->sizes[d];
        st[i] = t->strides[d];
    }
    int64_t expect = 1;
    for (int i = 0; i < n; i++) {
        if (st[i] != expect)
            return 0;
        expect *= sz[i];
    }
    return (size_t)expect * tl_dtype_size(t->dtype);
}

/* One transfer straight between dst and src when both are dense in the
 * same layout and of one dtype (review S4: .cuda() / .cpu() of a
 * contiguous tensor made a dense scratch on each side and ran a copy
 * kernel, three copies of the data). 1 when done, 0 when the layout does
 * not allow it or neither side is host memory (the general path then
 * runs), -1 on error. */
static int copy_between_dense(const tl_backend *dbe, const tl_strided *dst,
                              const tl_backend *sbe, const tl_strided *src,
                              tl_error *err)
{
    if (dst->dtype != src->dtype || dst->ndim != src->ndim)
        return 0;
    for (int d = 0; d < dst->ndim; d++)
        if (dst->sizes[d] != src->sizes[d] ||
            (dst->sizes[d] != 1 && dst->strides[d] != src->strides[d]))
            return 0;
    size_t bytes = dense_bytes(dst);
    if (bytes == 0)
        return 0;
    bool dh = tl_backend_host_accessible(dbe), sh = tl_backend_host_accessible(sbe);
    if (dh && !sh)
        return tl_backend_to_host(sbe, dst->data, src->data, bytes, err) < 0 ? -1 : 1;
    if (sh && !dh)
        return tl_backend_from_host(dbe, dst->data, src->data, bytes, err) < 0 ? -1 : 1;
    return 0;
}

int tl_backend_copy_between(const tl_backend *dbe, const tl_strided *dst,
                            const tl_backend *sbe, const tl_strided *src,
                            tl_error *err)
{
    if (dbe == sbe)
        return tl_backend_copy_strided(dbe, dst, src, err);
    if (numel_of(dst) == 0)
        return 0;
    int fast = copy_between_dense(dbe, dst, sbe, src, err);
    if (fast != 0)
        return fast < 0 ? -1 : 0;
    /* src -> dense block on the source device (src's dtype) -> one
     * transfer -> dense block on the destination device -> dst, the dtype
     * converted by the destination's kernel */
    tl_strided shape = {NULL, src->dtype, dst->ndim, dst->sizes, NULL};
    size_t bytes = (size_t)numel_of(dst) * tl_dtype_size(src->dtype);
    int64_t st1[TL_MAX_DIMS], st2[TL_MAX_DIMS];
    tl_strided c1 = {0}, c2 = {0};
    void *host = NULL;
    int rc = -1;
    if (dense_scratch(sbe, &shape, st1, &c1, err) < 0)
        goto out;
    if (tl_backend_copy_strided(sbe, &c1, src, err) < 0)
        goto out;
    if (dense_scratch(dbe, &shape, st2, &c2, err) < 0)
        goto out;
    /* the transfer is the device side's: .cpu() is a device->host copy of
     * the source backend, .cuda() a host->device copy of the destination */
    if (dbe->device.kind == TL_DEV_CPU ||
        (tl_backend_host_accessible(dbe) && !tl_backend_host_accessible(sbe))) {
        TL_ASSERT(tl_backend_host_accessible(dbe));
        if (tl_backend_to_host(sbe, c2.data, c1.data, bytes, err) < 0)
            goto out;
    } else if (tl_backend_host_accessible(sbe)) {
        if (tl_backend_from_host(dbe, c2.data, c1.data, bytes, err) < 0)
            goto out;
    } else {
        if (tl_backend_host_alloc(sbe, bytes, &host, err) < 0)
            goto out;
        if (tl_backend_to_host(sbe, host, c1.data, bytes, err) < 0 ||
            tl_backend_from_host(dbe, c2.data, host, bytes, err) < 0)
            goto out;
    }
    rc = tl_backend_copy_strided(dbe, dst, &c2, err);
out:
    tl_backend_host_free(sbe, host);
    tl_backend_free(sbe, c1.data);
    tl_backend_free(dbe, c2.data);
    return rc;
}
