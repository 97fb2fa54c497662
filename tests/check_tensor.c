/* check_tensor.c - unit tests for the tensor header (tensor.c) and the
 * storage ledger (storage.c): layout predicates and stride rules checked
 * against the values measured on PyTorch 1.13 in the reference sheet, and
 * the CPU backend's reuse of freed large blocks (base/blockcache.h): a
 * script's loop of results gets faulted-in, distinct, aligned, correctly
 * zeroed memory, and cached plus live bytes stay within --max-bytes. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend.h"
#include "blockcache.h"
#include "context.h"
#include "storage.h"
#include "tensor.h"

/* A header on the stack: predicates only read sizes/strides. */
static tl_tensor meta(int ndim, const int64_t *sizes, const int64_t *strides)
{
    tl_tensor t;
    memset(&t, 0, sizeof t);
    t.ndim = ndim;
    memcpy(t.sizes, sizes, sizeof(int64_t) * (size_t)ndim);
    memcpy(t.strides, strides, sizeof(int64_t) * (size_t)ndim);
    t.dtype = TL_FLOAT32;
    return t;
}

#define META(n, sz, st) meta(n, (int64_t[])sz, (int64_t[])st)
#define L(...) {__VA_ARGS__}

static void assert_strides(const int64_t *got, int n, const int64_t *want)
{
    for (int i = 0; i < n; i++)
        ck_assert_msg(got[i] == want[i], "stride[%d]: got %lld want %lld", i,
                      (long long)got[i], (long long)want[i]);
}

START_TEST(test_is_contiguous)
{
    tl_tensor t = META(2, L(3, 1), L(1, 1));
    ck_assert(tl_tensor_is_contiguous(&t));      /* size-1 dims ignored */
    t = META(2, L(1, 3), L(99, 1));
    ck_assert(tl_tensor_is_contiguous(&t));
    t = META(2, L(3, 1), L(5, 1));
    ck_assert(!tl_tensor_is_contiguous(&t));
    t = META(2, L(3, 4), L(0, 1));               /* expanded */
    ck_assert(!tl_tensor_is_contiguous(&t));
    t = META(2, L(0, 4), L(7, 3));               /* numel 0 */
    ck_assert(tl_tensor_is_contiguous(&t));
    t = META(0, L(0), L(0));                     /* 0-d */
    ck_assert(tl_tensor_is_contiguous(&t));
    t = META(2, L(4, 6), L(1, 4));               /* t() */
    ck_assert(!tl_tensor_is_contiguous(&t));
}
END_TEST

START_TEST(test_channels_last)
{
    tl_tensor t = META(4, L(2, 3, 4, 5), L(60, 1, 15, 3));
    ck_assert(tl_tensor_is_channels_last(&t));
    ck_assert(!tl_tensor_is_contiguous(&t));
    t = META(4, L(2, 1, 4, 5), L(20, 20, 5, 1)); /* both formats */
    ck_assert(tl_tensor_is_channels_last(&t));
    ck_assert(tl_tensor_is_contiguous(&t));
    t = META(4, L(0, 3, 4, 5), L(60, 20, 5, 1)); /* no numel-0 shortcut */
    ck_assert(!tl_tensor_is_channels_last(&t));
    t = META(3, L(3, 4, 5), L(1, 15, 3));
    ck_assert(!tl_tensor_is_channels_last(&t));  /* 4-D only */
    int64_t st[4];
    tl_shape_channels_last_strides(4, (int64_t[]){2, 3, 1, 1}, st);
    assert_strides(st, 4, (int64_t[]){3, 1, 3, 3});
    /* plain products: torch.zeros(2,3,0,2).contiguous(channels_last) */
    tl_shape_channels_last_strides(4, (int64_t[]){2, 3, 0, 2}, st);
    assert_strides(st, 4, (int64_t[]){0, 1, 6, 3});
    int64_t st5[5];
    tl_shape_channels_last_strides(5, (int64_t[]){2, 3, 2, 0, 2}, st5);
    assert_strides(st5, 5, (int64_t[]){0, 1, 0, 6, 3});
}
END_TEST

