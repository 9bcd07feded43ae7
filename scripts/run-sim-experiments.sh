#!/bin/sh
# Runs the simulated experiments that mirror the papers (docs/simulation.md)
# with scripts/nhood-sim, one CSV per (experiment, platform) in OUT (default
# docs/sim), skipping those already there, then renders the tables and plots
# (scripts/sim-report.sh).  Sequential: each simulation uses one core (the
# 4096-rank ones run as two simulations at once, see pair).
#
#   scripts/run-sim-experiments.sh [--out DIR] [--only PATTERN] [--force] [--report-only]
#                                  [--bruck-only] [--auto-only] [--learn-only]
#
# --auto-only: only auto again where its platform's cost file is newer than
# the experiment (OUT/NAME.auto.csv; the forced algorithms' times do not
# depend on the cost model), then the report.
#
# --learn-only: auto with the learning on (NHOOD_AUTOTUNE=1) for the
# isomorphic experiments at their bruck run's sizes (OUT/NAME.learn.csv,
# see learn), then the report.
#
# PATTERN selects experiment names (shell glob, e.g. 'iso-*-flat').  Every
# number these experiments produce is simulated time on a platform model.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=$top/docs/sim only='*' force=0 report_only=0 bruck_only=0 auto_only=0 learn_only=0
while [ $# -gt 0 ]; do
    case "$1" in
    --out) out=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --force) force=1; shift ;;
    --report-only) report_only=1; shift ;;
    --bruck-only) bruck_only=1; shift ;;
    --auto-only) auto_only=1; shift ;;
    --learn-only) learn_only=1; shift ;;
    *) echo "usage: $0 [--out DIR] [--only PATTERN] [--force] [--report-only] [--bruck-only] [--auto-only] [--learn-only]" >&2; exit 2 ;;
    esac
done
mkdir -p "$out"
# The SMPI programs from the current sources (a stale build would measure
# the old code; nothing to do when it is up to date).
if [ -z "${NHOOD_SMPI_DIR:-}" ] && [ "$report_only" -eq 0 ] && [ -f "$top/Makefile" ]; then
    make -s -C "$top" smpi >/dev/null
fi

# SimGrid settings for experiment NAME: SimGrid's max-min solver trips over
# its own rounding ("Cannot saturate more a constraint") on the large
# store-and-forward runs at its default precision (1e-5), hence a coarser
# one; and SMPI's collectives as in Open MPI: with its default (MPICH's)
# selection, store-and-forward's set-up collectives never returned from 128
# ranks on when several ranks share a simulated node (nhood's own exchanges
# use point-to-point only, so the selector changes no measured time).
# Broadcasts binomial: the selector's k-nomial broadcast, which every new
# communicator runs once (SMPI agrees on its id so), first maps the nodes
# with a ring allgather and loops over ranks times nodes; that cost 20 s
# of simulation per MPI_Comm_dup at 1024 ranks, 6x per doubling.
simcfg() {
    spmv="--cfg=maxmin/precision:1e-4 --cfg=smpi/coll-selector:ompi --cfg=smpi/bcast:binomial_tree"
    case "$1" in
    # The blocking 16384-rank SpMV did not finish in 2.5 h with SMPI's
    # default probes (docs/simulation.md): the nonblocking runs' cheap ones
    # (nhood-sim's probe_cfg under --window-us).
    stfw-p16384-*) echo "${NHOOD_SIM_CFG:-} $spmv --cfg=smpi/iprobe:2e-7 --cfg=smpi/test:2e-7 --cfg=smpi/grow-injected-times:no" ;;
    stfw-* | nbspmv-* | agg-*) echo "${NHOOD_SIM_CFG:-} $spmv" ;;
    *) echo "${NHOOD_SIM_CFG:-}" ;;
    esac
}

