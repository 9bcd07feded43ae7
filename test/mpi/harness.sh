# The MPI tests' shared harness, sourced by run-mpi-tests.sh,
# run-gpu-tests.sh, run-platform-tests.sh and run-tool-tests.sh: the
# launcher and its flags, and the TAP helpers ok, bad, skip and run
# (below; the tool tests have a run of their own).  The sourcing script
# ends with tap_end.
: "${MPIEXEC:=mpiexec.mpich}"
: "${TOP_BUILDDIR:=.}"
lib=${NHOOD_LIB:-$TOP_BUILDDIR/.libs/libnhood.so}
ovlib=$(dirname "$lib")/libnhood-overlap.so
t=$TOP_BUILDDIR/test/mpi
log=${TMPDIR:-/tmp}/nhood-mpi-test.$$
pass=0
fail=0
ntap=0 # the TAP number (not n: the info keys case uses n)
# Open MPI runs 8..16 ranks on two cores (oversubscribed, yielding);
# MPICH busy-polls, so it stays at 4, and its loops over nps skip 3 ranks,
# which Open MPI's run (make check-openmpi) covers: on two cores each
# MPICH run at 3 ranks takes 2.4 s against 0.3 at 2 (the loops with rank
# lists of their own keep 3: some have no 3 under Open MPI).
# How the launcher passes a variable to the ranks: nhood-run knows.
nhrun="${srcdir:-.}/scripts/nhood-run"
launcher=$(sh "$nhrun" --launcher-kind "${MPIEXEC%% *}")
env_flag() { sh "$nhrun" --env-flags --kind "$launcher" "$1=$2"; }
case "$launcher" in
    openmpi)
        extra="--oversubscribe --mca mpi_yield_when_idle 1"
        nps="1 2 3 4 8 16"
        [ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        ;;
    *)
        extra=""
        nps="1 2 4"
        ;;
esac

# ok NAME / bad NAME: one TAP result.  A NAME that does not say which
# program ran at how many ranks gets the last run's "[program args np=N
# settings]" appended; a failure shows that run's command, its exit
# status, the last line of its stdout and the end of its stderr as TAP
# comments.
last="" last_cmd=""
desc() {
    case "$1" in
        *"np="*"${last_prog#test_}"* | *"${last_prog#test_}"*"np="*) echo "$1" ;;
        *) echo "$1${last:+ [$last]}" ;;
    esac
}
ok() { pass=$((pass + 1)) ntap=$((ntap + 1)); echo "ok $ntap - $(desc "$1")"; }
bad() {
    fail=$((fail + 1)) ntap=$((ntap + 1))
    echo "not ok $ntap - $(desc "$1")"
    echo "# command: $last_cmd"
    echo "# exit status ${last_rc:-?}; the end of stdout: $(tail -n 1 "$log.out" 2>/dev/null)"
    tail -n 20 "$log.err" | awk '{ print "#     " $0 }'
}
# skip NAME REASON: a case that cannot run in this build.
skip() { ntap=$((ntap + 1)); echo "ok $ntap - $1 # SKIP $2"; }

# report_flag "VAR=VAL ...": where the settings turn nhood's report on
# (NHOOD_REPORT=1), adds to $flags the one that sends it to a file of the
# run's own, $rep, for report_append to add to the end of $log.err after
# the run: launchers cut long stderr output (Open MPI 5's in 4 KiB
# chunks, moving a cut line's start into stdout; MPICH 4.2's Hydra
# splits long lines).  The cases of the report's own stream set
# report_stderr=1 or name the file.
report_flag() {
    rep=""
    case " $1 " in
        *" NHOOD_REPORT_FILE="*) ;;
        *" NHOOD_REPORT=1 "*)
            if [ "${report_stderr:-0}" -eq 0 ]; then
                rep=$log.rep
                flags="$flags $(env_flag NHOOD_REPORT_FILE "$rep")"
            fi
            ;;
    esac
}

report_append() {
    if [ -n "$rep" ] && [ -f "$rep" ]; then
        cat "$rep" >>"$log.err"
        rm -f "$rep"
    fi
}

