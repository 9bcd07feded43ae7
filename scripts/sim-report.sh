#!/bin/sh
# Tables and plots from the simulated experiments (scripts/run-sim-experiments.sh):
#   DIR/all.csv      every row, experiment name first (auto rows from
#                    NAME.auto.csv where run-sim-experiments.sh re-ran auto)
#   DIR/summary.md   simulated ratios beside the papers' figures, auto vs the
#                    best algorithm of the same simulation, in-place steps
#   DIR/iso-flat.png, DIR/inplace.png (with gnuplot)
# Usage: scripts/sim-report.sh [DIR]   (default docs/sim)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-$here/../docs/sim}
cd "$dir"
ls ./*.csv >/dev/null 2>&1 || { echo "sim-report: no CSV in $dir" >&2; exit 1; }

# all.csv: experiment,op,nbhd,...,max_volume
{
    echo "experiment,op,nbhd,dims,radius,procs,bytes,algorithm,native_us,nhood_us,ratio,platform,rounds,max_msgs,max_volume"
    for f in iso-*.csv inplace-*.csv stfw-*.csv; do
        [ -f "$f" ] || continue
        case "$f" in *.auto.csv | *.bruck.csv | *.learn.csv) continue ;; esac
        e=${f%.csv}
        if [ -f "$e.bruck.csv" ] || [ -f "$e.auto.csv" ]; then
            # bruck simulated later without native (run-sim-experiments.sh
            # --bruck-only), and auto re-run with newer cost parameters
            # (NAME.auto.csv; else the bruck run's auto): their rows replace
            # the run's auto rows, with the run's native time, at the sizes
            # the run has.
            auto=$e.auto.csv bruck=$e.bruck.csv
            [ -f "$auto" ] || auto=$bruck
            [ -f "$bruck" ] || bruck=""
            awk -F, -v OFS=, -v e="$e" -v main="$f" -v bruck="$bruck" -v auto="$auto" '
                FNR == 1 { next }
                FILENAME == main && $7 !~ /^auto:/ { print e, $0; native[$6] = $8 }
                FILENAME == main { next }
                FILENAME == bruck && $7 ~ /^auto:/ && auto != bruck { next }
                FILENAME == auto && auto != bruck && $7 !~ /^auto:/ { next }
                ($6 in native) && native[$6] > 0 {
                    $8 = native[$6]; $10 = sprintf("%.3f", $9 / $8); print e, $0 }' \
                "$f" $bruck $([ "$auto" != "$bruck" ] && echo "$auto")
        else
            awk -v e="$e" 'NR > 1 { print e "," $0 }' "$f"
        fi
    done
} >all.csv

# Store-and-forward runs: the plain graph's mmax and mavg (BL), from the logs.
for f in stfw-*.log; do
    [ -f "$f" ] || continue
    case "$f" in *.auto.log) continue ;; esac
    sed -n "s/^# matrix .*: mmax \([0-9]*\), mavg \([0-9.]*\) messages.*/${f%.log},\1,\2/p" "$f"
done >stfw-bl.tmp

