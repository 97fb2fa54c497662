/* bind.c - the binding registry and the argument helpers every binding uses.
 *
 * The registry is a static list of each op module's tables (bind.h), so
 * registration is a matter of listing a table. tl_bind_find answers from a
 * hash index of (kind, name) built once (pthread_once) over the registry in
 * its order, first entry winning as a linear search would; a slot keeps
 * the autograd wrapper (tl_bind_grad_wrap) from its first lookup on. Every attribute and
 * call of every op run looks a name up: linear, that was a fifth of a
 * `tlab check`.
 *
 * Argument helpers raise TypeErrors shaped like PyTorch's python_arg_parser:
 *   view() received an invalid combination of arguments - got (str), but
 *   expected one of:
 *    * (tuple of ints size)
 *    * (torch.dtype dtype)
 */
#include "bind.h"

#include <inttypes.h>
#include "platform.h"
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "util.h"

extern const tl_bind_table tl_bind_create_tables[];
extern const tl_bind_table tl_bind_ops_tables[];
extern const tl_bind_table tl_bind_view_tables[];
extern const tl_bind_table tl_bind_index_tables[];
extern const tl_bind_table tl_bind_serialize_tables[];
extern const tl_bind_table tl_bind_scan_tables[];
extern const tl_bind_table tl_bind_sparse_tables[]; /* sparse.h */
extern const tl_bind_table tl_bind_named_tables[];
extern const tl_bind_table tl_bind_scatter_tables[];
extern const tl_bind_table tl_bind_einsum_tables[];
/* bind_grad.c (declared here, not included: bind_grad.h includes bind.h) */
extern const tl_bind_table tl_bind_grad_tables[];
const tl_binding *tl_bind_grad_wrap(tl_bind_kind kind, const tl_binding *raw);

/* autograd's tables first: its `grad` attribute replaces create's */
static const tl_bind_table *const registry[] = {
    tl_bind_grad_tables,
    tl_bind_create_tables,
    tl_bind_ops_tables,
    tl_bind_view_tables,
    tl_bind_index_tables,
    tl_bind_serialize_tables,
    tl_bind_scan_tables,
    tl_bind_sparse_tables,
    tl_bind_named_tables,
    tl_bind_scatter_tables,
    tl_bind_einsum_tables,
};

/* ---- the index: open addressing, a power of two at most half full ----
 * Slots are 16-bit numbers of entries (a 2 KiB table instead of 32 KiB of
 * wide slots: fewer pages touched at start-up); an entry is a binding, its
 * kind and, from its first lookup on, its wrapper. */

typedef struct entry {
    const tl_binding *raw;
    tl_bind_kind kind;
    _Atomic(const tl_binding *) found; /* raw wrapped, on the first lookup */
} entry;

static entry *index_entries;
static uint16_t *index_slots; /* entry number + 1; 0: empty */
static size_t index_mask;
static pthread_once_t index_once = PTHREAD_ONCE_INIT;

static uint64_t hash(tl_bind_kind kind, const char *name)
{
    return tl_hash_bytes(name, strlen(name), (uint64_t)kind);
}

static void build_index(void)
{
    size_t n = 0;
    for (size_t r = 0; r < TL_ARRAY_LEN(registry); r++)
        for (const tl_bind_table *t = registry[r]; t->entries; t++)
            for (const tl_binding *b = t->entries; b->name; b++)
                n++;
    TL_ASSERT(n < UINT16_MAX);
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    index_slots = tl_xcalloc(cap, sizeof *index_slots);
    index_entries = tl_xcalloc(n ? n : 1, sizeof *index_entries);
    index_mask = cap - 1;
    size_t used = 0;
    for (size_t r = 0; r < TL_ARRAY_LEN(registry); r++)
        for (const tl_bind_table *t = registry[r]; t->entries; t++)
            for (const tl_binding *b = t->entries; b->name; b++) {
                size_t i = (size_t)hash(t->kind, b->name) & index_mask;
                while (index_slots[i]) {
                    const entry *e = &index_entries[index_slots[i] - 1];
                    if (e->kind == t->kind && !strcmp(e->raw->name, b->name))
                        break;
                    i = (i + 1) & index_mask;
                }
                if (index_slots[i])
                    continue; /* an earlier table has it: the first wins */
                index_entries[used].raw = b;
                index_entries[used].kind = t->kind;
                index_slots[i] = (uint16_t)++used;
            }
}

const tl_binding *tl_bind_find(tl_bind_kind kind, const char *name)
{
    pthread_once(&index_once, build_index);
    size_t i = (size_t)hash(kind, name) & index_mask;
    for (; index_slots[i]; i = (i + 1) & index_mask) {
        entry *e = &index_entries[index_slots[i] - 1];
        if (e->kind == kind && !strcmp(e->raw->name, name)) {
            const tl_binding *f = atomic_load_explicit(&e->found, memory_order_acquire);
            if (!f) { /* every thread computes the same wrapper */
                f = tl_bind_grad_wrap(kind, e->raw);
                atomic_store_explicit(&e->found, f, memory_order_release);
            }
            return f;
        }
    }
    return NULL;
}

