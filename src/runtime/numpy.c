/* numpy.c - NumPy buffer interop on tensor headers: x.numpy(),
 * torch.from_numpy, NumPy's memory orders, np.shares_memory.
 * (ndarray values, np.* functions and ndarray attributes: py/bind_numpy.c.)
 *
 * Design:
 *   - An ndarray is a tl_tensor header (wrapped in a TL_V_NDARRAY value by
 *     the py layer); strides are elements internally and reported in bytes
 *     by `a.strides`. Arrays always live in host memory (the CPU backend).
 *   - x.numpy() returns an alias header over x's storage object (it shares
 *     memory and storage identity); torch.from_numpy(a) builds a tensor
 *     header over a NEW storage object that borrows a's memory, so the
 *     verdict machinery sees shared memory but different storage objects,
 *     exactly PyTorch's `_cdata` behaviour (reference sheet 14, trap 6).
 *   - torch.from_numpy's storage starts at the array's first byte and
 *     spans up to its last reachable element (offset 0), like from_blob.
 *   - New arrays follow PyArray_NewLikeArray's orders: np.array / astype
 *     default to 'K' (axes by decreasing |stride|, made dense), a.copy()
 *     to 'C'. NumPy gives every array it allocates with no elements
 *     all-zero strides (x.numpy() of an empty tensor included).
 *   - np.shares_memory is decided on byte ranges: bounds first, then an
 *     exact element check when both operands are small.
 */
#include "numpy.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "create.h"
#include "ops.h"
#include "shape.h"
#include "util.h"

/* ------------------------------------------------------------------------
 * NumPy memory orders of new arrays
 * ---------------------------------------------------------------------- */

/* NumPy's contiguity flags (relaxed strides: size-1 axes are ignored, an
 * empty array is both C- and F-contiguous). Strides in elements. */
bool tl_numpy_contig(const tl_tensor *t, bool fortran)
{
    if (tl_tensor_numel(t) == 0)
        return true;
    int64_t want = 1;
    for (int i = 0; i < t->ndim; i++) {
        int d = fortran ? i : t->ndim - 1 - i;
        if (t->sizes[d] == 1)
            continue;
        if (t->strides[d] != want)
            return false;
        want *= t->sizes[d];
    }
    return true;
}

/* Strides (elements) for a dense array of t's shape whose axes, from the
 * outermost, are perm[0..ndim). */
void tl_numpy_strides_in_order(const tl_tensor *t, const int *perm,
                             int64_t *strides)
{
    int64_t s = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        strides[perm[i]] = s;
        s *= t->sizes[perm[i]] > 0 ? t->sizes[perm[i]] : 1;
    }
}

/* The strides of a new array made like t in numpy order 'C', 'F', 'A' or
 * 'K' (PyArray_NewLikeArray). 'K': C when t is C-contiguous (or has at most
 * one axis), F when F-contiguous, else the axes sorted by decreasing
 * absolute stride, ties kept in axis order (PyArray_CreateSortedStridePerm),
 * made dense in that order. A new empty array has all-zero strides, as
 * NumPy gives any array it allocates with no elements. */
void tl_numpy_order_strides(const tl_tensor *t, char order, int64_t *strides)
{
    int n = t->ndim, perm[TL_MAX_DIMS];
    if (tl_tensor_numel(t) == 0) {
        for (int i = 0; i < n; i++)
            strides[i] = 0;
        return;
    }
    if (order == 'A')
        order = tl_numpy_contig(t, true) && !tl_numpy_contig(t, false) ? 'F' : 'C';
    if (order == 'K') {
        if (n <= 1 || tl_numpy_contig(t, false))
            order = 'C';
        else if (tl_numpy_contig(t, true))
            order = 'F';
    }
    for (int i = 0; i < n; i++)
        perm[i] = order == 'F' ? n - 1 - i : i;
    if (order == 'K') {
        /* stable insertion sort by decreasing |stride| */
        for (int i = 1; i < n; i++)
            for (int j = i; j > 0; j--) {
                int64_t a = t->strides[perm[j - 1]], b = t->strides[perm[j]];
                a = a < 0 ? -a : a;
                b = b < 0 ? -b : b;
                if (b <= a)
                    break;
                int tmp = perm[j - 1];
                perm[j - 1] = perm[j];
                perm[j] = tmp;
            }
    }
    tl_numpy_strides_in_order(t, perm, strides);
}

