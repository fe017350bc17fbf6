/* A mesh as Gmsh gives it, before fesim numbers it: what the meshing process
 * (fesim-mesh, io/mesher.h) reads or meshes and hands back to fesim through a
 * pipe.  The parent trusts none of it: fe_mesh_raw_begin and
 * fe_mesh_raw_finish check every count and index before anything is used. */
#ifndef FE_MESH_RAW_H
#define FE_MESH_RAW_H

#include <stddef.h>
#include <stdint.h>

#include "io/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

struct fe_mesh_raw {
  int dim; /* 2 or 3: of the cells */
  size_t n_nodes;
  size_t *node_tags; /* Gmsh node tags */
  double *xyz;       /* 3 per node */
  size_t n_cells;
  int *cells;       /* dim + 1 positions in the node list per cell */
  size_t *cell_id;  /* Gmsh element tags */
  int *cell_region; /* first physical group of the cell's entity, 0 when none */
  int *cell_entity; /* the surface or volume of the cell, for messages */
  size_t n_facets;  /* facets of boundary physical groups, once per group */
  int *facets;      /* dim positions in the node list per facet */
  size_t *facet_id;
  int *facet_group;
  int *facet_entity; /* the curve (2D) or surface (3D) of each facet */
  /* Periodic boundaries (Gmsh's `Periodic` and $Periodic): each link makes the nodes of a
   * slave entity copies of the nodes of its master entity, pair by pair. */
  int n_links;
  int *link;           /* 4 per link: dim, slave entity, master entity, 1 when affine is given */
  double *link_affine; /* 16 per link: Gmsh's affine transform of the master onto the slave
                          (4 x 4, by rows) */
  size_t n_pairs;
  int *pair;    /* 3 per pair: the slave's and the master's positions in the node list, the link */
  int n_groups; /* physical groups of dimension dim and dim - 1 */
  struct fe_physical *groups;
};

void fe_mesh_raw_free(struct fe_mesh_raw *r);

/* The fixed part of the stream, followed by the arrays in the order of the
 * struct above and then the groups (dim, tag, name length, name). */
struct fe_mesh_raw_header {
  char magic[8];
  uint32_t dim, n_groups;
  uint64_t n_nodes, n_cells, n_facets, groups_bytes;
  uint32_t n_links, unused;
  uint64_t n_pairs;
};

/* Writes r to fd (the meshing process's side). */
int fe_mesh_raw_write(int fd, const struct fe_mesh_raw *r);

/* The parent's side, in two steps so that the arrays are read straight from
 * the pipe: check the header against the limits and allocate r; then, once
 * every array and the groups (blob) have arrived, check the contents.
 * A stream that breaks a rule is FE_ERR_INPUT naming `path` (the mesh). */
int fe_mesh_raw_begin(const char *path, const struct fe_mesh_raw_header *h, size_t max_cells,
                      struct fe_mesh_raw *r);
/* The arrays of r that follow the header, in order: n pointers and sizes. */
int fe_mesh_raw_arrays(struct fe_mesh_raw *r, void **where, size_t *bytes, int max);
int fe_mesh_raw_finish(const char *path, const struct fe_mesh_raw_header *h, const char *groups,
                       struct fe_mesh_raw *r);

#ifdef __cplusplus
}
#endif

#endif
