/* storage.h - refcounted storages, the allocation accounting layer, and the
 * shared version counter.
 *
 * Ownership: tl_storage_new returns a storage with refcount 1; every tensor
 * header that points at it holds one reference (tl_storage_retain) and drops
 * it with tl_storage_release. The memory is freed, through the backend that
 * allocated it, when the last reference goes. A storage may instead *borrow*
 * the memory of another storage (torch.from_numpy(t.numpy())): it then holds
 * a reference on `mem_owner` and frees nothing itself.
 *
 * Accounting: every allocation is charged to the thread's ledger (context.h) that knows
 * the live bytes and refuses (TL_ERR_RUNTIME, PyTorch's allocator wording)
 * past the limit set by tl_alloc_set_limit (default 1 GiB). `allocated` only
 * grows, so "bytes allocated by an op" is the difference of two readings.
 */
#ifndef TL_STORAGE_H
#define TL_STORAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "context.h"
#include "device.h"
#include "err.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tl_backend;

typedef struct tl_storage {
    int refcount;
    void *data;    /* base pointer; NULL only when nbytes == 0 */
    size_t nbytes;
    tl_device device;
    const struct tl_backend *backend; /* who allocated (and frees) data */
    struct tl_storage *mem_owner;     /* non-NULL: data is borrowed from it */
    uint64_t id;                      /* unique per thread, never reused */
    bool pinned;                      /* page-locked host memory */
    /* non-NULL: data came from tl_backend_host_alloc of this backend (a
     * pinned block) and goes back through its tl_backend_host_free */
    const struct tl_backend *host_owner;
    bool scratch; /* not charged to the ledger (tl_storage_new_scratch) */
    int borrowers; /* live storages borrowing this one's memory */
    bool fixed; /* set_resizable(false): an ndarray (x.numpy()) uses it */
} tl_storage;

/* Allocate nbytes (zeroed) on the backend's device. Charges the ledger. */
tl_storage *tl_storage_new(const struct tl_backend *be, size_t nbytes,
                           tl_error *err);
/* Like tl_storage_new, but NOT charged to the ledger: the host image of a
 * device tensor that the runtime reads and drops (tl_tensor_read_host), so
 * an op's "bytes allocated" do not depend on whether its device's memory is
 * host-accessible. Its size is bounded by a tensor that was charged. */
tl_storage *tl_storage_new_scratch(const struct tl_backend *be, size_t nbytes,
                                   tl_error *err);
/* The same, bytes undefined: only for a block a kernel writes whole. */
tl_storage *tl_storage_new_uninit(const struct tl_backend *be, size_t nbytes,
                                  tl_error *err);
/* A new storage with s's bytes, on s's backend, charged (a device's
 * storage is copied by the device); s must own its bytes. The copies of a
 * setup snapshot and of torch.save/torch.load. */
tl_storage *tl_storage_copy(const tl_storage *s, tl_error *err);
/* Takes s off the ledger: its bytes no longer count as live, and freeing
 * it later uncharges nothing (it becomes a scratch storage). A setup
 * snapshot (py/snapshot.c) holds its storages so. */
void tl_storage_uncharge(tl_storage *s);
/* A new storage object over bytes [byte_offset, byte_offset + nbytes) of
 * owner's memory (numpy round trips: torch.from_numpy(x[1:].numpy()) starts
 * its storage at the array's first byte, as PyTorch does). The borrower
 * retains the ROOT owner, so borrows of borrows stay one level deep. */
tl_storage *tl_storage_borrow(tl_storage *owner, size_t byte_offset,
                              size_t nbytes);
/* Grow (or keep) s to at least nbytes IN PLACE, as PyTorch's resize_ does:
 * the same storage object gets a new block (old bytes copied through the
 * backend, the tail zeroed), so every tensor over it follows. The growth is
 * charged to the ledger. Never shrinks. Refuses (RuntimeError "Trying to
 * resize storage that is not resizable") on a storage that borrows its
 * memory, and on one whose memory others borrow (their pointers would
 * dangle). Returns 0 or -1 with err set. */
