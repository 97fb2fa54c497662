/* blockcache.c - the per-thread cache of freed large blocks (blockcache.h).
 *
 * Measured on the benchmark's 2-core VM, `tlab exec` of a loop of 100
 * `y = x.clone()` on 2048x2048 float32: 2,900 page faults and 7.5 ms of
 * CPU an op before (glibc trimmed the heap's top after every other free),
 * 41 (the first result's pages, over 100 ops) and 1.2 ms after
 * (bench/script_loops.py, bench/results-2026-12-03.txt).
 *
 * Invariants: slot[0..n) are the kept blocks, oldest first; bytes is the
 * sum of their usable sizes (malloc_usable_size when kept), at most
 * TL_BLOCKCACHE_MAX_BYTES; a cache is touched only by its own thread.
 * A thread's first keep registers the one pthread key whose destructor
 * empties the cache at thread end; a cache that cannot be registered
 * keeps nothing. Only glibc's malloc says a block's usable size, so
 * elsewhere nothing is kept.
 */
#include "blockcache.h"

#include "platform.h"
#include <stdlib.h>

#include "util.h"

#if TL_HAVE_GLIBC_MALLOC
#include <malloc.h>
#define HAVE_USABLE_SIZE 1
#endif

/* AddressSanitizer: a kept block is poisoned, a taken one unpoisoned. */
#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif
#ifdef ASAN
void __asan_poison_memory_region(void const volatile *addr, size_t size);
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
#define POISON(p, n) __asan_poison_memory_region((p), (n))
#define UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* valgrind: the same, through memcheck's client requests (no-ops when
 * not under valgrind). */
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define NOACCESS(p, n) VALGRIND_MAKE_MEM_NOACCESS((p), (n))
#define UNDEFINED(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#endif
#endif
#ifndef NOACCESS
#define NOACCESS(p, n) ((void)(p), (void)(n))
#define UNDEFINED(p, n) ((void)(p), (void)(n))
#endif

typedef struct slot {
    void *p;
    size_t usable;
} slot;

static _Thread_local slot slots[TL_BLOCKCACHE_SLOTS];
static _Thread_local int nslots;
static _Thread_local size_t bytes;
static _Thread_local uint64_t hits, misses;

#ifdef HAVE_USABLE_SIZE /* elsewhere nothing is kept: no key to register */
static _Thread_local bool armed;
static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool key_ok;
#endif

/* remove slot i (its block is the caller's now) */
static void *remove_slot(int i)
{
    void *p = slots[i].p;
    bytes -= slots[i].usable;
    for (int j = i + 1; j < nslots; j++)
        slots[j - 1] = slots[j];
    nslots--;
    return p;
}

/* give slot i's block back to malloc, addressable again (free reads
 * nothing in it, but valgrind checks the pointer's block state) */
static void drop_slot(int i)
{
    size_t u = slots[i].usable;
    void *p = remove_slot(i);
    UNPOISON(p, u);
    UNDEFINED(p, u);
    free(p);
}

void tl_blockcache_trim(size_t room)
{
    while (nslots > 0 && bytes > room)
        drop_slot(0);
}

void tl_blockcache_release(void) { tl_blockcache_trim(0); }

#ifdef HAVE_USABLE_SIZE
static void release_at_thread_end(void *unused)
{
    (void)unused;
    tl_blockcache_release();
    armed = false;
}

static void release_at_exit(void)
{
    if (tl_exit_frees())
        tl_blockcache_release();
}

static void init(void)
{
    key_ok = pthread_key_create(&key, release_at_thread_end) == 0;
    if (key_ok)
        atexit(release_at_exit);
}
#endif

void *tl_blockcache_take(size_t nbytes)
{
    if (nbytes < TL_BLOCKCACHE_MIN)
        return NULL;
    int best = -1;
    for (int i = 0; i < nslots; i++) {
        size_t u = slots[i].usable;
        if (u >= nbytes && u - nbytes <= nbytes / 4 &&
            (best < 0 || u < slots[best].usable))
            best = i;
    }
    if (best < 0) {
        misses++;
        return NULL;
    }
    hits++;
    void *p = remove_slot(best);
    UNPOISON(p, nbytes);
    UNDEFINED(p, nbytes);
    return p;
}

bool tl_blockcache_keep(void *p, size_t room)
{
#ifdef HAVE_USABLE_SIZE
    if (!p)
        return false;
    size_t u = malloc_usable_size(p);
    if (room > TL_BLOCKCACHE_MAX_BYTES)
        room = TL_BLOCKCACHE_MAX_BYTES;
    if (u < TL_BLOCKCACHE_MIN || u > room)
        return false;
    if (!armed) {
        pthread_once(&once, init);
        if (!key_ok || pthread_setspecific(key, (void *)1) != 0)
            return false;
        armed = true;
    }
    /* the oldest make way: for the slot, and for the bytes */
    if (nslots == TL_BLOCKCACHE_SLOTS)
        drop_slot(0);
    tl_blockcache_trim(room - u);
    slots[nslots++] = (slot){p, u};
    bytes += u;
    POISON(p, u);
    NOACCESS(p, u);
    return true;
#else
    (void)p;
    (void)room;
    return false;
#endif
}

size_t tl_blockcache_bytes(void) { return bytes; }
int tl_blockcache_blocks(void) { return nslots; }
uint64_t tl_blockcache_hits(void) { return hits; }
uint64_t tl_blockcache_misses(void) { return misses; }
