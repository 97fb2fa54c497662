/* builtins.c - Python builtins and module/value attributes for the
 * op-language interpreter.
 *
 * What lives here:
 *   - the builtin functions (len range reversed list tuple int float bool
 *     abs min max sum, plus print str repr id all any enumerate zip), with
 *     CPython's error texts;
 *   - attributes of the modules `torch`, `numpy` and `torch.cuda`: dtypes,
 *     torch.device, torch.Size, memory formats, constants, and the bind.h
 *     lookups (TL_BIND_TORCH, then TL_BIND_METHOD in functional form:
 *     torch.NAME(x, ...) calls the method with x, or input=, as self);
 *   - attributes of values: tensors and ndarrays through bind.h, and the
 *     few methods of storages, dtypes, devices, tuples and lists;
 *   - "did you mean" suggestions by edit distance for unknown names.
 * Python semantics of operators, iteration and comparison are pyops.c's;
 * nothing here reaches into the interpreter (lang/).
 * Everything returns new references; failing calls fill err (no span: the
 * evaluator attaches the call's span).
 */
#include "builtins.h"
#include "bind_numpy.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "bind_grad.h"
#include "context.h"
#include "convert.h"
#include "create.h"
#include "dict.h"
#include "h5py.h"
#include "memfs.h"
#include "einops.h"
#include "named.h"
#include "ops.h"
#include "pyops.h"
#include "strmethods.h"
#include "repr.h"
#include "sparse.h"
#include "util.h"

/* ---------------------------------------------------------------------- */
/* argument helpers (CPython wording) */

static int no_kwargs(const tl_args *a, const char *name, tl_error *err)
{
    if (a->nkw)
        return tl_error_set(err, TL_ERR_TYPE, "%s() takes no keyword arguments", name);
    return 0;
}

static int exactly_one(const tl_args *a, const char *name, tl_error *err)
{
    if (no_kwargs(a, name, err) < 0)
        return -1;
    if (a->npos != 1)
        return tl_error_set(err, TL_ERR_TYPE, "%s() takes exactly one argument (%zu given)",
                            name, a->npos);
    return 0;
}

/* exactly one positional argument, iterated into items[0..n) */
static int one_iterable(const tl_args *a, const char *name, tl_value ***items,
                        size_t *n, tl_error *err)
{
    if (exactly_one(a, name, err) < 0)
        return -1;
    return tl_pyops_iterate(a->pos[0], items, n, err);
}

static int at_most_one(const tl_args *a, const char *name, tl_error *err)
{
    if (no_kwargs(a, name, err) < 0)
        return -1;
    if (a->npos > 1)
        return tl_error_set(err, TL_ERR_TYPE, "%s expected at most 1 argument, got %zu",
                            name, a->npos);
    return 0;
}

/* Call a Tensor method binding by name on self. */
static tl_value *call_method(tl_value *self, const char *name, const tl_args *args,
                             tl_error *err)
{
    const tl_binding *b = tl_bind_find(TL_BIND_METHOD, name);
    if (!b) {
        tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab does not support Tensor.%s", name);
        return NULL;
    }
    tl_args empty = {0, NULL, 0, NULL, NULL};
    return b->fn(self, args ? args : &empty, err);
}

/* One-element tensor/ndarray to a double or int64. */
static int scalar_of(tl_value *v, bool *is_float, double *f, int64_t *i, tl_error *err)
{
    const tl_tensor *t = v->u.tensor;
    if (tl_tensor_numel(t) != 1) {
        if (v->kind == TL_V_NDARRAY)
            return tl_error_set(err, TL_ERR_TYPE,
                                "only size-1 arrays can be converted to Python scalars");
        return tl_error_set(err, TL_ERR_VALUE,
                            "only one element tensors can be converted to Python scalars");
    }
    *is_float = tl_dtype_is_floating(t->dtype);
    if (*is_float)
        return tl_tensor_get_f64(t, 0, f, err);
    return tl_tensor_get_i64(t, 0, i, err);
}

/* ---------------------------------------------------------------------- */
/* builtin functions */

static tl_value *bi_len(tl_value *self, const tl_args *a, tl_error *err)
{
    if (exactly_one(a, "len", err) < 0)
        return NULL;
    tl_value *v = a->pos[0];
    switch (v->kind) {
    case TL_V_TUPLE:
    case TL_V_LIST:
    case TL_V_SIZE:
        return tl_int((int64_t)v->u.seq.n);
    case TL_V_STR:
        return tl_int((int64_t)v->u.str.len);
    case TL_V_DICT:
        return tl_int((int64_t)tl_dict_len(v));
    case TL_V_STORAGE:
        return tl_int((int64_t)(v->u.storage->nbytes /
                                (v->typed ? tl_dtype_size(v->sdtype) : 1)));
    case TL_V_TENSOR:
        if (v->u.tensor->ndim == 0) {
            tl_error_set(err, TL_ERR_TYPE, "len() of a 0-d tensor");
            return NULL;
        }
        return tl_int(v->u.tensor->sizes[0]);
    case TL_V_NDARRAY:
        if (v->u.tensor->ndim == 0) {
            tl_error_set(err, TL_ERR_TYPE, "len() of unsized object");
            return NULL;
        }
        return tl_int(v->u.tensor->sizes[0]);
    case TL_V_OBJECT:
        if (v->u.obj.cls->len) {
            int64_t n = 0;
            if (v->u.obj.cls->len(v, &n, err) < 0)
                return NULL;
            return tl_int(n);
        }
        /* fall through */
    default:
        tl_error_set(err, TL_ERR_TYPE, "object of type '%s' has no len()",
                     tl_value_type_name(v));
        return NULL;
    }
}

static int index_arg(const tl_value *v, int64_t *out, tl_error *err)
{
    if (!tl_value_as_index(v, out))
        return tl_error_set(err, TL_ERR_TYPE, "'%s' object cannot be interpreted as an integer",
                            tl_value_type_name(v));
    return 0;
}

static tl_value *bi_range(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_kwargs(a, "range", err) < 0)
        return NULL;
    if (a->npos == 0) {
        tl_error_set(err, TL_ERR_TYPE, "range expected at least 1 argument, got 0");
        return NULL;
    }
    if (a->npos > 3) {
        tl_error_set(err, TL_ERR_TYPE, "range expected at most 3 arguments, got %zu", a->npos);
        return NULL;
    }
    int64_t start = 0, stop = 0, step = 1;
    if (a->npos == 1) {
        if (index_arg(a->pos[0], &stop, err) < 0)
            return NULL;
    } else {
        if (index_arg(a->pos[0], &start, err) < 0 || index_arg(a->pos[1], &stop, err) < 0)
            return NULL;
        if (a->npos == 3 && index_arg(a->pos[2], &step, err) < 0)
            return NULL;
    }
    if (step == 0) {
        tl_error_set(err, TL_ERR_VALUE, "range() arg 3 must not be zero");
        return NULL;
    }
    /* length without overflow */
    uint64_t n = 0;
    if (step > 0 && start < stop)
        n = ((uint64_t)stop - (uint64_t)start - 1) / (uint64_t)step + 1;
    else if (step < 0 && start > stop)
        n = ((uint64_t)start - (uint64_t)stop - 1) / ((uint64_t)0 - (uint64_t)step) + 1;
    if (n > (uint64_t)tl_pyops_max_seq()) {
        tl_error_set(err, TL_ERR_LIMIT,
                     "range of %" PRIu64 " elements is longer than the limit (%" PRId64 ")",
                     n, tl_pyops_max_seq());
        return NULL;
    }
    if (tl_pyops_charge_seq((size_t)n, err) < 0)
        return NULL;
    tl_value *r = tl_list_new(0);
    int64_t v = start;
    for (uint64_t i = 0; i < n; i++) {
        if (tl_context_deadline_tick((int64_t)i, err) < 0) {
            tl_value_release(r);
            return NULL;
        }
        tl_list_append(r, tl_int(v));
        v = (int64_t)((uint64_t)v + (uint64_t)step);
    }
    return r;
}

static tl_value *make_seq(tl_value *src, bool list, tl_error *err)
{
    tl_value **items;
    size_t n;
    if (tl_pyops_iterate(src, &items, &n, err) < 0)
        return NULL;
    tl_value *r;
    if (list) {
        r = tl_list_new(0);
        for (size_t i = 0; i < n; i++)
            tl_list_append(r, items[i]);
    } else {
        r = tl_tuple_new(n);
        for (size_t i = 0; i < n; i++)
            tl_seq_set(r, i, items[i]);
    }
    free(items);
    return r;
}

static tl_value *bi_list(tl_value *self, const tl_args *a, tl_error *err)
{
    if (at_most_one(a, "list", err) < 0)
        return NULL;
    if (a->npos == 0)
        return tl_list_new(0);
    return make_seq(a->pos[0], true, err);
}

static tl_value *bi_tuple(tl_value *self, const tl_args *a, tl_error *err)
{
    if (at_most_one(a, "tuple", err) < 0)
        return NULL;
    if (a->npos == 0)
        return tl_tuple_new(0);
    if (a->pos[0]->kind == TL_V_TUPLE && !a->pos[0]->u.seq.rtype)
        return tl_value_retain(a->pos[0]);
    return make_seq(a->pos[0], false, err);
}

static tl_value *bi_reversed(tl_value *self, const tl_args *a, tl_error *err)
{
    if (exactly_one(a, "reversed", err) < 0)
        return NULL;
    tl_value *v = a->pos[0];
    if (v->kind == TL_V_TENSOR) {
        /* Tensor.__reversed__ is flip(0) */
        tl_value *dims = tl_tuple_new(1);
        tl_seq_set(dims, 0, tl_int(0));
        tl_value *pos[1] = {dims};
        tl_args args = {1, pos, 0, NULL, NULL};
        tl_value *r = call_method(v, "flip", &args, err);
        tl_value_release(dims);
        return r;
    }
    if (!tl_value_is_seq(v) && v->kind != TL_V_STR && v->kind != TL_V_NDARRAY) {
        tl_error_set(err, TL_ERR_TYPE, "'%s' object is not reversible", tl_value_type_name(v));
        return NULL;
    }
    tl_value **items;
    size_t n;
    if (tl_pyops_iterate(v, &items, &n, err) < 0)
        return NULL;
    tl_value *r = tl_list_new(0);
    for (size_t i = n; i-- > 0;)
        tl_list_append(r, items[i]);
    free(items);
    return r;
}

