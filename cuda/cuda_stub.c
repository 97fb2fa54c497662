/* cuda_stub.c - the CUDA backend of a build without nvcc (--with-cuda=no, or
 * auto without a working toolkit). It implements the runtime's CUDA hooks
 * (backend.h) and answers "not built" everywhere: no backend, no device.
 * It includes no CUDA header, so a CPU-only machine builds it with the C
 * compiler alone.
 */
#include <stddef.h>

#include "dev.h"
#include "tl_cuda.h"

const tl_backend *tl_backend_cuda(void)
{
    return NULL;
}

int tl_backend_cuda_probe(const char **why)
{
    if (why)
        *why = "not built";
    return 0;
}

/* no CUDA device API in this build: the GPU backend runs on the simulator
 * only (cuda/dev_sim.c) */
const struct tl_dev *tl_dev_cuda(void)
{
    return NULL;
}
