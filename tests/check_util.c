/* check_util.c - unit tests for base/util.c and base/arena.c: growable
 * buffers (tl_buf_printf formats straight into the free room, or through a
 * stack buffer, or twice for long text: every path must give the same
 * bytes), zeroed allocation on both sides of tl_xcalloc's malloc/calloc
 * split, the CPU clock's bound (tl_now never behind the real thread CPU
 * time by more than its slack, tl_time_past exact), and arena blocks that
 * start small and grow; the block cache (blockcache.c) keeps at most its
 * slots and bytes and the caller's room, oldest out first, hands a block
 * only to a request it fits within a quarter, and frees a thread's blocks
 * when the thread ends; the raw DEFLATE encoder (deflate.c) gives the bytes
 * that Python's zlib inflates back to the input (vectors checked with
 * zlib.decompress(data, -15)) and shrinks a repetitive input. */
#include <check.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "arena.h"
#include "blockcache.h"
#include "cpu.h"
#include "deflate.h"
#include "err.h"
#include "heap.h"
#include "util.h"

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* fixed-code DEFLATE: the vectors were inflated by zlib.decompress(z, -15) */
START_TEST(test_deflate_vectors)
{
    static const struct {
        const char *in;
        size_t n;
        const char *z;
        size_t zn;
    } v[] = {
        {"", 0, "\x03\x00", 2},
        {"a", 1, "\x4b\x04\x00", 3},
        {"\0asm\1\0\0\0", 8, "\x63\x48\x2c\xce\x65\x64\x60\x60\x00\x00", 10},
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        tl_buf b = {0};
        tl_deflate_encode(&b, (const unsigned char *)v[i].in, v[i].n);
        ck_assert_uint_eq(b.len, v[i].zn);
        ck_assert_mem_eq(b.data, v[i].z, v[i].zn);
        tl_buf_free(&b);
    }
    /* 264 'a': one literal, then matches of distance 1 (258 + 5) */
    char a[264];
    memset(a, 'a', sizeof a);
    tl_buf b = {0};
    tl_deflate_encode(&b, (const unsigned char *)a, sizeof a);
    ck_assert_uint_eq(b.len, 6);
    ck_assert_mem_eq(b.data, "\x4b\x1c\x05\x60\x00\x00", 6);
    tl_buf_free(&b);
}
END_TEST

START_TEST(test_buf_printf_paths)
{
    /* every length from empty to past the stack buffer and past a grown
     * buffer's room, appended to buffers of every fill */
    for (size_t pre = 0; pre < 700; pre += 37) {
        for (size_t n = 0; n < 1200; n += 13) {
            char *want = malloc(pre + n + 16);
            memset(want, 'p', pre);
            for (size_t i = 0; i < n; i++)
                want[pre + i] = (char)('a' + i % 26);
            want[pre + n] = 0;
            tl_buf b = {0};
            tl_buf_append(&b, want, pre);
            tl_buf_printf(&b, "%.*s", (int)n, want + pre);
            ck_assert_uint_eq(b.len, pre + n);
            ck_assert_str_eq(tl_buf_str(&b), want);
            ck_assert(b.data == NULL || b.data[b.len] == 0);
            tl_buf_printf(&b, "%s", ""); /* nothing written, still terminated */
            ck_assert_uint_eq(b.len, pre + n);
            ck_assert_str_eq(tl_buf_str(&b), want);
            tl_buf_free(&b);
            free(want);
        }
    }
    tl_buf b = {0};
    for (int i = 0; i < 1000; i++)
        tl_buf_printf(&b, "%d,", i);
    char *s = tl_buf_steal(&b);
    char want[8192] = {0};
    size_t k = 0;
    for (int i = 0; i < 1000; i++)
        k += (size_t)snprintf(want + k, sizeof want - k, "%d,", i);
    ck_assert_str_eq(s, want);
    free(s);
}
END_TEST

START_TEST(test_xcalloc_zeroed)
{
    /* dirty the heap, then every size on both sides of the split is zero */
    for (size_t n = 1; n < 9000; n = n * 3 / 2 + 1) {
        unsigned char *d = tl_xmalloc(n);
        memset(d, 0xAB, n);
        free(d);
        unsigned char *p = tl_xcalloc(n, 1);
        for (size_t i = 0; i < n; i++)
            ck_assert_msg(p[i] == 0, "byte %zu of %zu", i, n);
        free(p);
        int64_t *q = tl_xcalloc(n, sizeof *q);
        for (size_t i = 0; i < n; i++)
            ck_assert(q[i] == 0);
        free(q);
    }
    free(tl_xcalloc(0, 0)); /* a real block, freeable */
}
END_TEST

