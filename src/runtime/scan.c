/* scan.c - cumsum/cumprod, lerp and take_along_dim (issue #27).
 *
 * Part of the ops family (see iter.c for the design every op follows):
 * kernels only through the backend, PyTorch's checks in PyTorch's order
 * and words, C operands.
 *   cumsum/cumprod  one backend kernel (tl_backend_scan; a device without
 *                   one stages to the CPU's): sequential along dim in the
 *                   CPU's accumulate type, so every backend gives the CPU's
 *                   bits. Input converted to the result dtype first
 *                   (impl_func_cum_ops: self.to(result.scalar_type())).
 *   lerp            composed from the elementwise kernels in opmath (float
 *                   for float16/bfloat16, else the dtype), rounded once to
 *                   the dtype: self + w*(end-self) where |w| < 0.5, else
 *                   end - (end-self)*(1-w), PyTorch's formula without FMA
 *                   (2.x's AVX path fuses it; its scalar path does not).
 *   take_along_dim  torch's _take_along_dim_helper: broadcast both to each
 *                   other except along dim, then gather (index.c).
 */
#include <math.h>
#include <string.h>

#include "index.h"
#include "ops.h"
#include "ops_impl.h"
#include "scan.h"
#include "shape.h"
#include "view.h"

static const char *dev_word(const tl_tensor *t)
{
    return tl_tensor_device(t).kind == TL_DEV_CUDA ? "cuda" : "cpu";
}

/* ===================================================================== */
/* cumsum / cumprod                                                      */
/* ===================================================================== */

/* dst <- cum(src) along d (src already of dst's dtype and shape). */
static int run_scan(bool prod, const tl_tensor *dst, const tl_tensor *src,
                    int d, tl_error *err)
{
    if (tl_tensor_numel(dst) == 0)
        return 0; /* result.zero_(): a new tensor is zeroed already */
    if (dst->dtype == TL_BOOL)
        return tl_error_set(err, TL_ERR_RUNTIME, "\"%s_out_%s\" not implemented for 'Bool'",
                            prod ? "cumprod" : "cumsum", dev_word(dst));
    static const int64_t one = 1;
    tl_strided s = tl_ops_strided_of(src), o = tl_ops_strided_of(dst);
    if (src->ndim == 0) { /* result.fill_(self): one element */
        s.ndim = o.ndim = 1;
        s.sizes = o.sizes = s.strides = o.strides = &one;
        d = 0;
    }
    return tl_backend_scan(tl_tensor_backend(dst), prod, &o, &s, d, err);
}

tl_tensor *tl_scan_cum(bool prod, const tl_tensor *t, int64_t dim,
                       const tl_dtype *dtype, tl_error *err)
{
    int d;
    if (tl_shape_wrap_dim(dim, t->ndim, &d, err) < 0)
        return NULL;
    tl_dtype odt = dtype ? *dtype
                         : (t->dtype == TL_BOOL || tl_dtype_is_integral(t->dtype)) ? TL_INT64
                                                                                   : t->dtype;
    const tl_backend *be = tl_tensor_backend(t);
    tl_tensor *out = tl_tensor_new(be, odt, t->ndim, t->sizes, err);
    if (!out)
        return NULL;
    if (t->ndim == 0 && odt == TL_BOOL) {
        /* 0-d: result.fill_(self), before any dispatch (bool included) */
        if (tl_ops_copy_into(out, t, t->strides, err) < 0) {
            tl_tensor_release(out);
            return NULL;
        }
        return out;
    }
    tl_tensor *src = tl_ops_to((tl_tensor *)t, be, odt, false, TL_MEMFMT_PRESERVE, err);
    if (!src) {
        tl_tensor_release(out);
        return NULL;
    }
    int rc = run_scan(prod, out, src, d, err);
    tl_tensor_release(src);
    if (rc < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    tl_ops_grad_result(out, t->requires_grad);
    return out;
}

int tl_scan_cum_(bool prod, tl_tensor *t, int64_t dim, const tl_dtype *dtype,
                 tl_error *err)
{
    if (tl_ops_check_inplace_grad(t, err) < 0)
        return -1;
    int d;
    if (tl_shape_wrap_dim(dim, t->ndim, &d, err) < 0)
        return -1;
    if (dtype && *dtype != t->dtype)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "Bad in-place call: input tensor dtype %s and output tensor "
                            "dtype %s should match",
                            tl_dtype_typemeta_name(t->dtype), tl_dtype_typemeta_name(*dtype));
    if (!(t->ndim == 0 && t->dtype == TL_BOOL) && run_scan(prod, t, t, d, err) < 0)
        return -1;
    tl_tensor_bump_version(t);
    return 0;
}

