/* pyops.c - Python semantics on plain values: the operators (int64 with
 * overflow checks, Python floor division / modulo signs, sequence
 * concatenation and repetition), truth values, comparisons and `in`,
 * iteration, and subscripts of lists, tuples, strings and storages.
 *
 * Design:
 *   - As soon as an operand is a tensor or ndarray the operators go to
 *     ops.h as C operands (PyTorch promotion, Python numbers weak; NumPy
 *     promotion when only ndarrays take part) and subscripts to index.h.
 *   - Bounds: sequences are charged against a per-call budget of elements
 *     (tl_pyops_budget_enter, set by the interpreter around each call) and
 *     loops poll the op's deadline (context.h).
 *   - State: the budget is this file's one thread-local (a grading thread
 *     runs one interpreter call at a time; nested calls save and restore).
 */
#include "pyops.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind_grad.h"
#include "context.h"
#include "convert.h"
#include "index_parse.h"
#include "named.h"
#include "numpy.h"
#include "ops.h"
#include "storage.h"
#include "util.h"

/* ---------------------------------------------------------------------- */
/* tensors and ndarrays: PyTorch promotion through ops.h */

static const char *pyop_symbol(tl_pyop op)
{
    static const char *const sym[TL_NPYOPS] = {
        "+", "-", "*", "/", "//", "%", "** or pow()", "@", "==", "!=", "<",
        "<=", ">", ">=", "&", "|", "^", "<<", ">>"};
    return (unsigned)op < TL_NPYOPS ? sym[op] : "?";
}

/* Value -> operand; false if the value is not a number or tensor. */
bool tl_pyops_operand(const tl_value *v, tl_operand *o)
{
    switch (v->kind) {
    case TL_V_INT: *o = tl_ops_operand_int(v->u.i); return true;
    case TL_V_FLOAT: *o = tl_ops_operand_float(v->u.f); return true;
    case TL_V_BOOL: *o = tl_ops_operand_bool(v->u.b); return true;
    case TL_V_TENSOR:
    case TL_V_NDARRAY: *o = tl_ops_operand_tensor(v->u.tensor); return true;
    default: return false;
    }
}




static bool pyop_binop(tl_pyop op, tl_binop *out)
{
    static const int map[TL_NPYOPS] = {
        TL_BIN_ADD, TL_BIN_SUB, TL_BIN_MUL, TL_BIN_DIV, TL_BIN_FLOORDIV,
        TL_BIN_REMAINDER, TL_BIN_POW, -1, TL_BIN_EQ, TL_BIN_NE, TL_BIN_LT,
        TL_BIN_LE, TL_BIN_GT, TL_BIN_GE, TL_BIN_BITAND, TL_BIN_BITOR,
        TL_BIN_BITXOR, TL_BIN_LSHIFT, TL_BIN_RSHIFT};
    if ((unsigned)op >= TL_NPYOPS || map[op] < 0)
        return false;
    *out = (tl_binop)map[op];
    return true;
}

/* ndarray-only arithmetic: NumPy's default float is float64. */
static bool numpy_mode(const tl_value *a, const tl_value *b)
{
    bool any_nd = a->kind == TL_V_NDARRAY || b->kind == TL_V_NDARRAY;
    bool any_t = a->kind == TL_V_TENSOR || b->kind == TL_V_TENSOR;
    return any_nd && !any_t;
}

static tl_value *wrap_result(tl_tensor *t, bool ndarray)
{
    return ndarray ? tl_value_ndarray(t) : tl_value_tensor(t);
}

/* NumPy's fast scalar power (number.c fast_scalar_power): an integer or
 * bool array to the power of a Python number equal to 2 runs the 'square'
 * ufunc, which keeps the array's dtype (bool squares to int8), in place
 * always and otherwise unless the exponent is a float (then float64, as
 * power gives). 1 with the square of a in *out, 0 where power applies, -1
 * on an error. */
static int np_fast_square(tl_pyop op, const tl_value *a, const tl_value *b, bool inplace,
                          tl_tensor **out, tl_error *err)
{
    *out = NULL;
    if (op != TL_PY_POW || a->kind != TL_V_NDARRAY || tl_dtype_is_floating(a->u.tensor->dtype))
        return 0;
    double e;
    if (b->kind == TL_V_INT)
        e = (double)b->u.i;
    else if (b->kind == TL_V_BOOL)
        e = b->u.b;
    else if (b->kind == TL_V_FLOAT)
        e = b->u.f;
    else
        return 0;
    if (e != 2.0 || (!inplace && b->kind == TL_V_FLOAT && a->u.tensor->dtype != TL_BOOL))
        return 0;
    tl_tensor *x = a->u.tensor->dtype == TL_BOOL
                       ? tl_ops_to(a->u.tensor, NULL, TL_INT8, true, TL_MEMFMT_PRESERVE, err)
                       : tl_tensor_retain(a->u.tensor);
    if (!x)
        return -1;
    tl_operand o = tl_ops_operand_tensor(x);
    *out = tl_ops_binop(TL_BIN_MUL, &o, &o, err);
    tl_tensor_release(x);
    return *out ? 1 : -1;
}

