/* Periodic structured meshes for the tests: io/structured.h's unit square or cube, with the
 * nodes on the sides x_a = 1 of the periodic axes made copies of those on x_a = 0 (a corner a
 * copy of the origin through every axis), numbered last as fe_mesh_read numbers them
 * (io/mesh.h: n_aliased, alias_of). */
#ifndef FE_TEST_PERIODIC_H
#define FE_TEST_PERIODIC_H

#include "meshgen.h"

/* axes: bit a set when axis a is periodic; n >= 2 cells across each. */
static inline struct fe_mesh *meshgen_periodic(int dim, int n, double jitter, unsigned seed,
                                               int axes)
{
  struct fe_mesh *m = meshgen(dim, n, jitter, seed);
  const int nn = m->n_nodes, np = n + 1;
  int *owner = malloc(sizeof(int) * nn), *perm = malloc(sizeof(int) * nn), owned = 0;
  for (int p = 0; p < nn; p++) {
    int idx[3] = {p % np, p / np % np, p / (np * np)}, q = 0;
    for (int a = 0; a < dim; a++)
      if ((axes >> a & 1) && idx[a] == n) idx[a] = 0;
    for (int a = dim - 1; a >= 0; a--) q = q * np + idx[a];
    owner[p] = q;
    owned += q == p;
  }
  for (int p = 0, next = 0, alias = owned; p < nn; p++) perm[p] = owner[p] == p ? next++ : alias++;
  double *coords = malloc(sizeof(double) * nn * dim);
  for (int p = 0; p < nn; p++)
    memcpy(coords + perm[p] * dim, m->coords + p * dim, sizeof(double) * dim);
  memcpy(m->coords, coords, sizeof(double) * nn * dim);
  free(coords);
  for (long k = 0; k < (long)m->n_cells * m->nv; k++) m->cells[k] = perm[m->cells[k]];
  for (long k = 0; k < (long)m->n_facets * m->dim; k++) m->facets[k] = perm[m->facets[k]];
  m->n_aliased = nn - owned;
  m->alias_of = malloc(sizeof(int) * (m->n_aliased + 1));
  for (int p = 0; p < nn; p++)
    if (perm[p] >= owned) m->alias_of[perm[p] - owned] = perm[owner[p]];
  free(owner);
  free(perm);
  return m;
}

#endif
