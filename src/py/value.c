/* value.c - interpreter values: constructors, refcounting, equality, repr.
 *
 * Invariants: refcount >= 1 while reachable; containers own their items;
 * TL_V_TENSOR / TL_V_NDARRAY own one reference on their tl_tensor; a bound
 * method owns its receiver. None is one static immortal value (retain and
 * release skip it: it is never written, so threads share it); Ellipsis is
 * an ordinary heap value, so `is` on it compares kinds.
 *
 * Memory: every value, its string and its item array are charged to the
 * thread's memory ledger (storage.h tl_alloc_objects_add) at their
 * allocator cost, recorded in v->charged and given back when the value is
 * destroyed, so --max-bytes bounds lists and strings as it bounds tensors.
 *
 * Reuse: the interpreter makes and drops thousands of values per op, so
 * freed value blocks go on a per-thread free list (base/freelist.h).
 *
 * Cycles: every list is in its thread's registry (young until it survives
 * a collection, then old) from seq_new to destroy; tl_value_collect runs
 * CPython's trial deletion over them (value.h states the invariant).
 */
#include "repr.h"
#include "value.h"

#include <inttypes.h>
#include <math.h>
#include "platform.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "freelist.h"
#include "storage.h"
#include "util.h"

/* charge block p (n bytes asked) to v and the ledger; uncharge when del */
static void charge(tl_value *v, const void *p, size_t n, bool del)
{
    size_t c = tl_alloc_cost(p, n);
    if (del) {
        v->charged -= c;
        tl_alloc_objects_add(-(int64_t)c);
    } else {
        v->charged += c;
        tl_alloc_objects_add((int64_t)c);
    }
}

/* freed value blocks are kept for reuse (freelist.h) */
#define VALUE_CACHE 1024
static _Thread_local tl_freelist vcache;

static void value_free(tl_value *v)
{
    tl_freelist_push(&vcache, v, VALUE_CACHE);
}

static tl_value *alloc_value(tl_vkind kind)
{
    tl_value *v = tl_freelist_pop(&vcache);
    if (v)
        memset(v, 0, sizeof *v);
    else
        v = tl_xcalloc(1, sizeof *v);
    v->refcount = 1;
    v->kind = kind;
    charge(v, v, sizeof *v, false);
    return v;
}

/* None is one immortal value, as in Python: nothing ever writes to it
 * (retain and release pass it by), so every thread may hand it out, and
 * a statement, a default or a fresh sequence slot costs no allocation. */
static tl_value none_value = {.refcount = 1, .kind = TL_V_NONE};
#define IMMORTAL(v) ((v) == &none_value)

tl_value *tl_none(void) { return &none_value; }
tl_value *tl_ellipsis(void) { return alloc_value(TL_V_ELLIPSIS); }

tl_value *tl_bool(bool b)
{
    tl_value *v = alloc_value(TL_V_BOOL);
    v->u.b = b;
    return v;
}

tl_value *tl_int(int64_t i)
{
    tl_value *v = alloc_value(TL_V_INT);
    v->u.i = i;
    return v;
}

tl_value *tl_float(double f)
{
    tl_value *v = alloc_value(TL_V_FLOAT);
    v->u.f = f;
    return v;
}

tl_value *tl_strn(const char *s, size_t n)
{
    tl_value *v = alloc_value(TL_V_STR);
    v->u.str.s = tl_xstrndup(s, n);
    v->u.str.len = n;
    charge(v, v->u.str.s, n + 1, false);
    return v;
}

tl_value *tl_str(const char *s) { return tl_strn(s, strlen(s)); }

/* Sequence item arrays have capacity pow2ceil(max(n, 1)): appends double it
 * exactly when n reaches a power of two. */
static size_t seq_capacity(size_t n)
{
    size_t cap = 1;
    while (cap < n)
        cap *= 2;
    return cap;
}

/* ---- the thread's list registry (value.h tl_value_collect) ---- */

typedef struct gcvec {
    tl_value **v;
    size_t n, cap;
} gcvec;

/* young: made since the last collection; old: survived one. A thread's
 * registry is emptied (the arrays freed) when the thread ends. */
static _Thread_local gcvec gc_young, gc_old;
static _Thread_local size_t gc_old_after_full;
static pthread_key_t gc_key;
static pthread_once_t gc_once = PTHREAD_ONCE_INIT;
static bool gc_key_ok;

static void gc_thread_end(void *unused)
{
    (void)unused;
    free(gc_young.v);
    free(gc_old.v);
    memset(&gc_young, 0, sizeof gc_young);
    memset(&gc_old, 0, sizeof gc_old);
}

static void gc_key_init(void) { gc_key_ok = pthread_key_create(&gc_key, gc_thread_end) == 0; }

static void gc_push(gcvec *g, tl_value *v, uint8_t gen)
{
    if (g->n == g->cap) {
        if (!g->cap) {
            pthread_once(&gc_once, gc_key_init);
            if (gc_key_ok)
                pthread_setspecific(gc_key, &gc_young); /* any non-NULL: the destructor runs */
        }
        g->cap = g->cap ? 2 * g->cap : 64;
        g->v = tl_xrealloc(g->v, g->cap * sizeof *g->v);
    }
    v->u.seq.gc_slot = (uint32_t)g->n;
    v->u.seq.gc_gen = gen;
    g->v[g->n++] = v;
}

static void gc_track(tl_value *v)
{
    if (gc_young.n < UINT32_MAX)
        gc_push(&gc_young, v, 1);
}

/* Off this thread's registry. A list freed on another thread than its
 * own (a kept result freed after its worker ended) is in no registry of
 * this thread: the slot check leaves this one alone. */
static void gc_untrack(tl_value *v)
{
    uint8_t gen = v->u.seq.gc_gen;
    if (!gen)
        return;
    gcvec *g = gen == 1 ? &gc_young : &gc_old;
    size_t i = v->u.seq.gc_slot;
    v->u.seq.gc_gen = 0;
    if (i >= g->n || g->v[i] != v)
        return;
    tl_value *last = g->v[--g->n];
    g->v[i] = last;
    last->u.seq.gc_slot = (uint32_t)i;
}

size_t tl_value_tracked(void) { return gc_young.n + gc_old.n; }

static tl_value *seq_new(tl_vkind kind, size_t n)
{
    tl_value *v = alloc_value(kind);
    v->u.seq.n = n;
    v->u.seq.items = tl_xcalloc(seq_capacity(n), sizeof(tl_value *));
    charge(v, v->u.seq.items, seq_capacity(n) * sizeof(tl_value *), false);
    for (size_t i = 0; i < n; i++)
        v->u.seq.items[i] = tl_none();
    if (kind == TL_V_LIST || kind == TL_V_DICT)
        gc_track(v);
    return v;
}

