#!/bin/sh
# Builds a second nhood against Debian's Open MPI in build-openmpi/ (a
# fresh clone of this repository's HEAD: scripts/build-openmpi.sh) and runs
# its tests there: up to 16 ranks, oversubscribed.  Debian's applications
# on Open MPI run under it in make check-clients.
set -e
here=$(cd "$(dirname "$0")" && pwd)
dir=$(sh "$here/build-openmpi.sh" --fresh)
cd "$dir"
status=0
make -j2 check >/dev/null 2>&1 || status=$?
# Installed: modules, and a program linked with -lnhood (no preload).
make check-install >check-install.log 2>&1 || status=$?
cat test/unit/*.log test/fuzz/*.log \
    test/mpi/run-mpi-tests.log test/mpi/run-tool-tests.log check-install.log | grep -v '^ok \|^PASS: '
exit $status
