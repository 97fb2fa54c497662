/* check_index.c - unit tests for subscripts and the gather functions
 * (index.c, bind_index.c).
 *
 * Direct calls of tl_index_parse_getitem / _setitem (index_parse.c over
 * index.c) with hand-built index values
 * (tuple vs list, slices, Ellipsis, None, bool and long tensors), then a
 * table of op-language cases whose expected results and error texts were
 * recorded from PyTorch 1.13.1 with the 2.x rules applied (int32 index
 * tensors accepted, "long, int, byte or bool" wording, index_put_ None).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "check_eval.h"
#include "index.h"
#include "index_parse.h"
#include "ops.h"
#include "tensor.h"
#include "view.h"

#define L(...) ((const int64_t[]){__VA_ARGS__})

/* y = arange(20.).reshape(4, 5) as a tensor value */
static tl_value *make_y(void)
{
    int64_t sz[2] = {4, 5};
    tl_tensor *t = tl_tensor_new(tl_backend_cpu(), TL_FLOAT32, 2, sz, NULL);
    ck_assert_ptr_nonnull(t);
    for (int i = 0; i < 20; i++)
        tl_tensor_set_f64(t, i, i, NULL);
    return tl_value_tensor(t);
}

static tl_value *slice(tl_value *a, tl_value *b, tl_value *c)
{
    return tl_slice_new(a ? a : tl_none(), b ? b : tl_none(),
                        c ? c : tl_none());
}

static tl_value *pair(tl_value *a, tl_value *b, bool list)
{
    tl_value *t = list ? tl_list_new(2) : tl_tuple_new(2);
    tl_seq_set(t, 0, a);
    tl_seq_set(t, 1, b);
    return t;
}

static void assert_meta(const tl_tensor *t, int n, const int64_t *sizes,
                        const int64_t *strides, int64_t off)
{
    ck_assert_int_eq(t->ndim, n);
    for (int i = 0; i < n; i++) {
        ck_assert_int_eq(t->sizes[i], sizes[i]);
        ck_assert_int_eq(t->strides[i], strides[i]);
    }
    ck_assert_int_eq(t->offset, off);
}

START_TEST(test_tuple_vs_list)
{
    tl_error err;
    memset(&err, 0, sizeof err);
    tl_value *y = make_y();
    /* y[(0, 1)] is basic: a 0-d view at offset 1 */
    tl_value *ix = pair(tl_int(0), tl_int(1), false);
    tl_value *r = tl_index_parse_getitem(y, ix, &err);
    ck_assert_ptr_nonnull(r);
    assert_meta(r->u.tensor, 0, NULL, NULL, 1);
    ck_assert(r->u.tensor->storage == y->u.tensor->storage);
    tl_value_release(r);
    tl_value_release(ix);
    /* y[[0, 1]] is advanced: rows 0 and 1, a copy */
    ix = pair(tl_int(0), tl_int(1), true);
    r = tl_index_parse_getitem(y, ix, &err);
    ck_assert_ptr_nonnull(r);
    assert_meta(r->u.tensor, 2, L(2, 5), L(5, 1), 0);
    ck_assert(r->u.tensor->storage != y->u.tensor->storage);
    tl_value_release(r);
    tl_value_release(ix);
    /* y[[0, slice(None)]]: a list holding a slice is a tuple */
    ix = pair(tl_int(0), slice(NULL, NULL, NULL), true);
    r = tl_index_parse_getitem(y, ix, &err);
    ck_assert_ptr_nonnull(r);
    assert_meta(r->u.tensor, 1, L(5), L(1), 0);
    ck_assert(r->u.tensor->storage == y->u.tensor->storage);
    tl_value_release(r);
    tl_value_release(ix);
    /* y[...] is a new view object, never y itself */
    ix = tl_ellipsis();
    r = tl_index_parse_getitem(y, ix, &err);
    ck_assert_ptr_ne(r->u.tensor, y->u.tensor);
    ck_assert(r->u.tensor->storage == y->u.tensor->storage);
    tl_value_release(r);
    tl_value_release(ix);
    tl_value_release(y);
}
END_TEST

