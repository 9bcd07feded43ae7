/* Node-aware virtual process topology for store-and-forward (beyond the
 * paper, which places ranks on the VPT in rank order).
 *
 * Stage 1 forwards every block whose first coordinate differs, so it
 * carries the most messages; if the k_1 ranks of each first-dimension
 * group share a node, that stage is shared-memory traffic.  Ranks are
 * sorted by (node, NUMA node within it, rank) and placed at consecutive
 * positions; a first-dimension group is k_1 consecutive positions, so it
 * stays on one node exactly when k_1 divides every node's rank count.
 * Node sizes may differ (MPI Advance's locality-aware exchanges assume
 * equal ones): k_1 is taken among the divisors of their greatest common
 * divisor, the one closest to the balanced VPT's largest dimension, and
 * the other dimensions balance K / k_1.  Within a node, sorting by the
 * hwloc NUMA node (then package) the process is bound to keeps a group
 * inside one memory domain where the counts allow.  When no divisor fits
 * (a single node, one rank per node, coprime node sizes, or n too large
 * for K / k_1), the plain VPT is used.  The placement itself is pure
 * (nh_vpt_grouped in core/vpt.c, unit-tested); here the node and NUMA
 * indices are found and gathered.  The same gather gives the node
 * aggregation route (nh_vpt_agg), store-and-forward's other candidate. */
#include <stdlib.h>

#include "plan/stfw_setup.h"
#include "util/host.h"

int nh_vpt_node(MPI_Comm comm, int n, nh_vpt *v, nh_vpt *agg, int *applied, int *agg_ok)
{
    int rc, K, node = 0;
    *applied = *agg_ok = 0;
    if ((rc = nh_mpi_Comm_size(comm, &K)))
        return rc;
    if ((rc = nh_node_leader(comm, &node)))
        return rc;
    int me[2] = {node, nh_host_numa_index()}, *all = malloc((size_t)K * 2 * sizeof(int));
    if (!all)
        return MPI_ERR_NO_MEM;
    if (!(rc = nh_mpi_Allgather(me, 2, MPI_INT, all, 2, MPI_INT, comm))) {
        /* n = 1: one stage, everything direct anyway */
        int got = n < 2 ? 0 : nh_vpt_grouped(v, K, n, all), ga = nh_vpt_agg(agg, K, all);
        if (got < 0 || ga < 0)
            rc = MPI_ERR_NO_MEM;
        *applied = got == 1;
        *agg_ok = ga == 1;
    }
    free(all);
    return rc;
}
