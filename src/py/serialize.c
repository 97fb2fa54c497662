/* serialize.c - torch.save and torch.load over the run's in-memory files.
 *
 * What a checkpoint keeps (PyTorch's semantics that a memory lesson is
 * about):
 *   - the WHOLE storage of every saved tensor, views included:
 *     torch.save(x[:10], f) writes all of x's 4000 bytes;
 *   - sharing inside one saved object: [x, x[2:5]] loads as two tensors
 *     over one new storage (the second at offset 2); the same tensor or
 *     list saved twice in one object loads as one object (pickle's memo);
 *   - nothing is shared with the program or with another load: each
 *     torch.load makes new storages.
 * The file holds a deep copy of the saved object (value.h values; tensors
 * rebound to uncharged copies of their storages, storage.h), made at save
 * time, so writes after the save do not reach the file.
 *
 * The file's size (os.path.getsize) is what torch 2.x writes, modelled, not
 * guessed: data.pkl is sized by replaying Python's pickle protocol 2 over
 * the object (the opcode and memo bytes of save_dict/list/tuple/str/int,
 * the tensor's __reduce_ex__ to torch._utils._rebuild_tensor_v2 with its
 * persistent storage id); the zip container is PyTorchStreamWriter's:
 * records data.pkl, byteorder, data/KEY (keys "0", "1"... in sorted string
 * order), version, .data/serialization_id, each a 30-byte local header +
 * the name + a 'FB' extra field padding the data to 64 bytes + the data +
 * a 16-byte data descriptor, then one 46-byte central entry + name per
 * record, the zip64 end record (56) and locator (20) and the end record
 * (22). The archive folder is the file name without its extension. Torch
 * 1.13 (the fixtures' generator) writes neither byteorder nor
 * serialization_id; tests/fixtures/gen_files.py measures 1.13 and adds
 * those two records as 2.x writes them. NumPy arrays inside a checkpoint
 * are saved and loaded, but their pickle is not modelled (the size leaves
 * out their reduce; their bytes are counted).
 *
 * weights_only=True accepts tensors, dicts, lists, tuples, torch.Size,
 * dtypes, None, bool, int, float, str; anything else raises
 * pickle.UnpicklingError with torch's "Weights only load failed..."
 * message naming the class the unpickler met (torch 1.13 and 2.0-2.3 word
 * it this way; 1.13 also refuses floats, a bug 2.x fixed, tlab follows
 * 2.x). The default is weights_only=False, as in torch before 2.6.
 */
#include "serialize.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "context.h"
#include "memfs.h"
#include "pyops.h"
#include "storage.h"
#include "tensor.h"
#include "util.h"

/* ---------------------------------------------------------------------- */
/* the zip layout */

static size_t record(size_t cursor, size_t namelen, size_t size)
{
    size_t start = cursor + 30 + namelen + 4;
    size_t next = (start + 63) / 64 * 64;
    return next + size + 16;
}

size_t tl_serialize_zip_size(const char *stem, size_t pkl, const size_t *storage_bytes,
                             size_t nstorages)
{
    size_t sl = strlen(stem) + 1; /* "stem/" */
    size_t cur = 0, central = 0;
    cur = record(cur, sl + 8, pkl); /* data.pkl */
    central += 46 + sl + 8;
    cur = record(cur, sl + 9, 6); /* byteorder: "little" */
    central += 46 + sl + 9;
    /* data/KEY in sorted string order: "0" "1" "10" "11" ... "2" */
    char **keys = tl_xmalloc((nstorages ? nstorages : 1) * sizeof *keys);
    for (size_t i = 0; i < nstorages; i++) {
        char k[32];
        snprintf(k, sizeof k, "%zu", i);
        keys[i] = tl_xstrdup(k);
    }
    for (size_t i = 1; i < nstorages; i++) /* insertion sort by string */
        for (size_t j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
            char *t = keys[j];
            keys[j] = keys[j - 1];
            keys[j - 1] = t;
        }
    for (size_t i = 0; i < nstorages; i++) {
        size_t key = (size_t)strtoull(keys[i], NULL, 10);
        size_t nl = sl + 5 + strlen(keys[i]);
        cur = record(cur, nl, storage_bytes[key]);
        central += 46 + nl;
        free(keys[i]);
    }
    free(keys);
    cur = record(cur, sl + 7, 2); /* version: "3\n" */
    central += 46 + sl + 7;
    cur = record(cur, sl + 22, 40); /* .data/serialization_id */
    central += 46 + sl + 22;
    return cur + central + 56 + 20 + 22;
}

