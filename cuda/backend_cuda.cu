/* backend_cuda.cu - the CUDA backend of tlab (compiled by nvcc, linked into
 * libtlab.a with -lcudart -lstdc++). It implements the runtime's CUDA hooks
 * (src/runtime/backend.h: tl_backend_cuda, tl_backend_cuda_probe).
 *
 * For now it holds the device query only, which proves the toolchain path
 * (nvcc object, C linkage, libcudart at run time):
 *   - tl_backend_cuda_probe() asks cudaGetDeviceCount once and caches it.
 *     "No GPU here" answers of the runtime are not failures: cudaErrorNoDevice
 *     (100, e.g. CUDA_VISIBLE_DEVICES="") and cudaErrorInsufficientDriver (35,
 *     no or too old a driver, the case of every CPU-only machine) give 0.
 *     Any other error also gives 0 devices, and the probe's line names it
 *     (the line printed by `tlab --version`).
 *   - tl_backend_cuda() is the GPU backend (backend_gpu.c) on the CUDA
 *     device API (dev_cuda.cu), or NULL when there is no device or the
 *     device's probe launch fails (no kernel image for it, PTX too new:
 *     209/222); the probe's line then says why.
 * Thread-safe: the query runs once under pthread_once (review E4), so a
 * first call from several --jobs workers at a time waits for the one query
 * instead of reading a half-filled answer.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "backend_gpu.h"
#include "tl_cuda.h"

static pthread_once_t query_flag = PTHREAD_ONCE_INIT;
static int ndevices;       /* usable devices, 0 when none */
static char description[256];

static void query_once(void);

/* Runs cudaGetDeviceCount once (the first caller; every other caller waits
 * for it) and fills ndevices and description. */
static void query(void)
{
    pthread_once(&query_flag, query_once);
}

static void query_once(void)
{
    int n = 0;
    cudaError_t rc = cudaGetDeviceCount(&n);
    if (rc == cudaErrorNoDevice || rc == cudaErrorInsufficientDriver) {
        (void)cudaGetLastError(); /* not sticky, but leave no trace */
        ndevices = 0;
        snprintf(description, sizeof description, "built, no device%s",
                 rc == cudaErrorInsufficientDriver ? " (no CUDA driver)" : "");
        return;
    }
    if (rc != cudaSuccess) {
        (void)cudaGetLastError();
        ndevices = 0;
        snprintf(description, sizeof description, "built, no usable device (%s: %s)",
                 cudaGetErrorName(rc), cudaGetErrorString(rc));
        return;
    }
    ndevices = n < 0 ? 0 : n;
    if (ndevices == 0) {
        snprintf(description, sizeof description, "built, no device");
        return;
    }

    cudaDeviceProp prop;
    rc = cudaGetDeviceProperties(&prop, 0);
    if (rc != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(description, sizeof description, "built, %d device%s (%s)", ndevices,
                 ndevices == 1 ? "" : "s", cudaGetErrorString(rc));
        return;
    }
    snprintf(description, sizeof description, "built, %d device%s (%.160s, sm_%d%d, %.0f MiB)",
             ndevices, ndevices == 1 ? "" : "s", prop.name, prop.major, prop.minor,
             (double)prop.totalGlobalMem / (1024.0 * 1024.0));
    /* a device that cannot run our kernels is no device */
    char why[200];
    if (tl_dev_cuda()->probe(why, sizeof why) != 0) {
        snprintf(description, sizeof description,
                 "built, no usable device (%.60s, sm_%d%d: probe launch: %.100s)", prop.name,
                 prop.major, prop.minor, why);
        ndevices = 0;
    }
}

extern "C" const tl_backend *tl_backend_cuda(void)
{
    /* TLAB_EMULATE_CUDA=1 hides the GPU, so --device cuda runs the grid
     * simulator even here (tests/gpu/run.sh compares the two) */
    const char *emu = getenv("TLAB_EMULATE_CUDA");
    if (emu && !strcmp(emu, "1"))
        return NULL;
    query();
    return ndevices > 0 ? tl_gpu_backend_cuda() : NULL;
}

extern "C" int tl_backend_cuda_probe(const char **why)
{
    query();
    if (why)
        *why = description;
    return ndevices;
}