/* A new empty array: NumPy zeroes the strides of what it allocates. */
void tl_numpy_fresh_strides(tl_tensor *t)
{
    if (tl_tensor_numel(t) == 0)
        for (int i = 0; i < t->ndim; i++)
            t->strides[i] = 0;
}

/* ------------------------------------------------------------------------
 * Conversions between tensors and arrays
 * ---------------------------------------------------------------------- */

/* The checks of Tensor.numpy(), in PyTorch's order. */
int tl_numpy_check(const tl_tensor *t, bool force, tl_error *err)
{
    tl_device dev = tl_tensor_device(t);
    if (!force && dev.kind != TL_DEV_CPU) {
        char ds[32];
        tl_device_str(dev, ds, sizeof ds);
        return tl_error_set(err, TL_ERR_TYPE,
                            "can't convert %s device type tensor to numpy. "
                            "Use Tensor.cpu() to copy the tensor to host "
                            "memory first.",
                            ds);
    }
    if (!force && t->requires_grad)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "Can't call numpy() on Tensor that requires grad. "
                            "Use tensor.detach().numpy() instead.");
    if (t->dtype == TL_BFLOAT16)
        return tl_error_set(err, TL_ERR_TYPE,
                            "Got unsupported ScalarType BFloat16");
    return 0;
}

void tl_numpy_plain_header(tl_tensor *a)
{
    a->requires_grad = false;
    a->is_leaf = true;
    a->is_view_of_grad_leaf = false;
}

tl_tensor *tl_numpy_from_tensor(const tl_tensor *t, bool force, tl_error *err)
{
    if (tl_numpy_check(t, force, err) < 0)
        return NULL;
    tl_tensor *a;
    if (tl_tensor_device(t).kind != TL_DEV_CPU)
        a = tl_create_copy_to(t, tl_backend_cpu(), t->dtype, err);
    else
        a = tl_tensor_alias(t);
    if (!a)
        return NULL;
    /* tensor_to_numpy: set_resizable(false) on the storage, for good (the
     * array holds its pointer); resize_ past it raises from then on */
    if (a->storage)
        a->storage->fixed = true;
    tl_numpy_plain_header(a);
    /* an empty tensor has no data pointer: NumPy allocates the array's
     * (empty) memory itself and zeroes its strides */
    tl_numpy_fresh_strides(a);
    return a;
}

/* The byte range [*lo, *lo + *n) an array with non-negative strides
 * reaches: from its first element to its last reachable one, as
 * at::from_blob sizes the storage of torch.from_numpy (computeStorageNbytes:
 * zero bytes when numel is 0). */
static void reach_bytes(const tl_tensor *a, size_t *lo, size_t *n)
{
    size_t isz = tl_dtype_size(a->dtype);
    *lo = (size_t)a->offset * isz;
    *n = 0;
    if (tl_tensor_numel(a) == 0)
        return;
    int64_t last = 0;
    for (int d = 0; d < a->ndim; d++)
        last += (a->sizes[d] - 1) * a->strides[d];
    *n = (size_t)(last + 1) * isz;
}

