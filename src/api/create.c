/* Graph creation: MPI_Dist_graph_create_adjacent and MPI_Dist_graph_create
 * under nhood (the info keys agreed, MPI's own creation, its topology
 * mended where Open MPI 5.0 leaves the parent's, the plan: plan/detect.c). */
#include "api/api.h"
#include "nh_impl.h"

/* Info is a local argument: every rank parses its own, then all agree,
 * so that a malformed value on any rank fails the graph on all of them
 * instead of leaving the others in the collective, and the first such
 * rank says why; so do values that must be alike and differ (F_HINT,
 * plan/agree.c).  The agreement rides on the analysis' first reduction
 * (plan/detect.c): in the cold tier that is the graph's first analyzed
 * call, which then fails on every rank (cold), else the creation's.
 * Where nhood is off (NHOOD_DISABLE, NHOOD_EXCLUDE) the graph and its
 * info are MPI's alone: no parse, no reduction (the defaults). */
static int hint_parse(MPI_Comm comm_old, MPI_Info info, nh_hint *h)
{
    int size = 0, rc;
    long prod = 1;
    h->bad = nh_hint_parse(nh_active ? info : MPI_INFO_NULL, h, h->msg, sizeof(h->msg)) != 0;
    if (!nh_active || h->bad || h->ndims <= 0)
        return MPI_SUCCESS;
    if ((rc = nh_mpi_Comm_size(comm_old, &size)))
        return rc;
    for (int j = 0; j < h->ndims; j++)
        prod *= h->dims[j];
    if (prod != size) {
        snprintf(h->msg, sizeof(h->msg),
                 "info nhood_dims describes %ld processes, the communicator has %d", prod, size);
        h->bad = 1;
    }
    return MPI_SUCCESS;
}

/* Lists MPI_Dist_graph_create_adjacent accepts, on an intracommunicator:
 * degrees and ranks in range (MPI_PROC_NULL included). */
static int lists_valid(MPI_Comm comm, const nh_lists *l)
{
    int size, inter = 1;
    if (comm == MPI_COMM_NULL || nh_mpi_Comm_test_inter(comm, &inter) || inter ||
        nh_mpi_Comm_size(comm, &size) ||
        l->indeg < 0 || l->outdeg < 0 ||
        (l->indeg && !l->srcs) || (l->outdeg && !l->dsts))
        return 0;
    for (int i = 0; i < l->indeg; i++)
        if ((l->srcs[i] < 0 || l->srcs[i] >= size) && l->srcs[i] != MPI_PROC_NULL)
            return 0;
    for (int i = 0; i < l->outdeg; i++)
        if ((l->dsts[i] < 0 || l->dsts[i] >= size) && l->dsts[i] != MPI_PROC_NULL)
            return 0;
    return 1;
}

/* The analysis of a new graph communicator (or a cold one's record); the
 * report shows what the creation cost (t0: the call began, t1: MPI's own
 * creation began; read only under NHOOD_REPORT). */
static int plan_create(MPI_Comm comm_old, MPI_Comm *graph, const nh_hint *h, const nh_lists *lists,
                       nh_plan_start *begun, int no_forward, int cold, double t0, double t1)
{
    double t2 = nh_cfg.report ? nh_mpi_Wtime() : 0;
    nh_plan *p = NULL;
    int rc = cold ? nh_plan_create_cold(comm_old, *graph, h, lists, &p)
                  : nh_plan_create(comm_old, *graph, h, lists, begun, &p);
    /* every rank alike (a malformed hint is agreed): points on comm_old
     * analyze a cold graph and settle the nonblocking trials of any */
    if (rc != MPI_ERR_INFO_VALUE) {
        int e = nh_parents_adopt(comm_old, p, *graph);
        rc = rc ? rc : e;
    }
    if (p) {
        p->no_forward = no_forward;
        if (nh_cfg.report) {
            p->create_mpi_us = (t2 - t1) * 1e6;
            p->create_us = (nh_mpi_Wtime() - t0) * 1e6;
            nh_report_creation(p->create_us, p->create_mpi_us);
        }
    }
    if (rc == MPI_ERR_INFO_VALUE) { /* a malformed hint somewhere: no communicator */
        nh_mpi_Comm_free(graph);
        nh_mpi_Comm_call_errhandler(comm_old, rc);
    }
    return rc;
}

/* Open MPI 5.0 leaves a Cartesian or graph parent's topology on a
 * distributed graph made from it (MPI_Topo_test says the parent's;
 * open-mpi/ompi#14438), and its own neighborhood collectives and
 * topology queries are then wrong there: they fail, crash or answer for
 * the parent.  Where the new graph says so, which every rank sees alike
 * (the parent's topology is collective), *plain becomes comm_old's ranks
 * without a topology (MPI_Comm_split, same order) and the wrong graph is
 * freed, for the caller to make it again from *plain; else *plain is
 * MPI_COMM_NULL.  One MPI_Topo_test where MPI is right. */
