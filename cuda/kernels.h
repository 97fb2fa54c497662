/* kernels.h - the CUDA backend's kernel bodies, written once for two
 * compilers: nvcc compiles them as __host__ __device__ functions called from
 * the __global__ wrappers in dev_cuda.cu, gcc compiles them as plain C for
 * the host grid simulator (dev_sim.c). Everything here is in the common
 * subset of C11 and C++17: no designated initialisers, compound literals,
 * VLAs, templates or references, no library call beyond <math.h>/<string.h>.
 *
 * Design:
 *   - A launch is one descriptor (tl_kdesc, passed by value to the device)
 *     plus a grid. Each thread of the grid runs tl_k_run() with its own
 *     {block, thread, blockDim, gridDim} (tl_kgrid) and walks the work items
 *     of a grid-stride loop: item i, i + blockDim*gridDim, ...
 *   - A work item is one output element (or one reduction partial; in a
 *     specialised copy loop, a run or a 4 x 4 tile of them: kernels_spec.h).
 *     Its operand addresses come from a divide/modulo offset calculator
 *     over the merged shape (PyTorch's OffsetCalculator, with precomputed
 *     divisors): item -> coordinates -> byte offset per operand. The host
 *     merges and drops dims first.
 *   - No cooperation between threads: no shared memory, barriers, warp
 *     intrinsics or atomics. Every output element is written by exactly one
 *     work item (the one exception, an in-order scatter through device
 *     offsets whose targets may repeat, is launched as one thread), so
 *     running blocks and threads serially in any order (the simulator)
 *     gives the device's answer. `visits` (simulator only, NULL on a GPU)
 *     counts the writes per output element so the simulator can prove it.
 *   - Scalar semantics (dtype loads, stores, conversions, the ops) are those
 *     of src/runtime/dtype.c and backend_cpu.c, bit for bit: float16/bfloat16
 *     round to nearest-even through float, float -> int stores go through
 *     int32/int64 with INT_MIN for out-of-range values, arithmetic happens in
 *     double (floating compute dtypes, results rounded to the compute dtype)
 *     or on uint64 (integral compute dtypes, wrapped to their width).
 *   - Integer division by zero writes 0 and raises *flag (device memory):
 *     the host turns it into PyTorch's error after the launch.
 * Requires --fmad=false under nvcc (a*b+c must not become an FMA).
 */
#ifndef TL_KERNELS_H
#define TL_KERNELS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "scalar_defs.h" /* the conversions and formulas both devices share */
#include "reduce_order.h" /* the one order of floating sums and products */

/* forced inline on the device: a call that is not inlined and gets a
 * pointer to the descriptor makes ptxas copy it out of parameter space */
#if defined(__CUDACC__)
#define TL_KFN static __host__ __device__ __forceinline__
#else
#define TL_KFN static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define TL_K_MAXDIMS 64
#define TL_K_MAXOPS 4
/* launches of at most this many merged dims get precomputed divisors
 * (PyTorch's OffsetCalculator stops at 25 dims) */
#define TL_K_DIVDIMS 24

/* dtype codes: the same numbers as tl_dtype (dtype.h), restated so this
 * header stands alone in a .cu translation unit */
enum {
    TL_K_BOOL = 0, TL_K_U8, TL_K_I8, TL_K_I16, TL_K_I32, TL_K_I64, TL_K_F16,
    TL_K_BF16, TL_K_F32, TL_K_F64, TL_K_NDTYPES
};

/* kernel kinds (one __global__ each on the device) */
typedef enum tl_kkind {
    TL_K_COPY, TL_K_FILL, TL_K_BINARY, TL_K_UNARY, TL_K_WHERE, TL_K_GATHER,
    TL_K_REDUCE, TL_K_REDUCE_COMBINE, TL_K_SCATTER, TL_K_SORT,
    TL_K_INDEX_OFFSETS, TL_K_SCATTER_SEQ, TL_K_SORT_MERGE, TL_K_SORT_STORE,
    TL_K_SCATTER_FOLD, TL_K_SCAN, TL_K_NKINDS
} tl_kkind;

/* One launch. Strides are in bytes over the merged shape (dim 0 outermost).
 * Operand 0 is the output unless the kernel says otherwise. */
typedef struct tl_kdesc {
    int64_t n;                         /* work items */
    int32_t ndim, nops;
    int32_t op, compute, bits;         /* op code, compute dtype, its width */
    int32_t dtype[TL_K_MAXOPS];
    int64_t sizes[TL_K_MAXDIMS];
    int64_t strides[TL_K_MAXOPS][TL_K_MAXDIMS];
    char *ptr[TL_K_MAXOPS];            /* element [0,...,0] of each operand */
    /* gather/scatter: the coordinate along merged dim gdim of operand gop
     * (1: gather's source, 0: scatter's destination) is replaced by
     * goffs[coordinate] * gscale bytes (gscale 1: goffs holds byte
     * offsets; the element size: element offsets); gdim = -1: none */
    int32_t gdim, gop;
    int64_t gscale;
    const int64_t *goffs;
    /* reduce: the reduced sub-shape (rsizes/rstrides of operand 1), nred
     * elements per output, split into nchunk chunks of clen; partials.
     * index offsets: rsizes[j]/rstrides[j] are the size and element stride
     * of the dim that index operand j + 1 indexes */
    int32_t rndim;
    int64_t nred, nchunk, clen;
    int64_t rsizes[TL_K_MAXDIMS];
    int64_t rstrides[TL_K_MAXDIMS];
    void *partials;                    /* tl_kacc[n * nchunk] */
    /* scatter: the item at gdim coordinate u folds the source elements at
     * byte offsets spos[sstart[u] .. sstart[u+1]) (duplicates, CPU order) */
    const int64_t *sstart, *spos;
    /* sort: row length, descending, k outputs kept per row (topk); a long
     * row's merge sort: source positions, rows * len each, read from
     * sbuf[0] (NULL: the identity) and written to sbuf[1] in runs of
     * 2 * width (the store reads sbuf[0]) */
    int64_t len, k;
    int32_t descending;
    int64_t *sbuf[2];
    int64_t width;
    unsigned char fill[8];             /* fill: the value's bytes */
    /* the output overlaps an input (x[1:].copy_(x[:-1])): run as one
     * thread, items in order, as the CPU's loop does (1); 2: a same-dtype
     * copy whose inner strips are dense, which the CPU moves strip by strip
     * with memmove: each strip is walked backwards when its destination
     * lies above its source */
    int32_t serial;
    /* the first work item (0; the simulator runs a serial launch in
     * slices [first, n) so it can poll the op's deadline between them) */
    int64_t first;
    int32_t *flag;                     /* integer division by zero */
    uint8_t *visits;                   /* simulator: writes per output
                                        * element, 0, 1 or 2 (more) */
    /* Set by tl_k_prepare (kernels_spec.h) in the device layer, on its own
     * copy of the descriptor, right before a launch (review S2):
     *   spec     the specialised loop the items run (TL_KSPEC_*; 0: the
     *            generic one); a vec or tile item covers several output
     *            elements, nelem in all (what the simulator's visits
     *            count), and d->sizes/strides then describe the items;
     *   trows, tcols, tstride  a tile launch's last two merged dims before
     *            tiling, the output's byte stride along the rows and the
     *            source's along the columns;
     *   fastdiv  dim j's size divides by multiply-high and shift
     *            (PyTorch's IntDivider): x / size = (umulhi(x, dmag[j]) + x)
     *            >> dshift[j], exact for x < 2^31: set when n < 2^31 and
     *            ndim <= TL_K_DIVDIMS.
     * nospec (set by the caller: benchmarks) keeps the generic loop. */
    int32_t spec, nospec, fastdiv;
    int64_t nelem, trows, tcols, tstride[2];
    uint32_t dmag[TL_K_DIVDIMS];
    uint8_t dshift[TL_K_DIVDIMS];
} tl_kdesc;

