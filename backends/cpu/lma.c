/* The local matrix approach on the CPU: y = A^T (E (A x)) in Markall's three
 * stages; the scatter is a deterministic sum over each node's incidence. */
#include "assembly/node.h"
#include "backends/cpu/backend_cpu.h"
#include "core/error.h"

static void products(int d, enum fe_storage st, const struct fe_space *s, const double *e,
                     const double *x, double *work)
{
  const int nv = d + 1;
#pragma omp parallel for schedule(static)
  for (long c = 0; c < s->n_cells; c++) {
    double y[4];
    fe_cell_lma_product(d, st, e, s->block_shift, s->cells, x, c, y);
    for (int i = 0; i < nv; i++) work[c * nv + i] = y[i];
  }
}

int fe_lma_apply_cpu(const struct fe_space *s, enum fe_storage st, const double *e, const double *x,
                     double *y, double *work)
{
  /* constant d and storage in each call, so that the element loops unroll */
  if (st == FE_STORAGE_SYMMETRIC) {
    if (s->d == 2)
      products(2, FE_STORAGE_SYMMETRIC, s, e, x, work);
    else
      products(3, FE_STORAGE_SYMMETRIC, s, e, x, work);
  } else if (s->d == 2) {
    products(2, FE_STORAGE_FULL, s, e, x, work);
  } else {
    products(3, FE_STORAGE_FULL, s, e, x, work);
  }
  return fe_incidence_sum_cpu(s, s->inc_ptr, s->inc, work, y);
}

int fe_lma_diagonal_cpu(const struct fe_space *s, enum fe_storage st, const double *e, double *diag)
{
#pragma omp parallel for schedule(static)
  for (long n = 0; n < s->n_nodes; n++)
    diag[n] = fe_node_lma_diagonal(n, s->nv, st, s->inc_ptr, s->inc, e, s->block_shift);
  return FE_SUCCESS;
}
