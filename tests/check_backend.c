/* check_backend.c - unit tests for the host kernels (backend_cpu.c):
 * strided and broadcast iteration, every op family on small cases whose
 * values were measured with torch 1.13.1, reductions and numel-0 cases.
 *
 * Operands are plain C arrays described by tl_strided, so these tests
 * exercise the kernels without the tensor layer.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

static const tl_backend *be;

static void setup(void)
{
    be = tl_backend_cpu();
}

static tl_strided desc(void *data, tl_dtype dt, int ndim, const int64_t *sizes,
                       const int64_t *strides)
{
    tl_strided s = {data, dt, ndim, sizes, strides};
    return s;
}

/* ---- core ---- */

START_TEST(test_identity)
{
    ck_assert_str_eq(tl_backend_name(tl_backend_cpu()), "cpu");
    ck_assert_int_eq(tl_backend_device(tl_backend_cpu()).kind, TL_DEV_CPU);
    ck_assert(tl_backend_host_accessible(tl_backend_cpu()));
    const tl_backend *emu = tl_backend_cuda_emulated();
    ck_assert_str_eq(tl_backend_name(emu), "cuda-emulated");
    ck_assert_int_eq(tl_backend_device(emu).kind, TL_DEV_CUDA);
    ck_assert_int_eq(tl_backend_device(emu).index, 0);
    ck_assert_ptr_ne(emu, tl_backend_cpu());
    /* alloc is zeroed */
    tl_error err = {0};
    unsigned char *p = NULL;
    ck_assert_int_eq(tl_backend_alloc(be, 64, (void **)&p, &err), 0);
    ck_assert_ptr_nonnull(p);
    for (int i = 0; i < 64; i++)
        ck_assert_uint_eq(p[i], 0);
    unsigned char h[4] = {1, 2, 3, 4};
    ck_assert_int_eq(tl_backend_from_host(be, p, h, 4, &err), 0);
    unsigned char back[4] = {0};
    ck_assert_int_eq(tl_backend_to_host(be, back, p, 4, &err), 0);
    ck_assert_mem_eq(back, h, 4);
    tl_backend_free(be, p);
}
END_TEST

START_TEST(test_copy_transpose)
{
    /* src = [[0,1,2],[3,4,5]] viewed transposed (3,2)/(1,3) -> contiguous */
    float src[6] = {0, 1, 2, 3, 4, 5};
    float dst[6] = {0};
    int64_t sz[2] = {3, 2}, sst[2] = {1, 3}, dstr[2] = {2, 1};
    tl_strided d = desc(dst, TL_FLOAT32, 2, sz, dstr);
    tl_strided s = desc(src, TL_FLOAT32, 2, sz, sst);
    tl_error err = {0};
    ck_assert_int_eq(tl_backend_copy_strided(be, &d, &s, &err), 0);
    float want[6] = {0, 3, 1, 4, 2, 5};
    for (int i = 0; i < 6; i++)
        ck_assert(dst[i] == want[i]);
}
END_TEST

START_TEST(test_copy_broadcast_convert)
{
    /* int64 row (3) broadcast to (2,3) and converted to float64 */
    int64_t src[3] = {7, -8, 9};
    double dst[6] = {0};
    int64_t sz[2] = {2, 3}, sst[2] = {0, 1}, dstr[2] = {3, 1};
    tl_strided d = desc(dst, TL_FLOAT64, 2, sz, dstr);
    tl_strided s = desc(src, TL_INT64, 2, sz, sst);
    tl_error err = {0};
    ck_assert_int_eq(tl_backend_copy_strided(be, &d, &s, &err), 0);
    double want[6] = {7, -8, 9, 7, -8, 9};
    for (int i = 0; i < 6; i++)
        ck_assert(dst[i] == want[i]);
    /* float -> uint8 with torch's truncate-and-wrap (300.7 -> 44) */
    float fs[4] = {300.7f, -2.9f, 2.9f, NAN};
    uint8_t u[4];
    int64_t n4[1] = {4}, one[1] = {1};
    tl_strided du = desc(u, TL_UINT8, 1, n4, one);
    tl_strided sf = desc(fs, TL_FLOAT32, 1, n4, one);
    ck_assert_int_eq(tl_backend_copy_strided(be, &du, &sf, &err), 0);
    ck_assert_uint_eq(u[0], 44);
    ck_assert_uint_eq(u[1], 254);
    ck_assert_uint_eq(u[2], 2);
    ck_assert_uint_eq(u[3], 0);
}
END_TEST

