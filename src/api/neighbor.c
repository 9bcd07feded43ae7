/* The neighborhood collectives, every one in every form (api/colls.h):
 * each entry point describes its arguments, nh_neighbor runs the call
 * with nhood's schedule (blocking: start + wait on the engine;
 * nonblocking and persistent: nhood's request) or declines it
 * (NH_TO_PMPI, util/util.h), and the entry point makes MPI's own call. */
#include "api/api.h"
#include "exec/request.h"
#include "nh_impl.h"
#include "plan/stfw_setup.h"
#include "util/mpilib.h"
#include "util/window.h"

nh_coll_hook_fn nh_coll_hook;

/* The binding the report shows: the cost model's, or for v/w calls the
 * one the binding ended up with (a struct somewhere: zcopy). */
static nh_binding shown_binding(const nh_choice *ch, int zcopy)
{
    if (ch->o.kind != NH_BIND_AUTO)
        return ch->o.kind;
    return zcopy ? NH_BIND_ZCOPY : NH_BIND_PACK;
}

/* An autotune trial of MPI's own exchange: blocking, or started and
 * handed to nhood's request so that the completion calls time it. */
static int pmpi_trial(nh_plan *p, nh_coll coll, nh_form form, const nh_args *a, MPI_Comm comm,
                      MPI_Request *req)
{
    MPI_Request inner, *r = form == NH_FORM_BLOCKING ? NULL : &inner;
    int rc;
    switch (coll) {
    case NH_COLL_ALLTOALL:
        rc = r ? nh_mpi_Ineighbor_alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                                           a->rtype, comm, r)
               : nh_mpi_Neighbor_alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                                          a->rtype, comm);
        break;
    case NH_COLL_ALLGATHER:
        rc = r ? nh_mpi_Ineighbor_allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                                            a->rtype, comm, r)
               : nh_mpi_Neighbor_allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                                           a->rtype, comm);
        break;
    case NH_COLL_ALLTOALLV:
        rc = r ? nh_mpi_Ineighbor_alltoallv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf,
                                            a->rcounts, a->rdispls, a->rtype, comm, r)
               : nh_mpi_Neighbor_alltoallv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf,
                                           a->rcounts, a->rdispls, a->rtype, comm);
        break;
    case NH_COLL_ALLTOALLW:
        rc = r ? nh_mpi_Ineighbor_alltoallw(a->sbuf, a->scounts, a->sdisplsw, a->stypes, a->rbuf,
                                            a->rcounts, a->rdisplsw, a->rtypes, comm, r)
               : nh_mpi_Neighbor_alltoallw(a->sbuf, a->scounts, a->sdisplsw, a->stypes, a->rbuf,
                                           a->rcounts, a->rdisplsw, a->rtypes, comm);
        break;
    default:
        rc = r ? nh_mpi_Ineighbor_allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts,
                                             a->rdispls, a->rtype, comm, r)
               : nh_mpi_Neighbor_allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts,
                                            a->rdispls, a->rtype, comm);
    }
    return rc || !r ? rc : nh_req_wrap(p, inner, req);
}

/* MPI's own exchange as choice ch says (nh_own_call): in the grouped
 * form where its binding is NH_BIND_PACK, a regular call as MPI's v call
 * where NH_BIND_EACH (MPICH 4.0), else NH_TO_PMPI, as also where this
 * rank's grouped call is the program's own (the caller makes it). */
NH_HOT static int mpi_own(nh_plan *p, const nh_choice *ch, nh_coll coll, nh_form form,
                          const nh_args *a, MPI_Comm comm, MPI_Request *req)
{
    return nh_own_call(p, ch->o.kind, coll, form, a, comm, req);
}

/* A trial of MPI's own exchange (mpi_own), made here where it is the
 * program's call, so that it is timed. */
static int own_trial(nh_plan *p, const nh_choice *ch, nh_coll coll, nh_form form, const nh_args *a,
                     MPI_Comm comm, MPI_Request *req)
{
    int rc = mpi_own(p, ch, coll, form, a, comm, req);
    return rc == NH_TO_PMPI ? pmpi_trial(p, coll, form, a, comm, req) : rc;
}

/* The report's count of a call and, for nonblocking and persistent
 * forms, the window and reason auto priced it with (rec may be NULL). */
