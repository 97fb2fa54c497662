/* autograd.c - the graph, the saved-tensor version checks and the engine.
 *
 * Records: a tensor's autograd record (tl_ag_meta, t->ag) holds its
 * grad_fn and output number, .grad, retain_grad(), the AccumulateGrad of a
 * leaf (a weak cache: the node owns the leaf), and for a view its root
 * base, how it was made (plain, by split/chunk/unbind, under no_grad) and
 * the version it had when it got its grad_fn. Records are refcounted: a
 * node that saved a non-output tensor keeps the record (not the tensor),
 * so its error message can name that tensor's current grad_fn; the
 * record's contents die with the tensor.
 *
 * Nodes: refcounted; edges own their targets. Saved tensors are aliases
 * (same storage and version counter, no record), so a node that saves its
 * own output makes no cycle. Releasing is iterative (a work list), and so
 * are graph discovery and execution (PyTorch's order: a ready queue by
 * sequence number, newest first), so depth never reaches the C stack.
 *
 * Memory: gradient buffers are storages (ledger); node headers and their
 * small arrays are counted in ag_bytes and a node that would take
 * ledger-live + ag_bytes past --max-bytes is refused with the allocator's
 * error, so a 10^6-node graph is bounded like any tensor.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autograd.h"
#include "freelist.h"
#include "grad_kernels.h"
#include "util.h"

/* ===================================================================== */
/* data structures                                                        */

typedef struct ag_edge {
    tl_ag_node *fn; /* owned (NULL: no gradient flows there) */
    int nr;
} ag_edge;

/* Shapes and geometries keep up to AG_SMALL dims inline (sizes points at
 * `small`), so most nodes make no allocation per input and output; they
 * live in their node's arrays and are never copied by value. */
#define AG_SMALL 4

typedef struct ag_shape {
    tl_dtype dt;
    int ndim;
    int64_t *sizes;
    int64_t small[AG_SMALL];
} ag_shape;

typedef struct ag_geom {
    int ndim;
    int64_t *sizes, *strides;
    int64_t offset;
    int64_t small[2 * AG_SMALL];
} ag_geom;

typedef struct tl_ag_meta tl_ag_meta;

typedef struct ag_saved {
    tl_tensor *t;          /* alias without a record; NULL: slot unused */
    int64_t version;
    bool is_output;
    bool is_leaf;
    tl_ag_meta *owner;     /* record of the saved tensor (non-output) */
    const char *fn_name;   /* its grad_fn when saved (NULL: none) */
    int fn_nr;
} ag_saved;

enum { SV_SELF, SV_OTHER, SV_RESULT, SV_N };

enum ag_kind { K_OP, K_ACC, K_COPYSLICES, K_UNSUPPORTED };

struct tl_ag_node {
    int refcount;
    enum ag_kind kind;
    tl_ag_op op;
    const char *name;
    uint64_t seq;
    int nnext;
    ag_edge *next;
    ag_shape *inm;          /* per input: dtype and shape */
    int nout;
    ag_shape *outm;
    ag_saved saved[SV_N];
    bool had_saved, released;
    double s0, s1;
    bool has0, has1;
    int nd;
    int64_t dims[8];        /* reductions over more dims use all_dims */
    bool all_dims, keepdim, multi;
    int64_t dim;
    tl_tensor *map;         /* INDEX/SETITEM, private */
    const char *what;       /* NOT_IMPL: the aten op (static) */
    ag_geom *geom;          /* VIEW: [0] input, [1+k] output k;
                               COPYSLICES: [0] base, [1] view */
    tl_ag_node *inner;      /* COPYSLICES: the in-place op's node */
    tl_tensor *leaf;        /* ACC: owned */
    tl_tensor **retain;     /* per output: weak, retain_grad() tensors */
    size_t bytes;
    /* engine scratch */
    uint64_t mark;
    int64_t deps;
    tl_gbuf **gin;          /* per output: the gradient arriving (gin1
                             * for a one-output node) */
    tl_gbuf *gin1;
};

/* Free what arrived at n's outputs and its array. */
static void gin_drop(tl_ag_node *n)
{
    if (!n->gin)
        return;
    for (int k = 0; k < n->nout; k++)
        tl_gbuf_free(n->gin[k]);
    if (n->gin != &n->gin1)
        free(n->gin);
    n->gin = NULL;
}

struct tl_ag_meta {
    int refcount;
    tl_tensor *self;        /* weak; NULL once the tensor died */
    tl_ag_node *grad_fn;    /* owned */
    int nr;
    tl_tensor *grad;        /* owned */
    bool retains_grad;
    tl_ag_node *acc;        /* weak: AccumulateGrad of this leaf */
    tl_tensor *base;        /* owned: root base of a view */
    int creation;
    const char *made_by;    /* multi-output view: the node name */
    int made_nr;
    int64_t attr_version;
};

enum { MADE_PLAIN, MADE_MULTI, MADE_NO_GRAD };

static _Thread_local uint64_t next_seq = 1;
static _Thread_local uint64_t next_mark = 1;
static _Thread_local int64_t ag_bytes, ag_nodes;

int64_t tl_ag_live_bytes(void) { return ag_bytes; }
int64_t tl_ag_live_nodes(void) { return ag_nodes; }

bool tl_ag_grad_enabled(void) { return tl_tensor_grad_mode(); }
void tl_ag_set_grad_enabled(bool on) { tl_tensor_set_grad_mode(on); }

/* ===================================================================== */
/* records                                                                */

static void on_tensor_free(tl_tensor *t);

/* records are made for most results (every view links its base) */
static _Thread_local tl_freelist metas;

static tl_ag_meta *meta_of(tl_tensor *t)
{
    if (!t->ag) {
        static bool hooked;
        if (!hooked) {
            tl_tensor_set_ag_free(on_tensor_free);
            hooked = true;
        }
        tl_ag_meta *m = tl_freelist_pop(&metas);
        if (!m)
            m = tl_xmalloc(sizeof *m);
        memset(m, 0, sizeof *m);
        m->refcount = 1;
        m->self = t;
        m->attr_version = t->version ? t->version->value : 0;
        t->ag = m;
    }
    return t->ag;
}

static void meta_release(tl_ag_meta *m)
{
    if (m && --m->refcount == 0)
        tl_freelist_push(&metas, m, 256);
}

static void set_grad_fn(tl_tensor *t, tl_ag_node *fn, int nr)
{
    tl_ag_meta *m = meta_of(t);
    tl_ag_node_retain(fn);
    if (m->retains_grad) {
        if (m->grad_fn && m->grad_fn->retain && m->grad_fn->retain[m->nr] == t)
            m->grad_fn->retain[m->nr] = NULL;
        if (fn) {
            if (!fn->retain)
                fn->retain = tl_xcalloc((size_t)fn->nout, sizeof *fn->retain);
            fn->retain[nr] = t;
        }
    }
    tl_ag_node *old = m->grad_fn;
    m->grad_fn = fn;
    m->nr = nr;
    tl_ag_node_release(old);
}

static void on_tensor_free(tl_tensor *t)
{
    tl_ag_meta *m = t->ag;
    t->ag = NULL;
    m->self = NULL;
    if (m->grad_fn && m->grad_fn->retain && m->grad_fn->retain[m->nr] == t)
        m->grad_fn->retain[m->nr] = NULL;
    tl_ag_node *fn = m->grad_fn;
    tl_tensor *g = m->grad, *b = m->base;
    m->grad_fn = NULL;
    m->grad = NULL;
    m->base = NULL;
    tl_ag_node_release(fn);
    tl_tensor_release(g);
    tl_tensor_release(b);
    meta_release(m);
}

/* ===================================================================== */
/* nodes                                                                  */

static _Thread_local tl_ag_node *rel_inline[64];
static _Thread_local tl_ag_node **rel_stack;
static _Thread_local size_t rel_n, rel_cap;
static _Thread_local bool rel_active;

static void saved_clear(ag_saved *s)
{
    tl_tensor_release(s->t);
    meta_release(s->owner);
    s->t = NULL;
    s->owner = NULL;
}

static void shape_free(ag_shape *s)
{
    if (s->sizes != s->small)
        free(s->sizes);
}

static void geom_free(ag_geom *g)
{
    if (g->sizes != g->small) {
        free(g->sizes);
        free(g->strides);
    }
}

static void node_destroy(tl_ag_node *n)
{
    for (int i = 0; i < n->nnext; i++)
        tl_ag_node_release(n->next[i].fn);
    for (int i = 0; i < SV_N; i++)
        saved_clear(&n->saved[i]);
    for (int i = 0; i < n->nnext; i++)
        shape_free(&n->inm[i]);
    for (int i = 0; i < n->nout; i++)
        shape_free(&n->outm[i]);
    if (n->geom) {
        int ng = n->kind == K_COPYSLICES ? 2 : 1 + n->nout;
        for (int i = 0; i < ng; i++)
            geom_free(&n->geom[i]);
        free(n->geom);
    }
    if (n->leaf) {
        if (n->leaf->ag && n->leaf->ag->acc == n)
            n->leaf->ag->acc = NULL;
        tl_tensor_release(n->leaf);
    }
    tl_tensor_release(n->map);
    tl_ag_node_release(n->inner);
    free(n->retain);
    gin_drop(n);
    ag_bytes -= (int64_t)n->bytes;
    ag_nodes--;
    free(n);
}

tl_ag_node *tl_ag_node_retain(tl_ag_node *n)
{
    if (n)
        n->refcount++;
    return n;
}

void tl_ag_node_release(tl_ag_node *n)
{
    if (!n || --n->refcount > 0)
        return;
    if (rel_n == rel_cap) {
        if (!rel_stack) { /* the first 64 need no allocation */
            rel_stack = rel_inline;
            rel_cap = TL_ARRAY_LEN(rel_inline);
        } else {
            tl_ag_node **grown = tl_xmalloc(2 * rel_cap * sizeof *grown);
            memcpy(grown, rel_stack, rel_cap * sizeof *grown);
            if (rel_stack != rel_inline)
                free(rel_stack);
            rel_stack = grown;
            rel_cap *= 2;
        }
    }
    rel_stack[rel_n++] = n;
    if (rel_active)
        return; /* the loop below, further up the stack, will free it */
    rel_active = true;
    while (rel_n)
        node_destroy(rel_stack[--rel_n]);
    rel_active = false;
    if (rel_stack != rel_inline)
        free(rel_stack);
    rel_stack = NULL;
    rel_cap = 0;
}

const char *tl_ag_node_name(const tl_ag_node *n) { return n->name; }

static void shape_set(ag_shape *s, tl_dtype dt, int ndim, const int64_t *sizes)
{
    s->dt = dt;
    s->ndim = ndim;
    s->sizes = ndim <= AG_SMALL ? s->small
                                : tl_xmalloc(sizeof(int64_t) * (size_t)ndim);
    for (int d = 0; d < ndim; d++)
        s->sizes[d] = sizes[d];
}

static void geom_set(ag_geom *g, const tl_tensor *t)
{
    g->ndim = t->ndim;
    if (t->ndim <= AG_SMALL) {
        g->sizes = g->small;
        g->strides = g->small + AG_SMALL;
    } else {
        g->sizes = tl_xmalloc(sizeof(int64_t) * (size_t)t->ndim);
        g->strides = tl_xmalloc(sizeof(int64_t) * (size_t)t->ndim);
    }
    for (int d = 0; d < t->ndim; d++) {
        g->sizes[d] = t->sizes[d];
        g->strides[d] = t->strides[d];
    }
    g->offset = t->offset;
}

static void geom_get(const ag_geom *g, tl_geom *out)
{
    out->ndim = g->ndim;
    for (int d = 0; d < g->ndim; d++) {
        out->sizes[d] = g->sizes[d];
        out->strides[d] = g->strides[d];
    }
    out->offset = g->offset;
}

/* A fresh node (refcount 1) with nnext empty edges and nout outputs. */
static tl_ag_node *node_new(enum ag_kind kind, const char *name, int nnext,
                            int nout, tl_error *err)
{
    size_t bytes = sizeof(tl_ag_node) + (size_t)nnext * (sizeof(ag_edge) + sizeof(ag_shape) + 16) +
                   (size_t)nout * (sizeof(ag_shape) + 16);
    size_t limit = tl_alloc_limit(), live = tl_alloc_live();
    if (live + (size_t)ag_bytes + bytes > limit) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "[enforce fail at alloc_cpu.cpp:75] data. DefaultCPUAllocator: "
                     "not enough memory: you tried to allocate %zu bytes. (tlab "
                     "limit: %zu bytes of live tensor storage and autograd graph; "
                     "see --max-bytes)", bytes, limit);
        return NULL;
    }
    /* one block: the node, then its edges, input shapes and output shapes */
    size_t ne = (size_t)(nnext ? nnext : 1), no = (size_t)(nout ? nout : 1);
    _Static_assert(sizeof(tl_ag_node) % _Alignof(ag_edge) == 0 &&
                   sizeof(ag_edge) % _Alignof(ag_shape) == 0, "node block layout");
    tl_ag_node *n = tl_xcalloc(1, sizeof *n + ne * sizeof(ag_edge) + (ne + no) * sizeof(ag_shape));
    n->refcount = 1;
    n->kind = kind;
    n->name = name;
    n->seq = next_seq++;
    n->nnext = nnext;
    n->next = (ag_edge *)(n + 1);
    n->inm = (ag_shape *)(n->next + ne);
    n->nout = nout;
    n->outm = n->inm + ne;
    n->bytes = bytes;
    ag_bytes += (int64_t)bytes;
    ag_nodes++;
    return n;
}

/* ===================================================================== */
/* edges and views                                                        */

static int regenerate_view(tl_tensor *t, tl_error *err);

