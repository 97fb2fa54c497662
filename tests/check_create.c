/* check_create.c - unit tests for create.c, bind_create.c and numpy.c:
 * factories (shapes, strides, values, dtypes), torch.tensor inference,
 * Tensor queries, NumPy sharing rules and the PyTorch error texts.
 *
 * Expected values and messages were measured with torch 1.13.1 / numpy
 * 1.24 (item() follows 2.x's RuntimeError, see the reference sheet).
 * Bindings are called through tl_bind_find, as the interpreter does.
 */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "convert.h"
#include "create.h"
#include "numpy.h"

/* ---- helpers ---- */

static tl_error err;

static void setup(void)
{
    tl_error_clear(&err);
    tl_context_set_backends(tl_backend_cpu(), tl_backend_cuda_emulated());
    tl_create_manual_seed(0);
}

/* Call binding `name` of `kind` with self and positional args; `kw` is a
 * NULL-terminated list of name, value pairs. Steals every value passed. */
static tl_value *callv(tl_bind_kind kind, const char *name, tl_value *self,
                       int npos, tl_value **pos, const char **kwn,
                       tl_value **kwv, int nkw)
{
    const tl_binding *b = tl_bind_find(kind, name);
    ck_assert_msg(b != NULL, "no binding %s", name);
    tl_args a = {(size_t)npos, pos, (size_t)nkw, kwn, kwv};
    tl_error_clear(&err);
    tl_value *r = b->fn(self, &a, &err);
    for (int i = 0; i < npos; i++)
        tl_value_release(pos[i]);
    for (int i = 0; i < nkw; i++)
        tl_value_release(kwv[i]);
    if (self)
        tl_value_release(self);
    return r;
}

#define P(...) ((tl_value *[]){__VA_ARGS__})
#define NPOS(...) ((int)(sizeof(P(__VA_ARGS__)) / sizeof(tl_value *)))
/* torch.NAME(positional...) */
#define TORCH(name, ...) callv(TL_BIND_TORCH, name, NULL, NPOS(__VA_ARGS__), P(__VA_ARGS__), NULL, NULL, 0)
#define TORCH0(name) callv(TL_BIND_TORCH, name, NULL, 0, NULL, NULL, NULL, 0)
/* torch.NAME(positional..., kwname=kwval) */
#define TORCHK(name, kwname, kwval, ...)                                       \
    callv(TL_BIND_TORCH, name, NULL, NPOS(__VA_ARGS__), P(__VA_ARGS__),        \
          (const char *[]){kwname}, P(kwval), 1)
#define METHOD(name, self, ...) callv(TL_BIND_METHOD, name, tl_value_retain(self), NPOS(__VA_ARGS__), P(__VA_ARGS__), NULL, NULL, 0)
#define METHOD0(name, self) callv(TL_BIND_METHOD, name, tl_value_retain(self), 0, NULL, NULL, NULL, 0)
#define ATTR(name, self) callv(TL_BIND_ATTR, name, tl_value_retain(self), 0, NULL, NULL, NULL, 0)

static tl_value *ilist(int n, ...)
{
    va_list ap;
    va_start(ap, n);
    tl_value *l = tl_list_new(0);
    for (int i = 0; i < n; i++)
        tl_list_append(l, va_arg(ap, tl_value *));
    va_end(ap);
    return l;
}

static tl_value *ituple(int n, ...)
{
    va_list ap;
    va_start(ap, n);
    tl_value *t = tl_tuple_new((size_t)n);
    for (int i = 0; i < n; i++)
        tl_seq_set(t, (size_t)i, va_arg(ap, tl_value *));
    va_end(ap);
    return t;
}

static void expect_err(tl_value *r, tl_errkind kind, const char *msg)
{
    ck_assert_msg(r == NULL, "expected an error (%s)", msg);
    ck_assert_msg(err.kind == kind, "kind %s, want %s; msg: %s",
                  tl_error_kind_name(err.kind), tl_error_kind_name(kind), err.msg);
    ck_assert_str_eq(err.msg, msg);
    tl_error_clear(&err);
}

static tl_tensor *T(tl_value *v)
{
    ck_assert_msg(v != NULL, "unexpected error: %s", err.msg);
    ck_assert(v->kind == TL_V_TENSOR || v->kind == TL_V_NDARRAY);
    return v->u.tensor;
}

static void assert_shape(const tl_tensor *t, int ndim, const int64_t *sizes,
                         const int64_t *strides)
{
    ck_assert_int_eq(t->ndim, ndim);
    for (int d = 0; d < ndim; d++) {
        ck_assert_int_eq(t->sizes[d], sizes[d]);
        if (strides)
            ck_assert_int_eq(t->strides[d], strides[d]);
    }
}

static double elem(const tl_tensor *t, int64_t i)
{
    double v;
    ck_assert_int_eq(tl_tensor_get_f64(t, i, &v, NULL), 0);
    return v;
}

/* ---- core ---- */

START_TEST(test_zeros_ones_full)
{
    tl_value *z = TORCH("zeros", tl_int(2), tl_int(3));
    tl_tensor *t = T(z);
    assert_shape(t, 2, (int64_t[]){2, 3}, (int64_t[]){3, 1});
    ck_assert_int_eq(t->dtype, TL_FLOAT32);
    ck_assert(elem(t, 5) == 0.0);
    ck_assert_int_eq(t->offset, 0);
    tl_value_release(z);

    tl_value *o = TORCHK("ones", "dtype", tl_value_dtype(TL_INT32),
                         ituple(2, tl_int(2), tl_int(2)));
    t = T(o);
    ck_assert_int_eq(t->dtype, TL_INT32);
    ck_assert(elem(t, 3) == 1.0);
    tl_value_release(o);

    /* empty(0, 2) has strides (2, 1); zeros([]) is 0-d */
    tl_value *e = TORCH("empty", tl_int(0), tl_int(2));
    assert_shape(T(e), 2, (int64_t[]){0, 2}, (int64_t[]){2, 1});
    tl_value_release(e);
    tl_value *s0 = TORCH("zeros", tl_list_new(0));
    ck_assert_int_eq(T(s0)->ndim, 0);
    ck_assert_int_eq(tl_tensor_numel(T(s0)), 1);
    tl_value_release(s0);

    /* full infers bool / int64 / float32 from the fill value */
    tl_value *f1 = TORCH("full", ituple(1, tl_int(2)), tl_int(3));
    ck_assert_int_eq(T(f1)->dtype, TL_INT64);
    ck_assert(elem(T(f1), 1) == 3.0);
    tl_value_release(f1);
    tl_value *f2 = TORCH("full", ituple(1, tl_int(2)), tl_float(2.5));
    ck_assert_int_eq(T(f2)->dtype, TL_FLOAT32);
    ck_assert(elem(T(f2), 0) == 2.5);
    tl_value_release(f2);
    tl_value *f3 = TORCH("full", ituple(1, tl_int(2)), tl_bool(true));
    ck_assert_int_eq(T(f3)->dtype, TL_BOOL);
    tl_value_release(f3);
    /* -1 into uint8 wraps to 255 (allowed), 1.5 into int64 truncates */
    tl_value *f4 = TORCHK("full", "dtype", tl_value_dtype(TL_UINT8),
                          ituple(1, tl_int(2)), tl_int(-1));
    ck_assert(elem(T(f4), 0) == 255.0);
    tl_value_release(f4);

    /* channels_last empty */
    tl_value *cl = callv(TL_BIND_TORCH, "empty", NULL, 4,
                         P(tl_int(2), tl_int(3), tl_int(4), tl_int(5)),
                         (const char *[]){"memory_format"},
                         P(tl_value_memfmt(TL_MEMFMT_CHANNELS_LAST)), 1);
    assert_shape(T(cl), 4, (int64_t[]){2, 3, 4, 5}, (int64_t[]){60, 1, 15, 3});
    tl_value_release(cl);
}
END_TEST

