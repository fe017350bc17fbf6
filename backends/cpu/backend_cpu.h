/* The CPU backend (OpenMP), private: the prototypes of its kernels, which
 * backends/cpu/backend.c puts in its tables. */
#ifndef FE_BACKEND_CPU_H
#define FE_BACKEND_CPU_H

#include "assembly/kernels.h"
#include "solvers/backend.h"

/* backend.c: the CPU backend, its tables filled (backends/backends.c checks them) */
int fe_backend_cpu_create(struct fe_backend **be);

/* The running sums of a reduction on one thread (dot products, CG's update of r.z and r.r):
 * one sum waits the adder's latency for each term, FE_CPU_LANES independent ones fill the
 * adder's pipeline.  Each thread adds its share of blocks of FE_CPU_LANES consecutive entries,
 * entry l of a block to sum l, and combines its sums pairwise (fe_cpu_lanes_sum); OpenMP adds
 * the threads' results, and the last n % FE_CPU_LANES entries are added after them.  A fixed
 * order for a given number of threads, as before, but not the one of a single running sum. */
#define FE_CPU_LANES 4
static inline double fe_cpu_lanes_sum(const double a[FE_CPU_LANES])
{
  _Static_assert(FE_CPU_LANES == 4, "fe_cpu_lanes_sum combines four sums");
  return (a[0] + a[1]) + (a[2] + a[3]);
}

/* vec.c */
int fe_vec_malloc_cpu(const struct fe_backend *be, size_t bytes, void **p);
void fe_vec_free_cpu(const struct fe_backend *be, void *p);
int fe_vec_copy_bytes_cpu(const struct fe_backend *be, void *dst, const void *src, size_t bytes);
int fe_vec_sync_cpu(const struct fe_backend *be);
int fe_vec_set_cpu(const struct fe_backend *be, size_t n, double alpha, double *y);
int fe_vec_copy_cpu(const struct fe_backend *be, size_t n, const double *x, double *y);
int fe_vec_axpby_cpu(const struct fe_backend *be, size_t n, double a, const double *x, double b,
                     double *y);
int fe_vec_pointwise_mult_cpu(const struct fe_backend *be, size_t n, const double *x,
                              const double *y, double *w);
int fe_vec_pointwise_div_cpu(const struct fe_backend *be, size_t n, const double *x,
                             const double *y, double *w);
int fe_vec_set_indexed_cpu(const struct fe_backend *be, size_t m, const int *idx,
                           const double *values, double *y);
int fe_vec_dot_cpu(const struct fe_backend *be, size_t n, const double *x, const double *y,
                   double *r);
int fe_vec_minmax_cpu(const struct fe_backend *be, size_t n, const double *x, double *min,
                      double *max, double *bad);
int fe_vec_reduce_cpu(const struct fe_backend *be, enum fe_vec_reduction op, size_t n,
                      const double *x, const double *y, double *out);
int fe_vec_ghost_update_cpu(const struct fe_halo *h, int ncomp, double *x);
int fe_vec_ghost_sum_cpu(const struct fe_halo *h, double *x);
/* cg.c */
int fe_cg_residual_cpu(const struct fe_backend *be, size_t n, const struct fe_cg_batch *c,
                       const double *dinv);
int fe_cg_start_cpu(const struct fe_backend *be, const struct fe_cg_batch *c, double rtol,
                    double atol, int max_iterations, unsigned long long condition, int on);
int fe_cg_pq_cpu(const struct fe_backend *be, size_t n, const struct fe_cg_batch *c);
int fe_cg_update_cpu(const struct fe_backend *be, size_t n, const struct fe_cg_batch *c,
                     const double *dinv);
int fe_cg_direction_cpu(const struct fe_backend *be, size_t n, const struct fe_cg_batch *c);
int fe_cg_going_cpu(const struct fe_backend *be, const struct fe_cg_batch *c, double *out,
                    struct fe_cg_state *gathered, unsigned long long condition, int on);
int fe_cg_scalar_post_cpu(const struct fe_backend *be, int slot, const double *dev);
int fe_cg_scalar_wait_cpu(const struct fe_backend *be, int slot, const double *dev, double *value);

