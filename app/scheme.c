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
  s->quadrature = c->loads == FE_LOADS_QUADRATURE;
  s->solver_options = (struct fe_cg_options){.rtol = c->rtol,
                                             .atol = c->atol,
                                             .max_iterations = c->max_iterations,
                                             .jacobi = c->preconditioner == FE_PC_JACOBI};
  for (int k = 0; k < s->n_tracers; k++) {
    struct fe_scheme_tracer *x = &s->tracers[k];
    const struct fe_tracer *tr = x->tr;
    x->diff_tdep = fe_tracer_time_dependent_diffusivity(tr);
    x->src_tdep = fe_expr_depends_on_t(tr->source);
    x->src_zero = fe_expr_is_zero(tr->source);
    x->bc_tdep = x->bcs->time_dependent;
    x->absorbs = tr->absorption != NULL;
    x->absorption_tdep = x->absorbs && fe_expr_depends_on_t(tr->absorption);
  }
}

static int create_coefficients(struct fe_scheme *s, struct fe_scheme_tracer *x)
{
  const long nd = x->bcs->n_dirichlet + 1;
  const int d = s->m->dim;
  FE_CALL(
      fe_backend_alloc(s->be, (size_t)s->m->n_cells * FE_NSYM(d) * sizeof(double), NULL, &x->diff));
  FE_CALL(fe_backend_alloc(s->be, (size_t)nd * sizeof(double), NULL, &x->dvals));
  double *zeros;
  FE_CALLOC(nd, &zeros);
  const int err = fe_backend_alloc(s->be, (size_t)nd * sizeof(double), zeros, &x->dzero);
  free(zeros);
  FE_CALL(err);
  const int zero = 0;
  FE_CALL(fe_backend_alloc(s->be, sizeof zero, &zero, &x->indefinite));
  x->kappa_time = NAN;
  x->lambda_time = NAN;
  x->coef = (struct fe_coefficients){.diffusivity = x->diff,
                                     .velocity = s->vel->a,
                                     .uniform_diffusivity = x->cp->uniform_diffusivity};
  if (!x->absorbs) return FE_SUCCESS;
  const long cells = x->cp->uniform_absorption ? 1 : s->m->n_cells;
  FE_CALL(fe_vec_create(s->be, (size_t)cells, &x->lambda));
  x->coef.lambda = x->lambda->a;
  x->coef.uniform_lambda = x->cp->uniform_absorption;
  return FE_SUCCESS;
}

/* The vectors of the terms the tracer has. */
static int create_vectors(struct fe_scheme *s, struct fe_scheme_tracer *x)
{
  const int adv = s->has_advection, source = !x->src_zero, neumann = x->bcs->has_neumann;
  const int fct = adv && s->c->stabilisation == FE_STABILISATION_FCT;
  const struct {
    struct fe_vec **v;
    int needed;
  } list[] = {{&x->tracer, 1},
              {&x->rhs, 1},
              {&x->boundary, x->bcs->has_dirichlet},
              {&x->source_load, source},
              {&x->neumann_load, neumann},
              {&x->source_values, source && !s->quadrature},
              {&x->load_old, source || neumann},
              {&x->rk4_stage, adv && !fct},
              {&x->rk4_sum, adv && !fct},
              {&x->ssp_stage, fct},
              {&x->ssp_euler, fct},
              {&x->galerkin_rate, fct && s->c->mass != FE_MASS_LUMPED},
              {&x->diffusion.solution, 1},
              {&x->mass.solution, adv}};
  for (size_t i = 0; i < sizeof list / sizeof *list; i++)
    if (list[i].needed) FE_CALL(fe_space_vec_create(x->space, list[i].v));
  return FE_SUCCESS;
}

/* strategy="auto": the strategy whose apply of the first tracer's diffusion operator is
 * fastest here. */
static int pick_strategy(struct fe_scheme *s, int verbosity)
{
  struct fe_scheme_tracer *x = &s->tracers[0];
  double sec[FE_STRATEGY_AUTO];
  const struct fe_form lhs = {
      .mass = 1.0,
      .lumped = s->c->mass == FE_MASS_LUMPED,
      .diffusion = s->c->theta * (s->c->cfl > 0 ? s->c->dt_max : s->c->dt)}; /* cfl: the longest */
  FE_CALL(fe_coefficients_diffusivity(x->cp, s->c->t_start, x->diff));
  FE_CALL(fe_operator_pick(x->space, &lhs, &x->coef, &s->strategy, sec));
  if (verbosity > 0)
    fprintf(stderr,
            "fesim: note: assembly auto: %s (time per apply: lma %.3g ms, addto %.3g ms, matfree "
            "%.3g ms)\n",
            fe_strategy_name(s->strategy), 1e3 * sec[FE_STRATEGY_LMA], 1e3 * sec[FE_STRATEGY_ADDTO],
            1e3 * sec[FE_STRATEGY_MATFREE]);
  return FE_SUCCESS;
}

int fe_scheme_coincide(const struct fe_case *c, enum fe_operator_kind kind,
                       const struct fe_tracer *a, const struct fe_bcs *ba,
                       const struct fe_tracer *b, const struct fe_bcs *bb, long n_nodes)
{
  if (memcmp(ba->is_dirichlet, bb->is_dirichlet, (size_t)n_nodes)) return 0;
  const int diffusivity = kind == FE_OPERATOR_DIFFUSION || fe_scheme_supg(c);
  if (diffusivity && !fe_tracer_same_diffusivity(a, b)) return 0;
  return kind != FE_OPERATOR_DIFFUSION || fe_tracer_same_absorption(a, b);
}

static int coincide(const struct fe_scheme *s, enum fe_operator_kind kind,
                    const struct fe_scheme_tracer *a, const struct fe_scheme_tracer *b)
{
  return a->space == b->space &&
         fe_scheme_coincide(s->c, kind, a->tr, a->bcs, b->tr, b->bcs, s->m->n_nodes);
}

static struct fe_assembled **operator_of(struct fe_scheme_tracer *x, enum fe_operator_kind kind)
{
  return kind == FE_OPERATOR_MASS        ? &x->mass_op
         : kind == FE_OPERATOR_ADVECTION ? &x->advection
                                         : &x->diffusion_pair;
}

/* Tracer k's operator of this kind: an earlier tracer's where their coefficients coincide,
 * else a new one (with its right-hand operator for the diffusion pair). */
static int share_or_create(struct fe_scheme *s, int k, enum fe_operator_kind kind)
{
  struct fe_scheme_tracer *x = &s->tracers[k];
  for (int j = 0; j < k; j++) {
    struct fe_assembled *a = *operator_of(&s->tracers[j], kind);
    if (a && coincide(s, kind, &s->tracers[j], x)) {
      *operator_of(x, kind) = a;
      return FE_SUCCESS;
    }
  }
  struct fe_assembled *a = &s->assembled[s->n_assembled++];
  *a = (struct fe_assembled){.time = NAN};
  FE_CALL(fe_operator_create(x->space, s->strategy, &a->op));
  if (kind == FE_OPERATOR_DIFFUSION) FE_CALL(fe_operator_create(x->space, s->strategy, &a->rhs));
  *operator_of(x, kind) = a;
  return FE_SUCCESS;
}

