/* scatter.c - the scatter family (issue #27): index_fill_, index_copy_,
 * scatter_ / scatter_add_ (reduce add, multiply), masked_scatter_, put_.
 *
 * Design: each op applies its writes on the host in torch's CPU order -
 * the index in row-major order, so with repeated indices and no
 * accumulation the last write wins, and accumulation adds (multiplies) in
 * index order, one rounding per step in the tensor's dtype - and bumps
 * self's version once, as torch's kernels do. On the CPU backend self is
 * written in place through its strides and the source and mask are read in
 * place (no size cap; an operand that shares self's memory is copied
 * first, so it is read as it was before the op); the index is read into an
 * int64 copy. On a device with TL_BACKEND_CAP_DEVICE_INDEX (the CUDA
 * backend) the op runs there (the device path below): the target offsets
 * come from the offsets kernel, which also checks the index's bounds, and
 * self is written through them by the index scatter (repeated targets:
 * the last write wins, add / multiply fold in the CPU's order);
 * masked_scatter_ ranks the mask with a cumsum and gathers the source. Its
 * tables and copies are device tensors on the ledger, with no other bound,
 * and the bytes equal the CPU's (tests/scatter.sh). Elsewhere (a 0-d
 * device self, a device backend without device indexing) self, its source
 * and mask are read into row-major host copies (at most 64 MiB each) and
 * self is written back with one copy_, every copy scratch charged to the
 * memory ledger (tl_alloc_scratch_charge).
 * torch's overlap checks come first (ops_impl.h): an index or source that
 * shares self's memory is refused, and so is an expanded self, except by
 * index_fill_ (torch only warns), whose copy of self is written back
 * element by element, only where the op changed it.
 * Checks run in torch 1.13's order with its texts and exception types.
 */
#include "scatter.h"

#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "ops.h"
#include "ops_impl.h"
#include "scan.h"
#include "shape.h"
#include "storage.h"
#include "util.h"
#include "view.h"

/* a device tensor's host copy is bounded (an op holds at most three; only
 * the host path of a device tensor makes one) */
#define SCATTER_MAX_BYTES (64 << 20)

/* A tensor's elements by row-major position: in place on the CPU (through
 * its strides: CPU storage is host memory), else a row-major host copy
 * (tl_tensor_read_host_bytes), charged to the ledger as scratch. */
typedef struct acc {
    unsigned char *p; /* element [0, ..., 0] */
    int nd;
    int64_t sz[TL_MAX_DIMS], st[TL_MAX_DIMS]; /* strides in elements */
    int64_t n;
    size_t isz;
    bool flat;        /* position i lies at p + i * isz */
    size_t charged;   /* a copy's bytes (0: in place) */
} acc;

static bool on_cpu(const tl_tensor *t)
{
    return tl_tensor_backend(t) == tl_backend_cpu();
}

