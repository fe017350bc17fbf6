/* The source and Neumann loads of the scheme (app/coefficients.h) on a backend, for a jittered
 * structured mesh whose whole boundary carries the Neumann flux (tests/data/case/loads.xml, its
 * expressions replaced): by quadrature (assembly/load.h), or interpolated as the scheme does
 * it (the source's nodal values through the mass matrix, M + tau C^T with SUPG; the flux's
 * through the facet mass matrix).  SUPG reads a P1 velocity and a P0 diffusivity that vary
 * over the mesh. */
#ifndef FE_LOAD_CHECKS_H
#define FE_LOAD_CHECKS_H

#include <math.h>
#include <stdlib.h>

#include "app/coefficients.h"
#include "app/fields.h"
#include "assembly/operator.h"
#include "io/case.h"
#include "meshgen.h"
#include "solvers/vec.h"
#include "test.h"

static inline const char *load_case_path(void)
{
  static char path[4096];
  const char *root = getenv("FESIM_TEST_DATA");
  snprintf(path, sizeof path, "%s/case/loads.xml", root ? root : "tests/data");
  return path;
}

struct load_problem {
  const struct fe_backend *be;
  const struct fe_mesh *m;
  struct fe_case *c;
  struct fe_bcs *bcs;
  struct fe_space *space;
  struct fe_coefficient_programs *cp;
  double *diff, *vel;        /* backend: P0 diffusivity, P1 velocity */
  struct fe_vec *out, *work; /* n_nodes each */
};

/* The problem on backend be with source f and flux g (expression texts), loads as given. */
static inline void load_problem_make(const struct fe_backend *be, const struct fe_mesh *m,
                                     const char *f, const char *g, enum fe_loads loads,
                                     struct load_problem *p)
{
  const int d = m->dim, ns = FE_NSYM(d);
  *p = (struct load_problem){.be = be, .m = m};
  CHECK_OK(fe_case_read(load_case_path(), &p->c));
  if (!p->c) abort();
  struct fe_case *c = p->c;
  fe_expr_destroy(c->tracers[0].source);
  fe_expr_destroy(c->tracers[0].boundaries[0].value);
  CHECK_OK(fe_expr_create(f, &c->params, "test", 1, "source", &c->tracers[0].source));
  CHECK_OK(fe_expr_create(g, &c->params, "test", 1, "neumann", &c->tracers[0].boundaries[0].value));
  c->loads = loads;
  CHECK_OK(fe_bcs_create(c, &c->tracers[0], m, &p->bcs));
  CHECK_OK(fe_space_create(be, m, p->bcs->is_dirichlet, &p->space));
  CHECK_OK(fe_coefficient_programs_create(c, &c->tracers[0], p->bcs, p->space, &p->cp));
  double *diff = malloc(sizeof(double) * m->n_cells * ns),
         *vel = malloc(sizeof(double) * m->n_nodes * d);
  for (long k = 0; k < m->n_cells; k++)
    for (int j = 0; j < ns; j++)
      diff[k * ns + j] = j == 0 || j == d || j == ns - 1 ? 0.002 + 0.001 * (k % 7) : 0.0;
  for (long n = 0; n < m->n_nodes; n++) {
    const double *x = &m->coords[n * d];
    vel[n * d] = 1 + x[0] * sin(3 * x[1]);
    vel[n * d + 1] = 0.5 * cos(2 * x[0]);
    if (d == 3) vel[n * d + 2] = x[0] * x[1] - x[2];
  }
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * m->n_cells * ns, diff, &p->diff));
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * m->n_nodes * d, vel, &p->vel));
  CHECK_OK(fe_vec_create(be, (size_t)m->n_nodes, &p->out));
  CHECK_OK(fe_vec_create(be, (size_t)m->n_nodes, &p->work));
  free(diff);
  free(vel);
}

static inline void load_problem_free(struct load_problem *p)
{
  fe_vec_destroy(p->out);
  fe_vec_destroy(p->work);
  fe_backend_free(p->be, p->diff);
  fe_backend_free(p->be, p->vel);
  fe_coefficient_programs_destroy(p->cp);
  fe_space_destroy(p->space);
  fe_bcs_destroy(p->bcs);
  fe_case_destroy(p->c);
}

/* The source load at t into host (n_nodes values), SUPG's nu_scale supg (0: Galerkin). */
static inline void load_source(struct load_problem *p, double supg, double t, double *host)
{
  struct fe_form test = {.supg = supg, .nu_bar = 0, .uniform_diffusivity = 0};
  if (p->c->loads == FE_LOADS_QUADRATURE) {
    CHECK_OK(fe_coefficients_source_load(p->cp, t, &test, p->diff, p->vel, fe_vec_write(p->out)));
  } else {
    struct fe_op *mass = NULL;
    const struct fe_coefficients coef = {.diffusivity = p->diff, .velocity = p->vel};
    test.mass = 1;
    CHECK_OK(fe_coefficients_source(p->cp, t, fe_vec_write(p->work)));
    CHECK_OK(fe_operator_create(p->space, FE_STRATEGY_LMA, &mass));
    CHECK_OK(fe_operator_assemble(mass, &test, &coef));
    CHECK_OK(fe_op_apply_full(mass, p->work, p->out));
    fe_op_destroy(mass);
  }
  CHECK_OK(fe_vec_download(p->out, host));
}

/* The Neumann load at t into host (n_nodes values). */
static inline void load_neumann(struct load_problem *p, double t, double *host)
{
  CHECK_OK(fe_coefficients_neumann(p->cp, t, fe_vec_write(p->out)));
  CHECK_OK(fe_vec_download(p->out, host));
}

/* max |a - b| / max |b| */
static inline double load_difference(long n, const double *a, const double *b)
{
  double diff = 0, scale = 0;
  for (long i = 0; i < n; i++) {
    diff = fmax(diff, fabs(a[i] - b[i]));
    scale = fmax(scale, fabs(b[i]));
  }
  return diff / scale;
}

#endif