/* The work arrays of flux-corrected transport, one per space. */
static int fct_of(struct fe_scheme *s, int k)
{
  struct fe_scheme_tracer *x = &s->tracers[k];
  for (int j = 0; j < k; j++)
    if (s->tracers[j].space == x->space) {
      x->fct = s->tracers[j].fct;
      return FE_SUCCESS;
    }
  FE_CALL(fe_fct_create(x->space, s->c->conservative_advection, &s->fcts[s->n_fct]));
  x->fct = s->fcts[s->n_fct++];
  return FE_SUCCESS;
}

/* The mass operator is assembled once; advection and diffusion when their coefficients or
 * step length change.  Each tracer has its own solvers: their iterations and first guesses
 * are its own, as in a run of that tracer alone. */
static int create_operators(struct fe_scheme *s, int k)
{
  struct fe_scheme_tracer *x = &s->tracers[k];
  const enum fe_krylov_kind diffusion_kind = fe_scheme_diffusion_solver(s->c);
  const enum fe_krylov_kind mass_kind = s->supg ? FE_KRYLOV_BICGSTAB : FE_KRYLOV_CG;
  FE_CALL(share_or_create(s, k, FE_OPERATOR_DIFFUSION));
  x->diffusion.op = x->diffusion_pair->op;
  FE_CALL(fe_krylov_create(x->tracer, diffusion_kind, &x->diffusion.solver));
  x->diffusion.what = s->implicit_advection ? "advection-diffusion" : "diffusion";
  if (s->has_advection || (!x->src_zero && !s->quadrature)) {
    FE_CALL(share_or_create(s, k, FE_OPERATOR_MASS));
    x->mass.op = x->mass_op->op;
    if (!s->supg && isnan(x->mass_op->time)) { /* else when used: it depends on u and D */
      struct fe_form mass = {.mass = 1.0, .lumped = s->c->mass == FE_MASS_LUMPED};
      FE_CALL(fe_operator_assemble(x->mass.op, &mass, &x->coef));
      x->mass_op->time = s->c->t_start;
    }
  }
  if (s->has_advection) {
    FE_CALL(share_or_create(s, k, FE_OPERATOR_ADVECTION));
    FE_CALL(fe_krylov_create(x->tracer, mass_kind, &x->mass.solver));
    x->mass.what = "advection mass";
    if (s->c->stabilisation == FE_STABILISATION_FCT) FE_CALL(fct_of(s, k));
  }
  return FE_SUCCESS;
}

static int create(struct fe_scheme *s, int verbosity)
{
  const int n = s->n_tracers;
  FE_CALL(fe_vec_create(s->be, (size_t)s->m->n_nodes * s->m->dim, &s->vel));
  FE_CALL(fe_calloc((size_t)3 * n, sizeof *s->assembled, &s->assembled));
  FE_CALL(fe_calloc((size_t)n, sizeof *s->fcts, &s->fcts));
  FE_CALL(fe_calloc((size_t)n, sizeof *s->unsolved, &s->unsolved));
  for (int i = 0; i < 2; i++) {
    struct fe_scheme_step *st = &s->steps[i];
    FE_CALL(fe_calloc((size_t)FE_MAX_EVALUATIONS * (n + 1), sizeof *st->evaluated, &st->evaluated));
    FE_CALL(fe_calloc((size_t)2 * n, sizeof *st->iterations, &st->iterations));
    if (!s->be->asynchronous) continue;
    FE_CALL(fe_cg_log_create(s->be, FE_SCHEME_LOGGED, &st->log));
    FE_CALL(fe_calloc(FE_SCHEME_LOGGED, sizeof *st->results, &st->results));
    FE_CALL(fe_calloc(FE_SCHEME_LOGGED, sizeof *st->logged, &st->logged));
  }
  s->now = &s->steps[0]; /* what is evaluated before the first step counts as step 0's */
  for (int k = 0; k < n; k++) {
    FE_CALL(create_coefficients(s, &s->tracers[k]));
    FE_CALL(create_vectors(s, &s->tracers[k]));
  }
  if (s->strategy == FE_STRATEGY_AUTO) FE_CALL(pick_strategy(s, verbosity));
  for (int k = 0; k < n; k++) FE_CALL(create_operators(s, k));
  return FE_SUCCESS;
}

int fe_scheme_create(const struct fe_case *c, const struct fe_bcs *const *bcs,
                     struct fe_space *const *spaces,
                     const struct fe_coefficient_programs *const *cps, struct fe_velocity *velocity,
                     enum fe_strategy strategy, int verbosity, struct fe_scheme **scheme)
{
  struct fe_scheme *s;
  FE_CALLOC(1, &s);
  *s = (struct fe_scheme){.c = c,
                          .m = spaces[0]->mesh,
                          .be = spaces[0]->be,
                          .velocity = velocity,
                          .strategy = strategy,
                          .vel_time = NAN};
  int err = fe_calloc((size_t)c->n_tracers, sizeof *s->tracers, &s->tracers);
  if (!err) {
    s->n_tracers = c->n_tracers;
    for (int k = 0; k < c->n_tracers; k++)
      s->tracers[k] = (struct fe_scheme_tracer){
          .tr = &c->tracers[k], .bcs = bcs[k], .space = spaces[k], .cp = cps[k]};
    classify_terms(s);
    err = create(s, verbosity);
  }
  if (err) {
    fe_scheme_destroy(s);
    return err;
  }
  *scheme = s;
  return FE_SUCCESS;
}

int fe_scheme_budget(struct fe_scheme *s, int n_groups, const int *groups,
                     const struct fe_vec *lumped)
{
  const struct fe_bcs **bcs;
  FE_CALLOC(s->n_tracers, &bcs);
  for (int k = 0; k < s->n_tracers; k++) bcs[k] = s->tracers[k].bcs;
  const int advected = s->has_advection || s->implicit_advection;
  const int err = fe_budget_create(s->c, s->tracers[0].space, n_groups, groups, bcs, lumped,
                                   advected, &s->budget);
  free(bcs);
  return err;
}

static void tracer_destroy(const struct fe_backend *be, struct fe_scheme_tracer *x)
{
  fe_krylov_destroy(x->mass.solver);
  fe_krylov_destroy(x->diffusion.solver);
  struct fe_vec *v[] = {x->tracer,        x->rhs,           x->boundary,      x->source_load,
                        x->neumann_load,  x->source_values, x->load_old,      x->rk4_stage,
                        x->galerkin_rate, x->rk4_sum,       x->mass.solution, x->diffusion.solution,
                        x->lambda,        x->ssp_stage,     x->ssp_euler};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) fe_vec_destroy(v[i]);
  double *dev[] = {x->diff, x->dvals, x->dzero};
  for (int i = 0; i < 3; i++) fe_backend_free(be, dev[i]);
  fe_backend_free(be, x->indefinite);
}

