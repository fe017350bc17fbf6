/* Quadrature rules on simplices for the loads (assembly/load.h): a rule
 * integrates exactly every polynomial of its degree on a segment, triangle or
 * tetrahedron, with positive weights and points inside the simplex.
 *   segment      3 points, degree 5: Gauss-Legendre.
 *   triangle     7 points, degree 5: Radon's rule (Radon 1948; Dunavant,
 *                IJNME 21, 1985, rule 5 of table I).
 *   tetrahedron  14 points, degree 5: Walkington's rule (N. J. Walkington,
 *                "Quadrature on simplices of arbitrary dimension", CMU
 *                report 00-CNA-023, 2000), values verified to 40 digits by
 *                the moment equations.
 * The weights sum to 1: times the simplex's measure they integrate over it.
 * The points are barycentric coordinates, so that a point of a cell or facet
 * is the weighted sum of its vertices (fe_quadrature_point, host and device). */
#ifndef FE_QUADRATURE_H
#define FE_QUADRATURE_H

#include "core/host_device.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FE_QUADRATURE_MAX 14 /* points of the largest rule (the tetrahedron's) */

struct fe_quadrature {
  int dim;                             /* of the simplex: 1 segment, 2 triangle, 3 tetrahedron */
  int degree;                          /* the polynomials it integrates exactly */
  int n;                               /* points */
  double w[FE_QUADRATURE_MAX];         /* weights, summing to 1 */
  double lambda[FE_QUADRATURE_MAX][4]; /* barycentric coordinates, dim + 1 of them */
};

/* The rule of the loads on a simplex of dimension dim (1, 2 or 3). */
void fe_quadrature_simplex(int dim, struct fe_quadrature *q);

/* Point k of rule q on the simplex with vertices x (dim + 1 of them), in d dimensions. */
FE_HOST_DEVICE static inline void fe_quadrature_point(const struct fe_quadrature *q, int k, int d,
                                                      const double x[4][3], double p[3])
{
  p[0] = p[1] = p[2] = 0;
  for (int v = 0; v < q->dim + 1; v++)
    for (int a = 0; a < d; a++) p[a] += q->lambda[k][v] * x[v][a];
}

#ifdef __cplusplus
}
#endif

#endif
