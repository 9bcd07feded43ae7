#!/bin/sh
# The overlap benchmark (nhood-overlap) and the advisor's figures for it:
#  1. NHOOD_OVERLAP=defer, S = I = 1000 us, 2 KiB blocks: blocking native,
#     hand-written nonblocking native and nhood's blocking call under defer,
#     alternating in one run (OUT/overlap.csv);
#  2. the same under NHOOD_OVERLAP=report with the advisor's table
#     (OUT/overlap-report.txt) and CSV (OUT/overlap-advisor.csv): the
#     exchange's call site, its window beside I, and the bound beside the
#     gain measured in 1;
#  3. the per-call cost of each mode: S = I = 0, NHOOD_OVERLAP=off, report
#     and defer (OUT/overlap-overhead.csv), and what page protection itself
#     costs on this machine (OUT/overlap-mprotect.csv).
# Usage: scripts/run-overlap-bench.sh [NP] [ROUNDS]
# Environment: MPIEXEC, NHOOD_LIB as for nhood-run; BENCH (default
# ./nhood-overlap); OUT (default results).
set -e
np=${1:-2}
rounds=${2:-9}
here=$(cd "$(dirname "$0")" && pwd)
bench=${BENCH:-./nhood-overlap}
out=${OUT:-results}
mkdir -p "$out"
run() { # MODE ARGS...: one run of the benchmark under NHOOD_OVERLAP=MODE
    mode=$1
    shift
    NHOOD_OVERLAP=$mode "$here/nhood-run" -np "$np" "$bench" --rounds "$rounds" "$@"
}
export NHOOD_OVERLAP_CSV="$out/overlap-advisor.csv"
run defer --skew 1000 --interior 1000 --bytes 2048 >"$out/overlap.csv" 2>/dev/null
run report --skew 1000 --interior 1000 --bytes 2048 --no-header >/dev/null 2>"$out/overlap-report.txt"
unset NHOOD_OVERLAP_CSV
echo "variant,mode,procs,bytes,skew_us,interior_us,iter_us,ratio,wrong_bytes" >"$out/overlap-overhead.csv"
for mode in off report defer; do
    run $mode --skew 0 --interior 0 --bytes 2048 --iters 200 --no-header 2>/dev/null |
        grep '^nhood_blocking,' >>"$out/overlap-overhead.csv"
done
run off --mprotect >"$out/overlap-mprotect.csv" 2>/dev/null
cat "$out/overlap.csv"
grep '^nhood: overlap' "$out/overlap-report.txt" || true
cat "$out/overlap-advisor.csv" "$out/overlap-overhead.csv" "$out/overlap-mprotect.csv"
