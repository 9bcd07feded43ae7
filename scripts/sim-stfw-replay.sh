#!/bin/sh
# sim-stfw-replay.sh [--dir DIR] [--only PATTERN] [--set KEY=VALUE]... : replays auto's
# store-and-forward choice on the simulated SpMV experiments without
# simulating them again.  For each DIR/stfw-*.csv (default docs/sim) it
# runs nhood-stfw-metrics --model-only on the experiment's matrix, ranks
# and ranks per node, with its platform's cost file (platforms/P.cost) and
# the --set overrides, at the experiment's mean block; the cost model
# itself is the library's (src/core/vpt.c).  Prints one line per
# experiment: the simulated times of MPI's exchange and of each VPT
# dimension beside the model's, the choice the model makes and its
# simulated time over the fastest; then how many choices are within 10 %
# and the median model error.  Used to fit stage and fwd (docs/simulation.md,
# "Store-and-forward").
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/docs/sim
sets=""
only="*"
while [ $# -gt 0 ]; do
    case $1 in
    --dir) dir=$2; shift 2 ;;
    --set) sets="$sets --set $2"; shift 2 ;;
    --only) only=$2; shift 2 ;;
    -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "sim-stfw-replay.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
tool=$top/nhood-stfw-metrics
[ -x "$tool" ] || { echo "sim-stfw-replay.sh: build nhood-stfw-metrics first (make)" >&2; exit 2; }
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.err"' EXIT
for csv in "$dir"/stfw-*.csv; do
    case $csv in *.auto.csv) continue ;; esac
    # shellcheck disable=SC2254 # a pattern
    case $(basename "$csv" .csv) in $only) ;; *) continue ;; esac
    log=${csv%.csv}.log
    [ -f "$log" ] || continue
    row=$(sed -n 2p "$csv")
    matrix=$(echo "$row" | cut -d, -f2)
    procs=$(echo "$row" | cut -d, -f5)
    bytes=$(echo "$row" | cut -d, -f6)
    plat=$(echo "$row" | cut -d, -f11)
    ppn=$(sed -n 's/.* ranks, \([0-9]*\) per node.*/\1/p' "$log" | head -1)
    # shellcheck disable=SC2086 # $sets is a list of options
    "$tool" --matrix "$matrix" --procs "$procs" --ppn "$ppn" --bytes "$bytes" --model-only --csv \
        --cost "$top/platforms/$plat.cost" $sets >"$tmp"
    auto=$(sed -n 's/^# auto: \([^ ]*\).*/\1/p' "$tmp")
    # simulated: native and stfw:N rows (the first of each), then the model's rows
    {
        grep -v '^#' "$csv" | tail -n +2 | grep -v '^[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,auto' |
            awk -F, '{ print "sim", $7, $9, $8 }'
        grep '^BL,\|^STFW\|^AGG' "$tmp" | awk -F, '{ print "model", $1, $NF }'
    } | awk -v name="$(basename "$csv" .csv)" -v auto="$auto" '
        $1 == "sim" { if (!($2 in sim)) sim[$2] = $3; nat = $4 }
        $1 == "model" { n = $2; sub(/^STFW/, "stfw:", n); if (n == "BL") n = "pmpi"; if (n == "AGG") n = "stfw:agg"; mod[n] = $3 }
        END {
            sim["pmpi"] = nat; best = nat; bestn = "pmpi"
            for (a in sim) if (sim[a] < best) { best = sim[a]; bestn = a }
            line = sprintf("%-28s best %-8s %8.1f  auto %-8s", name, bestn, best, auto)
            if (auto in sim) line = line sprintf(" %8.1f %6.3f%s", sim[auto], sim[auto] / best, sim[auto] / best > 1.10 ? " >10%" : "")
            else line = line "     (not simulated)"
            s = ""
            for (a in sim) if (a in mod) { s = s sprintf(" %s %.0f/%.0f", a, sim[a], mod[a]); printf "err %.4f\n", (mod[a] - sim[a]) / sim[a] }
            print "line " line "  sim/model:" s
            if (auto in sim) printf "ratio %.4f\n", sim[auto] / best
        }'
done | awk -v errs="$tmp.err" '
    $1 == "line" { sub(/^line /, ""); print; next }
    $1 == "err" { print ($2 < 0 ? -$2 : $2) > errs; next }
    $1 == "ratio" { nr++; if ($2 <= 1.10) ok++; if ($2 > worst) worst = $2 }
    END { printf "auto within 10 %% of the fastest: %d of %d; worst %.3f; ", ok, nr, worst }'
sort -g "$tmp.err" | awk '{ e[NR] = $1 } END { printf "median |model error| %.1f %%\n", 100 * e[int((NR + 1) / 2)] }'
