/* misconception.c - the misconceptions catalogue and its recognition
 * (misconception.h).
 *
 * The catalogue is YAML in the lab files' subset (yaml_fast.h), validated
 * here into tl_mc_entry values: unknown keys, wrong types, unknown kinds
 * and duplicate tags are one located error. The shipped catalogue is
 * compiled in (misconceptions_data.c, generated from
 * share/misconceptions.yaml by the Makefile) and parsed once.
 *
 * Recognition is data: an op's facts are computed once from its text and
 * its verdict (tl_mc_facts_of), and an entry's `when:` is a conjunction of
 * membership and boolean tests over them. Invariants: tl_mc_find reports
 * an entry only with at least min_ops supporting ops, each op wrong and
 * answered with a kind the entry predicts; no reported entry's ops are a
 * proper subset of another reported entry's (nor equal to an earlier
 * one's).
 */
#include "misconception.h"

#include <ctype.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "platform.h"
#include "util.h"
#include "yaml_fast.h"

extern const char tl_misconceptions_builtin[];

/* ---- parsing ---- */

typedef struct mc_parser {
    const char *file;
    char *err;
} mc_parser;

static bool fail_at(mc_parser *P, const tl_ynode *n, const char *fmt, const char *arg)
{
    if (P->err)
        return false;
    tl_buf b = {0};
    tl_buf_printf(&b, "%s:%d:%d: error: ", P->file, n ? n->line : 1, n ? n->col : 1);
    tl_buf_printf(&b, fmt, arg ? arg : "");
    P->err = tl_buf_steal(&b);
    return false;
}

static bool scalar_text(const tl_ynode *n)
{
    return n && n->kind == TL_Y_SCALAR && !tl_ynode_is_null(n) && n->value && n->value[0];
}

static bool get_str(mc_parser *P, const tl_ynode *map, const char *key, bool need, char **out)
{
    const tl_ynode *n = tl_ynode_get(map, key);
    if (!n) {
        if (need)
            return fail_at(P, map, "misconception without `%s:`", key);
        return true;
    }
    if (!scalar_text(n))
        return fail_at(P, n, "`%s:` must be a non-empty text", key);
    *out = tl_xstrdup(n->value);
    return true;
}

static bool get_names(mc_parser *P, const tl_ynode *n, const char *key, tl_mc_names *out)
{
    if (scalar_text(n)) {
        out->names[out->n++] = tl_xstrdup(n->value);
        return true;
    }
    if (!n || n->kind != TL_Y_SEQ || n->n == 0)
        return fail_at(P, n, "`%s:` must be a name or a list of names", key);
    if (n->n > TL_MC_MAX_NAMES)
        return fail_at(P, n->items[TL_MC_MAX_NAMES], "`%s:` has too many names", key);
    for (size_t i = 0; i < n->n; i++) {
        if (!scalar_text(n->items[i]))
            return fail_at(P, n->items[i], "`%s:` must be a name or a list of names", key);
        out->names[out->n++] = tl_xstrdup(n->items[i]->value);
    }
    return true;
}

static bool get_tristate(mc_parser *P, const tl_ynode *n, const char *key, int *out)
{
    if (n && n->kind == TL_Y_SCALAR && n->value && n->plain) {
        if (!strcmp(n->value, "true")) {
            *out = 1;
            return true;
        }
        if (!strcmp(n->value, "false")) {
            *out = 0;
            return true;
        }
    }
    return fail_at(P, n, "`%s:` must be true or false", key);
}

static const char *const truth_names[] = {"view", "copy", "alias", "error", "value",
                                          "mixed", "sometimes", NULL};

static bool check_keys(mc_parser *P, const tl_ynode *map, const char *const *known)
{
    for (size_t i = 0; i < map->n; i++) {
        const tl_ynode *k = map->items[2 * i];
        bool ok = false;
        for (size_t j = 0; known[j] && k->value; j++)
            ok = ok || !strcmp(k->value, known[j]);
        if (!ok)
            return fail_at(P, k, "unknown key `%s`", k->value ? k->value : "");
    }
    return true;
}

static bool parse_kinds(mc_parser *P, const tl_ynode *n, const char *key, tl_mc_names *out)
{
    if (!get_names(P, n, key, out))
        return false;
    for (size_t i = 0; i < out->n; i++) {
        bool ok = false;
        for (size_t j = 0; truth_names[j]; j++)
            ok = ok || !strcmp(out->names[i], truth_names[j]);
        if (!ok || (!strcmp(key, "actual") && !strcmp(out->names[i], "sometimes"))) {
            tl_buf b = {0};
            tl_buf_printf(&b, "`%s:` is view, copy, alias, error, value, mixed%s, not `%s`", key,
                          strcmp(key, "actual") ? " or sometimes" : "", out->names[i]);
            fail_at(P, n->kind == TL_Y_SEQ ? n->items[i] : n, "%s", tl_buf_str(&b));
            tl_buf_free(&b);
            return false;
        }
    }
    return true;
}

