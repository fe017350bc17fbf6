/* The scheme for dT/dt + u . grad T = div(K grad T) + f (docs/numerics.md):
 * Strang (half a diffusion step, the advection step, half a diffusion step) or
 * Lie (advection, then diffusion); classical RK4 for advection (SSP-RK3 of limited steps with
 * FCT), the theta scheme for diffusion, strong Dirichlet values, source and Neumann loads.
 * With advection="theta" the advection is in the theta scheme with the diffusion, unsplit;
 * with SUPG the mass, absorption, advection and source are tested with N + tau u . grad N. */
#ifndef FE_SCHEME_H
#define FE_SCHEME_H

#include "app/budget.h"
#include "app/coefficients.h"
#include "app/velocity.h"
#include "assembly/fct.h"
#include "assembly/operator.h"
#include "solvers/krylov.h"

/* A solved operator and what its solves keep: its Krylov solver (CG, or BiCGStab when the
 * operator is not symmetric) with its work vectors and Jacobi diagonal, and the last solution,
 * which is the next solve's first guess. */
struct fe_system {
  struct fe_op *op;
  struct fe_krylov *solver;
  struct fe_vec *solution;
  const char *what;      /* the solve in messages */
  int iterations;        /* Krylov iterations of the current step */
  long total_iterations; /* of the steps completed */
};

/* An operator as assembled, with what it was assembled for: tracers whose coefficients
 * coincide (the same space, the same diffusivity and absorption where the operator reads them)
 * share one, and it is assembled once for all of them at each time it changes. */
struct fe_assembled {
  struct fe_op *op;
  struct fe_op *rhs; /* the diffusion pair's right-hand operator; NULL for the others */
  double time;       /* the time of the coefficients it holds (NAN: not assembled yet) */
  double tau;        /* the diffusion pair's step length (0: not assembled yet) */
};

/* An evaluation of the case's expressions on the backend during a step: kept, so that a value
 * that turns out non-finite can be traced to its expression on the host. */
enum fe_evaluated {
  FE_EVAL_VELOCITY,
  FE_EVAL_DIFFUSIVITY,
  FE_EVAL_SOURCE,
  FE_EVAL_NEUMANN,
  FE_EVAL_DIRICHLET,
  FE_EVAL_EXACT,
  FE_EVAL_ABSORPTION
};
struct fe_evaluation {
  enum fe_evaluated what;
  int tracer; /* the tracer whose expression it is (the velocity: -1) */
  double t;
};
enum {
  FE_MAX_EVALUATIONS = 32
}; /* per tracer: a step evaluates at most about 20 (kind, time)
      pairs of each */

/* One tracer of the scheme: its data on the mesh, its coefficients on the backend, its solves
 * and its named vectors.  Its operators are records of the scheme, shared with the other
 * tracers whose coefficients coincide. */
struct fe_scheme_tracer {
  const struct fe_tracer *tr; /* the case's <tracer> */
  const struct fe_bcs *bcs;
  struct fe_space *space; /* its Dirichlet nodes; shared by the tracers that have the same */
  const struct fe_coefficient_programs *cp;
  int diff_tdep, src_tdep, src_zero, bc_tdep;
  int absorbs, absorption_tdep; /* an <absorption> rate, and whether it depends on t */
  /* operators: M dT/dt = -C T (RK4); (M + theta tau K) T1 = (M - (1 - theta) tau K) T0 + loads
   * (K + C with advection="theta"); with SUPG M + tau_s C^T and C + S (element.h) */
  struct fe_assembled *mass_op, *advection, *diffusion_pair; /* NULL where not needed */
  struct fe_system mass;      /* M; solved when advecting, applied to the source (interpolated) */
  struct fe_system diffusion; /* M + theta tau K */
  struct fe_fct *fct;         /* stabilisation="fct": its space's work arrays */
  /* coefficients on the backend */
  struct fe_coefficients coef;
  double *diff;
  double kappa_time;     /* the time diff holds (NAN: none yet) */
  struct fe_vec *lambda; /* the absorption rate per cell (one value when uniform), or NULL */
  double lambda_time;    /* the time lambda holds (NAN: none yet) */
  double *dvals;         /* the Dirichlet values, in Dirichlet-node order */
  int dvals_ready;
  int boundary_set;       /* boundary holds the values (fixed in time) */
  double *dzero;          /* zeros, as many */
  int *indefinite;        /* diffusivity tensors found not positive semi-definite since
                             the last fe_scheme_check_diffusivity */
  double diff_checked[4]; /* the times they were evaluated at since then */
  int n_diff_checked;
  /* vectors (NULL where the tracer has no such term) */
  struct fe_vec *tracer;
  struct fe_vec *rhs;
  struct fe_vec *boundary;       /* g(t) on the Dirichlet nodes; its other values are not read */
  struct fe_vec *source_load;    /* the last substep's source load, theta-weighted */
  struct fe_vec *neumann_load;   /* the last substep's Neumann load, theta-weighted */
  struct fe_vec *source_values;  /* interpolated: the source at the nodes, theta-weighted */
  struct fe_vec *load_old;       /* a load (or the source's values) at the substep's start */
  int source_kept, neumann_kept; /* they hold for every substep: independent of t (and the
                                    source, with SUPG, of u and D) */
  struct fe_vec *rk4_stage, *rk4_sum;   /* RK4's stage value and sum (its rate: mass.solution) */
  struct fe_vec *ssp_stage, *ssp_euler; /* fct: the SSP-RK3 stage value and Euler step, */
  struct fe_vec *galerkin_rate;         /* and a stage's Galerkin rate (consistent mass) */
};

