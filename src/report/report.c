/* report.c - every human and machine report of check/run/key/explain.
 *
 * Text: one aligned row per op (id, op, predicted, actual, mark) fitted to
 * 80 columns, then an evidence block for each wrong op (parent and result
 * strides/offsets, same storage or not, the rule that decided it, the
 * instructor's explanation), the questions, and the final line
 * `17/20 correct (threshold 16) - PASS`. Unanswered ops show "unanswered"
 * and nothing else: no format reveals a verdict before it is predicted.
 *
 * Machine formats (junit, tap, gradescope, prairielearn, github) carry the
 * same facts; JSON is scorecard.c. Output is deterministic (time="0").
 * The atomic writer puts a temp file next to the target and renames it.
 */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dtype.h"
#include "grade.h"
#include "tensor.h"
#include "util.h"

#define C_RED "\033[31m"
#define C_GREEN "\033[32m"
#define C_YELLOW "\033[33m"
#define C_BOLD "\033[1m"
#define C_DIM "\033[2m"
#define C_OFF "\033[0m"

/* ------------------------------------------------------------ helpers */

static size_t u8_cols(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            n++;
    return n;
}

char *tl_report_fit(const char *s, size_t cols)
{
    tl_buf flat = {0};
    for (const char *p = s; *p; p++) {
        if (*p == '\n') {
            /* drop trailing newlines, join statements with "; " */
            const char *q = p;
            while (*q == '\n' || *q == ' ' || *q == '\r')
                q++;
            if (*q)
                tl_buf_puts(&flat, "; ");
            p = q - 1;
        } else if (*p == '\t' || *p == '\r') {
            tl_buf_putc(&flat, ' ');
        } else {
            tl_buf_putc(&flat, *p);
        }
    }
    const char *f = tl_buf_str(&flat);
    if (u8_cols(f) <= cols) {
        char *r = tl_xstrdup(f);
        tl_buf_free(&flat);
        return r;
    }
    tl_buf out = {0};
    size_t c = 0;
    for (const char *p = f; *p; p++) {
        if (((unsigned char)*p & 0xC0) != 0x80) {
            if (c + 1 >= cols)
                break;
            c++;
        }
        tl_buf_putc(&out, *p);
    }
    tl_buf_puts(&out, "\xe2\x80\xa6");
    tl_buf_free(&flat);
    return tl_buf_steal(&out);
}

/* append s padded to `cols` display columns */
static void pad(tl_buf *b, const char *s, size_t cols)
{
    tl_buf_puts(b, s);
    for (size_t c = u8_cols(s); c < cols; c++)
        tl_buf_putc(b, ' ');
}

static void fitpad(tl_buf *b, const char *s, size_t cols)
{
    char *f = tl_report_fit(s, cols);
    pad(b, f, cols);
    free(f);
}

/* one table cell: s fitted and padded to `cols`, then the column gap */
static void cell(tl_buf *b, const char *s, size_t cols)
{
    fitpad(b, s, cols);
    tl_buf_puts(b, "  ");
}

static void trim_line_end(tl_buf *b)
{
    while (b->len > 0 && b->data[b->len - 1] == ' ')
        b->data[--b->len] = 0;
}

static void put_tuple(tl_buf *b, const int64_t *v, int n)
{
    tl_buf_putc(b, '(');
    for (int i = 0; i < n; i++)
        tl_buf_printf(b, "%s%" PRId64, i ? ", " : "", v[i]);
    tl_buf_puts(b, n == 1 ? ",)" : ")");
}

/* word-wrap `text` at width, first line after `lead` (already in b),
 * continuation lines indented by `indent` spaces */
static void wrap(tl_buf *b, const char *text, size_t lead, size_t indent, size_t width)
{
    size_t col = lead;
    const char *p = text;
    bool first = true;
    while (*p) {
        while (*p == ' ' || *p == '\n')
            p++;
        if (!*p)
            break;
        const char *e = p;
        while (*e && *e != ' ' && *e != '\n')
            e++;
        size_t wl = 0;
        for (const char *q = p; q < e; q++)
            if (((unsigned char)*q & 0xC0) != 0x80)
                wl++;
        if (!first && col + 1 + wl > width) {
            tl_buf_putc(b, '\n');
            for (size_t i = 0; i < indent; i++)
                tl_buf_putc(b, ' ');
            col = indent;
        } else if (!first) {
            tl_buf_putc(b, ' ');
            col++;
        }
        tl_buf_append(b, p, (size_t)(e - p));
        col += wl;
        first = false;
        p = e;
    }
    tl_buf_putc(b, '\n');
}

static const char *col_on(const tl_render_opts *o, const char *c) { return o->color ? c : ""; }

static bool graded(const tl_report *r) { return r->mode == TL_REPORT_CHECK && r->grade; }

static const char *pred_short(const tl_prediction *p, char *buf, size_t cap)
{
    if (!p || p->blank)
        return "-";
    if (!p->mapping)
        return p->text;
    snprintf(buf, cap, "%s {\xe2\x80\xa6}", p->kind ? tl_kind_name(p->kind) : "fields");
    return buf;
}

static const char *actual_short(const tl_op_verdict *v, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s", tl_kind_name(v->ev.kind), v->sometimes ? "*" : "");
    return buf;
}

char *tl_report_final_line(const tl_report *r)
{
    tl_buf b = {0};
    const tl_grade *g = r->grade;
    tl_buf_printf(&b, "%" PRId64 "/%" PRId64 " correct (threshold %" PRId64 ") - %s",
                  g->correct, g->total, g->threshold, g->passed ? "PASS" : "FAIL");
    if (!g->passed && g->correct >= g->threshold) {
        if (!g->questions_passed && !g->rules_passed)
            tl_buf_puts(&b, " (questions and rules)");
        else if (!g->questions_passed)
            tl_buf_puts(&b, " (questions)");
        else
            tl_buf_puts(&b, " (rules)");
    }
    return tl_buf_steal(&b);
}

/* The first clause of an op's feedback (up to ". "): what was wrong. */
static char *first_clause(const char *feedback)
{
    const char *dot = strstr(feedback, ". ");
    return dot ? tl_xstrndup(feedback, (size_t)(dot - feedback)) : tl_xstrdup(feedback);
}

/* A question's reasons joined with "; " (caller frees). */
static char *question_reasons(const tl_question_grade *q)
{
    tl_buf t = {0};
    for (size_t k = 0; k < q->nreasons; k++)
        tl_buf_printf(&t, "%s%s", k ? "; " : "", q->reasons[k]);
    return tl_buf_steal(&t);
}

static void describe_tensor(tl_buf *b, const char *label, int ndim, const int64_t *shape,
                            const int64_t *stride, int64_t offset, bool contig)
{
    tl_buf_printf(b, "    %-8s shape ", label);
    put_tuple(b, shape, ndim);
    tl_buf_puts(b, "  stride ");
    put_tuple(b, stride, ndim);
    tl_buf_printf(b, "  offset %" PRId64 "  %s\n", offset,
                  contig ? "contiguous" : "non-contiguous");
}

