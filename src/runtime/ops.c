/* ops.c - every runtime operation that allocates (copies) or writes in place:
 * conversions (clone, contiguous, to), elementwise arithmetic and comparisons,
 * in-place `op_` forms, reductions, and assembly (cat, stack, flip, roll,
 * repeat, triu/tril, diag).
 *
 * Design:
 *   - Kernels are never written here: every data movement goes through the
 *     backend vtable of the tensors involved (tl_tensor_backend(t)->binary,
 *     ->copy_strided, ...). This file decides dtypes, shapes, layouts and
 *     errors; the backend only moves numbers.
 *   - Elementwise ops follow at::TensorIterator: operands are broadcast with
 *     infer_size (PyTorch's error text), the result dtype comes from
 *     result_type with Python numbers as "wrapped numbers", and the output
 *     strides come from the fast-setup rules (all contiguous / all channels-
 *     last / all dense with equal strides) or else from reorder_dimensions
 *     (the first operand whose strides order a pair of dims decides).
 *   - Python scalars and 0-d CPU tensors used with device tensors are staged
 *     into tiny raw device buffers (backend alloc, not charged to the ledger):
 *     "bytes allocated by an op" then counts only real results, as PyTorch's
 *     allocator statistics would.
 *   - In-place ops check in PyTorch's order: autograd leaf, internal overlap,
 *     partial overlap, broadcast, output shape, dtype cast; then write and
 *     bump the version counter exactly once.
 *   - Results of ops on requires_grad inputs require grad (and are not
 *     leaves) when their dtype is floating, as autograd would make them.
 *
 *   - The interface is C (ops.h): operands are tl_operand (tensor or
 *     number), dims are int64 arrays, pairs come back through
 *     out-parameters; Python values never reach this file (py/bind_ops.c
 *     and py/pyops.c convert them). Shape arithmetic is shape.h's.
 *
 * Invariants: every returned tensor is a new reference; copies always get a
 * fresh storage (reference sheet section 10), except the documented
 * same-object cases of contiguous() and to().
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "create.h"
#include "matmul.h"
#include "ops.h"
#include "shape.h"

/* ===================================================================== */
/* small helpers                                                          */
/* ===================================================================== */

static bool same_device(tl_device a, tl_device b)
{
    return tl_device_same(a, b);
}

/* PyTorch's "Expected all tensors to be on the same device" RuntimeError
 * for devices a and b, in the order given. */
static int device_mismatch(tl_device a, tl_device b, tl_error *err)
{
    char sa[32], sb[32];
    tl_device_str(a, sa, sizeof sa);
    tl_device_str(b, sb, sizeof sb);
    return tl_error_set(err, TL_ERR_RUNTIME,
                        "Expected all tensors to be on the same device, but "
                        "found at least two devices, %s and %s!",
                        sa, sb);
}

/* c10's is_channels_last_strides_2d (nd 4) / _3d (nd 5): drives
 * suggest_memory_format(). */
static bool strides_like_channels_last(const tl_tensor *t, int nd)
{
    static const int order4[4] = {1, 3, 2, 0}, order5[5] = {1, 4, 3, 2, 0};
    const int *order = nd == 4 ? order4 : order5;
    int64_t min = 0;
    if (t->ndim != nd || t->strides[1] == 0)
        return false;
    for (int k = 0; k < nd; k++) {
        int d = order[k];
        if (t->sizes[d] == 0)
            return false;
        if (t->strides[d] < min)
            return false;
        if (d == 0 && min == t->strides[1])
            return false;
        min = t->strides[d];
        if (t->sizes[d] > 1)
            min *= t->sizes[d];
    }
    return true;
}

static tl_memfmt suggest_memory_format(const tl_tensor *t)
{
    if (strides_like_channels_last(t, 4))
        return TL_MEMFMT_CHANNELS_LAST;
    if (strides_like_channels_last(t, 5))
        return TL_MEMFMT_CHANNELS_LAST_3D;
    return TL_MEMFMT_CONTIGUOUS;
}

/* Strides for a fresh tensor of t's shape in memory format fmt. */
static int format_strides(const tl_tensor *t, tl_memfmt fmt, int64_t *st,
                          tl_error *err)
{
    switch (fmt) {
    case TL_MEMFMT_PRESERVE:
        tl_tensor_preserve_strides(t, st);
        return 0;
    case TL_MEMFMT_CONTIGUOUS:
        tl_shape_contiguous_strides(t->ndim, t->sizes, st);
        return 0;
    case TL_MEMFMT_CHANNELS_LAST:
        if (t->ndim != 4)
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "required rank 4 tensor to use channels_last format");
        tl_shape_channels_last_strides(t->ndim, t->sizes, st);
        return 0;
    case TL_MEMFMT_CHANNELS_LAST_3D:
        if (t->ndim != 5)
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "required rank 5 tensor to use channels_last_3d format");
        tl_shape_channels_last_strides(5, t->sizes, st);
        return 0;
    }
    return 0;
}

/* Autograd bookkeeping for a fresh result. */
static void grad_result(tl_tensor *out, bool any_grad)
{
    if (any_grad && tl_tensor_grad_mode() && tl_dtype_is_floating(out->dtype)) {
        out->requires_grad = true;
        out->is_leaf = false;
    }
}

/* The check autograd's VariableType does before every in-place op. */
static int check_inplace_grad(const tl_tensor *t, tl_error *err)
{
    if (!tl_tensor_grad_mode())
        return 0; /* torch.no_grad(): in-place on leaves is allowed */
    if (t->requires_grad && t->is_leaf && !t->is_view_of_grad_leaf)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "a leaf Variable that requires grad is being used in an in-place operation.");
    if (t->is_view_of_grad_leaf)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "a view of a leaf Variable that requires grad is being used in an in-place operation.");
    return 0;
}

/* An in-place write with a grad-requiring operand makes dst part of the
 * graph (a float dst then requires grad and is no longer a leaf). */
static void grad_inplace(tl_tensor *dst, bool other_grad)
{
    if (other_grad && tl_tensor_grad_mode() && tl_dtype_is_floating(dst->dtype) &&
        !dst->requires_grad) {
        dst->requires_grad = true;
        dst->is_leaf = false;
    }
}

/* at::has_internal_overlap: NO for a non-overlapping-and-dense tensor
 * (every numel-0 tensor is contiguous, so an empty expand is fine), else
 * YES only for a size>1 dim with stride 0 (the rest is TOO_HARD). */
static bool has_internal_overlap(const tl_tensor *t)
{
    if (tl_tensor_is_non_overlapping_and_dense(t))
        return false;
    for (int d = 0; d < t->ndim; d++)
        if (t->sizes[d] > 1 && t->strides[d] == 0)
            return true;
    return false;
}

static int assert_no_internal_overlap(const tl_tensor *t, tl_error *err)
{
    if (has_internal_overlap(t))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.");
    return 0;
}

/* at::get_overlap_status, answering "partial overlap?" */
static bool partial_overlap(const tl_tensor *a, const tl_tensor *b)
{
    if (a == b)
        return false;
    if (tl_tensor_numel(a) == 0 || tl_tensor_numel(b) == 0)
        return false;
    if (!tl_tensor_is_non_overlapping_and_dense(a) ||
        !tl_tensor_is_non_overlapping_and_dense(b))
        return false; /* TOO_HARD */
    if (!tl_storage_same(a->storage, b->storage))
        return false;
    size_t ia = tl_dtype_size(a->dtype), ib = tl_dtype_size(b->dtype);
    int64_t a0 = a->offset * (int64_t)ia;
    int64_t a1 = a0 + tl_tensor_numel(a) * (int64_t)ia;
    int64_t b0 = b->offset * (int64_t)ib;
    int64_t b1 = b0 + tl_tensor_numel(b) * (int64_t)ib;
    if (a0 == b0 && a1 == b1)
        return false; /* FULL */
    return a0 < b1 && b0 < a1;
}

static int assert_no_partial_overlap(const tl_tensor *out, const tl_tensor *in,
                                     tl_error *err)
{
    if (partial_overlap(out, in))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.");
    return 0;
}

/* infer_size over two shapes, PyTorch's message ("tensor a" is the shape
 * accumulated so far, "tensor b" the new operand). */
static int broadcast_pair(int na, const int64_t *a, int nb, const int64_t *b,
                          int *nout, int64_t *out, tl_error *err)
{
    int n = na > nb ? na : nb;
    int64_t tmp[TL_MAX_DIMS];
    for (int i = n - 1; i >= 0; i--) {
        int off = n - 1 - i;
        int da = na - 1 - off, db = nb - 1 - off;
        int64_t sa = da >= 0 ? a[da] : 1;
        int64_t sb = db >= 0 ? b[db] : 1;
        if (!(sa == sb || sa == 1 || sb == 1))
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d",
                                (long long)sa, (long long)sb, i);
        tmp[i] = sa == 1 ? sb : sa;
    }
    memcpy(out, tmp, sizeof(int64_t) * (size_t)n);
    *nout = n;
    return 0;
}

static void shape_text(char *buf, size_t cap, int nd, const int64_t *sz)
{
    tl_shape_format(buf, cap, nd, sz);
}