typedef struct tl_kgrid {
    int64_t block, thread, bdim, gdim;
} tl_kgrid;

/* reduction accumulator (one per output or per partial) */
typedef struct tl_kacc {
    double f;
    int64_t i;
    int64_t arg;
    int32_t seen_nan;
    int32_t any; /* elements folded (0: empty partial) */
} tl_kacc;

/* op codes: the same numbers as tl_binop / tl_unop / tl_redop (backend.h) */
enum {
    TL_KB_ADD, TL_KB_SUB, TL_KB_MUL, TL_KB_DIV, TL_KB_FLOORDIV,
    TL_KB_REMAINDER, TL_KB_FMOD, TL_KB_POW, TL_KB_MAXIMUM, TL_KB_MINIMUM,
    TL_KB_ATAN2, TL_KB_EQ, TL_KB_NE, TL_KB_LT, TL_KB_LE, TL_KB_GT,
    TL_KB_GE, TL_KB_LOGICAL_AND, TL_KB_LOGICAL_OR, TL_KB_LOGICAL_XOR,
    TL_KB_BITAND, TL_KB_BITOR, TL_KB_BITXOR, TL_KB_LSHIFT, TL_KB_RSHIFT,
    TL_KB_COPY_RHS
};
#define TL_KU_CODE(NAME) TL_KU_##NAME,
enum { TL_SD_UNOPS(TL_KU_CODE) }; /* scalar_defs.h's list */
enum {
    TL_KR_SUM, TL_KR_PROD, TL_KR_MEAN, TL_KR_MAX, TL_KR_MIN,
    TL_KR_ARGMAX, TL_KR_ARGMIN, TL_KR_ALL, TL_KR_ANY
};
/* scatter modes (op) */
enum { TL_KS_ASSIGN, TL_KS_ADD, TL_KS_MUL };

/* ------------------------------------------------------------------------
 * Scalars: float16 / bfloat16, well-defined float -> int, loads, stores
 * ---------------------------------------------------------------------- */

TL_KFN int tl_k_isnan(double x) { return x != x; }
TL_KFN int tl_k_isinf(double x) { return x == HUGE_VAL || x == -HUGE_VAL; }







TL_KFN int tl_k_is_floating(int dt)
{
    return dt == TL_K_F16 || dt == TL_K_BF16 || dt == TL_K_F32 || dt == TL_K_F64;
}

TL_KFN int tl_k_size(int dt)
{
    switch (dt) {
    case TL_K_BOOL: case TL_K_U8: case TL_K_I8: return 1;
    case TL_K_I16: case TL_K_F16: case TL_K_BF16: return 2;
    case TL_K_I32: case TL_K_F32: return 4;
    default: return 8;
    }
}

/* Element loads and stores (review S2). On the device an element whose
 * address is a multiple of its size (always, in practice: allocations are
 * 256-byte aligned and strides count elements) is one typed access, where
 * a memcpy of unknown alignment compiles to byte loads; the host (the
 * simulator, the CPU's tests) keeps memcpy. n is 1, 2, 4 or 8. */
TL_KFN void tl_k_ld(void *v, const char *p, int n)
{
#ifdef __CUDA_ARCH__
    if (((uintptr_t)p & (uintptr_t)(n - 1)) == 0) {
        switch (n) {
        case 1: { uint8_t t = *(const uint8_t *)p; memcpy(v, &t, 1); return; }
        case 2: { uint16_t t = *(const uint16_t *)p; memcpy(v, &t, 2); return; }
        case 4: { uint32_t t = *(const uint32_t *)p; memcpy(v, &t, 4); return; }
        case 8: { uint64_t t = *(const uint64_t *)p; memcpy(v, &t, 8); return; }
        default: break;
        }
    }
#endif
    memcpy(v, p, (size_t)n);
}

TL_KFN void tl_k_st(char *p, const void *v, int n)
{
#ifdef __CUDA_ARCH__
    if (((uintptr_t)p & (uintptr_t)(n - 1)) == 0) {
        switch (n) {
        case 1: { uint8_t t; memcpy(&t, v, 1); *(uint8_t *)p = t; return; }
        case 2: { uint16_t t; memcpy(&t, v, 2); *(uint16_t *)p = t; return; }
        case 4: { uint32_t t; memcpy(&t, v, 4); *(uint32_t *)p = t; return; }
        case 8: { uint64_t t; memcpy(&t, v, 8); *(uint64_t *)p = t; return; }
        default: break;
        }
    }
#endif
    memcpy(p, v, (size_t)n);
}

/* An element of n bytes (1, 2, 4, 8) as a value: in its low n bytes on the
 * device (little-endian; one typed access when aligned, else bytes),
 * memcpy'd on the host. Nothing interprets it: tl_k_stu(p, tl_k_ldu(q, n),
 * n) copies the element on either. By value, so a register on the device
 * even where n is not a constant (an address passed to a memcpy of
 * unknown size would put the variable in local memory). */
TL_KFN uint64_t tl_k_ldu(const char *p, int n)
{
    uint64_t t = 0;
#ifdef __CUDA_ARCH__
    if (((uintptr_t)p & (uintptr_t)(n - 1)) == 0) {
        switch (n) {
        case 1: return *(const uint8_t *)p;
        case 2: return *(const uint16_t *)p;
        case 4: return *(const uint32_t *)p;
        case 8: return *(const uint64_t *)p;
        default: break;
        }
    }
    for (int b = 0; b < n; b++)
        t |= (uint64_t)(uint8_t)p[b] << (8 * b);
#else
    memcpy(&t, p, (size_t)n);
#endif
    return t;
}

TL_KFN void tl_k_stu(char *p, uint64_t v, int n)
{
#ifdef __CUDA_ARCH__
    if (((uintptr_t)p & (uintptr_t)(n - 1)) == 0) {
        switch (n) {
        case 1: *(uint8_t *)p = (uint8_t)v; return;
        case 2: *(uint16_t *)p = (uint16_t)v; return;
        case 4: *(uint32_t *)p = (uint32_t)v; return;
        case 8: *(uint64_t *)p = v; return;
        default: break;
        }
    }
    for (int b = 0; b < n; b++)
        p[b] = (char)(uint8_t)(v >> (8 * b));
#else
    memcpy(p, &v, (size_t)n);
#endif
}

/* one element of n bytes from s to d */
TL_KFN void tl_k_mov(char *d, const char *s, int n)
{
    tl_k_stu(d, tl_k_ldu(s, n), n);
}

TL_KFN double tl_k_ldf(int dt, const char *p)
{
    switch (dt) {
    case TL_K_BOOL: return *(const uint8_t *)p ? 1.0 : 0.0;
    case TL_K_U8: return *(const uint8_t *)p;
    case TL_K_I8: return *(const int8_t *)p;
    case TL_K_I16: { int16_t v; tl_k_ld(&v, p, 2); return v; }
    case TL_K_I32: { int32_t v; tl_k_ld(&v, p, 4); return v; }
    case TL_K_I64: { int64_t v; tl_k_ld(&v, p, 8); return (double)v; }
    case TL_K_F16: { uint16_t v; tl_k_ld(&v, p, 2); return tl_sd_f16_to_f32(v); }
    case TL_K_BF16: { uint16_t v; tl_k_ld(&v, p, 2); return tl_sd_bf16_to_f32(v); }
    case TL_K_F32: { float v; tl_k_ld(&v, p, 4); return v; }
    default: { double v; tl_k_ld(&v, p, 8); return v; }
    }
}

