/* scatter.h - the scatter family (issue #27): index_fill_, index_copy_,
 * scatter_ (src or value, reduce add/multiply), scatter_add_,
 * masked_scatter_, put_.
 *
 * Every function writes x in place, bumps its version counter once (as
 * torch's kernels do) and raises torch's texts. Inputs are borrowed. The
 * out-of-place forms are the py layer's: a clone, then the in-place op.
 */
#ifndef TL_SCATTER_H
#define TL_SCATTER_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tl_scatter_reduce {
    TL_SCATTER_REDUCE_NONE, TL_SCATTER_REDUCE_ADD, TL_SCATTER_REDUCE_MUL
} tl_scatter_reduce;

/* index_fill_(dim, index, value): value is a number */
int tl_scatter_index_fill_(tl_tensor *x, int64_t dim, const tl_tensor *index,
                           const tl_scalar *value, tl_error *err);
/* index_copy_(dim, index, source) */
int tl_scatter_index_copy_(tl_tensor *x, int64_t dim, const tl_tensor *index,
                           const tl_tensor *source, tl_error *err);
/* scatter_(dim, index, src) when src is non-NULL, else scatter_(dim,
 * index, value); reduce as given (scatter_add_ is REDUCE_ADD with a src,
 * fname "scatter_add" only for messages that differ) */
int tl_scatter_scatter_(tl_tensor *x, int64_t dim, const tl_tensor *index,
                        const tl_tensor *src, const tl_scalar *value,
                        tl_scatter_reduce reduce, tl_error *err);
/* masked_scatter_(mask, source): mask broadcasts to x's shape */
int tl_scatter_masked_scatter_(tl_tensor *x, const tl_tensor *mask,
                               const tl_tensor *source, tl_error *err);
/* put_(index, source, accumulate): x read as if flattened */
int tl_scatter_put_(tl_tensor *x, const tl_tensor *index,
                    const tl_tensor *source, bool accumulate, tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
