#!/bin/sh
# One forwarding phase alone under SimGrid SMPI (scripts/sim-phase-probe.c):
# the 3-D Moore grid of 4096 ranks (16x16x16, 24 per node) on a platform,
# each rank sending to its x-y neighbours as bruck's (8) or torus's (2)
# first phase does, or the 6 with dx != 0.  docs/simulation.md (two groups)
# compares platforms/dragonfly2g.xml (two groups) with dragonfly.xml (one).
#   scripts/sim-phase-probe.sh PLATFORM 8|6|2 SIZE
set -eu
[ $# -eq 3 ] || { echo "usage: $0 PLATFORM 8|6|2 SIZE" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nhood-probe.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
smpicc -O2 -I"$top/src/smpi" "$here/sim-phase-probe.c" -o "$tmp/probe" 2>/dev/null
awk 'BEGIN { for (r = 0; r < 4096; r++) print "node-" int(r / 24) }' >"$tmp/hosts"
smpirun -np 4096 -hostfile "$tmp/hosts" -platform "$top/platforms/$1.xml" \
    --cfg=smpi/privatization:1 --cfg=smpi/tmpdir:"$tmp" --log=root.thres:critical \
    "$tmp/probe" 16 16 16 "$2" "$3" 2>/dev/null