# exp NAME ARGS...: one nhood-sim run into OUT/NAME.csv (its stderr, with
# the simulation's wall-clock time, into OUT/NAME.log).
exp() {
    name=$1
    shift
    # shellcheck disable=SC2254
    case "$name" in $only) ;; *) return 0 ;; esac
    [ "$force" -eq 0 ] && [ -s "$out/$name.csv" ] && return 0
    # Another run of this script (say --only '*-torus' beside this one) has it.
    [ -e "$out/$name.csv.tmp" ] && return 0
    echo "== $name: nhood-sim $*" >&2
    start=$(date +%s)
    if NHOOD_SIM_CFG=$(simcfg "$name") "$here/nhood-sim" "$@" >"$out/$name.csv.tmp" 2>"$out/$name.log"; then
        mv "$out/$name.csv.tmp" "$out/$name.csv"
        # a whole run supersedes an earlier auto-only one
        rm -f "$out/$name.auto.csv" "$out/$name.auto.log"
    else
        echo "   failed, see $out/$name.log" >&2
        rm -f "$out/$name.csv.tmp"
    fi
    echo "   $(($(date +%s) - start)) s" >&2
}

# pair NAME FORCED ARGS...: as exp, for the 4096-rank SpMV runs, as two
# simulations at once (one core each): native and auto in one, the forced
# algorithms FORCED in the other with --no-native (SpMV's messages carry
# values every rank can check without a native call).  The forced rows get
# native's time and their ratio from the first; OUT/NAME.log gets both logs.
pair() {
    name=$1 forced=$2
    shift 2
    # shellcheck disable=SC2254
    case "$name" in $only) ;; *) return 0 ;; esac
    [ "$force" -eq 0 ] && [ -s "$out/$name.csv" ] && return 0
    [ -e "$out/$name.csv.tmp" ] && return 0
    echo "== $name: nhood-sim $* --algos auto, and --algos $forced --no-native at the same time" >&2
    start=$(date +%s)
    cfg=$(simcfg "$name")
    NHOOD_SIM_CFG=$cfg "$here/nhood-sim" "$@" --algos auto >"$out/$name.csv.tmp" 2>"$out/$name.log" &
    a=$!
    NHOOD_SIM_CFG=$cfg "$here/nhood-sim" "$@" --algos "$forced" --no-native --no-header \
        >"$out/$name.forced.tmp" 2>"$out/$name.forced.log" &
    b=$!
    sa=0 sb=0
    wait $a || sa=$?
    wait $b || sb=$?
    if [ $sa -eq 0 ] && [ $sb -eq 0 ] &&
        awk -F, -v OFS=, 'FNR == NR { print; if (FNR == 2) native = $8; next }
            native > 0 { $8 = sprintf("%.3f", native); $10 = sprintf("%.3f", $9 / native); print }
            END { exit !(native > 0) }' "$out/$name.csv.tmp" "$out/$name.forced.tmp" >"$out/$name.csv"; then
        {
            echo "# forced algorithms ($forced), simulated at the same time without native:"
            cat "$out/$name.forced.log"
            echo "# both simulations took $(($(date +%s) - start)) s wall-clock"
        } >>"$out/$name.log"
        rm -f "$out/$name.auto.csv" "$out/$name.auto.log"
    else
        echo "   failed, see $out/$name.log and $out/$name.forced.log" >&2
        rm -f "$out/$name.csv"
    fi
    rm -f "$out/$name.csv.tmp" "$out/$name.forced.tmp" "$out/$name.forced.log"
    echo "   $(($(date +%s) - start)) s" >&2
}

# auto NAME ARGS...: auto alone (native only as the reference), into
# OUT/NAME.auto.csv, for experiments simulated before their platform's cost
# parameters last changed (at the bruck run's sizes where only it exists);
# sim-report.sh and sim-bruck-report.sh take auto's rows from there.
auto() {
    name=$1
    shift
    # shellcheck disable=SC2254
    case "$name" in $only) ;; *) return 0 ;; esac
    case "$name" in inplace-*) return 0 ;; esac
    pf=$(echo "$name" | sed 's/.*-//')
    run=$out/$name.csv
    if [ ! -s "$run" ]; then
        # only the bruck run exists (the large neighborhoods): its sizes
        run=$out/$name.bruck.csv
        [ -s "$run" ] || return 0
        sizes=$(awk -F, 'NR > 1 && !($6 in s) { s[$6] = 1; printf "%s%s", n++ ? "," : "", $6 }' "$run")
        set -- "$@" --bytes "$sizes"
    fi
    [ "$run" -nt "$top/platforms/$pf.cost" ] && return 0
    [ "$force" -eq 0 ] && [ -s "$out/$name.auto.csv" ] && [ "$out/$name.auto.csv" -nt "$top/platforms/$pf.cost" ] && return 0
    echo "== $name (auto, cost parameters newer than the run): nhood-sim $*" >&2
    start=$(date +%s)
    if NHOOD_SIM_CFG=$(simcfg "$name") "$here/nhood-sim" "$@" --algos auto --no-native >"$out/$name.auto.csv.tmp" 2>"$out/$name.auto.log"; then
        mv "$out/$name.auto.csv.tmp" "$out/$name.auto.csv"
    else
        echo "   failed, see $out/$name.auto.log" >&2
        rm -f "$out/$name.auto.csv.tmp"
    fi
    echo "   $(($(date +%s) - start)) s" >&2
}

