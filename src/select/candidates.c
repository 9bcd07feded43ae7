/* The learning's candidates (autotune.c): MPI's own exchange where it
 * may run (mpi_own.c), then each of nhood's schedules with each binding
 * worth a trial, those the cost model prices far above the cheapest left
 * out.  The rules and the measurements behind them: autotune.c's head
 * and select/learn.h. */
#include "select/learn.h"

/* The candidates for t on p: MPI's own exchange first (it wins ties),
 * then nhood's schedules with each binding (the forced one under
 * NHOOD_BINDING), those the model prices far above the cheapest left out
 * (where every rank prices the same sizes).  Returns how many of nhood's. */
int nh_learn_candidates(nh_plan *p, struct nh_learn *t)
{
    double cost[NH_TUNE_MAXCAND], low = -1;
    int own = 0;
    t->ncand = 0;
    const nh_sched *tried[NH_ALGO_COUNT] = {0};
    double price[NH_ALGO_COUNT];
    int same_sizes = !t->vec || t->known; /* every rank prices the same sizes */
    nh_binding mine = nh_learn_mpi_own(p, t); /* as made, or grouped (mpi_own.c) */
    if (mine != NH_BIND_COUNT) {
        t->cand[0] = NH_ALGO_PMPI;
        t->bind[t->ncand++] = mine;
    }
    /* on a torus every rank lists an interior rank's blocks: alike
     * compares them (nh_sched_alike) */
    int torus = nh_grid_periodic(&p->nb.g);
    for (int a = NH_ALGO_DIRECT; a < NH_ALGO_COUNT; a++) {
        const nh_sched *s = nh_autotune_sched(p, t->coll, (nh_algo)a, t->m);
        nh_binding kinds[4] = {nh_cfg.binding};
        int nk = 1;
        t->alike[a] = NH_ALGO_AUTO;
        /* a nonblocking call forwards only where something progresses it */
        if (!s || (s->tmpl_rounds > 1 && !nh_may_forward(p, t->form, 1)))
            continue;
        /* the same rounds as an earlier schedule, priced alike: the same
         * exchange (at 2 ranks direct, torus, torus_direct and bruck are
         * all one message to the other rank; bruck at the ports of fewest
         * rounds is torus_direct), whose trials would time it again.
         * Only where every rank prices the same sizes. */
        price[a] = same_sizes ? nh_cost_of(s, NH_BIND_PACK, t->m) : 0;
        for (int e = NH_ALGO_DIRECT; same_sizes && e < a && t->alike[a] == NH_ALGO_AUTO; e++)
            if (tried[e] && price[e] == price[a] && nh_sched_alike(tried[e], s, torus))
                t->alike[a] = (nh_algo)e;
        if (t->alike[a] != NH_ALGO_AUTO)
            continue;
        tried[a] = s;
        /* direct with a message per block: MPI's own exchange run by
         * nhood, where MPI's may not run (a source listed twice; MPICH 4.0
         * runs those messages itself, as its v call: pmpi/each) */
        int each = a == NH_ALGO_DIRECT && mine != NH_BIND_AUTO && mine != NH_BIND_EACH;
        size_t big = 0; /* the largest message of a round's blocks to a peer */
        int split = nh_cfg.binding == NH_BIND_AUTO && !t->vec && nh_learn_splits(s, t->m, &big);
        if (nh_cfg.binding == NH_BIND_AUTO && t->vec) {
            /* v and w calls: the engine's choice per message (a datatype's
             * shape decides whether packing pays), or a message per block */
            if (each)
                kinds[nk++] = NH_BIND_EACH;
        } else if (nh_cfg.binding == NH_BIND_AUTO && nh_learn_multi_block(s)) {
            kinds[0] = NH_BIND_PACK;
            kinds[nk++] = NH_BIND_ZCOPY;
            /* one message per peer and round where the eager limit splits
             * them (MPICH 4.0.2, 2 ranks, 3-D Moore alltoall of 16 KiB:
             * torus_direct's 288 KiB to the other rank as one struct took
             * 21.5 us, as 18 messages 56 us), where the messages it saves
             * may pay for its trials */
            if (split && nh_learn_whole_pays(s, t->m))
                kinds[nk++] = NH_BIND_WHOLE;
            if (each)
                kinds[nk++] = NH_BIND_EACH;
        }
        for (int k = 0; k < nk; k++) {
            nh_binding priced = kinds[k] == NH_BIND_AUTO ? NH_BIND_PACK : kinds[k];
            cost[t->ncand] = t->vec && !t->known ? 0 : nh_cost_of(s, priced, t->m);
            if (low < 0 || cost[t->ncand] < low)
                low = cost[t->ncand];
            t->cand[t->ncand] = (nh_algo)a;
            t->later[t->ncand] = k > 0 && (kinds[k] == NH_BIND_ZCOPY || kinds[k] == NH_BIND_WHOLE);
            t->onemsg[t->ncand] = big >= NH_LEARN_BIG && (kinds[k] == NH_BIND_WHOLE ||
                                                          (kinds[k] == NH_BIND_ZCOPY && !split));
            t->bind[t->ncand++] = kinds[k];
        }
    }
    /* The model prunes nhood's schedules, never MPI's own nor its
     * stand-in, and never one binding of a schedule it keeps: it prices
     * the bindings worst (MPICH 4.2.1 at 2 ranks, 3-D Moore, 4 KiB: the
     * struct datatype priced over twice the packing ran at 0.7 of it). */
    double algo_low[NH_ALGO_COUNT];
    for (int a = 0; a < NH_ALGO_COUNT; a++)
        algo_low[a] = -1;
    for (int i = 0; i < t->ncand; i++)
        if (t->cand[i] != NH_ALGO_PMPI &&
            (algo_low[t->cand[i]] < 0 || cost[i] < algo_low[t->cand[i]]))
            algo_low[t->cand[i]] = cost[i];
    int n = 0;
    for (int i = 0; i < t->ncand; i++)
        if (t->cand[i] == NH_ALGO_PMPI || t->bind[i] == NH_BIND_EACH ||
            algo_low[t->cand[i]] <= NH_LEARN_PRUNE * low) {
            own += t->cand[i] != NH_ALGO_PMPI;
            t->cand[n] = t->cand[i];
            t->later[n] = t->later[i];
            t->onemsg[n] = t->onemsg[i];
            t->bind[n++] = t->bind[i];
        }
    t->ncand = n;
    return own;
}
