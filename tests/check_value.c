/* check_value.c - unit tests for values (value.c), the argument helpers
 * (bind.c) and located diagnostics (diag.c). */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "diag.h"
#include "storage.h"
#include "value.h"

static char *repr(tl_value *v)
{
    tl_buf b = {0};
    tl_value_repr(v, &b);
    tl_value_release(v);
    return tl_buf_steal(&b);
}

#define ASSERT_REPR(expr, want)                                                \
    do {                                                                       \
        char *s_ = repr(expr);                                                 \
        ck_assert_str_eq(s_, want);                                            \
        free(s_);                                                              \
    } while (0)

START_TEST(test_float_repr)
{
    ASSERT_REPR(tl_float(7.0), "7.0");
    ASSERT_REPR(tl_float(0.1), "0.1");
    ASSERT_REPR(tl_float(-2.5), "-2.5");
    ASSERT_REPR(tl_float(1e16), "1e+16");
    ASSERT_REPR(tl_float(1e15), "1000000000000000.0");
    ASSERT_REPR(tl_float(1.5e-5), "1.5e-05");
    ASSERT_REPR(tl_float(0.0001), "0.0001");
    ASSERT_REPR(tl_float(1.0 / 3.0), "0.3333333333333333");
    ASSERT_REPR(tl_float(NAN), "nan");
    ASSERT_REPR(tl_float(-INFINITY), "-inf");
    ASSERT_REPR(tl_float(123456789.125), "123456789.125");
}
END_TEST

START_TEST(test_seq_repr)
{
    tl_value *t = tl_tuple_new(1);
    tl_seq_set(t, 0, tl_int(3));
    ASSERT_REPR(t, "(3,)");
    ASSERT_REPR(tl_size_new(2, (int64_t[]){4, 6}), "torch.Size([4, 6])");
    tl_value *l = tl_list_new(0);
    for (int i = 0; i < 5; i++)
        tl_list_append(l, tl_int(i));
    ASSERT_REPR(l, "[0, 1, 2, 3, 4]");
    ASSERT_REPR(tl_str("it's"), "\"it's\"");
    ASSERT_REPR(tl_str("a'b\"c"), "'a\\'b\"c'");
    ASSERT_REPR(tl_value_dtype(TL_FLOAT32), "torch.float32");
    ASSERT_REPR(tl_value_device((tl_device){TL_DEV_CPU, 0}),
                "device(type='cpu')");
}
END_TEST

START_TEST(test_equality)
{
    tl_value *size = tl_size_new(2, (int64_t[]){2, 3});
    tl_value *tup = tl_tuple_new(2);
    tl_seq_set(tup, 0, tl_int(2));
    tl_seq_set(tup, 1, tl_float(3.0));
    tl_value *lst = tl_list_new(2);
    tl_seq_set(lst, 0, tl_int(2));
    tl_seq_set(lst, 1, tl_int(3));
    ck_assert(tl_value_equal(size, tup));  /* torch.Size == tuple */
    ck_assert(!tl_value_equal(size, lst)); /* but != list */
    tl_value *t = tl_bool(true), *one = tl_int(1);
    ck_assert(tl_value_equal(t, one));
    ck_assert(!tl_value_is(t, one));
    tl_value *n1 = tl_none(), *n2 = tl_none();
    ck_assert(tl_value_is(n1, n2));
    tl_value *vals[] = {size, tup, lst, t, one, n1, n2};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        tl_value_release(vals[i]);
}
END_TEST

START_TEST(test_truthy)
{
    tl_error err = {0};
    bool b;
    tl_value *e = tl_list_new(0);
    ck_assert_int_eq(tl_value_truthy(e, &b, &err), 0);
    ck_assert(!b);
    tl_value_release(e);
    tl_tensor *x = tl_tensor_new(tl_backend_cpu(), TL_FLOAT32, 1,
                                 (int64_t[]){3}, &err);
    tl_value *v = tl_value_tensor(x);
    ck_assert_int_eq(tl_value_truthy(v, &b, &err), -1);
    ck_assert_int_eq(err.kind, TL_ERR_RUNTIME);
    ck_assert_str_eq(err.msg, "Boolean value of Tensor with more than one "
                              "value is ambiguous");
    tl_value_release(v);
}
END_TEST

