/* The learning's state per plan, collective, form and key (autotune.c,
 * settle.c); private to src/select/. */
#ifndef NH_LEARN_H
#define NH_LEARN_H

#include "select/select.h"

#define NH_TUNE_TRIALS 3 /* timed calls per candidate: the first round, a re-check */
/* timed calls per candidate in a run-off, in turns: candidates within
 * NH_LEARN_CLOSE of each other are told apart there (three each and the
 * first round's blocks averaged in let MPICH 4.0.2 at 2 ranks keep
 * choices 5 to 10 % slower than another: allgather at 64 and 256 KiB) */
#define NH_LEARN_RUNOFF_TRIALS 7
#define NH_TUNE_SAMPLES NH_LEARN_RUNOFF_TRIALS /* the larger of the two */
/* untimed calls before a candidate's timed ones: the first builds its
 * binding; MPI's first few messages of a new shape cost more (MPICH 4.2.1
 * at 2 ranks, a message per 4 KiB block: 41 to 66 us over the calls after
 * one untimed, 22 from the third on).  Regular blocks above
 * NH_TUNE_WARM_MAX bytes get one: a call there costs milliseconds, which
 * those microseconds do not move, and two more would. */
#define NH_TUNE_UNTIMED 3
/* ... in all, for a onemsg binding that joins a run-off, up to
 * NH_TUNE_WARM_MAX (MPICH 4.0.2 at 2 ranks, 3-D Moore alltoall of 16
 * KiB, torus/zcopy's 416 KiB struct message to the other rank, in turns
 * with two packed candidates: 57, 66, 46, 28, 31, 32, 32, 21, 21 us over
 * its first calls; with one untimed call its median of seven was 38 to
 * 41 us, against 21 decided, and the packing at 33 won) */
#define NH_TUNE_UNTIMED_ONEMSG 7
/* ... from this block size up: below, the message is smaller and a call
 * cheap, and the extra calls cost more than the warm-up moves */
#define NH_TUNE_WARM_LONG 16384
#define NH_TUNE_WARM_MAX 65536
#define NH_TUNE_SIZES 16     /* block sizes learned per graph and operation */
#define NH_LEARN_PRUNE 2.0   /* schedules priced above this times the cheapest: not tried */
#define NH_LEARN_MAXGAP 64.0 /* re-check interval: at most this times NHOOD_LEARN_RECHECK */
#define NH_LEARN_SWITCH 0.95 /* a re-check switches where the other takes under this share */
#define NH_LEARN_CLOSE 1.25  /* candidates this close to the fastest: a run-off */
#define NH_LEARN_RUNOFF 3    /* candidates in a run-off, at most */
/* nhood's fastest schedule's other bindings join the run-off where its first
 * binding took at most this times the fastest (MPICH 4.2.1 at 2 ranks, 3-D Moore,
 * 4 KiB: the struct datatype ran at 0.7 of the packing) */
#define NH_LEARN_BIND_CLOSE 1.5
/* ... and those that send a round's blocks to a peer as one struct
 * message (NH_BIND_WHOLE, or NH_BIND_ZCOPY where the eager limit splits
 * nothing) where it took at most this times the fastest: they can take a
 * fraction of the packed or split ones' time (MPICH 4.0.2 at 2 ranks, 3-D
 * Moore alltoall of 16 KiB: 21.5 against 56 us split, where MPI's exchange
 * in the grouped form took 37; ialltoall of 256 KiB under a 1 GB eager
 * limit: 483 us for bruck's struct message, where MPI's v call took 787
 * and nhood's packed schedules more than 1.5 times that) */
#define NH_LEARN_WHOLE_CLOSE 3.0
/* ... where that message holds at least this many bytes (smaller ones
 * pack cheaply: with the looser bound for them a 1000-call run of 512 B
 * blocks went from 0.97 to 1.05 of the fastest fixed choice, in trials of
 * struct datatypes that lost) */
