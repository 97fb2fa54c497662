/* matmul.h - torch.matmul / mm / bmm over strided tensors (PyTorch 2.x's
 * _matmul_impl: dot, mv, mm, the folded and the broadcast-batched paths,
 * with each path's checks and error texts).
 *
 * Ownership: inputs are borrowed; the result is a NEW contiguous tensor on
 * a's backend, or NULL with err filled. Nothing but the result is allocated
 * as tensor storage (bytes_allocated of a product is its result's bytes);
 * scratch is bounded by the live-storage limit. Gradient flags are the
 * caller's (tl_ops_matmul).
 */
#ifndef TL_MATMUL_H
#define TL_MATMUL_H

#include <stdbool.h>

#include "err.h"
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* a @ b; mm_only: Tensor.mm (both must be matrices); bmm_only: Tensor.bmm
 * (both must be 3-D). */
tl_tensor *tl_matmul(const tl_tensor *a, const tl_tensor *b, bool mm_only, bool bmm_only,
                     tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
