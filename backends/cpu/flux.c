/* The integrals of a tracer budget on the CPU: the facet and cell loop bodies of
 * assembly/flux.h with OpenMP, each adding to its own entry. */
#include "assembly/flux.h"
#include "backends/cpu/backend_cpu.h"
#include "core/error.h"

int fe_flux_facets_cpu(const struct fe_space *s, long m, const int *nodes, const double *velocity,
                       const double *x, double scale, double *acc)
{
  const int d = s->d;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < m; i++) acc[i] += scale * fe_flux_facet(d, nodes, s->coords, velocity, x, i);
  return FE_SUCCESS;
}

int fe_flux_cells_cpu(const struct fe_space *s, const double *velocity, const double *weight,
                      int uniform, const double *x, double scale, double *acc)
{
  const int d = s->d;
#pragma omp parallel for schedule(static)
  for (long c = 0; c < s->n_cells; c++)
    acc[c] +=
        scale * fe_flux_cell(d, &s->ref, s->cells, s->coords, velocity, weight, uniform, x, c);
  return FE_SUCCESS;
}
