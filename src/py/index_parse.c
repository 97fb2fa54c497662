/* index_parse.c - Python subscripts for the runtime's indexing: the
 * index value (int, slice, None, Ellipsis, bool, tensor, nested lists,
 * tuples of those) becomes a tl_index item array; the assigned value
 * becomes a tensor or a number; the result becomes a tensor, ndarray or
 * NumPy scalar value.
 *
 * Design: the normalisation mirrors python_variable_indexing.cpp: a tuple
 * is a list of items; a list holding a slice/None/Ellipsis/sequence/tensor
 * is treated as a tuple; any other list becomes an index tensor
 * (indexing_tensor_from_data: Long unless all-bool). The indexing plan
 * itself (applySlicing, advanced indexing, gather/scatter) is index.c's.
 * Error order is PyTorch's: a bad item type is raised while parsing, a
 * bad slice bound only when that slice is applied.
 */
#include "index_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "create.h"
#include "index.h"
#include "numpy.h"
#include "ops.h"
#include "storage.h"
#include "util.h"

typedef struct shapeinfo {
    int ndim;
    int64_t sizes[TL_MAX_DIMS];
    bool any_float, any_int, any_bool;
    int64_t count;
} shapeinfo;

static int list_shape(const tl_value *v, int depth, shapeinfo *si,
                      tl_error *err)
{
    if (v->kind == TL_V_LIST || v->kind == TL_V_TUPLE) {
        if (depth >= TL_MAX_DIMS)
            return tl_error_set(err, TL_ERR_LIMIT, "nested sequence too deep");
        int64_t n = (int64_t)v->u.seq.n;
        if (depth == si->ndim) {
            if (si->count > 0 && depth > 0)
                return tl_error_set(err, TL_ERR_TYPE, "'%s' object cannot be "
                                    "interpreted as an integer",
                                    tl_value_type_name(v));
            si->sizes[si->ndim++] = n;
        } else if (si->sizes[depth] != n) {
            return tl_error_set(err, TL_ERR_VALUE, "expected sequence of "
                                "length %lld at dim %d (got %lld)",
                                (long long)si->sizes[depth], depth,
                                (long long)n);
        }
        for (size_t i = 0; i < v->u.seq.n; i++)
            if (list_shape(v->u.seq.items[i], depth + 1, si, err))
                return -1;
        return 0;
    }
    if (depth < si->ndim)
        return tl_error_set(err, TL_ERR_TYPE, "not a sequence");
    switch (v->kind) {
    case TL_V_BOOL: si->any_bool = true; break;
    case TL_V_INT: si->any_int = true; break;
    case TL_V_FLOAT: si->any_float = true; break;
    case TL_V_TENSOR:
    case TL_V_NDARRAY:
        if (v->u.tensor->ndim != 0)
            return tl_error_set(err, TL_ERR_VALUE, "only one element tensors "
                                "can be converted to Python scalars");
        if (tl_dtype_is_floating(v->u.tensor->dtype))
            si->any_float = true;
        else if (v->u.tensor->dtype == TL_BOOL)
            si->any_bool = true;
        else
            si->any_int = true;
        break;
    default:
        return tl_error_set(err, TL_ERR_TYPE, "new(): invalid data type '%s'",
                            tl_value_type_name(v));
    }
    if (++si->count > TL_INDEX_MAX_ELEMS)
        return tl_index_limit_error(err);
    return 0;
}

static int list_fill(const tl_value *v, tl_tensor *t, int64_t *k,
                     tl_error *err)
{
    if (v->kind == TL_V_LIST || v->kind == TL_V_TUPLE) {
        for (size_t i = 0; i < v->u.seq.n; i++)
            if (list_fill(v->u.seq.items[i], t, k, err))
                return -1;
        return 0;
    }
    int rc;
    if (tl_dtype_is_floating(t->dtype)) {
        double d = 0;
        tl_value_as_double(v, &d);
        rc = tl_tensor_set_f64(t, (*k)++, d, err);
    } else {
        int64_t i = 0;
        double d;
        if (v->kind == TL_V_FLOAT || ((v->kind == TL_V_TENSOR ||
                                       v->kind == TL_V_NDARRAY) &&
                                      tl_dtype_is_floating(v->u.tensor->dtype))) {
            tl_value_as_double(v, &d);
            i = (int64_t)d;
        } else if (v->kind == TL_V_NDARRAY) {
            tl_tensor_get_i64(v->u.tensor, 0, &i, NULL);
        } else {
            tl_value_as_index(v, &i);
        }
        rc = tl_tensor_set_i64(t, (*k)++, i, err);
    }
    return rc;
}

