/* backend.h - the small vtable every device backend implements.
 *
 * View ops never call a backend: they only write tensor metadata. Copy ops
 * (ops.c, index.c) describe their operands as tl_strided descriptors, already
 * broadcast to the output shape (broadcast dims carry stride 0), and call one
 * of these entry points. Strides are in elements, PyTorch dimension order
 * (dim 0 outermost). `data` already includes the storage offset.
 *
 * The CPU backend (backend_cpu.c) is always present. The CUDA backend lives in
 * cuda/ and is reached only through tl_cuda_backend() (cuda/tl_cuda.h); a build
 * without nvcc links a stub that returns NULL. "cuda-emulated" is the CPU
 * kernels with device semantics (SPEC 8): tl_backend_cuda_emulated().
 *
 * All entry points return 0 or -1 (err filled, TL_ERR_INTERNAL for device
 * failures). Kernels compute in double for floating outputs and int64 for
 * integral/bool outputs; inputs are converted on load.
 */
#ifndef TL_BACKEND_H
#define TL_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "dtype.h"
#include "err.h"
#include "storage.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TL_MAX_DIMS 64

typedef struct tl_strided {
    void *data;             /* address of logical element [0,...,0] */
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

typedef enum tl_unop {
    TL_UN_NEG, TL_UN_ABS, TL_UN_SQRT, TL_UN_RSQRT, TL_UN_EXP, TL_UN_EXP2,
    TL_UN_EXPM1, TL_UN_LOG, TL_UN_LOG2, TL_UN_LOG10, TL_UN_LOG1P, TL_UN_SIN,
    TL_UN_COS, TL_UN_TAN, TL_UN_ASIN, TL_UN_ACOS, TL_UN_ATAN, TL_UN_SINH,
    TL_UN_COSH, TL_UN_TANH, TL_UN_SIGMOID, TL_UN_RELU, TL_UN_FLOOR, TL_UN_CEIL,
    TL_UN_ROUND, TL_UN_TRUNC, TL_UN_FRAC, TL_UN_SIGN, TL_UN_RECIPROCAL,
    TL_UN_SQUARE, TL_UN_LOGICAL_NOT, TL_UN_BITWISE_NOT, TL_UN_ISNAN,
    TL_UN_ISINF, TL_UN_ISFINITE, TL_UN_ERF, TL_UN_IDENTITY,
    TL_NUNOPS
} tl_unop;

typedef enum tl_redop {
    TL_RED_SUM, TL_RED_PROD, TL_RED_MEAN, TL_RED_MAX, TL_RED_MIN,
    TL_RED_ARGMAX, TL_RED_ARGMIN, TL_RED_ALL, TL_RED_ANY, TL_NREDOPS
} tl_redop;

/* A scalar operand: exact int64 or double, as chosen by the op layer. */
typedef struct tl_scalar {
    bool is_float;
    double f;
    int64_t i;
} tl_scalar;

typedef struct tl_backend {
    const char *name;   /* "cpu", "cuda", "cuda-emulated" */
    tl_device device;
    bool emulated;      /* host memory with device semantics */

    /* memory management: zeroed allocation; NULL if it fails (no abort) */
    void *(*alloc)(size_t nbytes);
    void (*free)(void *p);
    /* raw byte copies between this device and the host */
    int (*to_host)(void *host_dst, const void *dev_src, size_t n, tl_error *err);
    int (*from_host)(void *dev_dst, const void *host_src, size_t n, tl_error *err);

    /* dst[i] = (dst.dtype) src[i]; src already broadcast to dst's shape */
    int (*copy_strided)(const tl_strided *dst, const tl_strided *src,
                        tl_error *err);
    /* dst[i] = v */
    int (*fill)(const tl_strided *dst, tl_scalar v, tl_error *err);
    /* dst[i] = a[i] OP b[i]; computes in `compute` dtype, stores in dst's */
    int (*binary)(tl_binop op, tl_dtype compute, const tl_strided *dst,
                  const tl_strided *a, const tl_strided *b, tl_error *err);
    /* dst[i] = OP(src[i]) computed in `compute` dtype */
    int (*unary)(tl_unop op, tl_dtype compute, const tl_strided *dst,
                 const tl_strided *src, tl_error *err);
    /* dst[i] = cond[i] ? a[i] : b[i] */
    int (*where)(const tl_strided *dst, const tl_strided *cond,
                 const tl_strided *a, const tl_strided *b, tl_error *err);
    /* Gather along dim: dst has src's shape except dst.sizes[dim] ==
     * n_index; dst[..., k, ...] = src[..., index[k], ...]. index is host
     * memory, already bounds-checked and wrapped. */
    int (*index_select)(const tl_strided *dst, const tl_strided *src, int dim,
                        const int64_t *index, int64_t n_index, tl_error *err);
    /* Reduce src over the dims flagged in `reduce_mask` (bit d) into dst,
     * whose shape is src's with reduced dims set to 1 (keepdim layout). */
    int (*reduce)(tl_redop op, tl_dtype compute, const tl_strided *dst,
                  const tl_strided *src, uint64_t reduce_mask, tl_error *err);
} tl_backend;

const tl_backend *tl_backend_cpu(void);
/* Host memory, CUDA device semantics; used when no GPU is present. */
const tl_backend *tl_backend_cuda_emulated(void);
/* The real CUDA backend is declared in cuda/tl_cuda.h (plain C, no CUDA
 * types): tl_cuda_backend() returns it, or NULL when not built / no GPU. */

#ifdef __cplusplus
}
#endif

#endif
