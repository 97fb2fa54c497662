/* index.h - subscripts: x[idx] and x[idx] = v, for tensors and ndarrays.
 *
 * Basic indexing (ints, slices with step > 0, None, Ellipsis, 0-d integer
 * tensors) only writes metadata and returns a view. Advanced indexing (int
 * lists, long/bool/uint8 tensors, True/False) gathers into a new tensor with
 * PyTorch's dimension placement. Assignment always writes the source
 * storage and bumps its version counter once.
 *
 * Ownership: tl_index_get returns a new reference; both borrow their inputs.
 * Non-tensor containers (lists, tuples, strings) are indexed by the
 * interpreter itself, not here.
 */
#ifndef TL_INDEX_H
#define TL_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "tensor.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* obj is a TL_V_TENSOR or TL_V_NDARRAY. */
tl_value *tl_index_get(tl_value *obj, tl_value *index, tl_error *err);
int tl_index_set(tl_value *obj, tl_value *index, tl_value *v, tl_error *err);

/* ---- gathers as functions (index.c; each returns a NEW tensor) ---- */
/* index_select(dim, index): index is a 0-d/1-D int32/int64 tensor */
tl_tensor *tl_index_select(const tl_tensor *t, int64_t dim,
                           const tl_tensor *index, tl_error *err);
/* gather(dim, index) */
tl_tensor *tl_index_gather(const tl_tensor *t, int64_t dim,
                           const tl_tensor *index, tl_error *err);
/* take(index): t read as if flattened */
tl_tensor *tl_index_take(const tl_tensor *t, const tl_tensor *index,
                         tl_error *err);
/* masked_select(mask) */
tl_tensor *tl_index_masked_select(const tl_tensor *t, const tl_tensor *mask,
                                  tl_error *err);
/* nonzero(): (N, ndim) int64 with strides (1, N), as PyTorch */
tl_tensor *tl_index_nonzero(const tl_tensor *t, tl_error *err);
/* index_put_(indices, values, accumulate): indices holds tensors or None
 * (a full slice); writes obj's storage and bumps its version once. */
int tl_index_put_(tl_value *obj, const tl_value *indices, tl_tensor *values,
                  bool accumulate, tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
