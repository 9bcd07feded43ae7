/* Schedule simulator: runs every rank's schedule on symbolic block values
 * and checks the outcome against MPI's definition of the neighborhood
 * collective, computed directly from the neighbor lists. */
#include "sched.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

typedef long long val_t;

typedef struct simrank {
    val_t *buf[3];
    int len[3];
    int *writes; /* per receive slot */
} simrank;

static void fail(nh_sim_result *res, const char *fmt, ...)
{
    if (!res->ok)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->why, sizeof(res->why), fmt, ap);
    va_end(ap);
    res->ok = 0;
}

static val_t *slot_ptr(simrank *sr, const nh_blk *b, nh_sim_result *res, int rank)
{
    if (b->buf < 0 || b->buf > 2 || b->slot < 0 || b->slot >= sr->len[b->buf]) {
        fail(res, "rank %d: block (buf %d, slot %d) out of range", rank, b->buf, b->slot);
        return NULL;
    }
    return &sr->buf[b->buf][b->slot];
}

static val_t value_of(int rank, int slot, int stride)
{
    return (val_t)rank * stride + slot + 1;
}

void nh_sim_run(int p, const nh_nbhd *nbs, nh_sched *const *scheds, int *const *dests,
                const int *outdeg, int *const *srcs, const int *indeg, nh_op op, nh_sim_result *res)
{
    memset(res, 0, sizeof(*res));
    res->ok = 1;
    int stride = 1;
    for (int r = 0; r < p; r++)
        if (outdeg[r] + 1 > stride)
            stride = outdeg[r] + 1;
    simrank *sr = calloc((size_t)p, sizeof(*sr));
    int *consumed = NULL;
    /* Per-phase race detection: state per (rank, buf, slot) holds the
     * phase+1 in which it was last read and last written. */
    int **readph = calloc((size_t)p * 3, sizeof(int *)),
        **writeph = calloc((size_t)p * 3, sizeof(int *));
    if (!sr || !readph || !writeph) {
        fail(res, "out of memory");
        goto out;
    }
    int nrounds = scheds[0]->nrounds;
    for (int r = 0; r < p; r++) {
        const nh_sched *s = scheds[r];
        if (s->nrounds != nrounds) {
            fail(res, "rank %d has %d rounds, rank 0 has %d", r, s->nrounds, nrounds);
            goto out;
        }
        for (int i = 0; i < nrounds; i++)
            if (s->rounds[i].phase != scheds[0]->rounds[i].phase ||
                s->rounds[i].copy != scheds[0]->rounds[i].copy) {
                fail(res, "rank %d round %d differs in phase or kind from rank 0", r, i);
                goto out;
            }
        /* A rank without destinations has no send block at all: MPI lets it
         * pass any (even invalid) send buffer, so a schedule must not read it. */
        sr[r].len[NH_BUF_SEND] = op == NH_OP_ALLTOALL ? outdeg[r] : outdeg[r] > 0;
        sr[r].len[NH_BUF_RECV] = indeg[r];
        sr[r].len[NH_BUF_TEMP] = s->ntemp;
        for (int b = 0; b < 3; b++) {
            sr[r].buf[b] = calloc((size_t)sr[r].len[b] + 1, sizeof(val_t));
            readph[3 * r + b] = calloc((size_t)sr[r].len[b] + 1, sizeof(int));
            writeph[3 * r + b] = calloc((size_t)sr[r].len[b] + 1, sizeof(int));
            if (!sr[r].buf[b] || !readph[3 * r + b] || !writeph[3 * r + b]) {
                fail(res, "out of memory");
                goto out;
            }
        }
        sr[r].writes = calloc((size_t)indeg[r] + 1, sizeof(int));
        if (!sr[r].writes) {
            fail(res, "out of memory");
            goto out;
        }
        for (int k = 0; k < sr[r].len[NH_BUF_SEND]; k++)
            sr[r].buf[NH_BUF_SEND][k] = value_of(r, k, stride);
    }
    res->nphases = nrounds ? scheds[0]->rounds[nrounds - 1].phase + 1 : 0;

    /* Payload of each (rank, round) message, freed at the end of its phase. */
    val_t ***payload = calloc((size_t)p, sizeof(*payload));
    consumed = calloc((size_t)p * (nrounds + 1), sizeof(int));
    if (!payload || !consumed) {
        free(payload);
        fail(res, "out of memory");
        goto out;
    }
    for (int r = 0; r < p; r++) {
        payload[r] = calloc((size_t)nrounds + 1, sizeof(val_t *));
        if (!payload[r])
            fail(res, "out of memory");
    }
    long *msgs = calloc((size_t)p, sizeof(long)), *blocks = calloc((size_t)p, sizeof(long));
    for (int i0 = 0; i0 < nrounds && res->ok;) {
        int ph = scheds[0]->rounds[i0].phase, i1 = i0;
        while (i1 < nrounds && scheds[0]->rounds[i1].phase == ph)
            i1++;
        /* Sends (and copy sources) read first: a phase's rounds are concurrent. */
        for (int r = 0; r < p && res->ok; r++) {
            for (int i = i0; i < i1 && res->ok; i++) {
                const nh_round *rd = &scheds[r]->rounds[i];
                if (rd->nsend == 0)
                    continue;
                if (!rd->copy && rd->sendpeer == NH_NONE) {
                    fail(res, "rank %d round %d sends %d blocks to no rank", r, i, rd->nsend);
                    break;
                }
                payload[r][i] = malloc((size_t)rd->nsend * sizeof(val_t));
                if (!payload[r][i]) {
                    fail(res, "out of memory");
                    break;
                }
                for (int k = 0; k < rd->nsend; k++) {
                    val_t *v = slot_ptr(&sr[r], &rd->send[k], res, r);
                    if (!v)
                        break;
                    payload[r][i][k] = *v;
                    readph[3 * r + rd->send[k].buf][rd->send[k].slot] = ph + 1;
                }
                if (!rd->copy) {
                    msgs[r]++;
                    blocks[r] += rd->nsend;
                }
            }
        }
        for (int r = 0; r < p && res->ok; r++) {
            for (int i = i0; i < i1 && res->ok; i++) {
                const nh_round *rd = &scheds[r]->rounds[i];
                if (rd->nrecv == 0)
                    continue;
                const val_t *in;
                if (rd->copy) {
                    if (rd->nsend != rd->nrecv) {
                        fail(res, "rank %d copy round %d: %d sources, %d targets", r, i, rd->nsend,
                             rd->nrecv);
                        break;
                    }
                    in = payload[r][i];
                } else {
                    int q = rd->recvpeer;
                    if (q == NH_NONE || q < 0 || q >= p) {
                        fail(res, "rank %d round %d receives %d blocks from no rank", r, i,
                             rd->nrecv);
                        break;
                    }
                    const nh_round *qd = &scheds[q]->rounds[i];
                    if (qd->sendpeer != r || qd->nsend != rd->nrecv || !payload[q][i]) {
                        fail(res,
                             "round %d: rank %d expects %d blocks from %d, which sends %d to %d", i,
                             r, rd->nrecv, q, qd->nsend, qd->sendpeer);
                        break;
                    }
                    consumed[(size_t)q * (nrounds + 1) + i] = 1;
                    in = payload[q][i];
                }
                for (int k = 0; k < rd->nrecv; k++) {
                    const nh_blk *b = &rd->recv[k];
                    val_t *v = slot_ptr(&sr[r], b, res, r);
                    if (!v)
                        break;
                    if (b->buf == NH_BUF_SEND) {
                        fail(res, "rank %d round %d writes into the send buffer", r, i);
                        break;
                    }
                    if (writeph[3 * r + b->buf][b->slot] == ph + 1 ||
                        (!rd->copy && readph[3 * r + b->buf][b->slot] == ph + 1)) {
                        fail(res, "rank %d phase %d: slot (%d,%d) raced", r, ph, b->buf, b->slot);
                        break;
                    }
                    writeph[3 * r + b->buf][b->slot] = ph + 1;
                    *v = in[k];
                    if (b->buf == NH_BUF_RECV)
                        sr[r].writes[b->slot]++;
                }
            }
        }
        for (int r = 0; r < p && res->ok; r++)
            for (int i = i0; i < i1; i++) {
                const nh_round *rd = &scheds[r]->rounds[i];
                if (!rd->copy && rd->nsend && !consumed[(size_t)r * (nrounds + 1) + i])
                    fail(res,
                         "round %d: rank %d sends %d blocks to %d, which does not receive them", i,
                         r, rd->nsend, rd->sendpeer);
            }
        for (int r = 0; r < p; r++)
            for (int i = i0; i < i1; i++) {
                free(payload[r][i]);
                payload[r][i] = NULL;
            }
        i0 = i1;
    }
    for (int r = 0; r < p; r++) {
        if (msgs && msgs[r] > res->max_msgs)
            res->max_msgs = msgs[r];
        if (blocks && blocks[r] > res->max_blocks)
            res->max_blocks = blocks[r];
        res->total_msgs += msgs ? msgs[r] : 0;
        res->total_blocks += blocks ? blocks[r] : 0;
        free(payload[r]);
    }
    free(payload);
    free(msgs);
    free(blocks);

    /* Reference: the k-th occurrence of q in r's destinations delivers to
     * the k-th occurrence of r in q's sources. */
    for (int r = 0; r < p && res->ok; r++) {
        for (int j = 0; j < outdeg[r] && res->ok; j++) {
            int q = dests[r][j], k = 0, i;
            for (int jj = 0; jj < j; jj++)
                k += dests[r][jj] == q;
            for (i = 0; i < indeg[q]; i++)
                if (srcs[q][i] == r && k-- == 0)
                    break;
            if (i == indeg[q]) {
                fail(res, "lists inconsistent: %d -> %d has no matching source entry", r, q);
                break;
            }
            val_t want = value_of(r, op == NH_OP_ALLTOALL ? j : 0, stride);
            if (sr[q].writes[i] != 1)
                fail(res, "rank %d recv slot %d written %d times", q, i, sr[q].writes[i]);
            else if (sr[q].buf[NH_BUF_RECV][i] != want)
                fail(res, "rank %d recv slot %d: got block %lld, want %lld (from rank %d slot %d)",
                     q, i, sr[q].buf[NH_BUF_RECV][i], want, r, j);
        }
    }
    (void)nbs;
out:
    if (sr)
        for (int r = 0; r < p; r++) {
            for (int b = 0; b < 3; b++) {
                free(sr[r].buf[b]);
                if (readph)
                    free(readph[3 * r + b]);
                if (writeph)
                    free(writeph[3 * r + b]);
            }
            free(sr[r].writes);
        }
    free(sr);
    free(readph);
    free(writeph);
    free(consumed);
}