static void evidence_block(tl_buf *b, const tl_report *r, size_t i, const tl_render_opts *o)
{
    const tl_lab_op *op = &r->lab->ops[i];
    const tl_op_verdict *v = &r->verdicts[i];
    const tl_evidence *ev = &v->ev;
    size_t idw = strlen(op->id);
    tl_buf_printf(b, "%s%s%s %s  ", col_on(o, C_RED), o->color ? "\xe2\x9c\x97" : "x",
                  col_on(o, C_OFF), op->id);
    char *f = tl_report_fit(op->op, TL_REPORT_WIDTH - 4 - idw);
    tl_buf_printf(b, "%s%s%s\n", col_on(o, C_BOLD), f, col_on(o, C_OFF));
    free(f);
    if (graded(r) && r->grade->ops[i].feedback) {
        char *first = first_clause(r->grade->ops[i].feedback);
        tl_buf_puts(b, "    ");
        wrap(b, first, 4, 4, TL_REPORT_WIDTH);
        free(first);
    }
    if (v->have_parent)
        describe_tensor(b, "parent", v->parent_ndim, v->parent_shape, v->parent_stride,
                        v->parent_offset, v->parent_contiguous);
    if (ev->is_tensor) {
        describe_tensor(b, "result", ev->ndim, ev->shape, ev->stride, ev->offset,
                        ev->contiguous);
        tl_buf t = {0};
        tl_buf_printf(&t, "same storage: %s; same object: %s; write-through: %s; "
                      "%" PRId64 " bytes allocated",
                      ev->shares_storage ? "yes" : "no", ev->same_object ? "yes" : "no",
                      ev->write_through < 0 ? "n/a" : ev->write_through ? "yes" : "no",
                      ev->bytes_allocated);
        tl_buf_printf(b, "    %-8s ", "storage");
        wrap(b, tl_buf_str(&t), 13, 13, TL_REPORT_WIDTH);
        tl_buf_free(&t);
    } else if (ev->kind == TL_KIND_ERROR) {
        tl_buf b2 = {0};
        tl_buf_printf(&b2, "%s: %s", ev->err_type, ev->err_msg);
        tl_buf_printf(b, "    %-8s ", "raised");
        wrap(b, tl_buf_str(&b2), 13, 13, TL_REPORT_WIDTH);
        tl_buf_free(&b2);
    } else if (ev->is_tuple) {
        tl_buf_printf(b, "    %-8s a %s of %zu results; shares storage: %s\n", "result",
                      ev->value_type ? ev->value_type : "tuple", ev->nitems_total,
                      ev->shares_storage ? "yes" : "no");
    } else if (ev->value) {
        char *s = cJSON_PrintUnformatted(ev->value);
        char *fs = tl_report_fit(s ? s : "?", TL_REPORT_WIDTH - 13);
        tl_buf_printf(b, "    %-8s %s\n", "value", fs);
        free(fs);
        cJSON_free(s);
    }
    if (ev->reason) {
        tl_buf_printf(b, "    %-8s ", "rule");
        wrap(b, ev->reason, 13, 13, TL_REPORT_WIDTH);
    }
    if (v->nvariants) {
        tl_buf b2 = {0};
        for (size_t k = 0; k < v->nvariants; k++)
            tl_buf_printf(&b2, "%s%s: %s", k ? ", " : "", v->variants[k].parent,
                          tl_kind_name(v->variants[k].kind));
        if (v->sometimes)
            tl_buf_puts(&b2, " (sometimes)");
        tl_buf_printf(b, "    %-8s ", "variants");
        wrap(b, tl_buf_str(&b2), 13, 13, TL_REPORT_WIDTH);
        tl_buf_free(&b2);
    }
    if (op->explanation) {
        tl_buf_printf(b, "    %-8s ", "why");
        wrap(b, op->explanation, 13, 13, TL_REPORT_WIDTH);
    }
}

/* ---------------------------------------------------------------- text */

static size_t id_width(const tl_report *r)
{
    size_t w = 2;
    for (size_t i = 0; i < r->lab->nops; i++) {
        size_t l = u8_cols(r->lab->ops[i].id);
        if (l > w)
            w = l;
    }
    return w > 8 ? 8 : w;
}

static void header(tl_buf *b, const tl_report *r, const tl_render_opts *o)
{
    const tl_lab *lab = r->lab;
    tl_buf h = {0};
    if (lab->id)
        tl_buf_printf(&h, "%s", lab->id);
    if (lab->title)
        tl_buf_printf(&h, "%s%s", h.len ? ": " : "", lab->title);
    if (h.len) {
        char *f = tl_report_fit(tl_buf_str(&h), TL_REPORT_WIDTH);
        tl_buf_printf(b, "%s%s%s\n", col_on(o, C_BOLD), f, col_on(o, C_OFF));
        free(f);
    }
    tl_buf_free(&h);
    tl_buf_printf(&h, "%s, device %s", lab->file, r->device_used);
    char *f = tl_report_fit(tl_buf_str(&h), TL_REPORT_WIDTH);
    tl_buf_printf(b, "%s\n\n", f);
    free(f);
    tl_buf_free(&h);
}

