/* The split scheme (Strang: half a diffusion step, the advection step, half a
 * diffusion step; Lie: advection, then diffusion), its set-up and outputs. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "app/run.h"

#include <errno.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/coefficients.h"
#include "app/fields.h"
#include "assembly/norms.h"
#include "assembly/operator.h"
#include "backends/backends.h"
#include "core/error.h"
#include "core/timer.h"
#include "io/checkpoint.h"
#include "io/mesh.h"
#include "io/outdir.h"
#include "io/schedule.h"
#include "io/stat.h"
#include "io/vtk.h"
#include "solvers/cg.h"

/* An evaluation of the case's expressions on the backend during a step: kept, so that a value
 * that turns out non-finite can be traced to its expression on the host. */
enum evaluated {
  EVAL_VELOCITY,
  EVAL_DIFFUSIVITY,
  EVAL_SOURCE,
  EVAL_NEUMANN,
  EVAL_DIRICHLET,
  EVAL_EXACT
};
struct evaluation {
  enum evaluated what;
  double t;
};
enum { MAX_EVALUATIONS = 32 }; /* a step evaluates at most about 20 (kind, time) pairs */

struct fe_sim {
  const struct fe_options *opt;
  struct fe_case *c;
  struct fe_mesh *m;
  struct fe_bcs *bcs;
  const struct fe_backend *be;
  struct fe_backend *owned_be; /* the backend this run created */
  enum fe_strategy strategy;
  const char *outdir;
  struct fe_schedule sched; /* the time steps and when outputs are written */
  int has_advection, adv_tdep, diff_tdep, src_tdep, src_zero, bc_tdep;
  struct fe_space *space;
  struct fe_coefficient_programs *cp;
  struct fe_op *mass, *adv, *dlhs, *drhs;
  double adv_time, diff_tau, diff_time; /* what adv and dlhs/drhs were assembled for */
  struct fe_cg *cg, *cg_mass; /* one per operator solved: each keeps its Jacobi diagonal */
  struct fe_cg_options cgo;
  struct fe_vec *T, *b, *y, *k, *acc, *x, *ex;
  struct fe_vec *prev;                 /* T at the start of the step: kept on numerical failure */
  double *vel, *diff, *dvals, *dzero; /* backend arrays */
  int *indefinite;                     /* backend: diffusivity tensors found not positive
                                          semi-definite since the last stat row */
  double diff_checked[4];              /* the times they were evaluated at since then */
  int n_diff_checked;
  int dvals_ready;
  struct fe_vec *lumped;               /* int phi_n: integral = lumped . T */
  double *h_n, *h_n2, *h_vel, *h_diff, *h_d, *h_exact; /* host work */
  struct fe_coefficients coef;
  struct evaluation evaluated[MAX_EVALUATIONS]; /* this step's, in order */
  int n_evaluated;
  /* statistics */
  long step, n_dumps;
  int adv_iters, diff_iters;
  long total_adv_iters, total_diff_iters;
  double *dump_times;
  long total_cg_iters;
  double t_adv, t_diff, t_cg, t_out, t_start, t_loop0, last_progress;
  /* outputs */
  char *case_real;            /* the case file's absolute path (NAME.run, the lock) */
  const char *field_names[4]; /* the dump's point fields */
  int n_fields;
  char *exact_name, *error_name, *fields_text;
  struct fe_checkpoint id; /* what identifies the run in its checkpoints */
  int have_mesh_id;
  char *stat_path, *series_path;
  struct fe_stat *stat;
  struct fe_outdir_lock *lock;
  struct fe_checkpoint restart; /* --restart: the verified checkpoint, until restored */
  long stat_keep;               /* --restart: bytes of the stat file up to its row */
  long saved_step;              /* step of the newest checkpoint written or restored, or -1 */
  char *saved_path;             /* that checkpoint */
};

/* The one mutable global of the program besides fe_error's quiet switch: a
 * signal handler can only leave a flag.  SIGINT/SIGTERM finish the step,
 * write a checkpoint and the outputs, and exit 128 + signal. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig) { stop_signal = sig; }

int fe_run_stop_signal(void) { return stop_signal; }

static void catch_stop_signals(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

/* ---------------------------------------------------------------- set-up */

/* cuda: the GPU or exit 4; auto: the GPU when one is usable, else the CPU, said once. */
static int pick_backend(struct fe_sim *s)
{
  enum fe_backend_kind kind;
  if (s->opt->backend_set)
    kind = s->opt->backend;
  else
    FE_CALL(fe_backend_parse(s->c->backend, &kind));
  const struct fe_backend_options bo = {.device = -1, .verbosity = s->opt->verbosity};
  FE_CALL(fe_backend_create(kind, &bo, &s->owned_be));
  s->be = s->owned_be;
  return FE_SUCCESS;
}

static int check_dimensions(const struct fe_sim *s)
{
  const struct fe_case *c = s->c;
  char shown[FE_QUOTE_SIZE];
  if (c->n_velocity)
    FE_CHECK(c->n_velocity == s->m->dim, FE_ERR_INPUT,
             "%s:%d: <velocity>: %d components for the %dD mesh %s; expected %s",
             fe_path_shown(c->path, shown, sizeof shown), c->velocity_line, c->n_velocity,
             s->m->dim, s->m->path, s->m->dim == 2 ? "x and y" : "x, y and z");
  return FE_SUCCESS;
}

static int expr_is_zero(const struct fe_expr *e)
{
  const double p[3] = {0, 0, 0};
  return !fe_expr_depends_on_t(e) && !fe_expr_depends_on_space(e) && fe_expr_eval(e, p, 0) == 0;
}

static int alloc_fields(struct fe_sim *s)
{
  const long n = s->m->n_nodes, nd = s->bcs->n_dirichlet + 1;
  const int d = s->m->dim;
  struct fe_vec **v[] = {&s->T, &s->b, &s->y, &s->k, &s->acc, &s->x, &s->ex, &s->prev, &s->lumped};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) FE_CALL(fe_vec_create(s->be, (size_t)n, v[i]));
  FE_CALL(fe_cg_create(s->be, (size_t)n, &s->cg));
  FE_CALL(fe_cg_create(s->be, (size_t)n, &s->cg_mass));
  FE_MALLOC(n, &s->h_n);
  FE_MALLOC(n, &s->h_n2);
  FE_MALLOC(n, &s->h_exact);
  FE_MALLOC(n * d, &s->h_vel);
  FE_MALLOC(s->m->n_cells * FE_NSYM(d), &s->h_diff);
  FE_CALLOC(nd, &s->h_d);
  FE_CALL(fe_backend_alloc(s->be, (size_t)n * d * sizeof(double), NULL, &s->vel));
  FE_CALL(fe_backend_alloc(s->be, (size_t)s->m->n_cells * FE_NSYM(d) * sizeof(double), NULL, &s->diff));
  FE_CALL(fe_backend_alloc(s->be, (size_t)nd * sizeof(double), NULL, &s->dvals));
  FE_CALL(fe_backend_alloc(s->be, (size_t)nd * sizeof(double), s->h_d, &s->dzero));
  const int zero = 0;
  FE_CALL(fe_backend_alloc(s->be, sizeof zero, &zero, &s->indefinite));
  s->coef.diffusivity = s->diff;
  s->coef.velocity = s->vel;
  /* int phi_n = sum over the cells at n of |K| / (d + 1) */
  memset(s->h_n, 0, (size_t)n * sizeof *s->h_n);
  for (long c = 0; c < s->m->n_cells; c++) {
    const double w = fe_cell_measure(s->m, c) / s->m->nv;
    for (int v = 0; v < s->m->nv; v++) s->h_n[s->m->cells[c * s->m->nv + v]] += w;
  }
  return fe_vec_upload(s->lumped, s->h_n);
}