void fe_scheme_destroy(struct fe_scheme *s)
{
  if (!s) return;
  for (int i = 0; i < s->n_assembled; i++) {
    fe_op_destroy(s->assembled[i].op);
    fe_op_destroy(s->assembled[i].rhs);
  }
  for (int i = 0; i < s->n_fct; i++) fe_fct_destroy(s->fcts[i]);
  for (int k = 0; k < s->n_tracers; k++) tracer_destroy(s->be, &s->tracers[k]);
  fe_budget_destroy(s->budget);
  for (int i = 0; i < 2; i++) {
    struct fe_scheme_step *st = &s->steps[i];
    fe_cg_log_destroy(st->log);
    free(st->logged);
    free(st->results);
    free(st->evaluated);
    free(st->iterations);
  }
  fe_vec_destroy(s->vel);
  free(s->assembled);
  free(s->fcts);
  free(s->unsolved);
  free(s->tracers);
  free(s);
}

struct fe_assembly_times fe_scheme_assembly_times(const struct fe_scheme *s)
{
  struct fe_assembly_times sum = {0};
  for (int i = 0; i < s->n_assembled; i++) {
    const struct fe_op *ops[] = {s->assembled[i].op, s->assembled[i].rhs};
    for (int j = 0; j < 2; j++)
      if (ops[j]) {
        const struct fe_assembly_times *at = fe_operator_times(ops[j]);
        sum.local += at->local;
        sum.global += at->global;
        sum.count += at->count;
      }
  }
  return sum;
}

void fe_scheme_operator_counts(const struct fe_scheme *s, int *used, int *distinct)
{
  *used = 0;
  for (int k = 0; k < s->n_tracers; k++) {
    const struct fe_scheme_tracer *x = &s->tracers[k];
    *used += (x->mass_op != NULL) + (x->advection != NULL) + (x->diffusion_pair != NULL);
  }
  *distinct = s->n_assembled;
}

/* ---------------------------------------------------------------- evaluations */

/* Tracer k's expression `what` (the velocity: k -1) evaluated at t in the step being queued. */
static void evaluating(struct fe_scheme *s, int k, enum fe_evaluated what, double t)
{
  struct fe_scheme_step *st = s->now;
  for (int i = 0; i < st->n_evaluated; i++)
    if (st->evaluated[i].what == what && st->evaluated[i].tracer == k && st->evaluated[i].t == t)
      return;
  if (st->n_evaluated < FE_MAX_EVALUATIONS * (s->n_tracers + 1))
    st->evaluated[st->n_evaluated++] = (struct fe_evaluation){what, k, t};
}

static int host_work(const struct fe_scheme *s, double **work)
{
  long most = 0;
  for (int k = 0; k < s->n_tracers; k++) {
    const long n = fe_eval_max_values(s->m, s->tracers[k].bcs);
    most = n > most ? n : most;
  }
  FE_MALLOC(most, work);
  return FE_SUCCESS;
}

/* The first non-finite value is an input error naming the expression, where the case file
 * has it, the node or cell and the time (fe_eval_*); the values themselves are not kept. */
static int evaluate_on_host(const struct fe_scheme *s, const struct fe_evaluation *e, double *work)
{
  const struct fe_case *c = s->c;
  if (e->what == FE_EVAL_VELOCITY) return fe_velocity_host(s->velocity, e->t, work);
  const struct fe_scheme_tracer *x = &s->tracers[e->tracer];
  const struct fe_tracer *tr = x->tr;
  switch (e->what) {
  case FE_EVAL_VELOCITY: break;
  case FE_EVAL_DIFFUSIVITY: return fe_eval_diffusivity(c, tr, s->m, e->t, work);
  case FE_EVAL_SOURCE: return fe_eval_source(c, tr, s->m, e->t, work);
  case FE_EVAL_NEUMANN: return fe_eval_neumann_flux(c, tr, s->m, x->bcs, e->t, work);
  case FE_EVAL_DIRICHLET: return fe_eval_dirichlet(tr, s->m, x->bcs, e->t, work);
  case FE_EVAL_EXACT: return fe_eval_nodes(tr->exact, s->m, e->t, work);
  case FE_EVAL_ABSORPTION: return fe_eval_absorption(c, tr, s->m, e->t, work);
  }
  return FE_SUCCESS;
}

/* The step of that number among the two kept: queued and not ended, or the last ended. */
static struct fe_scheme_step *step_of(struct fe_scheme *s, long step)
{
  return &s->steps[step & 1];
}

int fe_scheme_name_non_finite(struct fe_scheme *s, long step)
{
  const struct fe_scheme_step *st = step_of(s, step);
  double *work;
  FE_CALL(host_work(s, &work));
  int err = FE_SUCCESS;
  for (int i = 0; !err && i < st->n_evaluated; i++)
    err = evaluate_on_host(s, &st->evaluated[i], work);
  free(work);
  return err;
}

int fe_scheme_exact(struct fe_scheme *s, int k, double t, struct fe_vec *exact)
{
  evaluating(s, k, FE_EVAL_EXACT, t);
  return fe_coefficients_exact(s->tracers[k].cp, t, fe_vec_write(exact));
}

/* Tracer x's diffusivity tensors found indefinite since the last check: named on the host. */
static int check_diffusivity(struct fe_scheme *s, struct fe_scheme_tracer *x, long step)
{
  int count;
  FE_CALL(s->be->vec->to_host(s->be, &count, x->indefinite, sizeof count));
  double cells = count; /* over the processes */
  FE_CALL(fe_comm_allreduce(s->be->comm, &cells, 1, FE_REDUCE_SUM));
  const int n = x->n_diff_checked, bad = (int)cells;
  x->n_diff_checked = 0;
  if (!bad) return FE_SUCCESS;
  double *work;
  FE_CALL(host_work(s, &work));
  int err = FE_SUCCESS;
  for (int k = 0; !err && k < n; k++)
    err = fe_eval_diffusivity(s->c, x->tr, s->m, x->diff_checked[k], work);
  free(work);
  FE_CALL(err);
  char shown[FE_QUOTE_SIZE];
  FE_RAISE(FE_ERR_INPUT,
           "%s:%d: <diffusivity>: not positive semi-definite in %d cells during step %ld",
           fe_path_shown(s->c->path, shown, sizeof shown), x->tr->diffusivity_line, bad, step);
}

int fe_scheme_check_diffusivity(struct fe_scheme *s, long step)
{
  for (int k = 0; k < s->n_tracers; k++)
    if (s->tracers[k].diff_tdep) FE_CALL(check_diffusivity(s, &s->tracers[k], step));
  return FE_SUCCESS;
}

/* ---------------------------------------------------------------- boundary values and solves */

