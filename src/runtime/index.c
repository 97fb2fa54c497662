/* index.c - subscripts x[idx] and x[idx] = v for tensors and ndarrays.
 *
 * Design: the index arrives as a tl_index, an array of items (int, slice,
 * None, Ellipsis, bool, tensor) that py/index_parse.c normalised from the
 * Python subscript the way python_variable_indexing.cpp does. The items
 * are applied left to right to a local geometry (sizes,
 * strides, offset) exactly as ATen's applySlicing does - including its quirk
 * that a k-d mask advances the dim pointer by one - producing the "sliced"
 * view plus a per-dim list of recorded index tensors. With no index tensor
 * the result is a view (a new header, never self).
 *
 * Advanced indexing then follows at::index: dtype check, mask expansion
 * (nonzero), broadcast of the index tensors, PyTorch's dimension placement
 * (in place when the indexed dims are adjacent, else first), bounds checks.
 * The result's storage offsets are generated on the host in chunks and
 * gathered with one backend index_select per chunk over the whole storage
 * viewed as 1-D, so every device works. On a device that computes offsets
 * itself (TL_BACKEND_CAP_DEVICE_INDEX: the CUDA backend, real or emulated)
 * and 1-3 integer index tensors, the index tensors stay on the device: one
 * kernel turns them into the B block's element offsets (bounds checked
 * there: one 8-byte status word comes back), and one gather (or an
 * in-order scatter) reads them over the plan's virtual dims, so no index
 * byte crosses to the host; masks keep the host path, since their
 * nonzero() needs the count on the host (PyTorch syncs there too). A torch
 * result then takes the
 * layout at::index's TensorIterator would give it (adv_layout: it follows
 * the stride order of the restrided source and the index tensors), copied
 * once more only when that differs from row-major. Assignment scatters the
 * same offsets with the backend's scatter, on the device.
 *
 * NumPy mode (ndarrays) differs where NumPy does: negative steps, ints
 * become advanced indices next to arrays, masks consume their dims, a full
 * integer index returns a Python scalar, NumPy's error texts, and writes
 * never bump the tensor version counter.
 */
#include "index.h"

#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "ops.h"
#include "freelist.h"
#include "util.h"
#include "view.h"

/* host-side index material is bounded (it is not charged to the ledger) */
#define MAX_INDEX_ELEMS TL_INDEX_MAX_ELEMS
#define GATHER_CHUNK 65536

typedef tl_index_item ixitem; /* index.h */
#define IX_INT TL_INDEX_INT
#define IX_SLICE TL_INDEX_SLICE
#define IX_NONE TL_INDEX_NONE
#define IX_ELLIPSIS TL_INDEX_ELLIPSIS
#define IX_BOOL TL_INDEX_BOOL
#define IX_TENSOR TL_INDEX_TENSOR

/* One index tensor after mask expansion, read to the host. */
typedef struct advidx {
    int dim;                  /* dim of the sliced geometry it indexes */
    int ndim;
    int64_t sizes[TL_MAX_DIMS];
    int64_t strides[TL_MAX_DIMS]; /* of the index tensor ATen would see */
    bool is_int32;            /* converted to long after broadcasting */
    int64_t numel;
    int64_t *vals;            /* row-major, owned (host path) */
    tl_tensor *t;             /* device path: the index on x's device, owned */
} advidx;

/* A recorded (not yet expanded) index at outIndices[pos]. */
typedef struct rec {
    tl_tensor *t;             /* owned; NULL when vals is used instead */
    bool is_mask;
    int64_t scalar;           /* numpy: an int that became advanced */
    bool is_scalar;
} rec;

typedef struct ctx {
    bool np;                  /* NumPy semantics */
    tl_tensor *x;             /* the indexed tensor (borrowed) */
    int ndim;                 /* sliced geometry */
    int64_t sizes[TL_MAX_DIMS];
    int64_t strides[TL_MAX_DIMS];
    int64_t offset;
    bool same;                /* sliced geometry is still x itself */
    bool ellipsis_seen;
    bool scalar_result;       /* numpy: integer-only basic index */
    int nrec;                 /* outIndices length */
    rec recs[TL_MAX_DIMS + 1];
    int nadv;
    bool dev;                 /* the device path (device_path()) */
    advidx adv[TL_MAX_DIMS];
} ctx;

static void ctx_free(ctx *c)
{
    for (int i = 0; i < c->nrec; i++)
        tl_tensor_release(c->recs[i].t);
    for (int i = 0; i < c->nadv; i++) {
        free(c->adv[i].vals);
        tl_tensor_release(c->adv[i].t);
    }
    c->nrec = c->nadv = 0;
}

int tl_index_np_type_error(tl_error *err)
{
    return tl_error_set(err, TL_ERR_INDEX, "only integers, slices (`:`), "
                        "ellipsis (`...`), numpy.newaxis (`None`) and "
                        "integer or boolean arrays are valid indices");
}

void tl_index_free(tl_index *ix)
{
    if (!ix)
        return;
    for (int i = 0; i < ix->n; i++)
        tl_tensor_release(ix->items[i].t);
    free(ix->items);
    ix->items = NULL;
    ix->n = 0;
}

static void fmt_list(tl_buf *b, int n, const int64_t *a)
{
    tl_buf_putc(b, '[');
    for (int i = 0; i < n; i++)
        tl_buf_printf(b, "%s%lld", i ? ", " : "", (long long)a[i]);
    tl_buf_putc(b, ']');
}

/* NumPy's shape text: (4,) (2,3) () */
static void np_shape(tl_buf *b, int n, const int64_t *a)
{
    tl_buf_putc(b, '(');
    for (int i = 0; i < n; i++)
        tl_buf_printf(b, "%s%lld", i ? "," : "", (long long)a[i]);
    if (n == 1)
        tl_buf_putc(b, ',');
    tl_buf_putc(b, ')');
}

int tl_index_limit_error(tl_error *err)
{
    return tl_error_set(err, TL_ERR_LIMIT, "an advanced index with more than "
                        "%lld elements is not supported",
                        (long long)MAX_INDEX_ELEMS);
}

/* ------------------------------------------------------------------ */
/* host reads and list -> tensor conversion                            */
/* ------------------------------------------------------------------ */

/* All elements of t, row-major, as int64 (bool as 0/1). Caller frees. */
static int64_t *read_all_i64(const tl_tensor *t, int64_t *n, tl_error *err)
{
    int64_t numel = tl_tensor_numel(t);
    if (numel > MAX_INDEX_ELEMS) {
        tl_index_limit_error(err);
        return NULL;
    }
    /* one host read (a device tensor: one copy, one transfer) */
    tl_tensor *h = tl_tensor_read_host(t, err);
    if (!h)
        return NULL;
    const tl_tensor *src = h;
    int64_t *out = tl_xmalloc(sizeof(int64_t) * (size_t)(numel > 0 ? numel : 1));
    /* walk the strided layout directly (host memory) */
    const char *base = (const char *)src->storage->data;
    size_t isz = tl_dtype_size(src->dtype);
    if (src->dtype == TL_INT64 && tl_tensor_is_contiguous(src)) {
        if (numel > 0)
            memcpy(out, base + (size_t)src->offset * isz, (size_t)numel * sizeof *out);
        tl_tensor_release(h);
        *n = numel;
        return out;
    }
    int64_t idx[TL_MAX_DIMS] = {0};
    int64_t off = src->offset;
    for (int64_t k = 0; k < numel; k++) {
        out[k] = tl_dtype_load_i64(src->dtype, base + (size_t)off * isz);
        tl_shape_next(src->ndim, src->sizes, idx, src->strides, &off);
    }
    tl_tensor_release(h);
    *n = numel;
    return out;
}

/* ------------------------------------------------------------------ */
/* basic indexing on the local geometry                                */
/* ------------------------------------------------------------------ */

static bool is_int_scalar_tensor(const tl_tensor *t)
{
    return t->ndim == 0 && tl_dtype_is_integral(t->dtype) &&
           t->dtype != TL_UINT8;
}

static bool is_bool_scalar_tensor(const tl_tensor *t)
{
    return t->ndim == 0 && (t->dtype == TL_BOOL || t->dtype == TL_UINT8);
}

static int geom_unsqueeze(ctx *c, int64_t dim, tl_error *err)
{
    int d;
    if (tl_shape_wrap_dim(dim, c->ndim + 1, &d, err))
        return -1;
    if (c->ndim >= TL_MAX_DIMS)
        return tl_error_set(err, TL_ERR_LIMIT, "tensors with more than %d "
                            "dimensions are not supported", TL_MAX_DIMS);
    int64_t st = d >= c->ndim ? 1 : c->sizes[d] * c->strides[d];
    if (c->np)
        st = 0;
    for (int i = c->ndim; i > d; i--) {
        c->sizes[i] = c->sizes[i - 1];
        c->strides[i] = c->strides[i - 1];
    }
    c->sizes[d] = 1;
    c->strides[d] = st;
    c->ndim++;
    c->same = false;
    return 0;
}

/* applySelect */
static int geom_select(ctx *c, int dim, int64_t index, int64_t real_dim,
                       tl_error *err)
{
    if (!c->np && index == 0 && dim == 0 && c->ndim == 0)
        return tl_error_set(err, TL_ERR_INDEX, "invalid index of a 0-dim "
                            "tensor. Use `tensor.item()` in Python or "
                            "`tensor.item<T>()` in C++ to convert a 0-dim "
                            "tensor to a number");
    int64_t size = dim < c->ndim ? c->sizes[dim] : 0;
    if (!(size > -1 - index && size > index)) {
        if (c->np)
            return tl_error_set(err, TL_ERR_INDEX, "index %lld is out of "
                                "bounds for axis %lld with size %lld",
                                (long long)index, (long long)real_dim,
                                (long long)size);
        return tl_error_set(err, TL_ERR_INDEX, "index %lld is out of bounds "
                            "for dimension %lld with size %lld",
                            (long long)index, (long long)real_dim,
                            (long long)size);
    }
    if (index < 0)
        index += size;
    c->offset += index * c->strides[dim];
    for (int i = dim; i < c->ndim - 1; i++) {
        c->sizes[i] = c->sizes[i + 1];
        c->strides[i] = c->strides[i + 1];
    }
    c->ndim--;
    c->same = false;
    return 0;
}

