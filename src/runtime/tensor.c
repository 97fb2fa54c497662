/* tensor.c - the strided tensor header: construction, identity, layout
 * predicates, and element access.
 *
 * Conventions (see tensor.h): sizes[0] outermost, strides in elements,
 * offset in elements. Every view goes through tl_tensor_view, which shares
 * the storage object and the version counter of its source (never copies a
 * raw pointer), so view-vs-copy is a fact of construction: a view's storage
 * IS its parent's storage.
 *
 * The layout predicates reproduce c10's exactly (is_contiguous with the
 * numel-0 shortcut and size-1 dims ignored; channels-last without that
 * shortcut; non-overlapping-and-dense; infer_dense_strides for the
 * preserve_format rule).
 */
#include "tensor.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ---- construction ---- */

/* live headers: the thread's count (context.h), see tl_tensor_live */

/* A new header (one reference, a leaf) with the given geometry; storage
 * and version are the caller's to set. */
static tl_tensor *header(int ndim, const int64_t *sizes, const int64_t *strides,
                         int64_t offset, tl_dtype dt)
{
    tl_tensor *t = tl_xcalloc(1, sizeof *t);
    tl_context_get()->live_headers++;
    t->refcount = 1;
    t->is_leaf = true;
    t->ndim = ndim;
    if (ndim) {
        memcpy(t->sizes, sizes, sizeof(int64_t) * (size_t)ndim);
        memcpy(t->strides, strides, sizeof(int64_t) * (size_t)ndim);
    }
    t->offset = offset;
    t->dtype = dt;
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
            tl_format_shape(buf, sizeof buf, ndim, sizes);
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "Trying to create tensor with negative "
                                "dimension %" PRId64 ": %s",
                                sizes[d], buf);
        }
    }
    if (!tl_shape_numel(ndim, sizes, numel))
        return tl_error_set(err, TL_ERR_LIMIT,
                            "a tensor may have at most 2^31 elements "
                            "(tlab limit)");
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
    tl_contiguous_strides(ndim, sizes, strides);
    return tl_tensor_new_strided(be, dt, ndim, sizes, strides, err);
}

tl_tensor *tl_tensor_new_strided(const tl_backend *be, tl_dtype dt, int ndim,
                                 const int64_t *sizes, const int64_t *strides,
                                 tl_error *err)
{
    int64_t numel;
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
    tl_storage *s = tl_storage_new(be, (size_t)need, err);
    if (!s)
        return NULL;
    tl_tensor *t = header(ndim, sizes, strides, 0, dt);
    t->storage = s;
    t->version = tl_version_new();
    return t;
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

void tl_tensor_release(tl_tensor *t)
{
    if (!t || --t->refcount > 0)
        return;
    tl_storage_release(t->storage);
    tl_version_release(t->version);
    free(t);
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
static bool dense_in_order(const int64_t *sizes, const int64_t *strides,
                           const int *order, int n)
{
    uint64_t expected = 1; /* wrapping, as the strides were made */
    for (int i = 0; i < n; i++) {
        int d = order[i];
        if (sizes[d] == 1)
            continue;
        if ((uint64_t)strides[d] != expected)
            return false;
        expected *= (uint64_t)sizes[d];
    }
    return true;
}

bool tl_strides_contiguous(int ndim, const int64_t *sizes,
                           const int64_t *strides)
{
    int order[TL_MAX_DIMS];
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] == 0)
            return true;
        order[i] = ndim - 1 - i;
    }
    return dense_in_order(sizes, strides, order, ndim);
}

bool tl_strides_channels_last(int ndim, const int64_t *sizes,
                              const int64_t *strides)
{
    static const int order[4] = {1, 3, 2, 0};
    return ndim == 4 && dense_in_order(sizes, strides, order, 4);
}

