/* Loads by quadrature (assembly/load.h): the backend's loops, through its table. */
#include "assembly/load.h"

#include "assembly/kernels.h"
#include "core/error.h"
#include "solvers/halo.h"

int fe_load_cells(const struct fe_space *s, const struct fe_form *form, const double *diffusivity,
                  const double *velocity, const struct fe_program *f, double t, double *work)
{
  return s->be->assembly->load.cells(s, form, diffusivity, velocity, f, t, work);
}

int fe_load_facets(const struct fe_space *s, long m, const int *list, const int *vertices,
                   const struct fe_program *g, double t, double *work)
{
  if (!m) return FE_SUCCESS;
  return s->be->assembly->load.facets(s, m, list, vertices, g, t, work);
}

int fe_load_gather(const struct fe_space *s, const int *ptr, const int *idx, const double *work,
                   double *out)
{
  FE_CALL(s->be->assembly->load.gather(s, ptr, idx, work, out));
  return fe_halo_complete(s->halo, 1, out);
}