/* ---------------------------------------------------------------------- */
/* the deep copy (save: into the file; load: out of it) */

typedef struct copier {
    const tl_value **from;
    tl_value **to;
    size_t n, cap;
    tl_storage **sfrom, **sto; /* storage map, by storage object (torch's keys:
                                  a NumPy round trip's storage is its own) */
    size_t ns, scap;
    bool charge;               /* load: charged storages; save: uncharged */
} copier;

static tl_value *memo_find(copier *c, const tl_value *v)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->from[i] == v ||
            (v->kind == TL_V_TENSOR && c->from[i]->kind == TL_V_TENSOR &&
             c->from[i]->u.tensor == v->u.tensor))
            return c->to[i];
    return NULL;
}

static void memo_add(copier *c, const tl_value *from, tl_value *to)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 16;
        c->from = tl_xrealloc(c->from, c->cap * sizeof *c->from);
        c->to = tl_xrealloc(c->to, c->cap * sizeof *c->to);
    }
    c->from[c->n] = from;
    c->to[c->n++] = to;
}

static tl_storage *storage_of(copier *c, tl_storage *s, tl_error *err)
{
    for (size_t i = 0; i < c->ns; i++)
        if (c->sfrom[i] == s)
            return c->sto[i];
    tl_storage *n = tl_storage_copy(s, err);
    if (!n)
        return NULL;
    if (!c->charge)
        tl_storage_uncharge(n);
    if (c->ns == c->scap) {
        c->scap = c->scap ? 2 * c->scap : 8;
        c->sfrom = tl_xrealloc(c->sfrom, c->scap * sizeof *c->sfrom);
        c->sto = tl_xrealloc(c->sto, c->scap * sizeof *c->sto);
    }
    c->sfrom[c->ns] = s;
    c->sto[c->ns++] = n;
    return n;
}

static void copier_free(copier *c)
{
    for (size_t i = 0; i < c->ns; i++)
        tl_storage_release(c->sto[i]);
    free(c->from);
    free(c->to);
    free(c->sfrom);
    free(c->sto);
}

static tl_value *copy_tensor(copier *c, tl_value *v, tl_error *err)
{
    tl_tensor *t = v->u.tensor;
    tl_storage *s = storage_of(c, t->storage, err);
    if (!s)
        return NULL;
    tl_version *ver = tl_version_new();
    tl_tensor *n = tl_tensor_rebind(t, s, ver);
    tl_version_release(ver);
    n->is_leaf = true;
    n->is_view_of_grad_leaf = false;
    return tl_value_tensor(n);
}