START_TEST(test_dense)
{
    tl_tensor t = META(2, L(6, 4), L(1, 6));     /* transpose: dense */
    ck_assert(tl_tensor_is_non_overlapping_and_dense(&t));
    t = META(2, L(4, 3), L(6, 2));               /* stepped slice */
    ck_assert(!tl_tensor_is_non_overlapping_and_dense(&t));
    t = META(2, L(3, 4), L(0, 1));               /* expanded */
    ck_assert(!tl_tensor_is_non_overlapping_and_dense(&t));
    t = META(1, L(1), L(7));
    ck_assert(tl_tensor_is_non_overlapping_and_dense(&t));
}
END_TEST

START_TEST(test_contiguous_strides)
{
    int64_t st[3];
    tl_shape_contiguous_strides(3, (int64_t[]){2, 0, 3}, st);
    assert_strides(st, 3, (int64_t[]){3, 3, 1});
    tl_shape_contiguous_strides(2, (int64_t[]){0, 2}, st);
    assert_strides(st, 2, (int64_t[]){2, 1});
}
END_TEST

/* clone() strides (reference sheet section 9, measured on 1.13) */
START_TEST(test_preserve_strides)
{
    int64_t st[3];
    tl_tensor t = META(2, L(6, 2), L(1, 12));    /* zeros(4,6).t()[:, ::2] */
    tl_tensor_preserve_strides(&t, st);
    assert_strides(st, 2, (int64_t[]){1, 6});
    t = META(3, L(2, 2, 3), L(2, 12, 4));
    tl_tensor_preserve_strides(&t, st);
    assert_strides(st, 3, (int64_t[]){1, 6, 2});
    t = META(2, L(3, 4), L(0, 1));               /* zeros(4).expand(3,4) */
    tl_tensor_preserve_strides(&t, st);
    assert_strides(st, 2, (int64_t[]){4, 1});
    t = META(2, L(4, 3), L(1, 0));               /* .expand(3,4).t() */
    tl_tensor_preserve_strides(&t, st);
    assert_strides(st, 2, (int64_t[]){3, 1});
    t = META(2, L(3, 2), L(4, 2));               /* zeros(3,4)[:, ::2] */
    tl_tensor_preserve_strides(&t, st);
    assert_strides(st, 2, (int64_t[]){2, 1});
    t = META(2, L(4, 6), L(1, 4));               /* dense t(): kept */
    tl_tensor_preserve_strides(&t, st);
    assert_strides(st, 2, (int64_t[]){1, 4});
}
END_TEST

START_TEST(test_required_bytes)
{
    ck_assert_int_eq(tl_tensor_required_bytes(2, (int64_t[]){5, 5},
                                              (int64_t[]){5, 1}, 0, 4),
                     100);
    ck_assert_int_eq(tl_tensor_required_bytes(1, (int64_t[]){0},
                                              (int64_t[]){1}, 100, 4),
                     0);
    ck_assert_int_lt(tl_tensor_required_bytes(1, (int64_t[]){INT64_MAX},
                                              (int64_t[]){INT64_MAX}, 0, 4),
                     0);
    int64_t n;
    ck_assert(!tl_shape_numel(2, (int64_t[]){1 << 20, 1 << 20}, &n));
    ck_assert(tl_shape_numel(2, (int64_t[]){1 << 20, 0}, &n) && n == 0);
}
END_TEST

START_TEST(test_views_share_storage)
{
    tl_error err = {0};
    tl_tensor *x = tl_tensor_new(tl_backend_cpu(), TL_FLOAT32, 2,
                                 (int64_t[]){4, 6}, &err);
    ck_assert_ptr_nonnull(x);
    ck_assert_int_eq(x->strides[0], 6);
    tl_tensor *v = tl_tensor_view(x, 2, (int64_t[]){6, 4}, (int64_t[]){1, 6}, 0);
    ck_assert_ptr_eq(v->storage, x->storage);
    ck_assert_ptr_eq(v->version, x->version);
    ck_assert(tl_storage_same(v->storage, x->storage));
    tl_tensor_release(x); /* the view keeps the storage alive */
    ck_assert_int_eq(tl_tensor_set_f64(v, 5, 2.5, &err), 0);
    double d;
    ck_assert_int_eq(tl_tensor_get_f64(v, 5, &d, &err), 0);
    ck_assert(d == 2.5);
    /* flat index 5 of the (6,4)/(1,6) view is element (1,1): storage 7 */
    ck_assert(((float *)v->storage->data)[7] == 2.5f);
    ck_assert_int_eq(tl_tensor_data_ptr(v), (uintptr_t)v->storage->data);
    tl_tensor_release(v);
    ck_assert_int_eq(tl_alloc_live(), 0);
}
END_TEST