TL_KFN int64_t tl_k_ldi(int dt, const char *p)
{
    switch (dt) {
    case TL_K_BOOL: return *(const uint8_t *)p ? 1 : 0;
    case TL_K_U8: return *(const uint8_t *)p;
    case TL_K_I8: return *(const int8_t *)p;
    case TL_K_I16: { int16_t v; tl_k_ld(&v, p, 2); return v; }
    case TL_K_I32: { int32_t v; tl_k_ld(&v, p, 4); return v; }
    case TL_K_I64: { int64_t v; tl_k_ld(&v, p, 8); return v; }
    default: return tl_sd_f64_to_i64(tl_k_ldf(dt, p));
    }
}

TL_KFN void tl_k_sti(int dt, char *p, int64_t v)
{
    uint64_t u = (uint64_t)v;
    switch (dt) {
    case TL_K_BOOL: *(uint8_t *)p = v != 0; break;
    case TL_K_U8: *(uint8_t *)p = (uint8_t)u; break;
    case TL_K_I8: *(int8_t *)p = (int8_t)(uint8_t)u; break;
    case TL_K_I16: { int16_t w = (int16_t)(uint16_t)u; tl_k_st(p, &w, 2); break; }
    case TL_K_I32: { int32_t w = (int32_t)(uint32_t)u; tl_k_st(p, &w, 4); break; }
    case TL_K_I64: tl_k_st(p, &v, 8); break;
    case TL_K_F16: { uint16_t w = tl_sd_f32_to_f16((float)v); tl_k_st(p, &w, 2); break; }
    case TL_K_BF16: { uint16_t w = tl_sd_f32_to_bf16((float)v); tl_k_st(p, &w, 2); break; }
    case TL_K_F32: { float w = (float)v; tl_k_st(p, &w, 4); break; }
    default: { double w = (double)v; tl_k_st(p, &w, 8); break; }
    }
}

TL_KFN void tl_k_stf(int dt, char *p, double v)
{
    switch (dt) {
    case TL_K_BOOL: *(uint8_t *)p = v != 0.0; break;
    case TL_K_U8: case TL_K_I8: case TL_K_I16: case TL_K_I32:
        tl_k_sti(dt, p, tl_sd_f64_to_i32(v)); break;
    case TL_K_I64: tl_k_sti(dt, p, tl_sd_f64_to_i64(v)); break;
    case TL_K_F16: { uint16_t w = tl_sd_f32_to_f16((float)v); tl_k_st(p, &w, 2); break; }
    case TL_K_BF16: { uint16_t w = tl_sd_f32_to_bf16((float)v); tl_k_st(p, &w, 2); break; }
    case TL_K_F32: { float w = (float)v; tl_k_st(p, &w, 4); break; }
    default: tl_k_st(p, &v, 8); break;
    }
}

/* a value rounded to what a floating compute dtype holds */
TL_KFN double tl_k_round(int dt, double v)
{
    switch (dt) {
    case TL_K_F32: return (double)(float)v;
    case TL_K_F16: return tl_sd_f16_to_f32(tl_sd_f32_to_f16((float)v));
    case TL_K_BF16: return tl_sd_bf16_to_f32(tl_sd_f32_to_bf16((float)v));
    default: return v;
    }
}

/* an int64 wrapped to an integral/bool compute dtype */
TL_KFN int64_t tl_k_wrap(int dt, int64_t v)
{
    uint64_t u = (uint64_t)v;
    switch (dt) {
    case TL_K_BOOL: return v != 0;
    case TL_K_U8: return (uint8_t)u;
    case TL_K_I8: return (int8_t)(uint8_t)u;
    case TL_K_I16: return (int16_t)(uint16_t)u;
    case TL_K_I32: return (int32_t)(uint32_t)u;
    default: return v;
    }
}

/* dst <- src converted, one element */
TL_KFN void tl_k_convert(int dd, char *d, int sd, const char *s)
{
    if (dd == TL_K_BOOL && sd == TL_K_BOOL) /* backend_cpu.c's copy_bool */
        *(uint8_t *)d = *(const uint8_t *)s != 0;
    else if (dd == sd)
        tl_k_mov(d, s, tl_k_size(dd));
    else if (tl_k_is_floating(sd))
        tl_k_stf(dd, d, tl_k_ldf(sd, s));
    else
        tl_k_sti(dd, d, tl_k_ldi(sd, s));
}

/* ------------------------------------------------------------------------
 * The offset calculator and the thread mapping
 * ---------------------------------------------------------------------- */

/* x / size of merged dim `dim` (size > 0), with x - q * size in *rem:
 * precomputed divisors when the launch has them, else a 32-bit divide
 * below 2^31 items (much cheaper on a GPU than 64-bit), else 64-bit. Every
 * x passed here is below d->n. */
TL_KFN int64_t tl_k_divmod(const tl_kdesc *d, int dim, int64_t x, int64_t *rem)
{
    int64_t sz = d->sizes[dim];
    if (d->fastdiv) {
        uint32_t u = (uint32_t)x;
#ifdef __CUDA_ARCH__
        uint32_t t = __umulhi(u, d->dmag[dim]);
#else
        uint32_t t = (uint32_t)(((uint64_t)u * d->dmag[dim]) >> 32);
#endif
        uint32_t q = (t + u) >> d->dshift[dim];
        *rem = (int64_t)(u - q * (uint32_t)sz);
        return (int64_t)q;
    }
    if (d->n <= 2147483647) {
        uint32_t u = (uint32_t)x, s32 = (uint32_t)sz;
        *rem = (int64_t)(u % s32);
        return (int64_t)(u / s32);
    }
    *rem = x % sz;
    return x / sz;
}

/* Byte offsets of work item i in the first nops operands (a constant at
 * every call, so the loops unroll and off[] stays in registers; unused
 * operands have stride 0), in row-major coordinates over d->sizes;
 * gather/scatter replace operand gop's term along d->gdim. Returns the
 * coordinate along gdim (0 without one). */
TL_KFN int64_t tl_k_offsets_n(const tl_kdesc *d, int64_t i, int64_t *off, int nops)
{
    int64_t gc = 0;
    int k;
    for (k = 0; k < nops; k++)
        off[k] = 0;
    for (int dim = d->ndim - 1; dim >= 0; dim--) {
        int64_t c;
        i = tl_k_divmod(d, dim, i, &c);
        for (k = 0; k < nops; k++)
            off[k] += c * d->strides[k][dim];
        if (dim == d->gdim) {
            /* constant indices only: off[] stays in registers */
            if (d->gop == 0)
                off[0] += d->goffs[c] * d->gscale - c * d->strides[0][dim];
            else if (nops > 1)
                off[1] += d->goffs[c] * d->gscale - c * d->strides[1][dim];
            gc = c;
        }
    }
    return gc;
}

TL_KFN int64_t tl_k_offsets(const tl_kdesc *d, int64_t i, int64_t *off)
{
    return tl_k_offsets_n(d, i, off, TL_K_MAXOPS);
}

/* The first work item of this thread and the grid stride. */
TL_KFN int64_t tl_k_first(tl_kgrid g) { return g.block * g.bdim + g.thread; }
TL_KFN int64_t tl_k_stride(tl_kgrid g) { return g.bdim * g.gdim; }

TL_KFN void tl_k_visit(const tl_kdesc *d, int64_t i)
{
    if (d->visits && d->visits[i] < 2)
        d->visits[i]++;
}

/* ------------------------------------------------------------------------
 * Scalar op semantics (c10's, as backend_cpu.c)
 * ---------------------------------------------------------------------- */




