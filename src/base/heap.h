/* heap.h - getting the main heap's first pages in one system call.
 *
 * A `tlab check` touches 150-260 KiB of fresh heap. Taken one page fault
 * at a time that cost 1.3 us a page on the benchmark's VM; asked for in
 * one madvise(MADV_POPULATE_WRITE) it costs half that (heap.c). Nothing
 * here changes what any allocation returns, or glibc's malloc settings.
 */
#ifndef TL_HEAP_H
#define TL_HEAP_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fault in, in one call, the pages between the heap's current blocks and
 * its end. Returns whether it did (not under a sanitizer's or valgrind's
 * allocator, not on kernels before 5.14, not where the heap is not where
 * glibc's brk heap would be). */
bool tl_heap_populate(void);

#ifdef __cplusplus
}
#endif

#endif /* TL_HEAP_H */
