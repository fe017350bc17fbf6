/* The Courant number's cell loop (assembly/courant.h) on the CPU, with OpenMP. */
#include "assembly/courant.h"
#include "backends/cpu/backend_cpu.h"
#include "core/error.h"

int fe_courant_cell_rates_cpu(const struct fe_space *s, const double *velocity,
                              const double *inv_height, double *rate)
{
#pragma omp parallel for schedule(static)
  for (long c = 0; c < s->n_cells; c++)
    rate[c] = fe_courant_cell_rate(s->d, s->cells, velocity, inv_height, c);
  return FE_SUCCESS;
}