static unsigned next_rand(unsigned *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

static void shuffle(int *v, int n, unsigned *seed)
{
    for (int i = n - 1; i > 0; i--) {
        int k = (int)(next_rand(seed) % (unsigned)(i + 1)), t = v[i];
        v[i] = v[k];
        v[k] = t;
    }
}

static void price_phase(void *ctx, const double n[NH_NTERMS])
{
    double *a = ctx; /* the parameters, then the sum */
    a[NH_NTERMS] += nh_cost_phase(a, n, NULL);
}

/* The model's prices of rank 0's schedule sc (node statistics filled) of
 * an s-neighbor template, and of MPI's own exchange, for blocks of m
 * bytes, into st. */
static void sim_price(const nh_sched *sc, int s, const nh_cost *c, size_t m, nh_sched_stats *st)
{
    double a[NH_NTERMS + 1], n[NH_NTERMS];
    nh_cost_vec(c, a);
    st->model_us = -1;
    for (int packed = 0; packed < 2; packed++) {
        a[NH_NTERMS] = 0;
        nh_sched_phases(sc, m, packed, c->eager, 0, price_phase, a);
        if (st->model_us < 0 || a[NH_NTERMS] < st->model_us)
            st->model_us = a[NH_NTERMS];
    }
    /* MPI's own, crossing the nodes as direct's blocks do */
    st->model_native_us = -1;
    if (sc->algo == NH_ALGO_DIRECT) {
        nh_native_counts(s, m, c->eager, 0, sc, n);
        st->model_native_us = nh_cost_phase(a, n, NULL);
    }
}

int nh_sim_offsets(const nh_grid *g, int s, const int *off, unsigned seed, nh_op op, nh_algo algo,
                   int ports, int simulate, const nh_sim_nodes *nodes, nh_sim_result *res,
                   nh_sched_stats *st)
{
    int ppn = nodes ? nodes->ppn : 0;
    int p = g->size, d = g->ndims, rc = -1, ninit = 0, nbuild = simulate ? p : 1;
    int **dests = calloc((size_t)p, sizeof(int *)), **srcs = calloc((size_t)p, sizeof(int *));
    int *outdeg = calloc((size_t)p, sizeof(int)), *indeg = calloc((size_t)p, sizeof(int));
    nh_nbhd *nbs = calloc((size_t)p, sizeof(nh_nbhd));
    nh_sched **sch = calloc((size_t)p, sizeof(nh_sched *));
    int *tmpl = malloc(sizeof(int) * ((size_t)s * d + 1));
    int *perm = malloc(sizeof(int) * ((size_t)s + 1));
    int coords[NH_MAXDIMS];
    memset(res, 0, sizeof(*res));
    if (!dests || !srcs || !outdeg || !indeg || !nbs || !sch || !tmpl || !perm)
        goto out;
    for (int r = 0; r < p; r++) {
        dests[r] = malloc(sizeof(int) * ((size_t)s + 1));
        srcs[r] = malloc(sizeof(int) * ((size_t)s + 1));
        if (!dests[r] || !srcs[r])
            goto out;
        nh_grid_coords(g, r, coords);
        for (int t = 0; t < s; t++) {
            int q = nh_grid_shift(g, coords, off + (size_t)t * d, +1);
            if (q != NH_NONE)
                dests[r][outdeg[r]++] = q;
            q = nh_grid_shift(g, coords, off + (size_t)t * d, -1);
            if (q != NH_NONE)
                srcs[r][indeg[r]++] = q;
        }
        if (seed) {
            shuffle(dests[r], outdeg[r], &seed);
            shuffle(srcs[r], indeg[r], &seed);
        }
    }
    /* Template agreement as detection does it: the sorted list of the
     * first rank with the largest out-degree. */
    int root = 0;
    for (int r = 1; r < p; r++)
        if (outdeg[r] > outdeg[root])
            root = r;
    if (nh_local_offsets(g, root, outdeg[root], dests[root], +1, tmpl, perm))
        goto out;
    rc = 1;
    if (outdeg[root] < s)
        goto out;
    for (ninit = 0; ninit < nbuild; ninit++)
        if (nh_nbhd_init(&nbs[ninit], g, ninit, outdeg[root], tmpl, outdeg[ninit], dests[ninit],
                         indeg[ninit], srcs[ninit]))
            goto out;
    rc = -1;
    for (int r = 0; r < nbuild; r++)
        nbs[r].ports = ports;
    for (int r = 0; r < nbuild; r++)
        if (!nh_algos[algo].build || nh_algos[algo].build(&nbs[r], op, &sch[r]))
            goto out;
    if (simulate)
        nh_sim_run(p, nbs, sch, dests, outdeg, srcs, indeg, op, res);
    else
        res->ok = 1;
    st->rounds = sch[0]->tmpl_rounds;
    st->nphases = sch[0]->nphases;
    st->ntemp = sch[0]->ntemp;
    st->msgs = sch[0]->tmpl_msgs;
    st->blocks = sch[0]->tmpl_blocks;
    st->copies = sch[0]->tmpl_copies;
    st->node_phases = 0;
    st->node_blocks = 0;
    st->node_far = 0;
    st->node_link_blocks = 0;
    st->model_us = st->model_native_us = -1;
    if (ppn > 0) {
        int *node_of = malloc(sizeof(int) * (size_t)p), got = node_of != NULL;
        if (got) {
            for (int r = 0; r < p; r++)
                node_of[r] = r / ppn;
            nh_sched_node_stats(sch[0], g, node_of, (p + ppn - 1) / ppn, &nodes->net);
            st->node_phases = sch[0]->node_phases;
            st->node_blocks = sch[0]->node_blocks;
            for (int ph = 0; sch[0]->node_ph && ph < sch[0]->nphases; ph++) {
                const nh_node_phase *n = &sch[0]->node_ph[ph];
                st->node_far = n->far > st->node_far ? n->far : st->node_far;
                if (n->link_blocks > st->node_link_blocks)
                    st->node_link_blocks = n->link_blocks;
            }
            if (nodes->cost)
                sim_price(sch[0], nbs[0].s, nodes->cost, nodes->bytes, st);
        }
        free(node_of);
        if (!got)
            goto out;
    }
    rc = 0;
out:
    for (int r = 0; r < p && dests; r++) {
        free(dests[r]);
        free(srcs[r]);
        if (sch)
            nh_sched_free(sch[r]);
    }
    for (int r = 0; r < ninit; r++)
        nh_nbhd_fini(&nbs[r]);
    free(dests);
    free(srcs);
    free(outdeg);
    free(indeg);
    free(nbs);
    free(sch);
    free(tmpl);
    free(perm);
    return rc;
}
