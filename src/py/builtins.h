/* builtins.h - Python builtins (len, range, ...) and the attributes of the
 * `torch`, `numpy` and `torch.cuda` modules and of non-tensor values, for
 * the op-language interpreter.
 * (Operators, iteration and comparisons with Python semantics: pyops.h.)
 *
 * Ownership: every function returning tl_value * returns a new reference,
 * or NULL with err filled.
 */
#ifndef TL_BUILTINS_H
#define TL_BUILTINS_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A builtin function (len, range, print, ...) by name, or NULL. */
tl_value *tl_builtins_lookup(const char *name);

/* mod.NAME for a TL_V_MODULE value ("torch", "numpy", "torch.cuda").
 * Unknown names: TL_ERR_UNSUPPORTED "tlab does not support torch.foo" with
 * a did-you-mean suggestion. */
tl_value *tl_builtins_module_attr(tl_value *mod, const char *name, tl_error *err);

/* obj.NAME for tensors (bind.h lookup order), ndarrays, storages, dtypes,
 * devices, sequences; AttributeError / TL_ERR_UNSUPPORTED otherwise. */
tl_value *tl_builtins_attr(tl_value *obj, const char *name, tl_error *err);


#ifdef __cplusplus
}
#endif

#endif
