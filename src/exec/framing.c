/* Header framing (engine.h): a phase's header messages out, and in as
 * they arrive.  Block lengths travel with the data, so a receiver needs
 * no sizes in advance; blocks for this rank are unpacked with its own
 * arguments (blocks.c), blocks in transit kept as bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/bind.h"

/* Header framing: the phase's messages, each its block lengths then its
 * packed blocks, from one buffer (the previous phase's sends completed). */
int nh_hdr_post(nh_run *x, int m0, int m1)
{
    nh_bind *b = x->b;
    size_t need = 0, at = 0;
    int rc = MPI_SUCCESS;
    for (int j = m0; j < m1 && !rc; j++) {
        const nh_msg *g = &b->msgs[j];
        const nh_blk *blks = b->s->rounds[g->round].send;
        if (!g->send || g->sized)
            continue;
        need += 8 * (size_t)g->n;
        for (int i = 0; i < g->n && !rc; i++) {
            size_t len;
            rc = nh_hdr_bound(b, blks[i], &len);
            need += len;
        }
    }
    if (rc || (rc = nh_grow(&b->hbuf, &b->hcap, need + 8)))
        return rc;
    for (int j = m0; j < m1 && !rc; j++) {
        nh_msg *g = &b->msgs[j];
        const nh_blk *blks = b->s->rounds[g->round].send;
        if (!g->send || g->sized)
            continue;
        size_t start = at;
        at += 8 * (size_t)g->n;
        for (int i = 0; i < g->n && !rc; i++) {
            size_t len = 0;
            rc = nh_hdr_put(b, blks[i], b->hbuf + at, b->hcap - at, &len);
            uint64_t l64 = len;
            memcpy(b->hbuf + start + 8 * (size_t)i, &l64, 8);
            at += len;
        }
        if (!rc && at - start > INT32_MAX)
            rc = MPI_ERR_COUNT;
        if (!rc)
            rc = nh_isend(b->hbuf + start, (int)(at - start), MPI_BYTE, g->peer,
                          nh_tag_of(b, g->index, x->slot), b->comm, &b->reqs[x->nreq++]);
    }
    return rc;
}

/* A matched header message: its lengths, then its blocks. */
static int recv_header(nh_run *x, const nh_msg *g, MPI_Message *msg, MPI_Status *st)
{
    nh_bind *b = x->b;
    const nh_blk *blks = b->s->rounds[g->round].recv;
    int bytes, rc;
    if ((rc = nh_mpi_Get_count(st, MPI_BYTE, &bytes)))
        return rc;
    if (nh_grow(&b->inbuf, &b->incap, (size_t)bytes + 8)) {
        char dummy[1]; /* the matched message must still be received */
        nh_mpi_Mrecv(dummy, 0, MPI_BYTE, msg, MPI_STATUS_IGNORE);
        return MPI_ERR_NO_MEM;
    }
    if ((rc = nh_mpi_Mrecv(b->inbuf, bytes, MPI_BYTE, msg, MPI_STATUS_IGNORE)))
        return rc;
    size_t at = 8 * (size_t)g->n;
    if ((size_t)bytes < at)
        return MPI_ERR_TRUNCATE;
    for (int i = 0; i < g->n && !rc; i++) {
        uint64_t l64;
        memcpy(&l64, b->inbuf + 8 * (size_t)i, 8);
        if (l64 > (uint64_t)bytes - at)
            return MPI_ERR_TRUNCATE;
        rc = nh_hdr_take(b, blks[i], b->inbuf + at, (size_t)l64, &x->uerr);
        at += (size_t)l64;
    }
    return rc;
}

/* Header messages of the phase that have arrived (block: all of them). */
int nh_hdr_take_phase(nh_run *x, int block)
{
    nh_bind *b = x->b;
    int m0 = b->phase_start[x->ph], m1 = b->phase_start[x->ph + 1], rc = MPI_SUCCESS;
    for (int j = m0; j < m1 && x->pending && !rc; j++) {
        const nh_msg *g = &b->msgs[j];
        MPI_Message msg;
        MPI_Status st;
        int flag = 1, tag = nh_tag_of(b, g->index, x->slot);
        if (g->send || g->sized || b->got[j])
            continue;
        rc = block ? nh_mpi_Mprobe(g->peer, tag, b->comm, &msg, &st)
                   : nh_mpi_Improbe(g->peer, tag, b->comm, &flag, &msg, &st);
        if (rc || !flag)
            continue;
        b->got[j] = 1;
        x->pending--;
        rc = recv_header(x, g, &msg, &st);
    }
    return rc;
}

