/* check_view.c - unit tests for the view ops (view.c, bind_view.c).
 *
 * Two layers: the pure shape functions (computeStride, infer_size,
 * inferExpandGeometry, ...) against every worked example of the reference
 * sheet (§2b, §5, §6, §8), and several hundred op-language cases whose
 * expected shape / strides / offset / kind / values / error text were
 * recorded from PyTorch 1.13.1 (/usr/bin/python3), with the documented 2.x
 * differences applied (narrow messages, squeeze(tuple)).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "check_eval.h"
#include "tensor.h"
#include "view.h"

#define L(...) ((const int64_t[]){__VA_ARGS__})

static void assert_list(const char *what, const int64_t *got, int n,
                        const int64_t *want)
{
    for (int i = 0; i < n; i++)
        ck_assert_msg(got[i] == want[i], "%s[%d]: got %lld want %lld", what,
                      i, (long long)got[i], (long long)want[i]);
}

/* computeStride: old (n, sizes, strides) viewed as new sizes */
static void expect_stride(int on, const int64_t *os, const int64_t *ost,
                          int nn, const int64_t *ns, const int64_t *want)
{
    int64_t got[TL_MAX_DIMS];
    bool ok = tl_shape_compute_stride(on, os, ost, nn, ns, got);
    if (!want) {
        ck_assert_msg(!ok, "expected the view to be impossible");
        return;
    }
    ck_assert_msg(ok, "expected a view");
    assert_list("stride", got, nn, want);
}

START_TEST(test_compute_stride_sheet)
{
    /* every row of the §2b table */
    expect_stride(3, L(2, 3, 4), L(12, 4, 1), 3, L(2, 1, 12), L(12, 12, 1));
    expect_stride(3, L(2, 3, 4), L(12, 4, 1), 3, L(1, 24, 1), L(24, 1, 1));
    expect_stride(3, L(2, 4, 3), L(12, 1, 4), 3, L(2, 4, 3), L(12, 1, 4));
    expect_stride(3, L(2, 4, 3), L(12, 1, 4), 4, L(2, 2, 2, 3),
                  L(12, 2, 1, 4));
    expect_stride(3, L(2, 4, 3), L(12, 1, 4), 5, L(2, 4, 1, 3, 1),
                  L(12, 1, 12, 4, 4));
    expect_stride(3, L(2, 4, 3), L(12, 1, 4), 2, L(2, 12), NULL);
    expect_stride(3, L(2, 3, 2), L(12, 4, 2), 2, L(6, 2), L(4, 2));
    expect_stride(3, L(2, 3, 2), L(12, 4, 2), 1, L(12), L(2));
    expect_stride(3, L(2, 2, 4), L(12, 4, 1), 2, L(2, 8), L(12, 1));
    expect_stride(3, L(2, 2, 4), L(12, 4, 1), 2, L(4, 4), NULL);
    expect_stride(2, L(4, 6), L(1, 4), 3, L(4, 2, 3), L(1, 12, 4));
    expect_stride(2, L(4, 6), L(1, 4), 3, L(2, 2, 6), L(2, 1, 4));
    expect_stride(2, L(4, 6), L(1, 4), 3, L(4, 6, 1), L(1, 4, 4));
    expect_stride(2, L(4, 6), L(1, 4), 1, L(24), NULL);
    expect_stride(2, L(3, 1), L(5, 1), 1, L(3), L(5));
    expect_stride(2, L(3, 1), L(5, 1), 2, L(1, 3), L(15, 5));
    expect_stride(2, L(3, 4), L(0, 1), 3, L(3, 2, 2), L(0, 2, 1));
    expect_stride(2, L(3, 4), L(0, 1), 1, L(12), NULL);
    expect_stride(0, L(0), L(0), 2, L(1, 1), L(1, 1));
    expect_stride(2, L(0, 3), L(3, 1), 2, L(3, 0), L(1, 1));
    expect_stride(3, L(3, 0, 3), L(5, 5, 2), 3, L(3, 0, 3), L(5, 5, 2));
}
END_TEST

