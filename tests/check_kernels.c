/* check_kernels.c - every kernel of the CUDA backend (cuda/kernels.h driven
 * by cuda/backend_gpu.c) against the CPU backend, on thousands of random
 * layouts: permuted, gapped, broadcast (stride 0), offset, empty and 0-d
 * operands, every dtype pair. Outputs are compared byte for byte over each
 * output buffer's whole span (gaps included: bytes a kernel must not touch
 * stay equal too), except that any NaN equals any NaN (which of two NaN
 * operands x86 returns depends on the compiler's operand order).
 * Transcendental unary ops (and pow/atan2) get a tolerance of
 * a few ulps only on a real GPU (--device cuda), whose libm differs; an
 * integer output of one (a kernel-level pairing: log2 computed in uint8)
 * may then differ by one, where the ulps cross an integer (seen on an
 * H200, 2026-12-04: log2 of uint8 8 stored 2, the CPU 3).
 *
 * Default: the host grid simulator (every run of make check). With
 * `--device cuda` the same cases run on the GPU (tests/gpu/run.sh); exit 77
 * when there is none. `--seed N` and `--cases N` vary the run.
 *
 * Scatter (duplicate indices included) and sort/topk (ties, NaN) compare
 * with the CPU backend's entries like every other kernel.
 *
 * Mutation check (done 2026-12-01 by hand on the simulator, then reverted;
 * default seed and case count): each edit makes this program fail.
 *   - An off-by-one in the dim-merge rule (cuda/backend_gpu.c merge_dims:
 *     `bs * (sz + 1)` for `bs * sz`, so a dim padded by one element merges):
 *       FAIL fill[int16]: output differs from the CPU at byte 12 (int16: gpu 102, cpu 42)
 *       ./tests/check_kernels: 8304 checks, 13 failed (simulator)
 *   - A wrong grid stride (cuda/kernels.h tl_k_stride: `g.bdim` for
 *     `g.bdim * g.gdim`; the values still come out right, elements are just
 *     written several times, so only the visit-once count sees it):
 *       FAIL binary[...]: cpu rc -1 (ZeroDivisionError), gpu rc -1 (CUDA error:
 *       simulator: an output element was not written exactly once ...)
 *       ./tests/check_kernels: 7676 checks, 568 failed (simulator)
 *   - float16 rounding half up instead of to even (tl_k_f32_to_f16:
 *     `rem >= 0x1000u`):
 *       FAIL where[float16]: output differs from the CPU at byte 40 (float16: gpu -3158, cpu -3156)
 *       ./tests/check_kernels: 8304 checks, 6 failed (simulator)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "backend_gpu.h"
#include "context.h"
#include "dev_sim.h"

#define MAXD 5

static const tl_backend *cpu, *gpu;
static bool real_gpu;
static int failures, checks;
static uint64_t rs = 0x1234567;

static uint64_t rnd(void)
{
    uint64_t z = (rs += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int64_t rint_(int64_t n) /* [0, n) */
{
    return n > 0 ? (int64_t)(rnd() % (uint64_t)n) : 0;
}

/* ---- operands: one buffer (host copy + device copy) and a layout */

typedef struct opnd {
    tl_dtype dt;
    int ndim;
    int64_t sizes[MAXD], strides[MAXD];
    int64_t offset;  /* elements */
    size_t nbytes;   /* whole buffer */
    unsigned char *host; /* CPU side (initial bytes, then the CPU's output) */
    void *dev;       /* GPU side */
} opnd;

static void random_value(tl_dtype dt, unsigned char *p)
{
    int r = (int)rint_(16);
    if (tl_dtype_is_floating(dt)) {
        static const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e30, -1e-30,
                                         65504.0, 70000.0, 3.0e38, 1e-8};
        double v;
        if (r == 0)
            v = NAN;
        else if (r == 1)
            v = r & 1 ? INFINITY : -INFINITY;
        else if (r < 6)
            v = special[rint_(12)];
        else if (r < 10)
            v = (double)(rint_(21) - 10);
        else
            v = ((double)rint_(1 << 20) - (1 << 19)) / 1024.0;
        tl_dtype_store_f64(dt, p, v);
    } else if (dt == TL_BOOL) {
        *p = (unsigned char)rint_(2);
    } else {
        int64_t v = r < 4 ? (int64_t)rnd() : r < 8 ? rint_(7) - 3 : rint_(200) - 100;
        if (r == 8)
            v = 0;
        tl_dtype_store_i64(dt, p, v);
    }
}

static void alloc_opnd(opnd *o, int64_t offset);

/* A random layout of shape (ndim, sizes): dims laid out in a random
 * order, with gaps, an offset, and (bcast) some dims broadcast. */
