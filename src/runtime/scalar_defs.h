/* scalar_defs.h - the one definition of each scalar conversion and formula
 * that both devices compute: float16/bfloat16 <-> float32 (c10's bits: NaN
 * becomes 0x7e00 / 0x7fc0, round to nearest even), float -> int64/int32
 * (out of range and NaN give INT_MIN, x86's answer), floor division and
 * Python's remainder for floats, c10's integer pow, integer division,
 * remainder and shifts, and the float unary ops (with the list of unary op
 * codes, TL_SD_UNOPS, from which backend.h's tl_unop and kernels.h's
 * TL_KU_ codes are generated). The CPU backend
 * (dtype.c, backend_cpu.c) and the CUDA kernels (cuda/kernels.h, host and
 * device) include these same lines, so a CPU/GPU bit-equality promise rests
 * on one definition, not on two copies kept in step by hand.
 *
 * Header-only: every function is static inline, and __host__ __device__
 * when nvcc compiles it (no CUDA header is included: __CUDACC__ is nvcc's
 * own macro). Pure functions of their arguments; no state.
 */
#ifndef TL_SCALAR_DEFS_H
#define TL_SCALAR_DEFS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define TL_SD static __host__ __device__ inline
#else
#define TL_SD static inline
#endif

TL_SD uint32_t tl_sd_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

TL_SD float tl_sd_bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

TL_SD uint16_t tl_sd_f32_to_f16(float f)
{
    uint32_t x = tl_sd_f32_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t exp = (x >> 23) & 0xffu;
    uint32_t man = x & 0x7fffffu;

    if (exp == 0xffu) /* inf or NaN (NaN becomes the quiet 0x7e00) */
        return (uint16_t)(sign | (man ? 0x7e00u : 0x7c00u));
    if (exp == 0) /* zero or float subnormal: far below half's range */
        return (uint16_t)sign;

    int32_t e = (int32_t)exp - 127 + 15; /* half's biased exponent */
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        /* half subnormal: value = q * 2^-24 */
        uint32_t m = man | 0x800000u;
        int shift = 14 - e;
        if (shift >= 25)
            return (uint16_t)sign;
        uint32_t q = m >> shift;
        uint32_t rem = m & ((1u << shift) - 1u);
        uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (q & 1u)))
            q++;
        return (uint16_t)(sign | q);
    }
    uint32_t q = ((uint32_t)e << 10) | (man >> 13);
    uint32_t rem = man & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (q & 1u)))
        q++; /* a carry into the exponent is correct, up to inf */
    return (uint16_t)(sign | q);
}

TL_SD float tl_sd_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    if (exp == 0x1fu)
        return tl_sd_bits_f32(sign | 0x7f800000u | (man << 13));
    if (exp == 0) {
        /* zero or subnormal: man * 2^-24, exact in float */
        float v = (float)man * 5.9604644775390625e-08f;
        return sign ? -v : v;
    }
    return tl_sd_bits_f32(sign | ((exp + 112u) << 23) | (man << 13));
}

TL_SD uint16_t tl_sd_f32_to_bf16(float f)
{
    if (f != f)
        return 0x7fc0u; /* c10::detail::round_to_nearest_even */
    uint32_t x = tl_sd_f32_bits(f);
    uint32_t bias = ((x >> 16) & 1u) + 0x7fffu;
    return (uint16_t)((x + bias) >> 16);
}

TL_SD float tl_sd_bf16_to_f32(uint16_t h)
{
    return tl_sd_bits_f32((uint32_t)h << 16);
}

/* float -> integer, well defined for every double: the range test is
 * false for NaN; out of range gives INT64_MIN / INT32_MIN, x86's cvttsd2si
 * "integer indefinite" (what torch prints on x86) */
TL_SD int64_t tl_sd_f64_to_i64(double v)
{
    if (v >= -9223372036854775808.0 && v < 9223372036854775808.0)
        return (int64_t)v;
    return INT64_MIN;
}

TL_SD int32_t tl_sd_f64_to_i32(double v)
{
    if (v > -2147483649.0 && v < 2147483648.0)
        return (int32_t)v;
    return INT32_MIN;
}

/* a // b for floats: c10's div_floor_floating */
TL_SD double tl_sd_floordiv_f(double a, double b)
{
    if (b == 0.0)
        return a / b;
    double mod = fmod(a, b);
    double div = (a - mod) / b;
    if (mod != 0.0 && (b < 0.0) != (mod < 0.0))
        div -= 1.0;
    double fl;
    if (div != 0.0) {
        fl = floor(div);
        if (div - fl > 0.5)
            fl += 1.0;
    } else {
        fl = copysign(0.0, a / b);
    }
    return fl;
}

/* Python's a % b for floats (the sign of b) */
TL_SD double tl_sd_remainder_f(double a, double b)
{
    double mod = fmod(a, b);
    if (mod != 0.0 && (b < 0.0) != (mod < 0.0))
        mod += b;
    return mod;
}

/* a ** b for integers: c10 powi semantics (negative exponents give 0
 * except for bases 1 and -1), wrapping multiplication. */
TL_SD int64_t tl_sd_pow_i(int64_t a, int64_t b)
{
    if (b < 0) {
        if (a == 1)
            return 1;
        if (a == -1)
            return (b & 1) ? -1 : 1;
        return 0;
    }
    uint64_t result = 1, base = (uint64_t)a, e = (uint64_t)b;
    while (e) {
        if (e & 1)
            result *= base;
        base *= base;
        e >>= 1;
    }
    return (int64_t)result;
}

