/* dev_sim.h - the host grid simulator (dev_sim.c): tl_dev_sim() is the
 * device API of dev.h on tagged host memory. The knobs below are for tests
 * and are process-wide: set them before any launch, not while threads run.
 */
#ifndef TL_DEV_SIM_H
#define TL_DEV_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "dev.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The byte new simulated device memory holds (cudaMalloc leaves memory
 * uninitialised; tl_backend_alloc zeroes it itself). */
#define TL_DEV_SIM_POISON 0xA5

/* Grid shape (threads per block, most blocks; 0 keeps the default 64 x 8)
 * and the seed of the shuffled block/thread order (0 keeps it). */
void tl_dev_sim_configure(int64_t block, int64_t max_blocks, uint64_t seed);
/* Device memory capacity in bytes (0: unlimited, the default). */
void tl_dev_sim_set_capacity(size_t bytes);
/* Bytes of simulated device memory held now. */
size_t tl_dev_sim_live(void);
/* The next launch fails with `status` (e.g. 700, an illegal address). */
void tl_dev_sim_inject(int status);
/* Does p carry the simulator's device tag (bit 47)? */
int tl_dev_sim_is_device(const void *p);
/* Launches this process ran with specialised loop `spec` (TL_KSPEC_* of
 * kernels_spec.h), or with precomputed divisors (TL_DEV_SIM_FASTDIV): so a
 * test can show its cases reached each loop. */
#define TL_DEV_SIM_FASTDIV (-1)
int64_t tl_dev_sim_launches(int spec);

#ifdef __cplusplus
}
#endif

#endif
