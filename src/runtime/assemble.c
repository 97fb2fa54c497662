/* assemble.c - ops that assemble new tensors from pieces: cat, stack,
 * hstack/vstack, flip, roll, repeat/tile, repeat_interleave,
 * triu/tril (and in place), diag, diag_embed, diagflat.
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
/* assembly: cat, stack, flip, roll, repeat, triu/tril, diag             */
/* ===================================================================== */

/* dst region (a strided sub-view of `out`) <- src, same shape. */
static int copy_region(const tl_tensor *out, int64_t elem_off, int nd,
                       const int64_t *sizes, const int64_t *dstrides,
                       const tl_tensor *src, const int64_t *sstrides,
                       int64_t src_elem_off, tl_error *err)
{
    int64_t n = 1;
    for (int d = 0; d < nd; d++)
        n *= sizes[d];
    if (n == 0)
        return 0;
    char *dp = (char *)tl_tensor_addr(out) + elem_off * (int64_t)tl_dtype_size(out->dtype);
    char *sp = (char *)tl_tensor_addr(src) + src_elem_off * (int64_t)tl_dtype_size(src->dtype);
    tl_strided d = tl_ops_strided_make(dp, out->dtype, nd, sizes, dstrides);
    tl_strided s = tl_ops_strided_make(sp, src->dtype, nd, sizes, sstrides);
    return tl_backend_copy_strided(tl_tensor_backend(out), &d, &s, err);
}

static bool cat_skipped(const tl_tensor *t)
{
    return t->ndim == 1 && t->sizes[0] == 0;
}

tl_tensor *tl_ops_cat(tl_tensor *const *ts, size_t n, int64_t dim,
                      tl_error *err)
{
    if (n == 0) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "torch.cat(): expected a non-empty list of Tensors");
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (ts[i]->ndim == 0) {
            tl_error_set(err, TL_ERR_RUNTIME,
                         "zero-dimensional tensor (at position %zu) cannot be concatenated",
                         i);
            return NULL;
        }
    const tl_tensor *ref = NULL;
    for (size_t i = 0; i < n && !ref; i++)
        if (!cat_skipped(ts[i]))
            ref = ts[i];
    int d;
    if (tl_shape_wrap_dim(dim, ref ? ref->ndim : ts[0]->ndim, &d, err) < 0)
        return NULL;
    /* dtype, device, shape checks */
    tl_dtype dt = ts[0]->dtype;
    bool grad = false;
    for (size_t i = 0; i < n; i++) {
        if (i)
            dt = tl_dtype_promote(dt, ts[i]->dtype);
        grad = grad || ts[i]->requires_grad;
        tl_device a = tl_tensor_device(ts[0]), b = tl_tensor_device(ts[i]);
        if (!tl_ops_same_device(a, b)) {
            tl_ops_device_mismatch(a, b, err);
            return NULL;
        }
    }
    if (!ref) { /* every input is a legacy empty 1-D tensor */
        int64_t z = 0;
        tl_tensor *out = tl_tensor_new(tl_tensor_backend(ts[0]), dt, 1, &z, err);
        if (out)
            tl_ops_grad_result(out, grad);
        return out;
    }
    int64_t shape[TL_MAX_DIMS];
    memcpy(shape, ref->sizes, sizeof(int64_t) * (size_t)ref->ndim);
    shape[d] = 0;
    for (size_t i = 0; i < n; i++) {
        const tl_tensor *t = ts[i];
        if (cat_skipped(t))
            continue;
        if (t->ndim != ref->ndim) {
            tl_error_set(err, TL_ERR_RUNTIME,
                         "Tensors must have same number of dimensions: got %d and %d",
                         ref->ndim, t->ndim);
            return NULL;
        }
        for (int k = 0; k < t->ndim; k++) {
            if (k == d || t->sizes[k] == ref->sizes[k])
                continue;
            tl_error_set(err, TL_ERR_RUNTIME,
                         "Sizes of tensors must match except in dimension %d. Expected size %lld but got size %lld for tensor number %zu in the list.",
                         d, (long long)ref->sizes[k], (long long)t->sizes[k], i);
            return NULL;
        }
        int64_t s;
        if (tl_add_overflow(shape[d], t->sizes[d], &s)) {
            tl_error_set(err, TL_ERR_LIMIT, "cat result is too large");
            return NULL;
        }
        shape[d] = s;
    }
    /* memory format: channels-last only if every input suggests it */
    tl_memfmt fmt = tl_ops_suggest_memory_format(ts[0]);
    for (size_t i = 1; i < n; i++) {
        tl_memfmt f = tl_ops_suggest_memory_format(ts[i]);
        if (f != fmt && fmt != TL_MEMFMT_CONTIGUOUS)
            fmt = TL_MEMFMT_CONTIGUOUS;
    }
    int64_t st[TL_MAX_DIMS];
    if (fmt == TL_MEMFMT_CHANNELS_LAST && ref->ndim == 4)
        tl_shape_channels_last_strides(4, shape, st);
    else if (fmt == TL_MEMFMT_CHANNELS_LAST_3D && ref->ndim == 5)
        tl_shape_channels_last_strides(5, shape, st);
    else
        tl_shape_contiguous_strides(ref->ndim, shape, st);
    tl_tensor *out = tl_tensor_new_strided(tl_tensor_backend(ref), dt, ref->ndim,
                                           shape, st, err);
    if (!out)
        return NULL;
    int64_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        const tl_tensor *t = ts[i];
        if (cat_skipped(t))
            continue;
        if (copy_region(out, pos * st[d], t->ndim, t->sizes, st, t, t->strides,
                        0, err) < 0) {
            tl_tensor_release(out);
            return NULL;
        }
        pos += t->sizes[d];
    }
    tl_ops_grad_result(out, grad);
    return out;
}

