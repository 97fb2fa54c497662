/* backend_cpu.c - the host kernels: the CPU backend. (The emulated CUDA
 * device is the GPU backend of cuda/ on its host grid simulator.)
 *
 * Design:
 *   - Every elementwise kernel goes through one N-d iterator (nd_iter):
 *     operands are described by byte strides over a shared shape; size-1
 *     dims are dropped and adjacent dims that are contiguous in every
 *     operand are merged, so a contiguous tensor becomes one long strip.
 *     The iterator keeps an index counter over the outer dims and calls a
 *     strip function for the innermost dim (no per-element division).
 *   - Strip functions load through per-dtype function pointers and compute
 *     in double (floating `compute`) or int64 (integral/bool `compute`).
 *     Inputs are first rounded to the compute dtype, results rounded to it
 *     again before the store, so float32/float16 arithmetic gives float32/
 *     float16 results; integer results wrap modulo the compute width.
 *     Integer arithmetic is done on uint64 so overflow is never UB.
 *   - Integer division or remainder by zero raises RuntimeError
 *     "ZeroDivisionError" (what torch 1.13 raises); DIV with an integral
 *     compute dtype is truncating division (rounding_mode='trunc').
 *   - Shifts follow torch 2.x: a shift count < 0 or >= the width gives 0
 *     (left) or the sign fill (right).
 *   - Reductions iterate the kept dims outside and the reduced dims inside
 *     in row-major order, so argmax/argmin report the flat index within the
 *     reduced sub-shape and ties/NaN resolve to the first occurrence.
 *     Floating sum/mean/prod fold in reduce_order.h's blocked order (64
 *     lanes per 1024-element block, blocks combined pairwise), the order
 *     cpu_loops.c's vector loops and the CUDA kernels follow too.
 *   - Nothing here trusts the descriptors blindly: mismatched shapes or
 *     out-of-range gather indices return TL_ERR_INTERNAL instead of crashing.
 */
#include "context.h"
#include "backend_impl.h"
#include "cpu_loops.h"
#include "reduce_order.h"
#include "scalar_defs.h"
#include "storage.h"

#include <malloc.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "platform.h"
#if TL_HAVE_MMAP
#include <sys/mman.h>
#endif

#include "blockcache.h"
#include "freelist.h"

#define MAXOPS 4

/* ------------------------------------------------------------------------
 * Per-dtype loads and stores
 * ---------------------------------------------------------------------- */

typedef double (*ld_f64_fn)(const char *p);
typedef int64_t (*ld_i64_fn)(const char *p);
typedef void (*st_f64_fn)(char *p, double v);
typedef void (*st_i64_fn)(char *p, int64_t v);

#define DEF_LOADERS(NAME, DT)                                                  \
    static double ldf_##NAME(const char *p)                                    \
    {                                                                          \
        return tl_dtype_load_f64(DT, p);                                       \
    }                                                                          \
    static int64_t ldi_##NAME(const char *p)                                   \
    {                                                                          \
        return tl_dtype_load_i64(DT, p);                                       \
    }                                                                          \
    static void stf_##NAME(char *p, double v) { tl_dtype_store_f64(DT, p, v); } \
    static void sti_##NAME(char *p, int64_t v) { tl_dtype_store_i64(DT, p, v); }

DEF_LOADERS(b8, TL_BOOL)
DEF_LOADERS(u8, TL_UINT8)
DEF_LOADERS(i8, TL_INT8)
DEF_LOADERS(i16, TL_INT16)
DEF_LOADERS(i32, TL_INT32)
DEF_LOADERS(f16, TL_FLOAT16)
DEF_LOADERS(bf16, TL_BFLOAT16)

/* the common dtypes get direct versions */
static double ldf_i64(const char *p) { int64_t v; memcpy(&v, p, 8); return (double)v; }
static int64_t ldi_i64(const char *p) { int64_t v; memcpy(&v, p, 8); return v; }
static void stf_i64(char *p, double v) { tl_dtype_store_f64(TL_INT64, p, v); }
static void sti_i64(char *p, int64_t v) { memcpy(p, &v, 8); }
static double ldf_f32(const char *p) { float v; memcpy(&v, p, 4); return v; }
static int64_t ldi_f32(const char *p) { return tl_dtype_load_i64(TL_FLOAT32, p); }
static void stf_f32(char *p, double v) { float w = (float)v; memcpy(p, &w, 4); }
static void sti_f32(char *p, int64_t v) { float w = (float)v; memcpy(p, &w, 4); }
static double ldf_f64(const char *p) { double v; memcpy(&v, p, 8); return v; }
static int64_t ldi_f64(const char *p) { return tl_dtype_load_i64(TL_FLOAT64, p); }
static void stf_f64(char *p, double v) { memcpy(p, &v, 8); }
static void sti_f64(char *p, int64_t v) { double w = (double)v; memcpy(p, &w, 8); }

static const ld_f64_fn ldf[TL_NDTYPES] = {ldf_b8, ldf_u8, ldf_i8, ldf_i16, ldf_i32,
                                          ldf_i64, ldf_f16, ldf_bf16, ldf_f32, ldf_f64};
static const ld_i64_fn ldi[TL_NDTYPES] = {ldi_b8, ldi_u8, ldi_i8, ldi_i16, ldi_i32,
                                          ldi_i64, ldi_f16, ldi_bf16, ldi_f32, ldi_f64};
static const st_f64_fn stf[TL_NDTYPES] = {stf_b8, stf_u8, stf_i8, stf_i16, stf_i32,
                                          stf_i64, stf_f16, stf_bf16, stf_f32, stf_f64};
static const st_i64_fn sti[TL_NDTYPES] = {sti_b8, sti_u8, sti_i8, sti_i16, sti_i32,
                                          sti_i64, sti_f16, sti_bf16, sti_f32, sti_f64};

/* Round a double to what `dt` can hold (floating compute types). */
static double round_to(tl_dtype dt, double v)
{
    switch (dt) {
    case TL_FLOAT32: return (double)(float)v;
    case TL_FLOAT16: return tl_f16_to_f32(tl_f32_to_f16((float)v));
    case TL_BFLOAT16: return tl_bf16_to_f32(tl_f32_to_bf16((float)v));
    default: return v;
    }
}

/* Wrap an int64 to the integral/bool compute dtype. */
static int64_t wrap_to(tl_dtype dt, int64_t v)
{
    uint64_t u = (uint64_t)v;
    switch (dt) {
    case TL_BOOL: return v != 0;
    case TL_UINT8: return (uint8_t)u;
    case TL_INT8: return (int8_t)(uint8_t)u;
    case TL_INT16: return (int16_t)(uint16_t)u;
    case TL_INT32: return (int32_t)(uint32_t)u;
    default: return v;
    }
}

static bool dtype_ok(tl_dtype dt)
{
    return (unsigned)dt < (unsigned)TL_NDTYPES;
}

/* ------------------------------------------------------------------------
 * The N-d iterator
 * ---------------------------------------------------------------------- */

typedef struct nd_iter {
    int nops;
    int ndim;
    int64_t sizes[TL_MAX_DIMS];
    int64_t bstr[MAXOPS][TL_MAX_DIMS]; /* byte strides */
    char *base[MAXOPS];
    bool empty;
} nd_iter;

/* A strip function processes n elements starting at ptrs[k], stepping
 * strides[k] bytes. Returns 0, or -1 with err filled. */
typedef int (*strip_fn)(void *ctx, int64_t n, char *const *ptrs,
                        const int64_t *strides, tl_error *err);

static int bad_desc(tl_error *err, const char *what)
{
    return tl_error_set(err, TL_ERR_INTERNAL, "backend: invalid operand (%s)",
                        what);
}

/* ops[0] defines the shape; every other operand must have the same. */
/* A stride in bytes. Wrapping: a zero-element tensor may carry strides
 * like 2**62 (PyTorch's own wrapped products), never dereferenced. */
static int64_t bstride(int64_t stride, size_t itemsize)
{
    return (int64_t)((uint64_t)stride * (uint64_t)itemsize);
}

static int nd_init(nd_iter *it, int nops, const tl_strided *const *ops,
                   tl_error *err)
{
    const tl_strided *d0 = ops[0];
    if (d0->ndim < 0 || d0->ndim > TL_MAX_DIMS)
        return bad_desc(err, "ndim");
    it->nops = nops;
    it->empty = false;
    for (int k = 0; k < nops; k++) {
        const tl_strided *o = ops[k];
        if (o->ndim != d0->ndim || !dtype_ok(o->dtype))
            return bad_desc(err, "shape/dtype");
        it->base[k] = (char *)o->data;
        for (int d = 0; d < d0->ndim; d++)
            if (o->sizes[d] != d0->sizes[d] || o->sizes[d] < 0)
                return bad_desc(err, "sizes");
    }
    int n = 0;
    for (int d = 0; d < d0->ndim; d++) {
        if (d0->sizes[d] == 0)
            it->empty = true;
        if (d0->sizes[d] == 1)
            continue;
        it->sizes[n] = d0->sizes[d];
        for (int k = 0; k < nops; k++)
            it->bstr[k][n] =
                bstride(ops[k]->strides[d], tl_dtype_size(ops[k]->dtype));
        n++;
    }
    /* merge dim i into its outer neighbour when contiguous in every op */
    int m = 0;
    for (int d = 1; d < n; d++) {
        bool merge = true;
        for (int k = 0; k < nops && merge; k++)
            merge = it->bstr[k][m] == it->bstr[k][d] * it->sizes[d];
        if (merge) {
            it->sizes[m] *= it->sizes[d];
            for (int k = 0; k < nops; k++)
                it->bstr[k][m] = it->bstr[k][d];
        } else {
            m++;
            it->sizes[m] = it->sizes[d];
            for (int k = 0; k < nops; k++)
                it->bstr[k][m] = it->bstr[k][d];
        }
    }
    it->ndim = n == 0 ? 0 : m + 1;
    if (!it->empty)
        for (int k = 0; k < nops; k++)
            if (!it->base[k])
                return bad_desc(err, "null data");
    return 0;
}

