/* classify.h - the stretch goal of lab sheets (SPEC 3): the sheet's
 * `classify:` block defines classify(op_result, parent) returning 'view' or
 * 'copy'; it is run on every op's tensor result (and on each parent
 * variant's) and graded against the runtime's verdict as one test.
 *
 * Ownership: a tl_classify_out owns its strings (tl_classify_out_free).
 */
#ifndef TL_CLASSIFY_H
#define TL_CLASSIFY_H

#include <stdbool.h>

#include "diag.h"
#include "interp.h"
#include "lab.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_classify_out {
    bool ran;          /* the classifier was asked about this result */
    tl_kind answer;    /* TL_KIND_VIEW / TL_KIND_COPY when it answered */
    char *error;       /* why it gave no answer: a located diagnostic, or NULL */
} tl_classify_out;

void tl_classify_out_free(tl_classify_out *c);

/* Run the classify block `src` in I (the interpreter the op just ran in,
 * so setup's names are there) and call classify(result, parent) under I's
 * limits (a fresh per-op timeout, the recursion limit). Never fails: a
 * classifier that raises, loops, recurses without end or returns something
 * else than 'view'/'copy' leaves out->error. */
/* A flag shared by the runs of one lab (threads): set atomically. */
typedef struct tl_classify_stop {
    int flag;
} tl_classify_stop;

/* stop (may be NULL) is shared by all the lab's runs: once one run's
 * classifier passes a limit (time, recursion, memory), it is set and the
 * classifier is not asked again (out->ran stays false), so that a looping
 * classifier costs one timeout, not one per op and variant. */
void tl_classify_run(tl_interp *I, const tl_source *src, tl_value *result,
                     tl_value *parent, tl_classify_stop *stop, tl_classify_out *out);

/* The runtime's truth for a verdict kind: alias counts as a view. */
tl_kind tl_classify_truth(tl_kind verdict);

#ifdef __cplusplus
}
#endif

#endif
