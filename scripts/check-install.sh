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

# The environment modules (scripts/gen-modulefiles.sh): loaded with
# Environment Modules and with Lmod in a clean environment, nhood-info
# and nhood-run -np 2 from the module's PATH, no LD_PRELOAD in the shell;
# unloaded, the environment is as before (but for the module system's own
# bookkeeping).  modcase NAME CMD...: "CMD sh load|unload nhood" prints
# the shell code.
mods=${DATADIR:+$(cd "$DATADIR" 2>/dev/null && pwd)/modulefiles}
bookkeeping='^(_|LMOD|MODULE|LOADEDMODULES|PWD=|OLDPWD=|SHLVL=)'
modcase() {
    sys=$1
    shift
    check "$sys: module load nhood (NHOOD_ROOT, PATH, nhood-info, nhood-run -np 2), unload restores" \
        env -i PATH=/usr/bin:/bin HOME="${HOME:-/root}" MODULEPATH="$mods" MPIEXEC="$MPIEXEC" \
        ${OMPI_ALLOW_RUN_AS_ROOT:+OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1} \
        sh -c '
        bk=$1 bindir=$2 prefix=$3 bench=$4
        shift 4
        env | grep -Ev "$bk" | sort >env.before
        eval "$("$@" sh load nhood)" || exit 1
        echo "loaded: NHOOD_ROOT=${NHOOD_ROOT:-} nhood-run=$(command -v nhood-run)"
        [ "${NHOOD_ROOT:-}" = "$prefix" ] && [ "$(command -v nhood-run)" = "$bindir/nhood-run" ] &&
            [ -z "${LD_PRELOAD:-}" ] && [ -z "${SRUN_EXPORT_ENV:-}" ] || exit 1
        nhood-info >info && grep -q "^version  *[0-9]" info || exit 1
        if [ -n "$bench" ]; then
            NHOOD_REPORT=1 nhood-run -np 2 "$bench" --op alltoall --dims 2 --bytes 8 --reps 10 2>report &&
                grep -Eq "^nhood: comm=[0-9]+ op=alltoall pattern=isomorphic " report || exit 1
        fi
        eval "$("$@" sh unload nhood)" || exit 1
        env | grep -Ev "$bk" | sort >env.after
        diff env.before env.after' sh "$bookkeeping" "$(cd "$BINDIR" && pwd)" \
        "$(cd "$BINDIR/.." && pwd)" "$([ -x "$BINDIR/nhood-bench" ] && echo nhood-bench)" "$@"
}
n=$(ls "$mods/nhood" "$mods/nhood-site" 2>/dev/null | grep -c '^[0-9]')
if [ "$n" -eq 4 ]; then ok "modulefiles: nhood and nhood-site, Tcl and Lua"; else
    ls -R "$mods" >"$tmp/out" 2>&1
    bad "modulefiles: nhood and nhood-site, Tcl and Lua (found $n of 4)"
fi
if [ "$n" -gt 0 ]; then
    for sys in "tcl Environment Modules" "lmod Lmod"; do
        # shellcheck disable=SC2086 # the command's words
        if cmd=$(sh "$SRCDIR/scripts/modulecmd.sh" "${sys%% *}"); then modcase "${sys#* }" $cmd; else
            pass=$((pass + 1))
            echo "ok $((pass + fail)) - ${sys#* } # SKIP not installed (scripts/install-deps.sh --modules)"
        fi
    done
    # The site-wide module: srun's tasks preload nhood (make check-slurm
    # runs a job under it); the personal one never names LD_PRELOAD.
    check "nhood-site: SRUN_EXPORT_ENV=ALL,LD_PRELOAD=the installed library; nhood: no LD_PRELOAD" sh -c '
        grep -qxF "pushenv SRUN_EXPORT_ENV {ALL,LD_PRELOAD=$2}" "$1/nhood-site/"*[0-9] &&
        grep -qxF "pushenv(\"SRUN_EXPORT_ENV\", \"ALL,LD_PRELOAD=$2\")" "$1/nhood-site/"*.lua &&
        ! grep -q "LD_PRELOAD" "$1/nhood/"*' sh "$mods" "$want"
fi

