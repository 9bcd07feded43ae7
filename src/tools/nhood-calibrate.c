/* nhood-calibrate: fits nhood's cost model to the machine it runs on and
 * writes a cost file (docs/tuning.md).  Run once per machine and
 * ranks-per-node layout, under nhood:
 *
 *   nhood-run -np N nhood-calibrate -o site.cost [--quick]
 *
 * 1. Measures what the model's parameters stand for: ping-pong within a
 *    node and between nodes (8 B to 256 KiB: the eager limit and the
 *    rendezvous step, the node and link terms), 8 B to every other node
 *    (with three or more: the ring and hop terms of distance), the time to
 *    post k sends
 *    (o, the send overhead), one-phase exchanges of k = 1 to 32 messages
 *    (alpha, the latency, and o_recv, the receive overhead: a phase's
 *    model, core/model.h) and of larger ones (beta), seven times over
 *    (each parameter the median, its spread in the file), local copies
 *    (gamma, pack), struct-datatype messages against contiguous ones
 *    (delta, gather_small, gather).  Every figure is the median over
 *    repetitions of the slowest rank's time, repeated until its relative
 *    standard error is under 1 % (3 % with --quick) or the budget ends.
 * 2. Trains: runs nhood's schedules (direct, torus, torus_direct) and MPI's
 *    own exchange, alternating, on Moore neighborhoods (2-D and 3-D,
 *    alltoall and allgather, 8 B to 256 KiB) and fits the copies' terms to
 *    them so that auto picks the fastest (calib_fit.c); the phase's
 *    parameters stay as measured.
 * 3. Validates on other neighborhoods, bruck at every port count among
 *    the candidates as auto has it (von Neumann 3-D r=2, Moore 2-D
 *    r=2): modeled against measured times, and how often the model with
 *    the fitted parameters picks the measured fastest.
 * Progress on stderr; the file and a summary from rank 0. */
#include <dlfcn.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../include/nhood.h"
#include "../../test/common.h"
#include "../../test/nbhd.h"
#include "calib.h"
#ifdef NHOOD_SMPI
#include "smpi/sync.h"
#endif


typedef int (*phases_fn)(MPI_Comm, const char *, const char *, int, double (*)[NHOOD_COST_TERMS],
                         int, int *, char *, int);
typedef int (*fp_fn)(char *, int);

/* ---- 2. and 3. nhood's schedules on neighborhoods ---- */

/* bruck once per port count: the model picks among them (NHOOD_PORTS=auto) */
static const char *const cand_names[CAL_MAXCAND] = {
    "pmpi",    "direct",  "torus",   "torus_direct", "bruck:1", "bruck:2",
    "bruck:3", "bruck:4", "bruck:5", "bruck:6",      "bruck:7", "bruck:8"};

typedef struct nb_ctx {
    MPI_Comm comm[CAL_MAXCAND];
    int ncand, which[CAL_MAXCAND]; /* index into cand_names */
    int alltoall, s, m;
    char *sbuf, *rbuf;
} nb_ctx;

static void neighbor_op(void *vctx, int c)
{
    nb_ctx *x = vctx;
    MPI_Comm comm = x->comm[x->which[c]];
    if (x->alltoall)
        MPI_Neighbor_alltoall(x->sbuf, x->m, MPI_BYTE, x->rbuf, x->m, MPI_BYTE, comm);
    else
        MPI_Neighbor_allgather(x->sbuf, x->m, MPI_BYTE, x->rbuf, x->m, MPI_BYTE, comm);
}

/* Whether the comma-separated list names name. */
static int has_name(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *c = list; *c; c += strcspn(c, ",") + (c[strcspn(c, ",")] != 0))
        if (strcspn(c, ",") == n && strncmp(c, name, n) == 0)
            return 1;
    return 0;
}

/* Every candidate on one neighborhood, each op and block size: rows of
 * set (group "op nbhd dD rR m"). */
