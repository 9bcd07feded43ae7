#!/bin/sh
# What learning costs (docs/benchmarks.md, "What learning costs"): for
# each row of the sweep (3-D Moore alltoall and allgather, blocking and
# nonblocking, 8 B to 1 MiB), whole runs of CALLS calls on a fresh graph
# (creation, the calls, MPI_Comm_free), each variant in turn per try:
# MPI's own calls, nhood's default (cold tier, analysis and learning
# included) and every forced choice (nhood-bench --learning).  Writes
# OUT/learning.csv, and OUT/learning-points.csv (the nonblocking rows
# with an MPI_Allreduce on MPI_COMM_WORLD after every tenth call), and
# prints the worst ratio of the default's total to the fastest fixed
# choice's in each, and the worst held out (held_ratio: the fastest fixed
# choice taken by the even tries' medians, it and the default timed by
# the odd tries'; the least of several noisy medians favors the fixed
# side), and both paired (paired_ratio, held_paired_ratio: the median of
# each try's ratio, whose two sides ran back to back; the host's speed
# changes for seconds at a time).  Column wrong lists the variants whose
# results differ from the standard's (MPI's own all-to-all on MPICH 4.0:
# a source listed twice); the fastest fixed choice is the fastest of the
# others.  The run fails where nhood's default (auto) is among them.
# Usage: scripts/run-learning-bench.sh [NP] [CALLS] [TRIES (default 6)]
# Environment: MPIEXEC, NHOOD_LIB as for nhood-run; BENCH (default
# ./nhood-bench); OUT (default results/learning); extra NHOOD_* settings
# (the wrong constants of scripts/run-tuning-bench.sh, for example) pass
# through.
set -e
np=${1:-2}
calls=${2:-1000}
tries=${3:-6}
here=$(cd "$(dirname "$0")" && pwd)
bench=${BENCH:-./nhood-bench}
out=${OUT:-results/learning}
mkdir -p "$out"
csv="$out/learning.csv"
echo "op,nbhd,dims,radius,procs,bytes,calls,native_us,auto_us,best_fixed,best_fixed_us,ratio,wrong,held_best,held_ratio,paired_ratio,held_paired_ratio" >"$csv"
for op in alltoall allgather; do
    for form in blocking nonblocking; do
        "$here/nhood-run" -np "$np" "$bench" --op "$op" --form "$form" --nbhd moore --dims 3 \
            --radius 1 --bytes 8,64,512,4096,16384,65536,262144,1048576 --reps "$tries" \
            --learning "$calls" --no-header >>"$csv"
    done
done
# The nonblocking rows again, every variant making an MPI_Allreduce on
# MPI_COMM_WORLD after every tenth call (a residual's check): points on
# the graph's parent, where a graph that only nonblocking calls use is
# analyzed and its trials agree (docs/algorithms.md, "Tiers").
pcsv="$out/learning-points.csv"
head -n 1 "$csv" >"$pcsv"
for op in alltoall allgather; do
    "$here/nhood-run" -np "$np" "$bench" --op "$op" --form nonblocking --nbhd moore --dims 3 \
        --radius 1 --bytes 8,64,512,4096,16384,65536,262144,1048576 --reps "$tries" \
        --learning "$calls" --allreduce-every 10 --no-header >>"$pcsv"
done
cat "$csv"
worst() {
    awk -F, 'NR > 1 && $12 > w { w = $12; r = $0 } NR > 1 && $15 != "-" && $15 > h { h = $15; q = $0 }
        NR > 1 && $16 > pw { pw = $16; pr = $0 } NR > 1 && $17 != "-" && $17 > ph { ph = $17; pq = $0 }
        END { print "worst: " r; if (q) print "worst held out: " q
              print "worst paired: " pr; if (pq) print "worst paired held out: " pq }' "$1"
}
worst "$csv"
echo "with an MPI_Allreduce on MPI_COMM_WORLD every 10 calls ($pcsv):"
cat "$pcsv"
worst "$pcsv"
# nhood's default among the wrong results: a bug, the run fails
awk -F, 'FNR > 1 && $13 ~ /(^|;)auto(;|$)/ { print "auto differs from the standard: " $0; bad = 1 }
    END { exit bad }' "$csv" "$pcsv"