static void make_opnd(opnd *o, tl_dtype dt, int ndim, const int64_t *sizes, bool bcast)
{
    memset(o, 0, sizeof *o);
    o->dt = dt;
    o->ndim = ndim;
    int perm[MAXD];
    for (int i = 0; i < ndim; i++)
        perm[i] = i;
    if (rint_(3) != 0) /* 2/3 of the layouts are permuted */
        for (int i = ndim - 1; i > 0; i--) {
            int j = (int)rint_(i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
    int64_t acc = 1, maxoff = 0;
    bool empty = false;
    for (int q = ndim - 1; q >= 0; q--) {
        int d = perm[q];
        o->sizes[d] = sizes[d];
        if (sizes[d] == 0)
            empty = true;
        if (bcast && rint_(5) == 0) {
            o->strides[d] = 0;
            continue;
        }
        o->strides[d] = acc;
        /* gaps: a multiple of the extent, or a few padding elements */
        int64_t r = rint_(6);
        int64_t ext = (sizes[d] ? sizes[d] : 1) * acc;
        acc = r == 0 ? ext * (2 + rint_(2)) : r == 1 ? ext + 1 + rint_(2) : ext;
    }
    (void)empty;
    (void)maxoff;
    alloc_opnd(o, rint_(4));
}

/* o's buffer for its layout (dt, ndim, sizes, strides set; no negative
 * strides) starting `offset` elements in, random bytes, host and device */
static void alloc_opnd(opnd *o, int64_t offset)
{
    int64_t maxoff = 0;
    bool empty = false;
    for (int d = 0; d < o->ndim; d++) {
        if (o->sizes[d] > 0)
            maxoff += (o->sizes[d] - 1) * o->strides[d];
        else
            empty = true;
    }
    tl_dtype dt = o->dt;
    o->offset = offset;
    int64_t elems = o->offset + (empty ? 0 : maxoff) + 1 + rint_(3);
    size_t isz = tl_dtype_size(dt);
    o->nbytes = (size_t)elems * isz;
    o->host = malloc(o->nbytes);
    for (int64_t i = 0; i < elems; i++)
        random_value(dt, o->host + (size_t)i * isz);
    tl_error err = {0};
    if (tl_backend_alloc(gpu, o->nbytes, &o->dev, &err) < 0 ||
        tl_backend_from_host(gpu, o->dev, o->host, o->nbytes, &err) < 0) {
        fprintf(stderr, "FATAL: device allocation/upload failed: %s\n", err.msg);
        exit(99);
    }
}

static void free_opnd(opnd *o)
{
    free(o->host);
    tl_backend_free(gpu, o->dev);
}

static tl_strided view_of(const opnd *o, bool on_gpu)
{
    size_t isz = tl_dtype_size(o->dt);
    tl_strided s;
    s.data = (char *)(on_gpu ? o->dev : (void *)o->host) + (size_t)o->offset * isz;
    s.dtype = o->dt;
    s.ndim = o->ndim;
    s.sizes = o->sizes;
    s.strides = o->strides;
    return s;
}

static bool transcendental_unop(int op)
{
    return op != TL_UN_NEG && op != TL_UN_ABS && op != TL_UN_RELU && op != TL_UN_FLOOR &&
           op != TL_UN_CEIL && op != TL_UN_ROUND && op != TL_UN_TRUNC && op != TL_UN_FRAC &&
           op != TL_UN_SIGN && op != TL_UN_SQUARE && op != TL_UN_LOGICAL_NOT &&
           op != TL_UN_BITWISE_NOT && op != TL_UN_ISNAN && op != TL_UN_ISINF &&
           op != TL_UN_ISFINITE && op != TL_UN_IDENTITY && op != TL_UN_SQRT &&
           op != TL_UN_RECIPROCAL;
}

/* ulp distance of two values of a floating dtype (NaN == NaN) */
static bool close_ulps(tl_dtype dt, const unsigned char *a, const unsigned char *b, int ulps)
{
    double x = tl_dtype_load_f64(dt, a), y = tl_dtype_load_f64(dt, b);
    if (isnan(x) && isnan(y))
        return true;
    if (x == y)
        return true;
    if (isinf(x) || isinf(y) || isnan(x) || isnan(y))
        return false;
    double eps = dt == TL_FLOAT64 ? 0x1p-52 : dt == TL_FLOAT32 ? 0x1p-23 : dt == TL_FLOAT16 ? 0x1p-10 : 0x1p-7;
    double scale = fmax(fabs(x), fabs(y));
    return fabs(x - y) <= ulps * eps * scale || fabs(x - y) < 1e-300;
}

/* An integer output of a transcendental op computed in ct (a kernel-level
 * combination; PyTorch's own ops give these a floating result): the GPU's
 * libm may land a few ulps of ct on the other side of an integer, so the
 * stored integers may differ by one, or by those ulps at large magnitude. */
static bool close_int(tl_dtype dt, const unsigned char *a, const unsigned char *b, tl_dtype ct,
                      int ulps)
{
    double x = (double)tl_dtype_load_i64(dt, a), y = (double)tl_dtype_load_i64(dt, b);
    double eps = ct == TL_FLOAT32 ? 0x1p-23 : ct == TL_FLOAT16 ? 0x1p-10 : ct == TL_BFLOAT16 ? 0x1p-7 : 0x1p-52;
    return fabs(x - y) <= 1.0 + ulps * eps * fmax(fabs(x), fabs(y));
}

/* Compare the GPU's output buffer with the CPU's: byte for byte, or within
 * tol_ulps of ct (the op's compute dtype) for a transcendental op on a GPU */
static void compare_tol(const char *what, const opnd *o, int tol_ulps, tl_dtype ct)
{
    checks++;
    unsigned char *back = malloc(o->nbytes);
    tl_error err = {0};
    if (tl_backend_to_host(gpu, back, o->dev, o->nbytes, &err) < 0) {
        printf("FAIL %s: download: %s\n", what, err.msg);
        failures++;
        free(back);
        return;
    }
    size_t isz = tl_dtype_size(o->dt);
    for (size_t i = 0; i < o->nbytes; i += isz) {
        if (memcmp(back + i, o->host + i, isz) == 0)
            continue;
        /* NaN-aware: the sign and payload of a NaN made from two NaNs
         * depend on the operand order the compiler picked for a
         * commutative op (x86 returns the first), so any NaN equals any */
        if (tl_dtype_is_floating(o->dt) && isnan(tl_dtype_load_f64(o->dt, back + i)) &&
            isnan(tl_dtype_load_f64(o->dt, o->host + i)))
            continue;
        if (tol_ulps && tl_dtype_is_floating(o->dt) && close_ulps(o->dt, back + i, o->host + i, tol_ulps))
            continue;
        if (tol_ulps && !tl_dtype_is_floating(o->dt) && o->dt != TL_BOOL &&
            close_int(o->dt, back + i, o->host + i, ct, tol_ulps))
            continue;
        printf("FAIL %s: output differs from the CPU at byte %zu (%s: gpu %g, cpu %g)\n", what, i,
               tl_dtype_name(o->dt), tl_dtype_load_f64(o->dt, back + i),
               tl_dtype_load_f64(o->dt, o->host + i));
        failures++;
        break;
    }
    free(back);
}

static void compare(const char *what, const opnd *o, int tol_ulps)
{
    compare_tol(what, o, tol_ulps, TL_FLOAT64);
}

/* Both backends must agree on success, or fail with the same kind. */
static bool same_status(const char *what, int rc_cpu, const tl_error *ec, int rc_gpu,
                        const tl_error *eg)
{
    checks++;
    if (rc_cpu == rc_gpu && (rc_cpu == 0 || ec->kind == eg->kind))
        return rc_cpu == 0;
    printf("FAIL %s: cpu rc %d (%s), gpu rc %d (%s)\n", what, rc_cpu, rc_cpu ? ec->msg : "ok",
           rc_gpu, rc_gpu ? eg->msg : "ok");
    failures++;
    return false;
}

static void random_shape(int *ndim, int64_t *sizes, int64_t maxnumel)
{
    for (;;) {
        *ndim = (int)rint_(MAXD + 1);
        int64_t n = 1;
        for (int i = 0; i < *ndim; i++) {
            sizes[i] = rint_(12) == 0 ? 0 : 1 + rint_(rint_(2) ? 4 : 9);
            n *= sizes[i] ? sizes[i] : 1;
        }
        if (n <= maxnumel)
            return;
    }
}

static tl_dtype rdt(void)
{
    return (tl_dtype)rint_(TL_NDTYPES);
}

static char label[200];

/* ---- the kernels ---- */

static void case_copy(tl_dtype ddt, tl_dtype sdt)
{
    int nd;
    int64_t sz[MAXD];
    random_shape(&nd, sz, 2000);
    opnd d, s;
    make_opnd(&d, ddt, nd, sz, false);
    make_opnd(&s, sdt, nd, sz, true);
    tl_strided dc = view_of(&d, false), sc = view_of(&s, false);
    tl_strided dg = view_of(&d, true), sg = view_of(&s, true);
    tl_error ec = {0}, eg = {0};
    int rc = tl_backend_copy_strided(cpu, &dc, &sc, &ec);
    int rg = tl_backend_copy_strided(gpu, &dg, &sg, &eg);
    snprintf(label, sizeof label, "copy[%s<-%s, ndim %d]", tl_dtype_name(ddt), tl_dtype_name(sdt), nd);
    if (same_status(label, rc, &ec, rg, &eg))
        compare(label, &d, 0);
    free_opnd(&d);
    free_opnd(&s);
}

/* Copies in the layouts the device specialises (cuda/kernels_spec.h): a
 * transpose of the last two dims (x.t().contiguous(), NCHW -> NHWC), a
 * broadcast row, a dense last dim; sizes around the 4 x 4 tile and the
 * 4-element run, offsets that misalign the runs, every dtype. */
static void case_layout(void)
{
    static const tl_dtype fl[] = {TL_FLOAT16, TL_BFLOAT16, TL_FLOAT32, TL_FLOAT64};
    tl_dtype dt = rdt(), sdt = dt;
    if (rint_(3) == 0) { /* a conversion between floating dtypes */
        dt = fl[rint_(4)];
        sdt = dt == TL_FLOAT32 ? fl[rint_(4)] : TL_FLOAT32;
    }
    int kind = (int)rint_(3);
    int64_t outer = 1 + rint_(3), r = 1 + rint_(19), c = 1 + rint_(19);
    opnd d, s;
    memset(&d, 0, sizeof d);
    memset(&s, 0, sizeof s);
    d.dt = dt;
    s.dt = sdt;
    d.ndim = s.ndim = 3;
    d.sizes[0] = s.sizes[0] = outer;
    d.sizes[1] = s.sizes[1] = r;
    d.sizes[2] = s.sizes[2] = c;
    /* the destination: dense, or its rows padded */
    int64_t pad = rint_(3) == 0 ? rint_(5) : 0;
    d.strides[2] = 1;
    d.strides[1] = c + pad;
    d.strides[0] = r * (c + pad);
    const char *what;
    if (kind == 0) { /* the source is the transpose of a dense (outer, c, r) */
        int64_t spad = rint_(3) == 0 ? rint_(5) : 0;
        s.strides[1] = 1;
        s.strides[2] = r + spad;
        s.strides[0] = c * (r + spad);
        what = "transpose";
    } else if (kind == 1) { /* one row, expanded */
        s.strides[0] = 0;
        s.strides[1] = 0;
        s.strides[2] = 1;
        what = "broadcast";
    } else { /* every other row of a dense source */
        s.strides[2] = 1;
        s.strides[1] = 2 * c;
        s.strides[0] = 2 * c * r;
        what = "rows";
    }
    alloc_opnd(&d, rint_(2) ? 0 : rint_(4));
    alloc_opnd(&s, rint_(2) ? 0 : rint_(4));
    tl_strided dc = view_of(&d, false), sc = view_of(&s, false);
    tl_strided dg = view_of(&d, true), sg = view_of(&s, true);
    tl_error ec = {0}, eg = {0};
    int rc = tl_backend_copy_strided(cpu, &dc, &sc, &ec);
    int rg = tl_backend_copy_strided(gpu, &dg, &sg, &eg);
    snprintf(label, sizeof label, "copy %s[%s <- %s, %lld x %lld x %lld, offsets %lld %lld]",
             what, tl_dtype_name(dt), tl_dtype_name(sdt), (long long)outer, (long long)r, (long long)c,
             (long long)d.offset, (long long)s.offset);
    if (same_status(label, rc, &ec, rg, &eg))
        compare(label, &d, 0);
    free_opnd(&d);
    free_opnd(&s);
}

/* The divisor constants (kernels_spec.h) against the hardware divide: the
 * edges of every power of two, and random pairs, over [0, 2^31). */
static void check_divider(void)
{
    tl_kdesc d;
    memset(&d, 0, sizeof d);
    d.ndim = 1;
    d.n = 2147483647;
    d.fastdiv = 1;
    for (int rep = 0; rep < 20000; rep++) {
        uint32_t div = rep < 64 ? (uint32_t)(rep + 1)
                       : rep % 3 == 0 ? ((uint32_t)1 << rint_(31)) + (uint32_t)rint_(3) - 1
                       : (uint32_t)(1 + rint_(rint_(2) ? 2147483647 : 5000));
        if (div == 0 || div > 2147483647u)
            div = 1;
        d.sizes[0] = div;
        tl_k_divider(div, &d.dmag[0], &d.dshift[0]);
        checks++;
        for (int k = 0; k < 8; k++) {
            int64_t x = k == 0 ? 0 : k == 1 ? 2147483646 : k == 2 ? (int64_t)div - 1
                        : k == 3 ? (int64_t)div : k == 4 ? 2147483646 / div * div
                        : rint_(2147483647);
            int64_t rem, q = tl_k_divmod(&d, 0, x, &rem);
            if (q != x / div || rem != x % div) {
                printf("FAIL divider: %lld / %u gave %lld rem %lld\n", (long long)x, div,
                       (long long)q, (long long)rem);
                failures++;
                return;
            }
        }
    }
}

static void case_fill(void)
{
    int nd;
    int64_t sz[MAXD];
    random_shape(&nd, sz, 2000);
    opnd d;
    make_opnd(&d, rdt(), nd, sz, false);
    tl_scalar v;
    v.is_float = rint_(2);
    v.f = rint_(3) == 0 ? 0.0 : ((double)rint_(2000) - 1000) / 7.0;
    v.i = rint_(3) == 0 ? 0 : (int64_t)rnd();
    tl_strided dc = view_of(&d, false), dg = view_of(&d, true);
    tl_error ec = {0}, eg = {0};
    int rc = tl_backend_fill(cpu, &dc, v, &ec), rg = tl_backend_fill(gpu, &dg, v, &eg);
    snprintf(label, sizeof label, "fill[%s]", tl_dtype_name(d.dt));
    if (same_status(label, rc, &ec, rg, &eg))
        compare(label, &d, 0);
    free_opnd(&d);
}

/* one random binary op; all >= 0: every operand and the compute dtype
 * are `all` (the device's specialised float32/float64 loops) */
static void case_binary(int all)
{
    int nd;
    int64_t sz[MAXD];
    random_shape(&nd, sz, 1500);
    tl_binop op = (tl_binop)rint_(TL_NBINOPS);
    tl_dtype ct = all >= 0 ? (tl_dtype)all : rdt();
    tl_dtype odt = all >= 0 ? ct
                   : (op >= TL_BIN_EQ && op <= TL_BIN_LOGICAL_XOR && rint_(2)) ? TL_BOOL
                   : rint_(2) ? ct : rdt();
    opnd d, a, b;
    make_opnd(&d, odt, nd, sz, false);
    make_opnd(&a, all >= 0 || rint_(2) ? ct : rdt(), nd, sz, true);
    make_opnd(&b, all >= 0 || rint_(2) ? ct : rdt(), nd, sz, true);
    tl_strided dc = view_of(&d, false), ac = view_of(&a, false), bc = view_of(&b, false);
    tl_strided dg = view_of(&d, true), ag = view_of(&a, true), bg = view_of(&b, true);
    tl_error ec = {0}, eg = {0};
    int rc = tl_backend_binary(cpu, op, ct, &dc, &ac, &bc, &ec);
    int rg = tl_backend_binary(gpu, op, ct, &dg, &ag, &bg, &eg);
    snprintf(label, sizeof label, "binary[op %d, compute %s, %s = %s, %s, ndim %d]", (int)op,
             tl_dtype_name(ct), tl_dtype_name(odt), tl_dtype_name(a.dt), tl_dtype_name(b.dt), nd);
    bool tr = op == TL_BIN_POW || op == TL_BIN_ATAN2;
    if (same_status(label, rc, &ec, rg, &eg))
        compare_tol(label, &d, real_gpu && tr ? 4 : 0, ct);
    else if (rc && strstr(ec.msg, "_cpu") && !strstr(eg.msg, "_cuda")) {
        printf("FAIL %s: the device's error does not name its kernel: %s\n", label, eg.msg);
        failures++;
    }
    free_opnd(&d);
    free_opnd(&a);
    free_opnd(&b);
}

static void case_unary(void)
{
    int nd;
    int64_t sz[MAXD];
    random_shape(&nd, sz, 1500);
    tl_unop op = (tl_unop)rint_(TL_NUNOPS);
    tl_dtype ct = rdt();
    opnd d, s;
    make_opnd(&d, rint_(2) ? ct : rdt(), nd, sz, false);
    make_opnd(&s, rint_(2) ? ct : rdt(), nd, sz, true);
    tl_strided dc = view_of(&d, false), sc = view_of(&s, false);
    tl_strided dg = view_of(&d, true), sg = view_of(&s, true);
    tl_error ec = {0}, eg = {0};
    int rc = tl_backend_unary(cpu, op, ct, &dc, &sc, &ec);
    int rg = tl_backend_unary(gpu, op, ct, &dg, &sg, &eg);
    snprintf(label, sizeof label, "unary[op %d, compute %s, %s <- %s]", (int)op, tl_dtype_name(ct),
             tl_dtype_name(d.dt), tl_dtype_name(s.dt));
    if (same_status(label, rc, &ec, rg, &eg))
        compare_tol(label, &d, real_gpu && transcendental_unop(op) ? 4 : 0, ct);
    free_opnd(&d);
    free_opnd(&s);
}

static void case_where(void)
{
    int nd;
    int64_t sz[MAXD];
    random_shape(&nd, sz, 1500);
    opnd d, c, a, b;
    make_opnd(&d, rdt(), nd, sz, false);
    make_opnd(&c, rint_(3) ? TL_BOOL : rdt(), nd, sz, true);
    make_opnd(&a, rdt(), nd, sz, true);
    make_opnd(&b, rdt(), nd, sz, true);
    tl_strided v[8] = {view_of(&d, false), view_of(&c, false), view_of(&a, false), view_of(&b, false),
                       view_of(&d, true),  view_of(&c, true),  view_of(&a, true),  view_of(&b, true)};
    tl_error ec = {0}, eg = {0};
    int rc = tl_backend_where(cpu, &v[0], &v[1], &v[2], &v[3], &ec);
    int rg = tl_backend_where(gpu, &v[4], &v[5], &v[6], &v[7], &eg);
    snprintf(label, sizeof label, "where[%s]", tl_dtype_name(d.dt));
    if (same_status(label, rc, &ec, rg, &eg))
        compare(label, &d, 0);
    free_opnd(&d);
    free_opnd(&c);
    free_opnd(&a);
    free_opnd(&b);
}

static void case_gather(void)
{
    int nd;
    int64_t sz[MAXD];
    do
        random_shape(&nd, sz, 1500);
    while (nd == 0);
    int dim = (int)rint_(nd);
    int64_t nidx = rint_(7);
    int64_t idx[8];
    for (int64_t k = 0; k < nidx; k++)
        idx[k] = sz[dim] ? rint_(sz[dim]) : 0;
    if (sz[dim] == 0)
        nidx = 0;
    int64_t dsz[MAXD];
    memcpy(dsz, sz, sizeof dsz);
    dsz[dim] = nidx;
    opnd d, s;
    make_opnd(&d, rdt(), nd, dsz, false);
    make_opnd(&s, rint_(2) ? d.dt : rdt(), nd, sz, true);
    tl_strided dc = view_of(&d, false), sc = view_of(&s, false);
    tl_strided dg = view_of(&d, true), sg = view_of(&s, true);
    tl_error ec = {0}, eg = {0};
    int rc = tl_backend_gather(cpu, &dc, &sc, dim, idx, nidx, &ec);
    int rg = tl_backend_gather(gpu, &dg, &sg, dim, idx, nidx, &eg);
    snprintf(label, sizeof label, "gather[dim %d of %d, %lld indices]", dim, nd, (long long)nidx);
    if (same_status(label, rc, &ec, rg, &eg))
        compare(label, &d, 0);
    free_opnd(&d);
    free_opnd(&s);
}

static void case_reduce(bool big)
{
    int nd;
    int64_t sz[MAXD];
    if (big) {
        nd = 2;
        sz[0] = 1 + rint_(3);
        sz[1] = 4097 + rint_(6000);
        if (rint_(2)) {
            int64_t t = sz[0];
            sz[0] = sz[1];
            sz[1] = t;
        }
    } else {
        random_shape(&nd, sz, 1500);
    }
    /* the chunked cases take every op in turn, in float32, float64 and
     * a random compute dtype (a merge of max/min partials once added
     * instead of keeping the larger: a random op hid it at the default
     * seed) */
    static int nbig;
    int turn = big ? nbig++ : 0;
    tl_redop op = big ? (tl_redop)(turn % TL_NREDOPS) : (tl_redop)rint_(TL_NREDOPS);
    uint64_t mask = nd ? (rnd() & ((1u << nd) - 1)) : 0;
    if (big)
        mask = sz[0] > sz[1] ? 1 : 2;
    int64_t dsz[MAXD];
    for (int i = 0; i < nd; i++)
        dsz[i] = (mask >> i) & 1 ? 1 : sz[i];
    tl_dtype sdt = rdt();
    tl_dtype ct = (op == TL_RED_MEAN) ? (rint_(2) ? TL_FLOAT32 : TL_FLOAT64) : rint_(2) ? sdt : rdt();
    if (big && op != TL_RED_MEAN && turn / TL_NREDOPS % 3 < 2)
        ct = turn / TL_NREDOPS % 3 ? TL_FLOAT64 : TL_FLOAT32;
    tl_dtype odt = (op == TL_RED_ARGMAX || op == TL_RED_ARGMIN) ? TL_INT64
                   : (op == TL_RED_ALL || op == TL_RED_ANY) ? TL_BOOL : ct;
    opnd d, s;
    make_opnd(&d, odt, nd, dsz, false);
    make_opnd(&s, sdt, nd, sz, !big);
    tl_strided dc = view_of(&d, false), sc = view_of(&s, false);
    tl_strided dg = view_of(&d, true), sg = view_of(&s, true);
    tl_error ec = {0}, eg = {0};
    int rc = tl_backend_reduce(cpu, op, ct, &dc, &sc, mask, &ec);
    int rg = tl_backend_reduce(gpu, op, ct, &dg, &sg, mask, &eg);
    snprintf(label, sizeof label, "reduce[op %d, compute %s, %s -> %s, mask %llx, ndim %d%s]", (int)op,
             tl_dtype_name(ct), tl_dtype_name(sdt), tl_dtype_name(odt), (unsigned long long)mask, nd,
             big ? ", chunked" : "");
    if (same_status(label, rc, &ec, rg, &eg))
        compare(label, &d, 0);
    free_opnd(&d);
    free_opnd(&s);
}

/* copy and binary ops whose output overlaps an input in one buffer
 * (x[1:].copy_(x[:-1]), x[1:] += x[:-1], transposed): the device must give
 * the CPU's sequential answer */
static void case_overlap(void)
{
    int64_t len = 2 + rint_(40);
    int64_t ext = len + 8;
    opnd buf;
    make_opnd(&buf, rdt(), 1, &ext, false);
    /* two 2-d views (rows x cols) at offsets 0..3 with row stride r */
    int64_t rows = 1 + rint_(4), cols = 1 + rint_(4);
    int64_t sz[2] = {rows, cols};
    int64_t st_d[2], st_s[2];
    int64_t r = cols + rint_(2);
    bool t = rint_(2);
    st_d[0] = r;
    st_d[1] = 1;
    st_s[0] = t ? 1 : r;
    st_s[1] = t ? rows : 1;
    int64_t od = rint_(4), os = rint_(4);
    if (od + (rows - 1) * r + cols > ext || os + (rows - 1) * r + cols + rows > ext) {
        free_opnd(&buf);
        return;
    }
    size_t isz = tl_dtype_size(buf.dt);
    tl_strided dc = {buf.host + od * isz, buf.dt, 2, sz, st_d};
    tl_strided sc = {buf.host + os * isz, buf.dt, 2, sz, st_s};
    tl_strided dg = {(char *)buf.dev + od * isz, buf.dt, 2, sz, st_d};
    tl_strided sg = {(char *)buf.dev + os * isz, buf.dt, 2, sz, st_s};
    tl_error ec = {0}, eg = {0};
    int rc, rg;
    if (rint_(2)) {
        rc = tl_backend_copy_strided(cpu, &dc, &sc, &ec);
        rg = tl_backend_copy_strided(gpu, &dg, &sg, &eg);
    } else {
        rc = tl_backend_binary(cpu, TL_BIN_ADD, buf.dt, &dc, &dc, &sc, &ec);
        rg = tl_backend_binary(gpu, TL_BIN_ADD, buf.dt, &dg, &dg, &sg, &eg);
    }
    snprintf(label, sizeof label, "overlap[%s, dst +%lld, src +%lld%s]", tl_dtype_name(buf.dt),
             (long long)od, (long long)os, t ? ", transposed" : "");
    if (same_status(label, rc, &ec, rg, &eg))
        compare(label, &buf, 0);
    free_opnd(&buf);
}

/* scatter along a dim (index_copy_/index_add_), duplicates included */
static void case_scatter(void)
{
    int nd;
    int64_t sz[MAXD];
    do
        random_shape(&nd, sz, 600);
    while (nd == 0);
    int dim = (int)rint_(nd);
    int64_t nidx = sz[dim] ? rint_(8) : 0;
    int64_t idx[8];
    for (int64_t k = 0; k < nidx; k++)
        idx[k] = rint_(sz[dim]);
    int64_t ssz[MAXD];
    memcpy(ssz, sz, sizeof ssz);
    ssz[dim] = nidx;
    opnd d, v;
    make_opnd(&d, rdt(), nd, sz, false);
    make_opnd(&v, rint_(2) ? d.dt : rdt(), nd, ssz, true);
    tl_scatter_mode mode = (tl_scatter_mode)rint_(3); /* SET, ADD, MUL */
    tl_strided dc = view_of(&d, false), vc = view_of(&v, false);
    tl_strided dg = view_of(&d, true), vg = view_of(&v, true);
    tl_error ec = {0}, eg = {0};
    int rc = tl_backend_scatter(cpu, mode, &dc, &vc, dim, idx, nidx, &ec);
    int rg = tl_backend_scatter(gpu, mode, &dg, &vg, dim, idx, nidx, &eg);
    snprintf(label, sizeof label, "scatter[%s %s %s, dim %d of %d, %lld indices]",
             tl_dtype_name(d.dt), mode == TL_SCATTER_ADD ? "+=" : mode == TL_SCATTER_MUL ? "*=" : "=", tl_dtype_name(v.dt), dim, nd,
             (long long)nidx);
    if (same_status(label, rc, &ec, rg, &eg))
        compare(label, &d, 0);
    free_opnd(&d);
    free_opnd(&v);
}

static void case_sort(void)
{
    int nd;
    int64_t sz[MAXD];
    random_shape(&nd, sz, 600);
    int dim = nd ? (int)rint_(nd) : 0;
    int64_t len = nd ? sz[dim] : 1;
    int64_t k = rint_(2) ? len : rint_(len + 1);
    if (nd == 0)
        k = 1;
    bool desc = rint_(2);
    int64_t osz[MAXD];
    memcpy(osz, sz, sizeof osz);
    if (nd)
        osz[dim] = k;
    opnd s, v, ix;
    make_opnd(&s, rdt(), nd, sz, true);
    make_opnd(&v, s.dt, nd, osz, false);
    make_opnd(&ix, TL_INT64, nd, osz, false);
    tl_strided sc = view_of(&s, false), vc = view_of(&v, false), ic = view_of(&ix, false);
    tl_strided sg = view_of(&s, true), vg = view_of(&v, true), ig = view_of(&ix, true);
    tl_error ec = {0}, eg = {0};
    int rc = tl_backend_sort(cpu, &vc, &ic, &sc, dim, desc, k, &ec);
    int rg = tl_backend_sort(gpu, &vg, &ig, &sg, dim, desc, k, &eg);
    snprintf(label, sizeof label, "sort[%s, dim %d of %d, k %lld of %lld, %s]", tl_dtype_name(s.dt),
             dim, nd, (long long)k, (long long)len, desc ? "descending" : "ascending");
    if (same_status(label, rc, &ec, rg, &eg)) {
        compare(label, &v, 0);
        compare(label, &ix, 0);
    }
    free_opnd(&s);
    free_opnd(&v);
    free_opnd(&ix);
}

/* A sort whose rows are long enough that the simulator runs each thread's
 * grid-stride loop in several slices between deadline polls (cuda/dev_sim.c:
 * 65536 units a slice, a sort item costing its row length): every thread
 * must still take exactly its own items, in every slice. */
static void case_sort_sliced(bool desc)
{
    int64_t sz[2] = {6, 3000}, osz[2] = {6, 3000};
    opnd s, v, ix;
    make_opnd(&s, TL_FLOAT32, 2, sz, true);
    make_opnd(&v, s.dt, 2, osz, false);
    make_opnd(&ix, TL_INT64, 2, osz, false);
    tl_strided sc = view_of(&s, false), vc = view_of(&v, false), ic = view_of(&ix, false);
    tl_strided sg = view_of(&s, true), vg = view_of(&v, true), ig = view_of(&ix, true);
    tl_error ec = {0}, eg = {0};
    int rc = tl_backend_sort(cpu, &vc, &ic, &sc, 1, desc, 3000, &ec);
    int rg = tl_backend_sort(gpu, &vg, &ig, &sg, 1, desc, 3000, &eg);
    snprintf(label, sizeof label, "sort[float32, rows of 3000 (sliced launch), %s]",
             desc ? "descending" : "ascending");
    if (same_status(label, rc, &ec, rg, &eg)) {
        compare(label, &v, 0);
        compare(label, &ix, 0);
    }
    free_opnd(&s);
    free_opnd(&v);
    free_opnd(&ix);
}

/* ---- device properties the kernels rely on ---- */

static void check_device_basics(void)
{
    checks++;
    void *p = NULL;
    tl_error aerr = {0};
    if (tl_backend_alloc(gpu, 16, &p, &aerr) < 0 || !p) {
        printf("FAIL alloc(16) returned NULL\n");
        failures++;
        return;
    }
    const tl_dev *dev = tl_gpu_backend_dev(gpu);
    if (!real_gpu && !tl_dev_sim_is_device(p)) {
        printf("FAIL simulator address %p lacks the device tag (bit 47)\n", p);
        failures++;
    }
    if (dev->ptr_kind(p) != 1) {
        printf("FAIL the device does not see its own allocation as device memory\n");
        failures++;
    }
    unsigned char z[16];
    memset(z, 0xff, sizeof z);
    tl_error err = {0};
    tl_backend_to_host(gpu, z, p, 16, &err);
    for (int i = 0; i < 16; i++)
        if (z[i]) {
            printf("FAIL alloc is not zeroed\n");
            failures++;
            break;
        }
    tl_backend_free(gpu, p);
}

int main(int argc, char **argv)
{
    int cases = 1000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc && !strcmp(argv[i + 1], "cuda")) {
            real_gpu = true;
            i++;
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            rs = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--cases") && i + 1 < argc) {
            cases = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: check_kernels [--device cuda] [--seed N] [--cases N]\n");
            return 2;
        }
    }
    cpu = tl_backend_cpu();
    gpu = real_gpu ? tl_gpu_backend_cuda() : tl_gpu_backend_sim();
    if (!gpu) {
        printf("SKIP: no usable GPU\n");
        return 77;
    }
    check_device_basics();
    check_divider();
    case_sort_sliced(false);
    case_sort_sliced(true);
    /* every dtype pair of copies, several layouts each */
    for (int rep = 0; rep < (cases + 99) / 100; rep++)
        for (int a = 0; a < TL_NDTYPES; a++)
            for (int b = 0; b < TL_NDTYPES; b++)
                case_copy((tl_dtype)a, (tl_dtype)b);
    for (int i = 0; i < cases; i++) {
        case_fill();
        case_binary(-1);
        case_binary(-1);
        if (i % 4 == 0)
            case_binary(i % 8 ? TL_FLOAT32 : TL_FLOAT64);
        if (i % 2 == 0)
            case_layout();
        case_unary();
        case_where();
        case_gather();
        case_reduce(false);
        case_scatter();
        case_sort();
        case_overlap();
        if (i % 20 == 0)
            case_reduce(true);
    }
    /* the cases reached every specialised loop and the divisors (at the
     * default count and above: a short run may miss a rare one) */
    static const char *const spec_names[] = {"generic", "mov", "vec", "tile", "bin32", "bin64",
        "float16 <- float32", "float32 <- float16", "bfloat16 <- float32", "float32 <- bfloat16",
        "float32 <- float64", "float64 <- float32"};
    for (int sp = TL_KSPEC_MOV; sp <= TL_KSPEC_LAST + 1 && !real_gpu && cases >= 1000; sp++) {
        int which = sp > TL_KSPEC_LAST ? TL_DEV_SIM_FASTDIV : sp;
        int64_t n = tl_dev_sim_launches(which);
        checks++;
        if (n < 10) {
            printf("FAIL only %lld launches ran the %s loop\n", (long long)n,
                   which < 0 ? "divisor" : spec_names[sp]);
            failures++;
        }
    }
    printf("%s: %d checks, %d failed (%s)\n", argv[0], checks, failures,
           real_gpu ? "GPU" : "simulator");
    return failures ? 1 : 0;
}