START_TEST(test_fill_strided)
{
    int32_t buf[12] = {0};
    /* every other column of a (3,4): sizes (3,2) strides (4,2) */
    int64_t sz[2] = {3, 2}, st[2] = {4, 2};
    tl_strided d = desc(buf, TL_INT32, 2, sz, st);
    tl_error err = {0};
    tl_scalar v = {.is_float = true, .f = 2.7};
    ck_assert_int_eq(tl_backend_fill(be, &d, v, &err), 0);
    for (int i = 0; i < 12; i++)
        ck_assert_int_eq(buf[i], (i % 2 == 0) ? 2 : 0);
    /* zero fill of a contiguous bool */
    uint8_t b[5] = {1, 1, 1, 1, 1};
    int64_t n5[1] = {5}, one[1] = {1};
    tl_strided db = desc(b, TL_BOOL, 1, n5, one);
    tl_scalar z = {.is_float = false, .i = 0};
    ck_assert_int_eq(tl_backend_fill(be, &db, z, &err), 0);
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
    return tl_backend_binary(be, op, TL_INT64, &d, &sa, &sb, err);
}

static int bin_f64(tl_binop op, const double *a, const double *b, double *out,
                   tl_error *err)
{
    int64_t n[1] = {4}, one[1] = {1};
    tl_strided d = desc(out, TL_FLOAT64, 1, n, one);
    tl_strided sa = desc((void *)a, TL_FLOAT64, 1, n, one);
    tl_strided sb = desc((void *)b, TL_FLOAT64, 1, n, one);
    return tl_backend_binary(be, op, TL_FLOAT64, &d, &sa, &sb, err);
}

