/* bind_grad.c - where Python calls meet autograd.
 *
 * The table GRAD_SPECS lists every differentiable binding: its name and
 * kind, how its arguments become a tl_ag_call (H_*), the formula (TL_AG_*)
 * and PyTorch's node name. tl_bind_find returns the generated wrapper
 * w_NAME of a listed binding; the wrapper (grad_call) reads the operands,
 * runs PyTorch's in-place checks before an in-place op, calls the real
 * binding, and records the node after it. Operators, subscripts and
 * subscript assignment come through tl_grad_* (the interpreter's entry
 * points) and record the same way.
 *
 * Invariants: a wrapper never changes what the binding computes or raises
 * (only autograd's own errors are added, in PyTorch's order: the in-place
 * checks come before the op runs). An op on tensors none of which requires
 * grad records nothing, except that views always note their base (so an
 * in-place write with a grad operand can rebase it later).
 *
 * Every other tensor op gets the safety net's wrapper (end of the file):
 * with grad mode on and an argument requiring grad, a floating result
 * without history is refused as unsupported, since PyTorch would have
 * recorded a node; NO_GRAD_FN lists the ops PyTorch records none for.
 * torch.where(c, x, y) has its own wrapper (a number may take x).
 *
 * Objects handed out: a grad_fn is a function value named after the node
 * (its .name() is PyTorch's); torch.no_grad() is a function value with
 * __enter__/__exit__ (the `with` statement calls those).
 */
#include <math.h>
#include "platform.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autograd.h"
#include "bind_grad.h"
#include "create.h"
#include "grad_kernels.h"
#include "index_parse.h"
#include "util.h"

typedef enum how {
    H_GATHER1, H_GATHER1_FN, H_TRI_INPLACE, H_SORT, H_VIEW_FN, H_STACKS, /* grad-shape */
    H_INDEX_PUT, H_NOT_IMPL,                                             /* grad-shape */
    H_UNARY, H_BINARY, H_POW, H_CLAMP, H_CLAMP_MIN, H_CLAMP_MAX, H_RED,
    H_MATMUL, H_VIEW, H_RESHAPE, H_SQUEEZE, H_SPLIT, H_MULTI, H_SEP,
    H_IDENTITY, H_GATHER, H_CAT, H_ZERO, H_FILL, H_COPY, H_VIEW_INPLACE,
    H_MASKED_FILL, H_SCATTERLIKE,
    /* math */
    H_SQUARE, H_OTHER, H_SCALAR0, H_WHERE, H_MAXMIN, H_AMAX, H_VAR, H_PROD,
    H_SCAN, H_LERP, H_KTH, H_MSORT
} how;

#define METHOD TL_BIND_METHOD
#define ATTR TL_BIND_ATTR
#define TORCH TL_BIND_TORCH

/* grad-shape: shape, ordering, diagonal and *_copy ops. H_GATHER1 and
 * H_GATHER1_FN replay the op on 1 + the flat index of every input element
 * (int64), so an element the op made (a zero of triu, diag, diag_embed)
 * maps to -1 and receives no gradient; the node name of diag follows
 * PyTorch 2.x (diag is diag_embed or diagonal_copy there). */
#define GRAD_SPECS_SHAPE(X)                                                    \
    X(triu, METHOD, H_GATHER1, TL_AG_INDEX, "TriuBackward0", 0)                \
    X(tril, METHOD, H_GATHER1, TL_AG_INDEX, "TrilBackward0", 0)                \
    X(triu_, METHOD, H_TRI_INPLACE, TL_AG_INDEX, "TriuBackward0", 1)           \
    X(tril_, METHOD, H_TRI_INPLACE, TL_AG_INDEX, "TrilBackward0", 1)           \
    X(sort, METHOD, H_SORT, TL_AG_SORT, "SortBackward0", 0)                    \
    X(topk, METHOD, H_SORT, TL_AG_SORT, "TopkBackward0", 0)                    \
    X(tile, METHOD, H_GATHER1, TL_AG_INDEX, "RepeatBackward0", 0)              \
    X(fliplr, METHOD, H_GATHER1, TL_AG_INDEX, "FlipBackward0", 0)              \
    X(flipud, METHOD, H_GATHER1, TL_AG_INDEX, "FlipBackward0", 0)              \
    X(repeat_interleave, METHOD, H_GATHER1, TL_AG_INDEX, "IndexSelectBackward0", 0) \
    X(diag, METHOD, H_GATHER1, TL_AG_INDEX, "DiagEmbedBackward0", 0)           \
    X(diag_embed, METHOD, H_GATHER1, TL_AG_INDEX, "DiagEmbedBackward0", 0)     \
    X(diagflat, METHOD, H_GATHER1, TL_AG_INDEX, "DiagEmbedBackward0", 0)       \
    X(type_as, METHOD, H_IDENTITY, TL_AG_IDENTITY, "ToCopyBackward0", 0)       \
    X(view_copy, TORCH, H_GATHER1_FN, TL_AG_INDEX, "ViewBackward0_copy", 0)    \
    X(permute_copy, TORCH, H_GATHER1_FN, TL_AG_INDEX, "PermuteBackward0_copy", 0) \
    X(expand_copy, TORCH, H_GATHER1_FN, TL_AG_INDEX, "ExpandBackward0_copy", 0) \
    X(transpose_copy, TORCH, H_GATHER1_FN, TL_AG_INDEX, "TransposeBackward0_copy", 0) \
    X(select_copy, TORCH, H_GATHER1_FN, TL_AG_INDEX, "SelectBackward0_copy", 0) \
    X(slice_copy, TORCH, H_GATHER1_FN, TL_AG_INDEX, "SliceBackward0_copy", 0)  \
    X(unsqueeze_copy, TORCH, H_GATHER1_FN, TL_AG_INDEX, "UnsqueezeBackward0_copy", 0) \
    X(squeeze_copy, TORCH, H_GATHER1_FN, TL_AG_INDEX, "SqueezeBackward0_copy", 0) \
    X(diagonal_copy, TORCH, H_GATHER1_FN, TL_AG_INDEX, "DiagonalBackward0_copy", 0) \
    X(as_strided_copy, TORCH, H_GATHER1_FN, TL_AG_INDEX, "AsStridedBackward0_copy", 0) \
    X(t_copy, TORCH, H_GATHER1_FN, TL_AG_INDEX, "TBackward0_copy", 0)          \
    X(alias_copy, TORCH, H_GATHER1_FN, TL_AG_INDEX, "AliasBackward0_copy", 0)  \
    X(unfold_copy, TORCH, H_GATHER1_FN, TL_AG_INDEX, "UnfoldBackward0_copy", 0) \
    X(unbind_copy, TORCH, H_GATHER1_FN, TL_AG_INDEX, "UnbindBackward0_copy", 0) \
    X(split_copy, TORCH, H_GATHER1_FN, TL_AG_INDEX, "SplitBackward0_copy", 0)  \
    X(split_with_sizes_copy, TORCH, H_GATHER1_FN, TL_AG_INDEX, "SplitWithSizesBackward0_copy", 0) \
    X(broadcast_tensors, TORCH, H_VIEW_FN, TL_AG_VIEW, "ExpandBackward0", 0)   \
    X(meshgrid, TORCH, H_VIEW_FN, TL_AG_VIEW, "ExpandBackward0", 0)            \
    X(atleast_1d, TORCH, H_VIEW_FN, TL_AG_VIEW, NULL, 0)                       \
    X(atleast_2d, TORCH, H_VIEW_FN, TL_AG_VIEW, NULL, 0)                       \
    X(atleast_3d, TORCH, H_VIEW_FN, TL_AG_VIEW, NULL, 0)                       \
    X(hstack, TORCH, H_STACKS, TL_AG_CAT, "CatBackward0", 0)                   \
    X(vstack, TORCH, H_STACKS, TL_AG_CAT, "CatBackward0", 0)                   \
    X(index_put, METHOD, H_INDEX_PUT, TL_AG_SETITEM, "IndexPutBackward0", 0)   \
    X(index_put_, METHOD, H_INDEX_PUT, TL_AG_SETITEM, "IndexPutBackward0", 1)   \
    X(narrow_copy, METHOD, H_NOT_IMPL, TL_AG_NOT_IMPL, "NotImplemented", 0)     \
    X(set_, METHOD, H_NOT_IMPL, TL_AG_NOT_IMPL, "NotImplemented", 1)           \
    X(H, ATTR, H_VIEW, TL_AG_VIEW, "TransposeBackward0", 0)                    \
    X(mH, ATTR, H_VIEW, TL_AG_VIEW, "TransposeBackward0", 0)

