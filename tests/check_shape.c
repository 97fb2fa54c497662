/* check_shape.c - unit tests for shape.c: the odometer, slice clamping,
 * broadcasting, dim wrapping and the diagonal geometry (computeStride and
 * infer_size are covered against the reference sheet in check_view.c).
 * Expected values are PyTorch 1.13's (x[a:b:c].shape, .diagonal().stride(),
 * torch.broadcast_shapes) worked by hand.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "shape.h"

START_TEST(odometer_walks_row_major)
{
    /* a (2, 3) layout transposed from (3, 2): strides (1, 2), offset 5 */
    const int64_t sizes[] = {2, 3}, strides[] = {1, 2};
    int64_t idx[2] = {0, 0}, off = 5;
    const int64_t want[] = {5, 7, 9, 6, 8, 10};
    int k = 0;
    do {
        ck_assert_int_lt(k, 6);
        ck_assert_int_eq(off, want[k]);
        k++;
    } while (tl_shape_next(2, sizes, idx, strides, &off));
    ck_assert_int_eq(k, 6);
    ck_assert_int_eq(off, 5); /* back where it started */
    ck_assert_int_eq(idx[0], 0);
    ck_assert_int_eq(idx[1], 0);
    /* without strides, and a 0-d shape is one element */
    int64_t j[1] = {0};
    ck_assert(tl_shape_next(1, (const int64_t[]){2}, j, NULL, NULL));
    ck_assert(!tl_shape_next(1, (const int64_t[]){2}, j, NULL, NULL));
    ck_assert(!tl_shape_next(0, NULL, NULL, NULL, NULL));
}
END_TEST

START_TEST(slice_clamps_like_python)
{
    int64_t first, len;
    tl_shape_slice(10, true, 2, true, 8, 3, &first, &len); /* [2:8:3] */
    ck_assert_int_eq(first, 2);
    ck_assert_int_eq(len, 2);
    tl_shape_slice(10, true, -3, false, 0, 1, &first, &len); /* [-3:] */
    ck_assert_int_eq(first, 7);
    ck_assert_int_eq(len, 3);
    tl_shape_slice(10, true, -100, true, 100, 1, &first, &len);
    ck_assert_int_eq(first, 0);
    ck_assert_int_eq(len, 10);
    tl_shape_slice(10, true, 8, true, 2, 1, &first, &len); /* empty */
    ck_assert_int_eq(first, 8);
    ck_assert_int_eq(len, 0);
    tl_shape_slice(0, false, 0, false, 0, 2, &first, &len);
    ck_assert_int_eq(len, 0);
}
END_TEST

START_TEST(broadcast_and_wrap)
{
    int64_t out[TL_MAX_DIMS];
    tl_error err;
    tl_error_clear(&err);
    int n = tl_shape_broadcast(2, (const int64_t[]){3, 1}, 3,
                               (const int64_t[]){2, 1, 4}, out, &err);
    ck_assert_int_eq(n, 3);
    ck_assert_int_eq(out[0], 2);
    ck_assert_int_eq(out[1], 3);
    ck_assert_int_eq(out[2], 4);
    n = tl_shape_broadcast(1, (const int64_t[]){3}, 1, (const int64_t[]){4},
                           out, &err);
    ck_assert_int_eq(n, -1);
    ck_assert_str_eq(err.msg, "The size of tensor a (3) must match the size "
                              "of tensor b (4) at non-singleton dimension 0");
    int d = -1;
    ck_assert_int_eq(tl_shape_wrap_dim(-1, 3, &d, &err), 0);
    ck_assert_int_eq(d, 2);
    ck_assert_int_eq(tl_shape_wrap_dim(0, 0, &d, &err), 0); /* scalars */
    ck_assert_int_eq(tl_shape_wrap_dim(3, 3, &d, &err), -1);
    ck_assert_int_eq(err.kind, TL_ERR_INDEX);
    ck_assert_str_eq(err.msg, "Dimension out of range (expected to be in "
                              "range of [-3, 2], but got 3)");
}
END_TEST

START_TEST(diagonal_geometry)
{
    /* torch.empty(3, 4).diagonal(1): size (3,), stride (5,), offset 1 */
    tl_geom g = {.ndim = 2, .sizes = {3, 4}, .strides = {4, 1}, .offset = 0};
    tl_error err;
    tl_error_clear(&err);
    ck_assert_int_eq(tl_shape_diagonal(&g, 1, 0, 1, &err), 0);
    ck_assert_int_eq(g.ndim, 1);
    ck_assert_int_eq(g.sizes[0], 3);
    ck_assert_int_eq(g.strides[0], 5);
    ck_assert_int_eq(g.offset, 1);
    /* (2, 3, 4).diagonal(-1, 2, 0): dims 0 and 2 go: (3, 2), (4, 13), 1 */
    tl_geom h = {.ndim = 3, .sizes = {2, 3, 4}, .strides = {12, 4, 1}};
    ck_assert_int_eq(tl_shape_diagonal(&h, -1, 2, 0, &err), 0);
    ck_assert_int_eq(h.ndim, 2);
    ck_assert_int_eq(h.sizes[0], 3);
    ck_assert_int_eq(h.sizes[1], 2);
    ck_assert_int_eq(h.strides[0], 4);
    ck_assert_int_eq(h.strides[1], 13);
    ck_assert_int_eq(h.offset, 1);
    ck_assert_int_eq(tl_shape_diagonal(&h, 0, 1, -1, &err), -1);
    ck_assert_str_eq(err.msg, "diagonal dimensions cannot be identical 1, -1");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("shape");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, odometer_walks_row_major);
    tcase_add_test(tc, slice_clamps_like_python);
    tcase_add_test(tc, broadcast_and_wrap);
    tcase_add_test(tc, diagonal_geometry);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
