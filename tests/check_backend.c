/* check_backend.c - unit tests of the backend interface (backend.h), run
 * once per registered backend (tl_backend_registry: the CPU, the emulated
 * CUDA device, the real GPU where one opened): strided and broadcast
 * iteration, every op family on small cases whose values were measured
 * with torch 1.13.1, scatter and sort, reductions, numel-0 cases, and the
 * per-thread transfer counters.
 *
 * Operands are plain C arrays described by tl_strided. On a backend whose
 * memory the host may not touch, the t_* shims below stage each operand's
 * span on the device (from_host), run the entry, and bring the output back
 * (to_host), so the same test bodies check every backend through the
 * interface only. Kernel names in error texts follow the device.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "backend_impl.h"
#include "index.h"
#include "ops.h"
#include "tensor.h"
#include "view.h"

#define MAX_BACKENDS 8
static const tl_backend *backends[MAX_BACKENDS];
static int nbackends;
static const tl_backend *be; /* the backend of the running test */

static void setup(void)
{
    tl_backend_counters_reset();
}

/* PyTorch's "\"NAME_cpu\" not implemented for 'T'" on this backend's device */
static const char *not_impl(const char *name, const char *type)
{
    static char buf[128];
    snprintf(buf, sizeof buf, "\"%s_%s\" not implemented for '%s'", name,
             tl_backend_device(be).kind == TL_DEV_CUDA ? "cuda" : "cpu", type);
    return buf;
}

/* ---- staging shims: host operands on any backend ---- */

typedef struct stage {
    char *host;  /* the host span's first byte */
    void *dev;   /* device block holding the span; NULL: not staged */
    size_t bytes;
} stage;

/* The operand h as the backend sees it: h itself on host memory, else a
 * device copy of its span [lo, hi] (elements, relative to h->data). */
static tl_strided up(const tl_strided *h, stage *st)
{
    memset(st, 0, sizeof *st);
    if (tl_backend_host_accessible(be) || !h->data)
        return *h;
    int64_t lo = 0, hi = 0;
    for (int d = 0; d < h->ndim; d++) {
        if (h->sizes[d] == 0)
            return *h; /* empty: nothing to address */
        int64_t ext = (h->sizes[d] - 1) * h->strides[d];
        if (ext < 0)
            lo += ext;
        else
            hi += ext;
    }
    size_t isz = tl_dtype_size(h->dtype);
    st->host = (char *)h->data + lo * (int64_t)isz;
    st->bytes = (size_t)(hi - lo + 1) * isz;
    tl_error err = {0};
    ck_assert_int_eq(tl_backend_alloc(be, st->bytes, &st->dev, &err), 0);
    ck_assert_int_eq(tl_backend_from_host(be, st->dev, st->host, st->bytes, &err), 0);
    tl_strided d = *h;
    d.data = (char *)st->dev - lo * (int64_t)isz;
    return d;
}

/* Back to the host (write = true: the operand was an output), freed. */
static void down(stage *st, bool write)
{
    if (!st->dev)
        return;
    tl_error err = {0};
    if (write)
        ck_assert_int_eq(tl_backend_to_host(be, st->host, st->dev, st->bytes, &err), 0);
    tl_backend_free(be, st->dev);
}

static int t_copy_strided(const tl_strided *dst, const tl_strided *src, tl_error *err)
{
    stage a, b;
    tl_strided d = up(dst, &a), s = up(src, &b);
    int rc = tl_backend_copy_strided(be, &d, &s, err);
    down(&a, true);
    down(&b, false);
    return rc;
}

static int t_fill(const tl_strided *dst, tl_scalar v, tl_error *err)
{
    stage a;
    tl_strided d = up(dst, &a);
    int rc = tl_backend_fill(be, &d, v, err);
    down(&a, true);
    return rc;
}

static int t_binary(tl_binop op, tl_dtype ct, const tl_strided *dst,
                    const tl_strided *x, const tl_strided *y, tl_error *err)
{
    stage a, b, c;
    tl_strided d = up(dst, &a), sx = up(x, &b), sy = up(y, &c);
    int rc = tl_backend_binary(be, op, ct, &d, &sx, &sy, err);
    down(&a, true);
    down(&b, false);
    down(&c, false);
    return rc;
}

static int t_unary(tl_unop op, tl_dtype ct, const tl_strided *dst,
                   const tl_strided *x, tl_error *err)
{
    stage a, b;
    tl_strided d = up(dst, &a), sx = up(x, &b);
    int rc = tl_backend_unary(be, op, ct, &d, &sx, err);
    down(&a, true);
    down(&b, false);
    return rc;
}

static int t_where(const tl_strided *dst, const tl_strided *cond,
                   const tl_strided *x, const tl_strided *y, tl_error *err)
{
    stage a, b, c, e;
    tl_strided d = up(dst, &a), sc = up(cond, &b), sx = up(x, &c), sy = up(y, &e);
    int rc = tl_backend_where(be, &d, &sc, &sx, &sy, err);
    down(&a, true);
    down(&b, false);
    down(&c, false);
    down(&e, false);
    return rc;
}

static int t_gather(const tl_strided *dst, const tl_strided *src, int dim,
                    const int64_t *index, int64_t n, tl_error *err)
{
    stage a, b;
    tl_strided d = up(dst, &a), s = up(src, &b);
    int rc = tl_backend_gather(be, &d, &s, dim, index, n, err);
    down(&a, true);
    down(&b, false);
    return rc;
}

static int t_scatter(tl_scatter_mode mode, const tl_strided *dst,
                     const tl_strided *src, int dim, const int64_t *index,
                     int64_t n, tl_error *err)
{
    stage a, b;
    tl_strided d = up(dst, &a), s = up(src, &b);
    int rc = tl_backend_scatter(be, mode, &d, &s, dim, index, n, err);
    down(&a, true);
    down(&b, false);
    return rc;
}

static int t_reduce(tl_redop op, tl_dtype ct, const tl_strided *dst,
                    const tl_strided *src, uint64_t mask, tl_error *err)
{
    stage a, b;
    tl_strided d = up(dst, &a), s = up(src, &b);
    int rc = tl_backend_reduce(be, op, ct, &d, &s, mask, err);
    down(&a, true);
    down(&b, false);
    return rc;
}

static int t_sort(const tl_strided *vals, const tl_strided *idx,
                  const tl_strided *src, int dim, bool desc, int64_t k,
                  tl_error *err)
{
    stage a, b, c;
    tl_strided v = up(vals, &a), i = up(idx, &b), s = up(src, &c);
    int rc = tl_backend_sort(be, &v, &i, &s, dim, desc, k, err);
    down(&a, true);
    down(&b, true);
    down(&c, false);
    return rc;
}

static int t_scan(bool prod, const tl_strided *dst, const tl_strided *src,
                  int dim, tl_error *err)
{
    stage a, b;
    tl_strided d = up(dst, &a), s = up(src, &b);
    int rc = tl_backend_scan(be, prod, &d, &s, dim, err);
    down(&a, true);
    down(&b, false);
    return rc;
}

static tl_strided desc(void *data, tl_dtype dt, int ndim, const int64_t *sizes,
                       const int64_t *strides)
{
    tl_strided s = {data, dt, ndim, sizes, strides};
    return s;
}

/* ---- core ---- */

/* ---- a remote test backend ----
 * A device whose memory the host must not touch (its pointers carry bit 47,
 * non-canonical on x86-64: a host dereference faults) and which implements
 * only the required entries, by untagging the descriptors and running the
 * CPU kernels. It checks that the shims above and the dispatcher's host
 * fallbacks of the optional entries (copy_d2d, sync, host_alloc, gather,
 * scatter, sort) go through the interface only. */

#define TAG ((uintptr_t)1 << 47)

static void *untag(const void *p)
{
    return p ? (void *)((uintptr_t)p - TAG) : NULL;
}

static tl_strided plain(const tl_strided *t)
{
    tl_strided r = *t;
    r.data = untag(t->data);
    return r;
}

static const tl_backend_ops *cpu_ops(void)
{
    return tl_backend_cpu()->ops;
}

static int r_alloc(const tl_backend *b, size_t n, void **out, tl_error *err)
{
    if (cpu_ops()->alloc(b, n, out, err) < 0)
        return -1;
    if (*out)
        *out = (void *)((uintptr_t)*out + TAG);
    return 0;
}

static void r_free(const tl_backend *b, void *p)
{
    cpu_ops()->free(b, untag(p));
}

static int r_to_host(const tl_backend *b, void *h, const void *d, size_t n, tl_error *err)
{
    (void)b;
    (void)err;
    memcpy(h, untag(d), n);
    return 0;
}

static int r_from_host(const tl_backend *b, void *d, const void *h, size_t n, tl_error *err)
{
    (void)b;
    (void)err;
    memcpy(untag(d), h, n);
    return 0;
}

static int r_copy(const tl_backend *b, const tl_strided *d, const tl_strided *s, tl_error *err)
{
    tl_strided pd = plain(d), ps = plain(s);
    return cpu_ops()->copy_strided(b, &pd, &ps, err);
}

static int r_fill(const tl_backend *b, const tl_strided *d, tl_scalar v, tl_error *err)
{
    tl_strided pd = plain(d);
    return cpu_ops()->fill(b, &pd, v, err);
}

static int r_binary(const tl_backend *b, tl_binop op, tl_dtype ct, const tl_strided *d,
                    const tl_strided *x, const tl_strided *y, tl_error *err)
{
    tl_strided pd = plain(d), px = plain(x), py = plain(y);
    return cpu_ops()->binary(b, op, ct, &pd, &px, &py, err);
}

static int r_unary(const tl_backend *b, tl_unop op, tl_dtype ct, const tl_strided *d,
                   const tl_strided *x, tl_error *err)
{
    tl_strided pd = plain(d), px = plain(x);
    return cpu_ops()->unary(b, op, ct, &pd, &px, err);
}

static int r_where(const tl_backend *b, const tl_strided *d, const tl_strided *c,
                   const tl_strided *x, const tl_strided *y, tl_error *err)
{
    tl_strided pd = plain(d), pc = plain(c), px = plain(x), py = plain(y);
    return cpu_ops()->where(b, &pd, &pc, &px, &py, err);
}

static int r_reduce(const tl_backend *b, tl_redop op, tl_dtype ct, const tl_strided *d,
                    const tl_strided *x, uint64_t mask, tl_error *err)
{
    tl_strided pd = plain(d), px = plain(x);
    return cpu_ops()->reduce(b, op, ct, &pd, &px, mask, err);
}

static const tl_backend_ops remote_ops = {
    .alloc = r_alloc, .free = r_free, .to_host = r_to_host, .from_host = r_from_host,
    .copy_strided = r_copy, .fill = r_fill, .binary = r_binary, .unary = r_unary,
    .where = r_where, .reduce = r_reduce,
    /* copy_d2d, sync, host_alloc, host_free, gather, scatter, sort: NULL */
};

