/* The CUDA backend against the CPU backend: addto's sparsity built on the GPU the same arrays
 * as the CPU's, element matrices to 1e-13 relative, operator actions (addto, lma, matfree,
 * deterministic lma and matfree) of forms with mass, diffusion, advection (the conservative
 * form too, and SUPG), absorption, lumped or not, lifting and diagonals to 1e-12, and a CG
 * solve (driven by the host or by the device, or as one kernel; its results read at once or
 * left in a log); 2D and 3D.  LMA in both storages (the upper triangle of symmetric forms,
 * every entry): the same storage as the CPU's, and on the GPU the same bits in either when
 * deterministic, the same to 1e-12 with atomics.  Skips without a GPU. */
#include <stdlib.h>
#include <string.h>

#include "assembly/kernels.h"
#include "assembly/operator.h"
#include "backend_cpu.h"
#include "backend_gpu.h"
#include "backends/backends.h"
#include "cg_many_checks.h"
#include "core/error.h"
#include "csr_checks.h"
#include "meshgen.h"
#include "solvers/cg.h"
#include "test.h"

struct setup {
  struct fe_space *space;
  double *diff, *vel, *lambda;
  struct fe_coefficients coef;
};

/* uniform: the diffusivity and absorption rate of cell 0, for every cell */
static void make(const struct fe_backend *be, struct fe_mesh *m, const unsigned char *isd,
                 const double *diff, const double *vel, const double *lambda, int deterministic,
                 int uniform, struct setup *s)
{
  CHECK_OK(fe_space_create(be, m, isd, &s->space));
  s->space->deterministic = deterministic;
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * (uniform ? 1 : m->n_cells) * FE_NSYM(m->dim), diff,
                            &s->diff));
  s->coef.uniform_diffusivity = uniform;
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * m->n_nodes * m->dim, vel, &s->vel));
  s->coef.diffusivity = s->diff;
  s->coef.velocity = s->vel;
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * (uniform ? 1 : m->n_cells), lambda, &s->lambda));
  s->coef.lambda = s->lambda;
  s->coef.uniform_lambda = uniform;
}

static void release(const struct fe_backend *be, struct setup *s)
{
  fe_backend_free(be, s->diff);
  fe_backend_free(be, s->vel);
  fe_backend_free(be, s->lambda);
  fe_space_destroy(s->space);
}

static double max_abs(const double *v, size_t n)
{
  double s = 0;
  for (size_t i = 0; i < n; i++) s = fmax(s, fabs(v[i]));
  return s;
}

/* y = op(x) on a backend, on the host; kind 0 apply, 1 apply_full (the lift), 2 diagonal */
static void action(struct fe_op *op, int kind, const double *x, double *y)
{
  struct fe_vec *vx, *vy;
  CHECK_OK(fe_vec_create(op->be, op->n, &vx));
  CHECK_OK(fe_vec_create(op->be, op->n, &vy));
  CHECK_OK(fe_vec_upload(vx, x));
  CHECK_OK(fe_vec_set(vy, 0.25)); /* apply must overwrite */
  if (kind == 0) CHECK_OK(fe_op_apply(op, vx, vy));
  if (kind == 1) CHECK_OK(fe_op_apply_full(op, vx, vy));
  if (kind == 2) CHECK_OK(fe_op_diagonal(op, vy));
  CHECK_OK(fe_vec_download(vy, y));
  fe_vec_destroy(vx);
  fe_vec_destroy(vy);
}

/* LMA on the GPU in the form's storage and storing every entry: apply, apply_full (the lift)
 * and diagonal the same bits when deterministic, the same to 1e-12 with atomics (their order
 * of additions varies). */
static void storages_agree(struct fe_space *space, const struct fe_form *form,
                           const struct fe_coefficients *coef, const double *x, int exact)
{
  const size_t n = (size_t)space->n_nodes;
  struct fe_op *op[2];
  double *y[2];
  for (int full = 0; full < 2; full++) {
    CHECK_OK(fe_operator_create(space, FE_STRATEGY_LMA, &op[full]));
    fe_operator_store_full(op[full], full);
    CHECK_OK(fe_operator_assemble(op[full], form, coef));
    y[full] = malloc(sizeof(double) * n);
  }
  CHECK(fe_operator_storage(op[0]) == fe_form_storage(form));
  for (int kind = 0; kind < 3; kind++) {
    action(op[0], kind, x, y[0]);
    action(op[1], kind, x, y[1]);
    if (exact) {
      CHECK(memcmp(y[0], y[1], sizeof(double) * n) == 0);
    } else {
      const double scale = max_abs(y[1], n);
      for (size_t i = 0; i < n; i++) CHECK_CLOSE(y[0][i] / scale, y[1][i] / scale, 1e-12);
    }
  }
  for (int full = 0; full < 2; full++) {
    fe_op_destroy(op[full]);
    free(y[full]);
  }
}

