/* grade.c - marking predictions, questions and rules (SPEC 3-4), and the
 * tamper check of `tlab grade` (SPEC 7).
 *
 * Kind rules: view is right for view and alias (the no-op cases count as
 * views of self); alias only for alias; copy, error, value only for
 * themselves; sometimes when the verdict changed across the parent
 * variants. An op's `accept:` list replaces those rules for the kind. Every
 * predicted field must match too. Blank predictions are wrong and counted
 * as unanswered; their feedback never names the verdict. A malformed one
 * (lab.h) is wrong, and its feedback is its located message alone. With
 * `rules: required: true` every op needs a rule line, answered or not.
 *
 * Text checks work on words: maximal runs of letters/digits (bytes >= 0x80
 * count as letters), compared case-insensitively; a keyword matches its
 * plural and singular forms (stride/strides, index/indexes, copy/copies).
 */
#include "grade.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "escape.h"
#include "util.h"

/* A buffer's text at its exact size (tl_buf_steal keeps the doubling
 * slack): grades stay alive until the last report, one per sheet. */
static char *steal_fit(tl_buf *b)
{
    char *s = tl_xstrndup(b->data ? b->data : "", b->len);
    tl_buf_free(b);
    return s;
}

/* ------------------------------------------------------------- words */

/* The words of a text, lower-cased, in one buffer (one allocation for the
 * text, one for the pointers: answers are split once per question). */
typedef struct words {
    char *buf;
    char **w;
    size_t n;
} words;

static bool wordch(unsigned char c) { return isalnum(c) || c >= 0x80 || c == '_'; }

static void split_words(const char *s, words *out)
{
    memset(out, 0, sizeof *out);
    if (!s)
        return;
    size_t len = strlen(s);
    out->buf = tl_xmalloc(len + 1);
    out->w = tl_xmalloc((len / 2 + 1) * sizeof *out->w);
    char *d = out->buf;
    while (*s) {
        while (*s && !wordch((unsigned char)*s))
            s++;
        if (!*s)
            break;
        out->w[out->n++] = d;
        while (*s && wordch((unsigned char)*s))
            *d++ = (char)tolower((unsigned char)*s++);
        *d++ = '\0';
    }
}

static void free_words(words *w)
{
    free(w->buf);
    free(w->w);
}

/* a == b up to a plural ending on either side */
static bool plural_eq(const char *a, const char *b)
{
    if (!strcmp(a, b))
        return true;
    size_t la = strlen(a), lb = strlen(b);
    if (la < lb) {
        const char *t = a;
        a = b;
        b = t;
        size_t tl = la;
        la = lb;
        lb = tl;
    }
    /* a is the longer: a == b+"s" / b+"es" / b[:-1]+"ies" */
    if (la == lb + 1 && a[lb] == 's' && !strncmp(a, b, lb))
        return true;
    if (la == lb + 2 && !strcmp(a + lb, "es") && !strncmp(a, b, lb))
        return true;
    if (lb >= 2 && b[lb - 1] == 'y' && la == lb + 2 && !strncmp(a, b, lb - 1) &&
        !strcmp(a + lb - 1, "ies"))
        return true;
    return false;
}

static bool mentions(const words *t, const char *phrase)
{
    words p;
    split_words(phrase, &p);
    bool found = false;
    if (p.n > 0)
        for (size_t i = 0; i + p.n <= t->n && !found; i++) {
            size_t k = 0;
            while (k < p.n && plural_eq(t->w[i + k], p.w[k]))
                k++;
            found = k == p.n;
        }
    free_words(&p);
    return found;
}

bool tl_grade_mentions(const char *text, const char *phrase)
{
    words t;
    split_words(text, &t);
    bool found = mentions(&t, phrase);
    free_words(&t);
    return found;
}

static bool is_only(const words *t, const char *phrase)
{
    words p;
    split_words(phrase, &p);
    bool eq = p.n > 0 && p.n == t->n;
    for (size_t i = 0; eq && i < p.n; i++)
        eq = strcmp(t->w[i], p.w[i]) == 0;
    free_words(&p);
    return eq;
}

bool tl_grade_is_only(const char *text, const char *phrase)
{
    words t;
    split_words(text, &t);
    bool eq = is_only(&t, phrase);
    free_words(&t);
    return eq;
}

