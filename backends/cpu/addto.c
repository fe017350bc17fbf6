/* The addto strategy on the CPU: element matrices accumulated into CSR values
 * through the entry -> slot map, one row per thread (no atomics, so the sums
 * have a fixed order), and a plain CSR SpMV. */
#include "backends/cpu/backend_cpu.h"
#include "core/error.h"

int fe_csr_assemble_cpu(const struct fe_space *s, struct fe_csr *csr, const double *e)
{
  const int nv = s->nv, nk = s->nk;
#pragma omp parallel for schedule(static)
  for (long n = 0; n < csr->n; n++) { /* the entries of every copy of n's unknown (merged) */
    for (int k = csr->rowptr[n]; k < csr->rowptr[n + 1]; k++) csr->values[k] = 0;
    for (int k = s->inc_ptr[n]; k < s->inc_ptr[n + 1]; k++) {
      int c = s->inc[k] / nv, i = s->inc[k] % nv;
      for (int j = 0; j < nv; j++) {
        long idx = fe_block_index(c, i * nv + j, nk, s->block_shift);
        csr->values[csr->map[idx]] += e[idx];
      }
    }
  }
  return FE_SUCCESS;
}

int fe_csr_apply_cpu(struct fe_csr *csr, const double *x, double *y)
{
#pragma omp parallel for schedule(static)
  for (long i = 0; i < csr->n; i++) {
    double sum = 0;
    for (int k = csr->rowptr[i]; k < csr->rowptr[i + 1]; k++)
      sum += csr->values[k] * x[csr->colind[k]];
    y[i] = sum;
  }
  return FE_SUCCESS;
}

int fe_csr_diagonal_cpu(const struct fe_csr *csr, double *diag)
{
#pragma omp parallel for schedule(static)
  for (long i = 0; i < csr->n; i++) diag[i] = csr->values[csr->diag[i]];
  return FE_SUCCESS;
}