static int parse_int_str(const char *s, size_t len, int64_t *out)
{
    size_t i = 0;
    while (i < len && isspace((unsigned char)s[i]))
        i++;
    size_t e = len;
    while (e > i && isspace((unsigned char)s[e - 1]))
        e--;
    bool neg = false;
    if (i < e && (s[i] == '+' || s[i] == '-')) {
        neg = s[i] == '-';
        i++;
    }
    if (i >= e)
        return -1;
    uint64_t v = 0;
    bool prev_digit = false;
    for (; i < e; i++) {
        if (s[i] == '_') {
            if (!prev_digit)
                return -1;
            prev_digit = false;
            continue;
        }
        if (!isdigit((unsigned char)s[i]))
            return -1;
        if (v > (UINT64_MAX - 9) / 10)
            return -2;
        v = v * 10 + (uint64_t)(s[i] - '0');
        prev_digit = true;
    }
    if (!prev_digit)
        return -1;
    if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)
        return -2;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

static tl_value *double_to_int(double d, tl_error *err)
{
    if (isnan(d)) {
        tl_error_set(err, TL_ERR_VALUE, "cannot convert float NaN to integer");
        return NULL;
    }
    if (isinf(d)) {
        tl_error_set(err, TL_ERR_OVERFLOW, "cannot convert float infinity to integer");
        return NULL;
    }
    double t = trunc(d);
    if (t >= 9223372036854775808.0 || t < -9223372036854775808.0) {
        tl_error_set(err, TL_ERR_OVERFLOW, "integer overflow (tlab integers are 64-bit)");
        return NULL;
    }
    return tl_int((int64_t)t);
}

/* ValueError "WHAT: 'text'" for a string int()/float() cannot read */
static tl_value *bad_literal(tl_error *err, const char *what, const tl_value *v)
{
    tl_buf b = {0};
    tl_value_repr(v, &b);
    tl_error_set(err, TL_ERR_VALUE, "%s: %s", what, tl_buf_str(&b));
    tl_buf_free(&b);
    return NULL;
}

static tl_value *bi_int(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_kwargs(a, "int", err) < 0)
        return NULL;
    if (a->npos == 0)
        return tl_int(0);
    if (a->npos > 1) {
        tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab does not support int() with a base");
        return NULL;
    }
    tl_value *v = a->pos[0];
    switch (v->kind) {
    case TL_V_INT: return tl_int(v->u.i);
    case TL_V_BOOL: return tl_int(v->u.b);
    case TL_V_FLOAT: return double_to_int(v->u.f, err);
    case TL_V_STR: {
        int64_t r;
        int rc = parse_int_str(v->u.str.s, v->u.str.len, &r);
        if (rc == 0)
            return tl_int(r);
        if (rc == -2) {
            tl_error_set(err, TL_ERR_OVERFLOW, "integer overflow (tlab integers are 64-bit)");
            return NULL;
        }
        return bad_literal(err, "invalid literal for int() with base 10", v);
    }
    case TL_V_TENSOR:
    case TL_V_NDARRAY: {
        bool isf;
        double f = 0;
        int64_t i = 0;
        if (scalar_of(v, &isf, &f, &i, err) < 0)
            return NULL;
        return isf ? double_to_int(f, err) : tl_int(i);
    }
    default:
        tl_error_set(err, TL_ERR_TYPE,
                     "int() argument must be a string, a bytes-like object or a real "
                     "number, not '%s'", tl_value_type_name(v));
        return NULL;
    }
}

static tl_value *bi_float(tl_value *self, const tl_args *a, tl_error *err)
{
    if (at_most_one(a, "float", err) < 0)
        return NULL;
    if (a->npos == 0)
        return tl_float(0.0);
    tl_value *v = a->pos[0];
    switch (v->kind) {
    case TL_V_INT: return tl_float((double)v->u.i);
    case TL_V_BOOL: return tl_float(v->u.b);
    case TL_V_FLOAT: return tl_float(v->u.f);
    case TL_V_STR: {
        char *s = tl_xstrndup(v->u.str.s, v->u.str.len);
        char *p = s;
        while (isspace((unsigned char)*p))
            p++;
        char *end = p + strlen(p);
        while (end > p && isspace((unsigned char)end[-1]))
            *--end = 0;
        char *stop;
        double d = strtod(p, &stop);
        bool ok = *p && stop == end && !strpbrk(p, "xXpP");
        free(s);
        if (ok)
            return tl_float(d);
        return bad_literal(err, "could not convert string to float", v);
    }
    case TL_V_TENSOR:
    case TL_V_NDARRAY: {
        bool isf;
        double f = 0;
        int64_t i = 0;
        if (scalar_of(v, &isf, &f, &i, err) < 0)
            return NULL;
        return tl_float(isf ? f : (double)i);
    }
    default:
        tl_error_set(err, TL_ERR_TYPE,
                     "float() argument must be a string or a real number, not '%s'",
                     tl_value_type_name(v));
        return NULL;
    }
}

static tl_value *bi_bool(tl_value *self, const tl_args *a, tl_error *err)
{
    if (at_most_one(a, "bool", err) < 0)
        return NULL;
    if (a->npos == 0)
        return tl_bool(false);
    bool t;
    if (tl_pyops_truthy(a->pos[0], &t, err) < 0)
        return NULL;
    return tl_bool(t);
}

/* str()/repr() of a non-string: the text, or a LimitError when it would be
 * longer than the longest string (max_seq) or nested too deep. */
static tl_value *repr_value(const tl_value *v, const char *fn, tl_error *err)
{
    tl_buf b = {0};
    size_t max = (size_t)tl_pyops_max_seq();
    if (!tl_value_repr_bounded(v, &b, max) || b.len > max) {
        tl_buf_free(&b);
        tl_error_set(err, TL_ERR_LIMIT,
                     "%s() of a value longer than %zu characters or nested deeper "
                     "than %d levels", fn, max, TL_VALUE_MAX_DEPTH);
        return NULL;
    }
    tl_value *r = tl_strn(tl_buf_str(&b), b.len);
    tl_buf_free(&b);
    return r;
}

static tl_value *bi_str(tl_value *self, const tl_args *a, tl_error *err)
{
    if (at_most_one(a, "str", err) < 0)
        return NULL;
    if (a->npos == 0)
        return tl_str("");
    const tl_value *v = a->pos[0];
    if (v->kind == TL_V_STR)
        return tl_value_retain(a->pos[0]);
    if (v->kind == TL_V_EXC || v->kind == TL_V_DEVICE || v->kind == TL_V_NDARRAY ||
        v->kind == TL_V_DTYPE) {
        tl_buf b = {0};
        tl_value_str(v, &b); /* short: messages, device names, NumPy's str */
        tl_value *r = tl_strn(tl_buf_str(&b), b.len);
        tl_buf_free(&b);
        return r;
    }
    return repr_value(v, "str", err);
}

static tl_value *bi_repr(tl_value *self, const tl_args *a, tl_error *err)
{
    if (exactly_one(a, "repr", err) < 0)
        return NULL;
    return repr_value(a->pos[0], "repr", err);
}

static tl_value *bi_id(tl_value *self, const tl_args *a, tl_error *err)
{
    if (exactly_one(a, "id", err) < 0)
        return NULL;
    tl_value *v = a->pos[0];
    if (tl_value_is_tensorlike(v))
        return tl_int((int64_t)(uintptr_t)v->u.tensor);
    return tl_int((int64_t)(uintptr_t)v);
}

static tl_value *bi_abs(tl_value *self, const tl_args *a, tl_error *err)
{
    if (exactly_one(a, "abs", err) < 0)
        return NULL;
    tl_value *v = a->pos[0];
    switch (v->kind) {
    case TL_V_BOOL: return tl_int(v->u.b);
    case TL_V_INT:
        if (v->u.i == INT64_MIN) {
            tl_error_set(err, TL_ERR_OVERFLOW, "integer overflow (tlab integers are 64-bit)");
            return NULL;
        }
        return tl_int(v->u.i < 0 ? -v->u.i : v->u.i);
    case TL_V_FLOAT: return tl_float(fabs(v->u.f));
    case TL_V_TENSOR: return call_method(v, "abs", NULL, err);
    case TL_V_NDARRAY: {
        const tl_binding *b = tl_bind_find(TL_BIND_NDARRAY, "__abs__");
        if (b) {
            tl_args empty = {0, NULL, 0, NULL, NULL};
            return b->fn(v, &empty, err);
        }
        tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab does not support abs() of ndarrays");
        return NULL;
    }
    default:
        tl_error_set(err, TL_ERR_TYPE, "bad operand type for abs(): '%s'",
                     tl_value_type_name(v));
        return NULL;
    }
}

static tl_value *minmax(const tl_args *a, bool is_max, tl_error *err)
{
    const char *name = is_max ? "max" : "min";
    tl_value *deflt = NULL;
    for (size_t k = 0; k < a->nkw; k++) {
        if (strcmp(a->kwnames[k], "default") == 0) {
            deflt = a->kwvals[k];
        } else if (strcmp(a->kwnames[k], "key") == 0) {
            tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab does not support %s(key=...)", name);
            return NULL;
        } else {
            tl_error_set(err, TL_ERR_TYPE, "'%s' is an invalid keyword argument for %s()",
                         a->kwnames[k], name);
            return NULL;
        }
    }
    if (a->npos == 0) {
        tl_error_set(err, TL_ERR_TYPE, "%s expected at least 1 argument, got 0", name);
        return NULL;
    }
    tl_value **items;
    size_t n;
    bool owned = false;
    if (a->npos == 1) {
        if (tl_pyops_iterate(a->pos[0], &items, &n, err) < 0)
            return NULL;
        owned = true;
    } else {
        if (deflt) {
            tl_error_set(err, TL_ERR_TYPE,
                         "Cannot specify a default for %s() with multiple positional "
                         "arguments", name);
            return NULL;
        }
        items = a->pos;
        n = a->npos;
    }
    tl_value *best = NULL;
    if (n == 0) {
        if (deflt)
            best = tl_value_retain(deflt);
        else
            tl_error_set(err, TL_ERR_VALUE, "%s() arg is an empty sequence", name);
    } else {
        best = tl_value_retain(items[0]);
        for (size_t i = 1; i < n; i++) {
            tl_value *c = tl_pyops_compare(is_max ? TL_CMP_GT : TL_CMP_LT, items[i], best, err);
            bool t = false;
            int rc = c ? tl_pyops_truthy(c, &t, err) : -1;
            tl_value_release(c);
            if (rc < 0) {
                tl_value_release(best);
                best = NULL;
                break;
            }
            if (t) {
                tl_value_release(best);
                best = tl_value_retain(items[i]);
            }
        }
    }
    if (owned)
        tl_pyops_items_free(items, n);
    return best;
}

static tl_value *bi_max(tl_value *self, const tl_args *a, tl_error *err)
{
    return minmax(a, true, err);
}

static tl_value *bi_min(tl_value *self, const tl_args *a, tl_error *err)
{
    return minmax(a, false, err);
}

