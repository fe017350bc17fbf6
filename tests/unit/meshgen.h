/* Test helpers around the structured meshes of io/structured.h. */
#ifndef FE_MESHGEN_H
#define FE_MESHGEN_H

#include <stdlib.h>
#include <string.h>

#include "io/structured.h"

static inline double meshgen_rand(unsigned *state)
{
  *state = *state * 1664525u + 1013904223u;
  return (*state >> 8) / 16777216.0;
}

static inline struct fe_mesh *meshgen(int dim, int n, double jitter, unsigned seed)
{
  struct fe_mesh *m = NULL;
  if (fe_mesh_create_structured(dim, n, jitter, seed, &m)) abort();
  return m;
}

static inline void meshgen_free(struct fe_mesh *m) { fe_mesh_destroy(m); }

/* 1 for nodes on the boundary of the unit square / cube */
static inline int meshgen_on_boundary(const struct fe_mesh *m, int node)
{
  for (int a = 0; a < m->dim; a++) {
    double x = m->coords[node * m->dim + a];
    if (x < 1e-12 || x > 1 - 1e-12) return 1;
  }
  return 0;
}

#endif
