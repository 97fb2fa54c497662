/* create.c - tensor factories, host buffers and the cross-backend copy.
 *
 * Design:
 *   - Factories write their values straight into the result's storage
 *     when the backend's memory is host memory, else into a host buffer of
 *     the target dtype charged to the ledger as scratch, uploaded once
 *     through the backend (from_host): tl_create_begin/finish, so the same
 *     code serves the CPU, the emulated device and a real GPU, and no
 *     factory holds an uncharged temporary. Constant fills go through
 *     backend->fill instead. torch.tensor(data) fills such a buffer
 *     from Python data in the py layer (py/convert.c) and uploads it here.
 *   - The backends by device and the RNG state are the thread's context
 *     (context.h): `tlab grade --jobs` runs interpreters in threads.
 *     Devices resolve to backends through backend.h's tl_backend_for,
 *     device strings parse through device.h's tl_device_parse.
 *   - The generator is xoshiro256** seeded through splitmix64. rand uses
 *     the top 24 (float32) or 53 bits; randn is Box-Muller in double.
 */
#include "create.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "shape.h"
#include "util.h"

/* ------------------------------------------------------------------------
 * Context
 * ---------------------------------------------------------------------- */

const tl_backend *tl_create_default_backend(void)
{
    const tl_backend *be = tl_context_get()->default_backend;
    return be ? be : tl_backend_cpu();
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void tl_create_manual_seed(uint64_t seed)
{
    tl_context *c = tl_context_get();
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        c->rng[i] = splitmix64(&x);
    c->rng_seeded = true;
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(void)
{
    tl_context *c = tl_context_get();
    if (!c->rng_seeded)
        tl_create_manual_seed(0);
    uint64_t *s = c->rng;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* uniform in [0, 1) with 53 random bits */
static double rng_uniform(void)
{
    return (double)(rng_next() >> 11) * 0x1p-53;
}

/* ------------------------------------------------------------------------
 * Devices
 * ---------------------------------------------------------------------- */


int tl_create_set_requires_grad(tl_tensor *t, bool rg, tl_error *err)
{
    if (rg && !tl_dtype_is_floating(t->dtype))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "Only Tensors of floating point and complex dtype "
                            "can require gradients");
    t->requires_grad = rg;
    return 0;
}

/* ------------------------------------------------------------------------
 * Scalar range checks
 * ---------------------------------------------------------------------- */

static const char *c_type_name(tl_dtype dt)
{
    switch (dt) {
    case TL_BOOL: return "bool";
    case TL_UINT8: return "uint8_t";
    case TL_INT8: return "int8_t";
    case TL_INT16: return "int16_t";
    case TL_INT32: return "int";
    case TL_INT64: return "int64_t";
    case TL_FLOAT16: return "at::Half";
    case TL_BFLOAT16: return "at::BFloat16";
    case TL_FLOAT32: return "float";
    case TL_FLOAT64: return "double";
    default: return "?";
    }
}

static void int_limits(tl_dtype dt, int64_t *lo, int64_t *hi)
{
    switch (dt) {
    case TL_UINT8: *lo = 0; *hi = 255; break;
    case TL_INT8: *lo = -128; *hi = 127; break;
    case TL_INT16: *lo = INT16_MIN; *hi = INT16_MAX; break;
    case TL_INT32: *lo = INT32_MIN; *hi = INT32_MAX; break;
    default: *lo = INT64_MIN; *hi = INT64_MAX; break;
    }
}

static double float_max(tl_dtype dt)
{
    switch (dt) {
    case TL_FLOAT16: return 65504.0;
    case TL_BFLOAT16: return 3.3895313892515355e38;
    case TL_FLOAT32: return 3.4028234663852886e38;
    default: return INFINITY;
    }
}

/* c10::overflows<To>(v) */
bool tl_create_scalar_overflows(tl_dtype dt, tl_scalar v)
{
    if (dt == TL_BOOL)
        return false;
    if (tl_dtype_is_floating(dt)) {
        double f = v.is_float ? v.f : (double)v.i;
        if (isinf(f) || isnan(f))
            return false;
        return f < -float_max(dt) || f > float_max(dt);
    }
    int64_t lo, hi;
    int_limits(dt, &lo, &hi);
    if (v.is_float) {
        if (isnan(v.f))
            return true;
        return v.f < (double)lo || v.f > (double)hi;
    }
    if (dt == TL_UINT8) /* negative values may wrap (two's complement) */
        return v.i > hi || (v.i < 0 && v.i < -hi);
    return v.i < lo || v.i > hi;
}

int tl_create_check_scalar(tl_dtype dt, tl_scalar v, tl_error *err)
{
    if (tl_create_scalar_overflows(dt, v))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "value cannot be converted to type %s without "
                            "overflow",
                            c_type_name(dt));
    return 0;
}

/* ------------------------------------------------------------------------
 * Host buffers
 * ---------------------------------------------------------------------- */

/* A fresh contiguous tensor on be whose bytes are `host` (contiguous, dt). */
tl_tensor *tl_create_upload(const tl_backend *be, tl_dtype dt, int ndim,
                            const int64_t *sizes, const void *host,
                            tl_error *err)
{
    tl_tensor *t = tl_tensor_new(be, dt, ndim, sizes, err);
    if (!t)
        return NULL;
    size_t n = t->storage->nbytes;
    if (n && tl_backend_from_host(be, t->storage->data, host, n, err) < 0) {
        tl_tensor_release(t);
        return NULL;
    }
    return t;
}

/* A zeroed host buffer for numel elements of dt, charged as scratch, or
 * NULL with a LIMIT error when it cannot be had. */
void *tl_create_host_buffer(int64_t numel, tl_dtype dt, tl_error *err)
{
    size_t isz = tl_dtype_size(dt);
    if (numel < 0 || (uint64_t)numel > SIZE_MAX / (isz ? isz : 1)) {
        tl_error_set(err, TL_ERR_LIMIT, "tensor too large");
        return NULL;
    }
    size_t n = (size_t)numel * isz;
    if (tl_alloc_scratch_charge(n, err) < 0)
        return NULL;
    void *p = calloc(1, n ? n : 1);
    if (!p) {
        tl_alloc_scratch_release(n);
        tl_error_set(err, TL_ERR_RUNTIME,
                     "[enforce fail at alloc_cpu.cpp:75] data. "
                     "DefaultCPUAllocator: not enough memory: you tried to "
                     "allocate %zu bytes.",
                     n);
    }
    return p;
}

void tl_create_host_buffer_free(void *p, int64_t numel, tl_dtype dt)
{
    if (!p)
        return;
    free(p);
    tl_alloc_scratch_release((size_t)numel * tl_dtype_size(dt));
}

tl_tensor *tl_create_begin(const tl_backend *be, tl_dtype dt, int ndim,
                           const int64_t *sizes, bool zero, void **host,
                           tl_error *err)
{
    *host = NULL;
    int64_t st[TL_MAX_DIMS];
    if (!zero && ndim >= 0 && ndim <= TL_MAX_DIMS)
        tl_shape_contiguous_strides(ndim, sizes, st);
    tl_tensor *t = zero || ndim < 0 || ndim > TL_MAX_DIMS
                       ? tl_tensor_new(be, dt, ndim, sizes, err)
                       : tl_tensor_new_for_write(be, dt, ndim, sizes, st, err);
    if (!t)
        return NULL;
    if (tl_backend_host_accessible(be)) {
        *host = t->storage->data; /* NULL for zero bytes: nothing is written */
        return t;
    }
    *host = tl_create_host_buffer(tl_tensor_numel(t), dt, err);
    if (!*host) {
        tl_tensor_release(t);
        return NULL;
    }
    return t;
}

tl_tensor *tl_create_finish(tl_tensor *t, void *host, bool ok, tl_error *err)
{
    bool staged = host && host != t->storage->data;
    size_t n = t->storage->nbytes;
    if (ok && staged && n &&
        tl_backend_from_host(tl_tensor_backend(t), t->storage->data, host, n, err) < 0)
        ok = false;
    if (staged)
        tl_create_host_buffer_free(host, tl_tensor_numel(t), t->dtype);
    if (!ok) {
        tl_tensor_release(t);
        return NULL;
    }
    return t;
}

/* ------------------------------------------------------------------------
 * Factories
 * ---------------------------------------------------------------------- */

tl_tensor *tl_create_full(const tl_backend *be, tl_dtype dt, int ndim,
                          const int64_t *sizes, tl_scalar v, tl_error *err)
{
    tl_tensor *t = tl_tensor_new(be, dt, ndim, sizes, err);
    if (!t)
        return NULL;
    bool zero = v.is_float ? (v.f == 0.0 && !signbit(v.f)) : v.i == 0;
    if (!zero) {
        tl_strided s = tl_tensor_strided(t);
        if (tl_backend_fill(be, &s, v, err) < 0) {
            tl_tensor_release(t);
            return NULL;
        }
    }
    return t;
}

static void fmt_num(char *buf, size_t cap, double v)
{
    if (isinf(v))
        snprintf(buf, cap, "%s", v < 0 ? "-inf" : "inf");
    else if (isnan(v))
        snprintf(buf, cap, "nan");
    else
        snprintf(buf, cap, "%.6g", v);
}

tl_tensor *tl_create_arange(const tl_backend *be, tl_dtype dt, double start,
                            double end, double step, tl_error *err)
{
    if (dt == TL_BOOL) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "\"arange_%s\" not implemented for 'Bool'",
                     tl_backend_device(be).kind == TL_DEV_CUDA ? "cuda" : "cpu");
        return NULL;
    }
    /* integral dtypes convert the bounds first (PyTorch's accscalar_t) */
    double xs = start, xe = end, xst = step;
    if (tl_dtype_is_integral(dt)) {
        unsigned char b[8];
        tl_dtype_store_f64(TL_INT64, b, start);
        xs = (double)tl_dtype_load_i64(TL_INT64, b);
        tl_dtype_store_f64(TL_INT64, b, end);
        xe = (double)tl_dtype_load_i64(TL_INT64, b);
        tl_dtype_store_f64(TL_INT64, b, step);
        xst = (double)tl_dtype_load_i64(TL_INT64, b);
        /* a bound past int64 (2**63 - 1 rounds up to 2**63 as a double)
         * keeps its value: the size check below then reports the overflow
         * instead of a wrapped, empty range */
        if (!(fabs(start) < 0x1p63))
            xs = start;
        if (!(fabs(end) < 0x1p63))
            xe = end;
    }
    double size_d = dt == TL_INT64 ? ceil((xe - xs) / xst)
                                   : ceil((end - start) / step);
    if (!(xst > 0 || xst < 0)) {
        tl_error_set(err, TL_ERR_RUNTIME, "step must be nonzero");
        return NULL;
    }
    if (!isfinite(xs) || !isfinite(xe)) {
        char a[48], b[48];
        fmt_num(a, sizeof a, xs);
        fmt_num(b, sizeof b, xe);
        tl_error_set(err, TL_ERR_RUNTIME, "unsupported range: %s -> %s", a, b);
        return NULL;
    }
    if (!((xst > 0 && xe >= xs) || (xst < 0 && xe <= xs))) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "upper bound and larger bound inconsistent with step sign");
        return NULL;
    }
    if (!(size_d >= 0 && size_d <= 9.2233720368547758e18)) {
        tl_error_set(err, TL_ERR_RUNTIME, "invalid size, possible overflow?");
        return NULL;
    }
    if (size_d > (double)TL_MAX_NUMEL) {
        tl_error_set(err, TL_ERR_LIMIT,
                     "a tensor may have at most 2^31 elements (tlab limit)");
        return NULL;
    }
    int64_t n = (int64_t)size_d;
    int64_t sizes[1] = {n};
    void *host;
    tl_tensor *t = tl_create_begin(be, dt, 1, sizes, false, &host, err);
    if (!t)
        return NULL;
    size_t isz = tl_dtype_size(dt);
    char *p = host;
    if (tl_dtype_is_integral(dt)) {
        int64_t s0 = (int64_t)xs, st = (int64_t)xst;
        for (int64_t i = 0; i < n; i++)
            tl_dtype_store_i64(dt, p + (size_t)i * isz,
                               (int64_t)((uint64_t)s0 + (uint64_t)st * (uint64_t)i));
    } else if (dt == TL_FLOAT16 || dt == TL_BFLOAT16) {
        float s0 = (float)start, st = (float)step; /* acc type float */
        for (int64_t i = 0; i < n; i++)
            tl_dtype_store_f64(dt, p + (size_t)i * isz, (double)(s0 + st * (float)i));
    } else {
        for (int64_t i = 0; i < n; i++)
            tl_dtype_store_f64(dt, p + (size_t)i * isz, start + step * (double)i);
    }
    return tl_create_finish(t, host, true, err);
}

