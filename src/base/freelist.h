/* freelist.h - per-thread free lists of same-size blocks, for objects made
 * and dropped by the thousand (interpreter values, tensor headers): glibc's
 * per-thread cache keeps only 7 blocks of a size, and its fallback bins
 * cost a lock-free but long path (and, for blocks over 1 KiB, fastbin
 * consolidation).
 *
 * Use: one `static _Thread_local tl_freelist` per kind of block;
 * tl_freelist_pop gives a block back (NULL when the list is empty: malloc
 * one), tl_freelist_push keeps a freed block, or frees it when the list
 * already holds `cap`. Contents of a popped block are undefined.
 *
 * Ownership: blocks on a list belong to the list; a thread's lists are
 * emptied (free) when the thread ends, and the main thread's at exit when
 * tl_exit_frees (util.h) says so (under leak checkers), so they see every
 * block freed. Sanitizer builds keep nothing
 * (every free is real, so use-after-free is caught).
 */
#ifndef TL_FREELIST_H
#define TL_FREELIST_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_freelist {
    void *head;   /* blocks linked through their first bytes */
    int n;
    bool armed;   /* registered for emptying at thread end */
} tl_freelist;

void *tl_freelist_pop(tl_freelist *fl);
void tl_freelist_push(tl_freelist *fl, void *p, int cap);

#ifdef __cplusplus
}
#endif

#endif
