/* Every strategy's operator on a mesh cut into as many parts as mpirun starts processes (label
 * mpi: 1 to 4), each process applying it on its part (io/partition.h: the cells at its owned
 * nodes, the other processes' nodes as ghosts of a halo), against the same operator applied on
 * the whole mesh by one process: the apply, the apply without Dirichlet masking (the lifting),
 * the diagonal, equal at every node of the part, owned and ghost (the ghosts take their
 * owners' values), and the apply on the owned entries (CG's) at the owned nodes, to 1e-13
 * relative; the apply without masking in one (its exchanges once) the same as the apply and
 * then the lifting (the same bits where the scatter's order is fixed); the mass, the diffusion
 * matrix M + tau K with a random anisotropic tensor per cell, the advection with a random velocity,
 * and the lumped mass, in 2D and 3D, with Dirichlet nodes on part of the boundary, and on periodic
 * meshes (tests/unit/periodic.h: the copies of an unknown in a part aliased to its node); the
 * halo's reverse sum and its exchange of three values per entry; CG on the parts, driven every way
 * the backend has, against CG on the whole mesh; a part without neighbours has a halo too.  With
 * the argument `cuda` (label mpi-gpu) the parts' operators are the CUDA backend's, a GPU per
 * process. */
#include "mpi_backends.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "assembly/operator.h"
#include "assembly/space.h"
#include "backends/backends.h"
#include "core/error.h"
#include "io/partition.h"
#include "meshgen.h"
#include "periodic.h"
#include "solvers/cg.h"
#include "solvers/halo.h"
#include "test.h"

struct problem {
  struct fe_mesh *m;
  unsigned char *isd; /* n_nodes: Dirichlet flags */
  double *diff, *vel; /* per cell, per node */
  double *x;          /* a field, per node */
};

/* axes: the periodic axes (tests/unit/periodic.h), 0 for none; data alike at every copy. */
static void make_problem(int dim, int n, int axes, struct problem *p)
{
  unsigned seed = 4242u + (unsigned)dim;
  p->m = axes ? meshgen_periodic(dim, n, 0.3, seed, axes) : meshgen(dim, n, 0.3, seed);
  const struct fe_mesh *m = p->m;
  const int ns = FE_NSYM(dim);
  p->isd = calloc((size_t)p->m->n_nodes, 1);
  for (int i = 0; i < p->m->n_nodes; i++)
    p->isd[i] = meshgen_on_boundary(p->m, i) && p->m->coords[i * dim] < 0.6;
  for (int i = 0; i < m->n_nodes; i++) p->isd[fe_mesh_owner(m, i)] |= p->isd[i];
  for (int i = 0; i < m->n_nodes; i++) p->isd[i] = p->isd[fe_mesh_owner(m, i)];
  p->diff = malloc(sizeof(double) * p->m->n_cells * ns);
  for (int c = 0; c < p->m->n_cells; c++) {
    double *s = p->diff + c * ns;
    for (int k = 0; k < ns; k++) s[k] = 0.2 * (meshgen_rand(&seed) - 0.5);
    s[0] += 1.0;
    s[dim == 2 ? 2 : 3] += 2.0;
    if (dim == 3) s[5] += 0.5;
  }
  p->vel = malloc(sizeof(double) * p->m->n_nodes * dim);
  for (int i = 0; i < p->m->n_nodes * dim; i++) p->vel[i] = meshgen_rand(&seed) - 0.5;
  p->x = malloc(sizeof(double) * p->m->n_nodes);
  for (int i = 0; i < p->m->n_nodes; i++) p->x[i] = meshgen_rand(&seed) - 0.3;
  fe_mesh_copy_owners(m, dim, p->vel);
  fe_mesh_copy_owners(m, 1, p->x);
}

static void free_problem(struct problem *p)
{
  meshgen_free(p->m);
  free(p->isd);
  free(p->diff);
  free(p->vel);
  free(p->x);
}