tl_tensor *tl_numpy_to_tensor(const tl_tensor *arr, tl_error *err)
{
    for (int d = 0; d < arr->ndim; d++)
        if (arr->strides[d] < 0) {
            tl_error_set(err, TL_ERR_VALUE,
                         "At least one stride in the given numpy array is "
                         "negative, and tensors with negative strides are not "
                         "currently supported. (You can probably work around "
                         "this by making a copy of your array  with "
                         "array.copy().) ");
            return NULL;
        }
    size_t lo, n;
    reach_bytes(arr, &lo, &n);
    tl_storage *st;
    if (n == 0) {
        /* numel 0: PyTorch's storage holds zero bytes of the array, so it
         * shares nothing (SPEC 4: zero-byte storages compare by identity) */
        st = tl_storage_new(arr->storage->backend, 0, err);
        if (!st)
            return NULL;
    } else {
        TL_ASSERT(lo + n <= arr->storage->nbytes);
        st = tl_storage_borrow(arr->storage, lo, n);
    }
    tl_tensor *t = tl_tensor_alias(arr);
    tl_storage_release(t->storage);
    t->storage = st;
    t->offset = 0; /* the storage starts at the array's first byte */
    tl_version_release(t->version);
    t->version = tl_version_new();
    tl_numpy_plain_header(t);
    return t;
}

/* ------------------------------------------------------------------------
 * Overlap
 * ---------------------------------------------------------------------- */

/* [lo, hi) byte range touched by t; false when it touches nothing */
static bool byte_extent(const tl_tensor *t, uintptr_t *lo, uintptr_t *hi)
{
    if (tl_tensor_numel(t) == 0 || !t->storage->data)
        return false;
    size_t isz = tl_dtype_size(t->dtype);
    /* negative strides (n[::-1]) reach below the first element */
    int64_t first = t->offset, last = t->offset;
    for (int d = 0; d < t->ndim; d++) {
        int64_t span = (t->sizes[d] - 1) * t->strides[d];
        if (span < 0)
            first += span;
        else
            last += span;
    }
    uintptr_t base = (uintptr_t)t->storage->data;
    *lo = base + (uintptr_t)first * isz;
    *hi = base + (uintptr_t)(last + 1) * isz;
    return true;
}

typedef struct span {
    uintptr_t lo, hi;
} span;

static int span_cmp(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo ? 1 : 0;
}

/* element byte spans of t, sorted (n = numel) */
static span *element_spans(const tl_tensor *t, int64_t n)
{
    span *s = malloc(sizeof(span) * (size_t)n);
    if (!s)
        return NULL;
    size_t isz = tl_dtype_size(t->dtype);
    uintptr_t base = (uintptr_t)t->storage->data;
    int64_t idx[TL_MAX_DIMS] = {0};
    int64_t off = t->offset;
    for (int64_t k = 0; k < n; k++) {
        s[k].lo = base + (uintptr_t)off * isz;
        s[k].hi = s[k].lo + isz;
        tl_shape_next(t->ndim, t->sizes, idx, t->strides, &off);
    }
    qsort(s, (size_t)n, sizeof(span), span_cmp);
    return s;
}

#define EXACT_MAX ((int64_t)1 << 22)

bool tl_numpy_overlap(const tl_tensor *a, const tl_tensor *b, bool exact)
{
    uintptr_t alo, ahi, blo, bhi;
    if (!byte_extent(a, &alo, &ahi) || !byte_extent(b, &blo, &bhi))
        return false;
    if (tl_tensor_device(a).kind != tl_tensor_device(b).kind)
        return false;
    if (ahi <= blo || bhi <= alo)
        return false;
    if (!exact)
        return true;
    int64_t na = tl_tensor_numel(a), nb = tl_tensor_numel(b);
    if (na > EXACT_MAX || nb > EXACT_MAX)
        return true; /* too costly to decide exactly: bounds answer */
    span *sa = element_spans(a, na);
    if (!sa)
        return true;
    bool hit = false;
    size_t isz = tl_dtype_size(b->dtype);
    uintptr_t base = (uintptr_t)b->storage->data;
    int64_t idx[TL_MAX_DIMS] = {0};
    int64_t off = b->offset;
    for (int64_t k = 0; k < nb && !hit; k++) {
        uintptr_t lo = base + (uintptr_t)off * isz, hi = lo + isz;
        /* first span of a with span.lo >= hi; check its predecessor(s) */
        int64_t l = 0, r = na;
        while (l < r) {
            int64_t m = l + (r - l) / 2;
            if (sa[m].lo < hi)
                l = m + 1;
            else
                r = m;
        }
        /* spans are equal-width, so only the one just before can reach */
        if (l > 0 && sa[l - 1].hi > lo)
            hit = true;
        tl_shape_next(b->ndim, b->sizes, idx, b->strides, &off);
    }
    free(sa);
    return hit;
}