static tl_value *bi_sum(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_value *start = NULL;
    for (size_t k = 0; k < a->nkw; k++) {
        if (strcmp(a->kwnames[k], "start") != 0) {
            tl_error_set(err, TL_ERR_TYPE, "'%s' is an invalid keyword argument for sum()",
                         a->kwnames[k]);
            return NULL;
        }
        start = a->kwvals[k];
    }
    if (a->npos == 0 || a->npos > 2) {
        tl_error_set(err, TL_ERR_TYPE, "sum() takes at most 2 arguments (%zu given)", a->npos);
        if (a->npos == 0)
            tl_error_set(err, TL_ERR_TYPE, "sum() takes at least 1 positional argument (0 given)");
        return NULL;
    }
    if (a->npos == 2)
        start = a->pos[1];
    if (start && start->kind == TL_V_STR) {
        tl_error_set(err, TL_ERR_TYPE, "sum() can't sum strings [use ''.join(seq) instead]");
        return NULL;
    }
    tl_value **items;
    size_t n;
    if (tl_pyops_iterate(a->pos[0], &items, &n, err) < 0)
        return NULL;
    tl_value *acc = start ? tl_value_retain(start) : tl_int(0);
    for (size_t i = 0; i < n && acc; i++) {
        tl_value *r = tl_pyops_binary(TL_PY_ADD, acc, items[i], err);
        tl_value_release(acc);
        acc = r;
        if (acc && tl_context_deadline_tick((int64_t)i, err) < 0) {
            tl_value_release(acc);
            acc = NULL;
        }
    }
    tl_pyops_items_free(items, n);
    return acc;
}

static tl_value *allany(const tl_args *a, bool all, tl_error *err)
{
    tl_value **items;
    size_t n;
    if (one_iterable(a, all ? "all" : "any", &items, &n, err) < 0)
        return NULL;
    bool res = all;
    for (size_t i = 0; i < n; i++) {
        bool t;
        if (tl_pyops_truthy(items[i], &t, err) < 0) {
            tl_pyops_items_free(items, n);
            return NULL;
        }
        if (t != all) {
            res = !all;
            break;
        }
    }
    tl_pyops_items_free(items, n);
    return tl_bool(res);
}

static tl_value *bi_all(tl_value *self, const tl_args *a, tl_error *err)
{
    return allany(a, true, err);
}

static tl_value *bi_any(tl_value *self, const tl_args *a, tl_error *err)
{
    return allany(a, false, err);
}

static tl_value *bi_enumerate(tl_value *self, const tl_args *a, tl_error *err)
{
    int64_t start = 0;
    tl_value *sv = tl_arg(a, 1, "start");
    if (a->npos == 0 || a->npos > 2) {
        tl_error_set(err, TL_ERR_TYPE, "enumerate() missing required argument 'iterable'");
        return NULL;
    }
    if (sv && index_arg(sv, &start, err) < 0)
        return NULL;
    tl_value **items;
    size_t n;
    if (tl_pyops_iterate(a->pos[0], &items, &n, err) < 0)
        return NULL;
    tl_value *r = tl_list_new(0);
    for (size_t i = 0; i < n; i++) {
        tl_value *t = tl_tuple_new(2);
        tl_seq_set(t, 0, tl_int(start + (int64_t)i));
        tl_seq_set(t, 1, items[i]);
        tl_list_append(r, t);
    }
    free(items);
    return r;
}

static tl_value *bi_zip(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_kwargs(a, "zip", err) < 0)
        return NULL;
    size_t k = a->npos, shortest = SIZE_MAX;
    tl_value ***lists = tl_xcalloc(k ? k : 1, sizeof *lists);
    size_t *lens = tl_xcalloc(k ? k : 1, sizeof *lens);
    tl_value *r = NULL;
    for (size_t j = 0; j < k; j++) {
        if (tl_pyops_iterate(a->pos[j], &lists[j], &lens[j], err) < 0)
            goto done;
        if (lens[j] < shortest)
            shortest = lens[j];
    }
    if (k == 0)
        shortest = 0;
    r = tl_list_new(0);
    for (size_t i = 0; i < shortest; i++) {
        tl_value *t = tl_tuple_new(k);
        for (size_t j = 0; j < k; j++)
            tl_seq_set(t, j, tl_value_retain(lists[j][i]));
        tl_list_append(r, t);
    }
done:
    for (size_t j = 0; j < k; j++)
        if (lists[j])
            tl_pyops_items_free(lists[j], lens[j]);
    free(lists);
    free(lens);
    return r;
}

static tl_value *bi_slice(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_kwargs(a, "slice", err) < 0)
        return NULL;
    if (a->npos == 0 || a->npos > 3) {
        tl_error_set(err, TL_ERR_TYPE, a->npos ? "slice expected at most 3 arguments, got %zu"
                                                : "slice expected at least 1 argument, got %zu",
                     a->npos);
        return NULL;
    }
    if (a->npos == 1)
        return tl_slice_new(NULL, tl_value_retain(a->pos[0]), NULL);
    return tl_slice_new(tl_value_retain(a->pos[0]), tl_value_retain(a->pos[1]),
                        a->npos == 3 ? tl_value_retain(a->pos[2]) : NULL);
}

/* ---------------------------------------------------------------------- */
/* print, classes, exceptions (the language's object model) */

static _Thread_local FILE *g_stdout;
static _Thread_local bool g_stdout_closed;

void tl_builtins_set_stdout(FILE *f)
{
    g_stdout = f;
    g_stdout_closed = false;
}

bool tl_builtins_stdout_closed(void)
{
    return g_stdout_closed;
}

static int str_kwarg(const tl_value *v, const char *name, const char **s, size_t *n,
                     tl_error *err)
{
    if (v->kind == TL_V_NONE)
        return 0;
    if (v->kind != TL_V_STR)
        return tl_error_set(err, TL_ERR_TYPE, "%s must be None or a string, not %s", name,
                            tl_value_type_name(v));
    *s = v->u.str.s;
    *n = v->u.str.len;
    return 0;
}

static tl_value *bi_print(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    const char *sep = " ", *end = "\n";
    size_t nsep = 1, nend = 1;
    for (size_t k = 0; k < a->nkw; k++) {
        const char *kn = a->kwnames[k];
        if (strcmp(kn, "sep") == 0) {
            if (str_kwarg(a->kwvals[k], "sep", &sep, &nsep, err) < 0)
                return NULL;
        } else if (strcmp(kn, "end") == 0) {
            if (str_kwarg(a->kwvals[k], "end", &end, &nend, err) < 0)
                return NULL;
        } else if (strcmp(kn, "flush") == 0) {
            continue;
        } else if (strcmp(kn, "file") == 0) {
            if (a->kwvals[k]->kind != TL_V_NONE) {
                tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab's print() writes to standard "
                                                      "output only (no file=)");
                return NULL;
            }
        } else {
            tl_error_set(err, TL_ERR_TYPE, "'%s' is an invalid keyword argument for print()",
                         kn);
            return NULL;
        }
    }
    tl_buf b = {0};
    size_t max = (size_t)tl_pyops_max_seq();
    for (size_t i = 0; i < a->npos; i++) {
        if (i)
            tl_buf_append(&b, sep, nsep);
        /* cut (too long, or nested too deep): the error str() raises */
        if (!tl_value_str_bounded(a->pos[i], &b, max > b.len ? max - b.len : 0) ||
            b.len > max) {
            tl_buf_free(&b);
            tl_error_set(err, TL_ERR_LIMIT,
                         "print() of a value longer than %zu characters or nested deeper "
                         "than %d levels", max, TL_VALUE_MAX_DEPTH);
            return NULL;
        }
    }
    tl_buf_append(&b, end, nend);
    if (g_stdout && (fwrite(b.data ? b.data : "", 1, b.len, g_stdout) != b.len ||
                     fflush(g_stdout) != 0)) {
        /* the reader closed the pipe (`tlab exec f.py | head`): it has all
         * it wanted, so the run stops here (the caller ends it quietly)
         * rather than computing output nobody reads */
        int e = errno;
        clearerr(g_stdout);
        tl_buf_free(&b);
        if (e == EPIPE) {
            g_stdout_closed = true;
            tl_error_set(err, TL_ERR_LIMIT, "standard output was closed by its reader");
        } else {
            tl_error_set(err, TL_ERR_LIMIT, "cannot write to standard output: %s", strerror(e));
        }
        return NULL;
    }
    tl_buf_free(&b);
    return tl_none();
}

/* the exception hierarchy, by class name */
static bool kind_under(const char *cls, int kind)
{
    if (strcmp(cls, "BaseException") == 0 || strcmp(cls, "Exception") == 0)
        return tl_error_is_python((tl_errkind)kind);
    if (strcmp(cls, "LookupError") == 0)
        return kind == TL_ERR_INDEX || kind == TL_ERR_KEY;
    if (strcmp(cls, "OSError") == 0 || strcmp(cls, "IOError") == 0 ||
        strcmp(cls, "EnvironmentError") == 0)
        return kind == TL_ERR_OS || kind == TL_ERR_FILENOTFOUND || kind == TL_ERR_IOUNSUPPORTED;
    if (strcmp(cls, "ValueError") == 0 && kind == TL_ERR_IOUNSUPPORTED)
        return true;
    if (strcmp(cls, "ArithmeticError") == 0)
        return kind == TL_ERR_ZERODIV || kind == TL_ERR_OVERFLOW;
    if (strcmp(cls, "RuntimeError") == 0)
        return kind == TL_ERR_RUNTIME || kind == TL_ERR_NOTIMPL || kind == TL_ERR_EINOPS;
    if (strcmp(cls, "TypeError") == 0 && kind == TL_ERR_UFUNCTYPE)
        return true;
    return strcmp(cls, tl_error_kind_name((tl_errkind)kind)) == 0;
}

static bool is_exc_class(const tl_value *t)
{
    return t->kind == TL_V_TYPE && t->u.type.errkind != TL_OK;
}

int tl_builtins_exc_matches(const tl_value *type, int kind, tl_error *err)
{
    if (!is_exc_class(type))
        return tl_error_set(err, TL_ERR_TYPE, "catching classes that do not inherit from "
                                              "BaseException is not allowed");
    return kind_under(type->u.type.name, kind);
}

/* RuntimeError("msg"): str(e) is the argument's str (a tuple's for more) */
static tl_value *exc_ctor(tl_value *self, const tl_args *a, tl_error *err)
{
    if (a->nkw) {
        tl_error_set(err, TL_ERR_TYPE, "%s() takes no keyword arguments", self->u.type.name);
        return NULL;
    }
    tl_buf b = {0};
    tl_buf_puts(&b, "");
    if (a->npos == 1) {
        tl_value_str(a->pos[0], &b);
    } else if (a->npos > 1) {
        tl_value *t = tl_tuple_new(a->npos);
        for (size_t i = 0; i < a->npos; i++)
            tl_seq_set(t, i, tl_value_retain(a->pos[i]));
        tl_value_repr(t, &b);
        tl_value_release(t);
    }
    if (b.len >= TL_ERRMSG_MAX)
        b.data[TL_ERRMSG_MAX - 1] = 0;
    tl_value *e = tl_value_exc(self->u.type.errkind, tl_buf_str(&b));
    tl_buf_free(&b);
    return e;
}

