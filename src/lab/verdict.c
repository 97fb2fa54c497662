/* verdict.c - classifying what an op did (SPEC 4).
 *
 * Order of the pointer verdict: same tl_tensor object -> alias; same memory
 * (tl_storage_same: base pointers, zero-byte storages by identity) -> view;
 * else copy. Non-tensor results are `value`; a tuple/list holding tensors
 * is classified element by element (`mixed` when the elements disagree).
 *
 * The write-through probe is an independent check of that verdict: flip one
 * bit of the result's element 0, compare the parent's element bytes before
 * and after, then restore the element and both version counters. A view
 * whose element 0 lies outside the parent's visible elements (as_strided
 * over a larger storage, a slice of the base outside the parent's window)
 * leaves the parent's elements alone; then the parent's whole storage is
 * compared instead. A view/alias that changes neither, or a copy that
 * changes the parent, is a bug: TL_ERR_INTERNAL (exit 3), never graded.
 *
 * Every run (the op and each `sometimes` variant) starts from a fresh
 * interpreter and runs setup afresh, so ops never see each other's writes.
 */
#include "verdict.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "storage.h"
#include "tensor.h"
#include "util.h"

/* ------------------------------------------------------------ evidence */

void tl_evidence_free(tl_evidence *ev)
{
    if (!ev)
        return;
    free(ev->shape);
    free(ev->stride);
    free(ev->err_type);
    free(ev->err_msg);
    free(ev->err_where);
    if (ev->value)
        cJSON_Delete(ev->value);
    free(ev->value_type);
    for (size_t i = 0; i < ev->nitems; i++)
        tl_evidence_free(&ev->items[i]);
    free(ev->items);
    free(ev->reason);
    memset(ev, 0, sizeof *ev);
}

char *tl_evidence_signature(const tl_evidence *ev)
{
    tl_buf b = {0};
    if (ev->is_tuple) {
        tl_buf_putc(&b, '(');
        for (size_t i = 0; i < ev->nitems; i++)
            tl_buf_printf(&b, "%s%s", i ? "," : "", tl_kind_name(ev->items[i].kind));
        tl_buf_printf(&b, ")%zu", ev->nitems_total);
    } else {
        tl_buf_puts(&b, tl_kind_name(ev->kind));
    }
    return tl_buf_steal(&b);
}

void tl_op_verdict_free(tl_op_verdict *v)
{
    if (!v)
        return;
    tl_evidence_free(&v->ev);
    free(v->parent_shape);
    free(v->parent_stride);
    for (size_t i = 0; i < v->nvariants; i++)
        free(v->variants[i].signature);
    if (v->result)
        tl_value_release(v->result);
    if (v->parent)
        tl_value_release(v->parent);
    memset(v, 0, sizeof *v);
}

void tl_verdict_fail_free(tl_verdict_fail *f)
{
    if (f) {
        free(f->rendered);
        f->rendered = NULL;
    }
}

/* ---------------------------------------------------------- value JSON */

static cJSON *json_number(double d)
{
    if (isnan(d))
        return cJSON_CreateString("nan");
    if (isinf(d))
        return cJSON_CreateString(d > 0 ? "inf" : "-inf");
    return cJSON_CreateNumber(d);
}

/* A value's JSON is bounded in nodes and text: the evidence of up to 1000
 * ops is held at once, and a list of 10^4 references to one list of 10^4
 * items is cheap to build but has 10^8 elements to print. A value past the
 * budget becomes one summary string. */
#define JSON_MAX_NODES 4096
#define JSON_MAX_TEXT ((size_t)64 << 10)

typedef struct jbudget {
    size_t nodes, text;
    bool over;
} jbudget;

static bool charge_text(jbudget *bud, size_t n)
{
    if (n > JSON_MAX_TEXT - bud->text) {
        bud->over = true;
        return false;
    }
    bud->text += n;
    return true;
}

