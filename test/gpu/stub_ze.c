/* A stand-in for Level Zero's loader in nhood's tests (stub.h): built as
 * test/gpu/stub/libze_loader.so.1.  zeInit (the program's, nhstub_start(1))
 * starts the driver, which opens a render node
 * (<NHOOD_GPU_DEV_DIR>/dri/renderD128) as Intel's GPU driver does; any
 * other call before it counts as early.  Memory cannot be asked about
 * without the program's context, so nhood never asks; the table is the
 * tests' record only. */
#include "stub.h"

enum { ZE_RESULT_SUCCESS = 0, ZE_RESULT_ERROR_UNINITIALIZED = 0x78000001 };

static int started;

static void start(void)
{
    if (!__atomic_exchange_n(&started, 1, __ATOMIC_ACQ_REL))
        stub_open_node("dri/renderD128");
}

EXPORT int zeInit(unsigned flags)
{
    (void)flags;
    start();
    return ZE_RESULT_SUCCESS;
}

/* Not through zeInit: where the MPI library itself links Level Zero's
 * loader (MPICH 5 on Debian sid), that name binds to the real one. */
EXPORT void nhstub_start(int on)
{
    if (on)
        start();
}

EXPORT int zeDriverGet(unsigned *count, void **drivers)
{
    (void)drivers;
    if (!__atomic_load_n(&started, __ATOMIC_ACQUIRE)) {
        __atomic_add_fetch(&early, 1, __ATOMIC_RELAXED);
        return ZE_RESULT_ERROR_UNINITIALIZED;
    }
    *count = 0;
    return ZE_RESULT_SUCCESS;
}
