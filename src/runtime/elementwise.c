/* elementwise.c - elementwise ops: binary (with alpha and rounding
 * modes), unary, where, clamp, masked_fill, and 1-D/2-D matmul.
 *
 * Part of the ops family (ops.h is its public interface, ops_impl.h the
 * helpers its files share); see iter.c for the design every op follows:
 * kernels only through the backend, TensorIterator's dtype and layout
 * rules, PyTorch's order of in-place checks, C operands (tl_operand,
 * int64 dim lists, out-parameters) and never a Python value.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "create.h"
#include "matmul.h"
#include "ops.h"
#include "ops_impl.h"
#include "shape.h"

/* ===================================================================== */
/* elementwise binary ops                                                 */
/* ===================================================================== */

typedef enum binkind {
    BK_ARITH,   /* out = compute = result_type */
    BK_FLOAT,   /* integral results promoted to the default float */
    BK_CMP,     /* compute = result_type, out = bool */
    BK_LOGICAL, /* out = bool, any dtype */
    BK_BITWISE  /* integral/bool only */
} binkind;

static binkind binop_kind(tl_binop op)
{
    switch (op) {
    case TL_BIN_DIV:
    case TL_BIN_ATAN2:
        return BK_FLOAT;
    case TL_BIN_EQ: case TL_BIN_NE: case TL_BIN_LT: case TL_BIN_LE:
    case TL_BIN_GT: case TL_BIN_GE:
        return BK_CMP;
    case TL_BIN_LOGICAL_AND: case TL_BIN_LOGICAL_OR: case TL_BIN_LOGICAL_XOR:
        return BK_LOGICAL;
    case TL_BIN_BITAND: case TL_BIN_BITOR: case TL_BIN_BITXOR:
    case TL_BIN_LSHIFT: case TL_BIN_RSHIFT:
        return BK_BITWISE;
    default:
        return BK_ARITH;
    }
}

static const char *binop_kernel_name(tl_binop op)
{
    switch (op) {
    case TL_BIN_BITAND: return "bitwise_and_cpu";
    case TL_BIN_BITOR: return "bitwise_or_cpu";
    case TL_BIN_BITXOR: return "bitwise_xor_cpu";
    case TL_BIN_LSHIFT: return "lshift_cpu";
    case TL_BIN_RSHIFT: return "rshift_cpu";
    default: return "binary_cpu";
    }
}

/* PyTorch names its kernels after the device: "bitwise_and_cuda", not
 * "bitwise_and_cpu" (and CUDA has no "_vml" kernels). Rewrites a dtype
 * error of the rules below for a tensor on `dev`; returns -1. */
static int device_kernel_names(tl_device dev, tl_error *err)
{
    if (dev.kind != TL_DEV_CUDA || !err)
        return -1;
    static const char *const from[] = {"_vml_cpu\"", "_cpu\""};
    for (int k = 0; k < 2; k++) {
        char *p = strstr(err->msg, from[k]);
        if (!p)
            continue;
        size_t fl = strlen(from[k]);
        char tail[sizeof err->msg];
        snprintf(tail, sizeof tail, "%s", p + fl);
        snprintf(p, sizeof err->msg - (size_t)(p - err->msg), "_cuda\"%s", tail);
        break;
    }
    return -1;
}

static bool opnd_is_zero(const opnd *o)
{
    if (o->t)
        return false;
    return o->s.is_float ? o->s.f == 0.0 : o->s.i == 0;
}

/* The checks PyTorch's structured meta functions make before they build the
 * TensorIterator (sub_check; pow's "Integers to negative integer powers"):
 * they come before the iterator's memory-overlap check of an in-place op,
 * so `expanded_bool -= False` names the bool subtraction, not the overlap. */
static int meta_check(tl_binop op, const opnd *a, const opnd *b, tl_error *err)
{
    tl_dtype da = tl_ops_opnd_dtype(a), db = tl_ops_opnd_dtype(b);
    if (op == TL_BIN_SUB && (da == TL_BOOL || db == TL_BOOL)) {
        if (da == TL_BOOL && db == TL_BOOL)
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.");
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    }
    if (op == TL_BIN_POW && a->t && !tl_dtype_is_floating(da) && !b->t &&
        !b->s.is_float && b->sdt != TL_BOOL && b->s.i < 0)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "Integers to negative integer powers are not allowed.");
    return 0;
}

/* Dtype rules of a binary op: compute dtype and output dtype, or an error.
 * `a`, `b` are the two operands in order. */
static int binop_types(tl_binop op, const opnd *a, const opnd *b, bool empty,
                       tl_dtype *compute, tl_dtype *outdt, tl_error *err)
{
    opnd ops[2] = {*a, *b};
    tl_dtype common = tl_ops_result_type(ops, 2);
    switch (binop_kind(op)) {
    case BK_FLOAT:
        if (!tl_dtype_is_floating(common))
            common = TL_FLOAT32;
        *compute = *outdt = common;
        return 0;
    case BK_CMP:
        *compute = common;
        *outdt = TL_BOOL;
        return 0;
    case BK_LOGICAL:
        *compute = common;
        *outdt = TL_BOOL;
        return 0;
    case BK_BITWISE:
        if (tl_dtype_is_floating(common))
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "\"%s\" not implemented for '%s'",
                                binop_kernel_name(op),
                                tl_dtype_scalar_name(common));
        *compute = *outdt = common;
        return 0;
    case BK_ARITH:
        break;
    }
    if (meta_check(op, a, b, err) < 0)
        return -1;
    if (common == TL_BOOL) {
        /* CPU kernels that dispatch no Bool (1.13 and 2.x) */
        const char *k = op == TL_BIN_FLOORDIV ? "div_floor_cpu"
                        : op == TL_BIN_REMAINDER ? "remainder_cpu"
                        : op == TL_BIN_FMOD ? "fmod_cpu"
                        : op == TL_BIN_POW ? "pow" : NULL;
        if (k)
            return tl_error_set(err, TL_ERR_RUNTIME, "\"%s\" not implemented for 'Bool'", k);
    }
    /* the kernel raises on a zero divisor, so an empty result does not */
    if ((op == TL_BIN_FLOORDIV || op == TL_BIN_REMAINDER || op == TL_BIN_FMOD) &&
        !tl_dtype_is_floating(common) && opnd_is_zero(b) && !empty)
        return tl_error_set(err, TL_ERR_RUNTIME, "ZeroDivisionError");
    *compute = *outdt = common;
    return 0;
}

