/* grade.h - predictions against verdicts (SPEC 3-4): per-op marks, points,
 * threshold, question checks, lab-wide rule checks, and the tamper check of
 * `tlab grade` (a submission compared with its master).
 *
 * The master lab supplies everything that decides a mark (ops, accept
 * lists, points, threshold, question checks, rules); the sheet supplies the
 * student's answers (predictions, rule lines, question answers), matched by
 * id. For `tlab check` master and sheet are the same lab.
 *
 * Ownership: a grade borrows nothing from master, sheet or verdicts: it
 * holds copies of the sheet's answers (prediction text, rule line,
 * positions), so `tlab grade` frees each sheet as soon as it is graded and
 * keeps only the grade. A grade owns its arrays, its question reasons and
 * classify problems; its per-op texts (predicted, rule, feedback,
 * rule_problem) live in a string pool (strpool.h): its own with
 * tl_grade_sheet, or one shared by many grades with tl_grade_sheet_in (the
 * pool must then outlive them). tl_grade_free releases what it owns.
 */
#ifndef TL_GRADE_H
#define TL_GRADE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lab.h"
#include "strpool.h"
#include "verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One per master op and sheet, kept until the last report: fields ordered
 * by size, so 72 bytes on LP64. */
typedef struct tl_op_grade {
    /* the prediction, when answered (else NULL, NONE, false): its display
     * text (tl_prediction.text), its kind (NONE for a mapping without
     * one), and whether it was a mapping of fields */
    const char *predicted;
    const char *rule;          /* the sheet's rule line, NULL if blank or no op */
    const char *feedback;      /* one line; never reveals an unanswered verdict */
    const char *rule_problem;  /* NULL when the rule line passes the lab's rules */
    int64_t points;            /* available */
    int64_t score;             /* points if correct */
    /* where the answers sit in the sheet (in_sheet only): the predict: and
     * rule: values, each the op item itself when the key is absent */
    int predict_line, predict_col, rule_line, rule_col;
    unsigned char pred_kind;   /* a tl_kind (a byte: 72 bytes with malformed) */
    bool pred_mapping;
    bool in_sheet;             /* the sheet has an op of this id */
    bool answered;             /* ... with a prediction that is not blank */
    bool malformed;            /* ... that could not be read: scores 0, and
                                * feedback is its located message */
    bool correct;
} tl_op_grade;

typedef struct tl_question_grade {
    bool in_sheet;             /* the sheet has a question of this id */
    bool answered;             /* ... with an answer that is not blank */
    bool passed;
    const char *answer;        /* the sheet's answer (in texts), NULL if blank */
    int answer_line, answer_col; /* its answer: value, else the question item (in_sheet) */
    int64_t points, score;     /* the question's points:, and points if passed */
    char **reasons;
    size_t nreasons;
} tl_question_grade;

/* The classify() stretch test (lab->classify): every tensor result of every
 * op, on the parent and on each variant, classified by the sheet's code and
 * compared with the runtime. Its points are its own, outside the threshold
 * and the ops' points. */
typedef struct tl_classify_grade {
    bool offered;              /* the master lab has a classify: block */
    bool answered;             /* the sheet filled it in (when it could not
                                * be run, problems says so and it fails) */
    bool passed;
    int64_t points, score;
    size_t checked;            /* results the classifier was asked about */
    char **problems;           /* one line per disagreement or failure */
    size_t nproblems;
} tl_classify_grade;

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
    tl_classify_grade classify;
    tl_strpool *texts;         /* where the per-op texts are interned */
    bool own_texts;            /* texts is this grade's own (freed with it) */
} tl_grade;

/* Grade `sheet` against `master` with verdicts[i] for master->ops[i]; the
 * per-op texts in a pool of the grade's own. */
void tl_grade_sheet(const tl_lab *master, const tl_lab *sheet,
                    const tl_op_verdict *verdicts, tl_grade *out);
/* The same with the texts interned in `texts` (shared, thread-safe),
 * which must outlive the grade: equal texts of many grades are one copy. */
void tl_grade_sheet_in(const tl_lab *master, const tl_lab *sheet,
                       const tl_op_verdict *verdicts, tl_strpool *texts, tl_grade *out);
void tl_grade_free(tl_grade *g);

/* `tlab grade` and `check --lab` run a sheet's own classify() (the
 * master's ops again, with the sheet's classifier, under the same limits):
 * its test in c (from tl_grade_sheet of that sheet) is then graded on
 * ran[i], the runs for master->ops[i], against truth[i], the master's
 * verdicts; ran NULL: the runs could not be made, and c says "not run by
 * the autograder" with why's first line (may be NULL). A sheet that left
 * classify blank, or a master without it: c is left as it is. */
void tl_grade_classify_ran(const tl_lab *master, const tl_op_verdict *truth,
                           const tl_op_verdict *ran, const char *why, tl_classify_grade *c);

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

/* A sheet of another lab (its id differs from the master's; SPEC 3: it
 * scores 0): the one-line error `FILE:LINE:COL: error: ...` at the sheet's
 * id (owned, the ids and file escaped), with *line and *col; NULL when the
 * sheet is of the master's lab or either has no id. */
char *tl_grade_wrong_lab(const tl_lab *master, const tl_lab *sheet, int *line, int *col);

/* `tlab grade`: what a submission changed relative to the master (setup,
 * parent, device, threshold, rules, op texts/accept/points, question
 * checks, ops or questions added/removed). Returns the count; *changes is
 * an owned array of owned strings (NULL when none). */
size_t tl_grade_tamper(const tl_lab *master, const tl_lab *sub, char ***changes);

#ifdef __cplusplus
}
#endif

#endif
