/* BiCGStab (solvers/bicgstab.c) with Jacobi and without, on the CPU: on the
 * non-symmetric operators of the three strategies (nonsymmetric.h) it
 * converges, the computed residual meets the target and the strategies
 * agree; it agrees with Gaussian elimination on the dense matrix built from
 * the operator's applies, and with CG on a symmetric operator.  Breakdowns
 * (restarted once, then reported), too few iterations, non-finite values, a
 * zero right-hand side, a lumped operator, the Jacobi diagonal kept per
 * operator version, and the fe_krylov front. */
#include <stdio.h>
#include <string.h>

#include "backend_cpu.h"
#include "core/error.h"
#include "nonsymmetric.h"
#include "solvers/bicgstab.h"

static const enum fe_strategy strategies[3] = {FE_STRATEGY_LMA, FE_STRATEGY_ADDTO,
                                               FE_STRATEGY_MATFREE};

/* A problem, one operator of it on the CPU and b = A' xt */
struct one {
  struct ns_problem p;
  struct ns_system s;
  double *b;
};

static void one_make(int dim, int n, double kappa, enum fe_strategy strategy,
                     const struct fe_form *form, struct one *o)
{
  ns_problem_make(dim, n, kappa, &o->p);
  ns_system_make(test_cpu(), &o->p, strategy, form, &o->s);
  o->b = malloc(sizeof(double) * o->p.nn);
  ns_apply(o->s.op, o->p.xt, o->b);
}

static void one_free(struct one *o)
{
  free(o->b);
  ns_system_free(test_cpu(), &o->s);
  ns_problem_free(&o->p);
}

static void converges(int dim, int n, double tau, int jacobi)
{
  const struct fe_backend *be = test_cpu();
  struct ns_problem p;
  ns_problem_make(dim, n, 1e-3, &p);
  const struct fe_form form = ns_form(tau, 1);
  const struct fe_cg_options opt = {.rtol = 1e-13, .max_iterations = 1000, .jacobi = jacobi};
  double *b = NULL, *x[3];
  for (int st = 0; st < 3; st++) {
    struct ns_system s;
    ns_system_make(be, &p, strategies[st], &form, &s);
    if (!b) {
      b = malloc(sizeof(double) * p.nn);
      ns_apply(s.op, p.xt, b);
    }
    x[st] = calloc(p.nn, sizeof(double));
    struct fe_cg_result r;
    ns_solve(FE_KRYLOV_BICGSTAB, s.op, b, x[st], &opt, &r);
    const double computed = ns_residual(s.op, b, x[st]);
    printf("%dD n %d tau %g jacobi %d %-7s: %3d iterations, residual %.3e (computed %.3e), "
           "||b|| %.3e, error %.2e\n",
           dim, n, tau, jacobi, fe_strategy_name(strategies[st]), r.iterations, r.residual,
           computed, r.rhs_norm, test_relative_difference(x[st], p.xt, p.nn));
    CHECK(r.converged && r.iterations > 1);
    CHECK(r.residual <= opt.rtol * r.rhs_norm);
    CHECK(computed <= opt.rtol * r.rhs_norm * (1 + 1e-6));
    CHECK(test_relative_difference(x[st], p.xt, p.nn) < 1e-9);
    ns_system_free(be, &s);
  }
  printf("  strategies differ by %.2e (addto), %.2e (matfree)\n",
         test_relative_difference(x[1], x[0], p.nn), test_relative_difference(x[2], x[0], p.nn));
  CHECK(test_relative_difference(x[1], x[0], p.nn) <= 1e-10);
  CHECK(test_relative_difference(x[2], x[0], p.nn) <= 1e-10);
  for (int st = 0; st < 3; st++) free(x[st]);
  free(b);
  ns_problem_free(&p);
}