static bool view_stale(const tl_tensor *t)
{
    const tl_ag_meta *m = t->ag;
    return m && m->base && m->creation == MADE_PLAIN && m->base->requires_grad &&
           t->version->value != m->attr_version;
}

/* The edge a gradient for t follows (e->fn a NEW reference, NULL when no
 * gradient flows), creating the leaf's AccumulateGrad or a stale view's
 * AsStridedBackward0 on the way. */
static int edge_of(tl_tensor *t, ag_edge *e, tl_error *err)
{
    e->fn = NULL;
    e->nr = 0;
    if (!t || !t->requires_grad)
        return 0;
    if (view_stale(t) && regenerate_view(t, err) < 0)
        return -1;
    tl_ag_meta *m = t->ag;
    if (m && m->grad_fn) {
        e->fn = tl_ag_node_retain(m->grad_fn);
        e->nr = m->nr;
        return 0;
    }
    if (t->is_leaf) {
        m = meta_of(t);
        if (m->acc) {
            e->fn = tl_ag_node_retain(m->acc);
            return 0;
        }
        tl_ag_node *acc = node_new(K_ACC, "AccumulateGrad", 0, 1, err);
        if (!acc)
            return -1;
        acc->seq = UINT64_MAX; /* PyTorch runs AccumulateGrad first */
        shape_set(&acc->outm[0], t->dtype, t->ndim, t->sizes);
        acc->leaf = tl_tensor_retain(t);
        m->acc = acc; /* weak; the edge holds the reference */
        e->fn = acc;
        return 0;
    }
    /* requires grad, no leaf, no grad_fn: made by an op tlab does not
     * differentiate; backward through it is refused when reached */
    tl_ag_node *u = node_new(K_UNSUPPORTED, "NotImplemented", 0, 1, err);
    if (!u)
        return -1;
    shape_set(&u->outm[0], t->dtype, t->ndim, t->sizes);
    set_grad_fn(t, u, 0);
    e->fn = u;
    return 0;
}

/* Store the edge for t into slot i of n. */
static int link(tl_ag_node *n, int i, tl_tensor *t, tl_error *err)
{
    ag_edge e;
    if (edge_of(t, &e, err) < 0)
        return -1;
    n->next[i] = e;
    return 0;
}

static int regenerate_view(tl_tensor *t, tl_error *err)
{
    tl_ag_meta *m = t->ag;
    tl_tensor *base = m->base;
    tl_ag_node *n = node_new(K_OP, "AsStridedBackward0", 1, 1, err);
    if (!n)
        return -1;
    n->op = TL_AG_VIEW;
    if (link(n, 0, base, err) < 0) {
        tl_ag_node_release(n);
        return -1;
    }
    shape_set(&n->inm[0], base->dtype, base->ndim, base->sizes);
    shape_set(&n->outm[0], t->dtype, t->ndim, t->sizes);
    n->geom = tl_xcalloc(2, sizeof *n->geom);
    geom_set(&n->geom[0], base);
    geom_set(&n->geom[1], t);
    set_grad_fn(t, n, 0);
    tl_ag_node_release(n);
    m->attr_version = t->version->value;
    t->requires_grad = true;
    t->is_leaf = false;
    return 0;
}

tl_ag_node *tl_ag_grad_fn(tl_tensor *t, tl_error *err)
{
    if (t->requires_grad && view_stale(t) && regenerate_view(t, err) < 0)
        return NULL;
    if (!t->ag || !t->ag->grad_fn || t->ag->grad_fn->kind == K_UNSUPPORTED)
        return NULL;
    return tl_ag_node_retain(t->ag->grad_fn);
}

tl_tensor *tl_ag_base(const tl_tensor *t) { return t->ag ? t->ag->base : NULL; }

bool tl_ag_has_grad_fn(const tl_tensor *t)
{
    return t->ag && t->ag->grad_fn && t->ag->grad_fn->kind != K_UNSUPPORTED;
}

/* ===================================================================== */
/* saving                                                                 */

static void save(tl_ag_node *n, int slot, tl_tensor *t, bool is_output,
                 int out_nr, int64_t version)
{
    ag_saved *s = &n->saved[slot];
    s->t = tl_tensor_alias(t);
    s->t->requires_grad = false;
    s->t->is_leaf = true;
    s->t->is_view_of_grad_leaf = false;
    s->version = version;
    s->is_output = is_output;
    n->had_saved = true;
    if (is_output) {
        s->fn_name = n->name;
        s->fn_nr = out_nr;
        return;
    }
    s->is_leaf = t->is_leaf;
    if (!t->is_leaf) {
        s->owner = meta_of(t);
        s->owner->refcount++;
        if (s->owner->grad_fn) {
            s->fn_name = s->owner->grad_fn->name;
            s->fn_nr = s->owner->nr;
        }
    }
}

/* A message built by appends (the version error is raised on every run of
 * a sheet that predicts it: formatted with snprintf, 4 k instructions). */
typedef struct msgbuf {
    char b[TL_ERRMSG_MAX];
    size_t n;
} msgbuf;

static void msg_puts(msgbuf *m, const char *s)
{
    size_t len = strlen(s);
    if (len > sizeof m->b - 1 - m->n)
        len = sizeof m->b - 1 - m->n;
    memcpy(m->b + m->n, s, len);
    m->n += len;
    m->b[m->n] = 0;
}

static void msg_int(msgbuf *m, long long v)
{
    char d[24];
    int k = (int)sizeof d;
    d[--k] = 0;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do
        d[--k] = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        d[--k] = '-';
    msg_puts(m, d + k);
}

static void shape_str(const tl_tensor *t, msgbuf *m)
{
    msg_puts(m, "[");
    for (int d = 0; d < t->ndim; d++) {
        if (d)
            msg_puts(m, ", ");
        msg_int(m, (long long)t->sizes[d]);
    }
    msg_puts(m, "]");
}

/* A saved tensor's type as PyTorch's message names it: the legacy
 * torch.FloatTensor names, and CPUBoolType for the types that have none. */
static const char *saved_type_name(tl_dtype dt)
{
    if (dt == TL_BOOL)
        return "CPUBoolType";
    if (dt == TL_BFLOAT16)
        return "CPUBFloat16Type";
    return tl_dtype_tensor_type(dt);
}

/* PyTorch's SavedVariable::unpack checks. */
static int unpack_check(tl_ag_node *n, tl_error *err)
{
    if (n->released && n->had_saved)
        return tl_error_set_text(err, TL_ERR_RUNTIME,
                            "Trying to backward through the graph a second time (or "
                            "directly access saved tensors after they have already been "
                            "freed). Saved intermediate values of the graph are freed when "
                            "you call .backward() or autograd.grad(). Specify "
                            "retain_graph=True if you need to backward through the graph a "
                            "second time or if you need to access saved tensors after "
                            "calling backward.");
    for (int i = 0; i < SV_N; i++) {
        ag_saved *s = &n->saved[i];
        if (!s->t || s->t->version->value == s->version)
            continue;
        const char *fname = s->fn_name;
        int fnr = s->fn_nr;
        if (!s->is_output && s->owner && s->owner->self) {
            tl_error e2;
            tl_ag_node *cur = tl_ag_grad_fn(s->owner->self, &e2);
            if (cur) {
                fname = cur->name;
                fnr = s->owner->nr;
                tl_ag_node_release(cur);
            }
        }
        msgbuf m;
        m.n = 0;
        msg_puts(&m, "one of the variables needed for gradient computation has "
                     "been modified by an inplace operation: [");
        msg_puts(&m, saved_type_name(s->t->dtype));
        msg_puts(&m, " ");
        shape_str(s->t, &m);
        msg_puts(&m, "]");
        if (fname && !s->is_leaf) {
            msg_puts(&m, ", which is output ");
            msg_int(&m, fnr);
            msg_puts(&m, " of ");
            msg_puts(&m, fname);
            msg_puts(&m, ",");
        }
        msg_puts(&m, " is at version ");
        msg_int(&m, (long long)s->t->version->value);
        msg_puts(&m, "; expected version ");
        msg_int(&m, (long long)s->version);
        msg_puts(&m, " instead. Hint: enable anomaly detection to find the operation "
                     "that failed to compute its gradient, with "
                     "torch.autograd.set_detect_anomaly(True).");
        return tl_error_set_text(err, TL_ERR_RUNTIME, m.b);
    }
    return 0;
}

/* ===================================================================== */
/* recording                                                              */

static bool rg(const tl_tensor *t) { return t && t->requires_grad; }

/* What a formula saves: which slots of the op read self/other/result. */
static void save_for(tl_ag_node *n, const tl_ag_call *c, bool inplace,
                     tl_tensor *orig)
{
    tl_tensor *self = c->in[0];
    tl_tensor *other = c->nin > 1 ? c->in[1] : NULL;
    tl_tensor *out = c->out[0];
    bool g0 = rg(self) || inplace, g1 = rg(other);
    /* an in-place op's inputs were saved before it bumped the version */
    int64_t other_v = other ? other->version->value : 0;
    if (inplace && other && other->version == self->version)
        other_v--;
    tl_tensor *oldself = inplace ? orig : self;
    switch (c->op) {
    case TL_AG_EXP: case TL_AG_SQRT: case TL_AG_TANH: case TL_AG_SIGMOID:
    case TL_AG_RELU:
        save(n, SV_RESULT, out, true, 0, out->version->value);
        break;
    case TL_AG_LOG: case TL_AG_SIN: case TL_AG_COS: case TL_AG_ABS:
    case TL_AG_CLAMP: case TL_AG_CLAMP_MIN: case TL_AG_CLAMP_MAX: case TL_AG_POW:
        if (oldself)
            save(n, SV_SELF, oldself, false, 0, oldself->version->value);
        break;
    case TL_AG_MUL: case TL_AG_MATMUL:
        if (!other && g0)
            n->had_saved = true; /* PyTorch saves the number as a tensor */
        if (other && g0)
            save(n, SV_OTHER, other, false, 0, other_v);
        if (g1 && oldself)
            save(n, SV_SELF, oldself, false, 0, oldself->version->value);
        break;
    case TL_AG_DIV:
        if (!other && g0)
            n->had_saved = true;
        if (other && (g0 || g1))
            save(n, SV_OTHER, other, false, 0, other_v);
        if (g1 && oldself)
            save(n, SV_SELF, oldself, false, 0, oldself->version->value);
        break;
    case TL_AG_POW_T:
        if (oldself)
            save(n, SV_SELF, oldself, false, 0, oldself->version->value);
        save(n, SV_OTHER, other, false, 0, other_v);
        save(n, SV_RESULT, out, true, 0, out->version->value);
        break;
    case TL_AG_POW_BASE:
        if (!inplace)
            save(n, SV_SELF, self, false, 0, self->version->value);
        save(n, SV_RESULT, out, true, 0, out->version->value);
        break;
    case TL_AG_RDIV: {
        /* reciprocal's saved result is internal to PyTorch's pair of
         * nodes: keep a private 1/x, which no user write can reach */
        tl_error e2;
        tl_gbuf *g = tl_gbuf_from_tensor(self, &e2);
        if (!g)
            break;
        for (int64_t i = 0; i < g->n; i++)
            g->v[i] = tl_gk_round(g->dt, 1.0 / g->v[i]);
        tl_tensor *r = tl_gbuf_to_tensor(g, tl_backend_cpu(), &e2);
        tl_gbuf_free(g);
        if (r) {
            save(n, SV_RESULT, r, false, 0, r->version->value);
            n->saved[SV_RESULT].is_leaf = true;
            tl_tensor_release(r);
        }
        break;
    }
    /* ---- math: what PyTorch's formulas save ---- */
    case TL_AG_RSQRT: case TL_AG_RECIPROCAL: case TL_AG_EXPM1: case TL_AG_EXP2:
    case TL_AG_TAN:
        save(n, SV_RESULT, out, true, 0, out->version->value);
        break;
    case TL_AG_LOG2: case TL_AG_LOG10: case TL_AG_LOG1P: case TL_AG_ASIN:
    case TL_AG_ACOS: case TL_AG_ATAN: case TL_AG_SINH: case TL_AG_COSH:
    case TL_AG_ERF: case TL_AG_VAR:
        if (oldself)
            save(n, SV_SELF, oldself, false, 0, oldself->version->value);
        break;
    case TL_AG_MAXIMUM: case TL_AG_MINIMUM: case TL_AG_ATAN2:
        if (oldself)
            save(n, SV_SELF, oldself, false, 0, oldself->version->value);
        if (other)
            save(n, SV_OTHER, other, false, 0, other_v);
        break;
    case TL_AG_DIV_MODE: /* PyTorch's formulas read them as DIV's do */
        if (other && (g0 || g1))
            save(n, SV_OTHER, other, false, 0, other_v);
        if (other && g1 && oldself)
            save(n, SV_SELF, oldself, false, 0, oldself->version->value);
        break;
    case TL_AG_REMAINDER: case TL_AG_FMOD:
        /* only other's formula reads them */
        if (other && g1) {
            if (oldself)
                save(n, SV_SELF, oldself, false, 0, oldself->version->value);
            save(n, SV_OTHER, other, false, 0, other_v);
        }
        break;
    case TL_AG_WHERE:
        if (c->map)
            save(n, SV_SELF, (tl_tensor *)c->map, false, 0, c->map->version->value);
        break;
    case TL_AG_MAX_ALL: case TL_AG_AMAX: case TL_AG_STD: case TL_AG_PROD:
        save(n, SV_SELF, self, false, 0, self->version->value);
        save(n, SV_RESULT, out, true, 0, out->version->value);
        break;
    case TL_AG_MAX_DIM:
        if (c->nout > 1 && c->out[1])
            save(n, SV_RESULT, c->out[1], true, 1, c->out[1]->version->value);
        break;
    case TL_AG_CUMPROD:
        if (oldself)
            save(n, SV_SELF, oldself, false, 0, oldself->version->value);
        save(n, SV_RESULT, out, true, 0, out->version->value);
        break;
    case TL_AG_LERP: /* a tensor weight's formulas read self, end and weight */
        if (c->nin > 2 && c->in[2]) {
            if (oldself)
                save(n, SV_SELF, oldself, false, 0, oldself->version->value);
            if (other)
                save(n, SV_OTHER, other, false, 0, other_v);
            save(n, SV_RESULT, c->in[2], false, 0,
                 c->in[2]->version->value - (inplace && c->in[2]->version == self->version));
        }
        break;
    case TL_AG_CLAMP_T: /* self, min, max (max in the third slot) */
        if (oldself)
            save(n, SV_SELF, oldself, false, 0, oldself->version->value);
        if (other)
            save(n, SV_OTHER, other, false, 0, other_v);
        if (c->nin > 2 && c->in[2])
            save(n, SV_RESULT, c->in[2], false, 0,
                 c->in[2]->version->value - (inplace && c->in[2]->version == self->version));
        break;
    case TL_AG_INDEX: /* grad-shape: the index tensor the op saves (in[1]) */
        if (other)
            save(n, SV_OTHER, other, false, 0, other_v);
        break;
    case TL_AG_SETITEM: case TL_AG_PUT_ACC: /* grad-shape: index_put's first index */
        if (c->nin > 2 && c->in[2])
            save(n, SV_OTHER, c->in[2], false, 0, c->in[2]->version->value);
        break;
    case TL_AG_SORT: /* grad-shape: SortBackward0/TopkBackward0 save indices */
        if (c->nout > 1 && c->out[1]) {
            save(n, SV_RESULT, c->out[1], true, 1, c->out[1]->version->value);
            n->saved[SV_RESULT].fn_name = NULL; /* not differentiable: no
                                                   "which is output 1 of" */
        }
        break;
    default:
        break;
    }
}

