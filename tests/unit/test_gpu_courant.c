/* The Courant number on the CUDA backend against the CPU's, 2D and 3D: equal
 * bit for bit (the sum of squares unfused on the GPU), so that both choose the
 * same steps from the same velocity.  Skips without a GPU. */
#include <stdio.h>

#include "backend_cpu.h"
#include "backend_gpu.h"
#include "courant_checks.h"

static void compare(const struct fe_backend *gpu, int dim, int n)
{
  struct fe_mesh *m = meshgen(dim, n, 0.3, 11);
  double *v = courant_velocity(m);
  const double cpu = courant_rate_on(test_cpu(), m, v), cuda = courant_rate_on(gpu, m, v);
  if (cpu != cuda) fprintf(stderr, "%dD n %d: cpu %.17g, cuda %.17g\n", dim, n, cpu, cuda);
  CHECK(cpu > 0 && cpu == cuda);
  v[(m->n_nodes / 3) * dim] = NAN;
  CHECK(isnan(courant_rate_on(gpu, m, v)));
  free(v);
  meshgen_free(m);
}

int main(void)
{
  struct fe_backend *gpu = test_gpu();
  if (!gpu) return TEST_SKIP;
  compare(gpu, 2, 24);
  compare(gpu, 3, 8);
  compare(gpu, 2, 300); /* 180000 cells: many blocks */
  fe_backend_destroy(gpu);
  TEST_DONE();
}
