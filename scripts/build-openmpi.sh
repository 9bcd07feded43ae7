#!/bin/sh
# Builds nhood against Debian's Open MPI in build-openmpi/ (or
# $NHOOD_OPENMPI_BUILD): a clone of this repository's HEAD, so the MPICH
# build here is untouched.  A build already at HEAD is kept (--fresh
# rebuilds it).  Prints the directory.  Uncommitted changes are not in it.
set -e
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
command -v mpicc.openmpi >/dev/null || { echo "build-openmpi: mpicc.openmpi not found (scripts/install-deps.sh)" >&2; exit 2; }
dir=${NHOOD_OPENMPI_BUILD:-$top/build-openmpi}
head=$(git -C "$top" rev-parse HEAD)
if [ "${1:-}" = --fresh ] || [ ! -f "$dir/.libs/libnhood.so" ] ||
    [ "$(git -C "$dir" rev-parse HEAD 2>/dev/null)" != "$head" ]; then
    rm -rf "$dir"
    git clone -q "$top" "$dir"
    (cd "$dir" && autoreconf -fi >/dev/null 2>&1 && ./configure -q MPICC=mpicc.openmpi &&
        make -j2 >/dev/null) >&2 || { echo "build-openmpi: the build in $dir failed" >&2; exit 1; }
fi
echo "$dir"