/* A temporary header over t's storage (no copy). */
static tl_tensor *tmp_view(const tl_tensor *t, int nd, const int64_t *sz,
                           const int64_t *st)
{
    return tl_tensor_view(t, nd, sz, st, t->offset);
}

/* t with a size-1 dim inserted at d (unsqueeze geometry). */
static tl_tensor *tmp_unsqueeze(const tl_tensor *t, int d)
{
    int64_t sz[TL_MAX_DIMS], st[TL_MAX_DIMS];
    int k = 0;
    for (int i = 0; i <= t->ndim; i++) {
        if (i == d) {
            sz[i] = 1;
            st[i] = d >= t->ndim ? 1 : t->sizes[d] * t->strides[d];
        } else {
            sz[i] = t->sizes[k];
            st[i] = t->strides[k];
            k++;
        }
    }
    return tmp_view(t, t->ndim + 1, sz, st);
}

static void release_all(tl_tensor **ts, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ts[i])
            tl_tensor_release(ts[i]);
    free(ts);
}

tl_tensor *tl_ops_stack(tl_tensor *const *ts, size_t n, int64_t dim,
                        tl_error *err)
{
    if (n == 0) {
        tl_error_set(err, TL_ERR_RUNTIME, "stack expects a non-empty TensorList");
        return NULL;
    }
    int d;
    if (tl_shape_wrap_dim(dim, ts[0]->ndim + 1, &d, err) < 0)
        return NULL;
    for (size_t i = 1; i < n; i++)
        if (!tl_shape_equal(ts[0]->ndim, ts[0]->sizes, ts[i]->ndim, ts[i]->sizes)) {
            char a[32 * TL_MAX_DIMS + 3], b[32 * TL_MAX_DIMS + 3];
            tl_ops_shape_text(a, sizeof a, ts[0]->ndim, ts[0]->sizes);
            tl_ops_shape_text(b, sizeof b, ts[i]->ndim, ts[i]->sizes);
            tl_error_set(err, TL_ERR_RUNTIME,
                         "stack expects each tensor to be equal size, but got %s at entry 0 and %s at entry %zu",
                         a, b, i);
            return NULL;
        }
    if (ts[0]->ndim >= TL_MAX_DIMS) {
        tl_error_set(err, TL_ERR_LIMIT,
                     "tensors with more than %d dimensions are not supported",
                     TL_MAX_DIMS);
        return NULL;
    }
    if (d == ts[0]->ndim) { /* a new last dim: cat of unsqueezed inputs */
        tl_tensor **us = tl_xcalloc(n, sizeof *us);
        for (size_t i = 0; i < n; i++)
            us[i] = tmp_unsqueeze(ts[i], d);
        tl_tensor *out = tl_ops_cat(us, n, d, err);
        release_all(us, n);
        return out;
    }
    /* PyTorch: cat(tensors, d).view(sizes with n inserted at d). The view
     * splits dim d, so the result keeps cat's layout (a channels-last
     * input stays channels-last inside the new shape). */
    int64_t rsz[TL_MAX_DIMS], rst[TL_MAX_DIMS];
    int nd = ts[0]->ndim + 1;
    for (int i = 0, k = 0; i < nd; i++)
        rsz[i] = i == d ? (int64_t)n : ts[0]->sizes[k++];
    tl_tensor *out = tl_ops_cat(ts, n, d, err);
    if (!out)
        return NULL;
    bool ok = tl_shape_compute_stride(out->ndim, out->sizes, out->strides, nd,
                                     rsz, rst);
    TL_ASSERT(ok); /* splitting one dim always has a view */
    /* out is fresh and ours alone: reshape its header in place */
    out->ndim = nd;
    memcpy(out->sizes, rsz, sizeof(int64_t) * (size_t)nd);
    memcpy(out->strides, rst, sizeof(int64_t) * (size_t)nd);
    return out;
}

/* hstack / vstack / dstack-like helpers: atleast_kd then cat. */
static tl_tensor *stack_kd(tl_tensor *const *ts, size_t n, int k, int dim_for_1d,
                           int dim, const char *name, tl_error *err)
{
    if (n == 0) {
        tl_error_set(err, TL_ERR_RUNTIME, "%s expects a non-empty TensorList", name);
        return NULL;
    }
    tl_tensor **vs = tl_xcalloc(n, sizeof *vs);
    for (size_t i = 0; i < n; i++) {
        const tl_tensor *t = ts[i];
        int64_t sz[TL_MAX_DIMS], st[TL_MAX_DIMS];
        int nd = t->ndim;
        if (nd >= k) {
            vs[i] = tl_tensor_retain((tl_tensor *)t);
            continue;
        }
        if (nd == 0) {
            for (int j = 0; j < k; j++)
                sz[j] = 1, st[j] = 1;
        } else { /* 1-D -> (1, n) */
            sz[0] = 1;
            st[0] = t->sizes[0] * t->strides[0];
            sz[1] = t->sizes[0];
            st[1] = t->strides[0];
        }
        vs[i] = tmp_view(t, k, sz, st);
    }
    int cd = vs[0]->ndim == 1 ? dim_for_1d : dim;
    tl_tensor *out = tl_ops_cat(vs, n, cd, err);
    release_all(vs, n);
    return out;
}

