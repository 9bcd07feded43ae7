#!/bin/sh
# In-place alltoallv: lsa against hsa (and what auto takes) by node layout,
# simulated with scripts/nhood-sim on the three platforms with 4, 8 and 16
# ranks per node, 2 MiB per rank: the evidence for auto's in-place rule
# (docs/inplace.md).  One CSV on stdout: nhood-sim's columns
# with ppn and nodes appended; every time in it is simulated.
#
#   scripts/sim-inplace-nodes.sh [> docs/sim/layout-inplace.csv]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
echo "op,nbhd,dims,radius,procs,bytes,algorithm,native_us,nhood_us,ratio,platform,rounds,max_msgs,max_volume,ppn,nodes"
for pf in flat torus dragonfly; do
    for ppn in 4 8 16; do
        for p in 8 12 16 24 32 48 64; do
            [ "$p" -gt "$ppn" ] || continue
            "$here/nhood-sim" --platform $pf --ppn $ppn --procs $p --op inplace_alltoallv \
                --bytes 2097152 --reps 1 --no-header --no-native 2>/dev/null |
                awk -v ppn=$ppn -v p=$p '{ print $0 "," ppn "," int((p + ppn - 1) / ppn) }'
        done
    done
done
