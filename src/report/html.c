/* html.c - `--format html`: check's scorecard page with a storage picture
 * per op, and grade's class report (html.h).
 *
 * A page is one HTML5 document that is also well-formed XML (void elements
 * closed, only the five XML entities, no xmlns and so no URL at all): inline
 * CSS with a print stylesheet, inline SVG with a viewBox (max-width 100%,
 * at most about 1150 px wide, so it fits 1280 px), no script. Right and
 * wrong are shown by a symbol and a word (✓ ok, ✗ wrong, ✓ PASS, ✗ FAIL),
 * never by colour alone; the colours keep a contrast of at least 4.5:1
 * against their backgrounds.
 *
 * Invariants:
 *   - every sheet string (ids, ops, predictions, rules, answers, messages,
 *     file names, tamper changes) goes through tl_escape_html; element ids
 *     are built from indices, never from sheet text;
 *   - an unanswered op reveals nothing: no actual verdict, no evidence, and
 *     its picture shows the parent's storage only (as every other format);
 *   - every op gets exactly one <svg class="storage">, whatever it did
 *     (view, copy, error, value, tuple, or no picture captured);
 *   - the class report's percentages come from classreport.c's summary
 *     (tl_class_summary_json): they are not recomputed here;
 *   - the lab's feedback: policy (tl_report_feedback) holds back what it
 *     says: wrong-ops leaves the table without the actual and storage
 *     columns and the page without the storage pictures, evidence,
 *     explanations and classify()'s problems; score-only leaves the score
 *     block and the tamper list;
 *   - the questions table shows each master prompt and the sheet's own
 *     answer (tl_question_grade.answer, never the master's reference
 *     answer) beside its pass/fail and reasons, under full and wrong-ops.
 *
 * Storage picture (one SVG per op): the parent's storage as a row of slots
 * labelled by slot index; for a view each slot the result reads carries the
 * result's flat index stored there (its reading order), a slot read several
 * times (expand, broadcast) shows "×N" with the first indices in its
 * tooltip; slots outside the parent are dashed. A copy draws the new buffer
 * as a row of its own under the parent's; with a gather trace
 * (tl_verdict_gather) each new slot names the parent slot it was copied
 * from ("←s"), the parent slots copied are marked, and when both rows fit
 * on one line a line joins each pair. A tuple's view items are drawn over
 * the parent's row ("item:index"). At most 256 slots are drawn
 * (tl_verdict_storage_map's window, "showing slots a..b"); rows wrap at a
 * dimension boundary of the tensor drawn (slot columns line up with it).
 */
#include "html.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "classreport.h"
#include "config.h"
#include "dtype.h"
#include "escape.h"
#include "jsonnum.h"
#include "layout.h"
#include "mcreport.h"
#include "util.h"

#define MAX_WALK 100000 /* elements walked for a picture (as the storage map) */

/* ============================================================ capture */

static int64_t numel_capped(int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] <= 0)
            return 0;
        if (n > MAX_WALK / shape[d])
            return MAX_WALK + 1;
        n *= shape[d];
    }
    return n;
}

/* Every element of (shape, stride, offset) that lands in [lo, hi): count
 * its reads and remember the first flat indices, or mark the slot. */
static bool walk(int ndim, const int64_t *shape, const int64_t *stride, int64_t offset,
                 int64_t lo, int64_t hi, int64_t *reads, int64_t *order, bool *mark)
{
    if (ndim < 0 || ndim > TL_MAX_DIMS)
        return false;
    int64_t numel = numel_capped(ndim, shape);
    if (numel > MAX_WALK)
        return false;
    int64_t idx[TL_MAX_DIMS] = {0};
    for (int64_t i = 0; i < numel; i++) {
        int64_t e = offset;
        for (int d = 0; d < ndim; d++)
            e += idx[d] * stride[d];
        if (e >= lo && e < hi) {
            int64_t k = e - lo;
            if (reads) {
                if (order && reads[k] < TL_HTML_ORDER)
                    order[k * TL_HTML_ORDER + reads[k]] = i;
                reads[k]++;
            }
            if (mark)
                mark[k] = true;
        }
        for (int d = ndim - 1; d >= 0; d--) {
            if (++idx[d] < shape[d])
                break;
            idx[d] = 0;
        }
    }
    return true;
}

static void row_dims(tl_html_row *row, int ndim, const int64_t *shape, const int64_t *stride)
{
    int first = ndim > 8 ? ndim - 8 : 0;
    row->ndim = ndim - first;
    for (int d = first; d < ndim; d++) {
        row->shape[d - first] = shape[d];
        row->stride[d - first] = stride[d];
    }
}

/* Allocate a row's arrays for the window [lo, hi) of nslots. */
static void row_alloc(tl_html_row *row, int64_t nslots, int64_t lo, int64_t hi)
{
    memset(row, 0, sizeof *row);
    row->nslots = nslots;
    row->lo = lo;
    row->hi = hi;
    int64_t n = hi - lo;
    size_t cnt = (size_t)(n > 0 ? n : 1);
    row->cell = tl_xmalloc(cnt * sizeof *row->cell);
    row->reads = tl_xcalloc(cnt, sizeof *row->reads);
    row->order = tl_xmalloc(cnt * TL_HTML_ORDER * sizeof *row->order);
    for (size_t k = 0; k < cnt; k++)
        row->cell[k] = -1;
    for (size_t k = 0; k < cnt * TL_HTML_ORDER; k++)
        row->order[k] = -1;
    row->in_parent = tl_xcalloc(cnt, sizeof *row->in_parent);
}

/* A row from a storage map (its cells; the reads and their order are
 * walked again from the metadata by the caller). */
static void row_from_map(tl_html_row *row, const tl_storage_map *map)
{
    row_alloc(row, map->nslots, map->lo, map->hi);
    row->too_large = map->too_large;
    if (map->cell)
        memcpy(row->cell, map->cell, (size_t)(map->hi - map->lo) * sizeof *row->cell);
}

void tl_report_html_capture(const tl_op_verdict *v, tl_html_pic *out)
{
    memset(out, 0, sizeof *out);
    if (!v->traced)
        return;
    out->captured = true;
    const tl_evidence *ev = &v->ev;
    tl_storage_map rm;
    bool have_rm = ev->is_tensor && tl_verdict_storage_map(v, &rm);
    bool have_p = v->have_parent && v->parent_shape && v->parent_nslots >= 0;
    out->shares = have_rm && have_p &&
                  (ev->kind == TL_KIND_VIEW || ev->kind == TL_KIND_ALIAS) && ev->shares_storage;
    snprintf(out->dtype, sizeof out->dtype, "%s",
             tl_dtype_name(have_rm ? rm.dtype : v->parent_dtype));
    snprintf(out->parent_dtype, sizeof out->parent_dtype, "%s",
             tl_dtype_name(have_p ? v->parent_dtype : rm.dtype));
    if (out->shares) {
        /* one row: the shared storage in the result's window */
        out->have_parent = out->have_result = true;
        tl_html_row *row = &out->parent;
        row_from_map(row, &rm);
        walk(ev->ndim, ev->shape, ev->stride, ev->offset, row->lo, row->hi, row->reads,
             row->order, NULL);
        if (!walk(v->parent_ndim, v->parent_shape, v->parent_stride, v->parent_offset,
                  row->lo, row->hi, NULL, NULL, row->in_parent))
            for (int64_t k = 0; k < row->hi - row->lo; k++)
                row->in_parent[k] = true;
        row_dims(row, v->parent_ndim, v->parent_shape, v->parent_stride);
        tl_storage_map_free(&rm);
        return;
    }
    if (ev->is_tuple && have_p) {
        /* the parent's storage as read by every item that is a view */
        int64_t ns = v->parent_nslots, lo = 0, hi = ns > 256 ? 256 : ns;
        out->have_parent = out->tuple = true;
        tl_html_row *row = &out->parent;
        row_alloc(row, ns, lo, hi);
        int64_t cnt = hi - lo > 0 ? hi - lo : 1;
        row->item = tl_xmalloc((size_t)cnt * TL_HTML_ORDER * sizeof *row->item);
        int64_t *before = tl_xmalloc((size_t)cnt * sizeof *before);
        for (size_t it = 0; it < ev->nitems; it++) {
            const tl_evidence *iv = &ev->items[it];
            if (!iv->is_tensor || !iv->shares_storage)
                continue;
            memcpy(before, row->reads, (size_t)cnt * sizeof *before);
            walk(iv->ndim, iv->shape, iv->stride, iv->offset, lo, hi, row->reads, row->order,
                 NULL);
            for (int64_t k = 0; k < hi - lo; k++)
                for (int64_t j = before[k]; j < row->reads[k] && j < TL_HTML_ORDER; j++)
                    row->item[k * TL_HTML_ORDER + j] = (int64_t)it;
        }
        free(before);
        if (!walk(v->parent_ndim, v->parent_shape, v->parent_stride, v->parent_offset, lo, hi,
                  NULL, NULL, row->in_parent))
            for (int64_t k = 0; k < hi - lo; k++)
                row->in_parent[k] = true;
        row_dims(row, v->parent_ndim, v->parent_shape, v->parent_stride);
        return;
    }
    const int64_t *src = NULL;
    int64_t nsrc = 0;
    if (!tl_verdict_gather(v, &src, &nsrc))
        src = NULL;
    if (have_p) {
        /* the parent's storage: which parent element each slot holds, and
         * (a copy with a gather trace) which slots were copied, how often */
        int64_t ns = v->parent_nslots, lo = 0, hi = ns;
        if (ns > 256) {
            lo = v->parent_offset >= 0 && v->parent_offset < ns ? v->parent_offset : 0;
            hi = lo + 256 > ns ? ns : lo + 256;
        }
        out->have_parent = true;
        tl_html_row *row = &out->parent;
        row_alloc(row, ns, lo, hi);
        int64_t cnt = hi - lo > 0 ? hi - lo : 1;
        int64_t *pr = tl_xcalloc((size_t)cnt, sizeof *pr);
        int64_t *po = tl_xmalloc((size_t)cnt * TL_HTML_ORDER * sizeof *po);
        if (walk(v->parent_ndim, v->parent_shape, v->parent_stride, v->parent_offset, lo, hi,
                 pr, po, row->in_parent)) {
            for (int64_t k = 0; k < hi - lo; k++)
                row->cell[k] = pr[k] == 0 ? -1 : pr[k] == 1 ? po[k * TL_HTML_ORDER] : -2;
        } else {
            row->too_large = true;
            for (int64_t k = 0; k < hi - lo; k++)
                row->in_parent[k] = true;
        }
        free(pr);
        free(po);
        for (int64_t f = 0; src && f < nsrc; f++) {
            int64_t sl = src[f];
            if (sl < lo || sl >= hi)
                continue;
            int64_t k = sl - lo;
            if (row->reads[k] < TL_HTML_ORDER)
                row->order[k * TL_HTML_ORDER + row->reads[k]] = f;
            row->reads[k]++;
        }
        row_dims(row, v->parent_ndim, v->parent_shape, v->parent_stride);
    }
    if (have_rm) {
        out->have_result = true;
        tl_html_row *row = &out->result;
        row_from_map(row, &rm);
        walk(ev->ndim, ev->shape, ev->stride, ev->offset, row->lo, row->hi, row->reads,
             row->order, row->in_parent);
        row_dims(row, ev->ndim, ev->shape, ev->stride);
        if (src) {
            int64_t n = row->hi - row->lo;
            row->from = tl_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *row->from);
            for (int64_t k = 0; k < n; k++) {
                int64_t f = row->order[k * TL_HTML_ORDER];
                row->from[k] = f >= 0 && f < nsrc ? src[f] : -1;
            }
        }
        tl_storage_map_free(&rm);
    }
}

