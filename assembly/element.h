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
  /* The stiffness K^ij_{mu nu} = int dphi_i/dxi_mu dphi_j/dxi_nu as the weights of a
   * symmetric G, mu <= nu in fe_sym_expand's order: K^ij_{mu mu}, and K^ij_{mu nu} + K^ij_{nu
   * mu} off the diagonal (G : K^ij in 6 products instead of 9) */
  double stiffness_sym[FE_NK_MAX][6];
  double advection[FE_NK_MAX][4 * 3];  /* K^ij_{k mu} = int phi_i phi_k dphi_j/dxi_mu */
  double grad[4][3];                   /* dphi_i/dxi_mu (constant for P1) */
  double volume;                       /* 1/d! */
};

/* Coefficients of the form a*mass + b*diffusion + c*advection + e*absorption of one
 * operator; the absorption term is the mass weighted by the P0 rate lambda >= 0
 * (int lambda phi_i phi_j, lumped with the mass).  The advection term is
 * int phi_i u . grad phi_j + beta int phi_i (div u) phi_j, Fluidity's conservative_advection
 * beta (assemble/Advection_Diffusion_CG.F90): beta 1 the conservative form div(u T), 0 the
 * non-conservative u . grad T; div u is constant in a cell for the P1 velocity, so the beta
 * term is the mass weighted by c beta div u, lumped with the mass as absorption is. */
struct fe_form {
  double mass;      /* a */
  int lumped;       /* mass lumped onto the diagonal */
  double diffusion; /* b */
  double advection; /* c */
  double conservative;     /* beta */
  int uniform_diffusivity; /* the diffusivity array holds one tensor, the same in every cell */
  double absorption;       /* e */
  const double *lambda;    /* the absorption rate per cell (backend memory), when e != 0 */
  int uniform_lambda;      /* lambda holds one value, the same in every cell */
  /* SUPG (fe_supg_tau): the mass, absorption and advection terms tested with
   * N_i + tau u . grad N_i.  supg is Fluidity's nu_scale (0: plain Galerkin), nu_bar how xi
   * follows the Peclet number: enum fe_nu_bar of io/case.h (0 optimal, 1 doubly asymptotic,
   * 2 critical rule, 3 unity).  The diffusivity array is read for tau whatever b is. */
  double supg;
  int nu_bar;
};

/* Whether the form reads the velocity, and whether it has a stiffness-like term (diffusion,
 * or SUPG's streamline diffusion tau (u . grad N_i)(u . grad N_j)). */
FE_HOST_DEVICE static inline int fe_form_velocity(const struct fe_form *form)
{
  return form->advection != 0 || form->supg != 0;
}
FE_HOST_DEVICE static inline int fe_form_stiffness(const struct fe_form *form)
{
  return form->diffusion != 0 || (form->supg != 0 && form->advection != 0);
}

/* Whether the form's element matrices are symmetric: the mass (lumped or not), diffusion and
 * absorption terms are; advection (with its conservative beta term) and SUPG's test functions
 * are not.  A symmetric form's matrices are symmetric bit for bit (fe_element_entry). */
FE_HOST_DEVICE static inline int fe_form_symmetric(const struct fe_form *form)
{
  return !fe_form_velocity(form);
}

/* How an operator stores its element matrices: every entry, row-major (nv^2), or the upper
 * triangle of a symmetric matrix row by row (nv (nv + 1) / 2: 00 01 02 11 12 22 in 2D, the
 * order of fe_sym_expand's tensors).  Entry k of either sits at fe_block_index(e, k,
 * fe_storage_entries(nv, st), shift). */
enum fe_storage { FE_STORAGE_FULL, FE_STORAGE_SYMMETRIC };

/* The storage of a form's element matrices in LMA: the upper triangle when the form is
 * symmetric, every entry otherwise.  The one place the choice is made, for every backend. */
FE_HOST_DEVICE static inline enum fe_storage fe_form_storage(const struct fe_form *form)
{
  return fe_form_symmetric(form) ? FE_STORAGE_SYMMETRIC : FE_STORAGE_FULL;
}

