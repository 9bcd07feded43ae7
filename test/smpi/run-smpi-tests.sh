#!/bin/sh
# make check-smpi: nhood under SimGrid SMPI (the SMPI build, build-smpi/).
#  - test_neighbor (the MPI test of make check) at 8 ranks with every
#    NHOOD_ALGO and at 27 ranks (3x3x3 torus: multi-hop schedules) with the
#    torus algorithms, on the flat platform;
#  - the harness's synchronized start and quiet end (test_sync);
#  - the platforms give the latencies their files document (ping-pong);
#  - nhood-sim end to end: results checked against native inside the run,
#    native = direct on distinct neighbors, message combining wins at 8 B,
#    auto's node terms, in-place alltoallv against MPICH's order, the SpMV
#    halo exchange of a generated matrix, forced store-and-forward
#    (schedules built on rank 0);
#  - scripts/plot-scale.sh's choice of auto's rows, box-node-bytes.py's
#    counts.
# Prints "N passed, N failed".
: "${NHOOD_SMPI_DIR:=build-smpi}"
top=$(cd "$(dirname "$0")/../.." && pwd)
sim=$top/scripts/nhood-sim
export NHOOD_SMPI_DIR
log=${TMPDIR:-/tmp}/nhood-smpi-test.$$
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok $pass $1"; }
bad() { fail=$((fail + 1)); echo "not ok $1"; sed 's/^/    /' "$log.err" | tail -15; }
trap 'rm -f "$log".*' EXIT

if ! command -v "${SMPIRUN:-smpirun}" >/dev/null 2>&1; then
    echo "smpirun not found: install SimGrid (sh scripts/install-deps.sh --smpi)"
    exit 1
fi

# smpi NP VAR=VAL... -- PROGRAM ARGS: runs a program of the SMPI build on
# the flat platform, one rank per node.
smpi() {
    np=$1
    shift
    vars=""
    while [ "$1" != -- ]; do vars="$vars $1"; shift; done
    shift
    # analyzed at creation, as the tests look right after it, and the cost
    # model's choices (the tiers: test/mpi/harness.sh)
    for v in NHOOD_WARMUP NHOOD_AUTOTUNE; do
        case " $vars" in *" $v="*) ;; *) vars="$vars $v=0" ;; esac
    done
    awk -v n="$np" 'BEGIN { for (i = 0; i < n; i++) printf "node-%d\n", i }' >"$log.hosts"
    # shellcheck disable=SC2086
    env $vars timeout 600 "${SMPIRUN:-smpirun}" -np "$np" -hostfile "$log.hosts" \
        -platform "$top/platforms/flat.xml" --cfg=smpi/tmpdir:"${TMPDIR:-/tmp}" \
        --log=root.thres:critical "$NHOOD_SMPI_DIR/$@" >"$log.out" 2>"$log.err"
}

# 1. The MPI test suite's test_neighbor, compared against point-to-point
#    references and the linear PMPI of the SMPI layer.
for algo in auto direct torus torus_direct bruck pmpi; do
    name="smpi test_neighbor np=8 NHOOD_ALGO=$algo"
    if smpi 8 NHOOD_ALGO=$algo NHOOD_FALLBACK=silent -- test_neighbor &&
        grep -q ' 0 failed' "$log.out"; then ok "$name"; else cat "$log.out" >>"$log.err"; bad "$name"; fi
done
for algo in torus torus_direct bruck; do
    name="smpi test_neighbor np=27 NHOOD_ALGO=$algo"
    if smpi 27 NHOOD_ALGO=$algo NHOOD_FALLBACK=silent -- test_neighbor &&
        grep -q ' 0 failed' "$log.out"; then ok "$name"; else cat "$log.out" >>"$log.err"; bad "$name"; fi
done

