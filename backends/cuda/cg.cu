/* The kernels of CG on the CUDA backend: the scalars stay on the device, and
 * the update is fused with its two reductions (reduce.cuh). */
#include "backends/cuda/reduce.cuh"
#include "core/cuda_check.h"

/* op 2: sums of r.z and r.r */
__global__ void cg_update_kernel(size_t n, const double *rz, const double *pq, const double *p,
                                 const double *q, double *x, double *r, const double *dinv,
                                 double *z, double *partials, double *rz_rr, unsigned *done_blocks,
                                 double done2)
{
  if (rz[1] <= done2) { /* converged: x, r, z stay, the scalars pass on */
    if (blockIdx.x == 0 && threadIdx.x < 2) rz_rr[threadIdx.x] = rz[threadIdx.x];
    return;
  }
  const double alpha = *rz / *pq;
  double v[3] = {0, 0, 0};
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    x[i] += alpha * p[i];
    const double ri = r[i] - alpha * q[i];
    const double zi = dinv ? ri * dinv[i] : ri;
    r[i] = ri;
    z[i] = zi;
    v[0] += ri * zi;
    v[1] += ri * ri;
  }
  finish_reduction(2, v, partials, rz_rr, done_blocks);
}

__global__ void cg_direction_kernel(size_t n, const double *rz_new, const double *rz_old,
                                    const double *z, double *p, double done2)
{
  if (rz_new[1] <= done2) return;
  const double beta = *rz_new / *rz_old;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    p[i] = z[i] + beta * p[i];
}

int fe_cg_dot_cuda(const struct fe_backend *be, size_t n, const double *x, const double *y,
                   double *out)
{
  return fe_cuda_reduce_keep(be, 0, n, x, y, out);
}

int fe_cg_update_cuda(const struct fe_backend *be, size_t n, const double *rz, const double *pq,
                      const double *p, const double *q, double *x, double *r, const double *dinv,
                      double *z, double *rz_rr, double done2)
{
  struct fe_cuda_ctx *c = fe_cuda_ctx(be);
  cg_update_kernel<<<reduce_blocks(n), FE_REDUCE_THREADS, 0, c->stream>>>(
      n, rz, pq, p, q, x, r, dinv, z, c->partials, rz_rr, c->done_blocks, done2);
  FE_CUDA_LAUNCHED("cg_update_kernel");
  return FE_SUCCESS;
}

int fe_cg_direction_cuda(const struct fe_backend *be, size_t n, const double *rz_new,
                         const double *rz_old, const double *z, double *p, double done2)
{
  cg_direction_kernel<<<fe_cuda_blocks(n, 256), 256, 0, fe_cuda_stream(be)>>>(n, rz_new, rz_old, z,
                                                                              p, done2);
  FE_CUDA_LAUNCHED("cg_direction");
  return FE_SUCCESS;
}

int fe_cg_scalar_post_cuda(const struct fe_backend *be, int slot, const double *dev)
{
  struct fe_cuda_ctx *c = fe_cuda_ctx(be);
  FE_CUDA_CALL(
      cudaMemcpyAsync(c->slots + slot, dev, sizeof(double), cudaMemcpyDeviceToHost, c->stream));
  FE_CUDA_CALL(cudaEventRecord(c->slot_ready[slot], c->stream));
  return FE_SUCCESS;
}

int fe_cg_scalar_wait_cuda(const struct fe_backend *be, int slot, const double *, double *value)
{
  struct fe_cuda_ctx *c = fe_cuda_ctx(be);
  FE_CUDA_CALL(cudaEventSynchronize(c->slot_ready[slot]));
  *value = c->slots[slot];
  return FE_SUCCESS;
}