/* Is `t` one of the call's inputs (the same object)? */
static bool is_input(const tl_ag_call *c, const tl_tensor *t)
{
    for (int i = 0; i < c->nin; i++)
        if (c->in[i] == t)
            return true;
    return false;
}

static void copy_params(tl_ag_node *n, const tl_ag_call *c)
{
    n->op = c->op;
    n->s0 = c->s0;
    n->s1 = c->s1;
    n->has0 = c->has0;
    n->has1 = c->has1;
    n->all_dims = c->all_dims || c->nd > 8;
    n->nd = n->all_dims ? 0 : c->nd;
    for (int i = 0; i < n->nd; i++)
        n->dims[i] = c->dims[i];
    n->keepdim = c->keepdim;
    n->dim = c->dim;
    n->multi = c->multi_output;
    n->what = c->what;
}

/* The view bookkeeping of an output of a view op. */
static void note_view(const tl_ag_call *c, tl_tensor *out, int k, bool nograd)
{
    tl_tensor *in = c->in[0];
    if (!out || out == in || out->storage != in->storage)
        return;
    tl_ag_meta *pm = in->ag;
    tl_tensor *base = pm && pm->base ? pm->base : in;
    tl_ag_meta *m = meta_of(out);
    tl_tensor_retain(base);
    tl_tensor_release(m->base);
    m->base = base;
    m->creation = MADE_PLAIN;
    if (c->multi_output) {
        m->creation = MADE_MULTI;
        m->made_by = c->name;
        m->made_nr = k;
    } else if (nograd) {
        m->creation = MADE_NO_GRAD;
    } else if (pm && pm->base && pm->creation != MADE_PLAIN) {
        /* a view of such a view inherits how it was made; PyTorch's
         * message then names the new view's own node */
        m->creation = pm->creation;
        m->made_by = c->name;
        m->made_nr = k;
    }
    m->attr_version = out->version->value;
}

bool tl_ag_plain(const tl_tensor *t, tl_tensor **base)
{
    const tl_ag_meta *m = t->ag;
    *base = NULL;
    if (!m)
        return true;
    if (m->grad_fn || m->grad || m->retains_grad || m->acc)
        return false;
    *base = m->base;
    return true;
}

void tl_ag_copy_plain(const tl_tensor *src, tl_tensor *dst, tl_tensor *base_copy)
{
    const tl_ag_meta *sm = src->ag;
    if (!sm)
        return;
    tl_ag_meta *m = meta_of(dst);
    m->base = base_copy ? tl_tensor_retain(base_copy) : NULL;
    m->creation = sm->creation;
    m->made_by = sm->made_by;
    m->made_nr = sm->made_nr;
    m->attr_version = sm->attr_version;
}

int tl_ag_record(const tl_ag_call *c, tl_error *err)
{
    bool any = false;
    for (int i = 0; i < c->nin; i++)
        any = any || rg(c->in[i]);
    bool on = tl_ag_grad_enabled();
    if (c->op == TL_AG_VIEW)
        for (int k = 0; k < c->nout; k++)
            note_view(c, c->out[k], k, !on && any);
    if (!on || !any) {
        for (int k = 0; k < c->nout; k++) {
            tl_tensor *o = c->out[k];
            if (!o || is_input(c, o))
                continue;
            if (c->op == TL_AG_VIEW && any) {
                o->is_leaf = true; /* a view made under no_grad */
                continue;
            }
            o->requires_grad = false;
            o->is_leaf = true;
            o->is_view_of_grad_leaf = false;
        }
        return 0;
    }
    bool fresh = false;
    for (int k = 0; k < c->nout; k++)
        fresh = fresh || (c->out[k] && !is_input(c, c->out[k]) &&
                          tl_dtype_is_floating(c->out[k]->dtype));
    if (!fresh)
        return 0;
    tl_ag_node *n = node_new(K_OP, c->name, c->nin, c->nout, err);
    if (!n)
        return -1;
    copy_params(n, c);
    for (int i = 0; i < c->nin; i++) {
        tl_tensor *t = c->in[i];
        if (t) {
            shape_set(&n->inm[i], t->dtype, t->ndim, t->sizes);
            if (link(n, i, t, err) < 0)
                goto fail;
        }
    }
    for (int k = 0; k < c->nout; k++)
        if (c->out[k])
            shape_set(&n->outm[k], c->out[k]->dtype, c->out[k]->ndim, c->out[k]->sizes);
    if (c->op == TL_AG_VIEW) {
        n->geom = tl_xcalloc((size_t)(1 + c->nout), sizeof *n->geom);
        geom_set(&n->geom[0], c->in[0]);
        for (int k = 0; k < c->nout; k++)
            geom_set(&n->geom[1 + k], c->out[k]);
    }
    if (c->map)
        n->map = tl_tensor_alias(c->map);
    save_for(n, c, false, NULL);
    for (int k = 0; k < c->nout; k++) {
        tl_tensor *o = c->out[k];
        if (!o || is_input(c, o))
            continue;
        if (!tl_dtype_is_floating(o->dtype)) {
            o->requires_grad = false;
            o->is_leaf = true;
            continue;
        }
        o->requires_grad = true;
        o->is_leaf = false;
        set_grad_fn(o, n, k);
        if (o->ag)
            o->ag->attr_version = o->version->value;
    }
    tl_ag_node_release(n);
    return 0;
fail:
    tl_ag_node_release(n);
    return -1;
}

/* Does the in-place form of op read self's value from before the write? */
static bool needs_orig(tl_ag_op op, bool other_rg)
{
    switch (op) {
    case TL_AG_LOG: case TL_AG_SIN: case TL_AG_COS: case TL_AG_ABS:
    case TL_AG_CLAMP: case TL_AG_CLAMP_MIN: case TL_AG_CLAMP_MAX: case TL_AG_POW:
    case TL_AG_POW_T:
        return true;
    case TL_AG_MUL: case TL_AG_DIV:
        return other_rg;
    /* math */
    case TL_AG_LOG2: case TL_AG_LOG10: case TL_AG_LOG1P: case TL_AG_ASIN:
    case TL_AG_ACOS: case TL_AG_ATAN: case TL_AG_SINH: case TL_AG_COSH:
    case TL_AG_ERF: case TL_AG_ATAN2: case TL_AG_CLAMP_T: case TL_AG_CUMPROD:
    case TL_AG_LERP:
        return true;
    case TL_AG_REMAINDER: case TL_AG_FMOD:
        return other_rg;
    default:
        return false;
    }
}

/* self as the last tl_ag_inplace_begin saw it: the runtime's in-place op
 * may flip requires_grad (an operand requiring grad), but the history the
 * node links to is the one from before */
static _Thread_local const tl_tensor *pre_self;
static _Thread_local bool pre_rg;

int tl_ag_inplace_begin(tl_ag_op op, tl_tensor *self, int nothers,
                        tl_tensor *const *others, tl_tensor **orig, tl_error *err)
{
    *orig = NULL;
    pre_self = self;
    pre_rg = self->requires_grad;
    if (!tl_ag_grad_enabled())
        return 0;
    bool org = false;
    for (int i = 0; i < nothers; i++)
        org = org || rg(others[i]);
    if (!rg(self) && !org)
        return 0;
    tl_ag_meta *m = self->ag;
    if (m && m->base) {
        if (m->creation == MADE_MULTI)
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "Output %d of %s is a view and is being modified inplace. "
                                "This view is the output of a function that returns "
                                "multiple views. Such functions do not allow the output "
                                "views to be modified inplace. You should replace the "
                                "inplace operation by an out-of-place one.",
                                m->made_nr, m->made_by);
        if (m->creation == MADE_NO_GRAD && m->base->requires_grad)
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "A view was created in no_grad mode and is being modified "
                                "inplace with grad mode enabled. Given that this use case "
                                "is ambiguous and error-prone, it is forbidden. You can "
                                "clarify your code by moving both the view and the inplace "
                                "either both inside the no_grad block (if you don't want "
                                "the inplace to be tracked) or both outside (if you want "
                                "the inplace to be tracked).");
        if (rg(self) && m->base->is_leaf)
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "a view of a leaf Variable that requires grad is being "
                                "used in an in-place operation.");
    }
    if (rg(self) && self->is_leaf)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "a leaf Variable that requires grad is being used in an "
                            "in-place operation.");
    if (tl_dtype_is_floating(self->dtype) && needs_orig(op, org)) {
        tl_gbuf *g = tl_gbuf_from_tensor(self, err);
        if (!g)
            return -1;
        *orig = tl_gbuf_to_tensor(g, tl_backend_cpu(), err);
        tl_gbuf_free(g);
        if (!*orig)
            return -1;
    }
    return 0;
}

int tl_ag_record_inplace(const tl_ag_call *c, tl_tensor *orig, tl_error *err)
{
    tl_tensor *self = c->in[0];
    bool any = false;
    for (int i = 0; i < c->nin; i++)
        any = any || rg(c->in[i]);
    if (!tl_ag_grad_enabled() || !any || !tl_dtype_is_floating(self->dtype)) {
        tl_tensor_release(orig);
        return 0;
    }
    tl_ag_meta *m = self->ag;
    bool on_view = m && m->base && m->creation == MADE_PLAIN;
    tl_ag_node *n = node_new(K_OP, c->name, c->nin, 1, err);
    if (!n) {
        tl_tensor_release(orig);
        return -1;
    }
    copy_params(n, c);
    for (int i = 0; i < c->nin; i++) {
        tl_tensor *t = c->in[i];
        if (!t)
            continue;
        shape_set(&n->inm[i], t->dtype, t->ndim, t->sizes);
        if (i == 0 && (on_view || (pre_self == self && !pre_rg)))
            continue; /* CopySlices takes the base's edge instead; or self
                         had no history */
        if (i > 0 && t == self && !on_view) {
            /* x.mul_(x): the operand's edge is self's history before */
            n->next[i] = n->next[0];
            tl_ag_node_retain(n->next[i].fn);
            continue;
        }
        if (link(n, i, t, err) < 0)
            goto fail;
    }
    shape_set(&n->outm[0], self->dtype, self->ndim, self->sizes);
    if (c->map)
        n->map = tl_tensor_alias(c->map);
    save_for(n, c, true, orig);
    tl_tensor_release(orig);
    orig = NULL;
    if (on_view) {
        tl_tensor *base = m->base;
        tl_ag_node *cs = node_new(K_COPYSLICES, "CopySlices", c->nin, 1, err);
        if (!cs)
            goto fail;
        shape_set(&cs->inm[0], base->dtype, base->ndim, base->sizes);
        shape_set(&cs->outm[0], base->dtype, base->ndim, base->sizes);
        if (link(cs, 0, base, err) < 0) {
            tl_ag_node_release(cs);
            goto fail;
        }
        for (int i = 1; i < c->nin; i++) {
            cs->next[i] = n->next[i];
            tl_ag_node_retain(cs->next[i].fn);
            if (c->in[i])
                shape_set(&cs->inm[i], c->in[i]->dtype, c->in[i]->ndim, c->in[i]->sizes);
        }
        cs->geom = tl_xcalloc(2, sizeof *cs->geom);
        geom_set(&cs->geom[0], base);
        geom_set(&cs->geom[1], self);
        cs->inner = n;
        n = NULL;
        base->requires_grad = true;
        base->is_leaf = false;
        set_grad_fn(base, cs, 0);
        tl_ag_node_release(cs);
        self->requires_grad = true;
        self->is_leaf = false;
        m->attr_version = self->version->value - 1; /* stale: regenerate */
        return regenerate_view(self, err);
    }
    self->requires_grad = true;
    self->is_leaf = false;
    set_grad_fn(self, n, 0);
    tl_ag_node_release(n);
    return 0;
fail:
    tl_tensor_release(orig);
    tl_ag_node_release(n);
    return -1;
}

