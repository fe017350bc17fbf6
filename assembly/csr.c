#include "assembly/csr.h"

#include <stdlib.h>

#include "assembly/kernels.h"
#include "core/error.h"

/* The rows of the CSR matrix: every node's but the aliased copies' (their rows are their
 * owners'), so the owned nodes', and on a part of a mesh on several processes the ghosts',
 * which miss the other processes' cells (the apply's halo update replaces them). */
static long csr_rows(const struct fe_space *s) { return fe_mesh_n_unknowns(s->mesh); }

int fe_csr_create(const struct fe_space *s, struct fe_csr **out)
{
  struct fe_csr *a;
  FE_CALLOC(1, &a);
  a->be = s->be;
  a->n = (size_t)csr_rows(s);
  int err = s->be->assembly->addto.sparsity(s, a);
  if (!err && !s->be->assembly->addto.values) { /* else held in the backend's layout */
    err = fe_backend_alloc(s->be, a->nnz * sizeof(double), NULL, &a->values);
    if (!err) err = s->be->vec->set(s->be, a->nnz, 0.0, a->values);
  }
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
  if (values && a->be->assembly->addto.values) return a->be->assembly->addto.values(a, values);
  if (values) FE_CALL(v->to_host(a->be, values, a->values, a->nnz * sizeof(double)));
  return FE_SUCCESS;
}
