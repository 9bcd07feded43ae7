#!/usr/bin/env python3
"""Bytes a box halo sends off its busiest node, by route.

A 3-D Moore stencil's halo on a non-periodic grid (n^2, n and 1 doubles per
face, edge and corner direction), ranks placed in blocks of PPN consecutive
ranks per node (row-major grid, the last dimension fastest, as
MPI_Dims_create and the simulations lay it out).  For each way of routing
the blocks it prints the most bytes one node sends off it and the mean over
nodes:

  straight          every block its own message (MPI's own exchange)
  corners           corners forwarded dimension by dimension (split torus,
                    as nhood routes a box halo at n = 32 on the simulated
                    dragonfly: faces and edges straight)
  edges+corners     edges and corners forwarded (faces straight)

A forwarded block crosses a node boundary on each hop that leaves a node,
where its own message crosses once at most.  docs/simulation.md uses it to
explain the box halo at 4096 ranks on the dragonfly.

Usage: box-node-bytes.py [--ppn 24] [--n 32] DIMS...   (e.g. 16 16 16)
"""
import argparse
import itertools


def node_bytes(dims, ppn, n, forward):
    """Most and mean bytes sent off a node; forward(k): whether a block of
    a direction with k nonzero coordinates is forwarded."""
    d = len(dims)

    def node(c):
        r = 0
        for j in range(d):
            r = r * dims[j] + c[j]
        return r // ppn

    out = {}

    def hop(a, b, size):
        if node(a) != node(b):
            out[node(a)] = out.get(node(a), 0) + size

    offsets = [o for o in itertools.product((-1, 0, 1), repeat=d) if any(o)]
    for c in itertools.product(*[range(x) for x in dims]):
        for o in offsets:
            t = tuple(c[j] + o[j] for j in range(d))
            if any(t[j] < 0 or t[j] >= dims[j] for j in range(d)):
                continue  # a wall: no such neighbor
            k = sum(1 for x in o if x)
            size = 8 * n ** (d - k)
            if not forward(k):
                hop(c, t, size)
                continue
            p = list(c)
            for j in range(d):
                if o[j]:
                    q = list(p)
                    q[j] += o[j]
                    hop(p, q, size)
                    p = q
    if not out:
        return 0, 0.0
    return max(out.values()), sum(out.values()) / len(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ppn", type=int, default=24)
    ap.add_argument("--n", type=int, default=32)
    ap.add_argument("dims", type=int, nargs="+")
    a = ap.parse_args()
    if a.ppn < 1 or a.n < 1 or any(x < 1 for x in a.dims):
        ap.error("--ppn, --n and the dimensions must be positive")
    d = len(a.dims)
    routes = [("straight", lambda k: False), ("corners", lambda k: k == d),
              ("edges+corners", lambda k: k >= 2)]
    base = None
    print("route,busiest_node_bytes,mean_node_bytes,busiest_vs_straight")
    for name, fwd in routes:
        most, mean = node_bytes(a.dims, a.ppn, a.n, fwd)
        base = base or most
        print(f"{name},{most},{mean:.0f},{most / base if base else 1:.4f}")


if __name__ == "__main__":
    main()
