/* explain.c - `tlab explain`: one expression in depth as text (verdict,
 * result and parent layout, sharing, allocation, the rule, the variants,
 * and a picture of the storage slots the result reads) or as JSON.
 *
 * The statements and the expression come from the command line (the
 * user's own), but are still escaped like any other text. The storage
 * picture is drawn from tl_verdict_storage_map: reports never walk
 * runtime storages themselves.
 */
#include "explain.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "escape.h"
#include "layout.h"
#include "util.h"

#define JK(x)                                                                  \
    do {                                                                       \
        if (!(x))                                                              \
            goto fail;                                                         \
    } while (0)

static char *render_json(cJSON *root)
{
    if (!root)
        return NULL;
    char *s = tl_scorecard_print_json(root);
    cJSON_Delete(root);
    return s;
}


static void storage_picture(tl_buf *b, const tl_op_verdict *v)
{
    tl_storage_map map;
    if (!tl_verdict_storage_map(v, &map))
        return;
    int64_t nst = map.nslots, lo = map.lo, hi = map.hi;
    tl_buf_printf(b, "\nstorage picture: %" PRId64 " storage element%s of %s; each slot "
                  "shows the result's\nflat index stored there (. = not covered, * = "
                  "covered more than once)\n", nst, nst == 1 ? "" : "s",
                  tl_dtype_name(map.dtype));
    if (nst == 0) {
        tl_buf_puts(b, "  (empty storage)\n");
        tl_storage_map_free(&map);
        return;
    }
    if (nst > 256)
        tl_buf_printf(b, "  (showing slots %" PRId64 "..%" PRId64 ")\n", lo, hi - 1);
    if (map.too_large) {
        tl_buf_puts(b, "  (result too large to draw)\n");
        return;
    }
    int64_t n = hi - lo;
    const int64_t *cell = map.cell;
    int64_t numel = map.numel;
    int w = 1;
    for (int64_t x = (hi > numel ? hi : numel); x >= 10; x /= 10)
        w++;
    w += 1;
    int per = (TL_REPORT_WIDTH - 10) / w;
    for (int64_t s = 0; s < n; s += per) {
        int64_t e = s + per < n ? s + per : n;
        tl_buf_puts(b, "  slot    ");
        for (int64_t k = s; k < e; k++)
            tl_buf_printf(b, "%*" PRId64, w, lo + k);
        tl_buf_puts(b, "\n  result  ");
        for (int64_t k = s; k < e; k++) {
            if (cell[k] == -1)
                tl_buf_printf(b, "%*s", w, ".");
            else if (cell[k] == -2)
                tl_buf_printf(b, "%*s", w, "*");
            else
                tl_buf_printf(b, "%*" PRId64, w, cell[k]);
        }
        tl_buf_putc(b, '\n');
    }
    tl_storage_map_free(&map);
}

