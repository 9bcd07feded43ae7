#!/bin/sh
# make check-valgrind: every test program once under valgrind memcheck,
# in this build (run `make check` or `make check TESTS=` first to build
# them).  MPI programs run with MPICH at 2 ranks, libnhood preloaded, each
# rank under valgrind.  Errors and definite/indirect leaks fail; MPI and
# transport internals are suppressed by test/valgrind.supp only.  The
# MPI_THREAD_MULTIPLE test also runs under helgrind (test/helgrind.supp:
# races inside MPI and UCX, and nhood's one atomic lock-free read).
# Prints one line per program and "N passed, N failed".
top=$(cd "$(dirname "$0")/.." && pwd)
b=${TOP_BUILDDIR:-$PWD}
lib=$b/.libs/libnhood.so
mpiexec=${MPIEXEC:-mpiexec.mpich}
log=${TMPDIR:-/tmp}/nhood-valgrind.$$
command -v valgrind >/dev/null || { echo "check-valgrind: valgrind not found (scripts/install-deps.sh)" >&2; exit 2; }
[ -f "$lib" ] || { echo "check-valgrind: $lib not found; build first" >&2; exit 2; }
vg="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect
    --errors-for-leak-kinds=definite,indirect --num-callers=30
    --suppressions=$top/test/valgrind.supp"
pass=0
fail=0
# As make check's MPI tests (test/mpi/harness.sh): graphs analyzed at
# creation and the model alone choosing, unless a case sets these itself;
# test_cold runs the cold tier on every call.
export NHOOD_WARMUP=0 NHOOD_AUTOTUNE=0
# valgrind's reports come back on stderr (from every rank); --error-exitcode
# makes any error or leak fail the program.  Only valgrind's notice that it
# ignores SHM_HUGETLB (MPICH's shared memory) is not a finding.
check() {
    name=$1
    shift
    if "$@" >"$log.out" 2>"$log.err" &&
        ! grep '^==[0-9]*==' "$log.err" | grep -qv 'WARNING: valgrind ignores shmget(shmflg) SHM_HUGETLB'; then
        pass=$((pass + 1))
        echo "ok $pass $name"
    else
        fail=$((fail + 1))
        echo "not ok $name"
        grep -E '^==[0-9]+==' "$log.err" | grep -v SHM_HUGETLB | head -40 | sed 's/^/    /'
        tail -5 "$log.out" | sed 's/^/    /'
    fi
}
mpi() { # mpi NAME PROGRAM [ARGS]  (MPIVARS="VAR=VAL ...": environment of the ranks)
    name=$1
    shift
    flags=""
    for v in ${MPIVARS:-}; do flags="$flags -genv ${v%%=*} ${v#*=}"; done
    # shellcheck disable=SC2086
    check "$name" timeout 1800 $mpiexec -n 2 -genv LD_PRELOAD "$lib" $flags $vg "$@"
}
# shellcheck disable=SC2086
check "test_sched --quick" $vg "$b/test/unit/test_sched" --quick
# shellcheck disable=SC2086
check "test_inplace_steps" $vg "$b/test/unit/test_inplace_steps"
# shellcheck disable=SC2086
check "nhood-sched --verify" $vg "$b/nhood-sched" --nbhd moore --dims 3 --radius 1 --procs 27,64 --verify
for t in offsets graph parse; do
    # shellcheck disable=SC2086
    check "replay_$t" $vg "$b/test/fuzz/replay_$t" "$top/test/fuzz/corpus/$t"
done
mpi test_neighbor "$b/test/mpi/test_neighbor"
mpi test_inplace "$b/test/mpi/test_inplace"
mpi test_nonblocking "$b/test/mpi/test_nonblocking"
mpi test_badenv "$b/test/mpi/test_badenv"
mpi "test_leaks 200" "$b/test/mpi/test_leaks" 200
mpi test_iso "$b/test/mpi/test_iso"
MPIVARS="NHOOD_WARMUP=1000000"
mpi "test_cold NHOOD_WARMUP=1000000" "$b/test/mpi/test_cold"
MPIVARS="NHOOD_WARMUP=2" # graphs analyzed at a parent's point, one freed before its switch
mpi "test_tiers NHOOD_WARMUP=2" "$b/test/mpi/test_tiers" cold
MPIVARS=""
mpi test_dup "$b/test/mpi/test_dup"
mpi test_threads "$b/test/mpi/test_threads"
# Not test_overlap: memcheck reports every access to a protected page, which
# is how NHOOD_OVERLAP finds first accesses, as an invalid one.
hg="valgrind -q --tool=helgrind --error-exitcode=99 --num-callers=30
    --suppressions=$top/test/helgrind.supp"
for v in "" "NHOOD_PROGRESS=poll NHOOD_ALGO=torus"; do
    flags=""
    for x in $v; do flags="$flags -genv ${x%%=*} ${x#*=}"; done
    # shellcheck disable=SC2086
    check "test_threads helgrind $v" timeout 1800 $mpiexec -n 2 -genv LD_PRELOAD "$lib" $flags $hg \
        "$b/test/mpi/test_threads"
done
# The progress backend's helper thread beside one and two program threads
# (MPICH), at 4 ranks: the first count where torus on the 3-D Moore
# neighborhood forwards (2x2x1).
for v in "" threads; do
    # shellcheck disable=SC2086
    check "test_progress helgrind np=4 NHOOD_ALGO=torus $v" timeout 1800 $mpiexec -n 4 \
        -genv LD_PRELOAD "$lib" -genv NHOOD_ALGO torus $hg "$b/test/mpi/test_progress" torus $v quick
done
mpi test_neighbor_v "$b/test/mpi/test_neighbor_v"
MPIVARS="NHOOD_PROGRESS=poll NHOOD_ALGO=torus NHOOD_FALLBACK=silent"
mpi "test_neighbor_v nonblocking (poll, torus)" "$b/test/mpi/test_neighbor_v" nonblocking
MPIVARS=""
mpi "test_neighbor_v persistent" "$b/test/mpi/test_neighbor_v" persistent
MPIVARS="NHOOD_ALGO=stfw"
mpi "test_stfw NHOOD_ALGO=stfw" "$b/test/mpi/test_stfw"
MPIVARS="NHOOD_PROGRESS=poll NHOOD_ALGO=stfw"
mpi "test_stfw_nb NHOOD_ALGO=stfw" "$b/test/mpi/test_stfw_nb"
# shellcheck disable=SC2086
check "test_progress irregular np=4 NHOOD_ALGO=stfw" timeout 1800 $mpiexec -n 4 -genv LD_PRELOAD "$lib" \
    -genv NHOOD_ALGO stfw $vg "$b/test/mpi/test_progress" irregular quick
MPIVARS=""
# shellcheck disable=SC2086
check "test_reduce_sched --quick" $vg "$b/test/unit/test_reduce_sched" --quick
for f in test_fortran test_fortran_mpif; do
    [ -x "$b/test/mpi/$f" ] && mpi "$f" "$b/test/mpi/$f"
done
mpi "nhood-bench" "$b/nhood-bench" --op alltoall --dims 2 --radius 1 --bytes 8,4096 --reps 20
rm -f "$log.out" "$log.err"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