bool tl_strides_non_overlapping_and_dense(int n, const int64_t *sizes,
                                          const int64_t *strides)
{
    static const int order3d[5] = {1, 4, 3, 2, 0};
    if (tl_strides_contiguous(n, sizes, strides) ||
        tl_strides_channels_last(n, sizes, strides) ||
        (n == 5 && dense_in_order(sizes, strides, order3d, 5)))
        return true;
    if (n == 1)
        return sizes[0] < 2 || strides[0] == 1;
    int perm[TL_MAX_DIMS];
    for (int i = 0; i < n; i++)
        perm[i] = i;
    /* sort by stride, dims of size < 2 last (stable insertion sort) */
    for (int i = 1; i < n; i++) {
        for (int j = i; j > 0; j--) {
            int a = perm[j - 1], b = perm[j];
            bool b_before_a;
            if (sizes[b] < 2)
                b_before_a = false;
            else if (sizes[a] < 2)
                b_before_a = true;
            else
                b_before_a = strides[b] < strides[a];
            if (!b_before_a)
                break;
            perm[j - 1] = b;
            perm[j] = a;
        }
    }
    uint64_t require = 1; /* wrapping, as the strides were made */
    for (int i = 0; i < n; i++) {
        int64_t size = sizes[perm[i]];
        if (size < 2)
            return true;
        if ((uint64_t)strides[perm[i]] != require)
            return false;
        require *= (uint64_t)size;
    }
    return true;
}

bool tl_tensor_is_contiguous(const tl_tensor *t)
{
    return tl_strides_contiguous(t->ndim, t->sizes, t->strides);
}

bool tl_tensor_is_channels_last(const tl_tensor *t)
{
    return tl_strides_channels_last(t->ndim, t->sizes, t->strides);
}

bool tl_tensor_is_channels_last_3d(const tl_tensor *t)
{
    static const int order[5] = {1, 4, 3, 2, 0};
    return t->ndim == 5 && dense_in_order(t->sizes, t->strides, order, 5);
}

bool tl_tensor_is_non_overlapping_and_dense(const tl_tensor *t)
{
    return tl_strides_non_overlapping_and_dense(t->ndim, t->sizes, t->strides);
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

void tl_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides)
{
    /* PyTorch multiplies in wrapping 64-bit arithmetic: a zero-element
     * tensor of shape (0, 2**62, 2**62) has strides (0, 2**62, 1) */
    uint64_t run = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = (int64_t)run;
        run *= sizes[d] > 1 ? (uint64_t)sizes[d] : 1;
    }
}

/* c10::get_channels_last_strides_2d/_3d: plain products in the order
 * C, W, H, N (C, W, H, D, N for 5-D), with no max(size, 1), so a zero size
 * zeroes the strides outside it: (2,3,0,2) -> (0,1,6,3). Other ranks get
 * contiguous strides. */
void tl_channels_last_strides(int ndim, const int64_t *sizes, int64_t *strides)
{
    static const int order4[4] = {1, 3, 2, 0};
    static const int order5[5] = {1, 4, 3, 2, 0};
    const int *order = ndim == 4 ? order4 : ndim == 5 ? order5 : NULL;
    if (!order) {
        tl_contiguous_strides(ndim, sizes, strides);
        return;
    }
    uint64_t run = 1; /* sizes are validated; unsigned keeps overflow defined */
    for (int i = 0; i < ndim; i++) {
        int d = order[i];
        strides[d] = (int64_t)run;
        run *= (uint64_t)sizes[d];
    }
}

/* Operand k's stride along dim d of an iteration over shape: 0 where it
 * is broadcast (ATen's compute_strides). */
static int64_t iter_stride(const int64_t *shape, const int64_t *const *sizes,
                           const int64_t *const *strides, int k, int d)
{
    return sizes[k][d] == 1 && shape[d] != 1 ? 0 : strides[k][d];
}

/* ATen's reorder_dimensions (TensorIterator) and infer_dense_strides: perm
 * lists the dims innermost first, by the operands' strides (a broadcast
 * dim of an operand leaves the decision to the next operand; equal strides
 * put the smaller size first), starting from the reversed order and
 * moving a dim only past ones it must precede (a stable insertion sort). */