# finish FILE OK START: FILE.tmp becomes FILE where OK is 1, else it
# goes and the log beside FILE (.log for .csv) says why; then the time
# since START.
finish() {
    if [ "$2" -eq 1 ]; then
        mv "$1.tmp" "$1"
    else
        echo "   failed, see ${1%.csv}.log" >&2
        rm -f "$1.tmp"
    fi
    echo "   $(($(date +%s) - $3)) s" >&2
}

# learn NAME ARGS...: auto with the learning on (NHOOD_AUTOTUNE=1, as a
# program gets it by default) into OUT/NAME.learn.csv, for the isomorphic
# experiments at their bruck run's sizes (8 B, and 512 B where the
# experiment has it), without native (NAME.csv has its time).  Its trials
# run in LEARN_WARMUP (default 100) warm-up calls before the timed one;
# the log (NHOOD_REPORT) must show one agreement per size, or the run
# counts as failed.  sim-bruck-report.sh puts it beside auto.
learn() {
    name=$1
    shift
    case "$name" in iso-*) ;; *) return 0 ;; esac
    # shellcheck disable=SC2254
    case "$name" in $only) ;; *) return 0 ;; esac
    [ -s "$out/$name.bruck.csv" ] || return 0
    [ "$force" -eq 0 ] && [ -s "$out/$name.learn.csv" ] && return 0
    sizes=$(awk -F, 'NR > 1 && !($6 in s) { s[$6] = 1; printf "%s%s", n++ ? " " : "", $6 }' "$out/$name.bruck.csv")
    args=""
    while [ $# -gt 0 ]; do
        case "$1" in
        --bytes | --warmup) shift 2 ;;
        *) args="$args $1"; shift ;;
        esac
    done
    echo "== $name (learning): nhood-sim$args --bytes $sizes" >&2
    start=$(date +%s)
    ok=1
    : >"$out/$name.learn.csv.tmp"
    : >"$out/$name.learn.log"
    for b in $sizes; do
        # shellcheck disable=SC2086
        NHOOD_AUTOTUNE=1 NHOOD_REPORT=1 NHOOD_SIM_CFG=$(simcfg "$name") "$here/nhood-sim"$args \
            --bytes $b --algos auto --no-native --warmup "${LEARN_WARMUP:-100}" \
            $([ -s "$out/$name.learn.csv.tmp" ] && echo --no-header) \
            >>"$out/$name.learn.csv.tmp" 2>>"$out/$name.learn.log" || ok=0
        grep -q "^nhood: autotune comm=[0-9]* op=[a-z]* bytes=$b " "$out/$name.learn.log" || ok=0
    done
    finish "$out/$name.learn.csv" $ok "$start"
}