START_TEST(test_slices)
{
    tl_error err;
    memset(&err, 0, sizeof err);
    tl_value *y = make_y();
    /* y[1:3:2, 4:0] -> (1, 0) strides (10, 1) offset 9 (§7a) */
    tl_value *ix = pair(slice(tl_int(1), tl_int(3), tl_int(2)),
                        slice(tl_int(4), tl_int(0), NULL), false);
    tl_value *r = tl_index_parse_getitem(y, ix, &err);
    ck_assert_ptr_nonnull(r);
    assert_meta(r->u.tensor, 2, L(1, 0), L(10, 1), 9);
    tl_value_release(r);
    tl_value_release(ix);
    /* y[:, None] -> (4, 1, 5)/(5, 5, 1) */
    ix = pair(slice(NULL, NULL, NULL), tl_none(), false);
    r = tl_index_parse_getitem(y, ix, &err);
    assert_meta(r->u.tensor, 3, L(4, 1, 5), L(5, 5, 1), 0);
    tl_value_release(r);
    tl_value_release(ix);
    /* negative and zero steps */
    ix = slice(NULL, NULL, tl_int(-1));
    ck_assert_ptr_null(tl_index_parse_getitem(y, ix, &err));
    ck_assert_int_eq(err.kind, TL_ERR_VALUE);
    ck_assert_str_eq(err.msg, "step must be greater than zero");
    tl_value_release(ix);
    ix = slice(NULL, NULL, tl_int(0));
    ck_assert_ptr_null(tl_index_parse_getitem(y, ix, &err));
    ck_assert_str_eq(err.msg, "slice step cannot be zero");
    tl_value_release(ix);
    ix = slice(tl_float(1.5), NULL, NULL);
    ck_assert_ptr_null(tl_index_parse_getitem(y, ix, &err));
    ck_assert_int_eq(err.kind, TL_ERR_TYPE);
    tl_value_release(ix);
    tl_value_release(y);
}
END_TEST

START_TEST(test_setitem_version)
{
    tl_error err;
    memset(&err, 0, sizeof err);
    tl_value *y = make_y();
    tl_tensor *t = y->u.tensor;
    /* scalar basic assignment: in place, one bump */
    tl_value *ix = tl_int(1), *v = tl_float(9);
    ck_assert_int_eq(tl_index_parse_setitem(y, ix, v, &err), 0);
    ck_assert_int_eq(t->version->value, 1);
    double d;
    tl_tensor_get_f64(t, 7, &d, NULL);
    ck_assert(d == 9.0);
    tl_value_release(ix);
    /* advanced assignment with duplicates: last write wins, one bump */
    ix = tl_list_new(2);
    tl_seq_set(ix, 0, tl_int(3));
    tl_seq_set(ix, 1, tl_int(3));
    ck_assert_int_eq(tl_index_parse_setitem(y, ix, v, &err), 0);
    ck_assert_int_eq(t->version->value, 2);
    tl_tensor_get_f64(t, 15, &d, NULL);
    ck_assert(d == 9.0);
    tl_value_release(ix);
    /* x[False] = v does nothing (no bump) */
    ix = tl_bool(false);
    ck_assert_int_eq(tl_index_parse_setitem(y, ix, v, &err), 0);
    ck_assert_int_eq(t->version->value, 2);
    tl_value_release(ix);
    /* out of range: nothing written, no bump */
    ix = tl_int(4);
    ck_assert_int_eq(tl_index_parse_setitem(y, ix, v, &err), -1);
    ck_assert_str_eq(err.msg, "index 4 is out of bounds for dimension 0 with "
                              "size 4");
    ck_assert_int_eq(t->version->value, 2);
    tl_value_release(ix);
    tl_value_release(v);
    /* a list value is a TypeError for tensors */
    ix = tl_int(0);
    v = tl_list_new(0);
    ck_assert_int_eq(tl_index_parse_setitem(y, ix, v, &err), -1);
    ck_assert_str_eq(err.msg, "can't assign a list to a torch.FloatTensor");
    tl_value_release(v);
    tl_value_release(ix);
    tl_value_release(y);
}
END_TEST

START_TEST(test_ndarray)
{
    tl_error err;
    memset(&err, 0, sizeof err);
    tl_value *y = make_y();
    tl_value *a = tl_value_ndarray(tl_tensor_alias(y->u.tensor));
    /* numpy: negative steps are views, integer indices give scalars */
    tl_value *ix = slice(NULL, NULL, tl_int(-1));
    tl_value *r = tl_index_parse_getitem(a, ix, &err);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->kind, TL_V_NDARRAY);
    assert_meta(r->u.tensor, 2, L(4, 5), L(-5, 1), 15);
    tl_value_release(r);
    tl_value_release(ix);
    ix = pair(tl_int(1), tl_int(2), false);
    r = tl_index_parse_getitem(a, ix, &err);
    ck_assert_int_eq(r->kind, TL_V_FLOAT);
    ck_assert(r->u.f == 7.0);
    tl_value_release(r);
    /* writes through the ndarray do not bump the tensor's _version */
    tl_value *v = tl_int(42);
    ck_assert_int_eq(tl_index_parse_setitem(a, ix, v, &err), 0);
    double d;
    tl_tensor_get_f64(y->u.tensor, 7, &d, NULL);
    ck_assert(d == 42.0);
    ck_assert_int_eq(y->u.tensor->version->value, 0);
    tl_value_release(v);
    tl_value_release(ix);
    /* NumPy places an int next to an array like an array: (2, 3) */
    tl_value_release(a);
    tl_value_release(y);
}
END_TEST

