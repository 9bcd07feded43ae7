#!/bin/sh
# MPI tests under LD_PRELOAD: every algorithm forced and auto, 1..4 ranks,
# both bindings, the report format, rejection of bad settings, and a
# benchmark smoke run.  Output is TAP (make check's tap-driver.sh): one
# "ok N - NAME" or "not ok N - NAME" per case, NAME giving the program, the
# rank count and the settings, the failing run's command and the end of
# its stderr as "#" lines, then "N passed, N failed" and the plan "1..N".
# run-mpi-tests.sh platform: the parts marked for other releases' MPI
# libraries (make check-platforms: scripts/check-platforms.sh), a quarter
# of the runs: every algorithm, the progress corpus, the nonblocking,
# persistent, v and w forms, threads, in-place, the report, Fortran,
# large counts, Sessions and Iso.
. "$(dirname "$0")/harness.sh"
# part NAME: whether this run includes the part (all of them but under
# platform, which lists its own).
# (NH_PARTS: a shorter list, to rerun some parts by hand)
platform_parts=${NH_PARTS:-" neighbor progress nonblocking dup threads inplace report fortran large_count sessions vforms vforms_nb iso "}
part() {
    [ "$subset" != platform ] || case "$platform_parts" in *" $1 "*) true ;; *) false ;; esac
}
subset=${1:-all}
# The in-place order auto takes: hsa, or lsa where MPI reports the ranks
# on exactly two nodes split at p/2 (docs/inplace.md), as MPICH 5.0.2 in a
# root does at 2 ranks (MPI_COMM_TYPE_SHARED: every rank its own node).
inplace_auto='(hsa|lsa)'
# platform: two rank counts where all runs three to six
if [ "$subset" = platform ]; then
    case "$launcher" in openmpi) nps="2 8" ;; *) nps="2 4" ;; esac
fi

if part neighbor; then
for np in $nps; do
    for algo in auto direct torus torus_direct bruck pmpi; do
        name="neighbor np=$np NHOOD_ALGO=$algo"
        if run "$name" $np "NHOOD_ALGO=$algo NHOOD_FALLBACK=silent" "$t/test_neighbor"; then ok "$name"; else bad "$name"; fi
    done
    # Three ports: radius-2 neighborhoods get two dimensions' shift phases
    # merged into one phase.
    name="neighbor np=$np NHOOD_ALGO=bruck NHOOD_PORTS=3"
    if run "$name" $np "NHOOD_ALGO=bruck NHOOD_PORTS=3 NHOOD_FALLBACK=silent" "$t/test_neighbor"; then ok "$name"; else bad "$name"; fi
done
fi # neighbor
if part all; then
# Open MPI: 12 ranks (3x2x2, dimensions of size 2 in test_aliased), and a
# 3-D Moore neighborhood on MPI_COMM_WORLD at 27 ranks, which fits a ring
# of 27, a 9x3 and the 3x3x3 grid: detection must keep the cheapest, 3x3x3.
case "$launcher" in
openmpi)
    name="neighbor np=12"
    if run "$name" 12 "NHOOD_FALLBACK=silent" "$t/test_neighbor"; then ok "$name"; else bad "$name"; fi
    name="neighbor np=27 3-D Moore on MPI_COMM_WORLD detected as 3x3x3"
    if run "$name" 27 "NHOOD_REPORT=1" "$t/test_neighbor" grid moore 3 1 3x3x3 &&
        grep -Eq '^nhood: comm=[0-9]+ op=alltoall pattern=isomorphic source=inferred dims=3x3x3 ' "$log.err"; then ok "$name"; else bad "$name"; fi
    # 2-D Moore r=2 on 5x5 with three ports: the two shift phases share
    # one (three rounds, nine messages, not four rounds).
    name="neighbor np=25 2-D Moore r=2 NHOOD_ALGO=bruck NHOOD_PORTS=3: shift phases merged"
    if run "$name" 25 "NHOOD_ALGO=bruck NHOOD_PORTS=3 NHOOD_REPORT=1" "$t/test_neighbor" grid moore 2 2 5x5 &&
        grep -Eq '^nhood: comm=[0-9]+ op=alltoall pattern=isomorphic source=inferred dims=5x5 .*algorithm=bruck .*rounds=3 messages=9 ' "$log.err" &&
        grep -Eq '^nhood: comm=[0-9]+ op=allgather pattern=isomorphic source=inferred dims=5x5 .*algorithm=bruck .*rounds=3 messages=9 ' "$log.err"; then ok "$name"; else bad "$name"; fi
    # Templates of 2400 offsets, past the agreement's whole broadcast
    # (plan/agree.c): a mesh listing each edge 300 times is still found
    # (4x3), a hub listing every rank 300 times is not.
    name="neighbor np=12 templates of 2400 offsets: the mesh found, the hub not"
    if run "$name" 12 "NHOOD_REPORT=1 NHOOD_FALLBACK=silent" "$t/test_neighbor" template &&
        grep -Eq '^nhood: comm=[0-9]+ op=alltoall pattern=isomorphic source=inferred dims=4x3 ' "$log.err" &&
        grep -Eq '^nhood: comm=[0-9]+ op=alltoall pattern=irregular ' "$log.err"; then ok "$name"; else bad "$name"; fi
    ;;
*)
    name="neighbor np=4 templates of 2400 offsets"
    if run "$name" 4 "NHOOD_FALLBACK=silent" "$t/test_neighbor" template; then ok "$name"; else bad "$name"; fi
    ;;
esac
for np in 2 4; do
    for b in pack zcopy; do
        for algo in auto torus; do
            name="neighbor np=$np NHOOD_ALGO=$algo NHOOD_BINDING=$b"
            if run "$name" $np "NHOOD_ALGO=$algo NHOOD_BINDING=$b NHOOD_FALLBACK=silent" "$t/test_neighbor"; then ok "$name"; else bad "$name"; fi
        done
    done
done

# Store-and-forward on irregular graphs (test_stfw: alltoall, alltoallv,
# allgather, allgatherv): forced with the cost model's dimension, with
# fixed dimensions (clamped to what the process count allows), and auto;
# forced on test_neighbor's graphs too (isomorphic ones included).
for np in $nps; do
    for vars in "NHOOD_ALGO=stfw" "NHOOD_ALGO=stfw NHOOD_STFW_DIMS=2" "NHOOD_ALGO=stfw NHOOD_STFW_DIMS=4" ""; do
        name="stfw np=$np $vars"
        if run "$name" $np "$vars" "$t/test_stfw"; then ok "$name"; else bad "$name"; fi
    done
    name="neighbor np=$np NHOOD_ALGO=stfw"
    if run "$name" $np "NHOOD_ALGO=stfw NHOOD_FALLBACK=silent" "$t/test_neighbor"; then ok "$name"; else bad "$name"; fi
done
name="NHOOD_REPORT=1 stfw lines"
if run "$name" 4 "NHOOD_ALGO=stfw NHOOD_STFW_DIMS=2 NHOOD_REPORT=1" "$t/test_stfw" &&
    grep -Eq '^nhood: comm=[0-9]+ op=alltoall pattern=irregular .*algorithm=stfw binding=- calls=[1-9][0-9]* rounds=2 messages=[0-9]+ create_us=[0-9.]+ create_mpi_us=[0-9.]+ stfw_dims=2 stfw_vpt=2x2(,node)? stfw_mmax=[0-9]+ stfw_mavg=[0-9.]+ pmpi_mmax=[0-9]+ pmpi_mavg=[0-9.]+ stfw_setup=creation$' "$log.err" &&
    grep -Eq '^nhood: comm=[0-9]+ op=allgather pattern=irregular .*algorithm=stfw .*stfw_dims=2 ' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
name="stfw info key nhood_stfw_dims=2 and NHOOD_STFW_DIMS=1"
if run "$name" 4 "NHOOD_ALGO=stfw NHOOD_STFW_DIMS=1 NHOOD_REPORT=1" "$t/test_stfw" info &&
    grep -Eq '^nhood: comm=[0-9]+ op=alltoall pattern=irregular .*stfw_dims=2 ' "$log.err" &&
    grep -Eq '^nhood: comm=[0-9]+ op=alltoall pattern=irregular .*stfw_dims=1 ' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
# Ranks that differ in a store-and-forward setting (the programs of an
# MPMD job, each with its own environment): the creation's agreement
# (NHOOD_STFW_DIMS is a fact every rank must share, plan/stfw_setup.h)
# finds it, warns and keeps store-and-forward off; with the same setting
# on every rank it runs (free stages and forwarding make auto choose it,
# as below).  (Hydra: -env gives one program its own value.)
name="NHOOD_STFW_DIMS=2 on two ranks, 3 on two (MPMD): a warning, stfw off; 2 everywhere: stfw on"
stfw_free="NHOOD_COST_STAGE=0 NHOOD_COST_FWD=0 NHOOD_STFW_DIMS=2 NHOOD_REPORT=1"
if [ "$launcher" = hydra ]; then
    if run "$name" 2 "$stfw_free" "$t/test_stfw" \
        : -n 2 -env NHOOD_STFW_DIMS 3 "$t/test_stfw" && all_passed &&
        grep -q '^nhood: warning: communicator [0-9]*: ranks differ in .*NHOOD_STFW_DIMS.* store-and-forward is off' "$log.err" &&
        ! grep -q 'algorithm=stfw ' "$log.err" &&
        run "$name" 2 "$stfw_free" "$t/test_stfw" \
            : -n 2 -env NHOOD_STFW_DIMS 2 "$t/test_stfw" && all_passed &&
        ! grep -q 'ranks differ' "$log.err" && grep -q 'algorithm=stfw .*stfw_dims=2 ' "$log.err"; then
        ok "$name"
    else
        bad "$name"
    fi
else
    skip "$name" "MPMD with per-program environments: Hydra's -env (launcher $launcher)"
fi
# auto's store-and-forward decision follows the stage and forwarding
# costs: free stages and forwarding make some graph worth it at 4 ranks
# (the star: three messages against two stages of one), a stage dearer
# than any exchange makes none.
name="auto and NHOOD_COST_STAGE / NHOOD_COST_FWD"
if run "$name" 4 "NHOOD_COST_STAGE=0 NHOOD_COST_FWD=0 NHOOD_REPORT=1" "$t/test_stfw" &&
    grep -Eq '^nhood: comm=[0-9]+ op=alltoall pattern=irregular .*algorithm=stfw ' "$log.err" &&
    run "$name" 4 "NHOOD_COST_STAGE=1000 NHOOD_REPORT=1" "$t/test_stfw" &&
    ! grep -Eq 'algorithm=stfw ' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi

