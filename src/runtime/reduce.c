/* reduce.c - reductions: sum / prod / mean / amax / amin / all / any,
 * max/min with indices, var/std.
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
/* reductions                                                             */
/* ===================================================================== */

typedef struct redspec {
    uint64_t mask;  /* reduced dims */
    bool all;       /* no dim given: reduce everything */
    bool keepdim;
    int nuser;      /* dims as the user wrote them (for messages); 0: none */
    int64_t user[TL_MAX_DIMS];
} redspec;

/* dims[0..n) as the user wrote them (n < 0: None) into a mask. */
static int parse_dims(int n, const int64_t *dims, int ndim, redspec *rs,
                      tl_error *err)
{
    rs->mask = 0;
    rs->all = false;
    rs->nuser = 0;
    if (n < 0) {
        rs->all = true;
        rs->mask = ndim >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << ndim) - 1);
        return 0;
    }
    if (n == 0) { /* dim=() reduces everything (1.13) */
        rs->all = true;
        rs->mask = ndim >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << ndim) - 1);
        return 0;
    }
    bool seen0 = false; /* a 0-d tensor's dims all wrap to 0 (dim_list_to_bitset) */
    for (int i = 0; i < n; i++) {
        int d;
        if (tl_shape_wrap_dim(dims[i], ndim, &d, err) < 0)
            return -1;
        if (ndim == 0) {
            if (seen0)
                return tl_error_set(err, TL_ERR_RUNTIME,
                                    "dim 0 appears multiple times in the list of dims");
            seen0 = true;
            continue;
        }
        if (rs->mask & ((uint64_t)1 << d))
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "dim %d appears multiple times in the list of dims",
                                d);
        rs->mask |= (uint64_t)1 << d;
        rs->user[rs->nuser++] = dims[i];
    }
    return 0;
}

/* Output shape of a reduction. */
static int red_shape(const tl_tensor *t, const redspec *rs, int64_t *shape)
{
    int nd = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (rs->mask & ((uint64_t)1 << d)) {
            if (rs->keepdim)
                shape[nd++] = 1;
        } else {
            shape[nd++] = t->sizes[d];
        }
    }
    return nd;
}

/* Run one reduction of t into out (whose shape is red_shape). */
static int red_run(tl_redop op, tl_dtype compute, const tl_tensor *out,
                   const tl_tensor *t, const redspec *rs, tl_error *err)
{
    int64_t dsz[TL_MAX_DIMS], dst_[TL_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < t->ndim; d++) {
        bool red = rs->mask & ((uint64_t)1 << d);
        dsz[d] = red ? 1 : t->sizes[d];
        if (red && !rs->keepdim) {
            dst_[d] = 0;
        } else {
            dst_[d] = out->strides[k++];
        }
    }
    if (tl_tensor_numel(out) == 0)
        return 0;
    tl_strided d = tl_ops_strided_make(tl_tensor_addr(out), out->dtype, t->ndim, dsz, dst_);
    tl_strided s = tl_ops_strided_of(t);
    return tl_backend_reduce(tl_tensor_backend(t), op, compute, &d, &s, rs->mask, err);
}

static tl_tensor *red_alloc(const tl_tensor *t, const redspec *rs, tl_dtype dt,
                            tl_error *err)
{
    int64_t shape[TL_MAX_DIMS];
    int nd = red_shape(t, rs, shape);
    return tl_tensor_new(tl_tensor_backend(t), dt, nd, shape, err);
}

static const char *redop_name(tl_redop op)
{
    switch (op) {
    case TL_RED_MAX: return "max";
    case TL_RED_MIN: return "min";
    case TL_RED_ARGMAX: return "argmax";
    case TL_RED_ARGMIN: return "argmin";
    case TL_RED_SUM: return "sum";
    case TL_RED_PROD: return "prod";
    case TL_RED_MEAN: return "mean";
    case TL_RED_ALL: return "all";
    case TL_RED_ANY: return "any";
    default: return "reduce";
    }
}

/* max/min/amax/amin/argmax/argmin need non-empty reduced dims. */
static int red_check_nonempty(const char *name, bool is_arg,
                              const tl_tensor *t, const redspec *rs,
                              tl_error *err)
{
    if (tl_tensor_numel(t) != 0)
        return 0;
    if (rs->all) {
        if (is_arg)
            return tl_error_set(err, TL_ERR_INDEX,
                                "%s(): Expected reduction dim to be specified for input.numel() == 0.",
                                name);
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "%s(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.",
                            name);
    }
    /* amax/amin name the first empty dim in the user's order, as written
     * (-1 stays -1); the single-dim ops (max(dim), argmax) name it wrapped. */
    if (!is_arg && rs->nuser > 0) {
        for (int i = 0; i < rs->nuser; i++) {
            int64_t d = rs->user[i] < 0 ? rs->user[i] + t->ndim : rs->user[i];
            if (d >= 0 && d < t->ndim && t->sizes[d] == 0)
                return tl_error_set(err, TL_ERR_INDEX,
                                    "%s(): Expected reduction dim %lld to have non-zero size.",
                                    name, (long long)rs->user[i]);
        }
        return 0;
    }
    for (int d = 0; d < t->ndim; d++)
        if ((rs->mask & ((uint64_t)1 << d)) && t->sizes[d] == 0)
            return tl_error_set(err, TL_ERR_INDEX,
                                "%s(): Expected reduction dim %d to have non-zero size.",
                                name, d);
    return 0;
}

