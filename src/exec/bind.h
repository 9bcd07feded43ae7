/* The engine's binding (engine.h), shared by engine.c (messages, phases,
 * the binding cache) and blocks.c (block addresses, temp storage, packing,
 * the header wire format).  Private to src/exec/engine*. */
#ifndef NH_BIND_H
#define NH_BIND_H

#include <stdlib.h>

#include "exec/engine.h"
#include "util/copy.h"

/* A byte move of a bound call: a contiguous block to or from a packed
 * message, or a local copy.  Bindings are reused only for identical
 * addresses, so the moves are computed once per binding. */
typedef struct nh_move {
    char *to;
    const char *from;
    size_t n;
} nh_move;

/* One message: blocks [first, first + n) of a round's send or recv list. */
typedef struct nh_msg {
    int round, send, first, n, peer;
    long index; /* chunk * ntags + round tag: the MPI tag before the slot (engine.h) */
    void *buf; /* sized: what MPI sends or receives */
    int count;
    MPI_Datatype type;
    int owned;  /* type is a struct this binding created */
    int packed; /* sized: packed into pbuf + off, bytes long */
    size_t off, bytes;
    int mv, nmv; /* packed: its blocks as moves [mv, mv + nmv); nmv < 0: block by block */
    int sized;   /* header binding: a split route's message, sized at both ends */
} nh_msg;

struct nh_bind {
    nh_bind *next;
    const nh_sched *s;
    nh_call c; /* the call (per-block arrays owned) */
    nh_bind_opts o;
    const nh_nbhd *nb; /* template slots of model-1 temps */
    MPI_Comm comm;
    int tag_ub;
    /* regular calls: extents, contiguity */
    MPI_Aint sext, rext;
    int scontig, rcontig;
    /* typed temps: slot t at temp + toff[t]; kdesc[key] describes a temp
     * of template entry key (model 1; entry 0 for model 0), klo its
     * lowest byte relative to its address */
    char *temp;
    size_t *toff;
    nh_desc *kdesc;
    MPI_Aint *klo;
    int nkeys;
    /* split schedules: a user block of template entry t larger than
     * limit[t] bytes takes the straight route (nh_blk_alt) */
    size_t *limit;
    /* byte temps (header framing): slot t is store[tpos[t]], tlen[t] bytes */
    char *store;
    size_t storecap, storeused;
    size_t *tpos, *tlen;
    /* messages sorted by phase, sized receives first within a phase */
    nh_msg *msgs;
    int nmsgs;
    int *phase_start; /* nphases + 1 */
    int *copies;      /* copy rounds sorted by phase */
    int *copy_start;  /* nphases + 1 */
    int msg_phases;   /* phases with messages */
    nh_move *moves;   /* packing, unpacking and copies of contiguous blocks */
    int nmoves;
    int *cmv;    /* per phase: the copies as moves [cmv[ph], cmv[ph + 1]) ... */
    char *cslow; /* ... unless cslow[ph]: block by block (nh_blk_copy) */
    char *pbuf;       /* sized packed messages */
    size_t plen;
    char *hbuf; /* header framing: a phase's outgoing messages */
    size_t hcap;
    char *inbuf; /* header framing: one incoming message */
    size_t incap;
    char *got; /* header framing: receive taken this phase, per message */
    MPI_Request *reqs;
    MPI_Request *areqs; /* split routes' messages of the running call (nh_run.nalt) */
    MPI_Status *stats;
    MPI_Request *preq; /* persistent bindings: one MPI persistent request per sized message */
    char *scratch;
    size_t scratch_len;
    MPI_Datatype *dups; /* held bindings: duplicates of derived types */
    int ndups;
    int zcopy; /* some message is a struct datatype */
    int pages; /* its buffers page-aligned: it serves more than one call (nh_bind_buf) */
    int busy;  /* in use by a run (cached bindings are shared by calls) */
};

/* Block k of the binding as a typed block (not for byte temps). */
void nh_blk_desc(const nh_bind *b, nh_blk k, nh_desc *out);
/* A user block that a split schedule sends straight to its receiver
 * (both ends see the same size, so they agree). */
int nh_blk_alt(const nh_bind *b, nh_blk k);
/* Lays out typed temps; returns an MPI error code. */
int nh_temps_layout(nh_bind *b);
/* Packs d at out + *pos (outsize bytes in all); unpacks the reverse. */
int nh_desc_pack(const nh_desc *d, char *out, int outsize, int *pos, MPI_Comm comm);
int nh_desc_unpack(const char *in, int insize, int *pos, const nh_desc *d, MPI_Comm comm);
/* Local copy of block from to block to (typed, or bytes under header framing). */
int nh_blk_copy(nh_bind *b, nh_blk from, nh_blk to, int *uerr);
/* Header framing: bytes a block takes at most in a message; appends a
 * block to a message; takes n received bytes as block k (user blocks are
 * unpacked, a size mismatch sets *uerr; temps keep the bytes). */
int nh_hdr_bound(const nh_bind *b, nh_blk k, size_t *out);
int nh_hdr_put(const nh_bind *b, nh_blk k, char *out, size_t room, size_t *len);
int nh_hdr_take(nh_bind *b, nh_blk k, const char *in, size_t n, int *uerr);
/* The moves of packed messages and copy phases whose blocks are all
 * contiguous (sized framing; after the message list).  Returns an MPI
 * error code. */
int nh_moves_build(nh_bind *b);
static inline void nh_moves_run(const nh_move *m, int n)
{
    for (int i = 0; i < n; i++)
        nh_copy(m[i].to, m[i].from, m[i].n);
}
/* A message's MPI tag (engine.h). */
static inline int nh_tag_of(const nh_bind *b, long index, int slot)
{
    return (int)((index * NH_SLOTS + slot) % ((long)b->tag_ub + 1));
}
/* Header framing (framing.c): the header messages of phase messages
 * [m0, m1) sent; those received that have arrived (block: all). */
int nh_hdr_post(nh_run *x, int m0, int m1);
int nh_hdr_take_phase(nh_run *x, int block);
/* A binding's buffer of n bytes (its temporaries, its packed messages;
 * free() frees it): from a page up, page-aligned where the binding
 * lives on (b->pages).  (MPICH 4.0.2 at 2 ranks, 3-D Moore ialltoall of
 * 4 KiB blocks, packed schedules, 104 KiB each way: on the heap after a
 * graph's calls of 512 B, 21 to 23 us a call in 4 of 5 runs,
 * page-aligned 14 to 16 in 4 of 4, where the machine runs MPI's own at
 * 16 to 17.  A binding made for one call only, as a nonblocking call's
 * with derived datatypes, keeps malloc's: page-aligned buffers made and
 * freed at every call, as every request's were under
 * MPI_THREAD_MULTIPLE before it shared the cache, made the same exchange
 * take 85 us.) */
static inline char *nh_bind_buf(const nh_bind *b, size_t n)
{
    void *m = NULL;
    if (n < 4096 || !b->pages)
        return malloc(n + 1);
    return posix_memalign(&m, 4096, n + 1) ? NULL : m;
}
/* Grows *buf to at least need bytes. */
int nh_grow(char **buf, size_t *cap, size_t need);

#endif
