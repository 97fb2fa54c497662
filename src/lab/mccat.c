/* mccat.c - the misconceptions catalogue: the shipped one and a lab's
 * own (mccat.h).
 *
 * YAML in the lab files' subset (yaml_fast.h; a lab's entries are nodes of
 * its tree), validated into tl_mc_entry values: unknown keys, wrong types,
 * unknown kinds, bad tags and duplicate tags are one located error. The
 * shipped catalogue is compiled in (misconceptions_data.c, generated from
 * share/misconceptions.yaml: tests/mc_data.sh) and parsed once.
 * Invariants: a parsed catalogue's tags are distinct; every entry has a
 * tag, belief, hint and predicts, and min_ops >= 1; a shipped entry has a
 * when:. This module includes nothing of lab.h (lab.c includes it).
 */
#include "mccat.h"

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
    char *err;             /* FILE:LINE:COL: error: MSG */
    char *msg;             /* MSG alone, at line, col */
    int line, col;
} mc_parser;

static bool fail_at(mc_parser *P, const tl_ynode *n, const char *fmt, const char *arg)
{
    if (P->err)
        return false;
    tl_buf b = {0}, m = {0};
    P->line = n ? n->line : 1;
    P->col = n ? n->col : 1;
    tl_buf_printf(&m, fmt, arg ? arg : "");
    tl_buf_printf(&b, "%s:%d:%d: error: %s", P->file, P->line, P->col, tl_buf_str(&m));
    P->err = tl_buf_steal(&b);
    P->msg = tl_buf_steal(&m);
    return false;
}

/* lab.h's tl_ynode_get and tl_ynode_is_null, which this module may not
 * include (lab.c includes it) */
static const tl_ynode *yget(const tl_ynode *map, const char *key)
{
    if (!map || map->kind != TL_Y_MAP)
        return NULL;
    for (size_t i = 0; i < map->n; i++) {
        const tl_ynode *k = map->items[2 * i];
        if (k->kind == TL_Y_SCALAR && k->value && !strcmp(k->value, key))
            return map->items[2 * i + 1];
    }
    return NULL;
}

static bool yis_null(const tl_ynode *n)
{
    if (!n)
        return true;
    if (n->kind != TL_Y_SCALAR || !n->plain)
        return false;
    return !n->value[0] || !strcmp(n->value, "~") || !strcmp(n->value, "null") ||
           !strcmp(n->value, "Null") || !strcmp(n->value, "NULL");
}

static bool scalar_text(const tl_ynode *n)
{
    return n && n->kind == TL_Y_SCALAR && !yis_null(n) && n->value && n->value[0];
}

static bool get_str(mc_parser *P, const tl_ynode *map, const char *key, bool need, char **out)
{
    const tl_ynode *n = yget(map, key);
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
    if ((n = yget(w, "op_kind")) && !get_names(P, n, "op_kind", &e->op_kind))
        return false;
    if ((n = yget(w, "not_op_kind")) && !get_names(P, n, "not_op_kind", &e->not_op_kind))
        return false;
    if ((n = yget(w, "actual")) && !parse_kinds(P, n, "actual", &e->actual))
        return false;
    if ((n = yget(w, "truth")) && !parse_kinds(P, n, "truth", &e->truth))
        return false;
    if ((n = yget(w, "is_tensor")) && !get_tristate(P, n, "is_tensor", &e->is_tensor))
        return false;
    if ((n = yget(w, "contiguous")) && !get_tristate(P, n, "contiguous", &e->contiguous))
        return false;
    if ((n = yget(w, "shares_storage")) &&
        !get_tristate(P, n, "shares_storage", &e->shares_storage))
        return false;
    if ((n = yget(w, "inplace")) && !get_tristate(P, n, "inplace", &e->inplace))
        return false;
    return true;
}

/* tl_kind's values (lab.h; misconception.c asserts that they agree) */
static const char *const pred_names[] = {"", "view", "copy", "alias", "error", "sometimes"};

static bool parse_predicts(mc_parser *P, const tl_ynode *n, tl_mc_entry *e)
{
    tl_mc_names names = {0};
    bool ok = get_names(P, n, "predicts", &names);
    for (size_t i = 0; ok && i < names.n; i++) {
        unsigned k = 0;
        for (unsigned j = 1; j < sizeof pred_names / sizeof *pred_names; j++)
            if (!strcmp(names.names[i], pred_names[j]))
                k = j;
        if (!k)
            ok = fail_at(P, n->kind == TL_Y_SEQ ? n->items[i] : n,
                         "`predicts:` is view, copy, alias, error or sometimes, not `%s`",
                         names.names[i]);
        else if (i == 0)
            e->predicts = 1u << k | k << 16; /* the first kept in the high bits */
        else
            e->predicts |= 1u << k;
    }
    for (size_t i = 0; i < names.n; i++)
        free(names.names[i]);
    return ok;
}

static bool get_min_ops(mc_parser *P, const tl_ynode *it, tl_mc_entry *e)
{
    const tl_ynode *m = yget(it, "min_ops");
    if (m) {
        char *end = NULL;
        long v = scalar_text(m) ? strtol(m->value, &end, 10) : 0;
        if (!end || *end || v < 1 || v > 1000)
            return fail_at(P, m, "`min_ops:` must be a whole number from 1 to 1000%s", "");
        e->min_ops = v;
    }
    return true;
}

/* An entry; in a lab (custom), `when:` may be left out (only the ops
 * that name the tag support it). */
