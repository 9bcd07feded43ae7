/* In-place MPI_Alltoall / MPI_Alltoallv / MPI_Alltoallw as pairwise swaps
 * in the order of the chosen algorithm (src/core/inplace_*.c), on a private
 * duplicate of the communicator cached as an attribute.
 *
 * With NHOOD_INPLACE_AUXMEM=n (section 3.4 of the paper) a swap whose
 * outgoing data fits in what is left of an n-byte auxiliary buffer is
 * packed there and runs nonblocking (MPI_Isend of the copy, MPI_Irecv into
 * place); the others use MPI_Sendrecv_replace.  Each rank decides alone:
 * both kinds match each other.  Every pair swaps once per call, so one tag
 * suffices. */
#include <stdio.h>
#include <stdlib.h>

#include "exec/engine.h"
#include "exec/inplace.h"
#include "util/gpu.h"
#include "util/sync.h"

typedef struct inplace_rec {
    struct inplace_rec *next;
    int comm_id, op, p;
    long calls[NH_INPLACE_COUNT];
} inplace_rec;

typedef struct inplace_ctx {
    MPI_Comm pcomm;
    int id;
    inplace_rec *rec[3];
    int *partners[NH_INPLACE_COUNT]; /* swap order per algorithm, computed once */
    int npartners[NH_INPLACE_COUNT];
    nh_inplace_algo auto_algo; /* what auto runs; NH_INPLACE_AUTO until decided */
} inplace_ctx;

static int ctx_keyval = MPI_KEYVAL_INVALID;
static int next_id = 1000; /* distinct from graph plan ids in reports */
static inplace_rec *recs;
static const char *const op_names[3] = {"inplace_alltoall", "inplace_alltoallv",
                                        "inplace_alltoallw"};

static int ctx_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    inplace_ctx *c = attr;
    int rc = nh_comm_free(&c->pcomm);
    for (int a = 0; a < NH_INPLACE_COUNT; a++)
        free(c->partners[a]);
    free(c);
    nh_res_add(NH_RES_PLAN, -1);
    return rc;
}

int nh_inplace_init(void)
{
    return nh_mpi_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, ctx_delete, &ctx_keyval, NULL);
}

void nh_inplace_fini(void)
{
    if (ctx_keyval != MPI_KEYVAL_INVALID)
        nh_mpi_Comm_free_keyval(&ctx_keyval);
}

/* The cached context, created on first use.  Every rank takes the same
 * path: all of them made the same earlier calls on this communicator. */
static int ctx_get(MPI_Comm comm, inplace_ctx **out)
{
    void *v;
    int flag = 0, rc;
    if ((rc = nh_mpi_Comm_get_attr(comm, ctx_keyval, &v, &flag)))
        return rc;
    if (flag) {
        *out = v;
        return MPI_SUCCESS;
    }
    inplace_ctx *c = calloc(1, sizeof(*c));
    if (!c)
        return MPI_ERR_NO_MEM;
    if ((rc = nh_comm_dup(comm, &c->pcomm))) {
        free(c);
        return rc;
    }
    nh_res_add(NH_RES_PLAN, 1);
    nh_gpu_probe(); /* a GPU runtime loaded since the last look (host_only) */
    c->id = nh_atomic_add(&next_id, 1) - 1;
    if ((rc = nh_mpi_Comm_set_attr(comm, ctx_keyval, c))) {
        nh_comm_free(&c->pcomm);
        free(c);
        nh_res_add(NH_RES_PLAN, -1);
        return rc;
    }
    *out = c;
    return MPI_SUCCESS;
}

/* May nhood pack this call's buffer with the CPU (the auxiliary-buffer
 * swaps)?  Not GPU device or managed memory: that rank's swaps are then
 * all MPI's own MPI_Sendrecv_replace, which match the other ranks' packed
 * swaps, so each rank decides alone.  Under the promise of host buffers
 * (NHOOD_HOST_BUFFERS=1) nothing is asked of the driver, except under
 * NHOOD_CHECK, where a GPU buffer stops the job with an error naming the
 * call.  *host: 1 for host memory, else 0. */
