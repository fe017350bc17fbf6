/* One limited FCT step (assembly/fct.h) on a jittered structured mesh, for the
 * backend under test: a field of 0s and 1s, a velocity tangent to the boundary
 * (divergence-free in 2D, or compressible), a rate of random values for the mass fluxes, the
 * advection form's beta. */
#ifndef FE_FCT_CHECKS_H
#define FE_FCT_CHECKS_H

#include <math.h>
#include <stdlib.h>

#include "assembly/fct.h"
#include "assembly/operator.h"
#include "backend_cpu.h"
#include "meshgen.h"
#include "solvers/vec.h"
#include "test.h"

struct fct_problem {
  struct fe_mesh *m;
  unsigned char *isd; /* Dirichlet flags, or all 0 */
  double *u, *udot, *vel;
  double beta; /* the conservative advection form's beta */
};

/* compressible: a velocity whose divergence is not 0 (still tangent to the boundary) */
static inline void fct_problem_make(int dim, int n, int dirichlet, int compressible, double beta,
                                    struct fct_problem *p)
{
  p->m = meshgen(dim, n, 0.3, 7);
  p->beta = beta;
  const int nn = p->m->n_nodes;
  unsigned seed = 3;
  const double pi = 3.14159265358979323846;
  p->isd = calloc(nn, 1);
  p->u = malloc(sizeof(double) * nn);
  p->udot = malloc(sizeof(double) * nn);
  p->vel = malloc(sizeof(double) * nn * dim);
  for (int i = 0; i < nn; i++) {
    const double *x = &p->m->coords[i * dim];
    p->isd[i] = dirichlet && meshgen_on_boundary(p->m, i) && x[0] < 0.5;
    p->u[i] = (x[0] - 0.4) * (x[0] - 0.4) + (x[1] - 0.6) * (x[1] - 0.6) < 0.08 ? 1.0 : 0.0;
    p->udot[i] = 4 * (meshgen_rand(&seed) - 0.5);
    /* sin(pi x) cos(pi y), -cos(pi x) sin(pi y) (and 0): u . n = 0 on the boundary */
    p->vel[i * dim] = sin(pi * x[0]) * (cos(pi * x[1]) + (compressible ? 0.6 : 0.0));
    p->vel[i * dim + 1] = -cos(pi * x[0]) * sin(pi * x[1]);
    if (dim == 3) p->vel[i * dim + 2] = 0.3 * sin(pi * x[2]);
  }
}

static inline void fct_problem_free(struct fct_problem *p)
{
  free(p->isd);
  free(p->u);
  free(p->udot);
  free(p->vel);
  meshgen_free(p->m);
}

/* out = the limited step of length dt on backend be; *courant its low-order Courant number;
 * *gain = sum_i (A u)_i, the change of the lumped-mass integral per unit time that the
 * fluxes allow (without Dirichlet nodes). */
static inline void fct_problem_step(const struct fe_backend *be, const struct fct_problem *p,
                                    int with_udot, double dt, double *out, double *courant,
                                    double *gain)
{
  const int nn = p->m->n_nodes, dim = p->m->dim;
  struct fe_space *space;
  CHECK_OK(fe_space_create(be, p->m, p->isd, &space));
  struct fe_fct *fct;
  CHECK_OK(fe_fct_create(space, p->beta, &fct));
  double *vel;
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * nn * dim, p->vel, &vel));
  struct fe_vec *u, *udot, *y;
  CHECK_OK(fe_vec_create(be, nn, &u));
  CHECK_OK(fe_vec_create(be, nn, &udot));
  CHECK_OK(fe_vec_create(be, nn, &y));
  CHECK_OK(fe_vec_upload(u, p->u));
  CHECK_OK(fe_vec_upload(udot, p->udot));
  CHECK_OK(fe_fct_step(fct, vel, u, with_udot ? udot : NULL, dt, y, courant, NULL));
  CHECK_OK(fe_vec_download(y, out));
  struct fe_op *adv;
  const struct fe_form form = {.advection = -1.0, .conservative = p->beta};
  const struct fe_coefficients coef = {.velocity = vel};
  CHECK_OK(fe_operator_create(space, FE_STRATEGY_LMA, &adv));
  CHECK_OK(fe_operator_assemble(adv, &form, &coef));
  CHECK_OK(fe_op_apply_full(adv, u, y));
  double *au = malloc(sizeof(double) * nn);
  CHECK_OK(fe_vec_download(y, au));
  *gain = 0;
  for (int i = 0; i < nn; i++) *gain += au[i];
  free(au);
  fe_op_destroy(adv);
  fe_vec_destroy(u);
  fe_vec_destroy(udot);
  fe_vec_destroy(y);
  fe_backend_free(be, vel);
  fe_fct_destroy(fct);
  fe_space_destroy(space);
}

/* The lumped-mass integral of v, on the host (a CPU space). */
static inline double fct_problem_integral(const struct fct_problem *p, const double *v)
{
  struct fe_space *s;
  CHECK_OK(fe_space_create(test_cpu(), p->m, p->isd, &s));
  double sum = 0;
  for (long i = 0; i < s->n_nodes; i++)
    sum +=
        v[i] * fe_fct_node_lumped_mass(s->d, &s->ref, i, s->inc_ptr, s->inc, s->cells, s->coords);
  fe_space_destroy(s);
  return sum;
}

#endif
