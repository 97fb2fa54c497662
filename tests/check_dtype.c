/* check_dtype.c - unit tests for dtype.c: names, promotion, casting rules,
 * float16/bfloat16 rounding and the float -> integer conversions.
 *
 * Every expected value below was measured with torch 1.13.1
 * (torch.promote_types, torch.can_cast, Tensor.half().view(torch.int16),
 * Tensor.to(dtype)).
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"

/* ---- core ---- */

START_TEST(test_names_sizes)
{
    static const size_t sizes[TL_NDTYPES] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
    static const char *names[TL_NDTYPES] = {"bool", "uint8", "int8", "int16",
                                            "int32", "int64", "float16",
                                            "bfloat16", "float32", "float64"};
    static const char *scalar[TL_NDTYPES] = {"Bool", "Byte", "Char", "Short",
                                             "Int", "Long", "Half", "BFloat16",
                                             "Float", "Double"};
    for (int d = 0; d < TL_NDTYPES; d++) {
        ck_assert_uint_eq(tl_dtype_size((tl_dtype)d), sizes[d]);
        ck_assert_str_eq(tl_dtype_name((tl_dtype)d), names[d]);
        ck_assert_str_eq(tl_dtype_scalar_name((tl_dtype)d), scalar[d]);
        tl_dtype back;
        ck_assert(tl_dtype_from_name(names[d], &back));
        ck_assert_int_eq(back, d);
    }
    ck_assert_str_eq(tl_dtype_tensor_type(TL_FLOAT32), "torch.FloatTensor");
    ck_assert_str_eq(tl_dtype_tensor_type(TL_INT64), "torch.LongTensor");
    ck_assert_str_eq(tl_dtype_tensor_type(TL_BFLOAT16), "torch.BFloat16Tensor");
    tl_dtype dt;
    ck_assert(tl_dtype_from_name("double", &dt) && dt == TL_FLOAT64);
    ck_assert(tl_dtype_from_name("half", &dt) && dt == TL_FLOAT16);
    ck_assert(tl_dtype_from_name("long", &dt) && dt == TL_INT64);
    ck_assert(tl_dtype_from_name("int", &dt) && dt == TL_INT32);
    ck_assert(tl_dtype_from_name("short", &dt) && dt == TL_INT16);
    ck_assert(tl_dtype_from_name("float", &dt) && dt == TL_FLOAT32);
    ck_assert(tl_dtype_is_floating(TL_BFLOAT16));
    ck_assert(!tl_dtype_is_floating(TL_INT64));
    ck_assert(tl_dtype_is_integral(TL_UINT8));
    ck_assert(!tl_dtype_is_integral(TL_BOOL));
}
END_TEST

/* torch.promote_types over (bool, u8, i8, i16, i32, i64, f16, bf16, f32,
 * f64) x same, measured on 1.13.1 */
#define B TL_BOOL
#define U8 TL_UINT8
#define I8 TL_INT8
#define I16 TL_INT16
#define I32 TL_INT32
#define I64 TL_INT64
#define F16 TL_FLOAT16
#define BF TL_BFLOAT16
#define F32 TL_FLOAT32
#define F64 TL_FLOAT64
static const tl_dtype promo[TL_NDTYPES][TL_NDTYPES] = {
    {B, U8, I8, I16, I32, I64, F16, BF, F32, F64},
    {U8, U8, I16, I16, I32, I64, F16, BF, F32, F64},
    {I8, I16, I8, I16, I32, I64, F16, BF, F32, F64},
    {I16, I16, I16, I16, I32, I64, F16, BF, F32, F64},
    {I32, I32, I32, I32, I32, I64, F16, BF, F32, F64},
    {I64, I64, I64, I64, I64, I64, F16, BF, F32, F64},
    {F16, F16, F16, F16, F16, F16, F16, F32, F32, F64},
    {BF, BF, BF, BF, BF, BF, F32, BF, F32, F64},
    {F32, F32, F32, F32, F32, F32, F32, F32, F32, F64},
    {F64, F64, F64, F64, F64, F64, F64, F64, F64, F64},
};