/* v = values (backend array in Dirichlet-node order) on tracer x's Dirichlet nodes */
static int set_on_dirichlet(const struct fe_scheme_tracer *x, const double *values,
                            struct fe_vec *v)
{
  if (!x->bcs->n_dirichlet) return FE_SUCCESS;
  return fe_vec_set_indexed(v, (size_t)x->bcs->n_dirichlet, x->space->dirichlet, values);
}

/* *g = g(t) of tracer k in Dirichlet-node order, on the backend: evaluated once when it does
 * not depend on t */
static int dirichlet_values(struct fe_scheme *s, int k, double t, const double **g)
{
  struct fe_scheme_tracer *x = &s->tracers[k];
  *g = x->dvals;
  if (!x->bcs->n_dirichlet || (!x->bc_tdep && x->dvals_ready)) return FE_SUCCESS;
  evaluating(s, k, FE_EVAL_DIRICHLET, t);
  FE_CALL(fe_coefficients_dirichlet(x->cp, t, x->dvals));
  x->dvals_ready = 1;
  return FE_SUCCESS;
}

/* v = g(t) on tracer k's Dirichlet nodes */
static int set_dirichlet(struct fe_scheme *s, int k, double t, struct fe_vec *v)
{
  const double *g;
  FE_CALL(dirichlet_values(s, k, t, &g));
  return set_on_dirichlet(&s->tracers[k], g, v);
}

/* Tracer k's system: its advection mass (mass) or its diffusion operator. */
static struct fe_system *system_of(struct fe_scheme_tracer *x, int mass)
{
  return mass ? &x->mass : &x->diffusion;
}

/* Tracer k's solve of sys in step st, not converged at time t (result r): named after the
 * system (and the tracer, when there are several), and after the expression when values are
 * not finite. */
static int solve_failed(struct fe_scheme *s, const struct fe_scheme_step *st, int k,
                        const struct fe_system *sys, const struct fe_cg_result *r, double t)
{
  const struct fe_cg_options *o = &s->solver_options;
  const char *name = fe_krylov_name(fe_krylov_kind(sys->solver));
  char last[64] = "", what[160];
  int finite = 1;
  for (int i = (r->iterations < 2 ? r->iterations : 2); i >= 0; i--) { /* oldest first */
    snprintf(last + strlen(last), sizeof last - strlen(last), " %.3e", r->history[i]);
    finite &= isfinite(r->history[i]);
  }
  if (s->n_tracers > 1)
    snprintf(what, sizeof what, "%s solve of tracer '%.64s'", sys->what, s->tracers[k].tr->name);
  else
    snprintf(what, sizeof what, "%s solve", sys->what);
  if (!finite || !isfinite(r->rhs_norm)) FE_CALL(fe_scheme_name_non_finite(s, st->step));
  if (!finite || !isfinite(r->rhs_norm))
    FE_RAISE(
        FE_ERR_NUMERICAL,
        "the %s broke down with non-finite values at step %ld (t = %.9g): %d %s iterations, "
        "last residuals%s, right-hand side norm %.3e; the scheme is unstable at this dt: try a "
        "smaller dt",
        what, st->step, t, r->iterations, name, last, r->rhs_norm);
  FE_RAISE(FE_ERR_NUMERICAL,
           "the %s did not converge at step %ld (t = %.9g): %d %s iterations, last residuals%s, "
           "target max(rtol %.1e * %.3e, atol %.1e); try a smaller dt or a larger <solver "
           "max_iterations>",
           what, st->step, t, r->iterations, name, last, o->rtol, r->rhs_norm, o->atol);
}

/* Tracer k's system (mass or diffusion) solved at time t in step st with result r: its
 * iterations counted, a solve that did not converge an error. */
static int solved(struct fe_scheme *s, struct fe_scheme_step *st, int k, int mass, double t,
                  const struct fe_cg_result *r)
{
  st->iterations[2 * k + !mass] += r->iterations;
  return r->converged ? FE_SUCCESS : solve_failed(s, st, k, system_of(&s->tracers[k], mass), r, t);
}

/* The results step st's solves left in its log, in the order of the solves: the first that
 * did not converge is the error. */
static int read_logged(struct fe_scheme *s, struct fe_scheme_step *st)
{
  if (!st->n_logged) return FE_SUCCESS;
  const double start = fe_wtime();
  FE_CALL(fe_cg_log_read(st->log));
  s->t_wait += fe_wtime() - start;
  const int n = st->n_logged;
  st->n_logged = 0;
  s->n_read += n;
  for (int i = 0; i < n; i++) {
    const struct fe_scheme_logged *l = &st->logged[i];
    FE_CALL(solved(s, st, l->k, l->mass, l->t, &st->results[i]));
  }
  return FE_SUCCESS;
}

/* The systems (mass or diffusion) of the m tracers ks, which share one operator: op
 * solution = rhs for each, from the first guess in its solution, at once (fe_krylov_solve_many:
 * CG applies the operator to all of them in one pass), each iterating as it would alone.  Their
 * results go to the log where it has room (read at the step's end: read_logged). */
static int solve_tracers(struct fe_scheme *s, int m, const int *ks, int mass, double t)
{
  struct fe_krylov *solvers[FE_CG_MANY];
  const struct fe_vec *rhs[FE_CG_MANY];
  struct fe_vec *solutions[FE_CG_MANY];
  struct fe_scheme_step *st = s->now;
  struct fe_cg_result at_once[FE_CG_MANY], *r = at_once;
  struct fe_cg_options o = s->solver_options;
  if (st->log && !s->time_solves && st->n_logged + m <= FE_SCHEME_LOGGED) {
    o.log = st->log;
    r = &st->results[st->n_logged]; /* where the log fills them in */
  }
  for (int i = 0; i < m; i++) {
    struct fe_scheme_tracer *x = &s->tracers[ks[i]];
    solvers[i] = system_of(x, mass)->solver;
    rhs[i] = x->rhs;
    solutions[i] = system_of(x, mass)->solution;
  }
  if (s->time_solves) FE_CALL(fe_backend_sync(s->be)); /* its own time, not the work before */
  const double start = fe_wtime();
  struct fe_op *op = system_of(&s->tracers[ks[0]], mass)->op;
  FE_CALL(fe_krylov_solve_many(m, solvers, op, rhs, solutions, &o, r));
  if (s->time_solves) s->t_cg += fe_wtime() - start;
  if (r[0].pending) { /* a batch is logged whole or not at all */
    for (int i = 0; i < m; i++) {
      struct fe_scheme_logged *l = &st->logged[st->n_logged++];
      l->k = ks[i];
      l->mass = mass;
      l->t = t;
    }
    return FE_SUCCESS;
  }
  st->read_at_once += m;
  int failed = 0;
  for (int i = 0; i < m; i++) failed |= !r[i].converged;
  if (failed) FE_CALL(read_logged(s, st)); /* a solve left in the log failed first? */
  for (int i = 0; i < m; i++) FE_CALL(solved(s, st, ks[i], mass, t, &r[i]));
  return FE_SUCCESS;
}

