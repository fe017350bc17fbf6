/* The integrals of a tracer budget (assembly/flux.h) and the Dirichlet rows of the operators
 * (fe_op_reaction) on a backend, for a jittered structured mesh whose whole boundary is the
 * physical group 'boundary': a P1 velocity with divergence, a P1 field, a P0 rate and
 * diffusivity, Dirichlet nodes on part of the boundary. */
#ifndef FE_FLUX_CHECKS_H
#define FE_FLUX_CHECKS_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "assembly/flux.h"
#include "assembly/operator.h"
#include "meshgen.h"
#include "solvers/vec.h"
#include "test.h"

struct flux_problem {
  const struct fe_backend *be;
  const struct fe_mesh *m;
  struct fe_space *free, *masked; /* without Dirichlet nodes, and with some */
  unsigned char *isd;
  long n_facets;
  int *nodes_host, *nodes; /* each boundary facet's vertices, then its cell's opposite vertex */
  double *vel_host, *x_host, *lambda_host, *diff_host;
  double *vel, *lambda, *diff; /* backend */
  struct fe_vec *x, *facets, *cells, *y, *z;
};

static inline void flux_problem_make(const struct fe_backend *be, const struct fe_mesh *m,
                                     struct flux_problem *p)
{
  const int d = m->dim, ns = FE_NSYM(d);
  *p = (struct flux_problem){.be = be, .m = m};
  int *ptr, *inc;
  CHECK_OK(fe_mesh_incidence(m, &ptr, &inc));
  p->nodes_host = malloc(sizeof(int) * (m->n_facets + 1) * (d + 1));
  for (int f = 0; f < m->n_facets; f++) {
    int *out = p->nodes_host + p->n_facets++ * (d + 1);
    memcpy(out, m->facets + (long)f * d, sizeof(int) * d);
    out[d] = fe_mesh_facet_opposite(m, ptr, inc, m->facets + (long)f * d);
    CHECK(out[d] >= 0);
  }
  free(ptr);
  free(inc);
  p->isd = calloc((size_t)m->n_nodes, 1);
  for (int i = 0; i < m->n_nodes; i++)
    p->isd[i] = meshgen_on_boundary(m, i) && m->coords[i * d] < 0.5;
  p->vel_host = malloc(sizeof(double) * m->n_nodes * d);
  p->x_host = malloc(sizeof(double) * m->n_nodes);
  for (long n = 0; n < m->n_nodes; n++) {
    const double *c = &m->coords[n * d];
    p->vel_host[n * d] = 1 + c[0] * sin(3 * c[1]);
    p->vel_host[n * d + 1] = 0.5 * cos(2 * c[0]) + c[1] * c[1];
    if (d == 3) p->vel_host[n * d + 2] = c[0] * c[1] - c[2];
    p->x_host[n] = exp(-c[0]) * (1 + c[1]) + (d == 3 ? c[2] * c[2] : 0);
  }
  p->lambda_host = malloc(sizeof(double) * m->n_cells);
  p->diff_host = calloc((size_t)m->n_cells * ns, sizeof(double));
  for (long c = 0; c < m->n_cells; c++) {
    p->lambda_host[c] = 0.3 + 0.1 * (c % 5);
    for (int a = 0; a < d; a++) p->diff_host[c * ns + (a == 0 ? 0 : a == 1 ? d : ns - 1)] = 0.01;
  }
  CHECK_OK(fe_space_create(be, m, NULL, &p->free));
  CHECK_OK(fe_space_create(be, m, p->isd, &p->masked));
  CHECK_OK(fe_backend_alloc(be, sizeof(int) * p->n_facets * (d + 1), p->nodes_host, &p->nodes));
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * m->n_nodes * d, p->vel_host, &p->vel));
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * m->n_cells, p->lambda_host, &p->lambda));
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * m->n_cells * ns, p->diff_host, &p->diff));
  CHECK_OK(fe_vec_create(be, (size_t)m->n_nodes, &p->x));
  CHECK_OK(fe_vec_upload(p->x, p->x_host));
  CHECK_OK(fe_vec_create(be, (size_t)p->n_facets, &p->facets));
  CHECK_OK(fe_vec_create(be, (size_t)m->n_cells, &p->cells));
  CHECK_OK(fe_vec_create(be, (size_t)m->n_nodes, &p->y));
  CHECK_OK(fe_vec_create(be, (size_t)m->n_nodes, &p->z));
}