/* name, kind, how, op, node, in-place */
#define GRAD_SPECS(X)                                                          \
    GRAD_SPECS_SHAPE(X)                                                        \
    X(neg, METHOD, H_UNARY, TL_AG_NEG, "NegBackward0", 0)                      \
    X(negative, METHOD, H_UNARY, TL_AG_NEG, "NegBackward0", 0)                 \
    X(exp, METHOD, H_UNARY, TL_AG_EXP, "ExpBackward0", 0)                      \
    X(log, METHOD, H_UNARY, TL_AG_LOG, "LogBackward0", 0)                      \
    X(sqrt, METHOD, H_UNARY, TL_AG_SQRT, "SqrtBackward0", 0)                   \
    X(sin, METHOD, H_UNARY, TL_AG_SIN, "SinBackward0", 0)                      \
    X(cos, METHOD, H_UNARY, TL_AG_COS, "CosBackward0", 0)                      \
    X(tanh, METHOD, H_UNARY, TL_AG_TANH, "TanhBackward0", 0)                   \
    X(sigmoid, METHOD, H_UNARY, TL_AG_SIGMOID, "SigmoidBackward0", 0)          \
    X(relu, METHOD, H_UNARY, TL_AG_RELU, "ReluBackward0", 0)                   \
    X(abs, METHOD, H_UNARY, TL_AG_ABS, "AbsBackward0", 0)                      \
    X(absolute, METHOD, H_UNARY, TL_AG_ABS, "AbsBackward0", 0)                 \
    X(neg_, METHOD, H_UNARY, TL_AG_NEG, "NegBackward0", 1)                     \
    X(negative_, METHOD, H_UNARY, TL_AG_NEG, "NegBackward0", 1)                \
    X(exp_, METHOD, H_UNARY, TL_AG_EXP, "ExpBackward0", 1)                     \
    X(log_, METHOD, H_UNARY, TL_AG_LOG, "LogBackward0", 1)                     \
    X(sqrt_, METHOD, H_UNARY, TL_AG_SQRT, "SqrtBackward0", 1)                  \
    X(sin_, METHOD, H_UNARY, TL_AG_SIN, "SinBackward0", 1)                     \
    X(cos_, METHOD, H_UNARY, TL_AG_COS, "CosBackward0", 1)                     \
    X(tanh_, METHOD, H_UNARY, TL_AG_TANH, "TanhBackward0", 1)                  \
    X(sigmoid_, METHOD, H_UNARY, TL_AG_SIGMOID, "SigmoidBackward0", 1)         \
    X(relu_, METHOD, H_UNARY, TL_AG_RELU, "ReluBackward0", 1)                  \
    X(abs_, METHOD, H_UNARY, TL_AG_ABS, "AbsBackward0", 1)                     \
    X(absolute_, METHOD, H_UNARY, TL_AG_ABS, "AbsBackward0", 1)                \
    X(add, METHOD, H_BINARY, TL_AG_ADD, "AddBackward0", 0)                     \
    X(sub, METHOD, H_BINARY, TL_AG_SUB, "SubBackward0", 0)                     \
    X(subtract, METHOD, H_BINARY, TL_AG_SUB, "SubBackward0", 0)                \
    X(mul, METHOD, H_BINARY, TL_AG_MUL, "MulBackward0", 0)                     \
    X(multiply, METHOD, H_BINARY, TL_AG_MUL, "MulBackward0", 0)                \
    X(div, METHOD, H_BINARY, TL_AG_DIV, "DivBackward0", 0)                     \
    X(divide, METHOD, H_BINARY, TL_AG_DIV, "DivBackward0", 0)                  \
    X(true_divide, METHOD, H_BINARY, TL_AG_DIV, "DivBackward0", 0)             \
    X(add_, METHOD, H_BINARY, TL_AG_ADD, "AddBackward0", 1)                    \
    X(sub_, METHOD, H_BINARY, TL_AG_SUB, "SubBackward0", 1)                    \
    X(subtract_, METHOD, H_BINARY, TL_AG_SUB, "SubBackward0", 1)               \
    X(mul_, METHOD, H_BINARY, TL_AG_MUL, "MulBackward0", 1)                    \
    X(multiply_, METHOD, H_BINARY, TL_AG_MUL, "MulBackward0", 1)               \
    X(div_, METHOD, H_BINARY, TL_AG_DIV, "DivBackward0", 1)                    \
    X(divide_, METHOD, H_BINARY, TL_AG_DIV, "DivBackward0", 1)                 \
    X(true_divide_, METHOD, H_BINARY, TL_AG_DIV, "DivBackward0", 1)            \
    X(pow, METHOD, H_POW, TL_AG_POW, "PowBackward0", 0)                        \
    X(pow_, METHOD, H_POW, TL_AG_POW, "PowBackward0", 1)                       \
    X(clamp, METHOD, H_CLAMP, TL_AG_CLAMP, "ClampBackward1", 0)                \
    X(clip, METHOD, H_CLAMP, TL_AG_CLAMP, "ClampBackward1", 0)                 \
    X(clamp_, METHOD, H_CLAMP, TL_AG_CLAMP, "ClampBackward1", 1)               \
    X(clip_, METHOD, H_CLAMP, TL_AG_CLAMP, "ClampBackward1", 1)                \
    X(clamp_min, METHOD, H_CLAMP_MIN, TL_AG_CLAMP_MIN, "ClampMinBackward0", 0) \
    X(clamp_max, METHOD, H_CLAMP_MAX, TL_AG_CLAMP_MAX, "ClampMaxBackward0", 0) \
    X(clamp_min_, METHOD, H_CLAMP_MIN, TL_AG_CLAMP_MIN, "ClampMinBackward0", 1) \
    X(clamp_max_, METHOD, H_CLAMP_MAX, TL_AG_CLAMP_MAX, "ClampMaxBackward0", 1) \
    X(sum, METHOD, H_RED, TL_AG_SUM, "SumBackward0", 0)                        \
    X(mean, METHOD, H_RED, TL_AG_MEAN, "MeanBackward0", 0)                     \
    X(matmul, METHOD, H_MATMUL, TL_AG_MATMUL, NULL, 0)                         \
    X(mm, METHOD, H_MATMUL, TL_AG_MATMUL, "MmBackward0", 0)                    \
    X(mv, METHOD, H_MATMUL, TL_AG_MATMUL, "MvBackward0", 0)                    \
    X(dot, METHOD, H_MATMUL, TL_AG_MATMUL, "DotBackward0", 0)                  \
    X(bmm, METHOD, H_MATMUL, TL_AG_MATMUL, "BmmBackward0", 0)                  \
    X(view, METHOD, H_VIEW, TL_AG_VIEW, "ViewBackward0", 0)                    \
    X(view_as, METHOD, H_VIEW, TL_AG_VIEW, "ViewBackward0", 0)                 \
    X(unflatten, METHOD, H_VIEW, TL_AG_VIEW, "ViewBackward0", 0)               \
    X(reshape, METHOD, H_RESHAPE, TL_AG_VIEW, "ViewBackward0", 0)              \
    X(reshape_as, METHOD, H_RESHAPE, TL_AG_VIEW, "ViewBackward0", 0)           \
    X(flatten, METHOD, H_RESHAPE, TL_AG_VIEW, "ViewBackward0", 0)              \
    X(ravel, METHOD, H_RESHAPE, TL_AG_VIEW, "ViewBackward0", 0)                \
    X(t, METHOD, H_VIEW, TL_AG_VIEW, "TBackward0", 0)                          \
    X(transpose, METHOD, H_VIEW, TL_AG_VIEW, "TransposeBackward0", 0)          \
    X(swapaxes, METHOD, H_VIEW, TL_AG_VIEW, "TransposeBackward0", 0)           \
    X(swapdims, METHOD, H_VIEW, TL_AG_VIEW, "TransposeBackward0", 0)           \
    X(adjoint, METHOD, H_VIEW, TL_AG_VIEW, "TransposeBackward0", 0)            \
    X(mT, ATTR, H_VIEW, TL_AG_VIEW, "TransposeBackward0", 0)                   \
    X(permute, METHOD, H_VIEW, TL_AG_VIEW, "PermuteBackward0", 0)              \
    X(movedim, METHOD, H_VIEW, TL_AG_VIEW, "PermuteBackward0", 0)              \
    X(moveaxis, METHOD, H_VIEW, TL_AG_VIEW, "PermuteBackward0", 0)             \
    X(T, ATTR, H_VIEW, TL_AG_VIEW, "PermuteBackward0", 0)                      \
    X(expand, METHOD, H_VIEW, TL_AG_VIEW, "ExpandBackward0", 0)                \
    X(expand_as, METHOD, H_VIEW, TL_AG_VIEW, "ExpandBackward0", 0)             \
    X(broadcast_to, METHOD, H_VIEW, TL_AG_VIEW, "ExpandBackward0", 0)          \
    X(squeeze, METHOD, H_SQUEEZE, TL_AG_VIEW, "SqueezeBackward0", 0)           \
    X(unsqueeze, METHOD, H_VIEW, TL_AG_VIEW, "UnsqueezeBackward0", 0)          \
    X(select, METHOD, H_VIEW, TL_AG_VIEW, "SelectBackward0", 0)                \
    X(narrow, METHOD, H_VIEW, TL_AG_VIEW, "SliceBackward0", 0)                 \
    X(unfold, METHOD, H_VIEW, TL_AG_VIEW, "UnfoldBackward0", 0)                \
    X(diagonal, METHOD, H_VIEW, TL_AG_VIEW, "DiagonalBackward0", 0)            \
    X(as_strided, METHOD, H_VIEW, TL_AG_VIEW, "AsStridedBackward0", 0)         \
    X(split, METHOD, H_SPLIT, TL_AG_VIEW, "SplitBackward0", 0)                 \
    X(split_with_sizes, METHOD, H_MULTI, TL_AG_VIEW, "SplitWithSizesBackward0", 0) \
    X(chunk, METHOD, H_MULTI, TL_AG_VIEW, "SplitBackward0", 0)                 \
    X(unbind, METHOD, H_MULTI, TL_AG_VIEW, "UnbindBackward0", 0)               \
    X(tensor_split, METHOD, H_SEP, TL_AG_VIEW, "SliceBackward0", 0)            \
    X(hsplit, METHOD, H_SEP, TL_AG_VIEW, "SliceBackward0", 0)                  \
    X(vsplit, METHOD, H_SEP, TL_AG_VIEW, "SliceBackward0", 0)                  \
    X(dsplit, METHOD, H_SEP, TL_AG_VIEW, "SliceBackward0", 0)                  \
    X(clone, METHOD, H_IDENTITY, TL_AG_IDENTITY, "CloneBackward0", 0)          \
    X(contiguous, METHOD, H_IDENTITY, TL_AG_IDENTITY, "CloneBackward0", 0)     \
    X(to, METHOD, H_IDENTITY, TL_AG_IDENTITY, "ToCopyBackward0", 0)            \
    X(type, METHOD, H_IDENTITY, TL_AG_IDENTITY, "ToCopyBackward0", 0)          \
    X(float, METHOD, H_IDENTITY, TL_AG_IDENTITY, "ToCopyBackward0", 0)         \
    X(double, METHOD, H_IDENTITY, TL_AG_IDENTITY, "ToCopyBackward0", 0)        \
    X(half, METHOD, H_IDENTITY, TL_AG_IDENTITY, "ToCopyBackward0", 0)          \
    X(bfloat16, METHOD, H_IDENTITY, TL_AG_IDENTITY, "ToCopyBackward0", 0)      \
    X(cpu, METHOD, H_IDENTITY, TL_AG_IDENTITY, "ToCopyBackward0", 0)           \
    X(cuda, METHOD, H_IDENTITY, TL_AG_IDENTITY, "ToCopyBackward0", 0)          \
    X(flip, METHOD, H_GATHER, TL_AG_INDEX, "FlipBackward0", 0)                 \
    X(roll, METHOD, H_GATHER, TL_AG_INDEX, "RollBackward0", 0)                 \
    X(repeat, METHOD, H_GATHER, TL_AG_INDEX, "RepeatBackward0", 0)             \
    X(index_select, METHOD, H_GATHER, TL_AG_INDEX, "IndexSelectBackward0", 0)  \
    X(gather, METHOD, H_GATHER, TL_AG_INDEX, "GatherBackward0", 0)             \
    X(take, METHOD, H_GATHER, TL_AG_INDEX, "TakeBackward0", 0)                 \
    X(masked_select, METHOD, H_GATHER, TL_AG_INDEX, "MaskedSelectBackward0", 0) \
    X(cat, TORCH, H_CAT, TL_AG_CAT, "CatBackward0", 0)                         \
    X(concat, TORCH, H_CAT, TL_AG_CAT, "CatBackward0", 0)                      \
    X(concatenate, TORCH, H_CAT, TL_AG_CAT, "CatBackward0", 0)                 \
    X(stack, TORCH, H_CAT, TL_AG_STACK, "StackBackward0", 0)                   \
    X(masked_fill, METHOD, H_MASKED_FILL, TL_AG_SETITEM, "MaskedFillBackward0", 0) \
    X(take_along_dim, METHOD, H_GATHER, TL_AG_INDEX, "GatherBackward0", 0)     \
    X(index_fill, METHOD, H_SCATTERLIKE, TL_AG_SETITEM, "IndexFillBackward0", 0) \
    X(index_fill_, METHOD, H_SCATTERLIKE, TL_AG_SETITEM, "IndexFillBackward0", 1) \
    X(index_copy, METHOD, H_SCATTERLIKE, TL_AG_SETITEM, "IndexCopyBackward0", 0) \
    X(index_copy_, METHOD, H_SCATTERLIKE, TL_AG_SETITEM, "IndexCopyBackward0", 1) \
    X(masked_scatter, METHOD, H_SCATTERLIKE, TL_AG_SETITEM, "MaskedScatterBackward0", 0) \
    X(masked_scatter_, METHOD, H_SCATTERLIKE, TL_AG_SETITEM, "MaskedScatterBackward0", 1) \
    X(scatter, METHOD, H_SCATTERLIKE, TL_AG_SETITEM, "ScatterBackward0", 0)    \
    X(scatter_, METHOD, H_SCATTERLIKE, TL_AG_SETITEM, "ScatterBackward0", 1)   \
    X(scatter_add, METHOD, H_SCATTERLIKE, TL_AG_PUT_ACC, "ScatterAddBackward0", 0) \
    X(scatter_add_, METHOD, H_SCATTERLIKE, TL_AG_PUT_ACC, "ScatterAddBackward0", 1) \
    X(put, METHOD, H_SCATTERLIKE, TL_AG_SETITEM, "PutBackward0", 0)            \
    X(put_, METHOD, H_SCATTERLIKE, TL_AG_SETITEM, "PutBackward0", 1)           \
    X(masked_fill_, METHOD, H_MASKED_FILL, TL_AG_SETITEM, "MaskedFillBackward0", 1) \
    X(zero_, METHOD, H_ZERO, TL_AG_ZERO, "ZeroBackward0", 1)                   \
    X(fill_, METHOD, H_FILL, TL_AG_ZERO, "FillBackward2", 1)                   \
    X(copy_, METHOD, H_COPY, TL_AG_COPY, "CopyBackwards", 1)                  \
    X(t_, METHOD, H_VIEW_INPLACE, TL_AG_VIEW, "TBackward1", 0)                 \
    X(transpose_, METHOD, H_VIEW_INPLACE, TL_AG_VIEW, "TransposeBackward1", 0) \
    X(swapaxes_, METHOD, H_VIEW_INPLACE, TL_AG_VIEW, "TransposeBackward1", 0)  \
    X(swapdims_, METHOD, H_VIEW_INPLACE, TL_AG_VIEW, "TransposeBackward1", 0)  \
    X(squeeze_, METHOD, H_VIEW_INPLACE, TL_AG_VIEW, "SqueezeBackward2", 0)     \
    X(unsqueeze_, METHOD, H_VIEW_INPLACE, TL_AG_VIEW, "UnsqueezeBackward1", 0) \
    X(as_strided_, METHOD, H_VIEW_INPLACE, TL_AG_VIEW, "AsStridedBackward1", 0) \
    /* ---- math (the sweep: tests/fixtures/sweep_autograd_math.py) ---- */ \
    X(rsqrt, METHOD, H_UNARY, TL_AG_RSQRT, "RsqrtBackward0", 0)                \
    X(rsqrt_, METHOD, H_UNARY, TL_AG_RSQRT, "RsqrtBackward0", 1)               \
    X(reciprocal, METHOD, H_UNARY, TL_AG_RECIPROCAL, "ReciprocalBackward0", 0) \
    X(reciprocal_, METHOD, H_UNARY, TL_AG_RECIPROCAL, "ReciprocalBackward0", 1) \
    X(expm1, METHOD, H_UNARY, TL_AG_EXPM1, "Expm1Backward0", 0)                \
    X(expm1_, METHOD, H_UNARY, TL_AG_EXPM1, "Expm1Backward0", 1)               \
    X(exp2, METHOD, H_UNARY, TL_AG_EXP2, "Exp2Backward0", 0)                   \
    X(exp2_, METHOD, H_UNARY, TL_AG_EXP2, "Exp2Backward0", 1)                  \
    X(tan, METHOD, H_UNARY, TL_AG_TAN, "TanBackward0", 0)                      \
    X(tan_, METHOD, H_UNARY, TL_AG_TAN, "TanBackward0", 1)                     \
    X(log2, METHOD, H_UNARY, TL_AG_LOG2, "Log2Backward0", 0)                   \
    X(log2_, METHOD, H_UNARY, TL_AG_LOG2, "Log2Backward0", 1)                  \
    X(log10, METHOD, H_UNARY, TL_AG_LOG10, "Log10Backward0", 0)                \
    X(log10_, METHOD, H_UNARY, TL_AG_LOG10, "Log10Backward0", 1)               \
    X(log1p, METHOD, H_UNARY, TL_AG_LOG1P, "Log1PBackward0", 0)                \
    X(log1p_, METHOD, H_UNARY, TL_AG_LOG1P, "Log1PBackward0", 1)               \
    X(asin, METHOD, H_UNARY, TL_AG_ASIN, "AsinBackward0", 0)                   \
    X(asin_, METHOD, H_UNARY, TL_AG_ASIN, "AsinBackward0", 1)                  \
    X(acos, METHOD, H_UNARY, TL_AG_ACOS, "AcosBackward0", 0)                   \
    X(acos_, METHOD, H_UNARY, TL_AG_ACOS, "AcosBackward0", 1)                  \
    X(atan, METHOD, H_UNARY, TL_AG_ATAN, "AtanBackward0", 0)                   \
    X(atan_, METHOD, H_UNARY, TL_AG_ATAN, "AtanBackward0", 1)                  \
    X(sinh, METHOD, H_UNARY, TL_AG_SINH, "SinhBackward0", 0)                   \
    X(sinh_, METHOD, H_UNARY, TL_AG_SINH, "SinhBackward0", 1)                  \
    X(cosh, METHOD, H_UNARY, TL_AG_COSH, "CoshBackward0", 0)                   \
    X(cosh_, METHOD, H_UNARY, TL_AG_COSH, "CoshBackward0", 1)                  \
    X(erf, METHOD, H_UNARY, TL_AG_ERF, "ErfBackward0", 0)                      \
    X(erf_, METHOD, H_UNARY, TL_AG_ERF, "ErfBackward0", 1)                     \
    X(floor, METHOD, H_UNARY, TL_AG_ZEROS, "FloorBackward0", 0)                \
    X(floor_, METHOD, H_UNARY, TL_AG_ZEROS, "FloorBackward0", 1)               \
    X(ceil, METHOD, H_UNARY, TL_AG_ZEROS, "CeilBackward0", 0)                  \
    X(ceil_, METHOD, H_UNARY, TL_AG_ZEROS, "CeilBackward0", 1)                 \
    X(round, METHOD, H_UNARY, TL_AG_ZEROS, "RoundBackward0", 0)                \
    X(round_, METHOD, H_UNARY, TL_AG_ZEROS, "RoundBackward0", 1)               \
    X(trunc, METHOD, H_UNARY, TL_AG_ZEROS, "TruncBackward0", 0)                \
    X(trunc_, METHOD, H_UNARY, TL_AG_ZEROS, "TruncBackward0", 1)               \
    X(fix, METHOD, H_UNARY, TL_AG_ZEROS, "TruncBackward0", 0)                  \
    X(fix_, METHOD, H_UNARY, TL_AG_ZEROS, "TruncBackward0", 1)                 \
    X(sign, METHOD, H_UNARY, TL_AG_ZEROS, "SignBackward0", 0)                  \
    X(sign_, METHOD, H_UNARY, TL_AG_ZEROS, "SignBackward0", 1)                 \
    X(frac, METHOD, H_UNARY, TL_AG_PASS, "FracBackward0", 0)                   \
    X(frac_, METHOD, H_UNARY, TL_AG_PASS, "FracBackward0", 1)                  \
    X(square, METHOD, H_SQUARE, TL_AG_POW, "PowBackward0", 0)                  \
    X(square_, METHOD, H_SQUARE, TL_AG_POW, "PowBackward0", 1)                 \
    X(maximum, METHOD, H_OTHER, TL_AG_MAXIMUM, "MaximumBackward0", 0)          \
    X(minimum, METHOD, H_OTHER, TL_AG_MINIMUM, "MinimumBackward0", 0)          \
    X(atan2, METHOD, H_OTHER, TL_AG_ATAN2, "Atan2Backward0", 0)                \
    X(atan2_, METHOD, H_OTHER, TL_AG_ATAN2, "Atan2Backward0", 1)               \
    X(arctan2, METHOD, H_OTHER, TL_AG_ATAN2, "Atan2Backward0", 0)              \
    X(arctan2_, METHOD, H_OTHER, TL_AG_ATAN2, "Atan2Backward0", 1)             \
    X(remainder, METHOD, H_SCALAR0, TL_AG_REMAINDER, "RemainderBackward1", 0)  \
    X(remainder_, METHOD, H_SCALAR0, TL_AG_REMAINDER, "RemainderBackward1", 1) \
    X(fmod, METHOD, H_SCALAR0, TL_AG_FMOD, "FmodBackward1", 0)                 \
    X(fmod_, METHOD, H_SCALAR0, TL_AG_FMOD, "FmodBackward1", 1)                \
    X(eq_, METHOD, H_SCALAR0, TL_AG_ZEROS, "EqBackward1", 1)                   \
    X(ne_, METHOD, H_SCALAR0, TL_AG_ZEROS, "NeBackward1", 1)                   \
    X(lt_, METHOD, H_SCALAR0, TL_AG_ZEROS, "LtBackward1", 1)                   \
    X(le_, METHOD, H_SCALAR0, TL_AG_ZEROS, "LeBackward1", 1)                   \
    X(gt_, METHOD, H_SCALAR0, TL_AG_ZEROS, "GtBackward1", 1)                   \
    X(ge_, METHOD, H_SCALAR0, TL_AG_ZEROS, "GeBackward1", 1)                   \
    X(greater_, METHOD, H_SCALAR0, TL_AG_ZEROS, "GtBackward1", 1)              \
    X(greater_equal_, METHOD, H_SCALAR0, TL_AG_ZEROS, "GeBackward1", 1)        \
    X(less_, METHOD, H_SCALAR0, TL_AG_ZEROS, "LtBackward1", 1)                 \
    X(less_equal_, METHOD, H_SCALAR0, TL_AG_ZEROS, "LeBackward1", 1)           \
    X(not_equal_, METHOD, H_SCALAR0, TL_AG_ZEROS, "NeBackward1", 1)            \
    X(where, METHOD, H_WHERE, TL_AG_WHERE, "WhereBackward0", 0)                \
    X(max, METHOD, H_MAXMIN, TL_AG_MAX_ALL, "MaxBackward1", 0)                 \
    X(min, METHOD, H_MAXMIN, TL_AG_MAX_ALL, "MinBackward1", 0)                 \
    X(amax, METHOD, H_AMAX, TL_AG_AMAX, "AmaxBackward0", 0)                    \
    X(amin, METHOD, H_AMAX, TL_AG_AMAX, "AminBackward0", 0)                    \
    X(var, METHOD, H_VAR, TL_AG_VAR, "VarBackward0", 0)                        \
    X(std, METHOD, H_VAR, TL_AG_STD, "StdBackward0", 0)                        \
    X(prod, METHOD, H_PROD, TL_AG_PROD, "ProdBackward0", 0)                    \
    X(cumsum, METHOD, H_SCAN, TL_AG_CUMSUM, "CumsumBackward0", 0)              \
    X(cumsum_, METHOD, H_SCAN, TL_AG_CUMSUM, "CumsumBackward0", 1)             \
    X(cumprod, METHOD, H_SCAN, TL_AG_CUMPROD, "CumprodBackward0", 0)           \
    X(cumprod_, METHOD, H_SCAN, TL_AG_CUMPROD, "CumprodBackward0", 1)          \
    X(lerp, METHOD, H_LERP, TL_AG_LERP, "LerpBackward0", 0)                    \
    X(lerp_, METHOD, H_LERP, TL_AG_LERP, "LerpBackward0", 1)                   \
    X(kthvalue, METHOD, H_KTH, TL_AG_MAX_DIM, "KthvalueBackward0", 0)          \
    X(msort, METHOD, H_MSORT, TL_AG_INDEX, "SortBackward0", 0)

typedef struct spec {
    const char *name;
    tl_bind_kind kind;
    how h;
    tl_ag_op op;
    const char *node;
    bool inplace;
} spec;

enum {
#define X(n, k, h, o, nd, ip) S_##n,
    GRAD_SPECS(X)
#undef X
    S_N
};

static const spec specs[S_N] = {
#define X(n, k, h, o, nd, ip) {#n, k, h, o, nd, ip},
    GRAD_SPECS(X)
#undef X
};

static tl_value *grad_call(int idx, tl_value *self, const tl_args *a, tl_error *err);

#define X(n, k, h, o, nd, ip)                                                  \
    static tl_value *w_##n(tl_value *self, const tl_args *a, tl_error *err)    \
    {                                                                          \
        return grad_call(S_##n, self, a, err);                                 \
    }
GRAD_SPECS(X)
#undef X

static const tl_binding wrappers[S_N] = {
#define X(n, k, h, o, nd, ip) {#n, w_##n, k == ATTR, ip},
    GRAD_SPECS(X)
#undef X
};

static const tl_binding *raw_cache[S_N];

/* the safety net (end of the file): every other op's wrapper */
static const tl_binding *net_wrap(tl_bind_kind kind, const tl_binding *raw);

/* The specs by the first letter of their name, in table order (the first
 * match wins, as in a scan of the table): a lookup reads one letter's
 * rows instead of all S_N. Built once. */
static uint16_t letter_start[129], letter_rows[S_N];
static pthread_once_t letters_once = PTHREAD_ONCE_INIT;

_Static_assert(S_N < UINT16_MAX, "spec rows fit the letter index");

static void build_letters(void)
{
    uint16_t count[128] = {0};
    for (int i = 0; i < S_N; i++)
        count[(unsigned char)specs[i].name[0] & 127]++;
    for (int c = 0; c < 128; c++)
        letter_start[c + 1] = (uint16_t)(letter_start[c] + count[c]);
    uint16_t fill[128];
    memcpy(fill, letter_start, sizeof fill);
    for (int i = 0; i < S_N; i++)
        letter_rows[fill[(unsigned char)specs[i].name[0] & 127]++] = (uint16_t)i;
}

const tl_binding *tl_bind_grad_wrap(tl_bind_kind kind, const tl_binding *raw)
{
    pthread_once(&letters_once, build_letters);
    unsigned c = (unsigned char)raw->name[0] & 127;
    for (int k = letter_start[c]; k < letter_start[c + 1]; k++) {
        int i = letter_rows[k];
        if (specs[i].kind == kind && strcmp(specs[i].name, raw->name) == 0) {
            raw_cache[i] = raw;
            return &wrappers[i];
        }
    }
    return net_wrap(kind, raw);
}

static const tl_binding *raw_of(int idx)
{
    if (!raw_cache[idx])
        raw_cache[idx] = tl_bind_find_raw(specs[idx].kind, specs[idx].name);
    return raw_cache[idx];
}

/* ===================================================================== */
/* operands                                                               */

static tl_tensor *tensor_of(const tl_value *v)
{
    return v && v->kind == TL_V_TENSOR ? v->u.tensor : NULL;
}

bool tl_grad_requires_grad(const tl_value *v)
{
    if (!v)
        return false;
    if (v->kind == TL_V_TENSOR)
        return v->u.tensor->requires_grad;
    if (v->kind == TL_V_LIST || v->kind == TL_V_TUPLE)
        for (size_t i = 0; i < v->u.seq.n; i++)
            if (v->u.seq.items[i]->kind == TL_V_TENSOR &&
                v->u.seq.items[i]->u.tensor->requires_grad)
                return true;
    return false;
}

static bool args_rg(const tl_value *self, const tl_args *a)
{
    if (tl_grad_requires_grad(self))
        return true;
    for (size_t i = 0; i < a->npos; i++)
        if (tl_grad_requires_grad(a->pos[i]))
            return true;
    for (size_t i = 0; i < a->nkw; i++)
        if (tl_grad_requires_grad(a->kwvals[i]))
            return true;
    return false;
}

/* the first argument, positional or keyword */
static tl_value *first_arg(const tl_args *a)
{
    return a->npos ? a->pos[0] : a->nkw ? a->kwvals[0] : NULL;
}

/* A call under construction: operands and parameters. */
typedef struct prep {
    tl_ag_call c;
    tl_tensor *in[3];   /* in[2]: clamp's tensor max, index_put's first index (saved) */
    tl_tensor **many;   /* cat/stack inputs (owned array) */
    tl_value *map;      /* masked_fill's written elements (owned) */
    bool skip;          /* not differentiable as called: record nothing */
    const char *unsupported; /* a form tlab has no formula for (why) */
    bool failed;        /* grad-shape: the map could not be had (fail says
                           why): an error once the op itself succeeded */
    tl_error fail;
} prep;

/* operand v: a tensor, or a number into *s (has = true) */
static void operand(const tl_value *v, tl_tensor **t, double *s, bool *has)
{
    *t = tensor_of(v);
    if (!*t && v && tl_value_as_double(v, s))
        *has = true;
}

static const char *matmul_name(int da, int db)
{
    if (da == 1 && db == 1)
        return "DotBackward0";
    if (da == 2 && db == 1)
        return "MvBackward0";
    if (da == 2 && db == 2)
        return "MmBackward0";
    if (da == 1 && db == 2)
        return "SqueezeBackward3";
    return "UnsafeViewBackward0";
}

static tl_value *index_probe(const tl_tensor *t, tl_error *err);

/* masked_fill's map: the flat indices (in the broadcast shape of self and
 * mask, the result's) of the elements the mask selects, read before the
 * op runs (an in-place op may write the mask's own storage). NULL when
 * they cannot be had: the op then raises its own error, or records nothing. */
static tl_value *masked_map(const tl_tensor *self, const tl_tensor *mask)
{
    tl_error e2;
    int64_t shape[TL_MAX_DIMS];
    int nd = tl_shape_broadcast(self->ndim, self->sizes, mask->ndim, mask->sizes, shape, &e2);
    if (nd < 0 || mask->dtype != TL_BOOL)
        return NULL;
    tl_tensor *like = tl_tensor_view(self, nd, shape, (int64_t[TL_MAX_DIMS]){0}, 0);
    if (!like)
        return NULL;
    tl_value *probe = index_probe(like, &e2);
    tl_tensor_release(like);
    if (!probe)
        return NULL;
    const tl_binding *ms = tl_bind_find_raw(TL_BIND_METHOD, "masked_select");
    tl_value *mv = tl_value_tensor(tl_tensor_alias(mask));
    tl_args ma = {.npos = 1, .pos = &mv};
    tl_value *m = ms ? ms->fn(probe, &ma, &e2) : NULL;
    tl_value_release(mv);
    tl_value_release(probe);
    if (m && m->kind != TL_V_TENSOR) {
        tl_value_release(m);
        m = NULL;
    }
    return m;
}

/* method m of self's probe with the given arguments (NULL on any error:
 * the op itself then raises it, or records nothing) */
static tl_value *probe_call(const char *m, tl_value *probe, size_t n, tl_value **args)
{
    tl_error e2;
    const tl_binding *b = tl_bind_find_raw(TL_BIND_METHOD, m);
    tl_args a = {.npos = n, .pos = args};
    tl_value *r = b ? b->fn(probe, &a, &e2) : NULL;
    if (r && r->kind != TL_V_TENSOR) {
        tl_value_release(r);
        r = NULL;
    }
    return r;
}

static bool same_shape(const tl_tensor *a, const tl_tensor *b)
{
    return tl_shape_equal(a->ndim, a->sizes, b->ndim, b->sizes);
}

/* index_fill, index_copy, masked_scatter, scatter, scatter_add, put: the
 * map of the elements of self the op writes (their flat indices), shaped
 * like the source tensor (-1 for a source element nothing reads:
 * masked_scatter's tail), read before the op runs. SETITEM's formula then
 * gives self g less those elements (PUT_ACC: all of g) and the source g
 * at them, which is derivatives.yaml's for each: index_select, gather,
 * take, masked_select of the gradient. */
static void scatter_like(const spec *s, const tl_args *a, prep *p)
{
    tl_ag_call *c = &p->c;
    size_t len = strlen(s->name);
    char base[32];
    snprintf(base, sizeof base, "%.*s", (int)(s->inplace && len ? len - 1 : len), s->name);
    tl_error e2;
    tl_value *probe = p->in[0] ? index_probe(p->in[0], &e2) : NULL;
    tl_value *src = NULL, *m = NULL;
    p->skip = true;
    if (!probe)
        return;
    if (!strcmp(base, "index_fill") || !strcmp(base, "index_copy")) {
        tl_value *args[2] = {tl_arg(a, 0, "dim"), tl_arg(a, 1, "index")};
        src = tl_arg(a, 2, !strcmp(base, "index_fill") ? "value" : "source");
        if (args[0] && args[1])
            m = probe_call("index_select", probe, 2, args);
        if (m && !strcmp(base, "index_copy") &&
            (!tensor_of(src) || !same_shape(m->u.tensor, src->u.tensor))) {
            tl_value_release(m);
            m = NULL;
        }
        if (tensor_of(src) && !strcmp(base, "index_fill"))
            c->name = "IndexFillBackward1";
    } else if (!strcmp(base, "scatter") || !strcmp(base, "scatter_add")) {
        tl_value *args[2] = {tl_arg(a, 0, "dim"), tl_arg(a, 1, "index")};
        src = tl_arg(a, 2, "src");
        if (!src)
            src = tl_arg(a, 2, "value");
        tl_value *rd = tl_arg(a, 3, "reduce");
        if (rd && rd->kind != TL_V_NONE) {
            p->unsupported = "with reduce=";
            tl_value_release(probe);
            return;
        }
        if (args[0] && args[1])
            m = probe_call("gather", probe, 2, args);
        /* a source larger than index: PyTorch's backward refuses the
         * gradient's shape; not recorded here */
        if (m && tensor_of(src) && !same_shape(m->u.tensor, src->u.tensor)) {
            tl_value_release(m);
            m = NULL;
        }
        if (!strcmp(base, "scatter") && src && !tensor_of(src))
            c->name = "ScatterBackward1";
    } else if (!strcmp(base, "masked_scatter")) {
        tl_tensor *mask = tensor_of(tl_arg(a, 0, "mask"));
        src = tl_arg(a, 1, "source");
        tl_value *sel = mask ? masked_map(p->in[0], mask) : NULL;
        tl_tensor *st = tensor_of(src);
        if (sel && st && tl_tensor_numel(st) >= tl_tensor_numel(sel->u.tensor)) {
            tl_scalar neg = {.is_float = false, .i = -1};
            tl_tensor *mt = tl_create_full(tl_backend_cpu(), TL_INT64, st->ndim, st->sizes,
                                           neg, &e2);
            int64_t k = tl_tensor_numel(sel->u.tensor), v;
            for (int64_t j = 0; mt && j < k; j++)
                if (tl_tensor_get_i64(sel->u.tensor, j, &v, &e2) < 0 ||
                    tl_tensor_set_i64(mt, j, v, &e2) < 0) {
                    tl_tensor_release(mt);
                    mt = NULL;
                }
            m = mt ? tl_value_tensor(mt) : NULL;
        }
        if (sel)
            tl_value_release(sel);
    } else if (!strcmp(base, "put")) {
        tl_value *idx = tl_arg(a, 0, "index");
        src = tl_arg(a, 1, "source");
        tl_value *acc = tl_arg(a, 2, "accumulate");
        bool ac = false;
        tl_value *args[1] = {idx};
        tl_tensor *st = tensor_of(src);
        if (idx && st && (!acc || tl_value_truthy(acc, &ac, NULL) == 0)) {
            tl_value *t = probe_call("take", probe, 1, args);
            if (t && tl_tensor_numel(t->u.tensor) == tl_tensor_numel(st)) {
                int64_t stt[TL_MAX_DIMS];
                tl_shape_contiguous_strides(st->ndim, st->sizes, stt);
                tl_tensor *v = tl_tensor_view(t->u.tensor, st->ndim, st->sizes, stt, 0);
                m = v ? tl_value_tensor(v) : NULL;
            }
            if (t)
                tl_value_release(t);
        }
        if (ac)
            c->op = TL_AG_PUT_ACC;
    }
    tl_value_release(probe);
    if (!m)
        return;
    if (src && src->kind == TL_V_TENSOR) {
        p->in[1] = src->u.tensor;
        c->nin = 2;
    } else if (src && tl_value_as_double(src, &c->s0)) {
        c->has0 = true;
    } else {
        tl_value_release(m);
        return;
    }
    p->map = m;
    c->map = m->u.tensor;
    p->skip = false;
}

/* ---- math helpers of prepare ---- */

/* The node of an op's number form: PyTorch names remainder(x, 2) and
 * x.eq_(2) RemainderBackward0 and EqBackward0 (the tensor forms end in 1). */
static const char *scalar_node(const char *node)
{
    static const char *const pairs[][2] = {
        {"RemainderBackward1", "RemainderBackward0"}, {"FmodBackward1", "FmodBackward0"},
        {"EqBackward1", "EqBackward0"}, {"NeBackward1", "NeBackward0"},
        {"LtBackward1", "LtBackward0"}, {"LeBackward1", "LeBackward0"},
        {"GtBackward1", "GtBackward0"}, {"GeBackward1", "GeBackward0"},
    };
    for (size_t i = 0; i < TL_ARRAY_LEN(pairs); i++)
        if (!strcmp(pairs[i][0], node))
            return pairs[i][1];
    return node;
}

/* clamp(min=, max=) with tensor bounds (None or absent: no bound):
 * ClampBackward0 over self, min, max; a number beside a tensor is not one
 * of PyTorch's forms (it raises a TypeError there) */
static void clamp_tensor_bounds(tl_value *mn, tl_value *mx, prep *p)
{
    tl_ag_call *c = &p->c;
    bool bad = (mn && mn->kind != TL_V_NONE && mn->kind != TL_V_TENSOR) ||
               (mx && mx->kind != TL_V_NONE && mx->kind != TL_V_TENSOR);
    if (bad) {
        p->skip = true;
        p->unsupported = "with a number and a tensor for bounds";
        return;
    }
    c->op = TL_AG_CLAMP_T;
    c->name = "ClampBackward0";
    p->in[1] = tensor_of(mn);
    p->in[2] = tensor_of(mx);
    c->nin = 3;
}

static void keepdim_arg(tl_value *k, tl_ag_call *c)
{
    bool kd = false;
    if (k && tl_value_truthy(k, &kd, NULL) == 0)
        c->keepdim = kd;
}

/* dim=None / () / int / list of ints, wrapped against t's rank: the
 * reduced dims of c (all_dims when none is named) */
static void dims_arg_of(tl_value *d, const tl_tensor *t, tl_ag_call *c)
{
    c->all_dims = true;
    c->nd = 0;
    if (!d || d->kind == TL_V_NONE)
        return;
    int64_t dims[TL_MAX_DIMS];
    tl_error e2;
    int n = tl_to_int_list(d, "dim", true, dims, TL_MAX_DIMS, &e2);
    int nd = t ? t->ndim : 0;
    if (n <= 0)
        return;
    c->all_dims = false;
    c->nd = n;
    for (int i = 0; i < n; i++) {
        int w = 0;
        if (tl_shape_wrap_dim(dims[i], nd > 0 ? nd : 1, &w, &e2) == 0)
            c->dims[i] = w;
    }
}
static void shape_prepare(const spec *s, tl_value *self, const tl_args *a, prep *p);
static void saved_index(const spec *s, const tl_args *a, prep *p);
static int shape_finish(const spec *s, prep *p, const tl_args *a, tl_tensor **outs,
                        int nout, tl_error *err);

/* Read the operands of spec s from self/args (before the op runs). */
static void prepare(const spec *s, tl_value *self, const tl_args *a, prep *p)
{
    /* all but fail's 1 KiB message, which only a failure writes */
    memset(p, 0, offsetof(prep, fail));
    p->fail.kind = (tl_errkind)0;
    p->fail.span = (tl_span){0};
    p->fail.msg[0] = '\0';
    tl_ag_call *c = &p->c;
    c->op = s->op;
    c->name = s->node;
    c->in = p->in;
    p->in[0] = tensor_of(self);
    c->nin = 1;
    switch (s->h) {
    /* ---- math ---- */
    case H_SQUARE: /* square is pow(self, 2) in PyTorch */
        c->s0 = 2;
        c->has0 = true;
        break;
    case H_OTHER: case H_SCALAR0: {
        /* a tensor operand; H_SCALAR0 takes a number too, and the number
         * form is PyTorch's other node ("...Backward0") */
        tl_value *o = tl_arg(a, 0, "other");
        operand(o, &p->in[1], &c->s0, &c->has0);
        c->nin = 2;
        if (!p->in[1] && (s->h == H_OTHER || !c->has0))
            p->skip = true;
        else if (!p->in[1])
            c->name = scalar_node(s->node);
        break;
    }
    case H_WHERE: {
        tl_tensor *cond = tensor_of(tl_arg(a, 0, "condition"));
        tl_value *o = tl_arg(a, 1, "other");
        operand(o, &p->in[1], &c->s0, &c->has0);
        c->nin = 2;
        c->map = cond;
        if (!cond || (!p->in[1] && !c->has0))
            p->skip = true;
        break;
    }
    case H_MAXMIN: {
        /* max(): MaxBackward1; max(dim): MaxBackward0 (values, indices);
         * max(other): maximum */
        bool is_max = s->name[1] == 'a';
        tl_value *d = tl_arg(a, 0, "dim"), *o = tl_arg(a, (size_t)-1, "other");
        if (d && d->kind == TL_V_TENSOR && a->npos == 1 && a->nkw == 0)
            o = d, d = NULL;
        if (o) {
            p->in[1] = tensor_of(o);
            c->nin = 2;
            c->op = is_max ? TL_AG_MAXIMUM : TL_AG_MINIMUM;
            c->name = is_max ? "MaximumBackward0" : "MinimumBackward0";
            if (!p->in[1])
                p->skip = true;
        } else if (d) {
            int64_t dim;
            tl_error e2;
            int w = 0, nd = p->in[0] ? p->in[0]->ndim : 0;
            if (!tl_value_as_index(d, &dim) ||
                tl_shape_wrap_dim(dim, nd > 0 ? nd : 1, &w, &e2) < 0)
                p->skip = true;
            c->op = TL_AG_MAX_DIM;
            c->name = is_max ? "MaxBackward0" : "MinBackward0";
            c->dim = w;
            keepdim_arg(tl_arg(a, 1, "keepdim"), c);
        } else {
            c->all_dims = true;
        }
        break;
    }
    case H_AMAX:
        dims_arg_of(tl_arg(a, 0, "dim"), p->in[0], c);
        keepdim_arg(tl_arg(a, 1, "keepdim"), c);
        break;
    case H_VAR: {
        /* (dim, unbiased, keepdim), (unbiased) or (dim, *, correction, keepdim) */
        tl_value *d = tl_arg(a, 0, "dim");
        size_t ub = 1, kd = 2;
        bool unbiased = true;
        if (d && d->kind == TL_V_BOOL && a->npos >= 1) {
            unbiased = d->u.b;
            d = NULL;
            ub = kd = (size_t)-1;
        }
        tl_value *u = tl_arg(a, ub, "unbiased"), *cv = tl_arg(a, (size_t)-1, "correction");
        if (u && u->kind == TL_V_BOOL)
            unbiased = u->u.b;
        double corr = unbiased ? 1 : 0;
        if (cv && cv->kind != TL_V_NONE && !tl_value_as_double(cv, &corr))
            p->skip = true;
        c->s0 = corr;
        dims_arg_of(d, p->in[0], c);
        keepdim_arg(tl_arg(a, kd, "keepdim"), c);
        break;
    }
    case H_PROD: {
        tl_value *d = tl_arg(a, 0, "dim");
        int64_t dim;
        c->all_dims = true;
        if (d && d->kind != TL_V_NONE) {
            tl_error e2;
            int w = 0, nd = p->in[0] ? p->in[0]->ndim : 0;
            if (!tl_value_as_index(d, &dim) ||
                tl_shape_wrap_dim(dim, nd > 0 ? nd : 1, &w, &e2) < 0)
                p->skip = true;
            c->all_dims = false;
            c->nd = 1;
            c->dims[0] = w;
            c->name = "ProdBackward1";
            keepdim_arg(tl_arg(a, 1, "keepdim"), c);
        }
        break;
    }
    case H_SCAN: case H_KTH: {
        /* cumsum(dim) / cumprod(dim); kthvalue(k, dim=-1, keepdim=False) */
        bool kth = s->h == H_KTH;
        tl_value *d = tl_arg(a, kth ? 1 : 0, "dim");
        int64_t dim = -1;
        tl_error e2;
        int w = 0, nd = p->in[0] ? p->in[0]->ndim : 0;
        if ((d && d->kind != TL_V_NONE && !tl_value_as_index(d, &dim)) || (!d && !kth) ||
            tl_shape_wrap_dim(dim, nd > 0 ? nd : 1, &w, &e2) < 0)
            p->skip = true;
        c->dim = w;
        if (kth)
            keepdim_arg(tl_arg(a, 2, "keepdim"), c);
        break;
    }
    case H_LERP: {
        tl_value *e = tl_arg(a, 0, "end"), *w = tl_arg(a, 1, "weight");
        p->in[1] = tensor_of(e);
        c->nin = 2;
        if (w && w->kind == TL_V_TENSOR) {
            p->in[2] = w->u.tensor;
            c->nin = 3;
            c->name = "LerpBackward1";
        } else if (!w || !tl_value_as_double(w, &c->s0)) {
            p->skip = true;
        }
        if (!p->in[1])
            p->skip = true;
        break;
    }
    case H_MSORT: {
        /* msort(x) = x.sort(0).values: the map is the probe gathered with
         * sort's indices (read before the op, as sort's node saves them) */
        p->skip = true;
        if (!p->in[0] || p->in[0]->ndim == 0 || !self)
            break;
        tl_error e2;
        const tl_binding *so = tl_bind_find_raw(TL_BIND_METHOD, "sort");
        tl_value *zero = tl_int(0);
        tl_args sa = {.npos = 1, .pos = &zero};
        tl_value *sr = so ? so->fn(self, &sa, &e2) : NULL;
        tl_value *probe = index_probe(p->in[0], &e2);
        if (sr && probe && sr->kind == TL_V_TUPLE && sr->u.seq.n == 2) {
            tl_value *args[2] = {zero, sr->u.seq.items[1]};
            p->map = probe_call("gather", probe, 2, args);
            if (p->map) {
                c->map = p->map->u.tensor;
                p->skip = false;
            }
        }
        tl_value_release(zero);
        if (sr)
            tl_value_release(sr);
        if (probe)
            tl_value_release(probe);
        break;
    }
    case H_BINARY: {
        tl_value *o = tl_arg(a, 0, "other");
        operand(o, &p->in[1], &c->s0, &c->has0);
        c->nin = 2;
        tl_value *al = tl_arg(a, (size_t)-1, "alpha");
        if (al && tl_value_as_double(al, &c->s1))
            c->has1 = true;
        tl_value *rm = tl_arg(a, (size_t)-1, "rounding_mode");
        if (rm && rm->kind != TL_V_NONE) {
            /* div(rounding_mode=): a step function, zero gradients */
            c->op = TL_AG_DIV_MODE;
            c->name = "DivBackward2";
        }
        if (!p->in[1] && !c->has0)
            p->skip = true;
        break;
    }
    case H_POW: {
        tl_value *e = tl_arg(a, 0, "exponent");
        tl_tensor *et = NULL;
        double ev = 0;
        bool has = false;
        operand(e, &et, &ev, &has);
        if (!p->in[0]) {
            /* torch.pow(2, x) */
            double b;
            if (et && self && tl_value_as_double(self, &b)) {
                c->op = TL_AG_POW_BASE;
                c->name = "PowBackward2";
                c->s0 = b;
                p->in[0] = et;
            } else {
                p->skip = true;
            }
        } else if (et) {
            c->op = TL_AG_POW_T;
            c->name = "PowBackward1";
            p->in[1] = et;
            c->nin = 2;
        } else if (has) {
            c->s0 = ev;
        } else {
            p->skip = true;
        }
        break;
    }
    case H_CLAMP: {
        tl_value *mn = tl_arg(a, 0, "min"), *mx = tl_arg(a, 1, "max");
        if ((mn && mn->kind == TL_V_TENSOR) || (mx && mx->kind == TL_V_TENSOR)) {
            clamp_tensor_bounds(mn, mx, p);
            break;
        }
        if (mn && mn->kind != TL_V_NONE && tl_value_as_double(mn, &c->s0))
            c->has0 = true;
        if (mx && mx->kind != TL_V_NONE && tl_value_as_double(mx, &c->s1))
            c->has1 = true;
        break;
    }
    case H_CLAMP_MIN: case H_CLAMP_MAX: {
        tl_value *v = first_arg(a);
        if (v && v->kind == TL_V_TENSOR) {
            clamp_tensor_bounds(s->h == H_CLAMP_MIN ? v : NULL, s->h == H_CLAMP_MAX ? v : NULL, p);
            c->name = s->h == H_CLAMP_MIN ? "ClampMinBackward1" : "ClampMaxBackward1";
            break;
        }
        if (!v || !tl_value_as_double(v, &c->s0))
            p->skip = true;
        c->has0 = true;
        break;
    }
    case H_RED: {
        tl_value *d = tl_arg(a, 0, "dim"), *k = tl_arg(a, 1, "keepdim");
        int nd = p->in[0] ? p->in[0]->ndim : 0;
        c->all_dims = true;
        if (d && d->kind != TL_V_NONE) {
            int64_t dims[TL_MAX_DIMS];
            tl_error e2;
            int n = tl_to_int_list(d, "dim", true, dims, TL_MAX_DIMS, &e2);
            if (n > 0) {
                c->all_dims = false;
                c->nd = n;
                for (int i = 0; i < n; i++) {
                    int w = 0;
                    if (tl_shape_wrap_dim(dims[i], nd, &w, &e2) == 0)
                        c->dims[i] = w;
                }
                c->name = s->op == TL_AG_SUM ? "SumBackward1" : "MeanBackward1";
            }
        }
        bool kd = false;
        if (k && tl_value_truthy(k, &kd, NULL) == 0)
            c->keepdim = kd;
        break;
    }
    case H_MATMUL: {
        p->in[1] = tensor_of(first_arg(a));
        c->nin = 2;
        if (!p->in[0] || !p->in[1])
            p->skip = true;
        else if (!c->name)
            c->name = matmul_name(p->in[0]->ndim, p->in[1]->ndim);
        break;
    }
    case H_SQUEEZE:
        if (a->npos || a->nkw)
            c->name = "SqueezeBackward1";
        break;
    case H_SPLIT: {
        tl_value *v = first_arg(a);
        if (v && v->kind != TL_V_INT)
            c->name = "SplitWithSizesBackward0";
        c->multi_output = true;
        break;
    }
    case H_MULTI:
        c->multi_output = true;
        break;
    case H_CAT: {
        tl_value *l = tl_arg(a, 0, "tensors");
        if (!l || (l->kind != TL_V_LIST && l->kind != TL_V_TUPLE) || !l->u.seq.n) {
            p->skip = true;
            break;
        }
        size_t n = l->u.seq.n;
        p->many = tl_xcalloc(n, sizeof *p->many);
        for (size_t i = 0; i < n; i++) {
            p->many[i] = tensor_of(l->u.seq.items[i]);
            if (!p->many[i])
                p->skip = true;
        }
        c->in = p->many;
        c->nin = (int)n;
        int64_t dim = 0;
        tl_value *d = tl_arg(a, 1, "dim");
        if (d && !tl_value_as_index(d, &dim))
            p->skip = true;
        c->dim = dim;
        break;
    }
    case H_FILL: {
        tl_value *v = tl_arg(a, 0, "value");
        if (v && v->kind == TL_V_TENSOR)
            c->name = "FillBackward3"; /* the value's own grad is not kept */
        break;
    }
    case H_MASKED_FILL: {
        /* MaskedFillBackward0/1: self's grad is g with the masked elements
         * zeroed, a tensor value's the sum of g over them (setitem's) */
        tl_tensor *mask = tensor_of(tl_arg(a, 0, "mask"));
        tl_value *v = tl_arg(a, 1, "value");
        if (!p->in[0] || !mask || !v || !(p->map = masked_map(p->in[0], mask))) {
            p->skip = true;
            break;
        }
        c->map = p->map->u.tensor;
        if (v->kind == TL_V_TENSOR) {
            p->in[1] = v->u.tensor;
            c->nin = 2;
            c->name = "MaskedFillBackward1";
        } else if (tl_value_as_double(v, &c->s0)) {
            c->has0 = true;
        } else {
            p->skip = true;
        }
        break;
    }
    case H_SCATTERLIKE:
        scatter_like(s, a, p);
        break;
    case H_COPY:
        p->in[1] = tensor_of(tl_arg(a, 0, "src"));
        c->nin = 2;
        if (!p->in[1])
            p->skip = true;
        break;
    case H_GATHER1_FN: case H_TRI_INPLACE: case H_SORT: case H_VIEW_FN:
    case H_STACKS: case H_INDEX_PUT: case H_NOT_IMPL:
        shape_prepare(s, self, a, p); /* grad-shape */
        break;
    default:
        break;
    }
    if (!c->in[0])
        p->skip = true;
}

/* int64 arange(numel) shaped like t, on t's device (a replay takes the
 * op's own index tensors, which live there): the flat index of every element */
static tl_value *index_probe(const tl_tensor *t, tl_error *err)
{
    int64_t n = tl_tensor_numel(t);
    tl_tensor *r = tl_create_arange(tl_tensor_backend(t), TL_INT64, 0, (double)n, 1, err);
    if (!r)
        return NULL;
    int64_t st[TL_MAX_DIMS];
    tl_shape_contiguous_strides(t->ndim, t->sizes, st);
    tl_tensor *v = tl_tensor_view(r, t->ndim, t->sizes, st, 0);
    tl_tensor_release(r);
    return tl_value_tensor(v);
}

/* outputs of a result value: a tensor or a tuple/list of tensors */
static int outputs_of(tl_value *r, tl_tensor ***outs)
{
    if (r->kind == TL_V_TENSOR) {
        *outs = tl_xmalloc(sizeof **outs);
        (*outs)[0] = r->u.tensor;
        return 1;
    }
    if (r->kind != TL_V_TUPLE && r->kind != TL_V_LIST)
        return 0;
    size_t n = r->u.seq.n;
    if (n == 0) /* an empty tuple has no outputs (and nothing to free) */
        return 0;
    *outs = tl_xcalloc(n, sizeof **outs);
    for (size_t i = 0; i < n; i++) {
        (*outs)[i] = tensor_of(r->u.seq.items[i]);
        if (!(*outs)[i]) {
            free(*outs);
            return 0;
        }
    }
    return (int)n;
}

/* After the op: complete the call with the outputs and record it. */
static int finish(const spec *s, prep *p, tl_value *self, const tl_args *a,
                  tl_value *r, tl_tensor *orig, tl_error *err)
{
    tl_ag_call *c = &p->c;
    int rc = 0;
    if (s->inplace) {
        tl_tensor *out[1] = {c->in[0]};
        c->out = out;
        c->nout = 1;
        if (p->skip) {
            tl_tensor_release(orig);
            return 0;
        }
        return tl_ag_record_inplace(c, orig, err);
    }
    if (p->skip)
        return 0;
    tl_tensor **outs = NULL;
    int nout = outputs_of(r, &outs);
    if (nout <= 0)
        return 0;
    c->out = outs;
    c->nout = nout;
    tl_value *probe = NULL, *map = NULL;
    switch (s->h) {
    case H_RESHAPE:
        if (outs[0]->storage != c->in[0]->storage) {
            c->op = TL_AG_IDENTITY;
            /* ravel is contiguous().view(-1): its last node is a view */
            c->name = strcmp(s->name, "ravel") ? "UnsafeViewBackward0" : "ViewBackward0";
        }
        break;
    case H_SEP: {
        /* each piece is its own slice */
        c->nout = 1;
        for (int k = 0; k < nout && rc == 0; k++) {
            c->out = &outs[k];
            rc = tl_ag_record(c, err);
        }
        free(outs);
        return rc;
    }
    case H_GATHER:
        if (!tl_ag_grad_enabled() || !c->in[0]->requires_grad)
            break;
        probe = index_probe(c->in[0], err);
        if (!probe)
            goto out;
        {
            tl_error e2;
            map = raw_of((int)(s - specs))->fn(probe, a, &e2);
        }
        if (!map || map->kind != TL_V_TENSOR) {
            /* the probe did not replay: leave the op without a node */
            rc = 0;
            goto out;
        }
        c->map = map->u.tensor;
        saved_index(s, a, p); /* grad-shape */
        break;
    case H_CAT:
        if (c->dim < 0)
            c->dim += outs[0]->ndim;
        break;
    case H_GATHER1: case H_GATHER1_FN: case H_SORT: case H_VIEW_FN: case H_STACKS:
        rc = shape_finish(s, p, a, outs, nout, err); /* grad-shape */
        free(outs);
        return rc;
    default:
        break;
    }
    rc = tl_ag_record(c, err);
out:
    if (probe)
        tl_value_release(probe);
    if (map)
        tl_value_release(map);
    free(outs);
    (void)self;
    return probe && !map ? 0 : rc;
}

static bool net_dropped_call(tl_bind_kind kind, const char *name, const tl_ag_call *c,
                             tl_value *self, const tl_args *a, tl_value *r, tl_error *err);
static int net_refuse(tl_bind_kind kind, const char *name, const char *why, tl_error *err);
/* ===================================================================== */
/* grad-shape: shape, ordering, diagonal and *_copy ops                   */

/* int64 1 + arange(numel) shaped like t: 1 + the flat index of each
 * element, so that 0 stands for an element no input element made (on t's
 * device, as index_probe) */
static tl_value *index_probe1(const tl_tensor *t, tl_error *err)
{
    int64_t n = tl_tensor_numel(t);
    tl_tensor *r = tl_create_arange(tl_tensor_backend(t), TL_INT64, 1, (double)n + 1, 1, err);
    if (!r)
        return NULL;
    int64_t st[TL_MAX_DIMS];
    tl_shape_contiguous_strides(t->ndim, t->sizes, st);
    tl_tensor *v = tl_tensor_view(r, t->ndim, t->sizes, st, 0);
    tl_tensor_release(r);
    return tl_value_tensor(v);
}

/* The map from a replay on index_probe1: every element less one (new
 * value, or NULL when m is not a tensor). */
static tl_value *map_less1(const tl_value *m, tl_error *err)
{
    if (!m || m->kind != TL_V_TENSOR)
        return NULL;
    tl_gbuf *g = tl_gbuf_from_tensor(m->u.tensor, err);
    if (!g)
        return NULL;
    for (int64_t i = 0; i < g->n; i++)
        g->v[i] -= 1;
    tl_tensor *t = tl_gbuf_to_tensor(g, tl_backend_cpu(), err);
    tl_gbuf_free(g);
    return t ? tl_value_tensor(t) : NULL;
}

/* A torch function's tensor operand: the first positional, or input= */
static tl_value *fn_operand(const tl_args *a, size_t *kw_at)
{
    *kw_at = (size_t)-1;
    if (a->npos)
        return a->pos[0];
    for (size_t k = 0; k < a->nkw; k++)
        if (!strcmp(a->kwnames[k], "input") || !strcmp(a->kwnames[k], "self")) {
            *kw_at = k;
            return a->kwvals[k];
        }
    return NULL;
}

/* Run spec s's raw binding on probe in place of its tensor operand. */
static tl_value *replay(const spec *s, const tl_args *a, tl_value *probe, tl_error *err)
{
    const tl_binding *raw = raw_of((int)(s - specs));
    if (!raw)
        return NULL;
    if (s->kind == TL_BIND_METHOD)
        return raw->fn(probe, a, err);
    size_t at;
    if (!fn_operand(a, &at))
        return NULL;
    tl_args b = *a;
    tl_value **arr = NULL;
    if (a->npos) {
        arr = tl_xmalloc(a->npos * sizeof *arr);
        memcpy(arr, a->pos, a->npos * sizeof *arr);
        arr[0] = probe;
        b.pos = arr;
    } else {
        arr = tl_xmalloc(a->nkw * sizeof *arr);
        memcpy(arr, a->kwvals, a->nkw * sizeof *arr);
        arr[at] = probe;
        b.kwvals = arr;
    }
    tl_value *r = raw->fn(NULL, &b, err);
    free(arr);
    return r;
}

/* The tensors of a torch function's operands: its positionals, or the
 * items of a lone list/tuple (a new array; 0 when one is no tensor). */
static int fn_tensors(const tl_args *a, const char *kw, tl_tensor ***out)
{
    tl_value *const *items = a->pos;
    size_t n = a->npos;
    tl_value *l = a->npos ? a->pos[0] : kw ? tl_arg(a, 0, kw) : NULL;
    if (l && (l->kind == TL_V_LIST || l->kind == TL_V_TUPLE)) {
        items = l->u.seq.items;
        n = l->u.seq.n;
    }
    if (!n)
        return 0;
    *out = tl_xcalloc(n, sizeof **out);
    for (size_t i = 0; i < n; i++)
        if (!((*out)[i] = tensor_of(items[i]))) {
            free(*out);
            *out = NULL;
            return 0;
        }
    return (int)n;
}

static tl_value *index_map(tl_tensor *t, tl_value *idx, tl_error *err);

static void shape_prepare(const spec *s, tl_value *self, const tl_args *a, prep *p)
{
    tl_ag_call *c = &p->c;
    switch (s->h) {
    case H_GATHER1_FN: {
        size_t at;
        p->in[0] = tensor_of(fn_operand(a, &at));
        if (!strcmp(s->name, "squeeze_copy") && (a->npos > 1 || a->nkw)) {
            tl_value *d = tl_arg(a, 1, "dim");
            c->name = d && (d->kind == TL_V_LIST || d->kind == TL_V_TUPLE)
                          ? "SqueezeBackward2_copy" : "SqueezeBackward1_copy";
        }
        break;
    }
    case H_TRI_INPLACE: {
        /* the map is read before the op writes self */
        p->skip = true;
        if (!p->in[0] || !tl_ag_grad_enabled())
            break;
        if (!p->in[0]->requires_grad)
            break; /* nothing to record: a plain tensor stays plain */
        const tl_binding *b = tl_bind_find_raw(TL_BIND_METHOD,
                                               s->name[3] == 'u' ? "triu" : "tril");
        tl_value *probe = index_probe1(p->in[0], &p->fail);
        tl_value *m = probe && b ? b->fn(probe, a, &p->fail) : NULL;
        if (probe)
            tl_value_release(probe);
        p->map = m ? map_less1(m, &p->fail) : NULL;
        if (m)
            tl_value_release(m);
        if (p->map) {
            c->map = p->map->u.tensor;
            p->skip = false;
        } else {
            p->failed = true;
        }
        break;
    }
    case H_SORT:
        if (!strcmp(s->name, "sort") && tl_arg(a, (size_t)-1, "stable"))
            c->name = "SortBackward1"; /* the sort.stable overload */
        break;
    case H_NOT_IMPL:
        /* PyTorch's words: the out-of-place op by its aten name */
        c->what = !strcmp(s->name, "set_") ? "set_" : "aten::narrow_copy";
        if (s->inplace) {
            p->in[1] = tensor_of(tl_arg(a, 0, "source"));
            c->nin = p->in[1] ? 2 : 1;
        }
        break;
    case H_INDEX_PUT: {
        /* x.index_put_(indices, values) writes what x[tuple(indices)] reads
         * (the map, taken before the op writes) */
        tl_value *iv = tl_arg(a, 0, "indices"), *vv = tl_arg(a, 1, "values");
        tl_value *av = tl_arg(a, 2, "accumulate");
        bool acc = false;
        p->skip = true;
        if (!p->in[0] || !iv || !tl_value_is_seq(iv) || !vv || vv->kind != TL_V_TENSOR ||
            (av && tl_value_truthy(av, &acc, NULL) != 0))
            break;
        tl_value *idx = tl_tuple_new(iv->u.seq.n);
        for (size_t i = 0; i < iv->u.seq.n; i++)
            tl_seq_set(idx, i, tl_value_retain(iv->u.seq.items[i]));
        p->map = index_map(p->in[0], idx, &p->fail);
        tl_value_release(idx);
        if (!p->map) {
            p->failed = true;
            break;
        }
        c->map = p->map->u.tensor;
        p->in[1] = vv->u.tensor;
        c->nin = 2;
        /* IndexPutBackward0 saves the indices: the first is version-checked */
        if (iv->u.seq.n && (p->in[2] = tensor_of(iv->u.seq.items[0])))
            c->nin = 3;
        if (acc)
            c->op = TL_AG_PUT_ACC;
        p->skip = false;
        break;
    }
    case H_VIEW_FN: case H_STACKS: {
        tl_tensor **ts = NULL;
        int n = fn_tensors(a, s->h == H_STACKS ? "tensors" : NULL, &ts);
        p->in[0] = n ? ts[0] : NULL;
        free(ts);
        break;
    }
    default:
        break;
    }
    (void)self;
}

/* Record outs[k] of a gather-like op (one node per output, each with its
 * own map: the op's result on index_probe1, less one). */
static int record_gathers(const spec *s, prep *p, const tl_args *a, tl_tensor **outs,
                          int nout, tl_error *err)
{
    tl_ag_call *c = &p->c;
    tl_tensor *in = c->in[0];
    if (!strcmp(s->name, "diag") && in->ndim == 2)
        c->name = "DiagonalBackward0_copy"; /* 2.x: diagonal_copy */
    if (!strcmp(s->name, "as_strided_copy") &&
        (in->offset != 0 || !tl_tensor_is_contiguous(in)))
        return 0; /* the probe would not read x's storage the same way */
    bool want = tl_ag_grad_enabled() && in->requires_grad;
    tl_value *r = NULL;
    if (want) {
        tl_error e2;
        tl_value *probe = index_probe1(in, &e2);
        if (!probe)
            return tl_error_set(err, e2.kind, "%s", e2.msg);
        r = replay(s, a, probe, &e2);
        tl_value_release(probe);
        tl_tensor **rs = NULL;
        int nr = r ? outputs_of(r, &rs) : 0;
        free(rs);
        if (nr != nout) {
            if (r)
                tl_value_release(r);
            return 0; /* the probe did not replay: no node */
        }
    }
    int rc = 0;
    c->nout = 1;
    for (int k = 0; k < nout && rc == 0; k++) {
        tl_value *m = NULL;
        if (want) {
            tl_error e2;
            m = map_less1(r->kind == TL_V_TENSOR ? r : r->u.seq.items[k], &e2);
            if (!m)
                continue;
            c->map = m->u.tensor;
            if (!strcmp(s->name, "repeat_interleave")) {
                /* index_select(dim, index) saves that index: a private
                 * tensor here (only the second-backward check sees it) */
                p->in[1] = m->u.tensor;
                c->nin = 2;
            }
        }
        c->out = &outs[k];
        rc = tl_ag_record(c, err);
        if (m)
            tl_value_release(m);
    }
    if (r)
        tl_value_release(r);
    return rc;
}

/* sort/topk: values[j] = self[the same position with indices[j] along
 * dim], so the map is the probe gathered with the indices. */
static int record_sort(const spec *s, prep *p, const tl_args *a, tl_tensor **outs,
                       int nout, tl_error *err)
{
    tl_ag_call *c = &p->c;
    if (nout != 2 || outs[1]->dtype != TL_INT64)
        return 0;
    c->out = outs;
    c->nout = 2;
    if (!tl_ag_grad_enabled() || !c->in[0]->requires_grad)
        return tl_ag_record(c, err);
    tl_value *dv = !strcmp(s->name, "topk") ? tl_arg(a, 1, "dim") : tl_arg(a, 0, "dim");
    int64_t dim = -1;
    if (dv && dv->kind != TL_V_NONE && !tl_value_as_index(dv, &dim))
        return 0;
    tl_error e2;
    const tl_binding *g = tl_bind_find_raw(TL_BIND_METHOD, "gather");
    tl_value *probe = index_probe(c->in[0], &e2);
    if (!g || !probe) {
        if (probe)
            tl_value_release(probe);
        return 0;
    }
    tl_value *args[2] = {tl_int(dim), tl_value_tensor(tl_tensor_alias(outs[1]))};
    tl_args ga = {.npos = 2, .pos = args};
    tl_value *m = c->in[0]->ndim ? g->fn(probe, &ga, &e2) : tl_value_retain(probe);
    tl_value_release(args[0]);
    tl_value_release(args[1]);
    tl_value_release(probe);
    int rc = 0;
    if (m && m->kind == TL_V_TENSOR) {
        c->map = m->u.tensor;
        rc = tl_ag_record(c, err);
    }
    if (m)
        tl_value_release(m);
    return rc;
}

/* broadcast_tensors, meshgrid, atleast_*d: output k is a view of input k
 * (or input k itself, which gets no node). */
static int record_view_fn(const spec *s, prep *p, const tl_args *a, tl_tensor **outs,
                          int nout, tl_error *err)
{
    tl_ag_call *c = &p->c;
    tl_tensor **ins = NULL;
    int n = fn_tensors(a, NULL, &ins);
    int rc = 0;
    if (n != nout) {
        free(ins);
        return 0;
    }
    c->nin = 1;
    c->nout = 1;
    for (int k = 0; k < n && rc == 0; k++) {
        if (outs[k] == ins[k] || outs[k]->storage != ins[k]->storage)
            continue;
        c->in = &ins[k];
        c->out = &outs[k];
        c->name = s->node ? s->node
                          : ins[k]->ndim == 0 ? "ViewBackward0" : "UnsqueezeBackward0";
        rc = tl_ag_record(c, err);
    }
    c->in = p->in;
    free(ins);
    return rc;
}

/* hstack/vstack: torch.cat of atleast_1d(t) (hstack) or atleast_2d(t)
 * (vstack) of each input. A promoted input is a view recorded as PyTorch
 * makes it (0-d: a reshape, ViewBackward0; 1-D under vstack: unsqueeze(0),
 * UnsqueezeBackward0); the cat node links to those views. */
static int record_stacks(const spec *s, prep *p, const tl_args *a, tl_tensor **outs,
                         int nout, tl_error *err)
{
    tl_ag_call *c = &p->c;
    int n = fn_tensors(a, "tensors", &p->many);
    if (!n || nout != 1)
        return 0;
    bool h = s->name[0] == 'h';
    int want = h ? 1 : 2;
    /* the cat records over ins: the inputs, the short ones through the
     * views made here; c->in stays the caller's tensors (made[] dies here,
     * and the net check after finish reads c->in) */
    tl_tensor **made = tl_xcalloc((size_t)n, sizeof *made);
    tl_tensor **ins = tl_xmalloc((size_t)n * sizeof *ins);
    memcpy(ins, p->many, (size_t)n * sizeof *ins);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        tl_tensor *t = p->many[i];
        if (t->ndim >= want)
            continue;
        int64_t sz[2] = {1, 1}, st[2] = {1, 1};
        if (t->ndim == 1) {
            sz[1] = t->sizes[0];
            st[0] = t->sizes[0] * t->strides[0];
            st[1] = t->strides[0];
        }
        made[i] = tl_tensor_view(t, want, sz, st, t->offset);
        if (!made[i])
            break;
        tl_tensor *vin[1] = {t}, *vout[1] = {made[i]};
        tl_ag_call vc = {.op = TL_AG_VIEW, .nin = 1, .in = vin, .nout = 1, .out = vout,
                         .name = t->ndim == 0 ? "ViewBackward0" : "UnsqueezeBackward0"};
        rc = tl_ag_record(&vc, err);
        ins[i] = made[i];
    }
    if (rc == 0) {
        c->op = TL_AG_CAT;
        c->dim = h && ins[0]->ndim == 1 ? 0 : h ? 1 : 0;
        c->in = ins;
        c->nin = n;
        c->out = outs;
        c->nout = 1;
        rc = tl_ag_record(c, err);
    }
    c->in = p->many;
    c->nin = n;
    for (int i = 0; i < n; i++)
        tl_tensor_release(made[i]);
    free(made);
    free(ins);
    return rc;
}

