/* strmethods.c - the str methods lab programs print with: join, split,
 * strip/lstrip/rstrip, upper/lower, replace, startswith/endswith and
 * format, with CPython's results and error texts (3.11).
 *
 * Invariants: every string made here is charged to the call's sequence
 * budget (tl_pyops_charge_seq) before it is built, so a hostile program
 * cannot grow one past the limit (`'a' * 10**6` then replace); format's
 * fields go through the f-string engine (tl_format_value), so a spec
 * means what it means in an f-string. Strings are bytes here: upper/lower
 * change ASCII letters only.
 */
#include "strmethods.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "pyformat.h"
#include "pyops.h"
#include "util.h"

static int str_arg(const tl_args *a, size_t i, const char *fn, const char **s, size_t *n,
                   tl_error *err)
{
    const tl_value *v = a->pos[i];
    if (v->kind != TL_V_STR)
        return tl_error_set(err, TL_ERR_TYPE, "%s() argument %zu must be str, not %s", fn, i + 1,
                            tl_value_type_name(v));
    *s = v->u.str.s;
    *n = v->u.str.len;
    return 0;
}

/* CPython's argument-count errors for str methods: lo == hi == 0 is
 * METH_NOARGS ("str.upper() takes no arguments (1 given)"), lo == hi == 1
 * METH_O ("str.join() takes exactly one argument (0 given)"), else an
 * argument-clinic range ("replace expected at least 2 arguments, got 1") */
static int nargs(const tl_args *a, const char *fn, size_t lo, size_t hi, tl_error *err)
{
    if (a->nkw)
        return tl_error_set(err, TL_ERR_TYPE, "str.%s() takes no keyword arguments", fn);
    if (a->npos >= lo && a->npos <= hi)
        return 0;
    if (hi == 0)
        return tl_error_set(err, TL_ERR_TYPE, "str.%s() takes no arguments (%zu given)", fn,
                            a->npos);
    if (lo == 1 && hi == 1)
        return tl_error_set(err, TL_ERR_TYPE, "str.%s() takes exactly one argument (%zu given)",
                            fn, a->npos);
    size_t lim = a->npos < lo ? lo : hi;
    return tl_error_set(err, TL_ERR_TYPE, "%s expected at %s %zu argument%s, got %zu", fn,
                        a->npos < lo ? "least" : "most", lim, lim == 1 ? "" : "s", a->npos);
}

static tl_value *charged(tl_buf *b, tl_error *err)
{
    if (tl_pyops_charge_seq(b->len, err) < 0) {
        tl_buf_free(b);
        return NULL;
    }
    tl_value *r = tl_strn(tl_buf_str(b), b->len);
    tl_buf_free(b);
    return r;
}