static bool parse_when(mc_parser *P, const tl_ynode *w, tl_mc_entry *e)
{
    static const char *const keys[] = {"op_kind", "not_op_kind", "actual", "truth", "is_tensor",
                                       "contiguous", "shares_storage", "inplace", NULL};
    if (!w || w->kind != TL_Y_MAP || w->n == 0)
        return fail_at(P, w, "`when:` must be a mapping of %s", "evidence fields");
    if (!check_keys(P, w, keys))
        return false;
    const tl_ynode *n;
    if ((n = tl_ynode_get(w, "op_kind")) && !get_names(P, n, "op_kind", &e->op_kind))
        return false;
    if ((n = tl_ynode_get(w, "not_op_kind")) && !get_names(P, n, "not_op_kind", &e->not_op_kind))
        return false;
    if ((n = tl_ynode_get(w, "actual")) && !parse_kinds(P, n, "actual", &e->actual))
        return false;
    if ((n = tl_ynode_get(w, "truth")) && !parse_kinds(P, n, "truth", &e->truth))
        return false;
    if ((n = tl_ynode_get(w, "is_tensor")) && !get_tristate(P, n, "is_tensor", &e->is_tensor))
        return false;
    if ((n = tl_ynode_get(w, "contiguous")) && !get_tristate(P, n, "contiguous", &e->contiguous))
        return false;
    if ((n = tl_ynode_get(w, "shares_storage")) &&
        !get_tristate(P, n, "shares_storage", &e->shares_storage))
        return false;
    if ((n = tl_ynode_get(w, "inplace")) && !get_tristate(P, n, "inplace", &e->inplace))
        return false;
    return true;
}

static bool parse_predicts(mc_parser *P, const tl_ynode *n, tl_mc_entry *e)
{
    tl_mc_names names = {0};
    bool ok = get_names(P, n, "predicts", &names);
    for (size_t i = 0; ok && i < names.n; i++) {
        tl_kind k;
        if (!tl_kind_from_name(names.names[i], &k) || k == TL_KIND_NONE ||
            k == TL_KIND_MIXED || k == TL_KIND_VALUE)
            ok = fail_at(P, n->kind == TL_Y_SEQ ? n->items[i] : n,
                         "`predicts:` is view, copy, alias, error or sometimes, not `%s`",
                         names.names[i]);
        else if (i == 0)
            e->predicts = 1u << k | (unsigned)k << 16; /* the first kept in the high bits */
        else
            e->predicts |= 1u << k;
    }
    for (size_t i = 0; i < names.n; i++)
        free(names.names[i]);
    return ok;
}

static bool parse_entry(mc_parser *P, const tl_ynode *it, tl_mc_entry *e)
{
    static const char *const keys[] = {"tag", "belief", "hint", "when", "predicts",
                                       "min_ops", NULL};
    e->contiguous = e->shares_storage = e->inplace = e->is_tensor = -1;
    e->min_ops = 2;
    if (!it || it->kind != TL_Y_MAP)
        return fail_at(P, it, "a misconception must be a %s", "mapping");
    e->line = it->line;
    e->col = it->col;
    if (!check_keys(P, it, keys) || !get_str(P, it, "tag", true, &e->tag) ||
        !get_str(P, it, "belief", true, &e->belief) || !get_str(P, it, "hint", true, &e->hint))
        return false;
    for (const char *s = e->tag; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '-' || *s == '_'))
            return fail_at(P, tl_ynode_get(it, "tag"),
                           "tag `%s` is not lower-case letters, digits, - and _", e->tag);
    const tl_ynode *w = tl_ynode_get(it, "when");
    if (!w)
        return fail_at(P, it, "misconception without `%s:`", "when");
    if (!parse_when(P, w, e))
        return false;
    const tl_ynode *p = tl_ynode_get(it, "predicts");
    if (!p)
        return fail_at(P, it, "misconception without `%s:`", "predicts");
    if (!parse_predicts(P, p, e))
        return false;
    const tl_ynode *m = tl_ynode_get(it, "min_ops");
    if (m) {
        char *end = NULL;
        long v = scalar_text(m) ? strtol(m->value, &end, 10) : 0;
        if (!end || *end || v < 1 || v > 1000)
            return fail_at(P, m, "`min_ops:` must be a whole number from 1 to 1000%s", "");
        e->min_ops = v;
    }
    return true;
}

