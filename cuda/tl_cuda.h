/* tl_cuda.h - cuda/'s own header: what the CUDA backend's files share.
 * No CUDA types here, so the C files of cuda/ (the stub, the host side of
 * the backend) include it as well as the .cu files.
 *
 * cuda/ implements the runtime's backend interface and nothing else: the
 * runtime declares the hooks (src/runtime/backend.h: tl_backend_cuda,
 * tl_backend_cuda_probe) and the vtable (src/runtime/backend_impl.h);
 * nothing under src/ includes this header.
 *
 * The "no GPU" answers of the CUDA runtime (cudaErrorNoDevice,
 * cudaErrorInsufficientDriver, ...) are not errors: tl_backend_cuda()
 * gives NULL and tl_backend_cuda_probe() 0 devices and the reason.
 */
#ifndef TL_CUDA_H
#define TL_CUDA_H

#include "backend_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif
