/* ops_impl.h - what the files of the ops family share (iter.c, copy.c,
 * elementwise.c, reduce.c, assemble.c, sort.c): operand helpers, the
 * layout and check functions and the region copies. Internal to
 * src/runtime: everything else uses ops.h.
 *
 * Ownership as ops.h: results are new references, inputs borrowed.
 */
#ifndef TL_OPS_IMPL_H
#define TL_OPS_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A staging buffer of an op: p is be's memory, or `local` when a number
 * for the CPU backend sits in the struct itself (no allocation). Lives
 * where it is declared: never copied while p is set. */
typedef struct scratch {
    const tl_backend *be;
    void *p;
    union {
        int64_t i;
        double f;
        unsigned char b[16];
    } local;
} scratch;

/* One input of an elementwise op: a tensor, or a Python number (a
 * "wrapped number": int -> Long, float -> Double (weak), bool -> Bool). */
typedef tl_operand opnd; /* ops.h */

bool tl_ops_same_device(tl_device a, tl_device b);
/* PyTorch's "Expected all tensors to be on the same device" RuntimeError
 * for devices a and b, in the order given. */
int tl_ops_device_mismatch(tl_device a, tl_device b, tl_error *err);
tl_memfmt tl_ops_suggest_memory_format(const tl_tensor *t);
/* Strides for a fresh tensor of t's shape in memory format fmt. */
int tl_ops_format_strides(const tl_tensor *t, tl_memfmt fmt, int64_t *st,
                          tl_error *err);
/* Autograd bookkeeping for a fresh result. */
void tl_ops_grad_result(tl_tensor *out, bool any_grad);
/* The check autograd's VariableType does before every in-place op. */
int tl_ops_check_inplace_grad(const tl_tensor *t, tl_error *err);
/* An in-place write with a grad-requiring operand makes dst part of the
 * graph (a float dst then requires grad and is no longer a leaf). */
void tl_ops_grad_inplace(tl_tensor *dst, bool other_grad);
int tl_ops_assert_no_internal_overlap(const tl_tensor *t, tl_error *err);
int tl_ops_assert_no_partial_overlap(const tl_tensor *out, const tl_tensor *in,
                                     tl_error *err);
/* at::assert_no_overlap: b may not share any of a's memory (partial or full
 * overlap, a itself included), as the scatter family requires of its index
 * and source */
int tl_ops_assert_no_overlap(const tl_tensor *a, const tl_tensor *b, tl_error *err);
/* infer_size over two shapes, PyTorch's message ("tensor a" is the shape
 * accumulated so far, "tensor b" the new operand). */
int tl_ops_broadcast_pair(int na, const int64_t *a, int nb, const int64_t *b,
                          int *nout, int64_t *out, tl_error *err);
void tl_ops_shape_text(char *buf, size_t cap, int nd, const int64_t *sz);
int tl_ops_check_out_shape(const tl_tensor *out, int nd, const int64_t *shape,
                           tl_error *err);
/* Strides of t when broadcast to an nd-dim shape (0 on new / expanded dims). */
void tl_ops_broadcast_strides(const tl_tensor *t, int nd, const int64_t *shape,
                              int64_t *st);
void tl_ops_scratch_free(scratch *s);
tl_strided tl_ops_strided_of(const tl_tensor *t);
tl_strided tl_ops_strided_make(void *data, tl_dtype dt, int nd,
                               const int64_t *sizes, const int64_t *strides);
/* A Python-number operand converted to dt the way a kernel's
 * Scalar::to<scalar_t>() does: an error when it overflows dt. */
int tl_ops_opnd_fits(const opnd *o, tl_dtype dt, tl_error *err);
opnd tl_ops_opnd_tensor(const tl_tensor *t);
opnd tl_ops_opnd_int(int64_t i);
opnd tl_ops_opnd_float(double f);
tl_dtype tl_ops_opnd_dtype(const opnd *o);
/* The output strides TensorIterator gives an allocated output.
 * `common` is the dtype inputs are promoted to (inputs of another dtype are
 * first converted with .to(), i.e. preserve-format strides). */
void tl_ops_iter_out_strides(const opnd *ops, int n, tl_dtype common, int nd,
                             const int64_t *shape, int64_t *out);
/* Common device of the tensor operands. 0-d CPU tensors may join device
 * tensors (they are read as numbers). */
int tl_ops_common_device(const opnd *ops, int n, const tl_backend **be,
                         tl_error *err);
/* Describe operand o for a kernel over the output shape. Numbers and
 * foreign-device 0-d tensors are staged in `sc`. stbuf holds strides. */
int tl_ops_opnd_strided(const opnd *o, const tl_backend *be, int nd,
                        const int64_t *shape, int64_t *stbuf, scratch *sc,
                        tl_strided *out, tl_error *err);
bool tl_ops_opnds_grad(const opnd *ops, int n);
/* Broadcast shape of all operands (pairwise infer_size in order). */
int tl_ops_opnds_shape(const opnd *ops, int n, int *nd, int64_t *shape,
                       tl_error *err);
/* dst <- src (src already broadcast to dst's shape through `sst` strides),
 * across devices when needed. No checks, no version bump. */
int tl_ops_copy_into(const tl_tensor *dst, const tl_tensor *src,
                     const int64_t *sst, tl_error *err);
/* copy_ after the leaf check: PyTorch's copy_impl. */
int tl_ops_copy_checked(tl_tensor *dst, const tl_tensor *src, tl_error *err);
/* Run the kernel: dst <- a OP b over dst's shape. */
int tl_ops_run_binary(tl_binop op, tl_dtype compute, const tl_tensor *dst,
                      const opnd *a, const opnd *b, tl_error *err);
/* out = a OP b (new tensor, TensorIterator layout). */
tl_tensor *tl_ops_binary_new(tl_binop op, const opnd *a, const opnd *b,
                             tl_error *err);
int tl_ops_run_unary(tl_unop op, tl_dtype compute, const tl_tensor *dst,
                     const tl_tensor *src, tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
