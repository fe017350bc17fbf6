/* Values of the backend read by one wait: reductions (dot products, extrema) and copies are
 * queued into one backend array as the work that makes them is queued, then copied to the
 * host together and combined over the processes there.  A time step's stat row and probes
 * are one readout: the GPU's stream is waited for once, where each reduction read at once
 * (fe_vec_dot, fe_vec_minmax) waits for it and leaves the GPU idle until the host queues
 * the next kernel. */
#ifndef FE_READOUT_H
#define FE_READOUT_H

#include "solvers/vec.h"

#ifdef __cplusplus
extern "C" {
#endif

struct fe_readout;

/* Room for `capacity` values (a dot product or a range takes FE_READOUT_REDUCTION). */
int fe_readout_create(const struct fe_backend *be, int capacity, struct fe_readout **r);
void fe_readout_destroy(struct fe_readout *r);

/* The values a reduction takes in a readout (the backend's reduce writes three). */
#define FE_READOUT_REDUCTION 3

/* Forget what was queued: the next value goes first, and the values queued from now on are
 * those of `tag` (a time step's; a readout made holds tag -1's). */
void fe_readout_clear(struct fe_readout *r, long tag);

/* Queued: x . y over the owned entries, summed over the processes (one value); its place in
 * *at.  FE_ERR_USAGE when the readout has no room.  Every process queues the same values in the
 * same order (they are combined in that order). */
int fe_readout_dot(struct fe_readout *r, const struct fe_vec *x, const struct fe_vec *y, int *at);
/* The same of n entries of backend arrays x and y (n may be 0: the value is 0). */
int fe_readout_dot_arrays(struct fe_readout *r, size_t n, const double *x, const double *y,
                          int *at);
/* Queued: the minimum and maximum of x's owned entries over the processes (two values), both
 * NaN where any of them is not finite (as fe_vec_minmax). */
int fe_readout_minmax(struct fe_readout *r, const struct fe_vec *x, int *at);
/* Queued: n values of a backend array, each summed over the processes (a value that one
 * process holds and the others hold as 0: a probe's). */
int fe_readout_sum(struct fe_readout *r, const double *values, int n, int *at);

/* The copy of the values queued so far posted behind them (solvers/readback.h): the host may
 * queue other work before it waits. */
int fe_readout_post(struct fe_readout *r);
/* Wait for the values queued, those of `tag` (FE_ERR_USAGE where they are another tag's: a
 * step's values asked of a readout that holds another step's), posted now where they were
 * not, and combine the processes' values (every process together); nothing to do when
 * nothing was queued since the last wait or clear. */
int fe_readout_wait(struct fe_readout *r, long tag);
/* The values at `at` after fe_readout_wait. */
const double *fe_readout_values(const struct fe_readout *r, int at);

#ifdef __cplusplus
}
#endif

#endif