START_TEST(test_now_bound)
{
    /* tl_now is at least the thread's CPU time, at most 1 ms ahead of it */
    volatile uint64_t x = 0;
    for (int round = 0; round < 2000; round++) {
        double before = thread_cpu();
        double now = tl_now();
        double after = thread_cpu();
        ck_assert_msg(now >= before - 1e-6, "tl_now %.9f behind the clock %.9f", now, before);
        ck_assert_msg(now <= after + 1e-3 + 1e-6, "tl_now %.9f over 1 ms ahead of %.9f", now,
                      after);
        for (int i = 0; i < round % 50 * 100; i++)
            x += (uint64_t)i;
    }
    /* time spent asleep is wall time, not CPU time: past the slack, the
     * bound is dropped for a real reading */
    for (int i = 0; i < 20; i++) {
        (void)tl_now();
        struct timespec nap = {0, 3000000};
        nanosleep(&nap, NULL);
        double now = tl_now();
        ck_assert_msg(now <= thread_cpu() + 1e-3 + 1e-6, "tl_now counted sleep as CPU time");
    }
    /* tl_time_past answers for the real clock */
    double t = thread_cpu();
    ck_assert(tl_time_past(t - 1e-3));
    ck_assert(!tl_time_past(t + 10));
    double until = thread_cpu() + 0.02;
    while (!tl_time_past(until))
        x++;
    ck_assert(thread_cpu() >= until);
}
END_TEST

/* tl_hash_bytes: every byte (at every position of a word or the tail),
 * the length and the seed change the hash; the low bits the indexes mask
 * spread names evenly. */
START_TEST(test_hash_bytes)
{
    unsigned char a[40], b[40];
    for (size_t i = 0; i < sizeof a; i++)
        a[i] = (unsigned char)(i * 7 + 1);
    for (size_t n = 0; n <= sizeof a; n++) {
        uint64_t h = tl_hash_bytes(a, n, 0);
        ck_assert_uint_ne(h, tl_hash_bytes(a, n, 1));
        if (n > 0)
            ck_assert_uint_ne(h, tl_hash_bytes(a, n - 1, 0));
        for (size_t i = 0; i < n; i++)
            for (int bit = 0; bit < 8; bit++) {
                memcpy(b, a, n);
                b[i] ^= (unsigned char)(1u << bit);
                ck_assert_msg(tl_hash_bytes(b, n, 0) != h, "byte %zu bit %d of %zu", i, bit, n);
            }
    }
    /* a string of zero bytes is not its shorter self */
    memset(a, 0, sizeof a);
    for (size_t n = 1; n <= sizeof a; n++)
        ck_assert_uint_ne(tl_hash_bytes(a, n, 0), tl_hash_bytes(a, n - 1, 0));
    /* 26^3 three-letter names and 20000 "opN" ids into 1024 buckets: no
     * bucket over twice its share */
    enum { NB = 1024 };
    static int count[NB];
    memset(count, 0, sizeof count);
    int total = 0;
    char name[16];
    for (int x = 0; x < 26 * 26 * 26; x++, total++) {
        name[0] = (char)('a' + x % 26), name[1] = (char)('a' + x / 26 % 26);
        name[2] = (char)('a' + x / 676);
        count[tl_hash_bytes(name, 3, 0) & (NB - 1)]++;
    }
    for (int i = 0; i < 20000; i++, total++) {
        int len = snprintf(name, sizeof name, "op%d", i);
        count[tl_hash_bytes(name, (size_t)len, 0) & (NB - 1)]++;
    }
    for (int i = 0; i < NB; i++)
        ck_assert_msg(count[i] < 2 * total / NB, "bucket %d holds %d of %d", i, count[i], total);
}
END_TEST

/* The one cpuid probe agrees with the compiler's own (libgcc's
 * __builtin_cpu_supports, which the binary no longer links). */
