#!/bin/sh
# The 3-D stencil (nhood-stencil: MPI_Neighbor_alltoallw on a graph made
# from the offsets, Iso_neighbor_alltoallw on an Iso communicator; derived
# datatypes) under nhood's default and under each algorithm forced
# (NHOOD_ALGO, one run each; MPI's own exchange runs beside nhood's in
# every run, alternating call by call).  Writes OUT/stencil-RUN.csv per
# run and OUT/stencil-forced.csv: per row and variant the default's time,
# the fastest of MPI's own (its median over the runs) and every forced
# choice, and their ratio; prints the worst ratio.
# Usage: scripts/run-stencil-forced.sh [NP] [REPS]
# Environment: MPIEXEC, NHOOD_LIB as for nhood-run; BENCH (default
# ./nhood-stencil); OUT (default results/stencil); ALGOS (default
# "direct torus torus_direct bruck").
set -e
np=${1:-2}
reps=${2:-500}
here=$(cd "$(dirname "$0")" && pwd)
bench=${BENCH:-./nhood-stencil}
out=${OUT:-results/stencil}
algos=${ALGOS:-"direct torus torus_direct bruck"}
mkdir -p "$out"
"$here/nhood-run" -np "$np" "$bench" --dims 3 --reps "$reps" >"$out/stencil-auto.csv"
for a in $algos; do
    NHOOD_ALGO=$a NHOOD_FALLBACK=silent "$here/nhood-run" -np "$np" "$bench" --dims 3 \
        --reps "$reps" >"$out/stencil-$a.csv"
done
# Rows keyed by nbhd, halo depth, variant (columns 2, 4, 7); native_us
# is column 8, nhood's column 9.
awk -F, -v algos="$algos" '
    FNR == 1 { run = FILENAME; sub(/.*stencil-/, "", run); sub(/\.csv$/, "", run); next }
    { key = $2 "," $4 "," $7; if (!(key in seen)) { seen[key] = 1; order[++n] = key; row[key] = $1 "," $2 "," $3 "," $4 "," $5 "," $6 "," $7 }
      nat[key, ++nn[key]] = $8; t[key, run] = $9 }
    END {
        print "op,nbhd,dims,radius,procs,bytes,variant,auto_us,native_us,best,best_us,ratio"
        na = split(algos, al, " ")
        for (i = 1; i <= n; i++) {
            k = order[i]
            m = nn[k]; for (a = 1; a <= m; a++) v[a] = nat[k, a]
            for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (v[b] < v[a]) { x = v[a]; v[a] = v[b]; v[b] = x }
            native = m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
            best = "pmpi"; bu = native
            for (a = 1; a <= na; a++) if ((k, al[a]) in t && t[k, al[a]] < bu) { best = al[a]; bu = t[k, al[a]] }
            printf "%s,%.2f,%.2f,%s,%.2f,%.3f\n", row[k], t[k, "auto"], native, best, bu, t[k, "auto"] / bu
        }
    }' "$out/stencil-auto.csv" $(for a in $algos; do echo "$out/stencil-$a.csv"; done) >"$out/stencil-forced.csv"
cat "$out/stencil-forced.csv"
awk -F, 'NR > 1 && $12 > worst { worst = $12; row = $0 } END { print "worst: " row }' "$out/stencil-forced.csv"