# Learning in simulated time (docs/simulation.md): every result through
# the trials equals the reference, every rank keeps the same choice, and
# the agreements name the candidates with their simulated times.
name="smpi test_autotune np=8 NHOOD_AUTOTUNE=1: learns in simulated time"
if smpi 8 NHOOD_AUTOTUNE=1 NHOOD_REPORT=1 -- test_autotune && grep -q ' 0 failed' "$log.out" &&
    [ "$(grep -Ec '^nhood: autotune comm=[0-9]+ op=(alltoall|allgather) bytes=[0-9]+ algorithm=[a-z_/]+ times_us=[a-z_/]+:[0-9.]+,' "$log.err")" -eq 3 ]; then
    ok "$name"
else
    cat "$log.out" >>"$log.err"
    bad "$name"
fi

# The harness's measurement window (src/smpi/sync.h): one start instant,
# no rank sending again before the slowest rank's call is over.
name="smpi test_sync np=8: synchronized start, quiet hold to the slowest rank's end"
if smpi 8 -- test_sync && grep -q ' 0 failed' "$log.out"; then ok "$name"; else
    cat "$log.out" >>"$log.err"
    bad "$name"
fi

# 2. Platform sanity: the one-way latencies the platform files document.
check_pingpong() { # PLATFORM PPN BETWEEN WITHIN (us, 8 B)
    "$sim" --calibrate --pingpong --platform "$1" --ppn "$2" >"$log.out" 2>"$log.err" &&
        awk -v b="$3" -v w="$4" '/ping-pong +8 B/ {
            gsub(/[^0-9. ]/, " "); split($0, f, " ");
            found = 1; ok = (f[2] - b) ^ 2 < 1e-4 && (f[3] - w) ^ 2 < 1e-4 }
            END { exit !(found && ok) }' "$log.out"
}
for pf in "flat 16 1.002 0.353" "torus 16 1.106 1.053" "dragonfly 24 0.905 0.653"; do
    set -- $pf
    name="platform $1: 8 B one-way latency $3 us between nodes, $4 us within"
    if check_pingpong "$@"; then ok "$name"; else cat "$log.out" >>"$log.err"; bad "$name"; fi
done

# 3. nhood-sim end to end (flat, 64 ranks, 3-D Moore r=1).
name="nhood-sim alltoall moore d=3 r=1, 64 ranks: correct, direct = native, combining wins at 8 B"
if "$sim" --platform flat --procs 64 --ppn 4 --op alltoall --nbhd moore --dims 3 --radius 1 \
    --bytes 8 >"$log.out" 2>"$log.err" &&
    awk -F, 'NR > 1 { n++
        if ($7 == "direct" && $9 != $8) bad = "direct differs from native"
        if ($7 == "torus" && $10 >= 0.6) bad = "torus ratio " $10
        if ($7 ~ /^auto:/ && $10 >= 0.6) bad = "auto ratio " $10
        if ($12 < 1 || $13 < 1) bad = "no schedule statistics" }
        END { if (bad) print bad > "/dev/stderr"; exit !(n == 4 && !bad) }' "$log.out"; then
    ok "$name"
else cat "$log.out" >>"$log.err"; bad "$name"; fi

# src/smpi/sgfast.c, preloaded by nhood-sim: it indexes SimGrid's list of
# eager messages (says how many at exit) and changes no simulated time:
# the same CSV without it (NHOOD_SIM_SGFAST=0, which also drops its line).
# On the dragonfly, whose cost file prices tiers, not rings.
name="nhood-sim with SimGrid's eager list indexed: the same times as without, messages indexed"
if [ -f "$NHOOD_SMPI_DIR/libnhood-sgfast.so" ] &&
    "$sim" --platform dragonfly --procs 96 --op alltoall --nbhd moore --dims 3 --radius 1 \
        --bytes 8,512 --algos auto,direct,torus,bruck >"$log.out" 2>"$log.err" &&
    NHOOD_SIM_SGFAST=0 "$sim" --platform dragonfly --procs 96 --op alltoall --nbhd moore --dims 3 \
        --radius 1 --bytes 8,512 --algos auto,direct,torus,bruck >"$log.out0" 2>"$log.err0" &&
    cmp -s "$log.out" "$log.out0" && [ "$(wc -l <"$log.out")" -eq 9 ] &&
    grep -Eq '^nhood-sgfast: [1-9][0-9]* eager messages indexed, [1-9][0-9]* finish' "$log.err" &&
    ! grep -q 'nhood-sgfast' "$log.err0" && ! grep -q 'nhood-sgfast: off' "$log.err"; then
    ok "$name"
