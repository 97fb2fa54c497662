/* bind_numpy.c - the NumPy side of the op language: ndarray values,
 * np.array / asarray / arange / zeros / ones / shares_memory /
 * may_share_memory, ndarray attributes and methods, torch.from_numpy /
 * as_tensor / asarray and Tensor.numpy().
 *
 * Design: the buffer rules (memory orders, x.numpy() aliasing, from_numpy's
 * borrowed storage, overlap) are the runtime's (numpy.h); this file parses
 * the Python arguments, wraps headers in TL_V_NDARRAY values and lists the
 * binding tables (bind_create.c registers them).
 */
#include "bind_numpy.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "index_parse.h"
#include "create.h"
#include "numpy.h"
#include "util.h"

/* An ndarray value over header a (stolen), or NULL when a is NULL. */
static tl_value *ndarray_of(tl_tensor *a)
{
    return a ? tl_value_ndarray(a) : NULL;
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
    tl_numpy_order_strides(t, order, strides);
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
        if (tl_numpy_check(v->u.tensor, false, err) < 0)
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
        return tl_numpy_contig(t, false);
    if (order == 'F')
        return tl_numpy_contig(t, true);
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
            return ndarray_of(tl_numpy_from_tensor(obj->u.tensor, false, err));
        }
        t = array_copy(src, has ? dt : src->dtype, order, err);
        tl_tensor_release(src);
    } else {
        if (!has && obj->npdt == TL_NPDT_DTYPE &&
            (obj->kind == TL_V_FLOAT || obj->kind == TL_V_INT || obj->kind == TL_V_BOOL)) {
            has = true; /* np.array(a[0, 0]) keeps the scalar's dtype */
            dt = obj->sdtype;
        }
        t = tl_convert_from_data_numpy(obj, has, dt, err);
        if (t && order == 'F' && !tl_numpy_contig(t, true)) {
            tl_tensor *f = array_copy(t, t->dtype, 'F', err);
            tl_tensor_release(t);
            t = f;
        }
    }
    if (!t)
        return NULL;
    tl_numpy_fresh_strides(t);
    tl_numpy_plain_header(t);
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
        tl_numpy_strides_in_order(t, perm, t->strides);
    }
    tl_numpy_fresh_strides(t);
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
    tl_numpy_fresh_strides(t);
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
        ta = tl_convert_from_data_numpy(x, false, TL_FLOAT64, err);
    if (!ta)
        return NULL;
    if (y->kind == TL_V_NDARRAY || y->kind == TL_V_TENSOR)
        tb = as_array(y, err);
    else
        tb = tl_convert_from_data_numpy(y, false, TL_FLOAT64, err);
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
    return t ? tl_value_np_dtype(t->dtype, TL_NPDT_DTYPE) : NULL;
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

/* ndarray.T: the axes reversed, a view over the same memory (a 0-d or 1-d
 * array is its own transpose, still a new view object) */
static tl_value *nd_T(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = self_array(self, "T", err);
    (void)a;
    if (!t)
        return NULL;
    tl_tensor *v = tl_tensor_alias(t);
    if (!v)
        return NULL;
    for (int i = 0, j = v->ndim - 1; i < j; i++, j--) {
        int64_t s = v->sizes[i], st = v->strides[i];
        v->sizes[i] = v->sizes[j];
        v->strides[i] = v->strides[j];
        v->sizes[j] = s;
        v->strides[j] = st;
    }
    return tl_value_ndarray(v);
}

/* NumPy's _attempt_nocopy_reshape (shape.c, 1.24): strides (elements)
 * for t viewed as (nd, dims) without a copy, in C or Fortran order; false
 * when the memory does not allow it. Size-1 axes are dropped first; new
 * size-1 axes take the stride of the last real axis. */
static bool nocopy_reshape(const tl_tensor *t, int nd, const int64_t *dims, bool f,
                           int64_t *st)
{
    int64_t od[TL_MAX_DIMS], os[TL_MAX_DIMS];
    int on = 0;
    for (int i = 0; i < t->ndim; i++)
        if (t->sizes[i] != 1) {
            od[on] = t->sizes[i];
            os[on++] = t->strides[i];
        }
    int oi = 0, oj = 1, ni = 0, nj = 1;
    while (ni < nd && oi < on) {
        int64_t np_ = dims[ni], op = od[oi];
        while (np_ != op) {
            if (np_ < op) {
                if (nj >= nd)
                    return false;
                np_ *= dims[nj++];
            } else {
                if (oj >= on)
                    return false;
                op *= od[oj++];
            }
        }
        for (int ok = oi; ok < oj - 1; ok++)
            if (f ? os[ok + 1] != od[ok] * os[ok] : os[ok] != od[ok + 1] * os[ok + 1])
                return false;
        if (f) {
            st[ni] = os[oi];
            for (int nk = ni + 1; nk < nj; nk++)
                st[nk] = st[nk - 1] * dims[nk - 1];
        } else {
            st[nj - 1] = os[oj - 1];
            for (int nk = nj - 1; nk > ni; nk--)
                st[nk - 1] = st[nk] * dims[nk];
        }
        ni = nj++;
        oi = oj++;
    }
    int64_t last = ni >= 1 ? st[ni - 1] : 1;
    if (f && ni >= 1)
        last *= dims[ni - 1];
    for (int nk = ni; nk < nd; nk++)
        st[nk] = last;
    return true;
}

