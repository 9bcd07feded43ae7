/* SMPI build only: MPI_Ineighbor_alltoall and MPI_Ineighbor_alltoallv,
 * which SMPI 3.32 lacks: MPICH's linear schedule (compat.c) posted at the
 * start, completed by MPI_Wait or MPI_Test on the request returned.
 *
 * The request is one of SMPI's (a receive from MPI_PROC_NULL, complete at
 * once); the exchange's own requests wait in a table under it, and the
 * PMPI_Wait and PMPI_Test defined here (which take SMPI's place in the
 * program, as compat.c's definitions do) complete them first.  The other
 * completion calls refuse such a request (MPI_ERR_REQUEST): the simulated
 * benchmarks complete theirs with MPI_Wait. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "smpi/compat.h"

typedef struct pending {
    MPI_Request h;
    MPI_Request *req;
    int n;
} pending;

static pending *tab;
static int ntab, cap;

static int (*real_wait)(MPI_Request *, MPI_Status *);
static int (*real_test)(MPI_Request *, int *, MPI_Status *);

static int start(MPI_Comm comm, const lin_args *a, MPI_Request *request)
{
    MPI_Request *req;
    int n, rc = nh_smpi_linear_post(comm, a, &req, &n);
    if (!rc)
        rc = PMPI_Irecv(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, request);
    if (!rc && ntab == cap) {
        pending *t = realloc(tab, sizeof(*t) * (size_t)(cap ? 2 * cap : 8));
        if (!t)
            rc = MPI_ERR_NO_MEM;
        else {
            tab = t;
            cap = cap ? 2 * cap : 8;
        }
    }
    if (rc) { /* what was posted completes before the error returns */
        if (n)
            PMPI_Waitall(n, req, MPI_STATUSES_IGNORE);
        free(req);
        return rc;
    }
    tab[ntab++] = (pending){*request, req, n};
    return MPI_SUCCESS;
}

static int find(MPI_Request h)
{
    for (int i = 0; i < ntab; i++)
        if (tab[i].h == h)
            return i;
    return -1;
}

static int resolve(void)
{
    if (!real_wait) {
        real_wait = (int (*)(MPI_Request *, MPI_Status *))dlsym(RTLD_NEXT, "PMPI_Wait");
        real_test = (int (*)(MPI_Request *, int *, MPI_Status *))dlsym(RTLD_NEXT, "PMPI_Test");
    }
    if (!real_wait || !real_test) {
        fprintf(stderr, "nhood (SMPI build): SimGrid's PMPI_Wait or PMPI_Test not found\n");
        return MPI_ERR_INTERN;
    }
    return MPI_SUCCESS;
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    int rc, i = ntab ? find(*request) : -1;
    if ((rc = resolve()))
        return rc;
    if (i >= 0) {
        rc = PMPI_Waitall(tab[i].n, tab[i].req, MPI_STATUSES_IGNORE);
        free(tab[i].req);
        tab[i] = tab[--ntab];
    }
    int wrc = real_wait(request, status);
    return rc ? rc : wrc;
}

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    int rc, i = ntab ? find(*request) : -1;
    if ((rc = resolve()))
        return rc;
    if (i >= 0) {
        if ((rc = PMPI_Testall(tab[i].n, tab[i].req, flag, MPI_STATUSES_IGNORE)) || !*flag)
            return rc;
        free(tab[i].req);
        tab[i] = tab[--ntab];
    }
    return real_test(request, flag, status);
}

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    lin_args a = {.sbuf = sendbuf,
                  .rbuf = recvbuf,
                  .scount = sendcount,
                  .rcount = recvcount,
                  .stype = sendtype,
                  .rtype = recvtype};
    return start(comm, &a, request);
}

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    lin_args a = {.sbuf = sendbuf,
                  .rbuf = recvbuf,
                  .scounts = sendcounts,
                  .rcounts = recvcounts,
                  .sdispl_ext = sdispls,
                  .rdispl_ext = rdispls,
                  .stype = sendtype,
                  .rtype = recvtype};
    return start(comm, &a, request);
}
