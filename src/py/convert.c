/* convert.c - Python values to tensors and back: torch.tensor(data) and
 * np.array(data) over nested lists, item(), tolist(), the device= and
 * dtype= arguments, and the attributes of storage values.
 *
 * Design:
 *   - torch.tensor(data) walks the nested data twice: once to find the
 *     shape (PyTorch's compute_sizes: follow the first element down) and
 *     the dtype (promote_types over every leaf: bool -> bool, int -> int64,
 *     float -> float32, a tensor/ndarray leaf -> its dtype), once to store
 *     every leaf into a host buffer (create.h), checking lengths on the way
 *     (ragged -> ValueError); the buffer is uploaded once.
 *   - Everything here is the py layer's: the runtime (create.h, numpy.h)
 *     takes and returns tensors, this file wraps them in values.
 */
#include "convert.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "context.h"
#include "create.h"
#include "device.h"
#include "numpy.h"
#include "storage.h"
#include "util.h"

int tl_convert_device(const tl_value *v, tl_device *out, tl_error *err)
{
    if (!v)
        return tl_error_set(err, TL_ERR_TYPE, "device must be a device, not nothing");
    if (v->kind == TL_V_DEVICE) {
        *out = v->u.device;
        return 0;
    }
    if (v->kind == TL_V_INT) {
        if (v->u.i < 0)
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "Device index must not be negative");
        out->kind = TL_DEV_CUDA;
        out->index = v->u.i > 1000000 ? 1000000 : (int)v->u.i;
        return 0;
    }
    if (v->kind != TL_V_STR)
        return tl_error_set(err, TL_ERR_TYPE,
                            "device must be torch.device, str or int, not %s",
                            tl_value_type_name(v));
    return tl_device_parse(v->u.str.s, out, err);
}

bool tl_convert_to_device(const tl_value *v, tl_device *out, tl_error *err)
{
    if (v->kind == TL_V_DEVICE) {
        *out = v->u.device;
        return true;
    }
    if (v->kind == TL_V_INT) {
        if (v->u.i < 0) {
            tl_error_set(err, TL_ERR_RUNTIME,
                         "Device index must not be negative");
            return false;
        }
        out->kind = TL_DEV_CUDA;
        out->index = (int)v->u.i;
        return true;
    }
    if (v->kind != TL_V_STR) {
        tl_error_set(err, TL_ERR_TYPE, "expected a device, not %s",
                     tl_value_type_name(v));
        return false;
    }
    return tl_device_parse(v->u.str.s, out, err) == 0;
}

int tl_convert_opt_dtype(const tl_value *v, bool *has, tl_dtype *dt,
                        tl_error *err)
{
    if (!v || v->kind == TL_V_NONE) {
        *has = false;
        return 0;
    }
    if (tl_value_python_dtype(v, dt)) {
        *has = true;
        return 0;
    }
    if (v->kind != TL_V_DTYPE)
        return tl_error_set(err, TL_ERR_TYPE,
                            "dtype must be torch.dtype, not %s",
                            tl_value_type_name(v));
    *has = true;
    *dt = v->u.dtype;
    return 0;
}

int tl_convert_opt_device(const tl_value *v, const tl_backend **be,
                         tl_error *err)
{
    if (!v || v->kind == TL_V_NONE)
        return 0;
    tl_device dev;
    if (tl_convert_device(v, &dev, err) < 0)
        return -1;
    const tl_backend *r = tl_backend_for(dev, err);
    if (!r)
        return -1;
    *be = r;
    return 0;
}

/* ------------------------------------------------------------------------
 * torch.tensor(data)
 * ---------------------------------------------------------------------- */

typedef struct data_walk {
    int ndim;
    int64_t sizes[TL_MAX_DIMS];
    bool have_dtype;
    tl_dtype dtype;
    tl_dtype target;
    bool checked; /* dtype given: integral targets range-check leaves */
    bool numpy;   /* np.array: float -> float64, numpy's ragged message */
    char *host;
    size_t isz;
    int64_t pos;
} data_walk;

static bool is_seq_node(const tl_value *v)
{
    return v->kind == TL_V_LIST || v->kind == TL_V_TUPLE ||
           v->kind == TL_V_SIZE || v->kind == TL_V_NDARRAY;
}