START_TEST(test_infer_size)
{
    int64_t out[4];
    tl_error err;
    memset(&err, 0, sizeof err);
    ck_assert_int_eq(tl_shape_infer_size(2, L(-1, 6), 24, out, &err), 0);
    assert_list("size", out, 2, L(4, 6));
    ck_assert_int_eq(tl_shape_infer_size(2, L(-1, 3), 0, out, &err), 0);
    assert_list("size", out, 2, L(0, 3));
    ck_assert_int_eq(tl_shape_infer_size(2, L(-1, -1), 24, out, &err), -1);
    ck_assert_str_eq(err.msg, "only one dimension can be inferred");
    ck_assert_int_eq(tl_shape_infer_size(2, L(-2, 12), 24, out, &err), -1);
    ck_assert_str_eq(err.msg, "invalid shape dimension -2");
    ck_assert_int_eq(tl_shape_infer_size(2, L(-1, 5), 24, out, &err), -1);
    ck_assert_str_eq(err.msg, "shape '[-1, 5]' is invalid for input of size 24");
    ck_assert_int_eq(tl_shape_infer_size(2, L(0, -1), 24, out, &err), -1);
    ck_assert_str_eq(err.msg, "shape '[0, -1]' is invalid for input of size 24");
    ck_assert_int_eq(tl_shape_infer_size(2, L(-1, 0), 0, out, &err), -1);
    ck_assert_str_eq(err.msg, "cannot reshape tensor of 0 elements into shape "
                              "[-1, 0] because the unspecified dimension size "
                              "-1 can be any value and is ambiguous");
    ck_assert_int_eq(err.kind, TL_ERR_RUNTIME);
    /* a product that overflows int64 never matches */
    ck_assert_int_eq(tl_shape_infer_size(3, L(INT64_MAX, 4, -1), 24, out, &err),
                     -1);
}
END_TEST

static tl_tensor *arange_f32(int n)
{
    int64_t sz = n;
    tl_tensor *t = tl_tensor_new(tl_backend_cpu(), TL_FLOAT32, 1, &sz, NULL);
    ck_assert_ptr_nonnull(t);
    for (int i = 0; i < n; i++)
        tl_tensor_set_f64(t, i, i, NULL);
    return t;
}

START_TEST(test_expand_geometry)
{
    tl_error err;
    memset(&err, 0, sizeof err);
    tl_tensor *a = arange_f32(3);
    tl_tensor *c = tl_view_view(a, 2, L(3, 1), &err);
    tl_tensor *e = tl_view_expand(c, 3, L(2, 3, 4), &err);
    ck_assert_ptr_nonnull(e);
    assert_list("stride", e->strides, 3, L(0, 1, 0));
    ck_assert(e->storage == a->storage && e->version == a->version);
    tl_tensor_release(e);
    e = tl_view_expand(a, 2, L(1, 3), &err);
    assert_list("stride", e->strides, 2, L(3, 1));
    tl_tensor_release(e);
    e = tl_view_expand(c, 2, L(3, 0), &err);
    assert_list("stride", e->strides, 2, L(1, 0));
    tl_tensor_release(e);
    ck_assert_ptr_null(tl_view_expand(c, 2, L(4, 4), &err));
    ck_assert_str_eq(err.msg, "The expanded size of the tensor (4) must match "
                              "the existing size (3) at non-singleton "
                              "dimension 0.  Target sizes: [4, 4].  Tensor "
                              "sizes: [3, 1]");
    ck_assert_ptr_null(tl_view_expand(c, 1, L(4), &err));
    ck_assert_str_eq(err.msg, "expand(torch.FloatTensor{[3, 1]}, size=[4]): "
                              "the number of sizes provided (1) must be "
                              "greater or equal to the number of dimensions "
                              "in the tensor (2)");
    ck_assert_ptr_null(tl_view_expand(c, 3, L(-1, 3, 1), &err));
    ck_assert_str_eq(err.msg, "The expanded size of the tensor (-1) isn't "
                              "allowed in a leading, non-existing dimension 0");
    tl_tensor_release(c);
    tl_tensor_release(a);
}
END_TEST

