/* cpu_loops.h - typed inner loops for the CPU backend's hot paths.
 *
 * backend_cpu.c's generic kernels move every element through a double or
 * int64 carrier and one load and one store call. The entry points here
 * serve the common layouts at memory speed and give bit-identical results
 * (float sums and means too: both follow reduce_order.h's order). Each returns 1 when it did the work, 0 when the
 * case is not one it serves (nothing was written; the caller then runs the
 * generic kernel), and -1 with err filled when the op's deadline passed.
 * None allocates from the heap.
 *
 * Operands are backend.h's tl_strided descriptors: strides in elements,
 * PyTorch dimension order, `data` at logical element [0, ..., 0].
 */
#ifndef TL_CPU_LOOPS_H
#define TL_CPU_LOOPS_H

#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst[i] = (dst.dtype) src[i]: memcpy runs, typed conversion loops for every
 * dtype pair (float32 -> float16 with F16C where the CPU has it), and
 * cache-blocked tiles when the inner strides of dst and src differ. */
int tl_cpu_loops_copy(const tl_strided *dst, const tl_strided *src, tl_error *err);

/* dst = a OP b for ADD/SUB/MUL/DIV (DIV on floating types only),
 * MAXIMUM/MINIMUM on floats, when dst, a, b and compute share one dtype of
 * float32, float64, int32 or int64. */
int tl_cpu_loops_binary(tl_binop op, tl_dtype compute, const tl_strided *dst,
                        const tl_strided *a, const tl_strided *b, tl_error *err);

/* SUM/MEAN of float32/float64 (compute == src == dst dtype) over the dims
 * in reduce_mask, when the reduced elements of each output form one strided
 * run or the reduced dims are outside contiguous kept ones. */
int tl_cpu_loops_reduce(tl_redop op, tl_dtype compute, const tl_strided *dst,
                        const tl_strided *src, uint64_t reduce_mask, tl_error *err);

/* dst[..., k, ...] = src[..., index[k], ...] for same-dtype operands whose
 * other dims are absent (1-d gather) or contiguous; indices in range. */
int tl_cpu_loops_index_select(const tl_strided *dst, const tl_strided *src,
                              int dim, const int64_t *index, int64_t n_index, tl_error *err);

/* C = A @ B for 2-d float32/float64 operands (any strides), C (m, n)
 * written whole: blocked, with packed panels. Accumulates in the dtype. */
int tl_cpu_loops_gemm(const tl_strided *c, const tl_strided *a,
                      const tl_strided *b, tl_error *err);

/* The fast paths are on by default; tests/check_cpu_loops turns them off
 * (per thread) to compare every fast path with the generic kernel. */
void tl_cpu_loops_set_enabled(bool on);
bool tl_cpu_loops_enabled(void);

#ifdef __cplusplus
}
#endif

#endif
