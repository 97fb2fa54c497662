/* heap.h - getting the main heap's first pages in one system call.
 *
 * A `tlab check` touches about 250 KiB of fresh heap. Taken one page
 * fault at a time that cost 1.3 us a page on the benchmark's VM; asked
 * for in one madvise(MADV_POPULATE_WRITE) it costs half that (heap.c).
 * Nothing here changes what any allocation returns.
 */
#ifndef TL_HEAP_H
#define TL_HEAP_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What `tlab` reserves: lab06 touches 260 KiB of heap. */
#define TL_HEAP_PAD ((size_t)256 << 10)

/* Before the process's first malloc: every later growth of the main heap
 * asks the kernel for pad more bytes than it needs (glibc's M_TOP_PAD),
 * so the first growth covers what tl_heap_populate fills. */
void tl_heap_reserve(size_t pad);

/* Fault in, in one call, the pages between the heap's current blocks and
 * its end. Returns whether it did (not under a sanitizer's or valgrind's
 * allocator, not on kernels before 5.14, not where the heap is not where
 * glibc's brk heap would be). */
bool tl_heap_populate(void);

#ifdef __cplusplus
}
#endif

#endif /* TL_HEAP_H */