/* strategy="auto": the strategy whose apply of the diffusion operator is fastest here. */
static int pick_strategy(struct fe_sim *s)
{
  double sec[FE_STRATEGY_AUTO];
  const struct fe_form lhs = {.mass = 1.0, .lumped = s->c->mass == FE_MASS_LUMPED,
                              .diffusion = s->c->theta * s->c->dt};
  FE_CALL(fe_coefficients_diffusivity(s->cp, s->c->t_start, s->diff));
  FE_CALL(fe_operator_pick(s->space, &lhs, &s->coef, &s->strategy, sec));
  if (s->opt->verbosity > 0)
    fprintf(stderr, "fesim: note: assembly auto: %s (time per apply: lma %.3g ms, addto %.3g ms, matfree %.3g ms)\n",
            fe_strategy_name(s->strategy), 1e3 * sec[FE_STRATEGY_LMA], 1e3 * sec[FE_STRATEGY_ADDTO],
            1e3 * sec[FE_STRATEGY_MATFREE]);
  return FE_SUCCESS;
}

static int create_operators(struct fe_sim *s)
{
  FE_CALL(fe_space_create(s->be, s->m, s->bcs->is_dirichlet, &s->space));
  s->space->deterministic = s->opt->deterministic || s->c->deterministic;
  FE_CALL(fe_coefficient_programs_create(s->c, s->bcs, s->space, &s->cp));
  s->coef.uniform_diffusivity = s->cp->uniform_diffusivity;
  if (s->strategy == FE_STRATEGY_AUTO) FE_CALL(pick_strategy(s));
  FE_CALL(fe_operator_create(s->space, s->strategy, &s->dlhs));
  FE_CALL(fe_operator_create(s->space, s->strategy, &s->drhs));
  if (s->has_advection || !s->src_zero) {
    FE_CALL(fe_operator_create(s->space, s->strategy, &s->mass));
    struct fe_form mass = {.mass = 1.0, .lumped = s->c->mass == FE_MASS_LUMPED};
    FE_CALL(fe_operator_assemble(s->mass, &mass, &s->coef));
  }
  if (s->has_advection) FE_CALL(fe_operator_create(s->space, s->strategy, &s->adv));
  s->adv_time = s->diff_time = NAN;
  s->diff_tau = 0;
  return FE_SUCCESS;
}

/* ---------------------------------------------------------------- the scheme */

static void evaluating(struct fe_sim *s, enum evaluated what, double t)
{
  for (int i = 0; i < s->n_evaluated; i++)
    if (s->evaluated[i].what == what && s->evaluated[i].t == t) return;
  if (s->n_evaluated < MAX_EVALUATIONS)
    s->evaluated[s->n_evaluated++] = (struct evaluation){what, t};
}

/* Non-finite values showed during the step (the tracer, a CG solve, the error norms): the
 * step's evaluations again, on the host, in order.  The first non-finite value is an input
 * error naming the expression, where the case file has it, the node or cell and the time
 * (fe_eval_*); FE_SUCCESS when every value is finite, and the failure is numerical. */
static int name_non_finite(struct fe_sim *s)
{
  const struct fe_case *c = s->c;
  for (int i = 0; i < s->n_evaluated; i++) {
    const double t = s->evaluated[i].t;
    switch (s->evaluated[i].what) {
    case EVAL_VELOCITY: FE_CALL(fe_eval_velocity(c, s->m, t, s->h_vel)); break;
    case EVAL_DIFFUSIVITY: FE_CALL(fe_eval_diffusivity(c, s->m, t, s->h_diff)); break;
    case EVAL_SOURCE: FE_CALL(fe_eval_nodes(c->source, s->m, t, s->h_n2)); break;
    case EVAL_NEUMANN: FE_CALL(fe_eval_neumann(c, s->m, s->bcs, t, s->h_n2)); break;
    case EVAL_DIRICHLET: FE_CALL(fe_eval_dirichlet(c, s->m, s->bcs, t, s->h_d)); break;
    case EVAL_EXACT: FE_CALL(fe_eval_nodes(c->exact, s->m, t, s->h_exact)); break;
    }
  }
  return FE_SUCCESS;
}

/* v = values (backend array in Dirichlet-node order) on the Dirichlet nodes */
static int set_on_dirichlet(struct fe_sim *s, const double *values, struct fe_vec *v)
{
  if (!s->bcs->n_dirichlet) return FE_SUCCESS;
  return fe_vec_set_indexed(v, (size_t)s->bcs->n_dirichlet, s->space->dirichlet, values);
}

/* v = g(t) on the Dirichlet nodes (g kept in dvals; evaluated once when it
 * does not depend on t) */
static int set_dirichlet(struct fe_sim *s, double t, struct fe_vec *v)
{
  if (!s->bcs->n_dirichlet) return FE_SUCCESS;
  if (s->bc_tdep || !s->dvals_ready) {
    evaluating(s, EVAL_DIRICHLET, t);
    FE_CALL(fe_coefficients_dirichlet(s->cp, t, s->dvals));
    s->dvals_ready = 1;
  }
  return set_on_dirichlet(s, s->dvals, v);
}

static int solve(struct fe_sim *s, struct fe_op *a, const char *what, double t, int *iters)
{
  struct fe_cg_result r;
  FE_CALL(fe_backend_sync(s->be)); /* the solve's own time, not the work queued before it */
  const double start = fe_wtime();
  FE_CALL(fe_cg_solve(a == s->mass ? s->cg_mass : s->cg, a, s->b, s->x, &s->cgo, &r));
  s->t_cg += fe_wtime() - start;
  s->total_cg_iters += r.iterations;
  *iters += r.iterations;
  if (r.converged) return FE_SUCCESS;
  char last[64] = "";
  int finite = 1;
  for (int k = (r.iterations < 2 ? r.iterations : 2); k >= 0; k--) { /* oldest first */
    snprintf(last + strlen(last), sizeof last - strlen(last), " %.3e", r.history[k]);
    finite &= isfinite(r.history[k]);
  }
  if (!finite || !isfinite(r.rhs_norm)) FE_CALL(name_non_finite(s));
  if (!finite || !isfinite(r.rhs_norm))
    FE_RAISE(
        FE_ERR_NUMERICAL,
        "the %s solve broke down with non-finite values at step %ld (t = %.9g): %d CG iterations, "
        "last residuals%s, right-hand side norm %.3e; the scheme is unstable at this dt: try a "
        "smaller dt",
        what, s->step, t, r.iterations, last, r.rhs_norm);
  FE_RAISE(
      FE_ERR_NUMERICAL,
      "the %s solve did not converge at step %ld (t = %.9g): %d CG iterations, last residuals%s, "
      "target max(rtol %.1e * %.3e, atol %.1e); try a smaller dt or a larger <solver "
      "max_iterations>",
      what, s->step, t, r.iterations, last, s->cgo.rtol, r.rhs_norm, s->cgo.atol);
}

