/* Locks for MPI_THREAD_MULTIPLE.
 *
 * MPI already forbids concurrent collectives on one communicator, so a
 * plan's own state (decisions, binding cache, tag sequence) is touched by
 * one thread at a time.  What threads share is guarded here, and only
 * where the program asked for MPI_THREAD_MULTIPLE (nh_mt), so other
 * programs pay one predictable branch:
 *  - NH_LOCK_REQ: nhood's requests (the live list, their runs, tag slots);
 *    recursive, and never held across a blocking MPI call;
 *  - NH_LOCK_MISC: the report's records, lazily built schedules shared by
 *    duplicates, autotune's trials and the tuning file's decisions, the
 *    in-place records, detection's last candidate list.
 * Counters (resources, plan references, ids) are atomic. */
#ifndef NH_SYNC_H
#define NH_SYNC_H

#include <pthread.h>

#include "util/util.h"

typedef enum { NH_LOCK_REQ = 0, NH_LOCK_MISC, NH_LOCK_COUNT } nh_lock_id;

extern int nh_mt; /* set once at start-up: MPI_THREAD_MULTIPLE provided */
extern pthread_mutex_t nh_mutex[NH_LOCK_COUNT];
/* How deep this thread is inside NH_LOCK_REQ (counted with or without
 * locking): the MPI library's progress hook (exec/progress.c) must not
 * step nhood's requests from inside nhood's own request code. */
extern __thread int nh_req_depth NH_TLS_FAST;

static inline void nh_lock(nh_lock_id k)
{
    if (k == NH_LOCK_REQ)
        nh_req_depth++;
    if (nh_mt)
        pthread_mutex_lock(&nh_mutex[k]);
}

static inline void nh_unlock(nh_lock_id k)
{
    if (nh_mt)
        pthread_mutex_unlock(&nh_mutex[k]);
    if (k == NH_LOCK_REQ)
        nh_req_depth--;
}

/* 1 if taken (or no locking is needed). */
static inline int nh_trylock(nh_lock_id k)
{
    if (nh_mt && pthread_mutex_trylock(&nh_mutex[k]) != 0)
        return 0;
    if (k == NH_LOCK_REQ)
        nh_req_depth++;
    return 1;
}

/* Lets other threads in while this one polls (k held once). */
void nh_lock_yield(nh_lock_id k);

static inline int nh_atomic_add(int *v, int d)
{
    return __atomic_add_fetch(v, d, __ATOMIC_ACQ_REL);
}

#endif
