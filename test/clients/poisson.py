# DOLFINx (Debian's python3-dolfinx, on Open MPI; mpi4py initializes
# MPI_THREAD_MULTIPLE): a P1 Poisson solve on the unit square, CG with
# Jacobi preconditioning, then repeated ghost scatters (DOLFINx moves
# ghost values with MPI_Ineighbor_alltoallv on a distributed-graph
# communicator).  Prints the iteration count and norms with 17 digits;
# scripts/check-clients.sh runs it with and without nhood and compares.
import sys
import numpy as np
import ufl
from mpi4py import MPI
from petsc4py import PETSc
from dolfinx import fem, mesh
from dolfinx.fem.petsc import LinearProblem

n = int(sys.argv[1]) if len(sys.argv) > 1 else 122
scatters = int(sys.argv[2]) if len(sys.argv) > 2 else 200
comm = MPI.COMM_WORLD
msh = mesh.create_unit_square(comm, n, n, mesh.CellType.triangle,
                              ghost_mode=mesh.GhostMode.shared_facet)
V = fem.FunctionSpace(msh, ("Lagrange", 1))
facets = mesh.locate_entities_boundary(msh, msh.topology.dim - 1,
                                       lambda x: np.full(x.shape[1], True))
bc = fem.dirichletbc(PETSc.ScalarType(0), fem.locate_dofs_topological(V, msh.topology.dim - 1, facets), V)
u, v = ufl.TrialFunction(V), ufl.TestFunction(V)
x = ufl.SpatialCoordinate(msh)
f = 10 * ufl.exp(-((x[0] - 0.5) ** 2 + (x[1] - 0.5) ** 2) / 0.02)
a = ufl.inner(ufl.grad(u), ufl.grad(v)) * ufl.dx
L = f * v * ufl.dx
problem = LinearProblem(a, L, bcs=[bc], petsc_options={
    "ksp_type": "cg", "pc_type": "jacobi", "ksp_rtol": 1e-10, "ksp_atol": 1e-14,
    "ksp_max_it": 10000})
uh = problem.solve()
its = problem.solver.getIterationNumber()
dofs = V.dofmap.index_map.size_global * V.dofmap.index_map_bs

# Ghost scatters: owners' values forward to the ghosts, then ghosts'
# contributions back (add), many times, as a time loop would.
w = fem.Function(V)
nown = V.dofmap.index_map.size_local
w.x.array[:nown] = uh.x.array[:nown]
for i in range(scatters):
    w.x.array[nown:] = 0.0
    w.x.scatter_forward()
ghosts_ok = np.array_equal(w.x.array, uh.x.array)
# Reverse: every rank's ghost copies add into their owners.
from dolfinx.la import ScatterMode
r = fem.Function(V)
for i in range(scatters // 10):
    r.x.array[:] = 0.0
    r.x.array[nown:] = 1.0
    r.x.scatter_reverse(ScatterMode.add)

def gnorm(arr):
    return np.sqrt(comm.allreduce(float(np.dot(arr[:nown], arr[:nown])), op=MPI.SUM))

l2 = gnorm(uh.x.array)
shared = gnorm(r.x.array)
energy = comm.allreduce(fem.assemble_scalar(fem.form(ufl.inner(ufl.grad(uh), ufl.grad(uh)) * ufl.dx)), op=MPI.SUM)
bad = comm.allreduce(0 if ghosts_ok else 1, op=MPI.SUM)
if comm.rank == 0:
    print("dofs %d" % dofs)
    print("cg_iterations %d" % its)
    print("l2 %.17g" % l2)
    print("energy %.17g" % energy)
    print("ghost_sum_norm %.17g" % shared)
    print("thread_level %d" % MPI.Query_thread())
    print("ghosts %s" % ("ok" if bad == 0 else "WRONG on %d ranks" % bad))
sys.exit(0 if bad == 0 else 1)