static const struct {
    const char *name;
    int kind;
} exc_classes[] = {
    {"BaseException", TL_ERR_EXCEPTION},  {"Exception", TL_ERR_EXCEPTION},
    {"ArithmeticError", TL_ERR_EXCEPTION}, {"LookupError", TL_ERR_EXCEPTION},
    {"RuntimeError", TL_ERR_RUNTIME},     {"IndexError", TL_ERR_INDEX},
    {"ValueError", TL_ERR_VALUE},         {"TypeError", TL_ERR_TYPE},
    {"AssertionError", TL_ERR_ASSERTION}, {"ZeroDivisionError", TL_ERR_ZERODIV},
    {"OverflowError", TL_ERR_OVERFLOW},   {"NotImplementedError", TL_ERR_NOTIMPL},
    {"ImportError", TL_ERR_IMPORT},
    {"KeyError", TL_ERR_KEY},             {"NameError", TL_ERR_NAME},
    {"AttributeError", TL_ERR_ATTRIBUTE},
    {"FileNotFoundError", TL_ERR_FILENOTFOUND}, {"OSError", TL_ERR_OS},
    {"IOError", TL_ERR_OS},               {"UnpicklingError", TL_ERR_UNPICKLING},
};

tl_value *tl_builtins_exc_type(int kind)
{
    if (kind == TL_ERR_EINOPS) /* einops.EinopsError: no builtin name */
        return tl_value_type("EinopsError", kind, TL_V_EXC, NULL);
    if (kind == TL_ERR_UFUNCTYPE) /* numpy.core._exceptions.UFuncTypeError */
        return tl_value_type("UFuncTypeError", kind, TL_V_EXC, NULL);
    for (size_t i = 0; i < TL_ARRAY_LEN(exc_classes); i++)
        if (exc_classes[i].kind == kind && kind != TL_ERR_EXCEPTION)
            return tl_value_type(exc_classes[i].name, kind, TL_V_EXC, exc_ctor);
    return tl_value_type("Exception", TL_ERR_EXCEPTION, TL_V_EXC, exc_ctor);
}

static tl_value *bi_type(tl_value *self, const tl_args *a, tl_error *err);
static tl_value *bi_isinstance(tl_value *self, const tl_args *a, tl_error *err);

/* builtin classes: calling one is the conversion builtin */
static const struct {
    const char *name;
    tl_vkind kind;
    tl_cfunc ctor;
} class_table[] = {
    {"int", TL_V_INT, bi_int},       {"float", TL_V_FLOAT, bi_float},
    {"str", TL_V_STR, bi_str},       {"bool", TL_V_BOOL, bi_bool},
    {"list", TL_V_LIST, bi_list},    {"tuple", TL_V_TUPLE, bi_tuple},
    {"dict", TL_V_DICT, tl_pydict_ctor},
};

static const char *numpy_scalar_class(tl_dtype dt);

/* an element of an ndarray (n[0, 0]): a NumPy scalar of dtype sdtype */
static bool is_numpy_scalar(const tl_value *v)
{
    return v->npdt == TL_NPDT_DTYPE &&
           (v->kind == TL_V_FLOAT || v->kind == TL_V_INT || v->kind == TL_V_BOOL);
}

/* the class of a value: type(v) */
static tl_value *class_of(const tl_value *v)
{
    if (is_numpy_scalar(v) && numpy_scalar_class(v->sdtype))
        return tl_value_type(numpy_scalar_class(v->sdtype), TL_OK, (int)v->kind, NULL);
    if (v->kind == TL_V_TUPLE && v->u.seq.rtype)
        return tl_value_type(tl_value_type_name(v), TL_OK, (int)v->kind, bi_tuple);
    for (size_t i = 0; i < TL_ARRAY_LEN(class_table); i++)
        if (class_table[i].kind == v->kind)
            return tl_value_type(class_table[i].name, TL_OK, (int)v->kind, class_table[i].ctor);
    const char *name;
    tl_cfunc ctor = NULL;
    switch (v->kind) {
    case TL_V_EXC: return tl_builtins_exc_type(v->u.exc.errkind);
    case TL_V_TENSOR: {
        name = "torch.Tensor";
        const tl_binding *b = tl_bind_find(TL_BIND_TORCH, "Tensor");
        ctor = b ? b->fn : NULL;
        break;
    }
    case TL_V_NDARRAY: name = "numpy.ndarray"; break;
    case TL_V_STORAGE: name = "torch.storage.UntypedStorage"; break;
    case TL_V_CLOSURE: name = "function"; break;
    case TL_V_NONE: name = "NoneType"; break;
    default: name = tl_value_type_name(v); break;
    }
    return tl_value_type(name, TL_OK, (int)v->kind, ctor);
}

static tl_value *bi_type(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    if (a->npos != 1 || a->nkw) {
        tl_error_set(err, a->npos == 3 ? TL_ERR_UNSUPPORTED : TL_ERR_TYPE,
                     a->npos == 3 ? "tlab does not support creating classes with type()"
                                  : "type() takes 1 or 3 arguments");
        return NULL;
    }
    return class_of(a->pos[0]);
}

static int instance_of(const tl_value *v, const tl_value *cls, tl_error *err)
{
    if (cls->kind == TL_V_TUPLE) {
        for (size_t i = 0; i < cls->u.seq.n; i++) {
            int m = instance_of(v, cls->u.seq.items[i], err);
            if (m != 0)
                return m;
        }
        return 0;
    }
    if (cls->kind == TL_V_DTYPE && cls->npdt == TL_NPDT_TYPE) /* np.float32 */
        return is_numpy_scalar(v) && v->sdtype == cls->u.dtype;
    if (cls->kind != TL_V_TYPE)
        return tl_error_set(err, TL_ERR_TYPE, "isinstance() arg 2 must be a type, a tuple of "
                                              "types, or a union");
    if (is_exc_class(cls))
        return v->kind == TL_V_EXC && kind_under(cls->u.type.name, v->u.exc.errkind);
    if (is_numpy_scalar(v)) {
        /* numpy.float32 and its kin: only numpy.float64 is a Python float
         * (numpy.int64 is no int, numpy.bool_ no bool) */
        const char *name = numpy_scalar_class(v->sdtype);
        if (name && !strcmp(cls->u.type.name, name))
            return 1;
        return cls->u.type.vkind == TL_V_FLOAT && v->sdtype == TL_FLOAT64;
    }
    int want = cls->u.type.vkind;
    if (want == (int)v->kind)
        return 1;
    if (want == TL_V_INT && v->kind == TL_V_BOOL)
        return 1; /* bool is a subclass of int */
    if (want == TL_V_TUPLE && v->kind == TL_V_SIZE)
        return 1; /* torch.Size is a tuple */
    return 0;
}

static tl_value *bi_isinstance(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    if (a->npos != 2 || a->nkw) {
        tl_error_set(err, TL_ERR_TYPE, "isinstance expected 2 arguments, got %zu", a->npos);
        return NULL;
    }
    int m = instance_of(a->pos[0], a->pos[1], err);
    return m < 0 ? NULL : tl_bool(m);
}

static const struct {
    const char *name;
    tl_cfunc fn;
} builtin_table[] = {
    {"slice", bi_slice},
    {"abs", bi_abs},       {"all", bi_all},     {"any", bi_any},
    {"bool", bi_bool},     {"enumerate", bi_enumerate},
    {"float", bi_float},   {"id", bi_id},       {"int", bi_int},
    {"len", bi_len},       {"list", bi_list},   {"max", bi_max},
    {"min", bi_min},       {"print", bi_print}, {"range", bi_range},
    {"repr", bi_repr},     {"reversed", bi_reversed},
    {"str", bi_str},       {"sum", bi_sum},     {"tuple", bi_tuple},
    {"zip", bi_zip},       {"type", bi_type},   {"isinstance", bi_isinstance},
    {"open", tl_memfs_open_builtin},
};

tl_value *tl_builtins_lookup(const char *name)
{
    for (size_t i = 0; i < TL_ARRAY_LEN(class_table); i++)
        if (strcmp(class_table[i].name, name) == 0)
            return tl_value_type(class_table[i].name, TL_OK, (int)class_table[i].kind,
                                 class_table[i].ctor);
    for (size_t i = 0; i < TL_ARRAY_LEN(exc_classes); i++)
        if (strcmp(exc_classes[i].name, name) == 0)
            return tl_value_type(exc_classes[i].name, exc_classes[i].kind, TL_V_EXC, exc_ctor);
    for (size_t i = 0; i < TL_ARRAY_LEN(builtin_table); i++)
        if (strcmp(builtin_table[i].name, name) == 0)
            return tl_value_func(builtin_table[i].name, builtin_table[i].fn, NULL);
    return NULL;
}

/* ---------------------------------------------------------------------- */
/* did you mean */

#define MAX_CANDS 2048

typedef struct cands {
    const char *v[MAX_CANDS];
    size_t n;
} cands;

static void add_bind_names(cands *c, tl_bind_kind kind)
{
    c->n += tl_bind_names(kind, c->v + c->n, MAX_CANDS - c->n);
    if (c->n > MAX_CANDS)
        c->n = MAX_CANDS;
}

static void add_names(cands *c, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n && c->n < MAX_CANDS; i++)
        c->v[c->n++] = names[i];
}

static void unsupported_name(const char *prefix, const char *name, cands *c,
                             tl_error *err)
{
    const char *s = tl_suggest(name, c->v, c->n, TL_SUGGEST_NEAR);
    if (s)
        tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab does not support %s%s (did you mean %s%s?)",
                     prefix, name, prefix, s);
    else
        tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab does not support %s%s", prefix, name);
}

/* ---------------------------------------------------------------------- */
/* torch.* extras implemented here */

static tl_value *torch_size(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_kwargs(a, "Size", err) < 0)
        return NULL;
    if (a->npos > 1) {
        tl_error_set(err, TL_ERR_TYPE, "Size expected at most 1 argument, got %zu", a->npos);
        return NULL;
    }
    if (a->npos == 0)
        return tl_size_new(0, NULL);
    tl_value **items;
    size_t n;
    if (tl_pyops_iterate(a->pos[0], &items, &n, err) < 0)
        return NULL;
    if (n > TL_MAX_DIMS) {
        tl_pyops_items_free(items, n);
        tl_error_set(err, TL_ERR_LIMIT, "torch.Size of %zu dims (tlab supports up to %d)",
                     n, TL_MAX_DIMS);
        return NULL;
    }
    int64_t sizes[TL_MAX_DIMS];
    for (size_t i = 0; i < n; i++) {
        if (!tl_value_as_index(items[i], &sizes[i]) || items[i]->kind == TL_V_FLOAT) {
            tl_error_set(err, TL_ERR_TYPE,
                         "torch.Size() takes an iterable of 'int' (item %zu is '%s')", i,
                         tl_value_type_name(items[i]));
            tl_pyops_items_free(items, n);
            return NULL;
        }
    }
    tl_pyops_items_free(items, n);
    return tl_size_new((int)n, sizes);
}

