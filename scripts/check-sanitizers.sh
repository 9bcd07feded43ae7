#!/bin/sh
# make check-sanitizers: builds nhood with --enable-sanitizers (ASan and
# UBSan) in build-sanitizers/ (a clone of this repository's HEAD, so the
# build here is untouched) and runs `make check` there.  Every MPI rank
# preloads the sanitizer runtimes before libnhood; any ASan, LSan or UBSan
# report fails its test.  MPICH's and UCX's own leaks are suppressed by
# test/lsan.supp.  NHOOD_SAN_MPICC picks the MPI (default mpicc.mpich).
#
# --quick (CI): instead of the whole suite, the unit tests, the fuzz
# corpus, and every MPI test program once at 2 ranks (test_neighbor also
# at 4 ranks with NHOOD_ALGO=torus, test_leaks with 1,000 cycles, the v/w
# and store-and-forward tests also at 4 ranks with a forced algorithm).
set -e
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
quick=0
[ "${1:-}" = "--quick" ] && quick=1
dir=${NHOOD_SAN_BUILD:-$top/build-sanitizers}
rm -rf "$dir"
git clone -q "$top" "$dir"
cd "$dir"
autoreconf -fi >/dev/null
./configure -q --enable-sanitizers MPICC="${NHOOD_SAN_MPICC:-mpicc.mpich}"
make -j2 >/dev/null
status=0
if [ "$quick" -eq 0 ]; then
    make -j2 check >/dev/null 2>&1 || status=$?
    cat test/unit/*.log test/fuzz/*.log test/mpi/*.log 2>/dev/null | grep -v '^ok \|^PASS: '
    exit $status
fi
make -j2 check TESTS="test/unit/test_inplace_steps test/unit/check-resource-calls.sh test/fuzz/run-corpus.sh" \
    >/dev/null 2>&1 || status=$?
cat test/unit/*.log test/fuzz/*.log 2>/dev/null | grep -v '^ok \|^PASS: '
# The environment make check would give the MPI tests (Makefile.am).
eval "$(sed -n 's/^NH_SAN_PRELOAD = /NH_PRELOAD_FIRST=/p' Makefile)"
export NH_PRELOAD_FIRST HWLOC_COMPONENTS=-pci
export ASAN_OPTIONS='detect_leaks=1:exitcode=23:strict_string_checks=1:detect_stack_use_after_return=1'
export LSAN_OPTIONS="suppressions=$dir/test/lsan.supp:print_suppressions=0:exitcode=23"
export UBSAN_OPTIONS='print_stacktrace=1:halt_on_error=1:exitcode=24'
mpiexec=$(sed -n 's/^MPIEXEC = //p' Makefile)
# As make check's MPI tests (test/mpi/harness.sh): graphs analyzed at
# creation and the model alone choosing, unless a case sets these itself;
# test_cold runs the cold tier on every call.
export NHOOD_WARMUP=0 NHOOD_AUTOTUNE=0
lib=$dir/.libs/libnhood.so
pass=0
fail=0
one() { # one NP "VAR=VAL ..." PROGRAM [ARGS]
    np=$1 vars=$2
    shift 2
    pre=$lib
    case " $vars" in *" NHOOD_OVERLAP=report"* | *" NHOOD_OVERLAP=defer"*) pre="$lib:$dir/.libs/libnhood-overlap.so" ;; esac
    flags="-genv LD_PRELOAD $NH_PRELOAD_FIRST$pre"
    for v in $vars; do flags="$flags -genv ${v%%=*} ${v#*=}"; done
    # shellcheck disable=SC2086
    if timeout 600 $mpiexec -n "$np" $flags "$@" >san.out 2>san.err; then
        pass=$((pass + 1))
        echo "ok $pass sanitizers np=$np $vars $*"
    else
        fail=$((fail + 1))
        echo "not ok sanitizers np=$np $vars $*"
        grep -E 'ERROR|SUMMARY|runtime error|^ +#[0-9]' san.err | head -30 | sed 's/^/    /'
    fi
}
t=test/mpi
one 2 "" $t/test_neighbor
one 4 "NHOOD_ALGO=torus NHOOD_FALLBACK=silent" $t/test_neighbor
one 2 "" $t/test_inplace
one 2 "NHOOD_INPLACE_AUXMEM=64" $t/test_inplace
one 2 "" $t/test_nonblocking
one 2 "NHOOD_PROGRESS=poll NHOOD_ALGO=torus NHOOD_FALLBACK=silent" $t/test_nonblocking
one 2 "" $t/test_badenv info
one 2 "NHOOD_ALGO=torus NHOOD_BINDING=zcopy NHOOD_FALLBACK=silent" $t/test_leaks 1000
one 2 "" $t/test_neighbor_v
one 4 "NHOOD_ALGO=torus NHOOD_CHECK=1 NHOOD_FALLBACK=silent" $t/test_neighbor_v
one 4 "NHOOD_PROGRESS=poll NHOOD_ALGO=torus NHOOD_FALLBACK=silent" $t/test_neighbor_v nonblocking
one 4 "NHOOD_PROGRESS=poll NHOOD_ALGO=stfw" $t/test_neighbor_v nonblocking
one 2 "" $t/test_neighbor_v persistent
one 2 "" $t/test_iso
one 4 "NHOOD_WARMUP=1000000" $t/test_cold
# The sanitizer runtimes interpose malloc before nhood, so defer steps
# aside there (test_overlap's defer checks would fail): the advisor only.
one 2 "NHOOD_OVERLAP=report" $t/test_overlap
one 4 "NHOOD_ALGO=stfw NHOOD_STFW_DIMS=2" $t/test_stfw
one 4 "NHOOD_PROGRESS=poll NHOOD_ALGO=stfw NHOOD_STFW_DIMS=2" $t/test_stfw_nb
# The default progress backend (MPICH: the helper thread) forwarding for
# nonblocking calls while the program blocks in MPI.
one 4 "NHOOD_ALGO=torus" $t/test_progress torus threads
one 4 "NHOOD_ALGO=stfw" $t/test_progress irregular
# The compute window's sampling and agreement; node aggregation.
one 4 "NHOOD_COST_ALPHA=0.1 NHOOD_COST_O=10 NHOOD_PROGRESS=poll" $t/test_window irregular poll
one 4 "NHOOD_PROGRESS=poll NHOOD_ALGO=stfw NHOOD_STFW_DIMS=agg NHOOD_NODE_SIZE=2" $t/test_stfw_nb
# Split routes (blocks forwarded and sent straight in one call) on a mesh.
one 4 "NHOOD_PROGRESS=poll NHOOD_ALGO=torus NHOOD_COST_O=0.0012 NHOOD_COST_O_RECV=0" $t/test_boxhalo 3 3 mesh
for f in test_fortran test_fortran_mpif; do
    [ -x $t/$f ] && one 2 "" $t/$f
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$status" -eq 0 ]
