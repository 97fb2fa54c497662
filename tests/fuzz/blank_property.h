/* blank_property.h - the property of `tlab new` that tests/fuzz/fuzz_lab.c
 * fuzzes and tests/check_hostile.c checks over the committed corpus: for a
 * lab the loader accepts, the blank sheet loads again with the same ops
 * and questions (ids, op texts) and no prediction, rule, answer, classify,
 * explanation or accept list left (tl_lab_filled), and the same feedback:
 * policy.
 * blank_violation returns NULL when it holds, else a description (owned:
 * free) that includes the blank sheet. Included by both; static. */
#ifndef TL_BLANK_PROPERTY_H
#define TL_BLANK_PROPERTY_H

#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "util.h"

static char *blank_violation(const tl_lab *lab)
{
    char *blank = tl_lab_blank_text(lab);
    tl_lab_err err;
    tl_buf why = {0};
    tl_lab *b = tl_lab_parse("blank.yaml", blank, strlen(blank), false, &err);
    if (!b) {
        tl_buf_printf(&why, "the blank sheet does not load:\n%s",
                      err.rendered ? err.rendered : err.msg);
    } else if (b->nops != lab->nops || b->nquestions != lab->nquestions) {
        tl_buf_printf(&why, "the blank sheet has %zu ops and %zu questions, not %zu and %zu",
                      b->nops, b->nquestions, lab->nops, lab->nquestions);
    } else {
        for (size_t i = 0; i < b->nops && !why.len; i++) {
            const tl_lab_op *o = &b->ops[i], *m = &lab->ops[i];
            if (strcmp(o->id, m->id) || strcmp(o->op, m->op) || !o->predict.blank || o->rule)
                tl_buf_printf(&why, "op %zu of the blank sheet: id '%s', predict %s, rule %s",
                              i, o->id, o->predict.blank ? "blank" : o->predict.text,
                              o->rule ? o->rule : "(none)");
        }
        for (size_t i = 0; i < b->nquestions && !why.len; i++)
            if (strcmp(b->questions[i].id, lab->questions[i].id) || b->questions[i].answer)
                tl_buf_printf(&why, "question %zu of the blank sheet keeps an answer", i);
        unsigned left = tl_lab_filled(b);
        char names[128];
        if (!why.len && left)
            tl_buf_printf(&why, "the blank sheet keeps %s",
                          tl_lab_filled_text(left, names, sizeof names));
        if (!why.len && (b->feedback != lab->feedback || b->visibility != lab->visibility))
            tl_buf_printf(&why, "the blank sheet has feedback: %s, the lab %s",
                          tl_lab_feedback_name(b->feedback), tl_lab_feedback_name(lab->feedback));
    }
    if (why.len)
        tl_buf_printf(&why, "\n--- blank sheet:\n%s\n", blank);
    tl_lab_free(b);
    tl_lab_err_free(&err);
    free(blank);
    return why.len ? tl_buf_steal(&why) : NULL;
}

#endif
