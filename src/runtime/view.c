/* view.c - PyTorch's view ops on tl_tensor headers.
 *
 * Design: every op computes (sizes, strides, offset) into a local geometry
 * and hands it to mkview(), the one exit that checks the safety limits
 * (TL_MAX_DIMS, TL_MAX_NUMEL, no negative size) and calls tl_tensor_view().
 * Nothing here touches tensor data or calls a backend; the only ops that
 * may copy (reshape / flatten / ravel when no view exists) delegate the copy
 * to ops.c: that is the one declared call from view code into copy code.
 * Shape arithmetic (infer size, computeStride, broadcast, wrap dim, slice
 * clamp, diagonal) is shape.c's, shared with the copy code. The algorithms
 * and the error texts are transcriptions of ATen (TensorShape.cpp,
 * ExpandUtils.cpp inferExpandGeometry), 2.x where 1.13 differs.
 *
 * Invariants: results are new references; "self" results are the input
 * retained; dims are always wrapped with tl_shape_wrap_dim (PyTorch's IndexError).
 */
#include "view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h" /* the declared copy fallback of reshape/flatten/ravel */
#include "shape.h"
#include "util.h"

typedef tl_geom geom;

/* ------------------------------------------------------------------ */
/* helpers                                                             */
/* ------------------------------------------------------------------ */

static void fmt_list(tl_buf *b, int n, const int64_t *a)
{
    tl_buf_putc(b, '[');
    for (int i = 0; i < n; i++)
        tl_buf_printf(b, "%s%lld", i ? ", " : "", (long long)a[i]);
    tl_buf_putc(b, ']');
}

/* Raise kind with a message containing one formatted list at %s. */
static int err_list(tl_error *err, tl_errkind kind, const char *fmt, int n,
                    const int64_t *a)
{
    tl_buf b = {0};
    fmt_list(&b, n, a);
    tl_error_set(err, kind, fmt, tl_buf_str(&b));
    tl_buf_free(&b);
    return -1;
}

/* PyTorch's "Storage size calculation overflowed" RuntimeError. */
static void storage_overflow(int n, const int64_t *sizes,
                             const int64_t *strides, tl_error *err)
{
    tl_buf a = {0}, b = {0};
    fmt_list(&a, n, sizes);
    fmt_list(&b, n, strides);
    tl_error_set(err, TL_ERR_RUNTIME, "Storage size calculation overflowed "
                 "with sizes=%s and strides=%s",
                 tl_buf_str(&a), tl_buf_str(&b));
    tl_buf_free(&a);
    tl_buf_free(&b);
}

/* view(dtype) of another element size needs stride(-1) == 1. */
static bool last_stride_1(const tl_tensor *t, const char *from, const char *to,
                          tl_error *err)
{
    int64_t st = t->strides[t->ndim - 1];
    if (st != 1)
        tl_error_set(err, TL_ERR_RUNTIME, "self.stride(-1) must be 1 to view "
                     "%s as %s (different element sizes), but got %lld", from,
                     to, (long long)st);
    return st == 1;
}

static int too_many_dims(tl_error *err)
{
    return tl_error_set(err, TL_ERR_LIMIT,
                        "tensors with more than %d dimensions are not "
                        "supported", TL_MAX_DIMS);
}

