/* torus_direct: like torus, but a block moves by its whole coordinate in
 * one message (direct sends along a dimension).  Rounds per dimension are
 * the distinct non-zero coordinate values, all in one phase; a block is
 * sent once per non-zero coordinate, so volume is sum_i nnz(C_i) blocks. */
#include "sched.h"

int nh_build_torus_direct(const nh_nbhd *nb, nh_op op, nh_sched **out)
{
    return nh_build_dimwise(nb, op, 1, NH_ALGO_TORUS_DIRECT, out);
}
