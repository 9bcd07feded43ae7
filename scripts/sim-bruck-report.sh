#!/bin/sh
# The bruck table (markdown on stdout) from scripts/run-sim-experiments.sh's
# OUT/NAME.bruck.csv files beside OUT/NAME.csv: per isomorphic experiment,
# platform and block size, native's time, torus, torus_direct and bruck
# (its rounds and messages), which one is fastest, bruck against the best of
# the others, and auto against the best of all.  Native's and the older
# algorithms' times come from NAME.csv where it has that size, or from
# auto's row where auto ran them (simulated time is deterministic: the
# same call simulates to the same time); "-": not simulated.  auto's own
# rows come from NAME.auto.csv where run-sim-experiments.sh re-ran it
# under newer cost parameters; the learning's (auto with NHOOD_AUTOTUNE=1,
# run-sim-experiments.sh --learn-only) from NAME.learn.csv, "-" where it
# was not simulated.
#
#   scripts/sim-bruck-report.sh [DIR]            the full table (docs/sim/bruck.md)
#   scripts/sim-bruck-report.sh --readme [DIR]   the README's: per experiment
#       and platform/size, bruck / best other (the fastest in parentheses)
set -eu
if [ "${1:-}" = --readme ]; then
    shift
    sh "$0" "${1:-docs/sim}" | awk -F'|' 'NR > 2 {
        for (i = 2; i <= 12; i++) gsub(/^ +| +$/, "", $i)
        cell[$2, $3, $4] = $10 " (" $9 ")"
        if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 }
    }
    END {
        print "| experiment | flat 8 B | flat 512 B | torus 8 B | torus 512 B | dragonfly 8 B | dragonfly 512 B |"
        print "|---|---|---|---|---|---|---|"
        split("flat torus dragonfly", pf, " ")
        for (k = 1; k <= n; k++) {
            line = "| " order[k]
            for (p = 1; p <= 3; p++) for (b = 8; b <= 512; b *= 64)
                line = line " | " (((order[k], pf[p], b) in cell) ? cell[order[k], pf[p], b] : "-")
            print line " |"
        }
    }'
    exit 0
fi
dir=${1:-docs/sim}
echo "| experiment | platform | bytes | native us | torus us | torus_direct us | bruck us (rounds/messages) | fastest | bruck / best other | auto | auto / fastest | learning | learning / fastest |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for f in "$dir"/iso-*.bruck.csv; do
    [ -s "$f" ] || continue
    base=${f%.bruck.csv}
    name=$(basename "$base")
    awk -F, -v name="$name" '
        FNR == 1 { next }
        FILENAME ~ /\.bruck\.csv$/ { b = $6
            if ($7 == "bruck") { br[b] = $9; brr[b] = $12 "/" $13 }
            else if ($7 ~ /^auto/) { au[b] = $9; an[b] = $7 }
            else t[b, $7] = $9
            sizes[b] = 1; pf = $11; next }
        # auto re-run under newer cost parameters (NAME.auto.csv) wins
        FILENAME ~ /\.auto\.csv$/ { if ($7 ~ /^auto/ && ($6 in sizes)) { au[$6] = $9; an[$6] = $7 }; next }
        FILENAME ~ /\.learn\.csv$/ { if ($7 ~ /^auto/) { le[$6] = $9; ln[$6] = $7 }; next }
        { b = $6
          if ($8 > 0) nat[b] = $8
          if ($7 == "torus" || $7 == "torus_direct" || $7 == "direct") if (!((b, $7) in t)) t[b, $7] = $9 }
        END {
            # auto ran one of the algorithms: its time is that one'"'"'s where
            # no row of its own exists (deterministic simulation)
            for (b in au) {
                a = an[b]; sub(/^auto:/, "", a)
                if (a == "pmpi") { if (!(b in nat)) nat[b] = au[b] }
                else if (a != "bruck" && !((b, a) in t)) t[b, a] = au[b]
            }
            n = 0
            for (b in sizes) bs[++n] = b + 0
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (bs[j] < bs[i]) { x = bs[i]; bs[i] = bs[j]; bs[j] = x }
            ex = name; sub(/^iso-/, "", ex); sub(/-[a-z]+$/, "", ex)
            for (i = 1; i <= n; i++) {
                b = bs[i]
                best = ""; bv = -1
                if (b in nat) { best = "native"; bv = nat[b] }
                split("direct torus torus_direct", al, " ")
                for (k = 1; k <= 3; k++) if ((b, al[k]) in t && (bv < 0 || t[b, al[k]] < bv)) { best = al[k]; bv = t[b, al[k]] }
                other = bv
                fast = best; fv = bv
                if (b in br && (fv < 0 || br[b] < fv)) { fast = "bruck"; fv = br[b] }
                printf "| %s | %s | %d | %s | %s | %s | %s (%s) | %s | %s | %s | %s | %s | %s |\n", ex, pf, b,
                    (b in nat ? sprintf("%.2f", nat[b]) : "-"),
                    ((b, "torus") in t ? sprintf("%.2f", t[b, "torus"]) : "-"),
                    ((b, "torus_direct") in t ? sprintf("%.2f", t[b, "torus_direct"]) : "-"),
                    (b in br ? sprintf("%.2f", br[b]) : "-"), brr[b], fast,
                    (other > 0 && b in br ? sprintf("%.2f", br[b] / other) : "-"),
                    an[b] " " (b in au ? sprintf("%.2f", au[b]) : "-"),
                    (fv > 0 && b in au ? sprintf("%.2f", au[b] / fv) : "-"),
                    (b in le ? ln[b] " " sprintf("%.2f", le[b]) : "-"),
                    (fv > 0 && b in le ? sprintf("%.2f", le[b] / fv) : "-")
            }
        }' "$f" $([ -s "$base.csv" ] && echo "$base.csv") $([ -s "$base.auto.csv" ] && echo "$base.auto.csv") \
        $([ -s "$base.learn.csv" ] && echo "$base.learn.csv")
done
