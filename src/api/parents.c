/* Points on a graph's parent: a cold graph that only nonblocking calls
 * use is analyzed, and nonblocking trials agree, at a blocking collective
 * on the communicator the graph was made from (docs/algorithms.md,
 * "Tiers" and "Learning").
 *
 * A nonblocking start is local: nhood must not wait there for another
 * rank, so no start analyzes a graph.  A blocking collective on the graph
 * is a place every rank is sure to be (api/points.c), but many programs
 * make none: their graph's calls are MPI_Ineighbor_* and their blocking
 * collectives are on the communicator the graph was made from (a
 * residual's MPI_Allreduce on MPI_COMM_WORLD).  A distributed graph has
 * its parent's group, so every rank of the graph takes part in each of
 * the parent's collectives, and every rank makes those in one order,
 * graph creations included.  At the parent's i-th blocking collective
 * every rank therefore holds the same records of the parent's
 * children, in creation order, and nhood may communicate there, on a
 * private duplicate of the parent.  A graph made from another
 * communicator of all ranks (a Cartesian grid of MPI_COMM_WORLD, a
 * library's duplicate of it) is recorded on MPI_COMM_WORLD as well, as
 * the program's blocking collectives on it are ordered with the creation
 * (a portable program orders its blocking collectives alike on every
 * rank, since any of them may synchronize); the first of the two points
 * that finds it ripe analyzes it.
 *
 * The ranks' calls on a child may differ there: a start is local, so one
 * rank may start two more before the collective and another the same two
 * after it.  At such a point the ranks reduce (MAX), per child: whether
 * some rank can no longer take part (the graph freed, a malformed hint
 * that the graph's own call reports, no plan),
 * whether some rank is past NHOOD_WARMUP calls, and the most calls any
 * rank has made.  The ranks analyze a child that is ripe together, over a
 * communicator of nhood's with the graph's ranks in its order
 * (MPI_Comm_split of the duplicate, keyed by the rank in the graph), and
 * every rank switches to the analysis at the same call, the one after
 * the most calls any rank had made; until then its calls stay cold, as
 * they were on the rank that had made them (plan/detect.c,
 * nh_plan_analyze_at).
 *
 * Analyzed (here, at its own point or at its creation), a child stays on
 * the record while it lives: its nonblocking trials wait for a point too
 * (select/settle.c), and these points serve them alike.  The same reduction carries whether some
 * rank's trials wait, how many sizes every rank has learned and the most
 * calls any rank has made since the analysis; where trials wait, the
 * ranks settle them over the graph's private communicator
 * (nh_autotune_settle_at), every rank switching at one call again.
 *
 * The reduction is one MPI_Allreduce of seven ints per child, made only
 * while the parent has children and only at the parent's points 1, 2, 4,
 * 8, ... counted since it last changed (a child analyzed, a size
 * decided), and at the next point while trials run or wait (64 in a row
 * at most): a graph never used costs its parent log2(points) reductions.
 * A child made restarts the count, its first reduction at the parent's
 * point `first' after it: 1, doubled (up to NH_PARENT_FIRST_MAX) by every
 * reduction that finds nothing to do (no child to analyze, no trials)
 * though a child was made since the last one, back to 1 at one that
 * analyzes a child or finds trials.  A program that rebuilds its graph
 * every step (made, used a few times, freed, a few collectives on the
 * parent) thus soon stops paying a reduction a step; a graph made after
 * such a phase waits at most NH_PARENT_FIRST_MAX points for its analysis,
 * its calls MPI's own meanwhile.  The reductions that a long-lived
 * graph's points make (1, 2, 4, ... since it was analyzed or decided)
 * leave `first' as it is, whatever they find: a graph made after it is
 * freed is analyzed at the first of its points 1, 2, 4, ... past its
 * warm-up.  A freed child's record stays until a reduction drops it,
 * which one rank cannot do alone (the ranks may free it on either side
 * of a point); so the parent reduces too once its records outnumber
 * twice those the last reduction kept, plus NH_PARENT_SLACK: a graph
 * made and freed costs its parent about 1/16 of a reduction, and the
 * records stay bounded.  Under MPI_THREAD_MULTIPLE another thread
 * may start calls on a graph while a point analyzes it, so there are no
 * parent points there. */