START_TEST(test_arange_linspace_eye)
{
    tl_value *a = TORCH("arange", tl_int(5));
    ck_assert_int_eq(T(a)->dtype, TL_INT64);
    ck_assert_int_eq(T(a)->sizes[0], 5);
    ck_assert(elem(T(a), 4) == 4.0);
    tl_value_release(a);

    a = TORCH("arange", tl_float(5.0));
    ck_assert_int_eq(T(a)->dtype, TL_FLOAT32);
    tl_value_release(a);

    a = TORCH("arange", tl_int(1), tl_float(2.5), tl_float(0.5));
    ck_assert_int_eq(T(a)->sizes[0], 3);
    ck_assert(elem(T(a), 2) == 2.0);
    tl_value_release(a);

    a = TORCH("arange", tl_int(0), tl_int(1), tl_float(0.1));
    ck_assert_int_eq(T(a)->sizes[0], 10);
    tl_value_release(a);

    a = TORCH("arange", tl_int(10), tl_int(0), tl_int(-3));
    ck_assert_int_eq(T(a)->sizes[0], 4);
    ck_assert(elem(T(a), 0) == 10 && elem(T(a), 3) == 1);
    tl_value_release(a);

    a = TORCHK("arange", "dtype", tl_value_dtype(TL_INT64), tl_float(2.5));
    ck_assert_int_eq(T(a)->sizes[0], 2);
    tl_value_release(a);

    /* linspace(0, 10, 5, dtype=int64) = [0, 2, 5, 7, 10] */
    tl_value *l = TORCHK("linspace", "dtype", tl_value_dtype(TL_INT64),
                         tl_int(0), tl_int(10), tl_int(5));
    double want[5] = {0, 2, 5, 7, 10};
    for (int i = 0; i < 5; i++)
        ck_assert(elem(T(l), i) == want[i]);
    tl_value_release(l);
    l = TORCH("linspace", tl_int(-1), tl_int(1), tl_int(4));
    ck_assert_int_eq(T(l)->dtype, TL_FLOAT32);
    ck_assert(elem(T(l), 0) == -1.0 && elem(T(l), 3) == 1.0);
    ck_assert(fabs(elem(T(l), 1) + 1.0 / 3) < 1e-7);
    tl_value_release(l);
    l = TORCH("linspace", tl_int(0), tl_int(1), tl_int(0));
    ck_assert_int_eq(tl_tensor_numel(T(l)), 0);
    tl_value_release(l);

    tl_value *e = TORCH("eye", tl_int(3), tl_int(2));
    assert_shape(T(e), 2, (int64_t[]){3, 2}, (int64_t[]){2, 1});
    double ew[6] = {1, 0, 0, 1, 0, 0};
    for (int i = 0; i < 6; i++)
        ck_assert(elem(T(e), i) == ew[i]);
    tl_value_release(e);
    e = TORCH("eye", tl_int(0));
    assert_shape(T(e), 2, (int64_t[]){0, 0}, NULL);
    tl_value_release(e);
}
END_TEST

START_TEST(test_tensor_inference)
{
    tl_value *v = TORCH("tensor", ilist(2, tl_bool(true), tl_int(2)));
    ck_assert_int_eq(T(v)->dtype, TL_INT64);
    tl_value_release(v);
    v = TORCH("tensor", ilist(2, tl_int(1), tl_float(2.0)));
    ck_assert_int_eq(T(v)->dtype, TL_FLOAT32);
    tl_value_release(v);
    v = TORCH("tensor", ilist(2, tl_bool(true), tl_bool(false)));
    ck_assert_int_eq(T(v)->dtype, TL_BOOL);
    tl_value_release(v);

    v = TORCH("tensor", ilist(2, ilist(2, tl_int(1), tl_int(2)),
                              ituple(2, tl_int(3), tl_int(4))));
    assert_shape(T(v), 2, (int64_t[]){2, 2}, (int64_t[]){2, 1});
    ck_assert(elem(T(v), 3) == 4.0);
    tl_value_release(v);

    v = TORCH("tensor", tl_list_new(0));
    assert_shape(T(v), 1, (int64_t[]){0}, NULL);
    ck_assert_int_eq(T(v)->dtype, TL_FLOAT32);
    tl_value_release(v);
    v = TORCH("tensor", ilist(1, tl_list_new(0)));
    assert_shape(T(v), 2, (int64_t[]){1, 0}, NULL);
    tl_value_release(v);
    v = TORCH("tensor", tl_float(3.0));
    ck_assert_int_eq(T(v)->ndim, 0);
    tl_value_release(v);

    /* tensor leaves take part in promotion */
    tl_value *i32 = TORCHK("tensor", "dtype", tl_value_dtype(TL_INT32), tl_int(1));
    v = TORCH("tensor", ilist(2, i32, tl_int(2)));
    ck_assert_int_eq(T(v)->dtype, TL_INT64);
    tl_value_release(v);
    tl_value *f64 = TORCHK("tensor", "dtype", tl_value_dtype(TL_FLOAT64),
                           tl_float(1.5));
    v = TORCH("tensor", ilist(1, f64));
    ck_assert_int_eq(T(v)->dtype, TL_FLOAT64);
    ck_assert(elem(T(v), 0) == 1.5);
    tl_value_release(v);

    /* explicit dtypes convert: 1.5, -1.5 -> int64 1, -1 */
    v = TORCHK("tensor", "dtype", tl_value_dtype(TL_INT64),
               ilist(2, tl_float(1.5), tl_float(-1.5)));
    ck_assert(elem(T(v), 0) == 1 && elem(T(v), 1) == -1);
    tl_value_release(v);
    v = TORCHK("tensor", "dtype", tl_value_dtype(TL_UINT8), ilist(1, tl_int(-1)));
    ck_assert(elem(T(v), 0) == 255);
    tl_value_release(v);
    v = TORCHK("tensor", "dtype", tl_value_dtype(TL_FLOAT16),
               ilist(1, tl_float(1e6)));
    ck_assert(isinf(elem(T(v), 0)));
    tl_value_release(v);
}
END_TEST

