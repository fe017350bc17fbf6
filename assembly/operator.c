#include "assembly/operator.h"

#include <stdlib.h>
#include <string.h>

#include "assembly/kernels.h"
#include "core/error.h"
#include "core/timer.h"
#include "solvers/halo.h"

struct fe_assembled {
  struct fe_space *space;
  const struct fe_assembly_kernels *k;
  enum fe_strategy strategy;
  double *e;               /* element matrices, blocked layout */
  enum fe_storage storage; /* how e holds them (lma: chosen at each assembly, fe_form_storage) */
  size_t e_size;           /* values e has room for */
  int store_full;          /* lma: every entry even of symmetric forms (fe_operator_store_full) */
  double *elift;           /* full matrices of the boundary cells */
  double *work;            /* lma, matfree: local products, n_cells * nv */
  struct fe_csr *csr;
  struct fe_form form; /* matfree: the form and coefficients each apply recomputes */
  struct fe_coefficients coef;
  struct fe_assembly_times times;
};

static const char *const strategy_words[FE_STRATEGY_AUTO + 1] = {[FE_STRATEGY_LMA] = "lma",
                                                                 [FE_STRATEGY_ADDTO] = "addto",
                                                                 [FE_STRATEGY_MATFREE] = "matfree",
                                                                 [FE_STRATEGY_AUTO] = "auto"};

const char *fe_strategy_name(enum fe_strategy s)
{
  return (int)s >= 0 && (int)s <= FE_STRATEGY_AUTO ? strategy_words[s] : "unknown";
}

int fe_strategy_parse(const char *word, enum fe_strategy *s)
{
  for (int k = 0; k <= FE_STRATEGY_AUTO; k++)
    if (!strcmp(word, strategy_words[k])) {
      *s = (enum fe_strategy)k;
      return FE_SUCCESS;
    }
  FE_RAISE(FE_ERR_USAGE, "unknown assembly strategy '%s'; expected one of %s, %s, %s, %s", word,
           strategy_words[0], strategy_words[1], strategy_words[2], strategy_words[3]);
}

static struct fe_assembled *impl(const struct fe_op *op) { return op->impl; }

/* Where the halo exchanges go: x's ghosts take their owners' values before the cells read them
 * (CG's fused kernels update the owned entries, and its solution's ghosts only where it keeps
 * them current), unless they hold them already
 * (fe_vec_update_ghosts).  A vector made without the space's halo (a test's) knows nothing of
 * its ghosts: exchanged every time. */
static int exchange(const struct fe_assembled *a, const struct fe_vec *x)
{
  if (x->halo == a->space->halo) return fe_vec_update_ghosts(x);
  return fe_halo_update(a->space->halo, 1, (double *)x->a);
}

/* y = A' x on the owned entries, x's ghosts up to date: the cells' sums (LMA, matrix-free;
 * the ghosts not completed) or the CSR's owned rows (addto). */
static int owned_rows(const struct fe_assembled *a, const struct fe_vec *x, struct fe_vec *y)
{
  double *ya = fe_vec_write(y);
  switch (a->strategy) {
  case FE_STRATEGY_LMA: return a->k->lma.apply(a->space, a->storage, a->e, x->a, ya, a->work);
  case FE_STRATEGY_ADDTO: return a->k->addto.apply(a->csr, x->a, ya);
  default:
    return a->k->matfree.apply(a->space, &a->form, a->coef.diffusivity, a->coef.velocity, x->a, ya,
                               a->work);
  }
}

/* y after a loop over the cells or the CSR's rows wrote its owned entries (solvers/op.h): its
 * ghosts are left to whoever reads them (fe_vec_owned_written), except the copies of periodic
 * unknowns on one process, which the node loops over the merged incidence leave equal to their
 * owners' (assembly/space.h): no exchange then.  The ghosts of other processes' nodes miss
 * those processes' cells, and addto's CSR holds the owned rows only.  A vector made without
 * the space's halo has them completed at once. */
static int finish(const struct fe_assembled *a, struct fe_vec *y)
{
  const struct fe_halo *h = a->space->halo;
  if (y->halo != h) {
    double *ya = fe_vec_write(y);
    return a->strategy == FE_STRATEGY_ADDTO ? fe_halo_update(h, 1, ya) : fe_halo_complete(h, 1, ya);
  }
  if (a->strategy == FE_STRATEGY_ADDTO || fe_halo_remote(h)) return fe_vec_owned_written(y);
  return fe_vec_complete(y, h);
}