tl_tensor *tl_create_eye(const tl_backend *be, tl_dtype dt, int64_t n,
                         int64_t m, tl_error *err)
{
    if (n < 0) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "n must be greater or equal to 0, got %" PRId64, n);
        return NULL;
    }
    if (m < 0) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "m must be greater or equal to 0, got %" PRId64, m);
        return NULL;
    }
    int64_t sizes[2] = {n, m}, numel;
    if (tl_tensor_check_shape(2, sizes, &numel, err) < 0)
        return NULL;
    void *host;
    tl_tensor *t = tl_create_begin(be, dt, 2, sizes, true, &host, err);
    if (!t)
        return NULL;
    size_t isz = tl_dtype_size(dt);
    int64_t k = n < m ? n : m;
    for (int64_t i = 0; i < k; i++)
        tl_dtype_store_i64(dt, (char *)host + (size_t)(i * m + i) * isz, 1);
    return tl_create_finish(t, host, true, err);
}

/* linspace_kernel arithmetic: a value rounded to dt the way scalar_t
 * arithmetic rounds it (Half/BFloat16 compute in float, then round). */
static double lin_round(tl_dtype dt, double v)
{
    char buf[16];
    switch (dt) {
    case TL_FLOAT64:
        return v;
    case TL_FLOAT32:
        return (double)(float)v;
    case TL_FLOAT16:
    case TL_BFLOAT16:
        tl_dtype_store_f64(dt, buf, (double)(float)v);
        return tl_dtype_load_f64(dt, buf);
    default: /* integral: static_cast<scalar_t>(double) truncates; wraps */
        tl_dtype_store_i64(dt, buf, (int64_t)v);
        return (double)tl_dtype_load_i64(dt, buf);
    }
}