/* One odometer step over n outer dims for a destination and a source
 * pointer (byte strides): advance the innermost index, carrying outward.
 * Returns false when every index has wrapped (the walk is over). */
static bool step2(int n, int64_t *idx, const int64_t *sizes, char **dp,
                  const int64_t *dstr, const char **sp, const int64_t *sstr)
{
    for (int d = n - 1; d >= 0; d--) {
        *dp += dstr[d];
        *sp += sstr[d];
        if (++idx[d] < sizes[d])
            return true;
        *dp -= dstr[d] * sizes[d];
        *sp -= sstr[d] * sizes[d];
        idx[d] = 0;
    }
    return false;
}

static int copy_same(void *vctx, int64_t n, char *const *p, const int64_t *s,
                     tl_error *err);

/* A strip longer than this is run in pieces with a deadline poll between
 * them: a broadcast or expanded operand coalesces to one strip of up to
 * 2^31 elements. Not copy_same, whose contiguous strip is one memmove
 * (an overlapping copy must stay one call; bounded by memory bandwidth). */
#define STRIP_PIECE ((int64_t)1 << 16)

static int run_strip(strip_fn fn, void *ctx, int64_t n, char *const *ptrs,
                     const int64_t *inner, int nops, tl_error *err)
{
    if (n <= STRIP_PIECE || fn == copy_same)
        return fn(ctx, n, ptrs, inner, err);
    char *piece[MAXOPS];
    for (int64_t o = 0; o < n; o += STRIP_PIECE) {
        for (int k = 0; k < nops; k++)
            piece[k] = ptrs[k] + o * inner[k];
        if (fn(ctx, n - o < STRIP_PIECE ? n - o : STRIP_PIECE, piece, inner, err) < 0)
            return -1;
        if (o + STRIP_PIECE < n && tl_context_deadline_check(err) < 0)
            return -1;
    }
    return 0;
}

static int nd_run(const nd_iter *it, strip_fn fn, void *ctx, tl_error *err)
{
    if (it->empty)
        return 0;
    char *ptrs[MAXOPS];
    int64_t inner[MAXOPS] = {0};
    for (int k = 0; k < it->nops; k++)
        ptrs[k] = it->base[k];
    if (it->ndim == 0)
        return fn(ctx, 1, ptrs, inner, err);
    int last = it->ndim - 1;
    for (int k = 0; k < it->nops; k++)
        inner[k] = it->bstr[k][last];
    int64_t idx[TL_MAX_DIMS] = {0};
    int64_t since_check = 0;
    for (;;) {
        if (run_strip(fn, ctx, it->sizes[last], ptrs, inner, it->nops, err) < 0)
            return -1;
        /* poll the op's deadline every TL_DEADLINE_POLL elements */
        since_check += it->sizes[last];
        if (since_check >= TL_DEADLINE_POLL) {
            since_check = 0;
            if (tl_context_deadline_check(err) < 0)
                return -1;
        }
        int d = last - 1;
        for (; d >= 0; d--) {
            for (int k = 0; k < it->nops; k++)
                ptrs[k] += it->bstr[k][d];
            if (++idx[d] < it->sizes[d])
                break;
            for (int k = 0; k < it->nops; k++)
                ptrs[k] -= it->bstr[k][d] * it->sizes[d];
            idx[d] = 0;
        }
        if (d < 0)
            return 0;
    }
}

/* ------------------------------------------------------------------------
 * Memory
 * ---------------------------------------------------------------------- */

/* Storages of HUGE_MIN bytes and more are aligned to 2 MiB and advised
 * as transparent huge pages (where the kernel's THP mode is `madvise`):
 * a fresh 64 MiB result then takes 32 page faults instead of 16384, which
 * on a VM was most of a large copy's time (bench/: 2.3 -> 0.9 ns an
 * element for x + b at 2^24). HUGE_MIN is glibc's largest dynamic mmap
 * threshold: smaller blocks come back from the heap already faulted in
 * (aligning those too made 16 MiB copies slower). Where THP is off the
 * advice is a no-op; free() takes either kind of block. */
#define HUGE_MIN ((size_t)32 << 20)
#define HUGE_ALIGN ((size_t)2 << 20)
#define CALLOC_MIN ((size_t)128 << 10)

/* Small storages (a lab's tensors are mostly a few dozen elements) come
 * from per-thread free lists of 64-byte-aligned blocks in four classes,
 * 64..512 bytes: posix_memalign's aligned path costs several hundred
 * instructions a call, and a `tlab check` makes hundreds of storages. A
 * class's blocks all have at least its size usable; a freed block joins
 * the largest class its usable size covers (glibc's malloc_usable_size),
 * when it is 64-byte aligned. */
#define SMALL_CLASSES 4
#define SMALL_MAX ((size_t)64 << (SMALL_CLASSES - 1))
static _Thread_local tl_freelist small_blocks[SMALL_CLASSES];

static void *small_alloc(size_t nbytes, bool zero)
{
    int c = 0;
    while (((size_t)64 << c) < nbytes)
        c++;
    size_t cap = (size_t)64 << c;
    void *q = tl_freelist_pop(&small_blocks[c]);
    if (!q && posix_memalign(&q, 64, cap) != 0)
        return NULL;
    if (zero)
        memset(q, 0, nbytes);
    return q;
}

/* Large freed blocks wait in the thread's block cache (base/blockcache.h)
 * for the next result of about their size, already faulted in: a loop
 * `y = x.clone()` otherwise had glibc give a 16 MiB block's pages back
 * and fault them in again every op (3,000 faults, 6 ms around a 1 ms
 * copy). Cached and live tensor bytes together stay within --max-bytes:
 * a block is kept only if it fits under the limit less what is charged
 * (the block being freed still counts: conservative by one block), and
 * a fresh allocation first drops what no longer fits. Only 64-byte
 * aligned blocks are kept (calloc's zeroed ones are 16), so every block
 * handed out keeps its alignment. */
static size_t cache_room(size_t more)
{
    size_t limit = tl_context_get()->ledger_limit;
    size_t used = tl_context_ledger_charged();
    return used < limit && limit - used > more ? limit - used - more : 0;
}

static void host_free(void *p)
{
    if (p && ((uintptr_t)p & 63) == 0) {
        size_t u = malloc_usable_size(p);
        if (u >= TL_BLOCKCACHE_MIN && tl_blockcache_keep(p, cache_room(0)))
            return;
        if (u >= 64 && u < 2 * SMALL_MAX) {
            int c = SMALL_CLASSES - 1;
            while (((size_t)64 << c) > u)
                c--;
            tl_freelist_push(&small_blocks[c], p, 64);
            return;
        }
    }
    free(p);
}

static void *host_alloc(size_t nbytes, bool zero)
{
    if (nbytes <= SMALL_MAX)
        return small_alloc(nbytes, zero);
    if (nbytes >= TL_BLOCKCACHE_MIN) {
        void *c = tl_blockcache_take(nbytes);
        if (c) {
            if (zero)
                memset(c, 0, nbytes);
            return c;
        }
        tl_blockcache_trim(cache_room(nbytes));
    }
    if (nbytes < HUGE_MIN) {
        /* 64-byte (cache line) alignment, as PyTorch's CPU allocator: with
         * malloc's 16 bytes every 64-byte vector store of a kernel crossed
         * two lines (x.t().contiguous() at 2^22 elements: 0.93 -> 0.58 ns an
         * element). Large zeroed blocks stay calloc's fresh zero pages. */
        if (zero && nbytes >= CALLOC_MIN)
            return calloc(1, nbytes);
        void *q = NULL;
        if (posix_memalign(&q, 64, nbytes) != 0)
            return NULL;
        if (zero)
            memset(q, 0, nbytes);
        return q;
    }
    void *p = NULL;
    if (posix_memalign(&p, HUGE_ALIGN, nbytes) != 0)
        return NULL;
#if TL_HAVE_MMAP && defined(MADV_HUGEPAGE)
    madvise(p, nbytes & ~(HUGE_ALIGN - 1), MADV_HUGEPAGE);
#endif
    /* posix_memalign may hand back reused heap memory: zero when asked */
    if (zero)
        memset(p, 0, nbytes);
    return p;
}

static int alloc_error(size_t nbytes, tl_error *err)
{
    return tl_error_set(err, TL_ERR_RUNTIME,
                        "[enforce fail at alloc_cpu.cpp:75] data. "
                        "DefaultCPUAllocator: not enough memory: you tried "
                        "to allocate %zu bytes.",
                        nbytes);
}

static int cpu_alloc(const tl_backend *be, size_t nbytes, void **out,
                     tl_error *err)
{
    (void)be;
    *out = NULL;
    if (nbytes == 0)
        return 0;
    *out = host_alloc(nbytes, true);
    return *out ? 0 : alloc_error(nbytes, err);
}

