/* The program's window between start and completion of nonblocking
 * neighborhood collectives (see window.h). */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "util/util.h"
#include "util/window.h"
#ifdef HAVE_VALGRIND_HELGRIND_H
#include <valgrind/helgrind.h>
#else
#define VALGRIND_HG_DISABLE_CHECKING(addr, len)
#endif

#define NH_WIN_SLOTS 4    /* requests sampled at once */
#define NH_WIN_HALVE 64   /* samples after which the histogram is halved */
#define NH_WIN_STALE 10.0 /* s: a sample never completed by a call nhood sees is dropped */

int nh_win_pending;

static struct {
    MPI_Request h;
    double t;
    int used;
} slot[NH_WIN_SLOTS];
static unsigned hist[NH_WIN_BUCKETS], total;
/* Any thread may start or complete a request; taken only on the sampled
 * paths.  nh_win_pending is also read without it (atomically, by every
 * completion call's fast path), which helgrind, not modeling atomics,
 * would report. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void lock(void)
{
    pthread_mutex_lock(&mu);
}

static void unlock(void)
{
    pthread_mutex_unlock(&mu);
}

int nh_win_bucket_of(double us)
{
    if (!(us > 0.125))
        return 0;
    double b = ceil(3.0 * log2(us / 0.125));
    return b >= NH_WIN_BUCKETS - 1 ? NH_WIN_BUCKETS - 1 : (int)b;
}

double nh_win_us(int bucket)
{
    if (bucket < 0 || bucket >= NH_WIN_BUCKETS)
        return -1;
    return 0.125 * exp2(bucket / 3.0);
}

static void record_locked(double us)
{
    hist[nh_win_bucket_of(us)]++;
    if (++total < NH_WIN_HALVE)
        return;
    total = 0;
    for (int b = 0; b < NH_WIN_BUCKETS; b++) /* rounded up: a bucket stays */
        total += hist[b] = (hist[b] + 1) / 2;
}

NH_HOT void nh_win_started(MPI_Request h)
{
    if (h == MPI_REQUEST_NULL)
        return;
    double t = nh_mpi_Wtime();
    VALGRIND_HG_DISABLE_CHECKING(&nh_win_pending, sizeof(nh_win_pending));
    lock();
    int free_slot = -1;
    for (int i = 0; i < NH_WIN_SLOTS; i++) {
        if (slot[i].used && slot[i].h == h) { /* back: its last request completed unseen */
            free_slot = i;
            break;
        }
        if (free_slot < 0 && !slot[i].used)
            free_slot = i;
    }
    if (free_slot >= 0) {
        if (!slot[free_slot].used)
            __atomic_add_fetch(&nh_win_pending, 1, __ATOMIC_RELAXED);
        slot[free_slot].used = 1;
        slot[free_slot].h = h;
        slot[free_slot].t = t;
    }
    unlock();
}

/* Drops slot i; its window is recorded where seen at time now (> 0). */
static void take(int i, double now)
{
    if (now > 0)
        record_locked((now - slot[i].t) * 1e6);
    slot[i].used = 0;
    __atomic_sub_fetch(&nh_win_pending, 1, __ATOMIC_RELAXED);
}

NH_HOT void nh_win_seen(const MPI_Request *h, int n)
{
    double now = nh_mpi_Wtime();
    lock();
    for (int k = 0; k < n && nh_win_pending; k++)
        for (int i = 0; h[k] != MPI_REQUEST_NULL && i < NH_WIN_SLOTS; i++)
            if (slot[i].used && slot[i].h == h[k])
                take(i, now);
    /* A request completed where nhood does not see it (a binding nhood
     * does not wrap) would keep the completion calls off their fast path
     * and could lend its handle to another request: dropped when old. */
    for (int i = 0; i < NH_WIN_SLOTS; i++)
        if (slot[i].used && now - slot[i].t > NH_WIN_STALE)
            take(i, 0);
    unlock();
}

void nh_win_forget(MPI_Request h)
{
    lock();
    for (int i = 0; i < NH_WIN_SLOTS; i++)
        if (slot[i].used && slot[i].h == h)
            take(i, 0);
    unlock();
}

int nh_win_bucket(void)
{
    int b = NH_WIN_UNKNOWN;
    lock();
    if (total >= NH_WIN_MIN) {
        unsigned below = 0;
        for (b = 0; b < NH_WIN_BUCKETS - 1 && 4 * (below + hist[b]) < 3 * total; b++)
            below += hist[b];
    }
    unlock();
    return b;
}
