/* The source and Neumann loads on the CUDA backend against the CPU's (tests/unit/load_checks.h),
 * 2D and 3D, by quadrature (the source with and without SUPG) and interpolated: to 1e-12
 * relative (the device's FMAs and math library differ from the host's in the last bits), on a
 * small mesh and on one of many blocks.  Skips without a GPU. */
#include <stdio.h>

#include "backend_cpu.h"
#include "backend_gpu.h"
#include "load_checks.h"

static const char *const source = "sin(3*x + t)*exp(-y) + x^4*(1 + z) + y/(1 + x^2)";
static const char *const flux = "cos(2*x*y - t) + z^3 - 0.5*x";

static void compare(const struct fe_backend *gpu, int dim, int n, enum fe_loads loads)
{
  struct fe_mesh *m = meshgen(dim, n, 0.3, 13);
  struct load_problem c, g;
  load_problem_make(test_cpu(), m, source, flux, loads, &c);
  load_problem_make(gpu, m, source, flux, loads, &g);
  double *a = malloc(sizeof(double) * m->n_nodes), *b = malloc(sizeof(double) * m->n_nodes);
  const char *mode = loads == FE_LOADS_QUADRATURE ? "quadrature" : "interpolated";
  for (int supg = 0; supg < 2; supg++) {
    load_source(&c, supg * 0.5, 0.3, a);
    load_source(&g, supg * 0.5, 0.3, b);
    const double diff = load_difference(m->n_nodes, b, a);
    printf("%dD n %d %s source, supg %d: max |cuda - cpu| / max |cpu| = %.3g\n", dim, n, mode, supg,
           diff);
    CHECK(diff <= 1e-12);
  }
  load_neumann(&c, 0.3, a);
  load_neumann(&g, 0.3, b);
  const double diff = load_difference(m->n_nodes, b, a);
  printf("%dD n %d %s Neumann: max |cuda - cpu| / max |cpu| = %.3g\n", dim, n, mode, diff);
  CHECK(diff <= 1e-12);
  free(a);
  free(b);
  load_problem_free(&c);
  load_problem_free(&g);
  meshgen_free(m);
}

int main(void)
{
  struct fe_backend *gpu = test_gpu();
  if (!gpu) return TEST_SKIP;
  for (int loads = 0; loads < 2; loads++) {
    compare(gpu, 2, 16, (enum fe_loads)loads);
    compare(gpu, 3, 6, (enum fe_loads)loads);
  }
  compare(gpu, 2, 300, FE_LOADS_QUADRATURE); /* 180000 cells: many blocks */
  compare(gpu, 3, 30, FE_LOADS_QUADRATURE);  /* 162000 cells */
  fe_backend_destroy(gpu);
  TEST_DONE();
}