int tl_ag_record_view_inplace(tl_tensor *self, const tl_tensor *before,
                              const char *name, tl_error *err)
{
    if (!tl_ag_grad_enabled() || !rg(self))
        return 0;
    tl_ag_node *n = node_new(K_OP, name, 1, 1, err);
    if (!n)
        return -1;
    n->op = TL_AG_VIEW;
    if (link(n, 0, self, err) < 0) {
        tl_ag_node_release(n);
        return -1;
    }
    shape_set(&n->inm[0], before->dtype, before->ndim, before->sizes);
    shape_set(&n->outm[0], self->dtype, self->ndim, self->sizes);
    n->geom = tl_xcalloc(2, sizeof *n->geom);
    geom_set(&n->geom[0], before);
    geom_set(&n->geom[1], self);
    set_grad_fn(self, n, 0);
    tl_ag_node_release(n);
    self->is_leaf = false;
    return 0;
}

/* ===================================================================== */
/* .grad, retain_grad                                                     */

tl_tensor *tl_ag_grad(const tl_tensor *t) { return t->ag ? t->ag->grad : NULL; }

int tl_ag_set_grad(tl_tensor *t, tl_tensor *g, tl_error *err)
{
    if (g && (g->ndim != t->ndim || memcmp(g->sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim)))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "assigned grad has data of a different size");
    if (g && g->dtype != t->dtype)
        return tl_error_set(err, TL_ERR_RUNTIME, "assigned grad has data of a different type");
    tl_ag_meta *m = meta_of(t);
    tl_tensor_retain(g);
    tl_tensor_release(m->grad);
    m->grad = g;
    return 0;
}

int tl_ag_retain_grad(tl_tensor *t, tl_error *err)
{
    if (!t->requires_grad)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "can't retain_grad on Tensor that has requires_grad=False");
    if (t->is_leaf)
        return 0;
    ag_edge e;
    if (edge_of(t, &e, err) < 0)
        return -1;
    tl_ag_node_release(e.fn);
    tl_ag_meta *m = meta_of(t);
    if (m->retains_grad)
        return 0;
    m->retains_grad = true;
    if (m->grad_fn) {
        tl_ag_node *fn = m->grad_fn;
        if (!fn->retain)
            fn->retain = tl_xcalloc((size_t)fn->nout, sizeof *fn->retain);
        fn->retain[m->nr] = t;
    }
    return 0;
}

bool tl_ag_retains_grad(const tl_tensor *t) { return t->ag && t->ag->retains_grad; }

/* ===================================================================== */
/* formulas                                                               */

#define R(dt, x) tl_gk_round((dt), (x))

static tl_gbuf *like_shape(const ag_shape *s, tl_dtype dt, tl_error *err)
{
    return tl_gbuf_new(dt, s->ndim, s->sizes, err);
}

static tl_gbuf *load_saved(const ag_saved *s, tl_error *err)
{
    return tl_gbuf_from_tensor(s->t, err);
}

/* g broadcast-reduced to input i's shape and cast to its dtype; takes g */
static tl_gbuf *to_input(tl_ag_node *n, int i, tl_gbuf *g, tl_error *err)
{
    if (!g)
        return NULL;
    const ag_shape *s = &n->inm[i];
    bool same = s->ndim == g->ndim;
    for (int d = 0; same && d < s->ndim; d++)
        same = s->sizes[d] == g->sizes[d];
    if (!same) {
        tl_gbuf *r = like_shape(s, g->dt, err);
        if (!r) {
            tl_gbuf_free(g);
            return NULL;
        }
        tl_gk_sum_to(g, r);
        tl_gbuf_free(g);
        g = r;
    }
    if (g->dt != s->dt)
        tl_gbuf_cast(g, s->dt);
    return g;
}

/* The other operand of a binary op, broadcast to g's shape: a saved
 * tensor, or the scalar s0 (rounded to g's dtype). */
static tl_gbuf *operand(tl_ag_node *n, int slot, const tl_gbuf *g, bool scalar_ok,
                        tl_error *err)
{
    tl_gbuf *r = tl_gbuf_new(g->dt, g->ndim, g->sizes, err);
    if (!r)
        return NULL;
    if (!n->saved[slot].t) {
        if (!scalar_ok) {
            tl_gbuf_free(r);
            tl_error_set(err, TL_ERR_INTERNAL, "%s: saved tensor missing", n->name);
            return NULL;
        }
        double s = R(g->dt, n->s0);
        for (int64_t i = 0; i < r->n; i++)
            r->v[i] = s;
        return r;
    }
    tl_gbuf *v = load_saved(&n->saved[slot], err);
    if (!v) {
        tl_gbuf_free(r);
        return NULL;
    }
    tl_gk_broadcast(v, r);
    tl_gbuf_free(v);
    return r;
}

static tl_gbuf *map_from_tensor(const tl_tensor *map, tl_error *err)
{
    return tl_gbuf_from_tensor(map, err);
}

/* One-input elementwise formulas: r[i] = f(g[i], x[i]). */
static int unary(tl_ag_node *n, const tl_gbuf *g, tl_gbuf **res, tl_error *err)
{
    tl_dtype dt = g->dt;
    int slot = SV_SELF;
    switch (n->op) {
    case TL_AG_EXP: case TL_AG_SQRT: case TL_AG_TANH: case TL_AG_SIGMOID:
    case TL_AG_RELU:
        slot = SV_RESULT;
        break;
    default:
        break;
    }
    tl_gbuf *x = NULL;
    if (n->op != TL_AG_NEG) {
        if (!n->saved[slot].t)
            return tl_error_set(err, TL_ERR_INTERNAL, "%s: saved tensor missing", n->name);
        x = load_saved(&n->saved[slot], err);
        if (!x)
            return -1;
    }
    tl_gbuf *r = tl_gbuf_new(dt, g->ndim, g->sizes, err);
    if (!r) {
        tl_gbuf_free(x);
        return -1;
    }
    for (int64_t i = 0; i < r->n; i++) {
        double gv = g->v[i], xv = x ? x->v[i] : 0, v = 0;
        switch (n->op) {
        case TL_AG_NEG: v = -gv; break;
        case TL_AG_EXP: v = gv * xv; break;
        case TL_AG_LOG: v = gv / xv; break;
        case TL_AG_SQRT: v = gv / R(dt, 2 * xv); break;
        case TL_AG_SIN: v = gv * R(dt, cos(xv)); break;
        case TL_AG_COS: v = gv * R(dt, -R(dt, sin(xv))); break;
        case TL_AG_TANH: v = gv * R(dt, 1 - R(dt, xv * xv)); break;
        case TL_AG_SIGMOID: v = R(dt, gv * R(dt, 1 - xv)) * xv; break;
        case TL_AG_RELU: v = xv <= 0 ? 0 : gv; break;
        case TL_AG_ABS: v = gv * (xv > 0 ? 1.0 : xv < 0 ? -1.0 : 0.0); break;
        case TL_AG_CLAMP: {
            bool in = (!n->has0 || xv >= n->s0) && (!n->has1 || xv <= n->s1);
            v = in ? gv : 0;
            break;
        }
        case TL_AG_CLAMP_MIN: v = xv >= n->s0 ? gv : 0; break;
        case TL_AG_CLAMP_MAX: v = xv <= n->s0 ? gv : 0; break;
        case TL_AG_POW:
            if (n->s0 == 0)
                v = 0;
            else
                v = gv * R(dt, R(dt, n->s0) * R(dt, pow(xv, n->s0 - 1)));
            break;
        default: break;
        }
        r->v[i] = R(dt, v);
    }
    tl_gbuf_free(x);
    res[0] = to_input(n, 0, r, err);
    return res[0] ? 0 : -1;
}

static bool want(const tl_ag_node *n, int i) { return i < n->nnext && n->next[i].fn; }

static int binary(tl_ag_node *n, const tl_gbuf *g, tl_gbuf **res, tl_error *err)
{
    tl_dtype dt = g->dt;
    double alpha = n->has1 ? R(dt, n->s1) : 1.0;
    bool w0 = want(n, 0), w1 = want(n, 1);
    tl_gbuf *r0 = NULL, *r1 = NULL, *b = NULL, *a = NULL, *res_v = NULL;
    int rc = -1;
    switch (n->op) {
    case TL_AG_ADD: case TL_AG_SUB: case TL_AG_RSUB: {
        double s0 = n->op == TL_AG_RSUB ? -alpha : 1.0;
        double s1 = n->op == TL_AG_ADD ? alpha : n->op == TL_AG_SUB ? -alpha : 1.0;
        if (w0) {
            if (!(r0 = tl_gbuf_copy(g, err)))
                goto out;
            if (s0 != 1.0)
                for (int64_t i = 0; i < r0->n; i++)
                    r0->v[i] = R(dt, r0->v[i] * s0);
        }
        if (w1) {
            if (!(r1 = tl_gbuf_copy(g, err)))
                goto out;
            if (s1 != 1.0)
                for (int64_t i = 0; i < r1->n; i++)
                    r1->v[i] = R(dt, r1->v[i] * s1);
        }
        break;
    }
    case TL_AG_MUL:
        if (w0) {
            if (!(b = operand(n, SV_OTHER, g, true, err)) ||
                !(r0 = tl_gbuf_new(dt, g->ndim, g->sizes, err)))
                goto out;
            for (int64_t i = 0; i < g->n; i++)
                r0->v[i] = R(dt, g->v[i] * b->v[i]);
        }
        if (w1) {
            if (!(a = operand(n, SV_SELF, g, false, err)) ||
                !(r1 = tl_gbuf_new(dt, g->ndim, g->sizes, err)))
                goto out;
            for (int64_t i = 0; i < g->n; i++)
                r1->v[i] = R(dt, g->v[i] * a->v[i]);
        }
        break;
    case TL_AG_DIV:
        if (!(b = operand(n, SV_OTHER, g, true, err)))
            goto out;
        if (w0) {
            if (!(r0 = tl_gbuf_new(dt, g->ndim, g->sizes, err)))
                goto out;
            for (int64_t i = 0; i < g->n; i++)
                r0->v[i] = R(dt, g->v[i] / b->v[i]);
        }
        if (w1) {
            if (!(a = operand(n, SV_SELF, g, false, err)) ||
                !(r1 = tl_gbuf_new(dt, g->ndim, g->sizes, err)))
                goto out;
            for (int64_t i = 0; i < g->n; i++)
                r1->v[i] = R(dt, -g->v[i] * R(dt, R(dt, a->v[i] / b->v[i]) / b->v[i]));
        }
        break;
    case TL_AG_POW_T:
        if (!(a = operand(n, SV_SELF, g, false, err)) ||
            !(b = operand(n, SV_OTHER, g, false, err)))
            goto out;
        if (w0) {
            if (!(r0 = tl_gbuf_new(dt, g->ndim, g->sizes, err)))
                goto out;
            for (int64_t i = 0; i < g->n; i++) {
                double e = b->v[i];
                r0->v[i] = e == 0 ? 0 : R(dt, g->v[i] * R(dt, e * R(dt, pow(a->v[i], R(dt, e - 1)))));
            }
        }
        if (w1) {
            if (!(res_v = operand(n, SV_RESULT, g, false, err)) ||
                !(r1 = tl_gbuf_new(dt, g->ndim, g->sizes, err)))
                goto out;
            for (int64_t i = 0; i < g->n; i++) {
                double x = a->v[i];
                r1->v[i] = (x == 0 && b->v[i] >= 0)
                               ? 0
                               : R(dt, g->v[i] * R(dt, res_v->v[i] * R(dt, log(x))));
            }
        }
        break;
    case TL_AG_RDIV:
        if (w0) {
            if (!(res_v = operand(n, SV_RESULT, g, false, err)) ||
                !(r0 = tl_gbuf_new(dt, g->ndim, g->sizes, err)))
                goto out;
            double sc = R(dt, n->s0);
            for (int64_t i = 0; i < g->n; i++) {
                double rr = res_v->v[i];
                r0->v[i] = R(dt, -R(dt, g->v[i] * sc) * R(dt, rr * rr));
            }
        }
        break;
    case TL_AG_POW_BASE:
        if (w0) {
            if (!(res_v = operand(n, SV_RESULT, g, false, err)) ||
                !(a = operand(n, SV_SELF, g, false, err)) ||
                !(r0 = tl_gbuf_new(dt, g->ndim, g->sizes, err)))
                goto out;
            double lb = R(dt, log(n->s0));
            for (int64_t i = 0; i < g->n; i++)
                r0->v[i] = (n->s0 == 0 && a->v[i] >= 0)
                               ? 0
                               : R(dt, g->v[i] * R(dt, res_v->v[i] * lb));
        }
        break;
    default:
        break;
    }
    res[0] = w0 ? to_input(n, 0, r0, err) : NULL;
    r0 = NULL;
    if (w0 && !res[0])
        goto out;
    if (n->nnext > 1) {
        res[1] = w1 ? to_input(n, 1, r1, err) : NULL;
        r1 = NULL;
        if (w1 && !res[1])
            goto out;
    }
    rc = 0;
out:
    tl_gbuf_free(r0);
    tl_gbuf_free(r1);
    tl_gbuf_free(a);
    tl_gbuf_free(b);
    tl_gbuf_free(res_v);
    return rc;
}

