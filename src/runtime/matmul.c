/* matmul.c - torch.matmul, Tensor.mm and Tensor.bmm (issue #12 class 16).
 *
 * The checks follow PyTorch 2.x's _matmul_impl path by path, because each
 * path words its errors differently: dot (1-D @ 1-D), mv (2-D @ 1-D), mm
 * (1-D/2-D @ 2-D), the folded mm/mv (one side >= 3-D, the other <= 2-D,
 * should_fold), and bmm over broadcast batch dims. The values are the same
 * whichever path PyTorch takes, so one kernel computes them all: for each
 * batch element the (n, k) and (k, m) blocks are gathered into dense scratch
 * (double for floating dtypes, int64 for integral ones, wrapping like the
 * integer kernels) and multiplied in i-l-j order, O(n*k + k*m + n*m) scratch
 * per batch element, never an n*k*m temporary. The result is always
 * contiguous (every 2.x path returns a fresh or .contiguous() tensor).
 * Bool operands raise PyTorch's "not implemented for 'Bool'" with the name
 * of the kernel the path dispatches to (dot, addmv_impl_cpu,
 * addmm_impl_cpu_, bmm), after the shape checks, as the kernels do.
 *
 * float32/float64 operands on a backend with a gemm entry (the CPU's
 * blocked, vectorised kernel in cpu_loops.c) skip the scratch: each batch
 * element is multiplied from the operands' own strided memory into the
 * result; float32 then accumulates in float32, as PyTorch's BLAS does.
 *
 * Deadline (SPEC 7): the general loop polls the op's deadline about every
 * TL_DEADLINE_POLL multiply-adds (once per inner row of m, so a long row is
 * polled after it, a short one in groups), and the gathers and the store
 * every TL_DEADLINE_POLL elements: an n^3 integer or float16 product, on the
 * host or copied from a device (there is no device matmul kernel), stops
 * with the time-limit error within a few ms of the limit. The gemm entry
 * polls in its own blocks (cpu_loops.c).
 *
 * Invariant: the only tensor storage allocated is the result (host scratch
 * is malloc'd and bounded by the live-storage limit).
 */
#include "matmul.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "context.h"
#include "dtype.h"
#include "storage.h"
#include "util.h"

/* One operand as a batch of matrices: batch dims (broadcast to the output
 * batch, stride 0 where broadcast), then rows x cols with their strides. */
typedef struct mmop {
    int64_t bst[TL_MAX_DIMS];
    int64_t rows, cols, rst, cst;
    int64_t offset;
    const char *base; /* host bytes of the storage */
    void *owned;      /* host copy of a device storage, or NULL */
    tl_dtype dt;
} mmop;

static int mm_error(tl_error *err, int64_t r1, int64_t c1, int64_t r2, int64_t c2)
{
    return tl_error_set(err, TL_ERR_RUNTIME,
                        "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                        (long long)r1, (long long)c1, (long long)r2, (long long)c2);
}

static int mv_error(tl_error *err, int64_t r, int64_t c, int64_t v)
{
    return tl_error_set(err, TL_ERR_RUNTIME,
                        "size mismatch, got input (%lld), mat (%lldx%lld), vec (%lld)",
                        (long long)r, (long long)r, (long long)c, (long long)v);
}

static int64_t prod(int n, const int64_t *s)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++)
        if (tl_mul_overflow(p, s[i], &p))
            return INT64_MAX;
    return p;
}

/* should_fold of 2.x (no operand requires grad here: a grad-requiring
 * smaller operand also folds, which changes nothing but the path) */
static bool should_fold(const tl_tensor *a, const tl_tensor *b)
{
    bool a_larger = a->ndim >= b->ndim;
    const tl_tensor *t1 = a_larger ? a : b;
    int dim_t2 = a_larger ? b->ndim : a->ndim;
    if (!(t1->ndim >= 3 && dim_t2 <= 2))
        return false;
    if ((a_larger ? b : a)->requires_grad)
        return true;
    if (a->ndim == 2)
        return false;
    if (tl_tensor_numel(t1) == 0)
        return true;
    /* t1 is b.mT() when b is the larger: its sizes/strides with the last
     * two swapped; the check only reads dims 0 .. ndim-2 */
    int64_t sz[TL_MAX_DIMS], st[TL_MAX_DIMS];
    memcpy(sz, t1->sizes, sizeof(int64_t) * (size_t)t1->ndim);
    memcpy(st, t1->strides, sizeof(int64_t) * (size_t)t1->ndim);
    if (!a_larger) {
        int n = t1->ndim;
        int64_t x = sz[n - 1]; sz[n - 1] = sz[n - 2]; sz[n - 2] = x;
        x = st[n - 1]; st[n - 1] = st[n - 2]; st[n - 2] = x;
    }
    for (int i = 0; i < t1->ndim - 2; i++)
        if (st[i] != st[i + 1] * sz[i + 1])
            return false;
    return true;
}

