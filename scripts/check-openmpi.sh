#!/bin/sh
# Builds a second nhood against Debian's Open MPI in build-openmpi/ (a
# clone of this repository's HEAD, so the MPICH build here is untouched)
# and runs its tests there: up to 16 ranks, oversubscribed.
set -e
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
command -v mpicc.openmpi >/dev/null || { echo "check-openmpi: mpicc.openmpi not found (scripts/install-deps.sh)" >&2; exit 2; }
dir=${NHOOD_OPENMPI_BUILD:-$top/build-openmpi}
rm -rf "$dir"
git clone -q "$top" "$dir"
cd "$dir"
autoreconf -fi >/dev/null
./configure -q MPICC=mpicc.openmpi
make -j2 >/dev/null
status=0
make -j2 check >/dev/null 2>&1 || status=$?
cat test/unit/*.log test/fuzz/*.log \
    test/mpi/run-mpi-tests.sh.log | grep -v '^ok '
exit $status
