#!/bin/sh
# What graph creation costs under nhood against MPI's own, MPICH at NP
# ranks (default 4): nhood-create alternates PMPI_Dist_graph_create_adjacent
# and the intercepted call in one run (medians over REPS), on an irregular
# hub, a random irregular graph, the 3-D Moore torus and the same mesh,
# created and freed, then created, used once (MPI_Ineighbor_alltoallv)
# and freed.  Writes docs/create-mpich-<NP>ranks.csv unless OUT is given.
# Usage: run-create-bench.sh [NP [REPS [OUT]]], from the build tree.
set -e
np=${1:-4}
reps=${2:-20}
out=${3:-docs/create-mpich-${np}ranks.csv}
: "${MPIEXEC:=mpiexec.mpich}"
lib=${NHOOD_LIB:-.libs/libnhood.so}
[ -x ./nhood-create ] || make nhood-create >/dev/null
pre=$(sh "$(dirname "$0")/nhood-run" --env-flags "LD_PRELOAD=$lib") || exit 2
{
    $MPIEXEC -n "$np" $pre ./nhood-create --reps "$reps"
    $MPIEXEC -n "$np" $pre ./nhood-create --reps "$reps" --use-once --no-header
} >"$out"
cat "$out"