static void note_dtype(data_walk *w, tl_dtype dt)
{
    w->dtype = w->have_dtype ? tl_dtype_promote(w->dtype, dt) : dt;
    w->have_dtype = true;
}

static const char *py_type_name(const tl_value *v)
{
    return tl_value_type_name(v);
}

/* Pass 1a: shape, following the first element (compute_sizes). */
static int walk_shape(data_walk *w, const tl_value *v, tl_error *err)
{
    w->ndim = 0;
    while (is_seq_node(v)) {
        if (v->kind == TL_V_NDARRAY) {
            const tl_tensor *a = v->u.tensor;
            if (w->ndim + a->ndim > TL_MAX_DIMS)
                return tl_error_set(err, TL_ERR_LIMIT,
                                    "data nests deeper than %d dimensions",
                                    TL_MAX_DIMS);
            for (int d = 0; d < a->ndim; d++)
                w->sizes[w->ndim++] = a->sizes[d];
            return 0;
        }
        if (w->ndim >= TL_MAX_DIMS)
            return tl_error_set(err, TL_ERR_LIMIT,
                                "data nests deeper than %d dimensions",
                                TL_MAX_DIMS);
        w->sizes[w->ndim++] = (int64_t)v->u.seq.n;
        if (v->u.seq.n == 0)
            break;
        v = v->u.seq.items[0];
    }
    if (v->kind == TL_V_STR && w->ndim > 0)
        return tl_error_set(err, TL_ERR_VALUE, "too many dimensions 'str'");
    return 0;
}

/* dtype of one scalar leaf; -1 if it is not a scalar */
static int leaf_dtype(const tl_value *v, tl_dtype *out, tl_error *err)
{
    switch (v->kind) {
    case TL_V_BOOL: *out = TL_BOOL; return 0;
    case TL_V_INT: *out = TL_INT64; return 0;
    case TL_V_FLOAT: *out = tl_dtype_default(); return 0;
    case TL_V_TENSOR: *out = v->u.tensor->dtype; return 0;
    case TL_V_NONE:
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "Could not infer dtype of NoneType");
    case TL_V_STR:
        return tl_error_set(err, TL_ERR_VALUE, "too many dimensions 'str'");
    default:
        return tl_error_set(err, TL_ERR_RUNTIME, "Could not infer dtype of %s",
                            py_type_name(v));
    }
}

/* Pass 1b: dtype over all leaves (torch's infer_scalar_type). */
static int walk_dtype(data_walk *w, const tl_value *v, int depth, tl_error *err)
{
    if (v->kind == TL_V_NDARRAY) {
        note_dtype(w, v->u.tensor->dtype);
        return 0;
    }
    if (v->kind == TL_V_LIST || v->kind == TL_V_TUPLE || v->kind == TL_V_SIZE) {
        if (depth > TL_MAX_DIMS)
            return tl_error_set(err, TL_ERR_LIMIT,
                                "data nests deeper than %d dimensions",
                                TL_MAX_DIMS);
        if (v->u.seq.n == 0) {
            note_dtype(w, w->numpy ? TL_FLOAT64 : tl_dtype_default());
            return 0;
        }
        for (size_t i = 0; i < v->u.seq.n; i++)
            if (walk_dtype(w, v->u.seq.items[i], depth + 1, err) < 0)
                return -1;
        return 0;
    }
    tl_dtype dt;
    if (leaf_dtype(v, &dt, err) < 0)
        return -1;
    if (w->numpy && v->kind == TL_V_FLOAT)
        dt = TL_FLOAT64;
    note_dtype(w, dt);
    return 0;
}

/* numpy's wording for ragged data, detected after `dim` dimensions */
static int numpy_ragged(const data_walk *w, int dim, tl_error *err)
{
    tl_buf b = {0};
    tl_buf_putc(&b, '(');
    for (int d = 0; d < dim; d++)
        tl_buf_printf(&b, "%s%" PRId64, d ? ", " : "", w->sizes[d]);
    tl_buf_puts(&b, dim == 1 ? ",)" : ")");
    tl_error_set(err, TL_ERR_VALUE,
                 "setting an array element with a sequence. The requested "
                 "array has an inhomogeneous shape after %d dimensions. The "
                 "detected shape was %s + inhomogeneous part.",
                 dim, tl_buf_str(&b));
    tl_buf_free(&b);
    return -1;
}