/* Every tracer's system (mass or diffusion) at time t, its right-hand side in its rhs: the
 * tracers that share an operator solved together, FE_CG_MANY at most at once, in the order of
 * the case. */
static int solve_all(struct fe_scheme *s, int mass, double t)
{
  const int n = s->n_tracers;
  int ks[FE_CG_MANY];
  for (int k = 0; k < n; k++) s->unsolved[k] = 1;
  for (int k = 0; k < n; k++) {
    if (!s->unsolved[k]) continue;
    const struct fe_op *op = system_of(&s->tracers[k], mass)->op;
    int m = 0;
    for (int j = k; j < n && m < FE_CG_MANY; j++)
      if (s->unsolved[j] && system_of(&s->tracers[j], mass)->op == op) {
        ks[m++] = j;
        s->unsolved[j] = 0;
      }
    FE_CALL(solve_tracers(s, m, ks, mass, t));
  }
  return FE_SUCCESS;
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
  evaluating(s, -1, FE_EVAL_VELOCITY, t);
  FE_CALL(fe_velocity_at(s->velocity, s->tracers[0].space, t, s->vel));
  s->vel_time = t;
  return FE_SUCCESS;
}

/* Tracer k's D(t) on the backend, once when D does not depend on t; a time-dependent one is
 * checked where it is evaluated (read with the stat row: fe_scheme_check_diffusivity). */
static int diffusivity_at(struct fe_scheme *s, int k, double t)
{
  struct fe_scheme_tracer *x = &s->tracers[k];
  if (t == x->kappa_time || (!x->diff_tdep && !isnan(x->kappa_time))) return FE_SUCCESS;
  evaluating(s, k, FE_EVAL_DIFFUSIVITY, t);
  FE_CALL(fe_coefficients_diffusivity(x->cp, t, x->diff));
  if (x->diff_tdep) {
    const long m = x->coef.uniform_diffusivity ? 1 : s->m->n_cells;
    FE_CALL(fe_space_count_indefinite(x->space, m, x->diff, x->indefinite));
    if (x->n_diff_checked < 4) x->diff_checked[x->n_diff_checked++] = t;
  }
  x->kappa_time = t;
  return FE_SUCCESS;
}

/* With SUPG the mass M + tau C^T depends on u and D: assembled at t when they change.
 * Without, it was assembled once. */
static int assemble_mass(struct fe_scheme *s, int k, double t)
{
  if (!s->supg) return FE_SUCCESS;
  struct fe_scheme_tracer *x = &s->tracers[k];
  struct fe_assembled *a = x->mass_op;
  const int tdep = s->adv_tdep || x->diff_tdep;
  if (t == a->time || (!tdep && !isnan(a->time))) return FE_SUCCESS;
  FE_CALL(velocity_at(s, t));
  FE_CALL(diffusivity_at(s, k, t));
  struct fe_form mass = {.mass = 1.0, .lumped = s->c->mass == FE_MASS_LUMPED};
  advection_options(s, &mass);
  FE_CALL(fe_operator_assemble(a->op, &mass, &x->coef));
  a->time = t;
  return FE_SUCCESS;
}

/* ---------------------------------------------------------------- the budget */

/* Tracer k's budget sums (app/budget.h), NULL without <fluxes>. */
static struct fe_budget_tracer *budget_of(const struct fe_scheme *s, int k)
{
  return s->budget ? &s->budget->tracers[k] : NULL;
}

/* Tracer k's budget: the Neumann slots of the flux just evaluated (app/coefficients.h) times w,
 * plus keep times what the budget's slots held. */
static int budget_slots(struct fe_scheme *s, int k, enum fe_evaluated what, double w, double keep)
{
  struct fe_budget_tracer *bt = budget_of(s, k);
  if (!bt || what != FE_EVAL_NEUMANN) return FE_SUCCESS;
  struct fe_vec *v = bt->neumann_slots;
  return s->be->vec->axpby(s->be, v->n, w, s->tracers[k].cp->neumann.g, keep, fe_vec_write(v));
}

/* ---------------------------------------------------------------- diffusion */

/* Tracer k's absorption rate at t on the backend; a negative value there is an input error
 * named on the host (fe_eval_absorption), a non-finite one is found with the tracer's. */