/* pow(Tensor, 0.5, -0.5 or -1) in float, double and bfloat16: sqrt,
 * rsqrt and reciprocal, as pow_tensor_scalar_kernel dispatches them.
 * pow(Tensor, 3 or -2) in float, double and bfloat16: PyTorch's
 * pow_tensor_scalar_optimized_kernel multiplies in the tensor's dtype,
 * base * base * base and 1 / (base * base), so the square is rounded to that
 * dtype before the second step (a bfloat16 cube can differ from the rounded
 * pow() by one unit). Half goes through std::pow (one rounding); so does
 * every other exponent. 1 if it ran, 0 if not this case, -1 on error. */
static int pow_by_products(tl_dtype compute, const tl_tensor *dst, const opnd *a,
                           const opnd *b, tl_error *err)
{
    if (!a->t || b->t || dst->dtype != compute ||
        (compute != TL_FLOAT32 && compute != TL_FLOAT64 && compute != TL_BFLOAT16))
        return 0;
    double e = b->s.is_float ? b->s.f : (double)b->s.i;
    if (b->sdt == TL_BOOL)
        return 0;
    /* pow_tensor_scalar_kernel's fast paths: sqrt (so pow(-inf, 0.5) is
     * nan and pow(-0., 0.5) is -0.), rsqrt (1 / sqrt, two roundings) and
     * reciprocal */
    tl_unop fast = e == 0.5 ? TL_UN_SQRT : e == -0.5 ? TL_UN_RSQRT
                 : e == -1.0 ? TL_UN_RECIPROCAL : TL_NUNOPS;
    if (fast != TL_NUNOPS)
        return tl_ops_run_unary(fast, compute, dst, a->t, err) < 0 ? -1 : 1;
    if (e != 3.0 && e != -2.0)
        return 0;
    tl_tensor *sq = tl_tensor_new(tl_tensor_backend(dst), compute, dst->ndim, dst->sizes,
                                  err);
    if (!sq)
        return -1;
    opnd s = tl_ops_opnd_tensor(sq), one = tl_ops_opnd_float(1.0);
    int rc = tl_ops_run_binary(TL_BIN_MUL, compute, sq, a, a, err);
    if (rc == 0)
        rc = e == 3.0 ? tl_ops_run_binary(TL_BIN_MUL, compute, dst, &s, a, err)
                      : tl_ops_run_binary(TL_BIN_DIV, compute, dst, &one, &s, err);
    tl_tensor_release(sq);
    return rc < 0 ? -1 : 1;
}

/* Run the kernel: dst <- a OP b over dst's shape. */
int tl_ops_run_binary(tl_binop op, tl_dtype compute, const tl_tensor *dst,
                      const opnd *a, const opnd *b, tl_error *err)
{
    if (op == TL_BIN_POW && tl_tensor_numel(dst) > 0) {
        int pr = pow_by_products(compute, dst, a, b, err);
        if (pr != 0)
            return pr < 0 ? -1 : 0;
    }
    const tl_backend *be = tl_tensor_backend(dst);
    int nd = dst->ndim;
    int64_t sa[TL_MAX_DIMS], sb[TL_MAX_DIMS];
    scratch ca = {0}, cb = {0};
    tl_strided d = tl_ops_strided_of(dst), xa, xb;
    int rc = -1;
    if (tl_tensor_numel(dst) == 0)
        return 0;
    if (tl_ops_opnd_strided(a, be, nd, dst->sizes, sa, &ca, &xa, err) < 0)
        goto out;
    if (tl_ops_opnd_strided(b, be, nd, dst->sizes, sb, &cb, &xb, err) < 0)
        goto out;
    rc = tl_backend_binary(be, op, compute, &d, &xa, &xb, err);
out:
    tl_ops_scratch_free(&ca);
    tl_ops_scratch_free(&cb);
    return rc;
}

/* Fold alpha into b for add/sub: b*alpha (a Python number stays a number;
 * a tensor becomes a temporary). *tmp receives the temporary to release. */