const tl_binding *tl_bind_find_raw(tl_bind_kind kind, const char *name)
{
    for (size_t r = 0; r < TL_ARRAY_LEN(registry); r++) {
        for (const tl_bind_table *t = registry[r]; t->entries; t++) {
            if (t->kind != kind)
                continue;
            for (const tl_binding *b = t->entries; b->name; b++)
                if (strcmp(b->name, name) == 0)
                    return b;
        }
    }
    return NULL;
}

size_t tl_bind_names(tl_bind_kind kind, const char **out, size_t cap)
{
    size_t n = 0;
    for (size_t r = 0; r < TL_ARRAY_LEN(registry); r++) {
        for (const tl_bind_table *t = registry[r]; t->entries; t++) {
            if (t->kind != kind)
                continue;
            for (const tl_binding *b = t->entries; b->name; b++) {
                if (n < cap)
                    out[n] = b->name;
                n++;
            }
        }
    }
    return n;
}

/* ---- argument access ---- */

tl_value *tl_arg(const tl_args *a, size_t i, const char *kw)
{
    if (i < a->npos)
        return a->pos[i];
    if (kw) {
        for (size_t k = 0; k < a->nkw; k++)
            if (strcmp(a->kwnames[k], kw) == 0)
                return a->kwvals[k];
    }
    return NULL;
}

static void describe_value(const tl_value *v, tl_buf *b)
{
    if (v->kind == TL_V_TUPLE || v->kind == TL_V_LIST) {
        /* PyTorch: "tuple of (int, str)" when mixed, "tuple of ints" */
        tl_buf_puts(b, tl_value_type_name(v));
        if (v->u.seq.n == 0)
            return;
        bool same = true;
        for (size_t i = 1; i < v->u.seq.n; i++)
            if (v->u.seq.items[i]->kind != v->u.seq.items[0]->kind)
                same = false;
        if (same) {
            tl_buf_printf(b, " of %ss", tl_value_type_name(v->u.seq.items[0]));
        } else {
            tl_buf_puts(b, " of (");
            for (size_t i = 0; i < v->u.seq.n; i++) {
                if (i)
                    tl_buf_puts(b, ", ");
                tl_buf_puts(b, tl_value_type_name(v->u.seq.items[i]));
            }
            tl_buf_putc(b, ')');
        }
        return;
    }
    tl_buf_puts(b, tl_value_type_name(v));
}

void tl_args_describe(const tl_args *a, tl_buf *b)
{
    tl_buf_putc(b, '(');
    for (size_t i = 0; i < a->npos; i++) {
        if (i)
            tl_buf_puts(b, ", ");
        describe_value(a->pos[i], b);
    }
    for (size_t k = 0; k < a->nkw; k++) {
        if (k || a->npos)
            tl_buf_puts(b, ", ");
        tl_buf_printf(b, "%s=", a->kwnames[k]);
        describe_value(a->kwvals[k], b);
    }
    tl_buf_putc(b, ')');
}

int tl_args_type_error(const tl_args *a, const char *fname, const char *sig,
                       tl_error *err)
{
    tl_buf b = {0};
    tl_buf_printf(&b, "%s() received an invalid combination of arguments - got ",
                  fname);
    tl_args_describe(a, &b);
    tl_buf_puts(&b, ", but expected one of:");
    const char *p = sig ? sig : "()";
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        tl_buf_puts(&b, "\n * ");
        tl_buf_append(&b, p, n);
        p += n;
        if (*p == '\n')
            p++;
    }
    tl_error_set(err, TL_ERR_TYPE, "%s", tl_buf_str(&b));
    tl_buf_free(&b);
    return -1;
}

/* names= is taken by the functions that declare it (named.c sets them) */
static bool named_ok(const char *const *kwnames)
{
    for (size_t j = 0; kwnames && kwnames[j]; j++)
        if (strcmp(kwnames[j], "names") == 0)
            return true;
    return false;
}

