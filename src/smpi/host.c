/* The simulated host (util/host.h): SimGrid SMPI, all ranks in one
 * process.  Linked into the SMPI build instead of util/host.c. */
#include "util/host.h"

int nh_host_simulated(void)
{
    return 1;
}

int nh_host_numa_index(void)
{
    return -1; /* simulated nodes (MPI_Comm_split_type) have no NUMA layout */
}

int nh_host_cpus(unsigned char *mask, int bytes)
{
    (void)mask;
    (void)bytes;
    return -1; /* simulated ranks have no cores to share */
}
