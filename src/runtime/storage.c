/* storage.c - refcounted storages, the allocation ledger, version counters.
 *
 * Invariants:
 *   - live bytes == sum of nbytes over storages that own their memory;
 *     a borrowing storage (mem_owner != NULL) is charged nothing.
 *   - an allocation that would take live bytes past the limit is refused
 *     with PyTorch's allocator wording (a RuntimeError), never an abort.
 *   - storage ids are unique and never reused in a process, so identity
 *     survives address reuse by malloc.
 *   - a borrowing storage points at the root owner (mem_owner never has a
 *     mem_owner itself), so "same storage" is one pointer comparison.
 * The ledger is thread-local: `tlab grade --jobs N` may grade in threads.
 */
#include "storage.h"

#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "util.h"

static _Thread_local size_t ledger_limit = TL_DEFAULT_MAX_BYTES;
static _Thread_local size_t ledger_live;
static _Thread_local size_t ledger_peak;
static _Thread_local uint64_t ledger_total;

void tl_alloc_set_limit(size_t max_live_bytes) { ledger_limit = max_live_bytes; }
size_t tl_alloc_limit(void) { return ledger_limit; }
size_t tl_alloc_live(void) { return ledger_live; }
uint64_t tl_alloc_total(void) { return ledger_total; }
size_t tl_alloc_peak(void) { return ledger_peak; }
void tl_alloc_reset_peak(void) { ledger_peak = ledger_live; }

void tl_device_str(tl_device d, char *buf, size_t cap)
{
    if (d.kind == TL_DEV_CPU)
        snprintf(buf, cap, "cpu");
    else
        snprintf(buf, cap, "cuda:%d", d.index);
}

static tl_storage *storage_object(void)
{
    tl_storage *s = tl_xcalloc(1, sizeof *s);
    s->refcount = 1;
    return s;
}

tl_storage *tl_storage_new(const tl_backend *be, size_t nbytes, tl_error *err)
{
    TL_ASSERT(be != NULL);
    if (nbytes > ledger_limit || ledger_live > ledger_limit - nbytes) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "[enforce fail at alloc_cpu.cpp:75] data. "
                     "DefaultCPUAllocator: not enough memory: you tried to "
                     "allocate %zu bytes. (tlab limit: %zu bytes of live "
                     "tensor storage; see --max-bytes)",
                     nbytes, ledger_limit);
        return NULL;
    }
    void *data = NULL;
    if (nbytes > 0) {
        data = be->alloc(nbytes);
        if (!data) {
            tl_error_set(err, TL_ERR_RUNTIME,
                         "[enforce fail at alloc_cpu.cpp:75] data. "
                         "DefaultCPUAllocator: not enough memory: you tried "
                         "to allocate %zu bytes.",
                         nbytes);
            return NULL;
        }
    }
    tl_storage *s = storage_object();
    s->data = data;
    s->nbytes = nbytes;
    s->device = be->device;
    s->backend = be;
    ledger_live += nbytes;
    ledger_total += nbytes;
    if (ledger_live > ledger_peak)
        ledger_peak = ledger_live;
    return s;
}

tl_storage *tl_storage_borrow(tl_storage *owner, size_t byte_offset,
                              size_t nbytes)
{
    tl_storage *root = owner->mem_owner ? owner->mem_owner : owner;
    TL_ASSERT(byte_offset <= owner->nbytes &&
              nbytes <= owner->nbytes - byte_offset);
    tl_storage *s = storage_object();
    s->data = owner->data && nbytes ? (char *)owner->data + byte_offset : NULL;
    s->nbytes = nbytes;
    s->device = owner->device;
    s->backend = owner->backend;
    s->pinned = owner->pinned;
    s->mem_owner = tl_storage_retain(root);
    root->borrowers++;
    return s;
}

int tl_storage_resize(tl_storage *s, size_t nbytes, tl_error *err)
{
    if (nbytes <= s->nbytes)
        return 0;
    if (s->mem_owner || s->borrowers > 0)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "Trying to resize storage that is not resizable");
    size_t grow = nbytes - s->nbytes;
    if (grow > ledger_limit || ledger_live > ledger_limit - grow)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "[enforce fail at alloc_cpu.cpp:75] data. "
                            "DefaultCPUAllocator: not enough memory: you tried "
                            "to allocate %zu bytes. (tlab limit: %zu bytes of "
                            "live tensor storage; see --max-bytes)",
                            nbytes, ledger_limit);
    const tl_backend *be = s->backend;
    void *data = be->alloc(nbytes);
    if (!data)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "[enforce fail at alloc_cpu.cpp:75] data. "
                            "DefaultCPUAllocator: not enough memory: you tried "
                            "to allocate %zu bytes.",
                            nbytes);
    /* the new block comes zeroed: copy the old bytes in, as bytes */
    int64_t old = (int64_t)s->nbytes, one = 1;
    if (old > 0) {
        tl_strided dd = {.data = data, .dtype = TL_UINT8, .ndim = 1,
                         .sizes = &old, .strides = &one};
        tl_strided sd = {.data = s->data, .dtype = TL_UINT8, .ndim = 1,
                         .sizes = &old, .strides = &one};
        if (be->copy_strided(&dd, &sd, err) < 0) {
            be->free(data);
            return -1;
        }
    }
    if (s->data)
        be->free(s->data);
    s->data = data;
    s->nbytes = nbytes;
    ledger_live += grow;
    ledger_total += grow;
    if (ledger_live > ledger_peak)
        ledger_peak = ledger_live;
    return 0;
}

tl_storage *tl_storage_retain(tl_storage *s)
{
    if (s)
        s->refcount++;
    return s;
}

void tl_storage_release(tl_storage *s)
{
    if (!s || --s->refcount > 0)
        return;
    if (s->mem_owner) {
        s->mem_owner->borrowers--;
        tl_storage_release(s->mem_owner);
    } else {
        if (s->data)
            s->backend->free(s->data);
        ledger_live -= s->nbytes;
    }
    free(s);
}

bool tl_storage_same(const tl_storage *a, const tl_storage *b)
{
    if (!a || !b)
        return a == b;
    const tl_storage *ra = a->mem_owner ? a->mem_owner : a;
    const tl_storage *rb = b->mem_owner ? b->mem_owner : b;
    return ra == rb;
}

tl_version *tl_version_new(void)
{
    tl_version *v = tl_xcalloc(1, sizeof *v);
    v->refcount = 1;
    return v;
}

tl_version *tl_version_retain(tl_version *v)
{
    if (v)
        v->refcount++;
    return v;
}

void tl_version_release(tl_version *v)
{
    if (v && --v->refcount == 0)
        free(v);
}
