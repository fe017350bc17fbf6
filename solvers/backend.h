/* A backend: where vectors live and which kernels run on them (the CPU with
 * OpenMP, or a CUDA device).  One object per backend owns every table of it:
 * memory and vector kernels, the CG kernels, the assembly kernels, its
 * communicator and its context (device, stream, library handles).  The tables
 * are filled in one registration function per backend (backends/<name>/),
 * as libCEED's and PETSc's objects take their ops from their backend; nothing
 * else asks which backend it runs on. */
#ifndef FE_BACKEND_H
#define FE_BACKEND_H

#include <stddef.h>

#include "solvers/comm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The one list of backend kinds: what a case or the command line asks for. */
enum fe_backend_kind { FE_BACKEND_AUTO, FE_BACKEND_CPU, FE_BACKEND_CUDA };
#define FE_BACKEND_KINDS 3

/* "auto", "cpu", "cuda" */
const char *fe_backend_name(enum fe_backend_kind kind);
/* The spelling of a kind; FE_ERR_USAGE naming the words expected. */
int fe_backend_parse(const char *word, enum fe_backend_kind *kind);

struct fe_backend;
struct fe_halo; /* solvers/halo.h */

/* Memory and vector kernels.  Every op receives its backend (for its context:
 * stream, scratch, handles); vectors are plain arrays of n doubles. */
struct fe_vec_ops {
  int (*malloc)(const struct fe_backend *be, size_t bytes, void **p);
  void (*free)(const struct fe_backend *be, void *p);
  int (*to_device)(const struct fe_backend *be, void *dev, const void *host, size_t bytes);
  int (*to_host)(const struct fe_backend *be, void *host, const void *dev, size_t bytes);
  /* wait until the backend's queued work is done (timings) */
  int (*sync)(const struct fe_backend *be);
  int (*set)(const struct fe_backend *be, size_t n, double alpha, double *y);
  int (*copy)(const struct fe_backend *be, size_t n, const double *x, double *y);
  /* y = a x + b y */
  int (*axpby)(const struct fe_backend *be, size_t n, double a, const double *x, double b, double *y);
  /* w = x .* y and w = x ./ y */
  int (*pointwise_mult)(const struct fe_backend *be, size_t n, const double *x, const double *y, double *w);
  int (*pointwise_div)(const struct fe_backend *be, size_t n, const double *x, const double *y,
                       double *w);
  /* y[idx[i]] = values[i] for i < m (Dirichlet values); idx, values on the backend */
  int (*set_indexed)(const struct fe_backend *be, size_t m, const int *idx, const double *values, double *y);
  /* This process's part of a reduction (the communicator combines them):
   * *r = x . y; min and max of x, and *bad the count of its non-finite values. */
  int (*dot)(const struct fe_backend *be, size_t n, const double *x, const double *y, double *r);
  int (*minmax)(const struct fe_backend *be, size_t n, const double *x, double *min, double *max,
                double *bad);
  /* The halo's exchanges within this process (solvers/halo.h): every ghost takes its owner's
   * ncomp values; every owned entry with ghosts adds theirs, in their order. */
  int (*ghost_update)(const struct fe_halo *h, int ncomp, double *x);
  int (*ghost_sum)(const struct fe_halo *h, double *x);
};

/* The kernels of CG, whose scalars stay on the backend so that the GPU copies
 * back only the residual norm (solvers/cg.c). */
struct fe_cg_ops {
  /* *out = x . y (this process's part), out on the backend */
  int (*dot)(const struct fe_backend *be, size_t n, const double *x, const double *y, double *out);
  /* alpha = rz / pq; x += alpha p; r -= alpha q; z = r .* dinv (or r when dinv is
   * NULL); rz_rr[0] = r . z, rz_rr[1] = r . r.  rz, pq, rz_rr on the backend.
   * Converged already (rz[1], the previous r . r, <= done2): x, r, z are left
   * alone and rz_rr = rz, so that an iteration queued past convergence changes nothing. */
  int (*update)(const struct fe_backend *be, size_t n, const double *rz, const double *pq,
                const double *p, const double *q, double *x, double *r, const double *dinv,
                double *z, double *rz_rr, double done2);
  /* p = z + (rz_new / rz_old) p, unless converged (rz_new[1] <= done2) */
  int (*direction)(const struct fe_backend *be, size_t n, const double *rz_new,
                   const double *rz_old, const double *z, double *p, double done2);
  /* A scalar to the host in two steps, so that the host can queue more work in
   * between: post starts copying *dev into slot (0 or 1), wait returns it. */
  int (*scalar_post)(const struct fe_backend *be, int slot, const double *dev);
  int (*scalar_wait)(const struct fe_backend *be, int slot, const double *dev, double *value);
};

struct fe_assembly_kernels; /* assembly/kernels.h */

struct fe_backend {
  const char *name;      /* "cpu", "cuda" */
  char description[320]; /* for the summary: "cpu, 2 threads", "cuda: NVIDIA H100 ..." */
  int asynchronous;      /* queued work runs while the host goes on (CUDA): CG may look ahead */
  int atomic_scatter;    /* the LMA and matrix-free scatters use atomics unless the space
                            asks for determinism (fe_space.deterministic) */
  const struct fe_vec_ops *vec;
  const struct fe_cg_ops *cg;
  const struct fe_assembly_kernels *assembly;
  const struct fe_comm *comm; /* combines the reductions of the processes of a run */
  void (*destroy)(struct fe_backend *be);
  void *ctx; /* the backend's own data (CUDA: device, stream, scratch, handles) */
};

/* Backend memory: allocate `bytes` and copy `host` into it (host may be NULL). */
int fe_backend_alloc(const struct fe_backend *be, size_t bytes, const void *host, void *ptr_to_ptr);
void fe_backend_free(const struct fe_backend *be, void *p);
int fe_backend_sync(const struct fe_backend *be);

#ifdef __cplusplus
}
#endif

#endif