/* index_select, gather, take, masked_select: PyTorch's node saves the
 * index (or mask) tensor, so backward checks its version and a second
 * backward without retain_graph is refused; it rides along as in[1] (an
 * input that needs no gradient), which TL_AG_INDEX saves. */
static void saved_index(const spec *s, const tl_args *a, prep *p)
{
    tl_value *v = NULL;
    if (!strcmp(s->name, "index_select") || !strcmp(s->name, "gather"))
        v = tl_arg(a, 1, "index");
    else if (!strcmp(s->name, "take"))
        v = tl_arg(a, 0, "index");
    else if (!strcmp(s->name, "masked_select"))
        v = tl_arg(a, 0, "mask");
    if ((p->in[1] = tensor_of(v)))
        p->c.nin = 2;
}

static int shape_finish(const spec *s, prep *p, const tl_args *a, tl_tensor **outs,
                        int nout, tl_error *err)
{
    switch (s->h) {
    case H_GATHER1: case H_GATHER1_FN:
        return record_gathers(s, p, a, outs, nout, err);
    case H_SORT:
        return record_sort(s, p, a, outs, nout, err);
    case H_VIEW_FN:
        return record_view_fn(s, p, a, outs, nout, err);
    case H_STACKS:
        return record_stacks(s, p, a, outs, nout, err);
    default:
        return 0;
    }
}

