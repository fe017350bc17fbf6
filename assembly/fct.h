/* Flux-corrected transport for P1 advection (stabilisation="fct"): a limited
 * forward-Euler step of M dT/dt = A T, A = -C the Galerkin advection operator,
 * that creates no new extrema.  Algebraic flux correction (Kuzmin & Moeller,
 * "Algebraic flux correction I", in Flux-Corrected Transport, Springer 2005,
 * sections 3-5) written element by element, as Loehner's FEM-FCT is
 * (Loehner et al., Int. J. Numer. Meth. Fluids 7, 1987):
 *   discrete upwinding  d_ij = max(0, -a_ij, -a_ji) of each element matrix a
 *                       (i != j), d_ii = -sum_j d_ij: L = A + D has no
 *                       negative off-diagonal entry and zero row sums (LED);
 *   low order           T^L = T + dt M_L^-1 L T, bounded by T's local extrema
 *                       when dt (-l_ii) <= m_i (the low-order Courant number);
 *   raw fluxes          f_ij = m_ij (Tdot_i - Tdot_j) + d_ij (T_i - T_j), per
 *                       element pair, m the consistent element mass and Tdot
 *                       the Galerkin rate M^-1 A T (no mass term with lumped
 *                       mass); not prelimited: zeroing the fluxes with
 *                       f_ij (T_j - T_i) > 0 switches on round-off, which made
 *                       the strategies' answers differ by 5e-4 on the solid-body
 *                       rotation (3e-15 without it);
 *   Zalesak's limiter   (J. Comput. Phys. 31, 1979) with the bounds of T and
 *                       T^L over the cells around each node: P, Q, R per node,
 *                       alpha_ij = min(R+_i, R-_j) for f_ij > 0 (else
 *                       min(R-_i, R+_j));
 *   the step            T_i = T^L_i + dt / m_i sum alpha_ij f_ij.
 * With every alpha = 1 the step is the Galerkin forward-Euler step.  With the conservative
 * advection form (beta != 0, element.h) A gains -beta int phi_i (div u) phi_j: D and the
 * fluxes are built the same way, so the step stays conservative, but L's rows no longer sum
 * to 0 where div u != 0: the low-order step keeps a positive field positive (while the
 * low-order Courant number is at most 1) without being LED, as the equation concentrates a
 * tracer where the flow converges; the limited step stays within the low-order step's local
 * bounds.  The
 * scheme (app/scheme.c) strings three of them into Shu & Osher's SSP-RK3.
 * Dirichlet nodes keep their values (the scheme sets them) and R = 1 there,
 * so their neighbours' bounds alone limit the fluxes between them; so do
 * nodes of no cell.
 *
 * The per-cell and per-node loop bodies are written once here, FE_HOST_DEVICE,
 * for both backends (the kernels' table: assembly/kernels.h, fe_fct_kernels);
 * the node sums are gathers over the node's incident cells in incidence
 * order, so results do not depend on threads. */
#ifndef FE_FCT_H
#define FE_FCT_H

#include <stddef.h>

#include "assembly/element.h"
#include "core/host_device.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FE_FCT_PAIRS(d) ((d) * ((d) + 1) / 2) /* vertex pairs i < j of a cell */

/* The loops of a limited step after which the ghosts other processes own take their owners'
 * values (fe_fct_arrays.exchange): T^L, read by the ratios at the vertices of a node's cells,
 * and R+ and R-, read by the cell limiting at its vertices. */
enum fe_fct_phase { FE_FCT_LOW, FE_FCT_RATIOS };

