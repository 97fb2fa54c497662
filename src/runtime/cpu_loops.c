/* cpu_loops.c - typed inner loops for the CPU backend's hot paths.
 *
 * The generic kernels (backend_cpu.c) are exact for every layout and dtype
 * but move each element through a double/int64 carrier and two indirect
 * calls. This file serves the layouts that matter at memory speed and
 * declines the rest (returns 0), so the generic kernel stays the one
 * definition of every result:
 *
 *   - Layout plan (TensorIterator's trick): size-1 dims dropped, dims sorted
 *     by the destination's stride (largest first) so the walk follows the
 *     output's memory, then adjacent dims that are contiguous in every
 *     operand merged. A contiguous tensor becomes one run. The plan refuses
 *     a destination that overlaps itself (zero or interleaved strides) and
 *     inputs that partly overlap the destination (the generic kernel's
 *     logical order then decides the result, as before), and misaligned data.
 *   - Copies: memcpy for contiguous same-dtype runs; one loop per (dst, src)
 *     dtype pair, each the generic kernel's conversion written for the
 *     element types (floats through double, integers through int64, so the
 *     double rounding of int64 -> float16 is kept); float32 -> float16 with
 *     F16C where cpuid has it, NaNs rewritten to 0x7e00|sign as the scalar
 *     path does (F16C keeps payloads); otherwise bit-identical by
 *     construction. When the inner strides of dst and src differ (a
 *     transpose, permute + contiguous, channels-last, column-major) the two
 *     dims are walked in TILE_A x TILE_B tiles so both sides stay in
 *     cache, each tile as 8x8 AVX2 register transposes for 4-byte
 *     elements (bits only moved) and typed loops for the rest.
 *   - Binary: same-dtype float32/float64/int32/int64 add, sub, mul (and div,
 *     maximum, minimum on floats), inner loops specialised for unit and
 *     zero (broadcast) strides so they vectorise. Float results equal the
 *     generic double-then-round results: a single +,-,*,/ of two floats
 *     computed in double and rounded once is the correctly rounded float.
 *   - Reductions: float32/float64 sum/mean in reduce_order.h's order, the
 *     one both devices follow bit for bit (blocks of 1024 in 64 float or
 *     double lanes, the lanes combined by a fixed tree, blocks pairwise: a
 *     cascade like PyTorch's, equal to torch within the fixtures'
 *     tolerance); many short contiguous runs are summed in one call
 *     (red_many); outer-dim sums add whole rows into 64 lanes per column.
 *   - gemm: C = A @ B packed into panels, a register-blocked micro-kernel
 *     the compiler vectorises; O(1) extra memory beyond a fixed panel.
 *
 * Vectorisation, checked with gcc 12 -O2 -fopt-info-vec-optimized on this
 * file (the pragma below turns the dynamic cost model on for it): "loop
 * vectorized" for the unit-stride conversion loops from every integer
 * source, the float32/float64 binary loops and both row-add loops of
 * red_rows; the sums (block_f32/block_f64) are written in vector extensions; the strided and
 * tiled loops are scalar by nature (gathers); the gemm micro-kernel is
 * written in GCC vector extensions and float16 <-> float32 uses F16C.
 *
 * Deadlines: each entry polls tl_context_deadline_check() about every
 * million elements, like the generic kernels, and returns -1 with its
 * limit error.
 */
/* gcc's -O2 vectorises only with the "very cheap" cost model, which refuses
 * loops of unknown trip count; these loops are the point of the file. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#include "cpu_loops.h"
#include "context.h"
#include "cpu.h"
#include "reduce_order.h"

#include <stdint.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TL_X86 1
#endif

/* Hot loops are compiled three times (AVX-512, AVX2, baseline) and picked
 * per call from tl_cpu_features (cpu.h): the binary is built for the
 * baseline ISA and still runs the machine's widest vectors. A loop is
 * written once as an always-inline NAME_body; MULTI_STRIP / MULTI_CONV
 * wrap it in a function per ISA level (the body is compiled with the
 * wrapper's target). target_clones did the same with ifunc resolvers, but
 * those pull in libgcc's __cpu_indicator_init, which runs twelve cpuid
 * instructions at every start (30 us on a VM, where each one traps). */
#define BODY static inline __attribute__((always_inline))
#if defined(TL_X86) && (defined(__clang__) || __GNUC__ >= 6)
#define TL_LEVELS 3
#define T512 __attribute__((target("avx512f")))
#define TAVX2 __attribute__((target("avx2")))
#else
#define TL_LEVELS 1
#endif

/* 0 baseline, 1 AVX2, 2 AVX-512 (the target_clones order: the widest the
 * CPU and OS have) */
static int cpu_level(void)
{
#if TL_LEVELS == 3
    unsigned f = tl_cpu_features();
    return (f & TL_CPU_AVX512F) ? 2 : (f & TL_CPU_AVX2) ? 1 : 0;
#else
    return 0;
#endif
}

#define NOPS 3
/* Tiles for transposing copies, in elements: TILE_A along the source's
 * contiguous dim (rows of the destination), TILE_B along the destination's
 * (rows of the source). 32 x 16 float32 writes each destination row one
 * whole 64-byte line per tile and reads two whole lines per source row.
 * Measured with bench/bench_kernels transpose (float32, 2^20 elements, ns
 * per element, 2-core Xeon with AVX-512 under load; 2^24 too noisy there):
 * 8x8 1.06, 16x16 0.96, 32x32 1.01, 64x16 0.84, 128x16 0.92, 32x16 0.78. */
#ifndef TILE_A
#define TILE_A 32
#endif
#ifndef TILE_B
#define TILE_B 16
#endif
#define POLL_EVERY (1 << 20)

static _Thread_local bool disabled;

void tl_cpu_loops_set_enabled(bool on)
{
    disabled = !on;
}

bool tl_cpu_loops_enabled(void)
{
    return !disabled;
}

/* ------------------------------------------------------------------------
 * Layout plan
 * ---------------------------------------------------------------------- */

typedef struct plan {
    int nops;
    int nd;                       /* 0: a single element */
    int64_t size[TL_MAX_DIMS];
    int64_t st[NOPS][TL_MAX_DIMS]; /* element strides */
    char *base[NOPS];
    size_t isz[NOPS];
} plan;

enum { PLAN_NO = 0, PLAN_OK = 1, PLAN_EMPTY = 2 };

/* [lo, hi) byte range an operand touches (strides >= 0 after the checks) */
static void extent(const plan *p, int k, uintptr_t *lo, uintptr_t *hi)
{
    uintptr_t span = 0;
    for (int d = 0; d < p->nd; d++)
        span += (uintptr_t)(p->st[k][d] * (p->size[d] - 1)) * p->isz[k];
    *lo = (uintptr_t)p->base[k];
    *hi = *lo + span + p->isz[k];
}

