/* Local assembly on the CPU: element matrices by tensor contraction. */
#include "backends/cpu/backend_cpu.h"
#include "core/error.h"

static void cells_cpu(int d, enum fe_storage st, int upper, const struct fe_space *s,
                      const struct fe_form *form, const double *diff, const double *vel, double *e)
{
#pragma omp parallel for schedule(static)
  for (long c = 0; c < s->n_cells; c++)
    fe_cell_store(d, st, upper, &s->ref, form, s->cells, s->coords, diff, vel, s->dmask[c], c,
                  s->block_shift, e);
}

static void boundary_cells_cpu(int d, const struct fe_space *s, const struct fe_form *form,
                               const double *diff, const double *vel, double *elift)
{
  const int nk = (d + 1) * (d + 1);
#pragma omp parallel for schedule(static)
  for (long b = 0; b < s->n_bcells; b++)
    fe_cell_matrix(d, &s->ref, form, s->cells, s->coords, diff, vel, s->bcells[b], elift + b * nk);
}

/* constant d, storage and symmetry in each call, so that the element loops unroll */
static void cells_d(int d, const struct fe_space *s, const struct fe_form *form, enum fe_storage st,
                    const double *diff, const double *vel, double *e)
{
  if (st == FE_STORAGE_SYMMETRIC)
    cells_cpu(d, FE_STORAGE_SYMMETRIC, 1, s, form, diff, vel, e);
  else if (fe_form_symmetric(form))
    cells_cpu(d, FE_STORAGE_FULL, 1, s, form, diff, vel, e);
  else
    cells_cpu(d, FE_STORAGE_FULL, 0, s, form, diff, vel, e);
}

int fe_element_matrices_cpu(const struct fe_space *s, const struct fe_form *form,
                            enum fe_storage st, const double *diff, const double *vel, double *e,
                            double *elift)
{
  if (s->d == 2) {
    if (e) cells_d(2, s, form, st, diff, vel, e);
    boundary_cells_cpu(2, s, form, diff, vel, elift);
  } else {
    if (e) cells_d(3, s, form, st, diff, vel, e);
    boundary_cells_cpu(3, s, form, diff, vel, elift);
  }
  return FE_SUCCESS;
}
