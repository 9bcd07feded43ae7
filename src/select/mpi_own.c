/* MPI's own exchange as a candidate of the learning (autotune.c) and of
 * the decisions other forms start from (select.c): as the program made
 * the call, or, where the library orders a repeated source's all-to-all
 * blocks wrongly (MPICH before 5.0, nh_mpilib_dup_edges_wrong) and some
 * rank lists a source twice: on MPICH 4.0, whose v and w forms are right,
 * a regular call as MPI's v call of the same blocks (api/cold_plain.c,
 * nh_cold_regular; named pmpi/each: MPI's messages, a block each), and
 * v and w calls as made; else in the grouped form the cold tier's calls
 * take there (api/cold.c, nh_grouped_call: every rank makes the same MPI
 * call, a repeated peer's blocks in one message), named pmpi/pack.  (At
 * 2 ranks on MPICH 4.0.2, 3-D Moore ialltoall of 16 KiB blocks, the
 * grouped form took 35 to 48 us against 52 to 75 for nhood's fastest
 * schedule with messages split at the eager limit, and 21.5 whole.) */
#include "select/learn.h"
#include "util/host.h"
#include "util/mpilib.h"

int nh_autotune_pmpi_ok(const nh_plan *p)
{
    return p->native_ok || !nh_mpilib_dup_edges_wrong();
}

/* Is MPI's own exchange right for coll as the program made it on p?
 * (MPICH 4.0 misorders a repeated source's blocks in the regular
 * all-to-all only.) */
static int as_made_right(const nh_plan *p, nh_coll coll)
{
    if (coll == NH_COLL_ALLTOALLV || coll == NH_COLL_ALLTOALLW)
        return p->native_ok || !nh_mpilib_dup_edges_wrong_vw();
    return nh_autotune_pmpi_ok(p);
}

int nh_mpi_own_ok(const nh_plan *p, nh_coll coll, nh_form form, nh_binding b)
{
    /* SMPI has no nonblocking neighborhood collectives of its own
     * (smpi/compat_nb.c stands in for two) */
    if (form != NH_FORM_BLOCKING && nh_host_simulated())
        return 0;
    /* where the program's call would be wrong: a regular call as MPI's v
     * call of the same blocks where that is right (MPICH 4.0), else the
     * grouped form */
    if (b == NH_BIND_EACH)
        return !as_made_right(p, coll) && coll == NH_COLL_ALLTOALL &&
               !nh_mpilib_dup_edges_wrong_vw();
    if (b == NH_BIND_PACK)
        return !as_made_right(p, coll) && (coll == NH_COLL_ALLTOALL || coll == NH_COLL_ALLTOALLV) &&
               nh_mpilib_dup_edges_wrong_vw();
    if (b != NH_BIND_AUTO)
        return 0;
    /* (MPI's allgather is right with repeated sources too, but at 2 ranks
     * on MPICH 4.0.2 it took 10 times nhood's schedules' time at 16 KiB:
     * its six trial calls alone cost a 1000-call run 5 %) */
    /* MPICH 4.0's MPI_Neighbor_alltoallw swaps the in- and out-degree
     * where they differ (the Iso layer packs around it, iso/iso_coll.c):
     * not for w calls where a rank's degrees may differ there */
    return as_made_right(p, coll) &&
           !(coll == NH_COLL_ALLTOALLW && !nh_full_template(p) && nh_mpilib_dup_edges_wrong());
}

nh_binding nh_learn_mpi_own(const nh_plan *p, const struct nh_learn *t)
{
    return nh_mpi_own_ok(p, t->coll, t->form, NH_BIND_AUTO)   ? NH_BIND_AUTO
           : nh_mpi_own_ok(p, t->coll, t->form, NH_BIND_EACH) ? NH_BIND_EACH
           : nh_mpi_own_ok(p, t->coll, t->form, NH_BIND_PACK) ? NH_BIND_PACK
                                                              : NH_BIND_COUNT;
}

int nh_learn_applicable(nh_plan *p, const struct nh_learn *t, nh_algo a, nh_binding b)
{
    if (a == NH_ALGO_PMPI)
        return nh_mpi_own_ok(p, t->coll, t->form, b);
    const nh_sched *s = nh_autotune_sched(p, t->coll, a, t->m);
    return s && (s->tmpl_rounds <= 1 || nh_may_forward(p, t->form, 1));
}