static int acc_open(const tl_tensor *t, bool in_place, acc *a, tl_error *err)
{
    memset(a, 0, sizeof *a);
    a->n = tl_tensor_numel(t);
    a->isz = tl_dtype_size(t->dtype);
    a->nd = t->ndim;
    memcpy(a->sz, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    if (in_place && on_cpu(t)) {
        a->p = a->n ? tl_tensor_addr(t) : NULL;
        memcpy(a->st, t->strides, sizeof(int64_t) * (size_t)t->ndim);
        a->flat = tl_tensor_is_contiguous(t);
        return 0;
    }
    if (!on_cpu(t) && (uint64_t)a->n * a->isz > SCATTER_MAX_BYTES)
        return tl_error_set(err, TL_ERR_LIMIT, "a scatter over a device tensor of more than "
                            "%d MiB is not supported", SCATTER_MAX_BYTES >> 20);
    size_t bytes = (size_t)(a->n ? a->n : 1) * a->isz;
    if (tl_alloc_scratch_charge(bytes, err) < 0)
        return -1;
    a->p = malloc(bytes);
    if (!a->p) {
        tl_alloc_scratch_release(bytes);
        return tl_error_set(err, TL_ERR_LIMIT, "out of memory");
    }
    a->charged = bytes;
    a->flat = true;
    if (a->n && tl_tensor_read_host_bytes(t, a->p, err)) {
        free(a->p);
        tl_alloc_scratch_release(bytes);
        a->p = NULL;
        a->charged = 0;
        return -1;
    }
    return 0;
}

static void acc_close(acc *a)
{
    if (a->charged) {
        free(a->p);
        tl_alloc_scratch_release(a->charged);
    }
    a->p = NULL;
    a->charged = 0;
}

/* the element at row-major position i */
static unsigned char *acc_at(const acc *a, int64_t i)
{
    if (a->flat)
        return a->p + (size_t)i * a->isz;
    int64_t off = 0;
    for (int d = a->nd - 1; d >= 0; d--) {
        off += (i % a->sz[d]) * a->st[d];
        i /= a->sz[d];
    }
    return a->p + off * (int64_t)a->isz;
}

/* an operand (index, source, mask) of a write into x: in place unless it
 * shares x's memory (then a copy, read before any write) */
static int acc_operand(const tl_tensor *t, const tl_tensor *x, acc *a, tl_error *err)
{
    return acc_open(t, !tl_storage_same(t->storage, x->storage), a, err);
}

/* the index as int64 values (a copy charged to the ledger) */
static int read_index(const tl_tensor *t, int64_t **out, int64_t *n, tl_error *err)
{
    if (tl_tensor_numel(t) > TL_INDEX_MAX_ELEMS)
        return tl_error_set(err, TL_ERR_LIMIT, "a scatter with an index of more than %lld "
                            "elements is not supported", (long long)TL_INDEX_MAX_ELEMS);
    acc b;
    if (acc_open(t, false, &b, err))
        return -1;
    *out = (int64_t *)b.p;
    *n = b.n;
    return 0;
}

static void free_index(int64_t *ix, int64_t n)
{
    free(ix);
    tl_alloc_scratch_release((size_t)(n ? n : 1) * sizeof(int64_t));
}

static bool overlapping(const tl_tensor *x)
{
    for (int d = 0; d < x->ndim; d++)
        if (x->strides[d] == 0 && x->sizes[d] > 1)
            return true;
    return false;
}

/* self, for writing: in place on the CPU, unless it overlaps itself (an
 * expanded view: then a copy, written back element by element) */
static int acc_self(tl_tensor *x, acc *a, tl_error *err)
{
    return acc_open(x, !overlapping(x), a, err);
}

/* x's elements become b's (row-major) when b is a copy; one version bump */
static int write_back(tl_tensor *x, const acc *b, tl_error *err)
{
    if (overlapping(x)) {
        /* only the elements the op changed: an unchanged alias of a
         * written location must not write its old value back */
        acc o;
        if (acc_open(x, false, &o, err))
            return -1;
        for (int64_t i = 0; i < b->n; i++)
            if (memcmp(o.p + (size_t)i * b->isz, b->p + (size_t)i * b->isz, b->isz) &&
                tl_tensor_set_raw(x, i, b->p + (size_t)i * b->isz, err)) {
                acc_close(&o);
                return -1;
            }
        acc_close(&o);
        tl_tensor_bump_version(x);
        return 0;
    }
    tl_tensor *h = tl_tensor_new(tl_backend_cpu(), x->dtype, x->ndim, x->sizes, err);
    if (!h)
        return -1;
    if (b->n)
        memcpy(tl_tensor_addr(h), b->p, (size_t)b->n * b->isz);
    int rc = tl_ops_copy_(x, h, err);
    tl_tensor_release(h);
    return rc;
}

/* the op is done: a copy goes back to x, an in-place write bumps x's
 * version once (as torch's kernels do); b is closed */
static int acc_commit(tl_tensor *x, acc *b, tl_error *err)
{
    int rc = 0;
    if (b->charged)
        rc = write_back(x, b, err);
    else
        tl_tensor_bump_version(x);
    acc_close(b);
    return rc;
}

static void store_scalar(tl_dtype dt, void *p, const tl_scalar *v)
{
    if (v->is_float)
        tl_dtype_store_f64(dt, p, v->f);
    else
        tl_dtype_store_i64(dt, p, v->i);
}

/* *dst = *dst (op) *src in dt, one rounding */
static void accumulate(tl_dtype dt, void *dst, const void *src, tl_scatter_reduce r)
{
    if (r == TL_SCATTER_REDUCE_NONE) {
        memcpy(dst, src, tl_dtype_size(dt));
    } else if (dt == TL_BOOL) {
        unsigned char a = *(unsigned char *)dst != 0, b = *(const unsigned char *)src != 0;
        *(unsigned char *)dst = r == TL_SCATTER_REDUCE_ADD ? (a | b) : (a & b);
    } else if (tl_dtype_is_floating(dt)) {
        double a = tl_dtype_load_f64(dt, dst), b = tl_dtype_load_f64(dt, src);
        tl_dtype_store_f64(dt, dst, r == TL_SCATTER_REDUCE_ADD ? a + b : a * b);
    } else {
        uint64_t a = (uint64_t)tl_dtype_load_i64(dt, dst);
        uint64_t b = (uint64_t)tl_dtype_load_i64(dt, src);
        tl_dtype_store_i64(dt, dst, (int64_t)(r == TL_SCATTER_REDUCE_ADD ? a + b : a * b));
    }
}

/* row-major strides of a shape */
static void rm_strides(int nd, const int64_t *sz, int64_t *st)
{
    int64_t s = 1;
    for (int d = nd - 1; d >= 0; d--) {
        st[d] = s;
        s *= sz[d];
    }
}

static int64_t outer_inner(const tl_tensor *x, int d, int64_t *inner)
{
    int64_t o = 1, in = 1;
    for (int i = 0; i < x->ndim; i++) {
        if (i < d)
            o *= x->sizes[i];
        else if (i > d)
            in *= x->sizes[i];
    }
    *inner = in;
    return o;
}

/* ---- the device path ------------------------------------------------
 * A device self (TL_BACKEND_CAP_DEVICE_INDEX) is written on its device:
 * the targets' element offsets (from self's first element) come from the
 * offsets kernel (tl_backend_index_offsets: the index times self's stride
 * along dim plus the position's other coordinates . self's strides), one per
 * source element in the CPU's loop order, and self's memory is written
 * through them by tl_backend_index_scatter, which resolves repeated targets
 * as the CPU's loop does (the last write wins; add / multiply fold in
 * order). Index bounds are checked by the offsets kernel (its status word),
 * reporting the first bad index in the CPU's order. The offsets and any
 * copied operand are tensors on the device (charged to the ledger), so there
 * is no size bound beyond the ledger's. */

static bool dev_path(const tl_tensor *x)
{
    return !on_cpu(x) && (tl_backend_caps(tl_tensor_backend(x)) & TL_BACKEND_CAP_DEVICE_INDEX);
}

/* t's elements in row-major order, contiguous on x's device: a fresh copy
 * when t shares x's memory (read as it was before the op) */
static tl_tensor *dev_values(tl_tensor *t, const tl_tensor *x, tl_error *err)
{
    const tl_backend *be = tl_tensor_backend(x);
    if (tl_tensor_backend(t) == be && tl_storage_same(t->storage, x->storage))
        return tl_ops_clone(t, TL_MEMFMT_CONTIGUOUS, err);
    tl_tensor *o = tl_ops_to(t, be, t->dtype, false, TL_MEMFMT_PRESERVE, err);
    if (!o)
        return NULL;
    tl_tensor *c = tl_ops_contiguous(o, TL_MEMFMT_CONTIGUOUS, err);
    tl_tensor_release(o);
    return c;
}

/* a 1-element device tensor holding v in x's dtype */
static tl_tensor *dev_scalar(const tl_tensor *x, const tl_scalar *v, tl_error *err)
{
    tl_tensor *h = tl_tensor_new(tl_backend_cpu(), x->dtype, 0, NULL, err);
    if (!h)
        return NULL;
    store_scalar(x->dtype, tl_tensor_addr(h), v);
    tl_tensor *r = tl_ops_to(h, tl_tensor_backend(x), x->dtype, true, TL_MEMFMT_CONTIGUOUS, err);
    tl_tensor_release(h);
    return r;
}

/* The target offsets over a shape of nd dims (sz): index (int64, on any
 * device) read with strides istr over it, bounds [-size, size) (wrap) or
 * [0, size), times `stride`, plus the position's coordinates . cs when cs
 * is given. *offs: a device int64 tensor of numel(sz) (the caller's); *bad
 * and *badv name the first out-of-bounds index. */
static int dev_offsets(const tl_tensor *x, tl_tensor *index, int nd, const int64_t *sz,
                       const int64_t *istr, int64_t size, int64_t stride, bool wrap,
                       const int64_t *cs, tl_tensor **offs, bool *bad, int64_t *badv,
                       tl_error *err)
{
    const tl_backend *be = tl_tensor_backend(x);
    *offs = NULL;
    *bad = false;
    int64_t n = 1;
    for (int q = 0; q < nd; q++)
        n *= sz[q];
    tl_tensor *it = tl_ops_to(index, be, index->dtype, false, TL_MEMFMT_PRESERVE, err);
    if (!it)
        return -1;
    tl_tensor *o = tl_tensor_new(be, TL_INT64, 1, &n, err);
    if (!o) {
        tl_tensor_release(it);
        return -1;
    }
    tl_adv_index ix[2];
    int nix = tl_index_adv_one(ix, (tl_strided){tl_tensor_addr(it), it->dtype, nd, sz, istr},
                               size, stride, wrap, cs);
    int64_t pos = -1;
    int j = 0;
    int rc = n ? tl_backend_index_offsets(be, tl_tensor_addr(o), nix, ix, &pos, &j, badv, err)
               : 0;
    tl_tensor_release(it);
    if (rc) {
        tl_tensor_release(o);
        return -1;
    }
    *bad = pos >= 0;
    *offs = o;
    return 0;
}

/* x's element at offs[k] (elements from x's first) (op)= vals[k], k < n,
 * in k's order for repeated targets; one version bump */
static int dev_write(tl_tensor *x, const tl_tensor *offs, const tl_tensor *vals, bool bcast,
                     tl_scatter_reduce r, tl_error *err)
{
    int64_t n = tl_tensor_numel(offs), one = 1, zero = 0;
    size_t isz = tl_dtype_size(x->dtype);
    if (n) {
        int64_t nelem = (int64_t)(x->storage->nbytes / isz) - x->offset;
        tl_strided d = {tl_tensor_addr(x), x->dtype, 1, &nelem, &one};
        tl_strided v = {tl_tensor_addr(vals), vals->dtype, 1, &n, bcast ? &zero : &one};
        tl_scatter_mode m = r == TL_SCATTER_REDUCE_ADD   ? TL_SCATTER_ADD
                            : r == TL_SCATTER_REDUCE_MUL ? TL_SCATTER_MUL
                                                         : TL_SCATTER_SET;
        if (tl_backend_index_scatter(tl_tensor_backend(x), m, &d, &v, 0,
                                     tl_tensor_addr(offs), n, err))
            return -1;
    }
    tl_tensor_bump_version(x);
    return 0;
}

/* x with dim d's size replaced by m (the loop order of index_fill_ and
 * index_copy_: outer, index, inner), the index's strides over it, the
 * coordinate strides (x's, 0 at d) */
static void dim_shape(const tl_tensor *x, int d, int64_t m, const tl_tensor *index,
                      int64_t *sz, int64_t *istr, int64_t *cs)
{
    for (int q = 0; q < x->ndim; q++) {
        sz[q] = q == d ? m : x->sizes[q];
        istr[q] = q == d && index->ndim ? index->strides[0] : 0;
        cs[q] = q == d ? 0 : x->strides[q];
    }
}

/* The target offsets of index_fill_/index_copy_ along dim d: the index
 * alone is bounds-checked first (torch checks it even when x is empty; an
 * out-of-bounds entry raises `what`"index %lld is out of bounds for
 * dimension %d with size %lld"), then every position's offset. 0 with
 * *offs (a device tensor, the caller's), or -1. */
static int dev_dim_offsets(tl_tensor *x, int d, tl_tensor *index, bool wrap, const char *what,
                           tl_tensor **offs, tl_error *err)
{
    int64_t sz[TL_MAX_DIMS], istr[TL_MAX_DIMS], cs[TL_MAX_DIMS], v;
    int64_t size = x->sizes[d], ni = tl_tensor_numel(index), zero = 0;
    bool bad;
    if (dev_offsets(x, index, 1, &ni, index->ndim ? index->strides : &zero, size, 1, wrap,
                    NULL, offs, &bad, &v, err))
        return -1;
    tl_tensor_release(*offs);
    *offs = NULL;
    if (bad)
        return tl_error_set(err, TL_ERR_INDEX, "%sindex %lld is out of bounds for dimension %d "
                            "with size %lld", what, (long long)v, d, (long long)size);
    dim_shape(x, d, ni, index, sz, istr, cs);
    return dev_offsets(x, index, x->ndim, sz, istr, size, x->strides[d], wrap, cs, offs, &bad,
                       &v, err);
}

static int dev_index_fill(tl_tensor *x, int d, tl_tensor *index, const tl_scalar *value,
                          tl_error *err)
{
    tl_tensor *offs;
    if (dev_dim_offsets(x, d, index, true, "", &offs, err))
        return -1;
    tl_tensor *val = dev_scalar(x, value, err);
    int rc = val ? dev_write(x, offs, val, true, TL_SCATTER_REDUCE_NONE, err) : -1;
    tl_tensor_release(val);
    tl_tensor_release(offs);
    return rc;
}

static int dev_index_copy(tl_tensor *x, int d, tl_tensor *index, tl_tensor *source,
                          tl_error *err)
{
    tl_tensor *offs;
    if (dev_dim_offsets(x, d, index, false, "index_copy_(): ", &offs, err))
        return -1;
    tl_tensor *val = dev_values(source, x, err);
    int rc = val ? dev_write(x, offs, val, false, TL_SCATTER_REDUCE_NONE, err) : -1;
    tl_tensor_release(val);
    tl_tensor_release(offs);
    return rc;
}

static int dev_scatter(tl_tensor *x, int d, tl_tensor *index, tl_tensor *src,
                       const tl_scalar *value, tl_scatter_reduce r, const int64_t *is,
                       tl_error *err)
{
    int64_t istr[TL_MAX_DIMS], cs[TL_MAX_DIMS], v;
    for (int q = 0; q < x->ndim; q++) {
        istr[q] = index->ndim ? index->strides[q] : 0;
        cs[q] = q == d ? 0 : x->strides[q];
    }
    tl_tensor *offs;
    bool bad;
    if (dev_offsets(x, index, x->ndim, is, istr, x->sizes[d], x->strides[d], false, cs, &offs,
                    &bad, &v, err))
        return -1;
    if (bad) {
        tl_tensor_release(offs);
        return tl_error_set(err, TL_ERR_RUNTIME, "index %lld is out of bounds for dimension %d "
                            "with size %lld", (long long)v, d, (long long)x->sizes[d]);
    }
    tl_tensor *val;
    if (src) {
        /* src's leading block of the index's shape, row-major */
        tl_tensor *w = tl_tensor_retain(src);
        for (int q = 0; w && q < src->ndim; q++) {
            tl_tensor *nw = tl_view_narrow(w, q, 0, is[q], err);
            tl_tensor_release(w);
            w = nw;
        }
        val = w ? dev_values(w, x, err) : NULL;
        tl_tensor_release(w);
    } else {
        val = dev_scalar(x, value, err);
    }
    int rc = val ? dev_write(x, offs, val, !src, r, err) : -1;
    tl_tensor_release(val);
    tl_tensor_release(offs);
    return rc;
}

/* put_: flat row-major positions of self, written in a contiguous copy
 * when self is not contiguous (copied back with one copy_) */
static int dev_put(tl_tensor *x, tl_tensor *index, tl_tensor *source, bool acc_,
                   tl_error *err)
{
    int64_t n = tl_tensor_numel(x), v;
    if (tl_tensor_numel(index) == 0)
        return tl_tensor_bump_version(x), 0;
    tl_tensor *offs;
    bool bad;
    if (dev_offsets(x, index, index->ndim, index->sizes, index->strides, n, 1, true, NULL,
                    &offs, &bad, &v, err))
        return -1;
    if (bad) {
        tl_tensor_release(offs);
        return tl_error_set(err, TL_ERR_INDEX, "out of range: tried to access index %lld on a "
                            "tensor of %lld elements.", (long long)v, (long long)n);
    }
    bool flat = tl_tensor_is_contiguous(x);
    tl_tensor *t = flat ? tl_tensor_retain(x) : tl_ops_contiguous(x, TL_MEMFMT_CONTIGUOUS, err);
    tl_tensor *val = t ? dev_values(source, x, err) : NULL;
    int rc = val ? dev_write(t, offs, val, false,
                             acc_ ? TL_SCATTER_REDUCE_ADD : TL_SCATTER_REDUCE_NONE, err)
                 : -1;
    if (rc == 0 && !flat)
        rc = tl_ops_copy_(x, t, err);
    tl_tensor_release(val);
    tl_tensor_release(t);
    tl_tensor_release(offs);
    return rc;
}

/* masked_scatter_: self's elements in the CPU's walk order (memory order,
 * perm) are ranked by a prefix count of the mask (cumsum on the device),
 * the source is gathered at each rank (take: source[rank - 1], the masked
 * elements' values in row-major order of the source) and self becomes
 * where(mask, gathered, self) through one copy_ - torch's CUDA kernel's
 * plan; where and copy_ keep an unselected element's bits. No sort, no
 * scatter; the one host read is the count of ones (8 bytes). */
static int dev_masked_scatter(tl_tensor *x, const tl_tensor *me, tl_tensor *source,
                              const int *perm_, tl_error *err)
{
    const tl_backend *be = tl_tensor_backend(x);
    int nd = x->ndim;
    int64_t perm[TL_MAX_DIMS], inv[TL_MAX_DIMS], psz[TL_MAX_DIMS];
    int64_t n = tl_tensor_numel(x), ones = 0;
    for (int q = 0; q < nd; q++) {
        perm[q] = perm_[q];
        inv[perm_[q]] = q;
        psz[q] = x->sizes[perm_[q]];
    }
    tl_tensor *mp = tl_view_permute(me, nd, perm, err), *mb = NULL, *mc = NULL, *mf = NULL;
    tl_tensor *c = NULL, *sv = NULL, *sf = NULL, *g = NULL, *gp = NULL, *xp = NULL;
    tl_tensor *r = NULL, *rb = NULL;
    int rc = -1;
    if (!mp || !(mb = tl_ops_to(mp, be, TL_BOOL, false, TL_MEMFMT_PRESERVE, err)) ||
        !(mc = tl_ops_contiguous(mb, TL_MEMFMT_CONTIGUOUS, err)) ||
        !(mf = tl_view_reshape(mc, 1, &n, err)) ||
        !(c = tl_scan_cum(false, mf, 0, NULL, err)))
        goto out;
    if (n && tl_tensor_get_raw(c, n - 1, &ones, err))
        goto out;
    int64_t ns = tl_tensor_numel(source);
    if (ones > ns) {
        tl_error_set(err, TL_ERR_RUNTIME, "Number of elements of source < number of ones in "
                     "mask");
        goto out;
    }
    if (ones == 0) {
        tl_tensor_bump_version(x);
        rc = 0;
        goto out;
    }
    /* rank - 1: an unselected element before the first one reads -1, the
     * source's last element (take wraps), and is not used */
    tl_operand o1 = tl_ops_operand_int(1);
    if (tl_ops_binop_(TL_BIN_SUB, c, &o1, err) || !(sv = dev_values(source, x, err)) ||
        !(sf = tl_view_reshape(sv, 1, &ns, err)) || !(g = tl_index_take(sf, c, err)) ||
        !(gp = tl_view_reshape(g, nd, psz, err)) || !(xp = tl_view_permute(x, nd, perm, err)))
        goto out;
    tl_operand a = tl_ops_operand_tensor(gp), b = tl_ops_operand_tensor(xp);
    if (!(r = tl_ops_where(mc, &a, &b, err)) || !(rb = tl_view_permute(r, nd, inv, err)))
        goto out;
    rc = tl_ops_copy_(x, rb, err);
out:
    tl_tensor_release(rb);
    tl_tensor_release(r);
    tl_tensor_release(xp);
    tl_tensor_release(gp);
    tl_tensor_release(g);
    tl_tensor_release(sf);
    tl_tensor_release(sv);
    tl_tensor_release(c);
    tl_tensor_release(mf);
    tl_tensor_release(mc);
    tl_tensor_release(mb);
    tl_tensor_release(mp);
    return rc;
}

int tl_scatter_index_fill_(tl_tensor *x, int64_t dim, const tl_tensor *index,
                           const tl_scalar *value, tl_error *err)
{
    int d;
    if (tl_shape_wrap_dim(dim, x->ndim, &d, err))
        return -1;
    if (index->dtype != TL_INT64)
        return tl_error_set(err, TL_ERR_INDEX, "index_fill_(): Expected dtype int64 for index.");
    if (tl_ops_assert_no_overlap(x, index, err))
        return -1;
    if (index->ndim > 1)
        return tl_error_set(err, TL_ERR_RUNTIME, "Index has to be a vector/scalar");
    if (dev_path(x) && x->ndim)
        return dev_index_fill(x, d, (tl_tensor *)index, value, err);
    int64_t *ix, ni;
    if (read_index(index, &ix, &ni, err))
        return -1;
    int64_t size = x->ndim ? x->sizes[d] : 1;
    for (int64_t k = 0; k < ni; k++)
        if (ix[k] < -size || ix[k] >= size) {
            tl_error_set(err, TL_ERR_INDEX, "index %lld is out of bounds for dimension %d "
                         "with size %lld", (long long)ix[k], d, (long long)size);
            free_index(ix, ni);
            return -1;
        }
    acc b;
    if (acc_self(x, &b, err)) {
        free_index(ix, ni);
        return -1;
    }
    unsigned char v[16];
    store_scalar(x->dtype, v, value);
    int64_t inner, outer = x->ndim ? outer_inner(x, d, &inner) : (inner = 1);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t k = 0; k < ni; k++) {
            int64_t j = ix[k] < 0 ? ix[k] + size : ix[k];
            for (int64_t i = 0; i < inner; i++)
                memcpy(acc_at(&b, (o * size + j) * inner + i), v, b.isz);
        }
    free_index(ix, ni);
    return acc_commit(x, &b, err);
}

