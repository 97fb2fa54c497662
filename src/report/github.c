/* github.c - GitHub Actions output: workflow commands on stdout
 * (`::error file=F,line=L,col=C,title=T::MESSAGE`) and a Markdown table
 * for $GITHUB_STEP_SUMMARY.
 *
 * Order and limits: GitHub shows about 10 annotations of each level per
 * step, so the summary annotation of each sheet (the final line, or the
 * located error of an unreadable sheet) comes first, then a failed tamper
 * check, then one per failed test; past TL_GITHUB_MAX_ANNOTATIONS of a level the rest are folded into
 * the first annotation's message ("and 12 more: ..."). Escaping follows
 * the runner: %25 %0D %0A in messages, plus %3A %2C in properties; file=
 * is relative to $GITHUB_WORKSPACE (else to the working directory) so the
 * annotation lands on the file in the diff; col= is always given.
 *
 * The summary is Markdown (GitHub's, CommonMark with GFM tables) and every
 * text from a sheet in it (ids, ops, titles, file names, messages) is
 * escaped: it shows as text and can make no link, image, HTML or table
 * cell of its own (issue #28: an id `![badge](https://...)` must not show
 * an external image). Cells are fitted to 60 columns; an unreadable
 * sheet's error is printed whole, in a fenced code block.
 */
#include "github.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "items.h"
#include "layout.h"
#include "util.h"

typedef struct ann {
    int level;     /* 0 error, 1 warning, 2 notice */
    char *file;    /* repo-relative */
    int line, col; /* 0: none */
    char *title;
    char *msg;
} ann;

static const char *const level_names[] = {"error", "warning", "notice"};

typedef struct anns {
    ann *v;
    size_t n;
} anns;

/* file relative to $GITHUB_WORKSPACE, else to the working directory */
static char *repo_relative(const char *file)
{
    const char *bases[2] = {getenv("GITHUB_WORKSPACE"), NULL};
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd))
        bases[1] = cwd;
    const char *f = file;
    if (f[0] == '/')
        for (int k = 0; k < 2; k++) {
            size_t bl = bases[k] ? strlen(bases[k]) : 0;
            while (bl > 1 && bases[k][bl - 1] == '/')
                bl--;
            if (bl && !strncmp(f, bases[k], bl) && f[bl] == '/') {
                f += bl + 1;
                break;
            }
        }
    while (f[0] == '.' && f[1] == '/')
        f += 2;
    return tl_xstrdup(f);
}

static void push(anns *a, int level, const char *file, int line, int col, const char *title,
                 const char *msg)
{
    a->v = tl_xrealloc(a->v, (a->n + 1) * sizeof *a->v);
    ann *x = &a->v[a->n++];
    x->level = level;
    x->file = file ? repo_relative(file) : NULL;
    x->line = line;
    x->col = line > 0 ? (col > 0 ? col : 1) : 0;
    x->title = tl_xstrdup(title);
    x->msg = tl_xstrdup(msg);
}

static void summary(anns *a, const tl_report *r)
{
    const char *sheet = tl_report_sheet(r);
    if (r->error || !r->lab) {
        push(a, 0, sheet, r->error_line > 0 ? r->error_line : 1, r->error_col,
             "tlab: unreadable sheet", r->error ? r->error : "unreadable sheet");
        return;
    }
    char *suite = tl_layout_suite(r);
    tl_buf t = {0};
    tl_buf_printf(&t, "tlab: %s", suite);
    free(suite);
    if (tl_layout_graded(r)) {
        char *fl = tl_report_final_line(r);
        push(a, r->grade->passed ? 2 : 0, sheet, 1, 1, tl_buf_str(&t), fl);
        free(fl);
    } else {
        tl_buf m = {0};
        tl_buf_printf(&m, "%zu ops run (no grading)", r->lab->nops);
        push(a, 2, sheet, 1, 1, tl_buf_str(&t), tl_buf_str(&m));
        tl_buf_free(&m);
    }
    tl_buf_free(&t);
}

static void details(anns *a, const tl_report *r)
{
    if (r->error || !r->lab)
        return;
    tl_items it;
    tl_items_build(r, &it);
    const char *sheet = tl_report_sheet(r);
    /* a failed tamper check first: it must never be folded away */
    for (size_t pass = 0; pass < 2; pass++)
    for (size_t k = 0; k < it.n; k++) {
        const tl_item *x = &it.v[k];
        if (x->kind == TL_ITEM_VERDICT || (x->graded && x->passed))
            continue;
        if ((x->kind == TL_ITEM_TAMPER) != (pass == 0))
            continue;
        int level = !x->graded ? 2 : x->unanswered ? 1 : 0;
        tl_buf t = {0}, m = {0};
        tl_buf_printf(&t, "tlab %s", x->name);
        tl_buf_puts(&m, x->message);
        if (*x->detail) {
            tl_buf_putc(&m, '\n');
            tl_buf_puts(&m, x->detail);
        }
        push(a, level, sheet, x->line, x->col, tl_buf_str(&t), tl_buf_str(&m));
        tl_buf_free(&t);
        tl_buf_free(&m);
    }
    tl_items_free(&it);
}