static int reduction(tl_ag_node *n, const tl_gbuf *g, tl_gbuf **res, tl_error *err)
{
    const ag_shape *s = &n->inm[0];
    tl_gbuf *r = like_shape(s, g->dt, err);
    if (!r)
        return -1;
    tl_gk_expand_reduced(g, r, n->nd, n->dims, n->all_dims, n->keepdim);
    if (n->op == TL_AG_MEAN) {
        double count = 1;
        for (int d = 0; d < s->ndim; d++) {
            bool red = n->all_dims;
            for (int i = 0; i < n->nd; i++)
                red = red || n->dims[i] == d;
            if (red)
                count *= (double)s->sizes[d];
        }
        double c = R(g->dt, count);
        for (int64_t i = 0; i < r->n; i++)
            r->v[i] = R(g->dt, r->v[i] / c);
    }
    res[0] = to_input(n, 0, r, err);
    return res[0] ? 0 : -1;
}

/* matmul: promote 1-D operands, broadcast batches, then
 * dA = g @ B^T, dB = A^T @ g, reduced to each operand's shape. */
static int matmul(tl_ag_node *n, const tl_gbuf *g, tl_gbuf **res, tl_error *err)
{
    const ag_shape *sa = &n->inm[0], *sb = &n->inm[1];
    int64_t na = sa->ndim == 1 ? 1 : sa->sizes[sa->ndim - 2];
    int64_t k = sa->sizes[sa->ndim - 1];
    int64_t mb = sb->ndim == 1 ? 1 : sb->sizes[sb->ndim - 1];
    int nba = sa->ndim > 2 ? sa->ndim - 2 : 0, nbb = sb->ndim > 2 ? sb->ndim - 2 : 0;
    int nbt = nba > nbb ? nba : nbb;
    int64_t bt[TL_MAX_DIMS];
    int64_t nb = 1;
    for (int d = 0; d < nbt; d++) {
        int da = d - (nbt - nba), db = d - (nbt - nbb);
        int64_t x = da >= 0 ? sa->sizes[da] : 1, y = db >= 0 ? sb->sizes[db] : 1;
        bt[d] = x == 1 ? y : x;
        nb *= bt[d];
    }
    tl_dtype dt = g->dt;
    /* full-batch A (nb, na, k), B (nb, k, mb), G (nb, na, mb) */
    int64_t shA[TL_MAX_DIMS], shB[TL_MAX_DIMS], shG[TL_MAX_DIMS];
    for (int d = 0; d < nbt; d++)
        shA[d] = shB[d] = shG[d] = bt[d];
    shA[nbt] = na; shA[nbt + 1] = k;
    shB[nbt] = k; shB[nbt + 1] = mb;
    shG[nbt] = na; shG[nbt + 1] = mb;
    tl_gbuf *A = NULL, *B = NULL, *G = NULL, *ra = NULL, *rb = NULL;
    int rc = -1;
    if (!(G = tl_gbuf_new(dt, nbt + 2, shG, err)))
        goto out;
    memcpy(G->v, g->v, sizeof(double) * (size_t)g->n);
    if (want(n, 0)) {
        tl_gbuf *bs = load_saved(&n->saved[SV_OTHER], err);
        if (!bs)
            goto out;
        /* bs has b's shape; view it as (..., k, mb) and broadcast */
        tl_gbuf view = *bs;
        int64_t vs[TL_MAX_DIMS];
        int vn = 0;
        for (int d = 0; d < nbb; d++)
            vs[vn++] = sb->sizes[d];
        vs[vn++] = k;
        vs[vn++] = mb;
        view.ndim = vn;
        memcpy(view.sizes, vs, sizeof(int64_t) * (size_t)vn);
        if (!(B = tl_gbuf_new(dt, nbt + 2, shB, err))) {
            tl_gbuf_free(bs);
            goto out;
        }
        tl_gk_broadcast(&view, B);
        tl_gbuf_free(bs);
        int64_t sh[TL_MAX_DIMS];
        memcpy(sh, shA, sizeof sh);
        if (!(ra = tl_gbuf_new(dt, nbt + 2, sh, err)))
            goto out;
        tl_gk_bmm(nb, na, mb, k, G->v, false, B->v, true, ra->v);
        for (int64_t i = 0; i < ra->n; i++)
            ra->v[i] = R(dt, ra->v[i]);
        /* reduce to a's (promoted) shape, then take a's real shape */
        int64_t ps[TL_MAX_DIMS];
        int pn = 0;
        for (int d = 0; d < nba; d++)
            ps[pn++] = sa->sizes[d];
        ps[pn++] = na;
        ps[pn++] = k;
        tl_gbuf *red = tl_gbuf_new(dt, pn, ps, err);
        if (!red)
            goto out;
        tl_gk_sum_to(ra, red);
        tl_gbuf_free(ra);
        ra = red;
        ra->ndim = sa->ndim;
        memcpy(ra->sizes, sa->sizes, sizeof(int64_t) * (size_t)sa->ndim);
        if (ra->dt != sa->dt)
            tl_gbuf_cast(ra, sa->dt);
    }
    if (want(n, 1)) {
        tl_gbuf *as = load_saved(&n->saved[SV_SELF], err);
        if (!as)
            goto out;
        tl_gbuf view = *as;
        int64_t vs[TL_MAX_DIMS];
        int vn = 0;
        for (int d = 0; d < nba; d++)
            vs[vn++] = sa->sizes[d];
        vs[vn++] = na;
        vs[vn++] = k;
        view.ndim = vn;
        memcpy(view.sizes, vs, sizeof(int64_t) * (size_t)vn);
        if (!(A = tl_gbuf_new(dt, nbt + 2, shA, err))) {
            tl_gbuf_free(as);
            goto out;
        }
        tl_gk_broadcast(&view, A);
        tl_gbuf_free(as);
        if (!(rb = tl_gbuf_new(dt, nbt + 2, shB, err)))
            goto out;
        tl_gk_bmm(nb, k, na, mb, A->v, true, G->v, false, rb->v);
        for (int64_t i = 0; i < rb->n; i++)
            rb->v[i] = R(dt, rb->v[i]);
        int64_t ps[TL_MAX_DIMS];
        int pn = 0;
        for (int d = 0; d < nbb; d++)
            ps[pn++] = sb->sizes[d];
        ps[pn++] = k;
        ps[pn++] = mb;
        tl_gbuf *red = tl_gbuf_new(dt, pn, ps, err);
        if (!red)
            goto out;
        tl_gk_sum_to(rb, red);
        tl_gbuf_free(rb);
        rb = red;
        rb->ndim = sb->ndim;
        memcpy(rb->sizes, sb->sizes, sizeof(int64_t) * (size_t)sb->ndim);
        if (rb->dt != sb->dt)
            tl_gbuf_cast(rb, sb->dt);
    }
    res[0] = ra;
    res[1] = rb;
    ra = rb = NULL;
    rc = 0;
out:
    tl_gbuf_free(A);
    tl_gbuf_free(B);
    tl_gbuf_free(G);
    tl_gbuf_free(ra);
    tl_gbuf_free(rb);
    return rc;
}

/* r[map[j]] += g[j] for the elements of g; r has input i's shape. */
static tl_gbuf *scatter(tl_ag_node *n, int i, const tl_gbuf *g, const int64_t *map,
                        tl_gbuf *r, tl_error *err)
{
    if (!r && !(r = like_shape(&n->inm[i], g->dt, err)))
        return NULL;
    for (int64_t j = 0; j < g->n; j++)
        if (map[j] >= 0 && map[j] < r->n)
            r->v[map[j]] += g->v[j];
    return r;
}

static int view_backward(tl_ag_node *n, tl_gbuf **g, tl_gbuf **res, tl_error *err)
{
    tl_geom in, out;
    geom_get(&n->geom[0], &in);
    tl_gbuf *r = NULL;
    for (int k = 0; k < n->nout; k++) {
        if (!g[k])
            continue;
        geom_get(&n->geom[1 + k], &out);
        int64_t cnt = tl_geom_numel(&out);
        tl_storage *st = tl_storage_new(tl_backend_cpu(), (size_t)(cnt ? cnt : 1) * sizeof(int64_t), err);
        if (!st) {
            tl_gbuf_free(r);
            return -1;
        }
        if (tl_gk_view_map(&in, &out, st->data, err) < 0 ||
            !(r = scatter(n, 0, g[k], st->data, r, err))) {
            tl_storage_release(st);
            tl_gbuf_free(r);
            return -1;
        }
        tl_storage_release(st);
    }
    if (!r && !(r = like_shape(&n->inm[0], n->outm[0].dt, err)))
        return -1;
    for (int64_t j = 0; j < r->n; j++)
        r->v[j] = R(r->dt, r->v[j]);
    res[0] = to_input(n, 0, r, err);
    return res[0] ? 0 : -1;
}

static int index_backward(tl_ag_node *n, const tl_gbuf *g, tl_gbuf **res, tl_error *err)
{
    tl_gbuf *m = map_from_tensor(n->map, err);
    if (!m)
        return -1;
    int64_t *map = tl_xmalloc(sizeof(int64_t) * (size_t)(m->n ? m->n : 1));
    for (int64_t j = 0; j < m->n; j++)
        map[j] = (int64_t)m->v[j];
    tl_gbuf_free(m);
    tl_gbuf *r = scatter(n, 0, g, map, NULL, err);
    free(map);
    if (!r)
        return -1;
    for (int64_t j = 0; j < r->n; j++)
        r->v[j] = R(r->dt, r->v[j]);
    res[0] = to_input(n, 0, r, err);
    return res[0] ? 0 : -1;
}

/* cat/stack: input i's slice of g along dim */
static int cat_backward(tl_ag_node *n, const tl_gbuf *g, tl_gbuf **res, tl_error *err)
{
    int dim = (int)n->dim;
    int64_t inner = 1, outer = 1;
    for (int d = 0; d < dim; d++)
        outer *= g->sizes[d];
    for (int d = dim + 1; d < g->ndim; d++)
        inner *= g->sizes[d];
    int64_t gd = g->sizes[dim], off = 0;
    for (int i = 0; i < n->nnext; i++) {
        const ag_shape *s = &n->inm[i];
        int64_t len = n->op == TL_AG_STACK ? 1 : (s->ndim ? s->sizes[dim] : 0);
        if (n->op == TL_AG_CAT && s->ndim == 1 && s->sizes[0] == 0)
            len = 0; /* legacy empty input */
        if (want(n, i)) {
            tl_gbuf *r = like_shape(s, g->dt, err);
            if (!r)
                return -1;
            int64_t p = 0;
            for (int64_t o = 0; o < outer && r->n; o++)
                for (int64_t l = 0; l < len; l++)
                    for (int64_t q = 0; q < inner; q++)
                        r->v[p++] = g->v[(o * gd + off + l) * inner + q];
            if (!(res[i] = to_input(n, i, r, err)))
                return -1;
        }
        off += len;
    }
    return 0;
}

/* self[map] = v: self's grad is g with those elements zeroed; v's is g
 * gathered at them (0 where map is -1) and reduced to v's shape. */
static int setitem_backward(tl_ag_node *n, const tl_gbuf *g, tl_gbuf **res, tl_error *err)
{
    tl_gbuf *m = map_from_tensor(n->map, err);
    if (!m)
        return -1;
    int rc = -1;
    tl_gbuf *r0 = NULL, *r1 = NULL;
    if (want(n, 0)) {
        if (!(r0 = tl_gbuf_copy(g, err)))
            goto out;
        for (int64_t j = 0; j < m->n && n->op != TL_AG_PUT_ACC; j++)
            if ((int64_t)m->v[j] >= 0 && (int64_t)m->v[j] < r0->n)
                r0->v[(int64_t)m->v[j]] = 0;
        if (!(res[0] = to_input(n, 0, r0, err))) {
            r0 = NULL;
            goto out;
        }
        r0 = NULL;
    }
    if (n->nnext > 1 && want(n, 1)) {
        if (!(r1 = tl_gbuf_new(g->dt, m->ndim, m->sizes, err)))
            goto out;
        /* -1: a source element nothing reads (masked_scatter's tail) */
        for (int64_t j = 0; j < m->n; j++)
            r1->v[j] = (int64_t)m->v[j] >= 0 && (int64_t)m->v[j] < g->n ? g->v[(int64_t)m->v[j]] : 0;
        if (!(res[1] = to_input(n, 1, r1, err))) {
            r1 = NULL;
            goto out;
        }
        r1 = NULL;
    }
    rc = 0;
out:
    tl_gbuf_free(m);
    tl_gbuf_free(r0);
    tl_gbuf_free(r1);
    return rc;
}

/* ===================================================================== */
/* math formulas: rsqrt .. erf, zeros and pass-through, maximum .. where,  */
/* max/min, amax/amin, var/std, prod. PyTorch's derivatives.yaml (and     */
/* FunctionsManual.cpp), rounded where PyTorch materialises a tensor.     */