/* NULL when over budget (bud->over) */
static cJSON *to_json_depth(const tl_value *v, int depth, jbudget *bud)
{
    if (++bud->nodes > JSON_MAX_NODES) {
        bud->over = true;
        return NULL;
    }
    switch (v->kind) {
    case TL_V_NONE: return cJSON_CreateNull();
    case TL_V_BOOL: return cJSON_CreateBool(v->u.b);
    case TL_V_INT: return json_number((double)v->u.i);
    case TL_V_FLOAT: return json_number(v->u.f);
    case TL_V_STR:
        if (!charge_text(bud, v->u.str.len))
            return NULL;
        return cJSON_CreateString(v->u.str.s);
    case TL_V_TUPLE:
    case TL_V_LIST:
    case TL_V_SIZE:
        if (depth < 64) {
            cJSON *a = cJSON_CreateArray();
            for (size_t i = 0; a && i < v->u.seq.n; i++) {
                cJSON *it = to_json_depth(v->u.seq.items[i], depth + 1, bud);
                if (!it) {
                    cJSON_Delete(a);
                    return NULL;
                }
                cJSON_AddItemToArray(a, it);
            }
            return a;
        }
        break;
    case TL_V_DTYPE: {
        char buf[64];
        snprintf(buf, sizeof buf, "torch.%s", tl_dtype_name(v->u.dtype));
        return cJSON_CreateString(buf);
    }
    default:
        break;
    }
    tl_buf b = {0};
    bool whole = tl_value_repr_bounded(v, &b, JSON_MAX_TEXT - bud->text);
    cJSON *s = whole && charge_text(bud, b.len) ? cJSON_CreateString(tl_buf_str(&b)) : NULL;
    if (!whole)
        bud->over = true;
    tl_buf_free(&b);
    return s;
}

cJSON *tl_value_to_json(const tl_value *v)
{
    jbudget bud = {0};
    cJSON *j = to_json_depth(v, 0, &bud);
    if (j || !bud.over)
        return j;
    char buf[128];
    if (tl_value_is_seq(v))
        snprintf(buf, sizeof buf, "<%s of length %zu: too large to show>",
                 tl_value_type_name(v), v->u.seq.n);
    else if (v->kind == TL_V_STR)
        snprintf(buf, sizeof buf, "<str of %zu characters: too large to show>",
                 v->u.str.len);
    else
        snprintf(buf, sizeof buf, "<%s: too large to show>", tl_value_type_name(v));
    return cJSON_CreateString(buf);
}

/* -------------------------------------------------------- element bytes */

/* All elements of t in row-major order (raw bytes) into *out (malloc'd).
 * Returns 0, 1 when too large to probe, -1 on error. */
static int read_elems(const tl_tensor *t, unsigned char **out, size_t *outlen,
                      tl_error *err)
{
    *out = NULL;
    *outlen = 0;
    int64_t n = tl_tensor_numel(t);
    if (n <= 0)
        return 0;
    size_t isz = tl_dtype_size(t->dtype);
    int64_t lo = t->offset, hi = t->offset;
    for (int d = 0; d < t->ndim; d++) {
        int64_t ext = (t->sizes[d] - 1) * t->strides[d];
        if (ext < 0)
            lo += ext;
        else
            hi += ext;
    }
    if ((uint64_t)n * isz > TL_PROBE_MAX_BYTES ||
        (uint64_t)(hi - lo + 1) * isz > TL_PROBE_MAX_BYTES)
        return 1;
    if (lo < 0 || (uint64_t)(hi + 1) * isz > t->storage->nbytes)
        return tl_error_set(err, TL_ERR_INTERNAL,
                            "tensor elements [%" PRId64 ", %" PRId64 "] lie outside "
                            "its storage of %zu bytes", lo, hi, t->storage->nbytes);
    size_t span = (size_t)(hi - lo + 1) * isz;
    unsigned char *tmp = tl_xmalloc(span);
    const tl_backend *be = tl_tensor_backend(t);
    if (tl_backend_to_host(be, tmp, (char *)t->storage->data + (size_t)lo * isz, span, err) < 0) {
        free(tmp);
        return -1;
    }
    unsigned char *dst = tl_xmalloc((size_t)n * isz);
    int64_t idx[TL_MAX_DIMS] = {0};
    for (int64_t i = 0; i < n; i++) {
        int64_t e = t->offset - lo;
        for (int d = 0; d < t->ndim; d++)
            e += idx[d] * t->strides[d];
        memcpy(dst + (size_t)i * isz, tmp + (size_t)e * isz, isz);
        for (int d = t->ndim - 1; d >= 0; d--) {
            if (++idx[d] < t->sizes[d])
                break;
            idx[d] = 0;
        }
    }
    free(tmp);
    *out = dst;
    *outlen = (size_t)n * isz;
    return 0;
}

