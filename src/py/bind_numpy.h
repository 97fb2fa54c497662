/* bind_numpy.h - the NumPy side of the op language as binding tables:
 * np.* functions, ndarray attributes and methods, torch.from_numpy /
 * as_tensor / asarray and Tensor.numpy() (bind_create.c lists them).
 *
 * Ownership: the bindings follow bind.h (new references, borrowed args).
 */
#ifndef TL_BIND_NUMPY_H
#define TL_BIND_NUMPY_H

#include "bind.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const tl_binding tl_bind_numpy_np_bindings[];      /* TL_BIND_NUMPY */
extern const tl_binding tl_bind_numpy_ndarray_bindings[]; /* TL_BIND_NDARRAY */
extern const tl_binding tl_bind_numpy_torch_bindings[];   /* TL_BIND_TORCH */
extern const tl_binding tl_bind_numpy_method_bindings[];  /* TL_BIND_METHOD */

/* An attribute of a NumPy scalar (a float/int/bool value marked npdt, an
 * ndarray element: shape, ndim, size, dtype, itemsize, item), or NULL
 * (no error) when obj is none or the name is not one of them. */
tl_value *tl_bind_numpy_scalar_attr(tl_value *obj, const char *name);
/* Makes the NumPy scalar types callable (np.float32(1)); idempotent. */
void tl_bind_numpy_install(void);

#ifdef __cplusplus
}
#endif

#endif
