/* Vector kernels and memory of the CUDA backend.  Reductions run in two
 * fixed-order stages (per-block partials, then the last block to finish sums
 * them in block order) in one launch, so that results do not depend on
 * scheduling: runs and restarts reproduce bit for bit. */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/cuda_check.h"
#include "solvers/cuda.h"
#include "solvers/cuda/backend_cuda.h"

int fe_cuda_sync_launches(void)
{
  static int sync = -1; /* read once: a constant of the process */
  if (sync < 0) sync = getenv("FESIM_CUDA_SYNC") != NULL;
  return sync;
}

static int malloc_cuda(const struct fe_backend *be, size_t bytes, void **p)
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

static void free_cuda(const struct fe_backend *, void *p) { cudaFree(p); }

static int to_device_cuda(const struct fe_backend *, void *dev, const void *host, size_t bytes)
{
  if (bytes) FE_CUDA_CALL(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
  return FE_SUCCESS;
}

static int to_host_cuda(const struct fe_backend *, void *host, const void *dev, size_t bytes)
{
  if (bytes) FE_CUDA_CALL(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
  return FE_SUCCESS;
}

__global__ void set_kernel(size_t n, double alpha, double *y)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    y[i] = alpha;
}

__global__ void axpby_kernel(size_t n, double a, const double *x, double b, double *y)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    y[i] = b == 0.0 ? a * x[i] : a * x[i] + b * y[i];
}

__global__ void mult_kernel(size_t n, const double *x, const double *y, double *w, int divide)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    w[i] = divide ? x[i] / y[i] : x[i] * y[i];
}

__global__ void set_indexed_kernel(size_t m, const int *idx, const double *values, double *y)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < m; i += (size_t)gridDim.x * blockDim.x)
    y[idx[i]] = values[i];
}

static int set_cuda(const struct fe_backend *, size_t n, double alpha, double *y)
{
  set_kernel<<<fe_cuda_blocks(n, 256), 256>>>(n, alpha, y);
  FE_CUDA_LAUNCHED("set");
  return FE_SUCCESS;
}

static int copy_cuda(const struct fe_backend *, size_t n, const double *x, double *y)
{
  if (n && x != y) FE_CUDA_CALL(cudaMemcpyAsync(y, x, n * sizeof *y, cudaMemcpyDeviceToDevice));
  return FE_SUCCESS;
}

static int axpby_cuda(const struct fe_backend *, size_t n, double a, const double *x, double b, double *y)
{
  axpby_kernel<<<fe_cuda_blocks(n, 256), 256>>>(n, a, x, b, y);
  FE_CUDA_LAUNCHED("axpby");
  return FE_SUCCESS;
}

static int pointwise_mult_cuda(const struct fe_backend *, size_t n, const double *x, const double *y, double *w)
{
  mult_kernel<<<fe_cuda_blocks(n, 256), 256>>>(n, x, y, w, 0);
  FE_CUDA_LAUNCHED("pointwise_mult");
  return FE_SUCCESS;
}

static int pointwise_div_cuda(const struct fe_backend *, size_t n, const double *x, const double *y, double *w)
{
  mult_kernel<<<fe_cuda_blocks(n, 256), 256>>>(n, x, y, w, 1);
  FE_CUDA_LAUNCHED("pointwise_div");
  return FE_SUCCESS;
}

static int set_indexed_cuda(const struct fe_backend *, size_t m, const int *idx, const double *values, double *y)
{
  if (!m) return FE_SUCCESS;
  set_indexed_kernel<<<fe_cuda_blocks(m, 256), 256>>>(m, idx, values, y);
  FE_CUDA_LAUNCHED("set_indexed");
  return FE_SUCCESS;
}

/* ---- reductions: op 0 = sum of x*y; op 1 = (min, max, count of non-finite) */

__device__ inline void combine(int op, double *a, const double *b)
{
  if (op == 0) {
    a[0] += b[0];
  } else if (op == 2) {
    a[0] += b[0];
    a[1] += b[1];
  } else {
    a[0] = fmin(a[0], b[0]);
    a[1] = fmax(a[1], b[1]);
    a[2] += b[2];
  }
}