/* None is one immortal value: the same for everyone, never freed by a
 * release, shared by any number of containers and threads. */
static void *none_worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100000; i++) {
        tl_value *l = tl_list_new(3); /* three None slots */
        tl_list_append(l, tl_value_retain(tl_none()));
        tl_value_release(l);
        tl_value_release(tl_none());
    }
    return NULL;
}

START_TEST(test_none_immortal)
{
    tl_value *a = tl_none(), *b = tl_none();
    ck_assert_ptr_eq(a, b);
    ck_assert(tl_value_is(a, b));
    for (int i = 0; i < 1000; i++)
        tl_value_release(tl_none()); /* more releases than retains */
    ck_assert_int_eq(tl_none()->kind, TL_V_NONE);
    tl_value *t = tl_tuple_new(2);
    tl_seq_set(t, 1, tl_value_retain(a));
    tl_buf r = {0};
    tl_value_repr(t, &r);
    ck_assert_str_eq(tl_buf_str(&r), "(None, None)");
    tl_buf_free(&r);
    tl_value_release(t);
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, none_worker, NULL), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    ck_assert(tl_value_is(tl_none(), a));
    bool truth = true;
    ck_assert_int_eq(tl_value_truthy(tl_none(), &truth, NULL), 0);
    ck_assert(!truth);
}
END_TEST

START_TEST(test_wrap_dim)
{
    tl_error err = {0};
    int d;
    ck_assert_int_eq(tl_shape_wrap_dim(-1, 3, &d, &err), 0);
    ck_assert_int_eq(d, 2);
    ck_assert_int_eq(tl_shape_wrap_dim(0, 0, &d, &err), 0); /* scalars accept 0 */
    ck_assert_int_eq(tl_shape_wrap_dim(3, 3, &d, &err), -1);
    ck_assert_int_eq(err.kind, TL_ERR_INDEX);
    ck_assert_str_eq(err.msg, "Dimension out of range (expected to be in "
                              "range of [-3, 2], but got 3)");
}
END_TEST

START_TEST(test_shape_args)
{
    tl_error err = {0};
    int64_t shape[TL_MAX_DIMS];
    tl_value *a = tl_int(2), *b = tl_int(3);
    tl_value *pos[] = {a, b};
    tl_args args = {2, pos, 0, NULL, NULL};
    const tl_shape_param view_size = {.fname = "view", .name = "size",
                                      .symint = true, .varargs = true};
    ck_assert_int_eq(tl_to_shape(&args, &view_size, shape, &err), 2);
    ck_assert_int_eq(shape[1], 3);
    tl_value *tup = tl_tuple_new(2);
    tl_seq_set(tup, 0, tl_int(4));
    tl_seq_set(tup, 1, tl_int(-1));
    tl_value *pos2[] = {tup};
    tl_args args2 = {1, pos2, 0, NULL, NULL};
    ck_assert_int_eq(tl_to_shape(&args2, &view_size, shape, &err), 2);
    ck_assert_int_eq(shape[1], -1);
    tl_value *s = tl_str("x");
    tl_value *pos3[] = {s};
    tl_args args3 = {1, pos3, 0, NULL, NULL};
    ck_assert_int_eq(tl_args_type_error(&args3, "view",
                                        "(torch.dtype dtype)\n(tuple of ints size)",
                                        &err),
                     -1);
    ck_assert_str_eq(err.msg,
                     "view() received an invalid combination of arguments - "
                     "got (str), but expected one of:\n"
                     " * (torch.dtype dtype)\n * (tuple of ints size)");
    const char *kw[] = {"dim", NULL};
    const char *kwn[] = {"dimm"};
    tl_value *kwv[] = {a};
    tl_args args4 = {0, NULL, 1, kwn, kwv};
    ck_assert_int_eq(tl_args_check(&args4, "squeeze", 1, kw, "(int dim)", &err),
                     -1);
    ck_assert_int_eq(err.kind, TL_ERR_TYPE);
    tl_value_release(a);
    tl_value_release(b);
    tl_value_release(tup);
    tl_value_release(s);
}
END_TEST

