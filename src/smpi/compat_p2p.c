/* SMPI build only (make smpi): point-to-point and error-handling pieces
 * SMPI 3.32 lacks or gets wrong, which nhood uses (src/smpi/compat.c has
 * the topologies and the linear neighborhood collectives; the same linking
 * rules apply: these PMPI_* definitions take the place of SMPI's). */
#include <dlfcn.h>
#include <stdlib.h>

#include <mpi.h>

/* SMPI 3.32 lacks matched probes, which nhood's store-and-forward uses to
 * receive messages of unknown length.  Here a matched probe is a probe
 * that remembers the message's source and tag, and the matched receive
 * receives from that source with that tag: MPI's non-overtaking order
 * makes it the probed message as long as no other receive for that source
 * and tag comes in between, which holds on nhood's private communicators
 * (single-threaded, one operation at a time per tag). */
typedef struct matched {
    int source, tag;
    MPI_Comm comm;
} matched;

/* The matched message of a successful probe (status st). */
static int remember(const MPI_Status *st, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    matched *m = malloc(sizeof(*m));
    if (!m)
        return MPI_ERR_NO_MEM;
    m->source = st->MPI_SOURCE;
    m->tag = st->MPI_TAG;
    m->comm = comm;
    *message = m;
    if (status != MPI_STATUS_IGNORE)
        *status = *st;
    return MPI_SUCCESS;
}

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    MPI_Status st;
    int rc = PMPI_Probe(source, tag, comm, &st);
    return rc ? rc : remember(&st, comm, message, status);
}

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    MPI_Status st;
    int rc = PMPI_Iprobe(source, tag, comm, flag, &st);
    return rc || !*flag ? rc : remember(&st, comm, message, status);
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Status *status)
{
    matched *m = *message;
    if (!m)
        return MPI_ERR_REQUEST;
    int rc = PMPI_Recv(buf, count, datatype, m->source, m->tag, m->comm, status);
    free(m);
    *message = NULL;
    return rc;
}

/* SMPI 3.32 crashes when MPI_Comm_call_errhandler meets a predefined
 * handler (it calls the handler's null function pointer); nhood calls it
 * for every failed collective.  Predefined handlers are applied here, user
 * handlers go to SMPI. */
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int rc = PMPI_Comm_get_errhandler(comm, &eh);
    if (rc)
        return rc;
    if (eh == MPI_ERRORS_RETURN)
        return MPI_SUCCESS;
    if (eh == MPI_ERRHANDLER_NULL || eh == MPI_ERRORS_ARE_FATAL)
        return PMPI_Abort(comm, errorcode);
    int (*smpi_call)(MPI_Comm, int) =
        (int (*)(MPI_Comm, int))dlsym(RTLD_DEFAULT, "PMPI_Comm_call_errhandler");
    rc = smpi_call && smpi_call != PMPI_Comm_call_errhandler ? smpi_call(comm, errorcode)
                                                             : PMPI_Abort(comm, errorcode);
    PMPI_Errhandler_free(&eh);
    return rc;
}
