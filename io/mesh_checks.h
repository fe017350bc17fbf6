/* Geometric checks of a mesh as it is built (io/mesh.c): finite and planar
 * coordinates, degenerate and inverted cells, overlapping pieces.  Errors
 * are FE_ERR_INPUT naming the file and the Gmsh element or node tag;
 * warnings are printed (fe_warn) and the mesh is kept. */
#ifndef FE_MESH_CHECKS_H
#define FE_MESH_CHECKS_H

#include "io/mesh.h"
#include "io/mesh_raw.h"

/* Nodes used (positions in r's node list, n of them) have finite coordinates. */
int fe_mesh_check_coords(const char *path, const struct fe_mesh_raw *r, const int *used_old, int n);
/* A 2D mesh lies in a plane z = const. */
int fe_mesh_check_plane(const char *path, const struct fe_mesh_raw *r, const int *used_old, int n);
/* Degenerate cells are refused; the others are reordered to positive orientation. */
int fe_mesh_orient_cells(struct fe_mesh *m, const struct fe_mesh_raw *r);
/* The cells together, through the facets they share: cells folded over their
 * neighbours and facets shared by three cells (errors); m->facet_cells, how
 * many cells have each facet of a physical group; separate pieces (cells
 * connected through facets) that overlap (an error) or touch along
 * coincident facets with nodes of their own (a warning). */
int fe_mesh_check_cells(struct fe_mesh *m, const struct fe_mesh_raw *r);

#endif
