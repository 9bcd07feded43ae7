/* MPI_Pack / MPI_Unpack for blocks that may sit at MPI_BOTTOM.
 *
 * A block of a call whose buffer is MPI_BOTTOM (absolute addresses in the
 * datatype, as Fortran programs use it) has the address NULL.  MPI allows
 * that, but MPICH 4.0.2's MPI_Pack and MPI_Unpack reject a NULL buffer
 * ("Null pointer in parameter inbuf").  Such a block is described instead
 * as one element of a struct type displaced by -1 from address 1: the same
 * bytes, a non-NULL buffer argument.  The temporary type lives for one
 * call only; this path is taken only for blocks at exactly MPI_BOTTOM. */
#include <stdint.h>

#include "util/util.h"

static int shifted(int count, MPI_Datatype type, MPI_Datatype *out)
{
    MPI_Aint disp = -1;
    int rc = nh_type_create_struct(1, &count, &disp, &type, out);
    if (!rc && (rc = nh_mpi_Type_commit(out)))
        nh_type_free(out);
    return rc;
}

int nh_pack(const void *in, int count, MPI_Datatype type, void *out, int outsize, int *pos,
            MPI_Comm comm)
{
    if (in != MPI_BOTTOM || count == 0)
        return nh_mpi_Pack(in, count, type, out, outsize, pos, comm);
    MPI_Datatype t;
    int rc = shifted(count, type, &t);
    if (rc)
        return rc;
    rc = nh_mpi_Pack((const void *)(uintptr_t)1, 1, t, out, outsize, pos, comm);
    nh_type_free(&t);
    return rc;
}

int nh_unpack(const void *in, int insize, int *pos, void *out, int count, MPI_Datatype type,
              MPI_Comm comm)
{
    if (out != MPI_BOTTOM || count == 0)
        return nh_mpi_Unpack(in, insize, pos, out, count, type, comm);
    MPI_Datatype t;
    int rc = shifted(count, type, &t);
    if (rc)
        return rc;
    rc = nh_mpi_Unpack(in, insize, pos, (void *)(uintptr_t)1, 1, t, comm);
    nh_type_free(&t);
    return rc;
}
