/* dev_cuda.cu - the device API of dev.h on CUDA (compiled by nvcc): memory
 * from cudaMallocAsync, copies with cudaMemcpyAsync, one __global__ wrapper
 * per kernel kind around the shared bodies of kernels.h, all on
 * cudaStreamPerThread (each grading thread has its own stream).
 *
 * Invariants:
 *   - Every call that hands data back to the host synchronises the stream
 *     first, so errors surface at the call that caused them; a kernel
 *     launch is checked with cudaPeekAtLastError and, because descriptors
 *     may point at scratch the host frees right after, the stream is also
 *     synchronised before launch() returns.
 *   - probe() runs once: cudaGetDeviceCount, then a one-thread launch. The
 *     "no usable GPU" answers (35 insufficient driver, 100 no device, 34
 *     stub library, 803 system driver mismatch, 804 compat not supported,
 *     209/222 no kernel image / unsupported PTX from the probe launch) make
 *     the device unusable; the reason is kept for --require-gpu.
 *   - Descriptors travel by value in the kernel's parameter space (under
 *     4 KiB, the limit on every supported architecture).
 * Build: nvcc --fmad=false (see kernels.h), -Xptxas -warn-spills.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "context.h"
#include "dev.h"
#include "tl_cuda.h"

#define TL_THREADS 256

/* The descriptor stays in kernel parameter space: the bodies take its
 * address (tl_k_run(kind, &d, g)), which without __grid_constant__ makes
 * every thread copy its 4 KB to local memory first (ptxas: a 5008-byte
 * stack frame per kernel; 0 with it). sm_70+, CUDA 11.7+. TL_KFN forces
 * inlining on the device for the same reason. */
#if (__CUDACC_VER_MAJOR__ > 11 || (__CUDACC_VER_MAJOR__ == 11 && __CUDACC_VER_MINOR__ >= 7)) && \
    (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 700)
#define TL_GRID_CONSTANT __grid_constant__
#else
#define TL_GRID_CONSTANT
#endif

#define TL_GLOBAL(NAME, KIND)                                                  \
    __global__ void __launch_bounds__(TL_THREADS) NAME(const TL_GRID_CONSTANT tl_kdesc d) \
    {                                                                          \
        tl_kgrid g;                                                            \
        g.block = blockIdx.x;                                                  \
        g.thread = threadIdx.x;                                                \
        g.bdim = blockDim.x;                                                   \
        g.gdim = gridDim.x;                                                    \
        tl_k_run(KIND, &d, g);                                                 \
    }

TL_GLOBAL(k_copy, TL_K_COPY)
TL_GLOBAL(k_fill, TL_K_FILL)
TL_GLOBAL(k_binary, TL_K_BINARY)
TL_GLOBAL(k_unary, TL_K_UNARY)
TL_GLOBAL(k_where, TL_K_WHERE)
TL_GLOBAL(k_gather, TL_K_GATHER)
TL_GLOBAL(k_reduce, TL_K_REDUCE)
TL_GLOBAL(k_reduce_combine, TL_K_REDUCE_COMBINE)
TL_GLOBAL(k_scatter, TL_K_SCATTER)
TL_GLOBAL(k_sort, TL_K_SORT)
TL_GLOBAL(k_index_offsets, TL_K_INDEX_OFFSETS)
TL_GLOBAL(k_scatter_seq, TL_K_SCATTER_SEQ)
TL_GLOBAL(k_sort_merge, TL_K_SORT_MERGE)
TL_GLOBAL(k_sort_store, TL_K_SORT_STORE)
TL_GLOBAL(k_scatter_fold, TL_K_SCATTER_FOLD)
TL_GLOBAL(k_scan, TL_K_SCAN)

__global__ void tl_probe_kernel(int *p)
{
    if (p)
        *p = 1;
}

static int probed;      /* 0 not yet, 1 usable, -1 not usable */
static int probe_status;
static char probe_why[256];
static int sm_count = 1;

static bool no_gpu_status(cudaError_t rc)
{
    return rc == cudaErrorInsufficientDriver || rc == cudaErrorNoDevice ||
           rc == cudaErrorStubLibrary || rc == cudaErrorSystemDriverMismatch ||
           rc == cudaErrorCompatNotSupportedOnDevice ||
           rc == cudaErrorNoKernelImageForDevice ||
           rc == cudaErrorUnsupportedPtxVersion;
}

