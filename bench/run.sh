#!/bin/sh
# bench/run.sh - tlab's benchmarks, printed as ratios against the reference
# they name: PyTorch 1.13 CPU on this machine (/usr/bin/python3), one thread.
#
# Builds nothing. Takes:
#   TLAB         the tlab binary (default ./tlab)
#   BENCH_BUILD  the build dir holding bench/bench_kernels and bench/rusage
#                (default .; build them with `make bench/bench_kernels
#                bench/rusage`, or run everything with `make bench`)
#   PYTHON       the Python with torch (default /usr/bin/python3)
#   BENCH_QUICK  set to 1 for a smoke run (smaller sizes, fewer repeats)
#   BENCH_SHEETS number of student sheets for `tlab grade` (default 200)
#   BENCH_FIGURE write the scaling figure (SVG, needs gnuplot) to this path
#   GNU_TIME, HYPERFINE  the tools used when present (default /usr/bin/time,
#                hyperfine); point them at a missing path to test the fallbacks
#
# Sections: machine; end-to-end grading (tlab check of each answers/labNN.yaml,
# tlab grade of BENCH_SHEETS copies of the student sheets), against a Python
# script doing the same work with torch (bench/torch_labs.py, import time
# excluded and shown apart); kernel microbenchmarks (bench/bench_kernels vs
# bench/torch_kernels.py); the same kernels as a script's loop runs them
# (tlab exec vs the loop under torch, bench/script_loops.py). Every time row
# has a tlab/torch column: below 1 tlab is faster, above 1 slower. Total run time is about a minute.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
TLAB=${TLAB:-./tlab}
BENCH_BUILD=${BENCH_BUILD:-.}
PYTHON=${PYTHON:-/usr/bin/python3}
quick=${BENCH_QUICK:-0}
nsheets=${BENCH_SHEETS:-200}
GNU_TIME=${GNU_TIME:-/usr/bin/time}
HYPERFINE=${HYPERFINE:-hyperfine}

# creps: runs of each `tlab check` row, in crounds rounds (below; a run is
# ~1.5 ms; on this VM the best of 30 in one batch moved by 10-30 %)
if [ "$quick" = 1 ]; then
    sizes=16,20; mintime=0.02; reps=5; preps=2; creps=5
else
    sizes=16,18,20,22,24; mintime=0.25; reps=30; preps=5; creps=200
fi

die() { echo "bench/run.sh: $*" >&2; exit 2; }
[ -x "$TLAB" ] || die "no tlab binary at '$TLAB' (set TLAB)"
kernels=$BENCH_BUILD/bench/bench_kernels
rusage=$BENCH_BUILD/bench/rusage

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tlab-bench.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$tmp"' EXIT INT TERM

# ---- helpers --------------------------------------------------------------

now() { date +%s.%N; }

# gnu_time: does /usr/bin/time understand -v (GNU time)?
gnu_time=0
if [ -x "$GNU_TIME" ] && "$GNU_TIME" -v true >/dev/null 2>&1; then
    gnu_time=1
fi
have_hyperfine=0
command -v "$HYPERFINE" >/dev/null 2>&1 && have_hyperfine=1

# peak_rss_kb OUT ERR CMD...: run CMD once (stdout to OUT, stderr to ERR),
# print its peak RSS in KiB (or n/a).
peak_rss_kb() {
    out=$1; err=$2; shift 2
    if [ "$gnu_time" = 1 ]; then
        "$GNU_TIME" -v -o "$tmp/time.txt" "$@" >"$out" 2>"$err"
        awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time.txt"
    elif [ -x "$rusage" ]; then
        "$rusage" "$@" >"$out" 2>"$err"
        sed -n 's/.*maxrss_kb=\([0-9]*\).*/\1/p' "$err" | tail -n 1
    else
        "$@" >"$out" 2>"$err"
        echo n/a
    fi
}

