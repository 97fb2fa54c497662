/* numpy.c - ndarray values and the NumPy interop of the op language.
 *
 * Design:
 *   - An ndarray is a tl_tensor header in a TL_V_NDARRAY value; strides
 *     are elements internally and reported in bytes by `a.strides`. Arrays
 *     always live in host memory (the CPU backend).
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
#include "util.h"

/* ------------------------------------------------------------------------
 * NumPy memory orders of new arrays
 * ---------------------------------------------------------------------- */

/* NumPy's contiguity flags (relaxed strides: size-1 axes are ignored, an
 * empty array is both C- and F-contiguous). Strides in elements. */
static bool np_contig(const tl_tensor *t, bool fortran)
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
static void strides_in_order(const tl_tensor *t, const int *perm,
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
static void np_order_strides(const tl_tensor *t, char order, int64_t *strides)
{
    int n = t->ndim, perm[TL_MAX_DIMS];
    if (tl_tensor_numel(t) == 0) {
        for (int i = 0; i < n; i++)
            strides[i] = 0;
        return;
    }
    if (order == 'A')
        order = np_contig(t, true) && !np_contig(t, false) ? 'F' : 'C';
    if (order == 'K') {
        if (n <= 1 || np_contig(t, false))
            order = 'C';
        else if (np_contig(t, true))
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
    strides_in_order(t, perm, strides);
}

/* A new empty array: NumPy zeroes the strides of what it allocates. */
static void np_fresh_strides(tl_tensor *t)
{
    if (tl_tensor_numel(t) == 0)
        for (int i = 0; i < t->ndim; i++)
            t->strides[i] = 0;
}

/* ------------------------------------------------------------------------
 * Conversions between tensors and arrays
 * ---------------------------------------------------------------------- */

/* The checks of Tensor.numpy(), in PyTorch's order. */
static int numpy_checks(const tl_tensor *t, bool force, tl_error *err)
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

static void plain_header(tl_tensor *a)
{
    a->requires_grad = false;
    a->is_leaf = true;
    a->is_view_of_grad_leaf = false;
}

tl_value *tl_numpy_from_tensor(const tl_tensor *t, bool force, tl_error *err)
{
    if (numpy_checks(t, force, err) < 0)
        return NULL;
    tl_tensor *a;
    if (tl_tensor_device(t).kind != TL_DEV_CPU)
        a = tl_create_copy_to(t, tl_backend_cpu(), t->dtype, err);
    else
        a = tl_tensor_alias(t);
    if (!a)
        return NULL;
    plain_header(a);
    /* an empty tensor has no data pointer: NumPy allocates the array's
     * (empty) memory itself and zeroes its strides */
    np_fresh_strides(a);
    return tl_value_ndarray(a);
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
    plain_header(t);
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
    int64_t last = t->offset;
    for (int d = 0; d < t->ndim; d++)
        last += (t->sizes[d] - 1) * t->strides[d];
    uintptr_t base = (uintptr_t)t->storage->data;
    *lo = base + (uintptr_t)t->offset * isz;
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
 * Argument helpers
 * ---------------------------------------------------------------------- */

/* numpy dtype argument: a dtype value, a numpy type name, or None */
static int np_dtype_arg(const tl_value *v, bool *has, tl_dtype *dt,
                        tl_error *err)
{
    if (!v || v->kind == TL_V_NONE) {
        *has = false;
        return 0;
    }
    if (v->kind == TL_V_DTYPE) {
        *has = true;
        *dt = v->u.dtype;
        return 0;
    }
    if (v->kind == TL_V_STR) {
        static const struct {
            const char *name;
            tl_dtype dt;
        } names[] = {
            {"float", TL_FLOAT64},   {"float64", TL_FLOAT64},
            {"double", TL_FLOAT64},  {"f8", TL_FLOAT64},
            {"float32", TL_FLOAT32}, {"single", TL_FLOAT32},
            {"f4", TL_FLOAT32},      {"float16", TL_FLOAT16},
            {"half", TL_FLOAT16},    {"f2", TL_FLOAT16},
            {"int", TL_INT64},       {"int64", TL_INT64},
            {"i8", TL_INT64},        {"int32", TL_INT32},
            {"i4", TL_INT32},        {"int16", TL_INT16},
            {"i2", TL_INT16},        {"int8", TL_INT8},
            {"i1", TL_INT8},         {"uint8", TL_UINT8},
            {"u1", TL_UINT8},        {"bool", TL_BOOL},
            {"bool_", TL_BOOL},      {"?", TL_BOOL},
        };
        for (size_t i = 0; i < TL_ARRAY_LEN(names); i++)
            if (strcmp(v->u.str.s, names[i].name) == 0) {
                *has = true;
                *dt = names[i].dt;
                return 0;
            }
        return tl_error_set(err, TL_ERR_TYPE, "data type '%s' not understood",
                            v->u.str.s);
    }
    return tl_error_set(err, TL_ERR_TYPE,
                        "Cannot interpret '%s' as a data type",
                        tl_value_type_name(v));
}

static int check_np_dtype(tl_dtype dt, tl_error *err)
{
    if (dt == TL_BFLOAT16)
        return tl_error_set(err, TL_ERR_TYPE,
                            "Got unsupported ScalarType BFloat16");
    return 0;
}

/* A CPU copy of t as dtype dt in numpy memory order `order` ('C', 'F',
 * 'A' or 'K'; np_order_strides). */
static tl_tensor *array_copy(const tl_tensor *t, tl_dtype dt, char order,
                             tl_error *err)
{
    int64_t strides[TL_MAX_DIMS];
    np_order_strides(t, order, strides);
    tl_tensor *out = tl_tensor_new_strided(tl_backend_cpu(), dt, t->ndim,
                                           t->sizes, strides, err);
    if (!out)
        return NULL;
    if (tl_tensor_numel(t) > 0) {
        tl_strided d = tl_tensor_strided(out), s = tl_tensor_strided(t);
        if (tl_backend_copy_strided(tl_backend_cpu(), &d, &s, err) < 0) {
            tl_tensor_release(out);
            return NULL;
        }
    }
    return out;
}

/* numpy's order= argument: None keeps the default; one of C F A K in
 * either case, else numpy's ValueError / TypeError. */
static int np_order_arg(const tl_value *v, char def, char *order,
                        tl_error *err)
{
    *order = def;
    if (!v || v->kind == TL_V_NONE)
        return 0;
    if (v->kind != TL_V_STR)
        return tl_error_set(err, TL_ERR_TYPE, "order must be str, not %s",
                            tl_value_type_name(v));
    const char *o = v->u.str.s;
    if (o[0] && !o[1] && strchr("CFAKcfak", o[0])) {
        *order = (char)(o[0] >= 'a' ? o[0] - 'a' + 'A' : o[0]);
        return 0;
    }
    return tl_error_set(err, TL_ERR_VALUE,
                        "order must be one of 'C', 'F', 'A', or 'K' (got '%s')",
                        o);
}

static tl_tensor *self_array(tl_value *self, const char *name, tl_error *err)
{
    if (self && self->kind == TL_V_NDARRAY)
        return self->u.tensor;
    tl_error_set(err, TL_ERR_TYPE, "'%s' needs a numpy.ndarray", name);
    return NULL;
}

/* The array behind an ndarray or a tensor (np.asarray(t) semantics, with
 * numpy()'s checks); a new reference. */
static tl_tensor *as_array(const tl_value *v, tl_error *err)
{
    if (v->kind == TL_V_NDARRAY)
        return tl_tensor_retain(v->u.tensor);
    if (v->kind == TL_V_TENSOR) {
        if (numpy_checks(v->u.tensor, false, err) < 0)
            return NULL;
        return tl_tensor_retain(v->u.tensor);
    }
    tl_error_set(err, TL_ERR_TYPE, "expected an array or a tensor, got %s",
                 tl_value_type_name(v));
    return NULL;
}

/* ------------------------------------------------------------------------
 * np.* functions
 * ---------------------------------------------------------------------- */

/* Does t already have numpy memory order `order` (no copy needed)? */
static bool order_ok(const tl_tensor *t, char order)
{
    if (order == 'C')
        return np_contig(t, false);
    if (order == 'F')
        return np_contig(t, true);
    return true;
}

/* np.array / np.asarray: an ndarray or a tensor is copied (in `order`)
 * when always_copy, when the dtype changes or when its layout does not
 * satisfy `order`; otherwise it is returned as is (a tensor as its numpy()
 * view). Nested sequences always build a new array. */
static tl_value *array_impl(tl_value *obj, bool has, tl_dtype dt, char order,
                            bool always_copy, tl_error *err)
{
    tl_tensor *t;
    if (order == 'A')
        order = 'K'; /* np.array copies keep C and F, else the most similar */
    if (obj->kind == TL_V_NDARRAY || obj->kind == TL_V_TENSOR) {
        tl_tensor *src = as_array(obj, err);
        if (!src)
            return NULL;
        if (!always_copy && (!has || dt == src->dtype) && order_ok(src, order)) {
            tl_tensor_release(src);
            if (obj->kind == TL_V_NDARRAY)
                return tl_value_retain(obj);
            return tl_numpy_from_tensor(obj->u.tensor, false, err);
        }
        t = array_copy(src, has ? dt : src->dtype, order, err);
        tl_tensor_release(src);
    } else {
        t = tl_create_from_data_numpy(obj, has, dt, err);
        if (t && order == 'F' && !np_contig(t, true)) {
            tl_tensor *f = array_copy(t, t->dtype, 'F', err);
            tl_tensor_release(t);
            t = f;
        }
    }
    if (!t)
        return NULL;
    np_fresh_strides(t);
    plain_header(t);
    return tl_value_ndarray(t);
}

static tl_value *np_array(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"object", "dtype", "copy", "order", NULL};
    (void)self;
    if (tl_args_check(a, "array", 2, kw,
                      "(object, dtype=None, *, copy=True, order='K')", err) < 0)
        return NULL;
    tl_value *obj = tl_arg(a, 0, "object");
    if (!obj) {
        tl_error_set(err, TL_ERR_TYPE,
                     "array() missing required argument 'object' (pos 0)");
        return NULL;
    }
    bool has = false, copy = true;
    tl_dtype dt = TL_FLOAT64;
    if (np_dtype_arg(tl_arg(a, 1, "dtype"), &has, &dt, err) < 0)
        return NULL;
    if (has && check_np_dtype(dt, err) < 0)
        return NULL;
    tl_value *cv = tl_arg(a, 99, "copy");
    if (cv && tl_to_bool(cv, "copy", &copy, err) < 0)
        return NULL;
    char order;
    if (np_order_arg(tl_arg(a, 99, "order"), 'K', &order, err) < 0)
        return NULL;
    return array_impl(obj, has, dt, order, copy, err);
}

static tl_value *np_asarray(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"a", "dtype", "order", NULL};
    (void)self;
    if (tl_args_check(a, "asarray", 3, kw, "(a, dtype=None, order=None)",
                      err) < 0)
        return NULL;
    tl_value *obj = tl_arg(a, 0, "a");
    if (!obj) {
        tl_error_set(err, TL_ERR_TYPE,
                     "asarray() missing required argument 'a' (pos 0)");
        return NULL;
    }
    bool has = false;
    tl_dtype dt = TL_FLOAT64;
    if (np_dtype_arg(tl_arg(a, 1, "dtype"), &has, &dt, err) < 0)
        return NULL;
    if (has && check_np_dtype(dt, err) < 0)
        return NULL;
    char order;
    if (np_order_arg(tl_arg(a, 2, "order"), 'K', &order, err) < 0)
        return NULL;
    return array_impl(obj, has, dt, order, false, err);
}

static int np_shape_arg(const tl_value *v, const char *fname, int64_t *sizes,
                        tl_error *err)
{
    int n = tl_to_int_list(v, "shape", true, sizes, TL_MAX_DIMS, err);
    if (n < 0) {
        if (err && err->kind == TL_ERR_TYPE) {
            tl_error_clear(err);
            tl_error_set(err, TL_ERR_TYPE,
                         "'%s' object cannot be interpreted as an integer",
                         tl_value_type_name(v));
        }
        return -1;
    }
    for (int d = 0; d < n; d++)
        if (sizes[d] < 0)
            return tl_error_set(err, TL_ERR_VALUE,
                                "negative dimensions are not allowed");
    (void)fname;
    return n;
}

static tl_value *np_fill(const tl_args *a, const char *fname, int64_t v,
                         tl_error *err)
{
    static const char *const kw[] = {"shape", "dtype", "order", NULL};
    if (tl_args_check(a, fname, 2, kw, "(shape, dtype=float, order='C')", err) < 0)
        return NULL;
    tl_value *shape = tl_arg(a, 0, "shape");
    if (!shape) {
        tl_error_set(err, TL_ERR_TYPE,
                     "%s() missing required argument 'shape' (pos 1)", fname);
        return NULL;
    }
    int64_t sizes[TL_MAX_DIMS];
    int n = np_shape_arg(shape, fname, sizes, err);
    if (n < 0)
        return NULL;
    bool has = false;
    tl_dtype dt = TL_FLOAT64;
    if (np_dtype_arg(tl_arg(a, 1, "dtype"), &has, &dt, err) < 0)
        return NULL;
    if (!has)
        dt = TL_FLOAT64;
    if (check_np_dtype(dt, err) < 0)
        return NULL;
    char order;
    if (np_order_arg(tl_arg(a, 2, "order"), 'C', &order, err) < 0)
        return NULL;
    if (order != 'C' && order != 'F') {
        tl_error_set(err, TL_ERR_VALUE, "only 'C' or 'F' order is permitted");
        return NULL;
    }
    tl_scalar s = {.is_float = false, .i = v};
    tl_tensor *t = tl_create_full(tl_backend_cpu(), dt, n, sizes, s, err);
    if (!t)
        return NULL;
    if (order == 'F') {
        /* same values, Fortran strides: relabel the fresh dense buffer */
        int perm[TL_MAX_DIMS];
        for (int i = 0; i < n; i++)
            perm[i] = n - 1 - i;
        strides_in_order(t, perm, t->strides);
    }
    np_fresh_strides(t);
    return tl_value_ndarray(t);
}

static tl_value *np_zeros(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    return np_fill(a, "zeros", 0, err);
}

static tl_value *np_ones(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    return np_fill(a, "ones", 1, err);
}

static tl_value *np_arange(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"start", "stop", "step", "dtype", NULL};
    (void)self;
    if (tl_args_check(a, "arange", 4, kw,
                      "([start, ]stop, [step, ]dtype=None)", err) < 0)
        return NULL;
    tl_value *vals[3] = {tl_arg(a, 0, "start"), tl_arg(a, 1, "stop"),
                         tl_arg(a, 2, "step")};
    tl_value *dtv = tl_arg(a, 3, "dtype");
    /* np.arange(stop) / (start, stop) / (start, stop, step) */
    double start = 0, stop, step = 1;
    bool any_float = false;
    tl_value *nums[3] = {NULL, NULL, NULL};
    int np = 0;
    for (int i = 0; i < 3; i++)
        if (vals[i] && vals[i]->kind != TL_V_NONE)
            nums[np++] = vals[i];
    if (np == 0) {
        tl_error_set(err, TL_ERR_TYPE,
                     "arange() requires stop to be specified.");
        return NULL;
    }
    double d[3];
    for (int i = 0; i < np; i++) {
        if (nums[i]->kind == TL_V_FLOAT)
            any_float = true;
        else if (nums[i]->kind != TL_V_INT && nums[i]->kind != TL_V_BOOL) {
            tl_error_set(err, TL_ERR_TYPE,
                         "unsupported operand type(s) for -: '%s' and 'int'",
                         tl_value_type_name(nums[i]));
            return NULL;
        }
        tl_value_as_double(nums[i], &d[i]);
    }
    if (np == 1) {
        stop = d[0];
    } else {
        start = d[0];
        stop = d[1];
        if (np == 3)
            step = d[2];
    }
    if (step == 0) {
        tl_error_set(err, TL_ERR_ZERODIV, "division by zero");
        return NULL;
    }
    bool has = false;
    tl_dtype dt = any_float ? TL_FLOAT64 : TL_INT64;
    if (np_dtype_arg(dtv, &has, &dt, err) < 0)
        return NULL;
    if (!has)
        dt = any_float ? TL_FLOAT64 : TL_INT64;
    if (check_np_dtype(dt, err) < 0)
        return NULL;
    double len = ceil((stop - start) / step);
    if (!(len > 0))
        len = 0;
    if (len > (double)TL_MAX_NUMEL) {
        tl_error_set(err, TL_ERR_LIMIT,
                     "a tensor may have at most 2^31 elements (tlab limit)");
        return NULL;
    }
    int64_t n = (int64_t)len, sizes[1] = {n};
    tl_tensor *t = tl_tensor_new(tl_backend_cpu(), dt, 1, sizes, err);
    if (!t)
        return NULL;
    char *p = t->storage->data;
    size_t isz = tl_dtype_size(dt);
    for (int64_t i = 0; i < n; i++) {
        if (any_float)
            tl_dtype_store_f64(dt, p + (size_t)i * isz, start + (double)i * step);
        else
            tl_dtype_store_i64(dt, p + (size_t)i * isz,
                               (int64_t)((uint64_t)(int64_t)start + (uint64_t)i * (uint64_t)(int64_t)step));
    }
    np_fresh_strides(t);
    return tl_value_ndarray(t);
}

