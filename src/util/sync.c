/* Locks for MPI_THREAD_MULTIPLE (sync.h). */
#define _GNU_SOURCE /* PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP */
#include <sched.h>

#include "util/sync.h"

int nh_mt;
__thread int nh_req_depth NH_TLS_FAST;
pthread_mutex_t nh_mutex[NH_LOCK_COUNT] = {PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP,
                                           PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP};

void nh_lock_yield(nh_lock_id k)
{
    if (!nh_mt)
        return;
    pthread_mutex_unlock(&nh_mutex[k]);
    sched_yield();
    pthread_mutex_lock(&nh_mutex[k]);
}