static int plan_make(plan *p, int nops, const tl_strided *const *ops)
{
    const tl_strided *d0 = ops[0];
    if (d0->ndim < 0 || d0->ndim > TL_MAX_DIMS)
        return PLAN_NO;
    p->nops = nops;
    for (int k = 0; k < nops; k++) {
        const tl_strided *o = ops[k];
        if (o->ndim != d0->ndim || (unsigned)o->dtype >= TL_NDTYPES)
            return PLAN_NO;
        p->base[k] = (char *)o->data;
        p->isz[k] = tl_dtype_size(o->dtype);
        for (int d = 0; d < d0->ndim; d++)
            if (o->sizes[d] != d0->sizes[d] || o->sizes[d] < 0)
                return PLAN_NO;
    }
    int n = 0;
    for (int d = 0; d < d0->ndim; d++) {
        if (d0->sizes[d] == 0)
            return PLAN_EMPTY;
        if (d0->sizes[d] == 1)
            continue;
        p->size[n] = d0->sizes[d];
        for (int k = 0; k < nops; k++) {
            int64_t s = ops[k]->strides[d];
            /* negative strides never occur in PyTorch layouts; huge ones
             * would overflow the extent arithmetic */
            if (s < 0 || s > ((int64_t)1 << 40))
                return PLAN_NO;
            p->st[k][n] = s;
        }
        if (p->st[0][n] == 0)
            return PLAN_NO; /* dst writes one location twice */
        n++;
    }
    for (int k = 0; k < nops; k++)
        if (!p->base[k] || ((uintptr_t)p->base[k] % p->isz[k]) != 0)
            return PLAN_NO;
    /* insertion sort by dst stride, largest first (stable) */
    for (int i = 1; i < n; i++) {
        int j = i;
        while (j > 0 && p->st[0][j - 1] < p->st[0][j]) {
            int64_t t = p->size[j];
            p->size[j] = p->size[j - 1];
            p->size[j - 1] = t;
            for (int k = 0; k < nops; k++) {
                t = p->st[k][j];
                p->st[k][j] = p->st[k][j - 1];
                p->st[k][j - 1] = t;
            }
            j--;
        }
    }
    /* the destination must not overlap itself */
    for (int d = 0; d + 1 < n; d++) {
        int64_t span;
        if (__builtin_mul_overflow(p->st[0][d + 1], p->size[d + 1], &span) ||
            p->st[0][d] < span)
            return PLAN_NO;
    }
    /* merge dim d into the kept outer one when contiguous in every op */
    int m = 0;
    for (int d = 1; d < n; d++) {
        bool merge = true;
        for (int k = 0; k < nops && merge; k++)
            merge = p->st[k][m] == p->st[k][d] * p->size[d];
        if (merge) {
            p->size[m] *= p->size[d];
            for (int k = 0; k < nops; k++)
                p->st[k][m] = p->st[k][d];
        } else {
            m++;
            p->size[m] = p->size[d];
            for (int k = 0; k < nops; k++)
                p->st[k][m] = p->st[k][d];
        }
    }
    p->nd = n == 0 ? 0 : m + 1;
    /* inputs: disjoint from dst, or exactly dst's layout (in place) */
    uintptr_t dlo, dhi;
    extent(p, 0, &dlo, &dhi);
    for (int k = 1; k < nops; k++) {
        uintptr_t lo, hi;
        extent(p, k, &lo, &hi);
        if (hi <= dlo || lo >= dhi)
            continue;
        bool same = p->base[k] == p->base[0] && p->isz[k] == p->isz[0];
        for (int d = 0; d < p->nd && same; d++)
            same = p->st[k][d] == p->st[0][d];
        if (!same)
            return PLAN_NO;
    }
    return PLAN_OK;
}

static int poll(int64_t *since, int64_t n, tl_error *err)
{
    *since += n;
    if (*since < POLL_EVERY)
        return 0;
    *since = 0;
    return tl_context_deadline_check(err);
}

/* Walk every index of dims [0, nouter) of the plan (skipping `skip`, or -1),
 * calling fn with the operands' addresses. */
typedef int (*body_fn)(void *ctx, char *const *ptrs, tl_error *err);

/* NAME_for(): NAME_body compiled for this CPU's ISA level, as a body_fn */
#if TL_LEVELS == 3
#define MULTI_STRIP(NAME)                                                      \
    static int NAME##_base(void *c, char *const *p, tl_error *e)               \
    {                                                                          \
        return NAME##_body(c, p, e);                                           \
    }                                                                          \
    TAVX2 static int NAME##_avx2(void *c, char *const *p, tl_error *e)         \
    {                                                                          \
        return NAME##_body(c, p, e);                                           \
    }                                                                          \
    T512 static int NAME##_512(void *c, char *const *p, tl_error *e)           \
    {                                                                          \
        return NAME##_body(c, p, e);                                           \
    }                                                                          \
    static body_fn NAME##_for(void)                                            \
    {                                                                          \
        static const body_fn v[3] = {NAME##_base, NAME##_avx2, NAME##_512};    \
        return v[cpu_level()];                                                 \
    }
#else
#define MULTI_STRIP(NAME)                                                      \
    static int NAME##_base(void *c, char *const *p, tl_error *e)               \
    {                                                                          \
        return NAME##_body(c, p, e);                                           \
    }                                                                          \
    static body_fn NAME##_for(void) { return NAME##_base; }
#endif

static int walk(const plan *p, int nouter, int skip, int64_t work_per_call,
                body_fn fn, void *ctx, tl_error *err)
{
    char *ptrs[NOPS];
    int64_t bst[NOPS][TL_MAX_DIMS];
    int64_t idx[TL_MAX_DIMS] = {0};
    for (int k = 0; k < p->nops; k++) {
        ptrs[k] = p->base[k];
        for (int d = 0; d < nouter; d++)
            bst[k][d] = p->st[k][d] * (int64_t)p->isz[k];
    }
    int64_t since = 0;
    for (;;) {
        if (fn(ctx, ptrs, err) < 0 || poll(&since, work_per_call, err) < 0)
            return -1;
        int d = nouter - 1;
        for (; d >= 0; d--) {
            if (d == skip)
                continue;
            for (int k = 0; k < p->nops; k++)
                ptrs[k] += bst[k][d];
            if (++idx[d] < p->size[d])
                break;
            for (int k = 0; k < p->nops; k++)
                ptrs[k] -= bst[k][d] * p->size[d];
            idx[d] = 0;
        }
        if (d < 0)
            return 0;
    }
}

/* ------------------------------------------------------------------------
 * Conversions: one loop per (dst, src) dtype pair
 * ---------------------------------------------------------------------- */

/* strides in elements */
typedef void (*conv_fn)(char *d, int64_t ds, const char *s, int64_t ss,
                        int64_t n);

/* NAME_base, NAME_avx2, NAME_512: NAME_body at each ISA level */
#if TL_LEVELS == 3
#define MULTI_CONV(NAME)                                                       \
    static void NAME##_base(char *d, int64_t ds, const char *s, int64_t ss,    \
                            int64_t n)                                         \
    {                                                                          \
        NAME##_body(d, ds, s, ss, n);                                          \
    }                                                                          \
    TAVX2 static void NAME##_avx2(char *d, int64_t ds, const char *s,          \
                                  int64_t ss, int64_t n)                       \
    {                                                                          \
        NAME##_body(d, ds, s, ss, n);                                          \
    }                                                                          \
    T512 static void NAME##_512(char *d, int64_t ds, const char *s, int64_t ss, \
                                int64_t n)                                     \
    {                                                                          \
        NAME##_body(d, ds, s, ss, n);                                          \
    }
#else
#define MULTI_CONV(NAME)                                                       \
    static void NAME##_base(char *d, int64_t ds, const char *s, int64_t ss,    \
                            int64_t n)                                         \
    {                                                                          \
        NAME##_body(d, ds, s, ss, n);                                          \
    }
#endif

/* carriers, exactly as tl_dtype_load_* / tl_dtype_store_* (float ->
 * integer: scalar_defs.h's tl_sd_f64_to_i64/i32) */

/* load: LF_x gives the double carrier (floating src), LI_x the int64 one */
#define LI_b8(v) ((int64_t)((v) != 0))
#define LI_u8(v) ((int64_t)(v))
#define LI_i8(v) ((int64_t)(v))
#define LI_i16(v) ((int64_t)(v))
#define LI_i32(v) ((int64_t)(v))
#define LI_i64(v) ((int64_t)(v))
#define LF_f16(v) ((double)tl_f16_to_f32(v))
#define LF_bf16(v) ((double)tl_bf16_to_f32(v))
#define LF_f32(v) ((double)(v))
#define LF_f64(v) ((double)(v))

