/* The cost model's parameter table and its arithmetic (core/model.h). */
#include "core/model.h"

#include <stdint.h>
#include <string.h>

#include "core/sched.h"

#define NH_COST_ROW_(N, k, d, g, h)                                                                \
    {#k, "NHOOD_COST_" #N, offsetof(nh_cost, k), d, NH_TERM_##N, g, h},
#define NH_COST_OTHER_(N, k, d, g, h) {#k, "NHOOD_COST_" #N, offsetof(nh_cost, k), d, -1, g, h},
const nh_cost_param nh_cost_params[] = {NH_COST_TERMS(NH_COST_ROW_) NH_COST_OTHERS(NH_COST_OTHER_)};
#undef NH_COST_ROW_
#undef NH_COST_OTHER_
const int nh_cost_nparams = (int)(sizeof(nh_cost_params) / sizeof(nh_cost_params[0]));

#define NH_COST_DEF_(N, k, d, g, h) .k = d,
const nh_cost nh_cost_defaults = {NH_COST_TERMS(NH_COST_DEF_) NH_COST_OTHERS(NH_COST_DEF_)};
#undef NH_COST_DEF_

void nh_cost_vec(const nh_cost *c, double par[NH_NTERMS])
{
#define NH_COST_VEC_(N, k, d, g, h) par[NH_TERM_##N] = c->k;
    NH_COST_TERMS(NH_COST_VEC_)
#undef NH_COST_VEC_
}

double nh_cost_phase(const double par[NH_NTERMS], const double n[NH_NTERMS], double lin[NH_NTERMS])
{
    enum { POST, WIRE, INJECT, NET, NBR };
    /* each term's place: posting, the wire, the node's link, the busiest
     * link between nodes, receiving (-2) or after the max (-1) */
    static const signed char place[NH_NTERMS] = {
        [NH_TERM_ALPHA] = -1,    [NH_TERM_O] = POST,
        [NH_TERM_O_RECV] = -2,   [NH_TERM_BETA] = POST,
        [NH_TERM_GAMMA] = -1,    [NH_TERM_PACK] = POST,
        [NH_TERM_GATHER] = POST, [NH_TERM_GATHER_SMALL] = POST,
        [NH_TERM_DELTA] = POST,  [NH_TERM_RNDV] = POST,
        [NH_TERM_NODE] = WIRE,   [NH_TERM_LINK] = INJECT,
        [NH_TERM_CORE] = -1,     [NH_TERM_CALL] = -1,
        [NH_TERM_HOP] = WIRE,    [NH_TERM_HOP_LINK] = NET,
        [NH_TERM_LATE] = NET};
    double br[NBR] = {0}, after = 0;
    /* a link that costs nothing waits for nothing */
    int late = par[NH_TERM_HOP_LINK] * n[NH_TERM_HOP_LINK] > 0;
    for (int i = 0; i < NH_NTERMS; i++)
        if (place[i] >= 0 && (i != NH_TERM_LATE || late))
            br[place[i]] += par[i] * n[i];
        else if (place[i] == -1 && i != NH_TERM_ALPHA)
            after += par[i] * n[i];
    br[WIRE] += (par[NH_TERM_O] + par[NH_TERM_ALPHA]) * n[NH_TERM_ALPHA];
    /* a link drains from the first message's posting and its last byte
     * arrives a latency later (where the phase pays its own latency) */
    int drain = n[NH_TERM_ALPHA] > 0;
    br[INJECT] += drain * br[WIRE];
    br[NET] += drain * br[WIRE];
    /* receiving: every message after posting or the first arrival; behind
     * a link only the last one's, the others as they come */
    double last = n[NH_TERM_O_RECV] < n[NH_TERM_ALPHA] ? n[NH_TERM_O_RECV] : n[NH_TERM_ALPHA],
           recv[NBR] = {n[NH_TERM_O_RECV], n[NH_TERM_O_RECV], last, last};
    int k = 0;
    for (int b = 0; b < NBR; b++) {
        br[b] += par[NH_TERM_O_RECV] * recv[b];
        k = br[b] > br[k] ? b : k;
    }
    if (lin) {
        for (int i = 0; i < NH_NTERMS; i++)
            if (place[i] == -1 ? i != NH_TERM_ALPHA
                               : (place[i] == k && (i != NH_TERM_LATE || late)) ||
                                     (place[i] == WIRE && k > WIRE && drain))
                lin[i] += n[i];
        lin[NH_TERM_O_RECV] += recv[k];
        if (k >= WIRE) {
            lin[NH_TERM_O] += n[NH_TERM_ALPHA];
            lin[NH_TERM_ALPHA] += n[NH_TERM_ALPHA];
        }
    }
    return br[k] + after;
}

double nh_cost_phase_of(const nh_cost *c, const double n[NH_NTERMS], double lin[NH_NTERMS])
{
    double par[NH_NTERMS];
    nh_cost_vec(c, par);
    return nh_cost_phase(par, n, lin);
}

double nh_cost_exchange_node(const nh_cost *c, double phases, double sent, double received,
                             double bytes, double off_node, double link_bytes)
{
    double n[NH_NTERMS] = {0};
    n[NH_TERM_ALPHA] = phases;
    n[NH_TERM_O] = sent;
    n[NH_TERM_O_RECV] = received;
    n[NH_TERM_BETA] = bytes;
    n[NH_TERM_NODE] = off_node;
    /* without a map of their ways, the bytes may all take one of the
     * network's links as well */
    n[NH_TERM_LINK] = n[NH_TERM_HOP_LINK] = link_bytes;
    return nh_cost_phase_of(c, n, NULL);
}

double nh_cost_exchange(const nh_cost *c, double phases, double sent, double received, double bytes)
{
    return nh_cost_exchange_node(c, phases, sent, received, bytes, 0, 0);
}

double nh_cost_phases(const double par[NH_NTERMS], int nph, const double (*ph)[NH_NTERMS],
                      double lin[NH_NTERMS])
{
    double t = 0;
    for (int i = 0; i < nph; i++)
        t += nh_cost_phase(par, ph[i], lin);
    return t;
}

void nh_native_counts(int s, size_t m, double eager, double excess, const nh_sched *d,
                      double n[NH_NTERMS])
{
    memset(n, 0, sizeof(double) * NH_NTERMS);
    n[NH_TERM_ALPHA] = 1;
    n[NH_TERM_CORE] = excess;
    n[NH_TERM_O] = n[NH_TERM_O_RECV] = s;
    n[NH_TERM_BETA] = s * (double)m;
    n[NH_TERM_RNDV] = (double)m > eager ? s : 0;
    if (d && d->node_ph)
        nh_cost_node_counts(&d->node_ph[0], m, n);
    else if (d && d->node_phases > 0) {
        n[NH_TERM_NODE] = 1;
        n[NH_TERM_LINK] = (double)m * (double)d->node_blocks;
    }
}

size_t nh_cost_split_limit(const nh_cost *c, int hops, int node_ranks)
{
    double net = c->link > c->hop_link ? c->link : c->hop_link,
           per = 2 * c->pack + hops * (c->beta + net) + 2 * (hops - 1) * c->gamma +
                 (hops - 1) * (double)node_ranks * c->link;
    if (hops <= 0 || per <= 0)
        return SIZE_MAX;
    double n = (c->o + c->o_recv) / per;
    return n < (double)SIZE_MAX ? (size_t)n : SIZE_MAX;
}

/* a node count from the cost file: at least 1, at most a million; 0: none */
static int net_size(double v)
{
    return v >= 1 ? (int)(v < 1e6 ? v : 1e6) : 0;
}

void nh_cost_net(const nh_cost *c, nh_net *net)
{
    const double tier[NH_NET_TIERS] = {c->tier1, c->tier2, c->tier3},
                 links[NH_NET_TIERS] = {c->tier1_links, c->tier2_links, c->tier3_links};
    net->ring = net_size(c->ring);
    for (int k = 0; k < NH_NET_TIERS; k++) {
        net->tier[k] = k == 0 || net->tier[k - 1] ? net_size(tier[k]) : 0;
        net->links[k] = net_size(links[k]);
    }
    net->gateway = c->tier3_gateway >= 1;
}

double nh_cost_excess(int ranks, int cpus)
{
    return ranks > 0 && cpus > 0 && ranks > cpus ? (double)ranks / cpus - 1 : 0;
}

/* One message round's messages, added to a phase's counts n: per message
 * of S bytes in c blocks one sent and one received (an interior rank
 * receives what it sends), S bytes, a rendezvous where S exceeds the
 * eager limit (the protocol goes by size, packed or described by a
 * datatype alike); for c > 1 the pack binding's gather and scatter copies
 * (2 S), or the zcopy binding's c blocks described and S bytes through
 * MPI's datatype engine (much slower on eager-sized messages with MPICH
 * over UCX). */
static void round_counts(const nh_round *r, size_t m, int packed, double eager, double n[NH_NTERMS])
{
    int k = nh_eager_chunk(m, r->tmpl_blocks, eager);
    for (int first = 0; first < r->tmpl_blocks; first += k) {
        int c = r->tmpl_blocks - first < k ? r->tmpl_blocks - first : k;
        double S = c * (double)m;
        n[NH_TERM_O] += 1;
        n[NH_TERM_O_RECV] += 1;
        n[NH_TERM_BETA] += S;
        if (S > eager)
            n[NH_TERM_RNDV] += 1;
        if (c > 1 && packed)
            n[NH_TERM_PACK] += 2 * S;
        else if (c > 1) {
            n[NH_TERM_DELTA] += c;
            n[S > eager ? NH_TERM_GATHER : NH_TERM_GATHER_SMALL] += S;
        }
    }
}

void nh_cost_node_counts(const nh_node_phase *ph, size_t m, double n[NH_NTERMS])
{
    n[NH_TERM_NODE] = ph->blocks > 0;
    n[NH_TERM_LINK] = (double)m * (double)ph->blocks;
    n[NH_TERM_HOP] = ph->far;
    n[NH_TERM_HOP_LINK] = (double)m * (double)ph->link_blocks;
    /* the busiest link waits for the messages posted before its first,
     * and its own messages, arriving as it drains, are handled after it
     * (all but the last, which `last` holds) */
    n[NH_TERM_LATE] =
        ph->link_blocks > 0 ? ph->link_after + (ph->link_recv > 1 ? ph->link_recv - 1 : 0) : 0;
}

/* A phase's node counts: whether some message leaves its node, the
 * bytes the busiest node sends off it (node_ph; without it, the node's
 * blocks spread evenly over its crossing phases), the farthest message's
 * nodes beyond the first, and the bytes times those nodes one way round. */
static void node_counts(const nh_sched *s, int phase, size_t m, double n[NH_NTERMS])
{
    if (s->node_ph) {
        nh_cost_node_counts(&s->node_ph[phase], m, n);
    } else if (s->node_phases > 0 && s->tmpl_rounds > 0) {
        n[NH_TERM_NODE] = (double)s->node_phases / s->tmpl_rounds;
        n[NH_TERM_LINK] = (double)m * (double)s->node_blocks / s->tmpl_rounds;
    }
}

void nh_sched_phases(const nh_sched *s, size_t m, int packed, double eager, double excess,
                     nh_phase_fn emit, void *ctx)
{
    double n[NH_NTERMS];
    int ph = -1;
    for (int i = 0; i <= s->nrounds; i++) {
        const nh_round *r = i < s->nrounds ? &s->rounds[i] : NULL;
        if (r && r->copy)
            continue;
        if (ph >= 0 && (!r || r->phase != ph))
            emit(ctx, n);
        if (!r)
            break;
        if (r->phase != ph) {
            ph = r->phase;
            memset(n, 0, sizeof(n));
            n[NH_TERM_ALPHA] = 1;
            n[NH_TERM_CORE] = excess;
            node_counts(s, ph, m, n);
        }
        round_counts(r, m, packed, eager, n);
    }
    memset(n, 0, sizeof(n));
    n[NH_TERM_GAMMA] = (double)m * (double)s->tmpl_copies;
    n[NH_TERM_CALL] = 1;
    emit(ctx, n);
}