static void probe_once(void);
static pthread_once_t probe_flag = PTHREAD_ONCE_INIT;

/* First-call setup is thread-safe: every caller waits for the one probe
 * (review E4; `--jobs` workers may be the first to ask). */
static void do_probe(void)
{
    pthread_once(&probe_flag, probe_once);
}

static void probe_once(void)
{
    int n = 0;
    cudaError_t rc = cudaGetDeviceCount(&n);
    if (rc == cudaSuccess && n == 0)
        rc = cudaErrorNoDevice;
    if (rc == cudaSuccess) {
        tl_probe_kernel<<<1, 1, 0, cudaStreamPerThread>>>(NULL);
        rc = cudaGetLastError();
        if (rc == cudaSuccess)
            rc = cudaStreamSynchronize(cudaStreamPerThread);
    }
    if (rc != cudaSuccess) {
        (void)cudaGetLastError();
        probed = -1;
        probe_status = (int)rc;
        snprintf(probe_why, sizeof probe_why, "%s (%d: %s)%s", cudaGetErrorName(rc),
                 (int)rc, cudaGetErrorString(rc),
                 no_gpu_status(rc) ? "" : " [unexpected]");
        return;
    }
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess && prop.multiProcessorCount > 0)
        sm_count = prop.multiProcessorCount;
    /* freed pool memory stays with the pool instead of going back to the
     * driver at every sync (PyTorch's cudaMallocAsync backend does the
     * same); cu_malloc trims the pool once on out of memory (review S1) */
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess) {
        uint64_t threshold = UINT64_MAX;
        (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
    }
    (void)cudaGetLastError();
    probed = 1;
}

extern "C" const char *tl_dev_cuda_why(void)
{
    do_probe();
    return probed == 1 ? "" : probe_why;
}

static int cu_probe(char *why, size_t cap)
{
    do_probe();
    if (probed == 1)
        return 0;
    if (why && cap)
        snprintf(why, cap, "%s", probe_why);
    return probe_status ? probe_status : 100;
}

static int st(cudaError_t rc)
{
    return (int)rc;
}

static int cu_malloc(void **p, size_t n)
{
    *p = NULL;
    cudaError_t rc = cudaMallocAsync(p, n ? n : 1, cudaStreamPerThread);
    if (rc == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        /* trim the pool once and retry (PyTorch frees its cache, too) */
        cudaStreamSynchronize(cudaStreamPerThread);
        cudaMemPool_t pool;
        int dev = 0;
        cudaGetDevice(&dev);
        if (cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess)
            cudaMemPoolTrimTo(pool, 0);
        rc = cudaMallocAsync(p, n ? n : 1, cudaStreamPerThread);
        if (rc == cudaErrorMemoryAllocation)
            (void)cudaGetLastError();
    }
    return st(rc);
}

static void cu_free(void *p)
{
    if (p)
        (void)cudaFreeAsync(p, cudaStreamPerThread);
}

static int cu_h2d(void *dst, const void *src, size_t n)
{
    cudaError_t rc = cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, cudaStreamPerThread);
    if (rc == cudaSuccess)
        rc = cudaStreamSynchronize(cudaStreamPerThread); /* src may be freed next */
    return st(rc);
}

static int cu_d2h(void *dst, const void *src, size_t n)
{
    cudaError_t rc = cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, cudaStreamPerThread);
    if (rc == cudaSuccess)
        rc = cudaStreamSynchronize(cudaStreamPerThread);
    return st(rc);
}

static int cu_d2d(void *dst, const void *src, size_t n)
{
    return st(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, cudaStreamPerThread));
}

static int cu_memset0(void *dst, size_t n)
{
    return st(cudaMemsetAsync(dst, 0, n, cudaStreamPerThread));
}

/* Review S3: a launch is queued, not waited for; the host waits only
 * where it reads or hands memory back (cu_d2h, cu_h2d, cu_sync: every
 * allocation, copy and free is ordered on this thread's stream), so an
 * error a kernel meets while running is reported by the next of those.
 * TLAB_CUDA_LAUNCH_BLOCKING=1 waits after every launch instead, so the
 * failing kernel is the one named (PyTorch's CUDA_LAUNCH_BLOCKING). */
