/* einops.c - the built-in `einops` module: rearrange, reduce, repeat.
 *
 * einops is not run (it is Python); this file follows its einops.py and
 * parsing.py step by step, so results and messages are the package's:
 *   - a pattern "LEFT -> RIGHT" splits at "->" (anything else is Python's
 *     ValueError from the tuple unpacking); each side parses into a
 *     composition of groups: a name, `(a b)` (one level), `1` or `()` (an
 *     empty group), a number > 1 (an anonymous axis: distinct from every
 *     other), `...` once (expanded into "…0", "…1", ... for the dims it
 *     stands for); names are identifiers that neither start nor end with
 *     an underscore;
 *   - the recipe: elementary axes in the order they appear on the left,
 *     then the right's new ones (repeat); lengths from the input's shape
 *     and the keyword sizes, one unknown per input group;
 *   - the application, with torch backend's calls and only when needed:
 *     x.reshape(init_shapes) when an input group is not one axis,
 *     x.permute(order) when the order changes, the reduction
 *     (sum/mean/amax/amin over a tuple of dims; prod/any/all one dim at a
 *     time, last first), x.unsqueeze(pos) per new axis then x.expand(...),
 *     x.reshape(final_shapes) when an output group is not one axis.
 * So rearrange(x, 'b c h -> b (c h)') of a contiguous x is a view, and
 * 'b c h -> b (h c)' a copy: permute, then a reshape that cannot be a view.
 * EinopsError (TL_ERR_EINOPS) messages carry einops' wrapper: ' Error while
 * processing R-reduction pattern "P".\n Input tensor shape: S. Additional
 * info: {K}.\n REASON'. Python sets in messages (identifiers) are printed
 * in the order the axes appear in the pattern (CPython's order depends on
 * string hashing).
 */
#include "einops.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "util.h"

#define MAXAX TL_MAX_DIMS /* elementary axes on one side, groups on one side */
#define NAMELEN 64
#define ELL "\xe2\x80\xa6" /* the one-character ellipsis einops substitutes for ... */

/* sentinel lengths, einops' magic numbers */
#define UNKNOWN (-999999)
#define EXPECTED (-99999)

typedef struct axis {
    char name[NAMELEN]; /* named axis ("…k" for an ellipsis dim); "" for anonymous */
    int64_t anon;       /* anonymous axis length (> 1), else 0 */
    int uid;            /* anonymous axes: unique (never equal to another) */
} axis;

typedef struct group {
    int n;
    int ax[MAXAX]; /* indices into side.ids */
    bool ellipsis; /* the bare `...` at top level */
} group;

typedef struct side {
    group g[MAXAX];
    int ng;
    axis ids[MAXAX]; /* identifiers, in order of appearance */
    int nid;
    bool has_ellipsis;
    int ell_paren; /* -1: no ellipsis; 0 bare; 1 inside parentheses */
    bool non_unitary;
} side;

static int next_uid = 1;

static int einops_fail(tl_error *err, const char *fmt, const char *arg)
{
    return tl_error_set(err, TL_ERR_EINOPS, fmt, arg);
}

static bool same_axis(const axis *a, const axis *b)
{
    if (a->anon || b->anon)
        return a->anon && b->anon && a->uid == b->uid;
    return strcmp(a->name, b->name) == 0;
}

static int find_id(const side *s, const axis *a)
{
    for (int i = 0; i < s->nid; i++)
        if (same_axis(&s->ids[i], a))
            return i;
    return -1;
}

static bool is_keyword(const char *s)
{
    static const char *const kws[] = {
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
        "continue", "def", "del", "elif", "else", "except", "finally", "for", "from",
        "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass",
        "raise", "return", "try", "while", "with", "yield"};
    for (size_t i = 0; i < TL_ARRAY_LEN(kws); i++)
        if (strcmp(kws[i], s) == 0)
            return true;
    return false;
}