static void cpu_free(const tl_backend *be, void *p)
{
    (void)be;
    host_free(p);
}

/* contents undefined (tl_backend_alloc_uninit) */
static int cpu_alloc_uninit(const tl_backend *be, size_t nbytes, void **out,
                            tl_error *err)
{
    (void)be;
    *out = NULL;
    if (nbytes == 0)
        return 0;
    *out = host_alloc(nbytes, false);
    return *out ? 0 : alloc_error(nbytes, err);
}

static int cpu_gemm(const tl_backend *be, const tl_strided *c,
                    const tl_strided *a, const tl_strided *b, tl_error *err)
{
    (void)be;
    return tl_cpu_loops_enabled() ? tl_cpu_loops_gemm(c, a, b, err) : 0;
}

static int cpu_memcpy(const tl_backend *be, void *dst, const void *src,
                      size_t n, tl_error *err)
{
    (void)be;
    (void)err;
    if (n)
        memmove(dst, src, n);
    return 0;
}

/* ------------------------------------------------------------------------
 * copy_strided and fill
 * ---------------------------------------------------------------------- */

typedef struct copy_ctx {
    tl_dtype dt_dst, dt_src;
    size_t isz;
} copy_ctx;

static int copy_same(void *vctx, int64_t n, char *const *p, const int64_t *s,
                     tl_error *err)
{
    const copy_ctx *c = vctx;
    char *d = p[0];
    const char *x = p[1];
    int64_t sd = s[0], sx = s[1];
    if (sd == (int64_t)c->isz && sx == (int64_t)c->isz) {
        memmove(d, x, (size_t)n * c->isz);
        return 0;
    }
    switch (c->isz) {
    case 1:
        for (int64_t i = 0; i < n; i++, d += sd, x += sx)
            *d = *x;
        break;
    case 2:
        for (int64_t i = 0; i < n; i++, d += sd, x += sx)
            memcpy(d, x, 2);
        break;
    case 4:
        for (int64_t i = 0; i < n; i++, d += sd, x += sx)
            memcpy(d, x, 4);
        break;
    default:
        for (int64_t i = 0; i < n; i++, d += sd, x += sx)
            memcpy(d, x, 8);
        break;
    }
    (void)err;
    return 0;
}

/* bool -> bool: PyTorch's copy loads each bool as a byte and converts it
 * (c10::load<bool>, gh-54789), so a byte other than 0/1 seen through
 * view(torch.bool) lands as 1 (its vectorised loop, taken only on long
 * contiguous runs, copies bytes; the short runs of a lab never get there) */
static int copy_bool(void *vctx, int64_t n, char *const *p, const int64_t *s,
                     tl_error *err)
{
    char *d = p[0];
    const char *x = p[1];
    if (s[0] == 1 && s[1] == 1 && d > x) { /* a dense strip: memmove's order */
        for (int64_t i = n - 1; i >= 0; i--)
            ((unsigned char *)d)[i] = ((const unsigned char *)x)[i] != 0;
        (void)vctx;
        (void)err;
        return 0;
    }
    for (int64_t i = 0; i < n; i++, d += s[0], x += s[1])
        *(unsigned char *)d = *(const unsigned char *)x != 0;
    (void)vctx;
    (void)err;
    return 0;
}

static int copy_conv(void *vctx, int64_t n, char *const *p, const int64_t *s,
                     tl_error *err)
{
    const copy_ctx *c = vctx;
    char *d = p[0];
    const char *x = p[1];
    if (tl_dtype_is_floating(c->dt_src)) {
        ld_f64_fn ld = ldf[c->dt_src];
        st_f64_fn st = stf[c->dt_dst];
        for (int64_t i = 0; i < n; i++, d += s[0], x += s[1])
            st(d, ld(x));
    } else {
        ld_i64_fn ld = ldi[c->dt_src];
        st_i64_fn st = sti[c->dt_dst];
        for (int64_t i = 0; i < n; i++, d += s[0], x += s[1])
            st(d, ld(x));
    }
    (void)err;
    return 0;
}

static int cpu_copy_strided(const tl_backend *be, const tl_strided *dst,
                            const tl_strided *src, tl_error *err)
{
    (void)be;
    bool bools = dst->dtype == TL_BOOL && src->dtype == TL_BOOL;
    int fast = tl_cpu_loops_enabled() && !bools ? tl_cpu_loops_copy(dst, src, err) : 0;
    if (fast)
        return fast < 0 ? -1 : 0;
    const tl_strided *ops[2] = {dst, src};
    nd_iter it;
    if (nd_init(&it, 2, ops, err) < 0)
        return -1;
    copy_ctx c = {dst->dtype, src->dtype, tl_dtype_size(dst->dtype)};
    return nd_run(&it, bools ? copy_bool : dst->dtype == src->dtype ? copy_same : copy_conv,
                  &c, err);
}

typedef struct fill_ctx {
    unsigned char bytes[8];
    size_t isz;
    bool zero;
} fill_ctx;

static int fill_strip(void *vctx, int64_t n, char *const *p, const int64_t *s,
                      tl_error *err)
{
    const fill_ctx *c = vctx;
    char *d = p[0];
    if (c->zero && s[0] == (int64_t)c->isz) {
        memset(d, 0, (size_t)n * c->isz);
        return 0;
    }
    for (int64_t i = 0; i < n; i++, d += s[0])
        memcpy(d, c->bytes, c->isz);
    (void)err;
    return 0;
}

static int cpu_fill(const tl_backend *be, const tl_strided *dst, tl_scalar v,
                    tl_error *err)
{
    (void)be;
    const tl_strided *ops[1] = {dst};
    nd_iter it;
    if (nd_init(&it, 1, ops, err) < 0)
        return -1;
    fill_ctx c;
    memset(&c, 0, sizeof c);
    c.isz = tl_dtype_size(dst->dtype);
    if (v.is_float)
        tl_dtype_store_f64(dst->dtype, c.bytes, v.f);
    else
        tl_dtype_store_i64(dst->dtype, c.bytes, v.i);
    c.zero = true;
    for (size_t i = 0; i < c.isz; i++)
        if (c.bytes[i])
            c.zero = false;
    return nd_run(&it, fill_strip, &c, err);
}

/* ------------------------------------------------------------------------
 * Scalar semantics shared by the binary kernels
 * ---------------------------------------------------------------------- */

/* c10 div_floor_floating */


static double maximum_f(double a, double b)
{
    if (isnan(a) || isnan(b))
        return NAN;
    return a > b ? a : b;
}

static double minimum_f(double a, double b)
{
    if (isnan(a) || isnan(b))
        return NAN;
    return a < b ? a : b;
}


static const char *binop_kernel_name(tl_binop op)
{
    switch (op) {
    case TL_BIN_BITAND: return "bitwise_and";
    case TL_BIN_BITOR: return "bitwise_or";
    case TL_BIN_BITXOR: return "bitwise_xor";
    case TL_BIN_LSHIFT: return "lshift";
    case TL_BIN_RSHIFT: return "rshift";
    default: return "binary";
    }
}

/* ------------------------------------------------------------------------
 * binary
 * ---------------------------------------------------------------------- */

typedef struct bin_ctx {
    tl_binop op;
    tl_dtype compute;
    ld_f64_fn lfa, lfb;
    ld_i64_fn lia, lib;
    st_f64_fn sf;
    st_i64_fn si;
    int bits;
} bin_ctx;

static bool binop_is_cmp(tl_binop op)
{
    return op >= TL_BIN_EQ && op <= TL_BIN_LOGICAL_XOR;
}

#define BLOOP(LOAD_T, LA, LB, BODY)                                            \
    for (int64_t i = 0; i < n; i++, d += sd, pa += sa, pb += sb) {             \
        LOAD_T a = LA(pa), b = LB(pb);                                         \
        BODY;                                                                  \
    }

/* Fast paths: every operand already in the compute dtype (float32,
 * float64 or int64) and one of the four arithmetic ops. Returns false when
 * the strip is not eligible. */
#define FAST_LOOP(T, EXPR)                                                     \
    for (int64_t i = 0; i < n; i++, d += sd, pa += sa, pb += sb) {             \
        T a, b, r;                                                             \
        memcpy(&a, pa, sizeof a);                                              \
        memcpy(&b, pb, sizeof b);                                              \
        r = (EXPR);                                                            \
        memcpy(d, &r, sizeof r);                                               \
    }
#define FAST_OPS(T, U)                                                         \
    switch (c->op) {                                                           \
    case TL_BIN_ADD: FAST_LOOP(T, (T)((U)a + (U)b)) return true;               \
    case TL_BIN_SUB: FAST_LOOP(T, (T)((U)a - (U)b)) return true;               \
    case TL_BIN_MUL: FAST_LOOP(T, (T)((U)a * (U)b)) return true;               \
    default: break;                                                            \
    }

static bool bin_fast(const bin_ctx *c, int64_t n, char *const *p,
                     const int64_t *s)
{
    char *d = p[0];
    const char *pa = p[1], *pb = p[2];
    int64_t sd = s[0], sa = s[1], sb = s[2];
    if (c->compute == TL_FLOAT32 && c->lfa == ldf_f32 && c->lfb == ldf_f32 &&
        c->sf == stf_f32) {
        FAST_OPS(float, float)
        if (c->op == TL_BIN_DIV) {
            FAST_LOOP(float, a / b)
            return true;
        }
    } else if (c->compute == TL_FLOAT64 && c->lfa == ldf_f64 &&
               c->lfb == ldf_f64 && c->sf == stf_f64) {
        FAST_OPS(double, double)
        if (c->op == TL_BIN_DIV) {
            FAST_LOOP(double, a / b)
            return true;
        }
    } else if (c->compute == TL_INT64 && c->lia == ldi_i64 &&
               c->lib == ldi_i64 && c->si == sti_i64) {
        FAST_OPS(int64_t, uint64_t)
    }
    return false;
}

