/* The ghosts of vectors and where their values come from (Fluidity's halos, deal.II's
 * partitioner): a vector of a halo holds n_owned owned entries, then n_ghost ghosts, ghost k a
 * copy of owned entry owner[k].  With one process the ghosts are the copies that periodic
 * boundaries make (the aliased nodes of io/mesh.h); with several they are the entries other
 * processes own (a part of a mesh, io/partition.h), and the update and the sum are exchanges
 * through the communicator (the CPU backend's MPI, the CUDA backend's NCCL). */
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
  /* Ghosts that other processes own (a run on several processes; then owner, shared above are
   * empty): the ghosts of neighbour k are entries n_owned + recv_ptr[k] .. n_owned +
   * recv_ptr[k + 1], in its order; to it go the owned entries send[send_ptr[k] ..
   * send_ptr[k + 1]), in the order of its ghosts of them.  Host lists; send also on the backend. */
  int n_neighbours;
  int *neighbours;          /* ranks, ascending */
  int *send_ptr, *recv_ptr; /* n_neighbours + 1 */
  int *send_host, *send;    /* send_ptr[n_neighbours] owned entries: host, backend */
  double *buffer;           /* backend: FE_HALO_MAX_COMP (send_ptr[n] + recv_ptr[n]) values */
  int *scaled_ptr;          /* host: 2 (n_neighbours + 1), send_ptr and recv_ptr in values */
};

#define FE_HALO_MAX_COMP 3 /* values per entry an exchange moves at most: a velocity's */

/* 1 when the ghosts are other processes' entries: a loop over the cells of this process
 * completes only the owned entries' sums (fe_halo_complete). */
static inline int fe_halo_remote(const struct fe_halo *h) { return h && h->n_neighbours > 0; }

/* owner: n_ghost owned entries (host), each < n_owned. */
int fe_halo_create(const struct fe_backend *be, size_t n_owned, size_t n_ghost, const int *owner,
                   struct fe_halo **halo);
void fe_halo_destroy(struct fe_halo *halo);

/* The halo of a part of a mesh on several processes (io/partition.h): n_ghost ghosts, those of
 * neighbour k (rank neighbours[k]) at n_owned + recv_ptr[k] ..; owned entries send[send_ptr[k]
 * ..] go to it.  Exchanges go through be's communicator. */
int fe_halo_create_remote(const struct fe_backend *be, size_t n_owned, size_t n_ghost,
                          int n_neighbours, const int *neighbours, const int *send_ptr,
                          const int *send, const int *recv_ptr, struct fe_halo **halo);

/* The forward exchange (scatter forward): every ghost takes its owner's value,
 * x[(n_owned + k) ncomp + c] = x[owner[k] ncomp + c], for vectors of ncomp values per entry. */
int fe_halo_update(const struct fe_halo *halo, int ncomp, double *x);
/* The reverse sum (scatter reverse, add): every owned entry with ghosts adds their values, in
 * ascending order of the ghosts; the ghosts are left as they were (an update makes them
 * copies again).  A vector whose entries are sums over cells, each entry of the cells at it
 * alone, becomes the sums over the cells at every copy. */
int fe_halo_sum(const struct fe_halo *halo, double *x);
/* After a loop over this process's cells wrote x (a node loop: an apply, a diagonal, a load):
 * where other processes own the ghosts, the ghosts' sums miss those processes' cells and take
 * their owners' complete values; with copies within the process (periodic) the merged
 * incidence already made them equal, and nothing is done. */
int fe_halo_complete(const struct fe_halo *halo, int ncomp, double *x);

#ifdef __cplusplus
}
#endif

#endif