/* Without advection the operator is symmetric: BiCGStab and CG agree. */
static void agrees_with_cg(int dim, int n, int jacobi)
{
  struct one o;
  const struct fe_form form = ns_form(0.05, 0);
  one_make(dim, n, 1.0, FE_STRATEGY_ADDTO, &form, &o);
  const int nn = o.p.nn;
  const struct fe_cg_options opt = {.rtol = 1e-13, .max_iterations = 1000, .jacobi = jacobi};
  double *xb = calloc(nn, sizeof(double)), *xc = calloc(nn, sizeof(double));
  struct fe_cg_result rb, rc;
  ns_solve(FE_KRYLOV_BICGSTAB, o.s.op, o.b, xb, &opt, &rb);
  ns_solve(FE_KRYLOV_CG, o.s.op, o.b, xc, &opt, &rc);
  printf("symmetric %dD jacobi %d: bicgstab %d iterations, cg %d, difference %.2e\n", dim, jacobi,
         rb.iterations, rc.iterations, test_relative_difference(xb, xc, nn));
  CHECK(rb.converged && rc.converged);
  CHECK(test_relative_difference(xb, xc, nn) <= 1e-10);
  free(xb);
  free(xc);
  one_free(&o);
}

/* x = A^-1 b by Gaussian elimination with partial pivoting; a and b are overwritten */
static void gauss(int n, double *a, double *b, double *x)
{
  for (int k = 0; k < n; k++) {
    int piv = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(a[i * n + k]) > fabs(a[piv * n + k])) piv = i;
    for (int j = 0; j < n; j++) {
      const double t = a[k * n + j];
      a[k * n + j] = a[piv * n + j];
      a[piv * n + j] = t;
    }
    const double t = b[k];
    b[k] = b[piv];
    b[piv] = t;
    for (int i = k + 1; i < n; i++) {
      const double l = a[i * n + k] / a[k * n + k];
      for (int j = k; j < n; j++) a[i * n + j] -= l * a[k * n + j];
      b[i] -= l * b[k];
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    double s = b[i];
    for (int j = i + 1; j < n; j++) s -= a[i * n + j] * x[j];
    x[i] = s / a[i * n + i];
  }
}

/* The independent check: A' column by column from applies, solved directly. */
static void matches_elimination(int dim, int n, int jacobi)
{
  struct one o;
  const struct fe_form form = ns_form(0.5, 1);
  one_make(dim, n, 1e-3, FE_STRATEGY_MATFREE, &form, &o);
  const int nn = o.p.nn;
  double *a = malloc(sizeof(double) * nn * nn), *e = calloc(nn, sizeof(double)),
         *col = malloc(sizeof(double) * nn), *b = malloc(sizeof(double) * nn),
         *bg = malloc(sizeof(double) * nn), *xg = malloc(sizeof(double) * nn),
         *x = calloc(nn, sizeof(double));
  int asymmetric = 0;
  for (int j = 0; j < nn; j++) {
    e[j] = 1;
    ns_apply(o.s.op, e, col);
    e[j] = 0;
    for (int i = 0; i < nn; i++) a[i * nn + j] = col[i];
  }
  for (int i = 0; i < nn; i++)
    for (int j = 0; j < i; j++) asymmetric |= fabs(a[i * nn + j] - a[j * nn + i]) > 1e-3;
  CHECK(asymmetric);
  unsigned seed = 8;
  for (int i = 0; i < nn; i++) b[i] = bg[i] = meshgen_rand(&seed) - 0.5; /* Dirichlet rows too */
  gauss(nn, a, bg, xg);
  const struct fe_cg_options opt = {.rtol = 1e-13, .max_iterations = 1000, .jacobi = jacobi};
  struct fe_cg_result r;
  ns_solve(FE_KRYLOV_BICGSTAB, o.s.op, b, x, &opt, &r);
  printf("elimination %dD %d nodes jacobi %d: %d iterations, difference %.2e\n", dim, nn, jacobi,
         r.iterations, test_relative_difference(x, xg, nn));
  CHECK(r.converged);
  CHECK(test_relative_difference(x, xg, nn) <= 1e-10);
  free(a);
  free(e);
  free(col);
  free(b);
  free(bg);
  free(xg);
  free(x);
  one_free(&o);
}

/* A small dense operator on the CPU backend, counting its applies. */
struct dense_op {
  struct fe_op op;
  const double *a; /* row-major */
  int applies;
};