tl_value *tl_tuple_new(size_t n) { return seq_new(TL_V_TUPLE, n); }
tl_value *tl_list_new(size_t n) { return seq_new(TL_V_LIST, n); }

tl_value *tl_return_pair(const char *name, tl_value *values, tl_value *indices)
{
    tl_value *v = seq_new(TL_V_TUPLE, 2);
    v->u.seq.rtype = name;
    tl_seq_set(v, 0, values);
    tl_seq_set(v, 1, indices);
    return v;
}

tl_value *tl_size_new(int ndim, const int64_t *sizes)
{
    tl_value *v = seq_new(TL_V_SIZE, (size_t)ndim);
    for (int d = 0; d < ndim; d++)
        tl_seq_set(v, (size_t)d, tl_int(sizes[d]));
    return v;
}

void tl_seq_set(tl_value *seq, size_t i, tl_value *item)
{
    TL_ASSERT(tl_value_is_seq(seq) && i < seq->u.seq.n);
    tl_value_release(seq->u.seq.items[i]);
    seq->u.seq.items[i] = item;
}

void tl_list_append(tl_value *list, tl_value *item)
{
    TL_ASSERT(list->kind == TL_V_LIST);
    size_t n = list->u.seq.n;
    if (n > 0 && n == seq_capacity(n)) {
        charge(list, list->u.seq.items, sizeof(tl_value *) * n, true);
        list->u.seq.items =
            tl_xrealloc(list->u.seq.items, sizeof(tl_value *) * n * 2);
        charge(list, list->u.seq.items, sizeof(tl_value *) * n * 2, false);
    }
    list->u.seq.items[n] = item;
    list->u.seq.n = n + 1;
}

/* ---- dict: key, value pairs in u.seq.items, in insertion order ---- */

tl_value *tl_dict_new(void)
{
    tl_value *d = seq_new(TL_V_DICT, 0);
    return d;
}

size_t tl_dict_len(const tl_value *d) { return d->u.seq.n / 2; }

static size_t dict_find(const tl_value *d, const tl_value *k)
{
    for (size_t i = 0; i < d->u.seq.n; i += 2)
        if (tl_value_equal(d->u.seq.items[i], k))
            return i;
    return SIZE_MAX;
}

tl_value *tl_dict_get(const tl_value *d, const tl_value *k)
{
    size_t i = dict_find(d, k);
    return i == SIZE_MAX ? NULL : d->u.seq.items[i + 1];
}

/* room for two more items (capacity doubles as the list's does) */
static void dict_grow(tl_value *d)
{
    size_t n = d->u.seq.n, cap = seq_capacity(n);
    if (n + 2 <= cap)
        return;
    size_t ncap = seq_capacity(n + 2);
    charge(d, d->u.seq.items, sizeof(tl_value *) * cap, true);
    d->u.seq.items = tl_xrealloc(d->u.seq.items, sizeof(tl_value *) * ncap);
    charge(d, d->u.seq.items, sizeof(tl_value *) * ncap, false);
}

void tl_dict_set(tl_value *d, tl_value *k, tl_value *v)
{
    TL_ASSERT(d->kind == TL_V_DICT);
    size_t i = dict_find(d, k);
    if (i != SIZE_MAX) {
        tl_value_release(d->u.seq.items[i + 1]);
        d->u.seq.items[i + 1] = v;
        return;
    }
    dict_grow(d);
    d->u.seq.items[d->u.seq.n] = tl_value_retain(k);
    d->u.seq.items[d->u.seq.n + 1] = v;
    d->u.seq.n += 2;
}

bool tl_dict_del(tl_value *d, const tl_value *k)
{
    size_t i = dict_find(d, k);
    if (i == SIZE_MAX)
        return false;
    tl_value *ok = d->u.seq.items[i], *ov = d->u.seq.items[i + 1];
    memmove(d->u.seq.items + i, d->u.seq.items + i + 2,
            (d->u.seq.n - i - 2) * sizeof(tl_value *));
    d->u.seq.n -= 2;
    tl_value_release(ok);
    tl_value_release(ov);
    return true;
}

bool tl_value_hashable(const tl_value *v)
{
    switch (v->kind) {
    case TL_V_LIST:
    case TL_V_DICT:
    case TL_V_SLICE:
    case TL_V_NDARRAY:
        return false;
    case TL_V_TUPLE:
    case TL_V_SIZE:
        for (size_t i = 0; i < v->u.seq.n; i++)
            if (!tl_value_hashable(v->u.seq.items[i]))
                return false;
        return true;
    default:
        return true;
    }
}

tl_value *tl_value_object(const tl_objclass *cls, void *data)
{
    tl_value *v = alloc_value(TL_V_OBJECT);
    v->u.obj.cls = cls;
    v->u.obj.data = data;
    return v;
}

void *tl_value_object_data(const tl_value *v, const tl_objclass *cls)
{
    return v && v->kind == TL_V_OBJECT && v->u.obj.cls == cls ? v->u.obj.data : NULL;
}

tl_value *tl_slice_new(tl_value *start, tl_value *stop, tl_value *step)
{
    tl_value *v = alloc_value(TL_V_SLICE);
    v->u.slice.start = start ? start : tl_none();
    v->u.slice.stop = stop ? stop : tl_none();
    v->u.slice.step = step ? step : tl_none();
    return v;
}

tl_value *tl_value_dtype(tl_dtype dt)
{
    tl_value *v = alloc_value(TL_V_DTYPE);
    v->u.dtype = dt;
    return v;
}

tl_value *tl_value_np_dtype(tl_dtype dt, int npdt)
{
    tl_value *v = tl_value_dtype(dt);
    v->npdt = (unsigned char)npdt;
    return v;
}

tl_value *tl_value_device(tl_device dev)
{
    tl_value *v = alloc_value(TL_V_DEVICE);
    v->u.device = dev;
    return v;
}

tl_value *tl_value_memfmt(tl_memfmt f)
{
    tl_value *v = alloc_value(TL_V_MEMFMT);
    v->u.memfmt = f;
    return v;
}

tl_value *tl_value_tensor(tl_tensor *t)
{
    tl_value *v = alloc_value(TL_V_TENSOR);
    v->u.tensor = t;
    return v;
}

