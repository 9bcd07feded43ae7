# Ratio nhood/native against block size for every series run-bench.sh wrote.
set terminal pngcairo size 1000,600 noenhanced
set output outfile
set logscale x 2
set xlabel "block size (bytes)"
set ylabel "time ratio nhood / native (lower is better)"
set title sprintf("nhood vs native MPI_Neighbor_*, %d ranks (medians)", procs)
set key outside right
set grid
files = system("ls " . dir . "/series-*.dat")
plot for [f in files] f using 1:2 with linespoints title system("basename " . f . " .dat | sed s/series-//"), \
     1 with lines lw 2 lc rgb "black" title "native"
