/* autograd.h - a small reverse-mode autograd over runtime tensors.
 *
 * The layer between the runtime (tensors, storages, version counters) and
 * the Python values: src/py records each differentiable op here after the
 * runtime ran it (tl_ag_record / tl_ag_record_inplace), and asks here for
 * backward(), .grad, grad_fn, retain_grad() and torch.no_grad().
 *
 * Model (PyTorch's): a tensor that requires grad and is not a leaf has a
 * grad_fn, a graph node whose edges lead to the grad_fns of the op's inputs
 * (a leaf's edge is its AccumulateGrad). A node saves what PyTorch's formula
 * saves (an input, the output, or nothing) together with the version of
 * the saved tensor it saw; backward() compares and raises PyTorch's
 * "modified by an inplace operation" error on a mismatch. A view remembers
 * its base: an in-place op on it rebases the base's history (CopySlices)
 * and the view's grad_fn becomes AsStridedBackward0 when the shared version
 * counter moved since the view got its grad_fn.
 *
 * Ownership: tensors passed in are borrowed; the layer keeps its own
 * references (saved tensors are aliases without autograd records, so no
 * reference cycle runs through a saved output). Nodes are refcounted and
 * released iteratively (a chain of 10^6 nodes frees without recursion);
 * backward() is iterative too. Node and gradient memory is charged against
 * the --max-bytes ledger (gradient buffers are storages; node headers are
 * counted here and checked against the same limit).
 *
 * Threads: all state is per thread (tlab grade --jobs).
 */
#ifndef TL_AUTOGRAD_H
#define TL_AUTOGRAD_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_ag_node tl_ag_node;

