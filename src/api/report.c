/* NHOOD_REPORT=1: on rank 0 at MPI_Finalize, where the cost model's
 * parameters came from, oversubscription, the graph creations' totals,
 * and one line per (communicator, collective, form) called.  Records
 * outlive their communicators. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/files.h"
#include "exec/progress.h"
#include "plan/stfw_setup.h"
#include "api/api.h"
#include "select/select.h"
#include "util/sync.h"
#include "util/window.h"

static nh_report_rec *head, **tail = &head;
/* a record of starts alone, this many or more, every one cold: counted in
 * the report's cold_starts line */
#define NH_REPORT_COLD_HINT 64
/* Graph creations so far (this rank's): count, time under nhood, MPI's own
 * part; under NH_LOCK_MISC. */
static long ngraphs;
static double graphs_us, graphs_mpi_us;
static long parent_reductions;

void nh_report_creation(double us, double mpi_us)
{
    nh_lock(NH_LOCK_MISC);
    ngraphs++;
    graphs_us += us;
    graphs_mpi_us += mpi_us;
    nh_unlock(NH_LOCK_MISC);
}

void nh_report_parent_reduction(void)
{
    parent_reductions++;
}

/* What the record shows of p's analysis (none yet where p is cold). */
static void rec_facts(nh_report_rec *r, nh_plan *p)
{
    nh_coll coll = r->coll;
    r->isomorphic = p->isomorphic;
    r->source = p->source;
    r->neighbors = p->outdeg;
    r->dup_of = p->dup_of;
    r->create_us = p->create_us;
    r->create_mpi_us = p->create_mpi_us;
    r->asked = nh_requested_algo(p, nh_coll_op(coll));
    strcpy(r->dims, "-");
    strcpy(r->periods, "-");
    if (p->isomorphic) {
        nh_grid_format(&p->nb.g, r->dims, sizeof(r->dims));
        size_t n = 0;
        for (int j = 0; j < p->nb.g.ndims && n < sizeof(r->periods); j++)
            n += (size_t)snprintf(r->periods + n, sizeof(r->periods) - n, "%s%d", j ? "," : "",
                                  p->nb.g.periods[j]);
        for (int a = NH_ALGO_DIRECT; a < NH_ALGO_COUNT; a++) {
            const nh_sched *s = nh_plan_sched(p, nh_coll_op(coll), (nh_algo)a);
            if (s) {
                r->rounds[a] = s->tmpl_rounds;
                r->msgs[a] = s->tmpl_msgs;
            }
        }
    }
    r->rounds[NH_ALGO_PMPI] = 1;
    r->msgs[NH_ALGO_PMPI] = p->outdeg;
}

static nh_report_rec *rec_new(nh_plan *p, nh_coll coll, nh_form form)
{
    nh_report_rec *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->comm_id = p->id;
    r->coll = coll;
    r->form = form;
    rec_facts(r, p);
    nh_lock(NH_LOCK_MISC); /* records of all communicators, one list */
    *tail = r;
    tail = &r->next;
    nh_unlock(NH_LOCK_MISC);
    return r;
}

/* The report's state per plan (nh_plan_ext): its records, which the
 * report's list owns (they outlive the communicator). */
typedef struct report_state {
    nh_report_rec *rec[NH_COLL_COUNT][NH_FORM_COUNT];
} report_state;

NH_HOT nh_report_rec *nh_report_rec_get(nh_plan *p, nh_coll coll, nh_form form)
{
    if (!nh_cfg.report) /* (a record prices every schedule: only for the report) */
        return NULL;
    report_state *st = nh_plan_ext(p, NH_EXT_REPORT, sizeof(report_state), NULL);
    if (!st)
        return NULL;
    if (!st->rec[coll][form])
        st->rec[coll][form] = rec_new(p, coll, form);
    return st->rec[coll][form];
}

void nh_report_analyzed(nh_plan *p)
{
    report_state *st = p->ext[NH_EXT_REPORT];
    for (int c = 0; st && c < NH_COLL_COUNT; c++)
        for (int f = 0; f < NH_FORM_COUNT; f++)
            if (st->rec[c][f])
                rec_facts(st->rec[c][f], p);
}

