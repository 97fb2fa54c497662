/* index_parse.h - Python subscripts x[idx] and x[idx] = v on tensors and
 * ndarrays: the py layer's side of index.h (parsing the index value,
 * converting the assigned value, wrapping the result).
 *
 * Ownership: getitem returns a new reference (NULL with err filled);
 * arguments are borrowed. A parsed tl_index is freed with tl_index_free.
 */
#ifndef TL_INDEX_PARSE_H
#define TL_INDEX_PARSE_H

#include <stdbool.h>

#include "err.h"
#include "index.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Normalise a Python index into items (np: NumPy's rules for lists). */
int tl_index_parse(const tl_value *index, bool np, tl_index *out,
                   tl_error *err);
/* obj[index] for a TL_V_TENSOR or TL_V_NDARRAY obj. */
/* The NumPy scalar (np.float32 ...: a Python number marked with its dtype)
 * holding the element of the 0-d tensor v (borrowed): what NumPy gives for
 * an integer-only index, and for a ufunc whose result is 0-d. */
tl_value *tl_index_parse_np_scalar(const tl_tensor *v, tl_error *err);
tl_value *tl_index_parse_getitem(tl_value *obj, tl_value *index,
                                 tl_error *err);
/* obj[index] = v (v: a number, tensor; for ndarrays also lists/arrays). */
int tl_index_parse_setitem(tl_value *obj, tl_value *index, tl_value *v,
                           tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