NH_HOT static void count_call(nh_report_rec *rec, const nh_plan *p, nh_form form,
                              const nh_choice *ch)
{
    if (!rec)
        return;
    if (form != NH_FORM_PERSISTENT || ch->algo == NH_ALGO_PMPI)
        rec->calls[ch->algo]++; /* nhood's persistent requests count their starts */
    if (ch->tuning)
        rec->trials[ch->algo]++;
    /* a trial, or another form's interim choice: nothing decided yet */
    rec->measuring = ch->tuning || ch->tuned == NH_TUNED_FIRST_ROUND;
    if (form != NH_FORM_BLOCKING) {
        rec->window = p->window;
        rec->why = ch->why;
    }
}

/* A call that goes to MPI's own exchange as decided before, without its
 * blocks described (nh_select_passes, nh_select_again): counted, and
 * made as mpi_own says. */
NH_HOT static int own_again(nh_plan *p, const nh_choice *ch, nh_coll coll, nh_form form,
                            const nh_args *a, MPI_Comm comm, MPI_Request *req)
{
    nh_req_progress();
    count_call(nh_report_rec_get(p, coll, form), p, form, ch);
    return mpi_own(p, ch, coll, form, a, comm, req);
}

int nh_neighbor_cold(nh_plan *p, nh_coll coll, nh_form form, MPI_Comm comm)
{
    int due = nh_plan_cold_due(p, form == NH_FORM_BLOCKING);
    if (due == NH_COLD_ENDS) { /* analyzed at a parent's point: from this call on */
        nh_plan_cold_end(p);
        return MPI_SUCCESS;
    }
    if (due) {
        int rc = nh_plan_analyze(p, comm);
        nh_report_analyzed(p);
        if (rc)
            nh_mpi_Comm_call_errhandler(comm, rc);
        return rc;
    }
    nh_report_rec *r = nh_report_rec_get(p, coll, form);
    if (r) {
        r->calls[NH_ALGO_PMPI]++;
        r->cold++;
    }
    return NH_TO_PMPI;
}

/* A call whose blocks nhood describes (nh_call_init): chosen for its
 * sizes, and run by MPI, by nhood's engine, or as a trial. */
static int described(nh_plan *p, nh_coll coll, nh_form form, const nh_args *a, MPI_Comm comm,
                     MPI_Request *req)
{
    nh_call c = {0};
    nh_choice ch;
    int rc, zcopy = 0;
    size_t m;
    unsigned long sig;
    if ((rc = nh_call_init(&c, coll, a, p)))
        goto out;
    /* store-and-forward set up where every rank is sure to take part */
    if (p->stfw_wait && form == NH_FORM_BLOCKING && (rc = nh_stfw_lazy(p, comm)))
        goto out;
    nh_req_progress();
    if (nh_coll_vec(coll) && p->isomorphic && p->hinted && nh_cfg.check &&
        (rc = nh_call_check(p, coll, &c, comm)))
        goto out;
    m = nh_call_block(&c, p);
    sig = nh_call_sig(&c, p);
    if ((rc = nh_stfw_choose(p, coll, form, p->stfw ? nh_call_bytes(&c, p) : 0, &ch)) ||
        (ch.algo == NH_ALGO_AUTO && (rc = nh_select(p, coll, form, m, sig, &ch))))
        goto out;
    nh_report_rec *rec = nh_report_rec_get(p, coll, form);
    if (rec && !rec->stfw_dims) /* where set up, also when not chosen; after the re-check */
        nh_report_stfw(p, nh_coll_op(coll), rec);
    if (rec)
        rec->stfw_setup = nh_stfw_when(p);
    count_call(rec, p, form, &ch);
    if (rec && ch.tuned) /* NHOOD_AUTOTUNE: trials, the tuning file or the model */
        rec->tuned |= 1 << ch.tuned;
    if (rec && ch.s) { /* the schedule run (bruck: of the port count chosen) */
        rec->rounds[ch.algo] = ch.s->tmpl_rounds;
        rec->msgs[ch.algo] = ch.s->tmpl_msgs;
    }
    if (ch.algo == NH_ALGO_PMPI && !ch.tuning) { /* as made, or grouped (select/mpi_own.c) */
        nh_call_keep(p, coll, form, a, m, sig);
        rc = mpi_own(p, &ch, coll, form, a, comm, req);
        goto out;
    }
    double t0 = ch.tuning ? nh_mpi_Wtime() : 0;
    if (ch.algo == NH_ALGO_PMPI) {
        rc = own_trial(p, &ch, coll, form, a, comm, req);
    } else {
        long built = nh_exec_built(p);
        nh_call_describe(&c); /* what the engine needs beyond the sizes */
        rc = form == NH_FORM_BLOCKING
                 ? nh_run_blocking(p, ch.s, &c, &ch.o, &zcopy)
                 : nh_req_create(p, ch.s, &c, &ch.o, form == NH_FORM_PERSISTENT,
                                 rec ? &rec->calls[ch.algo] : NULL, &zcopy, req);
        if (rec)
            rec->binds += nh_exec_built(p) - built;
    }
    if (rec)
        rec->last_binding = shown_binding(&ch, zcopy);
    nh_learn_key lk = {coll, form, m, sig};
    if (!rc && ch.tuning && form == NH_FORM_BLOCKING) {
        rc = nh_autotune_record(p, &lk, nh_mpi_Wtime() - t0);
    } else if (!rc && ch.tuning) {
        double spent = nh_mpi_Wtime() - t0;
        /* (the grouped form's call on a rank that lists no peer twice is
         * MPI's own request: nhood's around it times it) */
        if (ch.paid && !nh_req_time(*req, spent, ch.paid) && !(rc = nh_req_wrap(p, *req, req)))
            nh_req_time(*req, spent, ch.paid);
        nh_autotune_started(p, &lk);
    }
out:
    nh_call_fini(&c);
    return nh_call_result(comm, rc);
}