static const tl_backend remote_backend = {
    .name = "test-remote", .device = {TL_DEV_CUDA, 0}, .caps = 0,
    .ops = &remote_ops, .ctx = NULL,
};

START_TEST(test_identity)
{
    be = backends[_i];
    /* the registry: the CPU first, then the cuda devices */
    ck_assert_int_ge(nbackends, 2);
    ck_assert_ptr_eq(backends[0], tl_backend_cpu());
    ck_assert_ptr_eq(backends[1], tl_backend_cuda_emulated());
    ck_assert_str_eq(tl_backend_name(tl_backend_cpu()), "cpu");
    ck_assert_int_eq(tl_backend_device(tl_backend_cpu()).kind, TL_DEV_CPU);
    ck_assert(tl_backend_host_accessible(tl_backend_cpu()));
    const tl_backend *emu = tl_backend_cuda_emulated();
    ck_assert_str_eq(tl_backend_name(emu), "cuda-emulated");
    ck_assert_int_eq(tl_backend_device(emu).kind, TL_DEV_CUDA);
    ck_assert_int_eq(tl_backend_device(emu).index, 0);
    ck_assert_ptr_ne(emu, tl_backend_cpu());
    /* a CPU-kind backend is host memory */
    if (tl_backend_device(be).kind == TL_DEV_CPU)
        ck_assert(tl_backend_host_accessible(be));
    /* alloc is zeroed; 0 bytes is NULL and no error */
    tl_error err = {0};
    void *p = NULL, *q = NULL;
    ck_assert_int_eq(tl_backend_alloc(be, 0, &p, &err), 0);
    ck_assert_ptr_null(p);
    ck_assert_int_eq(tl_backend_alloc(be, 64, &p, &err), 0);
    ck_assert_ptr_nonnull(p);
    unsigned char back[64];
    memset(back, 0xff, sizeof back);
    ck_assert_int_eq(tl_backend_to_host(be, back, p, 64, &err), 0);
    for (int i = 0; i < 64; i++)
        ck_assert_uint_eq(back[i], 0);
    /* host -> device -> device -> host */
    unsigned char h[4] = {1, 2, 3, 4};
    ck_assert_int_eq(tl_backend_from_host(be, p, h, 4, &err), 0);
    ck_assert_int_eq(tl_backend_alloc(be, 8, &q, &err), 0);
    ck_assert_int_eq(tl_backend_copy_d2d(be, (char *)q + 2, p, 4, &err), 0);
    ck_assert_int_eq(tl_backend_sync(be, &err), 0);
    unsigned char b8[8];
    ck_assert_int_eq(tl_backend_to_host(be, b8, q, 8, &err), 0);
    unsigned char want[8] = {0, 0, 1, 2, 3, 4, 0, 0};
    ck_assert_mem_eq(b8, want, 8);
    tl_backend_free(be, p);
    tl_backend_free(be, q);
    tl_backend_free(be, NULL);
    /* staging memory: zeroed host memory, pinned or not */
    unsigned char *hp = NULL;
    ck_assert_int_eq(tl_backend_host_alloc(be, 32, (void **)&hp, &err), 0);
    for (int i = 0; i < 32; i++)
        ck_assert_uint_eq(hp[i], 0);
    hp[31] = 1; /* host-writable */
    tl_backend_host_free(be, hp);
    /* the counters saw exactly these transfers */
    tl_backend_counters c = tl_backend_counters_get(tl_backend_device(be).kind);
    ck_assert_uint_eq(c.h2d_bytes, 4);
    ck_assert_uint_eq(c.d2h_bytes, 64 + 8);
    ck_assert_uint_eq(c.d2d_bytes, 4);
}
END_TEST

START_TEST(test_copy_transpose)
{
    be = backends[_i];
    /* src = [[0,1,2],[3,4,5]] viewed transposed (3,2)/(1,3) -> contiguous */
    float src[6] = {0, 1, 2, 3, 4, 5};
    float dst[6] = {0};
    int64_t sz[2] = {3, 2}, sst[2] = {1, 3}, dstr[2] = {2, 1};
    tl_strided d = desc(dst, TL_FLOAT32, 2, sz, dstr);
    tl_strided s = desc(src, TL_FLOAT32, 2, sz, sst);
    tl_error err = {0};
    ck_assert_int_eq(t_copy_strided(&d, &s, &err), 0);
    float want[6] = {0, 3, 1, 4, 2, 5};
    for (int i = 0; i < 6; i++)
        ck_assert(dst[i] == want[i]);
}
END_TEST

START_TEST(test_copy_broadcast_convert)
{
    be = backends[_i];
    /* int64 row (3) broadcast to (2,3) and converted to float64 */
    int64_t src[3] = {7, -8, 9};
    double dst[6] = {0};
    int64_t sz[2] = {2, 3}, sst[2] = {0, 1}, dstr[2] = {3, 1};
    tl_strided d = desc(dst, TL_FLOAT64, 2, sz, dstr);
    tl_strided s = desc(src, TL_INT64, 2, sz, sst);
    tl_error err = {0};
    ck_assert_int_eq(t_copy_strided(&d, &s, &err), 0);
    double want[6] = {7, -8, 9, 7, -8, 9};
    for (int i = 0; i < 6; i++)
        ck_assert(dst[i] == want[i]);
    /* float -> uint8 with torch's truncate-and-wrap (300.7 -> 44) */
    float fs[4] = {300.7f, -2.9f, 2.9f, NAN};
    uint8_t u[4];
    int64_t n4[1] = {4}, one[1] = {1};
    tl_strided du = desc(u, TL_UINT8, 1, n4, one);
    tl_strided sf = desc(fs, TL_FLOAT32, 1, n4, one);
    ck_assert_int_eq(t_copy_strided(&du, &sf, &err), 0);
    ck_assert_uint_eq(u[0], 44);
    ck_assert_uint_eq(u[1], 254);
    ck_assert_uint_eq(u[2], 2);
    ck_assert_uint_eq(u[3], 0);
}
END_TEST

START_TEST(test_fill_strided)
{
    be = backends[_i];
    int32_t buf[12] = {0};
    /* every other column of a (3,4): sizes (3,2) strides (4,2) */
    int64_t sz[2] = {3, 2}, st[2] = {4, 2};
    tl_strided d = desc(buf, TL_INT32, 2, sz, st);
    tl_error err = {0};
    tl_scalar v = {.is_float = true, .f = 2.7};
    ck_assert_int_eq(t_fill(&d, v, &err), 0);
    for (int i = 0; i < 12; i++)
        ck_assert_int_eq(buf[i], (i % 2 == 0) ? 2 : 0);
    /* zero fill of a contiguous bool */
    uint8_t b[5] = {1, 1, 1, 1, 1};
    int64_t n5[1] = {5}, one[1] = {1};
    tl_strided db = desc(b, TL_BOOL, 1, n5, one);
    tl_scalar z = {.is_float = false, .i = 0};
    ck_assert_int_eq(t_fill(&db, z, &err), 0);
    for (int i = 0; i < 5; i++)
        ck_assert_uint_eq(b[i], 0);
}
END_TEST

/* binary int64 op over 4 elements, b broadcast when bst == 0 */
static int bin_i64(tl_binop op, const int64_t *a, const int64_t *b, int64_t *out,
                   tl_error *err)
{
    int64_t n[1] = {4}, one[1] = {1};
    tl_strided d = desc(out, TL_INT64, 1, n, one);
    tl_strided sa = desc((void *)a, TL_INT64, 1, n, one);
    tl_strided sb = desc((void *)b, TL_INT64, 1, n, one);
    return t_binary(op, TL_INT64, &d, &sa, &sb, err);
}

static int bin_f64(tl_binop op, const double *a, const double *b, double *out,
                   tl_error *err)
{
    int64_t n[1] = {4}, one[1] = {1};
    tl_strided d = desc(out, TL_FLOAT64, 1, n, one);
    tl_strided sa = desc((void *)a, TL_FLOAT64, 1, n, one);
    tl_strided sb = desc((void *)b, TL_FLOAT64, 1, n, one);
    return t_binary(op, TL_FLOAT64, &d, &sa, &sb, err);
}

START_TEST(test_binary_python_division)
{
    be = backends[_i];
    tl_error err = {0};
    int64_t a[4] = {-7, 7, -7, 7}, b[4] = {2, -2, -2, 2}, r[4];
    /* torch: a // b = [-4,-4,3,3]; a % b = [1,-1,-1,1]; fmod = [-1,1,-1,1] */
    ck_assert_int_eq(bin_i64(TL_BIN_FLOORDIV, a, b, r, &err), 0);
    ck_assert(r[0] == -4 && r[1] == -4 && r[2] == 3 && r[3] == 3);
    ck_assert_int_eq(bin_i64(TL_BIN_REMAINDER, a, b, r, &err), 0);
    ck_assert(r[0] == 1 && r[1] == -1 && r[2] == -1 && r[3] == 1);
    ck_assert_int_eq(bin_i64(TL_BIN_FMOD, a, b, r, &err), 0);
    ck_assert(r[0] == -1 && r[1] == 1 && r[2] == -1 && r[3] == 1);
    ck_assert_int_eq(bin_i64(TL_BIN_DIV, a, b, r, &err), 0); /* trunc */
    ck_assert(r[0] == -3 && r[1] == -3 && r[2] == 3 && r[3] == 3);

    /* floats: [-7.5,7.5,-7,7] // [2,-2,-2,0] = [-4,-4,3,inf];
     *         %                            = [0.5,-0.5,-1,nan] */
    double fa[4] = {-7.5, 7.5, -7, 7}, fb[4] = {2, -2, -2, 0}, fr[4];
    ck_assert_int_eq(bin_f64(TL_BIN_FLOORDIV, fa, fb, fr, &err), 0);
    ck_assert(fr[0] == -4 && fr[1] == -4 && fr[2] == 3 && isinf(fr[3]) && fr[3] > 0);
    ck_assert_int_eq(bin_f64(TL_BIN_REMAINDER, fa, fb, fr, &err), 0);
    ck_assert(fr[0] == 0.5 && fr[1] == -0.5 && fr[2] == -1 && isnan(fr[3]));
    ck_assert_int_eq(bin_f64(TL_BIN_FMOD, fa, fb, fr, &err), 0);
    ck_assert(fr[0] == -1.5 && fr[1] == 1.5 && fr[2] == -1 && isnan(fr[3]));
}
END_TEST