static int assemble_diffusion(struct fe_sim *s, double tau, double tmid)
{
  const int retime = s->diff_tdep && tmid != s->diff_time;
  if (tau == s->diff_tau && !retime) return FE_SUCCESS;
  if (retime || s->diff_tau == 0) {
    evaluating(s, EVAL_DIFFUSIVITY, tmid);
    FE_CALL(fe_coefficients_diffusivity(s->cp, tmid, s->diff));
    if (s->diff_tdep) { /* checked where it is evaluated; read with the stat row */
      const long m = s->coef.uniform_diffusivity ? 1 : s->m->n_cells;
      FE_CALL(fe_space_count_indefinite(s->space, m, s->diff, s->indefinite));
      if (s->n_diff_checked < 4) s->diff_checked[s->n_diff_checked++] = tmid;
    }
  }
  const double th = s->c->theta;
  const int lumped = s->c->mass == FE_MASS_LUMPED;
  struct fe_form lhs = {.mass = 1.0, .lumped = lumped, .diffusion = th * tau};
  struct fe_form rhs = {.mass = 1.0, .lumped = lumped, .diffusion = -(1 - th) * tau};
  FE_CALL(fe_operator_assemble(s->dlhs, &lhs, &s->coef));
  FE_CALL(fe_operator_assemble(s->drhs, &rhs, &s->coef));
  s->diff_tau = tau;
  s->diff_time = tmid;
  return FE_SUCCESS;
}

/* b += tau * (theta F(t1) + (1 - theta) F(t0)) for the source and Neumann loads. */
static int add_loads(struct fe_sim *s, double t0, double t1, double tau)
{
  const double th = s->c->theta;
  if (!s->src_zero) {
    evaluating(s, EVAL_SOURCE, t1);
    FE_CALL(fe_coefficients_source(s->cp, t1, s->y->a));
    if (s->src_tdep && th != 1) {
      evaluating(s, EVAL_SOURCE, t0);
      FE_CALL(fe_coefficients_source(s->cp, t0, s->k->a));
      FE_CALL(fe_vec_axpby(s->y, 1 - th, s->k, th)); /* theta f(t1) + (1 - theta) f(t0) */
    }
    FE_CALL(fe_op_apply_full(s->mass, s->y, s->k));
    FE_CALL(fe_vec_axpy(s->b, tau, s->k));
  }
  if (s->bcs->n_neumann_facets) {
    evaluating(s, EVAL_NEUMANN, t1);
    FE_CALL(fe_coefficients_neumann(s->cp, t1, s->y->a));
    if (s->bc_tdep && th != 1) {
      evaluating(s, EVAL_NEUMANN, t0);
      FE_CALL(fe_coefficients_neumann(s->cp, t0, s->k->a));
      FE_CALL(fe_vec_axpby(s->y, 1 - th, s->k, th));
    }
    FE_CALL(fe_vec_axpy(s->b, tau, s->y));
  }
  return FE_SUCCESS;
}

/* Theta scheme from t0 to t1 = t0 + tau:
 * (M + theta tau K) T1 = (M - (1 - theta) tau K) T0 + loads, T1 = g(t1) on Dirichlet nodes. */
static int diffuse(struct fe_sim *s, double t0, double tau)
{
  const double t1 = t0 + tau, start = fe_wtime();
  FE_CALL(assemble_diffusion(s, tau, 0.5 * (t0 + t1)));
  FE_CALL(fe_op_apply_full(s->drhs, s->T, s->b));
  FE_CALL(add_loads(s, t0, t1, tau));
  if (s->bcs->n_dirichlet) {
    FE_CALL(set_dirichlet(s, t1, s->y));
    FE_CALL(fe_op_lift(s->dlhs, -1.0, s->y, s->b)); /* move the known values to the right */
    FE_CALL(set_on_dirichlet(s, s->dvals, s->b));
  }
  FE_CALL(fe_vec_copy(s->T, s->x));
  FE_CALL(set_on_dirichlet(s, s->dvals, s->x));
  FE_CALL(solve(s, s->dlhs, "diffusion", t1, &s->diff_iters));
  FE_CALL(fe_vec_copy(s->x, s->T));
  s->t_diff += fe_wtime() - start;
  return FE_SUCCESS;
}

static int assemble_advection(struct fe_sim *s, double t)
{
  if (t == s->adv_time || (!s->adv_tdep && !isnan(s->adv_time))) return FE_SUCCESS;
  evaluating(s, EVAL_VELOCITY, t);
  FE_CALL(fe_coefficients_velocity(s->cp, t, s->vel));
  struct fe_form adv = {.advection = -1.0}; /* M dT/dt = -C T */
  FE_CALL(fe_operator_assemble(s->adv, &adv, &s->coef));
  s->adv_time = t;
  return FE_SUCCESS;
}

/* k = M^-1 (-C X) on the interior, 0 on Dirichlet nodes. */
static int advection_rate(struct fe_sim *s, double t, const struct fe_vec *X)
{
  FE_CALL(assemble_advection(s, t));
  FE_CALL(fe_op_apply_full(s->adv, X, s->b));
  FE_CALL(set_on_dirichlet(s, s->dzero, s->b));
  FE_CALL(solve(s, s->mass, "advection mass", t, &s->adv_iters));
  return fe_vec_copy(s->x, s->k);
}

/* Classical RK4 over [t0, t0 + h]. */
static int advect(struct fe_sim *s, double t0, double h)
{
  static const double c[4] = {0, 0.5, 0.5, 1}, w[4] = {1, 2, 2, 1};
  const double start = fe_wtime();
  FE_CALL(fe_vec_copy(s->T, s->acc));
  FE_CALL(fe_vec_set(s->x, 0.0)); /* the first guess of every step: restarts reproduce runs */
  for (int i = 0; i < 4; i++) {
    const struct fe_vec *X = s->T;
    if (i > 0) {
      FE_CALL(fe_vec_copy(s->T, s->y));
      FE_CALL(fe_vec_axpy(s->y, c[i] * h, s->k));
      FE_CALL(set_dirichlet(s, t0 + c[i] * h, s->y)); /* the stage's boundary values */
      X = s->y;
    }
    FE_CALL(advection_rate(s, t0 + c[i] * h, X));
    FE_CALL(fe_vec_axpy(s->acc, w[i] * h / 6, s->k));
  }
  FE_CALL(fe_vec_copy(s->acc, s->T));
  FE_CALL(set_dirichlet(s, t0 + h, s->T));
  s->t_adv += fe_wtime() - start;
  return FE_SUCCESS;
}