/* "(5,newaxis)": NumPy's print of a requested shape (negative: newaxis) */
static void np_shape_text(int n, const int64_t *d, tl_buf *b)
{
    tl_buf_putc(b, '(');
    for (int i = 0; i < n; i++) {
        if (i)
            tl_buf_putc(b, ',');
        if (d[i] < 0)
            tl_buf_puts(b, "newaxis");
        else
            tl_buf_printf(b, "%lld", (long long)d[i]);
    }
    if (n == 1)
        tl_buf_putc(b, ',');
    tl_buf_putc(b, ')');
}

/* ndarray.reshape(*shape, order='C') (PyArray_Newshape): a view when the
 * memory allows one (the same shape; a contiguous array in that order;
 * nocopy_reshape), else a view of a copy in that order. One negative
 * entry is inferred. */
static tl_value *nd_reshape(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = self_array(self, "reshape", err);
    if (!t)
        return NULL;
    char order = 'C';
    for (size_t k = 0; k < a->nkw; k++) {
        if (strcmp(a->kwnames[k], "order") != 0) {
            tl_error_set(err, TL_ERR_TYPE, "'%s' is an invalid keyword argument for reshape()",
                         a->kwnames[k]);
            return NULL;
        }
        if (np_order_arg(a->kwvals[k], 'C', &order, err) < 0)
            return NULL;
    }
    if (order != 'C' && order != 'F') {
        tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab supports reshape(order='C' or 'F') only");
        return NULL;
    }
    const tl_value *const *items = (const tl_value *const *)a->pos;
    size_t n = a->npos;
    if (n == 1 && (a->pos[0]->kind == TL_V_TUPLE || a->pos[0]->kind == TL_V_LIST ||
                   a->pos[0]->kind == TL_V_SIZE)) {
        items = (const tl_value *const *)a->pos[0]->u.seq.items;
        n = a->pos[0]->u.seq.n;
    }
    if (n > TL_MAX_DIMS) {
        tl_error_set(err, TL_ERR_LIMIT, "tensors with more than %d dimensions are not supported",
                     TL_MAX_DIMS);
        return NULL;
    }
    int nd = (int)n;
    int64_t want[TL_MAX_DIMS], dims[TL_MAX_DIMS];
    for (int i = 0; i < nd; i++) {
        const tl_value *v = items[i];
        if (v->kind != TL_V_INT && v->kind != TL_V_BOOL) {
            tl_error_set(err, TL_ERR_TYPE, "'%s' object cannot be interpreted as an integer",
                         tl_value_type_name(v));
            return NULL;
        }
        want[i] = dims[i] = v->kind == TL_V_BOOL ? v->u.b : v->u.i;
    }
    /* _fix_unknown_dimension */
    int64_t total = tl_tensor_numel(t), known = 1;
    int unknown = -1;
    bool bad = false;
    for (int i = 0; i < nd; i++) {
        if (dims[i] < 0) {
            if (unknown >= 0) {
                tl_error_set(err, TL_ERR_VALUE, "can only specify one unknown dimension");
                return NULL;
            }
            unknown = i;
        } else if (tl_mul_overflow(known, dims[i], &known)) {
            bad = true;
        }
    }
    if (!bad && unknown >= 0) {
        if (known == 0 || total % known != 0)
            bad = true;
        else
            dims[unknown] = total / known;
    } else if (!bad && known != total) {
        bad = true;
    }
    if (bad) {
        tl_buf b = {0};
        tl_buf_printf(&b, "cannot reshape array of size %lld into shape ", (long long)total);
        np_shape_text(nd, want, &b);
        tl_error_set(err, TL_ERR_VALUE, "%s", tl_buf_str(&b));
        tl_buf_free(&b);
        return NULL;
    }
    bool same = nd == t->ndim;
    for (int i = 0; i < nd && same; i++)
        same = want[i] == t->sizes[i];
    int64_t st[TL_MAX_DIMS];
    tl_tensor *base = tl_tensor_retain(t);
    if (same) {
        memcpy(st, t->strides, sizeof(int64_t) * (size_t)nd);
    } else if (tl_numpy_contig(t, order == 'F') ||
               !nocopy_reshape(t, nd, dims, order == 'F', st)) {
        if (!tl_numpy_contig(t, order == 'F')) {
            tl_tensor_release(base);
            if (!(base = array_copy(t, t->dtype, order, err)))
                return NULL;
        }
        /* fresh strides in that order, a zero-size axis counted as 1 */
        int64_t acc = 1;
        for (int k = 0; k < nd; k++) {
            int i = order == 'F' ? k : nd - 1 - k;
            st[i] = acc;
            if (dims[i])
                acc *= dims[i];
        }
    }
    tl_tensor *v = tl_tensor_alias(base);
    tl_tensor_release(base);
    if (!v)
        return NULL;
    v->ndim = nd;
    memcpy(v->sizes, dims, sizeof(int64_t) * (size_t)nd);
    memcpy(v->strides, st, sizeof(int64_t) * (size_t)nd);
    return tl_value_ndarray(v);
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
    return tl_convert_tolist(t, err);
}

