#include "solvers/cg.h"

#include <math.h>
#include <stdlib.h>

#include "core/error.h"

struct fe_cg {
  struct fe_vec *r, *z, *p, *q, *dinv;
};

int fe_cg_create(const struct fe_backend *be, size_t n, struct fe_cg **cg)
{
  struct fe_cg *s;
  FE_CALLOC(1, &s);
  int err = fe_vec_create(be, n, &s->r);
  if (!err) err = fe_vec_create(be, n, &s->z);
  if (!err) err = fe_vec_create(be, n, &s->p);
  if (!err) err = fe_vec_create(be, n, &s->q);
  if (!err) err = fe_vec_create(be, n, &s->dinv);
  if (err) {
    fe_cg_destroy(s);
    return err;
  }
  *cg = s;
  return FE_SUCCESS;
}

void fe_cg_destroy(struct fe_cg *cg)
{
  if (!cg) return;
  fe_vec_destroy(cg->r);
  fe_vec_destroy(cg->z);
  fe_vec_destroy(cg->p);
  fe_vec_destroy(cg->q);
  fe_vec_destroy(cg->dinv);
  free(cg);
}

static void record(struct fe_cg_result *res, double rnorm)
{
  res->history[2] = res->history[1];
  res->history[1] = res->history[0];
  res->history[0] = rnorm;
  res->residual = rnorm;
}

/* Diagonal operators (lumped mass) are solved by division. */
static int solve_diagonal(struct fe_cg *cg, struct fe_op *a, const struct fe_vec *b,
                          struct fe_vec *x, struct fe_cg_result *res)
{
  FE_CALL(fe_op_diagonal(a, cg->dinv));
  FE_CALL(fe_vec_pointwise_div(x, b, cg->dinv));
  double lo, hi;
  FE_CALL(fe_vec_minmax(x, &lo, &hi));
  res->converged = isfinite(lo) && isfinite(hi);
  res->iterations = 1;
  record(res, res->converged ? 0.0 : NAN);
  return FE_SUCCESS;
}

/* z = M^-1 r with M = diag(A) (Jacobi) or the identity */
static int precondition(struct fe_cg *cg, int jacobi, const struct fe_vec *r, struct fe_vec *z)
{
  return jacobi ? fe_vec_pointwise_div(z, r, cg->dinv) : fe_vec_copy(r, z);
}

int fe_cg_solve(struct fe_cg *cg, struct fe_op *a, const struct fe_vec *b, struct fe_vec *x,
                const struct fe_cg_options *opt, struct fe_cg_result *res)
{
  struct fe_vec *r = cg->r, *z = cg->z, *p = cg->p, *q = cg->q;
  *res = (struct fe_cg_result){0};
  FE_CALL(fe_vec_norm(b, &res->rhs_norm));
  if (a->is_diagonal) return solve_diagonal(cg, a, b, x, res);
  if (opt->jacobi) FE_CALL(fe_op_diagonal(a, cg->dinv));

  const double target = fmax(opt->rtol * res->rhs_norm, opt->atol);
  double rnorm, rz, rz_old, pq;
  FE_CALL(fe_op_apply(a, x, q));
  FE_CALL(fe_vec_copy(b, r));
  FE_CALL(fe_vec_axpy(r, -1.0, q));
  FE_CALL(fe_vec_norm(r, &rnorm));
  record(res, rnorm);
  if (rnorm <= target) {
    res->converged = 1;
    return FE_SUCCESS;
  }
  FE_CALL(precondition(cg, opt->jacobi, r, z));
  FE_CALL(fe_vec_copy(z, p));
  FE_CALL(fe_vec_dot(r, z, &rz));
  for (int it = 1; it <= opt->max_iterations; it++) {
    FE_CALL(fe_op_apply(a, p, q));
    FE_CALL(fe_vec_dot(p, q, &pq));
    const double alpha = rz / pq;
    FE_CALL(fe_vec_axpy(x, alpha, p));
    FE_CALL(fe_vec_axpy(r, -alpha, q));
    FE_CALL(fe_vec_norm(r, &rnorm));
    record(res, rnorm);
    res->iterations = it;
    if (!isfinite(rnorm)) return FE_SUCCESS;
    if (rnorm <= target) {
      res->converged = 1;
      return FE_SUCCESS;
    }
    FE_CALL(precondition(cg, opt->jacobi, r, z));
    rz_old = rz;
    FE_CALL(fe_vec_dot(r, z, &rz));
    FE_CALL(fe_vec_axpby(p, 1.0, z, rz / rz_old)); /* p = z + beta p */
  }
  return FE_SUCCESS;
}