static int read_storage(const tl_storage *s, unsigned char **out, size_t *len,
                        tl_error *err)
{
    *out = NULL;
    *len = 0;
    if (s->nbytes == 0 || !s->data)
        return 0;
    if (s->nbytes > TL_PROBE_MAX_BYTES)
        return 1;
    unsigned char *buf = tl_xmalloc(s->nbytes);
    if (tl_backend_to_host(s->backend, buf, s->data, s->nbytes, err) < 0) {
        free(buf);
        return -1;
    }
    *out = buf;
    *len = s->nbytes;
    return 0;
}

static bool bytes_differ(const unsigned char *a, size_t la, const unsigned char *b,
                         size_t lb)
{
    return la != lb || (la && memcmp(a, b, la) != 0);
}

/* The probe. Sets *through (1/0, -1 when not applicable or too large). */
static int probe(tl_tensor *r, tl_tensor *p, tl_kind kind, int *through, tl_error *err)
{
    *through = -1;
    if (tl_tensor_numel(r) <= 0)
        return 0;
    size_t isz = tl_dtype_size(r->dtype);
    unsigned char old0[16], sent[16];
    int64_t ver_r = r->version->value, ver_p = p->version->value;
    if (tl_tensor_get_raw(r, 0, old0, err) < 0)
        return -1;
    memcpy(sent, old0, isz);
    sent[0] ^= 1;
    unsigned char *before = NULL, *after = NULL, *restored = NULL;
    size_t lb = 0, la = 0, lr = 0;
    int rc = read_elems(p, &before, &lb, err);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    int status = -1;
    if (tl_tensor_set_raw(r, 0, sent, err) < 0)
        goto out;
    rc = read_elems(p, &after, &la, err);
    if (tl_tensor_set_raw(r, 0, old0, err) < 0 || rc < 0)
        goto out;
    if (read_elems(p, &restored, &lr, err) < 0)
        goto out;
    if (bytes_differ(before, lb, restored, lr)) {
        tl_error_set(err, TL_ERR_INTERNAL,
                     "write-through probe could not restore the parent");
        goto out;
    }
    bool changed = bytes_differ(before, lb, after, la);
    if (changed && kind == TL_KIND_COPY) {
        tl_error_set(err, TL_ERR_INTERNAL,
                     "write-through probe disagrees with the pointer verdict: the "
                     "result has its own storage but writing it changed the parent");
        goto out;
    }
    if (!changed && (kind == TL_KIND_VIEW || kind == TL_KIND_ALIAS)) {
        /* element 0 may lie outside the parent's visible elements: the
         * write must then show in the shared storage itself */
        unsigned char *sb = NULL, *sa = NULL;
        size_t lsb = 0, lsa = 0;
        rc = read_storage(p->storage, &sb, &lsb, err);
        if (rc < 0)
            goto out;
        if (rc == 0) {
            if (tl_tensor_set_raw(r, 0, sent, err) < 0) {
                free(sb);
                goto out;
            }
            int rc2 = read_storage(p->storage, &sa, &lsa, err);
            if (tl_tensor_set_raw(r, 0, old0, err) < 0 || rc2 < 0) {
                free(sb);
                free(sa);
                goto out;
            }
            bool schanged = bytes_differ(sb, lsb, sa, lsa);
            free(sb);
            free(sa);
            if (!schanged) {
                tl_error_set(err, TL_ERR_INTERNAL,
                             "write-through probe disagrees with the pointer verdict: "
                             "the result is a %s of the parent but writing it changed "
                             "neither the parent nor its storage", tl_kind_name(kind));
                goto out;
            }
        }
    }
    *through = changed ? 1 : 0;
    status = 0;
out:
    r->version->value = ver_r;
    p->version->value = ver_p;
    free(before);
    free(after);
    free(restored);
    return status;
}

/* ------------------------------------------------------------ classify */

