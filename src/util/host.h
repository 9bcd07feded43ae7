/* What the library runs on, behind one small interface so that no other
 * file needs a build switch.  Two implementations, one per build:
 * util/host.c for real processes (hwloc), smpi/host.c for SimGrid SMPI,
 * where every simulated rank lives in one address space of one process. */
#ifndef NH_HOST_H
#define NH_HOST_H

/* 1 under simulation: ranks share an address space (store-and-forward
 * set-up builds every rank's schedule once, on rank 0), and nothing of
 * nhood's is pending while nhood waits (blocking reductions suffice). */
int nh_host_simulated(void);

/* Index of the NUMA node (or else package) this process is bound to, -1
 * if unbound or unknown. */
int nh_host_numa_index(void);

/* The CPUs this process may run on (its affinity), one bit per CPU in
 * mask[bytes] as cpu_set_t lays them out; -1 if unknown (simulated). */
int nh_host_cpus(unsigned char *mask, int bytes);

#endif