else cat "$log.out" "$log.out0" "$log.err0" >>"$log.err" 2>/dev/null; bad "$name"; fi

# The cost model's node terms (platforms/flat.cost: NHOOD_COST_NODE/LINK):
# on a 24x20 grid, 16 ranks per node, both torus phases leave nodes and
# direct (2.41 us) beats torus (2.73 us) at 64 B; without the terms auto
# takes torus, as the training grid (16x16, one row per node) suggests.
# One phase of one message per neighbor: MPI's own exchange, which wins
# the tie with direct (the same messages).
name="nhood-sim node terms: auto takes one phase (pmpi) for 2-D Moore at 64 B, 480 ranks (torus without them)"
if "$sim" --platform flat --procs 480 --op alltoall --nbhd moore --dims 2 --radius 1 --bytes 64 \
    --algos auto --no-native >"$log.out" 2>"$log.err" && grep -Eq ',auto:(pmpi|direct),' "$log.out" &&
    NHOOD_COST_NODE=0 NHOOD_COST_LINK=0 "$sim" --platform flat --procs 480 --op alltoall --nbhd moore \
        --dims 2 --radius 1 --bytes 64 --algos auto --no-native >"$log.out" 2>>"$log.err" &&
    grep -q ',auto:torus,' "$log.out"; then
    ok "$name"
else cat "$log.out" >>"$log.err"; bad "$name"; fi

# 5-D Moore on 32 ranks (2x2x2x2x2: -1 and +1 name the same neighbor) is
# detected (inferred grids go up to 8 dimensions) and auto runs a
# combining schedule on it (results checked inside the run).
name="nhood-sim alltoall moore d=5, 32 ranks, detected: auto combines messages"
if "$sim" --platform flat --procs 32 --op alltoall --nbhd moore --dims 5 --radius 1 --bytes 8 \
    --algos auto >"$log.out" 2>"$log.err" && grep -Eq ',auto:(torus|torus_direct|bruck),' "$log.out"; then
    ok "$name"
else cat "$log.out" >>"$log.err"; bad "$name"; fi

name="nhood-sim allgather octant d=3 r=1, 27 ranks, 8 and 4096 B"
if "$sim" --platform torus --procs 27 --ppn 1 --op allgather --nbhd octant --dims 3 --radius 1 \
    --bytes 8,4096 >"$log.out" 2>"$log.err" && [ "$(wc -l <"$log.out")" -eq 9 ]; then
    ok "$name"
else cat "$log.out" >>"$log.err"; bad "$name"; fi

name="nhood-sim inplace_alltoallv 16 ranks on 4 nodes: auto, lsa and hsa match MPICH's order and take fewer steps; auto is hsa"
if "$sim" --platform dragonfly --procs 16 --ppn 4 --op inplace_alltoallv --bytes 65536 \
    >"$log.out" 2>"$log.err" &&
    awk -F, 'NR > 1 { n++; if ($12 >= 31) bad = 1 } END { exit !(n == 3 && !bad) }' "$log.out" &&
    grep -q '^inplace_alltoallv,-,0,0,16,65536,auto:hsa,' "$log.out"; then
    ok "$name"
else cat "$log.out" >>"$log.err"; bad "$name"; fi

# auto's in-place order from the node layout: lsa on two nodes split at p/2
# (16 ranks, 8 per node), where it is the faster order, with lsa's time;
# hsa on two nodes split elsewhere (12 ranks, 8 + 4) and on four.
name="nhood-sim inplace_alltoallv auto: lsa on two nodes of 8, hsa on 8 + 4 and on 4 nodes"
if "$sim" --platform flat --procs 16 --ppn 8 --op inplace_alltoallv --bytes 2097152 \
    >"$log.out" 2>"$log.err" &&
    "$sim" --platform flat --procs 12 --ppn 8 --op inplace_alltoallv --bytes 2097152 --algos auto \
    --no-header >>"$log.out" 2>>"$log.err" &&
    "$sim" --platform flat --procs 32 --ppn 8 --op inplace_alltoallv --bytes 65536 --algos auto \
    --no-header >>"$log.out" 2>>"$log.err" &&
    awk -F, '$5 == 16 { t[$7] = $9 } $5 == 12 { a12 = $7 } $5 == 32 { a32 = $7 }
        END { exit !(t["auto:lsa"] != "" && t["auto:lsa"] == t["lsa"] && t["lsa"] < t["hsa"] &&
                     a12 == "auto:hsa" && a32 == "auto:hsa") }' "$log.out"; then
    ok "$name"
