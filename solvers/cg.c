#include "solvers/cg.h"

#include <math.h>
#include <stdlib.h>

#include "core/error.h"
#include "core/timer.h"
#include "solvers/jacobi.h"

struct fe_cg {
  const struct fe_backend *be;
  struct fe_vec *r, *z, *p, *q;
  struct fe_jacobi *jacobi;
  double *scalars;             /* on the backend: two (r.z, r.r) pairs used in turn, then p.q */
  double iteration_seconds;    /* of the last solve, for FE_CG_LOOKAHEAD_AUTO */
};

/* The cost of waiting for a residual before queueing the next iteration: the
 * copy's latency plus the GPU idling until new kernels arrive (4-10 us per
 * iteration measured at 0.5M unknowns on an H100, docs/performance.md; 20 us
 * bounds it here).  Looking one iteration ahead
 * removes it from every iteration and costs one iteration per solve: it pays
 * when an iteration is short. */
#define FE_CG_WAIT_SECONDS 20e-6
#define FE_CG_TYPICAL_ITERATIONS 10

int fe_cg_create(const struct fe_vec *like, struct fe_cg **cg)
{
  struct fe_cg *s;
  FE_CALLOC(1, &s);
  s->be = like->be;
  int err = fe_vec_create_like(like, &s->r);
  if (!err) err = fe_vec_create_like(like, &s->z);
  if (!err) err = fe_vec_create_like(like, &s->p);
  if (!err) err = fe_vec_create_like(like, &s->q);
  if (!err) err = fe_jacobi_create(like, &s->jacobi);
  const double zeros[5] = {0, 0, 0, 0, 0};
  if (!err) err = fe_backend_alloc(s->be, sizeof zeros, zeros, &s->scalars);
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
  fe_jacobi_destroy(cg->jacobi);
  fe_backend_free(cg->be, cg->scalars);
  free(cg);
}

void fe_cg_result_record(struct fe_cg_result *res, double rnorm)
{
  res->history[2] = res->history[1];
  res->history[1] = res->history[0];
  res->history[0] = rnorm;
  res->residual = rnorm;
}

/* *out = x . y over the processes, kept on the backend */
static int dot_keep(const struct fe_backend *be, size_t n, const double *x, const double *y,
                    double *out)
{
  FE_CALL(be->cg->dot(be, n, x, y, out));
  return fe_comm_allreduce_sum_device(be->comm, out, 1);
}

static int use_lookahead(const struct fe_cg *cg, const struct fe_cg_options *opt)
{
  if (!cg->be->asynchronous || opt->lookahead == FE_CG_LOOKAHEAD_OFF) return 0;
  if (opt->lookahead == FE_CG_LOOKAHEAD_ON) return 1;
  /* on several processes every one must queue the same iterations (each holds a collective
   * exchange and sum), which a timing of each process's own cannot promise: ahead always */
  if (cg->be->comm->size > 1) return 1;
  return cg->iteration_seconds < FE_CG_WAIT_SECONDS * FE_CG_TYPICAL_ITERATIONS;
}

static int iterate(struct fe_cg *cg, struct fe_op *a, const struct fe_vec *b, struct fe_vec *x,
                   const struct fe_cg_options *opt, struct fe_cg_result *res)
{
  struct fe_vec *r = cg->r, *z = cg->z, *p = cg->p, *q = cg->q;
  const struct fe_backend *be = b->be;
  const struct fe_vec *jacobi = NULL;
  double *pair[2] = {cg->scalars, cg->scalars + 2}, *pq = cg->scalars + 4;
  const size_t n = b->n_owned; /* the kernels reduce over the owned entries */
  *res = (struct fe_cg_result){0};
  FE_CALL(fe_vec_norm(b, &res->rhs_norm));
  if (a->is_diagonal) return fe_jacobi_solve_diagonal(cg->jacobi, a, b, x, z, res);
  if (opt->jacobi) FE_CALL(fe_jacobi_inverse(cg->jacobi, a, z, &jacobi));
  const double *dinv = jacobi ? jacobi->a : NULL;

  const double target = fmax(opt->rtol * res->rhs_norm, opt->atol);
  double rnorm;
  FE_CALL(fe_op_apply(a, x, q));
  FE_CALL(fe_vec_copy(b, r));
  FE_CALL(fe_vec_axpy(r, -1.0, q));
  FE_CALL(fe_vec_norm(r, &rnorm));
  fe_cg_result_record(res, rnorm);
  if (rnorm <= target) {
    res->converged = 1;
    return FE_SUCCESS;
  }
  if (dinv)
    FE_CALL(fe_vec_pointwise_mult(z, r, jacobi));
  else
    FE_CALL(fe_vec_copy(r, z));
  FE_CALL(fe_vec_copy(z, p));
  FE_CALL(dot_keep(be, n, r->a, z->a, pair[1]));
  const double rr0 = rnorm * rnorm, done2 = target * target;
  FE_CALL(be->vec->to_device(be, pair[1] + 1, &rr0, sizeof rr0)); /* r.r beside r.z */
  /* Iteration it is queued, then the residual of iteration it - ahead is read:
   * with ahead = 1 the GPU already runs the next iteration while the host
   * waits.  An iteration queued past convergence leaves x alone (done2). */
  const int ahead = use_lookahead(cg, opt);
  const double start = fe_wtime();
  res->lookahead = ahead;
  for (int it = 1; it <= opt->max_iterations + ahead; it++) {
    if (it <= opt->max_iterations) {
      double *rz_old = pair[it % 2 ? 1 : 0], *rz_new = pair[it % 2 ? 0 : 1];
      FE_CALL(fe_op_apply(a, p, q));
      FE_CALL(dot_keep(be, n, p->a, q->a, pq));
      FE_CALL(be->cg->update(be, n, rz_old, pq, p->a, q->a, x->a, r->a, dinv, z->a, rz_new, done2));
      FE_CALL(fe_comm_allreduce_sum_device(be->comm, rz_new, 2));
      FE_CALL(be->cg->direction(be, n, rz_new, rz_old, z->a, p->a, done2)); /* p = z + beta p */
      FE_CALL(be->cg->scalar_post(be, it % 2, rz_new + 1));
    }
    const int done = it - ahead; /* the iteration whose residual is read now */
    if (done < 1) continue;
    double rr;
    FE_CALL(be->cg->scalar_wait(be, done % 2, pair[done % 2 ? 0 : 1] + 1, &rr));
    rnorm = sqrt(rr);
    fe_cg_result_record(res, rnorm);
    res->iterations = done;
    cg->iteration_seconds = (fe_wtime() - start) / done;
    if (!isfinite(rnorm)) return FE_SUCCESS;
    if (rnorm <= target) {
      res->converged = 1;
      return FE_SUCCESS;
    }
  }
  return FE_SUCCESS;
}

/* The fused kernels update the owned entries of x: its ghosts are copies again after. */
int fe_cg_solve(struct fe_cg *cg, struct fe_op *a, const struct fe_vec *b, struct fe_vec *x,
                const struct fe_cg_options *opt, struct fe_cg_result *res)
{
  FE_CALL(iterate(cg, a, b, x, opt, res));
  return fe_vec_update_ghosts(x);
}