static void reorder_dims(int nd, const int64_t *shape, int n,
                         const int64_t *const *sizes,
                         const int64_t *const *strides, int *perm)
{
    for (int i = 0; i < nd; i++)
        perm[i] = nd - 1 - i;
    for (int i = 1; i < nd; i++) {
        int dim1 = i;
        for (int dim0 = i - 1; dim0 >= 0; dim0--) {
            int a = perm[dim0], b = perm[dim1], cmp = 0;
            for (int k = 0; k < n; k++) {
                int64_t s0 = iter_stride(shape, sizes, strides, k, a);
                int64_t s1 = iter_stride(shape, sizes, strides, k, b);
                if (s0 == 0 || s1 == 0)
                    continue;
                if (s0 != s1) {
                    cmp = s0 < s1 ? -1 : 1;
                    break;
                }
                if (shape[a] > shape[b]) {
                    cmp = 1;
                    break;
                }
            }
            if (cmp > 0) {
                perm[dim0] = b;
                perm[dim1] = a;
                dim1 = dim0;
            } else if (cmp < 0) {
                break;
            }
        }
    }
}

void tl_preserve_strides(const tl_tensor *t, int64_t *strides)
{
    int n = t->ndim;
    if (tl_tensor_is_non_overlapping_and_dense(t)) {
        if (n)
            memcpy(strides, t->strides, sizeof(int64_t) * (size_t)n);
        return;
    }
    /* infer_dense_strides: keep the dimension order, make it dense */
    const int64_t *sizes = t->sizes, *tstrides = t->strides;
    int perm[TL_MAX_DIMS];
    reorder_dims(n, t->sizes, 1, &sizes, &tstrides, perm);
    uint64_t cur = 1; /* wrapping, as in tl_contiguous_strides */
    for (int i = 0; i < n; i++) {
        int d = perm[i];
        strides[d] = (int64_t)cur;
        if (t->sizes[d] > 1)
            cur *= (uint64_t)t->sizes[d];
    }
}

void tl_iter_strides(int nd, const int64_t *shape, int n,
                     const int64_t *const *sizes,
                     const int64_t *const *strides, bool same_shape,
                     int64_t *out)
{
    if (same_shape) {
        bool c = true, cl = true, nod = true, same = true;
        for (int k = 0; k < n; k++) {
            c = c && tl_strides_contiguous(nd, sizes[k], strides[k]);
            cl = cl && tl_strides_channels_last(nd, sizes[k], strides[k]);
            nod = nod && tl_strides_non_overlapping_and_dense(nd, sizes[k],
                                                              strides[k]);
            same = same && tl_shape_equal(nd, strides[k], nd, strides[0]);
        }
        if (c) {
            tl_contiguous_strides(nd, shape, out);
            return;
        }
        if (cl) {
            tl_channels_last_strides(nd, shape, out);
            return;
        }
        if (nod && same) {
            memcpy(out, strides[n - 1], sizeof(int64_t) * (size_t)nd);
            return;
        }
    }
    int perm[TL_MAX_DIMS];
    reorder_dims(nd, shape, n, sizes, strides, perm);
    bool inverted = true;
    for (int j = 0; j < nd; j++)
        if (perm[j] != nd - 1 - j)
            inverted = false;
    if (inverted) {
        tl_contiguous_strides(nd, shape, out);
        return;
    }
    int64_t next = 1; /* no max(size, 1) here, as in ATen */
    for (int j = 0; j < nd; j++) {
        out[perm[j]] = next;
        next *= shape[perm[j]];
    }
}

/* ---- element access ---- */

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

void tl_format_shape(char *buf, size_t cap, int ndim, const int64_t *sizes)
{
    size_t n = 0;
    if (cap == 0)
        return;
    n += (size_t)snprintf(buf + n, cap - n, "[");
    for (int d = 0; d < ndim && n < cap; d++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%" PRId64, d ? ", " : "",
                              sizes[d]);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
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
    tl_contiguous_strides(t->ndim, t->sizes, cst);
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
    tl_tensor *h = tl_tensor_new(tl_backend_cpu(), t->dtype, t->ndim, t->sizes,
                                 err);
    if (!h)
        return NULL;
    if (tl_tensor_read_host_bytes(t, h->storage->data, err) < 0) {
        tl_tensor_release(h);
        return NULL;
    }
    return h;
}