typedef struct lin {
    tl_dtype dt;
    bool low, isf;
    double start, end, step;
    int64_t steps, halfway;
} lin;

/* step * k in scalar_t arithmetic (Half * int64 rounds k to Half first) */
static double lin_mul(const lin *l, int64_t k)
{
    if (!l->isf)
        return l->step * (double)k;
    double kk = l->low ? lin_round(l->dt, (double)k) : (double)k;
    return lin_round(l->dt, l->step * kk);
}

/* the serial lambda: from start for the first half, from end after */
static double lin_scalar(const lin *l, int64_t idx)
{
    double v = idx < l->halfway ? l->start + lin_mul(l, idx)
                                : l->end - lin_mul(l, l->steps - idx - 1);
    return lin_round(l->dt, v);
}

tl_tensor *tl_create_linspace(const tl_backend *be, tl_dtype dt, double start,
                              double end, int64_t steps, tl_error *err)
{
    if (steps < 0) {
        tl_error_set(err, TL_ERR_RUNTIME, "number of steps must be non-negative");
        return NULL;
    }
    int64_t sizes[1] = {steps}, numel;
    if (tl_tensor_check_shape(1, sizes, &numel, err) < 0)
        return NULL;
    /* Scalar::to<scalar_t>() of start and end (an integral value is an int
     * Scalar, which may wrap into uint8 but must not overflow) */
    for (int i = 0; i < 2; i++) {
        double v = i ? end : start;
        tl_scalar sc = {0};
        if (v == floor(v) && fabs(v) < 9.2e18) {
            sc.i = (int64_t)v;
            sc.f = v;
        } else {
            sc.is_float = true;
            sc.f = v;
        }
        if (tl_create_check_scalar(dt, sc, err) < 0)
            return NULL;
    }
    void *host;
    tl_tensor *t = tl_create_begin(be, dt, 1, sizes, false, &host, err);
    if (!t)
        return NULL;
    size_t isz = tl_dtype_size(dt);
    char *p = host;
    /* linspace_kernel (RangeFactoriesKernel.cpp, 1.13 and 2.x) as the
     * AVX2 build runs it: cpu_serial_kernel_vec takes two 32-byte vectors
     * at a time (each lane k = base + step * k, base from the serial
     * formula at the vector's first index), then the serial formula for
     * the tail. Integral dtypes keep step in double. */
    lin l;
    l.dt = dt;
    l.isf = tl_dtype_is_floating(dt);
    l.low = dt == TL_FLOAT16 || dt == TL_BFLOAT16;
    l.start = lin_round(dt, start);
    l.end = lin_round(dt, end);
    l.steps = steps;
    l.halfway = steps / 2;
    if (steps == 1) {
        tl_dtype_store_f64(dt, p, l.start);
    } else if (steps > 1) {
        if (l.isf)
            l.step = lin_round(dt, lin_round(dt, l.end - l.start) / (double)(steps - 1));
        else
            l.step = (l.end - l.start) / (double)(steps - 1);
        int64_t lanes = (int64_t)(32 / isz), idx = 0;
        while (idx + 2 * lanes <= steps) {
            for (int v = 0; v < 2; v++, idx += lanes) {
                double base = lin_scalar(&l, idx);
                for (int64_t k = 0; k < lanes; k++)
                    tl_dtype_store_f64(dt, p + (size_t)(idx + k) * isz,
                                       lin_round(dt, base + lin_mul(&l, k)));
            }
        }
        for (; idx < steps; idx++)
            tl_dtype_store_f64(dt, p + (size_t)idx * isz, lin_scalar(&l, idx));
    }
    return tl_create_finish(t, host, true, err);
}

