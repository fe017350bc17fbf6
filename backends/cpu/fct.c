/* Flux-corrected transport on the CPU: the loop bodies of assembly/fct.h over
 * the cells and the nodes with OpenMP. */
#include "assembly/fct.h"
#include "backends/cpu/backend_cpu.h"
#include "core/error.h"

int fe_fct_lumped_mass_cpu(const struct fe_space *s, double *ml)
{
#pragma omp parallel for schedule(static)
  for (long n = 0; n < s->n_nodes; n++)
    ml[n] = fe_fct_node_lumped_mass(s->d, &s->ref, n, s->inc_ptr, s->inc, s->cells, s->coords);
  return FE_SUCCESS;
}

/* The exchange between two loops (several processes), outside the threads' regions. */
static int exchanged(const struct fe_fct_arrays *a, enum fe_fct_phase phase)
{
  return a->exchange ? a->exchange(a, phase) : FE_SUCCESS;
}

int fe_fct_step_cpu(const struct fe_space *s, const struct fe_fct_arrays *a)
{
  const int d = s->d;
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (long c = 0; c < s->n_cells; c++) fe_fct_cell_fluxes(d, &s->ref, s->cells, s->coords, a, c);
#pragma omp for schedule(static)
    for (long n = 0; n < s->n_nodes; n++) fe_fct_node_low(d, n, s->inc_ptr, s->inc, s->dmask, a);
  }
  FE_CALL(exchanged(a, FE_FCT_LOW));
#pragma omp parallel for schedule(static)
  for (long n = 0; n < s->n_nodes; n++)
    fe_fct_node_ratios(d, n, s->inc_ptr, s->inc, s->cells, s->dmask, a);
  FE_CALL(exchanged(a, FE_FCT_RATIOS));
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (long c = 0; c < s->n_cells; c++) fe_fct_cell_limit(d, s->cells, a, c);
#pragma omp for schedule(static)
    for (long n = 0; n < s->n_nodes; n++) fe_fct_node_update(d, n, s->inc_ptr, s->inc, s->dmask, a);
  }
  return FE_SUCCESS;
}