static int apply_alpha(const opnd *a, opnd *b, const opnd *alpha,
                       tl_tensor **tmp, tl_error *err)
{
    *tmp = NULL;
    if (!alpha)
        return 0;
    TL_ASSERT(!alpha->t); /* a number (the py layer checks) */
    opnd ops[2] = {*a, *b};
    tl_dtype common = tl_ops_result_type(ops, 2);
    bool af = alpha->s.is_float;
    double fa = alpha->s.f;
    int64_t ia = alpha->s.i;
    if (af && !tl_dtype_is_floating(common))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "For integral input tensors, argument alpha must not be a floating point number.");
    if (!af && ia == 1)
        return 0;
    if (!b->t) {
        if (b->s.is_float)
            b->s.f *= fa;
        else if (af) {
            /* an int times a float alpha is a float (0.5, not int64 0) */
            b->s.is_float = true;
            b->sdt = TL_FLOAT64;
            b->s.f = (double)b->s.i * fa;
        } else {
            b->s.i *= ia;
            b->s.f = (double)b->s.i;
        }
        return 0;
    }
    /* tensor operand: b*alpha in the common dtype, b's shape */
    tl_tensor *t = tl_tensor_new(tl_tensor_backend(b->t), common, b->t->ndim,
                                 b->t->sizes, err);
    if (!t)
        return -1;
    opnd al = af ? tl_ops_opnd_float(fa) : tl_ops_opnd_int(ia);
    if (tl_ops_run_binary(TL_BIN_MUL, common, t, b, &al, err) < 0) {
        tl_tensor_release(t);
        return -1;
    }
    t->requires_grad = b->t->requires_grad;
    b->t = t;
    *tmp = t;
    return 0;
}

/* out = a OP b (new tensor, TensorIterator layout). */
tl_tensor *tl_ops_binary_new(tl_binop op, const opnd *a, const opnd *b,
                             tl_error *err)
{
    opnd ops[2] = {*a, *b};
    const tl_backend *be;
    if (tl_ops_common_device(ops, 2, &be, err) < 0)
        return NULL;
    int nd;
    int64_t shape[TL_MAX_DIMS], st[TL_MAX_DIMS];
    if (tl_ops_opnds_shape(ops, 2, &nd, shape, err) < 0)
        return NULL;
    tl_dtype compute, outdt;
    int64_t onumel = 1;
    for (int i = 0; i < nd; i++)
        onumel *= shape[i] > 0 ? 1 : 0;
    if (binop_types(op, a, b, onumel == 0, &compute, &outdt, err) < 0) {
        device_kernel_names(tl_backend_device(be), err);
        return NULL;
    }
    /* pow(Tensor, Scalar) is a unary TensorIterator (the exponent is no
     * operand), so its layout follows sqrt's, not `x + 1`'s */
    bool unary = op == TL_BIN_POW && a->t && !b->t;
    tl_ops_iter_out_strides(ops, unary ? 1 : 2, compute, nd, shape, st);
    tl_tensor *out = tl_tensor_new_for_write(be, outdt, nd, shape, st, err);
    if (!out)
        return NULL;
    if (tl_ops_run_binary(op, compute, out, a, b, err) < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    tl_ops_grad_result(out, tl_ops_opnds_grad(ops, 2));
    return out;
}

static int cast_error(tl_dtype from, tl_dtype to, tl_error *err)
{
    return tl_error_set(err, TL_ERR_RUNTIME,
                        "result type %s can't be cast to the desired output type %s",
                        tl_dtype_scalar_name(from), tl_dtype_scalar_name(to));
}

/* Device check for an in-place op: b must live with dst (or be a 0-d CPU
 * tensor / number). */
static int inplace_device(const tl_tensor *dst, const opnd *b, tl_error *err)
{
    if (!b->t)
        return 0;
    tl_device dd = tl_tensor_device(dst), bd = tl_tensor_device(b->t);
    if (tl_ops_same_device(dd, bd) || (bd.kind == TL_DEV_CPU && b->t->ndim == 0))
        return 0;
    /* the CPU tensor's device comes second */
    return bd.kind == TL_DEV_CPU ? tl_ops_device_mismatch(dd, bd, err)
                                 : tl_ops_device_mismatch(bd, dd, err);
}

/* dst OP= b, in place (no version bump, no leaf check). */
static int binary_inplace_checked(tl_binop op, tl_tensor *dst, const opnd *b,
                                  tl_error *err)
{
    opnd a = tl_ops_opnd_tensor(dst);
    if (meta_check(op, &a, b, err) < 0)
        return -1;
    if (tl_ops_assert_no_internal_overlap(dst, err) < 0)
        return -1;
    if (b->t && tl_ops_assert_no_partial_overlap(dst, b->t, err) < 0)
        return -1;
    if (inplace_device(dst, b, err) < 0)
        return -1;
    opnd ops[2] = {a, *b};
    int nd;
    int64_t shape[TL_MAX_DIMS];
    if (tl_ops_opnds_shape(ops, 2, &nd, shape, err) < 0)
        return -1;
    if (tl_ops_check_out_shape(dst, nd, shape, err) < 0)
        return -1;
    tl_dtype compute, outdt;
    binkind k = binop_kind(op);
    if (k == BK_BITWISE) {
        /* the iterator's cast check comes before the kernel's dispatch:
         * `int_t.bitwise_and_(2.5)` names the Float -> Int cast */
        tl_dtype common = tl_ops_result_type(ops, 2);
        if (tl_dtype_is_floating(common) && !tl_dtype_can_cast(common, dst->dtype))
            return cast_error(common, dst->dtype, err);
    }
    if (binop_types(op, &a, b, tl_tensor_numel(dst) == 0, &compute, &outdt, err) < 0)
        return device_kernel_names(tl_tensor_device(dst), err);
    tl_dtype res = k == BK_CMP || k == BK_LOGICAL ? compute : outdt;
    if (op == TL_BIN_POW && !b->t && res != dst->dtype)
        /* pow.Tensor_Scalar is a unary iterator over self.to(result_type)
         * with check_all_same_dtype: its own text, even where a cast could */
        return tl_error_set(err, TL_ERR_RUNTIME, "Found dtype %s but expected %s",
                            tl_dtype_scalar_name(dst->dtype), tl_dtype_scalar_name(res));
    if (k != BK_LOGICAL && !tl_dtype_can_cast(res, dst->dtype))
        return cast_error(res, dst->dtype, err);
    if (tl_ops_run_binary(op, compute, dst, &a, b, err) < 0)
        return -1;
    tl_ops_grad_inplace(dst, b->t && b->t->requires_grad);
    return 0;
}

static int binary_inplace(tl_binop op, tl_tensor *dst, const opnd *b,
                          tl_error *err)
{
    if (tl_ops_check_inplace_grad(dst, err) < 0)
        return -1;
    if (binary_inplace_checked(op, dst, b, err) < 0)
        return -1;
    tl_tensor_bump_version(dst);
    return 0;
}

/* ===================================================================== */
/* elementwise unary ops                                                  */
/* ===================================================================== */

typedef enum unkind {
    UK_FLOAT, /* integral/bool inputs give the default float dtype */
    UK_SAME,  /* keeps the dtype */
    UK_BOOL   /* bool output */
} unkind;

static unkind unop_kind(tl_unop op)
{
    switch (op) {
    case TL_UN_NEG: case TL_UN_ABS: case TL_UN_RELU: case TL_UN_FLOOR:
    case TL_UN_CEIL: case TL_UN_ROUND: case TL_UN_TRUNC: case TL_UN_FRAC:
    case TL_UN_SIGN: case TL_UN_SQUARE: case TL_UN_BITWISE_NOT:
    case TL_UN_IDENTITY:
        return UK_SAME;
    case TL_UN_LOGICAL_NOT: case TL_UN_ISNAN: case TL_UN_ISINF:
    case TL_UN_ISFINITE:
        return UK_BOOL;
    default:
        return UK_FLOAT;
    }
}

static int unop_types(tl_unop op, tl_dtype in, tl_dtype *compute,
                      tl_dtype *outdt, tl_error *err)
{
    const char *nm = tl_dtype_scalar_name(in);
    switch (unop_kind(op)) {
    case UK_FLOAT:
        *compute = *outdt = tl_dtype_is_floating(in) ? in : TL_FLOAT32;
        return 0;
    case UK_BOOL:
        *compute = in;
        *outdt = TL_BOOL;
        return 0;
    case UK_SAME:
        break;
    }
    *compute = *outdt = in;
    switch (op) {
    case TL_UN_NEG:
        if (in == TL_BOOL)
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
        break;
    case TL_UN_ABS:
        if (in == TL_BOOL)
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "\"abs_cpu\" not implemented for 'Bool'");
        break;
    case TL_UN_RELU:
        if (in == TL_BOOL)
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "Boolean inputs not supported for relu");
        break;
    case TL_UN_FLOOR: case TL_UN_CEIL: case TL_UN_ROUND: case TL_UN_TRUNC:
        if (in == TL_BOOL)
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "\"%s_vml_cpu\" not implemented for 'Bool'",
                                op == TL_UN_FLOOR ? "floor"
                                : op == TL_UN_CEIL ? "ceil"
                                : op == TL_UN_ROUND ? "round" : "trunc");
        break;
    case TL_UN_FRAC:
        if (!tl_dtype_is_floating(in))
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "\"frac_cpu\" not implemented for '%s'", nm);
        break;
    case TL_UN_BITWISE_NOT:
        if (tl_dtype_is_floating(in))
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "\"bitwise_not_cpu\" not implemented for '%s'",
                                nm);
        break;
    case TL_UN_SQUARE:
        if (in == TL_BOOL)
            *compute = *outdt = TL_INT64; /* pow(bool, 2) promotes */
        break;
    default:
        break;
    }
    return 0;
}