# bruck NAME ARGS...: the log-round algorithm beside the others, for the
# isomorphic experiments, into OUT/NAME.bruck.csv: bruck (its port count
# priced by the cost model, NHOOD_PORTS unset) and auto at 8 B, and at 512
# B where the experiment has that size (the neighborhoods of 80 or more
# offsets run at 8 B only, as above); torus and torus_direct too where
# NAME.csv does not exist (shales on torus and dragonfly, and the large
# neighborhoods whose native runs on dragonfly take 15-50 minutes each here
# and were not all simulated).  Without native:
# the simulation is deterministic, so native's time at a size is the one
# NAME.csv holds (scripts/sim-bruck-report.sh joins them).
bruck() {
    name=$1
    shift
    case "$name" in iso-*) ;; *) return 0 ;; esac
    # shellcheck disable=SC2254
    case "$name" in $only) ;; *) return 0 ;; esac
    [ "$force" -eq 0 ] && [ -s "$out/$name.bruck.csv" ] && return 0
    args="" had=""
    while [ $# -gt 0 ]; do
        case "$1" in
        --bytes) had=$2; shift 2 ;;
        --algos | --no-native) [ "$1" = --algos ] && shift; shift ;;
        *) args="$args $1"; shift ;;
        esac
    done
    sizes=8
    case ",$had," in *,512,*) sizes="8 512" ;; esac
    echo "== $name (bruck): nhood-sim$args --bytes $sizes" >&2
    start=$(date +%s)
    ok=1
    : >"$out/$name.bruck.csv.tmp"
    for b in $sizes; do
        algos=bruck,auto
        [ -s "$out/$name.csv" ] || algos=$algos,torus,torus_direct
        # shellcheck disable=SC2086
        NHOOD_SIM_CFG=$(simcfg "$name") "$here/nhood-sim"$args --bytes $b --algos $algos \
            --no-native $([ -s "$out/$name.bruck.csv.tmp" ] && echo --no-header) \
            >>"$out/$name.bruck.csv.tmp" 2>>"$out/$name.bruck.log" || ok=0
    done
    finish "$out/$name.bruck.csv" $ok "$start"
}

