/* check_cpu_loops.c - the CPU backend's typed fast paths (cpu_loops.c)
 * against its generic kernels, on thousands of random layouts.
 *
 * Each case builds random operands (0-4 dims, sizes 0-9 and sometimes
 * 30-70 so the transpose tiles engage; permuted, gapped, broadcast (stride
 * 0) and offset sources; contiguous or permuted destinations; every dtype
 * pair; random bytes including NaN, infinities and values out of every
 * integer range), runs the backend entry once with the fast paths enabled
 * and once disabled, and compares the destination buffers byte for byte
 * (untouched bytes included; two NaNs of any payload count as equal).
 * Float sums and means compare bit for bit: the fast loops and the generic
 * kernel follow one order (reduce_order.h); long float32 runs, which that
 * order adds in float lanes (16 additions a lane, then double), stay within
 * a 16-addition float error bound of the double sum (reduce_long_f32).
 * gemm is compared with a double reference.
 *
 * Mutations tried while writing this test (each made it fail): merging
 * dims with the outer dim's size (`st[k][d] * size[m]`), the tile edge
 * off by one (`a0 + TILE_A <= na ... : na - 1`), F16C without the NaN
 * rewrite, and the row sum taking its column offset in bytes.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cpu_loops.h"
#include "dtype.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int64_t rndn(int64_t n)
{
    return n <= 0 ? 0 : (int64_t)(rnd() % (uint64_t)n);
}

typedef struct layout {
    int nd;
    int64_t size[6];
    int64_t st[6];
    int64_t offset;
    int64_t extent; /* elements the buffer needs */
} layout;

/* contiguous strides in a random dim order, with random gaps */
static void make_dense(layout *l, bool gaps)
{
    int perm[6];
    for (int d = 0; d < l->nd; d++)
        perm[d] = d;
    for (int d = l->nd - 1; d > 0; d--) {
        int j = (int)rndn(d + 1), t = perm[d];
        perm[d] = perm[j];
        perm[j] = t;
    }
    int64_t s = gaps && rndn(3) == 0 ? 2 : 1;
    for (int i = l->nd - 1; i >= 0; i--) {
        int d = perm[i];
        l->st[d] = s;
        s *= l->size[d] + (gaps && rndn(4) == 0 ? 1 : 0);
    }
    l->offset = gaps ? rndn(5) : 0;
}

static void finish(layout *l)
{
    int64_t e = l->offset + 1;
    for (int d = 0; d < l->nd; d++) {
        if (l->size[d] == 0)
            return (void)(l->extent = l->offset + 1);
        e += l->st[d] * (l->size[d] - 1);
    }
    l->extent = e;
}

static void random_shape(layout *l)
{
    l->nd = (int)rndn(5);
    for (int d = 0; d < l->nd; d++) {
        int64_t r = rndn(10);
        l->size[d] = r < 1 ? rndn(2) : r < 8 ? 1 + rndn(9) : 30 + rndn(41);
    }
    /* keep the element count modest */
    int64_t n = 1;
    for (int d = 0; d < l->nd; d++)
        n *= l->size[d] ? l->size[d] : 1;
    while (n > 40000 && l->nd > 0) {
        l->nd--;
        n = 1;
        for (int d = 0; d < l->nd; d++)
            n *= l->size[d] ? l->size[d] : 1;
    }
}

/* a source layout over dst's shape: dense permuted, gapped, broadcast */
static layout source_for(const layout *dst)
{
    layout s = *dst;
    make_dense(&s, true);
    for (int d = 0; d < s.nd; d++)
        if (rndn(6) == 0)
            s.st[d] = 0;
    finish(&s);
    return s;
}

