/* Periodic structured meshes for the tests: io/structured.h's unit square or cube, with the
 * nodes on the sides x_a = 1 of the periodic axes made copies of those on x_a = 0 (a corner a
 * copy of the origin through every axis), numbered last as fe_mesh_read numbers them
 * (io/mesh.h: n_aliased, alias_of). */
#ifndef FE_TEST_PERIODIC_H
#define FE_TEST_PERIODIC_H

#include "assembly/element.h"
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

/* A problem on such a mesh: Dirichlet flags alike at every copy (walls: the nodes on y = 0 and
 * on y = 1 where x < 0.5, the axis y not periodic), a random positive definite diffusivity per
 * cell, a random P1 velocity alike at every copy. */
struct periodic_problem {
  struct fe_mesh *m;
  unsigned char *isd;
  double *diff, *vel;
};

static inline void periodic_problem_make(int dim, int n, int axes, int walls, unsigned seed,
                                         struct periodic_problem *p)
{
  p->m = meshgen_periodic(dim, n, 0.4, seed, axes);
  const struct fe_mesh *m = p->m;
  const int ns = FE_NSYM(dim);
  p->isd = calloc((size_t)m->n_nodes, 1);
  for (int i = 0; walls && i < m->n_nodes; i++) {
    const double *x = m->coords + i * dim;
    p->isd[i] = x[1] == 0 || (x[1] == 1 && x[0] < 0.5);
  }
  for (int i = 0; i < m->n_nodes; i++) p->isd[fe_mesh_owner(m, i)] |= p->isd[i];
  for (int i = 0; i < m->n_nodes; i++) p->isd[i] = p->isd[fe_mesh_owner(m, i)];
  p->diff = malloc(sizeof(double) * m->n_cells * ns);
  for (int c = 0; c < m->n_cells; c++) {
    double *s = p->diff + c * ns;
    for (int k = 0; k < ns; k++) s[k] = 0.2 * (meshgen_rand(&seed) - 0.5);
    s[0] += 1.0; /* diagonally dominant: positive definite */
    s[dim == 2 ? 2 : 3] += 2.0;
    if (dim == 3) s[5] += 0.5;
  }
  p->vel = malloc(sizeof(double) * m->n_nodes * dim);
  for (int i = 0; i < m->n_nodes * dim; i++) p->vel[i] = meshgen_rand(&seed) - 0.5;
  fe_mesh_copy_owners(m, dim, p->vel);
}

static inline void periodic_problem_free(struct periodic_problem *p)
{
  meshgen_free(p->m);
  free(p->isd);
  free(p->diff);
  free(p->vel);
}

#endif
