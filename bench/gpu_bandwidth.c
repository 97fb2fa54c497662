/* gpu_bandwidth.c - bandwidth of the CUDA backend's strided copy kernels
 * (cuda/kernels.h on dev_cuda.cu) against cudaMemcpyAsync device to device
 * of the same bytes, for tests/gpu/run.sh on a lent GPU.
 *
 * Copies (float32 source of n = 2^k elements, k = 20..28, viewed as R x C
 * with R = 2^(k/2)):
 *   contiguous  the copy kernel over a dense strip (the backend itself
 *               would take its memcpy fast path; the kernel is timed here)
 *   transpose   x.t().contiguous(): dst[i][j] = src[j][i]
 *   broadcast   a (C,) row expanded to R x C (stride 0), reads C elements
 *   to_f16      float32 -> float16, dense
 * Each copy is timed twice in the same run: as the backend launches it
 * (the specialised loop cuda/kernels_spec.h picks, precomputed divisors)
 * and, as `NAME-generic`, with the descriptor's nospec set (the per-element
 * loop with a dtype switch and hardware divides: the code before the
 * specialised loops), so one run shows before and after side by side.
 * Bandwidth counts the bytes an ideal copy reads and writes; the memcpy
 * reference moves the destination's byte count (read + write). The ratio
 * is kernel / memcpy bandwidth (1.0 = as fast as cudaMemcpyAsync).
 * Timing: one warm-up, then the best of 5 (each launch synchronises).
 *
 * Output: a header, then one tab-separated line per (copy, k):
 *   copy log2n seconds GB/s memcpy_GB/s ratio
 * Exit 77 when no GPU is usable; `--max-log2 K` lowers the largest size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "backend_gpu.h"
#include "dev.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const tl_dev *dev;

/* best of 5 seconds for one launch of kind over d (or a memcpy of bytes) */
static double time_launch(const tl_kdesc *d, size_t memcpy_bytes, void *dst, const void *src)
{
    double best = 1e30;
    for (int r = 0; r < 6; r++) {
        double t0 = now();
        int st = d ? dev->launch(TL_K_COPY, d) : dev->d2d(dst, src, memcpy_bytes);
        if (st == 0)
            st = dev->sync();
        double t = now() - t0;
        if (st != 0) {
            fprintf(stderr, "gpu_bandwidth: device status %d (%s)\n", st, dev->errname(st));
            exit(1);
        }
        if (r > 0 && t < best)
            best = t;
    }
    return best;
}

static void desc2(tl_kdesc *d, int64_t rows, int64_t cols, char *dp, int ddt, int64_t ds0,
                  int64_t ds1, char *sp, int sdt, int64_t ss0, int64_t ss1)
{
    memset(d, 0, sizeof *d);
    d->gdim = -1;
    d->nchunk = 1;
    d->nops = 2;
    d->ndim = 2;
    d->n = rows * cols;
    d->sizes[0] = rows;
    d->sizes[1] = cols;
    d->ptr[0] = dp;
    d->ptr[1] = sp;
    d->dtype[0] = ddt;
    d->dtype[1] = sdt;
    d->strides[0][0] = ds0;
    d->strides[0][1] = ds1;
    d->strides[1][0] = ss0;
    d->strides[1][1] = ss1;
}

int main(int argc, char **argv)
{
    int maxk = 28;
    if (argc == 3 && !strcmp(argv[1], "--max-log2"))
        maxk = atoi(argv[2]);
    if (!tl_gpu_backend_cuda()) {
        printf("SKIP: no usable GPU\n");
        return 77;
    }
    dev = tl_dev_cuda();
    size_t maxn = (size_t)1 << maxk;
    void *a = NULL, *b = NULL;
    if (dev->malloc(&a, maxn * 4) || dev->malloc(&b, maxn * 4) || dev->memset0(a, maxn * 4)) {
        fprintf(stderr, "gpu_bandwidth: cannot allocate 2 x %zu bytes\n", maxn * 4);
        return 1;
    }
    printf("copy\tlog2n\tseconds\tGB/s\tmemcpy_GB/s\tratio\n");
    for (int k = 20; k <= maxk; k += 2) {
        int64_t n = (int64_t)1 << k, rows = (int64_t)1 << (k / 2), cols = n / rows;
        static const char *const names[] = {"contiguous", "transpose", "broadcast", "to_f16"};
        for (int c = 0; c < 8; c++) {
            tl_kdesc d;
            size_t moved, dst_bytes;
            switch (c / 2) {
            case 0: /* merged to one dim, as the backend would */
                desc2(&d, 1, n, b, TL_K_F32, 0, 4, a, TL_K_F32, 0, 4);
                moved = (size_t)n * 8;
                dst_bytes = (size_t)n * 4;
                break;
            case 1:
                desc2(&d, cols, rows, b, TL_K_F32, rows * 4, 4, a, TL_K_F32, 4, cols * 4);
                moved = (size_t)n * 8;
                dst_bytes = (size_t)n * 4;
                break;
            case 2:
                desc2(&d, rows, cols, b, TL_K_F32, cols * 4, 4, a, TL_K_F32, 0, 4);
                moved = (size_t)n * 4 + (size_t)cols * 4;
                dst_bytes = (size_t)n * 4;
                break;
            default:
                desc2(&d, 1, n, b, TL_K_F16, 0, 2, a, TL_K_F32, 0, 4);
                moved = (size_t)n * 6;
                dst_bytes = (size_t)n * 2;
                break;
            }
            d.nospec = c % 2;
            double t = time_launch(&d, 0, NULL, NULL);
            double tm = time_launch(NULL, dst_bytes, b, a);
            double bw = (double)moved / t / 1e9, bwm = 2.0 * (double)dst_bytes / tm / 1e9;
            printf("%s%s\t%d\t%.6f\t%.1f\t%.1f\t%.2f\n", names[c / 2], c % 2 ? "-generic" : "", k,
                   t, bw, bwm, bw / bwm);
        }
    }
    dev->free(a);
    dev->free(b);
    dev->sync();
    return 0;
}