static tl_value *copy_rec(copier *c, tl_value *v, int depth, tl_error *err)
{
    if (depth > 200) {
        tl_error_set(err, TL_ERR_LIMIT,
                     "maximum recursion depth exceeded while pickling an object "
                     "(nested deeper than 200 levels)");
        return NULL;
    }
    if (tl_context_deadline_tick((int64_t)c->n, err) < 0)
        return NULL;
    tl_value *m = memo_find(c, v);
    if (m)
        return tl_value_retain(m);
    switch (v->kind) {
    case TL_V_NONE: case TL_V_BOOL: case TL_V_INT: case TL_V_FLOAT: case TL_V_STR:
    case TL_V_DTYPE: case TL_V_DEVICE: case TL_V_SIZE: case TL_V_SLICE:
    case TL_V_ELLIPSIS: case TL_V_MEMFMT:
        return tl_value_retain(v); /* immutable */
    case TL_V_TENSOR: {
        tl_value *r = copy_tensor(c, v, err);
        if (r)
            memo_add(c, v, r);
        return r;
    }
    case TL_V_NDARRAY: {
        /* NumPy pickles an array's elements (no storage sharing) */
        tl_tensor *t = v->u.tensor;
        tl_tensor *h = tl_tensor_read_host(t, err);
        if (!h)
            return NULL;
        tl_storage *s = tl_storage_copy(h->storage, err);
        if (!s) {
            tl_tensor_release(h);
            return NULL;
        }
        if (!c->charge)
            tl_storage_uncharge(s);
        tl_version *ver = tl_version_new();
        tl_tensor *n = tl_tensor_rebind(h, s, ver);
        tl_version_release(ver);
        tl_storage_release(s);
        tl_tensor_release(h);
        tl_value *r = tl_value_ndarray(n);
        memo_add(c, v, r);
        return r;
    }
    case TL_V_TUPLE:
    case TL_V_LIST: {
        size_t n = v->u.seq.n;
        if (tl_pyops_charge_seq(n, err) < 0)
            return NULL;
        tl_value *r = v->kind == TL_V_LIST ? tl_list_new(n) : tl_tuple_new(n);
        if (v->kind == TL_V_TUPLE)
            r->u.seq.rtype = v->u.seq.rtype;
        memo_add(c, v, r);
        for (size_t i = 0; i < n; i++) {
            tl_value *x = copy_rec(c, v->u.seq.items[i], depth + 1, err);
            if (!x)
                return NULL; /* r is released with the memo's owner */
            tl_seq_set(r, i, x);
        }
        return tl_value_retain(r);
    }
    case TL_V_DICT: {
        if (tl_pyops_charge_seq(v->u.seq.n, err) < 0)
            return NULL;
        tl_value *r = tl_dict_new();
        memo_add(c, v, r);
        for (size_t i = 0; i < v->u.seq.n; i += 2) {
            tl_value *k = copy_rec(c, v->u.seq.items[i], depth + 1, err);
            if (!k)
                return NULL;
            tl_value *x = copy_rec(c, v->u.seq.items[i + 1], depth + 1, err);
            if (!x) {
                tl_value_release(k);
                return NULL;
            }
            tl_dict_set(r, k, x);
            tl_value_release(k);
        }
        return tl_value_retain(r);
    }
    case TL_V_CLOSURE:
        tl_error_set(err, TL_ERR_UNSUPPORTED,
                     "tlab's torch.save keeps tensors, containers and Python scalars, "
                     "not functions");
        return NULL;
    default: {
        const char *name = tl_value_type_name(v);
        if (v->kind == TL_V_OBJECT)
            tl_error_set(err, TL_ERR_TYPE, "cannot pickle '%s%s' object",
                         strstr(name, "IO") || strstr(name, "Buffered") ? "_io." : "", name);
        else if (v->kind == TL_V_STORAGE)
            tl_error_set(err, TL_ERR_UNSUPPORTED,
                         "tlab's torch.save keeps tensors, not bare storages (save the tensor)");
        else
            tl_error_set(err, TL_ERR_TYPE, "cannot pickle '%s' object", name);
        return NULL;
    }
    }
}

/* The copy of v; containers made along the way are owned by the memo
 * until the end (so a failure half way frees everything). */
static tl_value *deep_copy(tl_value *v, bool charge, tl_error *err)
{
    copier c = {0};
    c.charge = charge;
    tl_value *r = copy_rec(&c, v, 0, err);
    for (size_t i = 0; i < c.n; i++) {
        tl_vkind k = c.from[i]->kind;
        if (k == TL_V_LIST || k == TL_V_TUPLE || k == TL_V_DICT)
            tl_value_release(c.to[i]); /* the memo's reference */
    }
    copier_free(&c);
    return r;
}

/* ---------------------------------------------------------------------- */
/* data.pkl's length: Python's pickle protocol 2, replayed */

typedef struct pickler {
    size_t len;
    size_t memo;              /* next memo index */
    const tl_value **seen;    /* memoised values, index = memo slot */
    size_t *slot;
    size_t nseen, cap;
    tl_storage **storages;    /* persistent ids: key = index */
    size_t *skey_slot;        /* memo slot of each key string */
    size_t ns, scap;
    size_t g_rebuild, g_od, g_storage_str, g_cpu, g_cuda; /* memo slots + 1 of shared objects */
    size_t g_type[TL_NDTYPES];
    size_t g_size;
    bool has_ndarray;
} pickler;

