/* snapshot.c - a setup's globals, kept once and deep-copied per run (see
 * snapshot.h for what is kept, what is refused and why).
 *
 * Taking checks every value (check_value: bounded in nodes and depth, so a
 * list that contains itself is refused rather than followed) and moves
 * the storages it will keep off the storage ledger (tl_snapshot_bytes says
 * how many bytes: the holder charges them as held memory, storage.h). Copying walks the kept values
 * with a memo from each original object (value, tensor, storage, version
 * counter) to its copy, so sharing among the originals is sharing among
 * the copies. A tensor's copy is made after its base's (tl_ag_copy_plain
 * links the copy to the base's copy). Nothing kept is ever handed out
 * except immutable values, so the originals stay as the setup left them.
 */
#include "snapshot.h"

#include <stdlib.h>
#include <string.h>

#include "autograd.h"
#include "backend.h"
#include "bind_grad.h"
#include "context.h"
#include "dtype.h"
#include "storage.h"
#include "tensor.h"
#include "util.h"

#define MAX_NODES 4096
#define MAX_DEPTH 32

struct tl_snapshot {
    size_t n;
    char **names;
    tl_value **values;      /* retained originals */
    uint64_t tag;
    uint64_t rng[4];
    bool rng_seeded;
    tl_dtype default_dtype;
    size_t bytes;           /* storage bytes taken off the ledger */
};

/* ------------------------------------------------------------- checking */

typedef struct check {
    size_t nodes, bytes;
    const tl_storage **seen;
    size_t nseen, cap;
} check;

static bool immutable(const tl_value *v)
{
    switch (v->kind) {
    case TL_V_NONE: case TL_V_BOOL: case TL_V_INT: case TL_V_FLOAT: case TL_V_STR:
    case TL_V_SIZE: case TL_V_SLICE: case TL_V_ELLIPSIS: case TL_V_DTYPE:
    case TL_V_DEVICE: case TL_V_MEMFMT: case TL_V_MODULE: case TL_V_TYPE:
        return true;
    case TL_V_FUNC: /* a builtin, or one bound to an immutable (torch.sum) */
        return !tl_bind_grad_owns(v) && (!v->u.func.self || immutable(v->u.func.self));
    default:
        return false;
    }
}

static bool seen_storage(check *c, const tl_storage *s)
{
    for (size_t i = 0; i < c->nseen; i++)
        if (c->seen[i] == s)
            return true;
    if (c->nseen == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 8;
        c->seen = tl_xrealloc(c->seen, c->cap * sizeof *c->seen);
    }
    c->seen[c->nseen++] = s;
    return false;
}

static bool check_tensor(check *c, const tl_tensor *t, int depth)
{
    if (++c->nodes > MAX_NODES || depth > MAX_DEPTH)
        return false;
    const tl_storage *s = t->storage;
    if (!s || tl_tensor_backend(t) != tl_backend_cpu() || s->mem_owner || s->pinned ||
        s->host_owner || s->scratch || s->borrowers)
        return false;
    if (!seen_storage(c, s)) {
        if (s->nbytes > TL_SNAPSHOT_MAX_BYTES - c->bytes)
            return false;
        c->bytes += s->nbytes;
    }
    tl_tensor *base;
    if (!tl_ag_plain(t, &base))
        return false;
    return !base || check_tensor(c, base, depth + 1);
}

static bool check_value(check *c, const tl_value *v, int depth)
{
    if (++c->nodes > MAX_NODES || depth > MAX_DEPTH)
        return false;
    if (immutable(v))
        return true;
    switch (v->kind) {
    case TL_V_TUPLE:
    case TL_V_LIST:
        for (size_t i = 0; i < v->u.seq.n; i++)
            if (!check_value(c, v->u.seq.items[i], depth + 1))
                return false;
        return true;
    case TL_V_TENSOR:
        return check_tensor(c, v->u.tensor, depth + 1);
    default:
        return false;
    }
}

static void uncharge_tensor(tl_tensor *t, size_t *bytes)
{
    if (!t->storage->scratch && !t->storage->mem_owner) {
        *bytes += t->storage->nbytes;
        tl_storage_uncharge(t->storage);
    }
    tl_tensor *base;
    if (tl_ag_plain(t, &base) && base)
        uncharge_tensor(base, bytes);
}

static void uncharge_value(tl_value *v, size_t *bytes)
{
    if (v->kind == TL_V_TUPLE || v->kind == TL_V_LIST)
        for (size_t i = 0; i < v->u.seq.n; i++)
            uncharge_value(v->u.seq.items[i], bytes);
    else if (v->kind == TL_V_TENSOR)
        uncharge_tensor(v->u.tensor, bytes);
}

tl_snapshot *tl_snapshot_take(size_t n, const char *const *names, tl_value *const *values,
                              uint64_t tag)
{
    if (!tl_ag_grad_enabled())
        return NULL;
    check c = {0};
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++)
        ok = check_value(&c, values[i], 0);
    free(c.seen);
    if (!ok)
        return NULL;
    tl_snapshot *s = tl_xcalloc(1, sizeof *s);
    s->n = n;
    s->names = tl_xcalloc(n ? n : 1, sizeof *s->names);
    s->values = tl_xcalloc(n ? n : 1, sizeof *s->values);
    for (size_t i = 0; i < n; i++) {
        s->names[i] = tl_xstrdup(names[i]);
        s->values[i] = tl_value_retain(values[i]);
        uncharge_value(values[i], &s->bytes);
    }
    s->tag = tag;
    tl_context *ctx = tl_context_get();
    memcpy(s->rng, ctx->rng, sizeof s->rng);
    s->rng_seeded = ctx->rng_seeded;
    s->default_dtype = tl_dtype_default();
    return s;
}

