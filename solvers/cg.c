#include "solvers/cg.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/timer.h"
#include "solvers/jacobi.h"
#include "solvers/readback.h"

/* Loops on the device kept per (operator at its version, systems, preconditioner): a time
 * step solves a few systems again and again, each with its own graph. */
#define FE_CG_LOOPS 16

struct fe_cg_loop_key {
  const struct fe_op *a;
  long version;
  int m;
  const struct fe_cg *cg[FE_CG_MANY];
  const double *b[FE_CG_MANY];
  double *x[FE_CG_MANY];
  int current[FE_CG_MANY]; /* x's ghosts current: the start's exchange left out of the graph */
  const double *dinv;
  double rtol, atol;
  int max_iterations;
};

struct fe_cg {
  const struct fe_backend *be;
  struct fe_vec *r, *z, *p, *q;
  struct fe_jacobi *jacobi;
  struct fe_cg_state *state;    /* on the backend */
  double *going;                /* on the backend: how many systems of a batch go on, */
  struct fe_cg_state *gathered; /* and their states, FE_CG_MANY (fe_cg_ops.going) */
  /* FE_CG_DRIVE_AUTO's look-ahead: this process's time per iteration of its last host-driven
   * solve, the slowest process's of one of the solves before (agreed), and the iterations of
   * the last solve, which every process counts alike */
  double iteration_seconds, agreed_seconds;
  int last_iterations;
  long host_solves;
  struct {
    struct fe_cg_loop_key key;
    void *loop;
    long used; /* the solve that used it last */
    int keep;  /* its solve keeps x's ghosts current (struct solve) */
  } loops[FE_CG_LOOPS];
  long solves;
};

/* The cost of waiting for a residual before queueing the next iteration: the
 * copy's latency plus the GPU idling until new kernels arrive (4-10 us per
 * iteration measured at 0.5M unknowns on an H100, docs/performance.md; 20 us
 * bounds it here).  Looking one iteration ahead removes it from each of a solve's
 * k iterations and costs one iteration more: it pays when an iteration is shorter
 * than k waits.  The solves of a time step are short (2 to 4 iterations for the mass
 * and diffusion solves of the benchmark cases), so on a large mesh the iteration
 * looked ahead costs more than the waits it saves (docs/performance.md). */
#define FE_CG_WAIT_SECONDS 20e-6
#define FE_CG_TYPICAL_ITERATIONS 10
/* The host-driven solves after which the processes agree on the time per iteration again (a
 * host all-reduce, the slowest process's): the first four, then every 32nd. */
#define FE_CG_AGREE_EVERY 32

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
  s->last_iterations = FE_CG_TYPICAL_ITERATIONS;
  const struct fe_cg_state zero = {.iterations = 0};
  if (!err) err = fe_backend_alloc(s->be, sizeof zero, &zero, &s->state);
  const double none = 0;
  if (!err) err = fe_backend_alloc(s->be, sizeof none, &none, &s->going);
  if (!err) err = fe_backend_alloc(s->be, FE_CG_MANY * sizeof zero, NULL, &s->gathered);
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
  fe_backend_free(cg->be, cg->state);
  fe_backend_free(cg->be, cg->going);
  fe_backend_free(cg->be, cg->gathered);
  for (int k = 0; k < FE_CG_LOOPS; k++)
    if (cg->loops[k].loop) cg->be->cg->loop_destroy(cg->be, cg->loops[k].loop);
  free(cg);
}

struct fe_cg_log {
  const struct fe_backend *be;
  int capacity, n;
  int posted;                    /* the states' copy posted for the n logged */
  struct fe_cg_state *states;    /* on the backend: capacity */
  struct fe_readback *copy;      /* their copy on the host, */
  struct fe_cg_state *read;      /* its memory */
  struct fe_cg_result **results; /* where each logged state's result goes */
};

int fe_cg_log_create(const struct fe_backend *be, int capacity, struct fe_cg_log **log)
{
  FE_CHECK(capacity >= FE_CG_MANY, FE_ERR_USAGE, "a CG log of %d states: at least %d", capacity,
           FE_CG_MANY);
  struct fe_cg_log *l;
  FE_CALLOC(1, &l);
  l->be = be;
  l->capacity = capacity;
  int err = fe_backend_alloc(be, (size_t)capacity * sizeof *l->states, NULL, &l->states);
  if (!err) err = fe_readback_create(be, (size_t)capacity * sizeof *l->read, &l->copy);
  if (!err) l->read = fe_readback_host(l->copy);
  if (!err) err = fe_calloc((size_t)capacity, sizeof *l->results, &l->results);
  if (err) {
    fe_cg_log_destroy(l);
    return err;
  }
  *log = l;
  return FE_SUCCESS;
}