/* Block-wide reduction of v[3] into thread 0 (shared memory tree: fixed order). */
__device__ void block_reduce(int op, double v[3])
{
  __shared__ double s[3][FE_REDUCE_THREADS];
  for (int k = 0; k < 3; k++) s[k][threadIdx.x] = v[k];
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) {
      double a[3] = {s[0][threadIdx.x], s[1][threadIdx.x], s[2][threadIdx.x]};
      double b[3] = {s[0][threadIdx.x + w], s[1][threadIdx.x + w], s[2][threadIdx.x + w]};
      combine(op, a, b);
      for (int k = 0; k < 3; k++) s[k][threadIdx.x] = a[k];
    }
    __syncthreads();
  }
  for (int k = 0; k < 3; k++) v[k] = s[k][0];
}

__device__ inline void identity(int op, double v[3])
{
  v[0] = op != 1 ? 0.0 : INFINITY;
  v[1] = op != 1 ? 0.0 : -INFINITY;
  v[2] = 0;
}

/* The last block to finish reduces the per-block partials, in block order
 * (the same order every run), and writes the result: one launch per reduction. */
__device__ void finish_reduction(int op, double *partials, double *result, unsigned *done_blocks)
{
  __shared__ bool last;
  __threadfence(); /* this block's partials, written by thread 0, visible to the last block */
  if (threadIdx.x == 0) last = atomicAdd(done_blocks, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;
  double v[3];
  identity(op, v);
  for (int b = threadIdx.x; b < (int)gridDim.x; b += blockDim.x) {
    double p[3] = {__ldcg(partials + b), __ldcg(partials + FE_REDUCE_BLOCKS + b),
                   __ldcg(partials + 2 * FE_REDUCE_BLOCKS + b)};
    combine(op, v, p);
  }
  block_reduce(op, v);
  if (threadIdx.x == 0) {
    for (int k = 0; k < (op == 0 ? 1 : op == 2 ? 2 : 3); k++) result[k] = v[k];
    *done_blocks = 0;
  }
}

__global__ void reduce_kernel(int op, size_t n, const double *x, const double *y, double *partials, double *result,
                              unsigned *done_blocks)
{
  double v[3];
  identity(op, v);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
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
  block_reduce(op, v);
  if (threadIdx.x == 0)
    for (int k = 0; k < 3; k++) partials[k * FE_REDUCE_BLOCKS + blockIdx.x] = v[k];
  finish_reduction(op, partials, result, done_blocks);
}

/* CG update fused with its two reductions (op 2: sums of r.z and r.r) */
__global__ void cg_update_kernel(size_t n, const double *rz, const double *pq, const double *p, const double *q,
                                 double *x, double *r, const double *dinv, double *z, double *partials,
                                 double *rz_rr, unsigned *done_blocks, double done2)
{
  if (rz[1] <= done2) { /* converged: x, r, z stay, the scalars pass on */
    if (blockIdx.x == 0 && threadIdx.x < 2) rz_rr[threadIdx.x] = rz[threadIdx.x];
    return;
  }
  const double alpha = *rz / *pq;
  double v[3] = {0, 0, 0};
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    x[i] += alpha * p[i];
    const double ri = r[i] - alpha * q[i];
    const double zi = dinv ? ri * dinv[i] : ri;
    r[i] = ri;
    z[i] = zi;
    v[0] += ri * zi;
    v[1] += ri * ri;
  }
  block_reduce(2, v);
  if (threadIdx.x == 0)
    for (int k = 0; k < 3; k++) partials[k * FE_REDUCE_BLOCKS + blockIdx.x] = v[k];
  finish_reduction(2, partials, rz_rr, done_blocks);
}

__global__ void cg_direction_kernel(size_t n, const double *rz_new, const double *rz_old, const double *z, double *p,
                                    double done2)
{
  if (rz_new[1] <= done2) return;
  const double beta = *rz_new / *rz_old;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = z[i] + beta * p[i];
}

