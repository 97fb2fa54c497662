/* einops.h - the built-in `einops` module (rearrange, reduce, repeat).
 *
 * einops' pattern grammar and its recipe, applied with the tensor methods
 * einops' torch backend calls (reshape, permute, sum/mean/amax/amin/prod,
 * unsqueeze + expand), each only when it changes something, so whether a
 * result is a view or a copy is decided by torch's own rules. Errors are
 * einops.EinopsError (TL_ERR_EINOPS, a RuntimeError) in einops' words.
 */
#ifndef TL_EINOPS_H
#define TL_EINOPS_H

#include "err.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* einops.NAME (a new reference), or NULL with AttributeError set. */
tl_value *tl_einops_attr(const char *name, tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