START_TEST(test_cpu_features)
{
    unsigned f = tl_cpu_features();
    ck_assert_uint_eq(f, tl_cpu_features()); /* cached, stable */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    __builtin_cpu_init();
    ck_assert_int_eq(!!(f & TL_CPU_SSSE3), !!__builtin_cpu_supports("ssse3"));
    ck_assert_int_eq(!!(f & TL_CPU_SSE41), !!__builtin_cpu_supports("sse4.1"));
    ck_assert_int_eq(!!(f & TL_CPU_AVX2), !!__builtin_cpu_supports("avx2"));
    ck_assert_int_eq(!!(f & TL_CPU_AVX512F), !!__builtin_cpu_supports("avx512f"));
    ck_assert_int_eq(!!(f & TL_CPU_FMA), !!__builtin_cpu_supports("fma"));
    if (f & TL_CPU_F16C)
        ck_assert(__builtin_cpu_supports("avx"));
    if (f & TL_CPU_SHA)
        ck_assert((f & TL_CPU_SSSE3) && (f & TL_CPU_SSE41));
#else
    ck_assert_uint_eq(f & ~0x7fu, 0);
#endif
}
END_TEST

/* tl_error_set_text copies its text verbatim ('%' included) and cuts it
 * to the message buffer. */
START_TEST(test_error_set_text)
{
    tl_error e;
    tl_error_clear(&e);
    ck_assert_int_eq(tl_error_set_text(&e, TL_ERR_RUNTIME, "100% of [2, 3] %s"), -1);
    ck_assert_int_eq(e.kind, TL_ERR_RUNTIME);
    ck_assert_int_lt(e.span.start, 0);
    ck_assert_str_eq(e.msg, "100% of [2, 3] %s");
    static char big[TL_ERRMSG_MAX * 2];
    memset(big, 'x', sizeof big - 1);
    tl_error_set_text(&e, TL_ERR_VALUE, big);
    ck_assert_uint_eq(strlen(e.msg), TL_ERRMSG_MAX - 1);
    ck_assert_int_eq(tl_error_set_text(NULL, TL_ERR_VALUE, "x"), -1);
}
END_TEST

/* tl_heap_populate: where it says it did, every page from a fresh block's
 * page to the program break is resident, and no block's bytes changed. */
START_TEST(test_heap_populate)
{
    unsigned char *keep = malloc(3000);
    ck_assert_ptr_nonnull(keep);
    for (int i = 0; i < 3000; i++)
        keep[i] = (unsigned char)(i * 7 + 1);
    bool did = tl_heap_populate();
#if defined(__SANITIZE_ADDRESS__)
    ck_assert(!did); /* ASan's allocator: not glibc's heap */
#endif
    for (int i = 0; i < 3000; i++)
        ck_assert_uint_eq(keep[i], (unsigned char)(i * 7 + 1));
    if (did) {
        char *probe = malloc(1);
        uintptr_t lo = (uintptr_t)probe & ~(uintptr_t)4095;
        uintptr_t hi = (uintptr_t)sbrk(0);
        free(probe);
        ck_assert(lo < hi);
        size_t npages = (hi - lo) / 4096;
        unsigned char *vec = malloc(npages);
        ck_assert_int_eq(mincore((void *)lo, hi - lo, vec), 0);
        for (size_t i = 0; i < npages; i++)
            ck_assert_msg(vec[i] & 1, "page %zu of %zu not resident", i, npages);
        free(vec);
    }
    free(keep);
}
END_TEST

static void *aligned_block(size_t n)
{
    void *p = NULL;
    ck_assert_int_eq(posix_memalign(&p, 64, n), 0);
    memset(p, 0x5A, n);
    return p;
}

/* keep/take: distinct blocks come back whole (writable end to end),
 * best fit first, never one more than a quarter too large or too small;
 * below TL_BLOCKCACHE_MIN nothing is kept or counted. */