#define NH_LEARN_BIG 65536
/* NH_BIND_WHOLE is a candidate only where the messages it merges away
 * cost, as the model prices them (their posting, receipt and handshake:
 * the model's message terms, not its datatype ones), at least this share
 * of the packed schedule's price: under the default constants, 2 ranks,
 * 3-D Moore alltoall (18 blocks to the other rank), 0.55 at 16 KiB blocks
 * (where whole won, above), 0.39 at 32 KiB, 0.25 at 64 KiB, 0.14 at 128
 * KiB.  Larger blocks gain little from fewer messages, and a struct
 * message of many large blocks can take several times the packed
 * schedule's time, which its trials pay: MPICH 4.0.2 on that graph,
 * direct/whole took 167 to 961 us a call at 64 KiB against 147 to 157
 * packed (its 14 trial calls cost 0.3 to 11 ms, up to a fifth of a
 * 300-call run), 1.0 to 4.3 ms at 256 KiB against 0.6 to 0.7, 14.5 to
 * 18.1 ms at 1 MiB against 3.7. */
#define NH_LEARN_WHOLE_GAIN 0.3
#define NH_LEARN_EARLY 64 /* decided calls before the first re-check, at most */
/* values a rank gives an agreement per set of trials (nh_learn_stats) */
#define NH_LEARN_NSTAT (2 * NH_TUNE_MAXCAND)

struct nh_learn {
    struct nh_learn *next;
    nh_coll coll;
    nh_op op;
    nh_form form; /* blocking, or nonblocking (trials timed as the caller pays them) */
    /* (what a decided call reads, near the top: nh_autotune_tick, nh_autotune_pending) */
    int done;
    int from_file;  /* decided by the tuning file, no trials */
    int own;        /* cand index of nhood's fastest candidate at the decision (-1: none) */
    int awaiting;   /* nonblocking: every trial started, the agreement waits (settle) */
    long left, gap; /* decided calls until the next re-check, and the interval */
    size_t m;     /* the (mean) block size: pricing, the report */
    /* v and w calls: the sizes known alike on every rank (keyed by their
     * signature), or not (one state per collective and form: the trials
     * check that this rank's signature, lsig, stays the same) */
    int vec, known;
    unsigned long key; /* regular calls: m; v and w: the signature, or 0 */
    unsigned long lsig;
    int unstable; /* the signature changed during the trials */
    int nolearn;  /* it changed on some rank: the cost model chooses */
    int ncand;
    nh_algo cand[NH_TUNE_MAXCAND];
    nh_binding bind[NH_TUNE_MAXCAND];
    double tm[NH_TUNE_MAXCAND][NH_TUNE_SAMPLES]; /* timed calls (nh_learn_timed), seconds */
    /* the first round's agreed fastest calls (the slowest rank's), seconds:
     * who joins the run-off (start_runoff) */
    double fast[NH_TUNE_MAXCAND];
    /* not in the first round: a schedule's struct-datatype binding, tried
     * in the run-off where the schedule's packing comes close to the
     * fastest (it costs more than packing on MPICH 4.0.2 at 2 ranks, 31 to
     * 34 us a call against 20 to 22 at 4 KiB, and its first call builds
     * the datatypes) */
    unsigned char later[NH_TUNE_MAXCAND];
    /* a later binding that sends each round's blocks to a peer as one
     * struct message (whole; zcopy where the eager limit splits nothing):
     * it joins the run-off within NH_LEARN_WHOLE_CLOSE */
    unsigned char onemsg[NH_TUNE_MAXCAND];
    /* nhood's schedules left out as alike an earlier one (the same rounds,
     * priced alike: candidates.c): that one, else NH_ALGO_AUTO */
    nh_algo alike[NH_ALGO_COUNT];
    /* the candidates on trial (indexes into cand): all of them, or a re-check's two */
    int ntry, tryidx[NH_TUNE_MAXCAND];
    int n;          /* calls made in this set of trials (trial_at) */
    int rechecking; /* the trials are a re-check's */
    int confirming; /* ... the second, where the first would switch (nh_learn_decide) */
    int runoff;     /* the trials are a run-off between the first round's closest */
    /* a run-off's newcomers with one large struct message per peer
     * (nnew, newidx: cand indexes) run extra untimed calls, in turns,
     * before the set's own (NH_TUNE_UNTIMED_ONEMSG) */
    int extra, nnew, newidx[NH_TUNE_MAXCAND];
    int ran_off;  /* the decision's times are a run-off's (the report) */
    /* agreed at a point on the parent (nh_autotune_settle_at), applied at
     * the plan's call defer_at: the agreed times, this rank's, unstable */
    int deferred, dunstable;
    long defer_at;
    double dmine[NH_LEARN_NSTAT], dall[NH_LEARN_NSTAT];
    double spent;    /* seconds of this rank's trial calls since the last agreement */
    double cost_us;  /* what learning cost this rank over the best choice, microseconds */
    int rechecks;    /* re-checks run */
    nh_tune_dec dec; /* once done: the choice, with the agreed times */
};