static void compare(const struct fe_backend *gpu, int dim, int n, const struct fe_form *form,
                    int uniform, int shift)
{
  const struct fe_backend *cpu = test_cpu();
  struct fe_mesh *m = meshgen(dim, n, 0.4, 11);
  const int nn = m->n_nodes, ns = FE_NSYM(dim);
  unsigned seed = 5;
  unsigned char *isd = calloc(nn, 1);
  double *diff = malloc(sizeof(double) * m->n_cells * ns), *vel = malloc(sizeof(double) * nn * dim);
  for (int i = 0; i < nn; i++) isd[i] = meshgen_on_boundary(m, i) && m->coords[i * dim + 1] < 0.5;
  for (int c = 0; c < m->n_cells * ns; c++) diff[c] = 0.1 * (meshgen_rand(&seed) - 0.5);
  for (int c = 0; c < m->n_cells; c++) {
    diff[c * ns] += 1;
    diff[c * ns + (dim == 2 ? 2 : 3)] += 1;
    if (dim == 3) diff[c * ns + 5] += 1;
  }
  for (int i = 0; i < nn * dim; i++) vel[i] = meshgen_rand(&seed) - 0.5;
  double *lambda = malloc(sizeof(double) * m->n_cells);
  for (int c = 0; c < m->n_cells; c++) lambda[c] = 2 * meshgen_rand(&seed);
  double *x = malloc(sizeof(double) * nn), *yc = malloc(sizeof(double) * nn),
         *yg = malloc(sizeof(double) * nn);
  for (int i = 0; i < nn; i++) x[i] = meshgen_rand(&seed) - 0.5;

  struct setup sc, sg[2];
  make(cpu, m, isd, diff, vel, lambda, 0, uniform, &sc);
  make(gpu, m, isd, diff, vel, lambda, 0, uniform, &sg[0]);
  make(gpu, m, isd, diff, vel, lambda, 1, uniform, &sg[1]);
  sc.space->block_shift = sg[0].space->block_shift = sg[1].space->block_shift = shift;
  const size_t nb = (size_t)fe_blocked_cells(m->n_cells, sc.space->block_shift);
  double *ec = malloc(sizeof(double) * nb * (dim + 1) * (dim + 1)),
         *eg = malloc(sizeof(double) * nb * (dim + 1) * (dim + 1));
  /* addto's sparsity built on the GPU: the CPU's, which the small meshes check against its
   * definition */
  csr_check_same(sc.space, sg[0].space);
  if (m->n_nodes < 2000) csr_check_definition(sg[0].space);
  /* lma (symmetric storage for symmetric forms), lma storing every entry, addto, matfree */
  const enum fe_strategy strategies[4] = {FE_STRATEGY_LMA, FE_STRATEGY_LMA, FE_STRATEGY_ADDTO,
                                          FE_STRATEGY_MATFREE};
  for (int st = 0; st < 4; st++) {
    const enum fe_strategy strategy = strategies[st];
    struct fe_op *oc;
    CHECK_OK(fe_operator_create(sc.space, strategy, &oc));
    fe_operator_store_full(oc, st == 1);
    CHECK_OK(fe_operator_assemble(oc, form, &sc.coef));
    const size_t ne = nb * fe_storage_entries(dim + 1, fe_operator_storage(oc));
    if (strategy != FE_STRATEGY_MATFREE) CHECK_OK(fe_operator_download_elements(oc, ec));
    for (int det = 0; det < 2; det++) {
      struct fe_op *og;
      CHECK_OK(fe_operator_create(sg[det].space, strategy, &og));
      fe_operator_store_full(og, st == 1);
      CHECK_OK(fe_operator_assemble(og, form, &sg[det].coef));
      CHECK(fe_operator_storage(og) == fe_operator_storage(oc));
      if (strategy != FE_STRATEGY_MATFREE) {
        CHECK_OK(fe_operator_download_elements(og, eg));
        const double escale = max_abs(ec, ne);
        for (size_t k = 0; k < ne; k++) CHECK_CLOSE(eg[k] / escale, ec[k] / escale, 1e-13);
      }
      for (int kind = 0; kind < 3; kind++) {
        action(oc, kind, x, yc);
        action(og, kind, x, yg);
        const double scale = max_abs(yc, nn);
        for (int i = 0; i < nn; i++) CHECK_CLOSE(yg[i] / scale, yc[i] / scale, 1e-12);
      }
      fe_op_destroy(og);
    }
    fe_op_destroy(oc);
  }
  /* on the GPU, the two LMA storages agree: bit for bit when deterministic */
  for (int det = 0; det < 2; det++) storages_agree(sg[det].space, form, &sg[det].coef, x, det);
  /* every compiled variant of the element kernel gives the CPU's matrices, in both storages */
  for (int full = 0; full < 2; full++) {
    struct fe_op *oc, *og;
    CHECK_OK(fe_operator_create(sc.space, FE_STRATEGY_LMA, &oc));
    fe_operator_store_full(oc, full);
    CHECK_OK(fe_operator_assemble(oc, form, &sc.coef));
    const size_t ne = nb * fe_storage_entries(dim + 1, fe_operator_storage(oc));
    CHECK_OK(fe_operator_download_elements(oc, ec));
    CHECK_OK(fe_operator_create(sg[0].space, FE_STRATEGY_LMA, &og));
    fe_operator_store_full(og, full);
    const struct fe_form other = {.mass = 3.0};
    int epb, tpe;
    const struct fe_element_kernels *ek = &gpu->assembly->element;
    for (int k = 0; ek->variant(dim, k, &epb, &tpe); k++) {
      /* another form first, so that an entry a variant skips is caught */
      CHECK_OK(ek->use_variant(gpu, dim, 0, 0));
      CHECK_OK(fe_operator_assemble(og, &other, &sg[0].coef));
      CHECK_OK(ek->use_variant(gpu, dim, epb, tpe));
      CHECK_OK(fe_operator_assemble(og, form, &sg[0].coef));
      CHECK_OK(fe_operator_download_elements(og, eg));
      const double escale = max_abs(ec, ne);
      int bad = 0;
      for (size_t q = 0; q < ne; q++) bad += !(fabs(eg[q] - ec[q]) <= 1e-13 * escale);
      if (bad)
        fprintf(stderr, "element kernel %dD epb %d tpe %d (%s storage): %d entries differ\n", dim,
                epb, tpe, full ? "full" : "form's", bad);
      CHECK(bad == 0);
    }
    CHECK_OK(ek->use_variant(gpu, dim, 0, 0));
    fe_op_destroy(og);
    fe_op_destroy(oc);
  }
  /* the matrix-free mass apply of the norms */
  {
    double *dx, *dy;
    CHECK_OK(fe_backend_alloc(gpu, sizeof(double) * nn, x, &dx));
    CHECK_OK(fe_backend_alloc(gpu, sizeof(double) * nn, NULL, &dy));
    CHECK_OK(fe_space_mass_apply(sc.space, x, yc));
    CHECK_OK(fe_space_mass_apply(sg[0].space, dx, dy));
    CHECK_OK(gpu->vec->to_host(gpu, yg, dy, sizeof(double) * nn));
    const double scale = max_abs(yc, nn);
    for (int i = 0; i < nn; i++) CHECK_CLOSE(yg[i] / scale, yc[i] / scale, 1e-13);
    fe_backend_free(gpu, dx);
    fe_backend_free(gpu, dy);
  }
  release(cpu, &sc);
  release(gpu, &sg[0]);
  release(gpu, &sg[1]);
  free(ec);
  free(eg);
  free(isd);
  free(diff);
  free(vel);
  free(lambda);
  free(x);
  free(yc);
  free(yg);
  meshgen_free(m);
}