# auto checks its choice again at the first blocking call with the blocks
# it moves: with forwarding priced (NHOOD_COST_FWD), STFW on the star wins
# for 16-byte blocks and loses for 64 KiB blocks, so a first alltoall[v]
# of 16-byte blocks keeps it and one of 64 KiB blocks turns it off
# (test_stfw recheck), and the report says so.  The graphs' set-up waits
# for their first blocking call (the few calls of the graphs before do not
# pay for it at creation): an ineighbor_alltoall made before it goes to
# PMPI (why=stfw_waiting) and is pending across the set-up and the
# re-check, which ranks that wait for it first must let complete.  With
# forwarding dearer (0.001 us/B) STFW loses at the nominal 256-byte block
# but wins for 1-byte blocks: the first call's 16-byte blocks turn it on.
for costs in "0.0001 safe" "0.0001 poll" "0.001 poll"; do
    fwd=${costs% *} prog=${costs#* } nb=pmpi
    name="auto re-checks store-and-forward at the first call's block size (NHOOD_COST_FWD=$fwd, NHOOD_PROGRESS=$prog)"
    if run "$name" 4 "NHOOD_COST_STAGE=0 NHOOD_COST_FWD=$fwd NHOOD_REPORT=1 NHOOD_PROGRESS=$prog" "$t/test_stfw" recheck &&
        grep -Eq '^nhood: comm=[0-9]+ op=alltoall .*algorithm=stfw .*stfw_block=16 stfw_recheck=on stfw_setup=[a-z_]+$' "$log.err" &&
        grep -Eq '^nhood: comm=[0-9]+ op=alltoall .*algorithm=pmpi .*stfw_block=65536 stfw_recheck=off stfw_setup=[a-z_]+ why=native_cheaper$' "$log.err" &&
        { [ "$prog" = safe ] ||
            grep -Eq "^nhood: comm=[0-9]+ op=ialltoall .*algorithm=$nb .*stfw_setup=waiting why=stfw_waiting " "$log.err"; }; then
        ok "$name"
    else
        bad "$name"
    fi
done

# Nonblocking and persistent store-and-forward (test_stfw_nb: ialltoall,
# iallgather, alltoall_init, allgather_init): under NHOOD_PROGRESS=poll
# forced, with a fixed dimension, and auto; forced under the default
# progress (auto); under safe they go to PMPI and must be right too;
# test_nonblocking under poll and stfw.  The report shows stfw for every
# form under poll and the default, and pmpi under safe.
for np in $nps; do
    for vars in "NHOOD_PROGRESS=poll NHOOD_ALGO=stfw" "NHOOD_PROGRESS=poll NHOOD_ALGO=stfw NHOOD_STFW_DIMS=2" \
        "NHOOD_PROGRESS=poll" "NHOOD_ALGO=stfw" "NHOOD_PROGRESS=safe NHOOD_ALGO=stfw"; do
        name="stfw_nb np=$np $vars"
        if run "$name" $np "$vars" "$t/test_stfw_nb"; then ok "$name"; else bad "$name"; fi
    done
    # test_nonblocking's graphs (isomorphic ones too) with forced stfw:
    # freed requests, a communicator freed while an operation is pending.
    name="nonblocking np=$np NHOOD_PROGRESS=poll NHOOD_ALGO=stfw"
    if run "$name" $np "NHOOD_PROGRESS=poll NHOOD_ALGO=stfw NHOOD_FALLBACK=silent" "$t/test_nonblocking"; then ok "$name"; else bad "$name"; fi
done
name="NHOOD_REPORT=1 stfw nonblocking and persistent lines (poll)"
if run "$name" 4 "NHOOD_PROGRESS=poll NHOOD_ALGO=stfw NHOOD_STFW_DIMS=2 NHOOD_REPORT=1" "$t/test_stfw_nb" &&
    grep -Eq '^nhood: comm=[0-9]+ op=ialltoall pattern=irregular .*algorithm=stfw binding=- calls=[1-9][0-9]* .*stfw_dims=2 ' "$log.err" &&
    grep -Eq '^nhood: comm=[0-9]+ op=iallgather pattern=irregular .*algorithm=stfw binding=- calls=[1-9]' "$log.err" &&
    { ! grep -q 'HAVE_MPI_NEIGHBOR_ALLTOALL_INIT=1' "$TOP_BUILDDIR/Makefile" ||
        { grep -Eq '^nhood: comm=[0-9]+ op=alltoall_init pattern=irregular .*algorithm=stfw binding=- calls=3 ' "$log.err" &&
            grep -Eq '^nhood: comm=[0-9]+ op=allgather_init pattern=irregular .*algorithm=stfw binding=- calls=3 ' "$log.err"; }; }; then
    ok "$name"
else
    bad "$name"
fi
name="NHOOD_REPORT=1 stfw nonblocking lines (safe: pmpi)"
if run "$name" 4 "NHOOD_PROGRESS=safe NHOOD_ALGO=stfw NHOOD_REPORT=1" "$t/test_stfw_nb" &&
    grep -Eq '^nhood: comm=[0-9]+ op=ialltoall .*algorithm=pmpi .* progress=safe$' "$log.err" &&
    ! grep -Eq '^nhood: comm=[0-9]+ op=i?all(toall|gather)(_init)? .*algorithm=stfw ' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
name="NHOOD_REPORT=1 stfw nonblocking lines (default progress: stfw forced runs)"
if run "$name" 4 "NHOOD_ALGO=stfw NHOOD_REPORT=1" "$t/test_stfw_nb" &&
    grep -Eq '^nhood: comm=[0-9]+ op=ialltoall pattern=irregular .*algorithm=stfw .* progress=auto:(hook|thread)$' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi

fi # all only
if part progress; then
# The progress model (test_progress): legal programs that block in MPI
# (point-to-point, barrier, rendezvous send, probe chains, communicator
# splits, allreduce, two graphs, mixed Waitany/Testsome, a second thread)
# between the start and the completion of an MPI_Ineighbor_alltoallv whose
# forced schedule forwards, under the default progress: every ordering
# finishes with the reference's result, and the report shows the
# forwarding schedule ran.
for np in $nps; do
    for case in "torus NHOOD_ALGO=torus" "torus NHOOD_ALGO=bruck NHOOD_PORTS=1" "irregular NHOOD_ALGO=stfw"; do
        graph=${case%% *} vars=${case#* }
        name="progress np=$np $graph $vars"
        if run "$name" $np "$vars NHOOD_FALLBACK=silent" "$t/test_progress" $graph &&
            all_passed; then ok "$name"; else bad "$name"; fi
    done
done
# The same corpus under auto with the defaults: the cold tier (no start
# analyzes a graph; the firstcall ordering's fresh graphs included) and
# learning, re-checking often.
name="progress np=4 torus NHOOD_WARMUP=2 NHOOD_AUTOTUNE=1 (the cold tier, learning)"
if run "$name" 4 "NHOOD_WARMUP=2 NHOOD_AUTOTUNE=1 NHOOD_LEARN_RECHECK=4 NHOOD_FALLBACK=silent" "$t/test_progress" torus &&
    all_passed; then ok "$name"; else bad "$name"; fi
# The tiers (test_tiers): cold after creation and through the warm-up, no
# start analyzes, the next blocking call does (every rank alike), copies,
# a malformed info value failing the analyzing call; and NHOOD_WARMUP=0.
for np in 2 4; do
    for case in "2 cold" "0 eager"; do
        name="tiers np=$np NHOOD_WARMUP=${case% *}"
        if run "$name" $np "NHOOD_WARMUP=${case% *}" "$t/test_tiers" ${case#* } &&
            all_passed; then ok "$name"; else bad "$name"; fi
    done
done
# ... with learning re-checking often: the 2-D Moore graph's trials and
# re-checks of six block sizes agree at its parent's points, the ranks'
# calls six apart there (a rank applying the decisions at its own next
# call instead of the agreed one failed here in 8 of 8 runs: at 4 ranks
# the choices differ on the wire; at 2 ranks, every neighbor one rank,
# they do not)
name="tiers np=4 NHOOD_WARMUP=2 NHOOD_AUTOTUNE=1 NHOOD_LEARN_RECHECK=4 (trials agreed at the parent's points)"
if run "$name" 4 "NHOOD_WARMUP=2 NHOOD_AUTOTUNE=1 NHOOD_LEARN_RECHECK=4" "$t/test_tiers" cold &&
    all_passed; then ok "$name"; else bad "$name"; fi
# ... and the report counts the cold calls: the ring's two cold starts,
# its copy's two cold blocking calls, and the graph analyzed at its
# parent's point: its four calls before the switch (api/parents.c); the
# graph that learns at its parent's points decides
name="tiers np=2 NHOOD_WARMUP=2 NHOOD_REPORT=1: cold= counts the calls before the analysis"
if run "$name" 2 "NHOOD_WARMUP=2 NHOOD_REPORT=1 NHOOD_AUTOTUNE=1" "$t/test_tiers" cold && all_passed &&
    grep -Eq '^nhood: comm=0 op=ialltoall .* cold=2( |$)' "$log.err" &&
    grep -Eq '^nhood: comm=1 dup_of=0 op=alltoall .* cold=2( |$)' "$log.err" &&
    grep -Eq '^nhood: comm=3 op=ialltoall .*source=inferred .*calls=8 .* cold=4( |$)' "$log.err" &&
    grep -Eq '^nhood: autotune comm=7 op=ialltoall bytes=8 algorithm=' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
# a graph rebuilt at every step, freed on either side of the parent's
# collective: right results, a living graph still analyzed at a parent's
# point, and the parent's reductions about one per 16 rebuilt graphs
# once the count has backed off, not one a step (65 where every new graph
# restarted the count at 1, api/parents.c; 10 now, 7 while the living
# graph's own spaced-out reductions also pushed the next graph's first
# one back; without learning, whose trials reduce at points of their own)
name="tiers np=4 NHOOD_REPORT=1 NHOOD_AUTOTUNE=0: a graph rebuilt every step costs its parent few reductions"
if run "$name" 4 "NHOOD_WARMUP=2 NHOOD_REPORT=1 NHOOD_AUTOTUNE=0" "$t/test_tiers" rebuilt && all_passed &&
    n=$(sed -n 's/^nhood: graphs=65 .* parent_reductions=\([0-9][0-9]*\)$/\1/p' "$log.err") &&
    [ -n "$n" ] && [ "$n" -le 12 ]; then
    ok "$name"
else
    bad "$name"
fi
# a graph made after a long-lived one whose spaced-out reductions found
# nothing to do: analyzed at its fourth point, not put off by up to 64
for np in 2 4; do
    name="tiers np=$np NHOOD_WARMUP=2: a graph made after a long-lived one is analyzed soon"
    if run "$name" $np "NHOOD_WARMUP=2" "$t/test_tiers" later && all_passed; then
        ok "$name"
    else
        bad "$name"
    fi
done
# a graph forced through the info key, asked about while cold: MPI's own
# exchange, no error under NHOOD_FALLBACK=error and no warning (the
# selection took the graph for one that is not isomorphic); torus once
# analyzed; then a ring of 70 starts and no collective, which the report
# counts in its cold_starts line (the forced ring, analyzed, is not)
for np in 2 4; do
    name="tiers np=$np NHOOD_FALLBACK=error: a forced graph asked about while cold"
    if run "$name" $np "NHOOD_WARMUP=2 NHOOD_FALLBACK=error NHOOD_REPORT=1" "$t/test_tiers" forced &&
        all_passed && ! grep -q 'was forced' "$log.err" &&
        grep -Eq '^nhood: cold_starts=70 cold_graphs=1: ' "$log.err"; then
        ok "$name"
    else
        bad "$name"
    fi
done
# nhood off: no parse of its info keys, no reduction at creation (a
# malformed nhood_dims is MPI's to ignore)
name="tiers np=2 NHOOD_DISABLE=1: a malformed nhood_dims changes nothing"
if run "$name" 2 "NHOOD_DISABLE=1" "$t/test_tiers" off && all_passed; then
    ok "$name"
else
    bad "$name"
fi
# A cold graph's all-to-all calls, every one of them cold: where MPICH
# before 5.0 orders a repeated peer's blocks wrongly, the ranks that list
# a peer twice route around it and the others pass theirs (api/cold.c);
# every form, v and w, two graphs.
for np in 2 4; do
    name="cold np=$np NHOOD_WARMUP=1000000 (repeated peers, every form)"
    if run "$name" $np "NHOOD_WARMUP=1000000" "$t/test_cold" && all_passed; then
        ok "$name"
    else
        bad "$name"
    fi
done
# With a second thread, and the report showing the schedule forwarded
# (more than one round; bruck with one port, its only multi-round form on
# 2x2x1) by the hook or the thread backend: never MPIX_Async at
# MPI_THREAD_MULTIPLE (MPICH up to 5.0 locks its poll list twice there).
for case in "torus torus" "torus bruck" "irregular stfw"; do
    graph=${case% *} algo=${case#* }
    name="progress np=4 $graph NHOOD_ALGO=$algo threads, report names $algo for ialltoallv"
    if run "$name" 4 "NHOOD_ALGO=$algo NHOOD_PORTS=1 NHOOD_REPORT=1" "$t/test_progress" $graph threads &&
        all_passed &&
        grep -Eq "^nhood: comm=[0-9]+ op=ialltoallv .*algorithm=$algo .*rounds=[2-9].* progress=auto:(hook|thread)\$" "$log.err"; then
        ok "$name"
    else
        bad "$name"
    fi
done
# Where the MPI library has MPIX_Async (MPICH 4.3 and later: nhood-info's
# progress_backends), the same corpus at MPI_THREAD_SINGLE forwards
# through it: the report names the backend on every forwarding line.
case " $(NHOOD_LIB="$lib" "$TOP_BUILDDIR/nhood-info" 2>/dev/null | sed -n 's/^progress_backends *//p') " in
*" async "*)
    for case in "torus torus" "torus bruck" "irregular stfw"; do
        graph=${case% *} algo=${case#* }
        name="progress np=4 $graph NHOOD_ALGO=$algo MPI_THREAD_SINGLE: forwarded through MPIX_Async (progress=auto:async)"
        if run "$name" 4 "NHOOD_ALGO=$algo NHOOD_PORTS=1 NHOOD_REPORT=1" "$t/test_progress" $graph &&
            all_passed &&
            grep -Eq "^nhood: comm=[0-9]+ op=ialltoallv .*algorithm=$algo .*rounds=[2-9].* progress=auto:async\$" "$log.err" &&
            ! grep -Eq 'progress=auto:(thread|none)' "$log.err"; then
            ok "$name"
        else
            bad "$name"
        fi
    done
    ;;
esac

fi # progress
if part all; then
# Meshes without a Cartesian parent or hint (inferred, periods 0, or a
# channel periodic in one dimension): a 3-D Moore stencil with walls on
# MPI_COMM_WORLD at 27 ranks (Open MPI; a 3x3x3 grid whose centre rank
# sees all 26 neighbors) combines messages where each rank has a core
# (NHOOD_COST_CORE=0: priced so on this machine's two).
case "$launcher" in
    openmpi)
        for c in mesh:0,0,0 channel:1,0,0; do
            name="${c%%:*} np=27 moore d=3 inferred, periods=${c#*:}, combining"
            if run "$name" 27 "NHOOD_REPORT=1 NHOOD_COST_CORE=0" "$t/test_neighbor" ${c%%:*} moore 3 &&
                all_passed &&
                grep -Eq "^nhood: comm=[0-9]+ op=alltoall pattern=isomorphic source=inferred dims=3x3x3 periods=${c#*:} .*algorithm=(torus|torus_direct|bruck) " "$log.err"; then
                ok "$name"
            else bad "$name"; fi
        done
        ;;
esac

# Box-stencil halos without a hint (test_boxhalo: face/edge/corner block
# sizes by direction, changing between calls, ragged calls; v and w forms,
# blocking, nonblocking and persistent): split schedules whose blocks all
# forward (NHOOD_COST_O=1000), all go straight (0; NHOOD_COST_O_RECV=0
# too: a block goes straight where its message, o + o_recv, costs less
# than its forwarding), or both: by size and hops (0.0012), and on nodes
# of 2 ranks whose links cost 0.0075 us a byte, by the node's load too
# (core/model.h: nh_cost_split_limit; 128-byte faces and all edges (24, 32 B)
# straight, 72-byte faces and corners forwarded, where on one node the
# edges would be forwarded), on
# meshes, channels and tori; at 27 ranks (Open MPI) the report shows the
# inferred mesh and a combining schedule for the v and w calls where each
# rank has a core (NHOOD_COST_CORE=0), and MPI's own exchange at 27 ranks
# on this machine's cores (each of torus's phases waits for a core).
case "$launcher" in openmpi) bnps="8 12 16" ;; *) bnps="1 3 4" ;; esac
for np in $bnps; do
    for shape in "3 mesh" "3 channel" "2 mesh"; do
        for bvars in "NHOOD_ALGO=auto" "NHOOD_PROGRESS=poll NHOOD_ALGO=torus NHOOD_COST_O=0.0012 NHOOD_COST_O_RECV=0" \
            "NHOOD_ALGO=torus_direct NHOOD_COST_O=0 NHOOD_COST_O_RECV=0" "NHOOD_PROGRESS=poll NHOOD_ALGO=torus NHOOD_COST_O=1000" \
            "NHOOD_PROGRESS=poll NHOOD_ALGO=torus NHOOD_NODE_SIZE=2 NHOOD_COST_O=0.3 NHOOD_COST_O_RECV=0.3 NHOOD_COST_LINK=0.0075 NHOOD_COST_HOP_LINK=0.0075"; do
            d=${shape% *} kind=${shape#* }
            # inferred with its walls (Open MPI at 12 and 16 ranks: dimension
            # 0 has 3 or 4 ranks; a dimension of 2 ranks, whose one neighbor
            # is the same rank either way, may come out either periodic or
            # not)
            per=""
            # (under the default costs: pick weighs equivalent grids by
            # alpha and o, and NHOOD_COST_O=0 prefers fewer dimensions)
            [ "$bvars" = NHOOD_ALGO=auto ] && case "$np,$kind" in
                12,mesh | 16,mesh) per=$([ "$d" = 3 ] && echo "0,[01],[01]" || echo 0,0) ;;
                12,channel | 16,channel) per="1,[01],[01]" ;;
            esac
            name="boxhalo np=$np d=$d $kind $bvars${per:+, inferred periods=$per}"
            if run "$name" $np "$bvars NHOOD_REPORT=1" "$t/test_boxhalo" $d 3 $kind &&
                all_passed &&
                { [ -z "$per" ] ||
                    grep -Eq "^nhood: comm=[0-9]+ op=alltoallv pattern=isomorphic source=inferred dims=[0-9x]+ periods=$per " "$log.err"; }; then
                ok "$name"
            else bad "$name"; fi
        done
    done
done
case "$launcher" in
    openmpi)
        for bvars in "NHOOD_ALGO=auto" "NHOOD_PROGRESS=poll"; do
            bvars="$bvars NHOOD_COST_CORE=0"
            name="boxhalo np=27 d=3 mesh $bvars: inferred periods=0,0,0, v and w combined"
            if run "$name" 27 "NHOOD_REPORT=1 $bvars" "$t/test_boxhalo" 3 4 mesh &&
                all_passed &&
                grep -Eq '^nhood: comm=[0-9]+ op=alltoallv pattern=isomorphic source=inferred dims=3x3x3 periods=0,0,0 .*algorithm=(torus|torus_direct) ' "$log.err" &&
                grep -Eq '^nhood: comm=[0-9]+ op=alltoallw pattern=isomorphic source=inferred dims=3x3x3 periods=0,0,0 .*algorithm=(torus|torus_direct) ' "$log.err" &&
                { [ "${bvars% *}" = NHOOD_ALGO=auto ] ||
                    grep -Eq '^nhood: comm=[0-9]+ op=ialltoallv pattern=isomorphic .*periods=0,0,0 .*algorithm=(torus|torus_direct) ' "$log.err"; }; then
                ok "$name"
            else bad "$name"; fi
        done
        cpus=$(nproc)
        if [ "$cpus" -lt 14 ]; then
            name="boxhalo np=27 d=3 mesh on $cpus CPUs: MPI's own exchange for the v and w calls"
            if run "$name" 27 "NHOOD_REPORT=1" "$t/test_boxhalo" 3 4 mesh &&
                all_passed &&
                grep -qx "nhood: oversubscribed=27/$cpus" "$log.err" &&
                grep -Eq '^nhood: comm=[0-9]+ op=alltoallv pattern=isomorphic .*algorithm=pmpi .*why=native_cheaper' "$log.err" &&
                grep -Eq '^nhood: comm=[0-9]+ op=alltoallw pattern=isomorphic .*algorithm=pmpi .*why=native_cheaper' "$log.err"; then
                ok "$name"
            else bad "$name"; fi
        fi
        ;;
esac

# Node aggregation (NHOOD_STFW_DIMS=agg: gather on the node, one message
# per pair of nodes, scatter) on nodes made of NHOOD_NODE_SIZE consecutive
# ranks: blocking, nonblocking and persistent forms (poll), and the
# progress corpus under the default progress; the report names the route.
case "$launcher" in openmpi) acases="8:2 8:4" ;; *) acases="4:2" ;; esac
for c in $acases; do
    np=${c%%:*} ns=${c#*:}
    # (not "vars": run sets that one)
    avars="NHOOD_ALGO=stfw NHOOD_STFW_DIMS=agg NHOOD_NODE_SIZE=$ns NHOOD_REPORT=1"
    for prog in "test_stfw" "test_stfw_nb NHOOD_PROGRESS=poll" "test_progress:irregular"; do
        p=${prog%%[ :]*} more=""
        case "$prog" in *" "*) more=${prog#* } ;; esac
        args=""
        case "$prog" in *:*) args=${prog#*:} ;; esac
        name="agg np=$np NHOOD_NODE_SIZE=$ns $p $more, the report says stfw_vpt=agg"
        # shellcheck disable=SC2086
        if run "$name" $np "$avars $more" "$t/$p" $args &&
            all_passed &&
            grep -Eq "^nhood: comm=[0-9]+ op=.*algorithm=stfw .*stfw_dims=3 stfw_vpt=agg:$((np / ns))x$ns " "$log.err"; then
            ok "$name"
        else bad "$name"; fi
    done
done

# auto prices the compute window of nonblocking calls (test_window): a
# graph created after calls waited at once forwards, one created after
# calls that computed 4 ms between start and wait does not, and the
# report says why.  The cost settings make forwarding pay in blocking
# calls on a few ranks.  MPICH has no progress backend unless a
# forwarding algorithm is forced: there nothing forwards except under
# NHOOD_PROGRESS=poll; Open MPI's hook forwards by default.
case "$launcher" in openmpi) wnps="4 8" wdef=fwd ;; *) wnps=4 wdef=nofwd ;; esac
for np in $wnps; do
    for graph in torus irregular; do
        for mode in $wdef poll; do
            vars="NHOOD_COST_ALPHA=0.1 NHOOD_COST_O=10 NHOOD_REPORT=1"
            [ $mode = poll ] && vars="$vars NHOOD_PROGRESS=poll"
            # the last graph's line (g2; irregular runs make a duplicate
            # of g0 too): priced with the long window
            want="why=$([ $mode = nofwd ] && echo no_progress || echo window) window_us=[0-9.e+]+ progress="
            name="window np=$np $graph $mode, the report says why"
            if run "$name" $np "$vars" "$t/test_window" $graph $mode &&
                all_passed &&
                grep -E '^nhood: comm=[0-9]+ op=ialltoall' "$log.err" | tail -n 1 | grep -Eq " $want"; then
                ok "$name"
            else bad "$name"; fi
        done
    done
