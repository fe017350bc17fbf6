/* The Courant number (assembly/courant.h): the heights of a triangle and a
 * tetrahedron whose smallest height is known, the rate of a uniform flow, the
 * CPU backend's cell loop and max equal to the host's bit for bit, and a
 * non-finite velocity anywhere giving NaN (never a rate that ignores it). */
#include "backend_cpu.h"
#include "courant_checks.h"

static void check_heights(void)
{
  /* the right triangle: its smallest height 1 / sqrt(2), onto the hypotenuse */
  double c2[] = {0, 0, 1, 0, 0, 1};
  int k2[] = {0, 1, 2};
  const struct fe_mesh tri = {
      .dim = 2, .nv = 3, .n_nodes = 3, .n_cells = 1, .coords = c2, .cells = k2};
  double inv;
  fe_courant_inverse_heights(&tri, &inv);
  CHECK_CLOSE(inv, sqrt(2.0), 1e-15);
  /* the corner tetrahedron: its largest face the equilateral one, of side sqrt(2), the
   * estimate exact: 1 / sqrt(3) from the origin to x + y + z = 1 */
  double c3[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  int k3[] = {0, 1, 2, 3};
  const struct fe_mesh tet = {
      .dim = 3, .nv = 4, .n_nodes = 4, .n_cells = 1, .coords = c3, .cells = k3};
  fe_courant_inverse_heights(&tet, &inv);
  CHECK_CLOSE(inv, sqrt(3.0), 1e-15);
  /* a flow of speed 5 along the hypotenuse: 5 sqrt(2) */
  const double v[] = {3, 4, 3, 4, -3, -4};
  fe_courant_inverse_heights(&tri, &inv);
  CHECK_CLOSE(fe_courant_rate_host(&tri, &inv, v), 5 * sqrt(2.0), 1e-14);
}

static void check_backend(int dim, int n)
{
  struct fe_mesh *m = meshgen(dim, n, 0.3, 11);
  double *v = courant_velocity(m), *inv = malloc(sizeof(double) * m->n_cells);
  fe_courant_inverse_heights(m, inv);
  const double host = fe_courant_rate_host(m, inv, v);
  const double cpu = courant_rate_on(test_cpu(), m, v);
  CHECK(host > 0 && cpu == host); /* the same function, the same max */
  v[(m->n_nodes / 2) * dim + 1] = NAN;
  CHECK(isnan(courant_rate_on(test_cpu(), m, v)) && isnan(fe_courant_rate_host(m, inv, v)));
  v[(m->n_nodes / 2) * dim + 1] = INFINITY;
  CHECK(isnan(courant_rate_on(test_cpu(), m, v)) && isnan(fe_courant_rate_host(m, inv, v)));
  free(inv);
  free(v);
  meshgen_free(m);
}

int main(void)
{
  check_heights();
  check_backend(2, 20);
  check_backend(3, 6);
  TEST_DONE();
}