static int launch_blocking(void)
{
    static int blocking = -1;
    if (blocking < 0) {
        const char *e = getenv("TLAB_CUDA_LAUNCH_BLOCKING");
        blocking = e && *e == '1';
    }
    return blocking;
}

/* One launch of items [d->first, d->n). */
static cudaError_t launch_once(tl_kkind kind, const tl_kdesc *d, unsigned grid, unsigned threads)
{
    cudaStream_t s = cudaStreamPerThread;
    /* clear an error an earlier call left, so it is not blamed on this
     * launch (cudaPeekAtLastError would report it again forever: E1) */
    (void)cudaGetLastError();
    switch (kind) {
    case TL_K_COPY: k_copy<<<grid, threads, 0, s>>>(*d); break;
    case TL_K_FILL: k_fill<<<grid, threads, 0, s>>>(*d); break;
    case TL_K_BINARY: k_binary<<<grid, threads, 0, s>>>(*d); break;
    case TL_K_UNARY: k_unary<<<grid, threads, 0, s>>>(*d); break;
    case TL_K_WHERE: k_where<<<grid, threads, 0, s>>>(*d); break;
    case TL_K_GATHER: k_gather<<<grid, threads, 0, s>>>(*d); break;
    case TL_K_REDUCE: k_reduce<<<grid, threads, 0, s>>>(*d); break;
    case TL_K_REDUCE_COMBINE: k_reduce_combine<<<grid, threads, 0, s>>>(*d); break;
    case TL_K_SCATTER: k_scatter<<<grid, threads, 0, s>>>(*d); break;
    case TL_K_SORT: k_sort<<<grid, threads, 0, s>>>(*d); break;
    case TL_K_INDEX_OFFSETS: k_index_offsets<<<grid, threads, 0, s>>>(*d); break;
    case TL_K_SCATTER_SEQ: k_scatter_seq<<<grid, threads, 0, s>>>(*d); break;
    case TL_K_SORT_MERGE: k_sort_merge<<<grid, threads, 0, s>>>(*d); break;
    case TL_K_SORT_STORE: k_sort_store<<<grid, threads, 0, s>>>(*d); break;
    case TL_K_SCATTER_FOLD: k_scatter_fold<<<grid, threads, 0, s>>>(*d); break;
    case TL_K_SCAN: k_scan<<<grid, threads, 0, s>>>(*d); break;
    default: return cudaErrorInvalidValue;
    }
    cudaError_t rc = cudaGetLastError();
    if (rc == cudaSuccess && launch_blocking())
        rc = cudaStreamSynchronize(s);
    else if (rc != cudaSuccess)
        (void)cudaGetLastError();
    return rc;
}

/* Work units between deadline polls: one slice of a launch runs about this
 * many item-costs (an item of a sort row or a reduction chunk costs its
 * length), so `--timeout` holds on a GPU as on the simulator, and no
 * single launch runs long enough for a display watchdog (702). */
#define SLICE_UNITS ((int64_t)1 << 26)
#define SERIAL_SLICE_UNITS ((int64_t)1 << 16)

