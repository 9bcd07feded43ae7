/* The interface between libnhood.so and libnhood-overlap.so, the library
 * of C library wrappers (allocation, I/O on user buffers, SIGSEGV
 * handlers) that NHOOD_OVERLAP needs and nothing else does (hooks.c).
 * nhood-run preloads it only when NHOOD_OVERLAP is report or defer, so
 * libnhood.so itself defines none of the C library's names.  The wrapper
 * library finds these in the process (dlsym) when it starts and calls
 * them (exported under nhood's prefix, declared nowhere public). */
#ifndef NH_OVERLAP_HOOKS_H
#define NH_OVERLAP_HOOKS_H

#include <signal.h>
#include <stddef.h>

/* The flag that is nonzero while a watch or deferred operation is
 * outstanding (read with an atomic load on every wrapped call). */
int *nhood_overlap_hook_live(void);
/* Ends every watch and deferred operation unless the calling thread is
 * inside nhood or MPI; what names the wrapped call ("malloc"). */
void nhood_overlap_hook_fence(const char *what);
/* sigaction for SIGSEGV while nhood's handler is in place: the program's
 * handler becomes the one nhood chains to; -1: not nhood's (inside nhood,
 * or no handler installed), the wrapper passes the call on. */
int nhood_overlap_hook_segv(const struct sigaction *act, struct sigaction *old);
/* The wrapper library says it is loaded; anchor: an address inside it
 * (defer mode checks at MPI_Init that the process's malloc is its). */
void nhood_overlap_hook_register(const void *anchor);

#endif
