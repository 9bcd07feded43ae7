/* A plan's parts made on first use, after creation (plan/detect.c): the
 * sources' half of the neighborhood, the private communicator of a
 * duplicate, the size-coupling test, and the schedules. */
#include <stdlib.h>

#include "plan/plan.h"
#include "util/sync.h"

/* The cost model's network (NHOOD_COST_RING, or NHOOD_COST_TIER1..3). */
static void node_stats(const nh_plan *p, nh_sched *s)
{
    nh_net net;
    nh_cost_net(&nh_cfg.cost, &net);
    nh_sched_node_stats(s, &p->nb.g, p->node_of, p->nnodes, &net);
}

/* The sources' half of a neighborhood (pend_sources), once, whoever asks
 * first (copies of the communicator share it).  A misfit means the graph
 * is not consistent (a rank's sources are not the ranks that list it as a
 * destination): an erroneous program. */
static int sources_ready(nh_plan *p)
{
    nh_plan *root = p->root ? p->root : p;
    int rc = MPI_SUCCESS;
    if (!__atomic_load_n(&root->pend_srcs, __ATOMIC_ACQUIRE))
        return MPI_SUCCESS;
    nh_lock(NH_LOCK_MISC);
    if (root->pend_srcs) {
        int fit = nh_nbhd_fill_recv(&root->nb, root->pend_srcs);
        if (fit > 0) {
            nh_error("rank %d's sources are not the ranks that list it as a destination "
                     "(MPI_Dist_graph_create_adjacent: the graph is not consistent)",
                     root->nb.rank);
            rc = MPI_ERR_TOPOLOGY;
        } else if (fit < 0)
            rc = MPI_ERR_NO_MEM;
        else {
            free(root->pend_srcs);
            __atomic_store_n(&root->pend_srcs, NULL, __ATOMIC_RELEASE);
        }
    }
    nh_unlock(NH_LOCK_MISC);
    return rc;
}

NH_HOT int nh_plan_ready(nh_plan *p, MPI_Comm comm)
{
    int rc = sources_ready(p);
    if (rc || !p->lazy_pcomm)
        return rc;
    p->lazy_pcomm = 0;
    return p->pcomm != MPI_COMM_NULL ? MPI_SUCCESS : nh_comm_dup(comm, &p->pcomm);
}

int nh_plan_coupled(nh_plan *p)
{
    /* The coupling test walks the whole grid: not at creation, where most
     * programs never need it, and never where it would be slow (then the
     * choice stays size-independent). */
    if (p->coupled < 0)
        p->coupled = (long)p->nb.g.size * (p->nb.s + 1) <= 50000000L &&
                     nh_sizes_coupled(&p->nb.g, p->nb.s, p->nb.off);
    return p->coupled;
}

const nh_sched *nh_plan_sched_ports(nh_plan *p, nh_op op, int k)
{
    if (p->root)
        p = p->root;
    nh_sched *s = __atomic_load_n(&p->bruck[op][k - 1], __ATOMIC_ACQUIRE);
    if (s || sources_ready(p))
        return s;
    nh_lock(NH_LOCK_MISC);
    if (!(s = p->bruck[op][k - 1])) {
        nh_nbhd nb = p->nb; /* shares the arrays; only ports differ */
        nb.ports = k;
        nh_build_bruck(&nb, op, &s);
        if (s && p->node_of)
            node_stats(p, s);
        __atomic_store_n(&p->bruck[op][k - 1], s, __ATOMIC_RELEASE);
    }
    nh_unlock(NH_LOCK_MISC);
    return s;
}

const nh_sched *nh_plan_sched(nh_plan *p, nh_op op, nh_algo a)
{
    if (a == NH_ALGO_BRUCK) {
        int ports = (p->root ? p->root : p)->ports;
        if (ports)
            return nh_plan_sched_ports(p, op, ports);
        const nh_sched *best = NULL;
        for (int k = 1; k <= NH_MAX_PORTS; k++) {
            const nh_sched *s = nh_plan_sched_ports(p, op, k);
            if (s && (!best || s->tmpl_rounds < best->tmpl_rounds ||
                      (s->tmpl_rounds == best->tmpl_rounds && s->tmpl_msgs < best->tmpl_msgs)))
                best = s;
        }
        return best;
    }
    if (p->root) /* schedules belong to the analysis */
        p = p->root;
    /* Built once, on first use; duplicates used by other threads may ask
     * for the same schedule at the same time. */
    nh_sched *s = __atomic_load_n(&p->sched[op][a], __ATOMIC_ACQUIRE);
    if (s || !nh_algos[a].build || sources_ready(p))
        return s;
    nh_lock(NH_LOCK_MISC);
    if (!(s = p->sched[op][a])) {
        nh_algos[a].build(&p->nb, op, &s);
        if (s && p->node_of)
            node_stats(p, s);
        __atomic_store_n(&p->sched[op][a], s, __ATOMIC_RELEASE);
    }
    nh_unlock(NH_LOCK_MISC);
    return s;
}

const nh_sched *nh_plan_sched_split(nh_plan *p, nh_algo a)
{
    if (p->root)
        p = p->root;
    if (a != NH_ALGO_TORUS && a != NH_ALGO_TORUS_DIRECT)
        return NULL;
    nh_sched *s = __atomic_load_n(&p->split[a], __ATOMIC_ACQUIRE);
    if (s || sources_ready(p))
        return s;
    nh_lock(NH_LOCK_MISC);
    if (!(s = p->split[a])) {
        nh_algos[a].build(&p->nb, NH_OP_ALLTOALL, &s);
        if (s && nh_sched_add_alt(s, &p->nb, a == NH_ALGO_TORUS_DIRECT)) {
            nh_sched_free(s);
            s = NULL;
        }
        if (s && p->node_of)
            node_stats(p, s);
        __atomic_store_n(&p->split[a], s, __ATOMIC_RELEASE);
    }
    nh_unlock(NH_LOCK_MISC);
    return s;
}
