/* The cost model applied to schedules and to MPI's own exchange: what
 * selection (select.c), the learning's pruning (autotune.c) and the tools
 * price calls with, and the schedule an algorithm runs where the model
 * picks among several (bruck's port counts).  Pure functions of the
 * configuration and the plan. */
#include "select/learn.h"

/* The model prices phases (core/model.h): a schedule's time is the sum
 * of its message phases' and its local copies' (nh_cost_phase).  A walk
 * over a schedule's phases hands each one's counts to an accumulator. */
typedef struct phase_acc {
    double par[NH_NTERMS];   /* the parameters, NH_TERM_* order */
    double total, first;     /* the time, and its first phase's */
    double *lin;             /* where not NULL: the branches taken, summed */
    double (*ph)[NH_NTERMS]; /* where not NULL: each phase's counts, up to max */
    double *sum;             /* where not NULL: every phase's counts, summed */
    int n, max;              /* phases seen */
} phase_acc;

static void acc_init(phase_acc *a)
{
    memset(a, 0, sizeof(*a));
    nh_cost_vec(&nh_cfg.cost, a->par);
}

static void acc_phase(void *ctx, const double n[NH_NTERMS])
{
    phase_acc *a = ctx;
    double x = nh_cost_phase(a->par, n, a->lin);
    if (a->n == 0)
        a->first = x;
    a->total += x;
    if (a->ph && a->n < a->max)
        memcpy(a->ph[a->n], n, sizeof(double) * NH_NTERMS);
    for (int i = 0; a->sum && i < NH_NTERMS; i++)
        a->sum[i] += n[i];
    a->n++;
}

/* s's phases for blocks of m bytes under binding b (core/model.h). */
static void walk_phases(const nh_sched *s, nh_binding b, size_t m, phase_acc *a)
{
    /* each block alone: an eager limit of one byte, one block per message;
     * a round's blocks to a peer whole: no limit */
    nh_sched_phases(s, m, b == NH_BIND_PACK,
                    b == NH_BIND_EACH ? 1 : b == NH_BIND_WHOLE ? 0 : nh_cfg.cost.eager,
                    nh_cost_excess(nh_node_ranks, nh_node_cpus), acc_phase, a);
}

void nh_cost_terms(const nh_sched *s, nh_binding b, size_t m, double t[NH_NTERMS])
{
    phase_acc a;
    acc_init(&a);
    memset(t, 0, sizeof(double) * NH_NTERMS);
    a.lin = t;
    walk_phases(s, b, m, &a);
}

int nh_cost_phase_counts(const nh_sched *s, nh_binding b, size_t m, double (*ph)[NH_NTERMS],
                         int max)
{
    phase_acc a;
    acc_init(&a);
    a.ph = ph;
    a.max = max;
    walk_phases(s, b, m, &a);
    return a.n;
}

/* Cost of a schedule in microseconds for blocks of m bytes. */
double nh_cost_of(const nh_sched *s, nh_binding b, size_t m)
{
    phase_acc a;
    acc_init(&a);
    walk_phases(s, b, m, &a);
    return a.total;
}

/* The modeled cost of s's first message phase, where *total gets the
 * whole schedule's: the phases after it wait for the forwarding ranks'
 * completion calls in a nonblocking call. */
double nh_cost_first_phase(const nh_sched *s, nh_binding b, size_t m, double *total)
{
    phase_acc a;
    acc_init(&a);
    walk_phases(s, b, m, &a);
    *total = a.total;
    return a.first;
}

/* The cost of s in a call the program completes w microseconds after
 * starting it (w <= 0: at once). */
double nh_cost_sched_in_window(const nh_sched *s, nh_binding b, size_t m, double w)
{
    double t, first = nh_cost_first_phase(s, b, m, &t);
    return nh_cost_in_window(w, first, t);
}

/* MPI's own exchange as one phase: one message per neighbor each way
 * (self-messages included), crossing nodes as direct's blocks do (the
 * same blocks in one phase). */
static void native_counts(nh_plan *p, nh_op op, size_t m, double n[NH_NTERMS])
{
    nh_native_counts(p->nb.s, m, nh_cfg.cost.eager, nh_cost_excess(nh_node_ranks, nh_node_cpus),
                     nh_plan_sched(p, op, NH_ALGO_DIRECT), n);
}

int nh_native_phase_counts(nh_plan *p, nh_op op, size_t m, double (*ph)[NH_NTERMS], int max)
{
    if (max > 0)
        native_counts(p, op, m, ph[0]);
    return 1;
}

void nh_native_terms(nh_plan *p, nh_op op, size_t m, double t[NH_NTERMS])
{
    double n[NH_NTERMS];
    native_counts(p, op, m, n);
    memset(t, 0, sizeof(double) * NH_NTERMS);
    nh_cost_phase_of(&nh_cfg.cost, n, t);
}