void fe_cg_log_destroy(struct fe_cg_log *log)
{
  if (!log) return;
  fe_backend_free(log->be, log->states);
  fe_readback_destroy(log->copy);
  free(log->results);
  free(log);
}

int fe_cg_log_count(const struct fe_cg_log *log) { return log ? log->n : 0; }

void fe_cg_result_record(struct fe_cg_result *res, double rnorm)
{
  res->history[2] = res->history[1];
  res->history[1] = res->history[0];
  res->history[0] = rnorm;
  res->residual = rnorm;
}

/* *how: FE_CG_DRIVE_SYNC, _AHEAD or _DEVICE for this solve. */
static int drive(const struct fe_cg *cg, const struct fe_cg_options *opt, int *how)
{
  const struct fe_backend *be = cg->be;
  const int device =
      be->device_loops && be->cg->loop_prepare && (be->comm->size == 1 || be->comm->device_loops);
  if (!be->asynchronous)
    *how = FE_CG_DRIVE_SYNC;
  else if (opt->drive == FE_CG_DRIVE_SYNC || opt->drive == FE_CG_DRIVE_AHEAD)
    *how = opt->drive;
  else if (opt->drive == FE_CG_DRIVE_DEVICE || device)
    *how = FE_CG_DRIVE_DEVICE;
  /* on several processes every one must queue the same iterations (each holds a collective
   * exchange and sum): the time compared is the one they agreed on (agree) */
  else
    *how = cg->agreed_seconds < FE_CG_WAIT_SECONDS * cg->last_iterations ? FE_CG_DRIVE_AHEAD
                                                                         : FE_CG_DRIVE_SYNC;
  FE_CHECK(*how != FE_CG_DRIVE_DEVICE || device, FE_ERR_USAGE,
           "CG driven by the device, where the %s backend cannot loop by itself (on %d "
           "process%s)",
           be->name, be->comm->size, be->comm->size == 1 ? "" : "es");
  return FE_SUCCESS;
}

/* A solve's arguments, for the functions that queue its kernels: m systems of one operator,
 * system j on cg[j]'s vectors and state (batch); cg[0] leads (its loops, drive and
 * preconditioner). */
struct solve {
  int m;
  struct fe_cg *const *cg;
  struct fe_op *a;
  const struct fe_vec *const *b;
  struct fe_vec *const *x;
  const struct fe_vec *jacobi; /* 1 / diag(A), or NULL */
  const double *dinv;          /* its entries */
  const struct fe_cg_options *opt;
  struct fe_cg_batch batch;
  size_t n;                     /* the owned entries the kernels reduce over */
  unsigned long long condition; /* several systems in a loop on the device: its condition, */
  int on;                       /* which `going` sets */
  /* x's ghosts kept current through the solve: current after the start's exchange, and each
   * update advancing them from p's, which the apply exchanged (the same bits as the owners',
   * alpha being the same sum at every process), so that no exchange of the solution follows */
  int keep;
};

static void batch_of(struct solve *sv)
{
  struct fe_cg_batch *c = &sv->batch;
  *c = (struct fe_cg_batch){.m = sv->m};
  for (int j = 0; j < sv->m; j++) {
    const struct fe_cg *cg = sv->cg[j];
    struct fe_vec *x = sv->x[j];
    const int current = x->ghosts_current; /* the start reads x's ghosts as they come; its */
    c->x[j] = fe_vec_write(x);             /* owned entries change after (fe_cg_solve_many) */
    x->ghosts_current = current;
    c->s[j] = cg->state;
    c->b[j] = sv->b[j]->a;
    c->r[j] = fe_vec_write(cg->r);
    c->z[j] = fe_vec_write(cg->z);
    c->p[j] = fe_vec_write(cg->p);
    c->q[j] = fe_vec_write(cg->q);
  }
  sv->n = sv->cg[0]->r->n_owned;
  c->nx = sv->n;
}

/* Several systems: how many go on, into cg[0]->going, their states gathered, and in a loop on
 * the device whether it goes on.  One system's start and direction say so themselves. */
