/* h5py.c - `import h5py` over the run's in-memory files (memfs.h).
 *
 * What a lesson on HDF5 needs, as h5py 3.x behaves:
 *   - h5py.File(name, mode) with modes r (must exist, read only), r+ (must
 *     exist), w (create or truncate), a (read/write, create if missing),
 *     x / w- (create, fail if it exists); `with` closes it;
 *   - create_dataset(name, data=...) (the data is copied in: np.array) or
 *     (name, shape, dtype) (zeros, float32 by default); create_group;
 *     paths 'g/d' (intermediate groups made on the way); f['name'],
 *     `in`, len, keys() (sorted by name, HDF5's default order);
 *   - a dataset's shape (a tuple), dtype, ndim, size, len, name, and
 *     reading: ds[...], ds[()], ds[1:3, ::2] ALWAYS return a new ndarray (a
 *     copy, whatever the slice: HDF5 reads into fresh memory), a number
 *     index gives a NumPy scalar; steps must be >= 1; writing ds[...] = v
 *     on a writable file.
 * Errors are h5py 3.7's texts (tests/fixtures/gen_files.py records them).
 *
 * Storage: a file's payload (memfs.h) is a tree of refcounted nodes; a
 * dataset node holds its elements as an ndarray over an uncharged storage,
 * and the file is charged (and sized, os.path.getsize) as h5py 3.7 writes
 * small files: 800 bytes empty, 1032 more per group, 1248 more per dataset
 * plus its data (exact for a file of one dataset, the lesson's case: 2448
 * bytes for 10x10 float32; HDF5 shares headers between later members, so
 * bigger files come out larger than real ones: a model, not the layout).
 * Objects (File, Group, Dataset) retain their node and the file, so a
 * dataset read after its file was rewritten still reads what it named,
 * and one read after close raises h5py's "Invalid dataset identifier".
 */
#include "h5py.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "memfs.h"
#include "pyops.h"
#include "storage.h"
#include "tensor.h"
#include "util.h"

#define H5_BASE 800        /* an empty file (superblock, root group) */
#define H5_PER_MEMBER 1248 /* a dataset's object header and symbol table entry */
#define H5_PER_GROUP 1032

typedef struct h5node {
    int refcount;
    char *name;               /* the member's name (not the path) */
    bool group;
    struct h5node **kids;     /* groups: sorted by name */
    size_t n, cap;
    tl_value *array;          /* datasets: the elements (an ndarray) */
} h5node;

static void node_release(h5node *nd)
{
    if (!nd || --nd->refcount > 0)
        return;
    for (size_t i = 0; i < nd->n; i++)
        node_release(nd->kids[i]);
    free(nd->kids);
    tl_value_release(nd->array);
    free(nd->name);
    free(nd);
}

static h5node *node_new(const char *name, size_t n, bool group)
{
    h5node *nd = tl_xcalloc(1, sizeof *nd);
    nd->refcount = 1;
    nd->name = tl_xstrndup(name, n);
    nd->group = group;
    return nd;
}

static const char *const PAYLOAD = "h5py";

static void payload_drop(void *p) { node_release(p); }

/* ---- objects: File, Group, Dataset ---- */

typedef struct h5obj {
    tl_memfile *f;
    h5node *node;
    char *path;         /* "/", "/g", "/g/d" */
    bool writable;
    bool *closed;       /* shared by the File and what it handed out */
    int *closed_refs;
    bool is_file;
} h5obj;

static tl_value *obj_attr(tl_value *obj, const char *name, tl_error *err);
static void obj_repr(const tl_value *obj, tl_buf *b);
static void obj_drop(void *p);
static tl_value *obj_getitem(tl_value *obj, tl_value *idx, tl_error *err);
static int obj_setitem(tl_value *obj, tl_value *idx, tl_value *v, tl_error *err);
static int obj_len(tl_value *obj, int64_t *out, tl_error *err);
static int obj_contains(tl_value *obj, tl_value *item, bool *out, tl_error *err);
static tl_value *obj_iter(tl_value *obj, tl_error *err);

