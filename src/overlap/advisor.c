/* The overlap advisor's figures: per call site (the caller's return
 * address and the operation), what the watches and deferred operations
 * measured, and at MPI_Finalize rank 0's table on stderr and, with
 * NHOOD_OVERLAP_CSV, as CSV:
 *   site,op,calls,call_us,window_us,first_touch,bound_us
 * call_us is the mean time in the call (nonblocking: in the completion
 * call that finished it), window_us the mean time from completion to the
 * first access (or to the next MPI, allocation or I/O call, which ends a
 * watch first), first_touch where the most watches ended, and bound_us =
 * min(window_us, call_us) x watched calls: what completing at the first
 * access could have saved at most.  Under defer, where calls return at
 * once, call_us is what completion still waited and window_us how long
 * the program ran on before it needed the data.  Sites are symbolized with libdw
 * where it is built in (function+offset and file:line), else dladdr. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_LIBDW
#include <elfutils/libdwfl.h>
#endif

#include "nhood.h"
#include "overlap/ov_int.h"

#define NSITES 256
#define NTOUCH 4

typedef struct touch {
    void *pc;
    const char *what;
    long n;
} touch;

typedef struct site {
    void *addr; /* NULL: free */
    const char *op;
    int foreign; /* -1 not yet known */
    long calls, watched, deferred, faults, waits;
    long skipped[NH_OV_WHY_COUNT];
    double call_sum, window_sum, wait_sum;
    touch t[NTOUCH];
} site;

static site sites[NSITES]; /* no allocation: fences run inside malloc's hook */

int nh_ov_site(void *addr, const char *op)
{
    size_t h = ((size_t)addr >> 2) * 2654435761u;
    for (int k = 0; k < NSITES; k++) {
        site *s = &sites[(h + (size_t)k) % NSITES];
        if (!s->addr) {
            s->addr = addr;
            s->op = op;
            s->foreign = -1;
        }
        if (s->addr == addr && s->op == op) {
            s->calls++;
            return (int)(s - sites);
        }
    }
    return -1; /* full: the call is neither watched nor deferred */
}

void nh_ov_site_skip(int i, nh_ov_why why)
{
    if (i >= 0)
        sites[i].skipped[why]++;
}

int nh_ov_site_foreign(int i)
{
    site *s = &sites[i];
    if (s->foreign < 0) {
        Dl_info at, self;
        s->foreign = 0;
        if (dladdr(s->addr, &at) && dladdr((void *)nh_ov_site_foreign, &self)) {
            const char *f = at.dli_fname ? at.dli_fname : "";
            s->foreign = at.dli_fbase == self.dli_fbase || strstr(f, "fort") ||
                         strstr(f, "mpifh") || strstr(f, "usempi");
        }
    }
    return s->foreign;
}

void nh_ov_site_harvest(const nh_ov_slot *sl)
{
    if (sl->site < 0)
        return;
    site *s = &sites[sl->site];
    double window = (sl->t_touch - sl->t_armed) * 1e6;
    if (sl->deferred)
        s->deferred++;
    else
        s->watched++;
    s->call_sum += sl->call_us;
    s->window_sum += window > 0 ? window : 0;
    if (sl->wait_us >= 0) {
        s->waits++;
        s->wait_sum += sl->wait_us;
    }
    s->faults += sl->touch_pc != NULL;
    for (int k = 0; k < NTOUCH; k++) {
        touch *t = &s->t[k];
        if (t->n == 0) {
            t->pc = sl->touch_pc;
            t->what = sl->touch_what;
        }
        if (t->pc == sl->touch_pc && t->what == sl->touch_what) {
            t->n++;
            return;
        }
    }
}

__attribute__((visibility("default"))) int nhood_overlap_query(nhood_overlap_counts *c)
{
    memset(c, 0, sizeof(*c));
    for (int i = 0; i < NSITES; i++) {
        c->deferred += sites[i].deferred;
        c->done_at_start += sites[i].skipped[NH_OV_WHY_DONE];
        c->watched += sites[i].watched;
        c->faults += sites[i].faults;
    }
    return MPI_SUCCESS;
}

/* ---- symbols ---- */

#ifdef HAVE_LIBDW
static Dwfl *dw;

static void dw_open(void)
{
    static const Dwfl_Callbacks cb = {.find_elf = dwfl_linux_proc_find_elf,
                                      .find_debuginfo = dwfl_standard_find_debuginfo};
    dw = dwfl_begin(&cb);
    if (!dw)
        return;
    dwfl_report_begin(dw);
    if (dwfl_linux_proc_report(dw, getpid()) != 0 || dwfl_report_end(dw, NULL, NULL) != 0) {
        dwfl_end(dw);
        dw = NULL;
    }
}