static void fill_meta(const tl_tensor *t, tl_evidence *ev)
{
    ev->is_tensor = true;
    ev->ndim = t->ndim;
    ev->shape = tl_xcalloc((size_t)t->ndim + 1, sizeof *ev->shape);
    ev->stride = tl_xcalloc((size_t)t->ndim + 1, sizeof *ev->stride);
    memcpy(ev->shape, t->sizes, (size_t)t->ndim * sizeof *ev->shape);
    memcpy(ev->stride, t->strides, (size_t)t->ndim * sizeof *ev->stride);
    ev->offset = t->offset;
    ev->contiguous = tl_tensor_is_contiguous(t);
    ev->dtype = t->dtype;
    tl_device dev = tl_tensor_device(t);
    if (dev.kind == TL_DEV_CUDA)
        snprintf(ev->device, sizeof ev->device, "cuda:%d", dev.index);
    else
        snprintf(ev->device, sizeof ev->device, "cpu");
}

static int classify_tensor(tl_tensor *r, tl_tensor *p, tl_evidence *ev, tl_error *err)
{
    fill_meta(r, ev);
    ev->write_through = -1;
    if (!p) {
        ev->kind = TL_KIND_COPY;
        return 0;
    }
    ev->same_object = r == p;
    ev->shares_storage = tl_storage_same(r->storage, p->storage);
    ev->kind = ev->same_object ? TL_KIND_ALIAS
               : ev->shares_storage ? TL_KIND_VIEW
                                    : TL_KIND_COPY;
    return probe(r, p, ev->kind, &ev->write_through, err);
}

int tl_verdict_classify(tl_value *result, tl_value *parent, tl_evidence *ev,
                        tl_error *err)
{
    memset(ev, 0, sizeof *ev);
    ev->write_through = -1;
    tl_tensor *p = parent && tl_value_is_tensorlike(parent) ? parent->u.tensor : NULL;
    if (tl_value_is_tensorlike(result))
        return classify_tensor(result->u.tensor, p, ev, err);
    bool tuple = false;
    if ((result->kind == TL_V_TUPLE || result->kind == TL_V_LIST) && result->u.seq.n > 0)
        for (size_t i = 0; i < result->u.seq.n; i++)
            if (tl_value_is_tensorlike(result->u.seq.items[i]))
                tuple = true;
    if (!tuple) {
        ev->kind = TL_KIND_VALUE;
        ev->value = tl_value_to_json(result);
        ev->value_type = tl_xstrdup(tl_value_type_name(result));
        return 0;
    }
    ev->is_tuple = true;
    ev->value_type = tl_xstrdup(tl_value_type_name(result));
    size_t n = result->u.seq.n;
    ev->nitems_total = n;
    ev->nitems = n < TL_VERDICT_MAX_ITEMS ? n : TL_VERDICT_MAX_ITEMS;
    ev->items = tl_xcalloc(ev->nitems, sizeof *ev->items);
    tl_kind common = TL_KIND_NONE;
    bool mixed = false;
    for (size_t i = 0; i < n; i++) {
        tl_evidence tmp, *it = i < ev->nitems ? &ev->items[i] : &tmp;
        if (tl_verdict_classify(result->u.seq.items[i], parent, it, err) < 0) {
            if (it == &tmp)
                tl_evidence_free(&tmp);
            return -1;
        }
        if (i == 0)
            common = it->kind;
        else if (it->kind != common)
            mixed = true;
        ev->shares_storage |= it->shares_storage;
        if (it->write_through == 1)
            ev->write_through = 1;
        else if (it->write_through == 0 && ev->write_through < 0)
            ev->write_through = 0;
        if (it == &tmp)
            tl_evidence_free(&tmp);
    }
    ev->kind = mixed ? TL_KIND_MIXED : common;
    return 0;
}

void tl_verdict_from_error(const tl_error *err, const char *where, tl_evidence *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->kind = TL_KIND_ERROR;
    ev->write_through = -1;
    ev->err_type = tl_xstrdup(tl_error_kind_name(err->kind));
    ev->err_msg = tl_xstrdup(err->msg);
    if (where)
        ev->err_where = tl_xstrdup(where);
}

/* ------------------------------------------------------------- variants */

enum { VAR_NONCONTIG, VAR_DTYPE, VAR_DEVICE, VAR_COUNT };