/* The arrays of one limited step, on the backend. */
struct fe_fct_arrays {
  const double *velocity; /* P1, d values per node */
  double conservative;    /* the advection form's beta (assembly/element.h) */
  const double *u;        /* the state */
  const double *udot;     /* the Galerkin rate; NULL: lumped mass (no mass flux) */
  const double *ml;       /* the lumped mass per node */
  double dt;
  double *cell_rate;        /* n_cells * nv: (L u) per cell vertex, then the limited fluxes */
  double *cell_diag;        /* n_cells * nv: l_ii per cell vertex */
  double *flux;             /* n_cells * FE_FCT_PAIRS(d): f_ij of the pairs i < j */
  double *ulow;             /* n_nodes: T^L */
  double *p_plus, *p_minus; /* n_nodes: sums of the positive and negative fluxes */
  double *r_plus, *r_minus; /* n_nodes: Zalesak's ratios */
  double *courant;          /* n_nodes: dt (-l_ii) / m_i, or NULL: not wanted */
  double *reaction;         /* n_nodes: at Dirichlet nodes, minus the change the step would
                               have made there (the consistent flux that holds the value), or
                               NULL: not wanted; the other entries are not written */
  double *out;              /* n_nodes: the step's result */
  /* On several processes (else NULL): a node loop sums over this process's cells, complete at
   * the owned nodes only, so the step calls exchange(a, phase) after the node low-order loop
   * and after the ratios, before a cell loop reads their outputs at its ghost vertices (the
   * exchanges are assembly/fct.c's; a host function, called between the loops, not in them). */
  int (*exchange)(const struct fe_fct_arrays *a, enum fe_fct_phase phase);
  const void *ctx; /* what exchange needs: the space's halo */
};

/* Whether node n keeps its value: a Dirichlet node (the mask bit of its first cell entry),
 * or a node of no cell. */
FE_HOST_DEVICE static inline int fe_fct_fixed(long n, int nv, const int *inc_ptr, const int *inc,
                                              const unsigned char *dmask)
{
  if (inc_ptr[n] == inc_ptr[n + 1]) return 1;
  const int k = inc[inc_ptr[n]];
  return (dmask[k / nv] >> (k % nv)) & 1u;
}

/* Cell c: (L u)_i and l_ii per vertex, and the prelimited raw fluxes. */
FE_HOST_DEVICE static inline void fe_fct_cell_fluxes(int d, const struct fe_reference *ref,
                                                     const int *cells, const double *coords,
                                                     const struct fe_fct_arrays *a, long c)
{
  const int nv = d + 1;
  const struct fe_form adv = {.mass = 0, /* A = -C; every field named, for C++ */
                              .lumped = 0,
                              .diffusion = 0,
                              .advection = -1.0,
                              .conservative = a->conservative,
                              .uniform_diffusivity = 0,
                              .absorption = 0,
                              .lambda = NULL,
                              .uniform_lambda = 0,
                              .supg = 0,
                              .nu_bar = 0};
  double am[FE_NK_MAX], ue[4], ud[4] = {0, 0, 0, 0};
  const double absdet = fe_cell_matrix(d, ref, &adv, cells, coords, NULL, a->velocity, c, am);
  for (int j = 0; j < nv; j++) {
    const long n = cells[c * nv + j];
    ue[j] = a->u[n];
    if (a->udot) ud[j] = a->udot[n];
  }
  double rate[4], diag[4];
  for (int i = 0; i < nv; i++) {
    rate[i] = 0;
    diag[i] = am[i * nv + i];
    for (int j = 0; j < nv; j++) rate[i] += am[i * nv + j] * ue[j];
  }
  int p = 0;
  for (int i = 0; i < nv; i++)
    for (int j = i + 1; j < nv; j++, p++) {
      const double aij = am[i * nv + j], aji = am[j * nv + i];
      double dij = -aij > -aji ? -aij : -aji;
      dij = dij > 0 ? dij : 0;
      rate[i] += dij * (ue[j] - ue[i]);
      rate[j] += dij * (ue[i] - ue[j]);
      diag[i] -= dij;
      diag[j] -= dij;
      double f = dij * (ue[i] - ue[j]);
      if (a->udot) f += absdet * ref->mass[i * nv + j] * (ud[i] - ud[j]);
      a->flux[c * FE_FCT_PAIRS(d) + p] = f;
    }
  for (int i = 0; i < nv; i++) {
    a->cell_rate[c * nv + i] = rate[i];
    a->cell_diag[c * nv + i] = diag[i];
  }
}

