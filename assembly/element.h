/* Element math for P1 simplices, shared by the CPU and CUDA backends.
 *
 * Element tensors are contractions of a per-element geometry tensor G with a
 * reference tensor K that depends only on the form (Knepley & Terrel, eqs. 1-8):
 *   mass       E_ij = |J| K^ij
 *   diffusion  E_ij = sum_{mu,nu} G^{mu nu} K^ij_{mu nu},
 *              G^{mu nu} = |J| sum_{a,b} Jinv_{mu a} D_{ab} Jinv_{nu b}
 *   advection  E_ij = sum_{k,mu} G^{k mu} K^ij_{k mu},  (P1 velocity u_k at vertex k)
 *              G^{k mu} = |J| sum_a Jinv_{mu a} u_k^a
 * with J_{a mu} = x^a_{mu+1} - x^a_0 the affine map from the reference simplex.
 * Every function is static inline and FE_HOST_DEVICE so that nvcc and the C
 * compiler build both backends from this one source; call them with a
 * constant `d` so that the loops unroll. */
#ifndef FE_ELEMENT_H
#define FE_ELEMENT_H

#include <math.h>

#include "core/host_device.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FE_NV(d) ((d) + 1)
#define FE_NK_MAX 16 /* entries of a 3D element matrix */

/* Reference tensors of one dimension (assembly/reference.c computes them). */
struct fe_reference {
  int d;
  double mass[FE_NK_MAX];              /* K^ij = int phi_i phi_j */
  double lumped[FE_NK_MAX];            /* row sums of mass on the diagonal */
  double stiffness[FE_NK_MAX][9];      /* K^ij_{mu nu} = int dphi_i/dxi_mu dphi_j/dxi_nu */
  double advection[FE_NK_MAX][4 * 3];  /* K^ij_{k mu} = int phi_i phi_k dphi_j/dxi_mu */
  double grad[4][3];                   /* dphi_i/dxi_mu (constant for P1) */
  double volume;                       /* 1/d! */
};

/* Coefficients of the form a*mass + b*diffusion + c*advection + e*absorption of one
 * operator; the absorption term is the mass weighted by the P0 rate lambda >= 0
 * (int lambda phi_i phi_j, lumped with the mass). */
struct fe_form {
  double mass;      /* a */
  int lumped;       /* mass lumped onto the diagonal */
  double diffusion; /* b */
  double advection; /* c */
  int uniform_diffusivity; /* the diffusivity array holds one tensor, the same in every cell */
  double absorption;       /* e */
  const double *lambda;    /* the absorption rate per cell (backend memory), when e != 0 */
  int uniform_lambda;      /* lambda holds one value, the same in every cell */
};

/* The weight of the mass tensor in cell c: a, plus e lambda_c with absorption. */
FE_HOST_DEVICE static inline double fe_cell_mass_weight(const struct fe_form *form, long c)
{
  if (form->absorption == 0) return form->mass;
  return form->mass + form->absorption * form->lambda[form->uniform_lambda ? 0 : c];
}

/* Element storage is blocked element-major: entry k of element e sits at
 * ((e / B) * nk + k) * B + e % B, with B = 2^shift elements per block (the
 * interleave width), so that B consecutive elements read entry k from
 * consecutive addresses (coalesced on the GPU, vectorisable on the CPU;
 * Markall section 4.2).  B = 1 is plain element-major storage.  The default
 * width was chosen by measurement (docs/performance.md); a space carries its own. */
#define FE_BLOCK_SHIFT_DEFAULT 5
#define FE_BLOCK_SHIFT_MAX 8

FE_HOST_DEVICE static inline long fe_block_index(long e, int k, int nk, int shift)
{
  return (((e >> shift) * nk + k) << shift) + (e & ((1L << shift) - 1));
}

/* Number of cells rounded up to whole blocks: the length of element storage. */
FE_HOST_DEVICE static inline long fe_blocked_cells(long n_cells, int shift)
{
  return ((n_cells + (1L << shift) - 1) >> shift) << shift;
}