static void add_reason(char ***v, size_t *n, char *s)
{
    *v = tl_xrealloc(*v, (*n + 1) * sizeof **v);
    (*v)[(*n)++] = s;
}

bool tl_grade_question(const tl_lab_question *q, const char *answer, char ***reasons,
                       size_t *nreasons)
{
    if (!answer || !answer[strspn(answer, " \t\r\n")]) {
        add_reason(reasons, nreasons, tl_xstrdup("unanswered"));
        return false;
    }
    bool ok = true;
    tl_buf b = {0};
    words w;
    split_words(answer, &w);
    for (size_t i = 0; i < q->n_reject; i++)
        if (is_only(&w, q->reject[i])) {
            tl_buf_printf(&b, "the answer is only '%s': say why, specifically", q->reject[i]);
            add_reason(reasons, nreasons, steal_fit(&b));
            ok = false;
            break;
        }
    if (q->n_mention > 0) {
        bool any = false;
        for (size_t i = 0; i < q->n_mention && !any; i++)
            any = mentions(&w, q->mention_any[i]);
        if (!any) {
            tl_buf_puts(&b, "mentions none of: ");
            for (size_t i = 0; i < q->n_mention; i++)
                tl_buf_printf(&b, "%s%s", i ? ", " : "", q->mention_any[i]);
            add_reason(reasons, nreasons, steal_fit(&b));
            ok = false;
        }
    }
    if (q->min_words > 0 && (int64_t)w.n < q->min_words) {
        tl_buf_printf(&b, "%zu word%s; at least %" PRId64 " needed", w.n, w.n == 1 ? "" : "s",
                      q->min_words);
        add_reason(reasons, nreasons, steal_fit(&b));
        ok = false;
    }
    free_words(&w);
    tl_buf_free(&b);
    return ok;
}

/* ------------------------------------------------------------ values */

static bool num_eq(double a, double b)
{
    if (a == b)
        return true;
    double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= 1e-6 * (m > 1 ? m : 1);
}

static bool parse_num(const char *s, double *out)
{
    if (!*s)
        return false;
    char *end;
    double d = strtod(s, &end);
    if (*end)
        return false;
    *out = d;
    return true;
}

static bool value_match(const tl_ynode *pred, const cJSON *act)
{
    if (!act)
        return false;
    if (pred->kind == TL_Y_SEQ) {
        if (!cJSON_IsArray(act) || (size_t)cJSON_GetArraySize(act) != pred->n)
            return false;
        size_t i = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, act)
        {
            if (!value_match(pred->items[i++], it))
                return false;
        }
        return true;
    }
    if (pred->kind != TL_Y_SCALAR)
        return false;
    const char *s = pred->value;
    if (cJSON_IsNull(act))
        return tl_ynode_is_null(pred) || !strcmp(s, "None");
    if (cJSON_IsBool(act)) {
        bool t = cJSON_IsTrue(act);
        if (!strcasecmp(s, "true"))
            return t;
        if (!strcasecmp(s, "false"))
            return !t;
        return false;
    }
    if (cJSON_IsNumber(act)) {
        double d;
        return parse_num(s, &d) && num_eq(d, act->valuedouble);
    }
    if (cJSON_IsString(act)) {
        const char *a = act->valuestring;
        if (!strcmp(a, s))
            return true;
        if (!strncmp(a, "torch.", 6) && !strcmp(a + 6, s))
            return true;
        if (!strncmp(s, "torch.", 6) && !strcmp(s + 6, a))
            return true;
        double d1, d2;
        if (parse_num(a, &d1) && parse_num(s, &d2))
            return num_eq(d1, d2);
        return false;
    }
    return false;
}

/* ---------------------------------------------------------- predictions */

static void put_ints(tl_buf *b, const int64_t *v, int n)
{
    tl_buf_putc(b, '[');
    for (int i = 0; i < n; i++)
        tl_buf_printf(b, "%s%" PRId64, i ? ", " : "", v[i]);
    tl_buf_putc(b, ']');
}

