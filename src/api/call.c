/* A call's arguments as the engine sees them (exec/engine.h), the block
 * size selection uses, NHOOD_CHECK's tests of the isomorphic=true
 * promise and of host buffers (util/gpu.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/api.h"
#include "exec/request.h"
#include "util/gpu.h"

/* The previous block's type and its size (w calls mostly repeat one). */
typedef struct smemo {
    MPI_Datatype type;
    int size, valid;
} smemo;

/* d: count elements of type at buf + disp, with their size; what the
 * engine also needs (contig) waits for nh_call_describe. */
static int block(nh_desc *d, const void *buf, MPI_Aint disp, int count, MPI_Datatype type, smemo *m)
{
    if (count < 0 || type == MPI_DATATYPE_NULL)
        return -1;
    if (!m->valid || m->type != type) {
        if (nh_mpi_Type_size(type, &m->size))
            return -1;
        m->type = type;
        m->valid = 1;
    }
    *d = (nh_desc){.addr = (char *)buf + disp,
                   .count = count,
                   .type = type,
                   .bytes = (size_t)m->size * (size_t)count};
    return 0;
}

int nh_call_init(nh_call *c, nh_coll coll, const nh_args *a, const nh_plan *p)
{
    int w = coll == NH_COLL_ALLTOALLW, gv = coll == NH_COLL_ALLGATHERV, ssize, rsize;
    MPI_Aint lb, sext = 1, rext = 1;
    memset(c, 0, sizeof(*c));
    c->op = nh_coll_op(coll);
    c->sbuf = a->sbuf;
    c->rbuf = a->rbuf;
    c->scount = a->scount;
    c->rcount = a->rcount;
    c->stype = a->stype;
    c->rtype = a->rtype;
    if (!nh_coll_vec(coll)) {
        if (a->stype == MPI_DATATYPE_NULL || a->rtype == MPI_DATATYPE_NULL ||
            nh_mpi_Type_size(a->stype, &ssize) || nh_mpi_Type_size(a->rtype, &rsize))
            return NH_TO_PMPI;
        c->sbytes = (size_t)ssize * (size_t)a->scount;
        c->rbytes = (size_t)rsize * (size_t)a->rcount;
        return MPI_SUCCESS;
    }
    c->vec = 1;
    c->ns = gv ? 1 : p->outdeg;
    c->nr = p->indeg;
    c->s = malloc(((size_t)c->ns + 1) * sizeof(nh_desc));
    c->r = malloc(((size_t)c->nr + 1) * sizeof(nh_desc));
    if (!c->s || !c->r)
        return MPI_ERR_NO_MEM;
    if (!w && ((c->ns > 0 &&
                (a->stype == MPI_DATATYPE_NULL || nh_mpi_Type_get_extent(a->stype, &lb, &sext))) ||
               (c->nr > 0 &&
                (a->rtype == MPI_DATATYPE_NULL || nh_mpi_Type_get_extent(a->rtype, &lb, &rext)))))
        return NH_TO_PMPI;
    smemo memo = {0};
    for (int i = 0; i < c->ns; i++) {
        MPI_Datatype t = w ? a->stypes[i] : a->stype;
        MPI_Aint disp = gv ? 0 : w ? a->sdisplsw[i] : (MPI_Aint)a->sdispls[i] * sext;
        if (block(&c->s[i], a->sbuf, disp, gv ? a->scount : a->scounts[i], t, &memo))
            return NH_TO_PMPI;
    }
    for (int j = 0; j < c->nr; j++) {
        MPI_Datatype t = w ? a->rtypes[j] : a->rtype;
        MPI_Aint disp = w ? a->rdisplsw[j] : (MPI_Aint)a->rdispls[j] * rext;
        if (block(&c->r[j], a->rbuf, disp, a->rcounts[j], t, &memo))
            return NH_TO_PMPI;
    }
    return MPI_SUCCESS;
}

/* The previous block's type and what nh_call_describe found about it. */
typedef struct dmemo {
    MPI_Datatype type;
    int contig, named, valid;
} dmemo;