/* Jacobian inverse (row mu, column a) and |det J| of the cell with vertex
 * coordinates x[v][a].  Returns the signed determinant. */
FE_HOST_DEVICE static inline double fe_geometry(int d, const double x[4][3], double jinv[3][3])
{
  double j[3][3];
  for (int a = 0; a < d; a++)
    for (int mu = 0; mu < d; mu++) j[a][mu] = x[mu + 1][a] - x[0][a];
  double det;
  if (d == 2) {
    det = j[0][0] * j[1][1] - j[0][1] * j[1][0];
    jinv[0][0] = j[1][1] / det;
    jinv[0][1] = -j[0][1] / det;
    jinv[1][0] = -j[1][0] / det;
    jinv[1][1] = j[0][0] / det;
  } else {
    double c00 = j[1][1] * j[2][2] - j[1][2] * j[2][1];
    double c01 = j[1][2] * j[2][0] - j[1][0] * j[2][2];
    double c02 = j[1][0] * j[2][1] - j[1][1] * j[2][0];
    det = j[0][0] * c00 + j[0][1] * c01 + j[0][2] * c02;
    double r = 1.0 / det;
    jinv[0][0] = c00 * r;
    jinv[1][0] = c01 * r;
    jinv[2][0] = c02 * r;
    jinv[0][1] = (j[0][2] * j[2][1] - j[0][1] * j[2][2]) * r;
    jinv[1][1] = (j[0][0] * j[2][2] - j[0][2] * j[2][0]) * r;
    jinv[2][1] = (j[0][1] * j[2][0] - j[0][0] * j[2][1]) * r;
    jinv[0][2] = (j[0][1] * j[1][2] - j[0][2] * j[1][1]) * r;
    jinv[1][2] = (j[0][2] * j[1][0] - j[0][0] * j[1][2]) * r;
    jinv[2][2] = (j[0][0] * j[1][1] - j[0][1] * j[1][0]) * r;
  }
  return det;
}

/* Symmetric tensor stored xx xy yy (2D) or xx xy xz yy yz zz (3D), expanded. */
FE_HOST_DEVICE static inline void fe_sym_expand(int d, const double *s, double m[3][3])
{
  if (d == 2) {
    m[0][0] = s[0];
    m[0][1] = m[1][0] = s[1];
    m[1][1] = s[2];
  } else {
    m[0][0] = s[0];
    m[0][1] = m[1][0] = s[1];
    m[0][2] = m[2][0] = s[2];
    m[1][1] = s[3];
    m[1][2] = m[2][1] = s[4];
    m[2][2] = s[5];
  }
}

/* Number of stored components of a symmetric d x d tensor. */
#define FE_NSYM(d) ((d) * ((d) + 1) / 2)

/* Positive semi-definiteness of the symmetric tensor s (FE_NSYM(d) values) by
 * its principal minors, with a tolerance relative to the largest diagonal
 * entry.  Returns 0 when it holds, else the failing test: 1 the diagonal entry
 * (a, a), 2 the 2x2 minor of rows a and b, 3 the determinant; *value is the
 * failing entry, minor or determinant. */
FE_HOST_DEVICE static inline int fe_sym_psd_failure(int d, const double *s, int *a_out, int *b_out,
                                                    double *value)
{
  double m[3][3];
  fe_sym_expand(d, s, m);
  double scale = 0;
  for (int a = 0; a < d; a++) scale = scale > fabs(m[a][a]) ? scale : fabs(m[a][a]);
  const double tol = 1e-12 * scale * scale;
  *a_out = *b_out = 0;
  for (int a = 0; a < d; a++)
    if (m[a][a] < 0) {
      *a_out = *b_out = a;
      *value = m[a][a];
      return 1;
    }
  for (int a = 0; a < d; a++)
    for (int b = a + 1; b < d; b++) {
      const double minor = m[a][a] * m[b][b] - m[a][b] * m[b][a];
      if (minor < -tol) {
        *a_out = a;
        *b_out = b;
        *value = minor;
        return 2;
      }
    }
  if (d == 3) {
    const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                       m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                       m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    if (det < -tol * scale) {
      *value = det;
      return 3;
    }
  }
  return 0;
}