static const tl_objclass file_class = {"File", obj_attr, obj_repr, obj_drop, obj_getitem,
                                       NULL, obj_len, obj_contains, obj_iter};
static const tl_objclass group_class = {"Group", obj_attr, obj_repr, obj_drop, obj_getitem,
                                        NULL, obj_len, obj_contains, obj_iter};
static const tl_objclass dataset_class = {"Dataset", obj_attr, obj_repr, obj_drop,
                                          obj_getitem, obj_setitem, obj_len, NULL, NULL};

static h5obj *h5_of(const tl_value *v)
{
    h5obj *o = tl_value_object_data(v, &file_class);
    if (!o)
        o = tl_value_object_data(v, &group_class);
    if (!o)
        o = tl_value_object_data(v, &dataset_class);
    return o;
}

static void obj_drop(void *p)
{
    h5obj *o = p;
    node_release(o->node);
    tl_memfile_release(o->f);
    if (--*o->closed_refs == 0) {
        free(o->closed);
        free(o->closed_refs);
    }
    free(o->path);
    free(o);
}

static tl_value *make_obj(const h5obj *parent, h5node *nd, const char *path, bool is_file)
{
    h5obj *o = tl_xcalloc(1, sizeof *o);
    o->f = parent->f;
    o->f->refcount++;
    o->node = nd;
    nd->refcount++;
    o->path = tl_xstrdup(path);
    o->writable = parent->writable;
    o->closed = parent->closed;
    o->closed_refs = parent->closed_refs;
    ++*o->closed_refs;
    o->is_file = is_file;
    return tl_value_object(is_file ? &file_class : nd->group ? &group_class : &dataset_class, o);
}

static int check_live(const h5obj *o, tl_error *err)
{
    if (*o->closed)
        return tl_error_set(err, TL_ERR_VALUE, o->node->group
                                                   ? "Invalid location identifier (invalid "
                                                     "location identifier)"
                                                   : "Invalid dataset identifier (invalid "
                                                     "dataset identifier)");
    return 0;
}

static h5node *child(const h5node *g, const char *name, size_t n)
{
    for (size_t i = 0; i < g->n; i++)
        if (strlen(g->kids[i]->name) == n && memcmp(g->kids[i]->name, name, n) == 0)
            return g->kids[i];
    return NULL;
}

static void add_child(h5node *g, h5node *c)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 4;
        g->kids = tl_xrealloc(g->kids, g->cap * sizeof *g->kids);
    }
    size_t i = g->n;
    while (i > 0 && strcmp(g->kids[i - 1]->name, c->name) > 0) {
        g->kids[i] = g->kids[i - 1];
        i--;
    }
    g->kids[i] = c;
    g->n++;
}

/* the node at a relative or absolute path below o (borrowed), or NULL */
static h5node *walk(const h5obj *o, const char *path, h5node *root)
{
    h5node *g = path[0] == '/' ? root : o->node;
    const char *p = path;
    while (*p == '/')
        p++;
    while (*p && g) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (!g->group)
            return NULL;
        g = child(g, p, n);
        p += n;
        while (*p == '/')
            p++;
    }
    return g;
}

static h5node *root_of(const h5obj *o) { return o->f->payload; }

static char *join_path(const char *base, const char *name)
{
    tl_buf b = {0};
    if (name[0] != '/') {
        tl_buf_puts(&b, base);
        if (b.len == 0 || b.data[b.len - 1] != '/')
            tl_buf_putc(&b, '/');
    }
    tl_buf_puts(&b, name);
    char *r = tl_xstrdup(tl_buf_str(&b));
    tl_buf_free(&b);
    return r;
}

