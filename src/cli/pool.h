/* pool.h - the parallel loop of `--jobs N` (grade): fn(arg, i) for every
 * i < n, each exactly once unless skipped, on N threads (the caller and
 * N-1 workers). Items are taken in increasing order from a shared atomic
 * counter; fn writes only its own slot i, so results never depend on the
 * thread. A worker gets the caller's storage-ledger limit (thread-local).
 */
#ifndef TL_POOL_H
#define TL_POOL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_pool tl_pool; /* opaque: the shared counters */

typedef void (*tl_pool_fn)(void *arg, size_t i, tl_pool *p);

/* Run fn on `jobs` threads for every i < n; returns when every item is
 * done. A worker that cannot be started only means fewer threads. */
void tl_pool_run(tl_pool_fn fn, void *arg, size_t n, size_t max_bytes, int jobs);
/* Skip every item after i (called from fn when item i failed). */
void tl_pool_stop_after(tl_pool *p, size_t i);

#ifdef __cplusplus
}
#endif

#endif
