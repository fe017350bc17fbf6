/* Work per node, shared by the CPU and CUDA backends as the element math is
 * (assembly/element.h): the loop over a node's incident cells, or over its
 * boundary facets, written once; each backend launches it over the nodes
 * (an OpenMP loop, a CUDA thread per node).  Every sum runs in the node's
 * incidence order (ascending cells), so results do not depend on threads. */
#ifndef FE_NODE_H
#define FE_NODE_H

#include "assembly/element.h"
#include "core/host_device.h"
#include "io/program.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The scatter of LMA and matrix-free as a gather: the sum of the local
 * results work[cell * nv + i] of node n's cell entries. */
FE_HOST_DEVICE static inline double fe_node_incidence_sum(long n, const int *inc_ptr,
                                                          const int *inc, const double *work)
{
  double sum = 0;
  for (int k = inc_ptr[n]; k < inc_ptr[n + 1]; k++) sum += work[inc[k]];
  return sum;
}

/* Diagonal entry n of the stored element matrices (blocked layout, storage st). */
FE_HOST_DEVICE static inline double fe_node_lma_diagonal(long n, int nv, enum fe_storage st,
                                                         const int *inc_ptr, const int *inc,
                                                         const double *e, int shift)
{
  const int ns = fe_storage_entries(nv, st);
  double sum = 0;
  for (int k = inc_ptr[n]; k < inc_ptr[n + 1]; k++) {
    const int c = inc[k] / nv, i = inc[k] % nv;
    sum += e[fe_block_index(c, fe_storage_entry(nv, st, i, i), ns, shift)];
  }
  return sum;
}

/* Diagonal entry n of the matrix-free operator: element matrices recomputed. */
FE_HOST_DEVICE static inline double
fe_node_matfree_diagonal(int d, const struct fe_reference *ref, const struct fe_form *form, long n,
                         const int *inc_ptr, const int *inc, const int *cells, const double *coords,
                         const unsigned char *dmask, const double *diff, const double *vel)
{
  const int nv = d + 1;
  double sum = 0;
  for (int k = inc_ptr[n]; k < inc_ptr[n + 1]; k++) {
    const int c = inc[k] / nv, i = inc[k] % nv;
    double m[FE_NK_MAX];
    fe_cell_matrix(d, ref, form, cells, coords, diff, vel, c, m);
    sum += fe_dirichlet_entry(i, i, dmask[c], m[i * nv + i]);
  }
  return sum;
}

/* Row n of the consistent mass matrix times x, unmasked (norms). */
FE_HOST_DEVICE static inline double fe_node_mass_row(int d, const struct fe_reference *ref, long n,
                                                     const int *inc_ptr, const int *inc,
                                                     const int *cells, const double *coords,
                                                     const double *x)
{
  double sum = 0;
  for (int k = inc_ptr[n]; k < inc_ptr[n + 1]; k++)
    sum += fe_cell_mass_row(d, ref, cells, coords, x, inc[k] / (d + 1), inc[k] % (d + 1));
  return sum;
}

/* int_boundary phi_n g over node n's facet slots (see fe_node_kernels.facet_load). */
FE_HOST_DEVICE static inline double fe_node_facet_load(int d, long n, const int *ptr,
                                                       const int *slots, const double *w,
                                                       const double *g)
{
  double sum = 0;
  for (int k = ptr[n]; k < ptr[n + 1]; k++) {
    const int f = slots[k] / d;
    double all = 0;
    for (int j = 0; j < d; j++) all += g[f * d + j];
    sum += w[f] * (g[slots[k]] + all);
  }
  return sum;
}

/* y_n after the lifting of lift node i (fe_space's lift lists): y_n += scale E_nj x_j over the
 * Dirichlet vertices j of its boundary cells (their full matrices, elift), term k the entry
 * elift[entry[k]] times x[col[k]], added one by one in incidence order, then the cell's
 * vertex order. */
FE_HOST_DEVICE static inline double fe_node_lift(long i, const int *ptr, const int *entry,
                                                 const int *col, const double *elift, double scale,
                                                 const double *x, double y_n)
{
  for (int k = ptr[i]; k < ptr[i + 1]; k++) y_n += scale * elift[entry[k]] * x[col[k]];
  return y_n;
}

/* y_n + scale (A x)_n for Dirichlet node n: its row of the unmasked operator, from the full
 * matrices of its cells (each a boundary cell, at position bindex[c] of elift, blocked at
 * FE_LIFT_SHIFT), a cell's product added at a time in incidence order.  The consistent
 * (reaction) flux of a budget is such a row. */
