/* check_cuda.c - the CUDA device's semantics (SPEC 8) and the CUDA
 * backend's device probe (tl_backend_cuda_probe, cuda/backend_cuda.cu).
 *
 * Suite "device" runs everywhere, on the emulated device (the GPU backend
 * on the host grid simulator), and again on the GPU when one is usable:
 *   - copies on the device move no tensor data through the host: after
 *     x.t().contiguous(), clone, arithmetic, cat, reductions and sort the
 *     backend counters show no byte crossing (a Python scalar: 8); after
 *     indexing and index assignment only index metadata (x is 16 KiB);
 *   - .cpu(), .cuda() and item() are counted transfers;
 *   - data_ptr() is a device address (the simulator's tagged addresses, or
 *     cudaPointerGetAttributes' device memory);
 *   - dtype errors name the device's kernels ("bitwise_and_cuda");
 *   - (simulator only) device out of memory is PyTorch's "CUDA out of
 *     memory. Tried to allocate ..."; a sticky device error (700) is an
 *     internal error and every later call fails fast; --max-bytes (the
 *     ledger) counts device bytes.
 * Suite "cuda" (a GPU only) checks the probe: the device
 * count is stable, that the probe's line agrees with it, and that hiding
 * the GPUs (CUDA_VISIBLE_DEVICES="", cudaErrorNoDevice) or showing only the
 * count is stable, that the probe's line agrees with it, and that hiding
 * the GPUs (CUDA_VISIBLE_DEVICES="", cudaErrorNoDevice) or showing only the
 * first one is seen by a fresh process as 0 or 1 devices, never as a failure.
 * The fresh processes are this program re-executed with --print-count.
 *
 * CK_NOFORK: the CUDA runtime must not be used across fork(); timeouts are
 * long because the first CUDA call initialises the driver (seconds).
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend.h"
#include "backend_gpu.h"
#include "context.h"
#include "dev_sim.h"
#include "interp.h"
#include "value.h"

/* the runtime's probe (backend.h), split in its two answers */
static int tl_cuda_device_count(void)
{
    return tl_backend_cuda_probe(NULL);
}

static const char *tl_cuda_describe(void)
{
    const char *why;
    (void)tl_backend_cuda_probe(&why);
    return why;
}

/* Runs this program with --print-count and CUDA_VISIBLE_DEVICES=visible
 * (NULL: the environment as it is) in a fresh process; returns the device
 * count it printed and copies its description line into desc. */
static int child_probe(const char *mode, const char *visible, char *desc, size_t desc_size);

static int count_in_child(const char *visible, char *desc, size_t desc_size)
{
    return child_probe("--print-count", visible, desc, desc_size);
}

/* the same, running this program with `mode` */
static int child_probe(const char *mode, const char *visible, char *desc, size_t desc_size)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        /* Only exec here: the parent's CUDA state is not usable after fork. */
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        if (visible)
            setenv("CUDA_VISIBLE_DEVICES", visible, 1);
        execl("/proc/self/exe", "check_cuda", mode, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char out[512] = {0};
    size_t len = 0;
    ssize_t n;
    while (len + 1 < sizeof out && (n = read(fds[0], out + len, sizeof out - 1 - len)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        len += (size_t)n;
    }
    close(fds[0]);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "child with CUDA_VISIBLE_DEVICES='%s' failed (status %d)",
                  visible ? visible : "(inherited)", status);
    char *nl = strchr(out, '\n');
    ck_assert_msg(nl != NULL, "child printed no count: '%s'", out);
    *nl = '\0';
    int count = atoi(out);
    snprintf(desc, desc_size, "%s", nl + 1);
    char *end = strchr(desc, '\n');
    if (end)
        *end = '\0';
    return count;
}

/* ---- core: the count and the description agree */

START_TEST(test_count_stable)
{
    int n = tl_cuda_device_count();
    ck_assert_int_gt(n, 0);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(tl_cuda_device_count(), n);
}
END_TEST