static int parse_dim_list(int n, const int64_t *raw, int ndim, uint64_t *mask,
                          int *dims, int *ndims, tl_error *err)
{
    *mask = 0;
    for (int i = 0; i < n; i++) {
        int d;
        if (tl_shape_wrap_dim(raw[i], ndim, &d, err) < 0)
            return -1;
        if (*mask & ((uint64_t)1 << d))
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "dim %d appears multiple times in the list of dims",
                                d);
        *mask |= (uint64_t)1 << d;
        if (dims)
            dims[i] = d;
    }
    if (ndims)
        *ndims = n;
    return 0;
}

static tl_tensor *flip_mask(const tl_tensor *t, uint64_t mask, tl_error *err)
{
    int64_t st[TL_MAX_DIMS], sst[TL_MAX_DIMS];
    tl_tensor_preserve_strides(t, st);
    tl_tensor *out = tl_tensor_new_strided(tl_tensor_backend(t), t->dtype,
                                           t->ndim, t->sizes, st, err);
    if (!out)
        return NULL;
    if (tl_tensor_numel(t) > 0) {
        int64_t off = 0;
        for (int d = 0; d < t->ndim; d++) {
            if ((mask >> d) & 1 && t->ndim > 0) {
                off += (t->sizes[d] - 1) * t->strides[d];
                sst[d] = -t->strides[d];
            } else {
                sst[d] = t->strides[d];
            }
        }
        if (copy_region(out, 0, t->ndim, t->sizes, st, t, sst, off, err) < 0) {
            tl_tensor_release(out);
            return NULL;
        }
    }
    tl_ops_grad_result(out, t->requires_grad);
    return out;
}

/* The strides of PyTorch's (CPU) roll result for a non-empty t. Each
 * (shift, dim) pair is one roll, cat({narrow(d, start, n - start),
 * narrow(d, 0, start)}, d), whose layout is cat's memory-format rule over
 * the two pieces (a piece empty along d, start == 0, suggests contiguous);
 * the next pair rolls that result. Only the geometry is simulated here:
 * the data move once. */
static void roll_strides(const tl_tensor *t, int ndims, const int64_t *shifts,
                         const int *dims, int64_t *st)
{
    tl_tensor g = *t; /* a stack copy read for its geometry only */
    tl_shape_contiguous_strides(g.ndim, g.sizes, st);
    for (int i = 0; i < ndims; i++) {
        int d = dims[i];
        int64_t n = g.sizes[d], v = shifts[i] % n;
        if (v < 0)
            v += n;
        int64_t start = (n - v) % n;
        tl_tensor p0 = g, p1 = g;
        p0.sizes[d] = n - start;
        p1.sizes[d] = start;
        tl_memfmt f = tl_ops_suggest_memory_format(&p0);
        if (tl_ops_suggest_memory_format(&p1) != f)
            f = TL_MEMFMT_CONTIGUOUS;
        if (f == TL_MEMFMT_CHANNELS_LAST)
            tl_shape_channels_last_strides(4, g.sizes, st);
        else if (f == TL_MEMFMT_CHANNELS_LAST_3D)
            tl_shape_channels_last_strides(5, g.sizes, st);
        else
            tl_shape_contiguous_strides(g.ndim, g.sizes, st);
        memcpy(g.strides, st, sizeof(int64_t) * (size_t)g.ndim);
    }
}

/* roll: ndims == 0 rolls the flattened tensor (nsh == 1); else one shift
 * per dim, dims already wrapped. An empty t is clone(preserve) whatever the
 * dims (PyTorch returns before looking at them). */
static tl_tensor *roll_impl(const tl_tensor *t, int nsh, const int64_t *shifts,
                            int ndims, const int *dims, tl_error *err)
{
    if (nsh != ndims && !(ndims == 0 && nsh == 1)) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "shifts and dimensions must align. shifts: %d, dims:%d",
                     nsh, ndims);
        return NULL;
    }
    if (ndims > 0 && tl_tensor_numel(t) == 0)
        return tl_ops_clone(t, TL_MEMFMT_PRESERVE, err);
    if (ndims == 0) {
        /* flatten, roll, restore: work on a contiguous copy */
        tl_tensor *c = tl_ops_clone(t, TL_MEMFMT_CONTIGUOUS, err);
        if (!c)
            return NULL;
        int64_t n = tl_tensor_numel(t);
        tl_tensor *flat = tmp_view(c, 1, &n, (int64_t[]){1});
        int d0 = 0;
        tl_tensor *r = roll_impl(flat, 1, shifts, 1, &d0, err);
        tl_tensor_release(flat);
        tl_tensor_release(c);
        if (!r)
            return NULL;
        /* r is a fresh contiguous 1-D tensor: give it t's shape */
        r->ndim = t->ndim;
        memcpy(r->sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
        tl_shape_contiguous_strides(t->ndim, t->sizes, r->strides);
        return r;
    }
    int64_t st[TL_MAX_DIMS];
    roll_strides(t, ndims, shifts, dims, st);
    tl_tensor *out = tl_tensor_new_strided(tl_tensor_backend(t), t->dtype,
                                           t->ndim, t->sizes, st, err);
    if (!out)
        return NULL;
    int64_t sh[TL_MAX_DIMS];
    int nd = t->ndim;
    memset(sh, 0, sizeof sh);
    for (int i = 0; i < ndims; i++) {
        int64_t s = t->sizes[dims[i]];
        if (s > 0) {
            int64_t v = shifts[i] % s;
            if (v < 0)
                v += s;
            sh[dims[i]] = (sh[dims[i]] + v) % s;
        }
    }
    /* 2^k blocks over the rolled dims: out[(i + s) % n] = in[i] */
    int rd[TL_MAX_DIMS], nr = 0;
    for (int d = 0; d < nd; d++)
        if (sh[d] != 0)
            rd[nr++] = d;
    if (tl_tensor_numel(t) > 0) {
        if (nr > 20) {
            tl_error_set(err, TL_ERR_LIMIT, "roll over more than 20 dims");
            tl_tensor_release(out);
            return NULL;
        }
        for (uint64_t m = 0; m < ((uint64_t)1 << nr); m++) {
            int64_t sz[TL_MAX_DIMS];
            int64_t doff = 0, soff = 0;
            memcpy(sz, t->sizes, sizeof(int64_t) * (size_t)nd);
            for (int k = 0; k < nr; k++) {
                int d = rd[k];
                int64_t n = t->sizes[d], s = sh[d];
                if ((m >> k) & 1) { /* in[n-s:] -> out[:s] */
                    sz[d] = s;
                    soff += (n - s) * t->strides[d];
                } else { /* in[:n-s] -> out[s:] */
                    sz[d] = n - s;
                    doff += s * st[d];
                }
            }
            if (copy_region(out, doff, nd, sz, st, t, t->strides, soff, err) < 0) {
                tl_tensor_release(out);
                return NULL;
            }
        }
    }
    tl_ops_grad_result(out, t->requires_grad);
    return out;
}

