/* interp.h - the op-language interpreter (SPEC 6): a Python subset,
 * lexed, parsed and evaluated in C. It never runs Python, reaches no file,
 * process or network.
 *
 * Ownership: tl_interp owns its variable environment (name -> value, each a
 * retained reference). tl_interp_eval returns a new reference.
 *
 * Errors: execution stops at the first error; err->span points into the
 * source that was running. Python exceptions (err kind < TL_ERR_SYNTAX) are
 * what the program raised; syntax/unsupported/limit errors are tlab's.
 */
#ifndef TL_INTERP_H
#define TL_INTERP_H

#include <stdbool.h>
#include <stddef.h>

#include "backend.h"
#include "diag.h"
#include "err.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_interp tl_interp;

typedef struct tl_interp_opts {
    /* Backend on which factories (torch.arange, ...) place tensors when no
     * device= is given: CPU for `cpu`, the CUDA or emulated backend for
     * `cuda`. `torch.cuda.is_available()` reports cuda_available. */
    const tl_backend *default_backend;
    const tl_backend *cuda_backend; /* for device='cuda'; NULL if none */
    bool cuda_available;
    size_t max_source;   /* bytes, default 1 MiB */
    int max_depth;       /* nesting, default 64 */
    double timeout;      /* seconds per tl_interp_exec/eval call, default 2 */
    int64_t max_seq;     /* longest list/tuple/str/range materialised (default 10^7) */
    unsigned long seed;  /* torch.manual_seed default for rand/randn */
} tl_interp_opts;

/* Defaults as documented above. */
void tl_interp_opts_default(tl_interp_opts *o);

tl_interp *tl_interp_new(const tl_interp_opts *opts);
void tl_interp_free(tl_interp *I);

/* Parse src without running it (syntax errors only). */
int tl_interp_check_syntax(const tl_source *src, const tl_interp_opts *opts,
                           tl_error *err);

/* Run statements. */
int tl_interp_exec(tl_interp *I, const tl_source *src, tl_error *err);

/* Run statements whose last one is an expression and return its value
 * (None if the last statement is not an expression). */
tl_value *tl_interp_eval(tl_interp *I, const tl_source *src, tl_error *err);

/* Call fn (a value the program defined, e.g. a def from an earlier exec)
 * with positional args, under this interpreter's limits (its own timeout
 * when no run is active). Returns a new reference, or NULL with err set;
 * err->span points into the source that defined fn. */
tl_value *tl_interp_call(tl_interp *I, tl_value *fn, tl_value **args, size_t nargs,
                         tl_error *err);

/* Variables: get returns a new reference or NULL; set retains v. */
tl_value *tl_interp_get(tl_interp *I, const char *name);
void tl_interp_set(tl_interp *I, const char *name, tl_value *v);

/* Setup snapshots (py/snapshot.h): the globals a program left, or NULL
 * when something there cannot be copied (or a call is still live); and,
 * in a fresh interpreter, copies of them, the generator, default dtype and
 * run count as they were. -1 with err (a memory limit) and I unchanged. */
struct tl_snapshot;
struct tl_snapshot *tl_interp_snapshot(tl_interp *I);
int tl_interp_restore(tl_interp *I, const struct tl_snapshot *s, tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
