/* items.c - a report as a list of tests (see items.h for the list and its
 * order). Points: an op is worth its points:, a question its points:
 * (default 1), the rules check rules: points: (default 1); the tamper check
 * and the verdict are worth 0, so the item scores add up to the grade's
 * points and max_points. Unanswered ops never reveal their verdict.
 */
#include "items.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "layout.h"
#include "util.h"

static tl_item *add(tl_items *it, tl_item_kind kind, char *name, const char *number)
{
    it->v = tl_xrealloc(it->v, (it->n + 1) * sizeof *it->v);
    tl_item *x = &it->v[it->n++];
    memset(x, 0, sizeof *x);
    x->kind = kind;
    x->name = name;
    x->number = tl_report_fit(number, 32);
    x->graded = true;
    return x;
}

static char *dup_fit(const char *s) { return tl_report_fit(s ? s : "", 400); }

/* where an answer sits in the sheet: the node of `key` in the item's
 * mapping, else the item itself */
static void place(tl_item *x, const tl_ynode *item, const char *key, int line, int col)
{
    const tl_ynode *n = item ? tl_ynode_get(item, key) : NULL;
    x->line = n ? n->line : line;
    x->col = n ? n->col : col;
}

static void build_error(const tl_report *r, tl_items *it)
{
    tl_buf nb = {0};
    tl_buf_puts(&nb, "read ");
    char *f = tl_report_fit(tl_report_sheet(r), 60);
    tl_buf_puts(&nb, f);
    free(f);
    tl_item *x = add(it, TL_ITEM_ERROR, tl_buf_steal(&nb), "read");
    x->passed = false;
    x->max_score = r->grade ? r->grade->max_points : 0;
    x->message = dup_fit(r->error);
    x->detail = tl_xstrdup("the sheet could not be read, so nothing in it was graded; fix the "
                           "error above and submit again");
    x->line = r->error_line;
    x->col = r->error_col;
}

static void build_ops(const tl_report *r, tl_lab_feedback policy, tl_items *it)
{
    const tl_lab *lab = r->lab;
    const tl_grade *g = tl_layout_graded(r) ? r->grade : NULL;
    for (size_t i = 0; i < lab->nops; i++) {
        const tl_lab_op *op = &lab->ops[i];
        tl_item *x = add(it, TL_ITEM_OP, tl_layout_op_name(r, i), op->id);
        x->index = i;
        x->max_score = op->points;
        if (!g) {
            const tl_op_verdict *v = &r->verdicts[i];
            tl_buf m = {0};
            const char *kn = tl_kind_name(v->ev.kind);
            tl_buf_printf(&m, "%s%s", kn, v->sometimes ? " (sometimes)" : "");
            if (v->ev.reason) {
                /* the reason names the kind itself ("view: strides ..."):
                 * once is enough (run --format tap said "view: view:") */
                const char *why = v->ev.reason;
                size_t kl = strlen(kn);
                if (kl && !strncmp(why, kn, kl) && why[kl] == ':')
                    why += kl + 1 + (why[kl + 1] == ' ');
                tl_buf_puts(&m, ": ");
                tl_buf_puts(&m, why);
            }
            x->graded = false;
            x->passed = true;
            x->score = op->points;
            x->message = dup_fit(tl_buf_str(&m));
            x->detail = tl_xstrdup("");
            tl_buf_free(&m);
            place(x, op->node, "op", op->op_line, op->op_col);
            continue;
        }
        const tl_op_grade *og = &g->ops[i];
        x->passed = og->correct;
        x->unanswered = !og->answered;
        x->score = og->score;
        if (!og->answered) {
            x->message = tl_xstrdup(policy == TL_FEEDBACK_FULL
                                        ? "unanswered: predict this op to see its verdict"
                                        : "unanswered");
            x->detail = tl_xstrdup("");
        } else if (policy != TL_FEEDBACK_FULL) {
            /* feedback: wrong-ops: the mark, not the verdict or why */
            x->withheld = true;
            x->message = tl_xstrdup(og->correct ? "correct" : "wrong");
            x->detail = tl_xstrdup("");
        } else if (og->correct) {
            x->message = dup_fit(og->feedback);
            x->detail = tl_xstrdup("");
        } else {
            char *first = tl_layout_first_clause(og->feedback ? og->feedback : "wrong");
            x->message = dup_fit(first);
            free(first);
            x->detail = tl_layout_op_detail(r, i);
        }
        if (og->in_sheet) {
            x->line = og->predict_line;
            x->col = og->predict_col;
        }
    }
}

