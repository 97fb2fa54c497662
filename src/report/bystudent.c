/* bystudent.c - `tlab grade --by-student`: each student's profile across
 * labs (bystudent.h).
 *
 * The sheets come graded (a tl_report each, on its own lab and variant);
 * this file only groups and renders. The misconceptions of a sheet are
 * tl_mcreport_find's, the same tags with the same ops as its scorecard;
 * a student's profile lists each tag once, in the order first met (labs
 * in --lab order, then catalogue order), with every lab and op that
 * reveals it. Students come in byte order of their keys, a student's
 * sheets in lab order (then file order), so the output is deterministic
 * whatever the order of the operands' grading. Text that came from a
 * sheet or a file name (student ids, paths, errors) is escaped for the
 * format it is printed in.
 */
#include "bystudent.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "escape.h"
#include "html.h"
#include "mcreport.h"
#include "scorecard.h"
#include "util.h"

/* ---- keys ---- */

static bool ends_with(const char *s, size_t n, const char *suf)
{
    size_t k = strlen(suf);
    return n >= k && !memcmp(s + n - k, suf, k);
}

void tl_bystudent_key(const char *file, const char *field, const char *const *ids,
                      size_t nids, char **key, const char **from)
{
    if (field && *field) {
        *key = tl_xstrdup(field);
        *from = "student";
        return;
    }
    size_t n = strlen(file);
    while (n > 1 && file[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && file[b - 1] != '/')
        b--;
    size_t e = n;
    if (ends_with(file, n, ".yaml"))
        e = n - 5;
    else if (ends_with(file, n, ".yml"))
        e = n - 4;
    if (e <= b)
        e = n;
    bool is_lab = false;
    for (size_t i = 0; i < nids && !is_lab; i++)
        is_lab = ids[i] && strlen(ids[i]) == e - b && !memcmp(ids[i], file + b, e - b);
    if (is_lab && b > 0) {
        /* the folder's name: alice/lab01.yaml, ./subs/alice/lab01.yaml */
        size_t de = b - 1;
        while (de > 0 && file[de - 1] == '/')
            de--;
        size_t db = de;
        while (db > 0 && file[db - 1] != '/')
            db--;
        if (de > db && !(de - db == 1 && file[db] == '.') &&
            !(de - db == 2 && file[db] == '.' && file[db + 1] == '.')) {
            *key = tl_xstrndup(file + db, de - db);
            *from = "folder";
            return;
        }
    }
    *key = tl_xstrndup(file + b, e - b);
    *from = "file";
}

/* ---- grouping ---- */

typedef struct sheet_mc {
    tl_mc_catalogue *cat;
    tl_mc_found *f;
    size_t nf;
} sheet_mc;

typedef struct mc_seen {
    const tl_mc_entry *m; /* of the first sheet that named it */
} mc_seen;

typedef struct groups {
    const tl_bys_sheet *s;
    size_t n;
    size_t *order;  /* sheet indices, sorted */
    sheet_mc *mc;   /* per sheet */
    const tl_lab *const *labs;
    size_t nlabs;
} groups;

static const tl_bys_sheet *sort_base;

static int cmp_sheet(const void *a, const void *b)
{
    const tl_bys_sheet *x = &sort_base[*(const size_t *)a], *y = &sort_base[*(const size_t *)b];
    int c = strcmp(x->student, y->student);
    if (c)
        return c;
    size_t lx = x->report ? x->lab : (size_t)-1, ly = y->report ? y->lab : (size_t)-1;
    if (lx != ly)
        return lx < ly ? -1 : 1;
    c = strcmp(x->file, y->file);
    if (c)
        return c;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static bool graded(const tl_bys_sheet *s)
{
    return s->report && !s->report->error && s->report->grade;
}

static void groups_make(groups *g, const tl_lab *const *labs, size_t nlabs,
                        const tl_bys_sheet *s, size_t n)
{
    g->s = s;
    g->n = n;
    g->labs = labs;
    g->nlabs = nlabs;
    g->order = tl_xcalloc(n ? n : 1, sizeof *g->order);
    for (size_t i = 0; i < n; i++)
        g->order[i] = i;
    sort_base = s;
    qsort(g->order, n, sizeof *g->order, cmp_sheet);
    g->mc = tl_xcalloc(n ? n : 1, sizeof *g->mc);
    for (size_t i = 0; i < n; i++) {
        if (!graded(&s[i]))
            continue;
        const tl_report *r = s[i].report;
        g->mc[i].cat = tl_mcreport_catalogue(r->lab);
        g->mc[i].nf = tl_mcreport_find(g->mc[i].cat, r->lab, r->verdicts, r->grade, &g->mc[i].f);
    }
}

static void groups_free(groups *g)
{
    for (size_t i = 0; i < g->n; i++) {
        tl_mc_found_free(g->mc[i].f, g->mc[i].nf);
        tl_mc_catalogue_free(g->mc[i].cat);
    }
    free(g->mc);
    free(g->order);
}

/* The end (exclusive) in g->order of the student starting at k. */
static size_t student_end(const groups *g, size_t k)
{
    size_t e = k + 1;
    while (e < g->n && !strcmp(g->s[g->order[e]].student, g->s[g->order[k]].student))
        e++;
    return e;
}

/* The distinct tags of the student's sheets order[k..e), first met first. */
static size_t student_tags(const groups *g, size_t k, size_t e, const tl_mc_entry ***out)
{
    size_t cap = 0, n = 0;
    for (size_t j = k; j < e; j++)
        cap += g->mc[g->order[j]].nf;
    const tl_mc_entry **t = tl_xcalloc(cap ? cap : 1, sizeof *t);
    for (size_t j = k; j < e; j++) {
        const sheet_mc *sm = &g->mc[g->order[j]];
        for (size_t f = 0; f < sm->nf; f++) {
            bool seen = false;
            for (size_t u = 0; u < n && !seen; u++)
                seen = !strcmp(t[u]->tag, sm->f[f].m->tag);
            if (!seen)
                t[n++] = sm->f[f].m;
        }
    }
    *out = t;
    return n;
}

/* sheet i's finding of tag, or NULL */
static const tl_mc_found *found_of(const groups *g, size_t i, const char *tag)
{
    for (size_t f = 0; f < g->mc[i].nf; f++)
        if (!strcmp(g->mc[i].f[f].m->tag, tag))
            return &g->mc[i].f[f];
    return NULL;
}

static const char *lab_name(const groups *g, const tl_bys_sheet *s)
{
    if (!s->report)
        return "?";
    const tl_lab *l = g->labs[s->lab];
    return l->id ? l->id : l->file;
}

/* the labs and ops of sheets k..e (one student) that show tag: " lab01 ops
 * 7, 9; lab02 op 3", each name through put (the format's escaping) */
static void put_evidence(tl_buf *b, const groups *g, size_t k, size_t e, const char *tag,
                         void (*put)(tl_buf *, const char *))
{
    bool firstlab = true;
    for (size_t j = k; j < e; j++) {
        size_t i = g->order[j];
        const tl_mc_found *f = found_of(g, i, tag);
        if (!f)
            continue;
        tl_buf_puts(b, firstlab ? " " : "; ");
        firstlab = false;
        put(b, lab_name(g, &g->s[i]));
        tl_buf_printf(b, " op%s ", f->nops == 1 ? "" : "s");
        for (size_t o = 0; o < f->nops; o++) {
            if (o)
                tl_buf_puts(b, ", ");
            put(b, g->s[i].report->lab->ops[f->ops[o]].id);
        }
    }
}

static bool has_lab(const groups *g, size_t k, size_t e, size_t lab)
{
    for (size_t j = k; j < e; j++)
        if (g->s[g->order[j]].report && g->s[g->order[j]].lab == lab)
            return true;
    return false;
}

static const char *from_words(const char *from)
{
    return !strcmp(from, "student") ? "its student: field"
           : !strcmp(from, "folder") ? "the sheet's folder"
                                     : "the sheet's file name";
}

/* ---- text ---- */

static char *render_text(const groups *g)
{
    tl_buf b = {0};
    size_t nstudents = 0;
    for (size_t k = 0; k < g->n; k = student_end(g, k))
        nstudents++;
    tl_buf_printf(&b, "%zu student%s, %zu sheet%s, %zu lab%s\n", nstudents,
                  nstudents == 1 ? "" : "s", g->n, g->n == 1 ? "" : "s", g->nlabs,
                  g->nlabs == 1 ? "" : "s");
    for (size_t k = 0, e; k < g->n; k = e) {
        e = student_end(g, k);
        const tl_bys_sheet *first = &g->s[g->order[k]];
        tl_buf_puts(&b, "\nStudent ");
        tl_escape_line(&b, first->student);
        tl_buf_printf(&b, " (from %s)\n", from_words(first->from));
        for (size_t j = k; j < e; j++) {
            const tl_bys_sheet *s = &g->s[g->order[j]];
            tl_buf_puts(&b, "  ");
            tl_layout_cell(&b, lab_name(g, s), 10);
            if (graded(s)) {
                const tl_grade *gr = s->report->grade;
                char cell[64];
                snprintf(cell, sizeof cell, "%" PRId64 "/%" PRId64, gr->correct, gr->total);
                tl_layout_cell(&b, cell, 7);
                snprintf(cell, sizeof cell, "%" PRId64 "/%" PRId64 " points", gr->points,
                         gr->max_points);
                tl_layout_cell(&b, cell, 14);
                tl_layout_cell(&b, gr->passed ? "passed" : "failed", 6);
                tl_escape_line(&b, s->file);
                if (s->report->nchanges)
                    tl_buf_puts(&b, " (tampered)");
            } else {
                tl_layout_cell(&b, "0", 7);
                tl_escape_line(&b, s->report ? s->report->error : s->error);
            }
            tl_buf_putc(&b, '\n');
        }
        for (size_t l = 0; l < g->nlabs; l++)
            if (!has_lab(g, k, e, l)) {
                tl_buf_puts(&b, "  ");
                tl_layout_cell(&b, g->labs[l]->id ? g->labs[l]->id : g->labs[l]->file, 10);
                tl_buf_puts(&b, "not handed in\n");
            }
        const tl_mc_entry **tags;
        size_t nt = student_tags(g, k, e, &tags);
        tl_buf_puts(&b, nt ? "  Misconceptions\n" : "  No misconception\n");
        for (size_t t = 0; t < nt; t++) {
            tl_buf_puts(&b, "    ");
            tl_escape_line(&b, tags[t]->tag);
            tl_buf_puts(&b, ":");
            put_evidence(&b, g, k, e, tags[t]->tag, tl_escape_line);
            tl_buf_puts(&b, "\n      ");
            tl_layout_wrap(&b, tags[t]->belief, 6, 6, 78);
        }
        free(tags);
    }
    return tl_buf_steal(&b);
}

/* ---- json ---- */

#define JK(x)                                                                  \
    do {                                                                       \
        if (!(x))                                                              \
            goto fail;                                                         \
    } while (0)

static cJSON *ops_array(const groups *g, size_t i, const tl_mc_found *f)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t o = 0; a && o < f->nops; o++) {
        cJSON *s = cJSON_CreateString(g->s[i].report->lab->ops[f->ops[o]].id);
        if (!s) {
            cJSON_Delete(a);
            return NULL;
        }
        cJSON_AddItemToArray(a, s);
    }
    return a;
}