static bool kind_right(const tl_lab_op *op, tl_kind pk, const tl_op_verdict *v)
{
    if (op && op->has_accept)
        return (op->accept >> pk) & 1u;
    tl_kind ak = v->ev.kind;
    switch (pk) {
    case TL_KIND_VIEW: return ak == TL_KIND_VIEW || ak == TL_KIND_ALIAS;
    case TL_KIND_ALIAS: return ak == TL_KIND_ALIAS;
    case TL_KIND_COPY: return ak == TL_KIND_COPY;
    case TL_KIND_ERROR: return ak == TL_KIND_ERROR;
    case TL_KIND_VALUE: return ak == TL_KIND_VALUE;
    case TL_KIND_SOMETIMES: return v->sometimes;
    default: return false;
    }
}

static void why_sep(tl_buf *why)
{
    if (why && why->len)
        tl_buf_puts(why, "; ");
}

/* A predicted shape or stride against the actual one; when wrong, why
 * (if given) says so: "shape [2, 3] is wrong". */
static bool ints_right(tl_buf *why, const char *what, const int64_t *want, int nwant,
                       const int64_t *got, int ngot)
{
    if (tl_shape_equal(nwant, want, ngot, got))
        return true;
    if (why) {
        why_sep(why);
        tl_buf_printf(why, "%s ", what);
        put_ints(why, want, nwant);
        tl_buf_puts(why, " is wrong");
    }
    return false;
}

/* The op stopped at --timeout, --sheet-timeout or --max-bytes (the
 * LimitError messages of util.c's tl_deadline_message and storage.c), not
 * at a limit of the language such as nesting. */
static bool resource_limit(const tl_evidence *ev)
{
    if (ev->kind != TL_KIND_ERROR || !ev->err_type || strcmp(ev->err_type, "LimitError") ||
        !ev->err_msg)
        return false;
    static const char *const starts[] = {"time limit exceeded", "sheet time budget exceeded",
                                         "memory limit exceeded"};
    for (size_t i = 0; i < sizeof starts / sizeof *starts; i++)
        if (!strncmp(ev->err_msg, starts[i], strlen(starts[i])))
            return true;
    return false;
}

bool tl_grade_prediction(const tl_lab_op *op, const tl_prediction *p,
                         const tl_op_verdict *v, tl_buf *why)
{
    if (!p || p->blank)
        return false;
    if (p->malformed) {
        if (why)
            tl_buf_puts(why, p->bad_msg);
        return false;
    }
    const tl_evidence *ev = &v->ev;
    /* running out of time or memory is no verdict of the op's: it says
     * nothing about view or copy, so no prediction, `error` included,
     * matches it (SPEC 7: a located limit error for that op, score 0) */
    if (resource_limit(ev)) {
        if (why) {
            why_sep(why);
            tl_buf_puts(why, "the op ran past tlab's time or memory limit, which no "
                             "prediction matches");
        }
        return false;
    }
    bool ok = true;
    if (p->kind != TL_KIND_NONE && !kind_right(op, p->kind, v)) {
        ok = false;
        if (why) {
            why_sep(why);
            if (p->kind == TL_KIND_SOMETIMES)
                tl_buf_printf(why, "predicted sometimes, but the verdict is %s for every "
                              "parent variant", tl_kind_name(ev->kind));
            else
                tl_buf_printf(why, "predicted %s, actual %s", tl_kind_name(p->kind),
                              tl_kind_name(ev->kind));
        }
    }
    bool tfields = p->has_shape || p->has_stride || p->has_offset || p->has_contiguous ||
                   p->has_dtype;
    if (tfields && !ev->is_tensor) {
        if (why) {
            why_sep(why);
            tl_buf_printf(why, "the result is %s, so it has no shape or strides",
                          ev->is_tuple ? "a tuple" : ev->kind == TL_KIND_ERROR ? "an error"
                                                                               : "not a tensor");
        }
        return false;
    }
    if (p->has_shape && !ints_right(why, "shape", p->shape, p->shape_n, ev->shape, ev->ndim))
        ok = false;
    if (p->has_stride &&
        !ints_right(why, "stride", p->stride, p->stride_n, ev->stride, ev->ndim))
        ok = false;
    if (p->has_offset && p->offset != ev->offset) {
        ok = false;
        if (why) {
            why_sep(why);
            tl_buf_printf(why, "offset %" PRId64 " is wrong", p->offset);
        }
    }
    if (p->has_contiguous && p->contiguous != ev->contiguous) {
        ok = false;
        if (why) {
            why_sep(why);
            tl_buf_printf(why, "contiguous: %s is wrong", p->contiguous ? "true" : "false");
        }
    }
    if (p->has_dtype && strcmp(p->dtype, tl_dtype_name(ev->dtype)) != 0) {
        ok = false;
        if (why) {
            why_sep(why);
            tl_buf_printf(why, "dtype %s is wrong", p->dtype);
        }
    }
    if (p->has_value && (ev->kind != TL_KIND_VALUE || !value_match(p->value, ev->value))) {
        ok = false;
        if (why) {
            why_sep(why);
            tl_buf_puts(why, ev->kind == TL_KIND_VALUE ? "the value is wrong"
                                                       : "the result is not a plain value");
        }
    }
    if (p->has_error &&
        (ev->kind != TL_KIND_ERROR || !ev->err_type || strcasecmp(ev->err_type, p->error))) {
        ok = false;
        if (why) {
            why_sep(why);
            if (ev->kind == TL_KIND_ERROR)
                tl_buf_printf(why, "predicted %s, but it raised %s", p->error, ev->err_type);
            else
                tl_buf_printf(why, "predicted %s, but nothing was raised", p->error);
        }
    }
    return ok;
}