static tl_value *tensor_binary(tl_pyop op, tl_value *a, tl_value *b,
                               tl_error *err)
{
    tl_operand x, y;
    bool ok = tl_pyops_operand(a, &x) && tl_pyops_operand(b, &y);
    if (!ok) {
        if (op == TL_PY_EQ || op == TL_PY_NE)
            return tl_bool(op == TL_PY_NE);
        tl_error_set(err, TL_ERR_TYPE,
                     "unsupported operand type(s) for %s: '%s' and '%s'",
                     pyop_symbol(op), tl_value_type_name(a),
                     tl_value_type_name(b));
        return NULL;
    }
    bool nd = numpy_mode(a, b);
    tl_tensor *r;
    int fs = np_fast_square(op, a, b, false, &r, err);
    if (fs)
        return fs > 0 ? wrap_result(r, true) : NULL;
    if (op == TL_PY_MATMUL) {
        if (!x.t || !y.t) {
            tl_error_set(err, TL_ERR_TYPE,
                         "unsupported operand type(s) for @: '%s' and '%s'",
                         tl_value_type_name(a), tl_value_type_name(b));
            return NULL;
        }
        r = tl_ops_matmul(x.t, y.t, false, err);
    } else {
        tl_binop bop;
        if (!pyop_binop(op, &bop)) {
            tl_error_set(err, TL_ERR_UNSUPPORTED, "unsupported operator");
            return NULL;
        }
        if (nd) {
            /* NumPy's result type (value-based for numbers and 0-d
             * arrays); true division of integers is float64. The arrays
             * are cast to it first, so the kernel computes in it. */
            tl_operand ops[2] = {x, y};
            tl_dtype rt;
            bool cmp = bop == TL_BIN_EQ || bop == TL_BIN_NE || bop == TL_BIN_LT ||
                       bop == TL_BIN_LE || bop == TL_BIN_GT || bop == TL_BIN_GE;
            if (tl_numpy_result_type(ops, 2, cmp, &rt, err) < 0)
                return NULL;
            if (bop == TL_BIN_DIV && !tl_dtype_is_floating(rt))
                rt = TL_FLOAT64;
            tl_tensor *cx = NULL, *cy = NULL;
            if (x.t && x.t->dtype != rt &&
                !(cx = tl_ops_to((tl_tensor *)x.t, NULL, rt, true, TL_MEMFMT_PRESERVE, err)))
                return NULL;
            if (y.t && y.t->dtype != rt &&
                !(cy = tl_ops_to((tl_tensor *)y.t, NULL, rt, true, TL_MEMFMT_PRESERVE, err))) {
                tl_tensor_release(cx);
                return NULL;
            }
            if (cx)
                x.t = cx;
            if (cy)
                y.t = cy;
            r = tl_ops_binop(bop, &x, &y, err);
            tl_tensor_release(cx);
            tl_tensor_release(cy);
            return r ? wrap_result(r, true) : NULL;
        }
        if (bop == TL_BIN_DIV && !nd && !x.t && y.t && b->kind == TL_V_TENSOR) {
            /* number / tensor is Tensor.__rdiv__: self.reciprocal() * other
             * (torch/_tensor.py), which rounds and lays out differently
             * from a true division */
            tl_tensor *rc = tl_ops_unop(TL_UN_RECIPROCAL, y.t, err);
            if (!rc)
                return NULL;
            tl_operand ro = tl_ops_operand_tensor(rc);
            r = tl_ops_binop(TL_BIN_MUL, &ro, &x, err);
            tl_tensor_release(rc);
            return r ? wrap_result(r, false) : NULL;
        }
        r = tl_ops_binop(bop, &x, &y, err);
    }
    return r ? wrap_result(r, nd) : NULL;
}

/* n OP= v on an ndarray: NumPy computes `n OP v` by its own rules and
 * stores the result back (numpy.h: same_kind casting, no _version bump;
 * overlapping operands read before the write) */
static tl_value *ndarray_inplace(tl_pyop op, tl_value *a, tl_value *b, tl_error *err)
{
    static const char *const ufunc[TL_NPYOPS] = {
        "add", "subtract", "multiply", "divide", "floor_divide", "remainder",
        "power", "matmul", "equal", "not_equal", "less", "less_equal",
        "greater", "greater_equal", "bitwise_and", "bitwise_or", "bitwise_xor",
        "left_shift", "right_shift"};
    tl_tensor *sq;
    if (np_fast_square(op, a, b, true, &sq, err) < 0)
        return NULL;
    tl_value *r = sq ? tl_value_ndarray(sq) : tensor_binary(op, a, b, err);
    if (!r)
        return NULL;
    int rc = -1;
    if (r->kind != TL_V_NDARRAY && r->kind != TL_V_TENSOR)
        tl_error_set(err, TL_ERR_TYPE,
                     "unsupported operand type(s) for %s=: '%s' and '%s'",
                     pyop_symbol(op), tl_value_type_name(a), tl_value_type_name(b));
    else
        rc = tl_numpy_store_inplace(a->u.tensor, r->u.tensor,
                                    sq ? "square" : (unsigned)op < TL_NPYOPS ? ufunc[op] : "?",
                                    err);
    tl_value_release(r);
    return rc < 0 ? NULL : tl_value_retain(a);
}

static tl_value *tensor_binary_inplace(tl_pyop op, tl_value *a, tl_value *b,
                                       tl_error *err)
{
    if (a->kind != TL_V_TENSOR && a->kind != TL_V_NDARRAY)
        return tensor_binary(op, a, b, err);
    if (a->kind == TL_V_NDARRAY && op != TL_PY_MATMUL)
        return ndarray_inplace(op, a, b, err);
    tl_operand y;
    if (!tl_pyops_operand(b, &y)) {
        tl_error_set(err, TL_ERR_TYPE,
                     "unsupported operand type(s) for %s=: '%s' and '%s'",
                     pyop_symbol(op), tl_value_type_name(a),
                     tl_value_type_name(b));
        return NULL;
    }
    if (op == TL_PY_MATMUL) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "In-place matrix multiplication is not (yet) supported. Please use 'a = a @ b' instead.");
        return NULL;
    }
    tl_binop bop;
    if (!pyop_binop(op, &bop) || tl_ops_binop_is_comparison(bop)) {
        tl_error_set(err, TL_ERR_UNSUPPORTED, "unsupported augmented operator");
        return NULL;
    }
    if (tl_ops_binop_(bop, a->u.tensor, &y, err) < 0)
        return NULL;
    return tl_value_retain(a);
}

static tl_value *tensor_unary(tl_pyunop op, tl_value *a, tl_error *err)
{
    if (a->kind != TL_V_TENSOR && a->kind != TL_V_NDARRAY) {
        tl_error_set(err, TL_ERR_TYPE, "bad operand type for unary operator: '%s'",
                     tl_value_type_name(a));
        return NULL;
    }
    tl_tensor *t = a->u.tensor;
    bool nd = a->kind == TL_V_NDARRAY;
    tl_tensor *r = NULL;
    switch (op) {
    case TL_PY_POS:
        if (t->dtype == TL_BOOL && !nd) {
            tl_error_set(err, TL_ERR_RUNTIME,
                         "The `+` operator, on a bool tensor is not supported.");
            return NULL;
        }
        if (!nd)
            return tl_value_retain(a); /* positive() returns self */
        r = tl_ops_clone(t, TL_MEMFMT_PRESERVE, err);
        break;
    case TL_PY_NEG:
        r = tl_ops_unop(TL_UN_NEG, t, err);
        break;
    case TL_PY_INVERT:
        if (tl_dtype_is_floating(t->dtype)) {
            tl_error_set(err, TL_ERR_TYPE,
                         "~ (operator.invert) is only implemented on integer and Boolean-type tensors");
            return NULL;
        }
        r = tl_ops_unop(TL_UN_BITWISE_NOT, t, err);
        break;
    }
    return r ? wrap_result(r, nd) : NULL;
}

/* ---------------------------------------------------------------------- */
/* the budget */

static _Thread_local tl_pyops_budget g_budget;

tl_pyops_budget tl_pyops_budget_enter(int64_t max_seq)
{
    tl_pyops_budget saved = g_budget;
    g_budget.active = true;
    g_budget.max_seq = max_seq > 0 ? max_seq : TL_DEFAULT_MAX_SEQ;
    g_budget.used = 0;
    return saved;
}

