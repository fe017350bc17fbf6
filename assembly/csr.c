#include "assembly/csr.h"

#include <stdlib.h>
#include <string.h>

#include "assembly/kernels.h"
#include "core/error.h"

static int cmp_int(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Sorted, unique neighbours of node i (itself included) into buf, through the cells around
 * every copy of its unknown (the space's incidence), each neighbour as its owner: the columns
 * of row i of the periodic matrix; returns count.  Each vertex goes into the sorted list by a
 * scan from its end: a row has tens of columns (about 7 in 2D, 15 in 3D), met several times
 * each, and the cells' vertices come nearly in order. */
static int row_pattern(const struct fe_mesh *m, const int *ptr, const int *inc, int i, int *buf)
{
  int u = 0;
  for (int k = ptr[i]; k < ptr[i + 1]; k++) {
    const int *cell = m->cells + (long)(inc[k] / m->nv) * m->nv;
    for (int v = 0; v < m->nv; v++) {
      const int col = fe_mesh_owner(m, cell[v]);
      int j = u;
      while (j > 0 && buf[j - 1] > col) j--;
      if (j > 0 && buf[j - 1] == col) continue;
      memmove(buf + j + 1, buf + j, (size_t)(u - j) * sizeof *buf);
      buf[j] = col;
      u++;
    }
  }
  return u;
}

static int slot_of(const int *rowptr, const int *colind, int i, int j)
{
  const int *row = colind + rowptr[i];
  const int *p = bsearch(&j, row, (size_t)(rowptr[i + 1] - rowptr[i]), sizeof *row, cmp_int);
  return (int)(p - colind);
}

struct host_csr {
  int *ptr, *inc, *rowptr, *colind, *map, *diag;
};

static void host_free(struct host_csr *h)
{
  free(h->ptr);
  free(h->inc);
  free(h->rowptr);
  free(h->colind);
  free(h->map);
  free(h->diag);
}

/* The rows of the CSR matrix (fe_csr_rows): every node's but the aliased copies' (their rows
 * are their owners'). */
static long csr_rows(const struct fe_space *s) { return fe_mesh_n_unknowns(s->mesh); }

/* The rows of the nodes that are no aliased copies: the owned nodes', and on a part of a mesh
 * on several processes the ghosts', which miss the other processes' cells (the apply's halo
 * update replaces them). */
static int host_build(const struct fe_space *s, struct host_csr *h)
{
  const struct fe_mesh *m = s->mesh;
  const int nv = m->nv, nk = s->nk, n = (int)csr_rows(s);
  FE_MALLOC(m->n_nodes + 1, &h->ptr);
  FE_CALL(s->be->vec->to_host(s->be, h->ptr, s->inc_ptr, (size_t)(m->n_nodes + 1) * sizeof(int)));
  FE_MALLOC(h->ptr[m->n_nodes] + 1, &h->inc);
  FE_CALL(s->be->vec->to_host(s->be, h->inc, s->inc, (size_t)h->ptr[m->n_nodes] * sizeof(int)));
  int maxinc = 0;
  for (int i = 0; i < n; i++)
    if (h->ptr[i + 1] - h->ptr[i] > maxinc) maxinc = h->ptr[i + 1] - h->ptr[i];
  FE_CALLOC(n + 1, &h->rowptr);
  int err = FE_SUCCESS;
#pragma omp parallel reduction(max : err)
  {
    int *buf = malloc(((size_t)maxinc * nv + 1) * sizeof *buf);
    err = buf ? FE_SUCCESS : FE_ERR_RESOURCE;
#pragma omp for schedule(dynamic, 1024)
    for (int i = 0; i < n; i++)
      if (buf) h->rowptr[i + 1] = row_pattern(m, h->ptr, h->inc, i, buf);
    free(buf);
  }
  FE_CHECK(!err, FE_ERR_RESOURCE, "out of host memory building the CSR sparsity");
  for (int i = 0; i < n; i++) h->rowptr[i + 1] += h->rowptr[i];
  FE_MALLOC(h->rowptr[n] + 1, &h->colind);
#pragma omp parallel
  {
    int *buf = malloc(((size_t)maxinc * nv + 1) * sizeof *buf);
#pragma omp for schedule(dynamic, 1024)
    for (int i = 0; i < n; i++)
      if (buf) {
        int c = row_pattern(m, h->ptr, h->inc, i, buf);
        memcpy(h->colind + h->rowptr[i], buf, (size_t)c * sizeof *buf);
      }
    free(buf);
  }
  const long nb = fe_blocked_cells(m->n_cells, s->block_shift);
  FE_CALLOC(nb * nk, &h->map);
  FE_MALLOC(n + 1, &h->diag);
#pragma omp parallel for schedule(static)
  for (long c = 0; c < m->n_cells; c++)
    for (int i = 0; i < nv; i++)
      for (int j = 0; j < nv; j++)
        h->map[fe_block_index(c, i * nv + j, nk, s->block_shift)] =
            slot_of(h->rowptr, h->colind, fe_mesh_owner(m, m->cells[c * nv + i]),
                    fe_mesh_owner(m, m->cells[c * nv + j]));
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++) h->diag[i] = slot_of(h->rowptr, h->colind, i, i);
  return FE_SUCCESS;
}

int fe_csr_create(const struct fe_space *s, struct fe_csr **out)
{
  struct fe_csr *a;
  FE_CALLOC(1, &a);
  a->be = s->be;
  a->n = (size_t)csr_rows(s);
  struct host_csr h = {0};
  int err = host_build(s, &h);
  const size_t nb = (size_t)fe_blocked_cells(s->n_cells, s->block_shift) * s->nk;
  if (!err) {
    a->nnz = h.rowptr[a->n];
    err = fe_backend_alloc(s->be, (a->n + 1) * sizeof(int), h.rowptr, &a->rowptr);
  }
  if (!err) err = fe_backend_alloc(s->be, a->nnz * sizeof(int), h.colind, &a->colind);
  if (!err) err = fe_backend_alloc(s->be, nb * sizeof(int), h.map, &a->map);
  if (!err) err = fe_backend_alloc(s->be, a->n * sizeof(int), h.diag, &a->diag);
  if (!err) err = fe_backend_alloc(s->be, a->nnz * sizeof(double), NULL, &a->values);
  if (!err) err = s->be->vec->set(s->be, a->nnz, 0.0, a->values);
  host_free(&h);
  if (err) {
    fe_csr_destroy(a);
    return err;
  }
  *out = a;
  return FE_SUCCESS;
}

void fe_csr_destroy(struct fe_csr *a)
{
  if (!a) return;
  void *dev[] = {a->rowptr, a->colind, a->map, a->diag, a->values};
  for (size_t i = 0; i < sizeof dev / sizeof *dev; i++) fe_backend_free(a->be, dev[i]);
  if (a->ctx) a->be->assembly->addto.release(a);
  free(a);
}

int fe_csr_download(const struct fe_csr *a, int *rowptr, int *colind, double *values)
{
  const struct fe_vec_ops *v = a->be->vec;
  if (rowptr) FE_CALL(v->to_host(a->be, rowptr, a->rowptr, (a->n + 1) * sizeof(int)));
  if (colind) FE_CALL(v->to_host(a->be, colind, a->colind, a->nnz * sizeof(int)));
  if (values) FE_CALL(v->to_host(a->be, values, a->values, a->nnz * sizeof(double)));
  return FE_SUCCESS;
}
