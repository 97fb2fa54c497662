/* grade.h - predictions against verdicts (SPEC 3-4): per-op marks, points,
 * threshold, question checks, lab-wide rule checks, and the tamper check of
 * `tlab grade` (a submission compared with its master).
 *
 * The master lab supplies everything that decides a mark (ops, accept
 * lists, points, threshold, question checks, rules); the sheet supplies the
 * student's answers (predictions, rule lines, question answers), matched by
 * id. For `tlab check` master and sheet are the same lab.
 *
 * Ownership: tl_grade owns its arrays and strings; tl_grade_free.
 */
#ifndef TL_GRADE_H
#define TL_GRADE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lab.h"
#include "verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_op_grade {
    const tl_lab_op *sheet_op; /* the sheet's op of this id (borrowed), NULL if none */
    const tl_prediction *pred; /* the sheet's prediction (borrowed), NULL if none */
    const char *rule;          /* the sheet's rule line (borrowed), NULL if blank */
    bool answered;
    bool correct;
    int64_t points;            /* available */
    int64_t score;             /* points if correct */
    char *feedback;            /* one line; never reveals an unanswered verdict */
    char *rule_problem;        /* NULL when the rule line passes the lab's rules */
} tl_op_grade;

typedef struct tl_question_grade {
    const tl_lab_question *sheet_q; /* the sheet's question (borrowed), NULL if none */
    const char *answer;        /* borrowed from the sheet, NULL if blank */
    bool passed;
    int64_t points, score;     /* the question's points:, and points if passed */
    char **reasons;
    size_t nreasons;
} tl_question_grade;

typedef struct tl_grade {
    size_t nops;
    tl_op_grade *ops;          /* parallel to master->ops */
    size_t nquestions;
    tl_question_grade *questions; /* parallel to master->questions */
    /* correct/total count ops (the threshold is on ops); points/max_points
     * add question points and the rules check to the ops' points */
    int64_t correct, total, points, max_points, threshold;
    bool has_rules_test;       /* the lab has a rules: block: one rules test */
    int64_t rules_score, rules_max;
    size_t unanswered;
    bool rules_passed;
    bool questions_passed;
    bool passed;
} tl_grade;

/* Grade `sheet` against `master` with verdicts[i] for master->ops[i]. */
void tl_grade_sheet(const tl_lab *master, const tl_lab *sheet,
                    const tl_op_verdict *verdicts, tl_grade *out);
void tl_grade_free(tl_grade *g);

/* Is prediction p right for verdict v under op's accept list? Fills a
 * short reason (why not) into why (may be NULL). */
bool tl_grade_prediction(const tl_lab_op *op, const tl_prediction *p,
                         const tl_op_verdict *v, tl_buf *why);

/* Question checks alone (exposed for tests): returns passed, appends
 * reasons. */
bool tl_grade_question(const tl_lab_question *q, const char *answer,
                       char ***reasons, size_t *nreasons);
/* Whole-word, case-insensitive, plural-tolerant phrase search. */
bool tl_grade_mentions(const char *text, const char *phrase);
/* Is text, trimmed, case- and punctuation-insensitive, just `phrase`? */
bool tl_grade_is_only(const char *text, const char *phrase);

/* `tlab grade`: what a submission changed relative to the master (setup,
 * parent, device, threshold, rules, op texts/accept/points, question
 * checks, ops or questions added/removed). Returns the count; *changes is
 * an owned array of owned strings (NULL when none). */
size_t tl_grade_tamper(const tl_lab *master, const tl_lab *sub, char ***changes);

#ifdef __cplusplus
}
#endif

#endif