static void text_check(tl_buf *b, const tl_report *r, const tl_render_opts *o)
{
    const tl_lab *lab = r->lab;
    const tl_grade *g = r->grade;
    if (!o->quiet) {
        header(b, r, o);
        size_t idw = id_width(r), pw = 11, aw = 11, mw = 5;
        size_t opw = TL_REPORT_WIDTH - idw - pw - aw - mw - 8;
        cell(b, "id", idw);
        cell(b, "op", opw);
        cell(b, "predicted", pw);
        tl_buf_puts(b, "actual");
        tl_buf_putc(b, '\n');
        bool star = false;
        for (size_t i = 0; i < lab->nops; i++) {
            const tl_op_grade *og = &g->ops[i];
            char pb[48], ab[48];
            cell(b, lab->ops[i].id, idw);
            cell(b, lab->ops[i].op, opw);
            cell(b, pred_short(og->pred, pb, sizeof pb), pw);
            if (!og->answered) {
                tl_buf_printf(b, "%s", col_on(o, C_YELLOW));
                pad(b, "unanswered", aw);
                tl_buf_printf(b, "%s  %s", col_on(o, C_OFF), o->color ? "?" : "-");
            } else {
                star |= r->verdicts[i].sometimes;
                cell(b, actual_short(&r->verdicts[i], ab, sizeof ab), aw);
                if (og->correct)
                    tl_buf_printf(b, "%s%s%s", col_on(o, C_GREEN),
                                  o->color ? "\xe2\x9c\x93" : "ok", col_on(o, C_OFF));
                else
                    tl_buf_printf(b, "%s%s%s", col_on(o, C_RED),
                                  o->color ? "\xe2\x9c\x97" : "wrong", col_on(o, C_OFF));
            }
            trim_line_end(b);
            tl_buf_putc(b, '\n');
        }
        if (star)
            tl_buf_puts(b, "* the verdict changes across parent variants (sometimes)\n");
        bool any_wrong = false;
        for (size_t i = 0; i < lab->nops; i++)
            if (g->ops[i].answered && !g->ops[i].correct) {
                if (!any_wrong)
                    tl_buf_printf(b, "\n%sWrong predictions%s\n\n", col_on(o, C_BOLD),
                                  col_on(o, C_OFF));
                else
                    tl_buf_putc(b, '\n');
                any_wrong = true;
                evidence_block(b, r, i, o);
            }
        if (g->unanswered) {
            tl_buf t = {0};
            tl_buf_printf(&t, "Unanswered (%zu):", g->unanswered);
            for (size_t i = 0; i < lab->nops; i++)
                if (!g->ops[i].answered)
                    tl_buf_printf(&t, " %s", lab->ops[i].id);
            tl_buf_putc(b, '\n');
            wrap(b, tl_buf_str(&t), 0, 4, TL_REPORT_WIDTH);
            tl_buf_free(&t);
        }
        if (!g->rules_passed) {
            tl_buf_printf(b, "\n%sRules%s\n", col_on(o, C_BOLD), col_on(o, C_OFF));
            for (size_t i = 0; i < lab->nops; i++)
                if (g->ops[i].rule_problem) {
                    tl_buf t = {0};
                    tl_buf_printf(&t, "op %s: %s", lab->ops[i].id, g->ops[i].rule_problem);
                    tl_buf_puts(b, "  ");
                    wrap(b, tl_buf_str(&t), 2, 4, TL_REPORT_WIDTH);
                    tl_buf_free(&t);
                }
        }
        if (lab->nquestions) {
            tl_buf_printf(b, "\n%sQuestions%s\n", col_on(o, C_BOLD), col_on(o, C_OFF));
            for (size_t i = 0; i < lab->nquestions; i++) {
                const tl_question_grade *q = &g->questions[i];
                tl_buf t = {0};
                tl_buf_printf(&t, "%s  %s", lab->questions[i].id, q->passed ? "pass" : "FAIL");
                for (size_t k = 0; k < q->nreasons; k++)
                    tl_buf_printf(&t, "%s%s", k ? "; " : ": ", q->reasons[k]);
                tl_buf_printf(b, "  %s", q->passed ? col_on(o, C_GREEN) : col_on(o, C_RED));
                wrap(b, tl_buf_str(&t), 2, 6, TL_REPORT_WIDTH);
                if (o->color) {
                    /* close the colour before the newline wrap() wrote */
                    b->data[--b->len] = 0;
                    tl_buf_printf(b, "%s\n", C_OFF);
                }
                tl_buf_free(&t);
            }
        }
        if (g->classify.offered) {
            const tl_classify_grade *cg = &g->classify;
            tl_buf_printf(b, "\n%sStretch: classify()%s  %s%s%s (%" PRId64 "/%" PRId64
                          " points, not counted toward the threshold)\n",
                          col_on(o, C_BOLD), col_on(o, C_OFF),
                          cg->passed ? col_on(o, C_GREEN) : col_on(o, C_RED),
                          !cg->answered ? "not answered" : cg->passed ? "pass" : "FAIL",
                          col_on(o, C_OFF), cg->score, cg->points);
            if (cg->answered)
                tl_buf_printf(b, "  %zu results classified, %zu wrong or failed\n", cg->checked,
                              cg->nproblems);
            for (size_t k = 0; k < cg->nproblems; k++) {
                tl_buf_puts(b, "  ");
                wrap(b, cg->problems[k], 2, 4, TL_REPORT_WIDTH);
            }
        }
        tl_buf_putc(b, '\n');
        if (g->points != g->correct || g->max_points != g->total)
            tl_buf_printf(b, "points %" PRId64 "/%" PRId64 "\n", g->points, g->max_points);
    }
    char *fl = tl_report_final_line(r);
    tl_buf_printf(b, "%s%s%s%s\n", col_on(o, C_BOLD),
                  g->passed ? col_on(o, C_GREEN) : col_on(o, C_RED), fl, col_on(o, C_OFF));
    free(fl);
}

static void value_text(const tl_evidence *ev, tl_buf *b)
{
    if (ev->kind == TL_KIND_ERROR) {
        tl_buf_printf(b, "%s: %s", ev->err_type, ev->err_msg);
    } else if (ev->is_tuple) {
        tl_buf_printf(b, "%zu results", ev->nitems_total);
    } else if (ev->value) {
        char *s = tl_scorecard_print_json(ev->value);
        if (s) {
            /* one line: drop the indentation newlines of nested values */
            for (const char *p = s; *p; p++) {
                if (*p == '\n') {
                    while (p[1] == ' ')
                        p++;
                    continue;
                }
                tl_buf_putc(b, *p);
            }
        }
        free(s);
    }
}

static void text_run(tl_buf *b, const tl_report *r, const tl_render_opts *o, bool key)
{
    const tl_lab *lab = r->lab;
    header(b, r, o);
    size_t idw = id_width(r);
    if (key) {
        size_t aw = 10, nw = 38;
        size_t opw = TL_REPORT_WIDTH - idw - aw - nw - 6;
        cell(b, "id", idw);
        cell(b, "op", opw);
        pad(b, "answer", aw);
        tl_buf_puts(b, "  notes\n");
        for (size_t i = 0; i < lab->nops; i++) {
            const tl_op_verdict *v = &r->verdicts[i];
            const tl_lab_op *op = &lab->ops[i];
            cell(b, op->id, idw);
            cell(b, op->op, opw);
            cell(b, tl_scorecard_key_answer(v), aw);
            tl_buf n = {0};
            if (v->sometimes) {
                tl_buf_printf(&n, "%s as given", tl_kind_name(v->ev.kind));
                for (size_t k = 0; k < v->nvariants; k++)
                    if (v->variants[k].kind != v->ev.kind)
                        tl_buf_printf(&n, "; %s: %s", v->variants[k].parent,
                                      tl_kind_name(v->variants[k].kind));
            } else if (v->ev.kind == TL_KIND_ALIAS) {
                tl_buf_puts(&n, "view also scores");
            } else if (v->ev.kind == TL_KIND_ERROR) {
                tl_buf_puts(&n, v->ev.err_type);
            }
            if (op->has_accept) {
                tl_buf_printf(&n, "%saccept:", n.len ? "; " : "");
                for (int kd = TL_KIND_VIEW; kd <= TL_KIND_VALUE; kd++)
                    if ((op->accept >> kd) & 1u)
                        tl_buf_printf(&n, " %s", tl_kind_name((tl_kind)kd));
            }
            /* notes that do not fit go on their own lines, wrapped */
            size_t col = idw + opw + aw + 6;
            if (u8_cols(tl_buf_str(&n)) <= TL_REPORT_WIDTH - col)
                tl_buf_puts(b, tl_buf_str(&n));
            else if (n.len) {
                trim_line_end(b);
                tl_buf_puts(b, "\n    ");
                wrap(b, tl_buf_str(&n), 4, 4, TL_REPORT_WIDTH);
                b->data[--b->len] = 0;
            }
            tl_buf_free(&n);
            trim_line_end(b);
            tl_buf_putc(b, '\n');
        }
        return;
    }
    size_t kw = 10, sw = 11, tw = 11, fw = 6;
    size_t opw = TL_REPORT_WIDTH - idw - kw - sw - tw - fw - 10;
    cell(b, "id", idw);
    cell(b, "op", opw);
    cell(b, "verdict", kw);
    cell(b, "shape", sw);
    pad(b, "stride", tw);
    tl_buf_puts(b, "  offset\n");
    bool star = false;
    for (size_t i = 0; i < lab->nops; i++) {
        const tl_op_verdict *v = &r->verdicts[i];
        const tl_evidence *ev = &v->ev;
        char ab[48];
        cell(b, lab->ops[i].id, idw);
        cell(b, lab->ops[i].op, opw);
        cell(b, actual_short(v, ab, sizeof ab), kw);
        star |= v->sometimes;
        if (ev->is_tensor) {
            tl_buf t = {0};
            put_tuple(&t, ev->shape, ev->ndim);
            fitpad(b, tl_buf_str(&t), sw);
            tl_buf_free(&t);
            tl_buf_puts(b, "  ");
            put_tuple(&t, ev->stride, ev->ndim);
            fitpad(b, tl_buf_str(&t), tw);
            tl_buf_free(&t);
            tl_buf_printf(b, "  %" PRId64, ev->offset);
        } else {
            tl_buf t = {0};
            value_text(ev, &t);
            fitpad(b, tl_buf_str(&t), sw + tw + fw + 4);
            tl_buf_free(&t);
        }
        trim_line_end(b);
        tl_buf_putc(b, '\n');
    }
    if (star)
        tl_buf_puts(b, "* the verdict changes across parent variants (sometimes)\n");
}