static tl_value *member(h5obj *o, const char *name, tl_error *err)
{
    h5node *nd = walk(o, name, root_of(o));
    if (!nd) {
        tl_error_set(err, TL_ERR_KEY, "\"Unable to open object (object '%s' doesn't exist)\"",
                     name);
        return NULL;
    }
    char *path = join_path(o->path, name);
    tl_value *r = make_obj(o, nd, path, false);
    free(path);
    return r;
}

/* ---- reading and writing datasets ---- */

static tl_value *call_np(const char *fn, tl_value **pos, size_t npos, const char **kwn,
                         tl_value **kwv, size_t nkw, tl_error *err)
{
    const tl_binding *b = tl_bind_find(TL_BIND_NUMPY, fn);
    if (!b) {
        tl_error_set(err, TL_ERR_INTERNAL, "np.%s is missing", fn);
        return NULL;
    }
    tl_args a = {npos, pos, nkw, kwn, kwv};
    return b->fn(NULL, &a, err);
}

/* steps of the index must be >= 1 (h5py's check, before reading) */
static int check_steps(const tl_value *idx, tl_error *err)
{
    const tl_value *one = idx;
    size_t n = 1;
    if (idx->kind == TL_V_TUPLE) {
        n = idx->u.seq.n;
    }
    for (size_t i = 0; i < n; i++) {
        one = idx->kind == TL_V_TUPLE ? idx->u.seq.items[i] : idx;
        if (one->kind == TL_V_SLICE && one->u.slice.step->kind != TL_V_NONE) {
            int64_t st = 1;
            if (tl_value_as_index(one->u.slice.step, &st) && st == 0)
                return tl_error_set(err, TL_ERR_VALUE, "slice step cannot be zero");
            if (tl_value_as_index(one->u.slice.step, &st) && st < 1)
                return tl_error_set(err, TL_ERR_VALUE, "Step must be >= 1 (got %" PRId64 ")", st);
        }
    }
    return 0;
}

static tl_value *obj_getitem(tl_value *obj, tl_value *idx, tl_error *err)
{
    h5obj *o = h5_of(obj);
    if (check_live(o, err) < 0)
        return NULL;
    if (o->node->group) {
        if (idx->kind != TL_V_STR) {
            tl_error_set(err, TL_ERR_TYPE, "Accessing a group is done with bytes or str, "
                                           "not <class '%s'>", tl_value_type_name(idx));
            return NULL;
        }
        return member(o, idx->u.str.s, err);
    }
    tl_value *arr = o->node->array;
    bool all = idx->kind == TL_V_ELLIPSIS || (idx->kind == TL_V_TUPLE && idx->u.seq.n == 0);
    if (!all && check_steps(idx, err) < 0)
        return NULL;
    tl_value *r = all ? tl_value_retain(arr) : tl_pyops_getitem(arr, idx, err);
    if (!r)
        return NULL;
    if (r->kind != TL_V_NDARRAY)
        return r; /* a NumPy scalar */
    /* HDF5 reads into new memory: always a copy */
    tl_value *c = call_np("array", &r, 1, NULL, NULL, 0, err);
    tl_value_release(r);
    return c;
}

static int obj_setitem(tl_value *obj, tl_value *idx, tl_value *v, tl_error *err)
{
    h5obj *o = h5_of(obj);
    if (check_live(o, err) < 0)
        return -1;
    if (!o->writable)
        return tl_error_set(err, TL_ERR_OS, "Can't write data (no write intent on file)");
    if (check_steps(idx, err) < 0)
        return -1;
    return tl_pyops_setitem(o->node->array, idx, v, err);
}

static int obj_len(tl_value *obj, int64_t *out, tl_error *err)
{
    h5obj *o = h5_of(obj);
    if (check_live(o, err) < 0)
        return -1;
    if (o->node->group) {
        *out = (int64_t)o->node->n;
        return 0;
    }
    const tl_tensor *t = o->node->array->u.tensor;
    if (t->ndim == 0)
        return tl_error_set(err, TL_ERR_TYPE, "Attempt to take len() of scalar dataset");
    *out = t->sizes[0];
    return 0;
}

