/* gradescope.c - Gradescope results.json (gradescope/autograder_samples
 * docs/specs.md): top-level score, output (shown to the student),
 * output_format, visibility, stdout_visibility, execution_time, and
 * tests[] with name, number, score, max_score, status, output. Nothing
 * else, so Gradescope never rejects the file.
 *
 * The score is the sum of the tests' scores (items.h): the same points
 * `check` reports, so a sheet failing its questions or rules loses those
 * points here too; the tamper check and the verdict are 0-point pass/fail
 * tests. An unreadable sheet is still a complete file: score 0, the
 * located error in output and in one failed test.
 *
 * The lab's feedback: policy (items.h) shapes the visible tests; what it
 * holds back is still in the file with the lab's visibility: (default
 * after_due_date), so students see it once the instructor lets them:
 * wrong-ops adds one 0-point test, "full feedback", carrying every test's
 * full output; score-only lists the full tests themselves under that
 * visibility, beside the visible tamper check and verdict (0 points
 * there: the top-level score is set, so nothing is counted twice).
 */
#include "gradescope.h"

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

static char *test_output(const tl_item *x)
{
    tl_buf b = {0};
    tl_buf_puts(&b, x->message);
    if (*x->detail) {
        tl_buf_putc(&b, '\n');
        tl_buf_puts(&b, x->detail);
    }
    return tl_buf_steal(&b);
}

static char *top_output(const tl_report *r, const tl_items *it)
{
    tl_buf b = {0};
    if (r->error || !r->lab) {
        char *e = tl_report_fit(r->error ? r->error : "unreadable sheet", 400);
        tl_buf_printf(&b, "Your sheet could not be graded (score 0):\n%s\nFix this error and "
                      "submit again.", e);
        free(e);
        return tl_buf_steal(&b);
    }
    char *fl = tl_report_final_line(r);
    tl_buf_puts(&b, fl);
    free(fl);
    for (size_t k = 0; k < it->n; k++)
        if (it->v[k].kind == TL_ITEM_TAMPER && !it->v[k].passed)
            tl_buf_printf(&b, "\n%s", it->v[k].message);
    return tl_buf_steal(&b);
}

static bool add_test(cJSON *tests, const tl_item *x, int64_t score, int64_t max_score,
                     const char *visibility)
{
    cJSON *t = cJSON_CreateObject();
    if (!t)
        return false;
    cJSON_AddItemToArray(tests, t);
    if (!cJSON_AddStringToObject(t, "name", x->name) ||
        !cJSON_AddStringToObject(t, "number", x->number) ||
        !cJSON_AddNumberToObject(t, "score", (double)score) ||
        !cJSON_AddNumberToObject(t, "max_score", (double)max_score) ||
        !cJSON_AddStringToObject(t, "status", !x->graded || x->passed ? "passed" : "failed"))
        return false;
    char *o = test_output(x);
    cJSON *s = cJSON_AddStringToObject(t, "output", o);
    free(o);
    if (!s)
        return false;
    return !visibility || cJSON_AddStringToObject(t, "visibility", visibility);
}

/* wrong-ops: every full test's name, status and output in one text */
static char *full_feedback(const tl_items *full)
{
    tl_buf b = {0};
    for (size_t k = 0; k < full->n; k++) {
        const tl_item *x = &full->v[k];
        tl_buf_printf(&b, "%s%s: %s %s", k ? "\n\n" : "", x->name,
                      !x->graded || x->passed ? "passed" : "failed", x->message);
        if (*x->detail)
            tl_buf_printf(&b, "\n%s", x->detail);
    }
    return tl_buf_steal(&b);
}

static cJSON *document(const tl_report *r)
{
    tl_lab_feedback fb = tl_report_feedback(r);
    const char *held = r->lab ? tl_lab_visibility_name(r->lab->visibility) : NULL;
    tl_items it, full;
    tl_items_build(r, &it);
    tl_items_build_as(r, TL_FEEDBACK_FULL, &full);
    cJSON *root = cJSON_CreateObject();
    char *out = NULL;
    JK(root);
    JK(cJSON_AddNumberToObject(root, "score", (double)it.score));
    out = top_output(r, &it);
    JK(cJSON_AddStringToObject(root, "output", out));
    JK(cJSON_AddStringToObject(root, "output_format", "text"));
    JK(cJSON_AddStringToObject(root, "visibility", "visible"));
    JK(cJSON_AddStringToObject(root, "stdout_visibility", "hidden"));
    JK(cJSON_AddNumberToObject(root, "execution_time", 0));
    cJSON *tests = cJSON_AddArrayToObject(root, "tests");
    JK(tests);
    if (fb == TL_FEEDBACK_SCORE_ONLY) {
        for (size_t k = 0; k < full.n; k++) {
            const tl_item *x = &full.v[k];
            bool shown = x->kind == TL_ITEM_TAMPER || x->kind == TL_ITEM_VERDICT;
            JK(add_test(tests, x, shown ? 0 : x->score, shown ? 0 : x->max_score,
                        shown ? NULL : held));
        }
    } else {
        for (size_t k = 0; k < it.n; k++)
            JK(add_test(tests, &it.v[k], it.v[k].score, it.v[k].max_score, NULL));
        if (fb == TL_FEEDBACK_WRONG_OPS) {
            char *o = full_feedback(&full);
            tl_item x = {.kind = TL_ITEM_VERDICT, .name = "full feedback", .number = "feedback",
                         .graded = false, .message = o, .detail = ""};
            bool ok = add_test(tests, &x, 0, 0, held);
            free(o);
            JK(ok);
        }
    }
    free(out);
    tl_items_free(&it);
    tl_items_free(&full);
    return root;
fail:
    free(out);
    tl_items_free(&it);
    tl_items_free(&full);
    cJSON_Delete(root);
    return NULL;
}

char *tl_gradescope_render(const tl_report *rs, size_t n)
{
    return tl_scorecard_print_each(rs, n, document);
}
