/* pyops.h - Python semantics on values: operators, truth, comparisons,
 * iteration and subscripts of non-tensor containers (tensors and ndarrays
 * are dispatched to the runtime). Used by the interpreter and builtins.
 *
 * Ownership: functions returning tl_value * return a new reference (NULL
 * with err filled); arguments are borrowed.
 */
#ifndef TL_PYOPS_H
#define TL_PYOPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "pyop.h"
#include "ops.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/* a OP b with Python semantics (ops.h for tensors and ndarrays). */
tl_value *tl_pyops_binary(tl_pyop op, tl_value *a, tl_value *b, tl_error *err);
/* a OP= b: lists extend/repeat in place, tensors write their storage;
 * else a OP b. */
tl_value *tl_pyops_binary_inplace(tl_pyop op, tl_value *a, tl_value *b,
                                  tl_error *err);
/* -a, +a, ~a */
tl_value *tl_pyops_unary(tl_pyunop op, tl_value *a, tl_error *err);
/* Python truth value (tensors through tl_value_truthy). */
int tl_pyops_truthy(tl_value *v, bool *out, tl_error *err);
/* a CMP b with Python semantics (in / not in included). */
tl_value *tl_pyops_compare(tl_cmpop op, tl_value *a, tl_value *b,
                           tl_error *err);
/* Materialise an iterable: *items gets n new references (release them
 * and free the array with tl_pyops_items_free). */
int tl_pyops_iterate(tl_value *v, tl_value ***items, size_t *n, tl_error *err);
void tl_pyops_items_free(tl_value **items, size_t n);
/* obj[idx] and obj[idx] = v for sequences, strings, storages and tensors */
tl_value *tl_pyops_getitem(tl_value *obj, tl_value *idx, tl_error *err);
int tl_pyops_setitem(tl_value *obj, tl_value *idx, tl_value *v, tl_error *err);

/* A number or a tensor/ndarray as an elementwise operand (borrowed);
 * false for any other value. */
bool tl_pyops_operand(const tl_value *v, tl_operand *o);

/* ---- the per-call budget of sequence elements ---- */
typedef struct tl_pyops_budget {
    bool active;     /* inside an interpreter call */
    int64_t max_seq; /* longest sequence; the call may create 4x that */
    uint64_t used;   /* elements created so far in this call */
} tl_pyops_budget;
/* Start a call's budget (max_seq <= 0: the default); returns the previous
 * one for tl_pyops_budget_leave. */
tl_pyops_budget tl_pyops_budget_enter(int64_t max_seq);
void tl_pyops_budget_leave(tl_pyops_budget saved);
/* The running call's longest sequence (TL_DEFAULT_MAX_SEQ outside one). */
int64_t tl_pyops_max_seq(void);
/* Count n new sequence elements against the budget; -1 with TL_ERR_LIMIT
 * when one sequence or the call's total is too long, or too many tensor
 * headers are alive. */
int tl_pyops_charge_seq(size_t n, tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