static tl_value *torch_get_default_dtype(tl_value *self, const tl_args *a, tl_error *err)
{
    if (a->npos || a->nkw) {
        tl_error_set(err, TL_ERR_TYPE, "get_default_dtype() takes no arguments");
        return NULL;
    }
    return tl_value_dtype(tl_repr_default_dtype());
}

static tl_value *torch_is_tensor(tl_value *self, const tl_args *a, tl_error *err)
{
    if (exactly_one(a, "is_tensor", err) < 0)
        return NULL;
    return tl_bool(a->pos[0]->kind == TL_V_TENSOR);
}

static tl_value *cuda_is_available(tl_value *self, const tl_args *a, tl_error *err)
{
    if (a->npos || a->nkw) {
        tl_error_set(err, TL_ERR_TYPE, "is_available() takes 0 positional arguments but %zu were given",
                     a->npos);
        return NULL;
    }
    return tl_bool(tl_context_get()->cuda_backend != NULL);
}

static tl_value *cuda_device_count(tl_value *self, const tl_args *a, tl_error *err)
{
    return tl_int(tl_context_get()->cuda_backend != NULL ? 1 : 0);
}

static tl_value *cuda_current_device(tl_value *self, const tl_args *a, tl_error *err)
{
    return tl_int(0);
}

static tl_value *cuda_synchronize(tl_value *self, const tl_args *a, tl_error *err)
{
    return tl_none();
}

/* torch.NAME(x, ...) -> x.NAME(...): self holds the binding name (str) */
static tl_value *functional(tl_value *self, const tl_args *a, tl_error *err)
{
    const char *name = self->u.str.s;
    const tl_binding *b = tl_bind_find(TL_BIND_METHOD, name);
    if (!b) {
        tl_error_set(err, TL_ERR_INTERNAL, "binding %s vanished", name);
        return NULL;
    }
    if (a->npos > 0) {
        /* torch.sum(x, 'C'): the method's named-tensor rules apply too */
        tl_args rest = {a->npos - 1, a->pos + 1, a->nkw, a->kwnames, a->kwvals};
        return tl_named_call(name, b->fn, a->pos[0], &rest, err);
    }
    for (size_t k = 0; k < a->nkw; k++) {
        if (strcmp(a->kwnames[k], "input") != 0)
            continue;
        size_t m = 0;
        const char **names = tl_xmalloc((a->nkw ? a->nkw : 1) * sizeof *names);
        tl_value **vals = tl_xmalloc((a->nkw ? a->nkw : 1) * sizeof *vals);
        for (size_t j = 0; j < a->nkw; j++)
            if (j != k) {
                names[m] = a->kwnames[j];
                vals[m++] = a->kwvals[j];
            }
        tl_args rest = {0, NULL, m, names, vals};
        tl_value *r = tl_named_call(name, b->fn, a->kwvals[k], &rest, err);
        free(names);
        free(vals);
        return r;
    }
    tl_error_set(err, TL_ERR_TYPE, "%s() missing 1 required positional arguments: \"input\"",
                 name);
    return NULL;
}

/* ---------------------------------------------------------------------- */
/* module attributes */

/* ---------------------------------------------------------------------- */
/* torch.equal, allclose, finfo, iinfo, broadcast_shapes, default dtype */

static const char *scalar_type_name(tl_dtype dt)
{
    static const char *const names[TL_NDTYPES] = {
        "Bool", "Byte", "Char", "Short", "Int", "Long", "Half", "BFloat16", "Float", "Double"};
    return (unsigned)dt < TL_NDTYPES ? names[dt] : "?";
}

static int two_tensors(const tl_args *a, const char *fname, tl_tensor **x, tl_tensor **y,
                       tl_error *err)
{
    tl_value *va = tl_arg(a, 0, "input"), *vb = tl_arg(a, 1, "other");
    if (!va || !vb || va->kind != TL_V_TENSOR || vb->kind != TL_V_TENSOR)
        return tl_error_set(err, TL_ERR_TYPE, "%s(): argument 'input' and 'other' must be "
                                              "Tensor", fname);
    *x = va->u.tensor;
    *y = vb->u.tensor;
    return 0;
}

/* out = broadcast(a, b); false on mismatch */
static bool broadcast2(const tl_tensor *a, const tl_tensor *b, int *nd, int64_t *out)
{
    int n = a->ndim > b->ndim ? a->ndim : b->ndim;
    for (int i = 0; i < n; i++) {
        int ia = a->ndim - n + i, ib = b->ndim - n + i;
        int64_t sa = ia >= 0 ? a->sizes[ia] : 1, sb = ib >= 0 ? b->sizes[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return false;
        out[i] = sa == 1 ? sb : sa;
    }
    *nd = n;
    return true;
}

/* logical linear index in t of the broadcast multi-index idx[0..n) */
static int64_t bcast_index(const tl_tensor *t, int n, const int64_t *idx)
{
    int64_t lin = 0;
    for (int d = 0; d < t->ndim; d++) {
        int64_t i = t->sizes[d] == 1 ? 0 : idx[n - t->ndim + d];
        lin = lin * t->sizes[d] + i;
    }
    return lin;
}

/* x and y where the host may read them: one transfer each from a device,
 * never one an element */
static int host_pair(const tl_tensor *x, const tl_tensor *y, tl_tensor **hx, tl_tensor **hy,
                     tl_error *err)
{
    *hx = tl_tensor_read_host(x, err);
    *hy = *hx ? tl_tensor_read_host(y, err) : NULL;
    if (*hy)
        return 0;
    tl_tensor_release(*hx);
    return -1;
}

/* torch.equal of two same-shape tensors of one dtype: both read row-major
 * into host buffers, then compared as their dtype (integers and bool
 * byte for byte, exact past 2^53; floats by value: NaN != NaN, -0 == 0) */
static tl_value *equal_same_dtype(const tl_tensor *x, const tl_tensor *y, int64_t n,
                                  tl_error *err)
{
    size_t isz = tl_dtype_size(x->dtype), nb = (size_t)n * isz;
    char *bx = malloc(nb), *by = malloc(nb);
    int r = 1;
    if (!bx || !by) {
        tl_error_set(err, TL_ERR_LIMIT, "out of memory comparing two tensors of %zu bytes", nb);
        r = -1;
    } else if (tl_tensor_read_host_bytes(x, bx, err) < 0 ||
               tl_tensor_read_host_bytes(y, by, err) < 0) {
        r = -1;
    }
    const int64_t chunk = 1 << 20; /* elements between deadline checks */
    for (int64_t i0 = 0; r == 1 && i0 < n; i0 += chunk) {
        int64_t i1 = n - i0 < chunk ? n : i0 + chunk;
        if (tl_context_deadline_check(err) < 0) {
            r = -1;
        } else if (!tl_dtype_is_floating(x->dtype)) {
            r = memcmp(bx + i0 * (int64_t)isz, by + i0 * (int64_t)isz,
                       (size_t)(i1 - i0) * isz) == 0;
        } else if (x->dtype == TL_FLOAT32) {
            const float *p = (const float *)(void *)bx, *q = (const float *)(void *)by;
            for (int64_t i = i0; i < i1 && r == 1; i++)
                r = p[i] == q[i];
        } else if (x->dtype == TL_FLOAT64) {
            const double *p = (const double *)(void *)bx, *q = (const double *)(void *)by;
            for (int64_t i = i0; i < i1 && r == 1; i++)
                r = p[i] == q[i];
        } else {
            for (int64_t i = i0; i < i1 && r == 1; i++)
                r = tl_dtype_load_f64(x->dtype, bx + i * (int64_t)isz) ==
                    tl_dtype_load_f64(x->dtype, by + i * (int64_t)isz);
        }
    }
    free(bx);
    free(by);
    return r < 0 ? NULL : tl_bool(r == 1);
}

static tl_value *torch_equal(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    tl_tensor *x, *y;
    if (two_tensors(a, "equal", &x, &y, err) < 0)
        return NULL;
    if (x->ndim != y->ndim)
        return tl_bool(false);
    for (int d = 0; d < x->ndim; d++)
        if (x->sizes[d] != y->sizes[d])
            return tl_bool(false);
    int64_t n = tl_tensor_numel(x);
    if (x->dtype == y->dtype && n > 0)
        return equal_same_dtype(x, y, n, err);
    tl_tensor *hx, *hy;
    if (host_pair(x, y, &hx, &hy, err) < 0)
        return NULL;
    int r = 1;
    for (int64_t i = 0; i < n && r == 1; i++) {
        double p, q;
        if (tl_tensor_get_f64(hx, i, &p, err) < 0 || tl_tensor_get_f64(hy, i, &q, err) < 0 ||
            tl_context_deadline_tick(i, err) < 0)
            r = -1;
        else if (!(p == q))
            r = 0;
    }
    tl_tensor_release(hx);
    tl_tensor_release(hy);
    return r < 0 ? NULL : tl_bool(r == 1);
}

static tl_value *torch_allclose(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    static const char *const kws[] = {"input", "other", "rtol", "atol", "equal_nan", NULL};
    if (tl_args_check(a, "allclose", 5, kws,
                      "(Tensor input, Tensor other, float rtol, float atol, bool equal_nan)",
                      err) < 0)
        return NULL;
    tl_tensor *x, *y;
    if (two_tensors(a, "allclose", &x, &y, err) < 0)
        return NULL;
    double rtol = 1e-05, atol = 1e-08;
    bool eqnan = false;
    tl_value *v;
    if ((v = tl_arg(a, 2, "rtol")) && !tl_value_as_double(v, &rtol)) {
        tl_error_set(err, TL_ERR_TYPE, "allclose(): argument 'rtol' must be float, not %s",
                     tl_value_type_name(v));
        return NULL;
    }
    if ((v = tl_arg(a, 3, "atol")) && !tl_value_as_double(v, &atol)) {
        tl_error_set(err, TL_ERR_TYPE, "allclose(): argument 'atol' must be float, not %s",
                     tl_value_type_name(v));
        return NULL;
    }
    if ((v = tl_arg(a, 4, "equal_nan")) && tl_to_bool(v, "equal_nan", &eqnan, err) < 0)
        return NULL;
    if (x->dtype != y->dtype) {
        tl_error_set(err, TL_ERR_RUNTIME, "%s did not match %s", scalar_type_name(y->dtype),
                     scalar_type_name(x->dtype));
        return NULL;
    }
    int nd;
    int64_t shape[TL_MAX_DIMS], idx[TL_MAX_DIMS] = {0};
    if (!broadcast2(x, y, &nd, shape)) {
        for (int d = 0; d < TL_MAX_DIMS; d++)
            idx[d] = 0;
        int64_t sa = 0, sb = 0;
        int bad = 0;
        for (int i = 0; i < (x->ndim > y->ndim ? x->ndim : y->ndim); i++) {
            int n = x->ndim > y->ndim ? x->ndim : y->ndim;
            int ia = x->ndim - n + i, ib = y->ndim - n + i;
            int64_t p = ia >= 0 ? x->sizes[ia] : 1, q = ib >= 0 ? y->sizes[ib] : 1;
            if (p != q && p != 1 && q != 1) {
                sa = p;
                sb = q;
                bad = i;
                break;
            }
        }
        tl_error_set(err, TL_ERR_RUNTIME,
                     "The size of tensor a (%" PRId64 ") must match the size of tensor b (%" PRId64
                     ") at non-singleton dimension %d", sa, sb, bad);
        return NULL;
    }
    int64_t total = 1;
    for (int d = 0; d < nd; d++)
        total *= shape[d];
    tl_tensor *hx, *hy;
    if (host_pair(x, y, &hx, &hy, err) < 0)
        return NULL;
    int r = 1;
    for (int64_t k = 0; k < total && r == 1; k++) {
        double p, q;
        if (tl_tensor_get_f64(hx, bcast_index(hx, nd, idx), &p, err) < 0 ||
            tl_tensor_get_f64(hy, bcast_index(hy, nd, idx), &q, err) < 0) {
            r = -1;
            break;
        }
        bool ok;
        if (isnan(p) || isnan(q))
            ok = eqnan && isnan(p) && isnan(q);
        else if (p == q)
            ok = true;
        else
            ok = isfinite(p) && isfinite(q) && fabs(p - q) <= atol + rtol * fabs(q);
        if (!ok)
            r = 0;
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < shape[d])
                break;
            idx[d] = 0;
        }
        if (r == 1 && tl_context_deadline_tick(k, err) < 0)
            r = -1;
    }
    tl_tensor_release(hx);
    tl_tensor_release(hy);
    return r < 0 ? NULL : tl_bool(r == 1);
}

