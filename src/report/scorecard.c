/* scorecard.c - the JSON scorecard of SPEC 5 (schema_version 1).
 *
 * One cJSON root per document; every cJSON_Add* result is checked and any
 * failure jumps to one cleanup (cJSON_Delete(root)). Keys are added in a
 * fixed order, so the same inputs print the same bytes. `run` and `key`
 * documents are the check document without the grading keys (predicted,
 * correct, points, score, feedback, questions, rules, score, passed).
 *
 * An unanswered op in a check document has "actual": null, "variants":
 * null and "sometimes": null: the scorecard never reveals a verdict the
 * student has not predicted yet.
 */
#include "scorecard.h"
#include "jsonnum.h"
#include "mcreport.h"

#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "dtype.h"
#include "escape.h"
#include "util.h"

#define CK(x)                                                                  \
    do {                                                                       \
        if (!(x))                                                              \
            goto fail;                                                         \
    } while (0)

cJSON *tl_scorecard_int_array(const int64_t *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    if (!a)
        return NULL;
    for (int i = 0; i < n; i++) {
        cJSON *x = tl_json_int(v[i]);
        if (!x) {
            cJSON_Delete(a);
            return NULL;
        }
        cJSON_AddItemToArray(a, x);
    }
    return a;
}

static bool add_nullable_bool(cJSON *o, const char *k, int v)
{
    if (v < 0)
        return cJSON_AddNullToObject(o, k) != NULL;
    return cJSON_AddBoolToObject(o, k, v) != NULL;
}

static bool add_str_or_null(cJSON *o, const char *k, const char *s)
{
    if (!s)
        return cJSON_AddNullToObject(o, k) != NULL;
    return cJSON_AddStringToObject(o, k, s) != NULL;
}

cJSON *tl_evidence_json(const tl_evidence *ev, bool top)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    CK(cJSON_AddStringToObject(o, "kind", tl_kind_name(ev->kind)));
    if (ev->kind == TL_KIND_ERROR) {
        cJSON *e = cJSON_AddObjectToObject(o, "error");
        CK(e);
        CK(cJSON_AddStringToObject(e, "type", ev->err_type ? ev->err_type : ""));
        CK(cJSON_AddStringToObject(e, "message", ev->err_msg ? ev->err_msg : ""));
        CK(add_str_or_null(e, "location", ev->err_where));
    } else if (ev->kind == TL_KIND_VALUE && !ev->is_tuple) {
        cJSON *v = ev->value ? cJSON_Duplicate(ev->value, 1) : cJSON_CreateNull();
        CK(v);
        cJSON_AddItemToObject(o, "value", v);
        CK(cJSON_AddStringToObject(o, "type", ev->value_type ? ev->value_type : ""));
    } else {
        CK(cJSON_AddBoolToObject(o, "same_object", ev->same_object));
        CK(cJSON_AddBoolToObject(o, "shares_storage", ev->shares_storage));
        if (ev->is_tensor) {
            cJSON *a = tl_scorecard_int_array(ev->shape, ev->ndim);
            CK(a);
            cJSON_AddItemToObject(o, "shape", a);
            a = tl_scorecard_int_array(ev->stride, ev->ndim);
            CK(a);
            cJSON_AddItemToObject(o, "stride", a);
            CK(cJSON_AddItemToObject(o, "storage_offset", tl_json_int(ev->offset)));
            CK(cJSON_AddBoolToObject(o, "contiguous", ev->contiguous));
            CK(cJSON_AddStringToObject(o, "dtype", tl_dtype_name(ev->dtype)));
            CK(cJSON_AddStringToObject(o, "device", ev->device));
        }
    }
    if (top)
        CK(cJSON_AddItemToObject(o, "bytes_allocated", tl_json_int(ev->bytes_allocated)));
    if (ev->kind != TL_KIND_ERROR && !(ev->kind == TL_KIND_VALUE && !ev->is_tuple))
        CK(add_nullable_bool(o, "write_through", ev->write_through));
    if (ev->is_tuple) {
        CK(cJSON_AddNumberToObject(o, "count", (double)ev->nitems_total));
        cJSON *items = cJSON_AddArrayToObject(o, "items");
        CK(items);
        for (size_t i = 0; i < ev->nitems; i++) {
            cJSON *it = tl_evidence_json(&ev->items[i], false);
            CK(it);
            cJSON_AddItemToArray(items, it);
        }
    }
    if (top)
        CK(add_str_or_null(o, "reason", ev->reason));
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

const char *tl_scorecard_key_answer(const tl_op_verdict *v)
{
    if (v->sometimes)
        return "sometimes";
    return tl_kind_name(v->ev.kind);
}