static int obj_contains(tl_value *obj, tl_value *item, bool *out, tl_error *err)
{
    h5obj *o = h5_of(obj);
    if (*o->closed) {
        *out = false;
        return 0;
    }
    (void)err;
    *out = item->kind == TL_V_STR && walk(o, item->u.str.s, root_of(o)) != NULL;
    return 0;
}

static tl_value *names(const h5obj *o)
{
    tl_value *l = tl_list_new(0);
    for (size_t i = 0; i < o->node->n; i++)
        tl_list_append(l, tl_str(o->node->kids[i]->name));
    return l;
}

static tl_value *obj_iter(tl_value *obj, tl_error *err)
{
    h5obj *o = h5_of(obj);
    if (check_live(o, err) < 0)
        return NULL;
    return names(o);
}

static void obj_repr(const tl_value *obj, tl_buf *b)
{
    h5obj *o = h5_of(obj);
    if (*o->closed) {
        tl_buf_puts(b, o->is_file ? "<Closed HDF5 file>"
                       : o->node->group ? "<Closed HDF5 group>" : "<Closed HDF5 dataset>");
        return;
    }
    if (o->is_file) {
        tl_buf_printf(b, "<HDF5 file \"%s\" (mode %s)>", strrchr(o->f->path, '/')
                                                           ? strrchr(o->f->path, '/') + 1
                                                           : o->f->path,
                      o->writable ? "r+" : "r");
    } else if (o->node->group) {
        tl_buf_printf(b, "<HDF5 group \"%s\" (%zu members)>", o->path, o->node->n);
    } else {
        const tl_tensor *t = o->node->array->u.tensor;
        tl_buf_printf(b, "<HDF5 dataset \"%s\": shape (", o->node->name);
        for (int d = 0; d < t->ndim; d++)
            tl_buf_printf(b, d ? ", %" PRId64 : "%" PRId64, t->sizes[d]);
        if (t->ndim == 1)
            tl_buf_putc(b, ',');
        static const char *const codes[] = {"|b1", "|u1", "|i1", "<i2", "<i4", "<i8",
                                            "<f2", "<V2", "<f4", "<f8"};
        tl_buf_printf(b, "), type \"%s\">", codes[t->dtype]);
    }
}

/* ---- create_dataset, create_group ---- */

static size_t member_cost(const tl_value *arr)
{
    const tl_tensor *t = arr->u.tensor;
    return H5_PER_MEMBER + (size_t)tl_tensor_numel(t) * tl_dtype_size(t->dtype);
}

/* the parent group of path below o, creating intermediate groups; the
 * last component in *leaf / *leaf_n */
static h5node *parent_for(h5obj *o, const char *path, const char **leaf, size_t *leaf_n,
                          size_t *made, tl_error *err)
{
    h5node *g = path[0] == '/' ? root_of(o) : o->node;
    const char *p = path;
    *made = 0;
    for (;;) {
        while (*p == '/')
            p++;
        const char *e = strchr(p, '/');
        if (!e || !e[strspn(e, "/")]) {
            *leaf = p;
            *leaf_n = e ? (size_t)(e - p) : strlen(p);
            if (!*leaf_n) {
                tl_error_set(err, TL_ERR_VALUE, "Unable to create dataset (name already exists)");
                return NULL;
            }
            return g;
        }
        size_t n = (size_t)(e - p);
        h5node *c = child(g, p, n);
        if (!c) {
            c = node_new(p, n, true);
            add_child(g, c);
            (*made)++;
        } else if (!c->group) {
            tl_error_set(err, TL_ERR_VALUE, "Unable to create dataset (name already exists)");
            return NULL;
        }
        g = c;
        p = e;
    }
}