static tl_value *np_overlap_fn(const tl_args *a, const char *fname, bool exact,
                               tl_error *err)
{
    static const char *const kw[] = {"a", "b", "max_work", NULL};
    if (tl_args_check(a, fname, 3, kw, "(a, b, /, max_work=None)", err) < 0)
        return NULL;
    tl_value *x = tl_arg(a, 0, "a"), *y = tl_arg(a, 1, "b");
    if (!x || !y) {
        tl_error_set(err, TL_ERR_TYPE, "%s() takes at least 2 arguments", fname);
        return NULL;
    }
    tl_tensor *ta = NULL, *tb = NULL;
    if (x->kind == TL_V_NDARRAY || x->kind == TL_V_TENSOR)
        ta = as_array(x, err);
    else
        ta = tl_create_from_data_numpy(x, false, TL_FLOAT64, err);
    if (!ta)
        return NULL;
    if (y->kind == TL_V_NDARRAY || y->kind == TL_V_TENSOR)
        tb = as_array(y, err);
    else
        tb = tl_create_from_data_numpy(y, false, TL_FLOAT64, err);
    if (!tb) {
        tl_tensor_release(ta);
        return NULL;
    }
    bool r = tl_numpy_overlap(ta, tb, exact);
    tl_tensor_release(ta);
    tl_tensor_release(tb);
    return tl_bool(r);
}

