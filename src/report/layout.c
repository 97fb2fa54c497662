/* layout.c - the text layout shared by every report format: display
 * columns (UTF-8 aware), fitting and padding cells, word wrap, tuples, the
 * evidence block of a wrong op, op and suite names, the final line.
 *
 * Invariant: everything that can carry a sheet's text (ids, ops,
 * predictions, rules, answers, messages) goes through tl_report_fit or
 * tl_layout_wrap, which show controls as visible escapes (escape.h): no
 * string built here holds a control character except our own newlines.
 */
#include "layout.h"
#include "jsonnum.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "util.h"


size_t tl_layout_cols(const char *s)
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
    for (const char *p = s; *p;) {
        size_t run = strcspn(p, "\n\t\r"); /* copied as it is, at once */
        if (run) {
            tl_buf_append(&flat, p, run);
            p += run;
            continue;
        }
        if (*p == '\n') {
            /* drop trailing newlines, join statements with "; " */
            const char *q = p;
            while (*q == '\n' || *q == ' ' || *q == '\r')
                q++;
            if (*q)
                tl_buf_puts(&flat, "; ");
            p = q;
        } else { /* a tab or a lone carriage return */
            tl_buf_putc(&flat, ' ');
            p++;
        }
    }
    /* untrusted text: every control left becomes a visible escape */
    char *f = tl_escape_line_dup(tl_buf_str(&flat));
    if (tl_layout_cols(f) <= cols) {
        tl_buf_free(&flat);
        return f;
    }
    free(f);
    /* cut to cols one escaped character at a time, so that the cut never
     * splits an escape (`\x0` of `\x07`, `\e` of `\e[2J`) */
    tl_buf out = {0}, unit = {0};
    size_t c = 0;
    for (const char *p = tl_buf_str(&flat); *p;) {
        if ((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7F) {
            /* printable ASCII is its own escape, one column wide */
            if (c + 2 > cols)
                break;
            tl_buf_putc(&out, *p++);
            c++;
            continue;
        }
        size_t w = 1;
        if ((unsigned char)*p >= 0xC0) /* a UTF-8 lead byte and its continuation */
            while (w < 4 && ((unsigned char)p[w] & 0xC0) == 0x80)
                w++;
        tl_buf_free(&unit);
        tl_escape_line_n(&unit, p, w);
        size_t uc = tl_layout_cols(tl_buf_str(&unit));
        if (c + uc + 1 > cols)
            break;
        tl_buf_append(&out, tl_buf_str(&unit), unit.len);
        c += uc;
        p += w;
    }
    tl_buf_free(&unit);
    tl_buf_free(&flat);
    tl_buf_puts(&out, "\xe2\x80\xa6");
    return tl_buf_steal(&out);
}

/* append s padded to `cols` display columns */
void tl_layout_pad(tl_buf *b, const char *s, size_t cols)
{
    tl_buf_puts(b, s);
    for (size_t c = tl_layout_cols(s); c < cols; c++)
        tl_buf_putc(b, ' ');
}

void tl_layout_fitpad(tl_buf *b, const char *s, size_t cols)
{
    char *f = tl_report_fit(s, cols);
    tl_layout_pad(b, f, cols);
    free(f);
}

/* one table cell: s fitted and padded to `cols`, then the column gap */
void tl_layout_cell(tl_buf *b, const char *s, size_t cols)
{
    tl_layout_fitpad(b, s, cols);
    tl_buf_puts(b, "  ");
}

void tl_layout_trim(tl_buf *b)
{
    while (b->len > 0 && b->data[b->len - 1] == ' ')
        b->data[--b->len] = 0;
}

/* word-wrap `text` at width, first line after `lead` (already in b),
 * continuation lines indented by `indent` spaces */
void tl_layout_wrap(tl_buf *b, const char *text, size_t lead, size_t indent, size_t width)
{
    /* line breaks and tabs of the text are spaces here; other controls
     * become visible escapes */
    tl_buf flat = {0};
    for (const char *q = text; *q; q++)
        tl_buf_putc(&flat, *q == '\n' || *q == '\r' || *q == '\t' ? ' ' : *q);
    char *safe = tl_escape_line_dup(tl_buf_str(&flat));
    tl_buf_free(&flat);
    size_t col = lead;
    const char *p = safe;
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
    free(safe);
}

