"""The default case (cases/rotating_gaussian/case.xml) in DOLFINx, with fesim's scheme, for a
time per step to compare with fesim's on the same cores (issue 15, item 5).

The same Gmsh mesh (disk.geo meshed with Mesh.MeshSizeMax = 0.015, as fesim meshes it), P1,
and per step what fesim does (docs/numerics.md section 4): Strang splitting, half a diffusion
step with theta = 1/2, the RK4 advection step with a consistent-mass CG solve per stage (each
from the previous stage's rate, the first from zero), the other half diffusion step; Dirichlet
T = 0 on the rim (rows and columns out of the solved matrices, rates 0 there); CG with Jacobi,
||b - Ax|| <= max(1e-10 ||b||, 1e-14) on the true residual.  The matrices are assembled once
(PETSc AIJ), as fesim keeps its operators.  Prints the nodes, the iterations and the time per
step over the steps (assembly excluded), and the final error against the exact solution.

    OMP_NUM_THREADS=1 /usr/bin/python3 tools/bench/dolfinx_rotating_gaussian.py [STEPS]

Debian's python3-dolfinx (0.5.2) and python3-gmsh: apt-get install python3-dolfinx python3-gmsh.
"""
import sys
import time

import gmsh
import numpy as np
import ufl
from dolfinx import fem, mesh as dmesh
from dolfinx.fem.petsc import assemble_matrix
from dolfinx.io import gmshio
from mpi4py import MPI
from petsc4py import PETSc

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 629
dt, k, w, r0 = 0.01, 1e-4, 0.005, 0.4

gmsh.initialize()
gmsh.option.setNumber("General.Terminal", 0)
gmsh.option.setNumber("Mesh.MeshSizeMax", 0.015)
gmsh.open("cases/rotating_gaussian/disk.geo")
gmsh.model.mesh.generate(2)
domain, _, _ = gmshio.model_to_mesh(gmsh.model, MPI.COMM_WORLD, 0, gdim=2)
gmsh.finalize()

V = fem.FunctionSpace(domain, ("Lagrange", 1))
u, v = ufl.TrialFunction(V), ufl.TestFunction(V)
x = ufl.SpatialCoordinate(domain)
vel = ufl.as_vector((-x[1], x[0]))
domain.topology.create_connectivity(1, 2)
rim = fem.locate_dofs_topological(V, 1, dmesh.exterior_facet_indices(domain.topology))
bc = fem.dirichletbc(PETSc.ScalarType(0), rim, V)

tau, theta = dt / 2, 0.5
mass, stiff = u * v * ufl.dx, k * ufl.inner(ufl.grad(u), ufl.grad(v)) * ufl.dx


def matrix(a, bcs=()):
    m = assemble_matrix(fem.form(a), bcs=list(bcs))
    m.assemble()
    return m


M = matrix(mass, [bc])  # rows and columns of the rim out, 1 on the diagonal
A = matrix(mass + theta * tau * stiff, [bc])
B = matrix(mass - (1 - theta) * tau * stiff)
C = matrix(ufl.inner(vel, ufl.grad(u)) * v * ufl.dx)


def solver(op):
    ksp = PETSc.KSP().create(MPI.COMM_WORLD)
    ksp.setOperators(op)
    ksp.setType("cg")
    ksp.getPC().setType("jacobi")
    ksp.setNormType(PETSc.KSP.NormType.UNPRECONDITIONED)
    ksp.setTolerances(rtol=1e-10, atol=1e-14, max_it=2000)
    ksp.setInitialGuessNonzero(True)
    return ksp


mass_ksp, diff_ksp = solver(M), solver(A)
dofs = rim.astype(np.int32)
T = fem.Function(V)
T.interpolate(lambda p: np.exp(-((p[0] - r0) ** 2 + p[1] ** 2) / w)
              + 0.5 * np.exp(-((p[0] + r0) ** 2 + p[1] ** 2) / (2 * w)))
t0v = T.vector
rhs, work = t0v.duplicate(), t0v.duplicate()
ks = [t0v.duplicate() for _ in range(4)]
X = t0v.duplicate()
iterations = {"advection": 0, "diffusion": 0}


def diffuse(Tv):
    B.mult(Tv, rhs)
    rhs.setValues(dofs, np.zeros(len(dofs)))
    rhs.assemble()
    diff_ksp.solve(rhs, Tv)  # from T0
    iterations["diffusion"] += diff_ksp.getIterationNumber()


def rate(Xv, kv):
    C.mult(Xv, rhs)
    rhs.scale(-1.0)
    rhs.setValues(dofs, np.zeros(len(dofs)))
    rhs.assemble()
    mass_ksp.solve(rhs, kv)
    iterations["advection"] += mass_ksp.getIterationNumber()


def advect(Tv):
    ks[0].set(0.0)
    rate(Tv, ks[0])
    for i, c in ((1, 0.5), (2, 0.5), (3, 1.0)):
        Tv.copy(X)
        X.axpy(c * dt, ks[i - 1])
        ks[i - 1].copy(ks[i])  # the previous stage's rate as the first guess
        rate(X, ks[i])
    Tv.axpy(dt / 6, ks[0])
    Tv.axpy(dt / 3, ks[1])
    Tv.axpy(dt / 3, ks[2])
    Tv.axpy(dt / 6, ks[3])
    Tv.setValues(dofs, np.zeros(len(dofs)))
    Tv.assemble()


start = time.perf_counter()
for n in range(steps):
    diffuse(t0v)
    advect(t0v)
    diffuse(t0v)
seconds = time.perf_counter() - start
T.x.scatter_forward()

t = steps * dt
exact = fem.Function(V)
exact.interpolate(lambda p: w / (w + 4 * k * t) * np.exp(
    -((p[0] - r0 * np.cos(t)) ** 2 + (p[1] - r0 * np.sin(t)) ** 2) / (w + 4 * k * t))
    + 0.5 * 2 * w / (2 * w + 4 * k * t) * np.exp(
    -((p[0] + r0 * np.cos(t)) ** 2 + (p[1] + r0 * np.sin(t)) ** 2) / (2 * w + 4 * k * t)))
err = fem.assemble_scalar(fem.form((T - exact) ** 2 * ufl.dx)) ** 0.5
print(f"dolfinx {sys.modules['dolfinx'].__version__}: {V.dofmap.index_map.size_global} nodes, "
      f"{steps} steps, {1e3 * seconds / steps:.3f} ms per step, advection "
      f"{iterations['advection']} and diffusion {iterations['diffusion']} CG iterations, "
      f"L2 error {err:.6e} at t = {t:.4f}")