TL_KFN double tl_k_binary_f(int op, double a, double b)
{
    switch (op) {
    case TL_KB_ADD: return a + b;
    case TL_KB_SUB: return a - b;
    case TL_KB_MUL: return a * b;
    case TL_KB_DIV: return a / b;
    case TL_KB_FLOORDIV: return tl_sd_floordiv_f(a, b);
    case TL_KB_REMAINDER: return tl_sd_remainder_f(a, b);
    case TL_KB_FMOD: return fmod(a, b);
    case TL_KB_POW: return pow(a, b);
    case TL_KB_MAXIMUM:
        return (tl_k_isnan(a) || tl_k_isnan(b)) ? NAN : (a > b ? a : b);
    case TL_KB_MINIMUM:
        return (tl_k_isnan(a) || tl_k_isnan(b)) ? NAN : (a < b ? a : b);
    case TL_KB_ATAN2: return atan2(a, b);
    default: return b; /* COPY_RHS */
    }
}

/* integer ops; *zero is set for a division by zero */
TL_KFN int64_t tl_k_binary_i(int op, int64_t a, int64_t b, int bits, int *zero)
{
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    switch (op) {
    case TL_KB_ADD: return (int64_t)(ua + ub);
    case TL_KB_SUB: return (int64_t)(ua - ub);
    case TL_KB_MUL: return (int64_t)(ua * ub);
    case TL_KB_DIV: case TL_KB_FLOORDIV: case TL_KB_REMAINDER: case TL_KB_FMOD:
        if (b == 0) {
            *zero = 1;
            return 0;
        }
        if (op == TL_KB_DIV)
            return tl_sd_truncdiv_i(a, b);
        if (op == TL_KB_FMOD)
            return tl_sd_fmod_i(a, b);
        if (op == TL_KB_FLOORDIV)
            return tl_sd_floordiv_i(a, b);
        return tl_sd_remainder_i(a, b);
    case TL_KB_POW: return tl_sd_pow_i(a, b);
    case TL_KB_MAXIMUM: return a > b ? a : b;
    case TL_KB_MINIMUM: return a < b ? a : b;
    case TL_KB_BITAND: return a & b;
    case TL_KB_BITOR: return a | b;
    case TL_KB_BITXOR: return a ^ b;
    case TL_KB_LSHIFT: return tl_sd_lshift_i(a, b, bits);
    case TL_KB_RSHIFT: return tl_sd_rshift_i(a, b, bits);
    default: return b; /* COPY_RHS */
    }
}

/* comparisons and logical ops: 1, 0, or -1 when op is not one of them */
TL_KFN int tl_k_cmp_f(int op, double a, double b)
{
    switch (op) {
    case TL_KB_EQ: return a == b;
    case TL_KB_NE: return a != b;
    case TL_KB_LT: return a < b;
    case TL_KB_LE: return a <= b;
    case TL_KB_GT: return a > b;
    case TL_KB_GE: return a >= b;
    case TL_KB_LOGICAL_AND: return a != 0 && b != 0;
    case TL_KB_LOGICAL_OR: return a != 0 || b != 0;
    case TL_KB_LOGICAL_XOR: return (a != 0) != (b != 0);
    default: return -1;
    }
}

TL_KFN int tl_k_cmp_i(int op, int64_t a, int64_t b)
{
    switch (op) {
    case TL_KB_EQ: return a == b;
    case TL_KB_NE: return a != b;
    case TL_KB_LT: return a < b;
    case TL_KB_LE: return a <= b;
    case TL_KB_GT: return a > b;
    case TL_KB_GE: return a >= b;
    case TL_KB_LOGICAL_AND: return a != 0 && b != 0;
    case TL_KB_LOGICAL_OR: return a != 0 || b != 0;
    case TL_KB_LOGICAL_XOR: return (a != 0) != (b != 0);
    default: return -1;
    }
}

/* ------------------------------------------------------------------------
 * Kernel bodies: one work item each
 * ---------------------------------------------------------------------- */

TL_KFN void tl_k_copy_item(const tl_kdesc *d, int64_t i)
{
    int64_t off[TL_K_MAXOPS];
    tl_k_offsets(d, i, off);
    tl_k_convert(d->dtype[0], d->ptr[0] + off[0], d->dtype[1], d->ptr[1] + off[1]);
}

/* gather is a copy whose operand 1 follows goffs along gdim */
#define tl_k_gather_item tl_k_copy_item

TL_KFN void tl_k_fill_item(const tl_kdesc *d, int64_t i)
{
    int64_t off[TL_K_MAXOPS];
    tl_k_offsets(d, i, off);
    tl_k_st(d->ptr[0] + off[0], d->fill, tl_k_size(d->dtype[0]));
}

TL_KFN void tl_k_binary_item(const tl_kdesc *d, int64_t i)
{
    int64_t off[TL_K_MAXOPS];
    tl_k_offsets(d, i, off);
    char *o = d->ptr[0] + off[0];
    const char *pa = d->ptr[1] + off[1], *pb = d->ptr[2] + off[2];
    int ct = d->compute, od = d->dtype[0];
    if (tl_k_is_floating(ct)) {
        double a = tl_k_round(ct, tl_k_ldf(d->dtype[1], pa));
        double b = tl_k_round(ct, tl_k_ldf(d->dtype[2], pb));
        int c = tl_k_cmp_f(d->op, a, b);
        if (c >= 0)
            tl_k_sti(od, o, c);
        else
            tl_k_stf(od, o, tl_k_round(ct, tl_k_binary_f(d->op, a, b)));
    } else {
        int64_t a = tl_k_wrap(ct, tl_k_ldi(d->dtype[1], pa));
        int64_t b = tl_k_wrap(ct, tl_k_ldi(d->dtype[2], pb));
        int c = tl_k_cmp_i(d->op, a, b);
        int zero = 0;
        if (c >= 0) {
            tl_k_sti(od, o, c);
        } else if (d->op == TL_KB_ATAN2) {
            tl_k_stf(od, o, atan2((double)a, (double)b));
        } else {
            int64_t r = tl_k_binary_i(d->op, a, b, d->bits, &zero);
            tl_k_sti(od, o, tl_k_wrap(ct, r));
            if (zero)
                *d->flag = 1;
        }
    }
}

