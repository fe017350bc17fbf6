/* The Courant number of advection on P1 cells.  A step of length dt from t has
 *   C = dt * max over the cells c of (max over c's vertices of |u(t)|) / h_c,
 * h_c the cell's smallest height: 2 |K| / l for a triangle (l its longest edge:
 * exact), 3 |K| / (sqrt(3) / 4 l^2) for a tetrahedron, whose largest face is
 * bounded by the equilateral triangle on its longest edge l, so that h_c is at
 * most the true smallest height and C is never underestimated.  The heights are
 * fixed per mesh (computed once, on the host); the rate R = C / dt is measured
 * on the backend each time the velocity changes: the cell loop body below,
 * FE_HOST_DEVICE for both backends (the kernels' table: assembly/kernels.h,
 * fe_courant_kernels), reduced with a max.  --check and the run use the same
 * function, and so do the CPU and the GPU, which therefore choose the same
 * steps from the same velocity. */
#ifndef FE_COURANT_H
#define FE_COURANT_H

#include <math.h>

#include "assembly/space.h"
#include "core/host_device.h"
#include "io/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Cell c: the largest |u| of its vertices over its height (inv_height[c] = 1 / h_c), the
 * Courant number of a step of length 1.  A non-finite velocity gives NaN or Inf. */
FE_HOST_DEVICE static inline double fe_courant_cell_rate(int d, const int *cells,
                                                         const double *velocity,
                                                         const double *inv_height, long c)
{
  const int nv = d + 1;
  double top = 0; /* the largest |u|^2; a NaN once seen stays */
  for (int i = 0; i < nv; i++) {
    const double *u = velocity + (long)cells[c * nv + i] * d;
    double u2 = 0;
    for (int k = 0; k < d; k++)
      u2 = fe_mul_add(u[k], u[k], u2); /* unfused: the GPU's rate is the CPU's */
    if (u2 > top || u2 != u2) top = u2;
  }
  return sqrt(top) * inv_height[c];
}

/* 1 / h_c of each cell of m (n_cells values, host). */
void fe_courant_inverse_heights(const struct fe_mesh *m, double *inv_height);
/* The largest rate of m's cells on the host (velocity: d values per node); NaN when a
 * velocity is not finite. */
double fe_courant_rate_host(const struct fe_mesh *m, const double *inv_height,
                            const double *velocity);

/* The heights and the per-cell rates of a space, on its backend. */
struct fe_courant;
int fe_courant_create(const struct fe_space *space, struct fe_courant **out);
void fe_courant_destroy(struct fe_courant *cr);
/* *rate = the largest cell rate for the velocity on the backend (n_nodes * d values): the
 * Courant number of a step of length 1; NaN when a velocity is not finite. */
int fe_courant_rate(struct fe_courant *cr, const double *velocity, double *rate);

#ifdef __cplusplus
}
#endif

#endif
