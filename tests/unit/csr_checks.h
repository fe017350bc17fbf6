/* The CSR sparsity of the addto strategy (fe_csr_create, built by each backend's
 * fe_addto_kernels.sparsity) checked from its definition: row i holds exactly the unknowns
 * (fe_mesh_owner) that share a cell with a copy of unknown i, in ascending order; the diagonal
 * slot of each row is its column i; each element-matrix entry maps to the slot of its row's
 * and column's unknowns and the blocks' padding to 0.  And two backends' sparsities of one
 * mesh are the same arrays. */
#ifndef FE_CSR_CHECKS_H
#define FE_CSR_CHECKS_H

#include <stdlib.h>
#include <string.h>

#include "assembly/csr.h"
#include "assembly/kernels.h"
#include "assembly/space.h"
#include "test.h"

struct csr_host {
  long n, nnz;
  int *rowptr, *colind, *diag, *map; /* map: n_cells * nk, in cell order */
};

/* s's sparsity, built on its backend, on the host. */
static inline void csr_host_of(const struct fe_space *s, struct csr_host *h)
{
  struct fe_csr *a;
  CHECK_OK(fe_csr_create(s, &a));
  const struct fe_backend *be = s->be;
  const long nk = s->nk, nb = fe_blocked_cells(s->n_cells, s->block_shift);
  h->n = a->n;
  h->nnz = a->nnz;
  h->rowptr = malloc(sizeof(int) * (h->n + 1));
  h->colind = malloc(sizeof(int) * (h->nnz + 1));
  h->diag = malloc(sizeof(int) * (h->n + 1));
  h->map = malloc(sizeof(int) * (s->n_cells * nk + 1));
  int *blocked = malloc(sizeof(int) * (nb * nk + 1));
  CHECK_OK(fe_csr_download(a, h->rowptr, h->colind, NULL));
  CHECK_OK(be->vec->to_host(be, h->diag, a->diag, sizeof(int) * h->n));
  CHECK_OK(be->vec->to_host(be, blocked, a->map, sizeof(int) * nb * nk));
  for (long c = 0; c < nb; c++)
    for (int k = 0; k < nk; k++) {
      const int slot = blocked[fe_block_index(c, k, (int)nk, s->block_shift)];
      if (c < s->n_cells)
        h->map[c * nk + k] = slot;
      else
        CHECK(slot == 0);
    }
  free(blocked);
  fe_csr_destroy(a);
}

static inline void csr_host_free(struct csr_host *h)
{
  free(h->rowptr);
  free(h->colind);
  free(h->diag);
  free(h->map);
}

/* s's sparsity against its definition. */
static inline void csr_check_definition(const struct fe_space *s)
{
  const struct fe_mesh *m = s->mesh;
  const int nv = m->nv;
  struct csr_host h;
  csr_host_of(s, &h);
  CHECK(h.n == fe_mesh_n_unknowns(m) && h.rowptr[0] == 0 && h.rowptr[h.n] == h.nnz);
  /* the pairs of unknowns that share a cell, marked in a row-major bit table (small meshes) */
  unsigned char *pair = calloc((size_t)h.n * h.n, 1);
  for (long c = 0; c < m->n_cells; c++)
    for (int i = 0; i < nv; i++)
      for (int j = 0; j < nv; j++) {
        const long r = fe_mesh_owner(m, m->cells[c * nv + i]),
                   col = fe_mesh_owner(m, m->cells[c * nv + j]);
        pair[r * h.n + col] = 1;
        const int slot = h.map[c * nv * nv + i * nv + j];
        CHECK(slot >= h.rowptr[r] && slot < h.rowptr[r + 1] && h.colind[slot] == col);
      }
  long bad = 0;
  for (long r = 0; r < h.n; r++) {
    long count = 0;
    for (long col = 0; col < h.n; col++) count += pair[r * h.n + col];
    bad += count != h.rowptr[r + 1] - h.rowptr[r];
    for (int k = h.rowptr[r]; k < h.rowptr[r + 1]; k++) {
      bad += !pair[r * h.n + h.colind[k]];
      bad += k > h.rowptr[r] && h.colind[k] <= h.colind[k - 1];
    }
    bad += h.colind[h.diag[r]] != r || h.diag[r] < h.rowptr[r] || h.diag[r] >= h.rowptr[r + 1];
  }
  CHECK(bad == 0);
  free(pair);
  csr_host_free(&h);
}

/* The sparsities of one mesh on two backends (their spaces may interleave cells differently):
 * the same arrays. */
static inline void csr_check_same(const struct fe_space *a, const struct fe_space *b)
{
  struct csr_host ha, hb;
  csr_host_of(a, &ha);
  csr_host_of(b, &hb);
  CHECK(ha.n == hb.n && ha.nnz == hb.nnz);
  if (ha.n == hb.n && ha.nnz == hb.nnz) {
    CHECK(!memcmp(ha.rowptr, hb.rowptr, sizeof(int) * (ha.n + 1)));
    CHECK(!memcmp(ha.colind, hb.colind, sizeof(int) * ha.nnz));
    CHECK(!memcmp(ha.diag, hb.diag, sizeof(int) * ha.n));
    CHECK(!memcmp(ha.map, hb.map, sizeof(int) * a->n_cells * a->nk));
  }
  csr_host_free(&ha);
  csr_host_free(&hb);
}

/* The CPU backend's product with the CSR matrix a (fe_addto_kernels.apply, which reads a
 * sliced copy of it) against the row-by-row sums of a's downloaded rows: the same bits, each
 * row's entries added in the row's order.  x: a->n values (random, so that no product is
 * exactly cancelled by luck). */
static inline void csr_check_product(struct fe_csr *a, const double *x)
{
  const struct fe_backend *be = a->be;
  int *rowptr = malloc(sizeof(int) * (a->n + 1)), *colind = malloc(sizeof(int) * (a->nnz + 1));
  double *values = malloc(sizeof(double) * (a->nnz + 1)), *want = malloc(sizeof(double) * a->n),
         *got = malloc(sizeof(double) * a->n), *dx, *dy;
  CHECK_OK(fe_csr_download(a, rowptr, colind, values));
  for (long i = 0; i < a->n; i++) {
    double sum = 0;
    for (int k = rowptr[i]; k < rowptr[i + 1]; k++) sum += values[k] * x[colind[k]];
    want[i] = sum;
  }
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * a->n, x, &dx));
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * a->n, NULL, &dy));
  CHECK_OK(be->assembly->addto.apply(a, dx, dy));
  CHECK_OK(be->vec->to_host(be, got, dy, sizeof(double) * a->n));
  CHECK(!memcmp(got, want, sizeof(double) * a->n));
  fe_backend_free(be, dx);
  fe_backend_free(be, dy);
  free(rowptr);
  free(colind);
  free(values);
  free(want);
  free(got);
}

#endif