awk -F, '
function paper(key) {
    # What the papers report, for the table (text; see docs/simulation.md).
    if (key == "alltoall moore d2r1") return "close to 2d/s = 0.50 (Fig. 2a, text)"
    if (key == "alltoall moore d3r1") return "close to 2d/s = 0.23 (Fig. 2b, text)"
    if (key == "alltoall moore d4r1") return "close to 2d/s = 0.10 (Fig. 2c, text)"
    if (key == "alltoall moore d5r1") return "close to 2d/s = 0.04 (Fig. 2d, text)"
    if (key == "alltoall moore d3r3") return "close to 2rd/s = 0.05 (Fig. 2e, text)"
    if (key == "alltoall octant d3r3") return "clear gain, no number (Fig. 2f)"
    if (key == "allgather moore d3r3") return "0.20: 80 % reduction (Fig. 5a)"
    if (key == "allgather moore d3r1") return "not shown"
    if (key == "allgather octant d3r3") return "3x faster than alltoall (Fig. 5b)"
    if (key == "alltoall shales d3r3") return "torus > 1 from 500 B, torus_direct ~1 (Fig. 4b)"
    return "-"
}
function fmt(x) { return x == "" ? "-" : sprintf("%.2f", x) }
FNR > 1 && $1 ~ /^iso-/ {
    key = $2 " " $3 " d" $4 "r" $5; pf = $12; b = $7; a = $8
    keys[key] = 1; pfs[pf] = 1; sizes[key, b] = 1
    if (a ~ /^auto:/) { auto[key, pf, b] = $11; autoalg[key, pf, b] = substr(a, 6); autous[key, pf, b] = $10 }
    else if (a !~ />/) {
        t[key, pf, b, a] = $10; r[key, pf, b, a] = $11; rounds[key, pf, b, a] = $13
        if (best[key, pf, b] == "" || $10 < best[key, pf, b]) { best[key, pf, b] = $10; bestalg[key, pf, b] = a }
    }
    # shales: native simulated apart (its own experiments), 0 in the others
    if ($9 > 0 || !((key, pf, b) in native)) native[key, pf, b] = $9
}
FILENAME ~ /stfw-bl/ { blmmax[$1] = $2; blmavg[$1] = $3; next }
FNR > 1 && $1 ~ /^stfw-/ {
    K = $6; pf = $12; a = $8; e = $1; se[e] = 1; sK[e] = K; spf[e] = pf; snat[e] = $9; smat[e] = $3; sbytes[e] = $7
    if (a ~ /^auto:/) { sauto[e] = substr(a, 6); sautous[e] = $10; next }
    if (sbest[e] == "" || $10 < sbest[e]) { sbest[e] = $10; sbestalg[e] = a; sbestm[e] = $14 }
    next
}
function stfwpaper(K, pf) {
    # Best STFW communication time / BL, store-and-forward paper: Table 2
    # (BlueGene/Q, 5-D torus) and Table 3 (Cray XC40 dragonfly, 4096;
    # Cray XK7 3-D torus, 8192 and 16384: 260/4420 and 391/8220 us).
    if (K == 64) return "0.50 (STFW6, BG/Q)"
    if (K == 128) return "0.45 (STFW7, BG/Q)"
    if (K == 256) return "0.39 (STFW8, BG/Q)"
    if (K == 512) return "0.28 (STFW9, BG/Q)"
    if (K == 4096 && pf == "dragonfly") return "0.14 (STFW7, XC40)"
    if (K == 4096 && pf == "torus") return "-; XK7 torus 8K: 0.06 (STFW4)"
    if (K == 8192 && pf == "torus") return "0.06 (STFW4, XK7)"
    if (K == 16384 && pf == "torus") return "0.05 (STFW4, XK7)"
    return "-"
}
FNR > 1 && $1 ~ /^inplace-/ {
    p = $6; ip[p] = 1; ipb[p] = $7; ipn[p] = $9
    if ($8 ~ /^auto:/) { ipauto[p] = substr($8, 6); ipautous[p] = $10 }
    else { ipt[p, $8] = $10; ips[p, $8] = $13 }
}
END {
    n = split("alltoall moore d2r1|alltoall moore d3r1|alltoall moore d4r1|alltoall moore d5r1|alltoall moore d3r3|alltoall octant d3r3|allgather moore d3r1|allgather moore d3r3|allgather octant d3r3|alltoall shales d3r3", order, "|")
    print "### Simulated ratio nhood/native beside the papers (480 ranks)"
    print ""
    print "Ratio = simulated time of nhood / simulated time of MPICH'"'"'s linear algorithm, at 8 B and 512 B"
    print "blocks; `auto` is what nhood runs by default (algorithm in parentheses), `torus` is the"
    print "paper'"'"'s schedule.  Paper column: the seed paper (000) at 30x16 processes, NEC MPI, InfiniBand."
    print ""
    print "| experiment | paper | flat auto 8 B | flat torus 8 B | flat auto 512 B | torus auto 8 B | dragonfly auto 8 B |"
    print "|---|---|---|---|---|---|---|"
    for (i = 1; i <= n; i++) {
        k = order[i]
        if (!(k in keys) || native[k, "flat", 8] == 0) continue
        printf "| %s | %s | %s (%s) | %s | %s (%s) | %s (%s) | %s (%s) |\n", k, paper(k),
            fmt(auto[k, "flat", 8]), autoalg[k, "flat", 8], fmt(t[k, "flat", 8, "torus"] == "" ? "" : t[k, "flat", 8, "torus"] / native[k, "flat", 8]),
            fmt(auto[k, "flat", 512]), autoalg[k, "flat", 512],
            fmt(auto[k, "torus", 8]), autoalg[k, "torus", 8], fmt(auto[k, "dragonfly", 8]), autoalg[k, "dragonfly", 8]
    }
    print ""
    print "### auto against the best algorithm of the same simulation"
    print ""
    print "| experiment | platform | bytes | auto | auto us | best | best us | auto/best |"
    print "|---|---|---|---|---|---|---|---|"
    worst = 0
    for (i = 1; i <= n; i++) {
        k = order[i]
        if (!(k in keys)) continue
        split("flat torus dragonfly", P, " ")
        for (j = 1; j <= 3; j++) {
            pf = P[j]
            split("8 64 512 2048", B, " ")
            for (q = 1; q <= 4; q++) {
                b = B[q]
                if (!((k, pf, b) in auto) || autoalg[k, pf, b] == "" || best[k, pf, b] == "") continue
                x = autous[k, pf, b] / best[k, pf, b]
                if (x > worst) worst = x
                printf "| %s | %s | %d | %s | %.2f | %s | %.2f | %.3f%s |\n", k, pf, b, autoalg[k, pf, b],
                    autous[k, pf, b], bestalg[k, pf, b], best[k, pf, b], x, (x > 1.10 ? " **>10 %**" : "")
            }
        }
    }
    printf "\nWorst auto/best: %.3f\n", worst
    k = "alltoall shales d3r3"
    if (k in keys) {
        print ""
        print "### Shales (Fig. 4b): torus against torus_direct, flat, 480 ranks"
        print ""
        print "Native (1396 messages per rank, 670 K at once) is simulated apart, one run per size (10-25"
        print "minutes each).  Paper: " paper(k) "."
        print ""
        print "| bytes | native us | torus us | its rounds | torus_direct us | its rounds | torus/native | torus_direct/native | torus_direct/torus |"
        print "|---|---|---|---|---|---|---|---|---|"
        split("8 64 512 2048", B, " ")
        for (q = 1; q <= 4; q++) {
            b = B[q]
            if (t[k, "flat", b, "torus"] == "" || t[k, "flat", b, "torus_direct"] == "") continue
            n = native[k, "flat", b]
            printf "| %d | %s | %.2f | %d | %.2f | %d | %s | %s | %.3f |\n", b, (n > 0 ? sprintf("%.2f", n) : "-"),
                t[k, "flat", b, "torus"], rounds[k, "flat", b, "torus"],
                t[k, "flat", b, "torus_direct"], rounds[k, "flat", b, "torus_direct"],
                (n > 0 ? sprintf("%.3f", t[k, "flat", b, "torus"] / n) : "-"),
                (n > 0 ? sprintf("%.3f", t[k, "flat", b, "torus_direct"] / n) : "-"),
                t[k, "flat", b, "torus_direct"] / t[k, "flat", b, "torus"]
        }
    }
    if (length(se) > 0) {
        print ""
        print "### Store-and-forward: SpMV halo exchange on power-law matrices"
        print ""
        print "native = one message per neighbor (BL); best STFW = fastest forced VPT dimension; mmax ="
        print "most messages a rank sends; bytes = mean message size; auto/best against the faster of"
        print "native and best STFW.  Paper: best STFW communication time / BL."
        print ""
        print "| matrix | procs | platform | bytes | BL mmax | BL mavg | native us | best STFW | its mmax | its us | best STFW/native | auto | auto/native | auto/best | paper |"
        print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        m = 0
        for (e in se) es[++m] = e
        for (i = 2; i <= m; i++)
            for (j = i; j > 1 && (smat[es[j - 1]] "," spf[es[j - 1]] "," sprintf("%06d", sK[es[j - 1]]) > smat[es[j]] "," spf[es[j]] "," sprintf("%06d", sK[es[j]])); j--) { x = es[j]; es[j] = es[j - 1]; es[j - 1] = x }
        for (i = 1; i <= m; i++) {
            e = es[i]
            # auto alone (no forced VPT simulated): against native only
            f = sbestalg[e] != ""
            b = f && sbest[e] < snat[e] ? sbest[e] : snat[e]
            bestcols = f ? sprintf("%s | %d | %.1f | %.3f", sbestalg[e], sbestm[e], sbest[e], sbest[e] / snat[e]) : "- | - | - | -"
            printf "| %s | %d | %s | %s | %s | %s | %.1f | %s | %s | %s | %s | %s |\n", smat[e], sK[e], spf[e], sbytes[e],
                blmmax[e], blmavg[e], snat[e], bestcols, sauto[e],
                sautous[e] == "" ? "-" : sprintf("%.3f", sautous[e] / snat[e]),
                sautous[e] == "" ? "-" : sprintf("%.3f%s", sautous[e] / b, sautous[e] / b > 1.10 ? " **>10 %**" : ""),
                stfwpaper(sK[e], spf[e])
        }
    }
    if (length(ip) > 0) {
        print ""
        print "### In-place alltoallv (flat, 8 ranks per node, 2 MiB per rank)"
        print ""
        print "auto: the order nhood takes by default (lsa on two nodes split at p/2, else hsa);"
        print "auto/best against the faster of lsa and hsa."
        print ""
        print "| procs | MPICH order us | lsa us | hsa us | lsa/MPICH | hsa/MPICH | auto | auto us | auto/best | steps MPICH/lsa/hsa |"
        print "|---|---|---|---|---|---|---|---|---|---|"
        m = 0
        for (p in ip) ps[++m] = p + 0
        # insertion sort: POSIX awk has no asort
        for (i = 2; i <= m; i++)
            for (j = i; j > 1 && ps[j - 1] > ps[j]; j--) { x = ps[j]; ps[j] = ps[j - 1]; ps[j - 1] = x }
        for (i = 1; i <= m; i++) {
            p = ps[i]
            b = ipt[p, "lsa"] < ipt[p, "hsa"] ? ipt[p, "lsa"] : ipt[p, "hsa"]
            x = ipautous[p] == "" ? "" : ipautous[p] / b
            printf "| %d | %.1f | %.1f | %.1f | %.3f | %.3f | %s | %s | %s | %d/%d/%d |\n", p, ipn[p], ipt[p, "lsa"], ipt[p, "hsa"],
                ipt[p, "lsa"] / ipn[p], ipt[p, "hsa"] / ipn[p], ipauto[p] == "" ? "-" : ipauto[p],
                x == "" ? "-" : sprintf("%.1f", ipautous[p]), x == "" ? "-" : sprintf("%.3f%s", x, x > 1.10 ? " **>10 %**" : ""),
                2 * p - 1, ips[p, "lsa"], ips[p, "hsa"]
        }
    }
}' stfw-bl.tmp all.csv >summary.md
rm -f stfw-bl.tmp

