/* tensor.c - the strided tensor header: construction, identity, layout
 * predicates, and element access.
 *
 * Conventions (see tensor.h): sizes[0] outermost, strides in elements,
 * offset in elements. Every view goes through tl_tensor_view, which shares
 * the storage object and the version counter of its source (never copies a
 * raw pointer), so view-vs-copy is a fact of construction: a view's storage
 * IS its parent's storage.
 *
 * The layout predicates on a tensor delegate to shape.c's on bare arrays,
 * which reproduce c10's exactly (is_contiguous with the numel-0 shortcut
 * and size-1 dims ignored; channels-last without that shortcut;
 * non-overlapping-and-dense; infer_dense_strides for the preserve_format
 * rule).
 */
#include "tensor.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "freelist.h"
#include "util.h"

/* ---- construction ---- */

/* live headers: the thread's count (context.h), see tl_tensor_live */

/* A new header (one reference, a leaf) with the given geometry; storage
 * and version are the caller's to set. */
/* freed headers (1 KiB each) are kept for reuse, per thread: a malloc of
 * that size would consolidate glibc's fast bins every time */
#define HEADER_CACHE 256
static _Thread_local tl_freelist headers;

static tl_tensor *header(int ndim, const int64_t *sizes, const int64_t *strides,
                         int64_t offset, tl_dtype dt)
{
    /* Every field is set here, and sizes/strides only up to ndim: the
     * 1 KiB of dims past it is never read (zeroing it was a quarter of
     * making a view). A field added to tl_tensor must be set here too. */
    tl_tensor *t = tl_freelist_pop(&headers);
    if (!t)
        t = tl_xmalloc(sizeof *t);
    tl_context_get()->live_headers++;
    /* headers share the memory ledger with storages (storage.h) */
    tl_alloc_objects_add((int64_t)tl_alloc_cost(t, sizeof *t));
    t->refcount = 1;
    t->ndim = ndim;
    if (ndim) {
        memcpy(t->sizes, sizes, sizeof(int64_t) * (size_t)ndim);
        memcpy(t->strides, strides, sizeof(int64_t) * (size_t)ndim);
    }
    t->offset = offset;
    t->dtype = dt;
    t->storage = NULL;
    t->version = NULL;
    t->requires_grad = false;
    t->is_leaf = true;
    t->is_view_of_grad_leaf = false;
    t->ag = NULL;
    t->names = NULL;
    return t;
}

int tl_tensor_check_shape(int ndim, const int64_t *sizes, int64_t *numel,
                          tl_error *err)
{
    if (ndim < 0 || ndim > TL_MAX_DIMS)
        return tl_error_set(err, TL_ERR_LIMIT,
                            "tensors may have at most %d dimensions, got %d",
                            TL_MAX_DIMS, ndim);
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] < 0) {
            char buf[64 * 24];
            tl_shape_format(buf, sizeof buf, ndim, sizes);
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "Trying to create tensor with negative "
                                "dimension %" PRId64 ": %s",
                                sizes[d], buf);
        }
    }
    if (!tl_shape_numel(ndim, sizes, numel)) {
        /* computeStorageNbytesContiguous: a product past int64 is
         * PyTorch's own error, before tlab's element limit */
        int64_t n = 1;
        for (int d = 0; d < ndim; d++)
            if (tl_mul_overflow(n, sizes[d], &n)) {
                char buf[64 * 24];
                tl_shape_format(buf, sizeof buf, ndim, sizes);
                return tl_error_set(err, TL_ERR_RUNTIME,
                                    "Storage size calculation overflowed with sizes=%s", buf);
            }
        return tl_error_set(err, TL_ERR_LIMIT,
                            "a tensor may have at most 2^31 elements "
                            "(tlab limit)");
    }
    return 0;
}

tl_tensor *tl_tensor_new(const tl_backend *be, tl_dtype dt, int ndim,
                         const int64_t *sizes, tl_error *err)
{
    int64_t strides[TL_MAX_DIMS];
    if (ndim < 0 || ndim > TL_MAX_DIMS) {
        tl_error_set(err, TL_ERR_LIMIT,
                     "tensors may have at most %d dimensions, got %d",
                     TL_MAX_DIMS, ndim);
        return NULL;
    }
    tl_shape_contiguous_strides(ndim, sizes, strides);
    return tl_tensor_new_strided(be, dt, ndim, sizes, strides, err);
}

