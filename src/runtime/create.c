/* create.c - tensor factories, element queries and the runtime context.
 *
 * Design:
 *   - Factories build their values in a host buffer of the target dtype
 *     and upload it once through the backend (from_host), so the same code
 *     serves the CPU, the emulated device and a real GPU. Constant fills go
 *     through backend->fill instead.
 *   - torch.tensor(data) walks the nested data twice: once to find the
 *     shape (PyTorch's compute_sizes: follow the first element down) and
 *     the dtype (promote_types over every leaf: bool -> bool, int -> int64,
 *     float -> float32, a tensor/ndarray leaf -> its dtype), once to store
 *     every leaf, checking lengths on the way (ragged -> ValueError).
 *   - The runtime context (default backend, CUDA backend, RNG state) is
 *     per thread, like the allocation ledger: `tlab grade --jobs` runs
 *     interpreters in threads.
 *   - The generator is xoshiro256** seeded through splitmix64. rand uses
 *     the top 24 (float32) or 53 bits; randn is Box-Muller in double.
 */
#include "create.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "numpy.h"
#include "util.h"

/* ------------------------------------------------------------------------
 * Context
 * ---------------------------------------------------------------------- */

static _Thread_local const tl_backend *ctx_default;
static _Thread_local const tl_backend *ctx_cuda;
static _Thread_local uint64_t rng_s[4];
static _Thread_local bool rng_seeded;

void tl_create_set_context(const tl_backend *default_be,
                           const tl_backend *cuda_be)
{
    ctx_default = default_be;
    ctx_cuda = cuda_be;
}

const tl_backend *tl_create_default_backend(void)
{
    return ctx_default ? ctx_default : tl_backend_cpu();
}

const tl_backend *tl_create_cuda_backend(void)
{
    return ctx_cuda;
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
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        rng_s[i] = splitmix64(&x);
    rng_seeded = true;
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(void)
{
    if (!rng_seeded)
        tl_create_manual_seed(0);
    uint64_t *s = rng_s;
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

static const char *known_device_types =
    "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, ort, "
    "xla, lazy, vulkan, mps, meta, hpu, privateuseone";

int tl_create_parse_device(const tl_value *v, tl_device *out, tl_error *err)
{
    if (!v)
        return tl_error_set(err, TL_ERR_TYPE, "device must be a device, not nothing");
    if (v->kind == TL_V_DEVICE) {
        *out = v->u.device;
        return 0;
    }
    if (v->kind == TL_V_INT) {
        if (v->u.i < 0)
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "Device index must not be negative");
        out->kind = TL_DEV_CUDA;
        out->index = v->u.i > 1000000 ? 1000000 : (int)v->u.i;
        return 0;
    }
    if (v->kind != TL_V_STR)
        return tl_error_set(err, TL_ERR_TYPE,
                            "device must be torch.device, str or int, not %s",
                            tl_value_type_name(v));
    const char *s = v->u.str.s;
    size_t tlen = strcspn(s, ":");
    tl_devkind kind;
    if (tlen == 3 && strncmp(s, "cpu", 3) == 0) {
        kind = TL_DEV_CPU;
    } else if (tlen == 4 && strncmp(s, "cuda", 4) == 0) {
        kind = TL_DEV_CUDA;
    } else {
        /* a known PyTorch device type tlab does not model */
        const char *p = known_device_types;
        while (*p) {
            size_t n = strcspn(p, ",");
            if (n == tlen && strncmp(p, s, n) == 0)
                return tl_error_set(err, TL_ERR_UNSUPPORTED,
                                    "device type '%.*s' is not supported by "
                                    "tlab (only cpu and cuda)",
                                    (int)n, s);
            p += n;
            while (*p == ',' || *p == ' ')
                p++;
        }
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "Expected one of %s device type at start of "
                            "device string: %s",
                            known_device_types, s);
    }
    int index = kind == TL_DEV_CPU ? 0 : 0;
    if (s[tlen] == ':') {
        const char *d = s + tlen + 1;
        if (!*d || strspn(d, "0123456789") != strlen(d) || strlen(d) > 6 ||
            (d[0] == '0' && d[1]))
            return tl_error_set(err, TL_ERR_RUNTIME,
                                "Invalid device string: '%s'", s);
        index = atoi(d);
    }
    out->kind = kind;
    out->index = index;
    return 0;
}