typedef enum tl_ag_op {
    /* elementwise, one tensor input */
    TL_AG_NEG, TL_AG_EXP, TL_AG_LOG, TL_AG_SQRT, TL_AG_SIN, TL_AG_COS,
    TL_AG_TANH, TL_AG_SIGMOID, TL_AG_RELU, TL_AG_ABS,
    TL_AG_CLAMP,      /* s0 = min (has0), s1 = max (has1) */
    TL_AG_CLAMP_MIN,  /* s0 */
    TL_AG_CLAMP_MAX,  /* s0 */
    TL_AG_POW,        /* self ** s0 (scalar exponent) */
    /* binary: in[1] NULL means the other operand is the scalar s0 */
    TL_AG_ADD,        /* self + alpha * other, alpha = s1 */
    TL_AG_SUB,        /* self - alpha * other */
    TL_AG_RSUB,       /* other - alpha * self (other: in[1] or s0) */
    TL_AG_MUL, TL_AG_DIV,
    TL_AG_POW_T,      /* self ** other (tensors) */
    TL_AG_POW_BASE,   /* s0 ** in[0] */
    TL_AG_RDIV,       /* s0 / in[0] (PyTorch: reciprocal, then mul) */
    /* reductions: nd dims (all_dims: every dim), keepdim */
    TL_AG_SUM, TL_AG_MEAN,
    TL_AG_MATMUL,     /* mm, mv, dot, matmul (broadcast batches) */
    /* shape */
    TL_AG_VIEW,       /* outputs are views of in[0] (storage geometry) */
    TL_AG_IDENTITY,   /* clone, contiguous copy, reshape copy, to(dtype) */
    TL_AG_CAT,        /* dim; nin inputs */
    TL_AG_STACK,      /* dim; nin inputs */
    TL_AG_INDEX,      /* map: int64, out's shape, in[0]'s flat index (-1:
                         no element); in[1], if any, needs no gradient: the
                         index tensor the node saves (version-checked) */
    /* grad-shape: sort/topk (values, indices): INDEX's formula through
     * map; saves the indices (output 1) for the version check */
    TL_AG_SORT,
    /* grad-shape: index_put(accumulate=True): SETITEM's formula, self's
     * gradient passes whole */
    TL_AG_PUT_ACC,
    /* grad-shape: an op PyTorch has no derivative for (narrow_copy, set_):
     * the node is NotImplemented, backward raises "derivative for WHAT is
     * not implemented" */
    TL_AG_NOT_IMPL,
    /* in-place only */
    TL_AG_ZERO,       /* zero_, fill_(scalar) */
    TL_AG_COPY,       /* self.copy_(in[1]) */
    TL_AG_SETITEM,    /* self[map] = in[1] (or the scalar s0) */
    /* ---- math (pointwise and reductions beyond the above) ---- */
    /* elementwise, one input; saving the result */
    TL_AG_RSQRT, TL_AG_RECIPROCAL, TL_AG_EXPM1, TL_AG_EXP2, TL_AG_TAN,
    /* elementwise, one input; saving self */
    TL_AG_LOG2, TL_AG_LOG10, TL_AG_LOG1P, TL_AG_ASIN, TL_AG_ACOS, TL_AG_ATAN,
    TL_AG_SINH, TL_AG_COSH, TL_AG_ERF,
    TL_AG_ZEROS,      /* floor ceil round trunc sign, div(rounding_mode=),
                         in-place comparisons: every input's grad is 0 */
    TL_AG_PASS,       /* frac: grad */
    TL_AG_DIV_MODE,   /* div(rounding_mode=): zeros, saving what DIV saves */
    /* binary (in[1] NULL: the number s0) */
    TL_AG_MAXIMUM, TL_AG_MINIMUM, TL_AG_ATAN2,
    TL_AG_REMAINDER,  /* self: grad; other: -grad * floor(self / other) */
    TL_AG_FMOD,       /* self: grad; other: -grad * trunc(self / other) */
    TL_AG_WHERE,      /* where(map, in[0], in[1]): map the condition;
                         in[0]/in[1] NULL: a number took that operand */
    /* reductions */
    TL_AG_MAX_ALL,    /* max()/min(): ties share the gradient evenly */
    TL_AG_MAX_DIM,    /* max(dim)/min(dim): out[1] the indices; dim, keepdim */
    TL_AG_AMAX,       /* amax/amin over nd dims (all_dims): ties share evenly */
    TL_AG_VAR, TL_AG_STD, /* nd dims (all_dims), keepdim; s0 = correction */
    TL_AG_PROD,       /* all_dims, or the one dim dims[0] (keepdim) */
    TL_AG_CLAMP_T,    /* clamp(self, in[1], in[2]): tensor bounds (NULL: none) */
    /* scans and lerp */
    TL_AG_CUMSUM,     /* cumsum(dim): the reversed cumulative sum of grad */
    TL_AG_CUMPROD,    /* cumprod(dim): cumprod_backward, zeros included */
    TL_AG_LERP,       /* lerp(self, in[1] end, weight: the scalar s0 or in[2]) */
    TL_AG_NOPS
} tl_ag_op;

/* One recorded call. in[i] NULL: a Python number took that operand. */
typedef struct tl_ag_call {
    tl_ag_op op;
    const char *name;      /* PyTorch's node name, e.g. "MulBackward0" */
    int nin;
    tl_tensor *const *in;  /* borrowed */
    int nout;
    tl_tensor *const *out; /* borrowed; an in-place op's out[0] is in[0] */
    double s0, s1;
    bool has0, has1;
    int nd;                /* SUM/MEAN dims (wrapped), or all_dims */
    int64_t dims[TL_MAX_DIMS];
    bool all_dims, keepdim;
    int64_t dim;           /* CAT/STACK */
    const tl_tensor *map;  /* INDEX/SETITEM: borrowed */
    bool multi_output;     /* VIEW: split/chunk/unbind (no in-place on them) */
    const char *what;      /* NOT_IMPL: the op as PyTorch names it (static) */
} tl_ag_call;

/* ---- grad mode (torch.no_grad()) ---- */
bool tl_ag_grad_enabled(void);
void tl_ag_set_grad_enabled(bool on);