/* Entries stored per element. */
FE_HOST_DEVICE static inline int fe_storage_entries(int nv, enum fe_storage st)
{
  return st == FE_STORAGE_SYMMETRIC ? nv * (nv + 1) / 2 : nv * nv;
}

/* The stored entry that holds E_ij: in symmetric storage that of (min(i, j), max(i, j)). */
FE_HOST_DEVICE static inline int fe_storage_entry(int nv, enum fe_storage st, int i, int j)
{
  if (st == FE_STORAGE_FULL) return i * nv + j;
  const int r = i < j ? i : j, s = i < j ? j : i;
  return r * nv - r * (r - 1) / 2 + s - r;
}

/* The (i, j) of stored entry k (i <= j in symmetric storage). */
FE_HOST_DEVICE static inline void fe_storage_pair(int nv, enum fe_storage st, int k, int *i, int *j)
{
  if (st == FE_STORAGE_FULL) {
    *i = k / nv;
    *j = k % nv;
    return;
  }
  int r = 0;
  for (; k >= nv - r; r++) k -= nv - r;
  *i = r;
  *j = r + k;
}

/* div u in a cell from its advection geometry tensor G_adv (fe_geometry_advection): for
 * u_h = sum_k u_k phi_k, |J| div u = sum_k sum_mu B_{k mu} G_adv^{k mu} with B_{k mu} =
 * dphi_k/dxi_mu, constant in the cell. */
FE_HOST_DEVICE static inline double fe_cell_divergence(int d, const struct fe_reference *ref,
                                                       double absdet, const double *gadv)
{
  double s = 0;
  for (int k = 0; k < d + 1; k++)
    for (int mu = 0; mu < d; mu++) s += ref->grad[k][mu] * gadv[k * d + mu];
  return s / absdet;
}

/* The weight of the mass tensor in cell c: a, plus e lambda_c with absorption, plus
 * c beta div u with the conservative advection form (gadv, the cell's G_adv, read then only). */
FE_HOST_DEVICE static inline double fe_cell_mass_weight(int d, const struct fe_reference *ref,
                                                        const struct fe_form *form, long c,
                                                        double absdet, const double *gadv)
{
  double w = form->mass;
  if (form->absorption != 0) w += form->absorption * form->lambda[form->uniform_lambda ? 0 : c];
  if (form->advection != 0 && form->conservative != 0)
    w += form->advection * form->conservative * fe_cell_divergence(d, ref, absdet, gadv);
  return w;
}

/* Element storage is blocked element-major: entry k of element e sits at
 * ((e / B) * nk + k) * B + e % B, with B = 2^shift elements per block (the
 * interleave width), so that B consecutive elements read entry k from
 * consecutive addresses (coalesced on the GPU, vectorisable on the CPU;
 * Markall section 4.2).  B = 1 is plain element-major storage.  The default
 * width was chosen by measurement (docs/performance.md); a space carries its own. */
#define FE_BLOCK_SHIFT_DEFAULT 5
#define FE_BLOCK_SHIFT_MAX 8
/* The boundary cells' full matrices of the lifting (fe_space's bcells, the lift lists) are
 * blocked the same way, at this fixed width: the lift lists hold their offsets, so the width
 * cannot follow a space's own. */
#define FE_LIFT_SHIFT FE_BLOCK_SHIFT_DEFAULT

/* Entry k of a cell lies k << shift after its entry 0, so that a loop over a cell's entries
 * adds a small int to one base, e + fe_block_index(c, 0, nk, shift), instead of computing
 * this 64-bit index for each (eight integer instructions an entry on the GPU). */
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
    double r = 1.0 / det; /* one division, as in 3D: four cost the GPU a tenth of a 2D kernel */
    jinv[0][0] = j[1][1] * r;
    jinv[0][1] = -j[0][1] * r;
    jinv[1][0] = -j[1][0] * r;
    jinv[1][1] = j[0][0] * r;
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

/* G^{mu nu} = scale Jinv D Jinv^T (Knepley & Terrel eq. 6 with a tensor D; scale is b |J|),
 * as (Jinv D) Jinv^T: 2 d^3 flops where the triple sum per entry took d^4 + d^2 (d^3 of them). */