static tl_value *np_shares_memory(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    return np_overlap_fn(a, "shares_memory", true, err);
}

static tl_value *np_may_share_memory(tl_value *self, const tl_args *a,
                                     tl_error *err)
{
    (void)self;
    return np_overlap_fn(a, "may_share_memory", false, err);
}

/* ------------------------------------------------------------------------
 * ndarray attributes and methods
 * ---------------------------------------------------------------------- */

static tl_value *int_tuple(int n, const int64_t *v, int64_t scale)
{
    tl_value *t = tl_tuple_new((size_t)n);
    for (int i = 0; i < n; i++)
        tl_seq_set(t, (size_t)i, tl_int((int64_t)((uint64_t)v[i] * (uint64_t)scale))); /* NumPy wraps */
    return t;
}

static tl_value *nd_shape(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = self_array(self, "shape", err);
    (void)a;
    return t ? int_tuple(t->ndim, t->sizes, 1) : NULL;
}

static tl_value *nd_strides(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = self_array(self, "strides", err);
    (void)a;
    return t ? int_tuple(t->ndim, t->strides, (int64_t)tl_dtype_size(t->dtype))
             : NULL;
}

static tl_value *nd_dtype(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = self_array(self, "dtype", err);
    (void)a;
    return t ? tl_value_dtype(t->dtype) : NULL;
}