cJSON *tl_scorecard_variants(const tl_op_verdict *v)
{
    cJSON *a = cJSON_CreateArray();
    if (!a)
        return NULL;
    for (size_t i = 0; i < v->nvariants; i++) {
        cJSON *o = cJSON_CreateObject();
        if (!o)
            goto fail;
        cJSON_AddItemToArray(a, o);
        CK(cJSON_AddStringToObject(o, "parent", v->variants[i].parent));
        CK(cJSON_AddStringToObject(o, "kind", tl_kind_name(v->variants[i].kind)));
    }
    return a;
fail:
    cJSON_Delete(a);
    return NULL;
}

static cJSON *op_json(const tl_report *r, size_t i)
{
    const tl_lab_op *op = &r->lab->ops[i];
    const tl_op_verdict *v = &r->verdicts[i];
    const tl_op_grade *g = r->mode == TL_REPORT_CHECK ? &r->grade->ops[i] : NULL;
    bool hide = g && !g->answered;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    CK(cJSON_AddStringToObject(o, "id", op->id));
    CK(cJSON_AddStringToObject(o, "op", op->op));
    CK(cJSON_AddNumberToObject(o, "line", op->op_line));
    if (g) {
        CK(add_str_or_null(o, "predicted", g->answered ? g->predicted : NULL));
        CK(cJSON_AddBoolToObject(o, "correct", g->correct));
        CK(cJSON_AddNumberToObject(o, "points", (double)g->points));
        CK(cJSON_AddNumberToObject(o, "score", (double)g->score));
    }
    if (hide) {
        CK(cJSON_AddNullToObject(o, "actual"));
        CK(cJSON_AddNullToObject(o, "variants"));
        CK(cJSON_AddNullToObject(o, "sometimes"));
    } else {
        cJSON *a = tl_evidence_json(&v->ev, true);
        CK(a);
        cJSON_AddItemToObject(o, "actual", a);
        a = tl_scorecard_variants(v);
        CK(a);
        cJSON_AddItemToObject(o, "variants", a);
        CK(cJSON_AddBoolToObject(o, "sometimes", v->sometimes));
    }
    if (g) {
        CK(cJSON_AddStringToObject(o, "feedback", g->feedback ? g->feedback : ""));
        CK(add_str_or_null(o, "rule", g->rule));
        CK(add_str_or_null(o, "rule_problem", g->rule_problem));
    }
    if (r->mode == TL_REPORT_KEY) {
        cJSON *k = cJSON_AddObjectToObject(o, "key");
        CK(k);
        CK(cJSON_AddStringToObject(k, "answer", tl_scorecard_key_answer(v)));
        cJSON *acc = cJSON_AddArrayToObject(k, "accept");
        CK(acc);
        for (int kd = TL_KIND_VIEW; kd <= TL_KIND_VALUE; kd++) {
            bool ok;
            if (op->has_accept)
                ok = (op->accept >> kd) & 1u;
            else
                ok = tl_grade_prediction(NULL,
                                         &(tl_prediction){.kind = (tl_kind)kd}, v, NULL);
            if (ok) {
                cJSON *s = cJSON_CreateString(tl_kind_name((tl_kind)kd));
                CK(s);
                cJSON_AddItemToArray(acc, s);
            }
        }
    }
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

/* A scorecard's first keys: schema_version and tool. NULL on OOM. */
static cJSON *doc_head(void)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    CK(cJSON_AddNumberToObject(root, "schema_version", TL_SCHEMA_VERSION));
    cJSON *tool = cJSON_AddObjectToObject(root, "tool");
    CK(tool);
    CK(cJSON_AddStringToObject(tool, "name", "tlab"));
    CK(cJSON_AddStringToObject(tool, "version", PACKAGE_VERSION));
    return root;
fail:
    cJSON_Delete(root);
    return NULL;
}

/* A sheet that could not be read, with no master to list its ops: the
 * same top-level keys, empty, scored 0, with the error. */
static cJSON *unreadable_doc(const tl_report *r)
{
    cJSON *root = doc_head();
    if (!root)
        return NULL;
    cJSON *lo = cJSON_AddObjectToObject(root, "lab");
    CK(lo);
    CK(cJSON_AddNullToObject(lo, "id"));
    CK(cJSON_AddNullToObject(lo, "title"));
    CK(cJSON_AddStringToObject(lo, "file", tl_report_sheet(r)));
    CK(cJSON_AddNullToObject(lo, "sha256"));
    cJSON *dev = cJSON_AddObjectToObject(root, "device");
    CK(dev);
    CK(cJSON_AddStringToObject(dev, "requested", r->device_requested ? r->device_requested
                                                                     : "auto"));
    CK(add_str_or_null(dev, "used", r->device_used));
    CK(cJSON_AddArrayToObject(root, "ops"));
    CK(cJSON_AddArrayToObject(root, "questions"));
    cJSON *rules = cJSON_AddObjectToObject(root, "rules");
    CK(rules);
    CK(cJSON_AddBoolToObject(rules, "required", false));
    CK(cJSON_AddBoolToObject(rules, "passed", false));
    CK(cJSON_AddNumberToObject(rules, "points", 0));
    CK(cJSON_AddNumberToObject(rules, "score", 0));
    cJSON *sc = cJSON_AddObjectToObject(root, "score");
    CK(sc);
    static const char *const zero[] = {"correct", "total", "points", "max_points", "threshold",
                                       "unanswered"};
    for (size_t k = 0; k < sizeof zero / sizeof *zero; k++)
        CK(cJSON_AddNumberToObject(sc, zero[k], 0));
    CK(cJSON_AddBoolToObject(root, "passed", false));
    CK(add_str_or_null(root, "error", r->error ? r->error : "unreadable sheet"));
    CK(cJSON_AddArrayToObject(root, "misconceptions"));
    return root;
fail:
    cJSON_Delete(root);
    return NULL;
}

