#include "solvers/bicgstab.h"

#include <math.h>
#include <stdlib.h>

#include "core/error.h"
#include "solvers/jacobi.h"

struct fe_bicgstab {
  struct fe_vec *r, *r0, *p, *v, *t;
  struct fe_vec *z; /* K p, then K s (Jacobi only; without it K = I) */
  struct fe_jacobi *jacobi;
};

/* The state of one solve: the recurrences' scalars and what the solve uses. */
struct solve {
  struct fe_bicgstab *s;
  struct fe_op *a;
  const struct fe_vec *b, *dinv; /* dinv NULL: no preconditioner */
  struct fe_vec *x;
  double target;
  double rho, alpha, omega;
  int restarted;
};

int fe_bicgstab_create(const struct fe_vec *like, struct fe_bicgstab **bs)
{
  struct fe_bicgstab *s;
  FE_CALLOC(1, &s);
  int err = fe_vec_create_like(like, &s->r);
  if (!err) err = fe_vec_create_like(like, &s->r0);
  if (!err) err = fe_vec_create_like(like, &s->p);
  if (!err) err = fe_vec_create_like(like, &s->v);
  if (!err) err = fe_vec_create_like(like, &s->t);
  if (!err) err = fe_vec_create_like(like, &s->z);
  if (!err) err = fe_jacobi_create(like, &s->jacobi);
  if (err) {
    fe_bicgstab_destroy(s);
    return err;
  }
  *bs = s;
  return FE_SUCCESS;
}

void fe_bicgstab_destroy(struct fe_bicgstab *s)
{
  if (!s) return;
  fe_vec_destroy(s->r);
  fe_vec_destroy(s->r0);
  fe_vec_destroy(s->p);
  fe_vec_destroy(s->v);
  fe_vec_destroy(s->t);
  fe_vec_destroy(s->z);
  fe_jacobi_destroy(s->jacobi);
  free(s);
}

/* K in: in itself without a preconditioner, else z = dinv .* in */
static int precondition(struct solve *q, struct fe_vec *in, struct fe_vec **out)
{
  *out = in;
  if (!q->dinv) return FE_SUCCESS;
  *out = q->s->z;
  return fe_vec_pointwise_mult(q->s->z, in, q->dinv);
}

/* r = b - A x; *rnorm = ||r|| */
static int residual(struct solve *q, double *rnorm)
{
  struct fe_vec *r = q->s->r;
  FE_CALL(fe_op_apply(q->a, q->x, r));
  FE_CALL(fe_vec_axpby(r, 1.0, q->b, -1.0));
  return fe_vec_norm(r, rnorm);
}

/* A new Krylov space from the current residual: r0^ = r, p = v = 0 */
static int begin(struct solve *q)
{
  FE_CALL(fe_vec_copy(q->s->r, q->s->r0));
  FE_CALL(fe_vec_set(q->s->p, 0.0));
  FE_CALL(fe_vec_set(q->s->v, 0.0));
  q->rho = q->alpha = q->omega = 1.0;
  return FE_SUCCESS;
}

/* One step of Saad's Alg. 7.7 with K on the right (Barrett et al., section
 * 2.3.8); s is kept in r.  *moved: x and r were updated, *rnorm = ||r||;
 * *broke: r0^.r, r0^.v or omega was zero. */