/* The locals every binary kernel's BLOOP bodies use, after the fast path. */
#define BIN_KERNEL_SETUP                                                       \
    const bin_ctx *c = vctx;                                                   \
    if (bin_fast(c, n, p, s))                                                  \
        return 0;                                                              \
    char *d = p[0];                                                            \
    const char *pa = p[1], *pb = p[2];                                         \
    int64_t sd = s[0], sa = s[1], sb = s[2];                                   \
    tl_dtype ct = c->compute;                                                  \
    st_f64_fn sf = c->sf;                                                      \
    st_i64_fn si = c->si;

/* Cases spelled the same for every compute type T (double or int64_t):
 * comparisons and logical ops store 0/1 through si; COPY_RHS stores b
 * through the kernel's own OUT (rounded or wrapped to the compute dtype).
 * `a != 0` on a double compares against 0.0 exactly. */
#define OUTB(expr) si(d, (expr) ? 1 : 0)
#define BIN_SHARED_CASES(T)                                                    \
    case TL_BIN_EQ: BLOOP(T, LA, LB, OUTB(a == b)) break;                      \
    case TL_BIN_NE: BLOOP(T, LA, LB, OUTB(a != b)) break;                      \
    case TL_BIN_LT: BLOOP(T, LA, LB, OUTB(a < b)) break;                       \
    case TL_BIN_LE: BLOOP(T, LA, LB, OUTB(a <= b)) break;                      \
    case TL_BIN_GT: BLOOP(T, LA, LB, OUTB(a > b)) break;                       \
    case TL_BIN_GE: BLOOP(T, LA, LB, OUTB(a >= b)) break;                      \
    case TL_BIN_LOGICAL_AND: BLOOP(T, LA, LB, OUTB(a != 0 && b != 0)) break;   \
    case TL_BIN_LOGICAL_OR: BLOOP(T, LA, LB, OUTB(a != 0 || b != 0)) break;    \
    case TL_BIN_LOGICAL_XOR:                                                   \
        BLOOP(T, LA, LB, OUTB((a != 0) != (b != 0))) break;                    \
    case TL_BIN_COPY_RHS: BLOOP(T, LA, LB, (void)a; OUT(b)) break;

static int bin_float(void *vctx, int64_t n, char *const *p, const int64_t *s,
                     tl_error *err)
{
    BIN_KERNEL_SETUP
    /* inputs rounded to the compute dtype (a no-op for float64) */
#define LA(x) round_to(ct, c->lfa(x))
#define LB(x) round_to(ct, c->lfb(x))
#define OUT(expr) sf(d, round_to(ct, (expr)))
    switch (c->op) {
    case TL_BIN_ADD: BLOOP(double, LA, LB, OUT(a + b)) break;
    case TL_BIN_SUB: BLOOP(double, LA, LB, OUT(a - b)) break;
    case TL_BIN_MUL: BLOOP(double, LA, LB, OUT(a * b)) break;
    case TL_BIN_DIV: BLOOP(double, LA, LB, OUT(a / b)) break;
    case TL_BIN_FLOORDIV: BLOOP(double, LA, LB, OUT(tl_sd_floordiv_f(a, b))) break;
    case TL_BIN_REMAINDER: BLOOP(double, LA, LB, OUT(tl_sd_remainder_f(a, b))) break;
    case TL_BIN_FMOD: BLOOP(double, LA, LB, OUT(fmod(a, b))) break;
    case TL_BIN_POW: BLOOP(double, LA, LB, OUT(pow(a, b))) break;
    case TL_BIN_MAXIMUM: BLOOP(double, LA, LB, OUT(maximum_f(a, b))) break;
    case TL_BIN_MINIMUM: BLOOP(double, LA, LB, OUT(minimum_f(a, b))) break;
    case TL_BIN_ATAN2: BLOOP(double, LA, LB, OUT(atan2(a, b))) break;
    BIN_SHARED_CASES(double)
    default:
        return tl_error_set(err, TL_ERR_INTERNAL, "backend: bad float binop %d",
                            (int)c->op);
    }
#undef LA
#undef LB
#undef OUT
    return 0;
}

static int zerodiv(tl_error *err)
{
    return tl_error_set(err, TL_ERR_RUNTIME, "ZeroDivisionError");
}

static int bin_int(void *vctx, int64_t n, char *const *p, const int64_t *s,
                   tl_error *err)
{
    BIN_KERNEL_SETUP
    int bits = c->bits;
#define LA(x) wrap_to(ct, c->lia(x))
#define LB(x) wrap_to(ct, c->lib(x))
#define OUT(expr) si(d, wrap_to(ct, (expr)))
#define U(x) ((uint64_t)(x))
    switch (c->op) {
    case TL_BIN_ADD: BLOOP(int64_t, LA, LB, OUT((int64_t)(U(a) + U(b)))) break;
    case TL_BIN_SUB: BLOOP(int64_t, LA, LB, OUT((int64_t)(U(a) - U(b)))) break;
    case TL_BIN_MUL: BLOOP(int64_t, LA, LB, OUT((int64_t)(U(a) * U(b)))) break;
    case TL_BIN_DIV:
        BLOOP(int64_t, LA, LB, if (b == 0) return zerodiv(err); OUT(tl_sd_truncdiv_i(a, b)))
        break;
    case TL_BIN_FLOORDIV:
        BLOOP(int64_t, LA, LB, if (b == 0) return zerodiv(err); OUT(tl_sd_floordiv_i(a, b)))
        break;
    case TL_BIN_REMAINDER:
        BLOOP(int64_t, LA, LB, if (b == 0) return zerodiv(err); OUT(tl_sd_remainder_i(a, b)))
        break;
    case TL_BIN_FMOD:
        BLOOP(int64_t, LA, LB, if (b == 0) return zerodiv(err); OUT(tl_sd_fmod_i(a, b)))
        break;
    case TL_BIN_POW: BLOOP(int64_t, LA, LB, OUT(tl_sd_pow_i(a, b))) break;
    case TL_BIN_MAXIMUM: BLOOP(int64_t, LA, LB, OUT(a > b ? a : b)) break;
    case TL_BIN_MINIMUM: BLOOP(int64_t, LA, LB, OUT(a < b ? a : b)) break;
    case TL_BIN_ATAN2:
        BLOOP(int64_t, LA, LB, sf(d, atan2((double)a, (double)b)))
        break;
    BIN_SHARED_CASES(int64_t)
    case TL_BIN_BITAND: BLOOP(int64_t, LA, LB, OUT(a & b)) break;
    case TL_BIN_BITOR: BLOOP(int64_t, LA, LB, OUT(a | b)) break;
    case TL_BIN_BITXOR: BLOOP(int64_t, LA, LB, OUT(a ^ b)) break;
    case TL_BIN_LSHIFT: BLOOP(int64_t, LA, LB, OUT(tl_sd_lshift_i(a, b, bits))) break;
    case TL_BIN_RSHIFT: BLOOP(int64_t, LA, LB, OUT(tl_sd_rshift_i(a, b, bits))) break;
    default:
        return tl_error_set(err, TL_ERR_INTERNAL, "backend: bad int binop %d",
                            (int)c->op);
    }
#undef LA
#undef LB
#undef OUT
#undef U
    return 0;
}

static int binary_impl(const char *devname, tl_binop op, tl_dtype compute,
                       const tl_strided *dst, const tl_strided *a,
                       const tl_strided *b, tl_error *err)
{
    if ((unsigned)op >= (unsigned)TL_NBINOPS || !dtype_ok(compute))
        return bad_desc(err, "binop/compute");
    bool fl = tl_dtype_is_floating(compute);
    if ((op >= TL_BIN_BITAND && op <= TL_BIN_RSHIFT && fl) ||
        ((op == TL_BIN_LSHIFT || op == TL_BIN_RSHIFT) && compute == TL_BOOL))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "\"%s_%s\" not implemented for '%s'",
                            binop_kernel_name(op), devname,
                            tl_dtype_scalar_name(compute));
    int fast = tl_cpu_loops_enabled()
        ? tl_cpu_loops_binary(op, compute, dst, a, b, err) : 0;
    if (fast)
        return fast < 0 ? -1 : 0;
    const tl_strided *ops[3] = {dst, a, b};
    nd_iter it;
    if (nd_init(&it, 3, ops, err) < 0)
        return -1;
    bin_ctx c = {
        .op = op, .compute = compute,
        .lfa = ldf[a->dtype], .lfb = ldf[b->dtype],
        .lia = ldi[a->dtype], .lib = ldi[b->dtype],
        .sf = stf[dst->dtype], .si = sti[dst->dtype],
        .bits = (int)(8 * tl_dtype_size(compute)),
    };
    (void)binop_is_cmp;
    return nd_run(&it, fl ? bin_float : bin_int, &c, err);
}

static int cpu_binary(const tl_backend *be, tl_binop op, tl_dtype compute,
                      const tl_strided *dst, const tl_strided *a,
                      const tl_strided *b, tl_error *err)
{
    return binary_impl(tl_backend_kernel_suffix(be), op, compute, dst, a, b,
                       err);
}

