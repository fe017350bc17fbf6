/* BiCGStab on the CUDA backend against the CPU backend: the non-symmetric
 * systems of nonsymmetric.h, each strategy, with Jacobi and without, give
 * solutions that agree to 1e-10 relative, in 2D and 3D and on a system of
 * 200704 nodes.  Skips without a GPU. */
#include <stdio.h>

#include "backend_cpu.h"
#include "backend_gpu.h"
#include "nonsymmetric.h"

static void compare(const struct fe_backend *gpu, int dim, int n, int jacobi_min, double rtol)
{
  const struct fe_backend *cpu = test_cpu();
  const enum fe_strategy strategies[3] = {FE_STRATEGY_LMA, FE_STRATEGY_ADDTO, FE_STRATEGY_MATFREE};
  struct ns_problem p;
  ns_problem_make(dim, n, 1e-3, &p);
  const struct fe_form form = ns_form(1.0 / n, 1); /* cell Courant numbers about 1 */
  double *b = malloc(sizeof(double) * p.nn), *xc = malloc(sizeof(double) * p.nn),
         *xg = malloc(sizeof(double) * p.nn);
  for (int st = 0; st < 3; st++) {
    struct ns_system sc, sg;
    ns_system_make(cpu, &p, strategies[st], &form, &sc);
    ns_system_make(gpu, &p, strategies[st], &form, &sg);
    ns_apply(sc.op, p.xt, b);
    for (int jacobi = jacobi_min; jacobi < 2; jacobi++) {
      const struct fe_cg_options opt = {.rtol = rtol, .max_iterations = 2000, .jacobi = jacobi};
      struct fe_cg_result rc, rg;
      for (int i = 0; i < p.nn; i++) xc[i] = xg[i] = 0;
      ns_solve(FE_KRYLOV_BICGSTAB, sc.op, b, xc, &opt, &rc);
      ns_solve(FE_KRYLOV_BICGSTAB, sg.op, b, xg, &opt, &rg);
      const double computed = ns_residual(sg.op, b, xg);
      const double diff = test_relative_difference(xg, xc, p.nn);
      printf("%dD %d nodes %-7s jacobi %d: cpu %d iterations, gpu %d, gpu residual %.3e "
             "(computed %.3e, target %.3e), difference %.2e\n",
             dim, p.nn, fe_strategy_name(strategies[st]), jacobi, rc.iterations, rg.iterations,
             rg.residual, computed, rtol * rg.rhs_norm, diff);
      CHECK(rc.converged && rg.converged);
      CHECK(computed <= rtol * rg.rhs_norm * (1 + 1e-6));
      CHECK(diff <= 1e-10);
    }
    ns_system_free(cpu, &sc);
    ns_system_free(gpu, &sg);
  }
  free(b);
  free(xc);
  free(xg);
  ns_problem_free(&p);
}

int main(void)
{
  struct fe_backend *gpu = test_gpu();
  if (!gpu) return TEST_SKIP;
  compare(gpu, 2, 24, 0, 1e-13);
  compare(gpu, 3, 6, 0, 1e-13);
  compare(gpu, 2, 447, 1, 1e-12);
  fe_backend_destroy(gpu);
  TEST_DONE();
}
