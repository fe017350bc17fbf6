#include "assembly/norms.h"

#include <math.h>

#include "assembly/element.h"
#include "assembly/reference.h"

double fe_cell_measure(const struct fe_mesh *m, long c)
{
  double x[4][3], jinv[3][3];
  fe_cell_coords(m->dim, m->cells, m->coords, c, x);
  double det = fe_geometry(m->dim, x, jinv);
  double vol = m->dim == 2 ? 0.5 : 1.0 / 6.0;
  return fabs(det) * vol;
}

double fe_l2_norm(const struct fe_mesh *m, const double *v)
{
  const int nv = m->nv;
  struct fe_reference ref;
  fe_reference_init(m->dim, &ref);
  double sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
  for (long c = 0; c < m->n_cells; c++) {
    double s = 0;
    for (int i = 0; i < nv; i++)
      for (int j = 0; j < nv; j++)
        s += v[m->cells[c * nv + i]] * ref.mass[i * nv + j] * v[m->cells[c * nv + j]];
    sum += s * fe_cell_measure(m, c) / ref.volume;
  }
  return sqrt(fmax(sum, 0));
}
