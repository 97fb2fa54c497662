/* copy.c - copies between layouts, dtypes and devices: clone,
 * contiguous, to, copy_, fill_, narrow_copy, and the strided region
 * copies the other ops build on.
 *
 * Part of the ops family (ops.h is its public interface, ops_impl.h the
 * helpers its files share); see iter.c for the design every op follows:
 * kernels only through the backend, TensorIterator's dtype and layout
 * rules, PyTorch's order of in-place checks, C operands (tl_operand,
 * int64 dim lists, out-parameters) and never a Python value.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "create.h"
#include "matmul.h"
#include "ops.h"
#include "ops_impl.h"
#include "shape.h"

/* ===================================================================== */
/* copies                                                                 */
/* ===================================================================== */

/* dst <- src (src already broadcast to dst's shape through `sst` strides),
 * across devices when needed. No checks, no version bump. */
int tl_ops_copy_into(const tl_tensor *dst, const tl_tensor *src,
                     const int64_t *sst, tl_error *err)
{
    const tl_backend *dbe = tl_tensor_backend(dst);
    const tl_backend *sbe = tl_tensor_backend(src);
    int64_t n = tl_tensor_numel(dst);
    if (n == 0)
        return 0;
    tl_strided d = tl_ops_strided_of(dst);
    tl_strided s = tl_ops_strided_make(tl_tensor_addr(src), src->dtype, dst->ndim,
                                       dst->sizes, sst);
    return tl_backend_copy_between(dbe, &d, sbe, &s, err);
}

/* A fresh tensor on `be` with t's shape, dtype dt and strides st, holding
 * t's values. */
static tl_tensor *copy_new(const tl_tensor *t, const tl_backend *be,
                           tl_dtype dt, const int64_t *st, tl_error *err)
{
    tl_tensor *out = tl_tensor_new_for_write(be, dt, t->ndim, t->sizes, st, err);
    if (!out)
        return NULL;
    if (tl_ops_copy_into(out, t, t->strides, err) < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    tl_ops_grad_result(out, t->requires_grad);
    return out;
}

tl_tensor *tl_ops_clone(const tl_tensor *t, tl_memfmt fmt, tl_error *err)
{
    int64_t st[TL_MAX_DIMS];
    if (tl_ops_format_strides(t, fmt, st, err) < 0)
        return NULL;
    return copy_new(t, tl_tensor_backend(t), t->dtype, st, err);
}

static bool is_contiguous_fmt(const tl_tensor *t, tl_memfmt fmt)
{
    switch (fmt) {
    case TL_MEMFMT_CHANNELS_LAST:
        return tl_tensor_is_channels_last(t);
    case TL_MEMFMT_CHANNELS_LAST_3D:
        return tl_tensor_is_channels_last_3d(t);
    default:
        return tl_tensor_is_contiguous(t);
    }
}

tl_tensor *tl_ops_contiguous(tl_tensor *t, tl_memfmt fmt, tl_error *err)
{
    /* TensorImpl::is_contiguous(Preserve) is the default contiguity: a
     * contiguous tensor is returned before the Preserve check */
    if (is_contiguous_fmt(t, fmt))
        return tl_tensor_retain(t);
    if (fmt == TL_MEMFMT_PRESERVE) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "preserve memory format is unsupported by the contiguous operator");
        return NULL;
    }
    return tl_ops_clone(t, fmt, err);
}

tl_tensor *tl_ops_to(tl_tensor *t, const tl_backend *be, tl_dtype dt,
                     bool copy, tl_memfmt fmt, tl_error *err)
{
    if (!be)
        be = tl_tensor_backend(t);
    bool same_dev = tl_ops_same_device(tl_backend_device(be), tl_tensor_device(t));
    if (same_dev)
        be = tl_tensor_backend(t);
    if (same_dev && dt == t->dtype && !copy &&
        (fmt == TL_MEMFMT_PRESERVE || fmt == tl_ops_suggest_memory_format(t)))
        return tl_tensor_retain(t);
    int64_t st[TL_MAX_DIMS];
    if (tl_ops_format_strides(t, fmt, st, err) < 0)
        return NULL;
    return copy_new(t, be, dt, st, err);
}

