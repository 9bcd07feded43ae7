#!/bin/sh
# Builds scripts/coll-forms.c against MPICH and Open MPI and runs it at 2
# ranks at both thread levels: what blocking collectives would cost as
# nonblocking ones, and what MPI_THREAD_MULTIPLE costs each library
# (docs/nonblocking.md).  Prints CSV:
# mpi,level,procs,allreduce_us,iallreduce_us,barrier_us,ibarrier_us,exchange_us
set -e
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nhood-collforms.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "mpi,level,procs,allreduce_us,iallreduce_us,barrier_us,ibarrier_us,exchange_us"
mpicc.mpich -O2 "$here/coll-forms.c" -o "$tmp/mpich"
for l in 0 1; do printf 'mpich,'; mpiexec.mpich -n 2 "$tmp/mpich" $l; done
if command -v mpicc.openmpi >/dev/null; then
    mpicc.openmpi -O2 "$here/coll-forms.c" -o "$tmp/openmpi"
    [ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    for l in 0 1; do printf 'openmpi,'; mpiexec.openmpi --oversubscribe -n 2 "$tmp/openmpi" $l; done
fi
