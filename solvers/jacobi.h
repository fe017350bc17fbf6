/* The Jacobi preconditioner of the Krylov solvers (solvers/cg.c,
 * solvers/bicgstab.c): 1 / diag(A), computed again only when the operator or
 * its version changed, and the solve of a diagonal operator (lumped mass) by
 * it. */
#ifndef FE_JACOBI_H
#define FE_JACOBI_H

#include "solvers/cg.h"

struct fe_jacobi;

/* The diagonal laid out as `like`. */
int fe_jacobi_create(const struct fe_vec *like, struct fe_jacobi **j);
void fe_jacobi_destroy(struct fe_jacobi *j);

/* *dinv = 1 / diag(a), kept while a is the operator of the last call at the
 * same version; work: a vector of a's size, overwritten when it is computed. */
int fe_jacobi_inverse(struct fe_jacobi *j, struct fe_op *a, struct fe_vec *work,
                      const struct fe_vec **dinv);

/* x = b ./ diag(a) for an operator with is_diagonal: one iteration, converged
 * unless x has a value that is not finite (then residual NaN).  result's
 * rhs_norm is the caller's. */
int fe_jacobi_solve_diagonal(struct fe_jacobi *j, struct fe_op *a, const struct fe_vec *b,
                             struct fe_vec *x, struct fe_vec *work, struct fe_cg_result *result);

#endif
