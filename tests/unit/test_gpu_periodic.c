/* Periodic meshes on the CUDA backend against the CPU (issue 14, item 3): the halo's update
 * and reverse sum bit for bit; every strategy's apply, apply with lifting and diagonal (lma and
 * matfree with atomics, folded after, and deterministic; addto over the owned rows) to 1e-12,
 * every copy holding its owner's value bit for bit; addto's sparsity built on the GPU the same
 * arrays as the CPU's; the lumped mass and a limited step of flux-corrected transport to
 * 1e-12; 2D and 3D, with Dirichlet walls through the copies.
 * Skips without a GPU. */
#include <stdlib.h>
#include <string.h>

#include "assembly/fct.h"
#include "assembly/kernels.h"
#include "assembly/operator.h"
#include "backend_cpu.h"
#include "backend_gpu.h"
#include "backends/backends.h"
#include "csr_checks.h"
#include "periodic.h"
#include "solvers/halo.h"
#include "test.h"

static void halo_exchanges(const struct fe_backend *gpu)
{
  const int owner[5] = {2, 0, 2, 5, 2};
  const struct fe_backend *bes[2] = {test_cpu(), gpu};
  double got[2][22], sum[2][11];
  for (int k = 0; k < 2; k++) {
    struct fe_halo *h;
    CHECK_OK(fe_halo_create(bes[k], 6, 5, owner, &h));
    double x[22], y[11];
    for (int i = 0; i < 22; i++) x[i] = 0.5 * i + 1;
    for (int i = 0; i < 11; i++) y[i] = 1.0 / (i + 1);
    double *dx, *dy;
    CHECK_OK(fe_backend_alloc(bes[k], sizeof x, x, &dx));
    CHECK_OK(fe_backend_alloc(bes[k], sizeof y, y, &dy));
    CHECK_OK(fe_halo_update(h, 2, dx));
    CHECK_OK(fe_halo_sum(h, dy));
    CHECK_OK(bes[k]->vec->to_host(bes[k], got[k], dx, sizeof x));
    CHECK_OK(bes[k]->vec->to_host(bes[k], sum[k], dy, sizeof y));
    fe_backend_free(bes[k], dx);
    fe_backend_free(bes[k], dy);
    fe_halo_destroy(h);
  }
  CHECK(!memcmp(got[0], got[1], sizeof got[0]));
  CHECK(!memcmp(sum[0], sum[1], sizeof sum[0]));
}

/* what: 0 apply, 1 apply with lifting, 2 diagonal; y on the host */
static void action(const struct fe_backend *be, const struct periodic_problem *p,
                   enum fe_strategy s, int deterministic, const struct fe_form *form, int what,
                   const double *x, double *y)
{
  const struct fe_mesh *m = p->m;
  struct fe_space *space;
  CHECK_OK(fe_space_create(be, m, p->isd, &space));
  space->deterministic = deterministic;
  double *dd, *dv;
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * m->n_cells * FE_NSYM(m->dim), p->diff, &dd));
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * m->n_nodes * m->dim, p->vel, &dv));
  const struct fe_coefficients coef = {.diffusivity = dd, .velocity = dv};
  struct fe_op *op;
  CHECK_OK(fe_operator_create(space, s, &op));
  CHECK_OK(fe_operator_assemble(op, form, &coef));
  struct fe_vec *vx, *vy;
  CHECK_OK(fe_space_vec_create(space, &vx));
  CHECK_OK(fe_space_vec_create(space, &vy));
  CHECK_OK(fe_vec_upload(vx, x));
  CHECK_OK(fe_vec_set(vy, 0.25));
  if (what == 0) CHECK_OK(fe_op_apply(op, vx, vy));
  if (what == 1) CHECK_OK(fe_op_apply_full(op, vx, vy));
  if (what == 2) CHECK_OK(fe_op_diagonal(op, vy));
  CHECK_OK(fe_vec_update_ghosts(vy)); /* as a reader of the copies takes them */
  CHECK_OK(fe_vec_download(vy, y));
  fe_vec_destroy(vx);
  fe_vec_destroy(vy);
  fe_op_destroy(op);
  fe_backend_free(be, dd);
  fe_backend_free(be, dv);
  fe_space_destroy(space);
}