START_TEST(test_binary_pow_shift_bits)
{
    be = backends[_i];
    tl_error err = {0};
    /* torch.pow([2,1,-1,0],[-1,-2,-3,-1]) = [0,1,-1,0] */
    int64_t a[4] = {2, 1, -1, 0}, b[4] = {-1, -2, -3, -1}, r[4];
    ck_assert_int_eq(bin_i64(TL_BIN_POW, a, b, r, &err), 0);
    ck_assert(r[0] == 0 && r[1] == 1 && r[2] == -1 && r[3] == 0);
    /* 3 ** 40 wraps: torch gives -6289078614652622815 */
    int64_t a2[4] = {3, 2, -2, 10}, b2[4] = {40, 10, 3, 0};
    ck_assert_int_eq(bin_i64(TL_BIN_POW, a2, b2, r, &err), 0);
    ck_assert(r[0] == -6289078614652622815LL && r[1] == 1024 && r[2] == -8 &&
              r[3] == 1);
    /* shifts: 2.x semantics, counts >= width give 0 / sign fill */
    int64_t s1[4] = {1, -8, -8, 5}, s2[4] = {3, 1, 70, -1};
    ck_assert_int_eq(bin_i64(TL_BIN_LSHIFT, s1, s2, r, &err), 0);
    ck_assert(r[0] == 8 && r[1] == -16 && r[2] == 0 && r[3] == 0);
    ck_assert_int_eq(bin_i64(TL_BIN_RSHIFT, s1, s2, r, &err), 0);
    ck_assert(r[0] == 0 && r[1] == -4 && r[2] == -1 && r[3] == 0);
    int64_t x1[4] = {12, 12, 12, -1}, x2[4] = {10, 3, 0, 5};
    ck_assert_int_eq(bin_i64(TL_BIN_BITAND, x1, x2, r, &err), 0);
    ck_assert(r[0] == 8 && r[1] == 0 && r[2] == 0 && r[3] == 5);
    ck_assert_int_eq(bin_i64(TL_BIN_BITXOR, x1, x2, r, &err), 0);
    ck_assert(r[0] == 6 && r[1] == 15 && r[2] == 12 && r[3] == -6);
    /* int64 arithmetic wraps (the all-int64 fast path) */
    int64_t w1[4] = {INT64_MAX, INT64_MIN, 3, -4}, w2[4] = {1, -1, 4, 5};
    ck_assert_int_eq(bin_i64(TL_BIN_ADD, w1, w2, r, &err), 0);
    ck_assert(r[0] == INT64_MIN && r[1] == INT64_MAX && r[2] == 7 && r[3] == 1);
    ck_assert_int_eq(bin_i64(TL_BIN_MUL, w1, w2, r, &err), 0);
    ck_assert(r[0] == INT64_MAX && r[1] == INT64_MIN && r[2] == 12 && r[3] == -20);
    ck_assert_int_eq(bin_i64(TL_BIN_SUB, w1, w2, r, &err), 0);
    ck_assert(r[0] == INT64_MAX - 1 && r[2] == -1 && r[3] == -9);
    /* INT64_MIN // -1 and % -1 must not trap */
    int64_t m1[4] = {INT64_MIN, INT64_MIN, 5, 5}, m2[4] = {-1, -1, -1, 1};
    ck_assert_int_eq(bin_i64(TL_BIN_FLOORDIV, m1, m2, r, &err), 0);
    ck_assert(r[0] == INT64_MIN && r[2] == -5 && r[3] == 5);
    ck_assert_int_eq(bin_i64(TL_BIN_REMAINDER, m1, m2, r, &err), 0);
    ck_assert(r[0] == 0 && r[2] == 0);
}
END_TEST

START_TEST(test_binary_dtypes)
{
    be = backends[_i];
    tl_error err = {0};
    int64_t n[1] = {3}, one[1] = {1};
    /* uint8 arithmetic wraps: 200 + 100 = 44 */
    uint8_t ua[3] = {200, 255, 0}, ub[3] = {100, 1, 1}, ur[3];
    tl_strided du = desc(ur, TL_UINT8, 1, n, one);
    tl_strided sa = desc(ua, TL_UINT8, 1, n, one);
    tl_strided sb = desc(ub, TL_UINT8, 1, n, one);
    ck_assert_int_eq(t_binary(TL_BIN_ADD, TL_UINT8, &du, &sa, &sb, &err), 0);
    ck_assert(ur[0] == 44 && ur[1] == 0 && ur[2] == 1);
    ck_assert_int_eq(t_binary(TL_BIN_SUB, TL_UINT8, &du, &sa, &sb, &err), 0);
    ck_assert(ur[0] == 100 && ur[1] == 254 && ur[2] == 255);

    /* float32 compute rounds: 0.1f + 0.2f */
    float fa[3] = {0.1f, 1.0f, 16777216.0f}, fb[3] = {0.2f, 3.0f, 1.0f}, fr[3];
    tl_strided df = desc(fr, TL_FLOAT32, 1, n, one);
    tl_strided sfa = desc(fa, TL_FLOAT32, 1, n, one);
    tl_strided sfb = desc(fb, TL_FLOAT32, 1, n, one);
    ck_assert_int_eq(t_binary(TL_BIN_ADD, TL_FLOAT32, &df, &sfa, &sfb, &err), 0);
    ck_assert(fr[0] == 0.1f + 0.2f);
    ck_assert(fr[2] == 16777216.0f);
    ck_assert_int_eq(t_binary(TL_BIN_DIV, TL_FLOAT32, &df, &sfa, &sfb, &err), 0);
    ck_assert(fr[1] == 1.0f / 3.0f);

    /* int64 + float32 in float32 compute into a float64 out: the int is
     * rounded to float32 first (2^24 + 1 -> 2^24) */
    int64_t ia[3] = {16777217, 1, 2};
    double dr[3];
    tl_strided dd = desc(dr, TL_FLOAT64, 1, n, one);
    tl_strided sia = desc(ia, TL_INT64, 1, n, one);
    ck_assert_int_eq(t_binary(TL_BIN_MUL, TL_FLOAT32, &dd, &sia, &sfb, &err), 0);
    ck_assert(dr[0] == 3355443.25); /* not 3355443.5 */
    ck_assert(dr[1] == 3.0 && dr[2] == 2.0);

    /* float16 compute: 1 + 2^-11 is 1 in half */
    uint16_t ha[3], hb[3], hr[3];
    for (int i = 0; i < 3; i++) {
        ha[i] = tl_f32_to_f16(1.0f);
        hb[i] = tl_f32_to_f16(0x1p-11f);
    }
    tl_strided dh = desc(hr, TL_FLOAT16, 1, n, one);
    tl_strided sha = desc(ha, TL_FLOAT16, 1, n, one);
    tl_strided shb = desc(hb, TL_FLOAT16, 1, n, one);
    ck_assert_int_eq(t_binary(TL_BIN_ADD, TL_FLOAT16, &dh, &sha, &shb, &err), 0);
    ck_assert_uint_eq(hr[0], 0x3c00);

    /* comparisons produce bool */
    uint8_t br[3];
    tl_strided dbool = desc(br, TL_BOOL, 1, n, one);
    ck_assert_int_eq(t_binary(TL_BIN_LT, TL_FLOAT32, &dbool, &sfa, &sfb, &err), 0);
    ck_assert(br[0] == 1 && br[1] == 1 && br[2] == 0);
    ck_assert_int_eq(t_binary(TL_BIN_EQ, TL_UINT8, &dbool, &sa, &sb, &err), 0);
    ck_assert(br[0] == 0 && br[1] == 0 && br[2] == 0);

    /* maximum / minimum propagate NaN */
    double na[4] = {NAN, 1, -0.5, 3}, nb[4] = {1, NAN, 2, 3}, nr[4];
    ck_assert_int_eq(bin_f64(TL_BIN_MAXIMUM, na, nb, nr, &err), 0);
    ck_assert(isnan(nr[0]) && isnan(nr[1]) && nr[2] == 2 && nr[3] == 3);
    ck_assert_int_eq(bin_f64(TL_BIN_MINIMUM, na, nb, nr, &err), 0);
    ck_assert(isnan(nr[0]) && isnan(nr[1]) && nr[2] == -0.5);
    ck_assert_int_eq(bin_f64(TL_BIN_LOGICAL_XOR, na, nb, nr, &err), 0);
    ck_assert(nr[0] == 0 && nr[1] == 0 && nr[2] == 0 && nr[3] == 0);
    ck_assert_int_eq(bin_f64(TL_BIN_COPY_RHS, na, nb, nr, &err), 0);
    ck_assert(nr[0] == 1 && isnan(nr[1]) && nr[2] == 2);
}
END_TEST

START_TEST(test_binary_broadcast_2d)
{
    be = backends[_i];
    /* a (2,1) column + b (1,3) row into a (2,3) output */
    int32_t a[2] = {10, 20}, b[3] = {1, 2, 3}, out[6];
    int64_t sz[2] = {2, 3}, ast[2] = {1, 0}, bst[2] = {0, 1}, ost[2] = {3, 1};
    tl_strided d = desc(out, TL_INT32, 2, sz, ost);
    tl_strided sa = desc(a, TL_INT32, 2, sz, ast);
    tl_strided sb = desc(b, TL_INT32, 2, sz, bst);
    tl_error err = {0};
    ck_assert_int_eq(t_binary(TL_BIN_ADD, TL_INT32, &d, &sa, &sb, &err), 0);
    int32_t want[6] = {11, 12, 13, 21, 22, 23};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(out[i], want[i]);
    /* transposed output layout: (2,3) with strides (1,2) */
    int64_t tst[2] = {1, 2};
    tl_strided dt = desc(out, TL_INT32, 2, sz, tst);
    ck_assert_int_eq(t_binary(TL_BIN_MUL, TL_INT32, &dt, &sa, &sb, &err), 0);
    int32_t want2[6] = {10, 20, 20, 40, 30, 60};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(out[i], want2[i]);
}
END_TEST

static void un_f64(tl_unop op, const double *x, double *out, int n)
{
    int64_t sz[1] = {n}, one[1] = {1};
    tl_strided d = desc(out, TL_FLOAT64, 1, sz, one);
    tl_strided s = desc((void *)x, TL_FLOAT64, 1, sz, one);
    tl_error err = {0};
    ck_assert_int_eq(t_unary(op, TL_FLOAT64, &d, &s, &err), 0);
}

