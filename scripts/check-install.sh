#!/bin/sh
# An installed nhood, checked from outside the build tree (make
# installcheck, make check-install, make distcheck): the library, header,
# pkg-config file, tools and nhood-run are where make install put them;
# nhood-info answers, alone and under nhood-run;
# nhood-run --help works; nhood-run, run from another directory with no
# NHOOD_LIB, preloads the installed library and an MPI program passes
# under it; pkg-config names the installed header and library, and an
# Iso_* program (test/mpi/test_iso.c) built with its flags alone runs.
# Prints TAP and "N passed, N failed"; exits 1 on a failure.
#
# Environment (Makefile.am sets it): BINDIR LIBDIR INCLUDEDIR PKGCONFIGDIR
# (the installation), BIN_PROGRAMS (the tools' installed names), MPICC,
# MPIEXEC, SRCDIR; TOP_BUILDDIR (optional: test/mpi/test_neighbor of a
# build tree also runs under the installed nhood-run, where it is built).
: "${MPIEXEC:=mpiexec.mpich}" "${MPICC:=mpicc.mpich}" "${SRCDIR:=.}"
for v in BINDIR LIBDIR INCLUDEDIR PKGCONFIGDIR; do
    eval "[ -n \"\${$v:-}\" ]" || { echo "check-install.sh: $v not set" >&2; exit 2; }
done
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok $((pass + fail)) - $1"; }
bad() {
    fail=$((fail + 1))
    echo "not ok $((pass + fail)) - $1"
    [ -s "$tmp/out" ] && sed 's/^/#     /' "$tmp/out" | tail -20
    return 0
}
# check NAME COMMAND...: COMMAND's output (stdout and stderr) in $tmp/out.
check() {
    name=$1
    shift
    if "$@" >"$tmp/out" 2>&1; then ok "$name"; else bad "$name"; fi
}
case "$MPIEXEC" in
    *openmpi*)
        launch="$MPIEXEC --oversubscribe"
        [ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        ;;
    *) launch=$MPIEXEC ;;
esac
export MPIEXEC
unset NHOOD_LIB
# From a directory of its own: nothing of a build tree next to it.
cd "$tmp" || exit 2

run_prog=$BINDIR/nhood-run
files="$LIBDIR/libnhood.so $LIBDIR/libnhood-overlap.so $INCLUDEDIR/nhood.h $PKGCONFIGDIR/nhood.pc $run_prog"
for p in ${BIN_PROGRAMS:-}; do files="$files $BINDIR/$p"; done
missing=""
for f in $files; do [ -f "$f" ] || missing="$missing $f"; done
: >"$tmp/out"
if [ -z "$missing" ]; then ok "installed: $(echo "$files" | wc -w) files (library, nhood.h, nhood.pc, tools)"; else
    echo "missing:$missing" >"$tmp/out"
    bad "installed: library, nhood.h, nhood.pc, tools"
fi

check "nhood-run --help exits 0 with the usage" sh -c '"$1" --help >help && grep -q "^Usage: nhood-run" help' sh "$run_prog"
check "nhood-run without a program exits 2" sh -c '"$1"; [ $? -eq 2 ]' sh "$run_prog"

# The ranks get the installed library.
want=$(cd "$LIBDIR" && pwd)/libnhood.so
check "nhood-run preloads the installed $want" \
    sh -c '[ "$("$1" -n 1 printenv LD_PRELOAD)" = "$2" ]' sh "$run_prog" "$want"
# The overlap advisor's wrappers beside it, only when NHOOD_OVERLAP asks.
check "NHOOD_OVERLAP=report nhood-run preloads libnhood-overlap.so too" \
    sh -c '[ "$(NHOOD_OVERLAP=report "$1" -n 1 printenv LD_PRELOAD)" = "$2:${2%/*}/libnhood-overlap.so" ]' \
    sh "$run_prog" "$want"

# An MPI program under the installed nhood-run: nhood's report shows it
# ran the program's neighborhood collectives.
if [ -x "$BINDIR/nhood-bench" ]; then
    check "nhood-run -np 2 nhood-bench (installed), NHOOD_REPORT=1" sh -c '
        NHOOD_REPORT=1 "$1" -np 2 "$2" --op alltoall --dims 2 --radius 1 --bytes 8 --reps 10 &&
        grep -Eq "^nhood: comm=[0-9]+ op=alltoall pattern=isomorphic " "$3/out"' \
        sh "$run_prog" "$BINDIR/nhood-bench" "$tmp"