static int check_out_shape(const tl_tensor *out, int nd, const int64_t *shape,
                           tl_error *err)
{
    if (tl_shape_equal(out->ndim, out->sizes, nd, shape))
        return 0;
    char a[32 * TL_MAX_DIMS + 3], b[32 * TL_MAX_DIMS + 3];
    shape_text(a, sizeof a, out->ndim, out->sizes);
    shape_text(b, sizeof b, nd, shape);
    return tl_error_set(err, TL_ERR_RUNTIME,
                        "output with shape %s doesn't match the broadcast shape %s",
                        a, b);
}

/* Strides of t when broadcast to an nd-dim shape (0 on new / expanded dims). */
static void broadcast_strides(const tl_tensor *t, int nd, const int64_t *shape,
                              int64_t *st)
{
    int off = nd - t->ndim;
    for (int i = 0; i < nd; i++) {
        int j = i - off;
        if (j < 0 || (t->sizes[j] == 1 && shape[i] != 1))
            st[i] = 0;
        else
            st[i] = t->strides[j];
    }
}

/* ===================================================================== */
/* raw device scratch (not charged to the ledger)                         */
/* ===================================================================== */

typedef struct scratch {
    const tl_backend *be;
    void *p;
} scratch;

static void *scratch_alloc(scratch *s, const tl_backend *be, size_t n,
                           tl_error *err)
{
    s->be = be;
    s->p = NULL;
    if (tl_backend_alloc(be, n ? n : 1, &s->p, err) < 0)
        s->p = NULL;
    return s->p;
}

static void scratch_free(scratch *s)
{
    tl_backend_free(s->be, s->p);
    s->p = NULL;
}

/* Put one scalar (stored as dtype dt) into device memory of be. */
static void *scratch_scalar(scratch *s, const tl_backend *be, tl_dtype dt,
                            tl_scalar v, tl_error *err)
{
    unsigned char host[16];
    memset(host, 0, sizeof host);
    if (v.is_float)
        tl_dtype_store_f64(dt, host, v.f);
    else
        tl_dtype_store_i64(dt, host, v.i);
    void *p = scratch_alloc(s, be, tl_dtype_size(dt), err);
    if (!p)
        return NULL;
    if (tl_backend_from_host(be, p, host, tl_dtype_size(dt), err) < 0) {
        scratch_free(s);
        return NULL;
    }
    return p;
}

static tl_strided strided_of(const tl_tensor *t)
{
    return tl_tensor_strided(t);
}

static tl_strided strided_make(void *data, tl_dtype dt, int nd,
                               const int64_t *sizes, const int64_t *strides)
{
    tl_strided s;
    s.data = data;
    s.dtype = dt;
    s.ndim = nd;
    s.sizes = sizes;
    s.strides = strides;
    return s;
}

static const int64_t zero_strides[TL_MAX_DIMS];

/* ===================================================================== */
/* operands, result_type, TensorIterator layout                          */
/* ===================================================================== */

/* One input of an elementwise op: a tensor, or a Python number (a
 * "wrapped number": int -> Long, float -> Double (weak), bool -> Bool). */
typedef tl_operand opnd; /* ops.h */

/* A Python-number operand converted to dt the way a kernel's
 * Scalar::to<scalar_t>() does: an error when it overflows dt. */
static int opnd_fits(const opnd *o, tl_dtype dt, tl_error *err)
{
    if (o->t)
        return 0;
    return tl_create_check_scalar(dt, o->s, err);
}

static opnd opnd_tensor(const tl_tensor *t)
{
    opnd o;
    memset(&o, 0, sizeof o);
    o.t = t;
    return o;
}

static opnd opnd_int(int64_t i)
{
    opnd o;
    memset(&o, 0, sizeof o);
    o.s.i = i;
    o.s.f = (double)i;
    o.sdt = TL_INT64;
    return o;
}

static opnd opnd_float(double f)
{
    opnd o;
    memset(&o, 0, sizeof o);
    o.s.is_float = true;
    o.s.f = f;
    o.sdt = TL_FLOAT64;
    return o;
}

static opnd opnd_bool(bool b)
{
    opnd o = opnd_int(b ? 1 : 0);
    o.sdt = TL_BOOL;
    return o;
}

tl_operand tl_ops_operand_tensor(const tl_tensor *t) { return opnd_tensor(t); }
tl_operand tl_ops_operand_int(int64_t i) { return opnd_int(i); }
tl_operand tl_ops_operand_float(double f) { return opnd_float(f); }
tl_operand tl_ops_operand_bool(bool b) { return opnd_bool(b); }

static tl_dtype opnd_dtype(const opnd *o)
{
    return o->t ? o->t->dtype : o->sdt;
}

static int opnd_ndim(const opnd *o)
{
    return o->t ? o->t->ndim : 0;
}

static const int64_t *opnd_sizes(const opnd *o)
{
    return o->t ? o->t->sizes : zero_strides;
}

static tl_dtype promote_skip(int *has, tl_dtype cur, tl_dtype dt)
{
    if (!*has) {
        *has = 1;
        return dt;
    }
    return tl_dtype_promote(cur, dt);
}

/* c10 combine_categories (no complex types here); has_* mark "defined". */
static tl_dtype combine(int has_hi, tl_dtype hi, int has_lo, tl_dtype lo,
                        int *has_out)
{
    *has_out = has_hi || has_lo;
    if (!has_hi)
        return lo;
    if (!has_lo)
        return hi;
    if (tl_dtype_is_floating(hi))
        return hi;
    if (hi == TL_BOOL || tl_dtype_is_floating(lo))
        return tl_dtype_promote(hi, lo);
    return hi;
}

/* at::result_type over operands. */
static tl_dtype result_type(const opnd *ops, int n)
{
    int hd = 0, hz = 0, hw = 0;
    tl_dtype dim = TL_BOOL, zero = TL_BOOL, wrapped = TL_BOOL;
    for (int i = 0; i < n; i++) {
        if (!ops[i].t) {
            tl_dtype dt = ops[i].sdt;
            if (tl_dtype_is_floating(dt))
                dt = TL_FLOAT32; /* default dtype */
            wrapped = promote_skip(&hw, wrapped, dt);
        } else if (ops[i].t->ndim > 0) {
            dim = promote_skip(&hd, dim, ops[i].t->dtype);
        } else {
            zero = promote_skip(&hz, zero, ops[i].t->dtype);
        }
    }
    int h1, h2;
    tl_dtype lo = combine(hz, zero, hw, wrapped, &h1);
    tl_dtype r = combine(hd, dim, h1, lo, &h2);
    return h2 ? r : TL_FLOAT32;
}

/* The output strides TensorIterator gives an allocated output.
 * `common` is the dtype inputs are promoted to (inputs of another dtype are
 * first converted with .to(), i.e. preserve-format strides). */
static void iter_out_strides(const opnd *ops, int n, tl_dtype common, int nd,
                             const int64_t *shape, int64_t *out)
{
    /* the tensor operands at the iteration rank, with their effective
     * (post-conversion) strides */
    int64_t sz[8][TL_MAX_DIMS], st[8][TL_MAX_DIMS];
    const int64_t *szp[8], *stp[8];
    int nt = 0;
    bool all_same_shape = true, has_scalars = false, has_tensors = false;
    const int64_t *first_shape = NULL;
    int first_nd = -1;

    TL_ASSERT(n <= 8);
    for (int i = 0; i < n; i++) {
        int ond = opnd_ndim(&ops[i]);
        if (ond == 0)
            has_scalars = true;
        else
            has_tensors = true;
        if (has_scalars && has_tensors)
            all_same_shape = false;
        if (first_nd < 0) {
            first_nd = ond;
            first_shape = opnd_sizes(&ops[i]);
        } else if (!tl_shape_equal(first_nd, first_shape, ond, opnd_sizes(&ops[i]))) {
            all_same_shape = false;
        }
        const tl_tensor *t = ops[i].t;
        if (t) {
            int off = nd - t->ndim;
            int64_t eff[TL_MAX_DIMS];
            if (t->dtype != common)
                tl_tensor_preserve_strides(t, eff);
            else
                memcpy(eff, t->strides, sizeof(int64_t) * (size_t)t->ndim);
            for (int d = 0; d < nd; d++) {
                sz[nt][d] = d < off ? 1 : t->sizes[d - off];
                st[nt][d] = d < off ? 0 : eff[d - off];
            }
            szp[nt] = sz[nt];
            stp[nt] = st[nt];
            nt++;
        }
    }
    tl_shape_iter_strides(nd, shape, nt, szp, stp, all_same_shape, out);
}

/* Common device of the tensor operands. 0-d CPU tensors may join device
 * tensors (they are read as numbers). */