/* sum / prod / mean / amax / amin / all / any: one result tensor. */
static tl_tensor *reduce_one(tl_redop op, const char *name, const tl_tensor *t,
                             const redspec *rs, bool has_dtype, tl_dtype dtype,
                             tl_error *err)
{
    tl_dtype out_dt, compute;
    switch (op) {
    case TL_RED_SUM:
    case TL_RED_PROD:
        out_dt = has_dtype ? dtype
                 : tl_dtype_is_floating(t->dtype) ? t->dtype : TL_INT64;
        compute = out_dt;
        break;
    case TL_RED_MEAN:
        out_dt = has_dtype ? dtype : t->dtype;
        if (!tl_dtype_is_floating(out_dt)) {
            tl_error_set(err, TL_ERR_RUNTIME,
                         "mean(): could not infer output dtype. %s dtype must be either a floating point or complex dtype. Got: %s",
                         has_dtype ? "Optional" : "Input",
                         tl_dtype_scalar_name(out_dt));
            return NULL;
        }
        compute = out_dt;
        break;
    case TL_RED_ALL:
    case TL_RED_ANY:
        out_dt = t->dtype == TL_UINT8 ? TL_UINT8 : TL_BOOL;
        compute = TL_BOOL;
        break;
    case TL_RED_ARGMAX:
    case TL_RED_ARGMIN:
        if (red_check_nonempty(name, true, t, rs, err) < 0)
            return NULL;
        out_dt = TL_INT64;
        compute = t->dtype;
        break;
    default: /* max/min */
        if (red_check_nonempty(name, false, t, rs, err) < 0)
            return NULL;
        out_dt = compute = t->dtype;
        break;
    }
    tl_tensor *out = red_alloc(t, rs, out_dt, err);
    if (!out)
        return NULL;
    bool unit_dim = false; /* argmax(dim) over a size-1 dim: zeros, no kernel */
    for (int d = 0; d < t->ndim; d++)
        if (!rs->all && (rs->mask & ((uint64_t)1 << d)) && t->sizes[d] == 1)
            unit_dim = true;
    if ((op == TL_RED_ARGMAX || op == TL_RED_ARGMIN) && t->dtype == TL_BOOL &&
        tl_tensor_numel(out) > 0 && !unit_dim) {
        /* argmax/argmin dispatch no Bool; an empty result never reaches
         * the kernel */
        tl_tensor_release(out);
        tl_error_set(err, TL_ERR_RUNTIME, "\"%s_cpu\" not implemented for 'Bool'",
                     op == TL_RED_ARGMAX ? "argmax" : "argmin");
        return NULL;
    }
    if (red_run(op, compute, out, t, rs, err) < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    if (op != TL_RED_ALL && op != TL_RED_ANY)
        tl_ops_grad_result(out, t->requires_grad);
    return out;
}

/* max(dim)/min(dim): (values, indices) */
static int reduce_pair(bool is_max, const tl_tensor *t, int dim, bool keepdim,
                       tl_tensor **values, tl_tensor **indices, tl_error *err)
{
    redspec rs;
    rs.all = false;
    rs.keepdim = keepdim;
    rs.nuser = 0; /* max(dim) names the wrapped dim */
    rs.mask = t->ndim == 0 ? 0 : (uint64_t)1 << dim;
    const char *name = is_max ? "max" : "min";
    if (red_check_nonempty(name, false, t, &rs, err) < 0)
        return -1;
    tl_tensor *v = reduce_one(is_max ? TL_RED_MAX : TL_RED_MIN, name, t, &rs,
                              false, t->dtype, err);
    if (!v)
        return -1;
    tl_tensor *ix = red_alloc(t, &rs, TL_INT64, err);
    if (!ix || red_run(is_max ? TL_RED_ARGMAX : TL_RED_ARGMIN, t->dtype, ix, t,
                       &rs, err) < 0) {
        tl_tensor_release(v);
        if (ix)
            tl_tensor_release(ix);
        return -1;
    }
    *values = v;
    *indices = ix;
    return 0;
}

/* var/std: mean of squared deviations with a correction. */
static tl_tensor *var_std(const tl_tensor *t, const redspec *rs,
                          int64_t correction, bool is_std, tl_error *err)
{
    if (!tl_dtype_is_floating(t->dtype)) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "std and var only support floating point and complex dtypes");
        return NULL;
    }
    if (t->dtype != TL_FLOAT64) {
        /* PyTorch accumulates every floating dtype in double (WelfordOps
         * <scalar_t, double, ...>; std_var_all_cpu) and rounds once at the
         * end, after the sqrt: the same here, through a float64 copy */
        tl_tensor *w = tl_ops_to((tl_tensor *)t, NULL, TL_FLOAT64, true,
                                 TL_MEMFMT_PRESERVE, err);
        if (!w)
            return NULL;
        tl_tensor *r64 = var_std(w, rs, correction, is_std, err);
        tl_tensor_release(w);
        if (!r64)
            return NULL;
        tl_tensor *r = tl_ops_to(r64, NULL, t->dtype, true, TL_MEMFMT_PRESERVE, err);
        tl_tensor_release(r64);
        if (r) {
            r->requires_grad = false;
            r->is_leaf = true;
            tl_ops_grad_result(r, t->requires_grad);
        }
        return r;
    }
    redspec keep = *rs;
    keep.keepdim = true;
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        if (rs->mask & ((uint64_t)1 << d))
            n *= t->sizes[d];
    tl_tensor *mean = reduce_one(TL_RED_MEAN, "mean", t, &keep, false, t->dtype, err);
    if (!mean)
        return NULL;
    opnd a = tl_ops_opnd_tensor(t), m = tl_ops_opnd_tensor(mean);
    tl_tensor *dev = tl_ops_binary_new(TL_BIN_SUB, &a, &m, err);
    tl_tensor_release(mean);
    if (!dev)
        return NULL;
    opnd dv = tl_ops_opnd_tensor(dev);
    tl_tensor *sq = tl_ops_binary_new(TL_BIN_MUL, &dv, &dv, err);
    tl_tensor_release(dev);
    if (!sq)
        return NULL;
    tl_tensor *sum = reduce_one(TL_RED_SUM, "sum", sq, rs, false, t->dtype, err);
    tl_tensor_release(sq);
    if (!sum)
        return NULL;
    int64_t den = n - correction;
    opnd s = tl_ops_opnd_tensor(sum), dn = tl_ops_opnd_float(den > 0 ? (double)den : 0.0);
    if (tl_ops_run_binary(TL_BIN_DIV, sum->dtype, sum, &s, &dn, err) < 0 ||
                          (is_std && tl_ops_run_unary(TL_UN_SQRT, sum->dtype, sum, sum, err) < 0)) {
        tl_tensor_release(sum);
        return NULL;
    }
    tl_ops_grad_result(sum, t->requires_grad);
    return sum;
}

