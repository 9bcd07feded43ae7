#!/bin/sh
# Timings on real cores, one rank per core: at each rank count in NPS
# that this machine's cores hold (a larger one is skipped, with a word),
#  - the never-slower sweep (run-sweep.sh NP REPS TRIES),
#  - the 3-D stencil halo exchange (nhood-stencil --dims 3),
#  - the box-halo MPI_Neighbor_alltoallv without a hint
#    (run-oversub-bench.sh's case, here not oversubscribed),
# native and nhood alternating in every run; then, at the largest count,
# nhood-calibrate CALIB times with --quick and CALIB times in full, and a
# table of every fit's parameters (calib.csv: one row per fit, the cost
# file's keys as columns) and the measured four against the bounds of
# docs/tuning.md (bounds.txt).  STEPS=calib runs the fits alone.
# Usage: scripts/run-cores-bench.sh [NPS] [REPS] [TRIES]
#   NPS: comma-separated rank counts (default 4,8,16); REPS (default 1000)
#   and TRIES (default 3) as run-sweep.sh takes them.
# Environment: MPIEXEC (default mpiexec.mpich), NHOOD_LIB as for
# nhood-run; BINDIR, where nhood-bench, nhood-stencil and nhood-calibrate
# are (default the build tree); CALIB (default 3; 0 skips the fits);
# STEPS, the parts to run (default "sweep stencil boxhalo calib");
# OUT (default results/cores).
set -e
nps=${1:-4,8,16}
reps=${2:-1000}
tries=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
bindir=${BINDIR:-$(cd "$here/.." && pwd)}
out=${OUT:-results/cores}
calib=${CALIB:-3}
steps=${STEPS:-sweep stencil boxhalo calib}
: "${MPIEXEC:=mpiexec.mpich}"
export MPIEXEC
cores=$(nproc)
mkdir -p "$out"
has() { case " $steps " in *" $1 "*) return 0 ;; esac; return 1; }
largest=
for np in $(echo "$nps" | tr ',' ' '); do
    if [ "$np" -gt "$cores" ]; then
        echo "run-cores-bench: $np ranks skipped: this machine has $cores cores" >&2
        continue
    fi
    largest=$np
    dir="$out/np$np"
    mkdir -p "$dir"
    if has sweep; then
        OUT=$dir BENCH=$bindir/nhood-bench "$here/run-sweep.sh" "$np" "$reps" "$tries" >"$dir/sweep.log"
        tail -n 1 "$dir/sweep.log"
    fi
    if has stencil; then
        t=0
        while [ $t -lt "$tries" ]; do
            "$here/nhood-run" -np "$np" "$bindir/nhood-stencil" --dims 3 --reps "$reps"
            t=$((t + 1))
        done | awk 'NR == 1 || !/^op,/' >"$dir/stencil.csv"
        echo "stencil at $np ranks: $dir/stencil.csv"
    fi
    if has boxhalo; then
        OUT=$dir BENCH=$bindir/nhood-bench "$here/run-oversub-bench.sh" "$np" "$tries" "$reps" |
            tail -n 1
    fi
done
[ -n "$largest" ] && has calib && [ "$calib" -gt 0 ] || exit 0
dir="$out/calib"
mkdir -p "$dir"
for mode in quick full; do
    k=1
    while [ $k -le "$calib" ]; do
        flag=
        [ $mode = quick ] && flag=--quick
        # shellcheck disable=SC2086
        "$here/nhood-run" -np "$largest" "$bindir/nhood-calibrate" $flag -o "$dir/$mode$k.cost" \
            >"$dir/$mode$k.log" 2>&1
        tail -n 1 "$dir/$mode$k.log"
        k=$((k + 1))
    done
done
# One row per fit: the numeric keys of the cost file, in its order.
awk -F' = ' '
    FNR == 1 { f = FILENAME; sub(/.*\//, "", f); sub(/\.cost$/, "", f); files[++nf] = f }
    NF == 2 && $1 !~ /^#/ && $1 !~ /^(fingerprint|validation)\./ {
        if (!($1 in seen)) { seen[$1] = 1; keys[++nk] = $1 }
        v[f, $1] = $2
    }
    END {
        printf "fit"; for (i = 1; i <= nk; i++) printf ",%s", keys[i]; print ""
        for (j = 1; j <= nf; j++) {
            printf "%s", files[j]; for (i = 1; i <= nk; i++) printf ",%s", v[files[j], keys[i]]; print ""
        }
    }' "$dir"/quick*.cost "$dir"/full*.cost >"$dir/calib.csv"
cat "$dir/calib.csv"
# The measured four against the bounds of docs/tuning.md: the full fits
# within 15 % of each other ((max - min) / median), every quick fit within
# 25 % of the full fits' median; the full fits' validation error.
awk -F' = ' '
    FNR == 1 { f = FILENAME; sub(/.*\//, "", f); q = f ~ /^quick/ }
    $1 ~ /^(alpha|o|o_recv|beta)$/ { if (q) qv[$1, ++nq[$1]] = $2; else fv[$1, ++nf[$1]] = $2 }
    $1 == "validation.median_error" && !q { err = err sprintf(" %.0f %%", 100 * $2); if ($2 > 0.15) bad = 1 }
    function med(a, k, n,    i, j, t, x) {
        for (i = 1; i <= n; i++) x[i] = a[k, i]
        for (i = 2; i <= n; i++) for (j = i; j > 1 && x[j] < x[j - 1]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
        return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
    }
    END {
        split("alpha o o_recv beta", ks, " ")
        for (i = 1; i <= 4; i++) {
            k = ks[i]; m = med(fv, k, nf[k]); lo = hi = fv[k, 1]; w = 0
            for (j = 1; j <= nf[k]; j++) { lo = fv[k, j] < lo ? fv[k, j] : lo; hi = fv[k, j] > hi ? fv[k, j] : hi }
            for (j = 1; j <= nq[k]; j++) { d = (qv[k, j] - m) / m; d = d < 0 ? -d : d; w = d > w ? d : w }
            sp = m > 0 ? (hi - lo) / m : 0
            printf "%-7s full median %.4g, full spread %.0f %% (bound 15), quick worst %.0f %% off it (bound 25)%s\n", k, m, 100 * sp, 100 * w, (sp > 0.15 || w > 0.25 ? "  OUT" : "")
            if (sp > 0.15 || w > 0.25) bad = 1
        }
        printf "validation median error of the full fits:%s (bound 15 %%)\n", err
        printf "calibration bounds: %s\n", bad ? "not all met" : "all met"
    }' "$dir"/quick*.cost "$dir"/full*.cost | tee "$dir/bounds.txt"