static int geom_slice(ctx *c, int dim, const ixitem *sl, tl_error *err)
{
    if (sl->bad_slice)
        return tl_error_set(err, TL_ERR_TYPE, "slice indices must be "
                            "integers or None or have an __index__ method");
    bool hs = sl->has_start, he = sl->has_stop, hst = sl->has_step;
    int64_t s = sl->start, e = sl->stop, st = sl->step;
    if (!hst)
        st = 1;
    if (st == 0)
        return tl_error_set(err, TL_ERR_VALUE, "slice step cannot be zero");
    if (c->np) {
        if (dim >= c->ndim)
            return tl_error_set(err, TL_ERR_INDEX, "too many indices for "
                                "array");
        /* PySlice_AdjustIndices */
        int64_t len = c->sizes[dim];
        int64_t lo, hi;
        if (st > 0) {
            s = hs ? s : 0;
            e = he ? e : len;
        } else {
            s = hs ? s : len - 1;
            e = he ? e : -len - 1;
        }
        if (s < 0) {
            s += len;
            if (s < 0)
                s = st < 0 ? -1 : 0;
        } else if (s >= len) {
            s = st < 0 ? len - 1 : len;
        }
        if (e < 0) {
            e += len;
            if (e < 0)
                e = st < 0 ? -1 : 0;
        } else if (e >= len) {
            e = st < 0 ? len - 1 : len;
        }
        lo = s;
        hi = e;
        int64_t n = 0;
        if (st < 0) {
            if (hi < lo) /* -st overflows for st = -2**63 */
                n = (int64_t)((uint64_t)(lo - hi - 1) / (0 - (uint64_t)st)) + 1;
        } else if (lo < hi) {
            n = (hi - lo - 1) / st + 1;
        }
        /* get_view_from_index: an empty slice is start 0, step 1 */
        if (n == 0)
            s = 0, st = 1;
        c->offset += s * c->strides[dim];
        c->sizes[dim] = n;
        /* NumPy multiplies strides in wrapping arithmetic: a[::2**62] of a
         * (4, 6) float32 array has strides (0, 4) */
        c->strides[dim] = (int64_t)((uint64_t)c->strides[dim] * (uint64_t)st);
        c->same = false;
        return 0;
    }
    if (st < 0)
        return tl_error_set(err, TL_ERR_VALUE, "step must be greater than "
                            "zero");
    if (c->ndim == 0)
        return tl_error_set(err, TL_ERR_INDEX, "slice() cannot be applied to "
                            "a 0-dim tensor.");
    int d;
    if (tl_shape_wrap_dim(dim, c->ndim, &d, err))
        return -1;
    int64_t size = c->sizes[d];
    /* applySlice's no-op shortcut (raw start 0, explicit stop == size) */
    if (st == 1 && (!hs || s == 0) && he && e == size)
        return 0;
    int64_t a = hs ? s : 0, b = he ? e : INT64_MAX;
    if (a < 0)
        a += size;
    if (b < 0)
        b += size;
    if (a < 0)
        a = 0;
    else if (a >= size)
        a = size;
    if (b < a)
        b = a;
    else if (b >= size)
        b = size;
    c->offset += a * c->strides[d];
    c->sizes[d] = b == a ? 0 : (b - a - 1) / st + 1;
    if (tl_mul_overflow(c->strides[d], st, &c->strides[d]))
        c->strides[d] = INT64_MAX;
    c->same = false;
    return 0;
}

static int record(ctx *c, int dim, tl_tensor *t, bool is_mask, tl_error *err)
{
    if (dim > TL_MAX_DIMS) {
        tl_tensor_release(t);
        return tl_error_set(err, TL_ERR_LIMIT, "too many indexed dimensions");
    }
    while (c->nrec < dim + 1) {
        memset(&c->recs[c->nrec], 0, sizeof(rec));
        c->nrec++;
    }
    tl_tensor_release(c->recs[dim].t);
    c->recs[dim].t = t;
    c->recs[dim].is_mask = is_mask;
    c->recs[dim].is_scalar = false;
    return 0;
}

/* boolToIndexingTensor: [0] for True, [] for False */
static tl_tensor *bool_index(bool v, tl_error *err)
{
    int64_t n = v ? 1 : 0;
    return tl_tensor_new(tl_backend_cpu(), TL_INT64, 1, &n, err);
}

static int count_specified(const ixitem *it, int n)
{
    int count = 0;
    for (int i = 0; i < n; i++) {
        switch (it[i].kind) {
        case IX_TENSOR:
            if (it[i].t->dtype == TL_UINT8 || it[i].t->dtype == TL_BOOL)
                count += it[i].t->ndim;
            else
                count++;
            break;
        case IX_INT:
        case IX_SLICE:
            count++;
            break;
        default:
            break;
        }
    }
    return count;
}

static bool np_has_advanced(const ixitem *it, int n)
{
    for (int i = 0; i < n; i++) {
        if (it[i].kind == IX_BOOL)
            return true;
        if (it[i].kind == IX_TENSOR && !is_int_scalar_tensor(it[i].t))
            return true;
    }
    return false;
}

/* applySlicing (torch) or NumPy's equivalent. */
static int apply_items(ctx *c, ixitem *it, int n, tl_error *err)
{
    int orig_ndim = c->ndim;
    int specified = count_specified(it, n);
    if (specified > orig_ndim) {
        if (c->np)
            return tl_error_set(err, TL_ERR_INDEX, "too many indices for "
                                "array: array is %d-dimensional, but %d were "
                                "indexed", orig_ndim, specified);
        return tl_error_set(err, TL_ERR_INDEX, "too many indices for tensor "
                            "of dimension %d", orig_ndim);
    }
    bool np_adv = c->np && np_has_advanced(it, n);
    int64_t dim = 0, real_dim = 0;
    bool only_ints = true;
    for (int k = 0; k < n; k++) {
        ixitem *x = &it[k];
        if (x->kind != IX_INT &&
            !(x->kind == IX_TENSOR && is_int_scalar_tensor(x->t)))
            only_ints = false;
        switch (x->kind) {
        case IX_INT:
        int_case:
            if (np_adv) {
                int64_t size = dim < c->ndim ? c->sizes[dim] : 0;
                if (!(size > -1 - x->i && size > x->i))
                    return tl_error_set(err, TL_ERR_INDEX, "index %lld is out "
                                        "of bounds for axis %lld with size "
                                        "%lld", (long long)x->i,
                                        (long long)real_dim, (long long)size);
                if (record(c, (int)dim, NULL, false, err))
                    return -1;
                c->recs[dim].is_scalar = true;
                c->recs[dim].scalar = x->i;
                dim++;
            } else if (geom_select(c, (int)dim, x->i, c->np ? real_dim : k, err)) {
                /* PyTorch names the position in the index tuple (applySlicing's
                 * real_dim = i), counting None and ...; NumPy the axis */
                return -1;
            }
            real_dim++;
            break;
        case IX_SLICE:
            if (geom_slice(c, (int)dim, x, err))
                return -1;
            dim++;
            real_dim++;
            break;
        case IX_ELLIPSIS:
            if (c->np) {
                if (c->ellipsis_seen)
                    return tl_error_set(err, TL_ERR_INDEX, "an index can only "
                                        "have a single ellipsis ('...')");
                c->ellipsis_seen = true;
            }
            dim += orig_ndim - specified;
            break;
        case IX_NONE:
            if (geom_unsqueeze(c, dim, err))
                return -1;
            dim++;
            break;
        case IX_BOOL:
        bool_case: {
            if (geom_unsqueeze(c, dim, err))
                return -1;
            tl_tensor *bt = bool_index(x->i != 0, err);
            if (!bt || record(c, (int)dim, bt, false, err))
                return -1;
            dim++;
            break;
        }
        case IX_TENSOR: {
            tl_tensor *t = x->t;
            if (is_int_scalar_tensor(t)) {
                if (tl_tensor_get_i64(t, 0, &x->i, err))
                    return -1;
                goto int_case;
            }
            if (is_bool_scalar_tensor(t)) {
                int64_t b;
                if (tl_tensor_get_i64(t, 0, &b, err))
                    return -1;
                x->i = b != 0;
                goto bool_case;
            }
            bool mask = t->dtype == TL_BOOL || t->dtype == TL_UINT8;
            if (c->np && mask) {
                /* NumPy: a k-d mask consumes k dims, checked at once */
                for (int j = 0; j < t->ndim; j++) {
                    int64_t have = dim + j < c->ndim ? c->sizes[dim + j] : 0;
                    if (t->sizes[j] != have)
                        return tl_error_set(err, TL_ERR_INDEX, "boolean index "
                                            "did not match indexed array "
                                            "along dimension %lld; dimension "
                                            "is %lld but corresponding "
                                            "boolean dimension is %lld",
                                            (long long)(dim + j),
                                            (long long)have,
                                            (long long)t->sizes[j]);
                }
                if (record(c, (int)dim, tl_tensor_retain(t), true, err))
                    return -1;
                dim += t->ndim;
                real_dim += t->ndim;
                break;
            }
            if (c->np && !tl_dtype_is_integral(t->dtype))
                return tl_index_np_type_error(err);
            if (record(c, (int)dim, tl_tensor_retain(t), mask, err))
                return -1;
            dim++;
            real_dim++;
            break;
        }
        }
    }
    /* (n == 0: a[()] of a 0-d array is its scalar too) */
    c->scalar_result = c->np && only_ints && c->nrec == 0 && c->ndim == 0 &&
                       !c->ellipsis_seen;
    return 0;
}

/* ------------------------------------------------------------------ */
/* advanced indexing                                                   */
/* ------------------------------------------------------------------ */

/* checkIndexTensorTypes + expandTensors: fills c->adv. */
/* The device path: x lives on a device that computes index offsets itself
 * (TL_BACKEND_CAP_DEVICE_INDEX) and every advanced index is an integer
 * tensor, at most TL_BACKEND_MAX_DEVICE_INDICES of them. Masks stay on the
 * host path: their nonzero() needs the count on the host, where PyTorch
 * synchronises too. */
static bool device_path(const ctx *c)
{
    if (c->np || !(tl_backend_caps(tl_tensor_backend(c->x)) & TL_BACKEND_CAP_DEVICE_INDEX))
        return false;
    int n = 0;
    for (int p = 0; p < c->nrec; p++) {
        const rec *r = &c->recs[p];
        if (r->is_scalar || (r->t && r->is_mask))
            return false;
        n += r->t != NULL;
    }
    return n >= 1 && n <= TL_BACKEND_MAX_DEVICE_INDICES;
}