static int store_leaf(data_walk *w, const tl_value *v, tl_error *err)
{
    char *p = w->host + (size_t)w->pos * w->isz;
    tl_scalar s = {0};
    switch (v->kind) {
    case TL_V_BOOL: s.i = v->u.b; break;
    case TL_V_INT: s.i = v->u.i; break;
    case TL_V_FLOAT: s.is_float = true; s.f = v->u.f; break;
    case TL_V_TENSOR: {
        const tl_tensor *t = v->u.tensor;
        if (tl_tensor_numel(t) != 1) {
            if (tl_dtype_is_floating(w->target))
                return tl_error_set(err, TL_ERR_VALUE,
                                    "only one element tensors can be "
                                    "converted to Python scalars");
            return tl_error_set(err, TL_ERR_TYPE,
                                "only integer tensors of a single element "
                                "can be converted to an index");
        }
        if (tl_dtype_is_floating(t->dtype)) {
            s.is_float = true;
            if (tl_tensor_get_f64(t, 0, &s.f, err) < 0)
                return -1;
        } else if (tl_tensor_get_i64(t, 0, &s.i, err) < 0) {
            return -1;
        }
        break;
    }
    case TL_V_LIST:
    case TL_V_TUPLE:
    case TL_V_SIZE:
        if (w->numpy)
            return numpy_ragged(w, w->ndim, err);
        if (tl_dtype_is_floating(w->target))
            return tl_error_set(err, TL_ERR_TYPE, "must be real number, not %s",
                                py_type_name(v));
        return tl_error_set(err, TL_ERR_TYPE,
                            "'%s' object cannot be interpreted as an integer",
                            py_type_name(v));
    default: {
        tl_dtype dummy;
        if (leaf_dtype(v, &dummy, err) < 0)
            return -1;
        return tl_error_set(err, TL_ERR_TYPE, "invalid data");
    }
    }
    if (w->checked && tl_dtype_is_integral(w->target) &&
        tl_create_scalar_overflows(w->target, s))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "value cannot be converted to type %s without "
                            "overflow",
                            tl_dtype_name(w->target));
    if (s.is_float)
        tl_dtype_store_f64(w->target, p, s.f);
    else
        tl_dtype_store_i64(w->target, p, s.i);
    w->pos++;
    return 0;
}

static int store_ndarray(data_walk *w, const tl_tensor *a, int dim,
                         tl_error *err)
{
    for (int d = 0; d < a->ndim; d++)
        if (dim + d >= w->ndim || a->sizes[d] != w->sizes[dim + d])
            return w->numpy ? numpy_ragged(w, dim + d, err) :
                tl_error_set(err, TL_ERR_VALUE,
                                "expected sequence of length %" PRId64
                                " at dim %d (got %" PRId64 ")",
                                dim + d < w->ndim ? w->sizes[dim + d] : 0,
                                dim + d, a->sizes[d]);
    if (dim + a->ndim != w->ndim)
        return w->numpy ? numpy_ragged(w, dim + a->ndim, err)
                        : tl_error_set(err, TL_ERR_TYPE, "not a sequence");
    int64_t n = tl_tensor_numel(a);
    bool fl = tl_dtype_is_floating(a->dtype);
    /* one host read of a device tensor, not one transfer an element */
    tl_tensor *h = tl_tensor_read_host(a, err);
    if (!h)
        return -1;
    for (int64_t i = 0; i < n; i++) {
        char *p = w->host + (size_t)w->pos * w->isz;
        if (fl) {
            double v;
            if (tl_tensor_get_f64(h, i, &v, err) < 0) {
                tl_tensor_release(h);
                return -1;
            }
            tl_dtype_store_f64(w->target, p, v);
        } else {
            int64_t v;
            if (tl_tensor_get_i64(h, i, &v, err) < 0) {
                tl_tensor_release(h);
                return -1;
            }
            tl_dtype_store_i64(w->target, p, v);
        }
        w->pos++;
    }
    tl_tensor_release(h);
    return 0;
}