static void geom_of(geom *g, const tl_tensor *t)
{
    g->ndim = t->ndim;
    memcpy(g->sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    memcpy(g->strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
    g->offset = t->offset;
}

static void geom_remove(geom *g, int d)
{
    for (int i = d; i < g->ndim - 1; i++) {
        g->sizes[i] = g->sizes[i + 1];
        g->strides[i] = g->strides[i + 1];
    }
    g->ndim--;
}

static int geom_insert(geom *g, int d, int64_t size, int64_t stride,
                       tl_error *err)
{
    if (g->ndim >= TL_MAX_DIMS)
        return too_many_dims(err);
    for (int i = g->ndim; i > d; i--) {
        g->sizes[i] = g->sizes[i - 1];
        g->strides[i] = g->strides[i - 1];
    }
    g->sizes[d] = size;
    g->strides[d] = stride;
    g->ndim++;
    return 0;
}

/* The single exit of every view op: limit checks, then the header. */
static tl_tensor *mkview(const tl_tensor *t, const geom *g, tl_error *err)
{
    int64_t numel;
    for (int i = 0; i < g->ndim; i++) {
        if (g->sizes[i] < 0) {
            tl_buf b = {0};
            fmt_list(&b, g->ndim, g->sizes);
            tl_error_set(err, TL_ERR_RUNTIME,
                         "Trying to create tensor with negative dimension "
                         "%lld: %s", (long long)g->sizes[i], tl_buf_str(&b));
            tl_buf_free(&b);
            return NULL;
        }
    }
    /* a view allocates nothing, so tlab's element limit does not apply
     * (x.expand(2**32) of a 1-byte tensor is legal, seed 002 item 23): only
     * a numel past int64 is refused, in TensorImpl's words */
    (void)numel;
    int64_t n = 1;
    for (int i = 0; i < g->ndim; i++)
        if (tl_mul_overflow(n, g->sizes[i], &n)) {
            tl_error_set(err, TL_ERR_RUNTIME, "numel: integer multiplication overflow");
            return NULL;
        }
    return tl_tensor_view(t, g->ndim, g->sizes, g->strides, g->offset);
}

static int wrap(int64_t dim, int ndim, int *out, tl_error *err)
{
    return tl_shape_wrap_dim(dim, ndim, out, err);
}

void tl_tensor_list_free(tl_tensor_list *l)
{
    if (!l)
        return;
    for (int64_t i = 0; i < l->n; i++)
        tl_tensor_release(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->n = 0;
}

static int list_init(tl_tensor_list *l, int64_t n, tl_error *err)
{
    l->n = 0;
    l->items = NULL;
    if (n > TL_VIEW_MAX_PIECES)
        return tl_error_set(err, TL_ERR_LIMIT,
                            "the op would return %lld tensors (limit %d)",
                            (long long)n, TL_VIEW_MAX_PIECES);
    l->items = tl_xcalloc((size_t)(n > 0 ? n : 1), sizeof(tl_tensor *));
    return 0;
}

/* ------------------------------------------------------------------ */
/* shape arithmetic                                                    */
/* ------------------------------------------------------------------ */

static void tensor_type_name(const tl_tensor *t, tl_buf *b)
{
    bool cuda = t->storage && t->storage->device.kind == TL_DEV_CUDA;
    if (t->dtype == TL_BOOL || t->dtype == TL_BFLOAT16) {
        /* no legacy TH type name: Tensor::toString() gives dispatch key +
         * scalar type + "Type" (CPUBoolType, CPUBFloat16Type; measured) */
        tl_buf_printf(b, "%s%sType", cuda ? "CUDA" : "CPU", tl_dtype_scalar_name(t->dtype));
        return;
    }
    const char *name = tl_dtype_tensor_type(t->dtype); /* torch.FloatTensor */
    if (t->storage && t->storage->device.kind == TL_DEV_CUDA &&
        strncmp(name, "torch.", 6) == 0) {
        tl_buf_puts(b, "torch.cuda.");
        tl_buf_puts(b, name + 6);
    } else {
        tl_buf_puts(b, name);
    }
}

int tl_view_expand_geometry(const tl_tensor *t, int n, const int64_t *target,
                            int64_t *sizes, int64_t *strides, tl_error *err)
{
    if (n < t->ndim) {
        tl_buf b = {0};
        tl_buf_puts(&b, "expand(");
        tensor_type_name(t, &b);
        tl_buf_putc(&b, '{');
        fmt_list(&b, t->ndim, t->sizes);
        tl_buf_puts(&b, "}, size=");
        fmt_list(&b, n, target);
        tl_buf_printf(&b, "): the number of sizes provided (%d) must be "
                      "greater or equal to the number of dimensions in the "
                      "tensor (%d)", n, t->ndim);
        tl_error_set(err, TL_ERR_RUNTIME, "%s", tl_buf_str(&b));
        tl_buf_free(&b);
        return -1;
    }
    if (n > TL_MAX_DIMS)
        return too_many_dims(err);
    if (t->ndim == 0) {
        for (int i = 0; i < n; i++) {
            sizes[i] = target[i];
            strides[i] = 0;
        }
    } else {
        for (int i = n - 1; i >= 0; i--) {
            int off = n - 1 - i;
            int dim = t->ndim - 1 - off;
            int64_t size = dim >= 0 ? t->sizes[dim] : 1;
            int64_t stride = dim >= 0 ? t->strides[dim]
                                      : sizes[i + 1] * strides[i + 1];
            int64_t ts = target[i];
            if (ts == -1) {
                if (dim < 0)
                    return tl_error_set(err, TL_ERR_RUNTIME,
                                        "The expanded size of the tensor (-1) "
                                        "isn't allowed in a leading, "
                                        "non-existing dimension %d", i);
                ts = size;
            }
            if (size != ts) {
                if (size != 1) {
                    tl_buf a = {0}, b = {0};
                    fmt_list(&a, n, target);
                    fmt_list(&b, t->ndim, t->sizes);
                    tl_error_set(err, TL_ERR_RUNTIME,
                                 "The expanded size of the tensor (%lld) must "
                                 "match the existing size (%lld) at "
                                 "non-singleton dimension %d.  Target sizes: "
                                 "%s.  Tensor sizes: %s", (long long)ts,
                                 (long long)size, i, tl_buf_str(&a),
                                 tl_buf_str(&b));
                    tl_buf_free(&a);
                    tl_buf_free(&b);
                    return -1;
                }
                size = ts;
                stride = 0;
            }
            sizes[i] = size;
            strides[i] = stride;
        }
    }
    for (int i = 0; i < n; i++) {
        if (sizes[i] < 0) /* PyTorch 1.13's numel() check */
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "numel: integer multiplication overflow");
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* reshaping                                                           */
/* ------------------------------------------------------------------ */

static const char VIEW_ERR[] =
    "view size is not compatible with input tensor's size and stride (at "
    "least one dimension spans across two contiguous subspaces). Use "
    ".reshape(...) instead.";

/* g := the view of t as shape (its -1 inferred): 1 when computeStride
 * finds strides for it, 0 when t's layout has none, -1 on error. */
static int view_geom(const tl_tensor *t, int n, const int64_t *shape, geom *g,
                     tl_error *err)
{
    if (n > TL_MAX_DIMS)
        return too_many_dims(err);
    if (tl_shape_infer_size(n, shape, tl_tensor_numel(t), g->sizes, err))
        return -1;
    g->ndim = n;
    g->offset = t->offset;
    return tl_shape_compute_stride(t->ndim, t->sizes, t->strides, n, g->sizes,
                                  g->strides);
}

tl_tensor *tl_view_view(const tl_tensor *t, int n, const int64_t *shape,
                        tl_error *err)
{
    geom g;
    int r = view_geom(t, n, shape, &g, err);
    if (r == 0)
        tl_error_set(err, TL_ERR_RUNTIME, "%s", VIEW_ERR);
    return r > 0 ? mkview(t, &g, err) : NULL;
}

tl_tensor *tl_view_dtype(const tl_tensor *t, tl_dtype dt, tl_error *err)
{
    geom g;
    geom_of(&g, t);
    int64_t old_sz = (int64_t)tl_dtype_size(t->dtype);
    int64_t new_sz = (int64_t)tl_dtype_size(dt);
    const char *from = tl_dtype_scalar_name(t->dtype);
    const char *to = tl_dtype_scalar_name(dt);
    if (old_sz != new_sz) {
        int last = t->ndim - 1;
        if (t->ndim == 0) {
            tl_error_set(err, TL_ERR_RUNTIME,
                         "self.dim() cannot be 0 to view %s as %s (different "
                         "element sizes)", from, to);
            return NULL;
        }
        if (new_sz < old_sz) {
            int64_t ratio = old_sz / new_sz;
            if (!last_stride_1(t, from, to, err))
                return NULL;
            g.sizes[last] *= ratio;
            for (int i = 0; i < last; i++)
                g.strides[i] *= ratio;
            g.strides[last] = 1;
            g.offset *= ratio;
        } else {
            int64_t ratio = new_sz / old_sz;
            if (t->sizes[last] % ratio != 0) {
                tl_error_set(err, TL_ERR_RUNTIME,
                             "self.size(-1) must be divisible by %lld to view "
                             "%s as %s (different element sizes), but got "
                             "%lld", (long long)ratio, from, to,
                             (long long)t->sizes[last]);
                return NULL;
            }
            if (t->offset % ratio != 0) {
                tl_error_set(err, TL_ERR_RUNTIME,
                             "self.storage_offset() must be divisible by "
                             "%lld to view %s as %s (different element "
                             "sizes), but got %lld", (long long)ratio, from,
                             to, (long long)t->offset);
                return NULL;
            }
            if (!last_stride_1(t, from, to, err))
                return NULL;
            for (int i = 0; i < last; i++) {
                if (t->strides[i] % ratio != 0) {
                    tl_error_set(err, TL_ERR_RUNTIME,
                                 "self.stride(%d) must be divisible by %lld "
                                 "to view %s as %s (different element "
                                 "sizes), but got %lld", i, (long long)ratio,
                                 from, to, (long long)t->strides[i]);
                    return NULL;
                }
                g.strides[i] /= ratio;
            }
            g.sizes[last] /= ratio;
            g.strides[last] = 1;
            g.offset /= ratio;
        }
    }
    tl_tensor *r = mkview(t, &g, err);
    if (r) {
        r->dtype = dt;
        /* view.dtype is not differentiable (derivatives.yaml,
         * output_differentiability: [False]): the result never requires
         * grad and is a leaf */
        r->requires_grad = false;
        r->is_leaf = true;
        r->is_view_of_grad_leaf = false; /* not a differentiable view */
    }
    return r;
}

/* A fresh contiguous copy of t, then given the (already inferred) shape. */
static tl_tensor *copy_as_shape(tl_tensor *t, int n, const int64_t *shape,
                                tl_error *err)
{
    tl_tensor *c = tl_ops_clone(t, TL_MEMFMT_CONTIGUOUS, err);
    if (!c)
        return NULL;
    /* c is a brand-new tensor that only we reference: reshape it in place
     * (PyTorch's _unsafe_view of the contiguous clone). */
    c->ndim = n;
    memcpy(c->sizes, shape, sizeof(int64_t) * (size_t)n);
    tl_shape_contiguous_strides(n, c->sizes, c->strides);
    return c;
}

tl_tensor *tl_view_reshape(tl_tensor *t, int n, const int64_t *shape,
                           tl_error *err)
{
    geom g;
    int r = view_geom(t, n, shape, &g, err);
    if (r < 0)
        return NULL;
    return r ? mkview(t, &g, err) : copy_as_shape(t, n, g.sizes, err);
}

tl_tensor *tl_view_flatten(tl_tensor *t, int64_t start, int64_t end,
                           tl_error *err)
{
    int s, e;
    if (wrap(start, t->ndim, &s, err) || wrap(end, t->ndim, &e, err))
        return NULL;
    if (s > e) {
        tl_error_set(err, TL_ERR_RUNTIME, "flatten() has invalid args: "
                     "start_dim cannot come after end_dim");
        return NULL;
    }
    if (t->ndim == 0) {
        int64_t one = 1;
        return tl_view_reshape(t, 1, &one, err);
    }
    if (s == e)
        return tl_tensor_retain(t);
    int64_t shape[TL_MAX_DIMS];
    int n = 0;
    int64_t prod = 1;
    for (int i = 0; i < s; i++)
        shape[n++] = t->sizes[i];
    for (int i = s; i <= e; i++)
        /* wrapping: numel <= TL_MAX_NUMEL bounds it, except for a
         * zero-element tensor such as (2**62, 2**62, 0) */
        prod = (int64_t)((uint64_t)prod * (uint64_t)t->sizes[i]);
    shape[n++] = prod;
    for (int i = e + 1; i < t->ndim; i++)
        shape[n++] = t->sizes[i];
    return tl_view_reshape(t, n, shape, err);
}

tl_tensor *tl_view_ravel(tl_tensor *t, tl_error *err)
{
    tl_tensor *c = tl_ops_contiguous(t, TL_MEMFMT_CONTIGUOUS, err);
    if (!c)
        return NULL;
    int64_t m1 = -1;
    tl_tensor *r = tl_view_view(c, 1, &m1, err);
    tl_tensor_release(c);
    return r;
}

tl_tensor *tl_view_unflatten(const tl_tensor *t, int64_t dim, int n,
                             const int64_t *sizes, tl_error *err)
{
    int d;
    if (wrap(dim, t->ndim, &d, err))
        return NULL;
    if (n == 0) {
        tl_error_set(err, TL_ERR_RUNTIME, "unflatten: sizes must be non-empty");
        return NULL;
    }
    if (t->ndim == 0) {
        tl_error_set(err, TL_ERR_INDEX, "Dimension specified as 0 but tensor "
                     "has no dimensions");
        return NULL;
    }
    if (t->ndim - 1 + n > TL_MAX_DIMS) {
        too_many_dims(err);
        return NULL;
    }
    int64_t inferred[TL_MAX_DIMS], bad = 0;
    int code = tl_shape_infer_code(n, sizes, t->sizes[d], inferred, &bad);
    if (code == TL_INFER_TWO) {
        tl_error_set(err, TL_ERR_RUNTIME, "unflatten got an unexpected "
                     "error:\nonly one dimension can be inferred");
        return NULL;
    }
    if (code == TL_INFER_BAD) {
        tl_buf b = {0};
        fmt_list(&b, n, sizes);
        tl_error_set(err, TL_ERR_RUNTIME,
                     "unflatten: Provided sizes %s don't multiply up to the "
                     "size of dim %d (%lld) in the input tensor",
                     tl_buf_str(&b), d, (long long)t->sizes[d]);
        tl_buf_free(&b);
        return NULL;
    }
    if (code != TL_INFER_OK) {
        tl_shape_infer_raise(code, n, sizes, t->sizes[d], bad, err);
        return NULL;
    }
    int64_t shape[TL_MAX_DIMS];
    int m = 0;
    for (int i = 0; i < d; i++)
        shape[m++] = t->sizes[i];
    for (int i = 0; i < n; i++)
        shape[m++] = inferred[i];
    for (int i = d + 1; i < t->ndim; i++)
        shape[m++] = t->sizes[i];
    return tl_view_view(t, m, shape, err);
}

/* ------------------------------------------------------------------ */
/* dimension reordering                                                */
/* ------------------------------------------------------------------ */

tl_tensor *tl_view_transpose(const tl_tensor *t, int64_t d0, int64_t d1,
                             tl_error *err)
{
    int a, b;
    if (wrap(d0, t->ndim, &a, err) || wrap(d1, t->ndim, &b, err))
        return NULL;
    geom g;
    geom_of(&g, t);
    if (t->ndim > 0 && a != b) {
        int64_t s = g.sizes[a], st = g.strides[a];
        g.sizes[a] = g.sizes[b];
        g.strides[a] = g.strides[b];
        g.sizes[b] = s;
        g.strides[b] = st;
    }
    return mkview(t, &g, err);
}

tl_tensor *tl_view_t(const tl_tensor *t, const char *fname, tl_error *err)
{
    if (t->ndim > 2) {
        tl_error_set(err, TL_ERR_RUNTIME, "%s() expects a tensor with <= 2 "
                     "dimensions, but self is %dD", fname ? fname : "t",
                     t->ndim);
        return NULL;
    }
    return tl_view_transpose(t, 0, t->ndim < 2 ? 0 : 1, err);
}

tl_tensor *tl_view_T(const tl_tensor *t, tl_error *err)
{
    geom g;
    g.ndim = t->ndim;
    g.offset = t->offset;
    for (int i = 0; i < t->ndim; i++) {
        g.sizes[i] = t->sizes[t->ndim - 1 - i];
        g.strides[i] = t->strides[t->ndim - 1 - i];
    }
    return mkview(t, &g, err);
}

tl_tensor *tl_view_mT(tl_tensor *t, const char *which, tl_error *err)
{
    if (t->ndim == 0)
        return tl_tensor_retain(t);
    if (t->ndim < 2) {
        tl_error_set(err, TL_ERR_RUNTIME, "tensor.%s is only supported on "
                     "matrices or batches of matrices. Got %d-D tensor.",
                     which, t->ndim);
        return NULL;
    }
    return tl_view_transpose(t, -2, -1, err);
}

tl_tensor *tl_view_H(tl_tensor *t, tl_error *err)
{
    if (t->ndim == 0)
        return tl_tensor_retain(t);
    if (t->ndim != 2) {
        tl_error_set(err, TL_ERR_RUNTIME, "tensor.H is only supported on "
                     "matrices (2-D tensors). Got %d-D tensor.%s", t->ndim,
                     t->ndim > 2 ? " For batches of matrices, consider using "
                                   "tensor.mH" : "");
        return NULL;
    }
    return tl_view_transpose(t, 0, 1, err);
}

tl_tensor *tl_view_permute(const tl_tensor *t, int n, const int64_t *dims,
                           tl_error *err)
{
    if (n != t->ndim) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "permute(sparse_coo): number of dimensions in the tensor "
                     "input does not match the length of the desired ordering "
                     "of dimensions i.e. input.dim() = %d is not equal to "
                     "len(dims) = %d", t->ndim, n);
        return NULL;
    }
    bool seen[TL_MAX_DIMS] = {false};
    geom g;
    g.ndim = n;
    g.offset = t->offset;
    for (int i = 0; i < n; i++) {
        int d;
        if (wrap(dims[i], t->ndim, &d, err))
            return NULL;
        if (seen[d]) {
            tl_error_set(err, TL_ERR_RUNTIME,
                         "permute(): duplicate dims are not allowed.");
            return NULL;
        }
        seen[d] = true;
        g.sizes[i] = t->sizes[d];
        g.strides[i] = t->strides[d];
    }
    return mkview(t, &g, err);
}

static bool all_unique(int n, const int *a)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (a[i] == a[j])
                return false;
    return true;
}

tl_tensor *tl_view_movedim(const tl_tensor *t, int ns, const int64_t *src,
                           int nd, const int64_t *dst, tl_error *err)
{
    if (ns != nd) {
        tl_buf a = {0}, b = {0};
        fmt_list(&a, ns, src);
        fmt_list(&b, nd, dst);
        tl_error_set(err, TL_ERR_RUNTIME,
                     "movedim: Invalid source or destination dims: source "
                     "(%s dims) should contain the same number of dims as "
                     "destination (%s dims)", tl_buf_str(&a), tl_buf_str(&b));
        tl_buf_free(&a);
        tl_buf_free(&b);
        return NULL;
    }
    if (ns > TL_MAX_DIMS) {
        too_many_dims(err);
        return NULL;
    }
    int nsrc[TL_MAX_DIMS], ndst[TL_MAX_DIMS];
    for (int i = 0; i < ns; i++)
        if (wrap(src[i], t->ndim, &nsrc[i], err))
            return NULL;
    for (int i = 0; i < nd; i++)
        if (wrap(dst[i], t->ndim, &ndst[i], err))
            return NULL;
    if (!all_unique(ns, nsrc)) {
        err_list(err, TL_ERR_RUNTIME, "movedim: repeated dim in `source` (%s)",
                 ns, src);
        return NULL;
    }
    if (!all_unique(nd, ndst)) {
        err_list(err, TL_ERR_RUNTIME,
                 "movedim: repeated dim in `destination` (%s)", nd, dst);
        return NULL;
    }
    if (t->ndim == 0)
        return tl_tensor_alias(t);
    int n = t->ndim;
    int64_t order[TL_MAX_DIMS];
    int src_rest[TL_MAX_DIMS], dst_rest[TL_MAX_DIMS];
    bool src_used[TL_MAX_DIMS] = {false}, dst_used[TL_MAX_DIMS] = {false};
    for (int i = 0; i < ns; i++) {
        order[ndst[i]] = nsrc[i];
        src_used[nsrc[i]] = true;
        dst_used[ndst[i]] = true;
    }
    int a = 0, b = 0;
    for (int i = 0; i < n; i++) {
        if (!src_used[i])
            src_rest[a++] = i;
        if (!dst_used[i])
            dst_rest[b++] = i;
    }
    for (int i = 0; i < a; i++)
        order[dst_rest[i]] = src_rest[i];
    return tl_view_permute(t, n, order, err);
}

/* ------------------------------------------------------------------ */
/* size-1 dims and broadcasting                                        */
/* ------------------------------------------------------------------ */

tl_tensor *tl_view_squeeze(const tl_tensor *t, int n, const int64_t *dims,
                           tl_error *err)
{
    bool drop[TL_MAX_DIMS] = {false};
    if (n < 0) {
        for (int i = 0; i < t->ndim; i++)
            drop[i] = t->sizes[i] == 1;
    } else {
        bool seen[TL_MAX_DIMS] = {false};
        for (int i = 0; i < n; i++) {
            int d;
            if (wrap(dims[i], t->ndim, &d, err))
                return NULL;
            if (seen[d]) {
                tl_error_set(err, TL_ERR_RUNTIME, "dim %d appears multiple "
                             "times in the list of dims", d);
                return NULL;
            }
            seen[d] = true;
            if (t->ndim > 0 && t->sizes[d] == 1)
                drop[d] = true;
        }
    }
    geom g;
    g.ndim = 0;
    g.offset = t->offset;
    for (int i = 0; i < t->ndim; i++) {
        if (drop[i])
            continue;
        g.sizes[g.ndim] = t->sizes[i];
        g.strides[g.ndim] = t->strides[i];
        g.ndim++;
    }
    return mkview(t, &g, err);
}

tl_tensor *tl_view_unsqueeze(const tl_tensor *t, int64_t dim, tl_error *err)
{
    int d;
    if (wrap(dim, t->ndim + 1, &d, err))
        return NULL;
    geom g;
    geom_of(&g, t);
    int64_t stride = d >= t->ndim ? 1 : t->sizes[d] * t->strides[d];
    if (geom_insert(&g, d, 1, stride, err))
        return NULL;
    return mkview(t, &g, err);
}

tl_tensor *tl_view_expand(const tl_tensor *t, int n, const int64_t *sizes,
                          tl_error *err)
{
    geom g;
    if (tl_view_expand_geometry(t, n, sizes, g.sizes, g.strides, err))
        return NULL;
    g.ndim = n;
    g.offset = t->offset;
    return mkview(t, &g, err);
}

tl_tensor *tl_view_atleast(tl_tensor *t, int k, tl_error *err)
{
    if (t->ndim >= k)
        return tl_tensor_retain(t);
    if (t->ndim == 0) {
        int64_t ones[3] = {1, 1, 1};
        return tl_view_reshape(t, k, ones, err);
    }
    if (k == 2) /* 1-D */
        return tl_view_unsqueeze(t, 0, err);
    /* k == 3: 1-D -> unsqueeze(0).unsqueeze(-1); 2-D -> unsqueeze(-1) */
    if (t->ndim == 1) {
        tl_tensor *a = tl_view_unsqueeze(t, 0, err);
        if (!a)
            return NULL;
        tl_tensor *b = tl_view_unsqueeze(a, -1, err);
        tl_tensor_release(a);
        return b;
    }
    return tl_view_unsqueeze(t, -1, err);
}

/* ------------------------------------------------------------------ */
/* sub-ranges                                                          */
/* ------------------------------------------------------------------ */

tl_tensor *tl_view_select(const tl_tensor *t, int64_t dim, int64_t index,
                          tl_error *err)
{
    int d;
    if (t->ndim == 0) {
        tl_error_set(err, TL_ERR_INDEX,
                     "select() cannot be applied to a 0-dim tensor.");
        return NULL;
    }
    if (wrap(dim, t->ndim, &d, err))
        return NULL;
    int64_t size = t->sizes[d];
    if (size <= -1 - index || size <= index) {
        tl_buf b = {0};
        fmt_list(&b, t->ndim, t->sizes);
        tl_error_set(err, TL_ERR_INDEX, "select(): index %lld out of range "
                     "for tensor of size %s at dimension %d",
                     (long long)index, tl_buf_str(&b), d);
        tl_buf_free(&b);
        return NULL;
    }
    if (index < 0)
        index += size;
    geom g;
    geom_of(&g, t);
    g.offset += index * t->strides[d];
    geom_remove(&g, d);
    return mkview(t, &g, err);
}

tl_tensor *tl_view_slice(const tl_tensor *t, int dim, bool has_start,
                         int64_t start, bool has_stop, int64_t stop,
                         int64_t step)
{
    TL_ASSERT(dim >= 0 && dim < t->ndim && step > 0);
    int64_t s, len;
    tl_shape_slice(t->sizes[dim], has_start, start, has_stop, stop, step, &s,
                   &len);
    geom g;
    geom_of(&g, t);
    g.offset += s * t->strides[dim];
    g.sizes[dim] = len;
    if (tl_mul_overflow(g.strides[dim], step, &g.strides[dim]))
        g.strides[dim] = INT64_MAX; /* only reachable with size <= 1 */
    return tl_tensor_view(t, g.ndim, g.sizes, g.strides, g.offset);
}

tl_tensor *tl_view_narrow(const tl_tensor *t, int64_t dim, int64_t start,
                          int64_t length, tl_error *err)
{
    int d;
    if (t->ndim == 0) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "narrow() cannot be applied to a 0-dim tensor.");
        return NULL;
    }
    if (length < 0) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "narrow(): length must be non-negative.");
        return NULL;
    }
    if (wrap(dim, t->ndim, &d, err))
        return NULL;
    int64_t cur = t->sizes[d];
    if (start < -cur || start > cur) {
        tl_error_set(err, TL_ERR_INDEX, "start out of range (expected to be "
                     "in range of [%lld, %lld], but got %lld)",
                     (long long)-cur, (long long)cur, (long long)start);
        return NULL;
    }
    if (start < 0)
        start += cur;
    if (start > cur - length) {
        tl_error_set(err, TL_ERR_RUNTIME, "start (%lld) + length (%lld) "
                     "exceeds dimension size (%lld).", (long long)start,
                     (long long)length, (long long)cur);
        return NULL;
    }
    return tl_view_slice(t, d, true, start, true, start + length, 1);
}

