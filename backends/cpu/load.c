/* Loads by quadrature on the CPU: the cell and facet loop bodies of assembly/load.h with
 * OpenMP (the gather is fe_incidence_sum_cpu). */
#include "assembly/load.h"
#include "backends/cpu/backend_cpu.h"
#include "core/error.h"

static void cells(int d, const struct fe_space *s, const struct fe_form *form, const double *diff,
                  const double *vel, const struct fe_program *f, double t, double *work)
{
#pragma omp parallel for schedule(static)
  for (long c = 0; c < s->n_cells; c++)
    fe_load_cell(d, &s->ref, &s->cell_rule, form, s->cells, s->coords, diff, vel, f, t, c,
                 work + c * (d + 1));
}

/* The programs at time t once (io/program.h, fe_program_at_time), then at every point. */
int fe_load_cells_cpu(const struct fe_space *s, const struct fe_form *form, const double *diff,
                      const double *vel, const struct fe_program *f, double t, double *work)
{
  struct fe_program at;
  fe_program_at_time(f, t, &at);
  if (s->d == 2)
    cells(2, s, form, diff, vel, &at, t, work);
  else
    cells(3, s, form, diff, vel, &at, t, work);
  return FE_SUCCESS;
}

int fe_load_facets_cpu(const struct fe_space *s, long m, const int *list, const int *vertices,
                       const struct fe_program *g, double t, double *work)
{
  const int d = s->d;
  struct fe_program at;
  fe_program_at_time(g, t, &at);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < m; i++)
    fe_load_facet(d, &s->facet_rule, vertices, s->coords, &at, t, list[i],
                  work + (long)list[i] * d);
  return FE_SUCCESS;
}