/* One parent variant; NULL with *name NULL when it does not exist. */
static tl_tensor *make_variant(tl_tensor *p, int which, const tl_backend *other,
                               const char **name, tl_error *err)
{
    const tl_backend *be = tl_tensor_backend(p);
    tl_tensor *t = NULL;
    *name = NULL;
    switch (which) {
    case VAR_NONCONTIG: {
        *name = "non-contiguous";
        if (p->ndim >= 2) {
            int64_t st[TL_MAX_DIMS];
            int64_t acc = 1;
            for (int d = 0; d < p->ndim; d++) {
                st[d] = acc;
                acc *= p->sizes[d] > 1 ? p->sizes[d] : 1;
            }
            t = tl_tensor_new_strided(be, p->dtype, p->ndim, p->sizes, st, err);
        } else {
            int64_t n = tl_tensor_numel(p);
            int64_t len = 2 * (n > 0 ? n : (p->ndim == 0 ? 1 : 0));
            tl_tensor *buf = tl_tensor_new(be, p->dtype, 1, &len, err);
            if (!buf)
                return NULL;
            int64_t st = 2;
            t = tl_tensor_view(buf, p->ndim, p->sizes, &st, 0);
            tl_tensor_release(buf);
        }
        if (t && tl_ops_copy_(t, p, err) < 0) {
            tl_tensor_release(t);
            return NULL;
        }
        break;
    }
    case VAR_DTYPE: {
        tl_dtype dt = p->dtype == TL_FLOAT64 ? TL_FLOAT32 : TL_FLOAT64;
        *name = dt == TL_FLOAT64 ? "float64" : "float32";
        t = tl_ops_to(p, be, dt, true, TL_MEMFMT_PRESERVE, err);
        break;
    }
    case VAR_DEVICE:
        if (!other || other == be)
            return NULL;
        *name = tl_backend_device(other).kind == TL_DEV_CUDA ? "cuda" : "cpu";
        t = tl_ops_to(p, other, p->dtype, true, TL_MEMFMT_PRESERVE, err);
        break;
    default:
        return NULL;
    }
    if (!t)
        return NULL;
    t->requires_grad = p->requires_grad;
    t->is_leaf = true;
    t->is_view_of_grad_leaf = false;
    t->version->value = p->version->value;
    return t;
}

/* ------------------------------------------------------------- reasons */

static void put_tuple(tl_buf *b, const int64_t *v, int n)
{
    tl_buf_putc(b, '(');
    for (int i = 0; i < n; i++)
        tl_buf_printf(b, "%s%" PRId64, i ? ", " : "", v[i]);
    tl_buf_puts(b, n == 1 ? ",)" : ")");
}

/* The last method called at the top level of the op's final line, e.g.
 * "to" in `x.to(device=x.device, dtype=x.dtype)`: a `.name(` outside any
 * brackets or string literal. Empty when there is none (x[1:], x.T). */
static void last_method(const char *op, char *name, size_t cap)
{
    name[0] = 0;
    const char *line = strrchr(op, '\n');
    line = line && line[1] ? line + 1 : op;
    const char *best = NULL;
    size_t bl = 0;
    int depth = 0;
    char quote = 0;
    for (const char *s = line; *s; s++) {
        if (quote) {
            if (*s == '\\' && s[1])
                s++;
            else if (*s == quote)
                quote = 0;
            continue;
        }
        if (*s == '\'' || *s == '"')
            quote = *s;
        else if (*s == '(' || *s == '[')
            depth++;
        else if ((*s == ')' || *s == ']') && depth > 0)
            depth--;
        else if (*s == '.' && depth == 0 &&
                 (s[1] == '_' || (s[1] >= 'a' && s[1] <= 'z'))) {
            const char *e = s + 1;
            while (*e == '_' || (*e >= 'a' && *e <= 'z') || (*e >= '0' && *e <= '9'))
                e++;
            if (*e == '(') {
                best = s + 1;
                bl = (size_t)(e - best);
            }
        }
    }
    if (best && bl < cap) {
        memcpy(name, best, bl);
        name[bl] = 0;
    }
}