static int dtype_arg(const tl_args *a, const char *fname, tl_dtype *dt, bool *given,
                     tl_error *err)
{
    tl_value *v = tl_arg(a, 0, "type");
    *given = v != NULL;
    if (!v)
        return 0;
    if (v->kind != TL_V_DTYPE)
        return tl_error_set(err, TL_ERR_TYPE, "%s(): argument 'type' must be torch.dtype, not %s",
                            fname, tl_value_type_name(v));
    *dt = v->u.dtype;
    return 0;
}

static tl_value *torch_finfo(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    tl_dtype dt = tl_repr_default_dtype();
    bool given;
    if (dtype_arg(a, "finfo", &dt, &given, err) < 0)
        return NULL;
    if (!tl_dtype_is_floating(dt)) {
        tl_error_set(err, TL_ERR_TYPE, "torch.finfo() requires a floating point input type. "
                                       "Use torch.iinfo to handle 'torch.finfo'");
        return NULL;
    }
    double res, mx, eps, tiny;
    switch (dt) {
    case TL_FLOAT16: res = 1e-3; mx = 65504; eps = 0.0009765625; tiny = 6.103515625e-05; break;
    case TL_BFLOAT16: res = 1e-2; mx = 3.3895313892515355e38; eps = 0.0078125;
        tiny = 1.1754943508222875e-38; break;
    case TL_FLOAT64: res = 1e-15; mx = 1.7976931348623157e308; eps = 2.220446049250313e-16;
        tiny = 2.2250738585072014e-308; break;
    default: res = 1e-06; mx = 3.4028234663852886e38; eps = 1.1920928955078125e-07;
        tiny = 1.1754943508222875e-38; break;
    }
    char buf[512];
    snprintf(buf, sizeof buf,
             "finfo(resolution=%g, min=%g, max=%g, eps=%g, smallest_normal=%g, tiny=%g, "
             "dtype=%s)", res, -mx, mx, eps, tiny, tiny, tl_dtype_name(dt));
    return tl_value_module(buf);
}

static bool iinfo_range(tl_dtype dt, int64_t *lo, int64_t *hi)
{
    switch (dt) {
    case TL_UINT8: *lo = 0; *hi = 255; return true;
    case TL_INT8: *lo = -128; *hi = 127; return true;
    case TL_INT16: *lo = -32768; *hi = 32767; return true;
    case TL_INT32: *lo = INT32_MIN; *hi = INT32_MAX; return true;
    case TL_INT64: *lo = INT64_MIN; *hi = INT64_MAX; return true;
    case TL_BOOL: *lo = 0; *hi = 1; return true;
    default: return false;
    }
}

static tl_value *torch_iinfo(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    tl_dtype dt = TL_INT64;
    bool given;
    int64_t lo, hi;
    if (dtype_arg(a, "iinfo", &dt, &given, err) < 0)
        return NULL;
    if (!given || !iinfo_range(dt, &lo, &hi) || dt == TL_BOOL) {
        tl_error_set(err, TL_ERR_TYPE, "torch.iinfo() requires an integer input type. Use "
                                       "torch.finfo to handle 'torch.iinfo'");
        return NULL;
    }
    char buf[256];
    snprintf(buf, sizeof buf, "iinfo(min=%g, max=%g, dtype=%s)", (double)lo, (double)hi,
             tl_dtype_name(dt));
    return tl_value_module(buf);
}

/* attributes of finfo(...)/iinfo(...) objects, read back from their repr */
static tl_value *info_attr(const char *repr, const char *name, tl_error *err)
{
    const char *d = strstr(repr, "dtype=");
    char dname[32] = {0};
    if (d)
        sscanf(d + 6, "%31[a-z0-9]", dname);
    tl_dtype dt;
    if (!tl_dtype_from_name(dname, &dt)) {
        tl_error_set(err, TL_ERR_INTERNAL, "bad info object");
        return NULL;
    }
    if (strcmp(name, "bits") == 0)
        return tl_int((int64_t)tl_dtype_size(dt) * 8);
    if (strcmp(name, "dtype") == 0)
        return tl_str(dname);
    if (repr[0] == 'i') {
        int64_t lo, hi;
        iinfo_range(dt, &lo, &hi);
        if (strcmp(name, "min") == 0)
            return tl_int(lo);
        if (strcmp(name, "max") == 0)
            return tl_int(hi);
    } else {
        static const struct { tl_dtype dt; double v[5]; } f[] = {
            {TL_FLOAT16, {65504, 0.0009765625, 6.103515625e-05, 1e-3, 0}},
            {TL_BFLOAT16, {3.3895313892515355e38, 0.0078125, 1.1754943508222875e-38, 1e-2, 0}},
            {TL_FLOAT32, {3.4028234663852886e38, 1.1920928955078125e-07, 1.1754943508222875e-38,
                          1e-06, 0}},
            {TL_FLOAT64, {1.7976931348623157e308, 2.220446049250313e-16,
                          2.2250738585072014e-308, 1e-15, 0}},
        };
        for (size_t i = 0; i < TL_ARRAY_LEN(f); i++) {
            if (f[i].dt != dt)
                continue;
            if (strcmp(name, "max") == 0)
                return tl_float(f[i].v[0]);
            if (strcmp(name, "min") == 0)
                return tl_float(-f[i].v[0]);
            if (strcmp(name, "eps") == 0)
                return tl_float(f[i].v[1]);
            if (strcmp(name, "tiny") == 0 || strcmp(name, "smallest_normal") == 0)
                return tl_float(f[i].v[2]);
            if (strcmp(name, "resolution") == 0)
                return tl_float(f[i].v[3]);
        }
    }
    tl_error_set(err, TL_ERR_ATTRIBUTE, "'torch.%cinfo' object has no attribute '%s'", repr[0],
                 name);
    return NULL;
}

static tl_value *torch_broadcast_shapes(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    int64_t out[TL_MAX_DIMS];
    int n = 0;
    for (size_t k = 0; k < a->npos; k++) {
        const tl_value *s = a->pos[k];
        int64_t one;
        const tl_value *const *items = NULL;
        size_t m = 0;
        tl_value *tmp = NULL;
        if (s->kind == TL_V_INT) {
            one = s->u.i;
            tmp = tl_int(one);
            items = (const tl_value *const *)&tmp;
            m = 1;
        } else if (tl_value_is_seq(s)) {
            items = (const tl_value *const *)s->u.seq.items;
            m = s->u.seq.n;
        } else {
            tl_buf b = {0};
            tl_value_repr(s, &b);
            tl_error_set(err, TL_ERR_RUNTIME, "Input shapes should be of type ints, a tuple of "
                                              "ints, or a list of ints, got %s", tl_buf_str(&b));
            tl_buf_free(&b);
            return NULL;
        }
        if (m > TL_MAX_DIMS) {
            tl_value_release(tmp);
            tl_error_set(err, TL_ERR_LIMIT, "more than %d dimensions", TL_MAX_DIMS);
            return NULL;
        }
        while ((size_t)n < m) {
            memmove(out + 1, out, (size_t)n * sizeof *out);
            out[0] = 1;
            n++;
        }
        for (size_t i = 0; i < m; i++) {
            int64_t d;
            if (!tl_value_as_index(items[m - 1 - i], &d)) {
                tl_value_release(tmp);
                tl_error_set(err, TL_ERR_TYPE, "broadcast_shapes(): shapes must hold ints");
                return NULL;
            }
            int64_t *r = &out[n - 1 - (int)i];
            if (d < 0) {
                tl_value_release(tmp);
                tl_error_set(err, TL_ERR_RUNTIME, "Trying to create tensor with negative "
                                                  "dimension (%" PRId64 "): (%" PRId64 ")", d, d);
                return NULL;
            }
            if (d == 1 || d == *r)
                continue;
            if (*r != 1) {
                tl_value_release(tmp);
                tl_error_set(err, TL_ERR_RUNTIME,
                             "Shape mismatch: objects cannot be broadcast to a single shape");
                return NULL;
            }
            *r = d;
        }
        tl_value_release(tmp);
    }
    return tl_size_new(n, out);
}

static tl_value *torch_set_default_dtype(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    tl_value *v = tl_arg(a, 0, "d");
    if (!v || v->kind != TL_V_DTYPE || a->npos + a->nkw != 1) {
        tl_error_set(err, TL_ERR_TYPE, "set_default_dtype(): argument 'd' must be torch.dtype");
        return NULL;
    }
    if (!tl_dtype_is_floating(v->u.dtype)) {
        tl_error_set(err, TL_ERR_TYPE, "only floating-point types are supported as the default "
                                       "type");
        return NULL;
    }
    tl_repr_set_default_dtype(v->u.dtype);
    return tl_none();
}

