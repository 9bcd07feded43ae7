/* Schedule construction helpers and the algorithm table. */
#include "sched.h"

#include <stdlib.h>
#include <string.h>

const nh_algo_info nh_algos[NH_ALGO_COUNT] = {
    [NH_ALGO_AUTO] = {"auto", NULL},
    [NH_ALGO_PMPI] = {"pmpi", NULL},
    [NH_ALGO_DIRECT] = {"direct", nh_build_direct},
    [NH_ALGO_TORUS] = {"torus", nh_build_torus},
    [NH_ALGO_TORUS_DIRECT] = {"torus_direct", nh_build_torus_direct},
};

const char *nh_op_name(nh_op op)
{
    return op == NH_OP_ALLTOALL ? "alltoall" : "allgather";
}

nh_sched *nh_sched_new(nh_algo algo, nh_op op)
{
    nh_sched *s = calloc(1, sizeof(*s));
    if (s) {
        s->algo = algo;
        s->op = op;
    }
    return s;
}

int nh_sched_add_round(nh_sched *s, int phase, int sendpeer, int recvpeer, int copy)
{
    if (s->nrounds == s->caprounds) {
        int cap = s->caprounds ? 2 * s->caprounds : 16;
        nh_round *r = realloc(s->rounds, (size_t)cap * sizeof(*r));
        if (!r) {
            s->oom = 1;
            return -1;
        }
        s->rounds = r;
        s->caprounds = cap;
    }
    nh_round *r = &s->rounds[s->nrounds];
    memset(r, 0, sizeof(*r));
    r->phase = phase;
    r->copy = copy;
    r->sendpeer = sendpeer;
    r->recvpeer = recvpeer;
    return s->nrounds++;
}

static void push(nh_sched *s, nh_blk **v, int *n, int *cap, int buf, int slot)
{
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 8;
        nh_blk *nv = realloc(*v, (size_t)c * sizeof(**v));
        if (!nv) {
            s->oom = 1;
            return;
        }
        *v = nv;
        *cap = c;
    }
    (*v)[*n].buf = buf;
    (*v)[*n].slot = slot;
    (*n)++;
}

void nh_sched_add_send(nh_sched *s, int round, int buf, int slot)
{
    if (round < 0)
        return;
    nh_round *r = &s->rounds[round];
    push(s, &r->send, &r->nsend, &r->capsend, buf, slot);
}

void nh_sched_add_recv(nh_sched *s, int round, int buf, int slot)
{
    if (round < 0)
        return;
    nh_round *r = &s->rounds[round];
    push(s, &r->recv, &r->nrecv, &r->caprecv, buf, slot);
}

int nh_sched_temp(nh_sched *s)
{
    return s->ntemp++;
}

int nh_sched_finish(nh_sched *s)
{
    if (s->oom)
        return -1;
    /* Keep rounds that move something on an interior rank.  The decision
     * uses template counts only, so every rank drops the same rounds and
     * round indices (message tags) stay aligned. */
    int k = 0, lastphase = -1, phase = -1, lastcomm = -1;
    for (int i = 0; i < s->nrounds; i++) {
        nh_round *r = &s->rounds[i];
        if (r->tmpl_blocks == 0) {
            free(r->send);
            free(r->recv);
            continue;
        }
        if (r->phase != lastphase) {
            lastphase = r->phase;
            phase++;
        }
        r->phase = phase;
        s->rounds[k++] = *r;
        if (r->copy) {
            s->tmpl_copies += r->tmpl_blocks;
        } else {
            if (lastcomm != phase) {
                lastcomm = phase;
                s->tmpl_rounds++;
            }
            s->tmpl_msgs++;
            s->tmpl_blocks += r->tmpl_blocks;
            if (r->tmpl_blocks > 1)
                s->tmpl_multi += r->tmpl_blocks;
        }
    }
    s->nrounds = k;
    s->nphases = phase + 1;
    return 0;
}

void nh_sched_free(nh_sched *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nrounds; i++) {
        free(s->rounds[i].send);
        free(s->rounds[i].recv);
    }
    free(s->rounds);
    free(s);
}
