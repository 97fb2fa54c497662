/* text.c - the terminal report of check, run and key.
 *
 * check: one aligned row per op (id, op, predicted, actual, mark) fitted
 * to 80 columns, then an evidence block for each wrong op (parent and
 * result strides/offsets, same storage or not, the rule that decided it,
 * the instructor's explanation), unanswered ops, rules, questions, what a
 * tampered sheet changed, and the final line
 * `17/20 correct (threshold 16) - PASS`. Unanswered ops show "unanswered"
 * and nothing else: no format reveals a verdict before it is predicted.
 * run: verdict, layout and bytes allocated per op, nothing cut, and the
 * parent variants' verdicts (run_table); key: the answer per op with notes.
 * An unreadable sheet: the located error and the final line.
 * The lab's feedback: policy (a master's, under --lab) trims check:
 * wrong-ops drops the actual column, the evidence blocks (explanations
 * included) and classify()'s problems, keeping each op's mark; score-only
 * prints the header, the points and the final line.
 *
 * Every sheet string goes through layout.c's fit/wrap (escaped).
 */
#include "text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "layout.h"
#include "mcreport.h"
#include "util.h"


static size_t id_width(const tl_report *r)
{
    size_t w = 2;
    for (size_t i = 0; i < r->lab->nops; i++) {
        size_t l = tl_layout_cols(r->lab->ops[i].id);
        if (l > w)
            w = l;
    }
    return w > 8 ? 8 : w;
}

/* Text that starts a line: never a workflow command or a located message
 * of its own (escape.h), so a "\\" goes first when it would pass for one. */
static void line_head(tl_buf *b, const char *fitted)
{
    if (tl_escape_risky_start(fitted))
        tl_buf_putc(b, '\\');
    tl_buf_puts(b, fitted);
}

/* the first cell of a table row (an op id) */
static void id_cell(tl_buf *b, const char *id, size_t cols)
{
    /* an id is one line: a newline in it shows as \n, not joined with "; " */
    char *e = tl_escape_line_dup(id);
    char *f = tl_report_fit(e, cols);
    free(e);
    tl_buf t = {0};
    line_head(&t, f);
    free(f);
    tl_layout_cell(b, tl_buf_str(&t), cols);
    tl_buf_free(&t);
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
        char *f = tl_report_fit(tl_buf_str(&h), TL_REPORT_WIDTH - 1);
        tl_buf_puts(b, tl_layout_color(o, C_BOLD));
        line_head(b, f);
        tl_buf_printf(b, "%s\n", tl_layout_color(o, C_OFF));
        free(f);
    }
    tl_buf_free(&h);
    if (r->sheet_file)
        tl_buf_printf(&h, "%s, graded against %s, device %s", r->sheet_file, lab->file,
                      r->device_used);
    else
        tl_buf_printf(&h, "%s, device %s", lab->file, r->device_used);
    char *f = tl_report_fit(tl_buf_str(&h), TL_REPORT_WIDTH - 1);
    line_head(b, f);
    tl_buf_puts(b, "\n\n");
    free(f);
    tl_buf_free(&h);
}

/* The command that shows a wrong op in depth (its storage picture), to
 * paste: `tlab explain --lab FILE ID` on the lab that was run (the master
 * under --lab). Not offered when the file or the id would not survive a
 * shell as one word (tl_escape_shell), or when the line would pass the
 * report's 80 columns (a long path). */
static void explain_hint(tl_buf *b, const tl_report *r, size_t i, const tl_render_opts *o)
{
    const char *file = r->lab->file, *id = r->lab->ops[i].id;
    tl_buf cmd = {0};
    tl_buf_puts(&cmd, "tlab explain --lab ");
    bool ok = tl_escape_shell(&cmd, file);
    tl_buf_puts(&cmd, id[0] == '-' ? " -- " : " ");
    ok = ok && tl_escape_shell(&cmd, id);
    if (ok && 13 + cmd.len <= TL_REPORT_WIDTH) /* the report's 80 columns */
        tl_buf_printf(b, "    explain  %s%s%s\n", tl_layout_color(o, C_DIM), tl_buf_str(&cmd),
                      tl_layout_color(o, C_OFF));
    tl_buf_free(&cmd);
}