TL_KFN void tl_k_unary_item(const tl_kdesc *d, int64_t i)
{
    int64_t off[TL_K_MAXOPS];
    tl_k_offsets(d, i, off);
    char *o = d->ptr[0] + off[0];
    const char *px = d->ptr[1] + off[1];
    int ct = d->compute, od = d->dtype[0], sd = d->dtype[1], op = d->op;
    if (tl_k_is_floating(ct)) {
        double x = tl_k_ldf(sd, px);
        switch (op) {
        case TL_KU_LOGICAL_NOT: tl_k_sti(od, o, x == 0.0); break;
        case TL_KU_ISNAN: tl_k_sti(od, o, tl_k_isnan(x)); break;
        case TL_KU_ISINF: tl_k_sti(od, o, tl_k_isinf(tl_k_round(ct, x))); break;
        case TL_KU_ISFINITE: {
            double r = tl_k_round(ct, x);
            tl_k_sti(od, o, !tl_k_isnan(r) && !tl_k_isinf(r));
            break;
        }
        case TL_KU_NEG: tl_k_stf(od, o, -tl_k_round(ct, x)); break;
        case TL_KU_RSQRT:
            if (ct != TL_K_F64) {
                /* backend_cpu.c: 1 / sqrt(x) rounded twice, to float
                 * (bfloat16: to bfloat16) */
                int st = ct == TL_K_BF16 ? TL_K_BF16 : TL_K_F32;
                double q = tl_k_round(st, sqrt(tl_k_round(ct, x)));
                tl_k_stf(od, o, tl_k_round(ct, tl_k_round(st, 1.0 / q)));
                break;
            }
            tl_k_stf(od, o, tl_k_round(ct, tl_sd_unary_f(op, tl_k_round(ct, x))));
            break;
        default:
            tl_k_stf(od, o, tl_k_round(ct, tl_sd_unary_f(op, tl_k_round(ct, x))));
            break;
        }
        return;
    }
    int64_t a = tl_k_wrap(ct, tl_k_ldi(sd, px));
    uint64_t ua = (uint64_t)a;
    switch (op) {
    case TL_KU_NEG: tl_k_sti(od, o, tl_k_wrap(ct, (int64_t)(0u - ua))); break;
    case TL_KU_ABS: tl_k_sti(od, o, tl_k_wrap(ct, a < 0 ? (int64_t)(0u - ua) : a)); break;
    case TL_KU_SIGN: tl_k_sti(od, o, (a > 0) - (a < 0)); break;
    case TL_KU_SQUARE: tl_k_sti(od, o, tl_k_wrap(ct, (int64_t)(ua * ua))); break;
    case TL_KU_RELU: tl_k_sti(od, o, a < 0 ? 0 : a); break;
    case TL_KU_FLOOR: case TL_KU_CEIL: case TL_KU_ROUND: case TL_KU_TRUNC:
    case TL_KU_IDENTITY: tl_k_sti(od, o, a); break;
    case TL_KU_FRAC: tl_k_sti(od, o, 0); break;
    case TL_KU_BITWISE_NOT:
        tl_k_sti(od, o, ct == TL_K_BOOL ? !a : tl_k_wrap(ct, ~a));
        break;
    case TL_KU_LOGICAL_NOT: tl_k_sti(od, o, a == 0); break;
    case TL_KU_ISNAN: case TL_KU_ISINF: tl_k_sti(od, o, 0); break;
    case TL_KU_ISFINITE: tl_k_sti(od, o, 1); break;
    default: tl_k_stf(od, o, tl_sd_unary_f(op, (double)a)); break;
    }
}

TL_KFN void tl_k_where_item(const tl_kdesc *d, int64_t i)
{
    int64_t off[TL_K_MAXOPS];
    tl_k_offsets(d, i, off);
    int t = tl_k_ldi(d->dtype[1], d->ptr[1] + off[1]) != 0;
    const char *p = t ? d->ptr[2] + off[2] : d->ptr[3] + off[3];
    int dt = t ? d->dtype[2] : d->dtype[3];
    if (dt == d->dtype[0]) /* same dtype: the bits (NaN payloads kept) */
        tl_k_mov(d->ptr[0] + off[0], p, tl_k_size(dt));
    else if (tl_k_is_floating(d->dtype[0]))
        tl_k_stf(d->dtype[0], d->ptr[0] + off[0], tl_k_ldf(dt, p));
    else
        tl_k_sti(d->dtype[0], d->ptr[0] + off[0], tl_k_ldi(dt, p));
}

/* ---- reduce ----
 * Work item = (output o, chunk c) with i = o * nchunk + c. Operand 0 is the
 * output (offsets over the kept dims), operand 1 the source's kept-dim
 * offsets; the reduced sub-shape is rsizes/rstrides, walked in row-major
 * order with flat index k. One chunk: the item folds all nred elements and
 * stores the result; several: it writes a partial, and the combine kernel
 * folds the partials of each output in chunk order. Floating sum/mean/prod
 * follow reduce_order.h (the CPU's order, bit for bit): a chunk is one
 * block of TL_RO_BLOCK elements in 64 lanes, and the combine folds the
 * block values by the shared pairwise cascade. */

TL_KFN void tl_k_acc_init(int op, tl_kacc *a)
{
    a->arg = 0;
    a->seen_nan = 0;
    a->any = 0;
    switch (op) {
    case TL_KR_PROD: case TL_KR_ALL: a->f = 1.0; a->i = 1; break;
    case TL_KR_MAX: case TL_KR_ARGMAX: a->f = -HUGE_VAL; a->i = INT64_MIN; break;
    case TL_KR_MIN: case TL_KR_ARGMIN: a->f = HUGE_VAL; a->i = INT64_MAX; break;
    default: a->f = 0.0; a->i = 0; break;
    }
}

/* fold element v (flat index k) into a; fl: floating compute */
TL_KFN void tl_k_acc_f(int op, double v, int64_t k, tl_kacc *a)
{
    int max = op == TL_KR_MAX || op == TL_KR_ARGMAX;
    switch (op) {
    case TL_KR_SUM: case TL_KR_MEAN: a->f += v; break;
    case TL_KR_PROD: a->f *= v; break;
    case TL_KR_ALL: if (v == 0.0) a->f = 0.0; break;
    case TL_KR_ANY: if (v != 0.0) a->f = 1.0; break;
    default:
        if (a->seen_nan)
            break;
        if (tl_k_isnan(v) || (max ? v > a->f : v < a->f) || !a->any) {
            a->seen_nan = tl_k_isnan(v);
            a->f = v;
            a->arg = k;
        }
        break;
    }
    a->any = 1;
}

TL_KFN void tl_k_acc_i(int op, int64_t v, int64_t k, tl_kacc *a)
{
    int max = op == TL_KR_MAX || op == TL_KR_ARGMAX;
    switch (op) {
    case TL_KR_SUM: a->i = (int64_t)((uint64_t)a->i + (uint64_t)v); break;
    case TL_KR_MEAN: a->f += (double)v; break;
    case TL_KR_PROD: a->i = (int64_t)((uint64_t)a->i * (uint64_t)v); break;
    case TL_KR_ALL: if (v == 0) a->i = 0; break;
    case TL_KR_ANY: if (v != 0) a->i = 1; break;
    default:
        if ((max ? v > a->i : v < a->i) || !a->any) {
            a->i = v;
            a->arg = k;
        }
        break;
    }
    a->any = 1;
}

/* a <- a then b (b folded after a, in order); only for the ops the host
 * chunks: everything but floating sum/prod/mean and integral mean */
TL_KFN void tl_k_acc_merge(int op, int fl, tl_kacc *a, const tl_kacc *b)
{
    if (!b->any)
        return;
    if (!a->any) {
        *a = *b;
        return;
    }
    int max = op == TL_KR_MAX || op == TL_KR_ARGMAX;
    switch (op) {
    /* integer sums and products (floating ones use reduce_order.h's
     * cascade, tl_k_reduce_combine_item) */
    case TL_KR_SUM: case TL_KR_MEAN:
        if (fl)
            a->f += b->f;
        else
            a->i = (int64_t)((uint64_t)a->i + (uint64_t)b->i);
        break;
    case TL_KR_PROD:
        if (fl)
            a->f *= b->f;
        else
            a->i = (int64_t)((uint64_t)a->i * (uint64_t)b->i);
        break;
    case TL_KR_ALL: a->f = (a->f != 0.0 && b->f != 0.0) ? 1.0 : 0.0;
        a->i = a->i && b->i; break;
    case TL_KR_ANY: a->f = (a->f != 0.0 || b->f != 0.0) ? 1.0 : 0.0;
        a->i = a->i || b->i; break;
    default:
        if (fl) {
            if (a->seen_nan)
                break;
            if (b->seen_nan || (max ? b->f > a->f : b->f < a->f)) {
                a->f = b->f;
                a->arg = b->arg;
                a->seen_nan = b->seen_nan;
            }
        } else if (max ? b->i > a->i : b->i < a->i) {
            a->i = b->i;
            a->arg = b->arg;
        }
        break;
    }
}