static int np_dtype_of(const tl_value *v, tl_dtype *dt, tl_error *err)
{
    if (v->kind == TL_V_DTYPE) {
        *dt = v->u.dtype;
        return 0;
    }
    if (tl_value_python_dtype(v, dt))
        return 0;
    if (v->kind == TL_V_STR) {
        static const struct {
            const char *s;
            tl_dtype dt;
        } m[] = {{"f4", TL_FLOAT32}, {"<f4", TL_FLOAT32}, {"float32", TL_FLOAT32},
                 {"f8", TL_FLOAT64}, {"<f8", TL_FLOAT64}, {"float64", TL_FLOAT64},
                 {"f", TL_FLOAT32},  {"float", TL_FLOAT64}, {"f2", TL_FLOAT16},
                 {"float16", TL_FLOAT16}, {"i8", TL_INT64}, {"<i8", TL_INT64},
                 {"int64", TL_INT64}, {"i4", TL_INT32}, {"<i4", TL_INT32},
                 {"int32", TL_INT32}, {"i", TL_INT32}, {"i2", TL_INT16}, {"int16", TL_INT16},
                 {"i1", TL_INT8},    {"int8", TL_INT8}, {"u1", TL_UINT8},
                 {"uint8", TL_UINT8}, {"?", TL_BOOL}, {"bool", TL_BOOL}, {"b1", TL_BOOL}};
        for (size_t i = 0; i < TL_ARRAY_LEN(m); i++)
            if (strcmp(m[i].s, v->u.str.s) == 0) {
                *dt = m[i].dt;
                return 0;
            }
        return tl_error_set(err, TL_ERR_TYPE, "data type '%s' not understood", v->u.str.s);
    }
    return tl_error_set(err, TL_ERR_TYPE, "Cannot interpret '%s' as a data type",
                        tl_value_type_name(v));
}

static int no_write(const h5obj *o, const char *what, tl_error *err)
{
    if (check_live(o, err) < 0)
        return -1;
    if (!o->writable)
        return tl_error_set(err, TL_ERR_VALUE, "Unable to create %s (no write intent on file)",
                            what);
    return 0;
}