static void fill_random(unsigned char *p, size_t n, tl_dtype dt)
{
    size_t isz = tl_dtype_size(dt);
    for (size_t i = 0; i + isz <= n; i += isz) {
        uint64_t r = rnd();
        switch (dt) {
        case TL_FLOAT32: {
            float v;
            int k = (int)(r % 8);
            v = k == 0 ? NAN : k == 1 ? INFINITY : k == 2 ? -3e9f
                : (float)((int64_t)(r >> 16) % 200000) / 7.0f;
            if (k == 3) { uint32_t b = (uint32_t)(r >> 20); memcpy(&v, &b, 4); }
            memcpy(p + i, &v, 4);
            break;
        }
        case TL_FLOAT64: {
            double v;
            int k = (int)(r % 8);
            v = k == 0 ? NAN : k == 1 ? -INFINITY : k == 2 ? 1e19
                : (double)((int64_t)(r >> 16) % 2000000) / 13.0;
            memcpy(p + i, &v, 8);
            break;
        }
        case TL_BOOL:
            p[i] = (unsigned char)(r % 2);
            break;
        default:
            memcpy(p + i, &r, isz);
            break;
        }
    }
}

static tl_strided desc(void *buf, tl_dtype dt, const layout *l)
{
    tl_strided s;
    s.data = (char *)buf + (size_t)l->offset * tl_dtype_size(dt);
    s.dtype = dt;
    s.ndim = l->nd;
    s.sizes = l->size;
    s.strides = l->st;
    return s;
}

static tl_error err0;

/* Byte comparison, NaN-aware for floating dtypes: two NaNs are equal
 * whatever their payloads (float <-> double round trips quiet signalling
 * NaNs in one path and not the other; no PyTorch result depends on it). */
static bool same_bytes(const unsigned char *x, const unsigned char *y,
                       size_t n, tl_dtype dt)
{
    if (!tl_dtype_is_floating(dt))
        return memcmp(x, y, n) == 0;
    size_t isz = tl_dtype_size(dt);
    for (size_t i = 0; i + isz <= n; i += isz) {
        if (memcmp(x + i, y + i, isz) == 0)
            continue;
        double a = tl_dtype_load_f64(dt, x + i), b = tl_dtype_load_f64(dt, y + i);
        if (!(isnan(a) && isnan(b)))
            return false;
    }
    return true;
}

/* Copies: the backend entry with the fast paths on and off, byte for byte.
 * Returns whether the fast path served the case (counted by the caller). */
static bool copy_case(int t)
{
    const tl_backend *be = tl_backend_cpu();
    layout dl;
    random_shape(&dl);
    make_dense(&dl, rndn(4) == 0);
    finish(&dl);
    layout sl = source_for(&dl);
    tl_dtype dd = (tl_dtype)rndn(TL_NDTYPES);
    tl_dtype sd = rndn(3) == 0 ? dd : (tl_dtype)rndn(TL_NDTYPES);
    size_t dn = (size_t)dl.extent * tl_dtype_size(dd);
    size_t sn = (size_t)sl.extent * tl_dtype_size(sd);
    unsigned char *src = malloc(sn), *d1 = malloc(dn), *d2 = malloc(dn),
                  *d3 = malloc(dn);
    fill_random(src, sn, sd);
    fill_random(d1, dn, dd);
    memcpy(d2, d1, dn);
    memcpy(d3, d1, dn);
    tl_strided s = desc(src, sd, &sl), a = desc(d1, dd, &dl),
               b = desc(d2, dd, &dl), c = desc(d3, dd, &dl);
    ck_assert_int_eq(tl_backend_copy_strided(be, &a, &s, &err0), 0);
    tl_cpu_loops_set_enabled(false);
    ck_assert_int_eq(tl_backend_copy_strided(be, &b, &s, &err0), 0);
    tl_cpu_loops_set_enabled(true);
    bool served = tl_cpu_loops_copy(&c, &s, &err0) == 1;
    ck_assert_msg(same_bytes(d1, d2, dn, dd),
                  "copy case %d: %s -> %s, %d dims: fast and generic differ",
                  t, tl_dtype_name(sd), tl_dtype_name(dd), dl.nd);
    free(src);
    free(d1);
    free(d2);
    free(d3);
    return served;
}