void tl_pyops_budget_leave(tl_pyops_budget saved) { g_budget = saved; }

int64_t tl_pyops_max_seq(void)
{
    return g_budget.active ? g_budget.max_seq : TL_DEFAULT_MAX_SEQ;
}

int tl_pyops_charge_seq(size_t n, tl_error *err)
{
    int64_t max = tl_pyops_max_seq();
    if ((uint64_t)n > (uint64_t)max)
        return tl_error_set(err, TL_ERR_LIMIT,
                            "sequence of %zu elements is longer than the limit (%" PRId64 ")",
                            n, max);
    if (g_budget.active) {
        g_budget.used += n;
        if (g_budget.used > (uint64_t)max * 4)
            return tl_error_set(err, TL_ERR_LIMIT,
                                "too many sequence elements created in one op "
                                "(limit %" PRId64 ")", max * 4);
    }
    /* sequences of tensors: their headers are the memory that counts */
    if (tl_tensor_live() > TL_MAX_LIVE_TENSORS)
        return tl_error_set(err, TL_ERR_LIMIT,
                            "more than %d tensors alive at once (tlab limit)",
                            TL_MAX_LIVE_TENSORS);
    /* the item array about to be built, on the one memory ledger */
    if (tl_alloc_over_limit(n * sizeof(void *))) {
        tl_context_ledger_refused(n * sizeof(void *)); /* counted (storage.h) */
        return tl_error_set(err, TL_ERR_LIMIT,
                            "memory limit exceeded: a sequence of %zu elements does not fit "
                            "in --max-bytes (%zu bytes of storage and objects are live)", n,
                            tl_alloc_live() + tl_alloc_objects());
    }
    return tl_context_memory_check(err);
}

/* ---------------------------------------------------------------------- */
/* numbers */

static bool is_num(const tl_value *v)
{
    return v->kind == TL_V_INT || v->kind == TL_V_BOOL || v->kind == TL_V_FLOAT;
}

static bool is_intlike(const tl_value *v)
{
    return v->kind == TL_V_INT || v->kind == TL_V_BOOL;
}

static int64_t ival(const tl_value *v)
{
    return v->kind == TL_V_BOOL ? (int64_t)v->u.b : v->u.i;
}

static double fval(const tl_value *v)
{
    return v->kind == TL_V_FLOAT ? v->u.f : (double)ival(v);
}

static tl_value *int_overflow(tl_error *err)
{
    tl_error_set(err, TL_ERR_OVERFLOW,
                 "integer overflow (tlab integers are 64-bit)");
    return NULL;
}

static const char *const op_symbol[TL_NPYOPS] = {
    "+", "-", "*", "/", "//", "%", "**", "@", "==", "!=", "<", "<=", ">",
    ">=", "&", "|", "^", "<<", ">>"};

static tl_value *unsupported_operands(tl_pyop op, const tl_value *a,
                                      const tl_value *b, tl_error *err)
{
    if (a->kind == TL_V_STR && op == TL_PY_ADD)
        tl_error_set(err, TL_ERR_TYPE, "can only concatenate str (not \"%s\") to str",
                     tl_value_type_name(b));
    else if (op == TL_PY_POW)
        tl_error_set(err, TL_ERR_TYPE,
                     "unsupported operand type(s) for ** or pow(): '%s' and '%s'",
                     tl_value_type_name(a), tl_value_type_name(b));
    else
        tl_error_set(err, TL_ERR_TYPE, "unsupported operand type(s) for %s: '%s' and '%s'",
                     op_symbol[op], tl_value_type_name(a), tl_value_type_name(b));
    return NULL;
}

static tl_value *int_pow(int64_t a, int64_t b, tl_error *err)
{
    if (b < 0) {
        if (a == 0) {
            tl_error_set(err, TL_ERR_ZERODIV, "0.0 cannot be raised to a negative power");
            return NULL;
        }
        return tl_float(pow((double)a, (double)b));
    }
    int64_t r = 1, base = a;
    while (b > 0) {
        if (b & 1) {
            if (tl_mul_overflow(r, base, &r))
                return int_overflow(err);
        }
        b >>= 1;
        if (b > 0 && tl_mul_overflow(base, base, &base))
            return int_overflow(err);
    }
    return tl_int(r);
}

/* Python's float divmod */
static void float_divmod(double vx, double wx, double *floordiv, double *mod)
{
    double m = fmod(vx, wx);
    double div = (vx - m) / wx;
    if (m != 0.0) {
        if ((wx < 0) != (m < 0)) {
            m += wx;
            div -= 1.0;
        }
    } else {
        m = copysign(0.0, wx);
    }
    double fd;
    if (div != 0.0) {
        fd = floor(div);
        if (div - fd > 0.5)
            fd += 1.0;
    } else {
        fd = copysign(0.0, vx / wx);
    }
    *floordiv = fd;
    *mod = m;
}

