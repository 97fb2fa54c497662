/* kernels_spec.h - specialised loops of the CUDA backend's kernels and the
 * host-side choice of them (review S2), included by kernels.h: the same
 * two-compiler subset of C11/C++17, run by the GPU and by the simulator.
 *
 * tl_k_prepare() looks at a launch's descriptor right before the device
 * layer (dev_cuda.cu, dev_sim.c) hands it to the grid, on that layer's own
 * copy, and may:
 *   - precompute a divisor per merged dim (fastdiv: multiply-high and
 *     shift instead of a hardware divide, PyTorch's IntDivider);
 *   - pick a loop with no per-element dtype switch:
 *       MOV   a same-dtype copy or gather: one typed access per element;
 *       VEC   a same-dtype copy whose last merged dim is dense in both
 *             operands and a multiple of 4 long: an item moves 4 elements
 *             (one 4-, 8-, 16- or 2x16-byte access each side when aligned);
 *       TILE  a same-dtype copy that transposes its last two merged dims
 *             (the output dense along the last, the source along the one
 *             before: x.t().contiguous(), NCHW -> NHWC): an item moves a
 *             4 x 4 tile, reading 4 source runs and writing 4 output runs
 *             of 4 elements, transposed in registers (no shared memory);
 *       BIN32/BIN64  a binary op whose operands and compute dtype are all
 *             float32 (float64): typed loads, no conversions;
 *       F16_F32 ... F64_F32  a copy between float32 and float16, bfloat16
 *             or float64 (destination_source): one conversion, no switch.
 * Invariants: a specialised loop writes exactly the bytes the generic one
 * would (check_kernels compares every launch with the CPU backend, on the
 * simulator, which runs these loops); every output element is still
 * written by exactly one item, and the simulator counts each element's
 * writes (nelem of them); launches that run serially (an output that
 * overlaps) keep the generic loop; bool copies keep the generic loop (it
 * normalises each byte to 0/1). The choice depends on the descriptor only,
 * so a GPU and the simulator run the same loop.
 */
#ifndef TL_KERNELS_SPEC_H
#define TL_KERNELS_SPEC_H

enum {
    TL_KSPEC_NONE, TL_KSPEC_MOV, TL_KSPEC_VEC, TL_KSPEC_TILE, TL_KSPEC_BIN32,
    TL_KSPEC_BIN64,
    /* conversions (destination <- source) */
    TL_KSPEC_F16_F32, TL_KSPEC_F32_F16, TL_KSPEC_BF16_F32, TL_KSPEC_F32_BF16,
    TL_KSPEC_F32_F64, TL_KSPEC_F64_F32, TL_KSPEC_LAST = TL_KSPEC_F64_F32
};

/* ---- runs of 4 elements of es bytes (es = 1, 2, 4, 8) ----
 * v[k] holds element k's bytes in its low es bytes (both devices are
 * little-endian; the host path copies bytes and never looks at values) */

TL_KFN void tl_k_ld4(uint64_t *v, const char *p, int es)
{
#ifdef __CUDA_ARCH__
    uintptr_t a = (uintptr_t)p;
    if (es == 4 && (a & 15) == 0) {
        uint4 q = *(const uint4 *)p;
        v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
        return;
    }
    if (es == 8 && (a & 15) == 0) {
        ulonglong2 q0 = ((const ulonglong2 *)p)[0], q1 = ((const ulonglong2 *)p)[1];
        v[0] = q0.x; v[1] = q0.y; v[2] = q1.x; v[3] = q1.y;
        return;
    }
    if (es == 2 && (a & 7) == 0) {
        uint64_t q = *(const uint64_t *)p;
        for (int k = 0; k < 4; k++)
            v[k] = (q >> (16 * k)) & 0xffffu;
        return;
    }
    if (es == 1 && (a & 3) == 0) {
        uint32_t q = *(const uint32_t *)p;
        for (int k = 0; k < 4; k++)
            v[k] = (q >> (8 * k)) & 0xffu;
        return;
    }
#endif
    for (int k = 0; k < 4; k++)
        v[k] = tl_k_ldu(p + k * es, es);
}