/* MPI's own exchange in a window of w microseconds. */
double nh_native_cost(nh_plan *p, nh_op op, size_t m, double w)
{
    double n[NH_NTERMS];
    native_counts(p, op, m, n);
    double t = nh_cost_phase_of(&nh_cfg.cost, n, NULL);
    return nh_cost_in_window(w, t, t);
}

nh_binding nh_pick_binding(const nh_sched *s, size_t m)
{
    if (nh_cfg.binding != NH_BIND_AUTO)
        return nh_cfg.binding;
    return nh_cost_of(s, NH_BIND_ZCOPY, m) < nh_cost_of(s, NH_BIND_PACK, m) ? NH_BIND_ZCOPY
                                                                            : NH_BIND_PACK;
}

int nh_learn_whole_pays(const nh_sched *s, size_t m)
{
    static const int msg_terms[] = {NH_TERM_O, NH_TERM_O_RECV, NH_TERM_RNDV};
    double split[NH_NTERMS] = {0}, whole[NH_NTERMS] = {0}, saved = 0;
    phase_acc packed, one;
    acc_init(&packed);
    acc_init(&one);
    packed.sum = split;
    one.sum = whole;
    walk_phases(s, NH_BIND_PACK, m, &packed);
    walk_phases(s, NH_BIND_WHOLE, m, &one);
    for (size_t i = 0; i < sizeof(msg_terms) / sizeof(msg_terms[0]); i++)
        saved += packed.par[msg_terms[i]] * (split[msg_terms[i]] - whole[msg_terms[i]]);
    return saved >= NH_LEARN_WHOLE_GAIN * packed.total;
}

int nh_learn_multi_block(const nh_sched *s)
{
    for (int i = 0; i < s->nrounds; i++)
        if (s->rounds[i].nsend > 1 || s->rounds[i].nrecv > 1)
            return 1;
    return 0;
}

int nh_learn_splits(const nh_sched *s, size_t m, size_t *big)
{
    int split = 0;
    *big = 0;
    for (int i = 0; i < s->nrounds; i++) {
        int n = s->rounds[i].nsend > s->rounds[i].nrecv ? s->rounds[i].nsend : s->rounds[i].nrecv;
        if (s->rounds[i].copy || n < 1)
            continue;
        split |= n > 1 && nh_eager_chunk(m, n, nh_cfg.cost.eager) < n;
        if ((size_t)n * m > *big)
            *big = (size_t)n * m;
    }
    return split;
}

const nh_sched *nh_sched_cheapest(nh_plan *p, nh_op op, nh_form form, int forced, nh_algo a,
                                  size_t m, double w, double *cost)
{
    const nh_sched *best = NULL;
    int ports = (p->root ? p->root : p)->ports, k0 = 1, k1 = 1,
        fwd = nh_may_forward(p, form, forced);
    if (a == NH_ALGO_BRUCK) {
        k0 = ports ? ports : 1;
        k1 = ports ? ports : NH_MAX_PORTS;
    }
    for (int k = k0; k <= k1; k++) {
        const nh_sched *s =
            a == NH_ALGO_BRUCK ? nh_plan_sched_ports(p, op, k) : nh_plan_sched(p, op, a);
        if (!s || (s->tmpl_rounds > 1 && !fwd))
            continue;
        double c = nh_cost_sched_in_window(s, nh_pick_binding(s, m), m, w);
        if (!best || c < *cost) {
            best = s;
            *cost = c;
        }
    }
    return best;
}

const nh_sched *nh_sched_forced(nh_plan *p, nh_op op, nh_algo a, size_t m)
{
    double c;
    return nh_sched_cheapest(p, op, NH_FORM_BLOCKING, 1, a, m, 0, &c);
}

const nh_sched *nh_autotune_sched(nh_plan *p, nh_coll coll, nh_algo a, size_t m)
{
    nh_op op = nh_coll_op(coll);
    /* bruck at the port count the model prices cheapest at m, as auto and
     * a forced bruck run it: the fewest rounds (nh_plan_sched) can be
     * torus_direct's exchange again (3-D Moore r=3 allgather, 480 ranks:
     * 6 ports, 3 rounds of 17 messages, where 2 ports, 6 rounds of 11,
     * simulated 13.7 against 17.0 us) */
    if (!nh_coll_vec(coll) || nh_sizes_known(p, coll))
        return a == NH_ALGO_BRUCK ? nh_sched_forced(p, op, a, m) : nh_plan_sched(p, op, a);
    /* sizes that may differ between ranks: direct, or (all-to-all) a
     * forwarding schedule split (unknown_pick in select.c) */
    const nh_sched *s = a == NH_ALGO_DIRECT || (op == NH_OP_ALLTOALL &&
                                                (a == NH_ALGO_TORUS || a == NH_ALGO_TORUS_DIRECT))
                            ? nh_plan_sched(p, op, a)
                            : NULL;
    return s && s->tmpl_rounds > 1 ? nh_plan_sched_split(p, a) : s;
}
