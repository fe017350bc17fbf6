/* The limited step of flux-corrected transport (assembly/fct.h) on the CPU,
 * 2D and 3D: no new extrema at a low-order Courant number below 1 (with the
 * consistent-mass fluxes and without), Dirichlet values kept, the lumped-mass
 * integral changed only by the Galerkin operator's own net flux, the Courant
 * number linear in dt. */
#include "fct_checks.h"

static void check(int dim, int n, int dirichlet, int with_udot)
{
  struct fct_problem p;
  fct_problem_make(dim, n, dirichlet, &p);
  const int nn = p.m->n_nodes;
  double *out = malloc(sizeof(double) * nn), c1, c2, gain;
  fct_problem_step(test_cpu(), &p, with_udot, 1e-3, out, &c1, &gain);
  CHECK(c1 > 0);
  const double dt = 0.9e-3 / c1; /* a Courant number of 0.9 */
  fct_problem_step(test_cpu(), &p, with_udot, dt, out, &c2, &gain);
  CHECK_CLOSE(c2, 0.9, 1e-12);
  double lo = INFINITY, hi = -INFINITY, change = 0;
  for (int i = 0; i < nn; i++) {
    lo = fmin(lo, out[i]);
    hi = fmax(hi, out[i]);
    change = fmax(change, fabs(out[i] - p.u[i]));
    if (p.isd[i]) CHECK(out[i] == p.u[i]);
  }
  CHECK(lo >= -1e-14 && hi <= 1 + 1e-14);
  CHECK(change > 0.05); /* the step moved the front */
  if (!dirichlet) {
    const double before = fct_problem_integral(&p, p.u), after = fct_problem_integral(&p, out);
    CHECK_CLOSE(after - before, dt * gain, 1e-12 * before);
  }
  free(out);
  fct_problem_free(&p);
}

int main(void)
{
  for (int dirichlet = 0; dirichlet < 2; dirichlet++)
    for (int with_udot = 0; with_udot < 2; with_udot++) {
      check(2, 24, dirichlet, with_udot);
      check(3, 8, dirichlet, with_udot);
    }
  TEST_DONE();
}