/* --------------------------------------------------------------- sheet */

/* The op (question) of this id; a sheet keeps the master's order, so the
 * same position is tried first: grading and the tamper check stay linear
 * in the ops instead of quadratic. */
static const tl_lab_op *find_op(const tl_lab *lab, const char *id, size_t hint)
{
    if (hint < lab->nops && !strcmp(lab->ops[hint].id, id))
        return &lab->ops[hint];
    for (size_t i = 0; i < lab->nops; i++)
        if (!strcmp(lab->ops[i].id, id))
            return &lab->ops[i];
    return NULL;
}

static const tl_lab_question *find_q(const tl_lab *lab, const char *id, size_t hint)
{
    if (hint < lab->nquestions && !strcmp(lab->questions[hint].id, id))
        return &lab->questions[hint];
    for (size_t i = 0; i < lab->nquestions; i++)
        if (!strcmp(lab->questions[i].id, id))
            return &lab->questions[i];
    return NULL;
}

/* ------------------------------------------------------------ classify */

static void add_problem(tl_classify_grade *c, tl_buf *line)
{
    c->problems = tl_xrealloc(c->problems, (c->nproblems + 1) * sizeof *c->problems);
    c->problems[c->nproblems++] = steal_fit(line);
}

static void first_error_line(tl_buf *b, const char *rendered)
{
    /* "FILE:LINE:COL: error: MSG": the whole first line names the place */
    const char *nl = strchr(rendered, '\n');
    tl_buf_append(b, rendered, nl ? (size_t)(nl - rendered) : strlen(rendered));
}

static void check_answer(tl_classify_grade *c, const tl_lab_op *op, const char *parent,
                         const tl_classify_out *co, tl_kind verdict, const char *reason)
{
    if (!co->ran)
        return;
    c->checked++;
    tl_buf b = {0};
    if (co->error) {
        tl_buf_printf(&b, "op %s (%s)%s%s: classify() failed: ", op->id, op->op,
                      parent ? " on the parent " : "", parent ? parent : "");
        first_error_line(&b, co->error);
        add_problem(c, &b);
        return;
    }
    tl_kind truth = tl_classify_truth(verdict);
    if (co->answer == truth)
        return;
    tl_buf_printf(&b, "op %s (%s)%s%s: classify said '%s', the runtime says %s", op->id,
                  op->op, parent ? " on the parent " : "", parent ? parent : "",
                  tl_kind_name(co->answer), tl_kind_name(verdict));
    if (reason && !parent)
        tl_buf_printf(&b, " (%s)", reason);
    add_problem(c, &b);
}

/* the classifier's answers in ran[] (runs made with it) against the
 * runtime's verdicts in truth[] (the same ops) */
static void check_all(const tl_lab *master, const tl_op_verdict *truth,
                      const tl_op_verdict *ran, tl_classify_grade *c)
{
    for (size_t i = 0; i < master->nops; i++) {
        check_answer(c, &master->ops[i], NULL, &ran[i].cls, truth[i].ev.kind,
                     truth[i].ev.reason);
        for (size_t k = 0; k < ran[i].nvariants && k < truth[i].nvariants; k++)
            check_answer(c, &master->ops[i], truth[i].variants[k].parent, &ran[i].vcls[k],
                         truth[i].variants[k].kind, NULL);
    }
    c->passed = c->checked > 0 && c->nproblems == 0;
    c->score = c->passed ? c->points : 0;
}