/* ------------------------------------------------------------------------
 * unary
 * ---------------------------------------------------------------------- */

typedef struct un_ctx {
    tl_unop op;
    tl_dtype compute;
    ld_f64_fn lf;
    ld_i64_fn li;
    st_f64_fn sf;
    st_i64_fn si;
} un_ctx;

/* the float unary ops: scalar_defs.h's (the device's) */
static double unary_f(tl_unop op, double x)
{
    return tl_sd_unary_f((int)op, x);
}

static bool unop_is_pred(tl_unop op)
{
    return op == TL_UN_LOGICAL_NOT || op == TL_UN_ISNAN || op == TL_UN_ISINF ||
           op == TL_UN_ISFINITE;
}

static int un_float(void *vctx, int64_t n, char *const *p, const int64_t *s,
                    tl_error *err)
{
    const un_ctx *c = vctx;
    char *d = p[0];
    const char *x = p[1];
    tl_dtype ct = c->compute;
    tl_unop op = c->op;
    switch (op) {
    case TL_UN_LOGICAL_NOT:
        for (int64_t i = 0; i < n; i++, d += s[0], x += s[1])
            c->si(d, c->lf(x) == 0.0);
        break;
    case TL_UN_ISNAN:
        for (int64_t i = 0; i < n; i++, d += s[0], x += s[1])
            c->si(d, isnan(c->lf(x)) ? 1 : 0);
        break;
    case TL_UN_ISINF:
        for (int64_t i = 0; i < n; i++, d += s[0], x += s[1])
            c->si(d, isinf(round_to(ct, c->lf(x))) ? 1 : 0);
        break;
    case TL_UN_ISFINITE:
        for (int64_t i = 0; i < n; i++, d += s[0], x += s[1])
            c->si(d, isfinite(round_to(ct, c->lf(x))) ? 1 : 0);
        break;
    case TL_UN_BITWISE_NOT:
        return tl_error_set(err, TL_ERR_INTERNAL, "backend: bitwise_not on %s",
                            tl_dtype_name(ct));
    case TL_UN_NEG:
        for (int64_t i = 0; i < n; i++, d += s[0], x += s[1])
            c->sf(d, -round_to(ct, c->lf(x)));
        break;
    case TL_UN_RSQRT:
        if (ct == TL_FLOAT64)
            goto plain;
        /* below double, PyTorch's rsqrt is 1 / sqrt(x) in float: two
         * roundings (the float division done in double rounds the same);
         * bfloat16's scalar loop rounds both to bfloat16 (c10's sqrt and
         * operator/ on BFloat16) */
        for (int64_t i = 0; i < n; i++, d += s[0], x += s[1]) {
            tl_dtype st = ct == TL_BFLOAT16 ? TL_BFLOAT16 : TL_FLOAT32;
            double q = round_to(st, sqrt(round_to(ct, c->lf(x))));
            c->sf(d, round_to(ct, round_to(st, 1.0 / q)));
        }
        break;
    default:
    plain:
        for (int64_t i = 0; i < n; i++, d += s[0], x += s[1])
            c->sf(d, round_to(ct, unary_f(op, round_to(ct, c->lf(x)))));
        break;
    }
    return 0;
}

static int un_int(void *vctx, int64_t n, char *const *p, const int64_t *s,
                  tl_error *err)
{
    const un_ctx *c = vctx;
    char *d = p[0];
    const char *x = p[1];
    tl_dtype ct = c->compute;
    (void)err;
#define ULOOP(BODY)                                                            \
    for (int64_t i = 0; i < n; i++, d += s[0], x += s[1]) {                    \
        int64_t a = wrap_to(ct, c->li(x));                                     \
        BODY;                                                                  \
    }
    switch (c->op) {
    case TL_UN_NEG: ULOOP(c->si(d, wrap_to(ct, (int64_t)(0u - (uint64_t)a)))) break;
    case TL_UN_ABS:
        ULOOP(c->si(d, wrap_to(ct, a < 0 ? (int64_t)(0u - (uint64_t)a) : a)))
        break;
    case TL_UN_SIGN: ULOOP(c->si(d, (a > 0) - (a < 0))) break;
    case TL_UN_SQUARE:
        ULOOP(c->si(d, wrap_to(ct, (int64_t)((uint64_t)a * (uint64_t)a))))
        break;
    case TL_UN_RELU: ULOOP(c->si(d, a < 0 ? 0 : a)) break;
    case TL_UN_FLOOR:
    case TL_UN_CEIL:
    case TL_UN_ROUND:
    case TL_UN_TRUNC:
    case TL_UN_IDENTITY: ULOOP(c->si(d, a)) break;
    case TL_UN_FRAC: ULOOP((void)a; c->si(d, 0)) break;
    case TL_UN_BITWISE_NOT:
        if (ct == TL_BOOL)
            ULOOP(c->si(d, !a))
        else
            ULOOP(c->si(d, wrap_to(ct, ~a)))
        break;
    case TL_UN_LOGICAL_NOT: ULOOP(c->si(d, a == 0)) break;
    case TL_UN_ISNAN:
    case TL_UN_ISINF: ULOOP((void)a; c->si(d, 0)) break;
    case TL_UN_ISFINITE: ULOOP((void)a; c->si(d, 1)) break;
    default: /* transcendental ops on integers: computed in double */
        ULOOP(c->sf(d, unary_f(c->op, (double)a)))
        break;
    }
#undef ULOOP
    return 0;
}

static int cpu_unary(const tl_backend *be, tl_unop op, tl_dtype compute,
                     const tl_strided *dst, const tl_strided *src,
                     tl_error *err)
{
    (void)be;
    if ((unsigned)op >= (unsigned)TL_NUNOPS || !dtype_ok(compute))
        return bad_desc(err, "unop/compute");
    if (op == TL_UN_BITWISE_NOT && tl_dtype_is_floating(compute))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "\"bitwise_not_cpu\" not implemented for '%s'",
                            tl_dtype_scalar_name(compute));
    const tl_strided *ops[2] = {dst, src};
    nd_iter it;
    if (nd_init(&it, 2, ops, err) < 0)
        return -1;
    un_ctx c = {op, compute, ldf[src->dtype], ldi[src->dtype], stf[dst->dtype],
                sti[dst->dtype]};
    (void)unop_is_pred;
    return nd_run(&it, tl_dtype_is_floating(compute) ? un_float : un_int, &c,
                  err);
}

/* ------------------------------------------------------------------------
 * where
 * ---------------------------------------------------------------------- */

typedef struct where_ctx {
    ld_i64_fn lc;
    ld_f64_fn lfa, lfb;
    ld_i64_fn lia, lib;
    st_f64_fn sf;
    st_i64_fn si;
    bool fl;
    /* an operand of dst's dtype is copied bit for bit (a NaN keeps its
     * payload, as torch's where kernel copies scalar_t): its size, or 0 */
    size_t rawa, rawb;
} where_ctx;

static int where_strip(void *vctx, int64_t n, char *const *p, const int64_t *s,
                       tl_error *err)
{
    const where_ctx *c = vctx;
    char *d = p[0];
    const char *pc = p[1], *pa = p[2], *pb = p[3];
    (void)err;
    for (int64_t i = 0; i < n; i++, d += s[0], pc += s[1], pa += s[2], pb += s[3]) {
        bool t = c->lc(pc) != 0;
        if (t ? c->rawa : c->rawb)
            memcpy(d, t ? pa : pb, t ? c->rawa : c->rawb);
        else if (c->fl)
            c->sf(d, t ? c->lfa(pa) : c->lfb(pb));
        else
            c->si(d, t ? c->lia(pa) : c->lib(pb));
    }
    return 0;
}

static int cpu_where(const tl_backend *be, const tl_strided *dst,
                     const tl_strided *cond, const tl_strided *a,
                     const tl_strided *b, tl_error *err)
{
    (void)be;
    const tl_strided *ops[4] = {dst, cond, a, b};
    nd_iter it;
    if (nd_init(&it, 4, ops, err) < 0)
        return -1;
    where_ctx c = {ldi[cond->dtype], ldf[a->dtype], ldf[b->dtype],
                   ldi[a->dtype], ldi[b->dtype], stf[dst->dtype],
                   sti[dst->dtype], tl_dtype_is_floating(dst->dtype),
                   a->dtype == dst->dtype ? tl_dtype_size(dst->dtype) : 0,
                   b->dtype == dst->dtype ? tl_dtype_size(dst->dtype) : 0};
    return nd_run(&it, where_strip, &c, err);
}

/* ------------------------------------------------------------------------
 * gather and scatter
 * ---------------------------------------------------------------------- */

static void copy_elem(tl_dtype dd, char *d, tl_dtype sd, const char *s)
{
    if (dd == sd)
        memcpy(d, s, tl_dtype_size(dd));
    else if (tl_dtype_is_floating(sd))
        stf[dd](d, ldf[sd](s));
    else
        sti[dd](d, ldi[sd](s));
}

/* The dims of a gather/scatter other than `dim` (same sizes in dst and
 * src, checked): their sizes and byte strides. Returns the number of them,
 * -1 on a size mismatch; *empty when any operand has no elements. */
