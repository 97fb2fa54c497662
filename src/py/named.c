/* named.c - named tensors, as PyTorch 2.x (and 1.13, the same here) has them.
 *
 * Names are kept on the tensor header as ndim NUL-terminated strings back
 * to back ("" for an unnamed dim); a header with no name at all keeps
 * NULL, as PyTorch drops an all-None names list (has_names() is False).
 * Every name is checked when set: an identifier, no duplicates, one per
 * dim; the error texts are c10/core/Dimname.cpp's and
 * aten/src/ATen/NamedTensorUtils.cpp's.
 *
 * Other ops meet names in a few places only: tl_named_call, which the
 * interpreter's method calls go through (value.c's call hook, installed by
 * each new interpreter) and attribute reads (builtins.c), tl_named_binary
 * after Python's operators and tl_named_getitem after subscripts
 * (pyops.c); repr.c prints the names= suffix from the header. Both do nothing unless a
 * named tensor takes part, so unnamed programs pay one test per call.
 * The op table below says, per method, what PyTorch does with names:
 * keep them, unify them (binary ops), drop reduced dims, swap them
 * (transpose), or refuse the op ("aten::view is not yet supported with
 * named tensors ..."). Methods not in the table run on the tensor and
 * give an unnamed result.
 *
 * align_to is a permute view: the same storage and offset, the input's
 * strides in the new order and, for a name the input lacks, a size-1 dim
 * of stride 0 (PyTorch's align_to inserts those the same way).
 */
#include "named.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pywarn.h"
#include "util.h"
#include "view.h"

/* torch 1.13.1's text (Debian's build names its source path so) */
#define NAMED_WARNING                                                          \
    "Named tensors and all their associated APIs are an experimental "       \
    "feature and subject to change. Please do not use them for anything "   \
    "important until they are released as stable. (Triggered internally "  \
    "at  ./c10/core/TensorImpl.h:1758.)"

/* PyTorch warns once (TORCH_WARN_ONCE), when a tensor first gets names */
static _Thread_local unsigned warned_run;

static void warn_once(void)
{
    if (warned_run == tl_pywarn_run())
        return;
    warned_run = tl_pywarn_run();
    tl_pywarn_emit("UserWarning", NAMED_WARNING);
}

/* ---- the packed names ---- */

bool tl_named_has(const tl_tensor *t)
{
    return t && t->names != NULL;
}

const char *tl_named_get(const tl_tensor *t, int d)
{
    if (!t || !t->names || d < 0 || d >= t->ndim)
        return NULL;
    const char *p = t->names;
    for (int i = 0; i < d; i++)
        p += strlen(p) + 1;
    return *p ? p : NULL;
}

/* names[0..n) as "['N', None]" */
static void list_str(tl_buf *b, int n, const char *const *names)
{
    tl_buf_putc(b, '[');
    for (int i = 0; i < n; i++) {
        if (i)
            tl_buf_puts(b, ", ");
        if (names[i])
            tl_buf_printf(b, "'%s'", names[i]);
        else
            tl_buf_puts(b, "None");
    }
    tl_buf_putc(b, ']');
}

static void tensor_str(tl_buf *b, const tl_tensor *t)
{
    const char *names[TL_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++)
        names[d] = tl_named_get(t, d);
    tl_buf_puts(b, "Tensor");
    list_str(b, t->ndim, names);
}

static bool valid_identifier(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9'))
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

static int invalid_name(const char *s, tl_error *err)
{
    /* the name is quoted back only when it prints plainly */
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "Invalid name: a valid identifier contains only "
                                "digits, alphabetical characters, and/or underscore "
                                "and starts with a non-digit.");
    return tl_error_set(err, TL_ERR_RUNTIME,
                        "Invalid name: a valid identifier contains only digits, "
                        "alphabetical characters, and/or underscore and starts "
                        "with a non-digit. got: '%s'.",
                        s);
}

/* Set names[0..n) (NULL: unnamed) on t: counted, checked, packed. */
static int set_names(tl_tensor *t, int n, const char *const *names, tl_error *err)
{
    if (n != t->ndim) {
        tl_buf b = {0};
        list_str(&b, n, names);
        tl_error_set(err, TL_ERR_RUNTIME,
                     "Number of names (%d) and number of dimensions in tensor (%d) "
                     "do not match. Attempted to create a tensor with names %s",
                     n, t->ndim, tl_buf_str(&b));
        tl_buf_free(&b);
        return -1;
    }
    bool any = false;
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        if (!names[i]) {
            len++;
            continue;
        }
        any = true;
        len += strlen(names[i]) + 1;
        for (int j = 0; j < i; j++) {
            if (names[j] && strcmp(names[j], names[i]) == 0) {
                tl_buf b = {0};
                list_str(&b, n, names);
                tl_error_set(err, TL_ERR_RUNTIME,
                             "Cannot construct a tensor with duplicate names. Got "
                             "names: %s.",
                             tl_buf_str(&b));
                tl_buf_free(&b);
                return -1;
            }
        }
    }
    char *packed = NULL;
    if (any) {
        packed = tl_xmalloc(len);
        char *p = packed;
        for (int i = 0; i < n; i++) {
            size_t k = names[i] ? strlen(names[i]) : 0;
            if (k)
                memcpy(p, names[i], k);
            p[k] = '\0';
            p += k + 1;
        }
        warn_once();
    }
    free(t->names);
    t->names = packed;
    return 0;
}

/* One name argument: str (an identifier) or None. */
static int name_of(const tl_value *v, const char **out, tl_error *err)
{
    if (v->kind == TL_V_NONE) {
        *out = NULL;
        return 0;
    }
    if (v->kind != TL_V_STR)
        return tl_error_set(err, TL_ERR_TYPE,
                            "expected None or string for Dimname but got %s",
                            tl_value_type_name(v));
    if (strlen(v->u.str.s) != v->u.str.len || !valid_identifier(v->u.str.s))
        return invalid_name(v->u.str.s, err);
    *out = v->u.str.s;
    return 0;
}

int tl_named_set_value(tl_tensor *t, const tl_value *v, tl_error *err)
{
    if (v->kind == TL_V_NONE)
        return set_names(t, t->ndim, (const char *const[TL_MAX_DIMS]){0}, err);
    if (v->kind != TL_V_TUPLE && v->kind != TL_V_LIST)
        return tl_error_set(err, TL_ERR_TYPE,
                            "names must be a tuple of names (str or None), not %s",
                            tl_value_type_name(v));
    if (v->u.seq.n > TL_MAX_DIMS)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "Number of names (%zu) and number of dimensions in "
                            "tensor (%d) do not match.",
                            v->u.seq.n, t->ndim);
    const char *names[TL_MAX_DIMS];
    for (size_t i = 0; i < v->u.seq.n; i++)
        if (name_of(v->u.seq.items[i], &names[i], err) < 0)
            return -1;
    return set_names(t, (int)v->u.seq.n, names, err);
}

/* ---- dims by name ---- */

static int dim_of_name(const tl_tensor *t, const char *name, int64_t *out, tl_error *err)
{
    for (int d = 0; d < t->ndim; d++) {
        const char *n = tl_named_get(t, d);
        if (n && strcmp(n, name) == 0) {
            *out = d;
            return 0;
        }
    }
    tl_buf b = {0};
    tensor_str(&b, t);
    tl_error_set(err, TL_ERR_RUNTIME, "Name '%s' not found in %s.", name, tl_buf_str(&b));
    tl_buf_free(&b);
    return -1;
}

/* v with every str (or str in a tuple/list) replaced by its dim; a new
 * reference, or NULL with err set. */
