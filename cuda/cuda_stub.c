/* cuda_stub.c - the CUDA backend of a build without nvcc (--with-cuda=no, or
 * auto without a working toolkit). It implements the runtime's CUDA hooks
 * (backend.h) and answers "not built" everywhere: no backend, no device.
 * It includes no CUDA header, so a CPU-only machine builds it with the C
 * compiler alone.
 */
#include <stddef.h>

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
