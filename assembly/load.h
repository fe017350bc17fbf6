/* Loads by quadrature: the source and the Neumann flux integrated against the
 * test functions at the points of a degree-5 rule (assembly/quadrature.h),
 * the expression's program evaluated there, on the backend:
 *   source   F_i = sum_K |K| sum_q w_q (N_i + tau u_h . grad N_i)(x_q) f(x_q, t)
 *   Neumann  G_i = sum_F |F| sum_q w_q N_i(x_q) g(x_q, t)
 * (loads="quadrature"; the interpolated form, F = M f_h with the P1
 * interpolant f_h, is app/scheme.c's other way).  The SUPG term of the source
 * is the one of the mass matrix (assembly/element.h: the same tau, the P1
 * velocity u_h), so that for a P1 source both ways agree to round-off.  The
 * cell and facet loop bodies are written once here, FE_HOST_DEVICE, for both
 * backends (the kernels' table: assembly/kernels.h, fe_load_kernels); each
 * writes its contributions per cell or facet vertex, and the nodal loads are
 * gathered from them in incidence order, so that they do not depend on
 * threads. */
#ifndef FE_LOAD_H
#define FE_LOAD_H

#include <math.h>

#include "assembly/element.h"
#include "assembly/quadrature.h"
#include "assembly/space.h"
#include "core/host_device.h"
#include "io/program.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The measure of a facet (a segment in 2D, a triangle in 3D) with vertices x. */
FE_HOST_DEVICE static inline double fe_facet_measure_at(int d, const double x[4][3])
{
  double e[2][3] = {{0, 0, 0}, {0, 0, 0}};
  for (int v = 0; v < d - 1; v++)
    for (int a = 0; a < d; a++) e[v][a] = x[v + 1][a] - x[0][a];
  if (d == 2) return sqrt(e[0][0] * e[0][0] + e[0][1] * e[0][1]);
  const double cx = e[0][1] * e[1][2] - e[0][2] * e[1][1];
  const double cy = e[0][2] * e[1][0] - e[0][0] * e[1][2];
  const double cz = e[0][0] * e[1][1] - e[0][1] * e[1][0];
  return 0.5 * sqrt(cx * cx + cy * cy + cz * cz);
}

/* Cell c's source load, out[i] = int_K (N_i + tau u_h . grad N_i) f(t) by rule q: with
 * m_k = sum_q w_q lambda_k(x_q) f(x_q), the Galerkin part is |K| m_i and the SUPG part
 * tau |ref| sum_mu B_{i mu} sum_k G_adv^{k mu} m_k (u_h = sum_k u_k lambda_k, u_k . grad N_i =
 * sum_mu B_{i mu} (Jinv u_k)_mu, G_adv^{k mu} = |J| (Jinv u_k)_mu).  form: supg and nu_bar
 * (SUPG's tau, fe_supg_tau, read from the P0 diffusivity and the P1 velocity; supg 0: none),
 * uniform_diffusivity. */
FE_HOST_DEVICE static inline void fe_load_cell(int d, const struct fe_reference *ref,
                                               const struct fe_quadrature *q,
                                               const struct fe_form *form, const int *cells,
                                               const double *coords, const double *diffusivity,
                                               const double *velocity, const struct fe_program *f,
                                               double t, long c, double *out)
{
  const int nv = d + 1;
  double x[4][3], gstiff[9], gadv[12] = {0}, tau, m[4] = {0, 0, 0, 0}, load[4];
  const double absdet =
      fe_cell_geometry(d, ref, form, cells, coords, diffusivity, velocity, c, gstiff, gadv, &tau);
  fe_cell_coords(d, cells, coords, c, x);
  for (int k = 0; k < q->n; k++) {
    double p[3];
    fe_quadrature_point(q, k, d, x, p);
    const double v = q->w[k] * fe_program_eval(f, p[0], p[1], p[2], t);
    for (int i = 0; i < nv; i++) m[i] += v * q->lambda[k][i];
  }
  for (int i = 0; i < nv; i++) load[i] = absdet * ref->volume * m[i];
  for (int mu = 0; mu < d && tau != 0; mu++) {
    double s = 0;
    for (int k = 0; k < nv; k++) s += gadv[k * d + mu] * m[k];
    for (int i = 0; i < nv; i++) load[i] += tau * ref->volume * ref->grad[i][mu] * s;
  }
  for (int i = 0; i < nv; i++) out[i] = load[i];
}

/* Facet k's Neumann load, out[v] = int_F N_v g(t) by rule q for its d vertices
 * vertices[k d + v]. */
FE_HOST_DEVICE static inline void fe_load_facet(int d, const struct fe_quadrature *q,
                                                const int *vertices, const double *coords,
                                                const struct fe_program *g, double t, long k,
                                                double *out)
{
  double x[4][3] = {{0}}, load[3];
  for (int v = 0; v < d; v++) {
    load[v] = 0;
    for (int a = 0; a < d; a++) x[v][a] = coords[(long)vertices[k * d + v] * d + a];
  }
  for (int j = 0; j < q->n; j++) {
    double p[3];
    fe_quadrature_point(q, j, d, x, p);
    const double value = q->w[j] * fe_program_eval(g, p[0], p[1], p[2], t);
    for (int v = 0; v < d; v++) load[v] += value * q->lambda[j][v];
  }
  const double measure = fe_facet_measure_at(d, x);
  for (int v = 0; v < d; v++) out[v] = measure * load[v];
}

/* The loops on the space's backend (fe_load_kernels), programs and arrays on the backend:
 * work[c nv + i] = cell c's source load of f at t (fe_load_cell, the space's cell rule). */
int fe_load_cells(const struct fe_space *s, const struct fe_form *form, const double *diffusivity,
                  const double *velocity, const struct fe_program *f, double t, double *work);
/* work[k d + v] = facet k's Neumann load of g at t (fe_load_facet, the space's facet rule) for
 * the m facets k = list[i] whose nodes are vertices[k d ...]. */
int fe_load_facets(const struct fe_space *s, long m, const int *list, const int *vertices,
                   const struct fe_program *g, double t, double *work);
/* out[n] = the sum of work[idx[j]] over j from ptr[n] to ptr[n + 1], in that order, for every
 * node n: the nodal loads from the contributions of its cells (the space's incidence) or
 * facets. */
int fe_load_gather(const struct fe_space *s, const int *ptr, const int *idx, const double *work,
                   double *out);

#ifdef __cplusplus
}
#endif

#endif