START_TEST(test_copies_and_like)
{
    /* torch.tensor(t) copies, keeping a dense permuted layout */
    tl_value *x = TORCH("zeros", tl_int(2), tl_int(3));
    tl_tensor *xt = T(x);
    int64_t st[2] = {1, 3}, sz[2] = {3, 2};
    tl_tensor *tr = tl_tensor_view(xt, 2, sz, st, 0);
    tl_value *trv = tl_value_tensor(tr);
    tl_value *c = TORCH("tensor", tl_value_retain(trv));
    ck_assert_ptr_ne(T(c)->storage, xt->storage);
    assert_shape(T(c), 2, sz, st);
    tl_value_release(c);

    /* zeros_like of a non-dense (6,2)/(1,12) view: strides (1, 6) */
    tl_value *base = TORCH("zeros", tl_int(4), tl_int(6));
    tl_tensor *v62 = tl_tensor_view(T(base), 2, (int64_t[]){6, 2},
                                    (int64_t[]){1, 12}, 0);
    tl_value *vv = tl_value_tensor(v62);
    tl_value *zl = TORCH("zeros_like", tl_value_retain(vv));
    assert_shape(T(zl), 2, (int64_t[]){6, 2}, (int64_t[]){1, 6});
    tl_value_release(zl);
    zl = TORCHK("ones_like", "memory_format",
                tl_value_memfmt(TL_MEMFMT_CONTIGUOUS), tl_value_retain(vv));
    assert_shape(T(zl), 2, (int64_t[]){6, 2}, (int64_t[]){2, 1});
    ck_assert(elem(T(zl), 11) == 1.0);
    tl_value_release(zl);
    /* full_like(int32, 2.7) truncates to 2 */
    tl_value *i32 = TORCHK("zeros", "dtype", tl_value_dtype(TL_INT32), tl_int(2));
    tl_value *fl = TORCH("full_like", tl_value_retain(i32), tl_float(2.7));
    ck_assert_int_eq(T(fl)->dtype, TL_INT32);
    ck_assert(elem(T(fl), 1) == 2.0);
    tl_value_release(fl);
    /* new_* keep self's dtype */
    tl_value *nz = METHOD("new_full", i32, ituple(1, tl_int(3)), tl_float(2.5));
    ck_assert_int_eq(T(nz)->dtype, TL_INT32);
    ck_assert_int_eq(T(nz)->sizes[0], 3);
    ck_assert(elem(T(nz), 2) == 2.0);
    tl_value_release(nz);
    nz = METHOD("new_tensor", i32, ilist(1, tl_float(1.5)));
    ck_assert_int_eq(T(nz)->dtype, TL_INT32);
    ck_assert(elem(T(nz), 0) == 1.0);
    tl_value_release(nz);
    nz = METHOD("new_zeros", x, tl_int(4));
    ck_assert_int_eq(T(nz)->dtype, TL_FLOAT32);
    tl_value_release(nz);
    tl_value_release(i32);
    tl_value_release(vv);
    tl_value_release(base);
    tl_value_release(trv);
    tl_value_release(x);
}
END_TEST

START_TEST(test_random)
{
    tl_create_manual_seed(3);
    tl_value *a = TORCH("rand", tl_int(100));
    tl_create_manual_seed(3);
    tl_value *b = TORCH("rand", tl_int(100));
    tl_value *c = TORCH("rand", tl_int(100));
    bool differ = false;
    for (int i = 0; i < 100; i++) {
        double x = elem(T(a), i);
        ck_assert(x >= 0.0 && x < 1.0);
        ck_assert(x == elem(T(b), i));
        if (x != elem(T(c), i))
            differ = true;
    }
    ck_assert(differ);
    tl_value *n = TORCH("randn", tl_int(2), tl_int(3));
    ck_assert_int_eq(T(n)->dtype, TL_FLOAT32);
    ck_assert_int_eq(T(n)->ndim, 2);
    tl_value *m = TORCH("manual_seed", tl_int(3));
    ck_assert_int_eq(m->kind, TL_V_NONE);
    tl_value *d = TORCH("rand", tl_int(100));
    ck_assert(elem(T(d), 7) == elem(T(a), 7));
    tl_value *ri = TORCH("randint", tl_int(3), ituple(2, tl_int(50), tl_int(2)));
    ck_assert_int_eq(T(ri)->dtype, TL_INT64);
    for (int i = 0; i < 100; i++) {
        double v = elem(T(ri), i);
        ck_assert(v >= 0 && v < 3 && v == floor(v));
    }
    tl_value_release(ri);
    tl_value_release(m);
    tl_value_release(a);
    tl_value_release(b);
    tl_value_release(c);
    tl_value_release(d);
    tl_value_release(n);
}
END_TEST

/* torch.Tensor (reference sheet 9): Tensor(t) is an alias view sharing the
 * version counter; Tensor(list) a float32 copy; Tensor(2, 3) float32.
 * pin_memory(): a copy into a pinned storage keeping strides, offset 0;
 * the same object once pinned. */
START_TEST(test_legacy_ctor_pin_memory)
{
    tl_value *x = TORCH("arange", tl_int(6));
    tl_tensor *t6 = T(x);
    tl_tensor *m = tl_tensor_view(t6, 2, (int64_t[]){3, 2}, (int64_t[]){1, 3}, 0);
    tl_value *mv = tl_value_tensor(m);
    tl_value *y = TORCH("Tensor", tl_value_retain(mv));
    ck_assert_ptr_ne(T(y), m);
    ck_assert(tl_storage_same(T(y)->storage, m->storage));
    ck_assert_ptr_eq(T(y)->version, m->version);
    ck_assert_int_eq(T(y)->dtype, TL_INT64); /* measured: no conversion */
    tl_value_release(y);
    y = TORCH("Tensor", ilist(2, tl_int(1), tl_int(2)));
    ck_assert_int_eq(T(y)->dtype, TL_FLOAT32);
    tl_value_release(y);
    y = TORCH("Tensor", tl_int(2), tl_int(3));
    assert_shape(T(y), 2, (int64_t[]){2, 3}, (int64_t[]){3, 1});
    ck_assert_int_eq(T(y)->dtype, TL_FLOAT32);
    tl_value_release(y);
    y = METHOD0("pin_memory", mv);
    ck_assert_ptr_nonnull(y);
    ck_assert(!tl_storage_same(T(y)->storage, m->storage));
    ck_assert(T(y)->storage->pinned);
    assert_shape(T(y), 2, (int64_t[]){3, 2}, (int64_t[]){1, 3});
    ck_assert_int_eq(T(y)->offset, 0);
    ck_assert(elem(T(y), 1) == 3.0);
    tl_value *z = METHOD0("pin_memory", y);
    ck_assert_ptr_eq(z, y); /* already pinned: self */
    tl_value_release(z);
    z = METHOD0("is_pinned", y);
    ck_assert(z->kind == TL_V_BOOL && z->u.b);
    tl_value_release(z);
    tl_value_release(y);
    tl_value_release(mv);
    tl_value_release(x);
}
END_TEST

