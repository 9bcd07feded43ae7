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
# Each test runs in the modes that change a path it takes (modes_for):
# every test in the defaults, forced forwarding (torus: at MPI_Init nhood
# asks for threads for its progress helper), pmpi and poll; a test that
# calls a neighborhood collective also in every other algorithm and
# poll with torus; one that calls MPI_Alltoall[vw] or MPI_Ialltoall[vw]
# in the in-place settings (all modes where the source is not found).
# NHOOD_MPICH_MODES replaces them all.
base_modes="nhood NHOOD_ALGO=torus NHOOD_ALGO=pmpi NHOOD_PROGRESS=poll"
nbr_modes="NHOOD_ALGO=direct NHOOD_ALGO=torus_direct NHOOD_ALGO=bruck NHOOD_PROGRESS=poll,NHOOD_ALGO=torus"
a2a_modes="NHOOD_INPLACE_ALGO=lsa NHOOD_INPLACE_ALGO=pmpi NHOOD_INPLACE_AUXMEM=4096"
modes_for() { # test source
    if [ -n "${user_modes:-}" ] || [ ! -f "$1" ]; then
        echo "${user_modes:-$base_modes $nbr_modes $a2a_modes}"
        return
    fi
    m=$base_modes
    grep -Eq 'MPI_I?[Nn]eighbor_' "$1" && m="$m $nbr_modes"
    grep -Eq 'MPI_I?[Aa]lltoall[vw]?\(' "$1" && m="$m $a2a_modes"
    echo "$m"
}
user_modes=${NHOOD_MPICH_MODES:-}
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
    for mode in $(modes_for "$tests_dir/$d/$n.c"); do
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