START_TEST(test_promote_table)
{
    for (int a = 0; a < TL_NDTYPES; a++)
        for (int b = 0; b < TL_NDTYPES; b++)
            ck_assert_msg(tl_dtype_promote((tl_dtype)a, (tl_dtype)b) ==
                              promo[a][b],
                          "promote(%s, %s) = %s, torch says %s",
                          tl_dtype_name((tl_dtype)a), tl_dtype_name((tl_dtype)b),
                          tl_dtype_name(tl_dtype_promote((tl_dtype)a, (tl_dtype)b)),
                          tl_dtype_name(promo[a][b]));
}
END_TEST

START_TEST(test_can_cast_table)
{
    /* torch.can_cast(from, to): rows = from */
    for (int a = 0; a < TL_NDTYPES; a++) {
        for (int b = 0; b < TL_NDTYPES; b++) {
            bool expect;
            if (a == TL_BOOL)
                expect = true;
            else if (tl_dtype_is_integral((tl_dtype)a))
                expect = b != TL_BOOL;
            else
                expect = tl_dtype_is_floating((tl_dtype)b);
            ck_assert_msg(tl_dtype_can_cast((tl_dtype)a, (tl_dtype)b) == expect,
                          "can_cast(%d, %d)", a, b);
        }
    }
}
END_TEST

/* float32 value -> float16 bits, bfloat16 bits (torch 1.13.1) */
static const struct {
    float v;
    uint16_t h, bf;
} half_cases[] = {
    {1.0f, 0x3c00, 0x3f80},
    {1.00048828125f, 0x3c00, 0x3f80}, /* tie, even stays */
    {1.00146484375f, 0x3c02, 0x3f80}, /* tie, odd rounds up */
    {1.0004892349243164f, 0x3c01, 0x3f80}, /* just above the tie */
    {65504.0f, 0x7bff, 0x4780},
    {65519.0f, 0x7bff, 0x4780},
    {65520.0f, 0x7c00, 0x4780}, /* rounds to inf */
    {1e6f, 0x7c00, 0x4974},
    {5.960464477539063e-08f, 0x0001, 0x3380}, /* smallest subnormal */
    {2.9802322387695312e-08f, 0x0000, 0x3300}, /* half of it: tie to 0 */
    {4.470348358154297e-08f, 0x0001, 0x3340},
    {8.940696716308594e-08f, 0x0002, 0x33c0}, /* 1.5 ulp tie -> even 2 */
    {6.103515625e-05f, 0x0400, 0x3880},       /* smallest normal */
    {6.1005353927612305e-05f, 0x0400, 0x3880}, /* subnormal rounds up */
    {-0.0f, 0x8000, 0x8000},
    {-2.0f, 0xc000, 0xc000},
    {0.1f, 0x2e66, 0x3dcd},
    {1e-8f, 0x0000, 0x322c},
    {1.00390625f, 0x3c04, 0x3f80},  /* bf16 tie, even */
    {1.01171875f, 0x3c0c, 0x3f82},  /* bf16 tie, odd rounds up */
    {3.4e38f, 0x7c00, 0x7f80},
};

START_TEST(test_f16_bf16_rounding)
{
    for (size_t i = 0; i < sizeof half_cases / sizeof half_cases[0]; i++) {
        ck_assert_msg(tl_f32_to_f16(half_cases[i].v) == half_cases[i].h,
                      "f16(%.17g) = 0x%04x, want 0x%04x", (double)half_cases[i].v,
                      tl_f32_to_f16(half_cases[i].v), half_cases[i].h);
        ck_assert_msg(tl_f32_to_bf16(half_cases[i].v) == half_cases[i].bf,
                      "bf16(%.17g) = 0x%04x, want 0x%04x",
                      (double)half_cases[i].v, tl_f32_to_bf16(half_cases[i].v),
                      half_cases[i].bf);
    }
}
END_TEST

