/* The neighborhood collectives under NHOOD_OVERLAP: which calls are
 * watched or deferred, their buffers' extents, the staging buffer, and
 * the start-up and shut-down of the overlap layer (see overlap.h). */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "exec/request.h"
#include "nh_impl.h"
#include "overlap/ov_int.h"
#include "util/gpu.h"

int nh_ov_mode;

static const char *const op_names[2][NH_COLL_COUNT] = {
    {"MPI_Neighbor_alltoall", "MPI_Neighbor_allgather", "MPI_Neighbor_alltoallv",
     "MPI_Neighbor_alltoallw", "MPI_Neighbor_allgatherv"},
    {"MPI_Ineighbor_alltoall", "MPI_Ineighbor_allgather", "MPI_Ineighbor_alltoallv",
     "MPI_Ineighbor_alltoallw", "MPI_Ineighbor_allgatherv"}};

/* MPI's own collective with the same arguments. */
static int pmpi(nh_coll coll, int nb, const nh_args *a, MPI_Comm comm, MPI_Request *req)
{
    switch (coll) {
    case NH_COLL_ALLTOALL:
        return nb ? nh_mpi_Ineighbor_alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                                            a->rtype, comm, req)
                  : nh_mpi_Neighbor_alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                                           a->rtype, comm);
    case NH_COLL_ALLGATHER:
        return nb ? nh_mpi_Ineighbor_allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                                             a->rtype, comm, req)
                  : nh_mpi_Neighbor_allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                                            a->rtype, comm);
    case NH_COLL_ALLTOALLV:
        return nb ? nh_mpi_Ineighbor_alltoallv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf,
                                             a->rcounts, a->rdispls, a->rtype, comm, req)
                  : nh_mpi_Neighbor_alltoallv(a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf,
                                            a->rcounts, a->rdispls, a->rtype, comm);
    case NH_COLL_ALLTOALLW:
        return nb ? nh_mpi_Ineighbor_alltoallw(a->sbuf, a->scounts, a->sdisplsw, a->stypes, a->rbuf,
                                             a->rcounts, a->rdisplsw, a->rtypes, comm, req)
                  : nh_mpi_Neighbor_alltoallw(a->sbuf, a->scounts, a->sdisplsw, a->stypes, a->rbuf,
                                            a->rcounts, a->rdisplsw, a->rtypes, comm);
    default:
        return nb ? nh_mpi_Ineighbor_allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts,
                                              a->rdispls, a->rtype, comm, req)
                  : nh_mpi_Neighbor_allgatherv(a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts,
                                             a->rdispls, a->rtype, comm);
    }
}

/* nhood's schedule, or MPI's where nhood leaves the call to it. */
static int run(nh_coll coll, int nb, const nh_args *a, MPI_Comm comm, MPI_Request *req)
{
    int rc = nh_neighbor(coll, nb ? NH_FORM_NONBLOCKING : NH_FORM_BLOCKING, a, comm, req);
    return rc != NH_TO_PMPI ? rc : pmpi(coll, nb, a, comm, req);
}

/* ---- the bytes a call may touch ---- */

typedef struct span {
    char *lo, *hi; /* [lo, hi); empty when lo == hi */
} span;

/* count elements of t at base + disp (bytes). */
static int span_add(span *sp, const void *base, MPI_Aint disp, int count, MPI_Datatype t)
{
    MPI_Aint lb, ext, tlb, text;
    if (count <= 0)
        return 0;
    if (nh_mpi_Type_get_extent(t, &lb, &ext) || nh_mpi_Type_get_true_extent(t, &tlb, &text))
        return -1;
    MPI_Aint first = disp + tlb, last = disp + (MPI_Aint)(count - 1) * ext + tlb;
    char *lo = (char *)base + (first < last ? first : last);
    char *hi = (char *)base + (first < last ? last : first) + text;
    if (sp->lo == sp->hi) {
        sp->lo = lo;
        sp->hi = hi;
    } else {
        sp->lo = lo < sp->lo ? lo : sp->lo;
        sp->hi = hi > sp->hi ? hi : sp->hi;
    }
    return 0;
}

static int degrees(MPI_Comm comm, int *in, int *out)
{
    int topo, w, nd, r;
    if (nh_mpi_Topo_test(comm, &topo))
        return -1;
    if (topo == MPI_DIST_GRAPH)
        return nh_mpi_Dist_graph_neighbors_count(comm, in, out, &w) ? -1 : 0;
    if (topo == MPI_CART) {
        if (nh_mpi_Cartdim_get(comm, &nd))
            return -1;
        *in = *out = 2 * nd;
        return 0;
    }
    if (topo == MPI_GRAPH && !nh_mpi_Comm_rank(comm, &r) && !nh_mpi_Graph_neighbors_count(comm, r, in)) {
        *out = *in;
        return 0;
    }
    return -1;
}