static cJSON *sheet_json(const groups *g, size_t i)
{
    const tl_bys_sheet *s = &g->s[i];
    const tl_report *r = s->report;
    const tl_grade *gr = r ? r->grade : NULL;
    bool ok = graded(s);
    cJSON *o = cJSON_CreateObject();
    JK(o);
    if (r)
        JK(cJSON_AddStringToObject(o, "lab", lab_name(g, s)));
    else
        JK(cJSON_AddNullToObject(o, "lab"));
    JK(cJSON_AddStringToObject(o, "file", s->file));
    if (s->variant)
        JK(cJSON_AddStringToObject(o, "variant", s->variant));
    else
        JK(cJSON_AddNullToObject(o, "variant"));
    JK(cJSON_AddNumberToObject(o, "correct", ok ? (double)gr->correct : 0));
    JK(cJSON_AddNumberToObject(o, "total", gr ? (double)gr->total : 0));
    JK(cJSON_AddNumberToObject(o, "points", ok ? (double)gr->points : 0));
    JK(cJSON_AddNumberToObject(o, "max_points", gr ? (double)gr->max_points : 0));
    JK(cJSON_AddBoolToObject(o, "passed", ok && gr->passed));
    JK(cJSON_AddBoolToObject(o, "tampered", r && r->nchanges > 0));
    const char *err = r ? r->error : s->error;
    JK(err ? cJSON_AddStringToObject(o, "error", err) : cJSON_AddNullToObject(o, "error"));
    cJSON *mcs = cJSON_AddArrayToObject(o, "misconceptions");
    JK(mcs);
    for (size_t f = 0; f < g->mc[i].nf; f++) {
        cJSON *m = cJSON_CreateObject();
        JK(m);
        cJSON_AddItemToArray(mcs, m);
        JK(cJSON_AddStringToObject(m, "tag", g->mc[i].f[f].m->tag));
        cJSON *ops = ops_array(g, i, &g->mc[i].f[f]);
        JK(ops);
        cJSON_AddItemToObject(m, "ops", ops);
    }
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

static cJSON *student_json(const groups *g, size_t k, size_t e)
{
    const tl_bys_sheet *first = &g->s[g->order[k]];
    const tl_mc_entry **tags = NULL;
    cJSON *o = cJSON_CreateObject();
    JK(o);
    JK(cJSON_AddStringToObject(o, "student", first->student));
    JK(cJSON_AddStringToObject(o, "from", first->from));
    cJSON *sheets = cJSON_AddArrayToObject(o, "sheets");
    JK(sheets);
    for (size_t j = k; j < e; j++) {
        cJSON *sj = sheet_json(g, g->order[j]);
        JK(sj);
        cJSON_AddItemToArray(sheets, sj);
    }
    cJSON *missing = cJSON_AddArrayToObject(o, "missing");
    JK(missing);
    for (size_t l = 0; l < g->nlabs; l++)
        if (!has_lab(g, k, e, l)) {
            cJSON *s = cJSON_CreateString(g->labs[l]->id ? g->labs[l]->id : g->labs[l]->file);
            JK(s);
            cJSON_AddItemToArray(missing, s);
        }
    size_t nt = student_tags(g, k, e, &tags);
    cJSON *mcs = cJSON_AddArrayToObject(o, "misconceptions");
    JK(mcs);
    for (size_t t = 0; t < nt; t++) {
        cJSON *m = cJSON_CreateObject();
        JK(m);
        cJSON_AddItemToArray(mcs, m);
        JK(cJSON_AddStringToObject(m, "tag", tags[t]->tag));
        JK(cJSON_AddStringToObject(m, "belief", tags[t]->belief));
        cJSON *labs = cJSON_AddArrayToObject(m, "labs");
        JK(labs);
        for (size_t j = k; j < e; j++) {
            size_t i = g->order[j];
            const tl_mc_found *f = found_of(g, i, tags[t]->tag);
            if (!f)
                continue;
            cJSON *lo = cJSON_CreateObject();
            JK(lo);
            cJSON_AddItemToArray(labs, lo);
            JK(cJSON_AddStringToObject(lo, "lab", lab_name(g, &g->s[i])));
            JK(cJSON_AddStringToObject(lo, "file", g->s[i].file));
            cJSON *ops = ops_array(g, i, f);
            JK(ops);
            cJSON_AddItemToObject(lo, "ops", ops);
        }
        JK(cJSON_AddStringToObject(m, "hint", tags[t]->hint));
    }
    free(tags);
    return o;
fail:
    free(tags);
    cJSON_Delete(o);
    return NULL;
}

static char *render_json(const groups *g)
{
    cJSON *root = cJSON_CreateObject();
    JK(root);
    JK(cJSON_AddNumberToObject(root, "schema_version", TL_SCHEMA_VERSION));
    cJSON *labs = cJSON_AddArrayToObject(root, "labs");
    JK(labs);
    for (size_t l = 0; l < g->nlabs; l++) {
        const tl_lab *m = g->labs[l];
        cJSON *lo = cJSON_CreateObject();
        JK(lo);
        cJSON_AddItemToArray(labs, lo);
        JK(m->id ? cJSON_AddStringToObject(lo, "id", m->id) : cJSON_AddNullToObject(lo, "id"));
        JK(cJSON_AddStringToObject(lo, "file", m->file));
        JK(cJSON_AddStringToObject(lo, "sha256", tl_lab_sha256(m)));
    }
    cJSON *st = cJSON_AddArrayToObject(root, "students");
    JK(st);
    for (size_t k = 0, e; k < g->n; k = e) {
        e = student_end(g, k);
        cJSON *so = student_json(g, k, e);
        JK(so);
        cJSON_AddItemToArray(st, so);
    }
    char *out = tl_scorecard_print_json(root);
    cJSON_Delete(root);
    return out;
fail:
    cJSON_Delete(root);
    return NULL;
}

/* ---- html ---- */

static void esc(tl_buf *b, const char *s)
{
    tl_escape_html(b, s ? s : "", false);
}

static char *render_html(const groups *g)
{
    tl_buf b = {0};
    tl_report_html_page_open(&b, "tlab grade: students across labs");
    tl_buf_puts(&b, "<header>\n<h1>Students across labs</h1>\n<p class=\"meta\">labs");
    for (size_t l = 0; l < g->nlabs; l++) {
        tl_buf_puts(&b, l ? ", <code>" : " <code>");
        esc(&b, g->labs[l]->id ? g->labs[l]->id : g->labs[l]->file);
        tl_buf_puts(&b, "</code>");
    }
    tl_buf_puts(&b, "</p>\n</header>\n");
    for (size_t k = 0, e; k < g->n; k = e) {
        e = student_end(g, k);
        const tl_bys_sheet *first = &g->s[g->order[k]];
        tl_buf_puts(&b, "<section class=\"student\">\n<h2>");
        esc(&b, first->student);
        tl_buf_puts(&b, "</h2>\n<p class=\"meta\">from ");
        esc(&b, from_words(first->from));
        tl_buf_puts(&b, "</p>\n<table>\n<thead><tr><th>lab</th><th>correct</th><th>points</th>"
                        "<th>result</th><th>sheet</th></tr></thead>\n<tbody>\n");
        for (size_t j = k; j < e; j++) {
            const tl_bys_sheet *s = &g->s[g->order[j]];
            tl_buf_puts(&b, "<tr class=\"student-sheet\"><td><code>");
            esc(&b, lab_name(g, s));
            tl_buf_puts(&b, "</code></td>");
            if (graded(s)) {
                const tl_grade *gr = s->report->grade;
                tl_buf_printf(&b, "<td>%" PRId64 "/%" PRId64 "</td><td>%" PRId64 "/%" PRId64
                              "</td><td>%s%s</td>",
                              gr->correct, gr->total, gr->points, gr->max_points,
                              gr->passed ? "passed" : "failed",
                              s->report->nchanges ? " (tampered)" : "");
            } else {
                tl_buf_puts(&b, "<td>0</td><td>0</td><td>");
                esc(&b, s->report ? s->report->error : s->error);
                tl_buf_puts(&b, "</td>");
            }
            tl_buf_puts(&b, "<td><code>");
            esc(&b, s->file);
            tl_buf_puts(&b, "</code></td></tr>\n");
        }
        for (size_t l = 0; l < g->nlabs; l++)
            if (!has_lab(g, k, e, l)) {
                tl_buf_puts(&b, "<tr class=\"student-missing\"><td><code>");
                esc(&b, g->labs[l]->id ? g->labs[l]->id : g->labs[l]->file);
                tl_buf_puts(&b, "</code></td><td colspan=\"4\">not handed in</td></tr>\n");
            }
        tl_buf_puts(&b, "</tbody>\n</table>\n");
        const tl_mc_entry **tags;
        size_t nt = student_tags(g, k, e, &tags);
        if (!nt)
            tl_buf_puts(&b, "<p>No misconception.</p>\n");
        else
            tl_buf_puts(&b, "<dl class=\"misconceptions\">\n");
        for (size_t t = 0; t < nt; t++) {
            tl_buf_puts(&b, "<dt><code>");
            esc(&b, tags[t]->tag);
            tl_buf_puts(&b, "</code>:");
            put_evidence(&b, g, k, e, tags[t]->tag, esc);
            tl_buf_puts(&b, "</dt>\n<dd>");
            esc(&b, tags[t]->belief);
            tl_buf_puts(&b, " <i>Hint:</i> ");
            esc(&b, tags[t]->hint);
            tl_buf_puts(&b, "</dd>\n");
        }
        if (nt)
            tl_buf_puts(&b, "</dl>\n");
        free(tags);
        tl_buf_puts(&b, "</section>\n");
    }
    tl_report_html_page_close(&b);
    return tl_buf_steal(&b);
}

char *tl_bystudent_render(const tl_lab *const *labs, size_t nlabs, const tl_bys_sheet *sheets,
                          size_t n, tl_format fmt)
{
    groups g;
    groups_make(&g, labs, nlabs, sheets, n);
    char *out = fmt == TL_FMT_JSON   ? render_json(&g)
                : fmt == TL_FMT_HTML ? render_html(&g)
                                     : render_text(&g);
    groups_free(&g);
    return out;
}