/* The flux of cell c's pair p = (i, j), i < j, as seen by vertex v of the pair: f_ij at i,
 * -f_ij at j.  *first, *second: the pair's vertices. */
FE_HOST_DEVICE static inline void fe_fct_pair(int nv, int p, int *first, int *second)
{
  int i = 0;
  while (p >= nv - 1 - i) p -= nv - 1 - i++;
  *first = i;
  *second = i + 1 + p;
}

/* Node n: the low-order value, the sums of its positive and negative fluxes, its
 * low-order Courant number.  Dirichlet nodes keep u. */
FE_HOST_DEVICE static inline void fe_fct_node_low(int d, long n, const int *inc_ptr, const int *inc,
                                                  const unsigned char *dmask,
                                                  const struct fe_fct_arrays *a)
{
  const int nv = d + 1, np = FE_FCT_PAIRS(d);
  double rate = 0, diag = 0, pp = 0, pm = 0;
  for (int k = inc_ptr[n]; k < inc_ptr[n + 1]; k++) {
    const int c = inc[k] / nv, v = inc[k] % nv;
    rate += a->cell_rate[inc[k]];
    diag += a->cell_diag[inc[k]];
    for (int p = 0; p < np; p++) {
      int i, j;
      fe_fct_pair(nv, p, &i, &j);
      if (i != v && j != v) continue;
      const double f = i == v ? a->flux[(long)c * np + p] : -a->flux[(long)c * np + p];
      if (f > 0)
        pp += f;
      else
        pm += f;
    }
  }
  const int dir = fe_fct_fixed(n, nv, inc_ptr, inc, dmask);
  a->ulow[n] = dir ? a->u[n] : a->u[n] + a->dt * rate / a->ml[n];
  if (dir && a->reaction) a->reaction[n] = -a->dt * rate;
  a->p_plus[n] = pp;
  a->p_minus[n] = pm;
  if (a->courant) a->courant[n] = dir ? 0.0 : a->dt * -diag / a->ml[n];
}

/* Node n: Zalesak's ratios from the extrema of u and T^L over the vertices of its cells
 * (1 on Dirichlet nodes). */
FE_HOST_DEVICE static inline void fe_fct_node_ratios(int d, long n, const int *inc_ptr,
                                                     const int *inc, const int *cells,
                                                     const unsigned char *dmask,
                                                     const struct fe_fct_arrays *a)
{
  const int nv = d + 1;
  if (fe_fct_fixed(n, nv, inc_ptr, inc, dmask)) {
    a->r_plus[n] = a->r_minus[n] = 1.0;
    return;
  }
  double hi = a->ulow[n], lo = hi;
  for (int k = inc_ptr[n]; k < inc_ptr[n + 1]; k++) {
    const long c = inc[k] / nv;
    for (int j = 0; j < nv; j++) {
      const long m = cells[c * nv + j];
      const double x = a->u[m], y = a->ulow[m];
      hi = x > hi ? x : hi;
      hi = y > hi ? y : hi;
      lo = x < lo ? x : lo;
      lo = y < lo ? y : lo;
    }
  }
  const double q_plus = a->ml[n] * (hi - a->ulow[n]) / a->dt;
  const double q_minus = a->ml[n] * (lo - a->ulow[n]) / a->dt;
  const double pp = a->p_plus[n], pm = a->p_minus[n];
  a->r_plus[n] = pp > q_plus ? q_plus / pp : 1.0;
  a->r_minus[n] = pm < q_minus ? q_minus / pm : 1.0;
}