START_TEST(test_binary_python_division)
{
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
    tl_error err = {0};
    int64_t n[1] = {3}, one[1] = {1};
    /* uint8 arithmetic wraps: 200 + 100 = 44 */
    uint8_t ua[3] = {200, 255, 0}, ub[3] = {100, 1, 1}, ur[3];
    tl_strided du = desc(ur, TL_UINT8, 1, n, one);
    tl_strided sa = desc(ua, TL_UINT8, 1, n, one);
    tl_strided sb = desc(ub, TL_UINT8, 1, n, one);
    ck_assert_int_eq(tl_backend_binary(be, TL_BIN_ADD, TL_UINT8, &du, &sa, &sb, &err), 0);
    ck_assert(ur[0] == 44 && ur[1] == 0 && ur[2] == 1);
    ck_assert_int_eq(tl_backend_binary(be, TL_BIN_SUB, TL_UINT8, &du, &sa, &sb, &err), 0);
    ck_assert(ur[0] == 100 && ur[1] == 254 && ur[2] == 255);

    /* float32 compute rounds: 0.1f + 0.2f */
    float fa[3] = {0.1f, 1.0f, 16777216.0f}, fb[3] = {0.2f, 3.0f, 1.0f}, fr[3];
    tl_strided df = desc(fr, TL_FLOAT32, 1, n, one);
    tl_strided sfa = desc(fa, TL_FLOAT32, 1, n, one);
    tl_strided sfb = desc(fb, TL_FLOAT32, 1, n, one);
    ck_assert_int_eq(tl_backend_binary(be, TL_BIN_ADD, TL_FLOAT32, &df, &sfa, &sfb, &err), 0);
    ck_assert(fr[0] == 0.1f + 0.2f);
    ck_assert(fr[2] == 16777216.0f);
    ck_assert_int_eq(tl_backend_binary(be, TL_BIN_DIV, TL_FLOAT32, &df, &sfa, &sfb, &err), 0);
    ck_assert(fr[1] == 1.0f / 3.0f);

    /* int64 + float32 in float32 compute into a float64 out: the int is
     * rounded to float32 first (2^24 + 1 -> 2^24) */
    int64_t ia[3] = {16777217, 1, 2};
    double dr[3];
    tl_strided dd = desc(dr, TL_FLOAT64, 1, n, one);
    tl_strided sia = desc(ia, TL_INT64, 1, n, one);
    ck_assert_int_eq(tl_backend_binary(be, TL_BIN_MUL, TL_FLOAT32, &dd, &sia, &sfb, &err), 0);
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
    ck_assert_int_eq(tl_backend_binary(be, TL_BIN_ADD, TL_FLOAT16, &dh, &sha, &shb, &err), 0);
    ck_assert_uint_eq(hr[0], 0x3c00);

    /* comparisons produce bool */
    uint8_t br[3];
    tl_strided dbool = desc(br, TL_BOOL, 1, n, one);
    ck_assert_int_eq(tl_backend_binary(be, TL_BIN_LT, TL_FLOAT32, &dbool, &sfa, &sfb, &err), 0);
    ck_assert(br[0] == 1 && br[1] == 1 && br[2] == 0);
    ck_assert_int_eq(tl_backend_binary(be, TL_BIN_EQ, TL_UINT8, &dbool, &sa, &sb, &err), 0);
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
    /* a (2,1) column + b (1,3) row into a (2,3) output */
    int32_t a[2] = {10, 20}, b[3] = {1, 2, 3}, out[6];
    int64_t sz[2] = {2, 3}, ast[2] = {1, 0}, bst[2] = {0, 1}, ost[2] = {3, 1};
    tl_strided d = desc(out, TL_INT32, 2, sz, ost);
    tl_strided sa = desc(a, TL_INT32, 2, sz, ast);
    tl_strided sb = desc(b, TL_INT32, 2, sz, bst);
    tl_error err = {0};
    ck_assert_int_eq(tl_backend_binary(be, TL_BIN_ADD, TL_INT32, &d, &sa, &sb, &err), 0);
    int32_t want[6] = {11, 12, 13, 21, 22, 23};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(out[i], want[i]);
    /* transposed output layout: (2,3) with strides (1,2) */
    int64_t tst[2] = {1, 2};
    tl_strided dt = desc(out, TL_INT32, 2, sz, tst);
    ck_assert_int_eq(tl_backend_binary(be, TL_BIN_MUL, TL_INT32, &dt, &sa, &sb, &err), 0);
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
    ck_assert_int_eq(tl_backend_unary(be, op, TL_FLOAT64, &d, &s, &err), 0);
}

START_TEST(test_unary)
{
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
    ck_assert_int_eq(tl_backend_unary(be, TL_UN_ABS, TL_INT8, &d, &s, &err), 0);
    ck_assert(o8[0] == -128 && o8[1] == 5 && o8[2] == 7);
    ck_assert_int_eq(tl_backend_unary(be, TL_UN_NEG, TL_INT8, &d, &s, &err), 0);
    ck_assert(o8[0] == -128 && o8[1] == 5 && o8[2] == -7);
    ck_assert_int_eq(tl_backend_unary(be, TL_UN_BITWISE_NOT, TL_INT8, &d, &s, &err), 0);
    ck_assert(o8[0] == 127 && o8[1] == 4 && o8[2] == -8);
    /* bool ~ is logical not; isnan on floats gives bool */
    uint8_t bb[3] = {1, 0, 1}, bo[3];
    tl_strided db = desc(bo, TL_BOOL, 1, n3, one);
    tl_strided sb = desc(bb, TL_BOOL, 1, n3, one);
    ck_assert_int_eq(tl_backend_unary(be, TL_UN_BITWISE_NOT, TL_BOOL, &db, &sb, &err), 0);
    ck_assert(bo[0] == 0 && bo[1] == 1 && bo[2] == 0);
    float f3[3] = {NAN, INFINITY, 1};
    tl_strided sf = desc(f3, TL_FLOAT32, 1, n3, one);
    ck_assert_int_eq(tl_backend_unary(be, TL_UN_ISNAN, TL_FLOAT32, &db, &sf, &err), 0);
    ck_assert(bo[0] == 1 && bo[1] == 0 && bo[2] == 0);
    ck_assert_int_eq(tl_backend_unary(be, TL_UN_ISFINITE, TL_FLOAT32, &db, &sf, &err), 0);
    ck_assert(bo[0] == 0 && bo[1] == 0 && bo[2] == 1);
    /* float32 compute rounds the result */
    float fx[3] = {2, 3, 10}, fo[3];
    tl_strided dfo = desc(fo, TL_FLOAT32, 1, n3, one);
    tl_strided sfx = desc(fx, TL_FLOAT32, 1, n3, one);
    ck_assert_int_eq(tl_backend_unary(be, TL_UN_SQRT, TL_FLOAT32, &dfo, &sfx, &err), 0);
    ck_assert(fo[0] == sqrtf(2.0f) && fo[1] == sqrtf(3.0f));
}
END_TEST

