/* dict.h - Python's dict for the op language: the methods of a dict value
 * (value.h TL_V_DICT) and the dict() constructor.
 *
 * Ownership: new references out, or NULL with err set.
 */
#ifndef TL_DICT_H
#define TL_DICT_H

#include "err.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* d.NAME: keys values items get pop setdefault update copy clear */
tl_value *tl_pydict_attr(tl_value *d, const char *name, tl_error *err);
/* dict(), dict(mapping), dict(iterable of pairs), dict(**kw) */
tl_value *tl_pydict_ctor(tl_value *self, const struct tl_args *a, tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
