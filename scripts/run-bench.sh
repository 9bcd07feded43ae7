#!/bin/sh
# Runs the standard benchmark set (native and nhood side by side in every
# run) and renders results/bench.png.  Usage: scripts/run-bench.sh [NP] [REPS]
# Environment: MPIEXEC, NHOOD_LIB as for nhood-run; OUT (default results).
set -e
np=${1:-2}
reps=${2:-1000}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=${OUT:-results}
mkdir -p "$out"
csv="$out/bench.csv"
bytes=8,64,512,4096,65536
echo "op,nbhd,dims,radius,procs,bytes,algorithm,native_us,nhood_us,ratio" >"$csv"
for op in alltoall allgather; do
    for cfg in "moore 2 1" "moore 3 1" "moore 3 2" "vonneumann 3 2" "octant 3 1"; do
        set -- $cfg
        "$here/nhood-run" -np "$np" "$top/nhood-bench" --op "$op" --nbhd "$1" --dims "$2" \
            --radius "$3" --bytes "$bytes" --reps "$reps" --no-header >>"$csv"
    done
done
cat "$csv"
if command -v gnuplot >/dev/null 2>&1; then
    # One data file per (op, neighborhood) series: bytes and ratio.
    rm -f "$out"/series-*.dat
    awk -F, -v dir="$out" 'NR > 1 {
        f = dir "/series-" $1 "-" $2 "-d" $3 "r" $4 ".dat"; print $6, $10 >> f }' "$csv"
    gnuplot -e "outfile='$out/bench.png'; dir='$out'; procs=$np" "$here/plot-bench.gp"
    echo "plot: $out/bench.png"
fi
