# Ratio to MPI's own exchange against ranks, per platform (plot-scale.sh).
set terminal pngcairo size 1200,500 noenhanced
set output outfile
set multiplot layout 1,2 title "3-D Moore alltoall, 8 B, simulated (SimGrid SMPI): nhood / MPI's own exchange"
set logscale x 2
set xlabel "ranks"
set ylabel "time / MPI's own exchange"
set yrange [0:1.1]
set grid
set key bottom right
algos = "auto direct torus torus_direct bruck"
do for [pf in "torus dragonfly"] {
    set title pf
    plot for [a in algos] dir . "/" . pf . "-8-" . a . ".dat" using 1:2 with linespoints \
         lw (a eq "auto" ? 3 : 1) ps 1.2 title a, \
         1 with lines dt 2 lc rgb "black" notitle
}
unset multiplot