static int common_device(const opnd *ops, int n, const tl_backend **be,
                         tl_error *err)
{
    const tl_tensor *first = NULL;
    for (int i = 0; i < n; i++) {
        const tl_tensor *t = ops[i].t;
        if (!t)
            continue;
        if (!first) {
            first = t;
            continue;
        }
        tl_device a = tl_tensor_device(first), b = tl_tensor_device(t);
        if (same_device(a, b))
            continue;
        if (b.kind == TL_DEV_CPU && t->ndim == 0)
            continue;
        if (a.kind == TL_DEV_CPU && first->ndim == 0) {
            first = t;
            continue;
        }
        /* the CPU tensor's device comes second */
        return b.kind == TL_DEV_CPU ? device_mismatch(a, b, err)
                                    : device_mismatch(b, a, err);
    }
    *be = first ? tl_tensor_backend(first) : tl_backend_cpu();
    return 0;
}

/* Describe operand o for a kernel over the output shape. Numbers and
 * foreign-device 0-d tensors are staged in `sc`. stbuf holds strides. */
static int opnd_strided(const opnd *o, const tl_backend *be, int nd,
                        const int64_t *shape, int64_t *stbuf, scratch *sc,
                        tl_strided *out, tl_error *err)
{
    sc->p = NULL;
    if (o->t && same_device(tl_tensor_device(o->t), tl_backend_device(be))) {
        broadcast_strides(o->t, nd, shape, stbuf);
        *out = strided_make(tl_tensor_addr(o->t), o->t->dtype, nd, shape, stbuf);
        return 0;
    }
    tl_scalar v;
    tl_dtype dt;
    if (o->t) { /* 0-d tensor on another device: read it as a number */
        dt = o->t->dtype;
        memset(&v, 0, sizeof v);
        if (tl_dtype_is_floating(dt)) {
            v.is_float = true;
            if (tl_tensor_get_f64(o->t, 0, &v.f, err) < 0)
                return -1;
        } else if (tl_tensor_get_i64(o->t, 0, &v.i, err) < 0) {
            return -1;
        }
    } else {
        dt = o->sdt;
        v = o->s;
    }
    void *p = scratch_scalar(sc, be, dt, v, err);
    if (!p)
        return -1;
    memset(stbuf, 0, sizeof(int64_t) * (size_t)nd);
    *out = strided_make(p, dt, nd, shape, stbuf);
    return 0;
}

static bool opnds_grad(const opnd *ops, int n)
{
    for (int i = 0; i < n; i++)
        if (ops[i].t && ops[i].t->requires_grad)
            return true;
    return false;
}

/* Broadcast shape of all operands (pairwise infer_size in order). */
static int opnds_shape(const opnd *ops, int n, int *nd, int64_t *shape,
                       tl_error *err)
{
    *nd = 0;
    bool first = true;
    for (int i = 0; i < n; i++) {
        int ond = opnd_ndim(&ops[i]);
        const int64_t *os = opnd_sizes(&ops[i]);
        if (first) {
            memcpy(shape, os, sizeof(int64_t) * (size_t)ond);
            *nd = ond;
            first = false;
        } else if (!tl_shape_equal(*nd, shape, ond, os)) {
            if (broadcast_pair(*nd, shape, ond, os, nd, shape, err) < 0)
                return -1;
        }
    }
    return 0;
}

/* ===================================================================== */
/* copies                                                                 */
/* ===================================================================== */

/* dst <- src (src already broadcast to dst's shape through `sst` strides),
 * across devices when needed. No checks, no version bump. */
static int copy_into(const tl_tensor *dst, const tl_tensor *src,
                     const int64_t *sst, tl_error *err)
{
    const tl_backend *dbe = tl_tensor_backend(dst);
    const tl_backend *sbe = tl_tensor_backend(src);
    int64_t n = tl_tensor_numel(dst);
    if (n == 0)
        return 0;
    tl_strided d = strided_of(dst);
    tl_strided s = strided_make(tl_tensor_addr(src), src->dtype, dst->ndim,
                                dst->sizes, sst);
    return tl_backend_copy_between(dbe, &d, sbe, &s, err);
}

/* A fresh tensor on `be` with t's shape, dtype dt and strides st, holding
 * t's values. */
static tl_tensor *copy_new(const tl_tensor *t, const tl_backend *be,
                           tl_dtype dt, const int64_t *st, tl_error *err)
{
    tl_tensor *out = tl_tensor_new_for_write(be, dt, t->ndim, t->sizes, st, err);
    if (!out)
        return NULL;
    if (copy_into(out, t, t->strides, err) < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    grad_result(out, t->requires_grad);
    return out;
}

tl_tensor *tl_ops_clone(const tl_tensor *t, tl_memfmt fmt, tl_error *err)
{
    int64_t st[TL_MAX_DIMS];
    if (format_strides(t, fmt, st, err) < 0)
        return NULL;
    return copy_new(t, tl_tensor_backend(t), t->dtype, st, err);
}

static bool is_contiguous_fmt(const tl_tensor *t, tl_memfmt fmt)
{
    switch (fmt) {
    case TL_MEMFMT_CHANNELS_LAST:
        return tl_tensor_is_channels_last(t);
    case TL_MEMFMT_CHANNELS_LAST_3D:
        return tl_tensor_is_channels_last_3d(t);
    default:
        return tl_tensor_is_contiguous(t);
    }
}

tl_tensor *tl_ops_contiguous(tl_tensor *t, tl_memfmt fmt, tl_error *err)
{
    /* TensorImpl::is_contiguous(Preserve) is the default contiguity: a
     * contiguous tensor is returned before the Preserve check */
    if (is_contiguous_fmt(t, fmt))
        return tl_tensor_retain(t);
    if (fmt == TL_MEMFMT_PRESERVE) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "preserve memory format is unsupported by the contiguous operator");
        return NULL;
    }
    return tl_ops_clone(t, fmt, err);
}

tl_tensor *tl_ops_to(tl_tensor *t, const tl_backend *be, tl_dtype dt,
                     bool copy, tl_memfmt fmt, tl_error *err)
{
    if (!be)
        be = tl_tensor_backend(t);
    bool same_dev = same_device(tl_backend_device(be), tl_tensor_device(t));
    if (same_dev)
        be = tl_tensor_backend(t);
    if (same_dev && dt == t->dtype && !copy &&
        (fmt == TL_MEMFMT_PRESERVE || fmt == suggest_memory_format(t)))
        return tl_tensor_retain(t);
    int64_t st[TL_MAX_DIMS];
    if (format_strides(t, fmt, st, err) < 0)
        return NULL;
    return copy_new(t, be, dt, st, err);
}

/* copy_ after the leaf check: PyTorch's copy_impl. */
static int copy_checked(tl_tensor *dst, const tl_tensor *src, tl_error *err)
{
    if (dst == src)
        return 0;
    if (tl_storage_same(dst->storage, src->storage) &&
        dst->storage == src->storage && dst->offset == src->offset &&
        dst->dtype == src->dtype &&
        tl_shape_equal(dst->ndim, dst->sizes, src->ndim, src->sizes) &&
        tl_shape_equal(dst->ndim, dst->strides, src->ndim, src->strides))
        return 0;
    if (assert_no_internal_overlap(dst, err) < 0)
        return -1;
    if (assert_no_partial_overlap(dst, src, err) < 0)
        return -1;
    int nd;
    int64_t shape[TL_MAX_DIMS];
    if (broadcast_pair(dst->ndim, dst->sizes, src->ndim, src->sizes, &nd,
                       shape, err) < 0)
        return -1;
    if (check_out_shape(dst, nd, shape, err) < 0)
        return -1;
    int64_t sst[TL_MAX_DIMS];
    broadcast_strides(src, dst->ndim, dst->sizes, sst);
    if (copy_into(dst, src, sst, err) < 0)
        return -1;
    grad_inplace(dst, src->requires_grad);
    return 0;
}

int tl_ops_copy_(tl_tensor *dst, const tl_tensor *src, tl_error *err)
{
    if (check_inplace_grad(dst, err) < 0)
        return -1;
    if (copy_checked(dst, src, err) < 0)
        return -1;
    tl_tensor_bump_version(dst);
    return 0;
}

int tl_ops_fill_(tl_tensor *dst, tl_scalar v, tl_error *err)
{
    if (check_inplace_grad(dst, err) < 0)
        return -1;
    /* Scalar::to<scalar_t>(): "value cannot be converted to type uint8_t
     * without overflow", empty or not */
    if (tl_create_check_scalar(dst->dtype, v, err) < 0)
        return -1;
    if (tl_tensor_numel(dst) > 0) {
        tl_strided d = strided_of(dst);
        if (tl_backend_fill(tl_tensor_backend(dst), &d, v, err) < 0)
            return -1;
    }
    tl_tensor_bump_version(dst);
    return 0;
}

/* ===================================================================== */
/* elementwise binary ops                                                 */
/* ===================================================================== */

typedef enum binkind {
    BK_ARITH,   /* out = compute = result_type */
    BK_FLOAT,   /* integral results promoted to the default float */
    BK_CMP,     /* compute = result_type, out = bool */
    BK_LOGICAL, /* out = bool, any dtype */
    BK_BITWISE  /* integral/bool only */
} binkind;

