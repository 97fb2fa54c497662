/* numpy.h - NumPy buffer interop on tensor headers: x.numpy(),
 * torch.from_numpy, NumPy's memory orders and contiguity, and overlap
 * (np.shares_memory). The Python side (ndarray values, np.* functions,
 * ndarray attributes) is py/bind_numpy.h.
 *
 * An ndarray is a tl_tensor header (in a TL_V_NDARRAY value) holding sizes,
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

#include "err.h"
#include "ops.h"
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* x.numpy(): TypeError for non-CPU tensors and bfloat16, RuntimeError for
 * tensors that require grad (reference sheet 12). force=true copies to
 * the CPU and drops grad instead of failing. */
tl_tensor *tl_numpy_from_tensor(const tl_tensor *t, bool force, tl_error *err);
/* Those checks alone (np.asarray(tensor) applies them too). */
int tl_numpy_check(const tl_tensor *t, bool force, tl_error *err);
/* An array's header flags: no grad, a leaf, not a view of a grad leaf. */
void tl_numpy_plain_header(tl_tensor *a);
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

/* The store of an in-place ufunc (n += v, n *= v ...): r, the result of
 * `dst OP v` under NumPy's rules (a fresh array, so overlapping operands
 * are already read), is written into dst. NumPy's checks first: r's shape
 * must be dst's (ValueError "non-broadcastable output operand ...") and r's
 * dtype must cast to dst's under casting='same_kind' (TypeError "Cannot
 * cast ufunc 'UFUNC' output ..."). The write never bumps dst's _version. */
/* A 0-d array of dtype dt holding the Python number sc as NumPy stores it
 * in `n[i] = sc`: integers wrap, float overflow is inf, never an error. */
tl_tensor *tl_numpy_scalar_as(tl_dtype dt, tl_scalar sc, tl_error *err);

/* np.result_type of two NumPy scalar types (NumPy 1.24, no value-based
 * casting between scalars: a Python int is int64, a float float64):
 * float32 + int64 is float64, uint8 + int8 int16, bool + x x. */
tl_dtype tl_numpy_promote(tl_dtype a, tl_dtype b);
/* np.result_type of the operands of a ufunc (NumPy 1.24): arrays promote
 * by np.promote_types; numbers and 0-d arrays count by value
 * (np.min_scalar_type) when an array is of their kind or higher (int8
 * array + 300 is int16, float32 array + 1.5 float32, int8 array + 1.5
 * float64), else by type (a Python int is int64). TL_ERR_UNSUPPORTED for
 * NumPy's uint16..uint64, which tlab lacks, except for a comparison
 * (compare: int64 holds both sides). n <= 8. */
int tl_numpy_result_type(const tl_operand *ops, int n, bool compare, tl_dtype *out,
                         tl_error *err);

int tl_numpy_store_inplace(tl_tensor *dst, const tl_tensor *r, const char *ufunc,
                           tl_error *err);

/* NumPy's contiguity flags (relaxed strides: size-1 axes are ignored, an
 * empty array is both C- and F-contiguous). Strides in elements. */
bool tl_numpy_contig(const tl_tensor *t, bool fortran);
/* Strides (elements) for a dense array of t's shape whose axes, from the
 * outermost, are perm[0..ndim). */
void tl_numpy_strides_in_order(const tl_tensor *t, const int *perm,
                               int64_t *strides);
/* The strides of a new array made like t in numpy order 'C', 'F', 'A' or
 * 'K' (PyArray_NewLikeArray; all zeros for an empty array). */
void tl_numpy_order_strides(const tl_tensor *t, char order, int64_t *strides);
/* A new empty array: NumPy zeroes the strides of what it allocates. */
void tl_numpy_fresh_strides(tl_tensor *t);

#ifdef __cplusplus
}
#endif

#endif
