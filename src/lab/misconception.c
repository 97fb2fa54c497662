/* misconception.c - recognising the misconceptions of a catalogue
 * (mccat.h) in a graded sheet (misconception.h).
 *
 * Recognition is data: an op's facts are computed once from its text and
 * its verdict (tl_mc_facts_of), and an entry's `when:` is a conjunction of
 * membership and boolean tests over them. Invariants: tl_mc_find reports
 * an entry only with at least min_ops supporting ops, each op wrong and
 * answered with a kind the entry predicts, and (unless min_ops is 1: one
 * wrong answer reveals it) more of them than ops against it (where its
 * when: holds and the student answered right with an answer it does not
 * predict: a student who answers `view` on eleven views does not think
 * everything copies). A reported entry hides another whose
 * ops it includes only when it has no more ops against it (the broader
 * belief fits as well), and an entry whose every op is explained by
 * narrower held entries with fewer ops against them is left out, so two
 * specific beliefs are named rather than the catch-all that covers both.
 */
#include "misconception.h"

#include <ctype.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

_Static_assert(TL_KIND_VIEW == 1 && TL_KIND_COPY == 2 && TL_KIND_ALIAS == 3 &&
                   TL_KIND_ERROR == 4 && TL_KIND_SOMETIMES == 5,
               "mccat.c's predicts: bits are tl_kind's values");

/* ---- facts ---- */

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* The start of the bracket group that ends at s[end] (')' or ']'), or -1. */
static long group_start(const char *s, long end)
{
    int depth = 0;
    char quote = 0;
    for (long i = end; i >= 0; i--) {
        char c = s[i];
        if (quote) {
            if (c == quote && (i == 0 || s[i - 1] != '\\'))
                quote = 0;
            continue;
        }
        if (c == '\'' || c == '"')
            quote = c;
        else if (c == ')' || c == ']' || c == '}')
            depth++;
        else if (c == '(' || c == '[' || c == '{') {
            if (--depth == 0)
                return i;
        }
    }
    return -1;
}

void tl_mc_op_kind(const char *op_text, char *out, size_t cap)
{
    out[0] = 0;
    if (!op_text || cap < 2)
        return;
    /* the last line that is not blank nor a comment */
    const char *line = NULL;
    size_t llen = 0;
    for (const char *p = op_text; *p;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        size_t k = 0;
        while (k < n && isspace((unsigned char)p[k]))
            k++;
        if (k < n && p[k] != '#') {
            line = p + k;
            llen = n - k;
        }
        p = e ? e + 1 : p + n;
    }
    if (!line)
        return;
    long end = (long)llen - 1;
    while (end >= 0 && isspace((unsigned char)line[end]))
        end--;
    if (end < 0)
        return;
    char *buf = tl_xstrndup(line, (size_t)end + 1);
    const char *name = NULL;
    size_t nlen = 0;
    if (buf[end] == ']') {
        name = "index";
        nlen = 5;
    } else {
        long stop = end;
        if (buf[end] == ')') {
            long st = group_start(buf, end);
            stop = st - 1;
        }
        long b = stop;
        while (b >= 0 && ident_char(buf[b]))
            b--;
        if (stop >= 0 && b < stop && (buf[end] == ')' || (b >= 0 && buf[b] == '.'))) {
            name = buf + b + 1;
            nlen = (size_t)(stop - b);
        }
    }
    if (name) {
        if (nlen >= cap)
            nlen = cap - 1;
        memcpy(out, name, nlen);
        out[nlen] = 0;
    }
    free(buf);
}

void tl_mc_facts_kind(tl_mc_facts *f, const char *op_text)
{
    tl_mc_op_kind(op_text, f->op_kind, sizeof f->op_kind);
    size_t n = strlen(f->op_kind);
    f->inplace = n >= 2 && f->op_kind[n - 1] == '_' && f->op_kind[n - 2] != '_';
}

void tl_mc_facts_of(const tl_lab_op *op, const tl_op_verdict *v, tl_mc_facts *f)
{
    memset(f, 0, sizeof *f);
    tl_mc_facts_kind(f, op->op);
    snprintf(f->actual, sizeof f->actual, "%s", tl_kind_name(v->ev.kind));
    snprintf(f->truth, sizeof f->truth, "%s",
             v->sometimes ? "sometimes" : tl_kind_name(v->ev.kind));
    f->is_tensor = v->ev.is_tensor && !v->ev.is_tuple;
    f->contiguous = f->is_tensor && v->ev.contiguous;
    f->shares_storage = v->ev.shares_storage;
}

static bool in_names(const tl_mc_names *ns, const char *s)
{
    for (size_t i = 0; i < ns->n; i++)
        if (!strcmp(ns->names[i], s))
            return true;
    return false;
}

static bool tri_ok(int want, bool have)
{
    return want < 0 || (want == 1) == have;
}

bool tl_mc_applies(const tl_mc_entry *m, const tl_mc_facts *f)
{
    if (!m->has_when)
        return false;
    if (m->op_kind.n && !in_names(&m->op_kind, f->op_kind))
        return false;
    if (m->not_op_kind.n && in_names(&m->not_op_kind, f->op_kind))
        return false;
    if (m->actual.n && !in_names(&m->actual, f->actual))
        return false;
    if (m->truth.n && !in_names(&m->truth, f->truth))
        return false;
    if (!tri_ok(m->is_tensor, f->is_tensor) || !tri_ok(m->inplace, f->inplace))
        return false;
    /* contiguity and sharing mean something for a tensor result only */
    if ((m->contiguous >= 0 || m->shares_storage >= 0) && !f->is_tensor)
        return false;
    return tri_ok(m->contiguous, f->contiguous) && tri_ok(m->shares_storage, f->shares_storage);
}