/* y = A' x on the owned entries (fe_op_apply_owned): the cells' sums, ghosts not completed.
 * addto exchanges only where other processes hold ghosts: its CSR's columns are unknowns,
 * never periodic copies. */
static int apply_owned(struct fe_op *op, const struct fe_vec *x, struct fe_vec *y)
{
  struct fe_assembled *a = impl(op);
  if (a->strategy != FE_STRATEGY_ADDTO || fe_halo_remote(a->space->halo)) FE_CALL(exchange(a, x));
  return owned_rows(a, x, y);
}

static int apply(struct fe_op *op, const struct fe_vec *x, struct fe_vec *y)
{
  FE_CALL(apply_owned(op, x, y));
  return finish(impl(op), y);
}

/* apply, then lift's y_I += A_ID x_D (fe_op_apply_full), with x's ghosts exchanged and y
 * finished once for both: the same values as the two one after the other. */
static int apply_full(struct fe_op *op, const struct fe_vec *x, struct fe_vec *y)
{
  struct fe_assembled *a = impl(op);
  FE_CALL(exchange(a, x));
  FE_CALL(owned_rows(a, x, y));
  if (a->space->any_bcells)
    FE_CALL(a->k->node.lift(a->space, a->elift, 1.0, x->a, fe_vec_write(y)));
  return finish(a, y);
}

/* Several vectors: each x's ghosts exchanged, then one pass of the cells where the backend has
 * it and the scatter is atomic (a deterministic space sums each in its fixed order). */
static int apply_lma_owned_many(struct fe_op *op, int m, const struct fe_vec *const *x,
                                struct fe_vec *const *y)
{
  struct fe_assembled *a = impl(op);
  if (!a->k->lma.apply_many || a->space->deterministic) {
    for (int j = 0; j < m; j++) FE_CALL(apply_owned(op, x[j], y[j]));
    return FE_SUCCESS;
  }
  const double *xa[FE_CG_MANY];
  double *ya[FE_CG_MANY];
  for (int j = 0; j < m; j++) {
    FE_CALL(exchange(a, x[j]));
    xa[j] = x[j]->a;
    ya[j] = fe_vec_write(y[j]);
  }
  return a->k->lma.apply_many(a->space, a->storage, a->e, m, xa, ya);
}

/* CG's whole solve as one kernel of the backend's LMA, where it has one (fe_lma_kernels.cg). */
static int cg_lma(struct fe_op *op, const struct fe_cg_job *job, int *done)
{
  struct fe_assembled *a = impl(op);
  *done = 0;
  if (!a->k->lma.cg) return FE_SUCCESS;
  return a->k->lma.cg(a->space, a->storage, a->e, a->work, job, done);
}

static int diagonal_matfree(struct fe_op *op, struct fe_vec *d)
{
  struct fe_assembled *a = impl(op);
  FE_CALL(a->k->matfree.diagonal(a->space, &a->form, a->coef.diffusivity, a->coef.velocity,
                                 fe_vec_write(d)));
  return finish(a, d);
}

static int lift(struct fe_op *op, double s, const struct fe_vec *x, struct fe_vec *y)
{
  struct fe_assembled *a = impl(op);
  if (!a->space->any_bcells) return FE_SUCCESS;
  FE_CALL(exchange(a, x));
  FE_CALL(a->k->node.lift(a->space, a->elift, s, x->a, fe_vec_write(y)));
  return finish(a, y);
}

static int reaction(struct fe_op *op, double s, const struct fe_vec *x, struct fe_vec *y)
{
  struct fe_assembled *a = impl(op);
  if (!a->space->any_dirichlet) return FE_SUCCESS;
  FE_CALL(a->k->node.reaction(a->space, a->elift, s, x->a, fe_vec_write(y)));
  return finish(a, y);
}

static int diagonal_lma(struct fe_op *op, struct fe_vec *d)
{
  struct fe_assembled *a = impl(op);
  FE_CALL(a->k->lma.diagonal(a->space, a->storage, a->e, fe_vec_write(d)));
  return finish(a, d);
}