START_TEST(test_queries)
{
    tl_value *x = TORCH("arange", tl_int(6));
    tl_value *y;
    tl_tensor *t6 = T(x);
    tl_tensor *m = tl_tensor_view(t6, 2, (int64_t[]){2, 3}, (int64_t[]){3, 1}, 0);
    tl_value *mv = tl_value_tensor(m);

    y = ATTR("shape", mv);
    ck_assert_int_eq(y->kind, TL_V_SIZE);
    ck_assert_int_eq(y->u.seq.n, 2);
    tl_value_release(y);
    y = METHOD("size", mv, tl_int(-1));
    ck_assert_int_eq(y->u.i, 3);
    tl_value_release(y);
    y = METHOD0("stride", mv);
    ck_assert_int_eq(y->kind, TL_V_TUPLE);
    ck_assert_int_eq(y->u.seq.items[0]->u.i, 3);
    tl_value_release(y);
    y = METHOD0("numel", mv);
    ck_assert_int_eq(y->u.i, 6);
    tl_value_release(y);
    y = METHOD0("element_size", mv);
    ck_assert_int_eq(y->u.i, 8);
    tl_value_release(y);
    y = ATTR("nbytes", mv);
    ck_assert_int_eq(y->u.i, 48);
    tl_value_release(y);
    y = METHOD0("is_contiguous", mv);
    ck_assert(y->u.b);
    tl_value_release(y);
    y = callv(TL_BIND_METHOD, "is_contiguous", tl_value_retain(mv), 0, NULL,
              (const char *[]){"memory_format"},
              P(tl_value_memfmt(TL_MEMFMT_CHANNELS_LAST)), 1);
    ck_assert(!y->u.b);
    tl_value_release(y);
    y = ATTR("_version", mv);
    ck_assert_int_eq(y->u.i, 0);
    tl_value_release(y);
    y = ATTR("dtype", mv);
    ck_assert_int_eq(y->u.dtype, TL_INT64);
    tl_value_release(y);

    /* tolist / item / len */
    y = METHOD0("tolist", mv);
    ck_assert_int_eq(y->kind, TL_V_LIST);
    ck_assert_int_eq(y->u.seq.n, 2);
    ck_assert_int_eq(y->u.seq.items[1]->u.seq.items[2]->u.i, 5);
    tl_value_release(y);
    tl_value *s = TORCH("tensor", tl_float(2.5));
    y = METHOD0("item", s);
    ck_assert_int_eq(y->kind, TL_V_FLOAT);
    ck_assert(y->u.f == 2.5);
    tl_value_release(y);
    y = METHOD0("tolist", s);
    ck_assert_int_eq(y->kind, TL_V_FLOAT);
    tl_value_release(y);
    int64_t len;
    ck_assert_int_eq(tl_create_len(m, &len, &err), 0);
    ck_assert_int_eq(len, 2);

    /* data_ptr and storages: a view at offset 1 is 8 bytes further */
    tl_tensor *off = tl_tensor_view(t6, 1, (int64_t[]){2}, (int64_t[]){1}, 1);
    tl_value *ov = tl_value_tensor(off);
    tl_value *p0 = METHOD0("data_ptr", mv), *p1 = METHOD0("data_ptr", ov);
    ck_assert_int_eq(p1->u.i - p0->u.i, 8);
    tl_value *st = METHOD0("untyped_storage", ov);
    ck_assert_int_eq(st->kind, TL_V_STORAGE);
    tl_value *f = tl_convert_storage_attr(st, "data_ptr", &err);
    tl_args none = {0, NULL, 0, NULL, NULL};
    tl_value *sp = f->u.func.fn(f->u.func.self, &none, &err);
    ck_assert_int_eq(sp->u.i, p0->u.i);
    tl_value *nb = tl_convert_storage_attr(st, "nbytes", &err);
    tl_value *nbv = nb->u.func.fn(nb->u.func.self, &none, &err);
    ck_assert_int_eq(nbv->u.i, 48);
    ck_assert_ptr_null(tl_convert_storage_attr(st, "bogus", &err));
    ck_assert_int_eq(err.kind, TL_ERR_ATTRIBUTE);
    tl_error_clear(&err);
    /* empty tensors report data_ptr 0 */
    tl_tensor *emp = tl_tensor_view(t6, 1, (int64_t[]){0}, (int64_t[]){1}, 6);
    tl_value *ev = tl_value_tensor(emp);
    tl_value *ep = METHOD0("data_ptr", ev);
    ck_assert_int_eq(ep->u.i, 0);
    /* requires_grad_ returns self */
    tl_value *fz = TORCH("zeros", tl_int(2));
    tl_value *rg = METHOD0("requires_grad_", fz);
    ck_assert_ptr_eq(rg, fz);
    ck_assert(T(fz)->requires_grad);
    tl_value_release(rg);

    tl_value *vals[] = {fz, ep, ev, nbv, nb, sp, f, st, p0, p1, ov, s, mv, x};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        tl_value_release(vals[i]);
}
END_TEST