done

# The same corpus where auto itself chooses to forward (Open MPI's hook;
# the window stated as none with NHOOD_WINDOW=0, the costs making
# store-and-forward pay): the report must show stfw with more than one
# stage for the nonblocking calls, and every ordering must finish.
case "$launcher" in
    openmpi)
        for np in 8 16; do
            name="progress np=$np irregular auto NHOOD_WINDOW=0, auto forwards (stfw)"
            if run "$name" $np "NHOOD_WINDOW=0 NHOOD_COST_ALPHA=0.1 NHOOD_COST_O=10 NHOOD_REPORT=1" "$t/test_progress" irregular &&
                all_passed &&
                grep -Eq '^nhood: comm=[0-9]+ op=ialltoallv .*algorithm=stfw .*rounds=[2-9].* progress=auto:hook$' "$log.err"; then
                ok "$name"
            else bad "$name"; fi
        done
        ;;
esac

fi # all only
if part nonblocking; then
# Nonblocking and persistent forms: the default, forced forwarding
# schedules (direct under NHOOD_PROGRESS=safe, forwarding under poll and
# the default), PMPI, and chunked packed messages.
for np in $nps; do
    for vars in "" "NHOOD_ALGO=torus" "NHOOD_PROGRESS=safe NHOOD_ALGO=torus" "NHOOD_PROGRESS=poll" "NHOOD_PROGRESS=poll NHOOD_ALGO=torus" \
        "NHOOD_PROGRESS=poll NHOOD_ALGO=torus_direct" "NHOOD_PROGRESS=poll NHOOD_ALGO=bruck NHOOD_PORTS=2" "NHOOD_ALGO=pmpi"; do
        name="nonblocking np=$np $vars"
        if run "$name" $np "$vars NHOOD_FALLBACK=silent" "$t/test_nonblocking"; then ok "$name"; else bad "$name"; fi
    done
done
for b in pack zcopy; do
    name="nonblocking np=4 NHOOD_PROGRESS=poll NHOOD_ALGO=torus NHOOD_BINDING=$b NHOOD_COST_EAGER=100"
    if run "$name" 4 "NHOOD_PROGRESS=poll NHOOD_ALGO=torus NHOOD_BINDING=$b NHOOD_COST_EAGER=100 NHOOD_FALLBACK=silent" "$t/test_nonblocking"; then ok "$name"; else bad "$name"; fi
done
name="NHOOD_REPORT=1 nonblocking and persistent lines"
if run "$name" 4 "NHOOD_REPORT=1" "$t/test_nonblocking" &&
    grep -Eq '^nhood: comm=[0-9]+ op=ialltoall pattern=isomorphic .*algorithm=direct .*calls=[1-9]' "$log.err" &&
    grep -Eq '^nhood: comm=[0-9]+ op=iallgather pattern=isomorphic .*algorithm=(direct|torus_direct|bruck) .*calls=[1-9]' "$log.err" &&
    { ! grep -q 'HAVE_MPI_NEIGHBOR_ALLTOALL_INIT=1' "$TOP_BUILDDIR/Makefile" ||
        grep -Eq '^nhood: comm=[0-9]+ op=alltoall_init pattern=isomorphic .*algorithm=direct .*calls=[1-9]' "$log.err"; }; then
    ok "$name"
else
    bad "$name"
fi

# The newer completion queries (test_reqstatus: MPI 4.1's
# MPI_Request_get_status_all/any/some, MPICH's MPIX_Request_is_complete)
# on nhood's requests beside MPI's, with a forwarding schedule (the
# default progress backend: MPIX_Request_is_complete makes no progress):
# complete only once the data is there, nothing freed.  The program exits
# 77 where the library has none of them.
for algo in torus bruck; do
    name="reqstatus np=4 NHOOD_ALGO=$algo"
    run "$name" 4 "NHOOD_ALGO=$algo NHOOD_PORTS=1" "$t/test_reqstatus"
    case $? in
    0) all_passed && ok "$name" || bad "$name" ;;
    77) skip "$name" "the MPI library has neither MPI_Request_get_status_all nor MPIX_Request_is_complete" ;;
    *) bad "$name" ;;
    esac
done
fi # nonblocking
if part dup; then
# Duplicated communicators share the original's analysis.
for np in $nps; do
    for vars in "" "NHOOD_ALGO=torus" "NHOOD_ALGO=pmpi"; do
        name="dup np=$np $vars"
        if run "$name" $np "$vars NHOOD_FALLBACK=silent" "$t/test_dup"; then ok "$name"; else bad "$name"; fi
    done
done
name="NHOOD_REPORT=1 lists duplicates as their own communicators"
if run "$name" 4 "NHOOD_REPORT=1" "$t/test_dup" &&
    [ "$(grep -Ec '^nhood: comm=[0-9]+ dup_of=[0-9]+ op=alltoall pattern=isomorphic .*algorithm=(direct|torus|torus_direct|bruck) ' "$log.err")" -eq 4 ]; then
    ok "$name"
else
    bad "$name"
fi

fi # dup
if part threads; then
# MPI_THREAD_MULTIPLE: nhood stays on; threads run collectives on their
# own communicators (one a duplicate of another's) and wait concurrently.
# Open MPI 6.0.0rc2 hangs this program above 2 ranks with no nhood loaded
# as well (8 of 16 runs at 4 and at 8 ranks, none of 16 at 2: a thread
# stays in MPI_Waitall on messages its peers sent; docs/platforms.md).
mt_hangs=no
if [ "$launcher" = openmpi ]; then
    case "$(${MPIEXEC%% *} --version 2>/dev/null | head -n 1)" in *"Open MPI) 6.0.0rc"*) mt_hangs=yes ;; esac
fi
for np in $nps; do
    for vars in "" "NHOOD_PROGRESS=poll NHOOD_ALGO=torus" "NHOOD_ALGO=pmpi"; do
        name="threads np=$np $vars"
        if [ "$mt_hangs" = yes ] && [ "$np" -gt 2 ]; then
            skip "$name" "Open MPI 6.0.0rc2 hangs test_threads above 2 ranks without nhood too"
            continue
        fi
        if run "$name" $np "$vars NHOOD_FALLBACK=silent" "$t/test_threads" &&
            all_passed; then ok "$name"; else bad "$name"; fi
    done
done
name="NHOOD_REPORT=1 under MPI_THREAD_MULTIPLE: nhood is on"
if run "$name" 2 "NHOOD_REPORT=1" "$t/test_threads" &&
    grep -Eq '^nhood: comm=[0-9]+ op=alltoall pattern=isomorphic .*algorithm=(direct|torus|torus_direct|bruck) ' "$log.err" &&
    grep -Eq '^nhood: comm=[0-9]+ dup_of=[0-9]+ op=ialltoall pattern=isomorphic ' "$log.err" &&
    ! grep -q '^nhood: off' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi

# Under MPI_THREAD_MULTIPLE nonblocking calls take the engine's cached
# bindings as other calls do: a handful for 260 calls, so the report's
# line shows no binds= (each request built its own before: binds=260).
name="MPI_THREAD_MULTIPLE: nonblocking calls reuse the engine's bindings"
if run "$name" 2 "NHOOD_ALGO=torus NHOOD_REPORT=1" "$TOP_BUILDDIR/nhood-bench" --op alltoall \
    --form nonblocking --nbhd moore --dims 3 --radius 1 --bytes 4096 --reps 100 \
    --thread-multiple --no-header &&
    grep -Eq '^nhood: comm=0 op=ialltoall .*algorithm=torus .*calls=2[5-9][0-9] ' "$log.err" &&
    ! grep -E '^nhood: comm=0 op=ialltoall ' "$log.err" | grep -q ' binds='; then
    ok "$name"
else
    bad "$name"
fi

fi # threads
if part inplace; then
# In-place MPI_Alltoall[v|w]: every algorithm, and the auxiliary-buffer
# variant with a buffer that holds some swaps and one that holds all.
for np in $nps; do
    for algo in auto lsa hsa pmpi; do
        name="inplace np=$np NHOOD_INPLACE_ALGO=$algo"
        if run "$name" $np "NHOOD_INPLACE_ALGO=$algo" "$t/test_inplace"; then ok "$name"; else bad "$name"; fi
    done
done
for np in 3 4; do
    for aux in 64 1048576; do
        for algo in lsa hsa; do
            name="inplace np=$np NHOOD_INPLACE_ALGO=$algo NHOOD_INPLACE_AUXMEM=$aux"
            if run "$name" $np "NHOOD_INPLACE_ALGO=$algo NHOOD_INPLACE_AUXMEM=$aux" "$t/test_inplace"; then ok "$name"; else bad "$name"; fi
        done
    done
done
name="NHOOD_REPORT=1 in-place lines"
if run "$name" 4 "NHOOD_REPORT=1" "$t/test_inplace" &&
    grep -Eq '^nhood: comm=[0-9]+ op=inplace_alltoallv pattern=inplace procs=4 algorithm=hsa calls=[1-9][0-9]* steps=3$' "$log.err" &&
    grep -Eq '^nhood: comm=[0-9]+ op=inplace_alltoallw pattern=inplace procs=4 algorithm=hsa ' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi

fi # inplace
if part all; then
# Eager-limit splitting of combined messages: many small chunks, and two
# blocks per chunk for the 300-int blocks.
for eager in 100 2500; do
    name="neighbor np=4 NHOOD_ALGO=torus NHOOD_COST_EAGER=$eager"
    if run "$name" 4 "NHOOD_ALGO=torus NHOOD_COST_EAGER=$eager NHOOD_FALLBACK=silent" "$t/test_neighbor"; then ok "$name"; else bad "$name"; fi
done

# MPI_THREAD_MULTIPLE: nhood stays on, with the same results and analysis.
for np in 2 4; do
    name="neighbor np=$np MPI_THREAD_MULTIPLE"
    if run "$name" $np "NH_TEST_THREAD_MULTIPLE=1" "$t/test_neighbor"; then ok "$name"; else bad "$name"; fi
done

fi # all only
if part report; then
# Report: isomorphic graphs on MPI_COMM_WORLD get a combining algorithm,
# the irregular one is left to PMPI, and auto leaves calls to MPI where
# its exchange is nhood's (one block per neighbor, no rank listed twice).
name="NHOOD_REPORT=1 format"
if run "$name" 4 "NHOOD_REPORT=1" "$t/test_neighbor" &&
    grep -Eq '^nhood: comm=[0-9]+ op=alltoall pattern=isomorphic source=inferred dims=[0-9x]+ periods=[0-9,]+ neighbors=26 algorithm=(direct|torus|torus_direct|bruck) binding=(pack|zcopy) calls=[1-9][0-9]* rounds=[0-9]+ messages=[0-9]+ create_us=[0-9.]+ create_mpi_us=[0-9.]+' "$log.err" &&
    grep -Eq '^nhood: comm=[0-9]+ op=allgather pattern=none .*algorithm=pmpi .*calls=[1-9].* why=irregular$' "$log.err" &&
    grep -Eq '^nhood: comm=[0-9]+ op=alltoall pattern=isomorphic .*(algorithm=pmpi .*why=native_cheaper$| mix=[a-z_:0-9,]*pmpi:[1-9])' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
# Where the report goes.  The cases above read it from a file of the run's
# own (the harness names it in NHOOD_REPORT_FILE, test/mpi/harness.sh);
# without that setting it is on stderr, and never on stdout; a file that
# cannot be written: a warning, and the report on stderr.
name="NHOOD_REPORT=1 without NHOOD_REPORT_FILE: the report on stderr, none on stdout"
report_stderr=1
if run "$name" 2 "NHOOD_REPORT=1" "$t/test_dup" && all_passed &&
    grep -Eq '^nhood: comm=[0-9]+ op=' "$log.err" && grep -q '^nhood: cost=' "$log.err" &&
    ! grep -q 'nhood: ' "$log.out"; then
    ok "$name"
else
    bad "$name"
fi
report_stderr=0
name="NHOOD_REPORT_FILE alone: the report appended to the file, none on stderr"
echo "a line before" >"$log.named"
if run "$name" 2 "NHOOD_REPORT_FILE=$log.named" "$t/test_dup" && all_passed &&
    [ "$(head -n 1 "$log.named")" = "a line before" ] &&
    grep -Eq '^nhood: comm=[0-9]+ op=' "$log.named" && grep -q '^nhood: cost=' "$log.named" &&
    ! grep -q '^nhood: comm=' "$log.err" && ! grep -q 'nhood: ' "$log.out"; then
    ok "$name"
else
    bad "$name"
fi
rm -f "$log.named"
name="NHOOD_REPORT_FILE that cannot be written: a warning naming it, the report on stderr"
if run "$name" 2 "NHOOD_REPORT_FILE=$log.nodir/report" "$t/test_dup" && all_passed &&
    grep -q "^nhood: warning: NHOOD_REPORT_FILE: cannot write $log.nodir/report" "$log.err" &&
    grep -Eq '^nhood: comm=[0-9]+ op=' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
# Asked for MPI's own exchange: the report says it was asked, on every line.
name="NHOOD_REPORT=1 why=requested (NHOOD_ALGO=pmpi)"
if run "$name" 4 "NHOOD_REPORT=1 NHOOD_ALGO=pmpi" "$t/test_neighbor" &&
    grep -Eq '^nhood: comm=[0-9]+ op=alltoall pattern=isomorphic .*algorithm=pmpi .* why=requested$' "$log.err" &&
    ! grep -E '^nhood: comm=' "$log.err" | grep -vq ' why=requested$'; then
    ok "$name"
else
    bad "$name"
fi

# Switched off: the report says so (and nothing else), and the program
# passes.  off_case NAME REASON NP VARS PROGRAM...: REASON (an ERE) ends
# "nhood: off reason=".
off_case() {
    name=$1 why=$2
    shift 2
    if run "$name" "$@" && all_passed && grep -Eq "^nhood: off reason=$why " "$log.err" &&
        ! grep -q '^nhood: comm=' "$log.err"; then
        ok "$name"
    else
        bad "$name"
    fi
}
off_case "NHOOD_REPORT=1 says nhood is off" "NHOOD_DISABLE=1" 2 "NHOOD_REPORT=1 NHOOD_DISABLE=1" "$t/test_dup"
# NHOOD_EXCLUDE: the programs named (shell patterns) run as under
# NHOOD_DISABLE=1; others run nhood.
off_case "NHOOD_EXCLUDE=hostname,test_d?p: off for this program" "NHOOD_EXCLUDE \(test_dup\)" \
    2 "NHOOD_REPORT=1 NHOOD_EXCLUDE=hostname,test_d?p" "$t/test_dup"
name="NHOOD_EXCLUDE=hostname,test_dup2: not this program, nhood on"
if run "$name" 2 "NHOOD_REPORT=1 NHOOD_EXCLUDE=hostname,test_dup2" "$t/test_dup" && all_passed &&
    grep -Eq '^nhood: comm=[0-9]+ ' "$log.err" && ! grep -q '^nhood: off' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
# An MPMD job whose second program is excluded: off on every rank (on
# some ranks only, the ranks would run different exchanges), and rank 0's
# report says why.  (Hydra's -genv reaches every program of the job.)
name="NHOOD_EXCLUDE naming one program of an MPMD job: off on every rank"
if [ "$launcher" = hydra ]; then
    mkdir -p "$log.mpmd" && cp "$t/test_dup" "$log.mpmd/test_dup_b"
    off_case "$name" "NHOOD_DISABLE or NHOOD_EXCLUDE on another rank" \
        1 "NHOOD_REPORT=1 NHOOD_EXCLUDE=test_dup_b" "$t/test_dup" : -n 1 "$log.mpmd/test_dup_b"
    rm -rf "$log.mpmd"