static void build_checks(const tl_report *r, tl_lab_feedback policy, tl_items *it)
{
    const tl_lab *lab = r->lab;
    const tl_grade *g = r->grade;
    for (size_t i = 0; i < lab->nquestions; i++) {
        const tl_question_grade *q = &g->questions[i];
        tl_buf nb = {0};
        char *id = tl_report_fit(lab->questions[i].id, 16);
        tl_buf_printf(&nb, "question %s", id);
        free(id);
        tl_item *x = add(it, TL_ITEM_QUESTION, tl_buf_steal(&nb), lab->questions[i].id);
        x->index = i;
        x->passed = q->passed;
        x->unanswered = !q->answered;
        x->score = q->score;
        x->max_score = q->points;
        char *why = tl_layout_reasons(q);
        x->message = q->passed ? tl_xstrdup("passed") : dup_fit(why);
        free(why);
        x->detail = tl_xstrdup("");
        if (q->in_sheet) {
            x->line = q->answer_line;
            x->col = q->answer_col;
        }
    }
    if (g->has_rules_test) {
        tl_item *x = add(it, TL_ITEM_RULES, tl_xstrdup("rules"), "rules");
        x->passed = g->rules_passed;
        x->score = g->rules_score;
        x->max_score = g->rules_max;
        tl_buf d = {0};
        size_t nbad = 0;
        for (size_t i = 0; i < lab->nops; i++) {
            const tl_op_grade *og = &g->ops[i];
            if (!og->rule_problem)
                continue;
            char *id = tl_report_fit(lab->ops[i].id, 16);
            char *p = tl_report_fit(og->rule_problem, 200);
            tl_buf_printf(&d, "%sop %s: %s", nbad ? "\n" : "", id, p);
            free(id);
            free(p);
            if (!nbad++ && og->in_sheet) {
                x->line = og->rule_line;
                x->col = og->rule_col;
            }
        }
        if (nbad) {
            tl_buf m = {0};
            tl_buf_printf(&m, "%zu rule line%s fail%s the lab's rules", nbad,
                          nbad == 1 ? "" : "s", nbad == 1 ? "s" : "");
            x->message = tl_buf_steal(&m);
        } else {
            x->message = tl_xstrdup("every rule line passes the lab's rules");
        }
        x->detail = tl_buf_steal(&d);
    }
    if (g->classify.offered && g->classify.answered) {
        /* the stretch goal, when the sheet answers it: its own pass/fail
         * test in every format, worth 0 here (its points are reported
         * apart, outside the threshold); an optional stretch left blank is
         * no failed test */
        const tl_classify_grade *cg = &g->classify;
        tl_buf nb = {0};
        tl_buf_printf(&nb, "classify() (stretch, %" PRId64 "/%" PRId64 " points)", cg->score,
                      cg->points);
        tl_item *x = add(it, TL_ITEM_CLASSIFY, tl_buf_steal(&nb), "classify");
        x->passed = cg->passed;
        x->score = 0;
        x->max_score = 0;
        tl_buf m = {0};
        if (!cg->answered)
            tl_buf_puts(&m, "not answered");
        else if (cg->passed)
            tl_buf_printf(&m, "%zu results classified, all right (%" PRId64 "/%" PRId64
                          " stretch points)", cg->checked, cg->score, cg->points);
        else
            tl_buf_printf(&m, "%zu of %zu results wrong or failed (%" PRId64 "/%" PRId64
                          " stretch points)", cg->nproblems, cg->checked, cg->score, cg->points);
        x->message = tl_buf_steal(&m);
        tl_buf d = {0};
        /* each problem names the runtime's verdict: not under wrong-ops */
        for (size_t k = 0; policy == TL_FEEDBACK_FULL && k < cg->nproblems; k++) {
            tl_buf_puts(&d, k ? "\n" : "");
            tl_escape_line(&d, cg->problems[k]);
        }
        x->detail = d.len ? tl_buf_steal(&d) : tl_xstrdup("");
        tl_buf_free(&d);
        x->line = r->lab->classify_line;
        x->col = r->lab->classify_col;
    }
    if (r->sheet_file) {
        tl_item *x = add(it, TL_ITEM_TAMPER, tl_xstrdup("tamper check"), "tamper");
        x->passed = r->nchanges == 0;
        tl_buf d = {0};
        for (size_t k = 0; k < r->nchanges; k++) {
            tl_buf_puts(&d, k ? "\n" : "");
            tl_escape_line(&d, r->changes[k]);
        }
        if (r->nchanges) {
            tl_buf m = {0};
            tl_buf_printf(&m, "tampered: the sheet changed %zu thing%s the master decides "
                          "(graded on the master): ", r->nchanges,
                          r->nchanges == 1 ? "" : "s");
            for (size_t k = 0; k < r->nchanges && k < 8; k++) {
                tl_buf_puts(&m, k ? "; " : "");
                tl_escape_line(&m, r->changes[k]);
            }
            if (r->nchanges > 8)
                tl_buf_printf(&m, "; and %zu more", r->nchanges - 8);
            x->message = tl_buf_steal(&m);
        } else {
            x->message = tl_xstrdup("the sheet keeps the master's setup, ops and checks");
        }
        x->detail = tl_buf_steal(&d);
        x->line = 1;
        x->col = 1;
    }
    tl_item *x = add(it, TL_ITEM_VERDICT, tl_xstrdup("verdict"), "verdict");
    x->passed = g->passed;
    x->message = tl_report_final_line(r);
    x->detail = tl_xstrdup("");
}