tl_value *tl_value_ndarray(tl_tensor *t)
{
    tl_value *v = alloc_value(TL_V_NDARRAY);
    v->u.tensor = t;
    return v;
}

tl_value *tl_value_storage(tl_storage *s)
{
    tl_value *v = alloc_value(TL_V_STORAGE);
    v->u.storage = tl_storage_retain(s);
    return v;
}

bool tl_value_python_dtype(const tl_value *v, tl_dtype *dt)
{
    const char *n;
    if (v && v->kind == TL_V_TYPE && v->u.type.errkind == TL_OK)
        n = v->u.type.name; /* the classes int, float, bool */
    else if (v && v->kind == TL_V_FUNC && !v->u.func.self && v->u.func.name)
        n = v->u.func.name;
    else
        return false;
    if (strcmp(n, "float") == 0)
        *dt = TL_FLOAT64;
    else if (strcmp(n, "int") == 0)
        *dt = TL_INT64;
    else if (strcmp(n, "bool") == 0)
        *dt = TL_BOOL;
    else
        return false;
    return true;
}

tl_value *tl_value_typed_storage(tl_storage *s, tl_dtype dt)
{
    tl_value *v = tl_value_storage(s);
    v->typed = true;
    v->sdtype = dt;
    return v;
}

tl_value *tl_value_module(const char *name)
{
    tl_value *v = alloc_value(TL_V_MODULE);
    v->u.str.s = tl_xstrdup(name);
    charge(v, v->u.str.s, strlen(name) + 1, false);
    v->u.str.len = strlen(name);
    return v;
}

tl_value *tl_value_func(const char *name, tl_cfunc fn, tl_value *self)
{
    tl_value *v = alloc_value(TL_V_FUNC);
    v->u.func.name = name;
    v->u.func.fn = fn;
    v->u.func.self = self ? tl_value_retain(self) : NULL;
    return v;
}

tl_value *tl_value_type(const char *name, int errkind, int vkind, tl_cfunc ctor)
{
    tl_value *v = alloc_value(TL_V_TYPE);
    v->u.type.name = name;
    v->u.type.errkind = errkind;
    v->u.type.vkind = vkind;
    v->u.type.ctor = ctor;
    return v;
}

tl_value *tl_value_exc(int errkind, const char *msg)
{
    tl_value *v = alloc_value(TL_V_EXC);
    v->u.exc.errkind = errkind;
    v->u.exc.msg = tl_xstrdup(msg ? msg : "");
    return v;
}

tl_value *tl_value_closure(const char *name, void *data,
                           tl_value *(*call)(void *, const struct tl_args *, tl_error *),
                           void (*drop)(void *))
{
    tl_value *v = alloc_value(TL_V_CLOSURE);
    v->u.closure.name = name;
    v->u.closure.data = data;
    v->u.closure.call = call;
    v->u.closure.drop = drop;
    return v;
}

/* every grading thread's interpreter installs the same hook: atomic */
static tl_value_call_hook call_hook;

void tl_value_set_call_hook(tl_value_call_hook hook)
{
    __atomic_store_n(&call_hook, hook, __ATOMIC_RELAXED);
}

static tl_value_out_hook out_hook;
static tl_value_np_ctor np_ctor;

void tl_value_set_np_ctor(tl_value_np_ctor ctor)
{
    __atomic_store_n(&np_ctor, ctor, __ATOMIC_RELAXED);
}

void tl_value_set_out_hook(tl_value_out_hook hook)
{
    __atomic_store_n(&out_hook, hook, __ATOMIC_RELAXED);
}

tl_value *tl_value_call_plain(tl_value *fn, const struct tl_args *args, tl_error *err)
{
    tl_value_call_hook hook = __atomic_load_n(&call_hook, __ATOMIC_RELAXED);
    if (hook)
        return hook(fn->u.func.name, fn->u.func.fn, fn->u.func.self, args, err);
    return fn->u.func.fn(fn->u.func.self, args, err);
}

tl_value *tl_value_call(tl_value *fn, const struct tl_args *args, tl_error *err)
{
    switch (fn->kind) {
    case TL_V_FUNC: /* named tensors' rules apply around methods (named.c) */
    {
        tl_value_out_hook oh = __atomic_load_n(&out_hook, __ATOMIC_RELAXED);
        if (oh)
            return oh(fn, args, err); /* out= (outarg.c); else the plain call */
        return tl_value_call_plain(fn, args, err);
    }
    case TL_V_CLOSURE:
        return fn->u.closure.call(fn->u.closure.data, args, err);
    case TL_V_TYPE:
        /* the class itself is the constructor's self (exception classes
         * build an exception of their kind) */
        if (fn->u.type.ctor)
            return fn->u.type.ctor(fn->u.type.errkind != TL_OK ? fn : NULL, args, err);
        break;
    case TL_V_DTYPE: { /* np.float32(1): a NumPy scalar type */
        tl_value_np_ctor c = __atomic_load_n(&np_ctor, __ATOMIC_RELAXED);
        if (c && fn->npdt == TL_NPDT_TYPE)
            return c(fn, args, err);
        break;
    }
    default:
        break;
    }
    tl_error_set(err, TL_ERR_TYPE, "'%s' object is not callable", tl_value_type_name(fn));
    return NULL;
}

tl_value *tl_value_retain(tl_value *v)
{
    if (v && !IMMORTAL(v))
        v->refcount++;
    return v;
}

/* Release drops children through a worklist instead of recursing, so that
 * a list nested 100000 deep (`a = [a]` repeated in a setup) is freed
 * without exhausting the stack. */
typedef struct dying {
    tl_value **v;
    size_t n, cap;
} dying;

static void drop(dying *d, tl_value *child)
{
    if (!child || IMMORTAL(child) || --child->refcount > 0)
        return;
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 16;
        d->v = tl_xrealloc(d->v, d->cap * sizeof *d->v);
    }
    d->v[d->n++] = child;
}

