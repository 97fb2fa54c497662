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
#include "jsonnum.h"

#include <inttypes.h>
#include <stdio.h>
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


/* Cells per picture line: a multiple of the length of the dimension that
 * is contiguous in memory (stride 1, size > 1), so a line breaks at a
 * dimension boundary, when one fits in `per`; else `per`. */
static int64_t line_cells(int ndim, const int64_t *sizes, const int64_t *strides, int64_t per)
{
    for (int d = ndim - 1; d >= 0; d--) {
        if (sizes[d] > 1 && strides[d] == 1) {
            if (sizes[d] > per)
                return per;
            return per / sizes[d] * sizes[d];
        }
    }
    return per;
}

static int digits(int64_t x)
{
    int w = 1;
    for (; x >= 10; x /= 10)
        w++;
    return w;
}

/* One cell, right-aligned in w columns: a number, or a mark ("." "+"),
 * or a repeat count "×N" (× is one column, two bytes). */
static void cell_num(tl_buf *b, int w, int64_t x)
{
    tl_buf_printf(b, "%*" PRId64, w, x);
}

static void cell_mark(tl_buf *b, int w, const char *mark)
{
    tl_buf_printf(b, "%*s", w, mark);
}

static void cell_times(tl_buf *b, int w, int64_t n)
{
    int cols = 1 + digits(n);
    for (int i = cols; i < w; i++)
        tl_buf_putc(b, ' ');
    tl_buf_printf(b, "\xc3\x97%" PRId64, n);
}

/* Rows of slots lo..hi-1 in lines that break where slot % chunk == 0:
 * a header row of slot numbers, then `row` filled by fill(k). */
typedef void (*cell_fn)(tl_buf *b, int w, int64_t k, const void *ctx);

static void draw_rows(tl_buf *b, const char *head, const char *row, int64_t lo, int64_t hi,
                      int64_t chunk, int w, cell_fn fill, const void *ctx)
{
    int64_t s = lo;
    while (s < hi) {
        int64_t e = (s / chunk + 1) * chunk;
        if (e > hi)
            e = hi;
        tl_buf_printf(b, "  %-8s", head);
        for (int64_t k = s; k < e; k++)
            cell_num(b, w, k);
        tl_buf_printf(b, "\n  %-8s", row);
        for (int64_t k = s; k < e; k++)
            fill(b, w, k, ctx);
        tl_buf_putc(b, '\n');
        s = e;
    }
}

/* ---- views: which result element each parent slot holds ---- */

static void fill_view(tl_buf *b, int w, int64_t k, const void *ctx)
{
    const tl_storage_map *m = ctx;
    int64_t c = m->cell[k - m->lo];
    if (c == -1)
        cell_mark(b, w, ".");
    else if (c == -2)
        cell_times(b, w, m->reads[k - m->lo]);
    else
        cell_num(b, w, c);
}

/* ---- copies: where each element of the new buffer came from ---- */

typedef struct copy_ctx {
    const tl_storage_map *m; /* the new buffer: slot -> result flat index */
    const int64_t *src;      /* result flat index -> parent slot, -1 */
    int64_t nsrc;
} copy_ctx;

static void fill_from(tl_buf *b, int w, int64_t k, const void *ctx)
{
    const copy_ctx *c = ctx;
    int64_t i = c->m->cell[k - c->m->lo];
    if (i == -1)
        cell_mark(b, w, ".");
    else if (i == -2)
        cell_times(b, w, c->m->reads[k - c->m->lo]);
    else if (i >= c->nsrc || c->src[i] < 0)
        cell_mark(b, w, "+");
    else
        cell_num(b, w, c->src[i]);
}

typedef struct went_ctx {
    int64_t lo;
    const int64_t *first; /* parent slot -> first result flat index, -1 */
    const int64_t *count; /* parent slot -> reads */
} went_ctx;

static void fill_went(tl_buf *b, int w, int64_t k, const void *ctx)
{
    const went_ctx *c = ctx;
    int64_t n = c->count[k - c->lo];
    if (n == 0)
        cell_mark(b, w, ".");
    else if (n > 1)
        cell_times(b, w, n);
    else
        cell_num(b, w, c->first[k - c->lo]);
}

