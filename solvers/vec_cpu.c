/* Vector kernels of the CPU backend (OpenMP). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "solvers/backend.h"

#include <omp.h>

static int malloc_cpu(const struct fe_backend *be, size_t bytes, void **p)
{
  (void)be;
  return fe_malloc(bytes ? bytes : 1, p);
}

static void free_cpu(const struct fe_backend *be, void *p)
{
  (void)be;
  free(p);
}

static int copy_bytes_cpu(const struct fe_backend *be, void *dst, const void *src, size_t bytes)
{
  (void)be;
  if (bytes) memcpy(dst, src, bytes);
  return FE_SUCCESS;
}

static int set_cpu(const struct fe_backend *be, size_t n, double alpha, double *y)
{
  (void)be;
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) y[i] = alpha;
  return FE_SUCCESS;
}

static int copy_cpu(const struct fe_backend *be, size_t n, const double *x, double *y)
{
  (void)be;
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) y[i] = x[i];
  return FE_SUCCESS;
}

static int axpby_cpu(const struct fe_backend *be, size_t n, double a, const double *x, double b, double *y)
{
  (void)be;
  if (b == 1.0) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) y[i] += a * x[i];
  } else if (b == 0.0) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) y[i] = a * x[i];
  } else {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) y[i] = a * x[i] + b * y[i];
  }
  return FE_SUCCESS;
}

static int pointwise_mult_cpu(const struct fe_backend *be, size_t n, const double *x, const double *y, double *w)
{
  (void)be;
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) w[i] = x[i] * y[i];
  return FE_SUCCESS;
}

static int pointwise_div_cpu(const struct fe_backend *be, size_t n, const double *x, const double *y, double *w)
{
  (void)be;
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) w[i] = x[i] / y[i];
  return FE_SUCCESS;
}

static int dot_cpu(const struct fe_backend *be, size_t n, const double *x, const double *y, double *r)
{
  (void)be;
  double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
  for (size_t i = 0; i < n; i++) s += x[i] * y[i];
  *r = s;
  return FE_SUCCESS;
}

static int minmax_cpu(const struct fe_backend *be, size_t n, const double *x, double *min, double *max)
{
  (void)be;
  double lo = DBL_MAX, hi = -DBL_MAX;
  int bad = 0;
#pragma omp parallel for schedule(static) reduction(min : lo) reduction(max : hi) reduction(| : bad)
  for (size_t i = 0; i < n; i++) {
    lo = x[i] < lo ? x[i] : lo;
    hi = x[i] > hi ? x[i] : hi;
    bad |= x[i] != x[i] || x[i] - x[i] != 0; /* NaN or Inf */
  }
  *min = bad ? NAN : lo;
  *max = bad ? NAN : hi;
  return FE_SUCCESS;
}

static int set_indexed_cpu(const struct fe_backend *be, size_t m, const int *idx, const double *values, double *y)
{
  (void)be;
  for (size_t i = 0; i < m; i++) y[idx[i]] = values[i];
  return FE_SUCCESS;
}

static int dot_keep_cpu(const struct fe_backend *be, size_t n, const double *x, const double *y, double *out)
{
  return dot_cpu(be, n, x, y, out);
}

static int cg_update_cpu(const struct fe_backend *be, size_t n, const double *rz, const double *pq,
                         const double *p, const double *q, double *x, double *r, const double *dinv,
                         double *z, double *rz_rr, double done2)
{
  (void)be;
  if (rz[1] <= done2) {
    rz_rr[0] = rz[0];
    rz_rr[1] = rz[1];
    return FE_SUCCESS;
  }
  const double alpha = *rz / *pq;
  double sz = 0, sr = 0;
#pragma omp parallel for schedule(static) reduction(+ : sz, sr)
  for (size_t i = 0; i < n; i++) {
    x[i] += alpha * p[i];
    const double ri = r[i] - alpha * q[i];
    const double zi = dinv ? ri * dinv[i] : ri;
    r[i] = ri;
    z[i] = zi;
    sz += ri * zi;
    sr += ri * ri;
  }
  rz_rr[0] = sz;
  rz_rr[1] = sr;
  return FE_SUCCESS;
}

static int cg_direction_cpu(const struct fe_backend *be, size_t n, const double *rz_new,
                            const double *rz_old, const double *z, double *p, double done2)
{
  return rz_new[1] <= done2 ? FE_SUCCESS : axpby_cpu(be, n, 1.0, z, *rz_new / *rz_old, p);
}

static int scalar_post_cpu(const struct fe_backend *be, int slot, const double *dev)
{
  (void)be, (void)slot, (void)dev;
  return FE_SUCCESS;
}

static int scalar_wait_cpu(const struct fe_backend *be, int slot, const double *dev, double *value)
{
  (void)be, (void)slot;
  *value = *dev;
  return FE_SUCCESS;
}

static int sync_cpu(const struct fe_backend *be)
{
  (void)be;
  return FE_SUCCESS;
}

static const struct fe_vec_ops vec_ops_cpu = {
  .malloc = malloc_cpu,
  .free = free_cpu,
  .to_device = copy_bytes_cpu,
  .to_host = copy_bytes_cpu,
  .set = set_cpu,
  .copy = copy_cpu,
  .axpby = axpby_cpu,
  .pointwise_mult = pointwise_mult_cpu,
  .pointwise_div = pointwise_div_cpu,
  .dot = dot_cpu,
  .minmax = minmax_cpu,
  .set_indexed = set_indexed_cpu,
  .dot_keep = dot_keep_cpu,
  .cg_update = cg_update_cpu,
  .sync = sync_cpu,
  .cg_direction = cg_direction_cpu,
  .scalar_post = scalar_post_cpu,
  .scalar_wait = scalar_wait_cpu,
};

static const struct fe_backend backend_cpu = {FE_CPU, "cpu", 0, &vec_ops_cpu, NULL};

const struct fe_backend *fe_backend_cpu(void) { return &backend_cpu; }

int fe_backend_cpu_threads(void) { return omp_get_max_threads(); }