START_TEST(test_describe_matches_count)
{
    int n = tl_cuda_device_count();
    char want[64];
    snprintf(want, sizeof want, "built, %d device%s (", n, n == 1 ? "" : "s");
    const char *d = tl_cuda_describe();
    ck_assert_ptr_nonnull(d);
    ck_assert_msg(strncmp(d, want, strlen(want)) == 0, "describe '%s' does not start with '%s'", d,
                  want);
    ck_assert_msg(strstr(d, "sm_") != NULL, "describe '%s' names no compute capability", d);
    ck_assert_str_eq(tl_cuda_describe(), d); /* stable */
}
END_TEST

START_TEST(test_fresh_process_agrees)
{
    char desc[256];
    ck_assert_int_eq(count_in_child(NULL, desc, sizeof desc), tl_cuda_device_count());
    ck_assert_str_eq(desc, tl_cuda_describe());
}
END_TEST

/* ---- limits: hiding devices */

START_TEST(test_first_device_only)
{
    char desc[256];
    ck_assert_int_eq(count_in_child("0", desc, sizeof desc), 1);
    ck_assert_msg(strncmp(desc, "built, 1 device (", 17) == 0, "describe '%s'", desc);
}
END_TEST

/* ---- errors: "no GPU" answers of the runtime are not failures */

START_TEST(test_hidden_devices_are_no_device)
{
    char desc[256];
    ck_assert_int_eq(count_in_child("", desc, sizeof desc), 0);
    ck_assert_str_eq(desc, "built, no device");
}
END_TEST

START_TEST(test_bad_ordinal_is_no_device)
{
    char desc[256];
    /* An ordinal past the last device hides them all, like "". */
    ck_assert_int_eq(count_in_child("4096", desc, sizeof desc), 0);
    ck_assert_str_eq(desc, "built, no device");
}
END_TEST

/* ---- device: semantics on the emulated device and on a GPU */

static const tl_backend *dev_be; /* the device under test */
static bool on_sim;

static tl_interp *dev_interp(const char *setup)
{
    tl_interp_opts opts;
    tl_interp_opts_default(&opts);
    opts.default_backend = dev_be;
    opts.cuda_backend = dev_be;
    opts.cuda_available = true;
    opts.timeout = 20;
    tl_interp *I = tl_interp_new(&opts);
    tl_source src;
    memset(&src, 0, sizeof src);
    src.text = setup;
    src.len = strlen(setup);
    src.file = "<setup>";
    src.line = src.col = 1;
    tl_error err;
    memset(&err, 0, sizeof err);
    ck_assert_msg(tl_interp_exec(I, &src, &err) == 0, "setup failed: %s", err.msg);
    return I;
}

static tl_value *dev_eval(tl_interp *I, const char *expr, tl_error *err)
{
    tl_source src;
    memset(&src, 0, sizeof src);
    src.text = expr;
    src.len = strlen(expr);
    src.file = "<expr>";
    src.line = src.col = 1;
    memset(err, 0, sizeof *err);
    return tl_interp_eval(I, &src, err);
}

#define DEV_SETUP                                                              \
    "import torch\n"                                                           \
    "x = torch.arange(4096.).reshape(64, 64)\n"                                \
    "i = torch.tensor([3, 1, 3])\n"                                            \
    "m = x > 2000\n"

