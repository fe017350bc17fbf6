#include "solvers/op.h"

#include <stdlib.h>

#include "core/error.h"

long fe_op_next_version(void)
{
  static long last;
  return ++last;
}

int fe_op_apply(struct fe_op *op, const struct fe_vec *x, struct fe_vec *y)
{
  return op->ops->apply(op, x, y);
}

int fe_op_apply_owned(struct fe_op *op, const struct fe_vec *x, struct fe_vec *y)
{
  return (op->ops->apply_owned ? op->ops->apply_owned : op->ops->apply)(op, x, y);
}

int fe_op_apply_owned_many(struct fe_op *op, int m, const struct fe_vec *const *x,
                           struct fe_vec *const *y)
{
  FE_CHECK(m >= 1 && m <= FE_CG_MANY, FE_ERR_USAGE, "an apply to %d vectors at once: 1 to %d",
           m, FE_CG_MANY);
  if (m > 1 && op->ops->apply_owned_many) return op->ops->apply_owned_many(op, m, x, y);
  for (int j = 0; j < m; j++) FE_CALL(fe_op_apply_owned(op, x[j], y[j]));
  return FE_SUCCESS;
}

int fe_op_lift(struct fe_op *op, double s, const struct fe_vec *x, struct fe_vec *y)
{
  return op->ops->lift(op, s, x, y);
}

int fe_op_reaction(struct fe_op *op, double s, const struct fe_vec *x, struct fe_vec *y)
{
  FE_CHECK(op->ops->reaction, FE_ERR_USAGE, "this operator has no reaction (Dirichlet rows)");
  return op->ops->reaction(op, s, x, y);
}

int fe_op_apply_full(struct fe_op *op, const struct fe_vec *x, struct fe_vec *y)
{
  if (op->ops->apply_full) return op->ops->apply_full(op, x, y);
  FE_CALL(op->ops->apply(op, x, y));
  return op->ops->lift(op, 1.0, x, y);
}

int fe_op_diagonal(struct fe_op *op, struct fe_vec *diag) { return op->ops->diagonal(op, diag); }

void fe_op_destroy(struct fe_op *op)
{
  if (op) op->ops->destroy(op);
}
