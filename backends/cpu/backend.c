/* The CPU backend: the reference every other backend is tested against.  Its
 * tables, filled here and only here; vectors live in host memory and the
 * loops run on OpenMP threads. */
#include "backends/cpu/backend_cpu.h"

#include <stdio.h>
#include <stdlib.h>

#include <omp.h>

#include "assembly/operator.h"
#include "core/error.h"

static int prepare_cpu(const struct fe_space *s)
{
  (void)s;
  return FE_SUCCESS;
}

/* One element kernel: a loop over the cells. */
static int variant_cpu(int d, int k, int *epb, int *tpe)
{
  (void)d;
  *epb = *tpe = 0;
  return k == 0;
}

static int use_variant_cpu(const struct fe_backend *be, int d, int epb, int tpe)
{
  (void)be;
  FE_CHECK(epb == 0 && tpe == 0, FE_ERR_USAGE,
           "no %dD element kernel with %d elements per block and %d threads per element on the "
           "CPU",
           d, epb, tpe);
  return FE_SUCCESS;
}

static const struct fe_vec_ops vec_cpu = {
    .malloc = fe_vec_malloc_cpu,
    .free = fe_vec_free_cpu,
    .to_device = fe_vec_copy_bytes_cpu,
    .to_host = fe_vec_copy_bytes_cpu,
    .sync = fe_vec_sync_cpu,
    .set = fe_vec_set_cpu,
    .copy = fe_vec_copy_cpu,
    .axpby = fe_vec_axpby_cpu,
    .pointwise_mult = fe_vec_pointwise_mult_cpu,
    .pointwise_div = fe_vec_pointwise_div_cpu,
    .set_indexed = fe_vec_set_indexed_cpu,
    .dot = fe_vec_dot_cpu,
    .minmax = fe_vec_minmax_cpu,
    .reduce = fe_vec_reduce_cpu,
    .ghost_update = fe_vec_ghost_update_cpu,
    .ghost_sum = fe_vec_ghost_sum_cpu,
};

static const struct fe_cg_ops cg_cpu = {
    .residual = fe_cg_residual_cpu,
    .start = fe_cg_start_cpu,
    .pq = fe_cg_pq_cpu,
    .update = fe_cg_update_cpu,
    .direction = fe_cg_direction_cpu,
    .going = fe_cg_going_cpu,
    .scalar_post = fe_cg_scalar_post_cpu,
    .scalar_wait = fe_cg_scalar_wait_cpu,
};

/* addto at every size: the CSR's apply reads the fewest bytes, and on a CPU core its bytes are
 * its time (docs/performance.md, "The CPU backend") */
static int default_strategy_cpu(int d, long cells)
{
  (void)d, (void)cells;
  return FE_STRATEGY_ADDTO;
}

static const struct fe_assembly_kernels assembly_cpu = {
    .default_strategy = default_strategy_cpu,
    .element = {.prepare = prepare_cpu,
                .matrices = fe_element_matrices_cpu,
                .variant = variant_cpu,
                .use_variant = use_variant_cpu},
    .lma = {.apply = fe_lma_apply_cpu, .diagonal = fe_lma_diagonal_cpu},
    .addto = {.sparsity = fe_csr_sparsity_cpu,
              .assemble = fe_csr_assemble_cpu,
              .apply = fe_csr_apply_cpu,
              .values = fe_csr_values_cpu,
              .diagonal = fe_csr_diagonal_cpu,
              .release = fe_csr_release_cpu},
    .matfree = {.apply = fe_matfree_apply_cpu, .diagonal = fe_matfree_diagonal_cpu},
    .node = {.lift = fe_lift_cpu,
             .reaction = fe_reaction_cpu,
             .facet_load = fe_facet_load_cpu,
             .mass_apply = fe_mass_apply_cpu,
             .evaluate = fe_evaluate_cpu,
             .count_indefinite = fe_count_indefinite_cpu,
             .interpolate = fe_interpolate_cpu},
    .fct = {.lumped_mass = fe_fct_lumped_mass_cpu, .step = fe_fct_step_cpu},
    .courant = {.cell_rates = fe_courant_cell_rates_cpu},
    .load = {.cells = fe_load_cells_cpu,
             .facets = fe_load_facets_cpu,
             .gather = fe_incidence_sum_cpu},
    .flux = {.facets = fe_flux_facets_cpu, .cells = fe_flux_cells_cpu},
};

static void destroy_cpu(struct fe_backend *be) { free(be); }

int fe_backend_cpu_create(struct fe_backend **out)
{
  struct fe_backend *be;
  FE_CALLOC(1, &be);
  const int threads = omp_get_max_threads();
  be->name = "cpu";
  snprintf(be->description, sizeof be->description, "cpu, %d thread%s", threads,
           threads == 1 ? "" : "s");
  be->vec = &vec_cpu;
  be->cg = &cg_cpu;
  be->assembly = &assembly_cpu;
  be->comm = fe_comm_self();
  be->destroy = destroy_cpu;
  *out = be;
  return FE_SUCCESS;
}
