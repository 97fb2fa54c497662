/* bench_kernels.c - microbenchmarks of tlab's CPU copy kernels, through the
 * same op-layer entry points the interpreter calls (allocation included, as
 * in PyTorch), for bench/run.sh to set against bench/torch_kernels.py.
 *
 * Ops (float32 input x of n = 2^k elements, viewed as R x C with R = 2^(k/2)):
 *   copy       x.clone()                    contiguous copy
 *   transpose  x.t().contiguous()           transposed copy
 *   to_f16     x.to(torch.float16)          dtype conversion
 *   add_bcast  x + b, b of shape (C,)       broadcast add
 *   sum_dim    x.sum(1)                     reduce the inner dim
 *   gather     x.flatten()[idx], idx n random int64 (a permutation)
 *
 * Timing: one warm-up call, then calls until at least --min-time seconds and
 * 3 calls have run; the fastest call is reported (on a shared machine other
 * jobs only ever add time, so the minimum is the steadiest estimate). Each call includes
 * creating and releasing the result. Memory: the ledger (tl_alloc_peak) over
 * one call, minus the live bytes before it, is the op's peak extra tensor
 * bytes; the inputs are reported separately. Single-threaded, like tlab.
 *
 * Output: one tab-separated line per (op, size), with a header line:
 *   op log2n numel sec bytes_moved input_bytes peak_extra_bytes result_bytes
 * bytes_moved counts the bytes an ideal kernel reads and writes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "index_parse.h"
#include "ops.h"
#include "storage.h"
#include "tensor.h"
#include "value.h"

enum { OP_COPY, OP_TRANSPOSE, OP_TO_F16, OP_ADD, OP_SUM, OP_GATHER, NOPS };
static const char *const op_names[NOPS] = {"copy", "transpose", "to_f16",
                                           "add_bcast", "sum_dim", "gather"};

typedef struct fixture {
    int64_t n, rows, cols;
    tl_tensor *x;    /* (rows, cols) float32 */
    tl_tensor *xt;   /* x.t(): a view */
    tl_tensor *flat; /* (n,) view of x */
    tl_tensor *b;    /* (cols,) float32 */
    tl_value *vx, *vb, *vflat, *vidx, *vdim;
} fixture;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what, const tl_error *err)
{
    fprintf(stderr, "bench_kernels: %s: %s\n", what, err ? err->msg : "failed");
    exit(1);
}

static int setup(fixture *f, int k)
{
    tl_error err;
    tl_error_clear(&err);
    const tl_backend *be = tl_backend_cpu();
    f->n = (int64_t)1 << k;
    f->rows = (int64_t)1 << (k / 2);
    f->cols = f->n / f->rows;
    int64_t shape[2] = {f->rows, f->cols};
    f->x = tl_tensor_new(be, TL_FLOAT32, 2, shape, &err);
    f->b = tl_tensor_new(be, TL_FLOAT32, 1, &f->cols, &err);
    tl_tensor *idx = tl_tensor_new(be, TL_INT64, 1, &f->n, &err);
    if (!f->x || !f->b || !idx)
        die("allocating inputs", &err);
    float *xd = tl_tensor_addr(f->x);
    for (int64_t i = 0; i < f->n; i++)
        xd[i] = (float)(i % 1000) * 0.25f;
    float *bd = tl_tensor_addr(f->b);
    for (int64_t i = 0; i < f->cols; i++)
        bd[i] = (float)i;
    /* a random permutation (Fisher-Yates, fixed LCG seed) */
    int64_t *id = tl_tensor_addr(idx);
    for (int64_t i = 0; i < f->n; i++)
        id[i] = i;
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (int64_t i = f->n - 1; i > 0; i--) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int64_t j = (int64_t)((s >> 17) % (uint64_t)(i + 1));
        int64_t t = id[i];
        id[i] = id[j];
        id[j] = t;
    }
    int64_t st1 = 1;
    f->flat = tl_tensor_view(f->x, 1, &f->n, &st1, 0);
    int64_t tsz[2] = {f->cols, f->rows}, tst[2] = {1, f->cols};
    f->xt = tl_tensor_view(f->x, 2, tsz, tst, 0);
    f->vx = tl_value_tensor(tl_tensor_retain(f->x));
    f->vb = tl_value_tensor(tl_tensor_retain(f->b));
    f->vflat = tl_value_tensor(tl_tensor_retain(f->flat));
    f->vidx = tl_value_tensor(idx); /* steals idx */
    f->vdim = tl_int(1);
    return 0;
}

static void teardown(fixture *f)
{
    tl_value_release(f->vx);
    tl_value_release(f->vb);
    tl_value_release(f->vflat);
    tl_value_release(f->vidx);
    tl_value_release(f->vdim);
    tl_tensor_release(f->xt);
    tl_tensor_release(f->flat);
    tl_tensor_release(f->b);
    tl_tensor_release(f->x);
    memset(f, 0, sizeof *f);
}