static int math_unary(tl_ag_node *n, const tl_gbuf *g, tl_gbuf **res, tl_error *err)
{
    tl_dtype dt = g->dt;
    int slot = SV_SELF;
    switch (n->op) {
    case TL_AG_RSQRT: case TL_AG_RECIPROCAL: case TL_AG_EXPM1: case TL_AG_EXP2:
    case TL_AG_TAN:
        slot = SV_RESULT;
        break;
    default:
        break;
    }
    tl_gbuf *x = NULL;
    if (n->op != TL_AG_PASS) {
        if (!n->saved[slot].t)
            return tl_error_set(err, TL_ERR_INTERNAL, "%s: saved tensor missing", n->name);
        if (!(x = load_saved(&n->saved[slot], err)))
            return -1;
    }
    tl_gbuf *r = tl_gbuf_new(dt, g->ndim, g->sizes, err);
    if (!r) {
        tl_gbuf_free(x);
        return -1;
    }
    const double ln2 = 0.6931471805599453, ln10 = 2.302585092994046;
    const double two_sqrtpi = 1.1283791670955126; /* 2 / sqrt(pi) */
    for (int64_t i = 0; i < r->n; i++) {
        double gv = g->v[i], xv = x ? x->v[i] : 0, v = gv;
        switch (n->op) {
        case TL_AG_RSQRT: /* -0.5 * grad * result.pow(3) */
            v = R(dt, -0.5 * gv) * R(dt, xv * xv * xv);
            break;
        case TL_AG_RECIPROCAL: /* -grad * (result * result) */
            v = -gv * R(dt, xv * xv);
            break;
        case TL_AG_EXPM1: v = gv * R(dt, xv + 1); break;
        case TL_AG_EXP2: v = R(dt, gv * xv) * R(dt, ln2); break;
        case TL_AG_TAN: v = gv * R(dt, 1 + R(dt, xv * xv)); break;
        case TL_AG_LOG2: v = gv / R(dt, xv * R(dt, ln2)); break;
        case TL_AG_LOG10: v = gv / R(dt, xv * R(dt, ln10)); break;
        case TL_AG_LOG1P: v = gv / R(dt, xv + 1); break;
        case TL_AG_ASIN: /* grad * (-self * self + 1).rsqrt() */
            v = gv * R(dt, 1 / sqrt(R(dt, R(dt, -xv * xv) + 1)));
            break;
        case TL_AG_ACOS:
            v = gv * -R(dt, 1 / sqrt(R(dt, R(dt, -xv * xv) + 1)));
            break;
        case TL_AG_ATAN: v = gv / R(dt, R(dt, xv * xv) + 1); break;
        case TL_AG_SINH: v = gv * R(dt, cosh(xv)); break;
        case TL_AG_COSH: v = gv * R(dt, sinh(xv)); break;
        case TL_AG_ERF: /* 2 / sqrt(pi) * exp(-(self.pow(2))) * grad */
            v = R(dt, R(dt, two_sqrtpi) * R(dt, exp(-R(dt, xv * xv)))) * gv;
            break;
        default: break; /* PASS */
        }
        r->v[i] = R(dt, v);
    }
    tl_gbuf_free(x);
    res[0] = to_input(n, 0, r, err);
    return res[0] ? 0 : -1;
}

/* a.div(b, rounding_mode="floor") as PyTorch's kernel computes it */
static double div_floor(double a, double b)
{
    if (b == 0)
        return a / b;
    double mod = fmod(a, b), d = (a - mod) / b;
    if (mod != 0 && (b < 0) != (mod < 0))
        d -= 1;
    if (d == 0)
        return copysign(0.0, a / b);
    double f = floor(d);
    return d - f > 0.5 ? f + 1 : f;
}

static int math_binary(tl_ag_node *n, const tl_gbuf *g, tl_gbuf **res, tl_error *err)
{
    tl_dtype dt = g->dt;
    bool w0 = want(n, 0), w1 = want(n, 1);
    tl_gbuf *r0 = NULL, *r1 = NULL, *a = NULL, *b = NULL;
    int rc = -1;
    if ((w0 && !(r0 = tl_gbuf_new(dt, g->ndim, g->sizes, err))) ||
        (w1 && !(r1 = tl_gbuf_new(dt, g->ndim, g->sizes, err))))
        goto out;
    switch (n->op) {
    case TL_AG_MAXIMUM: case TL_AG_MINIMUM: {
        /* where(self == other, grad / 2, grad), zeroed where the other
         * operand won */
        if (!(a = operand(n, SV_SELF, g, false, err)) ||
            !(b = operand(n, SV_OTHER, g, false, err)))
            goto out;
        bool mx = n->op == TL_AG_MAXIMUM;
        for (int64_t i = 0; i < g->n; i++) {
            double x = a->v[i], y = b->v[i], gv = g->v[i];
            double share = x == y ? R(dt, gv / 2) : gv;
            if (r0)
                r0->v[i] = (mx ? x < y : x > y) ? 0 : share;
            if (r1)
                r1->v[i] = (mx ? x > y : x < y) ? 0 : share;
        }
        break;
    }
    case TL_AG_ATAN2:
        if (!(a = operand(n, SV_SELF, g, false, err)) ||
            !(b = operand(n, SV_OTHER, g, false, err)))
            goto out;
        for (int64_t i = 0; i < g->n; i++) {
            double x = a->v[i], y = b->v[i], gv = g->v[i];
            double recip = R(dt, 1 / R(dt, R(dt, x * x) + R(dt, y * y)));
            if (r0)
                r0->v[i] = R(dt, R(dt, gv * y) * recip);
            if (r1)
                r1->v[i] = R(dt, R(dt, gv * -x) * recip);
        }
        break;
    case TL_AG_REMAINDER: case TL_AG_FMOD:
        if (r0)
            memcpy(r0->v, g->v, sizeof(double) * (size_t)g->n);
        if (r1) {
            if (!(a = operand(n, SV_SELF, g, false, err)) ||
                !(b = operand(n, SV_OTHER, g, false, err)))
                goto out;
            for (int64_t i = 0; i < g->n; i++) {
                double x = a->v[i], y = b->v[i];
                double q = n->op == TL_AG_REMAINDER ? R(dt, div_floor(x, y))
                                                    : trunc(R(dt, x / y));
                r1->v[i] = R(dt, -g->v[i] * q);
            }
        }
        break;
    case TL_AG_WHERE:
        if (!(a = operand(n, SV_SELF, g, false, err)))
            goto out;
        for (int64_t i = 0; i < g->n; i++) {
            if (r0)
                r0->v[i] = a->v[i] != 0 ? g->v[i] : 0;
            if (r1)
                r1->v[i] = a->v[i] != 0 ? 0 : g->v[i];
        }
        break;
    default: /* ZEROS, DIV_MODE */
        break;
    }
    if (w0 && !(res[0] = to_input(n, 0, r0, err))) {
        r0 = NULL;
        goto out;
    }
    r0 = NULL;
    if (w1 && !(res[1] = to_input(n, 1, r1, err))) {
        r1 = NULL;
        goto out;
    }
    r1 = NULL;
    rc = 0;
out:
    tl_gbuf_free(r0);
    tl_gbuf_free(r1);
    tl_gbuf_free(a);
    tl_gbuf_free(b);
    return rc;
}

/* Is input dim d reduced by n's reduction? */
static bool reduced_dim(const tl_ag_node *n, int d)
{
    if (n->all_dims)
        return true;
    for (int i = 0; i < n->nd; i++)
        if (n->dims[i] == d)
            return true;
    return false;
}

/* A buffer of the input's shape with the reduced dims of size 1. */
static tl_gbuf *keepdim_buf(const tl_ag_node *n, tl_dtype dt, tl_error *err)
{
    const ag_shape *s = &n->inm[0];
    int64_t sz[TL_MAX_DIMS];
    for (int d = 0; d < s->ndim; d++)
        sz[d] = reduced_dim(n, d) ? 1 : s->sizes[d];
    return tl_gbuf_new(dt, s->ndim, sz, err);
}

/* g (the reduction's result shape) broadcast back to the input's shape */
static tl_gbuf *expand_back(tl_ag_node *n, const tl_gbuf *g, tl_error *err)
{
    tl_gbuf *r = like_shape(&n->inm[0], g->dt, err);
    if (r)
        tl_gk_expand_reduced(g, r, n->nd, n->dims, n->all_dims, n->keepdim);
    return r;
}

/* max()/min() (evenly_distribute_backward: a NaN result selects the NaNs)
 * and amax/amin (scale_grad_by_count: grad / count * mask per group). */
static int max_even_backward(tl_ag_node *n, const tl_gbuf *g, tl_gbuf **res, tl_error *err)
{
    tl_dtype dt = g->dt;
    tl_gbuf *x = NULL, *v = NULL, *ve = NULL, *ge = NULL, *cnt = NULL, *ce = NULL;
    int rc = -1;
    if (!(x = load_saved(&n->saved[SV_SELF], err)) ||
        !(v = load_saved(&n->saved[SV_RESULT], err)) || !(ve = expand_back(n, v, err)) ||
        !(ge = expand_back(n, g, err)))
        goto out;
    bool all = n->op == TL_AG_MAX_ALL;
    bool nan_sel = all && x->n && isnan(ve->v[0]);
    for (int64_t i = 0; i < x->n; i++) /* x becomes the mask */
        x->v[i] = (nan_sel ? isnan(x->v[i]) : x->v[i] == ve->v[i]) ? 1 : 0;
    if (all) {
        double count = 0;
        for (int64_t i = 0; i < x->n; i++)
            count += x->v[i];
        double share = R(dt, g->v[0] / count);
        for (int64_t i = 0; i < x->n; i++)
            x->v[i] = x->v[i] != 0 ? share : 0;
    } else {
        if (!(cnt = keepdim_buf(n, dt, err)))
            goto out;
        tl_gk_sum_to(x, cnt);
        if (!(ce = like_shape(&n->inm[0], dt, err)))
            goto out;
        tl_gk_broadcast(cnt, ce);
        for (int64_t i = 0; i < x->n; i++)
            x->v[i] = R(dt, R(dt, ge->v[i] / ce->v[i]) * x->v[i]);
    }
    res[0] = to_input(n, 0, x, err);
    x = NULL;
    rc = res[0] ? 0 : -1;
out:
    tl_gbuf_free(x);
    tl_gbuf_free(v);
    tl_gbuf_free(ve);
    tl_gbuf_free(ge);
    tl_gbuf_free(cnt);
    tl_gbuf_free(ce);
    return rc;
}

/* The sizes around dim d of shape s: outer * len * inner elements. */
static void around(const ag_shape *s, int d, int64_t *outer, int64_t *len, int64_t *inner)
{
    *outer = *inner = *len = 1;
    if (s->ndim == 0)
        return;
    for (int k = 0; k < d; k++)
        *outer *= s->sizes[k];
    *len = s->sizes[d];
    for (int k = d + 1; k < s->ndim; k++)
        *inner *= s->sizes[k];
}

/* max(dim)/min(dim): each gradient goes to the index the op returned */
static int max_dim_backward(tl_ag_node *n, const tl_gbuf *g, tl_gbuf **res, tl_error *err)
{
    const ag_shape *s = &n->inm[0];
    tl_gbuf *idx = load_saved(&n->saved[SV_RESULT], err);
    if (!idx)
        return -1;
    tl_gbuf *r = like_shape(s, g->dt, err);
    if (!r) {
        tl_gbuf_free(idx);
        return -1;
    }
    int64_t outer, len, inner;
    around(s, (int)n->dim, &outer, &len, &inner);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t q = 0; q < inner; q++) {
            int64_t j = o * inner + q, k = j < idx->n ? (int64_t)idx->v[j] : -1;
            if (k >= 0 && k < len && j < g->n)
                r->v[(o * len + k) * inner + q] += g->v[j];
        }
    tl_gbuf_free(idx);
    res[0] = to_input(n, 0, r, err);
    return res[0] ? 0 : -1;
}

/* var: (2 / (N - correction)) * grad * (self - self.mean(dims, true));
 * std: the same with grad / (2 * result), 0 where the result is 0. */
static int var_backward(tl_ag_node *n, const tl_gbuf *g, tl_gbuf **res, tl_error *err)
{
    tl_dtype dt = g->dt;
    const ag_shape *s = &n->inm[0];
    tl_gbuf *x = NULL, *gv = NULL, *ge = NULL, *km = NULL, *me = NULL, *v = NULL;
    int rc = -1;
    if (!(x = load_saved(&n->saved[SV_SELF], err)) || !(gv = tl_gbuf_copy(g, err)))
        goto out;
    if (n->op == TL_AG_STD) {
        if (!(v = load_saved(&n->saved[SV_RESULT], err)))
            goto out;
        for (int64_t i = 0; i < gv->n; i++)
            gv->v[i] = v->v[i] == 0 ? 0 : R(dt, gv->v[i] / R(dt, v->v[i] * 2));
    }
    double count = 1;
    for (int d = 0; d < s->ndim; d++)
        if (reduced_dim(n, d))
            count *= (double)s->sizes[d];
    if (!(ge = expand_back(n, gv, err)) || !(km = keepdim_buf(n, dt, err)) ||
        !(me = like_shape(s, dt, err)))
        goto out;
    tl_gk_sum_to(x, km);
    for (int64_t i = 0; i < km->n; i++)
        km->v[i] = R(dt, km->v[i] / R(dt, count));
    tl_gk_broadcast(km, me);
    double scale = R(dt, 2.0 / (count - n->s0));
    for (int64_t i = 0; i < x->n; i++)
        x->v[i] = R(dt, R(dt, scale * ge->v[i]) * R(dt, x->v[i] - me->v[i]));
    res[0] = to_input(n, 0, x, err);
    x = NULL;
    rc = res[0] ? 0 : -1;
out:
    tl_gbuf_free(x);
    tl_gbuf_free(gv);
    tl_gbuf_free(ge);
    tl_gbuf_free(km);
    tl_gbuf_free(me);
    tl_gbuf_free(v);
    return rc;
}

/* prod: grad * (result / self) without zeros; with a zero anywhere the
 * product of the others (exclusive cumulative products both ways). */