static int evaluate_absorption(struct fe_scheme *s, int k, double t)
{
  struct fe_scheme_tracer *x = &s->tracers[k];
  double lo, hi;
  evaluating(s, k, FE_EVAL_ABSORPTION, t);
  FE_CALL(fe_coefficients_absorption(x->cp, t, fe_vec_write(x->lambda)));
  x->lambda_time = t;
  FE_CALL(fe_vec_minmax(x->lambda, &lo, &hi));
  if (lo >= 0 || isnan(lo)) return FE_SUCCESS;
  double *work;
  FE_CALL(host_work(s, &work));
  const int err = fe_eval_absorption(s->c, x->tr, s->m, t, work);
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

/* Tracer k's diffusion pair for a substep of length tau, coefficients at tmid: assembled when
 * the pair it shares holds another tau or time. */
static int assemble_diffusion(struct fe_scheme *s, int k, double tau, double tmid)
{
  struct fe_scheme_tracer *x = &s->tracers[k];
  struct fe_assembled *a = x->diffusion_pair;
  const int tdep =
      x->diff_tdep || x->absorption_tdep || (diffusion_reads_velocity(s) && s->adv_tdep);
  const int retime = tdep && tmid != a->time;
  if (tau == a->tau && !retime) return FE_SUCCESS;
  if (x->absorbs && (x->absorption_tdep || a->tau == 0)) FE_CALL(evaluate_absorption(s, k, tmid));
  FE_CALL(diffusivity_at(s, k, tmid));
  if (diffusion_reads_velocity(s)) FE_CALL(velocity_at(s, tmid));
  const double th = s->c->theta;
  const int lumped = s->c->mass == FE_MASS_LUMPED;
  /* (M + theta tau (K + Lambda + C)) T1 = (M - (1 - theta) tau (K + Lambda + C)) T0 + loads,
   * C with advection="theta"; with SUPG M and C tested with N + tau_s u . grad N */
  const double absorb = x->absorbs ? 1.0 : 0.0, adv = s->implicit_advection ? 1.0 : 0.0;
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
  FE_CALL(fe_operator_assemble(a->op, &lhs, &x->coef));
  FE_CALL(fe_operator_assemble(a->rhs, &rhs, &x->coef));
  a->tau = tau;
  a->time = tmid;
  return FE_SUCCESS;
}

/* out = what tracer k's source or Neumann flux (what) gives at t: the Neumann load; the source
 * load by quadrature, tested with N + tau u . grad N with SUPG (u and D at the substep's
 * midpoint, as the mass matrix), or the source at the nodes (interpolated: the mass matrix
 * makes it a load). */
static int load_at(struct fe_scheme *s, int k, enum fe_evaluated what, double t, double *out)
{
  const struct fe_scheme_tracer *x = &s->tracers[k];
  evaluating(s, k, what, t);
  if (what == FE_EVAL_NEUMANN) return fe_coefficients_neumann(x->cp, t, out);
  if (!s->quadrature) return fe_coefficients_source(x->cp, t, out);
  struct fe_form test = {.uniform_diffusivity = x->coef.uniform_diffusivity};
  advection_options(s, &test); /* SUPG: the mass matrix's tau */
  return fe_coefficients_source_load(x->cp, t, &test, x->diff, s->vel->a, out);
}

/* out = theta L(t1) + (1 - theta) L(t0), L what load_at gives; L(t1) alone when it does not
 * depend on t or theta is 1. */
static int theta_load(struct fe_scheme *s, int k, enum fe_evaluated what, int tdep, double t0,
                      double t1, struct fe_vec *out)
{
  const double th = s->c->theta;
  const int both = tdep && th != 1;
  FE_CALL(load_at(s, k, what, t1, fe_vec_write(out)));
  FE_CALL(budget_slots(s, k, what, both ? th : 1.0, 0.0));
  if (!both) return FE_SUCCESS;
  FE_CALL(load_at(s, k, what, t0, fe_vec_write(s->tracers[k].load_old)));
  FE_CALL(budget_slots(s, k, what, 1 - th, 1.0));
  return fe_vec_axpby(out, 1 - th, s->tracers[k].load_old, th);
}

/* Tracer k's source_load = the substep's source load: by quadrature, or M f_h from the nodal
 * values (interpolated; with SUPG M + tau C^T, f tested with N + tau u . grad N, u and D at
 * the midpoint tmid).  Kept while it does not change: f independent of t and, with SUPG, u and
 * D too. */
static int source_load(struct fe_scheme *s, int k, double t0, double t1)
{
  struct fe_scheme_tracer *x = &s->tracers[k];
  const double tmid = 0.5 * (t0 + t1);
  if (x->source_kept) return FE_SUCCESS;
  if (s->quadrature && s->supg) {
    FE_CALL(velocity_at(s, tmid));
    FE_CALL(diffusivity_at(s, k, tmid));
  }
  if (s->quadrature) {
    FE_CALL(theta_load(s, k, FE_EVAL_SOURCE, x->src_tdep, t0, t1, x->source_load));
  } else {
    FE_CALL(theta_load(s, k, FE_EVAL_SOURCE, x->src_tdep, t0, t1, x->source_values));
    FE_CALL(assemble_mass(s, k, tmid));
    FE_CALL(fe_op_apply_full(x->mass.op, x->source_values, x->source_load));
  }
  x->source_kept = !x->src_tdep && !(s->supg && (s->adv_tdep || x->diff_tdep));
  return FE_SUCCESS;
}

/* Tracer k's budget of the substep's loads (tau times each): the source, all of it, and the
 * Neumann flux through each facet; at the Dirichlet nodes they are the unmasked equations'
 * loads, which the consistent flux does not include. */
static int budget_loads(struct fe_scheme *s, int k, double tau)
{
  struct fe_scheme_tracer *x = &s->tracers[k];
  struct fe_budget_tracer *bt = budget_of(s, k);
  if (!x->src_zero && s->quadrature) {
    FE_CALL(fe_vec_axpy(bt->source, tau, x->source_load));
    FE_CALL(fe_vec_axpy(bt->reaction_diff, -tau, x->source_load));
  } else if (!x->src_zero) { /* the load M f: its Dirichlet rows are the mass's */
    FE_CALL(fe_vec_axpy(bt->source, tau, x->source_values));
    FE_CALL(fe_op_reaction(x->mass.op, -tau, x->source_values, bt->reaction_diff));
  }
  if (!x->bcs->has_neumann) return FE_SUCCESS;
  FE_CALL(fe_vec_axpy(bt->neumann, tau, bt->neumann_slots));
  return fe_vec_axpy(bt->reaction_diff, -tau, x->neumann_load);
}

/* Tracer k's rhs += tau * (theta F(t1) + (1 - theta) F(t0)) for the source and Neumann loads,
 * each evaluated once when it does not change in time. */
static int add_loads(struct fe_scheme *s, int k, double t0, double t1, double tau)
{
  struct fe_scheme_tracer *x = &s->tracers[k];
  if (!x->src_zero) {
    FE_CALL(source_load(s, k, t0, t1));
    FE_CALL(fe_vec_axpy(x->rhs, tau, x->source_load));
  }
  if (x->bcs->has_neumann) {
    if (!x->neumann_kept)
      FE_CALL(theta_load(s, k, FE_EVAL_NEUMANN, x->bc_tdep, t0, t1, x->neumann_load));
    x->neumann_kept = !x->bc_tdep;
    FE_CALL(fe_vec_axpy(x->rhs, tau, x->neumann_load));
  }
  return s->budget ? budget_loads(s, k, tau) : FE_SUCCESS;
}

/* Tracer k's budget of a diffusion substep of length tau (coefficients at tmid) for the
 * operator op of the pair acting on X with sign (the left one on T1, +1; the right one on T0,
 * -1) and theta weight w: op's Dirichlet rows (the consistent flux), and the absorption and
 * the advection (advection="theta") that op holds. */
static int budget_substep(struct fe_scheme *s, int k, struct fe_op *op, double sign,
                          const struct fe_vec *X, double tau, double w, double tmid)
{
  struct fe_scheme_tracer *x = &s->tracers[k];
  FE_CALL(fe_op_reaction(op, sign, X, budget_of(s, k)->reaction_diff));
  if (w == 0) return FE_SUCCESS;
  if (x->absorbs) { /* a tracer that shares another's operator evaluates its rate here */
    if (x->lambda_time != tmid && (x->absorption_tdep || isnan(x->lambda_time)))
      FE_CALL(evaluate_absorption(s, k, tmid));
    FE_CALL(fe_budget_absorb(s->budget, k, x->lambda->a, x->cp->uniform_absorption, X, tau * w));
  }
  if (!s->implicit_advection) return FE_SUCCESS;
  FE_CALL(velocity_at(s, tmid));
  return fe_budget_flow(s->budget, k, s->vel->a, s->c->conservative_advection, X, tau * w);
}

/* Theta scheme for tracer k from t0 to t1 = t0 + tau, up to its solve:
 * (M + theta tau K) T1 = (M - (1 - theta) tau K) T0 + loads, T1 = g(t1) on Dirichlet nodes:
 * the right-hand side in rhs, the first guess (T0 with g(t1)) in the solution. */
static int diffusion_system(struct fe_scheme *s, int k, double t0, double tau)
{
  struct fe_scheme_tracer *x = &s->tracers[k];
  const double t1 = t0 + tau;
  struct fe_vec *sol = x->diffusion.solution;
  const double tmid = 0.5 * (t0 + t1), th = s->c->theta;
  FE_CALL(assemble_diffusion(s, k, tau, tmid));
  FE_CALL(fe_op_apply_full(x->diffusion_pair->rhs, x->tracer, x->rhs));
  if (s->budget)
    FE_CALL(budget_substep(s, k, x->diffusion_pair->rhs, -1.0, x->tracer, tau, 1 - th, tmid));
  FE_CALL(add_loads(s, k, t0, t1, tau));
  const double *g;
  FE_CALL(dirichlet_values(s, k, t1, &g));
  if (x->bcs->has_dirichlet) {
    if (x->bc_tdep || !x->boundary_set) /* else it holds the fixed values already */
      FE_CALL(set_on_dirichlet(x, g, x->boundary));
    x->boundary_set = 1;
    FE_CALL(fe_op_lift(x->diffusion.op, -1.0, x->boundary, x->rhs)); /* known values to the right */
    FE_CALL(set_on_dirichlet(x, g, x->rhs));
  }
  FE_CALL(fe_vec_copy(x->tracer, sol));
  return set_on_dirichlet(x, g, sol);
}

/* Every tracer's diffusion substep from t0 to t0 + tau: the systems, their solves (the
 * tracers that share the operator at once), and T1. */
static int diffuse_all(struct fe_scheme *s, double t0, double tau)
{
  const double start = fe_wtime(), tmid = t0 + 0.5 * tau;
  for (int k = 0; k < s->n_tracers; k++) FE_CALL(diffusion_system(s, k, t0, tau));
  FE_CALL(solve_all(s, 0, t0 + tau));
  for (int k = 0; k < s->n_tracers; k++) {
    struct fe_scheme_tracer *x = &s->tracers[k];
    FE_CALL(fe_vec_copy(x->diffusion.solution, x->tracer));
    if (s->budget)
      FE_CALL(budget_substep(s, k, x->diffusion.op, 1.0, x->tracer, tau, s->c->theta, tmid));
  }
  s->t_diff += fe_wtime() - start;
  return FE_SUCCESS;
}

/* ---------------------------------------------------------------- advection */

static int assemble_advection(struct fe_scheme *s, int k, double t)
{
  struct fe_scheme_tracer *x = &s->tracers[k];
  struct fe_assembled *a = x->advection;
  FE_CALL(assemble_mass(s, k, t));
  FE_CALL(velocity_at(s, t)); /* also when C(t) is kept: the FCT limiter reads u(t) */
  const int tdep = s->adv_tdep || (s->supg && x->diff_tdep);
  if (t == a->time || (!tdep && !isnan(a->time))) return FE_SUCCESS;
  if (s->supg) FE_CALL(diffusivity_at(s, k, t));
  struct fe_form adv = {.advection = -1.0}; /* M dT/dt = -C T; SUPG: -(C + S) */
  advection_options(s, &adv);
  FE_CALL(fe_operator_assemble(a->op, &adv, &x->coef));
  a->time = t;
  return FE_SUCCESS;
}

/* Tracer k's right-hand side of its rate M rate = -C X at t: -C X on the interior, 0 on
 * Dirichlet nodes, in rhs; the mass solve starts from its last solution. */
static int advection_system(struct fe_scheme *s, int k, double t, const struct fe_vec *X)
{
  struct fe_scheme_tracer *x = &s->tracers[k];
  FE_CALL(assemble_advection(s, k, t));
  FE_CALL(fe_op_apply_full(x->advection->op, X, x->rhs));
  return set_on_dirichlet(x, x->dzero, x->rhs);
}

/* Tracer k's rate = M^-1 (-C X), alone. */
static int advection_rate(struct fe_scheme *s, int k, double t, const struct fe_vec *X,
                          struct fe_vec *rate)
{
  FE_CALL(advection_system(s, k, t, X));
  FE_CALL(solve_tracers(s, 1, &k, 1, t));
  return fe_vec_copy(s->tracers[k].mass.solution, rate);
}

/* Tracer k's budget of an advection stage of weight w (h times the integrator's): the flow
 * of its state X through the boundary and its divergence term at the stage's velocity, and the
 * Dirichlet rows of M rate + C X (the advection operator is -C). */
static int budget_stage(struct fe_scheme *s, int k, const struct fe_vec *X,
                        const struct fe_vec *rate, double w)
{
  struct fe_scheme_tracer *x = &s->tracers[k];
  struct fe_budget_tracer *bt = budget_of(s, k);
  FE_CALL(fe_budget_flow(s->budget, k, s->vel->a, s->c->conservative_advection, X, w));
  FE_CALL(fe_op_reaction(x->mass.op, w, rate, bt->reaction_adv));
  return fe_op_reaction(x->advection->op, -w, X, bt->reaction_adv);
}

/* Tracer k's budget at the start (end 0) and end (end 1) of the advection step: the jump of
 * its Dirichlet values, which the stages' rates (0 there) do not hold. */
static int budget_advection(struct fe_scheme *s, int k, int end)
{
  if (!s->budget) return FE_SUCCESS;
  const struct fe_vec *t = s->tracers[k].tracer;
  return end ? fe_budget_jump(s->budget, k, t) : fe_vec_copy(t, budget_of(s, k)->before);
}

/* Classical RK4 over [t0, t0 + h]: stage i at T + c_i h k_(i-1) with its boundary values.
 * Stage by stage, every tracer: an operator they share is assembled once per stage time, and
 * the mass solves of the tracers that share the mass operator are made at once. */
static int advect(struct fe_scheme *s, double t0, double h)
{
  static const double c[4] = {0, 0.5, 0.5, 1}, w[4] = {1, 2, 2, 1};
  const int n = s->n_tracers;
  for (int k = 0; k < n; k++) {
    struct fe_scheme_tracer *x = &s->tracers[k];
    FE_CALL(fe_vec_copy(x->tracer, x->rk4_sum));
    FE_CALL(fe_vec_set(x->mass.solution, 0.0)); /* the first guess of every step: restarts
                                                   reproduce runs */
    FE_CALL(budget_advection(s, k, 0));
  }
  for (int i = 0; i < 4; i++) {
    for (int k = 0; k < n; k++) {
      struct fe_scheme_tracer *x = &s->tracers[k];
      if (i > 0) {
        FE_CALL(fe_vec_copy(x->tracer, x->rk4_stage));
        FE_CALL(fe_vec_axpy(x->rk4_stage, c[i] * h, x->mass.solution));
        FE_CALL(set_dirichlet(s, k, t0 + c[i] * h, x->rk4_stage));
      }
      FE_CALL(advection_system(s, k, t0 + c[i] * h, i > 0 ? x->rk4_stage : x->tracer));
    }
    FE_CALL(solve_all(s, 1, t0 + c[i] * h));
    for (int k = 0; k < n; k++) {
      struct fe_scheme_tracer *x = &s->tracers[k];
      FE_CALL(fe_vec_axpy(x->rk4_sum, w[i] * h / 6, x->mass.solution));
      if (s->budget)
        FE_CALL(
            budget_stage(s, k, i > 0 ? x->rk4_stage : x->tracer, x->mass.solution, w[i] * h / 6));
    }
  }
  for (int k = 0; k < n; k++) {
    struct fe_scheme_tracer *x = &s->tracers[k];
    FE_CALL(fe_vec_copy(x->rk4_sum, x->tracer));
    FE_CALL(set_dirichlet(s, k, t0 + h, x->tracer));
    FE_CALL(budget_advection(s, k, 1));
  }
  return FE_SUCCESS;
}

/* Stage i of Shu & Osher's SSP-RK3 for tracer k: a limited forward-Euler step (assembly/fct.h)
 * from the Galerkin rate at the stage's time, mixed with the step's start. */
static int fct_stage(struct fe_scheme *s, int k, int i, double t0, double h)
{
  static const double at[3] = {0, 1, 0.5}, keep[3] = {0, 0.75, 1.0 / 3}, ends[3] = {1, 0.5, 1};
  static const double weight[3] = {1.0 / 6, 1.0 / 6, 2.0 / 3}; /* each stage's in the step */
  struct fe_scheme_tracer *x = &s->tracers[k];
  struct fe_budget_tracer *bt = budget_of(s, k);
  const int lumped = s->c->mass == FE_MASS_LUMPED;
  const int measure = i == 0 && (s->adv_tdep || isnan(x->advection->time));
  double courant = 0;
  if (lumped) /* the fluxes need no Galerkin rate, only u(t) */
    FE_CALL(assemble_advection(s, k, t0 + at[i] * h));
  else
    FE_CALL(advection_rate(s, k, t0 + at[i] * h, x->ssp_stage, x->galerkin_rate));
  FE_CALL(fe_fct_step(x->fct, s->vel->a, x->ssp_stage, lumped ? NULL : x->galerkin_rate, h,
                      x->ssp_euler, measure ? &courant : NULL, bt ? bt->fct_reaction : NULL));
  if (bt) {
    FE_CALL(fe_budget_flow(s->budget, k, s->vel->a, s->c->conservative_advection, x->ssp_stage,
                           weight[i] * h));
    FE_CALL(fe_vec_axpy(bt->reaction_adv, weight[i], bt->fct_reaction));
  }
  s->fct_courant = courant > s->fct_courant ? courant : s->fct_courant;
  if (keep[i] != 0) FE_CALL(fe_vec_axpby(x->ssp_euler, keep[i], x->tracer, 1 - keep[i]));
  FE_CALL(set_dirichlet(s, k, t0 + ends[i] * h, x->ssp_euler));
  struct fe_vec *next = x->ssp_euler;
  x->ssp_euler = x->ssp_stage;
  x->ssp_stage = next;
  return FE_SUCCESS;
}

/* Shu & Osher's SSP-RK3 (J. Comput. Phys. 77, 1988) over [t0, t0 + h], each stage a limited
 * step: convex combinations of bounded steps, so the step is bounded too.  The low-order
 * Courant number is measured in the first stage when the velocity changes (fct_stage).  Stage
 * by stage, every tracer, as advect. */
static int advect_fct(struct fe_scheme *s, double t0, double h)
{
  for (int k = 0; k < s->n_tracers; k++) {
    struct fe_scheme_tracer *x = &s->tracers[k];
    FE_CALL(fe_vec_set(x->mass.solution, 0.0)); /* as advect: restarts reproduce runs */
    FE_CALL(fe_vec_copy(x->tracer, x->ssp_stage));
    FE_CALL(budget_advection(s, k, 0));
  }
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < s->n_tracers; k++) FE_CALL(fct_stage(s, k, i, t0, h));
  for (int k = 0; k < s->n_tracers; k++) {
    FE_CALL(fe_vec_copy(s->tracers[k].ssp_stage, s->tracers[k].tracer));
    FE_CALL(budget_advection(s, k, 1));
  }
  return FE_SUCCESS;
}

