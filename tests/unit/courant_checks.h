/* The Courant number's rate (assembly/courant.h) on a jittered structured mesh
 * for the backend under test, with a velocity that varies across the mesh. */
#ifndef FE_COURANT_CHECKS_H
#define FE_COURANT_CHECKS_H

#include <math.h>
#include <stdlib.h>

#include "assembly/courant.h"
#include "meshgen.h"
#include "test.h"

/* A velocity of every direction and speed: (1 + x) (sin 3y, cos 2x[, x y z]). */
static inline double *courant_velocity(const struct fe_mesh *m)
{
  double *v = malloc(sizeof(double) * m->n_nodes * m->dim);
  for (int i = 0; i < m->n_nodes; i++) {
    const double *x = &m->coords[i * m->dim];
    v[i * m->dim] = (1 + x[0]) * sin(3 * x[1]);
    v[i * m->dim + 1] = (1 + x[0]) * cos(2 * x[0]);
    if (m->dim == 3) v[i * m->dim + 2] = x[0] * x[1] * x[2];
  }
  return v;
}

/* The largest rate of the velocity (host values) on backend be. */
static inline double courant_rate_on(const struct fe_backend *be, const struct fe_mesh *m,
                                     const double *velocity)
{
  struct fe_space *space = NULL;
  struct fe_courant *cr = NULL;
  double *vel = NULL, rate = -1;
  CHECK_OK(fe_space_create(be, m, NULL, &space));
  CHECK_OK(fe_courant_create(space, &cr));
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * m->n_nodes * m->dim, velocity, &vel));
  CHECK_OK(fe_courant_rate(cr, vel, &rate));
  fe_backend_free(be, vel);
  fe_courant_destroy(cr);
  fe_space_destroy(space);
  return rate;
}

#endif
