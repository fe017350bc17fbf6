/* The matrix-free operator on the CPU: element matrices recomputed from the
 * coordinates and K inside each apply; nothing stored but the boundary cells'
 * matrices of the lifting. */
#include "assembly/node.h"
#include "backends/cpu/backend_cpu.h"
#include "core/error.h"

static void products(int d, const struct fe_space *s, const struct fe_form *form,
                     const double *diff, const double *vel, const double *x, double *work)
{
#pragma omp parallel for schedule(static)
  for (long c = 0; c < s->n_cells; c++) {
    double y[4];
    fe_cell_matfree_product(d, &s->ref, form, s->cells, s->coords, diff, vel, s->dmask[c], x, c, y);
    for (int i = 0; i < d + 1; i++) work[c * (d + 1) + i] = y[i];
  }
}

int fe_matfree_apply_cpu(const struct fe_space *s, const struct fe_form *form, const double *diff,
                         const double *vel, const double *x, double *y, double *work)
{
  if (s->d == 2)
    products(2, s, form, diff, vel, x, work);
  else
    products(3, s, form, diff, vel, x, work);
  return fe_incidence_sum_cpu(s, s->inc_ptr, s->inc, work, y);
}

int fe_matfree_diagonal_cpu(const struct fe_space *s, const struct fe_form *form,
                            const double *diff, const double *vel, double *diag)
{
#pragma omp parallel for schedule(static)
  for (long n = 0; n < s->n_nodes; n++)
    diag[n] = fe_node_matfree_diagonal(s->d, &s->ref, form, n, s->inc_ptr, s->inc, s->cells,
                                       s->coords, s->dmask, diff, vel);
  return FE_SUCCESS;
}
