/* Periodic boundaries as the mesh is built (io/mesh.c): the node pairs of the meshing process
 * (io/mesh_raw.h) made classes of copies of one unknown, checked, and the copies numbered last.
 * Errors are FE_ERR_INPUT naming the file and the Gmsh node, element and entity tags. */
#ifndef FE_MESH_PERIODIC_H
#define FE_MESH_PERIODIC_H

#include "io/mesh.h"
#include "io/mesh_raw.h"

/* The mesh's nodes (n = m->n_nodes) are numbered by local[] from r's node list (-1: in no
 * cell), used[] the way back, cells[] the cells in that numbering, perm[] their order (RCM).
 * Checks every pair (both nodes in cells, not a node with itself, the slave where the link's
 * transform takes its master), every class of copies (one master node that is no slave: the
 * owner; no cycle) and every cell (no two copies of one node in it); then places every slave
 * exactly where its link's transform takes its master (r->xyz: Gmsh's copies are off by up to
 * about 1e-12, so that the fluxes out of one side and into the other differ by that much),
 * changes perm so that the aliased nodes (every copy but the owner) come last, in their
 * order, and fills m's n_aliased, alias_of (in perm's numbering), links and facet_link. */
int fe_mesh_periodic(struct fe_mesh *m, struct fe_mesh_raw *r, const int *local, const int *used,
                     const int *cells, int *perm);

#endif
