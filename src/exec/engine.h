/* The engine: runs any schedule (core/sched.h) on one call's buffers.
 *
 * Every neighborhood collective nhood runs, in every form, goes through
 * the code below: blocking calls are start + wait, nonblocking and
 * persistent requests (request.c) drive the same state machine.
 *
 * Blocks.  A call is described by an nh_call: either regular (one count
 * and type per side, block i at i * count * extent) or per block (the v
 * and w forms: every block has its own address, count and type).  Temp
 * blocks of forwarding schedules take one of two forms: typed, laid out
 * like a model block (regular calls: a receive block; v/w calls under
 * the isomorphic=true promise: the local block of the same template
 * entry), or bytes (header framing below).
 *
 * Framing.  One rule per binding:
 *  - sized: both ends know the size of every block of a message.  A
 *    round's blocks are grouped into messages that stay under the eager
 *    limit (nh_eager_take, the same rule at both ends); a single block
 *    goes straight from or to the user's memory, several are packed by
 *    nhood (memcpy for contiguous types, MPI_Pack otherwise) or described
 *    by an MPI struct datatype over their absolute addresses (zero copy).
 *  - header: the receiver cannot know the sizes (forwarding schedules on
 *    v/w calls without the promise, store-and-forward).  A round is one
 *    message: n 64-bit block lengths, then the packed blocks.  Receivers
 *    find it with MPI_Improbe (MPI_Mprobe when blocking) and take it with
 *    MPI_Mrecv; blocks for this rank are unpacked with its own arguments,
 *    blocks in transit are kept as bytes.
 *
 * Split routes.  A split schedule (core/sched.h: nh_sched_add_alt) has,
 * beside its forwarding rounds, one round per template entry straight to
 * the entry's receiver.  Under header framing each user block takes one
 * route by its size (nh_blk_alt: larger than the entry's limit, which
 * both ends compute alike, and both see the same size since MPI matches
 * the sender's bytes to the receiver's): along the forwarding rounds it
 * travels as an empty block; its straight message is sized at both ends,
 * posted with the first phase and waited for after the last, so large
 * blocks move beside the phases.
 *
 * Phases.  Per phase: post (sized receives, then every send), test (sized
 * requests; header messages probed and received as they arrive), unpack
 * (packed sized receives), copy (the phase's copy rounds).  A phase ends
 * when all its messages have completed; the next one starts then.
 *
 * Tags.  A message's tag is (index * NH_SLOTS + slot) modulo (tag_ub + 1),
 * where index = chunk * ntags + the round's tag names the message in the
 * schedule (identical at both ends, sched.h) and slot separates operations in flight on one
 * communicator (blocking calls use slot 0, requests 1..NH_SLOTS-1).
 * Receives name their source, so MPI's non-overtaking order keeps a fast
 * peer's next call behind the current one.
 *
 * Bindings.  A binding ties a schedule to a call's arguments: message
 * list, datatypes, temp storage, buffers.  Bindings of calls whose types
 * are all predefined are cached per plan and reused only for identical
 * arguments (addresses included); others are built per call, because a
 * freed and recreated datatype can come back with the same handle.
 * Bindings held by requests own duplicates of derived datatypes, so the
 * program may free its own after the call returns. */
#ifndef NH_ENGINE_H
#define NH_ENGINE_H

#include "plan/plan.h"

/* Tag slots: blocking calls use slot 0, nonblocking and persistent ones
 * slots 1..NH_SLOTS-1 in creation order (see exec/request.c). */
#define NH_SLOTS 16

typedef struct nh_bind nh_bind;

/* How the engine frames and addresses a call's messages. */
typedef struct nh_bind_opts {
    nh_binding kind; /* multi-block sized messages: AUTO (packed up to the eager limit, else a
                        struct), PACK, ZCOPY; EACH: a message per block (both ends alike) */
    int header;      /* header framing (sizes unknown at the receiver) */
    int model;       /* typed temps: 0 a receive block (regular calls), 1 the local block of
                        the temp's template entry (v/w calls under the promise) */
} nh_bind_opts;

/* The engine's state per plan (nh_plan_ext): its cache of bindings for
 * predefined types (engine.c) and the count of nonblocking and persistent
 * operations created, which numbers their tag slots (request.c).  NULL
 * where memory ran out. */
typedef struct nh_exec_state {
    nh_bind *bcache;
    unsigned long seq;
    long built; /* bindings made for p's calls, cached or not (the report) */
} nh_exec_state;
nh_exec_state *nh_exec_state_of(nh_plan *p);
/* How many bindings p's calls have made so far. */
long nh_exec_built(nh_plan *p);
/* Frees p's cached bindings that no outstanding operation uses (the
 * learning, once it has chosen: the other candidates' temporary buffers
 * go). */
void nh_exec_forget_idle(nh_plan *p);

/* One block of a call. */
typedef struct nh_desc {
    char *addr; /* buffer + displacement (MPI_BOTTOM-relative addresses stay as given) */
    int count;
    MPI_Datatype type;
    size_t bytes; /* count * type size */
    int contig;   /* the packed form is the memory image (memcpy moves it) */
} nh_desc;

/* A call's arguments.  Send slot i is the user's destination index i
 * (allgather forms: the one send block, slot 0), receive slot j the
 * user's source index j. */
typedef struct nh_call {
    nh_op op;
    int vec; /* per-block descriptors (v and w forms) */
    /* regular */
    const void *sbuf;
    void *rbuf;
    int scount, rcount;
    MPI_Datatype stype, rtype;
    size_t sbytes, rbytes; /* bytes of one send and one receive block */
    /* per block */
    int ns, nr;
    nh_desc *s, *r;
    int named; /* every type is predefined (a binding may be cached) */
} nh_call;

/* The packed form of a type is its memory image (predefined without gaps,
 * or contiguous/dup of such a type). */
int nh_type_contig(MPI_Datatype t);
int nh_type_named(MPI_Datatype t);

typedef struct nh_bind nh_bind;

/* One execution of a schedule on bound buffers. */
typedef struct nh_run {
    nh_plan *p;
    nh_bind *b;
    int owned; /* the binding belongs to this run */
    int slot;  /* tag slot */
    int ph;    /* current phase; == nphases when complete or not started */
    int posted, nreq, pending;
    int nalt; /* split routes' messages in flight (posted with phase 0, waited for last) */
    int uerr; /* first error of this rank's own blocks (the run goes on, see engine.c) */
} nh_run;

/* Binds a call (persistent: a private binding with MPI persistent
 * requests for sized messages, built once; held: the binding outlives the
 * call, so it owns duplicates of derived datatypes). */
int nh_run_bind(nh_run *x, nh_plan *p, const nh_sched *s, const nh_call *c, const nh_bind_opts *o,
                int held, int persistent, int slot);
/* Starts from phase 0 and makes what progress is possible without blocking. */
int nh_run_start(nh_run *x, int *done);
/* Advances; block=1 waits until complete.  *done tells whether it is. */
int nh_run_progress(nh_run *x, int block, int *done);
void nh_run_release(nh_run *x);
/* Phases of this rank's binding that move messages. */
int nh_run_msg_phases(const nh_run *x);
/* Some message of the binding is a struct datatype (zero copy). */
int nh_run_zcopy(const nh_run *x);
/* Bind, start, wait, release, in tag slot 0.  *zcopy: some message was a
 * struct datatype. */
int nh_run_blocking(nh_plan *p, const nh_sched *s, const nh_call *c, const nh_bind_opts *o,
                    int *zcopy);

#endif