static void fmt_sliced(tl_buf *s, const tl_tensor *t, int d)
{
    bool first = true;
    for (int i = 0; i < t->ndim; i++) {
        if (i == d)
            continue;
        tl_buf_printf(s, first ? "%lld" : " %lld", (long long)t->sizes[i]);
        first = false;
    }
}

int tl_scatter_index_copy_(tl_tensor *x, int64_t dim, const tl_tensor *index,
                           const tl_tensor *source, tl_error *err)
{
    int d;
    if (tl_shape_wrap_dim(dim, x->ndim, &d, err))
        return -1;
    if (index->ndim > 1)
        return tl_error_set(err, TL_ERR_INDEX, "index_copy_(): Index should have dimension "
                            "1 or 0 (got %d)", index->ndim);
    int64_t ni = tl_tensor_numel(index);
    if (source->ndim == 0 && ni != 1)
        return tl_error_set(err, TL_ERR_INDEX, "index_copy_(): When source is scalar, index "
                            "should have one element (got %lld)", (long long)ni);
    if (source->ndim != x->ndim && source->ndim != 0 && x->ndim != 0)
        return tl_error_set(err, TL_ERR_INDEX, "index_copy_(): When source and destination "
                            "are not scalars, their dimensionality must match. Source "
                            "dimensionality (%d), destination dimensionality (%d)",
                            source->ndim, x->ndim);
    if (index->dtype != TL_INT64)
        return tl_error_set(err, TL_ERR_RUNTIME, "index_copy_(): Expected a long tensor for "
                            "index, but got %s", tl_dtype_scalar_name(index->dtype));
    if (x->dtype != source->dtype)
        return tl_error_set(err, TL_ERR_RUNTIME, "index_copy_(): self and source expected to "
                            "have the same dtype, but got (self) %s and (source) %s",
                            tl_dtype_scalar_name(x->dtype),
                            tl_dtype_scalar_name(source->dtype));
    bool same = source->ndim == x->ndim || (source->ndim <= 1 && x->ndim <= 1);
    if (same && source->ndim == x->ndim)
        for (int i = 0; i < x->ndim; i++)
            if (i != d && x->sizes[i] != source->sizes[i])
                same = false;
    if (!same) {
        tl_buf s = {0};
        tl_buf_printf(&s, "index_copy_(): Source/destination tensor must have same slice "
                      "shapes. Destination slice shape: ");
        fmt_sliced(&s, x, d);
        tl_buf_printf(&s, " at dimension %d and source slice shape: ", d);
        fmt_sliced(&s, source, d);
        tl_buf_printf(&s, " at dimension 0.");
        tl_error_set(err, TL_ERR_RUNTIME, "%s", s.data ? s.data : "");
        tl_buf_free(&s);
        return -1;
    }
    int64_t ssize = source->ndim ? source->sizes[d] : 1;
    if (source->ndim && ni != ssize)
        return tl_error_set(err, TL_ERR_INDEX, "index_copy_(): Number of indices (%lld) should "
                            "be equal to source.size(dim) (%lld)", (long long)ni,
                            (long long)ssize);
    if (tl_ops_assert_no_internal_overlap(x, err) || tl_ops_assert_no_overlap(x, index, err) ||
        tl_ops_assert_no_overlap(x, source, err))
        return -1;
    if (dev_path(x) && x->ndim)
        return dev_index_copy(x, d, (tl_tensor *)index, (tl_tensor *)source, err);
    int64_t *ix;
    if (read_index(index, &ix, &ni, err))
        return -1;
    int64_t size = x->ndim ? x->sizes[d] : 1;
    for (int64_t k = 0; k < ni; k++)
        if (ix[k] < 0 || ix[k] >= size) {
            tl_error_set(err, TL_ERR_INDEX, "index_copy_(): index %lld is out of bounds for "
                         "dimension %d with size %lld", (long long)ix[k], d, (long long)size);
            free_index(ix, ni);
            return -1;
        }
    acc b, s;
    if (acc_self(x, &b, err)) {
        free_index(ix, ni);
        return -1;
    }
    if (acc_operand(source, x, &s, err)) {
        free_index(ix, ni);
        acc_close(&b);
        return -1;
    }
    int64_t inner, outer = x->ndim ? outer_inner(x, d, &inner) : (inner = 1);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t k = 0; k < ni; k++)
            for (int64_t i = 0; i < inner; i++)
                memcpy(acc_at(&b, (o * size + ix[k]) * inner + i),
                       acc_at(&s, (o * ni + k) * inner + i), b.isz);
    free_index(ix, ni);
    acc_close(&s);
    return acc_commit(x, &b, err);
}

