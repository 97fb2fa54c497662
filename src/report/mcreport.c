/* mcreport.c - the misconceptions array of a graded scorecard (mcreport.h).
 *
 * What is reported is decided in one place, tl_mc_find over the shipped
 * catalogue of the lab (tl_mc_for_lab): the scorecard, the text and HTML sections and the class
 * ranking all show the same tags with the same ops, in catalogue order.
 */
#include "mcreport.h"

#include <stdlib.h>

tl_mc_catalogue *tl_mcreport_catalogue(const tl_lab *lab)
{
    return tl_mc_for_lab(lab ? lab->file : "", lab ? lab->root : NULL, NULL, NULL, NULL, NULL);
}

size_t tl_mcreport_find(const tl_mc_catalogue *cat, const tl_lab *lab,
                        const tl_op_verdict *verdicts, const tl_grade *g, tl_mc_found **out)
{
    *out = NULL;
    if (!cat || !lab || !g || !verdicts)
        return 0;
    return tl_mc_find(cat, lab, verdicts, g, out);
}

cJSON *tl_mcreport_json(const tl_lab *lab, const tl_op_verdict *verdicts, const tl_grade *g)
{
    cJSON *a = cJSON_CreateArray();
    if (!a)
        return NULL;
    tl_mc_catalogue *cat = tl_mcreport_catalogue(lab);
    tl_mc_found *f;
    size_t n = tl_mcreport_find(cat, lab, verdicts, g, &f);
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
            cJSON *s = cJSON_CreateString(lab->ops[f[k].ops[i]].id);
            if (!s)
                goto fail;
            cJSON_AddItemToArray(ops, s);
        }
        if (!cJSON_AddStringToObject(o, "hint", f[k].m->hint))
            goto fail;
    }
    tl_mc_found_free(f, n);
    tl_mc_catalogue_free(cat);
    return a;
fail:
    tl_mc_found_free(f, n);
    tl_mc_catalogue_free(cat);
    cJSON_Delete(a);
    return NULL;
}