else
    skip "$name" "MPMD with one environment: Hydra's -genv (launcher $launcher)"
fi

fi # report
if part all; then
# No leaked communicators, datatypes, requests or plans over 10,000
# create/use/free cycles of graphs and in-place contexts (zcopy binds
# struct datatypes, pack packs; MPI_BOTTOM makes temporary types; the one
# communicator left is nhood's private duplicate of MPI_COMM_WORLD).  Open
# MPI oversubscribed runs 2,000 (10,000 came close to the 300 s limit on a
# loaded machine; an injected leak fails after 50).
cycles=10000
case "$launcher" in openmpi) cycles=2000 ;; esac
for vars in "NHOOD_ALGO=torus NHOOD_BINDING=zcopy NH_TEST_EXPECT_TYPES=1" "NHOOD_BINDING=pack NHOOD_PROGRESS=poll" "NHOOD_ALGO=stfw" "NHOOD_COST_NODE=1 NHOOD_COST_LINK=0.001"; do
    name="leaks np=2 $cycles cycles $vars"
    if run "$name" 2 "$vars NHOOD_FALLBACK=silent" "$t/test_leaks" $cycles &&
        grep -q 'at end 1/0/0/0' "$log.err"; then
        ok "$name"
    else
        bad "$name"
    fi
done

fi # all only
if part fortran; then
# Fortran callers (mpif.h, use mpi and use mpi_f08): the halo exchange
# must pass and nhood's report must show that its calls ran under nhood's
# schedules, so the test fails if Fortran bypasses nhood (Open MPI's own
# Fortran bindings call PMPI_*, and both libraries' mpi_f08 start-up and
# completion calls do).  Built only with an MPI Fortran compiler.
# Every form from Fortran: the v/w, nonblocking and (MPI-4) persistent
# calls each show up in the report with nhood's algorithms (the Fortran
# tests call the persistent forms by their MPI-4 names, or with Open MPI
# 4.1 as MPIX_NEIGHBOR_*_INIT: NH_FORTRAN_INIT_FORMS).
fops="alltoallv alltoallw allgatherv ialltoall iallgather ialltoallv ialltoallw iallgatherv"
grep -Eq '^NH_FORTRAN_INIT_FORMS = (yes|mpix)' "$TOP_BUILDDIR/Makefile" &&
    fops="$fops alltoall_init allgather_init alltoallv_init allgatherv_init alltoallw_init"
fortran_forms() { # report file
    for op in $fops; do
        grep -Eq "^nhood: comm=[0-9]+ op=$op pattern=isomorphic source=inferred .*neighbors=26 $algo" "$1" ||
            { echo "#     no report line for op=$op"; return 1; }
    done
}
for prog in test_fortran test_fortran_mpif test_fortran_f08; do
    if [ ! -x "$t/$prog" ]; then
        skip "$prog" "no MPI Fortran compiler (with mpi_f08 for test_fortran_f08) at configure time"
        continue
    fi
    for np in 1 2 4; do
        name="$prog np=$np NHOOD_REPORT=1 through nhood"
        algo='algorithm=(direct|torus|torus_direct|bruck) binding=(pack|zcopy) calls=[1-9]'
        if run "$name" $np "NHOOD_REPORT=1" "$t/$prog" &&
            all_passed &&
            grep -Eq "^nhood: comm=[0-9]+ op=alltoall pattern=isomorphic source=inferred .*neighbors=26 $algo" "$log.err" &&
            grep -Eq "^nhood: comm=[0-9]+ op=alltoall pattern=isomorphic source=hint .*neighbors=26 $algo" "$log.err" &&
            grep -Eq "^nhood: comm=[0-9]+ op=allgather pattern=isomorphic source=inferred .*neighbors=26 $algo" "$log.err" &&
            grep -Eq "^nhood: comm=[0-9]+ op=inplace_alltoall pattern=inplace procs=$np algorithm=$inplace_auto calls=1 " "$log.err" &&
            grep -Eq "^nhood: comm=[0-9]+ op=inplace_alltoallw pattern=inplace procs=$np algorithm=$inplace_auto calls=1 " "$log.err" &&
            fortran_forms "$log.err"; then
            ok "$name"
        else
            bad "$name"
            tail -n 5 "$log.out" | awk '{ print "#     " $0 }'
        fi
    done
done
# Where nhood's Fortran converters run (NHOOD_FORTRAN_FIXES=auto: the
# library's own bugs, nhood-info's fortran_fixes) must match where the
# library's own binding is wrong: with NHOOD_FORTRAN_FIXES=none each
# program runs on the library's binding alone, and must fail exactly where
# auto mends a bug it exercises (use mpi and mpif.h: MPI_WAITANY and
# MPI_TESTANY with none active, MPI_NEIGHBOR_ALLTOALLW's types at 26
# neighbors on 2 ranks, MPI_REQUEST_GET_STATUS with MPI_STATUS_IGNORE,
# the nonblocking and persistent MPI_NEIGHBOR_ALLTOALLW's arrays hung on
# nhood's request; mpi_f08: the same and its indices).  Under all,
# every converter runs where the binding is right too.
fixes=$(NHOOD_LIB="$lib" "$TOP_BUILDDIR/nhood-info" 2>/dev/null | sed -n 's/^fortran_fixes *//p')
for prog in test_fortran test_fortran_mpif test_fortran_f08; do
    [ -x "$t/$prog" ] || continue
    case $prog in
        *f08) relevant="waitany_none_f08 index_f08 neighbor_alltoallw_types get_status_ignore neighbor_alltoallw_request" ;;
        *) relevant="waitany_none neighbor_alltoallw_types get_status_ignore neighbor_alltoallw_request" ;;
    esac
    mended=""
    for f in $fixes; do
        case " $relevant " in *" $f "*) mended="$mended $f" ;; esac
    done
    name="$prog np=2 NHOOD_FORTRAN_FIXES=none: fails exactly where auto mends a bug (${mended:-none here})"
    if run "$name" 2 "NHOOD_FORTRAN_FIXES=none" "$t/$prog" && all_passed; then
        [ -z "$mended" ] && ok "$name" || bad "$name"
    else
        [ -n "$mended" ] && ok "$name" || bad "$name"
    fi
    name="$prog np=2 NHOOD_FORTRAN_FIXES=all"
    if run "$name" 2 "NHOOD_FORTRAN_FIXES=all" "$t/$prog" && all_passed; then
        ok "$name"
    else
        bad "$name"
    fi
done
fi # fortran
if part large_count; then
# MPI-4's large-count forms (test_large_count.c): every result checked;
# the report shows the regular forms under nhood's schedules and the v and
# w forms with MPI (why=large_count), or under nhood's schedules with the
# program's promise NHOOD_LARGE_COUNT=fits, which a count beyond int
# breaks with an error that stops the job.
if grep -q 'HAVE_MPI_NEIGHBOR_ALLTOALL_C=1' "$TOP_BUILDDIR/Makefile"; then
    algo='algorithm=(direct|torus|torus_direct|bruck) '
    for np in $nps; do
        [ "$np" -gt 4 ] && continue
        name="large_count np=$np NHOOD_REPORT=1"
        if run "$name" $np "NHOOD_REPORT=1" "$t/test_large_count" &&
            all_passed &&
            grep -Eq "^nhood: comm=[0-9]+ op=alltoall pattern=isomorphic .*$algo" "$log.err" &&
            grep -Eq "^nhood: comm=[0-9]+ op=iallgather pattern=isomorphic .*$algo" "$log.err" &&
            grep -Eq "^nhood: comm=[0-9]+ op=alltoall_init pattern=isomorphic .*$algo" "$log.err" &&
            grep -Eq "^nhood: comm=[0-9]+ op=ialltoallv .*algorithm=pmpi .*why=large_count_vw" "$log.err" &&
            grep -Eq "^nhood: comm=[0-9]+ op=allgatherv_init .*algorithm=pmpi .*why=large_count_vw" "$log.err" &&
            grep -Eq "^nhood: comm=[0-9]+ op=inplace_alltoall pattern=inplace .*algorithm=$inplace_auto" "$log.err"; then
            ok "$name"
        else
            bad "$name"
        fi
    done
    name="large_count np=4 NHOOD_LARGE_COUNT=fits: the v and w forms under nhood's schedules"
    if run "$name" 4 "NHOOD_REPORT=1 NHOOD_LARGE_COUNT=fits" "$t/test_large_count" &&
        all_passed &&
        ! grep -q 'algorithm=pmpi' "$log.err" &&
        grep -Eq "^nhood: comm=[0-9]+ op=alltoallw_init pattern=isomorphic .*$algo" "$log.err" &&
        grep -Eq "^nhood: comm=[0-9]+ op=iallgatherv pattern=isomorphic .*$algo" "$log.err" &&
        grep -Eq "^nhood: comm=[0-9]+ op=inplace_alltoallv pattern=inplace .*algorithm=hsa" "$log.err"; then
        ok "$name"
    else
        bad "$name"
    fi
    name="large_count np=2 NHOOD_LARGE_COUNT=fits broken by a count beyond int: one error, the job stopped"
    run "$name" 2 "NHOOD_LARGE_COUNT=fits" "$t/test_large_count" broken
    if stopped $? && ! grep -q 'returned' "$log.err" &&
        grep -q 'NHOOD_LARGE_COUNT=fits promises .* MPI_Neighbor_alltoallv_c has 2147483648' "$log.err"; then
        ok "$name"
    else
        bad "$name"
    fi
else
    skip "large_count" "the MPI library has no large-count (_c) functions"
fi

fi # large_count
if part sessions; then
# MPI-4 Sessions (test_sessions.c): no MPI_Init; nhood starts on the
# communicator from the mpi://WORLD process set, its report written at
# MPI_Session_finalize: a ring at 4 ranks, the 3x3 2-D Moore torus at 9,
# every form against the reference, auto's choice and a forced torus; and
# a program that also calls MPI_Init (both graphs reported).
if [ -x "$t/test_sessions" ]; then
    line='^nhood: comm=[0-9]+ op=%s pattern=isomorphic source=hint dims=%s .*algorithm=%s '
    for c in "4 4 auto" "9 3x3 auto" "9 3x3 torus"; do
        set -- $c
        name="sessions np=$1 NHOOD_ALGO=$3: report line dims=$2"
        want=$3
        [ "$3" = auto ] && want='(direct|torus|torus_direct|bruck|pmpi)'
        # A forced forwarding algorithm in nonblocking and persistent
        # calls needs a progress backend; without one (the MPI-5 ABI on MPICH: no
        # MPIX_Async there, and a Session asks for no thread level of
        # nhood's) it is direct, as docs/nonblocking.md says (auto's
        # choices include direct and pmpi anyway).
        want_nb=$want
        # shellcheck disable=SC2059
        if run "$name" $1 "NHOOD_ALGO=$3 NHOOD_REPORT=1" "$t/test_sessions" &&
            all_passed &&
            { [ "$3" = auto ] || ! grep -q 'op=iallgather .*progress=auto:none' "$log.err" ||
                want_nb=direct; } &&
            grep -Eq "$(printf "$line" alltoall "$2" "$want")" "$log.err" &&
            grep -Eq "$(printf "$line" iallgather "$2" "$want_nb")" "$log.err" &&
            grep -Eq "$(printf "$line" alltoall_init "$2" "$want_nb")" "$log.err"; then
            ok "$name"
        else
            bad "$name"
        fi
    done
    name="sessions and MPI_Init in one program np=4: both graphs reported"
    if run "$name" 4 "NHOOD_ALGO=torus NHOOD_REPORT=1" "$t/test_sessions" mixed &&
        all_passed &&
        [ "$(grep -Ec '^nhood: comm=[0-9]+ op=alltoall pattern=isomorphic source=hint dims=4 .*algorithm=torus ' "$log.err")" -eq 2 ]; then
        ok "$name"
    else
        bad "$name"
    fi
else
    skip "sessions" "the MPI library has no MPI-4 Sessions"
fi
fi # sessions
if part all; then
# GPU buffers: run-gpu-tests.sh.
# NHOOD_AUTOTUNE=1: results checked call by call through the trials, one
# choice per size agreed by all ranks and kept, reported with the times.
for np in 2 3 4; do
    name="autotune np=$np"
    if run "$name" $np "NHOOD_AUTOTUNE=1" "$t/test_autotune"; then ok "$name"; else bad "$name"; fi
done
# The report (NHOOD_REPORT) names each candidate tried, nhood's with the
# binding it ran (packed, as a struct datatype, a round's blocks to a peer
# in one struct message, a message per block), the choice and what
# learning cost.
cand='(direct|torus|torus_direct|bruck)(/(pack|zcopy|whole|each))?'
# The struct datatype and the whole messages wait for the run-off, where
# only nhood's fastest schedule tries them: on each line at most one
# X/zcopy and one X/whole, beside their X/pack (exactly one X/zcopy on the
# lines of the block sizes given).
zcopy_once() {
    grep '^nhood: autotune .*times_us=' "$log.err" |
        sed 's/.* bytes=\([0-9]*\) .*times_us=\([^ ]*\).*/\1 \2/' |
        awk -v want=" $1 " '{ n = split($2, c, ","); z = 0; w = 0; delete b
                   for (i = 1; i <= n; i++) { split(c[i], kv, ":"); b[kv[1]] = 1 }
                   for (k in b) if (split(k, ab, "/") == 2 && (ab[2] == "zcopy" || ab[2] == "whole")) {
                       if (ab[2] == "zcopy") z++; else w++
                       if (!((ab[1] "/pack") in b)) bad = 1 }
                   if (z > 1 || w > 1 || (index(want, " " $1 " ") && z != 1)) bad = 1 }
                 END { exit bad }'
}
name="autotune report np=4"
# MPI's own exchange is candidate 0 on every library: as made, or on
# MPICH before 5.0, whose blocks of a source listed twice (this 2x2
# torus) it misorders, in the grouped form (pmpi/pack).
# (no re-check in the cases that count the autotune lines: a run of 128
# calls of a size may end in one, whose agreement adds a line)
if run "$name" 4 "NHOOD_AUTOTUNE=1 NHOOD_LEARN_RECHECK=0 NHOOD_REPORT=1" "$t/test_autotune" &&
    [ "$(grep -Ec "^nhood: autotune comm=[0-9]+ op=alltoall bytes=(8|4096) algorithm=(pmpi(/pack|/each)?|$cand) times_us=pmpi(/pack|/each)?:[0-9.]+,direct/pack:[0-9.]+(,$cand:[0-9.]+)+ .* cost_us=[0-9.]+ rechecks=0\$" "$log.err")" -eq 2 ] &&
    [ "$(grep -Ec '^nhood: autotune comm=[0-9]+ op=allgather bytes=64 algorithm=' "$log.err")" -eq 1 ] &&
    [ "$(grep -c '^nhood: autotune ' "$log.err")" -eq 3 ] && zcopy_once &&
    grep -Eq '^nhood: comm=[0-9]+ op=alltoall .*calls=256 .* trials=[0-9]+ tuned=measured$' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
# A run too short for the trials: the report counts them and says nothing
# was decided (not "MPI's own was cheaper").  The nonblocking and
# persistent calls ran their own trials (decided=no), the first round's
# interim choice (first_round) or the model's: none claims a decision.
name="autotune report np=2, 20 calls: trials=20 decided=no"
if run "$name" 2 "NHOOD_AUTOTUNE=1 NHOOD_REPORT=1" "$t/test_autotune" short &&
    ! grep -q '^nhood: autotune ' "$log.err" &&
    grep -Eq '^nhood: comm=[0-9]+ op=alltoall .*calls=20 .* trials=20 decided=no tuned=measured$' "$log.err" &&
    [ "$(grep -Ec '^nhood: comm=[0-9]+ op=(ialltoall|alltoall_init) ' "$log.err")" -eq 2 ] &&
    ! grep -E '^nhood: comm=[0-9]+ op=(ialltoall|alltoall_init) ' "$log.err" | grep -v ' decided=no ' |
    grep -Eq ' tuned=(measured|file)$' &&
    ! grep -q 'native_cheaper' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