static tl_value *num_binop(tl_pyop op, const tl_value *a, const tl_value *b,
                           tl_error *err)
{
    bool ints = is_intlike(a) && is_intlike(b);
    if (ints) {
        int64_t x = ival(a), y = ival(b), r;
        bool bools = a->kind == TL_V_BOOL && b->kind == TL_V_BOOL;
        switch (op) {
        case TL_PY_ADD:
            if (tl_add_overflow(x, y, &r))
                return int_overflow(err);
            return tl_int(r);
        case TL_PY_SUB:
            if (y == INT64_MIN ? x >= 0 : tl_add_overflow(x, -y, &r))
                return int_overflow(err);
            return tl_int(x - y);
        case TL_PY_MUL:
            if (tl_mul_overflow(x, y, &r))
                return int_overflow(err);
            return tl_int(r);
        case TL_PY_TRUEDIV:
            if (y == 0) {
                tl_error_set(err, TL_ERR_ZERODIV, "division by zero");
                return NULL;
            }
            return tl_float((double)x / (double)y);
        case TL_PY_FLOORDIV:
        case TL_PY_MOD: {
            if (y == 0) {
                tl_error_set(err, TL_ERR_ZERODIV, op == TL_PY_MOD
                                 ? "integer modulo by zero"
                                 : "integer division or modulo by zero");
                return NULL;
            }
            if (x == INT64_MIN && y == -1) {
                if (op == TL_PY_MOD)
                    return tl_int(0);
                return int_overflow(err);
            }
            int64_t q = x / y, m = x % y;
            if (m != 0 && ((m < 0) != (y < 0))) {
                q -= 1;
                m += y;
            }
            return tl_int(op == TL_PY_MOD ? m : q);
        }
        case TL_PY_POW:
            return int_pow(x, y, err);
        case TL_PY_AND:
            return bools ? tl_bool(x & y) : tl_int(x & y);
        case TL_PY_OR:
            return bools ? tl_bool(x | y) : tl_int(x | y);
        case TL_PY_XOR:
            return bools ? tl_bool(x ^ y) : tl_int(x ^ y);
        case TL_PY_LSHIFT:
            if (y < 0) {
                tl_error_set(err, TL_ERR_VALUE, "negative shift count");
                return NULL;
            }
            if (x == 0)
                return tl_int(0);
            if (y >= 63 || (x > 0 ? x > (INT64_MAX >> y) : x < (INT64_MIN >> y)))
                return int_overflow(err);
            return tl_int((int64_t)((uint64_t)x << y));
        case TL_PY_RSHIFT:
            if (y < 0) {
                tl_error_set(err, TL_ERR_VALUE, "negative shift count");
                return NULL;
            }
            return tl_int(y >= 63 ? (x < 0 ? -1 : 0) : (x >> y));
        default:
            return unsupported_operands(op, a, b, err);
        }
    }
    double x = fval(a), y = fval(b);
    switch (op) {
    case TL_PY_ADD: return tl_float(x + y);
    case TL_PY_SUB: return tl_float(x - y);
    case TL_PY_MUL: return tl_float(x * y);
    case TL_PY_TRUEDIV:
        if (y == 0.0) {
            tl_error_set(err, TL_ERR_ZERODIV, "float division by zero");
            return NULL;
        }
        return tl_float(x / y);
    case TL_PY_FLOORDIV:
    case TL_PY_MOD: {
        if (y == 0.0) {
            tl_error_set(err, TL_ERR_ZERODIV, op == TL_PY_MOD ? "float modulo"
                                                              : "float floor division by zero");
            return NULL;
        }
        double q, m;
        float_divmod(x, y, &q, &m);
        return tl_float(op == TL_PY_MOD ? m : q);
    }
    case TL_PY_POW: {
        if (x == 0.0 && y < 0) {
            tl_error_set(err, TL_ERR_ZERODIV, "0.0 cannot be raised to a negative power");
            return NULL;
        }
        if (x < 0 && y != floor(y) && isfinite(y)) {
            tl_error_set(err, TL_ERR_UNSUPPORTED,
                         "tlab does not support complex numbers");
            return NULL;
        }
        double r = pow(x, y);
        if (isinf(r) && isfinite(x) && isfinite(y)) {
            tl_error_set(err, TL_ERR_OVERFLOW, "(34, 'Numerical result out of range')");
            return NULL;
        }
        return tl_float(r);
    }
    default:
        return unsupported_operands(op, a, b, err);
    }
}

/* ---------------------------------------------------------------------- */
/* sequences */

static bool is_tuplelike(const tl_value *v)
{
    return v->kind == TL_V_TUPLE || v->kind == TL_V_SIZE;
}

static tl_value *seq_of_kind(tl_vkind kind, size_t n)
{
    if (kind == TL_V_LIST)
        return tl_list_new(n);
    tl_value *t = tl_tuple_new(n);
    if (kind == TL_V_SIZE)
        t->kind = TL_V_SIZE; /* same representation as a tuple */
    return t;
}

static tl_value *seq_concat(const tl_value *a, const tl_value *b, tl_error *err)
{
    tl_vkind kind = a->kind;
    size_t n = a->u.seq.n + b->u.seq.n;
    if (tl_pyops_charge_seq(n, err) < 0)
        return NULL;
    tl_value *r = seq_of_kind(kind, n);
    for (size_t i = 0; i < a->u.seq.n; i++)
        tl_seq_set(r, i, tl_value_retain(a->u.seq.items[i]));
    for (size_t i = 0; i < b->u.seq.n; i++)
        tl_seq_set(r, a->u.seq.n + i, tl_value_retain(b->u.seq.items[i]));
    return r;
}

/* k copies of something n long: k < 0 counts as 0; a LimitError past the
 * longest sequence. */
static int repeat_check(size_t n, int64_t *k, const char *what, tl_error *err)
{
    if (*k < 0)
        *k = 0;
    if (n && (uint64_t)*k > (uint64_t)tl_pyops_max_seq() / n)
        return tl_error_set(err, TL_ERR_LIMIT,
                            "%s repetition longer than the limit (%" PRId64 ")", what,
                            tl_pyops_max_seq());
    return 0;
}

static tl_value *seq_repeat(const tl_value *a, int64_t k, tl_error *err)
{
    size_t n = a->u.seq.n;
    if (repeat_check(n, &k, "sequence", err) < 0)
        return NULL;
    size_t total = n * (size_t)k;
    if (tl_pyops_charge_seq(total, err) < 0)
        return NULL;
    tl_value *r;
    if (a->kind == TL_V_LIST) {
        r = tl_list_new(0);
        for (size_t i = 0; i < total; i++) {
            if (tl_context_deadline_tick((int64_t)i, err) < 0) {
                tl_value_release(r);
                return NULL;
            }
            tl_list_append(r, tl_value_retain(a->u.seq.items[i % n]));
        }
    } else {
        r = seq_of_kind(a->kind, total);
        for (size_t i = 0; i < total; i++)
            tl_seq_set(r, i, tl_value_retain(a->u.seq.items[i % n]));
    }
    return r;
}

static tl_value *str_repeat(const tl_value *a, int64_t k, tl_error *err)
{
    size_t n = a->u.str.len;
    if (repeat_check(n, &k, "string", err) < 0)
        return NULL;
    if (n == 0 || k <= 0) /* "" * 10**12 is "" at once, not a long loop */
        return tl_strn("", 0);
    tl_buf b = {0};
    for (int64_t i = 0; i < k; i++)
        tl_buf_append(&b, a->u.str.s, n);
    tl_value *r = tl_strn(tl_buf_str(&b), b.len);
    tl_buf_free(&b);
    return r;
}

/* A NumPy scalar (n[0, 0]) keeps NumPy's dtype through arithmetic: a
 * Python int counts as int64, a float as float64, a bool as bool_; the
 * result type is np.result_type of the two (numpy.h), true division of
 * integers float64; the value is computed as Python does and stored in
 * that dtype (integers wrap, floats round). */
static bool is_np_scalar(const tl_value *v)
{
    return v->npdt == TL_NPDT_DTYPE &&
           (v->kind == TL_V_FLOAT || v->kind == TL_V_INT || v->kind == TL_V_BOOL);
}

static tl_dtype np_scalar_type(const tl_value *v)
{
    if (is_np_scalar(v))
        return v->sdtype;
    return v->kind == TL_V_BOOL ? TL_BOOL : v->kind == TL_V_INT ? TL_INT64 : TL_FLOAT64;
}