int tl_create_backend_for(tl_device dev, const tl_backend **out, tl_error *err)
{
    if (dev.kind == TL_DEV_CPU) {
        *out = tl_backend_cpu();
        return 0;
    }
    if (!ctx_cuda)
        return tl_error_set(err, TL_ERR_ASSERTION,
                            "Torch not compiled with CUDA enabled");
    if (dev.index != 0)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "CUDA error: invalid device ordinal");
    *out = ctx_cuda;
    return 0;
}

int tl_create_opt_dtype(const tl_value *v, bool *has, tl_dtype *dt,
                        tl_error *err)
{
    if (!v || v->kind == TL_V_NONE) {
        *has = false;
        return 0;
    }
    if (v->kind != TL_V_DTYPE)
        return tl_error_set(err, TL_ERR_TYPE,
                            "dtype must be torch.dtype, not %s",
                            tl_value_type_name(v));
    *has = true;
    *dt = v->u.dtype;
    return 0;
}

int tl_create_opt_device(const tl_value *v, const tl_backend **be,
                         tl_error *err)
{
    if (!v || v->kind == TL_V_NONE)
        return 0;
    tl_device dev;
    if (tl_create_parse_device(v, &dev, err) < 0)
        return -1;
    return tl_create_backend_for(dev, be, err);
}

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
static bool scalar_overflows(tl_dtype dt, tl_scalar v)
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
    if (scalar_overflows(dt, v))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "value cannot be converted to type %s without "
                            "overflow",
                            c_type_name(dt));
    return 0;
}

/* ------------------------------------------------------------------------
 * Host buffers
 * ---------------------------------------------------------------------- */

static bool host_memory(const tl_backend *be)
{
    return be->device.kind == TL_DEV_CPU || be->emulated;
}

/* A fresh contiguous tensor on be whose bytes are `host` (contiguous, dt). */
static tl_tensor *upload(const tl_backend *be, tl_dtype dt, int ndim,
                         const int64_t *sizes, const void *host, tl_error *err)
{
    tl_tensor *t = tl_tensor_new(be, dt, ndim, sizes, err);
    if (!t)
        return NULL;
    size_t n = t->storage->nbytes;
    if (n && be->from_host(t->storage->data, host, n, err) < 0) {
        tl_tensor_release(t);
        return NULL;
    }
    return t;
}

/* A zeroed host buffer for numel elements of dt, or NULL with a LIMIT
 * error when it cannot be had. */