static void copy_picture(tl_buf *b, const tl_op_verdict *v, const tl_storage_map *m,
                         const int64_t *src, int64_t nsrc, const char *pname, int64_t per)
{
    const tl_evidence *ev = &v->ev;
    /* the parent's slots that were read: a window of at most 256 */
    int64_t pn = v->parent_nslots, plo = pn, phi = 0;
    for (int64_t i = 0; i < nsrc; i++)
        if (src[i] >= 0) {
            plo = src[i] < plo ? src[i] : plo;
            phi = src[i] + 1 > phi ? src[i] + 1 : phi;
        }
    if (pn <= 256) {
        plo = 0;
        phi = pn;
    } else if (phi - plo > 256) {
        phi = plo + 256;
    }
    int64_t np = phi - plo > 0 ? phi - plo : 1;
    int64_t *first = tl_xmalloc((size_t)np * sizeof *first);
    int64_t *count = tl_xcalloc((size_t)np, sizeof *count);
    int64_t maxreads = 1;
    for (int64_t k = 0; k < np; k++)
        first[k] = -1;
    for (int64_t i = 0; i < nsrc; i++) {
        int64_t s = src[i];
        if (s < plo || s >= phi)
            continue;
        if (count[s - plo]++ == 0)
            first[s - plo] = i;
        if (count[s - plo] > maxreads)
            maxreads = count[s - plo];
    }
    int64_t big = m->hi > m->numel ? m->hi : m->numel;
    big = pn > big ? pn : big;
    int w = digits(big);
    if (1 + digits(maxreads) > w)
        w = 1 + digits(maxreads);
    w += 1;
    int64_t cells = per / w;

    tl_buf t = {0};
    tl_buf_printf(&t, "storage picture: a copy into a new buffer of %" PRId64 " %s; under each "
                  "new slot, the slot of %s's storage its value was read from (+ = computed "
                  "or from elsewhere)", m->nslots, tl_dtype_name(m->dtype), pname);
    tl_buf_putc(b, '\n');
    tl_layout_wrap(b, tl_buf_str(&t), 0, 0, TL_REPORT_WIDTH);
    tl_buf_free(&t);
    if (m->nslots > 256)
        tl_buf_printf(b, "  (showing new slots %" PRId64 "..%" PRId64 ")\n", m->lo, m->hi - 1);
    copy_ctx cc = {m, src, nsrc};
    char fromrow[64];
    snprintf(fromrow, sizeof fromrow, "from %s", pname);
    bool plain = strlen(pname) <= 3;
    for (const char *q = pname; *q; q++)
        plain = plain && (*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
                          (*q >= '0' && *q <= '9'));
    draw_rows(b, "new", plain ? fromrow : "from", m->lo, m->hi,
              line_cells(ev->ndim, ev->shape, ev->stride, cells), w, fill_from, &cc);
    tl_buf_printf(&t, "where %s's %" PRId64 " storage slots went: the result's flat index "
                  "(. = not read, \xc3\x97N = read N times)", pname, pn);
    tl_buf_putc(b, '\n');
    tl_layout_wrap(b, tl_buf_str(&t), 0, 0, TL_REPORT_WIDTH);
    tl_buf_free(&t);
    if (pn > 256)
        tl_buf_printf(b, "  (showing slots %" PRId64 "..%" PRId64 ")\n", plo, phi - 1);
    went_ctx wc = {plo, first, count};
    draw_rows(b, "slot", "to", plo, phi,
              line_cells(v->parent_ndim, v->parent_shape, v->parent_stride, cells), w,
              fill_went, &wc);
    free(first);
    free(count);
}