static inline void flux_problem_free(struct flux_problem *p)
{
  struct fe_vec *v[] = {p->x, p->facets, p->cells, p->y, p->z};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) fe_vec_destroy(v[i]);
  void *dev[] = {p->nodes, p->vel, p->lambda, p->diff};
  for (size_t i = 0; i < sizeof dev / sizeof *dev; i++) fe_backend_free(p->be, dev[i]);
  fe_space_destroy(p->free);
  fe_space_destroy(p->masked);
  void *host[] = {p->isd, p->nodes_host, p->vel_host, p->x_host, p->lambda_host, p->diff_host};
  for (size_t i = 0; i < sizeof host / sizeof *host; i++) free(host[i]);
}

/* out[k] = scale * int_F (u_h . n) X_h of each boundary facet (zeroed first), on the host. */
static inline void flux_facets(struct flux_problem *p, double scale, double *out)
{
  CHECK_OK(fe_vec_set(p->facets, 0.0));
  CHECK_OK(fe_flux_facets(p->free, p->n_facets, p->nodes, p->vel, p->x->a, scale,
                          fe_vec_write(p->facets)));
  CHECK_OK(fe_vec_download(p->facets, out));
}

/* out[c] = int_K w X_h of each cell: w = div u_h (divergence 1), else the rate lambda. */
static inline void flux_cells(struct flux_problem *p, int divergence, double *out)
{
  CHECK_OK(fe_vec_set(p->cells, 0.0));
  CHECK_OK(fe_flux_cells(p->free, divergence ? p->vel : NULL, divergence ? NULL : p->lambda, 0,
                         p->x->a, 1.0, fe_vec_write(p->cells)));
  CHECK_OK(fe_vec_download(p->cells, out));
}

/* The coefficients of a form's operator. */
static inline struct fe_coefficients flux_coefficients(const struct flux_problem *p)
{
  return (struct fe_coefficients){
      .diffusivity = p->diff, .velocity = p->vel, .lambda = p->lambda, .uniform_lambda = 0};
}

/* out = A X with A the form's operator on space (unmasked on p->free), on the host. */
static inline void flux_apply(struct flux_problem *p, struct fe_space *space, enum fe_strategy s,
                              const struct fe_form *form, double *out)
{
  struct fe_op *op;
  const struct fe_coefficients coef = flux_coefficients(p);
  CHECK_OK(fe_operator_create(space, s, &op));
  CHECK_OK(fe_operator_assemble(op, form, &coef));
  CHECK_OK(fe_op_apply(op, p->x, p->y));
  CHECK_OK(fe_vec_download(p->y, out));
  fe_op_destroy(op);
}

/* out = y + (A X)_D on the Dirichlet nodes of p->masked, y = fill elsewhere: the reaction of
 * the masked operator of the form, added to fill. */
static inline void flux_reaction(struct flux_problem *p, enum fe_strategy s,
                                 const struct fe_form *form, double fill, double *out)
{
  struct fe_op *op;
  const struct fe_coefficients coef = flux_coefficients(p);
  CHECK_OK(fe_operator_create(p->masked, s, &op));
  CHECK_OK(fe_operator_assemble(op, form, &coef));
  CHECK_OK(fe_vec_set(p->z, fill));
  CHECK_OK(fe_op_reaction(op, 1.0, p->x, p->z));
  CHECK_OK(fe_vec_download(p->z, out));
  fe_op_destroy(op);
}

static inline double flux_sum(const double *v, long n)
{
  double s = 0;
  for (long i = 0; i < n; i++) s += v[i];
  return s;
}

static inline double flux_max_abs(const double *v, long n)
{
  double s = 0;
  for (long i = 0; i < n; i++) s = fmax(s, fabs(v[i]));
  return s;
}

#endif