/* One step of length h (dt, or what is left for the last step) from t0. */
static int take_step(struct fe_sim *s, double t0, double h)
{
  s->adv_iters = s->diff_iters = 0;
  if (!s->has_advection) return diffuse(s, t0, h);
  if (s->c->splitting == FE_SPLIT_LIE) {
    FE_CALL(advect(s, t0, h));
    return diffuse(s, t0, h);
  }
  FE_CALL(diffuse(s, t0, 0.5 * h));
  FE_CALL(advect(s, t0, h));
  return diffuse(s, t0 + 0.5 * h, 0.5 * h);
}

/* ---------------------------------------------------------------- outputs */

/* A time-dependent diffusivity that lost positive semi-definiteness during the
 * step: the host evaluation at the times of the step names the cell (exit 2). */
static int check_diffusivity(struct fe_sim *s)
{
  int bad;
  FE_CALL(s->be->vec->to_host(s->be, &bad, s->indefinite, sizeof bad));
  const int n = s->n_diff_checked;
  s->n_diff_checked = 0;
  if (!bad) return FE_SUCCESS;
  for (int k = 0; k < n; k++) FE_CALL(fe_eval_diffusivity(s->c, s->m, s->diff_checked[k], s->h_diff));
  char shown[FE_QUOTE_SIZE];
  FE_RAISE(FE_ERR_INPUT,
           "%s:%d: <diffusivity>: not positive semi-definite in %d cells during step %ld",
           fe_path_shown(s->c->path, shown, sizeof shown), s->c->diffusivity_line, bad, s->step);
}

static int write_stat(struct fe_sim *s, double t, double dt)
{
  struct fe_stat_row row = {0};
  row.step = s->step;
  row.time = t;
  row.dt = dt;
  if (s->diff_tdep) FE_CALL(check_diffusivity(s));
  FE_CALL(fe_vec_minmax(s->T, &row.min, &row.max));
  if (!isfinite(row.min) || !isfinite(row.max)) FE_CALL(name_non_finite(s));
  FE_CHECK(isfinite(row.min) && isfinite(row.max), FE_ERR_NUMERICAL,
           "the tracer has non-finite values after step %ld (t = %.9g); try a smaller dt", s->step,
           t);
  FE_CALL(fe_vec_dot(s->lumped, s->T, &row.integral));
  if (s->c->exact) { /* e = T - exact and its norms, on the backend */
    double lo, hi, l2sq;
    evaluating(s, EVAL_EXACT, t);
    FE_CALL(fe_coefficients_exact(s->cp, t, s->ex->a));
    FE_CALL(fe_vec_copy(s->T, s->y));
    FE_CALL(fe_vec_axpy(s->y, -1.0, s->ex));
    FE_CALL(fe_vec_minmax(s->y, &lo, &hi));
    FE_CALL(fe_space_mass_apply(s->space, s->y->a, s->k->a));
    FE_CALL(fe_vec_dot(s->y, s->k, &l2sq));
    const int finite = isfinite(lo) && isfinite(hi) && isfinite(l2sq);
    if (!finite) FE_CALL(name_non_finite(s)); /* a NaN exact solution is no l2_error of 0 */
    FE_CHECK(finite, FE_ERR_NUMERICAL,
             "the error norms after step %ld (t = %.9g) are not finite (e^T M e = %g, nodal errors "
             "in [%g, %g]) while the tracer and the exact solution are: they overflow",
             s->step, t, l2sq, lo, hi);
    row.l2_error = sqrt(fmax(l2sq, 0));
    row.linf_error = fmax(fabs(lo), fabs(hi));
  }
  row.advection_iterations = s->adv_iters;
  row.diffusion_iterations = s->diff_iters;
  row.wall_seconds = s->step ? fe_wtime() - s->t_loop0 : 0;
  return fe_stat_write(s->stat, &row);
}

/* A dump of T (and h_exact, h_n2 = error, after write_stat). */
static int write_dump(struct fe_sim *s, double t)
{
  const double start = fe_wtime();
  FE_CALL(fe_vec_download(s->T, s->h_n));
  struct fe_vtk_field f[4];
  int nf = 0;
  f[nf++] = (struct fe_vtk_field){s->field_names[0], 1, s->h_n, 1};
  if (s->c->n_velocity) {
    FE_CALL(fe_eval_velocity(s->c, s->m, t, s->h_vel));
    f[nf++] = (struct fe_vtk_field){s->field_names[1], 3, s->h_vel, s->m->dim};
  }
  if (s->c->exact) {
    FE_CALL(fe_vec_download(s->ex, s->h_exact));
    FE_CALL(fe_vec_download(s->y, s->h_n2)); /* the error, from write_stat */
    f[nf++] = (struct fe_vtk_field){s->exact_name, 1, s->h_exact, 1};
    f[nf++] = (struct fe_vtk_field){s->error_name, 1, s->h_n2, 1};
  }
  char *path;
  FE_CALL(fe_vtk_path(s->outdir, s->c->name, s->n_dumps, &path));
  const int err = fe_vtk_write(path, t, s->m, nf, f);
  free(path);
  FE_CALL(err);
  s->dump_times[s->n_dumps++] = t;
  FE_CALL(fe_vtk_write_series(s->series_path, s->c->name, s->n_dumps, s->dump_times));
  s->t_out += fe_wtime() - start;
  return FE_SUCCESS;
}

/* The run's identity, the mesh's hashed when first needed (it reads the whole mesh). */
static const struct fe_checkpoint *identity(struct fe_sim *s)
{
  if (!s->have_mesh_id) s->id.mesh_id = fe_checkpoint_mesh_id(s->m);
  s->have_mesh_id = 1;
  return &s->id;
}

/* NAME_checkpoint_NNNNNN.bin of the step just done (ended at t), which then is the newest. */
static int write_checkpoint(struct fe_sim *s, double t)
{
  FE_CALL(fe_vec_download(s->T, s->h_n));
  struct fe_checkpoint cp = *identity(s);
  cp.step = s->step;
  cp.time = t;
  cp.n_dumps = s->n_dumps;
  cp.dump_times = s->dump_times;
  cp.field = s->h_n;
  char *path;
  FE_CALL(fe_outdir_path(s->outdir, &path, "%s_checkpoint_%06ld.bin", s->c->name, s->step));
  const int err = fe_checkpoint_write(path, &cp);
  if (err) {
    free(path);
    return err;
  }
  free(s->saved_path);
  s->saved_path = path;
  s->saved_step = s->step;
  return FE_SUCCESS;
}

