/* report.h - rendering a tl_report in every format of SPEC 2 (text, json,
 * junit, tap, gradescope, prairielearn, github), the `explain` page, and
 * the atomic output writer.
 *
 * Text output fits 80 columns (long ops are cut with an ellipsis). Colour
 * and the check-mark symbols appear only when `color` is set (the caller
 * decides: a tty or --color=always, never NO_COLOR with auto).
 */
#ifndef TL_REPORT_H
#define TL_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "scorecard.h"
#include "verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_render_opts {
    bool color;   /* ANSI colour and the check-mark symbols */
    bool quiet;   /* text: only the final line */
} tl_render_opts;

#define TL_REPORT_WIDTH 80

/* The whole output of check/run/key in `fmt` (TL_FMT_DEFAULT = text).
 * Caller frees; NULL on OOM. */
char *tl_report_render(const tl_report *r, tl_format fmt, const tl_render_opts *o);

/* GitHub: the Markdown job summary (appended to $GITHUB_STEP_SUMMARY). */
char *tl_report_markdown(const tl_report *r);

/* The final line: "17/20 correct (threshold 16) - PASS". */
char *tl_report_final_line(const tl_report *r);

/* `tlab explain`: the text page for one verdict. stmts/expr are shown. */
char *tl_report_explain(const char *const *stmts, size_t nstmts, const char *expr,
                        const char *parent_name, const tl_op_verdict *v,
                        const char *device_used, const tl_render_opts *o);
/* The same as JSON (caller frees). */
char *tl_report_explain_json(const char *const *stmts, size_t nstmts, const char *expr,
                             const char *parent_name, const tl_op_verdict *v,
                             const char *device_requested, const char *device_used);

/* Cut s to at most `cols` display columns (UTF-8 aware), ending in "…"
 * when cut; newlines become "; ". Returns a new string. */
char *tl_report_fit(const char *s, size_t cols);

/* Write data to path atomically (temp file in the same directory, then
 * rename), or to stdout when path is NULL or "-". 0, or -1 with a message
 * in errbuf; on failure no file is left behind. */
int tl_output_write(const char *path, const char *data, size_t len, char *errbuf,
                    size_t errcap);

#ifdef __cplusplus
}
#endif

#endif