static void put(pickler *p) { p->len += p->memo++ < 256 ? 2 : 5; }
static void get(pickler *p, size_t slot) { p->len += slot < 256 ? 2 : 5; }

static void remember(pickler *p, const tl_value *v)
{
    if (p->nseen == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 32;
        p->seen = tl_xrealloc(p->seen, p->cap * sizeof *p->seen);
        p->slot = tl_xrealloc(p->slot, p->cap * sizeof *p->slot);
    }
    p->seen[p->nseen] = v;
    p->slot[p->nseen++] = p->memo;
    put(p);
}

static bool recall(pickler *p, const tl_value *v)
{
    for (size_t i = 0; i < p->nseen; i++)
        if (p->seen[i] == v) {
            get(p, p->slot[i]);
            return true;
        }
    return false;
}

/* a GLOBAL (c module\nname\n) memoised once per pickle in *slot */
static void global(pickler *p, const char *module, const char *name, size_t *slot)
{
    if (*slot) {
        get(p, *slot - 1);
        return;
    }
    p->len += 1 + strlen(module) + 1 + strlen(name) + 1;
    *slot = p->memo + 1;
    put(p);
}

static void pk_int(pickler *p, int64_t x)
{
    if (x >= 0 && x <= 0xff)
        p->len += 2;
    else if (x >= 0 && x <= 0xffff)
        p->len += 3;
    else if (x >= INT32_MIN && x <= INT32_MAX)
        p->len += 5;
    else { /* LONG1: n, then the two's complement bytes, shortest */
        int n = 8;
        while (n > 1) {
            int64_t top = x >> (8 * (n - 1) - 1);
            if (top != 0 && top != -1)
                break;
            n--;
        }
        p->len += 2 + (size_t)n;
    }
}

static void pk_str(pickler *p, const tl_value *s)
{
    if (recall(p, s))
        return;
    p->len += 5 + s->u.str.len;
    remember(p, s);
}

static void pk_const_str(pickler *p, size_t n, size_t *slot)
{
    if (*slot) {
        get(p, *slot - 1);
        return;
    }
    p->len += 5 + n;
    *slot = p->memo + 1;
    put(p);
}

static void pk_value(pickler *p, const tl_value *v);

static void pk_ints_tuple(pickler *p, int n, const int64_t *x)
{
    if (n == 0) {
        p->len += 1; /* EMPTY_TUPLE, never memoised */
        return;
    }
    if (n > 3)
        p->len += 1; /* MARK */
    for (int i = 0; i < n; i++)
        pk_int(p, x[i]);
    p->len += 1; /* TUPLE1/2/3 or TUPLE */
    put(p);
}

static const char *storage_type(tl_dtype dt)
{
    switch (dt) {
    case TL_BOOL: return "BoolStorage";
    case TL_UINT8: return "ByteStorage";
    case TL_INT8: return "CharStorage";
    case TL_INT16: return "ShortStorage";
    case TL_INT32: return "IntStorage";
    case TL_INT64: return "LongStorage";
    case TL_FLOAT16: return "HalfStorage";
    case TL_BFLOAT16: return "BFloat16Storage";
    case TL_FLOAT64: return "DoubleStorage";
    default: return "FloatStorage";
    }
}

