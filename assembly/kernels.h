/* The assembly kernels a backend provides (its table: be->assembly), grouped
 * by strategy; the registration of each backend (backends/<name>/) fills
 * every slot.  Element storage: blocked layout (element.h), padded to whole
 * blocks, every entry or a symmetric form's upper triangle (enum fe_storage); lift storage:
 * full matrices of the boundary cells, nk each, whatever the element storage. */
#ifndef FE_KERNELS_H
#define FE_KERNELS_H

#include "assembly/csr.h"
#include "assembly/fct.h"
#include "assembly/space.h"
#include "io/program.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element matrices by tensor contraction (assembly/element.h). */
struct fe_element_kernels {
  /* once per space: e.g. the reference tensors into constant memory */
  int (*prepare)(const struct fe_space *s);
  /* E' (Dirichlet-masked) of every cell in storage st (skipped when e is NULL: matfree;
   * symmetric storage only for a symmetric form, fe_form_storage); full E of every boundary
   * cell */
  int (*matrices)(const struct fe_space *s, const struct fe_form *form, enum fe_storage st,
                  const double *diffusivity, const double *velocity, double *e, double *elift);
  /* The k-th variant of the d-dimensional kernel, as (elements per block,
   * threads per element), (0, 0) the plain one; 0 when k is past the last. */
  int (*variant)(int d, int k, int *epb, int *tpe);
  /* The variant the backend runs from now on; FE_ERR_USAGE for one it lacks. */
  int (*use_variant)(const struct fe_backend *be, int d, int epb, int tpe);
};

/* Local matrix approach: the stored element matrices applied. */
struct fe_lma_kernels {
  /* y = sum_c A_c^T E'_c A_c x, E' in storage st; work holds n_cells * nv doubles */
  int (*apply)(const struct fe_space *s, enum fe_storage st, const double *e, const double *x,
               double *y, double *work);
  /* Optional (NULL: apply for each vector): y[j] = apply's y for x[j], j < m, each cell's
   * matrix read once for all; a space that scatters with atomics only (!deterministic) */
  int (*apply_many)(const struct fe_space *s, enum fe_storage st, const double *e, int m,
                    const double *const *x, double *const *y);
  int (*diagonal)(const struct fe_space *s, enum fe_storage st, const double *e, double *diag);
  /* Optional (NULL: none): CG's whole solve of job's systems on y = apply(x) as one kernel
   * (CUDA: a persistent kernel, for meshes small enough that launches would bound the
   * solve); *done 0, nothing run, for a mesh it does not take (too large, or a halo) */
  int (*cg)(const struct fe_space *s, enum fe_storage st, const double *e, double *work,
            const struct fe_cg_job *job, int *done);
};

/* addto: the element matrices accumulated into a CSR matrix. */
struct fe_addto_kernels {
  /* csr's rows, columns, entry -> slot map (its blocks' padding 0) and diagonal slots on the
   * backend, and nnz, for csr->n rows from the space's incidence (fe_node_csr_columns) */
  int (*sparsity)(const struct fe_space *s, struct fe_csr *csr);
  int (*assemble)(const struct fe_space *s, struct fe_csr *csr, const double *e);
  int (*apply)(struct fe_csr *csr, const double *x, double *y);
  /* Optional (NULL: csr->values holds them, on the backend): the values in the CSR's order
   * into values (host memory), for a backend that holds them in a layout of its own (csr->ctx)
   * and leaves csr->values NULL */
  int (*values)(const struct fe_csr *csr, double *values);
  int (*diagonal)(const struct fe_csr *csr, double *diag);
  void (*release)(struct fe_csr *csr); /* backend data in csr->ctx */
};

/* Matrix-free: element matrices recomputed in each apply, nothing stored. */
struct fe_matfree_kernels {
  /* y = sum_c A_c^T E'_c A_c x (work: n_cells * nv) */
  int (*apply)(const struct fe_space *s, const struct fe_form *form, const double *diffusivity,
               const double *velocity, const double *x, double *y, double *work);
  int (*diagonal)(const struct fe_space *s, const struct fe_form *form, const double *diffusivity,
                  const double *velocity, double *diag);
};

