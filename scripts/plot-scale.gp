# Ratio to MPI's own exchange against ranks, per platform and case
# (plot-scale.sh: cases "d3-8 d3-512 d5-8", dimensions and bytes).
set terminal pngcairo size 1200,(420 * words(cases)) noenhanced
set output outfile
set multiplot layout words(cases),2 title "Moore alltoall, simulated (SimGrid SMPI): nhood / MPI's own exchange"
set logscale x 2
# every panel on the same ranks, whatever it has simulated (one size, or none yet)
set xrange [724:23170]
set xtics (1024, 2048, 4096, 8192, 16384)
set xlabel "ranks"
set ylabel "time / MPI's own exchange"
set yrange [0:1.4]
set grid
set key bottom right
algos = "auto direct torus torus_direct bruck"
do for [c in cases] {
    do for [pf in "torus dragonfly"] {
        d = substr(c, 2, strstrt(c, "-") - 1)
        set title pf . ": " . d . "-D Moore, " . c[strstrt(c, "-") + 1:] . " B"
        plot for [a in algos] dir . "/" . pf . "-" . c . "-" . a . ".dat" using 1:2 with linespoints \
             lw (a eq "auto" ? 3 : 1) ps 1.2 title a, \
             1 with lines dt 2 lc rgb "black" notitle
    }
}
unset multiplot
