#!/bin/sh
# The 3-D stencil (nhood-stencil: MPI_Neighbor_alltoallw on a graph made
# from the offsets, Iso_neighbor_alltoallw on an Iso communicator; derived
# datatypes) under nhood's default, with MPI's own exchange and each of
# nhood's algorithms forced (each on a graph of its own) timed in the same
# alternation (nhood-stencil --forced).  Every row runs TRIES times; the
# CSV keeps the try with the median fixed_ratio (nhood's time over the
# fastest of MPI's own and the forced choices).  Writes OUT/stencil.csv
# and prints the worst row.
# Usage: scripts/run-stencil-forced.sh [NP] [REPS] [TRIES]
# Environment: MPIEXEC, NHOOD_LIB as for nhood-run; BENCH (default
# ./nhood-stencil); OUT (default results/stencil).
set -e
np=${1:-2}
reps=${2:-500}
tries=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
bench=${BENCH:-./nhood-stencil}
out=${OUT:-results/stencil}
mkdir -p "$out"
csv="$out/stencil.csv"
rm -f "$csv.tries"
t=0
while [ $t -lt "$tries" ]; do
    "$here/nhood-run" -np "$np" "$bench" --dims 3 --reps "$reps" --forced >"$csv.run"
    head -n 1 "$csv.run" >"$csv.head"
    tail -n +2 "$csv.run" >>"$csv.tries"
    t=$((t + 1))
done
cat "$csv.head" >"$csv"
# Per row (nbhd, halo depth, variant): the try with the median fixed_ratio.
sort -t, -k2,2 -k4,4n -k7,7 -k13,13n "$csv.tries" | awk -F, -v n="$tries" '
    { key = $2 "," $4 "," $7; rows[key, ++c[key]] = $0; if (!(key in seen)) { seen[key] = 1; order[++k] = key } }
    END { for (i = 1; i <= k; i++) print rows[order[i], int((c[order[i]] + 1) / 2)] }' >>"$csv"
rm -f "$csv.tries" "$csv.run" "$csv.head"
cat "$csv"
awk -F, 'NR > 1 && $13 > worst { worst = $13; row = $0 } END { print "worst against the fastest fixed choice: " row }' "$csv"
