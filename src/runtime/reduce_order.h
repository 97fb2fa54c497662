/* reduce_order.h - the one order in which both devices fold a floating
 * sum, mean or product, so that the CPU backend and the CUDA kernels give
 * the same bits for every size and layout.
 *
 * The elements of one output are numbered k = 0 .. n-1 in the logical
 * (row-major) order of the reduced sub-shape, whatever their layout. Then:
 *
 *   1. Blocks: k is cut into blocks of TL_RO_BLOCK (1024) elements; the
 *      last one may be shorter.
 *   2. Lanes: in a block, element k goes to lane k % 64 (TL_RO_LANES).
 *      Each lane folds its elements (at most 16) in increasing k, starting
 *      from the identity (0 for sums, 1 for products). The lanes are float
 *      for a float32 sum or mean (compute dtype float32: 64 float lanes are
 *      what the CPU's SIMD loops add), double for every other floating
 *      sum, mean and product. Each element is first rounded to the compute
 *      dtype (as before).
 *   3. Lane combine: c[j] = (L[j] o L[j+16]) o (L[j+32] o L[j+48]) for
 *      j < 16, in the lanes' type; then in double h[i] = c[i] o c[i+8] for
 *      i < 8 and the block's value ((h0 o h4) o (h2 o h6)) o ((h1 o h5) o
 *      (h3 o h7)). This is the horizontal fold of four 16-lane vectors
 *      (for float32 the same steps as the CPU's sum before this order was
 *      shared). A lane no element reached holds the identity.
 *   4. Blocks are combined, in double, by a pairwise tree: the largest
 *      power of two 2^p < nblocks (or all of them if a power of two)
 *      makes a perfect binary tree on the left, and the rest recursively on
 *      the right. This is the tree that the binary-counter cascade below
 *      builds while streaming, and also the tree that pairing adjacent
 *      values level by level (an odd last value carried up) builds.
 *   5. The result is rounded to the compute dtype; a mean divides the
 *      double total by n first.
 *
 * Why this order: it is a cascade like PyTorch's CPU sum (float lanes
 * over short runs, pairwise above), so torch's fixtures still agree
 * within their tolerance. The CPU's vector loops (cpu_loops.c) compute it
 * at full SIMD width: four 16-float vectors are 64 lanes. The GPU computes
 * it in parallel: one work item per (output, block), then one item per
 * output folds the block values with the cascade (cuda/kernels.h). The
 * CPU's generic kernel (backend_cpu.c) and the device kernels call the
 * functions below. The vector loops compute steps 1-2 in registers and
 * then call tl_ro_lanes_close and tl_ro_push.
 *
 * Header-only, in the common subset of C11 and C++17, __host__ __device__
 * under nvcc (TL_SD, scalar_defs.h). No state beyond the caller's structs.
 */
#ifndef TL_REDUCE_ORDER_H
#define TL_REDUCE_ORDER_H

#include "scalar_defs.h"

#define TL_RO_BLOCK 1024
#define TL_RO_LANES 64
#define TL_RO_DEPTH 64 /* cascade depth: one level per bit of the block count */

/* float lanes? (a float32 sum or mean; compute_f32: compute is float32) */
TL_SD int tl_ro_f32_lanes(int compute_f32, int prod)
{
    return compute_f32 && !prod;
}

/* Step 3 for float lanes (sums only): the value of a block from its 64
 * lanes (used: how many lanes got an element; the others hold 0). */
TL_SD double tl_ro_lanes_close_f(const float *L, int used)
{
    float v[TL_RO_LANES];
    for (int j = 0; j < TL_RO_LANES; j++)
        v[j] = j < used ? L[j] : 0.0f;
    float c[16];
    double h[8];
    for (int j = 0; j < 16; j++)
        c[j] = (v[j] + v[j + 16]) + (v[j + 32] + v[j + 48]);
    for (int i = 0; i < 8; i++)
        h[i] = (double)c[i] + (double)c[i + 8];
    return ((h[0] + h[4]) + (h[2] + h[6])) + ((h[1] + h[5]) + (h[3] + h[7]));
}