TL_KFN void tl_k_st4(char *p, const uint64_t *v, int es)
{
#ifdef __CUDA_ARCH__
    uintptr_t a = (uintptr_t)p;
    if (es == 4 && (a & 15) == 0) {
        uint4 q;
        q.x = (uint32_t)v[0]; q.y = (uint32_t)v[1]; q.z = (uint32_t)v[2]; q.w = (uint32_t)v[3];
        *(uint4 *)p = q;
        return;
    }
    if (es == 8 && (a & 15) == 0) {
        ulonglong2 q0, q1;
        q0.x = v[0]; q0.y = v[1]; q1.x = v[2]; q1.y = v[3];
        ((ulonglong2 *)p)[0] = q0;
        ((ulonglong2 *)p)[1] = q1;
        return;
    }
    if (es == 2 && (a & 7) == 0) {
        *(uint64_t *)p = (v[0] & 0xffffu) | (v[1] & 0xffffu) << 16 |
                         (v[2] & 0xffffu) << 32 | (v[3] & 0xffffu) << 48;
        return;
    }
    if (es == 1 && (a & 3) == 0) {
        *(uint32_t *)p = (uint32_t)((v[0] & 0xffu) | (v[1] & 0xffu) << 8 |
                                    (v[2] & 0xffu) << 16 | (v[3] & 0xffu) << 24);
        return;
    }
#endif
    for (int k = 0; k < 4; k++)
        tl_k_stu(p + k * es, v[k], es);
}

/* ---- the items of the specialised loops ---- */

TL_KFN void tl_k_vec_item(const tl_kdesc *d, int64_t i, int es)
{
    int64_t off[2];
    tl_k_offsets_n(d, i, off, 2);
    if (d->visits)
        for (int k = 0; k < 4; k++)
            tl_k_visit(d, 4 * i + k);
    uint64_t v[4];
    tl_k_ld4(v, d->ptr[1] + off[1], es);
    tl_k_st4(d->ptr[0] + off[0], v, es);
}

TL_KFN void tl_k_tile_item(const tl_kdesc *d, int64_t i, int es)
{
    int64_t off[2];
    tl_k_offsets_n(d, i, off, 2);
    int b = d->ndim - 1;
    int64_t tc, tr;
    int64_t outer = tl_k_divmod(d, b - 1, tl_k_divmod(d, b, i, &tc), &tr);
    int64_t r0 = 4 * tr, c0 = 4 * tc;
    int rows = d->trows - r0 < 4 ? (int)(d->trows - r0) : 4;
    int cols = d->tcols - c0 < 4 ? (int)(d->tcols - c0) : 4;
    char *o = d->ptr[0] + off[0];
    const char *s = d->ptr[1] + off[1];
    int64_t ors = d->tstride[0], ics = d->tstride[1];
    if (d->visits)
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < cols; c++)
                tl_k_visit(d, (outer * d->trows + r0 + r) * d->tcols + c0 + c);
    if (rows == 4 && cols == 4) {
        /* tC[r]: source run C holds output column c0 + C, rows r0 + r;
         * every index a constant, so the tile stays in registers */
        uint64_t t0[4], t1[4], t2[4], t3[4], v[4];
        tl_k_ld4(t0, s, es);
        tl_k_ld4(t1, s + ics, es);
        tl_k_ld4(t2, s + 2 * ics, es);
        tl_k_ld4(t3, s + 3 * ics, es);
#define TL_K_TILE_ROW(R)                                                       \
    v[0] = t0[R]; v[1] = t1[R]; v[2] = t2[R]; v[3] = t3[R];                    \
    tl_k_st4(o + (R) * ors, v, es);
        TL_K_TILE_ROW(0)
        TL_K_TILE_ROW(1)
        TL_K_TILE_ROW(2)
        TL_K_TILE_ROW(3)
#undef TL_K_TILE_ROW
        return;
    }
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            tl_k_mov(o + r * ors + c * es, s + r * es + c * ics, es);
}