/* The misconceptions the sheet's wrong answers support (mcreport.h), with
 * the ops as evidence, the belief and the hint; nothing when none. */
static void misconceptions(tl_buf *b, const tl_report *r, const tl_render_opts *o)
{
    tl_mc_catalogue *cat = tl_mcreport_catalogue(r->lab);
    tl_mc_found *f;
    size_t n = tl_mcreport_find(cat, r->lab, r->verdicts, r->grade, &f);
    if (!n) {
        tl_mc_catalogue_free(cat);
        return;
    }
    tl_buf_printf(b, "\n%sMisconceptions%s\n", tl_layout_color(o, C_BOLD),
                  tl_layout_color(o, C_OFF));
    for (size_t k = 0; k < n; k++) {
        tl_buf t = {0};
        tl_buf_printf(&t, "%s (op%s", f[k].m->tag, f[k].nops == 1 ? "" : "s");
        for (size_t i = 0; i < f[k].nops; i++)
            tl_buf_printf(&t, "%s %s", i ? "," : "", r->lab->ops[f[k].ops[i]].id);
        tl_buf_puts(&t, ")");
        tl_buf_puts(b, "  ");
        tl_layout_wrap(b, tl_buf_str(&t), 2, 4, TL_REPORT_WIDTH);
        tl_buf_free(&t);
        tl_buf_puts(b, "    ");
        tl_layout_wrap(b, f[k].m->belief, 4, 4, TL_REPORT_WIDTH);
        tl_buf_printf(&t, "Hint: %s", f[k].m->hint);
        tl_buf_puts(b, "    ");
        tl_layout_wrap(b, tl_buf_str(&t), 4, 4, TL_REPORT_WIDTH);
        tl_buf_free(&t);
    }
    tl_mc_found_free(f, n);
    tl_mc_catalogue_free(cat);
}