# best_wall N CMD...: the fastest wall time in seconds of N runs of CMD
# (output discarded; other jobs on the machine only ever add time): with
# hyperfine when installed, else timed one by one by bench/rusage, else the
# mean of a shell loop (which also counts the loop's own forks).
best_wall() {
    n=$1; shift
    if [ "$have_hyperfine" = 1 ]; then
        cmd=""
        for a in "$@"; do cmd="$cmd '$a'"; done
        "$HYPERFINE" -N -i --style none --warmup 2 --runs "$n" \
            --export-csv "$tmp/hf.csv" "$cmd" >/dev/null 2>&1 &&
            awk -F, 'NR == 2 {print $7}' "$tmp/hf.csv" && return
    fi
    "$@" >/dev/null 2>&1 # warm-up
    if [ -x "$rusage" ]; then
        : >"$tmp/walls.txt"
        i=0
        while [ "$i" -lt "$n" ]; do
            "$rusage" "$@" 2>&1 >/dev/null | sed -n 's/^wall_s=\([0-9.]*\) .*/\1/p' >>"$tmp/walls.txt"
            i=$((i + 1))
        done
        sort -g "$tmp/walls.txt" | head -n 1
        return
    fi
    t0=$(now)
    i=0
    while [ "$i" -lt "$n" ]; do
        "$@" >/dev/null 2>&1
        i=$((i + 1))
    done
    t1=$(now)
    echo "$t0 $t1 $n" | awk '{printf "%.9f\n", ($2 - $1) / $3}'
}

# json_num FILE KEY: a number from a one-line JSON object
json_num() { sed -n "s/.*\"$2\": \([-0-9.e+]*\).*/\1/p" "$1"; }

ratio() { echo "$1 $2" | awk '{ if ($1 == "n/a" || $2 == "n/a" || $2 + 0 == 0) print "n/a"; else printf "%.2f\n", $1 / $2 }'; }

# ---- machine --------------------------------------------------------------

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
mem=$(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null)
torch_ok=0
torch_ver=n/a
if [ -x "$PYTHON" ] &&
    torch_ver=$("$PYTHON" -c 'import torch, yaml; print(torch.__version__)' 2>/dev/null); then
    torch_ok=1
else
    torch_ver=n/a
fi

echo "tlab benchmarks ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
cflags=$(sed -n 's/^CFLAGS = //p' "$BENCH_BUILD/Makefile" 2>/dev/null)
rev=$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)
echo "  tlab:      $("$TLAB" --version 2>/dev/null | head -n 1) ($TLAB), source $rev, CFLAGS ${cflags:-unknown}"
simd=$(sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1 | tr ' ' '\n' |
    grep -E '^(sse4_2|avx|avx2|fma|f16c|avx512f|avx512bw|neon|asimd)$' | tr '\n' ' ' | sed 's/ $//')
