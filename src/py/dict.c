/* dict.c - the methods of dict values and the dict() constructor.
 *
 * A dict (value.h TL_V_DICT) keeps key, value pairs in insertion order in
 * one item array, found by a linear scan with Python's == (tl_value_equal):
 * the dicts of a lab (a checkpoint, a state dict) hold a handful of keys.
 * Keys must be hashable (TypeError "unhashable type: 'list'"), as Python
 * requires. Every dict is in the cycle registry, as lists are, so
 * `d['self'] = d` is collected.
 *
 * Deviation: keys(), values() and items() return lists, not live views
 * (`list(d.keys())`, iteration, `len` and `in` behave as Python's; the
 * repr of the view itself, `dict_keys([...])`, is not printed).
 */
#include "dict.h"

#include <string.h>

#include "bind.h"
#include "pyops.h"
#include "util.h"

static int key_check(const tl_value *k, tl_error *err)
{
    if (!tl_value_hashable(k))
        return tl_error_set(err, TL_ERR_TYPE, "unhashable type: '%s'", tl_value_type_name(k));
    return 0;
}

static int no_kw(const tl_args *a, const char *name, size_t lo, size_t hi, tl_error *err)
{
    if (a->nkw)
        return tl_error_set(err, TL_ERR_TYPE, "%s() takes no keyword arguments", name);
    if (a->npos < lo || a->npos > hi) {
        if (lo == hi)
            return tl_error_set(err, TL_ERR_TYPE, "%s() takes exactly %zu argument%s (%zu given)",
                                name, lo, lo == 1 ? "" : "s", a->npos);
        return tl_error_set(err, TL_ERR_TYPE, "%s expected at most %zu arguments, got %zu", name,
                            hi, a->npos);
    }
    return 0;
}

static tl_value *d_keys(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_kw(a, "keys", 0, 0, err) < 0)
        return NULL;
    tl_value *l = tl_list_new(0);
    for (size_t i = 0; i < self->u.seq.n; i += 2)
        tl_list_append(l, tl_value_retain(self->u.seq.items[i]));
    return l;
}

static tl_value *d_values(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_kw(a, "values", 0, 0, err) < 0)
        return NULL;
    tl_value *l = tl_list_new(0);
    for (size_t i = 0; i < self->u.seq.n; i += 2)
        tl_list_append(l, tl_value_retain(self->u.seq.items[i + 1]));
    return l;
}

static tl_value *d_items(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_kw(a, "items", 0, 0, err) < 0)
        return NULL;
    if (tl_pyops_charge_seq(self->u.seq.n, err) < 0)
        return NULL;
    tl_value *l = tl_list_new(0);
    for (size_t i = 0; i < self->u.seq.n; i += 2) {
        tl_value *t = tl_tuple_new(2);
        tl_seq_set(t, 0, tl_value_retain(self->u.seq.items[i]));
        tl_seq_set(t, 1, tl_value_retain(self->u.seq.items[i + 1]));
        tl_list_append(l, t);
    }
    return l;
}

static tl_value *d_get(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_kw(a, "get", 1, 2, err) < 0 || key_check(a->pos[0], err) < 0)
        return NULL;
    tl_value *v = tl_dict_get(self, a->pos[0]);
    if (v)
        return tl_value_retain(v);
    return a->npos > 1 ? tl_value_retain(a->pos[1]) : tl_none();
}

static tl_value *d_pop(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_kw(a, "pop", 1, 2, err) < 0 || key_check(a->pos[0], err) < 0)
        return NULL;
    tl_value *v = tl_dict_get(self, a->pos[0]);
    if (!v) {
        if (a->npos > 1)
            return tl_value_retain(a->pos[1]);
        tl_buf b = {0};
        tl_value_repr_bounded(a->pos[0], &b, 200);
        tl_error_set(err, TL_ERR_KEY, "%s", tl_buf_str(&b));
        tl_buf_free(&b);
        return NULL;
    }
    tl_value_retain(v);
    tl_dict_del(self, a->pos[0]);
    return v;
}

static tl_value *d_setdefault(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_kw(a, "setdefault", 1, 2, err) < 0 || key_check(a->pos[0], err) < 0)
        return NULL;
    tl_value *v = tl_dict_get(self, a->pos[0]);
    if (v)
        return tl_value_retain(v);
    if (tl_pyops_charge_seq(2, err) < 0)
        return NULL;
    tl_value *d = a->npos > 1 ? a->pos[1] : tl_none();
    tl_dict_set(self, a->pos[0], tl_value_retain(d));
    return tl_value_retain(d);
}