START_TEST(test_numpy_sharing)
{
    tl_value *x = TORCH("zeros", tl_int(2), tl_int(3));
    tl_value *a = METHOD0("numpy", x);
    ck_assert_int_eq(a->kind, TL_V_NDARRAY);
    ck_assert_ptr_eq(a->u.tensor->storage, T(x)->storage);
    ck_assert_ptr_ne(a->u.tensor, T(x));
    tl_value *strides = callv(TL_BIND_NDARRAY, "strides", tl_value_retain(a), 0,
                              NULL, NULL, NULL, 0);
    ck_assert_int_eq(strides->u.seq.items[0]->u.i, 12);
    ck_assert_int_eq(strides->u.seq.items[1]->u.i, 4);
    tl_value_release(strides);

    /* from_numpy: new storage object over the same memory */
    tl_value *b = TORCH("from_numpy", tl_value_retain(a));
    ck_assert_ptr_ne(T(b)->storage, T(x)->storage);
    ck_assert_ptr_eq(T(b)->storage->data, T(x)->storage->data);
    ck_assert(tl_storage_same(T(b)->storage, T(x)->storage));
    /* as_tensor(tensor) is the same object; as_tensor(ndarray) shares */
    tl_value *c = TORCH("as_tensor", tl_value_retain(x));
    ck_assert_ptr_eq(c, x);
    tl_value *d = TORCH("as_tensor", tl_value_retain(a));
    ck_assert_ptr_eq(T(d)->storage->data, T(x)->storage->data);
    tl_value *e = TORCHK("as_tensor", "dtype", tl_value_dtype(TL_FLOAT64),
                         tl_value_retain(x));
    ck_assert_ptr_ne(T(e)->storage->data, T(x)->storage->data);
    ck_assert_int_eq(T(e)->dtype, TL_FLOAT64);

    /* np.array infers int64 / float64 and copies */
    tl_value *n1 = callv(TL_BIND_NUMPY, "array", NULL, 1,
                         P(ilist(2, tl_int(1), tl_int(2))), NULL, NULL, 0);
    ck_assert_int_eq(T(n1)->dtype, TL_INT64);
    tl_value *n2 = callv(TL_BIND_NUMPY, "array", NULL, 1,
                         P(ilist(2, tl_int(1), tl_float(2))), NULL, NULL, 0);
    ck_assert_int_eq(T(n2)->dtype, TL_FLOAT64);
    tl_value *n3 = callv(TL_BIND_NUMPY, "zeros", NULL, 1, P(tl_int(3)), NULL,
                         NULL, 0);
    ck_assert_int_eq(T(n3)->dtype, TL_FLOAT64);
    tl_value *n4 = callv(TL_BIND_NUMPY, "array", NULL, 1, P(tl_value_retain(x)),
                         NULL, NULL, 0);
    ck_assert_ptr_ne(T(n4)->storage->data, T(x)->storage->data);
    ck_assert_int_eq(T(n4)->dtype, TL_FLOAT32);
    tl_value *n5 = callv(TL_BIND_NUMPY, "arange", NULL, 3,
                         P(tl_int(0), tl_int(1), tl_float(0.25)), NULL, NULL, 0);
    ck_assert_int_eq(T(n5)->sizes[0], 4);
    ck_assert(elem(T(n5), 3) == 0.75);

    /* shares_memory: columns 0 and 1 interleave but never overlap */
    tl_tensor *c0 = tl_tensor_view(a->u.tensor, 1, (int64_t[]){2}, (int64_t[]){3}, 0);
    tl_tensor *c1 = tl_tensor_view(a->u.tensor, 1, (int64_t[]){2}, (int64_t[]){3}, 1);
    ck_assert(!tl_numpy_overlap(c0, c1, true));
    ck_assert(tl_numpy_overlap(c0, c1, false));
    ck_assert(tl_numpy_overlap(c0, T(x), true));
    ck_assert(!tl_numpy_overlap(c0, T(n4), false));
    tl_value *c0v = tl_value_ndarray(c0), *c1v = tl_value_ndarray(c1);
    tl_value *sm = callv(TL_BIND_NUMPY, "shares_memory", NULL, 2,
                         P(tl_value_retain(c0v), tl_value_retain(c1v)), NULL,
                         NULL, 0);
    ck_assert(!sm->u.b);
    tl_value *ms = callv(TL_BIND_NUMPY, "may_share_memory", NULL, 2,
                         P(tl_value_retain(c0v), tl_value_retain(x)), NULL,
                         NULL, 0);
    ck_assert(ms->u.b);
    tl_value *vals[] = {ms, sm, c0v, c1v, n5, n4, n3, n2, n1, e, d, c, b, a, x};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        tl_value_release(vals[i]);
}
END_TEST

/* A view of tensor value v as a new tensor value (x[...] in the language) */
static tl_value *viewv(tl_value *v, int ndim, const int64_t *sizes,
                       const int64_t *strides, int64_t offset)
{
    return tl_value_tensor(tl_tensor_view(T(v), ndim, sizes, strides, offset));
}

static tl_value *nd_call(const char *name, tl_value *self, const char *kwn,
                         tl_value *kwv)
{
    return callv(TL_BIND_NDARRAY, name, tl_value_retain(self), 0, NULL,
                 kwn ? (const char *[]){kwn} : NULL, kwv ? P(kwv) : NULL,
                 kwv ? 1 : 0);
}

static tl_value *np_array_order(tl_value *obj, const char *order)
{
    return callv(TL_BIND_NUMPY, "array", NULL, 1, P(tl_value_retain(obj)),
                 (const char *[]){"order"}, P(tl_str(order)), 1);
}

/* torch.from_numpy / as_tensor of an offset array start their storage at
 * the array's first byte (offset 0, storage sized to the last reachable
 * element), torch.tensor(ndarray) keeps the layout (preserve_format), and
 * NumPy copies follow PyArray_NewLikeArray's orders. All measured with
 * torch 1.13.1 / numpy 1.24. */