/* store from the int64 carrier (SI_) or the double carrier (SF_) */
#define SI_b8(c) ((uint8_t)((c) != 0))
#define SI_u8(c) ((uint8_t)(uint64_t)(c))
#define SI_i8(c) ((int8_t)(uint8_t)(uint64_t)(c))
#define SI_i16(c) ((int16_t)(uint16_t)(uint64_t)(c))
#define SI_i32(c) ((int32_t)(uint32_t)(uint64_t)(c))
#define SI_i64(c) ((int64_t)(c))
#define SI_f16(c) (tl_f32_to_f16((float)(c)))
#define SI_bf16(c) (tl_f32_to_bf16((float)(c)))
#define SI_f32(c) ((float)(c))
#define SI_f64(c) ((double)(c))
#define SF_b8(c) ((uint8_t)((c) != 0.0))
#define SF_u8(c) SI_u8(tl_sd_f64_to_i32(c))
#define SF_i8(c) SI_i8(tl_sd_f64_to_i32(c))
#define SF_i16(c) SI_i16(tl_sd_f64_to_i32(c))
#define SF_i32(c) SI_i32(tl_sd_f64_to_i32(c))
#define SF_i64(c) (tl_sd_f64_to_i64(c))
#define SF_f16(c) (tl_f32_to_f16((float)(c)))
#define SF_bf16(c) (tl_f32_to_bf16((float)(c)))
#define SF_f32(c) ((float)(c))
#define SF_f64(c) ((double)(c))

typedef uint8_t t_b8;
typedef uint8_t t_u8;
typedef int8_t t_i8;
typedef int16_t t_i16;
typedef int32_t t_i32;
typedef int64_t t_i64;
typedef uint16_t t_f16;
typedef uint16_t t_bf16;
typedef float t_f32;
typedef double t_f64;

#define CONV_BODY(DN, SN, CARRIER)                                            \
    BODY void conv_##DN##_##SN##_body(char *dp, int64_t ds, const char *sp,    \
                                      int64_t ss, int64_t n)                   \
    {                                                                          \
        t_##DN *d = (t_##DN *)dp;                                              \
        const t_##SN *s = (const t_##SN *)sp;                                  \
        if (ds == 1 && ss == 1) {                                              \
            for (int64_t i = 0; i < n; i++)                                    \
                d[i] = CARRIER(DN, SN, s[i]);                                  \
        } else if (ds == 1 && ss == 0) {                                       \
            t_##DN v = CARRIER(DN, SN, s[0]);                                  \
            for (int64_t i = 0; i < n; i++)                                    \
                d[i] = v;                                                      \
        } else {                                                               \
            for (int64_t i = 0; i < n; i++)                                    \
                d[i * ds] = CARRIER(DN, SN, s[i * ss]);                        \
        }                                                                      \
    }                                                                          \
    MULTI_CONV(conv_##DN##_##SN)
#define VIA_I(DN, SN, v) SI_##DN(LI_##SN(v))
#define VIA_F(DN, SN, v) SF_##DN(LF_##SN(v))

#define CONV_FROM_INT(SN)                                                      \
    CONV_BODY(b8, SN, VIA_I) CONV_BODY(u8, SN, VIA_I) CONV_BODY(i8, SN, VIA_I) \
    CONV_BODY(i16, SN, VIA_I) CONV_BODY(i32, SN, VIA_I)                        \
    CONV_BODY(i64, SN, VIA_I) CONV_BODY(f16, SN, VIA_I)                        \
    CONV_BODY(bf16, SN, VIA_I) CONV_BODY(f32, SN, VIA_I)                       \
    CONV_BODY(f64, SN, VIA_I)
#define CONV_FROM_FLOAT(SN)                                                    \
    CONV_BODY(b8, SN, VIA_F) CONV_BODY(u8, SN, VIA_F) CONV_BODY(i8, SN, VIA_F) \
    CONV_BODY(i16, SN, VIA_F) CONV_BODY(i32, SN, VIA_F)                        \
    CONV_BODY(i64, SN, VIA_F) CONV_BODY(f16, SN, VIA_F)                        \
    CONV_BODY(bf16, SN, VIA_F) CONV_BODY(f32, SN, VIA_F)                       \
    CONV_BODY(f64, SN, VIA_F)

CONV_FROM_INT(b8)
CONV_FROM_INT(u8)
CONV_FROM_INT(i8)
CONV_FROM_INT(i16)
CONV_FROM_INT(i32)
CONV_FROM_INT(i64)
CONV_FROM_FLOAT(f16)
CONV_FROM_FLOAT(bf16)
CONV_FROM_FLOAT(f32)
CONV_FROM_FLOAT(f64)

#define CONV_ROW(DN, L)                                                        \
    {conv_##DN##_b8##L, conv_##DN##_u8##L, conv_##DN##_i8##L, conv_##DN##_i16##L, \
     conv_##DN##_i32##L, conv_##DN##_i64##L, conv_##DN##_f16##L,               \
     conv_##DN##_bf16##L, conv_##DN##_f32##L, conv_##DN##_f64##L}
#define CONV_TABLE(L)                                                          \
    {CONV_ROW(b8, L),  CONV_ROW(u8, L),  CONV_ROW(i8, L),   CONV_ROW(i16, L),   \
     CONV_ROW(i32, L), CONV_ROW(i64, L), CONV_ROW(f16, L),  CONV_ROW(bf16, L),  \
     CONV_ROW(f32, L), CONV_ROW(f64, L)}

/* [ISA level][dst][src], in tl_dtype order */
static conv_fn conv_table[TL_LEVELS][TL_NDTYPES][TL_NDTYPES] = {
    CONV_TABLE(_base),
#if TL_LEVELS == 3
    CONV_TABLE(_avx2),
    CONV_TABLE(_512),
#endif
};

#ifdef TL_X86
/* float32 -> float16, 8 lanes with F16C, round to nearest even; NaN lanes
 * become 0x7e00 | sign like tl_f32_to_f16 (F16C would keep the payload). */
__attribute__((target("avx,f16c"))) static void
conv_f16_f32_f16c(char *dp, int64_t ds, const char *sp, int64_t ss, int64_t n)
{
    uint16_t *d = (uint16_t *)dp;
    const float *s = (const float *)sp;
    if (ds != 1 || ss != 1) {
        conv_f16_f32_body(dp, ds, sp, ss, n);
        return;
    }
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(s + i);
        __m128i h = _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        __m256 isnan_mask = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
        if (!_mm256_testz_ps(isnan_mask, isnan_mask)) {
            for (int l = 0; l < 8; l++)
                d[i + l] = tl_f32_to_f16(s[i + l]);
            continue;
        }
        _mm_storeu_si128((__m128i *)(d + i), h);
    }
    for (; i < n; i++)
        d[i] = tl_f32_to_f16(s[i]);
}

__attribute__((target("avx,f16c"))) static void
conv_f32_f16_f16c(char *dp, int64_t ds, const char *sp, int64_t ss, int64_t n)
{
    float *d = (float *)dp;
    const uint16_t *s = (const uint16_t *)sp;
    if (ds != 1 || ss != 1) {
        conv_f32_f16_body(dp, ds, sp, ss, n);
        return;
    }
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128((const __m128i *)(s + i));
        _mm256_storeu_ps(d + i, _mm256_cvtph_ps(h));
    }
    for (; i < n; i++)
        d[i] = tl_f16_to_f32(s[i]);
}
#endif

/* same dtype: the bytes, whatever they hold (NaN payloads included) */
#define RAW_COPY(NAME, T)                                                      \
    BODY void NAME##_body(char *dp, int64_t ds, const char *sp, int64_t ss,    \
                          int64_t n)                                           \
    {                                                                          \
        T *d = (T *)dp;                                                        \
        const T *s = (const T *)sp;                                            \
        for (int64_t i = 0; i < n; i++)                                        \
            d[i * ds] = s[i * ss];                                             \
    }                                                                          \
    MULTI_CONV(NAME)
RAW_COPY(raw1, uint8_t)
RAW_COPY(raw2, uint16_t)
RAW_COPY(raw4, uint32_t)
RAW_COPY(raw8, uint64_t)