/* The same SPD system solved by CG on both backends. */
static void cg_agrees(const struct fe_backend *gpu)
{
  struct fe_mesh *m = meshgen(3, 6, 0.3, 2);
  const int nn = m->n_nodes;
  double *diff = calloc((size_t)m->n_cells * 6, sizeof(double)), *b = malloc(sizeof(double) * nn);
  for (int c = 0; c < m->n_cells; c++) diff[c * 6] = diff[c * 6 + 3] = diff[c * 6 + 5] = 1;
  for (int i = 0; i < nn; i++) b[i] = sin(i);
  const struct fe_form form = {.mass = 1, .diffusion = 0.1};
  double *xs[2];
  const struct fe_backend *bes[2] = {test_cpu(), gpu};
  int its[2];
  for (int k = 0; k < 2; k++) {
    struct setup s;
    make(bes[k], m, NULL, diff, diff, diff, 1, 0,
         &s); /* deterministic: GPU solves repeat bit for bit */
    struct fe_op *a;
    CHECK_OK(fe_operator_create(s.space, FE_STRATEGY_LMA, &a));
    CHECK_OK(fe_operator_assemble(a, &form, &s.coef));
    struct fe_vec *vb, *vx;
    CHECK_OK(fe_vec_create(bes[k], nn, &vb));
    CHECK_OK(fe_vec_create(bes[k], nn, &vx));
    CHECK_OK(fe_vec_upload(vb, b));
    struct fe_cg *cg;
    CHECK_OK(fe_cg_create(vb, &cg));
    struct fe_cg_options opt = {
        .rtol = 1e-12, .max_iterations = 500, .jacobi = 1, .drive = FE_CG_DRIVE_SYNC};
    struct fe_cg_result r;
    CHECK_OK(fe_cg_solve(cg, a, vb, vx, &opt, &r));
    CHECK(r.converged && r.drive == FE_CG_DRIVE_SYNC);
    its[k] = r.iterations;
    xs[k] = malloc(sizeof(double) * nn);
    CHECK_OK(fe_vec_download(vx, xs[k]));
    if (k == 1) { /* reading the residuals one iteration late changes nothing */
      double *again = malloc(sizeof(double) * nn);
      opt.drive = FE_CG_DRIVE_AHEAD;
      CHECK_OK(fe_vec_set(vx, 0.0));
      CHECK_OK(fe_cg_solve(cg, a, vb, vx, &opt, &r));
      CHECK(r.converged && r.drive == FE_CG_DRIVE_AHEAD && r.iterations == its[1]);
      CHECK_OK(fe_vec_download(vx, again));
      CHECK(memcmp(again, xs[1], sizeof(double) * nn) == 0);
      opt.max_iterations = its[1] - 1; /* and stops at max_iterations as before */
      CHECK_OK(fe_vec_set(vx, 0.0));
      CHECK_OK(fe_cg_solve(cg, a, vb, vx, &opt, &r));
      CHECK(!r.converged && r.iterations == its[1] - 1);
      free(again);
    }
    fe_cg_destroy(cg);
    fe_vec_destroy(vb);
    fe_vec_destroy(vx);
    fe_op_destroy(a);
    release(bes[k], &s);
  }
  CHECK(abs(its[0] - its[1]) <= 1);
  const double scale = max_abs(xs[0], nn);
  for (int i = 0; i < nn; i++) CHECK_CLOSE(xs[1][i] / scale, xs[0][i] / scale, 1e-10);
  free(xs[0]);
  free(xs[1]);
  free(diff);
  free(b);
  meshgen_free(m);
}

/* M + 0.1 K of unit diffusivity on a GPU, assembled by a strategy, with b = sin(b_scale i)
 * (ones where b_scale is 0), x = 0 and a solver: the system the tests of CG's drives solve. */
struct system {
  struct setup s;
  double *diff;
  struct fe_op *a;
  struct fe_vec *vb, *vx;
  struct fe_cg *cg;
};