static tl_value *dims_of(const tl_tensor *t, tl_value *v, tl_error *err)
{
    if (v->kind == TL_V_STR) {
        int64_t d;
        if (dim_of_name(t, v->u.str.s, &d, err) < 0)
            return NULL;
        return tl_int(d);
    }
    if (v->kind == TL_V_TUPLE || v->kind == TL_V_LIST) {
        bool any = false;
        for (size_t i = 0; i < v->u.seq.n; i++)
            any |= v->u.seq.items[i]->kind == TL_V_STR;
        if (!any)
            return tl_value_retain(v);
        tl_value *r = tl_tuple_new(v->u.seq.n);
        for (size_t i = 0; i < v->u.seq.n; i++) {
            tl_value *d = dims_of(t, v->u.seq.items[i], err);
            if (!d) {
                tl_value_release(r);
                return NULL;
            }
            tl_seq_set(r, i, d);
        }
        return r;
    }
    return tl_value_retain(v);
}

/* ---- what PyTorch does with names, per method ---- */

typedef enum rule {
    R_KEEP,     /* same names as self (elementwise, conversions, copies) */
    R_UNIFY,    /* binary elementwise: self's and other's, from the right */
    R_REDUCE,   /* dim / keepdim reductions: reduced dims lose their name */
    R_TRANSPOSE,/* transpose(d0, d1): swap */
    R_REVERSE,  /* t(): reversed */
    R_MT,       /* mT: the last two swapped */
    R_SELECT,   /* select(dim, i): that dim goes */
    R_SQUEEZE,  /* squeeze(): size-1 dims go */
    R_DIMS,     /* size/stride/...: names as dims, result not a tensor */
    R_MATMUL,   /* matmul: tl_named_matmul's rule */
    R_UNBIND,   /* unbind(dim): R_SELECT on every item of the tuple */
    R_REFUSE    /* "aten::OP is not yet supported with named tensors" */
} rule;

/* op_rule.flags */
#define F_NYI 1u /* a dim name is PyTorch's "does not yet support" error */

typedef struct op_rule {
    const char *name;
    rule how;
    const char *aten;    /* R_REFUSE: PyTorch's op name in the message */
    int ndims;           /* leading positional args that may be names */
    unsigned flags;      /* F_NYI */
    const char *dimtype; /* a name for dim is a TypeError: "must be TYPE" */
    int dimpos;          /* ... naming dim as argument DIMPOS (from 1) */
} op_rule;

static const op_rule rules[] = {
    {"abs", R_KEEP, NULL, 0, 0, NULL, 0}, {"neg", R_KEEP, NULL, 0, 0, NULL, 0},
    {"exp", R_KEEP, NULL, 0, 0, NULL, 0}, {"log", R_KEEP, NULL, 0, 0, NULL, 0},
    {"sqrt", R_KEEP, NULL, 0, 0, NULL, 0}, {"sin", R_KEEP, NULL, 0, 0, NULL, 0},
    {"cos", R_KEEP, NULL, 0, 0, NULL, 0}, {"tanh", R_KEEP, NULL, 0, 0, NULL, 0},
    {"sigmoid", R_KEEP, NULL, 0, 0, NULL, 0}, {"relu", R_KEEP, NULL, 0, 0, NULL, 0},
    {"floor", R_KEEP, NULL, 0, 0, NULL, 0}, {"ceil", R_KEEP, NULL, 0, 0, NULL, 0},
    {"round", R_KEEP, NULL, 0, 0, NULL, 0}, {"clamp", R_KEEP, NULL, 0, 0, NULL, 0},
    {"clone", R_KEEP, NULL, 0, 0, NULL, 0}, {"contiguous", R_KEEP, NULL, 0, 0, NULL, 0},
    {"detach", R_KEEP, NULL, 0, 0, NULL, 0}, {"float", R_KEEP, NULL, 0, 0, NULL, 0},
    {"double", R_KEEP, NULL, 0, 0, NULL, 0}, {"half", R_KEEP, NULL, 0, 0, NULL, 0},
    {"int", R_KEEP, NULL, 0, 0, NULL, 0}, {"long", R_KEEP, NULL, 0, 0, NULL, 0},
    {"bool", R_KEEP, NULL, 0, 0, NULL, 0}, {"to", R_KEEP, NULL, 0, 0, NULL, 0},
    {"type", R_KEEP, NULL, 0, 0, NULL, 0}, {"cpu", R_KEEP, NULL, 0, 0, NULL, 0},
    {"cuda", R_KEEP, NULL, 0, 0, NULL, 0}, {"zero_", R_KEEP, NULL, 0, 0, NULL, 0},
    {"fill_", R_KEEP, NULL, 0, 0, NULL, 0}, {"softmax", R_KEEP, NULL, 1, 0, NULL, 0},
    {"log_softmax", R_KEEP, NULL, 1, 0, NULL, 0}, {"cumsum", R_KEEP, NULL, 1, 0, NULL, 0},
    {"cumprod", R_KEEP, NULL, 1, 0, NULL, 0}, {"narrow", R_KEEP, NULL, 0, 0, NULL, 0},
    {"expand", R_KEEP, NULL, 0, 0, NULL, 0}, {"add", R_UNIFY, NULL, 0, 0, NULL, 0},
    {"sub", R_UNIFY, NULL, 0, 0, NULL, 0}, {"mul", R_UNIFY, NULL, 0, 0, NULL, 0},
    {"div", R_UNIFY, NULL, 0, 0, NULL, 0}, {"pow", R_UNIFY, NULL, 0, 0, NULL, 0},
    {"maximum", R_UNIFY, NULL, 0, 0, NULL, 0}, {"minimum", R_UNIFY, NULL, 0, 0, NULL, 0},
    {"eq", R_UNIFY, NULL, 0, 0, NULL, 0}, {"ne", R_UNIFY, NULL, 0, 0, NULL, 0},
    {"lt", R_UNIFY, NULL, 0, 0, NULL, 0}, {"le", R_UNIFY, NULL, 0, 0, NULL, 0},
    {"gt", R_UNIFY, NULL, 0, 0, NULL, 0}, {"ge", R_UNIFY, NULL, 0, 0, NULL, 0},
    {"add_", R_KEEP, NULL, 0, 0, NULL, 0}, {"sub_", R_KEEP, NULL, 0, 0, NULL, 0},
    {"mul_", R_KEEP, NULL, 0, 0, NULL, 0}, {"div_", R_KEEP, NULL, 0, 0, NULL, 0},
    {"sum", R_REDUCE, NULL, 1, 0, NULL, 0}, {"mean", R_REDUCE, NULL, 1, 0, NULL, 0},
    {"prod", R_REDUCE, NULL, 1, 0, NULL, 0}, {"std", R_REDUCE, NULL, 1, 0, NULL, 0},
    {"var", R_REDUCE, NULL, 1, 0, NULL, 0}, {"max", R_REDUCE, NULL, 1, 0, NULL, 0},
    {"min", R_REDUCE, NULL, 1, 0, NULL, 0}, {"median", R_REDUCE, NULL, 1, 0, NULL, 0},
    {"logsumexp", R_REDUCE, NULL, 1, 0, NULL, 0}, {"all", R_REDUCE, NULL, 1, F_NYI, NULL, 0},
    {"any", R_REDUCE, NULL, 1, F_NYI, NULL, 0}, {"sort", R_REFUSE, "sort", 1, F_NYI, NULL, 0},
    {"index_select", R_REFUSE, "index_select", 1, F_NYI, NULL, 0}, {"argmax", R_REFUSE, "argmax", 0, 0, "int", 1},
    {"argmin", R_REFUSE, "argmin", 0, 0, "int", 1},
    {"amax", R_REFUSE, "amax", 0, 0, "tuple of ints", 1},
    {"amin", R_REFUSE, "amin", 0, 0, "tuple of ints", 1}, {"topk", R_REFUSE, "topk", 0, 0, "int", 2},
    {"matmul", R_MATMUL, NULL, 0, 0, NULL, 0}, {"unbind", R_UNBIND, NULL, 1, 0, NULL, 0},
    {"transpose", R_TRANSPOSE, NULL, 2, 0, NULL, 0}, {"t", R_REVERSE, NULL, 0, 0, NULL, 0},
    {"mT", R_MT, NULL, 0, 0, NULL, 0}, {"T", R_REFUSE, "permute", 0, 0, NULL, 0},
    {"select", R_SELECT, NULL, 1, 0, NULL, 0}, {"squeeze", R_SQUEEZE, NULL, 1, 0, NULL, 0},
    {"size", R_DIMS, NULL, 1, 0, NULL, 0}, {"stride", R_DIMS, NULL, 1, 0, NULL, 0},
    {"view", R_REFUSE, "view", 0, 0, NULL, 0}, {"view_as", R_REFUSE, "view", 0, 0, NULL, 0},
    {"reshape", R_REFUSE, "_reshape_alias", 0, 0, NULL, 0},
    {"flatten", R_REFUSE, "_reshape_alias", 0, 0, NULL, 0},
    {"permute", R_REFUSE, "permute", 0, 0, NULL, 0},
    {"unsqueeze", R_REFUSE, "unsqueeze", 0, 0, NULL, 0},
    {"movedim", R_REFUSE, "movedim", 0, 0, NULL, 0},
    {"as_strided", R_REFUSE, "as_strided", 0, 0, NULL, 0},
    {"unfold", R_REFUSE, "unfold", 0, 0, NULL, 0},
    {"diagonal", R_REFUSE, "diagonal", 0, 0, NULL, 0},
    {"masked_fill", R_KEEP, NULL, 0, 0, NULL, 0}, {"masked_fill_", R_KEEP, NULL, 0, 0, NULL, 0},
    {"copy_", R_KEEP, NULL, 0, 0, NULL, 0}, {"sign", R_KEEP, NULL, 0, 0, NULL, 0},
    {"square", R_KEEP, NULL, 0, 0, NULL, 0}, {"reciprocal", R_KEEP, NULL, 0, 0, NULL, 0},
    {"abs_", R_KEEP, NULL, 0, 0, NULL, 0}, {"neg_", R_KEEP, NULL, 0, 0, NULL, 0},
    {"clamp_", R_KEEP, NULL, 0, 0, NULL, 0}, {"pow_", R_KEEP, NULL, 0, 0, NULL, 0},
};