#include <limits.h>
#include <stdlib.h>

#include "api/api.h"
#include "nh_impl.h"
#include "util/resource.h"
#include "util/sync.h"

/* A graph on a parent's record.  p: its plan, NULL where the creation
 * made none here or the plan is gone (the plan's ties clear it as it is
 * freed: the record holds no reference, so a freed graph's plan and
 * private communicator go as soon as its requests do). */
typedef struct kid {
    nh_plan *p;
    MPI_Comm graph;
} kid;

/* A plan's records (its NH_EXT_PARENT state): on its parent and on
 * MPI_COMM_WORLD. */
typedef struct ties {
    kid *k[2];
} ties;

static void ties_fini(nh_plan *p, void *state)
{
    ties *t = state;
    (void)p;
    for (int i = 0; i < 2; i++)
        if (t->k[i])
            t->k[i]->p = NULL;
}

/* A parent's record, its attribute (not copied with it). */
typedef struct kids {
    MPI_Comm parent, priv; /* priv: made at the first reduction (own_priv), or nh_world_priv */
    int own_priv;
    kid **k;
    int n, cap;
    long points, next; /* the parent's points since it changed; the next to reduce at */
    int soon;          /* the next point reduces for a change or waiting trials */
    int waited;        /* reductions at consecutive points for waiting trials */
    int bound;         /* records that make a point reduce, whatever its count */
    int first;         /* a new child's first reduction, at the point after it */
    int fresh;         /* a child made since the last reduction */
    struct kids *prev, *nxt; /* every record (nh_parents_fini) */
} kids;

/* Points in a row that reduce while some child's trials run or wait,
 * before the reductions space out again (a size's first round and run-off
 * take about 60 calls). */
#define NH_PARENT_TRIES 64

/* Records of children a parent gathers beyond twice those it kept at its
 * last reduction before a point reduces for them alone. */
#define NH_PARENT_SLACK 16

/* The latest a new child's first reduction comes, in parent's points. */
#define NH_PARENT_FIRST_MAX 64

static int keyval = MPI_KEYVAL_INVALID;
static kids *records;
int nh_parents_live;

static void drop(kid *c)
{
    ties *t = c->p ? c->p->ext[NH_EXT_PARENT] : NULL;
    for (int i = 0; t && i < 2; i++)
        if (t->k[i] == c)
            t->k[i] = NULL;
    free(c);
}

static void changed(kids *r)
{
    r->points = 0;
    r->next = 1;
    r->soon = 1;
    r->waited = 0;
}

static int record_delete(MPI_Comm comm, int kv, void *attr, void *extra)
{
    kids *r = attr;
    (void)comm, (void)kv, (void)extra;
    for (int i = 0; i < r->n; i++)
        drop(r->k[i]);
    if (r->n)
        nh_parents_live--;
    if (r->own_priv)
        nh_comm_free(&r->priv);
    if (r->prev)
        r->prev->nxt = r->nxt;
    else
        records = r->nxt;
    if (r->nxt)
        r->nxt->prev = r->prev;
    free(r->k);
    free(r);
    return MPI_SUCCESS;
}

NH_HOT static kids *record_of(MPI_Comm parent)
{
    void *v;
    int flag = 0;
    /* the newest record first, without MPI (a program's graphs come from
     * one parent, mostly): a record leaves the list as its parent is
     * freed, so a listed parent's handle is that communicator's */
    if (records && records->parent == parent)
        return records;
    if (keyval == MPI_KEYVAL_INVALID || nh_mpi_Comm_get_attr(parent, keyval, &v, &flag) || !flag)
        return NULL;
    return v;
}