int tl_args_check(const tl_args *a, const char *fname, size_t maxpos,
                  const char *const *kwnames, const char *sig, tl_error *err)
{
    if (a->npos > maxpos)
        return tl_args_type_error(a, fname, sig, err);
    /* A "*" entry in kwnames separates parameters that may also be given
     * positionally (listed in positional order) from keyword-only ones;
     * without it, all are treated as keyword-only for the duplicate check
     * (varargs signatures such as zeros(*size, dtype=...)). */
    size_t npositional = 0;
    for (size_t j = 0; kwnames && kwnames[j]; j++)
        if (strcmp(kwnames[j], "*") == 0)
            npositional = j;
    for (size_t k = 0; k < a->nkw; k++) {
        /* PyTorch features outside tlab's subset (SPEC 6): reported as
         * unsupported, never as a TypeError PyTorch would not raise, and
         * never silently dropped */
        if (a->kwvals[k]->kind != TL_V_NONE && strcmp(a->kwnames[k], "out") == 0)
            return tl_error_set(err, TL_ERR_UNSUPPORTED,
                                "tlab does not support out= (%s() writing into a given "
                                "tensor); assign the result instead", fname);
        /* names= where PyTorch declares it (named.c sets the names); a
         * names= no overload takes, or that is no tuple of names, fits no
         * overload (PyTorch's TypeError) */
        if (a->kwvals[k]->kind != TL_V_NONE && strcmp(a->kwnames[k], "names") == 0 &&
            (!named_ok(kwnames) || (a->kwvals[k]->kind != TL_V_TUPLE &&
                                    a->kwvals[k]->kind != TL_V_LIST)))
            return tl_args_type_error(a, fname, sig, err);
        bool known = false;
        size_t pos = 0;
        for (size_t j = 0; kwnames && kwnames[j]; j++) {
            if (strcmp(kwnames[j], a->kwnames[k]) == 0) {
                known = true;
                pos = j;
            }
        }
        if (!known)
            return tl_args_type_error(a, fname, sig, err);
        /* dtype=np.float32 (or an ndarray's .dtype): a NumPy type is no
         * torch.dtype, so no overload of a torch.dtype parameter takes it
         * and the parser lists them all (torch.zeros(2, dtype=np.float32)) */
        if (strcmp(a->kwnames[k], "dtype") == 0 && a->kwvals[k]->kind == TL_V_DTYPE &&
            a->kwvals[k]->npdt != TL_NPDT_TORCH && sig && strstr(sig, "torch.dtype dtype")) {
            if (strchr(sig, '\n')) /* several overloads: none matched */
                return tl_args_type_error(a, fname, sig, err);
            /* one overload: the parser names the argument */
            return tl_error_set(err, TL_ERR_TYPE,
                                "%s(): argument 'dtype' must be torch.dtype, not %s",
                                fname, tl_value_type_name(a->kwvals[k]));
        }
        if (pos < npositional && pos < a->npos)
            return tl_error_set(err, TL_ERR_TYPE,
                                "%s() got multiple values for argument '%s'",
                                fname, a->kwnames[k]);
        for (size_t k2 = 0; k2 < k; k2++)
            if (strcmp(a->kwnames[k2], a->kwnames[k]) == 0)
                return tl_error_set(err, TL_ERR_TYPE,
                                    "%s() got multiple values for argument "
                                    "'%s'",
                                    fname, a->kwnames[k]);
    }
    return 0;
}

/* ---- conversions ---- */

/* TypeError "WHAT must be WANT, not TYPE" (what NULL: "argument") */
static int wrong_type(const tl_value *v, const char *what, const char *want, tl_error *err)
{
    return tl_error_set(err, TL_ERR_TYPE, "%s must be %s, not %s", what ? what : "argument",
                        want, v ? tl_value_type_name(v) : "nothing");
}

int tl_to_int(const tl_value *v, const char *what, int64_t *out, tl_error *err)
{
    if (v && v->kind != TL_V_BOOL && tl_value_as_index(v, out))
        return 0;
    if (v && v->kind == TL_V_BOOL) {
        *out = v->u.b;
        return 0;
    }
    return wrong_type(v, what, "int", err);
}

int tl_to_bool(const tl_value *v, const char *what, bool *out, tl_error *err)
{
    if (v && v->kind == TL_V_BOOL) {
        *out = v->u.b;
        return 0;
    }
    if (v && v->kind == TL_V_INT) {
        *out = v->u.i != 0;
        return 0;
    }
    return wrong_type(v, what, "bool", err);
}

int tl_to_dtype(const tl_value *v, const char *what, tl_dtype *out,
                tl_error *err)
{
    if (v && v->kind == TL_V_DTYPE) {
        *out = v->u.dtype;
        return 0;
    }
    if (tl_value_python_dtype(v, out)) /* dtype=float / int / bool */
        return 0;
    return wrong_type(v, what, "torch.dtype", err);
}

int tl_to_tensor(const tl_value *v, const char *what, tl_tensor **out,
                 tl_error *err)
{
    if (v && v->kind == TL_V_TENSOR) {
        *out = v->u.tensor;
        return 0;
    }
    return wrong_type(v, what, "Tensor", err);
}

