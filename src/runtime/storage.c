/* storage.c - refcounted storages, the allocation ledger, version counters.
 *
 * Invariants:
 *   - live bytes == sum of nbytes over storages that own their memory;
 *     a borrowing storage (mem_owner != NULL) and a scratch storage (a
 *     host image of a device tensor) are charged nothing.
 *   - an allocation that would take live bytes past the limit is refused
 *     with PyTorch's allocator wording (a RuntimeError), never an abort;
 *     every refusal is counted (tl_alloc_refusals), and so is one that
 *     only a cache's held memory caused (tl_alloc_held_refusals).
 *   - charged == live storage + scratch (kernels' and factories' working
 *     memory, tl_alloc_scratch_charge) + held (a cache's memory kept
 *     across runs, tl_alloc_held_add) + objects past the allowance.
 *   - storage ids are unique and never reused in a thread (they name
 *     storages in reports), so identity survives address reuse by malloc.
 *   - a borrowing storage points at the root owner (mem_owner never has a
 *     mem_owner itself), so "same storage" is one pointer comparison.
 * The ledger is the thread's context (context.h): `tlab grade --jobs N`
 * grades in threads.
 */
#include "storage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "blockcache.h"
#include "freelist.h"
#include "util.h"

/* the thread's ledger (context.h) */
#define L (tl_context_get())

void tl_alloc_set_limit(size_t max_live_bytes) { L->ledger_limit = max_live_bytes; }
size_t tl_alloc_limit(void) { return L->ledger_limit; }
size_t tl_alloc_live(void) { return L->ledger_live; }
uint64_t tl_alloc_total(void) { return L->ledger_total; }
size_t tl_alloc_peak(void) { return L->ledger_peak; }
void tl_alloc_reset_peak(void) { L->ledger_peak = L->ledger_live; }

/* Objects charged past their allowance grow into the room that freed
 * blocks wait in (the CPU backend's block cache) and take it back: cached
 * plus charged bytes stay within the limit. Out of line: the objects'
 * path is hot and this is almost never needed. */
static __attribute__((noinline)) void give_back_cache_room(const tl_context *c)
{
    if (tl_blockcache_bytes() > 0) {
        size_t used = tl_context_ledger_charged(), limit = c->ledger_limit;
        tl_blockcache_trim(used < limit ? limit - used : 0);
    }
}

void tl_alloc_objects_add(int64_t delta)
{
    tl_context *c = L;
    c->ledger_objects += delta;
    if (c->ledger_objects > (int64_t)TL_ALLOC_OBJECT_ALLOWANCE)
        give_back_cache_room(c);
}

size_t tl_alloc_objects(void)
{
    int64_t o = L->ledger_objects;
    return o > 0 ? (size_t)o : 0; /* freed on another thread: never below 0 */
}

bool tl_alloc_over_limit(size_t more)
{
    size_t limit = L->ledger_limit, live = tl_context_ledger_charged();
    return more > limit || live > limit - more;
}

/* over the limit: the refusal counted (tl_alloc_refusals) */
static bool refuse(size_t more)
{
    if (!tl_alloc_over_limit(more))
        return false;
    tl_context_ledger_refused(more);
    return true;
}

int tl_alloc_scratch_charge(size_t nbytes, tl_error *err)
{
    if (refuse(nbytes))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "[enforce fail at alloc_cpu.cpp:75] data. "
                            "DefaultCPUAllocator: not enough memory: you tried to "
                            "allocate %zu bytes. (tlab limit: %zu bytes of live "
                            "tensor storage; see --max-bytes)",
                            nbytes, L->ledger_limit);
    tl_context *c = L;
    c->ledger_scratch += nbytes;
    size_t now = c->ledger_live + c->ledger_scratch;
    if (now > c->ledger_peak)
        c->ledger_peak = now;
    return 0;
}

void tl_alloc_scratch_release(size_t nbytes)
{
    tl_context *c = L;
    c->ledger_scratch -= nbytes < c->ledger_scratch ? nbytes : c->ledger_scratch;
}

void tl_alloc_held_add(int64_t delta)
{
    tl_context *c = L;
    if (delta >= 0)
        c->ledger_held += (size_t)delta;
    else
        c->ledger_held -= (size_t)-delta < c->ledger_held ? (size_t)-delta : c->ledger_held;
}

size_t tl_alloc_held(void) { return L->ledger_held; }
uint64_t tl_alloc_refusals(void) { return L->ledger_refusals; }
uint64_t tl_alloc_held_refusals(void) { return L->ledger_held_refusals; }

int tl_alloc_check(tl_error *err) { return tl_context_memory_check(err); }

static void charge(size_t nbytes)
{
    tl_context *c = L;
    c->ledger_live += nbytes;
    c->ledger_total += nbytes;
    if (c->ledger_live > c->ledger_peak)
        c->ledger_peak = c->ledger_live;
}

/* Storage objects and version counters are made and dropped with every
 * tensor op: per-thread free lists (base/freelist.h) keep them off
 * malloc's long path. */
#define OBJECT_CACHE 256
static _Thread_local tl_freelist storages, versions;

static tl_storage *storage_object(void)
{
    tl_storage *s = tl_freelist_pop(&storages);
    if (!s)
        s = tl_xmalloc(sizeof *s);
    memset(s, 0, sizeof *s);
    s->refcount = 1;
    s->id = L->next_storage_id++;
    return s;
}