static bool viewish(how h)
{
    return h == H_VIEW || h == H_RESHAPE || h == H_SQUEEZE || h == H_SPLIT ||
           h == H_MULTI || h == H_SEP;
}

static tl_value *grad_call(int idx, tl_value *self, const tl_args *a, tl_error *err)
{
    const spec *s = &specs[idx];
    const tl_binding *raw = raw_of(idx);
    if (!raw)
        return tl_error_set(err, TL_ERR_INTERNAL, "binding %s vanished", s->name), NULL;
    /* view(dtype) is not differentiable: no node, and the result does not
     * require grad (the runtime's tl_view_dtype drops the flag) */
    if (!strcmp(s->name, "view")) {
        tl_value *d = tl_arg(a, 0, "dtype");
        if (d && d->kind == TL_V_DTYPE)
            return raw->fn(self, a, err);
    }
    bool any = args_rg(self, a);
    if (!any && !(viewish(s->h) && self && self->kind == TL_V_TENSOR))
        return raw->fn(self, a, err);
    if (s->h == H_VIEW_INPLACE) {
        /* the header before the op keeps the old geometry */
        tl_tensor *st = tensor_of(self);
        tl_tensor *before = st && tl_ag_grad_enabled() ? tl_tensor_alias(st) : NULL;
        tl_value *r = raw->fn(self, a, err);
        const char *name = s->node;
        if (s->op == TL_AG_VIEW && !strcmp(s->name, "squeeze_") && (a->npos || a->nkw))
            name = "SqueezeBackward3";
        if (r && before && tl_ag_record_view_inplace(st, before, name, err) < 0) {
            tl_value_release(r);
            r = NULL;
        }
        tl_tensor_release(before);
        return r;
    }
    prep p;
    prepare(s, self, a, &p);
    if (p.unsupported && tl_ag_grad_enabled()) {
        free(p.many);
        if (p.map)
            tl_value_release(p.map);
        net_refuse(s->kind, s->name, p.unsupported, err);
        return NULL;
    }
    tl_tensor *orig = NULL;
    if (s->inplace && !p.skip) {
        tl_tensor *others[2] = {p.c.nin > 1 ? p.in[1] : NULL, p.c.nin > 2 ? p.in[2] : NULL};
        if (tl_ag_inplace_begin(p.c.op, p.in[0], 2, others, &orig, err) < 0) {
            free(p.many);
            if (p.map)
                tl_value_release(p.map);
            return NULL;
        }
    }
    tl_value *r = raw->fn(self, a, err);
    if (!r) {
        tl_tensor_release(orig);
        free(p.many);
        if (p.map)
            tl_value_release(p.map);
        return NULL;
    }
    if (p.failed) { /* grad-shape */
        if (!p.fail.msg[0])
            tl_error_set(&p.fail, TL_ERR_INTERNAL, "%s: no gradient map", s->name);
        *err = p.fail;
        tl_tensor_release(orig);
        tl_value_release(r);
        r = NULL;
    } else if (finish(s, &p, self, a, r, orig, err) < 0 ||
               (!s->inplace && net_dropped_call(s->kind, s->name, &p.c, self, a, r, err))) {
        tl_value_release(r);
        r = NULL;
    }
    free(p.many);
    if (p.map)
        tl_value_release(p.map);
    return r;
}

