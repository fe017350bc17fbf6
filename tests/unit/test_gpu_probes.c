/* Probes on the CUDA backend against the CPU's, 2D and 3D: the same located points and the
 * same field give the same bits (the interpolation unfused on the GPU), from the nodal field
 * and from values at the cells' vertices; the readout on the GPU (readout_checks.h).  Skips
 * without a GPU. */
#include <stdio.h>
#include <string.h>

#include "backend_cpu.h"
#include "backend_gpu.h"
#include "probes_checks.h"
#include "readout_checks.h"

static void compare(const struct fe_backend *gpu, int dim, int n)
{
  struct fe_mesh *m = meshgen(dim, n, 0.3, 5);
  long count;
  double *x = probe_points(m, &count), *field = probe_field(m);
  struct fe_probe_location *loc = malloc(sizeof *loc * count);
  const size_t bytes = sizeof(double) * count * 2;
  double *cpu = malloc(bytes), *cuda = malloc(bytes);
  CHECK_OK(fe_probes_locate(m, count, x, loc));
  probe_values_on(test_cpu(), m, count, loc, field, cpu);
  probe_values_on(gpu, m, count, loc, field, cuda);
  long differ = 0;
  for (long i = 0; i < count * 2; i++) differ += memcmp(&cpu[i], &cuda[i], sizeof(double)) != 0;
  if (differ) fprintf(stderr, "%dD n %d: %ld of %ld values differ\n", dim, n, differ, count * 2);
  CHECK(differ == 0);
  free(cpu);
  free(cuda);
  free(loc);
  free(field);
  free(x);
  meshgen_free(m);
}

int main(void)
{
  struct fe_backend *gpu = test_gpu();
  if (!gpu) return TEST_SKIP;
  compare(gpu, 2, 20);
  compare(gpu, 3, 6);
  compare(gpu, 2, 300); /* 90601 nodes as probes: many blocks */
  check_readout(gpu);
  fe_backend_destroy(gpu);
  TEST_DONE();
}