static void names_free(tl_mc_names *n)
{
    for (size_t i = 0; i < n->n; i++)
        free(n->names[i]);
}

void tl_mc_catalogue_free(tl_mc_catalogue *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        tl_mc_entry *e = &c->entries[i];
        free(e->tag);
        free(e->belief);
        free(e->hint);
        names_free(&e->op_kind);
        names_free(&e->not_op_kind);
        names_free(&e->actual);
        names_free(&e->truth);
    }
    free(c->entries);
    free(c->file);
    free(c);
}

tl_mc_catalogue *tl_mc_catalogue_parse(const char *file, const char *text, size_t len,
                                       char **err)
{
    mc_parser P = {.file = file};
    tl_arena_block *arena = NULL;
    tl_mc_catalogue *c = tl_xcalloc(1, sizeof *c);
    c->file = tl_xstrdup(file);
    tl_ynode *root = tl_yfast_parse(text, len, TL_LAB_MAX_NODES, TL_LAB_MAX_DEPTH, &arena);
    if (!root) {
        fail_at(&P, NULL, "not a catalogue in the YAML that lab files use%s", "");
        goto done;
    }
    static const char *const top[] = {"tlab-misconceptions", "misconceptions", NULL};
    if (root->kind != TL_Y_MAP) {
        fail_at(&P, root, "a catalogue is a mapping with `misconceptions:`%s", "");
        goto done;
    }
    if (!check_keys(&P, root, top))
        goto done;
    const tl_ynode *v = tl_ynode_get(root, "tlab-misconceptions");
    if (!v || !scalar_text(v) || strcmp(v->value, "1")) {
        fail_at(&P, v ? v : root, "`tlab-misconceptions: 1` expected%s", "");
        goto done;
    }
    const tl_ynode *list = tl_ynode_get(root, "misconceptions");
    if (!list || list->kind != TL_Y_SEQ) {
        fail_at(&P, list ? list : root, "`misconceptions:` must be a list%s", "");
        goto done;
    }
    c->entries = tl_xcalloc(list->n ? list->n : 1, sizeof *c->entries);
    for (size_t i = 0; i < list->n; i++) {
        c->n = i + 1;
        if (!parse_entry(&P, list->items[i], &c->entries[i]))
            goto done;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(c->entries[j].tag, c->entries[i].tag)) {
                fail_at(&P, tl_ynode_get(list->items[i], "tag"), "tag `%s` appears twice",
                        c->entries[i].tag);
                goto done;
            }
    }
done:
    tl_arena_free(arena);
    if (P.err) {
        tl_mc_catalogue_free(c);
        *err = P.err;
        return NULL;
    }
    return c;
}

static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;
static tl_mc_catalogue *builtin;

static void load_builtin(void)
{
    char *err = NULL;
    builtin = tl_mc_catalogue_parse("misconceptions.yaml", tl_misconceptions_builtin,
                                    strlen(tl_misconceptions_builtin), &err);
    free(err);
}

const tl_mc_catalogue *tl_mc_builtin(void)
{
    pthread_once(&builtin_once, load_builtin);
    return builtin;
}

const char *tl_mc_builtin_text(void)
{
    return tl_misconceptions_builtin;
}

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
    for (size_t k = 0; k < c->n; k++) {
        const tl_mc_entry *m = &c->entries[k];
        all[k].m = m;
        for (size_t i = 0; i < master->nops; i++) {
            const tl_op_grade *og = &g->ops[i];
            if (!og->answered || og->malformed || og->correct || og->pred_kind == TL_KIND_NONE)
                continue;
            if (!((m->predicts >> og->pred_kind) & 1u) || !tl_mc_applies(m, &facts[i]))
                continue;
            if (!all[k].ops)
                all[k].ops = tl_xcalloc(master->nops, sizeof *all[k].ops);
            all[k].ops[all[k].nops++] = i;
        }
    }
    free(facts);
    bool *keep = tl_xcalloc(c->n, sizeof *keep);
    for (size_t k = 0; k < c->n; k++)
        keep[k] = all[k].nops > 0 && (int64_t)all[k].nops >= all[k].m->min_ops;
    bool *rep = tl_xcalloc(c->n, sizeof *rep);
    size_t n = 0;
    for (size_t a = 0; a < c->n; a++) {
        if (!keep[a])
            continue;
        bool drop = false;
        for (size_t b = 0; b < c->n && !drop; b++) {
            if (b == a || !keep[b] || !subset(&all[a], &all[b]))
                continue;
            drop = all[b].nops > all[a].nops || b < a;
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
