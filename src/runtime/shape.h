/* shape.h - shape and stride arithmetic on bare arrays (no tensors, no
 * data): the one place view code and copy code both take it from.
 *
 * infer size (one -1), computeStride (can this layout be viewed as that
 * shape?), broadcasting, dim wrapping, slice clamping, the diagonal
 * geometry and the odometer that walks a shape in row-major order. The
 * algorithms and error texts are ATen's (InferSize.h, TensorUtils.cpp
 * computeStride, ExpandUtils.cpp, WrapDimUtils.h, TensorShape.cpp).
 *
 * Pure functions: inputs are borrowed arrays, outputs are written to
 * caller-provided arrays; errors are values (-1 with err filled).
 */
#ifndef TL_SHAPE_H
#define TL_SHAPE_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest numel of one tensor (SPEC 7). */
#define TL_MAX_NUMEL ((int64_t)1 << 31)

/* A strided layout: sizes and strides (elements) of ndim dims, offset. */
typedef struct tl_geom {
    int ndim;
    int64_t sizes[TL_MAX_DIMS];
    int64_t strides[TL_MAX_DIMS];
    int64_t offset;
} tl_geom;

/* numel of a shape, false on overflow (in dim order, PyTorch's rule) or
 * > TL_MAX_NUMEL */
bool tl_shape_numel(int ndim, const int64_t *sizes, int64_t *numel);
/* numel saturating at INT64_MAX (0 as soon as a size is 0) */
int64_t tl_shape_numel_sat(int ndim, const int64_t *sizes);
/* Equal int64 arrays (shapes, strides) of na and nb entries. */
bool tl_shape_equal(int na, const int64_t *a, int nb, const int64_t *b);

/* Wrap dim into [0, ndim) with PyTorch's IndexError text:
 * "Dimension out of range (expected to be in range of [-n, n-1], but got d)".
 * ndim 0 is treated as 1 (scalars accept 0 and -1). */
int tl_shape_wrap_dim(int64_t dim, int ndim, int *out, tl_error *err);

/* infer_size: resolve one -1 in shape[0..n) against numel. Writes the
 * resolved shape into out (may alias shape). */
int tl_shape_infer_size(int n, const int64_t *shape, int64_t numel,
                        int64_t *out, tl_error *err);
/* The same in two steps, for callers with their own messages (unflatten):
 * the outcome code (TL_INFER_OK or why not; *bad gets a negative size),
 * then PyTorch's error for a code. */
enum { TL_INFER_OK, TL_INFER_TWO, TL_INFER_NEG, TL_INFER_AMBIG, TL_INFER_BAD };
int tl_shape_infer_code(int n, const int64_t *shape, int64_t numel,
                        int64_t *out, int64_t *bad);
int tl_shape_infer_raise(int code, int n, const int64_t *shape, int64_t numel,
                         int64_t bad, tl_error *err);
/* computeStride: strides for viewing (old sizes/strides) as new_sizes, or
 * false if impossible. */
bool tl_shape_compute_stride(int old_ndim, const int64_t *old_sizes,
                             const int64_t *old_strides, int new_ndim,
                             const int64_t *new_sizes, int64_t *new_strides);
/* Broadcast two shapes (the "size of tensor a" message); out holds
 * max(na, nb) entries; returns its length or -1. */
int tl_shape_broadcast(int na, const int64_t *a, int nb, const int64_t *b,
                       int64_t *out, tl_error *err);

/* Python slice semantics on a dim of `size` elements, step > 0: start/stop
 * are raw (negative counts from the end, out of range clamps; has_* false
 * means the default). *first gets the first index, *len the element count
 * of the slice. */
void tl_shape_slice(int64_t size, bool has_start, int64_t start,
                    bool has_stop, int64_t stop, int64_t step,
                    int64_t *first, int64_t *len);

/* diagonal(offset, d1, d2) of layout g, in place: d1 and d2 are removed
 * and a last dim of the diagonal's length appended (RuntimeError when they
 * are the same dim after wrapping). */
int tl_shape_diagonal(tl_geom *g, int64_t offset, int64_t d1, int64_t d2,
                      tl_error *err);

/* ---- stride orders (pure) ---- */
/* Layout predicates on bare sizes/strides (c10's rules; size-1 dims do
 * not count, numel 0 is contiguous). */
bool tl_shape_is_contiguous(int ndim, const int64_t *sizes,
                            const int64_t *strides);
bool tl_shape_is_channels_last(int ndim, const int64_t *sizes,
                               const int64_t *strides); /* 4-D rule */
bool tl_shape_is_channels_last_3d(int ndim, const int64_t *sizes,
                                  const int64_t *strides); /* 5-D rule */
bool tl_shape_is_non_overlapping_and_dense(int ndim, const int64_t *sizes,
                                           const int64_t *strides);
/* Row-major strides with the max(size, 1) rule. */
void tl_shape_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides);
/* channels_last (4-D) / channels_last_3d (5-D) strides, c10's products */
void tl_shape_channels_last_strides(int ndim, const int64_t *sizes, int64_t *strides);
/* PyTorch's preserve_format rule: keep the strides of a non-overlapping-
 * and-dense layout, else infer_dense_strides (same dim order, dense). */
void tl_shape_preserve_strides(int n, const int64_t *sizes,
                               const int64_t *strides, int64_t *out);
/* The strides TensorIterator gives an output it allocates over shape (nd
 * dims), for n >= 0 operands given at the iteration rank (sizes[k] and
 * strides[k] have nd entries; missing leading dims as size 1, stride 0).
 * same_shape is ATen's all_ops_same_shape_ (judged by the caller on the
 * operands' own shapes); it enables the fast setup: all contiguous ->
 * contiguous, all channels_last -> channels_last, all non-overlapping and
 * dense with equal strides -> those strides. Else compute_strides (a
 * broadcast dim has stride 0) and reorder_dimensions give the order of
 * dense strides; plain contiguous when the order is unchanged. */
void tl_shape_iter_strides(int nd, const int64_t *shape, int n,
                           const int64_t *const *sizes,
                           const int64_t *const *strides, bool same_shape,
                           int64_t *out);
/* "[2, 3]" style shape text for messages; buf must hold 32*ndim+3 bytes */
void tl_shape_format(char *buf, size_t cap, int ndim, const int64_t *sizes);

/* The odometer: advance the row-major multi-index idx[0..n) over sizes by
 * one element and, when strides is not NULL, keep the element offset *off
 * in step. Returns false once every index has wrapped (the walk is over;
 * idx is all zeros and *off back where it started). */
static inline bool tl_shape_next(int n, const int64_t *sizes, int64_t *idx,
                                 const int64_t *strides, int64_t *off)
{
    for (int d = n - 1; d >= 0; d--) {
        if (strides)
            *off += strides[d];
        if (++idx[d] < sizes[d])
            return true;
        if (strides)
            *off -= strides[d] * sizes[d];
        idx[d] = 0;
    }
    return false;
}

#ifdef __cplusplus
}
#endif

#endif
