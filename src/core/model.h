/* The cost model's parameters, one row each: the one description from
 * which the parameters' struct (nh_cost), the terms' order (NH_TERM_*,
 * public as NHOOD_TERM_* in include/nhood.h), the cost file's keys and
 * the NHOOD_COST_* variables (config/config.c), nhood-calibrate's fit
 * groups and docs/tuning.md's table come.  Pure: no MPI.
 *
 * X(NAME, key, default, group, description)
 *   NAME     the term's suffix (NH_TERM_NAME, NHOOD_COST_NAME)
 *   key      the struct field and the cost file's key
 *   default  fitted to nhood-bench on the development machine (MPICH
 *            4.0.2 ch4:ucx, 2 ranks on 2 cores; docs/algorithms.md,
 *            "Choosing"); stage and fwd to simulated SpMV runs
 *            (docs/simulation.md, "Calibration"); core to Open MPI 4.1
 *            oversubscribed on that machine (docs/algorithms.md, "More
 *            ranks than cores")
 *   group    nhood-calibrate scales each group of the fitted terms by one
 *            factor (0 phases, 1 messages, 2 bytes sent, 3 local bytes
 *            and blocks); -1: kept as measured or as set
 *   description  one line, for the settings table and the docs
 *
 * A schedule's modeled time is the dot product of its terms (how many
 * phases, messages, bytes, ... select/select.c counts them) with the
 * term parameters (NH_COST_TERMS); NH_COST_OTHERS are parameters that
 * decide which terms apply, or price store-and-forward
 * (plan/stfw_setup.c). */
#ifndef NH_CORE_MODEL_H
#define NH_CORE_MODEL_H

#include <stddef.h>

#define NH_COST_TERMS(X)                                                                           \
    X(ALPHA, alpha, 0.5, 0, "us per phase (synchronization latency)")                              \
    X(O, o, 0.15, 1, "us per message")                                                             \
    X(BETA, beta, 0.0001, 2, "us per byte sent")                                                   \
    X(GAMMA, gamma, 0.00001, 3, "us per byte copied locally (memcpy, mostly in cache)")            \
    X(PACK, pack, 0.00003, 3, "us per byte through nhood's pack or unpack (pack binding)")         \
    X(GATHER, gather, 0.00003, 3, "us per byte of a large struct message (zcopy binding)")         \
    X(GATHER_SMALL, gather_small, 0.00065, 3, "us per byte of an eager-sized struct message")      \
    X(DELTA, delta, 0.01, 3, "us per block described in a zero-copy struct datatype")              \
    X(RNDV, rndv, 4.0, 1, "us of rendezvous handshake per message above the eager limit")          \
    X(NODE, node, 0, -1, "us per phase in which some message leaves its node")                     \
    X(LINK, link, 0, -1, "us per byte through a node's network link")                              \
    X(CORE, core, 4.0, -1,                                                                         \
      "us per phase per rank beyond one per core (oversubscription: the "                          \
      "busiest node's ranks / its CPUs - 1)")

#define NH_COST_OTHERS(X)                                                                          \
    X(EAGER, eager, 8192, -1, "bytes: larger contiguous messages use the rendezvous protocol")     \
    X(STAGE, stage, 1.0, -1, "us per store-and-forward stage")                                     \
    X(FWD, fwd, 0.0006, -1, "us per byte a store-and-forward stage packs, sends on and unpacks")

#define NH_COST_FIELD_(N, key, def, group, help) double key;
typedef struct nh_cost {
    NH_COST_TERMS(NH_COST_FIELD_)
    NH_COST_OTHERS(NH_COST_FIELD_)
} nh_cost;
#undef NH_COST_FIELD_

/* The defaults, as an initializer: nh_cost c = NH_COST_DEFAULTS; */
#define NH_COST_INIT_(N, key, def, group, help) .key = def,
#define NH_COST_DEFAULTS                                                                           \
    {                                                                                              \
        NH_COST_TERMS(NH_COST_INIT_) NH_COST_OTHERS(NH_COST_INIT_)                                 \
    }

#define NH_COST_TERM_(N, key, def, group, help) NH_TERM_##N,
enum { NH_COST_TERMS(NH_COST_TERM_) NH_NTERMS };
#undef NH_COST_TERM_

/* One row of the table, for code that walks the parameters. */
typedef struct nh_cost_param {
    const char *key;  /* the field, the cost file's key; NHOOD_COST_ + its upper case */
    const char *env;  /* NHOOD_COST_... */
    size_t offset;    /* of the field in nh_cost */
    double def;       /* the default */
    int term;         /* its NH_TERM_* index, or -1 (NH_COST_OTHERS) */
    int group;        /* nhood-calibrate's fit group, -1: not fitted */
    const char *help; /* one line */
} nh_cost_param;

extern const nh_cost_param nh_cost_params[];
extern const int nh_cost_nparams; /* NH_NTERMS terms first, in term order */
extern const nh_cost nh_cost_defaults;

/* The parameter a row describes, in c. */
static inline double *nh_cost_at(nh_cost *c, const nh_cost_param *p)
{
    return (double *)((char *)c + p->offset);
}

/* The modeled time of terms t under c: their dot product. */
double nh_cost_dot(const nh_cost *c, const double t[NH_NTERMS]);

/* Ranks beyond one per core: ranks / cpus - 1 where the busiest node's
 * ranks outnumber the CPUs they may run on, else 0 (also where either is
 * unknown).  Each phase waits that many times `core` for a core. */
double nh_cost_excess(int ranks, int cpus);

/* A call the program completes w microseconds after starting it (w <= 0:
 * at once) whose modeled time is total, first for its first message
 * phase: the later phases wait for the forwarding ranks' completion
 * calls, so it takes max(w, first) + (total - first); one phase (first =
 * total) max(w, total).  The one window formula: auto's candidates, MPI's
 * own exchange, the tuner's measured times and store-and-forward. */
static inline double nh_cost_in_window(double w, double first, double total)
{
    return (w > first ? w : first) + (total - first);
}

#endif