/* Run op once; returns the result tensor (new reference). */
static tl_tensor *run_op(fixture *f, int op)
{
    tl_error err;
    tl_error_clear(&err);
    tl_tensor *r = NULL;
    switch (op) {
    case OP_COPY:
        r = tl_ops_clone(f->x, TL_MEMFMT_PRESERVE, &err);
        break;
    case OP_TRANSPOSE:
        r = tl_ops_contiguous(f->xt, TL_MEMFMT_CONTIGUOUS, &err);
        break;
    case OP_TO_F16:
        r = tl_ops_to(f->x, tl_backend_cpu(), TL_FLOAT16, false,
                      TL_MEMFMT_PRESERVE, &err);
        break;
    case OP_ADD:
    {
        tl_operand a = tl_ops_operand_tensor(f->x), b = tl_ops_operand_tensor(f->b);
        r = tl_ops_binop(TL_BIN_ADD, &a, &b, &err);
    }
        break;
    case OP_SUM:
        r = tl_ops_reduce(TL_RED_SUM, "sum", f->x, 1, (const int64_t[]){1}, false,
                          NULL, &err);
        break;
    case OP_GATHER: {
        tl_value *v = tl_index_parse_getitem(f->vflat, f->vidx, &err);
        if (v) {
            if (v->kind == TL_V_TENSOR)
                r = tl_tensor_retain(v->u.tensor);
            tl_value_release(v);
        }
        break;
    }
    default:
        break;
    }
    if (!r)
        die(op_names[op], &err);
    return r;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double bytes_moved(const fixture *f, int op)
{
    double n = (double)f->n;
    switch (op) {
    case OP_COPY: case OP_TRANSPOSE: return 8 * n;
    case OP_TO_F16: return 6 * n;
    case OP_ADD: return 8 * n + 4 * (double)f->cols;
    case OP_SUM: return 4 * n + 4 * (double)f->rows;
    case OP_GATHER: return 16 * n; /* 8 index + 4 read + 4 write */
    default: return 0;
    }
}

static void usage(void)
{
    fputs("usage: bench_kernels [--min-time SECONDS] [--sizes K,K,...] "
          "[--ops NAME,...]\n"
          "Times tlab's CPU kernels on float32 tensors of 2^K elements and "
          "prints\none tab-separated line per op and size.\nOps: copy "
          "transpose to_f16 add_bcast sum_dim gather\n",
          stderr);
}

int main(int argc, char **argv)
{
    double min_time = 0.1;
    int sizes[32], nsizes = 0;
    bool want[NOPS];
    for (int i = 0; i < NOPS; i++)
        want[i] = true;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--min-time") && i + 1 < argc) {
            min_time = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            char *s = argv[++i];
            while (*s && nsizes < 32) {
                long k = strtol(s, &s, 10);
                if (k < 4 || k > 28) {
                    fprintf(stderr, "bench_kernels: size exponent %ld out of "
                                    "range 4..28\n", k);
                    return 2;
                }
                sizes[nsizes++] = (int)k;
                if (*s == ',')
                    s++;
            }
        } else if (!strcmp(argv[i], "--ops") && i + 1 < argc) {
            for (int o = 0; o < NOPS; o++)
                want[o] = false;
            char *list = argv[++i];
            for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) {
                int o = 0;
                while (o < NOPS && strcmp(op_names[o], t))
                    o++;
                if (o == NOPS) {
                    fprintf(stderr, "bench_kernels: unknown op '%s'\n", t);
                    return 2;
                }
                want[o] = true;
            }
        } else {
            usage();
            return !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") ? 0 : 2;
        }
    }
    if (nsizes == 0)
        for (int k = 16; k <= 24; k += 2)
            sizes[nsizes++] = k;
    tl_alloc_set_limit((size_t)8 << 30);

    printf("op\tlog2n\tnumel\tsec\tbytes_moved\tinput_bytes\tpeak_extra_bytes"
           "\tresult_bytes\n");
    static double times[100000];
    for (int si = 0; si < nsizes; si++) {
        fixture f;
        setup(&f, sizes[si]);
        for (int op = 0; op < NOPS; op++) {
            if (!want[op])
                continue;
            /* warm-up call, measuring the ledger */
            size_t live0 = tl_alloc_live();
            tl_alloc_reset_peak();
            tl_tensor *r = run_op(&f, op);
            size_t extra = tl_alloc_peak() - live0;
            size_t rbytes = r->storage ? r->storage->nbytes : 0;
            tl_tensor_release(r);
            int nt = 0;
            double start = now();
            while (nt < (int)(sizeof times / sizeof times[0])) {
                double t0 = now();
                r = run_op(&f, op);
                tl_tensor_release(r);
                times[nt++] = now() - t0;
                if (nt >= 3 && now() - start >= min_time)
                    break;
            }
            qsort(times, (size_t)nt, sizeof times[0], cmp_double);
            double best = times[0];
            /* the op's own inputs: x (and b, idx where used) */
            size_t in = (size_t)f.n * 4;
            if (op == OP_ADD)
                in += (size_t)f.cols * 4;
            if (op == OP_GATHER)
                in += (size_t)f.n * 8;
            printf("%s\t%d\t%lld\t%.9g\t%.0f\t%zu\t%zu\t%zu\n", op_names[op],
                   sizes[si], (long long)f.n, best, bytes_moved(&f, op), in,
                   extra, rbytes);
            fflush(stdout);
        }
        teardown(&f);
    }
    return 0;
}