static int expand_indices(ctx *c, tl_error *err)
{
    for (int p = 0; p < c->nrec; p++) {
        const rec *r = &c->recs[p];
        if (!r->t || r->is_scalar)
            continue;
        tl_dtype dt = r->t->dtype;
        if (dt != TL_INT64 && dt != TL_INT32 && dt != TL_UINT8 &&
            dt != TL_BOOL) {
            if (c->np)
                return tl_index_np_type_error(err);
            return tl_error_set(err, TL_ERR_INDEX, "tensors used as indices "
                                "must be long, int, byte or bool tensors");
        }
    }
    int rsize = 0;
    c->dev = device_path(c);
    for (int p = 0; p < c->nrec; p++) {
        const rec *r = &c->recs[p];
        if (c->np)
            rsize = p; /* NumPy records sit at their exact dims */
        if (!r->t && !r->is_scalar) {
            rsize++;
            continue;
        }
        if (r->is_scalar) {
            advidx *a = &c->adv[c->nadv++];
            memset(a, 0, sizeof *a);
            a->dim = rsize++;
            a->ndim = 0;
            a->numel = 1;
            a->vals = tl_xmalloc(sizeof(int64_t));
            a->vals[0] = r->scalar;
            continue;
        }
        const tl_tensor *t = r->t;
        if (r->is_mask) {
            for (int j = 0; j < t->ndim; j++) {
                int src = rsize + j, dd;
                if (!c->np && tl_shape_wrap_dim(src, c->ndim, &dd, err))
                    return -1;
                if (src >= c->ndim || t->sizes[j] != c->sizes[src]) {
                    tl_buf m = {0}, s = {0};
                    fmt_list(&m, t->ndim, t->sizes);
                    fmt_list(&s, c->ndim, c->sizes);
                    tl_error_set(err, TL_ERR_INDEX, "The shape of the mask %s "
                                 "at index %d does not match the shape of the "
                                 "indexed tensor %s at index %d",
                                 tl_buf_str(&m), j, tl_buf_str(&s), src);
                    tl_buf_free(&m);
                    tl_buf_free(&s);
                    return -1;
                }
            }
            if (c->nadv + t->ndim > TL_MAX_DIMS)
                return tl_error_set(err, TL_ERR_LIMIT, "too many indexed "
                                    "dimensions");
            int64_t n, cnt = 0;
            int64_t *m = read_all_i64(t, &n, err);
            if (!m)
                return -1;
            for (int64_t i = 0; i < n; i++)
                cnt += m[i] != 0;
            int k = t->ndim;
            int base = c->nadv;
            for (int j = 0; j < k; j++) {
                advidx *a = &c->adv[c->nadv++];
                memset(a, 0, sizeof *a);
                a->dim = rsize + j;
                a->ndim = 1;
                a->sizes[0] = cnt;
                a->strides[0] = k; /* nonzero(mask).select(1, j) */
                a->numel = cnt;
                a->vals = tl_xmalloc(sizeof(int64_t) * (size_t)(cnt > 0 ? cnt : 1));
            }
            /* nonzero coordinates in row-major order */
            int64_t coord[TL_MAX_DIMS] = {0}, w = 0;
            for (int64_t i = 0; i < n; i++) {
                if (m[i]) {
                    for (int j = 0; j < k; j++)
                        c->adv[base + j].vals[w] = coord[j];
                    w++;
                }
                for (int j = k - 1; j >= 0; j--) {
                    if (++coord[j] < t->sizes[j])
                        break;
                    coord[j] = 0;
                }
            }
            free(m);
            if (k == 0) {
                /* a 0-d mask reached here only through uint8/bool lists */
                rsize += 0;
            }
            rsize += k;
            continue;
        }
        if (c->nadv >= TL_MAX_DIMS)
            return tl_error_set(err, TL_ERR_LIMIT, "too many indexed "
                                "dimensions");
        advidx *a = &c->adv[c->nadv++];
        memset(a, 0, sizeof *a);
        a->dim = rsize++;
        a->ndim = t->ndim;
        memcpy(a->sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
        memcpy(a->strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
        a->is_int32 = t->dtype == TL_INT32;
        if (c->dev) {
            /* kept on x's device (a host index is moved there, as PyTorch
             * does); its values are never read on the host */
            const tl_backend *be = tl_tensor_backend(c->x);
            a->numel = tl_tensor_numel(t);
            a->t = tl_tensor_backend(t) == be
                       ? tl_tensor_retain(r->t)
                       : tl_ops_to(r->t, be, t->dtype, false, TL_MEMFMT_PRESERVE, err);
            if (!a->t)
                return -1;
            memcpy(a->strides, a->t->strides, sizeof(int64_t) * (size_t)t->ndim);
            continue;
        }
        a->vals = read_all_i64(t, &a->numel, err);
        if (!a->vals)
            return -1;
    }
    return 0;
}

/* The plan of an advanced index: result dims and per-element offsets. */
typedef struct plan {
    int nb;                     /* broadcast index shape */
    int64_t bsizes[TL_MAX_DIMS];
    int64_t bnumel;
    int64_t *adv_off;           /* bnumel storage offsets (owned; host path) */
    int64_t *dev_off;           /* the same in device memory (device path) */
    const tl_backend *dev_be;   /* dev_off's backend */
    int rndim;                  /* result shape */
    int64_t rsizes[TL_MAX_DIMS];
    int64_t rnumel;
    /* virtual dims for iteration: outer dims, the B block, inner dims */
    int nvd;
    int64_t vsize[TL_MAX_DIMS + 1];
    int64_t vstride[TL_MAX_DIMS + 1];
    int vblock;                 /* index of the B block in the virtual dims */
} plan;

static int broadcast_error(ctx *c, tl_error *err)
{
    tl_buf b = {0};
    if (c->np) {
        tl_buf_puts(&b, "shape mismatch: indexing arrays could not be "
                        "broadcast together with shapes ");
        for (int j = 0; j < c->nadv; j++) {
            np_shape(&b, c->adv[j].ndim, c->adv[j].sizes);
            tl_buf_putc(&b, ' ');
        }
    } else {
        tl_buf_puts(&b, "shape mismatch: indexing tensors could not be "
                        "broadcast together with shapes ");
        for (int j = 0; j < c->nadv; j++) {
            if (j)
                tl_buf_puts(&b, ", ");
            fmt_list(&b, c->adv[j].ndim, c->adv[j].sizes);
        }
    }
    tl_error_set(err, TL_ERR_INDEX, "%s", tl_buf_str(&b));
    tl_buf_free(&b);
    return -1;
}

/* Are the indexed dims adjacent (x[:, i, j])? Then the broadcast index
 * dims replace them in place; else they go first. */
static bool adv_adjacent(const ctx *c)
{
    for (int j = 1; j < c->nadv; j++)
        if (c->adv[j].dim != c->adv[j - 1].dim + 1)
            return false;
    return true;
}

static int plan_offsets(ctx *c, plan *p, tl_error *err);

/* The plan's shapes (result and B block), without the index bounds checks
 * (plan_offsets makes those: index_put_ reports a shape or dtype mismatch
 * of the value first). */
static int make_plan_shape(ctx *c, plan *p, tl_error *err)
{
    memset(p, 0, sizeof *p);
    /* broadcast */
    p->nb = 0;
    for (int j = 0; j < c->nadv; j++) {
        const advidx *a = &c->adv[j];
        int n = a->ndim > p->nb ? a->ndim : p->nb;
        int64_t out[TL_MAX_DIMS];
        for (int i = n - 1; i >= 0; i--) {
            int off = n - 1 - i;
            int da = p->nb - 1 - off, db = a->ndim - 1 - off;
            int64_t sa = da >= 0 ? p->bsizes[da] : 1;
            int64_t sb = db >= 0 ? a->sizes[db] : 1;
            if (!(sa == sb || sa == 1 || sb == 1))
                return broadcast_error(c, err);
            out[i] = sa == 1 ? sb : sa;
        }
        p->nb = n;
        memcpy(p->bsizes, out, sizeof(int64_t) * (size_t)n);
    }
    if (!tl_shape_numel(p->nb, p->bsizes, &p->bnumel))
        return tl_index_limit_error(err);
    /* adjacency of the indexed dims */
    bool adjacent = adv_adjacent(c);
    /* the AdvancedIndex 0-size check */
    bool indexed_zero = false, repl_zero = false;
    for (int j = 0; j < c->nadv; j++)
        if (c->adv[j].dim < c->ndim && c->sizes[c->adv[j].dim] == 0)
            indexed_zero = true;
    for (int d = 0; d < p->nb; d++)
        if (p->bsizes[d] == 0)
            repl_zero = true;
    if (!c->np && indexed_zero && !repl_zero)
        return tl_error_set(err, TL_ERR_INDEX, "index is out of bounds for "
                            "dimension with size 0");
    /* result shape and virtual dims */
    bool isadv[TL_MAX_DIMS + 1] = {false};
    for (int j = 0; j < c->nadv; j++)
        if (c->adv[j].dim < TL_MAX_DIMS)
            isadv[c->adv[j].dim] = true;
    int first = c->adv[0].dim;
    p->rndim = 0;
    p->nvd = 0;
    int nd = c->ndim;
    if (p->nb + nd - c->nadv > TL_MAX_DIMS)
        return tl_error_set(err, TL_ERR_LIMIT, "tensors with more than %d "
                            "dimensions are not supported", TL_MAX_DIMS);
#define ADD_REAL(d)                                                           \
    do {                                                                      \
        p->rsizes[p->rndim++] = c->sizes[d];                                  \
        p->vsize[p->nvd] = c->sizes[d];                                       \
        p->vstride[p->nvd++] = c->strides[d];                                 \
    } while (0)
#define ADD_BLOCK()                                                           \
    do {                                                                      \
        for (int q = 0; q < p->nb; q++)                                       \
            p->rsizes[p->rndim++] = p->bsizes[q];                             \
        p->vblock = p->nvd;                                                   \
        p->vsize[p->nvd] = p->bnumel;                                         \
        p->vstride[p->nvd++] = 0;                                             \
    } while (0)
    if (adjacent) {
        for (int d = 0; d < first && d < nd; d++)
            ADD_REAL(d);
        ADD_BLOCK();
        for (int d = first + c->nadv; d < nd; d++)
            ADD_REAL(d);
    } else {
        ADD_BLOCK();
        for (int d = 0; d < nd; d++)
            if (!isadv[d])
                ADD_REAL(d);
    }
#undef ADD_REAL
#undef ADD_BLOCK
    if (!tl_shape_numel(p->rndim, p->rsizes, &p->rnumel)) {
        return tl_error_set(err, TL_ERR_LIMIT, "a tensor of more than %lld "
                            "elements is not supported",
                            (long long)TL_MAX_NUMEL);
    }
    return 0;
}

static int make_plan(ctx *c, plan *p, tl_error *err)
{
    if (make_plan_shape(c, p, err))
        return -1;
    return plan_offsets(c, p, err);
}

static void plan_free(plan *p)
{
    free(p->adv_off);
    p->adv_off = NULL;
    if (p->dev_off)
        tl_backend_free(p->dev_be, p->dev_off);
    p->dev_off = NULL;
}

/* n int64 offsets in fresh device memory (*out, the caller's to free
 * with tl_backend_free) from the offsets kernel over ix; the first bad
 * index as tl_backend_index_offsets reports it. Nothing is kept on error. */
static int offsets_on_device(const tl_backend *be, int64_t n, int nidx, const tl_adv_index *ix,
                             int64_t **out, int64_t *bad_pos, int *bad_j, int64_t *bad_value,
                             tl_error *err)
{
    void *mem = NULL;
    if (tl_backend_alloc_uninit(be, sizeof(int64_t) * (size_t)n, &mem, err))
        return -1;
    if (tl_backend_index_offsets(be, mem, nidx, ix, bad_pos, bad_j, bad_value, err)) {
        tl_backend_free(be, mem);
        return -1;
    }
    *out = mem;
    return 0;
}

/* The device path's offsets: one kernel on x's device over the B block,
 * each index broadcast to it by strides (0 along broadcast dims). */
static int plan_offsets_dev(ctx *c, plan *p, tl_error *err)
{
    const tl_backend *be = tl_tensor_backend(c->x);
    tl_adv_index ix[TL_BACKEND_MAX_DEVICE_INDICES];
    int64_t bst[TL_BACKEND_MAX_DEVICE_INDICES][TL_MAX_DIMS];
    for (int j = 0; j < c->nadv; j++) {
        const advidx *a = &c->adv[j];
        for (int q = 0; q < p->nb; q++) {
            int da = a->ndim - (p->nb - q);
            bst[j][q] = da < 0 || a->sizes[da] == 1 ? 0 : a->strides[da];
        }
        int d = a->dim;
        ix[j].idx = (tl_strided){tl_tensor_addr(a->t), a->t->dtype, p->nb, p->bsizes, bst[j]};
        ix[j].size = d < c->ndim ? c->sizes[d] : 0;
        ix[j].stride = d < c->ndim ? c->strides[d] : 0;
        ix[j].no_wrap = false;
        ix[j].coords = false;
    }
    int64_t bad_pos = -1, v = 0;
    int j = 0;
    if (offsets_on_device(be, p->bnumel, c->nadv, ix, &p->dev_off, &bad_pos, &j, &v, err))
        return -1;
    p->dev_be = be;
    if (bad_pos >= 0)
        return tl_error_set(err, TL_ERR_INDEX, "index %lld is out of bounds for dimension "
                            "%d with size %lld", (long long)v, j, (long long)ix[j].size);
    return 0;
}

/* per-element offsets of the B block, with bounds checks */
static int plan_offsets(ctx *c, plan *p, tl_error *err)
{
    if (p->rnumel == 0)
        return 0;
    if (p->bnumel > MAX_INDEX_ELEMS)
        return tl_index_limit_error(err);
    if (c->dev)
        return plan_offsets_dev(c, p, err);
    int64_t bst[TL_MAX_DIMS][TL_MAX_DIMS]; /* [j][q] element strides */
    for (int j = 0; j < c->nadv; j++) {
        const advidx *a = &c->adv[j];
        int64_t run = 1;
        for (int q = p->nb - 1; q >= 0; q--) {
            int da = a->ndim - (p->nb - q);
            if (da < 0 || a->sizes[da] == 1) {
                bst[j][q] = 0;
            } else {
                bst[j][q] = run;
            }
            if (da >= 0)
                run *= a->sizes[da];
        }
    }
    if (c->nadv == 1 && p->nb == 1 && bst[0][0] == 1 && c->adv[0].numel == p->bnumel) {
        /* one 1-d index (x[idx]): the same checks, one tight loop, turning
         * the index's own copy into the offsets in place (no second buffer
         * of 8 bytes an element to fault in) */
        advidx *a = &c->adv[0];
        int d = a->dim;
        int64_t size = d < c->ndim ? c->sizes[d] : 0, st = c->strides[d];
        p->adv_off = a->vals;
        a->vals = NULL;
        for (int64_t e = 0; e < p->bnumel; e++) {
            int64_t v = p->adv_off[e];
            if (v < -size || v >= size)
                return c->np ? tl_error_set(err, TL_ERR_INDEX, "index %lld is out of bounds "
                                            "for axis %d with size %lld", (long long)v, d,
                                            (long long)size)
                             : tl_error_set(err, TL_ERR_INDEX, "index %lld is out of bounds "
                                            "for dimension %d with size %lld", (long long)v, 0,
                                            (long long)size);
            p->adv_off[e] = (v < 0 ? v + size : v) * st;
        }
        return 0;
    }
    /* per-element offsets of the B block, with bounds checks */
    p->adv_off = tl_xmalloc(sizeof(int64_t) * (size_t)(p->bnumel > 0 ? p->bnumel : 1));
    int64_t bi[TL_MAX_DIMS] = {0};
    int64_t pos[TL_MAX_DIMS] = {0};
    for (int64_t e = 0; e < p->bnumel; e++) {
        int64_t off = 0;
        for (int j = 0; j < c->nadv; j++) {
            const advidx *a = &c->adv[j];
            int64_t v = a->vals[pos[j]];
            int d = a->dim;
            int64_t size = d < c->ndim ? c->sizes[d] : 0;
            if (v < -size || v >= size) {
                if (c->np)
                    return tl_error_set(err, TL_ERR_INDEX, "index %lld is out "
                                        "of bounds for axis %d with size "
                                        "%lld", (long long)v, d,
                                        (long long)size);
                return tl_error_set(err, TL_ERR_INDEX, "index %lld is out of "
                                    "bounds for dimension %d with size %lld",
                                    (long long)v, j, (long long)size);
            }
            if (v < 0)
                v += size;
            off += v * c->strides[d];
        }
        p->adv_off[e] = off;
        for (int q = p->nb - 1; q >= 0; q--) {
            if (++bi[q] < p->bsizes[q]) {
                for (int j = 0; j < c->nadv; j++)
                    pos[j] += bst[j][q];
                break;
            }
            for (int j = 0; j < c->nadv; j++)
                pos[j] -= (bi[q] - 1) * bst[j][q];
            bi[q] = 0;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* the result layout (torch)                                           */
/* ------------------------------------------------------------------ */

/* One TensorIterator operand, already of the iteration rank. */
typedef struct itop {
    int64_t sizes[TL_MAX_DIMS];
    int64_t strides[TL_MAX_DIMS];
} itop;

/* The strides TensorIterator gives its allocated output for inputs ops[]
 * over `shape` (see tl_shape_iter_strides). */
static void iter_layout(int nd, const int64_t *shape, int nops, const itop *ops,
                        int64_t *out)
{
    const int64_t **sz = tl_xmalloc(sizeof *sz * 2 * (size_t)nops);
    const int64_t **st = sz + nops;
    bool same_shape = true;
    for (int k = 0; k < nops; k++) {
        sz[k] = ops[k].sizes;
        st[k] = ops[k].strides;
        same_shape = same_shape && tl_shape_equal(nd, ops[k].sizes, nd, shape);
    }
    tl_shape_iter_strides(nd, shape, nops, sz, st, same_shape, out);
    free(sz);
}

/* The strides NumPy gives an advanced-indexing result (mapping.c: the
 * result is allocated with the broadcast index dims outermost, in C order,
 * and the subspace, the dims that are not indexed, inside them in the
 * source's memory order: sorted by |stride|, descending, ties in dim order
 * (PyArray_CreateSortedStridePerm); then the index dims are moved to their
 * place when the indexed dims were adjacent). Elements. */
static void np_adv_layout(const ctx *c, const plan *p, int64_t *out)
{
    int nd = p->rndim, nb = p->nb;
    bool adjacent = adv_adjacent(c);
    bool isadv[TL_MAX_DIMS] = {false};
    for (int j = 0; j < c->nadv; j++)
        if (c->adv[j].dim < TL_MAX_DIMS)
            isadv[c->adv[j].dim] = true;
    /* the subspace's result dims and their source strides */
    int sub[TL_MAX_DIMS], nsub = 0;
    int64_t sst[TL_MAX_DIMS];
    int before = adjacent ? c->adv[0].dim : 0;
    for (int d = 0, k = 0; d < c->ndim; d++) {
        if (isadv[d])
            continue;
        int pos = k < before ? k : k + nb;
        k++;
        /* insertion by |stride|, descending; stable */
        int64_t a = c->strides[d] < 0 ? -c->strides[d] : c->strides[d];
        int q = nsub++;
        while (q > 0 && (sst[q - 1] < 0 ? -sst[q - 1] : sst[q - 1]) < a) {
            sub[q] = sub[q - 1];
            sst[q] = sst[q - 1];
            q--;
        }
        sub[q] = pos;
        sst[q] = c->strides[d];
    }
    TL_ASSERT(nsub + nb == nd);
    int64_t acc = 1;
    for (int q = nsub - 1; q >= 0; q--) {
        out[sub[q]] = acc;
        acc *= p->rsizes[sub[q]];
    }
    for (int q = nb - 1; q >= 0; q--) {
        out[before + q] = acc;
        acc *= p->rsizes[before + q];
    }
}

/* The strides of x[index] in PyTorch: at::index builds a TensorIterator
 * over the sliced tensor restrided by AdvancedIndex (indexed dims moved to
 * the front when not adjacent, replaced by the broadcast index shape with
 * stride 0) and the index tensors (broadcast by expand_outplace, int32
 * converted to long, reshaped to the iteration rank). The output takes
 * the iterator's layout, so x[True] of a transposed x stays transposed. */
static void adv_layout(const ctx *c, const plan *p, int64_t *out)
{
    int nd = p->rndim, nb = p->nb;
    bool adjacent = adv_adjacent(c);
    /* the sliced dims that are not indexed, in (transposed) order */
    int rest[TL_MAX_DIMS], nrest = 0, before;
    bool isadv[TL_MAX_DIMS] = {false};
    for (int j = 0; j < c->nadv; j++)
        if (c->adv[j].dim < TL_MAX_DIMS)
            isadv[c->adv[j].dim] = true;
    for (int d = 0; d < c->ndim; d++)
        if (!isadv[d])
            rest[nrest++] = d;
    before = adjacent ? c->adv[0].dim : 0;
    TL_ASSERT(before + nb + (nrest - before) == nd);
    itop *ops = tl_xmalloc(sizeof(itop) * (size_t)(c->nadv + 1));
    /* restride_src */
    for (int i = 0; i < nd; i++) {
        ops[0].sizes[i] = p->rsizes[i];
        if (i < before)
            ops[0].strides[i] = c->strides[rest[i]];
        else if (i < before + nb)
            ops[0].strides[i] = 0;
        else
            ops[0].strides[i] = c->strides[rest[i - nb]];
    }
    for (int j = 0; j < c->nadv; j++) {
        const advidx *a = &c->adv[j];
        int64_t est[TL_MAX_DIMS];
        bool same = tl_shape_equal(a->ndim, a->sizes, nb, p->bsizes);
        if (c->nadv == 1 || same) {
            memcpy(est, a->strides, sizeof(int64_t) * (size_t)nb);
        } else { /* expand(bsizes): inferExpandGeometry */
            for (int i = nb - 1; i >= 0; i--) {
                int da = a->ndim - (nb - i);
                int64_t size = da >= 0 ? a->sizes[da] : 1;
                int64_t st = da >= 0 ? a->strides[da]
                                     : (i + 1 < nb ? p->bsizes[i + 1] * est[i + 1]
                                                   : 1);
                if (size != p->bsizes[i])
                    st = 0;
                est[i] = st;
            }
        }
        if (a->is_int32) { /* .to(kLong): preserve_format */
            tl_tensor g;
            memset(&g, 0, sizeof g);
            g.ndim = nb;
            memcpy(g.sizes, p->bsizes, sizeof(int64_t) * (size_t)nb);
            memcpy(g.strides, est, sizeof(int64_t) * (size_t)nb);
            tl_tensor_preserve_strides(&g, est);
        }
        /* reshape_indexer: [1] * before + bshape + [1] * after */
        itop *o = &ops[j + 1];
        for (int i = 0; i < nd; i++)
            o->sizes[i] = i >= before && i < before + nb ? p->bsizes[i - before] : 1;
        bool ok = tl_shape_compute_stride(nb, p->bsizes, est, nd, o->sizes,
                                         o->strides);
        TL_ASSERT(ok); /* inserting size-1 dims always has a view */
    }
    iter_layout(nd, p->rsizes, c->nadv + 1, ops, out);
    free(ops);
}

/* Walk the result in row-major order, emitting storage offsets in chunks.
 * fn(chunk, n, start, arg) is called per chunk. */
typedef int (*chunk_fn)(const int64_t *offs, int64_t n, int64_t start,
                        void *arg, tl_error *err);

static int walk_offsets(const ctx *c, const plan *p, chunk_fn fn, void *arg,
                        tl_error *err)
{
    if (p->rnumel == 0)
        return 0;
    int64_t *buf = tl_xmalloc(sizeof(int64_t) * GATHER_CHUNK);
    int64_t idx[TL_MAX_DIMS + 1] = {0};
    int64_t fill = 0, start = 0;
    int rc = 0;
    if (p->nvd == 1 && p->vblock == 0) {
        /* the result is the index block alone (x[idx] of a 1-d x) */
        for (int64_t e0 = 0; e0 < p->rnumel && !rc; e0 += GATHER_CHUNK) {
            int64_t n = p->rnumel - e0 < GATHER_CHUNK ? p->rnumel - e0 : GATHER_CHUNK;
            if (c->offset == 0) { /* the offsets as they are: no copy */
                rc = fn(p->adv_off + e0, n, e0, arg, err);
            } else {
                for (int64_t i = 0; i < n; i++)
                    buf[i] = c->offset + p->adv_off[e0 + i];
                rc = fn(buf, n, e0, arg, err);
            }
            if (rc == 0)
                rc = tl_context_deadline_check(err);
        }
        free(buf);
        return rc;
    }
    for (int64_t e = 0; e < p->rnumel; e++) {
        int64_t off = c->offset;
        for (int v = 0; v < p->nvd; v++)
            off += v == p->vblock ? p->adv_off[idx[v]]
                                  : idx[v] * p->vstride[v];
        buf[fill++] = off;
        if (fill == GATHER_CHUNK || e == p->rnumel - 1) {
            rc = fn(buf, fill, start, arg, err);
            if (rc == 0)
                rc = tl_context_deadline_check(err);
            if (rc)
                break;
            start += fill;
            fill = 0;
        }
        for (int v = p->nvd - 1; v >= 0; v--) {
            if (++idx[v] < p->vsize[v])
                break;
            idx[v] = 0;
        }
    }
    free(buf);
    return rc;
}

typedef struct gather_arg {
    const tl_tensor *src;
    tl_tensor *dst;
} gather_arg;

static int gather_chunk(const int64_t *offs, int64_t n, int64_t start,
                        void *arg, tl_error *err)
{
    gather_arg *g = arg;
    const tl_backend *be = tl_tensor_backend(g->src);
    size_t isz = tl_dtype_size(g->src->dtype);
    int64_t one = 1;
    int64_t nelem = (int64_t)(g->src->storage->nbytes / isz);
    int64_t dsz = n;
    tl_strided s = {g->src->storage->data, g->src->dtype, 1, &nelem, &one};
    tl_strided d = {(char *)tl_tensor_addr(g->dst) + (size_t)start * isz,
                    g->dst->dtype, 1, &dsz, &one};
    return tl_backend_gather(be, &d, &s, 0, offs, n, err);
}

typedef struct scatter_arg {
    tl_tensor *dst;           /* the indexed tensor (its whole storage) */
    const tl_tensor *vals;    /* the values, contiguous, dst's dtype */
    bool accumulate;          /* index_put_(accumulate=True): add */
} scatter_arg;

/* dst's storage[offs[i]] (+)= vals[start + i]: one scatter kernel on the
 * device per chunk, duplicates resolved in order (the last write wins, or
 * the sums accumulate in order), as the CPU does. */
static int scatter_chunk(const int64_t *offs, int64_t n, int64_t start,
                         void *arg, tl_error *err)
{
    scatter_arg *s = arg;
    tl_tensor *x = s->dst;
    size_t isz = tl_dtype_size(x->dtype);
    int64_t one = 1;
    int64_t nelem = (int64_t)(x->storage->nbytes / isz);
    int64_t vsz = n;
    tl_strided d = {x->storage->data, x->dtype, 1, &nelem, &one};
    tl_strided v = {(char *)tl_tensor_addr(s->vals) + (size_t)start * isz,
                    s->vals->dtype, 1, &vsz, &one};
    return tl_backend_scatter(tl_tensor_backend(x),
                              s->accumulate ? TL_SCATTER_ADD : TL_SCATTER_SET,
                              &d, &v, 0, offs, n, err);
}

/* The device path: the result (or the values) over the plan's virtual
 * dims, x's storage from the sliced offset with the B block's stride
 * replaced by the device offsets. One kernel, no chunks. */
static void virtual_dims(const ctx *c, const plan *p, const tl_tensor *t, bool as_x,
                         int64_t *cst, tl_strided *out)
{
    int64_t run = 1;
    for (int v = p->nvd - 1; v >= 0; v--) {
        cst[v] = run;
        run *= p->vsize[v];
    }
    if (as_x) {
        size_t isz = tl_dtype_size(t->dtype);
        *out = (tl_strided){(char *)t->storage->data + (size_t)c->offset * isz, t->dtype,
                            p->nvd, p->vsize, p->vstride};
    } else {
        *out = (tl_strided){tl_tensor_addr(t), t->dtype, p->nvd, p->vsize, cst};
    }
}

static int dev_gather(const ctx *c, const plan *p, tl_tensor *r, tl_error *err)
{
    int64_t cst[TL_MAX_DIMS + 1], unused[TL_MAX_DIMS + 1];
    tl_strided d, s;
    virtual_dims(c, p, r, false, cst, &d);
    virtual_dims(c, p, c->x, true, unused, &s);
    return tl_backend_index_gather(tl_tensor_backend(c->x), &d, &s, p->vblock, p->dev_off,
                                   p->bnumel, err);
}

static int dev_scatter(const ctx *c, const plan *p, const scatter_arg *a, tl_error *err)
{
    int64_t cst[TL_MAX_DIMS + 1], unused[TL_MAX_DIMS + 1];
    tl_strided d, v;
    virtual_dims(c, p, a->dst, true, unused, &d);
    virtual_dims(c, p, a->vals, false, cst, &v);
    return tl_backend_index_scatter(tl_tensor_backend(a->dst),
                                    a->accumulate ? TL_SCATTER_ADD : TL_SCATTER_SET, &d, &v,
                                    p->vblock, p->dev_off, p->bnumel, err);
}

/* ------------------------------------------------------------------ */
/* the sliced tensor                                                   */
/* ------------------------------------------------------------------ */

/* A ctx is 71 KiB: malloc'd per subscript it came from the heap's top
 * and went back there, so every x[i] paid for fastbin consolidation, a
 * heap trim and fresh pages (a fifth of lab06's instructions). One per
 * thread is kept on a free list (nested subscripts malloc their own). */
static _Thread_local tl_freelist ctxs;

static ctx *ctx_new(void)
{
    ctx *c = tl_freelist_pop(&ctxs);
    return c ? c : tl_xmalloc(sizeof *c);
}

static void ctx_delete(ctx *c)
{
    ctx_free(c);
    tl_freelist_push(&ctxs, c, 1);
}

static void ctx_init(ctx *c, tl_tensor *x, bool np)
{
    /* recs and adv (66 KiB) are zeroed one entry at a time as they are
     * appended (record, expand_indices); only the header here */
    memset(c, 0, offsetof(ctx, recs));
    c->nadv = 0;
    c->dev = false;
    c->np = np;
    c->x = x;
    c->ndim = x->ndim;
    memcpy(c->sizes, x->sizes, sizeof(int64_t) * (size_t)x->ndim);
    memcpy(c->strides, x->strides, sizeof(int64_t) * (size_t)x->ndim);
    c->offset = x->offset;
    c->same = true;
}

static tl_tensor *sliced_view(const ctx *c)
{
    return tl_tensor_view(c->x, c->ndim, c->sizes, c->strides, c->offset);
}

/* Simple top-level forms PyTorch handles before the tuple path. */
static int prepare(ctx *c, const tl_index *ix, tl_error *err)
{
    if (!c->np && ix->single && ix->n == 1 &&
        (ix->items[0].kind == IX_INT || ix->items[0].kind == IX_SLICE)) {
        /* no "too many indices" check on these fast paths */
        if (ix->items[0].kind == IX_INT)
            return geom_select(c, 0, ix->items[0].i, 0, err);
        return geom_slice(c, 0, &ix->items[0], err);
    }
    return apply_items(c, ix->items, ix->n, err);
}

/* x[idx] for a 1-d host tensor x and a 1-d contiguous int64 host index:
 * one pass over the index (bounds check, wrap, copy), as PyTorch's
 * index kernel does, with no copy of the index and no offset array (the
 * general path below holds two 8-byte-an-element temporaries). 1 when it
 * applied (*out set, or -1 with err), 0 when the general path must. */
static int gather_1d(tl_tensor *x, const tl_index *ix, tl_tensor **out, tl_error *err)
{
    if (ix->n != 1 || ix->items[0].kind != IX_TENSOR || x->ndim != 1)
        return 0;
    const tl_tensor *t = ix->items[0].t;
    const tl_backend *cpu = tl_backend_cpu();
    if (!t || t->dtype != TL_INT64 || t->ndim != 1 || !tl_tensor_is_contiguous(t) ||
        tl_tensor_backend(t) != cpu || tl_tensor_backend(x) != cpu || t->sizes[0] <= 0 ||
        x->sizes[0] <= 0 || /* size 0: PyTorch words that error differently */
        t->sizes[0] > MAX_INDEX_ELEMS)
        return 0;
    int64_t n = t->sizes[0], size = x->sizes[0], st = x->strides[0], one = 1;
    const int64_t *iv = (const int64_t *)tl_tensor_addr(t);
    size_t isz = tl_dtype_size(x->dtype);
    tl_tensor *r = tl_tensor_new_for_write(cpu, x->dtype, 1, &n, &one, err);
    if (!r)
        return -1;
    const char *src = (const char *)x->storage->data + (size_t)x->offset * isz;
    char *dst = tl_tensor_addr(r);
    for (int64_t k0 = 0; k0 < n; k0 += GATHER_CHUNK) {
        int64_t k1 = n - k0 < GATHER_CHUNK ? n : k0 + GATHER_CHUNK;
        for (int64_t k = k0; k < k1; k++) {
            int64_t v = iv[k];
            if (v < -size || v >= size) {
                tl_tensor_release(r);
                tl_error_set(err, TL_ERR_INDEX, "index %lld is out of bounds for dimension "
                             "0 with size %lld", (long long)v, (long long)size);
                return -1;
            }
            v += v < 0 ? size : 0;
            const char *e = src + (ptrdiff_t)(v * st) * (ptrdiff_t)isz;
            switch (isz) {
            case 1: dst[k] = *e; break;
            case 2: memcpy(dst + 2 * k, e, 2); break;
            case 4: memcpy(dst + 4 * k, e, 4); break;
            default: memcpy(dst + 8 * k, e, 8); break;
            }
        }
        if (tl_context_deadline_check(err) < 0) {
            tl_tensor_release(r);
            return -1;
        }
    }
    r->requires_grad = x->requires_grad;
    r->is_leaf = !x->requires_grad;
    *out = r;
    return 1;
}

/* at::index's check_indices_on_cpu_or_selfdevice: x[idx] takes index
 * tensors on the CPU or on x's device (a CPU x with a cuda index raises;
 * assignment moves the indices instead, as make_info does) */
static int index_device_error(const ctx *c, tl_error *err)
{
    tl_device dev = tl_tensor_device(c->x);
    for (int p = 0; p < c->nrec; p++) {
        const tl_tensor *t = c->recs[p].t;
        if (!t)
            continue;
        tl_device d = tl_tensor_device(t);
        if (d.kind != TL_DEV_CPU && (d.kind != dev.kind || d.index != dev.index)) {
            char name[32];
            tl_device_str(dev, name, sizeof name);
            return tl_error_set(err, TL_ERR_RUNTIME, "indices should be either on cpu or on "
                                "the same device as the indexed tensor (%s)", name);
        }
    }
    return 0;
}

int tl_index_get(tl_tensor *x, bool np, const tl_index *ix, tl_tensor **out,
                 bool *scalar, tl_error *err)
{
    if (!np) {
        int g = gather_1d(x, ix, out, err);
        if (g) {
            *scalar = false;
            return g < 0 ? -1 : 0;
        }
    }
    ctx *c = ctx_new();
    ctx_init(c, x, np);
    int rc = -1;
    *out = NULL;
    *scalar = false;
    plan p;
    memset(&p, 0, sizeof p);
    if (prepare(c, ix, err))
        goto out;
    if (c->nrec == 0) {
        /* numpy scalar (a[i, j] with only integers): the 0-d view */
        *scalar = c->scalar_result;
        *out = sliced_view(c);
        rc = 0;
        goto out;
    }
    if (!np && c->nrec > c->ndim) {
        tl_error_set(err, TL_ERR_INDEX, "too many indices for tensor of "
                     "dimension %d (got %d)", c->ndim, c->nrec);
        goto out;
    }
    if (!np && index_device_error(c, err))
        goto out;
    if (expand_indices(c, err) || make_plan(c, &p, err))
        goto out;
    /* every element is gathered: no need to zero the result first */
    int64_t rst[TL_MAX_DIMS];
    tl_shape_contiguous_strides(p.rndim, p.rsizes, rst);
    tl_tensor *r = tl_tensor_new_for_write(tl_tensor_backend(x), x->dtype, p.rndim,
                                           p.rsizes, rst, err);
    if (!r)
        goto out;
    r->requires_grad = x->requires_grad;
    r->is_leaf = !x->requires_grad;
    if (c->dev ? dev_gather(c, &p, r, err) : walk_offsets(c, &p, gather_chunk, &(gather_arg){x, r}, err)) {
        tl_tensor_release(r);
        goto out;
    }
    {
        /* gathered row-major; give it PyTorch's (NumPy's) layout when that
         * differs */
        int64_t st[TL_MAX_DIMS];
        if (np)
            np_adv_layout(c, &p, st);
        else
            adv_layout(c, &p, st);
        if (!tl_shape_equal(p.rndim, st, r->ndim, r->strides)) {
            tl_tensor *r2 = tl_tensor_new_strided(tl_tensor_backend(x), x->dtype,
                                                  p.rndim, p.rsizes, st, err);
            tl_strided d = tl_tensor_strided(r2 ? r2 : r),
                       s = tl_tensor_strided(r);
            if (!r2 || (p.rnumel > 0 &&
                        tl_backend_copy_strided(tl_tensor_backend(x), &d, &s, err) < 0)) {
                if (r2)
                    tl_tensor_release(r2);
                tl_tensor_release(r);
                goto out;
            }
            r2->requires_grad = r->requires_grad;
            r2->is_leaf = r->is_leaf;
            tl_tensor_release(r);
            r = r2;
        }
    }
    *out = r;
    rc = 0;
out:
    plan_free(&p);
    ctx_delete(c);
    return rc;
}

/* ------------------------------------------------------------------ */
/* assignment                                                          */
/* ------------------------------------------------------------------ */

/* the scalar held by a one-element tensor */
static int tensor_scalar(const tl_tensor *t, tl_scalar *sc, tl_error *err)
{
    memset(sc, 0, sizeof *sc);
    if (tl_dtype_is_floating(t->dtype)) {
        sc->is_float = true;
        return tl_tensor_get_f64(t, 0, &sc->f, err);
    }
    if (tl_tensor_get_i64(t, 0, &sc->i, err))
        return -1;
    sc->f = (double)sc->i;
    return 0;
}

/* slicePrefix1sSize: drop leading size-1 dims (a view) */
static tl_tensor *strip_leading_ones(tl_tensor *v)
{
    int k = 0;
    while (k < v->ndim && v->sizes[k] == 1)
        k++;
    return tl_tensor_view(v, v->ndim - k, v->sizes + k, v->strides + k,
                          v->offset);
}

/* A header to write through: for ndarrays a private version counter, so
 * NumPy writes never bump the tensor's _version. */
static tl_tensor *write_header(const ctx *c)
{
    tl_tensor *d = sliced_view(c);
    if (c->np) {
        tl_version_release(d->version);
        d->version = tl_version_new();
        d->requires_grad = false;
        d->is_leaf = true;
        d->is_view_of_grad_leaf = false;
    }
    return d;
}

/* copy_to(dst, src) of TensorIndexing.h */
static int copy_to(tl_tensor *dst, tl_tensor *vt, const tl_scalar *sc,
                   bool is_scalar, tl_error *err)
{
    if (is_scalar)
        return tl_ops_fill_(dst, *sc, err);
    if (tl_shape_equal(dst->ndim, dst->sizes, vt->ndim, vt->sizes))
        return tl_ops_copy_(dst, vt, err);
    if (vt->ndim == 0 && tl_tensor_device(vt).kind == TL_DEV_CPU) {
        tl_scalar s;
        if (tensor_scalar(vt, &s, err))
            return -1;
        return tl_ops_fill_(dst, s, err);
    }
    tl_tensor *sv = strip_leading_ones(vt);
    tl_tensor *e = tl_view_expand(sv, dst->ndim, dst->sizes, err);
    tl_tensor_release(sv);
    if (!e)
        return -1;
    int rc = tl_ops_copy_(dst, e, err);
    tl_tensor_release(e);
    return rc;
}

/* basic assignment: the single-index fast paths and the tuple path */
static int set_basic(ctx *c, tl_tensor *vt, const tl_scalar *sc,
                     bool is_scalar, tl_error *err)
{
    tl_tensor *dst = c->np ? write_header(c)
                           : c->same ? tl_tensor_retain(c->x) : sliced_view(c);
    int rc;
    if (c->np && vt) {
        /* NumPy broadcasts the value to the target */
        tl_tensor *sv = strip_leading_ones(vt);
        tl_tensor *e = tl_view_expand(sv, dst->ndim, dst->sizes, err);
        tl_tensor_release(sv);
        if (!e) {
            tl_buf a = {0}, b = {0};
            np_shape(&a, vt->ndim, vt->sizes);
            np_shape(&b, dst->ndim, dst->sizes);
            tl_error_clear(err);
            tl_error_set(err, TL_ERR_VALUE, "could not broadcast input array "
                         "from shape %s into shape %s", tl_buf_str(&a),
                         tl_buf_str(&b));
            tl_buf_free(&a);
            tl_buf_free(&b);
        }
        rc = e ? tl_ops_copy_(dst, e, err) : -1;
        tl_tensor_release(e);
    } else {
        rc = copy_to(dst, vt, sc, is_scalar, err);
    }
    tl_tensor_release(dst);
    return rc;
}

/* at::get_overlap_status(a, b) is FULL or PARTIAL: a and b are the same
 * tensor, or both non-overlapping and dense on one storage with
 * intersecting byte ranges (TOO_HARD layouts are not checked) */
static bool overlaps(const tl_tensor *a, const tl_tensor *b)
{
    if (a == b)
        return true;
    if (tl_tensor_numel(a) == 0 || tl_tensor_numel(b) == 0)
        return false;
    if (!tl_tensor_is_non_overlapping_and_dense(a) ||
        !tl_tensor_is_non_overlapping_and_dense(b))
        return false;
    if (!tl_storage_same(a->storage, b->storage))
        return false;
    int64_t ia = (int64_t)tl_dtype_size(a->dtype), ib = (int64_t)tl_dtype_size(b->dtype);
    int64_t a0 = a->offset * ia, a1 = a0 + tl_tensor_numel(a) * ia;
    int64_t b0 = b->offset * ib, b1 = b0 + tl_tensor_numel(b) * ib;
    return a0 < b1 && b0 < a1;
}

static bool single_mask(const ctx *c)
{
    int masks = 0, others = 0;
    for (int i = 0; i < c->nrec; i++) {
        if (c->recs[i].is_scalar)
            others++;
        else if (c->recs[i].t && c->recs[i].is_mask)
            masks++;
        else if (c->recs[i].t)
            others++;
    }
    return masks == 1 && others == 0;
}

static int set_advanced(ctx *c, tl_tensor *vt, const tl_scalar *sc,
                        bool is_scalar, bool strip, bool accumulate,
                        tl_error *err)
{
    tl_tensor *x = c->x;
    plan p;
    memset(&p, 0, sizeof p);
    int rc = -1;
    tl_tensor *src = NULL, *vs = NULL;
    if (!c->np) {
        /* VariableType's check_inplace on the sliced tensor */
        tl_tensor *probe = c->same ? tl_tensor_retain(x) : sliced_view(c);
        rc = tl_view_check_inplace(probe, err);
        tl_tensor_release(probe);
        if (rc)
            return -1;
        rc = -1;
        if (c->nrec > c->ndim)
            return tl_error_set(err, TL_ERR_INDEX, "too many indices for "
                                "tensor of dimension %d (got %d)", c->ndim,
                                c->nrec);
    }
    /* the value after slicePrefix1sSize */
    tl_scalar fillv = {0};
    bool fill = is_scalar;
    if (is_scalar)
        fillv = *sc;
    if (vt) {
        vs = strip ? strip_leading_ones(vt) : tl_tensor_retain(vt);
        if (!c->np && !accumulate && tl_tensor_numel(vs) == 1 &&
            tl_tensor_device(vs).kind == TL_DEV_CPU && single_mask(c)) {
            /* canDispatchToMaskedFill: masked_fill_ with value.item() */
            if (tensor_scalar(vs, &fillv, err))
                goto out;
            fill = true;
        }
    }
    if (!fill && !c->np && vt) {
        /* at::assert_no_overlap(self, value) of _index_put_impl_ */
        tl_tensor *self = c->same ? tl_tensor_retain(x) : sliced_view(c);
        bool ov = overlaps(self, vt);
        tl_tensor_release(self);
        if (ov) {
            tl_error_set(err, TL_ERR_RUNTIME, "unsupported operation: some elements of the "
                         "input tensor and the written-to tensor refer to a single memory "
                         "location. Please clone() the tensor before performing the "
                         "operation.");
            goto out;
        }
    }
    if (expand_indices(c, err) || make_plan_shape(c, &p, err))
        goto out;
    if (!fill) {
        /* make_index_put_iterator checks */
        bool ok = vs->ndim <= p.rndim;
        for (int i = 0; ok && i < vs->ndim; i++) {
            int64_t a = vs->sizes[vs->ndim - 1 - i];
            int64_t b = p.rsizes[p.rndim - 1 - i];
            if (a != b && a != 1)
                ok = false;
        }
        if (!ok) {
            tl_buf a = {0}, b = {0};
            fmt_list(&a, vs->ndim, vs->sizes);
            fmt_list(&b, p.rndim, p.rsizes);
            if (c->np)
                tl_error_set(err, TL_ERR_VALUE, "shape mismatch: value array "
                             "of shape %s could not be broadcast to indexing "
                             "result of shape %s", tl_buf_str(&a),
                             tl_buf_str(&b));
            else
                tl_error_set(err, TL_ERR_RUNTIME, "shape mismatch: value "
                             "tensor of shape %s cannot be broadcast to "
                             "indexing result of shape %s", tl_buf_str(&a),
                             tl_buf_str(&b));
            tl_buf_free(&a);
            tl_buf_free(&b);
            goto out;
        }
        if (!c->np && vs->dtype != x->dtype) {
            tl_error_set(err, TL_ERR_RUNTIME, "Index put requires the source "
                         "and destination dtypes match, got %s for the "
                         "destination and %s for the source.",
                         tl_dtype_scalar_name(x->dtype),
                         tl_dtype_scalar_name(vs->dtype));
            goto out;
        }
    }
    /* the index bounds, checked by the kernel after those */
    if (plan_offsets(c, &p, err))
        goto out;
    /* materialise the values: shape R, x's dtype, contiguous, on x's
     * backend */
    src = tl_tensor_new(tl_tensor_backend(x), x->dtype, p.rndim, p.rsizes, err);
    if (!src)
        goto out;
    if (fill) {
        if (tl_ops_fill_(src, fillv, err))
            goto out;
    } else {
        tl_tensor *e = tl_view_expand(vs, p.rndim, p.rsizes, err);
        if (!e)
            goto out;
        rc = tl_ops_copy_(src, e, err);
        tl_tensor_release(e);
        if (rc)
            goto out;
        rc = -1;
    }
    if (p.rnumel > 0) {
        scatter_arg s = {x, src, accumulate};
        if (c->dev ? dev_scatter(c, &p, &s, err) : walk_offsets(c, &p, scatter_chunk, &s, err))
            goto out;
    }
    if (!c->np)
        tl_tensor_bump_version(x);
    rc = 0;
out:
    plan_free(&p);
    tl_tensor_release(src);
    tl_tensor_release(vs);
    return rc;
}

int tl_index_set(tl_tensor *x, bool np, const tl_index *ix, tl_tensor *vt,
                 const tl_scalar *v, tl_error *err)
{
    tl_scalar sc = {0};
    bool is_scalar = vt == NULL;
    if (is_scalar)
        sc = *v;
    bool top_bool = !np && ix->single && ix->n == 1 &&
                    ix->items[0].kind == IX_BOOL;
    if (top_bool && !ix->items[0].i)
        return 0; /* x[False] = v does nothing */
    ctx *c = ctx_new();
    ctx_init(c, x, np);
    int rc = -1;
    if (top_bool) {
        /* x[True] = v: copy_to(x.unsqueeze(0), v) */
        if (geom_unsqueeze(c, 0, err) == 0)
            rc = set_basic(c, vt, &sc, is_scalar, err);
        goto out;
    }
    if (prepare(c, ix, err))
        goto out;
    if (c->nrec == 0)
        rc = set_basic(c, vt, &sc, is_scalar, err);
    else
        rc = set_advanced(c, vt, &sc, is_scalar, true, false, err);
out:
    ctx_delete(c);
    return rc;
}

/* ------------------------------------------------------------------ */
/* index_put_                                                          */
/* ------------------------------------------------------------------ */

int tl_index_put_(tl_tensor *x, tl_tensor *const *indices, size_t m,
                  tl_tensor *values, bool accumulate, tl_error *err)
{
    if (m > (size_t)x->ndim && m > 0)
        return tl_error_set(err, TL_ERR_INDEX, "too many indices for tensor "
                            "of dimension %d (got %zu)", x->ndim, m);
    ctx *c = ctx_new();
    ctx_init(c, x, false);
    int rc = -1;
    for (size_t i = 0; i < m; i++) {
        tl_tensor *it = indices[i];
        if (!it)
            continue;
        bool mask = it->dtype == TL_BOOL || it->dtype == TL_UINT8;
        if (record(c, (int)i, tl_tensor_retain(it), mask, err))
            goto out;
    }
    if (c->nrec == 0) {
        /* no index tensor: a plain (broadcasting) write of every element */
        tl_tensor *dst = tl_tensor_retain(x);
        rc = tl_view_check_inplace(dst, err);
        if (rc == 0) {
            tl_scalar none = {0};
            rc = copy_to(dst, values, &none, false, err);
        }
        tl_tensor_release(dst);
        goto out;
    }
    tl_scalar none = {0};
    rc = set_advanced(c, values, &none, false, false, accumulate, err);
out:
    ctx_delete(c);
    return rc;
}

/* ------------------------------------------------------------------ */
/* gathers as functions                                                */
/* ------------------------------------------------------------------ */

/* A new contiguous tensor of shape (n, sizes) whose element k is x's
 * storage element offs[k]. */
static tl_tensor *gather_offsets(const tl_tensor *x, int ndim,
                                 const int64_t *sizes, const int64_t *offs,
                                 int64_t n, tl_error *err)
{
    tl_tensor *r = tl_tensor_new(tl_tensor_backend(x), x->dtype, ndim, sizes,
                                 err);
    if (!r)
        return NULL;
    r->requires_grad = x->requires_grad;
    r->is_leaf = !x->requires_grad;
    gather_arg g = {x, r};
    for (int64_t s = 0; s < n; s += GATHER_CHUNK) {
        int64_t k = n - s < GATHER_CHUNK ? n - s : GATHER_CHUNK;
        if (gather_chunk(offs + s, k, s, &g, err) ||
            tl_context_deadline_check(err)) {
            tl_tensor_release(r);
            return NULL;
        }
    }
    return r;
}

/* storage offset of every element of t, row-major; caller frees */
static int64_t *all_offsets(const tl_tensor *t, int64_t *n, tl_error *err)
{
    int64_t numel = tl_tensor_numel(t);
    if (numel > MAX_INDEX_ELEMS) {
        tl_index_limit_error(err);
        return NULL;
    }
    int64_t *o = tl_xmalloc(sizeof(int64_t) * (size_t)(numel > 0 ? numel : 1));
    int64_t idx[TL_MAX_DIMS] = {0}, off = t->offset;
    for (int64_t k = 0; k < numel; k++) {
        o[k] = off;
        tl_shape_next(t->ndim, t->sizes, idx, t->strides, &off);
    }
    *n = numel;
    return o;
}

int tl_index_adv_one(tl_adv_index ix[2], tl_strided idx, int64_t size, int64_t stride,
                     bool wrap, const int64_t *coord_strides)
{
    memset(ix, 0, 2 * sizeof *ix);
    ix[0].idx = idx;
    ix[0].size = size;
    ix[0].stride = stride;
    ix[0].no_wrap = !wrap;
    if (!coord_strides)
        return 1;
    ix[1].idx = idx;
    ix[1].idx.strides = coord_strides;
    ix[1].coords = true;
    return 2;
}

/* The device path of index_select and take: t on a device with
 * TL_BACKEND_CAP_DEVICE_INDEX, an integer index (moved there when on the
 * host). *offs: device memory, idx * stride per index element (row-major),
 * plus the element's coordinates . coord_strides when those are given
 * (torch.gather), from the offsets kernel; *bad set (and *bad_value) when some index is
 * out of bounds. 1 applied, 0 not this path, -1 error. */
static int dev_index_offsets(const tl_tensor *t, const tl_tensor *index, int64_t size,
                             int64_t stride, bool wrap, const int64_t *coord_strides,
                             int64_t **offs, bool *bad, int64_t *bad_value, tl_error *err)
{
    const tl_backend *be = tl_tensor_backend(t);
    *offs = NULL;
    *bad = false;
    if (!(tl_backend_caps(be) & TL_BACKEND_CAP_DEVICE_INDEX) ||
        (index->dtype != TL_INT64 && index->dtype != TL_INT32))
        return 0;
    int64_t n = tl_tensor_numel(index);
    if (n > MAX_INDEX_ELEMS)
        return tl_index_limit_error(err);
    if (n == 0)
        return 1;
    tl_tensor *it = tl_tensor_backend(index) == be
                        ? tl_tensor_retain((tl_tensor *)index)
                        : tl_ops_to((tl_tensor *)index, be, index->dtype, false,
                                    TL_MEMFMT_PRESERVE, err);
    if (!it)
        return -1;
    tl_adv_index ix[2];
    int nix = tl_index_adv_one(ix, tl_tensor_strided(it), size, stride, wrap, coord_strides);
    int64_t pos = -1;
    int j = 0;
    int rc = offsets_on_device(be, n, nix, ix, offs, &pos, &j, bad_value, err);
    tl_tensor_release(it);
    if (rc)
        return -1;
    *bad = pos >= 0;
    return 1;
}

/* a device function's result: t's grad flags; 1, or -1 when r is NULL */
static int dev_result(tl_tensor *r, const tl_tensor *t, tl_tensor **out)
{
    if (!r)
        return -1;
    r->requires_grad = t->requires_grad;
    r->is_leaf = !t->requires_grad;
    *out = r;
    return 1;
}

/* index_select on the device: one gather along dim through the offsets */
static int dev_index_select(const tl_tensor *t, int d, const tl_tensor *index,
                            bool indices_msg, tl_tensor **out, tl_error *err)
{
    if (t->ndim == 0)
        return 0;
    int64_t *offs, v;
    bool bad;
    int64_t size = t->sizes[d];
    int rc = dev_index_offsets(t, index, size, t->strides[d], false, NULL, &offs, &bad, &v,
                               err);
    if (rc <= 0)
        return rc;
    const tl_backend *be = tl_tensor_backend(t);
    if (bad) {
        tl_backend_free(be, offs);
        if (indices_msg)
            return tl_error_set(err, TL_ERR_RUNTIME, "INDICES element is out of DATA bounds, "
                                "id=%lld axis_dim=%lld", (long long)v, (long long)size);
        return tl_error_set(err, TL_ERR_INDEX, "index out of range in self");
    }
    int64_t rs[TL_MAX_DIMS], n = tl_tensor_numel(index), rn;
    memcpy(rs, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    rs[d] = n;
    if (!tl_shape_numel(t->ndim, rs, &rn) || rn > MAX_INDEX_ELEMS) {
        tl_backend_free(be, offs);
        return tl_index_limit_error(err);
    }
    tl_tensor *r = tl_tensor_new(be, t->dtype, t->ndim, rs, err);
    if (r && rn > 0) {
        tl_strided ds = tl_tensor_strided(r), ss = tl_tensor_strided(t);
        if (tl_backend_index_gather(be, &ds, &ss, d, offs, n, err)) {
            tl_tensor_release(r);
            r = NULL;
        }
    }
    tl_backend_free(be, offs);
    return dev_result(r, t, out);
}

/* torch.gather on the device: offsets index[e] * stride(dim) plus the
 * element's other coordinates . t's strides, one 1-d read of t's storage */
static int dev_gather_fn(const tl_tensor *t, int d, const tl_tensor *index, tl_tensor **out,
                         tl_error *err)
{
    if (t->ndim == 0 || index->ndim != t->ndim)
        return 0;
    int64_t cs[TL_MAX_DIMS], *offs, v, n = tl_tensor_numel(index);
    for (int q = 0; q < t->ndim; q++)
        cs[q] = q == d ? 0 : t->strides[q];
    bool bad;
    int64_t size = t->sizes[d];
    int rc = dev_index_offsets(t, index, size, t->strides[d], false, cs, &offs, &bad, &v, err);
    if (rc <= 0)
        return rc;
    const tl_backend *be = tl_tensor_backend(t);
    if (bad) {
        tl_backend_free(be, offs);
        return tl_error_set(err, TL_ERR_RUNTIME, "index %lld is out of bounds for dimension "
                            "%d with size %lld", (long long)v, d, (long long)size);
    }
    tl_tensor *r = tl_tensor_new(be, t->dtype, index->ndim, index->sizes, err);
    if (r && n > 0) {
        int64_t one = 1;
        tl_strided ds = {tl_tensor_addr(r), r->dtype, 1, &n, &one};
        tl_strided ss = {(char *)t->storage->data + (size_t)t->offset * tl_dtype_size(t->dtype),
                         t->dtype, 1, &n, &one};
        if (tl_backend_index_gather(be, &ds, &ss, 0, offs, n, err)) {
            tl_tensor_release(r);
            r = NULL;
        }
    }
    tl_backend_free(be, offs);
    return dev_result(r, t, out);
}

/* take on the device: the flat positions index a contiguous copy of t (t
 * itself when it is contiguous), gathered as one 1-d read */
static int dev_take(const tl_tensor *t, const tl_tensor *index, tl_tensor **out,
                    tl_error *err)
{
    const tl_backend *be = tl_tensor_backend(t);
    if (!(tl_backend_caps(be) & TL_BACKEND_CAP_DEVICE_INDEX))
        return 0;
    int64_t m = tl_tensor_numel(t), n = tl_tensor_numel(index), *offs, v;
    bool bad;
    int rc = dev_index_offsets(t, index, m, 1, true, NULL, &offs, &bad, &v, err);
    if (rc <= 0)
        return rc;
    if (bad) {
        tl_backend_free(be, offs);
        return tl_error_set(err, TL_ERR_INDEX, "out of range: tried to access index %lld on "
                            "a tensor of %lld elements.", (long long)v, (long long)m);
    }
    tl_tensor *r = tl_tensor_new(be, t->dtype, index->ndim, index->sizes, err);
    tl_tensor *tc = r && n > 0 ? tl_ops_contiguous((tl_tensor *)t, TL_MEMFMT_CONTIGUOUS, err)
                               : NULL;
    if (r && n > 0) {
        int64_t one = 1;
        tl_strided ds = {tl_tensor_addr(r), r->dtype, 1, &n, &one};
        tl_strided ss = {tc ? tl_tensor_addr(tc) : NULL, t->dtype, 1, &n, &one};
        if (!tc || tl_backend_index_gather(be, &ds, &ss, 0, offs, n, err)) {
            tl_tensor_release(r);
            r = NULL;
        }
    }
    tl_tensor_release(tc);
    tl_backend_free(be, offs);
    return dev_result(r, t, out);
}

/* The dispatcher's device check of a CUDA kernel (c10's
 * check_and_update_common_device): self's device first, then the index.
 * Wording of torch >= 2.7 ("but got index is on ..."); earlier 2.x said
 * "found at least two devices, A and B! (when checking argument for
 * argument index in method ...)". */
static bool dispatch_device_error(const tl_tensor *t, const tl_tensor *index,
                                  const char *method, tl_error *err)
{
    tl_device a = tl_tensor_device(t), b = tl_tensor_device(index);
    if (tl_device_same(a, b))
        return false;
    char sa[32], sb[32];
    tl_device_str(a, sa, sizeof sa);
    tl_device_str(b, sb, sizeof sb);
    tl_error_set(err, TL_ERR_RUNTIME, "Expected all tensors to be on the same device, but got "
                 "index is on %s, different from other tensors on %s (when checking argument "
                 "in method %s)", sb, sa, method);
    return true;
}

tl_tensor *tl_index_select(const tl_tensor *t, int64_t dim,
                           const tl_tensor *index, tl_error *err)
{
    if (dispatch_device_error(t, index, "wrapper_CUDA__index_select", err))
        return NULL;
    int d;
    if (tl_shape_wrap_dim(dim, t->ndim, &d, err))
        return NULL;
    if (index->ndim > 1) {
        tl_error_set(err, TL_ERR_INDEX, "index_select(): Index is supposed "
                     "to be a vector");
        return NULL;
    }
    if (index->dtype != TL_INT64 && index->dtype != TL_INT32) {
        tl_error_set(err, TL_ERR_RUNTIME, "index_select(): Expected dtype "
                     "int32 or int64 for index");
        return NULL;
    }
    int64_t n = tl_tensor_numel(index);
    {
        int64_t size = t->ndim == 0 ? 1 : t->sizes[d];
        bool indices_msg = t->ndim > 1 && n > 0 && (tl_tensor_numel(t) == 0 || d == 1);
        tl_tensor *r = NULL;
        if (!(t->ndim > 1 && n > 0 && tl_tensor_numel(t) == 0 && size == 0)) {
            int rc = dev_index_select(t, d, index, indices_msg, &r, err);
            if (rc)
                return rc < 0 ? NULL : r;
        }
    }
    int64_t *iv = read_all_i64(index, &n, err);
    if (!iv)
        return NULL;
    int64_t size = t->ndim == 0 ? 1 : t->sizes[d];
    /* index_select_out_cpu_ (1.13 and 2.x): for more than one dim, an
     * empty self, and the dim == 1 fast path (check_indexarray_range), give
     * RuntimeErrors naming the index; the other paths an IndexError */
    bool indices_msg = t->ndim > 1 && n > 0 && (tl_tensor_numel(t) == 0 || d == 1);
    if (t->ndim > 1 && n > 0 && tl_tensor_numel(t) == 0 && size == 0) {
        free(iv);
        tl_error_set(err, TL_ERR_RUNTIME, "index_select(): self indexing axis dim should be "
                     "positive");
        return NULL;
    }
    for (int64_t k = 0; k < n; k++) {
        if (iv[k] < 0 || iv[k] >= size) {
            if (indices_msg)
                tl_error_set(err, TL_ERR_RUNTIME, "INDICES element is out of DATA bounds, "
                             "id=%lld axis_dim=%lld", (long long)iv[k], (long long)size);
            else
                tl_error_set(err, TL_ERR_INDEX, "index out of range in self");
            free(iv);
            return NULL;
        }
    }
    /* result: t's shape with sizes[d] = n, gathered through the offsets */
    int64_t rs[TL_MAX_DIMS];
    memcpy(rs, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    if (t->ndim > 0)
        rs[d] = n;
    int64_t rn;
    if (!tl_shape_numel(t->ndim, rs, &rn) || rn > MAX_INDEX_ELEMS) {
        free(iv);
        tl_index_limit_error(err);
        return NULL;
    }
    int64_t *offs = tl_xmalloc(sizeof(int64_t) * (size_t)(rn > 0 ? rn : 1));
    int64_t idx[TL_MAX_DIMS] = {0};
    for (int64_t k = 0; k < rn; k++) {
        int64_t off = t->offset;
        for (int q = 0; q < t->ndim; q++)
            off += (q == d ? iv[idx[q]] : idx[q]) * t->strides[q];
        offs[k] = off;
        tl_shape_next(t->ndim, rs, idx, NULL, NULL);
    }
    tl_tensor *r = gather_offsets(t, t->ndim, rs, offs, rn, err);
    free(offs);
    free(iv);
    return r;
}

tl_tensor *tl_index_gather(const tl_tensor *t, int64_t dim,
                           const tl_tensor *index, tl_error *err)
{
    if (dispatch_device_error(t, index, "wrapper_CUDA_gather", err))
        return NULL;
    int d;
    if (tl_shape_wrap_dim(dim, t->ndim, &d, err))
        return NULL;
    int64_t n = tl_tensor_numel(index);
    if (n > 0 && index->dtype != TL_INT64) {
        tl_error_set(err, TL_ERR_RUNTIME, "gather(): Expected dtype int64 for "
                     "index");
        return NULL;
    }
    if (n > 0) {
        int sd = t->ndim > 0 ? t->ndim : 1;
        int id = index->ndim > 0 ? index->ndim : 1;
        if (sd != id) {
            tl_error_set(err, TL_ERR_RUNTIME, "Index tensor must have the same "
                         "number of dimensions as input tensor");
            return NULL;
        }
        for (int q = 0; q < t->ndim; q++) {
            if (q != d && index->sizes[q] > t->sizes[q]) {
                tl_buf a = {0}, b = {0};
                fmt_list(&a, index->ndim, index->sizes);
                fmt_list(&b, t->ndim, t->sizes);
                tl_error_set(err, TL_ERR_RUNTIME, "Size does not match at "
                             "dimension %d expected index %s to be smaller "
                             "than self %s apart from dimension %d", q,
                             tl_buf_str(&a), tl_buf_str(&b), d);
                tl_buf_free(&a);
                tl_buf_free(&b);
                return NULL;
            }
        }
    }
    {
        tl_tensor *r = NULL;
        int rc = dev_gather_fn(t, d, index, &r, err);
        if (rc)
            return rc < 0 ? NULL : r;
    }
    int64_t *iv = read_all_i64(index, &n, err);
    if (!iv)
        return NULL;
    int64_t size = t->ndim == 0 ? 1 : t->sizes[d];
    int64_t *offs = tl_xmalloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    int64_t idx[TL_MAX_DIMS] = {0};
    for (int64_t k = 0; k < n; k++) {
        if (iv[k] < 0 || iv[k] >= size) {
            tl_error_set(err, TL_ERR_RUNTIME, "index %lld is out of bounds for "
                         "dimension %d with size %lld", (long long)iv[k], d,
                         (long long)size);
            free(iv);
            free(offs);
            return NULL;
        }
        int64_t off = t->offset;
        for (int q = 0; q < t->ndim; q++)
            off += (q == d ? iv[k] : idx[q]) * t->strides[q];
        offs[k] = off;
        tl_shape_next(index->ndim, index->sizes, idx, NULL, NULL);
    }
    tl_tensor *r = gather_offsets(t, index->ndim, index->sizes, offs, n, err);
    free(offs);
    free(iv);
    return r;
}

tl_tensor *tl_index_take(const tl_tensor *t, const tl_tensor *index,
                         tl_error *err)
{
    if (index->dtype != TL_INT64) {
        tl_error_set(err, TL_ERR_RUNTIME, "take(): Expected a long tensor for "
                     "index, but got %s", tl_dtype_scalar_name(index->dtype));
        return NULL;
    }
    if (tl_tensor_numel(t) == 0 && tl_tensor_numel(index) != 0) {
        /* take_out's index check, before any index is looked at */
        tl_error_set(err, TL_ERR_INDEX, "take(): tried to take from an empty tensor");
        return NULL;
    }
    if (tl_tensor_numel(t) <= MAX_INDEX_ELEMS) {
        tl_tensor *r = NULL;
        int rc = dev_take(t, index, &r, err);
        if (rc)
            return rc < 0 ? NULL : r;
    }
    int64_t n, m;
    int64_t *iv = read_all_i64(index, &n, err);
    if (!iv)
        return NULL;
    int64_t *src = all_offsets(t, &m, err);
    if (!src) {
        free(iv);
        return NULL;
    }
    for (int64_t k = 0; k < n; k++) {
        int64_t i = iv[k];
        if (i < -m || i >= m) {
            tl_error_set(err, TL_ERR_INDEX, "out of range: tried to access "
                         "index %lld on a tensor of %lld elements.",
                         (long long)i, (long long)m);
            free(iv);
            free(src);
            return NULL;
        }
        iv[k] = src[i < 0 ? i + m : i];
    }
    tl_tensor *r = gather_offsets(t, index->ndim, index->sizes, iv, n, err);
    free(iv);
    free(src);
    return r;
}

tl_tensor *tl_index_masked_select(const tl_tensor *t, const tl_tensor *mask,
                                  tl_error *err)
{
    if (mask->dtype != TL_BOOL) {
        tl_error_set(err, TL_ERR_RUNTIME, "masked_select: expected BoolTensor "
                     "for mask");
        return NULL;
    }
    int64_t shape[TL_MAX_DIMS];
    int nd = tl_shape_broadcast(mask->ndim, mask->sizes, t->ndim,
                                      t->sizes, shape, err);
    if (nd < 0)
        return NULL;
    tl_tensor *em = tl_view_expand(mask, nd, shape, err);
    tl_tensor *et = em ? tl_view_expand(t, nd, shape, err) : NULL;
    tl_tensor *r = NULL;
    int64_t n, m, *mv = NULL, *offs = NULL;
    if (!et)
        goto out;
    if (!(mv = read_all_i64(em, &n, err)) || !(offs = all_offsets(et, &m, err)))
        goto out;
    int64_t w = 0;
    for (int64_t k = 0; k < n; k++)
        if (mv[k])
            offs[w++] = offs[k];
    r = gather_offsets(t, 1, &w, offs, w, err);
out:
    free(mv);
    free(offs);
    tl_tensor_release(em);
    tl_tensor_release(et);
    return r;
}

tl_tensor *tl_index_nonzero(const tl_tensor *t, tl_error *err)
{
    int64_t n;
    int64_t *v = read_all_i64(t, &n, err);
    if (!v)
        return NULL;
    if (tl_dtype_is_floating(t->dtype)) {
        /* nonzero of floats: re-read as doubles (0.5 is non-zero), from
         * one host read */
        tl_tensor *h = tl_tensor_read_host(t, err);
        for (int64_t k = 0; h && k < n; k++) {
            double d;
            if (tl_tensor_get_f64(h, k, &d, err)) {
                tl_tensor_release(h);
                h = NULL;
                break;
            }
            v[k] = d != 0;
        }
        if (!h) {
            free(v);
            return NULL;
        }
        tl_tensor_release(h);
    }
    int64_t cnt = 0;
    for (int64_t k = 0; k < n; k++)
        cnt += v[k] != 0;
    int k = t->ndim;
    int64_t sizes[2] = {cnt, k}, strides[2] = {1, cnt};
    int64_t total = cnt * k;
    int64_t *data = tl_xmalloc(sizeof(int64_t) * (size_t)(total > 0 ? total : 1));
    int64_t coord[TL_MAX_DIMS] = {0}, w = 0;
    for (int64_t e = 0; e < n; e++) {
        if (v[e]) {
            for (int j = 0; j < k; j++)
                data[(size_t)j * (size_t)cnt + (size_t)w] = coord[j];
            w++;
        }
        for (int j = k - 1; j >= 0; j--) {
            if (++coord[j] < t->sizes[j])
                break;
            coord[j] = 0;
        }
    }
    free(v);
    const tl_backend *be = tl_tensor_backend(t);
    tl_tensor *r = tl_tensor_new_strided(be, TL_INT64, 2, sizes, strides, err);
    if (r && total > 0 &&
        tl_backend_from_host(be, r->storage->data, data, sizeof(int64_t) * (size_t)total,
                      err)) {
        tl_tensor_release(r);
        r = NULL;
    }
    free(data);
    return r;
}