else cat "$log.out" >>"$log.err"; bad "$name"; fi

name="nhood-sim alltoallv and alltoallw: correct, every algorithm, combining wins at 8 B"
if "$sim" --platform flat --procs 16 --ppn 1 --op alltoallv --nbhd moore --dims 2 \
    --bytes 8 >"$log.out" 2>"$log.err" && "$sim" --platform flat --procs 16 --ppn 1 --op alltoallw \
    --nbhd moore --dims 2 --bytes 8 --no-header >>"$log.out" 2>>"$log.err" &&
    awk -F, 'NR > 1 { n++; if ($7 == "torus" && $10 < 1) win[$1] = 1 } END { exit !(n == 8 && win["alltoallv"] && win["alltoallw"]) }' "$log.out"; then
    ok "$name"
else cat "$log.out" >>"$log.err"; bad "$name"; fi

name="nhood-sim spmv: halo exchange of a generated matrix, 16 ranks, checked against native"
if "$sim" --platform flat --procs 16 --ppn 4 --op spmv --matrix powerlaw:4096:8:2.1:1 \
    >"$log.out" 2>"$log.err" && grep -q '^spmv,powerlaw:4096:8:2.1:1,0,0,16,[0-9]*,auto:' "$log.out" &&
    grep -q 'mmax 15, mavg' "$log.err"; then
    ok "$name"
else cat "$log.out" >>"$log.err"; bad "$name"; fi

# Store-and-forward under SMPI: rank 0 builds every rank's schedule and
# hands them out (src/plan/stfw_setup.c, build_on_0); results, native's
# too, are checked against the values each rank computes for its messages
# (poisoned receive buffer) inside the run, which exits 1 on a mismatch;
# with --no-native native does not run.
name="nhood-sim spmv forced stfw:2 and stfw:4, 16 ranks, --warmup 0 (with and without native)"
if "$sim" --platform flat --procs 16 --ppn 4 --op spmv --matrix powerlaw:4096:8:2.1:1 \
    --algos stfw:2,stfw:4 --reps 1 --warmup 0 >"$log.out" 2>"$log.err" &&
    grep -q '^spmv,powerlaw:4096:8:2.1:1,0,0,16,[0-9]*,stfw:2,[0-9.]*,[0-9.]*,[0-9.]*,flat,2,' "$log.out" &&
    grep -q '^spmv,powerlaw:4096:8:2.1:1,0,0,16,[0-9]*,stfw:4,[0-9.]*,[0-9.]*,[0-9.]*,flat,4,' "$log.out" &&
    "$sim" --platform flat --procs 16 --ppn 4 --op spmv --matrix powerlaw:4096:8:2.1:1 \
        --algos stfw:2 --reps 1 --warmup 0 --no-native >"$log.out" 2>>"$log.err" &&
    grep -q ',stfw:2,0.000,' "$log.out"; then
    ok "$name"
else cat "$log.out" >>"$log.err"; bad "$name"; fi

# Node aggregation (stfw:agg) on 4 nodes of 4, checked inside the run.
name="nhood-sim spmv forced stfw:agg, 16 ranks on 4 nodes"
if "$sim" --platform flat --procs 16 --ppn 4 --op spmv --matrix powerlaw:4096:8:2.1:1 \
    --algos stfw:agg --reps 1 >"$log.out" 2>"$log.err" &&
    grep -q '^spmv,powerlaw:4096:8:2.1:1,0,0,16,[0-9]*,stfw:agg,[0-9.]*,[0-9.]*,[0-9.]*,flat,3,' "$log.out"; then
    ok "$name"
