/* Live counts of the MPI objects nhood creates (see resource.h), updated
 * atomically: under MPI_THREAD_MULTIPLE threads create and free them at
 * once. */
#include <stdint.h>
#include <string.h>

#include "util/util.h"
#include "nhood.h"
#include "util/host.h"

#define NH_EXPORT __attribute__((visibility("default")))

static long live[NH_RES_COUNT];

void nh_res_add(nh_res kind, long delta)
{
    __atomic_fetch_add(&live[kind], delta, __ATOMIC_RELAXED);
}

long nh_res_live(nh_res kind)
{
    return __atomic_load_n(&live[kind], __ATOMIC_RELAXED);
}

__thread int nh_in_dup;
MPI_Comm nh_world_priv = MPI_COMM_NULL;

int nh_comm_dup(MPI_Comm comm, MPI_Comm *out)
{
    nh_in_dup = 1;
#ifdef NHOOD_SMPI
    int rc = nh_smpi_comm_dup(comm, out);
#else
    int rc = nh_mpi_Comm_dup(comm, out);
#endif
    nh_in_dup = 0;
    if (rc == MPI_SUCCESS)
        nh_res_add(NH_RES_COMM, 1);
    return rc;
}

int nh_comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out)
{
    int rc = nh_mpi_Comm_split(comm, color, key, out);
    if (rc == MPI_SUCCESS && *out != MPI_COMM_NULL)
        nh_res_add(NH_RES_COMM, 1);
    return rc;
}

int nh_comm_split_type(MPI_Comm comm, int type, int key, MPI_Comm *out)
{
    int rc = nh_mpi_Comm_split_type(comm, type, key, MPI_INFO_NULL, out);
    if (rc == MPI_SUCCESS && *out != MPI_COMM_NULL)
        nh_res_add(NH_RES_COMM, 1);
    return rc;
}

int nh_node_size;

int nh_node_leader(MPI_Comm comm, int *node)
{
    int rc, rank, wrank;
    MPI_Comm nc = MPI_COMM_NULL;
    if ((rc = nh_mpi_Comm_rank(comm, &rank)))
        return rc;
    if (nh_node_size > 0) { /* NHOOD_NODE_SIZE: blocks of MPI_COMM_WORLD ranks (Sessions: of
                               * comm's) */
        if ((rc = nh_mpi_Comm_rank(nh_no_world ? comm : MPI_COMM_WORLD, &wrank)) ||
            (rc = nh_mpi_Comm_split(comm, wrank / nh_node_size, rank, &nc)))
            return rc;
        nh_res_add(NH_RES_COMM, 1);
    } else if ((rc = nh_comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, &nc))) {
        return rc;
    }
    rc = nh_mpi_Allreduce(&rank, node, 1, MPI_INT, MPI_MIN, nc);
    nh_comm_free(&nc);
    return rc;
}

int nh_node_ranks, nh_node_cpus, nh_node_max;

int nh_oversub_agree(MPI_Comm scope)
{
    enum { MASK = 128 }; /* bytes: cpu_set_t's 1024 CPUs */
    unsigned char mine[MASK], all[MASK];
    int rc, r = 0, c = 0, size, known = nh_host_cpus(mine, MASK) == 0;
    MPI_Comm node = MPI_COMM_NULL;
    if ((rc = nh_mpi_Comm_size(scope, &size)) ||
        (rc = nh_comm_split_type(scope, MPI_COMM_TYPE_SHARED, 0, &node)))
        return rc;
    if (!known) /* every rank of the node must join the reduction */
        memset(mine, 0xff, MASK);
    if (!(rc = nh_mpi_Comm_size(node, &r)))
        rc = nh_mpi_Allreduce(mine, all, MASK, MPI_BYTE, MPI_BOR, node);
    nh_comm_free(&node);
    if (rc)
        return rc;
    for (int i = 0; i < MASK; i++)
        c += __builtin_popcount(all[i]);
    /* One reduction, by maximum: the node with the most ranks per CPU
     * (its milli-ratio above R and C, each below 2^15), and the most ranks
     * on one node. */
    int64_t in[2] = {known ? (int64_t)(1000.0 * r / (c > 0 ? c : 1)) << 30 |
                                 (int64_t)(r & 0x7fff) << 15 | (c & 0x7fff)
                           : -1,
                     r},
            out[2];
    if ((rc = nh_mpi_Allreduce(in, out, 2, MPI_INT64_T, MPI_MAX, scope)))
        return rc;
    if (out[0] >= 0) {
        nh_node_ranks = (int)(out[0] >> 15 & 0x7fff);
        nh_node_cpus = (int)(out[0] & 0x7fff);
    }
    /* NHOOD_NODE_SIZE: nodes of that many consecutive ranks (tests) */
    nh_node_max = nh_node_size > 0 ? (nh_node_size < size ? nh_node_size : size) : (int)out[1];
    return MPI_SUCCESS;
}

int nh_comm_free(MPI_Comm *comm)
{
    int rc = nh_mpi_Comm_free(comm);
    if (rc == MPI_SUCCESS)
        nh_res_add(NH_RES_COMM, -1);
    return rc;
}

/* A new type t (rc: its creation's result, made before t is read)
 * committed and counted. */
static int committed(int rc, MPI_Datatype t, MPI_Datatype *out)
{
    if (rc)
        return rc;
    if ((rc = nh_mpi_Type_commit(&t))) {
        nh_mpi_Type_free(&t);
        return rc;
    }
    nh_res_add(NH_RES_DATATYPE, 1);
    *out = t;
    return MPI_SUCCESS;
}