int tl_ops_run_unary(tl_unop op, tl_dtype compute, const tl_tensor *dst,
                     const tl_tensor *src, tl_error *err)
{
    if (tl_tensor_numel(dst) == 0)
        return 0;
    int64_t sst[TL_MAX_DIMS];
    tl_ops_broadcast_strides(src, dst->ndim, dst->sizes, sst);
    tl_strided d = tl_ops_strided_of(dst);
    tl_strided s = tl_ops_strided_make(tl_tensor_addr(src), src->dtype, dst->ndim,
                                       dst->sizes, sst);
    return tl_backend_unary(tl_tensor_backend(dst), op, compute, &d, &s, err);
}

static tl_tensor *unary_new(tl_unop op, const tl_tensor *t, tl_error *err)
{
    tl_dtype compute, outdt;
    if (unop_types(op, t->dtype, &compute, &outdt, err) < 0) {
        device_kernel_names(tl_tensor_device(t), err);
        return NULL;
    }
    opnd o = tl_ops_opnd_tensor(t);
    int64_t st[TL_MAX_DIMS];
    if ((op == TL_UN_ISFINITE || op == TL_UN_ISINF) && !tl_dtype_is_floating(t->dtype))
        tl_tensor_preserve_strides(t, st); /* ones_like / zeros_like(self, kBool) */
    else
        tl_ops_iter_out_strides(&o, 1, compute, t->ndim, t->sizes, st);
    if ((op == TL_UN_ISINF || op == TL_UN_ISFINITE) && tl_dtype_is_floating(t->dtype)) {
        /* isinf is self.abs() == inf, isfinite (self == self) *
         * (self.abs() != inf): each step's iterator lays its output out
         * after the step before (on empty tensors, or size-1 dims, the
         * layouts differ from self's) */
        tl_tensor ab = *t, cmp = *t, eq = *t; /* metadata only: never read,
                                                 retained or freed */
        size_t nb = sizeof(int64_t) * (size_t)t->ndim;
        memcpy(ab.strides, st, nb);
        opnd so[2] = {tl_ops_opnd_tensor(&ab), tl_ops_opnd_float(INFINITY)};
        tl_ops_iter_out_strides(so, 2, t->dtype, t->ndim, t->sizes, st);
        if (op == TL_UN_ISFINITE) {
            memcpy(cmp.strides, st, nb);
            cmp.dtype = TL_BOOL;
            opnd xx[2] = {o, o};
            tl_ops_iter_out_strides(xx, 2, t->dtype, t->ndim, t->sizes, eq.strides);
            eq.dtype = TL_BOOL;
            opnd m[2] = {tl_ops_opnd_tensor(&eq), tl_ops_opnd_tensor(&cmp)};
            tl_ops_iter_out_strides(m, 2, TL_BOOL, t->ndim, t->sizes, st);
        }
    }
    tl_tensor *out = tl_tensor_new_for_write(tl_tensor_backend(t), outdt, t->ndim,
                                           t->sizes, st, err);
    if (!out)
        return NULL;
    if (tl_ops_run_unary(op, compute, out, t, err) < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    tl_ops_grad_result(out, t->requires_grad);
    return out;
}

static int unary_inplace(tl_unop op, tl_tensor *t, tl_error *err)
{
    tl_dtype compute, outdt;
    if (tl_ops_check_inplace_grad(t, err) < 0)
        return -1;
    /* neg's meta check comes before the iterator's overlap check */
    if (op == TL_UN_NEG && t->dtype == TL_BOOL &&
        unop_types(op, t->dtype, &compute, &outdt, err) < 0)
        return -1;
    if (tl_ops_assert_no_internal_overlap(t, err) < 0)
        return -1;
    if (unop_types(op, t->dtype, &compute, &outdt, err) < 0)
        return device_kernel_names(tl_tensor_device(t), err);
    if (unop_kind(op) != UK_BOOL && !tl_dtype_can_cast(outdt, t->dtype))
        return cast_error(outdt, t->dtype, err);
    if (tl_ops_run_unary(op, compute, t, t, err) < 0)
        return -1;
    tl_tensor_bump_version(t);
    return 0;
}

/* ===================================================================== */
/* where, clamp, masked_fill                                              */
/* ===================================================================== */

static tl_tensor *where_new(const tl_tensor *cond, const opnd *a,
                            const opnd *b, tl_error *err)
{
    if (cond->dtype != TL_BOOL && cond->dtype != TL_UINT8) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "where expected condition to be a boolean tensor, but got a tensor with dtype %s",
                     tl_dtype_scalar_name(cond->dtype));
        return NULL;
    }
    opnd ops[3] = {tl_ops_opnd_tensor(cond), *a, *b};
    const tl_backend *be;
    if (tl_ops_common_device(ops, 3, &be, err) < 0)
        return NULL;
    int nd;
    int64_t shape[TL_MAX_DIMS], st[TL_MAX_DIMS];
    if (tl_ops_opnds_shape(ops, 3, &nd, shape, err) < 0)
        return NULL;
    tl_dtype dt = tl_ops_result_type(ops + 1, 2);
    if (tl_ops_opnd_fits(a, dt, err) < 0 || tl_ops_opnd_fits(b, dt, err) < 0)
        return NULL;
    /* the condition is never converted: give it the common dtype's slot */
    opnd lay[3] = {ops[0], ops[1], ops[2]};
    tl_tensor cview = *cond; /* a stack copy read for its geometry only */
    cview.dtype = dt;
    lay[0].t = &cview;
    tl_ops_iter_out_strides(lay, 3, dt, nd, shape, st);
    tl_tensor *out = tl_tensor_new_strided(be, dt, nd, shape, st, err);
    if (!out)
        return NULL;
    if (tl_tensor_numel(out) > 0) {
        int64_t s0[TL_MAX_DIMS], s1[TL_MAX_DIMS], s2[TL_MAX_DIMS];
        scratch c1 = {0}, c2 = {0}, c0 = {0};
        tl_strided d = tl_ops_strided_of(out), x0, x1, x2;
        int rc = -1;
        if (tl_ops_opnd_strided(&ops[0], be, nd, shape, s0, &c0, &x0, err) == 0 &&
                                tl_ops_opnd_strided(&ops[1], be, nd, shape, s1, &c1, &x1, err) == 0 &&
                                tl_ops_opnd_strided(&ops[2], be, nd, shape, s2, &c2, &x2, err) == 0)
            rc = tl_backend_where(be, &d, &x0, &x1, &x2, err);
        tl_ops_scratch_free(&c0);
        tl_ops_scratch_free(&c1);
        tl_ops_scratch_free(&c2);
        if (rc < 0) {
            tl_tensor_release(out);
            return NULL;
        }
    }
    tl_ops_grad_result(out, tl_ops_opnds_grad(ops, 3));
    return out;
}