static void describe(nh_desc *d, int n, dmemo *m, int *named)
{
    for (int i = 0; i < n; i++) {
        if (!m->valid || m->type != d[i].type) {
            m->type = d[i].type;
            m->contig = nh_type_contig(d[i].type);
            m->named = nh_type_named(d[i].type);
            m->valid = 1;
        }
        d[i].contig = m->contig;
        *named &= m->named;
    }
}

void nh_call_describe(nh_call *c)
{
    if (!c->vec) {
        c->named = nh_type_named(c->stype) && nh_type_named(c->rtype);
        return;
    }
    dmemo memo = {0};
    c->named = 1;
    describe(c->s, c->ns, &memo, &c->named);
    describe(c->r, c->nr, &memo, &c->named);
}

NH_HOT void nh_call_fini(nh_call *c)
{
    if (c->vec) {
        free(c->s);
        free(c->r);
    }
    c->s = c->r = NULL;
}

size_t nh_call_block(const nh_call *c, const nh_plan *p)
{
    if (!c->vec) /* a rank without out-edges reads it off its receive arguments */
        return p->outdeg > 0 ? c->sbytes : c->rbytes;
    double sum = 0;
    int n = 0;
    for (int t = 0; p->isomorphic && t < p->nb.s; t++)
        if (p->nb.recv_slot[t] != NH_NONE) {
            sum += (double)c->r[p->nb.recv_slot[t]].bytes;
            n++;
        }
    return n ? (size_t)(sum / n) : 0;
}

unsigned long nh_call_sig(const nh_call *c, const nh_plan *p)
{
    unsigned long h = 2166136261UL; /* FNV-1a over the sizes, template order */
    for (int t = 0; c->vec && p->isomorphic && t < p->nb.s; t++) {
        int rs = p->nb.recv_slot[t], ss = p->nb.send_slot[t];
        unsigned long v[2] = {
            rs == NH_NONE ? ~0UL : (unsigned long)c->r[rs].bytes,
            ss == NH_NONE ? ~0UL : (unsigned long)c->s[c->op == NH_OP_ALLGATHER ? 0 : ss].bytes};
        for (int k = 0; k < 2; k++)
            h = (h ^ v[k]) * 16777619UL;
    }
    return c->vec && h ? h : 0;
}

double nh_call_bytes(const nh_call *c, const nh_plan *p)
{
    double sum = 0;
    if (!c->vec)
        return (double)c->sbytes * p->outdeg;
    if (c->op == NH_OP_ALLGATHER)
        return c->ns ? (double)c->s[0].bytes * p->outdeg : 0;
    for (int i = 0; i < c->ns; i++)
        sum += (double)c->s[i].bytes;
    return sum;
}

/* The isomorphic=true promise is that every process uses the same block
 * size for each template entry (the same size per neighbor index when all
 * processes list their neighbors in one order).  One reduction of [size,
 * -size] per entry and direction with MPI_MAX gives the largest and
 * smallest size; a rank without that entry (mesh boundary) contributes
 * neutral values. */