START_TEST(test_blockcache_fit)
{
    size_t mib = (size_t)1 << 20;
    tl_blockcache_release();
    uint64_t h0 = tl_blockcache_hits(), m0 = tl_blockcache_misses();
    ck_assert_ptr_null(tl_blockcache_take(mib));
    ck_assert_uint_eq(tl_blockcache_misses(), m0 + 1);
    ck_assert_ptr_null(tl_blockcache_take(64));
    ck_assert_uint_eq(tl_blockcache_misses(), m0 + 1);
    void *small = aligned_block(TL_BLOCKCACHE_MIN / 2);
    ck_assert(!tl_blockcache_keep(small, SIZE_MAX));
    free(small);
    void *a = aligned_block(mib), *b = aligned_block(2 * mib);
    ck_assert(tl_blockcache_keep(b, SIZE_MAX));
    ck_assert(tl_blockcache_keep(a, SIZE_MAX));
    ck_assert_int_eq(tl_blockcache_blocks(), 2);
    ck_assert_uint_eq(tl_blockcache_bytes(), malloc_usable_size(a) + malloc_usable_size(b));
    ck_assert_ptr_null(tl_blockcache_take(mib / 2));     /* a is twice that */
    ck_assert_ptr_null(tl_blockcache_take(3 * mib));     /* b is too small */
    unsigned char *t = tl_blockcache_take(mib - 4096);  /* a, not b */
    ck_assert_ptr_eq(t, a);
    memset(t, 1, mib - 4096);
    t = tl_blockcache_take(2 * mib);
    ck_assert_ptr_eq(t, b);
    memset(t, 2, 2 * mib);
    ck_assert_uint_eq(tl_blockcache_hits(), h0 + 2);
    ck_assert_int_eq(tl_blockcache_blocks(), 0);
    ck_assert_uint_eq(tl_blockcache_bytes(), 0);
    free(a);
    free(b);
}
END_TEST

/* The bounds: TL_BLOCKCACHE_SLOTS blocks (the oldest goes), the room the
 * caller gives (older blocks go to make it; a block larger than the room
 * is not kept) and TL_BLOCKCACHE_MAX_BYTES; trim drops oldest first. */
START_TEST(test_blockcache_bounds)
{
    size_t mib = (size_t)1 << 20;
    tl_blockcache_release();
    void *p[TL_BLOCKCACHE_SLOTS + 1];
    for (int i = 0; i <= TL_BLOCKCACHE_SLOTS; i++) {
        p[i] = aligned_block(mib);
        ck_assert(tl_blockcache_keep(p[i], SIZE_MAX));
    }
    ck_assert_int_eq(tl_blockcache_blocks(), TL_BLOCKCACHE_SLOTS);
    size_t u = malloc_usable_size(p[1]);
    ck_assert_uint_eq(tl_blockcache_bytes(), TL_BLOCKCACHE_SLOTS * u);
    tl_blockcache_trim(2 * u);                    /* p[1] and p[2] go */
    ck_assert_int_eq(tl_blockcache_blocks(), 2);
    ck_assert_ptr_eq(tl_blockcache_take(mib), p[3]); /* equal fits: the first */
    ck_assert_ptr_eq(tl_blockcache_take(mib), p[4]);
    free(p[3]);
    free(p[4]);
    void *big = aligned_block(4 * mib);
    ck_assert(!tl_blockcache_keep(big, 4 * mib - 1)); /* larger than the room */
    ck_assert_int_eq(tl_blockcache_blocks(), 0);
    void *q = aligned_block(mib);
    ck_assert(tl_blockcache_keep(q, SIZE_MAX));
    ck_assert(tl_blockcache_keep(big, malloc_usable_size(big) + 1)); /* q makes way */
    ck_assert_int_eq(tl_blockcache_blocks(), 1);
    ck_assert_ptr_eq(tl_blockcache_take(4 * mib), big);
    free(big);
    size_t hn = TL_BLOCKCACHE_MAX_BYTES / 2 + mib;   /* two do not fit */
    void *h1 = aligned_block(hn), *h2 = aligned_block(hn);
    ck_assert(tl_blockcache_keep(h1, SIZE_MAX));
    ck_assert(tl_blockcache_keep(h2, SIZE_MAX));
    ck_assert_int_eq(tl_blockcache_blocks(), 1);
    ck_assert_uint_le(tl_blockcache_bytes(), TL_BLOCKCACHE_MAX_BYTES);
    ck_assert_ptr_eq(tl_blockcache_take(hn), h2);
    free(h2);
    void *over = aligned_block(TL_BLOCKCACHE_MAX_BYTES + mib);
    ck_assert(!tl_blockcache_keep(over, SIZE_MAX));
    free(over);
    tl_blockcache_release();
}
END_TEST

static void *keep_in_thread(void *arg)
{
    size_t n = *(size_t *)arg;
    void *p = aligned_block(n);
    ck_assert(tl_blockcache_keep(p, SIZE_MAX));
    ck_assert_int_eq(tl_blockcache_blocks(), 1);
    return NULL;
}

