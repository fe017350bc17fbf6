/* A mesh cut into parts, one per process (DESIGN.md, "Distribution"): METIS partitions the
 * cells (METIS_PartMeshDual on the cells' shared facets, a fixed seed, so every run gets the
 * same parts); each node belongs to the lowest-numbered part among its cells' parts.  A part
 * holds the cells at its owned nodes and numbers their nodes as DESIGN.md's vectors hold them:
 * its owned nodes first, then its ghosts (nodes of its cells that another part owns) grouped by
 * owner, each group and the owned nodes in ascending mesh (global) order.
 *
 * Periodic meshes: a part owns unknowns, not nodes.  The owner of an unknown is the lowest part
 * among the cells at all its copies, and its part holds all those cells; the cells sharing a
 * facet through the periodic boundary are neighbours for METIS.  The node that holds an unknown
 * (fe_mesh_owner) is in every part that has one of its copies, owned or a ghost; the part's
 * other copies come last, aliased copies of those nodes (io/mesh.h). */
#ifndef FE_PARTITION_H
#define FE_PARTITION_H

#include <stdio.h>

#include "io/mesh.h"

struct fe_partition {
  int n_parts;
  long n_cells, n_nodes;
  int *cell_part;  /* n_cells: the part of each cell */
  int *node_owner; /* n_nodes: the part that owns each node */
  /* the cells at each part's owned nodes (each with a node it owns), ascending: those of part r
   * are held[held_ptr[r] .. held_ptr[r + 1]), so that making a part costs its cells, not the
   * mesh's; own[r]: the cells of part r */
  long *held_ptr, *own;
  int *held;
};

/* One part's share of the mesh, in mesh (global) numbering: the cells at the nodes it owns (its
 * own cells and those of other parts that touch them), so that every sum over the cells at an
 * owned node is complete on its process, and the nodes of those cells. */
struct fe_part {
  int rank;
  long n_cells;          /* the cells at its owned nodes */
  long n_own_cells;      /* of which METIS gave it */
  int *cells;            /* ascending */
  long n_owned, n_ghost; /* nodes: owned, then ghosts */
  long n_aliased;        /* then the aliased copies of a periodic mesh (their unknowns' nodes
                            are in the part) */
  int *nodes;            /* n_owned + n_ghost + n_aliased: the local numbering's global nodes */
  int n_neighbours;      /* parts that own one of its ghosts, which are those that hold one of its
                            nodes as a ghost */
  int *neighbours;       /* ascending */
  int *ghost_ptr;        /* n_neighbours + 1: its ghosts of neighbour k are nodes[n_owned +
                            ghost_ptr[k] .. n_owned + ghost_ptr[k + 1]) (none where k owns none) */
};

/* The cells of m cut into n_parts parts (n_parts >= 1; 1: every cell in part 0).  FE_ERR_INPUT
 * when there are more parts than cells, or a part has no cell or owns no node; FE_ERR_RESOURCE
 * when METIS fails (out of memory). */
int fe_partition_create(const struct fe_mesh *m, int n_parts, struct fe_partition **p);
void fe_partition_destroy(struct fe_partition *p);

/* Part r's cells and nodes (fe_part_free frees what it holds). */
int fe_partition_part(const struct fe_partition *p, const struct fe_mesh *m, int r,
                      struct fe_part *part);
void fe_part_free(struct fe_part *part);

/* Part r as a mesh of its own (io/mesh.h, "A part of a mesh"): its nodes in the part's order
 * (owned, then ghosts by owner, then a periodic mesh's copies) with their coordinates and Gmsh tags, its cells in ascending
 * mesh order, the facets of m with every node in the part, the physical groups; the global
 * index of each node and facet, the neighbours, what each sends and receives; of a periodic
 * mesh the links, and each aliased copy's node. */
int fe_partition_mesh(const struct fe_partition *p, const struct fe_mesh *m, int r,
                      struct fe_mesh **part_mesh);

/* The partition summary of --check and --verbose: a line per part (its cells, the cells at its
 * owned nodes, which it holds: some of other parts', and not those of its own whose nodes lower
 * parts own; owned and ghost nodes, periodic copies, neighbours), then the imbalance (most cells in a part over the mean) and the ghosts in
 * all. */
int fe_partition_print(const struct fe_partition *p, const struct fe_mesh *m, FILE *f);

#endif
