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
# mpi4py (Debian's python3-mpi4py, built on Open MPI; MPI_THREAD_MULTIPLE):
# nhood must stay on, run the calls and get them right.
py=/usr/bin/python3
if $py -c 'import mpi4py' 2>/dev/null; then
    pass=0 fail=0
    for np in 1 2 4 8; do
        if OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 300 mpirun.openmpi \
            --oversubscribe --mca mpi_yield_when_idle 1 -np $np -x LD_PRELOAD="$dir/.libs/libnhood.so" \
            -x NHOOD_REPORT=1 $py "$top/test/mpi/test_mpi4py.py" >mpi4py.out 2>mpi4py.err &&
            grep -q '^mpi4py thread level 3, ok$' mpi4py.out &&
            grep -Eq '^nhood: comm=[0-9]+ op=alltoall pattern=isomorphic .*algorithm=(direct|torus|torus_direct) ' mpi4py.err &&
            ! grep -q '^nhood: off' mpi4py.err; then
            pass=$((pass + 1))
            echo "ok mpi4py np=$np"
        else
            fail=$((fail + 1))
            echo "not ok mpi4py np=$np"
            cat mpi4py.out mpi4py.err | sed 's/^/    /' | tail -10
            status=1
        fi
    done
    echo "$pass passed, $fail failed"
else
    echo "skip mpi4py (python3-mpi4py not installed)"
fi
exit $status