fi
# nhood-info alone (a singleton) and in a job under nhood-run.
if [ -x "$BINDIR/nhood-info" ]; then
    check "nhood-info (installed) tells its version, MPI and every setting" sh -c '
        "$1" >info && grep -q "^version  *[0-9]" info && grep -q "^mpi_library " info &&
        grep -q " NHOOD_ALGO  " info && grep -q " NHOOD_LIB  " info' sh "$BINDIR/nhood-info"
    check "nhood-run -np 2 nhood-info --json: what the ranks see" sh -c '
        "$1" -np 2 "$2" --json >info.json && python3 -c "
import json, sys
d = json.load(open(\"info.json\"))
assert d[\"ranks\"] == 2 and d[\"ranks_per_node\"] == \"2\" and d[\"state\"] == \"active\", d"' \
        sh "$run_prog" "$BINDIR/nhood-info"
fi
# nhood-calibrate (--quick) writes a cost file; a run with
# NHOOD_COST_FILE names it in the report; the same file installed as
# PREFIX/share/nhood/site.cost is every run's default.
if [ -x "$BINDIR/nhood-calibrate" ] && [ -x "$BINDIR/nhood-bench" ]; then
    check "nhood-run -np 2 nhood-calibrate --quick -o site.cost" sh -c '
        "$1" -np 2 "$2" --quick -o site.cost && [ "$(head -n 1 site.cost)" = "nhood-cost 2" ] &&
        grep -Eq "^alpha = [0-9.e+-]+$" site.cost && grep -Eq "^fingerprint\.ranks = 2$" site.cost &&
        grep -Eq "^validation\.picks_fastest = [0-9]+$" site.cost &&
        grep -Eq "^validation\.spread\.o_recv = [0-9.]+$" site.cost' sh "$run_prog" "$BINDIR/nhood-calibrate"
    check "NHOOD_COST_FILE=site.cost NHOOD_REPORT=1: the report names it" sh -c '
        NHOOD_COST_FILE=site.cost NHOOD_REPORT=1 "$1" -np 2 "$2" --op alltoall --dims 2 --bytes 8 \
            --reps 10 && grep -qx "nhood: cost=site.cost" "$3/out"' \
        sh "$run_prog" "$BINDIR/nhood-bench" "$tmp"
    share=$(cd "$LIBDIR/.." && pwd)/share/nhood
    if [ -f site.cost ] && mkdir -p "$share" && cp site.cost "$share/site.cost"; then
        check "an installed share/nhood/site.cost is the default" sh -c '
            NHOOD_REPORT=1 "$1" -np 2 "$2" --op alltoall --dims 2 --bytes 8 --reps 10 &&
            grep -qx "nhood: cost=$4/site.cost" "$3/out"' \
            sh "$run_prog" "$BINDIR/nhood-bench" "$tmp" "$share"
        rm -f "$share/site.cost"
        rmdir "$share" 2>/dev/null || true
    fi
fi
if [ -n "${TOP_BUILDDIR:-}" ] && [ -x "$TOP_BUILDDIR/test/mpi/test_neighbor" ]; then
    check "nhood-run -np 2 test/mpi/test_neighbor (build tree), NHOOD_REPORT=1" sh -c '
        NHOOD_REPORT=1 "$1" -np 2 "$2" && grep -Eq "^nhood: comm=[0-9]+ op=alltoall pattern=isomorphic " "$3/out"' \
        sh "$run_prog" "$TOP_BUILDDIR/test/mpi/test_neighbor" "$tmp"
fi

# pkg-config: the installed directories.
if command -v pkg-config >/dev/null 2>&1; then
    inc=$(cd "$INCLUDEDIR" && pwd) libd=$(cd "$LIBDIR" && pwd)
    check "pkg-config --cflags --libs nhood: -I$inc -L$libd -lnhood" sh -c '
        flags=$(PKG_CONFIG_PATH="$1" pkg-config --cflags --libs nhood) && echo "$flags" &&
        [ "$(echo $flags)" = "-I$2 -L$3 -lnhood" ]' sh "$PKGCONFIGDIR" "$inc" "$libd"
    # An Iso_* program built with nothing but those flags, run without
    # preloading (linked against the installed library).
    if [ -f "$SRCDIR/test/mpi/test_iso.c" ]; then
        check "test_iso.c built with pkg-config's flags and run at 2 ranks" sh -c '
            $1 -o test_iso "$2" $(PKG_CONFIG_PATH="$3" pkg-config --cflags --libs nhood) &&
            LD_LIBRARY_PATH="$4${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" $5 -n 2 ./test_iso &&
            grep -Eq "^[1-9][0-9]* passed, 0 failed$" "$6/out"' \
            sh "$MPICC" "$SRCDIR/test/mpi/test_iso.c" "$PKGCONFIGDIR" "$libd" "$launch" "$tmp"
    fi
else
    echo "ok $((pass + fail + 1)) - pkg-config # SKIP no pkg-config"
    pass=$((pass + 1))
fi

echo "$pass passed, $fail failed"
echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
