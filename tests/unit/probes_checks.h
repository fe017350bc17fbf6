/* Probes (assembly/probes.h) on a jittered structured mesh for the backend under test: points
 * of every kind (at nodes, on edges, inside, just outside the boundary), a field of two
 * components that varies across the mesh, and the values a backend interpolates. */
#ifndef FE_PROBES_CHECKS_H
#define FE_PROBES_CHECKS_H

#include <math.h>
#include <stdlib.h>

#include "assembly/probes.h"
#include "meshgen.h"
#include "solvers/vec.h"
#include "test.h"

/* n points (x y z each) in the unit square or cube: every node, the midpoint of each edge of
 * the first cells, random points, and points within a hundredth of a cell outside the
 * boundary x = 0; *count of them. */
static inline double *probe_points(const struct fe_mesh *m, long *count)
{
  const int d = m->dim;
  const long edges = m->n_cells < 200 ? m->n_cells : 200, random = 500, outside = 50;
  const long n = m->n_nodes + edges * m->nv * (m->nv - 1) / 2 + random + outside;
  double *x = calloc((size_t)n * 3, sizeof *x);
  long k = 0;
  unsigned seed = 7;
  for (long i = 0; i < m->n_nodes; i++, k++)
    for (int a = 0; a < d; a++) x[k * 3 + a] = m->coords[i * d + a];
  for (long c = 0; c < edges; c++)
    for (int i = 0; i < m->nv; i++)
      for (int j = i + 1; j < m->nv; j++, k++)
        for (int a = 0; a < d; a++)
          x[k * 3 + a] = 0.5 * (m->coords[(long)m->cells[c * m->nv + i] * d + a] +
                                m->coords[(long)m->cells[c * m->nv + j] * d + a]);
  for (long i = 0; i < random; i++, k++)
    for (int a = 0; a < d; a++) x[k * 3 + a] = meshgen_rand(&seed);
  const double h = pow((double)m->n_cells, -1.0 / d);
  for (long i = 0; i < outside; i++, k++) {
    x[k * 3] = -0.01 * h * meshgen_rand(&seed);
    for (int a = 1; a < d; a++) x[k * 3 + a] = meshgen_rand(&seed);
  }
  *count = k;
  return x;
}

/* A field of two components per node: (1 + 2x - 3y + z/2, sin 3x cos 2y) */
static inline double *probe_field(const struct fe_mesh *m)
{
  double *f = malloc(sizeof(double) * 2 * m->n_nodes);
  for (int i = 0; i < m->n_nodes; i++) {
    const double *x = &m->coords[i * m->dim];
    f[2 * i] = 1 + 2 * x[0] - 3 * x[1] + (m->dim == 3 ? 0.5 * x[2] : 0);
    f[2 * i + 1] = sin(3 * x[0]) * cos(2 * x[1]);
  }
  return f;
}

/* The field at the probes on backend be: out[p * 2 + k], from the nodal field. */
static inline void probe_values_on(const struct fe_backend *be, const struct fe_mesh *m, long n,
                                   const struct fe_probe_location *loc, const double *field,
                                   double *out)
{
  struct fe_space *space = NULL;
  struct fe_probes *pr = NULL;
  struct fe_vec *values = NULL;
  double *dev_field = NULL;
  CHECK_OK(fe_space_create(be, m, NULL, &space));
  CHECK_OK(fe_probes_create(space, n, loc, &pr));
  CHECK_OK(fe_vec_create(be, (size_t)n * 2, &values));
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * m->n_nodes * 2, field, &dev_field));
  CHECK_OK(fe_probes_interpolate(pr, dev_field, 2, fe_vec_write(values)));
  CHECK_OK(fe_vec_download(values, out));
  fe_backend_free(be, dev_field);
  fe_vec_destroy(values);
  fe_probes_destroy(pr);
  fe_space_destroy(space);
}

#endif