/* ------------------------------------------------------------------------
 * In-place ufuncs (n += v): the result stored back without torch's rules
 * ---------------------------------------------------------------------- */

/* NumPy's casting='same_kind' over the dtypes both sides have: bool <
 * unsigned < signed < floating, any cast within a kind or to a higher one */
static int kind_rank(tl_dtype dt)
{
    if (dt == TL_BOOL)
        return 0;
    if (dt == TL_UINT8)
        return 1;
    return tl_dtype_is_floating(dt) ? 3 : 2;
}

static void fmt_shape(char *buf, size_t n, const tl_tensor *t)
{
    size_t k = 0;
    k += (size_t)snprintf(buf + k, n - k, "(");
    for (int d = 0; d < t->ndim && k < n; d++)
        k += (size_t)snprintf(buf + k, n - k, d ? ",%" PRId64 : "%" PRId64, t->sizes[d]);
    if (k < n)
        snprintf(buf + k, n - k, t->ndim == 1 ? ",)" : ")");
}

int tl_numpy_store_inplace(tl_tensor *dst, const tl_tensor *r, const char *ufunc,
                           tl_error *err)
{
    if (!tl_shape_equal(dst->ndim, dst->sizes, r->ndim, r->sizes)) {
        char a[256], b[256];
        fmt_shape(a, sizeof a, dst);
        fmt_shape(b, sizeof b, r);
        tl_error_set(err, TL_ERR_VALUE,
                     "non-broadcastable output operand with shape %s doesn't match "
                     "the broadcast shape %s", a, b);
        return -1;
    }
    if (kind_rank(r->dtype) > kind_rank(dst->dtype)) {
        tl_error_set(err, TL_ERR_UFUNCTYPE,
                     "Cannot cast ufunc '%s' output from dtype('%s') to dtype('%s') "
                     "with casting rule 'same_kind'",
                     ufunc, tl_dtype_name(r->dtype), tl_dtype_name(dst->dtype));
        return -1;
    }
    /* a header with a private version counter: NumPy writes never bump
     * the tensor's _version (as tl_index_set's ndarray writes) */
    tl_tensor *d = tl_tensor_alias(dst);
    tl_version_release(d->version);
    d->version = tl_version_new();
    tl_numpy_plain_header(d);
    int rc = tl_ops_copy_(d, r, err);
    tl_tensor_release(d);
    return rc;
}

tl_tensor *tl_numpy_scalar_as(tl_dtype dt, tl_scalar sc, tl_error *err)
{
    /* the number as NumPy holds it (int64 / float64), then a plain cast:
     * out-of-range integers wrap, floats overflow to inf (NumPy 1.24 warns
     * and goes on) where torch's Scalar::to raises */
    tl_tensor *w = tl_create_full(tl_backend_cpu(), sc.is_float ? TL_FLOAT64 : TL_INT64,
                                  0, NULL, sc, err);
    if (!w)
        return NULL;
    tl_tensor *r = tl_ops_to(w, NULL, dt, true, TL_MEMFMT_PRESERVE, err);
    tl_tensor_release(w);
    return r;
}