/* An operator of the form on a space of mesh m (cell data of cells global_cell, node data of
 * nodes global_node: the whole mesh's arrays picked for the part; NULL: the whole mesh). */
struct side {
  const struct fe_backend *be;
  struct fe_space *space;
  double *diff, *vel; /* on the backend */
  struct fe_vec *x, *y;
};

static void make_side(const struct fe_backend *be, const struct problem *p, const struct fe_mesh *m,
                      struct side *s)
{
  const int dim = m->dim, ns = FE_NSYM(dim);
  const int *gn = m->global_node, *gc = m->global_cell;
  unsigned char *isd = malloc((size_t)m->n_nodes + 1);
  double *diff = malloc(sizeof(double) * ((size_t)m->n_cells * ns + 1));
  double *vel = malloc(sizeof(double) * ((size_t)m->n_nodes * dim + 1));
  double *x = malloc(sizeof(double) * ((size_t)m->n_nodes + 1));
  for (long i = 0; i < m->n_nodes; i++) {
    const long g = gn ? gn[i] : i;
    isd[i] = p->isd[g];
    x[i] = p->x[g];
    for (int a = 0; a < dim; a++) vel[i * dim + a] = p->vel[g * dim + a];
  }
  for (long c = 0; c < m->n_cells; c++)
    for (int k = 0; k < ns; k++) diff[c * ns + k] = p->diff[(gc ? gc[c] : c) * ns + k];
  *s = (struct side){.be = be};
  CHECK_OK(fe_space_create(be, m, isd, &s->space));
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * ((size_t)m->n_cells * ns + 1), diff, &s->diff));
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * ((size_t)m->n_nodes * dim + 1), vel, &s->vel));
  CHECK_OK(fe_space_vec_create(s->space, &s->x));
  CHECK_OK(fe_space_vec_create(s->space, &s->y));
  CHECK_OK(fe_vec_upload(s->x, x));
  free(isd);
  free(diff);
  free(vel);
  free(x);
}

static void free_side(struct side *s)
{
  fe_vec_destroy(s->x);
  fe_vec_destroy(s->y);
  fe_backend_free(s->be, s->diff);
  fe_backend_free(s->be, s->vel);
  fe_space_destroy(s->space);
}

/* kind 0: apply, 1: apply without masking, 2: diagonal, 3: apply on the owned entries (ghosts
 * left), 4: apply, then the lift (what 1 is, made in two); the result on the host. */
static void act(struct fe_op *op, struct side *s, int kind, double *out)
{
  if (kind == 0 || kind == 4) CHECK_OK(fe_op_apply(op, s->x, s->y));
  if (kind == 4) CHECK_OK(fe_op_lift(op, 1.0, s->x, s->y));
  if (kind == 3) CHECK_OK(fe_op_apply_owned(op, s->x, s->y));
  if (kind == 1) CHECK_OK(fe_op_apply_full(op, s->x, s->y));
  if (kind == 2) CHECK_OK(fe_op_diagonal(op, s->y));
  if (kind != 3) CHECK_OK(fe_vec_update_ghosts(s->y)); /* as a reader of the ghosts takes them */
  CHECK_OK(fe_vec_download(s->y, out));
}