static tl_value *s_join(tl_value *self, const tl_args *a, tl_error *err)
{
    if (nargs(a, "join", 1, 1, err) < 0)
        return NULL;
    tl_value **items;
    size_t n;
    if (tl_pyops_iterate(a->pos[0], &items, &n, err) < 0)
        return NULL;
    tl_buf b = {0};
    tl_buf_puts(&b, "");
    tl_value *r = NULL;
    for (size_t i = 0; i < n; i++) {
        if (items[i]->kind != TL_V_STR) {
            tl_error_set(err, TL_ERR_TYPE, "sequence item %zu: expected str instance, %s found",
                         i, tl_value_type_name(items[i]));
            goto out;
        }
        if (i)
            tl_buf_append(&b, self->u.str.s, self->u.str.len);
        tl_buf_append(&b, items[i]->u.str.s, items[i]->u.str.len);
        if (b.len > (size_t)tl_pyops_max_seq()) {
            tl_error_set(err, TL_ERR_LIMIT, "string longer than the limit (%lld characters)",
                         (long long)tl_pyops_max_seq());
            goto out;
        }
    }
    r = charged(&b, err);
out:
    tl_buf_free(&b);
    tl_pyops_items_free(items, n);
    return r;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* split(sep=None, maxsplit=-1) */
static tl_value *s_split(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"sep", "maxsplit", NULL};
    if (tl_args_check(a, "split", 2, kw, "(sep=None, maxsplit=-1)", err) < 0)
        return NULL;
    const tl_value *sv = tl_arg(a, 0, "sep"), *mv = tl_arg(a, 1, "maxsplit");
    int64_t maxsplit = -1;
    if (mv) {
        if (mv->kind != TL_V_INT && mv->kind != TL_V_BOOL) {
            tl_error_set(err, TL_ERR_TYPE, "'%s' object cannot be interpreted as an integer",
                         tl_value_type_name(mv));
            return NULL;
        }
        maxsplit = mv->kind == TL_V_BOOL ? mv->u.b : mv->u.i;
    }
    const char *s = self->u.str.s, *sep = NULL;
    size_t n = self->u.str.len, m = 0;
    if (sv && sv->kind != TL_V_NONE) {
        if (sv->kind != TL_V_STR) {
            tl_error_set(err, TL_ERR_TYPE, "must be str or None, not %s", tl_value_type_name(sv));
            return NULL;
        }
        sep = sv->u.str.s;
        m = sv->u.str.len;
        if (m == 0) {
            tl_error_set(err, TL_ERR_VALUE, "empty separator");
            return NULL;
        }
    }
    tl_value *r = tl_list_new(0);
    size_t i = 0, pieces = 0;
    for (;;) {
        size_t start, end;
        if (!sep) {
            while (i < n && is_space(s[i]))
                i++;
            if (i >= n)
                break;
            start = i;
            if (maxsplit >= 0 && (int64_t)pieces >= maxsplit) {
                end = n; /* the rest, trailing whitespace kept (CPython) */
                i = n;
            } else {
                while (i < n && !is_space(s[i]))
                    i++;
                end = i;
            }
        } else {
            start = i;
            const char *hit = NULL;
            if (maxsplit < 0 || (int64_t)pieces < maxsplit)
                for (size_t k = i; k + m <= n; k++)
                    if (memcmp(s + k, sep, m) == 0) {
                        hit = s + k;
                        break;
                    }
            end = hit ? (size_t)(hit - s) : n;
            i = hit ? end + m : n + 1;
        }
        if (tl_pyops_charge_seq(1, err) < 0) {
            tl_value_release(r);
            return NULL;
        }
        tl_list_append(r, tl_strn(s + start, end - start));
        pieces++;
        if (i > n)
            break;
    }
    return r;
}

/* strip/lstrip/rstrip(chars=None); which: 1 left, 2 right, 3 both */
static tl_value *strip_any(tl_value *self, const tl_args *a, const char *fn, int which,
                           tl_error *err)
{
    if (nargs(a, fn, 0, 1, err) < 0)
        return NULL;
    const char *chars = NULL;
    size_t nc = 0;
    if (a->npos == 1 && a->pos[0]->kind != TL_V_NONE) {
        if (a->pos[0]->kind != TL_V_STR) {
            tl_error_set(err, TL_ERR_TYPE, "%s arg must be None or str", fn);
            return NULL;
        }
        chars = a->pos[0]->u.str.s;
        nc = a->pos[0]->u.str.len;
    }
    const char *s = self->u.str.s;
    size_t lo = 0, hi = self->u.str.len;
#define STRIPPED(c) (chars ? memchr(chars, (c), nc) != NULL : is_space(c))
    if (which & 1)
        while (lo < hi && STRIPPED(s[lo]))
            lo++;
    if (which & 2)
        while (hi > lo && STRIPPED(s[hi - 1]))
            hi--;
#undef STRIPPED
    return tl_strn(s + lo, hi - lo);
}

static tl_value *s_strip(tl_value *self, const tl_args *a, tl_error *err)
{
    return strip_any(self, a, "strip", 3, err);
}
static tl_value *s_lstrip(tl_value *self, const tl_args *a, tl_error *err)
{
    return strip_any(self, a, "lstrip", 1, err);
}
static tl_value *s_rstrip(tl_value *self, const tl_args *a, tl_error *err)
{
    return strip_any(self, a, "rstrip", 2, err);
}

static tl_value *change_case(tl_value *self, const tl_args *a, const char *fn, bool up,
                             tl_error *err)
{
    if (nargs(a, fn, 0, 0, err) < 0)
        return NULL;
    tl_value *r = tl_strn(self->u.str.s, self->u.str.len);
    for (size_t i = 0; i < r->u.str.len; i++) {
        char c = r->u.str.s[i];
        if (up && c >= 'a' && c <= 'z')
            r->u.str.s[i] = (char)(c - 'a' + 'A');
        else if (!up && c >= 'A' && c <= 'Z')
            r->u.str.s[i] = (char)(c - 'A' + 'a');
    }
    return r;
}

static tl_value *s_upper(tl_value *self, const tl_args *a, tl_error *err)
{
    return change_case(self, a, "upper", true, err);
}
static tl_value *s_lower(tl_value *self, const tl_args *a, tl_error *err)
{
    return change_case(self, a, "lower", false, err);
}