START_TEST(test_no_host_bytes)
{
    static const struct {
        const char *expr;
        uint64_t max_host; /* bytes that may cross: index values, a scalar */
    } cases[] = {
        {"x.t().contiguous()", 0},
        {"x.clone()", 0},
        {"x + x", 0},
        {"x * x - x", 0},
        {"x * 2", 8},
        {"torch.cat([x, x])", 0},
        {"torch.stack([x, x], 1)", 0},
        {"x[1:, ::2].contiguous()", 0},
        {"x.to(torch.float16)", 0},
        {"x.sum(0)", 0},
        {"x.max(1)", 0},
        {"x.argmax()", 0},
        {"x.sort(1, descending=True)", 0},
        {"torch.where(x > 100, x, -x)", 8},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tl_interp *I = dev_interp(DEV_SETUP);
        tl_backend_counters_reset();
        tl_error err;
        tl_value *v = dev_eval(I, cases[c].expr, &err);
        ck_assert_msg(v != NULL, "%s: %s", cases[c].expr, err.msg);
        tl_backend_counters k = tl_backend_counters_get(TL_DEV_CUDA);
        ck_assert_msg(k.h2d_bytes + k.d2h_bytes <= cases[c].max_host,
                      "%s moved %llu bytes up and %llu down through the host", cases[c].expr,
                      (unsigned long long)k.h2d_bytes, (unsigned long long)k.d2h_bytes);
        ck_assert_msg(k.launches > 0, "%s launched no kernel", cases[c].expr);
        tl_value_release(v);
        tl_interp_free(I);
    }
}
END_TEST

/* Advanced indexing reads the index tensor for its values (as PyTorch
 * does) and hands the backend one int64 offset per element it reads or
 * writes (index.c); a scatter uploads its de-duplicated targets with them
 * (backend_gpu.c): what crosses is index metadata, never the tensor's
 * data. Bounds: down at most the index values (or a bool mask), up at most
 * 24 bytes per element touched plus a scalar. */