/* ---------------------------------------------------------------- junit */

static void xml_esc(tl_buf *b, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '<': tl_buf_puts(b, "&lt;"); break;
        case '>': tl_buf_puts(b, "&gt;"); break;
        case '&': tl_buf_puts(b, "&amp;"); break;
        case '"': tl_buf_puts(b, "&quot;"); break;
        case '\n': tl_buf_puts(b, "&#10;"); break;
        default:
            if (c < 0x20 && c != '\t')
                tl_buf_putc(b, ' ');
            else
                tl_buf_putc(b, (char)c);
        }
    }
}

static void xml_text(tl_buf *b, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '<')
            tl_buf_puts(b, "&lt;");
        else if (c == '>')
            tl_buf_puts(b, "&gt;");
        else if (c == '&')
            tl_buf_puts(b, "&amp;");
        else if (c < 0x20 && c != '\n' && c != '\t')
            tl_buf_putc(b, ' ');
        else
            tl_buf_putc(b, (char)c);
    }
}

/* Plain-text detail of op i for machine formats (never for hidden ops). */
static char *op_detail(const tl_report *r, size_t i)
{
    tl_render_opts plain = {0};
    tl_buf b = {0};
    evidence_block(&b, r, i, &plain);
    /* drop the first line (the op itself) */
    const char *s = tl_buf_str(&b);
    const char *nl = strchr(s, '\n');
    char *out = tl_xstrdup(nl ? nl + 1 : s);
    tl_buf_free(&b);
    return out;
}

static char *op_name(const tl_report *r, size_t i)
{
    tl_buf b = {0};
    char *f = tl_report_fit(r->lab->ops[i].op, 60);
    tl_buf_printf(&b, "%s %s", r->lab->ops[i].id, f);
    free(f);
    return tl_buf_steal(&b);
}

static const char *suite_name(const tl_report *r)
{
    return r->lab->id ? r->lab->id : r->lab->file;
}

/* `<testcase classname="SUITE<suffix>" name=... file=... line=... time="0"`,
 * left open for the caller's "/>" or ">" */
static void testcase_open(tl_buf *b, const tl_report *r, const char *suffix,
                          const char *name, int line)
{
    tl_buf_puts(b, "    <testcase classname=\"");
    xml_esc(b, suite_name(r));
    tl_buf_printf(b, "%s\" name=\"", suffix);
    xml_esc(b, name);
    tl_buf_puts(b, "\" file=\"");
    xml_esc(b, r->lab->file);
    tl_buf_printf(b, "\" line=\"%d\" time=\"0\"", line);
}

static void junit(tl_buf *b, const tl_report *r)
{
    const tl_lab *lab = r->lab;
    const tl_grade *g = graded(r) ? r->grade : NULL;
    size_t tests = lab->nops + (g ? lab->nquestions : 0) + (g && g->classify.offered);
    size_t failures = 0;
    if (g) {
        failures += g->classify.offered && !g->classify.passed;
        for (size_t i = 0; i < lab->nops; i++)
            failures += !g->ops[i].correct;
        for (size_t i = 0; i < lab->nquestions; i++)
            failures += !g->questions[i].passed;
    }
    tl_buf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    tl_buf_printf(b, "<testsuites name=\"tlab\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
                  "skipped=\"0\" time=\"0\">\n", tests, failures);
    tl_buf_puts(b, "  <testsuite name=\"");
    xml_esc(b, suite_name(r));
    tl_buf_printf(b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\" "
                  "time=\"0\">\n", tests, failures);
    tl_buf_puts(b, "    <properties>\n");
    tl_buf_printf(b, "      <property name=\"device\" value=\"%s\"/>\n", r->device_used);
    if (g) {
        tl_buf_printf(b, "      <property name=\"correct\" value=\"%" PRId64 "\"/>\n", g->correct);
        tl_buf_printf(b, "      <property name=\"total\" value=\"%" PRId64 "\"/>\n", g->total);
        tl_buf_printf(b, "      <property name=\"points\" value=\"%" PRId64 "\"/>\n", g->points);
        tl_buf_printf(b, "      <property name=\"max_points\" value=\"%" PRId64 "\"/>\n",
                      g->max_points);
        tl_buf_printf(b, "      <property name=\"threshold\" value=\"%" PRId64 "\"/>\n",
                      g->threshold);
        tl_buf_printf(b, "      <property name=\"passed\" value=\"%s\"/>\n",
                      g->passed ? "true" : "false");
    }
    tl_buf_puts(b, "    </properties>\n");
    for (size_t i = 0; i < lab->nops; i++) {
        char *name = op_name(r, i);
        testcase_open(b, r, "", name, lab->ops[i].op_line);
        free(name);
        if (g && !g->ops[i].answered) {
            tl_buf_puts(b, ">\n      <failure message=\"unanswered\" type=\"unanswered\">"
                           "unanswered: predict this op to see its verdict</failure>\n"
                           "    </testcase>\n");
        } else if (g && !g->ops[i].correct) {
            tl_buf_puts(b, ">\n      <failure message=\"");
            char *first = first_clause(g->ops[i].feedback);
            xml_esc(b, first);
            free(first);
            tl_buf_puts(b, "\" type=\"wrong_prediction\">");
            char *d = op_detail(r, i);
            xml_text(b, d);
            free(d);
            tl_buf_puts(b, "</failure>\n    </testcase>\n");
        } else {
            tl_buf_puts(b, ">\n      <system-out>");
            xml_text(b, r->verdicts[i].ev.reason ? r->verdicts[i].ev.reason : "");
            tl_buf_puts(b, "</system-out>\n    </testcase>\n");
        }
    }
    if (g)
        for (size_t i = 0; i < lab->nquestions; i++) {
            testcase_open(b, r, ".questions", lab->questions[i].id, lab->questions[i].line);
            const tl_question_grade *q = &g->questions[i];
            if (q->passed) {
                tl_buf_puts(b, "/>\n");
                continue;
            }
            char *why = question_reasons(q);
            tl_buf_puts(b, ">\n      <failure message=\"");
            xml_esc(b, why);
            tl_buf_puts(b, "\" type=\"question\">");
            xml_text(b, why);
            tl_buf_puts(b, "</failure>\n    </testcase>\n");
            free(why);
        }
    if (g && g->classify.offered) {
        const tl_classify_grade *cg = &g->classify;
        testcase_open(b, r, ".stretch", "classify", lab->classify_line);
        if (cg->passed) {
            tl_buf_puts(b, "/>\n");
        } else {
            tl_buf t = {0};
            if (!cg->answered)
                tl_buf_puts(&t, "not answered");
            for (size_t k = 0; k < cg->nproblems; k++)
                tl_buf_printf(&t, "%s%s", k ? "\n" : "", cg->problems[k]);
            tl_buf_puts(b, ">\n      <failure message=\"");
            xml_esc(b, cg->nproblems ? cg->problems[0] : tl_buf_str(&t));
            tl_buf_puts(b, "\" type=\"classify\">");
            xml_text(b, tl_buf_str(&t));
            tl_buf_puts(b, "</failure>\n    </testcase>\n");
            tl_buf_free(&t);
        }
    }
    tl_buf_puts(b, "  </testsuite>\n</testsuites>\n");
}