/* tl_to_shape words its TypeErrors as PyTorch 1.13's argument parser does
 * (texts recorded with torch 1.13.1). */
START_TEST(test_shape_arg_errors)
{
    tl_error err = {0};
    int64_t shape[TL_MAX_DIMS];
    tl_value *two = tl_int(2), *str = tl_str("a"), *yes = tl_bool(true);
    tl_value *bad_first = tl_tuple_new(2); /* ('a', 2) */
    tl_seq_set(bad_first, 0, tl_value_retain(str));
    tl_seq_set(bad_first, 1, tl_value_retain(two));
    const tl_shape_param reshape = {.fname = "reshape", .name = "shape",
                                    .symint = true, .varargs = true};
    const tl_shape_param new_zeros = {.fname = "new_zeros", .name = "size",
                                      .symint = true, .varargs = true,
                                      .kwonly_follow = true};
    /* x.reshape(2, 'a'): a later element, counted from 1 */
    tl_value *p1[] = {two, str};
    tl_args a1 = {2, p1, 0, NULL, NULL};
    ck_assert_int_eq(tl_to_shape(&a1, &reshape, shape, &err), -1);
    ck_assert_str_eq(err.msg, "reshape(): argument 'shape' must be tuple of "
                              "SymInts, but found element of type str at pos 2");
    tl_error_clear(&err);
    /* x.reshape(('a', 2)): a list whose first item is no int is refused whole */
    tl_value *p2[] = {bad_first};
    tl_args a2 = {1, p2, 0, NULL, NULL};
    ck_assert_int_eq(tl_to_shape(&a2, &reshape, shape, &err), -1);
    ck_assert_str_eq(err.msg, "reshape(): argument 'shape' (position 1) must be "
                              "tuple of SymInts, not tuple");
    tl_error_clear(&err);
    /* x.reshape(shape=('a', 2)): the keyword form has no position */
    const char *kn[] = {"shape"};
    tl_args a3 = {0, NULL, 1, kn, p2};
    ck_assert_int_eq(tl_to_shape(&a3, &reshape, shape, &err), -1);
    ck_assert_str_eq(err.msg, "reshape(): argument 'shape' must be tuple of "
                              "SymInts, not tuple");
    tl_error_clear(&err);
    /* x.reshape(True) is refused, x.reshape(2, True) is (2, 1) */
    tl_value *p4[] = {yes};
    tl_args a4 = {1, p4, 0, NULL, NULL};
    ck_assert_int_eq(tl_to_shape(&a4, &reshape, shape, &err), -1);
    ck_assert_str_eq(err.msg, "reshape(): argument 'shape' (position 1) must be "
                              "tuple of SymInts, not bool");
    tl_error_clear(&err);
    tl_value *p5[] = {two, yes};
    tl_args a5 = {2, p5, 0, NULL, NULL};
    ck_assert_int_eq(tl_to_shape(&a5, &reshape, shape, &err), 2);
    ck_assert_int_eq(shape[1], 1);
    /* x.new_zeros((2, 3), 2): keyword-only parameters follow the size */
    tl_value *sz = tl_tuple_new(2);
    tl_seq_set(sz, 0, tl_int(2));
    tl_seq_set(sz, 1, tl_int(3));
    tl_value *p6[] = {sz, two};
    tl_args a6 = {2, p6, 0, NULL, NULL};
    ck_assert_int_eq(tl_to_shape(&a6, &new_zeros, shape, &err), -1);
    ck_assert_str_eq(err.msg, "new_zeros() takes 1 positional argument but 2 "
                              "were given");
    tl_error_clear(&err);
    /* ... while x.reshape((2, 3), 2) ignores the extra positional */
    ck_assert_int_eq(tl_to_shape(&a6, &reshape, shape, &err), 2);
    ck_assert_int_eq(shape[1], 3);
    /* absent: the caller words "missing" */
    tl_args a7 = {0, NULL, 0, NULL, NULL};
    ck_assert_int_eq(tl_to_shape(&a7, &reshape, shape, &err), TL_SHAPE_ABSENT);
    tl_value_release(two);
    tl_value_release(str);
    tl_value_release(yes);
    tl_value_release(bad_first);
    tl_value_release(sz);
}
END_TEST

