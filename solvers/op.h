/* A linear operator on a backend, as CG sees it: apply and diagonal.
 *
 * Operators carry strong Dirichlet conditions: `apply` is the operator with
 * the rows and columns of Dirichlet nodes replaced by the identity (A'), and
 * `lift` adds the couplings that were removed, interior rows from Dirichlet
 * columns (A_ID), so that A x = A' x + lift(x) on the interior rows; `reaction`
 * gives the Dirichlet rows of A x that the masking replaced, (A x)_D =
 * A_DI x_I + A_DD x_D: the residual of the unmasked equations there, which is
 * the consistent flux through a Dirichlet boundary (docs/numerics.md, section 10).
 *
 * An operator exchanges its input's ghosts where they are stale (solvers/vec.h) and writes its
 * result's owned entries: the result's ghosts are left stale for whoever reads them
 * (fe_vec_update_ghosts), since most results are read on the owned entries alone (CG's
 * right-hand sides, its products).  Only the copies of periodic unknowns on one process come
 * out current from the loops over the cells (LMA, matrix-free). */
#ifndef FE_OP_H
#define FE_OP_H

#include "solvers/vec.h"


#ifdef __cplusplus
extern "C" {
#endif

struct fe_op;

struct fe_op_ops {
  int (*apply)(struct fe_op *op, const struct fe_vec *x, struct fe_vec *y); /* y = A' x */
  /* y = A' x on the owned entries, its ghosts left as they come (NULL: apply) */
  int (*apply_owned)(struct fe_op *op, const struct fe_vec *x, struct fe_vec *y);
  /* y = A' x + A_ID x_D, as apply then lift (1, x, y) give it (NULL: those two), made at once
   * where that saves exchanges */
  int (*apply_full)(struct fe_op *op, const struct fe_vec *x, struct fe_vec *y);
  /* y[j] = A' x[j] on the owned entries for j < m <= FE_CG_MANY in one pass (NULL:
   * apply_owned for each) */
  int (*apply_owned_many)(struct fe_op *op, int m, const struct fe_vec *const *x,
                          struct fe_vec *const *y);
  int (*lift)(struct fe_op *op, double s, const struct fe_vec *x, struct fe_vec *y); /* y_I += s A_ID x_D */
  /* y_D += s (A x)_D */
  int (*reaction)(struct fe_op *op, double s, const struct fe_vec *x, struct fe_vec *y);
  int (*diagonal)(struct fe_op *op, struct fe_vec *diag);
  /* Optional (NULL: none): CG's whole solve of job's systems on this operator as one kernel
   * (LMA on CUDA: assembly/kernels.h, fe_lma_kernels.cg), from their b and x to x and their
   * final states, as CG's kernels leave them; *done 0, nothing run, where it has none here */
  int (*cg)(struct fe_op *op, const struct fe_cg_job *job, int *done);
  void (*destroy)(struct fe_op *op);
};

struct fe_op {
  const struct fe_op_ops *ops;
  const struct fe_backend *be;
  size_t n;
  void *impl;
  int is_diagonal; /* lumped mass: solves are divisions */
  long version;    /* fe_op_next_version() whenever the operator changes (re-assembly) */
};

/* A version no operator of this process had before: what an (operator, version) pair names
 * stays the same operator even where a later one takes the memory of one destroyed. */
long fe_op_next_version(void);

int fe_op_apply(struct fe_op *op, const struct fe_vec *x, struct fe_vec *y);
/* y = A' x on the owned entries only, y's ghosts left stale: for solvers whose vector kernels
 * read the owned entries only (CG).  Since an apply leaves its result's ghosts to the reader
 * too, the two do the same work; apply alone marks the copies of periodic unknowns on one
 * process current (LMA, matrix-free). */
int fe_op_apply_owned(struct fe_op *op, const struct fe_vec *x, struct fe_vec *y);
/* fe_op_apply_owned of m <= FE_CG_MANY vectors (y[j] distinct from every x) at once: where the
 * operator has a pass for several vectors (LMA on the GPU: its element matrices read once for
 * all), else one apply after another.  Each y[j] is what fe_op_apply_owned gives, to round-off
 * (the same bits where the scatter's order is fixed). */
int fe_op_apply_owned_many(struct fe_op *op, int m, const struct fe_vec *const *x,
                           struct fe_vec *const *y);
/* y = A x on the interior rows (A' x + lift), x_D on the Dirichlet rows. */
int fe_op_apply_full(struct fe_op *op, const struct fe_vec *x, struct fe_vec *y);
int fe_op_lift(struct fe_op *op, double s, const struct fe_vec *x, struct fe_vec *y);
/* y_D += s (A x)_D on the Dirichlet rows (A unmasked); the other entries of y are left.  x's
 * ghosts are read as they are: current ones (a solution, a state), not an operator's result. */
int fe_op_reaction(struct fe_op *op, double s, const struct fe_vec *x, struct fe_vec *y);
int fe_op_diagonal(struct fe_op *op, struct fe_vec *diag);
void fe_op_destroy(struct fe_op *op);

#ifdef __cplusplus
}
#endif

#endif
