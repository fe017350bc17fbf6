#include "solvers/jacobi.h"

#include <math.h>
#include <stdlib.h>

#include "core/error.h"

struct fe_jacobi {
  struct fe_vec *dinv;
  const struct fe_op *op; /* dinv is 1 / diag of this operator at this version */
  long version;
};

int fe_jacobi_create(const struct fe_vec *like, struct fe_jacobi **j)
{
  struct fe_jacobi *s;
  FE_CALLOC(1, &s);
  int err = fe_vec_create_like(like, &s->dinv);
  if (err) {
    fe_jacobi_destroy(s);
    return err;
  }
  *j = s;
  return FE_SUCCESS;
}

void fe_jacobi_destroy(struct fe_jacobi *j)
{
  if (!j) return;
  fe_vec_destroy(j->dinv);
  free(j);
}

int fe_jacobi_inverse(struct fe_jacobi *j, struct fe_op *a, struct fe_vec *work,
                      const struct fe_vec **dinv)
{
  *dinv = j->dinv;
  if (j->op == a && j->version == a->version) return FE_SUCCESS;
  FE_CALL(fe_op_diagonal(a, j->dinv));
  FE_CALL(fe_vec_set(work, 1.0));
  FE_CALL(fe_vec_pointwise_div(j->dinv, work, j->dinv));
  j->op = a;
  j->version = a->version;
  return FE_SUCCESS;
}

int fe_jacobi_solve_diagonal(struct fe_jacobi *j, struct fe_op *a, const struct fe_vec *b,
                             struct fe_vec *x, struct fe_vec *work, struct fe_cg_result *res)
{
  const struct fe_vec *dinv;
  FE_CALL(fe_jacobi_inverse(j, a, work, &dinv));
  FE_CALL(fe_vec_pointwise_mult(x, b, dinv));
  double lo, hi;
  FE_CALL(fe_vec_minmax(x, &lo, &hi));
  res->converged = isfinite(lo) && isfinite(hi);
  res->iterations = 1;
  fe_cg_result_record(res, res->converged ? 0.0 : NAN);
  return FE_SUCCESS;
}
