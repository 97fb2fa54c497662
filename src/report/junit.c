/* junit.c - JUnit XML for check, run, grade (SPEC 2), valid against the
 * junit-10 XSD shape that Jenkins, GitLab and the test-reporter actions
 * read (tests/junit.xsd is that shape, checked with xmllint in make check).
 *
 * Layout: <testsuites> with the totals, one <testsuite name=SUITE> per
 * graded sheet with its <properties> (the sheet's file, scores, threshold,
 * device, tampered: the XSD allows properties on a suite, never on a test
 * case; and Maven Surefire's XSD, tests/surefire.xsd, allows no file= on
 * a suite),
 * then one <testcase> per item (items.h): a wrong op, a failed question,
 * rules or tamper check is a <failure> whose text explains it (GitLab shows
 * the text, not only message=); an unreadable sheet is one <error>, counted
 * in errors=. Test case names are unique within a suite (GitLab drops
 * duplicates). time="0": the output is deterministic.
 *
 * SUITE, also every test case's classname, names the submission when a
 * sheet is graded against a master (grade, check --lab): LAB.STEM, the
 * file's name without its extension (dots made '_', so CI tools that split
 * a classname on dots see LAB and the sheet), or, when two sheets of one
 * document share a stem (a/lab01.yaml, b/lab01.yaml), LAB.DIR.STEM from
 * the whole path. Otherwise the lab's id: CI tools no longer merge every
 * student's "1 x[1:]" into one test.
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
    case TL_ITEM_CLASSIFY: return "classify";
    case TL_ITEM_TAMPER: return "tampered";
    case TL_ITEM_VERDICT: return "below_threshold";
    case TL_ITEM_ERROR: return "unreadable";
    }
    return "failure";
}

/* One path component of a suite name: dots made '_' (the last one, the
 * file's name, without its extension). */
static void name_part(tl_buf *b, const char *p, size_t n, bool last)
{
    if (last) {
        const char *dot = NULL;
        for (size_t i = 1; i < n; i++)
            if (p[i] == '.')
                dot = p + i;
        if (dot)
            n = (size_t)(dot - p);
    }
    for (size_t i = 0; i < n; i++)
        tl_buf_putc(b, p[i] == '.' ? '_' : p[i]);
}

/* The suite's name for report r (see the header); whole: from the whole
 * path. Caller frees. */
static char *suite_name(const tl_report *r, bool whole)
{
    if (!r->sheet_file)
        return tl_layout_suite(r);
    tl_buf b = {0};
    tl_buf_puts(&b, r->lab && r->lab->id ? r->lab->id : "tlab");
    const char *f = r->sheet_file;
    const char *base = strrchr(f, '/');
    base = base ? base + 1 : f;
    const char *p = whole ? f : base;
    while (*p) {
        size_t n = strcspn(p, "/");
        if (n && !(n == 1 && *p == '.')) {
            tl_buf_putc(&b, '.');
            name_part(&b, p, n, p + n >= base);
        }
        p += n + (p[n] == '/');
    }
    char *out = tl_report_fit(tl_buf_str(&b), 120);
    tl_buf_free(&b);
    return out;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

/* names[k] for rs[k]: suite_name, from the whole path for the sheets whose
 * stem another sheet of the document shares (sorted, so O(n log n)). */
static char **suite_names(const tl_report *rs, size_t n)
{
    char **names = tl_xcalloc(n ? n : 1, sizeof *names);
    char ***ix = tl_xcalloc(n ? n : 1, sizeof *ix);
    for (size_t k = 0; k < n; k++) {
        names[k] = suite_name(&rs[k], false);
        ix[k] = &names[k];
    }
    qsort(ix, n, sizeof *ix, by_name);
    bool *dup = tl_xcalloc(n ? n : 1, sizeof *dup);
    for (size_t a = 0; a < n;) {
        size_t b = a + 1;
        while (b < n && !strcmp(*ix[a], *ix[b]))
            b++;
        for (size_t k = a; b - a > 1 && k < b; k++)
            dup[ix[k] - names] = true;
        a = b;
    }
    for (size_t k = 0; k < n; k++)
        if (dup[k] && rs[k].sheet_file) {
            free(names[k]);
            names[k] = suite_name(&rs[k], true);
        }
    free(dup);
    free(ix);
    return names;
}

static void suite(tl_buf *b, const tl_report *r, const tl_items *it, const char *sname)
{
    const char *sheet = tl_report_sheet(r);
    size_t errors = r->error ? 1 : 0;
    size_t failures = it->failed - errors;
    tl_buf_puts(b, "  <testsuite name=\"");
    attr(b, sname);
    tl_buf_printf(b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\" "
                  "time=\"0\">\n    <properties>\n", it->n, failures, errors);
    property(b, "file", sheet);
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
}

char *tl_junit_render(const tl_report *rs, size_t n)
{
    tl_buf body = {0};
    size_t tests = 0, failures = 0, errors = 0;
    char **names = suite_names(rs, n);
    for (size_t k = 0; k < n; k++) {
        tl_items it;
        tl_items_build(&rs[k], &it);
        size_t e = rs[k].error ? 1 : 0;
        tests += it.n;
        errors += e;
        failures += it.failed - e;
        suite(&body, &rs[k], &it, names[k]);
        tl_items_free(&it);
        free(names[k]);
    }
    free(names);
    tl_buf b = {0};
    tl_buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    tl_buf_printf(&b, "<testsuites name=\"tlab\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
                  "time=\"0\">\n", tests, failures, errors);
    tl_buf_puts(&b, tl_buf_str(&body));
    tl_buf_puts(&b, "</testsuites>\n");
    tl_buf_free(&body);
    return tl_buf_steal(&b);
}