static void format_duration(double sec, char *buf, size_t n)
{
  long s = (long)(sec + 0.5);
  snprintf(buf, n, "%02ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
}

static void progress(struct fe_sim *s, double t, int final)
{
  if (s->opt->verbosity >= 2) { /* --verbose: a line per step, terminal or not */
    fprintf(stderr, "step %ld/%ld  t = %.9g  CG advection %d  diffusion %d  wall %.3f s\n", s->step,
            s->sched.n_steps, t, s->adv_iters, s->diff_iters, fe_wtime() - s->t_loop0);
    return;
  }
  if (s->opt->verbosity == 0 || !isatty(STDERR_FILENO)) return;
  double now = fe_wtime();
  if (!final && now - s->last_progress < 0.2) return;
  s->last_progress = now;
  char eta[32];
  format_duration((now - s->t_loop0) / (double)s->step * (double)(s->sched.n_steps - s->step), eta,
                  sizeof eta);
  fprintf(stderr, "\rstep %ld/%ld  t = %-12.6g  CG advection %4d  diffusion %4d  ETA %s ", s->step,
          s->sched.n_steps, t, s->adv_iters, s->diff_iters, eta);
  if (final) fputc('\n', stderr);
}

static void summary(const struct fe_sim *s, double t, long first_step)
{
  double local = 0, global = 0;
  int count = 0;
  struct fe_op *ops[] = {s->mass, s->adv, s->dlhs, s->drhs};
  for (int i = 0; i < 4; i++)
    if (ops[i]) {
      const struct fe_assembly_times *at = fe_operator_times(ops[i]);
      local += at->local;
      global += at->global;
      count += at->count;
    }
  double total = fe_wtime() - s->t_loop0;
  if (s->opt->report)
    *s->opt->report = (struct fe_run_report){.steps = s->sched.n_steps - first_step,
                                             .setup = s->t_loop0 - s->t_start,
                                             .loop = total,
                                             .output = s->t_out,
                                             .local = local,
                                             .global = global,
                                             .assemblies = count,
                                             .advection = s->t_adv,
                                             .diffusion = s->t_diff,
                                             .cg = s->t_cg,
                                             .cg_iterations = s->total_cg_iters,
                                             .advection_iterations = s->total_adv_iters,
                                             .diffusion_iterations = s->total_diff_iters};
  if (s->opt->verbosity == 0) return;
  printf("fesim: %s: %ld steps to t = %.9g in %.3f s (backend %s, assembly %s)\n", s->c->name,
         s->sched.n_steps, t, total, s->be->description, fe_strategy_name(s->strategy));
  printf("  set-up     %9.3f s (case, mesh, operators)\n", s->t_loop0 - s->t_start);
  printf("  per step   %9.3f ms (outputs excluded)\n",
         1e3 * (total - s->t_out) / (double)(s->sched.n_steps - first_step));
  printf("  assembly   %9.3f s local, %.3f s global (%d operator assemblies)\n", local, global, count);
  if (s->has_advection)
    printf("  advection  %9.3f s, %ld CG iterations\n", s->t_adv, s->total_adv_iters);
  printf("  diffusion  %9.3f s, %ld CG iterations\n", s->t_diff, s->total_diff_iters);
  printf("  output     %9.3f s, %ld dumps: %s, %s\n", s->t_out, s->n_dumps, s->series_path,
         s->stat_path);
}

/* ---------------------------------------------------------------- the output directory */

static int make_dir(const char *path)
{
  char *buf, q[FE_QUOTE_SIZE];
  if (!path[0]) return FE_SUCCESS;
  FE_CALL(fe_strdup(path, &buf));
  int err = FE_SUCCESS;
  for (char *p = buf + 1; !err; p++) {
    if (*p && *p != '/') continue;
    const char end = *p;
    *p = '\0';
    if (mkdir(buf, 0777) && errno != EEXIST)
      err = fe_error_raise(FE_ERR_RESOURCE, __FILE__, __LINE__,
                           "cannot create the output directory %s: %s",
                           fe_quote(buf, FE_QUOTE_MAX, q, sizeof q), strerror(errno));
    *p = end;
    if (!end) break;
  }
  free(buf);
  return err;
}

/* "--output 'DIR'" or "case.xml: <output dir="DIR">": where the output directory was named. */
static const char *outdir_source(const struct fe_sim *s, char *buf, size_t size)
{
  char q[FE_QUOTE_SIZE], p[FE_QUOTE_SIZE];
  if (s->opt->output_dir)
    snprintf(buf, size, "--output %s", fe_quote(s->outdir, FE_QUOTE_MAX, q, sizeof q));
  else
    snprintf(buf, size, "%s: <output dir=%s>", fe_path_shown(s->c->path, p, sizeof p),
             fe_quote(s->outdir, FE_QUOTE_MAX, q, sizeof q));
  return buf;
}

/* The output directory, or the first of its parents that exists, must be a
 * directory: checked with the case, before anything is written. */
static int check_output_dir(const struct fe_sim *s)
{
  char *path, from[2 * FE_QUOTE_SIZE + 64], q[FE_QUOTE_SIZE];
  struct stat st;
  if (!s->outdir[0]) return FE_SUCCESS;
  FE_CALL(fe_strdup(s->outdir, &path));
  int err = FE_SUCCESS;
  for (char *p = path + 1; !err; p++) {
    if (*p && *p != '/') continue;
    const char end = *p;
    *p = '\0';
    if (!stat(path, &st) && !S_ISDIR(st.st_mode))
      err = fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                           "%s is not a directory: %s is a file; expected a directory, or a path "
                           "where one can be created",
                           outdir_source(s, from, sizeof from),
                           end ? fe_quote(path, FE_QUOTE_MAX, q, sizeof q) : "it");
    *p = end;
    if (!end) break;
  }
  free(path);
  return err;
}

/* Every file the run may create in the output directory (the last dump and
 * checkpoint have the longest numbers) fits the file system's limits. */
static int check_output_names(const struct fe_sim *s)
{
  const char *name = s->c->name;
  const long last_dump = fe_schedule_dumps_after(&s->sched, s->sched.n_steps) - 1;
  char *files[6] = {0}, source[FE_QUOTE_SIZE + 64], p[FE_QUOTE_SIZE];
  long name_max, path_max;
  fe_outdir_limits(s->outdir, &name_max, &path_max);
  snprintf(source, sizeof source, "<name> (%s)", fe_path_shown(s->c->path, p, sizeof p));
  /* the first two have no temporary */
  int err = fe_path_printf(&files[0], "%s.stat", name);
  if (!err) err = fe_path_printf(&files[1], FE_LOCK_FILE);
  if (!err) err = fe_path_printf(&files[2], "%s.run", name);
  if (!err) err = fe_path_printf(&files[3], "%s.vtk.series", name);
  if (!err) err = fe_vtk_path(NULL, name, last_dump, &files[4]);
  if (!err) err = fe_path_printf(&files[5], "%s_checkpoint_%06ld.bin", name, s->sched.n_steps - 1);
  for (int i = 0; !err && i < 6; i++) {
    char *tmp = NULL;
    err = fe_outdir_check_name(s->outdir, files[i], name_max, path_max, source);
    if (!err && i >= 2) err = fe_outdir_tmp_path(files[i], &tmp);
    if (!err && tmp) err = fe_outdir_check_name(s->outdir, tmp, name_max, path_max, source);
    free(tmp);
  }
  for (int i = 0; i < 6; i++) free(files[i]);
  return err;
}

/* Outputs belong to the case file that wrote NAME.run beside them: the run of
 * another case file with the same name must not overwrite them silently. */