# The demo's exchange (3-D Moore at 2 ranks, 4 KiB blocks), where the model
# prices the struct datatype over twice the packing (it ran at 0.7 of it
# on MPICH 4.2.1) and nhood's schedules all send many blocks a message:
# the fastest of them may try the struct datatype in the run-off, the
# others do not.  There direct, torus, torus_direct and bruck are one
# exchange (one message to the other rank, the same rounds, priced
# alike): only direct is timed, and the report names the others as it
# (select/candidates.c, nh_sched_alike).  Whether the struct datatype
# joins at 4 KiB depends on the first round's times (direct's packing,
# by its fastest call, within 1.5 times the fastest candidate's median:
# they run even there, 17 to 22 us against MPI's own at 17 to 25, and a
# disturbance on every one of its three calls would keep it out); at 256
# B the packing takes 0.6 of MPI's own, so there it must join, exactly
# once.
name="autotune np=2 3-D Moore, 256 B and 4 KiB: alike schedules timed once; the struct binding of the fastest only"
if run "$name" 2 "NHOOD_AUTOTUNE=1 NHOOD_REPORT=1" "$TOP_BUILDDIR/nhood-bench" --op alltoall --nbhd moore --dims 3 \
    --radius 1 --bytes 256,4096 --reps 40 &&
    (for b in 256 4096; do
        grep -Eq "^nhood: autotune .* bytes=$b .*times_us=[^ ]*direct/pack:.*\\) alike=torus:direct,torus_direct:direct,bruck:direct cost_us=" "$log.err" || exit 1
    done) &&
    ! grep -Eq '^nhood: autotune .* bytes=(256|4096) .*times_us=[^ ]*(torus|bruck)' "$log.err" && zcopy_once 256; then
    ok "$name"
else
    bad "$name"
fi
# What learning costs, and its trace: nhood-bench --learning's row (its
# 13th column the variants whose results differ from the standard's:
# never nhood's default; then the fastest fixed choice held out, a right
# one, and the default over it, and the two ratios paired by try), and
# --trace's row per call (0 the
# creation), the graphs learning as they go.
name="autotune np=2 nhood-bench --learning 120 and --trace: a total row, then 121 call rows"
if run "$name" 2 "NHOOD_AUTOTUNE=1 NHOOD_WARMUP=2 NHOOD_REPORT=1" "$TOP_BUILDDIR/nhood-bench" --op alltoall --nbhd moore --dims 3 \
    --radius 1 --bytes 4096 --reps 2 --learning 120 --no-header &&
    awk -F, 'NF == 17 && $7 == 120 && $8 > 0 && $9 > 0 && $12 > 0 && $13 ~ /^(-|[a-z_]+(;[a-z_]+)*)$/ &&
             $13 !~ /auto/ && $14 ~ /^(native|pmpi|direct|torus|torus_direct|bruck)$/ &&
             ("" $13 ";") !~ ("(^|;)" $14 ";") && $15 > 0 && $16 > 0 && $17 > 0 { n++ }
             END { exit n != 1 }' "$log.out" &&
    run "$name" 2 "NHOOD_AUTOTUNE=1 NHOOD_WARMUP=2 NHOOD_REPORT=1" "$TOP_BUILDDIR/nhood-bench" --op alltoall --nbhd moore --dims 3 \
        --radius 1 --bytes 4096 --reps 1 --learning 120 --trace &&
    awk -F, 'NR == 1 { ok = $7 == "call" && $9 == "auto_us"; next }
             NF != 9 || $7 != NR - 2 || $8 <= 0 || $9 <= 0 { ok = 0 }
             END { exit !ok || NR != 122 }' "$log.out" &&
    grep -Eq '^nhood: autotune comm=[0-9]+ op=alltoall bytes=4096 ' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
# A struct binding that sends the other rank each call's 416 KiB as one
# message (torus/zcopy or the like, where the eager limit splits nothing)
# joins the 16 KiB run-off after 7 untimed calls, the others after 3;
# the report says so (select/learn.h, NH_TUNE_UNTIMED_ONEMSG).
name="autotune np=2 16 KiB, no eager split: a one-message binding warms up longer in the run-off"
if run "$name" 2 "NHOOD_AUTOTUNE=1 NHOOD_COST_EAGER=1000000000 NHOOD_WARMUP=2 NHOOD_REPORT=1" "$TOP_BUILDDIR/nhood-bench" \
    --op alltoall --nbhd moore --dims 3 --radius 1 --bytes 16384 --reps 1 --learning 150 --no-header &&
    grep -Eq '^nhood: autotune comm=[0-9]+ op=alltoall bytes=16384 algorithm=[a-z_/]+ times_us=.*[a-z_]+/(zcopy|whole):[0-9.]+.* \(slowest rank.s median of 7 calls, each after 3 untimed; 7 for [a-z_]+/(zcopy|whole)\) ' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
# Whole messages (X/whole: a round's blocks to a peer as one struct
# message where the eager limit splits them) are tried where the messages
# they merge away are a good share of the packed schedule's price: at 16
# KiB blocks, not at 256 KiB (select/learn.h, NH_LEARN_WHOLE_GAIN).
name="autotune np=2 alltoall 16 and 256 KiB: whole messages tried at 16 KiB only"
if run "$name" 2 "NHOOD_AUTOTUNE=1 NHOOD_LEARN_RECHECK=0 NHOOD_WARMUP=2 NHOOD_REPORT=1" "$TOP_BUILDDIR/nhood-bench" \
    --op alltoall --nbhd moore --dims 3 --radius 1 --bytes 16384,262144 --reps 1 --learning 150 --no-header &&
    [ "$(grep -Ec '^nhood: autotune comm=[0-9]+ op=alltoall bytes=16384 algorithm=[a-z_/]+ times_us=.*[a-z_]+/whole:[0-9.]+' "$log.err")" -ge 1 ] &&
    [ "$(grep -Ec '^nhood: autotune comm=[0-9]+ op=alltoall bytes=262144 algorithm=' "$log.err")" -ge 1 ] &&
    ! grep -Eq '^nhood: autotune comm=[0-9]+ op=alltoall bytes=262144 .*/whole' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
name="autotune report np=3: MPI's own exchange is a candidate"
if run "$name" 3 "NHOOD_AUTOTUNE=1 NHOOD_LEARN_RECHECK=0 NHOOD_REPORT=1" "$t/test_autotune" &&
    [ "$(grep -Ec "^nhood: autotune comm=[0-9]+ op=alltoall bytes=16 algorithm=(pmpi|$cand) times_us=pmpi:[0-9.]+,direct(/pack|/zcopy)?:" "$log.err")" -eq 1 ]; then
    ok "$name"
else
    bad "$name"
fi
# NHOOD_LEARN_RECHECK: a learned choice is timed against MPI's own again
# after that many calls (then twice as many), on every rank at the same
# call; every result still equals the reference.  Nothing is printed
# without NHOOD_REPORT.
name="autotune np=3 NHOOD_LEARN_RECHECK=4: re-checks against MPI's own"
if run "$name" 3 "NHOOD_AUTOTUNE=1 NHOOD_LEARN_RECHECK=4 NHOOD_REPORT=1" "$t/test_autotune" &&
    grep -Eq "^nhood: autotune comm=[0-9]+ op=alltoall bytes=16 algorithm=.* rechecks=1\$" "$log.err" &&
    grep -Eq "^nhood: autotune comm=[0-9]+ op=alltoall bytes=16 algorithm=.* rechecks=2\$" "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
# A disturbance on the choice's calls in a re-check (the last rank spins
# before each): the re-check that would switch to MPI's own runs once
# more, undisturbed, and the choice stays (test_autotune recheck-noise).
# A re-check puts the choice itself against MPI's own, never another of
# nhood's schedules (one whose first-round median of three came below the
# run-off's winner took over in 2 runs of 4 at 2 Open MPI ranks): every
# report line of the size names the first one's schedule or MPI's own.
name="autotune np=2 NHOOD_LEARN_RECHECK=20: a re-check disturbed once keeps the choice"
if run "$name" 2 "NHOOD_AUTOTUNE=1 NHOOD_LEARN_RECHECK=20 NHOOD_REPORT=1" "$t/test_autotune" recheck-noise &&
    grep -Eq '^recheck-noise: ([a-z_]+) re-checked with 6 calls disturbed, now \1$' "$log.out" &&
    grep -E '^nhood: autotune comm=[0-9]+ op=alltoall bytes=8 ' "$log.err" |
    sed 's/.* algorithm=\([a-z_]*\).*/\1/' |
        awk 'NR == 1 { first = $1 } $1 != first && $1 != "pmpi" { bad = 1 } END { exit bad || NR < 2 }'; then
    ok "$name"
else
    bad "$name"
fi
# nhood_algorithm_for is a question, not a call: with rank 0 alone asking
# before each call (a program printing its choice), every rank still
# starts the trials and the re-checks at the same calls (test_autotune
# ask-one: every result checked; a question that counted as a call made
# rank 0 re-check early, MPI's own exchange there against nhood's
# schedule on the others, and the job hung). Re-checks must have run.
for np in 2 3; do
    name="autotune np=$np NHOOD_LEARN_RECHECK=20, rank 0 alone asks nhood_algorithm_for: the re-checks at the same calls"
    if run "$name" $np "NHOOD_AUTOTUNE=1 NHOOD_LEARN_RECHECK=20 NHOOD_REPORT=1" "$t/test_autotune" ask-one &&
        all_passed &&
        grep -Eq '^nhood: autotune comm=[0-9]+ op=alltoall bytes=8 algorithm=.* rechecks=2$' "$log.err"; then
        ok "$name"
    else
        bad "$name"
    fi
done
# A disturbance on two of the three first-round timed calls of nhood's
# schedule (test_autotune disturb: the other rank waits 3 ms inside
# them): by its fastest call the schedule still joins the run-off, with
# its struct binding, and the run-off's medians of seven decide.  By the
# medians alone it stayed out (direct/pack 3009 us) and MPI's own at
# twice its time was taken.
name="autotune np=2, a disturbance on two of a schedule's three first-round calls: it joins the run-off"
if run "$name" 2 "NHOOD_AUTOTUNE=1 NHOOD_LEARN_RECHECK=0 NHOOD_REPORT=1" "$t/test_autotune" disturb &&
    all_passed &&
    grep -Eq '^nhood: autotune comm=[0-9]+ op=alltoall bytes=8 algorithm=[a-z_/]+ times_us=[^ ]*direct/pack:[0-9]{1,3}\.[0-9]+,[^ ]*direct/zcopy:[0-9.]+ \(slowest rank.s median of 7 calls' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
# One rank made slow in a third of the blocking calls (test_autotune slow):
# the ranks time the candidates differently, the decisions (checked by
# every rank against rank 0's) are identical.
for np in 3 4; do
    name="autotune np=$np, the last rank slow in some calls: identical decisions"
    if run "$name" $np "NHOOD_AUTOTUNE=1 NHOOD_LEARN_RECHECK=8" "$t/test_autotune" slow; then ok "$name"; else bad "$name"; fi
done
# Nonblocking calls only: each candidate's trials time what the caller
# pays (start and completion calls; MPI's own exchange through a request
# of nhood's), and the agreement waits for a blocking collective on the
# graph (here MPI_Barrier), where a cold graph (the odd ring) is analyzed
# too.  Without one (nonblocking-nopoint: batches of requests completed
# in rank-dependent orders) nothing is decided and every result is still
# right.
name="autotune np=3 nonblocking only: trials agree at MPI_Barrier on the graph"
if run "$name" 3 "NHOOD_AUTOTUNE=1 NHOOD_LEARN_RECHECK=0 NHOOD_WARMUP=2 NHOOD_REPORT=1" "$t/test_autotune" nonblocking &&
    [ "$(grep -Ec "^nhood: autotune comm=[0-9]+ op=ialltoall bytes=(8|4096) algorithm=(pmpi(/pack|/each)?|$cand) times_us=pmpi(/pack|/each)?:[0-9.]+,direct/pack:[0-9.]+(,$cand:[0-9.]+)+ .* rechecks=0\$" "$log.err")" -eq 2 ] &&
    [ "$(grep -Ec '^nhood: autotune comm=[0-9]+ op=iallgather bytes=64 algorithm=' "$log.err")" -eq 1 ] &&
    [ "$(grep -Ec "^nhood: autotune comm=[0-9]+ op=ialltoall bytes=16 algorithm=(pmpi|$cand) times_us=pmpi:[0-9.]+,direct(/pack|/zcopy)?:" "$log.err")" -eq 1 ] &&
    [ "$(grep -c '^nhood: autotune ' "$log.err")" -eq 4 ]; then
    ok "$name"
else
    bad "$name"
fi
for np in 2 4; do
    name="autotune np=$np nonblocking only"
    if run "$name" $np "NHOOD_AUTOTUNE=1 NHOOD_WARMUP=2" "$t/test_autotune" nonblocking; then ok "$name"; else bad "$name"; fi
done
name="autotune np=3 nonblocking only, no agreement point: nothing decided, results right"
if run "$name" 3 "NHOOD_AUTOTUNE=1 NHOOD_WARMUP=2 NHOOD_REPORT=1" "$t/test_autotune" nonblocking-nopoint &&
    ! grep -q '^nhood: autotune ' "$log.err" &&
    grep -Eq '^nhood: comm=[0-9]+ op=ialltoall .*why=cold cold=128( |$)' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
# v and w calls: learned per collective, form and signature of their
# sizes (checked to stay the same through the trials on graphs without
# the isomorphic=true promise); where they change (vw-vary) the model
# chooses and the report says so.
name="autotune np=3 v and w calls"
if run "$name" 3 "NHOOD_AUTOTUNE=1 NHOOD_LEARN_RECHECK=0 NHOOD_REPORT=1" "$t/test_autotune" vw &&
    [ "$(grep -Ec "^nhood: autotune comm=[0-9]+ op=alltoall[vw] bytes=64 algorithm=(pmpi(/pack|/each)?|$cand) times_us=(pmpi(/pack|/each)?:[0-9.]+,direct:|direct:[0-9.]+,direct/each:)" "$log.err")" -eq 2 ] &&
    [ "$(grep -Ec "^nhood: autotune comm=[0-9]+ op=alltoall[vw] bytes=16 algorithm=(pmpi|$cand) times_us=pmpi:" "$log.err")" -eq 2 ]; then
    ok "$name"
else
    bad "$name"
fi
name="autotune np=3 v and w calls whose sizes change: the model chooses"
if run "$name" 3 "NHOOD_AUTOTUNE=1 NHOOD_REPORT=1" "$t/test_autotune" vw-vary &&
    [ "$(grep -Ec '^nhood: autotune comm=[0-9]+ op=alltoall[vw] bytes=(64|16) algorithm=model \(the blocks. sizes changed' "$log.err")" -eq 4 ] &&
    [ "$(grep -c '^nhood: autotune ' "$log.err")" -eq 4 ]; then
    ok "$name"
else
    bad "$name"
fi
# w calls under the isomorphic=true promise: a call with the last one's
# counts and types goes to MPI's own exchange, where that was decided,
# without describing its blocks (api/repeat.c); the same counts of a type
# twice the size are a size of their own, learned (test_autotune
# vw-repeat checks every result).
name="autotune np=3 w calls of the last one's counts, another type: learned"
if run "$name" 3 "NHOOD_AUTOTUNE=1 NHOOD_LEARN_RECHECK=0 NHOOD_REPORT=1" "$t/test_autotune" vw-repeat &&
    [ "$(grep -Ec "^nhood: autotune comm=[0-9]+ op=alltoallw bytes=16 algorithm=(pmpi|$cand) times_us=pmpi:" "$log.err")" -eq 1 ] &&
    [ "$(grep -Ec "^nhood: autotune comm=[0-9]+ op=alltoallw bytes=32 algorithm=(pmpi|$cand) times_us=pmpi:" "$log.err")" -eq 1 ]; then
    ok "$name"
else
    bad "$name"
fi
# A derived type freed and another made that gets the freed handle on
# rank 0 only (test_autotune vw-reuse): the sizes kept for the freed type
# must not repeat there (api/repeat.c counts the frees), or rank 0 would
# pass its calls to MPI's own exchange while the others learn the new size
# (a hang). That needs MPI's own decided for the first size, which the
# learning's trials decide: up to ten runs, until the report shows it.
name="autotune np=3 a type freed, its handle back on one rank: every call right"
reuse_ok=1 reuse_seen=0 try=0
while [ $try -lt 10 ] && [ $reuse_seen -eq 0 ] && [ $reuse_ok -eq 1 ]; do
    if run "$name" 3 "NHOOD_AUTOTUNE=1 NHOOD_LEARN_RECHECK=0 NHOOD_REPORT=1" "$t/test_autotune" vw-reuse; then
        grep -Eq "^nhood: autotune comm=[0-9]+ op=alltoallw bytes=2 algorithm=pmpi " "$log.err" && reuse_seen=1
    else
        reuse_ok=0
    fi
    try=$((try + 1))
done
if [ $reuse_ok -eq 1 ]; then
    [ $reuse_seen -eq 1 ] || name="$name (MPI's own never decided for the first size in $try runs)"
    ok "$name"
