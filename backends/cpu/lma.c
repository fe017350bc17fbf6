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

/* On one thread: each cell's product added into y as it comes (fe_scatter_one_thread_cpu),
 * called with constant d, storage and, where there are no copies, owner (NULL). */
static inline void add_products(const struct fe_space *s, int d, enum fe_storage st,
                                const int *owner, const double *e, const double *x, double *y)
{
  const int shift = s->block_shift, *cells = s->cells;
  for (long c = 0; c < s->n_cells; c++) {
    double ye[4];
    fe_cell_lma_product(d, st, e, shift, cells, x, c, ye);
    fe_scatter_cell_cpu(d + 1, cells + c * (d + 1), owner, ye, y);
  }
}

static inline void products_added(const struct fe_space *s, int d, enum fe_storage st,
                                  const double *e, const double *x, double *y)
{
  fe_vec_set_cpu(s->be, (size_t)s->n_nodes, 0.0, y);
  if (s->owner)
    add_products(s, d, st, s->owner, e, x, y);
  else
    add_products(s, d, st, NULL, e, x, y);
  fe_mesh_copy_owners(s->mesh, 1, y);
}

int fe_lma_apply_cpu(const struct fe_space *s, enum fe_storage st, const double *e, const double *x,
                     double *y, double *work)
{
  if (fe_scatter_one_thread_cpu()) {
    const int sym = st == FE_STORAGE_SYMMETRIC;
    if (s->nv == 3 && sym)
      products_added(s, 2, FE_STORAGE_SYMMETRIC, e, x, y);
    else if (s->nv == 3)
      products_added(s, 2, FE_STORAGE_FULL, e, x, y);
    else if (sym)
      products_added(s, 3, FE_STORAGE_SYMMETRIC, e, x, y);
    else
      products_added(s, 3, FE_STORAGE_FULL, e, x, y);
    return FE_SUCCESS;
  }
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
