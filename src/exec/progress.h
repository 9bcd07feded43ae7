/* Progress of nhood's forwarding operations wherever the program is in
 * MPI (NHOOD_PROGRESS=auto; see progress.c and docs/nonblocking.md). */
#ifndef NH_PROGRESS_H
#define NH_PROGRESS_H

/* How forwarding operations progress while the program is in MPI. */
typedef enum {
    NH_PROG_NONE = 0, /* only in nhood's completion calls (safe: no forwarding; poll: promised) */
    NH_PROG_HOOK,     /* the MPI library's progress engine calls nhood (Open MPI) */
    NH_PROG_ASYNC,    /* the same through MPIX_Async_start (MPICH 4.3 and later) */
    NH_PROG_THREAD    /* a helper thread while a program thread is inside MPI */
} nh_prog_kind;

extern nh_prog_kind nh_prog;
/* Thread backend: forwarding operations running (0 with the other
 * backends).  Read without a lock by every entry point: nonzero means an
 * MPI call that may block must let the helper thread progress. */
extern int nh_prog_hot;

/* Before MPI starts, with the configuration read: the thread level nhood
 * asks MPI for when the program asks for required (MPI_THREAD_MULTIPLE
 * where the thread backend will be needed: NHOOD_PROGRESS=auto, neither
 * a progress hook nor MPIX_Async in the MPI library, NHOOD_DISABLE and
 * NHOOD_OVERLAP off, and NHOOD_ALGO* forcing a forwarding algorithm). */
int nh_prog_level(int required);
/* After the configuration is read: this rank's backend, given the level
 * MPI provided; fn progresses nhood's operations (request.c).  Returns
 * whether forwarding may run in nonblocking calls here (for the ranks'
 * agreement: nh_prog_agree). */
int nh_prog_init(int provided, void (*fn)(void));
/* Every rank's answer of nh_prog_init was ok (min over ranks). */
void nh_prog_agree(int ok);
/* May nonblocking and persistent calls run forwarding schedules?  The
 * same on every rank (poll, or auto with a backend everywhere). */
int nh_prog_forwarding(void);
/* A forwarding operation started (+1) or finished (-1). */
void nh_prog_running(int delta);
/* Around an MPI call that may block (thread backend, nh_prog_hot set). */
void nh_prog_enter(void);
void nh_prog_leave(void);
/* Stops the helper, unhooks (MPI_Finalize, before MPI's). */
void nh_prog_fini(void);
/* The backend's name for the report. */
const char *nh_prog_name(void);
/* The backends this build and MPI library offer (nhood-info): "hook"
 * where the library has a progress hook (Open MPI), "async" where it has
 * MPIX_Async_start (MPICH 4.3 and later), "thread" (where MPI provides
 * MPI_THREAD_MULTIPLE). */
const char *nh_prog_backends(void);

#endif