/* The send (sp[1]) and receive (sp[0]) extents; -1 where nhood cannot
 * tell (bad arguments: the call itself reports them). */
static int spans(nh_coll coll, const nh_args *a, MPI_Comm comm, span sp[2])
{
    int in, out, rc = 0;
    MPI_Aint lb, sext = 0, rext = 0;
    memset(sp, 0, 2 * sizeof(span));
    if (degrees(comm, &in, &out))
        return -1;
    if (coll != NH_COLL_ALLTOALLW &&
        (nh_mpi_Type_get_extent(a->stype, &lb, &sext) || nh_mpi_Type_get_extent(a->rtype, &lb, &rext)))
        return -1;
    switch (coll) {
    case NH_COLL_ALLTOALL:
    case NH_COLL_ALLGATHER:
        rc |= span_add(&sp[1], a->sbuf, 0, (coll == NH_COLL_ALLTOALL ? out : 1) * a->scount,
                       a->stype);
        rc |= span_add(&sp[0], a->rbuf, 0, in * a->rcount, a->rtype);
        break;
    case NH_COLL_ALLTOALLV:
        for (int i = 0; i < out; i++)
            rc |= span_add(&sp[1], a->sbuf, a->sdispls[i] * sext, a->scounts[i], a->stype);
        for (int i = 0; i < in; i++)
            rc |= span_add(&sp[0], a->rbuf, a->rdispls[i] * rext, a->rcounts[i], a->rtype);
        break;
    case NH_COLL_ALLTOALLW:
        for (int i = 0; i < out; i++)
            rc |= span_add(&sp[1], a->sbuf, a->sdisplsw[i], a->scounts[i], a->stypes[i]);
        for (int i = 0; i < in; i++)
            rc |= span_add(&sp[0], a->rbuf, a->rdisplsw[i], a->rcounts[i], a->rtypes[i]);
        break;
    default:
        rc |= span_add(&sp[1], a->sbuf, 0, a->scount, a->stype);
        for (int i = 0; i < in; i++)
            rc |= span_add(&sp[0], a->rbuf, a->rdispls[i] * rext, a->rcounts[i], a->rtype);
    }
    return rc;
}

static __thread char *stack_lo, *stack_hi;

static int on_stack(const span *sp)
{
    if (!stack_hi) {
        pthread_attr_t at;
        void *addr;
        size_t size;
        if (pthread_getattr_np(pthread_self(), &at))
            return 1; /* unknown: treat as stack */
        pthread_attr_getstack(&at, &addr, &size);
        pthread_attr_destroy(&at);
        stack_lo = addr;
        stack_hi = stack_lo + size;
    }
    return sp->lo < stack_hi && sp->hi > stack_lo;
}

/* Why the call cannot be watched or deferred at all. */
static nh_ov_why unfit(int site, nh_coll coll, const nh_args *a, MPI_Comm comm, span sp[2])
{
    if (nh_ov_site_foreign(site))
        return NH_OV_WHY_CALLER;
    if (a->sbuf == MPI_IN_PLACE || a->sbuf == MPI_BOTTOM || a->rbuf == MPI_BOTTOM ||
        spans(coll, a, comm, sp))
        return NH_OV_WHY_LAYOUT;
    if (nh_gpu_kind(a->sbuf) != NH_MEM_HOST || nh_gpu_kind(a->rbuf) != NH_MEM_HOST)
        return NH_OV_WHY_GPU; /* neither watched nor staged by the CPU */
    if (on_stack(&sp[0])) /* a send buffer there is copied (defer) or not watched (report) */
        return NH_OV_WHY_STACK;
    return NH_OV_WHY_NONE;
}

static char *page_down(const char *p)
{
    return (char *)((size_t)p & ~(nh_ov_page - 1));
}

static char *page_up(const char *p)
{
    return page_down(p + nh_ov_page - 1);
}

/* ---- report: watch the buffers of a completed operation ---- */

