/* The kernels of CG on the CPU backend; its scalars live in host memory. */
#include "backends/cpu/backend_cpu.h"
#include "core/error.h"

int fe_cg_dot_cpu(const struct fe_backend *be, size_t n, const double *x, const double *y,
                  double *out)
{
  return fe_vec_dot_cpu(be, n, x, y, out);
}

int fe_cg_start_cpu(const struct fe_backend *be, struct fe_cg_state *s, double rtol, double atol,
                    int max_iterations, unsigned long long condition, int on)
{
  (void)be, (void)condition, (void)on; /* no loops on the device here */
  fe_cg_state_start(s, rtol, atol, max_iterations);
  return FE_SUCCESS;
}

int fe_cg_update_cpu(const struct fe_backend *be, size_t n, struct fe_cg_state *s,
                     const double *p, const double *q, double *x, double *r, const double *dinv,
                     double *z)
{
  (void)be;
  if (!s->go_on) return FE_SUCCESS;
  const double alpha = s->rz[0] / s->pq;
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
  s->rz_old = s->rz[0];
  s->rz[0] = sz;
  s->rz[1] = sr;
  return FE_SUCCESS;
}

int fe_cg_direction_cpu(const struct fe_backend *be, size_t n, struct fe_cg_state *s,
                        const double *z, double *p)
{
  fe_cg_state_record(s);
  return s->rz[1] <= s->done2 ? FE_SUCCESS : fe_vec_axpby_cpu(be, n, 1.0, z, s->rz[0] / s->rz_old, p);
}

int fe_cg_going_cpu(const struct fe_backend *be, int m, struct fe_cg_state *const *s, double *out,
                    unsigned long long condition, int on)
{
  (void)be, (void)condition, (void)on;
  int going = 0;
  for (int j = 0; j < m; j++) going += s[j]->go_on != 0;
  *out = going;
  return FE_SUCCESS;
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