static tl_value *np_scalar_result(tl_value *r, tl_dtype dt, tl_error *err)
{
    if (!r)
        return NULL;
    tl_scalar sc = {0};
    if (r->kind == TL_V_FLOAT) {
        sc.is_float = true;
        sc.f = r->u.f;
    } else {
        sc.i = r->kind == TL_V_BOOL ? r->u.b : r->u.i;
        sc.f = (double)sc.i;
    }
    tl_value_release(r);
    tl_tensor *t = tl_numpy_scalar_as(dt, sc, err);
    if (!t)
        return NULL;
    tl_value *v = NULL;
    if (tl_dtype_is_floating(dt)) {
        double d;
        if (tl_tensor_get_f64(t, 0, &d, err) == 0)
            v = tl_float(d);
    } else {
        int64_t i;
        if (tl_tensor_get_i64(t, 0, &i, err) == 0)
            v = dt == TL_BOOL ? tl_bool(i != 0) : tl_int(i);
    }
    tl_tensor_release(t);
    if (v) {
        v->npdt = TL_NPDT_DTYPE;
        v->sdtype = dt;
    }
    return v;
}

static tl_value *np_scalar_binop(tl_pyop op, tl_value *a, tl_value *b, tl_error *err)
{
    tl_dtype dt = tl_numpy_promote(np_scalar_type(a), np_scalar_type(b));
    if (op == TL_PY_TRUEDIV && !tl_dtype_is_floating(dt))
        dt = TL_FLOAT64;
    return np_scalar_result(num_binop(op, a, b, err), dt, err);
}

/* NumPy's ufuncs give a scalar where their result is 0-d (n0 - n0, -n0,
 * n0 > 1, v @ v): r (taken) as that scalar; other results pass through */
static tl_value *np_0d_scalar(tl_value *r, tl_error *err)
{
    if (!r || r->kind != TL_V_NDARRAY || r->u.tensor->ndim != 0)
        return r;
    tl_value *s = tl_index_parse_np_scalar(r->u.tensor, err);
    tl_value_release(r);
    return s;
}

tl_value *tl_pyops_binary(tl_pyop op, tl_value *a, tl_value *b, tl_error *err)
{
    if (tl_value_is_tensorlike(a) || tl_value_is_tensorlike(b)) {
        if (op == TL_PY_MATMUL)
            return tl_named_matmul_check(a, b, err) < 0
                       ? NULL
                       : np_0d_scalar(tl_named_matmul(tl_grad_binop(op, a, b, tensor_binary, err),
                                                      a, b, err),
                                      err);
        return np_0d_scalar(tl_named_binary(tl_grad_binop(op, a, b, tensor_binary, err), a, b, err),
                            err);
    }
    if (is_num(a) && is_num(b) && (is_np_scalar(a) || is_np_scalar(b)))
        return np_scalar_binop(op, a, b, err);
    if (is_num(a) && is_num(b))
        return num_binop(op, a, b, err);
    bool sa = tl_value_is_seq(a), sb = tl_value_is_seq(b);
    if (op == TL_PY_ADD) {
        if (a->kind == TL_V_STR && b->kind == TL_V_STR) {
            if (tl_pyops_charge_seq(a->u.str.len + b->u.str.len, err) < 0)
                return NULL;
            tl_buf buf = {0};
            tl_buf_append(&buf, a->u.str.s, a->u.str.len);
            tl_buf_append(&buf, b->u.str.s, b->u.str.len);
            tl_value *r = tl_strn(tl_buf_str(&buf), buf.len);
            tl_buf_free(&buf);
            return r;
        }
        if (sa && sb && ((a->kind == TL_V_LIST) == (b->kind == TL_V_LIST)))
            return seq_concat(a, b, err);
        if (sa && a->kind != TL_V_SIZE) {
            tl_error_set(err, TL_ERR_TYPE, "can only concatenate %s (not \"%s\") to %s",
                         tl_value_type_name(a), tl_value_type_name(b),
                         tl_value_type_name(a));
            return NULL;
        }
    }
    if (op == TL_PY_MUL) {
        const tl_value *seq = NULL, *k = NULL;
        if (sa || a->kind == TL_V_STR) {
            seq = a;
            k = b;
        } else if (sb || b->kind == TL_V_STR) {
            seq = b;
            k = a;
        }
        if (seq) {
            if (!is_intlike(k)) {
                int64_t idx;
                if (!tl_value_as_index(k, &idx)) {
                    tl_error_set(err, TL_ERR_TYPE,
                                 "can't multiply sequence by non-int of type '%s'",
                                 tl_value_type_name(k));
                    return NULL;
                }
                return seq->kind == TL_V_STR ? str_repeat(seq, idx, err)
                                             : seq_repeat(seq, idx, err);
            }
            return seq->kind == TL_V_STR ? str_repeat(seq, ival(k), err)
                                         : seq_repeat(seq, ival(k), err);
        }
    }
    if (op == TL_PY_MOD && a->kind == TL_V_STR) {
        tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab does not support %%-formatting of strings");
        return NULL;
    }
    return unsupported_operands(op, a, b, err);
}

/* a OP= b */
tl_value *tl_pyops_binary_inplace(tl_pyop op, tl_value *a, tl_value *b, tl_error *err)
{
    if (tl_value_is_tensorlike(a))
        return tl_grad_binop_inplace(op, a, b, tensor_binary_inplace, err);
    if (a->kind == TL_V_LIST && op == TL_PY_ADD && !tl_value_is_tensorlike(b)) {
        tl_value **items;
        size_t n;
        if (tl_pyops_iterate(b, &items, &n, err) < 0)
            return NULL;
        if (tl_pyops_charge_seq(a->u.seq.n + n, err) < 0) {
            tl_pyops_items_free(items, n);
            return NULL;
        }
        for (size_t i = 0; i < n; i++)
            tl_list_append(a, items[i]);
        free(items);
        return tl_value_retain(a);
    }
    if (a->kind == TL_V_LIST && op == TL_PY_MUL && is_intlike(b)) {
        tl_value *r = seq_repeat(a, ival(b), err);
        if (!r)
            return NULL;
        /* replace a's items in place (lists are mutable and may be shared) */
        for (size_t i = 0; i < a->u.seq.n; i++)
            tl_value_release(a->u.seq.items[i]);
        a->u.seq.n = 0;
        for (size_t i = 0; i < r->u.seq.n; i++)
            tl_list_append(a, tl_value_retain(r->u.seq.items[i]));
        tl_value_release(r);
        return tl_value_retain(a);
    }
    tl_value *r = tl_pyops_binary(op, a, b, err);
    /* Python names the augmented operator: "for +=:", not "for +:" */
    static const char pre[] = "unsupported operand type(s) for ";
    char *colon;
    if (!r && err->kind == TL_ERR_TYPE && strncmp(err->msg, pre, sizeof pre - 1) == 0 &&
        (colon = strchr(err->msg + sizeof pre - 1, ':')) != NULL && colon[-1] != '=' &&
        strlen(err->msg) + 2 < sizeof err->msg) {
        memmove(colon + 1, colon, strlen(colon) + 1);
        *colon = '=';
    }
    return r;
}