static binkind binop_kind(tl_binop op)
{
    switch (op) {
    case TL_BIN_DIV:
    case TL_BIN_ATAN2:
        return BK_FLOAT;
    case TL_BIN_EQ: case TL_BIN_NE: case TL_BIN_LT: case TL_BIN_LE:
    case TL_BIN_GT: case TL_BIN_GE:
        return BK_CMP;
    case TL_BIN_LOGICAL_AND: case TL_BIN_LOGICAL_OR: case TL_BIN_LOGICAL_XOR:
        return BK_LOGICAL;
    case TL_BIN_BITAND: case TL_BIN_BITOR: case TL_BIN_BITXOR:
    case TL_BIN_LSHIFT: case TL_BIN_RSHIFT:
        return BK_BITWISE;
    default:
        return BK_ARITH;
    }
}

static const char *binop_kernel_name(tl_binop op)
{
    switch (op) {
    case TL_BIN_BITAND: return "bitwise_and_cpu";
    case TL_BIN_BITOR: return "bitwise_or_cpu";
    case TL_BIN_BITXOR: return "bitwise_xor_cpu";
    case TL_BIN_LSHIFT: return "lshift_cpu";
    case TL_BIN_RSHIFT: return "rshift_cpu";
    default: return "binary_cpu";
    }
}

/* PyTorch names its kernels after the device: "bitwise_and_cuda", not
 * "bitwise_and_cpu" (and CUDA has no "_vml" kernels). Rewrites a dtype
 * error of the rules below for a tensor on `dev`; returns -1. */
static int device_kernel_names(tl_device dev, tl_error *err)
{
    if (dev.kind != TL_DEV_CUDA || !err)
        return -1;
    static const char *const from[] = {"_vml_cpu\"", "_cpu\""};
    for (int k = 0; k < 2; k++) {
        char *p = strstr(err->msg, from[k]);
        if (!p)
            continue;
        size_t fl = strlen(from[k]);
        char tail[sizeof err->msg];
        snprintf(tail, sizeof tail, "%s", p + fl);
        snprintf(p, sizeof err->msg - (size_t)(p - err->msg), "_cuda\"%s", tail);
        break;
    }
    return -1;
}

static bool opnd_is_zero(const opnd *o)
{
    if (o->t)
        return false;
    return o->s.is_float ? o->s.f == 0.0 : o->s.i == 0;
}

/* Dtype rules of a binary op: compute dtype and output dtype, or an error.
 * `a`, `b` are the two operands in order. */
static int binop_types(tl_binop op, const opnd *a, const opnd *b, bool empty,
                       tl_dtype *compute, tl_dtype *outdt, tl_error *err)
{
    opnd ops[2] = {*a, *b};
    tl_dtype common = result_type(ops, 2);
    tl_dtype da = opnd_dtype(a), db = opnd_dtype(b);
    switch (binop_kind(op)) {
    case BK_FLOAT:
        if (!tl_dtype_is_floating(common))
            common = TL_FLOAT32;
        *compute = *outdt = common;
        return 0;
    case BK_CMP:
        *compute = common;
        *outdt = TL_BOOL;
        return 0;
    case BK_LOGICAL:
        *compute = common;
        *outdt = TL_BOOL;
        return 0;
    case BK_BITWISE:
        if (tl_dtype_is_floating(common))
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "\"%s\" not implemented for '%s'",
                                binop_kernel_name(op),
                                tl_dtype_scalar_name(common));
        *compute = *outdt = common;
        return 0;
    case BK_ARITH:
        break;
    }
    if (op == TL_BIN_SUB && (da == TL_BOOL || db == TL_BOOL)) {
        if (da == TL_BOOL && db == TL_BOOL)
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.");
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    }
    if (common == TL_BOOL) {
        /* CPU kernels that dispatch no Bool (1.13 and 2.x) */
        const char *k = op == TL_BIN_FLOORDIV ? "div_floor_cpu"
                        : op == TL_BIN_REMAINDER ? "remainder_cpu"
                        : op == TL_BIN_FMOD ? "fmod_cpu"
                        : op == TL_BIN_POW ? "pow" : NULL;
        if (k)
            return tl_error_set(err, TL_ERR_RUNTIME, "\"%s\" not implemented for 'Bool'", k);
    }
    /* the kernel raises on a zero divisor, so an empty result does not */
    if ((op == TL_BIN_FLOORDIV || op == TL_BIN_REMAINDER || op == TL_BIN_FMOD) &&
        !tl_dtype_is_floating(common) && opnd_is_zero(b) && !empty)
        return tl_error_set(err, TL_ERR_RUNTIME, "ZeroDivisionError");
    if (op == TL_BIN_POW && !tl_dtype_is_floating(common) && !b->t &&
        !b->s.is_float && b->sdt != TL_BOOL && b->s.i < 0)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "Integers to negative integer powers are not allowed.");
    *compute = *outdt = common;
    return 0;
}

/* Run the kernel: dst <- a OP b over dst's shape. */
static int run_binary(tl_binop op, tl_dtype compute, const tl_tensor *dst,
                      const opnd *a, const opnd *b, tl_error *err)
{
    const tl_backend *be = tl_tensor_backend(dst);
    int nd = dst->ndim;
    int64_t sa[TL_MAX_DIMS], sb[TL_MAX_DIMS];
    scratch ca = {0}, cb = {0};
    tl_strided d = strided_of(dst), xa, xb;
    int rc = -1;
    if (tl_tensor_numel(dst) == 0)
        return 0;
    if (opnd_strided(a, be, nd, dst->sizes, sa, &ca, &xa, err) < 0)
        goto out;
    if (opnd_strided(b, be, nd, dst->sizes, sb, &cb, &xb, err) < 0)
        goto out;
    rc = tl_backend_binary(be, op, compute, &d, &xa, &xb, err);
out:
    scratch_free(&ca);
    scratch_free(&cb);
    return rc;
}

/* Fold alpha into b for add/sub: b*alpha (a Python number stays a number;
 * a tensor becomes a temporary). *tmp receives the temporary to release. */
static int apply_alpha(const opnd *a, opnd *b, const opnd *alpha,
                       tl_tensor **tmp, tl_error *err)
{
    *tmp = NULL;
    if (!alpha)
        return 0;
    TL_ASSERT(!alpha->t); /* a number (the py layer checks) */
    opnd ops[2] = {*a, *b};
    tl_dtype common = result_type(ops, 2);
    bool af = alpha->s.is_float;
    double fa = alpha->s.f;
    int64_t ia = alpha->s.i;
    if (af && !tl_dtype_is_floating(common))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "For integral input tensors, argument alpha must not be a floating point number.");
    if (!af && ia == 1)
        return 0;
    if (!b->t) {
        if (b->s.is_float)
            b->s.f *= fa;
        else if (af) {
            b->s.is_float = true;
            b->s.f = (double)b->s.i * fa;
        } else {
            b->s.i *= ia;
            b->s.f = (double)b->s.i;
        }
        return 0;
    }
    /* tensor operand: b*alpha in the common dtype, b's shape */
    tl_tensor *t = tl_tensor_new(tl_tensor_backend(b->t), common, b->t->ndim,
                                 b->t->sizes, err);
    if (!t)
        return -1;
    opnd al = af ? opnd_float(fa) : opnd_int(ia);
    if (run_binary(TL_BIN_MUL, common, t, b, &al, err) < 0) {
        tl_tensor_release(t);
        return -1;
    }
    t->requires_grad = b->t->requires_grad;
    b->t = t;
    *tmp = t;
    return 0;
}

