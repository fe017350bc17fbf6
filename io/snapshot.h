/* A velocity snapshot: a file that gives the velocity at the nodes of the
 * run's mesh, in one of three formats (legacy VTK as fesim writes it, VTK XML
 * .vtu, Gmsh $NodeData), read into the mesh's node order and checked against
 * the mesh (docs/case-format.md, "Velocity from files"):
 *   - VTK files: as many points as the mesh has nodes, each within 1e-3 of
 *     the shortest edge at a node of the mesh, one point per node, in any
 *     order (fesim's own dumps are in its order; a file written from the
 *     .msh is in Gmsh's); in 2D the points' z is not compared;
 *   - $NodeData: a value for every node of the mesh by its Gmsh node tag
 *     (values of tags that are no node of the mesh's cells are not read), and
 *     where the file has $Nodes, their coordinates checked as above;
 *   - the field: d components, or 3 in 2D with a third one that is 0 (to
 *     1e-9 of the largest speed); every value finite.
 * Every fault is FE_ERR_INPUT naming the file, what it holds and what was
 * expected. */
#ifndef FE_SNAPSHOT_H
#define FE_SNAPSHOT_H

#include "io/mesh.h"

enum fe_snapshot_format { FE_SNAPSHOT_VTK, FE_SNAPSHOT_VTU, FE_SNAPSHOT_MSH, FE_SNAPSHOT_NONE };

/* By the extension, in any case: .vtk, .vtu, .msh; FE_SNAPSHOT_NONE for another. */
enum fe_snapshot_format fe_snapshot_format(const char *path);

/* The relative tolerance of the coordinates: of the shortest edge at a node. */
#define FE_SNAPSHOT_TOLERANCE 1e-3
/* A third component in 2D counts as 0 up to this fraction of the largest speed. */
#define FE_SNAPSHOT_PLANE 1e-9

/* What reading needs of a mesh: the tolerance at each node, and (built when a file needs
 * them) the nodes by coordinates and by Gmsh tag. */
struct fe_snapshot_reader;

int fe_snapshot_reader_create(const struct fe_mesh *m, struct fe_snapshot_reader **r);
void fe_snapshot_reader_destroy(struct fe_snapshot_reader *r);

/* The point field `field` of the file at path: out[n * d + a], n the mesh's nodes, d its
 * dimension. */
int fe_snapshot_read(struct fe_snapshot_reader *r, const char *path, const char *field,
                     double *out);

#endif