/* A thread's cache is its own, and is freed when the thread ends: a
 * 64 MiB block (glibc mmaps it) kept by a thread that ended is no longer
 * mapped (mallinfo2's mmapped bytes; LeakSanitizer checks the same in the
 * sanitizer build). */
START_TEST(test_blockcache_thread_end)
{
    size_t n = (size_t)64 << 20;
    tl_blockcache_release();
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
    size_t before = mallinfo2().hblkhd;
#endif
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, keep_in_thread, &n), 0);
    ck_assert_int_eq(pthread_join(th, NULL), 0);
    ck_assert_int_eq(tl_blockcache_blocks(), 0);
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
    if (!tl_heap_checked())
        ck_assert_uint_le(mallinfo2().hblkhd, before);
#endif
}
END_TEST

#if defined(__SANITIZE_ADDRESS__)
/* Under AddressSanitizer a cached block is poisoned: a write through a
 * stale pointer is reported (exit status 1), as for a freed block. */
START_TEST(test_blockcache_poisoned)
{
    tl_blockcache_release();
    volatile unsigned char *p = aligned_block((size_t)1 << 20);
    ck_assert(tl_blockcache_keep((void *)p, SIZE_MAX));
    p[4096] = 1;
}
END_TEST
#endif

/* tl_buf_put_i64 prints what "%" PRId64 prints, the extremes included. */
START_TEST(test_buf_put_i64)
{
    const int64_t vals[] = {0, 1, -1, 9, 10, -10, 99, 100, 123456789, -987654321,
                            INT64_MAX, INT64_MIN, INT64_MIN + 1, (int64_t)1 << 62};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        tl_buf b = {0};
        tl_buf_puts(&b, "x=");
        tl_buf_put_i64(&b, vals[i]);
        char want[48];
        snprintf(want, sizeof want, "x=%" PRId64, vals[i]);
        ck_assert_str_eq(tl_buf_str(&b), want);
        ck_assert_uint_eq(b.len, strlen(want));
        tl_buf_free(&b);
    }
    /* tuples as Python prints them */
    const int64_t t[] = {2, -3, 4};
    const char *want[] = {"()", "(2,)", "(2, -3)", "(2, -3, 4)"};
    for (int n = 0; n <= 3; n++) {
        tl_buf b = {0};
        tl_buf_put_tuple(&b, t, n);
        ck_assert_str_eq(tl_buf_str(&b), want[n]);
        tl_buf_free(&b);
    }
}
END_TEST

START_TEST(test_arena_growth)
{
    tl_arena_block *a = NULL;
    char *prev[2000];
    for (int i = 0; i < 2000; i++) {
        size_t n = (size_t)(i % 7 == 0 ? 20000 : 1 + i % 300);
        char *p = tl_arena_alloc(&a, n);
        ck_assert((uintptr_t)p % 16 == 0);
        for (size_t j = 0; j < n; j++)
            ck_assert(p[j] == 0);
        memset(p, i & 0xFF, n);
        prev[i] = p;
    }
    /* no block overlaps another: every allocation kept its bytes */
    for (int i = 0; i < 2000; i++) {
        size_t n = (size_t)(i % 7 == 0 ? 20000 : 1 + i % 300);
        for (size_t j = 0; j < n; j += 97)
            ck_assert((unsigned char)prev[i][j] == (i & 0xFF));
    }
    tl_arena_free(a);
    tl_arena_free(NULL);
}
END_TEST

static Suite *tl_util_suite(void)
{
    Suite *s = suite_create("util");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_buf_printf_paths);
    tcase_add_test(core, test_xcalloc_zeroed);
    tcase_add_test(core, test_now_bound);
    tcase_add_test(core, test_arena_growth);
    tcase_add_test(core, test_hash_bytes);
    tcase_add_test(core, test_cpu_features);
    tcase_add_test(core, test_error_set_text);
    tcase_add_test(core, test_heap_populate);
    tcase_add_test(core, test_buf_put_i64);
    tcase_add_test(core, test_blockcache_fit);
    tcase_add_test(core, test_blockcache_bounds);
    tcase_add_test(core, test_blockcache_thread_end);
    tcase_add_test(core, test_deflate_vectors);
#if defined(__SANITIZE_ADDRESS__)
    tcase_add_exit_test(core, test_blockcache_poisoned, 1);
#endif
    tcase_set_timeout(core, 60);
    suite_add_tcase(s, core);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(tl_util_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