static const op_rule *rule_of(const char *name)
{
    for (size_t i = 0; i < TL_ARRAY_LEN(rules); i++)
        if (strcmp(rules[i].name, name) == 0)
            return &rules[i];
    return NULL;
}

static bool named_value(const tl_value *v)
{
    return v && v->kind == TL_V_TENSOR && tl_named_has(v->u.tensor);
}

static tl_tensor *result_tensor(tl_value *r)
{
    return r && r->kind == TL_V_TENSOR ? r->u.tensor : NULL;
}

/* Unify the name lists an (na) and bn (nb) from the right into out
 * (max(na, nb) entries), PyTorch's broadcast error otherwise. */
static int unify_lists(int na, const char *const *an, int nb, const char *const *bn,
                       const char **out, int *nout, tl_error *err)
{
    int n = na > nb ? na : nb;
    for (int i = 0; i < n; i++) {
        int da = na - n + i, db = nb - n + i;
        const char *x = da >= 0 ? an[da] : NULL;
        const char *y = db >= 0 ? bn[db] : NULL;
        if (x && y && strcmp(x, y) != 0) {
            tl_buf s = {0}, t = {0};
            list_str(&s, na, an);
            list_str(&t, nb, bn);
            tl_error_set(err, TL_ERR_RUNTIME,
                         "Error when attempting to broadcast dims %s and dims %s: "
                         "dim '%s' and dim '%s' are at the same position from the "
                         "right but do not match.",
                         tl_buf_str(&s), tl_buf_str(&t), x, y);
            tl_buf_free(&s);
            tl_buf_free(&t);
            return -1;
        }
        out[i] = x ? x : y;
    }
    *nout = n;
    return 0;
}

static void names_of(const tl_tensor *t, const char **out)
{
    for (int d = 0; d < t->ndim; d++)
        out[d] = tl_named_get(t, d);
}

/* Unify names of tensors a and b from the right into out. */
static int unify(const tl_tensor *a, const tl_tensor *b, const char **out, int *nout,
                 tl_error *err)
{
    const char *an[TL_MAX_DIMS], *bn[TL_MAX_DIMS];
    names_of(a, an);
    names_of(b, bn);
    return unify_lists(a->ndim, an, b->ndim, bn, out, nout, err);
}

/* Put names[0..n) on r's tensor when its rank fits; r is stolen. A
 * tensor returned unchanged (x.contiguous() of a contiguous x) already
 * has them. */
static tl_value *put_names(tl_value *r, int n, const char *const *names, tl_error *err)
{
    tl_tensor *t = result_tensor(r);
    if (!t || t->ndim != n)
        return r;
    const char *copy[TL_MAX_DIMS];
    char *keep = t->names; /* names may point into it */
    t->names = NULL;
    for (int i = 0; i < n; i++)
        copy[i] = names[i];
    int rc = set_names(t, n, copy, err);
    free(keep);
    if (rc < 0) {
        tl_value_release(r);
        return NULL;
    }
    return r;
}

/* put_names with copies of names (they may point into operands that r
 * shares a header with) */
static tl_value *put_names_copied(tl_value *r, int n, const char *const *names,
                                  tl_error *err)
{
    char *snap[TL_MAX_DIMS] = {NULL};
    for (int d = 0; d < n; d++)
        snap[d] = names[d] ? tl_xstrdup(names[d]) : NULL;
    tl_value *out = put_names(r, n, (const char *const *)snap, err);
    for (int d = 0; d < n; d++)
        free(snap[d]);
    return out;
}

tl_value *tl_named_binary(tl_value *r, const tl_value *a, const tl_value *b, tl_error *err)
{
    if (!r || (!named_value(a) && !named_value(b)))
        return r;
    const tl_tensor *ta = a->kind == TL_V_TENSOR ? a->u.tensor : NULL;
    const tl_tensor *tb = b->kind == TL_V_TENSOR ? b->u.tensor : NULL;
    const char *names[TL_MAX_DIMS];
    int n;
    if (ta && tb) {
        if (unify(ta, tb, names, &n, err) < 0) {
            tl_value_release(r);
            return NULL;
        }
    } else {
        const tl_tensor *t = ta ? ta : tb;
        n = t->ndim;
        for (int d = 0; d < n; d++)
            names[d] = tl_named_get(t, d);
    }
    /* the names are read from the operands, which r does not alias */
    return put_names_copied(r, n, names, err);
}

/* PyTorch's compute_matmul_outnames: the batch dims (all but the last two;
 * none of a vector) unified from the right, then self's second-to-last
 * name (self not a vector) and other's last (other not a vector); the
 * contracted dims' names are not compared. */
