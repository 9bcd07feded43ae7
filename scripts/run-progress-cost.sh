#!/bin/sh
# What NHOOD_PROGRESS=auto costs where nothing forwards, at 2 ranks
# (MPICH: before 4.3 the thread backend, at MPI_THREAD_MULTIPLE where a
# forwarding algorithm is forced; from 4.3 MPIX_Async, at the program's
# own level, registered only while a forwarding operation is
# outstanding): nhood-overhead's 8-byte
# Isend/Irecv/Waitall ping-pong (per round trip) and MPI_Test on
# MPI_REQUEST_NULL (per call), in RUNS rounds of four runs in turn:
#   native       no nhood, MPI_Init (MPI_THREAD_SINGLE)
#   native_mt    no nhood, MPI_Init_thread(MPI_THREAD_MULTIPLE)
#   nhood        nhood preloaded, defaults (MPI_THREAD_SINGLE)
#   nhood_fwd    nhood preloaded, NHOOD_ALGO=torus (the thread backend:
#                MPI_THREAD_MULTIPLE; MPIX_Async: MPI_THREAD_SINGLE)
# Each run alternates MPI_* and PMPI_* in itself (nhood-overhead); the
# rows give, per configuration, the median over runs of the MPI_* column
# (what the program pays), its ratio to native's, and the median of the
# in-run difference MPI_* - PMPI_* (nhood's wrappers alone).
# Usage: run-progress-cost.sh [RUNS] (default 5), from the build tree.
set -e
runs=${1:-5}
: "${MPIEXEC:=mpiexec.mpich}"
lib=${NHOOD_LIB:-.libs/libnhood.so}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nhood-progcost.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
one() { # one NAME PRELOAD "VAR=VAL" ARGS...
    name=$1 pre=$2 var=$3
    shift 3
    set -- ./nhood-overhead --rounds 21 --no-header "$@"
    if [ -n "$pre" ]; then
        # shellcheck disable=SC2086
        $MPIEXEC -n 2 $(sh "$(dirname "$0")/nhood-run" --env-flags "LD_PRELOAD=$lib" $var) "$@"
    else
        $MPIEXEC -n 2 "$@"
    fi | awk -F, -v n="$name" '$1 == "pingpong" || $1 == "test_null" { print n "," $1 "," $3 "," $6 }' >>"$tmp/all.csv"
}
i=0
while [ "$i" -lt "$runs" ]; do
    one native "" "" --level single
    one native_mt "" "" --level multiple
    one nhood 1 ""
    one nhood_fwd 1 "NHOOD_ALGO=torus"
    i=$((i + 1))
done
echo "config,what,runs,mpi_ns,ratio_to_native,wrapper_ns"
for what in pingpong test_null; do
    base=$(awk -F, -v w=$what '$1 == "native" && $2 == w { print $3 }' "$tmp/all.csv" | sort -g |
        awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
    for c in native native_mt nhood nhood_fwd; do
        awk -F, -v c=$c -v w=$what '$1 == c && $2 == w { print $3, $4 }' "$tmp/all.csv" |
            awk -v c=$c -v w=$what -v base="$base" '
                { m[NR] = $1; d[NR] = $2 }
                function med(a, n,    i, j, t) {
                    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
                }
                END { mm = med(m, NR); dd = med(d, NR); printf "%s,%s,%d,%.2f,%.4f,%.2f\n", c, w, NR, mm, mm / base, dd }'
    done
done