static int adopt(MPI_Comm parent, nh_plan *p, MPI_Comm graph)
{
    kids *r;
    int rc;
    if (keyval == MPI_KEYVAL_INVALID &&
        (rc = nh_mpi_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, record_delete, &keyval, NULL)))
        return rc;
    if (!(r = record_of(parent))) {
        if (!(r = calloc(1, sizeof(*r))))
            return MPI_ERR_NO_MEM;
        r->parent = parent;
        r->priv = MPI_COMM_NULL;
        r->bound = NH_PARENT_SLACK;
        r->first = 1;
        if ((rc = nh_mpi_Comm_set_attr(parent, keyval, r))) {
            free(r);
            return rc;
        }
        if ((r->nxt = records))
            records->prev = r;
        records = r;
    }
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 4;
        kid **k = realloc(r->k, (size_t)cap * sizeof(*k));
        if (!k)
            return MPI_ERR_NO_MEM;
        r->k = k;
        r->cap = cap;
    }
    kid *c = malloc(sizeof(*c));
    ties *t = p ? nh_plan_ext(p, NH_EXT_PARENT, sizeof(ties), ties_fini) : NULL;
    if (!c)
        return MPI_ERR_NO_MEM;
    *c = (kid){t ? p : NULL, graph}; /* (no ties: out of memory, recorded as gone) */
    if (t)
        t->k[t->k[0] ? 1 : 0] = c;
    if (!r->n)
        nh_parents_live++;
    r->k[r->n++] = c;
    r->fresh = 1;
    if (!r->soon) { /* the child's first reduction */
        r->points = 0;
        r->next = r->first;
    }
    return MPI_SUCCESS;
}

int nh_parents_adopt(MPI_Comm parent, nh_plan *p, MPI_Comm graph)
{
    int rc, n, w;
    if (nh_mt)
        return MPI_SUCCESS;
    if ((rc = adopt(parent, p, graph)) || nh_no_world || parent == MPI_COMM_WORLD)
        return rc;
    /* made from another communicator of all ranks (a Cartesian grid, a
     * library's duplicate): MPI_COMM_WORLD's collectives are its points too */
    if ((rc = nh_mpi_Comm_size(parent, &n)) || (rc = nh_mpi_Comm_size(MPI_COMM_WORLD, &w)))
        return rc;
    return n == w ? adopt(MPI_COMM_WORLD, p, graph) : MPI_SUCCESS;
}

/* Child c's analysis, every rank of the parent taking part (the split);
 * it stays on the record for its trials' agreements. */
static int analyze(kids *r, kid *c, int switch_at)
{
    MPI_Comm x = MPI_COMM_NULL;
    int rank, rc;
    if ((rc = nh_mpi_Comm_rank(c->graph, &rank)) || (rc = nh_comm_split(r->priv, 0, rank, &x)))
        return rc;
    nh_plan_analyze_at(c->p, c->graph, &x, switch_at); /* failed: its calls go to MPI */
    nh_report_analyzed(c->p);
    return x != MPI_COMM_NULL ? nh_comm_free(&x) : MPI_SUCCESS;
}

/* Per child at a reduction (all MAX): it cannot take part (freed, a
 * malformed hint, no plan); cold and past the warm-up; its cold calls;
 * analyzed, with sizes whose trials wait; with sizes on trial (or
 * decided, to apply); minus how many sizes it has learned; its calls
 * since the analysis. */
enum { GONE, RIPE, COLD_CALLS, WAITS, TRIALS, MINUS_SIZES, CALLS, WIDTH };

