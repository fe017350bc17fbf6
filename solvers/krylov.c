#include "solvers/krylov.h"

#include <stdlib.h>

#include "core/error.h"
#include "solvers/bicgstab.h"

struct fe_krylov {
  enum fe_krylov_kind kind;
  struct fe_cg *cg;             /* FE_KRYLOV_CG */
  struct fe_bicgstab *bicgstab; /* FE_KRYLOV_BICGSTAB */
};

const char *fe_krylov_name(enum fe_krylov_kind kind)
{
  switch (kind) {
  case FE_KRYLOV_CG: return "CG";
  case FE_KRYLOV_BICGSTAB: return "BiCGStab";
  }
  return "unknown";
}

int fe_krylov_create(const struct fe_vec *like, enum fe_krylov_kind kind, struct fe_krylov **k)
{
  FE_CHECK(kind == FE_KRYLOV_CG || kind == FE_KRYLOV_BICGSTAB, FE_ERR_USAGE,
           "no Krylov solver of kind %d: expected cg or bicgstab", (int)kind);
  struct fe_krylov *s;
  FE_CALLOC(1, &s);
  s->kind = kind;
  int err =
      kind == FE_KRYLOV_CG ? fe_cg_create(like, &s->cg) : fe_bicgstab_create(like, &s->bicgstab);
  if (err) {
    free(s);
    return err;
  }
  *k = s;
  return FE_SUCCESS;
}

void fe_krylov_destroy(struct fe_krylov *k)
{
  if (!k) return;
  fe_cg_destroy(k->cg);
  fe_bicgstab_destroy(k->bicgstab);
  free(k);
}

enum fe_krylov_kind fe_krylov_kind(const struct fe_krylov *k) { return k->kind; }

int fe_krylov_solve(struct fe_krylov *k, struct fe_op *a, const struct fe_vec *b, struct fe_vec *x,
                    const struct fe_cg_options *opt, struct fe_cg_result *result)
{
  if (k->kind == FE_KRYLOV_CG) return fe_cg_solve(k->cg, a, b, x, opt, result);
  return fe_bicgstab_solve(k->bicgstab, a, b, x, opt, result);
}

int fe_krylov_solve_many(int m, struct fe_krylov *const *k, struct fe_op *a,
                         const struct fe_vec *const *b, struct fe_vec *const *x,
                         const struct fe_cg_options *opt, struct fe_cg_result *result)
{
  FE_CHECK(m >= 1 && m <= FE_CG_MANY, FE_ERR_USAGE, "%d systems at once: 1 to %d", m,
           FE_CG_MANY);
  for (int j = 1; j < m; j++)
    FE_CHECK(k[j]->kind == k[0]->kind, FE_ERR_USAGE,
             "systems solved at once need solvers of one kind: %s and %s",
             fe_krylov_name(k[0]->kind), fe_krylov_name(k[j]->kind));
  if (k[0]->kind == FE_KRYLOV_CG) {
    struct fe_cg *cg[FE_CG_MANY];
    for (int j = 0; j < m; j++) cg[j] = k[j]->cg;
    return fe_cg_solve_many(m, cg, a, b, x, opt, result);
  }
  for (int j = 0; j < m; j++)
    FE_CALL(fe_bicgstab_solve(k[j]->bicgstab, a, b[j], x[j], opt, &result[j]));
  return FE_SUCCESS;
}