/* Fills t's candidates for p (candidates.c): MPI's own exchange first
 * where it may run (it wins ties), then nhood's schedules with each
 * binding; returns how many of nhood's. */
int nh_learn_candidates(nh_plan *p, struct nh_learn *t);
/* MPI's own exchange as t's candidate on p (mpi_own.c): NH_BIND_AUTO as
 * the program made the call, NH_BIND_PACK in the grouped form, or
 * NH_BIND_COUNT where neither may run. */
nh_binding nh_learn_mpi_own(const nh_plan *p, const struct nh_learn *t);
/* May p run candidate a with binding b for t's calls?  (MPI's exchange
 * as nh_mpi_own_ok says; a forwarding schedule in a nonblocking call
 * where something progresses it.) */
int nh_learn_applicable(nh_plan *p, const struct nh_learn *t, nh_algo a, nh_binding b);

/* Does s send a message of more than one block?  (Only then does the
 * binding change what MPI is handed; price.c.) */
int nh_learn_multi_block(const nh_sched *s);
/* Does the eager limit split some round's blocks of m bytes to a peer
 * into several messages (only then is NH_BIND_WHOLE another message)?
 * *big: the most bytes a round sends to one peer (price.c). */
int nh_learn_splits(const nh_sched *s, size_t m, size_t *big);
/* Would one struct message per peer and round (NH_BIND_WHOLE) save s's
 * calls of blocks of m bytes enough to try it (NH_LEARN_WHOLE_GAIN)? */
int nh_learn_whole_pays(const nh_sched *s, size_t m);

/* Timed calls per candidate in t's trials. */
static inline int nh_learn_timed(const struct nh_learn *t)
{
    return t->runoff ? NH_LEARN_RUNOFF_TRIALS : NH_TUNE_TRIALS;
}
/* The median of candidate i's timed calls (seconds): robust against one
 * lucky or unlucky call, where the fastest would favor a candidate whose
 * times scatter. */
static inline double nh_learn_median(const struct nh_learn *t, int i)
{
    double v[NH_TUNE_SAMPLES];
    int n = nh_learn_timed(t);
    for (int k = 0; k < n; k++) { /* insertion sort */
        int j = k;
        for (; j > 0 && v[j - 1] > t->tm[i][k]; j--)
            v[j] = v[j - 1];
        v[j] = t->tm[i][k];
    }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
/* What a rank gives the agreement of t's trials (2 * t->ntry values,
 * reduced by MPI_MAX: the slowest rank's): each candidate's median, then
 * its fastest call.  A passing disturbance only adds time, and may fall
 * on two of a candidate's three first-round calls (MPICH 4.0.2 at 2
 * ranks, 3-D Moore alltoall of 4 KiB: direct's packing timed 17 to 22 us
 * a call, its median 36 to 68 in one run of six to ten); the fastest
 * call lets such a candidate into the run-off (start_runoff), whose
 * medians of seven then decide. */
static inline void nh_learn_stats(const struct nh_learn *t, double *v)
{
    for (int c = 0; c < t->ntry; c++) {
        const double *tm = t->tm[t->tryidx[c]];
        v[c] = nh_learn_median(t, t->tryidx[c]);
        v[t->ntry + c] = tm[0];
        for (int k = 1; k < nh_learn_timed(t); k++)
            v[t->ntry + c] = tm[k] < v[t->ntry + c] ? tm[k] : v[t->ntry + c];
    }
}
/* The agreed values all[] (nh_learn_stats, the slowest rank's) of the
 * candidates on trial, this rank's mine[], unstable: the sizes changed
 * on some rank.  Every rank takes the same choice (or starts the same
 * run-off). */
void nh_learn_decide(nh_plan *p, struct nh_learn *t, int unstable, const double *mine,
                     const double *all);

#endif