static void not_run(tl_classify_grade *c, const char *why)
{
    tl_buf b = {0};
    tl_buf_puts(&b, "classify() was not run by the autograder");
    if (why && *why) {
        tl_buf_puts(&b, ": ");
        first_error_line(&b, why);
    }
    add_problem(c, &b);
    c->passed = false;
    c->score = 0;
}

static void grade_classify(const tl_lab *master, const tl_lab *sheet,
                           const tl_op_verdict *v, tl_classify_grade *c)
{
    memset(c, 0, sizeof *c);
    if (!master->classify)
        return;
    c->offered = true;
    c->points = master->classify_points;
    c->answered = sheet->classify && sheet->classify[0];
    if (!c->answered)
        return;
    /* the classifier ran with the ops when the sheet is what ran; another
     * sheet's is run by tl_grade_classify_ran (tlab grade, check --lab) */
    if (sheet == master)
        check_all(master, v, v, c);
    else
        not_run(c, NULL);
}

void tl_grade_classify_ran(const tl_lab *master, const tl_op_verdict *truth,
                           const tl_op_verdict *ran, const char *why, tl_classify_grade *c)
{
    if (!c->offered || !c->answered)
        return;
    for (size_t i = 0; i < c->nproblems; i++)
        free(c->problems[i]);
    free(c->problems);
    c->problems = NULL;
    c->nproblems = 0;
    c->checked = 0;
    if (ran)
        check_all(master, truth, ran, c);
    else
        not_run(c, why);
}

/* where an answer sits in the sheet: the node of `key` in the item's
 * mapping, else the item itself (line, col) */
static void place(const tl_ynode *item, const char *key, int line, int col, int *out_line,
                  int *out_col)
{
    const tl_ynode *n = item ? tl_ynode_get(item, key) : NULL;
    *out_line = n ? n->line : line;
    *out_col = n ? n->col : col;
}

/* b's text in the grade's pool (b is freed) */
static const char *keep(tl_grade *g, tl_buf *b)
{
    const char *s = tl_strpool_intern_n(g->texts, b->data ? b->data : "", b->len);
    tl_buf_free(b);
    return s;
}

void tl_grade_sheet(const tl_lab *master, const tl_lab *sheet,
                    const tl_op_verdict *verdicts, tl_grade *g)
{
    tl_grade_sheet_in(master, sheet, verdicts, NULL, g);
}