/* The operands of clamp: t and the bounds given (NULL: absent; at least
 * one must be given). Returns their count, or -1. */
static int clamp_opnds(const tl_tensor *t, const opnd *lo, const opnd *hi,
                       opnd *ops, tl_error *err)
{
    if (!lo && !hi)
        return tl_error_set(err, TL_ERR_RUNTIME, "torch.clamp: At least one "
                            "of 'min' or 'max' must not be None");
    int n = 0;
    ops[n++] = tl_ops_opnd_tensor(t);
    if (lo)
        ops[n++] = *lo;
    if (hi)
        ops[n++] = *hi;
    return n;
}

/* clamp(min, max): either bound may be absent (NULL). */
static tl_tensor *clamp_new(const tl_tensor *t, const opnd *lo, const opnd *hi,
                            tl_error *err)
{
    opnd ops[3];
    int n = clamp_opnds(t, lo, hi, ops, err);
    if (n < 0)
        return NULL;
    const tl_backend *be;
    if (tl_ops_common_device(ops, n, &be, err) < 0)
        return NULL;
    int nd;
    int64_t shape[TL_MAX_DIMS], st[TL_MAX_DIMS];
    if (tl_ops_opnds_shape(ops, n, &nd, shape, err) < 0)
        return NULL;
    tl_dtype dt = tl_ops_result_type(ops, n);
    bool scalars = true; /* clamp(Tensor, Scalar, Scalar): a unary iterator */
    for (int i = 1; i < n; i++) {
        if (tl_ops_opnd_fits(&ops[i], dt, err) < 0)
            return NULL;
        scalars &= !ops[i].t;
    }
    tl_ops_iter_out_strides(ops, scalars ? 1 : n, dt, nd, shape, st);
    tl_tensor *out = tl_tensor_new_strided(be, dt, nd, shape, st, err);
    if (!out)
        return NULL;
    opnd self = ops[0], o = tl_ops_opnd_tensor(out);
    int rc = 0;
    if (lo)
        rc = tl_ops_run_binary(TL_BIN_MAXIMUM, dt, out, &self, lo, err);
    if (rc == 0 && hi)
        rc = tl_ops_run_binary(TL_BIN_MINIMUM, dt, out, lo ? &o : &self, hi, err);
    if (rc < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    tl_ops_grad_result(out, tl_ops_opnds_grad(ops, n));
    return out;
}

static int clamp_inplace(tl_tensor *t, const opnd *lo, const opnd *hi,
                         tl_error *err)
{
    opnd ops[3];
    int n = clamp_opnds(t, lo, hi, ops, err);
    if (n < 0)
        return -1;
    if (tl_ops_check_inplace_grad(t, err) < 0)
        return -1;
    /* clamp_(Scalar) checks the result type before it builds its iterator
     * (1.13: `expanded_int.clamp_min_(0.5)` names the cast, not the
     * overlap); clamp_(Tensor) is an iterator: overlap first */
    bool tensor_bound = (!lo || lo->t) && (!hi || hi->t);
    tl_dtype rdt = tl_ops_result_type(ops, n);
    if (!tensor_bound && !tl_dtype_can_cast(rdt, t->dtype))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "result type %s can't be cast to the desired output type %s",
                            tl_dtype_scalar_name(rdt), tl_dtype_typemeta_name(t->dtype));
    if (tl_ops_assert_no_internal_overlap(t, err) < 0)
        return -1;
    for (int i = 1; i < n; i++) {
        if (ops[i].t && tl_ops_assert_no_partial_overlap(t, ops[i].t, err) < 0)
            return -1;
        if (inplace_device(t, &ops[i], err) < 0)
            return -1;
    }
    int nd;
    int64_t shape[TL_MAX_DIMS];
    if (tl_ops_opnds_shape(ops, n, &nd, shape, err) < 0)
        return -1;
    if (tl_ops_check_out_shape(t, nd, shape, err) < 0)
        return -1;
    tl_dtype dt = tl_ops_result_type(ops, n);
    /* clamp_(Scalar) names the output by its C++ type (1.13: "long int");
     * clamp_(Tensor) is a TensorIterator, whose cast check names the
     * ScalarType ("Long"). The Tensor overload is the one taken when every
     * given bound is a tensor; a 0-d tensor next to a number binds to the
     * Scalar overload (measured on 1.13). */
    if (!tl_dtype_can_cast(dt, t->dtype))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "result type %s can't be cast to the desired output type %s",
                            tl_dtype_scalar_name(dt),
                            tensor_bound ? tl_dtype_scalar_name(t->dtype)
                                         : tl_dtype_typemeta_name(t->dtype));
    for (int i = 1; i < n; i++)
        if (tl_ops_opnd_fits(&ops[i], dt, err) < 0)
            return -1;
    opnd self = ops[0];
    int rc = 0;
    if (lo)
        rc = tl_ops_run_binary(TL_BIN_MAXIMUM, dt, t, &self, lo, err);
    if (rc == 0 && hi)
        rc = tl_ops_run_binary(TL_BIN_MINIMUM, dt, t, &self, hi, err);
    if (rc < 0)
        return -1;
    tl_ops_grad_inplace(t, tl_ops_opnds_grad(ops + 1, n - 1));
    tl_tensor_bump_version(t);
    return 0;
}