static void *host_buffer(int64_t numel, tl_dtype dt, tl_error *err)
{
    size_t isz = tl_dtype_size(dt);
    if (numel < 0 || (uint64_t)numel > SIZE_MAX / (isz ? isz : 1)) {
        tl_error_set(err, TL_ERR_LIMIT, "tensor too large");
        return NULL;
    }
    size_t n = (size_t)numel * isz;
    if (n > tl_alloc_limit()) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "[enforce fail at alloc_cpu.cpp:75] data. "
                     "DefaultCPUAllocator: not enough memory: you tried to "
                     "allocate %zu bytes. (tlab limit: %zu bytes of live "
                     "tensor storage; see --max-bytes)",
                     n, tl_alloc_limit());
        return NULL;
    }
    void *p = calloc(1, n ? n : 1);
    if (!p)
        tl_error_set(err, TL_ERR_RUNTIME,
                     "[enforce fail at alloc_cpu.cpp:75] data. "
                     "DefaultCPUAllocator: not enough memory: you tried to "
                     "allocate %zu bytes.",
                     n);
    return p;
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
        if (be->fill(&s, v, err) < 0) {
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
                     be->device.kind == TL_DEV_CUDA ? "cuda" : "cpu");
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
    void *host = host_buffer(n, dt, err);
    if (!host)
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
    int64_t sizes[1] = {n};
    tl_tensor *t = upload(be, dt, 1, sizes, host, err);
    free(host);
    return t;
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
    void *host = host_buffer(numel, dt, err);
    if (!host)
        return NULL;
    size_t isz = tl_dtype_size(dt);
    int64_t k = n < m ? n : m;
    for (int64_t i = 0; i < k; i++)
        tl_dtype_store_i64(dt, (char *)host + (size_t)(i * m + i) * isz, 1);
    tl_tensor *t = upload(be, dt, 2, sizes, host, err);
    free(host);
    return t;
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
    void *host = host_buffer(numel, dt, err);
    if (!host)
        return NULL;
    size_t isz = tl_dtype_size(dt);
    char *p = host;
    if (steps == 1) {
        tl_dtype_store_f64(dt, p, start);
    } else if (steps > 1) {
        int64_t halfway = steps / 2;
        if (dt == TL_FLOAT32 || dt == TL_FLOAT16 || dt == TL_BFLOAT16) {
            float s0 = (float)start, e0 = (float)end;
            float st = (e0 - s0) / (float)(steps - 1);
            for (int64_t i = 0; i < steps; i++) {
                float v = i < halfway ? s0 + st * (float)i
                                      : e0 - st * (float)(steps - i - 1);
                tl_dtype_store_f64(dt, p + (size_t)i * isz, v);
            }
        } else {
            double st = (end - start) / (double)(steps - 1);
            for (int64_t i = 0; i < steps; i++) {
                double v = i < halfway ? start + st * (double)i
                                       : end - st * (double)(steps - i - 1);
                tl_dtype_store_f64(dt, p + (size_t)i * isz, v);
            }
        }
    }
    tl_tensor *t = upload(be, dt, 1, sizes, host, err);
    free(host);
    return t;
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
    void *host = host_buffer(numel, dt, err);
    if (!host)
        return NULL;
    size_t isz = tl_dtype_size(dt);
    char *p = host;
    for (int64_t i = 0; i < numel; i++) {
        double v;
        if ((i & ((1 << 20) - 1)) == (1 << 20) - 1 && tl_deadline_passed()) {
            free(host);
            tl_error_set(err, TL_ERR_LIMIT, "time limit exceeded (%g s per op; see --timeout)",
                         tl_deadline_budget());
            return NULL;
        }
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
    tl_tensor *t = upload(be, dt, ndim, sizes, host, err);
    free(host);
    return t;
}

/* ------------------------------------------------------------------------
 * Cross-backend copy
 * ---------------------------------------------------------------------- */

tl_tensor *tl_create_copy_to(const tl_tensor *t, const tl_backend *be,
                             tl_dtype dt, tl_error *err)
{
    int64_t strides[TL_MAX_DIMS];
    tl_preserve_strides(t, strides);
    tl_tensor *out = tl_tensor_new_strided(be, dt, t->ndim, t->sizes, strides,
                                           err);
    if (!out)
        return NULL;
    if (tl_tensor_numel(t) == 0)
        return out;
    const tl_backend *sbe = tl_tensor_backend(t);
    tl_strided src = tl_tensor_strided(t);
    tl_strided dst = tl_tensor_strided(out);
    if (sbe == be || (host_memory(sbe) && host_memory(be))) {
        if (be->copy_strided(&dst, &src, err) < 0)
            goto fail;
        return out;
    }
    /* Different memory spaces: convert on the source's side into a
     * staging tensor with out's exact layout, then move the raw bytes. */
    tl_tensor *stage = tl_tensor_new_strided(sbe, dt, t->ndim, t->sizes,
                                             strides, err);
    if (!stage)
        goto fail;
    tl_strided sd = tl_tensor_strided(stage);
    size_t n = stage->storage->nbytes;
    TL_ASSERT(n == out->storage->nbytes);
    int rc = sbe->copy_strided(&sd, &src, err);
    if (rc == 0 && n) {
        if (host_memory(sbe)) {
            rc = be->from_host(out->storage->data, stage->storage->data, n, err);
        } else if (host_memory(be)) {
            rc = sbe->to_host(out->storage->data, stage->storage->data, n, err);
        } else {
            void *tmp = malloc(n);
            if (!tmp)
                rc = tl_error_set(err, TL_ERR_RUNTIME, "out of host memory");
            else {
                rc = sbe->to_host(tmp, stage->storage->data, n, err);
                if (rc == 0)
                    rc = be->from_host(out->storage->data, tmp, n, err);
                free(tmp);
            }
        }
    }
    tl_tensor_release(stage);
    if (rc < 0)
        goto fail;
    return out;
fail:
    tl_tensor_release(out);
    return NULL;
}