tl_value *tl_pyops_unary(tl_pyunop op, tl_value *a, tl_error *err)
{
    if (tl_value_is_tensorlike(a))
        return np_0d_scalar(tl_named_binary(tl_grad_unop(op, a, tensor_unary, err), a, a, err),
                            err);
    const char *sym = op == TL_PY_NEG ? "-" : op == TL_PY_POS ? "+" : "~";
    if (is_np_scalar(a) && a->kind != TL_V_BOOL && op != TL_PY_INVERT) {
        /* -n[0, 0] stays a NumPy scalar of its dtype (uint8 wraps) */
        tl_value *plain = a->kind == TL_V_FLOAT ? tl_float(a->u.f) : tl_int(a->u.i);
        tl_value *r = tl_pyops_unary(op, plain, err);
        tl_value_release(plain);
        return np_scalar_result(r, a->sdtype, err);
    }
    if (is_intlike(a)) {
        int64_t x = ival(a);
        if (op == TL_PY_NEG) {
            if (x == INT64_MIN)
                return int_overflow(err);
            return tl_int(-x);
        }
        if (op == TL_PY_POS)
            return tl_int(x);
        return tl_int(~x);
    }
    if (a->kind == TL_V_FLOAT && op != TL_PY_INVERT)
        return tl_float(op == TL_PY_NEG ? -a->u.f : a->u.f);
    tl_error_set(err, TL_ERR_TYPE, "bad operand type for unary %s: '%s'", sym,
                 tl_value_type_name(a));
    return NULL;
}

int tl_pyops_truthy(tl_value *v, bool *out, tl_error *err)
{
    return tl_value_truthy(v, out, err);
}

/* ---------------------------------------------------------------------- */
/* comparisons */

/* Python ordering of two non-tensor values: -1/0/1 in *out, or an error. */
static int order(const tl_value *a, const tl_value *b, tl_cmpop op, int *out,
                 tl_error *err)
{
    static const char *const sym[] = {"==", "!=", "<", "<=", ">", ">="};
    int depth = 0;     /* levels descended so far, capped at the limit */
    int64_t steps = 0; /* levels descended, for the deadline poll */
again: /* sequences descend into their first differing items by looping, not
        * recursing: a list can nest 100000 deep */
    if (is_num(a) && is_num(b)) {
        if (is_intlike(a) && is_intlike(b)) {
            int64_t x = ival(a), y = ival(b);
            *out = x < y ? -1 : x > y;
        } else {
            double x = fval(a), y = fval(b);
            if (isnan(x) || isnan(y))
                *out = 2; /* unordered */
            else
                *out = x < y ? -1 : x > y;
        }
        return 0;
    }
    if (a->kind == TL_V_STR && b->kind == TL_V_STR) {
        size_t n = a->u.str.len < b->u.str.len ? a->u.str.len : b->u.str.len;
        int c = memcmp(a->u.str.s, b->u.str.s, n);
        if (c == 0)
            c = a->u.str.len < b->u.str.len ? -1 : a->u.str.len > b->u.str.len;
        *out = c < 0 ? -1 : c > 0;
        return 0;
    }
    if ((a->kind == TL_V_LIST && b->kind == TL_V_LIST) ||
        (is_tuplelike(a) && is_tuplelike(b))) {
        size_t n = a->u.seq.n < b->u.seq.n ? a->u.seq.n : b->u.seq.n;
        for (size_t i = 0; i < n; i++) {
            const tl_value *x = a->u.seq.items[i], *y = b->u.seq.items[i];
            /* Python finds the first differing items with ==, which
             * raises past the depth limit; so does this */
            bool same;
            if (tl_value_equal_at_checked(x, y, depth + 1, &same, err) < 0)
                return -1;
            if (same)
                continue;
            a = x;
            b = y;
            if (depth < TL_VALUE_MAX_DEPTH)
                depth++;
            if (tl_context_deadline_tick(steps++, err) < 0)
                return -1;
            goto again;
        }
        *out = a->u.seq.n < b->u.seq.n ? -1 : a->u.seq.n > b->u.seq.n;
        return 0;
    }
    return tl_error_set(err, TL_ERR_TYPE,
                        "'%s' not supported between instances of '%s' and '%s'",
                        sym[op], tl_value_type_name(a), tl_value_type_name(b));
}

static tl_value *contains(tl_value *container, tl_value *item, tl_error *err)
{
    if (tl_value_is_tensorlike(container)) {
        tl_value *eq = tensor_binary(TL_PY_EQ, container, item, err);
        if (!eq)
            return NULL;
        bool any = false;
        if (tl_value_is_tensorlike(eq)) {
            /* one host read of the comparison, then a host scan */
            tl_tensor *h = tl_tensor_read_host(eq->u.tensor, err);
            if (!h) {
                tl_value_release(eq);
                return NULL;
            }
            int64_t n = tl_tensor_numel(h);
            for (int64_t i = 0; i < n && !any; i++) {
                double d = 0;
                int rc = tl_tensor_get_f64(h, i, &d, err);
                any = d != 0.0;
                if (rc < 0 || tl_context_deadline_tick((int64_t)i, err) < 0) {
                    tl_tensor_release(h);
                    tl_value_release(eq);
                    return NULL;
                }
            }
            tl_tensor_release(h);
        } else if (tl_value_truthy(eq, &any, err) < 0) {
            tl_value_release(eq);
            return NULL;
        }
        tl_value_release(eq);
        return tl_bool(any);
    }
    if (container->kind == TL_V_STR) {
        if (item->kind != TL_V_STR) {
            tl_error_set(err, TL_ERR_TYPE, "'in <string>' requires string as left operand, not %s",
                         tl_value_type_name(item));
            return NULL;
        }
        if (item->u.str.len == 0)
            return tl_bool(true);
        for (size_t i = 0; i + item->u.str.len <= container->u.str.len; i++)
            if (memcmp(container->u.str.s + i, item->u.str.s, item->u.str.len) == 0)
                return tl_bool(true);
        return tl_bool(false);
    }
    if (container->kind == TL_V_DICT) {
        if (!tl_value_hashable(item)) {
            tl_error_set(err, TL_ERR_TYPE, "unhashable type: '%s'", tl_value_type_name(item));
            return NULL;
        }
        return tl_bool(tl_dict_get(container, item) != NULL);
    }
    if (container->kind == TL_V_OBJECT && container->u.obj.cls->contains) {
        bool in = false;
        if (container->u.obj.cls->contains(container, item, &in, err) < 0)
            return NULL;
        return tl_bool(in);
    }
    if (tl_value_is_seq(container)) {
        for (size_t i = 0; i < container->u.seq.n; i++) {
            tl_value *x = container->u.seq.items[i];
            if (tl_value_is(x, item))
                return tl_bool(true);
            tl_value *eq = tl_pyops_compare(TL_CMP_EQ, x, item, err);
            if (!eq)
                return NULL;
            bool t;
            int rc = tl_value_truthy(eq, &t, err);
            tl_value_release(eq);
            if (rc < 0)
                return NULL;
            if (t)
                return tl_bool(true);
        }
        return tl_bool(false);
    }
    tl_error_set(err, TL_ERR_TYPE, "argument of type '%s' is not iterable",
                 tl_value_type_name(container));
    return NULL;
}

