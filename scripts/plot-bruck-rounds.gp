# Rounds (left) and messages (right) per rank against s (plot-bruck-rounds.sh).
set terminal pngcairo size 1200,500 noenhanced
set output outfile
set multiplot layout 1,2 title "alltoall schedules at 480 ranks (nhood-sched): Moore, von Neumann, octant, shales"
set logscale x 2
set xlabel "neighbors s"
set grid
set key top left
algos = "torus torus_direct bruck bruck:2 bruck:8"
set ylabel "rounds (phases)"
plot for [a in algos] dir . "/" . a . ".dat" using 1:2 with points ps 1.5 title a, \
     log(x + 1) / log(2) + 1 with lines dt 2 lc rgb "black" title "log2(s+1)+1"
set ylabel "messages per rank"
set logscale y 2
plot for [a in algos] dir . "/" . a . ".dat" using 1:3 with points ps 1.5 title a, \
     x with lines dt 2 lc rgb "gray" title "s (native)"
unset multiplot
