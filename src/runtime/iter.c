/* iter.c - the ops family's common ground: operands and at::result_type,
 * TensorIterator's output layout, broadcasting of operand shapes,
 * the autograd and overlap checks every op runs, and raw device scratch
 * for Python scalars used with device tensors.
 *
 * The ops family (ops.h): every runtime operation that allocates (copies)
 * or writes in place, in copy.c, elementwise.c, reduce.c, assemble.c and
 * sort.c, on this file's operands and layout rules.
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
#include "ops_impl.h"
#include "shape.h"

/* ===================================================================== */
/* small helpers                                                          */
/* ===================================================================== */

bool tl_ops_same_device(tl_device a, tl_device b)
{
    return tl_device_same(a, b);
}

/* PyTorch's "Expected all tensors to be on the same device" RuntimeError
 * for devices a and b, in the order given. */
int tl_ops_device_mismatch(tl_device a, tl_device b, tl_error *err)
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

tl_memfmt tl_ops_suggest_memory_format(const tl_tensor *t)
{
    if (strides_like_channels_last(t, 4))
        return TL_MEMFMT_CHANNELS_LAST;
    if (strides_like_channels_last(t, 5))
        return TL_MEMFMT_CHANNELS_LAST_3D;
    return TL_MEMFMT_CONTIGUOUS;
}

/* Strides for a fresh tensor of t's shape in memory format fmt. */
int tl_ops_format_strides(const tl_tensor *t, tl_memfmt fmt, int64_t *st,
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
void tl_ops_grad_result(tl_tensor *out, bool any_grad)
{
    if (any_grad && tl_tensor_grad_mode() && tl_dtype_is_floating(out->dtype)) {
        out->requires_grad = true;
        out->is_leaf = false;
    }
}

/* The check autograd's VariableType does before every in-place op. */
int tl_ops_check_inplace_grad(const tl_tensor *t, tl_error *err)
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
void tl_ops_grad_inplace(tl_tensor *dst, bool other_grad)
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

int tl_ops_assert_no_internal_overlap(const tl_tensor *t, tl_error *err)
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
    if (a0 == b0 && a1 == b1) /* FULL only with the same strides (2.x) */
        return !tl_shape_equal(a->ndim, a->strides, b->ndim, b->strides);
    return a0 < b1 && b0 < a1;
}

int tl_ops_assert_no_partial_overlap(const tl_tensor *out, const tl_tensor *in,
                                     tl_error *err)
{
    if (partial_overlap(out, in))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.");
    return 0;
}

int tl_ops_assert_no_overlap(const tl_tensor *a, const tl_tensor *b, tl_error *err)
{
    /* at::get_overlap_status: the same tensor is FULL; else dense tensors of
     * one storage whose byte ranges meet (FULL or PARTIAL) */
    bool hit = a == b;
    if (!hit && tl_tensor_numel(a) > 0 && tl_tensor_numel(b) > 0 &&
        tl_tensor_is_non_overlapping_and_dense(a) && tl_tensor_is_non_overlapping_and_dense(b) &&
        tl_storage_same(a->storage, b->storage)) {
        size_t ia = tl_dtype_size(a->dtype), ib = tl_dtype_size(b->dtype);
        int64_t a0 = a->offset * (int64_t)ia, a1 = a0 + tl_tensor_numel(a) * (int64_t)ia;
        int64_t b0 = b->offset * (int64_t)ib, b1 = b0 + tl_tensor_numel(b) * (int64_t)ib;
        hit = a0 < b1 && b0 < a1;
    }
    if (hit)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.");
    return 0;
}

/* infer_size over two shapes, PyTorch's message ("tensor a" is the shape
 * accumulated so far, "tensor b" the new operand). */