static int cu_launch(tl_kkind kind, const tl_kdesc *desc)
{
    if (desc->n <= 0)
        return 0;
    /* the loop choice and divisors (dev_sim.c does the same) */
    tl_kdesc prepared = *desc;
    tl_k_prepare((int)kind, &prepared);
    const tl_kdesc *d = &prepared;
    int64_t blocks = (d->n + TL_THREADS - 1) / TL_THREADS;
    int64_t cap = (int64_t)sm_count * 32; /* grid-stride beyond this */
    unsigned grid = (unsigned)(blocks < cap ? blocks : cap);
    unsigned threads = TL_THREADS;
    if (d->serial)
        grid = threads = 1;
    int64_t cost = 1;
    if (kind == TL_K_SORT && d->len > 1)
        cost = d->len;
    if (kind == TL_K_SCAN && d->k > d->width)
        cost = d->k - d->width;
    if (kind == TL_K_REDUCE && d->clen > 1)
        cost = d->clen;
    int64_t per = (d->serial ? SERIAL_SLICE_UNITS : SLICE_UNITS) / cost;
    if (per < 1)
        per = 1;
    /* a strip copy (serial 2) is one piece; the kernels' 32-bit index
     * arithmetic needs d->n to bound every size, so 2^31 items or more run
     * unsliced, as on the simulator */
    if (d->serial == 2 || d->n > 2147483647)
        return st(launch_once(kind, d, grid, threads));
    /* at most two slices in flight: before queuing slice i the host waits
     * for slice i - 2's event, so the deadline poll between slices still
     * bounds how far an op runs past --timeout (S3: no sync otherwise) */
    tl_kdesc piece = *d;
    cudaEvent_t ev[2] = {NULL, NULL};
    cudaError_t rc = cudaSuccess;
    int timed_out = 0;
    for (int64_t lo = d->first, i = 0; lo < d->n && rc == cudaSuccess; lo += per, i++) {
        piece.first = lo;
        piece.n = d->n - lo <= per ? d->n : lo + per;
        cudaEvent_t *e = &ev[i & 1];
        if (*e)
            rc = cudaEventSynchronize(*e);
        if (rc == cudaSuccess)
            rc = launch_once(kind, &piece, grid, threads);
        if (rc != cudaSuccess || piece.n >= d->n)
            break;
        if (!*e)
            rc = cudaEventCreateWithFlags(e, cudaEventDisableTiming);
        if (rc == cudaSuccess)
            rc = cudaEventRecord(*e, cudaStreamPerThread);
        if (rc == cudaSuccess && tl_context_deadline_passed()) {
            timed_out = 1;
            break;
        }
    }
    for (int k = 0; k < 2; k++)
        if (ev[k])
            (void)cudaEventDestroy(ev[k]); /* released once it completes */
    if (rc != cudaSuccess)
        return st(rc);
    return timed_out ? TL_DEV_ETIMEOUT : 0;
}

static int cu_sync(void)
{
    return st(cudaStreamSynchronize(cudaStreamPerThread));
}

/* ---- pinned host blocks, cached (review S5) ----
 * cudaHostAlloc and cudaFreeHost are slow (they map and unmap pages for
 * the device and cudaFreeHost synchronises the device, so every
 * pin_memory() stalled the other --jobs workers' streams). Freed pinned
 * blocks wait in a per-thread cache for the next request of their bin, as
 * PyTorch's CachingHostAllocator does:
 *   - Bins: a request is rounded up to a capacity of 2^k * {1, 1.25, 1.5,
 *     1.75} bytes (at least 4 KiB), so a block fits every later request of
 *     its bin and wastes at most a quarter.
 *   - Each block starts with a PIN_HDR-byte header holding its capacity (the
 *     caller's pointer is 64-byte aligned, inside the same pinned
 *     allocation, so cudaPointerGetAttributes still says pinned host).
 *   - Bounded like the CPU's block cache (src/base/blockcache.c): at most
 *     PIN_SLOTS blocks and PIN_MAX_BYTES per thread, and cached plus live
 *     tensor bytes stay within --max-bytes: a block is kept only if the
 *     cache then holds at most the limit less what the ledger charges, and
 *     a fresh allocation first drops what no longer fits. Oldest go first.
 *   - Freed with cudaFreeHost when the thread ends (a pthread key) and at
 *     exit (the main thread's cache). Every transfer that reads or writes a
 *     pinned block synchronises its stream before returning (cu_h2d,
 *     cu_d2h), so a block freed and taken again has no copy in flight.
 */
#define PIN_HDR 64
#define PIN_MIN ((size_t)4 << 10)
#define PIN_SLOTS 8
#define PIN_MAX_BYTES ((size_t)256 << 20)

typedef struct pin_slot {
    void *base;
    size_t cap;
} pin_slot;

static __thread pin_slot pin_slots[PIN_SLOTS];
static __thread int pin_n;
static __thread size_t pin_bytes;
static __thread bool pin_armed;
static pthread_key_t pin_key;
static pthread_once_t pin_once = PTHREAD_ONCE_INIT;
static bool pin_key_ok;

/* the bin capacity for n bytes; 0 past what size_t can round */
static size_t pin_cap(size_t n)
{
    if (n < PIN_MIN)
        n = PIN_MIN;
    if (n > SIZE_MAX / 2)
        return 0;
    int k = 63 - __builtin_clzll((unsigned long long)n); /* 2^k <= n */
    size_t step = (size_t)1 << (k - 2);
    return (n + step - 1) / step * step;
}