START_TEST(copy_random_layouts)
{
    int served = 0;
    for (int t = 0; t < 6000; t++)
        served += copy_case(t);
    /* most random layouts are ones the fast path takes */
    ck_assert_int_gt(served, 3000);
}
END_TEST

/* a transpose big enough for several tiles, every dtype pair */
START_TEST(copy_transpose_tiles)
{
    const tl_backend *be = tl_backend_cpu();
    for (int sd = 0; sd < TL_NDTYPES; sd++)
        for (int dd = 0; dd < TL_NDTYPES; dd++) {
            layout dl = {2, {67, 131}, {131, 1}, 0, 67 * 131};
            layout sl = {2, {67, 131}, {1, 67}, 0, 67 * 131};
            size_t dn = (size_t)dl.extent * tl_dtype_size((tl_dtype)dd);
            size_t sn = (size_t)sl.extent * tl_dtype_size((tl_dtype)sd);
            unsigned char *src = malloc(sn), *d1 = malloc(dn), *d2 = malloc(dn);
            fill_random(src, sn, (tl_dtype)sd);
            memset(d1, 0xa5, dn);
            memset(d2, 0xa5, dn);
            tl_strided s = desc(src, (tl_dtype)sd, &sl);
            tl_strided a = desc(d1, (tl_dtype)dd, &dl), b = desc(d2, (tl_dtype)dd, &dl);
            ck_assert_int_eq(tl_cpu_loops_copy(&a, &s, &err0), 1);
            tl_cpu_loops_set_enabled(false);
            ck_assert_int_eq(tl_backend_copy_strided(be, &b, &s, &err0), 0);
            tl_cpu_loops_set_enabled(true);
            ck_assert_msg(same_bytes(d1, d2, dn, (tl_dtype)dd), "transpose %s -> %s differs",
                          tl_dtype_name((tl_dtype)sd), tl_dtype_name((tl_dtype)dd));
            free(src);
            free(d1);
            free(d2);
        }
}
END_TEST

/* float32 -> float16 through F16C: every float16 boundary, NaN payloads */
START_TEST(f16_rounding_exact)
{
    enum { N = 1 << 16 };
    float *x = malloc(sizeof(float) * N * 4);
    uint16_t *h1 = malloc(2 * N * 4), *h2 = malloc(2 * N * 4);
    int64_t n = 0;
    for (uint32_t h = 0; h < N; h++) {
        float f = tl_f16_to_f32((uint16_t)h);
        uint32_t b;
        memcpy(&b, &f, 4);
        /* the value, its neighbours and the midpoints' neighbours */
        uint32_t v[4] = {b, b + 1, b - 1, b + (1u << 12)};
        for (int k = 0; k < 4; k++)
            memcpy(&x[n++], &v[k], 4);
    }
    int64_t sz = n, st = 1;
    tl_strided s = {x, TL_FLOAT32, 1, &sz, &st};
    tl_strided a = {h1, TL_FLOAT16, 1, &sz, &st}, b = {h2, TL_FLOAT16, 1, &sz, &st};
    ck_assert_int_eq(tl_cpu_loops_copy(&a, &s, &err0), 1);
    for (int64_t i = 0; i < n; i++)
        h2[i] = tl_f32_to_f16(x[i]);
    for (int64_t i = 0; i < n; i++)
        ck_assert_msg(h1[i] == h2[i], "f16(%a): fast 0x%04x, scalar 0x%04x",
                      (double)x[i], h1[i], h2[i]);
    (void)b;
    free(x);
    free(h1);
    free(h2);
}
END_TEST