# The experiments: name, then nhood-sim's arguments.  Isomorphic
# collectives, seed paper 000 (Jupiter: 30 nodes x 16 = 480 ranks): Fig. 2
# (alltoall, Moore d=2..5 r=1, d=3 r=3, octant d=3 r=3), Fig. 5 (allgather),
# Fig. 4 (shales, torus against torus_direct); the same on the torus and
# dragonfly platforms (16 and 24 ranks per node), and Moore d=3 r=2.  The
# neighborhoods with 80 or more offsets run at 8 B only: a 512 B run of one
# takes an hour or more of simulation here (Moore d=3 r=2's, on flat, had
# not finished native's and direct's exchanges after 70 minutes;
# docs/sim/iso-alltoall-moore-d4r1-flat.csv kept the 512 B rows of an
# earlier run that had them).
experiments() {
    for pf in flat torus dragonfly; do
        if [ "$pf" = flat ]; then small=8,64,512,2048; else small=8,512; fi
        big=8
        $1 "iso-alltoall-moore-d2r1-$pf" --platform $pf --procs 480 --op alltoall --nbhd moore --dims 2 --radius 1 --bytes $small --reps 1
        $1 "iso-alltoall-moore-d3r1-$pf" --platform $pf --procs 480 --op alltoall --nbhd moore --dims 3 --radius 1 --bytes $small --reps 1
        $1 "iso-allgather-moore-d3r1-$pf" --platform $pf --procs 480 --op allgather --nbhd moore --dims 3 --radius 1 --bytes $small --reps 1
        $1 "iso-alltoall-octant-d3r3-$pf" --platform $pf --procs 480 --op alltoall --nbhd octant --dims 3 --radius 3 --bytes $small --reps 1
        $1 "iso-allgather-octant-d3r3-$pf" --platform $pf --procs 480 --op allgather --nbhd octant --dims 3 --radius 3 --bytes $small --reps 1
        $1 "iso-alltoall-moore-d4r1-$pf" --platform $pf --procs 480 --op alltoall --nbhd moore --dims 4 --radius 1 --bytes $big --reps 1
        $1 "iso-alltoall-moore-d3r2-$pf" --platform $pf --procs 480 --op alltoall --nbhd moore --dims 3 --radius 2 --bytes $big --reps 1
        $1 "iso-alltoall-moore-d3r3-$pf" --platform $pf --procs 480 --op alltoall --nbhd moore --dims 3 --radius 3 --bytes $big --reps 1
        $1 "iso-allgather-moore-d3r3-$pf" --platform $pf --procs 480 --op allgather --nbhd moore --dims 3 --radius 3 --bytes $big --reps 1
        $1 "iso-alltoall-moore-d5r1-$pf" --platform $pf --procs 480 --op alltoall --nbhd moore --dims 5 --radius 1 --bytes $big --reps 1
        if [ "$pf" = flat ]; then
            # In-place alltoallv, seed paper 001 Fig. 5 (JuRoPA: InfiniBand, 8
            # ranks per node): 16 to 512 ranks, 2 MiB per rank (the paper: 1 GB).
            for p in 16 32 64 128 256 512; do
                $1 "inplace-p$p-flat" --platform flat --ppn 8 --procs $p --op inplace_alltoallv --bytes 2097152 --reps 1
            done
        fi
    done
    # Shales (r = 3 and 7, 1396 offsets), Fig. 4b: torus against
    # torus_direct at 8 and 64 B, and native apart, one size per run (its
    # 1396 messages per rank, 670 K transfers at once, take 10-25 minutes of
    # simulation per size), with torus_direct beside it.
    [ "$1" = bruck ] && bruck "iso-alltoall-shales-d3r3-flat" --platform flat --procs 480 \
        --op alltoall --nbhd shales --dims 3 --radius 3 --bytes 8,64 --reps 1
    # On torus and dragonfly: torus, torus_direct, bruck and auto at 8 B,
    # without native.
    if [ "$1" = bruck ]; then
        for pf in torus dragonfly; do
            bruck "iso-alltoall-shales-d3r3-$pf" --platform $pf --procs 480 --op alltoall \
                --nbhd shales --dims 3 --radius 3 --bytes 8 --reps 1
        done
    fi
    # The learning at the bruck runs' sizes (8 B; flat and torus: there is
    # no bruck run on the dragonfly).  Each trial of native takes 10-25
    # minutes of simulation here, and the other candidates' calls half a
    # minute: about two hours a platform.
    if [ "$1" = learn ]; then
        for pf in flat torus dragonfly; do
            learn "iso-alltoall-shales-d3r3-$pf" --platform $pf --procs 480 --op alltoall \
                --nbhd shales --dims 3 --radius 3 --bytes 8 --reps 1
        done
    fi
    # auto again (its sizes and platforms from the bruck runs)
    if [ "$1" = auto ]; then
        for pf in flat torus dragonfly; do
            auto "iso-alltoall-shales-d3r3-$pf" --platform $pf --procs 480 --op alltoall \
                --nbhd shales --dims 3 --radius 3 --bytes 8,64 --reps 1
        done
    fi
    if [ "$1" = exp ]; then
        exp "iso-alltoall-shales-d3r3-flat" --platform flat --procs 480 --op alltoall --nbhd shales \
            --dims 3 --radius 3 --bytes 8,64 --algos torus,torus_direct --reps 1 --no-native
        for b in 8 64; do
            exp "iso-alltoall-shales-d3r3-native$b-flat" --platform flat --procs 480 --op alltoall \
                --nbhd shales --dims 3 --radius 3 --bytes $b --algos torus_direct --reps 1
        done
    fi
    # Store-and-forward, SpMV halo exchange on one power-law matrix (200,000
    # rows, 8 nonzeros per row on average, exponent 2.2) partitioned over K
    # ranks (strong scaling, as the paper): paper Table 2 (BlueGene/Q, K =
    # 64..512; at 512 its matrices average 872 words per rank, this one 856)
    # and Table 3 (Cray XC40 dragonfly at 4096).  native = one message per
    # neighbor (BL); stfw:N forces an N-dimensional virtual process topology,
    # auto decides by nhood's model.  4096 ranks: dragonfly only (Table 3's
    # XC40), auto and two forced dimensions, in two simulations at once.
    for pf in dragonfly torus flat; do
        for K in 64 128 256 512 4096 8192 16384; do
            case "$pf,$K" in torus,4096 | flat,4096 | dragonfly,8192 | dragonfly,16384 | flat,8192 | flat,16384) continue ;; esac
            # Table 3's Cray XK7 sizes on the torus: auto and the paper's
            # 4-dimensional VPT against native (BL), native's timed call
            # its only one.  16384: auto alone (a second set-up would not
            # fit in 24 GiB beside the first).
            if [ "$K" -gt 4096 ]; then
                algos=auto,stfw:4
                [ "$K" -gt 8192 ] && algos=auto
                [ "$1" = exp ] && exp "stfw-p$K-$pf" --platform $pf --procs $K --op spmv \
                    --matrix powerlaw:200000:8:2.2:0 --algos $algos --reps 1 --warmup 0
                continue
            fi
            lg=0 k=$K
            while [ "$k" -gt 1 ]; do k=$((k / 2)); lg=$((lg + 1)); done
            algos=auto,stfw:2,stfw:3,stfw:4,stfw:$lg
            [ $((lg / 2 + 1)) -gt 4 ] && [ $((lg / 2 + 1)) -lt "$lg" ] && algos=$algos,stfw:$((lg / 2 + 1))
            # 4096: native's timed call is its only one (--warmup 0), the
            # most expensive part of the simulation.
            if [ "$K" -eq 4096 ] && [ "$1" = auto ]; then
                auto "stfw-p$K-$pf" --platform $pf --procs $K --op spmv \
                    --matrix powerlaw:200000:8:2.2:0 --reps 1 --warmup 0
                auto "stfw-small-p$K-$pf" --platform $pf --procs $K --op spmv \
                    --matrix powerlaw:20000:8:2.2:0 --reps 1 --warmup 0
                continue
            fi
            if [ "$K" -eq 4096 ]; then
                [ "$1" = exp ] || continue
                pair "stfw-p$K-$pf" stfw:3,stfw:7 --platform $pf --procs $K --op spmv \
                    --matrix powerlaw:200000:8:2.2:0 --reps 1 --warmup 0
                pair "stfw-small-p$K-$pf" stfw:3,stfw:7 --platform $pf --procs $K --op spmv \
                    --matrix powerlaw:20000:8:2.2:0 --reps 1 --warmup 0
                continue
            fi
            $1 "stfw-p$K-$pf" --platform $pf --procs $K --op spmv --matrix powerlaw:200000:8:2.2:0 \
                --algos $algos --reps 1
            # A ten times smaller matrix: messages of ~100 B, latency-bound.
            $1 "stfw-small-p$K-$pf" --platform $pf --procs $K --op spmv --matrix powerlaw:20000:8:2.2:0 \
                --algos $algos --reps 1
        done
    done
}

