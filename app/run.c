/* A run: the case, its mesh and backend set up and checked, then the time loop: a step of the
 * split scheme (app/scheme.c) and its outputs (app/outputs.c) on schedule, until the end, a
 * stop signal or a numerical failure. */
#include "app/run.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/bounds.h"
#include "app/coefficients.h"
#include "app/distribution.h"
#include "app/fields.h"
#include "app/outputs.h"
#include "app/probes.h"
#include "app/scheme.h"
#include "app/stability.h"
#include "app/velocity.h"
#include "assembly/courant.h"
#include "assembly/kernels.h"
#include "assembly/quadrature.h"
#include "backends/backends.h"
#include "core/error.h"
#include "core/timer.h"
#include "io/checkpoint.h"
#include "io/mesh.h"
#include "io/schedule.h"

struct fe_sim {
  const struct fe_options *opt;
  struct fe_case *c;
  struct fe_mesh *m;         /* the mesh the run computes on: the whole, or this process's part */
  struct fe_mesh *whole;     /* the mesh as read: process 0's (NULL on the others) */
  struct fe_distribution *dist; /* several processes: the parts; NULL: one */
  int n_tracers;
  struct fe_bcs **bcs;       /* each tracer's boundary conditions on m */
  struct fe_bcs **whole_bcs; /* and on the whole mesh, process 0's (bcs itself on one process) */
  struct fe_backend *be;     /* the run's, owned */
  struct fe_backend_warm_up *warm_up; /* its start, begun beside the mesh's reading */
  enum fe_strategy strategy; /* as asked: the scheme decides "auto" */
  struct fe_schedule sched;  /* the time steps and when outputs are written */
  double *initial;           /* each tracer's initial condition at the nodes of the whole mesh
                                (host; process 0's), in turn */
  struct fe_space **spaces;  /* each tracer's: one per set of Dirichlet nodes, shared */
  struct fe_coefficient_programs **cps; /* each tracer's */
  struct fe_scheme *scheme;
  struct fe_outputs out;
  /* each tracer at the start of a step, by the step's parity: kept on numerical failure (two
   * where a step is queued before the one before it ends, fe_scheme_queue_ahead; else one) */
  struct fe_vec **prev[2];
  struct fe_velocity *velocity; /* u(t): expressions or files; NULL without a velocity */
  struct fe_courant *courant;   /* the Courant number on the backend (advected cases only) */
  struct fe_vec *step_velocity; /* for it: the velocity at the start of the step, on the backend */
  int velocity_tdep;            /* whether it depends on t (else measured once) */
  struct fe_probe_location *probe_loc; /* <probes>: each probe's cell of the whole mesh and
                                          weights (host; process 0's, then every process's) */
  struct fe_probes *probes;            /* and on the backend */
  double rate, rate_time;              /* the Courant number of a step of length 1 at rate_time */
  double dt_lo, dt_hi;      /* cfl: the shortest and longest step not shortened to land */
  long at_dt_max;           /* cfl: steps of dt_max */
  struct fe_bounds *bounds; /* what the data allow each tracer */
  int fct_warned;           /* the low-order Courant number passed 1 (said once) */
  long step;                /* the last step ended */
  long first_step;          /* and the loop's first (the restart's, or 0), */
  double t_first;           /* at t_first */
  long n_ahead;             /* the steps that ended after the next one was queued */
  double t_start, t_loop0, last_progress;
  /* the set-up's phases (seconds): the mesh read or meshed (and handed to every process), cut
   * into parts, the backend started, the scheme's spaces and operators made */
  double t_mesh, t_partition, t_backend, t_operators;
  double t_reader; /* of t_mesh: the confined reader's (Gmsh's), on the process that read it */
  /* --verbose's parts of them: the mesh's conditions (of t_mesh: the rest of it less the
   * reader's is the mesh's numbering and checks), the outputs'
   * whole-mesh arrays and the initial values (of the rest), the spaces and the scheme (of
   * t_operators) */
  double t_resolve, t_outputs, t_values, t_spaces, t_scheme;
  double t_warm_up; /* the backend's start on a thread of its own, beside the mesh's reading */
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

/* The backend asked for: the command line's, else the case's. */
static int backend_kind(const struct fe_sim *s, enum fe_backend_kind *kind)
{
  if (s->opt->backend_set) {
    *kind = s->opt->backend;
    return FE_SUCCESS;
  }
  return fe_backend_parse(s->c->backend, kind);
}

static struct fe_backend_options backend_options(const struct fe_sim *s)
{
  return (struct fe_backend_options){
      .device = -1, .verbosity = s->opt->verbosity, .comm = s->opt->comm};
}

/* The backend's slow start (the GPU's) begun beside the mesh's reading. */
static int warm_up_backend(struct fe_sim *s)
{
  enum fe_backend_kind kind;
  FE_CALL(backend_kind(s, &kind));
  const struct fe_backend_options bo = backend_options(s);
  s->warm_up = fe_backend_warm_up(kind, &bo);
  return FE_SUCCESS;
}

/* cuda: the GPU or exit 4; auto: the GPU when one is usable, else the CPU, said once. */
static int pick_backend(struct fe_sim *s)
{
  enum fe_backend_kind kind;
  FE_CALL(backend_kind(s, &kind));
  s->t_warm_up = fe_backend_warm_up_end(s->warm_up);
  s->warm_up = NULL;
  const struct fe_backend_options bo = backend_options(s);
  return fe_backend_create(kind, &bo, &s->be);
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

static int agree(const struct fe_sim *s, int err);

/* Tracer k's expressions once on the mesh at the start: non-finite values are input errors,
 * found before anything is written.  Its initial condition is kept for fe_outputs_restore;
 * with all of them finite, the start's velocity shows the boundaries where the flow enters
 * without a Dirichlet value. */
static int evaluate_tracer(struct fe_sim *s, int k, const double *velocity, double *work)
{
  const struct fe_case *c = s->c;
  const struct fe_tracer *tr = &c->tracers[k];
  const struct fe_mesh *m = s->whole;
  const struct fe_bcs *bcs = s->whole_bcs[k];
  const double t = c->t_start;
  FE_CALL(fe_eval_nodes(tr->initial, m, t, s->initial + (long)k * m->n_nodes));
  FE_CALL(fe_eval_diffusivity(c, tr, m, t, work));
  if (tr->absorption) FE_CALL(fe_eval_absorption(c, tr, m, t, work));
  if (tr->exact) FE_CALL(fe_eval_nodes(tr->exact, m, t, work));
  FE_CALL(fe_eval_source(c, tr, m, t, work));
  FE_CALL(fe_eval_dirichlet(tr, m, bcs, t, work));
  FE_CALL(fe_eval_neumann_flux(c, tr, m, bcs, t, work));
  if (!velocity) return FE_SUCCESS;
  return fe_inflow_warn(c, c->n_tracers > 1 ? tr->name : NULL, m, bcs, t, velocity);
}

/* Every expression once on the whole mesh at the start (a later velocity is not evaluated
 * before its time: it may not be finite yet), by process 0 on several processes (the velocity
 * at the start read by all of them): its errors are every process's. */
static int evaluate_expressions(struct fe_sim *s)
{
  const struct fe_case *c = s->c;
  const struct fe_mesh *m = s->whole;
  double *work = NULL, *velocity = NULL;
  int err = FE_SUCCESS;
  if (s->velocity && m)
    err = fe_malloc((size_t)m->n_nodes * m->dim * sizeof *velocity, &velocity);
  if (s->velocity) { /* every process reads the files together */
    const int got = fe_velocity_host_whole(s->velocity, c->t_start, velocity);
    err = agree(s, err ? err : got);
  }
  long most = 0;
  for (int k = 0; m && k < s->n_tracers; k++) {
    const long n = fe_eval_max_values(m, s->whole_bcs[k]);
    most = n > most ? n : most;
  }
  if (!err && m)
    err = fe_malloc((size_t)m->n_nodes * s->n_tracers * sizeof *s->initial, &s->initial);
  if (!err && m) err = fe_malloc((size_t)most * sizeof *work, &work);
  for (int k = 0; !err && m && k < s->n_tracers; k++)
    err = evaluate_tracer(s, k, fe_scheme_advects(c) ? velocity : NULL, work);
  free(work);
  free(velocity);
  return agree(s, err);
}

/* The range tracer k's initial and Dirichlet values bound it to, where they do: without a
 * source or Neumann flux, with Dirichlet values fixed in time (with absorption, 0 too), and
 * without the conservative advection form, with which a converging flow concentrates it. */
static int init_bounds(struct fe_sim *s, int k)
{
  if (!s->whole) return FE_SUCCESS; /* process 0's, handed to the others (share_bounds) */
  const struct fe_scheme_tracer *x = &s->scheme->tracers[k];
  const struct fe_bcs *bcs = s->whole_bcs[k];
  const int concentrates = fe_scheme_advects(s->c) && s->c->conservative_advection != 0;
  const int bounded = x->src_zero && !bcs->n_neumann_facets && !x->bc_tdep && !concentrates;
  double *dirichlet;
  FE_MALLOC(bcs->n_dirichlet + 1, &dirichlet);
  const int err = fe_eval_dirichlet(x->tr, s->whole, bcs, s->c->t_start, dirichlet);
  if (!err)
    fe_bounds_init(&s->bounds[k], s->n_tracers > 1 ? x->tr->name : NULL, bounded,
                   s->whole->n_nodes, s->initial + (long)k * s->whole->n_nodes, bcs->n_dirichlet,
                   dirichlet, x->absorbs);
  free(dirichlet);
  return err;
}

/* Each tracer's bounds: process 0's on several processes. */
static int share_bounds(struct fe_sim *s)
{
  if (!s->dist) return FE_SUCCESS;
  return fe_comm_bcast(s->dist->comm, s->bounds, (int)(s->n_tracers * sizeof *s->bounds));
}

/* What process 0 alone did (lock, open the outputs, cut the mesh) or any process may fail at
 * alone (its GPU), known to every process: the largest exit code of any, which process 0 has
 * reported if it failed, else the processes that failed (app/processes.h). */
static int agree(const struct fe_sim *s, int err)
{
  const struct fe_comm *comm = s->dist ? s->dist->comm : s->opt->comm;
  if (!comm || comm->size == 1) return err;
  double code[2] = {err, comm->rank == 0 ? err : 0}; /* any process's, process 0's */
  FE_CALL(fe_comm_allreduce(comm, code, 2, FE_REDUCE_MAX));
  if (code[0] != 0 && s->opt->report) {
    s->opt->report->agreed = 1;
    s->opt->report->reported = code[1] != 0;
  }
  return (int)code[0];
}

/* Several processes: the mesh cut into parts by process 0, this process's the mesh the run
 * computes on, each tracer's boundary conditions on it (app/distribution.h). */
static int distribute(struct fe_sim *s)
{
  const struct fe_comm *comm = s->opt->comm;
  if (!comm || comm->size == 1) return FE_SUCCESS;
  FE_CALLOC(s->n_tracers, &s->bcs);
  FE_CALL(agree(s, fe_distribution_create(comm, s->whole, s->n_tracers, s->whole_bcs, s->bcs,
                                          &s->dist)));
  if (s->opt->verbosity > 1) fe_distribution_print(s->dist, stderr);
  s->m = s->dist->part;
  return FE_SUCCESS;
}

/* The case's mesh, read or meshed by the meshing process, which may read
 * the case file's folder besides the mesh file (or the one given, fe_options.mesh). */
static int read_mesh(struct fe_sim *s)
{
  if (s->opt->mesh) {
    s->m = s->opt->mesh;
    return FE_SUCCESS;
  }
  const struct fe_mesh_options mo = {.size = s->c->mesh_size,
                                     .read_dir = s->c->dir,
                                     .time_limit = s->opt->mesh_time_limit,
                                     .max_cells = s->opt->max_cells,
                                     .verbosity = s->opt->verbosity};
  return fe_mesh_read(s->c->mesh_file, &mo, &s->m);
}

/* What the whole mesh decides (process 0's on several processes): the velocity's components,
 * the probes' cells, each tracer's boundary conditions. */
static int resolve(struct fe_sim *s)
{
  FE_CALL(check_dimensions(s));
  FE_CALL(fe_case_probes_locate(s->c, s->whole, &s->probe_loc));
  FE_CALLOC(s->n_tracers, &s->whole_bcs);
  for (int k = 0; k < s->n_tracers; k++)
    FE_CALL(fe_bcs_create(s->c, &s->c->tracers[k], s->whole, &s->whole_bcs[k]));
  return FE_SUCCESS;
}

/* The mesh read (meshed) once, through the confined reader, and resolved: on several processes
 * by process 0 alone, whose errors are every process's (said by process 0), and which hands
 * the probes' cells to the others. */
static int read_and_resolve(struct fe_sim *s)
{
  const struct fe_comm *comm = s->opt->comm;
  const int several = comm && comm->size > 1;
  s->n_tracers = s->c->n_tracers;
  int err = !several || comm->rank == 0 ? read_mesh(s) : FE_SUCCESS;
  s->whole = s->m;
  if (s->whole && !s->opt->mesh) s->t_reader = s->whole->reader_seconds; /* read here */
  const double start = fe_wtime();
  if (!err && s->whole) err = resolve(s);
  s->t_resolve = fe_wtime() - start;
  if (!several) {
    s->bcs = s->whole_bcs;
    return err;
  }
  FE_CALL(agree(s, err));
  const long n = s->c->n_probes;
  if (!n) return FE_SUCCESS;
  if (comm->rank != 0) FE_MALLOC(n, &s->probe_loc);
  return fe_comm_bcast(comm, s->probe_loc, (int)(n * (long)sizeof *s->probe_loc));
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
  else if (c->strategy) /* else the backend's, once it is chosen */
    FE_CALL(fe_strategy_parse(c->strategy, &s->strategy));
  if (o->stabilisation_set) c->stabilisation = o->stabilisation;
  if (o->loads_set) c->loads = o->loads;
  FE_CALL(fe_case_check_scheme(c));
  const enum fe_steps_status steps =
      c->cfl > 0 ? fe_schedule_init_cfl(&s->sched, c->t_start, c->t_end, c->cfl, c->dt_max,
                                        c->output_every, c->output_period, c->checkpoint_every)
                 : fe_schedule_init(&s->sched, c->t_start, c->t_end, c->dt, c->output_every,
                                    c->checkpoint_every);
  FE_CHECK(steps == FE_STEPS_OK, FE_ERR_INPUT,
           "<time>: the time span cannot be stepped"); /* fe_case_read checks it */
  /* the outputs first: they take no time, meshing may take long */
  FE_CALL(fe_outputs_init(&s->out, o, c, &s->sched));
  FE_CALL(warm_up_backend(s));
  double start = fe_wtime();
  FE_CALL(read_and_resolve(s));
  s->t_mesh = fe_wtime() - start;
  start = fe_wtime();
  FE_CALL(distribute(s));
  s->t_partition = fe_wtime() - start;
  start = fe_wtime();
  FE_CALL(agree(s, pick_backend(s)));
  s->t_backend = fe_wtime() - start;
  if (!o->strategy_set && !c->strategy) { /* by the largest part: the same on every process */
    double cells = (double)s->m->n_cells;
    if (s->dist) FE_CALL(fe_comm_allreduce(s->dist->comm, &cells, 1, FE_REDUCE_MAX));
    s->strategy = (enum fe_strategy)s->be->assembly->default_strategy(s->m->dim, (long)cells);
  }
  start = fe_wtime();
  FE_CALL(fe_outputs_prepare(&s->out, s->whole ? s->whole : s->m, s->dist, s->be));
  s->t_outputs = fe_wtime() - start;
  start = fe_wtime();
  if (fe_case_has_velocity(c) && s->dist) /* velocity files read and checked */
    FE_CALL(fe_velocity_create_part(c, s->dist, s->be, o->verbosity, &s->velocity));
  else if (fe_case_has_velocity(c))
    FE_CALL(fe_velocity_create(c, s->m, s->be, o->verbosity, &s->velocity));
  FE_CALL(evaluate_expressions(s));
  s->t_values = fe_wtime() - start;
  return FE_SUCCESS;
}

/* Whether tracers j and k have the same Dirichlet nodes on the whole mesh: on every part (every
 * node of the mesh is in one), so that every process shares alike. */
static int same_dirichlet(const struct fe_sim *s, int j, int k, int *same)
{
  double equal = !memcmp(s->bcs[j]->is_dirichlet, s->bcs[k]->is_dirichlet, (size_t)s->m->n_nodes);
  if (s->dist) FE_CALL(fe_comm_allreduce(s->dist->comm, &equal, 1, FE_REDUCE_MIN));
  *same = equal != 0;
  return FE_SUCCESS;
}

/* Tracer k's function space: an earlier tracer's with the same Dirichlet nodes, else its own. */
static int space_of(struct fe_sim *s, int k)
{
  for (int j = 0; j < k; j++) {
    int same;
    FE_CALL(same_dirichlet(s, j, k, &same));
    if (same) {
      s->spaces[k] = s->spaces[j];
      return FE_SUCCESS;
    }
  }
  FE_CALL(fe_space_create(s->be, s->m, s->bcs[k]->is_dirichlet, &s->spaces[k]));
  s->spaces[k]->deterministic = s->opt->deterministic || s->c->deterministic;
  return FE_SUCCESS;
}

/* The probes on the backend; on several processes each sampled by the process that holds its
 * cell (app/distribution.h). */
static int create_probes(struct fe_sim *s)
{
  const long n = s->c->n_probes;
  if (!s->dist) return fe_probes_create(s->spaces[0], n, s->probe_loc, &s->probes);
  struct fe_probe_location *part;
  FE_MALLOC(n, &part);
  fe_distribution_probes(s->dist, n, s->probe_loc, part);
  const int err = fe_probes_create(s->spaces[0], n, part, &s->probes);
  free(part);
  return err;
}

/* The function spaces on the backend, each tracer's expressions compiled for it, the scheme. */
static int create_scheme(struct fe_sim *s)
{
  FE_CALLOC(s->n_tracers, &s->spaces);
  FE_CALLOC(s->n_tracers, &s->cps);
  FE_CALLOC(s->n_tracers, &s->prev[0]);
  FE_CALLOC(s->n_tracers, &s->prev[1]);
  FE_CALLOC(s->n_tracers, &s->bounds);
  double start = fe_wtime();
  for (int k = 0; k < s->n_tracers; k++) {
    FE_CALL(space_of(s, k));
    FE_CALL(fe_coefficient_programs_create(s->c, &s->c->tracers[k], s->bcs[k], s->spaces[k],
                                           &s->cps[k]));
    FE_CALL(fe_space_vec_create(s->spaces[k], &s->prev[0][k]));
    if (s->be->asynchronous) FE_CALL(fe_space_vec_create(s->spaces[k], &s->prev[1][k]));
  }
  s->t_spaces = fe_wtime() - start;
  start = fe_wtime();
  FE_CALL(fe_scheme_create(s->c, (const struct fe_bcs *const *)s->bcs, s->spaces,
                           (const struct fe_coefficient_programs *const *)s->cps, s->velocity,
                           s->strategy, s->opt->verbosity, &s->scheme));
  s->t_scheme = fe_wtime() - start;
  /* FESIM_TIME_SOLVES (set, not empty nor 0) in the environment: as fe_options.time_solves,
   * for benchmarks that run fesim itself (tools/bench/scaling.sh) */
  const char *time_solves = getenv("FESIM_TIME_SOLVES");
  s->scheme->time_solves =
      s->opt->time_solves || (time_solves && *time_solves && strcmp(time_solves, "0") != 0);
  if (s->c->fluxes)
    FE_CALL(fe_scheme_budget(s->scheme, s->out.n_flux_groups, s->out.flux_groups, s->out.lumped));
  if (s->c->n_probes)
    FE_CALL(create_probes(s));
  s->rate_time = NAN;
  if (!fe_scheme_advects(s->c)) return FE_SUCCESS; /* a Courant number of 0 */
  s->velocity_tdep = fe_velocity_time_dependent(s->velocity);
  FE_CALL(fe_courant_create(s->spaces[0], &s->courant));
  return fe_vec_create(s->be, (size_t)s->m->n_nodes * s->m->dim, &s->step_velocity);
}

/* ---------------------------------------------------------------- reports */

static void format_duration(double sec, char *buf, size_t n)
{
  long s = (long)(sec + 0.5);
  snprintf(buf, n, "%02ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
}

/* "k/n" with a fixed dt; "k" with cfl, whose number of steps is known at the end. */
static const char *step_count(const struct fe_sim *s, char *buf, size_t n)
{
  if (s->sched.cfl > 0)
    snprintf(buf, n, "%ld", s->step);
  else
    snprintf(buf, n, "%ld/%ld", s->step, s->sched.n_steps);
  return buf;
}

/* h: the length of the step just taken.  The time left, by steps (fixed dt) or by the
 * simulated time (cfl). */
static void progress(struct fe_sim *s, double t, double h, int final)
{
  const long first_step = s->first_step;
  const double t_first = s->t_first;
  char count[48];
  int adv = 0, diff = 0; /* every tracer's */
  for (int k = 0; k < s->n_tracers; k++) {
    adv += s->scheme->tracers[k].mass.iterations;
    diff += s->scheme->tracers[k].diffusion.iterations;
  }
  if (s->opt->verbosity >= 2) { /* --verbose: a line per step, terminal or not */
    fprintf(stderr, "step %s  t = %.9g  dt %.9g  CG advection %d  diffusion %d  wall %.3f s\n",
            step_count(s, count, sizeof count), t, h, adv, diff, fe_wtime() - s->t_loop0);
    return;
  }
  if (s->opt->verbosity == 0 || !isatty(STDERR_FILENO)) return;
  double now = fe_wtime();
  if (!final && now - s->last_progress < 0.2) return;
  s->last_progress = now;
  char eta[32];
  const double done = s->sched.cfl > 0 ? t - t_first : (double)(s->step - first_step);
  const double left = s->sched.cfl > 0 ? s->sched.end - t : (double)(s->sched.n_steps - s->step);
  format_duration((now - s->t_loop0) / done * left, eta, sizeof eta);
  fprintf(stderr, "\rstep %s  t = %-12.6g  CG advection %4d  diffusion %4d  ETA %s ",
          step_count(s, count, sizeof count), t, adv, diff, eta);
  if (final) fputc('\n', stderr);
}

/* The summary's line of a solve, every tracer's iterations summed, and each tracer's when
 * there are several. */
static void print_solves(const struct fe_sim *s, const char *what, double seconds, int mass)
{
  const struct fe_scheme *sc = s->scheme;
  long total = 0;
  for (int k = 0; k < sc->n_tracers; k++) {
    const struct fe_scheme_tracer *x = &sc->tracers[k];
    total += mass ? x->mass.total_iterations : x->diffusion.total_iterations;
  }
  const struct fe_system *first = mass ? &sc->tracers[0].mass : &sc->tracers[0].diffusion;
  printf("  %-10s %9.3f s, %ld %s iterations", what, seconds, total,
         fe_krylov_name(fe_krylov_kind(first->solver)));
  for (int k = 0; sc->n_tracers > 1 && k < sc->n_tracers; k++) {
    const struct fe_scheme_tracer *x = &sc->tracers[k];
    printf("%s%s %ld", k ? ", " : " (", x->tr->name,
           mass ? x->mass.total_iterations : x->diffusion.total_iterations);
  }
  printf("%s\n", sc->n_tracers > 1 ? ")" : "");
}

static void summary(const struct fe_sim *s, double t)
{
  const struct fe_scheme *sc = s->scheme;
  const struct fe_outputs *out = &s->out;
  const struct fe_assembly_times at = fe_scheme_assembly_times(sc);
  long adv_iters = 0, diff_iters = 0;
  for (int k = 0; k < sc->n_tracers; k++) {
    adv_iters += sc->tracers[k].mass.total_iterations;
    diff_iters += sc->tracers[k].diffusion.total_iterations;
  }
  const long steps = s->step - s->first_step;
  double total = fe_wtime() - s->t_loop0;
  if (s->opt->report)
    *s->opt->report = (struct fe_run_report){.steps = steps,
                                             .setup = s->t_loop0 - s->t_start,
                                             .loop = total,
                                             .output = out->t_out,
                                             .local = at.local,
                                             .global = at.global,
                                             .assemblies = at.count,
                                             .advection = sc->t_adv,
                                             .diffusion = sc->t_diff,
                                             .cg = sc->t_cg,
                                             .cg_iterations = adv_iters + diff_iters,
                                             .advection_iterations = adv_iters,
                                             .diffusion_iterations = diff_iters};
  if (s->opt->verbosity == 0) return;
  char processes[32] = "";
  if (s->dist) snprintf(processes, sizeof processes, " on %d processes", s->dist->comm->size);
  printf("fesim: %s: %ld steps to t = %.9g in %.3f s (backend %s%s, assembly %s)\n", s->c->name,
         s->step, t, total, s->be->description, processes, fe_strategy_name(sc->strategy));
  const double setup = s->t_loop0 - s->t_start,
               rest = setup - s->t_mesh - s->t_partition - s->t_backend - s->t_operators;
  char partition[48] = "", reader[48] = "", warm_up[64] = "";
  if (s->dist) snprintf(partition, sizeof partition, "partition %.3f s, ", s->t_partition);
  const double gmsh = s->t_reader;
  if (gmsh > 0) snprintf(reader, sizeof reader, " (Gmsh %.3f s)", gmsh);
  if (s->t_warm_up > 0 && strcmp(s->be->name, "cpu") != 0) /* the GPU's, not auto's look */
    snprintf(warm_up, sizeof warm_up, " (its start %.3f s, beside the mesh)", s->t_warm_up);
  printf("  set-up     %9.3f s: mesh %.3f s%s, %sbackend %.3f s%s, operators %.3f s, the rest "
         "%.3f s\n",
         setup, s->t_mesh, reader, partition, s->t_backend, warm_up, s->t_operators, rest);
  if (s->opt->verbosity >= 2)
    printf("             of them: the mesh's numbering and checks %.3f s, its conditions %.3f s; "
           "the spaces %.3f s, the scheme's operators %.3f s; the outputs' arrays %.3f s, the "
           "initial values %.3f s\n",
           s->t_mesh - gmsh - s->t_resolve, s->t_resolve, s->t_spaces, s->t_scheme, s->t_outputs,
           s->t_values);
  printf("  per step   %9.3f ms (outputs excluded)\n", 1e3 * (total - out->t_out) / (double)steps);
  printf("  assembly   %9.3f s local, %.3f s global (%d operator assemblies)\n", at.local,
         at.global, at.count);
  if (sc->n_tracers > 1) {
    int used, distinct;
    fe_scheme_operator_counts(sc, &used, &distinct);
    printf("  tracers    %d, sharing operators: %d distinct for the %d they use\n", sc->n_tracers,
           distinct, used);
  }
  if (sc->has_advection) print_solves(s, "advection", sc->t_adv, 1);
  print_solves(s, sc->implicit_advection ? "adv-diff" : "diffusion", sc->t_diff, 0);
  if (sc->n_read)
    printf(
        "  step ends  %9.3f s waiting for the device (the solves' results, read once a step; %ld "
        "of %ld steps ended after the next was queued)\n",
        sc->t_wait, s->n_ahead, steps);
  printf("  output     %9.3f s, %ld dumps: %s, %s\n", out->t_out, out->n_dumps, out->series_path,
         out->stat_path);
  char rule[32];
  if (s->probes)
    printf("  probes     %ld, %s: %s\n", s->probes->n, fe_case_probes_rule(s->c, rule, sizeof rule),
           out->probes_path);
  if (s->sched.cfl > 0 && s->dt_hi > 0)
    printf("  steps      cfl %g: dt from %.3g to %.3g, %ld of them dt_max %g (steps shortened to "
           "land on output times left out)\n",
           s->sched.cfl, s->dt_lo, s->dt_hi, s->at_dt_max, s->sched.dt_max);
  if (sc->c->stabilisation == FE_STABILISATION_FCT && sc->has_advection)
    printf("  fct        low-order Courant number at most %.3g (%s)\n", sc->fct_courant,
           sc->fct_courant <= 1 ? "<= 1: no new extrema" : "> 1: bounds not guaranteed");
  for (int k = 0; k < s->n_tracers; k++) fe_bounds_summary(&s->bounds[k]);
}

/* The Courant number of a step of length 1 at the velocity given (host, at the nodes of the
 * run's mesh): the cell loop the run uses on its backend (assembly/courant.h), the largest of
 * every part's on several processes. */
static int courant_rate_host(const struct fe_sim *s, const double *velocity, double *rate)
{
  double *inv_height;
  FE_MALLOC(s->m->n_cells, &inv_height);
  fe_courant_inverse_heights(s->m, inv_height);
  *rate = fe_courant_rate_host(s->m, inv_height, velocity);
  free(inv_height);
  return s->dist ? fe_comm_allreduce(s->dist->comm, rate, 1, FE_REDUCE_MAX) : FE_SUCCESS;
}

/* The low-order Courant number of flux-corrected transport at the first step (of length h): one
 * limited step of a zero field on the run's backend (velocity: n_nodes * dim values at the
 * start). */
static int fct_courant(const struct fe_sim *s, const double *velocity, double h, double *courant)
{
  struct fe_space *space = NULL;
  struct fe_fct *fct = NULL;
  struct fe_vec *u = NULL, *out = NULL;
  double *vel = NULL;
  const size_t n = (size_t)s->m->n_nodes;
  int err = fe_space_create(s->be, s->m, s->bcs[0]->is_dirichlet, &space);
  if (!err) err = fe_fct_create(space, s->c->conservative_advection, &fct);
  if (!err) err = fe_backend_alloc(s->be, n * (size_t)s->m->dim * sizeof(double), velocity, &vel);
  if (!err) err = fe_vec_create(s->be, n, &u);
  if (!err) err = fe_vec_create(s->be, n, &out);
  if (!err) err = fe_vec_set(u, 0.0);
  if (!err) err = fe_fct_step(fct, vel, u, NULL, h, out, courant, NULL);
  fe_vec_destroy(u);
  fe_vec_destroy(out);
  fe_backend_free(s->be, vel);
  fe_fct_destroy(fct);
  fe_space_destroy(space);
  return err;
}

/* FE_ERR_NUMERICAL: the step after `step` (ended at t) cannot be taken: the Courant number
 * (rate, of a step of length 1) makes the steps too short to go on (status, fe_schedule_next). */
static int steps_too_short(const struct fe_schedule *sc, long step, double t, double rate,
                           const struct fe_step *st, enum fe_steps_status status)
{
  if (status == FE_STEPS_TOO_MANY)
    FE_RAISE(FE_ERR_NUMERICAL,
             "after %ld steps, at t = %.9g of %.9g, the steps are still %.3g long (cfl %g: the "
             "largest |u| / h is %g): more than %.0e steps; the flow is too fast for the mesh "
             "and the time span",
             step, t, sc->end, st->length, sc->cfl, rate, (double)FE_MAX_STEPS);
  FE_RAISE(FE_ERR_NUMERICAL,
           "at t = %.9g the Courant number asks for a step of %.3g (cfl %g: the largest |u| / h "
           "is %g), too short to advance the time; the flow is too fast for the mesh",
           t, st->length, sc->cfl, rate);
}

/* --check's time steps: a fixed dt, or the rule of cfl and the first step it takes. */
static void print_time(const struct fe_sim *s, const struct fe_step *first)
{
  const struct fe_case *c = s->c;
  const struct fe_schedule *sc = &s->sched;
  if (!(sc->cfl > 0)) {
    printf("time      %.9g to %.9g, dt %.9g, %ld steps (last step %.9g)\n", c->t_start, c->t_end,
           c->dt, sc->n_steps, fe_schedule_length(sc, sc->n_steps));
    return;
  }
  printf("time      %.9g to %.9g, each step from the Courant number: cfl %.9g, dt_max %.9g; the "
         "first step %.9g%s\n",
         c->t_start, c->t_end, sc->cfl, sc->dt_max, first->length,
         first->length < sc->dt_max ? "" : " (dt_max)");
}

static void print_output(const struct fe_sim *s)
{
  const struct fe_case *c = s->c;
  const char *checkpoints = c->checkpoint_every ? "checkpoints" : "no checkpoints";
  if (c->output_every)
    printf("output    %s: a dump every %d steps, %s\n", s->out.dir, c->output_every, checkpoints);
  else
    printf("output    %s: a dump every %.9g in time (%ld output times and the end), %s\n",
           s->out.dir, c->output_period, s->sched.n_outputs, checkpoints);
}

/* --check's lines of <fluxes>: the boundary groups and each tracer's budget columns. */
static void print_fluxes(const struct fe_sim *s)
{
  const struct fe_outputs *o = &s->out;
  const struct fe_mesh *m = s->whole;
  if (!s->c->fluxes) return;
  printf("fluxes    %d boundary group%s:", o->n_flux_groups, o->n_flux_groups == 1 ? "" : "s");
  for (int g = 0; g < o->n_flux_groups; g++) {
    const struct fe_physical *p = &m->groups[o->flux_groups[g]];
    int nf = 0;
    for (int f = 0; f < m->n_facets; f++)
      nf += m->facet_group[f] == p->tag && (!m->facet_cells || m->facet_cells[f] == 1);
    printf("%s %s (tag %d, %d boundary facets)", g ? "," : "", p->name[0] ? p->name : "unnamed",
           p->tag, nf);
  }
  printf("%s\n          stat columns of %s:", o->n_flux_groups ? "" : " none",
         s->n_tracers > 1 ? "each tracer (NAME%COLUMN)" : "the tracer");
  for (int g = 0; g < o->n_flux_groups; g++)
    printf(" advective_flux%%%s diffusive_flux%%%s", o->flux_labels[g], o->flux_labels[g]);
  printf(" source absorption divergence: rates over each step, positive into the domain\n");
}

/* --check's line of tracer k's loads: how its source and Neumann fluxes enter. */
static void print_loads(const struct fe_sim *s, int k)
{
  const struct fe_case *c = s->c;
  const int d = s->m->dim, source = !fe_expr_is_zero(c->tracers[k].source);
  const int neumann = s->bcs[k]->n_neumann_facets > 0;
  const char *what = source && neumann ? "source and Neumann fluxes"
                     : source          ? "source"
                                       : "Neumann fluxes";
  if (!source && !neumann)
    printf("loads     none (no source, no Neumann flux)\n");
  else if (c->loads == FE_LOADS_INTERPOLATED)
    printf("loads     %s interpolated: nodal values through the mass matrices (as Fluidity)\n",
           what);
  else {
    struct fe_quadrature cell, facet;
    fe_quadrature_simplex(d, &cell);
    fe_quadrature_simplex(d - 1, &facet);
    printf("loads     %s by quadrature of degree %d: %d points per %s, %d per %s\n", what,
           cell.degree, cell.n, d == 2 ? "triangle" : "tetrahedron", facet.n,
           d == 2 ? "edge" : "face");
  }
}

/* --check's lines of tracer k: its terms, the operators it shares with an earlier tracer, its
 * boundary conditions and loads. */
static void print_tracer(const struct fe_sim *s, int k)
{
  static const char *const kinds[] = {"mass", "advection", "diffusion"};
  const struct fe_case *c = s->c;
  const struct fe_mesh *m = s->whole;
  const struct fe_tracer *tr = &c->tracers[k];
  char text[FE_QUOTE_SIZE];
  printf("tracer    %s:", tr->name);
  if (tr->n_diffusivity == 1)
    printf(" diffusivity %s",
           fe_quote(fe_expr_text(tr->diffusivity[0]), FE_QUOTE_MAX, text, sizeof text));
  else
    printf(" diffusivity tensor (%d components)", tr->n_diffusivity);
  if (!fe_expr_is_zero(tr->source))
    printf(", source %s", fe_quote(fe_expr_text(tr->source), FE_QUOTE_MAX, text, sizeof text));
  if (tr->absorption)
    printf(", absorption %s",
           fe_quote(fe_expr_text(tr->absorption), FE_QUOTE_MAX, text, sizeof text));
  printf("%s\n", tr->exact ? ", exact solution given" : "");
  for (int kind = 0; kind < 3 && k > 0; kind++)
    for (int j = 0; j < k; j++)
      if (fe_scheme_coincide(c, (enum fe_operator_kind)kind, &c->tracers[j], s->whole_bcs[j],
                             tr, s->whole_bcs[k], m->n_nodes)) {
        printf("          shares the %s operator of tracer %s\n", kinds[kind], c->tracers[j].name);
        break;
      }
  for (int b = 0; b < tr->n_boundaries; b++) {
    const struct fe_boundary *bd = &tr->boundaries[b];
    printf("boundary ");
    for (int r = 0; r < bd->n_refs; r++) {
      const struct fe_physical *g = fe_mesh_find_group(m, m->dim - 1, bd->refs[r]);
      int nf = 0;
      for (int f = 0; f < m->n_facets; f++) nf += m->facet_group[f] == g->tag;
      printf(" %s (tag %d, %d facets)", g->name[0] ? g->name : "unnamed", g->tag, nf);
    }
    printf(": %s %s\n", bd->kind == FE_BC_DIRICHLET ? "dirichlet" : "neumann",
           fe_quote(fe_expr_text(bd->value), FE_QUOTE_MAX, text, sizeof text));
  }
  printf("          %ld Dirichlet nodes; other boundaries: zero flux\n",
         s->whole_bcs[k]->n_dirichlet);
  print_loads(s, k);
}

/* --check: what the run would do, the Courant number from the velocity at the start (every
 * process takes part; process 0 prints). */
static int print_check(const struct fe_sim *s)
{
  const struct fe_case *c = s->c;
  const struct fe_mesh *m = s->whole;
  const int advects = fe_scheme_advects(c);
  const int fct = advects && c->stabilisation == FE_STABILISATION_FCT;
  double *velocity = NULL, rate = 0, courant = 0;
  struct fe_step first;
  if (advects) {
    FE_MALLOC(s->m->n_nodes * s->m->dim, &velocity);
    int err = fe_velocity_host(s->velocity, c->t_start, velocity);
    if (!err) err = courant_rate_host(s, velocity, &rate);
    const enum fe_steps_status status =
        err ? FE_STEPS_OK : fe_schedule_next(&s->sched, 0, c->t_start, rate, &first);
    if (status != FE_STEPS_OK)
      err = steps_too_short(&s->sched, 0, c->t_start, rate, &first, status);
    if (!err && fct) err = fct_courant(s, velocity, first.length, &courant);
    free(velocity);
    FE_CALL(err);
  } else {
    fe_schedule_next(&s->sched, 0, c->t_start, 0, &first);
  }
  if (!m) return FE_SUCCESS; /* the other processes of several */
  printf("case      %s (%s)\n", c->name, c->path);
  for (int i = 0; i < c->params.n; i++) /* each evaluated once, when the case was read */
    printf("%s %s = %.15g%s", i ? "," : "parameters", c->params.names[i], c->params.values[i],
           i + 1 < c->params.n ? "" : "\n");
  printf("mesh      %s: %dD, %d nodes, %d %s\n", m->path, m->dim, m->n_nodes, m->n_cells,
         m->dim == 2 ? "triangles" : "tetrahedra");
  if (s->dist) fe_distribution_print(s->dist, stdout);
  if (m->n_links)
    printf("periodic  %d links of %s; %d nodes are copies of others: %d unknowns\n", m->n_links,
           m->dim == 2 ? "curves and points" : "surfaces, curves and points", m->n_aliased,
           fe_mesh_n_unknowns(m));
  if (s->velocity) {
    char what[512];
    fe_velocity_describe(s->velocity, what, sizeof what);
    printf("velocity  %s\n", what);
  }
  for (int k = 0; k < c->n_tracers; k++) print_tracer(s, k);
  print_time(s, &first);
  const int implicit = advects && c->advection == FE_ADVECTION_THETA, supg = fe_scheme_supg(c);
  if (implicit)
    printf(
        "scheme    advection in the theta scheme with the diffusion (unsplit), %s mass, theta %g\n",
        c->mass == FE_MASS_LUMPED ? "lumped" : "consistent", c->theta);
  else
    printf("scheme    %s splitting, advection %s, %s mass, theta %g\n",
           c->splitting == FE_SPLIT_STRANG ? "strang" : "lie",
           fct       ? "ssp-rk3 fct (flux-corrected, bounded)"
           : advects ? "rk4"
                     : "none",
           c->mass == FE_MASS_LUMPED ? "lumped" : "consistent", c->theta);
  if (supg)
    printf("SUPG      xi %s, nu_scale %g: mass, absorption, advection and source tested with "
           "N + tau u . grad N\n",
           fe_nu_bar_name(c->nu_bar), c->nu_scale);
  if (advects)
    printf("advection %s form: u . grad T%s (conservative_advection %g)\n",
           c->conservative_advection == 1   ? "conservative"
           : c->conservative_advection == 0 ? "non-conservative"
                                            : "blended",
           c->conservative_advection == 0 ? "" : " + beta (div u) T", c->conservative_advection);
  const double cfl = rate * first.length;
  if (advects)
    printf("CFL       %.3g (max |u| dt / h at t = %.9g%s)\n", cfl, c->t_start,
           c->cfl > 0 ? ", the first step" : "");
  if (advects && !fct && !implicit) {
    const int lumped = c->mass == FE_MASS_LUMPED;
    const double stable = fe_rk4_stable_courant(lumped, supg ? 2 * c->nu_scale : 0);
    printf("stability RK4 with %s is stable up to a Courant number of about %.3g (1D Fourier "
           "analysis, %s mass)%s\n",
           supg ? "SUPG" : "Galerkin", stable, lumped ? "lumped" : "consistent",
           cfl > stable ? ": this case's is above it" : "");
  }
  if (implicit)
    printf("stability %s\n", c->theta >= 0.5 ? "no Courant number limit (implicit, theta >= 1/2)"
                                             : "theta < 1/2: the implicit advection is not "
                                               "unconditionally stable");
  if (fct && courant > 0)
    printf("FCT       low-order Courant number %.3g at t = %.9g (bounded when <= 1: dt <= %.3g)\n",
           courant, c->t_start, first.length / courant);
  if (fct && !(courant > 0))
    printf("FCT       low-order Courant number 0 at t = %.9g (no flow)\n", c->t_start);
  printf("solver    %s%s, %s, rtol %g, atol %g, max %d iterations\n",
         fe_krylov_name(fe_scheme_diffusion_solver(c)),
         supg       ? " (SUPG: not symmetric)"
         : implicit ? " (advection in the operator: not symmetric)"
                    : "",
         c->preconditioner == FE_PC_JACOBI ? "jacobi" : "no preconditioner", c->rtol, c->atol,
         c->max_iterations);
  printf("assembly  %s on backend %s%s\n", fe_strategy_name(s->strategy), s->be->description,
         !s->opt->strategy_set && !s->c->strategy ? " (the backend's default for this mesh)" : "");
  print_output(s);
  print_fluxes(s);
  fe_case_probes_print(c, m, s->probe_loc, s->out.probes_path);
  if (s->opt->restart)
    printf("restart   %s: step %ld, t = %.17g, %ld dumps; verified against the case, the mesh and "
           "%s\n",
           s->opt->restart, s->out.restart.step, s->out.restart.time, s->out.restart.n_dumps,
           s->out.stat_path);
  return FE_SUCCESS;
}

/* ---------------------------------------------------------------- the time loop */

/* After a SIGINT or SIGTERM: the step is finished and its stat row written;
 * a checkpoint keeps it (dumps keep their schedule, so that a restart writes
 * the files an uninterrupted run would). */
static int stopped(struct fe_sim *s, double t)
{
  if (s->out.saved_step != s->step)
    FE_CALL(fe_outputs_write_checkpoint(&s->out, s->scheme, s->step, t));
  fprintf(stderr, "\nfesim: stopped by %s after step %ld (t = %.9g); continue with --restart %s\n",
          stop_signal == SIGINT ? "SIGINT" : "SIGTERM", s->step, t, s->out.saved_path);
  return FE_ERR_INTERRUPTED;
}

/* The state after s->step, at t, kept in a checkpoint after a numerical failure (the dumps
 * written so far are untouched).  When that state already is in a checkpoint (written on
 * schedule, or the one this run restarted from), that file is named and not written again. */
static int keep_state(struct fe_sim *s, double t)
{
  const struct fe_outputs *out = &s->out;
  if (out->saved_step != s->step)
    FE_CALL(fe_outputs_write_checkpoint(&s->out, s->scheme, s->step, t));
  fprintf(stderr,
          "fesim: the last good state (step %ld, t = %.9g) is in %s; the dumps up to t = %.9g are "
          "in %s\n",
          s->step, t, out->saved_path, out->dump_times[out->n_dumps - 1], out->series_path);
  return FE_ERR_NUMERICAL;
}

/* Where each tracer is kept at the start of step `step`. */
static struct fe_vec **prev_of(const struct fe_sim *s, long step)
{
  return s->prev[s->be->asynchronous ? step & 1 : 0];
}

/* The tracers as they were at the start of step `step` (its work, and any queued after it,
 * undone). */
static int back_to_start(struct fe_sim *s, long step)
{
  struct fe_vec **prev = prev_of(s, step);
  for (int k = 0; k < s->n_tracers; k++)
    FE_CALL(fe_vec_copy(prev[k], s->scheme->tracers[k].tracer));
  return FE_SUCCESS;
}

/* After a numerical failure in step st: the tracers go back to the last good state. */
static int keep_last_good(struct fe_sim *s, const struct fe_step *st)
{
  s->step = st->step - 1;
  FE_CALL(back_to_start(s, st->step));
  return keep_state(s, st->t0);
}

/* The velocity at t, where the Courant number found it not finite, named on the host. */
static int name_velocity(const struct fe_sim *s, double t, double rate)
{
  double *host;
  FE_MALLOC(s->m->n_nodes * s->m->dim, &host);
  const int err = fe_velocity_host(s->velocity, t, host); /* FE_ERR_INPUT naming it */
  free(host);
  FE_CALL(err);
  FE_RAISE(FE_ERR_NUMERICAL,
           "the Courant number at t = %.9g is %g, while every velocity is finite: |u| / h "
           "overflows",
           t, rate);
}

/* *rate = the Courant number of a step of length 1 from t, from the velocity at t on the
 * backend (measured once when it does not depend on t); 0 when the case is not advected. */
static int step_rate(struct fe_sim *s, double t, double *rate)
{
  *rate = 0;
  if (!s->courant) return FE_SUCCESS;
  if (t != s->rate_time && (s->velocity_tdep || isnan(s->rate_time))) {
    FE_CALL(fe_velocity_at(s->velocity, s->spaces[0], t, s->step_velocity));
    FE_CALL(fe_courant_rate(s->courant, s->step_velocity->a, &s->rate));
    if (!isfinite(s->rate)) return name_velocity(s, t, s->rate);
    s->rate_time = t;
  }
  *rate = s->rate;
  return FE_SUCCESS;
}

/* The step after s->step, which ended at t, and the Courant number of a step of length 1 from
 * t.  FE_ERR_NUMERICAL when the Courant number makes the steps too short to go on. */
static int next_step(struct fe_sim *s, long step, double t, double *rate, struct fe_step *st)
{
  FE_CALL(step_rate(s, t, rate));
  const enum fe_steps_status status = fe_schedule_next(&s->sched, step, t, *rate, st);
  return status == FE_STEPS_OK ? FE_SUCCESS
                               : steps_too_short(&s->sched, step, t, *rate, st, status);
}

/* Each tracer's extrema in the stat row against what its data allow. */
static int check_bounds(struct fe_sim *s, const struct fe_stat_row *row, double t)
{
  for (int k = 0; k < s->n_tracers; k++)
    FE_CALL(fe_bounds_check(&s->bounds[k], row->tracers[k].min, row->tracers[k].max, s->step, t));
  return FE_SUCCESS;
}

/* Whether the probes' row is written after step st. */
static int probes_due(const struct fe_sim *s, const struct fe_step *st)
{
  return s->probes && (st->last || st->step % s->c->probes_every == 0);
}

/* Step st queued (its work on the backend, each tracer kept at its start), and its stat
 * row's values, and the probes' where due, queued behind it: the host waits for them at the
 * step's end (end_step), once. */
static int queue_step(struct fe_sim *s, const struct fe_step *st)
{
  struct fe_vec **prev = prev_of(s, st->step);
  for (int k = 0; k < s->n_tracers; k++)
    FE_CALL(fe_vec_copy(s->scheme->tracers[k].tracer, prev[k]));
  FE_CALL(fe_scheme_step(s->scheme, st->step, st->t0, st->length));
  const struct fe_probes *probes = probes_due(s, st) ? s->probes : NULL;
  return fe_outputs_queue(&s->out, s->scheme, probes, st->step, st->t1);
}

/* The end of step st, queued: its solves' results and its stat row (which checks the field is
 * finite), at the schedule's t1 as the dumps and checkpoints of the step are: t0 + length may
 * differ from it in the last bit.  courant: the step's largest Courant number. */
static int step_results(struct fe_sim *s, const struct fe_step *st, double courant)
{
  const double t0 = st->t0, h = st->length;
  FE_CALL(fe_scheme_step_end(s->scheme, st->step, h));
  const double low = s->scheme->fct_courant;
  if (low > 1 && !s->fct_warned && s->opt->verbosity > 0)
    fprintf(stderr,
            "fesim: warning: step %ld (t = %.9g): the FCT low-order Courant number is %.3g > 1: "
            "new extrema are possible; a dt of at most %.3g keeps it below 1\n",
            st->step, t0, low, h / low);
  s->fct_warned |= low > 1;
  struct fe_stat_row row;
  FE_CALL(
      fe_outputs_write_stat(&s->out, s->scheme, st->step, st->t1, h, courant, s->t_loop0, &row));
  return check_bounds(s, &row, st->t1);
}

/* cfl: the range of the steps the Courant number and dt_max chose, for the summary. */
static void note_step(struct fe_sim *s, const struct fe_step *st)
{
  if (!(s->sched.cfl > 0) || st->shortened) return;
  s->dt_lo = s->dt_hi > 0 ? fmin(s->dt_lo, st->length) : st->length;
  s->dt_hi = fmax(s->dt_hi, st->length);
  s->at_dt_max += st->length >= s->sched.dt_max;
}

/* The probes' row of s->step (ended at t); a numerical failure there keeps the state, which is
 * good: the step's stat row found the tracer finite (ahead: the next step was queued, so the
 * state is the one it started from). */
static int write_probes(struct fe_sim *s, double t, int ahead)
{
  const int err = fe_outputs_write_probes(&s->out, s->scheme, s->probes, s->step, t);
  if (err != FE_ERR_NUMERICAL) return err;
  if (ahead) FE_CALL(back_to_start(s, s->step + 1));
  return keep_state(s, t);
}

/* A SIGINT or SIGTERM on any process: every process stops after the same step. */
static int stop_requested(const struct fe_sim *s)
{
  double any = stop_signal;
  if (s->dist && fe_comm_allreduce(s->dist->comm, &any, 1, FE_REDUCE_MAX)) return 0;
  if (any && !stop_signal) stop_signal = (sig_atomic_t)any;
  return any != 0;
}

/* A step queued and not ended, and its largest Courant number. */
struct queued {
  struct fe_step st;
  double courant;
};

/* The end of step q (ahead: the next step was queued already): its results, its stat and
 * probes rows, its dump and checkpoint, the progress. */
static int end_step(struct fe_sim *s, const struct queued *q, int ahead)
{
  const struct fe_step *st = &q->st;
  s->step = st->step;
  const int err = step_results(s, st, q->courant);
  if (err == FE_ERR_NUMERICAL) return keep_last_good(s, st);
  FE_CALL(err);
  note_step(s, st);
  if (probes_due(s, st)) FE_CALL(write_probes(s, st->t1, ahead));
  if (st->dump) FE_CALL(fe_outputs_write_dump(&s->out, s->scheme, s->step, st->t1));
  if (st->checkpoint) FE_CALL(fe_outputs_write_checkpoint(&s->out, s->scheme, s->step, st->t1));
  progress(s, st->t1, st->length, st->last);
  return FE_SUCCESS;
}

/* The steps, each queued and then ended.  Where the scheme allows it (fe_scheme_queue_ahead)
 * and the step writes no dump or checkpoint and is not the last, its end waits until the next
 * step is queued: the GPU then goes on with that step's work while the host reads this one's
 * results and writes its rows, instead of idling until the host queues more.  A step that
 * fails is found at its end, as before: the tracers go back to its start (also where the next
 * step was queued) and the state before it is kept. */
static int time_loop(struct fe_sim *s, double t)
{
  s->first_step = s->step;
  s->t_first = t;
  struct fe_outputs *out = &s->out;
  s->t_loop0 = fe_wtime();
  if (!s->opt->restart) {
    struct fe_stat_row row;
    FE_CALL(fe_outputs_queue(out, s->scheme, s->probes, s->step, t));
    FE_CALL(fe_outputs_write_stat(out, s->scheme, s->step, t, 0, 0, s->t_loop0, &row));
    FE_CALL(check_bounds(s, &row, t));
    if (s->probes) FE_CALL(write_probes(s, t, 0));
    FE_CALL(fe_outputs_write_dump(out, s->scheme, s->step, t));
  }
  /* FESIM_QUEUE_AHEAD=0: every step ends before the next is queued (to compare) */
  const char *env = getenv("FESIM_QUEUE_AHEAD");
  const int may_queue_ahead = !(env && !strcmp(env, "0"));
  struct queued pending;
  int have_pending = 0;
  long step = s->step; /* the last step queued, which ended at t */
  while (!fe_schedule_done(&s->sched, step, t)) {
    struct queued q;
    double rate;
    const int next = next_step(s, step, t, &rate, &q.st);
    int err = next;
    if (!next) {
      q.courant = rate * q.st.length;
      err = queue_step(s, &q.st);
    }
    if (have_pending) { /* it came first: so does its failure */
      have_pending = 0;
      FE_CALL(end_step(s, &pending, !next));
    }
    if (next == FE_ERR_NUMERICAL) return keep_state(s, t);
    FE_CALL(next);
    if (err == FE_ERR_NUMERICAL) return keep_last_good(s, &q.st);
    FE_CALL(err);
    step = q.st.step;
    t = q.st.t1;
    if (may_queue_ahead && fe_scheme_queue_ahead(s->scheme) && !q.st.dump && !q.st.checkpoint &&
        !q.st.last) {
      pending = q;
      have_pending = 1;
      s->n_ahead++;
    } else {
      FE_CALL(end_step(s, &q, 0));
    }
    if (!q.st.last && stop_requested(s)) {
      if (have_pending) FE_CALL(end_step(s, &pending, 0));
      return stopped(s, t);
    }
  }
  if (have_pending) FE_CALL(end_step(s, &pending, 0)); /* (the last step is never pending) */
  summary(s, t);
  return FE_SUCCESS;
}

/* ---------------------------------------------------------------- the run */

/* Tracer k's space, unless a later tracer shares it: destroyed with the last of them. */
static void destroy_space(struct fe_sim *s, int k)
{
  for (int j = k + 1; j < s->n_tracers; j++)
    if (s->spaces[j] == s->spaces[k]) return;
  fe_space_destroy(s->spaces[k]);
}

static void sim_destroy(struct fe_sim *s)
{
  if (s->whole_bcs && s->whole_bcs != s->bcs) {
    for (int k = 0; k < s->n_tracers; k++) fe_bcs_destroy(s->whole_bcs[k]);
    free(s->whole_bcs);
  }
  fe_scheme_destroy(s->scheme);
  fe_courant_destroy(s->courant);
  fe_vec_destroy(s->step_velocity);
  fe_velocity_destroy(s->velocity);
  fe_probes_destroy(s->probes);
  free(s->probe_loc);
  for (int k = 0; k < s->n_tracers; k++) {
    for (int i = 0; i < 2; i++)
      if (s->prev[i]) fe_vec_destroy(s->prev[i][k]);
    if (s->cps) fe_coefficient_programs_destroy(s->cps[k]);
    if (s->spaces) destroy_space(s, k);
    if (s->bcs) fe_bcs_destroy(s->bcs[k]);
  }
  free(s->prev[0]);
  free(s->prev[1]);
  free(s->cps);
  free(s->spaces);
  free(s->bcs);
  free(s->bounds);
  free(s->initial);
  fe_outputs_destroy(&s->out);
  fe_distribution_destroy(s->dist);
  if (s->whole != s->opt->mesh) fe_mesh_destroy(s->whole);
  if (s->c != s->opt->case_data) fe_case_destroy(s->c);
  fe_backend_destroy(s->be);
  fe_backend_warm_up_end(s->warm_up);
}

/* Read-only until fe_outputs_lock: a run refused before it (bad case, mesh,
 * checkpoint, stat file, names, another case's outputs) leaves nothing behind. */
static int run(struct fe_sim *s)
{
  FE_CALL(setup(s));
  if (s->opt->restart) /* process 0 reads the checkpoint (fe_outputs_restore hands it out) */
    FE_CALL(agree(s, s->whole ? fe_outputs_check_restart(&s->out) : FE_SUCCESS));
  if (s->opt->check) return print_check(s);
  FE_CALL(fe_outputs_claim(&s->out));
  const double start = fe_wtime();
  FE_CALL(create_scheme(s));
  s->t_operators = fe_wtime() - start;
  for (int k = 0; k < s->n_tracers; k++) FE_CALL(agree(s, init_bounds(s, k)));
  FE_CALL(share_bounds(s));
  FE_CALL(agree(s, fe_outputs_lock(&s->out)));
  catch_stop_signals();
  FE_CALL(agree(s, fe_outputs_open(&s->out)));
  double t;
  FE_CALL(fe_outputs_restore(&s->out, s->initial, s->scheme, &s->step, &t));
  return time_loop(s, t);
}

int fe_run(const struct fe_options *o)
{
  struct fe_sim s = {.opt = o, .t_start = fe_wtime()};
  int err = run(&s);
  sim_destroy(&s);
  return err;
}