/* ------------------------------------------------------------------------
 * NumPy 1.24 scalar promotion (np.result_type over scalar types)
 * ---------------------------------------------------------------------- */

static int int_bits(tl_dtype dt)
{
    switch (dt) {
    case TL_UINT8: case TL_INT8: return 8;
    case TL_INT16: return 16;
    case TL_INT32: return 32;
    default: return 64;
    }
}

static tl_dtype signed_of(int bits)
{
    return bits <= 8 ? TL_INT8 : bits <= 16 ? TL_INT16 : bits <= 32 ? TL_INT32 : TL_INT64;
}

static tl_dtype float_of(int bits)
{
    return bits <= 16 ? TL_FLOAT16 : bits <= 32 ? TL_FLOAT32 : TL_FLOAT64;
}

static int float_bits(tl_dtype dt)
{
    return dt == TL_FLOAT16 || dt == TL_BFLOAT16 ? 16 : dt == TL_FLOAT32 ? 32 : 64;
}

tl_dtype tl_numpy_promote(tl_dtype a, tl_dtype b)
{
    if (a == b || b == TL_BOOL)
        return a;
    if (a == TL_BOOL)
        return b;
    bool fa = tl_dtype_is_floating(a), fb = tl_dtype_is_floating(b);
    if (fa && fb)
        return float_bits(a) >= float_bits(b) ? a : b;
    if (fa || fb) { /* the float must hold every value of the integer */
        tl_dtype f = fa ? a : b, i = fa ? b : a;
        int need = int_bits(i) == 8 ? 16 : int_bits(i) == 16 ? 32 : 64;
        return float_of(float_bits(f) > need ? float_bits(f) : need);
    }
    bool ua = a == TL_UINT8, ub = b == TL_UINT8;
    if (ua == ub)
        return int_bits(a) >= int_bits(b) ? a : b;
    int bu = int_bits(ua ? a : b), bs = int_bits(ua ? b : a);
    return bs > bu ? (ua ? b : a) : signed_of(2 * bu);
}

/* ------------------------------------------------------------------------
 * NumPy 1.24 array promotion with value-based casting (PyArray_ResultType)
 * ---------------------------------------------------------------------- */

/* a NumPy type: kind 'b', 'u', 'i' or 'f' and its width; 'u' wider than
 * 8 bits exists only in NumPy (tlab has no uint16..uint64) */
typedef struct npt {
    char kind;
    int bits;
    bool small_unsigned; /* a min scalar type: the value fits the signed type too */
} npt;

static npt npt_of(tl_dtype dt)
{
    npt t = {'i', 64, false};
    if (dt == TL_BOOL) {
        t.kind = 'b';
        t.bits = 8;
    } else if (tl_dtype_is_floating(dt)) {
        t.kind = 'f';
        t.bits = float_bits(dt);
    } else {
        t.kind = dt == TL_UINT8 ? 'u' : 'i';
        t.bits = int_bits(dt);
    }
    return t;
}

static int kind_order(char k)
{
    return k == 'b' ? 0 : k == 'f' ? 2 : 1;
}

/* np.promote_types, with promote_types' small-unsigned rule: a min scalar
 * type uintN whose value fits intN meets a signed type as intN */
static npt npt_promote(npt a, npt b)
{
    if (a.small_unsigned && b.kind == 'i')
        a.kind = 'i';
    if (b.small_unsigned && a.kind == 'i')
        b.kind = 'i';
    a.small_unsigned = b.small_unsigned = false;
    if (a.kind == 'b')
        return b;
    if (b.kind == 'b')
        return a;
    if (a.kind == b.kind)
        return a.bits >= b.bits ? a : b;
    if (a.kind == 'f' || b.kind == 'f') { /* the float must hold the integer */
        npt f = a.kind == 'f' ? a : b, i = a.kind == 'f' ? b : a;
        int need = i.bits == 8 ? 16 : i.bits == 16 ? 32 : 64;
        f.bits = f.bits > need ? f.bits : need;
        return f;
    }
    npt s = a.kind == 'i' ? a : b, u = a.kind == 'i' ? b : a;
    if (s.bits > u.bits)
        return s;
    if (u.bits == 64) {
        npt f = {'f', 64, false};
        return f;
    }
    s.bits = 2 * u.bits;
    return s;
}