/* ---------------------------------------------------------------- the step */

static int advection_step(struct fe_scheme *s, double t0, double h)
{
  const double start = fe_wtime();
  const int fct = s->c->stabilisation == FE_STABILISATION_FCT;
  FE_CALL(fct ? advect_fct(s, t0, h) : advect(s, t0, h));
  s->t_adv += fe_wtime() - start;
  return FE_SUCCESS;
}

static int split_step(struct fe_scheme *s, double t0, double h)
{
  if (!s->has_advection) return diffuse_all(s, t0, h);
  if (s->c->splitting == FE_SPLIT_LIE) {
    FE_CALL(advection_step(s, t0, h));
    return diffuse_all(s, t0, h);
  }
  FE_CALL(diffuse_all(s, t0, 0.5 * h));
  FE_CALL(advection_step(s, t0, h));
  return diffuse_all(s, t0 + 0.5 * h, 0.5 * h);
}

int fe_scheme_step(struct fe_scheme *s, long step, double t0, double h)
{
  struct fe_scheme_step *st = step_of(s, step);
  FE_CHECK(!st->n_logged, FE_ERR_USAGE,
           "step %ld queued while step %ld, two before it, has not ended", step, st->step);
  st->step = step;
  st->n_evaluated = 0;
  st->read_at_once = 0;
  for (int i = 0; i < 2 * s->n_tracers; i++) st->iterations[i] = 0;
  s->now = st;
  if (s->budget) FE_CALL(fe_budget_begin(s->budget));
  const int err = split_step(s, t0, h);
  if (err) { /* a solve left in the log may have failed before: that one is the error */
    const int first = read_logged(s, st);
    return first ? first : err;
  }
  if (s->budget) FE_CALL(fe_budget_queue(s->budget, step));
  return fe_cg_log_post(st->log); /* its copy behind the step's work */
}

int fe_scheme_step_end(struct fe_scheme *s, long step, double h)
{
  struct fe_scheme_step *st = step_of(s, step);
  FE_CHECK(st->step == step, FE_ERR_USAGE, "the end of step %ld, which was not queued", step);
  FE_CALL(read_logged(s, st));
  if (s->budget) FE_CALL(fe_budget_end(s->budget, step, h));
  for (int k = 0; k < s->n_tracers; k++) {
    struct fe_scheme_tracer *x = &s->tracers[k];
    x->mass.iterations = st->iterations[2 * k];
    x->diffusion.iterations = st->iterations[2 * k + 1];
    x->mass.total_iterations += x->mass.iterations;
    x->diffusion.total_iterations += x->diffusion.iterations;
  }
  return FE_SUCCESS;
}

int fe_scheme_queue_ahead(const struct fe_scheme *s)
{
  int tdep = s->adv_tdep;
  for (int k = 0; k < s->n_tracers; k++)
    tdep |= s->tracers[k].diff_tdep || (s->tracers[k].absorbs && s->tracers[k].absorption_tdep);
  return s->be->asynchronous && !s->time_solves && !tdep && s->now->n_logged > 0 &&
         !s->now->read_at_once;
}