static int diagonal_addto(struct fe_op *op, struct fe_vec *d)
{
  struct fe_assembled *a = impl(op);
  FE_CALL(a->k->addto.diagonal(a->csr, fe_vec_write(d)));
  return finish(a, d);
}

static void destroy(struct fe_op *op)
{
  struct fe_assembled *a = impl(op);
  if (a) {
    fe_backend_free(op->be, a->e);
    fe_backend_free(op->be, a->elift);
    fe_backend_free(op->be, a->work);
    fe_csr_destroy(a->csr);
    free(a);
  }
  free(op);
}

static const struct fe_op_ops ops_lma = {.apply = apply,
                                         .apply_owned = apply_owned,
                                         .apply_full = apply_full,
                                         .apply_owned_many = apply_lma_owned_many,
                                         .lift = lift,
                                         .reaction = reaction,
                                         .diagonal = diagonal_lma,
                                         .cg = cg_lma,
                                         .destroy = destroy};
static const struct fe_op_ops ops_addto = {.apply = apply,
                                           .apply_owned = apply_owned,
                                           .apply_full = apply_full,
                                           .lift = lift,
                                           .reaction = reaction,
                                           .diagonal = diagonal_addto,
                                           .destroy = destroy};
static const struct fe_op_ops ops_matfree = {.apply = apply,
                                             .apply_owned = apply_owned,
                                             .apply_full = apply_full,
                                             .lift = lift,
                                             .reaction = reaction,
                                             .diagonal = diagonal_matfree,
                                             .destroy = destroy};

/* e ready for the element matrices in storage st: zeroed when the storage changes (the
 * padding cells stay zero, no entry of the other storage is left), grown when it needs more
 * room and never shrunk.  An LMA operator starts with room for symmetric matrices, those of
 * the operators CG solves (M, M + theta dt K): 10 values per tetrahedron instead of 16, 6 per
 * triangle instead of 9; one assembled from a non-symmetric form (advection, SUPG) grows
 * once, at that assembly, outside any solve, and keeps the room when it goes back. */
static int store_as(struct fe_assembled *a, enum fe_storage st)
{
  const struct fe_space *s = a->space;
  const size_t n =
      (size_t)fe_blocked_cells(s->n_cells, s->block_shift) * fe_storage_entries(s->nv, st);
  if (a->e && st == a->storage) return FE_SUCCESS;
  if (n > a->e_size) {
    fe_backend_free(s->be, a->e);
    a->e = NULL;
    a->e_size = 0;
    FE_CALL(fe_backend_alloc(s->be, n * sizeof(double), NULL, &a->e));
    a->e_size = n;
  }
  a->storage = st;
  return s->be->vec->set(s->be, n, 0.0, a->e);
}

static int create(struct fe_space *s, enum fe_strategy strategy, struct fe_op *op)
{
  struct fe_assembled *a;
  FE_CALLOC(1, &a);
  op->impl = a;
  a->space = s;
  a->k = s->be->assembly;
  a->strategy = strategy;
  FE_CALL(fe_backend_alloc(
      s->be, (size_t)fe_blocked_cells(s->n_bcells + 1, FE_LIFT_SHIFT) * s->nk * sizeof(double),
      NULL, &a->elift));
  if (strategy != FE_STRATEGY_MATFREE) /* stored element matrices; addto's all in full */
    FE_CALL(store_as(a, strategy == FE_STRATEGY_LMA ? FE_STORAGE_SYMMETRIC : FE_STORAGE_FULL));
  if (strategy == FE_STRATEGY_ADDTO) return fe_csr_create(s, &a->csr);
  return fe_backend_alloc(s->be, (size_t)s->n_cells * s->nv * sizeof(double) + 1, NULL, &a->work);
}

int fe_operator_create(struct fe_space *s, enum fe_strategy strategy, struct fe_op **out)
{
  struct fe_op *op;
  FE_CALLOC(1, &op);
  op->be = s->be;
  op->n = (size_t)s->n_nodes;
  op->version = fe_op_next_version();
  op->ops = strategy == FE_STRATEGY_ADDTO     ? &ops_addto
            : strategy == FE_STRATEGY_MATFREE ? &ops_matfree
                                              : &ops_lma;
  int err = create(s, strategy, op);
  if (err) {
    destroy(op);
    return err;
  }
  *out = op;
  return FE_SUCCESS;
}