static void row_free(tl_html_row *row)
{
    free(row->cell);
    free(row->reads);
    free(row->order);
    free(row->from);
    free(row->item);
    free(row->in_parent);
    memset(row, 0, sizeof *row);
}

void tl_report_html_pic_free(tl_html_pic *p)
{
    row_free(&p->parent);
    row_free(&p->result);
    p->captured = false;
}

/* ============================================================ page */

static void esc(tl_buf *b, const char *s) { tl_escape_html(b, s ? s : "", false); }
static void esc_block(tl_buf *b, const char *s) { tl_escape_html(b, s ? s : "", true); }

static const char css[] =
    ":root{color-scheme:light}\n"
    "body{font:15px/1.45 \"DejaVu Sans\",system-ui,sans-serif;color:#1a1a1a;"
    "background:#fff;margin:0 auto;max-width:1220px;padding:12px 24px}\n"
    "h1{font-size:1.45em;margin:.3em 0 .1em}\n"
    "h2{font-size:1.15em;margin:1.3em 0 .4em;border-bottom:1px solid #bbb}\n"
    "h3{font-size:1em;margin:.1em 0 .3em}\n"
    "code,.mono{font-family:\"DejaVu Sans Mono\",monospace;font-size:.93em}\n"
    "code.op{white-space:pre-wrap;overflow-wrap:anywhere}\n"
    ".mark{white-space:nowrap}\n"
    "td.prompt,td.answer{white-space:pre-wrap}\n"
    ".meta{color:#444;margin:.1em 0}\n"
    "table{border-collapse:collapse;width:100%}\n"
    "th,td{border-bottom:1px solid #d6d6d6;padding:1px 8px;text-align:left;vertical-align:top}\n"
    "table.ops{font-size:14px;line-height:1.3}\n"
    "svg.strip{display:inline-block;vertical-align:middle}\n"
    "svg.strip .slot{stroke-width:.5}\n"
    "th{background:#f0f0f0}\n"
    "td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".ok .mark,.mark.ok,.pass .mark{color:#0b6b2b;font-weight:bold}\n"
    ".wrong .mark,.mark.wrong,.fail .mark{color:#a4161a;font-weight:bold}\n"
    ".unanswered .mark{color:#6b4a00;font-weight:bold}\n"
    ".verdict{font-size:1.15em;padding:8px 12px;margin:10px 0;border:2px solid}\n"
    ".verdict.pass{background:#e8f5ec;border-color:#0b6b2b}\n"
    ".verdict.fail{background:#fcebea;border-color:#a4161a}\n"
    ".score{display:flex;flex-wrap:wrap;gap:4px 22px;margin:6px 0}\n"
    ".score div{white-space:nowrap}.score b{font-size:1.1em}\n"
    ".card{border:1px solid #c8c8c8;border-left:6px solid #777;padding:6px 12px;margin:10px 0;"
    "break-inside:avoid}\n"
    ".card.ok{border-left-color:#0b6b2b}.card.wrong{border-left-color:#a4161a}\n"
    ".card.unanswered{border-left-color:#8a6d00}\n"
    "dl.ev{display:grid;grid-template-columns:max-content 1fr;gap:1px 12px;margin:4px 0}\n"
    "dl.ev dt{color:#444}dl.ev dd{margin:0}\n"
    ".feedback{color:#7d1114}\n"
    ".err{background:#fcebea;border:1px solid #a4161a;padding:6px 10px;white-space:pre-wrap}\n"
    "figure{margin:6px 0}figcaption{color:#333;font-size:.92em}\n"
    "svg{max-width:100%;height:auto;display:block}\n"
    "svg text{font-family:\"DejaVu Sans\",sans-serif;fill:#1a1a1a}\n"
    "svg .label{font-size:13px;font-weight:bold}\n"
    "svg .note{font-size:12px;fill:#333}\n"
    "svg .slotno{font-size:9px;fill:#444}\n"
    "svg .flat{font-size:13px;font-weight:bold}\n"
    "svg .from{font-size:9px;fill:#5a2d82}\n"
    "svg .pidx{font-weight:normal;fill:#444}\n"
    ".slot{fill:#fff;stroke:#8a8a8a;stroke-width:1}\n"
    ".slot.read{fill:#d2e4fb;stroke:#1f4e8c;stroke-width:1.5}\n"
    ".slot.multi{fill:#ffe2a8;stroke:#8a5a00;stroke-width:2}\n"
    ".slot.new{fill:#e6dcf5;stroke:#5a2d82;stroke-width:1.5}\n"
    ".slot.src{fill:#efe6fa;stroke:#5a2d82;stroke-width:1.5}\n"
    ".gather{stroke:#5a2d82;stroke-width:1;opacity:.55}\n"
    ".slot.outside{fill:#f2f2f2;stroke:#b0b0b0;stroke-dasharray:3 2}\n"
    ".bar.pass{fill:#2e7d4f}.bar.fail{fill:#b3474a}.bar.pct{fill:#3c6fb0}\n"
    ".track{fill:#ececec;stroke:#bbb}\n"
    ".thr{stroke:#111;stroke-width:2;stroke-dasharray:6 3}\n"
    ".axis{stroke:#555;stroke-width:1}\n"
    "ul.plain{padding-left:1.2em}\n"
    "footer{margin-top:2em;color:#555;font-size:.85em}\n"
    /* phone width: each op row a grid (id and op, then predicted, actual,
     * result, points under the header's own grid, then the storage strip),
     * other tables scroll inside themselves (long ops wrap anywhere at any
     * width: an unbroken op such as x.reshape(...).contiguous(memory_format=
     * torch.channels_last) pushed the table past a 760 px frame) */
    "@media (max-width:600px){body{padding:8px 10px}\n"
    "table.ops,table.ops thead,table.ops tbody{display:block}\n"
    "table.ops tr{display:grid;grid-template-columns:2.2em repeat(3,minmax(0,1fr)) 3.8em;"
    "gap:0 6px;padding:3px 0;border-bottom:1px solid #d6d6d6}\n"
    "table.ops thead tr{background:#f0f0f0}\n"
    "table.ops th,table.ops td{border:0;padding:0;background:none}\n"
    "table.ops th:nth-child(2),table.ops td:nth-child(2),table.ops th:nth-child(7),"
    "table.ops td:nth-child(7){grid-column:2/-1}\n"
    "table.ops th:nth-child(3),table.ops td:nth-child(3){grid-column-start:2}\n"
    "table.ops td{overflow-wrap:anywhere}\n"
    "table:not(.ops){display:block;overflow-x:auto}}\n"
    "@media print{body{max-width:none;padding:0;font-size:10.5pt}"
    ".card,figure,tr{break-inside:avoid}h2,h3{break-after:avoid}"
    ".verdict.pass,.verdict.fail{background:#fff}"
    "th{background:#fff;border-bottom:2px solid #000}}\n";

void tl_report_html_page_open(tl_buf *b, const char *title)
{
    tl_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
                   "<meta name=\"generator\" content=\"tlab " PACKAGE_VERSION "\"/>\n<title>");
    esc(b, title);
    tl_buf_printf(b, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", css);
}

void tl_report_html_page_close(tl_buf *b)
{
    tl_buf_puts(b, "<footer>Generated by tlab " PACKAGE_VERSION
                   ": every verdict comes from executing the op on tlab&#39;s strided tensor "
                   "runtime.</footer>\n</body>\n</html>\n");
}

/* ============================================================ pictures */

#define CW 40       /* slot width */
#define CH 36       /* slot height */
#define PERMAX 28   /* slots per line at most: 28 * 40 + margins < 1150 px */
#define MARGIN 8
#define LINEH 20    /* a text line */

/* Slots per line: the largest span of one of the dims (or a stride) that
 * fits, so that lines start at a dimension boundary. */
static int64_t per_line(const tl_html_row *row, int64_t n)
{
    if (n <= PERMAX)
        return n > 0 ? n : 1;
    int64_t best = 0;
    for (int d = 0; d < row->ndim; d++) {
        int64_t st = row->stride[d] < 0 ? -row->stride[d] : row->stride[d];
        int64_t cand[2] = {st, st && row->shape[d] <= PERMAX ? st * row->shape[d] : 0};
        for (int j = 0; j < 2; j++)
            if (cand[j] >= 4 && cand[j] <= PERMAX && cand[j] > best)
                best = cand[j];
    }
    return best ? best : 20;
}

typedef struct svg {
    tl_buf body;
    int64_t y;      /* next free y */
    int64_t width;  /* widest thing drawn */
} svg;

static void svg_text(svg *s, int64_t x, const char *cls, const char *text)
{
    s->y += LINEH;
    tl_buf_printf(&s->body, "<text class=\"%s\" x=\"%" PRId64 "\" y=\"%" PRId64 "\">", cls, x,
                  s->y - 5);
    esc(&s->body, text);
    tl_buf_puts(&s->body, "</text>\n");
    /* a rough width for the viewBox: 7 px a character */
    int64_t w = x + 7 * (int64_t)tl_layout_cols(text) + MARGIN;
    if (w > s->width)
        s->width = w;
}

/* kind: "shared" (the result reads it), "parent" (a copy's source), "new" */
static void draw_row(svg *s, const tl_html_row *row, const char *kind)
{
    int64_t n = row->hi - row->lo;
    if (n <= 0) {
        svg_text(s, MARGIN, "note", "(empty storage: no slots)");
        return;
    }
    /* a slot's column is its index modulo the line length, so lines break
     * at a dimension boundary and columns line up */
    int64_t per = per_line(row, n);
    s->y += 4;
    for (int64_t k = 0; k < n; k++) {
        int64_t slot = row->lo + k;
        if (k && slot % per == 0)
            s->y += CH + 6;
        int64_t x = MARGIN + (slot % per) * CW;
        int64_t reads = row->reads ? row->reads[k] : 0;
        const int64_t *ord = row->order + k * TL_HTML_ORDER;
        bool parent = !strcmp(kind, "parent"), newbuf = !strcmp(kind, "new");
        const int64_t *items = row->item ? row->item + k * TL_HTML_ORDER : NULL;
        const char *cls;
        if (newbuf)
            cls = reads > 1 ? "slot new multi" : reads == 1 ? "slot new" : "slot outside";
        else if (parent)
            cls = reads ? "slot src" : row->in_parent[k] ? "slot" : "slot outside";
        else
            cls = reads > 1 ? "slot multi" : reads == 1 ? "slot read"
                  : row->in_parent[k] ? "slot" : "slot outside";
        tl_buf_printf(&s->body, "<g data-slot=\"%" PRId64 "\"><rect class=\"%s\" x=\"%" PRId64
                      "\" y=\"%" PRId64 "\" width=\"%d\" height=\"%d\"><title>slot %" PRId64,
                      slot, cls, x, s->y, CW - 2, CH, slot);
        if (parent) {
            if (row->cell[k] >= 0)
                tl_buf_printf(&s->body, ": parent element %" PRId64, row->cell[k]);
            else
                tl_buf_puts(&s->body, row->in_parent[k] ? ": part of the parent"
                                                        : ": not part of the parent");
            if (reads)
                tl_buf_printf(&s->body, ", copied into result element%s", reads == 1 ? "" : "s");
        } else if (reads) {
            if (newbuf)
                tl_buf_printf(&s->body, ": holds result element%s", reads == 1 ? "" : "s");
            else if (items)
                tl_buf_printf(&s->body, ": read %" PRId64 " time%s, item:element", reads,
                              reads == 1 ? "" : "s");
            else
                tl_buf_printf(&s->body, ": read %" PRId64 " time%s, result element%s", reads,
                              reads == 1 ? "" : "s", reads == 1 ? "" : "s");
        } else {
            tl_buf_puts(&s->body, row->in_parent[k] || newbuf ? ": not read"
                                                              : ": not part of the parent");
        }
        for (int64_t j = 0; j < reads && j < TL_HTML_ORDER; j++) {
            tl_buf_puts(&s->body, j ? ", " : " ");
            if (items)
                tl_buf_printf(&s->body, "%" PRId64 ":", items[j]);
            tl_buf_printf(&s->body, "%" PRId64, ord[j]);
        }
        if (reads > TL_HTML_ORDER)
            tl_buf_puts(&s->body, ", \xe2\x80\xa6");
        if (row->from && row->from[k] >= 0)
            tl_buf_printf(&s->body, "; gathered from parent slot %" PRId64, row->from[k]);
        tl_buf_puts(&s->body, "</title></rect>");
        tl_buf_printf(&s->body, "<text class=\"slotno\" x=\"%" PRId64 "\" y=\"%" PRId64 "\">%"
                      PRId64 "</text>", x + 3, s->y + 10, slot);
        char lab[32] = "";
        if (parent && row->cell[k] >= 0)
            snprintf(lab, sizeof lab, "%" PRId64, row->cell[k]);
        else if (!parent && reads > 1)
            snprintf(lab, sizeof lab, "\xc3\x97%" PRId64, reads);
        else if (!parent && reads == 1 && ord[0] >= 0 && items)
            snprintf(lab, sizeof lab, "%" PRId64 ":%" PRId64, items[0], ord[0]);
        else if (!parent && reads == 1 && ord[0] >= 0)
            snprintf(lab, sizeof lab, "%" PRId64, ord[0]);
        if (lab[0])
            tl_buf_printf(&s->body, "<text class=\"flat%s\" x=\"%" PRId64 "\" y=\"%" PRId64
                          "\" text-anchor=\"middle\">%s</text>", parent ? " pidx" : "",
                          x + CW / 2 - 1, s->y + 27, lab);
        /* top right: where a copied element came from, how often a slot was copied */
        char tr[32] = "";
        if (row->from && row->from[k] >= 0)
            snprintf(tr, sizeof tr, "\xe2\x86\x90%" PRId64, row->from[k]);
        else if (parent && reads > 1)
            snprintf(tr, sizeof tr, "\xc3\x97%" PRId64, reads);
        if (tr[0])
            tl_buf_printf(&s->body, "<text class=\"from\" x=\"%" PRId64 "\" y=\"%" PRId64
                          "\" text-anchor=\"end\">%s</text>", x + CW - 4, s->y + 10, tr);
        tl_buf_puts(&s->body, "</g>\n");
        if (x + CW + MARGIN > s->width)
            s->width = x + CW + MARGIN;
    }
    s->y += CH + 4;
}

static void window_note(svg *s, const tl_html_row *row)
{
    if (row->nslots > row->hi - row->lo && row->hi > row->lo) {
        char t[128];
        snprintf(t, sizeof t, "(showing slots %" PRId64 "..%" PRId64 " of %" PRId64 ")",
                 row->lo, row->hi - 1, row->nslots);
        svg_text(s, MARGIN, "note", t);
    }
    if (row->too_large)
        svg_text(s, MARGIN, "note", "(too many elements to map their reads: slots only)");
}

static void layout_line(tl_buf *t, const char *label, int ndim, const int64_t *shape,
                        const int64_t *stride, int64_t offset)
{
    tl_buf_printf(t, "%s shape ", label);
    tl_buf_put_tuple(t, shape, ndim);
    tl_buf_puts(t, " stride ");
    tl_buf_put_tuple(t, stride, ndim);
    tl_buf_printf(t, " offset %" PRId64, offset);
}

/* The SVG of op i; caption (plain text, escaped on output) into cap. */
static void picture(tl_buf *b, const tl_report *r, size_t i, const tl_html_pic *pic,
                    bool hide)
{
    const tl_op_verdict *v = &r->verdicts[i];
    const tl_evidence *ev = &v->ev;
    const char *pname = r->lab->parent ? r->lab->parent : "x";
    svg s = {.y = 0, .width = 420};
    tl_buf t = {0};
    tl_buf cap = {0};
    bool ok = pic && pic->captured;
    if (ok && pic->have_parent) {
        tl_buf_printf(&t, "%s's storage: %" PRId64 " %s slot%s", pname, pic->parent.nslots,
                      pic->parent_dtype, pic->parent.nslots == 1 ? "" : "s");
        if (!hide && pic->tuple)
            tl_buf_puts(&t, " (read by the tuple's view items)");
        else if (!hide && pic->shares)
            tl_buf_puts(&t, ev->kind == TL_KIND_ALIAS ? " (the result is the parent itself)"
                                                      : " (the result reads it: a view)");
        else if (!hide && pic->have_result)
            tl_buf_puts(&t, " (the copy's source)");
        svg_text(&s, MARGIN, "label", tl_buf_str(&t));
        t.len = 0;
        window_note(&s, &pic->parent);
        if (hide) {
            /* the parent's own elements only: nothing about the result */
            tl_html_row p = pic->parent;
            size_t cnt = (size_t)(p.hi > p.lo ? p.hi - p.lo : 1);
            int64_t *none = tl_xcalloc(cnt, sizeof *none);
            int64_t *nocell = tl_xmalloc(cnt * sizeof *nocell);
            for (size_t k = 0; k < cnt; k++)
                nocell[k] = -1;
            p.reads = none;
            p.cell = nocell;
            p.from = NULL;
            p.item = NULL;
            draw_row(&s, &p, "parent");
            free(none);
            free(nocell);
        } else {
            draw_row(&s, &pic->parent, pic->shares || pic->tuple ? "shared" : "parent");
        }
    }
    if (hide) {
        svg_text(&s, MARGIN, "note", "unanswered: predict this op to see what it reads");
        tl_buf_puts(&cap, "Unanswered: the picture shows the parent's storage only.");
    } else if (ok && pic->have_result && !pic->shares) {
        tl_buf_printf(&t, "new buffer (%s): %" PRId64 " %s slot%s, not %s's storage",
                      ev->kind == TL_KIND_COPY ? "copy" : "new storage", pic->result.nslots,
                      pic->dtype, pic->result.nslots == 1 ? "" : "s", pname);
        const tl_html_row *pr = &pic->parent, *rr = &pic->result;
        int64_t np = pr->hi - pr->lo, nr = rr->hi - rr->lo;
        if (rr->from && pic->have_parent && np > 0 && np <= PERMAX && nr > 0 && nr <= PERMAX) {
            /* one line each: join every copied element to its parent slot */
            int64_t top = s.y - 4;
            s.y += 36;
            int64_t bot = s.y + 4;
            draw_row(&s, rr, "new");
            for (int64_t k = 0; k < nr; k++) {
                int64_t f = rr->from[k];
                if (f < pr->lo || f >= pr->hi)
                    continue;
                tl_buf_printf(&s.body, "<line class=\"gather\" x1=\"%" PRId64 "\" y1=\"%" PRId64
                              "\" x2=\"%" PRId64 "\" y2=\"%" PRId64 "\"/>\n",
                              MARGIN + (f % np) * CW + CW / 2 - 1, top,
                              MARGIN + ((rr->lo + k) % nr) * CW + CW / 2 - 1, bot);
            }
            svg_text(&s, MARGIN, "label", tl_buf_str(&t));
        } else {
            svg_text(&s, MARGIN, "label", tl_buf_str(&t));
            window_note(&s, rr);
            draw_row(&s, rr, "new");
        }
        t.len = 0;
        svg_text(&s, MARGIN, "note",
                 rr->from ? "each new slot shows the result's flat index; \xe2\x86\x90s: the "
                            "parent slot it was copied from"
                          : "each slot shows the result's flat index stored there");
    } else if (ev->kind == TL_KIND_ERROR) {
        tl_buf_printf(&t, "raised %s: nothing was read", ev->err_type ? ev->err_type : "an error");
        svg_text(&s, MARGIN, "note", tl_buf_str(&t));
        t.len = 0;
    } else if (ev->is_tuple) {
        tl_buf_printf(&t, "a %s of %zu results; ", ev->value_type ? ev->value_type : "tuple",
                      ev->nitems_total);
        tl_buf_puts(&t, ok && pic->tuple ? "each slot read shows item:flat index"
                                         : "its items are not drawn");
        svg_text(&s, MARGIN, "note", tl_buf_str(&t));
        if (ok && pic->tuple)
            tl_buf_printf(&cap, "%s (items that are copies are not drawn).", tl_buf_str(&t));
        t.len = 0;
    } else if (!ev->is_tensor) {
        svg_text(&s, MARGIN, "note", "the result is a value, not a tensor: nothing to draw");
    } else if (!ok) {
        svg_text(&s, MARGIN, "note", "no storage picture (the op was not run again to draw it)");
    }
    if (!hide && ev->is_tensor) {
        layout_line(&t, "result", ev->ndim, ev->shape, ev->stride, ev->offset);
        svg_text(&s, MARGIN, "note", tl_buf_str(&t));
        tl_buf_printf(&cap, "%s; ", tl_buf_str(&t));
        t.len = 0;
        if (ok && pic->shares) {
            const tl_html_row *row = &pic->parent;
            int64_t covered = 0, multi = 0;
            for (int64_t k = 0; k < row->hi - row->lo; k++) {
                covered += row->reads[k] > 0;
                multi += row->reads[k] > 1;
            }
            tl_buf_printf(&cap, "reads %" PRId64 " of the %" PRId64 " slots drawn", covered,
                          row->hi - row->lo);
            if (multi)
                tl_buf_printf(&cap, ", %" PRId64 " of them several times (\xc3\x97N: an "
                              "expanded or broadcast dimension with stride 0)", multi);
            tl_buf_puts(&cap, "; each read slot shows the result's flat index (its reading order).");
        } else if (ok && pic->have_result && pic->result.from) {
            int64_t copied = 0, slots = 0;
            for (int64_t k = 0; k < pic->result.hi - pic->result.lo; k++)
                copied += pic->result.from[k] >= 0;
            for (int64_t k = 0; k < pic->parent.hi - pic->parent.lo; k++)
                slots += pic->parent.reads[k] > 0;
            tl_buf_printf(&cap, "the result owns a new buffer; %" PRId64 " of its %" PRId64
                          " slots drawn were copied from %" PRId64 " slots of the parent "
                          "(\xe2\x86\x90s in each new slot names the parent slot).",
                          copied, pic->result.hi - pic->result.lo, slots);
        } else if (ok && pic->have_result) {
            tl_buf_puts(&cap, "the result owns a new buffer; each of its slots shows the result's "
                              "flat index stored there.");
        }
    }
    if (!hide && v->sometimes && ok)
        tl_buf_puts(&cap, " Drawn on the parent as given; the verdict changes on another "
                          "parent variant (sometimes).");
    if (!s.y)
        svg_text(&s, MARGIN, "note", "no storage to draw");
    s.y += MARGIN;
    tl_buf_printf(b, "<figure>\n<svg class=\"storage\" role=\"img\" viewBox=\"0 0 %" PRId64
                  " %" PRId64 "\" width=\"%" PRId64 "\" height=\"%" PRId64 "\" aria-label=\"",
                  s.width, s.y, s.width, s.y);
    tl_buf_printf(b, "storage picture of op %zu", i + 1);
    tl_buf_puts(b, "\"><title>storage picture: ");
    esc(b, r->lab->ops[i].id);
    tl_buf_puts(b, "</title>\n");
    tl_buf_puts(b, tl_buf_str(&s.body));
    tl_buf_puts(b, "</svg>\n");
    if (cap.len) {
        tl_buf_puts(b, "<figcaption>");
        esc(b, tl_buf_str(&cap));
        tl_buf_puts(b, "</figcaption>\n");
    }
    tl_buf_puts(b, "</figure>\n");
    tl_buf_free(&s.body);
    tl_buf_free(&t);
    tl_buf_free(&cap);
}

/* A thumbnail of op i's picture for the table: one thin bar per slot
 * drawn (read, read several times, new buffer); decoration only (the
 * picture below says it in words), and nothing for an unanswered op. */
static void strip(tl_buf *b, const tl_html_pic *pic)
{
    if (!pic || !pic->captured || !pic->have_parent) {
        tl_buf_puts(b, "-");
        return;
    }
    const tl_html_row *rows[2] = {&pic->parent, pic->shares ? NULL : &pic->result};
    int nrows = rows[1] && pic->have_result ? 2 : 1;
    int64_t n = 0;
    for (int r = 0; r < nrows; r++)
        if (rows[r]->hi - rows[r]->lo > n)
            n = rows[r]->hi - rows[r]->lo;
    if (n <= 0) {
        tl_buf_puts(b, "-");
        return;
    }
    double w = 192.0 / (double)n > 8 ? 8 : 192.0 / (double)n;
    int64_t width = (int64_t)(w * (double)n + 2.5);
    tl_buf_printf(b, "<svg class=\"strip\" viewBox=\"0 0 %" PRId64 " %d\" width=\"%" PRId64
                  "\" height=\"%d\" aria-hidden=\"true\">", width, 8 * nrows + 2, width,
                  8 * nrows + 2);
    for (int r = 0; r < nrows; r++) {
        const tl_html_row *row = rows[r];
        for (int64_t k = 0; k < row->hi - row->lo; k++) {
            int64_t reads = row->reads[k];
            const char *cls = r == 1 ? (reads ? "slot new" : "slot outside")
                              : pic->shares && reads > 1 ? "slot multi"
                              : pic->shares && reads == 1 ? "slot read"
                              : row->in_parent[k] ? "slot" : "slot outside";
            tl_buf_printf(b, "<rect class=\"%s\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" "
                          "height=\"7\"/>", cls, 1 + w * (double)k, 1 + 8 * r, w);
        }
    }
    tl_buf_puts(b, "</svg>");
}

/* p with each row cut to at most cap slots (a view of p's arrays in *tmp). */
static const tl_html_pic *capped(const tl_html_pic *p, int64_t cap, tl_html_pic *tmp)
{
    *tmp = *p;
    if (tmp->parent.hi - tmp->parent.lo > cap)
        tmp->parent.hi = tmp->parent.lo + cap;
    if (tmp->result.hi - tmp->result.lo > cap)
        tmp->result.hi = tmp->result.lo + cap;
    return tmp;
}

/* ============================================================ check page */

static const char *mark_html(const tl_op_grade *og)
{
    if (!og->answered)
        return "<span class=\"mark\">? unanswered</span>";
    return og->correct ? "<span class=\"mark\">\xe2\x9c\x93 ok</span>"
                       : "<span class=\"mark\">\xe2\x9c\x97 wrong</span>";
}

static const char *op_class(const tl_op_grade *og)
{
    return !og->answered ? "unanswered" : og->correct ? "ok" : "wrong";
}

static void dd_text(tl_buf *b, const char *dt, const char *text, bool block)
{
    tl_buf_printf(b, "<dt>%s</dt><dd>", dt);
    if (block)
        esc_block(b, text);
    else
        esc(b, text);
    tl_buf_puts(b, "</dd>\n");
}

static void evidence(tl_buf *b, const tl_report *r, size_t i)
{
    const tl_lab_op *op = &r->lab->ops[i];
    const tl_op_grade *og = &r->grade->ops[i];
    const tl_op_verdict *v = &r->verdicts[i];
    const tl_evidence *ev = &v->ev;
    tl_buf t = {0};
    tl_buf_puts(b, "<dl class=\"ev\">\n");
    if (og->rule)
        dd_text(b, "your rule", og->rule, false);
    if (og->rule_problem)
        dd_text(b, "rule check", og->rule_problem, false);
    if (v->have_parent) {
        layout_line(&t, "", v->parent_ndim, v->parent_shape, v->parent_stride, v->parent_offset);
        tl_buf_printf(&t, " %s", v->parent_contiguous ? "contiguous" : "non-contiguous");
        dd_text(b, "parent", tl_buf_str(&t) + 1, false);
        t.len = 0;
    }
    if (ev->is_tensor) {
        layout_line(&t, "", ev->ndim, ev->shape, ev->stride, ev->offset);
        tl_buf_printf(&t, " %s %s %s", ev->contiguous ? "contiguous" : "non-contiguous",
                      tl_dtype_name(ev->dtype), ev->device);
        dd_text(b, "result", tl_buf_str(&t) + 1, false);
        t.len = 0;
        tl_buf_printf(&t, "same storage: %s; same object: %s; write-through: %s; "
                      "%" PRId64 " bytes allocated",
                      ev->shares_storage ? "yes" : "no", ev->same_object ? "yes" : "no",
                      ev->write_through < 0 ? "n/a" : ev->write_through ? "yes" : "no",
                      ev->bytes_allocated);
        dd_text(b, "storage", tl_buf_str(&t), false);
        t.len = 0;
    } else if (ev->kind == TL_KIND_ERROR) {
        tl_buf_printf(&t, "%s: %s", ev->err_type ? ev->err_type : "error",
                      ev->err_msg ? ev->err_msg : "");
        dd_text(b, "raised", tl_buf_str(&t), false);
        t.len = 0;
    } else if (ev->is_tuple || ev->value) {
        tl_layout_value_text(ev, &t);
        dd_text(b, ev->is_tuple ? "result" : "value", tl_buf_str(&t), false);
        t.len = 0;
    }
    if (ev->reason)
        dd_text(b, "rule", ev->reason, false);
    if (v->nvariants) {
        for (size_t k = 0; k < v->nvariants; k++)
            tl_buf_printf(&t, "%s%s: %s", k ? ", " : "", v->variants[k].parent,
                          tl_kind_name(v->variants[k].kind));
        tl_buf_puts(&t, v->sometimes ? " (sometimes)" : " (always the same)");
        dd_text(b, "variants", tl_buf_str(&t), false);
        t.len = 0;
    }
    if (op->explanation)
        dd_text(b, "why", op->explanation, true);
    tl_buf_puts(b, "</dl>\n");
    tl_buf_free(&t);
}

static void score_block(tl_buf *b, const tl_report *r)
{
    const tl_grade *g = r->grade;
    int64_t correct = g && !r->error ? g->correct : 0;
    int64_t points = g && !r->error ? g->points : 0;
    bool passed = g && !r->error && g->passed;
    char *fl = tl_report_final_line(r);
    tl_buf_printf(b, "<p class=\"verdict %s\" id=\"verdict\"><span class=\"mark\">%s</span> ",
                  passed ? "pass" : "fail", passed ? "\xe2\x9c\x93" : "\xe2\x9c\x97");
    esc(b, fl);
    tl_buf_puts(b, "</p>\n<div class=\"score\">");
    tl_buf_printf(b, "<div>correct <b id=\"score-correct\">%" PRId64 "</b> of <b id=\"score-total\">%"
                  PRId64 "</b></div>", correct, g ? g->total : 0);
    tl_buf_printf(b, "<div>points <b id=\"score-points\">%" PRId64 "</b> of <b id=\"score-max\">%"
                  PRId64 "</b></div>", points, g ? g->max_points : 0);
    tl_buf_printf(b, "<div>threshold <b id=\"score-threshold\">%" PRId64 "</b></div>",
                  g ? g->threshold : 0);
    tl_buf_printf(b, "<div>passed <b id=\"score-passed\">%s</b></div>", passed ? "yes" : "no");
    tl_buf_puts(b, "</div>\n");
    free(fl);
}

static void check_error_page(tl_buf *b, const tl_report *r)
{
    tl_buf t = {0};
    tl_buf_puts(&t, "tlab check: could not grade ");
    tl_buf_puts(&t, tl_report_sheet(r) ? tl_report_sheet(r) : "the sheet");
    tl_report_html_page_open(b, tl_buf_str(&t));
    tl_buf_free(&t);
    tl_buf_puts(b, "<header>\n<h1>Could not grade <code>");
    esc(b, tl_report_sheet(r));
    tl_buf_puts(b, "</code></h1>\n");
    if (r->lab) {
        tl_buf_puts(b, "<p class=\"meta\">graded against <code>");
        esc(b, r->lab->file);
        tl_buf_puts(b, "</code></p>\n");
    }
    tl_buf_puts(b, "</header>\n<h2>Error</h2>\n<p class=\"err\" id=\"error\">");
    esc(b, r->error ? r->error : "unreadable sheet");
    tl_buf_puts(b, "</p>\n");
    if (r->error_line)
        tl_buf_printf(b, "<p>at line <span id=\"error-line\">%d</span>, column "
                      "<span id=\"error-col\">%d</span>; the sheet scores 0.</p>\n",
                      r->error_line, r->error_col);
    else
        tl_buf_puts(b, "<p>The sheet scores 0.</p>\n");
    score_block(b, r);
    tl_report_html_page_close(b);
}

char *tl_report_html_check(const tl_report *r, const tl_html_pic *pics)
{
    tl_buf b = {0};
    if (r->error || !r->lab || !r->grade) {
        check_error_page(&b, r);
        return tl_buf_steal(&b);
    }
    const tl_lab *lab = r->lab;
    const tl_grade *g = r->grade;
    tl_buf t = {0};
    tl_buf_puts(&t, "tlab check: ");
    if (lab->id)
        tl_buf_puts(&t, lab->id);
    if (lab->title)
        tl_buf_printf(&t, "%s%s", lab->id ? ": " : "", lab->title);
    if (!lab->id && !lab->title)
        tl_buf_puts(&t, tl_report_sheet(r));
    tl_report_html_page_open(&b, tl_buf_str(&t));
    tl_buf_free(&t);

    tl_buf_puts(&b, "<header>\n<h1>");
    if (lab->id || lab->title) {
        if (lab->id)
            esc(&b, lab->id);
        if (lab->title) {
            if (lab->id)
                tl_buf_puts(&b, ": ");
            esc(&b, lab->title);
        }
    } else {
        esc(&b, tl_report_sheet(r));
    }
    tl_buf_puts(&b, "</h1>\n<p class=\"meta\">sheet <code id=\"sheet\">");
    esc(&b, tl_report_sheet(r));
    tl_buf_puts(&b, "</code>");
    if (r->sheet_file) {
        tl_buf_puts(&b, ", graded against <code>");
        esc(&b, lab->file);
        tl_buf_puts(&b, "</code>");
    }
    tl_buf_puts(&b, ", device <span id=\"device\">");
    esc(&b, r->device_used ? r->device_used : "cpu");
    tl_buf_puts(&b, "</span></p>\n</header>\n");
    score_block(&b, r);
    tl_lab_feedback fb = tl_report_feedback(r);
    bool full = fb == TL_FEEDBACK_FULL, ops_shown = fb != TL_FEEDBACK_SCORE_ONLY;
    if (!full)
        tl_buf_printf(&b, "<p id=\"feedback-policy\">This lab shows %s (feedback: %s).</p>\n",
                      ops_shown ? "which ops are right, not their verdicts" : "the score only",
                      tl_lab_feedback_name(fb));

    /* a page of many ops draws fewer slots per picture (at most 1000 ops) */
    int64_t cap = lab->nops <= 64 ? 256 : 16384 / (int64_t)lab->nops;
    if (cap < 32)
        cap = 32;
    tl_html_pic pc;

    /* the table: one row per op */
    if (ops_shown)
        tl_buf_printf(&b, "<h2>Ops (%zu)</h2>\n<table class=\"ops\">\n<thead><tr><th>id</th>"
                      "<th>op</th><th>predicted</th>%s<th>result</th><th class=\"num\">"
                      "points</th>%s</tr></thead>\n<tbody>\n", lab->nops,
                      full ? "<th>actual</th>" : "", full ? "<th>storage</th>" : "");
    bool star = false;
    for (size_t i = 0; ops_shown && i < lab->nops; i++) {
        const tl_op_grade *og = &g->ops[i];
        const tl_op_verdict *v = &r->verdicts[i];
        tl_buf_printf(&b, "<tr class=\"op %s\"><td><a href=\"#op-%zu\">", op_class(og), i + 1);
        esc(&b, lab->ops[i].id);
        tl_buf_puts(&b, "</a></td><td><code class=\"op\">");
        esc_block(&b, lab->ops[i].op);
        tl_buf_puts(&b, "</code></td><td>");
        esc(&b, og->answered ? og->predicted : "-");
        tl_buf_puts(&b, full ? "</td><td>" : "</td>");
        if (!full) {
            /* feedback: wrong-ops: no actual column */
        } else if (og->answered) {
            tl_buf_puts(&b, tl_kind_name(v->ev.kind));
            if (v->sometimes) {
                tl_buf_puts(&b, "*");
                star = true;
            }
        } else {
            tl_buf_puts(&b, "unanswered");
        }
        tl_buf_printf(&b, "%s<td>%s</td><td class=\"num\">%" PRId64 "/%" PRId64 "</td>",
                      full ? "</td>" : "", mark_html(og), og->score, og->points);
        if (full) {
            tl_buf_puts(&b, "<td>");
            if (og->answered)
                strip(&b, pics ? capped(&pics[i], cap, &pc) : NULL);
            tl_buf_puts(&b, "</td>");
        }
        tl_buf_puts(&b, "</tr>\n");
    }
    if (ops_shown)
        tl_buf_puts(&b, "</tbody>\n</table>\n");
    if (star)
        tl_buf_puts(&b, "<p>* the verdict changes across parent variants (sometimes)</p>\n");

    /* one card per op, with its storage picture */
    if (full)
        tl_buf_puts(&b, "<h2>Storage pictures</h2>\n<p>Each box is one element of the storage, "
                    "labelled by its slot index (top left). A slot the result reads shows the "
                    "result&#39;s flat index there, so the numbers give the reading order; "
                    "\xc3\x97N marks a slot read N times (expand, broadcast); dashed slots are not "
                    "part of the parent. A copy&#39;s new buffer is drawn as its own row: each of "
                    "its slots shows the result&#39;s flat index and, when tlab could trace it, "
                    "\xe2\x86\x90s, the parent slot the element was copied from (a line joins "
                    "them when both rows fit on one line). Hover a slot for the details.</p>\n");
    for (size_t i = 0; full && i < lab->nops; i++) {
        const tl_op_grade *og = &g->ops[i];
        const tl_op_verdict *v = &r->verdicts[i];
        tl_buf_printf(&b, "<section class=\"card %s\" id=\"op-%zu\">\n<h3>%s <span "
                      "class=\"opid\">", op_class(og), i + 1, mark_html(og));
        esc(&b, lab->ops[i].id);
        tl_buf_puts(&b, "</span> <code class=\"op\">");
        esc_block(&b, lab->ops[i].op);
        tl_buf_puts(&b, "</code></h3>\n<p>predicted <b>");
        esc(&b, og->answered ? og->predicted : "nothing");
        tl_buf_puts(&b, "</b>");
        if (og->answered)
            tl_buf_printf(&b, ", actual <b>%s</b>%s", tl_kind_name(v->ev.kind),
                          v->sometimes ? " (changes across variants)" : "");
        tl_buf_printf(&b, "; %" PRId64 " of %" PRId64 " point%s</p>\n", og->score, og->points,
                      og->points == 1 ? "" : "s");
        if (!og->answered) {
            tl_buf_puts(&b, "<p>unanswered: predict this op to see its verdict</p>\n");
        } else {
            if (!og->correct && og->feedback) {
                char *first = tl_layout_first_clause(og->feedback);
                tl_buf_puts(&b, "<p class=\"feedback\">");
                esc(&b, first);
                tl_buf_puts(&b, "</p>\n");
                free(first);
            }
            evidence(&b, r, i);
        }
        picture(&b, r, i, pics ? capped(&pics[i], cap, &pc) : NULL, !og->answered);
        tl_buf_puts(&b, "</section>\n");
    }

    if (tl_report_feedback(r) == TL_FEEDBACK_FULL) {
        /* the beliefs behind the wrong answers (mcreport.h) */
        tl_mc_catalogue *cat = tl_mcreport_catalogue(lab);
        tl_mc_found *mf;
        size_t nmf = tl_mcreport_find(cat, lab, r->verdicts, g, &mf);
        if (nmf) {
            tl_buf_printf(&b, "<h2>Misconceptions (%zu)</h2>\n<dl class=\"misconceptions\">\n",
                          nmf);
            for (size_t k = 0; k < nmf; k++) {
                tl_buf_puts(&b, "<dt><code>");
                esc(&b, mf[k].m->tag);
                tl_buf_puts(&b, "</code> (ops");
                for (size_t i = 0; i < mf[k].nops; i++) {
                    tl_buf_printf(&b, "%s <a href=\"#op-%zu\">", i ? "," : "", mf[k].ops[i] + 1);
                    esc(&b, lab->ops[mf[k].ops[i]].id);
                    tl_buf_puts(&b, "</a>");
                }
                tl_buf_puts(&b, ")</dt>\n<dd><p>");
                esc(&b, mf[k].m->belief);
                tl_buf_puts(&b, "</p><p class=\"hint\">Hint: ");
                esc(&b, mf[k].m->hint);
                tl_buf_puts(&b, "</p></dd>\n");
            }
            tl_buf_puts(&b, "</dl>\n");
        }
        tl_mc_found_free(mf, nmf);
        tl_mc_catalogue_free(cat);
    }
    if (ops_shown && g->unanswered) {
        tl_buf_printf(&b, "<h2>Unanswered (%zu)</h2>\n<p>", g->unanswered);
        bool first = true;
        for (size_t i = 0; i < lab->nops; i++)
            if (!g->ops[i].answered) {
                tl_buf_printf(&b, "%s<a href=\"#op-%zu\">", first ? "" : " ", i + 1);
                esc(&b, lab->ops[i].id);
                tl_buf_puts(&b, "</a>");
                first = false;
            }
        tl_buf_puts(&b, "</p>\n");
    }
    if (ops_shown && !g->rules_passed) {
        tl_buf_puts(&b, "<h2>Rules</h2>\n<ul class=\"plain\">\n");
        for (size_t i = 0; i < lab->nops; i++)
            if (g->ops[i].rule_problem) {
                tl_buf_puts(&b, "<li><span class=\"mark wrong\">\xe2\x9c\x97</span> op ");
                esc(&b, lab->ops[i].id);
                tl_buf_puts(&b, ": ");
                esc(&b, g->ops[i].rule_problem);
                tl_buf_puts(&b, "</li>\n");
            }
        tl_buf_puts(&b, "</ul>\n");
    }
    if (ops_shown && g->classify.offered) {
        const tl_classify_grade *cg = &g->classify;
        tl_buf_printf(&b, "<h2>Stretch: classify()</h2>\n<p class=\"%s\"><span class=\"mark\">"
                      "%s</span> %" PRId64 "/%" PRId64 " points, not counted toward the "
                      "threshold", cg->passed ? "pass" : "fail",
                      !cg->answered ? "not answered"
                      : cg->passed  ? "\xe2\x9c\x93 pass"
                                    : "\xe2\x9c\x97 FAIL",
                      cg->score, cg->points);
        if (cg->answered)
            tl_buf_printf(&b, "; %zu results classified, %zu wrong or failed", cg->checked,
                          cg->nproblems);
        tl_buf_puts(&b, "</p>\n");
        if (full && cg->nproblems) {
            tl_buf_puts(&b, "<ul class=\"plain\">\n");
            for (size_t k = 0; k < cg->nproblems; k++) {
                tl_buf_puts(&b, "<li>");
                esc(&b, cg->problems[k]);
                tl_buf_puts(&b, "</li>\n");
            }
            tl_buf_puts(&b, "</ul>\n");
        }
    }
    if (ops_shown && lab->nquestions) {
        tl_buf_printf(&b, "<h2>Questions (%zu)</h2>\n<table class=\"questions\">\n<thead><tr>"
                      "<th>id</th><th>question</th><th>your answer</th><th>result</th>"
                      "<th>why</th></tr></thead>\n<tbody>\n",
                      lab->nquestions);
        for (size_t i = 0; i < lab->nquestions; i++) {
            const tl_question_grade *q = &g->questions[i];
            tl_buf_printf(&b, "<tr class=\"question %s\"><td>", q->passed ? "ok" : "wrong");
            esc(&b, lab->questions[i].id);
            /* the master's prompt and the student's own answer (never the
             * master's reference answer) */
            tl_buf_puts(&b, "</td><td class=\"prompt\">");
            esc_block(&b, lab->questions[i].prompt);
            if (q->answer && q->answer[strspn(q->answer, " \t\r\n")]) {
                tl_buf_puts(&b, "</td><td class=\"answer\">");
                esc_block(&b, q->answer);
            } else {
                tl_buf_puts(&b, "</td><td class=\"answer unanswered\">unanswered");
            }
            tl_buf_printf(&b, "</td><td><span class=\"mark\">%s</span></td><td>",
                          q->passed ? "\xe2\x9c\x93 pass" : "\xe2\x9c\x97 FAIL");
            char *why = tl_layout_reasons(q);
            esc(&b, why);
            free(why);
            tl_buf_puts(&b, "</td></tr>\n");
        }
        tl_buf_puts(&b, "</tbody>\n</table>\n");
    }
    if (r->nchanges) {
        tl_buf_puts(&b, "<h2>Tampered</h2>\n<p>Graded on the master&#39;s setup, ops and "
                        "checks. The sheet changed:</p>\n<ul class=\"plain tampered\">\n");
        for (size_t k = 0; k < r->nchanges; k++) {
            tl_buf_puts(&b, "<li>");
            esc(&b, r->changes[k]);
            tl_buf_puts(&b, "</li>\n");
        }
        tl_buf_puts(&b, "</ul>\n");
    }
    tl_report_html_page_close(&b);
    return tl_buf_steal(&b);
}

/* ============================================================ class page */

static double num(const cJSON *o, const char *key, double dflt)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(x) ? x->valuedouble : dflt;
}