static int host_only(MPI_Comm comm, const nh_inplace_args *a, int *host)
{
    static const char *const names[3] = {"MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw"};
    nh_mem m = nh_cfg.host_buffers && !nh_cfg.check ? NH_MEM_HOST : nh_gpu_kind(a->buf);
    *host = m == NH_MEM_HOST;
    if (*host || !nh_cfg.host_buffers)
        return MPI_SUCCESS;
    nh_error("%s: the buffer is %s, but NHOOD_HOST_BUFFERS=1 promised host buffers", names[a->op],
             nh_gpu_mem_name(m));
    fflush(stderr);
    nh_mpi_Abort(comm, MPI_ERR_BUFFER);
    return MPI_ERR_BUFFER;
}

/* Where the block exchanged with rank j lives. */
static int piece(const nh_inplace_args *a, int j, char **addr, int *count, MPI_Datatype *type)
{
    MPI_Aint lb, ext;
    switch (a->op) {
    case NH_INPLACE_ALLTOALL:
        *type = a->type;
        *count = a->count;
        if (nh_mpi_Type_get_extent(a->type, &lb, &ext))
            return MPI_ERR_TYPE;
        *addr = (char *)a->buf + (MPI_Aint)j * a->count * ext;
        return MPI_SUCCESS;
    case NH_INPLACE_ALLTOALLV:
        *type = a->type;
        *count = a->counts[j];
        if (nh_mpi_Type_get_extent(a->type, &lb, &ext))
            return MPI_ERR_TYPE;
        *addr = (char *)a->buf + (MPI_Aint)a->displs[j] * ext;
        return MPI_SUCCESS;
    default:
        *type = a->types[j];
        *count = a->counts[j];
        *addr = (char *)a->buf + a->displs[j];
        return MPI_SUCCESS;
    }
}

static void count_call(inplace_ctx *c, int op, int p, nh_inplace_algo algo)
{
    if (!c->rec[op]) {
        inplace_rec *r = calloc(1, sizeof(*r));
        if (!r)
            return;
        r->comm_id = c->id;
        r->op = op;
        r->p = p;
        nh_lock(NH_LOCK_MISC); /* records of all communicators, one list */
        r->next = recs;
        recs = r;
        nh_unlock(NH_LOCK_MISC);
        c->rec[op] = r;
    }
    c->rec[op]->calls[algo]++;
}

/* auto's order for the communicator, decided once (collective: every rank
 * makes its first auto in-place call on it in the same place).  hsa, the
 * paper's choice, except where the ranks fill exactly two nodes split at
 * p/2, ranks [0, p/2) on one: there hsa's first level is all the
 * inter-node swaps and the rest stay on the node, one after the other,
 * while lsa mixes the two kinds in every step, so on-node swaps proceed
 * while the node's link is busy.  Simulated with 2 MiB per rank (flat,
 * torus, dragonfly; 4, 8, 16 ranks per node: scripts/sim-inplace-nodes.sh),
 * lsa was 3-12 % faster on all 9 such layouts, hsa faster on 37 of the 42
 * others (up to 1.38x) and within 12 % on the rest. */
static int decide_auto(inplace_ctx *c, int p, int rank)
{
    int node, two = 0, rc;
    c->auto_algo = NH_INPLACE_HSA;
    if (p < 2)
        return MPI_SUCCESS;
    if ((rc = nh_node_leader(c->pcomm, &node)))
        return rc;
    int mine = node == (rank < p / 2 ? 0 : p / 2);
    if ((rc = nh_mpi_Allreduce(&mine, &two, 1, MPI_INT, MPI_LAND, c->pcomm)))
        return rc;
    if (two)
        c->auto_algo = NH_INPLACE_LSA;
    return MPI_SUCCESS;
}