static void destroy(dying *d, tl_value *v)
{
    switch (v->kind) {
    case TL_V_STR:
    case TL_V_MODULE:
        free(v->u.str.s);
        break;
    case TL_V_TUPLE:
    case TL_V_LIST:
    case TL_V_SIZE:
    case TL_V_DICT:
        gc_untrack(v);
        for (size_t i = 0; i < v->u.seq.n; i++)
            drop(d, v->u.seq.items[i]);
        free(v->u.seq.items);
        break;
    case TL_V_SLICE:
        drop(d, v->u.slice.start);
        drop(d, v->u.slice.stop);
        drop(d, v->u.slice.step);
        break;
    case TL_V_TENSOR:
    case TL_V_NDARRAY:
        tl_tensor_release(v->u.tensor);
        break;
    case TL_V_STORAGE:
        tl_storage_release(v->u.storage);
        break;
    case TL_V_FUNC:
        drop(d, v->u.func.self);
        break;
    case TL_V_EXC:
        free(v->u.exc.msg);
        break;
    case TL_V_CLOSURE:
        if (v->u.closure.drop)
            v->u.closure.drop(v->u.closure.data);
        break;
    case TL_V_OBJECT:
        if (v->u.obj.cls->drop)
            v->u.obj.cls->drop(v->u.obj.data);
        break;
    default:
        break;
    }
    tl_alloc_objects_add(-(int64_t)v->charged);
    value_free(v);
}

void tl_value_release(tl_value *v)
{
    if (!v || IMMORTAL(v) || --v->refcount > 0)
        return;
    dying d = {0};
    destroy(&d, v);
    while (d.n > 0)
        destroy(&d, d.v[--d.n]);
    free(d.v);
}

/* ---- the cycle collector (value.h) ---- */

/* the values a collection looks at, with a pointer -> index map */
typedef struct gcset {
    tl_value **v;
    long *refs;
    bool *reach;
    size_t n, cap;
    size_t *map; /* index + 1, 0 empty; open addressing, mcap a power of 2 */
    size_t mcap;
} gcset;

static size_t gc_hash(const tl_value *v, size_t mcap)
{
    uint64_t x = (uint64_t)(uintptr_t)v;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x & (mcap - 1);
}

static size_t gc_find(const gcset *c, const tl_value *v)
{
    for (size_t h = gc_hash(v, c->mcap);; h = (h + 1) & (c->mcap - 1)) {
        size_t k = c->map[h];
        if (!k || c->v[k - 1] == v)
            return k; /* 0: not in the set */
    }
}

static void gc_add(gcset *c, tl_value *v)
{
    if (2 * (c->n + 1) > c->mcap) {
        size_t mcap = c->mcap ? 2 * c->mcap : 256;
        free(c->map);
        c->map = tl_xcalloc(mcap, sizeof *c->map);
        c->mcap = mcap;
        for (size_t i = 0; i < c->n; i++) {
            size_t h = gc_hash(c->v[i], mcap);
            while (c->map[h])
                h = (h + 1) & (mcap - 1);
            c->map[h] = i + 1;
        }
    }
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->v = tl_xrealloc(c->v, c->cap * sizeof *c->v);
    }
    size_t h = gc_hash(v, c->mcap);
    while (c->map[h])
        h = (h + 1) & (c->mcap - 1);
    c->map[h] = c->n + 1;
    c->v[c->n++] = v;
}

static tl_closure_call_fn closure_call_fn;
static tl_value **(*closure_refs)(void *data, size_t *n);

void tl_value_closure_refs_hook(tl_closure_call_fn call,
                                tl_value **(*refs)(void *data, size_t *n))
{
    __atomic_store_n(&closure_call_fn, call, __ATOMIC_RELAXED);
    __atomic_store_n(&closure_refs, refs, __ATOMIC_RELAXED);
}

/* the hook's refs for v, a closure of the hooked layer; else NULL */
static tl_value **(*hooked(const tl_value *v))(void *, size_t *)
{
    if (v->u.closure.call != __atomic_load_n(&closure_call_fn, __ATOMIC_RELAXED))
        return NULL;
    return __atomic_load_n(&closure_refs, __ATOMIC_RELAXED);
}

/* the references v holds that a collection follows */
static size_t gc_children(const tl_value *v, tl_value *const **kids)
{
    switch (v->kind) {
    case TL_V_CLOSURE: {
        size_t n = 0;
        tl_value **(*refs)(void *, size_t *) = hooked(v);
        *kids = refs ? refs(v->u.closure.data, &n) : NULL;
        return *kids ? n : 0;
    }
    case TL_V_TUPLE:
    case TL_V_LIST:
    case TL_V_DICT:
        *kids = v->u.seq.items;
        return v->u.seq.n;
    case TL_V_FUNC:
        *kids = &v->u.func.self;
        return v->u.func.self ? 1 : 0;
    default:
        *kids = NULL;
        return 0;
    }
}

/* a value a collection takes in: a list of the generation(s) looked at,
 * or a tuple / bound method / closure (never registered: found through
 * lists) */
static bool gc_member(const tl_value *v, bool full)
{
    if (!v || IMMORTAL(v))
        return false;
    switch (v->kind) {
    case TL_V_LIST:
    case TL_V_DICT: return full || v->u.seq.gc_gen == 1;
    case TL_V_TUPLE: return v->u.seq.n > 0;
    case TL_V_FUNC: return v->u.func.self != NULL;
    case TL_V_CLOSURE: return hooked(v) != NULL;
    default: return false;
    }
}