/* copy_ after the leaf check: PyTorch's copy_impl. */
int tl_ops_copy_checked(tl_tensor *dst, const tl_tensor *src, tl_error *err)
{
    if (dst == src)
        return 0;
    if (tl_storage_same(dst->storage, src->storage) &&
        dst->storage == src->storage && dst->offset == src->offset &&
        dst->dtype == src->dtype &&
        tl_shape_equal(dst->ndim, dst->sizes, src->ndim, src->sizes) &&
        tl_shape_equal(dst->ndim, dst->strides, src->ndim, src->strides))
        return 0;
    if (tl_ops_assert_no_internal_overlap(dst, err) < 0)
        return -1;
    if (tl_ops_assert_no_partial_overlap(dst, src, err) < 0)
        return -1;
    int nd;
    int64_t shape[TL_MAX_DIMS];
    if (tl_ops_broadcast_pair(dst->ndim, dst->sizes, src->ndim, src->sizes, &nd,
                              shape, err) < 0)
        return -1;
    if (tl_ops_check_out_shape(dst, nd, shape, err) < 0)
        return -1;
    int64_t sst[TL_MAX_DIMS];
    tl_ops_broadcast_strides(src, dst->ndim, dst->sizes, sst);
    if (tl_ops_copy_into(dst, src, sst, err) < 0)
        return -1;
    tl_ops_grad_inplace(dst, src->requires_grad);
    return 0;
}

int tl_ops_copy_(tl_tensor *dst, const tl_tensor *src, tl_error *err)
{
    if (tl_ops_check_inplace_grad(dst, err) < 0)
        return -1;
    if (tl_ops_copy_checked(dst, src, err) < 0)
        return -1;
    tl_tensor_bump_version(dst);
    return 0;
}

int tl_ops_fill_(tl_tensor *dst, tl_scalar v, tl_error *err)
{
    if (tl_ops_check_inplace_grad(dst, err) < 0)
        return -1;
    /* Scalar::to<scalar_t>(): "value cannot be converted to type uint8_t
     * without overflow", empty or not */
    if (tl_create_check_scalar(dst->dtype, v, err) < 0)
        return -1;
    if (tl_tensor_numel(dst) > 0) {
        tl_strided d = tl_ops_strided_of(dst);
        if (tl_backend_fill(tl_tensor_backend(dst), &d, v, err) < 0)
            return -1;
    }
    tl_tensor_bump_version(dst);
    return 0;
}

/* 2.x's narrow_copy_dense_cpu_out: its own checks (a dim past the end is
 * a bare TORCH_CHECK, a negative length the "exceeds" error), and an
 * output resized from empty({0}), so contiguous whatever t's strides. */
tl_tensor *tl_ops_narrow_copy(const tl_tensor *t, int64_t dim, int64_t start,
                              int64_t length, tl_error *err)
{
    int d;
    if (t->ndim == 0) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "narrow() cannot be applied to a 0-dim tensor.");
        return NULL;
    }
    if (dim >= t->ndim) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.  "
                     "(Could this error message be improved?  If so, please report an enhancement "
                     "request to PyTorch.)");
        return NULL;
    }
    if (tl_shape_wrap_dim(dim, t->ndim, &d, err) < 0)
        return NULL;
    int64_t size = t->sizes[d];
    if (start < -size || start > size) {
        tl_error_set(err, TL_ERR_INDEX,
                     "start out of range (expected to be in range of [%lld, %lld], but got %lld)",
                     (long long)-size, (long long)size, (long long)start);
        return NULL;
    }
    if (start < 0)
        start += size;
    if (length < 0 || start > size - length) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "start (%lld) + length (%lld) exceeds dimension size (%lld).",
                     (long long)start, (long long)length, (long long)size);
        return NULL;
    }
    int64_t sz[TL_MAX_DIMS];
    memcpy(sz, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    sz[d] = length;
    tl_tensor *v = tl_tensor_view(t, t->ndim, sz, t->strides,
                                  t->offset + start * t->strides[d]);
    tl_tensor *out = tl_ops_clone(v, TL_MEMFMT_CONTIGUOUS, err);
    tl_tensor_release(v);
    return out;
}

const tl_backend *tl_ops_device_backend(const tl_tensor *like, tl_device dev,
                                        tl_error *err)
{
    if (like && tl_ops_same_device(tl_tensor_device(like), dev))
        return tl_tensor_backend(like);
    return tl_backend_for(dev, err);
}