static tl_value *g_create_dataset(tl_value *self, const tl_args *a, tl_error *err)
{
    h5obj *o = h5_of(self);
    static const char *const kw[] = {"name", "shape", "dtype", "data", "*", "chunks",
                                     "compression", "compression_opts", "maxshape",
                                     "fillvalue", NULL};
    if (tl_args_check(a, "create_dataset", 4, kw, "(name, shape=None, dtype=None, data=None)",
                      err) < 0 ||
        no_write(o, "dataset", err) < 0)
        return NULL;
    tl_value *nm = tl_arg(a, 0, "name"), *shape = tl_arg(a, 1, "shape");
    tl_value *dtype = tl_arg(a, 2, "dtype"), *data = tl_arg(a, 3, "data");
    if (!nm || nm->kind != TL_V_STR) {
        tl_error_set(err, TL_ERR_TYPE, "create_dataset() needs a str name");
        return NULL;
    }
    if (shape && shape->kind == TL_V_NONE)
        shape = NULL;
    if (dtype && dtype->kind == TL_V_NONE)
        dtype = NULL;
    if (data && data->kind == TL_V_NONE)
        data = NULL;
    tl_value *arr = NULL;
    /* the file is charged the data: refuse before copying it */
    if (data && tl_value_is_tensorlike(data)) {
        size_t need = member_cost(data);
        if (tl_alloc_over_limit(need) && tl_memfile_charge(o->f, (int64_t)need, err) < 0)
            return NULL; /* the LimitError */
    }
    if (data) {
        if (dtype) {
            tl_dtype dt;
            if (np_dtype_of(dtype, &dt, err) < 0)
                return NULL;
            tl_value *d = tl_value_np_dtype(dt, TL_NPDT_TYPE);
            const char *kn[] = {"dtype"};
            arr = call_np("array", &data, 1, kn, &d, 1, err);
            tl_value_release(d);
        } else {
            arr = call_np("array", &data, 1, NULL, NULL, 0, err);
        }
        if (!arr)
            return NULL;
        if (arr->kind != TL_V_NDARRAY) {
            tl_value_release(arr);
            tl_error_set(err, TL_ERR_TYPE, "Object dtype dtype('O') has no native HDF5 "
                                           "equivalent");
            return NULL;
        }
        if (shape) {
            const tl_tensor *t = arr->u.tensor;
            tl_value *sz = tl_tuple_new((size_t)t->ndim);
            for (int d = 0; d < t->ndim; d++)
                tl_seq_set(sz, (size_t)d, tl_int(t->sizes[d]));
            bool same = tl_value_equal(sz, shape);
            if (sz && !same && shape->kind == TL_V_INT && sz->kind == TL_V_TUPLE &&
                sz->u.seq.n == 1)
                same = tl_value_equal(sz->u.seq.items[0], shape);
            tl_value_release(sz);
            if (!same) {
                tl_value_release(arr);
                tl_error_set(err, TL_ERR_VALUE, "Shape tuple is incompatible with data");
                return NULL;
            }
        }
    } else {
        if (!shape) {
            tl_error_set(err, TL_ERR_TYPE, "One of data, shape or dtype must be specified");
            return NULL;
        }
        tl_dtype dt = TL_FLOAT32;
        if (dtype && np_dtype_of(dtype, &dt, err) < 0)
            return NULL;
        tl_value *d = tl_value_np_dtype(dt, TL_NPDT_TYPE);
        const char *kn[] = {"dtype"};
        arr = call_np("zeros", &shape, 1, kn, &d, 1, err);
        tl_value_release(d);
        if (!arr)
            return NULL;
    }
    const char *leaf;
    size_t leaf_n, made;
    h5node *g = parent_for(o, nm->u.str.s, &leaf, &leaf_n, &made, err);
    if (!g || child(g, leaf, leaf_n)) {
        if (g)
            tl_error_set(err, TL_ERR_VALUE, "Unable to create dataset (name already exists)");
        tl_value_release(arr);
        return NULL;
    }
    if (tl_memfile_charge(o->f, (int64_t)(member_cost(arr) + made * H5_PER_GROUP), err) < 0) {
        tl_value_release(arr);
        return NULL;
    }
    o->f->len += member_cost(arr) + made * H5_PER_GROUP;
    tl_storage_uncharge(arr->u.tensor->storage); /* the file's charge covers it */
    h5node *nd = node_new(leaf, leaf_n, false);
    nd->array = arr;
    add_child(g, nd);
    char *path = join_path(o->path, nm->u.str.s);
    tl_value *r = make_obj(o, nd, path, false);
    free(path);
    return r;
}

static tl_value *g_create_group(tl_value *self, const tl_args *a, tl_error *err)
{
    h5obj *o = h5_of(self);
    static const char *const kw[] = {"name", NULL};
    if (tl_args_check(a, "create_group", 1, kw, "(name)", err) < 0 ||
        no_write(o, "group", err) < 0)
        return NULL;
    tl_value *nm = tl_arg(a, 0, "name");
    if (!nm || nm->kind != TL_V_STR) {
        tl_error_set(err, TL_ERR_TYPE, "create_group() needs a str name");
        return NULL;
    }
    const char *leaf;
    size_t leaf_n, made;
    h5node *g = parent_for(o, nm->u.str.s, &leaf, &leaf_n, &made, err);
    if (!g)
        return NULL;
    if (child(g, leaf, leaf_n)) {
        tl_error_set(err, TL_ERR_VALUE, "Unable to create group (name already exists)");
        return NULL;
    }
    if (tl_memfile_charge(o->f, (int64_t)((made + 1) * H5_PER_GROUP), err) < 0)
        return NULL;
    o->f->len += (made + 1) * H5_PER_GROUP;
    h5node *nd = node_new(leaf, leaf_n, true);
    add_child(g, nd);
    char *path = join_path(o->path, nm->u.str.s);
    tl_value *r = make_obj(o, nd, path, false);
    free(path);
    return r;
}

