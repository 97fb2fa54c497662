/* ops.h - operations that allocate (copies) or write in place.
 *
 * Every function here that returns a tensor returns a NEW reference with new
 * storage (a copy), except where "may return t itself" is stated (the
 * same-object cases of PyTorch: contiguous() when contiguous, to() when
 * nothing changes). In-place functions write t's storage and bump its
 * version counter exactly once, as PyTorch does.
 *
 * Result layouts follow PyTorch: clone/to copies use the preserve_format
 * rule (tl_preserve_strides); elementwise results follow TensorIterator's
 * dimension order from the first decisive input.
 */
#ifndef TL_OPS_H
#define TL_OPS_H

#include <stdbool.h>

#include "backend.h"
#include "err.h"
#include "pyop.h"
#include "tensor.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* clone(memory_format=fmt) */
tl_tensor *tl_ops_clone(const tl_tensor *t, tl_memfmt fmt, tl_error *err);
/* contiguous(memory_format=fmt): may return t itself (retained). */
tl_tensor *tl_ops_contiguous(tl_tensor *t, tl_memfmt fmt, tl_error *err);
/* to(backend, dtype, copy, memory_format): may return t itself (retained)
 * when dtype and device match, copy is false and fmt is preserve or equal to
 * t's suggested format (to_will_alias). */
tl_tensor *tl_ops_to(tl_tensor *t, const tl_backend *be, tl_dtype dt,
                     bool copy, tl_memfmt fmt, tl_error *err);
/* dst.copy_(src): broadcast src to dst, convert dtype, cross devices;
 * internal-overlap check; bumps dst's version once. */
int tl_ops_copy_(tl_tensor *dst, const tl_tensor *src, tl_error *err);
/* dst.fill_(v) (no overlap check, as PyTorch 1.13); bumps version. */
int tl_ops_fill_(tl_tensor *dst, tl_scalar v, tl_error *err);

/* Interpreter operators where at least one operand is a tensor/ndarray:
 * a OP b with PyTorch's promotion (Python scalars are "weak"). */
tl_value *tl_ops_binary(tl_pyop op, tl_value *a, tl_value *b, tl_error *err);
/* a OP= b: in place on a's storage when a is a tensor (returns a). */
tl_value *tl_ops_binary_inplace(tl_pyop op, tl_value *a, tl_value *b,
                                tl_error *err);
tl_value *tl_ops_unary(tl_pyunop op, tl_value *a, tl_error *err);

/* ---- devices ----
 * 'cpu' / 'cuda' / 'cuda:N' / torch.device / int -> device (strings through
 * tl_device_parse). */
bool tl_ops_parse_device(const tl_value *v, tl_device *out, tl_error *err);
/* The backend for dev: like's own when like is already there, else
 * tl_backend_for (the thread context's; backend.h). */
const tl_backend *tl_ops_device_backend(const tl_tensor *like, tl_device dev,
                                        tl_error *err);

/* ---- elementwise (operands: tensors or Python numbers, borrowed) ---- */
tl_tensor *tl_ops_binop(tl_binop op, const tl_value *a, const tl_value *b,
                        tl_error *err);
/* add/sub with alpha (alpha NULL or None: 1) */
tl_tensor *tl_ops_binop_alpha(tl_binop op, const tl_value *a, const tl_value *b,
                              const tl_value *alpha, tl_error *err);
/* self OP= b in place: returns 0 and bumps self's version once */
int tl_ops_binop_alpha_(tl_binop op, tl_tensor *self, const tl_value *b,
                        const tl_value *alpha, tl_error *err);
/* div with rounding_mode: 0 None (true division), 1 'trunc', 2 'floor' */
tl_tensor *tl_ops_div_mode(const tl_value *a, const tl_value *b, int mode,
                           tl_error *err);
int tl_ops_div_mode_(tl_tensor *self, const tl_value *b, int mode,
                     tl_error *err);
tl_tensor *tl_ops_unop(tl_unop op, const tl_tensor *t, tl_error *err);
int tl_ops_unop_(tl_unop op, tl_tensor *t, tl_error *err);
tl_tensor *tl_ops_where(const tl_tensor *cond, const tl_value *a,
                        const tl_value *b, tl_error *err);
