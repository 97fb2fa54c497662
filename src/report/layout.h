/* layout.h - text layout shared by the report formats (layout.c): columns,
 * fitting, wrapping, the evidence block, op and suite names. Internal to
 * src/report. Every returned string is owned by the caller (free) and is
 * free of control characters (untrusted text is escaped, escape.h).
 */
#ifndef TL_LAYOUT_H
#define TL_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scorecard.h"
#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_render_opts {
    bool color;   /* ANSI colour and the check-mark symbols */
    bool quiet;   /* text: only the final line */
} tl_render_opts;

#define TL_REPORT_WIDTH 80

/* The final line: "17/20 correct (threshold 16) - PASS". */
char *tl_report_final_line(const tl_report *r);

/* Cut s to at most `cols` display columns (UTF-8 aware), ending in "…"
 * when cut; newlines become "; ", controls visible escapes. Returns a new
 * string. */
char *tl_report_fit(const char *s, size_t cols);

#define C_RED "\033[31m"
#define C_GREEN "\033[32m"
#define C_YELLOW "\033[33m"
#define C_BOLD "\033[1m"
#define C_DIM "\033[2m"
#define C_OFF "\033[0m"

size_t tl_layout_cols(const char *s);                      /* display columns */
void tl_layout_pad(tl_buf *b, const char *s, size_t cols); /* s (safe) padded */
void tl_layout_fitpad(tl_buf *b, const char *s, size_t cols); /* fitted, padded */
void tl_layout_cell(tl_buf *b, const char *s, size_t cols);   /* + column gap */
void tl_layout_trim(tl_buf *b);                               /* trailing spaces */
/* word-wrap text (escaped) at width; first line after `lead` columns
 * already in b, continuation lines indented by `indent` */
void tl_layout_wrap(tl_buf *b, const char *text, size_t lead, size_t indent, size_t width);
const char *tl_layout_color(const tl_render_opts *o, const char *c);
bool tl_layout_graded(const tl_report *r);
/* short forms for table cells (raw: pass them through tl_layout_cell) */
const char *tl_layout_pred(const tl_op_grade *og, char *buf, size_t cap); /* "-" unanswered */
const char *tl_layout_actual(const tl_op_verdict *v, char *buf, size_t cap);
char *tl_layout_first_clause(const char *feedback); /* up to ". " */
char *tl_layout_reasons(const tl_question_grade *q); /* joined with "; " */
/* the evidence block of op i (first line: mark, id, op) */
void tl_layout_evidence(tl_buf *b, const tl_report *r, size_t i, const tl_render_opts *o);
char *tl_layout_op_detail(const tl_report *r, size_t i); /* the block less its first line */
char *tl_layout_op_name(const tl_report *r, size_t i);   /* "ID OP" (fitted) */
char *tl_layout_suite(const tl_report *r);               /* lab id, else the file */
void tl_layout_value_text(const tl_evidence *ev, tl_buf *b); /* one line */

#ifdef __cplusplus
}
#endif

#endif