static int dense_apply(struct fe_op *op, const struct fe_vec *x, struct fe_vec *y)
{
  struct dense_op *d = op->impl;
  const int n = (int)op->n;
  double *ya = fe_vec_write(y);
  for (int i = 0; i < n; i++) {
    double s = 0;
    for (int j = 0; j < n; j++) s += d->a[i * n + j] * x->a[j];
    ya[i] = s;
  }
  d->applies++;
  return 0;
}

static int dense_lift(struct fe_op *op, double s, const struct fe_vec *x, struct fe_vec *y)
{
  (void)op, (void)s, (void)x, (void)y;
  return 0;
}

static int dense_diagonal(struct fe_op *op, struct fe_vec *diag)
{
  const struct dense_op *d = op->impl;
  double *da = fe_vec_write(diag);
  for (size_t i = 0; i < op->n; i++) da[i] = d->a[i * op->n + i];
  return 0;
}

static void dense_destroy(struct fe_op *op) { (void)op; }

static const struct fe_op_ops dense_ops = {
    .apply = dense_apply, .lift = dense_lift, .diagonal = dense_diagonal, .destroy = dense_destroy};

static void dense_init(struct dense_op *d, int n, const double *a)
{
  *d = (struct dense_op){.a = a};
  d->op = (struct fe_op){.ops = &dense_ops, .be = test_cpu(), .n = (size_t)n, .impl = d};
}

static int finite_history(const struct fe_cg_result *r, int entries)
{
  int ok = 1;
  for (int k = 0; k < entries; k++) ok &= isfinite(r->history[k]);
  return ok;
}

static void breakdowns(void)
{
  const struct fe_cg_options opt = {.rtol = 1e-12, .max_iterations = 100};
  struct fe_cg_result r;
  /* a rotation: r0 . A r0 = 0 in the first step and again after the restart */
  const double rotation[4] = {0, 1, -1, 0};
  struct dense_op rot;
  dense_init(&rot, 2, rotation);
  double b[3] = {1, 0, 0}, x[3] = {0, 0, 0};
  ns_solve(FE_KRYLOV_BICGSTAB, &rot.op, b, x, &opt, &r);
  printf("rotation: converged %d, %d iterations, %d applies, history %g %g\n", r.converged,
         r.iterations, rot.applies, r.history[0], r.history[1]);
  CHECK(!r.converged && r.iterations == 0 && r.history[0] == 1 && finite_history(&r, 3));
  CHECK(rot.applies == 4); /* the residual, v, the residual of the restart, v */

  /* r1 = (0, .1, .3) is orthogonal to r0 = e1: rho = 0 in the second step;
   * restarted from x1 with r0^ = r1, it converges */
  const double m3[9] = {2, 1, 1, 1, 4, 1, -1, 2, 3};
  struct dense_op d3;
  dense_init(&d3, 3, m3);
  ns_solve(FE_KRYLOV_BICGSTAB, &d3.op, b, x, &opt, &r);
  double a3[9], b3[3] = {1, 0, 0}, x3[3];
  memcpy(a3, m3, sizeof a3);
  gauss(3, a3, b3, x3);
  printf("restart: converged %d, %d iterations, %d applies, difference %.2e\n", r.converged,
         r.iterations, d3.applies, test_relative_difference(x, x3, 3));
  CHECK(r.converged && test_relative_difference(x, x3, 3) <= 1e-14);
  /* 1 + 2 (step 1) + 0 (step 2 breaks down) + 1 (restart) + 2 per step after it + 1 (check) */
  CHECK(d3.applies == 5 + 2 * (r.iterations - 1));

  /* a value that is not finite: stopped, reported, no error */
  const double bad[4] = {1, NAN, 0, 1};
  struct dense_op nan_op;
  dense_init(&nan_op, 2, bad);
  x[0] = x[1] = 0;
  ns_solve(FE_KRYLOV_BICGSTAB, &nan_op.op, b, x, &opt, &r);
  CHECK(!r.converged && !isfinite(r.history[0]));
}