static int claim_outputs(const struct fe_sim *s)
{
  char *path, *stat_path = s->stat_path, *owner = NULL, q[FE_QUOTE_SIZE], qo[FE_QUOTE_SIZE],
              qp[FE_QUOTE_SIZE];
  size_t cap = 0;
  FE_CALL(fe_outdir_path(s->outdir, &path, "%s.run", s->c->name));
  FILE *f = fopen(path, "r");
  int mine = 0, claimed = 0;
  if (f) {
    claimed = getline(&owner, &cap, f) > 5 && !strncmp(owner, "case ", 5);
    if (claimed) owner[strcspn(owner, "\n")] = '\0';
    mine = claimed && !strcmp(owner + 5, s->case_real);
    fclose(f);
  }
  const int foreign = f ? !mine : access(stat_path, F_OK) == 0;
  int err = FE_SUCCESS;
  if (foreign && !s->opt->force && claimed)
    err = fe_error_raise(
        FE_ERR_INPUT, __FILE__, __LINE__,
        "output directory %s holds the outputs of case %s (%s): not overwritten; use "
        "--output for another directory or --force to overwrite them",
        fe_quote(s->outdir, FE_QUOTE_MAX, q, sizeof q),
        fe_quote(owner + 5, FE_QUOTE_MAX, qo, sizeof qo), fe_path_shown(path, qp, sizeof qp));
  else if (foreign && !s->opt->force)
    err =
        fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                       "output directory %s holds outputs named '%s' that no fesim run claims (%s "
                       "exists, %s does not): not overwritten; use --output for another directory "
                       "or --force to overwrite them",
                       fe_quote(s->outdir, FE_QUOTE_MAX, q, sizeof q), s->c->name,
                       fe_quote(stat_path, FE_QUOTE_MAX, qo, sizeof qo),
                       fe_quote(path, FE_QUOTE_MAX, qp, sizeof qp));
  free(owner);
  free(path);
  return err;
}

/* NAME.run: which case file the outputs belong to. */
static int write_owner(const struct fe_sim *s)
{
  char *path, *text;
  FE_CALL(fe_outdir_path(s->outdir, &path, "%s.run", s->c->name));
  int err = fe_path_printf(&text, "case %s\nfesim %s\n", s->case_real, FESIM_VERSION);
  if (!err) err = fe_outdir_write_file(path, text, strlen(text), 0);
  if (!err) free(text);
  free(path);
  return err;
}

/* The directory made and locked, what was checked before the lock checked
 * again under it (another run may have ended in between), the temporaries of
 * a killed run removed; then the first writes: NAME.run and the stat file. */
static int open_outputs(struct fe_sim *s)
{
  signal(SIGXFSZ, SIG_IGN); /* a file size limit shows as EFBIG, reported like a full disk */
  FE_CALL(make_dir(s->outdir));
  FE_CALL(fe_outdir_lock(s->outdir, s->case_real, &s->lock));
  int err = claim_outputs(s);
  if (!err && s->opt->restart)
    err = fe_stat_check_resume(s->stat_path, s->c->exact != NULL, s->restart.step, s->restart.time,
                               &s->stat_keep);
  long removed = 0;
  if (!err) err = fe_outdir_remove_temporaries(s->outdir, &removed);
  if (err) {
    fe_outdir_unlock(s->lock);
    s->lock = NULL;
    return err;
  }
  if (removed && s->opt->verbosity > 0)
    fprintf(stderr, "fesim: note: removed %ld temporary files of an interrupted run from %s\n",
            removed, s->outdir);
  catch_stop_signals();
  FE_CALL(write_owner(s));
  if (s->opt->restart)
    return fe_stat_resume(s->stat_path, s->c->exact != NULL, s->stat_keep, &s->stat);
  return fe_stat_create(s->stat_path, s->c->exact != NULL, &s->stat);
}

/* ---------------------------------------------------------------- restarts */

/* --restart: the checkpoint read and verified against this run (case name,
 * mesh, stat columns, dump fields, its step's time and dumps), and the stat
 * file it continues checked; nothing is written. */
static int check_restart(struct fe_sim *s)
{
  const char *path = s->opt->restart;
  struct fe_checkpoint largest = *identity(s);
  largest.n_dumps = fe_schedule_max_dumps(&s->sched);
  FE_CALL(fe_checkpoint_read(path, fe_checkpoint_size(&largest), &s->restart));
  FE_CALL(fe_checkpoint_verify(path, &s->restart, &s->id, &s->sched));
  return fe_stat_check_resume(s->stat_path, s->c->exact != NULL, s->restart.step, s->restart.time,
                              &s->stat_keep);
}

/* T from the initial condition, or from the verified checkpoint (whose counts
 * fe_checkpoint_verify bounded: n_dumps <= the dump table, n_nodes = the mesh's). */
static int restore(struct fe_sim *s)
{
  if (!s->opt->restart) return fe_vec_upload(s->T, s->h_n);
  struct fe_checkpoint *cp = &s->restart;
  s->step = cp->step;
  s->n_dumps = cp->n_dumps;
  memcpy(s->dump_times, cp->dump_times, (size_t)cp->n_dumps * sizeof *s->dump_times);
  FE_CALL(fe_vec_upload(s->T, cp->field));
  s->saved_step = cp->step;
  FE_CALL(fe_strdup(s->opt->restart, &s->saved_path));
  fe_checkpoint_free(cp);
  return FE_SUCCESS;
}

/* After a SIGINT or SIGTERM: the step is finished and its stat row written;
 * a checkpoint keeps it (dumps keep their schedule, so that a restart writes
 * the files an uninterrupted run would). */
static int stopped(struct fe_sim *s, double t)
{
  if (s->saved_step != s->step) FE_CALL(write_checkpoint(s, t));
  fprintf(stderr, "\nfesim: stopped by %s after step %ld (t = %.9g); continue with --restart %s\n",
          stop_signal == SIGINT ? "SIGINT" : "SIGTERM", s->step, t, s->saved_path);
  return FE_ERR_INTERRUPTED;
}

/* After a numerical failure in the step from t0: T goes back to the last good
 * state, which a checkpoint keeps (the dumps written so far are untouched).
 * When that state already is in a checkpoint (written on schedule, or the one
 * this run restarted from), that file is named and not written again. */
static int keep_last_good(struct fe_sim *s, double t0)
{
  s->step--;
  FE_CALL(fe_vec_copy(s->prev, s->T));
  if (s->saved_step != s->step) FE_CALL(write_checkpoint(s, t0));
  fprintf(stderr,
          "fesim: the last good state (step %ld, t = %.9g) is in %s; the dumps up to t = %.9g are "
          "in %s\n",
          s->step, t0, s->saved_path, s->dump_times[s->n_dumps - 1], s->series_path);
  return FE_ERR_NUMERICAL;
}

/* The step from t0 and its stat row (which checks the field is finite). */
static int advance(struct fe_sim *s, double t0, double h)
{
  s->n_evaluated = 0;
  FE_CALL(fe_vec_copy(s->T, s->prev));
  FE_CALL(take_step(s, t0, h));
  s->total_adv_iters += s->adv_iters;
  s->total_diff_iters += s->diff_iters;
  return write_stat(s, t0 + h, h);
}

