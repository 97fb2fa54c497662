/* verdict.c - classifying what an op did (SPEC 4).
 *
 * Order of the pointer verdict: same tl_tensor object -> alias; same memory
 * (tl_storage_same: base pointers, zero-byte storages by identity) -> view;
 * else copy. Non-tensor results are `value`; a tuple/list holding tensors
 * is classified element by element (`mixed` when the elements disagree).
 *
 * The write-through probe is an independent check of that verdict: flip one
 * bit of the result's element 0 and read the byte at that address through
 * the parent's storage before, after, and once the element is restored
 * (both version counters restored too). The write shows in the parent's
 * storage memory, or it does not; write_through says whether that byte
 * belongs to one of the parent's visible elements (a bitmap of them is
 * built once per classification, so a list of 10^6 views costs one pass
 * over the parent, not one per item). A view/alias whose write does not
 * reach the parent's storage, or a copy whose write does, is a bug:
 * TL_ERR_INTERNAL (exit 3), never graded.
 *
 * Every run (the op and each `sometimes` variant) starts from a fresh
 * interpreter and runs setup afresh, so ops never see each other's writes.
 * With a setup cache (tl_job.setup_cache) "afresh" is done once per thread:
 * the first run executes the setup and snapshots its globals, and every
 * run, that one included, continues from deep copies of them (a fresh
 * setup's state, byte for byte, without running it; py/snapshot.h). A
 * setup that leaves anything a copy could not reproduce is run every time.
 *
 * Time (SPEC 7): one deadline of --timeout per op (tl_deadline_run_begin
 * in verdict_run; the interpreter's per-call deadline cannot extend it)
 * covers every run of the op: each setup (rerun for every run), building
 * the parent variant, the op, the probes and the evidence. A
 * setup that alone runs past it in the first run is a lab error (exit 2 at
 * the setup); past it anywhere else, the op is a limit error
 * (LimitError, "time limit exceeded", which no prediction matches:
 * grade.c), also when only a variant ran out: a variant cut short proves
 * nothing about `sometimes`. The sheet's classify() and the pictures'
 * tagged runs (trace) are no part of the op: each runs with the op's
 * deadline suspended (under a limit of --timeout of its own), and the op's
 * deadline is moved on by the time it took, so a classifier that loops
 * never turns the op into a limit error, and `explain` (which traces)
 * gives an op the same time as `check`. The sheet's budget
 * (--sheet-timeout, tl_budget) covers all of it, setups and freeing
 * included: once it is spent, the run fails with exit 2 at the op, naming
 * it.
 */
#include "verdict.h"
#include "jsonnum.h"

#include <inttypes.h>
#include <math.h>
#include "platform.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "ops.h"
#include "shape.h"
#include "snapshot.h"
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
    for (size_t i = 0; i < v->nvariants; i++) {
        free(v->variants[i].signature);
        tl_classify_out_free(&v->vcls[i]);
    }
    tl_classify_out_free(&v->cls);
    if (v->result)
        tl_value_release(v->result);
    if (v->parent)
        tl_value_release(v->parent);
    tl_storage_map_free(&v->map);
    free(v->gather);
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
    case TL_V_INT: return tl_json_int(v->u.i); /* exact past 2^53 */
    case TL_V_FLOAT: return isfinite(v->u.f) ? tl_json_float(v->u.f) : json_number(v->u.f);
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

/* ------------------------------------------------------------- probe */

/* Which storage elements of the parent are visible through it: a bitmap
 * over its element span [lo, hi], built once per classification (a list
 * of 10^6 views of one parent costs one pass over the parent, not one per
 * item). state: 0 not built, 1 built, -1 too large to probe. */
typedef struct pmap {
    int state;
    int64_t lo, hi;       /* storage element span of the parent */
    unsigned char *bits;  /* (hi - lo + 1) bits; NULL: every element of the
                             span is visible (a non-overlapping, dense parent:
                             its elements fill the span once) */
} pmap;

static int build_pmap(const tl_tensor *p, pmap *m, tl_error *err)
{
    m->state = -1;
    int64_t n = tl_tensor_numel(p);
    size_t isz = tl_dtype_size(p->dtype);
    int64_t lo = p->offset, hi = p->offset;
    for (int d = 0; d < p->ndim; d++) {
        int64_t ext = (p->sizes[d] - 1) * p->strides[d];
        if (ext < 0)
            lo += ext;
        else
            hi += ext;
    }
    if (n <= 0 || (uint64_t)n * isz > TL_PROBE_MAX_BYTES ||
        (uint64_t)(hi - lo + 1) * isz > TL_PROBE_MAX_BYTES)
        return 0;
    if (lo < 0 || (uint64_t)(hi + 1) * isz > p->storage->nbytes)
        return tl_error_set(err, TL_ERR_INTERNAL,
                            "tensor elements [%" PRId64 ", %" PRId64 "] lie outside "
                            "its storage of %zu bytes", lo, hi, p->storage->nbytes);
    m->lo = lo;
    m->hi = hi;
    if (tl_shape_is_non_overlapping_and_dense(p->ndim, p->sizes, p->strides)) {
        m->bits = NULL;
        m->state = 1;
        return 0;
    }
    m->bits = tl_xcalloc((size_t)(hi - lo) / 8 + 1, 1);
    int64_t idx[TL_MAX_DIMS] = {0};
    for (int64_t i = 0; i < n; i++) {
        if ((i & ((1 << 20) - 1)) == (1 << 20) - 1 && tl_deadline_passed()) {
            char msg[160];
            tl_deadline_message(msg, sizeof msg, 0);
            return tl_error_set(err, TL_ERR_LIMIT, "%s", msg);
        }
        int64_t e = p->offset - lo;
        for (int d = 0; d < p->ndim; d++)
            e += idx[d] * p->strides[d];
        m->bits[e / 8] |= (unsigned char)(1u << (e % 8));
        for (int d = p->ndim - 1; d >= 0; d--) {
            if (++idx[d] < p->sizes[d])
                break;
            idx[d] = 0;
        }
    }
    m->state = 1;
    return 0;
}