/* np.min_scalar_type of a number (its kind kept, the least width that
 * holds the value; floats: half below 65000 in magnitude and for inf/nan,
 * single below 3.4e38) */
static npt npt_min_scalar(npt t, const tl_scalar *sc)
{
    if (t.kind == 'f') {
        double v = sc->f;
        if ((v > -65000 && v < 65000) || !isfinite(v))
            t.bits = 16;
        else if (v > -3.4e38 && v < 3.4e38)
            t.bits = 32;
        else
            t.bits = 64;
        return t;
    }
    if (t.kind == 'b')
        return t;
    int64_t v = sc->i;
    if (t.kind == 'u' || v >= 0) {
        uint64_t u = (uint64_t)v;
        t.kind = 'u';
        t.bits = u <= 0xFF ? 8 : u <= 0xFFFF ? 16 : u <= 0xFFFFFFFFu ? 32 : 64;
        t.small_unsigned = u <= (uint64_t)(((uint64_t)1 << (t.bits - 1)) - 1);
        return t;
    }
    t.kind = 'i';
    t.bits = v >= INT8_MIN ? 8 : v >= INT16_MIN ? 16 : v >= INT32_MIN ? 32 : 64;
    return t;
}

int tl_numpy_result_type(const tl_operand *ops, int n, bool compare, tl_dtype *out,
                         tl_error *err)
{
    /* arrays (ndim > 0) and scalars (numbers, 0-d arrays) */
    int max_arr = -1, max_sc = -1;
    npt types[8], sc[8];
    bool is_sc[8];
    TL_ASSERT(n > 0 && n <= 8);
    for (int k = 0; k < n; k++) {
        const tl_operand *o = &ops[k];
        types[k] = npt_of(o->t ? o->t->dtype : o->sdt);
        is_sc[k] = !o->t || o->t->ndim == 0;
        if (is_sc[k]) {
            tl_scalar v = o->s;
            if (o->t && tl_tensor_numel(o->t) == 1) {
                v.is_float = tl_dtype_is_floating(o->t->dtype);
                if (v.is_float) {
                    if (tl_tensor_get_f64(o->t, 0, &v.f, err) < 0)
                        return -1;
                } else if (tl_tensor_get_i64(o->t, 0, &v.i, err) < 0) {
                    return -1;
                }
            }
            sc[k] = npt_min_scalar(types[k], &v);
            if (kind_order(types[k].kind) > max_sc)
                max_sc = kind_order(types[k].kind);
        } else if (kind_order(types[k].kind) > max_arr) {
            max_arr = kind_order(types[k].kind);
        }
    }
    /* value-based only when some array is of the scalars' kind or higher */
    bool by_value = max_arr >= 0 && max_arr >= max_sc;
    npt r = by_value && is_sc[0] ? sc[0] : types[0];
    for (int k = 1; k < n; k++)
        r = npt_promote(r, by_value && is_sc[k] ? sc[k] : types[k]);
    if (r.kind == 'u' && r.bits > 8 && compare) {
        *out = TL_INT64; /* holds every value of both sides */
        return 0;
    }
    if (r.kind == 'u' && r.bits > 8)
        return tl_error_set(err, TL_ERR_UNSUPPORTED,
                            "NumPy's result here is uint%d, a dtype tlab does not have", r.bits);
    *out = r.kind == 'b' ? TL_BOOL
           : r.kind == 'u' ? TL_UINT8
           : r.kind == 'f' ? float_of(r.bits)
                           : signed_of(r.bits);
    return 0;
}
