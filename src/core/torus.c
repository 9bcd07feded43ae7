/* torus: the paper's 1-ported torus schedule.  Blocks hop between
 * immediate neighbors along each dimension in turn; in a step all blocks
 * moving the same way share one message.  Steps in the + and - direction of
 * a dimension are independent and run in the same phase, so a dimension
 * takes max(max c_j, max -c_j) phases and the total message count is the
 * paper's D = sum_j (max c_j + max -c_j); volume is V = sum_i |C_i|_1
 * blocks for alltoall, less for allgather (shared trie prefixes). */
#include "sched.h"

int nh_build_torus(const nh_nbhd *nb, nh_op op, nh_sched **out)
{
    return nh_build_dimwise(nb, op, 0, NH_ALGO_TORUS, out);
}