static void watch(int site, span sp[2], double call_us, double wait_us)
{
    nh_ov_slot *s = nh_ov_slot_take();
    if (!s) {
        nh_ov_site_skip(site, NH_OV_WHY_SLOTS);
        return;
    }
    for (int side = 0; side < 2; side++) { /* pages wholly inside: no one else's data */
        s->pg[side] = page_up(sp[side].lo);
        s->pgend[side] = page_down(sp[side].hi);
        if (s->pgend[side] <= s->pg[side] || sp[side].lo == sp[side].hi || on_stack(&sp[side]))
            s->pg[side] = s->pgend[side] = NULL;
    }
    if (!s->pg[0] && !s->pg[1]) {
        nh_ov_site_skip(site, NH_OV_WHY_SMALL);
        return;
    }
    if (s->pg[0] && s->pg[1] && s->pg[0] < s->pgend[1] && s->pg[1] < s->pgend[0]) {
        nh_ov_site_skip(site, NH_OV_WHY_LAYOUT);
        return;
    }
    s->site = site;
    s->call_us = call_us;
    s->wait_us = wait_us;
    if (nh_ov_arm(s))
        nh_ov_site_skip(site, NH_OV_WHY_PROTECT);
}

/* ---- defer ---- */

static char *stage; /* one: every MPI call completes the deferred operation first */
static size_t stage_cap;

static int stage_fit(size_t len)
{
    if (len <= stage_cap)
        return 0;
    size_t cap = (size_t)page_up((char *)len);
    void *p = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    if (stage)
        munmap(stage, stage_cap);
    stage = p;
    stage_cap = cap;
    return 0;
}

/* Starts the call on copies of its buffers in the staging area and takes
 * all access to the receive buffer's pages; *done is 0 where the call is
 * not eligible (the caller runs it).
 *
 * Both buffers are copied.  The receive extent's copy keeps the bytes
 * between blocks as they were (the program cannot touch them meanwhile:
 * their pages are protected), and MPI never writes into protected pages.
 * The send copy leaves the program free to write its send buffer at once,
 * and MPI (or a peer reading it through the kernel, which fails on a
 * protected page instead of faulting) never reads a protected page, also
 * where the send buffer shares a page with the receive buffer.
 *
 * An operation that is complete as soon as it has started (its peers were
 * there first) is not deferred: protecting pages costs a TLB flush (20 to
 * 90 us on the development machine), the one real cost of this mode. */
static int defer(int site, nh_coll coll, const nh_args *a, MPI_Comm comm, span sp[2], int *done)
{
    size_t rlen = (size_t)(sp[0].hi - sp[0].lo), slen = (size_t)(sp[1].hi - sp[1].lo);
    size_t soff = (rlen + 63) & ~(size_t)63;
    *done = 0;
    if (rlen == 0)
        return nh_ov_site_skip(site, NH_OV_WHY_SMALL), MPI_SUCCESS; /* nothing to wait for */
    nh_ov_slot *s = nh_ov_slot_take();
    if (!s || stage_fit(soff + slen))
        return nh_ov_site_skip(site, NH_OV_WHY_SLOTS), MPI_SUCCESS;
    s->len = rlen;
    s->user = sp[0].lo;
    s->staging = stage;
    memcpy(stage, s->user, rlen);
    if (slen)
        memcpy(stage + soff, sp[1].lo, slen);
    nh_args b = *a;
    b.rbuf = stage + ((char *)a->rbuf - s->user);
    if (slen)
        b.sbuf = stage + soff + ((const char *)a->sbuf - sp[1].lo);
    int rc = run(coll, 1, &b, comm, &s->req), flag = 0;
    *done = 1;
    if (rc || (rc = nh_impl_MPI_Test(&s->req, &flag, MPI_STATUS_IGNORE)))
        return rc;
    if (flag) { /* all had arrived: nothing to wait for, no page to protect */
        memcpy(s->user, stage, rlen);
        nh_ov_site_skip(site, NH_OV_WHY_DONE);
        return MPI_SUCCESS;
    }
    s->deferred = 1;
    s->comm = comm;
    s->site = site;
    s->pg[0] = page_down(sp[0].lo);
    s->pgend[0] = page_up(sp[0].hi);
    if (nh_ov_arm(s)) { /* complete now; the next fence counts it */
        nh_ov_site_skip(site, NH_OV_WHY_PROTECT);
        s->t_armed = s->t_touch = nh_ov_now();
        s->touch_what = "mprotect";
        nh_ov_end(s);
    }
    return MPI_SUCCESS;
}

int nh_ov_blocking(nh_coll coll, const nh_args *a, MPI_Comm comm, void *site_addr)
{
    span sp[2];
    int site = nh_ov_site(site_addr, op_names[0][coll]), done = 0, rc;
    nh_ov_why why = site < 0 ? NH_OV_WHY_SLOTS : unfit(site, coll, a, comm, sp);
    if (why) {
        nh_ov_site_skip(site, why);
        return run(coll, 0, a, comm, NULL);
    }
    if (nh_ov_mode == NH_OVERLAP_DEFER) {
        rc = defer(site, coll, a, comm, sp, &done);
        return done ? rc : run(coll, 0, a, comm, NULL);
    }
    double t0 = nh_ov_now();
    rc = run(coll, 0, a, comm, NULL);
    if (!rc)
        watch(site, sp, (nh_ov_now() - t0) * 1e6, -1);
    return rc;
}

