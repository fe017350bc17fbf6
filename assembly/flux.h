/* The integrals of a tracer budget (docs/numerics.md, "Boundary fluxes and budgets"): the
 * facet and cell loops the scheme accumulates each step, written once here, FE_HOST_DEVICE,
 * for both backends (the kernels' table: assembly/kernels.h, fe_flux_kernels):
 *   facet  int_F (u_h . n) X_h ds over a boundary facet F, n its outward normal: exact for
 *          the P1 velocity and field with the facet mass matrix
 *          int_F phi_a phi_b = |F| (1 + delta_ab) / (d (d + 1));
 *   cell   int_K w X_h dx for a weight w constant in the cell: the P0 absorption rate, or
 *          div u_h (constant in the cell for the P1 velocity, fe_cell_divergence).
 * Summed over the boundary, the facet integrals are the column sums of the conservative
 * advection operator (beta = 1) applied to X, and the cell integrals of div u_h what beta
 * adds to them (assembly/element.h): the identities the budget rests on.  Each loop adds
 * scale times its value to acc[k] of its facet or cell, so that a step's terms accumulate with
 * the weights of the time integrator and are reduced once. */
#ifndef FE_FLUX_H
#define FE_FLUX_H

#include "assembly/element.h"
#include "assembly/space.h"
#include "core/host_device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The outward normal of a facet scaled by the facet's measure (|n| = |F|): x[0 .. d-1] its
 * vertices, x[d] the vertex across from it of the cell it bounds. */
FE_HOST_DEVICE static inline void fe_facet_normal(int d, const double x[4][3], double n[3])
{
  double e[2][3] = {{0, 0, 0}, {0, 0, 0}}, side = 0;
  for (int v = 1; v < d; v++)
    for (int a = 0; a < d; a++) e[v - 1][a] = x[v][a] - x[0][a];
  if (d == 2) {
    n[0] = e[0][1], n[1] = -e[0][0], n[2] = 0;
  } else {
    n[0] = 0.5 * (e[0][1] * e[1][2] - e[0][2] * e[1][1]);
    n[1] = 0.5 * (e[0][2] * e[1][0] - e[0][0] * e[1][2]);
    n[2] = 0.5 * (e[0][0] * e[1][1] - e[0][1] * e[1][0]);
  }
  for (int a = 0; a < d; a++) side += n[a] * (x[d][a] - x[0][a]);
  if (side > 0)
    for (int a = 0; a < 3; a++) n[a] = -n[a];
}

/* int_F (u_h . n) X_h over facet k, whose d vertices and then the opposite vertex of its cell
 * are nodes[k (d + 1) ...]: with U_a = u_a . n |F| at its vertices,
 * sum_ab U_a X_b (1 + delta_ab) / (d (d + 1)). */
FE_HOST_DEVICE static inline double fe_flux_facet(int d, const int *nodes, const double *coords,
                                                  const double *velocity, const double *x, long k)
{
  const int *f = nodes + k * (d + 1);
  double p[4][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, n[3];
  for (int v = 0; v <= d; v++)
    for (int a = 0; a < d; a++) p[v][a] = coords[(long)f[v] * d + a];
  fe_facet_normal(d, p, n);
  double un_sum = 0, unx = 0, x_sum = 0;
  for (int v = 0; v < d; v++) {
    double un = 0;
    for (int a = 0; a < d; a++) un += velocity[(long)f[v] * d + a] * n[a];
    const double xv = x[f[v]];
    un_sum += un;
    unx += un * xv;
    x_sum += xv;
  }
  return (unx + un_sum * x_sum) / (d * (d + 1));
}

/* int_K w X_h over cell c = w |K| (sum_v X_v) / (d + 1), w = div u_h of the P1 velocity when
 * velocity is given, else weight[uniform ? 0 : c]. */
FE_HOST_DEVICE static inline double fe_flux_cell(int d, const struct fe_reference *ref,
                                                 const int *cells, const double *coords,
                                                 const double *velocity, const double *weight,
                                                 int uniform, const double *x, long c)
{
  const int nv = d + 1;
  double p[4][3], jinv[3][3], w, sum = 0;
  fe_cell_coords(d, cells, coords, c, p);
  const double det = fe_geometry(d, p, jinv), absdet = det < 0 ? -det : det;
  if (velocity) {
    double u[4][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, gadv[12];
    for (int v = 0; v < nv; v++)
      for (int a = 0; a < d; a++) u[v][a] = velocity[(long)cells[c * nv + v] * d + a];
    fe_geometry_advection(d, jinv, absdet, u, gadv);
    w = fe_cell_divergence(d, ref, absdet, gadv);
  } else {
    w = weight[uniform ? 0 : c];
  }
  for (int v = 0; v < nv; v++) sum += x[cells[c * nv + v]];
  return w * absdet * ref->volume * sum / nv;
}

/* The loops on the space's backend (fe_flux_kernels), arrays on the backend:
 * acc[i] += scale * int_F (u_h . n) X_h for the m facets i of nodes (fe_flux_facet). */
int fe_flux_facets(const struct fe_space *s, long m, const int *nodes, const double *velocity,
                   const double *x, double scale, double *acc);
/* acc[c] += scale * int_K w X_h for every cell c (fe_flux_cell): w = div u_h with velocity,
 * else the P0 weight (one value when uniform). */
int fe_flux_cells(const struct fe_space *s, const double *velocity, const double *weight,
                  int uniform, const double *x, double scale, double *acc);

#ifdef __cplusplus
}
#endif

#endif