static int reduce_blocks(size_t n)
{
  size_t b = (n + FE_REDUCE_THREADS - 1) / FE_REDUCE_THREADS;
  return (int)(b < 1 ? 1 : b > FE_REDUCE_BLOCKS ? FE_REDUCE_BLOCKS : b);
}

/* the reduction of x, y into `out` (3 doubles) on the device */
static int reduce_keep(const struct fe_backend *be, int op, size_t n, const double *x, const double *y, double *out)
{
  struct fe_cuda_ctx *c = fe_cuda_ctx(be);
  const int nblocks = reduce_blocks(n);
  reduce_kernel<<<nblocks, FE_REDUCE_THREADS>>>(op, n, x, y, c->partials, out, c->done_blocks);
  FE_CUDA_LAUNCHED("reduce_kernel");
  return FE_SUCCESS;
}

/* the reduction into ctx->host */
static int reduce(const struct fe_backend *be, int op, size_t n, const double *x, const double *y)
{
  struct fe_cuda_ctx *c = fe_cuda_ctx(be);
  FE_CALL(reduce_keep(be, op, n, x, y, c->result));
  FE_CUDA_CALL(cudaMemcpy(c->host, c->result, 3 * sizeof(double), cudaMemcpyDeviceToHost));
  return FE_SUCCESS;
}

static int dot_cuda(const struct fe_backend *be, size_t n, const double *x, const double *y, double *r)
{
  FE_CALL(reduce(be, 0, n, x, y));
  *r = fe_cuda_ctx(be)->host[0];
  return FE_SUCCESS;
}

static int minmax_cuda(const struct fe_backend *be, size_t n, const double *x, double *min, double *max)
{
  FE_CALL(reduce(be, 1, n, x, x));
  const double *h = fe_cuda_ctx(be)->host;
  *min = h[2] > 0 ? NAN : h[0];
  *max = h[2] > 0 ? NAN : h[1];
  return FE_SUCCESS;
}

static int dot_keep_cuda(const struct fe_backend *be, size_t n, const double *x, const double *y, double *out)
{
  return reduce_keep(be, 0, n, x, y, out);
}

static int cg_update_cuda(const struct fe_backend *be, size_t n, const double *rz, const double *pq,
                          const double *p, const double *q, double *x, double *r, const double *dinv, double *z,
                          double *rz_rr, double done2)
{
  struct fe_cuda_ctx *c = fe_cuda_ctx(be);
  const int nblocks = reduce_blocks(n);
  cg_update_kernel<<<nblocks, FE_REDUCE_THREADS>>>(n, rz, pq, p, q, x, r, dinv, z, c->partials, rz_rr,
                                                   c->done_blocks, done2);
  FE_CUDA_LAUNCHED("cg_update_kernel");
  return FE_SUCCESS;
}

static int cg_direction_cuda(const struct fe_backend *, size_t n, const double *rz_new, const double *rz_old,
                             const double *z, double *p, double done2)
{
  cg_direction_kernel<<<fe_cuda_blocks(n, 256), 256>>>(n, rz_new, rz_old, z, p, done2);
  FE_CUDA_LAUNCHED("cg_direction");
  return FE_SUCCESS;
}

static int scalar_post_cuda(const struct fe_backend *be, int slot, const double *dev)
{
  struct fe_cuda_ctx *c = fe_cuda_ctx(be);
  FE_CUDA_CALL(cudaMemcpyAsync(c->slots + slot, dev, sizeof(double), cudaMemcpyDeviceToHost));
  FE_CUDA_CALL(cudaEventRecord(c->slot_ready[slot]));
  return FE_SUCCESS;
}

static int scalar_wait_cuda(const struct fe_backend *be, int slot, const double *, double *value)
{
  struct fe_cuda_ctx *c = fe_cuda_ctx(be);
  FE_CUDA_CALL(cudaEventSynchronize(c->slot_ready[slot]));
  *value = c->slots[slot];
  return FE_SUCCESS;
}