/* ------------------------------------------------------------------------
 * torch.tensor(data)
 * ---------------------------------------------------------------------- */

typedef struct data_walk {
    int ndim;
    int64_t sizes[TL_MAX_DIMS];
    bool have_dtype;
    tl_dtype dtype;
    tl_dtype target;
    bool checked; /* dtype given: integral targets range-check leaves */
    bool numpy;   /* np.array: float -> float64, numpy's ragged message */
    char *host;
    size_t isz;
    int64_t pos;
} data_walk;

static bool is_seq_node(const tl_value *v)
{
    return v->kind == TL_V_LIST || v->kind == TL_V_TUPLE ||
           v->kind == TL_V_SIZE || v->kind == TL_V_NDARRAY;
}

static void note_dtype(data_walk *w, tl_dtype dt)
{
    w->dtype = w->have_dtype ? tl_dtype_promote(w->dtype, dt) : dt;
    w->have_dtype = true;
}

static const char *py_type_name(const tl_value *v)
{
    return tl_value_type_name(v);
}

/* Pass 1a: shape, following the first element (compute_sizes). */
static int walk_shape(data_walk *w, const tl_value *v, tl_error *err)
{
    w->ndim = 0;
    while (is_seq_node(v)) {
        if (v->kind == TL_V_NDARRAY) {
            const tl_tensor *a = v->u.tensor;
            if (w->ndim + a->ndim > TL_MAX_DIMS)
                return tl_error_set(err, TL_ERR_LIMIT,
                                    "data nests deeper than %d dimensions",
                                    TL_MAX_DIMS);
            for (int d = 0; d < a->ndim; d++)
                w->sizes[w->ndim++] = a->sizes[d];
            return 0;
        }
        if (w->ndim >= TL_MAX_DIMS)
            return tl_error_set(err, TL_ERR_LIMIT,
                                "data nests deeper than %d dimensions",
                                TL_MAX_DIMS);
        w->sizes[w->ndim++] = (int64_t)v->u.seq.n;
        if (v->u.seq.n == 0)
            break;
        v = v->u.seq.items[0];
    }
    if (v->kind == TL_V_STR && w->ndim > 0)
        return tl_error_set(err, TL_ERR_VALUE, "too many dimensions 'str'");
    return 0;
}

/* dtype of one scalar leaf; -1 if it is not a scalar */
static int leaf_dtype(const tl_value *v, tl_dtype *out, tl_error *err)
{
    switch (v->kind) {
    case TL_V_BOOL: *out = TL_BOOL; return 0;
    case TL_V_INT: *out = TL_INT64; return 0;
    case TL_V_FLOAT: *out = tl_dtype_default(); return 0;
    case TL_V_TENSOR: *out = v->u.tensor->dtype; return 0;
    case TL_V_NONE:
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "Could not infer dtype of NoneType");
    case TL_V_STR:
        return tl_error_set(err, TL_ERR_VALUE, "too many dimensions 'str'");
    default:
        return tl_error_set(err, TL_ERR_RUNTIME, "Could not infer dtype of %s",
                            py_type_name(v));
    }
}

