/* dtype.c - element types: names, sizes, promotion, scalar loads/stores and
 * the float16 / bfloat16 conversions.
 *
 * Design:
 *   - One table (dtype_info) holds every per-dtype fact; lookups are array
 *     indexing, never string compares on hot paths.
 *   - Promotion follows torch.promote_types (measured on 1.13.1): bool is
 *     the bottom, integral types promote by width except that uint8 mixed
 *     with a signed type goes to the next signed width that holds both
 *     (uint8+int8 -> int16), integral+floating -> the floating type, and
 *     float16+bfloat16 -> float32.
 *   - float -> integer stores never invoke C's undefined conversion. They
 *     reproduce what PyTorch computes on x86-64: int64 targets truncate when
 *     the value fits and give INT64_MIN otherwise (NaN, inf, out of range);
 *     narrower targets go through int32 the same way (INT32_MIN when out of
 *     range) and then wrap modulo 2^bits. So 300.7 -> uint8 is 44 and
 *     1e10 -> int16 is 0, as in torch 1.13.
 *   - double -> float16/bfloat16 rounds through float first (as c10::Half's
 *     float constructor does), then to nearest-even in 16 bits.
 */
#include "dtype.h"
#include "scalar_defs.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------------
 * Static facts
 * ---------------------------------------------------------------------- */

typedef struct dtype_info {
    const char *name;        /* torch.<name> */
    const char *scalar_name; /* c10 ScalarType name */
    const char *tensor_type; /* legacy type string */
    size_t size;
} dtype_info;

static const dtype_info infos[TL_NDTYPES] = {
    [TL_BOOL] = {"bool", "Bool", "torch.BoolTensor", 1},
    [TL_UINT8] = {"uint8", "Byte", "torch.ByteTensor", 1},
    [TL_INT8] = {"int8", "Char", "torch.CharTensor", 1},
    [TL_INT16] = {"int16", "Short", "torch.ShortTensor", 2},
    [TL_INT32] = {"int32", "Int", "torch.IntTensor", 4},
    [TL_INT64] = {"int64", "Long", "torch.LongTensor", 8},
    [TL_FLOAT16] = {"float16", "Half", "torch.HalfTensor", 2},
    [TL_BFLOAT16] = {"bfloat16", "BFloat16", "torch.BFloat16Tensor", 2},
    [TL_FLOAT32] = {"float32", "Float", "torch.FloatTensor", 4},
    [TL_FLOAT64] = {"float64", "Double", "torch.DoubleTensor", 8},
};

static bool valid(tl_dtype dt)
{
    return (unsigned)dt < (unsigned)TL_NDTYPES;
}

size_t tl_dtype_size(tl_dtype dt)
{
    return valid(dt) ? infos[dt].size : 0;
}

const char *tl_dtype_name(tl_dtype dt)
{
    return valid(dt) ? infos[dt].name : "?";
}

const char *tl_dtype_typemeta_name(tl_dtype dt)
{
    switch (dt) {
    case TL_BOOL: return "bool";
    case TL_UINT8: return "unsigned char";
    case TL_INT8: return "signed char";
    case TL_INT16: return "short int";
    case TL_INT32: return "int";
    case TL_INT64: return "long int";
    case TL_FLOAT16: return "c10::Half";
    case TL_BFLOAT16: return "c10::BFloat16";
    case TL_FLOAT32: return "float";
    case TL_FLOAT64: return "double";
    default: return "unknown";
    }
}

const char *tl_dtype_scalar_name(tl_dtype dt)
{
    return valid(dt) ? infos[dt].scalar_name : "?";
}

const char *tl_dtype_tensor_type(tl_dtype dt)
{
    return valid(dt) ? infos[dt].tensor_type : "?";
}

bool tl_dtype_from_name(const char *name, tl_dtype *out)
{
    static const struct {
        const char *name;
        tl_dtype dt;
    } aliases[] = {
        {"bool", TL_BOOL},       {"uint8", TL_UINT8},
        {"int8", TL_INT8},       {"int16", TL_INT16},
        {"short", TL_INT16},     {"int32", TL_INT32},
        {"int", TL_INT32},       {"int64", TL_INT64},
        {"long", TL_INT64},      {"float16", TL_FLOAT16},
        {"half", TL_FLOAT16},    {"bfloat16", TL_BFLOAT16},
        {"float32", TL_FLOAT32}, {"float", TL_FLOAT32},
        {"float64", TL_FLOAT64}, {"double", TL_FLOAT64},
    };
    if (!name)
        return false;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        if (strcmp(name, aliases[i].name) == 0) {
            *out = aliases[i].dt;
            return true;
        }
    }
    return false;
}

bool tl_dtype_is_floating(tl_dtype dt)
{
    return dt == TL_FLOAT16 || dt == TL_BFLOAT16 || dt == TL_FLOAT32 ||
           dt == TL_FLOAT64;
}

bool tl_dtype_is_integral(tl_dtype dt)
{
    return dt >= TL_UINT8 && dt <= TL_INT64;
}

/* ------------------------------------------------------------------------
 * Promotion and casting
 * ---------------------------------------------------------------------- */

tl_dtype tl_dtype_promote(tl_dtype a, tl_dtype b)
{
    if (a == b)
        return a;
    if (a == TL_BOOL)
        return b;
    if (b == TL_BOOL)
        return a;
    bool fa = tl_dtype_is_floating(a), fb = tl_dtype_is_floating(b);
    if (fa && fb) {
        if ((a == TL_FLOAT16 && b == TL_BFLOAT16) ||
            (a == TL_BFLOAT16 && b == TL_FLOAT16))
            return TL_FLOAT32;
        return a > b ? a : b;
    }
    if (fa)
        return a;
    if (fb)
        return b;
    /* both integral, different */
    if (a == TL_UINT8 || b == TL_UINT8) {
        tl_dtype other = a == TL_UINT8 ? b : a;
        return other == TL_INT8 ? TL_INT16 : other;
    }
    return a > b ? a : b;
}

