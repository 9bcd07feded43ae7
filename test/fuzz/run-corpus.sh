#!/bin/sh
# make check: replays the committed fuzz corpus through each target with
# the normal compiler (test/fuzz/replay.c), so every input that ever
# mattered, and every fixed crash, stays a regression test.
# Prints TAP (one case per target) and "N passed, N failed".
: "${srcdir:=.}"
: "${TOP_BUILDDIR:=.}"
pass=0
fail=0
for t in offsets graph parse costfile tunefile; do
    if out=$("$TOP_BUILDDIR/test/fuzz/replay_$t" "$srcdir/test/fuzz/corpus/$t" 2>&1); then
        pass=$((pass + 1))
        echo "ok $((pass + fail)) - fuzz corpus $t: $out"
    else
        fail=$((fail + 1))
        echo "not ok $((pass + fail)) - fuzz corpus $t"
        echo "$out" | tail -20 | sed 's/^/#     /'
    fi
done
echo "$pass passed, $fail failed"
echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