START_TEST(test_numpy_layouts)
{
    tl_value *x24 = TORCH("arange", tl_float(24.0));
    tl_value *x = METHOD("reshape", x24, tl_int(4), tl_int(6));
    tl_value_release(x24);
    const char *base = T(x)->storage->data;

    /* torch.from_numpy(x[1:].numpy()): offset 0, 72 bytes from byte 24 */
    tl_value *rows = viewv(x, 2, (int64_t[]){3, 6}, (int64_t[]){6, 1}, 6);
    tl_value *ra = METHOD0("numpy", rows);
    tl_value *f1 = TORCH("from_numpy", tl_value_retain(ra));
    assert_shape(T(f1), 2, (int64_t[]){3, 6}, (int64_t[]){6, 1});
    ck_assert_int_eq(T(f1)->offset, 0);
    ck_assert_ptr_eq(T(f1)->storage->data, base + 24);
    ck_assert_uint_eq(T(f1)->storage->nbytes, 72);
    ck_assert(tl_storage_same(T(f1)->storage, T(x)->storage));
    ck_assert(elem(T(f1), 0) == 6.0 && elem(T(f1), 17) == 23.0);
    tl_value *a1 = TORCH("as_tensor", tl_value_retain(ra));
    ck_assert_int_eq(T(a1)->offset, 0);
    ck_assert_ptr_eq(T(a1)->storage->data, base + 24);

    /* x.t()[1:]: strides (1, 6), first byte 4, last element 23: 92 bytes;
     * a round trip of the round trip stays on the same memory */
    tl_value *tr = viewv(x, 2, (int64_t[]){5, 4}, (int64_t[]){1, 6}, 1);
    tl_value *ta = METHOD0("numpy", tr);
    tl_value *f2 = TORCH("from_numpy", tl_value_retain(ta));
    assert_shape(T(f2), 2, (int64_t[]){5, 4}, (int64_t[]){1, 6});
    ck_assert_int_eq(T(f2)->offset, 0);
    ck_assert_ptr_eq(T(f2)->storage->data, base + 4);
    ck_assert_uint_eq(T(f2)->storage->nbytes, 92);
    tl_value *f2a = METHOD0("numpy", f2);
    tl_value *f3 = TORCH("from_numpy", tl_value_retain(f2a));
    ck_assert_ptr_eq(T(f3)->storage->data, base + 4);
    ck_assert(tl_storage_same(T(f3)->storage, T(x)->storage));

    /* numel 0: x[2:2].numpy() has zero strides; from_numpy's storage holds
     * zero bytes and shares nothing */
    tl_value *em = viewv(x, 2, (int64_t[]){0, 6}, (int64_t[]){6, 1}, 12);
    tl_value *ea = METHOD0("numpy", em);
    assert_shape(T(ea), 2, (int64_t[]){0, 6}, (int64_t[]){0, 0});
    tl_value *f4 = TORCH("from_numpy", tl_value_retain(ea));
    assert_shape(T(f4), 2, (int64_t[]){0, 6}, (int64_t[]){0, 0});
    ck_assert_uint_eq(T(f4)->storage->nbytes, 0);
    ck_assert(!tl_storage_same(T(f4)->storage, T(x)->storage));

    /* torch.tensor(ndarray) copies with preserve_format strides */
    tl_value *xt = viewv(x, 2, (int64_t[]){6, 4}, (int64_t[]){1, 6}, 0);
    tl_value *xta = METHOD0("numpy", xt);
    tl_value *t1 = TORCH("tensor", tl_value_retain(xta));
    assert_shape(T(t1), 2, (int64_t[]){6, 4}, (int64_t[]){1, 6});
    ck_assert_ptr_ne(T(t1)->storage->data, base);
    ck_assert(elem(T(t1), 1) == 6.0);
    tl_value *st = viewv(x, 2, (int64_t[]){6, 2}, (int64_t[]){1, 12}, 0);
    tl_value *sta = METHOD0("numpy", st);
    tl_value *t2 = TORCH("tensor", tl_value_retain(sta));
    assert_shape(T(t2), 2, (int64_t[]){6, 2}, (int64_t[]){1, 6});

    /* NumPy order 'K': an expanded (4, 6) tensor, strides (0, 1), sorts its
     * axes by decreasing |stride| and copies to (1, 4) */
    tl_value *v6 = TORCH("arange", tl_float(6.0));
    tl_value *ex = viewv(v6, 2, (int64_t[]){4, 6}, (int64_t[]){0, 1}, 0);
    tl_value *n1 = callv(TL_BIND_NUMPY, "array", NULL, 1,
                         P(tl_value_retain(ex)), NULL, NULL, 0);
    assert_shape(T(n1), 2, (int64_t[]){4, 6}, (int64_t[]){1, 4});
    ck_assert(elem(T(n1), 7) == 1.0);
    /* 'A' in np.array is 'K'; in copy() it is F only for F-contiguous */
    tl_value *n2 = np_array_order(ex, "A");
    assert_shape(T(n2), 2, (int64_t[]){4, 6}, (int64_t[]){1, 4});
    tl_value *n3 = nd_call("copy", n1, "order", tl_str("A"));
    assert_shape(T(n3), 2, (int64_t[]){4, 6}, (int64_t[]){1, 4});
    tl_value *n4 = nd_call("copy", xta, NULL, NULL);
    assert_shape(T(n4), 2, (int64_t[]){6, 4}, (int64_t[]){4, 1});
    tl_value *n5 = nd_call("copy", sta, "order", tl_str("a"));
    assert_shape(T(n5), 2, (int64_t[]){6, 2}, (int64_t[]){2, 1});
    tl_value *n6 = np_array_order(x, "F");
    assert_shape(T(n6), 2, (int64_t[]){4, 6}, (int64_t[]){1, 4});
    ck_assert(elem(T(n6), 1) == 1.0);
    tl_value *n7 = nd_call("astype", sta, "dtype", tl_str("float64"));
    assert_shape(T(n7), 2, (int64_t[]){6, 2}, (int64_t[]){1, 6});
    ck_assert_int_eq(T(n7)->dtype, TL_FLOAT64);
    /* np.asarray(order='C') copies only what is not C-contiguous */
    tl_value *n8 = callv(TL_BIND_NUMPY, "asarray", NULL, 1,
                         P(tl_value_retain(n4)), (const char *[]){"order"},
                         P(tl_str("C")), 1);
    ck_assert_ptr_eq(n8, n4);
    tl_value *n9 = callv(TL_BIND_NUMPY, "zeros", NULL, 1,
                         P(ituple(2, tl_int(0), tl_int(3))), NULL, NULL, 0);
    assert_shape(T(n9), 2, (int64_t[]){0, 3}, (int64_t[]){0, 0});

    tl_value *vals[] = {n9, n8, n7, n6, n5, n4, n3, n2, n1, ex, v6, t2, sta,
                        st, t1, xta, xt, f4, ea, em, f3, f2a, f2, ta, tr, a1,
                        f1, ra, rows, x};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        tl_value_release(vals[i]);
}
END_TEST

/* ---- limits ---- */

START_TEST(test_limits)
{
    /* more than 2^31 elements */
    tl_value *r = TORCH("zeros", tl_int(1 << 20), tl_int(1 << 20));
    ck_assert_ptr_null(r);
    ck_assert_int_eq(err.kind, TL_ERR_LIMIT);
    tl_error_clear(&err);
    /* the live-bytes ledger refuses, with PyTorch's allocator wording */
    size_t old = tl_alloc_limit();
    tl_alloc_set_limit(1024);
    r = TORCH("zeros", tl_int(1024));
    ck_assert_ptr_null(r);
    ck_assert_int_eq(err.kind, TL_ERR_RUNTIME);
    ck_assert(strstr(err.msg, "not enough memory") != NULL);
    tl_error_clear(&err);
    r = TORCH("arange", tl_int(100000));
    ck_assert_ptr_null(r);
    tl_error_clear(&err);
    tl_alloc_set_limit(old);
    /* nesting deeper than TL_MAX_DIMS */
    tl_value *deep = tl_int(1);
    for (int i = 0; i < TL_MAX_DIMS + 1; i++)
        deep = ilist(1, deep);
    r = TORCH("tensor", deep);
    ck_assert_ptr_null(r);
    ck_assert_int_eq(err.kind, TL_ERR_LIMIT);
    tl_error_clear(&err);
    /* numel 0 everywhere */
    r = TORCH("rand", tl_int(0), tl_int(5));
    ck_assert_int_eq(tl_tensor_numel(T(r)), 0);
    tl_value *l = METHOD0("tolist", r);
    ck_assert_int_eq(l->u.seq.n, 0);
    tl_value_release(l);
    tl_value_release(r);
    /* the emulated device: factories land there, numpy() refuses */
    r = TORCHK("zeros", "device", tl_str("cuda"), tl_int(2));
    ck_assert_int_eq(tl_tensor_device(T(r)).kind, TL_DEV_CUDA);
    ck_assert_ptr_eq(tl_tensor_backend(T(r)), tl_backend_cuda_emulated());
    expect_err(METHOD0("numpy", r), TL_ERR_TYPE,
               "can't convert cuda:0 device type tensor to numpy. Use "
               "Tensor.cpu() to copy the tensor to host memory first.");
    tl_value *cp = TORCHK("tensor", "device", tl_str("cpu"), tl_value_retain(r));
    ck_assert_int_eq(tl_tensor_device(T(cp)).kind, TL_DEV_CPU);
    tl_value_release(cp);
    tl_value_release(r);
    tl_value *dv = TORCH("device", tl_str("cuda:0"));
    ck_assert_int_eq(dv->u.device.kind, TL_DEV_CUDA);
    tl_value_release(dv);
}
END_TEST

