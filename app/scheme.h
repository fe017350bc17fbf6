/* The scheme for dT/dt + u . grad T = div(K grad T) + f (docs/numerics.md):
 * Strang (half a diffusion step, the advection step, half a diffusion step) or
 * Lie (advection, then diffusion); classical RK4 for advection (SSP-RK3 of limited steps with
 * FCT), the theta scheme for diffusion, strong Dirichlet values, source and Neumann loads.
 * With advection="theta" the advection is in the theta scheme with the diffusion, unsplit;
 * with SUPG the mass, absorption, advection and source are tested with N + tau u . grad N. */
#ifndef FE_SCHEME_H
#define FE_SCHEME_H

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
  double t;
};
enum { FE_MAX_EVALUATIONS = 32 }; /* a step evaluates at most about 20 (kind, time) pairs */

struct fe_scheme {
  /* the problem, not owned */
  const struct fe_case *c;
  const struct fe_mesh *m;
  const struct fe_bcs *bcs;
  const struct fe_backend *be;
  struct fe_space *space;
  const struct fe_coefficient_programs *cp;
  struct fe_velocity *velocity; /* u(t); NULL without a velocity */
  enum fe_strategy strategy; /* the one the operators use ("auto" picked at creation) */
  int has_advection;         /* split, explicit advection (rk4; ssp-rk3 with fct) */
  int implicit_advection;    /* advection="theta": in the diffusion pair's operators */
  int supg;                  /* stabilisation="supg" of an advected case */
  int adv_tdep, diff_tdep, src_tdep, src_zero, bc_tdep;
  int quadrature; /* loads by quadrature (scheme@loads): the source's load without M */
  int absorbs, absorption_tdep; /* an <absorption> rate, and whether it depends on t */
  struct fe_cg_options solver_options; /* both Krylov solvers' */
  /* operators: M dT/dt = -C T (RK4); (M + theta tau K) T1 = (M - (1 - theta) tau K) T0 + loads
   * (K + C with advection="theta"); with SUPG M + tau_s C^T and C + S (element.h) */
  struct fe_system mass; /* M; solved when advecting, applied to the source (interpolated) */
  struct fe_system diffusion;           /* M + theta tau K */
  struct fe_op *advection;              /* -C */
  struct fe_op *diffusion_rhs;          /* M - (1 - theta) tau K */
  double adv_time, diff_tau, diff_time; /* what advection and diffusion were assembled for */
  double mass_time;                     /* the SUPG mass's time (it depends on u and D) */
  double vel_time, kappa_time;          /* the times vel and diff hold (NAN: none yet) */
  /* coefficients on the backend */
  struct fe_coefficients coef;
  struct fe_vec *vel; /* u at vel_time: n_nodes * dim entries */
  double *diff;
  struct fe_vec *lambda; /* the absorption rate per cell (one value when uniform), or NULL */
  double *dvals; /* the Dirichlet values, in Dirichlet-node order */
  int dvals_ready;
  double *dzero;          /* zeros, as many */
  int *indefinite;        /* diffusivity tensors found not positive semi-definite since
                             the last fe_scheme_check_diffusivity */
  double diff_checked[4]; /* the times they were evaluated at since then */
  int n_diff_checked;
  /* vectors (NULL where the case has no such term) */
  struct fe_vec *tracer;
  struct fe_vec *rhs;
  struct fe_vec *boundary; /* g(t) on the Dirichlet nodes; its other values are not read */
  struct fe_vec *source_load;    /* the last substep's source load, theta-weighted */
  struct fe_vec *neumann_load;   /* the last substep's Neumann load, theta-weighted */
  struct fe_vec *source_values;  /* interpolated: the source at the nodes, theta-weighted */
  struct fe_vec *load_old;       /* a load (or the source's values) at the substep's start */
  int source_kept, neumann_kept; /* they hold for every substep: independent of t (and the
                                    source, with SUPG, of u and D) */
  struct fe_vec *rk4_stage, *rk4_rate, *rk4_sum;
  /* stabilisation="fct": the limited steps, the SSP-RK3 stage value and Euler step */
  struct fe_fct *fct;
  struct fe_vec *ssp_stage, *ssp_euler;
  double fct_courant; /* the largest low-order Courant number so far (at most 1: bounded) */
  /* the current step */
  long step;
  struct fe_evaluation evaluated[FE_MAX_EVALUATIONS]; /* in order */
  int n_evaluated;
  /* wall-clock seconds of the steps: advection and diffusion (assembly and solves), CG */
  double t_adv, t_diff, t_cg;
};

/* Whether the case is advected (a velocity, and advection "rk4" or "theta"): by classical RK4,
 * with stabilisation="fct" by SSP-RK3 of limited steps, or implicitly in the theta scheme. */
int fe_scheme_advects(const struct fe_case *c);
/* Whether SUPG tests the advected case's equation (stabilisation="supg"). */
int fe_scheme_supg(const struct fe_case *c);
/* The solver of the diffusion pair (and, with SUPG, of the mass): BiCGStab where SUPG or
 * advection="theta" makes the operator non-symmetric, CG otherwise. */
enum fe_krylov_kind fe_scheme_diffusion_solver(const struct fe_case *c);

/* The scheme's operators and vectors for the case on space (whose backend and mesh it
 * takes), its velocity from `velocity` (NULL without one); strategy "auto" is decided here (a
 * note when verbosity > 0).  The tracer is left to the caller to fill. */
int fe_scheme_create(const struct fe_case *c, const struct fe_bcs *bcs, struct fe_space *space,
                     const struct fe_coefficient_programs *cp, struct fe_velocity *velocity,
                     enum fe_strategy strategy, int verbosity, struct fe_scheme **scheme);
void fe_scheme_destroy(struct fe_scheme *s);

/* Step number `step` (in messages), of length h from t0: the tracer advanced in place; the
 * systems' iterations are this step's.  FE_ERR_NUMERICAL when a solve fails, FE_ERR_INPUT
 * when that is an expression's non-finite value. */
int fe_scheme_step(struct fe_scheme *s, long step, double t0, double h);

/* exact = the exact solution at t, on the backend (recorded as evaluated in this step). */
int fe_scheme_exact(struct fe_scheme *s, double t, struct fe_vec *exact);
/* After non-finite values showed: the expressions evaluated in this step again on the host;
 * FE_ERR_INPUT naming the first non-finite value, FE_SUCCESS when all are finite. */
int fe_scheme_name_non_finite(const struct fe_scheme *s);
/* A time-dependent diffusivity that lost positive semi-definiteness since the last call:
 * FE_ERR_INPUT naming the cell, the step in the message. */
int fe_scheme_check_diffusivity(struct fe_scheme *s, long step);

/* The assembly times of the scheme's operators, summed. */
struct fe_assembly_times fe_scheme_assembly_times(const struct fe_scheme *s);

#endif
