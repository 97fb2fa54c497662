/* dev_sim.c - the host grid simulator: the device API of dev.h on host
 * memory, so the CUDA backend's host side and its kernel bodies (kernels.h)
 * run, and are checked, on every machine without a GPU.
 *
 * Invariants:
 *   - Device addresses are malloc'd host blocks with bit 47 set (x86-64
 *     user addresses are below 2^47, so the tagged address is non-canonical):
 *     any host code that dereferences one faults at once, in plain runs and
 *     under ASan. Only this file strips the tag, right before a kernel body
 *     or a copy touches the bytes. Each block has a header holding its size
 *     and a magic word, so a copy outside a block or a free of a non-block
 *     is caught (status 700, cudaErrorIllegalAddress) instead of corrupting.
 *   - A launch runs the grid's blocks in a shuffled order, and each block's
 *     threads in a shuffled order, each thread calling tl_k_run() once with
 *     its own tl_kgrid: exactly what the __global__ wrappers do on a GPU.
 *     The default grid (64 threads, at most 8 blocks) is small so the
 *     grid-stride loop really loops.
 *   - Every launch counts the writes to each output element (tl_kdesc
 *     .visits) and fails with TL_DEV_ECHECK unless each was written exactly
 *     once: a wrong grid stride or thread index shows here even when the
 *     values come out right.
 *   - The simulated device has a capacity (default: unlimited) so tests can
 *     provoke "CUDA out of memory"; tl_dev_sim_inject (or the environment's
 *     TLAB_SIM_FAULT=N:STATUS for the Nth launch) makes a launch fail with a
 *     chosen status (sticky-error tests).
 *   - Launches poll the op's deadline (TL_DEV_ETIMEOUT) about every
 *     SERIAL_SLICE units of work: a serial launch between slices of items,
 *     a grid launch inside each thread's grid-stride loop, which is run in
 *     slices of whole strides (d.first, d.n), so every thread still takes
 *     exactly its own items. A unit is one item, or what an item costs: a
 *     sort item ranks its element against the whole row (len), a reduce
 *     item folds one chunk (clen). Only the strip copy of an overlapping
 *     dense copy (serial 2, one memmove pass, bounded by --max-bytes) runs
 *     unpolled.
 */
#include "dev_sim.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_gpu.h"
#include "context.h"

/* the tag: an address bit no host pointer has (x86-64 user space is below
 * 2^47; a wasm32 memory is capped below 2^31 by wasm/build.sh) */
#define TAG ((uintptr_t)1 << (UINTPTR_MAX > 0xFFFFFFFFu ? 47 : 31))
#define MAGIC 0x7464657673696dULL /* "tdevsim" */

typedef struct blk_hdr {
    uint64_t magic;
    uint64_t size;
} blk_hdr;

static int64_t cfg_block = 64;
static int64_t cfg_max_blocks = 8;
static uint64_t cfg_seed = 0x9e3779b97f4a7c15ULL;
static atomic_size_t capacity = SIZE_MAX;
static atomic_size_t live;
static atomic_int inject;

void tl_dev_sim_configure(int64_t block, int64_t max_blocks, uint64_t seed)
{
    if (block > 0)
        cfg_block = block;
    if (max_blocks > 0)
        cfg_max_blocks = max_blocks;
    cfg_seed = seed ? seed : cfg_seed;
}

void tl_dev_sim_set_capacity(size_t bytes)
{
    atomic_store(&capacity, bytes ? bytes : SIZE_MAX);
}

size_t tl_dev_sim_live(void)
{
    return atomic_load(&live);
}

void tl_dev_sim_inject(int status)
{
    atomic_store(&inject, status);
}

int tl_dev_sim_is_device(const void *p)
{
    return p && ((uintptr_t)p & TAG) != 0;
}

static void *untag(const void *p)
{
    return p ? (void *)((uintptr_t)p & ~TAG) : NULL;
}

/* ---- memory ---- */

/* Device blocks: one allocation = header + bytes; the address handed out
 * is the first byte after the header, tagged. A range check needs the
 * block, so allocations are also kept in a small registry. */
typedef struct reg_ent {
    uintptr_t lo, hi; /* untagged [lo, hi) */
} reg_ent;

static reg_ent *reg;
static size_t reg_n, reg_cap;
static atomic_flag reg_lock = ATOMIC_FLAG_INIT;

static void lock(void)
{
    while (atomic_flag_test_and_set_explicit(&reg_lock, memory_order_acquire))
        ;
}

