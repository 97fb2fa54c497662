#!/usr/bin/python3
"""torch_kernels.py - the PyTorch reference for bench/bench_kernels.c.

Runs the same six ops at the same sizes on one CPU thread
(torch.set_num_threads(1): tlab is single-threaded) and prints the same
tab-separated columns as bench_kernels, so bench/run.sh can join them:

    op log2n numel sec bytes_moved input_bytes peak_extra_bytes result_bytes

Timing mirrors the C side: one warm-up call, then calls until --min-time
seconds and at least 3 calls; the fastest call is reported. PyTorch has
no CPU allocation ledger, so peak_extra_bytes is the result's storage bytes
(a lower bound: temporaries are not seen) and is marked as such by run.sh.
"""
import argparse
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-time", type=float, default=0.1)
    ap.add_argument("--sizes", default="16,18,20,22,24")
    ap.add_argument("--ops", default="copy,transpose,to_f16,add_bcast,sum_dim,gather,matmul,memcpy")
    a = ap.parse_args()
    import torch
    torch.set_num_threads(1)
    ops = a.ops.split(",")
    print("op\tlog2n\tnumel\tsec\tbytes_moved\tinput_bytes\tpeak_extra_bytes\tresult_bytes")
    for k in [int(s) for s in a.sizes.split(",")]:
        n = 1 << k
        rows = 1 << (k // 2)
        cols = n // rows
        x = (torch.arange(n, dtype=torch.float32) % 1000 * 0.25).reshape(rows, cols)
        b = torch.arange(cols, dtype=torch.float32)
        g = torch.Generator().manual_seed(0x9E3779B9)
        idx = torch.randperm(n, generator=g)
        flat = x.view(-1)
        xt = x.t()
        fns = {
            "copy": (lambda: x.clone(), 8 * n, 4 * n),
            "transpose": (lambda: xt.contiguous(), 8 * n, 4 * n),
            "to_f16": (lambda: x.to(torch.float16), 6 * n, 4 * n),
            "add_bcast": (lambda: x + b, 8 * n + 4 * cols, 4 * n + 4 * cols),
            "sum_dim": (lambda: x.sum(1), 4 * n + 4 * rows, 4 * n),
            "gather": (lambda: flat[idx], 16 * n, 12 * n),
            # x @ x.t(): (rows, cols) @ (cols, rows); only up to 2^20 elements
            "matmul": (lambda: x @ xt, 8 * n + 4 * rows * rows, 4 * n),
            # the bandwidth line: a fresh buffer filled by one memcpy-speed copy
            "memcpy": (lambda: torch.empty_like(x).copy_(x), 8 * n, 4 * n),
        }
        for op in ops:
            if op == "matmul" and k > 20:
                continue
            fn, moved, inb = fns[op]
            r = fn()
            rbytes = (r.untyped_storage() if hasattr(r, "untyped_storage") else r.storage()).nbytes()
            del r
            times = []
            start = time.perf_counter()
            while True:
                t0 = time.perf_counter()
                r = fn()
                del r
                times.append(time.perf_counter() - t0)
                if len(times) >= 3 and time.perf_counter() - start >= a.min_time:
                    break
            best = min(times)
            print("%s\t%d\t%d\t%.9g\t%d\t%d\t%d\t%d" % (op, k, n, best, moved, inb, rbytes, rbytes))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