/* replace(old, new, count=-1); an empty old inserts new around every
 * character, as CPython does */
static tl_value *s_replace(tl_value *self, const tl_args *a, tl_error *err)
{
    if (nargs(a, "replace", 2, 3, err) < 0)
        return NULL;
    const char *o = NULL, *w = NULL;
    size_t no = 0, nw = 0;
    if (str_arg(a, 0, "replace", &o, &no, err) < 0 || str_arg(a, 1, "replace", &w, &nw, err) < 0)
        return NULL;
    int64_t count = -1;
    if (a->npos == 3) {
        if (a->pos[2]->kind != TL_V_INT) {
            tl_error_set(err, TL_ERR_TYPE, "'%s' object cannot be interpreted as an integer",
                         tl_value_type_name(a->pos[2]));
            return NULL;
        }
        count = a->pos[2]->u.i;
    }
    const char *s = self->u.str.s;
    size_t n = self->u.str.len;
    tl_buf b = {0};
    tl_buf_puts(&b, "");
    size_t max = (size_t)tl_pyops_max_seq();
    int64_t done = 0;
    for (size_t i = 0; i <= n;) {
        bool hit = (count < 0 || done < count) &&
                   (no == 0 || (i + no <= n && memcmp(s + i, o, no) == 0));
        if (hit) {
            tl_buf_append(&b, w, nw);
            done++;
            if (no) {
                i += no;
                continue;
            }
        }
        if (i < n)
            tl_buf_putc(&b, s[i]);
        i++;
        if (b.len > max) {
            tl_buf_free(&b);
            tl_error_set(err, TL_ERR_LIMIT, "string longer than the limit (%zu characters)", max);
            return NULL;
        }
    }
    return charged(&b, err);
}

/* startswith/endswith(prefix or tuple of prefixes) */
static tl_value *affix(tl_value *self, const tl_args *a, const char *fn, bool end,
                       tl_error *err)
{
    if (a->nkw)
        return tl_error_set(err, TL_ERR_TYPE, "str.%s() takes no keyword arguments", fn), NULL;
    if (a->npos == 0 || a->npos > 3) {
        tl_error_set(err, TL_ERR_TYPE, "%s() takes at %s argument%s (%zu given)", fn,
                     a->npos ? "most 3" : "least 1", a->npos ? "s" : "", a->npos);
        return NULL;
    }
    if (a->npos > 1) {
        tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab does not support %s()'s start and end", fn);
        return NULL;
    }
    const tl_value *p = a->pos[0];
    size_t k = 1;
    const tl_value *const *list = &p;
    if (p->kind == TL_V_TUPLE) {
        list = (const tl_value *const *)p->u.seq.items;
        k = p->u.seq.n;
    }
    for (size_t i = 0; i < k; i++) {
        const tl_value *x = list[i];
        if (x->kind != TL_V_STR) {
            tl_error_set(err, TL_ERR_TYPE,
                         p->kind == TL_V_TUPLE
                             ? "tuple for %s must only contain str, not %s"
                             : "%s first arg must be str or a tuple of str, not %s",
                         fn, tl_value_type_name(x));
            return NULL;
        }
        size_t n = self->u.str.len, m = x->u.str.len;
        if (m <= n && memcmp(self->u.str.s + (end ? n - m : 0), x->u.str.s, m) == 0)
            return tl_bool(true);
    }
    return tl_bool(false);
}

static tl_value *s_startswith(tl_value *self, const tl_args *a, tl_error *err)
{
    return affix(self, a, "startswith", false, err);
}
static tl_value *s_endswith(tl_value *self, const tl_args *a, tl_error *err)
{
    return affix(self, a, "endswith", true, err);
}

/* format(*args, **kwargs): "{}", "{0}", "{name}", "!r"/"!s", ":spec",
 * "{{" and "}}"; attribute and item access in a field are unsupported */