static int time_loop(struct fe_sim *s)
{
  const long first_step = s->step;
  const struct fe_schedule *sc = &s->sched;
  s->t_loop0 = fe_wtime();
  double t = fe_schedule_time(sc, s->step);
  if (!s->opt->restart) {
    FE_CALL(write_stat(s, t, 0));
    FE_CALL(write_dump(s, t));
  }
  while (s->step < sc->n_steps) {
    const double t0 = fe_schedule_time(sc, s->step), t1 = fe_schedule_time(sc, s->step + 1);
    const double h = fe_schedule_length(sc, s->step + 1);
    s->step++;
    const int err = advance(s, t0, h);
    if (err == FE_ERR_NUMERICAL) return keep_last_good(s, t0);
    FE_CALL(err);
    t = t1;
    if (fe_schedule_is_dump(sc, s->step)) FE_CALL(write_dump(s, t1));
    if (fe_schedule_is_checkpoint(sc, s->step)) FE_CALL(write_checkpoint(s, t1));
    progress(s, t1, s->step == sc->n_steps);
    if (stop_signal && s->step < sc->n_steps) return stopped(s, t1);
  }
  summary(s, t, first_step);
  return FE_SUCCESS;
}

static double cfl_estimate(const struct fe_sim *s)
{
  const struct fe_mesh *m = s->m;
  double cfl = 0;
  for (long e = 0; e < m->n_cells; e++) {
    double umax = 0, lmax = 0;
    for (int i = 0; i < m->nv; i++) {
      const long a = m->cells[e * m->nv + i];
      double u2 = 0;
      for (int k = 0; k < m->dim; k++) u2 += s->h_vel[a * m->dim + k] * s->h_vel[a * m->dim + k];
      umax = fmax(umax, sqrt(u2));
      for (int j = i + 1; j < m->nv; j++) {
        const long b = m->cells[e * m->nv + j];
        double l2 = 0;
        for (int k = 0; k < m->dim; k++) {
          double dx = m->coords[a * m->dim + k] - m->coords[b * m->dim + k];
          l2 += dx * dx;
        }
        lmax = fmax(lmax, sqrt(l2));
      }
    }
    /* minimum height: d |K| / largest facet, with |K| <= facet * h / d */
    double vol = fe_cell_measure(m, e);
    double h = m->dim == 2 ? 2 * vol / lmax : 3 * vol / (0.433013 * lmax * lmax);
    cfl = fmax(cfl, umax * s->c->dt / h);
  }
  return cfl;
}

static void print_check(struct fe_sim *s)
{
  const struct fe_case *c = s->c;
  const struct fe_mesh *m = s->m;
  printf("case      %s (%s)\n", c->name, c->path);
  printf("mesh      %s: %dD, %d nodes, %d %s\n", m->path, m->dim, m->n_nodes, m->n_cells,
         m->dim == 2 ? "triangles" : "tetrahedra");
  for (int b = 0; b < c->n_boundaries; b++) {
    const struct fe_boundary *bd = &c->boundaries[b];
    printf("boundary ");
    for (int r = 0; r < bd->n_refs; r++) {
      const struct fe_physical *g = fe_mesh_find_group(m, m->dim - 1, bd->refs[r]);
      int nf = 0;
      for (int f = 0; f < m->n_facets; f++) nf += m->facet_group[f] == g->tag;
      printf(" %s (tag %d, %d facets)", g->name[0] ? g->name : "unnamed", g->tag, nf);
    }
    char text[FE_QUOTE_SIZE];
    printf(": %s %s\n", bd->kind == FE_BC_DIRICHLET ? "dirichlet" : "neumann",
           fe_quote(fe_expr_text(bd->value), FE_QUOTE_MAX, text, sizeof text));
  }
  printf("          %ld Dirichlet nodes; other boundaries: zero flux\n", s->bcs->n_dirichlet);
  printf("time      %.9g to %.9g, dt %.9g, %ld steps (last step %.9g)\n", c->t_start, c->t_end,
         c->dt, s->sched.n_steps, fe_schedule_length(&s->sched, s->sched.n_steps));
  printf("scheme    %s splitting, advection %s, %s mass, theta %g\n",
         c->splitting == FE_SPLIT_STRANG ? "strang" : "lie", s->has_advection ? "rk4" : "none",
         c->mass == FE_MASS_LUMPED ? "lumped" : "consistent", c->theta);
  if (s->has_advection) printf("CFL       %.3g (max |u| dt / h at t = %.9g)\n", cfl_estimate(s), c->t_start);
  printf("solver    CG, %s, rtol %g, atol %g, max %d iterations\n",
         c->preconditioner == FE_PC_JACOBI ? "jacobi" : "no preconditioner", c->rtol, c->atol,
         c->max_iterations);
  printf("assembly  %s on backend %s\n", fe_strategy_name(s->strategy), s->be->description);
  printf("output    %s: a dump every %d steps, %s\n", s->outdir, c->output_every,
         c->checkpoint_every ? "checkpoints" : "no checkpoints");
  if (s->opt->restart)
    printf("restart   %s: step %ld, t = %.17g, %ld dumps; verified against the case, the mesh and "
           "%s\n",
           s->opt->restart, s->restart.step, s->restart.time, s->restart.n_dumps, s->stat_path);
}

/* The dump's point fields (the case reader checked they are distinct and
 * within VTK's limits), the output paths, and the run's identity. */
static int name_outputs(struct fe_sim *s)
{
  const struct fe_case *c = s->c;
  s->field_names[s->n_fields++] = c->tracer_name;
  if (c->n_velocity) s->field_names[s->n_fields++] = "velocity";
  if (c->exact) {
    FE_CALL(fe_path_printf(&s->exact_name, "%s_exact", c->tracer_name));
    FE_CALL(fe_path_printf(&s->error_name, "%s_error", c->tracer_name));
    s->field_names[s->n_fields++] = s->exact_name;
    s->field_names[s->n_fields++] = s->error_name;
  }
  size_t len = 0;
  for (int i = 0; i < s->n_fields; i++) len += strlen(s->field_names[i]) + 1;
  FE_CALL(fe_calloc(len + 1, 1, &s->fields_text));
  for (int i = 0; i < s->n_fields; i++) {
    if (i) strcat(s->fields_text, ",");
    strcat(s->fields_text, s->field_names[i]);
  }
  FE_CALL(fe_outdir_path(s->outdir, &s->stat_path, "%s.stat", c->name));
  FE_CALL(fe_outdir_path(s->outdir, &s->series_path, "%s.vtk.series", c->name));
  s->id = (struct fe_checkpoint){.name = c->name,
                                 .columns = (char *)fe_stat_columns(c->exact != NULL),
                                 .fields = s->fields_text,
                                 .n_nodes = s->m->n_nodes,
                                 .n_cells = s->m->n_cells};
  return FE_SUCCESS;
}

/* The case file's absolute path, symbolic links resolved; where the resolved
 * path would pass PATH_MAX (a deep tree behind a link), the path made absolute
 * as written: it only names the case in NAME.run and the lock. */