static tl_tensor *repeat_impl(const tl_tensor *t, int nr, const int64_t *reps,
                              tl_error *err)
{
    if (nr < t->ndim) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
        return NULL;
    }
    if (2 * nr > TL_MAX_DIMS) {
        tl_error_set(err, TL_ERR_LIMIT, "repeat over more than %d dims",
                     TL_MAX_DIMS / 2);
        return NULL;
    }
    int lead = nr - t->ndim;
    int64_t shape[TL_MAX_DIMS];
    for (int i = 0; i < nr; i++) {
        int64_t s = i < lead ? 1 : t->sizes[i - lead];
        if (tl_mul_overflow(s, reps[i], &shape[i])) {
            tl_error_set(err, TL_ERR_LIMIT, "repeat result is too large");
            return NULL;
        }
    }
    for (int i = 0; i < nr; i++)
        if (shape[i] < 0) {
            char b[32 * TL_MAX_DIMS + 3];
            tl_ops_shape_text(b, sizeof b, nr, shape);
            tl_error_set(err, TL_ERR_RUNTIME,
                         "Trying to create tensor with negative dimension %lld: %s",
                         (long long)shape[i], b);
            return NULL;
        }
    tl_tensor *out = tl_tensor_new(tl_tensor_backend(t), t->dtype, nr, shape, err);
    if (!out)
        return NULL;
    /* view out as (r0, s0, r1, s1, ...); src strides (0, st0, 0, st1, ...) */
    int64_t sz2[TL_MAX_DIMS], ds2[TL_MAX_DIMS], ss2[TL_MAX_DIMS];
    for (int i = 0; i < nr; i++) {
        int64_t s = i < lead ? 1 : t->sizes[i - lead];
        sz2[2 * i] = reps[i];
        sz2[2 * i + 1] = s;
        ds2[2 * i] = out->strides[i] * s;
        ds2[2 * i + 1] = out->strides[i];
        ss2[2 * i] = 0;
        ss2[2 * i + 1] = i < lead ? 0 : t->strides[i - lead];
    }
    if (copy_region(out, 0, 2 * nr, sz2, ds2, t, ss2, 0, err) < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    tl_ops_grad_result(out, t->requires_grad);
    return out;
}

/* repeat_interleave(int r): 2.x's scalar overload, which expands the input
 * along a new dim after `dim` and clones it (never the 1.13 path through
 * a repeats tensor): "Repeats must be non-negative" first, then the
 * output_size check, and a 0-d input with a dim fails in unsqueeze(1). */
static tl_tensor *repeat_interleave_int(const tl_tensor *t, int64_t r,
                                        bool has_dim, int dim, bool has_size,
                                        int64_t out_size, tl_error *err)
{
    if (r < 0) {
        tl_error_set(err, TL_ERR_RUNTIME, "Repeats must be non-negative");
        return NULL;
    }
    int64_t shape[TL_MAX_DIMS], sz2[TL_MAX_DIMS], ds2[TL_MAX_DIMS], ss2[TL_MAX_DIMS];
    int ond, nd = t->ndim;
    if (has_dim && nd == 0) {
        tl_error_set(err, TL_ERR_INDEX,
                     "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
        return NULL;
    }
    if (nd + 1 > TL_MAX_DIMS) {
        tl_error_set(err, TL_ERR_LIMIT, "too many dimensions");
        return NULL;
    }
    int64_t along = has_dim ? t->sizes[dim] : tl_tensor_numel(t), total;
    if (tl_mul_overflow(along, r, &total)) {
        tl_error_set(err, TL_ERR_LIMIT, "repeat_interleave result is too large");
        return NULL;
    }
    if (has_size && out_size != total) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "repeat_interleave: Invalid output_size, expected %lld but got %lld",
                     (long long)total, (long long)out_size);
        return NULL;
    }
    if (!has_dim) {
        shape[0] = total;
        ond = 1;
    } else {
        memcpy(shape, t->sizes, sizeof(int64_t) * (size_t)nd);
        shape[dim] = total;
        ond = nd;
    }
    tl_tensor *out = tl_tensor_new(tl_tensor_backend(t), t->dtype, ond, shape, err);
    if (!out)
        return NULL;
    /* iterate (t dims..., r) with the r dim inserted after `dim` */
    int k = 0;
    int after = has_dim ? dim : nd - 1;
    int64_t cst[TL_MAX_DIMS];
    tl_shape_contiguous_strides(nd, t->sizes, cst); /* row-major order of t */
    for (int d = 0; d < nd; d++) {
        sz2[k] = t->sizes[d];
        ss2[k] = t->strides[d];
        if (has_dim)
            ds2[k] = d == dim ? out->strides[d] * r : out->strides[d];
        else
            ds2[k] = cst[d] * r;
        k++;
        if (d == after) {
            sz2[k] = r;
            ss2[k] = 0;
            ds2[k] = has_dim ? out->strides[d] : 1;
            k++;
        }
    }
    if (nd == 0) {
        sz2[0] = r;
        ss2[0] = 0;
        ds2[0] = 1;
        k = 1;
    }
    if (copy_region(out, 0, k, sz2, ds2, t, ss2, 0, err) < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    tl_ops_grad_result(out, t->requires_grad);
    return out;
}

