#include "solvers/vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "solvers/halo.h"

static int create(const struct fe_backend *be, size_t n_owned, const struct fe_halo *halo,
                  struct fe_vec **v)
{
  struct fe_vec *x;
  FE_CALLOC(1, &x);
  x->be = be;
  x->n = n_owned + (halo ? halo->n_ghost : 0);
  x->n_owned = n_owned;
  x->halo = halo;
  double *a = NULL;
  int err = fe_backend_alloc(be, x->n * sizeof *a, NULL, &a);
  x->a = a;
  if (!err) err = be->vec->set(be, x->n, 0.0, a);
  if (err) {
    fe_vec_destroy(x);
    return err;
  }
  x->ghosts_current = 1; /* zero everywhere */
  *v = x;
  return FE_SUCCESS;
}

int fe_vec_create(const struct fe_backend *be, size_t n, struct fe_vec **v)
{
  return create(be, n, NULL, v);
}

int fe_vec_create_ghosted(const struct fe_halo *halo, struct fe_vec **v)
{
  return create(halo->be, halo->n_owned, halo, v);
}

int fe_vec_create_like(const struct fe_vec *x, struct fe_vec **y)
{
  return create(x->be, x->n_owned, x->halo, y);
}

void fe_vec_destroy(struct fe_vec *v)
{
  if (!v) return;
  fe_backend_free(v->be, (void *)v->a);
  free(v);
}

double *fe_vec_write(struct fe_vec *v)
{
  v->ghosts_current = 0;
  return (double *)v->a;
}

/* FESIM_CHECK_GHOSTS=1 on a vector in host memory (the CPU backend: a GPU's exchange may be
 * captured into a graph, where nothing can be read back or written from the host). */
static int checking(const struct fe_vec *v)
{
  static int on = -1;
  if (on < 0) {
    const char *env = getenv("FESIM_CHECK_GHOSTS");
    on = env && !strcmp(env, "1");
  }
  return on && !v->be->asynchronous && v->halo; /* alike on every process (a collective) */
}

/* Checking, an exchange left out because v's ghosts are current is made on a copy, whose
 * ghosts must come out the same bits. */
static int check_current(const struct fe_vec *v)
{
  if (!checking(v)) return FE_SUCCESS;
  double *fresh;
  FE_CALL(fe_malloc(v->n * sizeof *fresh, &fresh));
  memcpy(fresh, v->a, v->n * sizeof *fresh);
  int err = fe_halo_update(v->halo, 1, fresh);
  size_t i = v->n_owned;
  while (!err && i < v->n && !memcmp(&fresh[i], &v->a[i], sizeof *fresh)) i++;
  if (!err && i < v->n)
    err = fe_error_raise(
        FE_ERR_USAGE, __FILE__, __LINE__,
        "a vector's ghosts taken as current are stale: entry %zu of %zu holds %.17g, "
        "its owner's value is %.17g (a write not made through fe_vec_write?)",
        i, v->n, v->a[i], fresh[i]);
  free(fresh);
  return err;
}

/* The ghosts are copies, not part of the value: their state changes on a const vector too. */
int fe_vec_update_ghosts(const struct fe_vec *v)
{
  struct fe_vec *w = (struct fe_vec *)v;
  if (v->ghosts_current) return check_current(v);
  FE_CALL(fe_halo_update(v->halo, 1, (double *)v->a));
  w->ghosts_current = 1;
  return FE_SUCCESS;
}

int fe_vec_complete(struct fe_vec *v, const struct fe_halo *halo)
{
  FE_CALL(fe_halo_complete(halo, 1, fe_vec_write(v)));
  v->ghosts_current = halo == v->halo;
  return FE_SUCCESS;
}

int fe_vec_owned_written(struct fe_vec *v)
{
  double *a = fe_vec_write(v);
  if (checking(v))
    for (size_t i = v->n_owned; i < v->n; i++) a[i] = NAN;
  return FE_SUCCESS;
}

int fe_vec_upload(struct fe_vec *v, const double *host)
{
  return v->be->vec->to_device(v->be, fe_vec_write(v), host, v->n * sizeof *host);
}
int fe_vec_download(const struct fe_vec *v, double *host)
{
  return v->be->vec->to_host(v->be, host, v->a, v->n * sizeof *host);
}
int fe_vec_set(struct fe_vec *y, double alpha)
{
  FE_CALL(y->be->vec->set(y->be, y->n, alpha, fe_vec_write(y)));
  y->ghosts_current = 1;
  return FE_SUCCESS;
}
int fe_vec_copy(const struct fe_vec *x, struct fe_vec *y)
{
  FE_CALL(x->be->vec->copy(x->be, x->n, x->a, fe_vec_write(y)));
  y->ghosts_current = x->ghosts_current;
  return FE_SUCCESS;
}
int fe_vec_axpy(struct fe_vec *y, double a, const struct fe_vec *x)
{
  return fe_vec_axpby(y, a, x, 1.0);
}
int fe_vec_axpby(struct fe_vec *y, double a, const struct fe_vec *x, double b)
{
  const int current = x->ghosts_current && y->ghosts_current;
  FE_CALL(y->be->vec->axpby(y->be, y->n, a, x->a, b, fe_vec_write(y)));
  y->ghosts_current = current;
  return FE_SUCCESS;
}
int fe_vec_pointwise_mult(struct fe_vec *w, const struct fe_vec *x, const struct fe_vec *y)
{
  const int current = x->ghosts_current && y->ghosts_current;
  FE_CALL(w->be->vec->pointwise_mult(w->be, w->n, x->a, y->a, fe_vec_write(w)));
  w->ghosts_current = current;
  return FE_SUCCESS;
}
int fe_vec_pointwise_div(struct fe_vec *w, const struct fe_vec *x, const struct fe_vec *y)
{
  const int current = x->ghosts_current && y->ghosts_current;
  FE_CALL(w->be->vec->pointwise_div(w->be, w->n, x->a, y->a, fe_vec_write(w)));
  w->ghosts_current = current;
  return FE_SUCCESS;
}
int fe_vec_set_indexed(struct fe_vec *y, size_t m, const int *idx, const double *values)
{
  const int current = y->ghosts_current;
  if (m) FE_CALL(y->be->vec->set_indexed(y->be, m, idx, values, fe_vec_write(y)));
  y->ghosts_current = current;
  return FE_SUCCESS;
}
int fe_vec_dot(const struct fe_vec *x, const struct fe_vec *y, double *r)
{
  FE_CALL(x->be->vec->dot(x->be, x->n_owned, x->a, y->a, r));
  return fe_comm_allreduce(x->be->comm, r, 1, FE_REDUCE_SUM);
}
int fe_vec_norm(const struct fe_vec *x, double *r)
{
  FE_CALL(fe_vec_dot(x, x, r));
  *r = sqrt(*r);
  return FE_SUCCESS;
}
int fe_vec_minmax(const struct fe_vec *x, double *min, double *max)
{
  double lo, hi, bad;
  FE_CALL(x->be->vec->minmax(x->be, x->n_owned, x->a, &lo, &hi, &bad));
  FE_CALL(fe_comm_allreduce(x->be->comm, &lo, 1, FE_REDUCE_MIN));
  FE_CALL(fe_comm_allreduce(x->be->comm, &hi, 1, FE_REDUCE_MAX));
  FE_CALL(fe_comm_allreduce(x->be->comm, &bad, 1, FE_REDUCE_SUM));
  *min = bad > 0 ? NAN : lo;
  *max = bad > 0 ? NAN : hi;
  return FE_SUCCESS;
}