/* out = a OP b (new tensor, TensorIterator layout). */
static tl_tensor *binary_new(tl_binop op, const opnd *a, const opnd *b,
                             tl_error *err)
{
    opnd ops[2] = {*a, *b};
    const tl_backend *be;
    if (common_device(ops, 2, &be, err) < 0)
        return NULL;
    int nd;
    int64_t shape[TL_MAX_DIMS], st[TL_MAX_DIMS];
    if (opnds_shape(ops, 2, &nd, shape, err) < 0)
        return NULL;
    tl_dtype compute, outdt;
    int64_t onumel = 1;
    for (int i = 0; i < nd; i++)
        onumel *= shape[i] > 0 ? 1 : 0;
    if (binop_types(op, a, b, onumel == 0, &compute, &outdt, err) < 0) {
        device_kernel_names(tl_backend_device(be), err);
        return NULL;
    }
    /* pow(Tensor, Scalar) is a unary TensorIterator (the exponent is no
     * operand), so its layout follows sqrt's, not `x + 1`'s */
    bool unary = op == TL_BIN_POW && a->t && !b->t;
    iter_out_strides(ops, unary ? 1 : 2, compute, nd, shape, st);
    tl_tensor *out = tl_tensor_new_for_write(be, outdt, nd, shape, st, err);
    if (!out)
        return NULL;
    if (run_binary(op, compute, out, a, b, err) < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    grad_result(out, opnds_grad(ops, 2));
    return out;
}

static int cast_error(tl_dtype from, tl_dtype to, tl_error *err)
{
    return tl_error_set(err, TL_ERR_RUNTIME,
                        "result type %s can't be cast to the desired output type %s",
                        tl_dtype_scalar_name(from), tl_dtype_scalar_name(to));
}

/* Device check for an in-place op: b must live with dst (or be a 0-d CPU
 * tensor / number). */
static int inplace_device(const tl_tensor *dst, const opnd *b, tl_error *err)
{
    if (!b->t)
        return 0;
    tl_device dd = tl_tensor_device(dst), bd = tl_tensor_device(b->t);
    if (same_device(dd, bd) || (bd.kind == TL_DEV_CPU && b->t->ndim == 0))
        return 0;
    /* the CPU tensor's device comes second */
    return bd.kind == TL_DEV_CPU ? device_mismatch(dd, bd, err)
                                 : device_mismatch(bd, dd, err);
}

/* dst OP= b, in place (no version bump, no leaf check). */
static int binary_inplace_checked(tl_binop op, tl_tensor *dst, const opnd *b,
                                  tl_error *err)
{
    opnd a = opnd_tensor(dst);
    if (assert_no_internal_overlap(dst, err) < 0)
        return -1;
    if (b->t && assert_no_partial_overlap(dst, b->t, err) < 0)
        return -1;
    if (inplace_device(dst, b, err) < 0)
        return -1;
    opnd ops[2] = {a, *b};
    int nd;
    int64_t shape[TL_MAX_DIMS];
    if (opnds_shape(ops, 2, &nd, shape, err) < 0)
        return -1;
    if (check_out_shape(dst, nd, shape, err) < 0)
        return -1;
    tl_dtype compute, outdt;
    if (binop_types(op, &a, b, tl_tensor_numel(dst) == 0, &compute, &outdt, err) < 0)
        return device_kernel_names(tl_tensor_device(dst), err);
    binkind k = binop_kind(op);
    tl_dtype res = k == BK_CMP || k == BK_LOGICAL ? compute : outdt;
    if (k != BK_LOGICAL && !tl_dtype_can_cast(res, dst->dtype))
        return cast_error(res, dst->dtype, err);
    if (run_binary(op, compute, dst, &a, b, err) < 0)
        return -1;
    grad_inplace(dst, b->t && b->t->requires_grad);
    return 0;
}

static int binary_inplace(tl_binop op, tl_tensor *dst, const opnd *b,
                          tl_error *err)
{
    if (check_inplace_grad(dst, err) < 0)
        return -1;
    if (binary_inplace_checked(op, dst, b, err) < 0)
        return -1;
    tl_tensor_bump_version(dst);
    return 0;
}

/* ===================================================================== */
/* elementwise unary ops                                                  */
/* ===================================================================== */

typedef enum unkind {
    UK_FLOAT, /* integral/bool inputs give the default float dtype */
    UK_SAME,  /* keeps the dtype */
    UK_BOOL   /* bool output */
} unkind;

static unkind unop_kind(tl_unop op)
{
    switch (op) {
    case TL_UN_NEG: case TL_UN_ABS: case TL_UN_RELU: case TL_UN_FLOOR:
    case TL_UN_CEIL: case TL_UN_ROUND: case TL_UN_TRUNC: case TL_UN_FRAC:
    case TL_UN_SIGN: case TL_UN_SQUARE: case TL_UN_BITWISE_NOT:
    case TL_UN_IDENTITY:
        return UK_SAME;
    case TL_UN_LOGICAL_NOT: case TL_UN_ISNAN: case TL_UN_ISINF:
    case TL_UN_ISFINITE:
        return UK_BOOL;
    default:
        return UK_FLOAT;
    }
}

static int unop_types(tl_unop op, tl_dtype in, tl_dtype *compute,
                      tl_dtype *outdt, tl_error *err)
{
    const char *nm = tl_dtype_scalar_name(in);
    switch (unop_kind(op)) {
    case UK_FLOAT:
        *compute = *outdt = tl_dtype_is_floating(in) ? in : TL_FLOAT32;
        return 0;
    case UK_BOOL:
        *compute = in;
        *outdt = TL_BOOL;
        return 0;
    case UK_SAME:
        break;
    }
    *compute = *outdt = in;
    switch (op) {
    case TL_UN_NEG:
        if (in == TL_BOOL)
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
        break;
    case TL_UN_ABS:
        if (in == TL_BOOL)
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "\"abs_cpu\" not implemented for 'Bool'");
        break;
    case TL_UN_RELU:
        if (in == TL_BOOL)
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "Boolean inputs not supported for relu");
        break;
    case TL_UN_FLOOR: case TL_UN_CEIL: case TL_UN_ROUND: case TL_UN_TRUNC:
        if (in == TL_BOOL)
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "\"%s_vml_cpu\" not implemented for 'Bool'",
                                op == TL_UN_FLOOR ? "floor"
                                : op == TL_UN_CEIL ? "ceil"
                                : op == TL_UN_ROUND ? "round" : "trunc");
        break;
    case TL_UN_FRAC:
        if (!tl_dtype_is_floating(in))
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "\"frac_cpu\" not implemented for '%s'", nm);
        break;
    case TL_UN_BITWISE_NOT:
        if (tl_dtype_is_floating(in))
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "\"bitwise_not_cpu\" not implemented for '%s'",
                                nm);
        break;
    case TL_UN_SQUARE:
        if (in == TL_BOOL)
            *compute = *outdt = TL_INT64; /* pow(bool, 2) promotes */
        break;
    default:
        break;
    }
    return 0;
}

static int run_unary(tl_unop op, tl_dtype compute, const tl_tensor *dst,
                     const tl_tensor *src, tl_error *err)
{
    if (tl_tensor_numel(dst) == 0)
        return 0;
    int64_t sst[TL_MAX_DIMS];
    broadcast_strides(src, dst->ndim, dst->sizes, sst);
    tl_strided d = strided_of(dst);
    tl_strided s = strided_make(tl_tensor_addr(src), src->dtype, dst->ndim,
                                dst->sizes, sst);
    return tl_backend_unary(tl_tensor_backend(dst), op, compute, &d, &s, err);
}

static tl_tensor *unary_new(tl_unop op, const tl_tensor *t, tl_error *err)
{
    tl_dtype compute, outdt;
    if (unop_types(op, t->dtype, &compute, &outdt, err) < 0) {
        device_kernel_names(tl_tensor_device(t), err);
        return NULL;
    }
    opnd o = opnd_tensor(t);
    int64_t st[TL_MAX_DIMS];
    if ((op == TL_UN_ISFINITE || op == TL_UN_ISINF) && !tl_dtype_is_floating(t->dtype))
        tl_tensor_preserve_strides(t, st); /* ones_like / zeros_like(self, kBool) */
    else
        iter_out_strides(&o, 1, compute, t->ndim, t->sizes, st);
    tl_tensor *out = tl_tensor_new_for_write(tl_tensor_backend(t), outdt, t->ndim,
                                           t->sizes, st, err);
    if (!out)
        return NULL;
    if (run_unary(op, compute, out, t, err) < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    grad_result(out, t->requires_grad);
    return out;
}

static int unary_inplace(tl_unop op, tl_tensor *t, tl_error *err)
{
    tl_dtype compute, outdt;
    if (check_inplace_grad(t, err) < 0)
        return -1;
    if (assert_no_internal_overlap(t, err) < 0)
        return -1;
    if (unop_types(op, t->dtype, &compute, &outdt, err) < 0)
        return device_kernel_names(tl_tensor_device(t), err);
    if (unop_kind(op) != UK_BOOL && !tl_dtype_can_cast(outdt, t->dtype))
        return cast_error(outdt, t->dtype, err);
    if (run_unary(op, compute, t, t, err) < 0)
        return -1;
    tl_tensor_bump_version(t);
    return 0;
}

/* ===================================================================== */
/* where, clamp, masked_fill                                              */
/* ===================================================================== */

static tl_tensor *where_new(const tl_tensor *cond, const opnd *a,
                            const opnd *b, tl_error *err)
{
    if (cond->dtype != TL_BOOL && cond->dtype != TL_UINT8) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "where expected condition to be a boolean tensor, but got a tensor with dtype %s",
                     tl_dtype_scalar_name(cond->dtype));
        return NULL;
    }
    opnd ops[3] = {opnd_tensor(cond), *a, *b};
    const tl_backend *be;
    if (common_device(ops, 3, &be, err) < 0)
        return NULL;
    int nd;
    int64_t shape[TL_MAX_DIMS], st[TL_MAX_DIMS];
    if (opnds_shape(ops, 3, &nd, shape, err) < 0)
        return NULL;
    tl_dtype dt = result_type(ops + 1, 2);
    if (opnd_fits(a, dt, err) < 0 || opnd_fits(b, dt, err) < 0)
        return NULL;
    /* the condition is never converted: give it the common dtype's slot */
    opnd lay[3] = {ops[0], ops[1], ops[2]};
    tl_tensor cview = *cond; /* a stack copy read for its geometry only */
    cview.dtype = dt;
    lay[0].t = &cview;
    iter_out_strides(lay, 3, dt, nd, shape, st);
    tl_tensor *out = tl_tensor_new_strided(be, dt, nd, shape, st, err);
    if (!out)
        return NULL;
    if (tl_tensor_numel(out) > 0) {
        int64_t s0[TL_MAX_DIMS], s1[TL_MAX_DIMS], s2[TL_MAX_DIMS];
        scratch c1 = {0}, c2 = {0}, c0 = {0};
        tl_strided d = strided_of(out), x0, x1, x2;
        int rc = -1;
        if (opnd_strided(&ops[0], be, nd, shape, s0, &c0, &x0, err) == 0 &&
            opnd_strided(&ops[1], be, nd, shape, s1, &c1, &x1, err) == 0 &&
            opnd_strided(&ops[2], be, nd, shape, s2, &c2, &x2, err) == 0)
            rc = tl_backend_where(be, &d, &x0, &x1, &x2, err);
        scratch_free(&c0);
        scratch_free(&c1);
        scratch_free(&c2);
        if (rc < 0) {
            tl_tensor_release(out);
            return NULL;
        }
    }
    grad_result(out, opnds_grad(ops, 3));
    return out;
}