static int bool_error(const char *kernel, tl_error *err)
{
    return tl_error_set(err, TL_ERR_RUNTIME, "\"%s\" not implemented for 'Bool'", kernel);
}

/* The checks of each path; sets *kernel to the name of the kernel the path
 * dispatches to. */
static int check_path(const tl_tensor *a, const tl_tensor *b, const char **kernel,
                      int *nbatch, int64_t *batch, tl_error *err)
{
    int da = a->ndim, db = b->ndim;
    *nbatch = 0;
    if (da == 1 && db == 1) {
        *kernel = "dot";
        if (a->sizes[0] != b->sizes[0])
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "inconsistent tensor size, expected tensor [%lld] and src [%lld] to have the same number of elements, but got %lld and %lld elements respectively",
                                (long long)a->sizes[0], (long long)b->sizes[0],
                                (long long)a->sizes[0], (long long)b->sizes[0]);
        return 0;
    }
    if (da == 2 && db == 1) {
        *kernel = "addmv_impl_cpu";
        if (a->sizes[1] != b->sizes[0]) /* at::mv's check */
            return mv_error(err, a->sizes[0], a->sizes[1], b->sizes[0]);
        return 0;
    }
    if (da <= 2 && db == 2) {
        *kernel = "addmm_impl_cpu_";
        int64_t n = da == 2 ? a->sizes[0] : 1, k = a->sizes[da - 1];
        if (k != b->sizes[0])
            return mm_error(err, n, k, b->sizes[0], b->sizes[1]);
        return 0;
    }
    if (should_fold(a, b)) {
        bool transpose = db > da;
        /* t1: the larger operand (b.mT() when transposed), folded to
         * (F, K); t2: the other one (a.t() for a 2-D a when transposed) */
        const tl_tensor *big = transpose ? b : a, *small = transpose ? a : b;
        int nb = big->ndim;
        int64_t r = big->sizes[nb - 2], c = big->sizes[nb - 1];
        if (transpose) {
            int64_t x = r; r = c; c = x;
        }
        int64_t F = prod(nb - 2, big->sizes);
        if (tl_mul_overflow(F, r, &F))
            F = INT64_MAX;
        *nbatch = nb - 2;
        memcpy(batch, big->sizes, sizeof(int64_t) * (size_t)(nb - 2));
        if (small->ndim == 2) {
            *kernel = "addmm_impl_cpu_";
            int64_t r2 = small->sizes[0], c2 = small->sizes[1];
            if (transpose) {
                int64_t x = r2; r2 = c2; c2 = x;
            }
            if (c != r2)
                return mm_error(err, F, c, r2, c2);
        } else {
            *kernel = "addmv_impl_cpu";
            if (c != small->sizes[0])
                return mv_error(err, F, c, small->sizes[0]);
        }
        return 0;
    }
    /* broadcast batches, then bmm */
    *kernel = "bmm";
    int64_t n = da > 1 ? a->sizes[da - 2] : 1, m1 = a->sizes[da - 1];
    int64_t m2 = db > 1 ? b->sizes[db - 2] : b->sizes[0];
    int na = da > 2 ? da - 2 : 0, nbb = db > 2 ? db - 2 : 0;
    int nout = na > nbb ? na : nbb;
    for (int i = nout - 1; i >= 0; i--) {
        int off = nout - 1 - i;
        int ia = na - 1 - off, ib = nbb - 1 - off;
        int64_t sa = ia >= 0 ? a->sizes[ia] : 1, sb = ib >= 0 ? b->sizes[ib] : 1;
        if (!(sa == sb || sa == 1 || sb == 1))
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d",
                                (long long)sa, (long long)sb, i);
        batch[i] = sa == 1 ? sb : sa;
    }
    *nbatch = nout;
    (void)n;
    if (m1 != m2) {
        int64_t B = prod(nout, batch);
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "Expected size for first two dimensions of batch2 tensor to be: [%lld, %lld] but got: [%lld, %lld].",
                            (long long)B, (long long)m1, (long long)B, (long long)m2);
    }
    return 0;
}