/* Step 3 for double lanes */
TL_SD double tl_ro_lanes_close(const double *L, int used, int prod)
{
    double id = prod ? 1.0 : 0.0;
    double v[TL_RO_LANES];
    for (int j = 0; j < TL_RO_LANES; j++)
        v[j] = j < used ? L[j] : id;
    double c[16], h[8];
    if (prod) {
        for (int j = 0; j < 16; j++)
            c[j] = (v[j] * v[j + 16]) * (v[j + 32] * v[j + 48]);
        for (int i = 0; i < 8; i++)
            h[i] = c[i] * c[i + 8];
        return ((h[0] * h[4]) * (h[2] * h[6])) * ((h[1] * h[5]) * (h[3] * h[7]));
    }
    for (int j = 0; j < 16; j++)
        c[j] = (v[j] + v[j + 16]) + (v[j + 32] + v[j + 48]);
    for (int i = 0; i < 8; i++)
        h[i] = c[i] + c[i + 8];
    return ((h[0] + h[4]) + (h[2] + h[6])) + ((h[1] + h[5]) + (h[3] + h[7]));
}

/* Steps 1-3 for one block, element by element (the generic kernels). */
typedef struct tl_ro_block {
    int32_t pos;  /* elements folded into this block so far */
    int32_t f32;  /* float lanes */
    int32_t prod;
    float lf[TL_RO_LANES];
    double ld[TL_RO_LANES];
} tl_ro_block;

TL_SD void tl_ro_block_init(tl_ro_block *b, int f32, int prod)
{
    b->pos = 0;
    b->f32 = f32;
    b->prod = prod;
}

/* fold v (already rounded to the compute dtype) as the block's next element */
TL_SD void tl_ro_block_add(tl_ro_block *b, double v)
{
    int j = b->pos % TL_RO_LANES;
    if (b->f32) {
        float f = (float)v;
        if (b->pos < TL_RO_LANES)
            b->lf[j] = 0.0f + f;
        else
            b->lf[j] = b->lf[j] + f;
    } else if (b->prod) {
        b->ld[j] = (b->pos < TL_RO_LANES ? 1.0 : b->ld[j]) * v;
    } else {
        b->ld[j] = (b->pos < TL_RO_LANES ? 0.0 : b->ld[j]) + v;
    }
    b->pos++;
}

TL_SD double tl_ro_block_value(const tl_ro_block *b)
{
    int used = b->pos < TL_RO_LANES ? b->pos : TL_RO_LANES;
    if (b->f32)
        return tl_ro_lanes_close_f(b->lf, used);
    return tl_ro_lanes_close(b->ld, used, b->prod);
}

/* Step 4: the binary-counter cascade of block values. */
typedef struct tl_ro_casc {
    uint64_t n; /* blocks pushed */
    int32_t top;
    double st[TL_RO_DEPTH];
} tl_ro_casc;

TL_SD void tl_ro_casc_init(tl_ro_casc *s)
{
    s->n = 0;
    s->top = 0;
}

TL_SD void tl_ro_push(tl_ro_casc *s, double v, int prod)
{
    uint64_t n = s->n;
    while (n & 1u) {
        double l = s->st[--s->top];
        v = prod ? l * v : l + v;
        n >>= 1;
    }
    s->st[s->top++] = v;
    s->n++;
}

/* the total of the blocks pushed (the identity when none was) */
TL_SD double tl_ro_total(const tl_ro_casc *s, int prod)
{
    if (s->top == 0)
        return prod ? 1.0 : 0.0;
    double v = s->st[s->top - 1];
    for (int i = s->top - 2; i >= 0; i--)
        v = prod ? s->st[i] * v : s->st[i] + v;
    return v;
}

/* Steps 1-4 element by element: a block plus the cascade. */
typedef struct tl_ro_acc {
    tl_ro_block b;
    tl_ro_casc s;
} tl_ro_acc;

TL_SD void tl_ro_init(tl_ro_acc *a, int f32, int prod)
{
    tl_ro_block_init(&a->b, f32, prod);
    tl_ro_casc_init(&a->s);
}

TL_SD void tl_ro_add(tl_ro_acc *a, double v)
{
    tl_ro_block_add(&a->b, v);
    if (a->b.pos == TL_RO_BLOCK) {
        tl_ro_push(&a->s, tl_ro_block_value(&a->b), a->b.prod);
        a->b.pos = 0;
    }
}

TL_SD double tl_ro_finish(tl_ro_acc *a)
{
    if (a->b.pos > 0) {
        tl_ro_push(&a->s, tl_ro_block_value(&a->b), a->b.prod);
        a->b.pos = 0;
    }
    return tl_ro_total(&a->s, a->b.prod);
}

#endif