/* binary ops in one floating dtype: the generic item's result (compute in
 * double, round once to T; comparisons store 0/1) without its switches */
#define TL_K_BIN_ITEM(NAME, T)                                                 \
    TL_KFN void NAME(const tl_kdesc *d, int64_t i)                             \
    {                                                                          \
        int64_t off[3];                                                        \
        tl_k_offsets_n(d, i, off, 3);                                          \
        T a, b, r;                                                             \
        tl_k_ld(&a, d->ptr[1] + off[1], (int)sizeof(T));                       \
        tl_k_ld(&b, d->ptr[2] + off[2], (int)sizeof(T));                       \
        int c = tl_k_cmp_f(d->op, a, b);                                       \
        r = c >= 0 ? (T)c : (T)tl_k_binary_f(d->op, a, b);                     \
        tl_k_st(d->ptr[0] + off[0], &r, (int)sizeof(T));                       \
    }
TL_K_BIN_ITEM(tl_k_bin32_item, float)
TL_K_BIN_ITEM(tl_k_bin64_item, double)
#undef TL_K_BIN_ITEM

/* conversions, each tl_k_convert's result for its pair (floating sources
 * go through double there: exact for float32 and for the 16-bit types'
 * float32 values) */
TL_KFN float tl_k_ld32(const char *p) { float v; tl_k_ld(&v, p, 4); return v; }
TL_KFN double tl_k_ld64(const char *p) { double v; tl_k_ld(&v, p, 8); return v; }
TL_KFN void tl_k_st32(char *p, float v) { tl_k_st(p, &v, 4); }
TL_KFN void tl_k_st64(char *p, double v) { tl_k_st(p, &v, 8); }
TL_KFN void tl_k_st16(char *p, uint16_t v) { tl_k_st(p, &v, 2); }
TL_KFN uint16_t tl_k_ld16(const char *p) { uint16_t v; tl_k_ld(&v, p, 2); return v; }

TL_KFN void tl_k_cvt_item(const tl_kdesc *d, int64_t i, int spec)
{
    int64_t off[2];
    tl_k_offsets_n(d, i, off, 2);
    char *o = d->ptr[0] + off[0];
    const char *s = d->ptr[1] + off[1];
    switch (spec) {
    case TL_KSPEC_F16_F32: tl_k_st16(o, tl_sd_f32_to_f16(tl_k_ld32(s))); break;
    case TL_KSPEC_F32_F16: tl_k_st32(o, tl_sd_f16_to_f32(tl_k_ld16(s))); break;
    case TL_KSPEC_BF16_F32: tl_k_st16(o, tl_sd_f32_to_bf16(tl_k_ld32(s))); break;
    case TL_KSPEC_F32_BF16: tl_k_st32(o, tl_sd_bf16_to_f32(tl_k_ld16(s))); break;
    case TL_KSPEC_F32_F64: tl_k_st32(o, (float)tl_k_ld64(s)); break;
    default: tl_k_st64(o, (double)tl_k_ld32(s)); break; /* F64_F32 */
    }
}

/* One thread's share of a specialised launch: 1 when d->spec was run. The
 * kind tests are constants in each __global__ wrapper, so a kernel holds
 * only the loops its kind can take. */