START_TEST(test_where_index_select)
{
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
    ck_assert_int_eq(tl_backend_where(be, &d, &sc, &sa, &sb, &err), 0);
    ck_assert(out[0] == 1 && out[1] == -1 && out[2] == -1 && out[3] == 4);

    /* index_select along dim 1 of a (2,3): columns [2,0,2] */
    int64_t src[6] = {0, 1, 2, 3, 4, 5}, dst[6];
    int64_t ssz[2] = {2, 3}, sst[2] = {3, 1}, dsz[2] = {2, 3}, dst_st[2] = {3, 1};
    int64_t idx[3] = {2, 0, 2};
    tl_strided dd = desc(dst, TL_INT64, 2, dsz, dst_st);
    tl_strided ss = desc(src, TL_INT64, 2, ssz, sst);
    ck_assert_int_eq(tl_backend_gather(be, &dd, &ss, 1, idx, 3, &err), 0);
    int64_t want[6] = {2, 0, 2, 5, 3, 5};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(dst[i], want[i]);
    /* along dim 0 with a transposed source and converting to float */
    float fd[6];
    int64_t tsz[2] = {3, 2}, tst[2] = {1, 3}, fsz[2] = {3, 2}, fst[2] = {2, 1};
    int64_t idx0[3] = {1, 1, 0};
    tl_strided dfd = desc(fd, TL_FLOAT32, 2, fsz, fst);
    tl_strided ts = desc(src, TL_INT64, 2, tsz, tst);
    ck_assert_int_eq(tl_backend_gather(be, &dfd, &ts, 0, idx0, 3, &err), 0);
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
    ck_assert_msg(tl_backend_reduce(be, op, ct, &d, &s, mask, &err) == 0, "%s", err.msg);
}

START_TEST(test_reduce)
{
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
    tl_error err = {0};
    int64_t sz[2] = {3, 0}, st[2] = {1, 1};
    tl_strided d = desc(NULL, TL_FLOAT32, 2, sz, st);
    tl_strided s = desc(NULL, TL_FLOAT32, 2, sz, st);
    ck_assert_int_eq(tl_backend_copy_strided(be, &d, &s, &err), 0);
    tl_scalar v = {.is_float = true, .f = 1};
    ck_assert_int_eq(tl_backend_fill(be, &d, v, &err), 0);
    ck_assert_int_eq(tl_backend_binary(be, TL_BIN_ADD, TL_FLOAT32, &d, &s, &s, &err), 0);
    ck_assert_int_eq(tl_backend_unary(be, TL_UN_EXP, TL_FLOAT32, &d, &s, &err), 0);
    ck_assert_int_eq(tl_backend_where(be, &d, &s, &s, &s, &err), 0);
    /* sum over the empty dim of (3,0) gives three zeros; prod ones;
     * mean NaN (torch.zeros(0).mean() is nan) */
    float out[3] = {9, 9, 9};
    int64_t dsz[2] = {3, 1}, dst[2] = {1, 1};
    tl_strided dd = desc(out, TL_FLOAT32, 2, dsz, dst);
    ck_assert_int_eq(tl_backend_reduce(be, TL_RED_SUM, TL_FLOAT32, &dd, &s, 2, &err), 0);
    ck_assert(out[0] == 0 && out[1] == 0 && out[2] == 0);
    ck_assert_int_eq(tl_backend_reduce(be, TL_RED_PROD, TL_FLOAT32, &dd, &s, 2, &err), 0);
    ck_assert(out[0] == 1 && out[2] == 1);
    ck_assert_int_eq(tl_backend_reduce(be, TL_RED_MEAN, TL_FLOAT32, &dd, &s, 2, &err), 0);
    ck_assert(isnan(out[1]));
    uint8_t bo[3];
    tl_strided db = desc(bo, TL_BOOL, 2, dsz, dst);
    ck_assert_int_eq(tl_backend_reduce(be, TL_RED_ALL, TL_FLOAT32, &db, &s, 2, &err), 0);
    ck_assert(bo[0] == 1 && bo[2] == 1);
    ck_assert_int_eq(tl_backend_reduce(be, TL_RED_ANY, TL_FLOAT32, &db, &s, 2, &err), 0);
    ck_assert(bo[0] == 0);
    /* reduce over the non-empty dim: output is (1,0), nothing written */
    int64_t esz[2] = {1, 0};
    tl_strided de = desc(NULL, TL_FLOAT32, 2, esz, st);
    ck_assert_int_eq(tl_backend_reduce(be, TL_RED_MAX, TL_FLOAT32, &de, &s, 1, &err), 0);
    /* index_select with no indices */
    int64_t isz[2] = {3, 0};
    tl_strided di = desc(NULL, TL_FLOAT32, 2, isz, st);
    float src3[3] = {1, 2, 3};
    int64_t s3[2] = {3, 1}, s3st[2] = {1, 1};
    tl_strided si = desc(src3, TL_FLOAT32, 2, s3, s3st);
    ck_assert_int_eq(tl_backend_gather(be, &di, &si, 1, NULL, 0, &err), 0);
}
END_TEST

