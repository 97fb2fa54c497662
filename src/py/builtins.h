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
#include <stdio.h>

#include "err.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* print() writes to f (NULL, the default: output is discarded, as in lab
 * setups). Per thread. */
void tl_builtins_set_stdout(FILE *f);
/* Did a print() since the last tl_builtins_set_stdout find f closed by its
 * reader (EPIPE)? That print failed with a LimitError that ends the run;
 * the caller ends it quietly with success, as `| head` expects. */
bool tl_builtins_stdout_closed(void);

/* Does exception kind (tl_errkind) fall under class `type` (`except
 * LookupError:` catches IndexError)? 1/0, or -1 with TypeError when type is
 * not an exception class. */
int tl_builtins_exc_matches(const tl_value *type, int kind, tl_error *err);
/* The class of exception kind `kind` (type(e)); a new reference. */
tl_value *tl_builtins_exc_type(int kind);

/* A builtin function (len, range, print, ...) or class (int, RuntimeError,
 * ...) by name, or NULL. */
tl_value *tl_builtins_lookup(const char *name);

/* mod.NAME for a TL_V_MODULE value ("torch", "numpy", "torch.cuda").
 * Unknown names: TL_ERR_UNSUPPORTED "tlab does not support torch.foo" with
 * a did-you-mean suggestion. */
tl_value *tl_builtins_module_attr(tl_value *mod, const char *name, tl_error *err);

/* obj.NAME for tensors (bind.h lookup order), ndarrays, storages, dtypes,
 * devices, sequences; AttributeError / TL_ERR_UNSUPPORTED otherwise. */
tl_value *tl_builtins_attr(tl_value *obj, const char *name, tl_error *err);

/* tl_builtins_attr with a memo for one attribute site (the parse tree's
 * node): a tensor's NAME resolves to the same binding every time, so the
 * first lookup stores it in *memo (0 before) and the later ones skip the
 * name index. Other objects go through tl_builtins_attr. The memo is one
 * word written with a relaxed atomic store: any thread would write the
 * same value. */
tl_value *tl_builtins_attr_memo(tl_value *obj, const char *name, uintptr_t *memo,
                                tl_error *err);


#ifdef __cplusplus
}
#endif

#endif