static void pk_tensor(pickler *p, const tl_value *v)
{
    const tl_tensor *t = v->u.tensor;
    global(p, "torch._utils", "_rebuild_tensor_v2", &p->g_rebuild);
    p->len += 1; /* MARK of the args */
    /* persistent id ('storage', torch.XStorage, key, 'cpu', numel) */
    size_t k;
    for (k = 0; k < p->ns; k++)
        if (p->storages[k] == t->storage)
            break;
    p->len += 1; /* MARK */
    pk_const_str(p, 7, &p->g_storage_str);
    global(p, "torch", storage_type(t->dtype), &p->g_type[t->dtype]);
    if (k == p->ns) {
        if (p->ns == p->scap) {
            p->scap = p->scap ? 2 * p->scap : 8;
            p->storages = tl_xrealloc(p->storages, p->scap * sizeof *p->storages);
            p->skey_slot = tl_xrealloc(p->skey_slot, p->scap * sizeof *p->skey_slot);
        }
        p->storages[p->ns] = t->storage;
        char key[32];
        p->len += 5 + (size_t)snprintf(key, sizeof key, "%zu", k);
        p->skey_slot[p->ns++] = p->memo;
        put(p);
    } else {
        get(p, p->skey_slot[k]);
    }
    /* the location: 'cpu', or 'cuda:0' for a device storage (torch.load
     * puts it back there) */
    if (tl_tensor_device(t).kind == TL_DEV_CPU)
        pk_const_str(p, 3, &p->g_cpu);
    else
        pk_const_str(p, 6, &p->g_cuda);
    pk_int(p, (int64_t)(t->storage->nbytes / tl_dtype_size(t->dtype)));
    p->len += 1; /* TUPLE */
    put(p);
    p->len += 1; /* BINPERSID */
    pk_int(p, t->offset);
    pk_ints_tuple(p, t->ndim, t->sizes);
    pk_ints_tuple(p, t->ndim, t->strides);
    p->len += 1; /* requires_grad */
    global(p, "collections", "OrderedDict", &p->g_od);
    p->len += 2; /* EMPTY_TUPLE REDUCE */
    put(p);
    p->len += 1; /* TUPLE */
    put(p);
    p->len += 1; /* REDUCE */
    remember(p, v);
}

static void pk_items(pickler *p, const tl_value *v, size_t per)
{
    size_t n = v->u.seq.n / per;
    for (size_t b = 0; b < n; b += 1000) {
        size_t m = n - b < 1000 ? n - b : 1000;
        if (m > 1)
            p->len += 1; /* MARK */
        for (size_t i = 0; i < m * per; i++)
            pk_value(p, v->u.seq.items[b * per + i]);
        p->len += 1; /* APPEND(S) / SETITEM(S) */
    }
}

static void pk_value(pickler *p, const tl_value *v)
{
    switch (v->kind) {
    case TL_V_NONE: case TL_V_BOOL: p->len += 1; return;
    case TL_V_INT: pk_int(p, v->u.i); return;
    case TL_V_FLOAT: p->len += 9; return;
    case TL_V_STR: pk_str(p, v); return;
    case TL_V_TENSOR:
        if (!recall(p, v))
            pk_tensor(p, v);
        return;
    case TL_V_LIST:
    case TL_V_DICT:
        if (recall(p, v))
            return;
        p->len += 1; /* EMPTY_LIST / EMPTY_DICT */
        remember(p, v);
        pk_items(p, v, v->kind == TL_V_DICT ? 2 : 1);
        return;
    case TL_V_TUPLE: {
        if (recall(p, v))
            return;
        size_t n = v->u.seq.n;
        if (n == 0) {
            p->len += 1;
            return;
        }
        if (n > 3)
            p->len += 1;
        for (size_t i = 0; i < n; i++)
            pk_value(p, v->u.seq.items[i]);
        p->len += 1;
        remember(p, v);
        return;
    }
    case TL_V_SIZE: { /* torch.Size((...)): GLOBAL, (tuple,), REDUCE */
        global(p, "torch", "Size", &p->g_size);
        int64_t x[TL_MAX_DIMS];
        int nd = (int)(v->u.seq.n < TL_MAX_DIMS ? v->u.seq.n : TL_MAX_DIMS);
        for (int i = 0; i < nd; i++)
            tl_value_as_index(v->u.seq.items[i], &x[i]);
        pk_ints_tuple(p, nd, x);
        p->len += 1; /* TUPLE1 */
        put(p);
        p->len += 1; /* REDUCE */
        put(p);
        return;
    }
    case TL_V_DTYPE: {
        size_t slot = 0;
        global(p, "torch", tl_dtype_name(v->u.dtype), &slot);
        return;
    }
    case TL_V_NDARRAY:
        p->has_ndarray = true;
        p->len += (size_t)v->u.tensor->storage->nbytes;
        return;
    default:
        p->len += 1;
        return;
    }
}