static void emit(tl_buf *b, const ann *x, const char *extra)
{
    tl_buf_printf(b, "::%s ", level_names[x->level]);
    if (x->file) {
        tl_buf_puts(b, "file=");
        tl_escape_gh_prop(b, x->file);
        if (x->line > 0)
            tl_buf_printf(b, ",line=%d,col=%d", x->line, x->col);
        tl_buf_putc(b, ',');
    }
    tl_buf_puts(b, "title=");
    tl_escape_gh_prop(b, x->title);
    tl_buf_puts(b, "::");
    tl_escape_gh_data(b, x->msg);
    if (extra)
        tl_escape_gh_data(b, extra);
    tl_buf_putc(b, '\n');
}

char *tl_github_render(const tl_report *rs, size_t n)
{
    anns a = {0};
    for (size_t k = 0; k < n; k++)
        summary(&a, &rs[k]);
    for (size_t k = 0; k < n; k++)
        details(&a, &rs[k]);
    /* which annotations are shown: the first TL_GITHUB_MAX_ANNOTATIONS of
     * each level; the others are named in the first annotation */
    bool *shown = tl_xcalloc(a.n ? a.n : 1, sizeof *shown);
    size_t count[3] = {0, 0, 0};
    tl_buf fold = {0};
    size_t folded = 0;
    for (size_t k = 0; k < a.n; k++) {
        shown[k] = count[a.v[k].level]++ < TL_GITHUB_MAX_ANNOTATIONS;
        if (!shown[k]) {
            if (folded < 20) {
                tl_buf_puts(&fold, folded ? "; " : "");
                tl_buf_puts(&fold, a.v[k].title);
            }
            folded++;
        }
    }
    tl_buf extra = {0};
    if (folded) {
        tl_buf_printf(&extra, "\n(%zu more not shown as annotations: %s%s)", folded,
                      tl_buf_str(&fold), folded > 20 ? "; ..." : "");
    }
    tl_buf b = {0};
    for (size_t k = 0; k < a.n; k++)
        if (shown[k])
            emit(&b, &a.v[k], k == 0 && folded ? tl_buf_str(&extra) : NULL);
    for (size_t k = 0; k < a.n; k++) {
        free(a.v[k].file);
        free(a.v[k].title);
        free(a.v[k].msg);
    }
    free(a.v);
    free(shown);
    tl_buf_free(&fold);
    tl_buf_free(&extra);
    return tl_buf_steal(&b);
}

/* ------------------------------------------------------------ summary */

/* Text as Markdown that shows exactly that text: every ASCII punctuation
 * character backslash-escaped (CommonMark allows it for all of them), so
 * no sheet text can make a link, an image, emphasis, raw HTML, an entity,
 * a code span, a heading or a table cell boundary (`\|`, which GFM's
 * table parser takes before anything else). Controls are already visible
 * escapes (tl_report_fit, tl_escape_line), whose backslash is escaped too. */
static void md_text(tl_buf *b, const char *s)
{
    for (const char *p = s; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch < 0x80 && ispunct(ch))
            tl_buf_putc(b, '\\');
        tl_buf_putc(b, *p);
    }
}

/* A table cell from sheet text: one line (a newline shows as \n), fitted
 * to 60 columns, escaped. */
static void md_cell(tl_buf *b, const char *s)
{
    char *e = tl_escape_line_dup(s);
    char *f = tl_report_fit(e, 60);
    md_text(b, f);
    free(f);
    free(e);
}

/* An op in a monospace font, its statements joined with "; ": <code>
 * keeps the Markdown inside it (escaped as above), where a `code span`
 * could not hold a backslash before a pipe without splitting the row. */
static void md_code_cell(tl_buf *b, const char *s)
{
    char *f = tl_report_fit(s, 60);
    tl_buf_puts(b, "<code>");
    md_text(b, f);
    tl_buf_puts(b, "</code>");
    free(f);
}

/* A whole multi-line message (an unreadable sheet's located error) as a
 * fenced code block, nothing cut: its lines are shown literally, controls
 * as visible escapes, and the fence is longer than any run of backticks in
 * the message, so no line of it can close the block. */
