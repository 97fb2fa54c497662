/* ops.h - operations that allocate (copies) or write in place: the public
 * interface of the ops family, implemented in copy.c (clone, contiguous,
 * to, copy_, fill_, narrow_copy), elementwise.c (binary, unary, where,
 * clamp, masked_fill, matmul), reduce.c, assemble.c (cat, stack, flip,
 * roll, repeat, triu/tril, diag*) and sort.c, over iter.c's operand and
 * layout rules (ops_impl.h, internal).
 *
 * Every function here that returns a tensor returns a NEW reference with new
 * storage (a copy), except where "may return t itself" is stated (the
 * same-object cases of PyTorch: contiguous() when contiguous, to() when
 * nothing changes). In-place functions write t's storage and bump its
 * version counter exactly once, as PyTorch does.
 *
 * Result layouts follow PyTorch: clone/to copies use the preserve_format
 * rule (tl_tensor_preserve_strides); elementwise results follow TensorIterator's
 * dimension order from the first decisive input.
 *
 * The interface speaks C: elementwise operands are tl_operand (a tensor or
 * a Python number, borrowed), dim lists are int64 arrays (n < 0: None),
 * pairs of results come back through out-parameters. Python values are
 * converted by the py layer (bind_ops.c, pyops.c).
 */
#ifndef TL_OPS_H
#define TL_OPS_H

#include <stdbool.h>

#include "backend.h"
#include "err.h"
#include "tensor.h"

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

/* ---- devices ---- */
/* The backend for dev: like's own when like is already there, else
 * tl_backend_for (the thread context's; backend.h). */
const tl_backend *tl_ops_device_backend(const tl_tensor *like, tl_device dev,
                                        tl_error *err);

/* ---- elementwise (operands: tensors or Python numbers, borrowed) ---- */

/* One input of an elementwise op: a tensor, or a Python number (a
 * "wrapped number", weak in promotion: int -> Long, float -> Double,
 * bool -> Bool). */
typedef struct tl_operand {
    const tl_tensor *t; /* NULL for a number */
    tl_scalar s;        /* the number (ints and bools set both s.i and s.f) */
    tl_dtype sdt;       /* the number's own dtype (INT64, FLOAT64 or BOOL) */
} tl_operand;
tl_operand tl_ops_operand_tensor(const tl_tensor *t);
tl_operand tl_ops_operand_int(int64_t i);
tl_operand tl_ops_operand_float(double f);
tl_operand tl_ops_operand_bool(bool b);
/* at::result_type of n operands */
tl_dtype tl_ops_result_type(const tl_operand *ops, int n);
/* eq/ne/lt/le/gt/ge: a bool result */
bool tl_ops_binop_is_comparison(tl_binop op);

tl_tensor *tl_ops_binop(tl_binop op, const tl_operand *a, const tl_operand *b,
                        tl_error *err);
/* self OP= b in place: returns 0 and bumps self's version once */
int tl_ops_binop_(tl_binop op, tl_tensor *self, const tl_operand *b,
                  tl_error *err);
/* add/sub with alpha (a number operand; NULL: 1) */
tl_tensor *tl_ops_binop_alpha(tl_binop op, const tl_operand *a,
                              const tl_operand *b, const tl_operand *alpha,
                              tl_error *err);
int tl_ops_binop_alpha_(tl_binop op, tl_tensor *self, const tl_operand *b,
                        const tl_operand *alpha, tl_error *err);
/* div with rounding_mode: 0 None (true division), 1 'trunc', 2 'floor' */
tl_tensor *tl_ops_div_mode(const tl_operand *a, const tl_operand *b, int mode,
                           tl_error *err);
int tl_ops_div_mode_(tl_tensor *self, const tl_operand *b, int mode,
                     tl_error *err);
tl_tensor *tl_ops_unop(tl_unop op, const tl_tensor *t, tl_error *err);
int tl_ops_unop_(tl_unop op, tl_tensor *t, tl_error *err);
tl_tensor *tl_ops_where(const tl_tensor *cond, const tl_operand *a,
                        const tl_operand *b, tl_error *err);
/* lo/hi NULL: that bound is absent */
tl_tensor *tl_ops_clamp(const tl_tensor *t, const tl_operand *lo,
                        const tl_operand *hi, tl_error *err);
int tl_ops_clamp_(tl_tensor *t, const tl_operand *lo, const tl_operand *hi,
                  tl_error *err);
