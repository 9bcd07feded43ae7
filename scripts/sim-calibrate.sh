#!/bin/sh
# Fits nhood's cost model to a simulated platform and writes platforms/P.cost:
#   scripts/sim-calibrate.sh [--refit] PLATFORM [PROCS]
# It runs nhood-calibrate, the tool a site runs (docs/tuning.md), under
# SimGrid SMPI on the platform at PROCS ranks (default 256, the platform's
# ranks per node): scripts/nhood-sim --fit.  So the simulated platforms'
# parameters come from the same measurements and the same model
# (src/core/model.h) as a real machine's: ping-pongs (eager limit,
# rendezvous, the node and link terms between nodes), posting and
# exchanges of 1 to 32 messages (send and receive overheads, latency: one
# phase of the model), their sizes (per byte), each three times (the
# spread in the file); then the copies' terms fitted to a training set of
# nhood's own schedules (direct, torus, torus_direct; Moore 2-D and 3-D
# alltoall, 3-D allgather, von Neumann 3-D r=2 alltoall; 8 B to 2 KiB),
# which the platforms charge nothing for.  The calls it measured, training
# and validation, are kept in docs/sim/calibration-PLATFORM.csv.
# --refit: fit again to the calls kept there, without simulating.
# The experiments of docs/simulation.md run at 480 ranks and more, with
# other neighborhoods: the training set is not the test set.  The file's
# host fingerprint is "*": a simulated platform is the same on any host.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
refit=0
[ "${1:-}" = --refit ] && { refit=1; shift; }
pf=${1:?usage: $0 [--refit] PLATFORM [PROCS]}
procs=${2:-256}
out=$top/platforms/$pf.cost
data=$top/docs/sim/calibration-$pf.csv
mkdir -p "$top/docs/sim"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nhood-cal.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

if [ "$refit" -eq 1 ]; then
    [ -f "$data" ] || { echo "$0: --refit needs $data" >&2; exit 2; }
    cal=${NHOOD_CALIBRATE:-$top/nhood-calibrate}
    [ -x "$cal" ] || { echo "$0: $cal not found: build nhood first (make)" >&2; exit 2; }
    "$cal" --refit "$data" -o "$tmp/$pf.cost"
else
    "$here/nhood-sim" --fit "$tmp/$pf.cost" --platform "$pf" --procs "$procs"
    cp "$tmp/$pf.csv" "$data"
fi
{
    sed -n '1,3p' "$tmp/$pf.cost"
    echo "# for platforms/$pf.xml: scripts/sim-calibrate.sh $pf $procs (simulated times); scripts/nhood-sim"
    echo "# uses this file unless the environment names another, NHOOD_COST_* variables win"
    sed -e '1,3d' -e 's/^fingerprint\.host = .*/fingerprint.host = *  # simulated: any host/' "$tmp/$pf.cost"
} >"$out.tmp"
mv "$out.tmp" "$out"
grep -v '^# [a-z].* m=[0-9]*: ' "$out"