static void unlock(void)
{
    atomic_flag_clear_explicit(&reg_lock, memory_order_release);
}

static int reg_add(uintptr_t lo, uintptr_t hi)
{
    lock();
    if (reg_n == reg_cap) {
        size_t nc = reg_cap ? reg_cap * 2 : 256;
        reg_ent *r = realloc(reg, nc * sizeof *r);
        if (!r) {
            unlock();
            return -1;
        }
        reg = r;
        reg_cap = nc;
    }
    reg[reg_n].lo = lo;
    reg[reg_n].hi = hi;
    reg_n++;
    unlock();
    return 0;
}

static void reg_del(uintptr_t lo)
{
    lock();
    for (size_t i = reg_n; i-- > 0;) {
        if (reg[i].lo == lo) {
            reg[i] = reg[--reg_n];
            break;
        }
    }
    unlock();
}

/* Is the untagged range [p, p+n) inside one live block? */
static int reg_has(uintptr_t p, size_t n)
{
    int ok = 0;
    lock();
    for (size_t i = 0; i < reg_n && !ok; i++)
        ok = p >= reg[i].lo && n <= reg[i].hi - reg[i].lo && p - reg[i].lo <= reg[i].hi - reg[i].lo - n;
    unlock();
    return ok;
}

static int sim_malloc(void **out, size_t n)
{
    *out = NULL;
    size_t cap = atomic_load(&capacity);
    /* TLAB_SIM_CAPACITY=BYTES (tests/gpu/run.sh --emulated's out-of-memory
     * check): a device of that size, unless a test set one */
    const char *envcap = getenv("TLAB_SIM_CAPACITY");
    if (cap == SIZE_MAX && envcap && *envcap)
        cap = (size_t)strtoull(envcap, NULL, 10);
    size_t now = atomic_fetch_add(&live, n);
    if (now > cap || n > cap - now || n > SIZE_MAX - sizeof(blk_hdr) - 16) {
        atomic_fetch_sub(&live, n);
        return TL_DEV_OOM;
    }
    blk_hdr *h = malloc(sizeof *h + (n ? n : 1));
    if (!h) {
        atomic_fetch_sub(&live, n);
        return TL_DEV_OOM;
    }
    memset(h, 0, sizeof *h);
    /* cudaMallocAsync memory is uninitialised: poison it, so code that
     * reads scratch before writing it differs from the CPU here too */
    memset(h + 1, TL_DEV_SIM_POISON, n ? n : 1);
    h->magic = MAGIC;
    h->size = n;
    uintptr_t lo = (uintptr_t)(h + 1);
    if ((lo & TAG) || reg_add(lo, lo + n) < 0) {
        free(h);
        atomic_fetch_sub(&live, n);
        return TL_DEV_OOM;
    }
    *out = (void *)(lo | TAG);
    return 0;
}

static void sim_free(void *p)
{
    if (!p)
        return;
    blk_hdr *h = (blk_hdr *)untag(p) - 1;
    if (!tl_dev_sim_is_device(p) || h->magic != MAGIC)
        abort(); /* freeing what this device never handed out */
    reg_del((uintptr_t)(h + 1));
    atomic_fetch_sub(&live, (size_t)h->size);
    h->magic = 0;
    free(h);
}

/* a device range must be tagged and inside a live block */
static int dev_range(const void *p, size_t n)
{
    if (n == 0)
        return 1;
    return tl_dev_sim_is_device(p) && reg_has((uintptr_t)untag(p), n);
}

#define EILLEGAL 700 /* cudaErrorIllegalAddress */

static int sim_h2d(void *dst, const void *src, size_t n)
{
    if (!dev_range(dst, n) || (n && tl_dev_sim_is_device(src)))
        return EILLEGAL;
    if (n)
        memcpy(untag(dst), src, n);
    return 0;
}

static int sim_d2h(void *dst, const void *src, size_t n)
{
    if (!dev_range(src, n) || (n && tl_dev_sim_is_device(dst)))
        return EILLEGAL;
    if (n)
        memcpy(dst, untag(src), n);
    return 0;
}

static int sim_d2d(void *dst, const void *src, size_t n)
{
    if (!dev_range(dst, n) || !dev_range(src, n))
        return EILLEGAL;
    /* cudaMemcpy's ranges must not overlap (undefined on a GPU) */
    uintptr_t a = (uintptr_t)untag(dst), b = (uintptr_t)untag(src);
    if (n && a < b + n && b < a + n)
        return TL_DEV_EOVERLAP;
    if (n)
        memcpy(untag(dst), untag(src), n);
    return 0;
}

