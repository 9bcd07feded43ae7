/* Simulation only (make smpi builds it; scripts/nhood-sim preloads it into
 * the simulator): takes a quadratic walk out of SimGrid 3.32's kernel.
 *
 * SimGrid keeps every detached communication (SMPI's eager sends) in one
 * engine-wide std::list, maestro's activities_, and CommImpl::finish takes
 * each out with std::list::remove, a walk of the whole list.  With MPI's
 * own neighborhood exchange at 16,384 ranks, 425,984 messages are in flight
 * at once and that walk was 87 % of the simulation's time.  Nothing
 * simulated depends on it: the list only keeps the messages alive.
 *
 * This library interposes the two exported members that touch the list:
 *  - CommImpl::detach(): after SimGrid's own, records the list node it
 *    appended (a hash table from the communication to its node);
 *  - CommImpl::finish(): unlinks that node itself, hides the rest of the
 *    list while SimGrid's own finish() runs (its remove() then walks an
 *    empty list), puts it back, and only then drops the reference the node
 *    held (later than SimGrid would: never too early).  SimGrid calls
 *    finish() again each time an MPI_Wait* tests a finished message; those
 *    calls walked the whole list too, and now walk nothing.
 * Simulated times are unchanged (docs/simulation.md compares them).
 *
 * It knows the layouts of the Debian build of SimGrid 3.32 (the offsets
 * below, read from CommImpl::detach's code) and checks them: only on
 * SimGrid 3.32, and only after the first detach() is seen to have appended
 * its communication where the offsets say.  Otherwise it stays out of the
 * way and SimGrid runs as it would alone.  It links against nothing but the
 * C library: everything of SimGrid's is found with dlsym at the first
 * call, so other programs that inherit the preload are untouched. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* libstdc++'s std::__cxx11::list<boost::intrusive_ptr<ActivityImpl>>: a
 * node is {next, prev, value}; the list's header is {next, prev, size}. */
typedef struct node {
    struct node *next, *prev;
    void *val;
} node;
typedef struct {
    node *next, *prev;
    size_t size;
} list_head;

enum {
    ENGINE_PIMPL = 0,       /* s4u::Engine::pimpl_ (EngineImpl *) */
    ENGINE_MAESTRO = 0x1d0, /* EngineImpl::maestro_ (ActorImpl *) */
    ACTOR_ACTIVITIES = 0xc0 /* ActorImpl::activities_ */
};

#define SYM_DETACH "_ZN7simgrid6kernel8activity8CommImpl6detachEv"
#define SYM_FINISH "_ZN7simgrid6kernel8activity8CommImpl6finishEv"

void *sg_detach(void *comm) __asm__(SYM_DETACH);
void sg_finish(void *comm) __asm__(SYM_FINISH);

static void *(*real_detach)(void *);
static void (*real_finish)(void *);
static void *(*engine_instance)(void);
static void (*activity_release)(void *);
static void (*node_delete)(void *, size_t);
static int state;    /* 0: not yet, 1: on, -1: off (SimGrid alone) */
static int verified; /* a detach() appended where the offsets say */
static int depth;
static unsigned long indexed, hidden; /* said at exit, into the simulation's log */

static void stats(void)
{
    if (state == 1)
        fprintf(stderr,
                "nhood-sgfast: %lu eager messages indexed, %lu finish() calls walked nothing\n",
                indexed, hidden);
}

/* Communication -> its node: open addressing, linear probing, deletion by
 * shifting back (no tombstones). */
static struct slot {
    void *key;
    node *n;
} * tab;
static size_t cap, used;

static size_t slot_of(const void *k)
{
    uint64_t h = (uint64_t)(uintptr_t)k * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 17) & (cap - 1);
}

static int grow(void)
{
    size_t old = cap;
    struct slot *o = tab;
    cap = cap ? 2 * cap : 1024;
    if (!(tab = calloc(cap, sizeof(*tab)))) {
        tab = o;
        cap = old;
        return -1;
    }
    for (size_t i = 0; i < old; i++)
        if (o[i].key) {
            size_t j = slot_of(o[i].key);
            while (tab[j].key)
                j = (j + 1) & (cap - 1);
            tab[j] = o[i];
        }
    free(o);
    return 0;
}

static int put(void *k, node *n)
{
    if (4 * (used + 1) > 3 * cap && grow())
        return -1;
    size_t i = slot_of(k);
    while (tab[i].key && tab[i].key != k)
        i = (i + 1) & (cap - 1);
    used += !tab[i].key;
    tab[i].key = k;
    tab[i].n = n;
    return 0;
}

