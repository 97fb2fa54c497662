/* misconception.h - the beliefs behind wrong predictions (issue #29): a
 * catalogue of misconceptions (share/misconceptions.yaml, compiled into
 * the binary), each recognised from an op's evidence and the wrong
 * prediction, and the tags a graded sheet supports.
 *
 * A catalogue entry is data, never C per tag: a `when:` predicate over the
 * op's facts (tl_mc_facts: the op's kind from its text, what it did, the true answer,
 * the result's contiguity and storage sharing, whether the op is in-place)
 * and the answer the belief `predicts:`. A wrong answer of an op supports
 * an entry when the op's facts satisfy `when:` and the prediction is one
 * the belief predicts. An entry is reported when at least `min_ops` ops
 * support it (default 2), and not when a broader entry explains the same
 * evidence (tl_misconception_find).
 *
 * The catalogue and its parsing are mccat.h's. Ownership: a tl_mc_found
 * borrows its entry from the catalogue and owns its ops array.
 */
#ifndef TL_MISCONCEPTION_H
#define TL_MISCONCEPTION_H

#include <stdbool.h>
#include <stddef.h>

#include "grade.h"
#include "lab.h"
#include "mccat.h"
#include "verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the predicates of `when:` look at, for one op. */
typedef struct tl_mc_facts {
    char op_kind[48];      /* tl_misconception_op_kind of the op's text */
    char actual[16];       /* what the op did to the parent as given: "view", ... */
    char truth[16];        /* the scoring answer: actual, or "sometimes" */
    bool is_tensor;        /* the result is a tensor (the next two mean something) */
    bool contiguous;
    bool shares_storage;
    bool inplace;          /* op_kind ends in one '_' (add_, zero_) */
} tl_mc_facts;

/* The op's kind from its text's last statement: the name of the last
 * method or function called (`x.t().reshape(8, 3)` -> "reshape",
 * `torch.cat([x])` -> "cat"), the attribute read (`x.T` -> "T"), or
 * "index" for a subscript (`x[[0, 1]]`); "" when none. */
void tl_mc_op_kind(const char *op_text, char *out, size_t cap);
/* op_kind and inplace of f from the op's text. */
void tl_mc_facts_kind(tl_mc_facts *f, const char *op_text);
/* Facts of master op `op` from its verdict. */
void tl_mc_facts_of(const tl_lab_op *op, const tl_op_verdict *v, tl_mc_facts *f);
/* Does the entry's `when:` hold for these facts (the prediction aside)? */
bool tl_mc_applies(const tl_mc_entry *m, const tl_mc_facts *f);
/* The kind a holder of the belief answers (its first predicts:). */
tl_kind tl_mc_predicted(const tl_mc_entry *m);

typedef struct tl_mc_found {
    const tl_mc_entry *m;
    size_t index;          /* of m in the catalogue */
    size_t nops;
    size_t *ops;           /* indices into master->ops, ascending */
} tl_mc_found;

/* The entries of c that grade g (of master, verdicts[i] for op i)
 * supports, in catalogue order: an op supports an entry when its answer is
 * wrong, is one the entry predicts, and the entry's when: holds or the op
 * names the entry's tag in its `misconceptions:`. An entry needing 2 or
 * more ops is held only when more ops support it than contradict it (its
 * when: holds, the answer is right and not one it predicts). An entry A is
 * left out when another held entry B with no more contradicting ops
 * includes all of A's ops and more, or the same ops and fewer
 * contradictions or an earlier place in the catalogue: the broader belief
 * explains them as well. B is left out when narrower held entries with
 * fewer contradictions explain every one of its ops (two specific beliefs,
 * not the catch-all).
 * Returns the count; *out is owned (tl_mc_found_free), NULL when none. */
size_t tl_mc_find(const tl_mc_catalogue *c, const tl_lab *master,
                  const tl_op_verdict *verdicts, const tl_grade *g, tl_mc_found **out);
void tl_mc_found_free(tl_mc_found *f, size_t n);

#ifdef __cplusplus
}
#endif

#endif