TL_KFN void tl_k_acc_store(int op, int ct, const tl_kacc *a, int64_t count,
                           int dt, char *d)
{
    int fl = tl_k_is_floating(ct);
    switch (op) {
    case TL_KR_ARGMAX: case TL_KR_ARGMIN: tl_k_sti(dt, d, a->arg); return;
    case TL_KR_ALL: case TL_KR_ANY:
        tl_k_sti(dt, d, fl ? (a->f != 0.0) : a->i);
        return;
    case TL_KR_MEAN:
        tl_k_stf(dt, d, tl_k_round(ct, a->f / (double)count));
        return;
    default:
        if (fl)
            tl_k_stf(dt, d, tl_k_round(ct, a->f));
        else
            tl_k_sti(dt, d, tl_k_wrap(ct, a->i));
        return;
    }
}

/* a floating sum, mean or product: folded in reduce_order.h's order, the
 * CPU's (chunks are then its blocks: clen == TL_RO_BLOCK) */
TL_KFN int tl_k_red_ordered(int op, int fl)
{
    return fl && (op == TL_KR_SUM || op == TL_KR_MEAN || op == TL_KR_PROD);
}

/* the byte offset of flat index k of the reduced sub-shape */
TL_KFN int64_t tl_k_red_off(const tl_kdesc *d, int64_t k)
{
    int64_t rem = k, ro = 0;
    for (int r = d->rndim - 1; r >= 0; r--) {
        ro += (rem % d->rsizes[r]) * d->rstrides[r];
        rem /= d->rsizes[r];
    }
    return ro;
}

TL_KFN void tl_k_reduce_item(const tl_kdesc *d, int64_t i)
{
    int64_t o = i / d->nchunk, c = i % d->nchunk;
    int64_t off[TL_K_MAXOPS];
    tl_k_offsets(d, o, off);
    int ct = d->compute, sd = d->dtype[1], op = d->op;
    int fl = tl_k_is_floating(ct);
    tl_kacc acc;
    tl_k_acc_init(op, &acc);
    int64_t k0 = c * d->clen, k1 = k0 + d->clen;
    if (k1 > d->nred)
        k1 = d->nred;
    if (tl_k_red_ordered(op, fl)) {
        /* one block of the order: its value is the partial */
        int prod = op == TL_KR_PROD;
        tl_ro_block b;
        tl_ro_block_init(&b, tl_ro_f32_lanes(ct == TL_K_F32, prod), prod);
        for (int64_t k = k0; k < k1; k++)
            tl_ro_block_add(&b, tl_k_round(ct, tl_k_ldf(sd, d->ptr[1] + off[1] +
                                                            tl_k_red_off(d, k))));
        acc.f = tl_ro_block_value(&b);
        acc.any = 1;
    } else {
        for (int64_t k = k0; k < k1; k++) {
            const char *p = d->ptr[1] + off[1] + tl_k_red_off(d, k);
            if (fl)
                tl_k_acc_f(op, tl_k_round(ct, tl_k_ldf(sd, p)), k, &acc);
            else
                tl_k_acc_i(op, tl_k_wrap(ct, tl_k_ldi(sd, p)), k, &acc);
        }
    }
    if (d->nchunk == 1)
        tl_k_acc_store(op, ct, &acc, d->nred, d->dtype[0], d->ptr[0] + off[0]);
    else
        ((tl_kacc *)d->partials)[i] = acc;
}

/* item = output o: folds partials o*nchunk .. o*nchunk+nchunk-1 (ordered
 * sums and products: the block values, by reduce_order.h's cascade) */
TL_KFN void tl_k_reduce_combine_item(const tl_kdesc *d, int64_t o)
{
    int64_t off[TL_K_MAXOPS];
    tl_k_offsets(d, o, off);
    const tl_kacc *p = (const tl_kacc *)d->partials + o * d->nchunk;
    int fl = tl_k_is_floating(d->compute);
    tl_kacc acc;
    tl_k_acc_init(d->op, &acc);
    if (tl_k_red_ordered(d->op, fl)) {
        int prod = d->op == TL_KR_PROD;
        tl_ro_casc s;
        tl_ro_casc_init(&s);
        for (int64_t c = 0; c < d->nchunk; c++)
            tl_ro_push(&s, p[c].f, prod);
        acc.f = tl_ro_total(&s, prod);
    } else {
        for (int64_t c = 0; c < d->nchunk; c++)
            tl_k_acc_merge(d->op, fl, &acc, &p[c]);
    }
    tl_k_acc_store(d->op, d->compute, &acc, d->nred, d->dtype[0], d->ptr[0] + off[0]);
}

/* *o *= *s in o's dtype, one rounding (bool: and; integers wrap): the
 * CPU's scatter(reduce='multiply') step */
TL_KFN void tl_k_scatter_mul1(int od, char *o, int sd, const char *s)
{
    if (od == TL_K_BOOL)
        tl_k_sti(od, o, tl_k_ldi(od, o) != 0 && tl_k_ldi(sd, s) != 0);
    else if (tl_k_is_floating(od))
        tl_k_stf(od, o, tl_k_round(od, tl_k_ldf(od, o) * tl_k_ldf(sd, s)));
    else
        tl_k_sti(od, o, tl_k_wrap(od, (int64_t)((uint64_t)tl_k_ldi(od, o) *
                                                (uint64_t)tl_k_ldi(sd, s))));
}

/* ---- scatter: one work item per destination element written ----
 * The merged shape is dst's with the scattered dim replaced by the distinct
 * target indices u; operand 0 is dst (goffs: each target's byte offset),
 * operand 1 the source's row (stride 0 along gdim); the item folds the
 * source elements at spos[sstart[u] .. sstart[u+1]) in order: SET stores
 * the last, ADD (MUL) folds them one by one in dst's dtype (bool: or,
 * and), as the CPU's loop over k does. */
TL_KFN void tl_k_scatter_item(const tl_kdesc *d, int64_t i)
{
    int64_t off[TL_K_MAXOPS];
    int64_t u = tl_k_offsets(d, i, off);
    char *o = d->ptr[0] + off[0];
    const char *row = d->ptr[1] + off[1];
    int od = d->dtype[0], sd = d->dtype[1];
    int64_t s0 = d->sstart[u], s1 = d->sstart[u + 1];
    if (d->op == TL_KS_ASSIGN) {
        tl_k_convert(od, o, sd, row + d->spos[s1 - 1]);
        return;
    }
    if (d->op == TL_KS_MUL) {
        for (int64_t s = s0; s < s1; s++)
            tl_k_scatter_mul1(od, o, sd, row + d->spos[s]);
    } else if (od == TL_K_BOOL) {
        int64_t acc = tl_k_ldi(od, o) != 0;
        for (int64_t s = s0; s < s1; s++)
            acc = acc | (tl_k_ldi(sd, row + d->spos[s]) != 0);
        tl_k_sti(od, o, acc);
    } else if (tl_k_is_floating(od)) {
        double acc = tl_k_ldf(od, o);
        for (int64_t s = s0; s < s1; s++)
            acc = tl_k_round(od, acc + tl_k_ldf(sd, row + d->spos[s]));
        tl_k_stf(od, o, acc);
    } else {
        int64_t acc = tl_k_ldi(od, o);
        for (int64_t s = s0; s < s1; s++)
            acc = tl_k_wrap(od, (int64_t)((uint64_t)acc + (uint64_t)tl_k_ldi(sd, row + d->spos[s])));
        tl_k_sti(od, o, acc);
    }
}