# The Spack package (packaging/spack) parses as Python (checked by hand
# with Spack: docs/installing.md).
if command -v python3 >/dev/null 2>&1 && [ -f "$SRCDIR/packaging/spack/nhood/package.py" ]; then
    check "packaging/spack/nhood/package.py parses, class Nhood(AutotoolsPackage)" python3 -c '
import ast, sys
t = ast.parse(open(sys.argv[1]).read())
c = [n for n in t.body if isinstance(n, ast.ClassDef) and n.name == "Nhood"]
assert c and c[0].bases[0].id == "AutotoolsPackage"
assert any(isinstance(f, ast.FunctionDef) and f.name.startswith("test_") for f in c[0].body)' \
        "$SRCDIR/packaging/spack/nhood/package.py"
fi

# Linked, not preloaded: a program built with MPICH's -profile=nhood (the
# installed profile) or with -lnhood before MPI (any MPI) runs nhood's
# schedule; the same program built without either does not.
cat >ring.c <<'EOF'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, size, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nb[2] = {(rank + size - 1) % size, (rank + 1) % size}, s[2], r[2];
    MPI_Comm g;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nb, MPI_UNWEIGHTED, 2, nb, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &g);
    for (int call = 0; call < 8; call++) {
        s[0] = s[1] = rank * 100 + call;
        MPI_Neighbor_alltoall(s, 1, MPI_INT, r, 1, MPI_INT, g);
        bad += r[0] != nb[0] * 100 + call || r[1] != nb[1] * 100 + call;
    }
    MPI_Comm_free(&g);
    MPI_Finalize();
    if (bad)
        printf("rank %d: %d wrong\n", rank, bad);
    return bad != 0;
}
EOF
libd=$(cd "$LIBDIR" && pwd)
# linked FLAGS...: ring.c built with FLAGS, run at 3 ranks with
# NHOOD_REPORT=1 and no preload; its output in $tmp/linked.
linked() {
    rm -f ring
    : >"$tmp/linked"
    $MPICC -o ring ring.c "$@" >"$tmp/out" 2>&1 &&
        NHOOD_REPORT=1 LD_LIBRARY_PATH="$libd${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" $launch -n 3 ./ring \
            >"$tmp/linked" 2>&1
}
report='^nhood: comm=[0-9]+ op=alltoall pattern=isomorphic '
if linked && ! grep -q '^nhood: ' "$tmp/linked"; then ok "ring.c built without nhood: no report (the check can fail)"; else
    cat "$tmp/linked" >>"$tmp/out"
    bad "ring.c built without nhood: no report"
fi
if linked -L"$libd" -lnhood && grep -Eq "$report" "$tmp/linked"; then
    ok "ring.c linked with -lnhood (no preload): nhood's schedule"
else
    cat "$tmp/linked" >>"$tmp/out"
    bad "ring.c linked with -lnhood (no preload): nhood's schedule"
fi
conf=${DATADIR:+$(cd "$DATADIR" 2>/dev/null && pwd)/nhood/mpich/nhood}
case "$($MPICC -show 2>/dev/null)" in
    *-lmpich*)
        if [ -f "$conf.conf" ] && linked -profile="$conf" && grep -Eq "$report" "$tmp/linked"; then
            ok "ring.c built with mpicc -profile=DIR/nhood (no preload): nhood's schedule"
        else
            cat "$tmp/linked" >>"$tmp/out"
            bad "ring.c built with mpicc -profile=DIR/nhood (no preload): nhood's schedule"
        fi
        # The bare name, as where nhood.conf is in MPICH's sysconfdir: MPICH
        # also looks in the working directory.
        mkdir -p prof && cp "$conf.conf" prof/ && cp ring.c prof/
        if (cd prof && MPICC="$MPICC" sh -c '$MPICC -profile=nhood -o ring ring.c') >"$tmp/out" 2>&1 &&
            NHOOD_REPORT=1 $launch -n 3 prof/ring >"$tmp/linked" 2>&1 && grep -Eq "$report" "$tmp/linked"; then
            ok "ring.c built with mpicc -profile=nhood (no preload): nhood's schedule"
        else
            cat "$tmp/linked" >>"$tmp/out"
            bad "ring.c built with mpicc -profile=nhood (no preload): nhood's schedule"
        fi
        ;;
esac

echo "$pass passed, $fail failed"
echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
