/* cuda_stub.c - the CUDA backend of a build without nvcc (--with-cuda=no, or
 * auto without a working toolkit). It implements cuda/tl_cuda.h and answers
 * "not built" everywhere: no backend, no device. It includes no CUDA header,
 * so a CPU-only machine builds it with the C compiler alone.
 */
#include <stddef.h>

#include "dev.h"
#include "tl_cuda.h"

const struct tl_backend *tl_cuda_backend(void)
{
    return NULL;
}

int tl_cuda_device_count(void)
{
    return 0;
}

const char *tl_cuda_describe(void)
{
    return "not built";
}

/* no CUDA device API in this build: the GPU backend runs on the simulator */
const struct tl_dev *tl_dev_cuda(void)
{
    return NULL;
}
