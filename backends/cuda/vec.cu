/* Memory and vector kernels of the CUDA backend, on the backend's stream. */
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "backends/cuda/reduce.cuh"
#include "core/cuda_check.h"
#include "solvers/halo.h"

int fe_vec_malloc_cuda(const struct fe_backend *be, size_t bytes, void **p)
{
  cudaError_t err = cudaMalloc(p, bytes ? bytes : 1);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    size_t free_b = 0, total = 0;
    cudaMemGetInfo(&free_b, &total);
    FE_RAISE(FE_ERR_RESOURCE,
             "out of device memory on %s: needed %zu bytes (%.2f GiB) more, %zu bytes (%.2f GiB) "
             "free of %.2f GiB",
             fe_cuda_ctx(be)->name, bytes, bytes / 1073741824.0, free_b, free_b / 1073741824.0,
             total / 1073741824.0);
  }
  FE_CUDA_CALL(err);
  return FE_SUCCESS;
}

void fe_vec_free_cuda(const struct fe_backend *, void *p) { cudaFree(p); }

/* Host memory is pageable: the copy returns when it is done, in stream order. */
int fe_vec_to_device_cuda(const struct fe_backend *be, void *dev, const void *host, size_t bytes)
{
  if (!bytes) return FE_SUCCESS;
  FE_CUDA_CALL(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, fe_cuda_stream(be)));
  FE_CUDA_CALL(cudaStreamSynchronize(fe_cuda_stream(be)));
  return FE_SUCCESS;
}

int fe_vec_to_host_cuda(const struct fe_backend *be, void *host, const void *dev, size_t bytes)
{
  if (!bytes) return FE_SUCCESS;
  FE_CUDA_CALL(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, fe_cuda_stream(be)));
  FE_CUDA_CALL(cudaStreamSynchronize(fe_cuda_stream(be)));
  return FE_SUCCESS;
}

int fe_vec_host_alloc_cuda(const struct fe_backend *, size_t bytes, void **p)
{
  FE_CUDA_CALL(cudaMallocHost(p, bytes));
  return FE_SUCCESS;
}

void fe_vec_host_free_cuda(const struct fe_backend *, void *p) { cudaFreeHost(p); }

/* The copy on the backend's stream, then an event recorded behind it. */
int fe_vec_post_cuda(const struct fe_backend *be, void *host, const void *dev, size_t bytes,
                     void **mark)
{
  if (!*mark) {
    cudaEvent_t e;
    FE_CUDA_CALL(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    *mark = e;
  }
  if (bytes)
    FE_CUDA_CALL(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, fe_cuda_stream(be)));
  FE_CUDA_CALL(cudaEventRecord((cudaEvent_t)*mark, fe_cuda_stream(be)));
  return FE_SUCCESS;
}

int fe_vec_wait_cuda(const struct fe_backend *, void *mark)
{
  FE_CUDA_CALL(cudaEventSynchronize((cudaEvent_t)mark));
  return FE_SUCCESS;
}

void fe_vec_mark_free_cuda(const struct fe_backend *, void *mark)
{
  cudaEventDestroy((cudaEvent_t)mark);
}

int fe_vec_sync_cuda(const struct fe_backend *be)
{
  FE_CUDA_CALL(cudaStreamSynchronize(fe_cuda_stream(be)));
  return FE_SUCCESS;
}

__global__ void set_kernel(size_t n, double alpha, double *y)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    y[i] = alpha;
}

__global__ void axpby_kernel(size_t n, double a, const double *x, double b, double *y)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    y[i] = b == 0.0 ? a * x[i] : a * x[i] + b * y[i];
}

__global__ void mult_kernel(size_t n, const double *x, const double *y, double *w, int divide)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    w[i] = divide ? x[i] / y[i] : x[i] * y[i];
}

__global__ void set_indexed_kernel(size_t m, const int *idx, const double *values, double *y)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < m;
       i += (size_t)gridDim.x * blockDim.x)
    y[idx[i]] = values[i];
}

int fe_vec_set_cuda(const struct fe_backend *be, size_t n, double alpha, double *y)
{
  set_kernel<<<fe_cuda_blocks(n, 256), 256, 0, fe_cuda_stream(be)>>>(n, alpha, y);
  FE_CUDA_LAUNCHED("set");
  return FE_SUCCESS;
}

int fe_vec_copy_cuda(const struct fe_backend *be, size_t n, const double *x, double *y)
{
  if (n && x != y)
    FE_CUDA_CALL(
        cudaMemcpyAsync(y, x, n * sizeof *y, cudaMemcpyDeviceToDevice, fe_cuda_stream(be)));
  return FE_SUCCESS;
}

int fe_vec_axpby_cuda(const struct fe_backend *be, size_t n, double a, const double *x, double b,
                      double *y)
{
  axpby_kernel<<<fe_cuda_blocks(n, 256), 256, 0, fe_cuda_stream(be)>>>(n, a, x, b, y);
  FE_CUDA_LAUNCHED("axpby");
  return FE_SUCCESS;
}

int fe_vec_pointwise_mult_cuda(const struct fe_backend *be, size_t n, const double *x,
                               const double *y, double *w)
{
  mult_kernel<<<fe_cuda_blocks(n, 256), 256, 0, fe_cuda_stream(be)>>>(n, x, y, w, 0);
  FE_CUDA_LAUNCHED("pointwise_mult");
  return FE_SUCCESS;
}