static int prod_backward(tl_ag_node *n, const tl_gbuf *g, tl_gbuf **res, tl_error *err)
{
    tl_dtype dt = g->dt;
    const ag_shape *s = &n->inm[0];
    tl_gbuf *x = NULL, *v = NULL, *ge = NULL, *ve = NULL, *r = NULL;
    double *left = NULL;
    int rc = -1;
    if (!(x = load_saved(&n->saved[SV_SELF], err)) ||
        !(v = load_saved(&n->saved[SV_RESULT], err)) || !(ge = expand_back(n, g, err)) ||
        !(ve = expand_back(n, v, err)) || !(r = like_shape(s, dt, err)))
        goto out;
    bool zero = false;
    for (int64_t i = 0; i < x->n; i++)
        zero = zero || x->v[i] == 0;
    if (s->ndim == 0) {
        r->v[0] = g->v[0];
    } else if (!zero) {
        for (int64_t i = 0; i < x->n; i++)
            r->v[i] = R(dt, ge->v[i] * R(dt, ve->v[i] / x->v[i]));
    } else {
        int64_t outer = 1, len = x->n, inner = 1;
        if (!n->all_dims)
            around(s, (int)n->dims[0], &outer, &len, &inner);
        left = tl_xmalloc(sizeof(double) * (size_t)(len ? len : 1));
        for (int64_t o = 0; o < outer; o++)
            for (int64_t q = 0; q < inner; q++) {
#define AT(k) (((o) * len + (k)) * inner + (q))
                double p = 1;
                for (int64_t k = 0; k < len; k++) {
                    left[k] = p;
                    p = R(dt, p * x->v[AT(k)]);
                }
                p = 1;
                for (int64_t k = len - 1; k >= 0; k--) {
                    r->v[AT(k)] = len == 1 ? ge->v[AT(k)]
                                           : R(dt, ge->v[AT(k)] * R(dt, left[k] * p));
                    p = R(dt, p * x->v[AT(k)]);
                }
#undef AT
            }
    }
    res[0] = to_input(n, 0, r, err);
    r = NULL;
    rc = res[0] ? 0 : -1;
out:
    free(left);
    tl_gbuf_free(x);
    tl_gbuf_free(v);
    tl_gbuf_free(ge);
    tl_gbuf_free(ve);
    tl_gbuf_free(r);
    return rc;
}

/* cumsum: the reversed cumulative sum of g along dim (PyTorch's
 * cumsum_backward: g.flip(dim).cumsum(dim).flip(dim), a double
 * accumulator as the CPU's cumsum, each element rounded) */
static int cumsum_backward(tl_ag_node *n, const tl_gbuf *g, tl_gbuf **res, tl_error *err)
{
    tl_dtype dt = g->dt;
    const ag_shape *s = &n->inm[0];
    tl_gbuf *r = like_shape(s, dt, err);
    if (!r)
        return -1;
    int64_t outer = 1, len = r->n, inner = 1;
    if (s->ndim > 0)
        around(s, (int)n->dim, &outer, &len, &inner);
    for (int64_t o = 0; o < outer && g->n == r->n; o++)
        for (int64_t q = 0; q < inner; q++) {
            double acc = 0;
            for (int64_t k = len - 1; k >= 0; k--) {
                int64_t at = (o * len + k) * inner + q;
                acc += g->v[at];
                r->v[at] = R(dt, acc);
            }
        }
    res[0] = to_input(n, 0, r, err);
    return res[0] ? 0 : -1;
}

/* cumprod: PyTorch's cumprod_backward (FunctionsManual.cpp). Without a
 * zero in a slice, reversed_cumsum(result * g) / self; with zeros, that
 * before the first zero z1, at z1 the sum over [z1, z2) of g times the
 * product of self over (z1, k], times result[z1 - 1], and 0 after it. */
static int cumprod_backward(tl_ag_node *n, const tl_gbuf *g, tl_gbuf **res, tl_error *err)
{
    tl_dtype dt = g->dt;
    const ag_shape *s = &n->inm[0];
    tl_gbuf *x = NULL, *v = NULL, *r = NULL;
    int rc = -1;
    if (!(x = load_saved(&n->saved[SV_SELF], err)) ||
        !(v = load_saved(&n->saved[SV_RESULT], err)) || !(r = like_shape(s, dt, err)))
        goto out;
    int64_t outer = 1, len = r->n, inner = 1;
    if (s->ndim > 0)
        around(s, (int)n->dim, &outer, &len, &inner);
    if (r->n <= 1 || len == 1 || x->n != r->n || v->n != r->n || g->n != r->n) {
        for (int64_t i = 0; i < r->n && i < g->n; i++)
            r->v[i] = g->v[i];
        goto done;
    }
    for (int64_t o = 0; o < outer; o++)
        for (int64_t q = 0; q < inner; q++) {
#define AT(k) (((o) * len + (k)) * inner + (q))
            int64_t z1 = len, z2 = len;
            for (int64_t k = 0; k < len; k++)
                if (x->v[AT(k)] == 0) {
                    if (z1 == len)
                        z1 = k;
                    else if (z2 == len)
                        z2 = k;
                }
            double acc = 0;
            for (int64_t k = len - 1; k >= 0; k--) {
                if (k < z1) {
                    acc += R(dt, v->v[AT(k)] * g->v[AT(k)]);
                    r->v[AT(k)] = R(dt, R(dt, acc) / x->v[AT(k)]);
                } else {
                    r->v[AT(k)] = 0;
                }
            }
            if (z1 < len) {
                double cp = 1, sum = 0;
                for (int64_t k = z1; k < z2; k++) {
                    if (k > z1)
                        cp = R(dt, cp * x->v[AT(k)]);
                    sum += R(dt, cp * g->v[AT(k)]);
                }
                double before = z1 == 0 ? 1 : v->v[AT(z1 - 1)];
                r->v[AT(z1)] = R(dt, R(dt, sum) * before);
            }
#undef AT
        }
done:
    res[0] = to_input(n, 0, r, err);
    r = NULL;
    rc = res[0] ? 0 : -1;
out:
    tl_gbuf_free(x);
    tl_gbuf_free(v);
    tl_gbuf_free(r);
    return rc;
}

/* lerp(self, end, weight) = self + weight * (end - self): self's grad is
 * g * (1 - weight), end's g * weight, a tensor weight's g * (end - self)
 * (derivatives.yaml; a number weight is one float factor) */
static int lerp_backward(tl_ag_node *n, const tl_gbuf *g, tl_gbuf **res, tl_error *err)
{
    tl_dtype dt = g->dt;
    bool wt = n->nnext > 2;
    tl_gbuf *x = NULL, *e = NULL, *w = NULL, *ge = NULL, *r = NULL;
    int rc = -1;
    if (wt && (!(x = load_saved(&n->saved[SV_SELF], err)) ||
               !(e = load_saved(&n->saved[SV_OTHER], err)) ||
               !(w = load_saved(&n->saved[SV_RESULT], err))))
        goto out;
    for (int i = 0; i < 2; i++) {
        if (!want(n, i))
            continue;
        if (!(r = tl_gbuf_copy(g, err)))
            goto out;
        if (wt) {
            tl_gbuf *wb = tl_gbuf_copy(g, err);
            if (!wb)
                goto out;
            tl_gk_broadcast(w, wb);
            for (int64_t j = 0; j < r->n; j++)
                r->v[j] = R(dt, r->v[j] * (i == 0 ? R(dt, 1 - wb->v[j]) : wb->v[j]));
            tl_gbuf_free(wb);
        } else {
            double f = R(dt, i == 0 ? 1 - n->s0 : n->s0);
            for (int64_t j = 0; j < r->n; j++)
                r->v[j] = R(dt, r->v[j] * f);
        }
        if (!(res[i] = to_input(n, i, r, err))) {
            r = NULL;
            goto out;
        }
        r = NULL;
    }
    if (wt && want(n, 2)) {
        if (!(r = tl_gbuf_copy(g, err)) || !(ge = tl_gbuf_copy(g, err)))
            goto out;
        tl_gbuf *xb = tl_gbuf_copy(g, err);
        if (!xb)
            goto out;
        tl_gk_broadcast(e, ge);
        tl_gk_broadcast(x, xb);
        for (int64_t j = 0; j < r->n; j++)
            r->v[j] = R(dt, r->v[j] * R(dt, ge->v[j] - xb->v[j]));
        tl_gbuf_free(xb);
        if (!(res[2] = to_input(n, 2, r, err))) {
            r = NULL;
            goto out;
        }
        r = NULL;
    }
    rc = 0;
out:
    tl_gbuf_free(x);
    tl_gbuf_free(e);
    tl_gbuf_free(w);
    tl_gbuf_free(ge);
    tl_gbuf_free(r);
    return rc;
}

/* clamp with tensor bounds (clamp_backward, clamp_backward_min_max):
 * self's gradient where min <= self <= max; min's where self < min (and
 * min < max when both are given); max's where self > max (or max < min) */
static int clamp_t_backward(tl_ag_node *n, const tl_gbuf *g, tl_gbuf **res, tl_error *err)
{
    tl_dtype dt = g->dt;
    bool hmin = n->saved[SV_OTHER].t != NULL, hmax = n->saved[SV_RESULT].t != NULL;
    tl_gbuf *x = NULL, *lo = NULL, *hi = NULL, *r[3] = {NULL, NULL, NULL};
    int rc = -1;
    if (!(x = operand(n, SV_SELF, g, false, err)) ||
        (hmin && !(lo = operand(n, SV_OTHER, g, false, err))) ||
        (hmax && !(hi = operand(n, SV_RESULT, g, false, err))))
        goto out;
    for (int i = 0; i < 3; i++)
        if (want(n, i) && !(r[i] = tl_gbuf_new(dt, g->ndim, g->sizes, err)))
            goto out;
    for (int64_t j = 0; j < g->n; j++) {
        double v = x->v[j], gv = g->v[j];
        double mn = lo ? lo->v[j] : 0, mx = hi ? hi->v[j] : 0;
        bool in = (!lo || v >= mn) && (!hi || v <= mx);
        if (r[0])
            r[0]->v[j] = in ? gv : 0;
        if (r[1])
            r[1]->v[j] = (v < mn && (!hi || mn < mx)) ? gv : 0;
        if (r[2])
            r[2]->v[j] = (v > mx || (lo && mx < mn)) ? gv : 0;
    }
    for (int i = 0; i < 3; i++)
        if (r[i]) {
            res[i] = to_input(n, i, r[i], err);
            r[i] = NULL;
            if (!res[i])
                goto out;
        }
    rc = 0;
out:
    for (int i = 0; i < 3; i++)
        tl_gbuf_free(r[i]);
    tl_gbuf_free(x);
    tl_gbuf_free(lo);
    tl_gbuf_free(hi);
    return rc;
}

static int apply(tl_ag_node *n, tl_gbuf **g, tl_gbuf **res, tl_error *err);

/* CopySlices: run the in-place op's node on the view's slice of the
 * base's gradient, and put its gradient for the old view back there. */
static int copyslices_backward(tl_ag_node *n, tl_gbuf **g, tl_gbuf **res, tl_error *err)
{
    tl_geom base, view;
    geom_get(&n->geom[0], &base);
    geom_get(&n->geom[1], &view);
    int64_t cnt = tl_geom_numel(&view);
    tl_storage *st = tl_storage_new(tl_backend_cpu(), (size_t)(cnt ? cnt : 1) * sizeof(int64_t), err);
    if (!st)
        return -1;
    int64_t *map = st->data;
    tl_gbuf *result = NULL, *slice = NULL;
    tl_gbuf **ires = NULL;
    int rc = -1;
    if (tl_gk_view_map(&base, &view, map, err) < 0)
        goto out;
    if (!(result = tl_gbuf_copy(g[0], err)))
        goto out;
    if (!(slice = tl_gbuf_new(g[0]->dt, view.ndim, view.sizes, err)))
        goto out;
    for (int64_t j = 0; j < cnt; j++)
        slice->v[j] = map[j] >= 0 ? result->v[map[j]] : 0;
    tl_ag_node *f = n->inner;
    ires = tl_xcalloc((size_t)f->nnext, sizeof *ires);
    /* the inner node's first input is the view's old value: always wanted */
    ag_edge e0 = f->next[0];
    f->next[0].fn = n; /* any non-NULL marks "wanted" */
    rc = apply(f, &slice, ires, err);
    f->next[0] = e0;
    if (rc < 0)
        goto out;
    rc = -1;
    for (int64_t j = 0; j < cnt; j++)
        if (map[j] >= 0)
            result->v[map[j]] = ires[0] ? ires[0]->v[j] : 0;
    res[0] = result;
    result = NULL;
    for (int i = 1; i < n->nnext; i++) {
        res[i] = ires[i];
        ires[i] = NULL;
    }
    rc = 0;
out:
    if (ires) {
        for (int i = 0; i < n->inner->nnext; i++)
            tl_gbuf_free(ires[i]);
        free(ires);
    }
    tl_gbuf_free(result);
    tl_gbuf_free(slice);
    tl_storage_release(st);
    return rc;
}

/* Gradients for n's inputs (res[i], NULL where none) from those for its
 * outputs (g[k], each present: missing ones were zero-filled). */
