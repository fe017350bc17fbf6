#include "assembly/measure.h"

#include <math.h>

#include "assembly/element.h"

double fe_cell_measure(const struct fe_mesh *m, long c)
{
  double x[4][3], jinv[3][3];
  fe_cell_coords(m->dim, m->cells, m->coords, c, x);
  double det = fe_geometry(m->dim, x, jinv);
  double vol = m->dim == 2 ? 0.5 : 1.0 / 6.0;
  return fabs(det) * vol;
}