static void collect(bool full)
{
    gcset c = {0};
    for (size_t i = 0; i < gc_young.n; i++)
        gc_add(&c, gc_young.v[i]);
    if (full)
        for (size_t i = 0; i < gc_old.n; i++)
            gc_add(&c, gc_old.v[i]);
    if (!c.n)
        return;
    /* everything the lists reach through tuples and bound methods */
    for (size_t i = 0; i < c.n; i++) {
        tl_value *const *kids;
        size_t nk = gc_children(c.v[i], &kids);
        for (size_t k = 0; k < nk; k++)
            if (gc_member(kids[k], full) && !gc_find(&c, kids[k]))
                gc_add(&c, kids[k]);
    }
    /* trial deletion: the references from outside the set */
    c.refs = tl_xmalloc(c.n * sizeof *c.refs);
    c.reach = tl_xcalloc(c.n, sizeof *c.reach);
    for (size_t i = 0; i < c.n; i++)
        c.refs[i] = c.v[i]->refcount;
    for (size_t i = 0; i < c.n; i++) {
        tl_value *const *kids;
        size_t nk = gc_children(c.v[i], &kids);
        for (size_t k = 0; k < nk; k++) {
            size_t j = kids[k] ? gc_find(&c, kids[k]) : 0;
            if (j)
                c.refs[j - 1]--;
        }
    }
    /* what those reach stays; a worklist, no recursion */
    size_t *work = tl_xmalloc(c.n * sizeof *work), nw = 0;
    for (size_t i = 0; i < c.n; i++)
        if (c.refs[i] > 0) {
            c.reach[i] = true;
            work[nw++] = i;
        }
    while (nw) {
        tl_value *const *kids;
        size_t nk = gc_children(c.v[work[--nw]], &kids);
        for (size_t k = 0; k < nk; k++) {
            size_t j = kids[k] ? gc_find(&c, kids[k]) : 0;
            if (j && !c.reach[j - 1]) {
                c.reach[j - 1] = true;
                work[nw++] = j - 1;
            }
        }
    }
    /* the rest is garbage held only by itself: keep each alive while the
     * references among them are dropped, then let them go */
    size_t ng = 0;
    for (size_t i = 0; i < c.n; i++)
        if (!c.reach[i]) {
            tl_value_retain(c.v[i]);
            work[ng++] = i;
        }
    for (size_t g = 0; g < ng; g++) {
        tl_value *v = c.v[work[g]];
        if (v->kind == TL_V_FUNC) {
            tl_value *self = v->u.func.self;
            v->u.func.self = NULL;
            tl_value_release(self);
        } else if (v->kind == TL_V_CLOSURE) {
            tl_value *const *kids;
            size_t nk = gc_children(v, &kids);
            for (size_t k = 0; k < nk; k++) {
                tl_value *it = kids[k];
                ((tl_value **)kids)[k] = NULL;
                tl_value_release(it);
            }
        } else {
            for (size_t k = 0; k < v->u.seq.n; k++) {
                tl_value *it = v->u.seq.items[k];
                v->u.seq.items[k] = tl_none();
                tl_value_release(it);
            }
        }
    }
    for (size_t g = 0; g < ng; g++)
        tl_value_release(c.v[work[g]]);
    free(work);
    free(c.refs);
    free(c.reach);
    free(c.map);
    free(c.v);
}

void tl_value_collect(bool full)
{
    if (!full && gc_old.n > 2 * gc_old_after_full + 1024)
        full = true;
    collect(full);
    /* the lists that survived are old now */
    while (gc_young.n) {
        tl_value *v = gc_young.v[--gc_young.n];
        gc_push(&gc_old, v, 2);
    }
    if (full)
        gc_old_after_full = gc_old.n;
}

/* ---- inspection ---- */

static const char *return_type_name(const char *rtype)
{
    static const char *const names[][2] = {
        {"max", "torch.return_types.max"},   {"min", "torch.return_types.min"},
        {"sort", "torch.return_types.sort"}, {"topk", "torch.return_types.topk"},
        {"kthvalue", "torch.return_types.kthvalue"},
        /* out=(values, indices) (outarg.c) */
        {"max_out", "torch.return_types.max_out"}, {"min_out", "torch.return_types.min_out"},
        {"sort_out", "torch.return_types.sort_out"}, {"topk_out", "torch.return_types.topk_out"},
        {"kthvalue_out", "torch.return_types.kthvalue_out"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i][0], rtype) == 0)
            return names[i][1];
    return "tuple";
}

const char *tl_value_type_name(const tl_value *v)
{
    switch (v->kind) {
    case TL_V_NONE: return "NoneType";
    case TL_V_BOOL: return "bool";
    case TL_V_INT: return "int";
    case TL_V_FLOAT: return "float";
    case TL_V_STR: return "str";
    case TL_V_TUPLE: return v->u.seq.rtype ? return_type_name(v->u.seq.rtype) : "tuple";
    case TL_V_LIST: return "list";
    case TL_V_SIZE: return "torch.Size";
    case TL_V_SLICE: return "slice";
    case TL_V_ELLIPSIS: return "ellipsis";
    case TL_V_DTYPE:
        return v->npdt == TL_NPDT_TORCH ? "torch.dtype"
               : v->npdt == TL_NPDT_TYPE ? "type" : "numpy.dtype";
    case TL_V_DEVICE: return "torch.device";
    case TL_V_MEMFMT: return "torch.memory_format";
    case TL_V_TENSOR: return "Tensor";
    case TL_V_NDARRAY: return "numpy.ndarray";
    case TL_V_STORAGE: return v->typed ? "torch.TypedStorage" : "torch.UntypedStorage";
    case TL_V_MODULE: return "module";
    case TL_V_FUNC: return "builtin_function_or_method";
    case TL_V_TYPE: return "type";
    case TL_V_EXC: return tl_error_kind_name((tl_errkind)v->u.exc.errkind);
    case TL_V_CLOSURE: return "function";
    case TL_V_DICT: return "dict";
    case TL_V_OBJECT: return v->u.obj.cls->name;
    case TL_V_NKINDS: break;
    }
    return "object";
}

bool tl_value_is_seq(const tl_value *v)
{
    return v->kind == TL_V_TUPLE || v->kind == TL_V_LIST || v->kind == TL_V_SIZE;
}

bool tl_value_is_tensorlike(const tl_value *v)
{
    return v->kind == TL_V_TENSOR || v->kind == TL_V_NDARRAY;
}

int tl_value_truthy(const tl_value *v, bool *out, tl_error *err)
{
    switch (v->kind) {
    case TL_V_NONE: *out = false; return 0;
    case TL_V_BOOL: *out = v->u.b; return 0;
    case TL_V_INT: *out = v->u.i != 0; return 0;
    case TL_V_FLOAT: *out = v->u.f != 0.0; return 0;
    case TL_V_STR: *out = v->u.str.len != 0; return 0;
    case TL_V_TUPLE:
    case TL_V_LIST:
    case TL_V_SIZE:
    case TL_V_DICT: *out = v->u.seq.n != 0; return 0;
    case TL_V_TENSOR:
    case TL_V_NDARRAY: {
        const tl_tensor *t = v->u.tensor;
        int64_t n = tl_tensor_numel(t);
        if (n != 1) {
            if (v->kind == TL_V_NDARRAY && n == 0) {
                *out = false;
                return 0;
            }
            if (v->kind == TL_V_TENSOR)
                return tl_error_set(err, TL_ERR_RUNTIME,
                                    "Boolean value of Tensor with %s is "
                                    "ambiguous",
                                    n == 0 ? "no values" : "more than one value");
            return tl_error_set(err, TL_ERR_VALUE,
                                "The truth value of an array with more than "
                                "one element is ambiguous. Use a.any() or "
                                "a.all()");
        }
        double d;
        if (tl_tensor_get_f64(t, 0, &d, err) < 0)
            return -1;
        *out = d != 0.0;
        return 0;
    }
    default: *out = true; return 0;
    }
}