START_TEST(test_unary)
{
    be = backends[_i];
    /* torch.round([0.5,1.5,2.5,-0.5,-2.5]) = [0,2,2,-0,-2] */
    double x[5] = {0.5, 1.5, 2.5, -0.5, -2.5}, r[5];
    un_f64(TL_UN_ROUND, x, r, 5);
    ck_assert(r[0] == 0 && r[1] == 2 && r[2] == 2 && r[3] == 0 &&
              signbit(r[3]) && r[4] == -2);
    double y[5] = {NAN, -0.0, 0.0, -3, 2}, q[5];
    un_f64(TL_UN_SIGN, y, q, 5);
    ck_assert(q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == -1 && q[4] == 1);
    un_f64(TL_UN_RELU, y, q, 5);
    ck_assert(isnan(q[0]) && q[3] == 0 && q[4] == 2);
    double z[3] = {-2.5, 2.5, 4}, w[3];
    un_f64(TL_UN_FRAC, z, w, 3);
    ck_assert(w[0] == -0.5 && w[1] == 0.5 && w[2] == 0);
    un_f64(TL_UN_SQRT, z, w, 3);
    ck_assert(isnan(w[0]) && w[2] == 2);
    un_f64(TL_UN_SIGMOID, z, w, 3);
    ck_assert(fabs(w[1] - 0.9241418199787566) < 1e-15);

    /* integer unary ops wrap in the compute width: abs(int8 -128) = -128 */
    int8_t i8[3] = {-128, -5, 7}, o8[3];
    int64_t n3[1] = {3}, one[1] = {1};
    tl_strided d = desc(o8, TL_INT8, 1, n3, one);
    tl_strided s = desc(i8, TL_INT8, 1, n3, one);
    tl_error err = {0};
    ck_assert_int_eq(t_unary(TL_UN_ABS, TL_INT8, &d, &s, &err), 0);
    ck_assert(o8[0] == -128 && o8[1] == 5 && o8[2] == 7);
    ck_assert_int_eq(t_unary(TL_UN_NEG, TL_INT8, &d, &s, &err), 0);
    ck_assert(o8[0] == -128 && o8[1] == 5 && o8[2] == -7);
    ck_assert_int_eq(t_unary(TL_UN_BITWISE_NOT, TL_INT8, &d, &s, &err), 0);
    ck_assert(o8[0] == 127 && o8[1] == 4 && o8[2] == -8);
    /* bool ~ is logical not; isnan on floats gives bool */
    uint8_t bb[3] = {1, 0, 1}, bo[3];
    tl_strided db = desc(bo, TL_BOOL, 1, n3, one);
    tl_strided sb = desc(bb, TL_BOOL, 1, n3, one);
    ck_assert_int_eq(t_unary(TL_UN_BITWISE_NOT, TL_BOOL, &db, &sb, &err), 0);
    ck_assert(bo[0] == 0 && bo[1] == 1 && bo[2] == 0);
    float f3[3] = {NAN, INFINITY, 1};
    tl_strided sf = desc(f3, TL_FLOAT32, 1, n3, one);
    ck_assert_int_eq(t_unary(TL_UN_ISNAN, TL_FLOAT32, &db, &sf, &err), 0);
    ck_assert(bo[0] == 1 && bo[1] == 0 && bo[2] == 0);
    ck_assert_int_eq(t_unary(TL_UN_ISFINITE, TL_FLOAT32, &db, &sf, &err), 0);
    ck_assert(bo[0] == 0 && bo[1] == 0 && bo[2] == 1);
    /* float32 compute rounds the result */
    float fx[3] = {2, 3, 10}, fo[3];
    tl_strided dfo = desc(fo, TL_FLOAT32, 1, n3, one);
    tl_strided sfx = desc(fx, TL_FLOAT32, 1, n3, one);
    ck_assert_int_eq(t_unary(TL_UN_SQRT, TL_FLOAT32, &dfo, &sfx, &err), 0);
    ck_assert(fo[0] == sqrtf(2.0f) && fo[1] == sqrtf(3.0f));
}
END_TEST

START_TEST(test_where_index_select)
{
    be = backends[_i];
    uint8_t cond[4] = {1, 0, 0, 1};
    float a[4] = {1, 2, 3, 4};
    int64_t b[1] = {-1};
    float out[4];
    int64_t n[1] = {4}, one[1] = {1}, zero[1] = {0};
    tl_strided d = desc(out, TL_FLOAT32, 1, n, one);
    tl_strided sc = desc(cond, TL_BOOL, 1, n, one);
    tl_strided sa = desc(a, TL_FLOAT32, 1, n, one);
    tl_strided sb = desc(b, TL_INT64, 1, n, zero);
    tl_error err = {0};
    ck_assert_int_eq(t_where(&d, &sc, &sa, &sb, &err), 0);
    ck_assert(out[0] == 1 && out[1] == -1 && out[2] == -1 && out[3] == 4);

    /* index_select along dim 1 of a (2,3): columns [2,0,2] */
    int64_t src[6] = {0, 1, 2, 3, 4, 5}, dst[6];
    int64_t ssz[2] = {2, 3}, sst[2] = {3, 1}, dsz[2] = {2, 3}, dst_st[2] = {3, 1};
    int64_t idx[3] = {2, 0, 2};
    tl_strided dd = desc(dst, TL_INT64, 2, dsz, dst_st);
    tl_strided ss = desc(src, TL_INT64, 2, ssz, sst);
    ck_assert_int_eq(t_gather(&dd, &ss, 1, idx, 3, &err), 0);
    int64_t want[6] = {2, 0, 2, 5, 3, 5};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(dst[i], want[i]);
    /* along dim 0 with a transposed source and converting to float */
    float fd[6];
    int64_t tsz[2] = {3, 2}, tst[2] = {1, 3}, fsz[2] = {3, 2}, fst[2] = {2, 1};
    int64_t idx0[3] = {1, 1, 0};
    tl_strided dfd = desc(fd, TL_FLOAT32, 2, fsz, fst);
    tl_strided ts = desc(src, TL_INT64, 2, tsz, tst);
    ck_assert_int_eq(t_gather(&dfd, &ts, 0, idx0, 3, &err), 0);
    float want0[6] = {1, 4, 1, 4, 0, 3};
    for (int i = 0; i < 6; i++)
        ck_assert(fd[i] == want0[i]);
}
END_TEST

static void reduce_2x3(tl_redop op, tl_dtype ct, const void *src, tl_dtype sdt,
                       uint64_t mask, void *dst, tl_dtype ddt)
{
    int64_t ssz[2] = {2, 3}, sst[2] = {3, 1};
    int64_t dsz[2] = {mask & 1 ? 1 : 2, mask & 2 ? 1 : 3};
    int64_t dst_st[2] = {dsz[1], 1};
    tl_strided d = desc(dst, ddt, 2, dsz, dst_st);
    tl_strided s = desc((void *)src, sdt, 2, ssz, sst);
    tl_error err = {0};
    ck_assert_msg(t_reduce(op, ct, &d, &s, mask, &err) == 0, "%s", err.msg);
}

START_TEST(test_reduce)
{
    be = backends[_i];
    float x[6] = {1, 5, 3, 5, 2, 0};
    float r3[3], r2[2], r1[1];
    int64_t i3[3], i2[2], i1[1];
    reduce_2x3(TL_RED_SUM, TL_FLOAT32, x, TL_FLOAT32, 1, r3, TL_FLOAT32);
    ck_assert(r3[0] == 6 && r3[1] == 7 && r3[2] == 3);
    reduce_2x3(TL_RED_SUM, TL_FLOAT32, x, TL_FLOAT32, 2, r2, TL_FLOAT32);
    ck_assert(r2[0] == 9 && r2[1] == 7);
    reduce_2x3(TL_RED_MEAN, TL_FLOAT32, x, TL_FLOAT32, 3, r1, TL_FLOAT32);
    ck_assert(r1[0] == 16.0f / 6.0f);
    reduce_2x3(TL_RED_PROD, TL_FLOAT32, x, TL_FLOAT32, 2, r2, TL_FLOAT32);
    ck_assert(r2[0] == 15 && r2[1] == 0);
    reduce_2x3(TL_RED_MAX, TL_FLOAT32, x, TL_FLOAT32, 1, r3, TL_FLOAT32);
    ck_assert(r3[0] == 5 && r3[1] == 5 && r3[2] == 3);
    /* argmax: ties resolve to the first; flat index over reduced dims */
    reduce_2x3(TL_RED_ARGMAX, TL_FLOAT32, x, TL_FLOAT32, 2, i2, TL_INT64);
    ck_assert(i2[0] == 1 && i2[1] == 0);
    reduce_2x3(TL_RED_ARGMAX, TL_FLOAT32, x, TL_FLOAT32, 3, i1, TL_INT64);
    ck_assert_int_eq(i1[0], 1);
    reduce_2x3(TL_RED_ARGMIN, TL_FLOAT32, x, TL_FLOAT32, 3, i1, TL_INT64);
    ck_assert_int_eq(i1[0], 5);
    reduce_2x3(TL_RED_ARGMIN, TL_FLOAT32, x, TL_FLOAT32, 1, i3, TL_INT64);
    ck_assert(i3[0] == 0 && i3[1] == 1 && i3[2] == 1);
    /* NaN wins max/argmax at its first position (torch: argmax([1,nan,3,nan]) = 1) */
    float y[6] = {1, NAN, 3, NAN, 2, 0};
    reduce_2x3(TL_RED_ARGMAX, TL_FLOAT32, y, TL_FLOAT32, 3, i1, TL_INT64);
    ck_assert_int_eq(i1[0], 1);
    reduce_2x3(TL_RED_MAX, TL_FLOAT32, y, TL_FLOAT32, 2, r2, TL_FLOAT32);
    ck_assert(isnan(r2[0]) && isnan(r2[1]));
    reduce_2x3(TL_RED_MIN, TL_FLOAT32, y, TL_FLOAT32, 1, r3, TL_FLOAT32);
    ck_assert(isnan(r3[0]) && isnan(r3[1]) && r3[2] == 0);
    /* all / any into bool */
    uint8_t b3[3], b1[1];
    reduce_2x3(TL_RED_ALL, TL_FLOAT32, x, TL_FLOAT32, 1, b3, TL_BOOL);
    ck_assert(b3[0] == 1 && b3[1] == 1 && b3[2] == 0);
    reduce_2x3(TL_RED_ANY, TL_FLOAT32, x, TL_FLOAT32, 3, b1, TL_BOOL);
    ck_assert_uint_eq(b1[0], 1);
    /* integer sums wrap in int64; bool inputs sum as integers */
    uint8_t bools[6] = {1, 1, 0, 1, 0, 1};
    reduce_2x3(TL_RED_SUM, TL_INT64, bools, TL_BOOL, 3, i1, TL_INT64);
    ck_assert_int_eq(i1[0], 4);
    int64_t big[6] = {INT64_MAX, 1, 0, 0, 0, 0};
    reduce_2x3(TL_RED_SUM, TL_INT64, big, TL_INT64, 3, i1, TL_INT64);
    ck_assert_int_eq(i1[0], INT64_MIN);
    reduce_2x3(TL_RED_MAX, TL_INT64, big, TL_INT64, 1, i3, TL_INT64);
    ck_assert(i3[0] == INT64_MAX && i3[1] == 1 && i3[2] == 0);
}
END_TEST