static conv_fn conv_for(tl_dtype dd, tl_dtype sd)
{
    if (dd == sd) {
        static const conv_fn raw[TL_LEVELS][4] = {
            {raw1_base, raw2_base, raw4_base, raw8_base},
#if TL_LEVELS == 3
            {raw1_avx2, raw2_avx2, raw4_avx2, raw8_avx2},
            {raw1_512, raw2_512, raw4_512, raw8_512},
#endif
        };
        size_t isz = tl_dtype_size(dd);
        return raw[cpu_level()][isz == 1 ? 0 : isz == 2 ? 1 : isz == 4 ? 2 : 3];
    }
#ifdef TL_X86
    bool f16c = (tl_cpu_features() & TL_CPU_F16C) != 0;
    if (f16c && dd == TL_FLOAT16 && sd == TL_FLOAT32)
        return conv_f16_f32_f16c;
    if (f16c && dd == TL_FLOAT32 && sd == TL_FLOAT16)
        return conv_f32_f16_f16c;
#endif
    return conv_table[cpu_level()][dd][sd];
}

/* ------------------------------------------------------------------------
 * copy
 * ---------------------------------------------------------------------- */

typedef struct copy_ctx {
    conv_fn fn;
    bool same;         /* same dtype: memcpy for unit strides */
    bool tr8;          /* 4-byte elements, unit strides on both sides: AVX2 8x8 */
    size_t disz, sisz;
    int64_t n, ds, ss; /* the inner run: length, element strides */
    /* tiles: dim a (the source's most contiguous) by the inner dim b */
    int64_t na, dsa, ssa;
} copy_ctx;

static int copy_run(void *vc, char *const *p, tl_error *err)
{
    const copy_ctx *c = vc;
    if (c->same && c->ds == 1 && c->ss == 1)
        memcpy(p[0], p[1], (size_t)c->n * c->disz);
    else
        c->fn(p[0], c->ds, p[1], c->ss, c->n);
    (void)err;
    return 0;
}

#ifdef TL_X86
/* An 8x8 block of 4-byte elements: s holds 8 rows (stride ss elements) of
 * 8 contiguous elements; d receives them transposed (row stride dsa).
 * Only shuffles: the bits are moved, never interpreted. */
__attribute__((target("avx2"))) static void tr8x8(const uint32_t *s, int64_t ss,
                                                   uint32_t *d, int64_t dsa)
{
    __m256 r0 = _mm256_loadu_ps((const float *)(s + 0 * ss));
    __m256 r1 = _mm256_loadu_ps((const float *)(s + 1 * ss));
    __m256 r2 = _mm256_loadu_ps((const float *)(s + 2 * ss));
    __m256 r3 = _mm256_loadu_ps((const float *)(s + 3 * ss));
    __m256 r4 = _mm256_loadu_ps((const float *)(s + 4 * ss));
    __m256 r5 = _mm256_loadu_ps((const float *)(s + 5 * ss));
    __m256 r6 = _mm256_loadu_ps((const float *)(s + 6 * ss));
    __m256 r7 = _mm256_loadu_ps((const float *)(s + 7 * ss));
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee);
    __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee);
    __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xee);
    __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xee);
    _mm256_storeu_ps((float *)(d + 0 * dsa), _mm256_permute2f128_ps(u0, u4, 0x20));
    _mm256_storeu_ps((float *)(d + 1 * dsa), _mm256_permute2f128_ps(u1, u5, 0x20));
    _mm256_storeu_ps((float *)(d + 2 * dsa), _mm256_permute2f128_ps(u2, u6, 0x20));
    _mm256_storeu_ps((float *)(d + 3 * dsa), _mm256_permute2f128_ps(u3, u7, 0x20));
    _mm256_storeu_ps((float *)(d + 4 * dsa), _mm256_permute2f128_ps(u0, u4, 0x31));
    _mm256_storeu_ps((float *)(d + 5 * dsa), _mm256_permute2f128_ps(u1, u5, 0x31));
    _mm256_storeu_ps((float *)(d + 6 * dsa), _mm256_permute2f128_ps(u2, u6, 0x31));
    _mm256_storeu_ps((float *)(d + 7 * dsa), _mm256_permute2f128_ps(u3, u7, 0x31));
}
#endif

static int copy_tiles(void *vc, char *const *p, tl_error *err)
{
    const copy_ctx *c = vc;
    int64_t dba = c->dsa * (int64_t)c->disz, sba = c->ssa * (int64_t)c->sisz;
    int64_t dbb = c->ds * (int64_t)c->disz, sbb = c->ss * (int64_t)c->sisz;
    for (int64_t a0 = 0; a0 < c->na; a0 += TILE_A) {
        int64_t ae = a0 + TILE_A < c->na ? a0 + TILE_A : c->na;
        for (int64_t b0 = 0; b0 < c->n; b0 += TILE_B) {
            int64_t be = b0 + TILE_B < c->n ? b0 + TILE_B : c->n;
            int64_t a8 = a0;
#ifdef TL_X86
            if (c->tr8) {
                a8 = a0 + (ae - a0) / 8 * 8;
                int64_t b8 = b0 + (be - b0) / 8 * 8;
                for (int64_t a = a0; a < a8; a += 8)
                    for (int64_t b = b0; b < b8; b += 8)
                        tr8x8((const uint32_t *)(p[1] + a * sba + b * sbb), c->ss,
                              (uint32_t *)(p[0] + a * dba + b * dbb), c->dsa);
                /* the columns right of the 8x8 blocks */
                if (b8 < be)
                    for (int64_t a = a0; a < a8; a++)
                        c->fn(p[0] + a * dba + b8 * dbb, c->ds,
                              p[1] + a * sba + b8 * sbb, c->ss, be - b8);
            }
#endif
            /* the rows below them (every row without the AVX2 blocks) */
            for (int64_t a = a8; a < ae; a++)
                c->fn(p[0] + a * dba + b0 * dbb, c->ds,
                      p[1] + a * sba + b0 * sbb, c->ss, be - b0);
        }
    }
    (void)err;
    return 0;
}

int tl_cpu_loops_copy(const tl_strided *dst, const tl_strided *src,
                      tl_error *err)
{
    const tl_strided *ops[2] = {dst, src};
    plan p;
    int r = plan_make(&p, 2, ops);
    if (r == PLAN_NO)
        return 0;
    if (r == PLAN_EMPTY)
        return 1;
    copy_ctx c;
    memset(&c, 0, sizeof c);
    c.fn = conv_for(dst->dtype, src->dtype);
    c.same = dst->dtype == src->dtype;
    c.disz = p.isz[0];
    c.sisz = p.isz[1];
    if (p.nd == 0) {
        c.n = 1;
        c.ds = c.ss = 1;
        copy_run(&c, p.base, err);
        return 1;
    }
    int last = p.nd - 1;
    c.n = p.size[last];
    c.ds = p.st[0][last];
    c.ss = p.st[1][last];
    /* transpose-like: the source is more contiguous along another dim */
    int a = -1;
    if (p.nd >= 2 && c.ss > 1 && c.n >= 4) {
        for (int d = 0; d < last; d++)
            if (p.st[1][d] < c.ss && p.size[d] >= 4 &&
                (a < 0 || p.st[1][d] < p.st[1][a]))
                a = d;
    }
    c.tr8 = false;
    if (a >= 0) {
        c.na = p.size[a];
        c.dsa = p.st[0][a];
        c.ssa = p.st[1][a];
        c.tr8 = c.same && c.disz == 4 && c.ds == 1 && c.ssa == 1 &&
            (tl_cpu_features() & TL_CPU_AVX2);
        return walk(&p, last, a, c.na * c.n, copy_tiles, &c, err) < 0 ? -1 : 1;
    }
    return walk(&p, last, -1, c.n, copy_run, &c, err) < 0 ? -1 : 1;
}

/* ------------------------------------------------------------------------
 * binary
 * ---------------------------------------------------------------------- */

typedef struct bin_ctx {
    tl_binop op;
    tl_dtype dt;
    int64_t n, sd, sa, sb;
} bin_ctx;

static inline float max_f32(float a, float b) { return (a != a || b != b) ? NAN : (a > b ? a : b); }
static inline float min_f32(float a, float b) { return (a != a || b != b) ? NAN : (a < b ? a : b); }
static inline double max_f64(double a, double b) { return (a != a || b != b) ? NAN : (a > b ? a : b); }
static inline double min_f64(double a, double b) { return (a != a || b != b) ? NAN : (a < b ? a : b); }

