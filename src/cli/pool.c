/* pool.c - the thread pool of `--jobs N` (see pool.h).
 *
 * Invariants: items start in increasing index order (one atomic counter);
 * an item at or past `stop` never starts; the calling thread works too and
 * keeps its own ledger limit; workers get a stack as deep as the main
 * thread's, since the parser and interpreter recurse (nesting <= 64, YAML
 * depth bounded). Without threads (TL_HAVE_THREADS 0: wasm32-wasi) the
 * calling thread does every item; the CLI refuses --jobs N > 1 there.
 */
#include "pool.h"

#include "platform.h"
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "backend.h"
#include "storage.h"
#include "util.h"

#define WORKER_STACK ((size_t)8 << 20)

struct tl_pool {
    tl_pool_fn fn;
    void *arg;
    size_t n;
    atomic_size_t next;
    atomic_size_t stop; /* items at or past it are skipped (SIZE_MAX: none) */
    size_t max_bytes;   /* the ledger limit (thread-local) of each worker */
};

static void drain(tl_pool *p)
{
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n || i >= atomic_load(&p->stop))
            return;
        p->fn(p->arg, i, p);
    }
}

static void *worker_main(void *arg)
{
    tl_pool *p = arg;
    tl_alloc_set_limit(p->max_bytes);
    drain(p);
    /* the device work this thread queued (on its own stream) finishes
     * before the thread does: the main thread may free those blocks next,
     * on its stream, and the pool must not hand them out while a copy into
     * them is still queued (cuda review W2) */
    const tl_backend *gpu = tl_backend_cuda();
    if (gpu) {
        tl_error err;
        (void)tl_backend_sync(gpu, &err);
    }
    return NULL;
}

void tl_pool_stop_after(tl_pool *p, size_t i)
{
    size_t cur = atomic_load(&p->stop);
    while (i + 1 < cur && !atomic_compare_exchange_weak(&p->stop, &cur, i + 1))
        ;
}

void tl_pool_run(tl_pool_fn fn, void *arg, size_t n, size_t max_bytes, int jobs)
{
    tl_pool pool = {.fn = fn, .arg = arg, .n = n, .max_bytes = max_bytes};
    tl_pool *p = &pool;
    atomic_init(&p->next, 0);
    atomic_init(&p->stop, SIZE_MAX);
#if TL_HAVE_THREADS
    size_t extra = jobs > 1 ? (size_t)jobs - 1 : 0;
    if (extra > p->n - (p->n > 0))
        extra = p->n - (p->n > 0);
    pthread_t *t = extra ? tl_xcalloc(extra, sizeof *t) : NULL;
    size_t started = 0;
    if (extra) {
        pthread_attr_t attr;
        bool attr_ok = pthread_attr_init(&attr) == 0;
        size_t cur = 0;
        if (attr_ok && pthread_attr_getstacksize(&attr, &cur) == 0 && cur < WORKER_STACK)
            (void)pthread_attr_setstacksize(&attr, WORKER_STACK);
        for (; started < extra; started++)
            if (pthread_create(&t[started], attr_ok ? &attr : NULL, worker_main, p) != 0)
                break;
        if (attr_ok)
            pthread_attr_destroy(&attr);
    }
    drain(p);
    for (size_t k = 0; k < started; k++)
        pthread_join(t[k], NULL);
    free(t);
#else
    (void)jobs;
    (void)worker_main;
    drain(p);
#endif
}