START_TEST(binary_random_layouts)
{
    const tl_backend *be = tl_backend_cpu();
    static const tl_binop ops[] = {TL_BIN_ADD, TL_BIN_SUB, TL_BIN_MUL,
                                   TL_BIN_DIV, TL_BIN_MAXIMUM, TL_BIN_MINIMUM};
    static const tl_dtype dts[] = {TL_FLOAT32, TL_FLOAT64, TL_INT32, TL_INT64,
                                   TL_INT16, TL_FLOAT16};
    int served = 0;
    for (int t = 0; t < 4000; t++) {
        layout dl;
        random_shape(&dl);
        make_dense(&dl, rndn(4) == 0);
        finish(&dl);
        layout al = source_for(&dl), bl = source_for(&dl);
        tl_dtype dt = dts[rndn(6)];
        tl_binop op = ops[rndn(6)];
        if ((dt != TL_FLOAT32 && dt != TL_FLOAT64 && dt != TL_FLOAT16) &&
            (op == TL_BIN_DIV))
            op = TL_BIN_ADD; /* integer division by zero is the generic's */
        bool inplace = rndn(5) == 0;
        size_t isz = tl_dtype_size(dt);
        size_t dn = (size_t)dl.extent * isz;
        size_t an = (size_t)al.extent * isz, bn = (size_t)bl.extent * isz;
        unsigned char *A = malloc(an), *B = malloc(bn), *d1 = malloc(dn),
                      *d2 = malloc(dn), *d3 = malloc(dn);
        fill_random(A, an, dt);
        fill_random(B, bn, dt);
        fill_random(d1, dn, dt);
        memcpy(d2, d1, dn);
        memcpy(d3, d1, dn);
        tl_strided a = desc(A, dt, &al), b = desc(B, dt, &bl);
        tl_strided o1 = desc(d1, dt, &dl), o2 = desc(d2, dt, &dl), o3 = desc(d3, dt, &dl);
        tl_strided a1 = a, a2 = a, a3 = a;
        if (inplace) { a1 = o1; a2 = o2; a3 = o3; }
        ck_assert_int_eq(tl_backend_binary(be, op, dt, &o1, &a1, &b, &err0), 0);
        tl_cpu_loops_set_enabled(false);
        ck_assert_int_eq(tl_backend_binary(be, op, dt, &o2, &a2, &b, &err0), 0);
        tl_cpu_loops_set_enabled(true);
        served += tl_cpu_loops_binary(op, dt, &o3, &a3, &b, &err0) == 1;
        ck_assert_msg(same_bytes(d1, d2, dn, dt), "binary case %d (%s, op %d) differs",
                      t, tl_dtype_name(dt), (int)op);
        free(A);
        free(B);
        free(d1);
        free(d2);
        free(d3);
    }
    ck_assert_int_gt(served, 1500);
}
END_TEST

static double ulp_f32(double v)
{
    float f = (float)fabs(v);
    return (double)(nextafterf(f, INFINITY) - f);
}

