#!/usr/bin/python3
"""script_loops.py - kernels measured the way a script runs them.

bench_kernels.c calls the op layer directly and frees each result before
the next call; a student script instead rebinds a name in a loop,

    for i in range(N):
        y = x.clone()

so each op's result is made while the previous one is still alive and the
previous one is dropped after. This driver writes that script for each op
(x a 2048x2048 float32 tensor, b a 2048 float32 row), runs it through
`tlab exec`, runs the very same loop text under torch
(torch.set_num_threads(1)), and prints the time per op side by side:

    tlab:  (best of --runs whole-process runs of the script with N
           iterations - best of --runs of the same script with none) / N:
           interpreter start, setup and exit cancel. Wall time, CPU time
           (user + system) and minor page faults, from the child's rusage.
    torch: a fresh interpreter per op (as tlab's runs are fresh
           processes), the setup run once, then the best of --runs timed
           loops of N iterations (time.perf_counter around exec of the
           loop's text, after one warm-up loop); CPU time and faults from
           getrusage(RUSAGE_SELF). Page faults here are glibc's doing:
           whether it gives a freed block's pages back depends on the
           heap's history, so torch's rows move with the order of its
           allocations.

Each run writes at most two results' worth of memory past the setup
(32 MiB). Without torch (--python, default this interpreter) the torch
columns say n/a. Output (stdout) is a table; --tsv prints tab-separated
rows (op n tlab_s torch_s tlab_cpu_s torch_cpu_s tlab_faults
torch_faults, n/a where not measured) for bench/run.sh.
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

SETUP = """import torch
x = (torch.arange(2048 * 2048, dtype=torch.float32) % 1000 * 0.25).reshape(2048, 2048)
b = torch.arange(2048, dtype=torch.float32)
"""
OPS = [
    ("clone", "x.clone()"),
    ("add_bcast", "x + b"),
    ("transpose", "x.t().contiguous()"),
]


def loop_text(expr, n):
    return "for i in range(%d):\n    y = %s\n" % (n, expr)


def cpu_of(ru):
    return ru.ru_utime + ru.ru_stime


def run_tlab(tlab, path):
    """wall seconds, CPU seconds and minor faults of one `tlab exec path`"""
    t0 = time.perf_counter()
    p = subprocess.Popen([tlab, "exec", "--timeout", "1000", "--sheet-timeout", "1000", path],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read().decode(errors="replace")
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.stderr.close()
    p.returncode = 0  # reaped by wait4 above
    if status != 0:
        sys.exit("script_loops.py: %s exec %s failed: %s" % (tlab, path, err.strip()[-300:]))
    return wall, cpu_of(ru), ru.ru_minflt


def tlab_per_op(tlab, tmp, name, expr, n, runs):
    """(wall, cpu, faults) per op: best of runs with n iterations less the
    best of runs with none"""
    paths = []
    for k in (n, 0):
        path = os.path.join(tmp, "%s_%d.py" % (name, k))
        with open(path, "w") as f:
            f.write(SETUP + loop_text(expr, k))
        paths.append(path)
    best = [[None] * 3, [None] * 3]
    run_tlab(tlab, paths[0])  # warm-up (page cache, CPU frequency)
    for _ in range(runs):
        for j in (0, 1):  # interleaved: a slow phase of the machine hits both
            m = run_tlab(tlab, paths[j])
            best[j] = [v if b is None else min(b, v) for b, v in zip(best[j], m)]
    return tuple(max(a - b, 0) / n for a, b in zip(best[0], best[1]))


def torch_child(expr, n, runs):
    """in a fresh interpreter (as tlab's runs are fresh processes): print
    the best wall, CPU and faults per op over runs timed loops"""
    import torch
    g = {}
    exec(SETUP + "torch.set_num_threads(1)\n", g)
    del torch
    code = compile(loop_text(expr, n), "<loop>", "exec")
    best = None
    for r in range(runs + 1):  # the first is a warm-up
        g.pop("y", None)
        r0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        exec(code, g)
        t = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_SELF)
        m = (t, cpu_of(r1) - cpu_of(r0), r1.ru_minflt - r0.ru_minflt)
        if r > 0:
            best = m if best is None else tuple(min(a, b) for a, b in zip(best, m))
    print("%.9g %.9g %d" % best)


def torch_per_op(python, expr, n, runs):
    p = subprocess.run([python, os.path.abspath(__file__), "--torch-child", expr,
                        "-n", str(n), "--runs", str(runs)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    f = p.stdout.split()
    if p.returncode != 0 or len(f) != 3:
        return None
    return tuple(float(v) / n for v in f)


def have_torch(python):
    return subprocess.run([python, "-c", "import torch"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tlab", default="./tlab")
    ap.add_argument("--python", default=sys.executable, help="the Python with torch")
    ap.add_argument("-n", type=int, default=100, help="iterations of each loop")
    ap.add_argument("--runs", type=int, default=5, help="runs; the best is kept")
    ap.add_argument("--ops", default=",".join(o for o, _ in OPS))
    ap.add_argument("--tsv", action="store_true")
    ap.add_argument("--torch-child", metavar="EXPR", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.torch_child:
        torch_child(a.torch_child, a.n, a.runs)
        return
    want = a.ops.split(",")
    torch_ok = have_torch(a.python)
    rows = []
    with tempfile.TemporaryDirectory(prefix="tlab-loops.") as tmp:
        for name, expr in OPS:
            if name not in want:
                continue
            t = tlab_per_op(a.tlab, tmp, name, expr, a.n, a.runs)
            p = torch_per_op(a.python, expr, a.n, a.runs) if torch_ok else None
            rows.append((name, expr, t, p))
    if a.tsv:
        print("op\tn\ttlab_s\ttorch_s\ttlab_cpu_s\ttorch_cpu_s\ttlab_faults\ttorch_faults")
        for name, _, t, p in rows:
            q = ["n/a"] * 3 if p is None else ["%.9g" % p[0], "%.9g" % p[1], "%.1f" % p[2]]
            print("%s\t%d\t%.9g\t%s\t%.9g\t%s\t%.1f\t%s" % (name, a.n, t[0], q[0], t[1], q[1], t[2], q[2]))
        return

    def ms(v):
        return "%.3f" % (v * 1e3)

    def ratio(x, y):
        return "%.2f" % (x / y) if y else "n/a"

    print("%-10s %-24s %9s %9s %7s %9s %9s %7s %8s %8s" % (
        "op", "loop body", "tlab", "torch", "wall", "tlab", "torch", "cpu", "tlab", "torch"))
    print("%-10s %-24s %9s %9s %7s %9s %9s %7s %8s %8s" % (
        "", "", "ms/op", "ms/op", "ratio", "cpu ms", "cpu ms", "ratio", "faults", "faults"))
    for name, expr, t, p in rows:
        if p is None:
            q = ("n/a",) * 5
        else:
            q = (ms(p[0]), ratio(t[0], p[0]), ms(p[1]), ratio(t[1], p[1]), "%.1f" % p[2])
        print("%-10s %-24s %9s %9s %7s %9s %9s %7s %8.1f %8s" % (
            name, "y = " + expr, ms(t[0]), q[0], q[1], ms(t[1]), q[2], q[3], t[2], q[4]))
    print("  %d iterations a loop, best of %d runs; ratio = tlab/torch (below 1: tlab is faster);" % (a.n, a.runs))
    print("  cpu = user + system time; faults = minor page faults per op")
    if not torch_ok:
        print("  torch: not importable by %s; install python3-torch for the reference" % a.python)


if __name__ == "__main__":
    main()
