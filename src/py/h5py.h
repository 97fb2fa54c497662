/* h5py.h - the h5py module over the run's in-memory files (memfs.h):
 * File, groups, datasets; reading a dataset returns a new ndarray.
 *
 * Ownership: new references out, or NULL with err set.
 */
#ifndef TL_H5PY_H
#define TL_H5PY_H

#include "err.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* h5py.NAME */
tl_value *tl_h5py_module_attr(const char *name, tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
