/* The split scheme: one function per term, each on vectors it names. */
#include "app/scheme.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/fields.h"
#include "core/error.h"
#include "core/timer.h"

int fe_scheme_advects(const struct fe_case *c)
{
  return fe_case_has_velocity(c) && c->advection != FE_ADVECTION_NONE;
}

int fe_scheme_supg(const struct fe_case *c)
{
  return fe_scheme_advects(c) && c->stabilisation == FE_STABILISATION_SUPG;
}

enum fe_krylov_kind fe_scheme_diffusion_solver(const struct fe_case *c)
{
  const int implicit = fe_scheme_advects(c) && c->advection == FE_ADVECTION_THETA;
  return fe_scheme_supg(c) || implicit ? FE_KRYLOV_BICGSTAB : FE_KRYLOV_CG;
}

/* ---------------------------------------------------------------- set-up */

static void classify_terms(struct fe_scheme *s)
{
  const struct fe_case *c = s->c;
  s->has_advection = fe_scheme_advects(c) && c->advection == FE_ADVECTION_RK4;
  s->implicit_advection = fe_scheme_advects(c) && c->advection == FE_ADVECTION_THETA;
  s->supg = fe_scheme_supg(c);
  s->adv_tdep = s->velocity && fe_velocity_time_dependent(s->velocity);
  s->diff_tdep = fe_case_time_dependent_diffusivity(c);
  s->src_tdep = fe_expr_depends_on_t(c->source);
  s->src_zero = fe_expr_is_zero(c->source);
  s->quadrature = c->loads == FE_LOADS_QUADRATURE;
  s->bc_tdep = s->bcs->time_dependent;
  s->absorbs = c->absorption != NULL;
  s->absorption_tdep = s->absorbs && fe_expr_depends_on_t(c->absorption);
  s->solver_options = (struct fe_cg_options){.rtol = c->rtol,
                                             .atol = c->atol,
                                             .max_iterations = c->max_iterations,
                                             .jacobi = c->preconditioner == FE_PC_JACOBI};
}

static int create_coefficients(struct fe_scheme *s)
{
  const long nd = s->bcs->n_dirichlet + 1;
  const int d = s->m->dim;
  FE_CALL(fe_vec_create(s->be, (size_t)s->m->n_nodes * d, &s->vel));
  FE_CALL(
      fe_backend_alloc(s->be, (size_t)s->m->n_cells * FE_NSYM(d) * sizeof(double), NULL, &s->diff));
  FE_CALL(fe_backend_alloc(s->be, (size_t)nd * sizeof(double), NULL, &s->dvals));
  double *zeros;
  FE_CALLOC(nd, &zeros);
  const int err = fe_backend_alloc(s->be, (size_t)nd * sizeof(double), zeros, &s->dzero);
  free(zeros);
  FE_CALL(err);
  const int zero = 0;
  FE_CALL(fe_backend_alloc(s->be, sizeof zero, &zero, &s->indefinite));
  s->coef = (struct fe_coefficients){.diffusivity = s->diff,
                                     .velocity = s->vel->a,
                                     .uniform_diffusivity = s->cp->uniform_diffusivity};
  if (!s->absorbs) return FE_SUCCESS;
  const long cells = s->cp->uniform_absorption ? 1 : s->m->n_cells;
  FE_CALL(fe_vec_create(s->be, (size_t)cells, &s->lambda));
  s->coef.lambda = s->lambda->a;
  s->coef.uniform_lambda = s->cp->uniform_absorption;
  return FE_SUCCESS;
}

/* The vectors of the terms the case has. */
static int create_vectors(struct fe_scheme *s)
{
  const int adv = s->has_advection, source = !s->src_zero, neumann = s->bcs->n_neumann_facets > 0;
  const int fct = adv && s->c->stabilisation == FE_STABILISATION_FCT;
  const struct {
    struct fe_vec **v;
    int needed;
  } list[] = {{&s->tracer, 1},
              {&s->rhs, 1},
              {&s->boundary, s->bcs->n_dirichlet > 0},
              {&s->source_load, source},
              {&s->neumann_load, neumann},
              {&s->source_values, source && !s->quadrature},
              {&s->load_old, source || neumann},
              {&s->rk4_stage, adv && !fct},
              {&s->rk4_rate, adv},
              {&s->rk4_sum, adv && !fct},
              {&s->ssp_stage, fct},
              {&s->ssp_euler, fct},
              {&s->diffusion.solution, 1},
              {&s->mass.solution, adv}};
  for (size_t i = 0; i < sizeof list / sizeof *list; i++)
    if (list[i].needed) FE_CALL(fe_space_vec_create(s->space, list[i].v));
  return FE_SUCCESS;
}