START_TEST(test_f16_special)
{
    ck_assert_uint_eq(tl_f32_to_f16(INFINITY), 0x7c00);
    ck_assert_uint_eq(tl_f32_to_f16(-INFINITY), 0xfc00);
    ck_assert_uint_eq(tl_f32_to_f16(NAN), 0x7e00);
    ck_assert_uint_eq(tl_f32_to_f16(-NAN), 0xfe00);
    ck_assert(isnan(tl_f16_to_f32(0x7e00)));
    ck_assert(isinf(tl_f16_to_f32(0xfc00)) && tl_f16_to_f32(0xfc00) < 0);
    ck_assert(isnan(tl_bf16_to_f32(tl_f32_to_bf16(NAN))));
    ck_assert_uint_eq(tl_f32_to_bf16(INFINITY), 0x7f80);
    ck_assert(tl_f16_to_f32(0x0001) == 0x1p-24f);
    ck_assert(tl_f16_to_f32(0x03ff) == 1023 * 0x1p-24f);
    ck_assert(tl_f16_to_f32(0x7bff) == 65504.0f);
    ck_assert(signbit(tl_f16_to_f32(0x8000)));
}
END_TEST

/* Every finite half survives f16 -> f32 -> f16 exactly; likewise bf16. */
START_TEST(test_half_roundtrip_all)
{
    for (uint32_t h = 0; h < 0x10000u; h++) {
        float f = tl_f16_to_f32((uint16_t)h);
        if (!isnan(f))
            ck_assert_msg(tl_f32_to_f16(f) == h, "f16 0x%04x", h);
        float g = tl_bf16_to_f32((uint16_t)h);
        if (!isnan(g))
            ck_assert_msg(tl_f32_to_bf16(g) == h, "bf16 0x%04x", h);
    }
}
END_TEST

/* Round-to-nearest-even against a reference computed in double: for many
 * floats, the result must be one of the two neighbours and the nearer. */
START_TEST(test_f16_nearest)
{
    uint32_t seed = 12345;
    for (int i = 0; i < 200000; i++) {
        seed = seed * 1103515245u + 12345u;
        float f = ((float)(seed >> 8) / (float)(1u << 24) - 0.5f) * 140000.0f;
        if (i & 1)
            f *= 1e-4f;
        uint16_t h = tl_f32_to_f16(f);
        double got = tl_f16_to_f32(h);
        if (isinf(got))
            continue;
        uint16_t up = (uint16_t)(h + 1), dn = (uint16_t)(h - 1);
        double e = fabs(got - (double)f);
        double eu = fabs(tl_f16_to_f32(up) - (double)f);
        double ed = fabs(tl_f16_to_f32(dn) - (double)f);
        if ((h & 0x7fff) != 0x7bff)
            ck_assert_msg(e <= eu, "f=%.9g", (double)f);
        if ((h & 0x7fff) != 0)
            ck_assert_msg(e <= ed, "f=%.9g", (double)f);
    }
}
END_TEST

/* ---- limits: conversions at the edges ---- */

/* float values -> integer dtypes, torch 1.13.1 on x86-64 */
static const double conv_in[] = {NAN, INFINITY, -INFINITY, 300.7, -300.7,
                                 1e10, -1e10, 2.9, -2.9, 1e20, 255.5, -0.5,
                                 128.0, -129.0};
static const int64_t conv_out[5][14] = {
    /* uint8 */ {0, 0, 0, 44, 212, 0, 0, 2, 254, 0, 255, 0, 128, 127},
    /* int8 */ {0, 0, 0, 44, -44, 0, 0, 2, -2, 0, -1, 0, -128, 127},
    /* int16 */ {0, 0, 0, 300, -300, 0, 0, 2, -2, 0, 255, 0, 128, -129},
    /* int32 */ {INT32_MIN, INT32_MIN, INT32_MIN, 300, -300, INT32_MIN,
                 INT32_MIN, 2, -2, INT32_MIN, 255, 0, 128, -129},
    /* int64 */ {INT64_MIN, INT64_MIN, INT64_MIN, 300, -300, 10000000000LL,
                 -10000000000LL, 2, -2, INT64_MIN, 255, 0, 128, -129},
};