static tl_value *nd_ndim(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = self_array(self, "ndim", err);
    (void)a;
    return t ? tl_int(t->ndim) : NULL;
}

static tl_value *nd_size(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = self_array(self, "size", err);
    (void)a;
    return t ? tl_int(tl_tensor_numel(t)) : NULL;
}

static tl_value *nd_itemsize(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = self_array(self, "itemsize", err);
    (void)a;
    return t ? tl_int((int64_t)tl_dtype_size(t->dtype)) : NULL;
}

static tl_value *nd_nbytes(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = self_array(self, "nbytes", err);
    (void)a;
    return t ? tl_int(tl_tensor_numel(t) * (int64_t)tl_dtype_size(t->dtype))
             : NULL;
}

static tl_value *nd_copy(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"order", NULL};
    tl_tensor *t = self_array(self, "copy", err);
    if (!t || tl_args_check(a, "copy", 1, kw, "(order='C')", err) < 0)
        return NULL;
    char order;
    if (np_order_arg(tl_arg(a, 0, "order"), 'C', &order, err) < 0)
        return NULL;
    tl_tensor *c = array_copy(t, t->dtype, order, err);
    return c ? tl_value_ndarray(c) : NULL;
}

static tl_value *nd_astype(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"dtype", "order", "casting", "subok",
                                     "copy", NULL};
    tl_tensor *t = self_array(self, "astype", err);
    if (!t || tl_args_check(a, "astype", 1, kw, "(dtype, order='K', copy=True)",
                            err) < 0)
        return NULL;
    bool has = false;
    tl_dtype dt = t->dtype;
    tl_value *dv = tl_arg(a, 0, "dtype");
    if (!dv) {
        tl_error_set(err, TL_ERR_TYPE,
                     "astype() missing required argument 'dtype' (pos 1)");
        return NULL;
    }
    if (np_dtype_arg(dv, &has, &dt, err) < 0)
        return NULL;
    if (!has)
        dt = TL_FLOAT64;
    if (check_np_dtype(dt, err) < 0)
        return NULL;
    char order;
    if (np_order_arg(tl_arg(a, 1, "order"), 'K', &order, err) < 0)
        return NULL;
    tl_tensor *c = array_copy(t, dt, order, err);
    return c ? tl_value_ndarray(c) : NULL;
}

