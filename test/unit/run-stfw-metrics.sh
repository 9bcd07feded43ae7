#!/bin/sh
# nhood-stfw-metrics without MPI: delivery of every STFW dimension's
# schedules for all parts simulated (--verify) on generated power-law
# matrices up to K = 4096; at K = 256 STFW4's largest message count must be
# at most 0.15 of the baseline's (the paper's Table 2 regime) and volumes
# must grow with the dimension; the node-aware placement (--ppn) delivers
# too; bad arguments are refused.
: "${TOP_BUILDDIR:=.}"
tool=$TOP_BUILDDIR/nhood-stfw-metrics
pass=0
fail=0
# check NAME STATUS: one TAP result (make check's tap-driver.sh).
check() {
    if [ "$2" = 0 ]; then pass=$((pass + 1)); echo "ok $((pass + fail)) - $1"; else
        fail=$((fail + 1)); echo "not ok $((pass + fail)) - $1"; fi
}
out=$("$tool" --matrix powerlaw:65536:8:2.0:4 --procs 256 --verify --csv)
check "K=256 all dimensions deliver" "$?"
bl=$(echo "$out" | awk -F, '$1 == "BL" { print $3 }')
s4=$(echo "$out" | awk -F, '$1 == "STFW4" { print $3 }')
check "K=256 STFW4 mmax $s4 <= 0.15 x BL mmax $bl" \
    "$(awk -v a="$s4" -v b="$bl" 'BEGIN { exit !(a != "" && b > 0 && a <= 0.15 * b) }'; echo $?)"
check "K=256 volume grows with the dimension" \
    "$(echo "$out" | awk -F, '/^(BL|STFW)/ { if (n++ && $5 + 0 < last) bad = 1; last = $5 } END { exit bad || n != 8 }'; echo $?)"
out=$("$tool" --matrix powerlaw:262144:6:2.2:2 --procs 4096 --dims-max 12 --verify --csv)
check "K=4096 dimensions 2..12 deliver" "$?"
check "K=4096 rows" "$(echo "$out" | grep -c '^STFW.*,ok' | grep -qx 11; echo $?)"
out=$("$tool" --matrix powerlaw:20000:8:2.2:0 --procs 128 --ppn 16 --verify --csv)
check "K=128, 16 per node: node-aware VPTs deliver" "$?"
check "K=128, 16 per node: every VPT node-aware" "$(echo "$out" | grep -c '^STFW[0-9]*,[0-9x]*+node,.*,ok' | grep -qx 6; echo $?)"
out=$("$tool" --matrix rmat:12:8:3 --procs 1000 --verify --csv)
check "K=1000 (not a power of two) delivers" "$?"
out=$("$tool" --matrix rmat:10:8:3 --procs 97 --op allgather --verify --csv)
check "K=97 (prime: baseline only) allgather" "$?"
"$tool" --matrix powerlaw:1000:4:2.0 --procs 0 >/dev/null 2>&1
check "--procs 0 refused" "$([ $? -eq 2 ]; echo $?)"
"$tool" --matrix powerlaw:1000:4:2.0 --procs 8 --ppn 0 >/dev/null 2>&1
check "--ppn 0 refused" "$([ $? -eq 2 ]; echo $?)"
"$tool" --matrix nonsense:1 --procs 4 >/dev/null 2>&1
check "bad matrix spec refused" "$([ $? -eq 2 ]; echo $?)"
# the cost model (--bytes): a time per scheme and auto's choice, which
# follows the model: STFW at 32 B on the latency-bound matrix at 512 ranks,
# one message per neighbor once the bytes dominate
out=$("$tool" --matrix powerlaw:20000:8:2.2:0 --procs 512 --ppn 16 --bytes 32 --model-only --csv)
check "--bytes: a model time on every row" \
    "$(echo "$out" | awk -F, '/^(BL|STFW|AGG)/ { n++; if ($9 + 0 <= 0) bad = 1 } END { exit bad || n != 10 }'; echo $?)"
check "--bytes 32: auto stores and forwards" "$(echo "$out" | grep -q '^# auto: stfw:[0-9]'; echo $?)"
out=$("$tool" --matrix powerlaw:20000:8:2.2:0 --procs 512 --ppn 16 --bytes 32 --model-only --csv \
    --set fwd=1)
check "--set fwd=1: auto keeps one message per neighbor" "$(echo "$out" | grep -q '^# auto: pmpi'; echo $?)"
cost=$(mktemp)
printf 'nhood-cost 2\nfingerprint.ranks = 4\nstage = 1000  # a comment\n' >"$cost"
out=$("$tool" --matrix powerlaw:20000:8:2.2:0 --procs 512 --bytes 32 --model-only --csv --cost "$cost")
check "--cost: a file's stage of 1 ms keeps one message per neighbor" \
    "$(echo "$out" | grep -q '^# auto: pmpi'; echo $?)"
printf 'stage = fast\n' >"$cost"
"$tool" --matrix powerlaw:1000:4:2.0 --procs 8 --bytes 8 --cost "$cost" >/dev/null 2>&1
check "--cost: a malformed value refused" "$([ $? -eq 2 ]; echo $?)"
rm -f "$cost"
"$tool" --matrix powerlaw:1000:4:2.0 --procs 8 --bytes 8 --set nosuch=1 >/dev/null 2>&1
check "--set of an unknown parameter refused" "$([ $? -eq 2 ]; echo $?)"
echo "$pass passed, $fail failed"
echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