/* ===================================================================== */
/* lerp                                                                  */
/* ===================================================================== */

/* A new zeroed contiguous scratch tensor of shape (nd, shape). */
static tl_tensor *tmp(const tl_backend *be, tl_dtype dt, int nd,
                      const int64_t *shape, tl_error *err)
{
    return tl_tensor_new(be, dt, nd, shape, err);
}

/* dst (of the broadcast shape, dtype self's) <- lerp(self, end, w). */
static int lerp_compute(const tl_tensor *dst, const tl_tensor *self,
                        const tl_tensor *end, const tl_tensor *wt, double w,
                        const tl_backend *be, int nd, const int64_t *shape,
                        tl_error *err)
{
    tl_dtype D = self->dtype;
    tl_dtype C = D == TL_FLOAT64 ? TL_FLOAT64 : TL_FLOAT32; /* opmath */
    opnd os = tl_ops_opnd_tensor(self), oe = tl_ops_opnd_tensor(end);
    tl_tensor *diff = tmp(be, C, nd, shape, err);
    if (!diff)
        return -1;
    opnd od = tl_ops_opnd_tensor(diff);
    int rc = tl_ops_run_binary(TL_BIN_SUB, C, diff, &oe, &os, err);
    if (rc < 0) {
        tl_tensor_release(diff);
        return -1;
    }
    if (!wt) {
        /* weight.to<opmath_t>(), one branch for every element */
        double wf = C == TL_FLOAT64 ? w : (double)(float)w;
        if (fabs(wf) < 0.5) {
            opnd ow = tl_ops_opnd_float(wf);
            rc = tl_ops_run_binary(TL_BIN_MUL, C, diff, &od, &ow, err);
            if (rc == 0)
                rc = tl_ops_run_binary(TL_BIN_ADD, C, dst, &os, &od, err);
        } else {
            double omw = C == TL_FLOAT64 ? 1.0 - wf : (double)(1.0f - (float)wf);
            opnd ow = tl_ops_opnd_float(omw);
            rc = tl_ops_run_binary(TL_BIN_MUL, C, diff, &od, &ow, err);
            if (rc == 0)
                rc = tl_ops_run_binary(TL_BIN_SUB, C, dst, &oe, &od, err);
        }
        tl_tensor_release(diff);
        return rc;
    }
    tl_tensor *a = NULL, *b = NULL, *aw = NULL, *mask = NULL, *r = NULL;
    a = tmp(be, C, nd, shape, err);
    b = a ? tmp(be, C, nd, shape, err) : NULL;
    aw = b ? tmp(be, C, wt->ndim, wt->sizes, err) : NULL;
    mask = aw ? tmp(be, TL_BOOL, nd, shape, err) : NULL;
    rc = mask ? 0 : -1;
    opnd ow = tl_ops_opnd_tensor(wt), one = tl_ops_opnd_float(1.0), half = tl_ops_opnd_float(0.5);
    opnd oa = tl_ops_opnd_tensor(a), ob = tl_ops_opnd_tensor(b), oaw = tl_ops_opnd_tensor(aw);
    /* a = self + w * diff;  b = end - diff * (1 - w);  |w| < 0.5 ? a : b */
    if (rc == 0)
        rc = tl_ops_run_binary(TL_BIN_MUL, C, a, &ow, &od, err);
    if (rc == 0)
        rc = tl_ops_run_binary(TL_BIN_ADD, C, a, &os, &oa, err);
    if (rc == 0)
        rc = tl_ops_run_binary(TL_BIN_SUB, C, b, &one, &ow, err);
    if (rc == 0)
        rc = tl_ops_run_binary(TL_BIN_MUL, C, b, &od, &ob, err);
    if (rc == 0)
        rc = tl_ops_run_binary(TL_BIN_SUB, C, b, &oe, &ob, err);
    if (rc == 0)
        rc = tl_ops_run_unary(TL_UN_ABS, C, aw, wt, err);
    if (rc == 0)
        rc = tl_ops_run_binary(TL_BIN_LT, C, mask, &oaw, &half, err);
    if (rc == 0) {
        r = tl_ops_where(mask, &oa, &ob, err);
        rc = r ? tl_ops_copy_into(dst, r, r->strides, err) : -1;
    }
    tl_tensor *all[] = {diff, a, b, aw, mask, r};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i])
            tl_tensor_release(all[i]);
    return rc;
}

