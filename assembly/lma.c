/* The local matrix approach on the CPU: y = A^T (E (A x)) in Markall's three
 * stages; the scatter is a deterministic sum over each node's incidence. */
#include "assembly/kernels.h"
#include "core/error.h"

/* The scatter-add of the local results work[c * nv + i], as a sum over each
 * node's cell entries: a fixed order, so results do not depend on threads. */
void fe_incidence_sum_cpu(const struct fe_space *s, const double *work, double *y)
{
#pragma omp parallel for schedule(static)
  for (long n = 0; n < s->n_nodes; n++) {
    double sum = 0;
    for (int k = s->inc_ptr[n]; k < s->inc_ptr[n + 1]; k++) sum += work[s->inc[k]];
    y[n] = sum;
  }
}

static void products(int d, const struct fe_space *s, const double *e, const double *x,
                     double *work)
{
  const int nv = d + 1;
#pragma omp parallel for schedule(static)
  for (long c = 0; c < s->n_cells; c++) {
    double y[4];
    fe_cell_lma_product(d, e, s->block_shift, s->cells, x, c, y);
    for (int i = 0; i < nv; i++) work[c * nv + i] = y[i];
  }
}

static int lma_apply_cpu(const struct fe_space *s, const double *e, const double *x, double *y,
                         double *work)
{
  if (s->d == 2)
    products(2, s, e, x, work);
  else
    products(3, s, e, x, work);
  fe_incidence_sum_cpu(s, work, y);
  return FE_SUCCESS;
}

static int lma_diagonal_cpu(const struct fe_space *s, const double *e, double *diag)
{
  const int nv = s->nv, nk = s->nk;
#pragma omp parallel for schedule(static)
  for (long n = 0; n < s->n_nodes; n++) {
    double sum = 0;
    for (int k = s->inc_ptr[n]; k < s->inc_ptr[n + 1]; k++) {
      int c = s->inc[k] / nv, i = s->inc[k] % nv;
      sum += e[fe_block_index(c, i * nv + i, nk, s->block_shift)];
    }
    diag[n] = sum;
  }
  return FE_SUCCESS;
}

/* Boundary cells are few; a serial loop keeps the sums in a fixed order. */
static int lift_cpu(const struct fe_space *s, const double *elift, double scale, const double *x,
                    double *y)
{
  const int nv = s->nv, nk = s->nk;
  for (long b = 0; b < s->n_bcells; b++) {
    const int *cell = s->cells + (long)s->bcells[b] * nv;
    const unsigned dm = s->dmask[s->bcells[b]];
    for (int i = 0; i < nv; i++) {
      if ((dm >> i) & 1u) continue;
      for (int j = 0; j < nv; j++)
        if ((dm >> j) & 1u) y[cell[i]] += scale * elift[b * nk + i * nv + j] * x[cell[j]];
    }
  }
  return FE_SUCCESS;
}

int fe_element_matrices_cpu(const struct fe_space *s, const struct fe_form *form,
                            const double *diff, const double *vel, double *e, double *elift);
int fe_csr_assemble_cpu(const struct fe_space *s, struct fe_csr *csr, const double *e);
int fe_csr_apply_cpu(struct fe_csr *csr, const double *x, double *y);
int fe_csr_diagonal_cpu(const struct fe_csr *csr, double *diag);
int fe_mass_apply_cpu(const struct fe_space *s, const double *x, double *y);
int fe_matfree_apply_cpu(const struct fe_space *s, const struct fe_form *form, const double *diff,
                         const double *vel, const double *x, double *y, double *work);
int fe_matfree_diagonal_cpu(const struct fe_space *s, const struct fe_form *form, const double *diff,
                            const double *vel, double *diag);
int fe_facet_load_cpu(const struct fe_space *s, const int *ptr, const int *slots, const double *w,
                      const double *g, double *out);
int fe_evaluate_cpu(const struct fe_space *s, int at_cells, const int *idx, const int *opos, long m,
                    const struct fe_program *progs, int nprog, double t, double *out);
int fe_count_indefinite_cpu(const struct fe_space *s, long m, const double *tensors, int *count);

static int prepare_cpu(const struct fe_space *s)
{
  (void)s;
  return FE_SUCCESS;
}

static void csr_release_cpu(struct fe_csr *csr) { (void)csr; }

const struct fe_assembly_kernels fe_assembly_kernels_cpu = {
  .prepare = prepare_cpu,
  .element_matrices = fe_element_matrices_cpu,
  .lma_apply = lma_apply_cpu,
  .lma_diagonal = lma_diagonal_cpu,
  .matfree_apply = fe_matfree_apply_cpu,
  .matfree_diagonal = fe_matfree_diagonal_cpu,
  .lift = lift_cpu,
  .csr_assemble = fe_csr_assemble_cpu,
  .csr_apply = fe_csr_apply_cpu,
  .csr_diagonal = fe_csr_diagonal_cpu,
  .csr_release = csr_release_cpu,
  .facet_load = fe_facet_load_cpu,
  .mass_apply = fe_mass_apply_cpu,
  .evaluate = fe_evaluate_cpu,
  .count_indefinite = fe_count_indefinite_cpu,
};
