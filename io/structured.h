/* Structured simplex meshes generated in memory (benchmarks and tests): the
 * unit square as 2 n^2 triangles or the unit cube as 6 n^3 tetrahedra (Kuhn
 * subdivision), with optional random displacement of interior nodes.  Boundary
 * facets form physical group 1 ("boundary"), cells region 1 ("domain"). */
#ifndef FE_STRUCTURED_H
#define FE_STRUCTURED_H

#include "io/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

int fe_mesh_create_structured(int dim, int n, double jitter, unsigned seed, struct fe_mesh **mesh);

#ifdef __cplusplus
}
#endif

#endif