const char *tl_layout_color(const tl_render_opts *o, const char *c) { return o->color ? c : ""; }

bool tl_layout_graded(const tl_report *r) { return r->mode == TL_REPORT_CHECK && r->grade; }

const char *tl_layout_pred(const tl_op_grade *og, char *buf, size_t cap)
{
    if (!og || !og->answered)
        return "-";
    if (!og->pred_mapping)
        return og->predicted;
    snprintf(buf, cap, "%s {\xe2\x80\xa6}", og->pred_kind ? tl_kind_name(og->pred_kind) : "fields");
    return buf;
}

const char *tl_layout_actual(const tl_op_verdict *v, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s", tl_kind_name(v->ev.kind), v->sometimes ? "*" : "");
    return buf;
}

char *tl_report_final_line(const tl_report *r)
{
    tl_buf b = {0};
    const tl_grade *g = r->grade;
    if (!g) /* an unreadable sheet with no master to count ops */
        return tl_xstrdup("unreadable sheet - FAIL");
    if (r->error) {
        tl_buf_printf(&b, "0/%" PRId64 " correct (threshold %" PRId64 ") - FAIL (unreadable "
                      "sheet)", g->total, g->threshold);
        return tl_buf_steal(&b);
    }
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
char *tl_layout_first_clause(const char *feedback)
{
    const char *dot = strstr(feedback, ". ");
    return dot ? tl_xstrndup(feedback, (size_t)(dot - feedback)) : tl_xstrdup(feedback);
}

/* A question's reasons joined with "; " (caller frees). */
char *tl_layout_reasons(const tl_question_grade *q)
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
    tl_buf_put_tuple(b, shape, ndim);
    tl_buf_puts(b, "  stride ");
    tl_buf_put_tuple(b, stride, ndim);
    tl_buf_printf(b, "  offset %" PRId64 "  %s\n", offset,
                  contig ? "contiguous" : "non-contiguous");
}

/* The evidence of op i without its heading: parent and result layout,
 * sharing, the raised error or value, the rule, variants, the
 * instructor's explanation; each line indented by 4. */
static void evidence_body(tl_buf *b, const tl_report *r, size_t i)
{
    const tl_lab_op *op = &r->lab->ops[i];
    const tl_op_verdict *v = &r->verdicts[i];
    const tl_evidence *ev = &v->ev;
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
        tl_layout_wrap(b, tl_buf_str(&t), 13, 13, TL_REPORT_WIDTH);
        tl_buf_free(&t);
    } else if (ev->kind == TL_KIND_ERROR) {
        tl_buf b2 = {0};
        tl_buf_printf(&b2, "%s: %s", ev->err_type, ev->err_msg);
        tl_buf_printf(b, "    %-8s ", "raised");
        tl_layout_wrap(b, tl_buf_str(&b2), 13, 13, TL_REPORT_WIDTH);
        tl_buf_free(&b2);
    } else if (ev->is_tuple) {
        tl_buf_printf(b, "    %-8s a %s of %zu results; shares storage: %s\n", "result",
                      ev->value_type ? ev->value_type : "tuple", ev->nitems_total, /* ours */
                      ev->shares_storage ? "yes" : "no");
    } else if (ev->value) {
        char *s = tl_json_print_compact(ev->value);
        char *fs = tl_report_fit(s ? s : "?", TL_REPORT_WIDTH - 13);
        tl_buf_printf(b, "    %-8s %s\n", "value", fs); /* fit escaped it */
        free(fs);
        free(s);
    }
    if (ev->reason) {
        tl_buf_printf(b, "    %-8s ", "rule");
        tl_layout_wrap(b, ev->reason, 13, 13, TL_REPORT_WIDTH);
    }
    if (v->nvariants) {
        tl_buf b2 = {0};
        for (size_t k = 0; k < v->nvariants; k++)
            tl_buf_printf(&b2, "%s%s: %s", k ? ", " : "", v->variants[k].parent,
                          tl_kind_name(v->variants[k].kind));
        if (v->sometimes)
            tl_buf_puts(&b2, " (sometimes)");
        tl_buf_printf(b, "    %-8s ", "variants");
        tl_layout_wrap(b, tl_buf_str(&b2), 13, 13, TL_REPORT_WIDTH);
        tl_buf_free(&b2);
    }
    if (op->explanation) {
        tl_buf_printf(b, "    %-8s ", "why");
        tl_layout_wrap(b, op->explanation, 13, 13, TL_REPORT_WIDTH);
    }
}