/* all/any test each element for truth (v != 0, NaN true) in the source
 * dtype even when the op computes in bool: 0.5 must not truncate to 0.
 * torch: tensor([[0.5, -0.25, nan], [0., 0., 0.]]).all(1) -> [True, False],
 * .any(0) -> [True, True, True]; the same in float16. */
START_TEST(test_reduce_truth)
{
    be = backends[_i];
    float f[6] = {0.5f, -0.25f, NAN, 0.0f, 0.0f, 0.0f};
    uint16_t h[6] = {0x3800, 0xB400, 0x7E00, 0, 0x8000, 0}; /* -0.0 is false */
    double g[6] = {1e-300, 0.75, 0.0, 0.0, 0.0, 0.0};
    uint8_t b2[2], b3[3], b1[1];
    reduce_2x3(TL_RED_ALL, TL_BOOL, f, TL_FLOAT32, 2, b2, TL_BOOL);
    ck_assert(b2[0] == 1 && b2[1] == 0);
    reduce_2x3(TL_RED_ANY, TL_BOOL, f, TL_FLOAT32, 1, b3, TL_BOOL);
    ck_assert(b3[0] == 1 && b3[1] == 1 && b3[2] == 1);
    reduce_2x3(TL_RED_ALL, TL_BOOL, h, TL_FLOAT16, 2, b2, TL_BOOL);
    ck_assert(b2[0] == 1 && b2[1] == 0);
    reduce_2x3(TL_RED_ANY, TL_BOOL, h, TL_FLOAT16, 2, b2, TL_BOOL);
    ck_assert(b2[0] == 1 && b2[1] == 0);
    reduce_2x3(TL_RED_ANY, TL_BOOL, g, TL_FLOAT64, 3, b1, TL_BOOL);
    ck_assert_uint_eq(b1[0], 1);
    reduce_2x3(TL_RED_ALL, TL_BOOL, g, TL_FLOAT64, 3, b1, TL_BOOL);
    ck_assert_uint_eq(b1[0], 0);
    /* wide integers stay nonzero (256 is true), uint8 output keeps 0/1 */
    int64_t w[6] = {256, 512, -1, 0, 1, 2};
    reduce_2x3(TL_RED_ALL, TL_BOOL, w, TL_INT64, 2, b2, TL_UINT8);
    ck_assert(b2[0] == 1 && b2[1] == 0);
    reduce_2x3(TL_RED_ANY, TL_BOOL, w, TL_INT64, 1, b3, TL_UINT8);
    ck_assert(b3[0] == 1 && b3[1] == 1 && b3[2] == 1);
}
END_TEST

/* ---- limits ---- */

START_TEST(test_numel_zero)
{
    be = backends[_i];
    tl_error err = {0};
    int64_t sz[2] = {3, 0}, st[2] = {1, 1};
    tl_strided d = desc(NULL, TL_FLOAT32, 2, sz, st);
    tl_strided s = desc(NULL, TL_FLOAT32, 2, sz, st);
    ck_assert_int_eq(t_copy_strided(&d, &s, &err), 0);
    tl_scalar v = {.is_float = true, .f = 1};
    ck_assert_int_eq(t_fill(&d, v, &err), 0);
    ck_assert_int_eq(t_binary(TL_BIN_ADD, TL_FLOAT32, &d, &s, &s, &err), 0);
    ck_assert_int_eq(t_unary(TL_UN_EXP, TL_FLOAT32, &d, &s, &err), 0);
    ck_assert_int_eq(t_where(&d, &s, &s, &s, &err), 0);
    /* sum over the empty dim of (3,0) gives three zeros; prod ones;
     * mean NaN (torch.zeros(0).mean() is nan) */
    float out[3] = {9, 9, 9};
    int64_t dsz[2] = {3, 1}, dst[2] = {1, 1};
    tl_strided dd = desc(out, TL_FLOAT32, 2, dsz, dst);
    ck_assert_int_eq(t_reduce(TL_RED_SUM, TL_FLOAT32, &dd, &s, 2, &err), 0);
    ck_assert(out[0] == 0 && out[1] == 0 && out[2] == 0);
    ck_assert_int_eq(t_reduce(TL_RED_PROD, TL_FLOAT32, &dd, &s, 2, &err), 0);
    ck_assert(out[0] == 1 && out[2] == 1);
    ck_assert_int_eq(t_reduce(TL_RED_MEAN, TL_FLOAT32, &dd, &s, 2, &err), 0);
    ck_assert(isnan(out[1]));
    uint8_t bo[3];
    tl_strided db = desc(bo, TL_BOOL, 2, dsz, dst);
    ck_assert_int_eq(t_reduce(TL_RED_ALL, TL_FLOAT32, &db, &s, 2, &err), 0);
    ck_assert(bo[0] == 1 && bo[2] == 1);
    ck_assert_int_eq(t_reduce(TL_RED_ANY, TL_FLOAT32, &db, &s, 2, &err), 0);
    ck_assert(bo[0] == 0);
    /* reduce over the non-empty dim: output is (1,0), nothing written */
    int64_t esz[2] = {1, 0};
    tl_strided de = desc(NULL, TL_FLOAT32, 2, esz, st);
    ck_assert_int_eq(t_reduce(TL_RED_MAX, TL_FLOAT32, &de, &s, 1, &err), 0);
    /* index_select with no indices */
    int64_t isz[2] = {3, 0};
    tl_strided di = desc(NULL, TL_FLOAT32, 2, isz, st);
    float src3[3] = {1, 2, 3};
    int64_t s3[2] = {3, 1}, s3st[2] = {1, 1};
    tl_strided si = desc(src3, TL_FLOAT32, 2, s3, s3st);
    ck_assert_int_eq(t_gather(&di, &si, 1, NULL, 0, &err), 0);
}
END_TEST

START_TEST(test_zero_dim_and_many_dims)
{
    be = backends[_i];
    tl_error err = {0};
    /* 0-d: one element */
    double a = 2.5, b = 4, r = 0;
    tl_strided d0 = desc(&r, TL_FLOAT64, 0, NULL, NULL);
    tl_strided a0 = desc(&a, TL_FLOAT64, 0, NULL, NULL);
    tl_strided b0 = desc(&b, TL_FLOAT64, 0, NULL, NULL);
    ck_assert_int_eq(t_binary(TL_BIN_POW, TL_FLOAT64, &d0, &a0, &b0, &err), 0);
    ck_assert(r == 39.0625);
    ck_assert_int_eq(t_reduce(TL_RED_SUM, TL_FLOAT64, &d0, &a0, 0, &err), 0);
    ck_assert(r == 2.5);
    /* TL_MAX_DIMS dims: 2 x 2 x 1 x ... (64 dims), reversed strides */
    int64_t sz[TL_MAX_DIMS], sst[TL_MAX_DIMS], dst[TL_MAX_DIMS];
    for (int i = 0; i < TL_MAX_DIMS; i++) {
        sz[i] = 1;
        sst[i] = 1;
        dst[i] = 1;
    }
    sz[0] = 2;
    sz[TL_MAX_DIMS - 1] = 2;
    sst[0] = 1;
    sst[TL_MAX_DIMS - 1] = 2; /* transposed source */
    dst[0] = 2;
    dst[TL_MAX_DIMS - 1] = 1;
    int16_t src[4] = {0, 1, 2, 3}, out[4];
    tl_strided d = desc(out, TL_INT16, TL_MAX_DIMS, sz, dst);
    tl_strided s = desc(src, TL_INT16, TL_MAX_DIMS, sz, sst);
    ck_assert_int_eq(t_copy_strided(&d, &s, &err), 0);
    ck_assert(out[0] == 0 && out[1] == 2 && out[2] == 1 && out[3] == 3);
}
END_TEST

START_TEST(test_large_contiguous)
{
    be = backends[_i];
    /* a long strip exercises the memcpy / merged-dim fast paths */
    enum { N = 1 << 20 };
    float *a = malloc(N * sizeof(float)), *o = malloc(N * sizeof(float));
    for (int i = 0; i < N; i++)
        a[i] = (float)i;
    int64_t sz[3] = {64, 128, 128}, st[3] = {128 * 128, 128, 1};
    tl_strided d = desc(o, TL_FLOAT32, 3, sz, st);
    tl_strided s = desc(a, TL_FLOAT32, 3, sz, st);
    tl_error err = {0};
    ck_assert_int_eq(t_copy_strided(&d, &s, &err), 0);
    ck_assert(memcmp(a, o, N * sizeof(float)) == 0);
    ck_assert_int_eq(t_binary(TL_BIN_ADD, TL_FLOAT32, &d, &s, &s, &err), 0);
    ck_assert(o[N - 1] == 2.0f * (N - 1));
    float total = 0;
    int64_t one[3] = {1, 1, 1};
    tl_strided dt = desc(&total, TL_FLOAT32, 3, one, one);
    ck_assert_int_eq(t_reduce(TL_RED_SUM, TL_FLOAT32, &dt, &s, 7, &err), 0);
    ck_assert(total == (float)((double)N * (N - 1) / 2));
    free(a);
    free(o);
}
END_TEST

/* floating sum/mean/prod: every backend folds in reduce_order.h's order,
 * so each gives the CPU backend's bits exactly, for every dtype, layout and
 * length (short, one block, blocks and a partial block, 2^17 per output,
 * the device then combining 128 block values by the cascade); two outputs
 * per case, contiguous rows (the CPU's vector loops) and the transpose (its
 * row-lane loop), so the partials of one output never mix with the other's.
 * Values: random with both signs and magnitudes 2^-8..2^8, so every
 * reassociation changes bits; products of values near 1. */
static void fill_vals(double *a, int64_t n, bool prod, uint64_t seed)
{
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        double u = (double)(seed >> 11) * 0x1p-53;
        a[i] = prod ? 1.0 + (u - 0.5) * 1e-3 : (u - 0.45) * ldexp(1.0, (int)(seed >> 7 & 15) - 8);
    }
}