static void system_create(const struct fe_backend *gpu, struct fe_mesh *m,
                          enum fe_strategy strategy, int deterministic, double b_scale,
                          struct system *y)
{
  const int nn = m->n_nodes, dim = m->dim, ns = FE_NSYM(dim);
  y->diff = calloc((size_t)m->n_cells * ns, sizeof(double));
  for (int c = 0; c < m->n_cells; c++)
    for (int k = 0; k < dim; k++) y->diff[c * ns + (k == 0 ? 0 : k == 1 ? dim : 5)] = 1;
  make(gpu, m, NULL, y->diff, y->diff, y->diff, deterministic, 0, &y->s);
  CHECK_OK(fe_operator_create(y->s.space, strategy, &y->a));
  const struct fe_form form = {.mass = 1, .diffusion = 0.1};
  CHECK_OK(fe_operator_assemble(y->a, &form, &y->s.coef));
  CHECK_OK(fe_vec_create(gpu, nn, &y->vb));
  CHECK_OK(fe_vec_create(gpu, nn, &y->vx));
  double *b = malloc(sizeof(double) * nn);
  for (int i = 0; i < nn; i++) b[i] = b_scale == 0 ? 1.0 : sin(b_scale * i);
  CHECK_OK(fe_vec_upload(y->vb, b));
  free(b);
  CHECK_OK(fe_vec_set(y->vx, 0.0));
  CHECK_OK(fe_cg_create(y->vb, &y->cg));
}

static void system_destroy(const struct fe_backend *gpu, struct system *y)
{
  fe_cg_destroy(y->cg);
  fe_vec_destroy(y->vb);
  fe_vec_destroy(y->vx);
  fe_op_destroy(y->a);
  release(gpu, &y->s);
  free(y->diff);
}

/* x, the iteration count and the residual history of a solve from x = 0. */
struct solve {
  double *x;
  struct fe_cg_result r;
};

static void solve(struct fe_cg *cg, struct fe_op *a, struct fe_vec *vb, struct fe_vec *vx,
                  int drive, int max_iterations, struct solve *out)
{
  const struct fe_cg_options opt = {
      .rtol = 1e-11, .max_iterations = max_iterations, .jacobi = 1, .drive = drive};
  CHECK_OK(fe_vec_set(vx, 0.0));
  CHECK_OK(fe_cg_solve(cg, a, vb, vx, &opt, &out->r));
  CHECK(out->r.drive == drive);
  out->x = malloc(sizeof(double) * vx->n);
  CHECK_OK(fe_vec_download(vx, out->x));
}

static void same_solve(struct solve *a, struct solve *b, size_t n)
{
  CHECK(a->r.converged == b->r.converged && a->r.iterations == b->r.iterations);
  CHECK(memcmp(a->r.history, b->r.history, sizeof a->r.history) == 0);
  CHECK(memcmp(a->x, b->x, sizeof(double) * n) == 0);
  free(a->x);
  free(b->x);
}

/* CG's loop on the device (a graph with a while node) against the host's: the same bits,
 * iterations and residual history with each strategy (cuSPARSE's SpMV and the atomic
 * scatters in the graph), its graph used again, built again after a re-assembly, and stopped
 * at max_iterations (0 too). */
static void cg_on_device(const struct fe_backend *gpu)
{
  if (!gpu->device_loops) {
    printf("# no loops on the device here (driver before 12.4, or FESIM_CUDA_SYNC)\n");
    return;
  }
  struct fe_mesh *m = meshgen(2, 40, 0.3, 4);
  const int nn = m->n_nodes;
  const enum fe_strategy strategies[3] = {FE_STRATEGY_LMA, FE_STRATEGY_ADDTO, FE_STRATEGY_MATFREE};
  for (int k = 0; k < 3; k++) {
    struct system y;
    system_create(gpu, m, strategies[k], 1, 1, &y);
    struct fe_op *a = y.a;
    struct fe_cg *cg = y.cg;
    struct fe_vec *vb = y.vb, *vx = y.vx;
    struct solve host, device, again;
    solve(cg, a, vb, vx, FE_CG_DRIVE_SYNC, 500, &host);
    solve(cg, a, vb, vx, FE_CG_DRIVE_DEVICE, 500, &device);
    solve(cg, a, vb, vx, FE_CG_DRIVE_DEVICE, 500, &again); /* the same graph */
    CHECK(host.r.converged && host.r.iterations > 3);
    const int its = host.r.iterations;
    CHECK(memcmp(again.x, device.x, sizeof(double) * nn) == 0);
    free(again.x);
    same_solve(&host, &device, nn);
    struct fe_form form = {.mass = 3, .diffusion = 0.1}; /* re-assembled: another version, */
    CHECK_OK(fe_operator_assemble(a, &form, &y.s.coef)); /* another graph */
    solve(cg, a, vb, vx, FE_CG_DRIVE_SYNC, 500, &host);
    solve(cg, a, vb, vx, FE_CG_DRIVE_DEVICE, 500, &device);
    CHECK(host.r.converged && host.r.iterations != its);
    same_solve(&host, &device, nn);
    solve(cg, a, vb, vx, FE_CG_DRIVE_SYNC, 2, &host); /* the limit */
    solve(cg, a, vb, vx, FE_CG_DRIVE_DEVICE, 2, &device);
    CHECK(!device.r.converged && device.r.iterations == 2);
    same_solve(&host, &device, nn);
    solve(cg, a, vb, vx, FE_CG_DRIVE_SYNC, 0, &host); /* no iterations at all */
    solve(cg, a, vb, vx, FE_CG_DRIVE_DEVICE, 0, &device);
    CHECK(!device.r.converged && device.r.iterations == 0 && device.r.residual > 0);
    same_solve(&host, &device, nn);
    CHECK_OK(fe_vec_set(vb, 0.0)); /* x = 0 solves it: converged before any iteration */
    solve(cg, a, vb, vx, FE_CG_DRIVE_DEVICE, 500, &device);
    CHECK(device.r.converged && device.r.iterations == 0 && device.r.residual == 0);
    free(device.x);
    system_destroy(gpu, &y);
  }
  meshgen_free(m);
}

