/* tap.c - TAP version 13: the plan, one `ok`/`not ok` line per item
 * (items.h) and, under a failed test, a YAML diagnostic block
 * (message, severity, at, data) indented by two spaces.
 *
 * Descriptions are one line without controls (items are escaped once:
 * ESC is `\e`), with `#` written `\#` so a sheet's text can never become a
 * SKIP or TODO directive; a run of backslashes is doubled only before a
 * `#` (where a reader would take `\#` for the escape), so an escape such as
 * `\e` is shown once, never `\\e`. YAML values are single-quoted scalars
 * of that once-escaped text. A failed op's data says what a TAP reader
 * diffs: `found` (the student's prediction), `wanted` (the answer that
 * scores) and `verdict` (what the runtime saw), never `expect:` for the
 * student's answer (which told a student the wrong answer was expected). A single unreadable sheet is `Bail out!` with the located
 * error (the run cannot go on); with several sheets, an unreadable one is
 * a failed test so the others are still reported.
 */
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#include "items.h"
#include "layout.h"
#include "util.h"

static void desc(tl_buf *b, const char *s)
{
    while (*s) {
        if (*s == '#') {
            tl_buf_puts(b, "\\#");
            s++;
        } else if (*s == '\\') {
            size_t run = strspn(s, "\\");
            tl_buf_append(b, s, run);
            if (s[run] == '#')
                tl_buf_append(b, s, run); /* doubled: then \# is the escape */
            s += run;
        } else {
            tl_buf_putc(b, *s++);
        }
    }
}

/* single-quoted YAML scalar of a control-free line */
static void yaml_sq(tl_buf *b, const char *s)
{
    tl_buf_putc(b, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            tl_buf_puts(b, "''");
        else if (*s == '\n')
            tl_buf_puts(b, "; ");
        else
            tl_buf_putc(b, *s);
    }
    tl_buf_putc(b, '\'');
}

static void test_line(tl_buf *b, size_t num, const tl_report *r, const tl_item *x, bool prefix)
{
    bool ok = !x->graded || x->passed;
    tl_buf_printf(b, "%sok %zu - ", ok ? "" : "not ", num);
    if (prefix) {
        char *f = tl_report_fit(tl_report_sheet(r), 60);
        desc(b, f);
        tl_buf_puts(b, ": ");
        free(f);
    }
    desc(b, x->name);
    if (x->kind == TL_ITEM_OP && !x->graded) {
        tl_buf_puts(b, ": ");
        desc(b, x->message);
    } else if (x->kind == TL_ITEM_OP && !x->unanswered) {
        const tl_op_grade *og = &r->grade->ops[x->index];
        char pb[48];
        char *p = tl_report_fit(tl_layout_pred(og, pb, sizeof pb), 40);
        tl_buf_puts(b, ": predicted ");
        desc(b, p);
        free(p);
    } else if (x->kind == TL_ITEM_VERDICT) {
        tl_buf_puts(b, ": ");
        desc(b, x->message);
    }
    tl_buf_putc(b, '\n');
    if (ok)
        return;
    tl_buf_puts(b, "  ---\n  message: ");
    yaml_sq(b, x->message);
    tl_buf_puts(b, "\n  severity: fail\n");
    if (x->line > 0) {
        char *f = tl_report_fit(tl_report_sheet(r), 200);
        tl_buf_printf(b, "  at:\n    file: ");
        yaml_sq(b, f);
        tl_buf_printf(b, "\n    line: %d\n    column: %d\n", x->line, x->col > 0 ? x->col : 1);
        free(f);
    }
    tl_buf_printf(b, "  data:\n    points: %lld\n    max_points: %lld\n", (long long)x->score,
                  (long long)x->max_score);
    if (x->kind == TL_ITEM_OP && !x->unanswered && !x->withheld) { /* withheld: feedback: */
        const tl_op_verdict *v = &r->verdicts[x->index];
        const tl_op_grade *og = &r->grade->ops[x->index];
        char *p = tl_report_fit(og->predicted, 200);
        tl_buf_puts(b, "    found: ");
        yaml_sq(b, p);
        tl_buf_puts(b, "\n    wanted: ");
        yaml_sq(b, tl_scorecard_key_answer(v));
        tl_buf_puts(b, "\n    verdict: ");
        yaml_sq(b, tl_kind_name(v->ev.kind));
        free(p);
        if (v->ev.reason) {
            char *rs = tl_report_fit(v->ev.reason, 400);
            tl_buf_puts(b, "\n    rule: ");
            yaml_sq(b, rs);
            free(rs);
        }
        tl_buf_putc(b, '\n');
    } else if (*x->detail) {
        tl_buf_puts(b, "    detail: ");
        yaml_sq(b, x->detail);
        tl_buf_putc(b, '\n');
    }
    tl_buf_puts(b, "  ...\n");
}

char *tl_tap_render(const tl_report *rs, size_t n)
{
    tl_buf b = {0};
    tl_buf_puts(&b, "TAP version 13\n");
    if (n == 1 && (rs[0].error || !rs[0].lab)) {
        char *e = tl_report_fit(rs[0].error ? rs[0].error : "unreadable sheet", 400);
        tl_buf_puts(&b, "Bail out! ");
        desc(&b, e);
        tl_buf_putc(&b, '\n');
        free(e);
        return tl_buf_steal(&b);
    }
    tl_items *its = tl_xcalloc(n ? n : 1, sizeof *its);
    size_t total = 0;
    for (size_t k = 0; k < n; k++) {
        tl_items_build(&rs[k], &its[k]);
        total += its[k].n;
    }
    tl_buf_printf(&b, "1..%zu\n", total);
    size_t num = 0;
    for (size_t k = 0; k < n; k++) {
        for (size_t j = 0; j < its[k].n; j++)
            test_line(&b, ++num, &rs[k], &its[k].v[j], n > 1);
        if (rs[k].grade && rs[k].mode == TL_REPORT_CHECK) {
            char *fl = tl_report_final_line(&rs[k]);
            tl_buf_printf(&b, "# %s\n", fl);
            free(fl);
        }
        tl_items_free(&its[k]);
    }
    free(its);
    return tl_buf_steal(&b);
}
