/* The Courant number (assembly/courant.h): the cells' heights once, on the
 * host, and the rate of a velocity by the backend's cell loop and a max. */
#include "assembly/courant.h"

#include <stdlib.h>

#include "assembly/kernels.h"
#include "assembly/measure.h"
#include "core/error.h"
#include "solvers/vec.h"

struct fe_courant {
  const struct fe_space *space;
  double *inv_height;  /* n_cells, on the backend */
  struct fe_vec *rate; /* n_cells: each cell's rate, for the max */
};

/* The longest edge of cell c. */
static double longest_edge(const struct fe_mesh *m, long c)
{
  double l2 = 0;
  for (int i = 0; i < m->nv; i++)
    for (int j = i + 1; j < m->nv; j++) {
      const double *a = m->coords + (long)m->cells[c * m->nv + i] * m->dim;
      const double *b = m->coords + (long)m->cells[c * m->nv + j] * m->dim;
      double e2 = 0;
      for (int k = 0; k < m->dim; k++) e2 += (a[k] - b[k]) * (a[k] - b[k]);
      l2 = fmax(l2, e2);
    }
  return sqrt(l2);
}

void fe_courant_inverse_heights(const struct fe_mesh *m, double *inv_height)
{
  const double equilateral = 0.4330127018922193; /* sqrt(3) / 4: the area of one of side 1 */
#pragma omp parallel for schedule(static)
  for (long c = 0; c < m->n_cells; c++) {
    const double l = longest_edge(m, c), measure = fe_cell_measure(m, c);
    const double largest_facet = m->dim == 2 ? l : equilateral * l * l;
    inv_height[c] = largest_facet / (m->dim * measure); /* h = d |K| / |largest facet| */
  }
}

double fe_courant_rate_host(const struct fe_mesh *m, const double *inv_height,
                            const double *velocity)
{
  double top = 0;
  for (long c = 0; c < m->n_cells; c++) {
    const double r = fe_courant_cell_rate(m->dim, m->cells, velocity, inv_height, c);
    if (!(r - r == 0)) return NAN; /* NaN or Inf, as fe_vec_minmax reports them */
    top = r > top ? r : top;
  }
  return top;
}

int fe_courant_create(const struct fe_space *space, struct fe_courant **out)
{
  struct fe_courant *cr;
  double *h;
  FE_CALLOC(1, &cr);
  cr->space = space;
  int err = fe_malloc((size_t)space->n_cells * sizeof *h, &h);
  if (!err) {
    fe_courant_inverse_heights(space->mesh, h);
    err = fe_backend_alloc(space->be, (size_t)space->n_cells * sizeof *h, h, &cr->inv_height);
    free(h);
  }
  if (!err) err = fe_vec_create(space->be, (size_t)space->n_cells, &cr->rate);
  if (err) {
    fe_courant_destroy(cr);
    return err;
  }
  *out = cr;
  return FE_SUCCESS;
}

void fe_courant_destroy(struct fe_courant *cr)
{
  if (!cr) return;
  fe_vec_destroy(cr->rate);
  fe_backend_free(cr->space->be, cr->inv_height);
  free(cr);
}

int fe_courant_rate(struct fe_courant *cr, const double *velocity, double *rate)
{
  const struct fe_space *s = cr->space;
  FE_CALL(s->be->assembly->courant.cell_rates(s, velocity, cr->inv_height, fe_vec_write(cr->rate)));
  double lo;
  return fe_vec_minmax(cr->rate, &lo, rate); /* NaN when a rate is not finite */
}