/* Pass 1b: dtype over all leaves (torch's infer_scalar_type). */
static int walk_dtype(data_walk *w, const tl_value *v, int depth, tl_error *err)
{
    if (v->kind == TL_V_NDARRAY) {
        note_dtype(w, v->u.tensor->dtype);
        return 0;
    }
    if (v->kind == TL_V_LIST || v->kind == TL_V_TUPLE || v->kind == TL_V_SIZE) {
        if (depth > TL_MAX_DIMS)
            return tl_error_set(err, TL_ERR_LIMIT,
                                "data nests deeper than %d dimensions",
                                TL_MAX_DIMS);
        if (v->u.seq.n == 0) {
            note_dtype(w, w->numpy ? TL_FLOAT64 : tl_dtype_default());
            return 0;
        }
        for (size_t i = 0; i < v->u.seq.n; i++)
            if (walk_dtype(w, v->u.seq.items[i], depth + 1, err) < 0)
                return -1;
        return 0;
    }
    tl_dtype dt;
    if (leaf_dtype(v, &dt, err) < 0)
        return -1;
    if (w->numpy && v->kind == TL_V_FLOAT)
        dt = TL_FLOAT64;
    note_dtype(w, dt);
    return 0;
}

/* numpy's wording for ragged data, detected after `dim` dimensions */
static int numpy_ragged(const data_walk *w, int dim, tl_error *err)
{
    tl_buf b = {0};
    tl_buf_putc(&b, '(');
    for (int d = 0; d < dim; d++)
        tl_buf_printf(&b, "%s%" PRId64, d ? ", " : "", w->sizes[d]);
    tl_buf_puts(&b, dim == 1 ? ",)" : ")");
    tl_error_set(err, TL_ERR_VALUE,
                 "setting an array element with a sequence. The requested "
                 "array has an inhomogeneous shape after %d dimensions. The "
                 "detected shape was %s + inhomogeneous part.",
                 dim, tl_buf_str(&b));
    tl_buf_free(&b);
    return -1;
}

static int store_leaf(data_walk *w, const tl_value *v, tl_error *err)
{
    char *p = w->host + (size_t)w->pos * w->isz;
    tl_scalar s = {0};
    switch (v->kind) {
    case TL_V_BOOL: s.i = v->u.b; break;
    case TL_V_INT: s.i = v->u.i; break;
    case TL_V_FLOAT: s.is_float = true; s.f = v->u.f; break;
    case TL_V_TENSOR: {
        const tl_tensor *t = v->u.tensor;
        if (tl_tensor_numel(t) != 1) {
            if (tl_dtype_is_floating(w->target))
                return tl_error_set(err, TL_ERR_VALUE,
                                    "only one element tensors can be "
                                    "converted to Python scalars");
            return tl_error_set(err, TL_ERR_TYPE,
                                "only integer tensors of a single element "
                                "can be converted to an index");
        }
        if (tl_dtype_is_floating(t->dtype)) {
            s.is_float = true;
            if (tl_tensor_get_f64(t, 0, &s.f, err) < 0)
                return -1;
        } else if (tl_tensor_get_i64(t, 0, &s.i, err) < 0) {
            return -1;
        }
        break;
    }
    case TL_V_LIST:
    case TL_V_TUPLE:
    case TL_V_SIZE:
        if (w->numpy)
            return numpy_ragged(w, w->ndim, err);
        if (tl_dtype_is_floating(w->target))
            return tl_error_set(err, TL_ERR_TYPE, "must be real number, not %s",
                                py_type_name(v));
        return tl_error_set(err, TL_ERR_TYPE,
                            "'%s' object cannot be interpreted as an integer",
                            py_type_name(v));
    default: {
        tl_dtype dummy;
        if (leaf_dtype(v, &dummy, err) < 0)
            return -1;
        return tl_error_set(err, TL_ERR_TYPE, "invalid data");
    }
    }
    if (w->checked && tl_dtype_is_integral(w->target) &&
        scalar_overflows(w->target, s))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "value cannot be converted to type %s without "
                            "overflow",
                            tl_dtype_name(w->target));
    if (s.is_float)
        tl_dtype_store_f64(w->target, p, s.f);
    else
        tl_dtype_store_i64(w->target, p, s.i);
    w->pos++;
    return 0;
}