static int matmul_names(const tl_tensor *ta, const tl_tensor *tb, const char **out, int *nout,
                        tl_error *err)
{
    const char *an[TL_MAX_DIMS], *bn[TL_MAX_DIMS];
    names_of(ta, an);
    names_of(tb, bn);
    int ba = ta->ndim <= 1 ? 0 : ta->ndim - 2, bb = tb->ndim <= 1 ? 0 : tb->ndim - 2;
    int n = ba > bb ? ba : bb;
    for (int i = 0; i < n; i++) {
        int da = ba - n + i, db = bb - n + i;
        const char *x = da >= 0 ? an[da] : NULL, *y = db >= 0 ? bn[db] : NULL;
        if (x && y && strcmp(x, y) != 0) {
            tl_buf s = {0}, t = {0};
            list_str(&s, ta->ndim, an);
            list_str(&t, tb->ndim, bn);
            tl_error_set(err, TL_ERR_RUNTIME,
                         "matmul: Expected '%s' (index %d of %s) to match '%s' (index %d of %s) "
                         "but they do not match.",
                         x, da, tl_buf_str(&s), y, db, tl_buf_str(&t));
            tl_buf_free(&s);
            tl_buf_free(&t);
            return -1;
        }
        out[i] = x ? x : y;
    }
    if (ta->ndim >= 2)
        out[n++] = an[ta->ndim - 2];
    if (tb->ndim >= 2)
        out[n++] = bn[tb->ndim - 1];
    *nout = n;
    return 0;
}

int tl_named_matmul_check(const tl_value *a, const tl_value *b, tl_error *err)
{
    if ((!named_value(a) && !named_value(b)) || a->kind != TL_V_TENSOR ||
        b->kind != TL_V_TENSOR)
        return 0;
    const char *out[TL_MAX_DIMS + 2];
    int n;
    return matmul_names(a->u.tensor, b->u.tensor, out, &n, err);
}

tl_value *tl_named_matmul(tl_value *r, const tl_value *a, const tl_value *b, tl_error *err)
{
    if (!r || (!named_value(a) && !named_value(b)) || a->kind != TL_V_TENSOR ||
        b->kind != TL_V_TENSOR)
        return r;
    const char *out[TL_MAX_DIMS + 2];
    int n;
    if (matmul_names(a->u.tensor, b->u.tensor, out, &n, err) < 0) {
        tl_value_release(r);
        return NULL;
    }
    return put_names_copied(r, n, out, err);
}

/* PyTorch's refusal of op `aten` on named tensors */
static void refuse(const char *aten, tl_error *err)
{
    tl_error_set(err, TL_ERR_RUNTIME,
                 "aten::%s is not yet supported with named tensors. Please drop "
                 "names via `tensor = tensor.rename(None)`, call the op with an "
                 "unnamed tensor, and set names on the result of the operation.",
                 aten);
}

tl_value *tl_named_getitem(tl_value *r, const tl_value *obj, const tl_value *idx,
                           tl_error *err)
{
    if (!r || !named_value(obj))
        return r;
    const tl_tensor *t = obj->u.tensor;
    size_t n = 1;
    tl_value *const *items = (tl_value *const *)&idx;
    if (idx->kind == TL_V_TUPLE) {
        n = idx->u.seq.n;
        items = idx->u.seq.items;
    }
    /* ints drop a dim, slices keep it, one Ellipsis covers the rest;
     * anything else (None, tensors, lists) gives an unnamed result */
    size_t given = 0;
    for (size_t i = 0; i < n; i++) {
        tl_vkind k = items[i]->kind;
        if (k == TL_V_INT || k == TL_V_SLICE) {
            given++;
        } else if (k != TL_V_ELLIPSIS) {
            tl_value_release(r);
            refuse(k == TL_V_NONE ? "unsqueeze" : "index.Tensor", err);
            return NULL;
        }
    }
    const char *names[TL_MAX_DIMS];
    int nout = 0, d = 0;
    for (size_t i = 0; i < n && d <= t->ndim; i++) {
        tl_vkind k = items[i]->kind;
        if (k == TL_V_ELLIPSIS) {
            for (int64_t j = 0; j < (int64_t)t->ndim - (int64_t)given && d < t->ndim; j++)
                names[nout++] = tl_named_get(t, d++);
        } else if (k == TL_V_SLICE) {
            names[nout++] = tl_named_get(t, d++);
        } else {
            d++;
        }
    }
    while (d < t->ndim)
        names[nout++] = tl_named_get(t, d++);
    char *snap[TL_MAX_DIMS] = {NULL};
    for (int i = 0; i < nout; i++)
        snap[i] = names[i] ? tl_xstrdup(names[i]) : NULL;
    tl_value *out = put_names(r, nout, (const char *const *)snap, err);
    for (int i = 0; i < nout; i++)
        free(snap[i]);
    return out;
}

/* ---- the named overloads of flatten, unflatten and cat ---- */

static bool str_seq(const tl_value *v)
{
    if (!v || (v->kind != TL_V_TUPLE && v->kind != TL_V_LIST) || v->u.seq.n == 0)
        return false;
    for (size_t i = 0; i < v->u.seq.n; i++)
        if (v->u.seq.items[i]->kind != TL_V_STR)
            return false;
    return true;
}

/* flatten(dims: names, out_dim), flatten(start, end, out_dim) */
static bool named_flatten_form(const tl_args *a)
{
    tl_value *o = tl_arg(a, a->npos >= 3 ? 2 : 1, "out_dim");
    return o && o->kind == TL_V_STR;
}

static tl_value *named_flatten(tl_cfunc fn, tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = self->u.tensor;
    int64_t lo, hi;
    const char *outname;
    tl_value *dims = tl_arg(a, 0, "dims");
    if (a->npos >= 3 || !str_seq(dims)) {
        tl_value *s0 = tl_arg(a, 0, "start_dim"), *s1 = tl_arg(a, 1, "end_dim");
        tl_value *o = tl_arg(a, 2, "out_dim");
        if (!s0 || !s1 || !o || o->kind != TL_V_STR)
            return tl_error_set(err, TL_ERR_TYPE, "flatten(): expected (int start_dim, int "
                                                  "end_dim, name out_dim)"), NULL;
        tl_value *d0 = dims_of(t, s0, err), *d1 = d0 ? dims_of(t, s1, err) : NULL;
        bool ok = d0 && d1 && d0->kind == TL_V_INT && d1->kind == TL_V_INT;
        lo = ok ? d0->u.i : 0;
        hi = ok ? d1->u.i : 0;
        tl_value_release(d0);
        tl_value_release(d1);
        if (!ok)
            return err->kind ? NULL : (tl_error_set(err, TL_ERR_TYPE, "flatten(): dims must be "
                                                                      "ints or names"), NULL);
        outname = o->u.str.s;
        if (lo < 0)
            lo += t->ndim;
        if (hi < 0)
            hi += t->ndim;
    } else {
        tl_value *o = tl_arg(a, 1, "out_dim");
        outname = o->u.str.s;
        int64_t prev = -1;
        lo = hi = -1;
        for (size_t i = 0; i < dims->u.seq.n; i++) {
            int64_t d;
            if (dim_of_name(t, dims->u.seq.items[i]->u.str.s, &d, err) < 0)
                return NULL;
            if (i > 0 && d != prev + 1) {
                const char *dn[TL_MAX_DIMS];
                int nd = 0;
                for (size_t j = 0; j < dims->u.seq.n && nd < TL_MAX_DIMS; j++)
                    dn[nd++] = dims->u.seq.items[j]->u.str.s;
                tl_buf b = {0}, l = {0};
                tensor_str(&b, t);
                list_str(&l, nd, dn);
                tl_error_set(err, TL_ERR_RUNTIME,
                             "flatten(tensor, dims, out_dim): dims %s must be consecutive in %s",
                             tl_buf_str(&l), tl_buf_str(&b));
                tl_buf_free(&b);
                tl_buf_free(&l);
                return NULL;
            }
            if (i == 0)
                lo = d;
            prev = hi = d;
        }
    }
    if (lo < 0 || hi >= t->ndim || lo > hi)
        return tl_error_set(err, TL_ERR_INDEX, "Dimension out of range (expected to be in range "
                                               "of [%d, %d], but got %" PRId64 ")",
                            -(t->ndim ? t->ndim : 1), (t->ndim ? t->ndim : 1) - 1,
                            lo < 0 ? lo : hi), NULL;
    const char *in[TL_MAX_DIMS], *out[TL_MAX_DIMS];
    names_of(t, in);
    int n = 0;
    for (int64_t d = 0; d < lo; d++)
        out[n++] = in[d];
    out[n++] = outname;
    for (int64_t d = hi + 1; d < t->ndim; d++)
        out[n++] = in[d];
    tl_value *pv[2] = {tl_int(lo), tl_int(hi)};
    tl_args b = {2, pv, 0, NULL, NULL};
    tl_value *res = fn(self, &b, err);
    tl_value_release(pv[0]);
    tl_value_release(pv[1]);
    return put_names_copied(res, n, out, err);
}

