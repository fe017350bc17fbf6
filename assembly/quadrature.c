/* The rules of assembly/quadrature.h, by their orbits under the simplex's symmetries. */
#include "assembly/quadrature.h"

#include <math.h>
#include <string.h>

/* One point of weight w at barycentric coordinates l. */
static void point(struct fe_quadrature *q, double w, double l0, double l1, double l2, double l3)
{
  const double l[4] = {l0, l1, l2, l3};
  q->w[q->n] = w;
  memcpy(q->lambda[q->n++], l, sizeof l);
}

/* The points with one barycentric coordinate b and the other dim coordinates a, b = 1 - dim a. */
static void orbit_one(struct fe_quadrature *q, double w, double a)
{
  const int nv = q->dim + 1;
  const double b = 1 - q->dim * a;
  for (int v = 0; v < nv; v++) {
    double l[4] = {a, a, a, a};
    l[v] = b;
    point(q, w, l[0], l[1], nv > 2 ? l[2] : 0, nv > 3 ? l[3] : 0);
  }
}

/* Tetrahedron: the 6 points with two coordinates a and two b = 1/2 - a. */
static void orbit_two(struct fe_quadrature *q, double w, double a)
{
  const double b = 0.5 - a;
  for (int i = 0; i < 4; i++)
    for (int j = i + 1; j < 4; j++) {
      double l[4] = {b, b, b, b};
      l[i] = l[j] = a;
      point(q, w, l[0], l[1], l[2], l[3]);
    }
}

void fe_quadrature_simplex(int dim, struct fe_quadrature *q)
{
  memset(q, 0, sizeof *q);
  q->dim = dim;
  q->degree = 5;
  if (dim == 1) { /* Gauss-Legendre: 1/2 and 1/2 -+ sqrt(15)/10 on [0, 1] */
    const double g = sqrt(15.0) / 10;
    point(q, 5.0 / 18, 0.5 + g, 0.5 - g, 0, 0);
    point(q, 4.0 / 9, 0.5, 0.5, 0, 0);
    point(q, 5.0 / 18, 0.5 - g, 0.5 + g, 0, 0);
  } else if (dim == 2) { /* Radon: the centroid and two orbits at (6 -+ sqrt(15)) / 21 */
    const double s = sqrt(15.0);
    point(q, 9.0 / 40, 1.0 / 3, 1.0 / 3, 1.0 / 3, 0);
    orbit_one(q, (155 - s) / 1200, (6 - s) / 21);
    orbit_one(q, (155 + s) / 1200, (6 + s) / 21);
  } else { /* Walkington's 14 points */
    orbit_one(q, 0.11268792571801585080, 0.31088591926330060980);
    orbit_one(q, 0.073493043116361949544, 0.092735250310891226402);
    orbit_two(q, 0.042546020777081466438, 0.045503704125649649492);
  }
}
