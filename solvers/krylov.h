/* The Krylov solver of one system, of a kind chosen at creation: CG for
 * symmetric positive definite operators, BiCGStab for non-symmetric ones.
 * Both take the same options and give the same result (solvers/cg.h). */
#ifndef FE_KRYLOV_H
#define FE_KRYLOV_H

#include "solvers/cg.h"

enum fe_krylov_kind { FE_KRYLOV_CG, FE_KRYLOV_BICGSTAB };

/* "CG", "BiCGStab": the solver in messages and summaries */
const char *fe_krylov_name(enum fe_krylov_kind kind);

struct fe_krylov;

/* A solver of the kind for systems of vectors laid out as `like` (its backend, size, owned
 * entries and halo). */
int fe_krylov_create(const struct fe_vec *like, enum fe_krylov_kind kind, struct fe_krylov **k);
void fe_krylov_destroy(struct fe_krylov *k);
enum fe_krylov_kind fe_krylov_kind(const struct fe_krylov *k);

/* fe_cg_solve or fe_bicgstab_solve, by the kind of k. */
int fe_krylov_solve(struct fe_krylov *k, struct fe_op *a, const struct fe_vec *b, struct fe_vec *x,
                    const struct fe_cg_options *opt, struct fe_cg_result *result);

/* m <= FE_CG_MANY systems of one operator, system j on solver k[j] (distinct, one kind): CG
 * solves them at once (fe_cg_solve_many), BiCGStab one after another. */
int fe_krylov_solve_many(int m, struct fe_krylov *const *k, struct fe_op *a,
                         const struct fe_vec *const *b, struct fe_vec *const *x,
                         const struct fe_cg_options *opt, struct fe_cg_result *result);

#endif
