/* The kernels of CG on the CPU backend; its scalars live in host memory. */
#include "backends/cpu/backend_cpu.h"
#include "core/error.h"

int fe_cg_dot_cpu(const struct fe_backend *be, size_t n, const double *x, const double *y,
                  double *out)
{
  return fe_vec_dot_cpu(be, n, x, y, out);
}

int fe_cg_update_cpu(const struct fe_backend *be, size_t n, const double *rz, const double *pq,
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

int fe_cg_direction_cpu(const struct fe_backend *be, size_t n, const double *rz_new,
                        const double *rz_old, const double *z, double *p, double done2)
{
  return rz_new[1] <= done2 ? FE_SUCCESS : fe_vec_axpby_cpu(be, n, 1.0, z, *rz_new / *rz_old, p);
}

int fe_cg_scalar_post_cpu(const struct fe_backend *be, int slot, const double *dev)
{
  (void)be, (void)slot, (void)dev;
  return FE_SUCCESS;
}

int fe_cg_scalar_wait_cpu(const struct fe_backend *be, int slot, const double *dev, double *value)
{
  (void)be, (void)slot;
  *value = *dev;
  return FE_SUCCESS;
}
