/* SMPI build only: MPI_Ineighbor_alltoall and MPI_Ineighbor_alltoallv,
 * which SMPI 3.32 lacks: MPICH's linear schedule (compat.c) posted at the
 * start, completed by MPI_Wait or MPI_Test on the request returned.
 *
 * The request is one of SMPI's (a receive from MPI_PROC_NULL, complete at
 * once); the exchange's own requests wait in a table under it, and the
 * PMPI_Wait, PMPI_Test and PMPI_Waitall defined here (which take SMPI's
 * place in the program, as compat.c's definitions do) complete them
 * first.  MPI_Testall, MPI_Waitany, MPI_Testany, MPI_Waitsome and
 * MPI_Testsome refuse such a request (MPI_ERR_REQUEST, with a message):
 * the simulated benchmarks complete theirs with MPI_Wait. */
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
static int (*real_waitall)(int, MPI_Request *, MPI_Status *);
static int (*real_testall)(int, MPI_Request *, int *, MPI_Status *);
static int (*real_waitany)(int, MPI_Request *, int *, MPI_Status *);
static int (*real_testany)(int, MPI_Request *, int *, int *, MPI_Status *);
static int (*real_waitsome)(int, MPI_Request *, int *, int *, MPI_Status *);
static int (*real_testsome)(int, MPI_Request *, int *, int *, MPI_Status *);

static int resolve(void);

static int start(MPI_Comm comm, const lin_args *a, MPI_Request *request)
{
    MPI_Request *req;
    int n, rc;
    *request = MPI_REQUEST_NULL;
    if ((rc = resolve()))
        return rc;
    rc = nh_smpi_linear_post(comm, a, &req, &n);
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
            real_waitall(n, req, MPI_STATUSES_IGNORE);
        free(req);
        if (*request != MPI_REQUEST_NULL)
            real_wait(request, MPI_STATUS_IGNORE);
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

/* SimGrid's own completion calls, behind the ones defined here. */
static int resolve(void)
{
    if (!real_wait) {
        *(void **)&real_wait = dlsym(RTLD_NEXT, "PMPI_Wait");
        *(void **)&real_test = dlsym(RTLD_NEXT, "PMPI_Test");
        *(void **)&real_waitall = dlsym(RTLD_NEXT, "PMPI_Waitall");
        *(void **)&real_testall = dlsym(RTLD_NEXT, "PMPI_Testall");
        *(void **)&real_waitany = dlsym(RTLD_NEXT, "PMPI_Waitany");
        *(void **)&real_testany = dlsym(RTLD_NEXT, "PMPI_Testany");
        *(void **)&real_waitsome = dlsym(RTLD_NEXT, "PMPI_Waitsome");
        *(void **)&real_testsome = dlsym(RTLD_NEXT, "PMPI_Testsome");
    }
    if (!real_wait || !real_test || !real_waitall || !real_testall || !real_waitany ||
        !real_testany || !real_waitsome || !real_testsome) {
        fprintf(stderr, "nhood (SMPI build): SimGrid's completion calls not found\n");
        return MPI_ERR_INTERN;
    }
    return MPI_SUCCESS;
}

/* Does the array hold a request started here?  Then the call refuses it. */
static int refused(int n, const MPI_Request *arr, const char *call)
{
    for (int k = 0; ntab && k < n; k++)
        if (find(arr[k]) >= 0) {
            fprintf(stderr,
                    "nhood (SMPI build): %s on an MPI_Ineighbor_alltoall[v] request of the SMPI "
                    "layer; complete it with MPI_Wait, MPI_Test or MPI_Waitall\n",
                    call);
            return 1;
        }
    return 0;
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    int rc, i = ntab ? find(*request) : -1;
    if ((rc = resolve()))
        return rc;
    if (i >= 0) {
        rc = real_waitall(tab[i].n, tab[i].req, MPI_STATUSES_IGNORE);
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
        if ((rc = real_testall(tab[i].n, tab[i].req, flag, MPI_STATUSES_IGNORE)) || !*flag)
            return rc;
        free(tab[i].req);
        tab[i] = tab[--ntab];
    }
    return real_test(request, flag, status);
}

int PMPI_Waitall(int n, MPI_Request arr[], MPI_Status sts[])
{
    int rc;
    if ((rc = resolve()))
        return rc;
    for (int k = 0; ntab && k < n; k++) {
        int i = find(arr[k]);
        if (i < 0)
            continue;
        int wrc = real_waitall(tab[i].n, tab[i].req, MPI_STATUSES_IGNORE);
        rc = rc ? rc : wrc;
        free(tab[i].req);
        tab[i] = tab[--ntab];
    }
    int wrc = real_waitall(n, arr, sts);
    return rc ? rc : wrc;
}

int PMPI_Testall(int n, MPI_Request arr[], int *flag, MPI_Status sts[])
{
    int rc = resolve();
    return rc                               ? rc
           : refused(n, arr, "MPI_Testall") ? MPI_ERR_REQUEST
                                            : real_testall(n, arr, flag, sts);
}

int PMPI_Waitany(int n, MPI_Request arr[], int *idx, MPI_Status *st)
{
    int rc = resolve();
    return rc                               ? rc
           : refused(n, arr, "MPI_Waitany") ? MPI_ERR_REQUEST
                                            : real_waitany(n, arr, idx, st);
}

int PMPI_Testany(int n, MPI_Request arr[], int *idx, int *flag, MPI_Status *st)
{
    int rc = resolve();
    return rc                               ? rc
           : refused(n, arr, "MPI_Testany") ? MPI_ERR_REQUEST
                                            : real_testany(n, arr, idx, flag, st);
}

int PMPI_Waitsome(int n, MPI_Request arr[], int *outcount, int idxs[], MPI_Status sts[])
{
    int rc = resolve();
    return rc                                ? rc
           : refused(n, arr, "MPI_Waitsome") ? MPI_ERR_REQUEST
                                             : real_waitsome(n, arr, outcount, idxs, sts);
}

int PMPI_Testsome(int n, MPI_Request arr[], int *outcount, int idxs[], MPI_Status sts[])
{
    int rc = resolve();
    return rc                                ? rc
           : refused(n, arr, "MPI_Testsome") ? MPI_ERR_REQUEST
                                             : real_testsome(n, arr, outcount, idxs, sts);
}

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    lin_args a = lin_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return start(comm, &a, request);
}

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    lin_args a = lin_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                               recvtype);
    return start(comm, &a, request);
}