/* TypeError for item i of a shape that is not an int */
static int bad_element(const char *name, const tl_value *it, size_t i, tl_error *err)
{
    return tl_error_set(err, TL_ERR_TYPE,
                        "%s must be tuple of ints, but found element of type %s at pos %zu",
                        name, tl_value_type_name(it), i);
}

int tl_to_int_list(const tl_value *v, const char *what, bool allow_scalar,
                   int64_t *out, size_t cap, tl_error *err)
{
    if (v && allow_scalar && (v->kind == TL_V_INT || v->kind == TL_V_BOOL ||
                              v->kind == TL_V_TENSOR)) {
        if (cap < 1)
            return tl_error_set(err, TL_ERR_LIMIT, "too many values");
        if (tl_to_int(v, what, &out[0], err) < 0)
            return -1;
        return 1;
    }
    if (!v || !tl_value_is_seq(v))
        return wrong_type(v, what, "tuple of ints", err);
    if (v->u.seq.n > cap)
        return tl_error_set(err, TL_ERR_LIMIT,
                            "%s has %zu entries; tlab supports at most %zu",
                            what ? what : "argument", v->u.seq.n, cap);
    for (size_t i = 0; i < v->u.seq.n; i++) {
        const tl_value *it = v->u.seq.items[i];
        if (it->kind == TL_V_BOOL || !tl_value_as_index(it, &out[i]))
            return bad_element(what ? what : "argument", it, i, err);
    }
    return (int)v->u.seq.n;
}

/* an int that may open an int list: PyTorch's THPUtils_checkIndex (no bool) */
static bool opens_int_list(const tl_value *v)
{
    int64_t dummy;
    return v->kind != TL_V_BOOL && tl_value_as_index(v, &dummy);
}

/* Convert the n items of a list taken for parameter p. */
static int shape_items(tl_value *const *items, size_t n,
                       const tl_shape_param *p, int64_t *out, tl_error *err)
{
    if (n > TL_MAX_DIMS)
        return tl_error_set(err, TL_ERR_LIMIT,
                            "%s(): argument '%s' has %zu entries; tlab "
                            "supports at most %d",
                            p->fname, p->name, n, TL_MAX_DIMS);
    for (size_t i = 0; i < n; i++)
        if (!tl_value_as_index(items[i], &out[i]))
            return tl_error_set(err, TL_ERR_TYPE,
                                "%s(): argument '%s' must be tuple of %s, but "
                                "found element of type %s at pos %zu",
                                p->fname, p->name,
                                p->symint ? "SymInts" : "ints",
                                tl_value_type_name(items[i]), i + 1);
    return (int)n;
}

int tl_to_shape(const tl_args *a, const tl_shape_param *p, int64_t *out,
                tl_error *err)
{
    tl_value *v = tl_arg(a, p->pos, p->name);
    if (!v)
        return TL_SHAPE_ABSENT;
    bool keyword = a->npos <= p->pos;
    if (tl_value_is_seq(v) &&
        (v->u.seq.n == 0 || opens_int_list(v->u.seq.items[0]))) {
        if (!keyword && p->varargs && p->kwonly_follow &&
            a->npos > p->pos + 1) {
            if (p->sig)
                return tl_args_type_error(a, p->fname, p->sig, err);
            return tl_error_set(err, TL_ERR_TYPE,
                                "%s() takes %zu positional argument%s but "
                                "%zu were given",
                                p->fname, p->pos + 1, p->pos ? "s" : "",
                                a->npos);
        }
        return shape_items(v->u.seq.items, v->u.seq.n, p, out, err);
    }
    if (!keyword && p->varargs && opens_int_list(v))
        return shape_items(a->pos + p->pos, a->npos - p->pos, p, out, err);
    if (p->scalar && opens_int_list(v)) {
        tl_value_as_index(v, &out[0]);
        return 1;
    }
    if (p->sig)
        return tl_args_type_error(a, p->fname, p->sig, err);
    const char *want = p->symint ? "SymInts" : "ints";
    if (keyword)
        return tl_error_set(err, TL_ERR_TYPE,
                            "%s(): argument '%s' must be tuple of %s, not %s",
                            p->fname, p->name, want, tl_value_type_name(v));
    return tl_error_set(err, TL_ERR_TYPE,
                        "%s(): argument '%s' (position %zu) must be tuple of "
                        "%s, not %s",
                        p->fname, p->name, p->pos + 1, want,
                        tl_value_type_name(v));
}

tl_tensor *tl_bind_self_tensor(tl_value *self, const char *fname, tl_error *err)
{
    if (self && self->kind == TL_V_TENSOR)
        return self->u.tensor;
    tl_error_set(err, TL_ERR_TYPE,
                 "descriptor '%s' for 'torch._C._TensorBase' objects doesn't "
                 "apply to a '%s' object",
                 fname, self ? tl_value_type_name(self) : "NoneType");
    return NULL;
}