/* at::repeat_interleave(repeats, output_size) on n counts (counts[i], or
 * counts[0] for all when bcast): the index dispatch (int32/int64 only),
 * then repeat_interleave_common's checks in its order. An empty repeats
 * returns at once, whatever output_size says. Writes the index length. */
static int ri_counts(const tl_tensor *reps, int64_t n, bool bcast,
                     bool has_size, int64_t out_size, int64_t **counts_out,
                     int64_t *total_out, tl_error *err)
{
    *counts_out = NULL;
    *total_out = 0;
    if (reps->dtype != TL_INT64 && reps->dtype != TL_INT32)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "\"repeat_interleave_%s\" not implemented for '%s'",
                            tl_backend_device(tl_tensor_backend(reps)).kind == TL_DEV_CUDA
                                ? "cuda" : "cpu",
                            tl_dtype_scalar_name(reps->dtype));
    if (n == 0)
        return 0;
    if (has_size && out_size < 0)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "Trying to create tensor with negative dimension %lld: [%lld]",
                            (long long)out_size, (long long)out_size);
    /* the counts decide the result's size: read once (one transfer from a
     * device, where PyTorch synchronises too), never element by element */
    tl_tensor *hreps = tl_tensor_read_host(reps, err);
    if (!hreps)
        return -1;
    int64_t *counts = tl_xcalloc((size_t)n, sizeof *counts);
    int64_t sum = 0;
    bool negative = false;
    for (int64_t i = 0; i < n; i++) {
        if (tl_tensor_get_i64(hreps, bcast ? 0 : i, &counts[i], err) < 0)
            goto fail;
        negative |= counts[i] < 0;
        if (tl_add_overflow(sum, counts[i], &sum) || sum > TL_MAX_NUMEL ||
            sum < -TL_MAX_NUMEL) {
            tl_error_set(err, TL_ERR_LIMIT, "repeat_interleave result is too large");
            goto fail;
        }
    }
    if (has_size && sum != out_size) {
        tl_error_set(err, TL_ERR_RUNTIME, "allocated size does not match required size");
        goto fail;
    }
    if (negative) {
        tl_error_set(err, TL_ERR_RUNTIME, "repeats can not be negative");
        goto fail;
    }
    tl_tensor_release(hreps);
    *counts_out = counts;
    *total_out = sum;
    return 0;
fail:
    tl_tensor_release(hreps);
    free(counts);
    return -1;
}

/* repeat_interleave(repeats tensor, dim): 2.x's shape checks on repeats,
 * then input.index_select(dim, repeat_interleave(repeats)). */
static tl_tensor *repeat_interleave_tensor(const tl_tensor *t,
                                           const tl_tensor *reps, bool has_dim,
                                           int dim, bool has_size,
                                           int64_t out_size, tl_error *err)
{
    tl_tensor *src = (tl_tensor *)t, *flat = NULL;
    if (!has_dim) {
        flat = tl_ops_clone(t, TL_MEMFMT_CONTIGUOUS, err);
        if (!flat)
            return NULL;
        int64_t n = tl_tensor_numel(t);
        tl_tensor *v = tmp_view(flat, 1, &n, (int64_t[]){1});
        tl_tensor_release(flat);
        flat = src = v;
        dim = 0;
    }
    if (src->ndim == 0 && reps->ndim <= 1) {
        tl_error_set(err, TL_ERR_INDEX, "Dimension specified as 0 but tensor has no dimensions");
        goto fail;
    }
    if (reps->ndim > 1) {
        tl_error_set(err, TL_ERR_RUNTIME, "repeats must be 0-dim or 1-dim tensor");
        goto fail;
    }
    int64_t dn = src->sizes[dim];
    int64_t nrep = reps->ndim ? reps->sizes[0] : 1;
    if (nrep != dn && nrep != 1) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "repeats must have the same size as input along dim, but got repeats.size(0) = %lld and input.size(%d) = %lld",
                     (long long)nrep, dim, (long long)dn);
        goto fail;
    }
    int64_t total, *counts;
    if (ri_counts(reps, dn, nrep == 1, has_size, out_size, &counts, &total, err) < 0)
        goto fail;
    int64_t *index = tl_xcalloc((size_t)(total ? total : 1), sizeof *index);
    int64_t k = 0;
    for (int64_t i = 0; i < dn; i++)
        for (int64_t j = 0; j < counts[i]; j++)
            index[k++] = i;
    free(counts);
    int64_t shape[TL_MAX_DIMS];
    memcpy(shape, src->sizes, sizeof(int64_t) * (size_t)src->ndim);
    shape[dim] = total;
    tl_tensor *out = tl_tensor_new(tl_tensor_backend(src), src->dtype, src->ndim,
                                   shape, err);
    if (out && tl_tensor_numel(out) > 0) {
        tl_strided d = tl_ops_strided_of(out), s = tl_ops_strided_of(src);
        if (tl_backend_gather(tl_tensor_backend(src), &d, &s, dim, index, total, err) < 0) {
            tl_tensor_release(out);
            out = NULL;
        }
    }
    free(index);
    if (flat)
        tl_tensor_release(flat);
    if (out)
        tl_ops_grad_result(out, t->requires_grad);
    return out;