static int outer_dims(const tl_strided *dst, const tl_strided *src, int dim,
                      int64_t n_index, int64_t *osizes, int64_t *dstr,
                      int64_t *sstr, bool *empty)
{
    size_t disz = tl_dtype_size(dst->dtype), sisz = tl_dtype_size(src->dtype);
    int no = 0;
    *empty = n_index == 0;
    for (int d = 0; d < src->ndim; d++) {
        if (d == dim)
            continue;
        if (dst->sizes[d] != src->sizes[d] || src->sizes[d] < 0)
            return -1;
        if (src->sizes[d] == 0)
            *empty = true;
        osizes[no] = src->sizes[d];
        dstr[no] = bstride(dst->strides[d], disz);
        sstr[no] = bstride(src->strides[d], sisz);
        no++;
    }
    return no;
}

static int cpu_gather(const tl_backend *be, const tl_strided *dst,
                      const tl_strided *src, int dim, const int64_t *index,
                      int64_t n_index, tl_error *err)
{
    (void)be;
    int nd = src->ndim;
    if (nd < 1 || nd > TL_MAX_DIMS || dst->ndim != nd || dim < 0 || dim >= nd ||
        !dtype_ok(dst->dtype) || !dtype_ok(src->dtype) || n_index < 0 ||
        dst->sizes[dim] != n_index)
        return bad_desc(err, "index_select shape");
    int64_t osizes[TL_MAX_DIMS], dstr[TL_MAX_DIMS], sstr[TL_MAX_DIMS];
    size_t disz = tl_dtype_size(dst->dtype), sisz = tl_dtype_size(src->dtype);
    bool empty;
    int no = outer_dims(dst, src, dim, n_index, osizes, dstr, sstr, &empty);
    if (no < 0)
        return bad_desc(err, "index_select sizes");
    if (empty)
        return 0;
    int fast = tl_cpu_loops_enabled()
        ? tl_cpu_loops_index_select(dst, src, dim, index, n_index, err) : 0;
    if (fast)
        return fast < 0 ? -1 : 0;
    for (int64_t k = 0; k < n_index; k++)
        if (index[k] < 0 || index[k] >= src->sizes[dim])
            return tl_error_set(err, TL_ERR_INTERNAL,
                                "backend: index %lld out of range",
                                (long long)index[k]);
    if (!dst->data || !src->data)
        return bad_desc(err, "null data");
    int64_t dk = dst->strides[dim] * (int64_t)disz;
    int64_t sk = src->strides[dim] * (int64_t)sisz;
    int64_t idx[TL_MAX_DIMS] = {0};
    char *dp = dst->data;
    const char *sp = src->data;
    for (;;) {
        for (int64_t k = 0; k < n_index; k++)
            copy_elem(dst->dtype, dp + k * dk, src->dtype, sp + index[k] * sk);
        if (!step2(no, idx, osizes, &dp, dstr, &sp, sstr))
            return 0;
    }
}

/* dst[..., index[k], ...] (op)= src[..., k, ...] for k ascending: with
 * SET the last duplicate wins, with ADD the sums accumulate in k order
 * (computed in dst's dtype: double for floating, wrapping int64 else). */
static int cpu_scatter(const tl_backend *be, tl_scatter_mode mode,
                       const tl_strided *dst, const tl_strided *src, int dim,
                       const int64_t *index, int64_t n_index, tl_error *err)
{
    (void)be;
    int nd = dst->ndim;
    if (nd < 1 || nd > TL_MAX_DIMS || src->ndim != nd || dim < 0 || dim >= nd ||
        !dtype_ok(dst->dtype) || !dtype_ok(src->dtype) || n_index < 0 ||
        src->sizes[dim] != n_index ||
        (mode != TL_SCATTER_SET && mode != TL_SCATTER_ADD && mode != TL_SCATTER_MUL))
        return bad_desc(err, "scatter shape");
    int64_t osizes[TL_MAX_DIMS], dstr[TL_MAX_DIMS], sstr[TL_MAX_DIMS];
    size_t disz = tl_dtype_size(dst->dtype), sisz = tl_dtype_size(src->dtype);
    bool empty;
    int no = outer_dims(dst, src, dim, n_index, osizes, dstr, sstr, &empty);
    if (no < 0)
        return bad_desc(err, "scatter sizes");
    if (empty)
        return 0;
    for (int64_t k = 0; k < n_index; k++)
        if (index[k] < 0 || index[k] >= dst->sizes[dim])
            return tl_error_set(err, TL_ERR_INTERNAL,
                                "backend: index %lld out of range",
                                (long long)index[k]);
    if (!dst->data || !src->data)
        return bad_desc(err, "null data");
    int64_t dk = dst->strides[dim] * (int64_t)disz;
    int64_t sk = src->strides[dim] * (int64_t)sisz;
    int64_t idx[TL_MAX_DIMS] = {0};
    char *dp = dst->data;
    const char *sp = src->data;
    tl_dtype dd = dst->dtype, sd = src->dtype;
    bool fl = tl_dtype_is_floating(dd);
    for (;;) {
        for (int64_t k = 0; k < n_index; k++) {
            char *d = dp + index[k] * dk;
            const char *e = sp + k * sk;
            if (mode == TL_SCATTER_SET)
                copy_elem(dd, d, sd, e);
            else if (mode == TL_SCATTER_MUL && dd == TL_BOOL)
                sti[dd](d, ldi[dd](d) != 0 && ldi[sd](e) != 0);
            else if (mode == TL_SCATTER_MUL && fl)
                stf[dd](d, round_to(dd, ldf[dd](d) * ldf[sd](e)));
            else if (mode == TL_SCATTER_MUL)
                sti[dd](d, (int64_t)((uint64_t)ldi[dd](d) * (uint64_t)ldi[sd](e)));
            else if (dd == TL_BOOL)
                sti[dd](d, ldi[dd](d) != 0 || ldi[sd](e) != 0);
            else if (fl)
                stf[dd](d, round_to(dd, ldf[dd](d) + ldf[sd](e)));
            else
                sti[dd](d, (int64_t)((uint64_t)ldi[dd](d) + (uint64_t)ldi[sd](e)));
        }
        if (!step2(no, idx, osizes, &dp, dstr, &sp, sstr))
            return 0;
    }
}

/* ------------------------------------------------------------------------
 * reduce
 * ---------------------------------------------------------------------- */

static const char *redop_name(tl_redop op)
{
    static const char *names[TL_NREDOPS] = {"sum", "prod", "mean", "max", "min",
                                            "argmax", "argmin", "all", "any"};
    return (unsigned)op < TL_NREDOPS ? names[op] : "reduce";
}

typedef struct red_acc {
    double f;
    int64_t i;
    int64_t arg;
    bool seen_nan;
    tl_ro_acc ro; /* floating sum/mean/prod: reduce_order.h's order */
} red_acc;

/* a floating sum, mean or product: folded in reduce_order.h's order */
static bool red_ordered(tl_redop op, bool fl)
{
    return fl && (op == TL_RED_SUM || op == TL_RED_MEAN || op == TL_RED_PROD);
}

static void red_init(tl_redop op, tl_dtype ct, bool fl, red_acc *a)
{
    a->arg = 0;
    a->seen_nan = false;
    if (red_ordered(op, fl))
        tl_ro_init(&a->ro, tl_ro_f32_lanes(ct == TL_FLOAT32, op == TL_RED_PROD),
                   op == TL_RED_PROD);
    switch (op) {
    case TL_RED_PROD: a->f = 1.0; a->i = 1; break;
    case TL_RED_ALL: a->f = 1.0; a->i = 1; break;
    case TL_RED_MAX: case TL_RED_ARGMAX: a->f = -INFINITY; a->i = INT64_MIN; break;
    case TL_RED_MIN: case TL_RED_ARGMIN: a->f = INFINITY; a->i = INT64_MAX; break;
    default: a->f = 0.0; a->i = 0; break;
    }
}

/* Fold n elements (a strip of the reduced sub-shape starting at flat
 * position k0) into the accumulator. */
static void red_strip_f(tl_redop op, tl_dtype ct, ld_f64_fn ld, const char *p,
                        int64_t st, int64_t n, int64_t k0, red_acc *a)
{
    bool max = op == TL_RED_MAX || op == TL_RED_ARGMAX;
    for (int64_t i = 0; i < n; i++, p += st) {
        double v = round_to(ct, ld(p));
        switch (op) {
        case TL_RED_SUM: case TL_RED_MEAN: case TL_RED_PROD: tl_ro_add(&a->ro, v); break;
        case TL_RED_ALL: if (v == 0.0) a->f = 0.0; break;
        case TL_RED_ANY: if (v != 0.0) a->f = 1.0; break;
        case TL_RED_MAX: case TL_RED_ARGMAX:
        case TL_RED_MIN: case TL_RED_ARGMIN:
            /* the first NaN wins and stays */
            if (a->seen_nan)
                break;
            if (isnan(v) || (max ? v > a->f : v < a->f) || k0 + i == 0) {
                a->seen_nan = isnan(v);
                a->f = v;
                a->arg = k0 + i;
            }
            break;
        default: break;
        }
    }
}

