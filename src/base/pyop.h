/* pyop.h - the codes of Python's operators, shared by the front end
 * (lex/ast/parse write them into the tree) and the py layer (its operator
 * dispatch reads them). No knowledge of values or tensors: only the names.
 */
#ifndef TL_PYOP_H
#define TL_PYOP_H

#ifdef __cplusplus
extern "C" {
#endif

/* Binary arithmetic/bitwise operators (a OP b, a OP= b). */
typedef enum tl_pyop {
    TL_PY_ADD, TL_PY_SUB, TL_PY_MUL, TL_PY_TRUEDIV, TL_PY_FLOORDIV,
    TL_PY_MOD, TL_PY_POW, TL_PY_MATMUL, TL_PY_EQ, TL_PY_NE, TL_PY_LT,
    TL_PY_LE, TL_PY_GT, TL_PY_GE, TL_PY_AND, TL_PY_OR, TL_PY_XOR,
    TL_PY_LSHIFT, TL_PY_RSHIFT, TL_NPYOPS
} tl_pyop;

/* Unary operators (-a, +a, ~a); `not` is the front end's own code. */
typedef enum tl_pyunop { TL_PY_NEG, TL_PY_POS, TL_PY_INVERT } tl_pyunop;

/* Comparison operators (a CMP b, chained in the tree). */
typedef enum tl_cmpop {
    TL_CMP_EQ, TL_CMP_NE, TL_CMP_LT, TL_CMP_LE, TL_CMP_GT, TL_CMP_GE,
    TL_CMP_IS, TL_CMP_IS_NOT, TL_CMP_IN, TL_CMP_NOT_IN
} tl_cmpop;

#ifdef __cplusplus
}
#endif

#endif
