/* The real host (util/host.h; the simulated one is smpi/host.c). */
#define _GNU_SOURCE /* sched_getaffinity */
#include <hwloc.h>
#include <sched.h>
#include <string.h>

#include "util/host.h"

int nh_host_simulated(void)
{
    return 0;
}

/* The topology is loaded once per process. */
int nh_host_numa_index(void)
{
    static int cached = -2;
    if (cached != -2)
        return cached;
    cached = -1;
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo))
        return cached;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (set && hwloc_topology_load(topo) == 0 &&
        hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0 && !hwloc_bitmap_iszero(set)) {
        hwloc_obj_t o = hwloc_get_obj_covering_cpuset(topo, set);
        while (o && o->type != HWLOC_OBJ_PACKAGE && o->type != HWLOC_OBJ_MACHINE &&
               !(o->memory_arity > 0))
            o = o->parent;
        if (o && o->type != HWLOC_OBJ_MACHINE) {
            if (o->memory_arity > 0 && o->memory_first_child)
                cached = (int)o->memory_first_child->logical_index;
            else
                cached = 1000000 + (int)o->logical_index;
        }
    }
    if (set)
        hwloc_bitmap_free(set);
    hwloc_topology_destroy(topo);
    return cached;
}

int nh_host_cpus(unsigned char *mask, int bytes)
{
    cpu_set_t set;
    if ((size_t)bytes < sizeof(set) || sched_getaffinity(0, sizeof(set), &set))
        return -1;
    memset(mask, 0, (size_t)bytes);
    memcpy(mask, &set, sizeof(set));
    return 0;
}