static int step(struct solve *q, int *moved, int *broke, double *rnorm)
{
  struct fe_bicgstab *s = q->s;
  struct fe_vec *kp, *ks;
  double rho, r0v, ts, tt;
  *moved = *broke = 0;
  FE_CALL(fe_vec_dot(s->r0, s->r, &rho));
  *broke = rho == 0;
  if (*broke) return FE_SUCCESS;
  const double beta = (rho / q->rho) * (q->alpha / q->omega);
  q->rho = rho;
  FE_CALL(fe_vec_axpy(s->p, -q->omega, s->v)); /* p = r + beta (p - omega v) */
  FE_CALL(fe_vec_axpby(s->p, 1.0, s->r, beta));
  FE_CALL(precondition(q, s->p, &kp));
  FE_CALL(fe_op_apply(q->a, kp, s->v));
  FE_CALL(fe_vec_dot(s->r0, s->v, &r0v));
  *broke = r0v == 0;
  if (*broke) return FE_SUCCESS;
  q->alpha = rho / r0v;
  FE_CALL(fe_vec_axpy(q->x, q->alpha, kp));
  FE_CALL(fe_vec_axpy(s->r, -q->alpha, s->v)); /* s */
  FE_CALL(precondition(q, s->r, &ks));
  FE_CALL(fe_op_apply(q->a, ks, s->t));
  FE_CALL(fe_vec_dot(s->t, s->r, &ts));
  FE_CALL(fe_vec_dot(s->t, s->t, &tt));
  /* t = 0 only when s = 0 (A and K regular): x is the solution, and the
   * zero omega a breakdown unless the norm below says converged */
  q->omega = tt != 0 ? ts / tt : 0.0;
  FE_CALL(fe_vec_axpy(q->x, q->omega, ks));
  FE_CALL(fe_vec_axpy(s->r, -q->omega, s->t));
  FE_CALL(fe_vec_norm(s->r, rnorm));
  *moved = 1;
  *broke = q->omega == 0;
  return FE_SUCCESS;
}

/* r = b - A x computed, the newest residual of the history; *converged
 * when it meets the target.  Called when the recurrence says converged, so
 * that only the computed residual is believed and the iteration goes on from
 * it otherwise (residual replacement: van der Vorst & Ye, SIAM J. Sci.
 * Comput. 22(3), 835-852, 2000), and before a restart. */
static int replace_residual(struct solve *q, struct fe_cg_result *res, int *converged)
{
  double rnorm;
  FE_CALL(residual(q, &rnorm));
  res->history[0] = res->residual = rnorm;
  *converged = rnorm <= q->target;
  return FE_SUCCESS;
}

static int solve(struct fe_bicgstab *s, struct fe_op *a, const struct fe_vec *b, struct fe_vec *x,
                 const struct fe_cg_options *opt, struct fe_cg_result *res)
{
  *res = (struct fe_cg_result){0};
  FE_CALL(fe_vec_norm(b, &res->rhs_norm));
  if (a->is_diagonal) return fe_jacobi_solve_diagonal(s->jacobi, a, b, x, s->z, res);
  struct solve q = {.s = s, .a = a, .b = b, .x = x};
  if (opt->jacobi) FE_CALL(fe_jacobi_inverse(s->jacobi, a, s->z, &q.dinv));
  q.target = fmax(opt->rtol * res->rhs_norm, opt->atol);
  double rnorm;
  FE_CALL(residual(&q, &rnorm));
  fe_cg_result_record(res, rnorm);
  if (!isfinite(rnorm)) return FE_SUCCESS;
  res->converged = rnorm <= q.target;
  if (res->converged) return FE_SUCCESS;
  FE_CALL(begin(&q));
  while (res->iterations < opt->max_iterations) {
    int moved, broke;
    FE_CALL(step(&q, &moved, &broke, &rnorm));
    if (moved) {
      res->iterations++;
      fe_cg_result_record(res, rnorm);
      if (!isfinite(rnorm)) return FE_SUCCESS;
      if (rnorm <= q.target) FE_CALL(replace_residual(&q, res, &res->converged));
      if (res->converged) return FE_SUCCESS;
    }
    if (!broke) continue;
    if (q.restarted) return FE_SUCCESS; /* a second breakdown: not converged */
    q.restarted = 1;
    FE_CALL(replace_residual(&q, res, &res->converged));
    if (res->converged) return FE_SUCCESS;
    FE_CALL(begin(&q));
  }
  return FE_SUCCESS;
}

/* The solution's ghosts current after, as CG leaves them (its updates left them stale: the
 * operator's results, solvers/op.h). */
int fe_bicgstab_solve(struct fe_bicgstab *s, struct fe_op *a, const struct fe_vec *b,
                      struct fe_vec *x, const struct fe_cg_options *opt, struct fe_cg_result *res)
{
  FE_CALL(solve(s, a, b, x, opt, res));
  return fe_vec_update_ghosts(x);
}