static void text_check(tl_buf *b, const tl_report *r, const tl_render_opts *o)
{
    const tl_lab *lab = r->lab;
    const tl_grade *g = r->grade;
    tl_lab_feedback fb = tl_report_feedback(r);
    if (!o->quiet && fb == TL_FEEDBACK_SCORE_ONLY) {
        header(b, r, o);
        tl_buf_puts(b, "This lab reports the score only (feedback: score-only).\n");
        if (r->nchanges)
            tl_buf_printf(b, "Tampered: the sheet changed %zu thing%s the master decides "
                          "(graded on the master).\n", r->nchanges, r->nchanges == 1 ? "" : "s");
        tl_buf_printf(b, "\npoints %" PRId64 "/%" PRId64 "\n", g->points, g->max_points);
    } else if (!o->quiet) {
        bool full = fb == TL_FEEDBACK_FULL;
        header(b, r, o);
        size_t idw = id_width(r), pw = 11, aw = 11, mw = 5;
        size_t opw = TL_REPORT_WIDTH - idw - pw - aw - mw - 8;
        tl_layout_cell(b, "id", idw);
        tl_layout_cell(b, "op", opw);
        tl_layout_cell(b, "predicted", pw);
        tl_buf_puts(b, full ? "actual" : "result");
        tl_buf_putc(b, '\n');
        bool star = false;
        for (size_t i = 0; i < lab->nops; i++) {
            const tl_op_grade *og = &g->ops[i];
            char pb[48], ab[48];
            id_cell(b, lab->ops[i].id, idw);
            tl_layout_cell(b, lab->ops[i].op, opw);
            tl_layout_cell(b, tl_layout_pred(og, pb, sizeof pb), pw);
            if (!og->answered) {
                tl_buf_printf(b, "%s", tl_layout_color(o, C_YELLOW));
                tl_layout_pad(b, "unanswered", aw);
                tl_buf_printf(b, "%s  %s", tl_layout_color(o, C_OFF), o->color ? "?" : "-");
            } else {
                if (full) {
                    star |= r->verdicts[i].sometimes;
                    tl_layout_cell(b, tl_layout_actual(&r->verdicts[i], ab, sizeof ab), aw);
                }
                if (og->correct)
                    tl_buf_printf(b, "%s%s%s", tl_layout_color(o, C_GREEN),
                                  o->color ? "\xe2\x9c\x93" : "ok", tl_layout_color(o, C_OFF));
                else
                    tl_buf_printf(b, "%s%s%s", tl_layout_color(o, C_RED),
                                  o->color ? "\xe2\x9c\x97" : "wrong", tl_layout_color(o, C_OFF));
            }
            tl_layout_trim(b);
            tl_buf_putc(b, '\n');
        }
        if (star)
            tl_buf_puts(b, "* the verdict changes across parent variants (sometimes)\n");
        bool any_wrong = false;
        for (size_t i = 0; full && i < lab->nops; i++)
            if (g->ops[i].answered && !g->ops[i].correct) {
                if (!any_wrong)
                    tl_buf_printf(b, "\n%sWrong predictions%s\n\n", tl_layout_color(o, C_BOLD),
                                  tl_layout_color(o, C_OFF));
                else
                    tl_buf_putc(b, '\n');
                any_wrong = true;
                tl_layout_evidence(b, r, i, o);
                explain_hint(b, r, i, o);
            }
        if (full)
            misconceptions(b, r, o);
        if (g->unanswered) {
            tl_buf t = {0};
            tl_buf_printf(&t, "Unanswered (%zu):", g->unanswered);
            for (size_t i = 0; i < lab->nops; i++)
                if (!g->ops[i].answered)
                    tl_buf_printf(&t, " %s", lab->ops[i].id);
            tl_buf_putc(b, '\n');
            tl_layout_wrap(b, tl_buf_str(&t), 0, 4, TL_REPORT_WIDTH);
            tl_buf_free(&t);
        }
        if (!g->rules_passed) {
            tl_buf_printf(b, "\n%sRules%s\n", tl_layout_color(o, C_BOLD), tl_layout_color(o, C_OFF));
            for (size_t i = 0; i < lab->nops; i++)
                if (g->ops[i].rule_problem) {
                    tl_buf t = {0};
                    tl_buf_printf(&t, "op %s: %s", lab->ops[i].id, g->ops[i].rule_problem);
                    tl_buf_puts(b, "  ");
                    tl_layout_wrap(b, tl_buf_str(&t), 2, 4, TL_REPORT_WIDTH);
                    tl_buf_free(&t);
                }
        }
        if (g->classify.offered) {
            const tl_classify_grade *cg = &g->classify;
            tl_buf_printf(b, "\n%sStretch: classify()%s  %s%s%s (%" PRId64 "/%" PRId64
                          " points, not counted toward the threshold)\n",
                          tl_layout_color(o, C_BOLD), tl_layout_color(o, C_OFF),
                          cg->passed ? tl_layout_color(o, C_GREEN) : tl_layout_color(o, C_RED),
                          !cg->answered ? "not answered" : cg->passed ? "pass" : "FAIL",
                          tl_layout_color(o, C_OFF), cg->score, cg->points);
            if (cg->answered)
                tl_buf_printf(b, "  %zu results classified, %zu wrong or failed\n", cg->checked,
                              cg->nproblems);
            for (size_t k = 0; full && k < cg->nproblems; k++) {
                tl_buf_puts(b, "  ");
                tl_layout_wrap(b, cg->problems[k], 2, 4, TL_REPORT_WIDTH);
            }
        }
        if (lab->nquestions) {
            tl_buf_printf(b, "\n%sQuestions%s\n", tl_layout_color(o, C_BOLD), tl_layout_color(o, C_OFF));
            for (size_t i = 0; i < lab->nquestions; i++) {
                const tl_question_grade *q = &g->questions[i];
                tl_buf t = {0};
                tl_buf_printf(&t, "%s  %s", lab->questions[i].id, q->passed ? "pass" : "FAIL");
                for (size_t k = 0; k < q->nreasons; k++)
                    tl_buf_printf(&t, "%s%s", k ? "; " : ": ", q->reasons[k]);
                tl_buf_printf(b, "  %s", q->passed ? tl_layout_color(o, C_GREEN) : tl_layout_color(o, C_RED));
                tl_layout_wrap(b, tl_buf_str(&t), 2, 6, TL_REPORT_WIDTH);
                if (o->color) {
                    /* close the colour before the newline tl_layout_wrap() wrote */
                    b->data[--b->len] = 0;
                    tl_buf_printf(b, "%s\n", C_OFF);
                }
                tl_buf_free(&t);
            }
        }
        if (r->nchanges) {
            tl_buf_printf(b, "\n%sTampered%s (graded on the master's setup, ops and checks)\n",
                          tl_layout_color(o, C_BOLD), tl_layout_color(o, C_OFF));
            for (size_t k = 0; k < r->nchanges; k++) {
                tl_buf_puts(b, "  - ");
                tl_layout_wrap(b, r->changes[k], 4, 4, TL_REPORT_WIDTH);
            }
        }
        tl_buf_putc(b, '\n');
        if (g->points != g->correct || g->max_points != g->total)
            tl_buf_printf(b, "points %" PRId64 "/%" PRId64 "\n", g->points, g->max_points);
    }
    char *fl = tl_report_final_line(r);
    tl_buf_printf(b, "%s%s%s%s\n", tl_layout_color(o, C_BOLD),
                  g->passed ? tl_layout_color(o, C_GREEN) : tl_layout_color(o, C_RED), fl, tl_layout_color(o, C_OFF));
    free(fl);
}

