/* The assembly kernels of one backend (CPU: assembly/{local,lma,addto}.c; CUDA:
 * assembly/cuda/).  Element storage: blocked layout (element.h), padded to
 * whole blocks; lift storage: full matrices of the boundary cells, nk each. */
#ifndef FE_KERNELS_H
#define FE_KERNELS_H

#include "assembly/csr.h"
#include "assembly/space.h"
#include "io/program.h"


#ifdef __cplusplus
extern "C" {
#endif

struct fe_assembly_kernels {
  /* once per space: e.g. the reference tensors into constant memory */
  int (*prepare)(const struct fe_space *s);
  /* E' (Dirichlet-masked) of every cell (skipped when e is NULL: matfree);
   * full E of every boundary cell */
  int (*element_matrices)(const struct fe_space *s, const struct fe_form *form,
                          const double *diffusivity, const double *velocity, double *e,
                          double *elift);
  /* y = sum_c A_c^T E'_c A_c x; work holds n_cells * nv doubles */
  int (*lma_apply)(const struct fe_space *s, const double *e, const double *x, double *y,
                   double *work);
  int (*lma_diagonal)(const struct fe_space *s, const double *e, double *diag);
  /* matrix-free: y = sum_c A_c^T E'_c A_c x with E'_c recomputed (work: n_cells * nv),
   * and the diagonal of the same operator */
  int (*matfree_apply)(const struct fe_space *s, const struct fe_form *form, const double *diffusivity,
                       const double *velocity, const double *x, double *y, double *work);
  int (*matfree_diagonal)(const struct fe_space *s, const struct fe_form *form,
                          const double *diffusivity, const double *velocity, double *diag);
  /* y_I += scale * A_ID x_D from the boundary cells' full matrices */
  int (*lift)(const struct fe_space *s, const double *elift, double scale, const double *x,
              double *y);
  int (*csr_assemble)(const struct fe_space *s, struct fe_csr *csr, const double *e);
  int (*csr_apply)(struct fe_csr *csr, const double *x, double *y);
  int (*csr_diagonal)(const struct fe_csr *csr, double *diag);
  void (*csr_release)(struct fe_csr *csr); /* backend data in csr->ctx */
  /* Coefficients where they live: for point i < m, the node idx[i] (idx NULL:
   * node i) or, with at_cells, the centroid of cell i;
   * out[(opos ? opos[i] : i) * nprog + k] = progs[k](point, t).  progs on the backend. */
  /* Facet loads: out[n] = sum over the facet slots k (facet f = k / d, vertex
   * k % d) listed for node n in ptr/slots of w[f] (g[k] + sum_j g[f d + j]):
   * int_F phi_n g for g P1 on the facet, with w = |F| / (d (d + 1)). */
  int (*facet_load)(const struct fe_space *s, const int *ptr, const int *slots, const double *w,
                    const double *g, double *out);
  /* y = M x with the consistent mass matrix, unmasked and matrix-free (norms) */
  int (*mass_apply)(const struct fe_space *s, const double *x, double *y);
  int (*evaluate)(const struct fe_space *s, int at_cells, const int *idx, const int *opos, long m,
                  const struct fe_program *progs, int nprog, double t, double *out);
  /* *count (on the backend) += the number of the m symmetric tensors (FE_NSYM(d)
   * values each) that are not positive semi-definite (fe_sym_psd_failure) */
  int (*count_indefinite)(const struct fe_space *s, long m, const double *tensors, int *count);
};

extern const struct fe_assembly_kernels fe_assembly_kernels_cpu;

/* CPU: the LMA and matrix-free scatter, a fixed-order sum per node */
void fe_incidence_sum_cpu(const struct fe_space *s, const double *work, double *y);

const struct fe_assembly_kernels *fe_assembly_kernels(const struct fe_backend *be);

#ifdef __cplusplus
}
#endif

#endif
