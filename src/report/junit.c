/* junit.c - JUnit XML for check, run, grade (SPEC 2), valid against the
 * junit-10 XSD shape that Jenkins, GitLab and the test-reporter actions
 * read (tests/junit.xsd is that shape, checked with xmllint in make check).
 *
 * Layout: <testsuites> with the totals, one <testsuite name=LAB file=SHEET>
 * per graded sheet with its <properties> (scores, threshold, device,
 * tampered: the XSD allows properties on a suite, never on a test case),
 * then one <testcase> per item (items.h): a wrong op, a failed question,
 * rules or tamper check is a <failure> whose text explains it (GitLab shows
 * the text, not only message=); an unreadable sheet is one <error>, counted
 * in errors=. Test case names are unique within a suite (GitLab drops
 * duplicates). time="0": the output is deterministic.
 */
#include "junit.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "items.h"
#include "layout.h"
#include "util.h"

static void attr(tl_buf *b, const char *s) { tl_escape_xml(b, s, true); }
static void text(tl_buf *b, const char *s) { tl_escape_xml(b, s, false); }

static void property(tl_buf *b, const char *name, const char *value)
{
    tl_buf_printf(b, "      <property name=\"%s\" value=\"", name);
    attr(b, value);
    tl_buf_puts(b, "\"/>\n");
}

static void property_int(tl_buf *b, const char *name, int64_t v)
{
    char num[32];
    snprintf(num, sizeof num, "%" PRId64, v);
    property(b, name, num);
}

static const char *failure_type(const tl_item *x)
{
    switch (x->kind) {
    case TL_ITEM_OP: return x->unanswered ? "unanswered" : "wrong_prediction";
    case TL_ITEM_QUESTION: return "question";
    case TL_ITEM_RULES: return "rules";
    case TL_ITEM_TAMPER: return "tampered";
    case TL_ITEM_VERDICT: return "below_threshold";
    case TL_ITEM_ERROR: return "unreadable";
    }
    return "failure";
}

static void suite(tl_buf *b, const tl_report *r, const tl_items *it)
{
    const char *sheet = tl_report_sheet(r);
    char *sname = tl_layout_suite(r);
    size_t errors = r->error ? 1 : 0;
    size_t failures = it->failed - errors;
    tl_buf_puts(b, "  <testsuite name=\"");
    attr(b, sname);
    tl_buf_printf(b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\" "
                  "time=\"0\" file=\"", it->n, failures, errors);
    attr(b, sheet);
    tl_buf_puts(b, "\">\n    <properties>\n");
    if (r->device_used)
        property(b, "device", r->device_used);
    const tl_grade *g = tl_layout_graded(r) ? r->grade : NULL;
    if (g) {
        property_int(b, "correct", r->error ? 0 : g->correct);
        property_int(b, "total", g->total);
        property_int(b, "points", r->error ? 0 : g->points);
        property_int(b, "max_points", g->max_points);
        property_int(b, "threshold", g->threshold);
        property(b, "passed", g->passed && !r->error ? "true" : "false");
    }
    if (r->sheet_file)
        property(b, "tampered", r->nchanges ? "true" : "false");
    tl_buf_puts(b, "    </properties>\n");
    for (size_t k = 0; k < it->n; k++) {
        const tl_item *x = &it->v[k];
        tl_buf_puts(b, "    <testcase classname=\"");
        attr(b, sname);
        tl_buf_puts(b, "\" name=\"");
        attr(b, x->name);
        tl_buf_puts(b, "\" time=\"0\">\n");
        if (x->graded && !x->passed) {
            const char *el = x->kind == TL_ITEM_ERROR ? "error" : "failure";
            tl_buf_printf(b, "      <%s message=\"", el);
            attr(b, x->message);
            tl_buf_printf(b, "\" type=\"%s\">", failure_type(x));
            text(b, x->message);
            if (x->line > 0) {
                tl_buf_puts(b, "\nat ");
                text(b, sheet);
                tl_buf_printf(b, ":%d:%d", x->line, x->col > 0 ? x->col : 1);
            }
            if (*x->detail) {
                tl_buf_putc(b, '\n');
                text(b, x->detail);
            }
            tl_buf_printf(b, "</%s>\n", el);
        } else {
            tl_buf_puts(b, "      <system-out>");
            text(b, x->message);
            tl_buf_puts(b, "</system-out>\n");
        }
        tl_buf_puts(b, "    </testcase>\n");
    }
    tl_buf_puts(b, "  </testsuite>\n");
    free(sname);
}

char *tl_junit_render(const tl_report *rs, size_t n)
{
    tl_buf body = {0};
    size_t tests = 0, failures = 0, errors = 0;
    for (size_t k = 0; k < n; k++) {
        tl_items it;
        tl_items_build(&rs[k], &it);
        size_t e = rs[k].error ? 1 : 0;
        tests += it.n;
        errors += e;
        failures += it.failed - e;
        suite(&body, &rs[k], &it);
        tl_items_free(&it);
    }
    tl_buf b = {0};
    tl_buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    tl_buf_printf(&b, "<testsuites name=\"tlab\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
                  "time=\"0\">\n", tests, failures, errors);
    tl_buf_puts(&b, tl_buf_str(&body));
    tl_buf_puts(&b, "</testsuites>\n");
    tl_buf_free(&body);
    return tl_buf_steal(&b);
}