/* Pass 2: store, checking every sequence length against the shape. */
static int walk_store(data_walk *w, const tl_value *v, int dim, tl_error *err)
{
    if (dim == w->ndim) {
        if (v->kind == TL_V_NDARRAY)
            return store_ndarray(w, v->u.tensor, dim, err);
        return store_leaf(w, v, err);
    }
    if (v->kind == TL_V_NDARRAY)
        return store_ndarray(w, v->u.tensor, dim, err);
    if (!(v->kind == TL_V_LIST || v->kind == TL_V_TUPLE || v->kind == TL_V_SIZE))
        return w->numpy ? numpy_ragged(w, dim, err)
                        : tl_error_set(err, TL_ERR_TYPE, "not a sequence");
    if ((int64_t)v->u.seq.n != w->sizes[dim])
        return w->numpy ? numpy_ragged(w, dim, err) : tl_error_set(err, TL_ERR_VALUE,
                            "expected sequence of length %" PRId64
                            " at dim %d (got %zu)",
                            w->sizes[dim], dim, v->u.seq.n);
    for (size_t i = 0; i < v->u.seq.n; i++)
        if (walk_store(w, v->u.seq.items[i], dim + 1, err) < 0)
            return -1;
    return 0;
}

static tl_tensor *from_data_impl(const tl_value *data, bool dt_given,
                                 tl_dtype dt, const tl_backend *be, bool numpy,
                                 tl_error *err)
{
    if (data->kind == TL_V_TENSOR)
        return tl_create_copy_to(data->u.tensor, be,
                                 dt_given ? dt : data->u.tensor->dtype, err);
    if (data->kind == TL_V_NDARRAY && !numpy) {
        /* torch.tensor(ndarray): tensor_from_numpy (its negative-stride
         * ValueError included), then .to(copy=True): preserve_format
         * strides, so a transposed array stays column-major */
        tl_tensor *shared = tl_numpy_to_tensor(data->u.tensor, err);
        if (!shared)
            return NULL;
        tl_tensor *t = tl_create_copy_to(shared, be,
                                         dt_given ? dt : shared->dtype, err);
        tl_tensor_release(shared);
        return t;
    }
    if (data->kind == TL_V_STR) {
        tl_error_set(err, TL_ERR_TYPE, "new(): invalid data type 'str'");
        return NULL;
    }
    data_walk w;
    memset(&w, 0, sizeof w);
    w.numpy = numpy;
    if (walk_shape(&w, data, err) < 0)
        return NULL;
    if (dt_given) {
        w.target = dt;
        w.checked = true;
    } else {
        if (walk_dtype(&w, data, 0, err) < 0)
            return NULL;
        w.target = w.have_dtype ? w.dtype : (numpy ? TL_FLOAT64 : tl_dtype_default());
    }
    int64_t numel;
    if (tl_tensor_check_shape(w.ndim, w.sizes, &numel, err) < 0)
        return NULL;
    w.isz = tl_dtype_size(w.target);
    /* straight into the result's bytes (a charged buffer for a device) */
    void *host;
    tl_tensor *t = tl_create_begin(be, w.target, w.ndim, w.sizes, true, &host, err);
    if (!t)
        return NULL;
    w.host = host;
    bool ok = walk_store(&w, data, 0, err) == 0;
    return tl_create_finish(t, host, ok, err);
}

tl_tensor *tl_convert_from_data(const tl_value *data, bool dt_given, tl_dtype dt,
                               const tl_backend *be, tl_error *err)
{
    return from_data_impl(data, dt_given, dt, be, false, err);
}

tl_tensor *tl_convert_from_data_numpy(const tl_value *data, bool dt_given,
                                     tl_dtype dt, tl_error *err)
{
    return from_data_impl(data, dt_given, dt, tl_backend_cpu(), true, err);
}

static tl_value *element_value(const tl_tensor *t, int64_t i, tl_error *err)
{
    if (tl_dtype_is_floating(t->dtype)) {
        double v;
        if (tl_tensor_get_f64(t, i, &v, err) < 0)
            return NULL;
        return tl_float(v);
    }
    int64_t v;
    if (tl_tensor_get_i64(t, i, &v, err) < 0)
        return NULL;
    return t->dtype == TL_BOOL ? tl_bool(v != 0) : tl_int(v);
}