START_TEST(test_diag_block_scalar)
{
    /* setup: |  block at line 5; text lines continue at column 3 */
    const char *file = "tlab: 1\nid: x\nthreshold: 1\nparent: x\nsetup: |\n"
                       "  import torch\n  x = torch.zeros(3)\n";
    const char *text = "import torch\nx = torch.zeros(3)\n";
    tl_source src = {text, strlen(text), "lab.yaml", 6, 3, 3, file, strlen(file)};
    tl_error err = {0};
    tl_error_set(&err, TL_ERR_NAME, "name 'torch' is not defined");
    err.span = (tl_span){17, 22};
    tl_buf out = {0};
    tl_diag_render(&out, &src, &err, false);
    ck_assert_str_eq(tl_buf_str(&out),
                     "lab.yaml:7:7: error: NameError: name 'torch' is not defined\n"
                     " 7 |   x = torch.zeros(3)\n"
                     "   |       ^^^^^\n");
    tl_buf_free(&out);
}
END_TEST

START_TEST(test_diag_no_span)
{
    const char *text = "x.t()";
    tl_source src = {text, 5, "lab.yaml", 12, 9, 0, NULL, 0};
    tl_error err = {0};
    tl_error_set(&err, TL_ERR_SYNTAX, "invalid syntax");
    tl_buf out = {0};
    tl_diag_render(&out, &src, &err, false);
    ck_assert_str_eq(tl_buf_str(&out),
                     "lab.yaml:12:9: error: syntax error: invalid syntax\n");
    tl_buf_free(&out);
    err.span = (tl_span){2, 3};
    tl_diag_render(&out, &src, &err, false);
    ck_assert_str_eq(tl_buf_str(&out),
                     "lab.yaml:12:11: error: syntax error: invalid syntax\n"
                     " 12 | x.t()\n"
                     "    |   ^\n");
    tl_buf_free(&out);
}
END_TEST

/* ---- limits: values nested or shared past what recursion can take ---- */

/* [[...[1]...]] nested n deep (each level a fresh one-item list) */
static tl_value *nest(int n)
{
    tl_value *v = tl_int(1);
    for (int i = 0; i < n; i++) {
        tl_value *l = tl_list_new(1);
        tl_seq_set(l, 0, v);
        v = l;
    }
    return v;
}

START_TEST(test_repr_bounded)
{
    /* 10^4 references to one list of 10^4 zeros: 10^8 elements to print */
    tl_value *row = tl_list_new(10000);
    for (size_t i = 0; i < 10000; i++)
        tl_seq_set(row, i, tl_int(0));
    tl_value *m = tl_list_new(10000);
    for (size_t i = 0; i < 10000; i++)
        tl_seq_set(m, i, tl_value_retain(row));
    tl_value_release(row);
    tl_buf b = {0};
    ck_assert(!tl_value_repr_bounded(m, &b, 1000));
    ck_assert_uint_le(b.len, 1000 + 16);
    ck_assert_str_eq(tl_buf_str(&b) + b.len - 3, "...");
    tl_buf_free(&b);
    tl_value_repr(m, &b); /* the default cap */
    ck_assert_uint_le(b.len, TL_VALUE_REPR_MAX + 16);
    tl_buf_free(&b);
    /* a long string is cut too, after its opening quote */
    tl_value *s = tl_strn("abcdefghij", 10);
    ck_assert(!tl_value_repr_bounded(s, &b, 4));
    ck_assert_str_eq(tl_buf_str(&b), "'abcde'...");
    tl_buf_free(&b);
    ck_assert(tl_value_repr_bounded(s, &b, 64));
    ck_assert_str_eq(tl_buf_str(&b), "'abcdefghij'");
    tl_buf_free(&b);
    /* appending to a non-empty buffer: the cap counts from its length */
    tl_buf_puts(&b, "value ");
    ck_assert(tl_value_repr_bounded(s, &b, 16));
    ck_assert_str_eq(tl_buf_str(&b), "value 'abcdefghij'");
    tl_buf_free(&b);
    tl_value_release(s);
    tl_value_release(m);
}
END_TEST

