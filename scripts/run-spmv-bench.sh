#!/bin/sh
# Runs the SpMV benchmark (native and nhood side by side in every run) over a
# set of latency-bound matrices and renders results/spmv.png.
# Usage: scripts/run-spmv-bench.sh [NP] [REPS]
# Environment: MPIEXEC, NHOOD_LIB as for nhood-run (an Open MPI launcher
# needs a build configured with MPICC=mpicc.openmpi; pass its options in
# MPIEXEC, e.g. MPIEXEC="mpirun.openmpi --oversubscribe --mca mpi_yield_when_idle 1");
# OUT (default results); MATRICES (specs separated by spaces); PART
# (rowblock, nnz, metis, file:PATH; default rowblock); FORM (blocking, or
# nonblocking: MPI_Ineighbor_alltoallv + MPI_Wait; default blocking).
set -e
np=${1:-2}
reps=${2:-200}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=${OUT:-results}
part=${PART:-rowblock}
form=${FORM:-blocking}
matrices=${MATRICES:-"powerlaw:20000:8:2.2:0 powerlaw:20000:8:2.2:2 powerlaw:100000:4:2.0:4 rmat:15:8"}
mkdir -p "$out"
csv="$out/spmv.csv"
echo "matrix,procs,scheme,mmax,mavg,vavg,comm_us,spmv_us" >"$csv"
for m in $matrices; do
    "$here/nhood-run" -np "$np" "$top/nhood-spmv" --matrix "$m" --part "$part" --reps "$reps" \
        --form "$form" --no-header >>"$csv"
done
cat "$csv"
if command -v gnuplot >/dev/null 2>&1; then
    # One line per matrix: native and nhood comm and SpMV times.
    awk -F, 'NR > 1 { if ($3 ~ /^native/) { nc[$1] = $7; ns[$1] = $8; order[++n] = $1 }
                      else { hc[$1] = $7; hs[$1] = $8; sch = $3 } }
             END { print "matrix native_comm", sch "_comm", "native_spmv", sch "_spmv";
                   for (i = 1; i <= n; i++) { k = order[i]; print k, nc[k], hc[k], ns[k], hs[k] } }' \
        "$csv" >"$out/spmv.dat"
    gnuplot -e "outfile='$out/spmv.png'; datafile='$out/spmv.dat'; procs=$np" "$here/plot-spmv.gp"
    echo "plot: $out/spmv.png"
fi