static char *make_reason(const tl_op_verdict *v, const char *optext)
{
    const tl_evidence *ev = &v->ev;
    tl_buf b = {0};
    char m[48];
    last_method(optext, m, sizeof m);
    switch (ev->kind) {
    case TL_KIND_ALIAS:
        tl_buf_puts(&b, "alias: the op returned the parent tensor object itself");
        if (m[0])
            tl_buf_printf(&b, " (%s() had nothing to do)", m);
        break;
    case TL_KIND_VIEW:
        tl_buf_puts(&b, "view: strides ");
        put_tuple(&b, ev->stride, ev->ndim);
        tl_buf_printf(&b, " at offset %" PRId64 " express the %s over the parent's storage",
                      ev->offset, ev->ndim == v->parent_ndim ? "result" : "new shape");
        break;
    case TL_KIND_COPY: {
        bool reshapey = !strcmp(m, "view") || !strcmp(m, "reshape") ||
                        !strcmp(m, "flatten") || !strcmp(m, "ravel") ||
                        !strcmp(m, "reshape_as") || !strcmp(m, "view_as");
        int bd = -1;
        if (reshapey && v->have_parent)
            for (int d = 0; d + 1 < v->parent_ndim; d++)
                if (v->parent_shape[d] != 1 && v->parent_shape[d + 1] != 1 &&
                    v->parent_stride[d] != v->parent_stride[d + 1] * v->parent_shape[d + 1]) {
                    bd = d;
                    break;
                }
        if (bd >= 0) {
            tl_buf_printf(&b, "copy: dims %d-%d span two contiguous subspaces (parent strides ",
                          bd, bd + 1);
            put_tuple(&b, v->parent_stride, v->parent_ndim);
            tl_buf_puts(&b, "), so the new shape needs new storage");
        } else if (strchr(optext, '[') && !m[0]) {
            tl_buf_printf(&b, "copy: indexing gathered the elements into new storage "
                          "(%" PRId64 " bytes allocated)", ev->bytes_allocated);
        } else {
            tl_buf_printf(&b, "copy: the result has its own storage (%" PRId64
                          " bytes allocated)", ev->bytes_allocated);
        }
        break;
    }
    case TL_KIND_ERROR:
        tl_buf_printf(&b, "error: %s: %s", ev->err_type ? ev->err_type : "Error",
                      ev->err_msg ? ev->err_msg : "");
        break;
    case TL_KIND_VALUE:
    {
        const char *ty = ev->value_type ? ev->value_type : "value";
        bool vowel = strchr("aeiouAEIOU", ty[0]) != NULL;
        tl_buf_printf(&b, "value: the op returns %s %s, not a tensor",
                      vowel ? "an" : "a", ty);
    }
        break;
    case TL_KIND_MIXED:
        tl_buf_printf(&b, "mixed: the %zu results of the %s are not all the same kind",
                      ev->nitems_total, ev->value_type ? ev->value_type : "tuple");
        break;
    default:
        if (ev->is_tuple)
            tl_buf_printf(&b, "%s: each of the %zu results is a %s", tl_kind_name(ev->kind),
                          ev->nitems_total, tl_kind_name(ev->kind));
        break;
    }
    if (ev->is_tuple && ev->kind != TL_KIND_MIXED) {
        tl_buf_free(&b);
        if (v->have_parent)
            tl_buf_printf(&b, "%s: each of the %zu results is a %s of the parent",
                          tl_kind_name(ev->kind), ev->nitems_total, tl_kind_name(ev->kind));
        else
            tl_buf_printf(&b, "%zu new tensors (no parent to compare with)",
                          ev->nitems_total);
    } else if (!v->have_parent && ev->kind == TL_KIND_COPY) {
        tl_buf_free(&b);
        tl_buf_printf(&b, "a new tensor (no parent to compare with; %" PRId64
                      " bytes allocated)", ev->bytes_allocated);
    }
    return tl_buf_steal(&b);
}

/* ------------------------------------------------------------------ run */

static int fail_with(tl_verdict_fail *fail, const tl_runner *r, const tl_source *src,
                     const tl_error *err)
{
    tl_buf b = {0};
    tl_diag_render(&b, src, err, r->color);
    fail->rendered = tl_buf_steal(&b);
    fail->exit_code = err->kind == TL_ERR_INTERNAL ? 3 : 2;
    return -1;
}

