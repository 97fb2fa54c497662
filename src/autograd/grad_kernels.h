/* grad_kernels.h - gradient buffers and the arithmetic of backward formulas.
 *
 * A gradient in flight is a tl_gbuf: a dense row-major array of doubles
 * that stands for a tensor of dtype `dt` and shape `sizes`. Every value in
 * it is already rounded to dt (tl_gk_round), so a float32 gradient holds
 * exactly the float32 numbers PyTorch's kernels would produce; formulas
 * round after each step where PyTorch materialises a tensor. The doubles
 * live in a storage, so gradients are charged to the --max-bytes ledger.
 *
 * Ownership: tl_gbuf_* constructors return a buffer the caller frees with
 * tl_gbuf_free; every other function borrows its arguments.
 */
#ifndef TL_GRAD_KERNELS_H
#define TL_GRAD_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "shape.h"
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_gbuf {
    tl_dtype dt;
    int ndim;
    int64_t sizes[TL_MAX_DIMS];
    int64_t n;          /* numel */
    tl_storage *st;     /* holds v (charged to the ledger) */
    double *v;
} tl_gbuf;

/* A tensor's geometry (shape.h's tl_geom), the part a view backward needs. */
void tl_geom_of(const tl_tensor *t, tl_geom *g);
int64_t tl_geom_numel(const tl_geom *g);

/* Round v to what dtype dt can hold (float32, float16, bfloat16). */
double tl_gk_round(tl_dtype dt, double v);

/* Zeroed buffer. NULL with err set past the ledger or numel limits. */
tl_gbuf *tl_gbuf_new(tl_dtype dt, int ndim, const int64_t *sizes,
                     tl_error *err);
tl_gbuf *tl_gbuf_ones(tl_dtype dt, int ndim, const int64_t *sizes,
                      tl_error *err);
/* t's values in row-major order (any layout, any host-readable device). */
tl_gbuf *tl_gbuf_from_tensor(const tl_tensor *t, tl_error *err);
tl_gbuf *tl_gbuf_copy(const tl_gbuf *g, tl_error *err);
void tl_gbuf_free(tl_gbuf *g);
/* Re-round g's values to dt (a cast), changing g->dt. */
void tl_gbuf_cast(tl_gbuf *g, tl_dtype dt);
/* A new contiguous tensor of g's dtype and shape on backend be. */
tl_tensor *tl_gbuf_to_tensor(const tl_gbuf *g, const tl_backend *be,
                             tl_error *err);
/* Write g's values into t (same numel; t's layout), bumping nothing. */
int tl_gbuf_store(const tl_gbuf *g, tl_tensor *t, tl_error *err);
/* acc += g elementwise (same numel), rounded to acc->dt. */
void tl_gbuf_add(tl_gbuf *acc, const tl_gbuf *g);

/* Reduce g (a broadcast result) to out's shape: out = sum over the
 * broadcast dims, rounded to out->dt. out must be zeroed. */
void tl_gk_sum_to(const tl_gbuf *g, tl_gbuf *out);
/* out = src broadcast to out's shape (right-aligned, size-1 dims
 * repeat). */
void tl_gk_broadcast(const tl_gbuf *src, tl_gbuf *out);
/* Broadcast g (the shape of a reduction's result, keepdim or not: dims
 * lists the reduced dims of a rank-`ndim` input) back to out's shape. */
void tl_gk_expand_reduced(const tl_gbuf *g, tl_gbuf *out, int nd,
                          const int64_t *dims, bool all_dims, bool keepdim);

/* For each element of view `out` (row-major), the row-major index within
 * `in` of the element at the same storage position: map[j], or -1 when no
 * element of `in` sits there. Both geometries address one storage. */
int tl_gk_view_map(const tl_geom *in, const tl_geom *out, int64_t *map,
                   tl_error *err);

/* C[b] = op(A[b]) @ op(B[b]) for nb batches, in double (not rounded):
 * op(A) is n x k (A stored k x n when ta), op(B) is k x m (m x k when tb). */
void tl_gk_bmm(int64_t nb, int64_t n, int64_t k, int64_t m, const double *A,
               bool ta, const double *B, bool tb, double *C);

#ifdef __cplusplus
}
#endif

#endif