/* unflatten(dim (a name), sizes: ((name, size), ...)) */
static bool named_unflatten_form(const tl_args *a)
{
    tl_value *d = tl_arg(a, 0, "dim");
    return d && d->kind == TL_V_STR;
}

static tl_value *named_unflatten(tl_cfunc fn, tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = self->u.tensor;
    tl_value *dn = tl_arg(a, 0, "dim"), *sz = tl_arg(a, 1, "sizes");
    int64_t d;
    if (dim_of_name(t, dn->u.str.s, &d, err) < 0)
        return NULL;
    if (!sz || (sz->kind != TL_V_TUPLE && sz->kind != TL_V_LIST) ||
        sz->u.seq.n + (size_t)t->ndim > TL_MAX_DIMS + 1)
        return tl_error_set(err, TL_ERR_TYPE, "unflatten(): argument 'sizes' (position 2) must "
                                              "be a tuple of (name, size) pairs"), NULL;
    size_t k = sz->u.seq.n;
    tl_value *sizes = tl_tuple_new(k);
    const char *in[TL_MAX_DIMS], *out[TL_MAX_DIMS + 1];
    names_of(t, in);
    int n = 0;
    for (int64_t i = 0; i < d; i++)
        out[n++] = in[i];
    for (size_t i = 0; i < k; i++) {
        tl_value *p = sz->u.seq.items[i];
        if ((p->kind != TL_V_TUPLE && p->kind != TL_V_LIST) || p->u.seq.n != 2 ||
            p->u.seq.items[0]->kind != TL_V_STR || p->u.seq.items[1]->kind != TL_V_INT) {
            tl_value_release(sizes);
            return tl_error_set(err, TL_ERR_TYPE, "unflatten(): argument 'sizes' (position 2) "
                                                  "must be a tuple of (name, size) pairs"), NULL;
        }
        out[n++] = p->u.seq.items[0]->u.str.s;
        tl_seq_set(sizes, i, tl_int(p->u.seq.items[1]->u.i));
    }
    for (int64_t i = d + 1; i < t->ndim; i++)
        out[n++] = in[i];
    tl_value *pv[2] = {tl_int(d), sizes};
    tl_args b = {2, pv, 0, NULL, NULL};
    tl_value *res = fn(self, &b, err);
    tl_value_release(pv[0]);
    tl_value_release(pv[1]);
    if (res && n > TL_MAX_DIMS) {
        tl_value_release(res);
        return tl_error_set(err, TL_ERR_RUNTIME, "unflatten(): too many dimensions"), NULL;
    }
    return put_names_copied(res, n, out, err);
}

/* torch.cat(tensors, dim) with named tensors: dim may be a name (of the
 * first tensor), the names must agree (unified from the right), the
 * result has them; torch.stack refuses named tensors */
static tl_value *named_cat(const char *name, tl_cfunc fn, const tl_args *a, tl_error *err)
{
    tl_value *seq = tl_arg(a, 0, "tensors");
    bool any = false;
    for (size_t i = 0; seq && (seq->kind == TL_V_TUPLE || seq->kind == TL_V_LIST) &&
                       i < seq->u.seq.n; i++)
        any |= named_value(seq->u.seq.items[i]);
    if (!any)
        return fn(NULL, a, err);
    if (strcmp(name, "stack") == 0) {
        refuse("stack", err);
        return NULL;
    }
    const tl_tensor *first = seq->u.seq.items[0]->u.tensor;
    tl_value *pos[16], *kw[16];
    if (a->npos > 16 || a->nkw > 16 || seq->u.seq.items[0]->kind != TL_V_TENSOR)
        return fn(NULL, a, err);
    const char *un[TL_MAX_DIMS];
    int nun = 0;
    names_of(first, un);
    nun = first->ndim;
    for (size_t i = 1; i < seq->u.seq.n; i++) {
        tl_value *v = seq->u.seq.items[i];
        if (v->kind != TL_V_TENSOR || v->u.tensor->ndim != nun)
            return fn(NULL, a, err);
        const char *vn[TL_MAX_DIMS], *o[TL_MAX_DIMS];
        names_of(v->u.tensor, vn);
        int no;
        if (unify_lists(nun, un, nun, vn, o, &no, err) < 0)
            return NULL;
        memcpy(un, o, sizeof(*un) * (size_t)no);
    }
    for (size_t i = 0; i < a->npos; i++)
        pos[i] = i == 1 ? dims_of(first, a->pos[i], err) : tl_value_retain(a->pos[i]);
    for (size_t i = 0; i < a->nkw; i++)
        kw[i] = strcmp(a->kwnames[i], "dim") == 0 ? dims_of(first, a->kwvals[i], err)
                                                  : tl_value_retain(a->kwvals[i]);
    bool ok = true;
    for (size_t i = 0; i < a->npos; i++)
        ok &= pos[i] != NULL;
    for (size_t i = 0; i < a->nkw; i++)
        ok &= kw[i] != NULL;
    tl_args b = {a->npos, pos, a->nkw, a->kwnames, kw};
    tl_value *res = ok ? fn(NULL, &b, err) : NULL;
    for (size_t i = 0; i < a->npos; i++)
        tl_value_release(pos[i]);
    for (size_t i = 0; i < a->nkw; i++)
        tl_value_release(kw[i]);
    return put_names_copied(res, nun, un, err);
}

/* keepdim= of a reduction call (keyword or the positional after dim) */
static bool keepdim_of(const tl_args *a)
{
    tl_value *k = tl_arg(a, 1, "keepdim");
    return k && k->kind == TL_V_BOOL && k->u.b;
}

