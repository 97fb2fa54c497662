/* backend_impl.h - what a backend implements (backend internal header:
 * include it only from a backend's own files, backend_cpu.c and cuda/;
 * the rest of tlab uses backend.h).
 *
 * A backend is a tl_backend struct {name, device, caps, ops, ctx}: the ops
 * table is shared by all instances of a kind, ctx is the instance's own
 * data (device ordinal, stream, memory pool, sticky error...). Every entry
 * takes the backend first. The contract of each entry is the one of its
 * tl_backend_* wrapper in backend.h (strides in elements, PyTorch dim
 * order, descriptors and index arrays in host memory, data in device
 * memory, 0 or -1 with err set); the wrappers validate nothing more than a
 * NULL handle, count the call (context.h counters) and run the host
 * fallback of an optional entry the backend left NULL.
 *
 * Entries marked (optional) may be NULL:
 *   copy_d2d      falls back to copy_strided over bytes (uint8, 1-d)
 *   sync          falls back to "nothing queued" (returns 0)
 *   host_alloc/host_free  fall back to calloc/free (not pinned)
 *   gather, scatter, sort, scan  fall back to host staging: the operands are
 *                 made dense on the device (copy_strided), moved to the
 *                 host, run on the CPU backend's kernel, and moved back.
 *                 Correct but slow; a GPU backend should implement them.
 * All others are required.
 */
#ifndef TL_BACKEND_IMPL_H
#define TL_BACKEND_IMPL_H

#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_backend_ops {
    /* zeroed device memory; *out = NULL for nbytes == 0; -1 and err set
     * (PyTorch's out-of-memory wording) when it cannot be had */
    int (*alloc)(const tl_backend *be, size_t nbytes, void **out, tl_error *err);
    void (*free)(const tl_backend *be, void *p);
    int (*to_host)(const tl_backend *be, void *host_dst, const void *dev_src,
                   size_t n, tl_error *err);
    int (*from_host)(const tl_backend *be, void *dev_dst, const void *host_src,
                     size_t n, tl_error *err);
    int (*copy_d2d)(const tl_backend *be, void *dev_dst, const void *dev_src,
                    size_t n, tl_error *err); /* (optional) no overlap */
    int (*sync)(const tl_backend *be, tl_error *err); /* (optional) */
    int (*host_alloc)(const tl_backend *be, size_t nbytes, void **out,
                      tl_error *err);                    /* (optional) */
    void (*host_free)(const tl_backend *be, void *p);   /* (optional) */

    int (*copy_strided)(const tl_backend *be, const tl_strided *dst,
                        const tl_strided *src, tl_error *err);
    int (*fill)(const tl_backend *be, const tl_strided *dst, tl_scalar v,
                tl_error *err);
    int (*binary)(const tl_backend *be, tl_binop op, tl_dtype compute,
                  const tl_strided *dst, const tl_strided *a,
                  const tl_strided *b, tl_error *err);
    int (*unary)(const tl_backend *be, tl_unop op, tl_dtype compute,
                 const tl_strided *dst, const tl_strided *src, tl_error *err);
    int (*where)(const tl_backend *be, const tl_strided *dst,
                 const tl_strided *cond, const tl_strided *a,
                 const tl_strided *b, tl_error *err);
    int (*gather)(const tl_backend *be, const tl_strided *dst,
                  const tl_strided *src, int dim, const int64_t *index,
                  int64_t n_index, tl_error *err);      /* (optional) */
    int (*scatter)(const tl_backend *be, tl_scatter_mode mode,
                   const tl_strided *dst, const tl_strided *src, int dim,
                   const int64_t *index, int64_t n_index,
                   tl_error *err);                      /* (optional) */
    int (*reduce)(const tl_backend *be, tl_redop op, tl_dtype compute,
                  const tl_strided *dst, const tl_strided *src,
                  uint64_t reduce_mask, tl_error *err);
    int (*sort)(const tl_backend *be, const tl_strided *vals,
                const tl_strided *idx, const tl_strided *src, int dim,
                bool descending, int64_t k, tl_error *err); /* (optional) */
    /* (optional) like alloc, contents undefined: for results a kernel
     * writes whole (tl_tensor_new_for_write); falls back to alloc */
    int (*alloc_uninit)(const tl_backend *be, size_t nbytes, void **out,
                        tl_error *err);
    /* (optional) c = a @ b for 2-d float32/float64 operands of one dtype;
     * returns 1 when done, 0 when the case is not served (the caller then
     * computes it another way), -1 with err on failure */
    int (*gemm)(const tl_backend *be, const tl_strided *c, const tl_strided *a,
                const tl_strided *b, tl_error *err);
    /* (optional, all three or none; TL_BACKEND_CAP_DEVICE_INDEX says
     * which) advanced indexing through device-resident offsets; no host
     * fallback: callers test the capability */
    int (*index_offsets)(const tl_backend *be, int64_t *out, int nidx,
                         const tl_adv_index *ix, int64_t *bad_pos, int *bad_j,
                         int64_t *bad_value, tl_error *err);
    int (*index_gather)(const tl_backend *be, const tl_strided *dst,
                        const tl_strided *src, int dim, const int64_t *offs,
                        int64_t n, tl_error *err);
    int (*index_scatter)(const tl_backend *be, tl_scatter_mode mode,
                         const tl_strided *dst, const tl_strided *src, int dim,
                         const int64_t *offs, int64_t n, tl_error *err);
    /* (optional) cumsum/cumprod along a dim; host fallback */
    int (*scan)(const tl_backend *be, bool prod, const tl_strided *dst,
                const tl_strided *src, int dim, tl_error *err); /* (optional) */
} tl_backend_ops;

struct tl_backend {
    const char *name;          /* "cpu", "cuda", "cuda-emulated" */
    tl_device device;
    unsigned caps;             /* TL_BACKEND_CAP_* */
    const tl_backend_ops *ops;
    void *ctx;                 /* the instance's own data (backend-defined) */
};

/* The device name used in PyTorch's kernel names and messages: "cpu" or
 * "cuda" ("\"lshift_cuda\" not implemented for 'Float'"). */
const char *tl_backend_kernel_suffix(const tl_backend *be);

#ifdef __cplusplus
}
#endif

#endif