tl_value *tl_pyops_compare(tl_cmpop op, tl_value *a, tl_value *b, tl_error *err)
{
    switch (op) {
    case TL_CMP_IS:
        return tl_bool(tl_value_is(a, b));
    case TL_CMP_IS_NOT:
        return tl_bool(!tl_value_is(a, b));
    case TL_CMP_IN:
    case TL_CMP_NOT_IN: {
        tl_value *r = contains(b, a, err);
        if (r && op == TL_CMP_NOT_IN)
            r->u.b = !r->u.b;
        return r;
    }
    default:
        break;
    }
    if (tl_value_is_tensorlike(a) || tl_value_is_tensorlike(b)) {
        static const tl_pyop map[] = {TL_PY_EQ, TL_PY_NE, TL_PY_LT, TL_PY_LE,
                                      TL_PY_GT, TL_PY_GE};
        return np_0d_scalar(tl_named_binary(tensor_binary(map[op], a, b, err), a, b, err), err);
    }
    if (op == TL_CMP_EQ || op == TL_CMP_NE) {
        bool eq; /* RecursionError past the nesting limit, as Python */
        if (tl_value_equal_checked(a, b, &eq, err) < 0)
            return NULL;
        return tl_bool(op == TL_CMP_EQ ? eq : !eq);
    }
    int c = 0;
    if (order(a, b, op, &c, err) < 0)
        return NULL;
    if (c == 2)
        return tl_bool(false);
    switch (op) {
    case TL_CMP_LT: return tl_bool(c < 0);
    case TL_CMP_LE: return tl_bool(c <= 0);
    case TL_CMP_GT: return tl_bool(c > 0);
    default: return tl_bool(c >= 0);
    }
}

/* ---------------------------------------------------------------------- */
/* iteration */

void tl_pyops_items_free(tl_value **items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tl_value_release(items[i]);
    free(items);
}

int tl_pyops_iterate(tl_value *v, tl_value ***items, size_t *n, tl_error *err)
{
    *items = NULL;
    *n = 0;
    switch (v->kind) {
    case TL_V_TUPLE:
    case TL_V_LIST:
    case TL_V_SIZE: {
        size_t k = v->u.seq.n;
        tl_value **out = tl_xmalloc((k ? k : 1) * sizeof *out);
        for (size_t i = 0; i < k; i++)
            out[i] = tl_value_retain(v->u.seq.items[i]);
        *items = out;
        *n = k;
        return 0;
    }
    case TL_V_STR: {
        size_t k = v->u.str.len;
        if (tl_pyops_charge_seq(k, err) < 0)
            return -1;
        tl_value **out = tl_xmalloc((k ? k : 1) * sizeof *out);
        for (size_t i = 0; i < k; i++)
            out[i] = tl_strn(v->u.str.s + i, 1);
        *items = out;
        *n = k;
        return 0;
    }
    case TL_V_TENSOR:
    case TL_V_NDARRAY: {
        const tl_tensor *t = v->u.tensor;
        if (t->ndim == 0)
            return tl_error_set(err, TL_ERR_TYPE, v->kind == TL_V_TENSOR
                                                      ? "iteration over a 0-d tensor"
                                                      : "iteration over a 0-d array");
        int64_t k = t->sizes[0];
        if (tl_pyops_charge_seq((size_t)k, err) < 0)
            return -1;
        tl_value **out = tl_xmalloc((k ? (size_t)k : 1) * sizeof *out);
        for (int64_t i = 0; i < k; i++) {
            tl_value *idx = tl_int(i);
            out[i] = tl_grad_index_get(v, idx, err);
            tl_value_release(idx);
            if (!out[i] || tl_context_deadline_tick((int64_t)i, err) < 0) {
                if (out[i])
                    i++;
                tl_pyops_items_free(out, (size_t)i);
                return -1;
            }
        }
        *items = out;
        *n = (size_t)k;
        return 0;
    }
    case TL_V_STORAGE: {
        size_t k = v->u.storage->nbytes / (v->typed ? tl_dtype_size(v->sdtype) : 1);
        if (tl_pyops_charge_seq(k, err) < 0)
            return -1;
        tl_value **out = tl_xmalloc((k ? k : 1) * sizeof *out);
        for (size_t i = 0; i < k; i++) {
            tl_value *idx = tl_int((int64_t)i);
            out[i] = tl_convert_storage_get(v, idx, err);
            tl_value_release(idx);
            if (!out[i]) {
                tl_pyops_items_free(out, i);
                return -1;
            }
        }
        *items = out;
        *n = k;
        return 0;
    }
    case TL_V_DICT: { /* the keys */
        size_t k = v->u.seq.n / 2;
        tl_value **out = tl_xmalloc((k ? k : 1) * sizeof *out);
        for (size_t i = 0; i < k; i++)
            out[i] = tl_value_retain(v->u.seq.items[2 * i]);
        *items = out;
        *n = k;
        return 0;
    }
    case TL_V_OBJECT:
        if (v->u.obj.cls->iter) {
            tl_value *l = v->u.obj.cls->iter(v, err);
            if (!l)
                return -1;
            int rc = tl_pyops_iterate(l, items, n, err);
            tl_value_release(l);
            return rc;
        }
        /* fall through */
    default:
        return tl_error_set(err, TL_ERR_TYPE, "'%s' object is not iterable",
                            tl_value_type_name(v));
    }
}

/* ---------------------------------------------------------------------- */
/* subscripts of plain sequences */

static int slice_part(const tl_value *v, int64_t *out, bool *none, tl_error *err)
{
    if (v->kind == TL_V_NONE) {
        *none = true;
        return 0;
    }
    *none = false;
    if (!tl_value_as_index(v, out))
        return tl_error_set(err, TL_ERR_TYPE,
                            "slice indices must be integers or None or have an "
                            "__index__ method");
    return 0;
}

/* A given slice start or stop, counted from the end when negative and
 * clamped to the sequence (as PySlice_AdjustIndices). */