/* G^{mu nu} = |J| Jinv D Jinv^T (Knepley & Terrel eq. 6 with a tensor D). */
FE_HOST_DEVICE static inline void fe_geometry_diffusion(int d, double jinv[3][3], double absdet,
                                                        const double *dsym, double g[9])
{
  double dm[3][3];
  fe_sym_expand(d, dsym, dm);
  for (int mu = 0; mu < d; mu++)
    for (int nu = 0; nu < d; nu++) {
      double s = 0;
      for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) s += jinv[mu][a] * dm[a][b] * jinv[nu][b];
      g[mu * d + nu] = absdet * s;
    }
}

/* G^{k mu} = |J| sum_a Jinv_{mu a} u_k^a for the nodal velocities u[k][a]. */
FE_HOST_DEVICE static inline void fe_geometry_advection(int d, double jinv[3][3], double absdet,
                                                        const double u[4][3], double g[12])
{
  for (int k = 0; k < d + 1; k++)
    for (int mu = 0; mu < d; mu++) {
      double s = 0;
      for (int a = 0; a < d; a++) s += jinv[mu][a] * u[k][a];
      g[k * d + mu] = absdet * s;
    }
}

/* Strong Dirichlet conditions keep the operators symmetric: rows and columns
 * of Dirichlet vertices are zeroed, and the cell that owns a Dirichlet vertex
 * puts 1 on its diagonal, so the assembled operator is the identity there.
 * dmask: bit i = vertex i is Dirichlet; bit 4+i = this cell owns vertex i. */
FE_HOST_DEVICE static inline double fe_dirichlet_entry(int i, int j, unsigned dmask, double v)
{
  unsigned di = (dmask >> i) & 1u, dj = (dmask >> j) & 1u;
  if (!di && !dj) return v;
  return (i == j && ((dmask >> (4 + i)) & 1u)) ? 1.0 : 0.0;
}

/* Gather the vertex coordinates of cell c (cells: nv indices per cell). */
FE_HOST_DEVICE static inline void fe_cell_coords(int d, const int *cells, const double *coords,
                                                 long c, double x[4][3])
{
  for (int v = 0; v < d + 1; v++) {
    int n = cells[c * (d + 1) + v];
    for (int a = 0; a < d; a++) x[v][a] = coords[(long)n * d + a];
  }
}

/* Geometry tensors of cell c for the form: |det J| and G_diff, G_adv (those the
 * form uses), from the coordinates, the P0 diffusivity and the P1 velocity. */
FE_HOST_DEVICE static inline double fe_cell_geometry(int d, const struct fe_form *form, const int *cells,
                                                     const double *coords, const double *diffusivity,
                                                     const double *velocity, long c, double gdiff[9],
                                                     double gadv[12])
{
  double x[4][3], jinv[3][3];
  fe_cell_coords(d, cells, coords, c, x);
  double det = fe_geometry(d, x, jinv);
  double absdet = det < 0 ? -det : det;
  if (form->diffusion != 0)
    fe_geometry_diffusion(d, jinv, absdet, diffusivity + (form->uniform_diffusivity ? 0 : c * FE_NSYM(d)), gdiff);
  if (form->advection != 0) {
    double u[4][3];
    for (int v = 0; v < d + 1; v++) {
      int n = cells[c * (d + 1) + v];
      for (int a = 0; a < d; a++) u[v][a] = velocity[(long)n * d + a];
    }
    fe_geometry_advection(d, jinv, absdet, u, gadv);
  }
  return absdet;
}

/* Entry k of the element matrix: the contraction for one (i, j); weight is the
 * cell's fe_cell_mass_weight. */
