/* index.h - subscripts: x[idx] and x[idx] = v, for tensors and ndarrays.
 *
 * Basic indexing (ints, slices with step > 0, None, Ellipsis, 0-d integer
 * tensors) only writes metadata and returns a view. Advanced indexing (int
 * lists, long/bool/uint8 tensors, True/False) gathers into a new tensor with
 * PyTorch's dimension placement. Assignment always writes the source
 * storage and bumps its version counter once.
 *
 * The interface speaks C: a subscript arrives parsed into a tl_index (an
 * array of items: ints, slices, None, Ellipsis, bools, index tensors) by
 * the py layer (py/index_parse.c parses Python subscripts and converts
 * the assigned value); results are tensors through out-parameters.
 *
 * Ownership: results are new references; inputs are borrowed (a tl_index
 * owns the tensors of its items: tl_index_free releases them).
 * Non-tensor containers (lists, tuples, strings) are indexed by the
 * py layer itself (pyops.c), not here.
 */
#ifndef TL_INDEX_H
#define TL_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Host-side index material is bounded (it is not charged to the ledger):
 * more elements than this is a TL_ERR_LIMIT (tl_index_limit_error). */
#define TL_INDEX_MAX_ELEMS ((int64_t)1 << 26)
int tl_index_limit_error(tl_error *err);
/* The tl_adv_index list of one index for tl_backend_index_offsets: idx *
 * stride, bounds [-size, size) (wrap) or [0, size), plus the element's
 * coordinates . coord_strides when given (gather, scatter). Fills ix[0..1];
 * returns the entries used (1 or 2). idx is borrowed. */
int tl_index_adv_one(tl_adv_index ix[2], tl_strided idx, int64_t size, int64_t stride,
                     bool wrap, const int64_t *coord_strides);
/* NumPy's IndexError for an index of the wrong type. */
int tl_index_np_type_error(tl_error *err);

typedef enum tl_index_kind {
    TL_INDEX_INT, TL_INDEX_SLICE, TL_INDEX_NONE, TL_INDEX_ELLIPSIS,
    TL_INDEX_BOOL, TL_INDEX_TENSOR
} tl_index_kind;

/* One subscript item. */
typedef struct tl_index_item {
    tl_index_kind kind;
    int64_t i;             /* INT value, BOOL value (0/1) */
    bool has_start, has_stop, has_step; /* SLICE: which bounds were given */
    int64_t start, stop, step;
    bool bad_slice;        /* SLICE: a bound that is no integer (its
                              TypeError is raised when the slice applies) */
    tl_tensor *t;          /* TENSOR: owned by the tl_index */
} tl_index_item;

/* A parsed subscript: x[a, b] has two items; single means the subscript
 * was one value, not a tuple (x[1], x[1:], x[True] take PyTorch's fast
 * paths). */
typedef struct tl_index {
    int n;
    tl_index_item *items; /* owned (tl_index_free) */
    bool single;
} tl_index;
void tl_index_free(tl_index *ix);

/* x[ix] for a tensor (np false) or an ndarray header (np true, NumPy's
 * rules): *out a view or a gathered copy. *scalar is set when NumPy gives a
 * scalar (an integer-only index): *out is then the 0-d view holding it. */
int tl_index_get(tl_tensor *x, bool np, const tl_index *ix, tl_tensor **out,
                 bool *scalar, tl_error *err);
/* x[ix] = value: the tensor vt, or the number *v when vt is NULL. */
int tl_index_set(tl_tensor *x, bool np, const tl_index *ix, tl_tensor *vt,
                 const tl_scalar *v, tl_error *err);

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
/* index_put_(indices, values, accumulate): indices[0..m) are tensors or
 * NULL (None: a full slice); writes x's storage and bumps its version
 * once. */
int tl_index_put_(tl_tensor *x, tl_tensor *const *indices, size_t m,
                  tl_tensor *values, bool accumulate, tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