FE_HOST_DEVICE static inline void fe_geometry_diffusion(int d, double jinv[3][3], double scale,
                                                        const double *dsym, double g[9])
{
  double dm[3][3], t[3][3];
  fe_sym_expand(d, dsym, dm);
  for (int mu = 0; mu < d; mu++)
    for (int b = 0; b < d; b++) {
      double s = 0;
      for (int a = 0; a < d; a++) s += jinv[mu][a] * dm[a][b];
      t[mu][b] = s;
    }
  for (int mu = 0; mu < d; mu++)
    for (int nu = mu; nu < d; nu++) { /* G is symmetric: its upper triangle, mirrored */
      double s = 0;
      for (int b = 0; b < d; b++) s += t[mu][b] * jinv[nu][b];
      g[mu * d + nu] = g[nu * d + mu] = scale * s;
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

/* The diffusivity tensor of cell c (FE_NSYM(d) values), or NULL when the form has none. */
FE_HOST_DEVICE static inline const double *fe_cell_diffusivity(int d, const struct fe_form *form,
                                                               const double *diffusivity, long c)
{
  if (!diffusivity) return 0;
  return diffusivity + (form->uniform_diffusivity ? 0 : c * FE_NSYM(d));
}

/* ---- SUPG, as Fluidity's assemble/Upwind_Stabilisation.F90 defines it (Donea & Huerta,
 * Finite Element Methods for Flow Problems, 2003, section 2.4; Brooks & Hughes, CMAME 32,
 * 1982): the test function N_i + tau u . grad N_i with
 *   tau = nu_scale sum_mu xi(Pe_mu) ubar_mu / |u|^2,  ubar_mu = u . e_mu,  Pe_mu = ubar_mu / (2
 * k_mu), e_mu = x_(mu+1) - x_0 the edges of the reference directions (the J-scaled velocity ubar =
 * J u, D&H eq. 2.44b), k_mu = e_mu . D e_mu / |e_mu|^2 the diffusivity along e_mu, u the cell's
 * mean velocity.  In 1D ubar = u h and tau = xi h / (2 |u|) with nu_scale 1/2: the optimal xi is
 * nodally exact for the steady u c' = k c'' (D&H eq. 2.49). */

/* xi(Pe), odd in Pe, by nu_bar (Upwind_Stabilisation.F90's xi_optimal, xi_doubly_asymptotic,
 * xi_critical_rule; unity is sign(Pe)).  The optimal coth Pe - 1/Pe by its Laurent series below
 * |Pe| = 0.1, where the difference loses digits (to 2e-14 there; Fluidity takes 0 below 1e-10
 * and the difference above). */
FE_HOST_DEVICE static inline double fe_supg_xi(int nu_bar, double pe)
{
  const double a = pe < 0 ? -pe : pe, sign = pe < 0 ? -1.0 : 1.0;
  switch (nu_bar) {
  case 0:
    if (a < 0.1) {
      const double p2 = pe * pe;
      return pe * (1.0 / 3 +
                   p2 * (-1.0 / 45 + p2 * (2.0 / 945 + p2 * (-1.0 / 4725 + p2 * 2.0 / 93555))));
    }
    if (a > 11.859499013855018) return sign - 1 / pe; /* coth Pe = sign to 1e-10 */
    return 1 / tanh(pe) - 1 / pe;
  case 1: return a <= 3 ? pe / 3 : sign;
  case 2: return a <= 1 ? 0 : sign - 1 / pe;
  default: return pe == 0 ? 0 : sign;
  }
}

/* tau of one cell: vertex coordinates x, vertex velocities u, its diffusivity (FE_NSYM(d)
 * values).  0 where the mean velocity is 0; xi = sign(ubar) along an edge without diffusivity
 * (Pe infinite, the limit of every xi). */
FE_HOST_DEVICE static inline double fe_supg_tau(int d, const struct fe_form *form,
                                                const double x[4][3], const double u[4][3],
                                                const double *dsym)
{
  double uc[3] = {0, 0, 0}, u2 = 0;
  for (int a = 0; a < d; a++) {
    for (int v = 0; v < d + 1; v++) uc[a] += u[v][a];
    uc[a] /= d + 1;
    u2 += uc[a] * uc[a];
  }
  if (u2 == 0) return 0;
  double dm[3][3], nu = 0;
  fe_sym_expand(d, dsym, dm);
  for (int mu = 0; mu < d; mu++) {
    double e[3], ubar = 0, ee = 0, ede = 0;
    for (int a = 0; a < d; a++) {
      e[a] = x[mu + 1][a] - x[0][a];
      ubar += uc[a] * e[a];
      ee += e[a] * e[a];
    }
    if (ubar == 0) continue;
    for (int a = 0; a < d; a++)
      for (int b = 0; b < d; b++) ede += e[a] * dm[a][b] * e[b];
    const double k = ede / ee;
    nu += (k > 0 ? fe_supg_xi(form->nu_bar, ubar / (2 * k)) : (ubar > 0 ? 1.0 : -1.0)) * ubar;
  }
  return form->supg * nu / u2;
}

/* SUPG's streamline diffusion as a stiffness geometry tensor:
 * tau int (u . grad N_i)(u . grad N_j) = G_s : K^ij_stiffness with
 *   G_s^{mu nu} = tau / (|J| |ref|) sum_kl Kmass^kl G_adv^{k mu} G_adv^{l nu}
 * (G_adv^{k mu} = |J| (Jinv u_k)_mu), added to g with weight c. */
FE_HOST_DEVICE static inline void fe_geometry_streamline(int d, const struct fe_reference *ref,
                                                         double absdet, double tau, double c,
                                                         const double gadv[12], double g[9])
{
  const int nv = d + 1;
  const double f = c * tau / (absdet * ref->volume);
  for (int mu = 0; mu < d; mu++)
    for (int nu = 0; nu < d; nu++) {
      double s = 0;
      for (int k = 0; k < nv; k++)
        for (int l = 0; l < nv; l++)
          s += ref->mass[k * nv + l] * gadv[k * d + mu] * gadv[l * d + nu];
      g[mu * d + nu] += f * s;
    }
}

/* Geometry of cell c for the form, from the coordinates, the P0 diffusivity and the P1
 * velocity: returns |det J|; gstiff = b G_diff (+ c G_s with SUPG), weighted, when
 * fe_form_stiffness; gadv = G_adv when fe_form_velocity; *tau SUPG's tau (0 without). */
FE_HOST_DEVICE static inline double
fe_cell_geometry(int d, const struct fe_reference *ref, const struct fe_form *form,
                 const int *cells, const double *coords, const double *diffusivity,
                 const double *velocity, long c, double gstiff[9], double gadv[12], double *tau)
{
  double x[4][3], jinv[3][3];
  fe_cell_coords(d, cells, coords, c, x);
  double det = fe_geometry(d, x, jinv);
  double absdet = det < 0 ? -det : det;
  const double *dsym = fe_cell_diffusivity(d, form, diffusivity, c);
  *tau = 0;
  if (fe_form_stiffness(form)) {
    for (int g = 0; g < d * d; g++) gstiff[g] = 0;
    if (form->diffusion != 0)
      fe_geometry_diffusion(d, jinv, form->diffusion * absdet, dsym, gstiff);
  }
  if (fe_form_velocity(form)) {
    double u[4][3];
    for (int v = 0; v < d + 1; v++) {
      int n = cells[c * (d + 1) + v];
      for (int a = 0; a < d; a++) u[v][a] = velocity[(long)n * d + a];
    }
    fe_geometry_advection(d, jinv, absdet, u, gadv);
    if (form->supg != 0) {
      *tau = fe_supg_tau(d, form, x, u, dsym);
      if (form->advection != 0)
        fe_geometry_streamline(d, ref, absdet, *tau, form->advection, gadv, gstiff);
    }
  }
  return absdet;
}

/* Entry k = i nv + j of the element matrix: the contractions for one (i, j); weight is the
 * cell's fe_cell_mass_weight.  With SUPG the mass term gains tau int (u . grad N_i) N_j,
 * which is tau times the advection entry (j, i).  A symmetric form's entry below the diagonal
 * is computed as the one above it, so that its matrices are symmetric bit for bit: whichever
 * triangle a kernel reads, it reads the same bits. */
FE_HOST_DEVICE static inline double
fe_element_entry(int d, const struct fe_reference *ref, const struct fe_form *form, double weight,
                 double absdet, double tau, const double *gstiff, const double *gadv, int k)
{
  const int nv = d + 1;
  if (k / nv > k % nv && fe_form_symmetric(form)) k = (k % nv) * nv + k / nv;
  const double *km = form->lumped ? ref->lumped : ref->mass;
  double s = weight * absdet * km[k];
  if (fe_form_stiffness(form)) { /* gstiff is symmetric: its upper triangle */
    double t = 0;
    for (int mu = 0, g = 0; mu < d; mu++)
      for (int nu = mu; nu < d; nu++, g++) t += gstiff[mu * d + nu] * ref->stiffness_sym[k][g];
    s += t;
  }
  if (form->advection != 0) {
    double t = 0;
    for (int g = 0; g < nv * d; g++) t += gadv[g] * ref->advection[k][g];
    s += form->advection * t;
  }
  if (tau != 0 && weight != 0) {
    const int kt = (k % nv) * nv + k / nv;
    double t = 0;
    for (int g = 0; g < nv * d; g++) t += gadv[g] * ref->advection[kt][g];
    s += weight * tau * t;
  }
  return s;
}

/* E = w (|J| K_mass + tau C^T) + gstiff : K_stiffness + c G_adv : K_advection, the weight
 * w = a + e lambda_c + c beta div u (fe_cell_mass_weight), C^T SUPG's (absent when tau is 0).
 * E is nv x nv, row-major; a symmetric form's upper triangle is computed and mirrored. */
FE_HOST_DEVICE static inline void fe_element_matrix(int d, const struct fe_reference *ref,
                                                    const struct fe_form *form, double weight,
                                                    double absdet, double tau,
                                                    const double gstiff[9], const double gadv[12],
                                                    double e[FE_NK_MAX])
{
  const int nv = d + 1, sym = fe_form_symmetric(form);
  for (int i = 0; i < nv; i++)
    for (int j = 0; j < nv; j++)
      e[i * nv + j] = sym && j < i ? e[j * nv + i]
                                   : fe_element_entry(d, ref, form, weight, absdet, tau, gstiff,
                                                      gadv, i * nv + j);
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
  double gstiff[9], gadv[12], tau;
  double absdet =
      fe_cell_geometry(d, ref, form, cells, coords, diffusivity, velocity, c, gstiff, gadv, &tau);
  const double weight = fe_cell_mass_weight(d, ref, form, c, absdet, gadv);
  fe_element_matrix(d, ref, form, weight, absdet, tau, gstiff, gadv, e);
  return absdet;
}

/* Cell c's Dirichlet-masked element matrix for the form (fe_dirichlet_entry; dmask 0: the
 * unmasked matrix) stored in storage st from ec on, entry k at ec[k << shift] (the blocked
 * layout: ec is e + fe_block_index(position, 0, entries, shift)), each entry computed once.
 * upper is fe_form_symmetric(form): then the upper triangle only is computed, and full
 * storage mirrors it into the lower one; symmetric storage needs it.  Call it with constant
 * d, st and upper, so that the loops unroll and, with upper, the velocity terms (0 in a
 * symmetric form) are compiled out. */
FE_HOST_DEVICE static inline void fe_cell_store(int d, enum fe_storage st, int upper,
                                                const struct fe_reference *ref,
                                                const struct fe_form *form, const int *cells,
                                                const double *coords, const double *diffusivity,
                                                const double *velocity, unsigned dmask, long c,
                                                int shift, double *ec)
{
  const int nv = d + 1;
  struct fe_form f = *form;
  if (upper) f.advection = f.supg = 0;
  double gstiff[9], gadv[12] = {0}, tau; /* gadv: read only where the form has velocity */
  const double absdet =
      fe_cell_geometry(d, ref, &f, cells, coords, diffusivity, velocity, c, gstiff, gadv, &tau);
  const double weight = fe_cell_mass_weight(d, ref, &f, c, absdet, gadv);
  FE_UNROLL
  for (int i = 0; i < nv; i++) {
    FE_UNROLL
    for (int j = upper ? i : 0; j < nv; j++) {
      const double v = fe_dirichlet_entry(
          i, j, dmask, fe_element_entry(d, ref, &f, weight, absdet, tau, gstiff, gadv, i * nv + j));
      ec[fe_storage_entry(nv, st, i, j) << shift] = v;
      if (upper && st == FE_STORAGE_FULL && j > i) ec[(j * nv + i) << shift] = v;
    }
  }
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

/* Cell c's stored entries es (fe_storage_entries of them), read once. */
FE_HOST_DEVICE static inline void fe_cell_lma_entries(int d, enum fe_storage st, const double *e,
                                                      int shift, long c, double es[FE_NK_MAX])
{
  const int ns = fe_storage_entries(d + 1, st);
  const double *ec = e + fe_block_index(c, 0, ns, shift);
  for (int k = 0; k < ns; k++) es[k] = fe_load_once(ec + (k << shift));
}

/* y = E xe, E a cell's entries es in storage st. */
FE_HOST_DEVICE static inline void fe_lma_entries_multiply(int d, enum fe_storage st,
                                                          const double es[FE_NK_MAX],
                                                          const double xe[4], double y[4])
{
  const int nv = d + 1;
  for (int i = 0; i < nv; i++) {
    double v = 0;
    for (int j = 0; j < nv; j++) v += es[fe_storage_entry(nv, st, i, j)] * xe[j];
    y[i] = v;
  }
}

/* The multiply of the LMA apply for cell c: y_i = sum_j E_ij xe_j (Markall 3.5.1) from the
 * values xe at its vertices and its stored matrix (storage st), each stored entry read once
 * (fe_load_once: streamed past the caches on the GPU).  Both storages sum in the same order,
 * so a symmetric form's operator gives the same bits in either (fe_element_entry). */
FE_HOST_DEVICE static inline void fe_cell_lma_multiply(int d, enum fe_storage st, const double *e,
                                                       int shift, long c, const double xe[4],
                                                       double y[4])
{
  double es[FE_NK_MAX];
  fe_cell_lma_entries(d, st, e, shift, c, es);
  fe_lma_entries_multiply(d, st, es, xe, y);
}

/* The local stage of the LMA apply for cell c: gather x at its vertices and
 * multiply by its stored element matrix. */
FE_HOST_DEVICE static inline void fe_cell_lma_product(int d, enum fe_storage st, const double *e,
                                                      int shift, const int *cells, const double *x,
                                                      long c, double y[4])
{
  double xe[4];
  for (int j = 0; j < d + 1; j++) xe[j] = x[cells[c * (d + 1) + j]];
  fe_cell_lma_multiply(d, st, e, shift, c, xe, y);
}

/* The matrix-free local stage for cell c: y = E x_e, E its Dirichlet-masked
 * element matrix for the form, recomputed from the coordinates and K without
 * being formed.  For P1 the reference tensors factor through the reference
 * gradients B_{i mu} = dphi_i/dxi_mu and the reference mass Kmass:
 *   K^ij_{mu nu} = |ref| B_{i mu} B_{j nu},   K^ij_{k mu} = Kmass^ik B_{j mu},
 * so the contractions of Knepley & Terrel (eqs. 6-8) apply in factored form
 * (sum factorisation), with w = B^T x_e the reference gradient of x and g = Jinv^T w its
 * physical gradient:
 *   diffusion  y_i = |ref| sum_mu B_{i mu} t_mu,  t = Jinv (|J| D' g)
 *   advection  y_i = sum_k Kmass^ik s_k,          s_k = |J| u_k . g
 *   mass       y_i = w |J| sum_j Kmass^ij x_j, w = a + e lambda_c + c beta div u
 * which costs O(d^2 + (d+1)^2) flops instead of the (d+1)^2 d^2 of forming E.  D' is b D,
 * plus with SUPG c tau U, U = sum_kl Kmass^kl u_k u_l^T / |ref| (the streamline diffusion),
 * and the mass gains tau |J| sum_k (u_k . grad N_i) (Kmass x_e)_k.
 * Dirichlet vertices: their x enters as 0 (zeroed columns); their row is the
 * identity in the owning cell and 0 elsewhere (fe_dirichlet_entry).  symmetric is
 * fe_form_symmetric(form) or 0: called with a literal 1 for a symmetric form, the velocity
 * terms (0 in it) are compiled out, which on the GPU frees their registers. */
FE_HOST_DEVICE static inline void
fe_cell_matfree_product(int d, int symmetric, const struct fe_reference *ref,
                        const struct fe_form *form_in, const int *cells, const double *coords,
                        const double *diffusivity, const double *velocity, unsigned dmask,
                        const double *x, long c, double y[4])
{
  const int nv = d + 1;
  struct fe_form f = *form_in;
  if (symmetric) f.advection = f.supg = 0;
  const struct fe_form *form = &f;
  double xc[4][3], jinv[3][3], xe[4], xm[4], u[4][3], gadv[12], tau = 0;
  fe_cell_coords(d, cells, coords, c, xc);
  const double det = fe_geometry(d, xc, jinv), absdet = det < 0 ? -det : det;
  const double *dsym = fe_cell_diffusivity(d, form, diffusivity, c);
  for (int j = 0; j < nv; j++) {
    xe[j] = x[cells[c * nv + j]];
    xm[j] = (dmask >> j) & 1u ? 0.0 : xe[j];
  }
  if (fe_form_velocity(form)) {
    for (int k = 0; k < nv; k++)
      for (int a = 0; a < d; a++) u[k][a] = velocity[(long)cells[c * nv + k] * d + a];
    if (form->supg != 0) tau = fe_supg_tau(d, form, xc, u, dsym);
    if (form->conservative != 0) fe_geometry_advection(d, jinv, absdet, u, gadv);
  }
  const double *km = form->lumped ? ref->lumped : ref->mass;
  const double weight = fe_cell_mass_weight(d, ref, form, c, absdet, gadv);
  for (int i = 0; i < nv; i++) {
    double v = 0;
    for (int j = 0; j < nv; j++) v += km[i * nv + j] * xm[j];
    y[i] = weight * absdet * v;
  }
  if (tau != 0 && weight != 0) {
    double mx[4];
    for (int k = 0; k < nv; k++) {
      double v = 0;
      for (int j = 0; j < nv; j++) v += ref->mass[k * nv + j] * xm[j];
      mx[k] = v;
    }
    for (int i = 0; i < nv; i++) {
      double v = 0;
      for (int k = 0; k < nv; k++) {
        double ug = 0; /* u_k . grad N_i = (Jinv u_k) . B_i */
        for (int mu = 0; mu < d; mu++)
          for (int a = 0; a < d; a++) ug += ref->grad[i][mu] * jinv[mu][a] * u[k][a];
        v += ug * mx[k];
      }
      y[i] += weight * tau * absdet * v;
    }
  }
  if (fe_form_stiffness(form) || form->advection != 0) {
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
    if (fe_form_stiffness(form)) {
      double dm[3][3], q[3], t[3];
      fe_sym_expand(d, dsym, dm);
      for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) {
          double s = form->diffusion * dm[a][b];
          if (tau != 0 && form->advection != 0) {
            double uu = 0;
            for (int k = 0; k < nv; k++)
              for (int l = 0; l < nv; l++) uu += ref->mass[k * nv + l] * u[k][a] * u[l][b];
            s += form->advection * tau * uu / ref->volume;
          }
          dm[a][b] = s;
        }
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
        y[i] += ref->volume * v;
      }
    }
    if (form->advection != 0) {
      double sk[4];
      for (int k = 0; k < nv; k++) {
        double v = 0;
        for (int a = 0; a < d; a++) v += u[k][a] * g[a];
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
