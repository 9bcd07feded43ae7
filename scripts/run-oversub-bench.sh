#!/bin/sh
# More ranks than cores: the box-halo exchange (MPI_Neighbor_alltoallv on
# the non-periodic 3-D Moore neighborhood, r = 1, no hint, the graph on
# MPI_COMM_WORLD: nhood infers the mesh) at each rank count in NPS on this
# machine's cores, native and nhood (auto) alternating in every run.
# Blocks by offset class as a 16^3 box of doubles sends them: 8 B to a
# corner, 128 B along an edge, 2048 B across a face.  Every count runs
# TRIES times; the CSV keeps every try, and the summary line per count is
# the median ratio nhood / native.
# Usage: scripts/run-oversub-bench.sh [NPS] [TRIES] [REPS]
#   NPS: rank counts, comma-separated (default 8,27).
# Environment: MPIEXEC (default Open MPI, oversubscribed, yielding when
# idle), BENCH (default build-openmpi/nhood-bench), NHOOD_LIB (default
# its libnhood.so), OUT (default results).
set -e
nps=${1:-8,27}
tries=${2:-5}
reps=${3:-200}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
: "${MPIEXEC:=mpirun.openmpi --oversubscribe --mca mpi_yield_when_idle 1}"
bench=${BENCH:-$top/build-openmpi/nhood-bench}
: "${NHOOD_LIB:=$(dirname "$bench")/.libs/libnhood.so}"
export MPIEXEC NHOOD_LIB
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=${OUT:-results}
mkdir -p "$out"
csv="$out/oversub.csv"
echo "cores,op,nbhd,dims,radius,procs,bytes,algorithm,native_us,nhood_us,ratio" >"$csv"
cores=$(nproc)
for np in $(echo "$nps" | tr ',' ' '); do
    t=0
    while [ $t -lt "$tries" ]; do
        "$here/nhood-run" -np "$np" "$bench" --op alltoallv --nbhd moore --dims 3 --radius 1 --mesh \
            --class-bytes 8,128,2048 --reps "$reps" --no-header | sed "s/^/$cores,/" >>"$csv"
        t=$((t + 1))
    done
done
# Per rank count: the median ratio over the tries, and the algorithm auto ran.
awk -F, 'NR > 1 { n[$6]++; r[$6, n[$6]] = $11; a[$6] = $8; c = $1 }
    END { for (p in n) { k = n[p]; for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
              if (r[p, j] < r[p, i]) { x = r[p, i]; r[p, i] = r[p, j]; r[p, j] = x }
              printf "procs=%s cores=%s tries=%d algorithm=%s median_ratio=%s\n", p, c, k, a[p],
                  r[p, int((k + 1) / 2)] } }' "$csv" | sort -t= -k2,2n