static bool ident_char(unsigned char c, bool first)
{
    if (c >= 0x80 || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return true;
    return !first && c >= '0' && c <= '9';
}

/* str.isidentifier(), ASCII rules (bytes >= 0x80 count as letters);
 * keywords are identifiers too (einops only warns about them) */
static bool is_identifier(const char *s)
{
    if (!*s || !ident_char((unsigned char)s[0], true))
        return false;
    for (const char *p = s + 1; *p; p++)
        if (!ident_char((unsigned char)*p, false))
            return false;
    return true;
}

static bool is_decimal(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* ParsedExpression.check_axis_name_return_reason */
static const char *axis_name_problem(const char *x)
{
    if (!is_identifier(x))
        return "not a valid python identifier";
    if (x[0] == '_' || x[strlen(x) - 1] == '_')
        return "axis name should should not start or end with underscore";
    return NULL;
}

static int add_axis(side *s, group *bracket, const char *x, tl_error *err)
{
    if (s->nid >= MAXAX || s->ng >= MAXAX)
        return tl_error_set(err, TL_ERR_LIMIT, "einops pattern with more than %d axes", MAXAX);
    bool is_ell = strcmp(x, ELL) == 0;
    axis a = {{0}, 0, 0};
    if (!is_ell && strcmp(x, "1") != 0 && is_decimal(x)) {
        /* AnonymousAxis(int(x)) */
        int64_t v = 0;
        for (const char *p = x; *p; p++) {
            if (v > (INT64_MAX - 9) / 10)
                return tl_error_set(err, TL_ERR_LIMIT, "einops axis length %s too large", x);
            v = v * 10 + (*p - '0');
        }
        if (v <= 1) {
            if (v == 1)
                return tl_error_set(err, TL_ERR_EINOPS, "No need to create anonymous axis of "
                                                        "length 1. Report this as an issue");
            return tl_error_set(err, TL_ERR_EINOPS,
                                "Anonymous axis should have positive length, not %" PRId64, v);
        }
        a.anon = v;
        a.uid = next_uid++;
        s->non_unitary = true;
    } else if (strcmp(x, "1") == 0) {
        if (!bracket)
            s->g[s->ng++] = (group){.n = 0};
        return 0;
    } else {
        if (strlen(x) >= NAMELEN)
            return tl_error_set(err, TL_ERR_LIMIT, "einops axis name longer than %d bytes",
                                NAMELEN - 1);
        strcpy(a.name, x);
        if (find_id(s, &a) >= 0)
            return tl_error_set(err, TL_ERR_EINOPS,
                                "Indexing expression contains duplicate dimension \"%s\"", x);
        if (!is_ell) {
            const char *why = axis_name_problem(x);
            if (why)
                return tl_error_set(err, TL_ERR_EINOPS, "Invalid axis identifier: %s\n%s", x,
                                    why);
        }
    }
    int id = s->nid;
    s->ids[s->nid++] = a;
    if (is_ell) {
        s->has_ellipsis = true;
        s->ell_paren = bracket ? 1 : 0;
        if (!bracket) {
            s->g[s->ng++] = (group){.n = 0, .ellipsis = true};
            return 0;
        }
    }
    if (bracket) {
        bracket->ax[bracket->n++] = id;
    } else {
        group *g = &s->g[s->ng++];
        g->n = 1;
        g->ellipsis = false;
        g->ax[0] = id;
    }
    return 0;
}

static size_t count_sub(const char *s, const char *sub)
{
    size_t n = 0, k = strlen(sub);
    for (const char *p = strstr(s, sub); p; p = strstr(p + k, sub))
        n++;
    return n;
}

/* ParsedExpression(expression); s must be zeroed */
static int parse_side(const char *expr0, side *s, tl_error *err)
{
    s->ell_paren = -1;
    tl_buf e = {0};
    if (strchr(expr0, '.')) {
        if (!strstr(expr0, "..."))
            return einops_fail(err, "%s", "Expression may contain dots only inside ellipsis (...)");
        if (count_sub(expr0, "...") != 1 || count_sub(expr0, ".") != 3)
            return einops_fail(err, "%s", "Expression may contain dots only inside ellipsis "
                                          "(...); only one ellipsis for tensor ");
        const char *d = strstr(expr0, "...");
        tl_buf_append(&e, expr0, (size_t)(d - expr0));
        tl_buf_puts(&e, ELL);
        tl_buf_puts(&e, d + 3);
    } else {
        tl_buf_puts(&e, expr0);
    }
    const char *expr = tl_buf_str(&e);
    group bracket;
    bool in_bracket = false;
    tl_buf cur = {0};
    bool have = false;
    int rc = 0;
    for (const char *p = expr; *p && rc == 0; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '(' || c == ')' || c == ' ') {
            if (have)
                rc = add_axis(s, in_bracket ? &bracket : NULL, tl_buf_str(&cur), err);
            have = false;
            cur.len = 0;
            if (rc)
                break;
            if (c == '(') {
                if (in_bracket) {
                    rc = einops_fail(err, "%s", "Axis composition is one-level (brackets "
                                                "inside brackets not allowed)");
                    break;
                }
                in_bracket = true;
                bracket.n = 0;
                bracket.ellipsis = false;
            } else if (c == ')') {
                if (!in_bracket) {
                    rc = einops_fail(err, "%s", "Brackets are not balanced");
                    break;
                }
                if (s->ng >= MAXAX) {
                    rc = tl_error_set(err, TL_ERR_LIMIT, "einops pattern with more than %d "
                                                         "axes", MAXAX);
                    break;
                }
                s->g[s->ng++] = bracket;
                in_bracket = false;
            }
        } else if (c >= 0x80 || c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                   (c >= 'A' && c <= 'Z')) {
            tl_buf_putc(&cur, (char)c);
            tl_buf_str(&cur);
            have = true;
        } else if (c < 0x20 || c == 0x7f) {
            rc = tl_error_set(err, TL_ERR_EINOPS, "Unknown character '\\x%02x'", c);
        } else {
            char ch[2] = {(char)c, 0};
            rc = einops_fail(err, "Unknown character '%s'", ch);
        }
    }
    if (rc == 0 && in_bracket)
        rc = einops_fail(err, "Imbalanced parentheses in expression: \"%s\"", expr);
    if (rc == 0 && have)
        rc = add_axis(s, NULL, tl_buf_str(&cur), err);
    tl_buf_free(&cur);
    tl_buf_free(&e);
    return rc;
}

static void axis_repr(const axis *a, tl_buf *b)
{
    if (a->anon)
        tl_buf_printf(b, "%" PRId64 "-axis", a->anon);
    else
        tl_buf_printf(b, "'%s'", a->name);
}

/* a Python set of identifiers, in order of appearance */
static void set_repr(const axis *const *v, int n, tl_buf *b)
{
    if (n == 0) {
        tl_buf_puts(b, "set()");
        return;
    }
    tl_buf_putc(b, '{');
    for (int i = 0; i < n; i++) {
        if (i)
            tl_buf_puts(b, ", ");
        axis_repr(v[i], b);
    }
    tl_buf_putc(b, '}');
}

/* identifiers of a not in b (ellipsis excluded unless keep_ell) */
static int difference(const side *a, const side *b, const axis **out)
{
    int n = 0;
    for (int i = 0; i < a->nid; i++)
        if (find_id(b, &a->ids[i]) < 0)
            out[n++] = &a->ids[i];
    return n;
}

static int set_error(tl_error *err, const char *prefix, const axis **v, int n)
{
    tl_buf b = {0};
    tl_buf_puts(&b, prefix);
    set_repr(v, n, &b);
    tl_error_set_text(err, TL_ERR_EINOPS, tl_buf_str(&b));
    tl_buf_free(&b);
    return -1;
}

/* ---- the operation ---- */

typedef enum { OP_REARRANGE, OP_REPEAT, OP_SUM, OP_MEAN, OP_MAX, OP_MIN, OP_PROD, OP_ANY,
               OP_ALL } opkind;

static const char *const reduction_names[] = {"rearrange", "repeat", "sum", "mean", "max",
                                              "min", "prod", "any", "all"};

typedef struct kwsize {
    const char *name;
    int64_t len;
} kwsize;

/* an elementary axis of the recipe (axis_name2known_length) */
typedef struct elem {
    const axis *a;
    int64_t len;
} elem;

/* a *= b; false on int64 overflow (axis sizes come from the sheet) */
static bool mul_ok(int64_t *a, int64_t b)
{
    return !__builtin_mul_overflow(*a, b, a);
}

static int elem_find(const elem *el, int n, const axis *a)
{
    for (int i = 0; i < n; i++)
        if (same_axis(el[i].a, a))
            return i;
    return -1;
}

/* call x.NAME(args) (a Tensor method binding); steals nothing */
static tl_value *method(tl_value *x, const char *name, size_t npos, tl_value **pos,
                        const char *kw, tl_value *kwval, tl_error *err)
{
    const tl_binding *b = tl_bind_find(TL_BIND_METHOD, name);
    if (!b) {
        tl_error_set(err, TL_ERR_INTERNAL, "einops: no Tensor.%s", name);
        return NULL;
    }
    const char *kwn[1] = {kw};
    tl_value *kwv[1] = {kwval};
    tl_args a = {npos, pos, kw ? 1 : 0, kwn, kwv};
    return b->fn(x, &a, err);
}

static tl_value *int_tuple(const int64_t *v, int n)
{
    tl_value *t = tl_tuple_new((size_t)n);
    for (int i = 0; i < n; i++)
        tl_seq_set(t, (size_t)i, tl_int(v[i]));
    return t;
}

/* x.NAME(tuple) ; consumes x */
static tl_value *call_shape(tl_value *x, const char *name, const int64_t *v, int n,
                            tl_error *err)
{
    tl_value *t = int_tuple(v, n);
    tl_value *r = method(x, name, 1, &t, NULL, NULL, err);
    tl_value_release(t);
    tl_value_release(x);
    return r;
}

/* the recipe and its application (_prepare_transformation_recipe,
 * _reconstruct_from_shape, _apply_recipe); x is borrowed */
static tl_value *apply(tl_value *x, side *L, side *R, opkind op, const kwsize *kws, int nkw,
                       const char *pattern, tl_error *err)
{
    const axis *diff[2 * MAXAX];
    int nd;
    if (!L->has_ellipsis && R->has_ellipsis) {
        einops_fail(err, "Ellipsis found in right side, but not left side of a pattern %s",
                    pattern);
        return NULL;
    }
    if (L->has_ellipsis && L->ell_paren == 1) {
        einops_fail(err, "Ellipsis inside parenthesis in the left side is not allowed: %s",
                    pattern);
        return NULL;
    }
    if (op == OP_REARRANGE) {
        if (L->non_unitary || R->non_unitary) {
            einops_fail(err, "%s", "Non-unitary anonymous axes are not supported in rearrange "
                                   "(exception is length 1)");
            return NULL;
        }
        nd = difference(L, R, diff);
        nd += difference(R, L, diff + nd);
        if (nd) {
            set_error(err, "Identifiers only on one side of expression (should be on both): ",
                      diff, nd);
            return NULL;
        }
    } else if (op == OP_REPEAT) {
        nd = difference(L, R, diff);
        if (nd) {
            set_error(err, "Unexpected identifiers on the left side of repeat: ", diff, nd);
            return NULL;
        }
        nd = 0;
        for (int i = 0; i < R->nid; i++) {
            const axis *a = &R->ids[i];
            if (a->anon || find_id(L, a) >= 0 || strcmp(a->name, ELL) == 0)
                continue;
            bool given = false;
            for (int k = 0; k < nkw; k++)
                given |= strcmp(kws[k].name, a->name) == 0;
            if (!given)
                diff[nd++] = a;
        }
        if (nd) {
            set_error(err, "Specify sizes for new axes in repeat: ", diff, nd);
            return NULL;
        }
    } else {
        nd = difference(R, L, diff);
        if (nd) {
            tl_buf b = {0};
            tl_buf_printf(&b, "Unexpected identifiers on the right side of reduce %s: ",
                          reduction_names[op]);
            set_error(err, tl_buf_str(&b), diff, nd);
            tl_buf_free(&b);
            return NULL;
        }
    }

    const tl_tensor *t = x->u.tensor;
    int ndim = t->ndim;
    /* compositions after the ellipsis expansion: lists of axis pointers */
    static _Thread_local const axis *lc[MAXAX][MAXAX], *rc[MAXAX][MAXAX];
    int lcn[MAXAX], rcn[MAXAX], nl = 0, nr = 0;
    static _Thread_local axis ell[MAXAX];
    int nell = 0;
    if (L->has_ellipsis) {
        int n_other = L->ng - 1;
        if (ndim < n_other) {
            char buf[160];
            snprintf(buf, sizeof buf, "Wrong shape: expected >=%d dims. Received %d-dim tensor.",
                     n_other, ndim);
            tl_error_set_text(err, TL_ERR_EINOPS, buf);
            return NULL;
        }
        nell = ndim - n_other;
        for (int i = 0; i < nell; i++) {
            memset(&ell[i], 0, sizeof ell[i]);
            snprintf(ell[i].name, NAMELEN, ELL "%d", i);
        }
    } else if (ndim != L->ng) {
        char buf[160];
        snprintf(buf, sizeof buf, "Wrong shape: expected %d dims. Received %d-dim tensor.",
                 L->ng, ndim);
        tl_error_set_text(err, TL_ERR_EINOPS, buf);
        return NULL;
    }
    for (int gi = 0; gi < L->ng; gi++) {
        const group *g = &L->g[gi];
        if (g->ellipsis) {
            for (int k = 0; k < nell; k++) {
                lc[nl][0] = &ell[k];
                lcn[nl++] = 1;
            }
            continue;
        }
        for (int k = 0; k < g->n; k++)
            lc[nl][k] = &L->ids[g->ax[k]];
        lcn[nl++] = g->n;
    }
    for (int gi = 0; gi < R->ng; gi++) {
        const group *g = &R->g[gi];
        if (g->ellipsis) {
            for (int k = 0; k < nell; k++) {
                if (nr >= MAXAX)
                    goto too_many;
                rc[nr][0] = &ell[k];
                rcn[nr++] = 1;
            }
            continue;
        }
        if (nr >= MAXAX)
            goto too_many;
        int m = 0;
        for (int k = 0; k < g->n; k++) {
            const axis *a = &R->ids[g->ax[k]];
            if (!a->anon && strcmp(a->name, ELL) == 0) {
                for (int j = 0; j < nell; j++) {
                    if (m >= MAXAX)
                        goto too_many;
                    rc[nr][m++] = &ell[j];
                }
            } else {
                if (m >= MAXAX)
                    goto too_many;
                rc[nr][m++] = a;
            }
        }
        rcn[nr++] = m;
    }
    elem el[2 * MAXAX];
    int nel = 0;
    for (int i = 0; i < nl; i++)
        for (int k = 0; k < lcn[i]; k++) {
            if (nel >= MAXAX)
                goto too_many;
            el[nel].a = lc[i][k];
            el[nel++].len = lc[i][k]->anon ? lc[i][k]->anon : UNKNOWN;
        }
    int n_left_elem = nel;
    for (int i = 0; i < nr; i++)
        for (int k = 0; k < rcn[i]; k++)
            if (elem_find(el, nel, rc[i][k]) < 0) {
                if (nel >= 2 * MAXAX)
                    goto too_many;
                el[nel].a = rc[i][k];
                el[nel++].len = rc[i][k]->anon ? rc[i][k]->anon : UNKNOWN;
            }
    int kwpos[MAXAX];
    for (int k = 0; k < nkw; k++) {
        axis probe = {{0}, 0, 0};
        snprintf(probe.name, NAMELEN, "%s", kws[k].name);
        if (axis_name_problem(kws[k].name) || is_keyword(kws[k].name)) {
            char buf[NAMELEN + 64];
            snprintf(buf, sizeof buf, "('Invalid name for an axis', '%s')", probe.name);
            tl_error_set_text(err, TL_ERR_EINOPS, buf);
            return NULL;
        }
        int p = strlen(kws[k].name) < NAMELEN ? elem_find(el, nel, &probe) : -1;
        if (p < 0) {
            einops_fail(err, "Axis %s is not used in transform", kws[k].name);
            return NULL;
        }
        el[p].len = EXPECTED;
        kwpos[k] = p;
    }
    /* one unknown per input group */
    for (int i = 0; i < nl; i++) {
        const axis *unk[MAXAX];
        int nu = 0;
        for (int k = 0; k < lcn[i]; k++)
            if (el[elem_find(el, nel, lc[i][k])].len == UNKNOWN)
                unk[nu++] = lc[i][k];
        if (nu > 1) {
            set_error(err, "Could not infer sizes for ", unk, nu);
            return NULL;
        }
    }
    /* _reconstruct_from_shape */
    int64_t len[2 * MAXAX];
    for (int i = 0; i < nel; i++)
        len[i] = el[i].len;
    for (int k = 0; k < nkw; k++)
        len[kwpos[k]] = kws[k].len;
    bool need_init = false;
    for (int i = 0; i < nl; i++) {
        int64_t length = t->sizes[i];
        int64_t known = 1;
        int unknown = -1, nknown = 0;
        for (int k = 0; k < lcn[i]; k++) {
            int p = elem_find(el, nel, lc[i][k]);
            if (el[p].len == UNKNOWN) {
                unknown = p;
            } else {
                if (!mul_ok(&known, len[p]))
                    goto overflow;
                nknown++;
            }
        }
        if (unknown < 0) {
            if (length != known) {
                char buf[128];
                snprintf(buf, sizeof buf, "Shape mismatch, %" PRId64 " != %" PRId64, length,
                         known);
                tl_error_set_text(err, TL_ERR_EINOPS, buf);
                return NULL;
            }
        } else {
            if (known == 0) {
                tl_error_set(err, TL_ERR_ZERODIV, "integer division or modulo by zero");
                return NULL;
            }
            if (length % known != 0) {
                char buf[160];
                snprintf(buf, sizeof buf, "Shape mismatch, can't divide axis of length %" PRId64
                         " in chunks of %" PRId64, length, known);
                tl_error_set_text(err, TL_ERR_EINOPS, buf);
                return NULL;
            }
            len[unknown] = length / known;
        }
        if (nknown + (unknown >= 0) != 1)
            need_init = true;
    }
    /* the permutation: right's order of left axes, then the reduced ones */
    int64_t perm[MAXAX];
    int np = 0, nred = 0;
    for (int i = 0; i < nr; i++)
        for (int k = 0; k < rcn[i]; k++) {
            int p = elem_find(el, n_left_elem, rc[i][k]);
            if (p >= 0)
                perm[np++] = p;
        }
    for (int p = 0; p < n_left_elem; p++) {
        bool kept = false;
        for (int i = 0; i < nr && !kept; i++)
            for (int k = 0; k < rcn[i]; k++)
                kept |= same_axis(rc[i][k], el[p].a);
        if (!kept) {
            perm[np++] = p;
            nred++;
        }
    }
    int first_reduced = np - nred;
    bool identity = true;
    for (int i = 0; i < np; i++)
        identity &= perm[i] == i;
    /* added axes: position in the flattened right side -> length */
    int add_pos[MAXAX];
    int64_t add_len[MAXAX];
    int nadd = 0, flat = 0;
    for (int i = 0; i < nr; i++)
        for (int k = 0; k < rcn[i]; k++, flat++)
            if (elem_find(el, n_left_elem, rc[i][k]) < 0) {
                add_pos[nadd] = flat;
                add_len[nadd++] = len[elem_find(el, nel, rc[i][k])];
            }
    bool need_final = false;
    int64_t final[MAXAX];
    for (int i = 0; i < nr; i++) {
        int64_t prod = 1;
        for (int k = 0; k < rcn[i]; k++)
            if (!mul_ok(&prod, len[elem_find(el, nel, rc[i][k])]))
                goto overflow;
        final[i] = prod;
        if (rcn[i] != 1)
            need_final = true;
    }

    /* _apply_recipe */
    tl_value *y = tl_value_retain(x);
    if (need_init && !(y = call_shape(y, "reshape", len, n_left_elem, err)))
        return NULL;
    if (!identity && !(y = call_shape(y, "permute", perm, np, err)))
        return NULL;
    if (nred) {
        int64_t dims[MAXAX];
        for (int i = 0; i < nred; i++)
            dims[i] = first_reduced + i;
        static const char *const fn[] = {NULL, NULL, "sum", "mean", "amax", "amin", "prod",
                                         "any", "all"};
        if (op == OP_MEAN && !tl_dtype_is_floating(y->u.tensor->dtype)) {
            tl_value_release(y);
            tl_error_set(err, TL_ERR_NOTIMPL,
                         "reduce_mean is not available for non-floating tensors");
            return NULL;
        }
        if (op == OP_PROD || op == OP_ANY || op == OP_ALL) {
            for (int i = nred - 1; i >= 0; i--) {
                tl_value *d = tl_int(dims[i]);
                tl_value *z = method(y, fn[op], 0, NULL, "dim", d, err);
                tl_value_release(d);
                tl_value_release(y);
                if (!(y = z))
                    return NULL;
            }
        } else {
            tl_value *d = int_tuple(dims, nred);
            tl_value *z = method(y, fn[op], 0, NULL, "dim", d, err);
            tl_value_release(d);
            tl_value_release(y);
            if (!(y = z))
                return NULL;
        }
    }
    if (nadd) {
        int n_axes = nadd + np;
        int64_t repeats[2 * MAXAX];
        if (n_axes > MAXAX) {
            tl_value_release(y);
            goto too_many;
        }
        for (int i = 0; i < n_axes; i++)
            repeats[i] = -1;
        for (int i = 0; i < nadd; i++) {
            tl_value *d = tl_int(add_pos[i]);
            tl_value *z = method(y, "unsqueeze", 1, &d, NULL, NULL, err);
            tl_value_release(d);
            tl_value_release(y);
            if (!(y = z))
                return NULL;
            repeats[add_pos[i]] = add_len[i];
        }
        if (!(y = call_shape(y, "expand", repeats, n_axes, err)))
            return NULL;
    }
    if (need_final && !(y = call_shape(y, "reshape", final, nr, err)))
        return NULL;
    return y;
too_many:
    tl_error_set(err, TL_ERR_LIMIT, "einops pattern with more than %d axes", MAXAX);
    return NULL;
overflow:
    tl_error_set(err, TL_ERR_OVERFLOW, "einops axis sizes overflow a 64-bit integer");
    return NULL;
}

/* reduce(tensor, pattern, reduction, **axes_lengths) and its two forms */
static tl_value *run(const char *fname, opkind op0, bool has_reduction, const tl_args *a,
                     tl_error *err)
{
    size_t want = has_reduction ? 3 : 2;
    static const char *const pnames[] = {"tensor", "pattern", "reduction"};
    tl_value *params[3] = {NULL, NULL, NULL};
    if (a->npos > want) {
        tl_error_set(err, TL_ERR_TYPE, "%s() takes %zu positional arguments but %zu were given",
                     fname, want, a->npos);
        return NULL;
    }
    for (size_t i = 0; i < a->npos; i++)
        params[i] = a->pos[i];
    kwsize kws[MAXAX];
    tl_value *kwvals[MAXAX];
    int nkw = 0;
    for (size_t k = 0; k < a->nkw; k++) {
        bool param = false;
        for (size_t i = 0; i < want; i++)
            if (strcmp(a->kwnames[k], pnames[i]) == 0) {
                if (params[i]) {
                    tl_error_set(err, TL_ERR_TYPE, "%s() got multiple values for argument '%s'",
                                 fname, pnames[i]);
                    return NULL;
                }
                params[i] = a->kwvals[k];
                param = true;
            }
        if (param)
            continue;
        if (nkw >= MAXAX) {
            tl_error_set(err, TL_ERR_LIMIT, "einops: more than %d axis sizes", MAXAX);
            return NULL;
        }
        int64_t v;
        if (!tl_value_as_index(a->kwvals[k], &v)) {
            tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab's einops takes int axis sizes (%s=%s)",
                         a->kwnames[k], tl_value_type_name(a->kwvals[k]));
            return NULL;
        }
        kws[nkw].name = a->kwnames[k];
        kws[nkw].len = v;
        kwvals[nkw++] = a->kwvals[k];
    }
    for (size_t i = 0; i < want; i++)
        if (!params[i]) {
            tl_error_set(err, TL_ERR_TYPE, "%s() missing 1 required positional argument: '%s'",
                         fname, pnames[i]);
            return NULL;
        }
    tl_value *x = params[0], *pat = params[1];
    opkind op = op0;
    if (has_reduction) {
        tl_value *r = params[2];
        if (r->kind != TL_V_STR) {
            tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab's einops.reduce takes the reduction "
                                                  "by name ('sum', 'mean', 'max', 'min', "
                                                  "'prod', 'any', 'all')");
            return NULL;
        }
        op = OP_REARRANGE;
        for (int i = OP_SUM; i <= OP_ALL; i++)
            if (strcmp(r->u.str.s, reduction_names[i]) == 0)
                op = (opkind)i;
        if (op == OP_REARRANGE && strcmp(r->u.str.s, "rearrange") != 0 &&
            strcmp(r->u.str.s, "repeat") != 0)
            op = (opkind)-1; /* unknown: reported inside the wrapper below */
        else if (op == OP_REARRANGE && strcmp(r->u.str.s, "repeat") == 0)
            op = OP_REPEAT;
    }
    tl_value *stacked = NULL;
    if (x->kind == TL_V_LIST) {
        if (x->u.seq.n == 0) {
            tl_error_set(err, TL_ERR_TYPE, "Rearrange/Reduce/Repeat can't be applied to an "
                                           "empty list");
            return NULL;
        }
        const tl_binding *b = tl_bind_find(TL_BIND_TORCH, "stack");
        tl_args sa = {1, &x, 0, NULL, NULL};
        if (!b || !(stacked = b->fn(NULL, &sa, err)))
            return NULL;
        x = stacked;
    } else if (x->kind != TL_V_TENSOR) {
        tl_buf b = {0};
        if (x->kind == TL_V_NDARRAY) {
            tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab's einops takes torch tensors, not "
                                                  "NumPy arrays");
            return NULL;
        }
        tl_buf_free(&b);
        tl_error_set(err, TL_ERR_RUNTIME, "Tensor type unknown to einops <class '%s'>",
                     tl_value_type_name(x));
        return NULL;
    }
    if (pat->kind != TL_V_STR) {
        tl_value_release(stacked);
        tl_error_set(err, TL_ERR_ATTRIBUTE, "'%s' object has no attribute 'split'",
                     tl_value_type_name(pat));
        return NULL;
    }
    const char *pattern = pat->u.str.s;
    const char *arrow = strstr(pattern, "->");
    if (!arrow || strstr(arrow + 2, "->")) {
        tl_value_release(stacked);
        if (!arrow)
            tl_error_set(err, TL_ERR_VALUE, "not enough values to unpack (expected 2, got 1)");
        else
            tl_error_set(err, TL_ERR_VALUE, "too many values to unpack (expected 2)");
        return NULL;
    }
    side *L = tl_xcalloc(2, sizeof *L), *R = L + 1;
    tl_value *y = NULL;
    char *left = tl_xstrndup(pattern, (size_t)(arrow - pattern));
    int rc = 0;
    if (strchr(left, '\0') != left + (arrow - pattern))
        rc = tl_error_set(err, TL_ERR_EINOPS, "Unknown character '\\x00'");
    if (rc == 0)
        rc = parse_side(left, L, err);
    if (rc == 0)
        rc = parse_side(arrow + 2, R, err);
    free(left);
    if (rc == 0 && op == (opkind)-1) {
        einops_fail(err, "Unknown reduction %s. Expect one of ('min', 'max', 'sum', 'mean', "
                         "'prod', 'any', 'all').", params[2]->u.str.s);
        rc = -1;
    }
    if (rc == 0)
        y = apply(x, L, R, op, kws, nkw, pattern, err);
    free(L);
    if (!y && err->kind == TL_ERR_EINOPS) {
        /* einops' wrapper around every EinopsError */
        tl_buf b = {0};
        tl_buf_printf(&b, " Error while processing %s-reduction pattern \"%s\".",
                      op == OP_REPEAT && !has_reduction ? "repeat"
                      : has_reduction                   ? params[2]->u.str.s
                                                        : "rearrange",
                      pattern);
        if (stacked) {
            tl_buf_puts(&b, "\n Input is list. ");
        } else {
            tl_value *sz = tl_size_new(x->u.tensor->ndim, x->u.tensor->sizes);
            tl_buf_puts(&b, "\n Input tensor shape: ");
            tl_value_repr(sz, &b);
            tl_value_release(sz);
            tl_buf_puts(&b, ". ");
        }
        tl_buf_puts(&b, "Additional info: {");
        for (int k = 0; k < nkw; k++) {
            tl_buf_printf(&b, "%s'%s': ", k ? ", " : "", kws[k].name);
            tl_value_repr(kwvals[k], &b);
        }
        tl_buf_printf(&b, "}.\n %s", err->msg);
        tl_error_clear(err);
        tl_error_set_text(err, TL_ERR_EINOPS, tl_buf_str(&b));
        tl_buf_free(&b);
    }
    tl_value_release(stacked);
    return y;
}

static tl_value *f_rearrange(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    return run("rearrange", OP_REARRANGE, false, a, err);
}

static tl_value *f_repeat(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    return run("repeat", OP_REPEAT, false, a, err);
}

static tl_value *f_reduce(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    return run("reduce", OP_SUM, true, a, err);
}

tl_value *tl_einops_attr(const char *name, tl_error *err)
{
    if (strcmp(name, "rearrange") == 0)
        return tl_value_func("rearrange", f_rearrange, NULL);
    if (strcmp(name, "reduce") == 0)
        return tl_value_func("reduce", f_reduce, NULL);
    if (strcmp(name, "repeat") == 0)
        return tl_value_func("repeat", f_repeat, NULL);
    if (strcmp(name, "EinopsError") == 0)
        return tl_value_type("EinopsError", TL_ERR_EINOPS, TL_V_EXC, NULL);
    tl_error_set(err, TL_ERR_ATTRIBUTE, "module 'einops' has no attribute '%s'", name);
    return NULL;
}