tl_tensor *tl_view_unfold(const tl_tensor *t, int64_t dim, int64_t size,
                          int64_t step, tl_error *err)
{
    int d;
    if (wrap(dim, t->ndim, &d, err))
        return NULL;
    int64_t max_size = t->ndim == 0 ? 1 : t->sizes[d];
    if (size > max_size) {
        tl_error_set(err, TL_ERR_RUNTIME, "maximum size for tensor at "
                     "dimension %d is %lld but size is %lld", d,
                     (long long)max_size, (long long)size);
        return NULL;
    }
    if (step <= 0) {
        tl_error_set(err, TL_ERR_RUNTIME, "step is %lld but must be > 0",
                     (long long)step);
        return NULL;
    }
    geom g;
    geom_of(&g, t);
    if (t->ndim >= TL_MAX_DIMS) {
        too_many_dims(err);
        return NULL;
    }
    g.sizes[g.ndim] = size;
    g.strides[g.ndim] = t->ndim == 0 ? 1 : t->strides[d];
    g.ndim++;
    if (t->ndim > 0 && size < 0) {
        /* only for the overflow message below (PyTorch computes it too) */
        __int128 w = ((__int128)t->sizes[d] - size) / step + 1;
        g.sizes[d] = w > INT64_MAX ? INT64_MAX : (int64_t)w;
    } else if (t->ndim > 0) {
        g.sizes[d] = (t->sizes[d] - size) / step + 1;
        if (tl_mul_overflow(g.strides[d], step, &g.strides[d]))
            g.strides[d] = INT64_MAX;
    }
    if (size < 0) {
        storage_overflow(g.ndim, g.sizes, g.strides, err);
        return NULL;
    }
    return mkview(t, &g, err);
}