tl_tensor *tl_ops_reduce(tl_redop op, const char *name, const tl_tensor *t,
                         int ndims, const int64_t *dims, bool keepdim,
                         const tl_dtype *dtype, tl_error *err)
{
    redspec rs;
    tl_dtype dt = dtype ? *dtype : t->dtype;
    if (op == TL_RED_MEAN && !tl_dtype_is_floating(dt)) {
        /* mean's dtype check comes before the dims are wrapped */
        tl_error_set(err, TL_ERR_RUNTIME,
                     "mean(): could not infer output dtype. %s dtype must be either a floating point or complex dtype. Got: %s",
                     dtype ? "Optional" : "Input", tl_dtype_scalar_name(dt));
        return NULL;
    }
    if (parse_dims(ndims, dims, t->ndim, &rs, err) < 0)
        return NULL;
    rs.keepdim = keepdim;
    tl_tensor *src = (tl_tensor *)t, *conv = NULL;
    if (dtype && (op == TL_RED_SUM || op == TL_RED_PROD || op == TL_RED_MEAN) &&
        *dtype != t->dtype) {
        /* PyTorch converts the input first */
        conv = tl_ops_to(src, NULL, *dtype, false, TL_MEMFMT_PRESERVE, err);
        if (!conv)
            return NULL;
        src = conv;
    }
    tl_tensor *r = reduce_one(op, name ? name : redop_name(op), src, &rs, dtype != NULL, dt, err);
    if (conv)
        tl_tensor_release(conv);
    return r;
}

int tl_ops_minmax_dim(bool is_max, const tl_tensor *t, int64_t dim,
                      bool keepdim, tl_tensor **values, tl_tensor **indices,
                      tl_error *err)
{
    int d;
    if (tl_shape_wrap_dim(dim, t->ndim, &d, err) < 0)
        return -1;
    return reduce_pair(is_max, t, d, keepdim, values, indices, err);
}

tl_tensor *tl_ops_var(const tl_tensor *t, int ndims, const int64_t *dims,
                      int64_t correction, bool keepdim, bool is_std,
                      tl_error *err)
{
    redspec rs;
    if (!tl_dtype_is_floating(t->dtype)) { /* checked before the dims */
        tl_error_set(err, TL_ERR_RUNTIME,
                     "std and var only support floating point and complex dtypes");
        return NULL;
    }
    if (parse_dims(ndims, dims, t->ndim, &rs, err) < 0)
        return NULL;
    rs.keepdim = keepdim;
    return var_std(t, &rs, correction, is_std, err);
}