/* ------------------------------------------------------------------ tap */

static void yaml_sq(tl_buf *b, const char *s)
{
    tl_buf_putc(b, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            tl_buf_puts(b, "''");
        else if (*s == '\n' || *s == '\r' || *s == '\t')
            tl_buf_putc(b, ' ');
        else
            tl_buf_putc(b, *s);
    }
    tl_buf_putc(b, '\'');
}

static void tap_desc(tl_buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '#')
            tl_buf_puts(b, "\\#");
        else if (*s == '\\')
            tl_buf_puts(b, "\\\\");
        else if (*s == '\n')
            tl_buf_puts(b, "; ");
        else
            tl_buf_putc(b, *s);
    }
}

static void tap(tl_buf *b, const tl_report *r)
{
    const tl_lab *lab = r->lab;
    const tl_grade *g = graded(r) ? r->grade : NULL;
    size_t n = lab->nops + (g ? lab->nquestions : 0) + (g && g->classify.offered);
    tl_buf_printf(b, "TAP version 14\n1..%zu\n", n);
    size_t k = 0;
    for (size_t i = 0; i < lab->nops; i++) {
        const tl_op_verdict *v = &r->verdicts[i];
        bool ok = !g || g->ops[i].correct;
        char *name = op_name(r, i);
        tl_buf_printf(b, "%sok %zu - ", ok ? "" : "not ", ++k);
        tap_desc(b, name);
        free(name);
        if (!g) {
            tl_buf_printf(b, ": %s%s\n", tl_kind_name(v->ev.kind), v->sometimes ? " (sometimes)" : "");
            continue;
        }
        if (!g->ops[i].answered) {
            tl_buf_puts(b, "\n  ---\n  message: 'unanswered'\n  severity: fail\n  ...\n");
            continue;
        }
        tl_buf_printf(b, ": predicted %s\n", g->ops[i].pred->text);
        if (ok)
            continue;
        tl_buf_puts(b, "  ---\n  message: ");
        yaml_sq(b, g->ops[i].feedback);
        tl_buf_puts(b, "\n  severity: fail\n  data:\n    got: ");
        yaml_sq(b, tl_kind_name(v->ev.kind));
        tl_buf_puts(b, "\n    expect: ");
        yaml_sq(b, g->ops[i].pred->text);
        if (v->ev.reason) {
            tl_buf_puts(b, "\n    rule: ");
            yaml_sq(b, v->ev.reason);
        }
        tl_buf_puts(b, "\n  ...\n");
    }
    if (g)
        for (size_t i = 0; i < lab->nquestions; i++) {
            const tl_question_grade *q = &g->questions[i];
            tl_buf_printf(b, "%sok %zu - question ", q->passed ? "" : "not ", ++k);
            tap_desc(b, lab->questions[i].id);
            tl_buf_putc(b, '\n');
            if (!q->passed) {
                char *why = question_reasons(q);
                tl_buf_puts(b, "  ---\n  message: ");
                yaml_sq(b, why);
                tl_buf_puts(b, "\n  severity: fail\n  ...\n");
                free(why);
            }
        }
    if (g && g->classify.offered) {
        const tl_classify_grade *cg = &g->classify;
        tl_buf_printf(b, "%sok %zu - classify() (stretch, %" PRId64 "/%" PRId64 " points)\n",
                      cg->passed ? "" : "not ", ++k, cg->score, cg->points);
        if (!cg->passed) {
            tl_buf_puts(b, "  ---\n  message: ");
            yaml_sq(b, !cg->answered ? "not answered" : cg->nproblems ? cg->problems[0]
                                                                      : "no tensor results");
            tl_buf_puts(b, "\n  severity: fail\n  ...\n");
        }
    }
    if (g) {
        char *fl = tl_report_final_line(r);
        tl_buf_printf(b, "# %s\n", fl);
        free(fl);
    }
}

/* ------------------------------------------------- gradescope / PL */

static char *render_json(cJSON *root)
{
    if (!root)
        return NULL;
    char *s = tl_scorecard_print_json(root);
    cJSON_Delete(root);
    return s;
}

static char *op_output(const tl_report *r, size_t i)
{
    const tl_grade *g = graded(r) ? r->grade : NULL;
    if (g && !g->ops[i].answered)
        return tl_xstrdup("unanswered: predict this op to see its verdict");
    if (g && g->ops[i].correct)
        return tl_xstrdup(g->ops[i].feedback);
    if (!g) {
        tl_buf b = {0};
        tl_buf_printf(&b, "%s", r->verdicts[i].ev.reason ? r->verdicts[i].ev.reason : "");
        return tl_buf_steal(&b);
    }
    tl_buf b = {0};
    char *first = first_clause(g->ops[i].feedback);
    char *d = op_detail(r, i);
    tl_buf_printf(&b, "%s\n%s", first, d);
    free(first);
    free(d);
    return tl_buf_steal(&b);
}

#define JK(x)                                                                  \
    do {                                                                       \
        if (!(x))                                                              \
            goto fail;                                                         \
    } while (0)

/* A new object in the array tests, with "name": name; NULL on failure. */
static cJSON *new_test(cJSON *tests, const char *name)
{
    cJSON *t = cJSON_CreateObject();
    if (!t)
        return NULL;
    cJSON_AddItemToArray(tests, t);
    return cJSON_AddStringToObject(t, "name", name) ? t : NULL;
}

/* new_test named after op i ("ID OP") */
static cJSON *new_op_test(cJSON *tests, const tl_report *r, size_t i)
{
    char *name = op_name(r, i);
    cJSON *t = new_test(tests, name);
    free(name);
    return t;
}

/* new_test named after question i ("question ID") */
static cJSON *new_question_test(cJSON *tests, const tl_lab *lab, size_t i)
{
    tl_buf nb = {0};
    tl_buf_printf(&nb, "question %s", lab->questions[i].id);
    cJSON *t = new_test(tests, tl_buf_str(&nb));
    tl_buf_free(&nb);
    return t;
}

/* "passed", or the question's reasons */
static cJSON *add_question_outcome(cJSON *t, const char *key, const tl_question_grade *q)
{
    char *why = question_reasons(q);
    cJSON *s = cJSON_AddStringToObject(t, key, q->passed ? "passed" : why);
    free(why);
    return s;
}

static int64_t max_points(const tl_lab *lab)
{
    int64_t maxp = 0;
    for (size_t i = 0; i < lab->nops; i++)
        maxp += lab->ops[i].points;
    return maxp;
}