/* The most systems' results a step leaves in the scheme's log (fe_cg_log): the solves past
 * them read their results at once. */
#define FE_SCHEME_LOGGED 64

/* A solve whose result waits in the log until the step's end: tracer k's mass (mass 1) or
 * diffusion system, solved at time t. */
struct fe_scheme_logged {
  int k, mass;
  double t;
};

/* What a step leaves until its end (fe_scheme_step_end): the expressions it evaluated (named
 * on the host when its values are not finite), the solves whose results wait in its log, and
 * its systems' iterations.  The scheme keeps two, so that the next step can be queued before
 * this one ends (fe_scheme_queue_ahead). */
struct fe_scheme_step {
  long step;
  struct fe_evaluation *evaluated; /* in order, FE_MAX_EVALUATIONS per tracer at most */
  int n_evaluated;
  /* On an asynchronous backend (CUDA) the solves run whole on the device leave their results
   * in the log, read once at the step's end (unless time_solves): the host queues a step's
   * work without waiting for each solve. */
  struct fe_cg_log *log;           /* NULL on the CPU */
  struct fe_scheme_logged *logged; /* FE_SCHEME_LOGGED: the solves, */
  struct fe_cg_result *results;    /* and their results, which the log fills in */
  int n_logged;
  int read_at_once; /* the solves whose results were read as they ended */
  int *iterations;  /* per tracer k: its mass system's [2k], its diffusion's [2k + 1] */
};

struct fe_scheme {
  /* the problem, not owned */
  const struct fe_case *c;
  const struct fe_mesh *m;
  const struct fe_backend *be;
  struct fe_velocity *velocity; /* u(t); NULL without a velocity */
  enum fe_strategy strategy;    /* the one the operators use ("auto" picked at creation) */
  int has_advection;            /* split, explicit advection (rk4; ssp-rk3 with fct) */
  int implicit_advection;       /* advection="theta": in the diffusion pair's operators */
  int supg;                     /* stabilisation="supg" of an advected case */
  int adv_tdep;                 /* u depends on t */
  int quadrature; /* loads by quadrature (scheme@loads): the source's load without M */
  struct fe_cg_options solver_options; /* every Krylov solver's */
  int n_tracers;
  struct fe_scheme_tracer *tracers; /* in the case's order */
  int n_assembled;
  struct fe_assembled *assembled; /* the operators, each once (room for 3 per tracer) */
  int n_fct;
  struct fe_fct **fcts;     /* fct: one per space */
  int *unsolved;            /* per tracer: whether its system is still to solve (solve_all) */
  struct fe_vec *vel;       /* u at vel_time: n_nodes * dim entries */
  double vel_time;          /* NAN: none yet */
  double fct_courant;       /* the largest low-order Courant number so far (at most 1: bounded) */
  struct fe_budget *budget; /* <fluxes>: each tracer's budget terms (app/budget.h); NULL without */
  /* the steps queued and not ended: the one being queued is `now` */
  struct fe_scheme_step steps[2], *now;
  /* wall-clock seconds of the steps: advection and diffusion (assembly and solves), and CG's
   * solves where time_solves asks (fe_options.time_solves, a benchmark's: each solve then waits
   * for the work queued before it, a host round trip per solve that a run does not make) */
  double t_adv, t_diff, t_cg;
  int time_solves;
  /* t_wait: the seconds of the reads of the steps' logs, the GPU's work that the host did not
   * wait for in t_adv or t_diff */
  long n_read; /* results read from the logs in all (none where the host drives CG) */
  double t_wait;
};

/* Whether the case is advected (a velocity, and advection "rk4" or "theta"): by classical RK4,
 * with stabilisation="fct" by SSP-RK3 of limited steps, or implicitly in the theta scheme. */
