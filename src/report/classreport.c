/* classreport.c - statistics over every graded sheet of `tlab grade`.
 *
 * A sheet counts as graded when it could be read (an unreadable sheet is
 * counted apart, and in nothing else); tampered sheets are graded on the
 * master and counted both as graded and as tampered; a sheet of another
 * lab (its id differs from the master's: it scores 0 with an error, SPEC
 * 3) is counted as wrong_lab and in nothing else, so its predictions never
 * reach the per-op statistics.
 * Percentages are over graded sheets; with none, they are null in JSON
 * and the text says "nothing graded" instead of printing 0.0% everywhere.
 * The most common wrong prediction counts answered predictions only
 * (ties: the alphabetically first, by strcmp), with the unanswered count
 * beside it; it is found by sorting the wrong predictions and counting
 * runs, O(n log n) per op in the number of sheets.
 * Misconceptions are ranked by how many graded sheets' scorecards name
 * them (tl_mcreport_find: the same tags each scorecard shows), ties in
 * catalogue order, each with the ops that revealed it and for how many
 * students; an entry no sheet names is left out.
 */
#include "classreport.h"

#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "mcreport.h"
#include "util.h"

typedef struct op_stat {
    size_t correct, unanswered;
    const char *wrong_best;
    size_t wrong_best_n;
} op_stat;

typedef struct stats {
    size_t n, graded, passed, tampered, unreadable, wrong_lab, rules_passed;
    op_stat *ops;
    size_t *q_passed;
    /* misconceptions (issue #29), per catalogue entry: the students whose
     * scorecard names it, and per op how many of them it names it for */
    tl_mc_catalogue *cat;  /* the master's (tl_mcreport_catalogue), or NULL */
    size_t nmc;
    size_t *mc_students;   /* nmc */
    size_t *mc_ops;        /* nmc x m->nops */
    size_t *mc_rank;       /* entries named at least once, most students first */
    size_t nrank;
} stats;

static bool readable(const tl_report *r) { return !r->error && r->grade; }

static bool wrong_lab(const tl_report *r)
{
    return r->nchanges == 1 && !strncmp(r->changes[0], "wrong lab", 9);
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void collect(const tl_lab *m, const tl_report *rs, size_t n, stats *s)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    s->ops = tl_xcalloc(m->nops ? m->nops : 1, sizeof *s->ops);
    s->q_passed = tl_xcalloc(m->nquestions ? m->nquestions : 1, sizeof *s->q_passed);
    for (size_t k = 0; k < n; k++) {
        const tl_report *r = &rs[k];
        if (wrong_lab(r)) {
            s->wrong_lab++;
            continue;
        }
        if (!readable(r)) {
            s->unreadable++;
            continue;
        }
        s->graded++;
        s->passed += r->grade->passed;
        s->tampered += r->nchanges > 0;
        s->rules_passed += r->grade->rules_passed;
        for (size_t i = 0; i < m->nquestions; i++)
            s->q_passed[i] += r->grade->questions[i].passed;
    }
    tl_mc_catalogue *cat = tl_mcreport_catalogue(m);
    s->cat = cat;
    s->nmc = cat ? cat->n : 0;
    s->mc_students = tl_xcalloc(s->nmc + 1, sizeof *s->mc_students);
    s->mc_ops = tl_xcalloc(s->nmc * m->nops + 1, sizeof *s->mc_ops);
    s->mc_rank = tl_xcalloc(s->nmc + 1, sizeof *s->mc_rank);
    for (size_t k = 0; k < n && s->nmc; k++) {
        if (!readable(&rs[k]) || wrong_lab(&rs[k]))
            continue;
        tl_mc_found *f;
        size_t nf = tl_mcreport_find(cat, m, rs[k].verdicts, rs[k].grade, &f);
        for (size_t j = 0; j < nf; j++) {
            size_t e = f[j].index;
            s->mc_students[e]++;
            for (size_t i = 0; i < f[j].nops; i++)
                s->mc_ops[e * m->nops + f[j].ops[i]]++;
        }
        tl_mc_found_free(f, nf);
    }
    /* rank: most students first, ties in catalogue order (a stable
     * insertion sort: the catalogue is short) */
    for (size_t e = 0; e < s->nmc; e++) {
        if (!s->mc_students[e])
            continue;
        size_t at = s->nrank++;
        while (at > 0 && s->mc_students[s->mc_rank[at - 1]] < s->mc_students[e]) {
            s->mc_rank[at] = s->mc_rank[at - 1];
            at--;
        }
        s->mc_rank[at] = e;
    }
    const char **wrong = tl_xcalloc(n + 1, sizeof *wrong);
    for (size_t i = 0; i < m->nops; i++) {
        op_stat *o = &s->ops[i];
        size_t nw = 0;
        for (size_t k = 0; k < n; k++) {
            if (!readable(&rs[k]) || wrong_lab(&rs[k]))
                continue;
            const tl_op_grade *og = &rs[k].grade->ops[i];
            if (og->correct)
                o->correct++;
            else if (!og->answered)
                o->unanswered++;
            else
                wrong[nw++] = og->predicted;
        }
        /* in sorted order the first run of the largest count is the
         * alphabetically first of the most common */
        qsort(wrong, nw, sizeof *wrong, by_text);
        for (size_t a = 0; a < nw;) {
            size_t b = a + 1;
            while (b < nw && strcmp(wrong[a], wrong[b]) == 0)
                b++;
            if (b - a > o->wrong_best_n) {
                o->wrong_best_n = b - a;
                o->wrong_best = wrong[a];
            }
            a = b;
        }
    }
    free(wrong);
}