cJSON *tl_scorecard_build(const tl_report *r)
{
    const tl_lab *lab = r->lab;
    if (!lab)
        return unreadable_doc(r);
    cJSON *root = doc_head();
    if (!root)
        return NULL;
    cJSON *lo = cJSON_AddObjectToObject(root, "lab");
    CK(lo);
    CK(add_str_or_null(lo, "id", lab->id));
    CK(add_str_or_null(lo, "title", lab->title));
    CK(cJSON_AddStringToObject(lo, "file", lab->file));
    CK(cJSON_AddStringToObject(lo, "sha256", tl_lab_sha256(lab)));
    cJSON *dev = cJSON_AddObjectToObject(root, "device");
    CK(dev);
    CK(cJSON_AddStringToObject(dev, "requested", r->device_requested));
    CK(cJSON_AddStringToObject(dev, "used", r->device_used));
    cJSON *ops = cJSON_AddArrayToObject(root, "ops");
    CK(ops);
    for (size_t i = 0; i < lab->nops; i++) {
        cJSON *o = op_json(r, i);
        CK(o);
        cJSON_AddItemToArray(ops, o);
    }
    if (r->mode == TL_REPORT_CHECK) {
        const tl_grade *g = r->grade;
        cJSON *qs = cJSON_AddArrayToObject(root, "questions");
        CK(qs);
        for (size_t i = 0; i < lab->nquestions; i++) {
            cJSON *q = cJSON_CreateObject();
            CK(q);
            cJSON_AddItemToArray(qs, q);
            CK(cJSON_AddStringToObject(q, "id", lab->questions[i].id));
            CK(cJSON_AddBoolToObject(q, "passed", g->questions[i].passed));
            CK(cJSON_AddNumberToObject(q, "points", (double)g->questions[i].points));
            CK(cJSON_AddNumberToObject(q, "score", (double)g->questions[i].score));
            cJSON *rs = cJSON_AddArrayToObject(q, "reasons");
            CK(rs);
            for (size_t k = 0; k < g->questions[i].nreasons; k++) {
                cJSON *s = cJSON_CreateString(g->questions[i].reasons[k]);
                CK(s);
                cJSON_AddItemToArray(rs, s);
            }
        }
        cJSON *rules = cJSON_AddObjectToObject(root, "rules");
        CK(rules);
        CK(cJSON_AddBoolToObject(rules, "required", lab->rules_required));
        CK(cJSON_AddBoolToObject(rules, "passed", g->rules_passed));
        CK(cJSON_AddNumberToObject(rules, "points", (double)g->rules_max));
        CK(cJSON_AddNumberToObject(rules, "score", (double)g->rules_score));
        cJSON *sc = cJSON_AddObjectToObject(root, "score");
        CK(sc);
        CK(cJSON_AddNumberToObject(sc, "correct", (double)g->correct));
        CK(cJSON_AddNumberToObject(sc, "total", (double)g->total));
        CK(cJSON_AddNumberToObject(sc, "points", (double)g->points));
        CK(cJSON_AddNumberToObject(sc, "max_points", (double)g->max_points));
        CK(cJSON_AddNumberToObject(sc, "threshold", (double)g->threshold));
        CK(cJSON_AddNumberToObject(sc, "unanswered", (double)g->unanswered));
        if (g->classify.offered) {
            const tl_classify_grade *cg = &g->classify;
            cJSON *c = cJSON_AddObjectToObject(root, "classify");
            CK(c);
            CK(cJSON_AddBoolToObject(c, "answered", cg->answered));
            CK(cJSON_AddBoolToObject(c, "passed", cg->passed));
            CK(cJSON_AddNumberToObject(c, "points", (double)cg->points));
            CK(cJSON_AddNumberToObject(c, "score", (double)cg->score));
            CK(cJSON_AddNumberToObject(c, "checked", (double)cg->checked));
            cJSON *ps = cJSON_AddArrayToObject(c, "problems");
            CK(ps);
            for (size_t k = 0; k < cg->nproblems; k++) {
                cJSON *s = cJSON_CreateString(cg->problems[k]);
                CK(s);
                cJSON_AddItemToArray(ps, s);
            }
        }
        CK(cJSON_AddBoolToObject(root, "passed", g->passed && !r->error));
        if (r->sheet_file) {
            /* graded against a master (grade, check --lab) */
            cJSON *sub = cJSON_AddObjectToObject(root, "submission");
            CK(sub);
            CK(cJSON_AddStringToObject(sub, "file", r->sheet_file));
            CK(add_str_or_null(sub, "sha256", r->sheet_sha256));
            CK(cJSON_AddBoolToObject(sub, "tampered", r->nchanges > 0));
            cJSON *ch = cJSON_AddArrayToObject(sub, "changes");
            CK(ch);
            for (size_t k = 0; k < r->nchanges; k++) {
                cJSON *c = cJSON_CreateString(r->changes[k]);
                CK(c);
                cJSON_AddItemToArray(ch, c);
            }
        }
        CK(add_str_or_null(root, "error", r->error));
        cJSON *mc = tl_mcreport_json(lab, r->verdicts, r->grade);
        CK(mc);
        cJSON_AddItemToObject(root, "misconceptions", mc);
    }
    return root;
fail:
    cJSON_Delete(root);
    return NULL;
}