FE_HOST_DEVICE static inline double fe_element_entry(int d, const struct fe_reference *ref,
                                                     const struct fe_form *form, double weight,
                                                     double absdet, const double *gdiff,
                                                     const double *gadv, int k)
{
  const double *km = form->lumped ? ref->lumped : ref->mass;
  double s = weight * absdet * km[k];
  if (form->diffusion != 0) {
    double t = 0;
    for (int g = 0; g < d * d; g++) t += gdiff[g] * ref->stiffness[k][g];
    s += form->diffusion * t;
  }
  if (form->advection != 0) {
    double t = 0;
    for (int g = 0; g < (d + 1) * d; g++) t += gadv[g] * ref->advection[k][g];
    s += form->advection * t;
  }
  return s;
}

/* E = (a + e lambda_c) |J| K_mass + b G_diff : K_stiffness + c G_adv : K_advection,
 * weight = a + e lambda_c.  gdiff and gadv are ignored when b or c is 0.  E is
 * nv x nv, row-major. */
FE_HOST_DEVICE static inline void fe_element_matrix(int d, const struct fe_reference *ref,
                                                    const struct fe_form *form, double weight,
                                                    double absdet, const double gdiff[9],
                                                    const double gadv[12], double e[FE_NK_MAX])
{
  for (int k = 0; k < (d + 1) * (d + 1); k++)
    e[k] = fe_element_entry(d, ref, form, weight, absdet, gdiff, gadv, k);
}

/* The full element matrix of cell c for the form: geometry from the
 * coordinates, diffusivity per cell (FE_NSYM(d) values, P0), velocity per node
 * (d values, P1).  Returns |det J|. */
FE_HOST_DEVICE static inline double fe_cell_matrix(int d, const struct fe_reference *ref,
                                                   const struct fe_form *form, const int *cells,
                                                   const double *coords, const double *diffusivity,
                                                   const double *velocity, long c,
                                                   double e[FE_NK_MAX])
{
  double gdiff[9], gadv[12];
  double absdet = fe_cell_geometry(d, form, cells, coords, diffusivity, velocity, c, gdiff, gadv);
  fe_element_matrix(d, ref, form, fe_cell_mass_weight(form, c), absdet, gdiff, gadv, e);
  return absdet;
}

/* Row i of the consistent mass matrix of cell c applied to x (no Dirichlet
 * masking): |det J| sum_j K^ij x_j, for matrix-free norms. */
FE_HOST_DEVICE static inline double fe_cell_mass_row(int d, const struct fe_reference *ref, const int *cells,
                                                     const double *coords, const double *x, long c, int i)
{
  double xc[4][3], jinv[3][3];
  fe_cell_coords(d, cells, coords, c, xc);
  const double det = fe_geometry(d, xc, jinv);
  double s = 0;
  for (int j = 0; j < d + 1; j++) s += ref->mass[i * (d + 1) + j] * x[cells[c * (d + 1) + j]];
  return (det < 0 ? -det : det) * s;
}

/* The local stage of the LMA apply for cell c: gather x at its vertices and
 * multiply by its stored element matrix, y_i = sum_j E_ij x_j (Markall 3.5.1). */
FE_HOST_DEVICE static inline void fe_cell_lma_product(int d, const double *e, int shift, const int *cells,
                                                      const double *x, long c, double y[4])
{
  const int nv = d + 1, nk = nv * nv;
  double xe[4];
  for (int j = 0; j < nv; j++) xe[j] = x[cells[c * nv + j]];
  for (int i = 0; i < nv; i++) {
    double v = 0;
    for (int j = 0; j < nv; j++) v += e[fe_block_index(c, i * nv + j, nk, shift)] * xe[j];
    y[i] = v;
  }
}