void nh_report_stfw(const nh_plan *p, nh_op op, nh_report_rec *r)
{
    const nh_stfw *st = p->stfw;
    if (!r || !st || !st->sched[op])
        return;
    r->stfw_dims = st->v.n;
    nh_vpt_format(&st->v, r->stfw_vpt, sizeof(r->stfw_vpt));
    if (st->node_aware == 1) { /* node aggregation names itself (agg:...) */
        size_t k = strlen(r->stfw_vpt);
        snprintf(r->stfw_vpt + k, sizeof(r->stfw_vpt) - k, ",node");
    }
    r->stfw_mmax = st->mmax[op];
    r->stfw_mavg = st->mavg[op];
    r->bl_mmax = st->bl_mmax;
    r->bl_mavg = st->bl_mavg;
    r->rounds[NH_ALGO_STFW] = st->v.n;
    r->msgs[NH_ALGO_STFW] = st->sched[op]->tmpl_msgs;
    r->stfw_block = st->block[op];
    r->stfw_off = st->off[op];
}

void nh_report_print(void)
{
    nh_log_line("nhood: cost=%s\n", nh_config_cost_source());
    /* more ranks than CPUs on a node: the busiest node's ranks / CPUs */
    if (nh_node_ranks > nh_node_cpus)
        nh_log_line("nhood: oversubscribed=%d/%d\n", nh_node_ranks, nh_node_cpus);
    /* Every graph created, used or not: what creation cost in all, and
     * the reductions at their parents' points (api/parents.c). */
    if (ngraphs > 0)
        nh_log_line("nhood: graphs=%ld create_us=%.1f create_mpi_us=%.1f ratio=%.3f "
                    "parent_reductions=%ld\n",
                    ngraphs, graphs_us, graphs_mpi_us,
                    graphs_mpi_us > 0 ? graphs_us / graphs_mpi_us : 0, parent_reductions);
    long stayed = 0, stayed_calls = 0; /* records of starts alone, all cold (below) */
    for (nh_report_rec *r = head; r; r = r->next) {
        /* algorithm=: the one used most by the calls that were neither
         * cold nor learning's trials, where some were */
        long calls = 0, trials = 0, chosen[NH_ALGO_COUNT];
        int decided = 0;
        for (int a = 0; a < NH_ALGO_COUNT; a++) {
            calls += r->calls[a];
            trials += r->trials[a];
            chosen[a] = r->calls[a] - r->trials[a] - (a == NH_ALGO_PMPI ? r->cold : 0);
            decided |= chosen[a] > 0;
        }
        int best = NH_ALGO_PMPI;
        char mix[256] = "";
        size_t n = 0;
        int used = 0;
        for (int a = 0; a < NH_ALGO_COUNT; a++) {
            if (decided ? chosen[a] > chosen[best] : r->calls[a] > r->calls[best])
                best = a;
            if (r->calls[a]) {
                used++;
                n += (size_t)snprintf(mix + n, sizeof(mix) - n, "%s%s:%ld", n ? "," : "",
                                      nh_algos[a].name, r->calls[a]);
            }
        }
        static const char *const prefix[NH_FORM_COUNT] = {"", "i", ""};
        static const char *const suffix[NH_FORM_COUNT] = {"", "", "_init"};
        /* Store-and-forward: the VPT and the messages a rank sends (max and
         * average over ranks) with it and with one message per neighbor. */
        char stfw[256] = "";
        if (r->stfw_dims) {
            int k = snprintf(stfw, sizeof(stfw),
                             " stfw_dims=%d stfw_vpt=%s stfw_mmax=%ld stfw_mavg=%.1f pmpi_mmax=%ld "
                             "pmpi_mavg=%.1f",
                             r->stfw_dims, r->stfw_vpt, r->stfw_mmax, r->stfw_mavg, r->bl_mmax,
                             r->bl_mavg);
            /* auto's re-check at the first blocking call: its mean block */
            if (r->stfw_block > 0 && k > 0 && (size_t)k < sizeof(stfw))
                k +=
                    snprintf(stfw + k, sizeof(stfw) - (size_t)k, " stfw_block=%.0f stfw_recheck=%s",
                             r->stfw_block, r->stfw_off ? "off" : "on");
        }
        /* Where store-and-forward's set-up ran, or that it waits for the
         * communicator's first blocking call (plan/stfw_setup.h). */
        int waiting = r->stfw_setup && strcmp(r->stfw_setup, "waiting") == 0;
        if (r->stfw_setup && strcmp(r->stfw_setup, "-") != 0) {
            size_t k = strlen(stfw);
            snprintf(stfw + k, sizeof(stfw) - k, " stfw_setup=%s", r->stfw_setup);
        }
        /* Why a communicator's calls stayed with MPI: asked to; MPI's own
         * exchange is the cheapest (the cost model or the store-and-forward
         * re-check); or the neighborhoods are not translates of one another
         * and store-and-forward saves no messages on them. */
        char why[80] = "";
        if (r->why) /* auto kept a single phase where a blocking call forwards */
            snprintf(why, sizeof(why), " why=%s", nh_why_name((nh_why)r->why));
        else if (best == NH_ALGO_PMPI)
            snprintf(why, sizeof(why), " why=%s",
                     r->asked == NH_ALGO_PMPI        ? "requested"
                     : r->cold == calls              ? "cold"
                     : !decided || r->measuring      ? "measuring"
                     : waiting                       ? "stfw_waiting"
                     : r->isomorphic || r->stfw_dims ? "native_cheaper"
                                                     : "irregular");
        char dup[32] = "", prog[64] = "";
        if (r->dup_of >= 0)
            snprintf(dup, sizeof(dup), " dup_of=%d", r->dup_of);
        if (r->cold) { /* the cold tier's calls, before the analysis */
            size_t k = strlen(why);
            snprintf(why + k, sizeof(why) - k, " cold=%ld", r->cold);
        }
        /* bindings the engine made, where its cache did not serve the
         * calls (more than 8, and more than a quarter of the calls) */
        if (r->binds > 8 && 4 * r->binds > calls) {
            size_t k = strlen(why);
            snprintf(why + k, sizeof(why) - k, " binds=%ld", r->binds);
        }
        /* Nonblocking and persistent forms: how forwarding progresses and
         * the window auto priced them with (util/window.h). */
        if (r->form != NH_FORM_BLOCKING && r->window == NH_WIN_UNKNOWN)
            snprintf(prog, sizeof(prog), " window_us=unknown progress=%s", nh_prog_name());
        else if (r->form != NH_FORM_BLOCKING)
            snprintf(prog, sizeof(prog), " window_us=%.3g progress=%s", nh_win_us(r->window),
                     nh_prog_name());
        /* NHOOD_AUTOTUNE=1: where the choices came from (this run's
         * trials, the tuning file, the cost model, another form's first
         * round), in that order */
        char tuned[64] = "";
        static const char *const tuned_names[] = {"", "measured", "file", "model", "first_round"};
        if (trials) /* learning's trials, and whether it had decided by the end */
            snprintf(tuned, sizeof(tuned), " trials=%ld%s", trials,
                     r->measuring ? " decided=no" : "");
        for (int k = NH_TUNED_MEASURED, n = 0; k <= NH_TUNED_FIRST_ROUND; k++)
            if (r->tuned & (1 << k)) {
                size_t at = strlen(tuned);
                snprintf(tuned + at, sizeof(tuned) - at, "%s%s",
                         n++ ? "," : " tuned=", tuned_names[k]);
            }
        nh_log_line(
            "nhood: comm=%d%s op=%s%s%s pattern=%s source=%s dims=%s periods=%s neighbors=%d "
            "algorithm=%s binding=%s calls=%ld rounds=%d messages=%ld create_us=%.1f "
            "create_mpi_us=%.1f%s%s%s%s%s%s\n",
            r->comm_id, dup, prefix[r->form], nh_coll_name(r->coll), suffix[r->form],
            r->isomorphic  ? "isomorphic"
            : r->stfw_dims ? "irregular"
                           : "none",
            r->source ? r->source : "-", r->dims, r->periods, r->neighbors, nh_algos[best].name,
            best == NH_ALGO_PMPI || best == NH_ALGO_STFW ? "-" : nh_binding_name(r->last_binding),
            calls, r->rounds[best], r->msgs[best], r->create_us, r->create_mpi_us,
            used > 1 ? " mix=" : "", used > 1 ? mix : "", stfw, why, prog, tuned);
        if (r->form != NH_FORM_BLOCKING && calls >= NH_REPORT_COLD_HINT && r->cold == calls &&
            r->asked != NH_ALGO_PMPI) {
            stayed++;
            stayed_calls += calls;
        }
    }
    /* Graphs whose many starts all went to MPI: no blocking collective on
     * them or their parents analyzed them (a start must not wait for the
     * other ranks; docs/algorithms.md, "Tiers").  What would. */
    if (stayed)
        nh_log_line("nhood: cold_starts=%ld cold_graphs=%ld: nonblocking or persistent calls "
                    "that went to MPI, no blocking collective on their graphs or parents having "
                    "analyzed them; NHOOD_WARMUP=0 analyzes graphs at creation\n",
                    stayed_calls, stayed);
}

void nh_report_free(void)
{
    while (head) {
        nh_report_rec *n = head->next;
        free(head);
        head = n;
    }
    tail = &head;
}