/* The meta checks of lerp_Scalar / lerp_Tensor, the broadcast shape, the
 * device and the kernel's dispatch (floating dtypes only). */
static int lerp_check(const tl_tensor *self, const tl_tensor *end,
                      const tl_tensor *wt, const tl_backend **be, int *nd,
                      int64_t *shape, tl_error *err)
{
    if (end->dtype != self->dtype)
        return tl_error_set(err, TL_ERR_RUNTIME, "expected dtype %s for `end` but got dtype %s",
                            tl_dtype_typemeta_name(self->dtype), tl_dtype_typemeta_name(end->dtype));
    if (wt && wt->dtype != self->dtype)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "expected dtype %s for `weight` but got dtype %s",
                            tl_dtype_typemeta_name(self->dtype), tl_dtype_typemeta_name(wt->dtype));
    opnd ops[3] = {tl_ops_opnd_tensor(self), tl_ops_opnd_tensor(end),
                   tl_ops_opnd_tensor(wt ? wt : self)};
    int n = wt ? 3 : 2;
    if (tl_ops_common_device(ops, n, be, err) < 0 || tl_ops_opnds_shape(ops, n, nd, shape, err) < 0)
        return -1;
    if (!tl_dtype_is_floating(self->dtype)) {
        bool cuda = tl_tensor_device(self).kind == TL_DEV_CUDA;
        return tl_error_set(err, TL_ERR_RUNTIME, "\"%s\" not implemented for '%s'",
                            cuda ? "lerp_cuda" : wt ? "lerp_kernel_tensor" : "lerp_kernel_scalar",
                            tl_dtype_scalar_name(self->dtype));
    }
    return 0;
}