/* One loop, specialised for the stride patterns that vectorise. */
#define BIN_LOOP(T, EXPR)                                                      \
    do {                                                                       \
        T *d = (T *)p[0];                                                      \
        const T *x = (const T *)p[1], *y = (const T *)p[2];                    \
        int64_t n = c->n, sd = c->sd, sa = c->sa, sb = c->sb;                  \
        if (sd == 1 && sa == 1 && sb == 1) {                                   \
            for (int64_t i = 0; i < n; i++) {                                  \
                T a = x[i], b = y[i];                                          \
                d[i] = (EXPR);                                                 \
            }                                                                  \
        } else if (sd == 1 && sa == 1 && sb == 0) {                            \
            T b = y[0];                                                        \
            for (int64_t i = 0; i < n; i++) {                                  \
                T a = x[i];                                                    \
                d[i] = (EXPR);                                                 \
            }                                                                  \
        } else if (sd == 1 && sa == 0 && sb == 1) {                            \
            T a = x[0];                                                        \
            for (int64_t i = 0; i < n; i++) {                                  \
                T b = y[i];                                                    \
                d[i] = (EXPR);                                                 \
            }                                                                  \
        } else {                                                               \
            for (int64_t i = 0; i < n; i++) {                                  \
                T a = x[i * sa], b = y[i * sb];                                \
                d[i * sd] = (EXPR);                                            \
            }                                                                  \
        }                                                                      \
    } while (0)

#define BIN_FLOAT(T, MAXF, MINF)                                               \
    switch (c->op) {                                                           \
    case TL_BIN_ADD: BIN_LOOP(T, a + b); break;                                \
    case TL_BIN_SUB: BIN_LOOP(T, a - b); break;                                \
    case TL_BIN_MUL: BIN_LOOP(T, a * b); break;                                \
    case TL_BIN_DIV: BIN_LOOP(T, a / b); break;                                \
    case TL_BIN_MAXIMUM: BIN_LOOP(T, MAXF(a, b)); break;                       \
    case TL_BIN_MINIMUM: BIN_LOOP(T, MINF(a, b)); break;                       \
    default: break;                                                            \
    }

/* integers wrap: computed on the unsigned type of the same width */
#define BIN_INT(T, U)                                                          \
    switch (c->op) {                                                           \
    case TL_BIN_ADD: BIN_LOOP(T, (T)((U)a + (U)b)); break;                     \
    case TL_BIN_SUB: BIN_LOOP(T, (T)((U)a - (U)b)); break;                     \
    case TL_BIN_MUL: BIN_LOOP(T, (T)((U)a * (U)b)); break;                     \
    default: break;                                                            \
    }

BODY int bin_run_body(void *vc, char *const *p, tl_error *err)
{
    const bin_ctx *c = vc;
    switch (c->dt) {
    case TL_FLOAT32: BIN_FLOAT(float, max_f32, min_f32) break;
    case TL_FLOAT64: BIN_FLOAT(double, max_f64, min_f64) break;
    case TL_INT32: BIN_INT(int32_t, uint32_t) break;
    case TL_INT64: BIN_INT(int64_t, uint64_t) break;
    default: break;
    }
    (void)err;
    return 0;
}
MULTI_STRIP(bin_run)

int tl_cpu_loops_binary(tl_binop op, tl_dtype compute, const tl_strided *dst,
                        const tl_strided *a, const tl_strided *b, tl_error *err)
{
    bool fl = compute == TL_FLOAT32 || compute == TL_FLOAT64;
    bool in = compute == TL_INT32 || compute == TL_INT64;
    if (!fl && !in)
        return 0;
    if (dst->dtype != compute || a->dtype != compute || b->dtype != compute)
        return 0;
    bool served = op == TL_BIN_ADD || op == TL_BIN_SUB || op == TL_BIN_MUL ||
        (fl && (op == TL_BIN_DIV || op == TL_BIN_MAXIMUM || op == TL_BIN_MINIMUM));
    if (!served)
        return 0;
    const tl_strided *ops[3] = {dst, a, b};
    plan p;
    int r = plan_make(&p, 3, ops);
    if (r == PLAN_NO)
        return 0;
    if (r == PLAN_EMPTY)
        return 1;
    bin_ctx c = {op, compute, 1, 1, 1, 1};
    if (p.nd == 0) {
        bin_run_for()(&c, p.base, err);
        return 1;
    }
    int last = p.nd - 1;
    c.n = p.size[last];
    c.sd = p.st[0][last];
    c.sa = p.st[1][last];
    c.sb = p.st[2][last];
    return walk(&p, last, -1, c.n, bin_run_for(), &c, err) < 0 ? -1 : 1;
}

/* ------------------------------------------------------------------------
 * reduce: float sums and means
 * ---------------------------------------------------------------------- */

/* Every sum here follows reduce_order.h's order exactly (the generic
 * kernel and the CUDA kernels follow it too): blocks of TL_RO_BLOCK
 * elements, element k of a block in lane k % 64, the lanes combined by
 * tl_ro_lanes_close's tree, the blocks by the tl_ro_push
 * cascade. For a contiguous run the 64 lanes are four 16-float vectors
 * (float32: one zmm each on AVX-512) or eight 8-double vectors (float64),
 * and the lane combine is the same tree written on vectors; the cascade
 * costs a few adds per 1024 elements. */
typedef double v8d __attribute__((vector_size(64)));
typedef float v16f __attribute__((vector_size(64)));
typedef float v8f __attribute__((vector_size(32)));

/* tl_ro_lanes_close_f(L, 64) for L = the 16 lanes of a0, a1, a2, a3 in
 * turn: c = (a0 + a1) + (a2 + a3) in float, h = c[i] + c[i + 8] in double,
 * then the scalar tree of eight (hsum16 of the CPU's earlier sum) */
static inline __attribute__((always_inline)) double close_h8(v8d h)
{
    return ((h[0] + h[4]) + (h[2] + h[6])) + ((h[1] + h[5]) + (h[3] + h[7]));
}

static inline __attribute__((always_inline)) double close_f32(v16f a0, v16f a1, v16f a2,
                                                              v16f a3)
{
    v16f c = (a0 + a1) + (a2 + a3);
    v8f l, h;
    memcpy(&l, &c, sizeof l);
    memcpy(&h, (const char *)&c + sizeof l, sizeof h);
    return close_h8(__builtin_convertvector(l, v8d) + __builtin_convertvector(h, v8d));
}

/* one block of m <= TL_RO_BLOCK floats at stride s */
static inline __attribute__((always_inline)) double block_f32(const float *x, int64_t s,
                                                              int64_t m)
{
    v16f a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
    int64_t i = 0;
    if (s == 1) {
        for (; i + 64 <= m; i += 64) {
            v16f f0, f1, f2, f3;
            memcpy(&f0, x + i, sizeof f0);
            memcpy(&f1, x + i + 16, sizeof f1);
            memcpy(&f2, x + i + 32, sizeof f2);
            memcpy(&f3, x + i + 48, sizeof f3);
            a0 += f0;
            a1 += f1;
            a2 += f2;
            a3 += f3;
        }
        if (i == m && m >= 64)
            return close_f32(a0, a1, a2, a3);
    }
    float L[TL_RO_LANES];
    memcpy(L, &a0, sizeof a0);
    memcpy(L + 16, &a1, sizeof a1);
    memcpy(L + 32, &a2, sizeof a2);
    memcpy(L + 48, &a3, sizeof a3);
    for (; i < m; i++)
        L[i % TL_RO_LANES] += x[i * s];
    if (m >= TL_RO_LANES) {
        memcpy(&a0, L, sizeof a0);
        memcpy(&a1, L + 16, sizeof a1);
        memcpy(&a2, L + 32, sizeof a2);
        memcpy(&a3, L + 48, sizeof a3);
        return close_f32(a0, a1, a2, a3);
    }
    return tl_ro_lanes_close_f(L, (int)m);
}