/* ---- sort / topk as a per-element stable rank ----
 * Item i = (row r, element e) of the source, rows are the merged outer dims
 * (operand 1 = source, operand 0 = values out, operand 2 = int64 indices
 * out; their strides along the sorted dim are rstrides[0..2]). The element
 * goes to position rank(e) = #{x before it in the order} + #{equal x at an
 * earlier position}; ascending puts NaN last, descending first (NaN is the
 * largest). topk keeps ranks < k. */
TL_KFN int tl_k_less_f(double a, double b)
{
    return !tl_k_isnan(a) && (tl_k_isnan(b) || a < b);
}

TL_KFN void tl_k_sort_item(const tl_kdesc *d, int64_t i)
{
    int64_t r = i / d->len, e = i % d->len;
    int64_t off[TL_K_MAXOPS];
    tl_k_offsets(d, r, off);
    const char *row = d->ptr[1] + off[1];
    int sd = d->dtype[1];
    int64_t st = d->rstrides[1];
    int64_t rank = 0;
    if (tl_k_is_floating(sd)) {
        double v = tl_k_ldf(sd, row + e * st);
        for (int64_t j = 0; j < d->len; j++) {
            if (j == e)
                continue;
            double w = tl_k_ldf(sd, row + j * st);
            int before = d->descending ? tl_k_less_f(v, w) : tl_k_less_f(w, v);
            int equal = !tl_k_less_f(v, w) && !tl_k_less_f(w, v);
            rank += before || (equal && j < e);
        }
    } else {
        int64_t v = tl_k_ldi(sd, row + e * st);
        for (int64_t j = 0; j < d->len; j++) {
            if (j == e)
                continue;
            int64_t w = tl_k_ldi(sd, row + j * st);
            int before = d->descending ? w > v : w < v;
            rank += before || (w == v && j < e);
        }
    }
    if (rank >= d->k)
        return;
    tl_k_visit(d, r * d->k + rank);
    tl_k_mov(d->ptr[0] + off[0] + rank * d->rstrides[0], row + e * st, tl_k_size(sd));
    tl_k_sti(TL_K_I64, d->ptr[2] + off[2] + rank * d->rstrides[2], e);
}

/* ---- sort of long rows: a stable bottom-up merge sort of positions ----
 * Pass of width w, item i = (row r, place p) of the positions: the element
 * at place p of its sorted run of w goes to place (its run pair's start) +
 * (its offset in its run) + (how many elements of the partner run go
 * first: for the left run those strictly before it, for the right run
 * those not after it, so ties keep the source order), found by binary
 * search. Places are a permutation: no two items write one. O(len log^2
 * len) work per row instead of the rank kernel's len^2. */
TL_KFN int tl_k_sort_before(const tl_kdesc *d, const char *row, int64_t a, int64_t b)
{
    int sd = d->dtype[1];
    int64_t st = d->rstrides[1];
    if (tl_k_is_floating(sd)) {
        double x = tl_k_ldf(sd, row + a * st), y = tl_k_ldf(sd, row + b * st);
        return d->descending ? tl_k_less_f(y, x) : tl_k_less_f(x, y);
    }
    int64_t x = tl_k_ldi(sd, row + a * st), y = tl_k_ldi(sd, row + b * st);
    return d->descending ? x > y : x < y;
}

TL_KFN void tl_k_sort_merge_item(const tl_kdesc *d, int64_t i)
{
    int64_t len = d->len, w = d->width;
    int64_t r = i / len, p = i % len;
    int64_t off[TL_K_MAXOPS];
    tl_k_offsets(d, r, off);
    const char *row = d->ptr[1] + off[1];
    const int64_t *in = d->sbuf[0] ? d->sbuf[0] + r * len : NULL;
    int64_t *out = d->sbuf[1] + r * len;
    int64_t e = in ? in[p] : p;
    int64_t run = p / w, start = run * w, mstart = (run - (run & 1)) * w;
    int64_t ps = (run ^ 1) * w, pe = ps + w;
    if (ps > len)
        ps = len;
    if (pe > len)
        pe = len;
    int left = (run & 1) == 0;
    int64_t lo = ps, hi = pe;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2, x = in ? in[mid] : mid;
        int first = left ? tl_k_sort_before(d, row, x, e) : !tl_k_sort_before(d, row, e, x);
        if (first)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t np = mstart + (p - start) + (lo - ps);
    tl_k_visit(d, r * len + np);
    out[np] = e;
}

/* item i = (row r, place p < k): the sorted positions' element p */
TL_KFN void tl_k_sort_store_item(const tl_kdesc *d, int64_t i)
{
    int64_t r = i / d->k, p = i % d->k;
    int64_t off[TL_K_MAXOPS];
    tl_k_offsets(d, r, off);
    int64_t e = d->sbuf[0][r * d->len + p];
    int sd = d->dtype[1];
    tl_k_mov(d->ptr[0] + off[0] + p * d->rstrides[0], d->ptr[1] + off[1] + e * d->rstrides[1],
             tl_k_size(sd));
    tl_k_sti(TL_K_I64, d->ptr[2] + off[2] + p * d->rstrides[2], e);
}

/* *o += *s for index_put_(accumulate=True), as the CPU's loop adds: in the
 * destination's dtype, rounded each step; bool: or */
TL_KFN void tl_k_scatter_add1(int od, char *o, int sd, const char *s)
{
    if (od == TL_K_BOOL)
        tl_k_sti(od, o, tl_k_ldi(od, o) != 0 || tl_k_ldi(sd, s) != 0);
    else if (tl_k_is_floating(od))
        tl_k_stf(od, o, tl_k_round(od, tl_k_ldf(od, o) + tl_k_ldf(sd, s)));
    else
        tl_k_sti(od, o, tl_k_wrap(od, (int64_t)((uint64_t)tl_k_ldi(od, o) +
                                                (uint64_t)tl_k_ldi(sd, s))));
}

/* ---- index_put through device offsets, in parallel ----
 * goffs holds the targets' element offsets sorted (stably: equal targets
 * keep the source order) and sbuf[0] the source position of each. Item i
 * of the merged shape at sorted place j writes only when j starts a run of
 * equal targets: assignment stores the run's last source (the CPU's last
 * write), accumulation folds the run's sources in order (the CPU's loop),
 * so no two items write one element and the bytes equal the CPU's. */
TL_KFN void tl_k_scatter_fold_item(const tl_kdesc *d, int64_t i)
{
    int64_t off[TL_K_MAXOPS];
    int64_t j = tl_k_offsets(d, i, off), n = d->sizes[d->gdim];
    const int64_t *t = d->goffs, *perm = d->sbuf[0];
    if (j > 0 && t[j - 1] == t[j])
        return;
    int64_t e = j;
    while (e + 1 < n && t[e + 1] == t[j])
        e++;
    int64_t st = d->strides[1][d->gdim];
    char *o = d->ptr[0] + off[0];
    const char *base = d->ptr[1] + off[1] - j * st;
    int od = d->dtype[0], sd = d->dtype[1];
    if (d->op == TL_KS_ASSIGN) {
        tl_k_convert(od, o, sd, base + perm[e] * st);
        return;
    }
    for (int64_t m = j; m <= e; m++)
        if (d->op == TL_KS_MUL)
            tl_k_scatter_mul1(od, o, sd, base + perm[m] * st);
        else
            tl_k_scatter_add1(od, o, sd, base + perm[m] * st);
}

/* ---- cumsum / cumprod: one work item per row ----
 * Operand 0 the output, 1 the source, over the merged shape of the other
 * dims; the row runs len elements at byte strides rstrides[0] and [1];
 * d->op: 1 for a product. Sequential along the row in the CPU's accumulate
 * type (backend_cpu.c's cpu_scan: float for float16/bfloat16, double for
 * float32/float64, wrapping 64-bit for integers), each partial result
 * rounded when stored, so the bytes equal the CPU's. A launch does the
 * segment [width, k) of every row; sbuf[0][row] carries the accumulator's
 * bits from one segment to the next (a long row is many short launches, so
 * --timeout holds). A row reads each source element before it writes that
 * place (cumsum_ in place). */