/* ===================================================================== */
/* operators and subscripts                                               */

static int net_refuse_op(const char *sym, const char *why, tl_error *err);

static int record_binop(tl_pyop op, tl_value *a, tl_value *b, tl_tensor *out,
                        tl_error *err)
{
    tl_tensor *ta = tensor_of(a), *tb = tensor_of(b);
    tl_tensor *in[2] = {NULL, NULL};
    tl_ag_call c;
    memset(&c, 0, sizeof c);
    c.in = in;
    c.nin = 2;
    c.out = &out;
    c.nout = 1;
    double sa = 0, sb = 0;
    bool ha = !ta && tl_value_as_double(a, &sa), hb = !tb && tl_value_as_double(b, &sb);
    if ((!ta && !ha) || (!tb && !hb))
        return 0;
    switch (op) {
    case TL_PY_ADD: case TL_PY_MUL:
        c.op = op == TL_PY_ADD ? TL_AG_ADD : TL_AG_MUL;
        c.name = op == TL_PY_ADD ? "AddBackward0" : "MulBackward0";
        in[0] = ta ? ta : tb;
        in[1] = ta ? tb : NULL;
        c.s0 = ta ? sb : sa;
        break;
    case TL_PY_SUB:
        if (ta) {
            c.op = TL_AG_SUB;
            c.name = "SubBackward0";
            in[0] = ta;
            in[1] = tb;
            c.s0 = sb;
        } else {
            c.op = TL_AG_RSUB;
            c.name = "RsubBackward1";
            in[0] = tb;
            c.s0 = sa;
        }
        break;
    case TL_PY_TRUEDIV:
        if (ta) {
            c.op = TL_AG_DIV;
            c.name = "DivBackward0";
            in[0] = ta;
            in[1] = tb;
            c.s0 = sb;
        } else {
            c.op = TL_AG_RDIV;
            c.name = "MulBackward0";
            in[0] = tb;
            c.s0 = sa;
        }
        break;
    case TL_PY_POW:
        if (ta && tb) {
            c.op = TL_AG_POW_T;
            c.name = "PowBackward1";
            in[0] = ta;
            in[1] = tb;
        } else if (ta) {
            c.op = TL_AG_POW;
            c.name = "PowBackward0";
            in[0] = ta;
            c.s0 = sb;
            c.nin = 1;
        } else {
            c.op = TL_AG_POW_BASE;
            c.name = "PowBackward1";
            in[0] = tb;
            c.s0 = sa;
            c.nin = 1;
        }
        break;
    case TL_PY_MATMUL:
        if (!ta || !tb)
            return 0;
        c.op = TL_AG_MATMUL;
        c.name = matmul_name(ta->ndim, tb->ndim);
        in[0] = ta;
        in[1] = tb;
        break;
    /* math: x % y is remainder; x // y has no formula (PyTorch's
     * NotImplemented node) */
    case TL_PY_MOD:
        if (!ta)
            return net_refuse_op("%", "with a number on the left", err);
        c.op = TL_AG_REMAINDER;
        c.name = tb ? "RemainderBackward1" : "RemainderBackward0";
        in[0] = ta;
        in[1] = tb;
        c.s0 = sb;
        break;
    case TL_PY_FLOORDIV:
        if (!tl_dtype_is_floating(out->dtype) || !tl_ag_grad_enabled())
            return 0;
        return net_refuse_op("//", NULL, err);
    default:
        return 0;
    }
    if (c.nin == 2 && !in[1])
        c.nin = 2; /* a scalar operand keeps its (empty) slot */
    return tl_ag_record(&c, err);
}