static tl_value *nd_tolist(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = self_array(self, "tolist", err);
    if (!t || tl_args_check(a, "tolist", 0, NULL, "()", err) < 0)
        return NULL;
    return tl_create_tolist(t, err);
}

static tl_value *nd_item(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = self_array(self, "item", err);
    if (!t || tl_args_check(a, "item", 0, NULL, "()", err) < 0)
        return NULL;
    if (tl_tensor_numel(t) != 1) {
        tl_error_set(err, TL_ERR_VALUE,
                     "can only convert an array of size 1 to a Python scalar");
        return NULL;
    }
    return tl_create_item(t, err);
}

/* ------------------------------------------------------------------------
 * torch.from_numpy / as_tensor / asarray, Tensor.numpy
 * ---------------------------------------------------------------------- */

static tl_value *torch_from_numpy(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    if (a->npos != 1 || a->nkw != 0) {
        tl_error_set(err, TL_ERR_TYPE,
                     "from_numpy() takes exactly one argument (%zu given)",
                     a->npos + a->nkw);
        return NULL;
    }
    tl_value *v = a->pos[0];
    if (v->kind != TL_V_NDARRAY) {
        tl_error_set(err, TL_ERR_TYPE, "expected np.ndarray (got %s)",
                     tl_value_type_name(v));
        return NULL;
    }
    tl_tensor *t = tl_numpy_to_tensor(v->u.tensor, err);
    return t ? tl_value_tensor(t) : NULL;
}

