/* tensor.h - the strided tensor header.
 *
 * Layout convention (PyTorch's, not ggml's): sizes[0] is the OUTERMOST dim,
 * strides are counted in ELEMENTS (not bytes), and the address of element
 * (i0, ..., ik) is storage->data + (offset + sum(i_d * strides[d])) * itemsize.
 *
 * Ownership: a tensor is a refcounted object. Constructors return a new
 * reference (refcount 1) that the caller releases with tl_tensor_release.
 * Functions taking `const tl_tensor *` borrow it. A tensor holds one
 * reference on its storage and one on its version counter; a view holds the
 * same storage object as its base (never a raw borrowed pointer), so views
 * outlive their base safely.
 *
 * Object identity is pointer identity: `y = x` binds the same tl_tensor, and
 * the `alias` verdict / Python `is` compare tl_tensor pointers.
 */
#ifndef TL_TENSOR_H
#define TL_TENSOR_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "dtype.h"
#include "err.h"
#include "shape.h"
#include "storage.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_tensor {
    int refcount;
    int ndim;
    int64_t sizes[TL_MAX_DIMS];
    int64_t strides[TL_MAX_DIMS]; /* elements, PyTorch order */
    int64_t offset;               /* storage_offset, in elements */
    tl_dtype dtype;
    tl_storage *storage;          /* retained */
    tl_version *version;          /* retained; shared by views (_version) */
    bool requires_grad;
    bool is_leaf;                 /* false for results of ops on grad tensors */
    bool is_view_of_grad_leaf;    /* a view of a leaf that requires grad */
    struct tl_ag_meta *ag;        /* autograd's record (src/autograd); NULL
                                     until autograd attaches one. Released
                                     through the hook below. */
    char *names;                  /* named tensors (py/named.c): ndim
                                     NUL-terminated names back to back, ""
                                     for an unnamed dim; NULL: no names.
                                     Owned (malloc), freed with the header. */
} tl_tensor;

/* ---- the autograd layer's two hooks into the runtime ----
 * tl_tensor_set_ag_free: called with a dying tensor whose `ag` is set (the
 * autograd layer registers it once). Grad mode (torch.no_grad()) is kept
 * here, per thread, because the runtime's in-place checks (the leaf
 * errors) only apply while it is enabled; the autograd layer owns it. */
void tl_tensor_set_ag_free(void (*fn)(tl_tensor *t));
bool tl_tensor_grad_mode(void);
void tl_tensor_set_grad_mode(bool enabled);

/* ---- construction ---- */

/* Fresh zeroed contiguous tensor on `be`. Checks numel/limits. */
tl_tensor *tl_tensor_new(const tl_backend *be, tl_dtype dt, int ndim,
                         const int64_t *sizes, tl_error *err);
/* Fresh zeroed tensor with given strides (storage sized to fit). */
tl_tensor *tl_tensor_new_strided(const tl_backend *be, tl_dtype dt, int ndim,
                                 const int64_t *sizes, const int64_t *strides,
                                 tl_error *err);
/* For a result a kernel writes whole right away (clone, contiguous, to,
 * elementwise results): like tl_tensor_new_strided, but when the layout
 * is dense (every storage byte an element) the bytes are not zeroed first.
 * Non-dense layouts (gaps between elements) are zeroed as usual, so no
 * byte of an earlier allocation can ever be seen. */
tl_tensor *tl_tensor_new_for_write(const tl_backend *be, tl_dtype dt, int ndim,
                                   const int64_t *sizes, const int64_t *strides,
                                   tl_error *err);
/* The one view constructor: a new header over src's storage, sharing its
 * version counter and grad flags. Metadata is trusted (callers validate). */
tl_tensor *tl_tensor_view(const tl_tensor *src, int ndim, const int64_t *sizes,
                          const int64_t *strides, int64_t offset);
/* Same metadata as src, new object (detach(), x[...], alias ops). */
tl_tensor *tl_tensor_alias(const tl_tensor *src);
/* src's geometry, dtype and grad flags over another storage and version
 * counter (both retained), with no autograd record: the copies of a setup
 * snapshot (py/snapshot.c). */
tl_tensor *tl_tensor_rebind(const tl_tensor *src, tl_storage *storage, tl_version *version);
/* dst's names become a copy of src's (none when the ranks differ). */
void tl_tensor_copy_names(tl_tensor *dst, const tl_tensor *src);

