/* dtype.h - element types, conversions and PyTorch type promotion.
 *
 * Values cross dtypes through two carriers: double (floating types, and any
 * value that needs float semantics) and int64 (exact integers). float16 and
 * bfloat16 are stored as uint16 bit patterns and rounded to nearest-even.
 */
#ifndef TL_DTYPE_H
#define TL_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Order matters: it is PyTorch's promotion lattice order within a category. */
typedef enum tl_dtype {
    TL_BOOL = 0,
    TL_UINT8,
    TL_INT8,
    TL_INT16,
    TL_INT32,
    TL_INT64,
    TL_FLOAT16,
    TL_BFLOAT16,
    TL_FLOAT32,
    TL_FLOAT64,
    TL_NDTYPES
} tl_dtype;

size_t tl_dtype_size(tl_dtype dt);
/* "float32", "int64", "bool", ... (torch.float32 prints as torch.float32) */
const char *tl_dtype_name(tl_dtype dt);
/* The C++ type name c10's TypeMeta prints for dt ("float", "c10::Half",
 * "long int"), as in "expected scalar type ... but found ...". */
const char *tl_dtype_typemeta_name(tl_dtype dt);
/* PyTorch's ScalarType name used in messages: "Float", "Long", "Half",
 * "BFloat16", "Bool", "Byte", "Char", "Short", "Int", "Double". */
const char *tl_dtype_scalar_name(tl_dtype dt);
/* Legacy tensor type name: "torch.FloatTensor", "torch.LongTensor", ... */
const char *tl_dtype_tensor_type(tl_dtype dt);
/* Parse "float32"/"float"/"double"/"half"/"long"/"int"/"short"/"uint8"/...
 * (the attribute names of the torch module). Returns false if unknown. */
bool tl_dtype_from_name(const char *name, tl_dtype *out);

/* torch.get_default_dtype() of this thread (float32 unless
 * torch.set_default_dtype changed it): what factories and torch.tensor give
 * Python floats, and what tensor printing leaves out. */
tl_dtype tl_dtype_default(void);
void tl_dtype_set_default(tl_dtype dt);

bool tl_dtype_is_floating(tl_dtype dt);
bool tl_dtype_is_integral(tl_dtype dt); /* excludes bool */

/* torch.promote_types for two tensors of equal "dimension category". */
tl_dtype tl_dtype_promote(tl_dtype a, tl_dtype b);
/* Can `from` be cast to `to` under in-place result rules (canCast):
 * float -> integral and non-bool -> bool are refused. */
bool tl_dtype_can_cast(tl_dtype from, tl_dtype to);

/* Scalar load/store at p (host memory). Stores convert with PyTorch's
 * semantics: float -> int truncates toward zero, -> bool is (v != 0),
 * float16/bfloat16 round to nearest-even. */
double tl_dtype_load_f64(tl_dtype dt, const void *p);
int64_t tl_dtype_load_i64(tl_dtype dt, const void *p);
void tl_dtype_store_f64(tl_dtype dt, void *p, double v);
void tl_dtype_store_i64(tl_dtype dt, void *p, int64_t v);

uint16_t tl_f32_to_f16(float f);
float tl_f16_to_f32(uint16_t h);
uint16_t tl_f32_to_bf16(float f);
float tl_bf16_to_f32(uint16_t h);

#ifdef __cplusplus
}
#endif

#endif