/* value of masked_fill: a number or a 0-d tensor */
static int masked_value(const opnd *v, opnd *o, bool *grad, tl_error *err)
{
    *grad = false;
    *o = *v;
    if (!v->t)
        return 0;
    if (v->t->ndim != 0)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with %d dimension(s).",
                            v->t->ndim);
    *grad = v->t->requires_grad;
    /* masked_fill_impl_cpu fills value.item(): a number from here on, so
     * its overflow check and conversion are a number's */
    const tl_tensor *vt = v->t;
    memset(o, 0, sizeof *o);
    if (tl_dtype_is_floating(vt->dtype)) {
        o->s.is_float = true;
        o->sdt = TL_FLOAT64;
        return tl_tensor_get_f64(vt, 0, &o->s.f, err) < 0 ? -1 : 0;
    }
    o->sdt = vt->dtype == TL_BOOL ? TL_BOOL : TL_INT64;
    if (tl_tensor_get_i64(vt, 0, &o->s.i, err) < 0)
        return -1;
    o->s.f = (double)o->s.i;
    return 0;
}

static int check_mask(const tl_tensor *mask, tl_error *err)
{
    if (mask->dtype != TL_BOOL)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "masked_fill_ only supports boolean masks, but got mask with dtype %s",
                            tl_dtype_typemeta_name(mask->dtype));
    return 0;
}