static char *gradescope(const tl_report *r)
{
    const tl_lab *lab = r->lab;
    const tl_grade *g = graded(r) ? r->grade : NULL;
    cJSON *root = cJSON_CreateObject();
    JK(root);
    int64_t maxp = max_points(lab);
    JK(cJSON_AddNumberToObject(root, "score", g ? (double)g->points : (double)maxp));
    JK(cJSON_AddNumberToObject(root, "max_score", (double)maxp));
    if (g) {
        char *fl = tl_report_final_line(r);
        JK(cJSON_AddStringToObject(root, "output", fl));
        free(fl);
    } else {
        JK(cJSON_AddStringToObject(root, "output", "tlab run: verdicts only, no grading"));
    }
    JK(cJSON_AddStringToObject(root, "visibility", "visible"));
    cJSON *tests = cJSON_AddArrayToObject(root, "tests");
    JK(tests);
    for (size_t i = 0; i < lab->nops; i++) {
        cJSON *t = new_op_test(tests, r, i);
        JK(t);
        JK(cJSON_AddStringToObject(t, "number", lab->ops[i].id));
        double sc = g ? (double)g->ops[i].score : (double)lab->ops[i].points;
        JK(cJSON_AddNumberToObject(t, "score", sc));
        JK(cJSON_AddNumberToObject(t, "max_score", (double)lab->ops[i].points));
        JK(cJSON_AddStringToObject(t, "status", !g || g->ops[i].correct ? "passed" : "failed"));
        char *out = op_output(r, i);
        cJSON *s = cJSON_AddStringToObject(t, "output", out);
        free(out);
        JK(s);
    }
    if (g)
        for (size_t i = 0; i < lab->nquestions; i++) {
            const tl_question_grade *q = &g->questions[i];
            cJSON *t = new_question_test(tests, lab, i);
            JK(t);
            JK(cJSON_AddStringToObject(t, "number", lab->questions[i].id));
            JK(cJSON_AddNumberToObject(t, "score", 0));
            JK(cJSON_AddNumberToObject(t, "max_score", 0));
            JK(cJSON_AddStringToObject(t, "status", q->passed ? "passed" : "failed"));
            JK(add_question_outcome(t, "output", q));
        }
    return render_json(root);
fail:
    cJSON_Delete(root);
    return NULL;
}

static char *prairielearn(const tl_report *r)
{
    const tl_lab *lab = r->lab;
    const tl_grade *g = graded(r) ? r->grade : NULL;
    cJSON *root = cJSON_CreateObject();
    JK(root);
    JK(cJSON_AddBoolToObject(root, "gradable", true));
    double score = g ? (g->max_points ? (double)g->points / (double)g->max_points : 0) : 1;
    JK(cJSON_AddNumberToObject(root, "score", score));
    char *fl = g ? tl_report_final_line(r) : tl_xstrdup("tlab run: verdicts only");
    cJSON *s = cJSON_AddStringToObject(root, "message", fl);
    free(fl);
    JK(s);
    cJSON *tests = cJSON_AddArrayToObject(root, "tests");
    JK(tests);
    for (size_t i = 0; i < lab->nops; i++) {
        cJSON *t = new_op_test(tests, r, i);
        JK(t);
        JK(cJSON_AddStringToObject(t, "description", lab->ops[i].op));
        JK(cJSON_AddNumberToObject(t, "points",
                                   g ? (double)g->ops[i].score : (double)lab->ops[i].points));
        JK(cJSON_AddNumberToObject(t, "max_points", (double)lab->ops[i].points));
        char *out = op_output(r, i);
        const char *nl = strchr(out, '\n');
        char *msg = nl ? tl_xstrndup(out, (size_t)(nl - out)) : tl_xstrdup(out);
        s = cJSON_AddStringToObject(t, "message", msg);
        free(msg);
        if (s)
            s = cJSON_AddStringToObject(t, "output", nl ? nl + 1 : "");
        free(out);
        JK(s);
    }
    if (g)
        for (size_t i = 0; i < lab->nquestions; i++) {
            cJSON *t = new_question_test(tests, lab, i);
            JK(t);
            JK(cJSON_AddStringToObject(t, "description",
                                       lab->questions[i].prompt ? lab->questions[i].prompt : ""));
            JK(cJSON_AddNumberToObject(t, "points", 0));
            JK(cJSON_AddNumberToObject(t, "max_points", 0));
            JK(add_question_outcome(t, "message", &g->questions[i]));
        }
    return render_json(root);
fail:
    cJSON_Delete(root);
    return NULL;
}

/* -------------------------------------------------------------- github */

static void gh_data(tl_buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '%')
            tl_buf_puts(b, "%25");
        else if (*s == '\r')
            tl_buf_puts(b, "%0D");
        else if (*s == '\n')
            tl_buf_puts(b, "%0A");
        else
            tl_buf_putc(b, *s);
    }
}

static void gh_prop(tl_buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == ':')
            tl_buf_puts(b, "%3A");
        else if (*s == ',')
            tl_buf_puts(b, "%2C");
        else {
            char c[2] = {*s, 0};
            gh_data(b, c);
        }
    }
}

static void github(tl_buf *b, const tl_report *r)
{
    const tl_lab *lab = r->lab;
    const tl_grade *g = graded(r) ? r->grade : NULL;
    for (size_t i = 0; i < lab->nops; i++) {
        const char *level;
        char *msg;
        if (!g) {
            level = "notice";
            msg = op_output(r, i);
        } else if (!g->ops[i].answered) {
            level = "warning";
            msg = tl_xstrdup("unanswered: predict this op to see its verdict");
        } else if (!g->ops[i].correct) {
            level = "error";
            msg = op_output(r, i);
        } else {
            continue;
        }
        tl_buf t = {0};
        tl_buf_printf(&t, "tlab op %s", lab->ops[i].id);
        tl_buf_printf(b, "::%s file=", level);
        gh_prop(b, lab->file);
        tl_buf_printf(b, ",line=%d,title=", lab->ops[i].op_line);
        gh_prop(b, tl_buf_str(&t));
        tl_buf_puts(b, "::");
        gh_data(b, msg);
        tl_buf_putc(b, '\n');
        tl_buf_free(&t);
        free(msg);
    }
    if (g) {
        for (size_t i = 0; i < lab->nquestions; i++) {
            const tl_question_grade *q = &g->questions[i];
            if (q->passed)
                continue;
            char *why = question_reasons(q);
            tl_buf_puts(b, "::error file=");
            gh_prop(b, lab->file);
            tl_buf_printf(b, ",line=%d,title=", lab->questions[i].line);
            tl_buf n = {0};
            tl_buf_printf(&n, "tlab question %s", lab->questions[i].id);
            gh_prop(b, tl_buf_str(&n));
            tl_buf_puts(b, "::");
            gh_data(b, why);
            tl_buf_putc(b, '\n');
            free(why);
            tl_buf_free(&n);
        }
        char *fl = tl_report_final_line(r);
        tl_buf_puts(b, g->passed ? "::notice title=tlab::" : "::error title=tlab::");
        gh_data(b, fl);
        tl_buf_putc(b, '\n');
        free(fl);
    }
}