void tl_grade_sheet_in(const tl_lab *master, const tl_lab *sheet,
                       const tl_op_verdict *verdicts, tl_strpool *texts, tl_grade *g)
{
    memset(g, 0, sizeof *g);
    g->own_texts = texts == NULL;
    g->texts = texts ? texts : tl_strpool_new();
    g->nops = master->nops;
    g->ops = tl_xcalloc(master->nops ? master->nops : 1, sizeof *g->ops);
    g->total = (int64_t)master->nops;
    g->threshold = tl_lab_threshold_count(master);
    g->rules_passed = true;
    for (size_t i = 0; i < master->nops; i++) {
        const tl_lab_op *mop = &master->ops[i];
        const tl_lab_op *sop = sheet == master ? mop : find_op(sheet, mop->id, i);
        tl_op_grade *og = &g->ops[i];
        og->points = mop->points;
        g->max_points += mop->points;
        const tl_prediction *pred = sop ? &sop->predict : NULL;
        const char *rule = sop ? sop->rule : NULL;
        og->in_sheet = sop != NULL;
        og->answered = pred && !pred->blank;
        if (sop) {
            place(sop->node, "predict", sop->line, sop->col, &og->predict_line,
                  &og->predict_col);
            place(sop->node, "rule", sop->line, sop->col, &og->rule_line, &og->rule_col);
        }
        og->rule = tl_strpool_intern(g->texts, rule);
        tl_buf why = {0};
        if (!og->answered) {
            g->unanswered++;
            og->feedback = tl_strpool_intern(g->texts, "unanswered");
        } else {
            og->predicted = tl_strpool_intern(g->texts, pred->text);
            og->pred_mapping = pred->mapping;
            og->pred_kind = pred->kind;
            og->malformed = pred->malformed;
            og->correct = tl_grade_prediction(mop, pred, &verdicts[i], &why);
            if (og->malformed) {
                /* SPEC 3: that op scores 0 with its located message; the
                 * message is all it says (no verdict for an answer that is
                 * not one) */
            } else if (og->correct) {
                og->score = mop->points;
                g->correct++;
                g->points += mop->points;
                tl_buf_puts(&why, "correct; ");
                tl_buf_puts(&why, verdicts[i].ev.reason ? verdicts[i].ev.reason : "");
            } else if (verdicts[i].ev.reason) {
                tl_buf_puts(&why, ". ");
                tl_buf_puts(&why, verdicts[i].ev.reason);
            }
            if (!og->correct && !og->malformed && mop->explanation) {
                tl_buf_puts(&why, ". ");
                tl_buf_puts(&why, mop->explanation);
            }
            og->feedback = keep(g, &why);
        }
        /* lab-wide rules on the rule line */
        tl_buf rp = {0};
        /* SPEC 3: every op, answered or not, needs a real rule (a blank
         * sheet earned the rules point when only answered ops were asked) */
        if (master->rules_required && !rule)
            tl_buf_puts(&rp, "no rule: line (this lab requires one for every op)");
        if (rule)
            for (size_t k = 0; k < master->n_rules_reject; k++)
                if (tl_grade_mentions(rule, master->rules_reject[k])) {
                    tl_buf_printf(&rp, "the rule '%s' is not a rule (rejected phrase '%s')",
                                  rule, master->rules_reject[k]);
                    break;
                }
        if (rp.len) {
            og->rule_problem = keep(g, &rp);
            g->rules_passed = false;
        }
        tl_buf_free(&rp);
    }
    g->nquestions = master->nquestions;
    g->questions = tl_xcalloc(master->nquestions ? master->nquestions : 1,
                              sizeof *g->questions);
    g->questions_passed = true;
    for (size_t i = 0; i < master->nquestions; i++) {
        const tl_lab_question *mq = &master->questions[i];
        const tl_lab_question *sq = sheet == master ? mq : find_q(sheet, mq->id, i);
        tl_question_grade *qg = &g->questions[i];
        const char *answer = sq ? sq->answer : NULL;
        qg->in_sheet = sq != NULL;
        qg->answered = answer != NULL;
        qg->answer = answer ? tl_strpool_intern(g->texts, answer) : NULL;
        if (sq)
            place(sq->node, "answer", sq->line, sq->col, &qg->answer_line, &qg->answer_col);
        qg->passed = tl_grade_question(mq, answer, &qg->reasons, &qg->nreasons);
        qg->points = mq->points;
        qg->score = qg->passed ? mq->points : 0;
        g->max_points += qg->points;
        g->points += qg->score;
        if (!qg->passed)
            g->questions_passed = false;
    }
    /* the lab-wide rules check: one test, worth rules_points */
    if (master->has_rules) {
        g->has_rules_test = true;
        g->rules_max = master->rules_points;
        g->rules_score = g->rules_passed ? master->rules_points : 0;
        g->max_points += g->rules_max;
        g->points += g->rules_score;
    }
    g->passed = g->correct >= g->threshold && g->questions_passed && g->rules_passed;
    grade_classify(master, sheet, verdicts, &g->classify);
}

void tl_grade_free(tl_grade *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->classify.nproblems; i++)
        free(g->classify.problems[i]);
    free(g->classify.problems);
    free(g->ops);
    for (size_t i = 0; i < g->nquestions; i++) {
        for (size_t k = 0; k < g->questions[i].nreasons; k++)
            free(g->questions[i].reasons[k]);
        free(g->questions[i].reasons);
    }
    free(g->questions);
    if (g->own_texts)
        tl_strpool_free(g->texts);
    memset(g, 0, sizeof *g);
}

/* -------------------------------------------------------------- tamper */

static bool str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return (a ? *a : 0) == (b ? *b : 0);
    return strcmp(a, b) == 0;
}

static bool strv_eq(char **a, size_t na, char **b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (strcmp(a[i], b[i]) != 0)
            return false;
    return true;
}

