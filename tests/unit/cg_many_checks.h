/* CG of several systems at once (fe_cg_solve_many) against the same systems solved one after
 * another, for the backend and operator under test: right-hand sides of different scales,
 * one zero (converged before any iteration), a limit that stops some systems and not others;
 * and fe_op_apply_owned_many against fe_op_apply_owned. */
#ifndef FE_CG_MANY_CHECKS_H
#define FE_CG_MANY_CHECKS_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/cg.h"
#include "solvers/vec.h"
#include "test.h"

#define CG_MANY_SYSTEMS 6

/* Right-hand side j of the checks: system 2 is zero. */
static inline void cg_many_rhs(int j, size_t n, double *b)
{
  for (size_t i = 0; i < n; i++)
    b[i] = j == 2 ? 0.0 : pow(10.0, j - 3) * (sin((double)(i + 1) * (j + 1)) + 0.1 * j);
}

/* m systems of a at once and one by one, each from x = 0, driven as `drive` says, with the
 * limit max_iterations.  exact: the same bits, iterations and residual histories (the apply
 * sums in a fixed order); else the iterations within one and x within 1e-9 relative. */
static inline void cg_many_agrees(struct fe_op *a, int m, int drive, int max_iterations, int exact)
{
  const struct fe_backend *be = a->be;
  const size_t n = a->n;
  struct fe_vec *b[CG_MANY_SYSTEMS] = {0}, *x[CG_MANY_SYSTEMS] = {0};
  struct fe_cg *cg[CG_MANY_SYSTEMS] = {0};
  struct fe_cg_result many[CG_MANY_SYSTEMS] = {{0}}, one;
  double *host = malloc(sizeof(double) * n), *alone = malloc(sizeof(double) * n);
  const struct fe_cg_options opt = {.rtol = 1e-11, .max_iterations = max_iterations,
                                    .jacobi = 1, .drive = drive};
  for (int j = 0; j < m; j++) {
    CHECK_OK(fe_vec_create(be, n, &b[j]));
    CHECK_OK(fe_vec_create(be, n, &x[j]));
    cg_many_rhs(j, n, host);
    CHECK_OK(fe_vec_upload(b[j], host));
    CHECK_OK(fe_vec_set(x[j], 0.0));
    CHECK_OK(fe_cg_create(b[j], &cg[j]));
  }
  CHECK_OK(fe_cg_solve_many(m, cg, a, (const struct fe_vec *const *)b, x, &opt, many));
  int stopped = 0, converged = 0;
  for (int j = 0; j < m; j++) {
    struct fe_cg *single;
    struct fe_vec *xs;
    CHECK_OK(fe_cg_create(b[j], &single));
    CHECK_OK(fe_vec_create(be, n, &xs));
    CHECK_OK(fe_vec_set(xs, 0.0));
    CHECK_OK(fe_cg_solve(single, a, b[j], xs, &opt, &one));
    CHECK_OK(fe_vec_download(x[j], host));
    CHECK_OK(fe_vec_download(xs, alone));
    CHECK(many[j].converged == one.converged);
    CHECK(many[j].drive == one.drive);
    if (j == 2) CHECK(many[j].converged && many[j].iterations == 0 && many[j].residual == 0);
    if (exact) {
      CHECK(many[j].iterations == one.iterations);
      CHECK(memcmp(many[j].history, one.history, sizeof one.history) == 0);
      CHECK(many[j].rhs_norm == one.rhs_norm);
      CHECK(memcmp(host, alone, sizeof(double) * n) == 0);
    } else {
      CHECK(abs(many[j].iterations - one.iterations) <= 1);
      CHECK(test_relative_difference(host, alone, n) < 1e-9);
    }
    stopped += !many[j].converged && many[j].iterations == max_iterations;
    converged += many[j].converged;
    fe_cg_destroy(single);
    fe_vec_destroy(xs);
  }
  CHECK(converged >= 1 && converged + stopped == m);
  for (int j = 0; j < m; j++) {
    fe_cg_destroy(cg[j]);
    fe_vec_destroy(b[j]);
    fe_vec_destroy(x[j]);
  }
  free(host);
  free(alone);
}

