/* The completion calls under NHOOD_OVERLAP: they run as always
 * (exec/completion.c), and the nonblocking neighborhood collectives they
 * complete get their buffers watched (coll.c), with the time from the
 * start to this call and the time spent in it. */
#include <stdlib.h>
#include <string.h>

#include "exec/request.h"
#include "nh_impl.h"
#include "overlap/ov_int.h"

/* The handles as they were before the call (completion nulls them). */
typedef struct before {
    MPI_Request small[16], *h;
    double t;
} before;

static void take(before *b, int n, const MPI_Request reqs[])
{
    b->t = nh_ov_now();
    b->h = NULL;
    if (!nh_ov_ntracked || n <= 0)
        return;
    b->h = n <= 16 ? b->small : malloc((size_t)n * sizeof(MPI_Request));
    if (b->h)
        memcpy(b->h, reqs, (size_t)n * sizeof(MPI_Request));
}

static void done(before *b, int i)
{
    if (b->h)
        nh_ov_completed(b->h[i], b->t);
}

static void drop(before *b)
{
    if (b->h && b->h != b->small)
        free(b->h);
}

int nh_ov_MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    before b;
    take(&b, 1, request);
    int rc = nh_impl_MPI_Wait(request, status);
    if (!rc)
        done(&b, 0);
    drop(&b);
    return rc;
}

int nh_ov_MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    before b;
    take(&b, 1, request);
    int rc = nh_impl_MPI_Test(request, flag, status);
    if (!rc && *flag)
        done(&b, 0);
    drop(&b);
    return rc;
}

int nh_ov_MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    before b;
    take(&b, count, reqs);
    int rc = nh_impl_MPI_Waitall(count, reqs, statuses);
    for (int i = 0; !rc && i < count; i++)
        done(&b, i);
    drop(&b);
    return rc;
}

int nh_ov_MPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    before b;
    take(&b, count, reqs);
    int rc = nh_impl_MPI_Testall(count, reqs, flag, statuses);
    for (int i = 0; !rc && *flag && i < count; i++)
        done(&b, i);
    drop(&b);
    return rc;
}

int nh_ov_MPI_Waitany(int count, MPI_Request reqs[], int *indx, MPI_Status *status)
{
    before b;
    take(&b, count, reqs);
    int rc = nh_impl_MPI_Waitany(count, reqs, indx, status);
    if (!rc && *indx != MPI_UNDEFINED)
        done(&b, *indx);
    drop(&b);
    return rc;
}

int nh_ov_MPI_Testany(int count, MPI_Request reqs[], int *indx, int *flag, MPI_Status *status)
{
    before b;
    take(&b, count, reqs);
    int rc = nh_impl_MPI_Testany(count, reqs, indx, flag, status);
    if (!rc && *flag && *indx != MPI_UNDEFINED)
        done(&b, *indx);
    drop(&b);
    return rc;
}

static int some(int rc, before *b, const int *outcount, const int indices[])
{
    for (int i = 0; !rc && *outcount != MPI_UNDEFINED && i < *outcount; i++)
        done(b, indices[i]);
    drop(b);
    return rc;
}

int nh_ov_MPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                       MPI_Status statuses[])
{
    before b;
    take(&b, incount, reqs);
    return some(nh_impl_MPI_Waitsome(incount, reqs, outcount, indices, statuses), &b, outcount,
                indices);
}

int nh_ov_MPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                       MPI_Status statuses[])
{
    before b;
    take(&b, incount, reqs);
    return some(nh_impl_MPI_Testsome(incount, reqs, outcount, indices, statuses), &b, outcount,
                indices);
}