/* One byte of a storage's memory, read through its backend. */
static int read_rbyte(const tl_storage *s, size_t at, unsigned char *out, tl_error *err)
{
    return tl_backend_to_host(s->backend, out, (const char *)s->data + at, 1, err);
}

/* The probe. Sets *through (1/0, -1 when not applicable or too large).
 * O(1) per result tensor plus one pass over the parent (map). */
static int probe(tl_tensor *r, tl_tensor *p, tl_kind kind, pmap *map, int *through,
                 tl_error *err)
{
    *through = -1;
    if (tl_tensor_numel(r) <= 0)
        return 0;
    if (map->state == 0 && build_pmap(p, map, err) < 0)
        return -1;
    if (map->state < 0)
        return 0;
    size_t isz = tl_dtype_size(r->dtype), psz = tl_dtype_size(p->dtype);
    unsigned char old0[16], sent[16];
    int64_t ver_r = r->version->value, ver_p = p->version->value;
    if (tl_tensor_get_raw(r, 0, old0, err) < 0)
        return -1;
    memcpy(sent, old0, isz);
    sent[0] ^= 1;
    /* the flipped byte, as an address in the parent's storage memory */
    const tl_device dr = tl_tensor_device(r), dp = tl_tensor_device(p);
    const char *addr = r->storage->data ? (const char *)r->storage->data +
                                              (size_t)r->offset * isz
                                        : NULL;
    /* the memory p's storage has, or borrows from (through NumPy, at an
     * offset): a result may share those bytes outside p's own range */
    const tl_storage *root = p->storage->mem_owner ? p->storage->mem_owner : p->storage;
    const char *base = p->storage->data, *rbase = root->data;
    bool inside = addr && rbase && dr.kind == dp.kind && dr.index == dp.index &&
                  addr >= rbase && addr < rbase + root->nbytes;
    size_t rat = inside ? (size_t)(addr - rbase) : 0;
    unsigned char before = 0, after = 0, restored = 0;
    int status = -1;
    if (inside && read_rbyte(root, rat, &before, err) < 0)
        goto out;
    if (tl_tensor_set_raw(r, 0, sent, err) < 0)
        goto out;
    int rc = inside ? read_rbyte(root, rat, &after, err) : 0;
    if (tl_tensor_set_raw(r, 0, old0, err) < 0 || rc < 0)
        goto out;
    if (inside && read_rbyte(root, rat, &restored, err) < 0)
        goto out;
    /* visible to p only inside p's own bytes */
    bool in_p = inside && base && addr >= base && addr < base + p->storage->nbytes;
    size_t at = in_p ? (size_t)(addr - base) : 0;
    if (before != restored) {
        tl_error_set(err, TL_ERR_INTERNAL,
                     "write-through probe could not restore the parent");
        goto out;
    }
    bool schanged = before != after; /* the parent's storage saw the write */
    int64_t e = (int64_t)(at / psz) - map->lo;
    bool visible = schanged && in_p && e >= 0 && e <= map->hi - map->lo &&
                   (!map->bits || (map->bits[e / 8] >> (e % 8)) & 1);
    if (schanged && kind == TL_KIND_COPY) {
        tl_error_set(err, TL_ERR_INTERNAL,
                     "write-through probe disagrees with the pointer verdict: the "
                     "result has its own storage but writing it changed the parent");
        goto out;
    }
    if (!schanged && (kind == TL_KIND_VIEW || kind == TL_KIND_ALIAS)) {
        tl_error_set(err, TL_ERR_INTERNAL,
                     "write-through probe disagrees with the pointer verdict: "
                     "the result is a %s of the parent but writing it changed "
                     "neither the parent nor its storage", tl_kind_name(kind));
        goto out;
    }
    *through = visible ? 1 : 0;
    status = 0;
out:
    r->version->value = ver_r;
    p->version->value = ver_p;
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
        memcpy(ev->device, "cpu", 4);
}

/* kinds_only: a variant's run, whose evidence is only its kinds (the
 * signature that decides `sometimes`): no metadata or value JSON is made,
 * but the write-through probe still checks every tensor verdict. */
static int classify_tensor(tl_tensor *r, tl_tensor *p, pmap *map, tl_evidence *ev,
                           bool kinds_only, tl_error *err)
{
    if (!kinds_only)
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
    return probe(r, p, ev->kind, map, &ev->write_through, err);
}

/* Tuples and lists of tensors are classified element by element down to
 * this many levels; deeper (a list that contains itself: `a = [x];
 * a.append(a)`) an item is a value, so the recursion is bounded. */
#define CLASSIFY_MAX_DEPTH 64

