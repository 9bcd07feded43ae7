#!/bin/sh
# nhood beside a PMPI tool (test/tool/count_tool.c, built mpiP's way and
# Darshan's way): the tool preloaded before nhood, after it, and linked
# into the program.  In each order the tool's counts of the program's
# calls must equal its counts without nhood, and nhood's report must show
# its torus schedule on the forced ring graph (test_tool.c, and from
# Fortran test_tool_f.f90 and test_tool_f08.f90).  Output is
# TAP, then "N passed, N failed".
. "$(dirname "$0")/harness.sh" # the launcher, ok, bad, skip, report_flag, tap_end
tools=$TOP_BUILDDIR/test/tool/.libs
log=${TMPDIR:-/tmp}/nhood-tool-test.$$
trap 'rm -f "$log".*' EXIT
case "$launcher" in
    openmpi) np=8 ;;
    *) np=5 ;;
esac

# run PRELOAD PROGRAM [ARGS]: the program at $np ranks with PRELOAD (may
# be empty) and the settings $vars (default: nhood's ring forced to torus
# and reported); the tool's lines, sorted, in $log.counts.
run() {
    flags=""
    for v in ${vars:-NHOOD_ALGO=torus NHOOD_REPORT=1}; do flags="$flags $(env_flag "${v%%=*}" "${v#*=}")"; done
    [ -n "$1" ] && flags="$flags $(env_flag LD_PRELOAD "${NH_PRELOAD_FIRST:-}$1")"
    # the MPI ABI layer a run uses (check-platforms.sh)
    [ -n "${LD_LIBRARY_PATH:-}" ] && flags="$flags $(env_flag LD_LIBRARY_PATH "$LD_LIBRARY_PATH")"
    shift
    # the tool's lines go to a file of their own (count_tool.c), nhood's
    # report too (harness.sh)
    rm -f "$log.tool"
    flags="$flags $(env_flag COUNT_TOOL_LOG "$log.tool")"
    report_flag "${vars:-NHOOD_REPORT=1}"
    [ -z "$rep" ] || rm -f "$rep"
    last_cmd="timeout 300 $MPIEXEC $extra -n $np $flags $*"
    # shellcheck disable=SC2086
    timeout 300 $MPIEXEC $extra -n $np $flags "$@" >"$log.out" 2>"$log.err"
    last_rc=$?
    report_append
    grep -h '^count_tool: ' "$log.tool" "$log.err" 2>/dev/null | sort >"$log.counts"
    return $last_rc
}

# The report's lines for the ring: alltoall (blocking and nonblocking) and
# allgather on its duplicate, each run with torus.
torus_ran() {
    grep -Eq '^nhood: comm=[0-9]+ op=alltoall pattern=isomorphic .*algorithm=torus ' "$log.err" &&
        grep -Eq '^nhood: comm=[0-9]+ op=ialltoall .*algorithm=torus ' "$log.err" &&
        grep -Eq '^nhood: comm=[0-9]+ dup_of=[0-9]+ op=allgather .*algorithm=torus ' "$log.err"
}

# check NAME PRELOAD PROGRAM BASELINE [EXCEPT]: the run's counts equal
# BASELINE's (one line per rank, init=1), but for the names in EXCEPT
# (a regular expression), and torus ran (unless $no_torus).
check() {
    name=$1 except=${5:-'^$'}
    if ! run "$2" "$3"; then
        bad "$name: the program failed"
        return
    fi
    got=$(tr ' ' '\n' <"$log.counts" | grep -Ev "$except")
    want=$(tr ' ' '\n' <"$4" | grep -Ev "$except")
    if [ "$(wc -l <"$log.counts")" -ne $np ] || grep -q ' init=0' "$log.counts"; then
        bad "$name: the tool ran on every rank from MPI_Init to MPI_Finalize"
    elif [ "$got" != "$want" ]; then
        bad "$name: the tool's counts equal its counts without nhood"
        diff "$4" "$log.counts" | sed 's/^/#   /' | head -8
    elif [ -z "${no_torus:-}" ] && ! torus_ran; then
        bad "$name: nhood's report shows torus on the ring"
    else
        ok "$name"
    fi
}

# baseline NAME PRELOAD PROGRAM FILE: the run without nhood, its counts
# (one line per rank) kept in FILE; fails when the run or the tool does.
baseline() {
    if run "$2" "$3" && [ "$(wc -l <"$log.counts")" -eq $np ]; then
        cp "$log.counts" "$4"
        ok "$1"
    else
        bad "$1"
        return 1
    fi
}

if [ ! -f "$tools/libcount_tool.so" ] || [ ! -x "$t/test_tool" ]; then
    echo "not ok 1 - test tool and program built ($tools, $t)"
    echo "0 passed, 1 failed"
    echo "1..1"
    exit 1
fi
for style in "" _both; do
    tool=$tools/libcount_tool$style.so
    way=${style:+"Darshan's way (MPI_ and PMPI_ names, RTLD_NEXT)"}
    way=${way:-"mpiP's way (MPI_ names, calls PMPI_)"}
    baseline "tool $way alone, np=$np" "$tool" "$t/test_tool" "$log.base$style" || continue
    check "tool $way before nhood" "$tool:$lib" "$t/test_tool" "$log.base$style"
    if [ -n "$style" ]; then
        # Darshan's way after nhood, wrapping everything: its wrappers
        # reach the library past nhood, the graph's creation included, so
        # nhood has no graph (no torus) and no request: the tool sees every
        # call.  nhood says which calls it would keep.
        no_torus=1 check "tool $way after nhood" "$lib:$tool" "$t/test_tool" "$log.base$style"
        if grep -q '^nhood: warning: MPI_Wait[a-z]* of .*libcount_tool_both.so (loaded after nhood) reaches MPI past nhood' "$log.err"; then
            ok "tool $way after nhood: nhood says which calls it keeps"
        else
            bad "tool $way after nhood: nhood says which calls it keeps"
        fi
    else
        check "tool $way after nhood" "$lib:$tool" "$t/test_tool" "$log.base$style"
    fi
done
# Darshan's way, wrapping what its AutoPerf MPI module wraps (start-up,
# shut-down, point-to-point, completion, barrier, reduction: no graph, no
# neighborhood collective), loaded after nhood: nhood starts at the ring's
# creation over MPI_COMM_WORLD, ends at MPI_COMM_SELF's deletion (its
# report), runs torus, and keeps from the tool the MPI_Wait calls on its
# ineighbor requests (live), not the program's own MPI_Waitall.
tool=$tools/libcount_tool_p2p.so
if baseline "tool wrapping point-to-point and completion, alone" "$tool" "$t/test_tool" \
    "$log.base_p2p"; then
    check "tool wrapping point-to-point and completion, Darshan's way, after nhood (MPI_Wait on nhood's requests kept)" \
        "$lib:$tool" "$t/test_tool" "$log.base_p2p" '^MPI_Wait='
    if grep -q ' MPI_Wait=0 MPI_Waitall=1 ' "$log.counts"; then
        ok "tool after nhood sees the program's MPI_Waitall, not MPI_Wait on nhood's requests"
    else
        bad "tool after nhood sees the program's MPI_Waitall, not MPI_Wait on nhood's requests"
    fi
    check "tool wrapping point-to-point and completion, Darshan's way, before nhood" "$tool:$lib" \
        "$t/test_tool" "$log.base_p2p"
fi
# Fortran programs (test_tool.c as use mpi and use mpi_f08): nhood's
# Fortran entry points hand a call to a tool's Fortran wrapper loaded
# after nhood (mpiP's way also wraps MPI_NEIGHBOR_ALLTOALL, counted as
# F_MPI_Neighbor_alltoall), and call the C name the library's own binding
# calls (MPICH's mpif.h and use mpi: MPI_X; Open MPI's, and every mpi_f08:
# PMPI_X), so the tool counts what it counts without nhood.  Darshan's way
# after nhood is left out: the bindings' PMPI_X calls reach nhood's
# PMPI_X first, never that tool (docs/tools.md: preload nhood after it).
for prog in test_tool_f test_tool_f08; do
    if [ ! -x "$t/$prog" ]; then
        skip "$prog" "no MPI Fortran compiler (with mpi_f08 for test_tool_f08)"
        continue
    fi
    for style in "" _both; do
        tool=$tools/libcount_tool$style.so
        way=${style:+"Darshan's way"}
        way=${way:-"mpiP's way (with Fortran wrappers)"}
        baseline "$prog: tool $way alone, np=$np" "$tool" "$t/$prog" "$log.base_$prog$style" ||
            continue
        check "$prog: tool $way before nhood" "$tool:$lib" "$t/$prog" "$log.base_$prog$style"
        [ -z "$style" ] &&
            check "$prog: tool $way after nhood" "$lib:$tool" "$t/$prog" "$log.base_$prog$style"
    done
done
# Linked into the program (the executable's MPI_X come first).
baseline "tool linked into the program, alone" "" "$t/test_tool_linked" "$log.linked" &&
    check "tool linked into the program, nhood preloaded" "$lib" "$t/test_tool_linked" "$log.linked"
# The legal-ordering corpus (test_progress: the program blocks in
# barriers, point-to-point, probes and reductions while a forwarding
# ialltoallv is in flight) with the tool in front of nhood, whose wrappers
# call PMPI_X: nhood's PMPI_X still lets each progress backend move the
# operation on (auto: the helper thread or MPI's progress hook; safe:
# single-phase schedules.  poll has no backend: the corpus's barrier
# ordering breaks its promise and hangs, with or without a tool).
tool=$tools/libcount_tool.so
np_all=$np np=4
for backend in auto safe; do
    for case in "torus NHOOD_ALGO=torus" "irregular NHOOD_ALGO=stfw"; do
        graph=${case%% *}
        name="progress corpus, tool in front, np=$np $graph ${case#* } NHOOD_PROGRESS=$backend"
        vars="${case#* } NHOOD_PROGRESS=$backend NHOOD_FALLBACK=silent"
        if run "$tool:$lib" "$t/test_progress" "$graph" && all_passed &&
            [ "$(wc -l <"$log.counts")" -eq $np ]; then
            ok "$name"
        else
            bad "$name"
        fi
    done
done
vars="" np=$np_all
tap_end