/* torch.tensor(list) for indexing (Long unless all-bool, as
 * indexing_tensor_from_data) or for values (Float64/Long/Bool). */
static tl_tensor *list_to_tensor(const tl_value *v, bool for_index,
                                 tl_error *err)
{
    shapeinfo si;
    memset(&si, 0, sizeof si);
    if (list_shape(v, 0, &si, err))
        return NULL;
    tl_dtype dt;
    if (si.any_bool && !si.any_int && !si.any_float)
        dt = TL_BOOL;
    else if (for_index || !si.any_float)
        dt = TL_INT64;
    else
        dt = TL_FLOAT64;
    if (for_index && si.count == 0)
        dt = TL_INT64;
    tl_tensor *t = tl_tensor_new(tl_backend_cpu(), dt, si.ndim, si.sizes, err);
    if (!t)
        return NULL;
    int64_t k = 0;
    if (list_fill(v, t, &k, err)) {
        tl_tensor_release(t);
        return NULL;
    }
    return t;
}

/* A slice bound: None (absent) or an __index__-able value (not a bool);
 * false when it is neither. */
static bool slice_bound(const tl_value *v, bool *has, int64_t *out)
{
    *has = false;
    if (!v || v->kind == TL_V_NONE)
        return true;
    if (v->kind == TL_V_BOOL || !tl_value_as_index(v, out))
        return false;
    *has = true;
    return true;
}

/* ------------------------------------------------------------------ */
/* parsing the index value into items                                  */
/* ------------------------------------------------------------------ */

/* PyTorch (and NumPy before 1.23) index with a short list holding a
 * slice, None, Ellipsis, a sequence or a tensor as with a tuple. NumPy
 * 1.23+ takes a list of lists as one array index (a[[[0], [1]]] has shape
 * (2, 1, ...)); tlab still reads a list of arrays as a tuple there. */
static bool treat_as_tuple(const tl_value *v, bool np)
{
    if (v->kind == TL_V_TUPLE || v->kind == TL_V_SIZE)
        return true;
    if (v->kind != TL_V_LIST || v->u.seq.n >= 32)
        return false;
    for (size_t i = 0; i < v->u.seq.n; i++) {
        const tl_value *o = v->u.seq.items[i];
        if (o->kind == TL_V_TENSOR || o->kind == TL_V_NDARRAY ||
            (tl_value_is_seq(o) && !np) || o->kind == TL_V_SLICE ||
            o->kind == TL_V_ELLIPSIS || o->kind == TL_V_NONE ||
            o->kind == TL_V_STR)
            return true;
    }
    return false;
}

/* NumPy 1.23+: a list holding a slice, None or Ellipsis is no index */
static bool np_bad_list(const tl_value *v)
{
    if (v->kind != TL_V_LIST)
        return false;
    for (size_t i = 0; i < v->u.seq.n; i++) {
        const tl_value *o = v->u.seq.items[i];
        if (o->kind == TL_V_SLICE || o->kind == TL_V_ELLIPSIS || o->kind == TL_V_NONE)
            return true;
    }
    return false;
}

static int bad_index_type(bool np, const tl_value *v, tl_error *err)
{
    if (np)
        return tl_index_np_type_error(err);
    if (v->kind == TL_V_STR)
        return tl_error_set(err, TL_ERR_TYPE, "new(): invalid data type 'str'");
    return tl_error_set(err, TL_ERR_INDEX, "only integers, slices (`:`), "
                        "ellipsis (`...`), None and long or byte Variables "
                        "are valid indices (got %s)", tl_value_type_name(v));
}