static int run_nbhd(phases_fn phases, const char *nbhd, int d, int r, const char *ops,
                    const int *sizes, int nsizes, const char *algos, cal_set *set)
{
    int *off, s = tc_offsets(nbhd, d, r, &off), dims[TC_MAXD] = {0},
              periods[TC_MAXD] = {1, 1, 1, 1, 1}, outdeg, indeg, rc = 0;
    nb_ctx x;
    memset(&x, 0, sizeof(x));
    MPI_Dims_create(nprocs, d, dims);
    for (int c = 0; c < CAL_MAXCAND; c++) {
        MPI_Info info;
        x.comm[c] = MPI_COMM_NULL;
        const char *ports = strchr(cand_names[c], ':');
        char algo[16];
        snprintf(algo, sizeof(algo), "%.*s", (int)strcspn(cand_names[c], ":"), cand_names[c]);
        if (!has_name(algos, algo))
            continue;
        MPI_Info_create(&info);
        MPI_Info_set(info, "nhood_algorithm", algo);
        if (ports)
            MPI_Info_set(info, "nhood_ports", ports + 1);
        tc_graph(MPI_COMM_WORLD, d, dims, periods, s, off, info, 0, &x.comm[c], &outdeg, &indeg);
        MPI_Info_free(&info);
    }
    x.s = s;
    for (const char *op = ops; *op; op += strcspn(op, ",") + (op[strcspn(op, ",")] != 0)) {
        x.alltoall = strncmp(op, "alltoall", 8) == 0;
        for (int i = 0; i < nsizes; i++) {
            static cal_row row[CAL_MAXCAND];
            double us[CAL_MAXCAND];
            x.m = sizes[i];
            x.ncand = 0;
            for (int c = 0; c < CAL_MAXCAND; c++) {
                char binding[16];
                if (x.comm[c] == MPI_COMM_NULL ||
                    phases(x.comm[c], x.alltoall ? "alltoall" : "allgather",
                           strncmp(cand_names[c], "bruck", 5) == 0 ? "bruck" : cand_names[c], x.m,
                           row[x.ncand].ph, CAL_MAXPH, &row[x.ncand].nph, binding,
                           (int)sizeof(binding)) != MPI_SUCCESS ||
                    row[x.ncand].nph > CAL_MAXPH)
                    continue;
                snprintf(row[x.ncand].algo, sizeof(row[0].algo), "%s", cand_names[c]);
                x.which[x.ncand++] = c;
            }
            if (x.ncand < 2)
                continue;
            x.sbuf = calloc((size_t)s * x.m + 1, 1);
            x.rbuf = calloc((size_t)s * x.m + 1, 1);
            if (!x.sbuf || !x.rbuf) {
                rc = 1;
                free(x.sbuf);
                free(x.rbuf);
                break;
            }
            measure(neighbor_op, &x, x.ncand, us);
            free(x.sbuf);
            free(x.rbuf);
            for (int c = 0; c < x.ncand; c++) {
                row[c].us = us[c];
                snprintf(row[c].group, sizeof(row[c].group), "%s %s d=%d r=%d m=%d",
                         x.alltoall ? "alltoall" : "allgather", nbhd, d, r, x.m);
                cal_set_add(set, &row[c]);
            }
            progress("  %s %s d=%d r=%d m=%d: %d algorithms measured",
                     x.alltoall ? "alltoall" : "allgather", nbhd, d, r, x.m, x.ncand);
        }
    }
    for (int c = 0; c < CAL_MAXCAND; c++)
        if (x.comm[c] != MPI_COMM_NULL)
            MPI_Comm_free(&x.comm[c]);
    free(off);
    return rc;
}

/* ---- the file ---- */

static char notes[16384];
static size_t nnotes;

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (nnotes < sizeof(notes)) {
        int k = vsnprintf(notes + nnotes, sizeof(notes) - nnotes, fmt, ap);
        nnotes += k > 0 ? (size_t)k : 0;
    }
    va_end(ap);
    if (nnotes >= sizeof(notes))
        nnotes = sizeof(notes) - 1;
}

/* Distance (hop, hop_link, ring): one-way times of 8 B from rank 0 to
 * the first rank of each other node (up to 64 nodes), fitted to the hops
 * of nodes laid along rings (cal_ring_fit).  Where the latency grows with
 * distance, the network's links between nodes are told apart from the
 * node's own: 16 and 64 KiB sent at once to the next node both, and to
 * the next node and the one before it (the other way round the ring).
 * hop_link is the first's time per byte, one link's; link the second's,
 * the node's injection as two directions see it (a torus, whose node
 * has a link each way, drains both at once: half the first; a network
 * behind one link per node, the same as the first).  Nothing with fewer
 * than three nodes. */
