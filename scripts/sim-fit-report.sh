#!/bin/sh
# The simulated check of nhood-calibrate (docs/tuning.md): for each
# platform, the parameters it fitted (DIR/fit-PLATFORM.cost) against
# scripts/sim-calibrate.sh's (platforms/PLATFORM.cost), and on every
# isomorphic experiment simulated so far (DIR/iso-*-PLATFORM.csv) auto's
# time under either file against the fastest algorithm (native, direct,
# torus, torus_direct, and bruck where DIR/NAME.bruck.csv has it); auto
# under platforms/*.cost is the latest simulated (NAME.bruck.csv's, else
# NAME.auto.csv's, else NAME.csv's).
# Markdown on stdout.  Usage: scripts/sim-fit-report.sh [DIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
dir=${1:-$top/docs/sim}
params="alpha o beta node link eager rndv"
echo "# nhood-calibrate on the simulated platforms"
echo
echo "nhood-calibrate run under SimGrid SMPI at 256 ranks (\`scripts/nhood-sim --fit FILE"
echo "--platform P\`, via \`scripts/run-sim-experiments.sh --fit-check\`), against the"
echo "parameters scripts/sim-calibrate.sh fitted (platforms/P.cost).  Simulated times."
echo
echo "| platform | parameter | sim-calibrate.sh | nhood-calibrate | difference |"
echo "|---|---|---|---|---|"
for pf in flat torus dragonfly; do
    f=$dir/fit-$pf.cost
    [ -f "$f" ] || continue
    for k in $params; do
        a=$(sed -n "s/^$k = \([^ #]*\).*/\1/p" "$top/platforms/$pf.cost")
        b=$(sed -n "s/^$k = \([^ #]*\).*/\1/p" "$f")
        awk -v pf="$pf" -v k="$k" -v a="${a:-0}" -v b="${b:-0}" 'BEGIN {
            d = a != 0 ? sprintf("%+.1f %%", 100 * (b - a) / a) : (b == 0 ? "0" : "(was 0)")
            printf "| %s | %s | %.4g | %.4g | %s |\n", pf, k, a, b, d }'
    done
done
echo
echo "auto's time over the fastest algorithm's, per experiment and block size (1.000 ="
echo "auto picked the fastest), with the platform's file and with nhood-calibrate's:"
echo
echo "| experiment | bytes | fastest | auto (platforms/*.cost) | ratio | auto (nhood-calibrate) | ratio |"
echo "|---|---|---|---|---|---|---|"
for fit in "$dir"/iso-*.fit.csv; do
    [ -f "$fit" ] || continue
    e=${fit%.fit.csv}
    name=$(basename "$e")
    # file 1: the experiment (native and the forced algorithms; auto),
    # 3: auto re-run after the platform's costs changed, 2: bruck and auto
    # (the last runs, with bruck among auto's candidates), read in that
    # order so that the latest auto counts; 4: the fit's auto
    f2=/dev/null f3=/dev/null
    [ -f "$e.bruck.csv" ] && f2=$e.bruck.csv
    [ -f "$e.auto.csv" ] && f3=$e.auto.csv
    awk -F, -v name="$name" -v f2="$f2" -v f3="$f3" -v f4="$fit" '
        FNR == 1 { file = FILENAME == f4 ? 4 : FILENAME == f3 ? 3 : FILENAME == f2 ? 2 : 1; next }
        { b = $6; sizes[b] = 1 }
        file == 1 && $7 !~ /^auto:/ { cand(b, $7, $9); if ($8 > 0) cand(b, "native", $8) }
        file == 1 && $7 ~ /^auto:/ { au[b] = $9; aa[b] = substr($7, 6) }
        file == 2 && $7 == "bruck" { cand(b, "bruck", $9) }
        (file == 2 || file == 3) && $7 ~ /^auto:/ { au[b] = $9; aa[b] = substr($7, 6) }
        file == 4 && $7 ~ /^auto:/ { fu[b] = $9; fa[b] = substr($7, 6) }
        function cand(b, a, t) { if (!(b in best) || t < best[b]) { best[b] = t; ba[b] = a } }
        END {
            for (b in sizes) if ((b in fu) && (b in best))
                printf "| %s | %s | %s %.3f | %s %.3f | %.3f | %s %.3f | %.3f |\n", name, b, ba[b], best[b],
                    aa[b], au[b], au[b] / best[b], fa[b], fu[b], fu[b] / best[b]
        }' "$e.csv" "$f3" "$f2" "$fit"
done | sort -t'|' -k2,2 -k3,3n >"$dir/.fit-rows"
cat "$dir/.fit-rows"
echo
awk -F'|' '{ r1 = $6 + 0; r2 = $8 + 0; n++; if (r1 > w1) w1 = r1; if (r2 > w2) w2 = r2; s1 += r1 > 1.05; s2 += r2 > 1.05 }
    END { printf "Worst ratio over %d cases: %.3f with platforms/*.cost (%d over 1.05), %.3f with nhood-calibrate'"'"'s files (%d over 1.05).\n", n, w1, s1, w2, s2 }' "$dir/.fit-rows"
rm -f "$dir/.fit-rows"