/* The operands of clamp: t and the bounds given (NULL: absent; at least
 * one must be given). Returns their count, or -1. */
static int clamp_opnds(const tl_tensor *t, const opnd *lo, const opnd *hi,
                       opnd *ops, tl_error *err)
{
    if (!lo && !hi)
        return tl_error_set(err, TL_ERR_RUNTIME, "torch.clamp: At least one "
                            "of 'min' or 'max' must not be None");
    int n = 0;
    ops[n++] = opnd_tensor(t);
    if (lo)
        ops[n++] = *lo;
    if (hi)
        ops[n++] = *hi;
    return n;
}

/* clamp(min, max): either bound may be absent (NULL). */
static tl_tensor *clamp_new(const tl_tensor *t, const opnd *lo, const opnd *hi,
                            tl_error *err)
{
    opnd ops[3];
    int n = clamp_opnds(t, lo, hi, ops, err);
    if (n < 0)
        return NULL;
    const tl_backend *be;
    if (common_device(ops, n, &be, err) < 0)
        return NULL;
    int nd;
    int64_t shape[TL_MAX_DIMS], st[TL_MAX_DIMS];
    if (opnds_shape(ops, n, &nd, shape, err) < 0)
        return NULL;
    tl_dtype dt = result_type(ops, n);
    bool scalars = true; /* clamp(Tensor, Scalar, Scalar): a unary iterator */
    for (int i = 1; i < n; i++) {
        if (opnd_fits(&ops[i], dt, err) < 0)
            return NULL;
        scalars &= !ops[i].t;
    }
    iter_out_strides(ops, scalars ? 1 : n, dt, nd, shape, st);
    tl_tensor *out = tl_tensor_new_strided(be, dt, nd, shape, st, err);
    if (!out)
        return NULL;
    opnd self = ops[0], o = opnd_tensor(out);
    int rc = 0;
    if (lo)
        rc = run_binary(TL_BIN_MAXIMUM, dt, out, &self, lo, err);
    if (rc == 0 && hi)
        rc = run_binary(TL_BIN_MINIMUM, dt, out, lo ? &o : &self, hi, err);
    if (rc < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    grad_result(out, opnds_grad(ops, n));
    return out;
}

static const char *typemeta_name(tl_dtype dt)
{
    switch (dt) {
    case TL_BOOL: return "bool";
    case TL_UINT8: return "unsigned char";
    case TL_INT8: return "signed char";
    case TL_INT16: return "short int";
    case TL_INT32: return "int";
    case TL_INT64: return "long int";
    case TL_FLOAT16: return "c10::Half";
    case TL_BFLOAT16: return "c10::BFloat16";
    case TL_FLOAT32: return "float";
    case TL_FLOAT64: return "double";
    default: return "unknown";
    }
}

static int clamp_inplace(tl_tensor *t, const opnd *lo, const opnd *hi,
                         tl_error *err)
{
    opnd ops[3];
    int n = clamp_opnds(t, lo, hi, ops, err);
    if (n < 0)
        return -1;
    if (check_inplace_grad(t, err) < 0)
        return -1;
    if (assert_no_internal_overlap(t, err) < 0)
        return -1;
    for (int i = 1; i < n; i++) {
        if (ops[i].t && assert_no_partial_overlap(t, ops[i].t, err) < 0)
            return -1;
        if (inplace_device(t, &ops[i], err) < 0)
            return -1;
    }
    int nd;
    int64_t shape[TL_MAX_DIMS];
    if (opnds_shape(ops, n, &nd, shape, err) < 0)
        return -1;
    if (check_out_shape(t, nd, shape, err) < 0)
        return -1;
    tl_dtype dt = result_type(ops, n);
    if (!tl_dtype_can_cast(dt, t->dtype))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "result type %s can't be cast to the desired output type %s",
                            tl_dtype_scalar_name(dt), typemeta_name(t->dtype));
    for (int i = 1; i < n; i++)
        if (opnd_fits(&ops[i], dt, err) < 0)
            return -1;
    opnd self = ops[0];
    int rc = 0;
    if (lo)
        rc = run_binary(TL_BIN_MAXIMUM, dt, t, &self, lo, err);
    if (rc == 0 && hi)
        rc = run_binary(TL_BIN_MINIMUM, dt, t, &self, hi, err);
    if (rc < 0)
        return -1;
    grad_inplace(t, opnds_grad(ops + 1, n - 1));
    tl_tensor_bump_version(t);
    return 0;
}

/* value of masked_fill: a number or a 0-d tensor */
static int masked_value(const opnd *v, opnd *o, bool *grad, tl_error *err)
{
    *grad = false;
    *o = *v;
    if (!v->t)
        return 0;
    if (v->t->ndim != 0)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with %d dimension(s).",
                            v->t->ndim);
    *grad = v->t->requires_grad;
    return 0;
}

static int check_mask(const tl_tensor *mask, tl_error *err)
{
    if (mask->dtype != TL_BOOL)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "masked_fill_ only supports boolean masks, but got mask with dtype %s",
                            typemeta_name(mask->dtype));
    return 0;
}

/* dst[mask] = value, mask broadcast to dst (checked by the caller). */
static int masked_fill_run(tl_tensor *dst, const tl_tensor *mask,
                           const opnd *val, tl_error *err)
{
    if (tl_tensor_numel(dst) == 0)
        return 0;
    const tl_backend *be = tl_tensor_backend(dst);
    int nd = dst->ndim;
    int64_t ms[TL_MAX_DIMS], vs[TL_MAX_DIMS];
    scratch cm = {0}, cv = {0};
    opnd mo = opnd_tensor(mask);
    tl_strided d = strided_of(dst), xm, xv;
    int rc = -1;
    if (opnd_strided(&mo, be, nd, dst->sizes, ms, &cm, &xm, err) == 0 &&
        opnd_strided(val, be, nd, dst->sizes, vs, &cv, &xv, err) == 0)
        rc = tl_backend_where(be, &d, &xm, &xv, &d, err);
    scratch_free(&cm);
    scratch_free(&cv);
    return rc;
}

static int masked_fill_inplace(tl_tensor *t, const tl_tensor *mask,
                               const opnd *value, tl_error *err)
{
    opnd val;
    bool vgrad;
    if (check_inplace_grad(t, err) < 0)
        return -1;
    if (check_mask(mask, err) < 0)
        return -1;
    if (masked_value(value, &val, &vgrad, err) < 0)
        return -1;
    if (assert_no_partial_overlap(t, mask, err) < 0)
        return -1;
    opnd mo = opnd_tensor(mask);
    if (inplace_device(t, &mo, err) < 0)
        return -1;
    int nd;
    int64_t shape[TL_MAX_DIMS];
    if (broadcast_pair(t->ndim, t->sizes, mask->ndim, mask->sizes, &nd, shape,
                       err) < 0)
        return -1;
    if (check_out_shape(t, nd, shape, err) < 0)
        return -1;
    if (opnd_fits(&val, t->dtype, err) < 0)
        return -1;
    if (masked_fill_run(t, mask, &val, err) < 0)
        return -1;
    grad_inplace(t, vgrad);
    tl_tensor_bump_version(t);
    return 0;
}