tl_tensor *tl_view_diagonal(const tl_tensor *t, int64_t offset, int64_t d1,
                            int64_t d2, tl_error *err)
{
    geom g;
    geom_of(&g, t);
    if (tl_shape_diagonal(&g, offset, d1, d2, err) < 0)
        return NULL;
    return mkview(t, &g, err);
}

tl_tensor *tl_view_as_strided(const tl_tensor *t, int n, const int64_t *sizes,
                              int nst, const int64_t *strides,
                              bool has_offset, int64_t offset, tl_error *err)
{
    int64_t off = has_offset ? offset : t->offset;
    if (n != nst) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "mismatch in length of strides and shape");
        return NULL;
    }
    if (n > TL_MAX_DIMS) {
        too_many_dims(err);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        if (strides[i] < 0) {
            err_list(err, TL_ERR_RUNTIME, "as_strided: Negative strides are "
                     "not supported at the moment, got strides: %s", n,
                     strides);
            return NULL;
        }
    }
    /* computeStorageNbytes */
    int64_t itemsize = (int64_t)tl_dtype_size(t->dtype);
    int64_t span = 1;
    bool overflow = false, empty = false;
    for (int i = 0; i < n && !empty; i++) {
        int64_t step;
        if (sizes[i] == 0) {
            empty = true;
            break;
        }
        if (sizes[i] < 0 ||
            tl_mul_overflow(strides[i], sizes[i] - 1, &step) ||
            tl_add_overflow(span, step, &span))
            overflow = true;
    }
    int64_t bytes = 0;
    if (!empty && (overflow || tl_mul_overflow(span, itemsize, &bytes)))
        overflow = true;
    if (overflow && !empty) {
        storage_overflow(n, sizes, strides, err);
        return NULL;
    }
    if (!empty) {
        int64_t offbytes, need;
        int64_t have = (int64_t)(t->storage ? t->storage->nbytes : 0);
        if (tl_mul_overflow(off, itemsize, &offbytes) ||
            tl_add_overflow(bytes, offbytes, &need) || need > have) {
            tl_buf a = {0}, b = {0};
            fmt_list(&a, n, sizes);
            fmt_list(&b, n, strides);
            tl_error_set(err, TL_ERR_RUNTIME, "setStorage: sizes %s, strides "
                         "%s, storage offset %lld, and itemsize %lld "
                         "requiring a storage size of %lld are out of bounds "
                         "for storage of size %lld", tl_buf_str(&a),
                         tl_buf_str(&b), (long long)off, (long long)itemsize,
                         (long long)((uint64_t)bytes +
                                     (uint64_t)off * (uint64_t)itemsize),
                         (long long)have);
            tl_buf_free(&a);
            tl_buf_free(&b);
            return NULL;
        }
    }
    if (off < 0) {
        tl_error_set(err, TL_ERR_RUNTIME, "Tensor: invalid storage offset "
                     "%lld", (long long)off);
        return NULL;
    }
    geom g;
    g.ndim = n;
    g.offset = off;
    memcpy(g.sizes, sizes, sizeof(int64_t) * (size_t)n);
    memcpy(g.strides, strides, sizeof(int64_t) * (size_t)n);
    return mkview(t, &g, err);
}