/* dst[mask] = value, mask broadcast to dst (checked by the caller). */
static int masked_fill_run(tl_tensor *dst, const tl_tensor *mask,
                           const opnd *val, tl_error *err)
{
    if (tl_tensor_numel(dst) == 0)
        return 0;
    const tl_backend *be = tl_tensor_backend(dst);
    int nd = dst->ndim;
    int64_t ms[TL_MAX_DIMS], vs[TL_MAX_DIMS];
    scratch cm = {0}, cv = {0};
    opnd mo = tl_ops_opnd_tensor(mask);
    /* the number is value.to<scalar_t>() of dst's dtype first (0.5 into a
     * bool tensor is true), not read back through the integer path */
    opnd num = *val;
    num.sdt = dst->dtype;
    tl_strided d = tl_ops_strided_of(dst), xm, xv;
    int rc = -1;
    if (tl_ops_opnd_strided(&mo, be, nd, dst->sizes, ms, &cm, &xm, err) == 0 &&
                            tl_ops_opnd_strided(&num, be, nd, dst->sizes, vs, &cv, &xv, err) == 0)
        rc = tl_backend_where(be, &d, &xm, &xv, &d, err);
    tl_ops_scratch_free(&cm);
    tl_ops_scratch_free(&cv);
    return rc;
}

static int masked_fill_inplace(tl_tensor *t, const tl_tensor *mask,
                               const opnd *value, tl_error *err)
{
    opnd val;
    bool vgrad;
    if (tl_ops_check_inplace_grad(t, err) < 0)
        return -1;
    if (check_mask(mask, err) < 0)
        return -1;
    if (masked_value(value, &val, &vgrad, err) < 0)
        return -1;
    if (tl_ops_assert_no_partial_overlap(t, mask, err) < 0)
        return -1;
    opnd mo = tl_ops_opnd_tensor(mask);
    if (inplace_device(t, &mo, err) < 0)
        return -1;
    int nd;
    int64_t shape[TL_MAX_DIMS];
    if (tl_ops_broadcast_pair(t->ndim, t->sizes, mask->ndim, mask->sizes, &nd, shape,
                              err) < 0)
        return -1;
    if (tl_ops_check_out_shape(t, nd, shape, err) < 0)
        return -1;
    if (tl_ops_opnd_fits(&val, t->dtype, err) < 0)
        return -1;
    if (masked_fill_run(t, mask, &val, err) < 0)
        return -1;
    tl_ops_grad_inplace(t, vgrad);
    tl_tensor_bump_version(t);
    return 0;
}