/* lo/hi NULL or None: that bound is absent */
tl_tensor *tl_ops_clamp(const tl_tensor *t, const tl_value *lo,
                        const tl_value *hi, tl_error *err);
int tl_ops_clamp_(tl_tensor *t, const tl_value *lo, const tl_value *hi,
                  tl_error *err);
tl_tensor *tl_ops_masked_fill(const tl_tensor *t, const tl_tensor *mask,
                              const tl_value *v, tl_error *err);
int tl_ops_masked_fill_(tl_tensor *t, const tl_tensor *mask, const tl_value *v,
                        tl_error *err);
tl_tensor *tl_ops_matmul(const tl_tensor *a, const tl_tensor *b, bool mm_only,
                         tl_error *err);

/* ---- reductions: dim is NULL/None (all), an int, or a tuple/list ---- */
/* `name` is the op's name in messages (NULL: derived from op) */
tl_tensor *tl_ops_reduce(tl_redop op, const char *name, const tl_tensor *t,
                         const tl_value *dim, bool keepdim,
                         const tl_dtype *dtype, tl_error *err);
/* max(dim)/min(dim): a 2-tuple (values, indices) */
tl_value *tl_ops_minmax_dim(bool is_max, const tl_tensor *t, int64_t dim,
                            bool keepdim, tl_error *err);
tl_tensor *tl_ops_var(const tl_tensor *t, const tl_value *dim,
                      int64_t correction, bool keepdim, bool is_std,
                      tl_error *err);

/* ---- assembly (inputs borrowed; results always new storage) ---- */
tl_tensor *tl_ops_cat(tl_tensor *const *ts, size_t n, int64_t dim,
                      tl_error *err);
tl_tensor *tl_ops_stack(tl_tensor *const *ts, size_t n, int64_t dim,
                        tl_error *err);
tl_tensor *tl_ops_hstack(tl_tensor *const *ts, size_t n, tl_error *err);
tl_tensor *tl_ops_vstack(tl_tensor *const *ts, size_t n, tl_error *err);
tl_tensor *tl_ops_flip(const tl_tensor *t, const tl_value *dims, tl_error *err);
/* fliplr (ud false) / flipud (ud true) */
tl_tensor *tl_ops_fliplr(const tl_tensor *t, bool ud, tl_error *err);
tl_tensor *tl_ops_roll(const tl_tensor *t, const tl_value *shifts,
                       const tl_value *dims, tl_error *err);
tl_tensor *tl_ops_repeat(const tl_tensor *t, int n, const int64_t *reps,
                         tl_error *err);
tl_tensor *tl_ops_tile(const tl_tensor *t, int n, const int64_t *reps,
                       tl_error *err);
tl_tensor *tl_ops_repeat_interleave(const tl_tensor *t, const tl_value *repeats,
                                    const tl_value *dim, tl_error *err);
/* triu (upper) / tril with diagonal k */
tl_tensor *tl_ops_tri(const tl_tensor *t, int64_t k, bool upper, tl_error *err);
tl_tensor *tl_ops_diag(const tl_tensor *t, int64_t k, tl_error *err);
/* sort(dim, descending) -> (values, indices): stable; NaN sorts largest;
 * both outputs take t's layout (preserve_format rule). */
tl_value *tl_ops_sort(const tl_tensor *t, int64_t dim, bool descending,
                      tl_error *err);
/* topk(k, dim, largest) -> (values, indices), contiguous, always sorted */
tl_value *tl_ops_topk(const tl_tensor *t, int64_t k, int64_t dim,
                      bool largest, tl_error *err);
tl_tensor *tl_ops_diag_embed(const tl_tensor *t, int64_t offset, int64_t dim1,
                             int64_t dim2, tl_error *err);
tl_tensor *tl_ops_diagflat(const tl_tensor *t, int64_t offset, tl_error *err);
/* triu_ (upper) / tril_ in place: bumps t's version once */
int tl_ops_tri_(tl_tensor *t, int64_t k, bool upper, tl_error *err);
tl_tensor *tl_ops_narrow_copy(const tl_tensor *t, int64_t dim, int64_t start,
                              int64_t length, tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