/* strategy="auto": the strategy whose apply of the diffusion operator is fastest here. */
static int pick_strategy(struct fe_scheme *s, int verbosity)
{
  double sec[FE_STRATEGY_AUTO];
  const struct fe_form lhs = {
      .mass = 1.0,
      .lumped = s->c->mass == FE_MASS_LUMPED,
      .diffusion = s->c->theta * (s->c->cfl > 0 ? s->c->dt_max : s->c->dt)}; /* cfl: the longest */
  FE_CALL(fe_coefficients_diffusivity(s->cp, s->c->t_start, s->diff));
  FE_CALL(fe_operator_pick(s->space, &lhs, &s->coef, &s->strategy, sec));
  if (verbosity > 0)
    fprintf(stderr,
            "fesim: note: assembly auto: %s (time per apply: lma %.3g ms, addto %.3g ms, matfree "
            "%.3g ms)\n",
            fe_strategy_name(s->strategy), 1e3 * sec[FE_STRATEGY_LMA], 1e3 * sec[FE_STRATEGY_ADDTO],
            1e3 * sec[FE_STRATEGY_MATFREE]);
  return FE_SUCCESS;
}

/* The mass operator is assembled once; advection and diffusion when their coefficients or
 * step length change. */
static int create_operators(struct fe_scheme *s)
{
  const enum fe_krylov_kind diffusion_kind = fe_scheme_diffusion_solver(s->c);
  const enum fe_krylov_kind mass_kind = s->supg ? FE_KRYLOV_BICGSTAB : FE_KRYLOV_CG;
  FE_CALL(fe_operator_create(s->space, s->strategy, &s->diffusion.op));
  FE_CALL(fe_operator_create(s->space, s->strategy, &s->diffusion_rhs));
  FE_CALL(fe_krylov_create(s->tracer, diffusion_kind, &s->diffusion.solver));
  s->diffusion.what = s->implicit_advection ? "advection-diffusion" : "diffusion";
  if (s->has_advection || (!s->src_zero && !s->quadrature)) {
    FE_CALL(fe_operator_create(s->space, s->strategy, &s->mass.op));
    if (!s->supg) { /* else at the times it is used: it depends on u and D */
      struct fe_form mass = {.mass = 1.0, .lumped = s->c->mass == FE_MASS_LUMPED};
      FE_CALL(fe_operator_assemble(s->mass.op, &mass, &s->coef));
    }
  }
  if (s->has_advection) {
    FE_CALL(fe_operator_create(s->space, s->strategy, &s->advection));
    FE_CALL(fe_krylov_create(s->tracer, mass_kind, &s->mass.solver));
    s->mass.what = "advection mass";
    if (s->c->stabilisation == FE_STABILISATION_FCT)
      FE_CALL(fe_fct_create(s->space, s->c->conservative_advection, &s->fct));
  }
  return FE_SUCCESS;
}

int fe_scheme_create(const struct fe_case *c, const struct fe_bcs *bcs, struct fe_space *space,
                     const struct fe_coefficient_programs *cp, struct fe_velocity *velocity,
                     enum fe_strategy strategy, int verbosity, struct fe_scheme **scheme)
{
  struct fe_scheme *s;
  FE_CALLOC(1, &s);
  *s = (struct fe_scheme){.c = c,
                          .m = space->mesh,
                          .bcs = bcs,
                          .be = space->be,
                          .space = space,
                          .cp = cp,
                          .velocity = velocity};
  s->strategy = strategy;
  s->adv_time = s->diff_time = s->mass_time = s->vel_time = s->kappa_time = NAN;
  classify_terms(s);
  int err = create_coefficients(s);
  if (!err) err = create_vectors(s);
  if (!err && s->strategy == FE_STRATEGY_AUTO) err = pick_strategy(s, verbosity);
  if (!err) err = create_operators(s);
  if (err) {
    fe_scheme_destroy(s);
    return err;
  }
  *scheme = s;
  return FE_SUCCESS;
}