/* max_iterations 1 on a system that needs more: not converged, history finite */
static void too_few_iterations(void)
{
  struct one o;
  const struct fe_form form = ns_form(1.0, 1);
  one_make(2, 12, 1e-3, FE_STRATEGY_LMA, &form, &o);
  double *x = calloc(o.p.nn, sizeof(double));
  const struct fe_cg_options opt = {.rtol = 1e-12, .max_iterations = 1, .jacobi = 1};
  struct fe_cg_result r;
  ns_solve(FE_KRYLOV_BICGSTAB, o.s.op, o.b, x, &opt, &r);
  CHECK(!r.converged && r.iterations == 1 && finite_history(&r, 2));
  CHECK(r.history[0] > 0 && r.history[1] > 0); /* BiCGStab's residuals need not decrease */
  free(x);
  one_free(&o);
}

/* b = 0 from x = 0: converged at once; a lumped mass: one division */
static void trivial(void)
{
  struct one o;
  struct fe_form form = ns_form(0.1, 1);
  one_make(2, 8, 1e-3, FE_STRATEGY_ADDTO, &form, &o);
  const int nn = o.p.nn;
  double *b = calloc(nn, sizeof(double)), *x = calloc(nn, sizeof(double));
  const struct fe_cg_options opt = {.rtol = 1e-12, .max_iterations = 100, .jacobi = 1};
  struct fe_cg_result r;
  ns_solve(FE_KRYLOV_BICGSTAB, o.s.op, b, x, &opt, &r);
  CHECK(r.converged && r.iterations == 0 && r.residual == 0);
  for (int i = 0; i < nn; i++) CHECK(x[i] == 0);

  form = (struct fe_form){.mass = 1, .lumped = 1};
  CHECK_OK(fe_operator_assemble(o.s.op, &form, &o.s.coef));
  CHECK(o.s.op->is_diagonal);
  ns_apply(o.s.op, o.p.xt, b);
  ns_solve(FE_KRYLOV_BICGSTAB, o.s.op, b, x, &opt, &r);
  CHECK(r.converged && r.iterations == 1);
  CHECK(test_relative_difference(x, o.p.xt, nn) <= 1e-14);
  free(b);
  free(x);
  one_free(&o);
}

/* The Jacobi diagonal follows the operator's version: after a re-assembly a
 * solver that solved before repeats a new solver's solve bit for bit. */
static void jacobi_follows_version(void)
{
  struct one o;
  struct fe_form form = ns_form(0.2, 1);
  one_make(2, 10, 1e-3, FE_STRATEGY_LMA, &form, &o);
  const int nn = o.p.nn;
  double *x[2] = {calloc(nn, sizeof(double)), calloc(nn, sizeof(double))};
  struct fe_krylov *k[2]; /* used before, new */
  struct fe_vec *like;
  CHECK_OK(fe_vec_create(test_cpu(), nn, &like));
  CHECK_OK(fe_krylov_create(like, FE_KRYLOV_BICGSTAB, &k[0]));
  CHECK_OK(fe_krylov_create(like, FE_KRYLOV_BICGSTAB, &k[1]));
  fe_vec_destroy(like);
  const struct fe_cg_options opt = {.rtol = 1e-10, .max_iterations = 500, .jacobi = 1};
  struct fe_cg_result r[2];
  ns_solve_with(k[0], o.s.op, o.b, x[0], &opt, &r[0]);
  form.mass = 20; /* another diagonal */
  CHECK_OK(fe_operator_assemble(o.s.op, &form, &o.s.coef));
  for (int i = 0; i < 2; i++) {
    memset(x[i], 0, sizeof(double) * nn);
    ns_solve_with(k[i], o.s.op, o.b, x[i], &opt, &r[i]);
    fe_krylov_destroy(k[i]);
  }
  CHECK(r[0].converged && r[0].iterations == r[1].iterations);
  CHECK(memcmp(x[0], x[1], sizeof(double) * nn) == 0);
  free(x[0]);
  free(x[1]);
  one_free(&o);
}