/* v: a number or a 0-d tensor (RuntimeError for other tensors) */
tl_tensor *tl_ops_masked_fill(const tl_tensor *t, const tl_tensor *mask,
                              const tl_operand *v, tl_error *err);
int tl_ops_masked_fill_(tl_tensor *t, const tl_tensor *mask,
                        const tl_operand *v, tl_error *err);
tl_tensor *tl_ops_matmul(const tl_tensor *a, const tl_tensor *b, bool mm_only,
                         tl_error *err);
/* a.bmm(b): both 3-D, equal batch (matmul.h) */
tl_tensor *tl_ops_bmm(const tl_tensor *a, const tl_tensor *b, tl_error *err);

/* ---- reductions: dims[0..ndims) as given (ndims < 0: None, all dims;
 * 0: dim=(), also all) ---- */
/* `name` is the op's name in messages (NULL: derived from op) */
tl_tensor *tl_ops_reduce(tl_redop op, const char *name, const tl_tensor *t,
                         int ndims, const int64_t *dims, bool keepdim,
                         const tl_dtype *dtype, tl_error *err);
/* max(dim)/min(dim): (values, indices), two new references */
int tl_ops_minmax_dim(bool is_max, const tl_tensor *t, int64_t dim,
                      bool keepdim, tl_tensor **values, tl_tensor **indices,
                      tl_error *err);
tl_tensor *tl_ops_var(const tl_tensor *t, int ndims, const int64_t *dims,
                      int64_t correction, bool keepdim, bool is_std,
                      tl_error *err);

/* ---- assembly (inputs borrowed; results always new storage) ---- */
tl_tensor *tl_ops_cat(tl_tensor *const *ts, size_t n, int64_t dim,
                      tl_error *err);
tl_tensor *tl_ops_stack(tl_tensor *const *ts, size_t n, int64_t dim,
                        tl_error *err);
tl_tensor *tl_ops_hstack(tl_tensor *const *ts, size_t n, tl_error *err);
tl_tensor *tl_ops_vstack(tl_tensor *const *ts, size_t n, tl_error *err);
tl_tensor *tl_ops_flip(const tl_tensor *t, int ndims, const int64_t *dims,
                       tl_error *err);
/* fliplr (ud false) / flipud (ud true) */
tl_tensor *tl_ops_fliplr(const tl_tensor *t, bool ud, tl_error *err);
/* roll(shifts[0..nsh), dims[0..nd)): nd 0 rolls the flattened tensor */
tl_tensor *tl_ops_roll(const tl_tensor *t, int nsh, const int64_t *shifts,
                       int nd, const int64_t *dims, tl_error *err);
tl_tensor *tl_ops_repeat(const tl_tensor *t, int n, const int64_t *reps,
                         tl_error *err);
tl_tensor *tl_ops_tile(const tl_tensor *t, int n, const int64_t *reps,
                       tl_error *err);
/* repeats: the tensor rt, or the int r when rt is NULL; dim (has_dim) is
 * already wrapped; has_size: output_size= was given (out_size) */
tl_tensor *tl_ops_repeat_interleave(const tl_tensor *t, const tl_tensor *rt,
                                    int64_t r, bool has_dim, int dim,
                                    bool has_size, int64_t out_size,
                                    tl_error *err);
/* torch.repeat_interleave(repeats): each index i repeated repeats[i] times,
 * in repeats' dtype (int32 or int64; others raise the dispatch error) */
tl_tensor *tl_ops_repeat_interleave_index(const tl_tensor *reps, bool has_size,
                                          int64_t out_size, tl_error *err);
/* triu (upper) / tril with diagonal k */
tl_tensor *tl_ops_tri(const tl_tensor *t, int64_t k, bool upper, tl_error *err);
tl_tensor *tl_ops_diag(const tl_tensor *t, int64_t k, tl_error *err);
/* sort(dim, descending) -> (values, indices): stable; NaN sorts largest;
 * both outputs take t's layout (preserve_format rule). */
int tl_ops_sort(const tl_tensor *t, int64_t dim, bool descending,
                tl_tensor **values, tl_tensor **indices, tl_error *err);
/* topk(k, dim, largest) -> (values, indices), contiguous, always sorted */
int tl_ops_topk(const tl_tensor *t, int64_t k, int64_t dim, bool largest,
                tl_tensor **values, tl_tensor **indices, tl_error *err);
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