cache=$(sed -n 's/^cache size[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
echo "  machine:   $(nproc) CPUs, ${cpu:-unknown CPU}, ${mem:-? GiB}, $(uname -sr)"
echo "             cache ${cache:-?}; SIMD: ${simd:-?}"
echo "  load:      $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null) (1/5/15-min load average at start; other jobs skew times)"
echo "  reference: PyTorch $torch_ver CPU via $PYTHON, torch.set_num_threads(1)"
echo "             (tlab is single-threaded, so the reference is held to one thread)"
echo "  timing:    best of N runs, $([ "$have_hyperfine" = 1 ] && echo "by hyperfine -N" || echo "by bench/rusage or a shell loop");" \
    "peak RSS from $([ "$gnu_time" = 1 ] && echo "$GNU_TIME -v" || echo "bench/rusage (getrusage)")"
echo "  ratios:    tlab/torch = tlab time / torch time (below 1: tlab is faster)"
if [ "$torch_ok" = 0 ]; then
    echo
    echo "NOTE: 'import torch' (and yaml) failed under $PYTHON: the reference columns"
    echo "      are n/a. Install python3-torch and python3-yaml to get ratios."
fi

# ---- end-to-end -----------------------------------------------------------

echo
echo "== End-to-end grading (tlab: whole process, exec included; torch: the same"
echo "   work in bench/torch_labs.py, interpreter start and imports excluded)"
printf '%-22s %4s %10s %9s %10s %9s %10s %9s %9s %11s %11s\n' \
    workload ops "tlab ms/sh" "tlab us/op" "torch ms/sh" "torch us/op" tlab/torch \
    "tlab RSS" "torch RSS" "tlab bytes" "torch bytes"
printf '%-22s %4s %10s %9s %10s %9s %10s %9s %9s %11s %11s\n' \
    "" "" "" "" "" "" "" "MiB" "MiB" "ledger/sh" "copies/sh"

import_s=n/a
e2e_ratios=""
row() { # name nops tlab_s torch_s tlab_kb torch_kb tlab_bytes torch_bytes
    r=$(ratio "$3" "$4")
    [ "$r" != n/a ] && e2e_ratios="$e2e_ratios $r"
    echo "$* $r" | awk '
        function ms(x) { return x == "n/a" ? "n/a" : sprintf("%.3f", x * 1e3) }
        function us(x, n) { return x == "n/a" ? "n/a" : sprintf("%.1f", x * 1e6 / n) }
        function mib(x) { return x == "n/a" || x == "" ? "n/a" : sprintf("%.1f", x / 1024) }
        { printf "%-22s %4d %10s %9s %10s %9s %10s %9s %9s %11s %11s\n",
          $1, $2, ms($3), us($3, $2), ms($4), us($4, $2), $9, mib($5), mib($6), $7, $8 }'
}

# best_of NAME: the fastest of the rounds' times recorded for NAME
best_of() { awk -v n="$1" '$1 == n && (m == "" || $2 < m) { m = $2 } END { print m }' "$tmp/check_walls.txt"; }

# The check rows' best times are taken over `crounds` rounds through all the
# sheets (creps / crounds runs of a sheet a round): this VM has slow phases
# of seconds, and one batch per sheet could fall wholly inside one.
crounds=$([ "$quick" = 1 ] && echo 1 || echo 5)
r=0
while [ "$r" -lt "$crounds" ]; do
    for sheet in "$top"/answers/lab*.yaml; do
        name=$(basename "$sheet" .yaml)
        w=$(best_wall $((creps / crounds)) "$TLAB" check -q "$sheet")
        echo "$name $w" >>"$tmp/check_walls.txt"
    done
    # the VM's phase in the same rounds: the floor of any process start
    w=$(best_wall $((creps / crounds)) /bin/true)
    echo "true $w" >>"$tmp/check_walls.txt"
    r=$((r + 1))
done
for sheet in "$top"/answers/lab*.yaml; do
    name=$(basename "$sheet" .yaml)
    nops=$(grep -c '^    op:' "$sheet")
    t_s=$(best_of "$name")
    t_kb=$(peak_rss_kb "$tmp/t.json" "$tmp/t.err" "$TLAB" check --format json "$sheet")
    t_bytes=$(grep -o '"bytes_allocated": *[0-9]*' "$tmp/t.json" |
        awk -F: '{s += $2} END {print s + 0}')
    p_s=n/a; p_kb=n/a; p_bytes=n/a
    if [ "$torch_ok" = 1 ]; then
        p_kb=$(peak_rss_kb "$tmp/p.json" "$tmp/p.err" \
            "$PYTHON" "$here/torch_labs.py" check "$sheet" --reps "$preps")
        p_s=$(json_num "$tmp/p.json" sheet_s)
        p_bytes=$(json_num "$tmp/p.json" copy_bytes)
        import_s=$(json_num "$tmp/p.json" import_s)
        [ -n "$p_s" ] || { p_s=n/a; p_kb=n/a; p_bytes=n/a; sed 's/^/  torch: /' "$tmp/p.err" | tail -n 3; }
    fi
    row "check/$name" "$nops" "$t_s" "$p_s" "$t_kb" "$p_kb" "$t_bytes" "$p_bytes"
    echo "$name $t_s" >>"$tmp/check_rows.txt"
done

# tlab grade over copies of the student sheets
master=$top/labs/lab01.yaml
mkdir -p "$tmp/sheets"
i=0
while [ "$i" -lt "$nsheets" ]; do
    for src in "$top"/tests/students/lab01-*.yaml; do
        [ "$i" -lt "$nsheets" ] || break
        cp "$src" "$tmp/sheets/$(printf 's%04d' "$i").yaml" || die "cannot copy $src"
        i=$((i + 1))
    done
done
nops=$(grep -c '^    op:' "$master")
greps=$((reps / 3 > 3 ? reps / 3 : 3))
g_s=$(best_wall "$greps" "$TLAB" grade -q --lab "$master" -o "$tmp/g.csv" "$tmp"/sheets/*.yaml)
g_s=$(echo "$g_s $nsheets" | awk '{printf "%.9f", $1 / $2}')
g_kb=$(peak_rss_kb "$tmp/g.out" "$tmp/g.err" "$TLAB" grade -q --lab "$master" -o "$tmp/g.csv" "$tmp"/sheets/*.yaml)
p_s=n/a; p_kb=n/a
if [ "$torch_ok" = 1 ]; then
    p_kb=$(peak_rss_kb "$tmp/p.json" "$tmp/p.err" \
        "$PYTHON" "$here/torch_labs.py" grade --lab "$master" "$tmp"/sheets/*.yaml)
    p_s=$(json_num "$tmp/p.json" sheet_s)
    [ -n "$p_s" ] || p_s=n/a
fi
row "grade/lab01x$nsheets" "$nops" "$g_s" "$p_s" "$g_kb" "$p_kb" - -
jobs=$(nproc)
if [ "$jobs" -gt 1 ]; then
    j_s=$(best_wall "$greps" "$TLAB" grade -q --jobs "$jobs" --lab "$master" -o "$tmp/g.csv" "$tmp"/sheets/*.yaml)
    j_s=$(echo "$j_s $nsheets" | awk '{printf "%.9f", $1 / $2}')
    row "grade/lab01/jobs$jobs" "$nops" "$j_s" n/a n/a n/a - -
fi
true_s=$(best_of true)
echo "  check rows: best of $creps runs in $crounds rounds through the sheets; /bin/true in the same"
echo "         rounds (the machine's process-start floor, a gauge of its phase): $(echo "$true_s" | awk '{ printf "%.3f", $1 * 1e3 }') ms."
echo "  grade rows: per sheet = whole run / $nsheets sheets; the master's ops run once per run."
echo "  torch: importing torch+numpy+yaml takes $(echo "$import_s" | awk '{ if ($1 == "n/a") print $1; else printf "%.3f", $1 }') s per process (not in the rows above);"
echo "         its check rows are the fastest of $preps in-process sheets after one warm-up sheet."
echo "  bytes: tlab = bytes_allocated summed over a sheet's ops (ledger, all allocations);"
echo "         torch = storage bytes of the results that are copies (temporaries unseen)."

# ---- kernels --------------------------------------------------------------

echo
echo "== Kernel microbenchmarks (float32 x of 2^k elements as 2^(k/2) rows; fastest"
echo "   call, allocation of the result included; one thread on both sides)"
echo "   copy=x.clone() transpose=x.t().contiguous() to_f16=x.to(float16)"
echo "   add_bcast=x+b[cols] sum_dim=x.sum(1) gather=x.flatten()[randperm]"
echo "   matmul=x@x.t() (2^k <= 2^20 only) memcpy=a fresh buffer memcpy'd (the bandwidth line)"
if [ ! -x "$kernels" ]; then
    echo "  skipped: no $kernels (make bench/bench_kernels)"
else
    "$kernels" --min-time "$mintime" --sizes "$sizes" >"$tmp/k_tlab.tsv" ||
        die "bench_kernels failed"
    if [ "$torch_ok" = 1 ]; then
        "$PYTHON" "$here/torch_kernels.py" --min-time "$mintime" --sizes "$sizes" \
            >"$tmp/k_torch.tsv" 2>"$tmp/k_torch.err" || : >"$tmp/k_torch.tsv"
    else
        : >"$tmp/k_torch.tsv"
    fi
    awk -F'\t' -v ref="$tmp/k_torch.tsv" '
        BEGIN { while ((getline line < ref) > 0) { split(line, f, "\t")
                  if (f[1] != "op") { key = f[1] "/" f[2]; ts[key] = f[4]; tr[key] = f[7] } } }
        FNR == 1 { next }
        { key = $1 "/" $2; order[++n] = key; sec[key] = $4; nel[key] = $3
          mv[key] = $5; in_[key] = $6; ex[key] = $7 }
        END {
          printf "%-10s %3s %9s %8s %9s %8s %10s %11s %11s %11s\n", "op", "k",
            "tlab ns/e", "tlab GB/s", "torch ns/e", "torch GB/s", "tlab/torch",
            "input MiB", "tlab peak+", "torch res"
          printf "%-10s %3s %9s %8s %9s %8s %10s %11s %11s %11s\n", "", "", "", "",
            "", "", "", "", "MiB ledger", "MiB"
          for (i = 1; i <= n; i++) {
            k = order[i]; split(k, kk, "/")
            t = sec[k]; e = nel[k]
            if (k in ts) {
              p = sprintf("%9.3f %8.2f", ts[k] * 1e9 / e, mv[k] / ts[k] / 1e9)
              r = sprintf("%10.2f", t / ts[k]); pr = sprintf("%11.2f", tr[k] / 1048576)
              print kk[1], t / ts[k], kk[2] > "/dev/stderr"
            } else { p = sprintf("%9s %8s", "n/a", "n/a"); r = sprintf("%10s", "n/a"); pr = sprintf("%11s", "n/a") }
            printf "%-10s %3d %9.3f %8.2f %s %s %11.2f %11.2f %s\n", kk[1], kk[2],
              t * 1e9 / e, mv[k] / t / 1e9, p, r, in_[k] / 1048576, ex[k] / 1048576, pr
          }
        }' "$tmp/k_tlab.tsv" 2>"$tmp/k_ratios.txt"
    echo "  GB/s counts the bytes an ideal kernel moves (gather: 8-byte index + 4 read + 4 write)."
    echo "  tlab peak+ = tl_alloc_peak() over one call minus the live bytes before it;"
    echo "  torch res = the result's storage bytes (no CPU ledger in torch: a lower bound)."
    [ -s "$tmp/k_torch.err" ] && sed 's/^/  torch: /' "$tmp/k_torch.err" | tail -n 3
fi

# ---- kernels as a script runs them ------------------------------------------
# The same kernels through `tlab exec` of a loop `for i in range(N): y = OP`
# on 2048^2 float32 (a result is made while the previous one is alive),
# against the same loop under torch: bench/script_loops.py.

echo
echo "== Kernels as a script runs them (tlab exec of 'for i in range(N): y = OP' on"
echo "   2048^2 float32, per op: whole process less the same script without the loop;"
echo "   torch: the same loop text timed in a fresh interpreter; one thread on both sides)"
if [ "$quick" = 1 ]; then lreps=10; lruns=1; else lreps=100; lruns=5; fi
if [ ! -x "$PYTHON" ]; then
    echo "  skipped: no $PYTHON (set PYTHON)"
elif "$PYTHON" "$here/script_loops.py" --tlab "$TLAB" --python "$PYTHON" -n "$lreps" \
        --runs "$lruns" --tsv >"$tmp/loops.tsv" 2>"$tmp/loops.err"; then
    awk -F'\t' '
        function ms(x) { return x == "n/a" ? "n/a" : sprintf("%.3f", x * 1e3) }
        function r(a, b) { return (b == "n/a" || b + 0 == 0) ? "n/a" : sprintf("%.2f", a / b) }
        NR == 1 { printf "%-10s %10s %10s %10s %10s %10s %10s %11s %11s\n", "op", "tlab ms/op",
                  "torch ms/op", "tlab/torch", "tlab cpu", "torch cpu", "cpu ratio", "tlab faults",
                  "torch faults"; next }
        { printf "%-10s %10s %10s %10s %10s %10s %10s %11.1f %11s\n", $1, ms($3), ms($4), r($3, $4),
              ms($5), ms($6), r($5, $6), $7, $8
          if (r($3, $4) != "n/a") print $1, $3 / $4 > "/dev/stderr" }' \
        "$tmp/loops.tsv" 2>"$tmp/loop_ratios.txt"
    echo "  $lreps iterations a loop, best of $lruns runs; cpu = user + system ms per op; faults = minor"
    echo "  page faults per op (torch's depend on its heap's history: glibc decides when a freed"
    echo "  block's pages go back to the kernel). bench_kernels' rows above free each result first."
else
    echo "  failed:"; sed 's/^/  /' "$tmp/loops.err" | tail -n 3
fi

# ---- scaling --------------------------------------------------------------
# How time grows: grade over 100/1,000/10,000 sheets (per-sheet time should
# stay flat), check of sheets with 10/100/1,000 ops, and the copy kernel from
# 2^10 to 2^26 elements for tlab, torch and memcpy (a figure with gnuplot).

echo
echo "== Scaling"
if [ "$quick" = 1 ]; then gcounts="100"; ocounts="10 100"; ssizes=10,14,18,22
else gcounts="100 1000 10000"; ocounts="10 100 1000"; ssizes=10,12,14,16,18,20,22,24,26; fi
mkdir -p "$tmp/scale"
for n in $gcounts; do
    i=0
    while [ "$i" -lt "$n" ]; do
        for s in "$top"/tests/students/lab01-*.yaml; do
            cp "$s" "$tmp/scale/s$i.yaml"; i=$((i + 1)); [ "$i" -lt "$n" ] || break
        done
    done
    t0=$(now)
    "$TLAB" grade --lab "$top/labs/lab01.yaml" --jobs 2 "$tmp"/scale/s*.yaml >/dev/null 2>&1
    t1=$(now)
    kb=$(peak_rss_kb /dev/null /dev/null "$TLAB" grade --lab "$top/labs/lab01.yaml" --jobs 2 "$tmp"/scale/s*.yaml)
    echo "$n $t0 $t1 $kb" | awk '{ d = $3 - $2; printf "  grade lab01 x %-6d %8.3f s  %7.1f us/sheet  %8.0f sheets/s (--jobs 2)  peak RSS %s KiB\n", $1, d, 1e6 * d / $1, $1 / d, $4 }'
    echo "$n $t0 $t1" | awk '{ printf "%d %.0f\n", $1, $1 / ($3 - $2) }' >>"$tmp/grade_rates.txt"
    rm -f "$tmp"/scale/s*.yaml
done
for n in $ocounts; do
    { printf 'tlab: 1\nid: scale\nthreshold: 1\nsetup: |\n  import torch\n  x = torch.arange(24.).reshape(4, 6)\nops:\n'
      i=0
      while [ "$i" -lt "$n" ]; do
          case $((i % 4)) in
              0) op="x.t()" ;; 1) op="x.t().contiguous()" ;; 2) op="x[1:, ::2]" ;; *) op="x.reshape(6, 4)" ;;
          esac
          printf '  - {id: "%d", op: "%s", predict: view}\n' "$i" "$op"; i=$((i + 1))
      done; } > "$tmp/ops$n.yaml"
    w=$(best_wall 5 "$TLAB" check "$tmp/ops$n.yaml")
    echo "$n $w" | awk '{ printf "  check of %-5d ops   %8.3f ms  %7.1f us/op\n", $1, 1e3 * $2, 1e6 * $2 / $1 }'
done
if [ -x "$kernels" ]; then
    "$kernels" --min-time "$mintime" --sizes "$ssizes" --ops copy,memcpy >"$tmp/s_tlab.tsv" 2>/dev/null
    if [ "$torch_ok" = 1 ]; then
        "$PYTHON" "$here/torch_kernels.py" --min-time "$mintime" --sizes "$ssizes" --ops copy \
            >"$tmp/s_torch.tsv" 2>/dev/null || : >"$tmp/s_torch.tsv"
    else
        : >"$tmp/s_torch.tsv"
    fi
    awk -F'\t' 'FNR == 1 { next } FILENAME == ARGV[1] { t[$1 "/" $2] = $4 * 1e9 / $3; k[$2] = 1 }
        FILENAME == ARGV[2] { p[$2] = $4 * 1e9 / $3 }
        END { printf "  %4s %14s %14s %14s\n", "k", "tlab copy ns/e", "torch ns/e", "memcpy ns/e"
              for (i = 0; i <= 30; i++) if (i in k)
                  printf "  %4d %14.3f %14s %14.3f\n", i, t["copy/" i], (i in p) ? sprintf("%.3f", p[i]) : "n/a", t["memcpy/" i] }' \
        "$tmp/s_tlab.tsv" "$tmp/s_torch.tsv" | tee "$tmp/scaling.txt"
    if command -v gnuplot >/dev/null 2>&1 && [ -n "${BENCH_FIGURE:-}" ]; then
        awk 'NR > 1 { print $1, $2, ($3 == "n/a" ? "NaN" : $3), $4 }' "$tmp/scaling.txt" > "$tmp/scaling.dat"
        gnuplot <<GP 2>/dev/null && echo "  figure: $BENCH_FIGURE"
set terminal svg size 800,480 font "sans,12"
set output "$BENCH_FIGURE"
set title "x.clone() of float32 x: time per element against size (one thread)"
set xlabel "log2(elements)"
set ylabel "ns per element"
set logscale y
set key top left
set grid
plot "$tmp/scaling.dat" using 1:2 with linespoints title "tlab", \
     "$tmp/scaling.dat" using 1:3 with linespoints title "torch 1.13", \
     "$tmp/scaling.dat" using 1:4 with linespoints title "memcpy"
GP
    fi
fi

# ---- summary --------------------------------------------------------------

echo
echo "== Headline (geometric mean of tlab/torch; below 1: tlab is faster)"
# gm LIST: the geometric mean and its row count ("0.56 (33 rows)"); gm1
# LIST the mean alone; kern OP: the kernel ratios of OP ("all": every op
# but memcpy), one a line
gm() { echo "$*" | tr '\n' ' ' | awk '{ for (i = 1; i <= NF; i++) { s += log($i); n++ } }
    END { if (n) printf "%.2f (%d rows)", exp(s / n), n; else printf "n/a" }'; }
gm1() { gm "$@" | cut -d' ' -f1; }
kern() { awk -v o="$1" '$1 == o || (o == "all" && $1 != "memcpy") {print $2}' "$tmp/k_ratios.txt" 2>/dev/null; }
# transpose at 4096^2 against this machine's memcpy bandwidth: "% ms ms"
tpct=$(awk -F'\t' '$2 == 24 && ($1 == "transpose" || $1 == "memcpy") { t[$1] = $4 }
    END { if (("transpose" in t) && ("memcpy" in t))
            printf "%.0f %.2f %.2f", 100 * t["memcpy"] / t["transpose"], t["transpose"] * 1e3, t["memcpy"] * 1e3 }' \
    "$tmp/k_tlab.tsv" 2>/dev/null)
echo "  end-to-end (check + grade rows): $(gm "$e2e_ratios")"
if [ -s "$tmp/k_ratios.txt" ]; then
    for op in copy transpose to_f16 add_bcast sum_dim gather matmul; do
        echo "  kernel $(printf '%-10s' "$op"): $(gm "$(kern "$op")")"
    done
    echo "  kernels, all rows:         $(gm "$(kern all)")"
    [ -n "$tpct" ] && echo "$tpct" |
        awk '{ printf "  transpose at 4096^2: %s %% of memcpy bandwidth (%s vs %s ms)\n", $1, $2, $3 }'
fi
for op in clone add_bcast transpose; do
    v=$(awk -v o="$op" '$1 == o {print $2}' "$tmp/loop_ratios.txt" 2>/dev/null)
    [ -n "$v" ] && echo "  script loop $(printf '%-13s' "$op"): $(gm "$v" | cut -d' ' -f1) (wall, tlab exec vs torch)"
done

# ---- issue #15's targets --------------------------------------------------
# Each target with this run's value: "met", "NOT met", or "n/a" (not measured).
echo
echo "== Targets (issue #15; this run's values)"
[ "$quick" = 1 ] && echo "  (BENCH_QUICK: a smoke run's sizes and repeats; the targets are for a full run)"
target() { # label value op limit unit
    echo "$1|$2|$3|$4|$5" | awk -F'|' '{
        v = $2; st = "n/a"
        if (v != "n/a" && v != "") st = (($3 == "<=" && v + 0 <= $4 + 0) || ($3 == ">=" && v + 0 >= $4 + 0)) ? "met" : "NOT met"
        if (v == "") v = "n/a"
        printf "  %-38s %16s %2s %-16s %s\n", $1, (v == "n/a" ? v : v $5), $3, $4 $5, st }'
}
target "kernel clone (tlab/torch)" "$(gm1 "$(kern copy)")" "<=" 0.9 ""
target "kernel x.t().contiguous()" "$(gm1 "$(kern transpose)")" "<=" 0.83 ""
target "transpose at 4096^2, % of memcpy" "${tpct%% *}" ">=" 40 "%"
target "kernel x.to(float16)" "$(gm1 "$(kern to_f16)")" "<=" 1.0 ""
target "kernel x + b" "$(gm1 "$(kern add_bcast)")" "<=" 1.0 ""
target "kernel x.sum(1)" "$(gm1 "$(kern sum_dim)")" "<=" 1.5 ""
target "kernel gather" "$(gm1 "$(kern gather)")" "<=" 1.5 ""
target "all kernel rows" "$(gm1 "$(kern all)")" "<=" 1.0 ""
mm=$(awk '$1 == "matmul" && $3 == 18 { printf "%.2f", $2 }' "$tmp/k_ratios.txt" 2>/dev/null)
target "matmul 512x512 (tlab/torch)" "${mm:-n/a}" "<=" 3.0 ""
worst=$(awk '(m == "" || $2 > m) && $2 != "" { m = $2; w = $1 } END { if (m != "") printf "%.3f %s", m * 1e3, w }' \
    "$tmp/check_rows.txt" 2>/dev/null)
target "tlab check, slowest sheet (${worst#* })" "${worst%% *}" "<=" 1.5 " ms"
grate=$(awk '$1 >= 1000 && (m == "" || $2 < m) { m = $2 } END { print (m == "" ? "n/a" : m) }' \
    "$tmp/grade_rates.txt" 2>/dev/null)
target "grade --jobs 2 (lowest at >= 1,000)" "$grate" ">=" 10000 " sheets/s"
echo "  load average at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
exit 0
