/* backend.h - the device backend interface (v2): what the runtime asks of a
 * device, in ggml's shape. Backends implement backend_impl.h; everything
 * else calls the tl_backend_* functions below and never sees the vtable.
 *
 * The handle. A tl_backend is opaque: {name, device, capability flags, ops
 * table, instance data}. Handles are long-lived (process-wide, never freed
 * by callers) and may be shared by threads: per-thread state (counters, the
 * ledger) lives in the thread's context (context.h), not in the handle.
 *   name    "cpu", "cuda", "cuda-emulated"
 *   device  {TL_DEV_CPU, 0} or {TL_DEV_CUDA, ordinal}
 *   caps    TL_BACKEND_CAP_* below. Callers test capabilities, never the
 *           name: "may host code dereference this device's pointers?" is
 *           TL_BACKEND_CAP_HOST_MEMORY, not "is it the emulated device?".
 *
 * Memory. Device pointers come from tl_backend_alloc (zeroed) and go back
 * through tl_backend_free of the same backend. Only a backend with
 * TL_BACKEND_CAP_HOST_MEMORY hands out pointers the host may read or
 * write; for any other, host code moves bytes with tl_backend_to_host /
 * tl_backend_from_host only. Storages own device memory (storage.h).
 *
 * Kernels. Operands are tl_strided descriptors: a device address of the
 * logical element [0,...,0] (the storage offset already applied), a dtype,
 * sizes and strides IN ELEMENTS (not bytes, unlike ggml), in PyTorch's dim
 * order (dim 0 outermost, the last dim fastest for a contiguous tensor),
 * already broadcast to the output's shape (broadcast dims carry stride 0).
 * Descriptors, index arrays and the scalar are host memory owned by the
 * caller for the duration of the call; the data they point at is device
 * memory of the backend called. Kernels compute in double for floating
 * compute dtypes and int64 for integral/bool ones; inputs are converted on
 * load, results rounded to the compute dtype, then to the output's dtype.
 *
 * Errors. Every entry returns 0 or -1 with err filled: PyTorch's error
 * (TL_ERR_RUNTIME, e.g. "ZeroDivisionError", "\"lshift_cuda\" not
 * implemented for 'Float'"; kernel names follow the device) or
 * TL_ERR_INTERNAL for a device failure or a malformed descriptor. A
 * device may report an asynchronous error at a later entry or at
 * tl_backend_sync.
 *
 * Optional entries (marked in backend_impl.h) have a host fallback here:
 * a backend that lacks them still works, at the cost of host round trips
 * (counted below, so tests see them).
 *
 * Counters. Every call through this interface is counted per thread and per
 * device kind: kernel launches, and bytes host->device, device->host and
 * device->device. Tests assert e.g. that x.t().contiguous() on the cuda
 * device moved no byte through the host.
 *
 * The CPU backend (backend_cpu.c) is always present. "cuda-emulated" is the
 * GPU backend of cuda/ on a host grid simulator (SPEC 8), used when no GPU
 * runs.
 * The real CUDA backend lives in cuda/ and is reached only through
 * tl_backend_cuda() below (cuda/cuda_stub.c in a build without nvcc).
 */
#ifndef TL_BACKEND_H
#define TL_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "context.h"
#include "dtype.h"
#include "err.h"
#include "scalar_defs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TL_MAX_DIMS 64

typedef struct tl_strided {
    void *data;             /* device address of logical element [0,...,0] */
    tl_dtype dtype;
    int ndim;
    const int64_t *sizes;   /* ndim entries */
    const int64_t *strides; /* ndim entries, in elements, may be 0 */
} tl_strided;

typedef enum tl_binop {
    TL_BIN_ADD, TL_BIN_SUB, TL_BIN_MUL, TL_BIN_DIV, TL_BIN_FLOORDIV,
    TL_BIN_REMAINDER, TL_BIN_FMOD, TL_BIN_POW, TL_BIN_MAXIMUM, TL_BIN_MINIMUM,
    TL_BIN_ATAN2, TL_BIN_EQ, TL_BIN_NE, TL_BIN_LT, TL_BIN_LE, TL_BIN_GT,
    TL_BIN_GE, TL_BIN_LOGICAL_AND, TL_BIN_LOGICAL_OR, TL_BIN_LOGICAL_XOR,
    TL_BIN_BITAND, TL_BIN_BITOR, TL_BIN_BITXOR, TL_BIN_LSHIFT, TL_BIN_RSHIFT,
    TL_BIN_COPY_RHS, /* out = b (used for broadcasting assignment) */
    TL_NBINOPS
} tl_binop;

