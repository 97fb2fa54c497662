/* bind.h - how C functions become torch.* functions and Tensor methods.
 *
 * Each op module registers tables of tl_binding (bind_<module>.c). The
 * interpreter looks a name up in this order:
 *   - tensor attribute access `x.NAME`: tl_bind_find(TL_BIND_ATTR) first
 *     (properties such as shape, T, dtype are evaluated at once), then
 *     TL_BIND_METHOD (returns a bound method value);
 *   - `torch.NAME(...)`: TL_BIND_TORCH, then TL_BIND_METHOD with the first
 *     positional argument (or input=) as self: the functional form;
 *   - `np.NAME`: TL_BIND_NUMPY; ndarray attributes: TL_BIND_NDARRAY.
 * The registry (bind.c) lists each module's tables: module M exports
 * `const tl_bind_table tl_bind_M_tables[]`, terminated by an entry whose
 * `entries` is NULL (M = create, ops, view, index). Adding a module means
 * adding its array there.
 *
 * Arguments follow Python's rules: positional, then keywords. Helpers below
 * fetch and convert them, raising PyTorch-style TypeErrors that name the
 * function and the accepted signature.
 */
#ifndef TL_BIND_H
#define TL_BIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "tensor.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_args {
    size_t npos;
    tl_value **pos;         /* borrowed */
    size_t nkw;
    const char **kwnames;   /* borrowed */
    tl_value **kwvals;      /* borrowed */
} tl_args;

typedef enum tl_bind_kind {
    TL_BIND_METHOD,  /* x.name(...) and torch.name(x, ...) */
    TL_BIND_ATTR,    /* x.name (property; fn called with empty args) */
    TL_BIND_TORCH,   /* torch.name(...) only */
    TL_BIND_NUMPY,   /* np.name(...) */
    TL_BIND_NDARRAY  /* a.name / a.name(...) on ndarrays; property if attr */
} tl_bind_kind;

typedef struct tl_binding {
    const char *name;
    tl_cfunc fn;
    bool is_attr;    /* for TL_BIND_NDARRAY: property rather than method */
    bool inplace;    /* the op writes self (bumps the version counter) */
} tl_binding;

typedef struct tl_bind_table {
    tl_bind_kind kind;
    const tl_binding *entries; /* terminated by {NULL} */
} tl_bind_table;

/* Find a binding; NULL if none. A differentiable op comes back as its
 * autograd wrapper (bind_grad.h); tl_bind_find_raw skips that. */
const tl_binding *tl_bind_find(tl_bind_kind kind, const char *name);
const tl_binding *tl_bind_find_raw(tl_bind_kind kind, const char *name);
/* Every registered name of a kind (for "did you mean" and docs). */
size_t tl_bind_names(tl_bind_kind kind, const char **out, size_t cap);

/* ---- argument access ---- */
/* Positional arg i, or keyword `kw` (may be NULL); NULL if absent. A value
 * given both ways is a TypeError reported by tl_args_check. */
tl_value *tl_arg(const tl_args *a, size_t i, const char *kw);
/* Validate counts and keyword names: at most maxpos positionals, keywords
 * only from `kwnames` (NULL-terminated), no duplicates. Names before a "*"
 * entry may also be given positionally, in that order, and are checked for
 * "got multiple values"; names after it (or all, without "*") are
 * keyword-only. On failure raises
 * TypeError "NAME() received an invalid combination of arguments - got
 * (...), but expected one of:\n * SIG" where SIG is `sig` (may contain
 * several lines). */
int tl_args_check(const tl_args *a, const char *fname, size_t maxpos,
                  const char *const *kwnames, const char *sig, tl_error *err);
/* Raise that same TypeError unconditionally (for type mismatches). */
int tl_args_type_error(const tl_args *a, const char *fname, const char *sig,
                       tl_error *err);
/* "(int, tuple, dtype=torch.dtype)": how PyTorch describes what it got. */
void tl_args_describe(const tl_args *a, tl_buf *b);

/* ---- conversions (return -1 with TypeError on mismatch) ---- */
int tl_to_int(const tl_value *v, const char *what, int64_t *out, tl_error *err);
int tl_to_bool(const tl_value *v, const char *what, bool *out, tl_error *err);
int tl_to_dtype(const tl_value *v, const char *what, tl_dtype *out, tl_error *err);
int tl_to_tensor(const tl_value *v, const char *what, tl_tensor **out, tl_error *err); /* borrowed out */
/* An int-list parameter (int[] or SymInt[]: a shape, dims, repeats) as
 * PyTorch's argument parser declares it: tl_to_shape reads it the way the
 * parser does and words its TypeErrors the same way (PyTorch 1.13 texts). */
typedef struct tl_shape_param {
    const char *fname;  /* function name in messages: "view" */
    const char *name;   /* parameter name, also its keyword: "size" */
    size_t pos;         /* its index among the positional parameters */
    bool symint;        /* SymInt[]: "tuple of SymInts"; int[]: "tuple of ints" */
    bool varargs;       /* the only positional parameter: view(2, 3) is
                           view((2, 3)) */
    bool kwonly_follow; /* with varargs: keyword-only parameters follow, so
                           positionals after a list (zeros((2, 3), 4)) are
                           an error ("F() takes 1 positional argument but
                           2 were given", or sig's TypeError); without them
                           PyTorch ignores the extras (view((2, 3), 4)) */
    bool scalar;        /* int[1]: a lone int is a one-element list */
    const char *sig;    /* overloaded function: a value that fits no
                           overload raises tl_args_type_error(sig); NULL:
                           "F(): argument 'N' (position P) must be tuple of
                           ints, not T" */
} tl_shape_param;

/* tl_to_shape's result when the parameter was given neither positionally
 * nor by keyword (the caller raises its "missing" error). */
#define TL_SHAPE_ABSENT (-2)

/* Read parameter p of a: one list/tuple/Size (view((2, 3)), size=[2, 3]),
 * the positionals from p->pos on when p->varargs (view(2, 3)), or a lone
 * int when p->scalar. A list is taken when it is empty or its first item is
 * an int (not bool); later items may be any int-like value (bool, integer
 * 0-d tensor), else "F(): argument 'N' must be tuple of ints, but found
 * element of type T at pos I" (I counts from 1). Writes up to TL_MAX_DIMS
 * entries (more is a TL_ERR_LIMIT error); returns the count,
 * TL_SHAPE_ABSENT, or -1 with err set. */
int tl_to_shape(const tl_args *a, const tl_shape_param *p, int64_t *out,
                tl_error *err);
/* A list/tuple of ints (or a single int when allow_scalar). */
int tl_to_int_list(const tl_value *v, const char *what, bool allow_scalar,
                   int64_t *out, size_t cap, tl_error *err);

/* Receiver helpers for methods: self as tensor (TypeError otherwise). */
tl_tensor *tl_bind_self_tensor(tl_value *self, const char *fname, tl_error *err);


#ifdef __cplusplus
}
#endif

#endif
