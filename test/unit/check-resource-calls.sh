#!/bin/sh
# Every MPI object nhood creates must be counted (src/util/resource.c), or
# nhood_resource_counts and the leak test (test/mpi/test_leaks.c) would
# miss it: no creating PMPI call may appear in src/ outside resource.c.
# (Frees may: nhood also passes the application's own requests through,
# and an uncounted free of nhood's objects shows up in the leak test.
# PMPI_Ineighbor_* and PMPI_Neighbor_*_init appear only where nhood hands
# the application's call to MPI unchanged.  src/smpi/ is not part of
# libnhood: it stands in for the MPI library under SimGrid SMPI.)
# Prints TAP (one case) and "N passed, N failed".
: "${srcdir:=.}"
calls='PMPI_(Comm_(dup|dup_with_info|idup|split|split_type|create|create_group|create_from_group)|Type_(create_[a-z_]+|contiguous|vector|indexed|dup|get_contents)|I[sbr]?send|Irecv|[SBR]?[Ss]end_init|Recv_init|Ibarrier|Iallreduce)[[:space:]]*\('
hits=$(cd "$srcdir" && grep -En "$calls" src/*/*.c | grep -v '^src/util/resource\.c:\|^src/smpi/')
if [ -n "$hits" ]; then
    echo "not ok 1 - uncounted MPI object creation outside src/util/resource.c:"
    echo "$hits" | sed 's/^/#     /'
    echo "0 passed, 1 failed"
    echo "1..1"
    exit 1
fi
echo "ok 1 - every MPI object nhood creates goes through src/util/resource.c"
echo "1 passed, 0 failed"
echo "1..1"
