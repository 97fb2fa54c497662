/* h5py.c - placeholder */
#include "h5py.h"
tl_value *tl_h5py_module_attr(const char *name, tl_error *err)
{
    tl_error_set(err, TL_ERR_ATTRIBUTE, "module 'h5py' has no attribute '%s'", name);
    return NULL;
}
