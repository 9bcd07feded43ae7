#!/bin/sh
# What graph creation costs under nhood against MPI's own, MPICH at NP
# ranks (default 4): nhood-create alternates PMPI_Dist_graph_create_adjacent
# and the intercepted call in one run (medians over REPS), on an irregular
# hub, a random irregular graph, the 3-D Moore torus and the same mesh,
# created and freed, then created, used once (MPI_Ineighbor_alltoallv)
# and freed, then a step of a program that rebuilds its graph every step
# (used once, freed, then an MPI_Barrier on the parent: use_once "step").
# Then a process's first creation (the 3-D Moore torus, MPI's
# own first-time work included): FIRST runs of nhood-create --first, each
# side in processes of its own, alternating; the row's use_once column
# says "first" and its times are the medians over those runs.
# Writes docs/create-mpich-<NP>ranks.csv unless OUT is given.
# Usage: run-create-bench.sh [NP [REPS [OUT [FIRST]]]], from the build tree.
# YIELD=1: MPICH's idle polling gives up the core (test/bench/
# yield_progress.c, preloaded in every rank in front of nhood), for more
# ranks than cores, where MPICH's synchronizations otherwise take the
# scheduler's quantum each.
set -e
np=${1:-4}
reps=${2:-20}
out=${3:-docs/create-mpich-${np}ranks.csv}
first=${4:-11}
: "${MPIEXEC:=mpiexec.mpich}"
lib=${NHOOD_LIB:-.libs/libnhood.so}
[ -x ./nhood-create ] || make nhood-create >/dev/null
if [ -n "${YIELD:-}" ]; then
    y=test/bench/.libs/libyield_progress.so
    [ -f "$y" ] || make test/bench/libyield_progress.la >/dev/null
    lib="$PWD/$y:$lib"
fi
pre=$(sh "$(dirname "$0")/nhood-run" --env-flags "LD_PRELOAD=$lib") || exit 2
median() { sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nhood-create.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
{
    $MPIEXEC -n "$np" $pre ./nhood-create --reps "$reps"
    $MPIEXEC -n "$np" $pre ./nhood-create --reps "$reps" --use-once --no-header
    $MPIEXEC -n "$np" $pre ./nhood-create --reps "$reps" --step --no-header
    i=0
    while [ "$i" -lt "$first" ]; do
        for side in native nhood; do
            $MPIEXEC -n "$np" $pre ./nhood-create --graphs moore --first $side |
                awk -F, '$1 == "first" { print $5 }' >>"$tmp/$side"
        done
        i=$((i + 1))
    done
    n=$(median <"$tmp/native") m=$(median <"$tmp/nhood")
    echo "moore,$np,first,$n,$m,$(awk -v n="$n" -v m="$m" 'BEGIN { printf "%.3f", (n > 0 ? m / n : 0) }')"
} >"$out"
cat "$out"
