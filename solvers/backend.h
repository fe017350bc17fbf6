/* A backend: where vectors live and which kernels run on them (the CPU with
 * OpenMP, or a CUDA device).  One object per backend owns every table of it:
 * memory and vector kernels, the CG kernels, the assembly kernels, its
 * communicator and its context (device, stream, library handles).  The tables
 * are filled in one registration function per backend (backends/<name>/),
 * as libCEED's and PETSc's objects take their ops from their backend; nothing
 * else asks which backend it runs on. */
#ifndef FE_BACKEND_H
#define FE_BACKEND_H

#include <float.h>
#include <math.h>
#include <stddef.h>

#include "core/host_device.h"

#include "solvers/comm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The one list of backend kinds: what a case or the command line asks for. */
enum fe_backend_kind { FE_BACKEND_AUTO, FE_BACKEND_CPU, FE_BACKEND_CUDA };
#define FE_BACKEND_KINDS 3

/* "auto", "cpu", "cuda" */
const char *fe_backend_name(enum fe_backend_kind kind);
/* The spelling of a kind; FE_ERR_USAGE naming the words expected. */
int fe_backend_parse(const char *word, enum fe_backend_kind *kind);

struct fe_backend;
struct fe_halo; /* solvers/halo.h */

/* The reductions of fe_vec_ops.reduce. */
enum fe_vec_reduction { FE_VEC_DOT, FE_VEC_RANGE };

/* Memory and vector kernels.  Every op receives its backend (for its context:
 * stream, scratch, handles); vectors are plain arrays of n doubles. */
struct fe_vec_ops {
  int (*malloc)(const struct fe_backend *be, size_t bytes, void **p);
  void (*free)(const struct fe_backend *be, void *p);
  int (*to_device)(const struct fe_backend *be, void *dev, const void *host, size_t bytes);
  int (*to_host)(const struct fe_backend *be, void *host, const void *dev, size_t bytes);
  /* wait until the backend's queued work is done (timings) */
  int (*sync)(const struct fe_backend *be);
  int (*set)(const struct fe_backend *be, size_t n, double alpha, double *y);
  int (*copy)(const struct fe_backend *be, size_t n, const double *x, double *y);
  /* y = a x + b y */
  int (*axpby)(const struct fe_backend *be, size_t n, double a, const double *x, double b, double *y);
  /* w = x .* y and w = x ./ y */
  int (*pointwise_mult)(const struct fe_backend *be, size_t n, const double *x, const double *y, double *w);
  int (*pointwise_div)(const struct fe_backend *be, size_t n, const double *x, const double *y,
                       double *w);
  /* y[idx[i]] = values[i] for i < m (Dirichlet values); idx, values on the backend */
  int (*set_indexed)(const struct fe_backend *be, size_t m, const int *idx, const double *values, double *y);
  /* This process's part of a reduction (the communicator combines them):
   * *r = x . y; min and max of x, and *bad the count of its non-finite values. */
  int (*dot)(const struct fe_backend *be, size_t n, const double *x, const double *y, double *r);
  int (*minmax)(const struct fe_backend *be, size_t n, const double *x, double *min, double *max,
                double *bad);
  /* The same reductions queued, their values left in backend memory for a readout to copy with
   * others (solvers/readout.h): FE_VEC_DOT out[0] = x . y (out[1], out[2] untouched);
   * FE_VEC_RANGE out[0 .. 3) = min, max and the count of non-finite values of x (y unused). */
  int (*reduce)(const struct fe_backend *be, enum fe_vec_reduction op, size_t n, const double *x,
                const double *y, double *out);
  /* Optional (an asynchronous backend's; NULL: to_host at once): host memory a copy can land
   * in while the host goes on (CUDA: pinned), and such a copy of `bytes` from backend memory
   * queued behind the work before it, with a mark of its end (*mark, made at the first post:
   * an event) that wait blocks on (solvers/readback.h). */
  int (*host_alloc)(const struct fe_backend *be, size_t bytes, void **p);
  void (*host_free)(const struct fe_backend *be, void *p);
  int (*post)(const struct fe_backend *be, void *host, const void *dev, size_t bytes, void **mark);
  int (*wait)(const struct fe_backend *be, void *mark);
  void (*mark_free)(const struct fe_backend *be, void *mark);
  /* The halo's exchanges within this process (solvers/halo.h): every ghost takes its owner's
   * ncomp values; every owned entry with ghosts adds theirs, in their order. */
  int (*ghost_update)(const struct fe_halo *h, int ncomp, double *x);
  int (*ghost_sum)(const struct fe_halo *h, double *x);
  /* Optional: a halo with ghosts of other processes made (every process at once: it may be a
   * collective call) and destroyed; the backend's means for its exchanges in h->exchange. */
  int (*halo_open)(struct fe_halo *h);
  void (*halo_close)(struct fe_halo *h);
};

