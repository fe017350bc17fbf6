/* A run on several processes (DESIGN.md, "Distribution"; issue 16): every process reads the
 * case, process 0 reads the mesh and hands it to the others, METIS cuts it into one part per
 * process on process 0, which hands each cell's part to the others (io/partition.h), and each
 * process keeps its part as a mesh of its own (fe_partition_mesh): the cells at the nodes it
 * owns and their nodes, owned first, then the other processes' as ghosts.  The scheme runs on
 * the part unchanged: every sum over the cells at an owned node is complete there, vectors
 * reduce over their owned entries through the communicator, and each node loop's output takes
 * its ghosts' values from their owners (solvers/halo.h, fe_halo_complete).  Process 0 writes the
 * outputs of the whole mesh, in its order, from the values each process owns. */
#ifndef FE_DISTRIBUTION_H
#define FE_DISTRIBUTION_H

#include <stdio.h>

#include "app/fields.h"
#include "assembly/probes.h"
#include "io/mesh.h"
#include "io/partition.h"
#include "solvers/comm.h"

struct fe_distribution {
  const struct fe_comm *comm;
  const struct fe_mesh *whole; /* the mesh as read, which every process holds */
  struct fe_partition *partition;
  struct fe_mesh *part; /* this process's */
  /* process 0: the owned nodes of every process, in the order the gather receives them */
  int *owned;           /* n_parts: the nodes each process owns */
  int *counts, *displs; /* n_parts: values from each process, and where they start (scaled) */
  int *order;           /* whole->n_nodes: the mesh node of each value received */
  double *received;     /* whole->n_nodes * FE_HALO_MAX_COMP */
};

/* Process 0's mesh (*m, read or meshed there once) handed to every other process (*m made
 * there), as bytes (io/mesh_pack.h) broadcast by the communicator. */
int fe_distribution_share_mesh(const struct fe_comm *comm, struct fe_mesh **m);

/* Cut `whole` into comm->size parts (METIS on process 0, the parts handed to the others) and
 * make this process's (FE_ERR_INPUT for more processes than cells, or a part without a cell or a
 * node of its own: said by process 0, the others return its code). */
int fe_distribution_create(const struct fe_comm *comm, const struct fe_mesh *whole,
                           struct fe_distribution **d);
void fe_distribution_destroy(struct fe_distribution *d);

/* Process 0: whole (ncomp values per node of the whole mesh, its order) from every process's
 * owned values of part (ncomp per node of its part), the aliased copies their owners'; the
 * other processes send only. */
int fe_distribution_gather(const struct fe_distribution *d, int ncomp, const double *part,
                           double *whole);
/* This process's values of the whole mesh's: part[i] = whole[global node of i] (ncomp each). */
void fe_distribution_restrict(const struct fe_distribution *d, int ncomp, const double *whole,
                              double *part);
/* A tracer's boundary conditions on this process's part, from those on the whole mesh (the
 * Dirichlet nodes and what sets each, the Neumann facets with every node in the part): a
 * ghost node is a Dirichlet node as its owner is, although the part may hold none of the facets
 * that make it one. */
int fe_distribution_bcs(const struct fe_distribution *d, const struct fe_bcs *whole,
                        struct fe_bcs **part);
/* Probes located in the whole mesh (whole[p].cell a cell of it) as this process samples them:
 * each by the process that owns its cell's first vertex, which holds the cell; the others'
 * weights 0 (on cell 0 of their part), so that a sum over the processes gives its value. */
void fe_distribution_probes(const struct fe_distribution *d, long n,
                            const struct fe_probe_location *whole, struct fe_probe_location *part);
/* The partition summary of --check and --verbose. */
int fe_distribution_print(const struct fe_distribution *d, FILE *f);

#endif
