/* The global CSR matrix of the addto strategy: sparsity built once per mesh
 * from the node adjacency, with the precomputed map from each element-matrix
 * entry (in the blocked element layout) to its CSR slot.  On a periodic mesh the matrix is
 * PᵀAP: a row and a column per owned node, every copy's entries in its owner's. */
#ifndef FE_CSR_H
#define FE_CSR_H

#include "assembly/space.h"


#ifdef __cplusplus
extern "C" {
#endif

struct fe_csr {
  const struct fe_backend *be;
  long n, nnz;          /* n: the owned nodes */
  int *rowptr, *colind; /* on the backend */
  int *map;             /* fe_blocked_cells(n_cells, block_shift) * nk: CSR slot of each entry */
  int *diag;            /* n: slot of the diagonal of each row */
  double *values;       /* NULL where the backend holds them (fe_addto_kernels.values) */
  void *ctx;            /* backend data (e.g. cuSPARSE descriptors) */
};

int fe_csr_create(const struct fe_space *space, struct fe_csr **csr);
void fe_csr_destroy(struct fe_csr *csr);

/* Host-side pieces, for tests and peers: row pointers and column indices. */
int fe_csr_download(const struct fe_csr *csr, int *rowptr, int *colind, double *values);

#ifdef __cplusplus
}
#endif

#endif
