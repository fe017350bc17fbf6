/* Probes: points of the mesh where a run samples its fields.  Each point is located once, on
 * the host: the cell that holds it and its barycentric coordinates there, the P1 weights of
 * the cell's vertices.  A point on a shared facet, edge or vertex (to round-off,
 * FE_PROBE_ON_CELL) belongs to the cell of lowest index among those that hold it; a point
 * outside every cell belongs to the cell it misses least, when it misses it by no more than
 * FE_PROBE_OUTSIDE in barycentric coordinates (Fluidity's out_of_bounds_tolerance,
 * femtools/Node_Owner_Finder_Fortran.F90: a point on a curved boundary, outside the polygon
 * of the mesh by a fraction of a cell), and beyond that it is outside the mesh.  The weights
 * are the barycentric coordinates with negatives set to 0 and rescaled to sum to 1, so that a
 * probe's value always lies within its cell's nodal values.  The cells are found in one pass
 * over the mesh against a bin grid of the points: O(cells + points), not O(cells x points).
 *
 * On the backend, the field's value at each probe is the sum of its cell's nodal values with
 * the weights (assembly/node.h, fe_point_interpolate; the node kernels' interpolate slot),
 * the same bits on every backend from the same field. */
#ifndef FE_PROBES_ASSEMBLY_H
#define FE_PROBES_ASSEMBLY_H

#include "assembly/space.h"
#include "io/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FE_PROBE_ON_CELL 1e-10 /* barycentric coordinates >= -this: the point is in the cell */
#define FE_PROBE_OUTSIDE 0.1   /* the most a point outside the mesh may miss its nearest cell by */

struct fe_probe_location {
  int cell;                  /* -1: outside the mesh, beyond FE_PROBE_OUTSIDE */
  double weights[FE_MAX_NV]; /* of the cell's vertices, in its order: >= 0, summing to 1 */
  double miss;               /* -(the smallest barycentric coordinate) when > 0: outside */
  double distance;           /* from the point to the point the weights give: 0 in the cell */
};

/* Locate the n points (x y z each, z ignored in 2D) in m. */
int fe_probes_locate(const struct fe_mesh *m, long n, const double *points,
                     struct fe_probe_location *loc);

/* The located probes on the space's backend: their cells' vertices and weights. */
struct fe_probes {
  const struct fe_space *space;
  long n;
  int *nodes;      /* n * nv: the vertices of each probe's cell (backend) */
  double *weights; /* n * nv (backend) */
};

/* loc: n located points (none outside). */
int fe_probes_create(const struct fe_space *space, long n, const struct fe_probe_location *loc,
                     struct fe_probes **out);
void fe_probes_destroy(struct fe_probes *pr);

/* out[p * ncomp + k]: the field's component k at probe p (field: ncomp values per node, out:
 * n * ncomp values, both on the backend). */
int fe_probes_interpolate(const struct fe_probes *pr, const double *field, int ncomp, double *out);

#ifdef __cplusplus
}
#endif

#endif