char *tl_report_explain(const char *const *stmts, size_t nstmts, const char *expr,
                        const char *parent_name, const tl_op_verdict *v,
                        const char *device_used, const tl_render_opts *o)
{
    tl_buf b = {0};
    const tl_evidence *ev = &v->ev;
    for (size_t i = 0; i < nstmts; i++) {
        tl_buf_printf(&b, "%s>>> ", tl_layout_color(o, C_DIM));
        tl_escape_line(&b, stmts[i]);
        tl_buf_printf(&b, "%s\n", tl_layout_color(o, C_OFF));
    }
    tl_buf_printf(&b, "%s>>> ", tl_layout_color(o, C_BOLD));
    tl_escape_line(&b, expr);
    tl_buf_printf(&b, "%s\n\n", tl_layout_color(o, C_OFF));
    if (v->have_parent)
        tl_buf_printf(&b, "verdict   %s%s%s (compared with %s)\n", tl_layout_color(o, C_BOLD),
                      tl_kind_name(ev->kind), tl_layout_color(o, C_OFF), parent_name);
    else
        tl_buf_printf(&b, "verdict   %s%s%s (no parent '%s' defined: nothing to compare "
                      "with)\n", tl_layout_color(o, C_BOLD),
                      ev->kind == TL_KIND_COPY ? "new tensor" : tl_kind_name(ev->kind),
                      tl_layout_color(o, C_OFF), parent_name);
    if (ev->is_tensor) {
        tl_buf_puts(&b, "result    shape ");
        tl_layout_tuple(&b, ev->shape, ev->ndim);
        tl_buf_puts(&b, "  stride ");
        tl_layout_tuple(&b, ev->stride, ev->ndim);
        tl_buf_printf(&b, "  offset %" PRId64 "\n          %s  %s  %s\n", ev->offset,
                      ev->contiguous ? "contiguous" : "non-contiguous",
                      tl_dtype_name(ev->dtype), ev->device);
    }
    if (v->have_parent) {
        tl_buf_printf(&b, "parent    %s: shape ", parent_name);
        tl_layout_tuple(&b, v->parent_shape, v->parent_ndim);
        tl_buf_puts(&b, "  stride ");
        tl_layout_tuple(&b, v->parent_stride, v->parent_ndim);
        tl_buf_printf(&b, "  offset %" PRId64 "  %s\n", v->parent_offset,
                      v->parent_contiguous ? "contiguous" : "non-contiguous");
    }
    if (ev->is_tensor || ev->is_tuple)
        tl_buf_printf(&b, "sharing   same storage: %s; same object: %s; write-through: %s\n",
                      ev->shares_storage ? "yes" : "no", ev->same_object ? "yes" : "no",
                      ev->write_through < 0 ? "n/a" : ev->write_through ? "yes" : "no");
    tl_buf_printf(&b, "allocated %" PRId64 " bytes\n", ev->bytes_allocated);
    if (ev->kind == TL_KIND_ERROR || ev->value || ev->is_tuple) {
        tl_buf t = {0};
        tl_layout_value_text(ev, &t);
        tl_buf_puts(&b, ev->kind == TL_KIND_ERROR ? "raised    " : "value     ");
        tl_layout_wrap(&b, tl_buf_str(&t), 10, 10, TL_REPORT_WIDTH);
        tl_buf_free(&t);
    }
    if (ev->reason) {
        tl_buf_puts(&b, "rule      ");
        tl_layout_wrap(&b, ev->reason, 10, 10, TL_REPORT_WIDTH);
    }
    if (v->nvariants) {
        tl_buf t = {0};
        for (size_t k = 0; k < v->nvariants; k++)
            tl_buf_printf(&t, "%s%s: %s", k ? ", " : "", v->variants[k].parent,
                          tl_kind_name(v->variants[k].kind));
        tl_buf_printf(&t, "%s", v->sometimes ? " => sometimes" : " => always the same");
        tl_buf_puts(&b, "variants  ");
        tl_layout_wrap(&b, tl_buf_str(&t), 10, 10, TL_REPORT_WIDTH);
        tl_buf_free(&t);
    }
    tl_buf_printf(&b, "device    %s\n", device_used);
    storage_picture(&b, v);
    return tl_buf_steal(&b);
}

char *tl_report_explain_json(const char *const *stmts, size_t nstmts, const char *expr,
                             const char *parent_name, const tl_op_verdict *v,
                             const char *device_requested, const char *device_used)
{
    cJSON *root = cJSON_CreateObject();
    JK(root);
    JK(cJSON_AddNumberToObject(root, "schema_version", TL_SCHEMA_VERSION));
    cJSON *st = cJSON_AddArrayToObject(root, "statements");
    JK(st);
    for (size_t i = 0; i < nstmts; i++) {
        cJSON *s = cJSON_CreateString(stmts[i]);
        JK(s);
        cJSON_AddItemToArray(st, s);
    }
    JK(cJSON_AddStringToObject(root, "expression", expr));
    cJSON *dev = cJSON_AddObjectToObject(root, "device");
    JK(dev);
    JK(cJSON_AddStringToObject(dev, "requested", device_requested));
    JK(cJSON_AddStringToObject(dev, "used", device_used));
    if (v->have_parent) {
        cJSON *p = cJSON_AddObjectToObject(root, "parent");
        JK(p);
        JK(cJSON_AddStringToObject(p, "name", parent_name));
        cJSON *a = tl_scorecard_int_array(v->parent_shape, v->parent_ndim);
        JK(a);
        cJSON_AddItemToObject(p, "shape", a);
        a = tl_scorecard_int_array(v->parent_stride, v->parent_ndim);
        JK(a);
        cJSON_AddItemToObject(p, "stride", a);
        JK(cJSON_AddNumberToObject(p, "storage_offset", (double)v->parent_offset));
        JK(cJSON_AddBoolToObject(p, "contiguous", v->parent_contiguous));
    } else {
        JK(cJSON_AddNullToObject(root, "parent"));
    }
    cJSON *a = tl_evidence_json(&v->ev, true);
    JK(a);
    cJSON_AddItemToObject(root, "actual", a);
    a = tl_scorecard_variants(v);
    JK(a);
    cJSON_AddItemToObject(root, "variants", a);
    JK(cJSON_AddBoolToObject(root, "sometimes", v->sometimes));
    return render_json(root);
fail:
    cJSON_Delete(root);
    return NULL;
}

