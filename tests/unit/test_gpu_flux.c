/* The integrals of a tracer budget and the operators' Dirichlet rows on the CUDA backend against
 * the CPU's (tests/unit/flux_checks.h), 2D and 3D: each boundary facet's int (u_h . n) X_h, each
 * cell's int (div u_h) X_h and int lambda X_h, and the reaction of each strategy's masked
 * operator (mass, diffusion, SUPG advection), to 1e-12 relative (the device's FMAs differ from
 * the host's in the last bits); on a small mesh and on one of many blocks.  Skips without a
 * GPU. */
#include <stdio.h>

#include "backend_cpu.h"
#include "backend_gpu.h"
#include "flux_checks.h"

static double difference(const double *a, const double *b, long n)
{
  double worst = 0;
  for (long i = 0; i < n; i++) worst = fmax(worst, fabs(a[i] - b[i]));
  return worst / fmax(flux_max_abs(b, n), 1e-300);
}

static void compare(const struct fe_backend *gpu, int dim, int n)
{
  struct fe_mesh *m = meshgen(dim, n, 0.3, 11);
  struct flux_problem c, g;
  flux_problem_make(test_cpu(), m, &c);
  flux_problem_make(gpu, m, &g);
  const long most = m->n_nodes > m->n_cells ? m->n_nodes : m->n_cells;
  const long size = most > c.n_facets ? most : c.n_facets;
  double *a = malloc(sizeof(double) * size), *b = malloc(sizeof(double) * size);
  flux_facets(&c, 0.5, a);
  flux_facets(&g, 0.5, b);
  double diff = difference(b, a, c.n_facets);
  printf("%dD n %d facets: max |cuda - cpu| / max |cpu| = %.3g\n", dim, n, diff);
  CHECK(diff <= 1e-12);
  for (int divergence = 0; divergence < 2; divergence++) {
    flux_cells(&c, divergence, a);
    flux_cells(&g, divergence, b);
    diff = difference(b, a, m->n_cells);
    printf("%dD n %d cells (%s): %.3g\n", dim, n, divergence ? "div u" : "lambda", diff);
    CHECK(diff <= 1e-12);
  }
  const struct fe_form forms[] = {{.mass = 1, .diffusion = 0.3, .absorption = 0.2},
                                  {.mass = 1, .advection = -0.7, .conservative = 0.5, .supg = 0.5}};
  for (size_t f = 0; f < sizeof forms / sizeof *forms; f++)
    for (int s = 0; s < FE_STRATEGY_AUTO; s++)
      for (int deterministic = 0; deterministic < 2; deterministic++) {
        g.masked->deterministic = deterministic;
        flux_reaction(&c, (enum fe_strategy)s, &forms[f], 0.0, a);
        flux_reaction(&g, (enum fe_strategy)s, &forms[f], 0.0, b);
        diff = difference(b, a, m->n_nodes);
        printf("%dD n %d reaction, form %zu, %s%s: %.3g\n", dim, n, f,
               fe_strategy_name((enum fe_strategy)s), deterministic ? " deterministic" : "", diff);
        CHECK(diff <= 1e-12);
      }
  free(a);
  free(b);
  flux_problem_free(&c);
  flux_problem_free(&g);
  meshgen_free(m);
}

int main(void)
{
  struct fe_backend *gpu = test_gpu();
  if (!gpu) return TEST_SKIP;
  compare(gpu, 2, 16);
  compare(gpu, 3, 6);
  compare(gpu, 2, 300); /* 180000 cells: many blocks */
  compare(gpu, 3, 30);
  fe_backend_destroy(gpu);
  TEST_DONE();
}
