/* Loads by quadrature on the CPU: the cell and facet loop bodies of assembly/load.h with
 * OpenMP (the gather is fe_incidence_sum_cpu). */
#include "assembly/load.h"
#include "backends/cpu/backend_cpu.h"
#include "core/error.h"

static void cells(int d, const struct fe_space *s, const struct fe_form *form, const double *diff,
                  const double *vel, const struct fe_program *f, double t, double *work)
{
#pragma omp parallel for schedule(static)
  for (long c = 0; c < s->n_cells; c++) {
    double load[4];
    fe_load_cell(d, &s->ref, &s->cell_rule, form, s->cells, s->coords, diff, vel, f, t, c, load);
    for (int i = 0; i < d + 1; i++) work[c * (d + 1) + i] = load[i];
  }
}

int fe_load_cells_cpu(const struct fe_space *s, const struct fe_form *form, const double *diff,
                      const double *vel, const struct fe_program *f, double t, double *work)
{
  if (s->d == 2)
    cells(2, s, form, diff, vel, f, t, work);
  else
    cells(3, s, form, diff, vel, f, t, work);
  return FE_SUCCESS;
}

int fe_load_facets_cpu(const struct fe_space *s, long m, const int *list, const int *vertices,
                       const struct fe_program *g, double t, double *work)
{
  const int d = s->d;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < m; i++) {
    double load[3];
    const long k = list[i];
    fe_load_facet(d, &s->facet_rule, vertices, s->coords, g, t, k, load);
    for (int v = 0; v < d; v++) work[k * d + v] = load[v];
  }
  return FE_SUCCESS;
}