TL_KFN int tl_k_spec_run(int kind, const tl_kdesc *d, tl_kgrid g)
{
    int64_t step = tl_k_stride(g), i0 = d->first + tl_k_first(g), i;
    int es = tl_k_size(d->dtype[0]);
    if (kind == TL_K_COPY || kind == TL_K_GATHER) {
        if (d->spec == TL_KSPEC_MOV) {
            int64_t off[2];
#define TL_K_MOV_LOOP(ES)                                                      \
    for (i = i0; i < d->n; i += step) {                                        \
        tl_k_visit(d, i);                                                      \
        tl_k_offsets_n(d, i, off, 2);                                          \
        tl_k_mov(d->ptr[0] + off[0], d->ptr[1] + off[1], ES);                  \
    }
            switch (es) {
            case 1: TL_K_MOV_LOOP(1) break;
            case 2: TL_K_MOV_LOOP(2) break;
            case 4: TL_K_MOV_LOOP(4) break;
            default: TL_K_MOV_LOOP(8) break;
            }
#undef TL_K_MOV_LOOP
            return 1;
        }
    }
    if (kind == TL_K_COPY) {
        if (d->spec >= TL_KSPEC_F16_F32 && d->spec <= TL_KSPEC_LAST) {
            /* one loop per pair: the switch is outside the items */
#define TL_K_CVT_LOOP(SPEC)                                                    \
    case SPEC:                                                                 \
        for (i = i0; i < d->n; i += step) {                                    \
            tl_k_visit(d, i);                                                  \
            tl_k_cvt_item(d, i, SPEC);                                         \
        }                                                                      \
        break;
            switch (d->spec) {
            TL_K_CVT_LOOP(TL_KSPEC_F16_F32)
            TL_K_CVT_LOOP(TL_KSPEC_F32_F16)
            TL_K_CVT_LOOP(TL_KSPEC_BF16_F32)
            TL_K_CVT_LOOP(TL_KSPEC_F32_BF16)
            TL_K_CVT_LOOP(TL_KSPEC_F32_F64)
            TL_K_CVT_LOOP(TL_KSPEC_F64_F32)
            default: break;
            }
#undef TL_K_CVT_LOOP
            return 1;
        }
        if (d->spec == TL_KSPEC_VEC) {
            for (i = i0; i < d->n; i += step)
                tl_k_vec_item(d, i, es);
            return 1;
        }
        if (d->spec == TL_KSPEC_TILE) {
            for (i = i0; i < d->n; i += step)
                tl_k_tile_item(d, i, es);
            return 1;
        }
    }
    if (kind == TL_K_BINARY) {
        if (d->spec == TL_KSPEC_BIN32) {
            for (i = i0; i < d->n; i += step) {
                tl_k_visit(d, i);
                tl_k_bin32_item(d, i);
            }
            return 1;
        }
        if (d->spec == TL_KSPEC_BIN64) {
            for (i = i0; i < d->n; i += step) {
                tl_k_visit(d, i);
                tl_k_bin64_item(d, i);
            }
            return 1;
        }
    }
    return 0;
}

/* ---- the host's choice ---- */

/* multiply-high-and-shift constants for x / div, x < 2^31, 1 <= div < 2^31
 * (PyTorch's IntDivider<unsigned int>) */
TL_KFN void tl_k_divider(uint32_t div, uint32_t *mag, uint8_t *shift)
{
    int s = 0;
    while (s < 32 && ((uint64_t)1 << s) < div)
        s++;
    uint64_t one = 1;
    *mag = (uint32_t)(((one << 32) * ((one << s) - div)) / div + 1);
    *shift = (uint8_t)s;
}

/* operand k's base and strides are multiples of es */
TL_KFN int tl_k_aligned_op(const tl_kdesc *d, int k, int64_t es)
{
    if ((uintptr_t)d->ptr[k] % (uintptr_t)es)
        return 0;
    for (int j = 0; j < d->ndim; j++)
        if (d->strides[k][j] % es)
            return 0;
    return 1;
}

/* so are the first nops operands' */
TL_KFN int tl_k_aligned(const tl_kdesc *d, int nops, int64_t es)
{
    for (int k = 0; k < nops; k++)
        if (!tl_k_aligned_op(d, k, es))
            return 0;
    return 1;
}