bool tl_dtype_can_cast(tl_dtype from, tl_dtype to)
{
    if (tl_dtype_is_floating(from) && tl_dtype_is_integral(to))
        return false;
    if (from != TL_BOOL && to == TL_BOOL)
        return false;
    return true;
}

/* ------------------------------------------------------------------------
 * float16 / bfloat16: the shared definitions of scalar_defs.h (the CUDA
 * kernels include the same lines)
 * ---------------------------------------------------------------------- */


uint16_t tl_f32_to_f16(float f)
{
    return tl_sd_f32_to_f16(f);
}

float tl_f16_to_f32(uint16_t h)
{
    return tl_sd_f16_to_f32(h);
}

uint16_t tl_f32_to_bf16(float f)
{
    return tl_sd_f32_to_bf16(f);
}

float tl_bf16_to_f32(uint16_t h)
{
    return tl_sd_bf16_to_f32(h);
}

/* Float -> integer conversions are scalar_defs.h's tl_sd_f64_to_i64/i32
 * (well defined for every double; the CUDA kernels use the same lines). */

/* ------------------------------------------------------------------------
 * Loads and stores
 * ---------------------------------------------------------------------- */

double tl_dtype_load_f64(tl_dtype dt, const void *p)
{
    switch (dt) {
    case TL_BOOL: return *(const uint8_t *)p ? 1.0 : 0.0;
    case TL_UINT8: return *(const uint8_t *)p;
    case TL_INT8: return *(const int8_t *)p;
    case TL_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
    case TL_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    case TL_INT64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    case TL_FLOAT16: { uint16_t v; memcpy(&v, p, 2); return tl_f16_to_f32(v); }
    case TL_BFLOAT16: { uint16_t v; memcpy(&v, p, 2); return tl_bf16_to_f32(v); }
    case TL_FLOAT32: { float v; memcpy(&v, p, 4); return v; }
    case TL_FLOAT64: { double v; memcpy(&v, p, 8); return v; }
    default: return 0.0;
    }
}

int64_t tl_dtype_load_i64(tl_dtype dt, const void *p)
{
    switch (dt) {
    case TL_BOOL: return *(const uint8_t *)p ? 1 : 0;
    case TL_UINT8: return *(const uint8_t *)p;
    case TL_INT8: return *(const int8_t *)p;
    case TL_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
    case TL_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    case TL_INT64: { int64_t v; memcpy(&v, p, 8); return v; }
    case TL_FLOAT16:
    case TL_BFLOAT16:
    case TL_FLOAT32:
    case TL_FLOAT64: return tl_sd_f64_to_i64(tl_dtype_load_f64(dt, p));
    default: return 0;
    }
}

void tl_dtype_store_i64(tl_dtype dt, void *p, int64_t v)
{
    uint64_t u = (uint64_t)v;
    switch (dt) {
    case TL_BOOL: *(uint8_t *)p = v != 0; break;
    case TL_UINT8: *(uint8_t *)p = (uint8_t)u; break;
    case TL_INT8: *(int8_t *)p = (int8_t)(uint8_t)u; break;
    case TL_INT16: { int16_t w = (int16_t)(uint16_t)u; memcpy(p, &w, 2); break; }
    case TL_INT32: { int32_t w = (int32_t)(uint32_t)u; memcpy(p, &w, 4); break; }
    case TL_INT64: memcpy(p, &v, 8); break;
    case TL_FLOAT16: { uint16_t w = tl_f32_to_f16((float)v); memcpy(p, &w, 2); break; }
    case TL_BFLOAT16: { uint16_t w = tl_f32_to_bf16((float)v); memcpy(p, &w, 2); break; }
    case TL_FLOAT32: { float w = (float)v; memcpy(p, &w, 4); break; }
    case TL_FLOAT64: { double w = (double)v; memcpy(p, &w, 8); break; }
    default: break;
    }
}

void tl_dtype_store_f64(tl_dtype dt, void *p, double v)
{
    switch (dt) {
    case TL_BOOL: *(uint8_t *)p = v != 0.0; break; /* NaN -> true */
    case TL_UINT8:
    case TL_INT8:
    case TL_INT16:
    case TL_INT32: tl_dtype_store_i64(dt, p, tl_sd_f64_to_i32(v)); break;
    case TL_INT64: tl_dtype_store_i64(dt, p, tl_sd_f64_to_i64(v)); break;
    case TL_FLOAT16: { uint16_t w = tl_f32_to_f16((float)v); memcpy(p, &w, 2); break; }
    case TL_BFLOAT16: { uint16_t w = tl_f32_to_bf16((float)v); memcpy(p, &w, 2); break; }
    case TL_FLOAT32: { float w = (float)v; memcpy(p, &w, 4); break; }
    case TL_FLOAT64: memcpy(p, &v, 8); break;
    default: break;
    }
}

static _Thread_local int g_default_dtype = -1;

tl_dtype tl_dtype_default(void)
{
    return g_default_dtype < 0 ? TL_FLOAT32 : (tl_dtype)g_default_dtype;
}

void tl_dtype_set_default(tl_dtype dt)
{
    g_default_dtype = (int)dt;
}