static void md_block(tl_buf *b, const char *s)
{
    tl_buf body = {0};
    size_t run = 0, longest = 0;
    for (const char *p = s; *p;) {
        size_t n = strcspn(p, "\n");
        tl_escape_line_n(&body, p, n);
        tl_buf_putc(&body, '\n');
        p += n;
        if (*p == '\n')
            p++;
    }
    while (body.len > 1 && body.data[body.len - 2] == '\n') /* trailing blank lines */
        body.data[--body.len] = '\0';
    for (size_t i = 0; i < body.len; i++) {
        run = body.data[i] == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    size_t fence = longest < 3 ? 3 : longest + 1;
    for (size_t i = 0; i < fence; i++)
        tl_buf_putc(b, '`');
    tl_buf_putc(b, '\n');
    tl_buf_puts(b, tl_buf_str(&body));
    if (!body.len)
        tl_buf_putc(b, '\n');
    for (size_t i = 0; i < fence; i++)
        tl_buf_putc(b, '`');
    tl_buf_putc(b, '\n');
    tl_buf_free(&body);
}

static void markdown(tl_buf *b, const tl_report *r)
{
    const tl_lab *lab = r->lab;
    tl_buf_puts(b, "## tlab: ");
    if (r->error || !lab) {
        md_cell(b, tl_report_sheet(r));
        tl_buf_puts(b, "\n\n**unreadable sheet, score 0**\n\n");
        md_block(b, r->error ? r->error : "unreadable sheet");
        tl_buf_puts(b, "\n");
        return;
    }
    const tl_grade *g = tl_layout_graded(r) ? r->grade : NULL;
    tl_lab_feedback fb = tl_report_feedback(r); /* lab's feedback: (tlab-lab(5)) */
    char *suite = tl_layout_suite(r);
    md_cell(b, lab->title ? lab->title : suite);
    free(suite);
    if (r->sheet_file) {
        tl_buf_puts(b, " (");
        md_cell(b, r->sheet_file);
        tl_buf_putc(b, ')');
    }
    tl_buf_puts(b, "\n\n");
    if (g && fb == TL_FEEDBACK_WRONG_OPS)
        tl_buf_puts(b, "| id | op | predicted | result |\n|---|---|---|---|\n");
    else if (g && fb == TL_FEEDBACK_FULL)
        tl_buf_puts(b, "| id | op | predicted | actual | result |\n|---|---|---|---|---|\n");
    else if (!g)
        tl_buf_puts(b, "| id | op | verdict |\n|---|---|---|\n");
    for (size_t i = 0; i < lab->nops && fb != TL_FEEDBACK_SCORE_ONLY; i++) {
        char ab[48], pb[48];
        tl_buf_puts(b, "| ");
        md_cell(b, lab->ops[i].id);
        tl_buf_puts(b, " | ");
        md_code_cell(b, lab->ops[i].op);
        tl_buf_puts(b, " | ");
        if (g) {
            md_cell(b, tl_layout_pred(&g->ops[i], pb, sizeof pb));
            tl_buf_puts(b, " | ");
            if (!g->ops[i].answered)
                tl_buf_puts(b, fb == TL_FEEDBACK_FULL ? "unanswered | \xe2\x9d\x94 |\n"
                                                      : "\xe2\x9d\x94 |\n");
            else if (fb != TL_FEEDBACK_FULL) {
                tl_buf_puts(b, g->ops[i].correct ? "\xe2\x9c\x85 |\n" : "\xe2\x9d\x8c |\n");
            } else {
                md_cell(b, tl_layout_actual(&r->verdicts[i], ab, sizeof ab));
                tl_buf_puts(b, g->ops[i].correct ? " | \xe2\x9c\x85 |\n" : " | \xe2\x9d\x8c |\n");
            }
        } else {
            md_cell(b, tl_layout_actual(&r->verdicts[i], ab, sizeof ab));
            tl_buf_puts(b, " |\n");
        }
    }
    if (g) {
        tl_items it;
        tl_items_build(r, &it);
        bool head = false;
        for (size_t k = 0; k < it.n; k++) {
            const tl_item *x = &it.v[k];
            if (x->kind == TL_ITEM_OP || x->kind == TL_ITEM_VERDICT)
                continue;
            if (!head)
                tl_buf_puts(b, "\n| check | result | points |\n|---|---|---|\n");
            head = true;
            tl_buf_puts(b, "| ");
            md_cell(b, x->name);
            tl_buf_puts(b, x->passed ? " | \xe2\x9c\x85 " : " | \xe2\x9d\x8c ");
            md_cell(b, x->message);
            tl_buf_printf(b, " | %lld/%lld |\n", (long long)x->score, (long long)x->max_score);
        }
        tl_items_free(&it);
        char *fl = tl_report_final_line(r);
        tl_buf_puts(b, "\n**");
        md_cell(b, fl);
        tl_buf_puts(b, "**\n");
        free(fl);
    }
    tl_buf_putc(b, '\n');
}

char *tl_github_markdown(const tl_report *rs, size_t n)
{
    tl_buf b = {0};
    for (size_t k = 0; k < n; k++)
        markdown(&b, &rs[k]);
    return tl_buf_steal(&b);
}
