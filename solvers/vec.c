#include "solvers/vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

int fe_vec_create(const struct fe_backend *be, size_t n, struct fe_vec **v)
{
  struct fe_vec *x;
  FE_CALLOC(1, &x);
  x->be = be;
  x->n = n;
  int err = fe_backend_alloc(be, n * sizeof *x->a, NULL, &x->a);
  if (!err) err = be->vec->set(be, n, 0.0, x->a);
  if (err) {
    fe_vec_destroy(x);
    return err;
  }
  *v = x;
  return FE_SUCCESS;
}

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
int fe_vec_dot(const struct fe_vec *x, const struct fe_vec *y, double *r)
{
  return x->be->vec->dot(x->be, x->n, x->a, y->a, r);
}
int fe_vec_norm(const struct fe_vec *x, double *r)
{
  FE_CALL(fe_vec_dot(x, x, r));
  *r = sqrt(*r);
  return FE_SUCCESS;
}
int fe_vec_minmax(const struct fe_vec *x, double *min, double *max)
{
  return x->be->vec->minmax(x->be, x->n, x->a, min, max);
}

int fe_backend_alloc(const struct fe_backend *be, size_t bytes, const void *host, void *ptr_to_ptr)
{
  void *p = NULL;
  FE_CALL(be->vec->malloc(be, bytes, &p));
  if (host) {
    int err = be->vec->to_device(be, p, host, bytes);
    if (err) {
      be->vec->free(be, p);
      return err;
    }
  }
  memcpy(ptr_to_ptr, &p, sizeof p);
  return FE_SUCCESS;
}

void fe_backend_free(const struct fe_backend *be, void *p)
{
  if (p) be->vec->free(be, p);
}