tl_value *tl_grad_binop(tl_pyop op, tl_value *a, tl_value *b, tl_grad_binfn run,
                        tl_error *err)
{
    tl_value *r = run(op, a, b, err);
    if (!r || r->kind != TL_V_TENSOR)
        return r;
    if (!tl_grad_requires_grad(a) && !tl_grad_requires_grad(b))
        return r;
    if (record_binop(op, a, b, r->u.tensor, err) < 0) {
        tl_value_release(r);
        return NULL;
    }
    return r;
}

tl_value *tl_grad_binop_inplace(tl_pyop op, tl_value *a, tl_value *b,
                                tl_grad_binfn run, tl_error *err)
{
    tl_tensor *ta = tensor_of(a), *tb = tensor_of(b);
    if (!ta || (!tl_grad_requires_grad(a) && !tl_grad_requires_grad(b)))
        return run(op, a, b, err);
    tl_tensor *in[2] = {ta, tb};
    tl_ag_call c;
    memset(&c, 0, sizeof c);
    c.in = in;
    c.nin = 2;
    c.out = in;
    c.nout = 1;
    bool skip = false;
    if (!tb && !tl_value_as_double(b, &c.s0))
        skip = true;
    switch (op) {
    case TL_PY_ADD: c.op = TL_AG_ADD; c.name = "AddBackward0"; break;
    case TL_PY_SUB: c.op = TL_AG_SUB; c.name = "SubBackward0"; break;
    case TL_PY_MUL: c.op = TL_AG_MUL; c.name = "MulBackward0"; break;
    case TL_PY_TRUEDIV: c.op = TL_AG_DIV; c.name = "DivBackward0"; break;
    case TL_PY_POW:
        c.op = tb ? TL_AG_POW_T : TL_AG_POW;
        c.name = tb ? "PowBackward1" : "PowBackward0";
        if (!tb)
            c.nin = 1;
        break;
    case TL_PY_MOD:
        c.op = TL_AG_REMAINDER;
        c.name = tb ? "RemainderBackward1" : "RemainderBackward0";
        break;
    case TL_PY_FLOORDIV:
        if (tl_ag_grad_enabled() && tl_dtype_is_floating(ta->dtype))
            return net_refuse_op("//=", NULL, err), NULL;
        skip = true;
        break;
    default: skip = true; break;
    }
    tl_tensor *orig = NULL;
    if (!skip && tl_ag_inplace_begin(c.op, ta, 1, &in[1], &orig, err) < 0)
        return NULL;
    tl_value *r = run(op, a, b, err);
    if (!r) {
        tl_tensor_release(orig);
        return NULL;
    }
    if (skip || r->kind != TL_V_TENSOR || r->u.tensor != ta) {
        tl_tensor_release(orig);
        return r;
    }
    if (tl_ag_record_inplace(&c, orig, err) < 0) {
        tl_value_release(r);
        return NULL;
    }
    return r;
}

tl_value *tl_grad_unop(tl_pyunop op, tl_value *a, tl_grad_unfn run, tl_error *err)
{
    tl_value *r = run(op, a, err);
    if (!r || op != TL_PY_NEG || r->kind != TL_V_TENSOR || !tl_grad_requires_grad(a))
        return r;
    tl_tensor *in[1] = {a->u.tensor}, *out = r->u.tensor;
    if (out == in[0])
        return r;
    tl_ag_call c;
    memset(&c, 0, sizeof c);
    c.op = TL_AG_NEG;
    c.name = "NegBackward0";
    c.in = in;
    c.nin = 1;
    c.out = &out;
    c.nout = 1;
    if (tl_ag_record(&c, err) < 0) {
        tl_value_release(r);
        return NULL;
    }
    return r;
}

/* The node a basic index makes: the last component PyTorch applies. */
static const char *index_view_name(const tl_value *idx)
{
    const tl_value *last = idx;
    if (idx->kind == TL_V_TUPLE) {
        last = NULL;
        for (size_t i = 0; i < idx->u.seq.n; i++)
            if (idx->u.seq.items[i]->kind != TL_V_ELLIPSIS)
                last = idx->u.seq.items[i];
    }
    if (!last || last->kind == TL_V_ELLIPSIS)
        return "AliasBackward0";
    if (last->kind == TL_V_SLICE)
        return "SliceBackward0";
    if (last->kind == TL_V_NONE || last->kind == TL_V_BOOL)
        return "UnsqueezeBackward0";
    return "SelectBackward0";
}

/* flat indices (into obj) that obj[idx] reads: NULL with err on failure */
static tl_value *index_map(tl_tensor *t, tl_value *idx, tl_error *err)
{
    tl_value *probe = index_probe(t, err);
    if (!probe)
        return NULL;
    tl_value *m = tl_index_parse_getitem(probe, idx, err);
    tl_value_release(probe);
    if (m && m->kind != TL_V_TENSOR) {
        tl_value_release(m);
        return tl_error_set(err, TL_ERR_INTERNAL, "index probe"), NULL;
    }
    return m;
}

/* grad-shape: the tensor IndexBackward0 / IndexPutBackward0 save for
 * obj[idx]: the first index tensor of idx (its version is checked), else
 * the map itself (a list index: PyTorch's tensor of it is private too) */
static tl_tensor *saved_indices(const tl_value *obj, const tl_value *idx, tl_tensor *map)
{
    const tl_value *const *items = &idx;
    size_t n = 1;
    if (idx->kind == TL_V_TUPLE) {
        items = (const tl_value *const *)idx->u.seq.items;
        n = idx->u.seq.n;
    }
    for (size_t i = 0; i < n; i++)
        if (items[i]->kind == TL_V_TENSOR && items[i] != obj)
            return items[i]->u.tensor;
    return map;
}

tl_value *tl_grad_index_get(tl_value *obj, tl_value *idx, tl_error *err)
{
    tl_value *r = tl_index_parse_getitem(obj, idx, err);
    if (!r || obj->kind != TL_V_TENSOR || r->kind != TL_V_TENSOR ||
        r->u.tensor == obj->u.tensor)
        return r;
    tl_tensor *in[2] = {obj->u.tensor, NULL}, *out = r->u.tensor;
    tl_ag_call c;
    memset(&c, 0, sizeof c);
    c.in = in;
    c.nin = 1;
    c.out = &out;
    c.nout = 1;
    tl_value *map = NULL;
    if (out->storage == in[0]->storage) {
        c.op = TL_AG_VIEW;
        c.name = index_view_name(idx);
    } else {
        c.op = TL_AG_INDEX;
        c.name = "IndexBackward0";
        if (in[0]->requires_grad && tl_ag_grad_enabled()) {
            map = index_map(in[0], idx, err);
            if (!map) {
                tl_value_release(r);
                return NULL;
            }
            c.map = map->u.tensor;
            in[1] = saved_indices(obj, idx, map->u.tensor); /* grad-shape */
            c.nin = 2;
        }
    }
    int rc = tl_ag_record(&c, err);
    if (map)
        tl_value_release(map);
    if (rc < 0) {
        tl_value_release(r);
        return NULL;
    }
    return r;
}

int tl_grad_index_set(tl_value *obj, tl_value *idx, tl_value *v, tl_error *err)
{
    tl_tensor *t = tensor_of(obj), *tv = tensor_of(v);
    if (!t || (!tl_grad_requires_grad(obj) && !tl_grad_requires_grad(v)) || !tl_ag_grad_enabled())
        return tl_index_parse_setitem(obj, idx, v, err);
    /* which elements the assignment writes, and whether obj[idx] is a view
     * (then PyTorch writes through that view: the leaf error is the
     * view-of-a-leaf one) */
    tl_error e2;
    tl_value *map = index_map(t, idx, &e2);
    if (!map)
        return tl_index_parse_setitem(obj, idx, v, err); /* the runtime says why */
    tl_value *view = tl_index_parse_getitem(obj, idx, &e2);
    bool basic = view && view->kind == TL_V_TENSOR && view->u.tensor->storage == t->storage;
    if (view)
        tl_value_release(view);
    /* x[...] = v is x.copy_(v) itself (no view in between) */
    bool whole = idx->kind == TL_V_ELLIPSIS ||
                 (idx->kind == TL_V_TUPLE && idx->u.seq.n == 1 &&
                  idx->u.seq.items[0]->kind == TL_V_ELLIPSIS);
    if (whole)
        basic = false;
    if (basic && tl_ag_grad_enabled() && t->requires_grad && t->is_leaf) {
        tl_value_release(map);
        return tl_error_set(err, TL_ERR_RUNTIME, "a view of a leaf Variable that requires "
                            "grad is being used in an in-place operation.");
    }
    tl_tensor *orig = NULL, *others[1] = {tv};
    if (tl_ag_inplace_begin(TL_AG_SETITEM, t, 1, others, &orig, err) < 0) {
        tl_value_release(map);
        return -1;
    }
    if (tl_index_parse_setitem(obj, idx, v, err) < 0) {
        tl_value_release(map);
        return -1;
    }
    tl_tensor *in[3] = {t, tv, NULL};
    tl_ag_call c;
    memset(&c, 0, sizeof c);
    c.op = TL_AG_SETITEM;
    c.name = whole ? "CopyBackwards" : basic ? "CopySlices" : "IndexPutBackward0";
    c.in = in;
    c.nin = 2;
    if (!whole && !basic) { /* grad-shape: IndexPutBackward0 saves the indices */
        in[2] = saved_indices(obj, idx, map->u.tensor);
        c.nin = 3;
    }
    c.out = in;
    c.nout = 1;
    c.map = map->u.tensor;
    int rc = tl_ag_record_inplace(&c, orig, err);
    tl_value_release(map);
    return rc;
}

/* ===================================================================== */
/* backward, .grad, grad_fn, no_grad                                      */

static tl_value *gradfn_call(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab does not support calling a grad_fn");
    return NULL;
}

static tl_value *gradfn_name(tl_value *self, const tl_args *a, tl_error *err)
{
    const char *n = self->u.func.name;
    if (strcmp(n, "CopySlices") == 0 || strcmp(n, "CopyBackwards") == 0 ||
        strcmp(n, "AccumulateGrad") == 0 || strcmp(n, "NotImplemented") == 0) {
        tl_buf b = {0};
        tl_buf_printf(&b, "torch::autograd::%s", n);
        tl_value *r = tl_str(tl_buf_str(&b));
        tl_buf_free(&b);
        return r;
    }
    return tl_str(n);
}

static tl_value *ctx_call(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab supports torch.no_grad() only in a "
                 "with statement");
    return NULL;
}

/* __enter__/__exit__ of a grad-mode context: self is the manager, whose
 * bound value (u.func.self) holds the mode to set (bool) */
static _Thread_local bool mode_stack[64];
static _Thread_local int mode_depth;

static tl_value *ctx_enter(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_value *mgr = self;
    bool on = mgr->u.func.self && mgr->u.func.self->kind == TL_V_BOOL && mgr->u.func.self->u.b;
    if (mode_depth < 64)
        mode_stack[mode_depth] = tl_ag_grad_enabled();
    mode_depth++;
    tl_ag_set_grad_enabled(on);
    return tl_none();
}

static tl_value *ctx_exit(tl_value *self, const tl_args *a, tl_error *err)
{
    if (mode_depth > 0) {
        mode_depth--;
        if (mode_depth < 64)
            tl_ag_set_grad_enabled(mode_stack[mode_depth]);
    }
    return tl_bool(false);
}

bool tl_bind_grad_owns(const tl_value *obj)
{
    return obj->kind == TL_V_FUNC &&
           (obj->u.func.fn == gradfn_call || obj->u.func.fn == ctx_call);
}

tl_value *tl_bind_grad_attr(tl_value *obj, const char *name, tl_error *err)
{
    if (obj->u.func.fn == gradfn_call && strcmp(name, "name") == 0)
        return tl_value_func("name", gradfn_name, obj);
    if (obj->u.func.fn == ctx_call && strcmp(name, "__enter__") == 0)
        return tl_value_func("__enter__", ctx_enter, obj);
    if (obj->u.func.fn == ctx_call && strcmp(name, "__exit__") == 0)
        return tl_value_func("__exit__", ctx_exit, obj);
    tl_error_set(err, TL_ERR_ATTRIBUTE, "'%s' object has no attribute '%s'",
                 obj->u.func.fn == ctx_call ? "no_grad" : obj->u.func.name, name);
    return NULL;
}

static tl_value *mode_manager(const char *name, bool on)
{
    tl_value *b = tl_bool(on);
    tl_value *f = tl_value_func(name, ctx_call, b);
    tl_value_release(b);
    return f;
}

static tl_value *t_no_grad(tl_value *self, const tl_args *a, tl_error *err)
{
    if (tl_args_check(a, "no_grad", 0, NULL, "()", err) < 0)
        return NULL;
    return mode_manager("no_grad", false);
}

static tl_value *t_enable_grad(tl_value *self, const tl_args *a, tl_error *err)
{
    if (tl_args_check(a, "enable_grad", 0, NULL, "()", err) < 0)
        return NULL;
    return mode_manager("enable_grad", true);
}