static void ring_fit(const int *lead, int nlead, int quick, double *p, cal_result *res)
{
    double t[64];
    int n = nlead < 64 ? nlead : 64, r = 0;
    nh_net net;
    res->ring = 0;
    if (n < 3)
        return;
    progress("[1/5] ping-pong to %d nodes", n - 1);
    for (int d = 1; d < n; d++)
        t[d] = pingpong(lead[d], 8);
    cal_dist_fit(t, n, quick ? 0.1 : 0.05, tiers, &p[NH_TERM_HOP], &net);
    res->ring = r = net.ring;
    for (int k = 0; k < NH_NET_TIERS; k++) {
        res->tier[k] = net.tier[k];
        res->tier_links[k] = net.tier[k] > 0 ? tier_links[k] : 0;
    }
    res->gateway = net.tier[2] > 0 && tier_gateway;
    note("# ping-pong 8 B to nodes 1..%d: one-way", n - 1);
    for (int d = 1; d < n; d++)
        note(" %.3f", t[d]);
    if (net.tier[0] > 0) { /* tiers: links between routers, as a node's own */
        note(" us; hop %.4g us per tier crossed, tiers of %d", p[NH_TERM_HOP], net.tier[0]);
        for (int k = 1; k < NH_NET_TIERS && net.tier[k] > 0; k++)
            note(", %d", net.tier[k]);
        note(" nodes%s\n", tiers[0] > 0 ? " (--tiers)" : "");
        p[NH_TERM_HOP_LINK] = p[NH_TERM_LINK];
        return;
    }
    note(" us; hop %.4g us per node beyond the first along rings of %d\n", p[NH_TERM_HOP], r);
    p[NH_TERM_HOP_LINK] = p[NH_TERM_HOP] > 0 ? p[NH_TERM_LINK] : 0;
    if (p[NH_TERM_HOP] <= 0 || r < 3)
        return;
    double pb[2];
    fanout(lead[1], lead[r - 1], pb);
    note("# 2 x 16..64 KiB at once to node 1: %.4g us/B; to nodes 1 and %d: %.4g us/B\n", pb[0],
         r - 1, pb[1]);
    if (pb[0] > 0 && pb[1] > 0) {
        p[NH_TERM_HOP_LINK] = pb[0];
        p[NH_TERM_LINK] = pb[1] < pb[0] ? pb[1] : pb[0];
    }
}

/* --tiers A[:LA][,B[:LB][,C[:LC]]]: growing unit sizes, each a multiple
 * of the last, and the links each tier's link between two units stands
 * for (tier_links; default one) */
static int parse_tiers(const char *v)
{
    char *end;
    for (int k = 0; k < NH_NET_TIERS; k++) {
        long x = strtol(v, &end, 10), l = 1;
        if (end == v || x < 2 || x > 1000000 || (k > 0 && x % tiers[k - 1] != 0))
            return 1;
        if (*end == ':') {
            v = end + 1;
            l = strtol(v, &end, 10);
            if (end == v || l < 1 || l > 1000)
                return 1;
        }
        if (*end && *end != ',')
            return 1;
        tiers[k] = (int)x;
        tier_links[k] = (int)l;
        if (!*end)
            return 0;
        v = end + 1;
    }
    return 1;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: nhood-run -np N nhood-calibrate [-o FILE] [--quick] [--rows CSV]\n"
            "       nhood-calibrate --refit CSV [-o FILE]\n"
            "  -o FILE       write the cost file there (default: nhood.cost); install it as\n"
            "                PREFIX/share/nhood/site.cost to make it every run's default\n"
            "  --quick       a fit in about a minute (fewer sizes and repetitions)\n"
            "  --rows CSV    also keep every measured call there\n"
            "  --refit CSV   fit again to the calls kept by --rows, without measuring\n"
            "  --tiers A[:LA][,B[:LB][,C[:LC]]]  the network is a hierarchy of A nodes per\n"
            "                first-tier unit (a dragonfly's router), B per second (its\n"
            "                chassis), C per third (its group), LA links joining two routers\n"
            "                of a chassis, LB a router to its place's in another chassis, LC\n"
            "                two groups (default 1): fit the latency per tier crossed, not rings\n"
            "  --gateway     with --tiers: all links between two top units leave from one\n"
            "                router in each (SimGrid's dragonfly): tier3_gateway = 1\n"
            "Fits nhood's cost model to this machine (docs/tuning.md).\n");
}