/* ---- run: what happened, nothing cut
 *
 * id, op, verdict, shape, stride, offset and bytes allocated, one row per
 * op; a line under it with the parent variants' verdicts. The verdict,
 * shape, stride, offset and bytes columns are as wide as their widest
 * cell, so none is ever cut; the op column takes what is left of 80
 * columns (at least 16). An id or op wider than its column is printed
 * whole on a line of its own (wrapped at 80), and its row continues on
 * the next line at the verdict column, as `tlab --help` does for a long
 * synopsis. An error message or value goes in the shape column when it
 * fits there, else on lines of its own under the op ("raised", "value"),
 * wrapped; a value longer than TL_RUN_MAX_VALUE characters ends with its
 * length and `--format json` (which has it whole). */
#define TL_RUN_MAX_VALUE 1000

typedef struct run_row {
    char *id, *op;              /* escaped, whole */
    char verdict[48];
    char *shape, *stride;       /* tensors only */
    char offset[24], bytes[24];
} run_row;

static size_t widest(size_t w, const char *s)
{
    size_t c = s ? tl_layout_cols(s) : 0;
    return c > w ? c : w;
}

static void spaces(tl_buf *b, size_t n)
{
    while (n--)
        tl_buf_putc(b, ' ');
}

static void run_table(tl_buf *b, const tl_report *r)
{
    const tl_lab *lab = r->lab;
    size_t n = lab->nops;
    run_row *rows = tl_xcalloc(n ? n : 1, sizeof *rows);
    size_t maxid = 2, maxop = 2, kw = 7, sw = 5, tw = 6, fw = 6, bw = 5;
    bool star = false;
    for (size_t i = 0; i < n; i++) {
        const tl_op_verdict *v = &r->verdicts[i];
        const tl_evidence *ev = &v->ev;
        run_row *w = &rows[i];
        char *e = tl_escape_line_dup(lab->ops[i].id);
        tl_buf h = {0};
        line_head(&h, e);
        free(e);
        w->id = tl_buf_steal(&h);
        w->op = tl_report_fit(lab->ops[i].op, (size_t)-1); /* "; " joined, escaped */
        tl_layout_actual(v, w->verdict, sizeof w->verdict);
        star |= v->sometimes;
        if (ev->is_tensor) {
            tl_buf t = {0};
            tl_buf_put_tuple(&t, ev->shape, ev->ndim);
            w->shape = tl_buf_steal(&t);
            tl_buf_put_tuple(&t, ev->stride, ev->ndim);
            w->stride = tl_buf_steal(&t);
            snprintf(w->offset, sizeof w->offset, "%" PRId64, ev->offset);
            snprintf(w->bytes, sizeof w->bytes, "%" PRId64, ev->bytes_allocated);
            sw = widest(sw, w->shape);
            tw = widest(tw, w->stride);
            fw = widest(fw, w->offset);
            bw = widest(bw, w->bytes);
        }
        maxid = widest(maxid, w->id);
        maxop = widest(maxop, w->op);
        kw = widest(kw, w->verdict);
    }
    size_t idw = maxid > 8 ? 8 : maxid;
    size_t right = kw + 2 + sw + 2 + tw + 2 + fw + 2 + bw;
    size_t opw = TL_REPORT_WIDTH > idw + 4 + right + 16 ? TL_REPORT_WIDTH - idw - 4 - right : 16;
    if (opw > maxop)
        opw = maxop;
    size_t kcol = idw + 2 + opw + 2; /* where the verdict starts */
    size_t scol = kcol + kw + 2;     /* ... and the shape (or the value) */
    tl_layout_pad(b, "id", idw + 2);
    tl_layout_pad(b, "op", opw + 2);
    tl_layout_pad(b, "verdict", kw + 2);
    tl_layout_pad(b, "shape", sw + 2);
    tl_layout_pad(b, "stride", tw + 2);
    tl_layout_pad(b, "offset", fw + 2);
    tl_buf_puts(b, "bytes\n");
    for (size_t i = 0; i < n; i++) {
        const tl_op_verdict *v = &r->verdicts[i];
        const tl_evidence *ev = &v->ev;
        run_row *w = &rows[i];
        if (tl_layout_cols(w->id) <= idw && tl_layout_cols(w->op) <= opw) {
            tl_layout_pad(b, w->id, idw + 2);
            tl_layout_pad(b, w->op, opw + 2);
        } else {
            /* the id and op whole, then the row on the next line */
            tl_layout_pad(b, w->id, idw);
            tl_buf_puts(b, "  ");
            tl_layout_wrap(b, w->op, idw + 2, idw + 2, TL_REPORT_WIDTH);
            spaces(b, kcol);
        }
        tl_layout_pad(b, w->verdict, kw + 2);
        if (ev->is_tensor) {
            tl_layout_pad(b, w->shape, sw + 2);
            tl_layout_pad(b, w->stride, tw + 2);
            tl_layout_pad(b, w->offset, fw + 2);
            tl_buf_puts(b, w->bytes);
            tl_buf_putc(b, '\n');
        } else {
            tl_buf t = {0};
            tl_layout_value_text(ev, &t);
            if (ev->kind == TL_KIND_VALUE && t.len > TL_RUN_MAX_VALUE) {
                size_t cut = TL_RUN_MAX_VALUE;
                while (cut > 0 && ((unsigned char)t.data[cut] & 0xC0) == 0x80)
                    cut--; /* not inside a UTF-8 character */
                size_t total = t.len;
                t.data[cut] = '\0';
                t.len = cut;
                tl_buf_printf(&t, "\xe2\x80\xa6 (%zu characters; --format json prints it whole)",
                              total);
            }
            const char *text = t.len ? tl_buf_str(&t) : "-";
            if (scol + tl_layout_cols(text) <= TL_REPORT_WIDTH) {
                tl_buf_puts(b, text);
                tl_buf_putc(b, '\n');
            } else {
                /* too long for the row: on lines of its own, wrapped */
                tl_layout_trim(b);
                tl_buf_putc(b, '\n');
                spaces(b, idw + 2);
                tl_layout_pad(b, ev->kind == TL_KIND_ERROR ? "raised" : "value", 9);
                tl_layout_wrap(b, text, idw + 11, idw + 11, TL_REPORT_WIDTH);
            }
            tl_buf_free(&t);
        }
        if (v->nvariants) {
            tl_buf t = {0};
            for (size_t k = 0; k < v->nvariants; k++)
                tl_buf_printf(&t, "%s%s: %s", k ? ", " : "", v->variants[k].parent,
                              tl_kind_name(v->variants[k].kind));
            spaces(b, idw + 2);
            tl_buf_puts(b, "variants ");
            tl_layout_wrap(b, tl_buf_str(&t), idw + 11, idw + 11, TL_REPORT_WIDTH);
            tl_buf_free(&t);
        }
        free(w->id);
        free(w->op);
        free(w->shape);
        free(w->stride);
    }
    free(rows);
    if (star)
        tl_buf_puts(b, "* the verdict changes across parent variants (sometimes)\n");
}