START_TEST(test_deep_values)
{
    /* 200000 levels: more than any stack takes by recursion */
    tl_value *a = nest(200000), *b = nest(200000);
    tl_buf out = {0};
    ck_assert(!tl_value_repr_bounded(a, &out, TL_VALUE_REPR_MAX));
    ck_assert_uint_eq(out.len, TL_VALUE_MAX_DEPTH + 3); /* '[' per level, "..." */
    tl_buf_free(&out);
    /* past the depth limit, items compare by identity */
    ck_assert(!tl_value_equal(a, b));
    ck_assert(tl_value_equal(a, a));
    /* shallow ones still compare by value */
    tl_value *c = nest(TL_VALUE_MAX_DEPTH - 1), *d = nest(TL_VALUE_MAX_DEPTH - 1);
    ck_assert(tl_value_equal(c, d));
    tl_value_repr(c, &out);
    ck_assert_uint_eq(out.len, 2 * (TL_VALUE_MAX_DEPTH - 1) + 1);
    tl_buf_free(&out);
    tl_value_release(c);
    tl_value_release(d);
    /* release frees the whole chain without recursing */
    tl_value_release(a);
    tl_value_release(b);
}
END_TEST

/* Cycles (issue 28 item 9): a list that contains itself, a cycle through
 * a tuple, one through a bound method and one through a closure's
 * defaults are freed by a collection, their
 * objects given back to the ledger; a cycle something outside still holds
 * is kept until that reference goes. */
static tl_value *list_method(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self, (void)a, (void)err;
    return tl_none();
}

typedef struct fake_closure {
    tl_value *defaults[2];
} fake_closure;

static tl_value *fake_call(void *data, const tl_args *a, tl_error *err)
{
    (void)data, (void)a, (void)err;
    return tl_none();
}

static tl_value **fake_refs(void *data, size_t *n)
{
    *n = 2;
    return ((fake_closure *)data)->defaults;
}

static void fake_drop(void *data)
{
    fake_closure *c = data;
    tl_value_release(c->defaults[0]);
    tl_value_release(c->defaults[1]);
    free(c);
}

