#!/bin/sh
# What learning looks like call by call (docs/algorithms.md, "Learning"):
# nhood-bench --learning CALLS --trace on the README's demo exchange (3-D
# Moore alltoall, blocks of BYTES), MPI's own calls and nhood's default
# alternating graph by graph, TRIES fresh graphs each: the median of the
# slowest rank's time of each call (call 0: the graph's creation).
# Writes OUT (default docs/learning-trace-mpich-<NP>ranks.csv) and prints
# it as a figure: one line for creation (call 0) and each of the cold
# tier's calls (the default NHOOD_WARMUP), then per window of calls: 6
# from the analysis on (a candidate's trials: 3 untimed, 3 timed; the
# analysis runs in the first) up to call 74, 75-100, 100 after; the window's mean times (what a run pays), nhood's as a bar (one # per 2 us, up
# to 60).
# Usage: scripts/run-learning-trace.sh [NP [CALLS [TRIES [BYTES [OUT]]]]]
# Environment: MPIEXEC, NHOOD_LIB as for nhood-run; BENCH (default
# ./nhood-bench).
set -e
np=${1:-2}
calls=${2:-300}
tries=${3:-9}
bytes=${4:-4096}
out=${5:-docs/learning-trace-mpich-${np}ranks.csv}
here=$(cd "$(dirname "$0")" && pwd)
bench=${BENCH:-./nhood-bench}
"$here/nhood-run" -np "$np" "$bench" --op alltoall --nbhd moore --dims 3 --radius 1 \
    --bytes "$bytes" --reps "$tries" --learning "$calls" --trace >"$out"
awk -F, 'NR == 1 { next }
    function mean(a, n,    i, t) {
        for (i = 1; i <= n; i++) t += a[i]
        return t / n
    }
    function flush(   m, nm, bar, k) {
        if (!n) return
        m = mean(na, n); nm = mean(ha, n); bar = ""
        for (k = 0; k < nm / 2 && k < 60; k++) bar = bar "#"
        printf "%-9s %9.1f %9.1f  %s\n", (lo == hi ? lo : lo "-" hi), m, nm, bar
        n = 0
    }
    BEGIN { printf "%-9s %9s %9s\n", "call", "mpi_us", "nhood_us" }
    {
        c = $7; w = c <= 2 ? c : c <= 74 ? 3 + int((c - 3) / 6) : c <= 100 ? 100 : 1000 + int((c - 1) / 100)
        if (n && w != win) flush()
        if (!n) lo = c
        win = w; hi = c; n++; na[n] = $8; ha[n] = $9
    }
    END { flush() }' "$out"