/* ---- errors ---- */

START_TEST(test_tensor_errors)
{
    expect_err(TORCH("tensor", ilist(2, ilist(2, tl_int(1), tl_int(2)),
                                     ilist(1, tl_int(3)))),
               TL_ERR_VALUE, "expected sequence of length 2 at dim 1 (got 1)");
    expect_err(TORCH("tensor", ilist(2, ilist(2, ilist(2, tl_int(1), tl_int(2)),
                                              ilist(2, tl_int(3), tl_int(4))),
                                     ilist(2, ilist(2, tl_int(1), tl_int(2)),
                                              ilist(1, tl_int(3))))),
               TL_ERR_VALUE, "expected sequence of length 2 at dim 2 (got 1)");
    expect_err(TORCH("tensor", ilist(2, ilist(1, tl_int(1)), tl_int(2))),
               TL_ERR_TYPE, "not a sequence");
    expect_err(TORCH("tensor", tl_str("a")), TL_ERR_TYPE,
               "new(): invalid data type 'str'");
    expect_err(TORCH("tensor", ilist(1, tl_str("a"))), TL_ERR_VALUE,
               "too many dimensions 'str'");
    expect_err(TORCH("tensor", tl_none()), TL_ERR_RUNTIME,
               "Could not infer dtype of NoneType");
    expect_err(TORCHK("tensor", "dtype", tl_value_dtype(TL_UINT8),
                      ilist(1, tl_int(300))),
               TL_ERR_RUNTIME,
               "value cannot be converted to type uint8 without overflow");
    expect_err(TORCHK("tensor", "dtype", tl_value_dtype(TL_INT8),
                      ilist(1, tl_int(-129))),
               TL_ERR_RUNTIME,
               "value cannot be converted to type int8 without overflow");
    expect_err(TORCHK("tensor", "requires_grad", tl_bool(true),
                      ilist(1, tl_int(1))),
               TL_ERR_RUNTIME,
               "Only Tensors of floating point and complex dtype can require "
               "gradients");
    expect_err(callv(TL_BIND_NUMPY, "array", NULL, 1,
                     P(ilist(2, ilist(2, tl_int(1), tl_int(2)),
                             ilist(1, tl_int(3)))),
                     NULL, NULL, 0),
               TL_ERR_VALUE,
               "setting an array element with a sequence. The requested array "
               "has an inhomogeneous shape after 1 dimensions. The detected "
               "shape was (2,) + inhomogeneous part.");
}
END_TEST

START_TEST(test_factory_errors)
{
    expect_err(TORCH("zeros", tl_int(-1)), TL_ERR_RUNTIME,
               "Trying to create tensor with negative dimension -1: [-1]");
    expect_err(TORCH("zeros", tl_int(2), tl_int(-3)), TL_ERR_RUNTIME,
               "Trying to create tensor with negative dimension -3: [2, -3]");
    expect_err(TORCH("zeros", tl_int(2), tl_float(2.5)), TL_ERR_TYPE,
               "zeros(): argument 'size' must be tuple of SymInts, but found "
               "element of type float at pos 2");
    expect_err(TORCH("zeros", tl_str("a")), TL_ERR_TYPE,
               "zeros(): argument 'size' (position 1) must be tuple of "
               "SymInts, not str");
    tl_value *r = TORCHK("ones", "dtype", tl_int(3), tl_int(2));
    ck_assert_ptr_null(r);
    ck_assert_int_eq(err.kind, TL_ERR_TYPE);
    tl_error_clear(&err);
    expect_err(TORCH("arange", tl_int(0), tl_int(10), tl_int(0)),
               TL_ERR_RUNTIME, "step must be nonzero");
    expect_err(TORCH("arange", tl_int(0), tl_int(-10), tl_int(1)),
               TL_ERR_RUNTIME,
               "upper bound and larger bound inconsistent with step sign");
    expect_err(TORCH("arange", tl_float(INFINITY)), TL_ERR_RUNTIME,
               "unsupported range: 0 -> inf");
    expect_err(TORCHK("arange", "dtype", tl_value_dtype(TL_BOOL), tl_int(5)),
               TL_ERR_RUNTIME, "\"arange_cpu\" not implemented for 'Bool'");
    expect_err(TORCH("arange", tl_str("a")), TL_ERR_TYPE,
               "arange(): argument 'end' (position 1) must be Number, not str");
    expect_err(TORCH("eye", tl_int(-1)), TL_ERR_RUNTIME,
               "n must be greater or equal to 0, got -1");
    expect_err(TORCH("eye", tl_float(2.5)), TL_ERR_TYPE,
               "eye(): argument 'n' (position 1) must be int, not float");
    expect_err(TORCH("linspace", tl_int(0), tl_int(1), tl_int(-1)),
               TL_ERR_RUNTIME, "number of steps must be non-negative");
    expect_err(TORCH("linspace", tl_int(0), tl_int(1)), TL_ERR_TYPE,
               "linspace() missing 1 required positional arguments: \"steps\"");
    expect_err(TORCHK("full", "dtype", tl_value_dtype(TL_INT8),
                      ituple(1, tl_int(2)), tl_int(300)),
               TL_ERR_RUNTIME,
               "value cannot be converted to type int8_t without overflow");
    expect_err(TORCHK("full", "dtype", tl_value_dtype(TL_INT32),
                      ituple(1, tl_int(2)), tl_float(1e10)),
               TL_ERR_RUNTIME,
               "value cannot be converted to type int without overflow");
    expect_err(TORCHK("full", "dtype", tl_value_dtype(TL_FLOAT16),
                      ituple(1, tl_int(2)), tl_float(1e6)),
               TL_ERR_RUNTIME,
               "value cannot be converted to type at::Half without overflow");
    expect_err(TORCH("full", tl_int(2), tl_float(1.0)), TL_ERR_TYPE,
               "full(): argument 'size' (position 1) must be tuple of SymInts, "
               "not int");
    expect_err(TORCHK("rand", "dtype", tl_value_dtype(TL_INT64), tl_int(2)),
               TL_ERR_RUNTIME,
               "\"check_uniform_bounds\" not implemented for 'Long'");
    expect_err(TORCHK("randn", "dtype", tl_value_dtype(TL_INT64), tl_int(2)),
               TL_ERR_RUNTIME,
               "\"normal_kernel_cpu\" not implemented for 'Long'");
    expect_err(TORCH("randint", tl_int(5), tl_int(1), ituple(1, tl_int(2))),
               TL_ERR_RUNTIME,
               "random_ expects 'from' to be less than 'to', but got from=5 >= "
               "to=1");
    expect_err(TORCHK("zeros", "device", tl_str("gpu"), tl_int(2)),
               TL_ERR_RUNTIME,
               "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, "
               "ideep, hip, ve, fpga, ort, xla, lazy, vulkan, mps, meta, hpu, "
               "privateuseone device type at start of device string: gpu");
    expect_err(TORCH("device", tl_str("cuda:x")), TL_ERR_RUNTIME,
               "Invalid device string: 'cuda:x'");
    tl_context_set_backends(tl_backend_cpu(), NULL);
    expect_err(TORCHK("zeros", "device", tl_str("cuda"), tl_int(2)),
               TL_ERR_ASSERTION, "Torch not compiled with CUDA enabled");
    tl_value *x = TORCH("zeros", tl_int(2), tl_int(3));
    expect_err(TORCHK("zeros_like", "memory_format",
                      tl_value_memfmt(TL_MEMFMT_CHANNELS_LAST), tl_value_retain(x)),
               TL_ERR_RUNTIME, "required rank 4 tensor to use channels_last format");
    tl_value_release(x);
}
END_TEST

