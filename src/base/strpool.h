/* strpool.h - interned strings: equal texts share one copy. `tlab grade`
 * keeps one grade per sheet until the last report, and the feedback lines,
 * predictions and rule lines of a class repeat from sheet to sheet.
 *
 * Ownership: the pool owns every string it returns; they stay valid and
 * unchanged until tl_strpool_free, which releases them all at once.
 * Thread-safe: lookups and inserts hold the pool's mutex (the workers of
 * `grade --jobs N` share one pool).
 */
#ifndef TL_STRPOOL_H
#define TL_STRPOOL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_strpool tl_strpool; /* opaque */

tl_strpool *tl_strpool_new(void);
/* The pool's copy of s (NUL-terminated; NULL gives NULL). */
const char *tl_strpool_intern(tl_strpool *p, const char *s);
/* The pool's copy of s[0..n) (NUL-terminated; s need not be). */
const char *tl_strpool_intern_n(tl_strpool *p, const char *s, size_t n);
/* Distinct strings held, and the bytes they take (texts, NULs, table). */
size_t tl_strpool_count(tl_strpool *p);
size_t tl_strpool_bytes(tl_strpool *p);
/* Every string of the pool, and the pool; NULL is fine. */
void tl_strpool_free(tl_strpool *p);

#ifdef __cplusplus
}
#endif

#endif