static tl_value *g_keys(tl_value *self, const tl_args *a, tl_error *err)
{
    h5obj *o = h5_of(self);
    if (tl_args_check(a, "keys", 0, NULL, "()", err) < 0 || check_live(o, err) < 0)
        return NULL;
    return names(o);
}

static tl_value *g_get(tl_value *self, const tl_args *a, tl_error *err)
{
    h5obj *o = h5_of(self);
    if (tl_args_check(a, "get", 2, NULL, "(name, default=None)", err) < 0 ||
        check_live(o, err) < 0)
        return NULL;
    if (a->npos < 1 || a->pos[0]->kind != TL_V_STR) {
        tl_error_set(err, TL_ERR_TYPE, "get() needs a str name");
        return NULL;
    }
    if (!walk(o, a->pos[0]->u.str.s, root_of(o)))
        return a->npos > 1 ? tl_value_retain(a->pos[1]) : tl_none();
    return member(o, a->pos[0]->u.str.s, err);
}

static tl_value *f_close(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)a;
    (void)err;
    *h5_of(self)->closed = true;
    return tl_none();
}

static tl_value *f_enter(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)a;
    if (check_live(h5_of(self), err) < 0)
        return NULL;
    return tl_value_retain(self);
}

static tl_value *f_exit(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)a;
    (void)err;
    *h5_of(self)->closed = true;
    return tl_bool(false);
}

static tl_value *obj_attr(tl_value *obj, const char *name, tl_error *err)
{
    h5obj *o = h5_of(obj);
    static const struct {
        const char *name;
        tl_cfunc fn;
        int where; /* 1 groups (and files), 2 files, 3 all */
    } m[] = {{"create_dataset", g_create_dataset, 1}, {"create_group", g_create_group, 1},
             {"require_group", g_create_group, 0}, {"keys", g_keys, 1}, {"get", g_get, 1},
             {"close", f_close, 2}, {"__enter__", f_enter, 2}, {"__exit__", f_exit, 2}};
    for (size_t i = 0; i < TL_ARRAY_LEN(m); i++) {
        if (strcmp(m[i].name, name) != 0)
            continue;
        if ((m[i].where == 1 && o->node->group) || (m[i].where == 2 && o->is_file))
            return tl_value_func(m[i].name, m[i].fn, obj);
    }
    if (strcmp(name, "name") == 0)
        return tl_str(o->path);
    if (strcmp(name, "filename") == 0)
        return tl_str(o->f->path);
    if (o->is_file && strcmp(name, "mode") == 0)
        return tl_str(o->writable ? "r+" : "r");
    if (!o->node->group) {
        if (check_live(o, err) < 0)
            return NULL;
        const tl_tensor *t = o->node->array->u.tensor;
        if (strcmp(name, "shape") == 0) {
            tl_value *s = tl_tuple_new((size_t)t->ndim);
            for (int d = 0; d < t->ndim; d++)
                tl_seq_set(s, (size_t)d, tl_int(t->sizes[d]));
            return s;
        }
        if (strcmp(name, "dtype") == 0)
            return tl_value_np_dtype(t->dtype, TL_NPDT_DTYPE);
        if (strcmp(name, "ndim") == 0)
            return tl_int(t->ndim);
        if (strcmp(name, "size") == 0)
            return tl_int(tl_tensor_numel(t));
        if (strcmp(name, "nbytes") == 0)
            return tl_int(tl_tensor_numel(t) * (int64_t)tl_dtype_size(t->dtype));
    }
    tl_error_set(err, TL_ERR_ATTRIBUTE, "'%s' object has no attribute '%s'",
                 obj->u.obj.cls->name, name);
    return NULL;
}

/* ---- h5py.File ---- */

