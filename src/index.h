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

#include "err.h"
#include "value.h"

/* obj is a TL_V_TENSOR or TL_V_NDARRAY. */
tl_value *tl_index_get(tl_value *obj, tl_value *index, tl_error *err);
int tl_index_set(tl_value *obj, tl_value *index, tl_value *v, tl_error *err);

#endif