/* The calls' own path (NH_HOT): where a decision stands, MPI's own
 * exchange without the blocks described (and without nh_call's
 * initialization, which costs a cold call more than the checks). */
NH_HOT int nh_neighbor(nh_coll coll, nh_form form, const nh_args *a, MPI_Comm comm,
                       MPI_Request *req)
{
    nh_plan *p = nh_active ? nh_plan_get(comm) : NULL;
    nh_choice ch;
    int rc;
    if (!p)
        return NH_TO_PMPI;
    if (p->cold && (rc = nh_neighbor_cold(p, coll, form, comm)))
        return rc == NH_TO_PMPI ? nh_cold_call(p, coll, form, a, comm, req) : rc;
    nh_autotune_count(p);
    /* a blocking call: where nonblocking trials of any size agree */
    if (form == NH_FORM_BLOCKING && nh_autotune_pending(p) && (rc = nh_autotune_settle(p)))
        return nh_call_result(comm, rc);
    if (a->sbuf == MPI_IN_PLACE)
        return NH_TO_PMPI;
    if (p->gpu) /* buffers nhood's CPU must not touch (agreed at creation; util/gpu.h) */
        return nh_call_gpu_passed(p, coll, form);
    if (nh_cfg.check && (rc = nh_call_check_host(p, coll, form, a, comm)))
        return rc;
    /* MPI's own exchange whatever the sizes: before describing the blocks,
     * which costs a v or w call about what MPI's exchange of small blocks
     * does */
    if (nh_select_passes(p, coll, form, &ch))
        return nh_call_result(comm, own_again(p, &ch, coll, form, a, comm, req));
    /* A copy of an analyzed graph makes its private communicator at its
     * first blocking call (collective); its starts go to MPI until then:
     * as made where MPI's exchange is right on it, else in the form the
     * cold tier's calls take, right on every library (api/cold.c,
     * nh_right_call;
     * before, the start made the communicator there: a start that waited
     * for the other ranks) */
    if (p->lazy_pcomm && form != NH_FORM_BLOCKING) {
        nh_report_rec *r = nh_report_rec_get(p, coll, form);
        if (r)
            r->calls[NH_ALGO_PMPI]++;
        if (p->native_ok || nh_coll_op(coll) == NH_OP_ALLGATHER || !nh_mpilib_dup_edges_wrong())
            return NH_TO_PMPI;
        return nh_call_result(comm, nh_right_call(p, coll, form, a, comm, req));
    }
    nh_stfw_count_call(p);
    size_t m;
    unsigned long sig;
    /* the sizes of the last call, which went to MPI's own exchange: again,
     * without describing the blocks (nor nh_plan_ready: that call made the
     * plan ready, and MPI's exchange needs none of it); the sizes compared
     * only where that call went there */
    if (nh_select_own_last(p, coll, form) && nh_call_repeats(p, coll, form, a, &m, &sig) &&
        nh_select_again(p, coll, form, m, sig, &ch))
        return nh_call_result(comm, own_again(p, &ch, coll, form, a, comm, req));
    if ((rc = nh_plan_ready(p, comm)))
        return nh_call_result(comm, rc);
    return described(p, coll, form, a, comm, req);
}