int nh_type_create_struct(int n, const int *lens, const MPI_Aint *disps, const MPI_Datatype *types,
                          MPI_Datatype *out)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = nh_mpi_Type_create_struct(n, lens, disps, types, &t);
    return committed(rc, t, out);
}

int nh_type_create_resized(MPI_Datatype type, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *out)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = nh_mpi_Type_create_resized(type, lb, extent, &t);
    return committed(rc, t, out);
}

int nh_type_dup(MPI_Datatype type, MPI_Datatype *out)
{
    int rc = nh_mpi_Type_dup(type, out);
    if (rc == MPI_SUCCESS)
        nh_res_add(NH_RES_DATATYPE, 1);
    return rc;
}

int nh_type_contiguous(int count, MPI_Datatype type, MPI_Datatype *out)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = nh_mpi_Type_contiguous(count, type, &t);
    return committed(rc, t, out);
}

int nh_type_free(MPI_Datatype *type)
{
    int rc = nh_mpi_Type_free(type);
    if (rc == MPI_SUCCESS)
        nh_res_add(NH_RES_DATATYPE, -1);
    return rc;
}

int nh_type_create_user_indexed(int n, const int *lens, const int *disps, MPI_Datatype old,
                                MPI_Datatype *out)
{
    MPI_Datatype t;
    int rc = nh_mpi_Type_indexed(n, lens, disps, old, &t);
    if (rc)
        return rc;
    if ((rc = nh_mpi_Type_commit(&t))) {
        nh_mpi_Type_free(&t);
        return rc;
    }
    *out = t;
    return MPI_SUCCESS;
}

int nh_type_inner(MPI_Datatype type, int ni, int na, int nd, int *ints, MPI_Aint *aints,
                  MPI_Datatype *inner, int *named)
{
    int rc = nh_mpi_Type_get_contents(type, ni, na, nd, ints, aints, inner), a, b, c, comb;
    if (rc)
        return rc;
    *named = nh_mpi_Type_get_envelope(*inner, &a, &b, &c, &comb) == MPI_SUCCESS &&
             comb == MPI_COMBINER_NAMED;
    if (!*named)
        nh_res_add(NH_RES_DATATYPE, 1);
    return MPI_SUCCESS;
}

int nh_isend(const void *buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
             MPI_Request *req)
{
    int rc = nh_mpi_Isend(buf, count, type, peer, tag, comm, req);
    if (rc == MPI_SUCCESS)
        nh_res_add(NH_RES_REQUEST, 1);
    return rc;
}

int nh_irecv(void *buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
             MPI_Request *req)
{
    int rc = nh_mpi_Irecv(buf, count, type, peer, tag, comm, req);
    if (rc == MPI_SUCCESS)
        nh_res_add(NH_RES_REQUEST, 1);
    return rc;
}

int nh_send_init(const void *buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                 MPI_Request *req)
{
    int rc = nh_mpi_Send_init(buf, count, type, peer, tag, comm, req);
    if (rc == MPI_SUCCESS)
        nh_res_add(NH_RES_REQUEST, 1);
    return rc;
}

int nh_recv_init(void *buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                 MPI_Request *req)
{
    int rc = nh_mpi_Recv_init(buf, count, type, peer, tag, comm, req);
    if (rc == MPI_SUCCESS)
        nh_res_add(NH_RES_REQUEST, 1);
    return rc;
}

int nh_iallreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                  MPI_Request *req)
{
    int rc = nh_mpi_Iallreduce(in, out, count, type, op, comm, req);
    if (rc == MPI_SUCCESS)
        nh_res_add(NH_RES_REQUEST, 1);
    return rc;
}

int nh_request_free(MPI_Request *req)
{
    int rc = nh_mpi_Request_free(req);
    if (rc == MPI_SUCCESS)
        nh_res_add(NH_RES_REQUEST, -1);
    return rc;
}

/* MPI frees a nonpersistent request when it completes and sets the handle
 * to MPI_REQUEST_NULL; persistent ones stay.  Counting the handles that
 * turned null counts exactly the requests MPI freed, also when an error
 * leaves some live. */
static long live_handles(int n, const MPI_Request *reqs)
{
    long k = 0;
    for (int i = 0; i < n; i++)
        k += reqs[i] != MPI_REQUEST_NULL;
    return k;
}

int nh_waitall(int n, MPI_Request *reqs, MPI_Status *stats)
{
    long before = live_handles(n, reqs);
    int rc = nh_mpi_Waitall(n, reqs, stats);
    nh_res_add(NH_RES_REQUEST, live_handles(n, reqs) - before);
    return rc;
}

int nh_testall(int n, MPI_Request *reqs, int *flag, MPI_Status *stats)
{
    long before = live_handles(n, reqs);
    int rc = nh_mpi_Testall(n, reqs, flag, stats);
    nh_res_add(NH_RES_REQUEST, live_handles(n, reqs) - before);
    return rc;
}

NH_EXPORT int nhood_resource_counts(nhood_resources *out)
{
    out->comms = nh_res_live(NH_RES_COMM);
    out->datatypes = nh_res_live(NH_RES_DATATYPE);
    out->requests = nh_res_live(NH_RES_REQUEST);
    out->plans = nh_res_live(NH_RES_PLAN);
    return MPI_SUCCESS;
}