tl_tensor *tl_create_random(const tl_backend *be, tl_dtype dt, int ndim,
                            const int64_t *sizes, bool normal, tl_error *err)
{
    if (!tl_dtype_is_floating(dt)) {
        tl_error_set(err, TL_ERR_RUNTIME, "\"%s\" not implemented for '%s'",
                     normal ? "normal_kernel_cpu" : "check_uniform_bounds",
                     tl_dtype_scalar_name(dt));
        return NULL;
    }
    int64_t numel;
    if (ndim < 0 || ndim > TL_MAX_DIMS) {
        tl_error_set(err, TL_ERR_LIMIT, "too many dimensions");
        return NULL;
    }
    if (tl_tensor_check_shape(ndim, sizes, &numel, err) < 0)
        return NULL;
    void *host;
    tl_tensor *t = tl_create_begin(be, dt, ndim, sizes, false, &host, err);
    if (!t)
        return NULL;
    size_t isz = tl_dtype_size(dt);
    char *p = host;
    for (int64_t i = 0; i < numel; i++) {
        double v;
        if (tl_context_deadline_tick(i, err) < 0)
            return tl_create_finish(t, host, false, err);
        if (normal) {
            double u1 = rng_uniform(), u2 = rng_uniform();
            v = sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * M_PI * u2);
        } else if (dt == TL_FLOAT64) {
            v = rng_uniform();
        } else {
            v = (double)(rng_next() >> 40) * 0x1p-24; /* exact in float */
            if (dt != TL_FLOAT32) {
                /* keep [0, 1): a value rounding up to 1 in 16 bits is 0 */
                unsigned char b[2];
                tl_dtype_store_f64(dt, b, v);
                if (tl_dtype_load_f64(dt, b) >= 1.0)
                    v = 0.0;
            }
        }
        tl_dtype_store_f64(dt, p + (size_t)i * isz, v);
    }
    return tl_create_finish(t, host, true, err);
}

/* ------------------------------------------------------------------------
 * Cross-backend copy
 * ---------------------------------------------------------------------- */

tl_tensor *tl_create_copy_to(const tl_tensor *t, const tl_backend *be,
                             tl_dtype dt, tl_error *err)
{
    int64_t strides[TL_MAX_DIMS];
    tl_tensor_preserve_strides(t, strides);
    tl_tensor *out = tl_tensor_new_strided(be, dt, t->ndim, t->sizes, strides,
                                           err);
    if (!out)
        return NULL;
    if (tl_tensor_numel(t) == 0)
        return out;
    tl_strided src = tl_tensor_strided(t);
    tl_strided dst = tl_tensor_strided(out);
    if (tl_backend_copy_between(be, &dst, tl_tensor_backend(t), &src, err) < 0)
        goto fail;
    return out;
fail:
    tl_tensor_release(out);
    return NULL;
}

/* ------------------------------------------------------------------------
 * Queries
 * ---------------------------------------------------------------------- */

int tl_create_len(const tl_tensor *t, int64_t *out, tl_error *err)
{
    if (t->ndim == 0)
        return tl_error_set(err, TL_ERR_TYPE, "len() of a 0-d tensor");
    *out = t->sizes[0];
    return 0;
}
