/* prairielearn.c - PrairieLearn external-grader results.json
 * (PrairieLearn docs/externalGrading.md): gradable, score in [0, 1],
 * message, format_errors, and tests[] with name, description, points,
 * max_points, message, output.
 *
 * score = the items' points over their maximum (items.h), so it agrees
 * with `check`: failed questions and rules cost their points. An
 * unreadable sheet is `gradable: false` with the located error in
 * format_errors (PrairieLearn then does not use up the student's attempt).
 */
#include "prairielearn.h"

#include <stdlib.h>
#include <string.h>

#include "items.h"
#include "layout.h"
#include "util.h"

#define JK(x)                                                                  \
    do {                                                                       \
        if (!(x))                                                              \
            goto fail;                                                         \
    } while (0)

static cJSON *document(const tl_report *r)
{
    tl_items it;
    tl_items_build(r, &it);
    bool gradable = !r->error && r->lab;
    char *msg = NULL;
    cJSON *root = cJSON_CreateObject();
    JK(root);
    JK(cJSON_AddBoolToObject(root, "gradable", gradable));
    double score = it.max_score > 0 ? (double)it.score / (double)it.max_score : 0;
    if (!gradable)
        score = 0;
    JK(cJSON_AddNumberToObject(root, "score", score));
    if (gradable) {
        tl_buf m = {0};
        char *fl = tl_report_final_line(r);
        tl_buf_puts(&m, fl);
        free(fl);
        for (size_t k = 0; k < it.n; k++)
            if (it.v[k].kind == TL_ITEM_TAMPER && !it.v[k].passed)
                tl_buf_printf(&m, "\n%s", it.v[k].message);
        msg = tl_buf_steal(&m);
    } else {
        msg = tl_report_fit(r->error ? r->error : "unreadable sheet", 400);
    }
    JK(cJSON_AddStringToObject(root, "message", msg));
    cJSON *fe = cJSON_AddArrayToObject(root, "format_errors");
    JK(fe);
    if (!gradable) {
        cJSON *e = cJSON_CreateString(msg);
        JK(e);
        cJSON_AddItemToArray(fe, e);
    }
    cJSON *tests = cJSON_AddArrayToObject(root, "tests");
    JK(tests);
    for (size_t k = 0; gradable && k < it.n; k++) {
        const tl_item *x = &it.v[k];
        cJSON *t = cJSON_CreateObject();
        JK(t);
        cJSON_AddItemToArray(tests, t);
        JK(cJSON_AddStringToObject(t, "name", x->name));
        char *d = NULL;
        if (x->kind == TL_ITEM_OP)
            d = tl_report_fit(r->lab->ops[x->index].op, 400);
        else if (x->kind == TL_ITEM_QUESTION)
            d = tl_report_fit(r->lab->questions[x->index].prompt
                                  ? r->lab->questions[x->index].prompt : "", 400);
        cJSON *s = cJSON_AddStringToObject(t, "description", d ? d : "");
        free(d);
        JK(s);
        JK(cJSON_AddNumberToObject(t, "points", (double)x->score));
        JK(cJSON_AddNumberToObject(t, "max_points", (double)x->max_score));
        JK(cJSON_AddStringToObject(t, "message", x->message));
        JK(cJSON_AddStringToObject(t, "output", x->detail));
    }
    free(msg);
    tl_items_free(&it);
    return root;
fail:
    free(msg);
    tl_items_free(&it);
    cJSON_Delete(root);
    return NULL;
}

char *tl_prairielearn_render(const tl_report *rs, size_t n)
{
    return tl_scorecard_print_each(rs, n, document);
}
