/* create.h - tensor factories (full, arange, eye, linspace, rand/randn,
 * host buffers uploaded once), the cross-backend copy and len().
 * (Python data -> tensor and tensor -> Python values: py/convert.h.)
 *
 * Ownership: every function returning tl_tensor * returns a
 * NEW reference (NULL with err filled on failure); inputs are borrowed.
 *
 * Context: the thread's context (context.h, set by the interpreter when a
 * run starts) names the backends: factories without device= place tensors
 * on the default backend; device='cuda' resolves through tl_backend_for
 * (the real CUDA backend or the emulated one, or AssertionError "Torch not
 * compiled with CUDA enabled" when there is none). The random generator
 * (also the context's) is reset by
 * tl_create_manual_seed() (torch.manual_seed) and is deterministic: the same
 * seed gives the same numbers (they are not torch's numbers).
 */
#ifndef TL_CREATE_H
#define TL_CREATE_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "err.h"
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the context's default backend and generator ---- */
const tl_backend *tl_create_default_backend(void); /* CPU if never set */
void tl_create_manual_seed(uint64_t seed);

/* PyTorch's Scalar range check before a fill (full, full_like, fill_):
 * RuntimeError "value cannot be converted to type int8_t without overflow"
 * (C type names as c10 prints them). Floating targets accept inf/NaN. */
int tl_create_check_scalar(tl_dtype dt, tl_scalar v, tl_error *err);

/* c10's overflow test behind tl_create_check_scalar (integral targets). */
bool tl_create_scalar_overflows(tl_dtype dt, tl_scalar v);

/* Mark a fresh tensor as requiring grad: RuntimeError "Only Tensors of
 * floating point and complex dtype can require gradients" otherwise. */
int tl_create_set_requires_grad(tl_tensor *t, bool rg, tl_error *err);

/* ---- C-level factories ---- */
tl_tensor *tl_create_full(const tl_backend *be, tl_dtype dt, int ndim,
                          const int64_t *sizes, tl_scalar v, tl_error *err);
/* torch.arange semantics (size rule, errors) for explicit dtype dt. */
tl_tensor *tl_create_arange(const tl_backend *be, tl_dtype dt, double start,
                            double end, double step, tl_error *err);
tl_tensor *tl_create_eye(const tl_backend *be, tl_dtype dt, int64_t n,
                         int64_t m, tl_error *err);
tl_tensor *tl_create_linspace(const tl_backend *be, tl_dtype dt, double start,
                              double end, int64_t steps, tl_error *err);
/* rand (uniform [0,1)) or randn (normal) from the context generator. */
tl_tensor *tl_create_random(const tl_backend *be, tl_dtype dt, int ndim,
                            const int64_t *sizes, bool normal, tl_error *err);
/* A zeroed host buffer for numel elements of dt, charged to the ledger
 * as scratch (storage.h) until tl_create_host_buffer_free(p, numel, dt),
 * or NULL with a LIMIT/RuntimeError when it cannot be had (the
 * --max-bytes text). */
void *tl_create_host_buffer(int64_t numel, tl_dtype dt, tl_error *err);
void tl_create_host_buffer_free(void *p, int64_t numel, tl_dtype dt);
/* A factory's result built in place: a fresh contiguous tensor on be
 * (zeroed when `zero`, else every byte is the caller's to write) and in
 * *host where to write its elements, contiguous: the tensor's own bytes
 * when be's memory is host memory, else a charged host buffer that
 * tl_create_finish uploads in one transfer and frees. So a factory never
 * holds an uncharged temporary as large as its result. */
tl_tensor *tl_create_begin(const tl_backend *be, tl_dtype dt, int ndim,
                           const int64_t *sizes, bool zero, void **host,
                           tl_error *err);
/* t with host's bytes (NULL with err set, t released); `ok` false: the
 * caller failed while filling (err set), t and the buffer are dropped. */
tl_tensor *tl_create_finish(tl_tensor *t, void *host, bool ok, tl_error *err);
/* A fresh contiguous tensor on be whose bytes are `host` (contiguous, dt),
 * uploaded in one transfer. */
tl_tensor *tl_create_upload(const tl_backend *be, tl_dtype dt, int ndim,
                            const int64_t *sizes, const void *host,
                            tl_error *err);
/* A copy of t on be with dtype dt and preserve_format strides, offset 0
 * (works across host and device backends). */
tl_tensor *tl_create_copy_to(const tl_tensor *t, const tl_backend *be,
                             tl_dtype dt, tl_error *err);

/* ---- queries ---- */
/* len(t): size(0); TypeError "len() of a 0-d tensor". */
int tl_create_len(const tl_tensor *t, int64_t *out, tl_error *err);

#ifdef __cplusplus
}
#endif

#endif
