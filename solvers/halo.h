/* The ghosts of vectors and where their values come from (Fluidity's halos, deal.II's
 * partitioner): a vector of a halo holds n_owned owned entries, then n_ghost ghosts.  Those of
 * other processes come first (a part of a mesh on several processes, io/partition.h), and the
 * update and the sum are exchanges through the communicator (the CPU backend's MPI, the CUDA
 * backend's NCCL); the last n_copies are copies within the process, copy k of entry owner[k]
 * (the aliased nodes that periodic boundaries make, io/mesh.h): of an owned entry, or on a part
 * of a periodic mesh of a ghost, whose value comes from its process first. */
#ifndef FE_HALO_H
#define FE_HALO_H

#include "solvers/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

struct fe_halo {
  const struct fe_backend *be;
  size_t n_owned, n_ghost; /* the ghosts: other processes', then the copies */
  size_t n_copies;         /* entries n_owned + n_ghost - n_copies + k, k < n_copies */
  int *owner;      /* backend, n_copies: the entry copy k copies (not itself a copy) */
  size_t n_shared; /* entries that have copies */
  int *shared;     /* backend, n_shared: those entries, ascending */
  int *shared_ptr; /* backend, n_shared + 1: their copies (as entries, ascending) in */
  int *shared_ghost;
  /* Ghosts that other processes own (a run on several processes): the ghosts of neighbour k are
   * entries n_owned + recv_ptr[k] .. n_owned + recv_ptr[k + 1], in its order; to it go the
   * owned entries send[send_ptr[k] .. send_ptr[k + 1]), in the order of its ghosts of them.
   * Host lists; send also on the backend. */
  int n_neighbours;
  int *neighbours;          /* ranks, ascending */
  int *send_ptr, *recv_ptr; /* n_neighbours + 1 */
  int *send_host, *send;    /* send_ptr[n_neighbours] owned entries: host, backend */
  double *buffer;           /* backend: FE_HALO_MAX_COMP (send_ptr[n] + recv_ptr[n]) values */
  int *scaled_ptr;          /* host: 2 (n_neighbours + 1), send_ptr and recv_ptr in values */
  void *exchange; /* the backend's own means for the exchanges with other processes
                     (fe_vec_ops.halo_open; CUDA: an NCCL window), or NULL */
};

#define FE_HALO_MAX_COMP 3 /* values per entry an exchange moves at most: a velocity's */

/* 1 when there are ghosts of other processes: a loop over the cells of this process completes
 * only the owned entries' sums (fe_halo_complete). */
static inline int fe_halo_remote(const struct fe_halo *h) { return h && h->n_neighbours > 0; }

/* The entry of the first copy within the process. */
static inline size_t fe_halo_first_copy(const struct fe_halo *h)
{
  return h->n_owned + h->n_ghost - h->n_copies;
}

/* One process: n_ghost copies, owner the owned entry of each (host), each < n_owned. */
int fe_halo_create(const struct fe_backend *be, size_t n_owned, size_t n_ghost, const int *owner,
                   struct fe_halo **halo);
void fe_halo_destroy(struct fe_halo *halo);

/* The halo of a part of a mesh on several processes (io/partition.h): n_remote ghosts, those of
 * neighbour k (rank neighbours[k]) at n_owned + recv_ptr[k] ..; owned entries send[send_ptr[k]
 * ..] go to it; then n_copies copies (a periodic mesh's), copy k of entry copy_of[k] <
 * n_owned + n_remote.  Exchanges go through be's communicator. */
int fe_halo_create_remote(const struct fe_backend *be, size_t n_owned, size_t n_remote,
                          int n_neighbours, const int *neighbours, const int *send_ptr,
                          const int *send, const int *recv_ptr, size_t n_copies,
                          const int *copy_of, struct fe_halo **halo);

/* The forward exchange (scatter forward): every ghost takes its owner's value (other
 * processes' ghosts first, then the copies: x[(first copy + k) ncomp + c] = x[owner[k] ncomp +
 * c]), for vectors of ncomp values per entry. */
int fe_halo_update(const struct fe_halo *halo, int ncomp, double *x);
/* The reverse sum (scatter reverse, add): every entry with copies adds their values, in
 * ascending order of the copies, then every owned entry the values of other processes' ghosts
 * of it, neighbour by neighbour; the ghosts are left as they were (an update makes them copies
 * again).  A vector whose entries are sums over cells, each entry of the cells at it alone,
 * becomes the sums over the cells at every copy. */
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