/* The most systems CG solves at once (fe_cg_solve_many), and the most vectors one
 * fe_op_apply_owned_many takes. */
#define FE_CG_MANY 8

/* CG's scalars, on the backend where its kernels read and write them (solvers/cg.c). */
struct fe_cg_state {
  double bb, rr0; /* b . b and the first residual's r . r (sums over the processes) */
  double rz[2];   /* r . z and r . r after the latest update (sums over the processes) */
  double rz_old;  /* r . z before it */
  double pq;      /* p . q */
  double done2;   /* converged once r . r <= done2 */
  double rr[3];   /* the last values of r . r, newest first (set by direction) */
  int iterations; /* directions taken in this solve */
  int max_iterations;
  int converged0; /* start's verdict: the first residual meets the target already */
  int go_on;      /* whether to iterate: start's verdict (not converged, max_iterations > 0),
                     then each direction's (fe_cg_state_record); update and record change
                     nothing once it is 0 */
  struct fe_cg_device_loop {
    unsigned long long condition; /* the loop's condition (CUDA: a cudaGraphConditionalHandle) */
    int on;                       /* the iterations run as a loop on the device: direction says
                                     whether to go on */
  } loop;
};

/* Start's arithmetic on every backend, from bb and rr0: the target max(rtol |b|, atol)
 * squared, r . r as the first iteration reads it, no iterations yet; whether to iterate. */
FE_HOST_DEVICE static inline int fe_cg_state_start(struct fe_cg_state *s, double rtol, double atol,
                                                   int max_iterations)
{
  const double target = fmax(rtol * sqrt(s->bb), atol), rnorm = sqrt(s->rr0);
  s->done2 = target * target;
  s->rz[1] = rnorm * rnorm;
  s->iterations = 0;
  s->max_iterations = max_iterations;
  s->converged0 = rnorm <= target;
  s->go_on = !s->converged0 && max_iterations > 0;
  return s->go_on;
}

/* Direction's bookkeeping on every backend: the iteration counted and its r . r recorded.
 * Whether to go on: not converged, below the iteration limit, and r . r finite (neither NaN
 * nor infinite compares in range).  A system stopped already (an iteration queued past its
 * end: looked ahead, or for another system of a batch) records nothing. */
FE_HOST_DEVICE static inline int fe_cg_state_record(struct fe_cg_state *s)
{
  if (!s->go_on) return 0;
  const double rr = s->rz[1];
  s->rr[2] = s->rr[1];
  s->rr[1] = s->rr[0];
  s->rr[0] = rr;
  s->iterations++;
  s->go_on = rr > s->done2 && rr <= DBL_MAX && s->iterations < s->max_iterations;
  return s->go_on;
}

/* The update's x += alpha p at entry i, on every backend and at owned entries and ghosts alike,
 * so that a ghost advanced from a current p holds its owner's bits (solvers/cg.c). */
FE_HOST_DEVICE static inline void fe_cg_advance(double *x, double alpha, const double *p, size_t i)
{
  x[i] += alpha * p[i];
}

/* The systems of one operator that CG solves at once, m <= FE_CG_MANY of them (one for a
 * single solve): system j's state s[j] and vectors, on the backend.  The kernels take it by
 * value and run every system in one launch (CUDA: blockIdx.y), each system's arithmetic and
 * sums in the order of a solve of it alone. */
struct fe_cg_batch {
  int m;
  size_t nx; /* the entries of x the update writes: the n owned, or all of them, its ghosts
                advanced from p's where those are current (solvers/cg.c) */
  struct fe_cg_state *s[FE_CG_MANY];
  const double *b[FE_CG_MANY];
  double *x[FE_CG_MANY], *r[FE_CG_MANY], *z[FE_CG_MANY], *p[FE_CG_MANY], *q[FE_CG_MANY];
};

/* A whole CG solve for an operator that runs it as one kernel of its own (fe_op_ops.cg): the
 * systems, the owned entries n each reduces over, the Jacobi inverse diagonal they share (or
 * NULL), the target, and the states' second home: gathered[j] = *c->s[j] at the end where
 * gathered is not NULL (fe_cg_ops.going's copy). */
struct fe_cg_job {
  const struct fe_cg_batch *c;
  size_t n;
  const double *dinv;
  double rtol, atol;
  int max_iterations;
  struct fe_cg_state *gathered;
};

/* The kernels of CG, whose scalars stay on the backend so that the GPU copies
 * back only what the host needs (solvers/cg.c).  n: the owned entries each system's vectors
 * reduce over; dinv: the Jacobi inverse diagonal all systems share, or NULL.  Their sums are
 * over the processes of be->comm, with the same bits on every process: a backend's kernels
 * make them themselves (CUDA's in the NCCL windows) or fe_cg_sum_states after them. */