static int queue_going(const struct solve *sv)
{
  if (sv->m == 1) return FE_SUCCESS;
  const struct fe_backend *be = sv->cg[0]->be;
  return be->cg->going(be, &sv->batch, sv->cg[0]->going, sv->cg[0]->gathered, sv->condition,
                       sv->on);
}

/* The start, queued, for every system: q = A x (one apply for all), then r = b - q, z, p and
 * the sums b . b, r . r, r . z (fe_cg_ops.residual), summed over the processes, and start's
 * arithmetic (fe_cg_state_start); condition: the device loop's, or NULL. */
static int queue_start(void *arg, const unsigned long long *condition)
{
  struct solve *sv = arg;
  const struct fe_backend *be = sv->cg[0]->be;
  struct fe_vec *q[FE_CG_MANY];
  for (int j = 0; j < sv->m; j++) q[j] = sv->cg[j]->q;
  /* the kernels read owned entries only */
  FE_CALL(fe_op_apply_owned_many(sv->a, sv->m, (const struct fe_vec *const *)sv->x, q));
  sv->keep = 1;
  for (int j = 0; j < sv->m; j++) { /* x's ghosts are p's: the same halo, the same entries */
    const struct fe_vec *x = sv->x[j], *p = sv->cg[j]->p;
    sv->keep =
        sv->keep && x->ghosts_current && x->halo == p->halo && x->n == p->n && x->n == sv->x[0]->n;
  }
  FE_CALL(be->cg->residual(be, sv->n, &sv->batch, sv->dinv));
  FE_CALL(be->cg->start(be, &sv->batch, sv->opt->rtol, sv->opt->atol, sv->opt->max_iterations,
                        condition ? *condition : 0, condition && sv->m == 1));
  sv->condition = condition ? *condition : 0;
  sv->on = condition != NULL;
  return queue_going(sv);
}

/* One iteration of every system, queued: q = A p (one apply for all), pq = p . q, the update
 * (x's ghosts too while kept) and the direction, each one launch for all systems. */
static int queue_iteration(void *arg)
{
  struct solve *sv = arg;
  const struct fe_backend *be = sv->cg[0]->be;
  const struct fe_vec *p[FE_CG_MANY];
  struct fe_vec *q[FE_CG_MANY];
  for (int j = 0; j < sv->m; j++) {
    fe_vec_write(sv->cg[j]->p); /* the kernels wrote it since its last exchange */
    p[j] = sv->cg[j]->p;
    q[j] = sv->cg[j]->q;
  }
  FE_CALL(fe_op_apply_owned_many(sv->a, sv->m, p, q));
  for (int j = 0; j < sv->m; j++) sv->keep = sv->keep && p[j]->ghosts_current;
  sv->batch.nx = sv->keep ? sv->x[0]->n : sv->n;
  FE_CALL(be->cg->pq(be, sv->n, &sv->batch));
  FE_CALL(be->cg->update(be, sv->n, &sv->batch, sv->dinv));
  FE_CALL(be->cg->direction(be, sv->n, &sv->batch));
  return queue_going(sv);
}

/* The device's solve of these systems and options (its slot in cg->loops): built on first use,
 * the one used longest ago replaced when all are taken. */
static int device_loop(struct fe_cg *cg, const struct fe_cg_loop_key *key)
{
  int pick = 0;
  for (int k = 0; k < FE_CG_LOOPS; k++) {
    if (cg->loops[k].loop && !memcmp(&cg->loops[k].key, key, sizeof *key)) {
      pick = k;
      break;
    }
    if (cg->loops[k].used < cg->loops[pick].used) pick = k;
  }
  if (memcmp(&cg->loops[pick].key, key, sizeof *key) && cg->loops[pick].loop) {
    cg->be->cg->loop_destroy(cg->be, cg->loops[pick].loop);
    cg->loops[pick].loop = NULL;
  }
  memcpy(&cg->loops[pick].key, key, sizeof *key); /* its padding too, which memcmp compares */
  cg->loops[pick].used = ++cg->solves;
  return pick;
}

/* The norms of the start from the state: the right-hand side's, the first residual's, and
 * whether that is converged already. */
static void read_start(const struct fe_cg_state *s, struct fe_cg_result *res)
{
  res->rhs_norm = sqrt(s->bb);
  fe_cg_result_record(res, sqrt(s->rr0));
  res->converged = s->converged0;
}

/* A system's result from its state at the end of the solve: its start, and the iterations it
 * counted (fe_cg_state_record) with their last norms. */
