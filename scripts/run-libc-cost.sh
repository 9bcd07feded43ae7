#!/bin/sh
# What nhood's preloaded libraries add to the C library's calls: the
# malloc_free and write64 rows of nhood-overhead (each call through its
# name against glibc's own entry point, alternating in one run) under
#   none       nothing preloaded
#   libnhood   libnhood.so alone (NHOOD_OVERLAP off: no C library name)
#   overlap    libnhood.so + libnhood-overlap.so, NHOOD_OVERLAP=report
#              (the wrappers in place, nothing watched: what every
#              allocation and I/O call pays while the advisor runs)
#   combined   OLD_LIB, a libnhood.so from before the split (wrappers built
#              in), NHOOD_OVERLAP off; only where OLD_LIB is set
# TRIES runs of each, the configurations alternating; per configuration
# and row the median over the runs of the difference (ns per call).
#   scripts/run-libc-cost.sh [NP] [TRIES] [ROUNDS]    (MPICH: NP <= 2)
# Prints CSV: config,what,through_ns,own_ns,diff_ns.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
np=${1:-2} tries=${2:-5} rounds=${3:-41}
mpiexec=${MPIEXEC:-mpiexec.mpich}
lib=${NHOOD_LIB:-$top/.libs/libnhood.so}
ov=$(dirname "$lib")/libnhood-overlap.so
bench=${BENCH:-$top/nhood-overhead}
configs="none libnhood overlap"
[ -n "${OLD_LIB:-}" ] && configs="$configs combined"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
env_flags() { MPIEXEC=$mpiexec sh "$top/scripts/nhood-run" --env-flags "$@"; }
one() { # CONFIG: one run, its two rows appended to $tmp/CONFIG
    case "$1" in
    none) set -- "$1" ;;
    libnhood) set -- "$1" $(env_flags "LD_PRELOAD=$lib" NHOOD_OVERLAP=off) ;;
    overlap) set -- "$1" $(env_flags "LD_PRELOAD=$lib:$ov" NHOOD_OVERLAP=report) ;;
    combined) set -- "$1" $(env_flags "LD_PRELOAD=$OLD_LIB" NHOOD_OVERLAP=off) ;;
    esac
    c=$1
    shift
    $mpiexec -n "$np" "$@" "$bench" --rounds "$rounds" --no-header 2>/dev/null |
        grep -E '^(malloc_free|write64),' >>"$tmp/$c"
}
for t in $(seq "$tries"); do
    for c in $configs; do one "$c"; done
done
echo "config,what,through_ns,own_ns,diff_ns"
for c in $configs; do
    for w in malloc_free write64; do
        grep "^$w," "$tmp/$c" | awk -F, -v c="$c" -v w="$w" '
            { th[NR] = $3; ow[NR] = $4; d[NR] = $6 }
            function med(a, n,   i, j, x) {
                for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j] < a[j - 1]; j--) { x = a[j]; a[j] = a[j - 1]; a[j - 1] = x }
                return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
            END { printf "%s,%s,%.2f,%.2f,%.2f\n", c, w, med(th, NR), med(ow, NR), med(d, NR) }'
    done
done
