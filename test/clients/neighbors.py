# A real MPI program in Python (Debian's python3-mpi4py and numpy on Open
# MPI; mpi4py initializes MPI_THREAD_MULTIPLE): the neighborhood
# collectives a halo exchange uses, on a Cartesian communicator, on a
# distributed graph (a 3-D Moore neighborhood, 26 neighbors), on a copy of
# the graph (MPI_Comm_dup), and an in-place MPI_Alltoallv, every result
# checked with numpy against the MPI standard's definition.
# scripts/check-clients.sh runs it with nhood preloaded and checks the report.
import sys
import numpy as np
from mpi4py import MPI

w = MPI.COMM_WORLD
r, p = w.Get_rank(), w.Get_size()
dims = MPI.Compute_dims(p, 3)
reps = 20
failures = []


def check(name, got, want):
    if not np.array_equal(got, want):
        failures.append(name)


def coords(rank):
    return [rank // (dims[1] * dims[2]), (rank // dims[2]) % dims[1], rank % dims[2]]


def rank_of(c):
    return (c[0] % dims[0]) * dims[1] * dims[2] + (c[1] % dims[1]) * dims[2] + (c[2] % dims[2])


def block(src, values):
    """What a receive block holds: the values, or the fill when the source is MPI_PROC_NULL."""
    return np.full(len(values), -1) if src == MPI.PROC_NULL else values


def exercise(comm, name, srcs, dsts, back):
    """srcs[k] sends its block back[k] to this rank's receive block k."""
    n = len(dsts)
    m = 6  # doubles per block of the fixed-size operations
    for t in range(reps):
        # Neighbor_alltoall: block k of rank s is s*1e4 + k*100 + t.
        send = np.empty((n, m))
        for k in range(n):
            send[k] = r * 1e4 + k * 100 + t + np.arange(m) / 8
        recv = np.full((len(srcs), m), -1.0)
        comm.Neighbor_alltoall(send, recv)
        want = np.array([block(s, s * 1e4 + back[k] * 100 + t + np.arange(m) / 8) for k, s in enumerate(srcs)])
        check(name + " Neighbor_alltoall", recv, want)

        # Neighbor_allgather: every rank's one block to all its neighbors.
        mine = r * 1e4 + t + np.arange(m) / 8
        got = np.full((len(srcs), m), -1.0)
        comm.Neighbor_allgather(mine, got)
        check(name + " Neighbor_allgather", got,
              np.array([block(s, s * 1e4 + t + np.arange(m) / 8) for s in srcs]))

        # Neighbor_alltoallv and Ineighbor_alltoallv: block k of rank s
        # holds 1 + (s + k + t) % 5 ints, packed in reverse order with gaps.
        def cnt(s, k):
            return 1 + (s + k + t) % 5
        scnt = np.array([cnt(r, k) for k in range(n)], dtype='i')
        sdis = np.zeros(n, dtype='i')
        off = 0
        for k in reversed(range(n)):
            sdis[k] = off
            off += scnt[k] + 1
        sbuf = np.full(off, -7, dtype='i')
        for k in range(n):
            sbuf[sdis[k]:sdis[k] + scnt[k]] = r * 10000 + k * 100 + t + np.arange(scnt[k])
        rcnt = np.array([cnt(s, back[k]) for k, s in enumerate(srcs)], dtype='i')
        rdis = np.concatenate(([0], np.cumsum(rcnt)[:-1])).astype('i')
        want = np.concatenate([block(s, s * 10000 + back[k] * 100 + t + np.arange(rcnt[k]))
                               for k, s in enumerate(srcs)]).astype('i')
        rbuf = np.full(int(rcnt.sum()), -1, dtype='i')
        comm.Neighbor_alltoallv([sbuf, (scnt, sdis), MPI.INT], [rbuf, (rcnt, rdis), MPI.INT])
        check(name + " Neighbor_alltoallv", rbuf, want)
        rbuf2 = np.full(int(rcnt.sum()), -1, dtype='i')
        req = comm.Ineighbor_alltoallv([sbuf, (scnt, sdis), MPI.INT], [rbuf2, (rcnt, rdis), MPI.INT])
        req.Wait()
        check(name + " Ineighbor_alltoallv", rbuf2, want)


# Cartesian: neighbors in MPI's order (for each dimension the one below,
# then the one above); what the one below sends upwards (its block 2d+1)
# lands in block 2d, and the other way round; MPI_PROC_NULL neighbors at a
# non-periodic edge leave their blocks untouched.  Periodic only where a
# dimension has more than 2 processes: Open MPI 4.1's nonblocking
# collectives get aliased neighbors (the same rank below and above) wrong
# (MPI_ERR_TRUNCATE in Ineighbor_alltoallv), and Cartesian communicators'
# own collectives go to MPI.
cdims = MPI.Compute_dims(p, 2)
cart = w.Create_cart(cdims, periods=[d > 2 for d in cdims])
csrc, cback = [], []
for d in range(2):
    lo, hi = cart.Shift(d, 1)
    csrc += [lo, hi]
    cback += [2 * d + 1, 2 * d]
exercise(cart, "cartesian", csrc, csrc, cback)

# Distributed graph: the 26 offsets of a 3-D Moore neighborhood, sources
# listed in the same order as destinations, so block k comes from the
# k-th source's block k (duplicate ranks on small grids included).
me = coords(r)
offs = [(a, b, c) for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1) if (a, b, c) != (0, 0, 0)]
dst = [rank_of([me[i] + o[i] for i in range(3)]) for o in offs]
src = [rank_of([me[i] - o[i] for i in range(3)]) for o in offs]
g = w.Create_dist_graph_adjacent(src, dst)
exercise(g, "graph", src, dst, list(range(len(offs))))
# Libraries duplicate the communicator they are given.
gd = g.Dup()
exercise(gd, "graph dup", src, dst, list(range(len(offs))))

# In-place MPI_Alltoallv on COMM_WORLD: symmetric counts (i to j as many
# as j to i); rank j's block for rank i holds j*1e4 + i*100 + t.
for t in range(reps):
    cnt = np.array([1 + (r + j + t) % 4 for j in range(p)], dtype='i')
    dis = np.concatenate(([0], np.cumsum(cnt)[:-1])).astype('i')
    buf = np.concatenate([r * 1e4 + j * 100 + t + np.arange(cnt[j]) for j in range(p)])
    w.Alltoallv(MPI.IN_PLACE, [buf, (cnt, dis), MPI.DOUBLE])
    want = np.concatenate([j * 1e4 + r * 100 + t + np.arange(cnt[j]) for j in range(p)])
    check("in-place Alltoallv", buf, want)

for c in (gd, g, cart):
    c.Free()
bad = w.allreduce(len(failures))
if failures:
    sys.stderr.write("rank %d: wrong %s\n" % (r, ", ".join(sorted(set(failures)))))
if r == 0:
    print("neighbors.py thread level %d, %s" % (MPI.Query_thread(), "ok" if bad == 0 else "FAILED (%d wrong)" % bad))
sys.exit(0 if bad == 0 else 1)
