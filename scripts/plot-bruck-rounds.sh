#!/bin/sh
# Rounds and messages per rank against the neighborhood size s, for torus,
# torus_direct and bruck with 1, 2 and 8 ports (alltoall, 480 ranks, from
# nhood-sched: schedule statistics, no simulation): docs/sim/bruck-rounds.csv
# and docs/sim/bruck-rounds.png (needs gnuplot).
#
#   scripts/plot-bruck-rounds.sh [OUTDIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=${1:-$top/docs/sim}
tool=${NHOOD_SCHED:-$top/nhood-sched}
csv=$out/bruck-rounds.csv
{
    "$tool" --nbhd moore --dims 2 --radius 1 --procs 480
    for spec in "moore 2 2" "moore 2 3" "moore 3 1" "moore 3 2" "moore 3 3" "moore 4 1" \
        "moore 4 2" "moore 5 1" "vonneumann 3 2" "vonneumann 3 3" "octant 3 3" "shales 2 1" "shales 3 1"; do
        set -- $spec
        "$tool" --nbhd "$1" --dims "$2" --radius "$3" --procs 480 --no-header
    done
} | awk -F, 'NR == 1 || ($7 == "alltoall" && $8 ~ /^(torus|torus_direct|bruck|bruck:2|bruck:8)$/)' >"$csv"
dat=$(mktemp -d)
trap 'rm -rf "$dat"' EXIT
for a in torus torus_direct bruck bruck:2 bruck:8; do
    awk -F, -v a="$a" '$8 == a { print $9, $10, $11 }' "$csv" | sort -n >"$dat/$a.dat"
done
gnuplot -e "dir='$dat'; outfile='$out/bruck-rounds.png'" "$here/plot-bruck-rounds.gp"
echo "$csv"