static tl_tensor *new_strided(const tl_backend *be, tl_dtype dt, int ndim,
                              const int64_t *sizes, const int64_t *strides,
                              bool for_write, tl_error *err)
{
    int64_t numel;
    int64_t cst[TL_MAX_DIMS];
    if (ndim >= 0 && ndim <= TL_MAX_DIMS) {
        /* computeStorageNbytes(sizes, strides): for strides other than the
         * contiguous ones, an overflow names both lists */
        tl_shape_contiguous_strides(ndim, sizes, cst);
        bool empty = false, over = false;
        int64_t need = 1;
        for (int d = 0; d < ndim; d++)
            empty |= sizes[d] == 0;
        for (int d = 0; d < ndim && !empty && !over; d++) {
            int64_t term;
            over = sizes[d] < 0 || strides[d] < 0 ||
                   tl_mul_overflow(sizes[d] - 1, strides[d], &term) ||
                   tl_add_overflow(need, term, &need);
        }
        if (over && sizes[0] >= 0 && !tl_shape_equal(ndim, strides, ndim, cst)) {
            char a[64 * 24], b[64 * 24];
            tl_shape_format(a, sizeof a, ndim, sizes);
            tl_shape_format(b, sizeof b, ndim, strides);
            tl_error_set(err, TL_ERR_RUNTIME,
                         "Storage size calculation overflowed with sizes=%s and strides=%s", a, b);
            return NULL;
        }
    }
    if (tl_tensor_check_shape(ndim, sizes, &numel, err) < 0)
        return NULL;
    for (int d = 0; d < ndim; d++) {
        if (strides[d] < 0) {
            tl_error_set(err, TL_ERR_RUNTIME,
                         "as_strided: Negative strides are not supported at "
                         "the moment, got strides: [%" PRId64 "]",
                         strides[d]);
            return NULL;
        }
    }
    int64_t need = tl_tensor_required_bytes(ndim, sizes, strides, 0,
                                            tl_dtype_size(dt));
    if (need < 0) {
        tl_error_set(err, TL_ERR_LIMIT, "tensor storage size overflows");
        return NULL;
    }
    /* dense: the elements cover every byte of the storage */
    bool dense = for_write && numel > 0 &&
        need == numel * (int64_t)tl_dtype_size(dt);
    tl_storage *s = dense ? tl_storage_new_uninit(be, (size_t)need, err)
                          : tl_storage_new(be, (size_t)need, err);
    if (!s)
        return NULL;
    tl_tensor *t = header(ndim, sizes, strides, 0, dt);
    t->storage = s;
    t->version = tl_version_new();
    return t;
}

tl_tensor *tl_tensor_new_strided(const tl_backend *be, tl_dtype dt, int ndim,
                                 const int64_t *sizes, const int64_t *strides,
                                 tl_error *err)
{
    return new_strided(be, dt, ndim, sizes, strides, false, err);
}

tl_tensor *tl_tensor_new_for_write(const tl_backend *be, tl_dtype dt, int ndim,
                                   const int64_t *sizes, const int64_t *strides,
                                   tl_error *err)
{
    return new_strided(be, dt, ndim, sizes, strides, true, err);
}

tl_tensor *tl_tensor_view(const tl_tensor *src, int ndim, const int64_t *sizes,
                          const int64_t *strides, int64_t offset)
{
    TL_ASSERT(ndim >= 0 && ndim <= TL_MAX_DIMS);
    tl_tensor *t = header(ndim, sizes, strides, offset, src->dtype);
    t->storage = tl_storage_retain(src->storage);
    t->version = tl_version_retain(src->version);
    t->requires_grad = src->requires_grad;
    t->is_leaf = !src->requires_grad;
    t->is_view_of_grad_leaf =
        src->is_view_of_grad_leaf || (src->requires_grad && src->is_leaf);
    return t;
}

tl_tensor *tl_tensor_rebind(const tl_tensor *src, tl_storage *storage, tl_version *version)
{
    tl_tensor *t = header(src->ndim, src->sizes, src->strides, src->offset, src->dtype);
    t->storage = tl_storage_retain(storage);
    t->version = tl_version_retain(version);
    t->requires_grad = src->requires_grad;
    t->is_leaf = src->is_leaf;
    t->is_view_of_grad_leaf = src->is_view_of_grad_leaf;
    tl_tensor_copy_names(t, src);
    return t;
}

void tl_tensor_copy_names(tl_tensor *dst, const tl_tensor *src)
{
    free(dst->names);
    dst->names = NULL;
    if (!src->names || dst->ndim != src->ndim)
        return;
    size_t len = 0;
    for (int d = 0; d < src->ndim; d++)
        len += strlen(src->names + len) + 1;
    dst->names = tl_xmalloc(len);
    memcpy(dst->names, src->names, len);
}

tl_tensor *tl_tensor_alias(const tl_tensor *src)
{
    return tl_tensor_view(src, src->ndim, src->sizes, src->strides,
                          src->offset);
}