fail:
    if (flat)
        tl_tensor_release(flat);
    return NULL;
}

/* Zero the other triangle of every matrix of out, in place, row by row
 * through out's own strides: only zeros are written (apply_triu_tril's
 * in-place form), so elements shared by several rows end up as PyTorch
 * leaves them. */
static int tri_zero(tl_tensor *out, int64_t k, bool upper, tl_error *err)
{
    int nd = out->ndim;
    int64_t rows = out->sizes[nd - 2], cols = out->sizes[nd - 1];
    tl_scalar zero = {0};
    const tl_backend *be = tl_tensor_backend(out);
    /* |k| beyond rows + cols changes nothing (and keeps i + k in range) */
    int64_t lim = rows + cols + 1;
    if (k > lim)
        k = lim;
    if (k < -lim)
        k = -lim;
    if (tl_tensor_numel(out) > 0) {
        /* rows whose zeroed span is the whole row are filled as one block,
         * so the number of fill calls is bounded by cols + 2 */
        int64_t run = -1; /* first row of the pending block of full rows */
        for (int64_t i = 0; i <= rows; i++) {
            int64_t c0 = 0, c1 = 0; /* zero columns [c0, c1) of row i */
            if (i < rows) {
                if (upper) {
                    c0 = 0;
                    c1 = i + k; /* keep j >= i + k */
                } else {
                    c0 = i + k + 1; /* keep j <= i + k */
                    c1 = cols;
                }
                if (c0 < 0)
                    c0 = 0;
                if (c1 > cols)
                    c1 = cols;
            }
            bool full = i < rows && c0 == 0 && c1 == cols;
            if (full && run < 0)
                run = i;
            if (full)
                continue;
            int64_t r0 = run, nrow = i - run;
            if (run >= 0) { /* flush the block of full rows [run, i) */
                run = -1;
                c0 = 0;
                c1 = cols;
            } else {
                r0 = i;
                nrow = 1;
                if (i == rows || c1 <= c0)
                    continue;
            }
            int64_t sz[TL_MAX_DIMS];
            memcpy(sz, out->sizes, sizeof(int64_t) * (size_t)nd);
            sz[nd - 2] = nrow;
            sz[nd - 1] = c1 - c0;
            char *p = (char *)tl_tensor_addr(out) +
                      (r0 * out->strides[nd - 2] + c0 * out->strides[nd - 1]) *
                          (int64_t)tl_dtype_size(out->dtype);
            tl_strided d = tl_ops_strided_make(p, out->dtype, nd, sz, out->strides);
            if (tl_backend_fill(be, &d, zero, err) < 0)
                return -1;
            if (r0 != i) /* the block was flushed: row i still needs a pass */
                i--;
        }
    }
    return 0;
}