/* numpy order= texts (numpy 1.24) and torch.tensor's check of a
 * negative-stride ndarray (tensor_from_numpy runs first) */
START_TEST(test_numpy_order_errors)
{
    tl_value *x = TORCH("arange", tl_float(6.0));
    tl_value *a = METHOD0("numpy", x);
    expect_err(nd_call("copy", a, "order", tl_str("X")), TL_ERR_VALUE,
               "order must be one of 'C', 'F', 'A', or 'K' (got 'X')");
    expect_err(nd_call("copy", a, "order", tl_str("KK")), TL_ERR_VALUE,
               "order must be one of 'C', 'F', 'A', or 'K' (got 'KK')");
    expect_err(nd_call("copy", a, "order", tl_int(3)), TL_ERR_TYPE,
               "order must be str, not int");
    expect_err(np_array_order(x, ""), TL_ERR_VALUE,
               "order must be one of 'C', 'F', 'A', or 'K' (got '')");
    expect_err(callv(TL_BIND_NUMPY, "zeros", NULL, 1, P(tl_int(3)),
                     (const char *[]){"order"}, P(tl_str("K")), 1),
               TL_ERR_VALUE, "only 'C' or 'F' order is permitted");
    tl_value *rev = tl_value_ndarray(
        tl_tensor_view(T(a), 1, (int64_t[]){6}, (int64_t[]){-1}, 5));
    const char *neg = "At least one stride in the given numpy array is "
                      "negative, and tensors with negative strides are not "
                      "currently supported. (You can probably work around "
                      "this by making a copy of your array  with "
                      "array.copy().) ";
    expect_err(TORCH("tensor", tl_value_retain(rev)), TL_ERR_VALUE, neg);
    expect_err(TORCH("from_numpy", tl_value_retain(rev)), TL_ERR_VALUE, neg);
    /* numpy itself copies it fine, in order 'K' by |stride| */
    tl_value *c = callv(TL_BIND_NUMPY, "array", NULL, 1, P(tl_value_retain(rev)),
                        NULL, NULL, 0);
    assert_shape(T(c), 1, (int64_t[]){6}, (int64_t[]){1});
    ck_assert(elem(T(c), 0) == 5.0);
    tl_value_release(c);
    tl_value_release(rev);
    tl_value_release(a);
    tl_value_release(x);
}
END_TEST

START_TEST(test_query_errors)
{
    tl_value *x = TORCH("zeros", tl_int(2), tl_int(3));
    expect_err(METHOD0("item", x), TL_ERR_RUNTIME,
               "a Tensor with 6 elements cannot be converted to Scalar");
    expect_err(METHOD("size", x, tl_int(2)), TL_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-2, 1], "
               "but got 2)");
    expect_err(METHOD("stride", x, tl_int(-3)), TL_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-2, 1], "
               "but got -3)");
    expect_err(METHOD("requires_grad_", x, tl_int(1)), TL_ERR_TYPE,
               "requires_grad_(): argument 'requires_grad' (position 1) must "
               "be bool, not int");
    tl_value *i = TORCH("arange", tl_int(3));
    expect_err(METHOD0("requires_grad_", i), TL_ERR_RUNTIME,
               "only Tensors of floating point dtype can require gradients");
    tl_value *s = TORCH("tensor", tl_float(1.0));
    int64_t len;
    ck_assert_int_eq(tl_create_len(T(s), &len, &err), -1);
    ck_assert_str_eq(err.msg, "len() of a 0-d tensor");
    ck_assert_int_eq(err.kind, TL_ERR_TYPE);
    tl_error_clear(&err);
    /* numpy() errors */
    tl_value *g = TORCHK("zeros", "requires_grad", tl_bool(true), tl_int(2));
    expect_err(METHOD0("numpy", g), TL_ERR_RUNTIME,
               "Can't call numpy() on Tensor that requires grad. Use "
               "tensor.detach().numpy() instead.");
    tl_value *bf = TORCHK("zeros", "dtype", tl_value_dtype(TL_BFLOAT16), tl_int(2));
    expect_err(METHOD0("numpy", bf), TL_ERR_TYPE,
               "Got unsupported ScalarType BFloat16");
    expect_err(TORCH("from_numpy", tl_value_retain(x)), TL_ERR_TYPE,
               "expected np.ndarray (got Tensor)");
    expect_err(TORCH("from_numpy", ilist(1, tl_int(1))), TL_ERR_TYPE,
               "expected np.ndarray (got list)");
    expect_err(callv(TL_BIND_NUMPY, "arange", NULL, 3,
                     P(tl_int(0), tl_int(10), tl_int(0)), NULL, NULL, 0),
               TL_ERR_ZERODIV, "division by zero");
    tl_value *vals[] = {bf, g, s, i, x};
    for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++)
        tl_value_release(vals[k]);
}
END_TEST

static Suite *tl_create_suite(void)
{
    Suite *s = suite_create("create");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, setup, NULL);
    tcase_add_test(core, test_zeros_ones_full);
    tcase_add_test(core, test_arange_linspace_eye);
    tcase_add_test(core, test_tensor_inference);
    tcase_add_test(core, test_copies_and_like);
    tcase_add_test(core, test_random);
    tcase_add_test(core, test_queries);
    tcase_add_test(core, test_legacy_ctor_pin_memory);
    tcase_add_test(core, test_numpy_sharing);
    tcase_add_test(core, test_numpy_layouts);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, setup, NULL);
    tcase_add_test(limits, test_limits);
    suite_add_tcase(s, limits);
    TCase *errors = tcase_create("errors");
    tcase_add_checked_fixture(errors, setup, NULL);
    tcase_add_test(errors, test_tensor_errors);
    tcase_add_test(errors, test_factory_errors);
    tcase_add_test(errors, test_query_errors);
    tcase_add_test(errors, test_numpy_order_errors);
    suite_add_tcase(s, errors);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(tl_create_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