void fe_scheme_destroy(struct fe_scheme *s)
{
  if (!s) return;
  struct fe_op *ops[] = {s->mass.op, s->advection, s->diffusion.op, s->diffusion_rhs};
  for (int i = 0; i < 4; i++) fe_op_destroy(ops[i]);
  fe_krylov_destroy(s->mass.solver);
  fe_krylov_destroy(s->diffusion.solver);
  fe_fct_destroy(s->fct);
  struct fe_vec *v[] = {s->tracer,       s->rhs,           s->boundary,      s->source_load,
                        s->neumann_load, s->source_values, s->load_old,      s->rk4_stage,
                        s->rk4_rate,     s->rk4_sum,       s->mass.solution, s->diffusion.solution,
                        s->lambda,       s->ssp_stage,     s->ssp_euler,     s->vel};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) fe_vec_destroy(v[i]);
  double *dev[] = {s->diff, s->dvals, s->dzero};
  for (int i = 0; i < 3; i++) fe_backend_free(s->be, dev[i]);
  fe_backend_free(s->be, s->indefinite);
  free(s);
}

struct fe_assembly_times fe_scheme_assembly_times(const struct fe_scheme *s)
{
  struct fe_assembly_times sum = {0};
  const struct fe_op *ops[] = {s->mass.op, s->advection, s->diffusion.op, s->diffusion_rhs};
  for (int i = 0; i < 4; i++)
    if (ops[i]) {
      const struct fe_assembly_times *at = fe_operator_times(ops[i]);
      sum.local += at->local;
      sum.global += at->global;
      sum.count += at->count;
    }
  return sum;
}

/* ---------------------------------------------------------------- evaluations */

static void evaluating(struct fe_scheme *s, enum fe_evaluated what, double t)
{
  for (int i = 0; i < s->n_evaluated; i++)
    if (s->evaluated[i].what == what && s->evaluated[i].t == t) return;
  if (s->n_evaluated < FE_MAX_EVALUATIONS)
    s->evaluated[s->n_evaluated++] = (struct fe_evaluation){what, t};
}

static int host_work(const struct fe_scheme *s, double **work)
{
  FE_MALLOC(fe_eval_max_values(s->m, s->bcs), work);
  return FE_SUCCESS;
}

/* The first non-finite value is an input error naming the expression, where the case file
 * has it, the node or cell and the time (fe_eval_*); the values themselves are not kept. */
static int evaluate_on_host(const struct fe_scheme *s, const struct fe_evaluation *e, double *work)
{
  const struct fe_case *c = s->c;
  switch (e->what) {
  case FE_EVAL_VELOCITY: return fe_velocity_host(s->velocity, e->t, work);
  case FE_EVAL_DIFFUSIVITY: return fe_eval_diffusivity(c, s->m, e->t, work);
  case FE_EVAL_SOURCE: return fe_eval_source(c, s->m, e->t, work);
  case FE_EVAL_NEUMANN: return fe_eval_neumann_flux(c, s->m, s->bcs, e->t, work);
  case FE_EVAL_DIRICHLET: return fe_eval_dirichlet(c, s->m, s->bcs, e->t, work);
  case FE_EVAL_EXACT: return fe_eval_nodes(c->exact, s->m, e->t, work);
  case FE_EVAL_ABSORPTION: return fe_eval_absorption(c, s->m, e->t, work);
  }
  return FE_SUCCESS;
}

int fe_scheme_name_non_finite(const struct fe_scheme *s)
{
  double *work;
  FE_CALL(host_work(s, &work));
  int err = FE_SUCCESS;
  for (int i = 0; !err && i < s->n_evaluated; i++)
    err = evaluate_on_host(s, &s->evaluated[i], work);
  free(work);
  return err;
}

int fe_scheme_exact(struct fe_scheme *s, double t, struct fe_vec *exact)
{
  evaluating(s, FE_EVAL_EXACT, t);
  return fe_coefficients_exact(s->cp, t, exact->a);
}

