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
#include "tensor.h"
#include "value.h"

/* Python-level binary operators, as the interpreter sees them. */
typedef enum tl_pyop {
    TL_PY_ADD, TL_PY_SUB, TL_PY_MUL, TL_PY_TRUEDIV, TL_PY_FLOORDIV,
    TL_PY_MOD, TL_PY_POW, TL_PY_MATMUL, TL_PY_EQ, TL_PY_NE, TL_PY_LT,
    TL_PY_LE, TL_PY_GT, TL_PY_GE, TL_PY_AND, TL_PY_OR, TL_PY_XOR,
    TL_PY_LSHIFT, TL_PY_RSHIFT, TL_NPYOPS
} tl_pyop;

typedef enum tl_pyunop { TL_PY_NEG, TL_PY_POS, TL_PY_INVERT } tl_pyunop;

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

#endif
