#!/bin/sh
# The never-slower-than-native sweep: alltoall and allgather, blocking and
# nonblocking (MPI_Ineighbor_* + MPI_Wait), on the 3-D Moore neighborhood
# (r=1), 8 B to 1 MiB, native and nhood alternating in every run, under
# nhood's default (auto).  Every row runs TRIES times (default 1); the CSV
# keeps the try with the median ratio (FORCED: its forced columns from
# the try with the median forced_ratio).  Writes OUT/sweep.csv (nhood-bench's
# columns) and, with gnuplot, OUT/sweep.png; prints the worst ratio.
# Usage: scripts/run-sweep.sh [NP] [REPS] [TRIES]
# Environment: MPIEXEC, NHOOD_LIB as for nhood-run (Open MPI: MPIEXEC=
# "mpirun.openmpi --oversubscribe --mca mpi_yield_when_idle 1");
# BENCH (default ./nhood-bench, or build-openmpi/nhood-bench for
# Open MPI); OUT (default results); FORCED=1 also times every forced
# choice in the same alternation (nhood-bench --forced: the columns
# best_forced,best_forced_us,forced_ratio,wrong and pooled_forced,
# pooled_us,pooled_ratio, nhood-bench's; 3.5 times as long).
# wrong lists the variants whose results differ from the standard's
# (MPI's own all-to-all on MPICH 4.0, native and pmpi: a source listed
# twice); best_forced is the fastest of the others.  The run fails where
# nhood's default (auto) is among them.
set -e
np=${1:-2}
reps=${2:-1000}
tries=${3:-1}
here=$(cd "$(dirname "$0")" && pwd)
bench=${BENCH:-./nhood-bench}
out=${OUT:-results}
mkdir -p "$out"
csv="$out/sweep.csv"
echo "op,nbhd,dims,radius,procs,bytes,algorithm,native_us,nhood_us,ratio${FORCED:+,best_forced,best_forced_us,forced_ratio,wrong,pooled_forced,pooled_us,pooled_ratio}" >"$csv"
rm -f "$csv.tries"
for op in alltoall allgather; do
    for form in blocking nonblocking; do
        # Large blocks take long: fewer repetitions (at least 20).  (A
        # twentieth was too few: at 256 KiB, MPICH, 2 ranks, the medians of
        # 50 calls put nhood's default at 0.99 to 1.09 of the same forced
        # schedule in ten runs, of 200 calls at 0.99 to 1.05 in eight.)
        for sizes in "8,64,512,4096 $reps" "16384,65536 $((reps / 4))" \
            "262144,1048576 $((reps / 5 > 20 ? reps / 5 : 20))"; do
            set -- $sizes
            t=0
            while [ $t -lt "$tries" ]; do
                "$here/nhood-run" -np "$np" "$bench" --op "$op" --form "$form" --nbhd moore \
                    --dims 3 --radius 1 --bytes "$1" --reps "$2" --no-header \
                    ${FORCED:+--forced} >>"$csv.tries"
                t=$((t + 1))
            done
        done
    done
done
# nhood's default among the wrong results, in any try: a bug, the run fails
bad=
[ -z "${FORCED:-}" ] ||
    awk -F, '$14 ~ /(^|;)auto(;|$)/ { print "auto differs from the standard: " $0; bad = 1 }
        END { exit bad }' "$csv.tries" || bad=1
# Per row (op, bytes): the try with the median ratio; with FORCED, the
# forced columns from the try with the median forced_ratio, and the
# pooled ones (alike forced graphs as one choice) from the try with the
# median pooled_ratio, so that each bound is judged on its own median
# (the median-ratio try's forced_ratio was whichever try that was).
sort -t, -k1,1 -k6,6n -k10,10n "$csv.tries" | awk -F, -v OFS=, -v forced="${FORCED:-}" '
    # the try of key at the median of column col: its fields in f
    function median_try(key, n, col, f,    a, b, t, at, v) {
        for (a = 1; a <= n; a++) { at[a] = a; split(rows[key, a], v, ","); x[a] = v[col] + 0 }
        for (a = 2; a <= n; a++)
            for (b = a; b > 1 && x[at[b]] < x[at[b - 1]]; b--) { t = at[b]; at[b] = at[b - 1]; at[b - 1] = t }
        split(rows[key, at[int((n + 1) / 2)]], f, ",")
    }
    { key = $1 "," $6; rows[key, ++c[key]] = $0
      if (!(key in seen)) { seen[key] = 1; order[++k] = key } }
    END {
        for (i = 1; i <= k; i++) {
            key = order[i]; n = c[key]; row = rows[key, int((n + 1) / 2)]
            if (forced) {
                median_try(key, n, 13, f); $0 = row
                $11 = f[11]; $12 = f[12]; $13 = f[13]; $14 = f[14]
                if (NF >= 17) { median_try(key, n, 17, g); $15 = g[15]; $16 = g[16]; $17 = g[17] }
                row = $0
            }
            print row
        }
    }' >>"$csv"
rm -f "$csv.tries"
cat "$csv"
awk -F, 'NR > 1 && $10 > worst { worst = $10; row = $0 } END { print "worst: " row }' "$csv"
[ -z "${FORCED:-}" ] ||
    awk -F, 'NR > 1 && $13 > worst { worst = $13; row = $0 }
        NR > 1 && $17 > pw { pw = $17; prow = $0 }
        END { print "worst against the fastest forced choice: " row
              print "worst against it, alike forced graphs as one: " prow }' "$csv"
if command -v gnuplot >/dev/null 2>&1; then
    rm -f "$out"/series-*.dat
    awk -F, -v dir="$out" 'NR > 1 { print $6, $10 >> (dir "/series-" $1 ".dat") }' "$csv"
    gnuplot -e "outfile='$out/sweep.png'; dir='$out'; procs=$np" "$here/plot-bench.gp"
    rm -f "$out"/series-*.dat
    echo "plot: $out/sweep.png"
fi
[ -z "$bad" ]