else cat "$log.out" >>"$log.err"; bad "$name"; fi

# The nonblocking exchange (start, compute, wait; simbench_ispmv.c): with
# no computation auto takes what a blocking call takes (store-and-forward,
# made to win here by a per-message cost), with 100 ms of computation
# MPI's own exchange; every result checked inside the run.
name="nhood-sim spmv --window-us 0 and 100000, 16 ranks: auto forwards only without a window"
if NHOOD_COST_O=20 "$sim" --platform flat --procs 16 --ppn 4 --op spmv --matrix powerlaw:4096:8:2.1:1 \
    --reps 1 --window-us 0 >"$log.out" 2>"$log.err" &&
    grep -q '^ispmv,powerlaw:4096:8:2.1:1,0.000,16,[0-9]*,auto:stfw:[0-9agr]*,' "$log.out" &&
    NHOOD_COST_O=20 "$sim" --platform flat --procs 16 --ppn 4 --op spmv --matrix powerlaw:4096:8:2.1:1 \
        --reps 1 --window-us 100000 >"$log.out" 2>>"$log.err" &&
    grep -q '^ispmv,powerlaw:4096:8:2.1:1,[0-9.]*,16,[0-9]*,auto:pmpi,' "$log.out"; then
    ok "$name"
else cat "$log.out" >>"$log.err"; bad "$name"; fi

# Box-stencil halos on a non-periodic 3x3x3 grid without a hint (v and w,
# n = 4 and 32: faces, edges and corners of different sizes; split routes
# at both sizes), every result checked inside the run; auto combines.
for op in alltoallv alltoallw; do
    name="nhood-sim $op --box --mesh, 27 ranks: correct, auto combines"
    if "$sim" --platform flat --procs 27 --op $op --box --mesh --bytes 4,32 \
        --algos auto,direct,torus,torus_direct --reps 1 >"$log.out" 2>"$log.err" &&
        grep -Eq "^$op,moore-box-mesh,3,1,27,4,auto:(torus|torus_direct)," "$log.out" &&
        grep -Eq "^$op,moore-box-mesh,3,1,27,32,torus," "$log.out"; then
        ok "$name"
    else cat "$log.out" >>"$log.err"; bad "$name"; fi
done

# Split routes between nodes: on the torus platform (cost file with its
# links) a box halo's faces of 8 KiB go alone, their messages spread over
# the node's six links; forwarded in the three phases they load two at a
# time and the call takes 1.9x MPI's own exchange (128 ranks, 8 nodes).
name="nhood-sim alltoallv --box --mesh on torus, 128 ranks, n = 32: split torus no slower than MPI's own"
if "$sim" --platform torus --procs 128 --op alltoallv --box --mesh --bytes 32 --algos torus \
    --reps 1 >"$log.out" 2>"$log.err" &&
    awk -F, '$1 == "alltoallv" && $7 == "torus" { found = 1; if ($10 > 1.0) bad = 1 }
        END { exit !(found && !bad) }' "$log.out"; then
    ok "$name"
else cat "$log.out" >>"$log.err"; bad "$name"; fi

# Node boxes (--place box): the grid's ranks reordered so that each node's
# 16 hold a 4x2x2 box; every result is checked against the expected
# blocks, which follow the reordered ranks, and MPI's own exchange (26
# messages a rank, all leaving the node either way on 4x4x4) keeps its time.
name="nhood-sim --place box: node boxes of 4x2x2 on a 4x4x4 grid, results right, native's time unchanged"
if "$sim" --platform torus --procs 64 --op alltoall --bytes 8 --algos auto,torus --reps 1 \
    --place box >"$log.out" 2>"$log.err" &&
    grep -q 'node boxes of 4x2x2 ranks on a 4x4x4 grid' "$log.err" &&
    grep -q '^alltoall,moore-nodebox,3,1,64,8,auto:' "$log.out" &&
    "$sim" --platform torus --procs 64 --op alltoall --bytes 8 --algos direct --reps 1 \
        >"$log.out2" 2>>"$log.err" &&
    [ "$(awk -F, 'NR == 2 { print $8 }' "$log.out")" = "$(awk -F, 'NR == 2 { print $8 }' "$log.out2")" ]; then
    ok "$name"
