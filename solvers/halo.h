/* The ghosts of vectors and where their values come from (Fluidity's halos, deal.II's
 * partitioner): a vector of a halo holds n_owned owned entries, then n_ghost ghosts, ghost k a
 * copy of owned entry owner[k].  With one process the ghosts are the copies that periodic
 * boundaries make (the aliased nodes of io/mesh.h); with several they will be the entries
 * other processes own, and the update and the sum their exchanges through the communicator. */
#ifndef FE_HALO_H
#define FE_HALO_H

#include "solvers/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

struct fe_halo {
  const struct fe_backend *be;
  size_t n_owned, n_ghost;
  int *owner;      /* backend, n_ghost: the owned entry ghost k copies */
  size_t n_shared; /* owned entries that have ghosts */
  int *shared;     /* backend, n_shared: those entries, ascending */
  int *shared_ptr; /* backend, n_shared + 1: their ghosts (entries n_owned + k, ascending) in */
  int *shared_ghost;
};

/* owner: n_ghost owned entries (host), each < n_owned. */
int fe_halo_create(const struct fe_backend *be, size_t n_owned, size_t n_ghost, const int *owner,
                   struct fe_halo **halo);
void fe_halo_destroy(struct fe_halo *halo);

/* The forward exchange (scatter forward): every ghost takes its owner's value,
 * x[(n_owned + k) ncomp + c] = x[owner[k] ncomp + c], for vectors of ncomp values per entry. */
int fe_halo_update(const struct fe_halo *halo, int ncomp, double *x);
/* The reverse sum (scatter reverse, add): every owned entry with ghosts adds their values, in
 * ascending order of the ghosts; the ghosts are left as they were (an update makes them
 * copies again).  A vector whose entries are sums over cells, each entry of the cells at it
 * alone, becomes the sums over the cells at every copy. */
int fe_halo_sum(const struct fe_halo *halo, double *x);

#ifdef __cplusplus
}
#endif

#endif