/* Cell c: the limited fluxes summed per vertex, into cell_rate. */
FE_HOST_DEVICE static inline void fe_fct_cell_limit(int d, const int *cells,
                                                    const struct fe_fct_arrays *a, long c)
{
  const int nv = d + 1, np = FE_FCT_PAIRS(d);
  double sum[4] = {0, 0, 0, 0};
  for (int p = 0; p < np; p++) {
    int i, j;
    fe_fct_pair(nv, p, &i, &j);
    const long ni = cells[c * nv + i], nj = cells[c * nv + j];
    const double f = a->flux[c * np + p];
    double alpha;
    if (f > 0)
      alpha = a->r_plus[ni] < a->r_minus[nj] ? a->r_plus[ni] : a->r_minus[nj];
    else
      alpha = a->r_minus[ni] < a->r_plus[nj] ? a->r_minus[ni] : a->r_plus[nj];
    sum[i] += alpha * f;
    sum[j] -= alpha * f;
  }
  for (int i = 0; i < nv; i++) a->cell_rate[c * nv + i] = sum[i];
}

/* Node n: the step's result T^L + dt / m sum of the limited fluxes (T^L on Dirichlet nodes). */
FE_HOST_DEVICE static inline void fe_fct_node_update(int d, long n, const int *inc_ptr,
                                                     const int *inc, const unsigned char *dmask,
                                                     const struct fe_fct_arrays *a)
{
  const int nv = d + 1;
  double sum = 0;
  for (int k = inc_ptr[n]; k < inc_ptr[n + 1]; k++) sum += a->cell_rate[inc[k]];
  const int dir = fe_fct_fixed(n, nv, inc_ptr, inc, dmask);
  a->out[n] = dir ? a->ulow[n] : a->ulow[n] + a->dt * sum / a->ml[n];
  if (dir && a->reaction) a->reaction[n] -= a->dt * sum;
}

/* Node n: the lumped mass, sum over its cells of |K| / (d + 1). */
FE_HOST_DEVICE static inline double fe_fct_node_lumped_mass(int d, const struct fe_reference *ref,
                                                            long n, const int *inc_ptr,
                                                            const int *inc, const int *cells,
                                                            const double *coords)
{
  const int nv = d + 1;
  double sum = 0;
  for (int k = inc_ptr[n]; k < inc_ptr[n + 1]; k++) {
    const int c = inc[k] / nv, i = inc[k] % nv;
    double x[4][3], jinv[3][3];
    fe_cell_coords(d, cells, coords, c, x);
    const double det = fe_geometry(d, x, jinv);
    sum += (det < 0 ? -det : det) * ref->lumped[i * nv + i];
  }
  return sum;
}

/* ---------------------------------------------------------------- the limited step */

struct fe_space;
struct fe_vec;
struct fe_fct; /* the work arrays of the limited steps on a space */

/* conservative: the advection form's beta, which A = -C includes (assembly/element.h). */
int fe_fct_create(struct fe_space *space, double conservative, struct fe_fct **fct);
void fe_fct_destroy(struct fe_fct *fct);

/* out = the limited forward-Euler step of length dt from u (Dirichlet values kept), the
 * velocity per node on the backend, udot the Galerkin rate M^-1 A u (NULL with lumped mass).
 * courant, unless NULL, receives the step's largest low-order Courant number
 * max_i dt (-l_ii) / m_i, a reduction that waits for the backend: at most 1, the step
 * creates no new extrema.  reaction, unless NULL, receives on the Dirichlet nodes minus the
 * change dt ((L u)_i + sum_j alpha_ij f_ij) the step would have made there, had they not kept
 * their values (its other entries are left): the step's consistent flux there, as the sums
 * over all nodes of L u and of the limited fluxes are those of A u and 0.  On several
 * processes the courant number is the largest over the processes, and out's and reaction's
 * ghosts take their owners' values, as an operator's output's (assembly/operator.c). */
int fe_fct_step(struct fe_fct *fct, const double *velocity, const struct fe_vec *u,
                const struct fe_vec *udot, double dt, struct fe_vec *out, double *courant,
                struct fe_vec *reaction);

#ifdef __cplusplus
}
#endif

#endif