/* feedback: score-only: the tamper check and the verdict, which carries
 * every point (so the items still add up to the grade) */
static void build_score_only(const tl_report *r, tl_items *it)
{
    tl_items full;
    memset(&full, 0, sizeof full);
    build_checks(r, TL_FEEDBACK_SCORE_ONLY, &full);
    for (size_t k = 0; k < full.n; k++) {
        tl_item *x = &full.v[k];
        if (x->kind != TL_ITEM_TAMPER && x->kind != TL_ITEM_VERDICT)
            continue;
        if (x->kind == TL_ITEM_VERDICT) {
            x->score = r->grade->points;
            x->max_score = r->grade->max_points;
        }
        tl_item *y = add(it, x->kind, x->name, "");
        free(y->number);
        *y = *x;
        memset(x, 0, sizeof *x); /* moved */
    }
    for (size_t k = 0; k < full.n; k++)
        if (full.v[k].name) {
            free(full.v[k].name);
            free(full.v[k].number);
            free(full.v[k].message);
            free(full.v[k].detail);
        }
    free(full.v);
}

void tl_items_build(const tl_report *r, tl_items *it)
{
    tl_items_build_as(r, tl_report_feedback(r), it);
}

void tl_items_build_as(const tl_report *r, tl_lab_feedback policy, tl_items *it)
{
    memset(it, 0, sizeof *it);
    if (r->error || !r->lab)
        build_error(r, it);
    else if (policy == TL_FEEDBACK_SCORE_ONLY && tl_layout_graded(r))
        build_score_only(r, it);
    else {
        build_ops(r, policy, it);
        if (tl_layout_graded(r))
            build_checks(r, policy, it);
    }
    for (size_t k = 0; k < it->n; k++) {
        it->score += it->v[k].score;
        it->max_score += it->v[k].max_score;
        it->failed += it->v[k].graded && !it->v[k].passed;
    }
}

void tl_items_free(tl_items *it)
{
    for (size_t k = 0; k < it->n; k++) {
        free(it->v[k].name);
        free(it->v[k].number);
        free(it->v[k].message);
        free(it->v[k].detail);
    }
    free(it->v);
    memset(it, 0, sizeof *it);
}