/* op as a batch of matrices over the output batch (nb dims). vec_as_row:
 * a 1-D operand is a 1 x k row (left side) or a k x 1 column (right). */
static void make_op(const tl_tensor *t, bool left, int nb, const int64_t *batch, mmop *o)
{
    memset(o, 0, sizeof *o);
    int d = t->ndim;
    if (d == 1) {
        o->rows = left ? 1 : t->sizes[0];
        o->cols = left ? t->sizes[0] : 1;
        o->rst = left ? 0 : t->strides[0];
        o->cst = left ? t->strides[0] : 0;
    } else {
        o->rows = t->sizes[d - 2];
        o->cols = t->sizes[d - 1];
        o->rst = t->strides[d - 2];
        o->cst = t->strides[d - 1];
    }
    int tb = d > 2 ? d - 2 : 0;
    for (int i = 0; i < nb; i++) {
        int j = i - (nb - tb);
        o->bst[i] = j < 0 || t->sizes[j] == 1 || batch[i] == 1 ? 0 : t->strides[j];
    }
    o->offset = t->offset;
    o->dt = t->dtype;
}

static int host_bytes(const tl_tensor *t, mmop *o, tl_error *err)
{
    const tl_backend *be = tl_tensor_backend(t);
    if (tl_backend_host_accessible(be)) {
        o->base = t->storage->data;
        return 0;
    }
    size_t n = t->storage->nbytes;
    o->owned = malloc(n ? n : 1);
    if (!o->owned)
        return tl_error_set(err, TL_ERR_LIMIT, "matmul: out of memory for a host copy");
    if (n && tl_backend_to_host(be, o->owned, t->storage->data, n, err) < 0)
        return -1;
    o->base = o->owned;
    return 0;
}

/* work units (elements or multiply-adds) since the last deadline poll;
 * -1 with the limit error once the op's deadline or the sheet's budget
 * has passed */
static int poll(int64_t *since, int64_t work, tl_error *err)
{
    *since += work;
    if (*since < TL_DEADLINE_POLL)
        return 0;
    *since = 0;
    return tl_context_deadline_check(err);
}

/* gather block (rows x cols) at element offset off into dense scratch */
static int gather(const mmop *o, int64_t off, bool isf, double *fd, int64_t *id,
                  int64_t *since, tl_error *err)
{
    size_t isz = tl_dtype_size(o->dt);
    int64_t q = 0;
    for (int64_t r = 0; r < o->rows; r++) {
        for (int64_t c = 0; c < o->cols; c++, q++) {
            const char *p = o->base + (size_t)(off + r * o->rst + c * o->cst) * isz;
            if (isf)
                fd[q] = tl_dtype_load_f64(o->dt, p);
            else
                id[q] = tl_dtype_load_i64(o->dt, p);
        }
        if (poll(since, o->cols + 1, err) < 0)
            return -1;
    }
    return 0;
}

