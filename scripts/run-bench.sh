#!/bin/sh
# Runs the standard benchmark set (native and nhood side by side in every
# run) and renders results/bench.png; then the v/w collectives in every
# form (blocking, nonblocking = MPI_Ineighbor_* + MPI_Wait, persistent =
# MPI_Start + MPI_Wait where the library is MPI-4) on the 3-D Moore
# neighborhood into results/bench-vforms.csv and .png.
# Usage: scripts/run-bench.sh [NP] [REPS]
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
vcsv="$out/bench-vforms.csv"
echo "op,nbhd,dims,radius,procs,bytes,algorithm,native_us,nhood_us,ratio" >"$vcsv"
forms="blocking nonblocking"
"$here/nhood-run" -np 1 "$top/nhood-bench" --op alltoallv --form persistent --bytes 8 --reps 4 \
    --no-header >/dev/null 2>&1 && forms="$forms persistent"
for op in alltoallv allgatherv alltoallw; do
    for form in $forms; do
        "$here/nhood-run" -np "$np" "$top/nhood-bench" --op "$op" --form "$form" --nbhd moore \
            --dims 3 --radius 1 --bytes 8,64,512,4096 --reps "$reps" --no-header >>"$vcsv"
    done
done
cat "$csv" "$vcsv"
if command -v gnuplot >/dev/null 2>&1; then
    # One data file per (op, neighborhood) series: bytes and ratio.
    rm -f "$out"/series-*.dat
    awk -F, -v dir="$out" 'NR > 1 {
        f = dir "/series-" $1 "-" $2 "-d" $3 "r" $4 ".dat"; print $6, $10 >> f }' "$csv"
    gnuplot -e "outfile='$out/bench.png'; dir='$out'; procs=$np" "$here/plot-bench.gp"
    echo "plot: $out/bench.png"
    rm -f "$out"/series-*.dat
    awk -F, -v dir="$out" 'NR > 1 { print $6, $10 >> (dir "/series-" $1 ".dat") }' "$vcsv"
    gnuplot -e "outfile='$out/bench-vforms.png'; dir='$out'; procs=$np" "$here/plot-bench.gp"
    rm -f "$out"/series-*.dat
    echo "plot: $out/bench-vforms.png"
fi