static void fmt_sizes(tl_buf *s, const tl_tensor *t)
{
    tl_buf_printf(s, "[");
    for (int i = 0; i < t->ndim; i++)
        tl_buf_printf(s, i ? ", %lld" : "%lld", (long long)t->sizes[i]);
    tl_buf_printf(s, "]");
}

int tl_scatter_scatter_(tl_tensor *x, int64_t dim, const tl_tensor *index,
                        const tl_tensor *src, const tl_scalar *value,
                        tl_scatter_reduce reduce, tl_error *err)
{
    int d;
    if (tl_shape_wrap_dim(dim, x->ndim, &d, err))
        return -1;
    if (index->dtype != TL_INT64)
        return tl_error_set(err, TL_ERR_RUNTIME, "scatter(): Expected dtype int64 for index");
    if (src && src->dtype != x->dtype)
        return tl_error_set(err, TL_ERR_RUNTIME, "scatter(): Expected self.dtype to be equal "
                            "to src.dtype");
    int64_t ni = tl_tensor_numel(index);
    int xnd = x->ndim ? x->ndim : 1, ind = index->ndim ? index->ndim : 1;
    if (ni == 0)
        return tl_tensor_bump_version(x), 0;
    if (ind != xnd)
        return tl_error_set(err, TL_ERR_RUNTIME, "Index tensor must have the same number of "
                            "dimensions as self tensor");
    if (src && (src->ndim ? src->ndim : 1) != xnd)
        return tl_error_set(err, TL_ERR_RUNTIME, "Index tensor must have the same number of "
                            "dimensions as src tensor");
    int64_t xs[TL_MAX_DIMS], is[TL_MAX_DIMS], ss[TL_MAX_DIMS];
    for (int i = 0; i < xnd; i++) {
        xs[i] = x->ndim ? x->sizes[i] : 1;
        is[i] = index->ndim ? index->sizes[i] : 1;
        ss[i] = src ? (src->ndim ? src->sizes[i] : 1) : 0;
    }
    bool bad = false;
    for (int i = 0; i < xnd; i++) {
        if (i != d && is[i] > xs[i])
            bad = true;
        if (src && is[i] > ss[i])
            bad = true;
    }
    if (bad) {
        tl_buf s = {0};
        tl_buf_printf(&s, "Expected index ");
        fmt_sizes(&s, index);
        tl_buf_printf(&s, " to be smaller than self ");
        fmt_sizes(&s, x);
        tl_buf_printf(&s, " apart from dimension %d", d);
        if (src) {
            tl_buf_printf(&s, " and to be smaller size than src ");
            fmt_sizes(&s, src);
        }
        tl_error_set(err, TL_ERR_RUNTIME, "%s", s.data ? s.data : "");
        tl_buf_free(&s);
        return -1;
    }
    if (tl_ops_assert_no_internal_overlap(x, err) || tl_ops_assert_no_overlap(x, index, err) ||
        (src && tl_ops_assert_no_overlap(x, src, err)))
        return -1;
    if (dev_path(x) && x->ndim)
        return dev_scatter(x, d, (tl_tensor *)index, (tl_tensor *)src, value, reduce, is, err);
    int64_t *ix;
    if (read_index(index, &ix, &ni, err))
        return -1;
    for (int64_t k = 0; k < ni; k++)
        if (ix[k] < 0 || ix[k] >= xs[d]) {
            tl_error_set(err, TL_ERR_RUNTIME, "index %lld is out of bounds for dimension %d "
                         "with size %lld", (long long)ix[k], d, (long long)xs[d]);
            free_index(ix, ni);
            return -1;
        }
    acc b, s = {0};
    if (acc_self(x, &b, err)) {
        free_index(ix, ni);
        return -1;
    }
    if (src && acc_operand(src, x, &s, err)) {
        free_index(ix, ni);
        acc_close(&b);
        return -1;
    }
    unsigned char v[16];
    if (!src)
        store_scalar(x->dtype, v, value);
    int64_t xst[TL_MAX_DIMS], sst[TL_MAX_DIMS];
    rm_strides(xnd, xs, xst);
    if (src)
        rm_strides(xnd, ss, sst);
    int64_t pos[TL_MAX_DIMS] = {0};
    for (int64_t k = 0; k < ni; k++) {
        int64_t xo = 0, so = 0;
        for (int i = 0; i < xnd; i++) {
            xo += (i == d ? ix[k] : pos[i]) * xst[i];
            if (src)
                so += pos[i] * sst[i];
        }
        accumulate(x->dtype, acc_at(&b, xo), src ? acc_at(&s, so) : v, reduce);
        for (int i = xnd - 1; i >= 0; i--) {
            if (++pos[i] < is[i])
                break;
            pos[i] = 0;
        }
    }
    free_index(ix, ni);
    acc_close(&s);
    return acc_commit(x, &b, err);
}

