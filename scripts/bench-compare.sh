#!/bin/sh
# Compares two builds of libnhood on the standard benchmark rows: for every
# row, TRIES nhood-bench runs with each library, A and B alternating (and
# native and nhood alternating inside each run, as always), so both see the
# same machine state.  Prints op,nbhd,dims,radius,procs,bytes,ratio_a,ratio_b,b_over_a
# (ratio = median over the tries of nhood / native median; b_over_a < 1: B
# is faster relative to native).
# Usage: scripts/bench-compare.sh LIB_A LIB_B [NP] [REPS] [TRIES]
# Environment: MPIEXEC as for nhood-run; BENCH (default ./nhood-bench).
set -e
[ $# -ge 2 ] || { echo "usage: $0 LIB_A LIB_B [NP] [REPS] [TRIES]" >&2; exit 2; }
a=$1 b=$2 np=${3:-2} reps=${4:-1000} tries=${5:-3}
here=$(cd "$(dirname "$0")" && pwd)
bench=${BENCH:-./nhood-bench}
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
ratio() {
    NHOOD_LIB=$1 "$here/nhood-run" -np "$np" "$bench" --op "$op" --nbhd "$nbhd" --dims "$dims" \
        --radius "$radius" --bytes "$bytes" --reps "$reps" --no-header | cut -d, -f10
}
echo "op,nbhd,dims,radius,procs,bytes,ratio_a,ratio_b,b_over_a"
for op in alltoall allgather; do
    for cfg in "moore 2 1" "moore 3 1" "moore 3 2" "vonneumann 3 2" "octant 3 1"; do
        set -- $cfg
        nbhd=$1 dims=$2 radius=$3
        for bytes in 8 64 512 4096 65536; do
            ra="" rb=""
            t=0
            while [ $t -lt "$tries" ]; do
                ra="$ra $(ratio "$a")"
                rb="$rb $(ratio "$b")"
                t=$((t + 1))
            done
            ma=$(echo $ra | tr ' ' '\n' | median)
            mb=$(echo $rb | tr ' ' '\n' | median)
            echo "$op,$nbhd,$dims,$radius,$np,$bytes,$ma,$mb,$(echo "$ma $mb" | awk '{printf "%.3f", $2 / $1}')"
        done
    done
done