START_TEST(test_large_float_reductions)
{
    be = backends[_i];
    static const int64_t lens[] = {3, 64, 100, 1024, 1025, 5000, 1 << 17};
    static const tl_dtype dts[] = {TL_FLOAT32, TL_FLOAT64, TL_FLOAT16, TL_BFLOAT16};
    const tl_redop ops[3] = {TL_RED_SUM, TL_RED_MEAN, TL_RED_PROD};
    enum { R = 2 };
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
        for (size_t di = 0; di < 4; di++)
            for (int k = 0; k < 3; k++)
                for (int tr = 0; tr < 2; tr++) {
                    int64_t C = lens[li];
                    tl_dtype dt = dts[di];
                    size_t isz = tl_dtype_size(dt);
                    double *v = malloc((size_t)(R * C) * sizeof(double));
                    char *a = malloc((size_t)(R * C) * isz);
                    fill_vals(v, R * C, ops[k] == TL_RED_PROD, (uint64_t)(li * 131 + di * 7 + k));
                    for (int64_t i = 0; i < R * C; i++)
                        tl_dtype_store_f64(dt, a + i * (int64_t)isz, v[i]);
                    /* rows of C (tr 0) or columns of a C x R array (tr 1) */
                    int64_t sz[2] = {R, C}, st[2] = {C, 1}, osz[2] = {R, 1}, ost[2] = {1, 1};
                    if (tr) {
                        st[0] = 1;
                        st[1] = R;
                    }
                    tl_strided s = desc(a, dt, 2, sz, st);
                    double out[R], ref[R];
                    memset(out, 0x5a, sizeof out);
                    tl_strided d = desc(out, dt, 2, osz, ost), rd = desc(ref, dt, 2, osz, ost);
                    tl_error err = {0};
                    ck_assert_int_eq(t_reduce(ops[k], dt, &d, &s, 2, &err), 0);
                    ck_assert_int_eq(tl_backend_reduce(tl_backend_cpu(), ops[k], dt, &rd, &s, 2, &err), 0);
                    for (int r = 0; r < R; r++)
                        ck_assert_msg(memcmp((char *)out + r * (int64_t)isz,
                                             (char *)ref + r * (int64_t)isz, isz) == 0,
                                      "%s op %d len %lld %s row %d: %.17g, CPU %.17g",
                                      tl_dtype_name(dt), k, (long long)C, tr ? "columns" : "rows", r,
                                      tl_dtype_load_f64(dt, (char *)out + r * (int64_t)isz),
                                      tl_dtype_load_f64(dt, (char *)ref + r * (int64_t)isz));
                    free(v);
                    free(a);
                }
}
END_TEST

/* scatter: = keeps the last duplicate, += sums them in order; along dim 1
 * of a (2, 3) and with a dtype conversion. torch 1.13:
 *   x = torch.zeros(2, 3, dtype=torch.int64)
 *   x[:, [2, 0, 2]] = torch.tensor([[1, 2, 3], [4, 5, 6]])  -> [[2, 0, 3], [5, 0, 6]]
 *   x.index_put_((slice(None), tensor([2, 0, 2])), v, accumulate=True)
 *     on zeros -> [[2, 0, 4], [5, 0, 10]] */
START_TEST(test_scatter)
{
    be = backends[_i];
    int64_t dst[6] = {0};
    int64_t src[6] = {1, 2, 3, 4, 5, 6};
    int64_t sz[2] = {2, 3}, st[2] = {3, 1};
    int64_t idx[3] = {2, 0, 2};
    tl_strided d = desc(dst, TL_INT64, 2, sz, st);
    tl_strided s = desc(src, TL_INT64, 2, sz, st);
    tl_error err = {0};
    ck_assert_int_eq(t_scatter(TL_SCATTER_SET, &d, &s, 1, idx, 3, &err), 0);
    int64_t want_set[6] = {2, 0, 3, 5, 0, 6};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(dst[i], want_set[i]);
    memset(dst, 0, sizeof dst);
    ck_assert_int_eq(t_scatter(TL_SCATTER_ADD, &d, &s, 1, idx, 3, &err), 0);
    int64_t want_add[6] = {2, 0, 4, 5, 0, 10};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(dst[i], want_add[i]);
    /* float16 += in dst's dtype: 2048 + 1 + 1 stays 2048 (each add rounds) */
    uint16_t h[1];
    tl_dtype_store_f64(TL_FLOAT16, (unsigned char *)h, 2048.0);
    float ones[2] = {1, 1};
    int64_t n1[1] = {1}, n2[1] = {2}, one[1] = {1};
    int64_t dup[2] = {0, 0};
    tl_strided dh = desc(h, TL_FLOAT16, 1, n1, one);
    tl_strided so = desc(ones, TL_FLOAT32, 1, n2, one);
    ck_assert_int_eq(t_scatter(TL_SCATTER_ADD, &dh, &so, 0, dup, 2, &err), 0);
    ck_assert(tl_dtype_load_f64(TL_FLOAT16, (unsigned char *)h) == 2048.0);
    /* = with a conversion float -> int32, into a strided destination */
    int32_t di[4] = {9, 9, 9, 9};
    float fv[2] = {7.9f, -2.5f};
    int64_t two[1] = {2}, s2[1] = {2}, ix[2] = {1, 0};
    tl_strided ddi = desc(di, TL_INT32, 1, two, s2);
    tl_strided sfv = desc(fv, TL_FLOAT32, 1, n2, one);
    ck_assert_int_eq(t_scatter(TL_SCATTER_SET, &ddi, &sfv, 0, ix, 2, &err), 0);
    ck_assert(di[0] == -2 && di[1] == 9 && di[2] == 7 && di[3] == 9);
    /* an out-of-range index is refused, nothing written */
    int64_t bad[1] = {3};
    ck_assert_int_eq(t_scatter(TL_SCATTER_SET, &d, &s, 1, bad, 1, &err), -1);
    tl_error_clear(&err);
}
END_TEST

/* sort / topk: stable in both directions, NaN the largest. torch 1.13:
 *   torch.tensor([3., nan, 1., 3., -inf]).sort(stable=True)
 *     -> values [-inf, 1, 3, 3, nan], indices [4, 2, 0, 3, 1]
 *   .sort(descending=True, stable=True) -> [nan, 3, 3, 1, -inf], [1, 0, 3, 2, 4]
 *   .topk(2) -> [nan, 3], [1, 0] */
START_TEST(test_sort)
{
    be = backends[_i];
    double x[5] = {3, NAN, 1, 3, -INFINITY};
    double v[5];
    int64_t ix[5];
    int64_t n5[1] = {5}, one[1] = {1};
    tl_strided sx = desc(x, TL_FLOAT64, 1, n5, one);
    tl_strided sv = desc(v, TL_FLOAT64, 1, n5, one);
    tl_strided si = desc(ix, TL_INT64, 1, n5, one);
    tl_error err = {0};
    ck_assert_int_eq(t_sort(&sv, &si, &sx, 0, false, 5, &err), 0);
    ck_assert(v[0] == -INFINITY && v[1] == 1 && v[2] == 3 && v[3] == 3 && isnan(v[4]));
    int64_t wa[5] = {4, 2, 0, 3, 1};
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(ix[i], wa[i]);
    ck_assert_int_eq(t_sort(&sv, &si, &sx, 0, true, 5, &err), 0);
    ck_assert(isnan(v[0]) && v[1] == 3 && v[2] == 3 && v[3] == 1 && v[4] == -INFINITY);
    int64_t wd[5] = {1, 0, 3, 2, 4};
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(ix[i], wd[i]);
    /* topk 2 */
    int64_t n2[1] = {2};
    tl_strided tv = desc(v, TL_FLOAT64, 1, n2, one);
    tl_strided ti = desc(ix, TL_INT64, 1, n2, one);
    ck_assert_int_eq(t_sort(&tv, &ti, &sx, 0, true, 2, &err), 0);
    ck_assert(isnan(v[0]) && v[1] == 3 && ix[0] == 1 && ix[1] == 0);
    /* rows of a transposed int32 (3, 2) along dim 0, into strided outputs:
     * m = torch.tensor([[5, 1], [5, 0], [2, 7]]) stored column-major;
     * m.sort(0, stable=True) -> values [[2, 0], [5, 1], [5, 7]],
     * indices [[2, 1], [0, 0], [1, 2]] */
    int32_t m[6] = {5, 5, 2, 1, 0, 7}; /* column-major storage */
    int64_t msz[2] = {3, 2}, mst[2] = {1, 3};
    int32_t mv[12];
    int64_t mi[6];
    int64_t vst[2] = {4, 2}, ist[2] = {2, 1};
    tl_strided sm = desc(m, TL_INT32, 2, msz, mst);
    tl_strided smv = desc(mv, TL_INT32, 2, msz, vst);
    tl_strided smi = desc(mi, TL_INT64, 2, msz, ist);
    ck_assert_int_eq(t_sort(&smv, &smi, &sm, 0, false, 3, &err), 0);
    int32_t wv[6] = {2, 0, 5, 1, 5, 7};
    int64_t wi[6] = {2, 1, 0, 0, 1, 2};
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 2; c++) {
            ck_assert_int_eq(mv[r * 4 + c * 2], wv[r * 2 + c]);
            ck_assert_int_eq(mi[r * 2 + c], wi[r * 2 + c]);
        }
    /* a 0-d tensor is one row of one element */
    double z = 4.5, zv = 0;
    int64_t zi = 9;
    tl_strided sz0 = desc(&z, TL_FLOAT64, 0, NULL, NULL);
    tl_strided szv = desc(&zv, TL_FLOAT64, 0, NULL, NULL);
    tl_strided szi = desc(&zi, TL_INT64, 0, NULL, NULL);
    ck_assert_int_eq(t_sort(&szv, &szi, &sz0, 0, false, 1, &err), 0);
    ck_assert(zv == 4.5 && zi == 0);
    /* k past the row is refused */
    ck_assert_int_eq(t_sort(&sv, &si, &sx, 0, false, 6, &err), -1);
    tl_error_clear(&err);
}
END_TEST

/* cumsum/cumprod (tl_backend_scan): sequential along dim in the CPU's
 * accumulate type, the same bits on every backend: float32 sums in double
 * (1000 x 0.1f rounds differently in a float accumulator), float16 in
 * float, int8 wraps through int64; rows of a transposed int32 along dim 0;
 * bool is refused. */