TL_KFN void tl_k_choose(int kind, tl_kdesc *d)
{
    int es = tl_k_size(d->dtype[0]);
    int last = d->ndim - 1;
    if ((kind == TL_K_COPY || kind == TL_K_GATHER) && d->nops == 2 &&
        d->dtype[0] == d->dtype[1] && d->dtype[0] != TL_K_BOOL && tl_k_aligned(d, 2, es)) {
        d->spec = TL_KSPEC_MOV;
        if (kind != TL_K_COPY || d->gdim >= 0 || last < 0)
            return;
        if (last >= 1 && d->strides[0][last] == es && d->strides[1][last - 1] == es &&
            d->sizes[last] >= 4 && d->sizes[last - 1] >= 4) {
            int a = last - 1;
            int64_t tiles_r = (d->sizes[a] + 3) / 4, tiles_c = (d->sizes[last] + 3) / 4;
            d->spec = TL_KSPEC_TILE;
            d->trows = d->sizes[a];
            d->tcols = d->sizes[last];
            d->tstride[0] = d->strides[0][a];
            d->tstride[1] = d->strides[1][last];
            d->n = d->n / (d->sizes[a] * d->sizes[last]) * tiles_r * tiles_c;
            d->sizes[a] = tiles_r;
            d->sizes[last] = tiles_c;
            for (int k = 0; k < 2; k++) {
                d->strides[k][a] *= 4;
                d->strides[k][last] *= 4;
            }
        } else if (d->strides[0][last] == es && d->strides[1][last] == es &&
                   d->sizes[last] % 4 == 0) {
            d->spec = TL_KSPEC_VEC;
            d->n /= 4;
            d->sizes[last] /= 4;
            d->strides[0][last] *= 4;
            d->strides[1][last] *= 4;
        }
        return;
    }
    if (kind == TL_K_COPY && d->nops == 2 && d->gdim < 0) {
        int dd = d->dtype[0], sd = d->dtype[1], sp = TL_KSPEC_NONE;
        if (dd == TL_K_F16 && sd == TL_K_F32) sp = TL_KSPEC_F16_F32;
        else if (dd == TL_K_F32 && sd == TL_K_F16) sp = TL_KSPEC_F32_F16;
        else if (dd == TL_K_BF16 && sd == TL_K_F32) sp = TL_KSPEC_BF16_F32;
        else if (dd == TL_K_F32 && sd == TL_K_BF16) sp = TL_KSPEC_F32_BF16;
        else if (dd == TL_K_F32 && sd == TL_K_F64) sp = TL_KSPEC_F32_F64;
        else if (dd == TL_K_F64 && sd == TL_K_F32) sp = TL_KSPEC_F64_F32;
        if (sp && tl_k_aligned_op(d, 0, es) && tl_k_aligned_op(d, 1, tl_k_size(sd)))
            d->spec = sp;
        return;
    }
    if (kind == TL_K_BINARY && d->nops == 3 && (d->compute == TL_K_F32 || d->compute == TL_K_F64) &&
        d->dtype[0] == d->compute && d->dtype[1] == d->compute && d->dtype[2] == d->compute &&
        tl_k_aligned(d, 3, es))
        d->spec = d->compute == TL_K_F32 ? TL_KSPEC_BIN32 : TL_KSPEC_BIN64;
}

/* Called by the device layer on its copy of a launch's descriptor. */
TL_KFN void tl_k_prepare(int kind, tl_kdesc *d)
{
    d->spec = TL_KSPEC_NONE;
    d->fastdiv = 0;
    d->nelem = d->n;
    if (d->nospec || d->n <= 0)
        return;
    if (!d->serial)
        tl_k_choose(kind, d);
    if (d->n > 2147483647 || d->ndim > TL_K_DIVDIMS)
        return;
    for (int j = 0; j < d->ndim; j++)
        if (d->sizes[j] < 1 || d->sizes[j] > 2147483647)
            return;
    for (int j = 0; j < d->ndim; j++)
        tl_k_divider((uint32_t)d->sizes[j], &d->dmag[j], &d->dshift[j]);
    d->fastdiv = 1;
}

#endif