static const char *const torch_extra_names[] = {
    "float32", "float", "float64", "double", "float16", "half", "bfloat16",
    "int64", "long", "int32", "int", "int16", "short", "int8", "uint8", "bool",
    "device", "Size", "contiguous_format", "channels_last", "channels_last_3d",
    "preserve_format", "cuda", "manual_seed", "get_default_dtype", "is_tensor",
    "inf", "nan", "pi", "e", "equal", "allclose", "finfo", "iinfo", "broadcast_shapes",
    "set_default_dtype", "Tensor", "strided", "sparse_coo"};

static const struct {
    const char *name;
    tl_dtype dt;
} numpy_dtypes[] = {
    {"float32", TL_FLOAT32}, {"float64", TL_FLOAT64}, {"float16", TL_FLOAT16},
    {"int64", TL_INT64},     {"int32", TL_INT32},     {"int16", TL_INT16},
    {"int8", TL_INT8},       {"uint8", TL_UINT8},     {"bool_", TL_BOOL},
    {"double", TL_FLOAT64},  {"single", TL_FLOAT32},  {"half", TL_FLOAT16},
};

/* "numpy.float32": the class of a NumPy scalar of dtype dt (NULL: none) */
static const char *numpy_scalar_class(tl_dtype dt)
{
    switch (dt) {
    case TL_FLOAT32: return "numpy.float32";
    case TL_FLOAT64: return "numpy.float64";
    case TL_FLOAT16: return "numpy.float16";
    case TL_INT64: return "numpy.int64";
    case TL_INT32: return "numpy.int32";
    case TL_INT16: return "numpy.int16";
    case TL_INT8: return "numpy.int8";
    case TL_UINT8: return "numpy.uint8";
    case TL_BOOL: return "numpy.bool_";
    default: return NULL;
    }
}

static tl_value *math_const(const char *name)
{
    if (strcmp(name, "inf") == 0)
        return tl_float(INFINITY);
    if (strcmp(name, "nan") == 0)
        return tl_float(NAN);
    if (strcmp(name, "pi") == 0)
        return tl_float(3.141592653589793);
    if (strcmp(name, "e") == 0)
        return tl_float(2.718281828459045);
    return NULL;
}

static tl_value *torch_attr(const char *name, tl_error *err)
{
    tl_dtype dt;
    if (tl_dtype_from_name(name, &dt))
        return tl_value_dtype(dt);
    /* the factory module's bindings (torch.device, torch.manual_seed, ...)
     * take precedence over the fallbacks below */
    const tl_binding *b = tl_bind_find(TL_BIND_TORCH, name);
    if (b && strcmp(name, "Tensor") == 0)
        return tl_value_type("torch.Tensor", TL_OK, TL_V_TENSOR, b->fn);
    if (b)
        return tl_value_func(b->name, b->fn, NULL);
    if (strcmp(name, "Size") == 0)
        return tl_value_func("Size", torch_size, NULL);
    if (strcmp(name, "contiguous_format") == 0)
        return tl_value_memfmt(TL_MEMFMT_CONTIGUOUS);
    if (strcmp(name, "channels_last") == 0)
        return tl_value_memfmt(TL_MEMFMT_CHANNELS_LAST);
    if (strcmp(name, "channels_last_3d") == 0)
        return tl_value_memfmt(TL_MEMFMT_CHANNELS_LAST_3D);
    if (strcmp(name, "preserve_format") == 0)
        return tl_value_memfmt(TL_MEMFMT_PRESERVE);
    if (strcmp(name, "cuda") == 0)
        return tl_value_module("torch.cuda");
    if (strcmp(name, "strided") == 0 || strcmp(name, "sparse_coo") == 0)
        return tl_sparse_layout(strcmp(name, "sparse_coo") == 0);
    tl_value *c = math_const(name);
    if (c)
        return c;
    if (strcmp(name, "get_default_dtype") == 0)
        return tl_value_func("get_default_dtype", torch_get_default_dtype, NULL);
    if (strcmp(name, "set_default_dtype") == 0)
        return tl_value_func("set_default_dtype", torch_set_default_dtype, NULL);
    if (strcmp(name, "equal") == 0)
        return tl_value_func("equal", torch_equal, NULL);
    if (strcmp(name, "allclose") == 0)
        return tl_value_func("allclose", torch_allclose, NULL);
    if (strcmp(name, "finfo") == 0)
        return tl_value_func("finfo", torch_finfo, NULL);
    if (strcmp(name, "iinfo") == 0)
        return tl_value_func("iinfo", torch_iinfo, NULL);
    if (strcmp(name, "broadcast_shapes") == 0)
        return tl_value_func("broadcast_shapes", torch_broadcast_shapes, NULL);
    if (strcmp(name, "is_tensor") == 0)
        return tl_value_func("is_tensor", torch_is_tensor, NULL);
    b = tl_bind_find(TL_BIND_METHOD, name);
    if (b) {
        tl_value *holder = tl_str(b->name);
        tl_value *f = tl_value_func(b->name, functional, holder);
        tl_value_release(holder);
        return f;
    }
    cands *c2 = tl_xmalloc(sizeof *c2);
    c2->n = 0;
    add_bind_names(c2, TL_BIND_TORCH);
    add_bind_names(c2, TL_BIND_METHOD);
    add_names(c2, torch_extra_names, TL_ARRAY_LEN(torch_extra_names));
    unsupported_name("torch.", name, c2, err);
    free(c2);
    return NULL;
}

static tl_value *numpy_attr(const char *name, tl_error *err)
{
    for (size_t i = 0; i < TL_ARRAY_LEN(numpy_dtypes); i++)
        if (strcmp(numpy_dtypes[i].name, name) == 0)
            return tl_value_np_dtype(numpy_dtypes[i].dt, TL_NPDT_TYPE);
    tl_value *c = math_const(name);
    if (c)
        return c;
    const tl_binding *b = tl_bind_find(TL_BIND_NUMPY, name);
    if (b)
        return tl_value_func(b->name, b->fn, NULL);
    cands *c2 = tl_xmalloc(sizeof *c2);
    c2->n = 0;
    add_bind_names(c2, TL_BIND_NUMPY);
    for (size_t i = 0; i < TL_ARRAY_LEN(numpy_dtypes) && c2->n < MAX_CANDS; i++)
        c2->v[c2->n++] = numpy_dtypes[i].name;
    unsupported_name("np.", name, c2, err);
    free(c2);
    return NULL;
}

static tl_value *cuda_attr(const char *name, tl_error *err)
{
    static const char *const names[] = {"is_available", "device_count", "current_device",
                                        "synchronize", "empty_cache"};
    if (strcmp(name, "is_available") == 0)
        return tl_value_func("is_available", cuda_is_available, NULL);
    if (strcmp(name, "device_count") == 0)
        return tl_value_func("device_count", cuda_device_count, NULL);
    if (strcmp(name, "current_device") == 0)
        return tl_value_func("current_device", cuda_current_device, NULL);
    if (strcmp(name, "synchronize") == 0)
        return tl_value_func("synchronize", cuda_synchronize, NULL);
    if (strcmp(name, "empty_cache") == 0)
        return tl_value_func("empty_cache", cuda_synchronize, NULL);
    cands c = {{0}, 0};
    add_names(&c, names, TL_ARRAY_LEN(names));
    unsupported_name("torch.cuda.", name, &c, err);
    return NULL;
}

tl_value *tl_builtins_module_attr(tl_value *mod, const char *name, tl_error *err)
{
    const char *m = mod->u.str.s;
    if (strncmp(m, "finfo(", 6) == 0 || strncmp(m, "iinfo(", 6) == 0)
        return info_attr(m, name, err);
    if (strcmp(m, "torch") == 0)
        return torch_attr(name, err);
    if (strcmp(m, "numpy") == 0)
        return numpy_attr(name, err);
    if (strcmp(m, "einops") == 0)
        return tl_einops_attr(name, err);
    if (strcmp(m, "torch.cuda") == 0)
        return cuda_attr(name, err);
    if (strcmp(m, "os") == 0 || strcmp(m, "os.path") == 0)
        return tl_memfs_module_attr(m, name, err);
    if (strcmp(m, "h5py") == 0)
        return tl_h5py_module_attr(name, err);
    tl_error_set(err, TL_ERR_ATTRIBUTE, "module '%s' has no attribute '%s'", m, name);
    return NULL;
}

static tl_value *st_tolist(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_value **items;
    size_t n;
    if (tl_pyops_iterate(self, &items, &n, err) < 0)
        return NULL;
    tl_value *r = tl_list_new(0);
    for (size_t i = 0; i < n; i++)
        tl_list_append(r, items[i]);
    free(items);
    return r;
}

static tl_value *storage_attr(tl_value *obj, const char *name, tl_error *err)
{
    static const struct {
        const char *name;
        tl_cfunc fn;
    } m[] = {{"tolist", st_tolist}}; /* the rest: create.c */
    for (size_t i = 0; i < TL_ARRAY_LEN(m); i++)
        if (strcmp(m[i].name, name) == 0)
            return tl_value_func(m[i].name, m[i].fn, obj);
    return tl_convert_storage_attr(obj, name, err);
}

/* ---------------------------------------------------------------------- */
/* tuple / list / Size methods */

static tl_value *seq_count(tl_value *self, const tl_args *a, tl_error *err)
{
    if (exactly_one(a, "count", err) < 0)
        return NULL;
    int64_t c = 0;
    for (size_t i = 0; i < self->u.seq.n; i++)
        if (tl_value_equal(self->u.seq.items[i], a->pos[0]))
            c++;
    return tl_int(c);
}

static tl_value *seq_index(tl_value *self, const tl_args *a, tl_error *err)
{
    if (exactly_one(a, "index", err) < 0)
        return NULL;
    for (size_t i = 0; i < self->u.seq.n; i++)
        if (tl_value_equal(self->u.seq.items[i], a->pos[0]))
            return tl_int((int64_t)i);
    if (self->kind == TL_V_LIST) {
        tl_buf b = {0};
        tl_value_repr(a->pos[0], &b);
        tl_error_set(err, TL_ERR_VALUE, "%s is not in list", tl_buf_str(&b));
        tl_buf_free(&b);
    } else {
        tl_error_set(err, TL_ERR_VALUE, "tuple.index(x): x not in tuple");
    }
    return NULL;
}

static tl_value *size_numel(tl_value *self, const tl_args *a, tl_error *err)
{
    int64_t n = 1;
    for (size_t i = 0; i < self->u.seq.n; i++) {
        int64_t d = 0;
        tl_value_as_index(self->u.seq.items[i], &d);
        if (tl_mul_overflow(n, d, &n)) {
            tl_error_set(err, TL_ERR_OVERFLOW, "integer overflow (tlab integers are 64-bit)");
            return NULL;
        }
    }
    return tl_int(n);
}

/* self about to grow by n: its new length within the longest sequence,
 * the n new elements on the call's budget (and the memory ledger) */