tl_value *tl_named_call(const char *name, tl_cfunc fn, tl_value *self, const tl_args *a,
                        tl_error *err)
{
    bool involved = named_value(self);
    for (size_t i = 0; !involved && i < a->npos; i++)
        involved = named_value(a->pos[i]);
    for (size_t i = 0; !involved && i < a->nkw; i++)
        involved = named_value(a->kwvals[i]);
    if (!self && (strcmp(name, "cat") == 0 || strcmp(name, "concat") == 0 ||
                  strcmp(name, "stack") == 0))
        return named_cat(name, fn, a, err);
    if (!involved || !self || self->kind != TL_V_TENSOR)
        return fn(self, a, err);
    if (strcmp(name, "flatten") == 0 && named_flatten_form(a))
        return named_flatten(fn, self, a, err);
    if (strcmp(name, "unflatten") == 0 && named_unflatten_form(a))
        return named_unflatten(fn, self, a, err);
    const op_rule *r = rule_of(name);
    if (!r)
        return fn(self, a, err);
    tl_tensor *t = self->u.tensor;
    if (r->dimtype) {
        tl_value *d = tl_arg(a, (size_t)r->dimpos - 1, "dim");
        if (d && d->kind == TL_V_STR)
            return tl_error_set(err, TL_ERR_TYPE,
                                "%s(): argument 'dim' (position %d) must be %s, not str", name,
                                r->dimpos, r->dimtype),
                   NULL;
    }
    if (r->flags & F_NYI) {
        tl_value *d = tl_arg(a, 0, "dim");
        bool dimname = d && d->kind == TL_V_STR;
        for (size_t i = 0; d && !dimname && (d->kind == TL_V_TUPLE || d->kind == TL_V_LIST) &&
                           i < d->u.seq.n; i++)
            dimname = d->u.seq.items[i]->kind == TL_V_STR;
        if (dimname)
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "%s: You passed a dimname (string) to this op in place of a "
                                "dimension index but it does not yet support this behavior. "
                                "Please pass a dimension index to work around this.",
                                name),
                   NULL;
    }
    if (r->how == R_REFUSE) {
        refuse(r->aten, err);
        return NULL;
    }
    if ((strcmp(name, "all") == 0 || strcmp(name, "any") == 0) && tl_arg(a, 0, "dim")) {
        char aten[16];
        snprintf(aten, sizeof aten, "%s.dim", name);
        refuse(aten, err);
        return NULL;
    }
    if (r->how == R_DIMS && a->npos >= 1 && a->pos[0]->kind == TL_V_NONE)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "Please look up dimensions by name, got: name = None."),
               NULL;
    if (r->how == R_MATMUL) {
        tl_value *o = tl_arg(a, 0, "other");
        if (o && tl_named_matmul_check(self, o, err) < 0)
            return NULL;
        tl_value *res = fn(self, a, err);
        return o ? tl_named_matmul(res, self, o, err) : res;
    }
    /* names as dims: the first r->ndims positionals and dim= */
    tl_value *pos[16], *kw[16];
    if (a->npos > 16 || a->nkw > 16)
        return fn(self, a, err);
    tl_args b = {a->npos, pos, a->nkw, a->kwnames, kw};
    int64_t dims[TL_MAX_DIMS];
    int ndims = 0;
    bool has_dim = false;
    for (size_t i = 0; i < a->npos; i++) {
        bool dimpos = (int)i < r->ndims;
        pos[i] = dimpos ? dims_of(t, a->pos[i], err) : tl_value_retain(a->pos[i]);
        if (!pos[i]) {
            b.npos = i;
            b.nkw = 0;
            goto fail;
        }
    }
    for (size_t i = 0; i < a->nkw; i++) {
        bool dimkw = r->ndims && (strcmp(a->kwnames[i], "dim") == 0 ||
                                  strcmp(a->kwnames[i], "dim0") == 0 ||
                                  strcmp(a->kwnames[i], "dim1") == 0);
        kw[i] = dimkw ? dims_of(t, a->kwvals[i], err) : tl_value_retain(a->kwvals[i]);
        if (!kw[i]) {
            b.nkw = i;
            goto fail;
        }
    }
    /* the dims the call names, for the name rules */
    {
        tl_value *d0 = r->ndims ? tl_arg(&b, 0, r->how == R_TRANSPOSE ? "dim0" : "dim")
                                : NULL;
        if (d0 && d0->kind == TL_V_INT) {
            dims[ndims++] = d0->u.i;
            has_dim = true;
        } else if (d0 && (d0->kind == TL_V_TUPLE || d0->kind == TL_V_LIST)) {
            has_dim = true;
            for (size_t i = 0; i < d0->u.seq.n && ndims < TL_MAX_DIMS; i++)
                if (d0->u.seq.items[i]->kind == TL_V_INT)
                    dims[ndims++] = d0->u.seq.items[i]->u.i;
        }
        if (r->how == R_TRANSPOSE) {
            tl_value *d1 = tl_arg(&b, 1, "dim1");
            if (d1 && d1->kind == TL_V_INT)
                dims[ndims++] = d1->u.i;
        }
    }
    /* the input's names, read before the call (an in-place op keeps them) */
    const char *in[TL_MAX_DIMS];
    char *saved = NULL;
    int n = t->ndim;
    if (t->names) {
        size_t len = 0;
        const char *p = t->names;
        for (int d = 0; d < n; d++) {
            size_t k = strlen(p) + 1;
            len += k;
            p += k;
        }
        saved = tl_xmalloc(len);
        memcpy(saved, t->names, len);
        p = saved;
        for (int d = 0; d < n; d++) {
            in[d] = *p ? p : NULL;
            p += strlen(p) + 1;
        }
    } else {
        for (int d = 0; d < n; d++)
            in[d] = NULL;
    }
    int64_t insizes[TL_MAX_DIMS];
    memcpy(insizes, t->sizes, sizeof(int64_t) * (size_t)n);
    for (int i = 0; i < ndims; i++)
        if (dims[i] < 0)
            dims[i] += n;
    tl_value *res = fn(self, &b, err);
    const char *out[TL_MAX_DIMS];
    int nout = 0;
    switch (res ? r->how : R_DIMS) {
    case R_KEEP:
        for (int d = 0; d < n; d++)
            out[nout++] = in[d];
        break;
    case R_UNIFY: {
        tl_value *o = tl_arg(&b, 0, "other");
        if (o && o->kind == TL_V_TENSOR) {
            tl_tensor tmp = *t; /* self's geometry with the saved names */
            tmp.names = saved;
            if (unify(&tmp, o->u.tensor, out, &nout, err) < 0) {
                tl_value_release(res);
                res = NULL;
            }
        } else {
            for (int d = 0; d < n; d++)
                out[nout++] = in[d];
        }
        break;
    }
    case R_REDUCE: {
        if (!has_dim)
            break; /* a full reduction: a 0-d result */
        bool keep = keepdim_of(&b);
        for (int d = 0; d < n; d++) {
            bool reduced = false;
            for (int i = 0; i < ndims; i++)
                reduced |= dims[i] == d;
            if (ndims == 0)
                reduced = true; /* sum(()) reduces everything */
            if (!reduced || keep)
                out[nout++] = in[d];
        }
        break;
    }
    case R_TRANSPOSE:
        for (int d = 0; d < n; d++)
            out[nout++] = in[d];
        if (ndims == 2 && dims[0] >= 0 && dims[0] < n && dims[1] >= 0 && dims[1] < n) {
            out[dims[0]] = in[dims[1]];
            out[dims[1]] = in[dims[0]];
        }
        break;
    case R_REVERSE:
        for (int d = 0; d < n; d++)
            out[nout++] = in[n - 1 - d];
        break;
    case R_MT:
        for (int d = 0; d < n; d++)
            out[nout++] = in[d];
        if (n >= 2) {
            out[n - 2] = in[n - 1];
            out[n - 1] = in[n - 2];
        }
        break;
    case R_SELECT:
    case R_UNBIND:
        for (int d = 0; d < n; d++)
            if (!(ndims ? dims[0] == d : (r->how == R_UNBIND && d == 0)))
                out[nout++] = in[d];
        break;
    case R_SQUEEZE:
        for (int d = 0; d < n; d++)
            if (has_dim ? !(insizes[d] == 1 && dims[0] == d) : insizes[d] != 1)
                out[nout++] = in[d];
        /* squeeze(dim) of a dim whose size is not 1 is an as_strided of
         * self in PyTorch, which drops every name (torch 1.13 and 2.x) */
        if (has_dim && ndims && dims[0] >= 0 && dims[0] < n && insizes[dims[0]] != 1)
            for (int d = 0; d < nout; d++)
                out[d] = NULL;
        break;
    case R_DIMS:
    case R_MATMUL:
    case R_REFUSE:
        break;
    }
    if (res && r->how != R_DIMS) {
        tl_tensor *rt = result_tensor(res);
        if (rt) {
            res = put_names(res, nout, out, err);
        } else if (res->kind == TL_V_TUPLE && (res->u.seq.rtype || r->how == R_UNBIND)) {
            /* max(dim)/min(dim): values and indices both; unbind: each */
            for (size_t i = 0; i < res->u.seq.n; i++) {
                tl_value *item = tl_value_retain(res->u.seq.items[i]);
                item = put_names(item, nout, out, err);
                if (!item) {
                    tl_value_release(res);
                    res = NULL;
                    break;
                }
                tl_value_release(item);
            }
        }
    }
    free(saved);
    for (size_t i = 0; i < b.npos; i++)
        tl_value_release(pos[i]);
    for (size_t i = 0; i < b.nkw; i++)
        tl_value_release(kw[i]);
    return res;
