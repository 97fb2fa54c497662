/* context.h - what one grading thread owns: the one per-thread struct.
 *
 * `tlab grade --jobs N` runs interpreters in threads, so every piece of
 * mutable runtime state that is not a tensor lives here, one instance per
 * thread, created zeroed-with-defaults on first use and never freed (it
 * owns no heap memory):
 *   backends by device   the default backend of factories and the CUDA
 *                        backend of this run (set by the interpreter from
 *                        the lab's device:), read by backend.h's resolver
 *   RNG                  the xoshiro256** state of torch.manual_seed/rand
 *   storage ledger       live/peak/total bytes, the --max-bytes limit,
 *                        the next storage id (storage.c)
 *   deadline             when the running op must stop (--timeout), polled
 *                        by kernels and long loops
 *   live headers         tensor headers alive (tensor.c; leak checks)
 *   counters             backend launches and transfer bytes by device kind
 * The interpreter's own state (lang/interp.c) and the base clock cache
 * (base/util.c) are not runtime state and stay in their layers.
 */
#ifndef TL_CONTEXT_H
#define TL_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tl_backend;

/* Backend counters (backend.h documents them). */
typedef struct tl_backend_counters {
    uint64_t launches;  /* kernel entries run (copy_strided ... sort) */
    uint64_t h2d_bytes; /* host -> device (tl_backend_from_host) */
    uint64_t d2h_bytes; /* device -> host (tl_backend_to_host) */
    uint64_t d2d_bytes; /* within a device (tl_backend_copy_d2d) */
} tl_backend_counters;

typedef struct tl_context {
    /* backends by device; NULL means the default (CPU / no CUDA) */
    const struct tl_backend *default_backend; /* factories without device= */
    const struct tl_backend *cuda_backend;    /* runs cuda:0; NULL: none */

    uint64_t rng[4];
    bool rng_seeded;

    size_t ledger_limit;   /* --max-bytes */
    size_t ledger_live;
    size_t ledger_peak;
    uint64_t ledger_total; /* monotonic */
    int64_t ledger_objects; /* interpreter objects and tensor headers (storage.h) */
    size_t ledger_scratch;  /* working memory of kernels and factories (storage.h) */
    size_t ledger_held;     /* memory a cache holds across runs (storage.h) */
    uint64_t ledger_refusals;      /* allocations and checks refused */
    uint64_t ledger_held_refusals; /* ... of which would have fit without held */
    uint64_t next_storage_id;

    double deadline_when;   /* CPU-time instant (tl_now); 0: none */
    double deadline_budget; /* seconds, for messages */

    int64_t live_headers;

    tl_backend_counters counters[TL_NDEVKINDS];
} tl_context;

/* The calling thread's context. */
tl_context *tl_context_get(void);

/* The backends of this thread's run (the interpreter calls it when a run
 * starts): default_be serves factories without device= (NULL: the CPU),
 * cuda_be runs device cuda:0 (NULL: "Torch not compiled with CUDA"). */
void tl_context_set_backends(const struct tl_backend *default_be,
                             const struct tl_backend *cuda_be);

/* The deadline of the running op: when (CPU time, tl_now() scale; 0
 * clears it) and its budget in seconds. Kernels poll
 * tl_context_deadline_passed() and stop with a limit error naming
 * tl_context_deadline_budget(). */
void tl_context_deadline_set(double when, double budget);
bool tl_context_deadline_passed(void);
double tl_context_deadline_budget(void);
double tl_context_deadline_when(void); /* 0 when none is set */
/* The deadline as an error: -1 with TL_ERR_LIMIT "time limit exceeded (N s
 * per op; see --timeout)" once it has passed, or "memory limit exceeded"
 * once the memory ledger is past --max-bytes (storage.h tl_alloc_check). Both also honour the op
 * run's deadline and the sheet's budget of util.h (tl_deadline_passed;
 * then "sheet time budget exceeded ... see --sheet-timeout"). */
int tl_context_deadline_check(tl_error *err);
/* The memory ledger (storage.h): storages, scratch and held memory plus
 * the interpreter objects and tensor headers past
 * TL_ALLOC_OBJECT_ALLOWANCE, and the check that every deadline poll makes
 * too (-1 with a LimitError past --max-bytes; a refusal is counted). */
#define TL_ALLOC_OBJECT_ALLOWANCE ((size_t)16 << 20)
size_t tl_context_ledger_charged(void);
int tl_context_memory_check(tl_error *err);
/* Counts one refusal of `more` bytes (storage.h tl_alloc_refusals). */
void tl_context_ledger_refused(size_t more);
/* How often loops poll it: every TL_DEADLINE_POLL iterations or elements
 * (one period for kernels, factories and the evaluator). */
#define TL_DEADLINE_POLL ((int64_t)1 << 12)
/* tl_context_deadline_check on every TL_DEADLINE_POLL-th iteration i. */
static inline int tl_context_deadline_tick(int64_t i, tl_error *err)
{
    return (i & (TL_DEADLINE_POLL - 1)) == TL_DEADLINE_POLL - 1
               ? tl_context_deadline_check(err) : 0;
}

#ifdef __cplusplus
}
#endif

#endif