static tl_value *t_set_grad_enabled(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"mode", NULL};
    if (tl_args_check(a, "set_grad_enabled", 1, kw, "(bool mode)", err) < 0)
        return NULL;
    tl_value *m = tl_arg(a, 0, "mode");
    bool on;
    if (!m)
        return tl_error_set(err, TL_ERR_TYPE, "__init__() missing 1 required positional "
                            "argument: 'mode'"), NULL;
    if (tl_to_bool(m, "mode", &on, err) < 0)
        return NULL;
    /* torch.set_grad_enabled(b) takes effect at once (and is also a
     * context manager restoring the previous mode) */
    tl_ag_set_grad_enabled(on);
    return mode_manager("set_grad_enabled", on);
}

static tl_value *t_is_grad_enabled(tl_value *self, const tl_args *a, tl_error *err)
{
    if (tl_args_check(a, "is_grad_enabled", 0, NULL, "()", err) < 0)
        return NULL;
    return tl_bool(tl_ag_grad_enabled());
}

static tl_value *m_backward(tl_value *self, const tl_args *a, tl_error *err)
{
    static const char *const kw[] = {"gradient", "retain_graph", "create_graph",
                                     "inputs", NULL};
    tl_tensor *t = tl_bind_self_tensor(self, "backward", err);
    if (!t || tl_args_check(a, "backward", 4, kw,
                            "(Tensor gradient=None, bool retain_graph=None, "
                            "bool create_graph=False, inputs=None)", err) < 0)
        return NULL;
    tl_value *g = tl_arg(a, 0, "gradient"), *rg = tl_arg(a, 1, "retain_graph");
    tl_value *cg = tl_arg(a, 2, "create_graph"), *inp = tl_arg(a, 3, "inputs");
    bool retain = false, create = false;
    if (rg && rg->kind != TL_V_NONE && tl_value_truthy(rg, &retain, err) < 0)
        return NULL;
    if (cg && tl_value_truthy(cg, &create, err) < 0)
        return NULL;
    if (create || (inp && inp->kind != TL_V_NONE))
        return tl_error_set(err, TL_ERR_UNSUPPORTED, "tlab does not support "
                            "backward(create_graph=True) or inputs="), NULL;
    const tl_tensor *gt = NULL;
    if (g && g->kind != TL_V_NONE) {
        if (g->kind != TL_V_TENSOR)
            return tl_error_set(err, TL_ERR_TYPE, "gradients can be either Tensors or "
                                "None, but got %s", tl_value_type_name(g)), NULL;
        gt = g->u.tensor;
    }
    if (tl_ag_backward(t, gt, retain, err) < 0)
        return NULL;
    return tl_none();
}

static tl_value *a_grad(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = tl_bind_self_tensor(self, "grad", err);
    if (!t)
        return NULL;
    tl_tensor *g = tl_ag_grad(t);
    return g ? tl_value_tensor(tl_tensor_retain(g)) : tl_none();
}

static tl_value *a_grad_fn(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = tl_bind_self_tensor(self, "grad_fn", err);
    if (!t)
        return NULL;
    tl_ag_node *n = tl_ag_grad_fn(t, err);
    if (!n)
        return err->kind ? NULL : tl_none();
    tl_value *f = tl_value_func(tl_ag_node_name(n), gradfn_call, NULL);
    tl_ag_node_release(n);
    return f;
}

static tl_value *a_retains_grad(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = tl_bind_self_tensor(self, "retains_grad", err);
    return t ? tl_bool(tl_ag_retains_grad(t)) : NULL;
}

static tl_value *a_base(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = tl_bind_self_tensor(self, "_base", err);
    if (!t)
        return NULL;
    tl_tensor *b = tl_ag_base(t);
    return b ? tl_value_tensor(tl_tensor_retain(b)) : tl_none();
}

static tl_value *m_retain_grad(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_tensor *t = tl_bind_self_tensor(self, "retain_grad", err);
    if (!t || tl_args_check(a, "retain_grad", 0, NULL, "()", err) < 0)
        return NULL;
    if (tl_ag_retain_grad(t, err) < 0)
        return NULL;
    return tl_none();
}

static const tl_binding grad_attrs[] = {
    {"grad", a_grad, false, false},
    {"grad_fn", a_grad_fn, false, false},
    {"retains_grad", a_retains_grad, false, false},
    {"_base", a_base, false, false},
    {NULL, NULL, false, false},
};

static const tl_binding grad_methods[] = {
    {"backward", m_backward, false, false},
    {"retain_grad", m_retain_grad, false, false},
    {NULL, NULL, false, false},
};

static const tl_binding grad_torch[] = {
    {"no_grad", t_no_grad, false, false},
    {"enable_grad", t_enable_grad, false, false},
    {"set_grad_enabled", t_set_grad_enabled, false, false},
    {"is_grad_enabled", t_is_grad_enabled, false, false},
    {NULL, NULL, false, false},
};

const tl_bind_table tl_bind_grad_tables[] = {
    {TL_BIND_ATTR, grad_attrs},
    {TL_BIND_METHOD, grad_methods},
    {TL_BIND_TORCH, grad_torch},
    {TL_BIND_METHOD, NULL},
};

/* ===================================================================== */
/* the safety net                                                         */
/*
 * An op without a row in GRAD_SPECS must not hand back a floating result
 * without history when its inputs require grad, where PyTorch records a
 * node: with grad mode on and a tensor argument requiring grad, such a
 * result is refused as unsupported (exit 2 at the call, like any feature
 * outside tlab's subset), and so is an in-place op of that kind on a
 * floating tensor (before it writes). A new GRAD_SPECS row takes its op
 * out of the net. NO_GRAD_FN lists the bound ops whose results have no
 * grad_fn in PyTorch either (tests/fixtures/sweep_autograd_math.py): they
 * keep their raw binding. Integer and bool results never have history, so
 * argmax, comparisons, isnan, ... need no entry.
 *
 * A tl_cfunc carries no context, so the wrappers come from a pool of
 * NET_SLOTS functions (about four times the bindings it serves now): slot
 * k runs net_raw[k], given out once per binding
 * under a lock (a binding past the pool keeps its raw function).
 */
static const char *const NO_GRAD_FN[] = {
    /* autograd's own bindings, and the detached results */
    "grad", "grad_fn", "_base", "retains_grad", "backward", "retain_grad",
    "requires_grad_", "data", "detach", "detach_", "detach_copy",
    /* new leaves made from a tensor's values or metadata */
    "tensor", "as_tensor", "Tensor", "zeros_like", "ones_like", "empty_like",
    "full_like", "rand_like", "randn_like", "new_zeros", "new_ones",
    "new_empty", "new_full", "new_tensor",
    /* in-place writes whose output PyTorch does not differentiate: it
     * records nothing, the tensor keeps its grad_fn (y.logical_and_(w)
     * after y = x * 1 stays MulBackward0), and so does tlab */
    "logical_and_", "logical_or_", "logical_xor_", "logical_not_",
};

#define NET_SLOTS 512

static const tl_binding *net_raw[NET_SLOTS];
static tl_bind_kind net_kind[NET_SLOTS];
static tl_binding net_bindings[NET_SLOTS];
static int net_used;
static pthread_mutex_t net_lock = PTHREAD_MUTEX_INITIALIZER;

static int net_refuse(tl_bind_kind kind, const char *name, const char *why, tl_error *err)
{
    return tl_error_set(err, TL_ERR_UNSUPPORTED,
                        "tlab does not support autograd through %s%s%s%s (it has no "
                        "backward formula for it)",
                        kind == TL_BIND_TORCH ? "torch." : "Tensor.", name,
                        why ? " " : "", why ? why : "");
}

static int net_refuse_op(const char *sym, const char *why, tl_error *err)
{
    return tl_error_set(err, TL_ERR_UNSUPPORTED,
                        "tlab does not support autograd through the %s operator%s%s (it "
                        "has no backward formula for it)", sym, why ? " " : "",
                        why ? why : "");
}

/* Is t the tensor v holds, or one of the tensors of the sequence v? */
static bool holds(const tl_value *v, const tl_tensor *t)
{
    if (!v)
        return false;
    if (v->kind == TL_V_TENSOR)
        return v->u.tensor == t;
    if (v->kind == TL_V_LIST || v->kind == TL_V_TUPLE)
        for (size_t i = 0; i < v->u.seq.n; i++)
            if (v->u.seq.items[i]->kind == TL_V_TENSOR && v->u.seq.items[i]->u.tensor == t)
                return true;
    return false;
}

static bool is_arg(const tl_value *self, const tl_args *a, const tl_tensor *t)
{
    if (holds(self, t))
        return true;
    for (size_t i = 0; i < a->npos; i++)
        if (holds(a->pos[i], t))
            return true;
    for (size_t i = 0; i < a->nkw; i++)
        if (holds(a->kwvals[i], t))
            return true;
    return false;
}

static bool output_lacks(const tl_value *self, const tl_args *a, const tl_value *v)
{
    if (!v || v->kind != TL_V_TENSOR)
        return false;
    const tl_tensor *o = v->u.tensor;
    return tl_dtype_is_floating(o->dtype) && !tl_ag_has_grad_fn(o) && !is_arg(self, a, o);
}

/* A floating output of r (a tensor, or a tuple or list of them) that is
 * no argument and has no grad_fn. */
static bool lacks_history(const tl_value *self, const tl_args *a, tl_value *r)
{
    if (r->kind == TL_V_TUPLE || r->kind == TL_V_LIST) {
        for (size_t i = 0; i < r->u.seq.n; i++)
            if (output_lacks(self, a, r->u.seq.items[i]))
                return true;
        return false;
    }
    return output_lacks(self, a, r);
}

/* After a listed op ran: did it drop the history of a differentiable
 * input (c's inputs) anyway? (a form its formula does not cover) */
static bool net_dropped_call(tl_bind_kind kind, const char *name, const tl_ag_call *c,
                             tl_value *self, const tl_args *a, tl_value *r, tl_error *err)
{
    if (!tl_ag_grad_enabled())
        return false;
    bool any = false;
    for (int i = 0; i < c->nin && !any; i++)
        any = c->in[i] && c->in[i]->requires_grad;
    if (!any || !lacks_history(self, a, r))
        return false;
    net_refuse(kind, name, NULL, err);
    return true;
}

static tl_value *net_call(int k, tl_value *self, const tl_args *a, tl_error *err)
{
    const tl_binding *raw = net_raw[k];
    if (!tl_ag_grad_enabled() || !args_rg(self, a))
        return raw->fn(self, a, err);
    tl_value *r = raw->fn(self, a, err);
    if (r && raw->inplace) {
        /* refused after the write: the op's own errors come first, and
         * the unsupported error ends the program anyway */
        tl_tensor *t = tensor_of(self);
        if (t && tl_dtype_is_floating(t->dtype)) {
            tl_value_release(r);
            return net_refuse(net_kind[k], raw->name, NULL, err), NULL;
        }
        return r;
    }
    if (r && lacks_history(self, a, r)) {
        tl_value_release(r);
        net_refuse(net_kind[k], raw->name, NULL, err);
        return NULL;
    }
    return r;
}

#define NET_FN(i)                                                              \
    static tl_value *net_##i(tl_value *s, const tl_args *a, tl_error *e)       \
    {                                                                          \
        return net_call(0x##i, s, a, e);                                       \
    }
#define NET_16(X, p)                                                           \
    X(p##0) X(p##1) X(p##2) X(p##3) X(p##4) X(p##5) X(p##6) X(p##7)            \
    X(p##8) X(p##9) X(p##a) X(p##b) X(p##c) X(p##d) X(p##e) X(p##f)
#define NET_256(X, p)                                                          \
    NET_16(X, p##0) NET_16(X, p##1) NET_16(X, p##2) NET_16(X, p##3)            \
    NET_16(X, p##4) NET_16(X, p##5) NET_16(X, p##6) NET_16(X, p##7)            \
    NET_16(X, p##8) NET_16(X, p##9) NET_16(X, p##a) NET_16(X, p##b)            \
    NET_16(X, p##c) NET_16(X, p##d) NET_16(X, p##e) NET_16(X, p##f)
#define NET_ALL(X) NET_256(X, 0) NET_256(X, 1)
NET_ALL(NET_FN)
#define NET_PTR(i) net_##i,
static const tl_cfunc net_fns[NET_SLOTS] = {NET_ALL(NET_PTR)};
#undef NET_PTR
#undef NET_FN

/* torch.where(condition, x, y): recorded here (the method form x.where
 * has its GRAD_SPECS row; a number may take either operand here) */
static const tl_binding *torch_where_raw;

static tl_value *w_torch_where(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_value *cv = tl_arg(a, 0, "condition"), *x = tl_arg(a, 1, "input"),
             *y = tl_arg(a, 2, "other");
    if (!tl_ag_grad_enabled() || !x || !y || (!tl_grad_requires_grad(x) && !tl_grad_requires_grad(y)))
        return torch_where_raw->fn(self, a, err);
    tl_value *r = torch_where_raw->fn(self, a, err);
    if (!r || r->kind != TL_V_TENSOR || !tensor_of(cv))
        return r;
    tl_tensor *in[2] = {tensor_of(x), tensor_of(y)}, *out = r->u.tensor;
    tl_ag_call c;
    memset(&c, 0, sizeof c);
    c.op = TL_AG_WHERE;
    c.name = "WhereBackward0";
    c.in = in;
    c.nin = 2;
    c.out = &out;
    c.nout = 1;
    c.map = tensor_of(cv);
    if (tl_ag_record(&c, err) < 0) {
        tl_value_release(r);
        return NULL;
    }
    return r;
}

static const tl_binding torch_where_wrapper = {"where", w_torch_where, false, false};

static const tl_binding *net_wrap(tl_bind_kind kind, const tl_binding *raw)
{
    if (kind != TL_BIND_METHOD && kind != TL_BIND_ATTR && kind != TL_BIND_TORCH)
        return raw;
    if (kind == TL_BIND_TORCH && !strcmp(raw->name, "where")) {
        torch_where_raw = raw;
        return &torch_where_wrapper;
    }
    for (size_t i = 0; i < TL_ARRAY_LEN(NO_GRAD_FN); i++)
        if (NO_GRAD_FN[i][0] == raw->name[0] && !strcmp(NO_GRAD_FN[i], raw->name))
            return raw;
    const tl_binding *w = raw;
    pthread_mutex_lock(&net_lock);
    for (int k = 0; k < net_used; k++)
        if (net_raw[k] == raw && net_kind[k] == kind) {
            w = &net_bindings[k];
            break;
        }
    if (w == raw && net_used < NET_SLOTS) {
        int k = net_used++;
        net_raw[k] = raw;
        net_kind[k] = kind;
        net_bindings[k] = (tl_binding){raw->name, net_fns[k], raw->is_attr, raw->inplace};
        w = &net_bindings[k];
    }
    pthread_mutex_unlock(&net_lock);
    return w;
}