/* CG as one kernel (LMA on a small mesh, FE_CG_DRIVE_KERNEL) against the host's drive, 2D and
 * 3D, atomic and deterministic spaces (3D deterministic: none), with and without Jacobi: the
 * same iterations (within one) and x to round-off, as its sums run in another order; its runs
 * the same bits, the full storage of a symmetric form the symmetric one's bits; stopped at
 * max_iterations (0 too), b = 0 converged at once; several systems at once (2D) the bits of
 * each alone (cg_many_checks); the automatic drive takes it, and the other strategies have
 * none. */
static void kernel_solves(struct fe_cg *cg, struct fe_op *a, struct fe_vec *vb, struct fe_vec *vx,
                          const double *b, int jacobi)
{
  const size_t nn = a->n;
  struct fe_cg_options opt = {
      .rtol = 1e-11, .max_iterations = 500, .jacobi = jacobi, .drive = FE_CG_DRIVE_SYNC};
  struct fe_cg_result host, kernel, again;
  double *xh = malloc(sizeof(double) * nn), *xk = malloc(sizeof(double) * nn),
         *xa = malloc(sizeof(double) * nn);
  CHECK_OK(fe_vec_upload(vb, b));
  for (int limit = 0; limit < 3; limit++) { /* converged, stopped after 2, stopped at once */
    opt.max_iterations = limit == 0 ? 500 : limit == 1 ? 2 : 0;
    opt.drive = FE_CG_DRIVE_SYNC;
    CHECK_OK(fe_vec_set(vx, 0.0));
    CHECK_OK(fe_cg_solve(cg, a, vb, vx, &opt, &host));
    CHECK_OK(fe_vec_download(vx, xh));
    opt.drive = FE_CG_DRIVE_KERNEL;
    CHECK_OK(fe_vec_set(vx, 0.0));
    CHECK_OK(fe_cg_solve(cg, a, vb, vx, &opt, &kernel));
    CHECK_OK(fe_vec_download(vx, xk));
    CHECK(kernel.drive == FE_CG_DRIVE_KERNEL && kernel.converged == host.converged);
    CHECK(fabs(kernel.rhs_norm - host.rhs_norm) <= 1e-14 * host.rhs_norm);
    if (limit == 0) {
      CHECK(host.converged && host.iterations > 3 && abs(kernel.iterations - host.iterations) <= 1);
      CHECK(test_relative_difference(xk, xh, nn) < 1e-9);
    } else {
      CHECK(!kernel.converged && kernel.iterations == opt.max_iterations);
      CHECK(test_relative_difference(xk, xh, nn) < 1e-12 || limit == 2);
      CHECK(fabs(kernel.residual - host.residual) <= 1e-10 * host.residual);
    }
    if (limit == 2) CHECK(max_abs(xk, nn) == 0 && kernel.residual > 0);
    opt.drive = FE_CG_DRIVE_AUTO;
    CHECK_OK(fe_vec_set(vx, 0.0));
    CHECK_OK(fe_cg_solve(cg, a, vb, vx, &opt, &again));
    CHECK_OK(fe_vec_download(vx, xa));
    CHECK(again.drive == FE_CG_DRIVE_KERNEL && again.iterations == kernel.iterations);
    CHECK(memcmp(xa, xk, sizeof(double) * nn) == 0);
  }
  CHECK_OK(fe_vec_set(vb, 0.0)); /* x = 0 solves it: converged before any iteration */
  opt.max_iterations = 500;
  opt.drive = FE_CG_DRIVE_KERNEL;
  CHECK_OK(fe_vec_set(vx, 0.0));
  CHECK_OK(fe_cg_solve(cg, a, vb, vx, &opt, &kernel));
  CHECK(kernel.converged && kernel.iterations == 0 && kernel.residual == 0);
  CHECK_OK(fe_vec_upload(vb, b));
  free(xh);
  free(xk);
  free(xa);
}

/* x of a solve as one kernel from x = 0. */
static void kernel_x(struct fe_cg *cg, struct fe_op *a, struct fe_vec *vb, struct fe_vec *vx,
                     double *x)
{
  const struct fe_cg_options opt = {
      .rtol = 1e-11, .max_iterations = 500, .jacobi = 1, .drive = FE_CG_DRIVE_KERNEL};
  struct fe_cg_result r;
  CHECK_OK(fe_vec_set(vx, 0.0));
  CHECK_OK(fe_cg_solve(cg, a, vb, vx, &opt, &r));
  CHECK(r.converged && r.drive == FE_CG_DRIVE_KERNEL);
  CHECK_OK(fe_vec_download(vx, x));
}