/* a percentage bar (pct < 0: none) with its number as text */
static void pct_cell(tl_buf *b, double pct)
{
    if (pct < 0) {
        tl_buf_puts(b, "<td class=\"num\">-</td><td>nothing graded</td>");
        return;
    }
    tl_buf_printf(b, "<td class=\"num pct\">%.1f%%</td><td><svg class=\"pctbar\" viewBox=\"0 0 "
                  "300 16\" width=\"300\" height=\"16\" aria-hidden=\"true\"><rect class=\"track\" "
                  "x=\"0.5\" y=\"0.5\" width=\"299\" height=\"15\"/><rect class=\"bar pct\" x=\"1\" "
                  "y=\"1\" width=\"%.1f\" height=\"14\"/></svg></td>",
                  pct, pct * 2.98);
}

static void histogram(tl_buf *b, const tl_report *rs, size_t n, const tl_grade *g0)
{
    int64_t total = g0->total, thr = g0->threshold;
    if (total < 0 || total > 10000)
        total = 10000;
    size_t *bins = tl_xcalloc((size_t)total + 1, sizeof *bins);
    size_t maxbin = 1, graded = 0;
    for (size_t k = 0; k < n; k++) {
        if (rs[k].error || !rs[k].grade)
            continue;
        int64_t c = rs[k].grade->correct;
        c = c < 0 ? 0 : c > total ? total : c;
        if (++bins[c] > maxbin)
            maxbin = bins[c];
        graded++;
    }
    int64_t bw = total + 1 <= 25 ? 40 : 1000 / (total + 1) > 4 ? 1000 / (total + 1) : 4;
    int64_t left = 40, top = 44, ph = 200;
    int64_t w = left + bw * (total + 1) + 20, h = top + ph + 50;
    int64_t tx = left + (thr < 0 ? 0 : thr > total ? total + 1 : thr) * bw;
    if (w < tx + 350)
        w = tx + 350; /* room for the threshold's label */
    tl_buf_printf(b, "<figure>\n<svg class=\"histogram\" role=\"img\" viewBox=\"0 0 %" PRId64
                  " %" PRId64 "\" width=\"%" PRId64 "\" height=\"%" PRId64 "\" aria-label=\"score "
                  "histogram: sheets by ops correct, threshold %" PRId64 "\"><title>score "
                  "histogram</title>\n",
                  w, h, w, h, thr);
    tl_buf_printf(b, "<line class=\"axis\" x1=\"%" PRId64 "\" y1=\"%" PRId64 "\" x2=\"%" PRId64
                  "\" y2=\"%" PRId64 "\"/>\n",
                  left, top + ph, left + bw * (total + 1), top + ph);
    for (int64_t c = 0; c <= total; c++) {
        int64_t x = left + c * bw;
        double bh = (double)bins[c] * (double)ph / (double)maxbin;
        if (bins[c])
            tl_buf_printf(b, "<rect class=\"bar %s\" data-score=\"%" PRId64 "\" data-count=\"%zu\" "
                          "x=\"%" PRId64 "\" y=\"%.1f\" width=\"%" PRId64 "\" height=\"%.1f\"><title>%"
                          PRId64 " correct: %zu sheet%s (%s)</title></rect><text class=\"note\" x=\"%"
                          PRId64 "\" y=\"%.1f\" text-anchor=\"middle\">%zu</text>\n",
                          c >= thr ? "pass" : "fail", c, bins[c], x + 1, (double)(top + ph) - bh,
                          bw - 2, bh, c, bins[c], bins[c] == 1 ? "" : "s",
                          c >= thr ? "passes the threshold" : "below the threshold",
                          x + bw / 2, (double)(top + ph) - bh - 3, bins[c]);
        if (bw >= 20 || c % 5 == 0 || c == total)
            tl_buf_printf(b, "<text class=\"note\" x=\"%" PRId64 "\" y=\"%" PRId64 "\" "
                          "text-anchor=\"middle\">%" PRId64 "</text>\n",
                          x + bw / 2, top + ph + 16, c);
    }
    tl_buf_printf(b, "<line class=\"thr\" x1=\"%" PRId64 "\" y1=\"%" PRId64 "\" x2=\"%" PRId64
                  "\" y2=\"%" PRId64 "\"/><text class=\"label\" x=\"%" PRId64 "\" y=\"%" PRId64
                  "\">threshold %" PRId64 " (pass at %" PRId64 " or more) \xe2\x86\x92 \xe2\x9c\x93 pass"
                  "</text>\n",
                  tx, top - 24, tx, top + ph + 4, tx + 6, top - 28, thr,
                  thr);
    if (tx - left > 90)
        tl_buf_printf(b, "<text class=\"label\" x=\"%" PRId64 "\" y=\"%" PRId64 "\" "
                      "text-anchor=\"end\">\xe2\x9c\x97 fail \xe2\x86\x90</text>\n", tx - 6,
                      top - 28);
    tl_buf_printf(b, "<text class=\"note\" x=\"%" PRId64 "\" y=\"%" PRId64 "\">ops correct "
                  "(of %" PRId64 "); bar: number of sheets</text>\n",
                  left, top + ph + 36, g0->total);
    tl_buf_puts(b, "</svg>\n");
    tl_buf_printf(b, "<figcaption>%zu graded sheet%s by ops correct; a bar at or right of the "
                  "dashed line passes the op threshold (solid green) and below it fails (red); "
                  "every bar is labelled with its count.</figcaption>\n</figure>\n",
                  graded, graded == 1 ? "" : "s");
    free(bins);
}