/* one block of m <= TL_RO_BLOCK doubles at stride s: lane q * 8 + j is
 * b[q][j], so c's low half is (b0 + b2) + (b4 + b6), its high half
 * (b1 + b3) + (b5 + b7) */
static inline __attribute__((always_inline)) double block_f64(const double *x, int64_t s,
                                                              int64_t m)
{
    v8d b[8] = {{0}};
    int64_t i = 0;
    if (s == 1) {
        for (; i + 64 <= m; i += 64) {
            for (int q = 0; q < 8; q++) {
                v8d f;
                memcpy(&f, x + i + 8 * q, sizeof f);
                b[q] += f;
            }
        }
    }
    if (i < m) {
        double L[TL_RO_LANES];
        memcpy(L, b, sizeof L);
        for (; i < m; i++)
            L[i % TL_RO_LANES] += x[i * s];
        if (m < TL_RO_LANES)
            return tl_ro_lanes_close(L, (int)m, 0);
        memcpy(b, L, sizeof L);
    }
    v8d clo = (b[0] + b[2]) + (b[4] + b[6]), chi = (b[1] + b[3]) + (b[5] + b[7]);
    return close_h8(clo + chi);
}

/* push the blocks of n elements at stride s (n a multiple of TL_RO_BLOCK
 * unless these are the run's last) into the cascade */
static inline __attribute__((always_inline)) void sum_push(tl_dtype dt, const char *x,
                                                           int64_t s, int64_t n,
                                                           tl_ro_casc *cs)
{
    for (int64_t i = 0; i < n; i += TL_RO_BLOCK) {
        int64_t m = n - i < TL_RO_BLOCK ? n - i : TL_RO_BLOCK;
        double v = dt == TL_FLOAT32 ? block_f32((const float *)x + i * s, s, m)
                                    : block_f64((const double *)x + i * s, s, m);
        tl_ro_push(cs, v, 0);
    }
}

typedef struct red_ctx {
    tl_redop op;
    tl_dtype dt;
    int64_t n, s;    /* the reduced run */
    int64_t count;   /* elements reduced per output (mean's divisor) */
    /* row form: nrow rows of ncol kept elements */
    int64_t nrow, rs, ncol, cs_src, cs_dst;
} red_ctx;

static void store_result(const red_ctx *c, char *d, double sum)
{
    if (c->op == TL_RED_MEAN)
        sum = sum / (double)c->count;
    if (c->dt == TL_FLOAT32) {
        float v = (float)sum;
        memcpy(d, &v, 4);
    } else {
        memcpy(d, &sum, 8);
    }
}

/* A run longer than POLL_EVERY (a multiple of TL_RO_BLOCK) is summed in
 * chunks with a deadline poll between them (an expanded tensor can present
 * 2^40 elements); the cascade carries over, so the order is unchanged. */
BODY int red_run_body(void *vc, char *const *p, tl_error *err)
{
    const red_ctx *c = vc;
    tl_ro_casc cs;
    tl_ro_casc_init(&cs);
    int64_t since = 0;
    size_t isz = c->dt == TL_FLOAT32 ? 4 : 8;
    for (int64_t i0 = 0; i0 < c->n; i0 += POLL_EVERY) {
        int64_t n = c->n - i0 < POLL_EVERY ? c->n - i0 : POLL_EVERY;
        sum_push(c->dt, p[1] + i0 * c->s * (int64_t)isz, c->s, n, &cs);
        if (i0 + n < c->n && poll(&since, n, err) < 0)
            return -1;
    }
    store_result(c, p[0], tl_ro_total(&cs, 0));
    return 0;
}
MULTI_STRIP(red_run)

/* Many outputs of short contiguous runs (x.sum(1) of a 256 x 256 x): the
 * last kept dim's ncol outputs in one call, so that the walk, the level
 * dispatch and the poll are paid once per ncol rows, not once per row (at
 * 2^16 elements that overhead was half of the time). Runs of n <=
 * POLL_EVERY only (red_run splits longer ones). */
BODY int red_many_body(void *vc, char *const *p, tl_error *err)
{
    const red_ctx *c = vc;
    size_t isz = c->dt == TL_FLOAT32 ? 4 : 8;
    int64_t since = 0;
    for (int64_t j = 0; j < c->ncol; j++) {
        const char *x = p[1] + j * c->cs_src * (int64_t)isz;
        double sum;
        if (c->n <= TL_RO_BLOCK) {
            sum = c->dt == TL_FLOAT32 ? block_f32((const float *)x, 1, c->n)
                                      : block_f64((const double *)x, 1, c->n);
        } else {
            tl_ro_casc cs;
            tl_ro_casc_init(&cs);
            sum_push(c->dt, x, 1, c->n, &cs);
            sum = tl_ro_total(&cs, 0);
        }
        store_result(c, p[0] + j * c->cs_dst * (int64_t)isz, sum);
        if (poll(&since, c->n, err) < 0)
            return -1;
    }
    return 0;
}
MULTI_STRIP(red_many)

/* Rows: out[j] = sum_i x[i, j] for a contiguous run of kept columns j.
 * ROWCOLS columns at a time: per block of rows, row i is added into lane
 * i % 64 of every column (vectorised across the columns), then each
 * column's lanes are closed and pushed into its cascade. */
#define ROWCOLS 32
BODY int red_rows_body(void *vc, char *const *p, tl_error *err)
{
    const red_ctx *c = vc;
    size_t isz = c->dt == TL_FLOAT32 ? 4 : 8;
    bool f32 = c->dt == TL_FLOAT32;
    float lf[TL_RO_LANES][ROWCOLS];
    double ld[TL_RO_LANES][ROWCOLS];
    tl_ro_casc cs[ROWCOLS];
    int64_t since = 0;
    for (int64_t j0 = 0; j0 < c->ncol; j0 += ROWCOLS) {
        int64_t nj = c->ncol - j0 < ROWCOLS ? c->ncol - j0 : ROWCOLS;
        for (int64_t j = 0; j < nj; j++)
            tl_ro_casc_init(&cs[j]);
        for (int64_t i0 = 0; i0 < c->nrow; i0 += TL_RO_BLOCK) {
            int64_t m = c->nrow - i0 < TL_RO_BLOCK ? c->nrow - i0 : TL_RO_BLOCK;
            if (poll(&since, m * nj, err) < 0)
                return -1;
            int used = m < TL_RO_LANES ? (int)m : TL_RO_LANES;
            for (int l = 0; l < used; l++)
                for (int64_t j = 0; j < nj; j++) {
                    lf[l][j] = 0.0f;
                    ld[l][j] = 0.0;
                }
            for (int64_t i = 0; i < m; i++) {
                const char *row = p[1] + ((i0 + i) * c->rs + j0 * c->cs_src) * (int64_t)isz;
                int l = (int)(i % TL_RO_LANES);
                if (f32) {
                    const float *x = (const float *)row;
                    for (int64_t j = 0; j < nj; j++)
                        lf[l][j] += x[j];
                } else {
                    const double *x = (const double *)row;
                    for (int64_t j = 0; j < nj; j++)
                        ld[l][j] += x[j];
                }
            }
            for (int64_t j = 0; j < nj; j++) {
                double v;
                if (f32) {
                    float L[TL_RO_LANES];
                    for (int l = 0; l < used; l++)
                        L[l] = lf[l][j];
                    v = tl_ro_lanes_close_f(L, used);
                } else {
                    double L[TL_RO_LANES];
                    for (int l = 0; l < used; l++)
                        L[l] = ld[l][j];
                    v = tl_ro_lanes_close(L, used, 0);
                }
                tl_ro_push(&cs[j], v, 0);
            }
        }
        for (int64_t j = 0; j < nj; j++)
            store_result(c, p[0] + (j0 + j) * c->cs_dst * (int64_t)isz,
                         tl_ro_total(&cs[j], 0));
    }
    return 0;
}
MULTI_STRIP(red_rows)