static void cg_in_kernel(const struct fe_backend *gpu)
{
  for (int dim = 2; dim <= 3; dim++) {
    struct fe_mesh *m = dim == 2 ? meshgen(2, 40, 0.3, 4) : meshgen(3, 8, 0.3, 4);
    const int ns = FE_NSYM(dim), nn = m->n_nodes;
    unsigned char *isd = calloc(nn, 1);
    for (int i = 0; i < nn; i++) isd[i] = meshgen_on_boundary(m, i) && m->coords[i * dim] < 0.5;
    double *diff = calloc((size_t)m->n_cells * ns, sizeof(double)),
           *b = malloc(sizeof(double) * nn), *x1 = malloc(sizeof(double) * nn),
           *x2 = malloc(sizeof(double) * nn);
    for (int c = 0; c < m->n_cells; c++)
      for (int k = 0; k < dim; k++) diff[c * ns + (k == 0 ? 0 : k == 1 ? dim : 5)] = 1 + c % 3;
    for (int i = 0; i < nn; i++) b[i] = isd[i] ? 0 : sin(i);
    for (int deterministic = 0; deterministic < 2; deterministic++) {
      struct setup s;
      make(gpu, m, isd, diff, diff, diff, deterministic, 0, &s);
      struct fe_op *a;
      CHECK_OK(fe_operator_create(s.space, FE_STRATEGY_LMA, &a));
      const struct fe_form form = {.mass = 1, .diffusion = 0.1};
      CHECK_OK(fe_operator_assemble(a, &form, &s.coef));
      struct fe_vec *vb, *vx;
      CHECK_OK(fe_vec_create(gpu, nn, &vb));
      CHECK_OK(fe_vec_create(gpu, nn, &vx));
      struct fe_cg *cg;
      CHECK_OK(fe_cg_create(vb, &cg));
      for (int jacobi = 0; jacobi < 2; jacobi++) kernel_solves(cg, a, vb, vx, b, jacobi);
      kernel_x(cg, a, vb, vx, x1);
      kernel_x(cg, a, vb, vx, x2);
      CHECK(memcmp(x1, x2, sizeof(double) * nn) == 0);
      fe_operator_store_full(a, 1); /* every entry stored: the same sums */
      CHECK_OK(fe_operator_assemble(a, &form, &s.coef));
      kernel_x(cg, a, vb, vx, x2);
      CHECK(memcmp(x1, x2, sizeof(double) * nn) == 0);
      fe_operator_store_full(a, 0);
      CHECK_OK(fe_operator_assemble(a, &form, &s.coef));
      cg_many_checks(a, FE_CG_DRIVE_KERNEL, 1); /* several systems: each one's bits alone */
      fe_cg_destroy(cg);
      fe_op_destroy(a);
      CHECK_OK(fe_operator_create(s.space, FE_STRATEGY_ADDTO, &a));
      CHECK_OK(fe_operator_assemble(a, &form, &s.coef));
      CHECK_OK(fe_cg_create(vb, &cg));
      const struct fe_cg_options opt = {
          .rtol = 1e-11, .max_iterations = 500, .jacobi = 1, .drive = FE_CG_DRIVE_KERNEL};
      struct fe_cg_result r;
      CHECK(fe_cg_solve(cg, a, vb, vx, &opt, &r) == FE_ERR_USAGE);
      fe_cg_destroy(cg);
      fe_op_destroy(a);
      fe_vec_destroy(vb);
      fe_vec_destroy(vx);
      release(gpu, &s);
    }
    free(isd);
    free(diff);
    free(b);
    free(x1);
    free(x2);
    meshgen_free(m);
  }
}

/* CG as one kernel on a mesh of more nodes than the grid's threads (several a thread, a grid
 * of more blocks than a block has threads) against the host's drive, and the same mesh in a
 * deterministic space as the automatic drive takes it. */
static void cg_in_kernel_large(const struct fe_backend *gpu)
{
  struct fe_mesh *m = meshgen(2, 350, 0.3, 4); /* 123K nodes */
  const int nn = m->n_nodes;
  double *xh = malloc(sizeof(double) * nn), *xk = malloc(sizeof(double) * nn);
  for (int deterministic = 0; deterministic < 2; deterministic++) {
    struct system y;
    system_create(gpu, m, FE_STRATEGY_LMA, deterministic, 0.01, &y);
    struct fe_cg_options opt = {
        .rtol = 1e-11, .max_iterations = 2000, .jacobi = 1, .drive = FE_CG_DRIVE_SYNC};
    struct fe_cg_result host, auto_;
    CHECK_OK(fe_cg_solve(y.cg, y.a, y.vb, y.vx, &opt, &host));
    CHECK_OK(fe_vec_download(y.vx, xh));
    opt.drive = FE_CG_DRIVE_AUTO;
    CHECK_OK(fe_vec_set(y.vx, 0.0));
    CHECK_OK(fe_cg_solve(y.cg, y.a, y.vb, y.vx, &opt, &auto_));
    CHECK_OK(fe_vec_download(y.vx, xk));
    CHECK(host.converged && auto_.converged && abs(auto_.iterations - host.iterations) <= 1);
    CHECK(deterministic || auto_.drive == FE_CG_DRIVE_KERNEL);
    CHECK(test_relative_difference(xk, xh, nn) < 1e-9);
    system_destroy(gpu, &y);
  }
  free(xh);
  free(xk);
  meshgen_free(m);
}

/* FESIM_CUDA_CG_KERNEL: a mesh past its limit is left to the device's loop (the automatic
 * drive), asked for as one kernel a usage error; a value that is not a count refused. */
static void kernel_limit(void)
{
  struct fe_backend *gpu;
  setenv("FESIM_CUDA_CG_KERNEL", "2 nodes", 1);
  CHECK(fe_backend_create(FE_BACKEND_CUDA, NULL, &gpu) == FE_ERR_USAGE);
  setenv("FESIM_CUDA_CG_KERNEL", "1000", 1);
  CHECK_OK(fe_backend_create(FE_BACKEND_CUDA, NULL, &gpu));
  unsetenv("FESIM_CUDA_CG_KERNEL");
  for (int n = 20; n <= 40; n += 20) { /* 441 and 1681 nodes */
    struct fe_mesh *m = meshgen(2, n, 0.3, 4);
    struct system y;
    system_create(gpu, m, FE_STRATEGY_LMA, 0, 0, &y);
    struct fe_cg_options opt = {.rtol = 1e-10, .max_iterations = 500, .jacobi = 1};
    struct fe_cg_result r;
    CHECK_OK(fe_cg_solve(y.cg, y.a, y.vb, y.vx, &opt, &r));
    const int beyond = m->n_nodes > 1000;
    CHECK(r.converged && (beyond ? r.drive != FE_CG_DRIVE_KERNEL : r.drive == FE_CG_DRIVE_KERNEL));
    opt.drive = FE_CG_DRIVE_KERNEL;
    CHECK(fe_cg_solve(y.cg, y.a, y.vb, y.vx, &opt, &r) == (beyond ? FE_ERR_USAGE : FE_SUCCESS));
    system_destroy(gpu, &y);
    meshgen_free(m);
  }
  fe_backend_destroy(gpu);
}