/* x from 0 by CG or BiCGStab itself, without the front */
static void solve_directly(enum fe_krylov_kind kind, struct fe_op *a, const struct fe_vec *b,
                           struct fe_vec *x, const struct fe_cg_options *opt,
                           struct fe_cg_result *r)
{
  CHECK_OK(fe_vec_set(x, 0));
  if (kind == FE_KRYLOV_CG) {
    struct fe_cg *cg;
    CHECK_OK(fe_cg_create(b, &cg));
    CHECK_OK(fe_cg_solve(cg, a, b, x, opt, r));
    fe_cg_destroy(cg);
  } else {
    struct fe_bicgstab *bs;
    CHECK_OK(fe_bicgstab_create(b, &bs));
    CHECK_OK(fe_bicgstab_solve(bs, a, b, x, opt, r));
    fe_bicgstab_destroy(bs);
  }
}

/* The front: names, kinds, and each kind solving as its own solver does */
static void krylov_front(void)
{
  CHECK(!strcmp(fe_krylov_name(FE_KRYLOV_CG), "CG"));
  CHECK(!strcmp(fe_krylov_name(FE_KRYLOV_BICGSTAB), "BiCGStab"));
  CHECK(!strcmp(fe_krylov_name((enum fe_krylov_kind)7), "unknown"));
  struct fe_krylov *k;
  fe_error_set_quiet(1);
  struct fe_vec *v4;
  CHECK_OK(fe_vec_create(test_cpu(), 4, &v4));
  CHECK(fe_krylov_create(v4, (enum fe_krylov_kind)7, &k) == FE_ERR_USAGE);
  fe_vec_destroy(v4);
  fe_error_set_quiet(0);
  fe_krylov_destroy(NULL);

  struct one o;
  const struct fe_form form = ns_form(0.05, 0); /* symmetric: CG may solve it */
  one_make(2, 10, 1.0, FE_STRATEGY_LMA, &form, &o);
  const int nn = o.p.nn;
  struct fe_vec *vb, *vx;
  CHECK_OK(fe_vec_create(test_cpu(), nn, &vb));
  CHECK_OK(fe_vec_create(test_cpu(), nn, &vx));
  CHECK_OK(fe_vec_upload(vb, o.b));
  const struct fe_cg_options opt = {.rtol = 1e-10, .max_iterations = 500, .jacobi = 1};
  struct fe_cg_result rk[2], rd[2];
  double *xk = calloc(nn, sizeof(double)), *xd = malloc(sizeof(double) * nn);
  for (int kind = FE_KRYLOV_CG; kind <= FE_KRYLOV_BICGSTAB; kind++) {
    CHECK_OK(fe_krylov_create(vb, (enum fe_krylov_kind)kind, &k));
    CHECK((int)fe_krylov_kind(k) == kind);
    memset(xk, 0, sizeof(double) * nn);
    ns_solve_with(k, o.s.op, o.b, xk, &opt, &rk[kind]);
    fe_krylov_destroy(k);
    solve_directly((enum fe_krylov_kind)kind, o.s.op, vb, vx, &opt, &rd[kind]);
    CHECK_OK(fe_vec_download(vx, xd));
    CHECK(rk[kind].converged && rk[kind].iterations == rd[kind].iterations);
    CHECK(memcmp(xk, xd, sizeof(double) * nn) == 0);
  }
  printf("front: cg %d iterations, bicgstab %d\n", rk[0].iterations, rk[1].iterations);
  CHECK(rk[FE_KRYLOV_CG].iterations != rk[FE_KRYLOV_BICGSTAB].iterations);
  fe_vec_destroy(vb);
  fe_vec_destroy(vx);
  free(xk);
  free(xd);
  one_free(&o);
}

int main(void)
{
  for (int jacobi = 0; jacobi < 2; jacobi++) {
    converges(2, 24, 1.0 / 24, jacobi); /* cell Courant numbers about 1 */
    converges(3, 6, 1.0 / 6, jacobi);
    agrees_with_cg(2, 16, jacobi);
    agrees_with_cg(3, 5, jacobi);
    matches_elimination(2, 6, jacobi);
    matches_elimination(3, 3, jacobi);
  }
  converges(2, 24, 0.2, 1); /* about 5 */
  breakdowns();
  too_few_iterations();
  trivial();
  jacobi_follows_version();
  krylov_front();
  TEST_DONE();
}