else cat "$log.out" "$log.out2" >>"$log.err"; bad "$name"; fi

# scripts/plot-scale.sh takes auto's row from NAME.auto.csv (auto run
# again after the cost parameters changed) even where a clone left that
# file older than NAME.csv, with its ratio against NAME.csv's native.
name="plot-scale.sh: auto's row from NAME.auto.csv whatever the files' times"
d=$log.scale
mkdir -p "$d"
hdr=op,nbhd,dims,radius,procs,bytes,algorithm,native_us,nhood_us,ratio,platform,rounds,max_msgs,max_volume
printf '%s\n%s\n' "$hdr" alltoall,moore,3,1,1024,8,auto:bruck,0.000,5.000,0.000,torus,2,10,336 \
    >"$d/scale-moore-d3r1-p1024-torus.auto.csv"
printf '%s\n%s\n%s\n' "$hdr" alltoall,moore,3,1,1024,8,direct,20.000,20.000,1.000,torus,1,26,208 \
    alltoall,moore,3,1,1024,8,auto:torus,20.000,6.000,0.300,torus,3,6,504 >"$d/scale-moore-d3r1-p1024-torus.csv"
printf '# simulation took 21 s wall-clock\n# simulation peak memory 987 MiB resident\n' \
    >"$d/scale-moore-d3r1-p1024-torus.log"
touch -d '2020-01-01' "$d/scale-moore-d3r1-p1024-torus.auto.csv"
if sh "$top/scripts/plot-scale.sh" "$d" >"$log.out" 2>"$log.err" &&
    grep -qx 'scale-moore-d3r1-p1024-torus,torus,d3-8,1024,8,auto,20.000,5.000,0.250,21,987,bruck' "$d/scale.csv" &&
    grep -qx 'scale-moore-d3r1-p1024-torus,torus,d3-8,1024,8,direct,20.000,20.000,1.000,21,987,direct' "$d/scale.csv"; then
    ok "$name"
else cat "$d/scale.csv" >>"$log.err"; bad "$name"; fi
rm -rf "$d"

# scripts/box-node-bytes.py (docs/simulation.md's box halo): on a 2x2x2
# grid of nodes of 2 ranks (the last dimension within a node), 1-double
# blocks, every rank sends 6 of its 7 blocks off its node (96 B a node);
# a corner forwarded dimension by dimension leaves two nodes (+16 B a
# node), an edge across the first two dimensions too (+16 more).
name="box-node-bytes.py: a forwarded block's extra crossings, by route"
if python3 "$top/scripts/box-node-bytes.py" --ppn 2 --n 1 2 2 2 >"$log.out" 2>"$log.err" &&
    grep -qx 'straight,96,96,1.0000' "$log.out" && grep -qx 'corners,112,112,1.1667' "$log.out" &&
    grep -qx 'edges+corners,128,128,1.3333' "$log.out" &&
    ! python3 "$top/scripts/box-node-bytes.py" --ppn 0 2 2 2 >/dev/null 2>&1; then
    ok "$name"
else cat "$log.out" >>"$log.err"; bad "$name"; fi

name="nhood-sim --place box refuses a job of part of a node"
if ! "$sim" --platform torus --procs 24 --op alltoall --place box >"$log.out" 2>"$log.err" &&
    grep -q 'needs whole nodes' "$log.err"; then ok "$name"; else bad "$name"; fi

name="nhood-sim spmv rejects a bad matrix spec, naming the field"
if ! "$sim" --platform flat --procs 4 --op spmv --matrix powerlaw:4096:8:0.5 >"$log.out" 2>"$log.err" &&
    grep -q 'field 3 (EXP)' "$log.err"; then ok "$name"; else bad "$name"; fi

name="nhood-sim rejects a job larger than the platform"
if ! "$sim" --platform flat --procs 100000 --op alltoall >"$log.out" 2>"$log.err" &&
    grep -q 'need more than' "$log.err"; then ok "$name"; else bad "$name"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