TL_KFN void tl_k_scan_item(const tl_kdesc *d, int64_t i)
{
    int64_t off[TL_K_MAXOPS];
    tl_k_offsets(d, i, off);
    char *o = d->ptr[0] + off[0];
    const char *s = d->ptr[1] + off[1];
    int dt = d->dtype[0], prod = d->op;
    int64_t os = d->rstrides[0], ss = d->rstrides[1], j0 = d->width, j1 = d->k;
    int64_t *carry = d->sbuf[0] + i;
    if (dt == TL_K_F16 || dt == TL_K_BF16 || tl_k_is_floating(dt)) {
        double acc = prod ? 1.0 : 0.0;
        if (j0 > 0)
            memcpy(&acc, carry, sizeof acc);
        if (dt == TL_K_F16 || dt == TL_K_BF16) {
            float f = (float)acc;
            for (int64_t j = j0; j < j1; j++) {
                float v = (float)tl_k_ldf(dt, s + j * ss);
                f = prod ? f * v : f + v;
                tl_k_stf(dt, o + j * os, (double)f);
            }
            acc = (double)f;
        } else {
            for (int64_t j = j0; j < j1; j++) {
                double v = tl_k_ldf(dt, s + j * ss);
                acc = prod ? acc * v : acc + v;
                tl_k_stf(dt, o + j * os, acc);
            }
        }
        memcpy(carry, &acc, sizeof acc);
        return;
    }
    uint64_t acc = prod ? 1u : 0u;
    if (j0 > 0)
        memcpy(&acc, carry, sizeof acc);
    for (int64_t j = j0; j < j1; j++) {
        uint64_t v = (uint64_t)tl_k_ldi(dt, s + j * ss);
        acc = prod ? acc * v : acc + v;
        tl_k_sti(dt, o + j * os, (int64_t)acc);
    }
    memcpy(carry, &acc, sizeof acc);
}

/* ---- advanced-index offsets: one work item per index position ----
 * Operand 0: int64 out over the broadcast index shape; operands 1..nops-1:
 * the index tensors (int64 or int32), broadcast to it (stride 0). Item e
 * stores sum_j wrap(v_j) * rstrides[j] (element offsets), with wrap(v) =
 * v + size for v < 0; an index outside [-size, size) ([0, size) when bit
 * j of d->op says it does not wrap) stores -1 - j for
 * the first such j instead (offsets are never negative: torch strides are
 * not), so the host finds the first bad (e, j) as PyTorch's CPU loop does. */
TL_KFN void tl_k_index_offsets_item(const tl_kdesc *d, int64_t i)
{
    int64_t off[TL_K_MAXOPS];
    tl_k_offsets(d, i, off);
    int64_t res = 0;
    /* a constant trip count, so off[] stays in registers on the device */
    for (int j = 1; j < TL_K_MAXOPS; j++) {
        if (j >= d->nops)
            break;
        if ((d->op >> (16 + j - 1)) & 1) {
            /* bit 16 + j - 1: a coordinate term (uint8 strides: elements) */
            res += off[j];
            continue;
        }
        int64_t v = tl_k_ldi(d->dtype[j], d->ptr[j] + off[j]);
        int64_t size = d->rsizes[j - 1];
        /* d->op bit j - 1: this index does not wrap (index_select) */
        int64_t lo = (d->op >> (j - 1)) & 1 ? 0 : -size;
        if (v < lo || v >= size) {
            res = -j;
            break;
        }
        res += (v < 0 ? v + size : v) * d->rstrides[j - 1];
    }
    tl_k_st(d->ptr[0] + off[0], &res, (int)sizeof res);
}

/* ---- scatter through device offsets, in order ----
 * Operand 0 is the destination (its term along gdim replaced by goffs, in
 * elements), operand 1 the values. Launched serially (d->serial): items
 * run in row-major order of the values, so duplicate targets resolve as
 * the CPU's loop does (the last write wins; sums add one by one in the
 * destination's dtype, bool: or). */
TL_KFN void tl_k_scatter_seq_item(const tl_kdesc *d, int64_t i)
{
    int64_t off[TL_K_MAXOPS];
    tl_k_offsets(d, i, off);
    char *o = d->ptr[0] + off[0];
    const char *s = d->ptr[1] + off[1];
    int od = d->dtype[0], sd = d->dtype[1];
    if (d->op == TL_KS_ASSIGN)
        tl_k_convert(od, o, sd, s);
    else if (d->op == TL_KS_MUL)
        tl_k_scatter_mul1(od, o, sd, s);
    else
        tl_k_scatter_add1(od, o, sd, s);
}

/* the specialised loops and their choice (tl_k_prepare) */
#include "kernels_spec.h"

/* ------------------------------------------------------------------------
 * One thread's share of a launch: the grid-stride loop
 * ---------------------------------------------------------------------- */

TL_KFN void tl_k_copy_strips(const tl_kdesc *d)
{
    int64_t inner = d->ndim ? d->sizes[d->ndim - 1] : 1;
    int64_t off[TL_K_MAXOPS];
    for (int64_t o = 0; o < d->n / inner; o++) {
        tl_k_offsets(d, o * inner, off);
        int back = d->ptr[0] + off[0] > d->ptr[1] + off[1];
        for (int64_t j = 0; j < inner; j++) {
            int64_t i = o * inner + (back ? inner - 1 - j : j);
            tl_k_visit(d, i);
            tl_k_copy_item(d, i);
        }
    }
}

TL_KFN void tl_k_run(int kind, const tl_kdesc *d, tl_kgrid g)
{
    if (d->serial == 2) {
        if (tl_k_first(g) == 0)
            tl_k_copy_strips(d);
        return;
    }
    if (d->spec && tl_k_spec_run(kind, d, g))
        return;
    int64_t step = tl_k_stride(g);
    for (int64_t i = d->first + tl_k_first(g); i < d->n; i += step) {
        if (kind != TL_K_SORT && kind != TL_K_SORT_MERGE)
            tl_k_visit(d, i);
        switch (kind) {
        case TL_K_COPY: case TL_K_GATHER: tl_k_copy_item(d, i); break;
        case TL_K_FILL: tl_k_fill_item(d, i); break;
        case TL_K_BINARY: tl_k_binary_item(d, i); break;
        case TL_K_UNARY: tl_k_unary_item(d, i); break;
        case TL_K_WHERE: tl_k_where_item(d, i); break;
        case TL_K_REDUCE: tl_k_reduce_item(d, i); break;
        case TL_K_REDUCE_COMBINE: tl_k_reduce_combine_item(d, i); break;
        case TL_K_SCATTER: tl_k_scatter_item(d, i); break;
        case TL_K_SORT: tl_k_sort_item(d, i); break;
        case TL_K_INDEX_OFFSETS: tl_k_index_offsets_item(d, i); break;
        case TL_K_SCATTER_SEQ: tl_k_scatter_seq_item(d, i); break;
        case TL_K_SORT_MERGE: tl_k_sort_merge_item(d, i); break;
        case TL_K_SORT_STORE: tl_k_sort_store_item(d, i); break;
        case TL_K_SCATTER_FOLD: tl_k_scatter_fold_item(d, i); break;
        case TL_K_SCAN: tl_k_scan_item(d, i); break;
        default: break;
        }
    }
}

#ifdef __cplusplus
}
#endif

#endif