/* Steps 1 to 3 on every rank; the results on rank 0.  Returns 0, or 2
 * where nhood is not loaded or there are too few ranks. */
static int measure_all(cal_result *res)
{
    phases_fn terms = (phases_fn)dlsym(RTLD_DEFAULT, "nhood_cost_phases");
    fp_fn fingerprint = (fp_fn)dlsym(RTLD_DEFAULT, "nhood_fingerprint");
    if (nprocs < 2 || !terms || !fingerprint) {
        if (rank == 0) {
            usage();
            if (nprocs < 2)
                fprintf(stderr, "nhood-calibrate: needs at least 2 ranks\n");
            if (!terms || !fingerprint)
                fprintf(stderr, "nhood-calibrate: nhood is not loaded: run it with nhood-run\n");
        }
        return 2;
    }
    if (quick) {
        rse_target = 0.03;
        max_reps = 100;
    }
    double p[CAL_NPARAM] = {0}, eager = 8192, rndv = 0;
    enum {
        A = NH_TERM_ALPHA,
        O = NH_TERM_O,
        OR = NH_TERM_O_RECV,
        B = NH_TERM_BETA,
        G = NH_TERM_GAMMA,
        PK = NH_TERM_PACK,
        GA = NH_TERM_GATHER,
        GS = NH_TERM_GATHER_SMALL,
        DL = NH_TERM_DELTA,
        RV = NH_TERM_RNDV,
        ND = NH_TERM_NODE,
        LK = NH_TERM_LINK
    };

    /* the layout: rank 0's node, a peer on it and one on another node */
    MPI_Comm node;
    int node_rank, *node_of = malloc(sizeof(int) * (size_t)nprocs), mine;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank);
    int leader = rank;
    MPI_Bcast(&leader, 1, MPI_INT, 0, node);
    mine = leader;
    MPI_Allgather(&mine, 1, MPI_INT, node_of, 1, MPI_INT, MPI_COMM_WORLD);
    int least; /* the fewest ranks on a node */
    MPI_Comm_size(node, &least);
    MPI_Allreduce(MPI_IN_PLACE, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    int intra = -1, inter = -1, ppn = 0, nlead = 0, *lead = malloc(sizeof(int) * (size_t)nprocs);
    for (int q = 0; q < nprocs; q++) {
        if (node_of[q] == q && lead) /* the nodes' first ranks, in rank order */
            lead[nlead++] = q;
        if (node_of[q] == node_of[0])
            ppn++;
        if (q > 0 && node_of[q] == node_of[0] && intra < 0)
            intra = q;
        if (node_of[q] != node_of[0] && inter < 0)
            inter = q;
    }
    free(node_of);
    int stride = inter > 0 ? ppn : 1; /* exchanges between nodes where there are several */
    progress("%d ranks, %d on rank 0's node%s; %s fit", nprocs, ppn,
             inter > 0 ? ", several nodes" : ", one node", quick ? "quick" : "full");

    /* ping-pong: the eager limit, the rendezvous step, node and link */
    static const int pp_full[] = {8,     64,    512,   1024,  2048,  4096,   8192,  12288,
                                  16384, 24576, 32768, 49152, 65536, 131072, 262144};
    static const int pp_quick[] = {8, 1024, 4096, 8192, 16384, 32768, 65536};
    const int *pps = quick ? pp_quick : pp_full;
    int npp = quick ? 7 : 15;
    double t_in[15], t_out[15];
    progress("[1/5] ping-pong, 8 B to %d KiB", pps[npp - 1] / 1024);
    for (int i = 0; i < npp; i++) {
        t_in[i] = intra > 0 ? pingpong(intra, pps[i]) : 0;
        t_out[i] = inter > 0 ? pingpong(inter, pps[i]) : 0;
        if (inter > 0)
            note("# ping-pong %6d B: one-way %.3f us within a node, %.3f us between nodes\n",
                 pps[i], t_in[i], t_out[i]);
        else
            note("# ping-pong %6d B: one-way %.3f us within the node\n", pps[i], t_in[i]);
    }
    const double *t_net = inter > 0 ? t_out : t_in;
    /* The rendezvous step: the largest jump above the per-byte slope (the
     * median of the steps' slopes), relative to the time before it. */
    double slopes[15];
    for (int i = 0; i + 1 < npp; i++)
        slopes[i] = (t_net[i + 1] - t_net[i]) / (pps[i + 1] - pps[i]);
    qsort(slopes, (size_t)npp - 1, sizeof(double), cmp_double);
    double slope = slopes[(npp - 1) / 2], jump = 0;
    int at = -1;
    for (int i = 1; i + 1 < npp; i++) {
        double d = t_net[i + 1] - t_net[i] - slope * (pps[i + 1] - pps[i]);
        if (d > 0.5 && t_net[i] > 0 && (at < 0 || d / t_net[i] > jump / t_net[at])) {
            jump = d;
            at = i;
        }
    }
    if (at >= 0 && jump > 0.25 * t_net[at]) {
        /* the step lies between two sizes measured: halve the interval
         * to a sixteenth of it (the larger size steps by definition) */
        int lo = pps[at], hi = pps[at + 1], peer = inter > 0 ? inter : intra;
        while (hi - lo > (pps[at + 1] - pps[at]) / 16 && hi - lo > 1) {
            int mid = lo + (hi - lo) / 2;
            double t = pingpong(peer, mid);
            if (t > t_net[at] + slope * (mid - lo) + jump / 2)
                hi = mid;
            else
                lo = mid;
        }
        eager = lo;
        rndv = jump;
        note("# rendezvous step: +%.3f us above %d B (%d B steps)\n", rndv, lo, hi);
    } else {
        eager = pps[npp - 1];
        note("# no rendezvous step up to %d B\n", pps[npp - 1]);
    }
    p[RV] = rndv;
    if (inter > 0) {
        p[ND] = t_out[0] - t_in[0] > 0 ? t_out[0] - t_in[0] : 0;
        int i16 = 0, i64 = 0;
        for (int i = 0; i < npp; i++) {
            i16 = pps[i] == 16384 ? i : i16;
            i64 = pps[i] == 65536 ? i : i64;
        }
        p[LK] = (t_out[i64] - t_out[i16]) / (65536 - 16384);
        p[LK] = p[LK] > 0 ? p[LK] : 0;
    }
    ring_fit(lead, nlead, quick, p, res);
    free(lead);

    /* One phase of k messages (core/model.h), NREP times: the send
     * overhead o from posting alone, the latency alpha and the receive
     * overhead o_recv from exchanges of k = 1 to 32 messages of 8 B (the
     * small k bound by latency, the large ones by posting), beta from
     * exchanges of 4 messages up to half the eager limit (bound by the
     * bytes posted; at the limit some MPI libraries switch already).
     * Each parameter is the median of its NREP values. */
    enum { NREP = 7, NK = 6 };
    double rv[CAL_NPARAM][NREP], us[2], a2;
    memset(rv, 0, sizeof(rv));
    progress("[2/5] posting and exchanges of k messages, %d times", NREP);
    for (int rep = 0; rep < NREP; rep++) {
        double kx[NK], ky[NK], tp[NK], mx[3], my[3], L, orv, os, ob;
        int ks[NK], m8[NK];
        for (int i = 0; i < NK; i++) {
            ks[i] = 1 << i;
            m8[i] = 8;
            kx[i] = ks[i];
        }
        posting_set(NK, ks, stride, tp);
        exchange_set(MPI_COMM_WORLD, NK, ks, m8, stride, ky);
        for (int i = 0; i < NK; i++)
            note("# [%d] k=%2d m=8 B: posting %.3f us, exchange %.3f us\n", rep + 1, ks[i], tp[i],
                 ky[i]);
        cal_line_fit(kx, tp, NK, &a2, &os);
        os = os > 0 ? os : 0;
        cal_phase_fit(kx, ky, NK, os, &L, &orv);
        const int ms[3] = {(int)eager / 8, (int)eager / 4, (int)eager / 2}; /* eager ones */
        const int k4[3] = {4, 4, 4};
        /* within nodes where they hold 3 ranks or more: between nodes all
         * their ranks' bytes would share the link (link) */
        exchange_set(least >= 3 ? node : MPI_COMM_WORLD, 3, k4, ms, least >= 3 ? 1 : stride, my);
        for (int i = 0; i < 3; i++) {
            mx[i] = ms[i];
            note("# [%d] exchange k= 4 m=%d B: %.3f us\n", rep + 1, ms[i], my[i]);
        }
        cal_line_fit(mx, my, 3, &a2, &ob);
        rv[O][rep] = os;
        rv[OR][rep] = orv;
        /* exchanges between nodes (where there are several) pay node too */
        rv[A][rep] = L - p[ND] > 0 ? L - p[ND] : 0;
        /* where the bytes hide behind the overheads (no slope), one
         * message's alone: the ping-pong's slope */
        rv[B][rep] = ob > 0 ? ob / 4 : slope;
    }
    for (int i = 0; i < CAL_NPARAM; i++)
        res->spread[i] = -1;
    const int phase_params[4] = {A, O, OR, B};
    for (int j = 0; j < 4; j++) {
        int i = phase_params[j];
        qsort(rv[i], NREP, sizeof(double), cmp_double);
        p[i] = rv[i][NREP / 2];
        res->spread[i] = p[i] > 0 ? (rv[i][NREP - 1] - rv[i][0]) / p[i] : 0;
    }
    note("# phase: alpha %.4g, o %.4g, o_recv %.4g, beta %.4g (medians of %d)\n", p[A], p[O],
         p[OR], p[B], NREP);
    p[NH_TERM_LATE] = p[O]; /* posting before a link's first message */
    MPI_Comm_free(&node);

    /* local copies and struct datatypes */
    progress("[3/5] copies and struct datatypes");
    p[G] = copy_cost(1, 65536, 65536);
    p[PK] = copy_cost(26, 1024, 4096);
    note("# memcpy 64 KiB: %.3g us/B; 26 blocks of 1 KiB gathered: %.3g us/B\n", p[G], p[PK]);
    double sx[3], sy[3], lx[2], ly[2];
    const int sbl[3] = {8, 64, 256}, lbl[2] = {4096, 16384};
    int nsmall = 0;
    for (int i = 0; i < 3; i++)
        if (26 * sbl[i] <= eager) {
            exchange(1, 26 * sbl[i], stride, 26, us);
            sx[nsmall] = 26 * sbl[i];
            sy[nsmall++] = us[1] - us[0];
            note("# 26-block struct message of %d B: %.3f us, contiguous %.3f us\n",
                 26 * sbl[i], us[1], us[0]);
        }
    for (int i = 0; i < 2; i++) {
        exchange(1, 26 * lbl[i], stride, 26, us);
        lx[i] = 26 * lbl[i];
        ly[i] = us[1] - us[0];
        note("# 26-block struct message of %d B: %.3f us, contiguous %.3f us\n", 26 * lbl[i],
             us[1], us[0]);
    }
    if (nsmall >= 2) {
        cal_line_fit(sx, sy, nsmall, &a2, &p[GS]);
        p[DL] = a2 / 26;
    }
    p[GA] = (ly[1] - ly[0]) / (lx[1] - lx[0]);
    for (int i = 0; i < CAL_NPARAM; i++)
        if (!(p[i] > 0)) /* negative, or NaN: nothing measurable */
            p[i] = 0;
    note("# measured:");
    for (int i = 0; i < CAL_NPARAM; i++)
        if (i != NH_TERM_CORE)
            note(" %s %.4g", nh_cost_params[i].key, p[i]);
    note("\n");
    /* the wait for a core where ranks outnumber cores is not measured
     * (a calibration runs one rank per core): nhood's default */
    p[NH_TERM_CORE] = nh_cost_defaults.core;

    /* training and validation */
    cal_set train = {0}, valid = {0};
#ifdef NHOOD_SMPI /* as scripts/sim-calibrate.sh: the platforms' schedules */
    static const int tsz_full[] = {8, 64, 512, 2048};
    const int *tsz = tsz_full;
    int ntsz = 4;
    const char *talgos = "direct,torus,torus_direct", *valgos = "direct,torus,torus_direct,bruck";
    static const int vsz[] = {8, 512, 2048};
    int nvsz = 3;
#else
    static const int tsz_full[] = {8, 64, 512, 4096, 32768, 262144};
    static const int tsz_quick[] = {8, 512, 32768};
    const int *tsz = quick ? tsz_quick : tsz_full;
    int ntsz = quick ? 3 : 6;
    const char *talgos = "pmpi,direct,torus,torus_direct",
               *valgos = "pmpi,direct,torus,torus_direct,bruck";
    static const int vsz_full[] = {8, 512, 4096, 65536}, vsz_quick[] = {8, 4096};
    const int *vsz = quick ? vsz_quick : vsz_full;
    int nvsz = quick ? 2 : 4;
#endif
    progress("[4/5] training: nhood's schedules and MPI's own exchange");
    int rc = run_nbhd(terms, "moore", 2, 1, "alltoall", tsz, ntsz, talgos, &train) ||
             run_nbhd(terms, "moore", 3, 1, "alltoall,allgather", tsz, ntsz, talgos, &train);
#ifdef NHOOD_SMPI
    rc = rc || run_nbhd(terms, "vonneumann", 3, 2, "alltoall", tsz, ntsz, talgos, &train);
#endif
    progress("[5/5] validation on other neighborhoods");
    rc = rc || run_nbhd(terms, "vonneumann", 3, 2, "alltoall", vsz, nvsz, valgos, &valid) ||
         run_nbhd(terms, "moore", 2, 2, "allgather", vsz, nvsz, valgos, &valid);
    if (rc) {
        if (rank == 0)
            fprintf(stderr, "nhood-calibrate: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    res->train = train;
    res->valid = valid;
    memcpy(res->measured, p, sizeof(p));
    res->eager = eager;
    res->step = sim_reps ? 0.001 : 0.005; /* simulated times are exact */
    snprintf(res->notes, sizeof(res->notes), "%s", notes);
    fingerprint(res->fingerprint, (int)sizeof(res->fingerprint));
    return 0;
}

int main(int argc, char **argv)
{
    const char *out = "nhood.cost", *rows = NULL, *refit = NULL;
    int bad = 0, rc = 0;
    /* The counts of traffic leaving nodes (node, link) come with a map of
     * ranks to nodes, which nhood makes where those terms are priced: a
     * price too small to matter asks for it. */
    setenv("NHOOD_COST_NODE", "1e-12", 0);
    MPI_Init(&argc, &argv);
    t_start = MPI_Wtime();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--rows") == 0 && i + 1 < argc)
            rows = argv[++i];
        else if (strcmp(argv[i], "--refit") == 0 && i + 1 < argc)
            refit = argv[++i];
        else if (strcmp(argv[i], "--tiers") == 0 && i + 1 < argc)
            bad |= parse_tiers(argv[++i]);
        else if (strcmp(argv[i], "--gateway") == 0)
            tier_gateway = 1;
        else
            bad = 1;
    }
    cal_result *res = calloc(1, sizeof(*res));
    if (bad || !res) {
        if (rank == 0)
            usage();
        MPI_Finalize();
        return 2;
    }
    if (refit) { /* fit again to the calls of an earlier run */
        if (rank == 0)
            rc = cal_rows_read(refit, res) || cal_finish(res, out, " --refit");
    } else if ((rc = measure_all(res)) == 0 && rank == 0) {
        rc = cal_finish(res, out, quick ? " --quick" : "");
        if (!rc && rows && cal_rows_write(rows, res)) {
            perror(rows);
            rc = 1;
        }
        if (!rc)
            fprintf(stderr, "nhood-calibrate: %.0f s\n", MPI_Wtime() - t_start);
    }
    free(res->train.rows);
    free(res->valid.rows);
    free(res);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return rc ? (rc == 2 ? 2 : 1) : 0;
}