static int parse_item(const tl_value *v, bool np, tl_index_item *it, tl_error *err)
{
    memset(it, 0, sizeof *it);
    switch (v->kind) {
    case TL_V_INT: it->kind = TL_INDEX_INT; it->i = v->u.i; return 0;
    case TL_V_BOOL: it->kind = TL_INDEX_BOOL; it->i = v->u.b; return 0;
    case TL_V_NONE: it->kind = TL_INDEX_NONE; return 0;
    case TL_V_ELLIPSIS: it->kind = TL_INDEX_ELLIPSIS; return 0;
    case TL_V_SLICE:
        it->kind = TL_INDEX_SLICE;
        /* a bad bound raises when the slice applies, as in PyTorch */
        it->bad_slice =
            !slice_bound(v->u.slice.start, &it->has_start, &it->start) ||
            !slice_bound(v->u.slice.stop, &it->has_stop, &it->stop) ||
            !slice_bound(v->u.slice.step, &it->has_step, &it->step);
        return 0;
    case TL_V_TENSOR:
    case TL_V_NDARRAY:
        it->kind = TL_INDEX_TENSOR;
        it->t = tl_tensor_retain(v->u.tensor);
        return 0;
    case TL_V_LIST:
    case TL_V_TUPLE:
    case TL_V_SIZE: {
        if (np) {
            /* NumPy: float entries are refused */
            shapeinfo si;
            memset(&si, 0, sizeof si);
            if (list_shape(v, 0, &si, err))
                return -1;
            if (si.any_float)
                return bad_index_type(true, v, err);
        }
        it->kind = TL_INDEX_TENSOR;
        it->t = list_to_tensor(v, true, err);
        return it->t ? 0 : -1;
    }
    default:
        return bad_index_type(np, v, err);
    }
}

int tl_index_parse(const tl_value *index, bool np, tl_index *out,
                   tl_error *err)
{
    out->n = 0;
    out->items = NULL;
    if (np && np_bad_list(index))
        return tl_index_np_type_error(err);
    out->single = !treat_as_tuple(index, np);
    const tl_value *const *src = &index;
    size_t m = 1;
    if (!out->single) {
        src = (const tl_value *const *)index->u.seq.items;
        m = index->u.seq.n;
    }
    if (m > 4 * TL_MAX_DIMS)
        return tl_error_set(err, TL_ERR_LIMIT, "an index with more than %d "
                            "entries is not supported", 4 * TL_MAX_DIMS);
    out->items = tl_xcalloc(m > 0 ? m : 1, sizeof *out->items);
    for (size_t i = 0; i < m; i++) {
        if (parse_item(src[i], np, &out->items[i], err)) {
            tl_index_free(out);
            return -1;
        }
        out->n = (int)i + 1;
    }
    return 0;
}

static void tensor_type_name(const tl_tensor *t, tl_buf *b)
{
    const char *name = tl_dtype_tensor_type(t->dtype);
    if (tl_tensor_device(t).kind == TL_DEV_CUDA &&
        strncmp(name, "torch.", 6) == 0) {
        tl_buf_puts(b, "torch.cuda.");
        tl_buf_puts(b, name + 6);
    } else {
        tl_buf_puts(b, name);
    }
}

/* The value as a scalar or a tensor (new reference in *vt). */
static int value_operand(const tl_tensor *x, bool np, tl_value *v,
                         tl_tensor **vt, tl_scalar *sc, bool *is_scalar,
                         tl_error *err)
{
    *vt = NULL;
    *is_scalar = false;
    memset(sc, 0, sizeof *sc);
    switch (v->kind) {
    case TL_V_BOOL:
    case TL_V_INT:
        *is_scalar = true;
        sc->i = v->kind == TL_V_BOOL ? v->u.b : v->u.i;
        sc->f = (double)sc->i;
        return 0;
    case TL_V_FLOAT:
        *is_scalar = true;
        sc->is_float = true;
        sc->f = v->u.f;
        return 0;
    case TL_V_TENSOR:
        *vt = tl_tensor_retain(v->u.tensor);
        return 0;
    case TL_V_NDARRAY:
        if (np) {
            *vt = tl_tensor_retain(v->u.tensor);
            return 0;
        }
        break;
    case TL_V_LIST:
    case TL_V_TUPLE:
        if (np) {
            *vt = list_to_tensor(v, false, err);
            return *vt ? 0 : -1;
        }
        break;
    default:
        break;
    }
    if (np)
        return tl_error_set(err, TL_ERR_TYPE, "float() argument must be a "
                            "string or a number, not '%s'",
                            tl_value_type_name(v));
    tl_buf b = {0};
    tensor_type_name(x, &b);
    tl_error_set(err, TL_ERR_TYPE, "can't assign a %s to a %s",
                 tl_value_type_name(v), tl_buf_str(&b));
    tl_buf_free(&b);
    return -1;
}

