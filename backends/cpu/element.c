/* Local assembly on the CPU: element matrices by tensor contraction. */
#include "backends/cpu/backend_cpu.h"
#include "core/error.h"

static void cells_cpu(int d, const struct fe_space *s, const struct fe_form *form,
                      const double *diff, const double *vel, double *e)
{
  const int nk = (d + 1) * (d + 1);
#pragma omp parallel for schedule(static)
  for (long c = 0; c < s->n_cells; c++) {
    double m[FE_NK_MAX];
    fe_cell_matrix(d, &s->ref, form, s->cells, s->coords, diff, vel, c, m);
    const unsigned dmask = s->dmask[c];
    for (int i = 0; i < d + 1; i++)
      for (int j = 0; j < d + 1; j++)
        e[fe_block_index(c, i * (d + 1) + j, nk, s->block_shift)] =
            fe_dirichlet_entry(i, j, dmask, m[i * (d + 1) + j]);
  }
}

static void boundary_cells_cpu(int d, const struct fe_space *s, const struct fe_form *form,
                               const double *diff, const double *vel, double *elift)
{
  const int nk = (d + 1) * (d + 1);
#pragma omp parallel for schedule(static)
  for (long b = 0; b < s->n_bcells; b++)
    fe_cell_matrix(d, &s->ref, form, s->cells, s->coords, diff, vel, s->bcells[b], elift + b * nk);
}

int fe_element_matrices_cpu(const struct fe_space *s, const struct fe_form *form,
                            const double *diff, const double *vel, double *e, double *elift)
{
  /* a constant d in each call, so that the element loops unroll */
  if (s->d == 2) {
    if (e) cells_cpu(2, s, form, diff, vel, e);
    boundary_cells_cpu(2, s, form, diff, vel, elift);
  } else {
    if (e) cells_cpu(3, s, form, diff, vel, e);
    boundary_cells_cpu(3, s, form, diff, vel, elift);
  }
  return FE_SUCCESS;
}
