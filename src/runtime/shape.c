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
