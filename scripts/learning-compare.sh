#!/bin/sh
# Compares two builds of libnhood on what learning costs (the rows of
# scripts/run-learning-bench.sh): TRIES rounds, each running nhood-bench
# --learning CALLS (REPS runs of every variant, in turns) once with A, then
# once with B, so both see the same machine state.  Writes every run's row
# to OUT/runs.csv (column lib: a or b) and prints, per row and library, the
# median and the largest of the ratio to the fastest fixed choice (first
# ratio and held out, as run-learning-bench.sh), and in how many runs it
# was above BOUND (default 1.03).
# Usage: scripts/learning-compare.sh LIB_A LIB_B [NP] [CALLS] [TRIES]
# Environment: MPIEXEC as for nhood-run; BENCH (default ./nhood-bench);
# OUT (default results/learning-compare); OPS (default "alltoall
# allgather"), FORMS (default "blocking nonblocking"), BYTES (default
# 512,4096,16384,65536), REPS (default 6), BOUND.
set -e
[ $# -ge 2 ] || { echo "usage: $0 LIB_A LIB_B [NP] [CALLS] [TRIES]" >&2; exit 2; }
a=$1 b=$2 np=${3:-2} calls=${4:-1000} tries=${5:-8}
here=$(cd "$(dirname "$0")" && pwd)
bench=${BENCH:-./nhood-bench}
out=${OUT:-results/learning-compare}
mkdir -p "$out"
runs="$out/runs.csv"
echo "lib,try,op,nbhd,dims,radius,procs,bytes,calls,native_us,auto_us,best_fixed,best_fixed_us,ratio,wrong,held_best,held_ratio,paired_ratio,held_paired_ratio" >"$runs"
t=1
while [ "$t" -le "$tries" ]; do
    for lib in a b; do
        if [ "$lib" = a ]; then path=$a; else path=$b; fi
        for op in ${OPS:-alltoall allgather}; do
            for form in ${FORMS:-blocking nonblocking}; do
                NHOOD_LIB=$path "$here/nhood-run" -np "$np" "$bench" --op "$op" --form "$form" \
                    --nbhd moore --dims 3 --radius 1 --bytes "${BYTES:-512,4096,16384,65536}" \
                    --reps "${REPS:-6}" --learning "$calls" --no-header | sed "s/^/$lib,$t,/" >>"$runs"
            done
        done
    done
    t=$((t + 1))
done
echo "op,bytes,lib,runs,ratio_median,ratio_max,ratio_above,held_median,held_max,held_above"
awk -F, -v bound="${BOUND:-1.03}" '
    function median(s,    v, n, i, j, x) {
        n = split(s, v, " ")
        for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] + 0 > x + 0; j--) v[j + 1] = v[j]; v[j + 1] = x }
        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    function top(s,    v, n, i, m) { n = split(s, v, " "); m = v[1]; for (i = 2; i <= n; i++) if (v[i] + 0 > m + 0) m = v[i]; return m }
    function above(s,    v, n, i, c) { n = split(s, v, " "); for (i = 1; i <= n; i++) c += v[i] > bound; return c + 0 }
    NR > 1 { k = $3 "," $8 "," $1; if (!(k in r)) order[++n] = k; r[k] = r[k] " " $14; runs[k]++
             if ($17 != "-") h[k] = h[k] " " $17 }
    END { for (i = 1; i <= n; i++) { k = order[i]
              printf "%s,%d,%.3f,%.3f,%d,%s,%s,%s\n", k, runs[k], median(r[k]), top(r[k]), above(r[k]),
                  h[k] == "" ? "-" : sprintf("%.3f", median(h[k])), h[k] == "" ? "-" : top(h[k]),
                  h[k] == "" ? "-" : above(h[k]) } }' "$runs"
