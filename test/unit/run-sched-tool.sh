#!/bin/sh
# nhood-sched at scale: every algorithm's schedules for all ranks are
# simulated (--verify) and must pass; rows and counts are checked against
# the paper's formulas for 3-D Moore r=1 (D = 6 messages, V = 54 blocks);
# bruck's rounds against the log-round bound ceil(log2(s+1)) + 1 for 3-D
# Moore r = 1, 2, 3 (6, 8, 10): one port meets it for r = 1 and 3 (one
# message per round) and takes 9 for r = 2; two ports meet it for all;
# with k ports the bound is ceil(log_{k+1}(s+1)) + 1: 3 ports at r = 2 and
# 4 ports at r = 3 meet it (5) only where two dimensions share a shift phase;
# --ppn's node figures on a small torus.
: "${TOP_BUILDDIR:=.}"
tool=$TOP_BUILDDIR/nhood-sched
pass=0
fail=0
# check NAME STATUS: one TAP result (make check's tap-driver.sh).
check() {
    if [ "$2" = 0 ]; then pass=$((pass + 1)); echo "ok $((pass + fail)) - $1"; else
        fail=$((fail + 1)); echo "not ok $((pass + fail)) - $1"; fi
}
out=$("$tool" --nbhd moore --dims 3 --radius 1 --procs 512 --verify --no-header)
check "moore d3 r1 at 512 verified" "$(echo "$out" | grep -c ',yes$' | grep -qx 22; echo $?)"
check "moore d3 r1 torus: 3 rounds, 6 messages, 54 blocks" \
    "$(echo "$out" | grep -q '^moore,3,1,512,8x8x8,1,alltoall,torus,26,3,6,54,' ; echo $?)"
check "moore d3 r1 allgather trie: 26 blocks" \
    "$(echo "$out" | grep -q '^moore,3,1,512,8x8x8,1,allgather,torus,26,3,6,26,' ; echo $?)"
# bruck NAME ROW-PREFIX ROUNDS-MAX: a verified row with at most that many
# rounds; one port: as many messages as rounds.
bruck() {
    row=$(echo "$out" | grep "^$2,") || { check "$1 (no row)" 1; return; }
    rounds=$(echo "$row" | cut -d, -f10)
    msgs=$(echo "$row" | cut -d, -f11)
    case "$2" in *bruck) [ "$msgs" = "$rounds" ] || { check "$1 ($msgs messages, $rounds rounds)" 1; return; } ;; esac
    check "$1 ($rounds rounds, at most $3)" "$(echo "$row" | grep -q ',yes$' && [ "$rounds" -le "$3" ]; echo $?)"
}
for op in alltoall allgather; do
    bruck "moore d3 r1 $op bruck" "moore,3,1,512,8x8x8,1,$op,bruck" 6
    bruck "moore d3 r1 $op bruck:2" "moore,3,1,512,8x8x8,1,$op,bruck:2" 6
done
for r in 2 3; do
    out=$("$tool" --nbhd moore --dims 3 --radius $r --procs 512 --verify --no-header)
    bound=$([ $r = 2 ] && echo 8 || echo 10)
    for op in alltoall allgather; do
        bruck "moore d3 r$r $op bruck" "moore,3,$r,512,8x8x8,1,$op,bruck" $([ $r = 2 ] && echo 9 || echo 10)
        bruck "moore d3 r$r $op bruck:2" "moore,3,$r,512,8x8x8,1,$op,bruck:2" $bound
    done
done
for rk in 2:3 3:4; do
    r=${rk%:*} k=${rk#*:}
    out=$("$tool" --nbhd moore --dims 3 --radius $r --procs 512 --ports $k --verify --no-header)
    for op in alltoall allgather; do
        bruck "moore d3 r$r $op bruck:$k" "moore,3,$r,512,8x8x8,1,$op,bruck:$k" 5
    done
done
out=$("$tool" --nbhd octant --dims 3 --radius 2 --procs 216 --mesh --verify --no-header)
check "octant d3 r2 mesh at 216 verified" "$(echo "$out" | grep -c ',yes$' | grep -qx 22; echo $?)"
out=$("$tool" --nbhd shales --dims 2 --radius 1 --procs 100 --verify --no-header)
check "shales d2 at 100 verified" "$(echo "$out" | grep -c ',yes$' | grep -qx 22; echo $?)"
# --ppn: rows of 4 ranks per node on a 4x4 torus put 6 of 8 neighbors off
# the node (24 blocks per node); a process count per node below 1 is refused.
out=$("$tool" --nbhd moore --dims 2 --radius 1 --procs 16 --ppn 4 --no-header)
check "moore d2 r1, 4 ranks per node: direct leaves nodes in 1 phase, 24 blocks" \
    "$(echo "$out" | grep -q '^moore,2,1,16,4x4,1,alltoall,direct,.*,4,1,24,[0-9.]*$' ; echo $?)"
# --cost: each schedule priced with a cost file over its network, MPI's
# own exchange beside direct's row only; a cost file that cannot be read,
# or --cost without --ppn, is refused.
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$("$tool" --nbhd moore --dims 3 --radius 1 --procs 1024 --ppn 24 --cost "$top/platforms/dragonfly.cost" \
    --bytes 512 --no-header)
check "--cost: a price on every row, MPI's own on direct's" "$(echo "$out" | awk -F, '
    $8 == "direct" && !($21 > 0 && $22 > 0) { bad = 1 }
    $8 != "direct" && !($21 > 0 && $22 == "") { bad = 1 }
    $20 != 512 { bad = 1 }
    END { exit bad || NR != 22 }'; echo $?)"
check "--cost without --ppn refused" "$("$tool" --procs 64 --cost "$top/platforms/dragonfly.cost" >/dev/null 2>&1; [ $? -eq 2 ]; echo $?)"
check "--cost of a missing file refused" "$("$tool" --procs 64 --ppn 8 --cost /nonexistent 2>&1 >/dev/null | grep -q 'cannot read the cost file'; echo $?)"
check "--ppn 0 refused" "$("$tool" --nbhd moore --dims 2 --procs 16 --ppn 0 >/dev/null 2>&1; [ $? -eq 2 ]; echo $?)"
echo "$pass passed, $fail failed"
echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
