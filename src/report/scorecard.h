/* scorecard.h - the JSON scorecard (SPEC 5) and the data every report
 * format renders.
 *
 * A tl_report borrows everything it points to. Documents are built as one
 * cJSON tree with a fixed key order, so output is deterministic (no
 * timestamps, no hash-order).
 */
#ifndef TL_SCORECARD_H
#define TL_SCORECARD_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "grade.h"
#include "lab.h"
#include "verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tl_report_mode {
    TL_REPORT_CHECK, /* graded: predictions, marks, questions, score */
    TL_REPORT_RUN,   /* what happened, no grading keys */
    TL_REPORT_KEY    /* run + the answer key per op */
} tl_report_mode;

typedef struct tl_report {
    tl_report_mode mode;
    const tl_lab *lab;             /* the master (or the sheet itself); NULL only
                                    * when an unreadable sheet has no master */
    const tl_op_verdict *verdicts; /* lab->nops entries */
    const tl_grade *grade;         /* CHECK only; an unreadable sheet's grade
                                    * scores 0 (every op unanswered) */
    const char *device_requested;  /* "auto", "cpu", "cuda" */
    const char *device_used;       /* "cpu", "cuda", "cuda-emulated" */

    /* the graded sheet when it is not the lab itself (grade, check --lab) */
    const char *sheet_file;        /* NULL: lab->file */
    const char *sheet_sha256;      /* NULL when unreadable or the lab itself */
    /* the sheet could not be graded: one line `FILE:LINE:COL: error: MSG`
     * (untrusted text, escaped when printed), and where */
    const char *error;
    int error_line, error_col;     /* 0 when unknown */
    /* tampered: what the sheet changed relative to the master */
    char *const *changes;
    size_t nchanges;
} tl_report;

/* The graded sheet's file name (sheet_file, else the lab's). */
const char *tl_report_sheet(const tl_report *r);
/* The lab's feedback: policy for what the student-facing formats show of a
 * graded report (text, html, tap, junit, github, gradescope, prairielearn;
 * json, csv and jsonl stay full: they are the instructor's records). FULL
 * for run/key reports and an unreadable sheet. */
tl_lab_feedback tl_report_feedback(const tl_report *r);

#define TL_SCHEMA_VERSION 1

/* The evidence object ("actual") of SPEC 5. NULL on OOM. */
cJSON *tl_evidence_json(const tl_evidence *ev, bool top);
/* The whole document. NULL on OOM. */
cJSON *tl_scorecard_build(const tl_report *r);
/* Any cJSON tree printed the same way (2-space indent, newline). */
char *tl_scorecard_print_json(cJSON *root);
/* doc(rs[0]) printed when n == 1, else the array of doc(rs[k]) (the
 * autograder formats: one results object per submission). NULL on OOM. */
char *tl_scorecard_print_each(const tl_report *rs, size_t n,
                              cJSON *(*doc)(const tl_report *r));
/* Printed document (2-space indented, trailing newline); caller frees. */
char *tl_scorecard_print(const tl_report *r);

/* Pieces of documents: a JSON array of v[0..n), and the "variants" array
 * of v ([{parent, kind}, ...]). NULL on OOM. */
cJSON *tl_scorecard_int_array(const int64_t *v, int n);
cJSON *tl_scorecard_variants(const tl_op_verdict *v);

/* The answer that scores for op i: "view", "copy", ..., or "sometimes". */
const char *tl_scorecard_key_answer(const tl_op_verdict *v);

#ifdef __cplusplus
}
#endif

#endif