int fe_scheme_check_diffusivity(struct fe_scheme *s, long step)
{
  int count;
  FE_CALL(s->be->vec->to_host(s->be, &count, s->indefinite, sizeof count));
  double cells = count; /* over the processes */
  FE_CALL(fe_comm_allreduce(s->be->comm, &cells, 1, FE_REDUCE_SUM));
  const int n = s->n_diff_checked, bad = (int)cells;
  s->n_diff_checked = 0;
  if (!bad) return FE_SUCCESS;
  double *work;
  FE_CALL(host_work(s, &work));
  int err = FE_SUCCESS;
  for (int k = 0; !err && k < n; k++)
    err = fe_eval_diffusivity(s->c, s->m, s->diff_checked[k], work);
  free(work);
  FE_CALL(err);
  char shown[FE_QUOTE_SIZE];
  FE_RAISE(FE_ERR_INPUT,
           "%s:%d: <diffusivity>: not positive semi-definite in %d cells during step %ld",
           fe_path_shown(s->c->path, shown, sizeof shown), s->c->diffusivity_line, bad, step);
}

/* ---------------------------------------------------------------- boundary values and solves */

/* v = values (backend array in Dirichlet-node order) on the Dirichlet nodes */
static int set_on_dirichlet(struct fe_scheme *s, const double *values, struct fe_vec *v)
{
  if (!s->bcs->n_dirichlet) return FE_SUCCESS;
  return fe_vec_set_indexed(v, (size_t)s->bcs->n_dirichlet, s->space->dirichlet, values);
}

/* *g = g(t) in Dirichlet-node order, on the backend: evaluated once when it does not depend on t */
static int dirichlet_values(struct fe_scheme *s, double t, const double **g)
{
  *g = s->dvals;
  if (!s->bcs->n_dirichlet || (!s->bc_tdep && s->dvals_ready)) return FE_SUCCESS;
  evaluating(s, FE_EVAL_DIRICHLET, t);
  FE_CALL(fe_coefficients_dirichlet(s->cp, t, s->dvals));
  s->dvals_ready = 1;
  return FE_SUCCESS;
}

/* v = g(t) on the Dirichlet nodes */
static int set_dirichlet(struct fe_scheme *s, double t, struct fe_vec *v)
{
  const double *g;
  FE_CALL(dirichlet_values(s, t, &g));
  return set_on_dirichlet(s, g, v);
}

/* sys->op sys->solution = rhs from the first guess in sys->solution; a failure at time t is
 * named after the system, and after the expression when values are not finite. */
static int solve(struct fe_scheme *s, struct fe_system *sys, const struct fe_vec *rhs, double t)
{
  struct fe_cg_result r;
  FE_CALL(fe_backend_sync(s->be)); /* the solve's own time, not the work queued before it */
  const double start = fe_wtime();
  const struct fe_cg_options *o = &s->solver_options;
  const char *name = fe_krylov_name(fe_krylov_kind(sys->solver));
  FE_CALL(fe_krylov_solve(sys->solver, sys->op, rhs, sys->solution, o, &r));
  s->t_cg += fe_wtime() - start;
  sys->iterations += r.iterations;
  if (r.converged) return FE_SUCCESS;
  char last[64] = "";
  int finite = 1;
  for (int k = (r.iterations < 2 ? r.iterations : 2); k >= 0; k--) { /* oldest first */
    snprintf(last + strlen(last), sizeof last - strlen(last), " %.3e", r.history[k]);
    finite &= isfinite(r.history[k]);
  }
  if (!finite || !isfinite(r.rhs_norm)) FE_CALL(fe_scheme_name_non_finite(s));
  if (!finite || !isfinite(r.rhs_norm))
    FE_RAISE(
        FE_ERR_NUMERICAL,
        "the %s solve broke down with non-finite values at step %ld (t = %.9g): %d %s iterations, "
        "last residuals%s, right-hand side norm %.3e; the scheme is unstable at this dt: try a "
        "smaller dt",
        sys->what, s->step, t, r.iterations, name, last, r.rhs_norm);
  FE_RAISE(
      FE_ERR_NUMERICAL,
      "the %s solve did not converge at step %ld (t = %.9g): %d %s iterations, last residuals%s, "
      "target max(rtol %.1e * %.3e, atol %.1e); try a smaller dt or a larger <solver "
      "max_iterations>",
      sys->what, s->step, t, r.iterations, name, last, o->rtol, r.rhs_norm, o->atol);
}