int tl_ops_broadcast_pair(int na, const int64_t *a, int nb, const int64_t *b,
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

void tl_ops_shape_text(char *buf, size_t cap, int nd, const int64_t *sz)
{
    tl_shape_format(buf, cap, nd, sz);
}

int tl_ops_check_out_shape(const tl_tensor *out, int nd, const int64_t *shape,
                           tl_error *err)
{
    if (tl_shape_equal(out->ndim, out->sizes, nd, shape))
        return 0;
    char a[32 * TL_MAX_DIMS + 3], b[32 * TL_MAX_DIMS + 3];
    tl_ops_shape_text(a, sizeof a, out->ndim, out->sizes);
    tl_ops_shape_text(b, sizeof b, nd, shape);
    return tl_error_set(err, TL_ERR_RUNTIME,
                        "output with shape %s doesn't match the broadcast shape %s",
                        a, b);
}

/* Strides of t when broadcast to an nd-dim shape (0 on new / expanded dims). */
void tl_ops_broadcast_strides(const tl_tensor *t, int nd, const int64_t *shape,
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

static void *scratch_alloc(scratch *s, const tl_backend *be, size_t n,
                           tl_error *err)
{
    s->be = be;
    s->p = NULL;
    if (tl_backend_alloc(be, n ? n : 1, &s->p, err) < 0)
        s->p = NULL;
    return s->p;
}

void tl_ops_scratch_free(scratch *s)
{
    if (s->p != s->local.b)
        tl_backend_free(s->be, s->p);
    s->p = NULL;
}

/* Put one scalar (stored as dtype dt) into device memory of be. */
/* A number as one element of dt in be's memory: written there by the
 * backend's fill (on a device the value travels as a launch parameter, so
 * `x + 2` on a cuda tensor moves no byte through the host; fill stores it
 * with tl_dtype_store_*, the bytes a host staging would have written). */
static void *scratch_scalar(scratch *s, const tl_backend *be, tl_dtype dt,
                            tl_scalar v, tl_error *err)
{
    if (be == tl_backend_cpu()) { /* host memory: the bytes cpu_fill stores */
        _Static_assert(sizeof s->local.b >= 8, "a scalar of any dtype");
        s->be = be;
        s->p = s->local.b;
        if (v.is_float)
            tl_dtype_store_f64(dt, s->p, v.f);
        else
            tl_dtype_store_i64(dt, s->p, v.i);
        return s->p;
    }
    void *p = scratch_alloc(s, be, tl_dtype_size(dt), err);
    if (!p)
        return NULL;
    int64_t none = 0;
    tl_strided one = tl_ops_strided_make(p, dt, 0, &none, &none);
    if (tl_backend_fill(be, &one, v, err) < 0) {
        tl_ops_scratch_free(s);
        return NULL;
    }
    return p;
}

tl_strided tl_ops_strided_of(const tl_tensor *t)
{
    return tl_tensor_strided(t);
}

tl_strided tl_ops_strided_make(void *data, tl_dtype dt, int nd,
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

/* A Python-number operand converted to dt the way a kernel's
 * Scalar::to<scalar_t>() does: an error when it overflows dt. */
int tl_ops_opnd_fits(const opnd *o, tl_dtype dt, tl_error *err)
{
    if (o->t)
        return 0;
    return tl_create_check_scalar(dt, o->s, err);
}

opnd tl_ops_opnd_tensor(const tl_tensor *t)
{
    opnd o;
    memset(&o, 0, sizeof o);
    o.t = t;
    return o;
}

opnd tl_ops_opnd_int(int64_t i)
{
    opnd o;
    memset(&o, 0, sizeof o);
    o.s.i = i;
    o.s.f = (double)i;
    o.sdt = TL_INT64;
    return o;
}

opnd tl_ops_opnd_float(double f)
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
    opnd o = tl_ops_opnd_int(b ? 1 : 0);
    o.sdt = TL_BOOL;
    return o;
}

tl_operand tl_ops_operand_tensor(const tl_tensor *t) { return tl_ops_opnd_tensor(t); }
tl_operand tl_ops_operand_int(int64_t i) { return tl_ops_opnd_int(i); }
tl_operand tl_ops_operand_float(double f) { return tl_ops_opnd_float(f); }
tl_operand tl_ops_operand_bool(bool b) { return opnd_bool(b); }

tl_dtype tl_ops_opnd_dtype(const opnd *o)
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
tl_dtype tl_ops_result_type(const opnd *ops, int n)
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
void tl_ops_iter_out_strides(const opnd *ops, int n, tl_dtype common, int nd,
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
int tl_ops_common_device(const opnd *ops, int n, const tl_backend **be,
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
        if (tl_ops_same_device(a, b))
            continue;
        if (b.kind == TL_DEV_CPU && t->ndim == 0)
            continue;
        if (a.kind == TL_DEV_CPU && first->ndim == 0) {
            first = t;
            continue;
        }
        /* the CPU tensor's device comes second */
        return b.kind == TL_DEV_CPU ? tl_ops_device_mismatch(a, b, err)
                                    : tl_ops_device_mismatch(b, a, err);
    }
    *be = first ? tl_tensor_backend(first) : tl_backend_cpu();
    return 0;
}

/* Describe operand o for a kernel over the output shape. Numbers and
 * foreign-device 0-d tensors are staged in `sc`. stbuf holds strides. */
int tl_ops_opnd_strided(const opnd *o, const tl_backend *be, int nd,
                        const int64_t *shape, int64_t *stbuf, scratch *sc,
                        tl_strided *out, tl_error *err)
{
    sc->p = NULL;
    if (o->t && tl_ops_same_device(tl_tensor_device(o->t), tl_backend_device(be))) {
        tl_ops_broadcast_strides(o->t, nd, shape, stbuf);
        *out = tl_ops_strided_make(tl_tensor_addr(o->t), o->t->dtype, nd, shape, stbuf);
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
    *out = tl_ops_strided_make(p, dt, nd, shape, stbuf);
    return 0;
}

bool tl_ops_opnds_grad(const opnd *ops, int n)
{
    for (int i = 0; i < n; i++)
        if (ops[i].t && ops[i].t->requires_grad)
            return true;
    return false;
}

/* Broadcast shape of all operands (pairwise infer_size in order). */
int tl_ops_opnds_shape(const opnd *ops, int n, int *nd, int64_t *shape,
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
            if (tl_ops_broadcast_pair(*nd, shape, ond, os, nd, shape, err) < 0)
                return -1;
        }
    }
    return 0;
}