static void storage_picture(tl_buf *b, const tl_op_verdict *v, const char *pname)
{
    tl_storage_map map;
    if (!tl_verdict_storage_map(v, &map))
        return;
    const tl_evidence *ev = &v->ev;
    int64_t nst = map.nslots, lo = map.lo, hi = map.hi;
    int64_t per = TL_REPORT_WIDTH - 10;
    const int64_t *src;
    int64_t nsrc;
    if (ev->kind == TL_KIND_COPY && !map.too_large && nst > 0 &&
        tl_verdict_gather(v, &src, &nsrc)) {
        copy_picture(b, v, &map, src, nsrc, pname, per);
        tl_storage_map_free(&map);
        return;
    }
    int64_t maxreads = 1;
    for (int64_t k = 0; map.reads && k < hi - lo; k++)
        maxreads = map.reads[k] > maxreads ? map.reads[k] : maxreads;
    tl_buf t = {0};
    if (ev->kind == TL_KIND_COPY)
        tl_buf_printf(&t, "storage picture: a copy; none of its values could be traced to a "
                      "slot of %s's storage (they were computed, or picked by their values as "
                      "a sort or a mask picks them). Its new buffer holds %" PRId64 " %s; each "
                      "slot shows the result's flat index stored there (. = not covered, "
                      "\xc3\x97N = covered N times)", pname, nst, tl_dtype_name(map.dtype));
    else
        tl_buf_printf(&t, "storage picture: %" PRId64 " storage element%s of %s; each slot "
                      "shows the result's flat index stored there (. = not covered, "
                      "\xc3\x97N = read by N result elements)",
                      nst, nst == 1 ? "" : "s", tl_dtype_name(map.dtype));
    tl_buf_putc(b, '\n');
    tl_layout_wrap(b, tl_buf_str(&t), 0, 0, TL_REPORT_WIDTH);
    tl_buf_free(&t);
    if (nst == 0) {
        tl_buf_puts(b, "  (empty storage)\n");
        tl_storage_map_free(&map);
        return;
    }
    if (nst > 256)
        tl_buf_printf(b, "  (showing slots %" PRId64 "..%" PRId64 ")\n", lo, hi - 1);
    if (map.too_large) {
        tl_buf_puts(b, "  (result too large to draw)\n");
        tl_storage_map_free(&map);
        return;
    }
    int64_t big = hi > map.numel ? hi : map.numel;
    int w = digits(big);
    if (1 + digits(maxreads) > w)
        w = 1 + digits(maxreads);
    w += 1;
    /* the slots are the parent's for a view: break lines at its rows */
    int64_t chunk = v->have_parent && ev->kind != TL_KIND_COPY
                        ? line_cells(v->parent_ndim, v->parent_shape, v->parent_stride, per / w)
                        : line_cells(ev->ndim, ev->shape, ev->stride, per / w);
    draw_rows(b, "slot", "result", lo, hi, chunk, w, fill_view, &map);
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
        tl_buf_put_tuple(&b, ev->shape, ev->ndim);
        tl_buf_puts(&b, "  stride ");
        tl_buf_put_tuple(&b, ev->stride, ev->ndim);
        tl_buf_printf(&b, "  offset %" PRId64 "\n          %s  %s  %s\n", ev->offset,
                      ev->contiguous ? "contiguous" : "non-contiguous",
                      tl_dtype_name(ev->dtype), ev->device);
    }
    if (v->have_parent) {
        tl_buf_printf(&b, "parent    %s: shape ", parent_name);
        tl_buf_put_tuple(&b, v->parent_shape, v->parent_ndim);
        tl_buf_puts(&b, "  stride ");
        tl_buf_put_tuple(&b, v->parent_stride, v->parent_ndim);
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
    storage_picture(&b, v, parent_name);
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
        JK(cJSON_AddItemToObject(p, "storage_offset", tl_json_int(v->parent_offset)));
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
    const int64_t *src;
    int64_t nsrc;
    if (v->ev.kind == TL_KIND_COPY && tl_verdict_gather(v, &src, &nsrc)) {
        cJSON *g = cJSON_AddArrayToObject(root, "gathered_from");
        JK(g);
        for (int64_t k = 0; k < nsrc; k++) {
            cJSON *e = src[k] >= 0 ? tl_json_int(src[k]) : cJSON_CreateNull();
            JK(e);
            cJSON_AddItemToArray(g, e);
        }
    }
    return render_json(root);
fail:
    cJSON_Delete(root);
    return NULL;
}

