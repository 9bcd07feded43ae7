/* A cold graph's regular all-to-all on a rank that lists no peer twice,
 * where the MPI library orders a repeated peer's blocks wrongly
 * (api/cold.c has the ranks that do): the MPI_Neighbor_alltoallv every
 * rank makes there, with the program's blocks. */
#include <limits.h>
#include <stdlib.h>

#include "api/api.h"
#include "util/spare.h"
#include "util/sync.h"

#ifndef NHOOD_SMPI

/* ones[k] = 1 and iota[k] = k for the regular calls' contiguous blocks
 * below: kept until MPI_Finalize (MPI may read them until a request is
 * freed), one pair per power of two. */
static int *ones[32], *iota[32];

static int constants(int n, int **one, int **to)
{
    int b = 0;
    while ((1 << b) < n)
        b++;
    if (!__atomic_load_n(&iota[b], __ATOMIC_ACQUIRE)) {
        int *o = malloc(sizeof(int) << b), *t = malloc(sizeof(int) << b), *none = NULL;
        if (!o || !t) {
            free(o);
            free(t);
            return MPI_ERR_NO_MEM;
        }
        for (int k = 0; k < 1 << b; k++) {
            o[k] = 1;
            t[k] = k;
        }
        if (!__atomic_compare_exchange_n(&ones[b], &none, o, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            free(o);
        none = NULL;
        if (!__atomic_compare_exchange_n(&iota[b], &none, t, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            free(t);
    }
    *one = __atomic_load_n(&ones[b], __ATOMIC_ACQUIRE);
    *to = __atomic_load_n(&iota[b], __ATOMIC_ACQUIRE);
    return MPI_SUCCESS;
}

/* counts[k] = count and displs[k] = k * count, kept until MPI_Finalize
 * for the first NH_COLD_SCALED counts of nonblocking and persistent calls
 * (the program's own type then: making and freeing a contiguous type per
 * call cost MPICH 4.0.2 at 2 ranks about 1 us of a 5 us 3-D Moore
 * ialltoall of 8 B); one pair per count and power of two. */
#define NH_COLD_SCALED 16
static struct scaled {
    int count, b, *c, *d;
} scaled[NH_COLD_SCALED];
static int nscaled;

static int scaled_arrays(int count, int n, int **c, int **d)
{
    int b = 0, rc = -1;
    while ((1 << b) < n)
        b++;
    if (count < 0 || (long)count << b > INT_MAX) /* (MPI reports a negative count) */
        return -1;
    nh_lock(NH_LOCK_MISC);
    for (int i = 0; i < nscaled && rc; i++)
        if (scaled[i].count == count && scaled[i].b == b) {
            *c = scaled[i].c;
            *d = scaled[i].d;
            rc = 0;
        }
    if (rc && nscaled < NH_COLD_SCALED) {
        int *cc = malloc(sizeof(int) << b), *dd = malloc(sizeof(int) << b);
        if (cc && dd) {
            for (int k = 0; k < 1 << b; k++) {
                cc[k] = count;
                dd[k] = k * count;
            }
            scaled[nscaled++] = (struct scaled){count, b, cc, dd};
            *c = cc;
            *d = dd;
            rc = 0;
        } else {
            free(cc);
            free(dd);
        }
    }
    nh_unlock(NH_LOCK_MISC);
    return rc;
}

/* A regular all-to-all of a rank that lists no peer twice, as the
 * alltoallv the others make: a blocking one with counts and
 * displacements on the stack where they fit, else over kept arrays of
 * the counts (scaled_arrays), else each block one element of a
 * contiguous type over constant arrays. */
int nh_cold_regular(nh_form form, const nh_args *a, MPI_Comm comm, int outdeg, int indeg,
                    MPI_Request *req)
{
    int n = outdeg > indeg ? outdeg : indeg, rc;
    if (form == NH_FORM_BLOCKING && n <= 256 && (long)n * a->scount <= INT32_MAX &&
        (long)n * a->rcount <= INT32_MAX) {
        int sc[256], sd[256], rcn[256], rd[256];
        for (int k = 0; k < outdeg; k++) {
            sc[k] = a->scount;
            sd[k] = k * a->scount;
        }
        for (int k = 0; k < indeg; k++) {
            rcn[k] = a->rcount;
            rd[k] = k * a->rcount;
        }
        return nh_mpi_Neighbor_alltoallv(a->sbuf, sc, sd, a->stype, a->rbuf, rcn, rd, a->rtype,
                                         comm);
    }
    int *sc, *sd, *rcn, *rd;
    if (a->scount == a->rcount && !scaled_arrays(a->scount, n, &sc, &sd)) {
        rcn = sc;
        rd = sd;
        if (form == NH_FORM_BLOCKING)
            return nh_mpi_Neighbor_alltoallv(a->sbuf, sc, sd, a->stype, a->rbuf, rcn, rd, a->rtype,
                                             comm);
        if (form == NH_FORM_NONBLOCKING)
            return nh_mpi_Ineighbor_alltoallv(a->sbuf, sc, sd, a->stype, a->rbuf, rcn, rd, a->rtype,
                                              comm, req);
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
        return nh_mpi_Neighbor_alltoallv_init(a->sbuf, sc, sd, a->stype, a->rbuf, rcn, rd, a->rtype,
                                              comm, MPI_INFO_NULL, req);
#endif
    }
    int *one, *to;
    MPI_Datatype st = MPI_DATATYPE_NULL, rt = MPI_DATATYPE_NULL;
    if ((rc = constants(n, &one, &to)) || (rc = nh_type_contiguous(a->scount, a->stype, &st)) ||
        (rc = nh_type_contiguous(a->rcount, a->rtype, &rt)))
        goto out;
    if (form == NH_FORM_BLOCKING)
        rc = nh_mpi_Neighbor_alltoallv(a->sbuf, one, to, st, a->rbuf, one, to, rt, comm);
    else if (form == NH_FORM_NONBLOCKING)
        rc = nh_mpi_Ineighbor_alltoallv(a->sbuf, one, to, st, a->rbuf, one, to, rt, comm, req);
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
    else
        rc = nh_mpi_Neighbor_alltoallv_init(a->sbuf, one, to, st, a->rbuf, one, to, rt, comm,
                                            MPI_INFO_NULL, req);
#endif
out: /* (MPI keeps what its operations use) */
    if (st != MPI_DATATYPE_NULL)
        nh_type_free(&st);
    if (rt != MPI_DATATYPE_NULL)
        nh_type_free(&rt);
    return rc;
}

#else

int nh_cold_regular(nh_form form, const nh_args *a, MPI_Comm comm, int outdeg, int indeg,
                    MPI_Request *req)
{
    (void)form, (void)a, (void)comm, (void)outdeg, (void)indeg, (void)req;
    return NH_TO_PMPI; /* SimGrid's own exchange follows the lists */
}

#endif

void nh_cold_fini(void)
{
    nh_spare_fini();
#ifndef NHOOD_SMPI
    for (int b = 0; b < 32; b++) {
        free(ones[b]);
        free(iota[b]);
        ones[b] = iota[b] = NULL;
    }
    for (int i = 0; i < nscaled; i++) {
        free(scaled[i].c);
        free(scaled[i].d);
    }
    nscaled = 0;
#endif
}