START_TEST(test_zero_dim_and_many_dims)
{
    tl_error err = {0};
    /* 0-d: one element */
    double a = 2.5, b = 4, r = 0;
    tl_strided d0 = desc(&r, TL_FLOAT64, 0, NULL, NULL);
    tl_strided a0 = desc(&a, TL_FLOAT64, 0, NULL, NULL);
    tl_strided b0 = desc(&b, TL_FLOAT64, 0, NULL, NULL);
    ck_assert_int_eq(tl_backend_binary(be, TL_BIN_POW, TL_FLOAT64, &d0, &a0, &b0, &err), 0);
    ck_assert(r == 39.0625);
    ck_assert_int_eq(tl_backend_reduce(be, TL_RED_SUM, TL_FLOAT64, &d0, &a0, 0, &err), 0);
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
    ck_assert_int_eq(tl_backend_copy_strided(be, &d, &s, &err), 0);
    ck_assert(out[0] == 0 && out[1] == 2 && out[2] == 1 && out[3] == 3);
}
END_TEST

START_TEST(test_large_contiguous)
{
    /* a long strip exercises the memcpy / merged-dim fast paths */
    enum { N = 1 << 20 };
    float *a = malloc(N * sizeof(float)), *o = malloc(N * sizeof(float));
    for (int i = 0; i < N; i++)
        a[i] = (float)i;
    int64_t sz[3] = {64, 128, 128}, st[3] = {128 * 128, 128, 1};
    tl_strided d = desc(o, TL_FLOAT32, 3, sz, st);
    tl_strided s = desc(a, TL_FLOAT32, 3, sz, st);
    tl_error err = {0};
    ck_assert_int_eq(tl_backend_copy_strided(be, &d, &s, &err), 0);
    ck_assert(memcmp(a, o, N * sizeof(float)) == 0);
    ck_assert_int_eq(tl_backend_binary(be, TL_BIN_ADD, TL_FLOAT32, &d, &s, &s, &err), 0);
    ck_assert(o[N - 1] == 2.0f * (N - 1));
    float total = 0;
    int64_t one[3] = {1, 1, 1};
    tl_strided dt = desc(&total, TL_FLOAT32, 3, one, one);
    ck_assert_int_eq(tl_backend_reduce(be, TL_RED_SUM, TL_FLOAT32, &dt, &s, 7, &err), 0);
    ck_assert(total == (float)((double)N * (N - 1) / 2));
    free(a);
    free(o);
}
END_TEST

/* ---- errors ---- */