static int h5_open_error(const char *path, int errnum, tl_error *err)
{
    return tl_error_set(err, errnum == 2 ? TL_ERR_FILENOTFOUND : TL_ERR_OS,
                        "[Errno %d] Unable to open file (unable to open file: name = '%s', "
                        "errno = %d, error message = '%s', flags = %d, o_flags = %d)",
                        errnum, path, errnum,
                        errnum == 2 ? "No such file or directory" : "File exists",
                        errnum == 2 ? 0 : 15, errnum == 2 ? 0 : 194);
}

static tl_value *h5_file(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    static const char *const kw[] = {"name", "mode", "*", "driver", "libver", NULL};
    if (tl_args_check(a, "File", 2, kw, "(name, mode='r')", err) < 0)
        return NULL;
    const char *path;
    if (tl_memfs_path_arg(tl_arg(a, 0, "name"), "File", &path, err) < 0)
        return NULL;
    const char *mode = "r";
    tl_value *mv = tl_arg(a, 1, "mode");
    if (mv && mv->kind == TL_V_STR)
        mode = mv->u.str.s;
    else if (mv && mv->kind != TL_V_NONE) {
        tl_error_set(err, TL_ERR_VALUE, "Invalid mode; must be one of r, r+, w, w-, x, a");
        return NULL;
    }
    bool w;
    tl_memfile *f = NULL;
    if (!strcmp(mode, "r") || !strcmp(mode, "r+")) {
        w = mode[1] == '+';
        if (!tl_memfs_exists(path)) {
            h5_open_error(path, 2, err);
            return NULL;
        }
        f = tl_memfs_open(path, err);
        if (f && f->payload_tag != PAYLOAD) {
            tl_memfile_release(f);
            tl_error_set(err, TL_ERR_OS, "Unable to open file (file signature not found)");
            return NULL;
        }
    } else if (!strcmp(mode, "w") || !strcmp(mode, "w-") || !strcmp(mode, "x") ||
               !strcmp(mode, "a")) {
        w = true;
        if (mode[0] != 'w' || mode[1]) {
            if (tl_memfs_exists(path) && mode[0] != 'a') {
                tl_error_set(err, TL_ERR_OS, "[Errno 17] Unable to create file (unable to open "
                                             "file: name = '%s', errno = 17, error message = "
                                             "'File exists', flags = 15, o_flags = c2)", path);
                return NULL;
            }
        }
        if (mode[0] == 'a' && tl_memfs_exists(path)) {
            f = tl_memfs_open(path, err);
            if (f && f->payload_tag != PAYLOAD) {
                tl_memfile_release(f);
                tl_error_set(err, TL_ERR_OS, "Unable to open file (file signature not found)");
                return NULL;
            }
        } else {
            f = tl_memfs_create(path, err);
            if (f && tl_memfile_set_payload(f, PAYLOAD, node_new("/", 1, true), payload_drop,
                                            H5_BASE, err) < 0) {
                tl_memfile_release(f);
                return NULL;
            }
        }
    } else {
        tl_error_set(err, TL_ERR_VALUE, "Invalid mode; must be one of r, r+, w, w-, x, a");
        return NULL;
    }
    if (!f)
        return NULL;
    h5obj proto = {0};
    proto.f = f;
    proto.writable = w;
    proto.closed = tl_xcalloc(1, sizeof(bool));
    proto.closed_refs = tl_xcalloc(1, sizeof(int));
    *proto.closed_refs = 1;
    tl_value *r = make_obj(&proto, f->payload, "/", true);
    tl_memfile_release(f);
    if (--*proto.closed_refs == 0) { /* not reached: r holds one */
        free(proto.closed);
        free(proto.closed_refs);
    }
    return r;
}

tl_value *tl_h5py_module_attr(const char *name, tl_error *err)
{
    if (strcmp(name, "File") == 0)
        return tl_value_func("File", h5_file, NULL);
    tl_error_set(err, TL_ERR_UNSUPPORTED,
                 "tlab does not support h5py.%s (h5py.File, with groups and datasets)", name);
    return NULL;
}
