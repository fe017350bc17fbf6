/* Vectors of doubles on a backend.  A vector holds the entries this process
 * owns first, then its ghosts (copies of owned entries: of other processes', grouped
 * by owner, or of this one's where periodic boundaries make copies); reductions cover the
 * owned entries and combine the processes' parts through the backend's communicator.
 * Operations entry by entry (set, copy, axpby, pointwise) cover the ghosts too, so that
 * ghosts that were copies stay copies.  Without a halo every entry is owned.
 *
 * A vector knows whether its ghosts hold their owners' values (deal.II's ghosted state): an
 * exchange makes them so, and so do the operations entry by entry whose inputs all have them;
 * any other write takes them as stale.  The entries are read through `a` and written through
 * fe_vec_write, so that no write goes unseen: fe_vec_update_ghosts, and the operators' exchange
 * of their input (solvers/op.h), exchange only what is stale.  With FESIM_CHECK_GHOSTS=1 on the
 * CPU backend (the tests) every exchange left out is made all the same and compared, and
 * ghosts left stale on purpose are NaN until updated (fe_vec_owned_written). */
#ifndef FE_VEC_H
#define FE_VEC_H

#include "solvers/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

struct fe_vec {
  const struct fe_backend *be;
  size_t n;                   /* entries held: owned, then ghosts */
  size_t n_owned;             /* entries this process owns */
  const struct fe_halo *halo; /* where the ghosts' values come from; NULL: no ghosts */
  const double *a;            /* the entries, host or device memory per backend: read here,
                                 written through fe_vec_write */
  int ghosts_current;         /* the ghosts hold their owners' values (see above) */
};

/* n entries, all owned */
int fe_vec_create(const struct fe_backend *be, size_t n, struct fe_vec **v);
/* the halo's owned entries followed by its ghosts (solvers/halo.h) */
int fe_vec_create_ghosted(const struct fe_halo *halo, struct fe_vec **v);
/* as many entries as x, owned and ghosts alike */
int fe_vec_create_like(const struct fe_vec *x, struct fe_vec **y);
void fe_vec_destroy(struct fe_vec *v);

/* The ghosts take their owners' values (the halo's forward exchange; nothing without ghosts,
 * nor where they hold them already).  The ghosts are copies, not part of the vector's value:
 * refreshing them is allowed on a vector passed as const, as deal.II's update_ghost_values()
 * is. */
int fe_vec_update_ghosts(const struct fe_vec *v);
/* After a loop over the cells of the space whose halo is `halo` wrote v's sums (FCT's step, the
 * lumped mass): fe_halo_complete(halo, v), and v's ghosts current after where halo is its own
 * (a vector made without it has none to keep). */
int fe_vec_complete(struct fe_vec *v, const struct fe_halo *halo);
/* After a writer made v's owned entries and left its ghosts to whoever reads them (an
 * operator's result: solvers/op.h): they are stale.  With FESIM_CHECK_GHOSTS=1 on the CPU they
 * are made NaN as well, so that a reader that takes them without an update is caught. */
int fe_vec_owned_written(struct fe_vec *v);
/* The entries for writing; the ghosts are taken as stale from now on.  A writer that keeps the
 * pointer calls it again each time it has written through it (CG's kernels). */
double *fe_vec_write(struct fe_vec *v);

int fe_vec_upload(struct fe_vec *v, const double *host);
int fe_vec_download(const struct fe_vec *v, double *host);
int fe_vec_set(struct fe_vec *y, double alpha);
int fe_vec_copy(const struct fe_vec *x, struct fe_vec *y);
int fe_vec_axpy(struct fe_vec *y, double a, const struct fe_vec *x);  /* y += a x */
int fe_vec_axpby(struct fe_vec *y, double a, const struct fe_vec *x, double b); /* y = a x + b y */
int fe_vec_pointwise_mult(struct fe_vec *w, const struct fe_vec *x, const struct fe_vec *y);
int fe_vec_pointwise_div(struct fe_vec *w, const struct fe_vec *x, const struct fe_vec *y);
/* y[idx[i]] = values[i], i < m: idx and values on the backend.  idx holds every copy of each
 * entry it sets (owned and ghosts alike) and values the same value at each (a space's Dirichlet
 * nodes and their values: assembly/space.h), so ghosts that held their owners' values still
 * do. */
int fe_vec_set_indexed(struct fe_vec *y, size_t m, const int *idx, const double *values);
int fe_vec_dot(const struct fe_vec *x, const struct fe_vec *y, double *r);
int fe_vec_norm(const struct fe_vec *x, double *r);
/* NaN in both when any value is not finite */
int fe_vec_minmax(const struct fe_vec *x, double *min, double *max);

#ifdef __cplusplus
}
#endif

#endif
