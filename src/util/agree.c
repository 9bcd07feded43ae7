/* Agreed facts over a communicator (util.h, nh_facts_allreduce): the MIN
 * reduction transport of core/facts.h. */
#include "util/util.h"

int nh_facts_allreduce(const nh_fact *f, int n, const long long *val, long long *out, MPI_Comm comm)
{
    long long w[2 * NH_FACTS_MAX], sum[NH_FACTS_MAX];
    int ns, rc;
    if (n > NH_FACTS_MAX)
        return MPI_ERR_INTERN;
    int nw = nh_facts_min_pack(f, n, val, w, sum, &ns);
    if ((rc = nh_mpi_Allreduce(MPI_IN_PLACE, w, nw, MPI_LONG_LONG, MPI_MIN, comm)) ||
        (ns && (rc = nh_mpi_Allreduce(MPI_IN_PLACE, sum, ns, MPI_LONG_LONG, MPI_SUM, comm))))
        return rc;
    nh_facts_min_unpack(f, n, w, sum, out);
    return MPI_SUCCESS;
}
