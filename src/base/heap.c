/* heap.c - prefaulting the main heap (heap.h).
 *
 * Measured on the benchmark's 2-core VM (6.x kernel): a first write to a
 * fresh anonymous page costs 1.3 us (the fault, a zeroed page, the page
 * table entry); MADV_POPULATE_WRITE (Linux 5.14) does the same work for a
 * whole range in one system call at 0.67 us a page. The range is the
 * main heap as glibc first grows it (132 KiB): `tlab check` of the
 * shipped sheets takes 26-31 fewer page faults (lab06 202 -> 176, lab01
 * 170 -> 139).
 *
 * Not done, measured: a larger first growth through mallopt(M_TOP_PAD)
 * saved 30 more faults but cost lab03 10 % of its time. Any mallopt of
 * the thresholds turns off glibc's dynamic mmap threshold, so every
 * block of 128 KiB and more went back to mmap/munmap, run after run.
 *
 * Invariants: only glibc's main arena is touched, and only the range from
 * the page of a just-made block to the program break: heap memory the
 * allocator already owns (the blocks' pages and the top chunk). Under AddressSanitizer or valgrind
 * the allocator is theirs and nothing is done; a kernel without the
 * advice answers EINVAL and nothing is done either. Populating changes no
 * contents: the pages would read as zeros either way.
 */
#include "heap.h"

#include <stdint.h>
#include <stdlib.h>
#include "platform.h"
#if TL_HAVE_MMAP
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "util.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* A populated range larger than this is not the start-up heap. */
#define MAX_RANGE ((size_t)4 << 20)

#if TL_HAVE_MMAP
/* The allocator is not glibc's (a checker's, or another libc's). */
static bool foreign_malloc(void)
{
#if defined(__GLIBC__)
    return tl_heap_checked();
#else
    return true;
#endif
}
#endif

bool tl_heap_populate(void)
{
#if !TL_HAVE_MMAP
    return false; /* no madvise (wasm32-wasi): the pages fault in as used */
#else
    if (foreign_malloc())
        return false;
    char *probe = malloc(1);
    char *end = sbrk(0);
    bool done = false;
    if (probe && end != (char *)-1) {
        uintptr_t lo = (uintptr_t)probe & ~(uintptr_t)4095;
        uintptr_t hi = (uintptr_t)end;
        if (lo < hi && hi - lo <= MAX_RANGE && hi % 4096 == 0)
            done = madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) == 0;
    }
    free(probe);
    return done;
#endif
}
