/* shape.c - shape and stride arithmetic (see shape.h): ATen's infer_size,
 * computeStride, broadcasting, maybe_wrap_dim, slice clamping and the
 * diagonal geometry, on bare arrays.
 *
 * Invariants: nothing here allocates tensor memory or sees a tensor; every
 * function is pure apart from the error it fills, so view code (view.c),
 * copy code (ops.c) and indexing (index.c) share one copy of each rule.
 */
#include "shape.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

static void fmt_list(tl_buf *b, int n, const int64_t *a)
{
    tl_buf_putc(b, '[');
    for (int i = 0; i < n; i++)
        tl_buf_printf(b, "%s%lld", i ? ", " : "", (long long)a[i]);
    tl_buf_putc(b, ']');
}

bool tl_shape_numel(int ndim, const int64_t *sizes, int64_t *numel)
{
    /* PyTorch's rule: the product in dim order must not overflow, even when
     * a later zero would make it 0 -- (2**62, 0) is a legal empty tensor,
     * (2**31, 2**31, 2**31, 0) is refused -- so every stride product of a
     * tensor fits in int64 */
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] < 0 || tl_mul_overflow(n, sizes[d], &n))
            return false;
    }
    if (n > TL_MAX_NUMEL)
        return false;
    *numel = n;
    return true;
}

bool tl_shape_equal(int na, const int64_t *a, int nb, const int64_t *b)
{
    if (na != nb)
        return false;
    for (int i = 0; i < na; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

int64_t tl_shape_numel_sat(int n, const int64_t *s)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++) {
        if (s[i] == 0)
            return 0;
    }
    for (int i = 0; i < n; i++) {
        if (tl_mul_overflow(p, s[i], &p))
            return INT64_MAX;
    }
    return p;
}

int tl_shape_wrap_dim(int64_t dim, int ndim, int *out, tl_error *err)
{
    int64_t n = ndim <= 0 ? 1 : ndim;
    if (dim < -n || dim > n - 1)
        return tl_error_set(err, TL_ERR_INDEX,
                            "Dimension out of range (expected to be in range "
                            "of [%" PRId64 ", %" PRId64 "], but got %" PRId64
                            ")",
                            -n, n - 1, dim);
    *out = (int)(dim < 0 ? dim + n : dim);
    return 0;
}

int tl_shape_infer_code(int n, const int64_t *shape, int64_t numel,
                        int64_t *out, int64_t *bad)
{
    int infer = -1;
    int64_t newsize = 1;
    bool zero = false, overflow = false;
    for (int i = 0; i < n; i++) {
        if (shape[i] == -1) {
            if (infer >= 0)
                return TL_INFER_TWO;
            infer = i;
        } else if (shape[i] >= 0) {
            if (shape[i] == 0)
                zero = true;
            else if (!overflow && tl_mul_overflow(newsize, shape[i], &newsize))
                overflow = true;
        } else {
            *bad = shape[i];
            return TL_INFER_NEG;
        }
    }
    if (zero)
        newsize = 0;
    else if (overflow)
        return TL_INFER_BAD; /* can never match a representable numel */
    if (numel == newsize ||
        (infer >= 0 && newsize > 0 && numel % newsize == 0)) {
        memmove(out, shape, sizeof(int64_t) * (size_t)n);
        if (infer >= 0) {
            if (newsize == 0)
                return TL_INFER_AMBIG;
            out[infer] = numel / newsize;
        }
        return TL_INFER_OK;
    }
    return TL_INFER_BAD;
}

int tl_shape_infer_raise(int code, int n, const int64_t *shape,
                         int64_t numel, int64_t bad, tl_error *err)
{
    switch (code) {
    case TL_INFER_TWO:
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "only one dimension can be inferred");
    case TL_INFER_NEG:
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "invalid shape dimension %lld", (long long)bad);
    case TL_INFER_AMBIG: {
        tl_buf b = {0};
        fmt_list(&b, n, shape);
        tl_error_set(err, TL_ERR_RUNTIME,
                     "cannot reshape tensor of 0 elements into shape %s "
                     "because the unspecified dimension size -1 can be any "
                     "value and is ambiguous", tl_buf_str(&b));
        tl_buf_free(&b);
        return -1;
    }
    default: {
        tl_buf b = {0};
        fmt_list(&b, n, shape);
        tl_error_set(err, TL_ERR_RUNTIME,
                     "shape '%s' is invalid for input of size %lld",
                     tl_buf_str(&b), (long long)numel);
        tl_buf_free(&b);
        return -1;
    }
    }
}