/* the pairs of a mapping or an iterable of pairs into d */
static int merge(tl_value *d, tl_value *src, tl_error *err)
{
    if (src->kind == TL_V_DICT) {
        if (tl_pyops_charge_seq(src->u.seq.n, err) < 0)
            return -1;
        for (size_t i = 0; i < src->u.seq.n; i += 2)
            tl_dict_set(d, src->u.seq.items[i], tl_value_retain(src->u.seq.items[i + 1]));
        return 0;
    }
    tl_value **items;
    size_t n;
    if (tl_pyops_iterate(src, &items, &n, err) < 0)
        return -1;
    int rc = tl_pyops_charge_seq(2 * n, err);
    for (size_t i = 0; i < n && rc == 0; i++) {
        tl_value *p = items[i];
        if (!tl_value_is_seq(p) || p->u.seq.n != 2) {
            if (tl_value_is_seq(p))
                rc = tl_error_set(err, TL_ERR_VALUE,
                                  "dictionary update sequence element #%zu has length %zu; "
                                  "2 is required", i, p->u.seq.n);
            else
                rc = tl_error_set(err, TL_ERR_TYPE,
                                  "cannot convert dictionary update sequence element #%zu "
                                  "to a sequence", i);
            break;
        }
        if ((rc = key_check(p->u.seq.items[0], err)) < 0)
            break;
        tl_dict_set(d, p->u.seq.items[0], tl_value_retain(p->u.seq.items[1]));
    }
    tl_pyops_items_free(items, n);
    return rc;
}

static int merge_kw(tl_value *d, const tl_args *a, tl_error *err)
{
    if (a->nkw && tl_pyops_charge_seq(2 * a->nkw, err) < 0)
        return -1;
    for (size_t i = 0; i < a->nkw; i++) {
        tl_value *k = tl_str(a->kwnames[i]);
        tl_dict_set(d, k, tl_value_retain(a->kwvals[i]));
        tl_value_release(k);
    }
    return 0;
}

static tl_value *d_update(tl_value *self, const tl_args *a, tl_error *err)
{
    if (a->npos > 1) {
        tl_error_set(err, TL_ERR_TYPE, "update expected at most 1 argument, got %zu", a->npos);
        return NULL;
    }
    if ((a->npos && merge(self, a->pos[0], err) < 0) || merge_kw(self, a, err) < 0)
        return NULL;
    return tl_none();
}

static tl_value *d_copy(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_kw(a, "copy", 0, 0, err) < 0)
        return NULL;
    tl_value *d = tl_dict_new();
    if (merge(d, self, err) < 0) {
        tl_value_release(d);
        return NULL;
    }
    return d;
}

static tl_value *d_clear(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_kw(a, "clear", 0, 0, err) < 0)
        return NULL;
    while (self->u.seq.n) {
        tl_value *k = tl_value_retain(self->u.seq.items[self->u.seq.n - 2]);
        tl_dict_del(self, k);
        tl_value_release(k);
    }
    return tl_none();
}

tl_value *tl_pydict_attr(tl_value *d, const char *name, tl_error *err)
{
    static const struct {
        const char *name;
        tl_cfunc fn;
    } m[] = {{"keys", d_keys}, {"values", d_values}, {"items", d_items},
             {"get", d_get},   {"pop", d_pop},       {"setdefault", d_setdefault},
             {"update", d_update}, {"copy", d_copy}, {"clear", d_clear}};
    for (size_t i = 0; i < TL_ARRAY_LEN(m); i++)
        if (strcmp(m[i].name, name) == 0)
            return tl_value_func(m[i].name, m[i].fn, d);
    tl_error_set(err, TL_ERR_ATTRIBUTE, "'dict' object has no attribute '%s'", name);
    return NULL;
}

tl_value *tl_pydict_ctor(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    if (a->npos > 1) {
        tl_error_set(err, TL_ERR_TYPE, "dict expected at most 1 argument, got %zu", a->npos);
        return NULL;
    }
    tl_value *d = tl_dict_new();
    if ((a->npos && merge(d, a->pos[0], err) < 0) || merge_kw(d, a, err) < 0) {
        tl_value_release(d);
        return NULL;
    }
    return d;
}