static int list_grow_check(const tl_value *self, size_t n, tl_error *err)
{
    int64_t max = tl_pyops_max_seq();
    if (n > (uint64_t)max || self->u.seq.n > (uint64_t)max - n)
        return tl_error_set(err, TL_ERR_LIMIT,
                            "sequence of %zu elements is longer than the limit (%" PRId64 ")",
                            self->u.seq.n + n, max);
    return tl_pyops_charge_seq(n, err);
}

static tl_value *list_append(tl_value *self, const tl_args *a, tl_error *err)
{
    if (exactly_one(a, "append", err) < 0)
        return NULL;
    /* the new length against the longest sequence; the one new element
     * against the call's budget (charging the whole length made n appends
     * cost n^2 / 2: 9,000 appends spent the 4 * 10^7 budget) */
    if (list_grow_check(self, 1, err) < 0)
        return NULL;
    tl_list_append(self, tl_value_retain(a->pos[0]));
    return tl_none();
}

static tl_value *list_extend(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_value **items;
    size_t n;
    if (one_iterable(a, "extend", &items, &n, err) < 0)
        return NULL;
    if (list_grow_check(self, n, err) < 0) {
        tl_pyops_items_free(items, n);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        tl_list_append(self, items[i]);
    free(items);
    return tl_none();
}

static tl_value *list_pop(tl_value *self, const tl_args *a, tl_error *err)
{
    if (no_kwargs(a, "pop", err) < 0)
        return NULL;
    int64_t i = -1, n = (int64_t)self->u.seq.n;
    if (a->npos > 1) {
        tl_error_set(err, TL_ERR_TYPE, "pop expected at most 1 argument, got %zu", a->npos);
        return NULL;
    }
    if (a->npos == 1 && index_arg(a->pos[0], &i, err) < 0)
        return NULL;
    if (n == 0) {
        tl_error_set(err, TL_ERR_INDEX, "pop from empty list");
        return NULL;
    }
    if (i < 0)
        i += n;
    if (i < 0 || i >= n) {
        tl_error_set(err, TL_ERR_INDEX, "pop index out of range");
        return NULL;
    }
    tl_value *r = self->u.seq.items[i];
    memmove(self->u.seq.items + i, self->u.seq.items + i + 1,
            (size_t)(n - i - 1) * sizeof(tl_value *));
    self->u.seq.n--;
    return r;
}

static tl_value *seq_attr(tl_value *obj, const char *name, tl_error *err)
{
    if (strcmp(name, "count") == 0)
        return tl_value_func("count", seq_count, obj);
    if (strcmp(name, "index") == 0)
        return tl_value_func("index", seq_index, obj);
    if (obj->kind == TL_V_SIZE && strcmp(name, "numel") == 0)
        return tl_value_func("numel", size_numel, obj);
    if (obj->kind == TL_V_TUPLE && obj->u.seq.rtype && obj->u.seq.n == 2) {
        if (strcmp(name, "values") == 0)
            return tl_value_retain(obj->u.seq.items[0]);
        if (strcmp(name, "indices") == 0)
            return tl_value_retain(obj->u.seq.items[1]);
    }
    if (obj->kind == TL_V_LIST) {
        if (strcmp(name, "append") == 0)
            return tl_value_func("append", list_append, obj);
        if (strcmp(name, "extend") == 0)
            return tl_value_func("extend", list_extend, obj);
        if (strcmp(name, "pop") == 0)
            return tl_value_func("pop", list_pop, obj);
    }
    tl_error_set(err, TL_ERR_ATTRIBUTE, "'%s' object has no attribute '%s'",
                 obj->kind == TL_V_SIZE ? "torch.Size" : tl_value_type_name(obj), name);
    return NULL;
}

/* ---------------------------------------------------------------------- */
/* attribute dispatch */

static tl_value *tensor_attr(tl_value *obj, const char *name, tl_error *err)
{
    const tl_binding *b = tl_bind_find(TL_BIND_ATTR, name);
    if (b) {
        tl_args empty = {0, NULL, 0, NULL, NULL};
        return tl_named_call(b->name, b->fn, obj, &empty, err); /* x.T of a named x */
    }
    b = tl_bind_find(TL_BIND_METHOD, name);
    if (b)
        return tl_value_func(b->name, b->fn, obj);
    cands *c = tl_xmalloc(sizeof *c);
    c->n = 0;
    add_bind_names(c, TL_BIND_ATTR);
    add_bind_names(c, TL_BIND_METHOD);
    unsupported_name("Tensor.", name, c, err);
    free(c);
    return NULL;
}

/* A memo is the binding's address with the low bits saying how it
 * applies (bindings are pointer-aligned). */
enum { MEMO_ATTR = 1, MEMO_METHOD = 2, MEMO_HOW = 3 };

tl_value *tl_builtins_attr_memo(tl_value *obj, const char *name, uintptr_t *memo,
                                tl_error *err)
{
    if (obj->kind != TL_V_TENSOR)
        return tl_builtins_attr(obj, name, err);
    uintptr_t m = __atomic_load_n(memo, __ATOMIC_RELAXED);
    if (!m) {
        const tl_binding *b = tl_bind_find(TL_BIND_ATTR, name);
        if (b)
            m = (uintptr_t)b | MEMO_ATTR;
        else if ((b = tl_bind_find(TL_BIND_METHOD, name)))
            m = (uintptr_t)b | MEMO_METHOD;
        else
            return tensor_attr(obj, name, err); /* the error */
        _Static_assert(_Alignof(tl_binding) > MEMO_HOW, "memo tag bits");
        __atomic_store_n(memo, m, __ATOMIC_RELAXED);
    }
    const tl_binding *b = (const tl_binding *)(m & ~(uintptr_t)MEMO_HOW);
    if (m & MEMO_ATTR) {
        tl_args empty = {0, NULL, 0, NULL, NULL};
        return tl_named_call(b->name, b->fn, obj, &empty, err);
    }
    return tl_value_func(b->name, b->fn, obj);
}

static tl_value *ndarray_attr(tl_value *obj, const char *name, tl_error *err)
{
    const tl_binding *b = tl_bind_find(TL_BIND_NDARRAY, name);
    if (b) {
        if (b->is_attr) {
            tl_args empty = {0, NULL, 0, NULL, NULL};
            return b->fn(obj, &empty, err);
        }
        return tl_value_func(b->name, b->fn, obj);
    }
    cands *c = tl_xmalloc(sizeof *c);
    c->n = 0;
    add_bind_names(c, TL_BIND_NDARRAY);
    unsupported_name("ndarray.", name, c, err);
    free(c);
    return NULL;
}

tl_value *tl_builtins_attr(tl_value *obj, const char *name, tl_error *err)
{
    if (tl_bind_grad_owns(obj)) /* grad_fn nodes, torch.no_grad() */
        return tl_bind_grad_attr(obj, name, err);
    tl_value *nps = tl_bind_numpy_scalar_attr(obj, name);
    if (nps)
        return nps;
    switch (obj->kind) {
    case TL_V_TENSOR:
        return tensor_attr(obj, name, err);
    case TL_V_NDARRAY:
        return ndarray_attr(obj, name, err);
    case TL_V_STORAGE:
        return storage_attr(obj, name, err);
    case TL_V_MODULE:
        return tl_builtins_module_attr(obj, name, err);
    case TL_V_DICT:
        return tl_pydict_attr(obj, name, err);
    case TL_V_STR: {
        tl_value *m = tl_strmethods_attr(obj, name);
        if (m)
            return m;
        break;
    }
    case TL_V_OBJECT:
        return obj->u.obj.cls->attr(obj, name, err);
    case TL_V_TYPE:
        if (strcmp(name, "__name__") == 0 || strcmp(name, "__qualname__") == 0) {
            const char *dot = strrchr(obj->u.type.name, '.');
            return tl_str(dot ? dot + 1 : obj->u.type.name);
        }
        if (strcmp(name, "__module__") == 0) {
            const char *dot = strrchr(obj->u.type.name, '.');
            if (!dot)
                return tl_str("builtins");
            return tl_strn(obj->u.type.name, (size_t)(dot - obj->u.type.name));
        }
        break;
    case TL_V_EXC:
        if (strcmp(name, "args") == 0) {
            tl_value *t = tl_tuple_new(obj->u.exc.msg[0] ? 1 : 0);
            if (obj->u.exc.msg[0])
                tl_seq_set(t, 0, tl_str(obj->u.exc.msg));
            return t;
        }
        if (strcmp(name, "__class__") == 0)
            return tl_builtins_exc_type(obj->u.exc.errkind);
        break;
    case TL_V_CLOSURE:
        if (strcmp(name, "__name__") == 0 || strcmp(name, "__qualname__") == 0)
            return tl_str(obj->u.closure.name);
        break;
    case TL_V_TUPLE:
    case TL_V_LIST:
    case TL_V_SIZE:
        return seq_attr(obj, name, err);
    case TL_V_DTYPE: {
        tl_dtype dt = obj->u.dtype;
        if (obj->npdt == TL_NPDT_DTYPE) { /* NumPy's dtype attributes */
            if (strcmp(name, "itemsize") == 0)
                return tl_int((int64_t)tl_dtype_size(dt));
            if (strcmp(name, "name") == 0)
                return tl_str(tl_dtype_name(dt));
            if (strcmp(name, "kind") == 0)
                return tl_str(dt == TL_BOOL ? "b" : dt == TL_UINT8 ? "u"
                              : tl_dtype_is_floating(dt) ? "f" : "i");
            break;
        }
        if (obj->npdt == TL_NPDT_TYPE)
            break;
        if (strcmp(name, "is_floating_point") == 0)
            return tl_bool(tl_dtype_is_floating(dt));
        if (strcmp(name, "is_complex") == 0)
            return tl_bool(false);
        if (strcmp(name, "is_signed") == 0)
            return tl_bool(dt != TL_BOOL && dt != TL_UINT8);
        if (strcmp(name, "itemsize") == 0)
            return tl_int((int64_t)tl_dtype_size(dt));
        break;
    }
    case TL_V_DEVICE:
        if (strcmp(name, "type") == 0)
            return tl_str(obj->u.device.kind == TL_DEV_CPU ? "cpu" : "cuda");
        if (strcmp(name, "index") == 0)
            return obj->u.device.kind == TL_DEV_CPU ? tl_none()
                                                    : tl_int(obj->u.device.index);
        break;
    case TL_V_SLICE:
        if (strcmp(name, "start") == 0)
            return tl_value_retain(obj->u.slice.start);
        if (strcmp(name, "stop") == 0)
            return tl_value_retain(obj->u.slice.stop);
        if (strcmp(name, "step") == 0)
            return tl_value_retain(obj->u.slice.step);
        break;
    default:
        break;
    }
    tl_error_set(err, TL_ERR_ATTRIBUTE, "'%s' object has no attribute '%s'",
                 tl_value_type_name(obj), name);
    return NULL;
}
