/* repr.h - PyTorch's printing of
 * tensors (torch/_tensor_str.py of PyTorch 2.x, default print options:
 * precision 4, threshold 1000, edgeitems 3, linewidth 80), NumPy's of
 * arrays, PyTorch's of untyped storages.
 *
 * Ownership: everything appends to a caller's tl_buf; nothing is retained.
 */
#ifndef TL_REPR_H
#define TL_REPR_H

#include <stdbool.h>

#include "tensor.h"
#include "storage.h"
#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* repr(t) (== str(t)): "tensor([[0., 1.],\n        [2., 3.]])" */
void tl_repr_tensor(const tl_tensor *t, tl_buf *b);
/* NumPy: repr "array([1., 2.], dtype=float32)", str "[1. 2.]" */
void tl_repr_ndarray(const tl_tensor *t, bool as_repr, tl_buf *b);
/* str/repr of x.untyped_storage(): one byte per line, then
 * "[torch.storage.UntypedStorage(device=cpu) of size N]". At most
 * max_bytes bytes are listed (the rest elided with "..."). */
void tl_repr_storage(const tl_storage *s, tl_buf *b, size_t max_bytes);

/* torch.get_default_dtype() / set_default_dtype() of this thread (the
 * printer omits `dtype=` for it). */
tl_dtype tl_repr_default_dtype(void);
void tl_repr_set_default_dtype(tl_dtype dt);

#ifdef __cplusplus
}
#endif

#endif