int fe_operator_assemble(struct fe_op *op, const struct fe_form *form,
                         const struct fe_coefficients *coef)
{
  struct fe_assembled *a = impl(op);
  struct fe_form f = *form;
  f.uniform_diffusivity = coef->uniform_diffusivity;
  f.lambda = coef->lambda;
  f.uniform_lambda = coef->uniform_lambda;
  if (a->strategy == FE_STRATEGY_LMA)
    FE_CALL(store_as(a, a->store_full ? FE_STORAGE_FULL : fe_form_storage(&f)));
  double t0 = fe_wtime();
  FE_CALL(a->k->element.matrices(a->space, &f, a->storage, coef->diffusivity, coef->velocity, a->e,
                                 a->elift));
  FE_CALL(fe_backend_sync(op->be)); /* so that the phase times are the kernels' */
  double t1 = fe_wtime();
  if (a->csr) FE_CALL(a->k->addto.assemble(a->space, a->csr, a->e));
  FE_CALL(fe_backend_sync(op->be));
  a->times.local += t1 - t0;
  a->times.global += fe_wtime() - t1;
  a->times.count++;
  a->form = f;
  a->coef = *coef;
  op->is_diagonal = form->lumped && form->diffusion == 0 && form->advection == 0 && form->supg == 0;
  op->version = fe_op_next_version();
  return FE_SUCCESS;
}

const struct fe_assembly_times *fe_operator_times(const struct fe_op *op)
{
  return &impl(op)->times;
}

int fe_operator_download_elements(const struct fe_op *op, double *host)
{
  const struct fe_assembled *a = impl(op);
  const size_t n = (size_t)fe_blocked_cells(a->space->n_cells, a->space->block_shift) *
                   fe_storage_entries(a->space->nv, a->storage);
  FE_CHECK(a->e, FE_ERR_USAGE, "a matrix-free operator stores no element matrices");
  return op->be->vec->to_host(op->be, host, a->e, n * sizeof *host);
}

enum fe_storage fe_operator_storage(const struct fe_op *op) { return impl(op)->storage; }

void fe_operator_store_full(struct fe_op *op, int full) { impl(op)->store_full = full; }

struct fe_csr *fe_operator_csr(const struct fe_op *op) { return impl(op)->csr; }

int fe_operator_pick(struct fe_space *space, const struct fe_form *form,
                     const struct fe_coefficients *coef, enum fe_strategy *best,
                     double seconds[FE_STRATEGY_AUTO])
{
  const struct fe_backend *be = space->be;
  struct fe_vec *x = NULL, *y = NULL;
  struct fe_op *op = NULL;
  int err = fe_space_vec_create(space, &x);
  if (!err) err = fe_space_vec_create(space, &y);
  if (!err) err = fe_vec_set(x, 1.0);
  *best = FE_STRATEGY_LMA;
  for (int s = 0; s < FE_STRATEGY_AUTO && !err; s++) {
    err = fe_operator_create(space, (enum fe_strategy)s, &op);
    if (!err) err = fe_operator_assemble(op, form, coef);
    if (!err) err = fe_op_apply(op, x, y); /* warm-up */
    if (!err) err = fe_backend_sync(be);
    const double start = fe_wtime();
    for (int r = 0; r < FE_PICK_APPLIES && !err; r++) {
      fe_vec_write(x); /* a new input each time, as CG's direction: its ghosts exchanged */
      err = fe_op_apply(op, x, y);
    }
    if (!err) err = fe_backend_sync(be);
    seconds[s] = (fe_wtime() - start) / FE_PICK_APPLIES;
    fe_op_destroy(op);
    op = NULL;
  }
  /* on several processes the slowest one's times, so that every process picks the same */
  if (!err) err = fe_comm_allreduce(be->comm, seconds, FE_STRATEGY_AUTO, FE_REDUCE_MAX);
  for (int s = 0; s < FE_STRATEGY_AUTO && !err; s++)
    if (seconds[s] < seconds[*best]) *best = (enum fe_strategy)s;
  fe_vec_destroy(x);
  fe_vec_destroy(y);
  return err;
}