static void pin_drop(int i)
{
    void *base = pin_slots[i].base;
    pin_bytes -= pin_slots[i].cap;
    for (int j = i + 1; j < pin_n; j++)
        pin_slots[j - 1] = pin_slots[j];
    pin_n--;
    if (cudaFreeHost(base) != cudaSuccess)
        (void)cudaGetLastError();
}

static void pin_trim(size_t room)
{
    while (pin_n > 0 && pin_bytes > room)
        pin_drop(0);
}

static void pin_release_at_thread_end(void *unused)
{
    (void)unused;
    pin_trim(0);
    pin_armed = false;
}

static void pin_release_at_exit(void)
{
    pin_trim(0);
}

static void pin_init(void)
{
    pin_key_ok = pthread_key_create(&pin_key, pin_release_at_thread_end) == 0;
    if (pin_key_ok)
        atexit(pin_release_at_exit);
}

/* the bytes the cache may hold beside `more` fresh bytes: --max-bytes less
 * what the ledger charges, at most PIN_MAX_BYTES */
static size_t pin_room(size_t more)
{
    size_t limit = tl_context_get()->ledger_limit;
    size_t used = tl_context_ledger_charged();
    size_t room = used < limit && limit - used > more ? limit - used - more : 0;
    return room < PIN_MAX_BYTES ? room : PIN_MAX_BYTES;
}

static void *cu_host_alloc(size_t n)
{
    size_t cap = pin_cap(n);
    if (cap == 0 || cap > SIZE_MAX - PIN_HDR)
        return NULL;
    void *base = NULL;
    for (int i = pin_n - 1; i >= 0; i--) {
        if (pin_slots[i].cap == cap) {
            base = pin_slots[i].base;
            pin_bytes -= cap;
            for (int j = i + 1; j < pin_n; j++)
                pin_slots[j - 1] = pin_slots[j];
            pin_n--;
            break;
        }
    }
    if (!base) {
        pin_trim(pin_room(cap));
        if (cudaHostAlloc(&base, cap + PIN_HDR, cudaHostAllocDefault) != cudaSuccess) {
            (void)cudaGetLastError();
            /* drop the whole cache and try once more */
            pin_trim(0);
            base = NULL;
            if (cudaHostAlloc(&base, cap + PIN_HDR, cudaHostAllocDefault) != cudaSuccess) {
                (void)cudaGetLastError();
                return NULL;
            }
        }
        memcpy(base, &cap, sizeof cap);
    }
    char *p = (char *)base + PIN_HDR;
    memset(p, 0, n ? n : 1);
    return p;
}

static void cu_host_free(void *p)
{
    if (!p)
        return;
    void *base = (char *)p - PIN_HDR;
    size_t cap;
    memcpy(&cap, base, sizeof cap);
    size_t room = pin_room(0);
    if (cap <= room) {
        pthread_once(&pin_once, pin_init);
        if (!pin_armed && pin_key_ok)
            pin_armed = pthread_setspecific(pin_key, (void *)1) == 0;
        if (pin_armed) {
            if (pin_n == PIN_SLOTS)
                pin_drop(0);
            pin_trim(room - cap);
            pin_slots[pin_n].base = base;
            pin_slots[pin_n].cap = cap;
            pin_n++;
            pin_bytes += cap;
            return;
        }
    }
    if (cudaFreeHost(base) != cudaSuccess)
        (void)cudaGetLastError();
}

static const char *cu_errname(int status)
{
    static __thread char buf[200];
    if (status == TL_DEV_OOM)
        return "out of memory";
    snprintf(buf, sizeof buf, "%s: %s", cudaGetErrorName((cudaError_t)status),
             cudaGetErrorString((cudaError_t)status));
    return buf;
}

static int cu_ptr_kind(const void *p)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    if (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged)
        return 1;
    if (a.type == cudaMemoryTypeHost)
        return 2;
    return 0;
}

static const tl_dev cuda_dev = {
    "cuda", cu_probe, cu_malloc, cu_free, cu_h2d, cu_d2h, cu_d2d, cu_memset0,
    cu_launch, cu_sync, cu_host_alloc, cu_host_free, cu_errname, cu_ptr_kind,
};

extern "C" const tl_dev *tl_dev_cuda(void)
{
    return &cuda_dev;
}
