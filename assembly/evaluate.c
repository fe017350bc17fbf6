/* Coefficient fields evaluated from the expressions' programs, and the
 * matrix-free mass apply of the norms, on the CPU. */
#include "assembly/kernels.h"
#include "core/error.h"

int fe_evaluate_cpu(const struct fe_space *s, int at_cells, const int *idx, const int *opos, long m,
                    const struct fe_program *progs, int nprog, double t, double *out)
{
  const int d = s->d, nv = s->nv;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < m; i++) {
    double x[3] = {0, 0, 0};
    if (at_cells) {
      for (int v = 0; v < nv; v++)
        for (int a = 0; a < d; a++) x[a] += s->coords[(long)s->cells[i * nv + v] * d + a] / nv;
    } else {
      const long n = idx ? idx[i] : i;
      for (int a = 0; a < d; a++) x[a] = s->coords[n * d + a];
    }
    const long o = (opos ? opos[i] : i) * nprog;
    for (int k = 0; k < nprog; k++) out[o + k] = fe_program_eval(&progs[k], x[0], x[1], x[2], t);
  }
  return FE_SUCCESS;
}

int fe_mass_apply_cpu(const struct fe_space *s, const double *x, double *y)
{
#pragma omp parallel for schedule(static)
  for (long n = 0; n < s->n_nodes; n++) {
    double sum = 0;
    for (int k = s->inc_ptr[n]; k < s->inc_ptr[n + 1]; k++)
      sum += fe_cell_mass_row(s->d, &s->ref, s->cells, s->coords, x, s->inc[k] / s->nv, s->inc[k] % s->nv);
    y[n] = sum;
  }
  return FE_SUCCESS;
}

int fe_facet_load_cpu(const struct fe_space *s, const int *ptr, const int *slots, const double *w,
                      const double *g, double *out)
{
  const int d = s->d;
#pragma omp parallel for schedule(static)
  for (long n = 0; n < s->n_nodes; n++) {
    double sum = 0;
    for (int k = ptr[n]; k < ptr[n + 1]; k++) {
      const int f = slots[k] / d;
      double all = 0;
      for (int j = 0; j < d; j++) all += g[f * d + j];
      sum += w[f] * (g[slots[k]] + all);
    }
    out[n] = sum;
  }
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