# The nonblocking SpMV exchange (nbspmv-*.csv, their own columns: op,
# matrix, window_us, procs, bytes, algorithm, native_us, nhood_us, ratio,
# platform, rounds, max_msgs, max_volume, native_blocking_us).
if ls nbspmv-*.csv >/dev/null 2>&1; then
    {
        echo
        echo "## Nonblocking SpMV exchange (start, compute, wait)"
        echo
        echo "auto and MPI's own exchange, each timed from its start to the end of its wait with the"
        echo "computation between; window: the computation (0, or as long as MPI's blocking exchange)."
        echo
        echo "| experiment | platform | ranks | matrix | window µs | auto chose | MPI µs | auto µs | ratio |"
        echo "|---|---|---|---|---|---|---|---|---|"
        for f in nbspmv-*.csv; do
            awk -F, -v e="${f%.csv}" 'NR > 1 { printf "| %s | %s | %d | %s | %.1f | %s | %.1f | %.1f | %.3f |\n",
                e, $10, $4, $2, $3, substr($6, 6), $7, $8, $9 }' "$f"
        done
    } >>summary.md
fi

# Box-stencil halos (box-*.csv, nhood-sim's columns; bytes = the edge n).
if ls box-*.csv >/dev/null 2>&1; then
    {
        echo
        echo "## Box-stencil halos (MPI_Neighbor_alltoallv, no hint, non-periodic grid)"
        echo
        echo "Blocks of n^2, n and 1 doubles per face, edge and corner direction."
        echo
        echo "| experiment | platform | ranks | n | algorithm | MPI µs | nhood µs | ratio |"
        echo "|---|---|---|---|---|---|---|---|"
        for f in box-*.csv; do
            awk -F, -v e="${f%.csv}" 'NR > 1 { printf "| %s | %s | %d | %d | %s | %.1f | %.1f | %.3f |\n",
                e, $11, $5, $6, $7, $8, $9, $10 }' "$f"
        done
    } >>summary.md