static void red_strip_i(tl_redop op, tl_dtype ct, ld_i64_fn ld, const char *p,
                        int64_t st, int64_t n, int64_t k0, red_acc *a)
{
    bool max = op == TL_RED_MAX || op == TL_RED_ARGMAX;
    for (int64_t i = 0; i < n; i++, p += st) {
        int64_t v = wrap_to(ct, ld(p));
        switch (op) {
        case TL_RED_SUM: a->i = (int64_t)((uint64_t)a->i + (uint64_t)v); break;
        case TL_RED_MEAN: a->f += (double)v; break;
        case TL_RED_PROD: a->i = (int64_t)((uint64_t)a->i * (uint64_t)v); break;
        case TL_RED_ALL: if (v == 0) a->i = 0; break;
        case TL_RED_ANY: if (v != 0) a->i = 1; break;
        case TL_RED_MAX: case TL_RED_ARGMAX:
        case TL_RED_MIN: case TL_RED_ARGMIN:
            if ((max ? v > a->i : v < a->i) || k0 + i == 0) {
                a->i = v;
                a->arg = k0 + i;
            }
            break;
        default: break;
        }
    }
}

static void red_store(tl_redop op, tl_dtype ct, bool fl, red_acc *a,
                      int64_t count, tl_dtype dt, char *d)
{
    if (red_ordered(op, fl))
        a->f = tl_ro_finish(&a->ro);
    switch (op) {
    case TL_RED_ARGMAX:
    case TL_RED_ARGMIN:
        tl_dtype_store_i64(dt, d, a->arg);
        return;
    case TL_RED_ALL:
    case TL_RED_ANY:
        tl_dtype_store_i64(dt, d, fl ? (a->f != 0.0) : a->i);
        return;
    case TL_RED_MEAN:
        tl_dtype_store_f64(dt, d, round_to(ct, a->f / (double)count));
        return;
    default:
        if (fl)
            tl_dtype_store_f64(dt, d, round_to(ct, a->f));
        else
            tl_dtype_store_i64(dt, d, wrap_to(ct, a->i));
        return;
    }
}

/* Product of element counts: 0 when either is 0 (the order of the dims
 * must not matter: (2**31, 2**31, 2**31, 0) has no elements), saturated
 * past int64 (only a zero-element tensor's partial products get there). */
static int64_t count_mul(int64_t a, int64_t b)
{
    int64_t r;
    if (a == 0 || b == 0)
        return 0;
    return tl_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/* Count n more elements done; every TL_DEADLINE_POLL, poll the op's
 * deadline (-1 with a limit error once it has passed). */
static int poll_deadline(int64_t *since_check, int64_t n, tl_error *err)
{
    *since_check += n;
    if (*since_check < TL_DEADLINE_POLL)
        return 0;
    *since_check = 0;
    return tl_context_deadline_check(err);
}

static int cpu_reduce(const tl_backend *be, tl_redop op, tl_dtype compute,
                      const tl_strided *dst, const tl_strided *src,
                      uint64_t reduce_mask, tl_error *err)
{
    (void)be;
    int nd = src->ndim;
    if ((unsigned)op >= TL_NREDOPS || !dtype_ok(compute) || nd < 0 ||
        nd > TL_MAX_DIMS || dst->ndim != nd || !dtype_ok(dst->dtype) ||
        !dtype_ok(src->dtype))
        return bad_desc(err, "reduce");
    if (nd < 64 && (reduce_mask >> nd) != 0)
        return bad_desc(err, "reduce mask");
    /* kept dims (outer) and reduced dims (inner), each in order */
    int64_t osz[TL_MAX_DIMS], ostr[TL_MAX_DIMS], odst[TL_MAX_DIMS];
    int64_t rsz[TL_MAX_DIMS], rstr[TL_MAX_DIMS];
    int no = 0, nr = 0;
    int64_t nout = 1, nred = 1;
    size_t sisz = tl_dtype_size(src->dtype), disz = tl_dtype_size(dst->dtype);
    for (int d = 0; d < nd; d++) {
        bool red = (reduce_mask >> d) & 1u;
        if (src->sizes[d] < 0)
            return bad_desc(err, "reduce sizes");
        if (red) {
            if (dst->sizes[d] != 1)
                return bad_desc(err, "reduce keepdim");
            if (src->sizes[d] == 1)
                continue;
            rsz[nr] = src->sizes[d];
            rstr[nr] = bstride(src->strides[d], sisz);
            nred = count_mul(nred, src->sizes[d]);
            nr++;
        } else {
            if (dst->sizes[d] != src->sizes[d])
                return bad_desc(err, "reduce sizes");
            if (src->sizes[d] == 1)
                continue;
            osz[no] = src->sizes[d];
            ostr[no] = bstride(src->strides[d], sisz);
            odst[no] = bstride(dst->strides[d], disz);
            nout = count_mul(nout, src->sizes[d]);
            no++;
        }
    }
    if (nout == 0)
        return 0;
    if (nred == 0 && (op == TL_RED_MAX || op == TL_RED_MIN ||
                      op == TL_RED_ARGMAX || op == TL_RED_ARGMIN))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "%s(): Expected reduction dim to be specified for "
                            "input.numel() == 0. Specify the reduction dim "
                            "with the 'dim' argument.",
                            redop_name(op));
    if (!dst->data || (nred > 0 && !src->data))
        return bad_desc(err, "null data");
    int fast = tl_cpu_loops_enabled()
        ? tl_cpu_loops_reduce(op, compute, dst, src, reduce_mask, err) : 0;
    if (fast)
        return fast < 0 ? -1 : 0;
    /* all/any test each element for truth (v != 0, NaN true) in the
     * source dtype: a float must never be narrowed to an integer first
     * (0.5 is true). Every other op folds in `compute`. */
    bool truth = op == TL_RED_ALL || op == TL_RED_ANY;
    if (truth)
        compute = src->dtype;
    bool fl = tl_dtype_is_floating(compute);
    ld_f64_fn lf = ldf[src->dtype];
    ld_i64_fn li = ldi[src->dtype];
    int64_t oidx[TL_MAX_DIMS] = {0}, ridx[TL_MAX_DIMS] = {0};
    const char *sp = src->data;
    char *dp = dst->data;
    int64_t since_check = 0; /* elements since the last deadline poll */
    for (;;) {
        red_acc acc;
        red_init(op, compute, fl, &acc);
        if (nred > 0) {
            const char *rp = sp;
            int64_t inner = nr ? rsz[nr - 1] : 1;
            int64_t istr = nr ? rstr[nr - 1] : 0;
            int64_t k = 0;
            for (;;) {
                if (fl)
                    red_strip_f(op, compute, lf, rp, istr, inner, k, &acc);
                else
                    red_strip_i(op, compute, li, rp, istr, inner, k, &acc);
                k += inner;
                if (poll_deadline(&since_check, inner, err) < 0)
                    return -1;
                int d = nr - 2;
                for (; d >= 0; d--) {
                    rp += rstr[d];
                    if (++ridx[d] < rsz[d])
                        break;
                    rp -= rstr[d] * rsz[d];
                    ridx[d] = 0;
                }
                if (d < 0)
                    break;
            }
        }
        red_store(op, compute, fl, &acc, nred, dst->dtype, dp);
        if (poll_deadline(&since_check, 1, err) < 0)
            return -1;
        if (!step2(no, oidx, osz, &dp, odst, &sp, ostr))
            return 0;
    }
}

/* ------------------------------------------------------------------------
 * sort / topk
 * ---------------------------------------------------------------------- */

/* One element of a row being sorted: its key and its position (16 bytes:
 * the row and its merge buffer are 32 bytes an element, on the ledger).
 * A floating key is the value's bits made totally ordered as an int64
 * (negative values' magnitude bits flipped, -0.0 as 0.0, every NaN the
 * largest key, as PyTorch's sort and topk order NaN). */
typedef struct sort_item {
    int64_t key;
    int64_t pos;
} sort_item;

static int64_t float_key(double f)
{
    if (isnan(f))
        return INT64_MAX;
    if (f == 0.0)
        f = 0.0; /* -0.0 ties with 0.0 */
    int64_t b;
    memcpy(&b, &f, sizeof b);
    return b < 0 ? b ^ INT64_MAX : b;
}

/* a before b? Stable in either direction: ties keep their positions. */
static bool sort_before(const sort_item *a, const sort_item *b, bool fl,
                        bool desc)
{
    (void)fl;
    int c = a->key < b->key ? -1 : a->key > b->key ? 1 : 0;
    if (desc)
        c = -c;
    return c ? c < 0 : a->pos < b->pos;
}

/* Merge the sorted runs a[lo..mid) and a[mid..hi) into b[lo..hi), in
 * pieces of at most TL_DEADLINE_POLL outputs with a deadline poll between
 * them (*since counts the outputs since the last poll), so one long merge
 * of the last pass stops too. */
static int merge_runs(const sort_item *a, sort_item *b, int64_t lo,
                      int64_t mid, int64_t hi, bool fl, bool desc,
                      int64_t *since, tl_error *err)
{
    int64_t i = lo, j = mid, o = lo;
    while (o < hi) {
        int64_t end = o + (TL_DEADLINE_POLL - *since);
        if (end > hi)
            end = hi;
        int64_t start = o;
        while (o < end && i < mid && j < hi)
            b[o++] = sort_before(&a[j], &a[i], fl, desc) ? a[j++] : a[i++];
        if (o < end && i < mid) {
            int64_t c = end - o < mid - i ? end - o : mid - i;
            memcpy(b + o, a + i, sizeof *b * (size_t)c);
            o += c;
            i += c;
        }
        if (o < end && j < hi) {
            int64_t c = end - o < hi - j ? end - o : hi - j;
            memcpy(b + o, a + j, sizeof *b * (size_t)c);
            o += c;
            j += c;
        }
        if (poll_deadline(since, o - start, err) < 0)
            return -1;
    }
    return 0;
}