static size_t pickle_len(const tl_value *v, size_t *nstorages, size_t **sbytes)
{
    pickler p = {0};
    p.len = 2; /* PROTO 2 */
    pk_value(&p, v);
    p.len += 1; /* STOP */
    *nstorages = p.ns;
    *sbytes = tl_xmalloc((p.ns ? p.ns : 1) * sizeof **sbytes);
    for (size_t i = 0; i < p.ns; i++)
        (*sbytes)[i] = p.storages[i]->nbytes;
    free(p.seen);
    free(p.slot);
    free(p.storages);
    free(p.skey_slot);
    return p.len;
}

/* ---------------------------------------------------------------------- */
/* torch.save / torch.load */

static const char *const PAYLOAD = "torch.save";

static void payload_drop(void *p) { tl_value_release(p); }

/* the archive folder: the file's base name up to its last '.' */
static char *stem_of(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t n = dot ? (size_t)(dot - base) : strlen(base);
    return tl_xstrndup(base, n);
}

/* the file argument: a path, or a file object open for writing/reading */
static tl_memfile *file_arg(const tl_value *f, bool write, const char **name, tl_error *err)
{
    if (f && f->kind == TL_V_STR) {
        const char *path;
        if (tl_memfs_path_arg(f, write ? "save" : "load", &path, err) < 0)
            return NULL;
        *name = path;
        return write ? tl_memfs_create(path, err) : tl_memfs_open(path, err);
    }
    bool writable = false;
    tl_memfile *m = f ? tl_memfs_file_of(f, &writable) : NULL;
    if (m) {
        if (write && !writable) {
            tl_error_set(err, TL_ERR_IOUNSUPPORTED, "write");
            return NULL;
        }
        m->refcount++;
        *name = m->path;
        return m;
    }
    tl_error_set(err, TL_ERR_TYPE,
                 "expected a file name (str) or an open file, got %s",
                 f ? tl_value_type_name(f) : "nothing");
    return NULL;
}

static tl_value *t_save(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    static const char *const kw[] = {"obj", "f", "*", "pickle_module", "pickle_protocol",
                                     "_use_new_zipfile_serialization", NULL};
    if (tl_args_check(a, "save", 2, kw, "(obj, f)", err) < 0)
        return NULL;
    tl_value *obj = tl_arg(a, 0, "obj"), *f = tl_arg(a, 1, "f");
    if (!obj || !f) {
        tl_error_set(err, TL_ERR_TYPE, "save() missing 1 required positional argument: '%s'",
                     obj ? "f" : "obj");
        return NULL;
    }
    tl_value *proto = tl_arg(a, 99, "pickle_protocol");
    if (proto && !(proto->kind == TL_V_INT && proto->u.i == 2)) {
        tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab's torch.save writes pickle protocol 2 only");
        return NULL;
    }
    const char *name;
    if (f->kind == TL_V_STR)
        name = f->u.str.s;
    else if (!(name = tl_memfs_file_name(f))) {
        tl_error_set(err, TL_ERR_TYPE, "expected a file name (str) or an open file, got %s",
                     tl_value_type_name(f));
        return NULL;
    }
    size_t ns, *sb;
    size_t pkl = pickle_len(obj, &ns, &sb);
    char *stem = stem_of(name);
    size_t size = tl_serialize_zip_size(stem, pkl, sb, ns);
    free(stem);
    free(sb);
    /* the file is charged its size: refuse before copying anything */
    if (tl_alloc_over_limit(size)) {
        tl_context_ledger_refused(size);
        tl_error_set(err, TL_ERR_LIMIT,
                     "memory limit exceeded: a checkpoint of %zu bytes does not fit in "
                     "--max-bytes (files live in the run's memory; %zu bytes of storage and "
                     "objects are live)", size, tl_alloc_live() + tl_alloc_objects());
        return NULL;
    }
    tl_value *copy = deep_copy(obj, false, err);
    if (!copy)
        return NULL;
    tl_memfile *m = file_arg(f, true, &name, err);
    if (!m) {
        tl_value_release(copy);
        return NULL;
    }
    int rc = tl_memfile_set_payload(m, PAYLOAD, copy, payload_drop, size, err);
    tl_memfile_release(m);
    if (rc < 0) {
        tl_value_release(copy);
        return NULL;
    }
    return tl_none();
}