/* ------------------------------------------------------------------ */
/* split family                                                        */
/* ------------------------------------------------------------------ */

/* Python-slice piece [s, e) of dim d (at::slice clamping). */
static tl_tensor *piece(const tl_tensor *t, int d, int64_t s, int64_t e)
{
    return tl_view_slice(t, d, true, s, true, e, 1);
}

/* Start a split-family result: out empty, and t must have a dim (a
 * RuntimeError with msg otherwise). */
static int split_begin(const tl_tensor *t, tl_tensor_list *out,
                       const char *msg, tl_error *err)
{
    out->n = 0;
    out->items = NULL;
    return t->ndim == 0 ? tl_error_set(err, TL_ERR_RUNTIME, "%s", msg) : 0;
}

static const char TENSOR_SPLIT_0D[] =
    "tensor_split expected at least a 1-dimensional tensor, but got a tensor "
    "with 0 dims";

int tl_view_split(const tl_tensor *t, int64_t size, int64_t dim,
                  tl_tensor_list *out, tl_error *err)
{
    int d;
    if (split_begin(t, out, "split expects at least a 1-dimensional tensor",
                    err))
        return -1;
    if (size < 0)
        return tl_error_set(err, TL_ERR_RUNTIME, "split expects split_size "
                            "be non-negative, but got split_size=%lld",
                            (long long)size);
    if (wrap(dim, t->ndim, &d, err))
        return -1;
    int64_t n = t->sizes[d];
    if (size == 0 && n != 0)
        return tl_error_set(err, TL_ERR_RUNTIME, "split_size can only be 0 if "
                            "dimension size is 0, but got dimension size of "
                            "%lld", (long long)n);
    int64_t k = 1;
    if (size != 0) {
        k = n == 0 ? 0 : (n - 1) / size + 1;
        if (k < 1)
            k = 1;
    }
    if (list_init(out, k, err))
        return -1;
    for (int64_t i = 0; i < k; i++) {
        int64_t s = i * size;
        int64_t e = i < k - 1 ? s + size : n;
        out->items[out->n++] = piece(t, d, s, e);
    }
    return 0;
}