static int store_ndarray(data_walk *w, const tl_tensor *a, int dim,
                         tl_error *err)
{
    for (int d = 0; d < a->ndim; d++)
        if (dim + d >= w->ndim || a->sizes[d] != w->sizes[dim + d])
            return w->numpy ? numpy_ragged(w, dim + d, err) :
                tl_error_set(err, TL_ERR_VALUE,
                                "expected sequence of length %" PRId64
                                " at dim %d (got %" PRId64 ")",
                                dim + d < w->ndim ? w->sizes[dim + d] : 0,
                                dim + d, a->sizes[d]);
    if (dim + a->ndim != w->ndim)
        return w->numpy ? numpy_ragged(w, dim + a->ndim, err)
                        : tl_error_set(err, TL_ERR_TYPE, "not a sequence");
    int64_t n = tl_tensor_numel(a);
    bool fl = tl_dtype_is_floating(a->dtype);
    for (int64_t i = 0; i < n; i++) {
        char *p = w->host + (size_t)w->pos * w->isz;
        if (fl) {
            double v;
            if (tl_tensor_get_f64(a, i, &v, err) < 0)
                return -1;
            tl_dtype_store_f64(w->target, p, v);
        } else {
            int64_t v;
            if (tl_tensor_get_i64(a, i, &v, err) < 0)
                return -1;
            tl_dtype_store_i64(w->target, p, v);
        }
        w->pos++;
    }
    return 0;
}

/* Pass 2: store, checking every sequence length against the shape. */
static int walk_store(data_walk *w, const tl_value *v, int dim, tl_error *err)
{
    if (dim == w->ndim) {
        if (v->kind == TL_V_NDARRAY)
            return store_ndarray(w, v->u.tensor, dim, err);
        return store_leaf(w, v, err);
    }
    if (v->kind == TL_V_NDARRAY)
        return store_ndarray(w, v->u.tensor, dim, err);
    if (!(v->kind == TL_V_LIST || v->kind == TL_V_TUPLE || v->kind == TL_V_SIZE))
        return w->numpy ? numpy_ragged(w, dim, err)
                        : tl_error_set(err, TL_ERR_TYPE, "not a sequence");
    if ((int64_t)v->u.seq.n != w->sizes[dim])
        return w->numpy ? numpy_ragged(w, dim, err) : tl_error_set(err, TL_ERR_VALUE,
                            "expected sequence of length %" PRId64
                            " at dim %d (got %zu)",
                            w->sizes[dim], dim, v->u.seq.n);
    for (size_t i = 0; i < v->u.seq.n; i++)
        if (walk_store(w, v->u.seq.items[i], dim + 1, err) < 0)
            return -1;
    return 0;
}