/* TL_UN_NEG ... TL_UN_IDENTITY: the one list in scalar_defs.h */
#define TL_UN_CODE(NAME) TL_UN_##NAME,
typedef enum tl_unop {
    TL_SD_UNOPS(TL_UN_CODE)
    TL_NUNOPS
} tl_unop;

typedef enum tl_redop {
    TL_RED_SUM, TL_RED_PROD, TL_RED_MEAN, TL_RED_MAX, TL_RED_MIN,
    TL_RED_ARGMAX, TL_RED_ARGMIN, TL_RED_ALL, TL_RED_ANY, TL_NREDOPS
} tl_redop;

/* scatter: dst[idx] = src, dst[idx] += src, or dst[idx] *= src (one
 * rounding per step in dst's dtype; bool: or, and; integers wrap) */
typedef enum tl_scatter_mode { TL_SCATTER_SET, TL_SCATTER_ADD, TL_SCATTER_MUL } tl_scatter_mode;

/* A scalar operand: exact int64 or double, as chosen by the op layer. */
typedef struct tl_scalar {
    bool is_float;
    double f;
    int64_t i;
} tl_scalar;

/* The opaque handle. */
typedef struct tl_backend tl_backend;

/* Capability flags (tl_backend_caps). */
enum {
    /* device pointers are host addresses: host code may read and write
     * them directly (the CPU; today's emulated device) */
    TL_BACKEND_CAP_HOST_MEMORY = 1u << 0,
    /* tl_backend_host_alloc returns page-locked memory (cudaHostAlloc);
     * without it, it returns ordinary host memory */
    TL_BACKEND_CAP_PINNED = 1u << 1,
    /* the tl_backend_index_* entries below: advanced indexing computes its
     * offsets on the device (no index byte crosses to the host) */
    TL_BACKEND_CAP_DEVICE_INDEX = 1u << 2,
};

const char *tl_backend_name(const tl_backend *be);
tl_device tl_backend_device(const tl_backend *be);
unsigned tl_backend_caps(const tl_backend *be);
bool tl_backend_host_accessible(const tl_backend *be); /* CAP_HOST_MEMORY */

/* ---- memory ----------------------------------------------------------- */

/* *out = nbytes of zeroed device memory (NULL when nbytes == 0). -1 with a
 * RuntimeError (PyTorch's allocator wording for the device) when the
 * device cannot supply it; nothing is charged to the ledger here
 * (storage.c does that). */
/* Like tl_backend_alloc, but the bytes are undefined (the CPU's malloc):
 * only for memory a kernel writes whole before anyone reads it. */
int tl_backend_alloc_uninit(const tl_backend *be, size_t nbytes, void **out,
                            tl_error *err);
/* c = a @ b (2-d, float32/float64, one dtype, any strides): 1 done, 0 not
 * served by this backend (compute it another way), -1 on failure. */
int tl_backend_gemm(const tl_backend *be, const tl_strided *c,
                    const tl_strided *a, const tl_strided *b, tl_error *err);
int tl_backend_alloc(const tl_backend *be, size_t nbytes, void **out,
                     tl_error *err);
void tl_backend_free(const tl_backend *be, void *p); /* NULL is a no-op */
/* Raw byte transfers. host_dst/host_src are host memory. */
int tl_backend_to_host(const tl_backend *be, void *host_dst,
                       const void *dev_src, size_t n, tl_error *err);
int tl_backend_from_host(const tl_backend *be, void *dev_dst,
                         const void *host_src, size_t n, tl_error *err);
/* Raw bytes within this device; the two ranges must not overlap. */
int tl_backend_copy_d2d(const tl_backend *be, void *dev_dst,
                        const void *dev_src, size_t n, tl_error *err);
/* Wait for the device's queued work; surfaces asynchronous errors. */
int tl_backend_sync(const tl_backend *be, tl_error *err);
/* Host memory for staging transfers: pinned when the backend has
 * TL_BACKEND_CAP_PINNED, ordinary (calloc) otherwise. Zeroed. */
int tl_backend_host_alloc(const tl_backend *be, size_t nbytes, void **out,
                          tl_error *err);
void tl_backend_host_free(const tl_backend *be, void *p);

/* ---- kernels ---------------------------------------------------------- */

/* dst[i] = (dst.dtype) src[i]; any dtype pair; src already broadcast to
 * dst's shape. dst must not overlap src except exactly (same address and
 * strides). */
int tl_backend_copy_strided(const tl_backend *be, const tl_strided *dst,
                            const tl_strided *src, tl_error *err);
/* dst[i] = v (converted to dst.dtype). */
int tl_backend_fill(const tl_backend *be, const tl_strided *dst, tl_scalar v,
                    tl_error *err);