START_TEST(test_functions)
{
    tl_error err;
    memset(&err, 0, sizeof err);
    tl_value *y = make_y();
    tl_tensor *t = y->u.tensor;
    int64_t n = 3;
    tl_tensor *m = tl_tensor_new(tl_backend_cpu(), TL_BOOL, 2,
                                 (int64_t[]){4, 5}, &err);
    tl_tensor_set_i64(m, 3, 1, NULL);
    tl_tensor_set_i64(m, 12, 1, NULL);
    tl_tensor *nz = tl_index_nonzero(m, &err);
    ck_assert_ptr_nonnull(nz);
    assert_meta(nz, 2, L(2, 2), L(1, 2), 0); /* (N, 2) with strides (1, N) */
    int64_t iv;
    tl_tensor_get_i64(nz, 1, &iv, NULL); /* [0, 1] */
    ck_assert_int_eq(iv, 3);
    tl_tensor_get_i64(nz, 2, &iv, NULL); /* [1, 0] */
    ck_assert_int_eq(iv, 2);
    tl_tensor *ms = tl_index_masked_select(t, m, &err);
    assert_meta(ms, 1, L(2), L(1), 0);
    double d;
    tl_tensor_get_f64(ms, 1, &d, NULL);
    ck_assert(d == 12.0);
    tl_tensor *idx = tl_tensor_new(tl_backend_cpu(), TL_INT64, 1, &n, &err);
    tl_tensor_set_i64(idx, 0, 19, NULL);
    tl_tensor_set_i64(idx, 1, -1, NULL);
    tl_tensor_set_i64(idx, 2, 0, NULL);
    tl_tensor *tk = tl_index_take(t, idx, &err);
    tl_tensor_get_f64(tk, 1, &d, NULL);
    ck_assert(d == 19.0);
    ck_assert_ptr_null(tl_index_select(t, 0, idx, &err));
    ck_assert_str_eq(err.msg, "index out of range in self");
    tl_tensor_release(tk);
    tl_tensor_release(idx);
    tl_tensor_release(ms);
    tl_tensor_release(nz);
    tl_tensor_release(m);
    tl_value_release(y);
}
END_TEST

#include "check_index_cases.inc"

START_TEST(test_cases_ok)
{
    ce_check_split(&index_cases[_i], false);
}
END_TEST

START_TEST(test_cases_err)
{
    ce_check_split(&index_cases[_i], true);
}
END_TEST

/* The layout of x[index] (recorded from torch 1.13.1): at::index runs a
 * TensorIterator over the restrided source and the index tensors, so the
 * result follows their stride order - x[True] of a transposed x stays
 * transposed, a transposed index tensor gives a permuted result, a
 * channels-last source keeps channels-last where the indexed dim allows. */
static const ce_case layout_cases[] = {
    {"t = y.t()|t[True]",
     "(1, 5, 4)(20, 1, 5)+0 C [0,5,10,15,1,6,11,16,2,7,12,17]"},
    {"t = y.t()|t[False]",
     "(0, 5, 4)(20, 1, 5)+0 C []"},
    {"t = y.t()|t[[0, 3]]",
     "(2, 4)(4, 1)+0 C [0,5,10,15,3,8,13,18]"},
    {"t = y.t()|t[None, True]",
     "(1, 1, 5, 4)(5, 5, 1, 5)+0 C [0,5,10,15,1,6,11,16,2,7,12,17]"},
    {"t = y.t()|t[True, None]",
     "(1, 1, 5, 4)(20, 5, 1, 5)+0 C [0,5,10,15,1,6,11,16,2,7,12,17]"},
    {"t = y.t()|t[torch.tensor([[0, 1], [2, 3]]).t()]",
     "(2, 2, 4)(4, 8, 1)+0 C [0,5,10,15,2,7,12,17,1,6,11,16]"},
    {"y[torch.tensor([[0, 1], [2, 3]]).t()]",
     "(2, 2, 5)(5, 10, 1)+0 C [0,1,2,3,4,10,11,12,13,14,5,6]"},
    {"y[:, torch.tensor([[0, 1], [2, 3]]).t()]",
     "(4, 2, 2)(4, 1, 2)+0 C [0,2,1,3,5,7,6,8,10,12,11,13]"},
    {"y[torch.tensor([[0, 1], [2, 3]]).t(), 1:3]",
     "(2, 2, 2)(2, 4, 1)+0 C [1,2,11,12,6,7,16,17]"},
    {"p = x.permute(2, 0, 1)|p[:, [0, 1]]",
     "(4, 2, 3)(1, 4, 8)+0 C [0,4,8,12,16,20,1,5,9,13,17,21]"},
    {"p = x.permute(2, 0, 1)|p[True]",
     "(1, 4, 2, 3)(24, 1, 12, 4)+0 C [0,4,8,12,16,20,1,5,9,13,17,21]"},
    {"p = x.permute(2, 0, 1)|p[[0, 1], :, [0, 1]]",
     "(2, 2)(2, 1)+0 C [0,12,5,17]"},
    {"p = x.permute(2, 0, 1)|p[None, :, [0]]",
     "(1, 4, 1, 3)(4, 1, 4, 4)+0 C [0,4,8,1,5,9,2,6,10,3,7,11]"},
    {"p = x.permute(2, 0, 1)|p[:, torch.tensor([[True, False, True], [False, True, True]])]",
     "(4, 4)(4, 1)+0 C [0,8,16,20,1,9,17,21,2,10,18,22]"},
    {"w = torch.arange(24.).reshape(2, 3, 2, 2).contiguous(memory_format=torch.channels_last)|w[[1, 0]]",
     "(2, 3, 2, 2)(12, 1, 6, 3)+0 C [12,13,14,15,16,17,18,19,20,21,22,23]"},
    {"w = torch.arange(24.).reshape(2, 3, 2, 2).contiguous(memory_format=torch.channels_last)|w[:, [0, 2]]",
     "(2, 2, 2, 2)(8, 4, 2, 1)+0 C [0,1,2,3,8,9,10,11,12,13,14,15]"},
    {"w = torch.arange(24.).reshape(2, 3, 2, 2).contiguous(memory_format=torch.channels_last)|w[..., [0, 1]]",
     "(2, 3, 2, 2)(12, 2, 6, 1)+0 C [0,1,2,3,4,5,6,7,8,9,10,11]"},
    {"w = torch.arange(24.).reshape(2, 3, 2, 2).contiguous(memory_format=torch.channels_last)|w[True]",
     "(1, 2, 3, 2, 2)(24, 12, 1, 6, 3)+0 C [0,1,2,3,4,5,6,7,8,9,10,11]"},
    {"w = torch.arange(6.).reshape(2, 1, 3, 1)|w[[0, 1], :, [0, 2]]",
     "(2, 1, 1)(1, 1, 1)+0 C [0,5]"},
    {"k = torch.zeros(0, 3).t()|k[True]",
     "(1, 3, 0)(0, 1, 3)+0 C []"},
    {"t = y.t()|t[t > 2]",
     "(17,)(1,)+0 C [5,10,15,6,11,16,7,12,17,3,8,13]"},
};