int tl_shape_infer_size(int n, const int64_t *shape, int64_t numel,
                        int64_t *out, tl_error *err)
{
    int64_t tmp[TL_MAX_DIMS], bad = 0;
    TL_ASSERT(n >= 0 && n <= TL_MAX_DIMS);
    int code = tl_shape_infer_code(n, shape, numel, tmp, &bad);
    if (code != TL_INFER_OK)
        return tl_shape_infer_raise(code, n, shape, numel, bad, err);
    memcpy(out, tmp, sizeof(int64_t) * (size_t)n);
    return 0;
}

bool tl_shape_compute_stride(int old_ndim, const int64_t *old_sizes,
                             const int64_t *old_strides, int new_ndim,
                             const int64_t *new_sizes, int64_t *new_strides)
{
    if (old_ndim == 0) {
        for (int i = 0; i < new_ndim; i++)
            new_strides[i] = 1;
        return true;
    }
    int64_t numel = tl_shape_numel_sat(old_ndim, old_sizes);
    if (numel == 0) {
        bool same = tl_shape_equal(old_ndim, old_sizes, new_ndim, new_sizes);
        if (same) {
            memcpy(new_strides, old_strides,
                   sizeof(int64_t) * (size_t)old_ndim);
            return true;
        }
        for (int d = new_ndim - 1; d >= 0; d--) {
            if (d == new_ndim - 1)
                new_strides[d] = 1;
            else
                new_strides[d] = (new_sizes[d + 1] > 1 ? new_sizes[d + 1] : 1)
                                 * new_strides[d + 1];
        }
        return true;
    }
    int view_d = new_ndim - 1;
    int64_t chunk_base = old_strides[old_ndim - 1];
    int64_t tensor_numel = 1, view_numel = 1;
    for (int td = old_ndim - 1; td >= 0; td--) {
        tensor_numel *= old_sizes[td];
        if (td == 0 ||
            (old_sizes[td - 1] != 1 &&
             old_strides[td - 1] != tensor_numel * chunk_base)) {
            while (view_d >= 0 &&
                   (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
                new_strides[view_d] = view_numel * chunk_base;
                view_numel *= new_sizes[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel)
                return false;
            if (td > 0) {
                chunk_base = old_strides[td - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

int tl_shape_broadcast(int na, const int64_t *a, int nb, const int64_t *b,
                       int64_t *out, tl_error *err)
{
    int n = na > nb ? na : nb;
    for (int i = n - 1; i >= 0; i--) {
        int off = n - 1 - i;
        int da = na - 1 - off, db = nb - 1 - off;
        int64_t sa = da >= 0 ? a[da] : 1, sb = db >= 0 ? b[db] : 1;
        if (!(sa == sb || sa == 1 || sb == 1))
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "The size of tensor a (%lld) must match the "
                                "size of tensor b (%lld) at non-singleton "
                                "dimension %d", (long long)sa, (long long)sb,
                                i);
        out[i] = sa == 1 ? sb : sa;
    }
    return n;
}

void tl_shape_slice(int64_t size, bool has_start, int64_t start,
                    bool has_stop, int64_t stop, int64_t step,
                    int64_t *first, int64_t *len)
{
    TL_ASSERT(step > 0);
    int64_t s = has_start ? start : 0;
    int64_t e = has_stop ? stop : INT64_MAX;
    if (s < 0)
        s += size;
    if (e < 0)
        e += size;
    if (s < 0)
        s = 0;
    else if (s >= size)
        s = size;
    if (e < s)
        e = s;
    else if (e >= size)
        e = size;
    int64_t n = e - s;
    *first = s;
    *len = n == 0 ? 0 : (n - 1) / step + 1;
}

static void geom_remove(tl_geom *g, int d)
{
    for (int i = d; i < g->ndim - 1; i++) {
        g->sizes[i] = g->sizes[i + 1];
        g->strides[i] = g->strides[i + 1];
    }
    g->ndim--;
}

int tl_shape_diagonal(tl_geom *g, int64_t offset, int64_t d1, int64_t d2,
                      tl_error *err)
{
    int a = 0, b = 0;
    if (tl_shape_wrap_dim(d1, g->ndim, &a, err) ||
                          tl_shape_wrap_dim(d2, g->ndim, &b, err))
        return -1;
    if (a == b)
        return tl_error_set(err, TL_ERR_RUNTIME, "diagonal dimensions cannot "
                            "be identical %lld, %lld", (long long)d1,
                            (long long)d2);
    /* a != b implies ndim >= 2 */
    int64_t sa = g->sizes[a], sb = g->sizes[b], len;
    int64_t ta = g->strides[a], tb = g->strides[b];
    if (offset >= 0)
        len = sb - offset < sa ? sb - offset : sa;
    else
        len = sa + offset < sb ? sa + offset : sb;
    if (len < 0)
        len = 0;
    if (len > 0) {
        if (offset >= 0)
            g->offset += offset * tb;
        else
            g->offset -= offset * ta;
    }
    int hi = a > b ? a : b, lo = a > b ? b : a;
    geom_remove(g, hi);
    geom_remove(g, lo);
    g->sizes[g->ndim] = len;
    g->strides[g->ndim] = ta + tb;
    g->ndim++;
    return 0;
}

/* ---- stride orders (c10 and TensorIterator) ---- */

static bool dense_in_order(const int64_t *sizes, const int64_t *strides,
                           const int *order, int n)
{
    uint64_t expected = 1; /* wrapping, as the strides were made */
    for (int i = 0; i < n; i++) {
        int d = order[i];
        if (sizes[d] == 1)
            continue;
        if ((uint64_t)strides[d] != expected)
            return false;
        expected *= (uint64_t)sizes[d];
    }
    return true;
}

bool tl_shape_is_contiguous(int ndim, const int64_t *sizes,
                            const int64_t *strides)
{
    int order[TL_MAX_DIMS];
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] == 0)
            return true;
        order[i] = ndim - 1 - i;
    }
    return dense_in_order(sizes, strides, order, ndim);
}

bool tl_shape_is_channels_last(int ndim, const int64_t *sizes,
                               const int64_t *strides)
{
    static const int order[4] = {1, 3, 2, 0};
    return ndim == 4 && dense_in_order(sizes, strides, order, 4);
}

bool tl_shape_is_channels_last_3d(int ndim, const int64_t *sizes,
                                  const int64_t *strides)
{
    static const int order[5] = {1, 4, 3, 2, 0};
    return ndim == 5 && dense_in_order(sizes, strides, order, 5);
}

bool tl_shape_is_non_overlapping_and_dense(int n, const int64_t *sizes,
                                           const int64_t *strides)
{
    static const int order3d[5] = {1, 4, 3, 2, 0};
    if (tl_shape_is_contiguous(n, sizes, strides) ||
                               tl_shape_is_channels_last(n, sizes, strides) ||
                               (n == 5 && dense_in_order(sizes, strides, order3d, 5)))
        return true;
    if (n == 1)
        return sizes[0] < 2 || strides[0] == 1;
    int perm[TL_MAX_DIMS];
    for (int i = 0; i < n; i++)
        perm[i] = i;
    /* sort by stride, dims of size < 2 last (stable insertion sort) */
    for (int i = 1; i < n; i++) {
        for (int j = i; j > 0; j--) {
            int a = perm[j - 1], b = perm[j];
            bool b_before_a;
            if (sizes[b] < 2)
                b_before_a = false;
            else if (sizes[a] < 2)
                b_before_a = true;
            else
                b_before_a = strides[b] < strides[a];
            if (!b_before_a)
                break;
            perm[j - 1] = b;
            perm[j] = a;
        }
    }
    uint64_t require = 1; /* wrapping, as the strides were made */
    for (int i = 0; i < n; i++) {
        int64_t size = sizes[perm[i]];
        if (size < 2)
            return true;
        if ((uint64_t)strides[perm[i]] != require)
            return false;
        require *= (uint64_t)size;
    }
    return true;
}

void tl_shape_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides)
{
    /* PyTorch multiplies in wrapping 64-bit arithmetic: a zero-element
     * tensor of shape (0, 2**62, 2**62) has strides (0, 2**62, 1) */
    uint64_t run = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = (int64_t)run;
        run *= sizes[d] > 1 ? (uint64_t)sizes[d] : 1;
    }
}

/* c10::get_channels_last_strides_2d/_3d: plain products in the order
 * C, W, H, N (C, W, H, D, N for 5-D), with no max(size, 1), so a zero size
 * zeroes the strides outside it: (2,3,0,2) -> (0,1,6,3). Other ranks get
 * contiguous strides. */
void tl_shape_channels_last_strides(int ndim, const int64_t *sizes, int64_t *strides)
{
    static const int order4[4] = {1, 3, 2, 0};
    static const int order5[5] = {1, 4, 3, 2, 0};
    const int *order = ndim == 4 ? order4 : ndim == 5 ? order5 : NULL;
    if (!order) {
        tl_shape_contiguous_strides(ndim, sizes, strides);
        return;
    }
    uint64_t run = 1; /* sizes are validated; unsigned keeps overflow defined */
    for (int i = 0; i < ndim; i++) {
        int d = order[i];
        strides[d] = (int64_t)run;
        run *= (uint64_t)sizes[d];
    }
}

/* Operand k's stride along dim d of an iteration over shape: 0 where it
 * is broadcast (ATen's compute_strides). */
static int64_t iter_stride(const int64_t *shape, const int64_t *const *sizes,
                           const int64_t *const *strides, int k, int d)
{
    return sizes[k][d] == 1 && shape[d] != 1 ? 0 : strides[k][d];
}

/* ATen's reorder_dimensions (TensorIterator) and infer_dense_strides: perm
 * lists the dims innermost first, by the operands' strides (a broadcast
 * dim of an operand leaves the decision to the next operand; equal strides
 * put the smaller size first), starting from the reversed order and
 * moving a dim only past ones it must precede (a stable insertion sort). */
static void reorder_dims(int nd, const int64_t *shape, int n,
                         const int64_t *const *sizes,
                         const int64_t *const *strides, int *perm)
{
    for (int i = 0; i < nd; i++)
        perm[i] = nd - 1 - i;
    for (int i = 1; i < nd; i++) {
        int dim1 = i;
        for (int dim0 = i - 1; dim0 >= 0; dim0--) {
            int a = perm[dim0], b = perm[dim1], cmp = 0;
            for (int k = 0; k < n; k++) {
                int64_t s0 = iter_stride(shape, sizes, strides, k, a);
                int64_t s1 = iter_stride(shape, sizes, strides, k, b);
                if (s0 == 0 || s1 == 0)
                    continue;
                if (s0 != s1) {
                    cmp = s0 < s1 ? -1 : 1;
                    break;
                }
                if (shape[a] > shape[b]) {
                    cmp = 1;
                    break;
                }
            }
            if (cmp > 0) {
                perm[dim0] = b;
                perm[dim1] = a;
                dim1 = dim0;
            } else if (cmp < 0) {
                break;
            }
        }
    }
}

void tl_shape_preserve_strides(int n, const int64_t *sizes,
                               const int64_t *strides, int64_t *out)
{
    if (tl_shape_is_non_overlapping_and_dense(n, sizes, strides)) {
        if (n)
            memcpy(out, strides, sizeof(int64_t) * (size_t)n);
        return;
    }
    /* infer_dense_strides: keep the dimension order, make it dense */
    const int64_t *sz = sizes, *st = strides;
    int perm[TL_MAX_DIMS];
    reorder_dims(n, sizes, 1, &sz, &st, perm);
    uint64_t cur = 1; /* wrapping, as in tl_shape_contiguous_strides */
    for (int i = 0; i < n; i++) {
        int d = perm[i];
        out[d] = (int64_t)cur;
        if (sizes[d] > 1)
            cur *= (uint64_t)sizes[d];
    }
}

void tl_shape_iter_strides(int nd, const int64_t *shape, int n,
                           const int64_t *const *sizes,
                           const int64_t *const *strides, bool same_shape,
                           int64_t *out)
{
    if (same_shape) {
        bool c = true, cl = true, nod = true, same = true;
        for (int k = 0; k < n; k++) {
            c = c && tl_shape_is_contiguous(nd, sizes[k], strides[k]);
            cl = cl && tl_shape_is_channels_last(nd, sizes[k], strides[k]);
            nod = nod && tl_shape_is_non_overlapping_and_dense(nd, sizes[k],
                                                               strides[k]);
            same = same && tl_shape_equal(nd, strides[k], nd, strides[0]);
        }
        if (c) {
            tl_shape_contiguous_strides(nd, shape, out);
            return;
        }
        if (cl) {
            tl_shape_channels_last_strides(nd, shape, out);
            return;
        }
        if (nod && same) {
            memcpy(out, strides[n - 1], sizeof(int64_t) * (size_t)nd);
            return;
        }
    }
    int perm[TL_MAX_DIMS];
    reorder_dims(nd, shape, n, sizes, strides, perm);
    bool inverted = true;
    for (int j = 0; j < nd; j++)
        if (perm[j] != nd - 1 - j)
            inverted = false;
    if (inverted) {
        tl_shape_contiguous_strides(nd, shape, out);
        return;
    }
    int64_t next = 1; /* no max(size, 1) here, as in ATen */
    for (int j = 0; j < nd; j++) {
        out[perm[j]] = next;
        next *= shape[perm[j]];
    }
}

/* ---- element access ---- */

void tl_shape_format(char *buf, size_t cap, int ndim, const int64_t *sizes)
{
    size_t n = 0;
    if (cap == 0)
        return;
    n += (size_t)snprintf(buf + n, cap - n, "[");
    for (int d = 0; d < ndim && n < cap; d++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%" PRId64, d ? ", " : "",
                              sizes[d]);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
}