/* ---- recording (called by src/py after the runtime op succeeded) ---- */
/* Out-of-place op: with grad mode on and an input requiring grad, the
 * outputs get a grad_fn; otherwise outputs that are not inputs lose
 * requires_grad (views made under no_grad keep it, as PyTorch's do). An
 * output that is the very same object as an input is left alone. Returns
 * 0, or -1 with err set (the graph would pass --max-bytes). */
int tl_ag_record(const tl_ag_call *c, tl_error *err);

/* Before an in-place op on self (others: its tensor operands): PyTorch's
 * check_inplace (split/unbind output views, views made under no_grad,
 * leaves and views of leaves that require grad). When the op's formula
 * needs self's old value, *orig receives a private copy of it (new
 * reference, or NULL) to pass to tl_ag_record_inplace. */
int tl_ag_inplace_begin(tl_ag_op op, tl_tensor *self, int nothers,
                        tl_tensor *const *others, tl_tensor **orig,
                        tl_error *err);
/* After it: c->in[0] is self (already written, version bumped). orig
 * (may be NULL) is consumed. */
int tl_ag_record_inplace(const tl_ag_call *c, tl_tensor *orig, tl_error *err);

/* An in-place view op (t_, transpose_, unsqueeze_, ...) changed self's
 * geometry from before's (a header saved just before it): self's grad_fn
 * becomes a view node from the old geometry to the new one. */
int tl_ag_record_view_inplace(tl_tensor *self, const tl_tensor *before,
                              const char *name, tl_error *err);

/* A view op whose result needs no grad_fn still records the view's base
 * (so a later in-place op with a grad operand rebases it). tl_ag_record
 * does this itself for TL_AG_VIEW. */

/* ---- queries ---- */
/* The grad_fn (new reference) or NULL: a view whose shared version moved
 * since it got one is given AsStridedBackward0 first, as PyTorch does. */
tl_ag_node *tl_ag_grad_fn(tl_tensor *t, tl_error *err);
const char *tl_ag_node_name(const tl_ag_node *n);
/* Does t have a grad_fn (a history a gradient can flow back through)?
 * Cheaper than tl_ag_grad_fn: makes and retains nothing. */
bool tl_ag_has_grad_fn(const tl_tensor *t);
tl_ag_node *tl_ag_node_retain(tl_ag_node *n);
void tl_ag_node_release(tl_ag_node *n);
/* .grad (borrowed, NULL for None) and .grad = g (g retained, NULL: None) */
tl_tensor *tl_ag_grad(const tl_tensor *t);
int tl_ag_set_grad(tl_tensor *t, tl_tensor *g, tl_error *err);
/* retain_grad() / retains_grad */
int tl_ag_retain_grad(tl_tensor *t, tl_error *err);
bool tl_ag_retains_grad(const tl_tensor *t);
/* x._base for a differentiable view (borrowed) or NULL */
tl_tensor *tl_ag_base(const tl_tensor *t);

/* ---- backward ---- */
/* t.backward(gradient=g, retain_graph=r). g NULL: t must have one element
 * (ones). Errors in PyTorch's words; a saved tensor's version mismatch is
 * "one of the variables needed for gradient computation has been modified
 * by an inplace operation: ...". */
int tl_ag_backward(tl_tensor *t, const tl_tensor *gradient, bool retain_graph,
                   tl_error *err);

/* ---- setup snapshots (py/snapshot.c) ----
 * tl_ag_plain: t has no graph and no gradient (no grad_fn, .grad,
 * retain_grad or AccumulateGrad), at most a view's link to its base, so a
 * copy of it behaves the same; *base is that base (borrowed) or NULL.
 * tl_ag_copy_plain: dst, a fresh tensor with no record, gets src's view
 * link with base_copy (retained) for its base. */
bool tl_ag_plain(const tl_tensor *t, tl_tensor **base);
void tl_ag_copy_plain(const tl_tensor *src, tl_tensor *dst, tl_tensor *base_copy);

/* Bytes of node headers held on this thread (the part of autograd's memory
 * that is not storages) and the number of live nodes. */
int64_t tl_ag_live_bytes(void);
int64_t tl_ag_live_nodes(void);

#ifdef __cplusplus
}
#endif

#endif
