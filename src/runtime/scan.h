/* scan.h - cumulative and interpolating ops (scan.c) and the sort
 * family's selections (sort.c): cumsum/cumprod, lerp, take_along_dim,
 * argsort, msort, kthvalue, with PyTorch's semantics (issue #27).
 *
 * Same conventions as ops.h: every function returning a tensor returns a
 * NEW reference with new storage; in-place functions write t's storage
 * and bump its version counter exactly once. Errors are PyTorch's texts.
 */
#ifndef TL_SCAN_H
#define TL_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cumsum (prod false) / cumprod (prod true) along dim; dtype NULL: int64
 * for integral and bool inputs, else self's dtype. Contiguous result. */
tl_tensor *tl_scan_cum(bool prod, const tl_tensor *t, int64_t dim,
                       const tl_dtype *dtype, tl_error *err);
/* cumsum_ / cumprod_: dtype (when given) must be t's dtype */
int tl_scan_cum_(bool prod, tl_tensor *t, int64_t dim, const tl_dtype *dtype,
                 tl_error *err);
/* lerp(self, end, weight): weight is the tensor wt, or the number w when
 * wt is NULL. self, end (and wt) of one floating dtype. */
tl_tensor *tl_scan_lerp(const tl_tensor *self, const tl_tensor *end,
                        const tl_tensor *wt, double w, tl_error *err);
int tl_scan_lerp_(tl_tensor *self, const tl_tensor *end, const tl_tensor *wt,
                  double w, tl_error *err);
/* take_along_dim(indices, dim): has_dim false is dim=None (both flattened
 * by view(-1)). */
tl_tensor *tl_scan_take_along_dim(const tl_tensor *t, const tl_tensor *idx,
                                  bool has_dim, int64_t dim, tl_error *err);

/* sort.c: argsort(dim, descending) (stable), msort() (sort(0)'s values),
 * kthvalue(k, dim, keepdim) -> (values, indices), contiguous. */
tl_tensor *tl_ops_argsort(const tl_tensor *t, int64_t dim, bool descending,
                          tl_error *err);
tl_tensor *tl_ops_msort(const tl_tensor *t, tl_error *err);
int tl_ops_kthvalue(const tl_tensor *t, int64_t k, int64_t dim, bool keepdim,
                    tl_tensor **values, tl_tensor **indices, tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
