/* The kernels of CG on the CPU backend; its scalars live in host memory.  The systems of a
 * batch one after another, each as a solve of it alone. */
#include "backends/cpu/backend_cpu.h"
#include "core/error.h"

#include <stddef.h>

int fe_cg_residual_cpu(const struct fe_backend *be, size_t n, const struct fe_cg_batch *c,
                       const double *dinv)
{
  for (int j = 0; j < c->m; j++) {
    struct fe_cg_state *s = c->s[j];
    const double *b = c->b[j], *q = c->q[j];
    double *r = c->r[j], *z = c->z[j], *p = c->p[j];
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
      const double ri = b[i] - q[i];
      const double zi = dinv ? ri * dinv[i] : ri;
      r[i] = ri;
      z[i] = zi;
      p[i] = zi;
    }
    FE_CALL(fe_vec_dot_cpu(be, n, b, b, &s->bb));
    FE_CALL(fe_vec_dot_cpu(be, n, r, r, &s->rr0));
    FE_CALL(fe_vec_dot_cpu(be, n, r, z, &s->rz[0]));
  }
  return fe_cg_sum_states(be, c, offsetof(struct fe_cg_state, bb), 3);
}

int fe_cg_start_cpu(const struct fe_backend *be, const struct fe_cg_batch *c, double rtol,
                    double atol, int max_iterations, unsigned long long condition, int on)
{
  (void)be, (void)condition, (void)on; /* no loops on the device here */
  for (int j = 0; j < c->m; j++) fe_cg_state_start(c->s[j], rtol, atol, max_iterations);
  return FE_SUCCESS;
}

int fe_cg_pq_cpu(const struct fe_backend *be, size_t n, const struct fe_cg_batch *c)
{
  for (int j = 0; j < c->m; j++) FE_CALL(fe_vec_dot_cpu(be, n, c->p[j], c->q[j], &c->s[j]->pq));
  return fe_cg_sum_states(be, c, offsetof(struct fe_cg_state, pq), 1);
}

/* Entry i of CG's update: x += alpha p, r -= alpha q, z = D^-1 r; its r, in *ri, and z. */
static inline double update_at(size_t i, double alpha, const double *p, const double *q,
                               const double *dinv, double *x, double *r, double *z, double *ri)
{
  fe_cg_advance(x, alpha, p, i);
  *ri = r[i] - alpha * q[i];
  r[i] = *ri;
  z[i] = dinv ? *ri * dinv[i] : *ri;
  return z[i];
}

/* The update with r.z and r.r summed as it goes, in FE_CPU_LANES running sums each, as
 * fe_vec_dot_cpu sums; a block's entries are independent, which `omp simd` tells the compiler
 * (it then keeps the lanes in vector registers: 3 % faster on the default case's step). */
int fe_cg_update_cpu(const struct fe_backend *be, size_t n, const struct fe_cg_batch *c,
                     const double *dinv)
{
  (void)be;
  const size_t blocks = n / FE_CPU_LANES;
  for (int j = 0; j < c->m; j++) {
    struct fe_cg_state *s = c->s[j];
    if (!s->go_on) continue;
    const double *p = c->p[j], *q = c->q[j];
    double *x = c->x[j], *r = c->r[j], *z = c->z[j];
    const double alpha = s->rz[0] / s->pq;
    double sz = 0, sr = 0;
#pragma omp parallel reduction(+ : sz, sr)
    {
      double az[FE_CPU_LANES] = {0}, ar[FE_CPU_LANES] = {0};
#pragma omp for schedule(static) nowait
      for (size_t b = 0; b < blocks; b++)
#pragma omp simd
        for (int l = 0; l < FE_CPU_LANES; l++) {
          double ri;
          const double zi = update_at(b * FE_CPU_LANES + l, alpha, p, q, dinv, x, r, z, &ri);
          az[l] += ri * zi;
          ar[l] += ri * ri;
        }
      sz = fe_cpu_lanes_sum(az);
      sr = fe_cpu_lanes_sum(ar);
    }
    for (size_t i = blocks * FE_CPU_LANES; i < n; i++) {
      double ri;
      const double zi = update_at(i, alpha, p, q, dinv, x, r, z, &ri);
      sz += ri * zi;
      sr += ri * ri;
    }
    for (size_t i = n; i < c->nx; i++) fe_cg_advance(x, alpha, p, i); /* the ghosts kept */
    s->rz_old = s->rz[0];
    s->rz[0] = sz;
    s->rz[1] = sr;
  }
  return fe_cg_sum_states(be, c, offsetof(struct fe_cg_state, rz), 2);
}

int fe_cg_direction_cpu(const struct fe_backend *be, size_t n, const struct fe_cg_batch *c)
{
  for (int j = 0; j < c->m; j++) {
    struct fe_cg_state *s = c->s[j];
    fe_cg_state_record(s);
    if (s->rz[1] > s->done2)
      FE_CALL(fe_vec_axpby_cpu(be, n, 1.0, c->z[j], s->rz[0] / s->rz_old, c->p[j]));
  }
  return FE_SUCCESS;
}

int fe_cg_going_cpu(const struct fe_backend *be, const struct fe_cg_batch *c, double *out,
                    struct fe_cg_state *gathered, unsigned long long condition, int on)
{
  (void)be, (void)condition, (void)on;
  int going = 0;
  for (int j = 0; j < c->m; j++) {
    going += c->s[j]->go_on != 0;
    gathered[j] = *c->s[j];
  }
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
