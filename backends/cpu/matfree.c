/* The matrix-free operator on the CPU: element matrices recomputed from the
 * coordinates and K inside each apply; nothing stored but the boundary cells'
 * matrices of the lifting. */
#include "assembly/node.h"
#include "backends/cpu/backend_cpu.h"
#include "core/error.h"

/* The dimension a literal at each call inside the parallel loop: the loop's outlined body
 * would see a variable, and GCC would call one generic product instead of inlining a 2D and a
 * 3D one (10.1 against 3.5 ms, 2D, 180K triangles, one thread).  The general product serves
 * every form here (symmetric 0): a symmetric form's, compiled without the velocity terms as
 * the GPU's is, measured the same on one thread (2D, 180K triangles: 2.79-2.85 ms an apply
 * either way; 3D, 384K tetrahedra: 16.9-17.6 ms). */
static void products(const struct fe_space *s, const struct fe_form *form, const double *diff,
                     const double *vel, const double *x, double *work)
{
  const int nv = s->d + 1;
#pragma omp parallel for schedule(static)
  for (long c = 0; c < s->n_cells; c++) {
    double y[4];
    if (nv == 3)
      fe_cell_matfree_product(2, 0, &s->ref, form, s->cells, s->coords, diff, vel, s->dmask[c], x,
                              c, y);
    else
      fe_cell_matfree_product(3, 0, &s->ref, form, s->cells, s->coords, diff, vel, s->dmask[c], x,
                              c, y);
    for (int i = 0; i < nv; i++) work[c * nv + i] = y[i];
  }
}

/* On one thread: each cell's product added into y as it comes (fe_scatter_one_thread_cpu),
 * called with constant d and, where there are no copies, owner (NULL). */
static inline void add_products(const struct fe_space *s, int d, const int *owner,
                                const struct fe_form *form, const double *diff, const double *vel,
                                const double *x, double *y)
{
  for (long c = 0; c < s->n_cells; c++) {
    double ye[4];
    fe_cell_matfree_product(d, 0, &s->ref, form, s->cells, s->coords, diff, vel, s->dmask[c], x, c,
                            ye);
    fe_scatter_cell_cpu(d + 1, s->cells + c * (d + 1), owner, ye, y);
  }
}

int fe_matfree_apply_cpu(const struct fe_space *s, const struct fe_form *form, const double *diff,
                         const double *vel, const double *x, double *y, double *work)
{
  if (fe_scatter_one_thread_cpu()) {
    fe_vec_set_cpu(s->be, (size_t)s->n_nodes, 0.0, y);
    if (s->d == 2 && s->owner)
      add_products(s, 2, s->owner, form, diff, vel, x, y);
    else if (s->d == 2)
      add_products(s, 2, NULL, form, diff, vel, x, y);
    else if (s->owner)
      add_products(s, 3, s->owner, form, diff, vel, x, y);
    else
      add_products(s, 3, NULL, form, diff, vel, x, y);
    fe_mesh_copy_owners(s->mesh, 1, y);
    return FE_SUCCESS;
  }
  products(s, form, diff, vel, x, work);
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
