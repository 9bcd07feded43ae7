#!/bin/sh
# Calibration and learning against wrong constants (docs/tuning.md): fits
# the cost model to this machine with nhood-calibrate, then runs the
# never-slower-than-native sweep (scripts/run-sweep.sh) three times: under
# each of two deliberately wrong sets of constants, which err in opposite
# directions, with every forced choice timed beside it (FORCED=1), and
# under the calibrated file (with no NHOOD_COST_* set).  All under the
# defaults, learning included.  Writes OUT/site.cost,
# OUT/sweep-wrong.csv, OUT/sweep-wrong2.csv and OUT/sweep-calibrated.csv
# and prints the worst ratios.
# Usage: scripts/run-tuning-bench.sh [NP] [REPS] [TRIES]
# Environment: WRONG and WRONG2 (the wrong constants, defaults below),
# OUT (default results/tuning), CALIBRATE (default ./nhood-calibrate;
# CALIBRATE=none skips the fit and its sweep), and what run-sweep.sh reads
# (MPIEXEC, NHOOD_LIB, BENCH).
set -e
np=${1:-2}
reps=${2:-1000}
tries=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-results/tuning}
# "Dear phases": a machine whose datatype engine is free and whose MPI
# sends everything eagerly, with expensive phases and free messages: the
# model then sends blocks as struct datatypes in one unsplit message.
wrong=${WRONG:-"NHOOD_COST_ALPHA=20 NHOOD_COST_O=0.001 NHOOD_COST_O_RECV=0.001 NHOOD_COST_GATHER_SMALL=0 NHOOD_COST_DELTA=0 NHOOD_COST_EAGER=1000000000"}
# "Dear messages", the other way: free phases and copies, expensive
# messages and struct datatypes, a tiny eager limit: the model then packs
# everything, splits it into 64-byte messages and forwards where it can.
wrong2=${WRONG2:-"NHOOD_COST_ALPHA=0 NHOOD_COST_O=20 NHOOD_COST_O_RECV=20 NHOOD_COST_PACK=0 NHOOD_COST_GAMMA=0 NHOOD_COST_GATHER=0.1 NHOOD_COST_GATHER_SMALL=0.1 NHOOD_COST_DELTA=10 NHOOD_COST_EAGER=64 NHOOD_COST_RNDV=0"}
mkdir -p "$out"
for v in $(env | sed -n 's/^\(NHOOD_COST_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
sets="wrong wrong2"
if [ "${CALIBRATE:-}" != none ]; then
    "$here/nhood-run" -np "$np" "${CALIBRATE:-./nhood-calibrate}" -o "$out/site.cost"
    sets="$sets calibrated"
fi
for f in $sets; do
    case $f in
    wrong) echo "== sweep under the first wrong constants (dear phases): $wrong"
        env $wrong FORCED=1 OUT="$out/$f" sh "$here/run-sweep.sh" "$np" "$reps" "$tries" | grep -E '^(worst|plot:)' ;;
    wrong2) echo "== sweep under the second wrong constants (dear messages): $wrong2"
        env $wrong2 FORCED=1 OUT="$out/$f" sh "$here/run-sweep.sh" "$np" "$reps" "$tries" | grep -E '^(worst|plot:)' ;;
    calibrated) echo "== sweep under $out/site.cost"
        NHOOD_COST_FILE="$out/site.cost" OUT="$out/$f" sh "$here/run-sweep.sh" "$np" "$reps" "$tries" |
            grep -E '^(worst|plot:)' ;;
    esac
    cp "$out/$f/sweep.csv" "$out/sweep-$f.csv"
done
for f in $sets; do
    awk -F, -v f="$f" 'NR > 1 && $10 > w { w = $10; r = $1 " " $6 " B" }
        NR > 1 && NF >= 13 && $13 > x { x = $13; q = $1 " " $6 " B, " $11 }
        NR > 1 && NF >= 17 && $17 > y { y = $17; u = $1 " " $6 " B, " $15 }
        END { printf "%s: worst ratio %.3f (%s)", f, w, r
              if (x) printf "; against the fastest forced choice %.3f (%s)", x, q
              if (y) printf "; alike forced graphs as one %.3f (%s)", y, u
              printf "\n" }' "$out/sweep-$f.csv"
done