static bool numeric(const tl_value *v, double *d, int64_t *i, bool *is_int)
{
    switch (v->kind) {
    case TL_V_BOOL: *i = v->u.b; *d = v->u.b; *is_int = true; return true;
    case TL_V_INT: *i = v->u.i; *d = (double)v->u.i; *is_int = true; return true;
    case TL_V_FLOAT: *d = v->u.f; *is_int = false; return true;
    default: return false;
    }
}

/* *deep is set when the depth limit stopped the comparison of two
 * different sequences (Python raises RecursionError there) */
static bool equal_rec(const tl_value *a, const tl_value *b, int depth, bool *deep)
{
    double da, db;
    int64_t ia, ib;
    bool inta, intb;
    if (numeric(a, &da, &ia, &inta) && numeric(b, &db, &ib, &intb)) {
        if (inta && intb)
            return ia == ib;
        return da == db;
    }
    bool seqa = tl_value_is_seq(a), seqb = tl_value_is_seq(b);
    if (seqa && seqb) {
        bool tuple_a = a->kind != TL_V_LIST, tuple_b = b->kind != TL_V_LIST;
        if (tuple_a != tuple_b || a->u.seq.n != b->u.seq.n)
            return false;
        /* Python compares items with an identity shortcut; past the depth
         * limit identity is all that is compared (no unbounded recursion) */
        if (depth >= TL_VALUE_MAX_DEPTH) {
            if (a != b)
                *deep = true;
            return a == b;
        }
        for (size_t i = 0; i < a->u.seq.n; i++) {
            const tl_value *x = a->u.seq.items[i], *y = b->u.seq.items[i];
            if (x != y && !equal_rec(x, y, depth + 1, deep))
                return false;
        }
        return true;
    }
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case TL_V_NONE:
    case TL_V_ELLIPSIS: return true;
    case TL_V_STR:
        return a->u.str.len == b->u.str.len &&
               memcmp(a->u.str.s, b->u.str.s, a->u.str.len) == 0;
    case TL_V_DICT:
        if (a->u.seq.n != b->u.seq.n)
            return false;
        if (depth >= TL_VALUE_MAX_DEPTH) {
            if (a != b)
                *deep = true;
            return a == b;
        }
        for (size_t i = 0; i < a->u.seq.n; i += 2) {
            const tl_value *y = tl_dict_get(b, a->u.seq.items[i]);
            if (!y || (y != a->u.seq.items[i + 1] &&
                       !equal_rec(a->u.seq.items[i + 1], y, depth + 1, deep)))
                return false;
        }
        return true;
    case TL_V_SLICE:
        return equal_rec(a->u.slice.start, b->u.slice.start, depth + 1, deep) &&
               equal_rec(a->u.slice.stop, b->u.slice.stop, depth + 1, deep) &&
               equal_rec(a->u.slice.step, b->u.slice.step, depth + 1, deep);
    case TL_V_DTYPE: /* np.float32 == ndarray.dtype; neither == torch's */
        return a->u.dtype == b->u.dtype &&
               (a->npdt == TL_NPDT_TORCH) == (b->npdt == TL_NPDT_TORCH);
    case TL_V_DEVICE:
        return a->u.device.kind == b->u.device.kind &&
               a->u.device.index == b->u.device.index;
    case TL_V_MEMFMT: return a->u.memfmt == b->u.memfmt;
    case TL_V_TENSOR:
    case TL_V_NDARRAY: return a->u.tensor == b->u.tensor;
    case TL_V_STORAGE: return a->u.storage == b->u.storage;
    case TL_V_MODULE: return strcmp(a->u.str.s, b->u.str.s) == 0;
    case TL_V_FUNC:
        return a->u.func.fn == b->u.func.fn && a->u.func.self == b->u.func.self;
    case TL_V_TYPE: return strcmp(a->u.type.name, b->u.type.name) == 0;
    case TL_V_CLOSURE: return a->u.closure.data == b->u.closure.data;
    case TL_V_OBJECT: return a->u.obj.cls == b->u.obj.cls && a->u.obj.data == b->u.obj.data;
    default: return a == b;
    }
}

bool tl_value_equal(const tl_value *a, const tl_value *b)
{
    bool deep = false;
    return equal_rec(a, b, 0, &deep);
}

int tl_value_equal_checked(const tl_value *a, const tl_value *b, bool *out, tl_error *err)
{
    return tl_value_equal_at_checked(a, b, 0, out, err);
}

int tl_value_equal_at_checked(const tl_value *a, const tl_value *b, int depth,
                              bool *out, tl_error *err)
{
    bool deep = false;
    *out = equal_rec(a, b, depth < 0 ? 0 : depth, &deep);
    if (deep)
        return tl_error_set(err, TL_ERR_LIMIT,
                            "maximum recursion depth exceeded in comparison "
                            "(RecursionError; sequences nested deeper than %d levels)",
                            TL_VALUE_MAX_DEPTH);
    return 0;
}

bool tl_value_is(const tl_value *a, const tl_value *b)
{
    if (a == b)
        return true;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case TL_V_NONE:
    case TL_V_ELLIPSIS: return true;
    case TL_V_BOOL: return a->u.b == b->u.b;
    case TL_V_TENSOR:
    case TL_V_NDARRAY: return a->u.tensor == b->u.tensor;
    case TL_V_DTYPE: return a->u.dtype == b->u.dtype && a->npdt == b->npdt;
    case TL_V_MEMFMT: return a->u.memfmt == b->u.memfmt;
    case TL_V_STORAGE: return a->u.storage == b->u.storage;
    case TL_V_MODULE: return strcmp(a->u.str.s, b->u.str.s) == 0;
    case TL_V_TYPE: return strcmp(a->u.type.name, b->u.type.name) == 0;
    case TL_V_CLOSURE: return a->u.closure.data == b->u.closure.data;
    case TL_V_OBJECT: return a->u.obj.cls == b->u.obj.cls && a->u.obj.data == b->u.obj.data;
    default: return false;
    }
}

/* ---- repr ---- */

/* Does the decimal text s read back as f in dtype dt (float64: itself;
 * float32/float16: f's value in that dtype, f being one)? */
static bool reads_back(const char *s, double f, tl_dtype dt)
{
    double v = strtod(s, NULL);
    if (dt == TL_FLOAT64)
        return v == f;
    unsigned char a[8], c[8];
    tl_dtype_store_f64(dt, a, v);
    tl_dtype_store_f64(dt, c, f);
    return memcmp(a, c, tl_dtype_size(dt)) == 0;
}