static int classify(tl_value *result, tl_tensor *p, pmap *map, tl_evidence *ev,
                    bool kinds_only, int depth, tl_error *err)
{
    memset(ev, 0, sizeof *ev);
    ev->write_through = -1;
    if (tl_value_is_tensorlike(result))
        return classify_tensor(result->u.tensor, p, map, ev, kinds_only, err);
    bool tuple = false;
    if ((result->kind == TL_V_TUPLE || result->kind == TL_V_LIST) && result->u.seq.n > 0 &&
        depth < CLASSIFY_MAX_DEPTH)
        for (size_t i = 0; i < result->u.seq.n && !tuple; i++)
            if (tl_value_is_tensorlike(result->u.seq.items[i]))
                tuple = true;
    if (!tuple) {
        ev->kind = TL_KIND_VALUE;
        if (!kinds_only) {
            ev->value = tl_value_to_json(result);
            ev->value_type = tl_xstrdup(tl_value_type_name(result));
        }
        return 0;
    }
    ev->is_tuple = true;
    if (!kinds_only)
        ev->value_type = tl_xstrdup(tl_value_type_name(result));
    size_t n = result->u.seq.n;
    ev->nitems_total = n;
    ev->nitems = n < TL_VERDICT_MAX_ITEMS ? n : TL_VERDICT_MAX_ITEMS;
    ev->items = tl_xcalloc(ev->nitems, sizeof *ev->items);
    tl_kind common = TL_KIND_NONE;
    bool mixed = false;
    for (size_t i = 0; i < n; i++) {
        /* a list of 10^6 items is classified under the op's deadline */
        if ((i & 1023) == 1023 && tl_deadline_passed()) {
            char msg[160];
            tl_deadline_message(msg, sizeof msg, 0);
            return tl_error_set(err, TL_ERR_LIMIT, "%s", msg);
        }
        tl_evidence tmp, *it = i < ev->nitems ? &ev->items[i] : &tmp;
        if (classify(result->u.seq.items[i], p, map, it, kinds_only, depth + 1, err) < 0) {
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

static int verdict_classify(tl_value *result, tl_value *parent, tl_evidence *ev,
                            bool kinds_only, tl_error *err)
{
    tl_tensor *p = parent && tl_value_is_tensorlike(parent) ? parent->u.tensor : NULL;
    pmap map = {0};
    int rc = classify(result, p, &map, ev, kinds_only, 0, err);
    free(map.bits);
    return rc;
}

int tl_verdict_classify(tl_value *result, tl_value *parent, tl_evidence *ev,
                        tl_error *err)
{
    return verdict_classify(result, parent, ev, false, err);
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
    tl_tensor_copy_names(t, p); /* a named parent's variants keep its names */
    return t;
}

/* ------------------------------------------------------------- reasons */

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
        tl_buf_put_tuple(&b, ev->stride, ev->ndim);
        tl_buf_puts(&b, " at offset ");
        tl_buf_put_i64(&b, ev->offset);
        tl_buf_puts(&b, ev->ndim == v->parent_ndim
                            ? " express the result over the parent's storage"
                            : " express the new shape over the parent's storage");
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
            tl_buf_put_tuple(&b, v->parent_stride, v->parent_ndim);
            tl_buf_puts(&b, "), so the new shape needs new storage");
        } else if (strchr(optext, '[') && !m[0]) {
            tl_buf_puts(&b, "copy: indexing gathered the elements into new storage (");
            tl_buf_put_i64(&b, ev->bytes_allocated);
            tl_buf_puts(&b, " bytes allocated)");
        } else {
            tl_buf_puts(&b, "copy: the result has its own storage (");
            tl_buf_put_i64(&b, ev->bytes_allocated);
            tl_buf_puts(&b, " bytes allocated)");
        }
        break;
    }
    case TL_KIND_ERROR:
        tl_buf_puts(&b, "error: ");
        tl_buf_puts(&b, ev->err_type ? ev->err_type : "Error");
        tl_buf_puts(&b, ": ");
        tl_buf_puts(&b, ev->err_msg ? ev->err_msg : "");
        break;
    case TL_KIND_VALUE:
    {
        const char *ty = ev->value_type ? ev->value_type : "value";
        bool vowel = strchr("aeiouAEIOU", ty[0]) != NULL;
        if (strcmp(ty, "Tensor") == 0) /* a Tensor that is a value: sparse COO (py/sparse.h) */
            tl_buf_puts(&b, "value: the op returns a sparse COO tensor (stored coordinates "
                            "and values, no strides), not a strided tensor");
        else
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

/* The sheet's budget is spent: exit 2 at the op where it ran out. */
static int fail_budget(tl_verdict_fail *fail, const tl_runner *r, const tl_job *job)
{
    char dm[160];
    tl_deadline_message(dm, sizeof dm, 0);
    tl_buf msg = {0};
    tl_buf_puts(&msg, dm);
    if (job->id) {
        tl_buf_puts(&msg, " while running op '");
        tl_escape_line(&msg, job->id);
        tl_buf_puts(&msg, "'; the rest of the sheet was not run");
    }
    free(fail->rendered);
    fail->rendered = NULL;
    int rc = fail_at(fail, r, job->op, job->op->line, job->op->col, 2, tl_buf_str(&msg));
    tl_buf_free(&msg);
    return rc;
}

/* ------------------------------------------------------ gather trace */

static void map_tensor(const tl_tensor *t, tl_storage_map *out);

/* Tags the parent's dtype holds exactly: ascending B1 + s and descending
 * B2 - s for s < *max slots. false for bool. */
static bool tag_range(tl_dtype dt, double *b1, double *b2, int64_t *max)
{
    switch (dt) {
    case TL_UINT8: *b1 = 128; *b2 = 255; *max = 127; return true;
    case TL_INT8: *b1 = 64; *b2 = 127; *max = 63; return true;
    case TL_INT16: *b1 = 16384; *b2 = 32767; *max = 16383; return true;
    case TL_BFLOAT16: *b1 = 128; *b2 = 255; *max = 127; return true;
    case TL_FLOAT16: *b1 = 1024; *b2 = 2047; *max = 1023; return true;
    case TL_FLOAT32: *b1 = 4194304; *b2 = 16777215; *max = 4194304; return true;
    case TL_INT32:
    case TL_INT64:
    case TL_FLOAT64: *b1 = 1073741824.0; *b2 = 2147483647.0; *max = 1073741823; return true;
    default: return false;
    }
}

/* Overwrite every slot of p's storage with its tag (through a 1-d view of
 * the whole storage and a host tensor of tags, so any device works). */
static int tag_storage(tl_tensor *p, bool descending, tl_error *err)
{
    double b1, b2;
    int64_t max;
    if (!tag_range(p->dtype, &b1, &b2, &max))
        return tl_error_set(err, TL_ERR_VALUE, "untraceable dtype");
    int64_t n = (int64_t)(p->storage->nbytes / tl_dtype_size(p->dtype)), one = 1;
    if (n > max || n > TL_TRACE_MAX_SLOTS)
        return tl_error_set(err, TL_ERR_VALUE, "storage too large to trace");
    if (n == 0)
        return 0;
    tl_tensor *host = tl_tensor_new(tl_backend_cpu(), p->dtype, 1, &n, err);
    if (!host)
        return -1;
    for (int64_t s = 0; s < n; s++)
        if (tl_tensor_set_f64(host, s, descending ? b2 - (double)s : b1 + (double)s, err) < 0) {
            tl_tensor_release(host);
            return -1;
        }
    tl_tensor *all = tl_tensor_view(p, 1, &n, &one, 0);
    /* the tags are no in-place op of the sheet's: no leaf-grad check */
    all->requires_grad = false;
    all->is_leaf = true;
    all->is_view_of_grad_leaf = false;
    int rc = tl_ops_copy_(all, host, err);
    tl_tensor_release(all);
    tl_tensor_release(host);
    return rc;
}

/* One tagged run: setup, tag the parent, the op; dec[k] the slot result
 * element k decodes to (-1 when none). 0, or -1 when the run tells
 * nothing (an error, another shape, a non-tensor). */
static int trace_once(const tl_runner *r, const tl_job *job, const tl_tensor *real,
                      bool descending, int64_t *dec, int64_t n)
{
    tl_error err;
    tl_error_clear(&err);
    tl_interp *I = tl_interp_new(&r->opts);
    if (!I)
        return -1;
    int rc = -1;
    tl_value *parent = NULL, *res = NULL;
    for (size_t i = 0; i < job->nsetup; i++)
        if (tl_interp_exec(I, &job->setup[i], &err) < 0)
            goto done;
    /* under the trace's own deadline (run_once) */
    parent = tl_interp_get(I, job->parent ? job->parent : "x");
    if (parent && parent->kind == TL_V_TENSOR &&
        tag_storage(parent->u.tensor, descending, &err) == 0)
        res = tl_interp_eval(I, job->op, &err);
    if (res && res->kind == TL_V_TENSOR && res->u.tensor->ndim == real->ndim &&
        res->u.tensor->dtype == real->dtype &&
        memcmp(res->u.tensor->sizes, real->sizes, (size_t)real->ndim * sizeof(int64_t)) == 0) {
        const tl_tensor *pt = parent->u.tensor;
        double b1, b2;
        int64_t max;
        tag_range(pt->dtype, &b1, &b2, &max);
        int64_t nslots = (int64_t)(pt->storage->nbytes / tl_dtype_size(pt->dtype));
        tl_tensor *h = tl_tensor_read_host(res->u.tensor, &err);
        if (h) {
            rc = 0;
            for (int64_t k = 0; k < n; k++) {
                double d;
                if (tl_tensor_get_f64(h, k, &d, &err) < 0 ||
                    tl_context_deadline_tick(k, &err) < 0) {
                    rc = -1;
                    break;
                }
                double s = descending ? b2 - d : d - b1;
                dec[k] = s >= 0 && s < (double)nslots && s == floor(s) ? (int64_t)s : -1;
            }
            tl_tensor_release(h);
        }
    }
done:
    if (res)
        tl_value_release(res);
    if (parent)
        tl_value_release(parent);
    tl_interp_free(I);
    return rc;
}

/* The pictures' data of a finished main run (job->trace): the result's
 * storage map, the parent's storage size, and for a copy its provenance
 * (tl_verdict_gather says how). Nothing here changes the verdict. */
static void trace(const tl_runner *r, const tl_job *job, tl_value *res, tl_value *par,
                  tl_op_verdict *out)
{
    out->traced = true;
    const tl_tensor *pt = par && tl_value_is_tensorlike(par) ? par->u.tensor : NULL;
    if (pt) {
        out->parent_dtype = pt->dtype;
        out->parent_nslots = (int64_t)(pt->storage->nbytes / tl_dtype_size(pt->dtype));
    }
    if (!res || !tl_value_is_tensorlike(res))
        return;
    const tl_tensor *rt = res->u.tensor;
    map_tensor(rt, &out->map);
    if (!pt || out->ev.kind != TL_KIND_COPY || res->kind != TL_V_TENSOR ||
        par->kind != TL_V_TENSOR)
        return;
    int64_t numel = tl_tensor_numel(rt);
    int64_t n = numel < TL_TRACE_MAX_ELEMS ? numel : TL_TRACE_MAX_ELEMS;
    if (n <= 0 || out->parent_nslots > TL_TRACE_MAX_SLOTS)
        return;
    int64_t *a = tl_xmalloc((size_t)n * sizeof *a), *b = tl_xmalloc((size_t)n * sizeof *b);
    if (trace_once(r, job, rt, false, a, n) < 0 || trace_once(r, job, rt, true, b, n) < 0) {
        free(a);
        free(b);
        return;
    }
    /* the real values must agree too (same dtype: bytes) */
    tl_error err;
    tl_error_clear(&err);
    tl_tensor *hr = tl_tensor_read_host(rt, &err);
    int64_t one = 1, ns = out->parent_nslots;
    tl_tensor *all = ns > 0 ? tl_tensor_view(pt, 1, &ns, &one, 0) : NULL;
    tl_tensor *hp = all ? tl_tensor_read_host(all, &err) : NULL;
    size_t isz = tl_dtype_size(rt->dtype);
    bool same_dtype = rt->dtype == pt->dtype;
    for (int64_t k = 0; k < n; k++) {
        if (a[k] != b[k] || a[k] < 0) {
            a[k] = -1;
            continue;
        }
        if (same_dtype) {
            unsigned char x[16], y[16];
            if (!hr || !hp || tl_tensor_get_raw(hr, k, x, &err) < 0 ||
                tl_tensor_get_raw(hp, a[k], y, &err) < 0 || memcmp(x, y, isz) != 0)
                a[k] = -1;
        }
    }
    if (hr)
        tl_tensor_release(hr);
    if (hp)
        tl_tensor_release(hp);
    if (all)
        tl_tensor_release(all);
    free(b);
    out->gather = a;
    out->ngather = n;
}

/* One run: setup, (variant), op, classify. */
/* ------------------------------------------------------ setup snapshots */

/* One entry per (thread, runner, setup array): the snapshot that thread
 * took, or none (refused: that thread runs the setup every time). Entries
 * are only added, under the lock; an entry is read and used only by its
 * own thread. */
typedef struct setup_entry {
    struct setup_entry *next;
    pthread_t thread;
    const tl_runner *r;
    const tl_source *setup;
    size_t nsetup;
    tl_snapshot *snap;
    /* The parent variants of runs that start from snap are the same every
     * time: each is made once (var_made) and copied per run; NULL with a
     * name when it could not be built, NULL without one when it does not
     * exist. Off the storage ledger, like the snapshot's storages; both
     * are charged to the thread's ledger as held memory (storage.h). */
    const char *var_parent;           /* the parent's name they were made of */
    bool var_made[VAR_COUNT];
    tl_tensor *var[VAR_COUNT];
    const char *var_name[VAR_COUNT];
    size_t held;                      /* bytes charged as held (snapshot + var) */
} setup_entry;

struct tl_setup_cache {
    pthread_mutex_t mu;
    setup_entry *head;
};

tl_setup_cache *tl_setup_cache_new(void)
{
    tl_setup_cache *c = tl_xcalloc(1, sizeof *c);
    pthread_mutex_init(&c->mu, NULL);
    return c;
}

/* Hold n more bytes in e (charged to this thread's ledger). */
static void entry_hold(setup_entry *e, size_t n)
{
    e->held += n;
    tl_alloc_held_add((int64_t)n);
}

/* Free what e keeps. On e's own thread its held bytes go back to the
 * ledger; the ledger of a worker that has ended needs nothing back. */
static void entry_empty(setup_entry *e)
{
    tl_snapshot_free(e->snap);
    e->snap = NULL;
    for (int w = 0; w < VAR_COUNT; w++) {
        tl_tensor_release(e->var[w]);
        e->var[w] = NULL;
        e->var_made[w] = false;
    }
    if (pthread_equal(e->thread, pthread_self()))
        tl_alloc_held_add(-(int64_t)e->held);
    e->held = 0;
}

void tl_setup_cache_free(tl_setup_cache *c)
{
    if (!c)
        return;
    for (setup_entry *e = c->head, *next; e; e = next) {
        next = e->next;
        entry_empty(e);
        free(e);
    }
    pthread_mutex_destroy(&c->mu);
    free(c);
}

static setup_entry *cache_find(tl_setup_cache *c, const tl_runner *r, const tl_job *job)
{
    pthread_t self = pthread_self();
    pthread_mutex_lock(&c->mu);
    setup_entry *e = c->head;
    while (e && !(pthread_equal(e->thread, self) && e->r == r && e->setup == job->setup &&
                  e->nsetup == job->nsetup))
        e = e->next;
    pthread_mutex_unlock(&c->mu);
    return e;
}

static setup_entry *cache_add(tl_setup_cache *c, const tl_runner *r, const tl_job *job,
                              tl_snapshot *snap)
{
    setup_entry *e = tl_xcalloc(1, sizeof *e);
    e->thread = pthread_self();
    e->r = r;
    e->setup = job->setup;
    e->nsetup = job->nsetup;
    e->snap = snap;
    entry_hold(e, tl_snapshot_bytes(snap));
    pthread_mutex_lock(&c->mu);
    e->next = c->head;
    c->head = e;
    pthread_mutex_unlock(&c->mu);
    return e;
}

/* A fresh copy of a kept variant parent (CPU memory): its bytes in a new
 * storage, its geometry, grad flags and version count. */
static tl_tensor *variant_copy(const tl_tensor *v, tl_error *err)
{
    tl_storage *s = tl_storage_copy(v->storage, err);
    if (!s)
        return NULL;
    tl_version *ver = tl_version_new();
    ver->value = v->version->value;
    tl_tensor *t = tl_tensor_rebind(v, s, ver);
    tl_storage_release(s);
    tl_version_release(ver);
    return t;
}

/* The job's setup statements in I; -1 with the failure rendered (or the
 * sheet budget spent). */
static int run_setup(const tl_runner *r, const tl_job *job, tl_interp *I,
                     tl_verdict_fail *fail)
{
    tl_error err;
    for (size_t i = 0; i < job->nsetup; i++) {
        tl_error_clear(&err);
        if (tl_interp_exec(I, &job->setup[i], &err) < 0) {
            if (!tl_budget_passed())
                fail_with(fail, r, &job->setup[i], &err);
            return -1;
        }
    }
    return 0;
}

/* *I after the job's setup: from this thread's snapshot when there is one
 * (taking it on the first run), else by running the setup. 0, or -1 with
 * the failure rendered (a setup error) or the sheet budget spent.
 * *from is the entry when I holds copies of its snapshot, else NULL. */
static int prepare(const tl_runner *r, const tl_job *job, tl_interp **I,
                   setup_entry **from, tl_verdict_fail *fail)
{
    tl_error err;
    tl_error_clear(&err);
    *from = NULL;
    setup_entry *e = job->setup_cache && job->nsetup ? cache_find(job->setup_cache, r, job)
                                                     : NULL;
    if (e && e->snap && tl_interp_restore(*I, e->snap, &err) == 0) {
        *from = e;
        return 0;
    }
    /* no entry yet, a refused snapshot, or copies over a limit (the setup
     * itself then tells, with the cache's memory given back first: a
     * setup that fits uncached must not fail for the cache) */
    if (e && e->snap) {
        entry_empty(e);
        tl_interp_free(*I);
        *I = tl_interp_new(&r->opts);
    }
    if (run_setup(r, job, *I, fail) < 0)
        return -1;
    if (e || !job->setup_cache || !job->nsetup)
        return 0;
    tl_snapshot *snap = tl_interp_snapshot(*I);
    setup_entry *added = cache_add(job->setup_cache, r, job, snap);
    if (!snap)
        return 0;
    tl_error_clear(&err);
    if (tl_interp_restore(*I, snap, &err) == 0) {
        *from = added;
        return 0;
    }
    /* the run cannot have copies (a limit): it starts over, uncached */
    entry_empty(added);
    tl_interp_free(*I);
    *I = tl_interp_new(&r->opts);
    return run_setup(r, job, *I, fail);
}

/* The sheet's classify() on a result, outside the op's deadline: it has
 * the interpreter's per-call limit of its own, and the op's deadline is
 * moved on by the CPU time it took (SPEC 7: the op's time is the op's). */
static void classify_outside(tl_interp *I, const tl_job *job, tl_value *res, tl_value *parent,
                             tl_classify_out *cls)
{
    double op_when = tl_deadline_run_begin(0); /* suspends it */
    double t0 = tl_now();
    tl_classify_run(I, job->classify, res, parent, job->classify_stop, cls);
    tl_deadline_run_end(op_when > 0 ? op_when + (tl_now() - t0) : 0);
}

static int run_attempt(const tl_runner *r, const tl_job *job, int variant,
                       const char **vname, tl_op_verdict *out, tl_evidence *ev,
                       tl_classify_out *cls, tl_verdict_fail *fail, setup_entry **used)
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
    tl_value *trace_res = NULL, *trace_par = NULL; /* job->trace: for trace() */
    bool in_run = false;
    setup_entry *from = NULL;
    if (prepare(r, job, &I, &from, fail) < 0) {
        /* the op's deadline passed in a later run's setup: the op ran
         * out of time, the setup (which once ran within it) is not at
         * fault */
        if (variant >= 0 && tl_deadline_run_passed() && !tl_budget_passed()) {
            tl_verdict_fail_free(fail);
            status = 2;
        }
        goto done;
    }
    *used = from;
    in_run = true;
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
        tl_tensor *vt;
        bool keep = from && variant != VAR_DEVICE &&
                    (!from->var_parent || !strcmp(from->var_parent, job->parent));
        if (keep && from->var_made[variant]) {
            *vname = from->var_name[variant];
            vt = from->var[variant] ? variant_copy(from->var[variant], &verr) : NULL;
        } else {
            vt = make_variant(parent->u.tensor, variant, r->other, vname, &verr);
            if (keep && (vt || verr.kind == TL_OK)) { /* made, or none here */
                /* kept as made; this run gets a copy like every later one */
                from->var_parent = job->parent;
                from->var_made[variant] = true;
                from->var_name[variant] = *vname;
                from->var[variant] = vt;
                if (vt) {
                    tl_storage_uncharge(vt->storage);
                    entry_hold(from, vt->storage->nbytes);
                    vt = variant_copy(vt, &verr);
                }
            }
        }
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
    if (!res && err.kind == TL_ERR_LIMIT && tl_budget_passed())
        goto done;
    if (res) {
        int crc = verdict_classify(res, parent, ev, variant >= 0, &err);
        if (crc < 0 && err.kind == TL_ERR_LIMIT) {
            /* the run's time ran out while checking the result */
            tl_evidence_free(ev);
            tl_value_release(res);
            res = NULL;
            if (tl_budget_passed())
                goto done;
            err.span = TL_NO_SPAN;
        } else if (crc < 0) {
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
    if (!res) {
        if ((tl_error_is_python(err.kind) || err.kind == TL_ERR_LIMIT) && variant >= 0) {
            /* a variant keeps only its kind (see classify_tensor) */
            memset(ev, 0, sizeof *ev);
            ev->kind = TL_KIND_ERROR;
            ev->write_through = -1;
        } else if (tl_error_is_python(err.kind) || err.kind == TL_ERR_LIMIT) {
            int line, col;
            tl_diag_position(job->op, err.span.start >= 0 ? err.span.start : 0, &line,
                             &col);
            tl_buf where = {0}; /* FILE:LINE:COL, without a printf */
            tl_buf_puts(&where, job->op->file);
            tl_buf_putc(&where, ':');
            tl_buf_put_i64(&where, line);
            tl_buf_putc(&where, ':');
            tl_buf_put_i64(&where, col);
            tl_verdict_from_error(&err, tl_buf_str(&where), ev);
            tl_buf_free(&where);
            ev->bytes_allocated = bytes;
        } else {
            fail_with(fail, r, job->op, &err);
            goto done;
        }
    }
    if (res && job->classify && cls && parent && !ev->is_tuple &&
        (ev->kind == TL_KIND_VIEW || ev->kind == TL_KIND_COPY || ev->kind == TL_KIND_ALIAS))
        classify_outside(I, job, res, parent, cls);
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
        if (job->trace && variant < 0) {
            trace_res = res ? tl_value_retain(res) : NULL;
            trace_par = parent ? tl_value_retain(parent) : NULL;
        }
    }
    status = 0;
done:
    if (res)
        tl_value_release(res);
    if (parent)
        tl_value_release(parent);
    tl_interp_free(I);
    /* a variant cut short by the time limit decides nothing */
    if (in_run && variant >= 0 && status >= 0 && tl_deadline_run_passed())
        status = 2;
    if (trace_res || trace_par) {
        if (status == 0) {
            /* the pictures' tagged runs change no verdict: outside the op's
             * deadline, under one of their own, so `explain` (which traces)
             * and `check` (which does not) give an op the same time */
            double op_when = tl_deadline_run_begin(r->opts.timeout);
            double t0 = tl_now();
            trace(r, job, trace_res, trace_par, out);
            tl_deadline_run_end(op_when > 0 ? op_when + (tl_now() - t0) : 0);
        }
        if (trace_res)
            tl_value_release(trace_res);
        if (trace_par)
            tl_value_release(trace_par);
    }
    /* freeing counts too: a sheet whose budget is spent stops here */
    if (status >= 0 || !fail->rendered) {
        if (tl_budget_passed()) {
            if (status >= 0 && ev)
                tl_evidence_free(ev);
            return fail_budget(fail, r, job);
        }
    }
    return status;
}

/* One run (the op, or one parent variant when variant >= 0). A run that
 * started from the setup cache and met a refusal of the memory ledger that
 * only the cache's held memory caused (storage.h tl_alloc_held_refusals)
 * would not have failed uncached: the thread's entry is emptied (its
 * memory given back, later runs run the setup) and the run is made again,
 * so the cache never changes a verdict and never holds memory past
 * --max-bytes. */
static int run_once(const tl_runner *r, const tl_job *job, int variant,
                    const char **vname, tl_op_verdict *out, tl_evidence *ev,
                    tl_classify_out *cls, tl_verdict_fail *fail)
{
    uint64_t refused = tl_alloc_held_refusals();
    setup_entry *used = NULL;
    int rc = run_attempt(r, job, variant, vname, out, ev, cls, fail, &used);
    if (rc < 0 || !used || tl_alloc_held_refusals() == refused)
        return rc;
    if (out) {
        tl_op_verdict_free(out); /* ev and cls are out's */
    } else {
        tl_evidence_free(ev);
        memset(ev, 0, sizeof *ev);
        tl_classify_out_free(cls);
        memset(cls, 0, sizeof *cls);
    }
    if (vname)
        *vname = NULL;
    entry_empty(used);
    used = NULL;
    return run_attempt(r, job, variant, vname, out, ev, cls, fail, &used);
}

/* The op's deadline passed in a variant: the op is a time-limit error. */
static void op_timed_out(const tl_job *job, tl_op_verdict *out)
{
    for (size_t i = 0; i < out->nvariants; i++) {
        free(out->variants[i].signature);
        tl_classify_out_free(&out->vcls[i]);
    }
    out->nvariants = 0;
    out->sometimes = false;
    tl_evidence_free(&out->ev);
    char msg[160], where[512];
    tl_deadline_message(msg, sizeof msg, 0);
    tl_error err;
    tl_error_set(&err, TL_ERR_LIMIT, "%s (the op and its parent variants)", msg);
    snprintf(where, sizeof where, "%s:%d:%d", job->op->file, job->op->line, job->op->col);
    tl_verdict_from_error(&err, where, &out->ev);
    out->ev.reason = make_reason(out, job->op->text);
}

static int verdict_run(const tl_runner *r, const tl_job *job, tl_op_verdict *out,
                       tl_verdict_fail *fail)
{
    if (tl_budget_passed())
        return fail_budget(fail, r, job);
    if (run_once(r, job, -1, NULL, out, &out->ev, &out->cls, fail) < 0) {
        tl_op_verdict_free(out);
        return -1;
    }
    out->ev.reason = make_reason(out, job->op->text);
    if (!job->variants)
        return 0;
    char *sig = tl_evidence_signature(&out->ev);
    for (int w = 0; w < VAR_COUNT; w++) {
        if (w == VAR_DEVICE && !r->other)
            continue; /* no other device: the run could only end in "no such
                         variant", after a whole setup (a quarter of the runs) */
        tl_evidence vev;
        memset(&vev, 0, sizeof vev);
        const char *name = NULL;
        tl_classify_out vc;
        memset(&vc, 0, sizeof vc);
        int rc = run_once(r, job, w, &name, NULL, &vev, &vc, fail);
        if (rc < 0) {
            tl_classify_out_free(&vc);
            free(sig);
            tl_op_verdict_free(out);
            return -1;
        }
        if (rc == 2) {
            tl_classify_out_free(&vc);
            tl_evidence_free(&vev);
            op_timed_out(job, out);
            break;
        }
        if (rc == 0 && name) {
            out->vcls[out->nvariants] = vc;
            memset(&vc, 0, sizeof vc);
            tl_variant *v = &out->variants[out->nvariants++];
            v->parent = name;
            v->kind = vev.kind;
            v->signature = tl_evidence_signature(&vev);
            if (strcmp(v->signature, sig) != 0)
                out->sometimes = true;
        }
        tl_classify_out_free(&vc);
        tl_evidence_free(&vev);
    }
    free(sig);
    return 0;
}

int tl_verdict_run(const tl_runner *r, const tl_job *job, tl_op_verdict *out,
                   tl_verdict_fail *fail)
{
    memset(out, 0, sizeof *out);
    memset(fail, 0, sizeof *fail);
    /* one deadline for the op: every run, setups, variants, probes, trace */
    double saved = tl_deadline_run_begin(r->opts.timeout);
    int rc = verdict_run(r, job, out, fail);
    tl_deadline_run_end(saved);
    return rc;
}

/* ------------------------------------------------------ storage map */

/* The map of one tensor (see tl_verdict_storage_map). */
static void map_tensor(const tl_tensor *t, tl_storage_map *out)
{
    memset(out, 0, sizeof *out);
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
        return;
    }
    int64_t n = out->hi - out->lo;
    size_t cells = (size_t)(n > 0 ? n : 1);
    int64_t *cell = tl_xmalloc(cells * sizeof *cell);
    int64_t *reads = tl_xcalloc(cells, sizeof *reads);
    for (int64_t k = 0; k < n; k++)
        cell[k] = -1;
    int64_t idx[TL_MAX_DIMS] = {0};
    for (int64_t i = 0; i < numel; i++) {
        int64_t e = t->offset;
        for (int d = 0; d < t->ndim; d++)
            e += idx[d] * t->strides[d];
        if (e >= out->lo && e < out->hi) {
            cell[e - out->lo] = cell[e - out->lo] == -1 ? i : -2;
            reads[e - out->lo]++;
        }
        for (int d = t->ndim - 1; d >= 0; d--) {
            if (++idx[d] < t->sizes[d])
                break;
            idx[d] = 0;
        }
    }
    out->cell = cell;
    out->reads = reads;
}

static void map_copy(const tl_storage_map *src, tl_storage_map *out)
{
    *out = *src;
    out->cell = NULL;
    out->reads = NULL;
    if (!src->cell)
        return;
    size_t cells = (size_t)(src->hi - src->lo > 0 ? src->hi - src->lo : 1);
    out->cell = tl_xmalloc(cells * sizeof *out->cell);
    out->reads = tl_xmalloc(cells * sizeof *out->reads);
    memcpy(out->cell, src->cell, cells * sizeof *out->cell);
    memcpy(out->reads, src->reads, cells * sizeof *out->reads);
}

bool tl_verdict_storage_map(const tl_op_verdict *v, tl_storage_map *out)
{
    memset(out, 0, sizeof *out);
    if (v->traced && (v->map.cell || v->map.too_large)) {
        map_copy(&v->map, out);
        return true;
    }
    if (!v->result || !tl_value_is_tensorlike(v->result))
        return false;
    map_tensor(v->result->u.tensor, out);
    return true;
}

bool tl_verdict_gather(const tl_op_verdict *v, const int64_t **src, int64_t *n)
{
    *src = NULL;
    *n = 0;
    if (!v->gather || v->ngather <= 0)
        return false;
    for (int64_t k = 0; k < v->ngather; k++)
        if (v->gather[k] >= 0) {
            *src = v->gather;
            *n = v->ngather;
            return true;
        }
    return false;
}

void tl_storage_map_free(tl_storage_map *m)
{
    free(m->cell);
    free(m->reads);
    m->cell = NULL;
    m->reads = NULL;
}