START_TEST(reduce_random_layouts)
{
    const tl_backend *be = tl_backend_cpu();
    int served = 0;
    for (int t = 0; t < 3000; t++) {
        layout sl;
        random_shape(&sl);
        if (sl.nd == 0)
            continue;
        make_dense(&sl, rndn(3) == 0);
        for (int d = 0; d < sl.nd; d++)
            if (rndn(8) == 0)
                sl.st[d] = 0;
        finish(&sl);
        uint64_t mask = rnd() & ((1u << sl.nd) - 1);
        if (!mask)
            mask = 1;
        layout dl = sl;
        for (int d = 0; d < dl.nd; d++)
            if ((mask >> d) & 1)
                dl.size[d] = 1;
        make_dense(&dl, false);
        finish(&dl);
        tl_dtype dt = rndn(2) ? TL_FLOAT32 : TL_FLOAT64;
        tl_redop op = rndn(2) ? TL_RED_SUM : TL_RED_MEAN;
        size_t isz = tl_dtype_size(dt);
        size_t sn = (size_t)sl.extent * isz, dn = (size_t)dl.extent * isz;
        unsigned char *S = malloc(sn), *d1 = calloc(1, dn), *d2 = calloc(1, dn), *d3 = calloc(1, dn);
        /* finite values: sums of NaN/inf compare trivially */
        for (size_t i = 0; i < sn / isz; i++) {
            double v = (double)((int64_t)(rnd() >> 20) % 100000) / 37.0 - 1000.0;
            if (dt == TL_FLOAT32) { float f = (float)v; memcpy(S + i * 4, &f, 4); }
            else memcpy(S + i * 8, &v, 8);
        }
        tl_strided s = desc(S, dt, &sl);
        tl_strided o1 = desc(d1, dt, &dl), o2 = desc(d2, dt, &dl), o3 = desc(d3, dt, &dl);
        ck_assert_int_eq(tl_backend_reduce(be, op, dt, &o1, &s, mask, &err0), 0);
        tl_cpu_loops_set_enabled(false);
        ck_assert_int_eq(tl_backend_reduce(be, op, dt, &o2, &s, mask, &err0), 0);
        tl_cpu_loops_set_enabled(true);
        served += tl_cpu_loops_reduce(op, dt, &o3, &s, mask, &err0) == 1;
        for (size_t i = 0; i < dn / isz; i++) {
            double g, w;
            if (dt == TL_FLOAT32) {
                float f1, f2;
                memcpy(&f1, d1 + i * 4, 4);
                memcpy(&f2, d2 + i * 4, 4);
                g = f1;
                w = f2;
                ck_assert_msg(f1 == f2 || (isnan(g) && isnan(w)), "reduce f32 case %d: %.9g vs %.9g", t, g, w);
            } else {
                memcpy(&g, d1 + i * 8, 8);
                memcpy(&w, d2 + i * 8, 8);
                ck_assert_msg(g == w || (isnan(g) && isnan(w)), "reduce f64 case %d: %.17g vs %.17g", t, g, w);
            }
        }
        free(S);
        free(d1);
        free(d2);
        free(d3);
    }
    ck_assert_int_gt(served, 1000);
}
END_TEST

/* outer-dim sums wider than the row buffer, and long inner runs */
START_TEST(reduce_wide_rows)
{
    const tl_backend *be = tl_backend_cpu();
    static const int64_t shapes[][2] = {{5, 1300}, {3, 513}, {1000, 2}, {2, 70000},
                                        {3000, 45}, {63, 70}, {2049, 33}};
    for (int t = 0; t < 7; t++)
        for (int dim = 0; dim < 2; dim++) {
            layout sl = {2, {shapes[t][0], shapes[t][1]}, {shapes[t][1], 1}, 0, 0};
            finish(&sl);
            layout dl = sl;
            dl.size[dim] = 1;
            make_dense(&dl, false);
            finish(&dl);
            size_t sn = (size_t)sl.extent * 4, dn = (size_t)dl.extent * 4;
            float *S = malloc(sn);
            unsigned char *d1 = calloc(1, dn), *d2 = calloc(1, dn);
            for (size_t i = 0; i < sn / 4; i++)
                S[i] = (float)((int64_t)(rnd() >> 20) % 1000) / 8.0f;
            tl_strided s = desc(S, TL_FLOAT32, &sl);
            tl_strided o1 = desc(d1, TL_FLOAT32, &dl), o2 = desc(d2, TL_FLOAT32, &dl);
            ck_assert_int_eq(tl_cpu_loops_reduce(TL_RED_SUM, TL_FLOAT32, &o1, &s, 1u << dim, &err0), 1);
            tl_cpu_loops_set_enabled(false);
            ck_assert_int_eq(tl_backend_reduce(be, TL_RED_SUM, TL_FLOAT32, &o2, &s, 1u << dim, &err0), 0);
            tl_cpu_loops_set_enabled(true);
            for (size_t i = 0; i < dn / 4; i++) {
                float g, w;
                memcpy(&g, d1 + 4 * i, 4);
                memcpy(&w, d2 + 4 * i, 4);
                ck_assert_msg(g == w, "rows %lldx%lld dim %d [%zu]: %.9g vs %.9g",
                              (long long)shapes[t][0], (long long)shapes[t][1], dim, i, g, w);
            }
            free(S);
            free(d1);
            free(d2);
        }
}
END_TEST