static void text_run(tl_buf *b, const tl_report *r, const tl_render_opts *o, bool key)
{
    const tl_lab *lab = r->lab;
    header(b, r, o);
    size_t idw = id_width(r);
    if (key) {
        size_t aw = 10, nw = 38;
        size_t opw = TL_REPORT_WIDTH - idw - aw - nw - 6;
        tl_layout_cell(b, "id", idw);
        tl_layout_cell(b, "op", opw);
        tl_layout_pad(b, "answer", aw);
        tl_buf_puts(b, "  notes\n");
        for (size_t i = 0; i < lab->nops; i++) {
            const tl_op_verdict *v = &r->verdicts[i];
            const tl_lab_op *op = &lab->ops[i];
            id_cell(b, op->id, idw);
            tl_layout_cell(b, op->op, opw);
            tl_layout_cell(b, tl_scorecard_key_answer(v), aw);
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
            if (tl_layout_cols(tl_buf_str(&n)) <= TL_REPORT_WIDTH - col)
                tl_buf_puts(b, tl_buf_str(&n));
            else if (n.len) {
                tl_layout_trim(b);
                tl_buf_puts(b, "\n    ");
                tl_layout_wrap(b, tl_buf_str(&n), 4, 4, TL_REPORT_WIDTH);
                b->data[--b->len] = 0;
            }
            tl_buf_free(&n);
            tl_layout_trim(b);
            tl_buf_putc(b, '\n');
        }
        return;
    }
    run_table(b, r);
}

