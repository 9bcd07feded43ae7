/* A thread's last answers about communicators (a plan, an Iso
 * communicator's state): a look-up that would read the MPI library's
 * attribute table reads one cache line instead, which matters where every
 * call runs on cold caches (ranks outnumbering cores, or the program's own
 * work between calls).  The answers hold while the owner's generation is
 * the one they were found under: the owner bumps it whenever an answer
 * may change (an attribute deleted, or set on a handle that may be one
 * remembered before).  Several answers: a program alternates a graph's
 * calls with collectives on the communicator it was made from, or
 * exchanges on several graphs.  Declare a memo NH_TLS_FAST (util.h). */
#ifndef NH_UTIL_MEMO_H
#define NH_UTIL_MEMO_H

#include <mpi.h>

#include "util/util.h"

#define NH_MEMO_WAYS 3

typedef struct nh_comm_memo {
    MPI_Comm comm[NH_MEMO_WAYS];
    void *val[NH_MEMO_WAYS];
    unsigned long gen; /* the owner's generation + 1 when filled; 0: empty */
    int next;          /* the way filled next */
} __attribute__((aligned(64))) nh_comm_memo;

/* The owner's generation (read with acquire); bumped by nh_memo_bump. */
static inline unsigned long nh_memo_gen(const unsigned long *gen)
{
    return __atomic_load_n(gen, __ATOMIC_ACQUIRE) + 1;
}

static inline void nh_memo_bump(unsigned long *gen)
{
    __atomic_add_fetch(gen, 1, __ATOMIC_ACQ_REL);
}

/* Whether m remembers comm under generation gen (nh_memo_gen): *val
 * (never MPI_COMM_NULL, the mark of an empty way). */
static inline int nh_memo_find(nh_comm_memo *m, unsigned long gen, MPI_Comm comm, void **val)
{
    if (comm == MPI_COMM_NULL)
        return 0;
    if (m->gen != gen) {
        for (int w = 0; w < NH_MEMO_WAYS; w++)
            m->comm[w] = MPI_COMM_NULL;
        m->gen = gen;
        return 0;
    }
    for (int w = 0; w < NH_MEMO_WAYS; w++)
        if (m->comm[w] == comm) {
            *val = m->val[w];
            return 1;
        }
    return 0;
}

/* Remember comm's answer val (after nh_memo_find under the same gen). */
static inline void nh_memo_put(nh_comm_memo *m, MPI_Comm comm, void *val)
{
    int w = m->next;
    m->next = (w + 1) % NH_MEMO_WAYS;
    m->comm[w] = comm;
    m->val[w] = val;
}

#endif