tl_tensor *tl_scan_lerp(const tl_tensor *self, const tl_tensor *end,
                        const tl_tensor *wt, double w, tl_error *err)
{
    const tl_backend *be;
    int nd;
    int64_t shape[TL_MAX_DIMS], st[TL_MAX_DIMS];
    if (lerp_check(self, end, wt, &be, &nd, shape, err) < 0)
        return NULL;
    opnd ops[3] = {tl_ops_opnd_tensor(self), tl_ops_opnd_tensor(end),
                   tl_ops_opnd_tensor(wt ? wt : self)};
    tl_ops_iter_out_strides(ops, wt ? 3 : 2, self->dtype, nd, shape, st);
    tl_tensor *out = tl_tensor_new_strided(be, self->dtype, nd, shape, st, err);
    if (!out)
        return NULL;
    if (tl_tensor_numel(out) > 0 &&
        lerp_compute(out, self, end, wt, w, be, nd, shape, err) < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    tl_ops_grad_result(out, self->requires_grad || end->requires_grad ||
                                (wt && wt->requires_grad));
    return out;
}

int tl_scan_lerp_(tl_tensor *self, const tl_tensor *end, const tl_tensor *wt,
                  double w, tl_error *err)
{
    if (tl_ops_check_inplace_grad(self, err) < 0)
        return -1;
    const tl_backend *be;
    int nd;
    int64_t shape[TL_MAX_DIMS];
    /* TensorIterator's build order: overlaps, then the shape */
    if (end->dtype == self->dtype && (!wt || wt->dtype == self->dtype) &&
        (tl_ops_assert_no_internal_overlap(self, err) < 0 ||
         tl_ops_assert_no_partial_overlap(self, end, err) < 0 ||
         (wt && tl_ops_assert_no_partial_overlap(self, wt, err) < 0)))
        return -1;
    if (lerp_check(self, end, wt, &be, &nd, shape, err) < 0 ||
        tl_ops_check_out_shape(self, nd, shape, err) < 0)
        return -1;
    if (tl_tensor_numel(self) > 0 &&
        lerp_compute(self, self, end, wt, w, be, nd, shape, err) < 0)
        return -1;
    tl_ops_grad_inplace(self, end->requires_grad || (wt && wt->requires_grad));
    tl_tensor_bump_version(self);
    return 0;
}

/* ===================================================================== */
/* take_along_dim                                                        */
/* ===================================================================== */

tl_tensor *tl_scan_take_along_dim(const tl_tensor *t, const tl_tensor *idx,
                                  bool has_dim, int64_t dim, tl_error *err)
{
    if (!has_dim) {
        /* self.view(-1).gather(0, indices.view(-1)) */
        int64_t m1 = -1;
        tl_tensor *ft = tl_view_view(t, 1, &m1, err);
        if (!ft)
            return NULL;
        tl_tensor *fi = tl_view_view(idx, 1, &m1, err);
        if (!fi) {
            tl_tensor_release(ft);
            return NULL;
        }
        tl_tensor *r = tl_index_gather(ft, 0, fi, err);
        tl_tensor_release(ft);
        tl_tensor_release(fi);
        return r;
    }
    if (t->ndim != idx->ndim) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "torch.take_along_dim(): input and indices should have the same "
                     "number of dimensions, but got %d dimensions for input, and %d "
                     "dimensions for indices", t->ndim, idx->ndim);
        return NULL;
    }
    if (idx->dtype != TL_INT64) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "torch.take_along_dim(): dtype of indices should be Long but got %s",
                     tl_dtype_scalar_name(idx->dtype));
        return NULL;
    }
    int d;
    if (tl_shape_wrap_dim(dim, t->ndim, &d, err) < 0)
        return NULL;
    if (t->ndim == 0) { /* indices.size(dim) of a 0-d tensor */
        tl_error_set(err, TL_ERR_INDEX, "Dimension specified as 0 but tensor has no dimensions");
        return NULL;
    }
    int nd = t->ndim, n1, n2;
    int64_t a[TL_MAX_DIMS], ishape[TL_MAX_DIMS], tshape[TL_MAX_DIMS];
    memcpy(a, t->sizes, sizeof(int64_t) * (size_t)nd);
    a[d] = idx->sizes[d];
    if (tl_ops_broadcast_pair(nd, a, nd, idx->sizes, &n1, ishape, err) < 0)
        return NULL;
    memcpy(a, idx->sizes, sizeof(int64_t) * (size_t)nd);
    a[d] = t->sizes[d];
    if (tl_ops_broadcast_pair(nd, a, nd, t->sizes, &n2, tshape, err) < 0)
        return NULL;
    tl_tensor *bi = tl_view_expand(idx, n1, ishape, err);
    if (!bi)
        return NULL;
    tl_tensor *bt = tl_view_expand(t, n2, tshape, err);
    if (!bt) {
        tl_tensor_release(bi);
        return NULL;
    }
    tl_tensor *r = tl_index_gather(bt, d, bi, err);
    tl_tensor_release(bi);
    tl_tensor_release(bt);
    return r;
}
