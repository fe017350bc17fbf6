/* The local matrix approach on the CPU: y = A^T (E (A x)) in Markall's three
 * stages; the scatter is a deterministic sum over each node's incidence. */
#include "assembly/node.h"
#include "backends/cpu/backend_cpu.h"
#include "core/error.h"

/* The local stage: work holds each cell's product.  Each arm calls the element function with
 * constant d and storage, so that its loops unroll: the outlined OpenMP body would otherwise get
 * them as variables. */
static void products(const struct fe_space *s, enum fe_storage st, const double *e,
                     const double *x, double *work)
{
  const int nv = s->nv, shift = s->block_shift, sym = st == FE_STORAGE_SYMMETRIC;
  const int *cells = s->cells;
#pragma omp parallel for schedule(static)
  for (long c = 0; c < s->n_cells; c++) {
    double *y = work + c * nv;
    if (nv == 3 && sym)
      fe_cell_lma_product(2, FE_STORAGE_SYMMETRIC, e, shift, cells, x, c, y);
    else if (nv == 3)
      fe_cell_lma_product(2, FE_STORAGE_FULL, e, shift, cells, x, c, y);
    else if (sym)
      fe_cell_lma_product(3, FE_STORAGE_SYMMETRIC, e, shift, cells, x, c, y);
    else
      fe_cell_lma_product(3, FE_STORAGE_FULL, e, shift, cells, x, c, y);
  }
}

int fe_lma_apply_cpu(const struct fe_space *s, enum fe_storage st, const double *e, const double *x,
                     double *y, double *work)
{
  products(s, st, e, x, work);
  return fe_incidence_sum_cpu(s, s->inc_ptr, s->inc, work, y);
}

int fe_lma_diagonal_cpu(const struct fe_space *s, enum fe_storage st, const double *e, double *diag)
{
#pragma omp parallel for schedule(static)
  for (long n = 0; n < s->n_nodes; n++)
    diag[n] = fe_node_lma_diagonal(n, s->nv, st, s->inc_ptr, s->inc, e, s->block_shift);
  return FE_SUCCESS;
}