static void md_cell(tl_buf *b, const char *s)
{
    char *f = tl_report_fit(s, 60);
    for (const char *p = f; *p; p++) {
        if (*p == '|')
            tl_buf_puts(b, "\\|");
        else if (*p == '`')
            tl_buf_putc(b, '\'');
        else
            tl_buf_putc(b, *p);
    }
    free(f);
}

char *tl_report_markdown(const tl_report *r)
{
    const tl_lab *lab = r->lab;
    const tl_grade *g = graded(r) ? r->grade : NULL;
    tl_buf b = {0};
    tl_buf_puts(&b, "## tlab: ");
    md_cell(&b, lab->title ? lab->title : suite_name(r));
    tl_buf_puts(&b, "\n\n");
    if (g)
        tl_buf_puts(&b, "| id | op | predicted | actual | result |\n|---|---|---|---|---|\n");
    else
        tl_buf_puts(&b, "| id | op | verdict |\n|---|---|---|\n");
    for (size_t i = 0; i < lab->nops; i++) {
        char ab[48], pb[48];
        tl_buf_puts(&b, "| ");
        md_cell(&b, lab->ops[i].id);
        tl_buf_puts(&b, " | `");
        md_cell(&b, lab->ops[i].op);
        tl_buf_puts(&b, "` | ");
        if (g) {
            md_cell(&b, pred_short(g->ops[i].pred, pb, sizeof pb));
            tl_buf_puts(&b, " | ");
            if (!g->ops[i].answered)
                tl_buf_puts(&b, "unanswered | \xe2\x9d\x94 |\n");
            else {
                md_cell(&b, actual_short(&r->verdicts[i], ab, sizeof ab));
                tl_buf_puts(&b, g->ops[i].correct ? " | \xe2\x9c\x85 |\n" : " | \xe2\x9d\x8c |\n");
            }
        } else {
            md_cell(&b, actual_short(&r->verdicts[i], ab, sizeof ab));
            tl_buf_puts(&b, " |\n");
        }
    }
    if (g) {
        char *fl = tl_report_final_line(r);
        tl_buf_printf(&b, "\n**%s**\n", fl);
        free(fl);
    }
    tl_buf_putc(&b, '\n');
    return tl_buf_steal(&b);
}

/* -------------------------------------------------------------- render */

char *tl_report_render(const tl_report *r, tl_format fmt, const tl_render_opts *o)
{
    tl_buf b = {0};
    switch (fmt) {
    case TL_FMT_JSON:
        return tl_scorecard_print(r);
    case TL_FMT_GRADESCOPE:
        return gradescope(r);
    case TL_FMT_PRAIRIELEARN:
        return prairielearn(r);
    case TL_FMT_JUNIT:
        junit(&b, r);
        break;
    case TL_FMT_TAP:
        tap(&b, r);
        break;
    case TL_FMT_GITHUB:
        github(&b, r);
        break;
    default:
        if (r->mode == TL_REPORT_CHECK)
            text_check(&b, r, o);
        else
            text_run(&b, r, o, r->mode == TL_REPORT_KEY);
        break;
    }
    return tl_buf_steal(&b);
}

/* ------------------------------------------------------------- explain */

static void storage_picture(tl_buf *b, const tl_op_verdict *v)
{
    if (!v->result || !tl_value_is_tensorlike(v->result))
        return;
    const tl_tensor *t = v->result->u.tensor;
    size_t isz = tl_dtype_size(t->dtype);
    int64_t nst = (int64_t)(t->storage->nbytes / isz);
    int64_t numel = tl_tensor_numel(t);
    tl_buf_printf(b, "\nstorage picture: %" PRId64 " storage element%s of %s; each slot "
                  "shows the result's\nflat index stored there (. = not covered, * = "
                  "covered more than once)\n", nst, nst == 1 ? "" : "s",
                  tl_dtype_name(t->dtype));
    if (nst == 0) {
        tl_buf_puts(b, "  (empty storage)\n");
        return;
    }
    int64_t lo = 0, hi = nst;
    if (nst > 256) {
        /* draw the window the result covers, capped */
        lo = t->offset;
        hi = lo + 256 > nst ? nst : lo + 256;
        tl_buf_printf(b, "  (showing slots %" PRId64 "..%" PRId64 ")\n", lo, hi - 1);
    }
    if (numel > 100000) {
        tl_buf_puts(b, "  (result too large to draw)\n");
        return;
    }
    int64_t n = hi - lo;
    int64_t *cell = tl_xmalloc((size_t)n * sizeof *cell);
    for (int64_t k = 0; k < n; k++)
        cell[k] = -1;
    int64_t idx[TL_MAX_DIMS] = {0};
    for (int64_t i = 0; i < numel; i++) {
        int64_t e = t->offset;
        for (int d = 0; d < t->ndim; d++)
            e += idx[d] * t->strides[d];
        if (e >= lo && e < hi)
            cell[e - lo] = cell[e - lo] == -1 ? i : -2;
        for (int d = t->ndim - 1; d >= 0; d--) {
            if (++idx[d] < t->sizes[d])
                break;
            idx[d] = 0;
        }
    }
    int w = 1;
    for (int64_t x = (hi > numel ? hi : numel); x >= 10; x /= 10)
        w++;
    w += 1;
    int per = (TL_REPORT_WIDTH - 10) / w;
    for (int64_t s = 0; s < n; s += per) {
        int64_t e = s + per < n ? s + per : n;
        tl_buf_puts(b, "  slot    ");
        for (int64_t k = s; k < e; k++)
            tl_buf_printf(b, "%*" PRId64, w, lo + k);
        tl_buf_puts(b, "\n  result  ");
        for (int64_t k = s; k < e; k++) {
            if (cell[k] == -1)
                tl_buf_printf(b, "%*s", w, ".");
            else if (cell[k] == -2)
                tl_buf_printf(b, "%*s", w, "*");
            else
                tl_buf_printf(b, "%*" PRId64, w, cell[k]);
        }
        tl_buf_putc(b, '\n');
    }
    free(cell);
}

