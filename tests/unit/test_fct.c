/* The limited step of flux-corrected transport (assembly/fct.h) on the CPU,
 * 2D and 3D: no new extrema at a low-order Courant number below 1 (with the
 * consistent-mass fluxes and without), Dirichlet values kept, the lumped-mass
 * integral changed only by the Galerkin operator's own net flux, the Courant
 * number linear in dt.  With the conservative advection form in a compressible flow tangent
 * to the boundary: the integral kept to round-off (the non-conservative form changes it),
 * the field positive. */
#include "fct_checks.h"

static void check(int dim, int n, int dirichlet, int with_udot)
{
  struct fct_problem p;
  fct_problem_make(dim, n, dirichlet, 0, 0.0, &p);
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

static void conservative(int dim, int n, int with_udot)
{
  double change[2];
  for (int k = 0; k < 2; k++) {
    struct fct_problem p;
    fct_problem_make(dim, n, 0, 1, k ? 1.0 : 0.0, &p);
    const int nn = p.m->n_nodes;
    double *out = malloc(sizeof(double) * nn), c1, gain, lo = INFINITY;
    fct_problem_step(test_cpu(), &p, with_udot, 1e-3, out, &c1, &gain);
    CHECK(c1 > 0);
    fct_problem_step(test_cpu(), &p, with_udot, 0.9e-3 / c1, out, &c1, &gain);
    for (int i = 0; i < nn; i++) lo = fmin(lo, out[i]);
    CHECK(lo >= -1e-14);
    const double before = fct_problem_integral(&p, p.u), after = fct_problem_integral(&p, out);
    change[k] = fabs(after - before) / before;
    free(out);
    fct_problem_free(&p);
  }
  CHECK(change[1] <= 1e-14);
  CHECK(change[0] >= 1e-4);
}

int main(void)
{
  for (int with_udot = 0; with_udot < 2; with_udot++) {
    conservative(2, 24, with_udot);
    conservative(3, 8, with_udot);
  }
  for (int dirichlet = 0; dirichlet < 2; dirichlet++)
    for (int with_udot = 0; with_udot < 2; with_udot++) {
      check(2, 24, dirichlet, with_udot);
      check(3, 8, dirichlet, with_udot);
    }
  TEST_DONE();
}