/* triu (upper = true) / tril: copy, then zero the other triangle */
static tl_tensor *tri_impl(const tl_tensor *t, int64_t k, bool upper,
                           tl_error *err)
{
    if (t->ndim < 2) {
        tl_error_set(err, TL_ERR_INDEX,
                     "Dimension out of range (expected to be in range of [%d, %d], but got -2)",
                     t->ndim == 0 ? -1 : -1, 0);
        return NULL;
    }
    tl_tensor *out = tl_ops_clone(t, TL_MEMFMT_CONTIGUOUS, err);
    if (!out)
        return NULL;
    if (tri_zero(out, k, upper, err) < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    return out;
}

/* checkTrilTriuBatchContiguous(t, allow_zero_stride = true): may triu_/
 * tril_ zero t where it lies? Contiguous tensors and those up to 3-D yes;
 * beyond, the batch dims must be packed (dim 0 may be stride 0 or size 1).
 * Otherwise the op runs on a contiguous copy and copy_()s it back. */
static bool tri_in_place(const tl_tensor *t)
{
    if (tl_tensor_is_contiguous(t) || t->ndim <= 3)
        return true;
    int nd = t->ndim;
    int64_t expected = t->sizes[nd - 1] * t->sizes[nd - 2];
    for (int i = nd - 3; i >= 0; i--) {
        if (i == 0 && (t->strides[0] == 0 || t->sizes[0] == 1))
            continue;
        if (expected != t->strides[i])
            return false;
        expected *= t->sizes[i];
    }
    return true;
}

static tl_tensor *diag_impl(const tl_tensor *t, int64_t k, tl_error *err)
{
    if (t->ndim == 1) {
        if (k > TL_MAX_NUMEL || k < -TL_MAX_NUMEL) { /* (n + |k|)^2 elements */
            tl_error_set(err, TL_ERR_LIMIT, "a tensor may have at most 2^31 elements "
                         "(tlab limit)");
            return NULL;
        }
        int64_t n = t->sizes[0], ak = k < 0 ? -k : k;
        int64_t m = n + ak;
        int64_t shape[2] = {m, m};
        tl_tensor *out = tl_tensor_new(tl_tensor_backend(t), t->dtype, 2, shape, err);
        if (!out)
            return NULL;
        int64_t off = k >= 0 ? k : ak * m;
        int64_t dst_st = m + 1;
        if (copy_region(out, off, 1, &n, &dst_st, t, t->strides, 0, err) < 0) {
            tl_tensor_release(out);
            return NULL;
        }
        tl_ops_grad_result(out, t->requires_grad);
        return out;
    }
    if (t->ndim != 2) {
        tl_error_set(err, TL_ERR_RUNTIME, "matrix or a vector expected");
        return NULL;
    }
    int64_t r = t->sizes[0], c = t->sizes[1], len, soff;
    /* an offset k past the matrix gives an empty diagonal (k may be
     * +-2**63: no arithmetic on it before that test) */
    if (k >= 0) {
        len = k >= c ? 0 : r < c - k ? r : c - k;
        soff = len > 0 ? k * t->strides[1] : 0;
    } else {
        len = k <= -r ? 0 : r + k < c ? r + k : c;
        soff = len > 0 ? -k * t->strides[0] : 0;
    }
    tl_tensor *out = tl_tensor_new(tl_tensor_backend(t), t->dtype, 1, &len, err);
    if (!out)
        return NULL;
    int64_t sst = t->strides[0] + t->strides[1], one = 1;
    if (copy_region(out, 0, 1, &len, &one, t, &sst, soff, err) < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    tl_ops_grad_result(out, t->requires_grad);
    return out;
}

/* matmul for 1-D/2-D operands: broadcast multiply, then sum over k. */
/* ===================================================================== */
/* public entry points used by the bindings and the interpreter          */
/* ===================================================================== */

tl_tensor *tl_ops_binop(tl_binop op, const tl_operand *a, const tl_operand *b,
                        tl_error *err)
{
    return tl_ops_binary_new(op, a, b, err);
}

tl_tensor *tl_ops_hstack(tl_tensor *const *ts, size_t n, tl_error *err)
{
    return stack_kd(ts, n, 1, 0, 1, "hstack", err);
}

tl_tensor *tl_ops_vstack(tl_tensor *const *ts, size_t n, tl_error *err)
{
    return stack_kd(ts, n, 2, 0, 0, "vstack", err);
}

tl_tensor *tl_ops_flip(const tl_tensor *t, int ndims, const int64_t *dims,
                       tl_error *err)
{
    uint64_t mask;
    if (parse_dim_list(ndims, dims, t->ndim, &mask, NULL, NULL, err) < 0)
        return NULL;
    if (t->ndim == 0)
        mask = 0;
    return flip_mask(t, mask, err);
}

tl_tensor *tl_ops_fliplr(const tl_tensor *t, bool ud, tl_error *err)
{
    if (t->ndim < (ud ? 1 : 2)) {
        tl_error_set(err, TL_ERR_RUNTIME, "Input must be >= %d-d.", ud ? 1 : 2);
        return NULL;
    }
    return flip_mask(t, ud ? 1 : 2, err);
}

tl_tensor *tl_ops_roll(const tl_tensor *t, int nsh, const int64_t *sh, int nd,
                       const int64_t *raw, tl_error *err)
{
    int dl[TL_MAX_DIMS];
    /* roll_common's order: shifts required, dims=() flattens, then align */
    if (nsh == 0) {
        tl_error_set(err, TL_ERR_RUNTIME, "`shifts` required");
        return NULL;
    }
    if (nd != nsh && !(nd == 0 && nsh == 1)) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "shifts and dimensions must align. shifts: %d, dims:%d",
                     nsh, nd);
        return NULL;
    }
    /* each roll wraps its dim only after the empty-tensor early return;
     * dims=() flattens first, and a 1-D flatten is the tensor itself, so
     * its roll(shift, 0) takes the same return (keeping the strides) */
    if ((nd > 0 || t->ndim == 1) && tl_tensor_numel(t) == 0)
        return tl_ops_clone(t, TL_MEMFMT_PRESERVE, err);
    for (int i = 0; i < nd; i++) {
        if (t->ndim == 0) {
            tl_error_set(err, TL_ERR_INDEX,
                         "Dimension specified as %lld but tensor has no dimensions",
                         (long long)raw[i]);
            return NULL;
        }
        if (tl_shape_wrap_dim(raw[i], t->ndim, &dl[i], err) < 0)
            return NULL;
    }
    return roll_impl(t, nsh, sh, nd, dl, err);
}

tl_tensor *tl_ops_repeat(const tl_tensor *t, int n, const int64_t *reps,
                         tl_error *err)
{
    return repeat_impl(t, n, reps, err);
}

tl_tensor *tl_ops_tile(const tl_tensor *t, int n, const int64_t *reps,
                       tl_error *err)
{
    int64_t r[TL_MAX_DIMS];
    int nr = n;
    if (n < t->ndim) { /* pad the reps with leading ones */
        int pad = t->ndim - n;
        for (int i = 0; i < pad; i++)
            r[i] = 1;
        memcpy(r + pad, reps, sizeof(int64_t) * (size_t)n);
        nr = t->ndim;
    } else {
        memcpy(r, reps, sizeof(int64_t) * (size_t)n);
    }
    return repeat_impl(t, nr, r, err);
}

tl_tensor *tl_ops_repeat_interleave(const tl_tensor *t, const tl_tensor *rt,
                                    int64_t r, bool has_dim, int d,
                                    bool has_size, int64_t out_size,
                                    tl_error *err)
{
    if (rt)
        return repeat_interleave_tensor(t, rt, has_dim, d, has_size, out_size, err);
    return repeat_interleave_int(t, r, has_dim, d, has_size, out_size, err);
}

