#include "solvers/vec.h"

#include <math.h>
#include <stdlib.h>

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
  int err = fe_backend_alloc(be, x->n * sizeof *x->a, NULL, &x->a);
  if (!err) err = be->vec->set(be, x->n, 0.0, x->a);
  if (err) {
    fe_vec_destroy(x);
    return err;
  }
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

int fe_vec_update_ghosts(const struct fe_vec *v) { return fe_halo_update(v->halo, 1, v->a); }

void fe_vec_destroy(struct fe_vec *v)
{
  if (!v) return;
  fe_backend_free(v->be, v->a);
  free(v);
}

int fe_vec_upload(struct fe_vec *v, const double *host)
{
  return v->be->vec->to_device(v->be, v->a, host, v->n * sizeof *host);
}
int fe_vec_download(const struct fe_vec *v, double *host)
{
  return v->be->vec->to_host(v->be, host, v->a, v->n * sizeof *host);
}
int fe_vec_set(struct fe_vec *y, double alpha) { return y->be->vec->set(y->be, y->n, alpha, y->a); }
int fe_vec_copy(const struct fe_vec *x, struct fe_vec *y) { return x->be->vec->copy(x->be, x->n, x->a, y->a); }
int fe_vec_axpy(struct fe_vec *y, double a, const struct fe_vec *x)
{
  return y->be->vec->axpby(y->be, y->n, a, x->a, 1.0, y->a);
}
int fe_vec_axpby(struct fe_vec *y, double a, const struct fe_vec *x, double b)
{
  return y->be->vec->axpby(y->be, y->n, a, x->a, b, y->a);
}
int fe_vec_pointwise_mult(struct fe_vec *w, const struct fe_vec *x, const struct fe_vec *y)
{
  return w->be->vec->pointwise_mult(w->be, w->n, x->a, y->a, w->a);
}
int fe_vec_pointwise_div(struct fe_vec *w, const struct fe_vec *x, const struct fe_vec *y)
{
  return w->be->vec->pointwise_div(w->be, w->n, x->a, y->a, w->a);
}
int fe_vec_set_indexed(struct fe_vec *y, size_t m, const int *idx, const double *values)
{
  return m ? y->be->vec->set_indexed(y->be, m, idx, values, y->a) : FE_SUCCESS;
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
