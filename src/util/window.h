/* The program's compute between starting a nonblocking neighborhood
 * collective and completing it (its "window"), measured on this process.
 *
 * A forwarding schedule run by a nonblocking call forwards at the
 * forwarding ranks' next MPI call, so their compute between start and
 * completion delays everyone downstream; a single-phase exchange moves
 * during it.  The cost model (select/select.c) weighs the two with the
 * window, which graph creation agrees on (plan/detect.c, plan/agree.c):
 * every rank contributes its bucket, the largest wins.
 *
 * The window of a call is the time from the return of MPI_Ineighbor_*
 * (or MPI_Start of nhood's persistent requests) to the entry of the first
 * completion call (wait, test and their array forms) that names its
 * request.  Requests are sampled (a few at a time); a histogram of
 * buckets, a third of an octave wide, keeps them, halved every 64 samples
 * so that recent calls weigh more.  The process's window is the third
 * quartile: forwarding must pay back on most calls, and a quarter of
 * long windows already costs it its gain.  Thread-safe. */
#ifndef NH_WINDOW_H
#define NH_WINDOW_H

#include "util/mpilib.h"

#define NH_WIN_BUCKETS 63
#define NH_WIN_UNKNOWN 63 /* nothing measured: the largest, so it wins agreements */

/* Nonzero while a sampled request waits for its completion call: the
 * completion calls' fast path tests it. */
extern int nh_win_pending;

/* A nonblocking neighborhood collective (or nhood's persistent one) was
 * started with handle h. */
void nh_win_started(MPI_Request h);
/* A completion call names these handles (MPI_REQUEST_NULL ignored). */
void nh_win_seen(const MPI_Request *h, int n);
/* Handle h was freed (MPI_Request_free): its sample is dropped. */
void nh_win_forget(MPI_Request h);
/* The bucket of this process's window (the third quartile measured), or
 * NH_WIN_UNKNOWN (fewer than NH_WIN_MIN samples).  Graph creation
 * contributes it, or NHOOD_WINDOW where set (nh_window_mine, plan/plan.h). */
int nh_win_bucket(void);
/* A bucket's window in microseconds (its upper edge; < 0 for unknown). */
double nh_win_us(int bucket);
/* The bucket of a window of us microseconds. */
int nh_win_bucket_of(double us);

#define NH_WIN_MIN 4

#endif
