/* sparse.h - sparse COO tensors and torch's layouts (torch.strided,
 * torch.sparse_coo) as host objects of the interpreter (value.h
 * TL_V_OBJECT).
 *
 * A sparse COO tensor stores coordinates: an int64 indices tensor
 * [sparse_dim, nnz] and a values tensor [nnz, dense dims...], plus its
 * size and whether it is coalesced. torch.sparse_coo_tensor keeps the
 * tensors it is given (int64 indices, values of the asked dtype: no copy,
 * as PyTorch); coalesce() and to_dense() make new tensors. Only the
 * queries and conversions a lesson on "stores coordinates" needs are
 * there; any other Tensor method raises PyTorch's error for the
 * SparseCPU backend rather than run on the wrong layout.
 */
#ifndef TL_SPARSE_H
#define TL_SPARSE_H

#include <stdbool.h>

#include "bind.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* torch.sparse_coo (true) or torch.strided (false): a new reference */
tl_value *tl_sparse_layout(bool sparse);
/* true when v is a sparse COO tensor */
bool tl_sparse_is(const tl_value *v);

/* bindings: torch.sparse_coo_tensor; on dense tensors .is_sparse,
 * .layout, .to_sparse() (registered in bind.c) */
extern const tl_bind_table tl_bind_sparse_tables[];

#ifdef __cplusplus
}
#endif

#endif
