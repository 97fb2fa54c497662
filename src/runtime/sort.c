/* sort.c - sort and topk: stable, NaN largest; sort keeps self's
 * layout (preserve_format), topk is contiguous. argsort, msort and
 * kthvalue (scan.h) are selections from sort's results.
 *
 * Part of the ops family (ops.h is its public interface, ops_impl.h the
 * helpers its files share); see iter.c for the design every op follows:
 * kernels only through the backend, TensorIterator's dtype and layout
 * rules, PyTorch's order of in-place checks, C operands (tl_operand,
 * int64 dim lists, out-parameters) and never a Python value.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "create.h"
#include "matmul.h"
#include "ops.h"
#include "ops_impl.h"
#include "scan.h"
#include "shape.h"
#include "view.h"

/* ===================================================================== */
/* sort / topk                                                           */
/* ===================================================================== */

/* Sort every row of t along dim d; write the first k items of each row
 * to vals/idx (shape of t with size k at d; any strides): one kernel on
 * t's device (stable, NaN largest). */
static int sort_rows(const tl_tensor *t, int d, bool desc, int64_t k,
                     tl_tensor *vals, tl_tensor *idx, tl_error *err)
{
    tl_strided s = tl_ops_strided_of(t), v = tl_ops_strided_of(vals), i = tl_ops_strided_of(idx);
    return tl_backend_sort(tl_tensor_backend(t), &v, &i, &s, d, desc, k, err);
}

int tl_ops_sort(const tl_tensor *t, int64_t dim, bool descending,
                tl_tensor **values, tl_tensor **indices, tl_error *err)
{
    int d;
    if (tl_shape_wrap_dim(dim, t->ndim, &d, err) < 0)
        return -1;
    /* both outputs take self's layout by the preserve_format rule */
    int64_t st[TL_MAX_DIMS];
    tl_tensor_preserve_strides(t, st);
    const tl_backend *be = tl_tensor_backend(t);
    tl_tensor *v = tl_tensor_new_strided(be, t->dtype, t->ndim, t->sizes, st, err);
    if (!v)
        return -1;
    tl_tensor *ix = tl_tensor_new_strided(be, TL_INT64, t->ndim, t->sizes, st, err);
    if (!ix) {
        tl_tensor_release(v);
        return -1;
    }
    int64_t n = t->ndim ? t->sizes[d] : 1;
    if (sort_rows(t, d, descending, n, v, ix, err) < 0) {
        tl_tensor_release(v);
        tl_tensor_release(ix);
        return -1;
    }
    tl_ops_grad_result(v, t->requires_grad);
    *values = v;
    *indices = ix;
    return 0;
}