static int fail_at(tl_verdict_fail *fail, const tl_runner *r, const tl_source *src,
                   int line, int col, int code, const char *msg)
{
    tl_buf b = {0};
    const char *file = src ? src->file : "<input>";
    if (line > 0)
        tl_diag_render_at(&b, file, line, col, msg, src ? src->file_text : NULL,
                          src ? src->file_len : 0, r->color);
    else
        tl_buf_printf(&b, "%s: error: %s\n", file, msg);
    fail->rendered = tl_buf_steal(&b);
    fail->exit_code = code;
    return -1;
}

/* One run: setup, (variant), op, classify. */
static int run_once(const tl_runner *r, const tl_job *job, int variant,
                    const char **vname, tl_op_verdict *out, tl_evidence *ev,
                    tl_verdict_fail *fail)
{
    tl_error err;
    tl_error_clear(&err);
    tl_interp *I = tl_interp_new(&r->opts);
    if (!I) {
        tl_error_set(&err, TL_ERR_INTERNAL, "cannot create the interpreter");
        return fail_with(fail, r, job->op, &err);
    }
    int status = -1;
    tl_value *parent = NULL, *res = NULL;
    for (size_t i = 0; i < job->nsetup; i++) {
        if (tl_interp_exec(I, &job->setup[i], &err) < 0) {
            fail_with(fail, r, &job->setup[i], &err);
            goto done;
        }
    }
    parent = job->parent ? tl_interp_get(I, job->parent) : NULL;
    if (parent && !tl_value_is_tensorlike(parent)) {
        if (!job->parent_optional) {
            char msg[256];
            snprintf(msg, sizeof msg, "the parent '%s' is a %s after setup, not a tensor",
                     job->parent, tl_value_type_name(parent));
            fail_at(fail, r, job->nsetup ? &job->setup[0] : job->op, job->parent_line,
                    job->parent_col, 2, msg);
            goto done;
        }
        tl_value_release(parent);
        parent = NULL;
    }
    if (!parent && !job->parent_optional) {
        char msg[256];
        snprintf(msg, sizeof msg, "setup does not define the parent tensor '%s'",
                 job->parent ? job->parent : "x");
        fail_at(fail, r, job->nsetup ? &job->setup[0] : job->op, job->parent_line,
                job->parent_col, 2, msg);
        goto done;
    }
    if (variant >= 0) {
        *vname = NULL;
        if (!parent || parent->kind != TL_V_TENSOR) {
            status = 1; /* no such variant */
            goto done;
        }
        tl_error verr;
        tl_error_clear(&verr);
        tl_tensor *vt = make_variant(parent->u.tensor, variant, r->other, vname, &verr);
        if (!vt) {
            if (verr.kind == TL_ERR_INTERNAL) {
                fail_with(fail, r, job->op, &verr);
                goto done;
            }
            status = 1; /* does not exist here, or could not be built */
            goto done;
        }
        tl_value *pv = tl_value_tensor(vt);
        tl_interp_set(I, job->parent, pv);
        tl_value_release(parent);
        parent = pv;
    }
    uint64_t before = tl_alloc_total();
    res = tl_interp_eval(I, job->op, &err);
    int64_t bytes = (int64_t)(tl_alloc_total() - before);
    if (!res) {
        if (tl_error_is_python(err.kind) || err.kind == TL_ERR_LIMIT) {
            int line, col;
            tl_diag_position(job->op, err.span.start >= 0 ? err.span.start : 0, &line,
                             &col);
            char where[512];
            snprintf(where, sizeof where, "%s:%d:%d", job->op->file, line, col);
            tl_verdict_from_error(&err, where, ev);
            ev->bytes_allocated = bytes;
        } else {
            fail_with(fail, r, job->op, &err);
            goto done;
        }
    } else {
        if (tl_verdict_classify(res, parent, ev, &err) < 0) {
            tl_evidence_free(ev);
            if (err.kind != TL_ERR_INTERNAL) {
                tl_error e3;
                tl_error_set(&e3, TL_ERR_INTERNAL, "%s", err.msg);
                err = e3;
            }
            err.span = TL_NO_SPAN;
            fail_with(fail, r, job->op, &err);
            goto done;
        }
        ev->bytes_allocated = bytes;
    }
    if (out) {
        if (parent) {
            const tl_tensor *p = parent->u.tensor;
            out->have_parent = true;
            out->parent_ndim = p->ndim;
            out->parent_shape = tl_xcalloc((size_t)p->ndim + 1, sizeof(int64_t));
            out->parent_stride = tl_xcalloc((size_t)p->ndim + 1, sizeof(int64_t));
            memcpy(out->parent_shape, p->sizes, (size_t)p->ndim * sizeof(int64_t));
            memcpy(out->parent_stride, p->strides, (size_t)p->ndim * sizeof(int64_t));
            out->parent_offset = p->offset;
            out->parent_contiguous = tl_tensor_is_contiguous(p);
        }
        if (job->keep_values) {
            out->result = res ? tl_value_retain(res) : NULL;
            out->parent = parent ? tl_value_retain(parent) : NULL;
        }
    }
    status = 0;
done:
    if (res)
        tl_value_release(res);
    if (parent)
        tl_value_release(parent);
    tl_interp_free(I);
    return status;
}