static void read_end(const struct fe_cg_state *s, struct fe_cg_result *res)
{
  read_start(s, res);
  if (!s->iterations) return;
  res->iterations = s->iterations;
  for (int k = s->iterations < 3 ? s->iterations : 3; k > 0; k--)
    fe_cg_result_record(res, sqrt(s->rr[k - 1]));
  res->converged = s->rr[0] <= s->done2;
}

/* Every system's result from its state: one copy, a single system's state or the batch's
 * gathered states (queue_going). */
static int read_results(const struct solve *sv, struct fe_cg_result *res)
{
  const struct fe_backend *be = sv->cg[0]->be;
  struct fe_cg_state s[FE_CG_MANY];
  const struct fe_cg_state *from = sv->m == 1 ? sv->cg[0]->state : sv->cg[0]->gathered;
  FE_CALL(be->vec->to_host(be, s, from, (size_t)sv->m * sizeof *s));
  for (int j = 0; j < sv->m; j++) read_end(&s[j], &res[j]);
  return FE_SUCCESS;
}

int fe_cg_log_post(struct fe_cg_log *log)
{
  if (!log || !log->n || log->posted) return FE_SUCCESS;
  FE_CALL(fe_readback_post(log->copy, log->states, (size_t)log->n * sizeof *log->read));
  log->posted = 1;
  return FE_SUCCESS;
}

int fe_cg_log_read(struct fe_cg_log *log)
{
  if (!log || !log->n) return FE_SUCCESS;
  FE_CALL(fe_cg_log_post(log));
  FE_CALL(fe_readback_wait(log->copy));
  for (int i = 0; i < log->n; i++) {
    read_end(&log->read[i], log->results[i]);
    log->results[i]->pending = 0;
  }
  log->n = 0;
  log->posted = 0;
  return FE_SUCCESS;
}

/* Where the solve's m states go in its options' log, or NULL: no log, one of another backend,
 * or no room. */
static struct fe_cg_state *log_room(const struct solve *sv)
{
  const struct fe_cg_log *log = sv->opt->log;
  if (!log || log->be != sv->cg[0]->be || log->n + sv->m > log->capacity) return NULL;
  return log->states + log->n;
}

/* The solve's results: pending in its options' log where log_room gave its states a place
 * (room), else read at once. */
static int results(const struct solve *sv, const struct fe_cg_state *room, struct fe_cg_result *res)
{
  if (!room) return read_results(sv, res);
  struct fe_cg_log *log = sv->opt->log;
  for (int j = 0; j < sv->m; j++) {
    res[j].pending = 1;
    log->results[log->n++] = &res[j];
    log->posted = 0; /* a copy posted before misses it */
  }
  return FE_SUCCESS;
}

/* The whole solve on the device: the host launches it and reads the states once, or leaves
 * them in the log (a copy queued after the loop: fe_cg_ops.going's). */
static int solve_on_device(struct solve *sv, struct fe_cg_result *res)
{
  struct fe_cg *cg = sv->cg[0];
  const struct fe_backend *be = cg->be;
  struct fe_cg_loop_key key;
  memset(&key, 0, sizeof key); /* padding compared too */
  key.a = sv->a;
  key.version = sv->a->version;
  key.m = sv->m;
  for (int j = 0; j < sv->m; j++) {
    key.cg[j] = sv->cg[j];
    key.b[j] = sv->b[j]->a;
    key.x[j] = sv->batch.x[j];
    key.current[j] = sv->x[j]->ghosts_current;
  }
  key.dinv = sv->dinv;
  key.rtol = sv->opt->rtol;
  key.atol = sv->opt->atol;
  key.max_iterations = sv->opt->max_iterations;
  const int k = device_loop(cg, &key);
  const int built = cg->loops[k].loop == NULL; /* the queueing runs now, to capture it */
  FE_CALL(be->cg->loop_prepare(be, &cg->loops[k].loop, queue_start, queue_iteration, sv));
  if (built) cg->loops[k].keep = sv->keep;
  sv->keep = cg->loops[k].keep;
  FE_CALL(be->cg->loop_launch(be, cg->loops[k].loop));
  struct fe_cg_state *room = log_room(sv);
  if (room) FE_CALL(be->cg->going(be, &sv->batch, cg->going, room, 0, 0));
  return results(sv, room, res);
}

/* The whole solve as one kernel of the operator's, where it has one for this mesh on one
 * process (*done; else nothing is run); the kernel writes the states' second copy into the
 * log where it has room. */
