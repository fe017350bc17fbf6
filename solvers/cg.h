/* Preconditioned conjugate gradients (Jacobi or none) on an fe_op. */
#ifndef FE_CG_H
#define FE_CG_H

#include "solvers/op.h"

struct fe_cg_options {
  double rtol, atol;
  int max_iterations;
  int jacobi;
  /* When to read each iteration's residual norm on an asynchronous backend:
   * FE_CG_LOOKAHEAD_AUTO (0) decides from the previous solve's timing,
   * FE_CG_LOOKAHEAD_OFF reads it before queueing the next iteration,
   * FE_CG_LOOKAHEAD_ON after (one speculative iteration, no effect on results). */
  int lookahead;
};

enum { FE_CG_LOOKAHEAD_AUTO = 0, FE_CG_LOOKAHEAD_OFF = 1, FE_CG_LOOKAHEAD_ON = 2 };

struct fe_cg_result {
  int iterations;
  int lookahead;    /* 1 when the residuals were read one iteration late */
  int converged;
  double residual;  /* ||b - A x|| at the end */
  double rhs_norm;  /* ||b|| */
  double history[3]; /* the last residual norms, newest first, for messages */
};

/* rnorm becomes the newest entry of the history and the residual. */
void fe_cg_result_record(struct fe_cg_result *result, double rnorm);

struct fe_cg;

/* Its work vectors laid out as `like` (its backend, size, owned entries and halo). */
int fe_cg_create(const struct fe_vec *like, struct fe_cg **cg);
void fe_cg_destroy(struct fe_cg *cg);

/* Solve A x = b from the initial guess in x.  Converged when
 * ||r|| <= max(rtol ||b||, atol).  Not converging is reported in result, not
 * as an error: the caller names the solve in its message. */
int fe_cg_solve(struct fe_cg *cg, struct fe_op *a, const struct fe_vec *b, struct fe_vec *x,
                const struct fe_cg_options *opt, struct fe_cg_result *result);

#endif