tl_value *tl_convert_item(const tl_tensor *t, tl_error *err)
{
    int64_t n = tl_tensor_numel(t);
    if (n != 1) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "a Tensor with %" PRId64
                     " elements cannot be converted to Scalar",
                     n);
        return NULL;
    }
    return element_value(t, 0, err);
}

#define TL_TOLIST_MAX TL_DEFAULT_MAX_SEQ

/* The element of host tensor h at p as a Python value. */
static tl_value *host_value(const tl_tensor *h, const void *p)
{
    if (tl_dtype_is_floating(h->dtype))
        return tl_float(tl_dtype_load_f64(h->dtype, p));
    int64_t v = tl_dtype_load_i64(h->dtype, p);
    return h->dtype == TL_BOOL ? tl_bool(v != 0) : tl_int(v);
}

/* The nested lists of dims [dim, ndim) of host tensor h, from storage
 * element off on: a walk over the strides, each list made at its size
 * (an element read through its flat index and a list grown by appends
 * were 6,000 instructions for a 2x3 tensor). */
static tl_value *tolist_rec(const tl_tensor *h, int dim, int64_t off, size_t isz,
                            int64_t *made, tl_error *err)
{
    if (dim == h->ndim)
        return host_value(h, (const char *)h->storage->data + (size_t)off * isz);
    size_t n = (size_t)h->sizes[dim];
    tl_value *list = tl_list_new(n);
    for (size_t i = 0; i < n; i++) {
        /* the values are on the ledger as they are made: past --max-bytes
         * (or the deadline) the op stops, its half-built lists freed */
        if (tl_context_deadline_tick((*made)++, err) < 0) {
            tl_value_release(list);
            return NULL;
        }
        tl_value *item = tolist_rec(h, dim + 1, off + (int64_t)i * h->strides[dim], isz,
                                    made, err);
        if (!item) {
            tl_value_release(list);
            return NULL;
        }
        tl_seq_set(list, i, item);
    }
    return list;
}

tl_value *tl_convert_tolist(const tl_tensor *t, tl_error *err)
{
    int64_t n = tl_tensor_numel(t);
    if (n > TL_TOLIST_MAX) {
        tl_error_set(err, TL_ERR_LIMIT,
                     "tolist() of %" PRId64 " elements exceeds tlab's limit "
                     "of %" PRId64,
                     n, TL_TOLIST_MAX);
        return NULL;
    }
    /* the nested lists count too: a (2**62, 0) tensor has no elements but
     * 2**62 empty lists */
    int64_t values = 0, level = 1;
    for (int d = 0; d <= t->ndim && level > 0 && values <= TL_TOLIST_MAX; d++) {
        values += level;
        if (d < t->ndim && tl_mul_overflow(level, t->sizes[d], &level))
            level = INT64_MAX - TL_TOLIST_MAX;
    }
    if (values > TL_TOLIST_MAX) {
        tl_error_set(err, TL_ERR_LIMIT,
                     "tolist() would build more than tlab's limit of %" PRId64
                     " lists and elements", TL_TOLIST_MAX);
        return NULL;
    }
    /* what the lists will cost, charged up front: each element and list
     * is one value block, each list an item array too */
    size_t cost = (size_t)values * (sizeof(tl_value) + 2 * sizeof(size_t)) +
                  (size_t)(values - n) * 2 * sizeof(size_t) + (size_t)n * sizeof(void *);
    if (tl_alloc_over_limit(cost > TL_ALLOC_OBJECT_ALLOWANCE ? cost - TL_ALLOC_OBJECT_ALLOWANCE
                                                             : 0)) {
        tl_context_ledger_refused(cost);
        tl_error_set(err, TL_ERR_LIMIT,
                     "memory limit exceeded: tolist() of %" PRId64 " elements needs about "
                     "%zu bytes of Python objects; the limit is %zu bytes (see --max-bytes)",
                     n, cost, tl_alloc_limit());
        return NULL;
    }
    /* read device tensors through the one host read */
    tl_tensor *h = tl_tensor_read_host(t, err);
    if (!h)
        return NULL;
    int64_t made = 0;
    tl_value *r = tolist_rec(h, 0, h->offset, tl_dtype_size(h->dtype), &made, err);
    tl_tensor_release(h);
    return r;
}

