#!/bin/sh
# MPICH's own tests under nhood.  Fetches MPICH's test/mpi from Debian's
# source package (enabling deb-src once), builds the neighborhood, topology
# and all-to-all tests against the installed MPICH, runs each natively and
# then with libnhood preloaded in every mode below, and requires every test
# that passes natively to pass in every mode.  Prints "N passed, N failed".
#
# Environment: NHOOD_LIB (libnhood.so), NHOOD_MPICH_SRC (where the source
# goes, default build-mpich-tests/), NHOOD_MPICH_MODES (space-separated
# VAR=VALUE[,VAR=VALUE] sets, "nhood" for defaults), MPIEXEC.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
lib=${NHOOD_LIB:-$top/.libs/libnhood.so}
src=${NHOOD_MPICH_SRC:-$top/build-mpich-tests}
mpiexec=${MPIEXEC:-mpiexec.mpich}
modes=${NHOOD_MPICH_MODES:-"nhood NHOOD_ALGO=direct NHOOD_ALGO=torus NHOOD_ALGO=torus_direct NHOOD_ALGO=bruck NHOOD_ALGO=pmpi NHOOD_PROGRESS=poll NHOOD_PROGRESS=poll,NHOOD_ALGO=torus NHOOD_INPLACE_ALGO=lsa NHOOD_INPLACE_ALGO=pmpi NHOOD_INPLACE_AUXMEM=4096"}
# Script variables, not nhood settings: keep them away from the tests (nhood
# warns about unknown NHOOD_* variables, and MPICH's runner fails on output).
unset NHOOD_MPICH_SRC NHOOD_MPICH_MODES
[ -f "$lib" ] || { echo "check-mpich: $lib not found (build first)" >&2; exit 2; }

# 1. The source, once.
tests_dir=$(ls -d "$src"/mpich-*/test/mpi 2>/dev/null | head -1)
if [ -z "$tests_dir" ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    f=/etc/apt/sources.list.d/debian.sources
    if [ -f "$f" ] && ! grep -q deb-src "$f"; then
        $SUDO sed -i 's/^Types: deb$/Types: deb deb-src/' "$f"
    elif [ ! -f "$f" ] && ! grep -qs '^deb-src' /etc/apt/sources.list; then
        grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' | $SUDO tee -a /etc/apt/sources.list >/dev/null
    fi
    $SUDO apt-get update -qq
    dpkg-query -W -f='${Status}' dpkg-dev 2>/dev/null | grep -q "ok installed" ||
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq dpkg-dev >/dev/null
    mkdir -p "$src"
    (cd "$src" && apt-get source -qq mpich >/dev/null 2>&1) || { echo "check-mpich: apt-get source mpich failed" >&2; exit 2; }
    tests_dir=$(ls -d "$src"/mpich-*/test/mpi | head -1)
fi

# 2. Configure against the installed MPICH (no Fortran, C++, threads, ROMIO, spawn).
if [ ! -f "$tests_dir/Makefile" ]; then
    echo "check-mpich: configuring $tests_dir (about a minute)"
    (cd "$tests_dir" && ./configure -q CC=mpicc.mpich MPICC=mpicc.mpich --with-mpi=/usr \
        --disable-fortran --disable-cxx --disable-romio --disable-spawn --disable-threads \
        --disable-ft-tests --disable-checkerrors >/dev/null 2>&1) || { echo "check-mpich: configure failed" >&2; exit 2; }
fi
make -C "$tests_dir/util" -j2 >/dev/null 2>&1 || { echo "check-mpich: util build failed" >&2; exit 2; }

# 3. The tests: name and process count from the testlists (at most 4 ranks:
#    MPICH busy-polls, more ranks than cores only slows it down).
list=$(mktemp)
for dir in coll topo; do
    grep -v '^#' "$tests_dir/$dir/testlist" | awk -v d="$dir" '
        NF >= 2 && $2 ~ /^[0-9]+$/ && (d == "topo" || $1 ~ /^(alltoall|neighb_|p_neighb_|ring_neighbor_alltoall|nonblocking)/) {
            np = $2 > 4 ? 4 : $2; if (!seen[$1 " " np]++) print d, $1, np }'
done >"$list"

pass=0
fail=0
log=$(mktemp)
run_test() { # dir name np vars...
    d=$1 n=$2 np=$3
    shift 3
    flags=""
    for v in "$@"; do flags="$flags -genv ${v%%=*} ${v#*=}"; done
    # shellcheck disable=SC2086
    (cd "$tests_dir/$d" && timeout 180 $mpiexec -n "$np" $flags "./$n" </dev/null >"$log" 2>&1) &&
        [ "$(sed 's/^ *//; s/ *$//' "$log")" = "No Errors" ]
}
while read -r d n np; do
    if ! make -C "$tests_dir/$d" "$n" </dev/null >/dev/null 2>&1; then
        echo "skip $d/$n (does not build)"
        continue
    fi
    if ! run_test "$d" "$n" "$np"; then
        echo "skip $d/$n np=$np (fails natively: $(tail -1 "$log"))"
        continue
    fi
    for mode in $modes; do
        vars="LD_PRELOAD=$lib"
        [ "$mode" = nhood ] || vars="$vars $(echo "$mode" | tr ',' ' ')"
        # shellcheck disable=SC2086
        if run_test "$d" "$n" "$np" $vars; then
            pass=$((pass + 1))
            echo "ok $d/$n np=$np $mode"
        else
            fail=$((fail + 1))
            echo "not ok $d/$n np=$np $mode"
            sed 's/^/    /' "$log" | tail -5
        fi
    done
done <"$list"
rm -f "$list" "$log"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
