/* view.h - view ops: new tensor headers over the same storage.
 *
 * Every function here follows PyTorch 2.x exactly (sizes, strides, storage
 * offset, error kinds and texts; see the reference sheet §2-§8). View ops
 * never allocate tensor data: they build headers with tl_tensor_view() /
 * tl_tensor_alias(). The only exceptions are reshape/flatten/ravel, which
 * fall back to a contiguous copy (tl_ops_*) when no view exists.
 *
 * Ownership: inputs are borrowed; every tensor returned is a NEW reference.
 * Functions taking a non-const tensor may return that very tensor (retained)
 * where PyTorch returns self (flatten(d, d), atleast_*d, mT on 0-d, ...).
 * On failure they return NULL (or -1) with err filled.
 */
#ifndef TL_VIEW_H
#define TL_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most pieces one split/chunk/tensor_split/unbind may return (a safety
 * limit; exceeding it is TL_ERR_LIMIT). */
#define TL_VIEW_MAX_PIECES 100000

/* A list of tensors returned by the split family (each a new reference). */
typedef struct tl_tensor_list {
    int64_t n;
    tl_tensor **items;
} tl_tensor_list;

void tl_tensor_list_free(tl_tensor_list *l); /* releases items, frees array */

/* ---- shape arithmetic (pure): shape.h; expand's needs the tensor ---- */

/* inferExpandGeometry (§6): sizes/strides of t expanded to target[0..n). */
int tl_view_expand_geometry(const tl_tensor *t, int n, const int64_t *target,
                            int64_t *sizes, int64_t *strides, tl_error *err);

/* ---- reshaping ---- */
tl_tensor *tl_view_view(const tl_tensor *t, int n, const int64_t *shape,
                        tl_error *err);
tl_tensor *tl_view_dtype(const tl_tensor *t, tl_dtype dt, tl_error *err);
/* view if computeStride succeeds, else a contiguous copy (never self) */
tl_tensor *tl_view_reshape(tl_tensor *t, int n, const int64_t *shape,
                           tl_error *err);
/* self when start == end after wrapping (ndim >= 1) */
tl_tensor *tl_view_flatten(tl_tensor *t, int64_t start, int64_t end,
                           tl_error *err);
tl_tensor *tl_view_ravel(tl_tensor *t, tl_error *err);
tl_tensor *tl_view_unflatten(const tl_tensor *t, int64_t dim, int n,
                             const int64_t *sizes, tl_error *err);

/* ---- dimension reordering ---- */
tl_tensor *tl_view_transpose(const tl_tensor *t, int64_t d0, int64_t d1,
                             tl_error *err);
/* t(): fname is "t" or "t_" (used in the >2-D message) */
tl_tensor *tl_view_t(const tl_tensor *t, const char *fname, tl_error *err);
tl_tensor *tl_view_T(const tl_tensor *t, tl_error *err); /* reverse dims */
/* mT / mH / adjoint(): which is "mT", "mH" or "adjoint()"; self on 0-d */
tl_tensor *tl_view_mT(tl_tensor *t, const char *which, tl_error *err);
tl_tensor *tl_view_H(tl_tensor *t, tl_error *err); /* self on 0-d */
tl_tensor *tl_view_permute(const tl_tensor *t, int n, const int64_t *dims,
                           tl_error *err);
tl_tensor *tl_view_movedim(const tl_tensor *t, int ns, const int64_t *src,
                           int nd, const int64_t *dst, tl_error *err);

/* ---- size-1 dims, broadcasting ---- */
/* n < 0: drop every size-1 dim; else the listed dims (2.x tuple rules) */
tl_tensor *tl_view_squeeze(const tl_tensor *t, int n, const int64_t *dims,
                           tl_error *err);
tl_tensor *tl_view_unsqueeze(const tl_tensor *t, int64_t dim, tl_error *err);
tl_tensor *tl_view_expand(const tl_tensor *t, int n, const int64_t *sizes,
                          tl_error *err);