/* ---------------------------------------------------------------- coefficients at a time */

/* The form's options of the advection term: SUPG (Fluidity's nu_scale and nu_bar with
 * stabilisation="supg", none without) and the conservative form's beta. */
static void advection_options(const struct fe_scheme *s, struct fe_form *f)
{
  f->supg = s->supg ? s->c->nu_scale : 0;
  f->nu_bar = (int)s->c->nu_bar;
  f->conservative = s->c->conservative_advection;
}

/* s->vel = u(t) on the backend; evaluated once when u does not depend on t. */
static int velocity_at(struct fe_scheme *s, double t)
{
  if (t == s->vel_time || (!s->adv_tdep && !isnan(s->vel_time))) return FE_SUCCESS;
  evaluating(s, FE_EVAL_VELOCITY, t);
  FE_CALL(fe_velocity_at(s->velocity, s->cp, t, s->vel));
  s->vel_time = t;
  return FE_SUCCESS;
}

/* s->diff = D(t) on the backend, once when D does not depend on t; a time-dependent one is
 * checked where it is evaluated (read with the stat row: fe_scheme_check_diffusivity). */
static int diffusivity_at(struct fe_scheme *s, double t)
{
  if (t == s->kappa_time || (!s->diff_tdep && !isnan(s->kappa_time))) return FE_SUCCESS;
  evaluating(s, FE_EVAL_DIFFUSIVITY, t);
  FE_CALL(fe_coefficients_diffusivity(s->cp, t, s->diff));
  if (s->diff_tdep) {
    const long m = s->coef.uniform_diffusivity ? 1 : s->m->n_cells;
    FE_CALL(fe_space_count_indefinite(s->space, m, s->diff, s->indefinite));
    if (s->n_diff_checked < 4) s->diff_checked[s->n_diff_checked++] = t;
  }
  s->kappa_time = t;
  return FE_SUCCESS;
}

/* With SUPG the mass M + tau C^T depends on u and D: assembled at t when they change.
 * Without, it was assembled once. */
static int assemble_mass(struct fe_scheme *s, double t)
{
  if (!s->supg) return FE_SUCCESS;
  const int tdep = s->adv_tdep || s->diff_tdep;
  if (t == s->mass_time || (!tdep && !isnan(s->mass_time))) return FE_SUCCESS;
  FE_CALL(velocity_at(s, t));
  FE_CALL(diffusivity_at(s, t));
  struct fe_form mass = {.mass = 1.0, .lumped = s->c->mass == FE_MASS_LUMPED};
  advection_options(s, &mass);
  FE_CALL(fe_operator_assemble(s->mass.op, &mass, &s->coef));
  s->mass_time = t;
  return FE_SUCCESS;
}

/* ---------------------------------------------------------------- diffusion */

/* The absorption rate at t on the backend; a negative value there is an input error named on
 * the host (fe_eval_absorption), a non-finite one is found with the tracer's. */
static int evaluate_absorption(struct fe_scheme *s, double t)
{
  double lo, hi;
  evaluating(s, FE_EVAL_ABSORPTION, t);
  FE_CALL(fe_coefficients_absorption(s->cp, t, s->lambda->a));
  FE_CALL(fe_vec_minmax(s->lambda, &lo, &hi));
  if (lo >= 0 || isnan(lo)) return FE_SUCCESS;
  double *work;
  FE_CALL(host_work(s, &work));
  const int err = fe_eval_absorption(s->c, s->m, t, work);
  free(work);
  FE_CALL(err);
  FE_RAISE(FE_ERR_INPUT, "<absorption>: %g on the backend at t = %g, where the host finds it >= 0",
           lo, t);
}

/* The operators of the diffusion pair read u when advection is in them or SUPG tests them. */
static int diffusion_reads_velocity(const struct fe_scheme *s)
{
  return s->implicit_advection || s->supg;
}