static void stats_free(stats *s)
{
    free(s->ops);
    free(s->q_passed);
    free(s->mc_students);
    free(s->mc_ops);
    free(s->mc_rank);
    tl_mc_catalogue_free(s->cat);
}

static double pct(size_t a, size_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

char *tl_class_summary_text(const tl_lab *m, const tl_report *rs, size_t n)
{
    stats s;
    collect(m, rs, n, &s);
    tl_buf b = {0};
    tl_buf_printf(&b, "class summary: %zu sheet%s, %zu graded, %zu passed, %zu tampered, %zu "
                  "unreadable", n, n == 1 ? "" : "s", s.graded, s.passed, s.tampered,
                  s.unreadable);
    if (s.wrong_lab)
        tl_buf_printf(&b, ", %zu of another lab", s.wrong_lab);
    tl_buf_putc(&b, '\n');
    if (!s.graded) {
        tl_buf_puts(&b, "  nothing graded\n");
        stats_free(&s);
        return tl_buf_steal(&b);
    }
    tl_buf_puts(&b, "  op        correct  unanswered  most common wrong prediction\n");
    for (size_t i = 0; i < m->nops; i++) {
        const op_stat *o = &s.ops[i];
        char *id = tl_report_fit(m->ops[i].id, 8);
        tl_buf_printf(&b, "  %-8s %7.1f%%  %10zu  ", id, pct(o->correct, s.graded), o->unanswered);
        free(id);
        if (o->wrong_best) {
            char *w = tl_report_fit(o->wrong_best, 36);
            tl_buf_printf(&b, "%s (%zu)\n", w, o->wrong_best_n);
            free(w);
        } else {
            tl_buf_puts(&b, "-\n");
        }
    }
    for (size_t i = 0; i < m->nquestions; i++) {
        char *id = tl_report_fit(m->questions[i].id, 16);
        tl_buf_printf(&b, "  question %-8s %5.1f%% passed\n", id, pct(s.q_passed[i], s.graded));
        free(id);
    }
    if (m->has_rules)
        tl_buf_printf(&b, "  rules             %5.1f%% passed\n", pct(s.rules_passed, s.graded));
    if (s.nrank) {
        const tl_mc_catalogue *cat = s.cat;
        tl_buf_puts(&b, "  misconception                students  revealed by ops (students)\n");
        for (size_t r = 0; r < s.nrank; r++) {
            size_t e = s.mc_rank[r];
            tl_buf t = {0};
            for (size_t i = 0; i < m->nops; i++)
                if (s.mc_ops[e * m->nops + i])
                    tl_buf_printf(&t, "%s%s (%zu)", t.len ? ", " : "", m->ops[i].id,
                                  s.mc_ops[e * m->nops + i]);
            char *tag = tl_report_fit(cat->entries[e].tag, 28);
            char *ops = tl_report_fit(tl_buf_str(&t), 36);
            tl_buf_printf(&b, "  %-28s %4zu %5.1f%%  %s\n", tag, s.mc_students[e],
                          pct(s.mc_students[e], s.graded), ops);
            free(tag);
            free(ops);
            tl_buf_free(&t);
        }
    }
    stats_free(&s);
    return tl_buf_steal(&b);
}

static bool add_pct(cJSON *o, const char *key, size_t a, size_t b)
{
    if (!b)
        return cJSON_AddNullToObject(o, key) != NULL;
    double p = pct(a, b);
    return cJSON_AddNumberToObject(o, key, (double)(long long)(p * 10 + 0.5) / 10) != NULL;
}

#define JK(x)                                                                  \
    do {                                                                       \
        if (!(x))                                                              \
            goto fail;                                                         \
    } while (0)

cJSON *tl_class_summary_json(const tl_lab *m, const tl_report *rs, size_t n)
{
    stats s;
    collect(m, rs, n, &s);
    cJSON *o = cJSON_CreateObject();
    JK(o);
    JK(cJSON_AddNumberToObject(o, "submissions", (double)n));
    JK(cJSON_AddNumberToObject(o, "graded", (double)s.graded));
    JK(cJSON_AddNumberToObject(o, "passed", (double)s.passed));
    JK(cJSON_AddNumberToObject(o, "tampered", (double)s.tampered));
    JK(cJSON_AddNumberToObject(o, "unreadable", (double)s.unreadable));
    JK(cJSON_AddNumberToObject(o, "wrong_lab", (double)s.wrong_lab));
    cJSON *ops = cJSON_AddArrayToObject(o, "ops");
    JK(ops);
    for (size_t i = 0; i < m->nops; i++) {
        const op_stat *st = &s.ops[i];
        cJSON *x = cJSON_CreateObject();
        JK(x);
        cJSON_AddItemToArray(ops, x);
        JK(cJSON_AddStringToObject(x, "id", m->ops[i].id));
        JK(cJSON_AddStringToObject(x, "op", m->ops[i].op));
        JK(add_pct(x, "percent_correct", st->correct, s.graded));
        JK(cJSON_AddNumberToObject(x, "unanswered", (double)st->unanswered));
        if (st->wrong_best)
            JK(cJSON_AddStringToObject(x, "most_common_wrong", st->wrong_best));
        else
            JK(cJSON_AddNullToObject(x, "most_common_wrong"));
        JK(cJSON_AddNumberToObject(x, "most_common_wrong_count", (double)st->wrong_best_n));
    }
    cJSON *qs = cJSON_AddArrayToObject(o, "questions");
    JK(qs);
    for (size_t i = 0; i < m->nquestions; i++) {
        cJSON *x = cJSON_CreateObject();
        JK(x);
        cJSON_AddItemToArray(qs, x);
        JK(cJSON_AddStringToObject(x, "id", m->questions[i].id));
        JK(add_pct(x, "percent_passed", s.q_passed[i], s.graded));
    }
    if (m->has_rules) {
        cJSON *x = cJSON_AddObjectToObject(o, "rules");
        JK(x);
        JK(add_pct(x, "percent_passed", s.rules_passed, s.graded));
    } else {
        JK(cJSON_AddNullToObject(o, "rules"));
    }
    cJSON *mcs = cJSON_AddArrayToObject(o, "misconceptions");
    JK(mcs);
    for (size_t r = 0; r < s.nrank; r++) {
        size_t e = s.mc_rank[r];
        const tl_mc_entry *me = &s.cat->entries[e];
        cJSON *x = cJSON_CreateObject();
        JK(x);
        cJSON_AddItemToArray(mcs, x);
        JK(cJSON_AddStringToObject(x, "tag", me->tag));
        JK(cJSON_AddStringToObject(x, "belief", me->belief));
        JK(cJSON_AddNumberToObject(x, "students", (double)s.mc_students[e]));
        JK(add_pct(x, "percent_students", s.mc_students[e], s.graded));
        cJSON *ops = cJSON_AddArrayToObject(x, "ops");
        JK(ops);
        for (size_t i = 0; i < m->nops; i++) {
            if (!s.mc_ops[e * m->nops + i])
                continue;
            cJSON *y = cJSON_CreateObject();
            JK(y);
            cJSON_AddItemToArray(ops, y);
            JK(cJSON_AddStringToObject(y, "id", m->ops[i].id));
            JK(cJSON_AddNumberToObject(y, "students", (double)s.mc_ops[e * m->nops + i]));
        }
        JK(cJSON_AddStringToObject(x, "hint", me->hint));
    }
    stats_free(&s);
    return o;
fail:
    stats_free(&s);
    cJSON_Delete(o);
    return NULL;
}