START_TEST(test_slice_and_split)
{
    tl_error err;
    memset(&err, 0, sizeof err);
    tl_tensor *a = arange_f32(20);
    tl_tensor *y = tl_view_view(a, 2, L(4, 5), &err);
    /* empty slices keep the clamped start in the offset (§7a) */
    tl_tensor *r = tl_view_slice(y, 0, true, 10, true, 20, 1);
    ck_assert_int_eq(r->sizes[0], 0);
    ck_assert_int_eq(r->offset, 20);
    tl_tensor_release(r);
    r = tl_view_slice(y, 0, true, 3, true, 1, 1);
    ck_assert_int_eq(r->offset, 15);
    tl_tensor_release(r);
    tl_tensor_list l;
    ck_assert_int_eq(tl_view_chunk(a, 3, 0, &l, &err), 0);
    ck_assert_int_eq(l.n, 3);
    ck_assert_int_eq(l.items[2]->sizes[0], 6);
    ck_assert_int_eq(l.items[2]->offset, 14);
    tl_tensor_list_free(&l);
    ck_assert_int_eq(tl_view_tensor_split_n(a, 3, 0, &l, &err), 0);
    ck_assert_int_eq(l.items[0]->sizes[0], 7);
    ck_assert_int_eq(l.items[2]->sizes[0], 6);
    tl_tensor_list_free(&l);
    /* flatten(d, d) and atleast_1d on a 1-D tensor are the object itself */
    r = tl_view_flatten(a, 0, 0, &err);
    ck_assert_ptr_eq(r, a);
    tl_tensor_release(r);
    r = tl_view_atleast(a, 1, &err);
    ck_assert_ptr_eq(r, a);
    tl_tensor_release(r);
    r = tl_view_ravel(y, &err);
    ck_assert_ptr_ne(r, y);
    ck_assert(r->storage == a->storage);
    tl_tensor_release(r);
    /* .data: same storage, fresh version counter; detach shares it */
    r = tl_view_data(y);
    ck_assert(r->storage == y->storage && r->version != y->version);
    tl_tensor_release(r);
    r = tl_view_detach(y);
    ck_assert(r->storage == y->storage && r->version == y->version);
    tl_tensor_release(r);
    tl_tensor_release(y);
    tl_tensor_release(a);
}
END_TEST

START_TEST(test_reshape_copies)
{
    tl_error err;
    memset(&err, 0, sizeof err);
    tl_tensor *a = arange_f32(24);
    tl_tensor *y = tl_view_view(a, 2, L(6, 4), &err);
    tl_tensor *t = tl_view_t(y, "t", &err);
    tl_tensor *r = tl_view_reshape(t, 1, L(24), &err);
    ck_assert_ptr_nonnull(r);
    ck_assert(r->storage != a->storage); /* not viewable: a copy */
    assert_list("stride", r->strides, 1, L(1));
    double d;
    tl_tensor_get_f64(r, 1, &d, NULL);
    ck_assert(d == 4.0); /* t()[0, 1] is y[1, 0] */
    ck_assert_int_eq(r->version->value, 0);
    tl_tensor_release(r);
    ck_assert_ptr_null(tl_view_view(t, 1, L(24), &err));
    ck_assert_int_eq(err.kind, TL_ERR_RUNTIME);
    tl_tensor_release(t);
    tl_tensor_release(y);
    tl_tensor_release(a);
}
END_TEST

#include "check_view_cases.inc"

START_TEST(test_cases_ok)
{
    ce_check_split(&view_cases[_i], false);
}
END_TEST

START_TEST(test_cases_err)
{
    ce_check_split(&view_cases[_i], true);
}
END_TEST

START_TEST(test_limits)
{
    tl_error err;
    memset(&err, 0, sizeof err);
    tl_tensor *a = arange_f32(4);
    /* more than TL_MAX_DIMS dims */
    tl_tensor *t = tl_tensor_retain(a);
    for (int i = 0; i < TL_MAX_DIMS - 1; i++) {
        tl_tensor *u = tl_view_unsqueeze(t, 0, &err);
        ck_assert_ptr_nonnull(u);
        tl_tensor_release(t);
        t = u;
    }
    ck_assert_ptr_null(tl_view_unsqueeze(t, 0, &err));
    ck_assert_int_eq(err.kind, TL_ERR_LIMIT);
    tl_tensor_release(t);
    /* a view with more than TL_MAX_NUMEL elements allocates nothing and is
     * legal (issue #12 class 15); one whose numel overflows int64 is not */
    tl_tensor *big = tl_view_expand(a, 3, L(1 << 20, 1 << 20, 4), &err);
    ck_assert_ptr_nonnull(big);
    tl_tensor_release(big);
    ck_assert_ptr_null(tl_view_expand(a, 3, L(INT64_C(1) << 40, INT64_C(1) << 40, 4), &err));
    ck_assert_int_eq(err.kind, TL_ERR_RUNTIME);
    /* too many pieces */
    tl_tensor_list l;
    tl_tensor *e = tl_view_expand(a, 2, L(1 << 20, 4), &err);
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(tl_view_split(e, 1, 0, &l, &err), -1);
    ck_assert_int_eq(err.kind, TL_ERR_LIMIT);
    ck_assert_int_eq(tl_view_chunk(a, 1000, 0, &l, &err), 0);
    ck_assert_int_eq(l.n, 4); /* chunk(big) gives one piece per element */
    tl_tensor_list_free(&l);
    /* ATen's (n + chunks - 1) wraps for a huge `chunks` (measured 1.13) */
    ck_assert_int_eq(tl_view_chunk(a, INT64_MAX, 0, &l, &err), -1);
    ck_assert_str_eq(err.msg, "split_size can only be 0 if dimension size is "
                              "0, but got dimension size of 4");
    tl_tensor_release(e);
    /* as_strided: bounds are the whole storage; overflow is caught */
    ck_assert_ptr_null(tl_view_as_strided(a, 1, L(INT64_MAX), 1, L(INT64_MAX),
                                          true, 0, &err));
    ck_assert_int_eq(err.kind, TL_ERR_RUNTIME);
    tl_tensor_release(a);
}
END_TEST