FE_HOST_DEVICE static inline double fe_node_reaction(int nv, long n, const int *inc_ptr,
                                                     const int *inc, const int *cells,
                                                     const int *bindex, const double *elift,
                                                     double scale, const double *x, double y_n)
{
  for (int k = inc_ptr[n]; k < inc_ptr[n + 1]; k++) {
    const int c = inc[k] / nv, i = inc[k] % nv;
    const double *el = elift + fe_block_index(bindex[c], 0, nv * nv, FE_LIFT_SHIFT);
    double row = 0;
    for (int j = 0; j < nv; j++)
      row += el[(i * nv + j) << FE_LIFT_SHIFT] * x[cells[(long)c * nv + j]];
    y_n += scale * row;
  }
  return y_n;
}

/* The expressions' programs at point i (see fe_node_kernels.evaluate): node
 * idx[i] (idx NULL: node i) or, with at_cells, the centroid of cell i.  A node is taken where
 * owner[node] is (owner NULL: itself): the copies of a periodic unknown take its owner's
 * values. */
FE_HOST_DEVICE static inline void fe_point_evaluate(int d, int at_cells, long i, const int *cells,
                                                    const double *coords, const int *owner,
                                                    const int *idx, const int *opos,
                                                    const struct fe_program *progs, int nprog,
                                                    double t, double *out)
{
  const int nv = d + 1;
  double x[3] = {0, 0, 0};
  if (at_cells) {
    for (int v = 0; v < nv; v++)
      for (int a = 0; a < d; a++) x[a] += coords[(long)cells[i * nv + v] * d + a] / nv;
  } else {
    const long node = idx ? idx[i] : i, n = owner ? owner[node] : node;
    for (int a = 0; a < d; a++) x[a] = coords[n * d + a];
  }
  const long o = (opos ? opos[i] : i) * nprog;
  for (int k = 0; k < nprog; k++) out[o + k] = fe_program_eval(&progs[k], x[0], x[1], x[2], t);
}

/* Point p's values of a field of ncomp components by its cell's P1 weights (see
 * fe_node_kernels.interpolate): out[p ncomp + k] = sum_i weights[p nv + i] field[v ncomp + k],
 * v = nodes[p nv + i] (nodes NULL: p nv + i), summed in vertex order, unfused, so that both
 * backends give the same bits from the same field. */
FE_HOST_DEVICE static inline void fe_point_interpolate(int nv, long p, const int *nodes,
                                                       const double *weights, const double *field,
                                                       int ncomp, double *out)
{
  for (int k = 0; k < ncomp; k++) {
    double sum = 0;
    for (int i = 0; i < nv; i++) {
      const long v = nodes ? nodes[p * nv + i] : p * nv + i;
      sum = fe_mul_add(weights[p * nv + i], field[v * ncomp + k], sum);
    }
    out[p * ncomp + k] = sum;
  }
}

/* The columns of CSR row n (assembly/csr.h): the unknowns (owner; NULL: every node its own) of
 * the vertices of the cells around every copy of n's unknown (its incidence), sorted and unique,
 * into cols (room for the incidence's count times nv); returns their count.  Each vertex goes
 * into the sorted list by a scan from its end: a row has tens of columns (about 7 in 2D, 15 in
 * 3D), met several times each, and the cells' vertices come nearly in order. */
FE_HOST_DEVICE static inline int fe_node_csr_columns(long n, int nv, const int *inc_ptr,
                                                     const int *inc, const int *cells,
                                                     const int *owner, int *cols)
{
  int u = 0;
  for (int k = inc_ptr[n]; k < inc_ptr[n + 1]; k++) {
    const int *cell = cells + (long)(inc[k] / nv) * nv;
    for (int v = 0; v < nv; v++) {
      const int col = owner ? owner[cell[v]] : cell[v];
      int j = u;
      while (j > 0 && cols[j - 1] > col) j--;
      if (j > 0 && cols[j - 1] == col) continue;
      for (int t = u; t > j; t--) cols[t] = cols[t - 1];
      cols[j] = col;
      u++;
    }
  }
  return u;
}

/* The slot of column j in CSR row i, which holds it: a binary search of the row's columns. */
FE_HOST_DEVICE static inline int fe_node_csr_slot(const int *rowptr, const int *colind, int i,
                                                  int j)
{
  int lo = rowptr[i], hi = rowptr[i + 1] - 1;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (colind[mid] < j)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The CSR slot of entry k (row i = k / nv, column k % nv) of cell c: its vertices' unknowns'. */
FE_HOST_DEVICE static inline int fe_node_csr_entry_slot(long c, int k, int nv, const int *cells,
                                                        const int *owner, const int *rowptr,
                                                        const int *colind)
{
  const int *cell = cells + c * nv;
  const int i = cell[k / nv], j = cell[k % nv];
  return fe_node_csr_slot(rowptr, colind, owner ? owner[i] : i, owner ? owner[j] : j);
}

#ifdef __cplusplus
}
#endif

#endif