static tl_storage *storage_new(const tl_backend *be, size_t nbytes, bool zero,
                               tl_error *err)
{
    TL_ASSERT(be != NULL);
    size_t ledger_limit = L->ledger_limit;
    if (refuse(nbytes)) {
        tl_error_set(err, TL_ERR_RUNTIME,
                     "[enforce fail at alloc_cpu.cpp:75] data. "
                     "DefaultCPUAllocator: not enough memory: you tried to "
                     "allocate %zu bytes. (tlab limit: %zu bytes of live "
                     "tensor storage; see --max-bytes)",
                     nbytes, ledger_limit);
        return NULL;
    }
    void *data = NULL;
    if ((zero ? tl_backend_alloc(be, nbytes, &data, err)
              : tl_backend_alloc_uninit(be, nbytes, &data, err)) < 0)
        return NULL;
    tl_storage *s = storage_object();
    s->data = data;
    s->nbytes = nbytes;
    s->device = tl_backend_device(be);
    s->backend = be;
    charge(nbytes);
    return s;
}

tl_storage *tl_storage_new_scratch(const tl_backend *be, size_t nbytes,
                                   tl_error *err)
{
    void *data = NULL;
    if (tl_backend_alloc(be, nbytes, &data, err) < 0)
        return NULL;
    tl_storage *s = storage_object();
    s->data = data;
    s->nbytes = nbytes;
    s->device = tl_backend_device(be);
    s->backend = be;
    s->scratch = true;
    return s;
}

tl_storage *tl_storage_new(const tl_backend *be, size_t nbytes, tl_error *err)
{
    return storage_new(be, nbytes, true, err);
}

tl_storage *tl_storage_new_uninit(const tl_backend *be, size_t nbytes,
                                  tl_error *err)
{
    return storage_new(be, nbytes, false, err);
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

/* free s's own block through whoever allocated it */
static void free_block(const tl_storage *s, void *data)
{
    if (s->host_owner)
        tl_backend_host_free(s->host_owner, data);
    else
        tl_backend_free(s->backend, data);
}

int tl_storage_resize(tl_storage *s, size_t nbytes, tl_error *err)
{
    if (nbytes <= s->nbytes)
        return 0;
    if (s->mem_owner || s->borrowers > 0 || s->fixed)
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "Trying to resize storage that is not resizable");
    size_t grow = nbytes - s->nbytes;
    size_t ledger_limit = L->ledger_limit;
    if (refuse(grow))
        return tl_error_set(err, TL_ERR_RUNTIME,
                            "[enforce fail at alloc_cpu.cpp:75] data. "
                            "DefaultCPUAllocator: not enough memory: you tried "
                            "to allocate %zu bytes. (tlab limit: %zu bytes of "
                            "live tensor storage; see --max-bytes)",
                            nbytes, ledger_limit);
    const tl_backend *be = s->backend;
    void *data;
    int rc = s->host_owner ? tl_backend_host_alloc(s->host_owner, nbytes, &data, err)
                           : tl_backend_alloc(be, nbytes, &data, err);
    if (rc < 0)
        return -1;
    /* the new block comes zeroed: copy the old bytes in, as bytes */
    int64_t old = (int64_t)s->nbytes, one = 1;
    if (old > 0) {
        tl_strided dd = {.data = data, .dtype = TL_UINT8, .ndim = 1,
                         .sizes = &old, .strides = &one};
        tl_strided sd = {.data = s->data, .dtype = TL_UINT8, .ndim = 1,
                         .sizes = &old, .strides = &one};
        if (tl_backend_copy_strided(be, &dd, &sd, err) < 0) {
            free_block(s, data);
            return -1;
        }
    }
    free_block(s, s->data);
    s->data = data;
    s->nbytes = nbytes;
    charge(grow);
    return 0;
}

int tl_storage_pin(tl_storage *s, tl_error *err)
{
    TL_ASSERT(!s->mem_owner && s->device.kind == TL_DEV_CPU);
    if (s->pinned)
        return 0;
    const tl_backend *pinner = L->cuda_backend ? L->cuda_backend : tl_backend_cpu();
    void *data = NULL;
    if (s->nbytes) {
        if (tl_backend_host_alloc(pinner, s->nbytes, &data, err) < 0)
            return -1;
        memcpy(data, s->data, s->nbytes); /* both are host memory */
        free_block(s, s->data);
    }
    s->data = data;
    s->host_owner = pinner;
    s->pinned = true;
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
        free_block(s, s->data);
        if (!s->scratch)
            L->ledger_live -= s->nbytes;
    }
    tl_freelist_push(&storages, s, OBJECT_CACHE);
}

tl_storage *tl_storage_copy(const tl_storage *s, tl_error *err)
{
    tl_storage *c = tl_storage_new_uninit(s->backend, s->nbytes, err);
    if (!c || !s->nbytes)
        return c;
    if (tl_backend_caps(s->backend) & TL_BACKEND_CAP_HOST_MEMORY) {
        memcpy(c->data, s->data, s->nbytes);
    } else if (tl_backend_copy_d2d(s->backend, c->data, s->data, s->nbytes, err) != 0) {
        tl_storage_release(c); /* device memory: the device copies it */
        return NULL;
    }
    return c;
}

void tl_storage_uncharge(tl_storage *s)
{
    if (s->mem_owner || s->scratch)
        return;
    L->ledger_live -= s->nbytes;
    s->scratch = true;
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
    tl_version *v = tl_freelist_pop(&versions);
    if (!v)
        v = tl_xmalloc(sizeof *v);
    v->refcount = 1;
    v->value = 0;
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
        tl_freelist_push(&versions, v, OBJECT_CACHE);
}
