#include "solvers/readout.h"

#include <math.h>
#include <stdlib.h>

#include "core/error.h"
#include "solvers/readback.h"

enum kind { KIND_SUM, KIND_RANGE };

struct entry {
  int at, n;
  enum kind kind;
};

struct fe_readout {
  const struct fe_backend *be;
  int capacity, used;
  double *values;           /* on the backend: capacity */
  struct fe_readback *copy; /* their copy on the host: capacity */
  double *host;             /* its memory */
  double *combine; /* several processes: capacity, the values of one reduction kind packed */
  struct entry *entries;
  int n_entries; /* entries has room for capacity of them: each takes a value at least */
  int posted;    /* the copy of what was queued is posted */
  int waited;    /* and host holds it */
  long tag;      /* whose values they are (fe_readout_clear) */
};

int fe_readout_create(const struct fe_backend *be, int capacity, struct fe_readout **r)
{
  FE_CHECK(capacity >= 1, FE_ERR_USAGE, "a readout of %d values", capacity);
  struct fe_readout *x;
  FE_CALLOC(1, &x);
  x->be = be;
  x->capacity = capacity;
  x->tag = -1;
  int err = fe_backend_alloc(be, (size_t)capacity * sizeof *x->values, NULL, &x->values);
  if (!err) err = be->vec->set(be, (size_t)capacity, 0.0, x->values); /* a dot leaves 2 of 3 */
  if (!err) err = fe_readback_create(be, (size_t)capacity * sizeof *x->host, &x->copy);
  if (!err) x->host = fe_readback_host(x->copy);
  if (!err) err = fe_calloc((size_t)capacity, sizeof *x->combine, &x->combine);
  if (!err) err = fe_calloc((size_t)capacity, sizeof *x->entries, &x->entries);
  if (err) {
    fe_readout_destroy(x);
    return err;
  }
  *r = x;
  return FE_SUCCESS;
}

void fe_readout_destroy(struct fe_readout *r)
{
  if (!r) return;
  fe_backend_free(r->be, r->values);
  fe_readback_destroy(r->copy);
  free(r->combine);
  free(r->entries);
  free(r);
}

void fe_readout_clear(struct fe_readout *r, long tag)
{
  r->tag = tag;
  r->used = 0;
  r->n_entries = 0;
  r->posted = r->waited = 0;
}

/* n values of this kind at the end: their place. */
static int take(struct fe_readout *r, int n, enum kind kind, int *at)
{
  FE_CHECK(n >= 1 && r->used + n <= r->capacity, FE_ERR_USAGE,
           "a readout of %d values: %d queued, %d more asked", r->capacity, r->used, n);
  *at = r->used;
  r->entries[r->n_entries++] = (struct entry){.at = r->used, .n = n, .kind = kind};
  r->used += n;
  r->posted = r->waited = 0;
  return FE_SUCCESS;
}

int fe_readout_dot_arrays(struct fe_readout *r, size_t n, const double *x, const double *y, int *at)
{
  FE_CALL(take(r, FE_READOUT_REDUCTION, KIND_SUM, at));
  return r->be->vec->reduce(r->be, FE_VEC_DOT, n, x, y, r->values + *at);
}

int fe_readout_dot(struct fe_readout *r, const struct fe_vec *x, const struct fe_vec *y, int *at)
{
  return fe_readout_dot_arrays(r, x->n_owned, x->a, y->a, at);
}

int fe_readout_minmax(struct fe_readout *r, const struct fe_vec *x, int *at)
{
  FE_CALL(take(r, FE_READOUT_REDUCTION, KIND_RANGE, at));
  return r->be->vec->reduce(r->be, FE_VEC_RANGE, x->n_owned, x->a, x->a, r->values + *at);
}

int fe_readout_sum(struct fe_readout *r, const double *values, int n, int *at)
{
  FE_CALL(take(r, n, KIND_SUM, at));
  return r->be->vec->copy(r->be, (size_t)n, values, r->values + *at);
}

/* The values of every entry of one kind, component `c` of each range (0: min, 1: max, 2: the
 * count of non-finite values) or every value of each sum, reduced over the processes with op. */
static int combine(struct fe_readout *r, enum kind kind, int c, enum fe_reduce op)
{
  int n = 0;
  for (int e = 0; e < r->n_entries; e++) {
    const struct entry *x = &r->entries[e];
    if (x->kind != kind) continue;
    if (kind == KIND_RANGE)
      r->combine[n++] = r->host[x->at + c];
    else
      for (int i = 0; i < x->n; i++) r->combine[n++] = r->host[x->at + i];
  }
  if (!n) return FE_SUCCESS;
  FE_CALL(fe_comm_allreduce(r->be->comm, r->combine, n, op));
  n = 0;
  for (int e = 0; e < r->n_entries; e++) {
    const struct entry *x = &r->entries[e];
    if (x->kind != kind) continue;
    if (kind == KIND_RANGE)
      r->host[x->at + c] = r->combine[n++];
    else
      for (int i = 0; i < x->n; i++) r->host[x->at + i] = r->combine[n++];
  }
  return FE_SUCCESS;
}

int fe_readout_post(struct fe_readout *r)
{
  if (r->posted || !r->used) return FE_SUCCESS;
  FE_CALL(fe_readback_post(r->copy, r->values, (size_t)r->used * sizeof *r->host));
  r->posted = 1;
  return FE_SUCCESS;
}

int fe_readout_wait(struct fe_readout *r, long tag)
{
  FE_CHECK(r->tag == tag, FE_ERR_USAGE, "the values of step %ld asked of a readout of step %ld's",
           tag, r->tag);
  if (r->waited || !r->used) return FE_SUCCESS;
  FE_CALL(fe_readout_post(r));
  FE_CALL(fe_readback_wait(r->copy));
  if (r->be->comm->size > 1) {
    FE_CALL(combine(r, KIND_SUM, 0, FE_REDUCE_SUM));
    FE_CALL(combine(r, KIND_RANGE, 0, FE_REDUCE_MIN));
    FE_CALL(combine(r, KIND_RANGE, 1, FE_REDUCE_MAX));
    FE_CALL(combine(r, KIND_RANGE, 2, FE_REDUCE_SUM));
  }
  for (int e = 0; e < r->n_entries; e++) { /* a range with a value not finite: NaN, NaN */
    double *v = r->host + r->entries[e].at;
    if (r->entries[e].kind == KIND_RANGE && v[2] > 0) v[0] = v[1] = NAN;
  }
  r->waited = 1;
  return FE_SUCCESS;
}

const double *fe_readout_values(const struct fe_readout *r, int at) { return r->host + at; }