int tl_view_split_sizes(const tl_tensor *t, int n, const int64_t *sizes,
                        int64_t dim, tl_tensor_list *out, tl_error *err)
{
    int d;
    if (split_begin(t, out, "split expects at least a 1-dimensional tensor",
                    err))
        return -1;
    if (wrap(dim, t->ndim, &d, err))
        return -1;
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        if (sizes[i] < 0)
            return err_list(err, TL_ERR_RUNTIME, "split_with_sizes expects "
                            "split_sizes have only non-negative entries, but "
                            "got split_sizes=%s", n, sizes);
        if (tl_add_overflow(total, sizes[i], &total))
            total = INT64_MAX;
    }
    if (total != t->sizes[d]) {
        tl_buf b = {0};
        fmt_list(&b, n, sizes);
        tl_error_set(err, TL_ERR_RUNTIME, "split_with_sizes expects "
                     "split_sizes to sum exactly to %lld (input tensor's size "
                     "at dimension %lld), but got split_sizes=%s",
                     (long long)t->sizes[d], (long long)dim, tl_buf_str(&b));
        tl_buf_free(&b);
        return -1;
    }
    if (list_init(out, n, err))
        return -1;
    int64_t s = 0;
    for (int i = 0; i < n; i++) {
        out->items[out->n++] = piece(t, d, s, s + sizes[i]);
        s += sizes[i];
    }
    return 0;
}

