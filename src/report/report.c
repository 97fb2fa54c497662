/* report.c - the format dispatcher: each format lives in its own file
 * (text.c, scorecard.c for JSON, junit.c, tap.c, gradescope.c,
 * prairielearn.c, github.c, html.c; records.c for the grade-only formats), all
 * built on layout.c and, for per-test formats, items.c.
 */
#include "report.h"

#include <stdlib.h>

#include "github.h"
#include "gradescope.h"
#include "html.h"
#include "junit.h"
#include "prairielearn.h"
#include "tap.h"
#include "text.h"
#include "util.h"

char *tl_report_render_many(const tl_report *rs, size_t n, tl_format fmt,
                            const tl_render_opts *o)
{
    switch (fmt) {
    case TL_FMT_JSON:
        return n == 1 ? tl_scorecard_print(&rs[0]) : NULL;
    case TL_FMT_GRADESCOPE:
        return tl_gradescope_render(rs, n);
    case TL_FMT_PRAIRIELEARN:
        return tl_prairielearn_render(rs, n);
    case TL_FMT_JUNIT:
        return tl_junit_render(rs, n);
    case TL_FMT_TAP:
        return tl_tap_render(rs, n);
    case TL_FMT_GITHUB:
        return tl_github_render(rs, n);
    case TL_FMT_HTML: /* without storage pictures (commands.c captures them) */
        return n == 1 ? tl_report_html_check(&rs[0], NULL) : tl_report_html_class(rs, n);
    default:
        return tl_text_render(rs, n, o);
    }
}

char *tl_report_render(const tl_report *r, tl_format fmt, const tl_render_opts *o)
{
    return tl_report_render_many(r, 1, fmt, o);
}

char *tl_report_markdown(const tl_report *rs, size_t n)
{
    return tl_github_markdown(rs, n);
}