static int64_t clamp_bound(int64_t v, int64_t len, int64_t step)
{
    if (v < 0) {
        v += len;
        if (v < 0)
            v = step < 0 ? -1 : 0;
    } else if (v >= len) {
        v = step < 0 ? len - 1 : len;
    }
    return v;
}

/* PySlice_GetIndicesEx: start/step/count for a sequence of length len */
static int slice_indices(const tl_value *sl, int64_t len, int64_t *start,
                         int64_t *step, int64_t *count, tl_error *err)
{
    int64_t st = 0, sp = 0, stp = 1;
    bool n0, n1, n2;
    if (slice_part(sl->u.slice.start, &st, &n0, err) < 0 ||
        slice_part(sl->u.slice.stop, &sp, &n1, err) < 0 ||
        slice_part(sl->u.slice.step, &stp, &n2, err) < 0)
        return -1;
    if (n2)
        stp = 1;
    if (stp == 0)
        return tl_error_set(err, TL_ERR_VALUE, "slice step cannot be zero");
    st = n0 ? (stp < 0 ? len - 1 : 0) : clamp_bound(st, len, stp);
    sp = n1 ? (stp < 0 ? -1 : len) : clamp_bound(sp, len, stp);
    int64_t c = 0;
    if (stp < 0) {
        if (sp < st)
            c = (st - sp - 1) / (-stp) + 1;
    } else if (st < sp) {
        c = (sp - st - 1) / stp + 1;
    }
    *start = st;
    *step = stp;
    *count = c;
    return 0;
}

static const char *seq_noun(const tl_value *v)
{
    return v->kind == TL_V_LIST ? "list" : v->kind == TL_V_STR ? "string" : "tuple";
}

static tl_value *seq_getitem(tl_value *obj, tl_value *idx, tl_error *err)
{
    int64_t len = obj->kind == TL_V_STR ? (int64_t)obj->u.str.len : (int64_t)obj->u.seq.n;
    if (idx->kind == TL_V_SLICE) {
        int64_t start = 0, step = 1, count = 0;
        if (slice_indices(idx, len, &start, &step, &count, err) < 0)
            return NULL;
        if (obj->kind == TL_V_STR) {
            tl_buf b = {0};
            tl_buf_puts(&b, "");
            for (int64_t i = 0; i < count; i++)
                tl_buf_putc(&b, obj->u.str.s[start + i * step]);
            tl_value *r = tl_strn(tl_buf_str(&b), b.len);
            tl_buf_free(&b);
            return r;
        }
        tl_value *r = seq_of_kind(obj->kind, (size_t)count);
        for (int64_t i = 0; i < count; i++)
            tl_seq_set(r, (size_t)i, tl_value_retain(obj->u.seq.items[start + i * step]));
        return r;
    }
    int64_t i;
    if (!tl_value_as_index(idx, &i)) {
        if (obj->kind == TL_V_STR)
            tl_error_set(err, TL_ERR_TYPE, "string indices must be integers, not '%s'",
                         tl_value_type_name(idx));
        else
            tl_error_set(err, TL_ERR_TYPE, "%s indices must be integers or slices, not %s",
                         seq_noun(obj), tl_value_type_name(idx));
        return NULL;
    }
    if (i < 0)
        i += len;
    if (i < 0 || i >= len) {
        tl_error_set(err, TL_ERR_INDEX, "%s index out of range", seq_noun(obj));
        return NULL;
    }
    if (obj->kind == TL_V_STR)
        return tl_strn(obj->u.str.s + i, 1);
    return tl_value_retain(obj->u.seq.items[i]);
}

tl_value *tl_pyops_getitem(tl_value *obj, tl_value *idx, tl_error *err)
{
    switch (obj->kind) {
    case TL_V_TENSOR:
    case TL_V_NDARRAY:
        return tl_named_getitem(tl_grad_index_get(obj, idx, err), obj, idx, err);
    case TL_V_LIST:
    case TL_V_TUPLE:
    case TL_V_SIZE:
    case TL_V_STR:
        return seq_getitem(obj, idx, err);
    case TL_V_STORAGE:
        return tl_convert_storage_get(obj, idx, err);
    case TL_V_DICT: {
        if (!tl_value_hashable(idx)) {
            tl_error_set(err, TL_ERR_TYPE, "unhashable type: '%s'", tl_value_type_name(idx));
            return NULL;
        }
        tl_value *v = tl_dict_get(obj, idx);
        if (!v) {
            tl_buf b = {0};
            tl_value_repr_bounded(idx, &b, 200);
            tl_error_set(err, TL_ERR_KEY, "%s", tl_buf_str(&b));
            tl_buf_free(&b);
            return NULL;
        }
        return tl_value_retain(v);
    }
    case TL_V_OBJECT:
        if (obj->u.obj.cls->getitem)
            return obj->u.obj.cls->getitem(obj, idx, err);
        /* fall through */
    default:
        tl_error_set(err, TL_ERR_TYPE, "'%s' object is not subscriptable",
                     tl_value_type_name(obj));
        return NULL;
    }
}

int tl_pyops_setitem(tl_value *obj, tl_value *idx, tl_value *v, tl_error *err)
{
    switch (obj->kind) {
    case TL_V_TENSOR:
    case TL_V_NDARRAY:
        return tl_grad_index_set(obj, idx, v, err);
    case TL_V_LIST: {
        if (idx->kind == TL_V_SLICE)
            return tl_error_set(err, TL_ERR_UNSUPPORTED,
                                "tlab does not support assigning to list slices");
        int64_t i, len = (int64_t)obj->u.seq.n;
        if (!tl_value_as_index(idx, &i))
            return tl_error_set(err, TL_ERR_TYPE,
                                "list indices must be integers or slices, not %s",
                                tl_value_type_name(idx));
        if (i < 0)
            i += len;
        if (i < 0 || i >= len)
            return tl_error_set(err, TL_ERR_INDEX, "list assignment index out of range");
        tl_seq_set(obj, (size_t)i, tl_value_retain(v));
        return 0;
    }
    case TL_V_STORAGE:
        return tl_convert_storage_set(obj, idx, v, err);
    case TL_V_DICT:
        if (!tl_value_hashable(idx))
            return tl_error_set(err, TL_ERR_TYPE, "unhashable type: '%s'",
                                tl_value_type_name(idx));
        if (!tl_dict_get(obj, idx) && tl_pyops_charge_seq(2, err) < 0)
            return -1;
        tl_dict_set(obj, idx, tl_value_retain(v));
        return 0;
    case TL_V_OBJECT:
        if (obj->u.obj.cls->setitem)
            return obj->u.obj.cls->setitem(obj, idx, v, err);
        /* fall through */
    default:
        return tl_error_set(err, TL_ERR_TYPE,
                            "'%s' object does not support item assignment",
                            tl_value_type_name(obj));
    }
}