size_t tl_snapshot_size(const tl_snapshot *s) { return s->n; }
size_t tl_snapshot_bytes(const tl_snapshot *s) { return s ? s->bytes : 0; }
const char *tl_snapshot_name(const tl_snapshot *s, size_t i) { return s->names[i]; }
uint64_t tl_snapshot_tag(const tl_snapshot *s) { return s->tag; }

void tl_snapshot_free(tl_snapshot *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->names[i]);
        tl_value_release(s->values[i]);
    }
    free(s->names);
    free(s->values);
    free(s);
}

/* -------------------------------------------------------------- copying */

/* the first MEMO_INLINE pairs (a setup's few objects) need no allocation */
#define MEMO_INLINE 16

typedef struct memo {
    const void **from;
    void **to;
    size_t n, cap;
    const void *from0[MEMO_INLINE];
    void *to0[MEMO_INLINE];
} memo;

static void *memo_get(const memo *m, const void *from)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->from[i] == from)
            return m->to[i];
    return NULL;
}

static void memo_put(memo *m, const void *from, void *to)
{
    if (m->n == m->cap) {
        size_t cap = 2 * m->cap;
        const void **f = tl_xmalloc(cap * sizeof *f);
        void **t = tl_xmalloc(cap * sizeof *t);
        memcpy(f, m->from, m->n * sizeof *f);
        memcpy(t, m->to, m->n * sizeof *t);
        if (m->from != m->from0) {
            free(m->from);
            free(m->to);
        }
        m->from = f;
        m->to = t;
        m->cap = cap;
    }
    m->from[m->n] = from;
    m->to[m->n++] = to;
}

/* memo holds no references: every copy it names is owned by a copied
 * value (or by the caller's out[]) until the copy is done */
static tl_tensor *copy_tensor(memo *m, tl_tensor *t, tl_error *err)
{
    tl_tensor *done = memo_get(m, t);
    if (done)
        return tl_tensor_retain(done);
    tl_tensor *base = NULL, *base_copy = NULL;
    (void)tl_ag_plain(t, &base); /* checked when taken */
    if (base && !(base_copy = copy_tensor(m, base, err)))
        return NULL;
    tl_storage *s = memo_get(m, t->storage);
    if (!s) {
        s = tl_storage_copy(t->storage, err);
        if (!s) {
            tl_tensor_release(base_copy);
            return NULL;
        }
        memo_put(m, t->storage, s);
    } else {
        tl_storage_retain(s);
    }
    tl_version *v = memo_get(m, t->version);
    if (!v) {
        v = tl_version_new();
        v->value = t->version->value;
        memo_put(m, t->version, v);
    } else {
        tl_version_retain(v);
    }
    tl_tensor *c = tl_tensor_rebind(t, s, v);
    tl_storage_release(s); /* the tensor holds them now */
    tl_version_release(v);
    tl_ag_copy_plain(t, c, base_copy);
    tl_tensor_release(base_copy); /* c's record holds it */
    memo_put(m, t, c);
    return c;
}

static tl_value *copy_value(memo *m, tl_value *v, tl_error *err)
{
    if (immutable(v))
        return tl_value_retain(v);
    tl_value *done = memo_get(m, v);
    if (done)
        return tl_value_retain(done);
    tl_value *c = NULL;
    if (v->kind == TL_V_TENSOR) {
        tl_tensor *t = copy_tensor(m, v->u.tensor, err);
        if (!t)
            return NULL;
        c = tl_value_tensor(t);
    } else { /* TUPLE, LIST (checked when taken) */
        size_t n = v->u.seq.n;
        c = v->kind == TL_V_TUPLE ? tl_tuple_new(n) : tl_list_new(n);
        if (v->kind == TL_V_TUPLE)
            c->u.seq.rtype = v->u.seq.rtype;
        for (size_t i = 0; i < n; i++) {
            tl_value *it = copy_value(m, v->u.seq.items[i], err);
            if (!it) {
                tl_value_release(c);
                return NULL;
            }
            tl_seq_set(c, i, it);
        }
    }
    memo_put(m, v, c);
    return c;
}

int tl_snapshot_copy(const tl_snapshot *s, tl_value **out, tl_error *err)
{
    memo m;
    m.n = 0;
    m.cap = MEMO_INLINE;
    m.from = m.from0;
    m.to = m.to0;
    size_t i = 0;
    for (; i < s->n; i++)
        if (!(out[i] = copy_value(&m, s->values[i], err)))
            break;
    if (m.from != m.from0) {
        free(m.from);
        free(m.to);
    }
    if (i < s->n) {
        while (i-- > 0)
            tl_value_release(out[i]);
        return -1;
    }
    tl_context *ctx = tl_context_get();
    memcpy(ctx->rng, s->rng, sizeof ctx->rng);
    ctx->rng_seeded = s->rng_seeded;
    tl_dtype_set_default(s->default_dtype);
    return 0;
}