START_TEST(test_cycle_collect)
{
    tl_value_collect(true);
    size_t objects = tl_alloc_objects(), tracked = tl_value_tracked();
    /* a = []; a.append(a) */
    tl_value *a = tl_list_new(0);
    tl_list_append(a, tl_value_retain(a));
    /* b = [1, (2, [3])]; b[1][1].append(b) */
    tl_value *b = tl_list_new(2), *inner = tl_list_new(1), *t = tl_tuple_new(2);
    tl_seq_set(b, 0, tl_int(1));
    tl_seq_set(inner, 0, tl_int(3));
    tl_seq_set(t, 0, tl_int(2));
    tl_seq_set(t, 1, inner);
    tl_seq_set(b, 1, t);
    tl_list_append(inner, tl_value_retain(b));
    /* c = [None]; c[0] = c.append */
    tl_value *c = tl_list_new(1);
    tl_seq_set(c, 0, tl_value_func("append", list_method, c));
    /* e = []; e.append(lambda x=e: 0), through a hooked closure layer */
    tl_value_closure_refs_hook(fake_call, fake_refs);
    tl_value *e = tl_list_new(0);
    fake_closure *fc = calloc(1, sizeof *fc);
    fc->defaults[0] = tl_value_retain(e);
    tl_list_append(e, tl_value_closure("f", fc, fake_call, fake_drop));
    tl_value_release(e);
    /* a kept cycle: d = [d], held by `keep` */
    tl_value *d = tl_list_new(0);
    tl_list_append(d, tl_value_retain(d));
    tl_value *keep = tl_value_retain(d);
    tl_value_release(a);
    tl_value_release(b);
    tl_value_release(c);
    tl_value_release(d);
    ck_assert_uint_eq(tl_value_tracked(), tracked + 6);
    ck_assert_uint_gt(tl_alloc_objects(), objects);
    tl_value_collect(false);
    ck_assert_uint_eq(tl_value_tracked(), tracked + 1); /* d survives */
    char *s = repr(tl_value_retain(keep));
    ck_assert_str_eq(s, "[[...]]");
    free(s);
    tl_value_release(keep);
    /* d is old now: only a full collection (or the amortised one) looks */
    tl_value_collect(false);
    ck_assert_uint_eq(tl_value_tracked(), tracked + 1);
    tl_value_collect(true);
    ck_assert_uint_eq(tl_value_tracked(), tracked);
    ck_assert_uint_eq(tl_alloc_objects(), objects);
}
END_TEST

/* dicts (issue 26): insertion order, replace keeps the first key, delete,
 * equality by content, repr with {...} for a cycle, and a cycle through a
 * dict (`d['self'] = d`) is collected with its memory given back */
START_TEST(test_dict_values)
{
    tl_value_collect(true);
    size_t objects = tl_alloc_objects(), tracked = tl_value_tracked();
    tl_value *d = tl_dict_new(), *k1 = tl_str("b"), *k2 = tl_int(1), *k3 = tl_float(1.0);
    tl_dict_set(d, k1, tl_int(10));
    tl_dict_set(d, k2, tl_str("one"));
    tl_dict_set(d, k3, tl_str("uno")); /* 1.0 == 1: replaces the value, keeps key 1 */
    ck_assert_uint_eq(tl_dict_len(d), 2);
    char *s = repr(tl_value_retain(d));
    ck_assert_str_eq(s, "{'b': 10, 1: 'uno'}");
    free(s);
    tl_value *e = tl_dict_new();
    tl_dict_set(e, k2, tl_str("uno"));
    tl_dict_set(e, k1, tl_int(10));
    ck_assert(tl_value_equal(d, e)); /* order does not matter for == */
    ck_assert(tl_dict_del(e, k1));
    ck_assert(!tl_dict_del(e, k1));
    ck_assert(!tl_value_equal(d, e));
    ck_assert_ptr_null(tl_dict_get(e, k1));
    ck_assert(!tl_value_hashable(d));
    tl_dict_set(d, k1, tl_value_retain(d)); /* d['b'] = d */
    s = repr(tl_value_retain(d));
    ck_assert_str_eq(s, "{'b': {...}, 1: 'uno'}");
    free(s);
    tl_value_release(k1);
    tl_value_release(k2);
    tl_value_release(k3);
    tl_value_release(e);
    tl_value_release(d);
    ck_assert_uint_eq(tl_value_tracked(), tracked + 1);
    tl_value_collect(true);
    ck_assert_uint_eq(tl_value_tracked(), tracked);
    ck_assert_uint_eq(tl_alloc_objects(), objects);
}
END_TEST

/* The depth limit: `a == b` of two different 3000-deep lists is Python's
 * RecursionError, not False; identical ones compare by identity; repr of
 * a self-containing list is [...], str of a deep one is cut (print()
 * raises then, as str() does) */
