/* The systems of the BiCGStab tests (test_bicgstab.c, test_gpu_bicgstab.c):
 * a step of advection-diffusion, M + tau (theta K + C), assembled by a
 * strategy on a jittered structured mesh: a rotating velocity with a drift,
 * a diffusivity of about kappa per cell, Dirichlet nodes on the faces x = 0
 * and y = 0.  C is not symmetric, so neither is the operator. */
#ifndef FE_NONSYMMETRIC_H
#define FE_NONSYMMETRIC_H

#include <math.h>
#include <stdlib.h>

#include "assembly/operator.h"
#include "meshgen.h"
#include "solvers/krylov.h"
#include "test.h"

struct ns_problem {
  struct fe_mesh *m;
  int nn;
  unsigned char *isd;
  double *diff, *vel; /* per cell, per node */
  /* a solution, b = A' xt; zero on the Dirichlet nodes, whose identity rows
   * (size 1) would else make ||b|| and leave the interior rows (size h^d)
   * solved to a tolerance h^-d times looser without Jacobi */
  double *xt;
};

struct ns_system {
  struct fe_space *space;
  double *diff, *vel; /* on the backend */
  struct fe_coefficients coef;
  struct fe_op *op;
};

/* M + tau (theta K + C), or M + tau theta K without advection */
static inline struct fe_form ns_form(double tau, int advection)
{
  const double theta = 0.5;
  return (struct fe_form){.mass = 1, .diffusion = theta * tau, .advection = advection ? tau : 0};
}

static inline void ns_problem_make(int dim, int n, double kappa, struct ns_problem *p)
{
  p->m = meshgen(dim, n, 0.3, 17);
  const int nn = p->nn = p->m->n_nodes, ns = FE_NSYM(dim);
  unsigned seed = 21;
  p->isd = calloc(nn, 1);
  p->vel = malloc(sizeof(double) * nn * dim);
  p->xt = malloc(sizeof(double) * nn);
  for (int i = 0; i < nn; i++) {
    const double *x = &p->m->coords[i * dim];
    p->isd[i] = x[0] < 1e-12 || x[1] < 1e-12;
    p->vel[i * dim] = -(x[1] - 0.5) + 0.3;
    p->vel[i * dim + 1] = x[0] - 0.5 + 0.2;
    if (dim == 3) p->vel[i * dim + 2] = 0.1;
    p->xt[i] = p->isd[i] ? 0 : sin(3 * x[0] + 2 * x[1]) + 0.1 * (meshgen_rand(&seed) - 0.5);
  }
  p->diff = calloc((size_t)p->m->n_cells * ns, sizeof(double));
  for (int c = 0; c < p->m->n_cells; c++) {
    double *d = p->diff + (size_t)c * ns;
    d[0] = d[dim == 2 ? 2 : 3] = kappa * (1 + meshgen_rand(&seed));
    if (dim == 3) d[5] = kappa;
  }
}

static inline void ns_problem_free(struct ns_problem *p)
{
  meshgen_free(p->m);
  free(p->isd);
  free(p->diff);
  free(p->vel);
  free(p->xt);
}

static inline void ns_system_make(const struct fe_backend *be, const struct ns_problem *p,
                                  enum fe_strategy strategy, const struct fe_form *form,
                                  struct ns_system *s)
{
  const int dim = p->m->dim;
  CHECK_OK(fe_space_create(be, p->m, p->isd, &s->space));
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * p->m->n_cells * FE_NSYM(dim), p->diff, &s->diff));
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * p->nn * dim, p->vel, &s->vel));
  s->coef = (struct fe_coefficients){.diffusivity = s->diff, .velocity = s->vel};
  CHECK_OK(fe_operator_create(s->space, strategy, &s->op));
  CHECK_OK(fe_operator_assemble(s->op, form, &s->coef));
}

static inline void ns_system_free(const struct fe_backend *be, struct ns_system *s)
{
  fe_op_destroy(s->op);
  fe_backend_free(be, s->diff);
  fe_backend_free(be, s->vel);
  fe_space_destroy(s->space);
}

/* y = A' x, on the host */
static inline void ns_apply(struct fe_op *a, const double *x, double *y)
{
  struct fe_vec *vx, *vy;
  CHECK_OK(fe_vec_create(a->be, a->n, &vx));
  CHECK_OK(fe_vec_create(a->be, a->n, &vy));
  CHECK_OK(fe_vec_upload(vx, x));
  CHECK_OK(fe_op_apply(a, vx, vy));
  CHECK_OK(fe_vec_download(vy, y));
  fe_vec_destroy(vx);
  fe_vec_destroy(vy);
}

/* x from the guess in x, on the host, by the solver k */
static inline void ns_solve_with(struct fe_krylov *k, struct fe_op *a, const double *b, double *x,
                                 const struct fe_cg_options *opt, struct fe_cg_result *r)
{
  struct fe_vec *vb, *vx;
  CHECK_OK(fe_vec_create(a->be, a->n, &vb));
  CHECK_OK(fe_vec_create(a->be, a->n, &vx));
  CHECK_OK(fe_vec_upload(vb, b));
  CHECK_OK(fe_vec_upload(vx, x));
  CHECK_OK(fe_krylov_solve(k, a, vb, vx, opt, r));
  CHECK_OK(fe_vec_download(vx, x));
  fe_vec_destroy(vb);
  fe_vec_destroy(vx);
}

/* the same by a new solver of the kind */
static inline void ns_solve(enum fe_krylov_kind kind, struct fe_op *a, const double *b, double *x,
                            const struct fe_cg_options *opt, struct fe_cg_result *r)
{
  struct fe_krylov *k;
  struct fe_vec *like;
  CHECK_OK(fe_vec_create(a->be, a->n, &like));
  CHECK_OK(fe_krylov_create(like, kind, &k));
  fe_vec_destroy(like);
  ns_solve_with(k, a, b, x, opt, r);
  fe_krylov_destroy(k);
}

/* ||b - A' x|| */
static inline double ns_residual(struct fe_op *a, const double *b, const double *x)
{
  double *y = malloc(sizeof(double) * a->n), s = 0;
  ns_apply(a, x, y);
  for (size_t i = 0; i < a->n; i++) s += (b[i] - y[i]) * (b[i] - y[i]);
  free(y);
  return sqrt(s);
}

#endif