int fe_scheme_advects(const struct fe_case *c);
/* Whether SUPG tests the advected case's equation (stabilisation="supg"). */
int fe_scheme_supg(const struct fe_case *c);
/* The solver of the diffusion pair (and, with SUPG, of the mass): BiCGStab where SUPG or
 * advection="theta" makes the operator non-symmetric, CG otherwise. */
enum fe_krylov_kind fe_scheme_diffusion_solver(const struct fe_case *c);

/* The operators a tracer may share with another: the mass, the advection, the diffusion pair. */
enum fe_operator_kind { FE_OPERATOR_MASS, FE_OPERATOR_ADVECTION, FE_OPERATOR_DIFFUSION };
/* Whether tracers a and b of case c, with their boundary conditions on a mesh of n_nodes, have
 * the same operator of this kind: the same Dirichlet nodes and, where the operator reads them,
 * the same diffusivity (the diffusion pair; the mass and advection with SUPG) and absorption
 * (the diffusion pair), written alike (fe_tracer_same_diffusivity). */
int fe_scheme_coincide(const struct fe_case *c, enum fe_operator_kind kind,
                       const struct fe_tracer *a, const struct fe_bcs *ba,
                       const struct fe_tracer *b, const struct fe_bcs *bb, long n_nodes);

/* The scheme's operators and vectors for the case's tracers, tracer k with its boundary
 * conditions bcs[k] on spaces[k] (one backend and mesh for all; tracers with the same
 * Dirichlet nodes may share a space) and its programs cps[k]; the velocity from `velocity`
 * (NULL without one).  Operators are shared between tracers whose coefficients coincide.
 * Strategy "auto" is decided here (a note when verbosity > 0).  The tracers' values are left
 * to the caller to fill. */
int fe_scheme_create(const struct fe_case *c, const struct fe_bcs *const *bcs,
                     struct fe_space *const *spaces,
                     const struct fe_coefficient_programs *const *cps, struct fe_velocity *velocity,
                     enum fe_strategy strategy, int verbosity, struct fe_scheme **scheme);
void fe_scheme_destroy(struct fe_scheme *s);

/* <fluxes>: from now on each step also sums every tracer's budget terms (s->budget, read after
 * the step) through the n_groups boundary groups (indices in the mesh's groups, kept by the
 * caller); lumped: the weights of the integral, int phi_n, kept by the caller. */
int fe_scheme_budget(struct fe_scheme *s, int n_groups, const int *groups,
                     const struct fe_vec *lumped);

/* Step number `step` (in messages), of length h from t0: every tracer advanced in place, its
 * work queued on the backend.  The solves whose results went to the log are read by
 * fe_scheme_step_end, so that the caller can queue more work (the stat row's, the next step's)
 * before the host waits for the GPU.  FE_ERR_NUMERICAL when a solve fails, FE_ERR_INPUT when
 * that is an expression's non-finite value (a solve left in the log that failed first is the
 * error). */
int fe_scheme_step(struct fe_scheme *s, long step, double t0, double h);
/* After fe_scheme_step(s, step, t0, h), and at most one step after it: its solves' results
 * read (one wait for the backend), the budget's terms summed; the systems' iterations are
 * then this step's.  The errors of fe_scheme_step, for the solves read here. */
int fe_scheme_step_end(struct fe_scheme *s, long step, double h);
/* Whether the step queued last may end after the next one is queued: its solves' results all
 * wait in its log, and nothing of a step is read on the host before its end (no
 * time-dependent velocity, diffusivity or absorption, whose checks and Courant numbers are
 * read within the step; not timing the solves; the budget's sums are queued behind the step,
 * fe_budget_queue).  The next step then reads nothing of this one's before
 * fe_scheme_step_end(this one). */
int fe_scheme_queue_ahead(const struct fe_scheme *s);

/* exact = tracer k's exact solution at t, on the backend (recorded as evaluated in this step). */
int fe_scheme_exact(struct fe_scheme *s, int k, double t, struct fe_vec *exact);
/* After non-finite values showed in step `step` (queued and not ended, or the last ended): the
 * expressions evaluated in that step again on the host; FE_ERR_INPUT naming the first
 * non-finite value, FE_SUCCESS when all are finite. */
int fe_scheme_name_non_finite(struct fe_scheme *s, long step);
/* A time-dependent diffusivity (of any tracer) that lost positive semi-definiteness since the
 * last call: FE_ERR_INPUT naming the tracer's <diffusivity>, the step in the message. */
int fe_scheme_check_diffusivity(struct fe_scheme *s, long step);

/* The assembly times of the scheme's operators, summed. */
struct fe_assembly_times fe_scheme_assembly_times(const struct fe_scheme *s);
/* How many operators the tracers hold, and how many distinct ones the scheme assembles: the
 * difference is what sharing saved (the summary and --check say it). */
void fe_scheme_operator_counts(const struct fe_scheme *s, int *used, int *distinct);

#endif
