#!/bin/sh
# Calibration against wrong constants (docs/tuning.md): fits the cost
# model to this machine with nhood-calibrate, then runs the
# never-slower-than-native sweep (scripts/run-sweep.sh) twice: under
# deliberately wrong constants, and under the calibrated file (with no
# NHOOD_COST_* set).  Writes OUT/site.cost, OUT/sweep-wrong.csv and
# OUT/sweep-calibrated.csv and prints both worst ratios.
# Usage: scripts/run-tuning-bench.sh [NP] [REPS] [TRIES]
# Environment: WRONG (the wrong constants, default below), OUT (default
# results/tuning), CALIBRATE (default ./nhood-calibrate), and what
# run-sweep.sh reads (MPIEXEC, NHOOD_LIB, BENCH).
set -e
np=${1:-2}
reps=${2:-1000}
tries=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-results/tuning}
# Constants from a machine whose datatype engine is free and whose MPI
# sends everything eagerly, with expensive phases and free messages:
# auto then sends blocks as struct datatypes in one unsplit message.
wrong=${WRONG:-"NHOOD_COST_ALPHA=20 NHOOD_COST_O=0.001 NHOOD_COST_O_RECV=0.001 NHOOD_COST_GATHER_SMALL=0 NHOOD_COST_DELTA=0 NHOOD_COST_EAGER=1000000000"}
mkdir -p "$out"
for v in $(env | sed -n 's/^\(NHOOD_COST_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
"$here/nhood-run" -np "$np" "${CALIBRATE:-./nhood-calibrate}" -o "$out/site.cost"
echo "== sweep under wrong constants: $wrong"
env $wrong OUT="$out/wrong" sh "$here/run-sweep.sh" "$np" "$reps" "$tries" | tail -n 1
echo "== sweep under $out/site.cost"
NHOOD_COST_FILE="$out/site.cost" OUT="$out/calibrated" sh "$here/run-sweep.sh" "$np" "$reps" "$tries" |
    tail -n 1
cp "$out/wrong/sweep.csv" "$out/sweep-wrong.csv"
cp "$out/calibrated/sweep.csv" "$out/sweep-calibrated.csv"
for f in wrong calibrated; do
    awk -F, -v f="$f" 'NR > 1 && $10 > w { w = $10; r = $1 " " $6 " B " $7 } END { printf "%s: worst ratio %.3f (%s)\n", f, w, r }' "$out/sweep-$f.csv"
done