tl_tensor *tl_ops_repeat_interleave_index(const tl_tensor *reps, bool has_size,
                                          int64_t out_size, tl_error *err)
{
    /* AT_DISPATCH_INDEX_TYPES comes before the 1-D check */
    if (reps->dtype == TL_INT64 || reps->dtype == TL_INT32) {
        if (reps->ndim != 1) {
            tl_error_set(err, TL_ERR_RUNTIME, "repeat_interleave only accept 1D vector as repeat");
            return NULL;
        }
    }
    int64_t n = reps->ndim == 1 ? reps->sizes[0] : 0, total, *counts;
    if (ri_counts(reps, n, false, has_size, out_size, &counts, &total, err) < 0)
        return NULL;
    /* empty repeats: empty_like(repeats), so contiguous (1,) */
    void *host = tl_create_host_buffer(total, reps->dtype, err);
    if (!host) {
        free(counts);
        return NULL;
    }
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < counts[i]; j++, k++) {
            if (reps->dtype == TL_INT64)
                ((int64_t *)host)[k] = i;
            else
                ((int32_t *)host)[k] = (int32_t)i;
        }
    free(counts);
    tl_tensor *out = tl_create_upload(tl_tensor_backend(reps), reps->dtype, 1, &total, host, err);
    tl_create_host_buffer_free(host, total, reps->dtype);
    return out;
}

tl_tensor *tl_ops_tri(const tl_tensor *t, int64_t k, bool upper, tl_error *err)
{
    return tri_impl(t, k, upper, err);
}

tl_tensor *tl_ops_diag(const tl_tensor *t, int64_t k, tl_error *err)
{
    return diag_impl(t, k, err);
}

tl_tensor *tl_ops_diag_embed(const tl_tensor *t, int64_t offset, int64_t dim1,
                             int64_t dim2, tl_error *err)
{
    int nd = t->ndim + 1, d1, d2;
    if (nd > TL_MAX_DIMS) {
        tl_error_set(err, TL_ERR_LIMIT, "a tensor may have at most %d dims "
                     "(tlab limit)", TL_MAX_DIMS);
        return NULL;
    }
    if (tl_shape_wrap_dim(dim1, nd, &d1, err) < 0 || tl_shape_wrap_dim(dim2, nd, &d2, err) < 0)
        return NULL;
    if (d1 == d2) {
        tl_error_set(err, TL_ERR_RUNTIME, "diagonal dimensions cannot be identical %lld, %lld",
                     (long long)dim1, (long long)dim2);
        return NULL;
    }
    if (offset > TL_MAX_NUMEL || offset < -TL_MAX_NUMEL) {
        tl_error_set(err, TL_ERR_LIMIT, "a tensor may have at most 2^31 elements "
                     "(tlab limit)");
        return NULL;
    }
    int64_t last = t->ndim ? t->sizes[t->ndim - 1] : 1;
    int64_t m = last + (offset < 0 ? -offset : offset);
    int lo = d1 < d2 ? d1 : d2, hi = d1 < d2 ? d2 : d1;
    int64_t sz[TL_MAX_DIMS];
    for (int i = 0, j = 0; i < nd; i++)
        sz[i] = (i == lo || i == hi) ? m : t->sizes[j++];
    tl_tensor *out = tl_tensor_new(tl_tensor_backend(t), t->dtype, nd, sz, err);
    if (!out)
        return NULL;
    /* a 0-d input has one output dim, so d1 == d2 was refused above */
    TL_ASSERT(t->ndim >= 1);
    /* the diagonal view of out has t's shape: copy t into it */
    tl_geom g = {.ndim = out->ndim, .offset = out->offset};
    memcpy(g.sizes, out->sizes, sizeof(int64_t) * (size_t)out->ndim);
    memcpy(g.strides, out->strides, sizeof(int64_t) * (size_t)out->ndim);
    tl_tensor *dv = NULL;
    if (tl_shape_diagonal(&g, offset, d1, d2, err) == 0)
        dv = tl_tensor_view(out, g.ndim, g.sizes, g.strides, g.offset);
    if (!dv || tl_ops_copy_into(dv, t, t->strides, err) < 0) {
        if (dv)
            tl_tensor_release(dv);
        tl_tensor_release(out);
        return NULL;
    }
    tl_tensor_release(dv);
    tl_ops_grad_result(out, t->requires_grad);
    return out;
}

tl_tensor *tl_ops_diagflat(const tl_tensor *t, int64_t offset, tl_error *err)
{
    tl_tensor *c = tl_ops_clone(t, TL_MEMFMT_CONTIGUOUS, err);
    if (!c)
        return NULL;
    int64_t n = tl_tensor_numel(c), one = 1;
    tl_tensor *flat = tl_tensor_view(c, 1, &n, &one, 0);
    tl_tensor_release(c);
    tl_tensor *out = diag_impl(flat, offset, err);
    tl_tensor_release(flat);
    return out;
}

/* triu_/tril_: zeros written into t itself when tri_in_place allows (an
 * overlapping t then raises nothing, as in PyTorch), else the triangle of
 * a contiguous copy copied back, whose copy_ rejects an overlapping t. */
int tl_ops_tri_(tl_tensor *t, int64_t k, bool upper, tl_error *err)
{
    if (tl_ops_check_inplace_grad(t, err) < 0)
        return -1;
    if (t->ndim >= 2 && tl_tensor_numel(t) > 0 && tri_in_place(t)) {
        if (tri_zero(t, k, upper, err) < 0)
            return -1;
        tl_tensor_bump_version(t);
        return 0;
    }
    tl_tensor *r = tri_impl(t, k, upper, err);
    if (!r)
        return -1;
    int rc = tl_tensor_numel(t) > 0 ? tl_ops_assert_no_internal_overlap(t, err) : 0;
    if (rc == 0)
        rc = tl_ops_copy_into(t, r, r->strides, err);
    tl_tensor_release(r);
    if (rc < 0)
        return -1;
    tl_tensor_bump_version(t);
    return 0;
}