/* dst[i] = a[i] OP b[i], computed in `compute`, stored in dst's dtype.
 * Integer division/remainder by zero: -1, RuntimeError "ZeroDivisionError". */
int tl_backend_binary(const tl_backend *be, tl_binop op, tl_dtype compute,
                      const tl_strided *dst, const tl_strided *a,
                      const tl_strided *b, tl_error *err);
/* dst[i] = OP(src[i]) computed in `compute`. */
int tl_backend_unary(const tl_backend *be, tl_unop op, tl_dtype compute,
                     const tl_strided *dst, const tl_strided *src,
                     tl_error *err);
/* dst[i] = cond[i] ? a[i] : b[i] (cond read as bool). */
int tl_backend_where(const tl_backend *be, const tl_strided *dst,
                     const tl_strided *cond, const tl_strided *a,
                     const tl_strided *b, tl_error *err);
/* Gather along dim: dst has src's shape except dst.sizes[dim] == n_index;
 * dst[..., k, ...] = src[..., index[k], ...]. index is HOST memory, already
 * bounds-checked and wrapped (0 <= index[k] < src.sizes[dim]). */
int tl_backend_gather(const tl_backend *be, const tl_strided *dst,
                      const tl_strided *src, int dim, const int64_t *index,
                      int64_t n_index, tl_error *err);
/* Scatter along dim, the inverse: src has dst's shape except
 * src.sizes[dim] == n_index; dst[..., index[k], ...] = (or +=)
 * src[..., k, ...]. index is HOST memory, checked and wrapped. Duplicates
 * are deterministic and in the CPU's order: k ascending, so with SET the
 * last k wins and with ADD the sums accumulate in k order. */
int tl_backend_scatter(const tl_backend *be, tl_scatter_mode mode,
                       const tl_strided *dst, const tl_strided *src, int dim,
                       const int64_t *index, int64_t n_index, tl_error *err);
/* Reduce src over the dims flagged in reduce_mask (bit d) into dst, whose
 * shape is src's with the reduced dims set to 1 (keepdim layout). ARGMAX/
 * ARGMIN store the flat row-major index within the reduced sub-shape;
 * ties and NaN resolve to the first occurrence. */
int tl_backend_reduce(const tl_backend *be, tl_redop op, tl_dtype compute,
                      const tl_strided *dst, const tl_strided *src,
                      uint64_t reduce_mask, tl_error *err);
/* Sort every row of src along dim (stable: equal keys keep their order in
 * either direction; NaN is the largest value) and write the first k of
 * each row: vals (src's dtype) and idx (int64 positions along dim), both
 * of src's shape with size k at dim (any strides). topk is k < n. A 0-d
 * src is one row of one element (dim 0). */
int tl_backend_sort(const tl_backend *be, const tl_strided *vals,
                    const tl_strided *idx, const tl_strided *src, int dim,
                    bool descending, int64_t k, tl_error *err);
/* Cumulative sum (prod false) or product along dim (ndim >= 1): dst[..., j,
 * ...] = the sum/product of src[..., 0..j, ...], accumulated sequentially
 * in PyTorch's CPU accumulate type (float for float16/bfloat16, double for
 * float32/float64, wrapping int64 for integers; bool is refused), every
 * partial result rounded to the dtype. dst and src: one dtype and shape;
 * they may be the same memory (exactly). */
int tl_backend_scan(const tl_backend *be, bool prod, const tl_strided *dst,
                    const tl_strided *src, int dim, tl_error *err);

/* ---- advanced indexing on the device (TL_BACKEND_CAP_DEVICE_INDEX) ----
 * x[i0, i1] and x[i0, i1] = v for a device x and device index tensors
 * (index.c): the per-position element offsets are computed by a kernel and
 * stay in device memory; gather and scatter read them there. The only host
 * traffic is one 8-byte status word (and, when an index is out of bounds,
 * the few bytes that name it). */

#define TL_BACKEND_MAX_DEVICE_INDICES 3

/* One index tensor of an advanced index: idx is device memory (int64 or
 * int32) already broadcast to the index shape (sizes = that shape, stride 0
 * along broadcast dims); it indexes a dim of `size` elements that steps
 * `stride` elements. */
typedef struct tl_adv_index {
    tl_strided idx;
    int64_t size, stride;
    bool no_wrap;   /* negative values are out of bounds (index_select) */
    /* not an index: the term is the position's coordinates . idx.strides
     * (elements; idx.data, dtype, size and stride are ignored): the
     * other dims of torch.gather */
    bool coords;
} tl_adv_index;

