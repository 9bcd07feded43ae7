/* The overlap layer's shared state (private to src/overlap/). */
#ifndef NH_OV_INT_H
#define NH_OV_INT_H

#include <signal.h>
#include <stddef.h>

#include "overlap/overlap.h"

/* A slot's life: FREE -> ARMING (pages being protected) -> ARMED ->
 * ENDING (one thread, the fault handler's or a fence's, claimed it) ->
 * ENDED (pages given back, deferred operation complete) -> FREE (figures
 * harvested). */
enum { NH_OV_FREE = 0, NH_OV_ARMING, NH_OV_ARMED, NH_OV_ENDING, NH_OV_ENDED };

/* Why a call was not watched or deferred (the table's counts). */
typedef enum {
    NH_OV_WHY_NONE = 0,
    NH_OV_WHY_SMALL,   /* no whole page in its buffers (report) */
    NH_OV_WHY_STACK,   /* the receive buffer on the stack */
    NH_OV_WHY_CALLER,  /* called from a Fortran binding (its MPI calls bypass the fences) */
    NH_OV_WHY_LAYOUT,  /* MPI_BOTTOM, MPI_IN_PLACE, or (report) send and receive pages shared */
    NH_OV_WHY_PROTECT, /* mprotect refused */
    NH_OV_WHY_SLOTS,   /* every slot in use */
    NH_OV_WHY_DONE,    /* (defer) complete as soon as started: nothing to defer */
    NH_OV_WHY_GPU,     /* a GPU device or managed buffer (util/gpu.h): no page to protect */
    NH_OV_WHY_COUNT
} nh_ov_why;

typedef struct nh_ov_slot {
    int state;            /* atomic */
    int deferred;         /* a deferred operation, else a watch */
    char *pg[2], *pgend[2]; /* protected pages: 0 receive (no access), 1 send (read-only) */
    int site;             /* advisor.c's index */
    double t_armed;       /* the pages were protected (the program goes on from here) */
    double call_us;       /* time in the call (nonblocking: in the completing call) */
    double wait_us;       /* nonblocking: start to the completing call, else -1 */
    double t_touch;       /* first access, or the fence */
    void *touch_pc;       /* faulting instruction, or NULL for a fence */
    const char *touch_what; /* the fence's call */
    /* deferred */
    MPI_Request req;
    MPI_Comm comm;
    char *user, *staging;
    size_t len;
} nh_ov_slot;

#define NH_OV_SLOTS 64
extern nh_ov_slot nh_ov_slots[NH_OV_SLOTS];
extern size_t nh_ov_page;

double nh_ov_now(void);
/* A free slot claimed for filling (state stays FREE until nh_ov_arm), or NULL. */
nh_ov_slot *nh_ov_slot_take(void);
/* Protects s's pages, stamps t_armed and publishes s; -1 (nothing
 * protected, s stays free) if mprotect fails. */
int nh_ov_arm(nh_ov_slot *s);
/* Gives s's pages back, completes a deferred operation (waits for it,
 * copies the received data into place). */
void nh_ov_end(nh_ov_slot *s);
/* The fault handler (installed by nh_ov_watch_init, chained to the program's). */
int nh_ov_watch_init(void);
void nh_ov_watch_fini(void);
/* sigaction/signal for SIGSEGV while nhood's handler is in place (hooks.c):
 * the program's handler becomes the one nhood chains to. */
int nh_ov_segv_action(const struct sigaction *act, struct sigaction *old);
/* Why the C library wrappers (libnhood-overlap.so) are not in place for
 * the mode (defer: they must own malloc), or NULL (hookapi.c). */
const char *nh_ov_hooks_missing(int defer);

/* Nonblocking calls' requests followed until completion (coll.c): how
 * many, and one that completed in a completion call entered at t_enter
 * (its buffers are watched from now on; nothing if h is not followed). */
extern int nh_ov_ntracked;
void nh_ov_completed(MPI_Request h, double t_enter);

/* Per-site figures (advisor.c). */
int nh_ov_site(void *addr, const char *op);
void nh_ov_site_skip(int site, nh_ov_why why);
void nh_ov_site_harvest(const nh_ov_slot *s);
/* Is the caller at addr a Fortran binding or nhood itself? (cached per site) */
int nh_ov_site_foreign(int site);
void nh_ov_report(void);

#endif