/* The same result: what a log read gives against a solve read at once. */
static void same_result(const struct fe_cg_result *a, const struct fe_cg_result *b)
{
  CHECK(!a->pending && !b->pending && a->drive == b->drive);
  CHECK(a->converged == b->converged && a->iterations == b->iterations);
  CHECK(a->residual == b->residual && a->rhs_norm == b->rhs_norm);
  CHECK(memcmp(a->history, b->history, sizeof a->history) == 0);
}

/* Results left in a log (fe_cg_log), as one kernel and as the device's loop, of a single
 * system and a batch of two: pending until the log is read, then the bits of the same
 * solves read at once; the log holds each solve's states though the solver runs again (solves
 * stopped at different limits).  In 2D a deterministic space (every drive: the graph's apply
 * has the same bits too) and an atomic one (one node a thread, and four), in 3D both (the
 * cells' pass); the graph in an atomic space is not the same bits run to run, so there
 * only the kernel.  First: a solve past the log's room, a batch the room left cannot take, a
 * log of another backend and one the host drives read at once; a log smaller than a batch
 * refused. */
static void cg_log_on(const struct fe_backend *gpu, int dim, int deterministic, int first)
{
  struct fe_mesh *m = dim == 2 ? meshgen(2, 40, 0.3, 4) : meshgen(3, 8, 0.3, 4);
  struct system y, y2;
  system_create(gpu, m, FE_STRATEGY_LMA, deterministic, 1, &y);
  system_create(gpu, m, FE_STRATEGY_LMA, deterministic, 0, &y2); /* a second b, for batches */
  struct fe_cg_log *log, *cpu_log;
  if (first) CHECK(fe_cg_log_create(gpu, FE_CG_MANY - 1, &log) == FE_ERR_USAGE);
  CHECK_OK(fe_cg_log_create(gpu, FE_CG_MANY, &log));
  CHECK_OK(fe_cg_log_create(test_cpu(), FE_CG_MANY, &cpu_log));
  const int drives[3] = {FE_CG_DRIVE_KERNEL, FE_CG_DRIVE_DEVICE, FE_CG_DRIVE_SYNC};
  const int limits[FE_CG_MANY] = {500, 2, 0, 500, 1, 500, 3, 500};
  struct fe_cg *cg[2] = {y.cg, y2.cg};
  const struct fe_vec *b[2] = {y.vb, y2.vb};
  struct fe_vec *x[2] = {y.vx, y2.vx};
  for (int d = 0; d < 3; d++) {
    if (drives[d] == FE_CG_DRIVE_DEVICE && !gpu->device_loops) continue;
    if (drives[d] != FE_CG_DRIVE_KERNEL && !deterministic) continue;
    if (drives[d] == FE_CG_DRIVE_SYNC && !first) continue;
    const int logs = drives[d] != FE_CG_DRIVE_SYNC;
    struct fe_cg_options opt = {.rtol = 1e-11, .jacobi = 1, .drive = drives[d]};
    struct fe_cg_result now[FE_CG_MANY], later[FE_CG_MANY], extra;
    for (int pass = 0; pass < 2; pass++) /* read at once, then logged */
      for (int i = 0; i < FE_CG_MANY; i++) {
        opt.max_iterations = limits[i];
        opt.log = pass ? log : NULL;
        CHECK_OK(fe_vec_set(y.vx, 0.0));
        CHECK_OK(fe_cg_solve(y.cg, y.a, y.vb, y.vx, &opt, pass ? &later[i] : &now[i]));
        if (pass) CHECK(later[i].pending == logs && later[i].drive == drives[d]);
      }
    CHECK(fe_cg_log_count(log) == (logs ? FE_CG_MANY : 0));
    opt.max_iterations = 500;
    for (int other = 0; other < 2 && first; other++) { /* no room left; another backend's log */
      opt.log = other ? cpu_log : log;
      CHECK_OK(fe_vec_set(y.vx, 0.0));
      CHECK_OK(fe_cg_solve(y.cg, y.a, y.vb, y.vx, &opt, &extra));
      same_result(&extra, &now[0]);
    }
    CHECK(fe_cg_log_count(cpu_log) == 0);
    CHECK_OK(fe_cg_log_read(log));
    CHECK(fe_cg_log_count(log) == 0);
    CHECK(now[0].converged && !now[1].converged && now[1].iterations == 2);
    for (int i = 0; i < FE_CG_MANY; i++) same_result(&later[i], &now[i]);
    if (!logs) continue;
    struct fe_cg_result many[2], logged[2];
    for (int pass = 0; pass < 2; pass++) { /* a batch, logged whole */
      opt.log = pass ? log : NULL;
      CHECK_OK(fe_vec_set(y.vx, 0.0));
      CHECK_OK(fe_vec_set(y2.vx, 0.0));
      CHECK_OK(fe_cg_solve_many(2, cg, y.a, b, x, &opt, pass ? logged : many));
    }
    CHECK(logged[0].pending && logged[1].pending && fe_cg_log_count(log) == 2);
    CHECK_OK(fe_cg_log_read(log));
    for (int j = 0; j < 2; j++) same_result(&logged[j], &many[j]);
    CHECK(many[0].converged && many[1].converged);
    if (!first) continue;
    for (int i = 0; i < FE_CG_MANY - 1; i++) { /* a batch of two where one state has room */
      opt.log = log;
      CHECK_OK(fe_cg_solve(y.cg, y.a, y.vb, y.vx, &opt, &later[i]));
    }
    CHECK(fe_cg_log_count(log) == FE_CG_MANY - 1);
    CHECK_OK(fe_vec_set(y.vx, 0.0));
    CHECK_OK(fe_vec_set(y2.vx, 0.0));
    CHECK_OK(fe_cg_solve_many(2, cg, y.a, b, x, &opt, logged));
    CHECK(!logged[0].pending && !logged[1].pending && fe_cg_log_count(log) == FE_CG_MANY - 1);
    for (int j = 0; j < 2; j++) same_result(&logged[j], &many[j]);
    CHECK_OK(fe_cg_log_read(log));
  }
  fe_cg_log_destroy(log);
  fe_cg_log_destroy(cpu_log);
  system_destroy(gpu, &y);
  system_destroy(gpu, &y2);
  meshgen_free(m);
}