/* Integer division and remainder (b != 0: the caller reports a division
 * by zero): b == -1 wraps (INT64_MIN / -1 is INT64_MIN, the remainder 0)
 * instead of trapping. truncdiv is C's a / b (torch's rounding_mode=
 * 'trunc'), floordiv Python's //, remainder Python's % (the sign of b),
 * fmod C's % (the sign of a). */
TL_SD int64_t tl_sd_truncdiv_i(int64_t a, int64_t b)
{
    if (b == -1)
        return (int64_t)(0u - (uint64_t)a);
    return a / b;
}

TL_SD int64_t tl_sd_floordiv_i(int64_t a, int64_t b)
{
    if (b == -1)
        return (int64_t)(0u - (uint64_t)a);
    int64_t q = a / b, r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
        q--;
    return q;
}

TL_SD int64_t tl_sd_remainder_i(int64_t a, int64_t b)
{
    if (b == -1)
        return 0;
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
    return r;
}

TL_SD int64_t tl_sd_fmod_i(int64_t a, int64_t b)
{
    if (b == -1)
        return 0;
    return a % b;
}

/* Shifts as torch 2.x: a count < 0 or >= the width (bits) gives 0 (left)
 * or the sign fill (right). */
TL_SD int64_t tl_sd_lshift_i(int64_t a, int64_t b, int bits)
{
    if (b < 0 || b >= bits)
        return 0;
    return (int64_t)((uint64_t)a << b);
}

TL_SD int64_t tl_sd_rshift_i(int64_t a, int64_t b, int bits)
{
    if (b < 0 || b >= bits)
        return a < 0 ? -1 : 0;
    return a >> b; /* arithmetic on gcc, clang and nvcc */
}

/* The unary op codes, in order: X(NAME) for each. backend.h makes tl_unop
 * (TL_UN_NAME) and kernels.h its TL_KU_NAME from this one list, so the
 * numbers agree by construction. */
#define TL_SD_UNOPS(X)                                                         \
    X(NEG) X(ABS) X(SQRT) X(RSQRT) X(EXP) X(EXP2) X(EXPM1) X(LOG) X(LOG2)      \
    X(LOG10) X(LOG1P) X(SIN) X(COS) X(TAN) X(ASIN) X(ACOS) X(ATAN) X(SINH)     \
    X(COSH) X(TANH) X(SIGMOID) X(RELU) X(FLOOR) X(CEIL) X(ROUND) X(TRUNC)      \
    X(FRAC) X(SIGN) X(RECIPROCAL) X(SQUARE) X(LOGICAL_NOT) X(BITWISE_NOT)      \
    X(ISNAN) X(ISINF) X(ISFINITE) X(ERF) X(IDENTITY)

#define TL_SD_UN_CODE(NAME) TL_SD_UN_##NAME,
enum { TL_SD_UNOPS(TL_SD_UN_CODE) TL_SD_NUNOPS };

/* A floating unary op of x (computed in double; the caller rounds to the
 * compute dtype before and after). The predicates and bitwise_not are not
 * here (they are not floating results): NaN for them and unknown codes.
 * The transcendental ones call the device's libm: glibc on the CPU,
 * CUDA's libdevice on a GPU, which differ by 1-2 ulp (README "GPU"). */
TL_SD double tl_sd_unary_f(int op, double x)
{
    switch (op) {
    case TL_SD_UN_NEG: return -x;
    case TL_SD_UN_ABS: return fabs(x);
    case TL_SD_UN_SQRT: return sqrt(x);
    case TL_SD_UN_RSQRT: return 1.0 / sqrt(x);
    case TL_SD_UN_EXP: return exp(x);
    case TL_SD_UN_EXP2: return exp2(x);
    case TL_SD_UN_EXPM1: return expm1(x);
    case TL_SD_UN_LOG: return log(x);
    case TL_SD_UN_LOG2: return log2(x);
    case TL_SD_UN_LOG10: return log10(x);
    case TL_SD_UN_LOG1P: return log1p(x);
    case TL_SD_UN_SIN: return sin(x);
    case TL_SD_UN_COS: return cos(x);
    case TL_SD_UN_TAN: return tan(x);
    case TL_SD_UN_ASIN: return asin(x);
    case TL_SD_UN_ACOS: return acos(x);
    case TL_SD_UN_ATAN: return atan(x);
    case TL_SD_UN_SINH: return sinh(x);
    case TL_SD_UN_COSH: return cosh(x);
    case TL_SD_UN_TANH: return tanh(x);
    case TL_SD_UN_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case TL_SD_UN_RELU: return x < 0.0 ? 0.0 : x; /* NaN stays NaN */
    case TL_SD_UN_FLOOR: return floor(x);
    case TL_SD_UN_CEIL: return ceil(x);
    case TL_SD_UN_ROUND: return nearbyint(x); /* half to even */
    case TL_SD_UN_TRUNC: return trunc(x);
    case TL_SD_UN_FRAC: return x - trunc(x);
    case TL_SD_UN_SIGN: return x != x ? 0.0 : (double)((x > 0.0) - (x < 0.0));
    case TL_SD_UN_RECIPROCAL: return 1.0 / x;
    case TL_SD_UN_SQUARE: return x * x;
    case TL_SD_UN_ERF: return erf(x);
    case TL_SD_UN_IDENTITY: return x;
    default: return NAN;
    }
}

#endif