/* atleast_1d/2d/3d (k = 1, 2, 3): self when ndim >= k */
tl_tensor *tl_view_atleast(tl_tensor *t, int k, tl_error *err);

/* ---- sub-ranges ---- */
tl_tensor *tl_view_select(const tl_tensor *t, int64_t dim, int64_t index,
                          tl_error *err);
tl_tensor *tl_view_narrow(const tl_tensor *t, int64_t dim, int64_t start,
                          int64_t length, tl_error *err);
/* Python slice semantics on dim (already wrapped, step > 0); start/stop
 * are raw (may be negative or out of range; has_* false means default). */
tl_tensor *tl_view_slice(const tl_tensor *t, int dim, bool has_start,
                         int64_t start, bool has_stop, int64_t stop,
                         int64_t step);
tl_tensor *tl_view_unfold(const tl_tensor *t, int64_t dim, int64_t size,
                          int64_t step, tl_error *err);
tl_tensor *tl_view_diagonal(const tl_tensor *t, int64_t offset, int64_t d1,
                            int64_t d2, tl_error *err);
/* has_offset false: keep t's storage offset */
tl_tensor *tl_view_as_strided(const tl_tensor *t, int n, const int64_t *sizes,
                              int nst, const int64_t *strides,
                              bool has_offset, int64_t offset, tl_error *err);

/* ---- split family (tuples of views) ---- */
int tl_view_split(const tl_tensor *t, int64_t size, int64_t dim,
                  tl_tensor_list *out, tl_error *err);
int tl_view_split_sizes(const tl_tensor *t, int n, const int64_t *sizes,
                        int64_t dim, tl_tensor_list *out, tl_error *err);
int tl_view_chunk(const tl_tensor *t, int64_t chunks, int64_t dim,
                  tl_tensor_list *out, tl_error *err);
int tl_view_tensor_split_n(const tl_tensor *t, int64_t sections, int64_t dim,
                           tl_tensor_list *out, tl_error *err);
int tl_view_tensor_split_idx(const tl_tensor *t, int n, const int64_t *idx,
                             int64_t dim, tl_tensor_list *out, tl_error *err);
int tl_view_unbind(const tl_tensor *t, int64_t dim, tl_tensor_list *out,
                   tl_error *err);

/* ---- aliases ---- */
/* detach(): new object, same storage and version counter, no grad */
tl_tensor *tl_view_detach(const tl_tensor *t);
/* .data: like detach() but with a fresh version counter */
tl_tensor *tl_view_data(const tl_tensor *t);

/* ---- metadata in place: copy src's metadata into dst (t_ etc.) ---- */
void tl_view_set_meta(tl_tensor *dst, const tl_tensor *src);
/* `dst.data = src` (torch's set_data): dst takes src's storage (retained),
 * dtype, shape, strides and offset; it keeps its own version counter and
 * autograd record. Names are dropped. */
void tl_view_set_data(tl_tensor *dst, const tl_tensor *src);
/* PyTorch's check_inplace: the leaf / view-of-leaf RuntimeErrors */
int tl_view_check_inplace(const tl_tensor *t, tl_error *err);

/* ---- storage-changing metadata ops ---- */
/* resize_(sizes, memory_format=): same sizes (and no format) change
 * nothing; else contiguous (or channels-last) strides, offset kept, and the
 * storage grows IN PLACE when too small (tl_storage_resize: every tensor
 * over it follows). No version bump, as PyTorch. */
int tl_view_resize_(tl_tensor *t, int n, const int64_t *sizes, bool has_fmt,
                    tl_memfmt fmt, tl_error *err);
/* set_(storage, offset, sizes, strides): t now aliases s with that
 * metadata (s grows when too small, as PyTorch's set_ does); version +1. */
int tl_view_set_(tl_tensor *t, tl_storage *s, int64_t offset, int n,
                 const int64_t *sizes, const int64_t *strides, tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