static void compare(const struct fe_comm *comm, const struct problem *p, const struct fe_mesh *pm,
                    struct side *whole, struct side *part, enum fe_strategy strategy,
                    const struct fe_form *form, const char *what)
{
  const struct fe_coefficients cw = {.diffusivity = whole->diff, .velocity = whole->vel};
  const struct fe_coefficients cp = {.diffusivity = part->diff, .velocity = part->vel};
  struct fe_op *a = NULL, *b = NULL;
  CHECK_OK(fe_operator_create(whole->space, strategy, &a));
  CHECK_OK(fe_operator_create(part->space, strategy, &b));
  if (!a || !b) return;
  CHECK_OK(fe_operator_assemble(a, form, &cw));
  CHECK_OK(fe_operator_assemble(b, form, &cp));
  double *ya = malloc(sizeof(double) * (size_t)p->m->n_nodes);
  double *yb = malloc(sizeof(double) * ((size_t)pm->n_nodes + 1));
  static const char *const kinds[5] = {"apply", "apply_full", "diagonal", "apply_owned",
                                       "apply and lift"};
  double *full = malloc(sizeof(double) * ((size_t)pm->n_nodes + 1));
  for (int kind = 0; kind < 5; kind++) {
    act(a, whole, kind, ya);
    act(b, part, kind, yb);
    double scale = 0, worst = 0;
    for (long i = 0; i < p->m->n_nodes; i++) scale = fmax(scale, fabs(ya[i]));
    const long checked = kind == 3 ? pm->n_nodes - pm->n_ghost - pm->n_aliased : pm->n_nodes;
    for (long i = 0; i < checked; i++) worst = fmax(worst, fabs(yb[i] - ya[pm->global_node[i]]));
    if (!(worst <= 1e-13 * scale))
      fprintf(stderr, "process %d of %d: %s %s, %s: differs by %g (scale %g)\n", comm->rank,
              comm->size, fe_strategy_name(strategy), what, kinds[kind], worst, scale);
    CHECK(worst <= 1e-13 * scale);
    if (kind == 1) memcpy(full, yb, sizeof(double) * (size_t)pm->n_nodes);
    if (kind == 4) { /* apply_full in one, the same bits as in two, ghosts included, where the
                        scatter's order is fixed (else each apply's atomics add in their own) */
      double most = 0;
      for (long i = 0; i < pm->n_nodes; i++) most = fmax(most, fabs(full[i] - yb[i]));
      if (!part->be->atomic_scatter || part->space->deterministic)
        CHECK(!memcmp(full, yb, sizeof(double) * (size_t)pm->n_nodes));
      CHECK(most <= 1e-13 * scale);
    }
  }
  free(full);
  free(ya);
  free(yb);
  fe_op_destroy(a);
  fe_op_destroy(b);
}

/* The reverse sum: every process adds 1 at each of its nodes; the owners then hold the count
 * of the nodes of the unknown in all parts (every copy in each part that holds it). */
static void check_reverse_sum(const struct fe_comm *comm, const struct problem *p,
                              const struct fe_partition *part, const struct side *s)
{
  const struct fe_mesh *pm = s->space->mesh;
  int *holders = calloc((size_t)p->m->n_nodes, sizeof(int));
  for (int r = 0; r < comm->size; r++) {
    struct fe_part q;
    CHECK_OK(fe_partition_part(part, p->m, r, &q));
    for (long i = 0; i < q.n_owned + q.n_ghost + q.n_aliased; i++)
      holders[fe_mesh_owner(p->m, q.nodes[i])]++;
    fe_part_free(&q);
  }
  CHECK_OK(fe_vec_set(s->y, 1.0));
  CHECK_OK(fe_halo_sum(s->space->halo, fe_vec_write(s->y)));
  double *y = malloc(sizeof(double) * ((size_t)pm->n_nodes + 1));
  CHECK_OK(fe_vec_download(s->y, y));
  int bad = 0;
  for (long i = 0; i < pm->n_nodes - pm->n_ghost - pm->n_aliased; i++)
    bad += y[i] != holders[pm->global_node[i]];
  CHECK(bad == 0);
  free(y);
  free(holders);
}

/* A vector of three values per entry (a velocity's): the owned entries' values, k + 3 g at the
 * node of global number g, reach the ghosts. */
static void check_update3(const struct side *s)
{
  const struct fe_mesh *pm = s->space->mesh;
  const long n = pm->n_nodes - pm->n_aliased, owned = n - pm->n_ghost;
  double *v = malloc(sizeof(double) * 3 * ((size_t)n + 1)), *dv = NULL;
  for (long i = 0; i < 3 * n; i++) v[i] = i < 3 * owned ? i % 3 + 3.0 * pm->global_node[i / 3] : -1;
  CHECK_OK(fe_backend_alloc(s->be, sizeof(double) * 3 * ((size_t)n + 1), v, &dv));
  CHECK_OK(fe_halo_update(s->space->halo, 3, dv));
  CHECK_OK(s->be->vec->to_host(s->be, v, dv, sizeof(double) * 3 * (size_t)n));
  int bad = 0;
  for (long i = 0; i < 3 * n; i++) bad += v[i] != i % 3 + 3.0 * pm->global_node[i / 3];
  CHECK(bad == 0);
  fe_backend_free(s->be, dv);
  free(v);
}

