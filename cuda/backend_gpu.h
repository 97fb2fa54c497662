/* backend_gpu.h - the CUDA backend's host side (backend_gpu.c), written once
 * against the device API of dev.h: the simulator gives the emulated device
 * ("cuda-emulated"), the CUDA implementation the real one ("cuda").
 *
 * The emulated handle is also the runtime's tl_backend_cuda_emulated()
 * (backend.h), defined here. Ownership: the backends are static and live
 * for the whole process; counters are the runtime's (context.h).
 */
#ifndef TL_BACKEND_GPU_H
#define TL_BACKEND_GPU_H

#include <stdbool.h>
#include <stdint.h>

#include "backend_impl.h"
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

/* Can operand 0 of a merged launch descriptor map two work items to one
 * byte (a self-overlapping destination)? Such launches run serially. */
bool tl_gpu_self_overlaps(const tl_kdesc *d);

/* Sticky device failure: once set, every later call fails fast with an
 * internal error (exit 3). The message names the first failure. */
bool tl_gpu_poisoned(void);

#ifdef __cplusplus
}
#endif

#endif