START_TEST(test_scan)
{
    be = backends[_i];
    tl_error err = {0};
    enum { N = 1000 };
    static float f[N], fo[N];
    int64_t nn[1] = {N}, one[1] = {1};
    for (int i = 0; i < N; i++)
        f[i] = 0.1f;
    tl_strided sf = desc(f, TL_FLOAT32, 1, nn, one), so = desc(fo, TL_FLOAT32, 1, nn, one);
    ck_assert_int_eq(t_scan(false, &so, &sf, 0, &err), 0);
    double acc = 0;
    float facc = 0;
    bool differs = false;
    for (int i = 0; i < N; i++) {
        acc += (double)0.1f;
        facc += 0.1f;
        ck_assert(fo[i] == (float)acc);
        differs = differs || facc != (float)acc;
    }
    ck_assert(differs); /* the test tells the accumulators apart */
    /* float16: 0.1 x 2048 in a float accumulator, rounded per element */
    static uint16_t h[2048], ho[2048];
    int64_t nh[1] = {2048};
    uint16_t tenth = tl_f32_to_f16(0.1f);
    for (int i = 0; i < 2048; i++)
        h[i] = tenth;
    tl_strided sh = desc(h, TL_FLOAT16, 1, nh, one), sho = desc(ho, TL_FLOAT16, 1, nh, one);
    ck_assert_int_eq(t_scan(false, &sho, &sh, 0, &err), 0);
    float ha = 0;
    for (int i = 0; i < 2048; i++) {
        ha += tl_f16_to_f32(tenth);
        ck_assert_uint_eq(ho[i], tl_f32_to_f16(ha));
    }
    /* rows longer than a device launch's segment (2^16: the accumulator
     * is carried from one launch to the next) keep the CPU's bits: 3 rows
     * of 200003 float32 (dim 1, rows interleaved by a transposed layout)
     * and one float16 row of 70001 */
    enum { L = 200003 };
    float *lf = tl_xcalloc(3 * (size_t)L, sizeof *lf), *lo = tl_xcalloc(3 * (size_t)L, sizeof *lo);
    for (int64_t i = 0; i < 3 * (int64_t)L; i++)
        lf[i] = (float)(i % 7) * 0.1f - 0.25f;
    int64_t lsz[2] = {3, L}, lst[2] = {1, 3}, lost[2] = {L, 1};
    tl_strided sl = desc(lf, TL_FLOAT32, 2, lsz, lst), slo = desc(lo, TL_FLOAT32, 2, lsz, lost);
    ck_assert_int_eq(t_scan(false, &slo, &sl, 1, &err), 0);
    for (int64_t r = 0; r < 3; r++) {
        double la = 0;
        for (int64_t j = 0; j < L; j++) {
            la += (double)lf[j * 3 + r];
            ck_assert(lo[r * L + j] == (float)la);
        }
    }
    free(lf);
    free(lo);
    enum { LH = 70001 };
    uint16_t *lh = tl_xcalloc(LH, sizeof *lh), *lho = tl_xcalloc(LH, sizeof *lho);
    for (int i = 0; i < LH; i++)
        lh[i] = tenth;
    int64_t nlh[1] = {LH};
    tl_strided slh = desc(lh, TL_FLOAT16, 1, nlh, one), slho = desc(lho, TL_FLOAT16, 1, nlh, one);
    ck_assert_int_eq(t_scan(false, &slho, &slh, 0, &err), 0);
    ha = 0;
    for (int i = 0; i < LH; i++) {
        ha += tl_f16_to_f32(tenth);
        ck_assert_uint_eq(lho[i], tl_f32_to_f16(ha));
    }
    free(lh);
    free(lho);
    /* int8 wraps: 100, -56, 44, ... and the product 100^k mod 256 */
    int8_t b[4] = {100, 100, 100, 100}, bo[4];
    int64_t n4[1] = {4};
    tl_strided sb = desc(b, TL_INT8, 1, n4, one), sbo = desc(bo, TL_INT8, 1, n4, one);
    ck_assert_int_eq(t_scan(false, &sbo, &sb, 0, &err), 0);
    ck_assert(bo[0] == 100 && bo[1] == -56 && bo[2] == 44 && bo[3] == -112);
    ck_assert_int_eq(t_scan(true, &sbo, &sb, 0, &err), 0);
    ck_assert(bo[0] == 100 && bo[1] == 16 && bo[2] == 64 && bo[3] == 0);
    /* m = [[1, 2], [3, 4], [5, 6]] stored column-major, cumsum(0) into a
     * row-major (3, 2): [[1, 2], [4, 6], [9, 12]]; cumprod(1): [[1, 2],
     * [3, 12], [5, 30]] */
    int32_t m[6] = {1, 3, 5, 2, 4, 6}, mo[6];
    int64_t msz[2] = {3, 2}, mst[2] = {1, 3}, ost[2] = {2, 1};
    tl_strided sm = desc(m, TL_INT32, 2, msz, mst), smo = desc(mo, TL_INT32, 2, msz, ost);
    ck_assert_int_eq(t_scan(false, &smo, &sm, 0, &err), 0);
    int32_t ws[6] = {1, 2, 4, 6, 9, 12}, wp[6] = {1, 2, 3, 12, 5, 30};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(mo[i], ws[i]);
    ck_assert_int_eq(t_scan(true, &smo, &sm, 1, &err), 0);
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(mo[i], wp[i]);
    /* bool and a dim past ndim are malformed descriptors */
    bool q[2] = {true, true}, qo[2];
    int64_t n2[1] = {2};
    tl_strided sq = desc(q, TL_BOOL, 1, n2, one), sqo = desc(qo, TL_BOOL, 1, n2, one);
    ck_assert_int_eq(t_scan(false, &sqo, &sq, 0, &err), -1);
    tl_error_clear(&err);
    ck_assert_int_eq(t_scan(false, &sbo, &sb, 1, &err), -1);
    tl_error_clear(&err);
}
END_TEST

/* The per-thread counters through the tensor layer: x.t().contiguous()
 * is one kernel on x's device and moves no byte through the host; .cpu()
 * of a device tensor is one device->host transfer of its bytes, .cuda()
 * (to) of a host tensor one host->device transfer; reading a device tensor
 * on the host is one transfer. On the CPU .cpu() is the tensor itself. */
START_TEST(test_counters)
{
    be = backends[_i];
    tl_devkind kind = tl_backend_device(be).kind;
    tl_error err = {0};
    int64_t sz[2] = {3, 4};
    tl_tensor *x = tl_tensor_new(be, TL_FLOAT32, 2, sz, &err);
    ck_assert_ptr_nonnull(x);
    tl_strided sx = tl_tensor_strided(x);
    tl_scalar one = {.is_float = true, .f = 1.5};
    ck_assert_int_eq(tl_backend_fill(be, &sx, one, &err), 0);

    tl_backend_counters_reset();
    tl_tensor *t = tl_view_t(x, "t", &err);
    ck_assert_ptr_nonnull(t);
    tl_backend_counters c = tl_backend_counters_get(kind);
    ck_assert_uint_eq(c.launches, 0); /* a view runs nothing */
    tl_tensor *y = tl_ops_contiguous(t, TL_MEMFMT_CONTIGUOUS, &err);
    ck_assert_ptr_nonnull(y);
    ck_assert_ptr_ne(y, t);
    c = tl_backend_counters_get(kind);
    ck_assert_uint_eq(c.launches, 1);
    ck_assert_uint_eq(c.h2d_bytes, 0);
    ck_assert_uint_eq(c.d2h_bytes, 0);
    ck_assert_uint_eq(c.d2d_bytes, 0);
    tl_backend_counters h = tl_backend_counters_get(TL_DEV_CPU);
    if (kind != TL_DEV_CPU)
        ck_assert_uint_eq(h.launches + h.h2d_bytes + h.d2h_bytes, 0);

    /* arithmetic with a Python number: one kernel for the number (a fill,
     * its value a launch parameter) and one for the op; nothing through
     * the host */
    tl_backend_counters_reset();
    tl_operand ox = tl_ops_operand_tensor(y), two = tl_ops_operand_int(2);
    tl_tensor *s2 = tl_ops_binop(TL_BIN_ADD, &ox, &two, &err);
    ck_assert_ptr_nonnull(s2);
    c = tl_backend_counters_get(kind);
    ck_assert_uint_eq(c.h2d_bytes, 0);
    ck_assert_uint_eq(c.d2h_bytes, 0);
    ck_assert_uint_le(c.launches, 2);
    double sv;
    ck_assert_int_eq(tl_tensor_get_f64(s2, 5, &sv, &err), 0);
    ck_assert(sv == 3.5);
    tl_tensor_release(s2);

    /* advanced indexing: y[idx] and y[idx] = 0 with a device index. On a
     * device with TL_BACKEND_CAP_DEVICE_INDEX the offsets are computed
     * there: no byte up, the 8-byte bounds status down */
    {
        int64_t n = 3;
        tl_tensor *ih = tl_tensor_new(tl_backend_cpu(), TL_INT64, 1, &n, &err);
        ck_assert_ptr_nonnull(ih);
        for (int i = 0; i < 3; i++)
            ck_assert_int_eq(tl_tensor_set_i64(ih, i, i == 0 ? 2 : i == 1 ? 0 : -1, &err), 0);
        tl_tensor *id = tl_ops_to(ih, be, TL_INT64, false, TL_MEMFMT_PRESERVE, &err);
        ck_assert_ptr_nonnull(id);
        tl_index_item it = {0};
        it.kind = TL_INDEX_TENSOR;
        it.t = id;
        tl_index ix = {1, &it, true};
        bool isc = false;
        tl_tensor *g = NULL;
        tl_backend_counters_reset();
        ck_assert_int_eq(tl_index_get(y, false, &ix, &g, &isc, &err), 0);
        c = tl_backend_counters_get(kind);
        bool dev_index = (tl_backend_caps(be) & TL_BACKEND_CAP_DEVICE_INDEX) != 0;
        if (dev_index) {
            ck_assert_uint_eq(c.h2d_bytes, 0);
            ck_assert_uint_eq(c.d2h_bytes, sizeof(int64_t));
        }
        ck_assert_int_eq(g->ndim, 2);
        ck_assert_int_eq(g->sizes[0], 3);
        tl_scalar z = {.is_float = true, .f = 0.0};
        tl_backend_counters_reset();
        ck_assert_int_eq(tl_index_set(g, false, &ix, NULL, &z, &err), 0);
        c = tl_backend_counters_get(kind);
        if (dev_index) {
            ck_assert_uint_eq(c.h2d_bytes, 0);
            ck_assert_uint_eq(c.d2h_bytes, sizeof(int64_t));
        }
        double gv;
        ck_assert_int_eq(tl_tensor_get_f64(g, 4, &gv, &err), 0); /* row 1 kept */
        ck_assert(gv == 1.5);
        ck_assert_int_eq(tl_tensor_get_f64(g, 0, &gv, &err), 0); /* row 0 zeroed */
        ck_assert(gv == 0.0);
        tl_tensor_release(g);
        tl_tensor_release(id);
        tl_tensor_release(ih);
    }

    /* .cpu() */
    tl_backend_counters_reset();
    tl_tensor *z = tl_ops_to(y, tl_backend_cpu(), TL_FLOAT32, false,
                             TL_MEMFMT_PRESERVE, &err);
    ck_assert_ptr_nonnull(z);
    c = tl_backend_counters_get(kind);
    if (kind == TL_DEV_CPU) {
        ck_assert_ptr_eq(z, y); /* the tensor itself */
        ck_assert_uint_eq(c.launches + c.h2d_bytes + c.d2h_bytes, 0);
    } else {
        ck_assert_ptr_ne(z, y);
        ck_assert_uint_eq(c.d2h_bytes, 3 * 4 * sizeof(float));
        ck_assert_uint_eq(c.h2d_bytes, 0);
        ck_assert_int_eq(tl_tensor_device(z).kind, TL_DEV_CPU);
        double v;
        ck_assert_int_eq(tl_tensor_get_f64(z, 11, &v, &err), 0);
        ck_assert(v == 1.5);

        /* and back: .to('cuda') of the host tensor */
        tl_backend_counters_reset();
        tl_tensor *w = tl_ops_to(z, be, TL_FLOAT32, false, TL_MEMFMT_PRESERVE, &err);
        ck_assert_ptr_nonnull(w);
        c = tl_backend_counters_get(kind);
        ck_assert_uint_eq(c.h2d_bytes, 3 * 4 * sizeof(float));
        ck_assert_uint_eq(c.d2h_bytes, 0);
        tl_tensor_release(w);
    }

    /* the one host read of a non-contiguous device tensor */
    tl_backend_counters_reset();
    float host[12];
    ck_assert_int_eq(tl_tensor_read_host_bytes(t, host, &err), 0);
    for (int i = 0; i < 12; i++)
        ck_assert(host[i] == 1.5f);
    c = tl_backend_counters_get(kind);
    if (!tl_backend_host_accessible(be)) {
        ck_assert_uint_eq(c.d2h_bytes, sizeof host); /* one transfer */
        ck_assert_uint_eq(c.launches, 1);            /* one dense copy */
    } else {
        ck_assert_uint_eq(c.d2h_bytes, 0); /* read in place */
    }
    /* the tensor form: host-readable, and never charged to the ledger */
    uint64_t total = tl_alloc_total();
    tl_tensor *hr = tl_tensor_read_host(t, &err);
    ck_assert_ptr_nonnull(hr);
    ck_assert_uint_eq(tl_alloc_total(), total);
    ck_assert(tl_backend_host_accessible(tl_tensor_backend(hr)));
    ck_assert(tl_shape_equal(hr->ndim, hr->sizes, t->ndim, t->sizes));
    double v0;
    ck_assert_int_eq(tl_tensor_get_f64(hr, 5, &v0, &err), 0);
    ck_assert(v0 == 1.5);
    if (tl_backend_host_accessible(be))
        ck_assert_ptr_eq(hr, t); /* read in place */
    tl_tensor_release(hr);
    ck_assert_uint_eq(tl_alloc_total(), total);
    tl_tensor_release(z);
    tl_tensor_release(y);
    tl_tensor_release(t);
    tl_tensor_release(x);
}
END_TEST