START_TEST(test_empty_storage_identity)
{
    tl_error err = {0};
    tl_tensor *a = tl_tensor_new(tl_backend_cpu(), TL_FLOAT32, 1,
                                 (int64_t[]){0}, &err);
    tl_tensor *b = tl_tensor_new(tl_backend_cpu(), TL_FLOAT32, 1,
                                 (int64_t[]){0}, &err);
    tl_tensor *va = tl_tensor_alias(a);
    ck_assert(!tl_storage_same(a->storage, b->storage));
    ck_assert(tl_storage_same(a->storage, va->storage));
    ck_assert_int_eq(tl_tensor_data_ptr(a), 0);
    tl_storage *borrowed = tl_storage_borrow(a->storage, 0, a->storage->nbytes);
    ck_assert(tl_storage_same(borrowed, a->storage));
    tl_storage_release(borrowed);
    tl_tensor_release(a);
    tl_tensor_release(b);
    tl_tensor_release(va);
}
END_TEST

START_TEST(test_ledger_limit)
{
    tl_error err = {0};
    tl_alloc_set_limit(1000);
    uint64_t before = tl_alloc_total();
    tl_tensor *a = tl_tensor_new(tl_backend_cpu(), TL_FLOAT64, 1,
                                 (int64_t[]){100}, &err);
    ck_assert_ptr_nonnull(a);
    ck_assert_int_eq(tl_alloc_live(), 800);
    ck_assert_int_eq(tl_alloc_total() - before, 800);
    tl_tensor *b = tl_tensor_new(tl_backend_cpu(), TL_FLOAT64, 1,
                                 (int64_t[]){100}, &err);
    ck_assert_ptr_null(b);
    ck_assert_int_eq(err.kind, TL_ERR_RUNTIME);
    ck_assert_ptr_nonnull(strstr(err.msg, "not enough memory"));
    tl_tensor_release(a);
    ck_assert_int_eq(tl_alloc_live(), 0);
    tl_alloc_set_limit(TL_DEFAULT_MAX_BYTES);
}
END_TEST

START_TEST(test_bad_shapes)
{
    tl_error err = {0};
    ck_assert_ptr_null(tl_tensor_new(tl_backend_cpu(), TL_FLOAT32, 2,
                                     (int64_t[]){2, -1}, &err));
    ck_assert_int_eq(err.kind, TL_ERR_RUNTIME);
    ck_assert_str_eq(err.msg, "Trying to create tensor with negative "
                              "dimension -1: [2, -1]");
    ck_assert_ptr_null(tl_tensor_new(tl_backend_cpu(), TL_FLOAT32, 1,
                                     (int64_t[]){(int64_t)1 << 40}, &err));
    ck_assert_int_eq(err.kind, TL_ERR_LIMIT);
}
END_TEST

/* Zero-element tensors may have huge dims (torch.zeros(2**62, 0) is legal):
 * numel is 0 whatever the order, and stride products wrap as PyTorch's do
 * (torch.zeros(0, 2**62, 2**62).stride() == (0, 2**62, 1)). */
START_TEST(test_huge_empty_shapes)
{
    const int64_t big = (int64_t)1 << 62;
    int64_t sizes[4] = {(int64_t)1 << 31, (int64_t)1 << 31, (int64_t)1 << 31, 0};
    int64_t strides[4];
    tl_shape_contiguous_strides(4, sizes, strides);
    tl_tensor t = meta(4, sizes, strides);
    ck_assert_int_eq(tl_tensor_numel(&t), 0);
    ck_assert(tl_tensor_is_contiguous(&t));
    ck_assert(tl_tensor_is_non_overlapping_and_dense(&t));
    int64_t s3[3] = {0, big, big}, st3[3];
    tl_shape_contiguous_strides(3, s3, st3);
    ck_assert_int_eq(st3[0], 0);
    ck_assert_int_eq(st3[1], big);
    ck_assert_int_eq(st3[2], 1);
    tl_tensor u = meta(3, s3, st3);
    ck_assert_int_eq(tl_tensor_numel(&u), 0);
    int64_t pst[3];
    tl_tensor_preserve_strides(&u, pst);
    int64_t s4[4] = {big, big, 0, big}, st4[4];
    tl_shape_channels_last_strides(4, s4, st4);
    tl_tensor w = meta(4, s4, st4);
    ck_assert(tl_tensor_is_channels_last(&w));
    ck_assert_int_eq(tl_tensor_required_bytes(4, s4, st4, 0, 4), 0);
}
END_TEST

