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
 * (nh_vpt_grouped in sched/stfw.c, unit-tested); here the node and NUMA
 * indices are found and gathered. */
#include <stdlib.h>
#ifndef NHOOD_SMPI
#include <hwloc.h>
#endif

#include "exec/stfw_exec.h"

/* Index of the NUMA node (or else package) this process is bound to, -1
 * if unbound or unknown.  The topology is loaded once per process. */
static int numa_index(void)
{
#ifdef NHOOD_SMPI
    return -1; /* simulated nodes (MPI_Comm_split_type) have no NUMA layout */
#else
    static int cached = -2;
    if (cached != -2)
        return cached;
    cached = -1;
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo))
        return cached;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (set && hwloc_topology_load(topo) == 0 &&
        hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0 && !hwloc_bitmap_iszero(set)) {
        hwloc_obj_t o = hwloc_get_obj_covering_cpuset(topo, set);
        while (o && o->type != HWLOC_OBJ_PACKAGE && o->type != HWLOC_OBJ_MACHINE &&
               !(o->memory_arity > 0))
            o = o->parent;
        if (o && o->type != HWLOC_OBJ_MACHINE) {
            if (o->memory_arity > 0 && o->memory_first_child)
                cached = (int)o->memory_first_child->logical_index;
            else
                cached = 1000000 + (int)o->logical_index;
        }
    }
    if (set)
        hwloc_bitmap_free(set);
    hwloc_topology_destroy(topo);
    return cached;
#endif
}

int nh_vpt_node(MPI_Comm comm, int n, nh_vpt *v, int *applied)
{
    int rc, K, node = 0;
    *applied = 0;
    if ((rc = PMPI_Comm_size(comm, &K)))
        return rc;
    if (n < 2) /* one stage: everything is direct anyway */
        return MPI_SUCCESS;
    if ((rc = nh_node_leader(comm, &node)))
        return rc;
    int me[2] = {node, numa_index()}, *all = malloc((size_t)K * 2 * sizeof(int));
    if (!all)
        return MPI_ERR_NO_MEM;
    if (!(rc = PMPI_Allgather(me, 2, MPI_INT, all, 2, MPI_INT, comm))) {
        int got = nh_vpt_grouped(v, K, n, all);
        if (got < 0)
            rc = MPI_ERR_NO_MEM;
        *applied = got == 1;
    }
    free(all);
    return rc;
}