static tl_tensor *masked_fill_new(const tl_tensor *t, const tl_tensor *mask,
                                  const opnd *value, tl_error *err)
{
    opnd val;
    bool vgrad;
    if (check_mask(mask, err) < 0)
        return NULL;
    if (masked_value(value, &val, &vgrad, err) < 0)
        return NULL;
    int nd;
    int64_t shape[TL_MAX_DIMS], st[TL_MAX_DIMS], sst[TL_MAX_DIMS];
    if (broadcast_pair(mask->ndim, mask->sizes, t->ndim, t->sizes, &nd, shape,
                       err) < 0)
        return NULL;
    opnd mo = opnd_tensor(mask);
    if (inplace_device(t, &mo, err) < 0)
        return NULL;
    if (opnd_fits(&val, t->dtype, err) < 0)
        return NULL;
    tl_shape_contiguous_strides(nd, shape, st);
    tl_tensor *out = tl_tensor_new_strided(tl_tensor_backend(t), t->dtype, nd,
                                           shape, st, err);
    if (!out)
        return NULL;
    broadcast_strides(t, nd, shape, sst);
    if (copy_into(out, t, sst, err) < 0 ||
        masked_fill_run(out, mask, &val, err) < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    grad_result(out, t->requires_grad || vgrad);
    return out;
}

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
    for (int i = 0; i < n; i++) {
        int d;
        if (tl_shape_wrap_dim(dims[i], ndim, &d, err) < 0)
            return -1;
        if (ndim == 0)
            continue;
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
    tl_strided d = strided_make(tl_tensor_addr(out), out->dtype, t->ndim, dsz, dst_);
    tl_strided s = strided_of(t);
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
        if (t->dtype == TL_BOOL) {
            tl_error_set(err, TL_ERR_RUNTIME, "\"%s_cpu\" not implemented for 'Bool'",
                         op == TL_RED_ARGMAX ? "argmax" : "argmin");
            return NULL;
        }
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
    if (red_run(op, compute, out, t, rs, err) < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    if (op != TL_RED_ALL && op != TL_RED_ANY)
        grad_result(out, t->requires_grad);
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
    redspec keep = *rs;
    keep.keepdim = true;
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        if (rs->mask & ((uint64_t)1 << d))
            n *= t->sizes[d];
    tl_tensor *mean = reduce_one(TL_RED_MEAN, "mean", t, &keep, false, t->dtype, err);
    if (!mean)
        return NULL;
    opnd a = opnd_tensor(t), m = opnd_tensor(mean);
    tl_tensor *dev = binary_new(TL_BIN_SUB, &a, &m, err);
    tl_tensor_release(mean);
    if (!dev)
        return NULL;
    opnd dv = opnd_tensor(dev);
    tl_tensor *sq = binary_new(TL_BIN_MUL, &dv, &dv, err);
    tl_tensor_release(dev);
    if (!sq)
        return NULL;
    tl_tensor *sum = reduce_one(TL_RED_SUM, "sum", sq, rs, false, t->dtype, err);
    tl_tensor_release(sq);
    if (!sum)
        return NULL;
    int64_t den = n - correction;
    opnd s = opnd_tensor(sum), dn = opnd_float(den > 0 ? (double)den : 0.0);
    if (run_binary(TL_BIN_DIV, sum->dtype, sum, &s, &dn, err) < 0 ||
        (is_std && run_unary(TL_UN_SQRT, sum->dtype, sum, sum, err) < 0)) {
        tl_tensor_release(sum);
        return NULL;
    }
    grad_result(sum, t->requires_grad);
    return sum;
}

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
    tl_strided d = strided_make(dp, out->dtype, nd, sizes, dstrides);
    tl_strided s = strided_make(sp, src->dtype, nd, sizes, sstrides);
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
        if (!same_device(a, b)) {
            device_mismatch(a, b, err);
            return NULL;
        }
    }
    if (!ref) { /* every input is a legacy empty 1-D tensor */
        int64_t z = 0;
        tl_tensor *out = tl_tensor_new(tl_tensor_backend(ts[0]), dt, 1, &z, err);
        if (out)
            grad_result(out, grad);
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
    tl_memfmt fmt = suggest_memory_format(ts[0]);
    for (size_t i = 1; i < n; i++) {
        tl_memfmt f = suggest_memory_format(ts[i]);
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
    grad_result(out, grad);
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
            shape_text(a, sizeof a, ts[0]->ndim, ts[0]->sizes);
            shape_text(b, sizeof b, ts[i]->ndim, ts[i]->sizes);
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
    grad_result(out, t->requires_grad);
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
        tl_memfmt f = suggest_memory_format(&p0);
        if (suggest_memory_format(&p1) != f)
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
    grad_result(out, t->requires_grad);
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
            shape_text(b, sizeof b, nr, shape);
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
    grad_result(out, t->requires_grad);
    return out;
}

static tl_tensor *repeat_interleave_int(const tl_tensor *t, int64_t r,
                                        bool has_dim, int dim, tl_error *err)
{
    if (r < 0) {
        tl_error_set(err, TL_ERR_RUNTIME, "repeats can not be negative");
        return NULL;
    }
    int64_t shape[TL_MAX_DIMS], sz2[TL_MAX_DIMS], ds2[TL_MAX_DIMS], ss2[TL_MAX_DIMS];
    int ond, nd = t->ndim;
    if (!has_dim) {
        int64_t n = tl_tensor_numel(t);
        if (tl_mul_overflow(n, r, &shape[0])) {
            tl_error_set(err, TL_ERR_LIMIT, "repeat_interleave result is too large");
            return NULL;
        }
        ond = 1;
    } else {
        memcpy(shape, t->sizes, sizeof(int64_t) * (size_t)nd);
        if (nd == 0)
            shape[0] = r, ond = 1;
        else {
            if (tl_mul_overflow(t->sizes[dim], r, &shape[dim])) {
                tl_error_set(err, TL_ERR_LIMIT, "repeat_interleave result is too large");
                return NULL;
            }
            ond = nd;
        }
    }
    if (nd + 1 > TL_MAX_DIMS) {
        tl_error_set(err, TL_ERR_LIMIT, "too many dimensions");
        return NULL;
    }
    tl_tensor *out = tl_tensor_new(tl_tensor_backend(t), t->dtype, ond, shape, err);
    if (!out)
        return NULL;
    /* iterate (t dims..., r) with the r dim inserted after `dim` */
    int k = 0;
    int after = has_dim && nd > 0 ? dim : nd - 1;
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
    grad_result(out, t->requires_grad);
    return out;
}

/* repeat_interleave(repeats tensor, dim): gather along dim. */
static tl_tensor *repeat_interleave_tensor(const tl_tensor *t,
                                           const tl_tensor *reps, bool has_dim,
                                           int dim, tl_error *err)
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
    if (reps->ndim > 1 || tl_dtype_is_floating(reps->dtype)) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "repeats must be 0-dim or 1-dim tensor");
        goto fail;
    }
    int64_t dn = src->ndim ? src->sizes[dim] : 1;
    int64_t nrep = reps->ndim ? reps->sizes[0] : 1;
    if (nrep != dn && nrep != 1) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "repeats must have the same size as input along dim, but got repeats.size(0) = %lld and input.size(%d) = %lld",
                     (long long)nrep, dim, (long long)dn);
        goto fail;
    }
    int64_t total = 0;
    int64_t *counts = tl_xcalloc((size_t)(dn ? dn : 1), sizeof *counts);
    for (int64_t i = 0; i < dn; i++) {
        int64_t c;
        if (tl_tensor_get_i64(reps, nrep == 1 ? 0 : i, &c, err) < 0) {
            free(counts);
            goto fail;
        }
        if (c < 0) {
            free(counts);
            tl_error_set(err, TL_ERR_RUNTIME, "repeats can not be negative");
            goto fail;
        }
        counts[i] = c;
        if (tl_add_overflow(total, c, &total) || total > TL_MAX_NUMEL) {
            free(counts);
            tl_error_set(err, TL_ERR_LIMIT, "repeat_interleave result is too large");
            goto fail;
        }
    }
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
        tl_strided d = strided_of(out), s = strided_of(src);
        if (tl_backend_gather(tl_tensor_backend(src), &d, &s, dim, index, total, err) < 0) {
            tl_tensor_release(out);
            out = NULL;
        }
    }
    free(index);
    if (flat)
        tl_tensor_release(flat);
    if (out)
        grad_result(out, t->requires_grad);
    return out;
fail:
    if (flat)
        tl_tensor_release(flat);
    return NULL;
}

/* triu (upper = true) / tril: copy, then zero the other triangle row by row */
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
            tl_strided d = strided_make(p, out->dtype, nd, sz, out->strides);
            if (tl_backend_fill(be, &d, zero, err) < 0) {
                tl_tensor_release(out);
                return NULL;
            }
            if (r0 != i) /* the block was flushed: row i still needs a pass */
                i--;
        }
    }
    return out;
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
        grad_result(out, t->requires_grad);
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
    grad_result(out, t->requires_grad);
    return out;
}

/* matmul for 1-D/2-D operands: broadcast multiply, then sum over k. */
/* ===================================================================== */
/* public entry points used by the bindings and the interpreter          */
/* ===================================================================== */

tl_tensor *tl_ops_binop(tl_binop op, const tl_operand *a, const tl_operand *b,
                        tl_error *err)
{
    return binary_new(op, a, b, err);
}

int tl_ops_binop_(tl_binop op, tl_tensor *self, const tl_operand *b,
                  tl_error *err)
{
    return binary_inplace(op, self, b, err);
}

tl_dtype tl_ops_result_type(const tl_operand *ops, int n)
{
    return result_type(ops, n);
}

bool tl_ops_binop_is_comparison(tl_binop op)
{
    return binop_kind(op) == BK_CMP;
}

tl_tensor *tl_ops_unop(tl_unop op, const tl_tensor *t, tl_error *err)
{
    return unary_new(op, t, err);
}

int tl_ops_unop_(tl_unop op, tl_tensor *t, tl_error *err)
{
    return unary_inplace(op, t, err);
}

tl_tensor *tl_ops_binop_alpha(tl_binop op, const tl_operand *a,
                              const tl_operand *b, const tl_operand *alpha,
                              tl_error *err)
{
    opnd x = *a, y = *b;
    tl_tensor *tmp = NULL;
    if (alpha && apply_alpha(&x, &y, alpha, &tmp, err) < 0)
        return NULL;
    tl_tensor *r = binary_new(op, &x, &y, err);
    if (tmp)
        tl_tensor_release(tmp);
    return r;
}