static tl_tensor *from_data_impl(const tl_value *data, bool dt_given,
                                 tl_dtype dt, const tl_backend *be, bool numpy,
                                 tl_error *err)
{
    if (data->kind == TL_V_TENSOR)
        return tl_create_copy_to(data->u.tensor, be,
                                 dt_given ? dt : data->u.tensor->dtype, err);
    if (data->kind == TL_V_NDARRAY && !numpy) {
        /* torch.tensor(ndarray): tensor_from_numpy (its negative-stride
         * ValueError included), then .to(copy=True): preserve_format
         * strides, so a transposed array stays column-major */
        tl_tensor *shared = tl_numpy_to_tensor(data->u.tensor, err);
        if (!shared)
            return NULL;
        tl_tensor *t = tl_create_copy_to(shared, be,
                                         dt_given ? dt : shared->dtype, err);
        tl_tensor_release(shared);
        return t;
    }
    if (data->kind == TL_V_STR) {
        tl_error_set(err, TL_ERR_TYPE, "new(): invalid data type 'str'");
        return NULL;
    }
    data_walk w;
    memset(&w, 0, sizeof w);
    w.numpy = numpy;
    if (walk_shape(&w, data, err) < 0)
        return NULL;
    if (dt_given) {
        w.target = dt;
        w.checked = true;
    } else {
        if (walk_dtype(&w, data, 0, err) < 0)
            return NULL;
        w.target = w.have_dtype ? w.dtype : (numpy ? TL_FLOAT64 : tl_dtype_default());
    }
    int64_t numel;
    if (tl_tensor_check_shape(w.ndim, w.sizes, &numel, err) < 0)
        return NULL;
    w.isz = tl_dtype_size(w.target);
    w.host = host_buffer(numel, w.target, err);
    if (!w.host)
        return NULL;
    tl_tensor *t = NULL;
    if (walk_store(&w, data, 0, err) == 0)
        t = upload(be, w.target, w.ndim, w.sizes, w.host, err);
    free(w.host);
    return t;
}

tl_tensor *tl_create_from_data(const tl_value *data, bool dt_given, tl_dtype dt,
                               const tl_backend *be, tl_error *err)
{
    return from_data_impl(data, dt_given, dt, be, false, err);
}

tl_tensor *tl_create_from_data_numpy(const tl_value *data, bool dt_given,
                                     tl_dtype dt, tl_error *err)
{
    return from_data_impl(data, dt_given, dt, tl_backend_cpu(), true, err);
}

/* ------------------------------------------------------------------------
 * Queries
 * ---------------------------------------------------------------------- */

static tl_value *element_value(const tl_tensor *t, int64_t i, tl_error *err)
{
    if (tl_dtype_is_floating(t->dtype)) {
        double v;
        if (tl_tensor_get_f64(t, i, &v, err) < 0)
            return NULL;
        return tl_float(v);
    }
    int64_t v;
    if (tl_tensor_get_i64(t, i, &v, err) < 0)
        return NULL;
    return t->dtype == TL_BOOL ? tl_bool(v != 0) : tl_int(v);
}

tl_value *tl_create_item(const tl_tensor *t, tl_error *err)
{
    int64_t n = tl_tensor_numel(t);
    if (n != 1) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "a Tensor with %" PRId64
                     " elements cannot be converted to Scalar",
                     n);
        return NULL;
    }
    return element_value(t, 0, err);
}

#define TL_TOLIST_MAX ((int64_t)10000000)

/* Build the nested list for dims [dim, ndim) starting at flat index *pos.
 * Elements are read through a host copy when the tensor is on a device. */
static tl_value *tolist_rec(const tl_tensor *t, int dim, int64_t *pos,
                            tl_error *err)
{
    if (dim == t->ndim)
        return element_value(t, (*pos)++, err);
    tl_value *list = tl_list_new(0);
    for (int64_t i = 0; i < t->sizes[dim]; i++) {
        tl_value *item = tolist_rec(t, dim + 1, pos, err);
        if (!item) {
            tl_value_release(list);
            return NULL;
        }
        tl_list_append(list, item);
    }
    return list;
}

tl_value *tl_create_tolist(const tl_tensor *t, tl_error *err)
{
    int64_t n = tl_tensor_numel(t);
    if (n > TL_TOLIST_MAX) {
        tl_error_set(err, TL_ERR_LIMIT,
                     "tolist() of %" PRId64 " elements exceeds tlab's limit "
                     "of %" PRId64,
                     n, TL_TOLIST_MAX);
        return NULL;
    }
    /* the nested lists count too: a (2**62, 0) tensor has no elements but
     * 2**62 empty lists */
    int64_t values = 0, level = 1;
    for (int d = 0; d <= t->ndim && level > 0 && values <= TL_TOLIST_MAX; d++) {
        values += level;
        if (d < t->ndim && tl_mul_overflow(level, t->sizes[d], &level))
            level = INT64_MAX - TL_TOLIST_MAX;
    }
    if (values > TL_TOLIST_MAX) {
        tl_error_set(err, TL_ERR_LIMIT,
                     "tolist() would build more than tlab's limit of %" PRId64
                     " lists and elements", TL_TOLIST_MAX);
        return NULL;
    }
    /* read device tensors through one host copy */
    const tl_backend *be = tl_tensor_backend(t);
    if (!host_memory(be) && n > 0) {
        tl_tensor *h = tl_create_copy_to(t, tl_backend_cpu(), t->dtype, err);
        if (!h)
            return NULL;
        int64_t pos = 0;
        tl_value *r = tolist_rec(h, 0, &pos, err);
        tl_tensor_release(h);
        return r;
    }
    int64_t pos = 0;
    return tolist_rec(t, 0, &pos, err);
}