# The SpMV halo exchange in its nonblocking form (start, compute, wait),
# as DOLFINx and PETSc run it (src/smpi/simbench_ispmv.c): auto against
# MPI's own exchange run the same way, with no computation between start
# and wait (w0) and with as much as MPI's blocking exchange takes
# (wnative); auto prices the window it measured on a first phase.  Its
# own CSV columns (nbspmv-*.csv); scripts/sim-report.sh tabulates them.
nonblocking() {
    # 8192 and 16384 ranks: the torus, the big matrix, no computation
    # between start and wait (beside the blocking stfw-p8192/16384-torus).
    for K in 8192 16384; do
        exp "nbspmv-big-p$K-torus-w0" --platform torus --procs $K --op spmv \
            --matrix powerlaw:200000:8:2.2:0 --algos auto --reps 1 --warmup 0 --window-us 0
    done
    for pf in dragonfly torus; do
        for K in 512 4096; do
            [ "$pf,$K" = torus,4096 ] && continue
            warm=1
            [ "$K" -eq 4096 ] && warm=0
            for m in small:20000 big:200000; do
                [ "$K,${m%%:*}" = 4096,big ] && continue
                for w in 0 native; do
                    exp "nbspmv-${m%%:*}-p$K-$pf-w$w" --platform $pf --procs $K --op spmv \
                        --matrix "powerlaw:${m#*:}:8:2.2:0" --algos auto --reps 1 --warmup $warm \
                        --window-us $w
                done
            done
        done
    done
    # Node aggregation beside the VPT and auto (blocking SpMV exchange; own
    # file: sim-report.sh does not tabulate it, docs/stfw.md quotes it).
    exp "agg-small-p512-dragonfly" --platform dragonfly --procs 512 --op spmv \
        --matrix powerlaw:20000:8:2.2:0 --algos auto,stfw:agg,stfw:3 --reps 1
}