tl_value *tl_index_parse_np_scalar(const tl_tensor *v, tl_error *err)
{
    tl_value *r = NULL;
    if (tl_dtype_is_floating(v->dtype)) {
        double d;
        if (tl_tensor_get_f64(v, 0, &d, err) == 0)
            r = tl_float(d);
    } else {
        int64_t i;
        if (tl_tensor_get_i64(v, 0, &i, err) == 0)
            r = v->dtype == TL_BOOL ? tl_bool(i != 0) : tl_int(i);
    }
    if (r) { /* a NumPy scalar (np.float32): shape (), dtype, item() */
        r->npdt = TL_NPDT_DTYPE;
        r->sdtype = v->dtype;
    }
    return r;
}

tl_value *tl_index_parse_getitem(tl_value *obj, tl_value *index,
                                 tl_error *err)
{
    TL_ASSERT(obj->kind == TL_V_TENSOR || obj->kind == TL_V_NDARRAY);
    bool np = obj->kind == TL_V_NDARRAY;
    tl_index ix;
    if (tl_index_parse(index, np, &ix, err) < 0)
        return NULL;
    tl_tensor *r = NULL;
    bool scalar = false;
    int rc = tl_index_get(obj->u.tensor, np, &ix, &r, &scalar, err);
    tl_index_free(&ix);
    if (rc < 0)
        return NULL;
    if (scalar) {
        tl_value *s = tl_index_parse_np_scalar(r, err);
        tl_tensor_release(r);
        return s;
    }
    if (np && r->storage != obj->u.tensor->storage && tl_tensor_numel(r) == 0)
        /* NumPy's empty advanced-indexing result has all-zero strides */
        for (int i = 0; i < r->ndim; i++)
            r->strides[i] = 0;
    return np ? tl_value_ndarray(r) : tl_value_tensor(r);
}

int tl_index_parse_setitem(tl_value *obj, tl_value *index, tl_value *v,
                           tl_error *err)
{
    TL_ASSERT(obj->kind == TL_V_TENSOR || obj->kind == TL_V_NDARRAY);
    bool np = obj->kind == TL_V_NDARRAY;
    tl_tensor *x = obj->u.tensor;
    tl_tensor *vt = NULL;
    tl_scalar sc;
    bool is_scalar;
    if (value_operand(x, np, v, &vt, &sc, &is_scalar, err))
        return -1;
    /* THPVariable_setitem turns a Python number into a tensor of x's dtype
     * (valueToTensor, Scalar::to's overflow check) before it looks at the
     * index: `u8[9] = 300` names the overflow even when 9 is out of range */
    if (is_scalar && !np && tl_create_check_scalar(x->dtype, sc, err) < 0)
        return -1;
    /* NumPy casts an out-of-range number into the array's dtype (wraps,
     * overflows to inf) where torch raises: the value as a 0-d array */
    if (is_scalar && np && !(vt = tl_numpy_scalar_as(x->dtype, sc, err)))
        return -1;
    /* NumPy's assignment copies the value through a temporary when the
     * two arrays may share memory (n[1:] = n[:-1], n[::-1] = n); torch's
     * overlap check is torch's only */
    if (np && vt && vt->storage && x->storage &&
        tl_storage_same(vt->storage, x->storage)) {
        tl_tensor *tmp = tl_ops_clone(vt, TL_MEMFMT_CONTIGUOUS, err);
        tl_tensor_release(vt);
        if (!tmp)
            return -1;
        vt = tmp;
    }
    tl_index ix;
    int rc = -1;
    if (tl_index_parse(index, np, &ix, err) == 0) {
        rc = tl_index_set(x, np, &ix, vt, &sc, err);
        tl_index_free(&ix);
    }
    tl_tensor_release(vt);
    return rc;
}