int tl_scatter_masked_scatter_(tl_tensor *x, const tl_tensor *mask,
                               const tl_tensor *source, tl_error *err)
{
    if (tl_ops_assert_no_internal_overlap(x, err))
        return -1;
    if (mask->dtype != TL_BOOL && mask->dtype != TL_UINT8)
        return tl_error_set(err, TL_ERR_RUNTIME, "masked_scatter_ only supports boolean "
                            "masks, but got mask with dtype %s",
                            tl_dtype_scalar_name(mask->dtype));
    if (x->dtype != source->dtype)
        return tl_error_set(err, TL_ERR_RUNTIME, "masked_scatter: expected self and source to "
                            "have same dtypes but got%s and %s",
                            tl_dtype_scalar_name(x->dtype), tl_dtype_scalar_name(source->dtype));
    /* in place: the mask expands to self (expand_inplace), never self to it */
    tl_tensor *me = tl_view_expand(mask, x->ndim, x->sizes, err);
    if (!me)
        return -1;
    /* torch 1.13's CPU kernel walks self in its memory order (the
     * TensorIterator's dims, innermost the smallest stride), taking the
     * source's elements in row-major order */
    int nd = x->ndim, perm[TL_MAX_DIMS];
    for (int i = 0; i < nd; i++)
        perm[i] = i;
    for (int i = 1; i < nd; i++) /* stable: by stride, largest outermost */
        for (int j = i; j > 0 && x->strides[perm[j - 1]] < x->strides[perm[j]]; j--) {
            int tmp = perm[j];
            perm[j] = perm[j - 1];
            perm[j - 1] = tmp;
        }
    if (dev_path(x) && nd) {
        int rc = dev_masked_scatter(x, me, (tl_tensor *)source, perm, err);
        tl_tensor_release(me);
        return rc;
    }
    acc m, b, s;
    int rc = acc_operand(me, x, &m, err);
    if (rc) {
        tl_tensor_release(me);
        return -1;
    }
    int64_t ones = 0;
    for (int64_t i = 0; i < m.n; i++)
        ones += *acc_at(&m, i) != 0;
    if (ones > tl_tensor_numel(source)) {
        acc_close(&m);
        tl_tensor_release(me);
        return tl_error_set(err, TL_ERR_RUNTIME, "Number of elements of source < number of "
                            "ones in mask");
    }
    if (acc_self(x, &b, err)) {
        acc_close(&m);
        tl_tensor_release(me);
        return -1;
    }
    if (acc_operand(source, x, &s, err)) {
        acc_close(&m);
        acc_close(&b);
        tl_tensor_release(me);
        return -1;
    }
    int64_t st[TL_MAX_DIMS], pos[TL_MAX_DIMS] = {0};
    rm_strides(nd, x->sizes, st);
    int64_t k = 0;
    for (int64_t n = 0; n < m.n; n++) {
        int64_t i = 0;
        for (int q = 0; q < nd; q++)
            i += pos[q] * st[perm[q]];
        if (*acc_at(&m, i))
            memcpy(acc_at(&b, i), acc_at(&s, k++), b.isz);
        for (int q = nd - 1; q >= 0; q--) {
            if (++pos[q] < x->sizes[perm[q]])
                break;
            pos[q] = 0;
        }
    }
    acc_close(&m);
    tl_tensor_release(me);
    acc_close(&s);
    return acc_commit(x, &b, err);
}