struct fe_cg_ops {
  /* The start's vectors and sums, q = A x given: r = b - q; z = r .* dinv (or r); p = z;
   * bb = b . b, rr0 = r . r, rz[0] = r . z */
  int (*residual)(const struct fe_backend *be, size_t n, const struct fe_cg_batch *c,
                  const double *dinv);
  /* fe_cg_state_start of each system; a single system in a loop on the device (condition: its
   * handle, on: 1) sets s->loop and whether the loop runs at all */
  int (*start)(const struct fe_backend *be, const struct fe_cg_batch *c, double rtol,
               double atol, int max_iterations, unsigned long long condition, int on);
  /* pq = p . q of each system */
  int (*pq)(const struct fe_backend *be, size_t n, const struct fe_cg_batch *c);
  /* alpha = rz[0] / pq; x += alpha p (on x's first c->nx entries); r -= alpha q; z = r .* dinv
   * (or r when dinv is NULL); then rz_old = rz[0], rz = (r . z, r . r).  A system stopped already
   * (!go_on: converged, at its limit or not finite): nothing changes, so that an iteration queued
   * past its end changes nothing in x, r or z (where a backend sums apart from its kernels, a
   * stopped system's rz is summed over the processes again, and so its unused direction
   * changes). */
  int (*update)(const struct fe_backend *be, size_t n, const struct fe_cg_batch *c,
                const double *dinv);
  /* p = z + (rz[0] / rz_old) p, unless converged (rz[1] <= done2); fe_cg_state_record, and a
   * single system in a loop on the device says whether to go on. */
  int (*direction)(const struct fe_backend *be, size_t n, const struct fe_cg_batch *c);
  /* Several systems: *out = how many go on (go_on), as a double, and gathered[j] = *s[j];
   * in a loop on the device (condition: its handle, on: 1) whether the loop goes on: any
   * does. */
  int (*going)(const struct fe_backend *be, const struct fe_cg_batch *c, double *out,
               struct fe_cg_state *gathered, unsigned long long condition, int on);
  /* A scalar to the host in two steps, so that the host can queue more work in
   * between: post starts copying *dev into slot (0 or 1), wait returns it. */
  int (*scalar_post)(const struct fe_backend *be, int slot, const double *dev);
  int (*scalar_wait)(const struct fe_backend *be, int slot, const double *dev, double *value);
  /* Optional (NULL where the host queues each iteration): a whole solve on the device (CUDA:
   * one graph), what `start` queues (given the loop's condition) and then a loop of what
   * `iteration` queues, while direction says so; built into *loop on the first call with it. */
  int (*loop_prepare)(const struct fe_backend *be, void **loop,
                      int (*start)(void *arg, const unsigned long long *condition),
                      int (*iteration)(void *arg), void *arg);
  int (*loop_launch)(const struct fe_backend *be, void *loop);
  void (*loop_destroy)(const struct fe_backend *be, void *loop);
};

/* Each system's n sums from byte `at` of its state on (fe_cg_state's bb, pq or rz) summed over
 * the processes of be->comm, one system after another: fe_cg_ops' sums where a backend's
 * kernels do not make them. */
int fe_cg_sum_states(const struct fe_backend *be, const struct fe_cg_batch *c, size_t at, int n);

struct fe_assembly_kernels; /* assembly/kernels.h */

struct fe_backend {
  const char *name;      /* "cpu", "cuda" */
  char description[320]; /* for the summary: "cpu, 2 threads", "cuda: NVIDIA H100 ..." */
  int asynchronous;      /* queued work runs while the host goes on (CUDA): CG may look ahead */
  int atomic_scatter;    /* the LMA and matrix-free scatters use atomics unless the space
                            asks for determinism (fe_space.deterministic) */
  int device_loops;      /* cg->loop_prepare works here (CUDA: a driver with graphs' while nodes,
                            launches not synchronised for debugging) */
  const struct fe_vec_ops *vec;
  const struct fe_cg_ops *cg;
  const struct fe_assembly_kernels *assembly;
  const struct fe_comm *comm; /* combines the reductions of the processes of a run */
  void (*destroy)(struct fe_backend *be);
  void *ctx; /* the backend's own data (CUDA: device, stream, scratch, handles) */
};

/* Backend memory: allocate `bytes` and copy `host` into it (host may be NULL). */
int fe_backend_alloc(const struct fe_backend *be, size_t bytes, const void *host, void *ptr_to_ptr);
void fe_backend_free(const struct fe_backend *be, void *p);
int fe_backend_sync(const struct fe_backend *be);

#ifdef __cplusplus
}
#endif

#endif