fail:
    for (size_t i = 0; i < b.npos; i++)
        tl_value_release(pos[i]);
    for (size_t i = 0; i < b.nkw; i++)
        tl_value_release(kw[i]);
    return NULL;
}

void tl_named_install(void)
{
    tl_value_set_call_hook(tl_named_call);
}

/* ---- the name methods ---- */

static tl_value *b_names(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)a;
    tl_tensor *t = tl_bind_self_tensor(self, "names", err);
    if (!t)
        return NULL;
    tl_value *r = tl_tuple_new((size_t)t->ndim);
    for (int d = 0; d < t->ndim; d++) {
        const char *n = tl_named_get(t, d);
        tl_seq_set(r, (size_t)d, n ? tl_str(n) : tl_none());
    }
    return r;
}

static tl_value *b_has_names(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = tl_bind_self_tensor(self, "has_names", err);
    if (!t || tl_args_check(a, "has_names", 0, NULL, "()", err) < 0)
        return NULL;
    return tl_bool(tl_named_has(t));
}

/* A view of t with the given geometry (t's own for rename) carrying
 * names[0..nnames); the names are checked before the view is made. */
static tl_value *alias_with(const tl_tensor *t, int n, const int64_t *sizes,
                            const int64_t *strides, int nnames,
                            const char *const *names, tl_error *err)
{
    tl_tensor probe = {0};
    probe.ndim = n;
    if (names && set_names(&probe, nnames, names, err) < 0)
        return NULL;
    tl_tensor *v = tl_view_as_strided(t, n, sizes, n, strides, false, 0, err);
    if (!v) {
        free(probe.names);
        return NULL;
    }
    free(v->names);
    v->names = probe.names;
    return tl_value_tensor(v);
}

/* the positional names of a call, Ellipsis as the string "..." */
static int names_args(const tl_args *a, const char **out, bool *ell, int *nell,
                      tl_error *err)
{
    *nell = 0;
    if (a->npos > TL_MAX_DIMS)
        return tl_error_set(err, TL_ERR_LIMIT, "at most %d names", TL_MAX_DIMS);
    for (size_t i = 0; i < a->npos; i++) {
        ell[i] = a->pos[i]->kind == TL_V_ELLIPSIS;
        if (ell[i]) {
            out[i] = NULL;
            (*nell)++;
        } else if (name_of(a->pos[i], &out[i], err) < 0) {
            return -1;
        }
    }
    return 0;
}

/* "(Ellipsis, 'C', Ellipsis)" as Python prints the args tuple */
static void args_tuple(tl_buf *b, const tl_args *a)
{
    tl_buf_putc(b, '(');
    for (size_t i = 0; i < a->npos; i++) {
        if (i)
            tl_buf_puts(b, ", ");
        const tl_value *v = a->pos[i];
        if (v->kind == TL_V_ELLIPSIS)
            tl_buf_puts(b, "Ellipsis");
        else if (v->kind == TL_V_STR)
            tl_buf_printf(b, "'%s'", v->u.str.s);
        else
            tl_buf_puts(b, "None");
    }
    if (a->npos == 1)
        tl_buf_putc(b, ',');
    tl_buf_putc(b, ')');
}

static int many_ellipses(const char *fname, const tl_args *a, tl_error *err)
{
    tl_buf b = {0};
    args_tuple(&b, a);
    tl_error_set(err, TL_ERR_RUNTIME,
                 "%s: More than one Ellipsis ('...') found in names (%s). This "
                 "function supports up to one Ellipsis.",
                 fname, tl_buf_str(&b));
    tl_buf_free(&b);
    return -1;
}

/* Expand names[0..n) with one Ellipsis to t->ndim entries: the Ellipsis
 * stands for t's dims it covers, with t's names (NULL for none). */
static int expand_ellipsis(const tl_tensor *t, const char **names, const bool *ell,
                           int n, const char **out, int *nout)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (!ell[i]) {
            out[k++] = names[i];
            continue;
        }
        int cover = t->ndim - (n - 1);
        for (int j = 0; j < cover; j++)
            out[k++] = tl_named_get(t, i + j);
    }
    *nout = k;
    return 0;
}

static tl_value *b_rename(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = tl_bind_self_tensor(self, "rename", err);
    if (!t)
        return NULL;
    if (a->npos && a->nkw) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "rename: This function takes either positional args or keyword "
                     "args, but not both. Use tensor.rename(*names) to name dims and "
                     "tensor.rename(**rename_map) to rename dims.");
        return NULL;
    }
    const char *names[TL_MAX_DIMS];
    int n = 0;
    if (a->nkw) {
        n = t->ndim;
        for (int d = 0; d < n; d++)
            names[d] = tl_named_get(t, d);
        for (size_t k = 0; k < a->nkw; k++) {
            int64_t d = -1;
            for (int i = 0; i < t->ndim; i++) {
                const char *c = tl_named_get(t, i);
                if (c && strcmp(c, a->kwnames[k]) == 0)
                    d = i;
            }
            const char *to;
            if (name_of(a->kwvals[k], &to, err) < 0)
                return NULL;
            if (d < 0) {
                tl_buf b = {0};
                tl_buf_puts(&b, "Tensor[(");
                for (int i = 0; i < t->ndim; i++) {
                    const char *c = tl_named_get(t, i);
                    tl_buf_printf(&b, i ? ", " : "");
                    if (c)
                        tl_buf_printf(&b, "'%s'", c);
                    else
                        tl_buf_puts(&b, "None");
                }
                tl_buf_puts(&b, t->ndim == 1 ? ",)]" : ")]");
                tl_error_set(err, TL_ERR_RUNTIME,
                             "rename: Tried to rename dim '%s' to dim %s in %s but dim "
                             "'%s' does not exist",
                             a->kwnames[k], to ? to : "None", tl_buf_str(&b),
                             a->kwnames[k]);
                tl_buf_free(&b);
                return NULL;
            }
            names[d] = to;
        }
    } else if (a->npos == 1 && a->pos[0]->kind == TL_V_NONE) {
        n = t->ndim;
        for (int d = 0; d < n; d++)
            names[d] = NULL;
    } else {
        const char *given[TL_MAX_DIMS];
        bool ell[TL_MAX_DIMS];
        int nell;
        if (names_args(a, given, ell, &nell, err) < 0)
            return NULL;
        if (nell > 1) {
            many_ellipses("rename", a, err);
            return NULL;
        }
        if (nell == 0 || (int)a->npos - 1 > t->ndim) {
            n = 0;
            for (size_t i = 0; i < a->npos; i++)
                if (!ell[i])
                    names[n++] = given[i];
        } else {
            expand_ellipsis(t, given, ell, (int)a->npos, names, &n);
        }
    }
    return alias_with(t, t->ndim, t->sizes, t->strides, n, names, err);
}

