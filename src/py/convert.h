/* convert.h - Python values to tensors and back (the py layer's side of
 * create.h): torch.tensor / np.array data, item(), tolist(), device= and
 * dtype= arguments, storage attributes.
 *
 * Ownership: every function returning tl_tensor * or tl_value * returns a
 * NEW reference (NULL with err filled on failure); inputs are borrowed.
 */
#ifndef TL_CONVERT_H
#define TL_CONVERT_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "err.h"
#include "tensor.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A device argument: torch.device value, 'cpu', 'cuda', 'cuda:N' (strings
 * through tl_device_parse), or an int N (cuda:N). */
int tl_convert_device(const tl_value *v, tl_device *out, tl_error *err);
/* .to(device) / .cuda(device): torch.device, 'cpu' / 'cuda' / 'cuda:N'
 * (tl_device_parse) or an int; false with err filled otherwise. */
bool tl_convert_to_device(const tl_value *v, tl_device *out, tl_error *err);
/* Binding helpers: an optional dtype= (None or a dtype) and an optional
 * device= (None leaves *be unchanged). */
int tl_convert_opt_dtype(const tl_value *v, bool *has, tl_dtype *dt,
                         tl_error *err);
int tl_convert_opt_device(const tl_value *v, const tl_backend **be,
                          tl_error *err);

/* torch.tensor(data, dtype=...): data is a scalar, nested list/tuple,
 * tensor or ndarray; dt_given false means infer. Always a copy. */
tl_tensor *tl_convert_from_data(const tl_value *data, bool dt_given,
                                tl_dtype dt, const tl_backend *be,
                                tl_error *err);
/* np.array(list) flavour: Python floats infer float64 and ragged data
 * raises numpy's ValueError. The result is a CPU tensor header. */
tl_tensor *tl_convert_from_data_numpy(const tl_value *data, bool dt_given,
                                      tl_dtype dt, tl_error *err);

/* Python scalar of a one-element tensor (item()). RuntimeError
 * "a Tensor with N elements cannot be converted to Scalar" otherwise. */
tl_value *tl_convert_item(const tl_tensor *t, tl_error *err);
/* Nested lists of Python scalars (a scalar for 0-d). */
tl_value *tl_convert_tolist(const tl_tensor *t, tl_error *err);
/* Attribute `name` of a storage value (x.untyped_storage().NAME): bound
 * methods data_ptr(), nbytes(), size(), element_size(); attribute device.
 * AttributeError for anything else. */
tl_value *tl_convert_storage_attr(tl_value *storage, const char *name,
                                  tl_error *err);
/* storage[i] and storage[i] = v (bytes, as torch.UntypedStorage). */
tl_value *tl_convert_storage_get(tl_value *st, tl_value *idx, tl_error *err);
int tl_convert_storage_set(tl_value *st, tl_value *idx, tl_value *v,
                           tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