tl_tensor *tl_tensor_retain(tl_tensor *t)
{
    if (t)
        t->refcount++;
    return t;
}

static void (*ag_free)(tl_tensor *t);
static _Thread_local bool grad_disabled;

void tl_tensor_set_ag_free(void (*fn)(tl_tensor *t)) { ag_free = fn; }
bool tl_tensor_grad_mode(void) { return !grad_disabled; }
void tl_tensor_set_grad_mode(bool enabled) { grad_disabled = !enabled; }

void tl_tensor_release(tl_tensor *t)
{
    if (!t || --t->refcount > 0)
        return;
    if (t->ag && ag_free)
        ag_free(t);
    free(t->names);
    t->names = NULL;
    tl_storage_release(t->storage);
    tl_version_release(t->version);
    tl_alloc_objects_add(-(int64_t)tl_alloc_cost(t, sizeof *t));
    tl_freelist_push(&headers, t, HEADER_CACHE);
    tl_context_get()->live_headers--;
}

int64_t tl_tensor_live(void) { return tl_context_get()->live_headers; }

void tl_tensor_bump_version(tl_tensor *t) { t->version->value++; }

/* ---- queries ---- */

int64_t tl_tensor_numel(const tl_tensor *t)
{
    /* a zero-size dim makes 0 whatever the others (a (2**62, 0) tensor is
     * legal); a product past int64 (views are validated against
     * TL_MAX_NUMEL, so only a bug gets there) saturates */
    for (int d = 0; d < t->ndim; d++)
        if (t->sizes[d] == 0)
            return 0;
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        if (tl_mul_overflow(n, t->sizes[d], &n))
            return INT64_MAX;
    return n;
}

const tl_backend *tl_tensor_backend(const tl_tensor *t)
{
    return t->storage->backend;
}

tl_device tl_tensor_device(const tl_tensor *t) { return t->storage->device; }

/* The dims in `order` (innermost first) are densely packed; size-1 dims
 * may have any stride. */
void tl_tensor_preserve_strides(const tl_tensor *t, int64_t *strides)
{
    tl_shape_preserve_strides(t->ndim, t->sizes, t->strides, strides);
}

bool tl_tensor_is_contiguous(const tl_tensor *t)
{
    return tl_shape_is_contiguous(t->ndim, t->sizes, t->strides);
}

bool tl_tensor_is_channels_last(const tl_tensor *t)
{
    return tl_shape_is_channels_last(t->ndim, t->sizes, t->strides);
}

bool tl_tensor_is_channels_last_3d(const tl_tensor *t)
{
    return tl_shape_is_channels_last_3d(t->ndim, t->sizes, t->strides);
}

bool tl_tensor_is_non_overlapping_and_dense(const tl_tensor *t)
{
    return tl_shape_is_non_overlapping_and_dense(t->ndim, t->sizes, t->strides);
}

uintptr_t tl_tensor_data_ptr(const tl_tensor *t)
{
    if (tl_tensor_numel(t) == 0 || !t->storage->data)
        return 0;
    return (uintptr_t)t->storage->data +
           (uintptr_t)t->offset * tl_dtype_size(t->dtype);
}

void *tl_tensor_addr(const tl_tensor *t)
{
    if (!t->storage->data)
        return NULL;
    return (char *)t->storage->data +
           (size_t)t->offset * tl_dtype_size(t->dtype);
}

tl_strided tl_tensor_strided(const tl_tensor *t)
{
    tl_strided s;
    s.data = tl_tensor_addr(t);
    s.dtype = t->dtype;
    s.ndim = t->ndim;
    s.sizes = t->sizes;
    s.strides = t->strides;
    return s;
}

int64_t tl_tensor_required_bytes(int ndim, const int64_t *sizes,
                                 const int64_t *strides, int64_t offset,
                                 size_t itemsize)
{
    int64_t last = offset; /* index of the farthest element */
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] == 0)
            return 0;
    }
    for (int d = 0; d < ndim; d++) {
        int64_t step;
        if (tl_mul_overflow(sizes[d] - 1, strides[d], &step) ||
            tl_add_overflow(last, step, &last))
            return -1;
    }
    int64_t bytes;
    if (tl_add_overflow(last, 1, &last) ||
        tl_mul_overflow(last, (int64_t)itemsize, &bytes))
        return -1;
    return bytes;
}

/* ---- stride helpers ---- */

static int element_index(const tl_tensor *t, int64_t i, int64_t *elem,
                         tl_error *err)
{
    int64_t n = tl_tensor_numel(t);
    if (i < 0 || i >= n)
        return tl_error_set(err, TL_ERR_INDEX,
                            "element %" PRId64 " out of range for a tensor "
                            "of %" PRId64 " elements",
                            i, n);
    int64_t off = t->offset;
    for (int d = t->ndim - 1; d >= 0; d--) {
        int64_t sz = t->sizes[d];
        off += (i % sz) * t->strides[d];
        i /= sz;
    }
    *elem = off;
    return 0;
}