static void state(const kid *c, int *v)
{
    nh_plan *p = c->p;
    int bad = 0, calls, n;
    long pc;
    if (!p || p->released) {
        v[GONE] = 1;
    } else if (p->cold) { /* (calls < 0: analyzed here, its switch to come) */
        calls = nh_plan_cold_calls(p, &bad);
        v[GONE] = bad;
        v[RIPE] = !bad && calls > nh_cfg.warmup;
        v[COLD_CALLS] = calls > 0 ? calls : 0;
    } else if (p->pcomm != MPI_COMM_NULL) {
        int w = nh_autotune_point_state(p, &n, &pc);
        v[WAITS] = (w & NH_POINT_WAITS) != 0;
        v[TRIALS] = (w & NH_POINT_TRIALS) != 0;
        v[MINUS_SIZES] = -n;
        v[CALLS] = pc < INT_MAX ? (int)pc : INT_MAX;
    }
}

static int reduce(kids *r)
{
    int n = r->n, j = 0, rc, waits = 0, settled = 0;
    int *mine = calloc(2 * (size_t)n * WIDTH, sizeof(int)), *all = mine + WIDTH * n;
    if (!mine)
        return MPI_ERR_NO_MEM;
    if (r->priv == MPI_COMM_NULL) { /* MPI_COMM_WORLD's: nhood's own where it has one */
        if (r->parent == MPI_COMM_WORLD && nh_world_priv != MPI_COMM_NULL)
            r->priv = nh_world_priv;
        else if ((rc = nh_comm_dup(r->parent, &r->priv)))
            goto out;
        else
            r->own_priv = 1;
    }
    for (int i = 0; i < n; i++)
        state(r->k[i], mine + WIDTH * i);
    if ((rc = nh_mpi_Allreduce(mine, all, WIDTH * n, MPI_INT, MPI_MAX, r->priv)))
        goto out;
    nh_report_parent_reduction();
    for (int i = 0; i < n; i++) {
        kid *c = r->k[i];
        const int *a = all + WIDTH * i;
        int e = MPI_SUCCESS;
        if (a[GONE]) {
            drop(c);
            continue;
        }
        if (a[RIPE]) {
            e = analyze(r, c, a[COLD_CALLS] + 1);
            settled = 1;
        } else if (a[WAITS]) {
            int decided = 0;
            e = nh_autotune_settle_at(c->p, -a[MINUS_SIZES], (long)a[CALLS] + 1, &decided);
            settled |= decided > 0;
            waits = 1;
        }
        waits |= a[TRIALS];
        rc = rc ? rc : e;
        r->k[j++] = c;
    }
    if (settled) {
        changed(r);
    } else if (waits && r->waited++ < NH_PARENT_TRIES) {
        r->next = r->points + 1; /* trials running or incomplete: the next point too */
        r->soon = 1;
    }
    /* nothing to do though a child was made: the next child's first
     * reduction later (the creations are ordered with the points, so
     * `fresh' is alike on every rank) */
    if (settled || waits)
        r->first = 1;
    else if (r->fresh && r->first < NH_PARENT_FIRST_MAX)
        r->first *= 2;
    r->fresh = 0;
    if ((r->n = j) == 0)
        nh_parents_live--;
    r->bound = 2 * j + NH_PARENT_SLACK;
out:
    free(mine);
    return rc;
}

NH_HOT int nh_parents_point(MPI_Comm comm)
{
    kids *r = record_of(comm);
    if (!r || !r->n)
        return MPI_SUCCESS;
    int due = ++r->points >= r->next;
    if (!due && r->n < r->bound)
        return MPI_SUCCESS;
    if (due) /* (else its records' bound: the count goes on) */
        r->next = 2 * r->points;
    r->soon = 0;
    return reduce(r);
}

void nh_parents_fini(void)
{
    while (records) /* (its delete callback unlinks it) */
        if (nh_mpi_Comm_delete_attr(records->parent, keyval))
            record_delete(records->parent, keyval, records, NULL);
    if (keyval != MPI_KEYVAL_INVALID)
        nh_mpi_Comm_free_keyval(&keyval);
}