int tl_verdict_run(const tl_runner *r, const tl_job *job, tl_op_verdict *out,
                   tl_verdict_fail *fail)
{
    memset(out, 0, sizeof *out);
    memset(fail, 0, sizeof *fail);
    if (run_once(r, job, -1, NULL, out, &out->ev, fail) < 0) {
        tl_op_verdict_free(out);
        return -1;
    }
    out->ev.reason = make_reason(out, job->op->text);
    if (!job->variants)
        return 0;
    char *sig = tl_evidence_signature(&out->ev);
    for (int w = 0; w < VAR_COUNT; w++) {
        tl_evidence vev;
        memset(&vev, 0, sizeof vev);
        const char *name = NULL;
        int rc = run_once(r, job, w, &name, NULL, &vev, fail);
        if (rc < 0) {
            free(sig);
            tl_op_verdict_free(out);
            return -1;
        }
        if (rc == 0 && name) {
            tl_variant *v = &out->variants[out->nvariants++];
            v->parent = name;
            v->kind = vev.kind;
            v->signature = tl_evidence_signature(&vev);
            if (strcmp(v->signature, sig) != 0)
                out->sometimes = true;
        }
        tl_evidence_free(&vev);
    }
    free(sig);
    return 0;
}

/* ------------------------------------------------------ storage map */

bool tl_verdict_storage_map(const tl_op_verdict *v, tl_storage_map *out)
{
    memset(out, 0, sizeof *out);
    if (!v->result || !tl_value_is_tensorlike(v->result))
        return false;
    const tl_tensor *t = v->result->u.tensor;
    size_t isz = tl_dtype_size(t->dtype);
    out->dtype = t->dtype;
    out->nslots = (int64_t)(t->storage->nbytes / isz);
    out->lo = 0;
    out->hi = out->nslots;
    if (out->nslots > 256) {
        /* the window the result covers, capped */
        out->lo = t->offset;
        out->hi = out->lo + 256 > out->nslots ? out->nslots : out->lo + 256;
    }
    int64_t numel = tl_tensor_numel(t);
    out->numel = numel;
    if (numel > 100000) {
        out->too_large = true;
        return true;
    }
    int64_t n = out->hi - out->lo;
    int64_t *cell = tl_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *cell);
    for (int64_t k = 0; k < n; k++)
        cell[k] = -1;
    int64_t idx[TL_MAX_DIMS] = {0};
    for (int64_t i = 0; i < numel; i++) {
        int64_t e = t->offset;
        for (int d = 0; d < t->ndim; d++)
            e += idx[d] * t->strides[d];
        if (e >= out->lo && e < out->hi)
            cell[e - out->lo] = cell[e - out->lo] == -1 ? i : -2;
        for (int d = t->ndim - 1; d >= 0; d--) {
            if (++idx[d] < t->sizes[d])
                break;
            idx[d] = 0;
        }
    }
    out->cell = cell;
    return true;
}

void tl_storage_map_free(tl_storage_map *m)
{
    free(m->cell);
    m->cell = NULL;
}