static void change(char ***v, size_t *n, const char *fmt, const char *id)
{
    tl_buf b = {0};
    char *safe = tl_escape_line_dup(id);
    tl_buf_printf(&b, fmt, safe);
    free(safe);
    add_reason(v, n, steal_fit(&b));
}

char *tl_grade_wrong_lab(const tl_lab *m, const tl_lab *s, int *line, int *col)
{
    *line = *col = 0;
    if (!m->id || !s->id || !strcmp(m->id, s->id))
        return NULL;
    const tl_ynode *n = s->root && s->root->kind == TL_Y_MAP ? tl_ynode_get(s->root, "id")
                                                               : NULL;
    *line = n ? n->line : 1;
    *col = n ? n->col : 1;
    tl_buf b = {0};
    tl_escape_line(&b, s->file);
    tl_buf_printf(&b, ":%d:%d: error: this sheet is for lab '", *line, *col);
    tl_escape_line(&b, s->id);
    tl_buf_puts(&b, "', but it is graded against lab '");
    tl_escape_line(&b, m->id);
    tl_buf_puts(&b, "': a sheet of another lab scores 0; fill in the sheet of this lab");
    return steal_fit(&b);
}

size_t tl_grade_tamper(const tl_lab *m, const tl_lab *s, char ***changes)
{
    char **v = NULL;
    size_t n = 0;
    if (m->id && s->id && strcmp(m->id, s->id) != 0) {
        /* another lab altogether: one change, not one per op */
        tl_buf b = {0};
        tl_buf_puts(&b, "wrong lab (id ");
        tl_escape_line(&b, s->id);
        tl_buf_puts(&b, ", expected ");
        tl_escape_line(&b, m->id);
        tl_buf_putc(&b, ')');
        add_reason(&v, &n, steal_fit(&b));
        *changes = v;
        return n;
    }
    if (!str_eq(m->setup, s->setup))
        change(&v, &n, "setup%s", "");
    if (!str_eq(m->parent, s->parent))
        change(&v, &n, "parent%s", "");
    if (m->device != s->device)
        change(&v, &n, "device%s", "");
    if (m->has_threshold != s->has_threshold || m->threshold_pct != s->threshold_pct ||
        m->threshold_value != s->threshold_value)
        change(&v, &n, "threshold%s", "");
    if (m->rules_required != s->rules_required ||
        !strv_eq(m->rules_reject, m->n_rules_reject, s->rules_reject, s->n_rules_reject))
        change(&v, &n, "rules%s", "");
    for (size_t i = 0; i < m->nops; i++) {
        const tl_lab_op *mo = &m->ops[i];
        const tl_lab_op *so = find_op(s, mo->id, i);
        if (!so) {
            change(&v, &n, "op %s removed", mo->id);
            continue;
        }
        if (!str_eq(mo->op, so->op))
            change(&v, &n, "op %s: op", mo->id);
        /* a blank sheet has no accept list (tlab new drops it): only a
         * list of the sheet's own that differs is a change */
        if (so->has_accept && (!mo->has_accept || mo->accept != so->accept))
            change(&v, &n, "op %s: accept", mo->id);
        if (mo->points != so->points)
            change(&v, &n, "op %s: points", mo->id);
    }
    for (size_t i = 0; i < s->nops; i++)
        if (!find_op(m, s->ops[i].id, i))
            change(&v, &n, "op %s added", s->ops[i].id);
    for (size_t i = 0; i < m->nquestions; i++) {
        const tl_lab_question *mq = &m->questions[i];
        const tl_lab_question *sq = find_q(s, mq->id, i);
        if (!sq) {
            change(&v, &n, "question %s removed", mq->id);
            continue;
        }
        if (!strv_eq(mq->mention_any, mq->n_mention, sq->mention_any, sq->n_mention))
            change(&v, &n, "question %s: mention_any", mq->id);
        if (!strv_eq(mq->reject, mq->n_reject, sq->reject, sq->n_reject))
            change(&v, &n, "question %s: reject", mq->id);
        if (mq->min_words != sq->min_words)
            change(&v, &n, "question %s: min_words", mq->id);
    }
    for (size_t i = 0; i < s->nquestions; i++)
        if (!find_q(m, s->questions[i].id, i))
            change(&v, &n, "question %s added", s->questions[i].id);
    *changes = v;
    return n;
}