# Box-stencil halos as structured codes write them: a 3-D Moore stencil on
# a non-periodic 8x8x8 grid of 512 ranks and a 16x16x16 grid of 4096 (no
# Cartesian parent, no hint), MPI_Neighbor_alltoallv with n^2 / n / 1
# doubles per face / edge / corner (n = 4 and 32): MPI's own exchange
# against auto and the forced ones.  scripts/sim-report.sh tabulates them
# (box-*.csv).
boxhalo() {
    for P in 512 4096; do
        for pf in torus dragonfly; do
            exp "box-alltoallv-mesh-p$P-$pf" --platform $pf --procs $P --op alltoallv --box --mesh \
                --dims 3 --bytes 4,32 --algos auto,direct,torus,torus_direct --reps 1
        done
    done
}

# At scale: the isomorphic Moore alltoall from 1024 to 16384 ranks, block
# placement (16 ranks per torus node, 24 per dragonfly node).  Up to 4096
# ranks every algorithm; beyond, auto and direct (= MPI's own exchange
# here) with native's timed call its only one.  Each log ends with
# the simulation's wall-clock time and peak memory; scripts/plot-scale.sh
# makes docs/sim/scale.csv and scale.png from them (auto's rows from
# NAME.auto.csv where the cost parameters changed after NAME.csv: `scale
# auto`, --auto-only).  8192 ranks need vm.max_map_count above 65530
# (nhood-sim says so).
scale() {
    # 3-D Moore at 8 B and 512 B, 5-D Moore at 8 B (242 neighbors: ten
    # times the messages, so up to 4096 ranks: 15 GiB there).
    for pf in torus dragonfly; do
        for P in 1024 2048 4096 8192 16384; do
            for c in d3r1:8 d3r1:512 d5r1:8; do
                d=${c%%r*} d=${d#d} b=${c#*:} name=scale-moore-${c%%:*}
                [ "$b" = 8 ] || name=$name-b$b
                [ "$d" = 5 ] && [ "$P" -gt 4096 ] && continue
                algos=auto,direct,torus,torus_direct,bruck warm=
                [ "$P" -gt 4096 ] && algos=auto,direct warm="--warmup 0"
                # shellcheck disable=SC2086
                $1 "$name-p$P-$pf" --platform $pf --procs $P --op alltoall --nbhd moore \
                    --dims "$d" --radius 1 --bytes "$b" --algos $algos --reps 1 $warm
            done
        done
    done
}

# Placement: the 3-D Moore alltoall at 8 B on the torus with each node's
# 16 ranks on a compact 4x2x2 sub-box of the grid (nhood-sim --place box),
# as a reorder=1 layout fitted to the nodes would place them, beside block
# placement (scale-moore-d3r1-*).  Not the dragonfly: its 24 ranks per node
# make no box of a 2^k-rank grid.
placement() {
    for P in 1024 2048 4096; do
        $1 "place-moore-d3r1-p$P-torus" --platform torus --procs $P --op alltoall --nbhd moore \
            --dims 3 --radius 1 --bytes 8 --algos auto,direct,torus,torus_direct,bruck --reps 1 \
            --place box
    done
}

# Two dragonfly groups at 4096 ranks (platforms/dragonfly2g.xml, 96-node
# groups): all traffic between them crosses one router pair, as between the
# groups of platforms/dragonfly.xml at 16384 ranks.  The harness's held end
# and the cost model's tier3_gateway (docs/simulation.md).
groups() {
    $1 "groups-moore-d3r1-p4096-dragonfly2g" --platform dragonfly2g --procs 4096 --op alltoall \
        --nbhd moore --dims 3 --radius 1 --bytes 8 --algos auto,direct,torus,torus_direct,bruck --reps 1
}

if [ "$learn_only" -eq 1 ] && [ "$report_only" -eq 0 ]; then
    experiments learn
elif [ "$auto_only" -eq 1 ] && [ "$report_only" -eq 0 ]; then
    experiments auto
    scale auto
    groups auto
elif [ "$report_only" -eq 0 ]; then
    if [ "$bruck_only" -eq 0 ]; then
        experiments exp
        experiments auto
        nonblocking
        boxhalo
        scale exp
        placement exp
        groups exp
    fi
    experiments bruck
fi
"$here/sim-report.sh" "$out"
"$here/sim-bruck-report.sh" "$out" >"$out/bruck.md"
"$here/plot-scale.sh" "$out" >/dev/null
