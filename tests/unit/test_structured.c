/* Structured meshes: measure, orientation, boundary facets. */
#include <stdlib.h>

#include "assembly/measure.h"
#include "assembly/reference.h"
#include "assembly/space.h"
#include "backend_cpu.h"
#include "core/error.h"
#include "io/structured.h"
#include "test.h"

static void check(int dim, int n)
{
  struct fe_mesh *m;
  CHECK_OK(fe_mesh_create_structured(dim, n, 0.3, 1, &m));
  CHECK(m->n_cells == (dim == 2 ? 2 * n * n : 6 * n * n * n));
  double total = 0;
  for (long c = 0; c < m->n_cells; c++) {
    double x[4][3], jinv[3][3];
    fe_cell_coords(dim, m->cells, m->coords, c, x);
    double det = fe_geometry(dim, x, jinv);
    CHECK(det > 0);
    total += fe_cell_measure(m, c);
  }
  CHECK_CLOSE(total, 1.0, 1e-12);
  /* every boundary facet lies on a face of the unit square / cube */
  double area = 0;
  for (int f = 0; f < m->n_facets; f++) {
    const int *v = m->facets + f * dim;
    int common = 0;
    for (int a = 0; a < dim; a++) {
      int all0 = 1, all1 = 1;
      for (int k = 0; k < dim; k++) {
        double x = m->coords[v[k] * dim + a];
        all0 &= x == 0.0;
        all1 &= x == 1.0;
      }
      common |= all0 || all1;
    }
    CHECK(common);
    if (dim == 3) {
      double e[2][3];
      for (int k = 0; k < 2; k++)
        for (int a = 0; a < 3; a++) e[k][a] = m->coords[v[k + 1] * 3 + a] - m->coords[v[0] * 3 + a];
      double cx = e[0][1] * e[1][2] - e[0][2] * e[1][1], cy = e[0][2] * e[1][0] - e[0][0] * e[1][2],
             cz = e[0][0] * e[1][1] - e[0][1] * e[1][0];
      area += 0.5 * sqrt(cx * cx + cy * cy + cz * cz);
    } else {
      area += hypot(m->coords[v[1] * 2] - m->coords[v[0] * 2], m->coords[v[1] * 2 + 1] - m->coords[v[0] * 2 + 1]);
    }
  }
  CHECK_CLOSE(area, dim == 2 ? 4.0 : 6.0, 1e-12);
  CHECK(fe_mesh_find_group(m, dim - 1, "boundary") && fe_mesh_find_group(m, dim - 1, "1"));
  /* the matrix-free mass apply integrates P1 fields exactly: 1 . M 1 = 1, x . M x = 1/3 */
  struct fe_space *space;
  CHECK_OK(fe_space_create(test_cpu(), m, NULL, &space));
  double *one = malloc(sizeof(double) * m->n_nodes), *x = malloc(sizeof(double) * m->n_nodes),
         *y = malloc(sizeof(double) * m->n_nodes);
  for (int i = 0; i < m->n_nodes; i++) {
    one[i] = 1;
    x[i] = m->coords[i * dim];
  }
  double s1 = 0, sx = 0;
  CHECK_OK(fe_space_mass_apply(space, one, y));
  for (int i = 0; i < m->n_nodes; i++) s1 += y[i];
  CHECK_OK(fe_space_mass_apply(space, x, y));
  for (int i = 0; i < m->n_nodes; i++) sx += x[i] * y[i];
  CHECK_CLOSE(s1, 1.0, 1e-12);
  CHECK_CLOSE(sx, 1.0 / 3.0, 1e-12);
  free(one);
  free(x);
  free(y);
  fe_space_destroy(space);
  fe_mesh_destroy(m);
}

int main(void)
{
  check(2, 9);
  check(3, 4);
  struct fe_mesh *m = NULL;
  CHECK(fe_mesh_create_structured(4, 3, 0, 1, &m) == FE_ERR_USAGE);
  TEST_DONE();
}