START_TEST(test_layout_cases)
{
    ce_check(&layout_cases[_i]);
}
END_TEST

START_TEST(test_limits)
{
    tl_error err;
    memset(&err, 0, sizeof err);
    tl_value *y = make_y();
    /* an index with too many entries */
    tl_value *ix = tl_tuple_new(300);
    ck_assert_ptr_null(tl_index_parse_getitem(y, ix, &err));
    ck_assert_int_eq(err.kind, TL_ERR_LIMIT);
    tl_value_release(ix);
    /* too many None: more than TL_MAX_DIMS dims */
    ix = tl_tuple_new(TL_MAX_DIMS);
    ck_assert_ptr_null(tl_index_parse_getitem(y, ix, &err));
    ck_assert_int_eq(err.kind, TL_ERR_LIMIT);
    tl_value_release(ix);
    /* huge ints are range-checked, never wrapped */
    ix = tl_int(INT64_MIN);
    ck_assert_ptr_null(tl_index_parse_getitem(y, ix, &err));
    ck_assert_int_eq(err.kind, TL_ERR_INDEX);
    tl_value_release(ix);
    ix = slice(tl_int(INT64_MIN), tl_int(INT64_MAX), tl_int(INT64_MAX));
    tl_value *r = tl_index_parse_getitem(y, ix, &err);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->u.tensor->sizes[0], 1);
    tl_value_release(r);
    tl_value_release(ix);
    tl_value_release(y);
}
END_TEST