/* Python's float repr: the shortest string that round-trips, in positional
 * notation when the decimal exponent is in [-4, 16), else scientific.
 * NumPy's float32/float16 scalars print the same way with the shortest
 * digits that round-trip in their own precision (np.float32(1.1) is 1.1). */
static void float_repr_in(double f, tl_dtype dt, tl_buf *b)
{
    if (isnan(f)) {
        tl_buf_puts(b, "nan");
        return;
    }
    if (isinf(f)) {
        tl_buf_puts(b, f < 0 ? "-inf" : "inf");
        return;
    }
    char tmp[64];
    int prec;
    for (prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, f);
        if (reads_back(tmp, f, dt))
            break;
    }
    /* tmp = [-]d.ddde[+-]XX */
    const char *p = tmp;
    bool neg = *p == '-';
    if (neg)
        p++;
    char digits[32];
    int nd = 0;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[nd++] = *p;
    int exp10 = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    if (neg)
        tl_buf_putc(b, '-');
    int decpt = exp10 + 1; /* position of the decimal point */
    if (exp10 >= 16 || exp10 < -4) {
        tl_buf_putc(b, digits[0]);
        if (nd > 1) {
            tl_buf_putc(b, '.');
            tl_buf_puts(b, digits + 1);
        }
        tl_buf_printf(b, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
        return;
    }
    if (decpt <= 0) {
        tl_buf_puts(b, "0.");
        for (int i = 0; i < -decpt; i++)
            tl_buf_putc(b, '0');
        tl_buf_puts(b, digits);
    } else if (decpt >= nd) {
        tl_buf_puts(b, digits);
        for (int i = nd; i < decpt; i++)
            tl_buf_putc(b, '0');
        tl_buf_puts(b, ".0");
    } else {
        tl_buf_append(b, digits, (size_t)decpt);
        tl_buf_putc(b, '.');
        tl_buf_puts(b, digits + decpt);
    }
}

static void str_repr(const char *s, size_t n, tl_buf *b)
{
    bool has_sq = memchr(s, '\'', n) != NULL, has_dq = memchr(s, '"', n) != NULL;
    char q = has_sq && !has_dq ? '"' : '\'';
    tl_buf_putc(b, q);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == (unsigned char)q || c == '\\') {
            tl_buf_putc(b, '\\');
            tl_buf_putc(b, (char)c);
        } else if (c == '\n') {
            tl_buf_puts(b, "\\n");
        } else if (c == '\t') {
            tl_buf_puts(b, "\\t");
        } else if (c < 0x20 || c == 0x7f) {
            tl_buf_printf(b, "\\x%02x", c);
        } else {
            tl_buf_putc(b, (char)c);
        }
    }
    tl_buf_putc(b, q);
}

/* repr of v into b, giving up once b->len passes `limit` (an absolute
 * length) or nesting passes TL_VALUE_MAX_DEPTH: the function that gives up
 * appends "..." and returns false, its callers just return false.
 * path[0..depth) are the values being printed around v: a list or tuple
 * met again inside itself prints as Python's [...] or (...). */
