/* CG with and without Jacobi on systems with known solutions: the assembled
 * mass + stiffness operator (both strategies) and a badly scaled diagonal one; several
 * systems at once (cg_many_checks.h); a log, which the CPU's solves never wait in. */
#include <stdlib.h>

#include "assembly/operator.h"
#include "backend_cpu.h"
#include "cg_many_checks.h"
#include "meshgen.h"
#include "solvers/cg.h"
#include "test.h"

static void solve_known(int dim, int n, enum fe_strategy strategy, int jacobi)
{
  struct fe_mesh *m = meshgen(dim, n, 0.3, 7);
  const int nn = m->n_nodes, ns = FE_NSYM(dim);
  const struct fe_backend *be = test_cpu();
  unsigned char *isd = calloc(nn, 1);
  for (int i = 0; i < nn; i++) isd[i] = meshgen_on_boundary(m, i);
  double *diff = calloc((size_t)m->n_cells * ns, sizeof(double));
  for (int c = 0; c < m->n_cells; c++) {
    diff[c * ns] = 1 + c % 3;
    diff[c * ns + (dim == 2 ? 2 : 3)] = 0.5;
    if (dim == 3) diff[c * ns + 5] = 2;
  }
  struct fe_space *space;
  CHECK_OK(fe_space_create(be, m, isd, &space));
  double *dd;
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * m->n_cells * ns, diff, &dd));
  struct fe_coefficients coef = {.diffusivity = dd};
  struct fe_op *a;
  CHECK_OK(fe_operator_create(space, strategy, &a));
  const struct fe_form form = {.mass = 1.0, .diffusion = 0.05};
  CHECK_OK(fe_operator_assemble(a, &form, &coef));

  double *xt = malloc(sizeof(double) * nn), *x = malloc(sizeof(double) * nn);
  unsigned seed = 3;
  for (int i = 0; i < nn; i++) xt[i] = meshgen_rand(&seed);
  struct fe_vec *vxt, *vb, *vx;
  CHECK_OK(fe_vec_create(be, nn, &vxt));
  CHECK_OK(fe_vec_create(be, nn, &vb));
  CHECK_OK(fe_vec_create(be, nn, &vx));
  CHECK_OK(fe_vec_upload(vxt, xt));
  CHECK_OK(fe_op_apply(a, vxt, vb));
  struct fe_cg *cg;
  CHECK_OK(fe_cg_create(vb, &cg));
  struct fe_cg_options opt = {.rtol = 1e-12, .max_iterations = 1000, .jacobi = jacobi};
  struct fe_cg_result r;
  CHECK_OK(fe_cg_solve(cg, a, vb, vx, &opt, &r));
  CHECK(r.converged);
  CHECK(r.iterations > 1 && r.iterations < nn);
  CHECK(r.residual <= 1e-12 * r.rhs_norm);
  CHECK_OK(fe_vec_download(vx, x));
  for (int i = 0; i < nn; i++) CHECK_CLOSE(x[i], xt[i], 1e-9);

  /* too few iterations: reported, not an error */
  opt.max_iterations = 2;
  CHECK_OK(fe_vec_set(vx, 0));
  CHECK_OK(fe_cg_solve(cg, a, vb, vx, &opt, &r));
  CHECK(!r.converged && r.iterations == 2 && r.history[0] > 0 && r.history[1] > 0);

  /* a log (fe_cg_log): the host drives every solve here, so none is left in it */
  struct fe_cg_log *log;
  CHECK_OK(fe_cg_log_create(be, FE_CG_MANY, &log));
  opt.log = log;
  opt.max_iterations = 1000;
  CHECK_OK(fe_vec_set(vx, 0));
  CHECK_OK(fe_cg_solve(cg, a, vb, vx, &opt, &r));
  CHECK(r.converged && !r.pending && r.iterations > 1 && fe_cg_log_count(log) == 0);
  CHECK_OK(fe_cg_log_read(log));
  fe_cg_log_destroy(log);
  opt.log = NULL;

  /* several systems at once (with Jacobi, as cg_many_checks solves them): the same bits as one
   * by one (the CPU sums in a fixed order) */
  if (jacobi) {
    cg_many_checks(a, FE_CG_DRIVE_AUTO, 1);
    apply_many_agrees(a, 0);
  }

  /* a lumped mass operator is solved by division */
  const struct fe_form lumped = {.mass = 1.0, .lumped = 1};
  CHECK_OK(fe_operator_assemble(a, &lumped, &coef));
  CHECK(a->is_diagonal);
  CHECK_OK(fe_op_apply(a, vxt, vb));
  opt.max_iterations = 1000;
  CHECK_OK(fe_cg_solve(cg, a, vb, vx, &opt, &r));
  CHECK(r.converged && r.iterations == 1);
  CHECK_OK(fe_vec_download(vx, x));
  for (int i = 0; i < nn; i++) CHECK_CLOSE(x[i], xt[i], 1e-14);

  fe_cg_destroy(cg);
  fe_vec_destroy(vxt);
  fe_vec_destroy(vb);
  fe_vec_destroy(vx);
  fe_op_destroy(a);
  fe_backend_free(be, dd);
  fe_space_destroy(space);
  free(isd);
  free(diff);
  free(xt);
  free(x);
  meshgen_free(m);
}

int main(void)
{
  for (int s = 0; s < 2; s++)
    for (int j = 0; j < 2; j++) {
      solve_known(2, 16, s ? FE_STRATEGY_ADDTO : FE_STRATEGY_LMA, j);
      solve_known(3, 5, s ? FE_STRATEGY_ADDTO : FE_STRATEGY_LMA, j);
    }
  TEST_DONE();
}