int tl_ops_binop_alpha_(tl_binop op, tl_tensor *self, const tl_operand *b,
                        const tl_operand *alpha, tl_error *err)
{
    opnd x = opnd_tensor(self), y = *b;
    if (check_inplace_grad(self, err) < 0)
        return -1;
    tl_tensor *tmp = NULL;
    if (alpha && apply_alpha(&x, &y, alpha, &tmp, err) < 0)
        return -1;
    int rc = binary_inplace_checked(op, self, &y, err);
    if (tmp)
        tl_tensor_release(tmp);
    if (rc == 0)
        tl_tensor_bump_version(self);
    return rc;
}

tl_tensor *tl_ops_where(const tl_tensor *cond, const tl_operand *a,
                        const tl_operand *b, tl_error *err)
{
    return where_new(cond, a, b, err);
}

tl_tensor *tl_ops_clamp(const tl_tensor *t, const tl_operand *lo,
                        const tl_operand *hi, tl_error *err)
{
    return clamp_new(t, lo, hi, err);
}

int tl_ops_clamp_(tl_tensor *t, const tl_operand *lo, const tl_operand *hi,
                  tl_error *err)
{
    return clamp_inplace(t, lo, hi, err);
}

tl_tensor *tl_ops_masked_fill(const tl_tensor *t, const tl_tensor *mask,
                              const tl_operand *v, tl_error *err)
{
    return masked_fill_new(t, mask, v, err);
}

int tl_ops_masked_fill_(tl_tensor *t, const tl_tensor *mask,
                        const tl_operand *v, tl_error *err)
{
    return masked_fill_inplace(t, mask, v, err);
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
    /* each roll wraps its dim only after the empty-tensor early return */
    if (nd > 0 && tl_tensor_numel(t) == 0)
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
                                    tl_error *err)
{
    if (rt)
        return repeat_interleave_tensor(t, rt, has_dim, d, err);
    return repeat_interleave_int(t, r, has_dim, d, err);
}

tl_tensor *tl_ops_tri(const tl_tensor *t, int64_t k, bool upper, tl_error *err)
{
    return tri_impl(t, k, upper, err);
}

tl_tensor *tl_ops_diag(const tl_tensor *t, int64_t k, tl_error *err)
{
    return diag_impl(t, k, err);
}

tl_tensor *tl_ops_matmul(const tl_tensor *a, const tl_tensor *b, bool mm_only,
                         tl_error *err)
{
    tl_tensor *out = tl_matmul(a, b, mm_only, false, err);
    if (out)
        grad_result(out, a->requires_grad || b->requires_grad);
    return out;
}

tl_tensor *tl_ops_bmm(const tl_tensor *a, const tl_tensor *b, tl_error *err)
{
    tl_tensor *out = tl_matmul(a, b, false, true, err);
    if (out)
        grad_result(out, a->requires_grad || b->requires_grad);
    return out;
}

tl_tensor *tl_ops_narrow_copy(const tl_tensor *t, int64_t dim, int64_t start,
                              int64_t length, tl_error *err)
{
    int d;
    if (t->ndim == 0) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "narrow() cannot be applied to a 0-dim tensor.");
        return NULL;
    }
    if (tl_shape_wrap_dim(dim, t->ndim, &d, err) < 0)
        return NULL;
    int64_t size = t->sizes[d];
    if (start < -size || start > size) {
        tl_error_set(err, TL_ERR_INDEX,
                     "start out of range (expected to be in range of [%lld, %lld], but got %lld)",
                     (long long)-size, (long long)size, (long long)start);
        return NULL;
    }
    if (start < 0)
        start += size;
    if (length < 0) {
        tl_error_set(err, TL_ERR_RUNTIME, "narrow(): length must be non-negative.");
        return NULL;
    }
    if (start > size - length) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "start (%lld) + length (%lld) exceeds dimension size (%lld).",
                     (long long)start, (long long)length, (long long)size);
        return NULL;
    }
    int64_t sz[TL_MAX_DIMS];
    memcpy(sz, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    sz[d] = length;
    tl_tensor *v = tl_tensor_view(t, t->ndim, sz, t->strides,
                                  t->offset + start * t->strides[d]);
    tl_tensor *out = tl_ops_clone(v, TL_MEMFMT_CONTIGUOUS, err);
    tl_tensor_release(v);
    return out;
}

/* div(rounding_mode=): mode 0 true division, 1 'trunc', 2 'floor'. */
static tl_tensor *div_trunc_new(const opnd *x, const opnd *y, tl_error *err)
{
    opnd ops[2] = {*x, *y};
    tl_dtype common = result_type(ops, 2);
    if (!tl_dtype_is_floating(common)) {
        /* integral: the kernel's DIV on an integral compute dtype truncates */
        const tl_backend *be;
        int nd;
        int64_t shape[TL_MAX_DIMS], st[TL_MAX_DIMS];
        if (common_device(ops, 2, &be, err) < 0 ||
            opnds_shape(ops, 2, &nd, shape, err) < 0)
            return NULL;
        if (common == TL_BOOL) {
            tl_error_set(err, TL_ERR_RUNTIME, "\"div_trunc_cpu\" not implemented for 'Bool'");
            return NULL;
        }
        bool empty = false;
        for (int i = 0; i < nd; i++)
            empty |= shape[i] == 0;
        if (opnd_is_zero(y) && !empty) {
            tl_error_set(err, TL_ERR_RUNTIME, "ZeroDivisionError");
            return NULL;
        }
        iter_out_strides(ops, 2, common, nd, shape, st);
        tl_tensor *out = tl_tensor_new_strided(be, common, nd, shape, st, err);
        if (out && run_binary(TL_BIN_DIV, common, out, x, y, err) < 0) {
            tl_tensor_release(out);
            out = NULL;
        }
        return out;
    }
    tl_tensor *out = binary_new(TL_BIN_DIV, x, y, err);
    if (out && run_unary(TL_UN_TRUNC, out->dtype, out, out, err) < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    return out;
}

tl_tensor *tl_ops_div_mode(const tl_operand *a, const tl_operand *b, int mode,
                           tl_error *err)
{
    opnd x = *a, y = *b;
    if (mode == 2)
        return binary_new(TL_BIN_FLOORDIV, &x, &y, err);
    if (mode == 1)
        return div_trunc_new(&x, &y, err);
    return binary_new(TL_BIN_DIV, &x, &y, err);
}

int tl_ops_div_mode_(tl_tensor *self, const tl_operand *b, int mode,
                     tl_error *err)
{
    opnd y = *b;
    if (mode == 2)
        return binary_inplace(TL_BIN_FLOORDIV, self, &y, err);
    if (mode == 0)
        return binary_inplace(TL_BIN_DIV, self, &y, err);
    /* trunc: compute out of place with the checks of an in-place op */
    if (check_inplace_grad(self, err) < 0 ||
        assert_no_internal_overlap(self, err) < 0)
        return -1;
    opnd x = opnd_tensor(self);
    tl_tensor *r = div_trunc_new(&x, &y, err);
    if (!r)
        return -1;
    int rc = 0;
    if (!tl_dtype_can_cast(r->dtype, self->dtype))
        rc = cast_error(r->dtype, self->dtype, err);
    else
        rc = copy_checked(self, r, err);
    tl_tensor_release(r);
    if (rc == 0)
        tl_tensor_bump_version(self);
    return rc;
}

const tl_backend *tl_ops_device_backend(const tl_tensor *like, tl_device dev,
                                        tl_error *err)
{
    if (like && same_device(tl_tensor_device(like), dev))
        return tl_tensor_backend(like);
    return tl_backend_for(dev, err);
}

/* ===================================================================== */
/* sort / topk, diag_embed / diagflat, in-place triu_ / tril_            */
/* ===================================================================== */

/* Sort every row of t along dim d; write the first k items of each row
 * to vals/idx (shape of t with size k at d; any strides): one kernel on
 * t's device (stable, NaN largest). */
static int sort_rows(const tl_tensor *t, int d, bool desc, int64_t k,
                     tl_tensor *vals, tl_tensor *idx, tl_error *err)
{
    tl_strided s = strided_of(t), v = strided_of(vals), i = strided_of(idx);
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
    grad_result(v, t->requires_grad);
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
    grad_result(v, t->requires_grad);
    *values = v;
    *indices = ix;
    return 0;
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
    if (!dv || copy_into(dv, t, t->strides, err) < 0) {
        if (dv)
            tl_tensor_release(dv);
        tl_tensor_release(out);
        return NULL;
    }
    tl_tensor_release(dv);
    grad_result(out, t->requires_grad);
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

int tl_ops_tri_(tl_tensor *t, int64_t k, bool upper, tl_error *err)
{
    if (check_inplace_grad(t, err) < 0)
        return -1;
    tl_tensor *r = tri_impl(t, k, upper, err);
    if (!r)
        return -1;
    int rc = copy_into(t, r, r->strides, err);
    tl_tensor_release(r);
    if (rc < 0)
        return -1;
    tl_tensor_bump_version(t);
    return 0;
}