fi

if command -v gnuplot >/dev/null 2>&1; then
    # Series per flat experiment: bytes, auto ratio.
    rm -f series-*.dat
    awk -F, 'NR > 1 && $1 ~ /^iso-.*-flat$/ && $8 ~ /^auto:/ {
        f = "series-" $2 "-" $3 "-d" $4 "r" $5 ".dat"; print $7, $11 >> f }' all.csv
    awk -F, 'NR > 1 && $1 ~ /^inplace-/ && $8 !~ /^auto:/ { print $6, $9, $10 >> ("inplace-" $8 ".dat") }' all.csv
    gnuplot <<'EOF'
set terminal pngcairo size 900,560
set output 'iso-flat.png'
set title 'Simulated, flat InfiniBand-class platform, 480 ranks (30 x 16): nhood auto / MPICH linear'
set logscale x 2
set xlabel 'block size (bytes)'
set ylabel 'time ratio (lower is better)'
set yrange [0:*]
set key outside right
files = system('ls series-*.dat')
plot for [f in files] f using 1:2 with linespoints title substr(f, 8, strlen(f) - 4), 1 with lines dt 2 lc rgb 'gray' notitle
EOF
    if ls inplace-*.dat >/dev/null 2>&1; then
        sort -n -o inplace-hsa.dat inplace-hsa.dat
        sort -n -o inplace-lsa.dat inplace-lsa.dat
        gnuplot <<'EOF'
set terminal pngcairo size 900,560
set output 'inplace.png'
set title 'Simulated in-place MPI_Alltoallv, flat platform, 8 ranks per node, 2 MiB per rank'
set logscale xy 2
set xlabel 'processes'
set ylabel 'time (us, simulated)'
set key left top
plot 'inplace-hsa.dat' using 1:2 with linespoints title 'MPICH order', \
     'inplace-lsa.dat' using 1:3 with linespoints title 'lsa', \
     'inplace-hsa.dat' using 1:3 with linespoints title 'hsa'
EOF
    fi
    rm -f series-*.dat inplace-*.dat
fi
cat summary.md