static int assemble_diffusion(struct fe_scheme *s, double tau, double tmid)
{
  const int tdep =
      s->diff_tdep || s->absorption_tdep || (diffusion_reads_velocity(s) && s->adv_tdep);
  const int retime = tdep && tmid != s->diff_time;
  if (tau == s->diff_tau && !retime) return FE_SUCCESS;
  if (s->absorbs && (s->absorption_tdep || s->diff_tau == 0)) FE_CALL(evaluate_absorption(s, tmid));
  FE_CALL(diffusivity_at(s, tmid));
  if (diffusion_reads_velocity(s)) FE_CALL(velocity_at(s, tmid));
  const double th = s->c->theta;
  const int lumped = s->c->mass == FE_MASS_LUMPED;
  /* (M + theta tau (K + Lambda + C)) T1 = (M - (1 - theta) tau (K + Lambda + C)) T0 + loads,
   * C with advection="theta"; with SUPG M and C tested with N + tau_s u . grad N */
  const double absorb = s->absorbs ? 1.0 : 0.0, adv = s->implicit_advection ? 1.0 : 0.0;
  struct fe_form lhs = {.mass = 1.0,
                        .lumped = lumped,
                        .diffusion = th * tau,
                        .advection = adv * th * tau,
                        .absorption = absorb * th * tau};
  struct fe_form rhs = {.mass = 1.0,
                        .lumped = lumped,
                        .diffusion = -(1 - th) * tau,
                        .advection = -adv * (1 - th) * tau,
                        .absorption = -absorb * (1 - th) * tau};
  advection_options(s, &lhs);
  advection_options(s, &rhs);
  FE_CALL(fe_operator_assemble(s->diffusion.op, &lhs, &s->coef));
  FE_CALL(fe_operator_assemble(s->diffusion_rhs, &rhs, &s->coef));
  s->diff_tau = tau;
  s->diff_time = tmid;
  return FE_SUCCESS;
}

/* out = what the source or the Neumann flux (what) gives at t: the Neumann load; the source
 * load by quadrature, tested with N + tau u . grad N with SUPG (u and D at the substep's
 * midpoint, as the mass matrix), or the source at the nodes (interpolated: the mass matrix
 * makes it a load). */
static int load_at(struct fe_scheme *s, enum fe_evaluated what, double t, double *out)
{
  evaluating(s, what, t);
  if (what == FE_EVAL_NEUMANN) return fe_coefficients_neumann(s->cp, t, out);
  if (!s->quadrature) return fe_coefficients_source(s->cp, t, out);
  struct fe_form test = {.uniform_diffusivity = s->coef.uniform_diffusivity};
  advection_options(s, &test); /* SUPG: the mass matrix's tau */
  return fe_coefficients_source_load(s->cp, t, &test, s->diff, s->vel->a, out);
}

/* out = theta L(t1) + (1 - theta) L(t0), L what load_at gives; L(t1) alone when it does not
 * depend on t or theta is 1. */
static int theta_load(struct fe_scheme *s, enum fe_evaluated what, int tdep, double t0, double t1,
                      struct fe_vec *out)
{
  const double th = s->c->theta;
  FE_CALL(load_at(s, what, t1, out->a));
  if (!tdep || th == 1) return FE_SUCCESS;
  FE_CALL(load_at(s, what, t0, s->load_old->a));
  return fe_vec_axpby(out, 1 - th, s->load_old, th);
}

/* source_load = the substep's source load: by quadrature, or M f_h from the nodal values
 * (interpolated; with SUPG M + tau C^T, f tested with N + tau u . grad N, u and D at the
 * midpoint tmid).  Kept while it does not change: f independent of t and, with SUPG, u and D
 * too. */
static int source_load(struct fe_scheme *s, double t0, double t1)
{
  const double tmid = 0.5 * (t0 + t1);
  if (s->source_kept) return FE_SUCCESS;
  if (s->quadrature && s->supg) {
    FE_CALL(velocity_at(s, tmid));
    FE_CALL(diffusivity_at(s, tmid));
  }
  if (s->quadrature) {
    FE_CALL(theta_load(s, FE_EVAL_SOURCE, s->src_tdep, t0, t1, s->source_load));
  } else {
    FE_CALL(theta_load(s, FE_EVAL_SOURCE, s->src_tdep, t0, t1, s->source_values));
    FE_CALL(assemble_mass(s, tmid));
    FE_CALL(fe_op_apply_full(s->mass.op, s->source_values, s->source_load));
  }
  s->source_kept = !s->src_tdep && !(s->supg && (s->adv_tdep || s->diff_tdep));
  return FE_SUCCESS;
}