static int sync_cuda(const struct fe_backend *)
{
  FE_CUDA_CALL(cudaDeviceSynchronize());
  return FE_SUCCESS;
}

static const struct fe_vec_ops vec_ops_cuda = {
  malloc_cuda,      free_cuda,     to_device_cuda, to_host_cuda,   set_cuda,
  copy_cuda,        axpby_cuda,    pointwise_mult_cuda, pointwise_div_cuda, dot_cuda,
  minmax_cuda,      set_indexed_cuda, dot_keep_cuda, cg_update_cuda, sync_cuda,
  cg_direction_cuda, scalar_post_cuda, scalar_wait_cuda,
};

/* ---- the backend */

int fe_cuda_device_count(void)
{
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

static int create(struct fe_cuda_ctx *c)
{
  int n = 0;
  cudaError_t err = cudaGetDeviceCount(&n);
  FE_CHECK(err == cudaSuccess && n > 0, FE_ERR_RESOURCE,
           "backend 'cuda' was asked for, but no usable GPU was found (%s); use --backend cpu or auto",
           err == cudaSuccess ? "no CUDA device" : cudaGetErrorString(err));
  FE_CUDA_CALL(cudaSetDevice(0));
  cudaDeviceProp prop;
  FE_CUDA_CALL(cudaGetDeviceProperties(&prop, 0));
  snprintf(c->name, sizeof c->name, "%.200s (sm_%d%d, %.1f GiB)", prop.name, prop.major, prop.minor,
           prop.totalGlobalMem / 1073741824.0);
  FE_CUDA_CALL(cudaMalloc(&c->partials, 3 * FE_REDUCE_BLOCKS * sizeof(double)));
  FE_CUDA_CALL(cudaMalloc(&c->result, 3 * sizeof(double)));
  FE_CUDA_CALL(cudaMemset(c->partials, 0, 3 * FE_REDUCE_BLOCKS * sizeof(double)));
  FE_CUDA_CALL(cudaMemset(c->result, 0, 3 * sizeof(double)));
  FE_CUDA_CALL(cudaMalloc(&c->done_blocks, sizeof *c->done_blocks));
  FE_CUDA_CALL(cudaMemset(c->done_blocks, 0, sizeof *c->done_blocks));
  FE_CUDA_CALL(cudaMallocHost(&c->host, 3 * sizeof(double)));
  FE_CUDA_CALL(cudaMallocHost(&c->slots, 2 * sizeof(double)));
  for (int k = 0; k < 2; k++) FE_CUDA_CALL(cudaEventCreateWithFlags(&c->slot_ready[k], cudaEventDisableTiming));
  FE_CUSPARSE_CALL(cusparseCreate(&c->sparse));
  return FE_SUCCESS;
}

extern "C" int fe_backend_cuda_create(struct fe_backend **be)
{
  struct fe_cuda_ctx *c = (struct fe_cuda_ctx *)calloc(1, sizeof *c);
  FE_CHECK(c, FE_ERR_RESOURCE, "out of host memory");
  c->backend.type = FE_CUDA;
  c->backend.name = "cuda";
  c->backend.asynchronous = 1;
  c->backend.vec = &vec_ops_cuda;
  c->backend.ctx = c;
  int err = create(c);
  if (err) {
    fe_backend_cuda_destroy(&c->backend);
    return err;
  }
  *be = &c->backend;
  return FE_SUCCESS;
}

extern "C" void fe_backend_cuda_destroy(struct fe_backend *be)
{
  if (!be) return;
  struct fe_cuda_ctx *c = fe_cuda_ctx(be);
  if (c->sparse) cusparseDestroy(c->sparse);
  cudaFree(c->partials);
  cudaFree(c->result);
  cudaFree(c->done_blocks);
  cudaFreeHost(c->host);
  cudaFreeHost(c->slots);
  for (int k = 0; k < 2; k++)
    if (c->slot_ready[k]) cudaEventDestroy(c->slot_ready[k]);
  free(c);
}

extern "C" const char *fe_backend_cuda_describe(const struct fe_backend *be)
{
  return fe_cuda_ctx(be)->name;
}
