/* Vectors of doubles on a backend. */
#ifndef FE_VEC_H
#define FE_VEC_H

#include "solvers/backend.h"


#ifdef __cplusplus
extern "C" {
#endif

struct fe_vec {
  const struct fe_backend *be;
  size_t n;
  double *a; /* host or device memory, per backend */
};

int fe_vec_create(const struct fe_backend *be, size_t n, struct fe_vec **v);
void fe_vec_destroy(struct fe_vec *v);

int fe_vec_upload(struct fe_vec *v, const double *host);
int fe_vec_download(const struct fe_vec *v, double *host);
int fe_vec_set(struct fe_vec *y, double alpha);
int fe_vec_copy(const struct fe_vec *x, struct fe_vec *y);
int fe_vec_axpy(struct fe_vec *y, double a, const struct fe_vec *x);  /* y += a x */
int fe_vec_axpby(struct fe_vec *y, double a, const struct fe_vec *x, double b); /* y = a x + b y */
int fe_vec_pointwise_mult(struct fe_vec *w, const struct fe_vec *x, const struct fe_vec *y);
int fe_vec_pointwise_div(struct fe_vec *w, const struct fe_vec *x, const struct fe_vec *y);
int fe_vec_dot(const struct fe_vec *x, const struct fe_vec *y, double *r);
int fe_vec_norm(const struct fe_vec *x, double *r);
int fe_vec_minmax(const struct fe_vec *x, double *min, double *max);

#ifdef __cplusplus
}
#endif

#endif