else
    bad "$name"
fi
for np in 2 4; do
    name="autotune np=$np v and w calls"
    if run "$name" $np "NHOOD_AUTOTUNE=1" "$t/test_autotune" vw; then ok "$name"; else bad "$name"; fi
done
name="autotune np=3, the default: learns without a word on stderr"
if run "$name" 3 "NHOOD_AUTOTUNE=1" "$t/test_autotune" && [ ! -s "$log.err" ]; then
    ok "$name"
else
    bad "$name"
fi
# NHOOD_TUNE_FILE: run 1 tunes and writes the file at MPI_Finalize; run 2
# reads it at MPI_Init, makes no trial and runs what run 1 measured, per
# operation and block size, in every form (under poll nonblocking calls
# take the blocking decision whole); test_autotune checks every result.
# (in a directory of its own: nothing but the file may be left there; no
# re-check, which a run this long may start before its end, where the
# blocking form's query answers the re-check's trial)
tunedir=$(mktemp -d "${TMPDIR:-/tmp}/nhood-tune-test.XXXXXX")
tune=$tunedir/app.tune
# tune_same RUN1_STDERR: run 2 (this $log) chose per key what run 1
# measured: test_autotune's "chosen" lines (blocking and nonblocking) and
# the report's algorithms per operation.
tune_same() {
    # (nhood_algorithm_for names a schedule without its binding, and MPI's
    # own exchange in the grouped form pmpi/pack, as its v call pmpi/each)
    grep '^nhood: autotune ' "$1" | sed 's/.* op=\([a-z]*\) bytes=\([0-9]*\) algorithm=\([^ ]*\) .*/\1 \2 \3/' |
        sed -E 's#pmpi/(pack|each)$#pmpi@\1#; s#^([a-z]+ [0-9]+ [a-z_]+)/[a-z]+$#\1#; s#pmpi@(pack|each)$#pmpi/\1#' >"$log.keys"
    [ "$(wc -l <"$log.keys")" -eq 3 ] || { echo "#     run 1 tuned $(wc -l <"$log.keys") keys, not 3"; return 1; }
    while read -r op m algo; do
        for o in "$op" "i$op"; do
            grep -q "^chosen $o $m $algo\$" "$log.out" ||
                { echo "#     run 2 chose $(grep "^chosen $o $m " "$log.out"), run 1 measured $algo"; return 1; }
        done
    done <"$log.keys"
    for op in alltoall allgather; do
        want=$(awk -v op="$op" '$1 == op {sub("/.*", "", $3); print $3}' "$log.keys" | sort -u | tr '\n' ' ')
        line=$(grep -E "^nhood: comm=[0-9]+ op=$op " "$log.err")
        case "$line" in
            *" mix="*) got=$(echo "$line" | sed 's/.* mix=\([^ ]*\).*/\1/' | tr ',' '\n' | sed 's/:.*//') ;;
            *) got=$(echo "$line" | sed 's/.* algorithm=\([^ ]*\).*/\1/') ;;
        esac
        got=$(echo "$got" | sort -u | tr '\n' ' ')
        [ "$got" = "$want" ] || { echo "#     report op=$op ran $got, run 1 measured $want"; return 1; }
    done
}
name="tune file np=4: run 1 measures and writes NHOOD_TUNE_FILE"
if run "$name" 4 "NHOOD_AUTOTUNE=1 NHOOD_LEARN_RECHECK=0 NHOOD_TUNE_FILE=$tune NHOOD_PROGRESS=poll NHOOD_REPORT=1" "$t/test_autotune" &&
    [ -f "$tune" ] && [ "$(ls -A "$tunedir")" = app.tune ] && cp "$log.err" "$tune.run1" &&
    [ "$(head -n 1 "$tune")" = "nhood-tune 1" ] &&
    grep -q '^fingerprint\.mpi *= *[^ ]' "$tune" && grep -Eq '^fingerprint\.ranks *= *4$' "$tune" &&
    [ "$(grep -Ec '^decision = op:(alltoall|allgather) form:blocking ranks:4 dims:2x2 periods:1,1 bytes:(8|4096|64) template:[-0-9]+,[-0-9]+(;[-0-9]+,[-0-9]+){7} algorithm:(pmpi|direct|torus|torus_direct|bruck)(/(pack|zcopy|each|whole))? times_us:(pmpi(/pack|/each)?:[0-9.]+,)?direct/pack:[0-9.]+(,(direct|torus|torus_direct|bruck)(/(pack|zcopy|each|whole))?:[0-9.]+)*$' "$tune")" -eq 3 ] &&
    [ "$(grep -Ec '^nhood: comm=[0-9]+ op=(alltoall|allgather) .* tuned=measured$' "$log.err")" -eq 2 ]; then
    ok "$name"
else
    bad "$name"
fi
name="tune file np=4: run 2 makes no trial and runs run 1's choices (tuned=file)"
if run "$name" 4 "NHOOD_AUTOTUNE=1 NHOOD_LEARN_RECHECK=0 NHOOD_TUNE_FILE=$tune NHOOD_PROGRESS=poll NHOOD_REPORT=1" "$t/test_autotune" &&
    all_passed &&
    ! grep -q '^nhood: autotune .*times_us=' "$log.err" &&
    [ "$(grep -Ec '^nhood: comm=[0-9]+ op=(i?alltoall|i?allgather) .* tuned=file$' "$log.err")" -eq 4 ] &&
    ! grep -E '^nhood: comm=' "$log.err" | grep -vq ' tuned=file$' &&
    tune_same "$tune.run1"; then
    ok "$name"
else
    bad "$name"
fi
# A decision whose messages to a peer go whole (direct/whole: each
# peer's blocks in one struct message, however large; on this 2x2 torus a
# rank sends 16 KiB to the diagonal rank at 4 KiB blocks, which the eager
# limit splits in two otherwise): taken from the file, every result right.
# (the nonblocking form takes the fastest of the times that may run there)
# Every alltoall size's line says it, so that the report line, which
# names the algorithm most calls ran, names direct whatever run 1
# learned for the other size (MPI's own at 8 B, in a tie of 128 calls
# each, was named before direct).
sed -E 's#^(decision = op:alltoall form:[a-z]+ .* bytes:[0-9]+ template:[^ ]*) algorithm:.*#\1 algorithm:direct/whole times_us:direct/pack:2.00,direct/whole:1.00#' "$tune" >"$tune.whole"
name="tune file np=4: a decision of whole messages (direct/whole) runs right"
if grep -q 'bytes:4096 .*algorithm:direct/whole ' "$tune.whole" &&
    run "$name" 4 "NHOOD_AUTOTUNE=1 NHOOD_LEARN_RECHECK=0 NHOOD_TUNE_FILE=$tune.whole NHOOD_PROGRESS=poll NHOOD_REPORT=1" "$t/test_autotune" &&
    all_passed && grep -q '^chosen alltoall 4096 direct$' "$log.out" &&
    grep -Eq '^nhood: comm=[0-9]+ op=alltoall .* binding=whole .*tuned=file$' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
# A decision of bruck runs bruck at the port count a forced bruck runs
# (the model's cheapest at the call's size), as the learning timed it: on
# this 2x2 torus, messages priced dear, the cheapest (2 rounds of 2
# messages) is another schedule than the fewest rounds (3 ports: one
# round of 3), which a decision ran before.
sed -E 's#^(decision = op:allgather form:[a-z]+ .* bytes:[0-9]+ template:[^ ]*) algorithm:.*#\1 algorithm:bruck/pack times_us:direct/pack:2.00,bruck/pack:1.00#' "$tune" >"$tune.bruck"
bruck_shape() {
    grep -E "^nhood: comm=[0-9]+ op=allgather .*algorithm=bruck " "$log.err" | sed 's/.* \(rounds=[0-9]* messages=[0-9]*\) .*/\1/'
}
name="tune file np=4: a decision of bruck runs the port count a forced bruck runs"
dear="NHOOD_COST_ALPHA=0 NHOOD_COST_O=1000"
if run "$name" 4 "NHOOD_ALGO=bruck $dear NHOOD_REPORT=1" "$t/test_autotune" && all_passed &&
    forced=$(bruck_shape) && [ "$forced" = "rounds=2 messages=2" ] &&
    run "$name" 4 "NHOOD_AUTOTUNE=1 NHOOD_LEARN_RECHECK=0 NHOOD_TUNE_FILE=$tune.bruck $dear NHOOD_PROGRESS=poll NHOOD_REPORT=1" "$t/test_autotune" &&
    all_passed && grep -q '^chosen allgather 64 bruck$' "$log.out" &&
    [ "$(bruck_shape)" = "$forced" ]; then
    ok "$name"
else
    echo "#     forced bruck: ${forced:-?}; the file's: $(bruck_shape)"
    bad "$name"
fi
# A malformed line stops every rank as a bad setting does, naming the
# file and the line.
printf 'nhood-tune 1\n# line 2\ndecision = op:alltoall form:blocking ranks:2 dims:2 bytes:8\n' >"$tune.bad"
name="tune file: a malformed line 3 is an error naming file and line"
if ! run_stops "$name" 2 "NHOOD_AUTOTUNE=1 NHOOD_TUNE_FILE=$tune.bad" "$t/test_autotune"; then
    bad "$name (exited 0)"
elif grep -Eq "^nhood: error: .*$tune\.bad(:| line |, line )3[^0-9]" "$log.err" &&
    [ "$(grep -c 'nhood: error' "$log.err")" -eq 1 ]; then
    ok "$name"
else
    bad "$name"
fi
# Written with another MPI: a one-line warning naming the difference;
# skip tunes again (and saves this run's fingerprint), use keeps the
# decisions, error refuses. Re-checks off where lines are counted: whether
# one ends within the run depends on how many calls the trials took (a
# run-off, a confirmation), which timing decides (Open MPI 4.1, 4 ranks on
# 2 cores: a re-check's second line for alltoall of 8 B).
sed 's/^fingerprint\.mpi *=.*/fingerprint.mpi = Other MPI 9.9/' "$tune" >"$tune.fp"
name="tune file np=4 from another MPI, NHOOD_MISMATCH=skip: warns, tunes again"
if run "$name" 4 "NHOOD_AUTOTUNE=1 NHOOD_LEARN_RECHECK=0 NHOOD_TUNE_FILE=$tune.fp NHOOD_MISMATCH=skip NHOOD_REPORT=1" "$t/test_autotune" &&
    [ "$(grep -c '^nhood: warning: .*Other MPI 9.9.*NHOOD_MISMATCH=skip' "$log.err")" -eq 1 ] &&
    [ "$(grep -c '^nhood: autotune .*times_us=' "$log.err")" -eq 3 ] &&
    ! grep -q 'Other MPI' "$tune.fp"; then
    ok "$name"
else
    bad "$name"
fi
sed 's/^fingerprint\.mpi *=.*/fingerprint.mpi = Other MPI 9.9/' "$tune" >"$tune.fp"
name="tune file np=4 from another MPI, NHOOD_MISMATCH unset (use): warns, no trial"
if run "$name" 4 "NHOOD_AUTOTUNE=1 NHOOD_TUNE_FILE=$tune.fp NHOOD_REPORT=1" "$t/test_autotune" &&
    [ "$(grep -c '^nhood: warning: .*Other MPI 9.9.*NHOOD_MISMATCH=use' "$log.err")" -eq 1 ] &&
    ! grep -q '^nhood: autotune .*times_us=' "$log.err" &&
    [ "$(grep -Ec '^nhood: comm=[0-9]+ op=(alltoall|allgather) .* tuned=file$' "$log.err")" -eq 2 ]; then
    ok "$name"
else
    bad "$name"
fi
name="tune file from another MPI, NHOOD_MISMATCH=error: refused"
if ! run_stops "$name" 2 "NHOOD_AUTOTUNE=1 NHOOD_TUNE_FILE=$tune.fp NHOOD_MISMATCH=error" "$t/test_autotune"; then
    bad "$name (exited 0)"
elif grep -q '^nhood: error: .*Other MPI 9.9.*NHOOD_MISMATCH=error' "$log.err" &&
    [ "$(grep -c 'nhood: error' "$log.err")" -eq 1 ]; then
    ok "$name"
else
    bad "$name"
fi
# Written safely in a shared directory (nh_file_replace): a file beside
# it, renamed over it, so links planted at the file and at the fixed name
# path.tmp (where nhood once wrote) stay links to a file nhood leaves
# alone; no temporary file is left behind.
grep -v '^decision' "$tune" >"$tunedir/victim"
cp "$tunedir/victim" "$tunedir/victim.orig"
ln -s "$tunedir/victim" "$tunedir/link.tune"
ln -s "$tunedir/victim" "$tunedir/link.tune.tmp"
name="tune file np=4 behind planted links: replaced, the linked file untouched"
if run "$name" 4 "NHOOD_AUTOTUNE=1 NHOOD_TUNE_FILE=$tunedir/link.tune" "$t/test_autotune" &&
    cmp -s "$tunedir/victim" "$tunedir/victim.orig" &&
    [ -f "$tunedir/link.tune" ] && [ ! -L "$tunedir/link.tune" ] && [ -L "$tunedir/link.tune.tmp" ] &&
    [ "$(grep -c '^decision = ' "$tunedir/link.tune")" -eq 3 ] &&
    [ -z "$(ls -A "$tunedir" | grep '^\.')" ]; then
    ok "$name"
else
    bad "$name"
fi
# A directory that cannot be written: one warning naming the file and
# the reason, the run ends normally (as root, where every directory is
# writable, one that does not exist).
mkdir "$tunedir/ro" && chmod 555 "$tunedir/ro"
if [ "$(id -u)" -eq 0 ]; then
    rodir=$tunedir/missing why="No such file or directory"
else
    rodir=$tunedir/ro why="Permission denied"
fi
name="tune file np=2 in a directory that cannot be written ($why): one warning naming it"
if run "$name" 2 "NHOOD_AUTOTUNE=1 NHOOD_TUNE_FILE=$rodir/app.tune" "$t/test_autotune" &&
    [ "$(grep -cFx "nhood: warning: could not write the tuning file $rodir/app.tune: cannot create a file in $rodir: $why; this run's decisions are not saved" "$log.err")" -eq 1 ] &&
    [ "$(grep -c '^nhood: warning' "$log.err")" -eq 1 ] && [ -z "$(ls -A "$tunedir/ro")" ]; then
    ok "$name"
else
    bad "$name"
fi
chmod 755 "$tunedir/ro"
rm -rf "$tunedir"
rm -f "$log.keys"
# NHOOD_COST_FILE: rank 0 reads it, its parameters decide auto, the
# environment wins per parameter, the report names the source; bad
# files stop the run naming the line; a file from elsewhere warns.
cost=${TMPDIR:-/tmp}/nhood-cost-test.$$
printf 'nhood-cost 1\n# phases dear, messages free\nalpha = 1000\no = 0\nbeta = 0\n' >"$cost.phase"
printf 'nhood-cost 1\nfingerprint.host = *\nalpha = 0  # messages dear\no = 1000\nbeta = 0\nvalidation.groups = 8\n' >"$cost.msg"
# cost_run NAME VARS ROUNDS: nhood-bench's allgather on a 2x2 torus; the
# report's line has that many rounds (a regular expression).
cost_run() {
    run "$1" 4 "NHOOD_REPORT=1 $2" "$TOP_BUILDDIR/nhood-bench" --op allgather --dims 2 --radius 1 \
        --bytes 8 --reps 20 --no-header &&
        grep -Eq "^nhood: comm=[0-9]+ op=allgather .* calls=[0-9]+ rounds=($3) " "$log.err"
}
name="cost file: phases dear, auto keeps one phase; report cost=FILE"
if cost_run "$name" "NHOOD_COST_FILE=$cost.phase" "1" &&
    grep -qx "nhood: cost=$cost.phase" "$log.err"; then ok "$name"; else bad "$name"; fi
name="cost file: messages dear, auto combines"
if cost_run "$name" "NHOOD_COST_FILE=$cost.msg" "[2-9]" &&
    grep -qx "nhood: cost=$cost.msg" "$log.err"; then ok "$name"; else bad "$name"; fi
name="cost file: NHOOD_COST_* win per parameter (cost=FILE+env)"
if cost_run "$name" "NHOOD_COST_FILE=$cost.msg NHOOD_COST_ALPHA=1000 NHOOD_COST_O=0" "1" &&
    grep -qx "nhood: cost=$cost.msg+env" "$log.err"; then ok "$name"; else bad "$name"; fi
name="no cost file: report cost=defaults"
if cost_run "$name" "" "[0-9]+" && grep -qx "nhood: cost=defaults" "$log.err"; then ok "$name"; else bad "$name"; fi
# More ranks than CPUs on the node (util/resource.c): the report says so
# in a line of its own, with the node's ranks and the CPUs their affinity
# allows (here the machine's, the launcher binding nothing); no line where
# every rank has a CPU.
cpus=$(nproc)
for np in 1 $((cpus + 2)); do
    case "$launcher" in openmpi) ;; *) [ "$np" -gt 4 ] && continue ;; esac # MPICH busy-polls
    name="report: oversubscribed=R/C at np=$np on $cpus CPUs"
    if run "$name" "$np" "NHOOD_REPORT=1" "$t/test_inplace" && grep -qx "nhood: cost=defaults" "$log.err" &&
        if [ "$np" -gt "$cpus" ]; then grep -qx "nhood: oversubscribed=$np/$cpus" "$log.err"
        else ! grep -q "oversubscribed" "$log.err"; fi; then
        ok "$name"
    else
        bad "$name"
    fi
