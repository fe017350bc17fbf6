/* Preconditioned conjugate gradients (Jacobi or none) on an fe_op. */
#ifndef FE_CG_H
#define FE_CG_H

#include "solvers/op.h"

struct fe_cg_options {
  double rtol, atol;
  int max_iterations;
  int jacobi;
  /* Who drives the iterations on an asynchronous backend (results are the same bits, but for
   * FE_CG_DRIVE_KERNEL's round-off):
   * FE_CG_DRIVE_AUTO (0): one kernel where the operator has one for this mesh (a small mesh,
   *   one process), else the device where it can loop by itself (one process, or several
   *   whose communicator's sums and exchanges are kernels: fe_comm.device_loops), else the
   *   host, one iteration ahead where an iteration (the slowest process's, measured in
   *   earlier solves) is shorter than the waits for the residual that looking ahead saves
   *   over the last solve's iterations;
   * FE_CG_DRIVE_SYNC: the host reads each residual norm before queueing the next iteration;
   * FE_CG_DRIVE_AHEAD: the host reads it one iteration late (one speculative iteration);
   * FE_CG_DRIVE_DEVICE: the device loops (be->device_loops; one process, or several with
   *   fe_comm.device_loops), the host reads
   *   the count and the last norms at the end;
   * FE_CG_DRIVE_KERNEL: the whole solve is one kernel of the operator's (fe_op_ops.cg), the
   *   host reads as after the device's loop.  The same arithmetic, its sums in another order
   *   (round-off, deterministic). */
  int drive;
  /* Where a solve run whole on the device (FE_CG_DRIVE_DEVICE or _KERNEL) leaves its
   * systems' states instead of reading them (NULL: read at once): see fe_cg_log. */
  struct fe_cg_log *log;
};

enum {
  FE_CG_DRIVE_AUTO = 0,
  FE_CG_DRIVE_SYNC,
  FE_CG_DRIVE_AHEAD,
  FE_CG_DRIVE_DEVICE,
  FE_CG_DRIVE_KERNEL
};

struct fe_cg_result {
  int iterations;
  int drive;         /* FE_CG_DRIVE_SYNC, _AHEAD, _DEVICE or _KERNEL: how this solve ran */
  int converged;
  double residual;   /* ||b - A x|| at the end */
  double rhs_norm;   /* ||b|| */
  double history[3]; /* the last residual norms, newest first, for messages */
  int pending;       /* left in a log (fe_cg_options.log): filled by fe_cg_log_read */
};

/* rnorm becomes the newest entry of the history and the residual. */
void fe_cg_result_record(struct fe_cg_result *result, double rnorm);

struct fe_cg;

/* Its work vectors laid out as `like` (its backend, size, owned entries and halo). */
int fe_cg_create(const struct fe_vec *like, struct fe_cg **cg);
void fe_cg_destroy(struct fe_cg *cg);

/* Solve A x = b from the initial guess in x.  Converged when
 * ||r|| <= max(rtol ||b||, atol).  Not converging is reported in result, not
 * as an error: the caller names the solve in its message. */
int fe_cg_solve(struct fe_cg *cg, struct fe_op *a, const struct fe_vec *b, struct fe_vec *x,
                const struct fe_cg_options *opt, struct fe_cg_result *result);

/* Solve A x[j] = b[j] for 1 <= m <= FE_CG_MANY systems of one operator at once, system j on
 * the vectors of its own solver cg[j] (distinct): each iteration applies A to every direction
 * in one pass (fe_op_apply_owned_many: an LMA operator on the GPU reads its element matrices
 * once for all of them) and, driven by the host, reads one count for all systems instead of
 * a residual each; driven by the device, the batch is one loop.  Each system iterates as it
 * would alone: the same iterations, stopped at its own convergence or limit (it changes
 * nothing after), the same bits where the apply sums in the same order.  cg[0] leads: its
 * preconditioner, drive and loops serve the batch.  result[j] is system j's. */
int fe_cg_solve_many(int m, struct fe_cg *const *cg, struct fe_op *a,
                     const struct fe_vec *const *b, struct fe_vec *const *x,
                     const struct fe_cg_options *opt, struct fe_cg_result *result);

/* A log of results read later.  A solve run whole on the device with a log in its options
 * leaves each system's state in the log instead of copying it to the host: the host goes on
 * queueing work while the GPU solves (a time step's solves then cost one wait, not one each).
 * Such a result is pending (zero but for drive and pending) until fe_cg_log_read, which waits
 * once for every solve logged since the last read and fills their results, in the order of
 * the solves; the caller keeps those results, each in a place of its own, until then (the log
 * holds their addresses).  A solve that returns an error leaves nothing in the log.  A solve
 * the host drives, on another backend, or for which the log has no room reads its result at
 * once, as without a log.  capacity: the systems' states it holds (a batch of m systems takes
 * m). */
struct fe_cg_log;
int fe_cg_log_create(const struct fe_backend *be, int capacity, struct fe_cg_log **log);
void fe_cg_log_destroy(struct fe_cg_log *log);
/* The systems logged and not read yet. */
int fe_cg_log_count(const struct fe_cg_log *log);
/* The copy of the states logged so far posted (solvers/readback.h): the host may queue other
 * work before fe_cg_log_read waits for it.  A solve logged after makes the read post again. */
int fe_cg_log_post(struct fe_cg_log *log);
int fe_cg_log_read(struct fe_cg_log *log);

#endif
