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
 * for K / k_1), the plain VPT is used. */
#include <hwloc.h>
#include <math.h>
#include <stdlib.h>

#include "exec/stfw_exec.h"

typedef struct place {
    int node, numa, rank;
} place;

static int place_cmp(const void *a, const void *b)
{
    const place *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->numa != y->numa)
        return x->numa < y->numa ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Index of the NUMA node (or else package) this process is bound to, -1
 * if unbound or unknown.  The topology is loaded once per process. */
static int numa_index(void)
{
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
}

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int nh_vpt_node(MPI_Comm comm, int n, nh_vpt *v, int *applied)
{
    int rc, K, rank, node = 0;
    MPI_Comm nc = MPI_COMM_NULL;
    *applied = 0;
    if ((rc = PMPI_Comm_size(comm, &K)) || (rc = PMPI_Comm_rank(comm, &rank)))
        return rc;
    if (n < 2) /* one stage: everything is direct anyway */
        return MPI_SUCCESS;
    /* The node is named by its lowest rank. */
    if ((rc = nh_comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, &nc)))
        return rc;
    rc = PMPI_Allreduce(&rank, &node, 1, MPI_INT, MPI_MIN, nc);
    nh_comm_free(&nc);
    if (rc)
        return rc;
    place me = {node, numa_index(), rank}, *all = malloc((size_t)K * sizeof(place));
    int *order = malloc((size_t)K * sizeof(int));
    if (!all || !order) {
        free(all);
        free(order);
        return MPI_ERR_NO_MEM;
    }
    if ((rc = PMPI_Allgather(&me, 3, MPI_INT, all, 3, MPI_INT, comm)))
        goto out;
    qsort(all, (size_t)K, sizeof(place), place_cmp);
    int g = 0, nodes = 0;
    for (int i = 0; i < K;) {
        int j = i;
        while (j < K && all[j].node == all[i].node)
            j++;
        g = gcd(g, j - i);
        nodes++;
        i = j;
    }
    if (nodes < 2 || g < 2)
        goto out;
    nh_vpt plain;
    if (nh_vpt_init(&plain, K, n, 0))
        goto out;
    int best = 0;
    double target = log((double)plain.dims[0]), bd = 0;
    for (int f = 2; f <= g; f++) {
        nh_vpt t;
        if (g % f || nh_vpt_init(&t, K, n, f))
            continue;
        double d = fabs(log((double)f) - target);
        if (!best || d <= bd) {
            best = f;
            bd = d;
        }
    }
    if (!best || nh_vpt_init(v, K, n, best))
        goto out;
    for (int i = 0; i < K; i++)
        order[i] = all[i].rank;
    if (nh_vpt_set_order(v, order)) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    *applied = 1;
out:
    free(all);
    free(order);
    return rc;
}
