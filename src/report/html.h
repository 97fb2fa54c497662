/* html.h - the HTML pages of `--format html` (SPEC 2): `check`'s scorecard
 * with an SVG storage picture for every op, and `grade`'s class report.
 *
 * Each page is one self-contained HTML5 document (inline CSS and SVG, no
 * script, no external URL) that is also well-formed XML. Every string that
 * came from a sheet is escaped (escape.h tl_escape_html): it can add no
 * markup, no control character and no escape sequence.
 *
 * The storage pictures come from the pictures' data of a traced verdict
 * (verdict.h job.trace: tl_verdict_storage_map, tl_verdict_gather), taken
 * at run time; tl_report_html_capture copies what a picture needs into a
 * tl_html_pic of plain arrays.
 *
 * Ownership: a tl_html_pic owns its arrays (tl_report_html_pic_free); the
 * render functions return a new string (caller frees).
 */
#ifndef TL_HTML_H
#define TL_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scorecard.h"
#include "util.h"
#include "verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Flat indices remembered per storage slot (the order of repeated reads). */
#define TL_HTML_ORDER 4

/* One storage drawn as a row of slots: the window [lo, hi) of nslots.
 * cell[k]: the flat index of the tensor drawn over it stored in slot
 * lo + k, -1 none, -2 several (tl_verdict_storage_map); reads[k]: how many
 * elements read slot lo + k; order[TL_HTML_ORDER * k ...]: the first flat
 * indices that read it (-1 padding); in_parent[k]: slot lo + k holds an
 * element of the parent. A copy's parent row: reads[k] and order count
 * the result elements gathered from slot lo + k (tl_verdict_gather), and
 * cell[k] is the parent's flat index there. from[k] (a copy's new buffer,
 * NULL without a gather trace): the parent slot that the element in slot
 * lo + k was gathered from, -1 none. */
typedef struct tl_html_row {
    int64_t nslots, lo, hi;
    int64_t *cell, *reads, *order, *from;
    int64_t *item;            /* a tuple: the item of each order entry, or NULL */
    bool *in_parent;
    bool too_large;           /* too many elements to map: slots only */
    int ndim;                 /* the dims used to wrap the row */
    int64_t shape[8], stride[8];
} tl_html_row;

typedef struct tl_html_pic {
    bool captured;            /* the picture run kept its values */
    bool shares;              /* the result reads the parent's storage */
    bool tuple;               /* a tuple: parent's row, read by its view items */
    bool have_parent, have_result;
    tl_html_row parent;       /* the parent's storage (shares: what the result reads) */
    tl_html_row result;       /* copies: the new buffer */
    char dtype[16];           /* the result's (the parent's when none) */
    char parent_dtype[16];
} tl_html_pic;

/* Fill *out from a verdict run with job.trace. Leaves out->captured false
 * when the verdict was not traced. */
void tl_report_html_capture(const tl_op_verdict *kept, tl_html_pic *out);
void tl_report_html_pic_free(tl_html_pic *p);

/* check: the scorecard page of one graded sheet (r->mode CHECK), with
 * pics[i] the picture of op i (pics may be NULL: no pictures captured);
 * an unreadable sheet (r->error) is a complete page with the located
 * error and score 0. */
char *tl_report_html_check(const tl_report *r, const tl_html_pic *pics);
/* grade: the class report over n graded submissions of one master. */
char *tl_report_html_class(const tl_report *rs, size_t n);
/* The page's head (title escaped, the shared style) and its footer, for
 * other pages (bystudent.h). */
void tl_report_html_page_open(tl_buf *b, const char *title);
void tl_report_html_page_close(tl_buf *b);

#ifdef __cplusplus
}
#endif

#endif