static tl_value *s_format(tl_value *self, const tl_args *a, tl_error *err)
{
    const char *s = self->u.str.s;
    size_t n = self->u.str.len, max = (size_t)tl_pyops_max_seq();
    tl_buf b = {0};
    tl_buf_puts(&b, "");
    int autonum = -1; /* -1: not decided, 1: automatic, 0: manual */
    size_t next = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '}') {
            if (i + 1 < n && s[i + 1] == '}') {
                tl_buf_putc(&b, '}');
                i++;
                continue;
            }
            tl_error_set(err, TL_ERR_VALUE, "Single '}' encountered in format string");
            goto fail;
        }
        if (c != '{') {
            tl_buf_putc(&b, c);
            continue;
        }
        if (i + 1 < n && s[i + 1] == '{') {
            tl_buf_putc(&b, '{');
            i++;
            continue;
        }
        /* the field up to its matching '}' (nested braces in the spec are
         * not supported) */
        size_t j = i + 1;
        while (j < n && s[j] != '}' && s[j] != '{')
            j++;
        if (j >= n || s[j] == '{') {
            if (j < n)
                tl_error_set(err, TL_ERR_UNSUPPORTED,
                             "tlab does not support nested fields in str.format");
            else
                tl_error_set(err, TL_ERR_VALUE, "expected '}' before end of string");
            goto fail;
        }
        const char *f = s + i + 1, *fend = s + j;
        const char *colon = memchr(f, ':', (size_t)(fend - f));
        const char *bang = memchr(f, '!', (size_t)((colon ? colon : fend) - f));
        const char *name_end = bang ? bang : colon ? colon : fend;
        size_t nlen = (size_t)(name_end - f);
        const tl_value *v = NULL;
        if (memchr(f, '.', nlen) || memchr(f, '[', nlen)) {
            tl_error_set(err, TL_ERR_UNSUPPORTED,
                         "tlab does not support attribute or index access in str.format fields");
            goto fail;
        }
        bool digits = nlen > 0;
        for (size_t k = 0; k < nlen; k++)
            digits = digits && f[k] >= '0' && f[k] <= '9';
        if (nlen == 0 || digits) {
            if (autonum == -1)
                autonum = nlen == 0;
            else if (autonum != (nlen == 0)) {
                tl_error_set(err, TL_ERR_VALUE,
                             autonum ? "cannot switch from automatic field numbering to manual "
                                       "field specification"
                                     : "cannot switch from manual field specification to "
                                       "automatic field numbering");
                goto fail;
            }
            size_t idx = nlen == 0 ? next++ : (size_t)strtoull(f, NULL, 10);
            if (nlen > 9 || idx >= a->npos) {
                tl_error_set(err, TL_ERR_INDEX,
                             "Replacement index %zu out of range for positional args tuple", idx);
                goto fail;
            }
            v = a->pos[idx];
        } else {
            for (size_t k = 0; k < a->nkw && !v; k++)
                if (strlen(a->kwnames[k]) == nlen && memcmp(a->kwnames[k], f, nlen) == 0)
                    v = a->kwvals[k];
            if (!v) {
                tl_error_set(err, TL_ERR_KEY, "'%.*s'", (int)nlen, f);
                goto fail;
            }
        }
        tl_value *shown = NULL;
        if (bang) {
            const char *conv = bang + 1;
            if (conv + 1 != (colon ? colon : fend) || (*conv != 'r' && *conv != 's' && *conv != 'a')) {
                tl_error_set(err, TL_ERR_VALUE,
                             conv == (colon ? colon : fend)
                                 ? "end of string while looking for conversion specifier"
                                 : "Unknown conversion specifier %c",
                             *conv);
                goto fail;
            }
            tl_buf t = {0};
            if (*conv == 's')
                tl_value_str(v, &t);
            else
                tl_value_repr(v, &t);
            shown = tl_strn(tl_buf_str(&t), t.len);
            tl_buf_free(&t);
        }
        const char *spec = colon ? colon + 1 : "";
        size_t slen = colon ? (size_t)(fend - colon - 1) : 0;
        int rc = tl_format_value(shown ? shown : v, spec, slen, max, &b, err);
        tl_value_release(shown);
        if (rc < 0)
            goto fail;
        if (b.len > max) {
            tl_error_set(err, TL_ERR_LIMIT, "string longer than the limit (%zu characters)", max);
            goto fail;
        }
        i = j;
    }
    return charged(&b, err);
fail:
    tl_buf_free(&b);
    return NULL;
}

static const struct {
    const char *name;
    tl_cfunc fn;
} methods[] = {
    {"join", s_join},       {"split", s_split},           {"strip", s_strip},
    {"lstrip", s_lstrip},   {"rstrip", s_rstrip},         {"upper", s_upper},
    {"lower", s_lower},     {"replace", s_replace},       {"startswith", s_startswith},
    {"endswith", s_endswith}, {"format", s_format},
};

tl_value *tl_strmethods_attr(tl_value *obj, const char *name)
{
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (strcmp(name, methods[i].name) == 0)
            return tl_value_func(methods[i].name, methods[i].fn, obj);
    return NULL;
}
