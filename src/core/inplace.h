/* In-place symmetric all-to-all: partner sequences (pure, no MPI).
 *
 * With MPI_IN_PLACE, MPI_Alltoall[v|w] exchange the same amount of data
 * between every pair, read from and written to the same place, so the
 * exchange is a series of pairwise swaps (MPI_Sendrecv_replace).  An
 * algorithm is the order in which each rank visits its partners; every
 * pair must be visited exactly once by both ends, in an order that cannot
 * deadlock with blocking swaps. */
#ifndef NH_INPLACE_H
#define NH_INPLACE_H

typedef enum {
    NH_INPLACE_AUTO = 0,
    NH_INPLACE_PMPI,
    NH_INPLACE_LSA,
    NH_INPLACE_HSA,
    NH_INPLACE_MPICH, /* MPICH's double loop, for the step model only */
    NH_INPLACE_COUNT
} nh_inplace_algo;

extern const char *const nh_inplace_names[NH_INPLACE_COUNT];

/* Partners of rank in visiting order (self excluded except for MPICH,
 * which swaps with itself); returns their number (<= 2p).  partners must
 * hold 2p entries. */
int nh_inplace_lsa(int p, int rank, int *partners);
int nh_inplace_hsa(int p, int rank, int *partners);
int nh_inplace_mpich(int p, int rank, int *partners);
int nh_inplace_partners(nh_inplace_algo a, int p, int rank, int *partners);

/* Runs blocking pairwise swaps of all ranks: a swap happens when two ranks
 * each have the other next, one step after the later of the two became
 * free.  Returns the number of consecutive steps, -1 if the sequences
 * deadlock, -2 if some pair is not swapped exactly once (self swaps
 * excepted), -3 on allocation failure. */
int nh_inplace_steps(nh_inplace_algo a, int p);

#endif