START_TEST(test_float_to_int)
{
    static const tl_dtype dts[5] = {TL_UINT8, TL_INT8, TL_INT16, TL_INT32,
                                    TL_INT64};
    for (int k = 0; k < 5; k++) {
        for (int i = 0; i < 14; i++) {
            unsigned char buf[8];
            tl_dtype_store_f64(dts[k], buf, conv_in[i]);
            int64_t got = tl_dtype_load_i64(dts[k], buf);
            ck_assert_msg(got == conv_out[k][i], "%s(%g) = %lld, want %lld",
                          tl_dtype_name(dts[k]), conv_in[i], (long long)got,
                          (long long)conv_out[k][i]);
        }
    }
    /* load_i64 of a float element truncates the same way */
    float f = -2.9f;
    ck_assert_int_eq(tl_dtype_load_i64(TL_FLOAT32, &f), -2);
    f = NAN;
    ck_assert_int_eq(tl_dtype_load_i64(TL_FLOAT32, &f), INT64_MIN);
    /* -> bool: v != 0, NaN is true */
    unsigned char b;
    tl_dtype_store_f64(TL_BOOL, &b, NAN);
    ck_assert_uint_eq(b, 1);
    tl_dtype_store_f64(TL_BOOL, &b, -0.0);
    ck_assert_uint_eq(b, 0);
    tl_dtype_store_i64(TL_BOOL, &b, 256);
    ck_assert_uint_eq(b, 1);
}
END_TEST

START_TEST(test_int_wrap_and_float_store)
{
    unsigned char buf[8];
    tl_dtype_store_i64(TL_UINT8, buf, 300);
    ck_assert_int_eq(tl_dtype_load_i64(TL_UINT8, buf), 44);
    tl_dtype_store_i64(TL_INT8, buf, 200);
    ck_assert_int_eq(tl_dtype_load_i64(TL_INT8, buf), -56);
    tl_dtype_store_i64(TL_INT32, buf, INT64_MIN);
    ck_assert_int_eq(tl_dtype_load_i64(TL_INT32, buf), 0);
    tl_dtype_store_i64(TL_INT16, buf, -1);
    ck_assert_int_eq(tl_dtype_load_i64(TL_INT16, buf), -1);
    /* int64 -> float32 rounds once: 2^24 + 1 -> 2^24 */
    tl_dtype_store_i64(TL_FLOAT32, buf, 16777217);
    ck_assert(tl_dtype_load_f64(TL_FLOAT32, buf) == 16777216.0);
    tl_dtype_store_i64(TL_FLOAT16, buf, 65519);
    ck_assert(tl_dtype_load_f64(TL_FLOAT16, buf) == 65504.0);
    tl_dtype_store_f64(TL_FLOAT16, buf, 1e300);
    ck_assert(isinf(tl_dtype_load_f64(TL_FLOAT16, buf)));
    tl_dtype_store_f64(TL_FLOAT32, buf, 0.1);
    ck_assert(tl_dtype_load_f64(TL_FLOAT32, buf) == (double)0.1f);
    tl_dtype_store_f64(TL_BFLOAT16, buf, 1.0 + 1.0 / 256);
    ck_assert(tl_dtype_load_f64(TL_BFLOAT16, buf) == 1.0);
    int64_t big = INT64_MAX;
    tl_dtype_store_i64(TL_INT64, buf, big);
    ck_assert_int_eq(tl_dtype_load_i64(TL_INT64, buf), INT64_MAX);
}
END_TEST

/* ---- errors: unknown names and bad enum values are refused, not UB ---- */

START_TEST(test_unknown)
{
    tl_dtype dt = TL_INT8;
    ck_assert(!tl_dtype_from_name("float128", &dt));
    ck_assert(!tl_dtype_from_name("", &dt));
    ck_assert(!tl_dtype_from_name("complex64", &dt));
    ck_assert(!tl_dtype_from_name(NULL, &dt));
    ck_assert_int_eq(dt, TL_INT8);
    ck_assert_uint_eq(tl_dtype_size(TL_NDTYPES), 0);
    ck_assert_str_eq(tl_dtype_name((tl_dtype)99), "?");
}
END_TEST

static Suite *tl_dtype_suite(void)
{
    Suite *s = suite_create("dtype");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_names_sizes);
    tcase_add_test(core, test_promote_table);
    tcase_add_test(core, test_can_cast_table);
    tcase_add_test(core, test_f16_bf16_rounding);
    tcase_add_test(core, test_f16_special);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_half_roundtrip_all);
    tcase_add_test(limits, test_f16_nearest);
    tcase_add_test(limits, test_float_to_int);
    tcase_add_test(limits, test_int_wrap_and_float_store);
    suite_add_tcase(s, limits);
    TCase *errors = tcase_create("errors");
    tcase_add_test(errors, test_unknown);
    suite_add_tcase(s, errors);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(tl_dtype_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