START_TEST(test_indexing_moves_no_data)
{
    static const struct {
        const char *stmt;
        uint64_t touched, down;
    } cases[] = {
        {"x[i]", 3 * 64, 24},
        {"x[:, i]", 3 * 64, 24},
        {"x.index_select(1, i)", 3 * 64, 24},
        {"x[i] = 5.0\nx", 3 * 64, 24},
        {"x[i] += 1\nx", 2 * 3 * 64, 48},
        {"x[m] = 0\nx", 4096, 4096 + 64},
        {"x[1:3] = x[5:7]\nx", 0, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tl_interp *I = dev_interp(DEV_SETUP);
        tl_backend_counters_reset();
        tl_error err;
        tl_value *v = dev_eval(I, cases[c].stmt, &err);
        ck_assert_msg(v != NULL, "%s: %s", cases[c].stmt, err.msg);
        tl_backend_counters k = tl_backend_counters_get(TL_DEV_CUDA);
        ck_assert_msg(k.d2h_bytes <= cases[c].down && k.h2d_bytes <= 24 * cases[c].touched + 16,
                      "%s moved %llu bytes up and %llu down through the host", cases[c].stmt,
                      (unsigned long long)k.h2d_bytes, (unsigned long long)k.d2h_bytes);
        ck_assert_msg(k.launches > 0, "%s launched no kernel", cases[c].stmt);
        tl_value_release(v);
        tl_interp_free(I);
    }
}
END_TEST

START_TEST(test_transfers_counted)
{
    tl_interp *I = dev_interp(DEV_SETUP);
    tl_error err;
    tl_backend_counters_reset();
    tl_value *v = dev_eval(I, "x.cpu()", &err);
    ck_assert_msg(v != NULL, "%s", err.msg);
    tl_backend_counters k = tl_backend_counters_get(TL_DEV_CUDA);
    ck_assert_uint_ge(k.d2h_bytes, 4096 * 4);
    tl_value_release(v);
    tl_backend_counters_reset();
    v = dev_eval(I, "torch.ones(8, device='cpu').cuda()", &err);
    ck_assert_msg(v != NULL, "%s", err.msg);
    k = tl_backend_counters_get(TL_DEV_CUDA);
    ck_assert_uint_ge(k.h2d_bytes, 32);
    tl_value_release(v);
    tl_backend_counters_reset();
    v = dev_eval(I, "x[2, 3].item()", &err);
    ck_assert_msg(v != NULL && v->kind == TL_V_FLOAT, "%s", err.msg);
    k = tl_backend_counters_get(TL_DEV_CUDA);
    ck_assert_uint_ge(k.d2h_bytes, 4);
    ck_assert_uint_le(k.d2h_bytes, 64); /* one element, not the tensor */
    tl_value_release(v);
    tl_interp_free(I);
}
END_TEST

/* A dense same-dtype transfer is one copy straight into the destination
 * (review S4): exactly the tensor's bytes cross, and no kernel runs on the
 * device (before: a dense scratch and a copy kernel on each side). Layouts
 * that are not one dense block, and dtype changes, still go through the
 * scratch path; every result is checked against the CPU's values. */
START_TEST(test_dense_transfer_one_copy)
{
    static const struct {
        const char *expr;
        uint64_t h2d, d2h; /* exact bytes; UINT64_MAX: any */
        uint64_t launches; /* exact; UINT64_MAX: at least one */
        const char *check; /* an expression that must be True */
    } cases[] = {
        {"x.cpu()", 0, 4096 * 4, 0, "torch.equal(r, torch.arange(4096.).reshape(64, 64))"},
        {"x.t().cpu()", 0, 4096 * 4, 0, "torch.equal(r, torch.arange(4096.).reshape(64, 64).t())"},
        {"x.to('cpu', copy=True)", 0, 4096 * 4, 0, "r.stride() == (64, 1)"},
        {"c.cuda()", 4096 * 4, 0, 0, "torch.equal(r.cpu(), c)"},
        {"c.pin_memory().cuda()", 4096 * 4, 0, 0, "torch.equal(r.cpu(), c)"},
        {"c[:, ::2].cuda()", UINT64_MAX, 0, UINT64_MAX, "torch.equal(r.cpu(), c[:, ::2])"},
        {"x[::2].cpu()", 0, UINT64_MAX, UINT64_MAX, "torch.equal(r, c[::2])"},
        {"x.to('cpu', torch.float16)", 0, UINT64_MAX, UINT64_MAX, "torch.equal(r, c.half())"},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        tl_interp *I = dev_interp(DEV_SETUP "c = torch.arange(4096., device='cpu').reshape(64, 64)\n");
        tl_backend_counters_reset();
        tl_error err;
        char stmt[200];
        snprintf(stmt, sizeof stmt, "r = %s", cases[t].expr);
        tl_source src;
        memset(&src, 0, sizeof src);
        src.text = stmt;
        src.len = strlen(stmt);
        src.file = "<stmt>";
        src.line = src.col = 1;
        memset(&err, 0, sizeof err);
        ck_assert_msg(tl_interp_exec(I, &src, &err) == 0, "%s: %s", cases[t].expr, err.msg);
        tl_backend_counters k = tl_backend_counters_get(TL_DEV_CUDA);
        if (cases[t].h2d != UINT64_MAX)
            ck_assert_msg(k.h2d_bytes == cases[t].h2d, "%s: %llu bytes up", cases[t].expr,
                          (unsigned long long)k.h2d_bytes);
        if (cases[t].d2h != UINT64_MAX)
            ck_assert_msg(k.d2h_bytes == cases[t].d2h, "%s: %llu bytes down", cases[t].expr,
                          (unsigned long long)k.d2h_bytes);
        if (cases[t].launches != UINT64_MAX)
            ck_assert_msg(k.launches == cases[t].launches, "%s: %llu launches", cases[t].expr,
                          (unsigned long long)k.launches);
        else
            ck_assert_msg(k.launches > 0, "%s: no launch", cases[t].expr);
        tl_value *v = dev_eval(I, cases[t].check, &err);
        ck_assert_msg(v != NULL && v->kind == TL_V_BOOL && v->u.b, "%s: %s is not True (%s)",
                      cases[t].expr, cases[t].check, v ? "" : err.msg);
        tl_value_release(v);
        tl_interp_free(I);
    }
}
END_TEST

/* --print-count-threads: PROBE_THREADS threads make the process's first
 * probe call at once; each must get the whole answer (review E4: the query
 * flagged itself done before it had filled the answer in) */
#define PROBE_THREADS 8
static pthread_barrier_t probe_barrier;
static int probe_count[PROBE_THREADS];
static const char *probe_desc[PROBE_THREADS];

static void *probe_thread(void *arg)
{
    int i = (int)(intptr_t)arg;
    pthread_barrier_wait(&probe_barrier);
    probe_count[i] = tl_backend_cuda_probe(&probe_desc[i]);
    return NULL;
}

static int print_count_threads(void)
{
    pthread_t th[PROBE_THREADS];
    pthread_barrier_init(&probe_barrier, NULL, PROBE_THREADS);
    for (int i = 0; i < PROBE_THREADS; i++)
        if (pthread_create(&th[i], NULL, probe_thread, (void *)(intptr_t)i) != 0)
            return 1;
    for (int i = 0; i < PROBE_THREADS; i++)
        pthread_join(th[i], NULL);
    for (int i = 1; i < PROBE_THREADS; i++)
        if (probe_count[i] != probe_count[0] || !probe_desc[i] || !probe_desc[0] ||
            strcmp(probe_desc[i], probe_desc[0]) != 0 || probe_desc[i][0] == '\0')
            return 1;
    printf("%d\n%s\n", probe_count[0], probe_desc[0]);
    return 0;
}

START_TEST(test_probe_threads_agree)
{
    char one[256], many[256];
    int n1 = count_in_child(NULL, one, sizeof one);
    int n8 = child_probe("--print-count-threads", NULL, many, sizeof many);
    ck_assert_int_eq(n8, n1);
    ck_assert_str_eq(many, one);
}
END_TEST

START_TEST(test_data_ptr_is_device_address)
{
    tl_interp *I = dev_interp(DEV_SETUP);
    tl_error err;
    tl_value *v = dev_eval(I, "x.data_ptr()", &err);
    ck_assert_msg(v != NULL && v->kind == TL_V_INT, "%s", err.msg);
    void *p = (void *)(uintptr_t)v->u.i;
    const tl_dev *dev = tl_gpu_backend_dev(dev_be);
    ck_assert_ptr_nonnull(dev);
    ck_assert_int_eq(dev->ptr_kind(p), 1);
    if (on_sim)
        ck_assert_msg(tl_dev_sim_is_device(p), "data_ptr %p has no device tag", p);
    tl_value_release(v);
    tl_interp_free(I);
}
END_TEST

START_TEST(test_kernel_names_follow_device)
{
    tl_interp *I = dev_interp(DEV_SETUP);
    static const char *const cases[][2] = {
        {"x & 1", "\"bitwise_and_cuda\" not implemented for 'Float'"},
        {"x << 1", "\"lshift_cuda\" not implemented for 'Float'"},
        {"x.bitwise_not()", "\"bitwise_not_cuda\" not implemented for 'Float'"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tl_error err;
        tl_value *v = dev_eval(I, cases[c][0], &err);
        ck_assert_ptr_null(v);
        ck_assert_str_eq(err.msg, cases[c][1]);
    }
    tl_interp_free(I);
}
END_TEST

START_TEST(test_device_oom)
{
    if (!on_sim)
        return;
    tl_interp *I = dev_interp("import torch\n");
    tl_dev_sim_set_capacity(1 << 20);
    tl_error err;
    tl_value *v = dev_eval(I, "torch.zeros(1 << 20)", &err);
    tl_dev_sim_set_capacity(0);
    ck_assert_ptr_null(v);
    ck_assert_int_eq(err.kind, TL_ERR_RUNTIME);
    ck_assert_msg(strncmp(err.msg, "CUDA out of memory. Tried to allocate 4.00 MiB", 46) == 0,
                  "message: %s", err.msg);
    /* the device still works */
    v = dev_eval(I, "torch.zeros(4).sum()", &err);
    ck_assert_msg(v != NULL, "%s", err.msg);
    tl_value_release(v);
    tl_interp_free(I);
}
END_TEST

START_TEST(test_max_bytes_counts_device_bytes)
{
    tl_interp *I = dev_interp("import torch\n");
    tl_alloc_set_limit(64 * 1024);
    tl_error err;
    tl_value *v = dev_eval(I, "torch.zeros(100000)", &err);
    tl_alloc_set_limit(TL_DEFAULT_MAX_BYTES);
    ck_assert_ptr_null(v);
    ck_assert_msg(err.kind == TL_ERR_RUNTIME || err.kind == TL_ERR_LIMIT, "%s", err.msg);
    tl_interp_free(I);
}
END_TEST

/* last of its process (fork mode): the poison is process-wide */
START_TEST(test_sticky_error_fails_fast)
{
    if (!on_sim)
        return;
    tl_interp *I = dev_interp(DEV_SETUP);
    tl_dev_sim_inject(700);
    tl_error err;
    tl_value *v = dev_eval(I, "x + x", &err);
    ck_assert_ptr_null(v);
    ck_assert_int_eq(err.kind, TL_ERR_INTERNAL);
    ck_assert_msg(strstr(err.msg, "illegal memory access") != NULL, "%s", err.msg);
    ck_assert(tl_gpu_poisoned());
    v = dev_eval(I, "x.clone()", &err);
    ck_assert_ptr_null(v);
    ck_assert_int_eq(err.kind, TL_ERR_INTERNAL);
    ck_assert_msg(strstr(err.msg, "failed earlier") != NULL, "%s", err.msg);
    tl_interp_free(I);
}
END_TEST

/* A destination that overlaps itself (two elements on one address) gets
 * the CPU's bytes: its items are written in order, not raced (the review's
 * reproducers A and B; the expected values are torch 1.13's on the CPU). */
START_TEST(test_self_overlap_in_cpu_order)
{
    static const struct {
        const char *stmt, *want;
    } cases[] = {
        {"y.add_(1)", "[1.0, 2.0, 3.0, 2.0, 1.0]"},
        {"y.copy_(torch.arange(9.).reshape(3, 3))", "[0.0, 3.0, 6.0, 7.0, 8.0]"},
        {"y.mul_(2).add_(torch.ones(3, 3))", "[1.0, 2.0, 3.0, 2.0, 1.0]"},
        {"y.fill_(1).mul_(0).add_(torch.arange(9.).reshape(3, 3))", "[0.0, 4.0, 12.0, 12.0, 8.0]"},
        {"y[[0, 2]] = torch.arange(6.).reshape(2, 3)", "[0.0, 1.0, 3.0, 4.0, 5.0]"},
        {"y.index_put_((torch.tensor([0, 1, 2]),), torch.ones(3), accumulate=True)",
         "[1.0, 2.0, 3.0, 2.0, 1.0]"},
        /* past 64 targets index_put_ sorts them and folds each run in
         * parallel: distinct rows of this layout still share bytes */
        {"x = torch.zeros(102)\ny = x.as_strided((100, 3), (1, 1))\n"
         "y[torch.arange(100)] = torch.arange(300.).reshape(100, 3)",
         "[3.0 * i for i in range(100)] + [298.0, 299.0]"},
        {"x = torch.zeros(102)\ny = x.as_strided((100, 3), (1, 1))\n"
         "y[torch.arange(99, -1, -1)] = torch.arange(300.).reshape(100, 3)",
         "[297.0, 298.0] + [299.0 - 3.0 * i for i in range(100)]"},
        {"x = torch.zeros(102)\ny = x.as_strided((100, 3), (1, 1))\n"
         "y.index_put_((torch.arange(100) % 7,), torch.ones(100, 3), accumulate=True)",
         "[15.0, 30.0, 44.0, 43.0, 42.0, 42.0, 42.0, 28.0, 14.0] + [0.0] * 93"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char setup[512];
        snprintf(setup, sizeof setup,
                 "import torch\nx = torch.zeros(5)\ny = x.as_strided((3, 3), (1, 1))\n%s\n",
                 cases[c].stmt);
        tl_interp *I = dev_interp(setup);
        tl_error err;
        tl_value *v;
        char expr[256];
        snprintf(expr, sizeof expr, "x.cpu().tolist() == %s", cases[c].want);
        v = dev_eval(I, expr, &err);
        ck_assert_msg(v != NULL, "%s: %s", expr, err.msg);
        bool same = false;
        ck_assert_int_eq(tl_value_truthy(v, &same, &err), 0);
        tl_value_release(v);
        ck_assert_msg(same, "%s: x is not %s", cases[c].stmt, cases[c].want);
        tl_interp_free(I);
    }
}
END_TEST

/* A float32 copy launch from src to dst (desc_init's defaults); the
 * caller sets the shape and strides. */
static void copy_desc(tl_kdesc *d, void *dst, void *src)
{
    memset(d, 0, sizeof *d);
    d->gdim = -1;
    d->gop = 1;
    d->gscale = 1;
    d->nchunk = 1;
    d->nops = 2;
    d->dtype[0] = d->dtype[1] = TL_FLOAT32;
    d->ptr[0] = dst;
    d->ptr[1] = src;
}

/* The simulator's race check: a parallel launch whose output maps two work
 * items to one address fails with TL_DEV_ERACE (a GPU would race silently);
 * the same launch run serially passes. The backend's own test agrees. */
START_TEST(test_sim_catches_racy_launch)
{
    const tl_dev *sim = tl_dev_sim();
    void *dst = NULL, *src = NULL;
    ck_assert_int_eq(sim->malloc(&dst, 5 * sizeof(float)), 0);
    ck_assert_int_eq(sim->malloc(&src, 9 * sizeof(float)), 0);
    tl_kdesc d;
    copy_desc(&d, dst, src);
    d.n = 9;
    d.ndim = 2;
    d.sizes[0] = d.sizes[1] = 3;
    d.strides[0][0] = d.strides[0][1] = 4; /* as_strided((3, 3), (1, 1)) */
    d.strides[1][0] = 12;
    d.strides[1][1] = 4;
    ck_assert(tl_gpu_self_overlaps(&d));
    ck_assert_int_eq(sim->launch(TL_K_COPY, &d), TL_DEV_ERACE);
    d.serial = 1;
    ck_assert_int_eq(sim->launch(TL_K_COPY, &d), 0);
    /* a layout without overlap passes in parallel */
    d.serial = 0;
    d.n = 4;
    d.sizes[0] = d.sizes[1] = 2;
    d.strides[0][0] = 8; /* (2, 2) over 4 floats, contiguous */
    ck_assert(!tl_gpu_self_overlaps(&d));
    ck_assert_int_eq(sim->launch(TL_K_COPY, &d), 0);
    /* a broadcast destination (stride 0) is an overlap too */
    d.strides[0][0] = 0;
    ck_assert(tl_gpu_self_overlaps(&d));
    ck_assert_int_eq(sim->launch(TL_K_FILL, &d), TL_DEV_ERACE);
    sim->free(dst);
    sim->free(src);
}
END_TEST

/* The simulator's other checks, each shown catching a broken call: a host
 * pointer or an out-of-bounds descriptor in a launch (a GPU faults with
 * 700), new device memory is poisoned (cudaMalloc does not zero), and a
 * device-to-device copy between overlapping ranges is refused. */
START_TEST(test_sim_catches_bad_calls)
{
    const tl_dev *sim = tl_dev_sim();
    void *dst = NULL, *src = NULL;
    float host[8] = {0};
    ck_assert_int_eq(sim->malloc(&dst, 8 * sizeof(float)), 0);
    ck_assert_int_eq(sim->malloc(&src, 8 * sizeof(float)), 0);
    unsigned char raw[8 * sizeof(float)];
    ck_assert_int_eq(sim->d2h(raw, dst, sizeof raw), 0);
    for (size_t i = 0; i < sizeof raw; i++)
        ck_assert_uint_eq(raw[i], TL_DEV_SIM_POISON);
    tl_kdesc d;
    copy_desc(&d, dst, src);
    d.n = 8;
    d.ndim = 1;
    d.sizes[0] = 8;
    d.strides[0][0] = d.strides[1][0] = 4;
    ck_assert_int_eq(sim->launch(TL_K_COPY, &d), 0);
    d.ptr[1] = (char *)host; /* a host pointer */
    ck_assert_int_eq(sim->launch(TL_K_COPY, &d), 700);
    d.ptr[1] = src;
    d.n = d.sizes[0] = 9; /* one element past the block */
    ck_assert_int_eq(sim->launch(TL_K_COPY, &d), 700);
    ck_assert_int_eq(sim->d2d(dst, (char *)dst + 4, 16), TL_DEV_EOVERLAP);
    ck_assert_int_eq(sim->d2d(dst, src, 16), 0);
    sim->free(dst);
    sim->free(src);
}
END_TEST

static Suite *device_suite(void)
{
    Suite *s = suite_create(on_sim ? "device (simulator)" : "device (GPU)");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_no_host_bytes);
    tcase_add_test(tc, test_indexing_moves_no_data);
    tcase_add_test(tc, test_transfers_counted);
    tcase_add_test(tc, test_dense_transfer_one_copy);
    tcase_add_test(tc, test_probe_threads_agree);
    tcase_add_test(tc, test_data_ptr_is_device_address);
    tcase_add_test(tc, test_kernel_names_follow_device);
    tcase_add_test(tc, test_self_overlap_in_cpu_order);
    if (on_sim)
        tcase_add_test(tc, test_sim_catches_racy_launch);
    if (on_sim)
        tcase_add_test(tc, test_sim_catches_bad_calls);
    suite_add_tcase(s, tc);
    tc = tcase_create("limits");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_device_oom);
    tcase_add_test(tc, test_max_bytes_counts_device_bytes);
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_sticky_error_fails_fast);
    suite_add_tcase(s, tc);
    return s;
}