void tl_layout_evidence(tl_buf *b, const tl_report *r, size_t i, const tl_render_opts *o)
{
    const tl_lab_op *op = &r->lab->ops[i];
    char *id = tl_report_fit(op->id, 16);
    size_t idw = tl_layout_cols(id);
    tl_buf_printf(b, "%s%s%s %s  ", tl_layout_color(o, C_RED), o->color ? "\xe2\x9c\x97" : "x",
                  tl_layout_color(o, C_OFF), id);
    free(id);
    char *f = tl_report_fit(op->op, TL_REPORT_WIDTH - 4 - idw);
    tl_buf_printf(b, "%s%s%s\n", tl_layout_color(o, C_BOLD), f, tl_layout_color(o, C_OFF));
    free(f);
    if (tl_layout_graded(r) && r->grade->ops[i].feedback) {
        char *first = tl_layout_first_clause(r->grade->ops[i].feedback);
        tl_buf_puts(b, "    ");
        tl_layout_wrap(b, first, 4, 4, TL_REPORT_WIDTH);
        free(first);
    }
    evidence_body(b, r, i);
}

/* ------------------------------------------------- names and details */

void tl_layout_value_text(const tl_evidence *ev, tl_buf *b)
{
    if (ev->kind == TL_KIND_ERROR) {
        tl_buf_printf(b, "%s: ", ev->err_type);
        tl_escape_line(b, ev->err_msg);
    } else if (ev->is_tuple) {
        tl_buf_printf(b, "%zu results", ev->nitems_total);
    } else if (ev->value) {
        char *s = tl_scorecard_print_json(ev->value);
        if (s) {
            /* one line: drop the indentation newlines of nested values */
            tl_buf t = {0};
            for (const char *p = s; *p; p++) {
                if (*p == '\n') {
                    while (p[1] == ' ')
                        p++;
                    continue;
                }
                tl_buf_putc(&t, *p);
            }
            tl_escape_line(b, tl_buf_str(&t));
            tl_buf_free(&t);
        }
        free(s);
    }
}

char *tl_layout_op_detail(const tl_report *r, size_t i)
{
    tl_buf b = {0};
    evidence_body(&b, r, i);
    /* without the block's 4-space indent and the last newline */
    tl_buf out = {0};
    const char *s = tl_buf_str(&b);
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        size_t skip = 0;
        while (skip < 4 && skip < len && s[skip] == ' ')
            skip++;
        if (out.len)
            tl_buf_putc(&out, '\n');
        tl_buf_append(&out, s + skip, len - skip);
        s += len + (nl != NULL);
    }
    tl_buf_free(&b);
    if (!out.len)
        return tl_xstrdup("");
    return tl_buf_steal(&out);
}

char *tl_layout_op_name(const tl_report *r, size_t i)
{
    tl_buf b = {0};
    char *id = tl_report_fit(r->lab->ops[i].id, 16);
    char *f = tl_report_fit(r->lab->ops[i].op, 60);
    tl_buf_printf(&b, "%s %s", id, f);
    free(id);
    free(f);
    return tl_buf_steal(&b);
}

char *tl_layout_suite(const tl_report *r)
{
    const char *s = r->lab && r->lab->id ? r->lab->id : tl_report_sheet(r);
    return tl_report_fit(s, 60);
}
