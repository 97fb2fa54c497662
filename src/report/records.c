/* records.c - csv, jsonl and the json document of `tlab grade`.
 *
 * A record is read off a report (a submission graded on the master): an
 * unreadable sheet (or one of another lab) scores 0 of the master's totals
 * and names its error; a graded one with malformed predictions names them
 * in `error` too (each of those ops scored 0, the rest is graded);
 * a tampered one lists what it changed. CSV cells go through
 * tl_escape_csv (no raw control, no newline, no formula); JSON strings
 * through the JSON writer and tl_escape_json_controls.
 */
#include "records.h"
#include "jsonnum.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "classreport.h"
#include "escape.h"
#include "util.h"

#define JK(x)                                                                  \
    do {                                                                       \
        if (!(x))                                                              \
            goto fail;                                                         \
    } while (0)

static bool ok(const tl_report *r) { return !r->error && r->grade; }

/* The record's error: why the sheet could not be graded (it scores 0),
 * else, for a graded sheet with malformed predictions (each of those ops
 * scores 0, SPEC 3), how many and the first one's located message; NULL
 * when there is nothing to say. tmp holds the text built. */
static const char *record_error(const tl_report *r, tl_buf *tmp)
{
    if (r->error || !r->grade)
        return r->error;
    size_t nbad = 0;
    const char *first = NULL;
    for (size_t i = 0; i < r->grade->nops; i++)
        if (r->grade->ops[i].malformed && nbad++ == 0)
            first = r->grade->ops[i].feedback;
    if (!nbad)
        return NULL;
    tl_buf_printf(tmp, "%zu prediction%s could not be read (%s 0): %s", nbad,
                  nbad == 1 ? "" : "s", nbad == 1 ? "its op scores" : "each op scores",
                  first ? first : "");
    if (nbad > 1)
        tl_buf_printf(tmp, "; and %zu more", nbad - 1);
    return tl_buf_str(tmp);
}

static cJSON *record_json(const tl_report *r)
{
    const tl_grade *g = r->grade;
    cJSON *o = cJSON_CreateObject();
    JK(o);
    JK(cJSON_AddStringToObject(o, "file", tl_report_sheet(r)));
    JK(cJSON_AddNumberToObject(o, "correct", ok(r) ? (double)g->correct : 0));
    JK(cJSON_AddNumberToObject(o, "total", g ? (double)g->total : 0));
    JK(cJSON_AddNumberToObject(o, "points", ok(r) ? (double)g->points : 0));
    JK(cJSON_AddNumberToObject(o, "max_points", g ? (double)g->max_points : 0));
    JK(cJSON_AddBoolToObject(o, "passed", ok(r) && g->passed));
    JK(cJSON_AddBoolToObject(o, "tampered", r->nchanges > 0));
    cJSON *ch = cJSON_AddArrayToObject(o, "changes");
    JK(ch);
    for (size_t k = 0; k < r->nchanges; k++) {
        cJSON *c = cJSON_CreateString(r->changes[k]);
        JK(c);
        cJSON_AddItemToArray(ch, c);
    }
    tl_buf eb = {0};
    const char *err = record_error(r, &eb);
    cJSON *e = err ? cJSON_AddStringToObject(o, "error", err) : cJSON_AddNullToObject(o, "error");
    tl_buf_free(&eb);
    JK(e);
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

static char *csv(const tl_report *rs, size_t n)
{
    tl_buf b = {0};
    tl_buf_puts(&b, "file,correct,total,points,max_points,passed,tampered,changes,error\n");
    for (size_t k = 0; k < n; k++) {
        const tl_report *r = &rs[k];
        const tl_grade *g = r->grade;
        tl_escape_csv_head(&b, tl_report_sheet(r));
        tl_buf_printf(&b, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%s,%s,",
                      ok(r) ? g->correct : 0, g ? g->total : 0, ok(r) ? g->points : 0,
                      g ? g->max_points : 0, ok(r) && g->passed ? "true" : "false",
                      r->nchanges ? "true" : "false");
        tl_buf j = {0};
        for (size_t c = 0; c < r->nchanges; c++)
            tl_buf_printf(&j, "%s%s", c ? "; " : "", r->changes[c]);
        tl_escape_csv(&b, tl_buf_str(&j));
        tl_buf_free(&j);
        tl_buf_putc(&b, ',');
        tl_buf eb = {0};
        const char *err = record_error(r, &eb);
        tl_escape_csv(&b, err ? err : "");
        tl_buf_free(&eb);
        tl_buf_putc(&b, '\n');
    }
    return tl_buf_steal(&b);
}

static char *jsonl(const tl_report *rs, size_t n)
{
    tl_buf b = {0};
    for (size_t k = 0; k < n; k++) {
        cJSON *o = record_json(&rs[k]);
        char *s = o ? tl_json_print_compact(o) : NULL;
        cJSON_Delete(o);
        if (!s) {
            tl_buf_free(&b);
            return NULL;
        }
        s = tl_escape_json_controls(s);
        tl_buf_printf(&b, "%s\n", s);
        free(s);
    }
    return tl_buf_steal(&b);
}

static char *document(const tl_lab *m, const tl_report *rs, size_t n)
{
    cJSON *root = cJSON_CreateObject();
    JK(root);
    JK(cJSON_AddNumberToObject(root, "schema_version", TL_SCHEMA_VERSION));
    cJSON *lo = cJSON_AddObjectToObject(root, "lab");
    JK(lo);
    if (m->id)
        JK(cJSON_AddStringToObject(lo, "id", m->id));
    else
        JK(cJSON_AddNullToObject(lo, "id"));
    JK(cJSON_AddStringToObject(lo, "file", m->file));
    JK(cJSON_AddStringToObject(lo, "sha256", tl_lab_sha256(m)));
    cJSON *subs = cJSON_AddArrayToObject(root, "submissions");
    JK(subs);
    for (size_t k = 0; k < n; k++) {
        cJSON *o = record_json(&rs[k]);
        JK(o);
        cJSON_AddItemToArray(subs, o);
    }
    cJSON *s = tl_class_summary_json(m, rs, n);
    JK(s);
    cJSON_AddItemToObject(root, "summary", s);
    char *out = tl_scorecard_print_json(root);
    cJSON_Delete(root);
    return out;
fail:
    cJSON_Delete(root);
    return NULL;
}

char *tl_records_render(const tl_lab *master, const tl_report *rs, size_t n, tl_format fmt)
{
    if (fmt == TL_FMT_JSON)
        return document(master, rs, n);
    if (fmt == TL_FMT_JSONL)
        return jsonl(rs, n);
    return csv(rs, n);
}