static tl_value *b_refine_names(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = tl_bind_self_tensor(self, "refine_names", err);
    if (!t)
        return NULL;
    if (tl_args_check(a, "refine_names", TL_MAX_DIMS, NULL, "(*names)", err) < 0)
        return NULL;
    const char *given[TL_MAX_DIMS], *names[TL_MAX_DIMS];
    bool ell[TL_MAX_DIMS];
    int nell, n;
    if (names_args(a, given, ell, &nell, err) < 0)
        return NULL;
    if (nell > 1) {
        many_ellipses("refine_names", a, err);
        return NULL;
    }
    if (nell == 1 && (int)a->npos - 1 <= t->ndim) {
        expand_ellipsis(t, given, ell, (int)a->npos, names, &n);
    } else {
        n = 0;
        for (size_t i = 0; i < a->npos; i++)
            if (!ell[i])
                names[n++] = given[i];
    }
    if (n != t->ndim) {
        tl_buf s = {0}, g = {0};
        tensor_str(&s, t);
        tl_buf_puts(&g, "Tensor");
        list_str(&g, n, names);
        tl_error_set(err, TL_ERR_RUNTIME,
                     "refine_names: cannot coerce %s to %s because they have a "
                     "different number of dims (%d and %d respectively).",
                     tl_buf_str(&s), tl_buf_str(&g), t->ndim, n);
        tl_buf_free(&s);
        tl_buf_free(&g);
        return NULL;
    }
    for (int d = 0; d < n; d++) {
        const char *old = tl_named_get(t, d);
        if (old && (!names[d] || strcmp(old, names[d]) != 0)) {
            tl_buf s = {0}, g = {0};
            tensor_str(&s, t);
            tl_buf_puts(&g, "Tensor");
            list_str(&g, n, names);
            tl_error_set(err, TL_ERR_RUNTIME,
                         "refine_names: cannot coerce %s to %s because '%s' is "
                         "different from %s%s%s at index %d",
                         tl_buf_str(&s), tl_buf_str(&g), old, names[d] ? "'" : "",
                         names[d] ? names[d] : "None", names[d] ? "'" : "", d);
            tl_buf_free(&s);
            tl_buf_free(&g);
            return NULL;
        }
    }
    return alias_with(t, t->ndim, t->sizes, t->strides, n, names, err);
}

/* align_to(names[0..n)) with at most one Ellipsis: the permute view. */
static tl_value *align(tl_tensor *t, const char **given, const bool *ell, int n,
                       const tl_args *a, tl_error *err)
{
    if (n == 1 && ell[0] && !tl_named_has(t)) /* align_to(...): nothing to do */
        return alias_with(t, t->ndim, t->sizes, t->strides, 0, NULL, err);
    for (int d = 0; d < t->ndim; d++) {
        if (!tl_named_get(t, d)) {
            tl_buf s = {0};
            tensor_str(&s, t);
            tl_error_set(err, TL_ERR_RUNTIME,
                         "align_to: All input dims must be named. Found unnamed dim "
                         "at index %d of %s",
                         d, tl_buf_str(&s));
            tl_buf_free(&s);
            return NULL;
        }
    }
    int nell = 0;
    for (int i = 0; i < n; i++)
        nell += ell[i];
    if (nell > 1) {
        many_ellipses("align_to", a, err);
        return NULL;
    }
    const char *names[TL_MAX_DIMS];
    int nout = 0;
    for (int i = 0; i < n; i++) {
        if (!ell[i]) { /* None is kept, and never matches a dim */
            names[nout++] = given[i];
            continue;
        }
        /* the input's dims not named elsewhere, in their order */
        for (int d = 0; d < t->ndim; d++) {
            const char *c = tl_named_get(t, d);
            bool listed = false;
            for (int j = 0; j < n; j++)
                listed |= !ell[j] && given[j] && strcmp(given[j], c) == 0;
            if (!listed) {
                if (nout >= TL_MAX_DIMS) {
                    tl_error_set(err, TL_ERR_LIMIT, "at most %d dims", TL_MAX_DIMS);
                    return NULL;
                }
                names[nout++] = c;
            }
        }
    }
    int64_t sizes[TL_MAX_DIMS], strides[TL_MAX_DIMS];
    bool used[TL_MAX_DIMS] = {false};
    for (int i = 0; i < nout; i++) {
        sizes[i] = 1;
        strides[i] = 0;
        for (int d = 0; d < t->ndim; d++) {
            if (names[i] && strcmp(tl_named_get(t, d), names[i]) == 0) {
                sizes[i] = t->sizes[d];
                strides[i] = t->strides[d];
                used[d] = true;
            }
        }
    }
    for (int d = 0; d < t->ndim; d++) {
        if (!used[d]) {
            tl_buf s = {0};
            list_str(&s, nout, names);
            tl_error_set(err, TL_ERR_RUNTIME,
                         "align_to: Cannot find dim '%s' from Tensor%s in desired "
                         "alignment %s.",
                         tl_named_get(t, d), tl_buf_str(&s), tl_buf_str(&s));
            tl_buf_free(&s);
            return NULL;
        }
    }
    return alias_with(t, nout, sizes, strides, nout, names, err);
}

static tl_value *b_align_to(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = tl_bind_self_tensor(self, "align_to", err);
    if (!t)
        return NULL;
    if (tl_args_check(a, "align_to", TL_MAX_DIMS, NULL, "(*names)", err) < 0)
        return NULL;
    const char *given[TL_MAX_DIMS];
    bool ell[TL_MAX_DIMS];
    int nell;
    if (names_args(a, given, ell, &nell, err) < 0)
        return NULL;
    return align(t, given, ell, (int)a->npos, a, err);
}

static tl_value *b_align_as(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = tl_bind_self_tensor(self, "align_as", err);
    if (!t)
        return NULL;
    static const char *const kw[] = {"other", NULL};
    tl_tensor *o;
    if (tl_args_check(a, "align_as", 1, kw, "(Tensor other)", err) < 0)
        return NULL;
    tl_value *ov = tl_arg(a, 0, "other");
    if (!ov) {
        tl_error_set(err, TL_ERR_TYPE, "align_as() missing 1 required positional "
                                       "arguments: \"other\"");
        return NULL;
    }
    if (tl_to_tensor(ov, "other", &o, err) < 0)
        return NULL;
    const char *given[TL_MAX_DIMS];
    bool ell[TL_MAX_DIMS] = {false};
    for (int d = 0; d < o->ndim; d++)
        given[d] = tl_named_get(o, d);
    return align(t, given, ell, o->ndim, a, err);
}

static const tl_binding attrs[] = {
    {"names", b_names, false, false},
    {NULL, NULL, false, false},
};

static const tl_binding methods[] = {
    {"has_names", b_has_names, false, false},
    {"rename", b_rename, false, false},
    {"refine_names", b_refine_names, false, false},
    {"align_to", b_align_to, false, false},
    {"align_as", b_align_as, false, false},
    {NULL, NULL, false, false},
};

const tl_bind_table tl_bind_named_tables[] = {
    {TL_BIND_ATTR, attrs},
    {TL_BIND_METHOD, methods},
    {TL_BIND_ATTR, NULL},
};
