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

static cJSON *document(const tl_report *r)
{
    tl_items it;
    tl_items_build(r, &it);
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
    for (size_t k = 0; k < it.n; k++) {
        const tl_item *x = &it.v[k];
        cJSON *t = cJSON_CreateObject();
        JK(t);
        cJSON_AddItemToArray(tests, t);
        JK(cJSON_AddStringToObject(t, "name", x->name));
        JK(cJSON_AddStringToObject(t, "number", x->number));
        JK(cJSON_AddNumberToObject(t, "score", (double)x->score));
        JK(cJSON_AddNumberToObject(t, "max_score", (double)x->max_score));
        JK(cJSON_AddStringToObject(t, "status", !x->graded || x->passed ? "passed" : "failed"));
        char *o = test_output(x);
        cJSON *s = cJSON_AddStringToObject(t, "output", o);
        free(o);
        JK(s);
    }
    free(out);
    tl_items_free(&it);
    return root;
fail:
    free(out);
    tl_items_free(&it);
    cJSON_Delete(root);
    return NULL;
}

char *tl_gradescope_render(const tl_report *rs, size_t n)
{
    return tl_scorecard_print_each(rs, n, document);
}