int nh_inplace(MPI_Comm comm, const nh_inplace_args *a)
{
    int inter = 0, p, rank, rc, n, nreq = 0;
    nh_inplace_algo algo = nh_cfg.inplace;
    inplace_ctx *c;
    if (!nh_active || ctx_keyval == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL ||
        nh_mpi_Comm_test_inter(comm, &inter) || inter || (rc = ctx_get(comm, &c)))
        return NH_TO_PMPI;
    nh_mpi_Comm_size(comm, &p);
    nh_mpi_Comm_rank(comm, &rank);
    if (algo == NH_INPLACE_AUTO) {
        if (c->auto_algo == NH_INPLACE_AUTO && (rc = decide_auto(c, p, rank)))
            return rc;
        algo = c->auto_algo;
    }
    count_call(c, a->op, p, algo);
    if (algo == NH_INPLACE_PMPI)
        return NH_TO_PMPI;
    if (!c->partners[algo]) {
        if (!(c->partners[algo] = malloc(sizeof(int) * 2 * (size_t)p + 1)))
            return MPI_ERR_NO_MEM;
        c->npartners[algo] = nh_inplace_partners(algo, p, rank, c->partners[algo]);
    }
    const int *partners = c->partners[algo];
    n = c->npartners[algo];
    /* Requests only for the nonblocking swaps of the auxiliary-buffer mode. */
    long auxlen = nh_cfg.inplace_auxmem, used = 0;
    char *aux = NULL;
    MPI_Request *req = NULL;
    MPI_Status *st = NULL;
    int host = 1;
    if (auxlen > 0 && (rc = host_only(comm, a, &host)))
        return rc;
    if (!host) /* GPU memory: MPI's own swaps only */
        auxlen = 0;
    if (auxlen > 0) {
        aux = malloc((size_t)auxlen);
        req = malloc(sizeof(MPI_Request) * 2 * (size_t)n + 1);
        st = malloc(sizeof(MPI_Status) * 2 * (size_t)n + 1);
        rc = MPI_ERR_NO_MEM;
        if (!aux || !req || !st)
            goto out;
    }
    rc = MPI_SUCCESS;
    for (int k = 0; k < n && !rc; k++) {
        int j = partners[k], count, size, psize;
        char *addr;
        MPI_Datatype type;
        MPI_Status status;
        if ((rc = piece(a, j, &addr, &count, &type)) || (rc = nh_mpi_Type_size(type, &size)))
            break;
        if ((long)size * count == 0) /* symmetric: the partner skips too */
            continue;
        if (aux && !nh_mpi_Pack_size(count, type, c->pcomm, &psize) && psize <= auxlen - used) {
            int pos = 0;
            if ((rc = nh_pack(addr, count, type, aux + used, psize, &pos, c->pcomm)) ||
                (rc = nh_irecv(addr, count, type, j, 0, c->pcomm, &req[nreq++])) ||
                (rc = nh_isend(aux + used, pos, MPI_PACKED, j, 0, c->pcomm, &req[nreq++])))
                break;
            used += pos;
        } else {
            rc = nh_mpi_Sendrecv_replace(addr, count, type, j, 0, j, 0, c->pcomm, &status);
        }
    }
    if (nreq) {
        int wrc = nh_waitall(nreq, req, st);
        rc = rc ? rc : wrc;
    }
out:
    free(req);
    free(st);
    free(aux);
    return rc;
}

int nh_inplace_algorithm(MPI_Comm comm, const char **name)
{
    void *v;
    int flag = 0;
    nh_inplace_algo algo = nh_cfg.inplace;
    if (ctx_keyval == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL ||
        nh_mpi_Comm_get_attr(comm, ctx_keyval, &v, &flag) || !flag)
        return MPI_ERR_COMM;
    if (algo == NH_INPLACE_AUTO && (algo = ((inplace_ctx *)v)->auto_algo) == NH_INPLACE_AUTO)
        return MPI_ERR_COMM;
    *name = nh_inplace_names[algo];
    return MPI_SUCCESS;
}

void nh_inplace_report_print(void)
{
    for (inplace_rec *r = recs; r; r = r->next) {
        int best = 0;
        long calls = 0;
        for (int a = 0; a < NH_INPLACE_COUNT; a++) {
            calls += r->calls[a];
            if (r->calls[a] > r->calls[best])
                best = a;
        }
        nh_log_line(
            "nhood: comm=%d op=%s pattern=inplace procs=%d algorithm=%s calls=%ld steps=%d\n",
            r->comm_id, op_names[r->op], r->p, nh_inplace_names[best], calls,
            best == NH_INPLACE_PMPI ? 2 * r->p - 1 : nh_inplace_steps((nh_inplace_algo)best, r->p));
    }
}

void nh_inplace_report_free(void)
{
    while (recs) {
        inplace_rec *n = recs->next;
        free(recs);
        recs = n;
    }
}