/* long contiguous float32 runs with inexact values: the block sums in float
 * stay within 16 * 2^-24 of the sum of magnitudes of the double reference,
 * and a sum of 2^20 ones (all exact) is exact */
START_TEST(reduce_long_f32)
{
    static const int64_t lens[] = {1023, 1024, 1025, 4096 + 77, 100000, 1 << 20};
    for (size_t t = 0; t < sizeof lens / sizeof lens[0]; t++) {
        int64_t n = lens[t];
        float *S = malloc((size_t)n * 4);
        double ref = 0.0, mag = 0.0;
        for (int64_t i = 0; i < n; i++) {
            S[i] = (float)((double)((int64_t)(rnd() >> 20) % 100000) / 37.0 - 1000.0);
            ref += S[i];
            mag += fabs((double)S[i]);
        }
        layout sl = {1, {n}, {1}, 0, 0};
        finish(&sl);
        layout dl = sl;
        dl.size[0] = 1;
        make_dense(&dl, false);
        finish(&dl);
        float out = 0;
        tl_strided s = desc(S, TL_FLOAT32, &sl), o = desc(&out, TL_FLOAT32, &dl);
        ck_assert_int_eq(tl_cpu_loops_reduce(TL_RED_SUM, TL_FLOAT32, &o, &s, 1u, &err0), 1);
        double bound = 16.0 * 0x1p-24 * mag + ulp_f32((float)ref);
        ck_assert_msg(fabs((double)out - ref) <= bound, "n %lld: %.9g vs %.9g (bound %g)",
                      (long long)n, (double)out, ref, bound);
        for (int64_t i = 0; i < n; i++)
            S[i] = 1.0f;
        ck_assert_int_eq(tl_cpu_loops_reduce(TL_RED_SUM, TL_FLOAT32, &o, &s, 1u, &err0), 1);
        ck_assert_msg(out == (float)n, "ones: %g vs %lld", (double)out, (long long)n);
        free(S);
    }
}
END_TEST

START_TEST(index_select_random)
{
    const tl_backend *be = tl_backend_cpu();
    for (int t = 0; t < 500; t++) {
        int64_t n = 1 + rndn(300), ni = rndn(400);
        tl_dtype dt = (tl_dtype)rndn(TL_NDTYPES);
        size_t isz = tl_dtype_size(dt);
        int64_t ss = 1 + rndn(3), ds = 1;
        unsigned char *S = malloc((size_t)(n * ss) * isz);
        unsigned char *d1 = malloc((size_t)(ni + 1) * isz), *d2 = malloc((size_t)(ni + 1) * isz);
        int64_t *idx = malloc(sizeof(int64_t) * (size_t)(ni + 1));
        fill_random(S, (size_t)(n * ss) * isz, dt);
        memset(d1, 0x5a, (size_t)(ni + 1) * isz);
        memset(d2, 0x5a, (size_t)(ni + 1) * isz);
        for (int64_t k = 0; k < ni; k++)
            idx[k] = rndn(n);
        tl_strided s = {S, dt, 1, &n, &ss};
        tl_strided a = {d1, dt, 1, &ni, &ds}, b = {d2, dt, 1, &ni, &ds};
        ck_assert_int_eq(tl_backend_gather(be, &a, &s, 0, idx, ni, &err0), 0);
        tl_cpu_loops_set_enabled(false);
        ck_assert_int_eq(tl_backend_gather(be, &b, &s, 0, idx, ni, &err0), 0);
        tl_cpu_loops_set_enabled(true);
        ck_assert(memcmp(d1, d2, (size_t)(ni + 1) * isz) == 0);
        free(S);
        free(d1);
        free(d2);
        free(idx);
    }
}
END_TEST

