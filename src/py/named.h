/* named.h - named tensors (PyTorch's experimental names= API).
 *
 * A tensor's names live on its header (tl_tensor.names, packed strings;
 * NULL: unnamed). This module sets and reads them, implements the name
 * methods (names, has_names, rename, refine_names, align_to, align_as),
 * and is the one place that knows how PyTorch treats names in other ops:
 * tl_named_call wraps a Tensor method call when a named tensor takes part
 * (names as dims, names of the result, "not yet supported" refusals) and
 * tl_named_binary does the same for Python's binary operators.
 */
#ifndef TL_NAMED_H
#define TL_NAMED_H

#include <stdbool.h>
#include <stdio.h>

#include "bind.h"
#include "err.h"
#include "tensor.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Does t carry at least one name? */
bool tl_named_has(const tl_tensor *t);
/* Name of dim d, or NULL (unnamed dim, or no names at all). */
const char *tl_named_get(const tl_tensor *t, int d);
/* Set t's names from the value of names= (a tuple/list of str or None, or
 * None); PyTorch's TypeErrors/RuntimeErrors otherwise. 0 or -1. */
int tl_named_set_value(tl_tensor *t, const tl_value *names, tl_error *err);
/* Route method calls through tl_named_call (tl_value_set_call_hook);
 * idempotent, called by every new interpreter. */
void tl_named_install(void);

/* The first-use UserWarning goes out through pywarn.h (tlab exec shows
 * it on stderr), once per run. */

/* Call method `name` (fn) on self with a: directly when no named tensor
 * takes part, else with PyTorch's name rules around it. */
tl_value *tl_named_call(const char *name, tl_cfunc fn, tl_value *self,
                        const tl_args *a, tl_error *err);
/* The result r of `a OP b` (stolen; NULL passes through): names unified
 * from the right as PyTorch broadcasts them, or the mismatch error. A
 * unary operator passes its operand as both a and b. */
tl_value *tl_named_binary(tl_value *r, const tl_value *a, const tl_value *b,
                          tl_error *err);
/* The result r of `a @ b` / matmul (stolen; NULL passes through): the batch
 * dims' names unified, then the surviving matrix dims' names. */
tl_value *tl_named_matmul(tl_value *r, const tl_value *a, const tl_value *b, tl_error *err);
/* PyTorch checks matmul's batch names before the product: 0, or -1 with
 * "matmul: Expected 'A' (index 0 of [...]) to match ..." */
int tl_named_matmul_check(const tl_value *a, const tl_value *b, tl_error *err);

/* The result r of obj[idx] (stolen; NULL passes through): basic indexing
 * (ints, slices, ...) keeps the names of the dims it keeps; None and
 * index tensors/lists are PyTorch's "not yet supported" errors. */
tl_value *tl_named_getitem(tl_value *r, const tl_value *obj, const tl_value *idx,
                           tl_error *err);

extern const tl_bind_table tl_bind_named_tables[];

#ifdef __cplusplus
}
#endif

#endif