tl_kind tl_mc_predicted(const tl_mc_entry *m)
{
    return (tl_kind)(m->predicts >> 16);
}

/* ---- recognition ---- */

/* the op names tag in its `misconceptions:` (checked at load: mccat.h) */
static bool op_tagged(const tl_lab_op *op, const char *tag)
{
    const tl_ynode *t = op->node ? tl_ynode_get(op->node, "misconceptions") : NULL;
    if (!t)
        return false;
    if (t->kind == TL_Y_SCALAR)
        return t->value && !strcmp(t->value, tag);
    for (size_t i = 0; t->kind == TL_Y_SEQ && i < t->n; i++)
        if (t->items[i]->kind == TL_Y_SCALAR && t->items[i]->value &&
            !strcmp(t->items[i]->value, tag))
            return true;
    return false;
}

static bool subset(const tl_mc_found *a, const tl_mc_found *b)
{
    size_t j = 0;
    for (size_t i = 0; i < a->nops; i++) {
        while (j < b->nops && b->ops[j] < a->ops[i])
            j++;
        if (j == b->nops || b->ops[j] != a->ops[i])
            return false;
    }
    return true;
}

static bool bsearch_op(const tl_mc_found *f, size_t op)
{
    size_t lo = 0, hi = f->nops;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->ops[mid] == op)
            return true;
        if (f->ops[mid] < op)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

size_t tl_mc_find(const tl_mc_catalogue *c, const tl_lab *master,
                  const tl_op_verdict *verdicts, const tl_grade *g, tl_mc_found **out)
{
    *out = NULL;
    if (!c || !c->n || !g || !verdicts || g->nops != master->nops)
        return 0;
    tl_mc_facts *facts = tl_xcalloc(master->nops ? master->nops : 1, sizeof *facts);
    for (size_t i = 0; i < master->nops; i++)
        tl_mc_facts_of(&master->ops[i], &verdicts[i], &facts[i]);
    tl_mc_found *all = tl_xcalloc(c->n, sizeof *all);
    size_t *contra = tl_xcalloc(c->n, sizeof *contra);
    for (size_t k = 0; k < c->n; k++) {
        const tl_mc_entry *m = &c->entries[k];
        all[k].m = m;
        all[k].index = k;
        for (size_t i = 0; i < master->nops; i++) {
            const tl_op_grade *og = &g->ops[i];
            if (!og->answered || og->malformed || og->pred_kind == TL_KIND_NONE)
                continue;
            bool predicted = (m->predicts >> og->pred_kind) & 1u;
            if (!tl_mc_applies(m, &facts[i]) && !op_tagged(&master->ops[i], m->tag))
                continue;
            /* right where the belief would have misled: against it */
            if (og->correct) {
                contra[k] += !predicted;
                continue;
            }
            if (!predicted)
                continue;
            if (!all[k].ops)
                all[k].ops = tl_xcalloc(master->nops, sizeof *all[k].ops);
            all[k].ops[all[k].nops++] = i;
        }
    }
    free(facts);
    /* held: enough support, and more ops answered as the belief says
     * than answered right against it */
    bool *keep = tl_xcalloc(c->n, sizeof *keep);
    for (size_t k = 0; k < c->n; k++)
        keep[k] = all[k].nops > 0 && (int64_t)all[k].nops >= all[k].m->min_ops &&
                  (all[k].m->min_ops <= 1 || all[k].nops > contra[k]);
    bool *rep = tl_xcalloc(c->n, sizeof *rep);
    size_t n = 0;
    for (size_t a = 0; a < c->n; a++) {
        if (!keep[a])
            continue;
        bool drop = false;
        for (size_t b = 0; b < c->n && !drop; b++) {
            if (b == a || !keep[b] || !subset(&all[a], &all[b]) || contra[b] > contra[a])
                continue;
            /* b explains a's ops and fits the answers as well: broader,
             * or the same ops and fewer against it, or listed first */
            drop = all[b].nops > all[a].nops || contra[b] < contra[a] || b < a;
        }
        if (!drop) {
            /* a broad belief the answers contradict, whose every op a
             * narrower, better-fitting held belief explains, is left out */
            bool covered = all[a].nops > 0;
            for (size_t i = 0; i < all[a].nops && covered; i++) {
                bool by = false;
                for (size_t b = 0; b < c->n && !by; b++)
                    by = b != a && keep[b] && contra[b] < contra[a] &&
                         subset(&all[b], &all[a]) && all[b].nops < all[a].nops &&
                         bsearch_op(&all[b], all[a].ops[i]);
                covered = by;
            }
            drop = covered;
        }
        rep[a] = !drop;
        n += !drop;
    }
    tl_mc_found *res = n ? tl_xcalloc(n, sizeof *res) : NULL;
    size_t r = 0;
    for (size_t k = 0; k < c->n; k++) {
        if (rep[k])
            res[r++] = all[k];
        else
            free(all[k].ops);
    }
    free(rep);
    free(keep);
    free(contra);
    free(all);
    *out = res;
    return n;
}

void tl_mc_found_free(tl_mc_found *f, size_t n)
{
    for (size_t i = 0; f && i < n; i++)
        free(f[i].ops);
    free(f);
}
