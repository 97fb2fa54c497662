/* numpy.h - the NumPy side of the op language: ndarray values, x.numpy(),
 * torch.from_numpy / as_tensor / asarray, np.array / asarray / arange /
 * zeros / ones / shares_memory / may_share_memory, and ndarray attributes.
 *
 * An ndarray is a TL_V_NDARRAY value whose tl_tensor header holds sizes,
 * strides (in ELEMENTS internally, like tensors) and offset over a storage;
 * `a.strides` reports bytes. x.numpy() shares x's storage object; a tensor
 * made by torch.from_numpy(a) gets a NEW storage object that borrows the
 * memory (tl_storage_borrow), as PyTorch does.
 *
 * Ownership: functions return new references; inputs are borrowed.
 */
#ifndef TL_NUMPY_H
#define TL_NUMPY_H

#include <stdbool.h>

#include "bind.h"
#include "err.h"
#include "tensor.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* x.numpy(): TypeError for non-CPU tensors and bfloat16, RuntimeError for
 * tensors that require grad (reference sheet 12). force=true copies to
 * the CPU and drops grad instead of failing. */
tl_value *tl_numpy_from_tensor(const tl_tensor *t, bool force, tl_error *err);
/* torch.from_numpy(a): a tensor on a new storage object borrowing the
 * bytes of a's memory from its first to its last reachable element (same
 * sizes and strides, offset 0, fresh version counter); a numel-0 array
 * gets a zero-byte storage of its own. ValueError for negative strides. */
tl_tensor *tl_numpy_to_tensor(const tl_tensor *arr, tl_error *err);
/* Do the byte ranges touched by a and b intersect? exact=false compares
 * the bounding extents (np.may_share_memory); exact=true checks elements
 * (np.shares_memory) when that is cheap enough, else falls back to bounds.
 * numel-0 operands share nothing. */
bool tl_numpy_overlap(const tl_tensor *a, const tl_tensor *b, bool exact);

/* Binding tables (listed by bind_create.c). */
extern const tl_binding tl_numpy_np_bindings[];      /* TL_BIND_NUMPY */
extern const tl_binding tl_numpy_ndarray_bindings[]; /* TL_BIND_NDARRAY */
extern const tl_binding tl_numpy_torch_bindings[];   /* TL_BIND_TORCH */
extern const tl_binding tl_numpy_method_bindings[];  /* TL_BIND_METHOD */

#ifdef __cplusplus
}
#endif

#endif