static int sim_memset0(void *dst, size_t n)
{
    if (!dev_range(dst, n))
        return EILLEGAL;
    if (n)
        memset(untag(dst), 0, n);
    return 0;
}

/* ---- launches ---- */

static uint64_t rng_next(uint64_t *s)
{
    /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void shuffle(int64_t *a, int64_t n, uint64_t *s)
{
    for (int64_t i = 0; i < n; i++)
        a[i] = i;
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)(rng_next(s) % (uint64_t)(i + 1));
        int64_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* How many output elements a launch writes (what visits counts); after
 * tl_k_prepare, so a specialised loop's items may cover several. */
static int64_t outputs_of(tl_kkind kind, const tl_kdesc *d)
{
    if (d->spec == TL_KSPEC_VEC || d->spec == TL_KSPEC_TILE)
        return d->nelem;
    if (kind == TL_K_SORT)
        return d->len > 0 ? d->n / d->len * d->k : 0;
    return d->n;
}

static _Thread_local uint64_t launch_count;

/* a launch runs this many units of work between deadline polls */
#define SERIAL_SLICE 65536

/* the work of one item of a launch, in units (see the header) */
static int64_t item_cost(tl_kkind kind, const tl_kdesc *d)
{
    if (kind == TL_K_SORT && d->len > 1)
        return d->len;
    if (kind == TL_K_SCAN && d->k > d->width)
        return d->k - d->width;
    if (kind == TL_K_REDUCE && d->clen > 1)
        return d->clen;
    return 1;
}

/* TLAB_SIM_FAULT=N:STATUS (tests): the Nth launch of the process fails
 * with STATUS, e.g. 3:700, as a GPU's illegal address would. */
static atomic_long launches_seen;

static int env_fault(void)
{
    const char *f = getenv("TLAB_SIM_FAULT");
    if (!f)
        return 0;
    long n = 0;
    int status = 0;
    if (sscanf(f, "%ld:%d", &n, &status) != 2 || n <= 0)
        return 0;
    return atomic_fetch_add(&launches_seen, 1) + 1 == n ? status : 0;
}

/* The race check: a launch that is not serial runs its items on many
 * threads at once, so no two items may write one byte of the output
 * (operand 0; its offsets through tl_k_offsets, gather/scatter targets
 * included). A real GPU would race there silently; the simulator, which
 * runs items one at a time, would hide it. Returns TL_DEV_ERACE, or
 * TL_DEV_OOM when the bitmap cannot be had. */
static int race_check(tl_kkind kind, const tl_kdesc *d)
{
    if (d->serial || d->n <= 1 ||
        !(kind == TL_K_COPY || kind == TL_K_FILL || kind == TL_K_BINARY ||
          kind == TL_K_UNARY || kind == TL_K_WHERE || kind == TL_K_GATHER ||
          kind == TL_K_SCATTER || kind == TL_K_SCATTER_FOLD))
        return 0;
    /* an affine layout whose sorted strides each reach past the smaller
     * ones maps no two items to one byte: nothing to walk */
    if (d->gdim < 0 && !tl_gpu_self_overlaps(d))
        return 0;
    int64_t isz = (int64_t)tl_k_size(d->dtype[0]);
    int64_t off[TL_K_MAXOPS], lo = INT64_MAX, hi = INT64_MIN;
    for (int64_t i = 0; i < d->n; i++) {
        if ((i & 65535) == 65535 && tl_context_deadline_passed())
            return TL_DEV_ETIMEOUT;
        tl_k_offsets(d, i, off);
        if (off[0] < lo)
            lo = off[0];
        if (off[0] > hi)
            hi = off[0];
    }
    uint64_t span = (uint64_t)(hi - lo) + (uint64_t)isz;
    uint8_t *bits = calloc((size_t)(span / 8 + 1), 1);
    if (!bits)
        return TL_DEV_OOM;
    int rc = 0;
    for (int64_t i = 0; i < d->n && rc == 0; i++) {
        if ((i & 65535) == 65535 && tl_context_deadline_passed()) {
            rc = TL_DEV_ETIMEOUT;
            break;
        }
        int64_t j = tl_k_offsets(d, i, off);
        /* a fold item writes only where its sorted target starts a run */
        if (kind == TL_K_SCATTER_FOLD && j > 0 && d->goffs[j - 1] == d->goffs[j])
            continue;
        for (int64_t b = 0; b < isz; b++) {
            uint64_t at = (uint64_t)(off[0] - lo) + (uint64_t)b;
            uint8_t m = (uint8_t)(1u << (at % 8));
            if (bits[at / 8] & m) {
                rc = TL_DEV_ERACE;
                break;
            }
            bits[at / 8] |= m;
        }
    }
    free(bits);
    return rc;
}

/* Every pointer a launch gets must be a live device block, and an
 * elementwise operand's whole byte range must lie inside one: a host
 * pointer or an out-of-bounds descriptor faults on a GPU (700), or under
 * HMM silently reads host memory. */
static int pointers_check(tl_kkind kind, const tl_kdesc *d)
{
    bool whole = kind == TL_K_COPY || kind == TL_K_FILL || kind == TL_K_BINARY ||
                 kind == TL_K_UNARY || kind == TL_K_WHERE;
    for (int k = 0; k < d->nops && k < TL_K_MAXOPS; k++) {
        int64_t a = 0, b = 0;
        for (int i = 0; whole && i < d->ndim; i++) {
            int64_t ext = (d->sizes[i] - 1) * d->strides[k][i];
            if (ext < 0)
                a += ext;
            else
                b += ext;
        }
        size_t len = (size_t)(b - a) + (size_t)tl_k_size(d->dtype[k]);
        /* other kinds may not touch an operand at all (a reduction of
         * nothing): its pointer must still be a device address */
        if (whole ? !dev_range(d->ptr[k] + a, len)
                  : d->ptr[k] && !tl_dev_sim_is_device(d->ptr[k]))
            return EILLEGAL;
    }
    const void *aux[] = {d->goffs, d->partials, d->sstart, d->spos, d->flag, d->sbuf[0], d->sbuf[1]};
    for (size_t j = 0; j < sizeof aux / sizeof aux[0]; j++)
        if (aux[j] && !dev_range(aux[j], 1))
            return EILLEGAL;
    return 0;
}

/* launches per specialised loop, and (last) with divisors */
#define NSPEC (TL_KSPEC_LAST + 1)
static atomic_llong spec_launches[NSPEC + 1];

int64_t tl_dev_sim_launches(int spec)
{
    if (spec == TL_DEV_SIM_FASTDIV)
        return (int64_t)atomic_load(&spec_launches[NSPEC]);
    return spec >= 0 && spec < NSPEC ? (int64_t)atomic_load(&spec_launches[spec]) : 0;
}

static int sim_launch(tl_kkind kind, const tl_kdesc *desc)
{
    int inj = atomic_exchange(&inject, 0);
    if (!inj)
        inj = env_fault();
    if (inj)
        return inj;
    if (desc->n <= 0)
        return 0;
    int bad = pointers_check(kind, desc);
    if (bad)
        return bad;
    tl_kdesc d = *desc;
    for (int k = 0; k < TL_K_MAXOPS; k++)
        d.ptr[k] = untag(d.ptr[k]);
    d.goffs = untag(d.goffs);
    d.partials = untag(d.partials);
    d.sstart = untag(d.sstart);
    d.spos = untag(d.spos);
    d.flag = untag(d.flag);
    d.sbuf[0] = untag(d.sbuf[0]);
    d.sbuf[1] = untag(d.sbuf[1]);
    int race = race_check(kind, &d);
    if (race)
        return race;
    /* the GPU's loop choice and divisors (cu_launch does the same) */
    tl_k_prepare((int)kind, &d);
    atomic_fetch_add(&spec_launches[d.spec], 1);
    if (d.fastdiv)
        atomic_fetch_add(&spec_launches[NSPEC], 1);
    int64_t nout = outputs_of(kind, &d);
    /* one byte an output element: the check costs at most the ledger's
     * size again for the largest (bool) tensors */
    uint8_t *visits = calloc((size_t)(nout > 0 ? nout : 1), sizeof *visits);
    int64_t bdim = cfg_block;
    int64_t nblk = (d.n + bdim - 1) / bdim;
    int64_t gdim = nblk < cfg_max_blocks ? nblk : cfg_max_blocks;
    if (d.serial)
        bdim = gdim = 1;
    int64_t *border = malloc((size_t)gdim * sizeof *border);
    int64_t *torder = malloc((size_t)cfg_block * sizeof *torder);
    if (!visits || !border || !torder) {
        free(visits);
        free(border);
        free(torder);
        return TL_DEV_OOM;
    }
    d.visits = visits;
    uint64_t s = cfg_seed ^ (++launch_count * 0xd1b54a32d192ed03ULL);
    shuffle(border, gdim, &s);
    int rc = 0;
    if (d.serial == 1) {
        /* one thread, items in order: in slices, polling the deadline */
        tl_kgrid g = {0, 0, 1, 1};
        int64_t n = d.n;
        for (int64_t lo = 0; lo < n && rc == 0; lo += SERIAL_SLICE) {
            d.first = lo;
            d.n = n - lo < SERIAL_SLICE ? n : lo + SERIAL_SLICE;
            tl_k_run((int)kind, &d, g);
            if (tl_context_deadline_passed())
                rc = TL_DEV_ETIMEOUT;
        }
        gdim = 0; /* done */
    }
    /* each thread's grid-stride loop in slices of `per` strides; the
     * kernels' 32-bit index arithmetic needs d.n to bound every size, so a
     * launch of 2^31 items or more runs unsliced (polled per thread) */
    int64_t n = d.n, stride = bdim * gdim;
    int64_t cost = item_cost(kind, &d);
    int64_t per = SERIAL_SLICE / cost > 0 ? SERIAL_SLICE / cost : 1;
    bool sliced = d.serial != 2 && n <= 2147483647 && stride > 0;
    int64_t work = 0; /* units since the last poll */
    for (int64_t b = 0; b < gdim && rc == 0; b++) {
        shuffle(torder, bdim, &s);
        tl_kgrid g;
        g.block = border[b];
        g.bdim = bdim;
        g.gdim = gdim;
        for (int64_t t = 0; t < bdim && rc == 0; t++) {
            g.thread = torder[t];
            if (!sliced) {
                tl_k_run((int)kind, &d, g);
                work += SERIAL_SLICE;
            } else {
                for (int64_t lo = 0; lo < n && rc == 0; lo += per * stride) {
                    d.first = lo;
                    d.n = n - lo <= per * stride ? n : lo + per * stride;
                    tl_k_run((int)kind, &d, g);
                    work += (d.n - lo + stride - 1) / stride * cost;
                    if (work >= SERIAL_SLICE) {
                        work = 0;
                        if (tl_context_deadline_passed())
                            rc = TL_DEV_ETIMEOUT;
                    }
                }
                d.first = 0;
                d.n = n;
            }
            if (work >= SERIAL_SLICE) {
                work = 0;
                if (tl_context_deadline_passed())
                    rc = TL_DEV_ETIMEOUT;
            }
        }
    }
    if (rc == 0 && tl_context_deadline_passed())
        rc = TL_DEV_ETIMEOUT;
    for (int64_t i = 0; i < nout && rc == 0; i++)
        if (visits[i] != 1)
            rc = TL_DEV_ECHECK;
    free(visits);
    free(border);
    free(torder);
    return rc;
}

static int sim_sync(void)
{
    return 0;
}

static int sim_probe(char *why, size_t cap)
{
    (void)why;
    (void)cap;
    return 0;
}

static void *sim_host_alloc(size_t n)
{
    return calloc(1, n ? n : 1);
}

static void sim_host_free(void *p)
{
    free(p);
}

static const char *sim_errname(int status)
{
    switch (status) {
    case 0: return "cudaSuccess: no error";
    case TL_DEV_OOM: return "cudaErrorMemoryAllocation: out of memory";
    case EILLEGAL: return "cudaErrorIllegalAddress: an illegal memory access was encountered";
    case 719: return "cudaErrorLaunchFailure: unspecified launch failure";
    case TL_DEV_ECHECK: return "simulator: an output element was not written exactly once";
    case TL_DEV_ETIMEOUT: return "simulator: the op's time limit passed";
    case TL_DEV_EOVERLAP: return "simulator: a device-to-device copy between overlapping ranges (undefined on a GPU)";
    case TL_DEV_ERACE: return "simulator: a parallel launch writes one output byte from two work items (a race on a GPU)";
    default: return "simulated device error";
    }
}

static int sim_ptr_kind(const void *p)
{
    return tl_dev_sim_is_device(p) ? 1 : 0;
}

static const tl_dev sim_dev = {
    "sim", sim_probe, sim_malloc, sim_free, sim_h2d, sim_d2h, sim_d2d,
    sim_memset0, sim_launch, sim_sync, sim_host_alloc, sim_host_free,
    sim_errname, sim_ptr_kind,
};

const tl_dev *tl_dev_sim(void)
{
    return &sim_dev;
}
