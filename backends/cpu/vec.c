/* Memory and vector kernels of the CPU backend (OpenMP). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/backend_cpu.h"
#include "core/error.h"
#include "solvers/halo.h"

int fe_vec_malloc_cpu(const struct fe_backend *be, size_t bytes, void **p)
{
  (void)be;
  return fe_malloc(bytes ? bytes : 1, p);
}

void fe_vec_free_cpu(const struct fe_backend *be, void *p)
{
  (void)be;
  free(p);
}

int fe_vec_copy_bytes_cpu(const struct fe_backend *be, void *dst, const void *src, size_t bytes)
{
  (void)be;
  if (bytes) memcpy(dst, src, bytes);
  return FE_SUCCESS;
}

int fe_vec_set_cpu(const struct fe_backend *be, size_t n, double alpha, double *y)
{
  (void)be;
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) y[i] = alpha;
  return FE_SUCCESS;
}

int fe_vec_copy_cpu(const struct fe_backend *be, size_t n, const double *x, double *y)
{
  (void)be;
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) y[i] = x[i];
  return FE_SUCCESS;
}

int fe_vec_axpby_cpu(const struct fe_backend *be, size_t n, double a, const double *x, double b,
                     double *y)
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

int fe_vec_pointwise_mult_cpu(const struct fe_backend *be, size_t n, const double *x,
                              const double *y, double *w)
{
  (void)be;
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) w[i] = x[i] * y[i];
  return FE_SUCCESS;
}

int fe_vec_pointwise_div_cpu(const struct fe_backend *be, size_t n, const double *x,
                             const double *y, double *w)
{
  (void)be;
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) w[i] = x[i] / y[i];
  return FE_SUCCESS;
}

/* Each thread's share in FE_CPU_LANES running sums (backend_cpu.h), the rest of n after. */
int fe_vec_dot_cpu(const struct fe_backend *be, size_t n, const double *x, const double *y,
                   double *r)
{
  (void)be;
  const size_t blocks = n / FE_CPU_LANES;
  double s = 0;
#pragma omp parallel reduction(+ : s)
  {
    double a[FE_CPU_LANES] = {0};
#pragma omp for schedule(static) nowait
    for (size_t b = 0; b < blocks; b++)
      for (int l = 0; l < FE_CPU_LANES; l++)
        a[l] += x[b * FE_CPU_LANES + l] * y[b * FE_CPU_LANES + l];
    s = fe_cpu_lanes_sum(a);
  }
  for (size_t i = blocks * FE_CPU_LANES; i < n; i++) s += x[i] * y[i];
  *r = s;
  return FE_SUCCESS;
}

int fe_vec_minmax_cpu(const struct fe_backend *be, size_t n, const double *x, double *min,
                      double *max, double *bad)
{
  (void)be;
  double lo = DBL_MAX, hi = -DBL_MAX;
  long count = 0;
#pragma omp parallel for schedule(static) reduction(min : lo) reduction(max : hi) reduction(+ : count)
  for (size_t i = 0; i < n; i++) {
    lo = x[i] < lo ? x[i] : lo;
    hi = x[i] > hi ? x[i] : hi;
    count += x[i] != x[i] || x[i] - x[i] != 0; /* NaN or Inf */
  }
  *min = lo;
  *max = hi;
  *bad = (double)count;
  return FE_SUCCESS;
}

/* Backend memory is the host's: the values are there at once. */
int fe_vec_reduce_cpu(const struct fe_backend *be, enum fe_vec_reduction op, size_t n,
                      const double *x, const double *y, double *out)
{
  if (op == FE_VEC_RANGE) return fe_vec_minmax_cpu(be, n, x, &out[0], &out[1], &out[2]);
  return fe_vec_dot_cpu(be, n, x, y, &out[0]);
}

int fe_vec_set_indexed_cpu(const struct fe_backend *be, size_t m, const int *idx,
                           const double *values, double *y)
{
  (void)be;
  for (size_t i = 0; i < m; i++) y[idx[i]] = values[i];
  return FE_SUCCESS;
}

int fe_vec_sync_cpu(const struct fe_backend *be)
{
  (void)be;
  return FE_SUCCESS;
}

/* Other processes' ghosts: the owned entries each neighbour has as ghosts packed, exchanged
 * through the communicator, and unpacked into the ghosts (ncomp values per entry). */
static int remote_update(const struct fe_halo *h, int ncomp, double *x)
{
  const int nb = h->n_neighbours, n_send = h->send_ptr[nb];
  double *send = h->buffer, *recv = h->buffer + (long)n_send * ncomp;
  int *sp = h->scaled_ptr, *rp = h->scaled_ptr + nb + 1;
  for (int k = 0; k <= nb; k++) sp[k] = h->send_ptr[k] * ncomp, rp[k] = h->recv_ptr[k] * ncomp;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n_send; i++)
    for (int c = 0; c < ncomp; c++) send[i * ncomp + c] = x[(long)h->send[i] * ncomp + c];
  FE_CALL(fe_comm_exchange(h->be->comm, nb, h->neighbours, send, sp, recv, rp));
  const long first = (long)h->n_owned * ncomp, n = (long)h->recv_ptr[nb] * ncomp;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) x[first + i] = recv[i];
  return FE_SUCCESS;
}

/* Other processes' ghosts first: a copy may be one's. */
int fe_vec_ghost_update_cpu(const struct fe_halo *h, int ncomp, double *x)
{
  if (h->n_neighbours) FE_CALL(remote_update(h, ncomp, x));
  const long first = (long)fe_halo_first_copy(h);
#pragma omp parallel for schedule(static)
  for (long k = 0; k < (long)h->n_copies; k++)
    for (int c = 0; c < ncomp; c++)
      x[(first + k) * ncomp + c] = x[(long)h->owner[k] * ncomp + c];
  return FE_SUCCESS;
}

/* Other processes' ghosts: each neighbour's ghosts go back to it, and every owned entry adds
 * what its ghosts hold, neighbour by neighbour in rank order. */
static int remote_sum(const struct fe_halo *h, double *x)
{
  const int nb = h->n_neighbours, n_send = h->send_ptr[nb];
  double *back = h->buffer, *ghosts = x + h->n_owned;
  FE_CALL(fe_comm_exchange(h->be->comm, nb, h->neighbours, ghosts, h->recv_ptr, back,
                           h->send_ptr));
  for (long i = 0; i < n_send; i++) x[h->send[i]] += back[i];
  return FE_SUCCESS;
}

/* The copies first: a copy of another process's ghost adds into it, which goes back. */
int fe_vec_ghost_sum_cpu(const struct fe_halo *h, double *x)
{
#pragma omp parallel for schedule(static)
  for (long i = 0; i < (long)h->n_shared; i++) {
    double sum = x[h->shared[i]];
    for (int k = h->shared_ptr[i]; k < h->shared_ptr[i + 1]; k++) sum += x[h->shared_ghost[k]];
    x[h->shared[i]] = sum;
  }
  return h->n_neighbours ? remote_sum(h, x) : FE_SUCCESS;
}
