/* sort.c - sort and topk: stable, NaN largest; sort keeps self's
 * layout (preserve_format), topk is contiguous.
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
#include "shape.h"

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