/* rhs += tau * (theta F(t1) + (1 - theta) F(t0)) for the source and Neumann loads, each
 * evaluated once when it does not change in time. */
static int add_loads(struct fe_scheme *s, double t0, double t1, double tau)
{
  if (!s->src_zero) {
    FE_CALL(source_load(s, t0, t1));
    FE_CALL(fe_vec_axpy(s->rhs, tau, s->source_load));
  }
  if (s->bcs->n_neumann_facets) {
    if (!s->neumann_kept)
      FE_CALL(theta_load(s, FE_EVAL_NEUMANN, s->bc_tdep, t0, t1, s->neumann_load));
    s->neumann_kept = !s->bc_tdep;
    FE_CALL(fe_vec_axpy(s->rhs, tau, s->neumann_load));
  }
  return FE_SUCCESS;
}

/* Theta scheme from t0 to t1 = t0 + tau:
 * (M + theta tau K) T1 = (M - (1 - theta) tau K) T0 + loads, T1 = g(t1) on Dirichlet nodes. */
static int diffuse(struct fe_scheme *s, double t0, double tau)
{
  const double t1 = t0 + tau, start = fe_wtime();
  struct fe_vec *x = s->diffusion.solution;
  FE_CALL(assemble_diffusion(s, tau, 0.5 * (t0 + t1)));
  FE_CALL(fe_op_apply_full(s->diffusion_rhs, s->tracer, s->rhs));
  FE_CALL(add_loads(s, t0, t1, tau));
  const double *g;
  FE_CALL(dirichlet_values(s, t1, &g));
  if (s->bcs->n_dirichlet) {
    FE_CALL(set_on_dirichlet(s, g, s->boundary));
    FE_CALL(fe_op_lift(s->diffusion.op, -1.0, s->boundary, s->rhs)); /* known values to the right */
    FE_CALL(set_on_dirichlet(s, g, s->rhs));
  }
  FE_CALL(fe_vec_copy(s->tracer, x));
  FE_CALL(set_on_dirichlet(s, g, x));
  FE_CALL(solve(s, &s->diffusion, s->rhs, t1));
  FE_CALL(fe_vec_copy(x, s->tracer));
  s->t_diff += fe_wtime() - start;
  return FE_SUCCESS;
}

/* ---------------------------------------------------------------- advection */

static int assemble_advection(struct fe_scheme *s, double t)
{
  FE_CALL(assemble_mass(s, t));
  FE_CALL(velocity_at(s, t)); /* also when C(t) is kept: the FCT limiter reads u(t) */
  const int tdep = s->adv_tdep || (s->supg && s->diff_tdep);
  if (t == s->adv_time || (!tdep && !isnan(s->adv_time))) return FE_SUCCESS;
  if (s->supg) FE_CALL(diffusivity_at(s, t));
  struct fe_form adv = {.advection = -1.0}; /* M dT/dt = -C T; SUPG: -(C + S) */
  advection_options(s, &adv);
  FE_CALL(fe_operator_assemble(s->advection, &adv, &s->coef));
  s->adv_time = t;
  return FE_SUCCESS;
}

/* rate = M^-1 (-C X) on the interior, 0 on Dirichlet nodes; the mass solve starts from its
 * last solution. */
static int advection_rate(struct fe_scheme *s, double t, const struct fe_vec *X,
                          struct fe_vec *rate)
{
  FE_CALL(assemble_advection(s, t));
  FE_CALL(fe_op_apply_full(s->advection, X, s->rhs));
  FE_CALL(set_on_dirichlet(s, s->dzero, s->rhs));
  FE_CALL(solve(s, &s->mass, s->rhs, t));
  return fe_vec_copy(s->mass.solution, rate);
}