/* pin_memory's storage move: the block comes from the run's CUDA backend's
 * host allocator (the CPU's calloc without one), the bytes survive, and
 * the tensor stays a CPU tensor. */
START_TEST(test_pin)
{
    be = backends[_i];
    bool cuda = tl_backend_device(be).kind == TL_DEV_CUDA;
    tl_context_set_backends(NULL, cuda ? be : NULL);
    tl_error err = {0};
    int64_t sz[1] = {5};
    tl_tensor *x = tl_tensor_new(tl_backend_cpu(), TL_INT64, 1, sz, &err);
    ck_assert_ptr_nonnull(x);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(tl_tensor_set_i64(x, i, 10 * i, &err), 0);
    size_t live = tl_alloc_live();
    ck_assert(!x->storage->pinned);
    ck_assert_int_eq(tl_storage_pin(x->storage, &err), 0);
    ck_assert(x->storage->pinned);
    ck_assert_ptr_eq(x->storage->host_owner, cuda ? be : tl_backend_cpu());
    ck_assert_uint_eq(tl_alloc_live(), live);
    ck_assert_int_eq(tl_tensor_device(x).kind, TL_DEV_CPU);
    for (int i = 0; i < 5; i++) {
        int64_t v;
        ck_assert_int_eq(tl_tensor_get_i64(x, i, &v, &err), 0);
        ck_assert_int_eq(v, 10 * i);
    }
    ck_assert_int_eq(tl_storage_pin(x->storage, &err), 0); /* already */
    /* resize keeps it in pinned memory */
    ck_assert_int_eq(tl_storage_resize(x->storage, 80, &err), 0);
    ck_assert_ptr_eq(x->storage->host_owner, cuda ? be : tl_backend_cpu());
    int64_t v;
    ck_assert_int_eq(tl_tensor_get_i64(x, 4, &v, &err), 0);
    ck_assert_int_eq(v, 40);
    tl_tensor_release(x);
    ck_assert_uint_eq(tl_alloc_live(), live - 40);
    tl_context_set_backends(NULL, NULL);
}
END_TEST

/* ---- errors ---- */

START_TEST(test_errors)
{
    be = backends[_i];
    tl_error err = {0};
    int64_t a[4] = {1, 2, 3, 4}, z[4] = {1, 0, 1, 1}, r[4];
    ck_assert_int_eq(bin_i64(TL_BIN_FLOORDIV, a, z, r, &err), -1);
    ck_assert_int_eq(err.kind, TL_ERR_RUNTIME);
    ck_assert_str_eq(err.msg, "ZeroDivisionError");
    tl_error_clear(&err);
    ck_assert_int_eq(bin_i64(TL_BIN_REMAINDER, a, z, r, &err), -1);
    ck_assert_str_eq(err.msg, "ZeroDivisionError");
    tl_error_clear(&err);
    ck_assert_int_eq(bin_i64(TL_BIN_FMOD, a, z, r, &err), -1);
    tl_error_clear(&err);
    /* bitwise on floats: torch's "not implemented for" message */
    double fa[4] = {1, 2, 3, 4}, fr[4];
    ck_assert_int_eq(bin_f64(TL_BIN_BITAND, fa, fa, fr, &err), -1);
    ck_assert_int_eq(err.kind, TL_ERR_RUNTIME);
    ck_assert_str_eq(err.msg, not_impl("bitwise_and", "Double"));
    tl_error_clear(&err);
    /* mismatched shapes are refused, not crashed on */
    int64_t n4[1] = {4}, n3[1] = {3}, one[1] = {1};
    tl_strided d = desc(r, TL_INT64, 1, n4, one);
    tl_strided s = desc(a, TL_INT64, 1, n3, one);
    ck_assert_int_eq(t_copy_strided(&d, &s, &err), -1);
    ck_assert_int_eq(err.kind, TL_ERR_INTERNAL);
    tl_error_clear(&err);
    /* out-of-range gather index */
    int64_t bad[1] = {4};
    int64_t d1[1] = {1};
    tl_strided dd = desc(r, TL_INT64, 1, d1, one);
    tl_strided ss = desc(a, TL_INT64, 1, n4, one);
    ck_assert_int_eq(t_gather(&dd, &ss, 0, bad, 1, &err), -1);
    ck_assert_int_eq(err.kind, TL_ERR_INTERNAL);
    tl_error_clear(&err);
    ck_assert_int_eq(t_gather(&dd, &ss, 3, bad, 1, &err), -1);
    tl_error_clear(&err);
    /* max over an empty reduction has no identity */
    int64_t e0[1] = {0};
    tl_strided se = desc(NULL, TL_FLOAT32, 1, e0, one);
    float out;
    tl_strided de = desc(&out, TL_FLOAT32, 1, d1, one);
    ck_assert_int_eq(t_reduce(TL_RED_MAX, TL_FLOAT32, &de, &se, 1, &err), -1);
    ck_assert_int_eq(err.kind, TL_ERR_RUNTIME);
    tl_error_clear(&err);
    /* reduce mask naming a dim beyond ndim */
    ck_assert_int_eq(t_reduce(TL_RED_SUM, TL_FLOAT32, &de, &se, 4, &err), -1);
    tl_error_clear(&err);
    /* bad enum values */
    ck_assert_int_eq(t_binary(TL_NBINOPS, TL_INT64, &d, &ss, &ss, &err), -1);
    tl_error_clear(&err);
    ck_assert_int_eq(t_unary(TL_NUNOPS, TL_INT64, &d, &ss, &err), -1);
    /* kernel names follow the device (lshift_cuda on the cuda devices) */
    tl_error_clear(&err);
    int64_t n4b[1] = {4};
    tl_strided fd = desc(fr, TL_FLOAT64, 1, n4b, one);
    tl_strided fs = desc(fa, TL_FLOAT64, 1, n4b, one);
    ck_assert_int_eq(t_binary(TL_BIN_LSHIFT, TL_FLOAT64, &fd, &fs, &fs, &err), -1);
    ck_assert_str_eq(err.msg, not_impl("lshift", "Double"));
}
END_TEST

#define ADD(tc, fn) tcase_add_loop_test(tc, fn, 0, nbackends)

static Suite *tl_backend_suite(void)
{
    Suite *s = suite_create("backend");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup, NULL);
    ADD(core, test_identity);
    ADD(core, test_copy_transpose);
    ADD(core, test_copy_broadcast_convert);
    ADD(core, test_fill_strided);
    ADD(core, test_binary_python_division);
    ADD(core, test_binary_pow_shift_bits);
    ADD(core, test_binary_dtypes);
    ADD(core, test_binary_broadcast_2d);
    ADD(core, test_unary);
    ADD(core, test_where_index_select);
    ADD(core, test_large_float_reductions);
    ADD(core, test_scatter);
    ADD(core, test_sort);
    ADD(core, test_scan);
    ADD(core, test_reduce);
    ADD(core, test_reduce_truth);
    ADD(core, test_counters);
    ADD(core, test_pin);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, setup, NULL);
    ADD(limits, test_numel_zero);
    ADD(limits, test_zero_dim_and_many_dims);
    ADD(limits, test_large_contiguous);
    suite_add_tcase(s, limits);
    TCase *errors = tcase_create("errors");
    tcase_add_checked_fixture(errors, setup, NULL);
    ADD(errors, test_errors);
    suite_add_tcase(s, errors);
    return s;
}

int main(void)
{
    nbackends = tl_backend_registry(backends, MAX_BACKENDS - 1);
    if (nbackends > MAX_BACKENDS - 1)
        nbackends = MAX_BACKENDS - 1;
    backends[nbackends++] = &remote_backend; /* the fallbacks, untouchable memory */
    for (int i = 0; i < nbackends; i++)
        printf("backend %d: %s\n", i, tl_backend_name(backends[i]));
    SRunner *sr = srunner_create(tl_backend_suite());
    /* a real GPU backend was opened in this process: forked children
     * cannot use its CUDA context, so the tests run in the process */
    for (int i = 0; i < nbackends; i++)
        if (!strcmp(tl_backend_name(backends[i]), "cuda"))
            srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
