/* items.h - a graded sheet as a list of tests, the one model behind every
 * per-test format (junit, tap, gradescope, prairielearn, github), so they
 * all show the same failures with the same points (SPEC 2).
 *
 * A check report becomes: one item per op, one per question, one for the
 * lab-wide rules (when the lab has a rules: block), one tamper check (when
 * graded against a master), and the verdict (threshold and checks; 0
 * points). A run/key report: one informational item per op. An unreadable
 * sheet: one failed "read" item carrying the located error.
 *
 * The lab's feedback: policy (tl_report_feedback) shapes the list:
 * wrong-ops keeps every item but an op's says only correct, wrong or
 * unanswered (`withheld`: no verdict, evidence or explanation, and a
 * renderer shows none of r->verdicts for it) and classify() only how many
 * results it got wrong; score-only keeps the tamper check and the verdict,
 * which then carries all the points. tl_items_build_as builds the list of
 * another policy (gradescope.c: the full feedback, held back until the due
 * date).
 *
 * Ownership: tl_items owns every string (tl_items_free). name, number and
 * message are single lines without controls; detail may span lines (our
 * newlines only) and is "" when there is nothing more to say.
 */
#ifndef TL_ITEMS_H
#define TL_ITEMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tl_item_kind {
    TL_ITEM_OP,
    TL_ITEM_QUESTION,
    TL_ITEM_RULES,
    TL_ITEM_CLASSIFY,
    TL_ITEM_TAMPER,
    TL_ITEM_VERDICT,
    TL_ITEM_ERROR
} tl_item_kind;

typedef struct tl_item {
    tl_item_kind kind;
    size_t index;          /* op or question index */
    char *name;            /* "1 x[1:]", "question 21", "rules", ... */
    char *number;          /* "1", "21", "rules", ... */
    bool graded;           /* false: informational (run, key) */
    bool passed;
    bool unanswered;
    int64_t score, max_score;
    char *message;         /* one line */
    char *detail;          /* more lines, or "" */
    int line, col;         /* in the graded sheet; 0 when unknown */
    bool withheld;         /* op: verdict and evidence held back (feedback:) */
} tl_item;

typedef struct tl_items {
    tl_item *v;
    size_t n;
    int64_t score, max_score; /* sums over the items */
    size_t failed;            /* graded items that did not pass */
} tl_items;

void tl_items_build(const tl_report *r, tl_items *out);
void tl_items_build_as(const tl_report *r, tl_lab_feedback policy, tl_items *out);
void tl_items_free(tl_items *it);

#ifdef __cplusplus
}
#endif

#endif
