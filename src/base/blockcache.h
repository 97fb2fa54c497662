/* blockcache.h - a small per-thread cache of freed large blocks.
 *
 * A script that rebinds a name in a loop, `for i in range(n): y =
 * x.clone()` on a 16 MiB tensor, makes each result while the previous one
 * is alive and drops the previous one after. glibc puts the dropped block
 * back at the top of its heap, finds the top past its trim threshold and
 * gives the pages back to the kernel (brk); the next result takes them
 * again, one page fault per 4 KiB (~1.3 us each on the benchmark's VM:
 * 5 ms of faults around a 1 ms copy). Blocks of 32 MiB and more are
 * mmap'd and munmap'd every time. This cache keeps a few freed large
 * blocks, already faulted in, for the next allocation of about their size
 * (torch's CPU allocator has no cache; glibc decides for it).
 *
 * Use (the CPU backend's host_alloc/host_free): tl_blockcache_take before
 * malloc for a block of TL_BLOCKCACHE_MIN bytes or more; tl_blockcache_keep
 * instead of free, with the bytes the cache may hold in all (the caller's
 * memory limit less what is live); tl_blockcache_trim before a fresh
 * allocation, so that cached and live bytes stay within that limit.
 *
 * Ownership: a kept block belongs to the cache until taken (its contents
 * are then undefined). A thread's cache is emptied (free) when the thread
 * ends, and the main thread's at exit when tl_exit_frees (util.h) says so.
 * Under AddressSanitizer and valgrind a kept block is marked unaddressable,
 * so a use after free of a cached block is still reported.
 */
#ifndef TL_BLOCKCACHE_H
#define TL_BLOCKCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Smallest block kept: below this glibc's bins reuse blocks without
 * giving pages back. */
#define TL_BLOCKCACHE_MIN ((size_t)128 << 10)
/* At most this many blocks and bytes (each thread). */
#define TL_BLOCKCACHE_SLOTS 4
#define TL_BLOCKCACHE_MAX_BYTES ((size_t)128 << 20)

/* A kept block with at least nbytes usable and at most a quarter more
 * (the smallest such), removed from the cache; NULL when there is none.
 * Its address is the one malloc/posix_memalign returned for it. */
void *tl_blockcache_take(size_t nbytes);

/* Keep p (from malloc, calloc or posix_memalign; alignment is the
 * caller's to check) for a later take, if its usable size is at least
 * TL_BLOCKCACHE_MIN and the cache's bytes after keeping it would be at
 * most both room and TL_BLOCKCACHE_MAX_BYTES, after dropping (free) the
 * oldest blocks as needed. Returns false when p was not kept: the caller
 * frees it. */
bool tl_blockcache_keep(void *p, size_t room);

/* Free the oldest kept blocks until the cache holds at most room bytes. */
void tl_blockcache_trim(size_t room);

/* Free every kept block of this thread (tl_blockcache_trim(0)). */
void tl_blockcache_release(void);

/* This thread's cache: usable bytes and blocks held now, and how many
 * takes found a block (hits) or did not (misses) since the thread began. */
size_t tl_blockcache_bytes(void);
int tl_blockcache_blocks(void);
uint64_t tl_blockcache_hits(void);
uint64_t tl_blockcache_misses(void);

#ifdef __cplusplus
}
#endif

#endif /* TL_BLOCKCACHE_H */