int tl_ops_topk(const tl_tensor *t, int64_t k, int64_t dim, bool largest,
                tl_tensor **values, tl_tensor **indices, tl_error *err)
{
    int d;
    if (tl_shape_wrap_dim(dim, t->ndim, &d, err) < 0)
        return -1;
    int64_t n = t->ndim ? t->sizes[d] : 1;
    if (k < 0 || k > n) {
        tl_error_set(err, TL_ERR_RUNTIME, "selected index k out of range");
        return -1;
    }
    if (t->ndim == 0) {
        /* topk_out_cpu's 0-d shortcut: values.copy_(self), indices.zero_(),
         * before any dtype dispatch (a 0-d bool works; k = 0 copies too) */
        tl_tensor *v = tl_ops_clone(t, TL_MEMFMT_CONTIGUOUS, err);
        if (!v)
            return -1;
        /* (zero_() inside the kernel: no version bump, so _version is 0) */
        tl_scalar zero = {0};
        tl_tensor *ix = tl_create_full(tl_tensor_backend(t), TL_INT64, 0, NULL, zero, err);
        if (!ix) {
            tl_tensor_release(v);
            tl_tensor_release(ix);
            return -1;
        }
        *values = v;
        *indices = ix;
        return 0;
    }
    if (t->dtype == TL_BOOL) { /* topk's CPU kernel dispatches no Bool */
        tl_error_set(err, TL_ERR_RUNTIME, "\"topk_cpu\" not implemented for 'Bool'");
        return -1;
    }
    int64_t sz[TL_MAX_DIMS];
    memcpy(sz, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    if (t->ndim)
        sz[d] = k;
    const tl_backend *be = tl_tensor_backend(t);
    tl_tensor *v = tl_tensor_new(be, t->dtype, t->ndim, sz, err);
    if (!v)
        return -1;
    tl_tensor *ix = tl_tensor_new(be, TL_INT64, t->ndim, sz, err);
    if (!ix) {
        tl_tensor_release(v);
        return -1;
    }
    if (sort_rows(t, d, largest, k, v, ix, err) < 0) {
        tl_tensor_release(v);
        tl_tensor_release(ix);
        return -1;
    }
    tl_ops_grad_result(v, t->requires_grad);
    *values = v;
    *indices = ix;
    return 0;
}

/* ===================================================================== */
/* argsort / msort / kthvalue (scan.h)                                   */
/* ===================================================================== */

tl_tensor *tl_ops_argsort(const tl_tensor *t, int64_t dim, bool descending,
                          tl_error *err)
{
    /* argsort is sort(stable, dim, descending).indices (2.x and 1.13) */
    tl_tensor *v = NULL, *ix = NULL;
    if (tl_ops_sort(t, dim, descending, &v, &ix, err) < 0)
        return NULL;
    tl_tensor_release(v);
    return ix;
}

tl_tensor *tl_ops_msort(const tl_tensor *t, tl_error *err)
{
    /* msort is sort(dim=0).values */
    tl_tensor *v = NULL, *ix = NULL;
    if (tl_ops_sort(t, 0, false, &v, &ix, err) < 0)
        return NULL;
    tl_tensor_release(ix);
    return v;
}

/* The k-th position of a sorted row along d as a new contiguous tensor
 * (keepdim: size 1 at d, else d dropped). */
static tl_tensor *pick(const tl_tensor *sorted, int d, int64_t pos, bool keepdim,
                       tl_error *err)
{
    tl_tensor *v = keepdim ? tl_view_narrow(sorted, d, pos, 1, err)
                           : tl_view_select(sorted, d, pos, err);
    if (!v)
        return NULL;
    tl_tensor *r = tl_ops_clone(v, TL_MEMFMT_CONTIGUOUS, err);
    tl_tensor_release(v);
    return r;
}

int tl_ops_kthvalue(const tl_tensor *t, int64_t k, int64_t dim, bool keepdim,
                    tl_tensor **values, tl_tensor **indices, tl_error *err)
{
    /* kthvalue_out_impl_cpu's order: wrap dim (a 0-d takes 0 and -1),
     * the reduction dim must be non-empty, k in range, then the 0-d
     * shortcut (values.copy_(self), indices.zero_()) before dispatch */
    int d;
    if (tl_shape_wrap_dim(dim, t->ndim, &d, err) < 0)
        return -1;
    if (t->ndim > 0 && t->sizes[d] == 0)
        return tl_error_set(err, TL_ERR_INDEX,
                            "kthvalue(): Expected reduction dim %d to have non-zero size.", d);
    int64_t n = t->ndim ? t->sizes[d] : 1;
    if (k < 1 || k > n)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "kthvalue(): selected number k out of range for dimension %d", d);
    if (t->ndim == 0) {
        tl_tensor *v = tl_ops_clone(t, TL_MEMFMT_CONTIGUOUS, err);
        if (!v)
            return -1;
        tl_scalar zero = {0};
        tl_tensor *ix = tl_create_full(tl_tensor_backend(t), TL_INT64, 0, NULL, zero, err);
        if (!ix) {
            tl_tensor_release(v);
            return -1;
        }
        *values = v;
        *indices = ix;
        return 0;
    }
    if (t->dtype == TL_BOOL || t->dtype == TL_FLOAT16)
        /* AT_DISPATCH_ALL_TYPES_AND(BFloat16): no Bool, no Half */
        return tl_error_set(err, TL_ERR_RUNTIME, "\"kthvalue_%s\" not implemented for '%s'",
                            tl_tensor_device(t).kind == TL_DEV_CUDA ? "cuda" : "cpu",
                            tl_dtype_scalar_name(t->dtype));
    /* the k-th smallest, NaN largest: position k-1 of the ascending sort
     * (ties: the stable sort's order) */
    tl_tensor *sv = NULL, *si = NULL;
    if (tl_ops_sort(t, d, false, &sv, &si, err) < 0)
        return -1;
    tl_tensor *v = pick(sv, d, k - 1, keepdim, err);
    tl_tensor *ix = v ? pick(si, d, k - 1, keepdim, err) : NULL;
    tl_tensor_release(sv);
    tl_tensor_release(si);
    if (!ix) {
        if (v)
            tl_tensor_release(v);
        return -1;
    }
    tl_ops_grad_result(v, t->requires_grad);
    *values = v;
    *indices = ix;
    return 0;
}
