/* A backend: where vectors live and which kernels run on them (the CPU with
 * OpenMP, or a CUDA device).  Objects take their ops table from the backend,
 * as libCEED's and PETSc's objects do. */
#ifndef FE_BACKEND_H
#define FE_BACKEND_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum fe_backend_type { FE_CPU, FE_CUDA };

struct fe_backend;

/* Every op receives its backend (for its context: streams, scratch, handles). */
struct fe_vec_ops {
  int (*malloc)(const struct fe_backend *be, size_t bytes, void **p);
  void (*free)(const struct fe_backend *be, void *p);
  int (*to_device)(const struct fe_backend *be, void *dev, const void *host, size_t bytes);
  int (*to_host)(const struct fe_backend *be, void *host, const void *dev, size_t bytes);
  int (*set)(const struct fe_backend *be, size_t n, double alpha, double *y);
  int (*copy)(const struct fe_backend *be, size_t n, const double *x, double *y);
  /* y = a x + b y */
  int (*axpby)(const struct fe_backend *be, size_t n, double a, const double *x, double b, double *y);
  /* w = x .* y and w = x ./ y */
  int (*pointwise_mult)(const struct fe_backend *be, size_t n, const double *x, const double *y, double *w);
  int (*pointwise_div)(const struct fe_backend *be, size_t n, const double *x, const double *y, double *w);
  int (*dot)(const struct fe_backend *be, size_t n, const double *x, const double *y, double *r);
  /* NaN in both when any value is not finite */
  int (*minmax)(const struct fe_backend *be, size_t n, const double *x, double *min, double *max);
  /* y[idx[i]] = values[i] for i < m (Dirichlet values); idx, values on the backend */
  int (*set_indexed)(const struct fe_backend *be, size_t m, const int *idx, const double *values, double *y);
  /* CG with its scalars kept on the backend (so the GPU copies back only the
   * residual norm): *out = x . y, out on the backend */
  int (*dot_keep)(const struct fe_backend *be, size_t n, const double *x, const double *y, double *out);
  /* alpha = rz / pq; x += alpha p; r -= alpha q; z = r .* dinv (or r when dinv is
   * NULL); rz_rr[0] = r . z, rz_rr[1] = r . r.  rz, pq, rz_rr on the backend.
   * Converged already (rz[1], the previous r . r, <= done2): x, r, z are left
   * alone and rz_rr = rz, so that an iteration queued past convergence changes nothing. */
  int (*cg_update)(const struct fe_backend *be, size_t n, const double *rz, const double *pq,
                   const double *p, const double *q, double *x, double *r, const double *dinv,
                   double *z, double *rz_rr, double done2);
  /* wait until the backend's queued work is done (timings) */
  int (*sync)(const struct fe_backend *be);
  /* p = z + (rz_new / rz_old) p, unless converged (rz_new[1] <= done2) */
  int (*cg_direction)(const struct fe_backend *be, size_t n, const double *rz_new,
                      const double *rz_old, const double *z, double *p, double done2);
  /* A scalar to the host in two steps, so that the host can queue more work in
   * between: post starts copying *dev into slot (0 or 1), wait returns it. */
  int (*scalar_post)(const struct fe_backend *be, int slot, const double *dev);
  int (*scalar_wait)(const struct fe_backend *be, int slot, const double *dev, double *value);
};

struct fe_backend {
  enum fe_backend_type type;
  const char *name;
  int asynchronous; /* queued work runs while the host goes on (CUDA): CG may look ahead */
  const struct fe_vec_ops *vec;
  void *ctx; /* backend data (CUDA: device, scratch, library handles) */
};

/* The CPU backend (OpenMP); always available. */
const struct fe_backend *fe_backend_cpu(void);
/* The OpenMP threads its loops run on (OMP_NUM_THREADS, or the cores). */
int fe_backend_cpu_threads(void);

/* Backend memory: allocate `bytes` and copy `host` into it (host may be NULL). */
int fe_backend_alloc(const struct fe_backend *be, size_t bytes, const void *host, void *ptr_to_ptr);
void fe_backend_free(const struct fe_backend *be, void *p);

#ifdef __cplusplus
}
#endif

#endif
