#!/bin/sh
# make check-sanitizers: builds nhood with --enable-sanitizers (ASan and
# UBSan) in build-sanitizers/ (a clone of this repository's HEAD, so the
# build here is untouched) and runs `make check` there.  Every MPI rank
# preloads the sanitizer runtimes before libnhood; any ASan, LSan or UBSan
# report fails its test.  MPICH's and UCX's own leaks are suppressed by
# test/lsan.supp.  NHOOD_SAN_MPICC picks the MPI (default mpicc.mpich).
set -e
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
dir=${NHOOD_SAN_BUILD:-$top/build-sanitizers}
rm -rf "$dir"
git clone -q "$top" "$dir"
cd "$dir"
autoreconf -fi >/dev/null
./configure -q --enable-sanitizers MPICC="${NHOOD_SAN_MPICC:-mpicc.mpich}"
make -j2 >/dev/null
status=0
make -j2 check >/dev/null 2>&1 || status=$?
cat test/unit/*.log test/fuzz/*.log test/mpi/*.log 2>/dev/null | grep -v '^ok '
exit $status