/* CG of M + 0.05 K on the parts against CG on the whole mesh, to 1e-9 of the largest entry,
 * driven each way the parts' backend has: the host reading each residual, one iteration late,
 * and the device's loop, which is the automatic drive on several processes whose sums and
 * exchanges are kernels (fe_comm.device_loops).  The part's space deterministic (its scatters
 * gathers, not atomics), every drive gives the same bits. */
static void check_cg(const struct fe_comm *comm, const struct problem *p, const struct fe_mesh *pm,
                     struct side *whole, struct side *part)
{
  const struct fe_form form = {.mass = 1, .diffusion = 0.05};
  const struct fe_coefficients cw = {.diffusivity = whole->diff};
  const struct fe_coefficients cp = {.diffusivity = part->diff};
  struct fe_op *a = NULL, *b = NULL;
  CHECK_OK(fe_operator_create(whole->space, FE_STRATEGY_LMA, &a));
  part->space->deterministic = 1;
  CHECK_OK(fe_operator_create(part->space, FE_STRATEGY_LMA, &b));
  if (!a || !b) return;
  CHECK_OK(fe_operator_assemble(a, &form, &cw));
  CHECK_OK(fe_operator_assemble(b, &form, &cp));
  struct fe_cg *ca = NULL, *cb = NULL;
  struct fe_vec *ua = NULL, *ub = NULL;
  CHECK_OK(fe_cg_create(whole->x, &ca));
  CHECK_OK(fe_cg_create(part->x, &cb));
  CHECK_OK(fe_vec_create_like(whole->x, &ua));
  CHECK_OK(fe_vec_create_like(part->x, &ub));
  const struct fe_cg_options opt = {.rtol = 1e-12, .max_iterations = 2000, .jacobi = 1};
  struct fe_cg_result res;
  CHECK_OK(fe_vec_set(ua, 0));
  CHECK_OK(fe_cg_solve(ca, a, whole->x, ua, &opt, &res));
  CHECK(res.converged);
  const long owned = pm->n_nodes - pm->n_ghost - pm->n_aliased;
  double *ya = malloc(sizeof(double) * (size_t)p->m->n_nodes);
  double *yb = malloc(sizeof(double) * ((size_t)pm->n_nodes + 1));
  double *host = malloc(sizeof(double) * ((size_t)pm->n_nodes + 1));
  CHECK_OK(fe_vec_download(ua, ya));
  double scale = 0;
  for (long i = 0; i < p->m->n_nodes; i++) scale = fmax(scale, fabs(ya[i]));
  const struct fe_backend *be = part->be;
  const int loops = be->device_loops && (comm->size == 1 || be->comm->device_loops);
  static const int drives[] = {FE_CG_DRIVE_SYNC, FE_CG_DRIVE_AHEAD, FE_CG_DRIVE_DEVICE,
                               FE_CG_DRIVE_AUTO};
  int host_iterations = -1;
  for (int d = 0; d < 4; d++) {
    if (drives[d] == FE_CG_DRIVE_DEVICE && !loops) continue;
    struct fe_cg_options o = opt;
    o.drive = drives[d];
    CHECK_OK(fe_vec_set(ub, 0));
    CHECK_OK(fe_cg_solve(cb, b, part->x, ub, &o, &res));
    CHECK(res.converged);
    CHECK_OK(fe_vec_download(ub, yb));
    double worst = 0;
    for (long i = 0; i < owned; i++) worst = fmax(worst, fabs(yb[i] - ya[pm->global_node[i]]));
    if (!(worst <= 1e-9 * scale))
      fprintf(stderr, "process %d of %d: CG, drive %d: differs by %g (scale %g)\n", comm->rank,
              comm->size, drives[d], worst, scale);
    CHECK(worst <= 1e-9 * scale);
    if (drives[d] == FE_CG_DRIVE_SYNC) {
      memcpy(host, yb, sizeof(double) * (size_t)owned);
      host_iterations = res.iterations;
    } else if (be->asynchronous) { /* the same kernels queued: the same bits */
      CHECK(!memcmp(host, yb, sizeof(double) * (size_t)owned));
      CHECK(res.iterations == host_iterations);
    }
    if (drives[d] == FE_CG_DRIVE_AUTO && loops && comm->size > 1)
      CHECK(res.drive == FE_CG_DRIVE_DEVICE);
  }
  free(ya);
  free(yb);
  free(host);
  fe_vec_destroy(ua);
  fe_vec_destroy(ub);
  fe_cg_destroy(ca);
  fe_cg_destroy(cb);
  fe_op_destroy(a);
  fe_op_destroy(b);
  part->space->deterministic = 0;
}