int tl_cpu_loops_reduce(tl_redop op, tl_dtype compute, const tl_strided *dst,
                        const tl_strided *src, uint64_t reduce_mask,
                        tl_error *err)
{
    if (op != TL_RED_SUM && op != TL_RED_MEAN)
        return 0;
    if ((compute != TL_FLOAT32 && compute != TL_FLOAT64) ||
        src->dtype != compute || dst->dtype != compute)
        return 0;
    int nd = src->ndim;
    if (nd < 1 || nd > TL_MAX_DIMS || dst->ndim != nd)
        return 0;
    if (nd < 64 && (reduce_mask >> nd) != 0)
        return 0;
    size_t isz = tl_dtype_size(compute);
    if (!src->data || !dst->data || ((uintptr_t)src->data % isz) ||
        ((uintptr_t)dst->data % isz))
        return 0;
    /* kept dims (k) and reduced dims (r), size-1 dims dropped, in order */
    int64_t ksz[TL_MAX_DIMS], kst[TL_MAX_DIMS], kdst[TL_MAX_DIMS];
    int64_t rsz[TL_MAX_DIMS], rst[TL_MAX_DIMS];
    int nk = 0, nr = 0;
    int64_t count = 1;
    int last_kept_pos = -1, first_red_pos = nd;
    for (int d = 0; d < nd; d++) {
        bool red = (reduce_mask >> d) & 1u;
        if (src->sizes[d] <= 0 || src->strides[d] < 0)
            return 0;
        if (red ? dst->sizes[d] != 1 : dst->sizes[d] != src->sizes[d])
            return 0;
        if (src->sizes[d] == 1)
            continue;
        if (red) {
            rsz[nr] = src->sizes[d];
            rst[nr] = src->strides[d];
            count *= src->sizes[d];
            if (first_red_pos == nd)
                first_red_pos = d;
            nr++;
        } else {
            ksz[nk] = src->sizes[d];
            kst[nk] = src->strides[d];
            kdst[nk] = dst->strides[d];
            last_kept_pos = d;
            nk++;
        }
    }
    if (nr == 0)
        return 0;
    /* the reduced dims must form one strided run */
    for (int r = nr - 1; r > 0; r--) {
        if (rst[r - 1] != rst[r] * rsz[r])
            return 0;
    }
    red_ctx c;
    memset(&c, 0, sizeof c);
    c.op = op;
    c.dt = compute;
    c.count = count;
    plan pl;
    pl.nops = 2;
    pl.base[0] = dst->data;
    pl.base[1] = src->data;
    pl.isz[0] = pl.isz[1] = isz;
    if (nk >= 1 && last_kept_pos > first_red_pos && kst[nk - 1] == 1 &&
        rst[nr - 1] != 1) {
        /* rows: the reduced run lies outside the last kept dim, which is
         * contiguous in the source */
        c.nrow = count;
        c.rs = rst[nr - 1];
        c.ncol = ksz[nk - 1];
        c.cs_src = 1;
        c.cs_dst = kdst[nk - 1];
        pl.nd = nk - 1;
        for (int k = 0; k < nk - 1; k++) {
            pl.size[k] = ksz[k];
            pl.st[0][k] = kdst[k];
            pl.st[1][k] = kst[k];
        }
        if (pl.nd == 0) {
            return red_rows_for()(&c, pl.base, err) < 0 ? -1 : 1;
        }
        return walk(&pl, pl.nd, -1, count * c.ncol, red_rows_for(), &c, err) < 0 ? -1 : 1;
    }
    c.n = count;
    c.s = rst[nr - 1];
    if (nk >= 1 && c.s == 1 && count <= POLL_EVERY) {
        /* contiguous runs: the last kept dim's outputs a call (red_many) */
        c.ncol = ksz[nk - 1];
        c.cs_src = kst[nk - 1];
        c.cs_dst = kdst[nk - 1];
        pl.nd = nk - 1;
        for (int k = 0; k < nk - 1; k++) {
            pl.size[k] = ksz[k];
            pl.st[0][k] = kdst[k];
            pl.st[1][k] = kst[k];
        }
        if (pl.nd == 0)
            return red_many_for()(&c, pl.base, err) < 0 ? -1 : 1;
        return walk(&pl, pl.nd, -1, count * c.ncol, red_many_for(), &c, err) < 0 ? -1 : 1;
    }
    pl.nd = nk;
    for (int k = 0; k < nk; k++) {
        pl.size[k] = ksz[k];
        pl.st[0][k] = kdst[k];
        pl.st[1][k] = kst[k];
    }
    if (nk == 0) {
        return red_run_for()(&c, pl.base, err) < 0 ? -1 : 1;
    }
    return walk(&pl, nk, -1, count, red_run_for(), &c, err) < 0 ? -1 : 1;
}

/* ------------------------------------------------------------------------
 * index_select: a 1-d gather, same dtype
 * ---------------------------------------------------------------------- */

#define GATHER(T)                                                              \
    do {                                                                       \
        T *d = (T *)dst->data;                                                 \
        const T *s = (const T *)src->data;                                     \
        for (int64_t k0 = 0; k0 < n_index; k0 += POLL_EVERY) {                 \
            int64_t ke = k0 + POLL_EVERY < n_index ? k0 + POLL_EVERY : n_index; \
            if (ds == 1 && ss == 1)                                            \
                for (int64_t k = k0; k < ke; k++)                              \
                    d[k] = s[index[k]];                                        \
            else                                                               \
                for (int64_t k = k0; k < ke; k++)                              \
                    d[k * ds] = s[index[k] * ss];                              \
            if (ke < n_index && poll(&since, POLL_EVERY, err) < 0)             \
                return -1;                                                     \
        }                                                                      \
    } while (0)

int tl_cpu_loops_index_select(const tl_strided *dst, const tl_strided *src,
                              int dim, const int64_t *index, int64_t n_index,
                              tl_error *err)
{
    if (src->ndim != 1 || dst->ndim != 1 || dim != 0 ||
        dst->dtype != src->dtype || dst->sizes[0] != n_index || n_index <= 0)
        return 0;
    size_t isz = tl_dtype_size(src->dtype);
    int64_t ds = dst->strides[0], ss = src->strides[0];
    if (!dst->data || !src->data || ((uintptr_t)dst->data % isz) ||
        ((uintptr_t)src->data % isz) || ds <= 0 || ss < 0)
        return 0;
    int64_t n = src->sizes[0];
    for (int64_t k = 0; k < n_index; k++)
        if (index[k] < 0 || index[k] >= n)
            return 0; /* the generic kernel reports it */
    /* dst and src must not overlap */
    uintptr_t dlo = (uintptr_t)dst->data, dhi = dlo + (uintptr_t)((n_index - 1) * ds + 1) * isz;
    uintptr_t slo = (uintptr_t)src->data, shi = slo + (uintptr_t)((n - 1) * ss + 1) * isz;
    if (!(dhi <= slo || shi <= dlo))
        return 0;
    int64_t since = 0;
    switch (isz) {
    case 1: GATHER(uint8_t); break;
    case 2: GATHER(uint16_t); break;
    case 4: GATHER(uint32_t); break;
    default: GATHER(uint64_t); break;
    }
    return 1;
}

/* ------------------------------------------------------------------------
 * gemm: C (m, n) = A (m, k) @ B (k, n), float32 or float64
 *
 * Goto/BLIS structure: for each NC-column block of B and MC-row block of A,
 * K is walked in KC slices; each slice of A is packed into MR-row panels
 * and of B into NR-column panels (zero-padded at the edges), and an MR x NR
 * register-blocked micro-kernel accumulates into a C tile buffer in the
 * dtype, stored to C (any strides) once K is done. The micro-kernel uses
 * GCC vector extensions: AVX-512 where cpuid has it, the baseline ISA
 * otherwise. float32 accumulates in float32 (as PyTorch's BLAS does), so
 * results differ from an exact sum by float rounding, in any order.
 * Extra memory: the packed panels and the tile buffer, about 0.7 MiB for
 * float64, whatever the sizes (never an m x k x n temporary).
 * ---------------------------------------------------------------------- */