# run NAME NP "VAR=VAL ..." PROGRAM [ARGS]: succeeds if the program does.
run() {
    name=$1 np=$2 vars=$3
    shift 3
    # NH_PRELOAD_FIRST: sanitizer runtimes (--enable-sanitizers), which
    # must load before libnhood; their options go to every rank.
    # NHOOD_OVERLAP's C library wrappers, as nhood-run preloads them.
    preload=$lib
    case " $vars" in
        *" NHOOD_OVERLAP=report"* | *" NHOOD_OVERLAP=defer"*) [ -n "${no_ovlib:-}" ] || preload="$lib:$ovlib" ;;
    esac
    flags="$(env_flag LD_PRELOAD "${NH_PRELOAD_FIRST:-}$preload") $(env_flag NHOOD_LIB "$lib")"
    # LD_LIBRARY_PATH: the MPI ABI layer a run uses (check-platforms.sh)
    for v in ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS HWLOC_COMPONENTS LD_LIBRARY_PATH; do
        eval "val=\${$v:-}"
        [ -n "$val" ] && flags="$flags $(env_flag $v "$val")"
    done
    for v in $vars; do flags="$flags $(env_flag "${v%%=*}" "${v#*=}")"; done
    # The tests look at what the analysis found right after creation and
    # at what the cost model chooses: the graphs are analyzed there and
    # the model alone chooses unless a case sets NHOOD_WARMUP or
    # NHOOD_AUTOTUNE itself (the tiers' own cases; MPI's suites run with
    # the defaults).
    for v in NHOOD_WARMUP NHOOD_AUTOTUNE; do
        case " $vars" in
            *" $v="*) ;;
            *) flags="$flags $(env_flag $v 0)" ;;
        esac
    done
    report_flag "$vars"
    last_prog=${1##*/}
    # shellcheck disable=SC2086
    last="$last_prog$(shift; [ $# -eq 0 ] || echo " $*") np=$np$(for v in $vars; do printf ' %s' "$v"; done)"
    last_cmd="timeout 300 $MPIEXEC $extra -n $np $flags $*"
    [ -z "$rep" ] || rm -f "$rep"
    # shellcheck disable=SC2086
    timeout 300 $MPIEXEC $extra -n "$np" $flags "$@" >"$log.out" 2>"$log.err"
    last_rc=$?
    # Open MPI 5's launcher now and then moves the start of a rank's
    # stderr line (nhood's report, which never goes to stdout) into
    # stdout, cutting the line in two: such a run shows nothing either
    # way, so it runs again (up to twice more: Open MPI 5.0.7 on Debian 13
    # did it twice in a row).  Only runs whose report stays on stderr
    # (report_stderr=1) can show it now: the others' is in $rep.
    tries=0
    while [ "$launcher" = openmpi ] && [ "$tries" -lt 2 ] && grep -q 'nhood: comm=' "$log.out"; do
        [ -z "$rep" ] || rm -f "$rep"
        # shellcheck disable=SC2086
        timeout 300 $MPIEXEC $extra -n "$np" $flags "$@" >"$log.out" 2>"$log.err"
        last_rc=$?
        tries=$((tries + 1))
    done
    report_append
    return $last_rc
}

# Did every check of the last run pass (its stdout ends "N passed, 0
# failed", N > 0)?  Not anchored at the line's start: Open MPI 5's
# launcher now and then puts the end of a rank's stderr line before it.
all_passed() {
    grep -Eq '(^|[^0-9])[1-9][0-9]* passed, 0 failed$' "$log.out"
}

# Did the last run stop as a job stops on an error: a nonzero status
# (RC), or MPI_Abort's own line where the launcher lost that status
# (MPICH 4.2's Hydra now and then returns 0 after an MPI_Abort)?
stopped() {
    [ "$1" -ne 0 ] || grep -qi 'abort' "$log.err"
}

# run, succeeding where the job stopped as on an error (stopped).
run_stops() {
    run "$@"
    stopped $?
}

# The closing lines: the counts and the plan; the exit status.
tap_end() {
    rm -f "$log.out" "$log.err" "$log.csv"
    echo "$pass passed, $fail failed"
    echo "1..$ntap"
    [ "$fail" -eq 0 ]
}