/* resize_ grows the storage IN PLACE (same object, new block, views
 * follow), never shrinks it, and keeps strides when the sizes are equal;
 * set_ swaps the storage and bumps the version (measured, torch 1.13). */
START_TEST(test_resize_set)
{
    tl_error err;
    memset(&err, 0, sizeof err);
    tl_tensor *a = arange_f32(12);
    tl_tensor *x = tl_view_view(a, 2, L(3, 4), &err);
    tl_tensor *v = tl_view_slice(x, 0, true, 1, false, 0, 1); /* x[1:] */
    tl_storage *st = x->storage;
    ck_assert_int_eq(tl_view_resize_(v, 2, L(4, 4), false, TL_MEMFMT_PRESERVE, &err), 0);
    ck_assert_ptr_eq(v->storage, st);
    ck_assert_uint_eq(st->nbytes, 80); /* (4 + 16) * 4 */
    ck_assert_int_eq(v->offset, 4);
    ck_assert_int_eq(x->version->value, 0);
    double d;
    ck_assert_int_eq(tl_tensor_get_f64(x, 11, &d, &err), 0);
    ck_assert(d == 11.0); /* old bytes copied into the new block */
    ck_assert_int_eq(tl_view_resize_(x, 1, L(2), false, TL_MEMFMT_PRESERVE, &err), 0);
    ck_assert_uint_eq(st->nbytes, 80);
    /* same sizes: the strides of t() stay */
    tl_tensor *t = tl_view_t(a, "t", &err);
    ck_assert_int_eq(tl_view_resize_(t, 1, L(12), false, TL_MEMFMT_PRESERVE, &err), 0);
    ck_assert_int_eq(tl_view_resize_(x, 1, L(-1), false, TL_MEMFMT_PRESERVE, &err), -1);
    ck_assert_int_eq(tl_view_resize_(x, 1, L(2), true, TL_MEMFMT_CHANNELS_LAST, &err), -1);
    ck_assert_str_eq(err.msg, "required rank 4 tensor to use channels_last format");
    /* a borrowed storage cannot grow */
    tl_storage *b = tl_storage_borrow(st, 0, 16);
    ck_assert_int_eq(tl_storage_resize(b, 32, &err), -1);
    ck_assert_str_eq(err.msg, "Trying to resize storage that is not resizable");
    ck_assert_int_eq(tl_storage_resize(st, 160, &err), -1); /* it is borrowed */
    tl_storage_release(b);
    ck_assert_int_eq(tl_storage_resize(st, 160, &err), 0);
    /* set_: y aliases x's storage with the given metadata; version + 1 */
    tl_tensor *y = tl_tensor_new(tl_backend_cpu(), TL_FLOAT32, 1, L(2), &err);
    ck_assert_int_eq(tl_view_set_(y, st, 2, 2, L(2, 2), L(1, 2), &err), 0);
    ck_assert_ptr_eq(y->storage, st);
    ck_assert_int_eq(y->offset, 2);
    ck_assert_int_eq(y->version->value, 1);
    ck_assert_int_eq(tl_tensor_get_f64(y, 1, &d, &err), 0);
    ck_assert(d == 4.0); /* element [0, 1] = storage[2 + 2] */
    tl_tensor_release(y);
    tl_tensor_release(t);
    tl_tensor_release(v);
    tl_tensor_release(x);
    tl_tensor_release(a);
}
END_TEST

static Suite *view_suite(void)
{
    Suite *s = suite_create("view");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 60);
    tcase_add_test(core, test_compute_stride_sheet);
    tcase_add_test(core, test_infer_size);
    tcase_add_test(core, test_expand_geometry);
    tcase_add_test(core, test_slice_and_split);
    tcase_add_test(core, test_reshape_copies);
    tcase_add_test(core, test_resize_set);
    tcase_add_loop_test(core, test_cases_ok, 0,
                        (int)(sizeof view_cases / sizeof view_cases[0]));
    ce_add_tcases(s, core, test_limits, test_cases_err,
                  (int)(sizeof view_cases / sizeof view_cases[0]));
    return s;
}

int main(void)
{
    return ce_run_suite(view_suite());
}