done
# Where ranks outnumber CPUs auto prices each round's wait for a core
# (NHOOD_COST_CORE per round per rank beyond one per CPU): with messages
# made dear (NHOOD_COST_O=100) the 2x2 torus's two rounds of one message
# beat direct's three messages in one round, unless that wait costs more
# (NHOOD_COST_CORE=1000).  Written for 4 ranks on 2 CPUs.
if [ "$cpus" -eq 2 ]; then
    for c in 0:torus 1000:direct; do
        name="oversubscribed np=4 on 2 CPUs, NHOOD_COST_O=100 NHOOD_COST_CORE=${c%:*}: auto runs ${c#*:}"
        if run "$name" 4 "NHOOD_REPORT=1 NHOOD_COST_O=100 NHOOD_COST_CORE=${c%:*}" "$TOP_BUILDDIR/nhood-bench" \
            --op alltoall --dims 2 --radius 1 --bytes 8 --reps 4 --no-header &&
            grep -qx "nhood: oversubscribed=4/2" "$log.err" &&
            grep -Eq "^nhood: comm=[0-9]+ op=alltoall .*algorithm=${c#*:} " "$log.err"; then
            ok "$name"
        else bad "$name"; fi
    done
else
    skip "oversubscribed auto" "written for 4 ranks on 2 CPUs; this machine has $cpus"
fi
# v calls without the promise (sizes unknown to other ranks) weigh MPI's
# own exchange too: where direct would send what MPI sends (the box halo
# of a 2-rank mesh: one neighbor) MPI's exchange runs; where direct
# combines (the periodic grid: 26 neighbors, one rank) direct runs.
for c in "mesh:--mesh:pmpi .*why=native_cheaper" "periodic grid::direct "; do
    what=${c%%:*} flag=$(echo "$c" | cut -d: -f2) want=${c##*:}
    name="alltoallv without a hint np=2, $what: auto runs ${want%% *}"
    # shellcheck disable=SC2086
    if run "$name" 2 "NHOOD_REPORT=1" "$TOP_BUILDDIR/nhood-bench" --op alltoallv --dims 3 --radius 1 \
        $flag --class-bytes 8,128,2048 --reps 4 --no-header &&
        grep -Eq "^nhood: comm=[0-9]+ op=alltoallv .*algorithm=$want" "$log.err"; then
        ok "$name"
    else bad "$name"; fi
done
# cost_bad NAME FILE PATTERN [VARS]: the run stops with one error.
cost_bad() {
    if ! run_stops "$1" 2 "NHOOD_COST_FILE=$2 ${4:-}" "$t/test_badenv"; then
        bad "$1 (exited 0)"
    elif grep -Eq "^nhood: error: .*$3" "$log.err" && [ "$(grep -c 'nhood: error' "$log.err")" -eq 1 ]; then
        ok "$1"
    else
        bad "$1"
    fi
}
printf 'nhood-cost 1\nalpha = 1\nalfa = 2\n' >"$cost.bad"
cost_bad "cost file: an unknown key on line 3 is an error naming file and line" "$cost.bad" \
    "$cost\\.bad, line 3: unknown key \"alfa\""
printf 'nhood-cost 1\n\no = -1\n' >"$cost.bad"
cost_bad "cost file: a negative value is an error naming the line" "$cost.bad" "line 3: o = \"-1\""
printf 'nhood-cost 3\nalpha = 1\n' >"$cost.bad"
cost_bad "cost file: an unknown format version is an error on line 1" "$cost.bad" "line 1: format nhood-cost 3"
cost_bad "cost file: a missing NHOOD_COST_FILE is an error" "$cost.none" "NHOOD_COST_FILE=$cost\\.none: no such file"
sed 's/^fingerprint\.host.*/fingerprint.host = elsewhere-*\nfingerprint.ranks_per_node = 64/' "$cost.msg" >"$cost.fp"
name="cost file from other hosts: warns once, used (NHOOD_MISMATCH=use)"
if cost_run "$name" "NHOOD_COST_FILE=$cost.fp" "[2-9]" &&
    [ "$(grep -c "^nhood: warning: cost file $cost.fp does not fit this run: written on hosts elsewhere-\*.*using it anyway" "$log.err")" -eq 1 ] &&
    grep -qx "nhood: cost=$cost.fp" "$log.err"; then ok "$name"; else bad "$name"; fi
name="cost file from other hosts, NHOOD_MISMATCH=skip: warns, defaults"
if cost_run "$name" "NHOOD_COST_FILE=$cost.fp NHOOD_MISMATCH=skip" "[0-9]+" &&
    grep -q "^nhood: warning: cost file .*using the defaults (NHOOD_MISMATCH=skip)" "$log.err" &&
    grep -qx "nhood: cost=defaults" "$log.err"; then ok "$name"; else bad "$name"; fi
cost_bad "cost file from other hosts, NHOOD_MISMATCH=error: refused" "$cost.fp" \
    "does not fit this run: written on hosts elsewhere-.*NHOOD_MISMATCH=error" NHOOD_MISMATCH=error
rm -f "$cost.phase" "$cost.msg" "$cost.bad" "$cost.fp"
name="neighbor np=4 NHOOD_AUTOTUNE=1"
if run "$name" 4 "NHOOD_AUTOTUNE=1" "$t/test_neighbor"; then ok "$name"; else bad "$name"; fi
# The cost model's node terms: a node map at graph creation (one node
# here, so nothing leaves it), results as before.
name="neighbor np=4 NHOOD_COST_NODE=1 NHOOD_COST_LINK=0.001"
if run "$name" 4 "NHOOD_COST_NODE=1 NHOOD_COST_LINK=0.001" "$t/test_neighbor"; then ok "$name"; else bad "$name"; fi

# Bad settings fail loudly, naming the variable and the allowed values.
expect_reject() {
    name="rejects $1=$2"
    if ! run_stops "$name" 2 "$1=$2" "$t/test_badenv"; then
        bad "$name (exited 0)"
    elif grep -q "$1=\"$2\" is not valid" "$log.err" && grep -q "allowed: $3" "$log.err" &&
        [ "$(grep -c 'nhood: error' "$log.err")" -eq 1 ]; then
        ok "$name"
    else
        bad "$name"
    fi
}
expect_reject NHOOD_ALGO bogus "auto|pmpi|direct|torus|torus_direct"
expect_reject NHOOD_ALGO_ALLTOALL Torus "auto|pmpi|direct|torus|torus_direct"
expect_reject NHOOD_BINDING copy "auto|pack|zcopy"
expect_reject NHOOD_FALLBACK loud "warn|error|silent"
expect_reject NHOOD_PROGRESS thread "auto|safe|poll"
expect_reject NHOOD_REPORT yes "0|1"
expect_reject NHOOD_COST_ALPHA 1.5us "a non-negative number"
expect_reject NHOOD_COST_STAGE -1 "a non-negative number"
expect_reject NHOOD_COST_FWD 1e-3x "a non-negative number"
expect_reject NHOOD_INPLACE_ALGO mpich "auto|pmpi|lsa|hsa"
expect_reject NHOOD_INPLACE_AUXMEM 1k "a non-negative integer"
expect_reject NHOOD_PORTS 9 "auto or an integer from 1 to 8"
# Every other setting, and the number forms strtol/strtod would accept:
# signs, hexadecimal, inf/nan, overflow and underflow, stray characters.
expect_reject NHOOD_ALGO_ALLGATHER tree "auto|pmpi|direct|torus|torus_direct"
expect_reject NHOOD_DISABLE true "0|1"
expect_reject NHOOD_CHECK yes "0|1"
expect_reject NHOOD_HOST_BUFFERS true "0|1"
expect_reject NHOOD_ISO_REDUCE tree "auto|direct|dimwise"
for v in +5 -1 0x10 5.0 1099511627777; do
    expect_reject NHOOD_INPLACE_AUXMEM "$v" "a non-negative integer up to 1099511627776"
done
set -- +1 0x10 inf nan -0.5 1e999 1e-999 . 1e 1,5
for k in O BETA GAMMA PACK GATHER GATHER_SMALL DELTA EAGER RNDV ALPHA; do
    expect_reject "NHOOD_COST_$k" "$1" "a non-negative number"
    shift
done

# nhood-info in a job: rank 0 alone answers, with what the ranks see.
name="nhood-info --json np=2"
if run "$name" 2 "NHOOD_PROGRESS=safe" "$TOP_BUILDDIR/nhood-info" --json &&
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ranks"] == 2 and d["ranks_per_node"] == "2" and d["progress"] == "safe", d
assert [s for s in d["settings"] if s["name"] == "NHOOD_PROGRESS"][0]["value"] == "safe"
' "$log.out"; then ok "$name"; else bad "$name"; fi

# A misspelled setting is not silently ignored: rank 0 warns once.
name="warns about NHOOD_ALOG"
if run "$name" 2 "NHOOD_ALOG=torus" "$t/test_badenv" &&
    [ "$(grep -c 'nhood: warning: NHOOD_ALOG is not an nhood setting' "$log.err")" -eq 1 ]; then
    ok "$name"
else
    bad "$name"
fi

# A bad setting on one rank only: all ranks stop, that rank explains.
case "$launcher" in
    openmpi) ;;
    *)
        name="rejects NHOOD_ALGO=bogus on rank 1 only"
        pre="${NH_PRELOAD_FIRST:-}$lib"
        last_prog=test_badenv last="test_badenv np=2, NHOOD_ALGO=bogus on rank 1"
        last_cmd="timeout 300 $MPIEXEC -genv LD_PRELOAD $pre -n 1 $t/test_badenv : -n 1 -env NHOOD_ALGO bogus $t/test_badenv"
        timeout 300 $MPIEXEC -genv LD_PRELOAD "$pre" -n 1 "$t/test_badenv" : \
            -n 1 -env NHOOD_ALGO bogus "$t/test_badenv" >"$log.out" 2>"$log.err"
        if ! stopped $?; then
            bad "$name (exited 0)"
        elif [ "$(grep -c 'nhood: error' "$log.err")" -eq 1 ] &&
            grep -q 'NHOOD_ALGO="bogus" is not valid .*(on this rank only)' "$log.err"; then
            ok "$name"
        else
            bad "$name"
        fi
        ;;
esac

# Malformed nhood info values fail the graph creation on every rank (also
# when only one rank's value is bad) with one message each; good ones pass;
# an unknown nhood* key warns once.
for np in 1 3; do
    name="info keys np=$np: malformed values rejected"
    if run "$name" $np "" "$t/test_badenv" info &&
        all_passed &&
        n=$(sed -n 's/^bad cases: //p' "$log.out") &&
        [ "$(grep -c '^nhood: error: info ' "$log.err")" -eq "$n" ] &&
        [ "$(grep -c '^nhood: warning: info key nhood_dim ' "$log.err")" -eq 1 ]; then
        ok "$name"
    else
        bad "$name"
    fi
done
# An inconsistent graph (erroneous, unchecked by MPI): the first collective
# fails with MPI_ERR_TOPOLOGY on every rank, each saying why.
name="inconsistent graph np=3: MPI_ERR_TOPOLOGY at the first collective"
if run "$name" 3 "" "$t/test_badenv" graph &&
    all_passed &&
    [ "$(grep -c "^nhood: error: rank [0-9]'s sources are not the ranks" "$log.err")" -eq 3 ]; then
    ok "$name"
else
    bad "$name"
fi
expect_reject NHOOD_AUTOTUNE yes "0|1"
expect_reject NHOOD_MISMATCH ignore "use|skip|error"
for v in 0 33 2x -1; do
    expect_reject NHOOD_STFW_DIMS "$v" "an integer from 1 to 32"
done

# Forced algorithm on a non-isomorphic graph with NHOOD_FALLBACK=error fails.
name="NHOOD_FALLBACK=error on an irregular graph"
if ! run_stops "$name" 3 "NHOOD_ALGO=torus NHOOD_FALLBACK=error" "$t/test_neighbor"; then
    bad "$name (exited 0)"
elif grep -q "nhood: error: algorithm torus was forced" "$log.err"; then
    ok "$name"
else
    bad "$name"
fi

fi # all only
if part vforms; then
# v/w neighborhood collectives (test_neighbor_v): every algorithm, both
# bindings, the isomorphic=true promise checked on every call, eager-limit
# splitting, a lying hint caught by NHOOD_CHECK, the report lines.
for np in $nps; do
    for algo in auto direct torus torus_direct bruck pmpi; do
        name="neighbor_v np=$np NHOOD_ALGO=$algo"
        if run "$name" $np "NHOOD_ALGO=$algo NHOOD_FALLBACK=silent" "$t/test_neighbor_v"; then ok "$name"; else bad "$name"; fi
    done
    name="neighbor_v np=$np NHOOD_ALGO=bruck NHOOD_PORTS=3"
    if run "$name" $np "NHOOD_ALGO=bruck NHOOD_PORTS=3 NHOOD_FALLBACK=silent" "$t/test_neighbor_v"; then ok "$name"; else bad "$name"; fi
done
fi # vforms
if part all; then
# Forced store-and-forward: the ring with MPI_PROC_NULL neighbors keeps the
# other algorithms and says why (it once reported a failed build).  Not
# under Open MPI: test_neighbor_v leaves that ring out there (Open MPI
# 4.1's own neighborhood collectives crash on it, nothing to compare with).
case "$launcher" in openmpi) procnull_nps="" ;; *) procnull_nps="2 4" ;; esac
for np in $procnull_nps; do
    name="neighbor_v np=$np NHOOD_ALGO=stfw (MPI_PROC_NULL ring declined by name)"
    if run "$name" $np "NHOOD_ALGO=stfw" "$t/test_neighbor_v" &&
        grep -q "has MPI_PROC_NULL neighbors, which store-and-forward does not route" "$log.err" &&
        ! grep -q "could not be built" "$log.err"; then ok "$name"; else bad "$name"; fi
done
for np in 2 4; do
    for b in pack zcopy; do
        for algo in auto direct torus torus_direct bruck; do
            name="neighbor_v np=$np NHOOD_ALGO=$algo NHOOD_BINDING=$b NHOOD_CHECK=1"
            if run "$name" $np "NHOOD_ALGO=$algo NHOOD_BINDING=$b NHOOD_CHECK=1 NHOOD_FALLBACK=silent" "$t/test_neighbor_v"; then ok "$name"; else bad "$name"; fi
        done
    done
done
for eager in 40 300; do
    for algo in direct torus; do
        name="neighbor_v np=4 NHOOD_ALGO=$algo NHOOD_COST_EAGER=$eager"
        if run "$name" 4 "NHOOD_ALGO=$algo NHOOD_COST_EAGER=$eager NHOOD_FALLBACK=silent" "$t/test_neighbor_v"; then ok "$name"; else bad "$name"; fi
    done
done
for algo in direct torus; do
    name="neighbor_v lying isomorphic=true hint, NHOOD_CHECK=1 NHOOD_ALGO=$algo"
    if ! run_stops "$name" 2 "NHOOD_CHECK=1 NHOOD_ALGO=$algo" "$t/test_neighbor_v" lie; then
        bad "$name (exited 0)"
    elif grep -Eq "nhood: error: NHOOD_CHECK: communicator [0-9]+, MPI_Neighbor_alltoallv: .* neighbor index [0-9]+ " "$log.err"; then
        ok "$name"
    else
        bad "$name"
    fi
done
name="NHOOD_REPORT=1 v/w lines"
if run "$name" 4 "NHOOD_REPORT=1" "$t/test_neighbor_v" &&
    grep -Eq '^nhood: comm=[0-9]+ op=alltoallv pattern=isomorphic .*algorithm=direct binding=(pack|zcopy) calls=[1-9]' "$log.err" &&
    grep -Eq '^nhood: comm=[0-9]+ op=alltoallw pattern=isomorphic .*algorithm=(direct|torus|torus_direct|bruck) binding=(pack|zcopy) calls=[1-9]' "$log.err" &&
    grep -Eq '^nhood: comm=[0-9]+ op=allgatherv pattern=isomorphic .*calls=[1-9]' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
