/* BiCGStab, right-preconditioned (Jacobi or none), on an fe_op: the solver
 * of non-symmetric systems (van der Vorst, SIAM J. Sci. Stat. Comput. 13(2),
 * 631-644, 1992; Saad, Iterative Methods for Sparse Linear Systems, 2nd ed.,
 * Alg. 7.7, applied to A K y = b, x = K y, as Barrett et al., Templates for
 * the Solution of Linear Systems, SIAM 1994, section 2.3.8, write it).
 *
 * It takes CG's options and result (solvers/cg.h; drive is ignored: the host drives).
 * Right preconditioning leaves r = b - A x the residual of the system itself,
 * so the test is CG's: converged when ||r|| <= max(rtol ||b||, atol), checked
 * on the recomputed residual b - A x before it is believed.  One iteration is
 * one BiCGStab step: two applies and five reductions.  A breakdown (r0^.r,
 * r0^.v or omega zero) restarts once from the current x with the current
 * residual as the new shadow r0^; a second one, values that are not finite or
 * max_iterations end the solve with converged = 0 and the history. */
#ifndef FE_BICGSTAB_H
#define FE_BICGSTAB_H

#include "solvers/cg.h"

struct fe_bicgstab;

/* Its work vectors laid out as `like` (its backend, size, owned entries and halo). */
int fe_bicgstab_create(const struct fe_vec *like, struct fe_bicgstab **s);
void fe_bicgstab_destroy(struct fe_bicgstab *s);

/* Solve A x = b from the initial guess in x.  Not converging is reported in
 * result, not as an error: the caller names the solve in its message. */
int fe_bicgstab_solve(struct fe_bicgstab *s, struct fe_op *a, const struct fe_vec *b,
                      struct fe_vec *x, const struct fe_cg_options *opt,
                      struct fe_cg_result *result);

#endif
