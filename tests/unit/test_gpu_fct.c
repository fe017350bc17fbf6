/* The limited step of flux-corrected transport on the CUDA backend against
 * the CPU's, 2D and 3D, with and without Dirichlet nodes and mass fluxes, the non-conservative
 * and (in a compressible flow) the conservative advection form: the
 * results to 1e-13, the Courant numbers to 1e-13 relative.  Skips without a GPU. */
#include <stdio.h>

#include "backend_gpu.h"
#include "fct_checks.h"

static void compare(const struct fe_backend *gpu, int dim, int n, int dirichlet, int with_udot,
                    double beta)
{
  struct fct_problem p;
  fct_problem_make(dim, n, dirichlet, beta != 0, beta, &p);
  const int nn = p.m->n_nodes;
  double *a = malloc(sizeof(double) * nn), *b = malloc(sizeof(double) * nn);
  double ca, cb, ga, gb, diff = 0;
  fct_problem_step(test_cpu(), &p, with_udot, 2e-3, a, &ca, &ga);
  fct_problem_step(gpu, &p, with_udot, 2e-3, b, &cb, &gb);
  for (int i = 0; i < nn; i++) diff = fmax(diff, fabs(a[i] - b[i]));
  if (diff > 1e-13) fprintf(stderr, "%dD n %d: max |cpu - cuda| = %.3e\n", dim, n, diff);
  CHECK(diff <= 1e-13);
  CHECK_CLOSE(cb, ca, 1e-13);
  free(a);
  free(b);
  fct_problem_free(&p);
}

int main(void)
{
  struct fe_backend *gpu = test_gpu();
  if (!gpu) return TEST_SKIP;
  for (int dirichlet = 0; dirichlet < 2; dirichlet++)
    for (int with_udot = 0; with_udot < 2; with_udot++) {
      compare(gpu, 2, 24, dirichlet, with_udot, 0.0);
      compare(gpu, 3, 8, dirichlet, with_udot, 0.0);
      compare(gpu, 2, 24, dirichlet, with_udot, 1.0); /* the conservative form, compressible */
      compare(gpu, 3, 8, dirichlet, with_udot, 1.0);
    }
  compare(gpu, 2, 300, 1, 1, 0.0); /* 180000 cells: many blocks */
  fe_backend_destroy(gpu);
  TEST_DONE();
}
