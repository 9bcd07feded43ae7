/* Agreement points: the blocking collectives on a graph communicator
 * (MPI_Barrier, MPI_Bcast, MPI_Reduce, MPI_Allreduce; the blocking
 * neighborhood calls are points too, api/neighbor.c).
 *
 * A nonblocking start is local: nhood must not wait there for another
 * rank, so neither the agreement of nonblocking trials nor a cold graph's
 * analysis may happen in one.  These calls are collective over the
 * communicator, every rank makes them in the same order relative to its
 * other collectives on it (nonblocking starts included), and MPI allows
 * any of them to synchronize; so every rank reaches a given one with the
 * same calls made and the same state, and nhood may communicate there
 * (on the plan's private communicator, or, for the analysis, as a
 * blocking neighborhood call would).  A program with none keeps the
 * blocking form's decision or the model's for its nonblocking calls, and
 * a cold graph used only by nonblocking calls stays with MPI's exchange.
 * A blocking collective on the communicator a graph was made from is a
 * point for that graph too (api/parents.c).  Where nothing waits, one
 * test per call. */
#include "api/api.h"
#include "nh_impl.h"
#include "util/mpilib.h"

NH_HOT static int at_point(MPI_Comm comm)
{
    if (!(__atomic_load_n(&nh_learn_nawait, __ATOMIC_RELAXED) |
          __atomic_load_n(&nh_plan_nripe, __ATOMIC_RELAXED) | nh_parents_live) ||
        !nh_active)
        return MPI_SUCCESS;
    nh_plan *p = nh_plan_get(comm);
    int rc = MPI_SUCCESS;
    if (p && nh_plan_cold_ripe(p)) { /* where it fails, the graph's calls go to MPI */
        nh_plan_analyze(p, comm);
        nh_report_analyzed(p);
    } else if (p && nh_autotune_pending(p)) {
        rc = nh_autotune_settle(p);
    }
    /* a point on the graphs made from comm too (api/parents.c) */
    return rc || !nh_parents_live ? rc : nh_parents_point(comm);
}

NH_HOT int nh_impl_MPI_Barrier(MPI_Comm comm)
{
    int rc = at_point(comm);
    return rc ? rc : nh_mpi_Barrier(comm);
}

NH_HOT int nh_impl_MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
                             MPI_Comm comm)
{
    int rc = at_point(comm);
    return rc ? rc : nh_mpi_Bcast(buffer, count, datatype, root, comm);
}

NH_HOT int nh_impl_MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                              MPI_Op op, int root, MPI_Comm comm)
{
    int rc = at_point(comm);
    return rc ? rc : nh_mpi_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}

NH_HOT int nh_impl_MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int rc = at_point(comm);
    return rc ? rc : nh_mpi_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}
