/* builtins.h - Python builtins (len, range, ...) and the attributes of the
 * `torch`, `numpy` and `torch.cuda` modules and of non-tensor values, for
 * the op-language interpreter.
 *
 * The second half declares the evaluator primitives interp.c exports to
 * builtins.c (iteration, operators, comparisons with Python semantics);
 * they are not meant for other modules.
 *
 * Ownership: every function returning tl_value * returns a new reference,
 * or NULL with err filled.
 */
#ifndef TL_BUILTINS_H
#define TL_BUILTINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ast.h"
#include "err.h"
#include "ops.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* print() writes to f (NULL, the default: output is discarded, as in lab
 * setups). Per thread. */
void tl_builtins_set_stdout(FILE *f);

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

/* storage[i] and storage[i] = v (bytes, as torch.UntypedStorage). */
tl_value *tl_builtins_storage_get(tl_value *st, tl_value *idx, tl_error *err);
int tl_builtins_storage_set(tl_value *st, tl_value *idx, tl_value *v, tl_error *err);

/* ---- evaluator primitives (implemented in interp.c) ---- */

/* Materialise an iterable: *items gets n new references (free the array
 * and release the items with tl_interp_items_free). */
int tl_interp_iterate(tl_value *v, tl_value ***items, size_t *n, tl_error *err);
void tl_interp_items_free(tl_value **items, size_t n);
/* a OP b with Python semantics, dispatching to ops.h for tensors. */
tl_value *tl_interp_binop(tl_pyop op, tl_value *a, tl_value *b, tl_error *err);
/* a CMP b (tl_cmpop, ast.h) with Python semantics. */
tl_value *tl_interp_compare(tl_cmpop op, tl_value *a, tl_value *b, tl_error *err);
/* Python truth value (tensors through tl_value_truthy). */
int tl_interp_truthy(tl_value *v, bool *out, tl_error *err);
/* Limits of the running interpreter (or defaults). */
int64_t tl_interp_max_seq(void);
/* Count n new sequence elements against the per-call budget; -1 with
 * TL_ERR_LIMIT when a sequence or the budget is exceeded. */
int tl_interp_charge_seq(size_t n, tl_error *err);
/* torch.manual_seed support: set the seed of the running interpreter. */
void tl_interp_set_seed(unsigned long seed);

#ifdef __cplusplus
}
#endif

#endif