/* as_tensor / asarray: share when nothing changes */
static tl_value *as_tensor_impl(const tl_args *a, const char *fname,
                                bool asarray, tl_error *err)
{
    static const char *const kw_as[] = {"data", "dtype", "device", NULL};
    static const char *const kw_arr[] = {"obj", "dtype", "device", "copy",
                                         "requires_grad", NULL};
    if (tl_args_check(a, fname, asarray ? 1 : 3, asarray ? kw_arr : kw_as,
                      asarray ? "(object obj, *, torch.dtype dtype, "
                                "torch.device device, bool copy, bool "
                                "requires_grad)"
                              : "(PyObject * data, torch.dtype dtype, "
                                "torch.device device)",
                      err) < 0)
        return NULL;
    tl_value *data = tl_arg(a, 0, asarray ? "obj" : "data");
    if (!data) {
        tl_error_set(err, TL_ERR_TYPE,
                     "%s() missing 1 required positional arguments: \"%s\"",
                     fname, asarray ? "obj" : "data");
        return NULL;
    }
    bool has_dt = false, copy = false, rg = false;
    tl_dtype dt = TL_FLOAT32;
    if (tl_create_opt_dtype(tl_arg(a, 1, "dtype"), &has_dt, &dt, err) < 0)
        return NULL;
    const tl_backend *be = NULL;
    if (tl_create_opt_device(tl_arg(a, 2, "device"), &be, err) < 0)
        return NULL;
    if (asarray) {
        tl_value *c = tl_arg(a, 99, "copy");
        if (c && c->kind != TL_V_NONE && tl_to_bool(c, "copy", &copy, err) < 0)
            return NULL;
        tl_value *r = tl_arg(a, 99, "requires_grad");
        if (r && tl_to_bool(r, "requires_grad", &rg, err) < 0)
            return NULL;
    }
    tl_tensor *out = NULL;
    if (data->kind == TL_V_TENSOR || data->kind == TL_V_NDARRAY) {
        tl_tensor *t = data->u.tensor;
        const tl_backend *tbe = tl_tensor_backend(t);
        tl_dtype tdt = has_dt ? dt : t->dtype;
        const tl_backend *target = be ? be : tbe;
        bool same_dev = target == tbe ||
                        tl_device_same(tl_backend_device(target),
                                       tl_backend_device(tbe));
        if (same_dev && tdt == t->dtype && !copy) {
            if (data->kind == TL_V_TENSOR && !rg)
                return tl_value_retain(data);
            out = data->kind == TL_V_TENSOR ? tl_tensor_alias(t)
                                            : tl_numpy_to_tensor(t, err);
        } else {
            out = tl_create_copy_to(t, target, tdt, err);
            if (out) {
                out->requires_grad = false;
                out->is_leaf = true;
            }
        }
    } else {
        out = tl_create_from_data(data, has_dt, dt,
                                  be ? be : tl_create_default_backend(), err);
    }
    if (!out)
        return NULL;
    if (rg && tl_create_set_requires_grad(out, true, err) < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    return tl_value_tensor(out);
}

static tl_value *torch_as_tensor(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    return as_tensor_impl(a, "as_tensor", false, err);
}

static tl_value *torch_asarray(tl_value *self, const tl_args *a, tl_error *err)
{
    (void)self;
    return as_tensor_impl(a, "asarray", true, err);
}

static tl_value *tensor_numpy(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"force", NULL};
    tl_tensor *t = tl_bind_self_tensor(self, "numpy", err);
    if (!t || tl_args_check(a, "numpy", 0, kw, "(*, bool force=False)", err) < 0)
        return NULL;
    bool force = false;
    tl_value *f = tl_arg(a, 99, "force");
    if (f && tl_to_bool(f, "force", &force, err) < 0)
        return NULL;
    return tl_numpy_from_tensor(t, force, err);
}

