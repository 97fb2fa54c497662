/* context.c - the per-thread runtime context (context.h).
 *
 * The only _Thread_local of the runtime: one tl_context per thread,
 * filled with its defaults (1 GiB ledger limit, storage ids from 1) on the
 * first tl_context_get() of the thread.
 */
#include "context.h"

#include <string.h>

#include "util.h"

static _Thread_local tl_context ctx;
static _Thread_local bool ctx_ready;

tl_context *tl_context_get(void)
{
    if (!ctx_ready) {
        memset(&ctx, 0, sizeof ctx);
        ctx.ledger_limit = TL_DEFAULT_MAX_BYTES;
        ctx.next_storage_id = 1;
        ctx_ready = true;
    }
    return &ctx;
}

void tl_context_set_backends(const struct tl_backend *default_be,
                             const struct tl_backend *cuda_be)
{
    tl_context *c = tl_context_get();
    c->default_backend = default_be;
    c->cuda_backend = cuda_be;
}

void tl_context_deadline_set(double when, double budget)
{
    tl_context *c = tl_context_get();
    c->deadline_when = when;
    c->deadline_budget = budget;
}

/* the call's own deadline, and the op run's and the sheet's (util.h) */
bool tl_context_deadline_passed(void)
{
    tl_context *c = tl_context_get();
    return (c->deadline_when > 0 && tl_time_past(c->deadline_when)) || tl_deadline_passed();
}

double tl_context_deadline_budget(void)
{
    return tl_context_get()->deadline_budget;
}

double tl_context_deadline_when(void)
{
    return tl_context_get()->deadline_when;
}

int tl_context_deadline_check(tl_error *err)
{
    if (tl_context_deadline_passed()) {
        char msg[160];
        tl_deadline_message(msg, sizeof msg, tl_context_deadline_budget());
        return tl_error_set(err, TL_ERR_LIMIT, "%s", msg);
    }
    /* the same polls hold the one memory ledger (storage.h) */
    return tl_context_memory_check(err);
}

size_t tl_context_ledger_charged(void)
{
    tl_context *c = tl_context_get();
    size_t o = c->ledger_objects > 0 ? (size_t)c->ledger_objects : 0;
    size_t extra = o > TL_ALLOC_OBJECT_ALLOWANCE ? o - TL_ALLOC_OBJECT_ALLOWANCE : 0;
    size_t sum = c->ledger_live;
    size_t parts[3] = {extra, c->ledger_scratch, c->ledger_held};
    for (int i = 0; i < 3; i++)
        sum = sum > SIZE_MAX - parts[i] ? SIZE_MAX : sum + parts[i];
    return sum;
}

void tl_context_ledger_refused(size_t more)
{
    tl_context *c = tl_context_get();
    c->ledger_refusals++;
    /* would it have fit without what a cache holds (storage.h)? */
    size_t charged = tl_context_ledger_charged(), held = c->ledger_held;
    if (held && more <= c->ledger_limit && charged - held <= c->ledger_limit - more)
        c->ledger_held_refusals++;
}

int tl_context_memory_check(tl_error *err)
{
    tl_context *c = tl_context_get();
    if (tl_context_ledger_charged() <= c->ledger_limit)
        return 0;
    tl_context_ledger_refused(0);
    return tl_error_set(err, TL_ERR_LIMIT,
                        "memory limit exceeded: %zu bytes of tensor storage and %lld of "
                        "interpreter objects (lists, strings, tensor headers) are live; "
                        "the limit is %zu bytes (see --max-bytes)",
                        c->ledger_live + c->ledger_scratch + c->ledger_held,
                        (long long)c->ledger_objects, c->ledger_limit);
}