/* ---- the device path against the CPU ------------------------------------
 * x[idx] and x[idx] = v on the emulated device (offsets computed by the
 * device's kernel, TL_BACKEND_CAP_DEVICE_INDEX) against the same on the
 * CPU (offsets computed on the host), for seeded random cases: x of 1-4
 * dims, permuted and offset, of several dtypes; 1-3 int64/int32 index
 * tensors of broadcastable shapes (some values negative, some out of
 * bounds) between slices, ints and None; values tensors broadcast; repeated
 * targets with and without accumulate. Same error text, or the same
 * shape, strides and bytes. Each success moved no byte host->device and
 * at most the 8-byte status word device->host. */

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static int64_t rnd_in(int64_t lo, int64_t hi) /* [lo, hi] */
{
    return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

static tl_tensor *host_tensor(tl_dtype dt, int nd, const int64_t *sz, int64_t lo, int64_t hi)
{
    tl_error err = {0};
    tl_tensor *t = tl_tensor_new(tl_backend_cpu(), dt, nd, sz, &err);
    ck_assert_ptr_nonnull(t);
    int64_t n = tl_tensor_numel(t);
    for (int64_t i = 0; i < n; i++)
        ck_assert_int_eq(tl_tensor_set_i64(t, i, rnd_in(lo, hi), &err), 0);
    return t;
}

static tl_tensor *to_be(tl_tensor *t, const tl_backend *be)
{
    tl_error err = {0};
    tl_tensor *r = tl_ops_to(t, be, t->dtype, true, TL_MEMFMT_PRESERVE, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    return r;
}

/* a (CPU) against the device tensor d: shape, strides, offset (a view's
 * geometry is metadata), and bytes, read through b = d copied to the CPU */
static void assert_same_tensor(const tl_tensor *a, const tl_tensor *d, const tl_tensor *b,
                               const char *what)
{
    ck_assert_msg(a->ndim == d->ndim && a->dtype == d->dtype, "%s: ndim/dtype", what);
    ck_assert_msg(a->offset == d->offset, "%s: offset", what);
    for (int i = 0; i < a->ndim; i++) {
        ck_assert_msg(a->sizes[i] == d->sizes[i], "%s: size %d", what, i);
        ck_assert_msg(a->strides[i] == d->strides[i], "%s: stride %d", what, i);
    }
    tl_error err = {0};
    int64_t n = tl_tensor_numel(a);
    for (int64_t i = 0; i < n; i++) {
        unsigned char x[8] = {0}, y[8] = {0};
        ck_assert_int_eq(tl_tensor_get_raw(a, i, x, &err), 0);
        ck_assert_int_eq(tl_tensor_get_raw(b, i, y, &err), 0);
        ck_assert_msg(memcmp(x, y, 8) == 0, "%s: element %lld differs", what, (long long)i);
    }
}

/* a random subscript for x (ndim nd, sizes sz) on backend be; *ntensor set */
static void random_index(tl_index *ix, int nd, const int64_t *sz, const tl_backend *be,
                         bool host_copy, tl_index *host, int *ntensor)
{
    int n = (int)rnd_in(1, nd);
    ix->n = host->n = n;
    ix->single = host->single = false;
    ix->items = calloc((size_t)n, sizeof *ix->items);
    host->items = calloc((size_t)n, sizeof *host->items);
    *ntensor = 0;
    int ishape_nd = (int)rnd_in(0, 2);
    int64_t ishape[2] = {rnd_in(1, 4), rnd_in(1, 3)};
    for (int k = 0; k < n; k++) {
        tl_index_item *it = &ix->items[k];
        int64_t size = sz[k];
        int pick = (int)rnd_in(0, 9);
        if (k == n - 1 && *ntensor == 0)
            pick = 0; /* at least one tensor */
        if (pick <= 5 && *ntensor < 3) {
            it->kind = TL_INDEX_TENSOR;
            /* broadcastable: the common shape, or size 1 along one dim */
            int64_t s2[2] = {ishape[0], ishape[1]};
            int ind = ishape_nd;
            if (rnd_in(0, 3) == 0 && ind > 0)
                s2[rnd_in(0, ind - 1)] = 1;
            if (rnd_in(0, 4) == 0 && ind > 0) /* fewer leading dims */
                ind--, s2[0] = s2[1];
            bool bad = rnd_in(0, 15) == 0;
            int64_t lo = size > 0 ? -size : 0, hi = size > 0 ? size - 1 : 0;
            if (bad)
                lo = -size - 2, hi = size + 1;
            tl_tensor *t = host_tensor(rnd_in(0, 3) ? TL_INT64 : TL_INT32, ind,
                                       ind == 2 && s2[0] != ishape[0] ? s2 : s2, lo, hi);
            if (size == 0 && !bad) {
                tl_tensor_release(t);
                int64_t zero = 0;
                t = host_tensor(TL_INT64, 1, &zero, 0, 0);
            }
            if (rnd_in(0, 4) == 0 && t->ndim == 2) { /* a transposed index */
                tl_error err = {0};
                tl_tensor *tt = tl_view_t(t, "t", &err);
                tl_tensor_release(t);
                t = tt;
            }
            host->items[k] = *it;
            host->items[k].t = t;
            it->t = host_copy ? tl_tensor_retain(t) : to_be(t, be);
            (*ntensor)++;
        } else if (pick <= 7) {
            it->kind = TL_INDEX_SLICE;
            it->has_start = rnd_in(0, 1);
            it->start = rnd_in(-2, 2);
            it->has_step = rnd_in(0, 1);
            it->step = rnd_in(1, 2);
            host->items[k] = *it;
        } else if (pick == 8 && size > 0) {
            it->kind = TL_INDEX_INT;
            it->i = rnd_in(-size, size - 1);
            host->items[k] = *it;
        } else {
            it->kind = TL_INDEX_NONE;
            host->items[k] = *it;
        }
    }
}

/* every registered device that indexes on the device: the emulated one,
 * and a real GPU when one opened (tests/gpu/run.sh) */
static const tl_backend *index_device(int i)
{
    const tl_backend *all[8];
    int n = tl_backend_registry(all, 8), k = 0;
    for (int j = 0; j < n && j < 8; j++)
        if (tl_backend_caps(all[j]) & TL_BACKEND_CAP_DEVICE_INDEX)
            if (k++ == i)
                return all[j];
    return NULL;
}

START_TEST(test_device_random)
{
    const tl_backend *dev = index_device(_i);
    const tl_backend *cpu = tl_backend_cpu();
    if (!dev)
        return; /* no second device here */
    ck_assert(tl_backend_caps(dev) & TL_BACKEND_CAP_DEVICE_INDEX);
    ck_assert(!(tl_backend_caps(cpu) & TL_BACKEND_CAP_DEVICE_INDEX));
    static const tl_dtype dts[] = {TL_FLOAT32, TL_INT64, TL_FLOAT16, TL_INT8, TL_BOOL, TL_FLOAT64};
    int ok_get = 0, err_get = 0, ok_set = 0;
    for (int c = 0; c < 3000; c++) {
        rng_state = 0x9e3779b97f4a7c15ULL * (uint64_t)(c + 1);
        int nd = (int)rnd_in(1, 4);
        int64_t sz[4];
        for (int i = 0; i < nd; i++)
            sz[i] = rnd_in(0, 9) ? rnd_in(1, 5) : 0;
        tl_dtype dt = dts[rnd_in(0, 5)];
        tl_tensor *base = host_tensor(dt, nd, sz, dt == TL_BOOL ? 0 : -50, dt == TL_BOOL ? 1 : 50);
        tl_tensor *xc = base;
        tl_error err = {0};
        if (nd >= 2 && rnd_in(0, 2) == 0) { /* a permuted x */
            int64_t perm[4] = {0, 1, 2, 3};
            for (int i = nd - 1; i > 0; i--) {
                int j = (int)rnd_in(0, i);
                int64_t t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
            }
            xc = tl_view_permute(base, nd, perm, &err);
            ck_assert_ptr_nonnull(xc);
            tl_tensor_release(base);
        }
        for (int i = 0; i < nd; i++)
            sz[i] = xc->sizes[i];
        tl_tensor *xd = to_be(xc, dev);
        bool host_idx = rnd_in(0, 4) == 0; /* host index tensors for x on the device */
        tl_index ixd, ixc;
        int nt;
        random_index(&ixd, nd, sz, dev, host_idx, &ixc, &nt);
        /* the status word, and a 0-d index's value (read like item()) */
        uint64_t down = 8;
        for (int k = 0; k < ixd.n; k++)
            down += ixd.items[k].t && ixd.items[k].t->ndim == 0 ? 8 : 0;
        /* x[idx] */
        tl_tensor *rc = NULL, *rd = NULL;
        bool sc = false;
        tl_error ec = {0}, ed = {0};
        int a = tl_index_get(xc, false, &ixc, &rc, &sc, &ec);
        tl_backend_counters_reset();
        int b = tl_index_get(xd, false, &ixd, &rd, &sc, &ed);
        tl_backend_counters cn = tl_backend_counters_get(TL_DEV_CUDA);
        ck_assert_msg(a == b, "case %d: cpu %d (%s) device %d (%s)", c, a, ec.msg, b, ed.msg);
        if (a == 0) {
            tl_tensor *back = to_be(rd, cpu);
            assert_same_tensor(rc, rd, back, "x[idx]");
            tl_tensor_release(back);
            if (!host_idx)
                ck_assert_msg(cn.h2d_bytes == 0, "case %d: %llu bytes up", c,
                              (unsigned long long)cn.h2d_bytes);
            ck_assert_msg(cn.d2h_bytes <= down, "case %d: %llu bytes down", c,
                          (unsigned long long)cn.d2h_bytes);
            ok_get++;
            /* x[idx] = v (a value broadcast from the trailing dims, or
             * the whole shape) and index_put_ with accumulate */
            int vnd = rc->ndim > 0 ? (int)rnd_in(0, rc->ndim) : 0;
            tl_tensor *vc = host_tensor(dt, vnd, rc->sizes + (rc->ndim - vnd),
                                        dt == TL_BOOL ? 0 : -9, dt == TL_BOOL ? 1 : 9);
            tl_tensor *vd = to_be(vc, dev);
            tl_tensor *yc = to_be(xc, cpu), *yd = to_be(xd, dev);
            a = tl_index_set(yc, false, &ixc, vc, NULL, &ec);
            tl_backend_counters_reset();
            b = tl_index_set(yd, false, &ixd, vd, NULL, &ed);
            cn = tl_backend_counters_get(TL_DEV_CUDA);
            ck_assert_msg(a == b, "case %d set: cpu %d (%s) device %d (%s)", c, a, ec.msg, b,
                          ed.msg);
            if (a == 0) {
                tl_tensor *back = to_be(yd, cpu);
                assert_same_tensor(yc, yd, back, "x[idx] = v");
                tl_tensor_release(back);
                if (!host_idx)
                    ck_assert_msg(cn.h2d_bytes == 0 && cn.d2h_bytes <= down, "case %d set: "
                                  "%llu up, %llu down", c, (unsigned long long)cn.h2d_bytes,
                                  (unsigned long long)cn.d2h_bytes);
                ok_set++;
            } else {
                ck_assert_str_eq(ec.msg, ed.msg);
            }
            tl_tensor_release(yc);
            tl_tensor_release(yd);
            tl_tensor_release(vc);
            tl_tensor_release(vd);
        } else {
            ck_assert_int_eq(ec.kind, ed.kind);
            ck_assert_str_eq(ec.msg, ed.msg);
            err_get++;
        }
        tl_tensor_release(rc);
        tl_tensor_release(rd);
        tl_index_free(&ixc);
        tl_index_free(&ixd);
        tl_tensor_release(xc);
        tl_tensor_release(xd);
    }
    /* the generator reaches all three outcomes often */
    ck_assert_int_gt(ok_get, 1000);
    ck_assert_int_gt(err_get, 100);
    ck_assert_int_gt(ok_set, 500);
}
END_TEST

/* index_select, take and gather on the device (offsets from the device's
 * kernel) against the CPU: random x (permuted: take reads a contiguous
 * copy), 0-d/1-d/2-d int64/int32 indices (gather: x's rank, smaller sizes)
 * with negative and out-of-range values */
START_TEST(test_device_functions)
{
    const tl_backend *dev = index_device(_i);
    if (!dev)
        return;
    const tl_backend *cpu = tl_backend_cpu();
    int ok = 0, bad = 0;
    for (int c = 0; c < 1500; c++) {
        rng_state = 0x2545f4914f6cdd1dULL * (uint64_t)(c + 7);
        int nd = (int)rnd_in(1, 3);
        int64_t sz[3];
        for (int i = 0; i < nd; i++)
            sz[i] = rnd_in(0, 12) ? rnd_in(1, 5) : 0;
        tl_tensor *xc = host_tensor(rnd_in(0, 1) ? TL_FLOAT32 : TL_INT16, nd, sz, -99, 99);
        tl_error err = {0};
        if (nd >= 2 && rnd_in(0, 1)) {
            tl_tensor *t = tl_view_transpose(xc, 0, nd - 1, &err);
            ck_assert_ptr_nonnull(t);
            tl_tensor_release(xc);
            xc = t;
        }
        tl_tensor *xd = to_be(xc, dev);
        int fn = (int)rnd_in(0, 2); /* 0 index_select, 1 take, 2 gather */
        bool take = fn == 1;
        int64_t d = rnd_in(-nd, nd - 1), size = take ? tl_tensor_numel(xc)
                                                     : xc->sizes[d < 0 ? d + nd : d];
        int ind = take ? (int)rnd_in(0, 2) : fn == 2 ? nd : (int)rnd_in(0, 1);
        int64_t isz[3] = {rnd_in(0, 6), rnd_in(1, 3), rnd_in(1, 3)};
        if (fn == 2) /* gather: no larger than x but along d */
            for (int q = 0; q < nd; q++)
                isz[q] = q == (d < 0 ? d + nd : d) ? rnd_in(0, 5) : rnd_in(0, xc->sizes[q]);
        int64_t lo = take ? -size : 0, hi = size - 1;
        if (rnd_in(0, 7) == 0 || size == 0)
            lo = -size - 2, hi = size + 1;
        tl_tensor *ic = host_tensor(take || fn == 2 || rnd_in(0, 1) ? TL_INT64 : TL_INT32, ind,
                                    isz, lo, hi);
        /* take moves a host index to the device; index_select and gather
         * refuse one (test_index_device_mismatch) */
        tl_tensor *id = !take || rnd_in(0, 4) ? to_be(ic, dev) : tl_tensor_retain(ic);
        tl_error ec = {0}, ed = {0};
        tl_tensor *rc = take ? tl_index_take(xc, ic, &ec)
                        : fn == 2 ? tl_index_gather(xc, d, ic, &ec) : tl_index_select(xc, d, ic, &ec);
        tl_backend_counters_reset();
        tl_tensor *rd = take ? tl_index_take(xd, id, &ed)
                        : fn == 2 ? tl_index_gather(xd, d, id, &ed) : tl_index_select(xd, d, id, &ed);
        tl_backend_counters cn = tl_backend_counters_get(TL_DEV_CUDA);
        ck_assert_msg((rc == NULL) == (rd == NULL), "case %d: cpu %s / device %s", c,
                      rc ? "ok" : ec.msg, rd ? "ok" : ed.msg);
        if (rc) {
            tl_tensor *back = to_be(rd, cpu);
            assert_same_tensor(rc, rd, back, take ? "take" : fn == 2 ? "gather" : "index_select");
            tl_tensor_release(back);
            if (tl_tensor_backend(id) == dev)
                ck_assert_msg(cn.h2d_bytes == 0 && cn.d2h_bytes <= 8, "case %d: %llu up, "
                              "%llu down", c, (unsigned long long)cn.h2d_bytes,
                              (unsigned long long)cn.d2h_bytes);
            ok++;
        } else {
            ck_assert_int_eq(ec.kind, ed.kind);
            ck_assert_str_eq(ec.msg, ed.msg);
            bad++;
        }
        tl_tensor_release(rc);
        tl_tensor_release(rd);
        tl_tensor_release(ic);
        tl_tensor_release(id);
        tl_tensor_release(xc);
        tl_tensor_release(xd);
    }
    ck_assert_int_gt(ok, 700);
    ck_assert_int_gt(bad, 100);
}
END_TEST

/* x[idx] of a CPU x with a device index raises (at::index's
 * check_indices_on_cpu_or_selfdevice); x[idx] = v moves the index to x's
 * device instead (make_info), so it works */
START_TEST(test_index_device_mismatch)
{
    const tl_backend *dev = tl_backend_cuda_emulated();
    tl_error err = {0};
    int64_t n = 4, m = 2;
    rng_state = 99;
    tl_tensor *x = host_tensor(TL_FLOAT32, 1, &n, 0, 9);
    tl_tensor *ih = host_tensor(TL_INT64, 1, &m, 0, 3);
    tl_tensor *id = to_be(ih, dev);
    tl_index_item it = {0};
    it.kind = TL_INDEX_TENSOR;
    it.t = id;
    tl_index ix = {1, &it, true};
    tl_tensor *r = NULL;
    bool sc = false;
    ck_assert_int_eq(tl_index_get(x, false, &ix, &r, &sc, &err), -1);
    ck_assert_int_eq(err.kind, TL_ERR_RUNTIME);
    ck_assert_str_eq(err.msg, "indices should be either on cpu or on the same device as the "
                              "indexed tensor (cpu)");
    /* index_select: the dispatcher's device check, self first */
    ck_assert_ptr_null(tl_index_select(x, 0, id, &err));
    ck_assert_str_eq(err.msg, "Expected all tensors to be on the same device, but got index is "
                              "on cuda:0, different from other tensors on cpu (when checking "
                              "argument in method wrapper_CUDA__index_select)");
    tl_tensor *xd = to_be(x, dev);
    ck_assert_ptr_null(tl_index_select(xd, 0, ih, &err));
    ck_assert_str_eq(err.msg, "Expected all tensors to be on the same device, but got index is "
                              "on cpu, different from other tensors on cuda:0 (when checking "
                              "argument in method wrapper_CUDA__index_select)");
    tl_tensor_release(xd);
    tl_scalar seven = {.is_float = true, .f = 7.0};
    ck_assert_int_eq(tl_index_set(x, false, &ix, NULL, &seven, &err), 0);
    int64_t k;
    ck_assert_int_eq(tl_tensor_get_i64(ih, 0, &k, &err), 0);
    double v;
    ck_assert_int_eq(tl_tensor_get_f64(x, k, &v, &err), 0);
    ck_assert(v == 7.0);
    tl_tensor_release(x);
    tl_tensor_release(ih);
    tl_tensor_release(id);
}
END_TEST

/* index_put_(accumulate=True) with repeated targets: the sums accumulate
 * in the CPU's order, on the device too (float16 rounding makes the order
 * visible), and the device moved no index byte */
START_TEST(test_device_accumulate)
{
    const tl_backend *dev = tl_backend_cuda_emulated();
    tl_error err = {0};
    int64_t n = 4, m = 64;
    rng_state = 12345;
    tl_tensor *xc = host_tensor(TL_FLOAT16, 1, &n, 0, 0);
    tl_tensor *ic = host_tensor(TL_INT64, 1, &m, -4, 3);
    tl_tensor *vc = tl_tensor_new(tl_backend_cpu(), TL_FLOAT16, 1, &m, &err);
    for (int64_t i = 0; i < m; i++)
        tl_tensor_set_f64(vc, i, (i % 3 ? 1.0 : 1000.0) + 0.1 * (double)i, &err);
    tl_tensor *xd = to_be(xc, dev), *id = to_be(ic, dev), *vd = to_be(vc, dev);
    for (int acc = 0; acc < 2; acc++) {
        ck_assert_int_eq(tl_index_put_(xc, &ic, 1, vc, acc, &err), 0);
        tl_backend_counters_reset();
        ck_assert_int_eq(tl_index_put_(xd, &id, 1, vd, acc, &err), 0);
        tl_backend_counters cn = tl_backend_counters_get(TL_DEV_CUDA);
        ck_assert_uint_eq(cn.h2d_bytes, 0);
        ck_assert_uint_le(cn.d2h_bytes, 8);
        tl_tensor *back = to_be(xd, tl_backend_cpu());
        assert_same_tensor(xc, xd, back, "index_put_");
        tl_tensor_release(back);
    }
    tl_tensor_release(xc);
    tl_tensor_release(ic);
    tl_tensor_release(vc);
    tl_tensor_release(xd);
    tl_tensor_release(id);
    tl_tensor_release(vd);
}
END_TEST

static Suite *index_suite(void)
{
    Suite *s = suite_create("index");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 60);
    tcase_add_test(core, test_tuple_vs_list);
    tcase_add_test(core, test_slices);
    tcase_add_test(core, test_setitem_version);
    tcase_add_test(core, test_ndarray);
    tcase_add_test(core, test_functions);
    tcase_add_loop_test(core, test_device_random, 0, 2);
    tcase_add_loop_test(core, test_device_functions, 0, 2);
    tcase_add_test(core, test_device_accumulate);
    tcase_add_test(core, test_index_device_mismatch);
    tcase_add_loop_test(core, test_cases_ok, 0,
                        (int)(sizeof index_cases / sizeof index_cases[0]));
    tcase_add_loop_test(core, test_layout_cases, 0,
                        (int)(sizeof layout_cases / sizeof layout_cases[0]));
    ce_add_tcases(s, core, test_limits, test_cases_err,
                  (int)(sizeof index_cases / sizeof index_cases[0]));
    return s;
}

int main(void)
{
    return ce_run_suite(index_suite());
}