/* the first class weights_only refuses in v (pickle order), or NULL */
static const char *refused(const tl_value *v, int depth)
{
    if (depth > 200)
        return NULL;
    switch (v->kind) {
    case TL_V_NDARRAY: return "numpy.core.multiarray._reconstruct";
    case TL_V_SLICE: return "__builtin__.slice";
    case TL_V_DEVICE: return "torch.device";
    case TL_V_ELLIPSIS: return "__builtin__.ellipsis";
    case TL_V_MEMFMT: return "torch.memory_format";
    case TL_V_TUPLE:
        if (v->u.seq.rtype)
            return tl_value_type_name(v); /* torch.return_types.NAME */
        /* fall through */
    case TL_V_LIST:
    case TL_V_DICT:
        for (size_t i = 0; i < v->u.seq.n; i++) {
            const char *r = refused(v->u.seq.items[i], depth + 1);
            if (r)
                return r;
        }
        return NULL;
    default:
        return NULL;
    }
}

static tl_value *t_load(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    static const char *const kw[] = {"f", "map_location", "pickle_module", "*",
                                     "weights_only", "mmap", NULL};
    if (tl_args_check(a, "load", 3, kw, "(f, map_location=None, *, weights_only=False)",
                      err) < 0)
        return NULL;
    tl_value *f = tl_arg(a, 0, "f");
    if (!f) {
        tl_error_set(err, TL_ERR_TYPE, "load() missing 1 required positional argument: 'f'");
        return NULL;
    }
    bool weights_only = false;
    tl_value *wo = tl_arg(a, 99, "weights_only");
    if (wo && wo->kind != TL_V_NONE && tl_to_bool(wo, "weights_only", &weights_only, err) < 0)
        return NULL;
    tl_value *ml = tl_arg(a, 1, "map_location");
    if (ml && ml->kind != TL_V_NONE &&
        !(ml->kind == TL_V_STR && strcmp(ml->u.str.s, "cpu") == 0) &&
        !(ml->kind == TL_V_DEVICE && ml->u.device.kind == TL_DEV_CPU)) {
        tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab's torch.load maps to the CPU only "
                                              "(map_location='cpu')");
        return NULL;
    }
    const char *name;
    tl_memfile *m = file_arg(f, false, &name, err);
    if (!m)
        return NULL;
    if (m->payload_tag != PAYLOAD) {
        int first = m->data && m->len ? m->data[0] : -1;
        tl_memfile_release(m);
        if (weights_only)
            tl_error_set(err, TL_ERR_UNPICKLING,
                         "Weights only load failed. Re-running `torch.load` with "
                         "`weights_only` set to `False` will likely succeed, but it can "
                         "result in arbitrary code execution.Do it only if you get the file "
                         "from a trusted source. WeightsUnpickler error: Unsupported operand %d",
                         first < 0 ? 0 : first);
        else if (first < 0)
            tl_error_set(err, TL_ERR_UNPICKLING, "Ran out of input");
        else
            tl_error_set(err, TL_ERR_UNPICKLING, "invalid load key, '%c'.",
                         first >= 0x20 && first < 0x7f ? first : '?');
        return NULL;
    }
    tl_value *saved = m->payload;
    if (weights_only) {
        const char *cls = refused(saved, 0);
        if (cls) {
            tl_memfile_release(m);
            tl_error_set(err, TL_ERR_UNPICKLING,
                         "Weights only load failed. Re-running `torch.load` with "
                         "`weights_only` set to `False` will likely succeed, but it can "
                         "result in arbitrary code execution.Do it only if you get the file "
                         "from a trusted source. WeightsUnpickler error: Unsupported class %s",
                         cls);
            return NULL;
        }
    }
    tl_value *r = deep_copy(saved, true, err);
    tl_memfile_release(m);
    return r;
}

static const tl_binding torch_fns[] = {
    {"save", t_save, false, false},
    {"load", t_load, false, false},
    {NULL, NULL, false, false},
};

const tl_bind_table tl_bind_serialize_tables[] = {
    {TL_BIND_TORCH, torch_fns},
    {TL_BIND_TORCH, NULL},
};
