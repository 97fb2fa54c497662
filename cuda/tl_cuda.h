/* tl_cuda.h - the C face of the CUDA backend (cuda/). No CUDA types here:
 * src/ includes this header, never cuda_runtime.h.
 *
 * tl_cuda_backend() returns the CUDA backend when it was built and a device
 * is present, else NULL (a build without nvcc links cuda_stub.c). The
 * "no GPU" answers of the runtime (cudaErrorNoDevice,
 * cudaErrorInsufficientDriver) are not errors: they give NULL.
 */
#ifndef TL_CUDA_H
#define TL_CUDA_H

#ifdef __cplusplus
extern "C" {
#endif

struct tl_backend;

const struct tl_backend *tl_cuda_backend(void);
/* The emulated device (no GPU, `--device cuda`): the same GPU backend on
 * the host grid simulator (cuda/dev_sim.c). Never NULL. */
const struct tl_backend *tl_cuda_emulated_backend(void);
/* Number of usable devices (0 when none or not built). */
int tl_cuda_device_count(void);
/* One line for --version: "not built", "built, no device", "built, 1 device (NAME)". */
const char *tl_cuda_describe(void);

#ifdef __cplusplus
}
#endif

#endif