static int topology_mend(MPI_Comm comm_old, MPI_Comm *graph, MPI_Comm *plain)
{
    *plain = MPI_COMM_NULL;
#if defined(MPICH_VERSION) && !defined(OPEN_MPI) /* MPICH's graphs are right: no test */
    (void)comm_old, (void)graph;
    return MPI_SUCCESS;
#else
    int topo = MPI_DIST_GRAPH, rank, rc;
    if ((rc = nh_mpi_Topo_test(*graph, &topo)) || topo == MPI_DIST_GRAPH)
        return rc;
    if ((rc = nh_mpi_Comm_rank(comm_old, &rank)) ||
        (rc = nh_mpi_Comm_split(comm_old, 0, rank, plain)))
        return rc;
    return nh_mpi_Comm_free(graph);
#endif
}

int nh_impl_MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                           const int *sourceweights, int outdegree,
                                           const int destinations[], const int *destweights,
                                           MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    return nh_graph_adjacent(comm_old, indegree, sources, sourceweights, outdegree, destinations,
                             destweights, info, reorder, 0, comm_dist_graph);
}

int nh_graph_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                      const int *sourceweights, int outdegree, const int destinations[],
                      const int *destweights, MPI_Info info, int reorder, int mend,
                      MPI_Comm *comm_dist_graph)
{
    nh_hint h;
    nh_plan_start *begun = NULL;
    double t0 = nh_cfg.report ? nh_mpi_Wtime() : 0;
    int no_forward, cold, rc = nh_start_with(comm_old);
    if (rc || (rc = nh_session_agree(comm_old, &no_forward, &cold)) ||
        (rc = hint_parse(comm_old, info, &h)))
        return rc;
    cold = cold && !mend; /* nhood's own graphs (Iso_neighborhood_create) are analyzed now */
    /* Without reordering the graph's ranks are comm_old's (MPI-4.0 7.5.4),
     * and MPI returns the lists as given: an analysis at creation starts
     * now and its collective runs while MPI creates the graph (a cold
     * graph keeps only the degrees).  Lists MPI would reject are left to
     * MPI to report. */
    nh_lists l = {indegree, outdegree, sources, destinations};
    int given = nh_active && !reorder && (cold || lists_valid(comm_old, &l));
    if (given && !cold && (rc = nh_plan_begin(comm_old, &h, &l, &begun)))
        return rc;
    double t1 = nh_cfg.report ? nh_mpi_Wtime() : 0;
    MPI_Comm plain = MPI_COMM_NULL;
    rc = nh_mpi_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree,
                                         destinations, destweights, info, reorder, comm_dist_graph);
    if (!rc && (nh_active || mend) && *comm_dist_graph != MPI_COMM_NULL &&
        !(rc = topology_mend(comm_old, comm_dist_graph, &plain)) && plain != MPI_COMM_NULL) {
        rc = nh_mpi_Dist_graph_create_adjacent(plain, indegree, sources, sourceweights, outdegree,
                                             destinations, destweights, info, reorder,
                                             comm_dist_graph);
        nh_mpi_Comm_free(&plain);
    }
    if (rc || !nh_active || *comm_dist_graph == MPI_COMM_NULL) {
        nh_plan_abandon(begun);
        return rc;
    }
    return plan_create(comm_old, comm_dist_graph, &h, given ? &l : NULL, begun, no_forward, cold,
                       t0, t1);
}

int nh_impl_MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                                  const int degrees[], const int destinations[],
                                  const int weights[], MPI_Info info, int reorder,
                                  MPI_Comm *comm_dist_graph)
{
    nh_hint h;
    double t0 = nh_cfg.report ? nh_mpi_Wtime() : 0;
    int no_forward, cold, rc = nh_start_with(comm_old);
    if (rc || (rc = nh_session_agree(comm_old, &no_forward, &cold)) ||
        (rc = hint_parse(comm_old, info, &h)))
        return rc;
    double t1 = nh_cfg.report ? nh_mpi_Wtime() : 0;
    MPI_Comm plain = MPI_COMM_NULL;
    rc = nh_mpi_Dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info, reorder,
                                comm_dist_graph);
    if (!rc && nh_active && *comm_dist_graph != MPI_COMM_NULL &&
        !(rc = topology_mend(comm_old, comm_dist_graph, &plain)) && plain != MPI_COMM_NULL) {
        rc = nh_mpi_Dist_graph_create(plain, n, sources, degrees, destinations, weights, info,
                                    reorder, comm_dist_graph);
        nh_mpi_Comm_free(&plain);
    }
    if (rc || !nh_active || *comm_dist_graph == MPI_COMM_NULL)
        return rc;
    return plan_create(comm_old, comm_dist_graph, &h, NULL, NULL, no_forward, cold, t0, t1);
}
