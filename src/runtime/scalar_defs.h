/* scalar_defs.h - the one definition of each scalar conversion and formula
 * that both devices compute: float16/bfloat16 <-> float32 (c10's bits: NaN
 * becomes 0x7e00 / 0x7fc0, round to nearest even), floor division and
 * Python's remainder for floats, and c10's integer pow. The CPU backend
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

#endif