fi # all only
if part vforms_nb; then
# Nonblocking and persistent v/w forms (test_neighbor_v nonblocking|persistent:
# MPI_Ineighbor_* completed by MPI_Wait or an MPI_Test loop, one
# MPI_Neighbor_*_init request started for every call with new data):
# auto and forced algorithms under the safe default (single-phase
# schedules) and under NHOOD_PROGRESS=poll (forwarding with size headers,
# or zero-copy under the promise; store-and-forward), small eager limits,
# both bindings; the report lines of every form.
case "$launcher" in openmpi) vnps="2 4 8" ;; *) vnps="1 2 3 4" ;; esac
[ "$subset" = platform ] && vnps=$nps
vforms=nonblocking # MPI-4 persistent collectives where the MPI library has them
grep -q 'HAVE_MPI_NEIGHBOR_ALLTOALL_INIT=1' "$TOP_BUILDDIR/Makefile" && vforms="nonblocking persistent"
for np in $vnps; do
    for form in $vforms; do
        for vars in "NHOOD_ALGO=auto" "NHOOD_PROGRESS=poll NHOOD_ALGO=torus" "NHOOD_PROGRESS=poll NHOOD_ALGO=stfw"; do
            name="neighbor_v $form np=$np $vars"
            if run "$name" $np "$vars NHOOD_FALLBACK=silent" "$t/test_neighbor_v" $form; then ok "$name"; else bad "$name"; fi
        done
    done
done
for form in $vforms; do
    for vars in "NHOOD_ALGO=torus" "NHOOD_ALGO=pmpi" "NHOOD_PROGRESS=poll NHOOD_ALGO=torus_direct NHOOD_BINDING=zcopy" \
        "NHOOD_PROGRESS=poll NHOOD_ALGO=torus NHOOD_BINDING=pack NHOOD_CHECK=1" "NHOOD_PROGRESS=poll NHOOD_ALGO=torus NHOOD_COST_EAGER=40" \
        "NHOOD_ALGO=direct NHOOD_COST_EAGER=300" "NHOOD_PROGRESS=poll NHOOD_ALGO=bruck NHOOD_PORTS=1"; do
        name="neighbor_v $form np=4 $vars"
        if run "$name" 4 "$vars NHOOD_FALLBACK=silent" "$t/test_neighbor_v" $form; then ok "$name"; else bad "$name"; fi
    done
done
name="NHOOD_REPORT=1 nonblocking and persistent v/w lines"
if run "$name" 4 "NHOOD_REPORT=1 NHOOD_PROGRESS=poll" "$t/test_neighbor_v" nonblocking &&
    grep -Eq '^nhood: comm=[0-9]+ op=ialltoallv pattern=isomorphic .*algorithm=(direct|torus|torus_direct|bruck) binding=(pack|zcopy) calls=[1-9]' "$log.err" &&
    grep -Eq '^nhood: comm=[0-9]+ op=ialltoallw pattern=isomorphic .*algorithm=(direct|torus|torus_direct|bruck) binding=(pack|zcopy) calls=[1-9]' "$log.err" &&
    grep -Eq '^nhood: comm=[0-9]+ op=iallgatherv pattern=isomorphic .*algorithm=(direct|torus|torus_direct|bruck) binding=(pack|zcopy) calls=[1-9]' "$log.err" &&
    { ! grep -q 'HAVE_MPI_NEIGHBOR_ALLTOALL_INIT=1' "$TOP_BUILDDIR/Makefile" ||
        { run "$name" 4 "NHOOD_REPORT=1" "$t/test_neighbor_v" persistent &&
            grep -Eq '^nhood: comm=[0-9]+ op=alltoallv_init pattern=isomorphic .*algorithm=direct binding=(pack|zcopy) calls=[1-9]' "$log.err" &&
            grep -Eq '^nhood: comm=[0-9]+ op=alltoallw_init pattern=isomorphic .*algorithm=direct .*calls=[1-9]' "$log.err" &&
            grep -Eq '^nhood: comm=[0-9]+ op=allgatherv_init pattern=isomorphic .*algorithm=direct .*calls=[1-9]' "$log.err"; }; }; then
    ok "$name"
else
    bad "$name"
fi
fi # vforms_nb
if part all; then
# Open MPI 4.1: the persistent forms are its MPIX_Neighbor_*_init
# (mpi-ext.h); the test program calls them by that name, and nhood runs
# them (src/util/init_forms.h).
if grep -q 'HAVE_MPIX_NEIGHBOR_ALLTOALL_INIT=1' "$TOP_BUILDDIR/Makefile"; then
    name="MPIX_Neighbor_alltoallv_init (Open MPI 4.1) np=4 under nhood's schedules"
    if nm -u "$t/test_neighbor_v" | grep -q 'MPIX_Neighbor_alltoallv_init' &&
        run "$name" 4 "NHOOD_REPORT=1" "$t/test_neighbor_v" persistent &&
        all_passed &&
        grep -Eq '^nhood: comm=[0-9]+ op=alltoallv_init pattern=isomorphic .*algorithm=(direct|torus|torus_direct|bruck) ' "$log.err"; then
        ok "$name"
    else
        bad "$name"
    fi
fi
name="NHOOD_REPORT=1 store-and-forward v forms under poll"
if run "$name" 4 "NHOOD_REPORT=1 NHOOD_PROGRESS=poll NHOOD_ALGO=stfw" "$t/test_neighbor_v" nonblocking &&
    grep -Eq '^nhood: comm=[0-9]+ op=ialltoallv pattern=[a-z]+ .*algorithm=stfw binding=- calls=[1-9]' "$log.err" &&
    grep -Eq '^nhood: comm=[0-9]+ op=iallgatherv pattern=irregular .*algorithm=stfw binding=- calls=[1-9]' "$log.err" &&
    grep -Eq '^nhood: comm=[0-9]+ op=ialltoallw pattern=irregular .*algorithm=stfw binding=- calls=[1-9]' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
name="nhood-bench --op alltoallw --class-bytes CSV"
if run "$name" 2 "" "$TOP_BUILDDIR/nhood-bench" --op alltoallw --class-bytes 8,64,512 --reps 20 --no-header &&
    grep -Eq '^alltoallw,moore,3,1,2,8:64:512,direct,[0-9.]+,[0-9.]+,[0-9.]+$' "$log.out"; then
    ok "$name"
else
    bad "$name"
fi

fi # all only
if part iso; then
# The Iso_* interface (test_iso links libnhood; preloaded as well): at
# every size with the defaults, at 4 ranks with forced algorithms under
# it, both reduction schedules, NHOOD_CHECK=1 (adds the mismatched-list
# case) and nhood disabled.  The report must show the Iso communicators
# as isomorphic graphs run by nhood.  The stencil example checks its
# halos against the global field for every variant (exit status).
for np in $nps; do
    name="iso np=$np"
    if run "$name" $np "" "$t/test_iso"; then ok "$name"; else bad "$name"; fi
done
for vars in "NHOOD_ALGO=torus" "NHOOD_ALGO=torus_direct" "NHOOD_ALGO=pmpi" "NHOOD_ISO_REDUCE=direct" \
    "NHOOD_ISO_REDUCE=dimwise NHOOD_CHECK=1" "NHOOD_BINDING=pack NHOOD_CHECK=1" "NHOOD_DISABLE=1"; do
    name="iso np=4 $vars"
    if run "$name" 4 "$vars NHOOD_FALLBACK=silent" "$t/test_iso"; then ok "$name"; else bad "$name"; fi
done
name="NHOOD_REPORT=1 iso communicators isomorphic"
if run "$name" 4 "NHOOD_REPORT=1" "$t/test_iso" &&
    grep -Eq '^nhood: comm=[0-9]+ op=alltoall pattern=isomorphic .*calls=[1-9]' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
name="nhood-stencil halos and CSV"
if run "$name" 2 "" "$TOP_BUILDDIR/nhood-stencil" --halo 1,3 --n 8 --reps 5 &&
    [ "$(grep -c '^stencil,\(vonneumann\|moore\),[23],[13],2,[0-9]*,\(alltoallw\|iso_alltoallw\),[0-9.]*,[0-9.]*,[0-9.]*$' "$log.out")" -eq 16 ]; then
    ok "$name"
else
    bad "$name"
fi

fi # iso
if part all; then
# Benchmark smoke test: header plus one row per size, ratio column filled.
name="nhood-bench CSV"
if run "$name" 2 "" "$TOP_BUILDDIR/nhood-bench" --op allgather --dims 2 --radius 1 --bytes 8,64 --reps 20 &&
    [ "$(head -1 "$log.out")" = "op,nbhd,dims,radius,procs,bytes,algorithm,native_us,nhood_us,ratio" ] &&
    [ "$(grep -c '^allgather,moore,2,1,2,' "$log.out")" -eq 2 ]; then
    ok "$name"
else
    bad "$name"
fi

name="nhood-bench --form nonblocking --compute CSV"
if run "$name" 2 "" "$TOP_BUILDDIR/nhood-bench" --op alltoall --dims 2 --radius 1 --bytes 8 --reps 20 \
    --form nonblocking --compute 5 --test-every 1 &&
    [ "$(head -1 "$log.out")" = "op,nbhd,dims,radius,procs,bytes,algorithm,native_us,nhood_us,ratio,compute_us,native_total_us,nhood_total_us,native_overlap,nhood_overlap" ] &&
    grep -Eq '^ialltoall,moore,2,1,2,8,direct,([0-9.]+,){7}[0-9.]+$' "$log.out"; then
    ok "$name"
else
    bad "$name"
fi
if grep -q 'HAVE_MPI_NEIGHBOR_ALLTOALL_INIT=1' "$TOP_BUILDDIR/Makefile"; then
    name="nhood-bench --form persistent CSV"
    if run "$name" 2 "" "$TOP_BUILDDIR/nhood-bench" --op allgather --bytes 8,64 --reps 20 --form persistent \
        --no-header && [ "$(grep -c '^allgather_init,moore,3,1,2,' "$log.out")" -eq 2 ]; then
        ok "$name"
    else
        bad "$name"
    fi
fi

# SpMV benchmark smoke test: y checked against the sequential product inside
# (exit 1 on a mismatch), header plus a native and an nhood row.
spmv_nps="2 4"
case " $nps " in *" 16 "*) spmv_nps="2 4 16" ;; esac
for np in $spmv_nps; do
    for m in powerlaw:3000:6:2.2:1 rmat:10:4; do
        name="nhood-spmv np=$np $m CSV"
        if run "$name" $np "" "$TOP_BUILDDIR/nhood-spmv" --matrix $m --part nnz --reps 10 &&
            [ "$(head -1 "$log.out")" = "matrix,procs,scheme,mmax,mavg,vavg,comm_us,spmv_us" ] &&
            grep -Eq "^$m,$np,native,[0-9]+,([0-9.]+,){3}[0-9.]+$" "$log.out" &&
            grep -Eq "^$m,$np,nhood:[a-z_]+,[0-9]+,([0-9.]+,){3}[0-9.]+$" "$log.out"; then
            ok "$name"
        else
            bad "$name"
        fi
    done
done

# The irregular nonblocking SpMV exchange (MPI_Ineighbor_alltoallv + MPI_Wait,
# as PETSc and DOLFINx post it) under forced store-and-forward with polling
# progress: y identical to the sequential product (checked inside, exit 1
# on a mismatch); where store-and-forward is set up (2 ranks and more) the
# scheme and the report say stfw.
spmv_nb_nps="1 2 3 4"
case " $nps " in *" 16 "*) spmv_nb_nps="1 2 3 4 8 16" ;; esac
for np in $spmv_nb_nps; do
    for m in powerlaw:3000:6:2.2:1 rmat:10:4; do
        name="nhood-spmv --form nonblocking np=$np $m NHOOD_ALGO=stfw NHOOD_PROGRESS=poll"
        want='nhood:[a-z_]+/nb'
        [ "$np" -ge 2 ] && want='nhood:stfw/nb'
        if run "$name" $np "NHOOD_ALGO=stfw NHOOD_PROGRESS=poll NHOOD_FALLBACK=silent NHOOD_REPORT=1" \
            "$TOP_BUILDDIR/nhood-spmv" --form nonblocking --matrix $m --part nnz --reps 6 &&
            grep -Eq "^$m,$np,native/nb," "$log.out" && grep -Eq "^$m,$np,$want," "$log.out" &&
            { [ "$np" -lt 2 ] ||
                grep -Eq "^nhood: comm=[0-9]+ op=ialltoallv pattern=[a-z]+ .*algorithm=stfw" "$log.err"; }; then
            ok "$name"
        else
            bad "$name"
        fi
    done
done

# NHOOD_OVERLAP: every access order against the reference, deferred on
# nhood's schedules and on MPI's (pmpi), and watched (report); the CSV's
# known window; the program's own SIGSEGV handler; off by itself under
# MPI_THREAD_MULTIPLE (test_threads with defer must still pass).
for np in $nps; do
    for vars in "NHOOD_OVERLAP=defer" "NHOOD_OVERLAP=defer NHOOD_ALGO=pmpi" \
        "NHOOD_OVERLAP=defer NHOOD_ALGO=torus NHOOD_PROGRESS=poll" "NHOOD_OVERLAP=report"; do
        name="overlap np=$np $vars"
        case "${NH_PRELOAD_FIRST:+san} $vars" in
            "san NHOOD_OVERLAP=defer"*)
                # a sanitizer's runtime interposes malloc before the
                # advisor's library: defer steps aside, and says why
                run "$name" $np "$vars NHOOD_FALLBACK=silent" "$t/test_overlap"
                if grep -q 'NHOOD_OVERLAP=defer is off: another library interposes malloc' \
                    "$log.err"; then ok "$name"; else bad "$name"; fi ;;
            *)
                if run "$name" $np "$vars NHOOD_FALLBACK=silent" "$t/test_overlap"; then ok "$name"; else bad "$name"; fi ;;
        esac
    done
done
name="overlap report np=2 NHOOD_OVERLAP_CSV (known windows, blocking and nonblocking: site and first access named)"
rm -f "$log.csv"
if run "$name" 2 "NHOOD_OVERLAP=report NHOOD_OVERLAP_CSV=$log.csv" "$t/test_overlap" &&
    grep -q '^known_window+0x[0-9a-f]*.*,MPI_Neighbor_alltoall,3,' "$log.csv" &&
    grep -q '^known_nonblocking+0x[0-9a-f]*.*,MPI_Ineighbor_alltoall,3,' "$log.csv" &&
    grep -q '^nhood: overlap known_window+' "$log.err" &&
    grep -q '^nhood: overlap known_nonblocking+.* start_to_wait_us=' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
# The advisor's C library wrappers live in libnhood-overlap.so: without
# it the mode is off with one warning (and the program runs as ever);
# nhood-run preloads it when NHOOD_OVERLAP asks for the advisor.
name="overlap report without libnhood-overlap.so: off, with the reason"
if no_ovlib=1 run "$name" 2 "NHOOD_OVERLAP=report" "$t/test_neighbor" &&
    grep -q 'NHOOD_OVERLAP=report is off: libnhood-overlap.so is not loaded' "$log.err" &&
    ! grep -q '^nhood: overlap ' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
name="overlap report through nhood-run: libnhood-overlap.so preloaded, the advisor's lines"
last_cmd="NHOOD_OVERLAP=report nhood-run -np 2 test_overlap"
# shellcheck disable=SC2086
if [ -n "${NH_PRELOAD_FIRST:-}" ]; then
    skip "$name" "nhood-run does not preload a sanitizer's runtime first"
elif NHOOD_OVERLAP=report NHOOD_LIB="$lib" MPIEXEC="$MPIEXEC" timeout 300 \
    sh "$(dirname "$0")/../../scripts/nhood-run" $extra -np 2 "$t/test_overlap" >"$log.out" 2>"$log.err" &&
    grep -q '^nhood: overlap known_window+' "$log.err" && ! grep -q 'is off' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi
name="overlap defer under MPI_THREAD_MULTIPLE steps aside (test_threads)"
if run "$name" 2 "NHOOD_OVERLAP=defer" "$t/test_threads" &&
    grep -q 'NHOOD_OVERLAP=defer is off: MPI_THREAD_MULTIPLE' "$log.err"; then
    ok "$name"
else
    bad "$name"
fi

fi # all only
tap_end