static bool parse_entry(mc_parser *P, const tl_ynode *it, tl_mc_entry *e, bool custom)
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
            return fail_at(P, yget(it, "tag"),
                           "tag `%s` is not lower-case letters, digits, - and _", e->tag);
    const tl_ynode *w = yget(it, "when");
    if (!w && !custom)
        return fail_at(P, it, "misconception without `%s:`", "when");
    if (w && !parse_when(P, w, e))
        return false;
    e->has_when = w != NULL;
    const tl_ynode *p = yget(it, "predicts");
    if (!p)
        return fail_at(P, it, "misconception without `%s:`", "predicts");
    if (!parse_predicts(P, p, e))
        return false;
    return get_min_ops(P, it, e);
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
    tl_ynode *root = tl_yfast_parse(text, len, 100000, 64, &arena);
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
    const tl_ynode *v = yget(root, "tlab-misconceptions");
    if (!v || !scalar_text(v) || strcmp(v->value, "1")) {
        fail_at(&P, v ? v : root, "`tlab-misconceptions: 1` expected%s", "");
        goto done;
    }
    const tl_ynode *list = yget(root, "misconceptions");
    if (!list || list->kind != TL_Y_SEQ) {
        fail_at(&P, list ? list : root, "`misconceptions:` must be a list%s", "");
        goto done;
    }
    c->entries = tl_xcalloc(list->n ? list->n : 1, sizeof *c->entries);
    for (size_t i = 0; i < list->n; i++) {
        c->n = i + 1;
        if (!parse_entry(&P, list->items[i], &c->entries[i], false))
            goto done;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(c->entries[j].tag, c->entries[i].tag)) {
                fail_at(&P, yget(list->items[i], "tag"), "tag `%s` appears twice",
                        c->entries[i].tag);
                goto done;
            }
    }
done:
    tl_arena_free(arena);
    free(P.msg);
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


/* ---- a lab's own misconceptions ---- */

static tl_mc_entry *find_tag(tl_mc_catalogue *c, const char *tag)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->entries[i].tag, tag))
            return &c->entries[i];
    return NULL;
}

/* into: the shipped entries; the lab's go first (narrower), and an entry
 * of a shipped tag with only min_ops: changes that one's. */
static bool lab_entries(mc_parser *P, const tl_ynode *root, tl_mc_catalogue *c)
{
    const tl_ynode *list = yget(root, "misconceptions");
    if (list && !yis_null(list)) {
        if (list->kind != TL_Y_SEQ)
            return fail_at(P, list, "`misconceptions:` must be a list of misconceptions%s", "");
        size_t nb = c->n;
        tl_mc_entry *all = tl_xcalloc(nb + list->n + 1, sizeof *all);
        size_t nc = 0;
        bool ok = true;
        for (size_t i = 0; ok && i < list->n; i++) {
            const tl_ynode *it = list->items[i];
            const tl_ynode *tag = it->kind == TL_Y_MAP ? yget(it, "tag") : NULL;
            tl_mc_entry *shipped = scalar_text(tag) ? find_tag(c, tag->value) : NULL;
            if (shipped) {
                static const char *const okeys[] = {"tag", "min_ops", NULL};
                if (!check_keys(P, it, okeys)) {
                    ok = false;
                    break;
                }
                ok = get_min_ops(P, it, shipped);
                continue;
            }
            ok = parse_entry(P, it, &all[nc], true);
            nc++;
            for (size_t j = 0; ok && j + 1 < nc; j++)
                if (!strcmp(all[j].tag, all[nc - 1].tag))
                    ok = fail_at(P, tag, "tag `%s` appears twice", all[nc - 1].tag);
        }
        memcpy(all + nc, c->entries, nb * sizeof *all);
        free(c->entries);
        c->entries = all;
        c->n = nb + nc;
        if (!ok)
            return false;
    }
    /* every op's tags name an entry */
    const tl_ynode *ops = yget(root, "ops");
    for (size_t i = 0; ops && ops->kind == TL_Y_SEQ && i < ops->n; i++) {
        const tl_ynode *t = yget(ops->items[i], "misconceptions");
        if (!t || yis_null(t))
            continue;
        tl_mc_names names = {0};
        bool ok = get_names(P, t, "misconceptions", &names);
        for (size_t k = 0; ok && k < names.n; k++)
            if (!find_tag(c, names.names[k]))
                ok = fail_at(P, t->kind == TL_Y_SEQ ? t->items[k] : t,
                             "no misconception `%s` (neither shipped nor in the lab's "
                             "misconceptions:)", names.names[k]);
        names_free(&names);
        if (!ok)
            return false;
    }
    return true;
}

tl_mc_catalogue *tl_mc_for_lab(const char *file, const tl_ynode *root, char **err, int *line,
                               int *col, char **msg)
{
    char *e0 = NULL;
    tl_mc_catalogue *c = tl_mc_catalogue_parse("misconceptions.yaml", tl_misconceptions_builtin,
                                               strlen(tl_misconceptions_builtin), &e0);
    if (!c) {
        /* the shipped catalogue is tested to parse */
        if (err)
            *err = e0;
        else
            free(e0);
        return NULL;
    }
    free(c->file);
    c->file = tl_xstrdup(file);
    mc_parser P = {.file = file};
    bool ok = !root || root->kind != TL_Y_MAP || lab_entries(&P, root, c);
    if (!ok) {
        tl_mc_catalogue_free(c);
        if (err)
            *err = P.err;
        else
            free(P.err);
        if (line)
            *line = P.line;
        if (col)
            *col = P.col;
        if (msg)
            *msg = P.msg;
        else
            free(P.msg);
        return NULL;
    }
    return c;
}