/* every page of [p, p + n) is resident (mincore) */
static bool resident(const void *p, size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)p & ~(uintptr_t)(pg - 1);
    uintptr_t hi = ((uintptr_t)p + n + pg - 1) & ~(uintptr_t)(pg - 1);
    size_t npages = (hi - lo) / pg;
    unsigned char *vec = malloc(npages);
    ck_assert_ptr_nonnull(vec);
    ck_assert_int_eq(mincore((void *)lo, hi - lo, vec), 0);
    bool all = true;
    for (size_t i = 0; i < npages && all; i++)
        all = vec[i] & 1;
    free(vec);
    return all;
}

static bool disjoint(const tl_storage *a, const tl_storage *b)
{
    uintptr_t pa = (uintptr_t)a->data, pb = (uintptr_t)b->data;
    return pa + a->nbytes <= pb || pb + b->nbytes <= pa;
}

/* `for i in range(n): y = x.clone()` at the storage level, for a 16 MiB
 * result (glibc's heap) and a 40 MiB one (glibc's mmap): every result
 * after the first two is already resident when made (before, glibc gave
 * the pages back on every other free, or munmap'd the block), 64-byte
 * aligned, disjoint from x and from the live previous result, and the
 * ledger counts exactly the live storages. */
START_TEST(test_block_reuse_loop)
{
    static const size_t sizes[] = {(size_t)16 << 20, (size_t)40 << 20};
    tl_error err = {0};
    const tl_backend *cpu = tl_backend_cpu();
    for (int k = 0; k < 2; k++) {
        size_t n = sizes[k];
        size_t live0 = tl_alloc_live();
        tl_storage *x = tl_storage_new_uninit(cpu, n, &err);
        ck_assert_ptr_nonnull(x);
        memset(x->data, 1, n);
        tl_storage *y = NULL;
        for (int i = 0; i < 8; i++) {
            tl_storage *r = tl_storage_new_uninit(cpu, n, &err);
            ck_assert_ptr_nonnull(r);
            ck_assert_uint_eq((uintptr_t)r->data & 63, 0);
            ck_assert(disjoint(r, x));
            if (y)
                ck_assert(disjoint(r, y));
            if (i >= 2)
                ck_assert_msg(resident(r->data, n), "result %d of %zu bytes: fresh pages", i, n);
            memcpy(r->data, x->data, n);
            ck_assert_uint_eq(tl_alloc_live(), live0 + (y ? 3 : 2) * n);
            tl_storage_release(y);
            y = r;
            ck_assert_uint_eq(tl_alloc_live(), live0 + 2 * n);
        }
        tl_storage_release(y);
        tl_storage_release(x);
        ck_assert_uint_eq(tl_alloc_live(), live0);
    }
    ck_assert_uint_gt(tl_blockcache_hits(), 0);
    tl_blockcache_release();
    ck_assert_int_eq(tl_blockcache_blocks(), 0);
    ck_assert_uint_eq(tl_blockcache_bytes(), 0);
}
END_TEST

/* A reused block handed out as a zeroed storage (torch.zeros) reads as
 * zeros, whatever the freed tensor held; an uninitialised one is the
 * freed block itself (the cache's hit), and a much smaller request does
 * not take a large block. */
START_TEST(test_block_reuse_zeroed)
{
    tl_error err = {0};
    const tl_backend *cpu = tl_backend_cpu();
    size_t n = (size_t)1 << 20;
    tl_blockcache_release();
    tl_storage *a = tl_storage_new_uninit(cpu, n, &err);
    ck_assert_ptr_nonnull(a);
    memset(a->data, 0xAB, n);
    void *pa = a->data;
    tl_storage_release(a);
    ck_assert_int_eq(tl_blockcache_blocks(), 1);
    ck_assert_uint_ge(tl_blockcache_bytes(), n);
    uint64_t hits = tl_blockcache_hits();
    tl_storage *z = tl_storage_new(cpu, n, &err);
    ck_assert_ptr_nonnull(z);
    ck_assert_ptr_eq(z->data, pa);
    ck_assert_uint_eq(tl_blockcache_hits(), hits + 1);
    ck_assert_int_eq(tl_blockcache_blocks(), 0);
    const unsigned char *zb = z->data;
    size_t nz = 0; /* one assertion: each one writes to check's pipe */
    while (nz < n && zb[nz] == 0)
        nz++;
    ck_assert_msg(nz == n, "byte %zu of a reused zeroed block is %d", nz, zb[nz % n]);
    tl_storage_release(z);
    tl_storage *small = tl_storage_new_uninit(cpu, n / 2, &err);
    ck_assert_ptr_nonnull(small);
    ck_assert_ptr_ne(small->data, pa); /* the 1 MiB block stays cached */
    ck_assert_int_eq(tl_blockcache_blocks(), 1);
    tl_storage_release(small);
    tl_blockcache_release();
}
END_TEST

