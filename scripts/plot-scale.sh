#!/bin/sh
# The scale experiments (scripts/run-sim-experiments.sh --only 'scale-*'):
# one table of every algorithm's ratio to MPI's own exchange against the
# ranks, with each simulation's wall-clock time and peak memory, into
# OUT/scale.csv, and its plot, OUT/scale.png (needs gnuplot): ratio against
# ranks, one panel per platform and case (3-D Moore at 8 B and 512 B, 5-D
# Moore at 8 B), one line per algorithm.
#
#   scripts/plot-scale.sh [OUT]      (default docs/sim)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=${1:-$top/docs/sim}
csv=$out/scale.csv
echo "experiment,platform,case,procs,bytes,algorithm,native_us,nhood_us,ratio,wall_s,peak_mib,choice" >"$csv"
for f in "$out"/scale-*.csv; do
    case "$f" in *.auto.csv) continue ;; esac
    [ -e "$f" ] || continue
    name=$(basename "$f" .csv)
    log=$out/$name.log
    wall=$(sed -n 's/^# simulation took \([0-9]*\) s wall-clock.*/\1/p' "$log" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
    peak=$(sed -n 's/^# simulation peak memory \([0-9]*\) MiB.*/\1/p' "$log" 2>/dev/null | sort -n | tail -n 1)
    # auto run again after the cost parameters changed (NAME.auto.csv,
    # without native: its time and ratio against NAME.csv's native); a
    # whole run of NAME removes it, so it is newer wherever it exists
    # (files' times are not: a clone sets them in checkout order)
    re=$out/$name.auto.csv
    [ -s "$re" ] || re=/dev/null
    awk -F, -v OFS=, -v n="$name" -v w="$wall" -v m="${peak:-}" -v rf="$re" \
        'BEGIN { while ((getline l < rf) > 0) { split(l, x, ","); if (x[7] ~ /^auto/) re[x[6]] = l } }
        $1 != "op" { if ($7 ~ /^auto/ && ($6 in re)) { nat = $8; split(re[$6], x, ",")
                $7 = x[7]; $9 = x[9]; $10 = nat > 0 ? sprintf("%.3f", $9 / nat) : $10 }
            c = $7; sub(/^auto:/, "", c); sub(/^auto:.*/, "auto", $7)
            print n, $11, "d" $3 "-" $6, $5, $6, $7, $8, $9, $10, w, m, c }' "$f"
done | sort -t, -k2,2 -k5,5n -k3,3 -k6,6 -k4,4n >>"$csv"
dat=$(mktemp -d)
trap 'rm -rf "$dat"' EXIT
cases=$(awk -F, 'NR > 1 { print $3 }' "$csv" | sort -u | tr '\n' ' ')
for pf in torus dragonfly; do
    for c in $cases; do
        for a in auto direct torus torus_direct bruck; do
            awk -F, -v p=$pf -v c="$c" -v a=$a 'NR > 1 && $2 == p && $3 == c && $6 == a { print $4, $9 }' \
                "$csv" | sort -n >"$dat/$pf-$c-$a.dat"
        done
    done
done
# The table docs/simulation.md shows (on stdout): per platform and size,
# auto's ratio and choice, the fastest algorithm simulated (auto's own run
# among them) and auto's time against it, and the simulation's cost.
echo "| case | platform | ranks | auto / MPI's own | fastest (µs) | auto / fastest | wall-clock, peak memory |"
echo "|---|---|---|---|---|---|---|"
awk -F, 'NR > 1 {
        k = $3 "," $2 "," $4
        if ($6 == "auto") { ar[k] = $9; at[k] = $8; w[k] = $10; m[k] = $11; ch[k] = $12 }
        else if (!(k in bt) || $8 < bt[k]) { bt[k] = $8; ba[k] = $6 }
        if (!(k in seen)) { seen[k] = 1; keys[++n] = k }
    }
    END {
        for (i = 1; i <= n; i++) {
            k = keys[i]; split(k, p, ",")
            # beyond 4096 ranks auto and direct alone: the auto run counts
            if (!(k in bt) || at[k] < bt[k]) { bt[k] = at[k]; ba[k] = ch[k] }
            split(p[1], c, "-")
            printf "| %s-D Moore, %s B | %s | %s | %.3f (%s) | %s (%.2f) | %.3f | %d s, %.1f GiB |\n",
                substr(c[1], 2), c[2], p[2], p[3], ar[k], ch[k], ba[k], bt[k], at[k] / bt[k], w[k],
                m[k] / 1024
        }
    }' "$csv"
echo "$csv" >&2
command -v gnuplot >/dev/null 2>&1 || { echo "gnuplot not found: $csv only" >&2; exit 0; }
gnuplot -e "dir='$dat'; outfile='$out/scale.png'; cases='$cases'" "$here/plot-scale.gp"