/* One index of item(*args): wrapped into [0, n) or an IndexError. */
static int item_index(const tl_value *v, int64_t n, int axis, int64_t *out,
                      tl_error *err)
{
    int64_t i;
    if (!v || (v->kind != TL_V_INT && v->kind != TL_V_BOOL)) {
        tl_error_set(err, TL_ERR_TYPE, "an integer is required");
        return -1;
    }
    i = v->kind == TL_V_BOOL ? v->u.b : v->u.i;
    if (i < -n || i >= n) {
        if (axis < 0)
            tl_error_set(err, TL_ERR_INDEX, "index %lld is out of bounds for size %lld",
                         (long long)i, (long long)n);
        else
            tl_error_set(err, TL_ERR_INDEX,
                         "index %lld is out of bounds for axis %d with size %lld",
                         (long long)i, axis, (long long)n);
        return -1;
    }
    *out = i < 0 ? i + n : i;
    return 0;
}

/* ndarray.item(*args): no argument (size 1), a flat index in C order, or
 * one index per axis (as arguments or one tuple) */
static tl_value *nd_item(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = self_array(self, "item", err);
    if (!t || tl_args_check(a, "item", 64, NULL, "(*args)", err) < 0)
        return NULL;
    size_t n = a->npos;
    tl_value *const *ix = a->pos;
    if (n == 1 && a->pos[0]->kind == TL_V_TUPLE) {
        n = a->pos[0]->u.seq.n;
        ix = a->pos[0]->u.seq.items;
    }
    if (n == 0) {
        if (tl_tensor_numel(t) != 1) {
            tl_error_set(err, TL_ERR_VALUE,
                         "can only convert an array of size 1 to a Python scalar");
            return NULL;
        }
        return tl_convert_item(t, err);
    }
    int64_t off = t->offset;
    if (n == 1 && t->ndim != 1) { /* a flat index, unravelled in C order */
        int64_t k;
        if (item_index(ix[0], tl_tensor_numel(t), -1, &k, err) < 0)
            return NULL;
        for (int d = t->ndim - 1; d >= 0; d--) {
            off += (k % t->sizes[d]) * t->strides[d];
            k /= t->sizes[d];
        }
    } else {
        if ((int)n != t->ndim) {
            tl_error_set(err, TL_ERR_VALUE, "incorrect number of indices for array");
            return NULL;
        }
        for (int d = 0; d < t->ndim; d++) {
            int64_t k;
            if (item_index(ix[d], t->sizes[d], d, &k, err) < 0)
                return NULL;
            off += k * t->strides[d];
        }
    }
    tl_tensor *e = tl_tensor_alias(t);
    if (!e)
        return NULL;
    e->ndim = 0;
    e->offset = off;
    tl_value *r = tl_convert_item(e, err);
    tl_tensor_release(e);
    return r;
}

/* NumPy scalar (a[0, 0]) methods */
static tl_value *sc_item(tl_value *self, const tl_args *a, tl_error *err)
{
    if (tl_args_check(a, "item", 0, NULL, "()", err) < 0)
        return NULL;
    switch (self->kind) {
    case TL_V_BOOL: return tl_bool(self->u.b);
    case TL_V_INT: return tl_int(self->u.i);
    default: return tl_float(self->u.f);
    }
}