int fe_vec_pointwise_div_cuda(const struct fe_backend *be, size_t n, const double *x,
                              const double *y, double *w)
{
  mult_kernel<<<fe_cuda_blocks(n, 256), 256, 0, fe_cuda_stream(be)>>>(n, x, y, w, 1);
  FE_CUDA_LAUNCHED("pointwise_div");
  return FE_SUCCESS;
}

int fe_vec_set_indexed_cuda(const struct fe_backend *be, size_t m, const int *idx,
                            const double *values, double *y)
{
  if (!m) return FE_SUCCESS;
  set_indexed_kernel<<<fe_cuda_blocks(m, 256), 256, 0, fe_cuda_stream(be)>>>(m, idx, values, y);
  FE_CUDA_LAUNCHED("set_indexed");
  return FE_SUCCESS;
}

/* ---- reductions (reduce.cuh): op 0 = sum of x*y; op 1 = (min, max, count of non-finite) */

__global__ void reduce_kernel(int op, size_t n, const double *x, const double *y, double *partials,
                              double *result, unsigned *done_blocks)
{
  double v[3];
  identity(op, v);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    if (op == 0) {
      v[0] += x[i] * y[i];
    } else {
      double a = x[i];
      if (isfinite(a)) {
        v[0] = fmin(v[0], a);
        v[1] = fmax(v[1], a);
      } else {
        v[2] += 1;
      }
    }
  }
  finish_reduction(op, v, partials, result, done_blocks);
}

int fe_vec_reduce_cuda(const struct fe_backend *be, enum fe_vec_reduction op, size_t n,
                       const double *x, const double *y, double *out)
{
  struct fe_cuda_ctx *c = fe_cuda_ctx(be);
  reduce_kernel<<<reduce_blocks(n), FE_REDUCE_THREADS, 0, c->stream>>>(
      op == FE_VEC_DOT ? 0 : 1, n, x, y, c->partials, out, c->done_blocks);
  FE_CUDA_LAUNCHED("reduce_kernel");
  return FE_SUCCESS;
}

/* The reduction into ctx->host. */
static int reduce(const struct fe_backend *be, enum fe_vec_reduction op, size_t n, const double *x,
                  const double *y)
{
  struct fe_cuda_ctx *c = fe_cuda_ctx(be);
  FE_CALL(fe_vec_reduce_cuda(be, op, n, x, y, c->result));
  FE_CUDA_CALL(
      cudaMemcpyAsync(c->host, c->result, 3 * sizeof(double), cudaMemcpyDeviceToHost, c->stream));
  FE_CUDA_CALL(cudaStreamSynchronize(c->stream));
  return FE_SUCCESS;
}

int fe_vec_dot_cuda(const struct fe_backend *be, size_t n, const double *x, const double *y,
                    double *r)
{
  FE_CALL(reduce(be, FE_VEC_DOT, n, x, y));
  *r = fe_cuda_ctx(be)->host[0];
  return FE_SUCCESS;
}

int fe_vec_minmax_cuda(const struct fe_backend *be, size_t n, const double *x, double *min,
                       double *max, double *bad)
{
  FE_CALL(reduce(be, FE_VEC_RANGE, n, x, x));
  const double *h = fe_cuda_ctx(be)->host;
  *min = h[0];
  *max = h[1];
  *bad = h[2];
  return FE_SUCCESS;
}

/* ---- the halo's exchanges within the process (solvers/halo.h) */

__global__ void copies_update_kernel(long first, long n_copies, const int *owner, int ncomp,
                                     double *x)
{
  const long k = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (k >= n_copies) return;
  for (int c = 0; c < ncomp; c++) x[(first + k) * ncomp + c] = x[(long)owner[k] * ncomp + c];
}

int fe_cuda_copies_update(const struct fe_halo *h, int ncomp, double *x)
{
  if (!h->n_copies) return FE_SUCCESS;
  copies_update_kernel<<<fe_cuda_blocks(h->n_copies, 256), 256, 0, fe_cuda_stream(h->be)>>>(
      (long)fe_halo_first_copy(h), (long)h->n_copies, h->owner, ncomp, x);
  FE_CUDA_LAUNCHED("copies_update_kernel");
  return FE_SUCCESS;
}

/* A thread per entry with copies: their values added in their order, as on the CPU. */
__global__ void copies_sum_kernel(long n_shared, const int *shared, const int *ptr,
                                  const int *ghost, double *x)
{
  const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= n_shared) return;
  double sum = x[shared[i]];
  for (int k = ptr[i]; k < ptr[i + 1]; k++) sum += x[ghost[k]];
  x[shared[i]] = sum;
}

int fe_cuda_copies_sum(const struct fe_halo *h, double *x)
{
  if (!h->n_shared) return FE_SUCCESS;
  copies_sum_kernel<<<fe_cuda_blocks(h->n_shared, 256), 256, 0, fe_cuda_stream(h->be)>>>(
      (long)h->n_shared, h->shared, h->shared_ptr, h->shared_ghost, x);
  FE_CUDA_LAUNCHED("copies_sum_kernel");
  return FE_SUCCESS;
}

/* Other processes' ghosts first: a copy may be one's. */
int fe_vec_ghost_update_cuda(const struct fe_halo *h, int ncomp, double *x)
{
  if (h->n_neighbours) FE_CALL(fe_cuda_halo_update(h, ncomp, x));
  return fe_cuda_copies_update(h, ncomp, x);
}

/* The copies first: a copy of another process's ghost adds into it, which goes back. */
int fe_vec_ghost_sum_cuda(const struct fe_halo *h, double *x)
{
  FE_CALL(fe_cuda_copies_sum(h, x));
  return h->n_neighbours ? fe_cuda_halo_sum(h, x) : FE_SUCCESS;
}