/* The iterations of system 3 of the checks alone, to set a limit between the systems'. */
static inline int cg_many_iterations(struct fe_op *a, int system)
{
  struct fe_vec *b, *x;
  struct fe_cg *cg;
  struct fe_cg_result r;
  double *host = malloc(sizeof(double) * a->n);
  CHECK_OK(fe_vec_create(a->be, a->n, &b));
  CHECK_OK(fe_vec_create(a->be, a->n, &x));
  cg_many_rhs(system, a->n, host);
  CHECK_OK(fe_vec_upload(b, host));
  CHECK_OK(fe_vec_set(x, 0.0));
  CHECK_OK(fe_cg_create(b, &cg));
  const struct fe_cg_options opt = {.rtol = 1e-11, .max_iterations = 1000, .jacobi = 1};
  CHECK_OK(fe_cg_solve(cg, a, b, x, &opt, &r));
  CHECK(r.converged);
  fe_cg_destroy(cg);
  fe_vec_destroy(b);
  fe_vec_destroy(x);
  free(host);
  return r.iterations;
}

/* Every check of CG at once for operator a driven as `drive`: m = 2 to 6 systems to
 * convergence, and 6 under a limit some reach and some do not (rtol is relative, so the
 * systems' iterations differ with their right-hand sides' shapes). */
static inline void cg_many_checks(struct fe_op *a, int drive, int exact)
{
  for (int m = 2; m <= CG_MANY_SYSTEMS; m += 2) cg_many_agrees(a, m, drive, 1000, exact);
  int lo = 1000, hi = 0;
  for (int j = 0; j < CG_MANY_SYSTEMS; j++) {
    if (j == 2) continue;
    const int its = cg_many_iterations(a, j);
    lo = its < lo ? its : lo;
    hi = its > hi ? its : hi;
  }
  if (hi > lo) cg_many_agrees(a, CG_MANY_SYSTEMS, drive, lo, exact);
}

/* fe_op_apply_owned_many of m = 1 to FE_CG_MANY vectors against fe_op_apply_owned of each, to
 * tol relative (0: the same bits). */
static inline void apply_many_agrees(struct fe_op *a, double tol)
{
  const size_t n = a->n;
  struct fe_vec *x[FE_CG_MANY] = {0}, *y[FE_CG_MANY] = {0}, *one;
  double *host = malloc(sizeof(double) * n), *alone = malloc(sizeof(double) * n);
  CHECK_OK(fe_vec_create(a->be, n, &one));
  for (int j = 0; j < FE_CG_MANY; j++) {
    CHECK_OK(fe_vec_create(a->be, n, &x[j]));
    CHECK_OK(fe_vec_create(a->be, n, &y[j]));
    cg_many_rhs(j == 2 ? 7 : j, n, host);
    CHECK_OK(fe_vec_upload(x[j], host));
  }
  for (int m = 1; m <= FE_CG_MANY; m++) {
    CHECK_OK(fe_op_apply_owned_many(a, m, (const struct fe_vec *const *)x, y));
    for (int j = 0; j < m; j++) {
      CHECK_OK(fe_op_apply_owned(a, x[j], one));
      CHECK_OK(fe_vec_download(y[j], host));
      CHECK_OK(fe_vec_download(one, alone));
      if (tol == 0)
        CHECK(memcmp(host, alone, sizeof(double) * n) == 0);
      else
        CHECK(test_relative_difference(host, alone, n) <= tol);
    }
  }
  for (int j = 0; j < FE_CG_MANY; j++) {
    fe_vec_destroy(x[j]);
    fe_vec_destroy(y[j]);
  }
  fe_vec_destroy(one);
  free(host);
  free(alone);
}

#endif