/* out[e] = sum_j wrap(ix[j].idx[e]) * ix[j].stride over the index shape in
 * row-major order, wrap(v) = v < 0 ? v + size : v (no_wrap: v < 0 is out of
 * bounds); out is device memory of
 * numel(shape) int64 (1 <= nidx <= TL_BACKEND_MAX_DEVICE_INDICES, all of
 * one shape). When some index lies
 * outside [-size, size): *bad_pos = e, *bad_j = j and *bad_value = its value
 * for the first such (e, j) in (e, then j) order, the order of PyTorch's
 * CPU check; else *bad_pos = -1. (The bound is [0, size) with no_wrap.) */
int tl_backend_index_offsets(const tl_backend *be, int64_t *out, int nidx,
                             const tl_adv_index *ix, int64_t *bad_pos,
                             int *bad_j, int64_t *bad_value, tl_error *err);
/* dst[..., k, ...] = the element of src at (the coordinates of dst except
 * dim) . src.strides + offs[k], k < n = dst.sizes[dim]; src.sizes equal
 * dst's except at dim (ignored, as is src.strides[dim]). offs: device
 * memory from tl_backend_index_offsets, every one in range of src. */
int tl_backend_index_gather(const tl_backend *be, const tl_strided *dst,
                            const tl_strided *src, int dim, const int64_t *offs,
                            int64_t n, tl_error *err);
/* The inverse, one element after another in src's row-major order (so
 * repeated targets resolve as the CPU's loop does: the last write wins, or
 * the sums accumulate in that order): dst's element at (the coordinates of
 * src except dim) . dst.strides + offs[k] = (or +=) src[..., k, ...]. */
int tl_backend_index_scatter(const tl_backend *be, tl_scatter_mode mode,
                             const tl_strided *dst, const tl_strided *src,
                             int dim, const int64_t *offs, int64_t n,
                             tl_error *err);

/* ---- per-thread counters ---------------------------------------------- */

/* tl_backend_counters is defined in context.h (the thread owns them):
 * launches, h2d_bytes, d2h_bytes, d2d_bytes. */

/* This thread's counters for devices of `kind` since the last reset. */
tl_backend_counters tl_backend_counters_get(tl_devkind kind);
void tl_backend_counters_reset(void);

/* ---- the backends ----------------------------------------------------- */

const tl_backend *tl_backend_cpu(void);
/* The emulated CUDA device, used when no GPU is present: the GPU backend
 * of cuda/ (cuda/backend_gpu.c) on its host grid simulator. Its pointers
 * are device addresses (no TL_BACKEND_CAP_HOST_MEMORY). Always built. */
const tl_backend *tl_backend_cuda_emulated(void);

/* The registered backends, for tests that run once per backend: the CPU,
 * the emulated CUDA device, then the real CUDA backend when one opened.
 * Returns how many (at most cap stored). */
int tl_backend_registry(const tl_backend **out, int cap);

/* Implemented in cuda/ (cuda/cuda_stub.c in a build without nvcc). The
 * first call opens the device; not thread-safe until it returned once
 * (tlab calls it before starting workers).
 *   tl_backend_cuda()        the real CUDA backend, or NULL: not built, no
 *                            usable GPU, or its kernels not written yet.
 *   tl_backend_cuda_probe()  the number of usable GPUs (0 when none), and
 *                            one line saying what was found or why not
 *                            ("not built", "built, no device (no CUDA
 *                            driver)", "built, 1 device (NAME, sm_90, ...)"),
 *                            the text of `tlab --version`. The string is
 *                            static; why may be NULL. */
const tl_backend *tl_backend_cuda(void);
int tl_backend_cuda_probe(const char **why);

/* ---- devices ---------------------------------------------------------- */

/* THE resolver: the backend that runs device `dev` in this thread (CPU:
 * the CPU backend; cuda:N: the context's CUDA backend). Factories, .to(),
 * .cuda(), .cpu(), indexing and copies all ask here. Without one:
 * AssertionError "Torch not compiled with CUDA enabled"; a wrong ordinal:
 * RuntimeError "CUDA error: invalid device ordinal". */
const tl_backend *tl_backend_for(tl_device dev, tl_error *err);

/* Copy src (already broadcast to dst's shape through src.strides) into
 * dst, each on its own backend: on one backend one kernel; across
 * devices one kernel on the source side into a dense staging block, one
 * transfer, one kernel on the destination side (dtype converted there).
 * The one cross-device copy of the runtime. */
int tl_backend_copy_between(const tl_backend *dbe, const tl_strided *dst,
                            const tl_backend *sbe, const tl_strided *src,
                            tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