static int resolve_case_path(struct fe_sim *s)
{
  char q[FE_QUOTE_SIZE], *cwd;
  s->case_real = realpath(s->c->path, NULL);
  if (s->case_real) return FE_SUCCESS;
  FE_CHECK(errno == ENAMETOOLONG, FE_ERR_RESOURCE, "cannot resolve the path of %s: %s",
           fe_quote(s->c->path, FE_QUOTE_MAX, q, sizeof q), strerror(errno));
  if (s->c->path[0] == '/') return fe_path_printf(&s->case_real, "%s", s->c->path);
  cwd = getcwd(NULL, 0);
  FE_CHECK(cwd, FE_ERR_RESOURCE, "cannot resolve the path of %s: the working directory: %s",
           fe_quote(s->c->path, FE_QUOTE_MAX, q, sizeof q), strerror(errno));
  const int err = fe_path_printf(&s->case_real, "%s/%s", cwd, s->c->path);
  free(cwd);
  return err;
}

/* The case's mesh, read or meshed by the meshing process, which may read
 * the case file's folder besides the mesh file. */
static int read_mesh(struct fe_sim *s)
{
  const struct fe_mesh_options mo = {.size = s->c->mesh_size,
                                     .read_dir = s->c->dir,
                                     .time_limit = s->opt->mesh_time_limit,
                                     .max_cells = s->opt->max_cells,
                                     .verbosity = s->opt->verbosity};
  return fe_mesh_read(s->c->mesh_file, &mo, &s->m);
}

/* Everything checked before the first output is written. */
static int setup(struct fe_sim *s)
{
  const struct fe_options *o = s->opt;
  if (o->case_data)
    s->c = o->case_data;
  else
    FE_CALL(fe_case_read(o->case_path, &s->c));
  struct fe_case *c = s->c;
  if (o->restart) FE_CALL(fe_checkpoint_check_file(o->restart)); /* before meshing: at once */
  if (o->strategy_set)
    s->strategy = o->strategy;
  else
    FE_CALL(fe_strategy_parse(c->strategy, &s->strategy));
  s->outdir = o->output_dir ? o->output_dir : c->output_dir;
  s->saved_step = -1;
  FE_CHECK(fe_schedule_init(&s->sched, c->t_start, c->t_end, c->dt, c->output_every,
                            c->checkpoint_every) == FE_STEPS_OK,
           FE_ERR_INPUT, "<time>: the time span cannot be stepped"); /* fe_case_read checks it */
  /* the outputs first: they take no time, meshing may take long */
  FE_CALL(resolve_case_path(s));
  FE_CALL(check_output_dir(s));
  FE_CALL(check_output_names(s));
  if (o->mesh)
    s->m = o->mesh;
  else
    FE_CALL(read_mesh(s));
  FE_CALL(check_dimensions(s));
  FE_CALL(name_outputs(s));
  FE_CALL(fe_bcs_create(c, s->m, &s->bcs));
  FE_CALL(pick_backend(s));
  s->has_advection = c->n_velocity > 0 && c->advection == FE_ADVECTION_RK4;
  s->adv_tdep = fe_case_time_dependent_velocity(c);
  s->diff_tdep = fe_case_time_dependent_diffusivity(c);
  s->src_tdep = fe_expr_depends_on_t(c->source);
  s->src_zero = expr_is_zero(c->source);
  s->bc_tdep = s->bcs->time_dependent;
  s->cgo = (struct fe_cg_options){.rtol = c->rtol, .atol = c->atol, .max_iterations = c->max_iterations,
                                  .jacobi = c->preconditioner == FE_PC_JACOBI};
  FE_CALL(alloc_fields(s));
  FE_MALLOC(fe_schedule_max_dumps(&s->sched), &s->dump_times);
  /* every expression once on the mesh: non-finite values are input errors */
  FE_CALL(fe_eval_nodes(c->initial, s->m, c->t_start, s->h_n));
  FE_CALL(fe_eval_diffusivity(c, s->m, c->t_start, s->h_diff));
  if (c->n_velocity) FE_CALL(fe_eval_velocity(c, s->m, c->t_start, s->h_vel));
  if (c->exact) FE_CALL(fe_eval_nodes(c->exact, s->m, c->t_start, s->h_exact));
  FE_CALL(fe_eval_nodes(c->source, s->m, c->t_start, s->h_n2));
  FE_CALL(fe_eval_dirichlet(c, s->m, s->bcs, c->t_start, s->h_d));
  FE_CALL(fe_eval_neumann(c, s->m, s->bcs, c->t_start, s->h_n2));
  return FE_SUCCESS;
}

static void sim_destroy(struct fe_sim *s)
{
  struct fe_op *ops[] = {s->mass, s->adv, s->dlhs, s->drhs};
  for (int i = 0; i < 4; i++) fe_op_destroy(ops[i]);
  struct fe_vec *v[] = {s->T, s->b, s->y, s->k, s->acc, s->x, s->ex, s->prev, s->lumped};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) fe_vec_destroy(v[i]);
  fe_cg_destroy(s->cg);
  fe_cg_destroy(s->cg_mass);
  if (s->be) {
    double *dev[] = {s->vel, s->diff, s->dvals, s->dzero};
    for (int i = 0; i < 4; i++) fe_backend_free(s->be, dev[i]);
    fe_backend_free(s->be, s->indefinite);
  }
  fe_coefficient_programs_destroy(s->cp);
  fe_space_destroy(s->space);
  double *host[] = {s->h_n, s->h_n2, s->h_vel, s->h_diff, s->h_d, s->h_exact, s->dump_times};
  for (size_t i = 0; i < sizeof host / sizeof *host; i++) free(host[i]);
  fe_stat_destroy(s->stat);
  fe_outdir_unlock(s->lock);
  fe_checkpoint_free(&s->restart);
  char *text[] = {s->case_real, s->exact_name,  s->error_name, s->fields_text,
                  s->stat_path, s->series_path, s->saved_path};
  for (size_t i = 0; i < sizeof text / sizeof *text; i++) free(text[i]);
  fe_bcs_destroy(s->bcs);
  if (s->m != s->opt->mesh) fe_mesh_destroy(s->m);
  if (s->c != s->opt->case_data) fe_case_destroy(s->c);
  fe_backend_destroy(s->owned_be);
}

/* Read-only until open_outputs: a run refused before it (bad case, mesh,
 * checkpoint, stat file, names, another case's outputs) leaves nothing behind. */
static int run(struct fe_sim *s)
{
  FE_CALL(setup(s));
  if (s->opt->restart) FE_CALL(check_restart(s));
  if (s->opt->check) {
    print_check(s);
    return FE_SUCCESS;
  }
  FE_CALL(claim_outputs(s));
  FE_CALL(create_operators(s));
  FE_CALL(open_outputs(s));
  FE_CALL(restore(s));
  return time_loop(s);
}

int fe_run(const struct fe_options *o)
{
  struct fe_sim s = {.opt = o, .t_start = fe_wtime()};
  int err = run(&s);
  sim_destroy(&s);
  return err;
}
