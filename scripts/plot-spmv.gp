# SpMV benchmark (scripts/run-spmv-bench.sh): communication and total SpMV
# time per matrix, native against nhood (medians of the maximum over ranks).
set terminal pngcairo size 1100,600 noenhanced
set output outfile
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set ylabel "time per SpMV (us, lower is better)"
set title sprintf("distributed SpMV, MPI_Neighbor_alltoallv halo exchange, %d ranks", procs)
set key outside right autotitle columnheader
set xtics rotate by -30
set grid ytics
set yrange [0:*]
plot datafile using 2:xtic(1), '' using 3, '' using 4, '' using 5