static bool repr_rec(const tl_value *v, tl_buf *b, size_t limit, int depth,
                     const tl_value **path)
{
    if (depth <= TL_VALUE_MAX_DEPTH)
        path[depth] = v;
    if (b->len > limit) {
        tl_buf_puts(b, "...");
        return false;
    }
    switch (v->kind) {
    case TL_V_NONE: tl_buf_puts(b, "None"); break;
    case TL_V_BOOL: tl_buf_puts(b, v->u.b ? "True" : "False"); break;
    case TL_V_INT: tl_buf_printf(b, "%" PRId64, v->u.i); break;
    case TL_V_FLOAT:
        float_repr_in(v->u.f,
                      v->npdt == TL_NPDT_DTYPE &&
                              (v->sdtype == TL_FLOAT32 || v->sdtype == TL_FLOAT16)
                          ? v->sdtype
                          : TL_FLOAT64,
                      b);
        break;
    case TL_V_STR: {
        /* at most limit - len characters (each renders as >= 1 byte) */
        size_t room = limit - b->len + 1;
        bool whole = v->u.str.len <= room;
        str_repr(v->u.str.s, whole ? v->u.str.len : room, b);
        if (!whole) {
            tl_buf_puts(b, "...");
            return false;
        }
        break;
    }
    case TL_V_TUPLE:
    case TL_V_LIST:
    case TL_V_SIZE: {
        bool list = v->kind == TL_V_LIST;
        for (int i = 0; i < depth && i <= TL_VALUE_MAX_DEPTH; i++)
            if (path[i] == v) {
                tl_buf_puts(b, list ? "[...]" : "(...)");
                return true;
            }
        if (depth >= TL_VALUE_MAX_DEPTH) {
            tl_buf_puts(b, "...");
            return false;
        }
        if (v->kind == TL_V_TUPLE && v->u.seq.rtype && v->u.seq.n == 2) {
            /* torch.return_types.max(\nvalues=...,\nindices=...) */
            tl_buf_printf(b, "%s(\nvalues=", tl_value_type_name(v));
            if (!repr_rec(v->u.seq.items[0], b, limit, depth + 1, path))
                return false;
            tl_buf_puts(b, ",\nindices=");
            if (!repr_rec(v->u.seq.items[1], b, limit, depth + 1, path))
                return false;
            tl_buf_putc(b, ')');
            break;
        }
        if (v->kind == TL_V_SIZE)
            tl_buf_puts(b, "torch.Size([");
        else
            tl_buf_putc(b, list ? '[' : '(');
        for (size_t i = 0; i < v->u.seq.n; i++) {
            if (i)
                tl_buf_puts(b, ", ");
            if (!repr_rec(v->u.seq.items[i], b, limit, depth + 1, path))
                return false;
        }
        if (v->kind == TL_V_SIZE)
            tl_buf_puts(b, "])");
        else if (list)
            tl_buf_putc(b, ']');
        else
            tl_buf_puts(b, v->u.seq.n == 1 ? ",)" : ")");
        break;
    }
    case TL_V_SLICE:
        tl_buf_puts(b, "slice(");
        if (!repr_rec(v->u.slice.start, b, limit, depth + 1, path))
            return false;
        tl_buf_puts(b, ", ");
        if (!repr_rec(v->u.slice.stop, b, limit, depth + 1, path))
            return false;
        tl_buf_puts(b, ", ");
        if (!repr_rec(v->u.slice.step, b, limit, depth + 1, path))
            return false;
        tl_buf_putc(b, ')');
        break;
    case TL_V_DICT: {
        for (int i = 0; i < depth && i <= TL_VALUE_MAX_DEPTH; i++)
            if (path[i] == v) {
                tl_buf_puts(b, "{...}");
                return true;
            }
        if (depth >= TL_VALUE_MAX_DEPTH) {
            tl_buf_puts(b, "...");
            return false;
        }
        tl_buf_putc(b, '{');
        for (size_t i = 0; i < v->u.seq.n; i += 2) {
            if (i)
                tl_buf_puts(b, ", ");
            if (!repr_rec(v->u.seq.items[i], b, limit, depth + 1, path))
                return false;
            tl_buf_puts(b, ": ");
            if (!repr_rec(v->u.seq.items[i + 1], b, limit, depth + 1, path))
                return false;
        }
        tl_buf_putc(b, '}');
        break;
    }
    case TL_V_OBJECT:
        if (v->u.obj.cls->repr)
            v->u.obj.cls->repr(v, b);
        else
            tl_buf_printf(b, "<%s object>", v->u.obj.cls->name);
        break;
    case TL_V_ELLIPSIS: tl_buf_puts(b, "Ellipsis"); break;
    case TL_V_DTYPE:
        if (v->npdt == TL_NPDT_TYPE)
            tl_buf_printf(b, "<class 'numpy.%s%s'>", tl_dtype_name(v->u.dtype),
                          v->u.dtype == TL_BOOL ? "_" : "");
        else if (v->npdt == TL_NPDT_DTYPE)
            tl_buf_printf(b, "dtype('%s')", tl_dtype_name(v->u.dtype));
        else
            tl_buf_printf(b, "torch.%s", tl_dtype_name(v->u.dtype));
        break;
    case TL_V_DEVICE:
        if (v->u.device.kind == TL_DEV_CPU)
            tl_buf_puts(b, "device(type='cpu')");
        else
            tl_buf_printf(b, "device(type='cuda', index=%d)", v->u.device.index);
        break;
    case TL_V_MEMFMT: {
        static const char *names[] = {"torch.preserve_format",
                                      "torch.contiguous_format",
                                      "torch.channels_last",
                                      "torch.channels_last_3d"};
        tl_buf_puts(b, names[v->u.memfmt]);
        break;
    }
    case TL_V_TENSOR: tl_repr_tensor(v->u.tensor, b); break;
    case TL_V_NDARRAY: tl_repr_ndarray(v->u.tensor, true, b); break;
    case TL_V_STORAGE:
        tl_repr_storage(v->u.storage, b, (limit - b->len) / 4 + 1);
        break;
    case TL_V_MODULE:
        /* torch.finfo / torch.iinfo objects carry their repr as the name */
        if (strncmp(v->u.str.s, "finfo(", 6) == 0 || strncmp(v->u.str.s, "iinfo(", 6) == 0)
            tl_buf_puts(b, v->u.str.s);
        else
            tl_buf_printf(b, "<module '%s'>", v->u.str.s);
        break;
    case TL_V_FUNC: tl_buf_printf(b, "<built-in method %s>", v->u.func.name); break;
    case TL_V_TYPE: tl_buf_printf(b, "<class '%s'>", v->u.type.name); break;
    case TL_V_EXC:
        tl_buf_printf(b, "%s(", tl_error_kind_name((tl_errkind)v->u.exc.errkind));
        if (v->u.exc.msg[0])
            str_repr(v->u.exc.msg, strlen(v->u.exc.msg), b);
        tl_buf_putc(b, ')');
        break;
    case TL_V_CLOSURE:
        tl_buf_printf(b, "<function %s at %p>", v->u.closure.name, (void *)v);
        break;
    case TL_V_NKINDS: break;
    }
    return true;
}

bool tl_value_repr_bounded(const tl_value *v, tl_buf *b, size_t max_bytes)
{
    size_t limit = b->len + max_bytes;
    if (limit < b->len)
        limit = SIZE_MAX - 4;
    const tl_value **path = tl_xmalloc((TL_VALUE_MAX_DEPTH + 1) * sizeof *path);
    bool ok = repr_rec(v, b, limit, 0, path);
    free(path);
    return ok;
}

void tl_value_repr(const tl_value *v, tl_buf *b)
{
    tl_value_repr_bounded(v, b, TL_VALUE_REPR_MAX);
}

void tl_value_str(const tl_value *v, tl_buf *b)
{
    tl_value_str_bounded(v, b, TL_VALUE_REPR_MAX);
}

bool tl_value_str_bounded(const tl_value *v, tl_buf *b, size_t max_bytes)
{
    switch (v->kind) {
    case TL_V_STR:
        tl_buf_append(b, v->u.str.s, v->u.str.len);
        return true;
    case TL_V_DEVICE: {
        char dev[32];
        tl_device_str(v->u.device, dev, sizeof dev);
        tl_buf_puts(b, dev);
        return true;
    }
    case TL_V_EXC:
        tl_buf_puts(b, v->u.exc.msg);
        return true;
    case TL_V_NDARRAY:
        tl_repr_ndarray(v->u.tensor, false, b);
        return true;
    case TL_V_DTYPE:
        if (v->npdt == TL_NPDT_DTYPE) { /* str(dtype('float32')) */
            tl_buf_puts(b, tl_dtype_name(v->u.dtype));
            return true;
        }
        return tl_value_repr_bounded(v, b, max_bytes);
    default:
        return tl_value_repr_bounded(v, b, max_bytes);
    }
}

/* ---- conversions ---- */

bool tl_value_as_index(const tl_value *v, int64_t *out)
{
    switch (v->kind) {
    case TL_V_BOOL: *out = v->u.b; return true;
    case TL_V_INT: *out = v->u.i; return true;
    case TL_V_TENSOR: {
        const tl_tensor *t = v->u.tensor;
        if (t->ndim != 0 || !tl_dtype_is_integral(t->dtype))
            return false;
        return tl_tensor_get_i64(t, 0, out, NULL) == 0;
    }
    default: return false;
    }
}

bool tl_value_as_double(const tl_value *v, double *out)
{
    switch (v->kind) {
    case TL_V_BOOL: *out = v->u.b; return true;
    case TL_V_INT: *out = (double)v->u.i; return true;
    case TL_V_FLOAT: *out = v->u.f; return true;
    case TL_V_TENSOR:
        if (tl_tensor_numel(v->u.tensor) != 1)
            return false;
        return tl_tensor_get_f64(v->u.tensor, 0, out, NULL) == 0;
    default: return false;
    }
}
