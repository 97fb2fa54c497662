/* outarg.h - out= for the torch functions that take it (outarg.c). */
#ifndef TL_OUTARG_H
#define TL_OUTARG_H

#include "err.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Call builtin fn with a: with a non-None out= keyword, PyTorch's out=
 * semantics for the torch.* functions that have it (returns out itself, a
 * new reference); else the plain call (a binding refuses out=). */
tl_value *tl_outarg_call(tl_value *fn, const struct tl_args *a, tl_error *err);
/* Route builtin calls with out= through tl_outarg_call
 * (tl_value_set_out_hook); idempotent, called by every new interpreter. */
void tl_outarg_install(void);

#ifdef __cplusplus
}
#endif

#endif