/* Each collective's arguments. */
static void args_alltoall(nh_args *a, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype)
{
    *a = (nh_args){.sbuf = sendbuf,
                   .scount = sendcount,
                   .stype = sendtype,
                   .rbuf = recvbuf,
                   .rcount = recvcount,
                   .rtype = recvtype};
}

static void args_allgather(nh_args *a, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype)
{
    args_alltoall(a, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
}

static void args_alltoallv(nh_args *a, const void *sendbuf, const int sendcounts[],
                           const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                           const int recvcounts[], const int rdispls[], MPI_Datatype recvtype)
{
    *a = (nh_args){.sbuf = sendbuf,
                   .scounts = sendcounts,
                   .sdispls = sdispls,
                   .stype = sendtype,
                   .rbuf = recvbuf,
                   .rcounts = recvcounts,
                   .rdispls = rdispls,
                   .rtype = recvtype};
}

static void args_alltoallw(nh_args *a, const void *sendbuf, const int sendcounts[],
                           const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                           const int recvcounts[], const MPI_Aint rdispls[],
                           const MPI_Datatype recvtypes[])
{
    *a = (nh_args){.sbuf = sendbuf,
                   .scounts = sendcounts,
                   .sdisplsw = sdispls,
                   .stypes = sendtypes,
                   .rbuf = recvbuf,
                   .rcounts = recvcounts,
                   .rdisplsw = rdispls,
                   .rtypes = recvtypes};
}

static void args_allgatherv(nh_args *a, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype)
{
    *a = (nh_args){.sbuf = sendbuf,
                   .scount = sendcount,
                   .stype = sendtype,
                   .rbuf = recvbuf,
                   .rcounts = recvcounts,
                   .rdispls = displs,
                   .rtype = recvtype};
}

NH_HOT int nh_neighbor_started(nh_form form, int rc, MPI_Comm comm, MPI_Request *req)
{
    nh_plan *p;
    if (form == NH_FORM_NONBLOCKING && rc == MPI_SUCCESS && nh_active &&
        (!(p = nh_plan_get(comm)) || !p->cold))
        nh_win_started(*req);
    return rc;
}

/* The entry points: nhood's run, or MPI's with the caller's arguments. */
#define NH_UNWRAP(...) __VA_ARGS__
#define NH_RUN(name, ID, form, args, req, pmpi)                                                    \
    nh_args a;                                                                                     \
    args_##name(&a, NH_UNWRAP args);                                                               \
    if (nh_coll_hook && form != NH_FORM_PERSISTENT)                                                \
        return nh_coll_hook(NH_COLL_##ID, form, &a, comm, req, nh_caller);                         \
    int rc = nh_neighbor(NH_COLL_##ID, form, &a, comm, req);                                       \
    if (rc == NH_TO_PMPI)                                                                          \
        rc = pmpi;                                                                                 \
    return nh_neighbor_started(form, rc, comm, req);

#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
/* MPI-4 persistent forms.  nhood reads none of the info keys here. */
#define NH_COLL_INIT(name, ID, params, args)                                                       \
    NH_HOT int nh_impl_MPI_Neighbor_##name##_init(NH_UNWRAP params, MPI_Comm comm, MPI_Info info,  \
                                                  MPI_Request *request)                            \
    {                                                                                              \
        NH_RUN(name, ID, NH_FORM_PERSISTENT, args, request,                                        \
               nh_mpi_Neighbor_##name##_init(NH_UNWRAP args, comm, info, request))                 \
    }
#else
#define NH_COLL_INIT(name, ID, params, args)
#endif

/* clang-format off */
#define NH_COLL(name, ID, params, args)                                                            \
    NH_HOT int nh_impl_MPI_Neighbor_##name(NH_UNWRAP params, MPI_Comm comm)                        \
    {                                                                                              \
        NH_RUN(name, ID, NH_FORM_BLOCKING, args, NULL,                                             \
               nh_mpi_Neighbor_##name(NH_UNWRAP args, comm))                                       \
    }                                                                                              \
    NH_HOT int nh_impl_MPI_Ineighbor_##name(NH_UNWRAP params, MPI_Comm comm,                       \
                                            MPI_Request *request)                                  \
    {                                                                                              \
        NH_RUN(name, ID, NH_FORM_NONBLOCKING, args, request,                                       \
               nh_mpi_Ineighbor_##name(NH_UNWRAP args, comm, request))                             \
    }                                                                                              \
    NH_COLL_INIT(name, ID, params, args)
/* clang-format on */
#include "api/colls.h"
#undef NH_COLL