tl_value *tl_bind_numpy_scalar_attr(tl_value *obj, const char *name)
{
    if (obj->npdt != TL_NPDT_DTYPE ||
        (obj->kind != TL_V_FLOAT && obj->kind != TL_V_INT && obj->kind != TL_V_BOOL))
        return NULL;
    tl_dtype dt = obj->sdtype;
    if (strcmp(name, "shape") == 0 || strcmp(name, "strides") == 0)
        return int_tuple(0, NULL, 1);
    if (strcmp(name, "ndim") == 0)
        return tl_int(0);
    if (strcmp(name, "size") == 0)
        return tl_int(1);
    if (strcmp(name, "itemsize") == 0 || strcmp(name, "nbytes") == 0)
        return tl_int((int64_t)tl_dtype_size(dt));
    if (strcmp(name, "dtype") == 0)
        return tl_value_np_dtype(dt, TL_NPDT_DTYPE);
    if (strcmp(name, "item") == 0)
        return tl_value_func("item", sc_item, obj);
    return NULL;
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
    if (tl_convert_opt_dtype(tl_arg(a, 1, "dtype"), &has_dt, &dt, err) < 0)
        return NULL;
    const tl_backend *be = NULL;
    if (tl_convert_opt_device(tl_arg(a, 2, "device"), &be, err) < 0)
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
        out = tl_convert_from_data(data, has_dt, dt,
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
    return ndarray_of(tl_numpy_from_tensor(t, force, err));
}

/* ------------------------------------------------------------------------
 * Tables
 * ---------------------------------------------------------------------- */

const tl_binding tl_bind_numpy_np_bindings[] = {
    {"array", np_array, false, false},
    {"asarray", np_asarray, false, false},
    {"arange", np_arange, false, false},
    {"zeros", np_zeros, false, false},
    {"ones", np_ones, false, false},
    {"shares_memory", np_shares_memory, false, false},
    {"may_share_memory", np_may_share_memory, false, false},
    {NULL, NULL, false, false},
};

const tl_binding tl_bind_numpy_ndarray_bindings[] = {
    {"shape", nd_shape, true, false},
    {"strides", nd_strides, true, false},
    {"dtype", nd_dtype, true, false},
    {"ndim", nd_ndim, true, false},
    {"size", nd_size, true, false},
    {"itemsize", nd_itemsize, true, false},
    {"nbytes", nd_nbytes, true, false},
    {"T", nd_T, true, false},
    {"copy", nd_copy, false, false},
    {"reshape", nd_reshape, false, false},
    {"astype", nd_astype, false, false},
    {"tolist", nd_tolist, false, false},
    {"item", nd_item, false, false},
    {NULL, NULL, false, false},
};

const tl_binding tl_bind_numpy_torch_bindings[] = {
    {"from_numpy", torch_from_numpy, false, false},
    {"as_tensor", torch_as_tensor, false, false},
    {"asarray", torch_asarray, false, false},
    {NULL, NULL, false, false},
};

const tl_binding tl_bind_numpy_method_bindings[] = {
    {"numpy", tensor_numpy, false, false},
    {NULL, NULL, false, false},
};

/* np.float32(x), np.int8(x), np.bool_(x): the NumPy scalar of that type
 * holding the Python number x (none: 0), stored as NumPy stores it into
 * an array of the type (integers wrap, floats round; tl_numpy_scalar_as).
 * Strings, sequences and arrays as x are outside tlab's subset. */
static tl_value *np_type_ctor(tl_value *type, const tl_args *a, tl_error *err)
{
    tl_dtype dt = type->u.dtype;
    const char *name = dt == TL_BOOL ? "bool_" : tl_dtype_name(dt);
    if (a->nkw || a->npos > 1) {
        tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab supports np.%s() of one number only", name);
        return NULL;
    }
    tl_scalar sc = {0};
    if (a->npos == 1) {
        const tl_value *v = a->pos[0];
        if (v->kind == TL_V_FLOAT) {
            sc.is_float = true;
            sc.f = v->u.f;
        } else if (v->kind == TL_V_INT || v->kind == TL_V_BOOL) {
            sc.i = v->kind == TL_V_BOOL ? v->u.b : v->u.i;
            sc.f = (double)sc.i;
        } else {
            tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab supports np.%s() of one number only, not of %s",
                         name, tl_value_type_name(v));
            return NULL;
        }
    }
    tl_tensor *t = tl_numpy_scalar_as(dt, sc, err);
    if (!t)
        return NULL;
    tl_value *r = tl_index_parse_np_scalar(t, err);
    tl_tensor_release(t);
    return r;
}

void tl_bind_numpy_install(void)
{
    tl_value_set_np_ctor(np_type_ctor);
}