/* The matrix-free local stage for cell c: y = E x_e, E its Dirichlet-masked
 * element matrix for the form, recomputed from the coordinates and K without
 * being formed.  For P1 the reference tensors factor through the reference
 * gradients B_{i mu} = dphi_i/dxi_mu and the reference mass Kmass:
 *   K^ij_{mu nu} = |ref| B_{i mu} B_{j nu},   K^ij_{k mu} = Kmass^ik B_{j mu},
 * so the contractions of Knepley & Terrel (eqs. 6-8) apply in factored form
 * (sum factorisation), with w = B^T x_e the reference gradient of x:
 *   diffusion  y_i = |ref| sum_mu B_{i mu} t_mu,  t = G_diff w = Jinv (|J| D (Jinv^T w))
 *   advection  y_i = sum_k Kmass^ik s_k,          s_k = sum_mu G^{k mu} w_mu = |J| u_k . (Jinv^T w)
 *   mass       y_i = |J| sum_j Kmass^ij x_j
 * which costs O(d^2 + (d+1)^2) flops instead of the (d+1)^2 d^2 of forming E.
 * Dirichlet vertices: their x enters as 0 (zeroed columns); their row is the
 * identity in the owning cell and 0 elsewhere (fe_dirichlet_entry). */
FE_HOST_DEVICE static inline void fe_cell_matfree_product(int d, const struct fe_reference *ref,
                                                          const struct fe_form *form, const int *cells,
                                                          const double *coords, const double *diffusivity,
                                                          const double *velocity, unsigned dmask,
                                                          const double *x, long c, double y[4])
{
  const int nv = d + 1;
  double xc[4][3], jinv[3][3], xe[4], xm[4];
  fe_cell_coords(d, cells, coords, c, xc);
  const double det = fe_geometry(d, xc, jinv), absdet = det < 0 ? -det : det;
  for (int j = 0; j < nv; j++) {
    xe[j] = x[cells[c * nv + j]];
    xm[j] = (dmask >> j) & 1u ? 0.0 : xe[j];
  }
  const double *km = form->lumped ? ref->lumped : ref->mass, weight = fe_cell_mass_weight(form, c);
  for (int i = 0; i < nv; i++) {
    double v = 0;
    for (int j = 0; j < nv; j++) v += km[i * nv + j] * xm[j];
    y[i] = weight * absdet * v;
  }
  if (form->diffusion != 0 || form->advection != 0) {
    double w[3], g[3]; /* reference and physical gradients of x */
    for (int mu = 0; mu < d; mu++) {
      double v = 0;
      for (int j = 0; j < nv; j++) v += ref->grad[j][mu] * xm[j];
      w[mu] = v;
    }
    for (int a = 0; a < d; a++) {
      double v = 0;
      for (int mu = 0; mu < d; mu++) v += jinv[mu][a] * w[mu];
      g[a] = v;
    }
    if (form->diffusion != 0) {
      double dm[3][3], q[3], t[3];
      fe_sym_expand(d, diffusivity + (form->uniform_diffusivity ? 0 : c * FE_NSYM(d)), dm);
      for (int a = 0; a < d; a++) {
        double v = 0;
        for (int b = 0; b < d; b++) v += dm[a][b] * g[b];
        q[a] = absdet * v;
      }
      for (int mu = 0; mu < d; mu++) {
        double v = 0;
        for (int a = 0; a < d; a++) v += jinv[mu][a] * q[a];
        t[mu] = v;
      }
      for (int i = 0; i < nv; i++) {
        double v = 0;
        for (int mu = 0; mu < d; mu++) v += ref->grad[i][mu] * t[mu];
        y[i] += form->diffusion * ref->volume * v;
      }
    }
    if (form->advection != 0) {
      double sk[4];
      for (int k = 0; k < nv; k++) {
        const long n = cells[c * nv + k];
        double v = 0;
        for (int a = 0; a < d; a++) v += velocity[n * d + a] * g[a];
        sk[k] = absdet * v;
      }
      for (int i = 0; i < nv; i++) {
        double v = 0;
        for (int k = 0; k < nv; k++) v += ref->mass[i * nv + k] * sk[k];
        y[i] += form->advection * v;
      }
    }
  }
  for (int i = 0; i < nv; i++)
    if ((dmask >> i) & 1u) y[i] = (dmask >> (4 + i)) & 1u ? xe[i] : 0.0;
}

#ifdef __cplusplus
}
#endif

#endif
