/* Global operators from element matrices by one of the strategies users
 * compare: addto (CSR), lma (local matrix approach: element matrices stored),
 * matfree (element matrices recomputed in each apply, nothing stored). */
#ifndef FE_OPERATOR_H
#define FE_OPERATOR_H

#include "assembly/space.h"
#include "solvers/op.h"

/* The strategies; auto: the fastest of the others, measured at set-up (fe_operator_pick). */
enum fe_strategy { FE_STRATEGY_LMA, FE_STRATEGY_ADDTO, FE_STRATEGY_MATFREE, FE_STRATEGY_AUTO };

/* "lma", "addto", "matfree", "auto" */
const char *fe_strategy_name(enum fe_strategy s);
/* The spelling of a strategy; FE_ERR_USAGE naming the words expected. */
int fe_strategy_parse(const char *word, enum fe_strategy *s);

/* Coefficient fields on the backend: diffusivity per cell (FE_NSYM(d) values,
 * P0; or one tensor for all cells when it does not vary in space), velocity
 * per node (d values, P1), absorption rate per cell (P0, or one value).  NULL
 * where the form does not use them.  A matfree operator reads them at every
 * apply: they must outlive it. */
struct fe_coefficients {
  const double *diffusivity;
  const double *velocity;
  int uniform_diffusivity; /* diffusivity holds one tensor, the same in every cell */
  const double *lambda;
  int uniform_lambda; /* lambda holds one value, the same in every cell */
};

struct fe_assembly_times {
  double local;  /* element matrices (seconds, summed over assemblies) */
  double global; /* CSR accumulation (addto only) */
  int count;
};

int fe_operator_create(struct fe_space *space, enum fe_strategy strategy, struct fe_op **op);
int fe_operator_assemble(struct fe_op *op, const struct fe_form *form,
                         const struct fe_coefficients *coef);
const struct fe_assembly_times *fe_operator_times(const struct fe_op *op);
/* The element matrices in the blocked layout (fe_blocked_cells(n_cells, block_shift) *
 * fe_storage_entries(nv, fe_operator_storage(op)) values), copied to the host. */
int fe_operator_download_elements(const struct fe_op *op, double *host);
/* How the operator stores its element matrices: lma the upper triangle when the form of its
 * last assembly is symmetric (fe_form_storage), addto every entry. */
enum fe_storage fe_operator_storage(const struct fe_op *op);
/* lma: every entry stored from the next assembly on, even for a symmetric form (full != 0),
 * or the upper triangle of those again (0, the default): the two storages compared by the
 * benchmark and the tests. */
void fe_operator_store_full(struct fe_op *op, int full);
/* The CSR matrix of an addto operator (NULL for lma and matfree). */
struct fe_csr *fe_operator_csr(const struct fe_op *op);

/* strategy="auto": each of lma, addto and matfree built and assembled for the
 * form on this space and backend, its apply timed (FE_PICK_APPLIES after a
 * warm-up); *best is the fastest, seconds[s] each one's time per apply. */
#define FE_PICK_APPLIES 10
int fe_operator_pick(struct fe_space *space, const struct fe_form *form,
                     const struct fe_coefficients *coef, enum fe_strategy *best,
                     double seconds[FE_STRATEGY_AUTO]);

#endif