/* Cached blocks are free memory under --max-bytes: live plus cached bytes
 * never pass the limit, and the cache never turns an allocation that fits
 * into "not enough memory" (ops stay independent), nor lets one through
 * that does not. */
START_TEST(test_block_cache_limit)
{
    tl_error err = {0};
    const tl_backend *cpu = tl_backend_cpu();
    size_t mib = (size_t)1 << 20, limit = 40 * mib;
    tl_blockcache_release();
    tl_alloc_set_limit(limit);
    tl_storage *x = tl_storage_new_uninit(cpu, 12 * mib, &err);
    ck_assert_ptr_nonnull(x);
    tl_storage *y = NULL;
    for (int i = 0; i < 6; i++) {
        tl_storage *r = tl_storage_new_uninit(cpu, 12 * mib, &err);
        ck_assert_ptr_nonnull(r);
        ck_assert_uint_le(tl_alloc_live() + tl_blockcache_bytes(), limit);
        tl_storage_release(y);
        y = r;
        ck_assert_uint_le(tl_alloc_live() + tl_blockcache_bytes(), limit);
    }
    tl_storage_release(y);
    ck_assert_int_ge(tl_blockcache_blocks(), 1);
    /* 12 live + 28: fits exactly, cache or no cache */
    tl_storage *big = tl_storage_new_uninit(cpu, 28 * mib, &err);
    ck_assert_msg(big != NULL, "%s", err.msg);
    ck_assert_uint_le(tl_alloc_live() + tl_blockcache_bytes(), limit);
    tl_storage_release(big);
    /* 12 live + 29: refused as before */
    ck_assert_ptr_null(tl_storage_new_uninit(cpu, 29 * mib, &err));
    ck_assert_ptr_nonnull(strstr(err.msg, "not enough memory"));
    tl_storage_release(x);
    ck_assert_uint_eq(tl_alloc_live(), 0);
    ck_assert_uint_le(tl_blockcache_bytes(), limit);
    /* interpreter objects (lists, strings) charged past their allowance
     * take the room back from the cache */
    ck_assert_uint_gt(tl_blockcache_bytes(), 10 * mib); /* more than the room left below */
    int64_t objs = (int64_t)(TL_ALLOC_OBJECT_ALLOWANCE + 30 * mib);
    tl_alloc_objects_add(objs);
    ck_assert_uint_le(tl_context_ledger_charged() + tl_blockcache_bytes(), limit);
    tl_alloc_objects_add(-objs);
    tl_alloc_set_limit(TL_DEFAULT_MAX_BYTES);
    tl_blockcache_release();
}
END_TEST

static Suite *tensor_suite(void)
{
    Suite *s = suite_create("tensor");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_is_contiguous);
    tcase_add_test(core, test_channels_last);
    tcase_add_test(core, test_dense);
    tcase_add_test(core, test_contiguous_strides);
    tcase_add_test(core, test_preserve_strides);
    tcase_add_test(core, test_views_share_storage);
    tcase_add_test(core, test_empty_storage_identity);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_huge_empty_shapes);
    tcase_add_test(limits, test_required_bytes);
    tcase_add_test(limits, test_ledger_limit);
    tcase_add_test(limits, test_block_reuse_loop);
    tcase_add_test(limits, test_block_reuse_zeroed);
    tcase_add_test(limits, test_block_cache_limit);
    suite_add_tcase(s, limits);
    TCase *errors = tcase_create("errors");
    tcase_add_test(errors, test_bad_shapes);
    suite_add_tcase(s, errors);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(tensor_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