/* ------------------------------------------------------------------------
 * Storage values
 * ---------------------------------------------------------------------- */

static tl_storage *self_storage(tl_value *self, const char *name, tl_error *err)
{
    if (self && self->kind == TL_V_STORAGE)
        return self->u.storage;
    tl_error_set(err, TL_ERR_TYPE, "%s() needs a storage", name);
    return NULL;
}

static int no_args(const tl_args *a, const char *name, tl_error *err)
{
    if (a && (a->npos || a->nkw))
        return tl_error_set(err, TL_ERR_TYPE,
                            "%s() takes no arguments (%zu given)", name,
                            a->npos + a->nkw);
    return 0;
}

static tl_value *storage_data_ptr(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_storage *s = self_storage(self, "data_ptr", err);
    if (!s || no_args(a, "data_ptr", err) < 0)
        return NULL;
    return tl_int(s->nbytes ? (int64_t)(uintptr_t)s->data : 0);
}

static tl_value *storage_nbytes(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_storage *s = self_storage(self, "nbytes", err);
    if (!s || no_args(a, "nbytes", err) < 0)
        return NULL;
    return tl_int((int64_t)s->nbytes);
}

static tl_value *storage_size(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_storage *s = self_storage(self, "size", err);
    if (!s || no_args(a, "size", err) < 0)
        return NULL;
    /* UntypedStorage.size() is bytes, TypedStorage.size() elements */
    return tl_int((int64_t)(s->nbytes / (self->typed ? tl_dtype_size(self->sdtype) : 1)));
}

static tl_value *storage_element_size(tl_value *self, const tl_args *a,
                                      tl_error *err)
{
    tl_storage *s = self_storage(self, "element_size", err);
    if (!s || no_args(a, "element_size", err) < 0)
        return NULL;
    return tl_int(self->typed ? (int64_t)tl_dtype_size(self->sdtype) : 1);
}

tl_value *tl_convert_storage_attr(tl_value *storage, const char *name,
                                 tl_error *err)
{
    if (!storage || storage->kind != TL_V_STORAGE) {
        tl_error_set(err, TL_ERR_TYPE, "not a storage");
        return NULL;
    }
    if (strcmp(name, "data_ptr") == 0)
        return tl_value_func("data_ptr", storage_data_ptr, storage);
    if (strcmp(name, "nbytes") == 0)
        return tl_value_func("nbytes", storage_nbytes, storage);
    if (strcmp(name, "size") == 0)
        return tl_value_func("size", storage_size, storage);
    if (strcmp(name, "element_size") == 0)
        return tl_value_func("element_size", storage_element_size, storage);
    if (strcmp(name, "device") == 0)
        return tl_value_device(storage->u.storage->device);
    if (strcmp(name, "is_cuda") == 0)
        return tl_bool(storage->u.storage->device.kind == TL_DEV_CUDA);
    if (storage->typed && strcmp(name, "dtype") == 0)
        return tl_value_dtype(storage->sdtype);
    tl_error_set(err, TL_ERR_ATTRIBUTE,
                 "'torch.storage.%s' object has no attribute '%s'",
                 storage->typed ? "TypedStorage" : "UntypedStorage", name);
    return NULL;
}

/* ---------------------------------------------------------------------- */
/* storages (torch.UntypedStorage: bytes) */

static int storage_byte(tl_storage *s, int64_t i, uint8_t *out, bool write, uint8_t in,
                        tl_error *err)
{
    if (i < 0 || (uint64_t)i >= s->nbytes)
        return tl_error_set(err, TL_ERR_INDEX, "index %" PRId64 " out of range for storage of size %zu",
                            i, s->nbytes);
    const tl_backend *be = s->backend ? s->backend : tl_backend_cpu();
    unsigned char *p = (unsigned char *)s->data + i;
    if (write)
        return tl_backend_from_host(be, p, &in, 1, err);
    return tl_backend_to_host(be, out, p, 1, err);
}

/* TypedStorage[i]: element i of the storage's dtype (a Python float, int
 * or bool); "index N out of range for storage of size M" in elements */
