/* mcreport.c - the misconceptions section of a graded report (mcreport.h).
 *
 * What is reported is decided in one place, tl_mc_find over the shipped
 * catalogue: every format shows the same tags with the same ops, in
 * catalogue order. Op ids come from the master and are escaped by
 * tl_layout_wrap; beliefs and hints are the catalogue's.
 */
#include "mcreport.h"

#include <stdlib.h>


size_t tl_mcreport_find(const tl_report *r, tl_mc_found **out)
{
    *out = NULL;
    if (r->mode != TL_REPORT_CHECK || !r->lab || !r->grade || !r->verdicts)
        return 0;
    return tl_mc_find(tl_mc_builtin(), r->lab, r->verdicts, r->grade, out);
}

cJSON *tl_mcreport_json(const tl_report *r)
{
    cJSON *a = cJSON_CreateArray();
    if (!a)
        return NULL;
    tl_mc_found *f;
    size_t n = tl_mcreport_find(r, &f);
    for (size_t k = 0; k < n; k++) {
        cJSON *o = cJSON_CreateObject();
        if (!o)
            goto fail;
        cJSON_AddItemToArray(a, o);
        if (!cJSON_AddStringToObject(o, "tag", f[k].m->tag) ||
            !cJSON_AddStringToObject(o, "belief", f[k].m->belief))
            goto fail;
        cJSON *ops = cJSON_AddArrayToObject(o, "ops");
        if (!ops)
            goto fail;
        for (size_t i = 0; i < f[k].nops; i++) {
            cJSON *s = cJSON_CreateString(r->lab->ops[f[k].ops[i]].id);
            if (!s)
                goto fail;
            cJSON_AddItemToArray(ops, s);
        }
        if (!cJSON_AddStringToObject(o, "hint", f[k].m->hint))
            goto fail;
    }
    tl_mc_found_free(f, n);
    return a;
fail:
    tl_mc_found_free(f, n);
    cJSON_Delete(a);
    return NULL;
}

void tl_mcreport_text(tl_buf *b, const tl_report *r, const tl_render_opts *o)
{
    tl_mc_found *f;
    size_t n = tl_mcreport_find(r, &f);
    if (!n)
        return;
    tl_buf_printf(b, "\n%sMisconceptions%s\n", tl_layout_color(o, C_BOLD),
                  tl_layout_color(o, C_OFF));
    for (size_t k = 0; k < n; k++) {
        tl_buf t = {0};
        tl_buf_printf(&t, "%s (op%s", f[k].m->tag, f[k].nops == 1 ? "" : "s");
        for (size_t i = 0; i < f[k].nops; i++) {
            tl_buf_printf(&t, "%s %s", i ? "," : "", r->lab->ops[f[k].ops[i]].id);
        }
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
}
