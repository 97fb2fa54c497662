/* backend_gpu.h - the CUDA backend's host side (backend_gpu.c), written once
 * against the device API of dev.h: the simulator gives the emulated device
 * ("cuda-emulated"), the CUDA implementation the real one ("cuda").
 *
 * Ownership: the backends are static and live for the whole process.
 * Counters are per thread (each grading thread counts its own transfers).
 */
#ifndef TL_BACKEND_GPU_H
#define TL_BACKEND_GPU_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "dev.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The GPU backend on the simulator (always available). */
const tl_backend *tl_gpu_backend_sim(void);
/* The GPU backend on CUDA; NULL when not built or no usable GPU. */
const tl_backend *tl_gpu_backend_cuda(void);
/* The device API under a GPU backend, NULL for any other backend. */
const tl_dev *tl_gpu_backend_dev(const tl_backend *be);

/* Per-thread transfer and launch counters of the GPU backends. "Host"
 * bytes are those that crossed between host and device memory; `ctl_d2h`
 * counts the 4-byte status flags read back after integer divisions. */
typedef struct tl_gpu_counters {
    uint64_t launches;
    uint64_t h2d_bytes, d2h_bytes, d2d_bytes;
    uint64_t h2d_calls, d2h_calls;
    uint64_t ctl_d2h_bytes;
    uint64_t memsets;
} tl_gpu_counters;

void tl_gpu_counters_get(tl_gpu_counters *out);
void tl_gpu_counters_reset(void);

/* Scatter into dst (a device tensor described by `dst`, whose element byte
 * offsets from dst->data are doffs[0..n)): element j receives vals[j]
 * (vals: a strided device operand with n elements in row-major order).
 * accumulate: dst[doffs[j]] += vals[j], else =. Duplicates are resolved on
 * the host in the CPU's order (the last assignment wins; additions happen
 * in order). doffs is host memory. */
int tl_gpu_scatter(const tl_backend *be, const tl_strided *dst,
                   const int64_t *doffs, int64_t n, const tl_strided *vals,
                   bool accumulate, tl_dtype compute, tl_error *err);

/* Stable sort (or topk: the first k of the order) along `dim` of src into
 * values (src's dtype) and indices (int64), both shaped like src with
 * sizes[dim] == k. NaN is the largest value. */
int tl_gpu_sort(const tl_backend *be, const tl_strided *values,
                const tl_strided *indices, const tl_strided *src, int dim,
                int64_t k, bool descending, tl_error *err);

/* Sticky device failure: once set, every later call fails fast with an
 * internal error (exit 3). The message names the first failure. */
bool tl_gpu_poisoned(void);

#ifdef __cplusplus
}
#endif

#endif