static int dw_name(void *pc, int ret, char *buf, size_t len)
{
    if (!dw)
        return -1;
    Dwarf_Addr q = (Dwarf_Addr)pc - (ret ? 1 : 0); /* a return address: the call's line */
    Dwfl_Module *m = dwfl_addrmodule(dw, q);
    GElf_Off off;
    GElf_Sym sym;
    const char *name = m ? dwfl_module_addrinfo(m, q, &off, &sym, NULL, NULL, NULL) : NULL;
    if (!name)
        return -1;
    int n = snprintf(buf, len, "%s+0x%lx", name, (unsigned long)off + (ret ? 1 : 0));
    Dwfl_Line *l = dwfl_module_getsrc(m, q);
    int line = 0;
    const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
    if (file && n > 0 && (size_t)n < len) {
        const char *b = strrchr(file, '/');
        snprintf(buf + n, len - (size_t)n, " (%s:%d)", b ? b + 1 : file, line);
    }
    return 0;
}
#else
static void dw_open(void)
{
}

static int dw_name(void *pc, int ret, char *buf, size_t len)
{
    (void)pc, (void)ret, (void)buf, (void)len;
    return -1;
}
#endif

static void name_of(void *pc, int ret, char *buf, size_t len)
{
    Dl_info d;
    if (dw_name(pc, ret, buf, len) == 0)
        return;
    if (dladdr(pc, &d) && d.dli_sname)
        snprintf(buf, len, "%s+0x%lx", d.dli_sname,
                 (unsigned long)((char *)pc - (char *)d.dli_saddr));
    else if (dladdr(pc, &d) && d.dli_fname) {
        const char *b = strrchr(d.dli_fname, '/');
        snprintf(buf, len, "%s+0x%lx", b ? b + 1 : d.dli_fname,
                 (unsigned long)((char *)pc - (char *)d.dli_fbase));
    } else
        snprintf(buf, len, "%p", pc);
}

static const touch *first_touch(const site *s)
{
    const touch *best = NULL;
    for (int k = 0; k < NTOUCH; k++)
        if (s->t[k].n && (!best || s->t[k].n > best->n))
            best = &s->t[k];
    return best;
}

static void touch_name(const touch *t, char *buf, size_t len)
{
    if (!t)
        snprintf(buf, len, "-");
    else if (t->pc)
        name_of(t->pc, 0, buf, len);
    else
        snprintf(buf, len, "%s", t->what ? t->what : "?");
}

static const char *const why_names[NH_OV_WHY_COUNT] = {
    "", "small", "stack", "fortran", "layout", "mprotect", "slots", "done_at_start", "gpu"};

void nh_ov_report(void)
{
    FILE *csv = NULL;
    if (nh_world_rank != 0)
        return;
    if (nh_cfg.overlap_csv && !(csv = fopen(nh_cfg.overlap_csv, "w")))
        nh_warn("NHOOD_OVERLAP_CSV: cannot write %s", nh_cfg.overlap_csv);
    if (csv)
        fprintf(csv, "site,op,calls,call_us,window_us,first_touch,bound_us\n");
    dw_open();
    nh_log_line("nhood: overlap mode=%s (rank 0; times in us)\n",
                nh_cfg.overlap == NH_OVERLAP_DEFER ? "defer" : "report");
    nh_log_line("nhood: overlap %-36s %-20s %7s %9s %9s %-28s %10s %s\n", "site", "op", "calls",
                "call_us", "window_us", "first_touch", "bound_us", "notes");
    for (int i = 0; i < NSITES; i++) {
        const site *s = &sites[i];
        if (!s->addr)
            continue;
        char where[256], first[256], notes[256];
        name_of(s->addr, 1, where, sizeof(where));
        touch_name(first_touch(s), first, sizeof(first));
        long n_ended = s->watched + s->deferred;
        double call = n_ended ? s->call_sum / (double)n_ended : 0;
        double window = n_ended ? s->window_sum / (double)n_ended : 0;
        double bound = (window < call ? window : call) * (double)s->watched;
        int n = snprintf(notes, sizeof(notes), "watched=%ld deferred=%ld faults=%ld", s->watched,
                         s->deferred, s->faults);
        if (s->waits)
            n += snprintf(notes + n, sizeof(notes) - (size_t)n, " start_to_wait_us=%.1f",
                          s->wait_sum / (double)s->waits);
        for (int w = 1; w < NH_OV_WHY_COUNT; w++)
            if (s->skipped[w] && (size_t)n < sizeof(notes))
                n += snprintf(notes + n, sizeof(notes) - (size_t)n, " skipped_%s=%ld",
                              why_names[w], s->skipped[w]);
        nh_log_line("nhood: overlap %-36s %-20s %7ld %9.1f %9.1f %-28s %10.1f %s\n", where, s->op,
                    s->calls, call, window, first, bound, notes);
        if (csv)
            fprintf(csv, "%s,%s,%ld,%.2f,%.2f,%s,%.2f\n", where, s->op, s->calls, call, window,
                    first, bound);
    }
    if (csv)
        fclose(csv);
}