static int solve_in_kernel(struct solve *sv, struct fe_cg_result *res, int *done)
{
  *done = 0;
  if (!sv->a->ops->cg || sv->cg[0]->be->comm->size > 1) return FE_SUCCESS;
  struct fe_cg_state *room = log_room(sv);
  const struct fe_cg_job job = {.c = &sv->batch,
                                .n = sv->n,
                                .dinv = sv->dinv,
                                .rtol = sv->opt->rtol,
                                .atol = sv->opt->atol,
                                .max_iterations = sv->opt->max_iterations,
                                .gathered = room        ? room
                                            : sv->m > 1 ? sv->cg[0]->gathered
                                                        : NULL};
  FE_CALL(sv->a->ops->cg(sv->a, &job, done));
  return *done ? results(sv, room, res) : FE_SUCCESS;
}

/* One system driven by the host: iteration it is queued, then the residual of iteration
 * it - ahead is read: with ahead = 1 the GPU already runs the next iteration while the host
 * waits.  An iteration queued past convergence leaves x alone. */
static int solve_one_on_host(struct solve *sv, int ahead, struct fe_cg_result *res)
{
  struct fe_cg *cg = sv->cg[0];
  const struct fe_backend *be = cg->be;
  FE_CALL(queue_start(sv, NULL));
  struct fe_cg_state s;
  FE_CALL(be->vec->to_host(be, &s, cg->state, sizeof s));
  read_start(&s, res);
  if (!s.go_on) return FE_SUCCESS;
  const double done2 = s.done2;
  const double t0 = fe_wtime();
  for (int it = 1; it <= sv->opt->max_iterations + ahead; it++) {
    if (it <= sv->opt->max_iterations) {
      FE_CALL(queue_iteration(sv));
      FE_CALL(be->cg->scalar_post(be, it % 2, &cg->state->rz[1]));
    }
    const int done = it - ahead; /* the iteration whose residual is read now */
    if (done < 1) continue;
    double rr;
    FE_CALL(be->cg->scalar_wait(be, done % 2, &cg->state->rz[1], &rr));
    fe_cg_result_record(res, sqrt(rr));
    res->iterations = done;
    cg->iteration_seconds = (fe_wtime() - t0) / done;
    if (!(rr <= DBL_MAX)) return FE_SUCCESS; /* NaN or infinite */
    if (rr <= done2) {
      res->converged = 1;
      return FE_SUCCESS;
    }
  }
  return FE_SUCCESS;
}

/* Several systems driven by the host, as one: the count of those going on is read (ahead:
 * one iteration late) until none does; a system that stopped changes nothing after. */
static int solve_many_on_host(struct solve *sv, int ahead, struct fe_cg_result *res)
{
  struct fe_cg *cg = sv->cg[0];
  const struct fe_backend *be = cg->be;
  FE_CALL(queue_start(sv, NULL));
  double going;
  FE_CALL(be->cg->scalar_post(be, 0, cg->going));
  FE_CALL(be->cg->scalar_wait(be, 0, cg->going, &going));
  const double t0 = fe_wtime();
  for (int it = 1; going > 0 && it <= sv->opt->max_iterations + ahead; it++) {
    if (it <= sv->opt->max_iterations) {
      FE_CALL(queue_iteration(sv));
      FE_CALL(be->cg->scalar_post(be, it % 2, cg->going));
    }
    const int done = it - ahead;
    if (done < 1) continue;
    FE_CALL(be->cg->scalar_wait(be, done % 2, cg->going, &going));
    cg->iteration_seconds = (fe_wtime() - t0) / done;
  }
  return read_results(sv, res); /* its copy waits for an iteration looked ahead */
}