static void text_error(tl_buf *b, const tl_report *r, const tl_render_opts *o)
{
    tl_buf_printf(b, "%s", tl_layout_color(o, C_BOLD));
    tl_buf_puts(b, "could not grade ");
    char *f = tl_report_fit(tl_report_sheet(r), 60);
    tl_buf_puts(b, f);
    free(f);
    tl_buf_printf(b, "%s\n  ", tl_layout_color(o, C_OFF));
    tl_layout_wrap(b, r->error ? r->error : "unreadable sheet", 2, 4, TL_REPORT_WIDTH);
    char *fl = tl_report_final_line(r);
    tl_buf_printf(b, "\n%s%s%s%s\n", tl_layout_color(o, C_BOLD), tl_layout_color(o, C_RED), fl,
                  tl_layout_color(o, C_OFF));
    free(fl);
}

char *tl_text_render(const tl_report *rs, size_t n, const tl_render_opts *o)
{
    tl_buf b = {0};
    for (size_t k = 0; k < n; k++) {
        const tl_report *r = &rs[k];
        if (k)
            tl_buf_putc(&b, '\n');
        if (r->error || !r->lab)
            text_error(&b, r, o);
        else if (r->mode == TL_REPORT_CHECK)
            text_check(&b, r, o);
        else
            text_run(&b, r, o, r->mode == TL_REPORT_KEY);
    }
    return tl_buf_steal(&b);
}
