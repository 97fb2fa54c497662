/* create.h - tensor factories (torch.tensor, arange, zeros, ..., *_like,
 * rand/randn) and tensor queries (item, tolist, len).
 *
 * Ownership: every function returning tl_tensor * or tl_value * returns a
 * NEW reference (NULL with err filled on failure); inputs are borrowed.
 *
 * Context: the thread's context (context.h, set by the interpreter when a
 * run starts) names the backends: factories without device= place tensors
 * on the default backend; device='cuda' resolves through tl_backend_for
 * (the real CUDA backend or the emulated one, or AssertionError "Torch not
 * compiled with CUDA enabled" when there is none). The random generator
 * (also the context's) is reset by
 * tl_create_manual_seed() (torch.manual_seed) and is deterministic: the same
 * seed gives the same numbers (they are not torch's numbers).
 */
#ifndef TL_CREATE_H
#define TL_CREATE_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "err.h"
#include "tensor.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the context's default backend and generator ---- */
const tl_backend *tl_create_default_backend(void); /* CPU if never set */
void tl_create_manual_seed(uint64_t seed);

/* Parse a device argument: torch.device value, 'cpu', 'cuda', 'cuda:N'
 * (strings through tl_device_parse), or an int N (cuda:N). */
int tl_create_parse_device(const tl_value *v, tl_device *out, tl_error *err);
/* The backend for a device: tl_backend_for (backend.h). */
int tl_create_backend_for(tl_device dev, const tl_backend **out, tl_error *err);

/* PyTorch's Scalar range check before a fill (full, full_like, fill_):
 * RuntimeError "value cannot be converted to type int8_t without overflow"
 * (C type names as c10 prints them). Floating targets accept inf/NaN. */
int tl_create_check_scalar(tl_dtype dt, tl_scalar v, tl_error *err);

/* Binding helpers: an optional dtype= (None or a dtype) and an optional
 * device= (None leaves *be unchanged). */
int tl_create_opt_dtype(const tl_value *v, bool *has, tl_dtype *dt,
                        tl_error *err);
int tl_create_opt_device(const tl_value *v, const tl_backend **be,
                         tl_error *err);
/* Mark a fresh tensor as requiring grad: RuntimeError "Only Tensors of
 * floating point and complex dtype can require gradients" otherwise. */
int tl_create_set_requires_grad(tl_tensor *t, bool rg, tl_error *err);

/* ---- C-level factories ---- */
tl_tensor *tl_create_full(const tl_backend *be, tl_dtype dt, int ndim,
                          const int64_t *sizes, tl_scalar v, tl_error *err);
/* torch.arange semantics (size rule, errors) for explicit dtype dt. */
tl_tensor *tl_create_arange(const tl_backend *be, tl_dtype dt, double start,
                            double end, double step, tl_error *err);
tl_tensor *tl_create_eye(const tl_backend *be, tl_dtype dt, int64_t n,
                         int64_t m, tl_error *err);
tl_tensor *tl_create_linspace(const tl_backend *be, tl_dtype dt, double start,
                              double end, int64_t steps, tl_error *err);
/* rand (uniform [0,1)) or randn (normal) from the context generator. */
tl_tensor *tl_create_random(const tl_backend *be, tl_dtype dt, int ndim,
                            const int64_t *sizes, bool normal, tl_error *err);
/* torch.tensor(data, dtype=...): data is a scalar, nested list/tuple,
 * tensor or ndarray; dt_given false means infer. Always a copy. */
tl_tensor *tl_create_from_data(const tl_value *data, bool dt_given, tl_dtype dt,
                               const tl_backend *be, tl_error *err);
/* np.array(list) flavour: Python floats infer float64 and ragged data
 * raises numpy's ValueError. The result is a CPU tensor header. */
tl_tensor *tl_create_from_data_numpy(const tl_value *data, bool dt_given,
                                     tl_dtype dt, tl_error *err);
/* A copy of t on be with dtype dt and preserve_format strides, offset 0
 * (works across host and device backends). */
tl_tensor *tl_create_copy_to(const tl_tensor *t, const tl_backend *be,
                             tl_dtype dt, tl_error *err);

/* ---- queries ---- */
/* Python scalar of a one-element tensor (item()). RuntimeError
 * "a Tensor with N elements cannot be converted to Scalar" otherwise. */
tl_value *tl_create_item(const tl_tensor *t, tl_error *err);
/* Nested lists of Python scalars (a scalar for 0-d). */
tl_value *tl_create_tolist(const tl_tensor *t, tl_error *err);
/* len(t): size(0); TypeError "len() of a 0-d tensor". */
int tl_create_len(const tl_tensor *t, int64_t *out, tl_error *err);
/* Attribute `name` of a storage value (x.untyped_storage().NAME): bound
 * methods data_ptr(), nbytes(), size(), element_size(); attribute device.
 * AttributeError for anything else. */
tl_value *tl_create_storage_attr(tl_value *storage, const char *name,
                                 tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