char *tl_report_explain(const char *const *stmts, size_t nstmts, const char *expr,
                        const char *parent_name, const tl_op_verdict *v,
                        const char *device_used, const tl_render_opts *o)
{
    tl_buf b = {0};
    const tl_evidence *ev = &v->ev;
    for (size_t i = 0; i < nstmts; i++)
        tl_buf_printf(&b, "%s>>> %s%s\n", col_on(o, C_DIM), stmts[i], col_on(o, C_OFF));
    tl_buf_printf(&b, "%s>>> %s%s\n\n", col_on(o, C_BOLD), expr, col_on(o, C_OFF));
    if (v->have_parent)
        tl_buf_printf(&b, "verdict   %s%s%s (compared with %s)\n", col_on(o, C_BOLD),
                      tl_kind_name(ev->kind), col_on(o, C_OFF), parent_name);
    else
        tl_buf_printf(&b, "verdict   %s%s%s (no parent '%s' defined: nothing to compare "
                      "with)\n", col_on(o, C_BOLD),
                      ev->kind == TL_KIND_COPY ? "new tensor" : tl_kind_name(ev->kind),
                      col_on(o, C_OFF), parent_name);
    if (ev->is_tensor) {
        tl_buf_puts(&b, "result    shape ");
        put_tuple(&b, ev->shape, ev->ndim);
        tl_buf_puts(&b, "  stride ");
        put_tuple(&b, ev->stride, ev->ndim);
        tl_buf_printf(&b, "  offset %" PRId64 "\n          %s  %s  %s\n", ev->offset,
                      ev->contiguous ? "contiguous" : "non-contiguous",
                      tl_dtype_name(ev->dtype), ev->device);
    }
    if (v->have_parent) {
        tl_buf_printf(&b, "parent    %s: shape ", parent_name);
        put_tuple(&b, v->parent_shape, v->parent_ndim);
        tl_buf_puts(&b, "  stride ");
        put_tuple(&b, v->parent_stride, v->parent_ndim);
        tl_buf_printf(&b, "  offset %" PRId64 "  %s\n", v->parent_offset,
                      v->parent_contiguous ? "contiguous" : "non-contiguous");
    }
    if (ev->is_tensor || ev->is_tuple)
        tl_buf_printf(&b, "sharing   same storage: %s; same object: %s; write-through: %s\n",
                      ev->shares_storage ? "yes" : "no", ev->same_object ? "yes" : "no",
                      ev->write_through < 0 ? "n/a" : ev->write_through ? "yes" : "no");
    tl_buf_printf(&b, "allocated %" PRId64 " bytes\n", ev->bytes_allocated);
    if (ev->kind == TL_KIND_ERROR || ev->value || ev->is_tuple) {
        tl_buf t = {0};
        value_text(ev, &t);
        tl_buf_puts(&b, ev->kind == TL_KIND_ERROR ? "raised    " : "value     ");
        wrap(&b, tl_buf_str(&t), 10, 10, TL_REPORT_WIDTH);
        tl_buf_free(&t);
    }
    if (ev->reason) {
        tl_buf_puts(&b, "rule      ");
        wrap(&b, ev->reason, 10, 10, TL_REPORT_WIDTH);
    }
    if (v->nvariants) {
        tl_buf t = {0};
        for (size_t k = 0; k < v->nvariants; k++)
            tl_buf_printf(&t, "%s%s: %s", k ? ", " : "", v->variants[k].parent,
                          tl_kind_name(v->variants[k].kind));
        tl_buf_printf(&t, "%s", v->sometimes ? " => sometimes" : " => always the same");
        tl_buf_puts(&b, "variants  ");
        wrap(&b, tl_buf_str(&t), 10, 10, TL_REPORT_WIDTH);
        tl_buf_free(&t);
    }
    tl_buf_printf(&b, "device    %s\n", device_used);
    storage_picture(&b, v);
    return tl_buf_steal(&b);
}

char *tl_report_explain_json(const char *const *stmts, size_t nstmts, const char *expr,
                             const char *parent_name, const tl_op_verdict *v,
                             const char *device_requested, const char *device_used)
{
    cJSON *root = cJSON_CreateObject();
    JK(root);
    JK(cJSON_AddNumberToObject(root, "schema_version", TL_SCHEMA_VERSION));
    cJSON *st = cJSON_AddArrayToObject(root, "statements");
    JK(st);
    for (size_t i = 0; i < nstmts; i++) {
        cJSON *s = cJSON_CreateString(stmts[i]);
        JK(s);
        cJSON_AddItemToArray(st, s);
    }
    JK(cJSON_AddStringToObject(root, "expression", expr));
    cJSON *dev = cJSON_AddObjectToObject(root, "device");
    JK(dev);
    JK(cJSON_AddStringToObject(dev, "requested", device_requested));
    JK(cJSON_AddStringToObject(dev, "used", device_used));
    if (v->have_parent) {
        cJSON *p = cJSON_AddObjectToObject(root, "parent");
        JK(p);
        JK(cJSON_AddStringToObject(p, "name", parent_name));
        cJSON *a = tl_scorecard_int_array(v->parent_shape, v->parent_ndim);
        JK(a);
        cJSON_AddItemToObject(p, "shape", a);
        a = tl_scorecard_int_array(v->parent_stride, v->parent_ndim);
        JK(a);
        cJSON_AddItemToObject(p, "stride", a);
        JK(cJSON_AddNumberToObject(p, "storage_offset", (double)v->parent_offset));
        JK(cJSON_AddBoolToObject(p, "contiguous", v->parent_contiguous));
    } else {
        JK(cJSON_AddNullToObject(root, "parent"));
    }
    cJSON *a = tl_evidence_json(&v->ev, true);
    JK(a);
    cJSON_AddItemToObject(root, "actual", a);
    a = tl_scorecard_variants(v);
    JK(a);
    cJSON_AddItemToObject(root, "variants", a);
    JK(cJSON_AddBoolToObject(root, "sometimes", v->sometimes));
    return render_json(root);
fail:
    cJSON_Delete(root);
    return NULL;
}

/* -------------------------------------------------------------- output */

/* Write all of data to fd; 0, or -1 with errno set. */
static int write_all(int fd, const char *data, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        off += (size_t)w;
    }
    return 0;
}

int tl_output_write(const char *path, const char *data, size_t len, char *errbuf,
                    size_t errcap)
{
    if (!path || !strcmp(path, "-")) {
        if ((len && fwrite(data, 1, len, stdout) != len) || fflush(stdout) != 0) {
            snprintf(errbuf, errcap, "cannot write to standard output: %s", strerror(errno));
            /* reported here, once: the caller's final flush check must not
             * report it again */
            clearerr(stdout);
            return -1;
        }
        return 0;
    }
    /* An existing target that is not a regular file (/dev/null, a FIFO, a
     * terminal) is written in place: renaming over it would replace the
     * device node. A directory fails here with a clear message. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        int fd = S_ISDIR(st.st_mode) ? -1 : open(path, O_WRONLY | O_TRUNC);
        if (fd < 0) {
            snprintf(errbuf, errcap, "cannot write %s: %s", path,
                     strerror(S_ISDIR(st.st_mode) ? EISDIR : errno));
            return -1;
        }
        int rc = write_all(fd, data, len);
        int saved = errno;
        if (close(fd) != 0 && rc == 0) {
            rc = -1;
            saved = errno;
        }
        if (rc < 0) {
            snprintf(errbuf, errcap, "cannot write %s: %s", path, strerror(saved));
            return -1;
        }
        return 0;
    }
    /* a symlink to a file: replace the file it points to, not the link */
    char *real = NULL;
    struct stat lst;
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
        real = realpath(path, NULL);
    const char *final = real ? real : path;
    char *dup = tl_xstrdup(final);
    char *dir = dirname(dup);
    tl_buf tmp = {0};
    tl_buf_printf(&tmp, "%s/.tlab-out-XXXXXX", dir);
    free(dup);
    char *tname = tl_buf_steal(&tmp);
    int fd = mkstemp(tname);
    if (fd < 0) {
        snprintf(errbuf, errcap, "cannot write %s: %s", path, strerror(errno));
        free(tname);
        free(real);
        return -1;
    }
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
    int rc = write_all(fd, data, len);
    int saved = errno;
    if (close(fd) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (rc < 0 || rename(tname, final) != 0) {
        if (rc == 0)
            saved = errno;
        unlink(tname);
        snprintf(errbuf, errcap, "cannot write %s: %s", path, strerror(saved));
        free(tname);
        free(real);
        return -1;
    }
    free(tname);
    free(real);
    return 0;
}