int tl_tensor_get_raw(const tl_tensor *t, int64_t i, void *out, tl_error *err)
{
    int64_t e;
    if (element_index(t, i, &e, err) < 0)
        return -1;
    size_t isz = tl_dtype_size(t->dtype);
    const tl_backend *be = tl_tensor_backend(t);
    return tl_backend_to_host(be, out, (char *)t->storage->data + (size_t)e * isz,
                              isz, err);
}

int tl_tensor_set_raw(tl_tensor *t, int64_t i, const void *in, tl_error *err)
{
    int64_t e;
    if (element_index(t, i, &e, err) < 0)
        return -1;
    size_t isz = tl_dtype_size(t->dtype);
    const tl_backend *be = tl_tensor_backend(t);
    return tl_backend_from_host(be, (char *)t->storage->data + (size_t)e * isz,
                                in, isz, err);
}

int tl_tensor_get_f64(const tl_tensor *t, int64_t i, double *out, tl_error *err)
{
    unsigned char buf[16];
    if (tl_tensor_get_raw(t, i, buf, err) < 0)
        return -1;
    *out = tl_dtype_load_f64(t->dtype, buf);
    return 0;
}

int tl_tensor_get_i64(const tl_tensor *t, int64_t i, int64_t *out, tl_error *err)
{
    unsigned char buf[16];
    if (tl_tensor_get_raw(t, i, buf, err) < 0)
        return -1;
    *out = tl_dtype_load_i64(t->dtype, buf);
    return 0;
}

int tl_tensor_set_f64(tl_tensor *t, int64_t i, double v, tl_error *err)
{
    unsigned char buf[16];
    tl_dtype_store_f64(t->dtype, buf, v);
    return tl_tensor_set_raw(t, i, buf, err);
}

int tl_tensor_set_i64(tl_tensor *t, int64_t i, int64_t v, tl_error *err)
{
    unsigned char buf[16];
    tl_dtype_store_i64(t->dtype, buf, v);
    return tl_tensor_set_raw(t, i, buf, err);
}

/* ------------------------------------------------------------------------
 * The one host read
 * ---------------------------------------------------------------------- */

int tl_tensor_read_host_bytes(const tl_tensor *t, void *dst, tl_error *err)
{
    int64_t n = tl_tensor_numel(t);
    if (n == 0)
        return 0;
    const tl_backend *be = tl_tensor_backend(t);
    size_t bytes = (size_t)n * tl_dtype_size(t->dtype);
    int64_t cst[TL_MAX_DIMS];
    tl_shape_contiguous_strides(t->ndim, t->sizes, cst);
    tl_strided src = tl_tensor_strided(t);
    if (tl_backend_host_accessible(be)) {
        /* host memory already: one strided copy by the host kernels */
        tl_strided d = {dst, t->dtype, t->ndim, t->sizes, cst};
        return tl_backend_copy_strided(tl_backend_cpu(), &d, &src, err);
    }
    if (tl_tensor_is_contiguous(t))
        return tl_backend_to_host(be, dst, tl_tensor_addr(t), bytes, err);
    void *dense;
    if (tl_backend_alloc(be, bytes, &dense, err) < 0)
        return -1;
    tl_strided d = {dense, t->dtype, t->ndim, t->sizes, cst};
    int rc = tl_backend_copy_strided(be, &d, &src, err);
    if (rc == 0)
        rc = tl_backend_to_host(be, dst, dense, bytes, err);
    tl_backend_free(be, dense);
    return rc;
}

tl_tensor *tl_tensor_read_host(const tl_tensor *t, tl_error *err)
{
    if (tl_backend_host_accessible(tl_tensor_backend(t)))
        return tl_tensor_retain((tl_tensor *)t);
    /* a scratch storage: the host image is not charged to the ledger */
    int64_t cst[TL_MAX_DIMS];
    tl_shape_contiguous_strides(t->ndim, t->sizes, cst);
    size_t bytes = (size_t)tl_tensor_numel(t) * tl_dtype_size(t->dtype);
    tl_storage *s = tl_storage_new_scratch(tl_backend_cpu(), bytes, err);
    if (!s)
        return NULL;
    tl_tensor *h = header(t->ndim, t->sizes, cst, 0, t->dtype);
    h->storage = s;
    h->version = tl_version_new();
    if (tl_tensor_read_host_bytes(t, h->storage->data, err) < 0) {
        tl_tensor_release(h);
        return NULL;
    }
    return h;
}
