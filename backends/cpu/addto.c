/* The addto strategy on the CPU: element matrices accumulated into CSR values
 * through the entry -> slot map, one row per thread (no atomics, so the sums
 * have a fixed order), and a plain CSR SpMV. */
#include <stdlib.h>
#include <string.h>

#include "assembly/node.h"
#include "backends/cpu/backend_cpu.h"
#include "core/error.h"

/* Every row's columns (fe_node_csr_columns), each thread's in a buffer of room ints of its
 * own: counted into rowptr[i + 1], or (copy) copied into colind with the diagonal's slot. */
static int rows(const struct fe_space *s, struct fe_csr *csr, size_t room, int copy)
{
  int err = FE_SUCCESS;
#pragma omp parallel reduction(max : err)
  {
    int *buf = malloc(room * sizeof *buf);
    err = buf ? FE_SUCCESS : FE_ERR_RESOURCE;
#pragma omp for schedule(dynamic, 1024)
    for (long i = 0; i < csr->n; i++) {
      if (!buf) continue;
      const int count = fe_node_csr_columns(i, s->nv, s->inc_ptr, s->inc, s->cells, s->owner, buf);
      if (!copy) {
        csr->rowptr[i + 1] = count;
        continue;
      }
      memcpy(csr->colind + csr->rowptr[i], buf, (size_t)count * sizeof *buf);
      csr->diag[i] = fe_node_csr_slot(csr->rowptr, csr->colind, (int)i, (int)i);
    }
    free(buf);
  }
  FE_CHECK(!err, FE_ERR_RESOURCE, "out of host memory building the CSR sparsity");
  return FE_SUCCESS;
}

/* Each row is built twice, to count its columns and to copy them: no array of every row's
 * candidates. */
int fe_csr_sparsity_cpu(const struct fe_space *s, struct fe_csr *csr)
{
  const long n = csr->n;
  const int nv = s->nv, nk = s->nk;
  int maxinc = 0;
  for (long i = 0; i < n; i++)
    if (s->inc_ptr[i + 1] - s->inc_ptr[i] > maxinc) maxinc = s->inc_ptr[i + 1] - s->inc_ptr[i];
  const size_t room = (size_t)maxinc * nv + 1;
  FE_CALL(fe_backend_alloc(s->be, (n + 1) * sizeof(int), NULL, &csr->rowptr));
  FE_CALL(rows(s, csr, room, 0));
  csr->rowptr[0] = 0;
  for (long i = 0; i < n; i++) csr->rowptr[i + 1] += csr->rowptr[i];
  csr->nnz = csr->rowptr[n];
  FE_CALL(fe_backend_alloc(s->be, (size_t)csr->nnz * sizeof(int) + 1, NULL, &csr->colind));
  FE_CALL(fe_backend_alloc(s->be, n * sizeof(int) + 1, NULL, &csr->diag));
  FE_CALL(rows(s, csr, room, 1));
  const long nb = fe_blocked_cells(s->n_cells, s->block_shift);
  FE_CALL(fe_backend_alloc(s->be, (size_t)(nb * nk) * sizeof(int), NULL, &csr->map));
  memset(csr->map, 0, (size_t)(nb * nk) * sizeof(int)); /* the blocks' padding */
#pragma omp parallel for schedule(static)
  for (long c = 0; c < s->n_cells; c++)
    for (int k = 0; k < nk; k++)
      csr->map[fe_block_index(c, k, nk, s->block_shift)] =
          fe_node_csr_entry_slot(c, k, nv, s->cells, s->owner, csr->rowptr, csr->colind);
  return FE_SUCCESS;
}

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