START_TEST(gemm_against_reference)
{
    for (int t = 0; t < 300; t++) {
        int64_t m = 1 + rndn(t < 20 ? 300 : 40), k = rndn(t < 20 ? 300 : 40),
                n = 1 + rndn(t < 20 ? 300 : 40);
        tl_dtype dt = rndn(2) ? TL_FLOAT32 : TL_FLOAT64;
        bool at = rndn(2), bt = rndn(2);
        size_t isz = tl_dtype_size(dt);
        double *A = malloc(sizeof(double) * (size_t)(m * k + 1));
        double *B = malloc(sizeof(double) * (size_t)(k * n + 1));
        void *a = malloc(isz * (size_t)(m * k + 1)), *b = malloc(isz * (size_t)(k * n + 1));
        void *c = malloc(isz * (size_t)(m * n));
        for (int64_t i = 0; i < m * k; i++) A[i] = (double)((int64_t)(rnd() % 2001) - 1000) / 64.0;
        for (int64_t i = 0; i < k * n; i++) B[i] = (double)((int64_t)(rnd() % 2001) - 1000) / 64.0;
        for (int64_t i = 0; i < m * k; i++) {
            if (dt == TL_FLOAT32) ((float *)a)[i] = (float)A[i]; else ((double *)a)[i] = A[i];
        }
        for (int64_t i = 0; i < k * n; i++) {
            if (dt == TL_FLOAT32) ((float *)b)[i] = (float)B[i]; else ((double *)b)[i] = B[i];
        }
        /* A is (m, k) row-major or a transposed view of (k, m) storage */
        int64_t asz[2] = {m, k}, ast[2] = {at ? 1 : k, at ? m : 1};
        int64_t bsz[2] = {k, n}, bst[2] = {bt ? 1 : n, bt ? k : 1};
        int64_t csz[2] = {m, n}, cst[2] = {n, 1};
        tl_strided sa = {a, dt, 2, asz, ast}, sb = {b, dt, 2, bsz, bst}, sc = {c, dt, 2, csz, cst};
        ck_assert_int_eq(tl_cpu_loops_gemm(&sc, &sa, &sb, &err0), 1);
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double want = 0.0, mag = 0.0;
                for (int64_t p = 0; p < k; p++) {
                    double x = at ? A[p * m + i] : A[i * k + p];
                    double y = bt ? B[j * k + p] : B[p * n + j];
                    want += x * y;
                    mag += fabs(x * y);
                }
                double got = dt == TL_FLOAT32 ? ((float *)c)[i * n + j] : ((double *)c)[i * n + j];
                double tol = (dt == TL_FLOAT32 ? 1e-6 : 1e-14) * (mag + 1.0) * 4;
                ck_assert_msg(fabs(got - want) <= tol, "gemm %lldx%lldx%lld (%s) [%lld,%lld]: %.17g vs %.17g",
                              (long long)m, (long long)k, (long long)n, tl_dtype_name(dt),
                              (long long)i, (long long)j, got, want);
            }
        free(A);
        free(B);
        free(a);
        free(b);
        free(c);
    }
}
END_TEST

int main(void)
{
    tl_error_clear(&err0);
    Suite *s = suite_create("cpu_loops");
    TCase *tc = tcase_create("fast paths vs generic kernels");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, copy_random_layouts);
    tcase_add_test(tc, copy_transpose_tiles);
    tcase_add_test(tc, f16_rounding_exact);
    tcase_add_test(tc, binary_random_layouts);
    tcase_add_test(tc, reduce_random_layouts);
    tcase_add_test(tc, reduce_wide_rows);
    tcase_add_test(tc, reduce_long_f32);
    tcase_add_test(tc, index_select_random);
    tcase_add_test(tc, gemm_against_reference);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