static int iterate(struct solve *sv, struct fe_cg_result *res)
{
  struct fe_cg *cg = sv->cg[0];
  for (int j = 0; j < sv->m; j++) res[j] = (struct fe_cg_result){0};
  if (sv->a->is_diagonal) {
    for (int j = 0; j < sv->m; j++) {
      FE_CALL(fe_vec_norm(sv->b[j], &res[j].rhs_norm));
      FE_CALL(fe_jacobi_solve_diagonal(sv->cg[j]->jacobi, sv->a, sv->b[j], sv->x[j], sv->cg[j]->z,
                                       &res[j]));
    }
    return FE_SUCCESS;
  }
  if (sv->opt->jacobi) FE_CALL(fe_jacobi_inverse(cg->jacobi, sv->a, cg->z, &sv->jacobi));
  sv->dinv = sv->jacobi ? sv->jacobi->a : NULL;
  if (sv->opt->drive == FE_CG_DRIVE_AUTO || sv->opt->drive == FE_CG_DRIVE_KERNEL) {
    int done;
    FE_CALL(solve_in_kernel(sv, res, &done));
    for (int j = 0; done && j < sv->m; j++) res[j].drive = FE_CG_DRIVE_KERNEL;
    if (done) return FE_SUCCESS;
    FE_CHECK(sv->opt->drive != FE_CG_DRIVE_KERNEL, FE_ERR_USAGE,
             "CG as one kernel, where the operator has none for this mesh on the %s backend (%d "
             "process%s)",
             cg->be->name, cg->be->comm->size, cg->be->comm->size == 1 ? "" : "es");
  }
  int how;
  FE_CALL(drive(cg, sv->opt, &how));
  for (int j = 0; j < sv->m; j++) res[j].drive = how;
  if (how == FE_CG_DRIVE_DEVICE) return solve_on_device(sv, res);
  const int ahead = how == FE_CG_DRIVE_AHEAD;
  return sv->m == 1 ? solve_one_on_host(sv, ahead, res) : solve_many_on_host(sv, ahead, res);
}

/* After a host-driven solve: its iterations kept (a batch's most), and at times the time per
 * iteration agreed by every process (they all make the same solves, so they agree at the
 * same ones). */
static int agree(struct fe_cg *cg, int m, const struct fe_cg_result *res)
{
  const int host = res->drive == FE_CG_DRIVE_SYNC || res->drive == FE_CG_DRIVE_AHEAD;
  if (!host || !cg->be->asynchronous) return FE_SUCCESS; /* lumped: no drive */
  int most = 0;
  for (int j = 0; j < m; j++) most = res[j].iterations > most ? res[j].iterations : most;
  if (most > 0) cg->last_iterations = most;
  cg->host_solves++;
  if (cg->host_solves > 4 && cg->host_solves % FE_CG_AGREE_EVERY) return FE_SUCCESS;
  double t = cg->iteration_seconds;
  FE_CALL(fe_comm_allreduce(cg->be->comm, &t, 1, FE_REDUCE_MAX));
  cg->agreed_seconds = t;
  return FE_SUCCESS;
}

/* The fused kernels update the owned entries of x, and its ghosts where they keep them current
 * (struct solve); else its ghosts are exchanged after. */
int fe_cg_solve_many(int m, struct fe_cg *const *cg, struct fe_op *a, const struct fe_vec *const *b,
                     struct fe_vec *const *x, const struct fe_cg_options *opt,
                     struct fe_cg_result *res)
{
  FE_CHECK(m >= 1 && m <= FE_CG_MANY, FE_ERR_USAGE, "CG of %d systems at once: 1 to %d", m,
           FE_CG_MANY);
  for (int j = 1; j < m; j++)
    for (int i = 0; i < j; i++)
      FE_CHECK(cg[j] != cg[i] && cg[j]->be == cg[i]->be, FE_ERR_USAGE,
               "CG of several systems: each needs a solver of its own on the same backend");
  struct solve sv = {.m = m, .cg = cg, .a = a, .b = b, .x = x, .opt = opt};
  batch_of(&sv);
  const int logged = fe_cg_log_count(opt->log);
  int err = iterate(&sv, res);
  if (!err) err = agree(cg[0], m, res);
  for (int j = 0; j < m; j++) { /* written through the batch's pointers */
    struct fe_vec *written[] = {x[j], cg[j]->r, cg[j]->z, cg[j]->p, cg[j]->q};
    for (size_t k = 0; k < sizeof written / sizeof *written; k++) fe_vec_write(written[k]);
    x[j]->ghosts_current = !err && sv.keep;
  }
  for (int j = 0; j < m && !err; j++) err = fe_vec_update_ghosts(x[j]);
  if (err && opt->log) { /* a solve that failed leaves nothing in the log */
    opt->log->n = logged;
    opt->log->posted = 0;
  }
  return err;
}

int fe_cg_solve(struct fe_cg *cg, struct fe_op *a, const struct fe_vec *b, struct fe_vec *x,
                const struct fe_cg_options *opt, struct fe_cg_result *res)
{
  return fe_cg_solve_many(1, &cg, a, &b, &x, opt, res);
}
