/* The integrals of a tracer budget (assembly/flux.h): the backend's loops, through its table. */
#include "assembly/flux.h"

#include "assembly/kernels.h"
#include "core/error.h"

int fe_flux_facets(const struct fe_space *s, long m, const int *nodes, const double *velocity,
                   const double *x, double scale, double *acc)
{
  if (!m) return FE_SUCCESS;
  return s->be->assembly->flux.facets(s, m, nodes, velocity, x, scale, acc);
}

int fe_flux_cells(const struct fe_space *s, const double *velocity, const double *weight,
                  int uniform, const double *x, double scale, double *acc)
{
  return s->be->assembly->flux.cells(s, velocity, weight, uniform, x, scale, acc);
}