/* Classical RK4 over [t0, t0 + h]: stage i at T + c_i h k_(i-1) with its boundary values. */
static int advect(struct fe_scheme *s, double t0, double h)
{
  static const double c[4] = {0, 0.5, 0.5, 1}, w[4] = {1, 2, 2, 1};
  const double start = fe_wtime();
  FE_CALL(fe_vec_copy(s->tracer, s->rk4_sum));
  FE_CALL(fe_vec_set(s->mass.solution,
                     0.0)); /* the first guess of every step: restarts reproduce runs */
  for (int i = 0; i < 4; i++) {
    const struct fe_vec *X = s->tracer;
    if (i > 0) {
      FE_CALL(fe_vec_copy(s->tracer, s->rk4_stage));
      FE_CALL(fe_vec_axpy(s->rk4_stage, c[i] * h, s->rk4_rate));
      FE_CALL(set_dirichlet(s, t0 + c[i] * h, s->rk4_stage));
      X = s->rk4_stage;
    }
    FE_CALL(advection_rate(s, t0 + c[i] * h, X, s->rk4_rate));
    FE_CALL(fe_vec_axpy(s->rk4_sum, w[i] * h / 6, s->rk4_rate));
  }
  FE_CALL(fe_vec_copy(s->rk4_sum, s->tracer));
  FE_CALL(set_dirichlet(s, t0 + h, s->tracer));
  s->t_adv += fe_wtime() - start;
  return FE_SUCCESS;
}

/* Shu & Osher's SSP-RK3 (J. Comput. Phys. 77, 1988) over [t0, t0 + h], each stage
 * a limited forward-Euler step (assembly/fct.h) from the Galerkin rate at its time, mixed
 * with the step's start: convex combinations of bounded steps, so the step is bounded too.
 * The low-order Courant number is measured in the first stage when the velocity changes. */
static int advect_fct(struct fe_scheme *s, double t0, double h)
{
  static const double at[3] = {0, 1, 0.5}, keep[3] = {0, 0.75, 1.0 / 3}, ends[3] = {1, 0.5, 1};
  const double start = fe_wtime();
  const int lumped = s->c->mass == FE_MASS_LUMPED;
  const int measure = s->adv_tdep || isnan(s->adv_time);
  FE_CALL(fe_vec_set(s->mass.solution, 0.0)); /* as advect: restarts reproduce runs */
  FE_CALL(fe_vec_copy(s->tracer, s->ssp_stage));
  for (int i = 0; i < 3; i++) {
    double courant = 0;
    if (lumped) /* the fluxes need no Galerkin rate, only u(t) */
      FE_CALL(assemble_advection(s, t0 + at[i] * h));
    else
      FE_CALL(advection_rate(s, t0 + at[i] * h, s->ssp_stage, s->rk4_rate));
    FE_CALL(fe_fct_step(s->fct, s->vel->a, s->ssp_stage, lumped ? NULL : s->rk4_rate, h,
                        s->ssp_euler, i == 0 && measure ? &courant : NULL));
    s->fct_courant = courant > s->fct_courant ? courant : s->fct_courant;
    if (keep[i] != 0) FE_CALL(fe_vec_axpby(s->ssp_euler, keep[i], s->tracer, 1 - keep[i]));
    FE_CALL(set_dirichlet(s, t0 + ends[i] * h, s->ssp_euler));
    struct fe_vec *next = s->ssp_euler;
    s->ssp_euler = s->ssp_stage;
    s->ssp_stage = next;
  }
  FE_CALL(fe_vec_copy(s->ssp_stage, s->tracer));
  s->t_adv += fe_wtime() - start;
  return FE_SUCCESS;
}

/* ---------------------------------------------------------------- the step */

static int advection_step(struct fe_scheme *s, double t0, double h)
{
  return s->fct ? advect_fct(s, t0, h) : advect(s, t0, h);
}

static int split_step(struct fe_scheme *s, double t0, double h)
{
  if (!s->has_advection) return diffuse(s, t0, h);
  if (s->c->splitting == FE_SPLIT_LIE) {
    FE_CALL(advection_step(s, t0, h));
    return diffuse(s, t0, h);
  }
  FE_CALL(diffuse(s, t0, 0.5 * h));
  FE_CALL(advection_step(s, t0, h));
  return diffuse(s, t0 + 0.5 * h, 0.5 * h);
}

int fe_scheme_step(struct fe_scheme *s, long step, double t0, double h)
{
  s->step = step;
  s->n_evaluated = 0;
  s->mass.iterations = s->diffusion.iterations = 0;
  FE_CALL(split_step(s, t0, h));
  s->mass.total_iterations += s->mass.iterations;
  s->diffusion.total_iterations += s->diffusion.iterations;
  return FE_SUCCESS;
}