static void check_dim(const struct fe_comm *comm, const struct fe_backend *self,
                      const struct fe_backend *be, int dim, int n, int axes)
{
  struct problem p;
  make_problem(dim, n, axes, &p);
  struct fe_partition *part = NULL;
  struct fe_mesh *pm = NULL;
  CHECK_OK(fe_partition_create(p.m, comm->size, &part));
  if (part) CHECK_OK(fe_partition_mesh(part, p.m, comm->rank, &pm));
  if (pm) {
    struct side whole, mine;
    make_side(self, &p, p.m, &whole);
    make_side(be, &p, pm, &mine);
    const struct fe_form mass = {.mass = 1}, lumped = {.mass = 1, .lumped = 1},
                         diffusion = {.mass = 1, .diffusion = 0.05}, advection = {.advection = 1};
    for (int s = 0; s < FE_STRATEGY_AUTO; s++) {
      compare(comm, &p, pm, &whole, &mine, (enum fe_strategy)s, &mass, "mass");
      compare(comm, &p, pm, &whole, &mine, (enum fe_strategy)s, &lumped, "lumped mass");
      compare(comm, &p, pm, &whole, &mine, (enum fe_strategy)s, &diffusion, "diffusion");
      compare(comm, &p, pm, &whole, &mine, (enum fe_strategy)s, &advection, "advection");
    }
    check_reverse_sum(comm, &p, part, &mine);
    if (!axes) check_update3(&mine);
    check_cg(comm, &p, pm, &whole, &mine);
    free_side(&whole);
    free_side(&mine);
  }
  fe_mesh_destroy(pm);
  fe_partition_destroy(part);
  free_problem(&p);
}

/* A part without ghosts or neighbours (a mesh's component alone on its process) still has a
 * halo on several processes: every process makes one, as its making may be a collective (the
 * CUDA backend's NCCL window). */
static void check_lonely_part(const struct fe_comm *comm, const struct fe_backend *be)
{
  struct fe_mesh *m = meshgen(2, 4, 0.0, 1u);
  struct fe_halo *h = NULL;
  CHECK_OK(fe_mesh_halo_create(be, m, &h));
  CHECK(comm->size == 1 || (h && !fe_halo_remote(h) && !h->n_ghost));
  fe_halo_destroy(h);
  meshgen_free(m);
}

int main(int argc, char **argv)
{
  struct mpi_backends b;
  if (mpi_backends_start(&argc, &argv, &b)) {
    check_lonely_part(b.comm, b.all);
    check_dim(b.comm, b.self, b.all, 2, 20, 0);
    check_dim(b.comm, b.self, b.all, 3, 6, 0);
    check_dim(b.comm, b.self, b.all, 2, 20, 3); /* periodic in x and y */
    check_dim(b.comm, b.self, b.all, 3, 6, 5);  /* in x and z */
  }
  mpi_backends_end(&b);
  TEST_DONE();
}