int tl_view_chunk(const tl_tensor *t, int64_t chunks, int64_t dim,
                  tl_tensor_list *out, tl_error *err)
{
    int d;
    if (split_begin(t, out, "chunk expects at least a 1-dimensional tensor",
                    err))
        return -1;
    if (chunks <= 0)
        return tl_error_set(err, TL_ERR_RUNTIME, "chunk expects `chunks` to "
                            "be greater than 0, got: %lld", (long long)chunks);
    if (wrap(dim, t->ndim, &d, err))
        return -1;
    int64_t n = t->sizes[d];
    if (n == 0) {
        if (list_init(out, chunks, err))
            return -1;
        for (int64_t i = 0; i < chunks; i++)
            out->items[out->n++] = piece(t, d, 0, 0);
        return 0;
    }
    /* (n + chunks - 1) / chunks with ATen's int64 wrap-around, so a huge
     * `chunks` gives PyTorch's split_size-0 error */
    int64_t sum = (int64_t)((uint64_t)n + (uint64_t)chunks - 1u);
    return tl_view_split(t, sum / chunks, d, out, err);
}

int tl_view_tensor_split_n(const tl_tensor *t, int64_t sections, int64_t dim,
                           tl_tensor_list *out, tl_error *err)
{
    int d;
    if (split_begin(t, out, TENSOR_SPLIT_0D, err))
        return -1;
    if (wrap(dim, t->ndim, &d, err))
        return -1;
    if (sections <= 0)
        return tl_error_set(err, TL_ERR_RUNTIME, "number of sections must be "
                            "larger than 0, got %lld", (long long)sections);
    if (list_init(out, sections, err))
        return -1;
    int64_t n = t->sizes[d];
    int64_t base = n / sections, extra = n % sections, s = 0;
    for (int64_t i = 0; i < sections; i++) {
        int64_t len = i < extra ? base + 1 : base;
        out->items[out->n++] = piece(t, d, s, s + len);
        s += len;
    }
    return 0;
}

int tl_view_tensor_split_idx(const tl_tensor *t, int n, const int64_t *idx,
                             int64_t dim, tl_tensor_list *out, tl_error *err)
{
    int d;
    if (split_begin(t, out, TENSOR_SPLIT_0D, err))
        return -1;
    if (wrap(dim, t->ndim, &d, err))
        return -1;
    if (list_init(out, (int64_t)n + 1, err))
        return -1;
    int64_t s = 0;
    for (int i = 0; i < n; i++) {
        out->items[out->n++] = piece(t, d, s, idx[i]);
        s = idx[i];
    }
    out->items[out->n++] = piece(t, d, s, t->sizes[d]);
    return 0;
}

