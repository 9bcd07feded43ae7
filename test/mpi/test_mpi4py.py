# A real MPI program in Python: mpi4py initializes MPI_THREAD_MULTIPLE by
# default.  A 3-D Moore neighborhood's alltoall and allgather, checked
# against what the MPI standard defines (offsets are listed in the same
# order as sources and destinations, so the k-th block comes from the k-th
# source's k-th block, duplicates included).  scripts/check-openmpi.sh
# runs it with nhood preloaded and checks the report.
from mpi4py import MPI
import array, sys
w = MPI.COMM_WORLD
r, p = w.Get_rank(), w.Get_size()
dims = MPI.Compute_dims(p, 3)
def rank_of(c):
    return (c[0] % dims[0]) * dims[1] * dims[2] + (c[1] % dims[1]) * dims[2] + (c[2] % dims[2])
me = [r // (dims[1] * dims[2]), (r // dims[2]) % dims[1], r % dims[2]]
offs = [(a, b, c) for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1) if (a, b, c) != (0, 0, 0)]
dst = [rank_of([me[0] + o[0], me[1] + o[1], me[2] + o[2]]) for o in offs]
src = [rank_of([me[0] - o[0], me[1] - o[1], me[2] - o[2]]) for o in offs]
g = w.Create_dist_graph_adjacent(src, dst)
n = len(offs)
send = [array.array('i', [r * 1000 + k] * 4) for k in range(n)]
got = g.neighbor_alltoall([s.tolist() for s in send])
want = [[src[k] * 1000 + k] * 4 for k in range(n)]
ok = got == want
got2 = g.neighbor_allgather(r)
ok = ok and got2 == src
tl = MPI.Query_thread()
bad = w.allreduce(0 if ok else 1)
if r == 0:
    print("mpi4py thread level %d, %s" % (tl, "ok" if bad == 0 else "FAILED on %d ranks" % bad))
sys.exit(0 if bad == 0 else 1)