START_TEST(test_deep_compare_and_print)
{
    tl_value *a = tl_list_new(0), *b = tl_list_new(0);
    for (int i = 0; i < 3000; i++) {
        tl_value *na = tl_list_new(1), *nb = tl_list_new(1);
        tl_seq_set(na, 0, a);
        tl_seq_set(nb, 0, b);
        a = na;
        b = nb;
    }
    bool eq = true;
    tl_error err = {0};
    ck_assert_int_eq(tl_value_equal_checked(a, b, &eq, &err), -1);
    ck_assert_int_eq(err.kind, TL_ERR_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.msg, "maximum recursion depth exceeded in comparison"));
    tl_error_clear(&err);
    ck_assert_int_eq(tl_value_equal_checked(a, a, &eq, &err), 0);
    ck_assert(eq);
    tl_value *x = tl_list_new(1), *y = tl_list_new(1);
    tl_seq_set(x, 0, tl_int(1));
    tl_seq_set(y, 0, tl_int(2));
    ck_assert_int_eq(tl_value_equal_checked(x, y, &eq, &err), 0);
    ck_assert(!eq);
    tl_buf buf = {0};
    ck_assert(!tl_value_str_bounded(a, &buf, 1 << 20));
    tl_buf_free(&buf);
    ck_assert(tl_value_str_bounded(x, &buf, 1 << 20));
    ck_assert_str_eq(tl_buf_str(&buf), "[1]");
    tl_buf_free(&buf);
    tl_value_release(a);
    tl_value_release(b);
    tl_value_release(x);
    tl_value_release(y);
}
END_TEST

START_TEST(test_diag_long_line)
{
    /* a 100000-byte line is shown as a window around the column */
    size_t n = 100000;
    char *text = malloc(n + 1);
    memset(text, 'a', n);
    text[n] = '\0';
    tl_source src = {text, n, "lab.yaml", 3, 1, 0, NULL, 0};
    tl_error err = {0};
    tl_error_set(&err, TL_ERR_SYNTAX, "invalid syntax");
    err.span = (tl_span){50000, 50001};
    tl_buf out = {0};
    tl_diag_render(&out, &src, &err, false);
    ck_assert_uint_lt(out.len, 500);
    const char *l2 = strchr(tl_buf_str(&out), '\n') + 1;
    const char *l3 = strchr(l2, '\n') + 1;
    ck_assert(strncmp(l2, " 3 | ...aaa", 11) == 0);
    /* the caret sits under the character at the column */
    ck_assert_uint_eq(strchr(l3, '^') - l3, strlen(" 3 | ...") + 60);
    tl_buf_free(&out);
    free(text);
    /* invalid UTF-8 and control bytes show as '?' */
    const char *bad = "x + \xff\x01 \xc3\xa9";
    tl_source s2 = {bad, strlen(bad), "<expr>", 1, 1, 0, NULL, 0};
    err.span = (tl_span){4, 5};
    tl_diag_render(&out, &s2, &err, false);
    ck_assert_ptr_nonnull(strstr(tl_buf_str(&out), " 1 | x + ?? \xc3\xa9\n"));
    tl_buf_free(&out);
}
END_TEST

static Suite *value_suite(void)
{
    Suite *s = suite_create("value");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_float_repr);
    tcase_add_test(core, test_seq_repr);
    tcase_add_test(core, test_equality);
    tcase_add_test(core, test_truthy);
    tcase_add_test(core, test_none_immortal);
    tcase_add_test(core, test_shape_args);
    tcase_add_test(core, test_diag_block_scalar);
    tcase_add_test(core, test_diag_no_span);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_repr_bounded);
    tcase_add_test(limits, test_deep_values);
    tcase_add_test(limits, test_cycle_collect);
    tcase_add_test(limits, test_deep_compare_and_print);
    tcase_add_test(limits, test_diag_long_line);
    tcase_set_timeout(limits, 30);
    suite_add_tcase(s, limits);
    TCase *errors = tcase_create("errors");
    tcase_add_test(errors, test_wrap_dim);
    tcase_add_test(errors, test_dict_values);
    tcase_add_test(errors, test_shape_arg_errors);
    suite_add_tcase(s, errors);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(value_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