char *tl_report_html_class(const tl_report *rs, size_t n)
{
    tl_buf b = {0};
    const tl_lab *m = n ? rs[0].lab : NULL;
    if (!m) {
        tl_report_html_page_open(&b, "tlab grade: class report");
        tl_buf_puts(&b, "<h1>Class report</h1>\n<p>No submission was graded.</p>\n");
        tl_report_html_page_close(&b);
        return tl_buf_steal(&b);
    }
    cJSON *sum = tl_class_summary_json(m, rs, n);
    tl_buf t = {0};
    tl_buf_puts(&t, "tlab grade: ");
    tl_buf_puts(&t, m->id ? m->id : m->file);
    tl_buf_puts(&t, " class report");
    tl_report_html_page_open(&b, tl_buf_str(&t));
    tl_buf_free(&t);
    tl_buf_puts(&b, "<header>\n<h1>Class report: ");
    if (m->id)
        esc(&b, m->id);
    if (m->title) {
        if (m->id)
            tl_buf_puts(&b, ": ");
        esc(&b, m->title);
    }
    if (!m->id && !m->title)
        esc(&b, m->file);
    tl_buf_puts(&b, "</h1>\n<p class=\"meta\">graded against <code>");
    esc(&b, m->file);
    tl_buf_puts(&b, "</code>, device ");
    esc(&b, rs[0].device_used ? rs[0].device_used : "cpu");
    tl_buf_puts(&b, "</p>\n</header>\n");
    size_t graded = (size_t)num(sum, "graded", 0);
    tl_buf_printf(&b, "<div class=\"score\"><div>submissions <b id=\"class-submissions\">%zu</b>"
                  "</div><div>graded <b id=\"class-graded\">%zu</b></div><div>passed <b "
                  "id=\"class-passed\">%zu</b></div><div>tampered <b id=\"class-tampered\">%zu</b>"
                  "</div><div>unreadable <b id=\"class-unreadable\">%zu</b></div>",
                  (size_t)num(sum, "submissions", (double)n), graded,
                  (size_t)num(sum, "passed", 0), (size_t)num(sum, "tampered", 0),
                  (size_t)num(sum, "unreadable", 0));
    if (num(sum, "wrong_lab", 0) > 0)
        tl_buf_printf(&b, "<div>of another lab <b>%zu</b></div>", (size_t)num(sum, "wrong_lab", 0));
    tl_buf_puts(&b, "</div>\n");

    const tl_grade *g0 = rs[0].grade;
    if (g0) {
        tl_buf_puts(&b, "<h2>Scores</h2>\n");
        histogram(&b, rs, n, g0);
    }

    /* per op: percent correct and the most common wrong prediction */
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(sum, "ops");
    tl_buf_puts(&b, "<h2>Ops</h2>\n<table class=\"class-ops\">\n<thead><tr><th>id</th><th>op"
                    "</th><th class=\"num\">correct</th><th>of graded sheets</th><th "
                    "class=\"num\">unanswered</th><th>most common wrong prediction</th></tr>"
                    "</thead>\n<tbody>\n");
    size_t i = 0;
    const cJSON *o;
    cJSON_ArrayForEach(o, ops)
    {
        if (i >= m->nops)
            break;
        const cJSON *pc = cJSON_GetObjectItemCaseSensitive(o, "percent_correct");
        const cJSON *mw = cJSON_GetObjectItemCaseSensitive(o, "most_common_wrong");
        tl_buf_puts(&b, "<tr class=\"class-op\"><td>");
        esc(&b, m->ops[i].id);
        tl_buf_puts(&b, "</td><td><code class=\"op\">");
        esc_block(&b, m->ops[i].op);
        tl_buf_puts(&b, "</code></td>");
        pct_cell(&b, cJSON_IsNumber(pc) ? pc->valuedouble : -1);
        tl_buf_printf(&b, "<td class=\"num\">%zu</td><td>", (size_t)num(o, "unanswered", 0));
        if (cJSON_IsString(mw)) {
            tl_buf_puts(&b, "<code>");
            esc(&b, mw->valuestring);
            tl_buf_printf(&b, "</code> (%zu)", (size_t)num(o, "most_common_wrong_count", 0));
        } else {
            tl_buf_puts(&b, "-");
        }
        tl_buf_puts(&b, "</td></tr>\n");
        i++;
    }
    tl_buf_puts(&b, "</tbody>\n</table>\n");

    const cJSON *qs = cJSON_GetObjectItemCaseSensitive(sum, "questions");
    const cJSON *rules = cJSON_GetObjectItemCaseSensitive(sum, "rules");
    if (cJSON_GetArraySize(qs) > 0 || cJSON_IsObject(rules)) {
        tl_buf_puts(&b, "<h2>Questions and rules</h2>\n<table class=\"class-checks\">\n<thead>"
                        "<tr><th>check</th><th class=\"num\">passed</th><th>of graded sheets</th>"
                        "</tr></thead>\n<tbody>\n");
        i = 0;
        cJSON_ArrayForEach(o, qs)
        {
            if (i >= m->nquestions)
                break;
            const cJSON *pp = cJSON_GetObjectItemCaseSensitive(o, "percent_passed");
            tl_buf_puts(&b, "<tr><td>question ");
            esc(&b, m->questions[i].id);
            tl_buf_puts(&b, "</td>");
            pct_cell(&b, cJSON_IsNumber(pp) ? pp->valuedouble : -1);
            tl_buf_puts(&b, "</tr>\n");
            i++;
        }
        if (cJSON_IsObject(rules)) {
            const cJSON *pp = cJSON_GetObjectItemCaseSensitive(rules, "percent_passed");
            tl_buf_puts(&b, "<tr><td>rules</td>");
            pct_cell(&b, cJSON_IsNumber(pp) ? pp->valuedouble : -1);
            tl_buf_puts(&b, "</tr>\n");
        }
        tl_buf_puts(&b, "</tbody>\n</table>\n");
    }

    /* misconceptions, most students first (classreport.c ranks them) */
    const cJSON *mcs = cJSON_GetObjectItemCaseSensitive(sum, "misconceptions");
    if (cJSON_GetArraySize(mcs) > 0) {
        tl_buf_puts(&b, "<h2>Misconceptions</h2>\n<table class=\"class-misconceptions\">\n"
                        "<thead><tr><th>misconception</th><th class=\"num\">students</th>"
                        "<th class=\"num\">share</th><th>of graded sheets</th>"
                        "<th>revealed by ops (students)</th></tr></thead>\n<tbody>\n");
        cJSON_ArrayForEach(o, mcs)
        {
            const cJSON *tag = cJSON_GetObjectItemCaseSensitive(o, "tag");
            const cJSON *bel = cJSON_GetObjectItemCaseSensitive(o, "belief");
            const cJSON *ps = cJSON_GetObjectItemCaseSensitive(o, "percent_students");
            tl_buf_puts(&b, "<tr class=\"class-misconception\"><td><code>");
            esc(&b, cJSON_IsString(tag) ? tag->valuestring : "");
            tl_buf_puts(&b, "</code><div class=\"belief\">");
            esc(&b, cJSON_IsString(bel) ? bel->valuestring : "");
            tl_buf_printf(&b, "</div></td><td class=\"num\">%zu</td>", (size_t)num(o, "students", 0));
            pct_cell(&b, cJSON_IsNumber(ps) ? ps->valuedouble : -1);
            tl_buf_puts(&b, "<td>");
            const cJSON *x;
            bool first = true;
            cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(o, "ops"))
            {
                const cJSON *id = cJSON_GetObjectItemCaseSensitive(x, "id");
                tl_buf_puts(&b, first ? "" : ", ");
                esc(&b, cJSON_IsString(id) ? id->valuestring : "");
                tl_buf_printf(&b, " (%zu)", (size_t)num(x, "students", 0));
                first = false;
            }
            tl_buf_puts(&b, "</td></tr>\n");
        }
        tl_buf_puts(&b, "</tbody>\n</table>\n");
    }

    /* tampered and unreadable sheets */
    size_t ntamp = 0, nbad = 0;
    for (size_t k = 0; k < n; k++) {
        ntamp += !rs[k].error && rs[k].nchanges > 0;
        nbad += rs[k].error != NULL;
    }
    tl_buf_printf(&b, "<h2>Tampered sheets (%zu)</h2>\n", ntamp);
    if (ntamp) {
        tl_buf_puts(&b, "<p>Graded on the master&#39;s setup, ops and checks.</p>\n<ul "
                        "class=\"plain tampered\">\n");
        for (size_t k = 0; k < n; k++) {
            if (rs[k].error || !rs[k].nchanges)
                continue;
            tl_buf_puts(&b, "<li><code>");
            esc(&b, tl_report_sheet(&rs[k]));
            tl_buf_puts(&b, "</code>: ");
            for (size_t c = 0; c < rs[k].nchanges; c++) {
                if (c)
                    tl_buf_puts(&b, "; ");
                esc(&b, rs[k].changes[c]);
            }
            tl_buf_puts(&b, "</li>\n");
        }
        tl_buf_puts(&b, "</ul>\n");
    } else {
        tl_buf_puts(&b, "<p>None.</p>\n");
    }
    tl_buf_printf(&b, "<h2>Unreadable sheets (%zu)</h2>\n", nbad);
    if (nbad) {
        tl_buf_puts(&b, "<p>Each scores 0.</p>\n<ul class=\"plain unreadable\">\n");
        for (size_t k = 0; k < n; k++) {
            if (!rs[k].error)
                continue;
            tl_buf_puts(&b, "<li>");
            esc(&b, rs[k].error);
            tl_buf_puts(&b, "</li>\n");
        }
        tl_buf_puts(&b, "</ul>\n");
    } else {
        tl_buf_puts(&b, "<p>None.</p>\n");
    }

    /* one row per student */
    tl_buf_printf(&b, "<h2>Submissions (%zu)</h2>\n<table class=\"students\">\n<thead><tr>"
                  "<th>file</th><th class=\"num\">correct</th><th class=\"num\">points</th>"
                  "<th>passed</th><th>tampered</th><th>error</th></tr></thead>\n<tbody>\n", n);
    for (size_t k = 0; k < n; k++) {
        const tl_report *r = &rs[k];
        const tl_grade *g = r->grade;
        bool ok = g && !r->error && g->passed;
        tl_buf_printf(&b, "<tr class=\"student %s\"><td><code>", ok ? "pass" : "fail");
        esc(&b, tl_report_sheet(r));
        tl_buf_printf(&b, "</code></td><td class=\"num\">%" PRId64 "/%" PRId64 "</td><td "
                      "class=\"num\">%" PRId64 "/%" PRId64 "</td><td><span class=\"mark\">%s"
                      "</span></td><td>",
                      g && !r->error ? g->correct : 0, g ? g->total : 0,
                      g && !r->error ? g->points : 0, g ? g->max_points : 0,
                      ok ? "\xe2\x9c\x93 PASS" : "\xe2\x9c\x97 FAIL");
        if (r->nchanges)
            tl_buf_printf(&b, "yes (%zu change%s)", r->nchanges, r->nchanges == 1 ? "" : "s");
        else
            tl_buf_puts(&b, "no");
        tl_buf_puts(&b, "</td><td>");
        if (r->error)
            esc(&b, r->error);
        tl_buf_puts(&b, "</td></tr>\n");
    }
    tl_buf_puts(&b, "</tbody>\n</table>\n");
    cJSON_Delete(sum);
    tl_report_html_page_close(&b);
    return tl_buf_steal(&b);
}