static node *take(void *k)
{
    if (!cap)
        return NULL;
    size_t i = slot_of(k);
    while (tab[i].key != k) {
        if (!tab[i].key)
            return NULL;
        i = (i + 1) & (cap - 1);
    }
    node *n = tab[i].n;
    used--;
    /* shift back the entries of the run that follows */
    for (size_t j = (i + 1) & (cap - 1); tab[j].key; j = (j + 1) & (cap - 1)) {
        size_t h = slot_of(tab[j].key);
        if (((j - h) & (cap - 1)) >= ((j - i) & (cap - 1))) {
            tab[i] = tab[j];
            i = j;
        }
    }
    tab[i].key = NULL;
    return n;
}

static void off(const char *why)
{
    if (state == 1 || state == 0)
        fprintf(stderr, "nhood-sgfast: off (%s): SimGrid runs as it is\n", why);
    state = -1;
}

static void init(void)
{
    int major = 0, minor = 0, patch = 0;
    void (*version)(int *, int *, int *) =
        (void (*)(int *, int *, int *))dlsym(RTLD_DEFAULT, "sg_version_get");
    real_detach = (void *(*)(void *))dlsym(RTLD_NEXT, SYM_DETACH);
    real_finish = (void (*)(void *))dlsym(RTLD_NEXT, SYM_FINISH);
    engine_instance =
        (void *(*)(void))dlsym(RTLD_DEFAULT, "_ZN7simgrid3s4u6Engine12get_instanceEv");
    activity_release = (void (*)(void *))dlsym(
        RTLD_DEFAULT, "_ZN7simgrid6kernel8activity21intrusive_ptr_releaseEPNS1_12ActivityImplE");
    node_delete = (void (*)(void *, size_t))dlsym(RTLD_DEFAULT, "_ZdlPvm");
    if (!real_detach || !real_finish) {
        fprintf(stderr, "nhood-sgfast: SimGrid's CommImpl not found\n");
        abort(); /* nothing to forward to: cannot happen inside SimGrid */
    }
    state = 1;
    atexit(stats);
    if (!version || !engine_instance || !activity_release || !node_delete)
        off("a SimGrid or C++ symbol is missing");
    else if ((version(&major, &minor, &patch), major != 3 || minor != 32))
        off("not SimGrid 3.32");
}

static list_head *maestro_list(void)
{
    char *engine = engine_instance();
    char *impl = *(char **)(engine + ENGINE_PIMPL);
    char *maestro = *(char **)(impl + ENGINE_MAESTRO);
    return (list_head *)(maestro + ACTOR_ACTIVITIES);
}

void *sg_detach(void *comm)
{
    if (!state)
        init();
    void *r = real_detach(comm);
    if (state == 1) {
        list_head *l = maestro_list();
        node *last = l->prev;
        if (last == (node *)l || last->val != comm)
            off("the engine's list is not where SimGrid 3.32 keeps it");
        else if (put(comm, last))
            off("out of memory");
        else
            verified = 1, indexed++;
    }
    return r;
}

void sg_finish(void *comm)
{
    if (!state)
        init();
    /* While on (and the list found), every detached communication in the list is in the table:
     * one that is not (finished before, or never detached) is not in the
     * list, and SimGrid's walk would find nothing.  finish() is called
     * again at each MPI_Wait*'s test of a finished message. */
    node *n = take(comm);
    if (!n && !(state == 1 && verified)) {
        real_finish(comm);
        return;
    }
    if (depth++) {
        fprintf(stderr, "nhood-sgfast: CommImpl::finish re-entered\n");
        abort(); /* SimGrid 3.32 never does; the hidden list would be lost */
    }
    list_head *l = maestro_list();
    hidden++;
    if (n) {
        n->prev->next = n->next;
        n->next->prev = n->prev;
        l->size--;
    }
    /* hide the list from SimGrid's finish(): its remove() walks nothing */
    node *first = l->next, *last = l->prev;
    size_t size = l->size;
    l->next = l->prev = (node *)l;
    l->size = 0;
    real_finish(comm);
    if (size) { /* put it back, before anything finish() appended */
        last->next = l->next;
        l->next->prev = last;
        first->prev = (node *)l;
        l->next = first;
        l->size += size;
    }
    depth--;
    if (n) {
        node_delete(n, sizeof(*n));
        activity_release(comm); /* the reference the node held */
    }
}