static tl_tensor *masked_fill_new(const tl_tensor *t, const tl_tensor *mask,
                                  const opnd *value, tl_error *err)
{
    opnd val;
    bool vgrad;
    if (check_mask(mask, err) < 0)
        return NULL;
    if (masked_value(value, &val, &vgrad, err) < 0)
        return NULL;
    int nd;
    int64_t shape[TL_MAX_DIMS], st[TL_MAX_DIMS], sst[TL_MAX_DIMS];
    if (tl_ops_broadcast_pair(mask->ndim, mask->sizes, t->ndim, t->sizes, &nd, shape,
                              err) < 0)
        return NULL;
    opnd mo = tl_ops_opnd_tensor(mask);
    if (inplace_device(t, &mo, err) < 0)
        return NULL;
    if (tl_ops_opnd_fits(&val, t->dtype, err) < 0)
        return NULL;
    tl_shape_contiguous_strides(nd, shape, st);
    tl_tensor *out = tl_tensor_new_strided(tl_tensor_backend(t), t->dtype, nd,
                                           shape, st, err);
    if (!out)
        return NULL;
    tl_ops_broadcast_strides(t, nd, shape, sst);
    if (tl_ops_copy_into(out, t, sst, err) < 0 ||
                         masked_fill_run(out, mask, &val, err) < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    tl_ops_grad_result(out, t->requires_grad || vgrad);
    return out;
}

int tl_ops_binop_(tl_binop op, tl_tensor *self, const tl_operand *b,
                  tl_error *err)
{
    return binary_inplace(op, self, b, err);
}

bool tl_ops_binop_is_comparison(tl_binop op)
{
    return binop_kind(op) == BK_CMP;
}

tl_tensor *tl_ops_unop(tl_unop op, const tl_tensor *t, tl_error *err)
{
    return unary_new(op, t, err);
}

int tl_ops_unop_(tl_unop op, tl_tensor *t, tl_error *err)
{
    return unary_inplace(op, t, err);
}

tl_tensor *tl_ops_binop_alpha(tl_binop op, const tl_operand *a,
                              const tl_operand *b, const tl_operand *alpha,
                              tl_error *err)
{
    opnd x = *a, y = *b;
    tl_tensor *tmp = NULL;
    /* sub_check comes before add's alpha check */
    if (alpha && (meta_check(op, &x, &y, err) < 0 || apply_alpha(&x, &y, alpha, &tmp, err) < 0))
        return NULL;
    tl_tensor *r = tl_ops_binary_new(op, &x, &y, err);
    if (tmp)
        tl_tensor_release(tmp);
    return r;
}

int tl_ops_binop_alpha_(tl_binop op, tl_tensor *self, const tl_operand *b,
                        const tl_operand *alpha, tl_error *err)
{
    opnd x = tl_ops_opnd_tensor(self), y = *b;
    if (tl_ops_check_inplace_grad(self, err) < 0)
        return -1;
    tl_tensor *tmp = NULL;
    if (alpha && (meta_check(op, &x, &y, err) < 0 || apply_alpha(&x, &y, alpha, &tmp, err) < 0))
        return -1;
    int rc = binary_inplace_checked(op, self, &y, err);
    if (tmp)
        tl_tensor_release(tmp);
    if (rc == 0)
        tl_tensor_bump_version(self);
    return rc;
}

tl_tensor *tl_ops_where(const tl_tensor *cond, const tl_operand *a,
                        const tl_operand *b, tl_error *err)
{
    return where_new(cond, a, b, err);
}

tl_tensor *tl_ops_clamp(const tl_tensor *t, const tl_operand *lo,
                        const tl_operand *hi, tl_error *err)
{
    return clamp_new(t, lo, hi, err);
}

int tl_ops_clamp_(tl_tensor *t, const tl_operand *lo, const tl_operand *hi,
                  tl_error *err)
{
    return clamp_inplace(t, lo, hi, err);
}

tl_tensor *tl_ops_masked_fill(const tl_tensor *t, const tl_tensor *mask,
                              const tl_operand *v, tl_error *err)
{
    return masked_fill_new(t, mask, v, err);
}

int tl_ops_masked_fill_(tl_tensor *t, const tl_tensor *mask,
                        const tl_operand *v, tl_error *err)
{
    return masked_fill_inplace(t, mask, v, err);
}

tl_tensor *tl_ops_matmul(const tl_tensor *a, const tl_tensor *b, bool mm_only,
                         tl_error *err)
{
    tl_tensor *out = tl_matmul(a, b, mm_only, false, err);
    if (out)
        tl_ops_grad_result(out, a->requires_grad || b->requires_grad);
    /* torch: 1-D @ 2-D is unsqueeze(0).mm(b).squeeze_(0), one bump */
    if (out && !mm_only && a->ndim == 1 && b->ndim == 2)
        tl_tensor_bump_version(out);
    return out;
}

tl_tensor *tl_ops_bmm(const tl_tensor *a, const tl_tensor *b, tl_error *err)
{
    tl_tensor *out = tl_matmul(a, b, false, true, err);
    if (out)
        tl_ops_grad_result(out, a->requires_grad || b->requires_grad);
    return out;
}

/* div(rounding_mode=): mode 0 true division, 1 'trunc', 2 'floor'. */
static tl_tensor *div_trunc_new(const opnd *x, const opnd *y, tl_error *err)
{
    opnd ops[2] = {*x, *y};
    tl_dtype common = tl_ops_result_type(ops, 2);
    if (!tl_dtype_is_floating(common)) {
        /* integral: the kernel's DIV on an integral compute dtype truncates */
        const tl_backend *be;
        int nd;
        int64_t shape[TL_MAX_DIMS], st[TL_MAX_DIMS];
        if (tl_ops_common_device(ops, 2, &be, err) < 0 ||
                                 tl_ops_opnds_shape(ops, 2, &nd, shape, err) < 0)
            return NULL;
        if (common == TL_BOOL) {
            tl_error_set(err, TL_ERR_RUNTIME, "\"div_trunc_cpu\" not implemented for 'Bool'");
            return NULL;
        }
        bool empty = false;
        for (int i = 0; i < nd; i++)
            empty |= shape[i] == 0;
        if (opnd_is_zero(y) && !empty) {
            tl_error_set(err, TL_ERR_RUNTIME, "ZeroDivisionError");
            return NULL;
        }
        tl_ops_iter_out_strides(ops, 2, common, nd, shape, st);
        tl_tensor *out = tl_tensor_new_strided(be, common, nd, shape, st, err);
        if (out && tl_ops_run_binary(TL_BIN_DIV, common, out, x, y, err) < 0) {
            tl_tensor_release(out);
            out = NULL;
        }
        return out;
    }
    tl_tensor *out = tl_ops_binary_new(TL_BIN_DIV, x, y, err);
    if (out && tl_ops_run_unary(TL_UN_TRUNC, out->dtype, out, out, err) < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    return out;
}

tl_tensor *tl_ops_div_mode(const tl_operand *a, const tl_operand *b, int mode,
                           tl_error *err)
{
    opnd x = *a, y = *b;
    if (mode == 2)
        return tl_ops_binary_new(TL_BIN_FLOORDIV, &x, &y, err);
    if (mode == 1)
        return div_trunc_new(&x, &y, err);
    return tl_ops_binary_new(TL_BIN_DIV, &x, &y, err);
}

int tl_ops_div_mode_(tl_tensor *self, const tl_operand *b, int mode,
                     tl_error *err)
{
    opnd y = *b;
    if (mode == 2)
        return binary_inplace(TL_BIN_FLOORDIV, self, &y, err);
    if (mode == 0)
        return binary_inplace(TL_BIN_DIV, self, &y, err);
    /* trunc: compute out of place with the checks of an in-place op */
    if (tl_ops_check_inplace_grad(self, err) < 0 ||
                                  tl_ops_assert_no_internal_overlap(self, err) < 0)
        return -1;
    opnd x = tl_ops_opnd_tensor(self);
    tl_tensor *r = div_trunc_new(&x, &y, err);
    if (!r)
        return -1;
    int rc = 0;
    if (!tl_dtype_can_cast(r->dtype, self->dtype))
        rc = cast_error(r->dtype, self->dtype, err);
    else
        rc = tl_ops_copy_checked(self, r, err);
    tl_tensor_release(r);
    if (rc == 0)
        tl_tensor_bump_version(self);
    return rc;
}
