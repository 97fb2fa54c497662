/* report.h - rendering tl_reports in the formats of SPEC 2: text, json,
 * junit, tap, gradescope, prairielearn, github (one file per format in
 * src/report/, dispatched by report.c), and the grade formats (csv,
 * jsonl, json records: records.h).
 *
 * Text output fits 80 columns (long ops are cut with an ellipsis). Colour
 * and the check-mark symbols appear only when `color` is set (the caller
 * decides: a tty or --color=always, never NO_COLOR with auto). Text that
 * came from a sheet is escaped in every format (escape.h).
 */
#ifndef TL_REPORT_H
#define TL_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "format.h"
#include "layout.h"
#include "output.h"
#include "scorecard.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The whole output of check/run/key in `fmt` (TL_FMT_DEFAULT = text).
 * Caller frees; NULL on OOM. */
char *tl_report_render(const tl_report *r, tl_format fmt, const tl_render_opts *o);
/* The same for n graded sheets (grade in a check format): text, tap,
 * junit, github in one document; gradescope and prairielearn as one
 * results object when n == 1, else an array of them; json: n == 1 only. */
char *tl_report_render_many(const tl_report *rs, size_t n, tl_format fmt,
                            const tl_render_opts *o);

/* GitHub: the Markdown job summary (appended to $GITHUB_STEP_SUMMARY). */
char *tl_report_markdown(const tl_report *rs, size_t n);

#ifdef __cplusplus
}
#endif

#endif