int nh_call_check(const nh_plan *p, nh_coll coll, const nh_call *c, MPI_Comm comm)
{
    int s = p->nb.s, n = 4 * s, rc, rank;
    long *v = calloc((size_t)n + 1, sizeof(long)), *res = calloc((size_t)n + 1, sizeof(long));
    if (!v || !res) {
        free(v);
        free(res);
        return MPI_ERR_NO_MEM;
    }
    for (int t = 0; t < s; t++)
        for (int dir = 0; dir < 2; dir++) {
            int slot = dir ? p->nb.recv_slot[t] : p->nb.send_slot[t];
            const nh_desc *d = slot == NH_NONE            ? NULL
                               : dir                      ? &c->r[slot]
                               : c->op == NH_OP_ALLGATHER ? &c->s[0]
                                                          : &c->s[slot];
            v[4 * t + 2 * dir] = d ? (long)d->bytes : LONG_MIN;
            v[4 * t + 2 * dir + 1] = d ? -(long)d->bytes : LONG_MIN;
        }
    rc = nh_req_allreduce(v, res, n, MPI_LONG, MPI_MAX, p->pcomm);
    if (!rc)
        rc = nh_mpi_Comm_rank(p->pcomm, &rank);
    int bad = -1, dir = 0;
    for (int t = 0; t < s && !rc && bad < 0; t++)
        for (dir = 0; dir < 2; dir++) {
            long hi = res[4 * t + 2 * dir], lo = -res[4 * t + 2 * dir + 1];
            if (hi != LONG_MIN && hi != lo) {
                bad = t;
                break;
            }
        }
    if (!rc && bad >= 0) {
        if (rank == 0) {
            char off[96];
            size_t k = 0;
            for (int j = 0; j < p->nb.g.ndims && k < sizeof(off); j++)
                k += (size_t)snprintf(off + k, sizeof(off) - k, "%s%d", j ? "," : "",
                                      p->nb.off[(size_t)bad * p->nb.g.ndims + j]);
            int idx = dir ? p->nb.recv_slot[bad] : p->nb.send_slot[bad];
            nh_error("NHOOD_CHECK: communicator %d, MPI_Neighbor_%s: the isomorphic=true hint "
                     "promises equal block sizes on every process, but %s neighbor index %d "
                     "(offset (%s)) has %ld to %ld bytes across processes",
                     p->id, nh_coll_name(coll), dir ? "source" : "destination",
                     c->op == NH_OP_ALLGATHER && !dir ? 0 : idx, off, -res[4 * bad + 2 * dir + 1],
                     res[4 * bad + 2 * dir]);
            fflush(stderr);
        }
        nh_mpi_Barrier(p->pcomm); /* the message is out before anyone aborts */
        nh_mpi_Abort(comm, MPI_ERR_ARG);
        rc = MPI_ERR_ARG;
    }
    free(v);
    free(res);
    return rc;
}

int nh_call_gpu_passed(nh_plan *p, nh_coll coll, nh_form form)
{
    nh_report_rec *r = nh_report_rec_get(p, coll, form);
    if (r) {
        r->calls[NH_ALGO_PMPI]++;
        r->why = NH_WHY_GPU_RUNTIME;
    }
    return NH_TO_PMPI;
}

/* The promise of host buffers, or what stands for it, in the error. */
static const char *host_promise(const nh_plan *p)
{
    return p->host_promised == NH_HOST_INFO  ? "the info key nhood_host_buffers=true promised "
                                               "host buffers"
           : p->host_promised == NH_HOST_ENV ? "NHOOD_HOST_BUFFERS=1 promised host buffers"
                                             : "no rank had a GPU runtime loaded when the "
                                               "communicator was created, so nhood runs its own "
                                               "schedules on it";
}

int nh_call_check_host(const nh_plan *p, nh_coll coll, nh_form form, const nh_args *a,
                       MPI_Comm comm)
{
    static int warned;
    /* looked for again: a runtime loaded after the graph's creation */
    if (!nh_gpu_probe())
        return MPI_SUCCESS;
    if (!nh_gpu_can_classify()) {
        if (!warned++)
            nh_warn("NHOOD_CHECK: Level Zero is in use here; nhood cannot tell its device buffers "
                    "from host buffers, so it does not check them (docs/gpu.md)");
        return MPI_SUCCESS;
    }
    nh_mem ms = nh_gpu_kind(a->sbuf), mr = ms == NH_MEM_HOST ? nh_gpu_kind(a->rbuf) : NH_MEM_HOST;
    if (ms == NH_MEM_HOST && mr == NH_MEM_HOST)
        return MPI_SUCCESS;
    nh_error("%s%s%s: the %s buffer is %s, but %s",
             form == NH_FORM_NONBLOCKING ? "MPI_Ineighbor_" : "MPI_Neighbor_", nh_coll_name(coll),
             form == NH_FORM_PERSISTENT ? "_init" : "", ms != NH_MEM_HOST ? "send" : "receive",
             nh_gpu_mem_name(ms != NH_MEM_HOST ? ms : mr), host_promise(p));
    fflush(stderr);
    nh_mpi_Abort(comm, MPI_ERR_BUFFER);
    return MPI_ERR_BUFFER;
}
