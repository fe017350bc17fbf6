/* A run on several processes (DESIGN.md, "Distribution"; issue 16): every process reads the
 * case; process 0 reads (meshes) the mesh, checks it and resolves the boundary conditions on
 * it, METIS cuts it into one part per process there (io/partition.h), and process 0 hands each
 * process its part as a mesh of its own (fe_partition_mesh: the cells at the nodes it owns and
 * their nodes, owned first, then the other processes' as ghosts) with each tracer's boundary
 * conditions on it.  Only process 0 holds the whole mesh.  The scheme runs on the part
 * unchanged: every sum over the cells at an owned node is complete there, vectors reduce over
 * their owned entries through the communicator, and each node loop's output takes its ghosts'
 * values from their owners (solvers/halo.h, fe_halo_complete).  Process 0 writes the outputs of
 * the whole mesh, in its order, from the values each process owns (fe_distribution_gather), and
 * hands out values of the whole mesh it reads (a checkpoint, a velocity file) the same way back
 * (fe_distribution_scatter). */
#ifndef FE_DISTRIBUTION_H
#define FE_DISTRIBUTION_H

#include <stdio.h>

#include "app/fields.h"
#include "assembly/probes.h"
#include "io/mesh.h"
#include "io/partition.h"
#include "solvers/comm.h"
#include "solvers/halo.h"

struct fe_distribution {
  const struct fe_comm *comm;
  const struct fe_mesh *whole;    /* process 0: the mesh as read; NULL on the others */
  struct fe_partition *partition; /* process 0: each cell's part and each node's owner; NULL */
  struct fe_mesh *part;           /* this process's */
  /* process 0: the owned nodes of every process, in the order the gather receives them and the
   * scatter sends them */
  int *owned;           /* n_parts: the nodes each process owns */
  int *counts, *displs; /* n_parts: values from each process, and where they start (scaled) */
  int *order;           /* whole->n_nodes: the mesh node of each value received */
  double *received;     /* whole->n_nodes * FE_HALO_MAX_COMP */
  /* every process: the part's ghosts and periodic copies as a halo of the CPU backend over
   * comm, on the host (solvers/halo.h): the scatter's last step */
  struct fe_backend *host;
  struct fe_halo *halo;
};

/* Cut whole (process 0's, read or meshed there; ignored on the others) into comm->size parts
 * (METIS on process 0) and hand each process its part, with each of the n_tracers tracers'
 * boundary conditions on it (bcs[k], made here, from process 0's whole_bcs[k]: the Dirichlet
 * nodes and what sets each, the Neumann facets with every node in the part; a ghost node is a
 * Dirichlet node as its owner is, although the part may hold none of the facets that make it
 * one).  FE_ERR_INPUT for more processes than cells, or a part without a cell or a node of its
 * own: said by process 0, the others return its code. */
int fe_distribution_create(const struct fe_comm *comm, const struct fe_mesh *whole, int n_tracers,
                           struct fe_bcs *const *whole_bcs, struct fe_bcs **bcs,
                           struct fe_distribution **d);
void fe_distribution_destroy(struct fe_distribution *d);

/* Process 0: whole (ncomp values per node of the whole mesh, its order) from every process's
 * owned values of part (ncomp per node of its part), the aliased copies their owners'; the
 * other processes send only. */
int fe_distribution_gather(const struct fe_distribution *d, int ncomp, const double *part,
                           double *whole);
/* Every process: part (ncomp values per node of its part, ghosts and copies too) from process
 * 0's whole (ncomp per node of the whole mesh; read there only). */
int fe_distribution_scatter(const struct fe_distribution *d, int ncomp, const double *whole,
                            double *part);
/* Probes located in the whole mesh (whole[p].cell a cell of it; every process given them) as
 * this process samples them: each by the process that owns the unknown at its cell's first
 * vertex, which holds the cell; the others' weights 0 (on cell 0 of their part), so that a sum
 * over the processes gives its value. */
void fe_distribution_probes(const struct fe_distribution *d, long n,
                            const struct fe_probe_location *whole, struct fe_probe_location *part);
/* The partition summary of --check and --verbose (process 0; nothing on the others). */
int fe_distribution_print(const struct fe_distribution *d, FILE *f);

#endif
