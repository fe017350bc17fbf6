/* A readout (solvers/readout.h) on a backend, one process: the dot products and extrema it
 * queues read back as fe_vec_dot and fe_vec_minmax give them (the same bits: the same
 * kernels), a range with a non-finite value NaN, copied values as they were, a value queued
 * after the copy was posted (solvers/readback.h), a readout that was cleared or has no room,
 * and one asked for another step's values than it holds. */
#ifndef FE_TEST_READOUT_CHECKS_H
#define FE_TEST_READOUT_CHECKS_H

#include <math.h>
#include <string.h>

#include "core/error.h"
#include "solvers/readout.h"
#include "test.h"

static void check_readout(const struct fe_backend *be)
{
  enum { N = 1001 };
  double host[N], again[2];
  for (int i = 0; i < N; i++) host[i] = sin(0.37 * i) * (1 + i % 7);
  struct fe_vec *x = NULL, *y = NULL;
  struct fe_readout *r = NULL;
  CHECK_OK(fe_vec_create(be, N, &x));
  CHECK_OK(fe_vec_create(be, N, &y));
  /* room for two reductions and four values, one value short of a third reduction */
  CHECK_OK(fe_readout_create(be, 2 * FE_READOUT_REDUCTION + 6, &r));
  if (!x || !y || !r) goto out;
  fe_readout_clear(r, 4); /* step 4's values */
  CHECK_OK(fe_vec_upload(x, host));
  CHECK_OK(fe_vec_set(y, 0.5));
  double dot, lo, hi;
  CHECK_OK(fe_vec_dot(x, y, &dot));
  CHECK_OK(fe_vec_minmax(x, &lo, &hi));
  int at_dot, at_range, at_sum, at_more;
  CHECK_OK(fe_readout_dot(r, x, y, &at_dot));
  CHECK_OK(fe_readout_minmax(r, x, &at_range));
  CHECK_OK(fe_readout_sum(r, x->a + 10, 4, &at_sum));
  fe_error_set_quiet(1);
  CHECK(fe_readout_dot(r, x, x, &at_more) == FE_ERR_USAGE); /* no room left */
  fe_error_set_quiet(0);
  fe_error_set_quiet(1);
  CHECK(fe_readout_wait(r, 5) == FE_ERR_USAGE); /* another step's */
  fe_error_set_quiet(0);
  CHECK_OK(fe_readout_wait(r, 4));
  CHECK(!memcmp(fe_readout_values(r, at_dot), &dot, sizeof dot));
  CHECK(fe_readout_values(r, at_range)[0] == lo && fe_readout_values(r, at_range)[1] == hi);
  CHECK(!memcmp(fe_readout_values(r, at_sum), host + 10, 4 * sizeof *host));
  CHECK_OK(fe_readout_wait(r, 4)); /* nothing new: the same values */
  CHECK(!memcmp(fe_readout_values(r, at_dot), &dot, sizeof dot));

  /* cleared: the next value goes first; a non-finite entry makes the range NaN; a value
   * queued after the copy was posted is copied too (the wait posts again) */
  fe_readout_clear(r, 5);
  host[N / 2] = NAN;
  CHECK_OK(fe_vec_upload(x, host));
  CHECK_OK(fe_readout_minmax(r, x, &at_range));
  CHECK(at_range == 0);
  CHECK_OK(fe_readout_post(r));
  CHECK_OK(fe_readout_dot(r, y, y, &at_more));
  CHECK_OK(fe_readout_wait(r, 5));
  memcpy(again, fe_readout_values(r, at_range), sizeof again);
  CHECK(isnan(again[0]) && isnan(again[1]));
  CHECK(fe_readout_values(r, at_more)[0] == 0.25 * N);
out:
  fe_readout_destroy(r);
  fe_vec_destroy(x);
  fe_vec_destroy(y);
}

#endif
