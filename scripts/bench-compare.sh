#!/bin/sh
# Compares two builds of libnhood on the standard benchmark rows: for every
# row, one nhood-bench run with each library back to back (native and nhood
# alternating inside each run, as always), so both see the same machine
# state.  Prints op,nbhd,dims,radius,procs,bytes,ratio_a,ratio_b,b_over_a
# (ratio = nhood / native median; b_over_a < 1: B is faster relative to
# native).  Usage: scripts/bench-compare.sh LIB_A LIB_B [NP] [REPS]
# Environment: MPIEXEC as for nhood-run; NHOOD_BENCH (default ./nhood-bench).
set -e
[ $# -ge 2 ] || { echo "usage: $0 LIB_A LIB_B [NP] [REPS]" >&2; exit 2; }
a=$1 b=$2 np=${3:-2} reps=${4:-1000}
here=$(cd "$(dirname "$0")" && pwd)
bench=${NHOOD_BENCH:-./nhood-bench}
echo "op,nbhd,dims,radius,procs,bytes,ratio_a,ratio_b,b_over_a"
for op in alltoall allgather; do
    for cfg in "moore 2 1" "moore 3 1" "moore 3 2" "vonneumann 3 2" "octant 3 1"; do
        set -- $cfg
        for bytes in 8 64 512 4096 65536; do
            ra=$(NHOOD_LIB=$a "$here/nhood-run" -np "$np" "$bench" --op "$op" --nbhd "$1" --dims "$2" \
                --radius "$3" --bytes "$bytes" --reps "$reps" --no-header | cut -d, -f10)
            rb=$(NHOOD_LIB=$b "$here/nhood-run" -np "$np" "$bench" --op "$op" --nbhd "$1" --dims "$2" \
                --radius "$3" --bytes "$bytes" --reps "$reps" --no-header | cut -d, -f10)
            echo "$op,$1,$2,$3,$np,$bytes,$ra,$rb,$(echo "$ra $rb" | awk '{printf "%.3f", $2 / $1}')"
        done
    done
done