static void compare(const struct fe_backend *gpu, int dim, int n, int axes, int walls,
                    const struct fe_form *form)
{
  struct periodic_problem p;
  periodic_problem_make(dim, n, axes, walls, 99u + (unsigned)dim, &p);
  const int nn = p.m->n_nodes;
  double *x = malloc(sizeof(double) * nn), *yc = malloc(sizeof(double) * nn),
         *yg = malloc(sizeof(double) * nn);
  unsigned seed = 3;
  for (int i = 0; i < nn; i++) x[i] = meshgen_rand(&seed) - 0.5; /* copies: exchanged */
  { /* addto's sparsity built on the GPU: the CPU's, and its definition on the small meshes */
    struct fe_space *sc, *sg;
    CHECK_OK(fe_space_create(test_cpu(), p.m, p.isd, &sc));
    CHECK_OK(fe_space_create(gpu, p.m, p.isd, &sg));
    csr_check_same(sc, sg);
    if (nn < 2000) csr_check_definition(sg);
    fe_space_destroy(sc);
    fe_space_destroy(sg);
  }
  for (int s = 0; s < FE_STRATEGY_AUTO; s++)
    for (int what = 0; what < 3; what++) {
      action(test_cpu(), &p, (enum fe_strategy)s, 0, form, what, x, yc);
      double scale = 0;
      for (int i = 0; i < nn; i++) scale = fmax(scale, fabs(yc[i]));
      for (int det = 0; det < (s == FE_STRATEGY_ADDTO ? 1 : 2); det++) {
        action(gpu, &p, (enum fe_strategy)s, det, form, what, x, yg);
        for (int i = 0; i < nn; i++) {
          CHECK_CLOSE(yg[i] / scale, yc[i] / scale, 1e-12);
          CHECK(yg[i] == yg[fe_mesh_owner(p.m, i)]);
        }
      }
    }
  free(x);
  free(yc);
  free(yg);
  periodic_problem_free(&p);
}

/* The lumped mass and a limited step, on each backend. */
static void fct(const struct fe_backend *gpu, int dim, int n, int axes)
{
  struct periodic_problem p;
  periodic_problem_make(dim, n, axes, 0, 99u + (unsigned)dim, &p);
  const int nn = p.m->n_nodes;
  double *u = malloc(sizeof(double) * nn), *out[2], *ml[2], courant[2];
  unsigned seed = 8;
  for (int i = 0; i < nn; i++) u[i] = meshgen_rand(&seed);
  const struct fe_backend *bes[2] = {test_cpu(), gpu};
  for (int k = 0; k < 2; k++) {
    out[k] = malloc(sizeof(double) * nn);
    ml[k] = malloc(sizeof(double) * nn);
    struct fe_space *space;
    CHECK_OK(fe_space_create(bes[k], p.m, NULL, &space));
    struct fe_fct *f;
    CHECK_OK(fe_fct_create(space, 1.0, &f));
    double *dv, *dml;
    CHECK_OK(fe_backend_alloc(bes[k], sizeof(double) * nn * dim, p.vel, &dv));
    CHECK_OK(fe_backend_alloc(bes[k], sizeof(double) * nn, NULL, &dml));
    CHECK_OK(bes[k]->assembly->fct.lumped_mass(space, dml));
    CHECK_OK(bes[k]->vec->to_host(bes[k], ml[k], dml, sizeof(double) * nn));
    struct fe_vec *vu, *vout;
    CHECK_OK(fe_space_vec_create(space, &vu));
    CHECK_OK(fe_space_vec_create(space, &vout));
    CHECK_OK(fe_vec_upload(vu, u));
    CHECK_OK(fe_fct_step(f, dv, vu, NULL, 0.02, vout, &courant[k], NULL));
    CHECK_OK(fe_vec_download(vout, out[k]));
    fe_vec_destroy(vu);
    fe_vec_destroy(vout);
    fe_backend_free(bes[k], dv);
    fe_backend_free(bes[k], dml);
    fe_fct_destroy(f);
    fe_space_destroy(space);
  }
  for (int i = 0; i < nn; i++) {
    CHECK_CLOSE(ml[1][i], ml[0][i], 1e-12 * ml[0][i]);
    CHECK_CLOSE(out[1][i], out[0][i], 1e-12);
    CHECK(out[1][i] == out[1][fe_mesh_owner(p.m, i)]);
  }
  CHECK_CLOSE(courant[1], courant[0], 1e-12);
  for (int k = 0; k < 2; k++) {
    free(out[k]);
    free(ml[k]);
  }
  free(u);
  periodic_problem_free(&p);
}

int main(void)
{
  struct fe_backend *gpu = test_gpu();
  if (!gpu) return TEST_SKIP;
  halo_exchanges(gpu);
  const struct fe_form forms[] = {
      {.mass = 0.7, .diffusion = 0.2, .advection = 0.5},
      {.mass = 1.0, .lumped = 1, .diffusion = 0.1},
      {.mass = 1.0, .diffusion = 0.1, .advection = -0.8, .conservative = 1.0, .supg = 0.5}};
  for (int f = 0; f < 3; f++) {
    compare(gpu, 2, 12, 3, 0, &forms[f]);
    compare(gpu, 2, 12, 1, 1, &forms[f]);
    compare(gpu, 3, 5, 7, 0, &forms[f]);
    compare(gpu, 3, 5, 5, 1, &forms[f]);
  }
  compare(gpu, 2, 200, 3, 0, &forms[0]); /* many blocks: 80000 cells */
  fct(gpu, 2, 12, 3);
  fct(gpu, 3, 5, 7);
  fe_backend_destroy(gpu);
  TEST_DONE();
}