tl_tensor *tl_tensor_retain(tl_tensor *t);
void tl_tensor_release(tl_tensor *t);
/* Bump t's version counter (_version): in-place ops call it once a write. */
void tl_tensor_bump_version(tl_tensor *t);
/* Tensor headers alive on this thread. A header is about 1 KiB (sizes and
 * strides for TL_MAX_DIMS dims) that the storage ledger does not see, so
 * the interpreter refuses to go past TL_MAX_LIVE_TENSORS (a comprehension
 * of 10^7 views would otherwise take 10 GiB). */
int64_t tl_tensor_live(void);
#define TL_MAX_LIVE_TENSORS 500000

/* ---- queries ---- */
int64_t tl_tensor_numel(const tl_tensor *t);
const tl_backend *tl_tensor_backend(const tl_tensor *t);
tl_device tl_tensor_device(const tl_tensor *t);
bool tl_tensor_is_contiguous(const tl_tensor *t);
bool tl_tensor_is_channels_last(const tl_tensor *t);    /* 4-D rule */
bool tl_tensor_is_channels_last_3d(const tl_tensor *t); /* 5-D rule */
bool tl_tensor_is_non_overlapping_and_dense(const tl_tensor *t);
/* data_ptr(): storage base + offset*itemsize, but 0 when numel == 0 */
uintptr_t tl_tensor_data_ptr(const tl_tensor *t);
/* host/device address of logical element [0,...,0] */
void *tl_tensor_addr(const tl_tensor *t);
/* Describe t for a backend call (pointers into t; valid while t lives). */
tl_strided tl_tensor_strided(const tl_tensor *t);
/* bytes the metadata needs from the storage start (0 if numel == 0) */
int64_t tl_tensor_required_bytes(int ndim, const int64_t *sizes,
                                 const int64_t *strides, int64_t offset,
                                 size_t itemsize);

/* A memory_format= argument: the stride order a copy gets. */
typedef enum tl_memfmt {
    TL_MEMFMT_PRESERVE,        /* torch.preserve_format (tl_tensor_preserve_strides) */
    TL_MEMFMT_CONTIGUOUS,      /* torch.contiguous_format (row-major) */
    TL_MEMFMT_CHANNELS_LAST,   /* 4-D NHWC */
    TL_MEMFMT_CHANNELS_LAST_3D /* 5-D NDHWC */
} tl_memfmt;

/* PyTorch's preserve_format rule on t (tl_shape_preserve_strides). */
void tl_tensor_preserve_strides(const tl_tensor *t, int64_t *strides);
/* The checks of a new tensor's shape, with PyTorch's texts: ndim within
 * TL_MAX_DIMS (TL_ERR_LIMIT), no negative size (RuntimeError "Trying to
 * create tensor with negative dimension -1: [2, -1]"), numel within
 * TL_MAX_NUMEL (TL_ERR_LIMIT). Sets *numel; returns 0 or -1 with err set. */
int tl_tensor_check_shape(int ndim, const int64_t *sizes, int64_t *numel,
                          tl_error *err);

/* ---- element access (host copies through the backend) ---- */
/* Read/write the element at logical flat index i (row-major order over the
 * tensor's shape) as double or int64. Used by item(), tolist(), printing,
 * the write-through probe and tests. */
int tl_tensor_get_f64(const tl_tensor *t, int64_t i, double *out, tl_error *err);
int tl_tensor_get_i64(const tl_tensor *t, int64_t i, int64_t *out, tl_error *err);
int tl_tensor_set_f64(tl_tensor *t, int64_t i, double v, tl_error *err);
int tl_tensor_set_i64(tl_tensor *t, int64_t i, int64_t v, tl_error *err);
/* Raw bytes of element i (itemsize bytes). */
int tl_tensor_get_raw(const tl_tensor *t, int64_t i, void *out, tl_error *err);
int tl_tensor_set_raw(tl_tensor *t, int64_t i, const void *in, tl_error *err);

/* ---- the one host read ----
 * Reading many elements of a tensor on the host goes through these, never
 * through a loop of tl_tensor_get_* on a device tensor (one transfer per
 * element). Both make at most one contiguous copy on t's device and one
 * device->host transfer.
 * tl_tensor_read_host_bytes: t's numel * itemsize bytes, row-major, into
 *   host memory dst (the caller's).
 * tl_tensor_read_host: a tensor whose memory the host may read: t itself
 *   (a new reference) when its backend is host-accessible
 *   (TL_BACKEND_CAP_HOST_MEMORY), else a new contiguous CPU tensor of t's
 *   shape and dtype holding t's values, over a scratch storage that is not
 *   charged to the ledger. NULL with err set on failure. */
int tl_tensor_read_host_bytes(const tl_tensor *t, void *dst, tl_error *err);
tl_tensor *tl_tensor_read_host(const tl_tensor *t, tl_error *err);


#ifdef __cplusplus
}
#endif

#endif