static int typed_elem(tl_value *st, tl_value *idx, int64_t *at, tl_error *err)
{
    int64_t i;
    if (!tl_value_as_index(idx, &i))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "can't index a <class 'torch.storage.TypedStorage'> with <class '%s'>",
                            tl_value_type_name(idx));
    tl_storage *s = st->u.storage;
    int64_t n = (int64_t)(s->nbytes / tl_dtype_size(st->sdtype));
    int64_t j = i < 0 ? i + n : i;
    if (j < 0 || j >= n)
        return tl_error_set(err, TL_ERR_INDEX, "index %" PRId64 " out of range for storage of size %" PRId64,
                            i, n);
    *at = j;
    return 0;
}

static tl_value *typed_get(tl_value *st, tl_value *idx, tl_error *err)
{
    int64_t j;
    if (typed_elem(st, idx, &j, err) < 0)
        return NULL;
    tl_storage *s = st->u.storage;
    size_t isz = tl_dtype_size(st->sdtype);
    unsigned char buf[16];
    const tl_backend *be = s->backend ? s->backend : tl_backend_cpu();
    if (tl_backend_to_host(be, buf, (unsigned char *)s->data + (size_t)j * isz, isz, err) < 0)
        return NULL;
    if (tl_dtype_is_floating(st->sdtype))
        return tl_float(tl_dtype_load_f64(st->sdtype, buf));
    if (st->sdtype == TL_BOOL)
        return tl_bool(buf[0] != 0);
    return tl_int(tl_dtype_load_i64(st->sdtype, buf));
}

static int typed_set(tl_value *st, tl_value *idx, tl_value *v, tl_error *err)
{
    int64_t j;
    if (typed_elem(st, idx, &j, err) < 0)
        return -1;
    tl_storage *s = st->u.storage;
    tl_dtype dt = st->sdtype;
    size_t isz = tl_dtype_size(dt);
    unsigned char buf[16];
    if (v->kind == TL_V_FLOAT)
        tl_dtype_store_f64(dt, buf, v->u.f);
    else if (v->kind == TL_V_INT || v->kind == TL_V_BOOL)
        tl_dtype_store_i64(dt, buf, v->kind == TL_V_INT ? v->u.i : v->u.b);
    else
        return tl_error_set(err, TL_ERR_TYPE, "storage values must be numbers, not %s",
                            tl_value_type_name(v));
    const tl_backend *be = s->backend ? s->backend : tl_backend_cpu();
    return tl_backend_from_host(be, (unsigned char *)s->data + (size_t)j * isz, buf, isz, err);
}

tl_value *tl_convert_storage_get(tl_value *st, tl_value *idx, tl_error *err)
{
    int64_t i;
    if (st->typed)
        return typed_get(st, idx, err);
    if (!tl_value_as_index(idx, &i)) {
        tl_error_set(err, TL_ERR_TYPE, "can't index a torch.UntypedStorage with %s",
                     tl_value_type_name(idx));
        return NULL;
    }
    tl_storage *s = st->u.storage;
    if (i < 0)
        i += (int64_t)s->nbytes;
    uint8_t b;
    if (storage_byte(s, i, &b, false, 0, err) < 0)
        return NULL;
    return tl_int(b);
}

int tl_convert_storage_set(tl_value *st, tl_value *idx, tl_value *v, tl_error *err)
{
    int64_t i, x;
    if (st->typed)
        return typed_set(st, idx, v, err);
    if (!tl_value_as_index(idx, &i))
        return tl_error_set(err, TL_ERR_TYPE, "can't index a torch.UntypedStorage with %s",
                            tl_value_type_name(idx));
    if (!tl_value_as_index(v, &x))
        return tl_error_set(err, TL_ERR_TYPE, "storage values must be ints, not %s",
                            tl_value_type_name(v));
    if (x < 0 || x > 255)
        return tl_error_set(err, TL_ERR_RUNTIME, "value %" PRId64 " is out of range for a byte", x);
    tl_storage *s = st->u.storage;
    if (i < 0)
        i += (int64_t)s->nbytes;
    uint8_t dummy;
    return storage_byte(s, i, &dummy, true, (uint8_t)x, err);
}