int tl_view_unbind(const tl_tensor *t, int64_t dim, tl_tensor_list *out,
                   tl_error *err)
{
    int d;
    out->n = 0;
    out->items = NULL;
    if (wrap(dim, t->ndim, &d, err))
        return -1;
    if (t->ndim == 0)
        return tl_error_set(err, TL_ERR_INDEX, "Dimension specified as 0 but "
                            "tensor has no dimensions");
    if (list_init(out, t->sizes[d], err))
        return -1;
    for (int64_t i = 0; i < t->sizes[d]; i++) {
        tl_tensor *r = tl_view_select(t, d, i, err);
        if (!r) {
            tl_tensor_list_free(out);
            return -1;
        }
        out->items[out->n++] = r;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* aliases and metadata in place                                       */
/* ------------------------------------------------------------------ */

tl_tensor *tl_view_detach(const tl_tensor *t)
{
    tl_tensor *r = tl_tensor_alias(t);
    r->requires_grad = false;
    r->is_leaf = true;
    r->is_view_of_grad_leaf = false;
    return r;
}

tl_tensor *tl_view_data(const tl_tensor *t)
{
    tl_tensor *r = tl_view_detach(t);
    tl_version_release(r->version);
    r->version = tl_version_new();
    return r;
}

void tl_view_set_meta(tl_tensor *dst, const tl_tensor *src)
{
    TL_ASSERT(dst->storage == src->storage);
    dst->ndim = src->ndim;
    memcpy(dst->sizes, src->sizes, sizeof(int64_t) * (size_t)src->ndim);
    memcpy(dst->strides, src->strides, sizeof(int64_t) * (size_t)src->ndim);
    dst->offset = src->offset;
}

void tl_view_set_data(tl_tensor *dst, const tl_tensor *src)
{
    if (dst == src)
        return;
    tl_storage_retain(src->storage);
    tl_storage_release(dst->storage);
    dst->storage = src->storage;
    dst->dtype = src->dtype;
    dst->ndim = src->ndim;
    memcpy(dst->sizes, src->sizes, sizeof(int64_t) * (size_t)src->ndim);
    memcpy(dst->strides, src->strides, sizeof(int64_t) * (size_t)src->ndim);
    dst->offset = src->offset;
    free(dst->names);
    dst->names = NULL;
}

int tl_view_check_inplace(const tl_tensor *t, tl_error *err)
{
    if (!tl_tensor_grad_mode())
        return 0; /* torch.no_grad(): in-place on leaves is allowed */
    if (t->requires_grad && t->is_leaf && !t->is_view_of_grad_leaf)
        return tl_error_set(err, TL_ERR_RUNTIME, "a leaf Variable that "
                            "requires grad is being used in an in-place "
                            "operation.");
    if (t->is_view_of_grad_leaf)
        return tl_error_set(err, TL_ERR_RUNTIME, "a view of a leaf Variable "
                            "that requires grad is being used in an in-place "
                            "operation.");
    return 0;
}

/* ---- storage-changing metadata ops: resize_, set_ ---- */

int tl_view_resize_(tl_tensor *t, int n, const int64_t *sizes, bool has_fmt,
                    tl_memfmt fmt, tl_error *err)
{
    int64_t numel;
    if (t->requires_grad)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "cannot resize variables that require grad");
    if (fmt == TL_MEMFMT_CHANNELS_LAST && n != 4)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "required rank 4 tensor to use channels_last format");
    if (fmt == TL_MEMFMT_CHANNELS_LAST_3D && n != 5)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "required rank 5 tensor to use channels_last_3d format");
    /* empty_tensor_restride (2.x): the contiguous strides must not
     * overflow, checked before the storage size */
    for (int64_t d = n - 2, run = 1; d >= 0; d--) {
        int64_t sz = sizes[d + 1] > 1 ? sizes[d + 1] : 1;
        if (tl_mul_overflow(run, sz, &run))
            return tl_error_set(err, TL_ERR_RUNTIME, "Stride calculation overflowed");
    }
    if (tl_tensor_check_shape(n, sizes, &numel, err) < 0)
        return -1;
    int64_t st[TL_MAX_DIMS];
    if (tl_shape_equal(t->ndim, t->sizes, n, sizes) &&
        (!has_fmt || fmt == TL_MEMFMT_PRESERVE))
        return 0; /* PyTorch returns early: strides stay as they were */
    if (fmt == TL_MEMFMT_CHANNELS_LAST || fmt == TL_MEMFMT_CHANNELS_LAST_3D)
        tl_shape_channels_last_strides(n, sizes, st);
    else
        tl_shape_contiguous_strides(n, sizes, st);
    int64_t need = tl_tensor_required_bytes(n, sizes, st, t->offset,
                                            tl_dtype_size(t->dtype));
    if (tl_storage_resize(t->storage, (size_t)need, err) < 0)
        return -1;
    t->ndim = n;
    memcpy(t->sizes, sizes, sizeof(int64_t) * (size_t)n);
    memcpy(t->strides, st, sizeof(int64_t) * (size_t)n);
    return 0; /* resize_ does not bump the version counter */
}

int tl_view_set_(tl_tensor *t, tl_storage *s, int64_t offset, int n,
                 const int64_t *sizes, const int64_t *strides, tl_error *err)
{
    int64_t numel;
    if (tl_view_check_inplace(t, err))
        return -1;
    if (s->device.kind != t->storage->device.kind ||
        s->device.index != t->storage->device.index) {
        char a[32], b[32];
        tl_device_str(t->storage->device, a, sizeof a);
        tl_device_str(s->device, b, sizeof b);
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "Attempted to set the storage of a tensor on device "
                            "\"%s\" to a storage on different device \"%s\".  "
                            "This is no longer allowed; the devices must match.",
                            a, b);
    }
    if (offset < 0)
        return tl_error_set(err, TL_ERR_RUNTIME, "Tensor: invalid storage offset %lld",
                            (long long)offset);
    if (tl_tensor_check_shape(n, sizes, &numel, err) < 0)
        return -1;
    for (int d = 0; d < n; d++)
        if (strides[d] < 0)
            return tl_error_set(err, TL_ERR_RUNTIME, "set_: negative strides "
                                "are not supported");
    int64_t need = tl_tensor_required_bytes(n, sizes, strides, offset,
                                            tl_dtype_size(t->dtype));
    if (need < 0 || tl_storage_resize(s, (size_t)need, err) < 0)
        return need < 0 ? tl_error_set(err, TL_ERR_LIMIT, "set_: storage size "
                                       "overflows (tlab limit)") : -1;
    tl_storage_retain(s);
    tl_storage_release(t->storage);
    t->storage = s;
    t->ndim = n;
    memcpy(t->sizes, sizes, sizeof(int64_t) * (size_t)n);
    memcpy(t->strides, strides, sizeof(int64_t) * (size_t)n);
    t->offset = offset;
    tl_tensor_bump_version(t);
    return 0;
}