static int apply(tl_ag_node *n, tl_gbuf **g, tl_gbuf **res, tl_error *err)
{
    if (n->kind == K_COPYSLICES)
        return copyslices_backward(n, g, res, err);
    if (n->kind == K_UNSUPPORTED)
        return tl_error_set(err, TL_ERR_UNSUPPORTED,
                            "tlab does not support backward() through an op that made "
                            "a tensor of this graph (it has no grad_fn in tlab)");
    switch (n->op) {
    case TL_AG_NEG: case TL_AG_EXP: case TL_AG_LOG: case TL_AG_SQRT:
    case TL_AG_SIN: case TL_AG_COS: case TL_AG_TANH: case TL_AG_SIGMOID:
    case TL_AG_RELU: case TL_AG_ABS: case TL_AG_CLAMP: case TL_AG_CLAMP_MIN:
    case TL_AG_CLAMP_MAX: case TL_AG_POW:
        return unary(n, g[0], res, err);
    case TL_AG_ADD: case TL_AG_SUB: case TL_AG_RSUB: case TL_AG_MUL:
    case TL_AG_DIV: case TL_AG_POW_T: case TL_AG_POW_BASE: case TL_AG_RDIV:
        return binary(n, g[0], res, err);
    case TL_AG_SUM: case TL_AG_MEAN:
        return reduction(n, g[0], res, err);
    case TL_AG_MATMUL:
        return matmul(n, g[0], res, err);
    case TL_AG_VIEW:
        return view_backward(n, g, res, err);
    case TL_AG_IDENTITY: {
        tl_gbuf *r = tl_gbuf_copy(g[0], err);
        if (!r)
            return -1;
        r->ndim = n->inm[0].ndim;
        memcpy(r->sizes, n->inm[0].sizes, sizeof(int64_t) * (size_t)r->ndim);
        res[0] = to_input(n, 0, r, err);
        return res[0] ? 0 : -1;
    }
    case TL_AG_CAT: case TL_AG_STACK:
        return cat_backward(n, g[0], res, err);
    case TL_AG_INDEX:
    case TL_AG_SORT: /* grad-shape */
        return index_backward(n, g[0], res, err);
    case TL_AG_ZERO:
        if (want(n, 0) && !(res[0] = like_shape(&n->inm[0], n->inm[0].dt, err)))
            return -1;
        return 0;
    case TL_AG_COPY:
        if (want(n, 0) && !(res[0] = like_shape(&n->inm[0], n->inm[0].dt, err)))
            return -1;
        if (n->nnext > 1 && want(n, 1)) {
            tl_gbuf *r = tl_gbuf_copy(g[0], err);
            if (!r || !(res[1] = to_input(n, 1, r, err)))
                return -1;
        }
        return 0;
    case TL_AG_SETITEM:
    case TL_AG_PUT_ACC: /* grad-shape */
        return setitem_backward(n, g[0], res, err);
    /* math */
    case TL_AG_RSQRT: case TL_AG_RECIPROCAL: case TL_AG_EXPM1: case TL_AG_EXP2:
    case TL_AG_TAN: case TL_AG_LOG2: case TL_AG_LOG10: case TL_AG_LOG1P:
    case TL_AG_ASIN: case TL_AG_ACOS: case TL_AG_ATAN: case TL_AG_SINH:
    case TL_AG_COSH: case TL_AG_ERF: case TL_AG_PASS:
        return math_unary(n, g[0], res, err);
    case TL_AG_ZEROS: case TL_AG_DIV_MODE: case TL_AG_MAXIMUM: case TL_AG_MINIMUM:
    case TL_AG_ATAN2:
    case TL_AG_REMAINDER: case TL_AG_FMOD: case TL_AG_WHERE:
        return math_binary(n, g[0], res, err);
    case TL_AG_MAX_ALL: case TL_AG_AMAX:
        return max_even_backward(n, g[0], res, err);
    case TL_AG_MAX_DIM:
        return max_dim_backward(n, g[0], res, err);
    case TL_AG_VAR: case TL_AG_STD:
        return var_backward(n, g[0], res, err);
    case TL_AG_PROD:
        return prod_backward(n, g[0], res, err);
    case TL_AG_CLAMP_T:
        return clamp_t_backward(n, g[0], res, err);
    case TL_AG_CUMSUM:
        return cumsum_backward(n, g[0], res, err);
    case TL_AG_CUMPROD:
        return cumprod_backward(n, g[0], res, err);
    case TL_AG_LERP:
        return lerp_backward(n, g[0], res, err);
    case TL_AG_NOT_IMPL: /* grad-shape */
        return tl_error_set(err, TL_ERR_RUNTIME, "derivative for %s is not implemented",
                            n->what ? n->what : n->name);
    default:
        return tl_error_set(err, TL_ERR_INTERNAL, "no backward for %s", n->name);
    }
}

/* ===================================================================== */
/* the engine                                                             */

/* A backward pass's node lists start in arrays on the stack (a lab's
 * graphs have a handful of nodes: three mallocs and frees a pass fewer)
 * and move to the heap when they outgrow them. */
#define INLINE_NODES 32

/* Append x to *arr (len, cap), which starts as the inline array inl. */
static void nodes_push(tl_ag_node ***arr, size_t *len, size_t *cap, tl_ag_node **inl,
                       tl_ag_node *x)
{
    if (*len == *cap) {
        size_t nc = 2 * *cap;
        if (*arr == inl) {
            tl_ag_node **p = tl_xmalloc(nc * sizeof *p);
            memcpy(p, inl, *len * sizeof *p);
            *arr = p;
        } else {
            *arr = tl_xrealloc(*arr, nc * sizeof **arr);
        }
        *cap = nc;
    }
    (*arr)[(*len)++] = x;
}

typedef struct heap {
    tl_ag_node **v;
    size_t n, cap;
    tl_ag_node *inl[INLINE_NODES];
} heap;

static void heap_push(heap *h, tl_ag_node *x)
{
    if (h->n == h->cap) {
        if (!h->v) {
            h->v = h->inl;
            h->cap = INLINE_NODES;
        } else if (h->v == h->inl) {
            h->v = tl_xmalloc(2 * h->cap * sizeof *h->v);
            memcpy(h->v, h->inl, h->n * sizeof *h->v);
            h->cap *= 2;
        } else {
            h->cap *= 2;
            h->v = tl_xrealloc(h->v, h->cap * sizeof *h->v);
        }
    }
    size_t i = h->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (h->v[p]->seq >= x->seq)
            break;
        h->v[i] = h->v[p];
        i = p;
    }
    h->v[i] = x;
}

static tl_ag_node *heap_pop(heap *h)
{
    tl_ag_node *top = h->v[0], *x = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->v[c + 1]->seq > h->v[c]->seq)
            c++;
        if (x->seq >= h->v[c]->seq)
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n)
        h->v[i] = x;
    return top;
}

static void release_saved(tl_ag_node *n)
{
    if (!n->had_saved)
        return;
    for (int i = 0; i < SV_N; i++)
        saved_clear(&n->saved[i]);
    n->released = true;
    if (n->inner)
        release_saved(n->inner);
}

/* Hand a gradient (taken) to output nr of node fn. */
static void deliver(tl_ag_node *fn, int nr, tl_gbuf *g)
{
    if (!fn->gin) {
        if (fn->nout == 1) {
            fn->gin1 = NULL;
            fn->gin = &fn->gin1;
        } else {
            fn->gin = tl_xcalloc((size_t)fn->nout, sizeof *fn->gin);
        }
    }
    if (!fn->gin[nr]) {
        fn->gin[nr] = g;
        return;
    }
    tl_gbuf_add(fn->gin[nr], g);
    tl_gbuf_free(g);
}

static int accumulate_into(tl_tensor *t, tl_gbuf *g, bool leaf, tl_error *err)
{
    tl_ag_meta *m = meta_of(t);
    if (g->dt != t->dtype)
        tl_gbuf_cast(g, t->dtype);
    g->ndim = t->ndim;
    memcpy(g->sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    if (!m->grad) {
        m->grad = tl_gbuf_to_tensor(g, tl_tensor_backend(t), err);
        return m->grad ? 0 : -1;
    }
    tl_gbuf *old = tl_gbuf_from_tensor(m->grad, err);
    if (!old)
        return -1;
    tl_gbuf_add(old, g);
    int rc;
    if (leaf) {
        /* AccumulateGrad adds in place: the .grad object stays */
        rc = tl_gbuf_store(old, m->grad, err);
        m->grad->version->value++;
    } else {
        tl_tensor *ng = tl_gbuf_to_tensor(old, tl_tensor_backend(t), err);
        rc = ng ? 0 : -1;
        if (ng) {
            tl_tensor_release(m->grad);
            m->grad = ng;
        }
    }
    tl_gbuf_free(old);
    return rc;
}

static int run_node(tl_ag_node *n, heap *ready, tl_error *err)
{
    int rc = -1;
    tl_gbuf **res = NULL;
    if (!n->gin) {
        /* nothing arrived (every path here carried no gradient): pass on */
        for (int i = 0; i < n->nnext; i++) {
            tl_ag_node *fn = n->next[i].fn;
            if (fn && --fn->deps == 0)
                heap_push(ready, fn);
        }
        return 0;
    }
    /* zero-fill outputs that received nothing (split's other pieces); a
     * gradient must have its output's shape (formulas index by it) */
    for (int k = 0; k < n->nout; k++) {
        if (!n->gin[k]) {
            n->gin[k] = like_shape(&n->outm[k], n->outm[k].dt, err);
            if (!n->gin[k])
                return -1;
        }
        const tl_gbuf *g = n->gin[k];
        bool same = g->ndim == n->outm[k].ndim;
        for (int d = 0; same && d < g->ndim; d++)
            same = g->sizes[d] == n->outm[k].sizes[d];
        if (!same)
            return tl_error_set(err, TL_ERR_UNSUPPORTED,
                                "tlab cannot run backward() through %s: the tensor's shape "
                                "changed after it was recorded", n->name);
    }
    if (n->retain)
        for (int k = 0; k < n->nout; k++)
            if (n->retain[k]) {
                tl_gbuf *c = tl_gbuf_copy(n->gin[k], err);
                if (!c || accumulate_into(n->retain[k], c, false, err) < 0) {
                    tl_gbuf_free(c);
                    return -1;
                }
                tl_gbuf_free(c);
            }
    if (n->kind == K_ACC) {
        rc = accumulate_into(n->leaf, n->gin[0], true, err);
        return rc;
    }
    if (unpack_check(n, err) < 0 || (n->inner && unpack_check(n->inner, err) < 0))
        return -1;
    res = tl_xcalloc((size_t)(n->nnext ? n->nnext : 1), sizeof *res);
    if (apply(n, n->gin, res, err) < 0)
        goto out;
    for (int i = 0; i < n->nnext; i++) {
        tl_ag_node *fn = n->next[i].fn;
        if (!fn)
            continue;
        if (res[i]) {
            deliver(fn, n->next[i].nr, res[i]);
            res[i] = NULL;
        }
        if (--fn->deps == 0)
            heap_push(ready, fn);
    }
    rc = 0;
out:
    for (int i = 0; i < n->nnext; i++)
        tl_gbuf_free(res[i]);
    free(res);
    return rc;
}

int tl_ag_backward(tl_tensor *t, const tl_tensor *gradient, bool retain_graph,
                   tl_error *err)
{
    if (!t->requires_grad)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "element 0 of tensors does not require grad and does not "
                            "have a grad_fn");
    ag_edge root;
    if (edge_of(t, &root, err) < 0)
        return -1;
    if (!root.fn)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "element 0 of tensors does not require grad and does not "
                            "have a grad_fn");
    tl_gbuf *g0;
    if (!gradient) {
        if (tl_tensor_numel(t) != 1) {
            tl_ag_node_release(root.fn);
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "grad can be implicitly created only for scalar outputs");
        }
        g0 = tl_gbuf_ones(t->dtype, t->ndim, t->sizes, err);
    } else {
        bool same = gradient->ndim == t->ndim;
        for (int d = 0; same && d < t->ndim; d++)
            same = gradient->sizes[d] == t->sizes[d];
        if (!same) {
            char a[256] = "", b[256] = "";
            size_t ka = 0, kb = 0;
            for (int d = 0; d < gradient->ndim && ka + 24 < sizeof a; d++)
                ka += (size_t)snprintf(a + ka, sizeof a - ka, d ? ", %lld" : "%lld",
                                       (long long)gradient->sizes[d]);
            for (int d = 0; d < t->ndim && kb + 24 < sizeof b; d++)
                kb += (size_t)snprintf(b + kb, sizeof b - kb, d ? ", %lld" : "%lld",
                                       (long long)t->sizes[d]);
            tl_ag_node_release(root.fn);
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "Mismatch in shape: grad_output[0] has a shape of "
                                "torch.Size([%s]) and output[0] has a shape of "
                                "torch.Size([%s]).", a, b);
        }
        g0 = tl_gbuf_from_tensor(gradient, err);
        if (g0 && g0->dt != t->dtype)
            tl_gbuf_cast(g0, t->dtype);
    }
    if (!g0) {
        tl_ag_node_release(root.fn);
        return -1;
    }
    /* discover the graph (iteratively) and count dependencies */
    uint64_t mark = next_mark++;
    tl_ag_node *all_inl[INLINE_NODES], *stack_inl[INLINE_NODES];
    tl_ag_node **all = all_inl, **stack = stack_inl;
    size_t nall = 0, cap = INLINE_NODES, ns = 0, scap = INLINE_NODES;
    root.fn->mark = mark;
    root.fn->deps = 0;
    nodes_push(&stack, &ns, &scap, stack_inl, root.fn);
    while (ns) {
        tl_ag_node *x = stack[--ns];
        nodes_push(&all, &nall, &cap, all_inl, x);
        for (int i = 0; i < x->nnext; i++) {
            tl_ag_node *y = x->next[i].fn;
            if (!y)
                continue;
            if (y->mark != mark) {
                y->mark = mark;
                y->deps = 0;
                nodes_push(&stack, &ns, &scap, stack_inl, y);
            }
            y->deps++;
        }
    }
    if (stack != stack_inl)
        free(stack);
    deliver(root.fn, root.nr, g0);
    heap ready;
    ready.v = NULL;
    ready.n = ready.cap = 0;
    heap_push(&ready, root.fn);
    int rc = 0;
    while (ready.n) {
        tl_ag_node *x = heap_pop(&ready);
        if (run_node(x, &ready, err) < 0) {
            rc = -1;
            break;
        }
        gin_drop(x);
        if (!retain_graph)
            release_saved(x);
    }
    if (ready.v != ready.inl)
        free(ready.v);
    for (size_t i = 0; i < nall; i++) {
        tl_ag_node *x = all[i];
        gin_drop(x);
        x->mark = 0;
    }
    if (all != all_inl)
        free(all);
    tl_ag_node_release(root.fn);
    return rc;
}