/* element.c */
int fe_element_matrices_cpu(const struct fe_space *s, const struct fe_form *form,
                            enum fe_storage st, const double *diff, const double *vel, double *e,
                            double *elift);
/* lma.c */
int fe_lma_apply_cpu(const struct fe_space *s, enum fe_storage st, const double *e, const double *x,
                     double *y, double *work);
int fe_lma_diagonal_cpu(const struct fe_space *s, enum fe_storage st, const double *e,
                        double *diag);
/* addto.c */
int fe_csr_sparsity_cpu(const struct fe_space *s, struct fe_csr *csr);
int fe_csr_assemble_cpu(const struct fe_space *s, struct fe_csr *csr, const double *e);
int fe_csr_apply_cpu(struct fe_csr *csr, const double *x, double *y);
int fe_csr_values_cpu(const struct fe_csr *csr, double *values);
void fe_csr_release_cpu(struct fe_csr *csr);
int fe_csr_diagonal_cpu(const struct fe_csr *csr, double *diag);
/* nodes.c: the sum at each node of its cells' local products (LMA and matrix-free): with
 * several threads the products go to a work array and each node gathers its own
 * (fe_incidence_sum_cpu); with one (fe_scatter_one_thread_cpu), y zeroed, each cell's products
 * added as they come (fe_scatter_cell_cpu, cells in ascending order), then the periodic copies
 * given their unknown's sum (fe_mesh_copy_owners).  The second adds the same terms in the same
 * order as the first (a node's incidence lists its cells ascending, every copy's merged into
 * its unknown's), so it gives the same bits without the work array. */
int fe_scatter_one_thread_cpu(void);
static inline void fe_scatter_cell_cpu(int nv, const int *cell, const int *owner, const double *ye,
                                       double *y)
{
  for (int i = 0; i < nv; i++) y[owner ? owner[cell[i]] : cell[i]] += ye[i];
}
/* matfree.c */
int fe_matfree_apply_cpu(const struct fe_space *s, const struct fe_form *form, const double *diff,
                         const double *vel, const double *x, double *y, double *work);
int fe_matfree_diagonal_cpu(const struct fe_space *s, const struct fe_form *form,
                            const double *diff, const double *vel, double *diag);
/* nodes.c */
int fe_incidence_sum_cpu(const struct fe_space *s, const int *ptr, const int *idx,
                         const double *work, double *y);
int fe_lift_cpu(const struct fe_space *s, const double *elift, double scale, const double *x,
                double *y);
int fe_reaction_cpu(const struct fe_space *s, const double *elift, double scale, const double *x,
                    double *y);
int fe_facet_load_cpu(const struct fe_space *s, const int *ptr, const int *slots, const double *w,
                      const double *g, double *out);
int fe_mass_apply_cpu(const struct fe_space *s, const double *x, double *y);
int fe_evaluate_cpu(const struct fe_space *s, int at_cells, const int *idx, const int *opos, long m,
                    const struct fe_program *progs, int nprog, double t, double *out);
int fe_count_indefinite_cpu(const struct fe_space *s, long m, const double *tensors, int *count);
int fe_interpolate_cpu(const struct fe_space *s, long n, const int *nodes, const double *weights,
                       const double *field, int ncomp, double *out);
/* fct.c */
int fe_fct_lumped_mass_cpu(const struct fe_space *s, double *ml);
int fe_fct_step_cpu(const struct fe_space *s, const struct fe_fct_arrays *a);
/* courant.c */
int fe_courant_cell_rates_cpu(const struct fe_space *s, const double *velocity,
                              const double *inv_height, double *rate);
/* load.c */
int fe_load_cells_cpu(const struct fe_space *s, const struct fe_form *form, const double *diff,
                      const double *vel, const struct fe_program *f, double t, double *work);
int fe_load_facets_cpu(const struct fe_space *s, long m, const int *list, const int *vertices,
                       const struct fe_program *g, double t, double *work);
/* flux.c */
int fe_flux_facets_cpu(const struct fe_space *s, long m, const int *nodes, const double *velocity,
                       const double *x, double scale, double *acc);
int fe_flux_cells_cpu(const struct fe_space *s, const double *velocity, const double *weight,
                      int uniform, const double *x, double scale, double *acc);

#endif