static void cg_log(const struct fe_backend *gpu)
{
  cg_log_on(gpu, 2, 1, 1);
  cg_log_on(gpu, 2, 0, 0);
  cg_log_on(gpu, 3, 1, 0);
  cg_log_on(gpu, 3, 0, 0);
}

/* CG of several systems at once on the GPU against one by one (cg_many_checks.h), every
 * strategy and drive, 2D and 3D: the same bits where the scatter's order is fixed (a
 * deterministic space, cuSPARSE's SpMV), else to round-off; the LMA apply of several vectors
 * (one pass of the cells, atomics) against one apply each. */
static void cg_many_on_gpu(const struct fe_backend *gpu)
{
  const int drives[3] = {FE_CG_DRIVE_SYNC, FE_CG_DRIVE_AHEAD, FE_CG_DRIVE_DEVICE};
  const enum fe_strategy strategies[3] = {FE_STRATEGY_LMA, FE_STRATEGY_ADDTO, FE_STRATEGY_MATFREE};
  for (int dim = 2; dim <= 3; dim++) {
    struct fe_mesh *m = dim == 2 ? meshgen(2, 30, 0.3, 4) : meshgen(3, 7, 0.3, 4);
    const int ns = FE_NSYM(dim), nn = m->n_nodes;
    unsigned char *isd = calloc(nn, 1);
    for (int i = 0; i < nn; i++) isd[i] = meshgen_on_boundary(m, i) && m->coords[i * dim] < 0.5;
    double *diff = calloc((size_t)m->n_cells * ns, sizeof(double));
    for (int c = 0; c < m->n_cells; c++)
      for (int a = 0; a < dim; a++) diff[c * ns + (a == 0 ? 0 : a == 1 ? dim : 5)] = 1 + c % 3;
    for (int deterministic = 0; deterministic < 2; deterministic++)
      for (int k = 0; k < 3; k++) {
        struct setup s;
        make(gpu, m, isd, diff, diff, diff, deterministic, 0, &s);
        struct fe_op *a;
        CHECK_OK(fe_operator_create(s.space, strategies[k], &a));
        const struct fe_form form = {.mass = 1, .diffusion = 0.1};
        CHECK_OK(fe_operator_assemble(a, &form, &s.coef));
        const int exact = deterministic || strategies[k] == FE_STRATEGY_ADDTO;
        apply_many_agrees(a, exact ? 0 : 1e-13);
        for (int d = 0; d < 3; d++)
          if (drives[d] != FE_CG_DRIVE_DEVICE || gpu->device_loops)
            cg_many_checks(a, drives[d], exact);
        fe_op_destroy(a);
        release(gpu, &s);
      }
    free(isd);
    free(diff);
    meshgen_free(m);
  }
}

int main(void)
{
  struct fe_backend *gpu = test_gpu();
  if (!gpu) return TEST_SKIP;
  const struct fe_form forms[] = {
      {.mass = 1.0, .diffusion = 0.3},
      {.advection = -1.0},
      {.mass = 0.7, .diffusion = 0.2, .advection = 0.5},
      {.mass = 1.0, .lumped = 1, .diffusion = 0.1},
      {.mass = 1.0, .diffusion = 0.2, .absorption = 0.3},
      {.mass = 1.0, .lumped = 1, .diffusion = 0.1, .absorption = -0.4},
      /* the conservative advection form, lumped, with SUPG */
      {.mass = 0.7, .diffusion = 0.2, .advection = 0.5, .conservative = 1.0},
      {.lumped = 1, .advection = -1.0, .conservative = 0.5},
      {.mass = 1.0, .diffusion = 0.1, .advection = -0.8, .conservative = 1.0, .supg = 0.5},
      /* the mass, consistent and lumped (symmetric storage), and tested with SUPG (full) */
      {.mass = 1.0},
      {.mass = 1.0, .lumped = 1},
      {.mass = 1.0, .supg = 0.5}};
  for (int f = 0; f < 12; f++)
    for (int uniform = 0; uniform < 2; uniform++) {
      compare(gpu, 2, 12, &forms[f], uniform, FE_BLOCK_SHIFT_DEFAULT);
      compare(gpu, 3, 5, &forms[f], uniform, FE_BLOCK_SHIFT_DEFAULT);
    }
  for (int shift = 0; shift <= FE_BLOCK_SHIFT_MAX; shift += 3) { /* other interleave widths */
    compare(gpu, 2, 12, &forms[2], 0, shift);
    compare(gpu, 3, 5, &forms[2], 0, shift);
  }
  compare(gpu, 2, 300, &forms[2], 0, FE_BLOCK_SHIFT_DEFAULT); /* many blocks: 180000 cells */
  cg_agrees(gpu);
  cg_on_device(gpu);
  cg_many_on_gpu(gpu);
  cg_in_kernel(gpu);
  cg_in_kernel_large(gpu);
  kernel_limit();
  cg_log(gpu);
  fe_backend_destroy(gpu);
  TEST_DONE();
}