START_TEST(test_errors)
{
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
    ck_assert_str_eq(err.msg, "\"bitwise_and_cpu\" not implemented for 'Double'");
    tl_error_clear(&err);
    /* mismatched shapes are refused, not crashed on */
    int64_t n4[1] = {4}, n3[1] = {3}, one[1] = {1};
    tl_strided d = desc(r, TL_INT64, 1, n4, one);
    tl_strided s = desc(a, TL_INT64, 1, n3, one);
    ck_assert_int_eq(tl_backend_copy_strided(be, &d, &s, &err), -1);
    ck_assert_int_eq(err.kind, TL_ERR_INTERNAL);
    tl_error_clear(&err);
    /* out-of-range gather index */
    int64_t bad[1] = {4};
    int64_t d1[1] = {1};
    tl_strided dd = desc(r, TL_INT64, 1, d1, one);
    tl_strided ss = desc(a, TL_INT64, 1, n4, one);
    ck_assert_int_eq(tl_backend_gather(be, &dd, &ss, 0, bad, 1, &err), -1);
    ck_assert_int_eq(err.kind, TL_ERR_INTERNAL);
    tl_error_clear(&err);
    ck_assert_int_eq(tl_backend_gather(be, &dd, &ss, 3, bad, 1, &err), -1);
    tl_error_clear(&err);
    /* max over an empty reduction has no identity */
    int64_t e0[1] = {0};
    tl_strided se = desc(NULL, TL_FLOAT32, 1, e0, one);
    float out;
    tl_strided de = desc(&out, TL_FLOAT32, 1, d1, one);
    ck_assert_int_eq(tl_backend_reduce(be, TL_RED_MAX, TL_FLOAT32, &de, &se, 1, &err), -1);
    ck_assert_int_eq(err.kind, TL_ERR_RUNTIME);
    tl_error_clear(&err);
    /* reduce mask naming a dim beyond ndim */
    ck_assert_int_eq(tl_backend_reduce(be, TL_RED_SUM, TL_FLOAT32, &de, &se, 4, &err), -1);
    tl_error_clear(&err);
    /* bad enum values */
    ck_assert_int_eq(tl_backend_binary(be, TL_NBINOPS, TL_INT64, &d, &ss, &ss, &err), -1);
    tl_error_clear(&err);
    ck_assert_int_eq(tl_backend_unary(be, TL_NUNOPS, TL_INT64, &d, &ss, &err), -1);
    /* the emulated device names its kernels after cuda */
    tl_error_clear(&err);
    int64_t n4b[1] = {4};
    tl_strided fd = desc(fr, TL_FLOAT64, 1, n4b, one);
    tl_strided fs = desc(fa, TL_FLOAT64, 1, n4b, one);
    ck_assert_int_eq(tl_backend_binary(tl_backend_cuda_emulated(), TL_BIN_LSHIFT, TL_FLOAT64,
                                                        &fd, &fs, &fs, &err), -1);
    ck_assert_str_eq(err.msg, "\"lshift_cuda\" not implemented for 'Double'");
}
END_TEST

static Suite *tl_backend_suite(void)
{
    Suite *s = suite_create("backend");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup, NULL);
    tcase_add_test(core, test_identity);
    tcase_add_test(core, test_copy_transpose);
    tcase_add_test(core, test_copy_broadcast_convert);
    tcase_add_test(core, test_fill_strided);
    tcase_add_test(core, test_binary_python_division);
    tcase_add_test(core, test_binary_pow_shift_bits);
    tcase_add_test(core, test_binary_dtypes);
    tcase_add_test(core, test_binary_broadcast_2d);
    tcase_add_test(core, test_unary);
    tcase_add_test(core, test_where_index_select);
    tcase_add_test(core, test_reduce);
    tcase_add_test(core, test_reduce_truth);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, setup, NULL);
    tcase_add_test(limits, test_numel_zero);
    tcase_add_test(limits, test_zero_dim_and_many_dims);
    tcase_add_test(limits, test_large_contiguous);
    suite_add_tcase(s, limits);
    TCase *errors = tcase_create("errors");
    tcase_add_checked_fixture(errors, setup, NULL);
    tcase_add_test(errors, test_errors);
    suite_add_tcase(s, errors);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(tl_backend_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