static tl_tensor *compute(const tl_tensor *a, const tl_tensor *b, int nb, const int64_t *batch,
                          int ond, const int64_t *osz, tl_error *err)
{
    mmop A, B;
    make_op(a, true, nb, batch, &A);
    make_op(b, false, nb, batch, &B);
    int64_t n = A.rows, k = A.cols, m = B.cols;
    int64_t nbatch = prod(nb, batch);
    tl_tensor *out = tl_tensor_new(tl_tensor_backend(a), a->dtype, ond, osz, err);
    if (!out)
        return NULL;
    int64_t onumel = tl_tensor_numel(out);
    if (onumel == 0)
        return out;
    /* scratch: the two blocks and one result block, 8 bytes an element */
    int64_t sa, sb, sc, tot;
    if (tl_mul_overflow(n, k, &sa) || tl_mul_overflow(k, m, &sb) || tl_mul_overflow(n, m, &sc) ||
        tl_add_overflow(sa, sb, &tot) || tl_add_overflow(tot, sc, &tot) ||
        (uint64_t)tot > tl_alloc_limit() / 8) {
        tl_tensor_release(out);
        tl_error_set(err, TL_ERR_LIMIT, "matmul needs more scratch memory than the limit "
                     "on live storage (tlab limit)");
        return NULL;
    }
    bool isf = tl_dtype_is_floating(a->dtype);
    char *obuf = NULL;
    const tl_backend *obe = tl_tensor_backend(out);
    bool ohost = tl_backend_host_accessible(obe);
    size_t isz = tl_dtype_size(out->dtype);
    double *fd = NULL;
    int64_t *id = NULL;
    int rc = -1;
    if (host_bytes(a, &A, err) < 0 || host_bytes(b, &B, err) < 0)
        goto done;
    obuf = ohost ? tl_tensor_addr(out) : malloc((size_t)onumel * isz);
    if (!obuf) {
        tl_error_set(err, TL_ERR_LIMIT, "matmul: out of memory for the result");
        goto done;
    }
    if (isf)
        fd = malloc(sizeof(double) * (size_t)(tot > 0 ? tot : 1));
    else
        id = malloc(sizeof(int64_t) * (size_t)(tot > 0 ? tot : 1));
    if (!fd && !id) {
        tl_error_set(err, TL_ERR_LIMIT, "matmul: out of memory for scratch");
        goto done;
    }
    int64_t bi[TL_MAX_DIMS] = {0};
    int64_t q = 0;
    int64_t since = 0; /* work since the last deadline poll */
    /* float32/float64 on a backend with a gemm (the CPU's blocked kernel,
     * cpu_loops.c): each batch element straight from the operands' memory
     * into the result, no scratch; the loop below is the general path */
    if (isf && ohost && tl_backend_host_accessible(tl_tensor_backend(a)) &&
        tl_backend_host_accessible(tl_tensor_backend(b)) &&
        a->dtype == b->dtype && (a->dtype == TL_FLOAT32 || a->dtype == TL_FLOAT64)) {
        int served = 1;
        for (int64_t e = 0; e < nbatch && served == 1; e++) {
            int64_t aoff = A.offset, boff = B.offset;
            for (int i = 0; i < nb; i++) {
                aoff += bi[i] * A.bst[i];
                boff += bi[i] * B.bst[i];
            }
            int64_t asz[2] = {n, k}, ast[2] = {A.rst, A.cst};
            int64_t bsz[2] = {k, m}, bst[2] = {B.rst, B.cst};
            int64_t csz[2] = {n, m}, cst[2] = {m, 1};
            tl_strided sa_ = {(char *)A.base + (size_t)aoff * isz, a->dtype, 2, asz, ast};
            tl_strided sb_ = {(char *)B.base + (size_t)boff * isz, b->dtype, 2, bsz, bst};
            tl_strided sc_ = {obuf + (size_t)(e * n * m) * isz, out->dtype, 2, csz, cst};
            served = tl_backend_gemm(obe, &sc_, &sa_, &sb_, err);
            for (int i = nb - 1; i >= 0; i--) {
                if (++bi[i] < batch[i])
                    break;
                bi[i] = 0;
            }
        }
        if (served < 0)
            goto done;
        if (served == 1) {
            rc = 0;
            goto done;
        }
        memset(bi, 0, sizeof bi); /* not served: start over below */
    }
    for (int64_t e = 0; e < nbatch; e++) {
        int64_t aoff = A.offset, boff = B.offset;
        for (int i = 0; i < nb; i++) {
            aoff += bi[i] * A.bst[i];
            boff += bi[i] * B.bst[i];
        }
        if (isf) {
            double *ab = fd, *bb = fd + sa, *cb = fd + sa + sb;
            if (gather(&A, aoff, true, ab, NULL, &since, err) < 0 ||
                gather(&B, boff, true, bb, NULL, &since, err) < 0)
                goto done;
            memset(cb, 0, sizeof(double) * (size_t)sc);
            for (int64_t i = 0; i < n; i++)
                for (int64_t l = 0; l < k; l++) {
                    double av = ab[i * k + l];
                    const double *br = bb + l * m;
                    double *cr = cb + i * m;
                    for (int64_t j = 0; j < m; j++)
                        cr[j] += av * br[j];
                    if (poll(&since, m + 1, err) < 0)
                        goto done;
                }
            for (int64_t i = 0; i < sc; i++, q++) {
                tl_dtype_store_f64(out->dtype, obuf + (size_t)q * isz, cb[i]);
                if (poll(&since, 1, err) < 0)
                    goto done;
            }
        } else {
            int64_t *ab = id, *bb = id + sa, *cb = id + sa + sb;
            if (gather(&A, aoff, false, NULL, ab, &since, err) < 0 ||
                gather(&B, boff, false, NULL, bb, &since, err) < 0)
                goto done;
            memset(cb, 0, sizeof(int64_t) * (size_t)sc);
            for (int64_t i = 0; i < n; i++)
                for (int64_t l = 0; l < k; l++) {
                    uint64_t av = (uint64_t)ab[i * k + l];
                    const int64_t *br = bb + l * m;
                    int64_t *cr = cb + i * m;
                    for (int64_t j = 0; j < m; j++)
                        cr[j] = (int64_t)((uint64_t)cr[j] + av * (uint64_t)br[j]);
                    if (poll(&since, m + 1, err) < 0)
                        goto done;
                }
            for (int64_t i = 0; i < sc; i++, q++) {
                tl_dtype_store_i64(out->dtype, obuf + (size_t)q * isz, cb[i]);
                if (poll(&since, 1, err) < 0)
                    goto done;
            }
        }
        for (int i = nb - 1; i >= 0; i--) {
            if (++bi[i] < batch[i])
                break;
            bi[i] = 0;
        }
    }
    if (!ohost && tl_backend_from_host(obe, out->storage->data, obuf, (size_t)onumel * isz, err) < 0)
        goto done;
    rc = 0;
done:
    free(fd);
    free(id);
    free(A.owned);
    free(B.owned);
    if (!ohost)
        free(obuf);
    if (rc < 0) {
        tl_tensor_release(out);
        return NULL;
    }
    return out;
}

