/* dev.h - the small device API under the CUDA backend's host side
 * (backend_gpu.c). Two implementations: the host grid simulator
 * (dev_sim.c, always built) and CUDA (dev_cuda.cu, built with nvcc).
 *
 * Every call returns a status: 0, or a CUDA runtime error number
 * (cudaError_t's values; the simulator uses the same numbers: 2 for out of
 * memory, 700 for an illegal address), or TL_DEV_ECHECK when the simulator's
 * own checks fail (an output element written twice or never). Addresses are
 * device addresses: the host never dereferences them (the simulator's carry
 * bit 47, so a stray host dereference faults).
 *
 * Thread safety: every function may be called from any thread; CUDA work is
 * queued on cudaStreamPerThread, so each grading thread has its own stream.
 * Ownership: malloc'd blocks are freed with free; pinned blocks with
 * host_free.
 */
#ifndef TL_DEV_H
#define TL_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TL_DEV_OOM 2          /* cudaErrorMemoryAllocation */
#define TL_DEV_ECHECK (-100)  /* simulator: visit-once check failed */
#define TL_DEV_ETIMEOUT (-101) /* simulator: the op's deadline passed */
#define TL_DEV_EOVERLAP (-103) /* simulator: overlapping D2D copy */
#define TL_DEV_ERACE (-102)   /* simulator: a parallel launch writes one
                               * byte of its output from two work items */

typedef struct tl_dev {
    const char *name;       /* "sim", "cuda" */
    int (*probe)(char *why, size_t cap); /* 0 when usable; else why */
    int (*malloc)(void **p, size_t n);
    void (*free)(void *p);
    int (*h2d)(void *dst, const void *src, size_t n);
    int (*d2h)(void *dst, const void *src, size_t n);
    int (*d2d)(void *dst, const void *src, size_t n);
    int (*memset0)(void *dst, size_t n);
    /* run kernel `kind` over d->n work items (d->visits must be NULL) */
    int (*launch)(tl_kkind kind, const tl_kdesc *d);
    int (*sync)(void);
    /* page-locked host memory (plain host memory on the simulator) */
    void *(*host_alloc)(size_t n);
    void (*host_free)(void *p);
    /* the runtime's name and text for a status */
    const char *(*errname)(int status);
    /* pointer kind: 0 unknown/host, 1 device, 2 pinned host */
    int (*ptr_kind)(const void *p);
} tl_dev;

const tl_dev *tl_dev_sim(void);
/* NULL when the build has no CUDA */
const tl_dev *tl_dev_cuda(void);

#ifdef __cplusplus
}
#endif

#endif