int tl_scatter_put_(tl_tensor *x, const tl_tensor *index, const tl_tensor *source,
                    bool accumulate_, tl_error *err)
{
    if (index->dtype != TL_INT64)
        return tl_error_set(err, TL_ERR_RUNTIME, "put_(): Expected a long tensor for index, "
                            "but got %s", tl_dtype_scalar_name(index->dtype));
    if (x->dtype != source->dtype)
        return tl_error_set(err, TL_ERR_RUNTIME, "put_(): self and source expected to have the "
                            "same dtype, but got self.dtype = %s and source.dtype = %s",
                            tl_dtype_scalar_name(x->dtype), tl_dtype_scalar_name(source->dtype));
    int64_t ni = tl_tensor_numel(index), ns = tl_tensor_numel(source);
    if (ni != ns)
        return tl_error_set(err, TL_ERR_INDEX, "put_(): Expected source and index to have the "
                            "same number of elements, but got source.numel() = %lld, "
                            "index.numel() = %lld", (long long)ns, (long long)ni);
    if (tl_ops_assert_no_internal_overlap(x, err) || tl_ops_assert_no_overlap(x, index, err) ||
        tl_ops_assert_no_overlap(x, source, err))
        return -1;
    if (dev_path(x))
        return dev_put(x, (tl_tensor *)index, (tl_tensor *)source, accumulate_, err);
    int64_t *ix;
    if (read_index(index, &ix, &ni, err))
        return -1;
    int64_t n = tl_tensor_numel(x);
    for (int64_t k = 0; k < ni; k++)
        if (ix[k] < -n || ix[k] >= n) {
            tl_error_set(err, TL_ERR_INDEX, "out of range: tried to access index %lld on a "
                         "tensor of %lld elements.", (long long)ix[k], (long long)n);
            free_index(ix, ni);
            return -1;
        }
    acc b, s;
    if (acc_self(x, &b, err)) {
        free_index(ix, ni);
        return -1;
    }
    if (acc_operand(source, x, &s, err)) {
        free_index(ix, ni);
        acc_close(&b);
        return -1;
    }
    for (int64_t k = 0; k < ni; k++) {
        int64_t j = ix[k] < 0 ? ix[k] + n : ix[k];
        accumulate(x->dtype, acc_at(&b, j), acc_at(&s, k),
                   accumulate_ ? TL_SCATTER_REDUCE_ADD : TL_SCATTER_REDUCE_NONE);
    }
    free_index(ix, ni);
    acc_close(&s);
    return acc_commit(x, &b, err);
}