int tl_create_len(const tl_tensor *t, int64_t *out, tl_error *err)
{
    if (t->ndim == 0)
        return tl_error_set(err, TL_ERR_TYPE, "len() of a 0-d tensor");
    *out = t->sizes[0];
    return 0;
}

/* ------------------------------------------------------------------------
 * Storage values
 * ---------------------------------------------------------------------- */

static tl_storage *self_storage(tl_value *self, const char *name, tl_error *err)
{
    if (self && self->kind == TL_V_STORAGE)
        return self->u.storage;
    tl_error_set(err, TL_ERR_TYPE, "%s() needs a storage", name);
    return NULL;
}

static int no_args(const tl_args *a, const char *name, tl_error *err)
{
    if (a && (a->npos || a->nkw))
        return tl_error_set(err, TL_ERR_TYPE,
                            "%s() takes no arguments (%zu given)", name,
                            a->npos + a->nkw);
    return 0;
}

static tl_value *storage_data_ptr(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_storage *s = self_storage(self, "data_ptr", err);
    if (!s || no_args(a, "data_ptr", err) < 0)
        return NULL;
    return tl_int(s->nbytes ? (int64_t)(uintptr_t)s->data : 0);
}

static tl_value *storage_nbytes(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_storage *s = self_storage(self, "nbytes", err);
    if (!s || no_args(a, "nbytes", err) < 0)
        return NULL;
    return tl_int((int64_t)s->nbytes);
}

static tl_value *storage_size(tl_value *self, const tl_args *a, tl_error *err)
{
    tl_storage *s = self_storage(self, "size", err);
    if (!s || no_args(a, "size", err) < 0)
        return NULL;
    return tl_int((int64_t)s->nbytes); /* UntypedStorage.size() is bytes */
}

static tl_value *storage_element_size(tl_value *self, const tl_args *a,
                                      tl_error *err)
{
    tl_storage *s = self_storage(self, "element_size", err);
    if (!s || no_args(a, "element_size", err) < 0)
        return NULL;
    return tl_int(1);
}

tl_value *tl_create_storage_attr(tl_value *storage, const char *name,
                                 tl_error *err)
{
    if (!storage || storage->kind != TL_V_STORAGE) {
        tl_error_set(err, TL_ERR_TYPE, "not a storage");
        return NULL;
    }
    if (strcmp(name, "data_ptr") == 0)
        return tl_func_value("data_ptr", storage_data_ptr, storage);
    if (strcmp(name, "nbytes") == 0)
        return tl_func_value("nbytes", storage_nbytes, storage);
    if (strcmp(name, "size") == 0)
        return tl_func_value("size", storage_size, storage);
    if (strcmp(name, "element_size") == 0)
        return tl_func_value("element_size", storage_element_size, storage);
    if (strcmp(name, "device") == 0)
        return tl_device_value(storage->u.storage->device);
    if (strcmp(name, "is_cuda") == 0)
        return tl_bool(storage->u.storage->device.kind == TL_DEV_CUDA);
    tl_error_set(err, TL_ERR_ATTRIBUTE,
                 "'torch.storage.UntypedStorage' object has no attribute '%s'",
                 name);
    return NULL;
}