static Suite *tl_cuda_suite(void)
{
    Suite *s = suite_create("cuda");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_count_stable);
    tcase_add_test(tc, test_describe_matches_count);
    tcase_add_test(tc, test_fresh_process_agrees);
    suite_add_tcase(s, tc);

    tc = tcase_create("limits");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_first_device_only);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_hidden_devices_are_no_device);
    tcase_add_test(tc, test_bad_ordinal_is_no_device);
    suite_add_tcase(s, tc);
    return s;
}


int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--print-count") == 0) {
        printf("%d\n%s\n", tl_cuda_device_count(), tl_cuda_describe());
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--print-count-threads") == 0)
        return print_count_threads();
    /* the emulated device, in forked tests (no CUDA state is touched) */
    dev_be = tl_backend_cuda_emulated();
    on_sim = true;
    SRunner *sr = srunner_create(device_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    int n = tl_cuda_device_count();
    if (n == 0) {
        printf("no CUDA device (%s): the GPU suites are skipped\n", tl_cuda_describe());
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
    }
    /* a GPU: the probe suite and the device suite on it, without fork */
    dev_be = tl_backend_cuda();
    on_sim = false;
    sr = srunner_create(tl_cuda_suite());
    srunner_add_suite(sr, device_suite());
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    failed += srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