#define GEMM_MR 8
#define GEMM_MC 64
#define GEMM_KC 256
#define GEMM_NC 256

#define DEF_GEMM(SUF, T, NR, VT, ATTR)                                         \
    typedef T VT __attribute__((vector_size(NR * sizeof(T))));                 \
    ATTR static void micro_##SUF(int64_t kc, const T *ap, const T *bp, T *c,   \
                                 int64_t ldc)                                  \
    {                                                                          \
        VT acc[GEMM_MR];                                                       \
        for (int i = 0; i < GEMM_MR; i++)                                      \
            memcpy(&acc[i], c + i * ldc, sizeof(VT));                          \
        for (int64_t p = 0; p < kc; p++) {                                     \
            VT b;                                                              \
            memcpy(&b, bp + p * NR, sizeof b);                                 \
            for (int i = 0; i < GEMM_MR; i++)                                  \
                acc[i] += ap[p * GEMM_MR + i] * b;                             \
        }                                                                      \
        for (int i = 0; i < GEMM_MR; i++)                                      \
            memcpy(c + i * ldc, &acc[i], sizeof(VT));                          \
    }

#if defined(TL_X86)
DEF_GEMM(f32_512, float, 16, v16f_512, __attribute__((target("avx512f,fma"))))
DEF_GEMM(f64_512, double, 8, v8d_512, __attribute__((target("avx512f,fma"))))
DEF_GEMM(f32_avx2, float, 16, v16f_avx2, __attribute__((target("avx2,fma"))))
DEF_GEMM(f64_avx2, double, 8, v8d_avx2, __attribute__((target("avx2,fma"))))
#endif
DEF_GEMM(f32_base, float, 16, v16f_base, )
DEF_GEMM(f64_base, double, 8, v8d_base, )

#if defined(TL_X86) /* only the x86 micro-kernels are picked by level */
static int isa_level(void)
{
    unsigned f = tl_cpu_features();
    if ((f & TL_CPU_AVX512F) && (f & TL_CPU_FMA))
        return 2;
    return (f & TL_CPU_AVX2) && (f & TL_CPU_FMA) ? 1 : 0;
}
#endif

#define GEMM_DRIVER(SUF, T, NR)                                                \
    static int gemm_##SUF(const tl_strided *cm, const tl_strided *am,          \
                          const tl_strided *bm, tl_error *err)                 \
    {                                                                          \
        int64_t m = cm->sizes[0], n = cm->sizes[1], k = am->sizes[1];          \
        const T *A = am->data, *B = bm->data;                                  \
        T *C = cm->data;                                                       \
        int64_t as0 = am->strides[0], as1 = am->strides[1];                    \
        int64_t bs0 = bm->strides[0], bs1 = bm->strides[1];                    \
        int64_t cs0 = cm->strides[0], cs1 = cm->strides[1];                    \
        void (*micro)(int64_t, const T *, const T *, T *, int64_t) =           \
            micro_##SUF##_base;                                                \
        SELECT_##SUF                                                           \
        T *ap = malloc(sizeof(T) * GEMM_MC * GEMM_KC);                         \
        T *bp = malloc(sizeof(T) * GEMM_KC * GEMM_NC);                         \
        T *cb = malloc(sizeof(T) * GEMM_MC * GEMM_NC);                         \
        int rc = 1;                                                            \
        int64_t since = 0;                                                     \
        if (!ap || !bp || !cb) {                                               \
            rc = 0; /* the generic path reports the allocation failure */     \
            goto out;                                                          \
        }                                                                      \
        for (int64_t jc = 0; jc < n; jc += GEMM_NC) {                          \
            int64_t nc = n - jc < GEMM_NC ? n - jc : GEMM_NC;                  \
            int64_t ncp = (nc + NR - 1) / NR * NR;                             \
            for (int64_t ic = 0; ic < m; ic += GEMM_MC) {                      \
                int64_t mc = m - ic < GEMM_MC ? m - ic : GEMM_MC;              \
                int64_t mcp = (mc + GEMM_MR - 1) / GEMM_MR * GEMM_MR;          \
                memset(cb, 0, sizeof(T) * (size_t)(mcp * ncp));                \
                for (int64_t pc = 0; pc < k; pc += GEMM_KC) {                  \
                    int64_t kc = k - pc < GEMM_KC ? k - pc : GEMM_KC;          \
                    /* B panels: [jr][p][NR] */                                \
                    for (int64_t jr = 0; jr < ncp; jr += NR)                   \
                        for (int64_t p = 0; p < kc; p++)                       \
                            for (int64_t j = 0; j < NR; j++) {                 \
                                int64_t jj = jc + jr + j;                      \
                                bp[jr * kc + p * NR + j] = jr + j < nc         \
                                    ? B[(pc + p) * bs0 + jj * bs1] : (T)0;     \
                            }                                                  \
                    /* A panels: [ir][p][MR] */                                \
                    for (int64_t ir = 0; ir < mcp; ir += GEMM_MR)              \
                        for (int64_t p = 0; p < kc; p++)                       \
                            for (int64_t i = 0; i < GEMM_MR; i++) {            \
                                int64_t ii = ic + ir + i;                      \
                                ap[ir * kc + p * GEMM_MR + i] = ir + i < mc    \
                                    ? A[ii * as0 + (pc + p) * as1] : (T)0;     \
                            }                                                  \
                    for (int64_t jr = 0; jr < ncp; jr += NR)                   \
                        for (int64_t ir = 0; ir < mcp; ir += GEMM_MR)          \
                            micro(kc, ap + ir * kc, bp + jr * kc,              \
                                  cb + ir * ncp + jr, ncp);                    \
                    if (poll(&since, mc * nc * kc, err) < 0) {                 \
                        rc = -1;                                               \
                        goto out;                                              \
                    }                                                          \
                }                                                              \
                for (int64_t i = 0; i < mc; i++)                               \
                    for (int64_t j = 0; j < nc; j++)                           \
                        C[(ic + i) * cs0 + (jc + j) * cs1] = cb[i * ncp + j];  \
            }                                                                  \
        }                                                                      \
    out:                                                                       \
        free(ap);                                                              \
        free(bp);                                                              \
        free(cb);                                                              \
        return rc;                                                             \
    }

#if defined(TL_X86)
#define SELECT_f32                                                             \
    if (isa_level() == 2) micro = micro_f32_512;                               \
    else if (isa_level() == 1) micro = micro_f32_avx2;
#define SELECT_f64                                                             \
    if (isa_level() == 2) micro = micro_f64_512;                               \
    else if (isa_level() == 1) micro = micro_f64_avx2;
#else
#define SELECT_f32
#define SELECT_f64
#endif

GEMM_DRIVER(f32, float, 16)
GEMM_DRIVER(f64, double, 8)

int tl_cpu_loops_gemm(const tl_strided *c, const tl_strided *a,
                      const tl_strided *b, tl_error *err)
{
    if (c->ndim != 2 || a->ndim != 2 || b->ndim != 2)
        return 0;
    tl_dtype dt = c->dtype;
    if ((dt != TL_FLOAT32 && dt != TL_FLOAT64) || a->dtype != dt || b->dtype != dt)
        return 0;
    int64_t m = c->sizes[0], n = c->sizes[1], k = a->sizes[1];
    if (a->sizes[0] != m || b->sizes[0] != k || b->sizes[1] != n)
        return 0;
    if (m == 0 || n == 0)
        return 1;
    size_t isz = tl_dtype_size(dt);
    if (!c->data || (k > 0 && (!a->data || !b->data)) ||
        ((uintptr_t)c->data % isz) || ((uintptr_t)a->data % isz) ||
        ((uintptr_t)b->data % isz))
        return 0;
    if (k == 0) {
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                char *p = (char *)c->data + (i * c->strides[0] + j * c->strides[1]) * (int64_t)isz;
                memset(p, 0, isz);
            }
        return 1;
    }
    return dt == TL_FLOAT32 ? gemm_f32(c, a, b, err) : gemm_f64(c, a, b, err);
}
