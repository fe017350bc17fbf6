/* Per-node and per-point work on the CPU: the loop bodies of assembly/node.h
 * over the nodes (or points) with OpenMP. */
#include <omp.h>
#include <stdlib.h>

#include "assembly/node.h"
#include "backends/cpu/backend_cpu.h"
#include "core/error.h"

int fe_scatter_one_thread_cpu(void) { return omp_get_max_threads() == 1; }

int fe_incidence_sum_cpu(const struct fe_space *s, const int *ptr, const int *idx,
                         const double *work, double *y)
{
#pragma omp parallel for schedule(static)
  for (long n = 0; n < s->n_nodes; n++) y[n] = fe_node_incidence_sum(n, ptr, idx, work);
  return FE_SUCCESS;
}

int fe_lift_cpu(const struct fe_space *s, const double *elift, double scale, const double *x,
                double *y)
{
#pragma omp parallel for schedule(static)
  for (long i = 0; i < s->n_lift_nodes; i++) {
    const int n = s->lift_nodes[i];
    y[n] = fe_node_lift(i, s->lift_ptr, s->lift_entry, s->lift_col, elift, scale, x, y[n]);
  }
  return FE_SUCCESS;
}

int fe_reaction_cpu(const struct fe_space *s, const double *elift, double scale, const double *x,
                    double *y)
{
#pragma omp parallel for schedule(static)
  for (long i = 0; i < s->n_dirichlet; i++) {
    const int n = s->dirichlet[i];
    y[n] =
        fe_node_reaction(s->nv, n, s->inc_ptr, s->inc, s->cells, s->bindex, elift, scale, x, y[n]);
  }
  return FE_SUCCESS;
}

int fe_facet_load_cpu(const struct fe_space *s, const int *ptr, const int *slots, const double *w,
                      const double *g, double *out)
{
#pragma omp parallel for schedule(static)
  for (long n = 0; n < s->n_nodes; n++) out[n] = fe_node_facet_load(s->d, n, ptr, slots, w, g);
  return FE_SUCCESS;
}

/* The dimension a literal at each call inside the loop, as in backends/cpu/matfree.c: GCC then
 * specialises the row's geometry (the default case's mass rows on one thread: 4.8 % of a run's
 * time before) */
int fe_mass_apply_cpu(const struct fe_space *s, const double *x, double *y)
{
  const int d = s->d;
#pragma omp parallel for schedule(static)
  for (long n = 0; n < s->n_nodes; n++)
    y[n] = d == 2 ? fe_node_mass_row(2, &s->ref, n, s->inc_ptr, s->inc, s->cells, s->coords, x)
                  : fe_node_mass_row(3, &s->ref, n, s->inc_ptr, s->inc, s->cells, s->coords, x);
  return FE_SUCCESS;
}

/* The programs at time t once (io/program.h, fe_program_at_time), then at every point. */
int fe_evaluate_cpu(const struct fe_space *s, int at_cells, const int *idx, const int *opos, long m,
                    const struct fe_program *progs, int nprog, double t, double *out)
{
  struct fe_program *at;
  FE_MALLOC(nprog, &at);
  for (int k = 0; k < nprog; k++) fe_program_at_time(&progs[k], t, &at[k]);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < m; i++)
    fe_point_evaluate(s->d, at_cells, i, s->cells, s->coords, s->owner, idx, opos, at, nprog, t,
                      out);
  free(at);
  return FE_SUCCESS;
}

int fe_count_indefinite_cpu(const struct fe_space *s, long m, const double *tensors, int *count)
{
  const int ns = FE_NSYM(s->d);
  int bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad)
  for (long i = 0; i < m; i++) {
    int a, b;
    double v;
    bad += fe_sym_psd_failure(s->d, tensors + i * ns, &a, &b, &v) != 0;
  }
  *count += bad;
  return FE_SUCCESS;
}

int fe_interpolate_cpu(const struct fe_space *s, long n, const int *nodes, const double *weights,
                       const double *field, int ncomp, double *out)
{
#pragma omp parallel for schedule(static)
  for (long p = 0; p < n; p++) fe_point_interpolate(s->nv, p, nodes, weights, field, ncomp, out);
  return FE_SUCCESS;
}