/* Pretty printer: 2-space indentation, "key": value, arrays of scalars on
 * one line ([6, 1]); leaves are printed by cJSON (escaping, numbers). */
static void pj(tl_buf *b, const cJSON *it, int ind)
{
    if (cJSON_IsObject(it) || cJSON_IsArray(it)) {
        bool obj = cJSON_IsObject(it);
        if (!it->child) {
            tl_buf_puts(b, obj ? "{}" : "[]");
            return;
        }
        bool flat = !obj;
        for (const cJSON *c = it->child; c && flat; c = c->next)
            flat = !cJSON_IsObject(c) && !cJSON_IsArray(c);
        if (flat) {
            tl_buf_putc(b, '[');
            for (const cJSON *c = it->child; c; c = c->next) {
                pj(b, c, ind);
                if (c->next)
                    tl_buf_puts(b, ", ");
            }
            tl_buf_putc(b, ']');
            return;
        }
        tl_buf_puts(b, obj ? "{\n" : "[\n");
        for (const cJSON *c = it->child; c; c = c->next) {
            for (int k = 0; k <= ind; k++)
                tl_buf_puts(b, "  ");
            if (obj) {
                cJSON *key = cJSON_CreateString(c->string ? c->string : "");
                char *ks = key ? cJSON_PrintUnformatted(key) : NULL;
                tl_buf_puts(b, ks ? ks : "\"\"");
                tl_buf_puts(b, ": ");
                cJSON_free(ks);
                cJSON_Delete(key);
            }
            pj(b, c, ind + 1);
            if (c->next)
                tl_buf_putc(b, ',');
            tl_buf_putc(b, '\n');
        }
        for (int k = 0; k < ind; k++)
            tl_buf_puts(b, "  ");
        tl_buf_putc(b, obj ? '}' : ']');
        return;
    }
    /* a leaf (numbers exact, jsonnum.h) */
    tl_json_append_compact(b, it);
}

char *tl_scorecard_print_json(cJSON *root)
{
    tl_buf b = {0};
    pj(&b, root, 0);
    tl_buf_putc(&b, '\n');
    return tl_escape_json_controls(tl_buf_steal(&b));
}

tl_lab_feedback tl_report_feedback(const tl_report *r)
{
    if (r->mode != TL_REPORT_CHECK || !r->grade || !r->lab || r->error)
        return TL_FEEDBACK_FULL;
    return r->lab->feedback;
}

const char *tl_report_sheet(const tl_report *r)
{
    return r->sheet_file ? r->sheet_file : r->lab ? r->lab->file : "-";
}

char *tl_scorecard_print(const tl_report *r)
{
    cJSON *root = tl_scorecard_build(r);
    if (!root)
        return NULL;
    char *s = tl_scorecard_print_json(root);
    cJSON_Delete(root);
    return s;
}

char *tl_scorecard_print_each(const tl_report *rs, size_t n,
                              cJSON *(*doc)(const tl_report *r))
{
    cJSON *root = n == 1 ? doc(&rs[0]) : cJSON_CreateArray();
    if (!root)
        return NULL;
    for (size_t k = 0; n != 1 && k < n; k++) {
        cJSON *d = doc(&rs[k]);
        if (!d) {
            cJSON_Delete(root);
            return NULL;
        }
        cJSON_AddItemToArray(root, d);
    }
    char *s = tl_scorecard_print_json(root);
    cJSON_Delete(root);
    return s;
}