/* ---- nonblocking calls under report: their requests until completion ---- */

typedef struct tracked {
    MPI_Request req; /* MPI_REQUEST_NULL: free */
    int site;
    span sp[2];
    double t_start;
} tracked;

#define NTRACKED 64
static tracked tr[NTRACKED];
int nh_ov_ntracked;

int nh_ov_nonblocking(nh_coll coll, const nh_args *a, MPI_Comm comm, MPI_Request *req,
                      void *site_addr)
{
    span sp[2];
    int site = nh_ov_site(site_addr, op_names[1][coll]);
    nh_ov_why why = site < 0 ? NH_OV_WHY_SLOTS : unfit(site, coll, a, comm, sp);
    double t0 = nh_ov_now();
    int rc = run(coll, 1, a, comm, req);
    if (rc || why) {
        nh_ov_site_skip(site, why);
        return rc;
    }
    for (int i = 0; i < NTRACKED; i++)
        if (tr[i].req == MPI_REQUEST_NULL) {
            tr[i] = (tracked){.req = *req, .site = site, .sp = {sp[0], sp[1]}, .t_start = t0};
            nh_ov_ntracked++;
            return MPI_SUCCESS;
        }
    nh_ov_site_skip(site, NH_OV_WHY_SLOTS);
    return MPI_SUCCESS;
}

/* The entry of h, no longer followed; NULL if h is not followed. */
static const tracked *untrack(MPI_Request h)
{
    for (int i = 0; i < NTRACKED && h != MPI_REQUEST_NULL; i++)
        if (tr[i].req == h) {
            tr[i].req = MPI_REQUEST_NULL;
            nh_ov_ntracked--;
            return &tr[i];
        }
    return NULL;
}

void nh_ov_forget(MPI_Request h)
{
    untrack(h);
}

/* h (a copy taken before the completion call) completed in a call
 * entered at t_enter: watch its buffers from now on. */
void nh_ov_completed(MPI_Request h, double t_enter)
{
    const tracked *t = untrack(h);
    if (t) {
        span sp[2] = {t->sp[0], t->sp[1]};
        watch(t->site, sp, (nh_ov_now() - t_enter) * 1e6, (t_enter - t->t_start) * 1e6);
    }
}

/* ---- start-up and shut-down ---- */

static int hook(nh_coll coll, nh_form form, const nh_args *a, MPI_Comm comm, MPI_Request *req,
                void *site)
{
    if (form == NH_FORM_BLOCKING)
        return nh_ov_blocking(coll, a, comm, site);
    if (nh_ov_mode == NH_OVERLAP_REPORT)
        return nh_ov_nonblocking(coll, a, comm, req, site);
    return run(coll, 1, a, comm, req);
}

static const char *off_why;

int nh_ov_init(int provided)
{
    for (int i = 0; i < NTRACKED; i++)
        tr[i].req = MPI_REQUEST_NULL;
    if (nh_cfg.overlap == NH_OVERLAP_OFF)
        return MPI_SUCCESS;
    if (provided == MPI_THREAD_MULTIPLE)
        off_why = "MPI_THREAD_MULTIPLE (another thread may be inside MPI or touch the pages)";
    else
        off_why = nh_ov_hooks_missing(nh_cfg.overlap == NH_OVERLAP_DEFER);
    if (off_why) {
        if (nh_world_rank == 0)
            nh_warn("NHOOD_OVERLAP=%s is off: %s",
                    nh_cfg.overlap == NH_OVERLAP_DEFER ? "defer" : "report", off_why);
        return MPI_SUCCESS;
    }
    int rc = nh_ov_watch_init();
    if (!rc) {
        nh_ov_mode = nh_cfg.overlap;
        nh_coll_hook = hook;
        nh_ov_fence_hook = nh_ov_fence;
    }
    return rc;
}

void nh_ov_finalize(void)
{
    if (!nh_ov_mode)
        return;
    nh_coll_hook = NULL;
    nh_ov_fence("MPI_Finalize");
    if (nh_cfg.report || nh_cfg.overlap_csv || nh_cfg.overlap == NH_OVERLAP_REPORT)
        nh_ov_report();
    nh_ov_watch_fini();
    nh_ov_mode = NH_OVERLAP_OFF;
    if (stage)
        munmap(stage, stage_cap);
    stage = NULL;
    stage_cap = 0;
}
