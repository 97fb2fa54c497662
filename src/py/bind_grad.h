/* bind_grad.h - the Python face of autograd (src/autograd): grad-aware
 * wrappers around the op bindings, the operator and subscript entry points
 * the interpreter calls, and backward()/.grad/grad_fn/torch.no_grad().
 *
 * One table (bind_grad.c) names every differentiable binding with its
 * PyTorch node name and how its arguments map onto a tl_ag_call;
 * tl_bind_find hands out the wrapper of a listed binding instead of the
 * binding itself, so every path to an op (x.mul(y), torch.mul(x, y),
 * builtins calling methods by name) records through the same place.
 *
 * Ownership: as for bindings (new references returned; arguments borrowed).
 */
#ifndef TL_BIND_GRAD_H
#define TL_BIND_GRAD_H

#include <stdbool.h>

#include "bind.h"
#include "err.h"
#include "pyop.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The binding tl_bind_find should return for raw (a wrapper when the name
 * is differentiable, else raw itself). */
const tl_binding *tl_bind_grad_wrap(tl_bind_kind kind, const tl_binding *raw);

/* autograd's own bindings: backward, grad, grad_fn, retain_grad,
 * retains_grad, torch.no_grad / enable_grad / set_grad_enabled /
 * is_grad_enabled (registered first, so `grad` replaces the placeholder) */
extern const tl_bind_table tl_bind_grad_tables[];

/* Does v (a tensor, or a list/tuple of them) hold a tensor that requires
 * grad? */
bool tl_grad_requires_grad(const tl_value *v);

/* The operators' entry points (pyops.c): a OP b, a OP= b, OP a on
 * tensors; each runs `run` (pyops' tensor arithmetic) and records the node
 * (the in-place form checks before it runs). Subscripts: obj[idx] and
 * obj[idx] = v through the runtime's indexing, recorded the same way. */
typedef tl_value *(*tl_grad_binfn)(tl_pyop op, tl_value *a, tl_value *b,
                                   tl_error *err);
typedef tl_value *(*tl_grad_unfn)(tl_pyunop op, tl_value *a, tl_error *err);
tl_value *tl_grad_binop(tl_pyop op, tl_value *a, tl_value *b, tl_grad_binfn run,
                        tl_error *err);
tl_value *tl_grad_binop_inplace(tl_pyop op, tl_value *a, tl_value *b,
                                tl_grad_binfn run, tl_error *err);
tl_value *tl_grad_unop(tl_pyunop op, tl_value *a, tl_grad_unfn run, tl_error *err);
tl_value *tl_grad_index_get(tl_value *obj, tl_value *idx, tl_error *err);
int tl_grad_index_set(tl_value *obj, tl_value *idx, tl_value *v, tl_error *err);

/* Attributes of the objects autograd hands out (grad_fn nodes, the
 * no_grad() context manager): true when obj is one of them; then
 * tl_bind_grad_attr answers obj.NAME. */
bool tl_bind_grad_owns(const tl_value *obj);
tl_value *tl_bind_grad_attr(tl_value *obj, const char *name, tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