/* Bottom-up merge sort of v[0..n), passes alternating between v and
 * tmp[0..n); *out is the buffer that holds the sorted row. Every merge
 * polls the deadline (merge_runs): -1 with a limit error once it passed
 * (one 2^23-element row is ~23 passes of 2^23 items: ~1 s unpolled). */
static int sort_merge(sort_item *v, sort_item *tmp, int64_t n, bool fl,
                      bool desc, int64_t *since, sort_item **out,
                      tl_error *err)
{
    sort_item *a = v, *b = tmp;
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n;
            int64_t hi = lo + 2 * w < n ? lo + 2 * w : n;
            if (merge_runs(a, b, lo, mid, hi, fl, desc, since, err) < 0)
                return -1;
        }
        sort_item *t = a;
        a = b;
        b = t;
    }
    *out = a;
    return 0;
}

static int cpu_sort(const tl_backend *be, const tl_strided *vals,
                    const tl_strided *idx, const tl_strided *src, int dim,
                    bool descending, int64_t k, tl_error *err)
{
    (void)be;
    int nd = src->ndim;
    if (nd < 0 || nd > TL_MAX_DIMS || vals->ndim != nd || idx->ndim != nd ||
        (nd > 0 && (dim < 0 || dim >= nd)) || !dtype_ok(src->dtype) ||
        vals->dtype != src->dtype || !dtype_ok(idx->dtype))
        return bad_desc(err, "sort shape");
    int64_t n = nd ? src->sizes[dim] : 1;
    if (k < 0 || k > n || (nd && (vals->sizes[dim] != k || idx->sizes[dim] != k)))
        return bad_desc(err, "sort k");
    int64_t rows = 1;
    for (int d = 0; d < nd; d++) {
        if (d != dim && (vals->sizes[d] != src->sizes[d] ||
                         idx->sizes[d] != src->sizes[d]))
            return bad_desc(err, "sort sizes");
        if (d != dim)
            rows *= src->sizes[d];
    }
    if (n == 0 || rows == 0 || k == 0)
        return 0;
    size_t isz = tl_dtype_size(src->dtype);
    bool fl = tl_dtype_is_floating(src->dtype);
    int64_t ss = nd ? src->strides[dim] : 0, vs = nd ? vals->strides[dim] : 0;
    int64_t is = nd ? idx->strides[dim] : 0;
    /* the row and its merge buffer are working memory: on the ledger */
    size_t scratch = sizeof(sort_item) * (size_t)n * 2;
    if (tl_alloc_scratch_charge(scratch, err) < 0)
        return -1;
    sort_item *row = malloc(scratch);
    if (!row) {
        tl_alloc_scratch_release(scratch);
        return tl_error_set(err, TL_ERR_RUNTIME, "out of host memory");
    }
    int64_t since_check = 0;
    for (int64_t r = 0; r < rows; r++) {
        /* the row's base offsets: r in row-major order over dims != dim */
        int64_t rem = r, so = 0, vo = 0, io = 0;
        for (int d = nd - 1; d >= 0; d--) {
            if (d == dim)
                continue;
            int64_t i = rem % src->sizes[d];
            rem /= src->sizes[d];
            so += i * src->strides[d];
            vo += i * vals->strides[d];
            io += i * idx->strides[d];
        }
        const char *sp = (const char *)src->data + so * (int64_t)isz;
        int rc = 0;
        for (int64_t j = 0; j < n && rc == 0; j++) {
            const char *e = sp + j * ss * (int64_t)isz;
            row[j].pos = j;
            row[j].key = fl ? float_key(ldf[src->dtype](e)) : ldi[src->dtype](e);
            rc = poll_deadline(&since_check, 1, err);
        }
        sort_item *sorted = row;
        if (rc == 0)
            rc = sort_merge(row, row + n, n, fl, descending, &since_check,
                            &sorted, err);
        char *vp = (char *)vals->data + vo * (int64_t)isz;
        char *ip = (char *)idx->data + io * (int64_t)tl_dtype_size(idx->dtype);
        for (int64_t j = 0; j < k && rc == 0; j++) {
            memcpy(vp + j * vs * (int64_t)isz, sp + sorted[j].pos * ss * (int64_t)isz,
                   isz);
            sti[idx->dtype](ip + j * is * (int64_t)tl_dtype_size(idx->dtype),
                            sorted[j].pos);
            rc = poll_deadline(&since_check, 1, err);
        }
        if (rc == 0)
            rc = poll_deadline(&since_check, 1, err);
        if (rc < 0) {
            free(row);
            tl_alloc_scratch_release(scratch);
            return -1;
        }
    }
    free(row);
    tl_alloc_scratch_release(scratch);
    return 0;
}

/* ------------------------------------------------------------------------
 * The two backends
 * ---------------------------------------------------------------------- */

/* ------------------------------------------------------------------------
 * Cumulative sum / product (scan.c's cumsum, cumprod)
 * ---------------------------------------------------------------------- */

/* dst[..., j, ...] = src[..., 0, ...] (+ or *) ... src[..., j, ...] along
 * dim, sequentially, in PyTorch's CPU accumulate type (cpu_cum_base_kernel:
 * acc_type<T, false>): float for float16/bfloat16, double for float32 and
 * float64, int64 for the integers (wrapping), each partial result rounded
 * to the dtype when stored. dst and src have one dtype and shape and may be
 * the same memory (cumsum_). Polls the deadline every TL_DEADLINE_POLL
 * elements. */
static int cpu_scan(const tl_backend *be, bool prod, const tl_strided *dst,
                    const tl_strided *src, int dim, tl_error *err)
{
    (void)be;
    int nd = src->ndim;
    if (nd < 1 || nd > TL_MAX_DIMS || dst->ndim != nd || dim < 0 || dim >= nd ||
        !dtype_ok(src->dtype) || dst->dtype != src->dtype || src->dtype == TL_BOOL)
        return bad_desc(err, "scan");
    int64_t rows = 1;
    for (int d = 0; d < nd; d++) {
        if (dst->sizes[d] != src->sizes[d])
            return bad_desc(err, "scan sizes");
        if (d != dim)
            rows *= src->sizes[d];
    }
    int64_t n = src->sizes[dim];
    if (rows == 0 || n == 0)
        return 0;
    tl_dtype dt = src->dtype;
    size_t es = tl_dtype_size(dt);
    int64_t ss = src->strides[dim] * (int64_t)es, ds = dst->strides[dim] * (int64_t)es;
    int64_t coord[TL_MAX_DIMS] = {0};
    int64_t since = 0;
    for (int64_t r = 0; r < rows; r++) {
        int64_t so = 0, dof = 0;
        for (int d = 0; d < nd; d++) {
            so += coord[d] * src->strides[d];
            dof += coord[d] * dst->strides[d];
        }
        const char *sp = (const char *)src->data + so * (int64_t)es;
        char *dp = (char *)dst->data + dof * (int64_t)es;
        if (dt == TL_FLOAT16 || dt == TL_BFLOAT16) {
            float acc = prod ? 1.0f : 0.0f;
            for (int64_t j = 0; j < n; j++) {
                float v = (float)tl_dtype_load_f64(dt, sp + j * ss);
                acc = prod ? acc * v : acc + v;
                tl_dtype_store_f64(dt, dp + j * ds, (double)acc);
                if (poll_deadline(&since, 1, err) < 0)
                    return -1;
            }
        } else if (tl_dtype_is_floating(dt)) {
            double acc = prod ? 1.0 : 0.0;
            for (int64_t j = 0; j < n; j++) {
                double v = tl_dtype_load_f64(dt, sp + j * ss);
                acc = prod ? acc * v : acc + v;
                tl_dtype_store_f64(dt, dp + j * ds, acc);
                if (poll_deadline(&since, 1, err) < 0)
                    return -1;
            }
        } else {
            uint64_t acc = prod ? 1u : 0u;
            for (int64_t j = 0; j < n; j++) {
                uint64_t v = (uint64_t)tl_dtype_load_i64(dt, sp + j * ss);
                acc = prod ? acc * v : acc + v;
                tl_dtype_store_i64(dt, dp + j * ds, (int64_t)acc);
                if (poll_deadline(&since, 1, err) < 0)
                    return -1;
            }
        }
        for (int d = nd - 1; d >= 0; d--) {
            if (d == dim)
                continue;
            if (++coord[d] < src->sizes[d])
                break;
            coord[d] = 0;
        }
    }
    return 0;
}

static const tl_backend_ops cpu_ops = {
    .alloc_uninit = cpu_alloc_uninit,
    .gemm = cpu_gemm,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .to_host = cpu_memcpy,
    .from_host = cpu_memcpy,
    .copy_d2d = cpu_memcpy,
    .sync = NULL,       /* nothing is ever queued */
    .host_alloc = NULL, /* host memory is host memory: calloc */
    .host_free = NULL,
    .copy_strided = cpu_copy_strided,
    .fill = cpu_fill,
    .binary = cpu_binary,
    .unary = cpu_unary,
    .where = cpu_where,
    .gather = cpu_gather,
    .scatter = cpu_scatter,
    .reduce = cpu_reduce,
    .sort = cpu_sort,
    .scan = cpu_scan,
};

static const tl_backend cpu_backend = {
    .name = "cpu",
    .device = {TL_DEV_CPU, 0},
    .caps = TL_BACKEND_CAP_HOST_MEMORY,
    .ops = &cpu_ops,
    .ctx = NULL,
};


const tl_backend *tl_backend_cpu(void)
{
    return &cpu_backend;
}