int tl_storage_resize(tl_storage *s, size_t nbytes, tl_error *err);
/* Move a CPU storage that owns its memory into pinned host memory
 * (pin_memory): a block from the thread's CUDA backend's host allocator
 * (cudaHostAlloc on a GPU; ordinary memory where it has no
 * TL_BACKEND_CAP_PINNED, or when the run has no CUDA backend), the bytes
 * copied over, the old block freed; s->pinned set. The ledger is unchanged
 * (same size). Returns 0 or -1 with err set (s unchanged). */
int tl_storage_pin(tl_storage *s, tl_error *err);
tl_storage *tl_storage_retain(tl_storage *s);
void tl_storage_release(tl_storage *s);

/* Same storage (SPEC 4)? True when both are, or borrow from, one root
 * storage: identity of the memory's owner, never a pointer comparison, so
 * zero-byte storages (NULL data) and offset borrows are classified right. */
bool tl_storage_same(const tl_storage *a, const tl_storage *b);

/* ---- accounting ledger (per thread: the context's) ---- */
void tl_alloc_set_limit(size_t max_live_bytes);
size_t tl_alloc_limit(void);
size_t tl_alloc_live(void);      /* bytes currently held by storages */
uint64_t tl_alloc_total(void);   /* bytes ever allocated (monotonic) */
size_t tl_alloc_peak(void);
void tl_alloc_reset_peak(void);

/* One ledger for the process's memory: interpreter objects (values, their
 * strings and item arrays: py/value.c) and tensor headers (tensor.c) are
 * charged next to the storages, at their allocator cost. Objects up to
 * TL_ALLOC_OBJECT_ALLOWANCE (context.h) are a fixed overhead, not charged (a small
 * --max-bytes still runs an ordinary setup); past it they count against
 * the same limit as storages: a storage that does not fit is refused, and
 * every deadline poll (context.h) stops the op with a LimitError once the
 * total is past the limit. So --max-bytes bounds the process: peak RSS is
 * at most the limit plus the allowance plus the binary's own. */
void tl_alloc_objects_add(int64_t delta); /* + on allocation, - on free */
size_t tl_alloc_objects(void);            /* bytes of objects now live */
/* Would `more` bytes take storages plus charged objects past the limit? */
bool tl_alloc_over_limit(size_t more);
/* -1 with a LimitError (memory limit exceeded, see --max-bytes) when the
 * ledger is already past the limit; 0 otherwise. */
int tl_alloc_check(tl_error *err);

/* Scratch: working memory that is not a storage (a kernel's sort rows, a
 * factory's host buffer for a device tensor) is charged for as long as it
 * lives: tl_alloc_scratch_charge before the malloc (0, or -1 with the
 * allocator's RuntimeError when it does not fit), tl_alloc_scratch_release
 * with the same size after the free, on the same thread. Not counted in
 * tl_alloc_total (it is no op's allocated bytes). */
int tl_alloc_scratch_charge(size_t nbytes, tl_error *err);
void tl_alloc_scratch_release(size_t nbytes);
/* Held: memory a cache keeps across runs (the setup cache's snapshot and
 * parent variants, lab/verdict.c), charged as one block by its holder
 * (+ when kept, - when dropped, on the thread whose ledger it is; a block
 * of a thread that has ended is dropped with no call). */
void tl_alloc_held_add(int64_t delta);
size_t tl_alloc_held(void);
/* Refusals so far on this thread (allocations refused, and memory checks
 * failed), and those among them that would have fit without the held
 * memory: a run that saw one of those would not have failed uncached. */
uint64_t tl_alloc_refusals(void);
uint64_t tl_alloc_held_refusals(void);

/* ---- version counter: one per base tensor, shared by its views ---- */
typedef struct tl_version {
    int refcount;
    int64_t value;
} tl_version;

tl_version *tl_version_new(void);
tl_version *tl_version_retain(tl_version *v);
void tl_version_release(tl_version *v);

#ifdef __cplusplus
}
#endif

#endif