/* Work per node or per point, the loop bodies in assembly/node.h. */
struct fe_node_kernels {
  /* y_I += scale * A_ID x_D from the boundary cells' full matrices, over space->lift_nodes */
  int (*lift)(const struct fe_space *s, const double *elift, double scale, const double *x,
              double *y);
  /* y_D += scale * (A x)_D from the boundary cells' full matrices, over space->dirichlet: the
   * Dirichlet rows of the unmasked operator (fe_node_reaction) */
  int (*reaction)(const struct fe_space *s, const double *elift, double scale, const double *x,
                  double *y);
  /* Facet loads of a P1 flux (loads="interpolated"; by quadrature: fe_load_kernels):
   * out[n] = sum over the facet slots k (facet f = k / d, vertex
   * k % d) listed for node n in ptr/slots of w[f] (g[k] + sum_j g[f d + j]):
   * int_F phi_n g for g P1 on the facet, with w = |F| / (d (d + 1)). */
  int (*facet_load)(const struct fe_space *s, const int *ptr, const int *slots, const double *w,
                    const double *g, double *out);
  /* y = M x with the consistent mass matrix, unmasked and matrix-free (norms) */
  int (*mass_apply)(const struct fe_space *s, const double *x, double *y);
  /* Coefficients where they live: for point i < m, the node idx[i] (idx NULL:
   * node i) or, with at_cells, the centroid of cell i;
   * out[(opos ? opos[i] : i) * nprog + k] = progs[k](point, t).  progs on the backend. */
  int (*evaluate)(const struct fe_space *s, int at_cells, const int *idx, const int *opos, long m,
                  const struct fe_program *progs, int nprog, double t, double *out);
  /* *count (on the backend) += the number of the m symmetric tensors (FE_NSYM(d)
   * values each) that are not positive semi-definite (fe_sym_psd_failure) */
  int (*count_indefinite)(const struct fe_space *s, long m, const double *tensors, int *count);
  /* Values at n points from their cells' P1 weights (nv per point, assembly/probes.h):
   * out[p * ncomp + k] = sum_i weights[p nv + i] field[v ncomp + k], v = nodes[p nv + i]
   * (nodes NULL: p nv + i, a field given at each point's cell vertices in turn) */
  int (*interpolate)(const struct fe_space *s, long n, const int *nodes, const double *weights,
                     const double *field, int ncomp, double *out);
};

/* Flux-corrected transport: the loops of assembly/fct.h. */
struct fe_fct_kernels {
  /* ml[n] = the lumped mass of node n */
  int (*lumped_mass)(const struct fe_space *s, double *ml);
  /* one limited step, its five loops in order: cell fluxes, node low-order values, node
   * ratios, cell limiting, node update; a->exchange, unless NULL, called after the node
   * low-order values (FE_FCT_LOW) and after the ratios (FE_FCT_RATIOS), its error returned */
  int (*step)(const struct fe_space *s, const struct fe_fct_arrays *a);
};

/* The Courant number: the cell loop of assembly/courant.h. */
struct fe_courant_kernels {
  /* rate[c] = the largest |u| of cell c's vertices times inv_height[c] (velocity: d values per
   * node) */
  int (*cell_rates)(const struct fe_space *s, const double *velocity, const double *inv_height,
                    double *rate);
};

/* Loads by quadrature: the cell and facet loops of assembly/load.h, and the gather of their
 * contributions into nodal loads. */
struct fe_load_kernels {
  /* work[c nv + i] = cell c's source load of the program f at t (fe_load_cell), every cell */
  int (*cells)(const struct fe_space *s, const struct fe_form *form, const double *diffusivity,
               const double *velocity, const struct fe_program *f, double t, double *work);
  /* work[k d + v] = facet k's Neumann load of the program g at t (fe_load_facet) for the m > 0
   * facets k = list[i], their nodes vertices[k d ...] */
  int (*facets)(const struct fe_space *s, long m, const int *list, const int *vertices,
                const struct fe_program *g, double t, double *work);
  /* out[n] = sum of work[idx[j]] for j from ptr[n] to ptr[n + 1], in that order, every node n
   * (fe_node_incidence_sum) */
  int (*gather)(const struct fe_space *s, const int *ptr, const int *idx, const double *work,
                double *out);
};

/* The integrals of a tracer budget: the facet and cell loops of assembly/flux.h. */
struct fe_flux_kernels {
  /* acc[i] += scale * int_F (u_h . n) X_h of the m > 0 facets i (fe_flux_facet), their nodes
   * nodes[i (d + 1) ...]: the facet's d vertices, then the opposite vertex of its cell */
  int (*facets)(const struct fe_space *s, long m, const int *nodes, const double *velocity,
                const double *x, double scale, double *acc);
  /* acc[c] += scale * int_K w X_h, every cell (fe_flux_cell): w = div u_h with a velocity, else
   * weight[uniform ? 0 : c] */
  int (*cells)(const struct fe_space *s, const double *velocity, const double *weight, int uniform,
               const double *x, double scale, double *acc);
};

struct fe_assembly_kernels {
  /* The enum fe_strategy (assembly/operator.h) of a case that names none, on parts of at most
   * `cells` cells of dimension d: the one whose time steps were fastest on this backend
   * (docs/performance.md, "The default strategy"). */
  int (*default_strategy)(int d, long cells);
  struct fe_element_kernels element;
  struct fe_lma_kernels lma;
  struct fe_addto_kernels addto;
  struct fe_matfree_kernels matfree;
  struct fe_node_kernels node;
  struct fe_fct_kernels fct;
  struct fe_courant_kernels courant;
  struct fe_load_kernels load;
  struct fe_flux_kernels flux;
};

#ifdef __cplusplus
}
#endif

#endif