/* ------------------------------------------------------------------------
 * Tables
 * ---------------------------------------------------------------------- */

const tl_binding tl_numpy_np_bindings[] = {
    {"array", np_array, false, false},
    {"asarray", np_asarray, false, false},
    {"arange", np_arange, false, false},
    {"zeros", np_zeros, false, false},
    {"ones", np_ones, false, false},
    {"shares_memory", np_shares_memory, false, false},
    {"may_share_memory", np_may_share_memory, false, false},
    {NULL, NULL, false, false},
};

const tl_binding tl_numpy_ndarray_bindings[] = {
    {"shape", nd_shape, true, false},
    {"strides", nd_strides, true, false},
    {"dtype", nd_dtype, true, false},
    {"ndim", nd_ndim, true, false},
    {"size", nd_size, true, false},
    {"itemsize", nd_itemsize, true, false},
    {"nbytes", nd_nbytes, true, false},
    {"copy", nd_copy, false, false},
    {"astype", nd_astype, false, false},
    {"tolist", nd_tolist, false, false},
    {"item", nd_item, false, false},
    {NULL, NULL, false, false},
};

const tl_binding tl_numpy_torch_bindings[] = {
    {"from_numpy", torch_from_numpy, false, false},
    {"as_tensor", torch_as_tensor, false, false},
    {"asarray", torch_asarray, false, false},
    {NULL, NULL, false, false},
};

const tl_binding tl_numpy_method_bindings[] = {
    {"numpy", tensor_numpy, false, false},
    {NULL, NULL, false, false},
};