tl_tensor *tl_matmul(const tl_tensor *a, const tl_tensor *b, bool mm_only, bool bmm_only,
                     tl_error *err)
{
    if (mm_only && (a->ndim != 2 || b->ndim != 2)) {
        tl_error_set(err, TL_ERR_RUNTIME, "%s must be a matrix", a->ndim != 2 ? "self" : "mat2");
        return NULL;
    }
    if (bmm_only && (a->ndim != 3 || b->ndim != 3)) {
        tl_error_set(err, TL_ERR_RUNTIME, "batch%d must be a 3D tensor", a->ndim != 3 ? 1 : 2);
        return NULL;
    }
    if (a->ndim == 0 || b->ndim == 0) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "both arguments to matmul need to be at least 1D, but they are %dD and %dD",
                     a->ndim, b->ndim);
        return NULL;
    }
    if (a->dtype != b->dtype) {
        tl_error_set(err, TL_ERR_RUNTIME, "expected scalar type %s but found %s",
                     tl_dtype_scalar_name(a->dtype), tl_dtype_scalar_name(b->dtype));
        return NULL;
    }
    const char *kernel = "bmm";
    int nb = 0;
    int64_t batch[TL_MAX_DIMS];
    if (bmm_only) {
        if (a->sizes[0] != b->sizes[0] || a->sizes[2] != b->sizes[1]) {
            tl_error_set(err, TL_ERR_RUNTIME,
                         "Expected size for first two dimensions of batch2 tensor to be: [%lld, %lld] but got: [%lld, %lld].",
                         (long long)a->sizes[0], (long long)a->sizes[2], (long long)b->sizes[0],
                         (long long)b->sizes[1]);
            return NULL;
        }
        nb = 1;
        batch[0] = a->sizes[0];
    } else if (check_path(a, b, &kernel, &nb, batch, err) < 0) {
        return NULL;
    }
    /* the mm/mv/bmm kernels return early for an empty result or an empty
     * contraction, before dispatching on the dtype; dot does not */
    int64_t kdim = a->sizes[a->ndim - 1];
    bool empty = kdim == 0 || (a->ndim > 1 && a->sizes[a->ndim - 2] == 0) ||
                 (b->ndim > 1 && b->sizes[b->ndim - 1] == 0);
    for (int i = 0; i < nb; i++)
        empty |= batch[i] == 0;
    if (a->dtype == TL_BOOL && (!empty || strcmp(kernel, "dot") == 0)) {
        bool_error(kernel, err);
        return NULL;
    }
    /* the batch of the compute is the broadcast of both operands' batch
     * dims (the folded paths give the same numbers in the same order) */
    int na = a->ndim > 2 ? a->ndim - 2 : 0, nbb = b->ndim > 2 ? b->ndim - 2 : 0;
    nb = na > nbb ? na : nbb;
    for (int i = 0; i < nb; i++) {
        int ia = i - (nb - na), ib = i - (nb - nbb);
        int64_t sa = ia >= 0 ? a->sizes[ia] : 1, sb = ib >= 0 ? b->sizes[ib] : 1;
        batch[i] = sa == 1 ? sb : sa;
    }
    int64_t osz[TL_MAX_DIMS];
    int ond = 0;
    for (int i = 0; i < nb; i++)
        osz[ond++] = batch[i];
    if (a->ndim > 1)
        osz[ond++] = a->sizes[a->ndim - 2];
    if (b->ndim > 1)
        osz[ond++] = b->sizes[b->ndim - 1];
    return compute(a, b, nb, batch, ond, osz, err);
}
