/* The local matrix approach on the CUDA backend: y = A^T (E (A x)) in
 * Markall's three stages, the scatter with atomics or, deterministic, as a
 * gather through the node incidence (assembly/node.h). */
#include "assembly/node.h"
#include "backends/cuda/backend_cuda.h"
#include "core/cuda_check.h"

#define THREADS 256

/* gather, local product and scatter with atomics, in one kernel */
template <int D>
__global__ void lma_atomic_kernel(long n_cells, const int *cells, const double *e, int shift,
                                  const double *x, double *y)
{
  const long c = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (c >= n_cells) return;
  double ye[4];
  fe_cell_lma_product(D, e, shift, cells, x, c, ye);
#pragma unroll
  for (int i = 0; i < D + 1; i++) atomicAdd(&y[cells[c * (D + 1) + i]], ye[i]);
}

/* gather and local product into work (c * nv + i); the scatter is a gather below */
template <int D>
__global__ void lma_product_kernel(long n_cells, const int *cells, const double *e, int shift,
                                   const double *x, double *work)
{
  const long c = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (c >= n_cells) return;
  double ye[4];
  fe_cell_lma_product(D, e, shift, cells, x, c, ye);
#pragma unroll
  for (int i = 0; i < D + 1; i++) work[c * (D + 1) + i] = ye[i];
}

__global__ void incidence_sum_kernel(long n_nodes, const int *inc_ptr, const int *inc,
                                     const double *work, double *y)
{
  const long n = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (n < n_nodes) y[n] = fe_node_incidence_sum(n, inc_ptr, inc, work);
}

/* The scatter as a gather per node: a fixed order. */
int fe_incidence_sum_cuda(const struct fe_space *s, const double *work, double *y)
{
  const unsigned nb = (unsigned)((s->n_nodes + THREADS - 1) / THREADS);
  incidence_sum_kernel<<<nb, THREADS, 0, fe_cuda_stream(s->be)>>>(s->n_nodes, s->inc_ptr, s->inc,
                                                                  work, y);
  FE_CUDA_LAUNCHED("incidence_sum_kernel");
  return FE_SUCCESS;
}

template <int D>
static int lma_apply_d(const struct fe_space *s, const double *e, const double *x, double *y,
                       double *work)
{
  const unsigned cb = (unsigned)((s->n_cells + THREADS - 1) / THREADS);
  if (!s->deterministic) {
    FE_CUDA_CALL(cudaMemsetAsync(y, 0, s->n_nodes * sizeof *y, fe_cuda_stream(s->be)));
    lma_atomic_kernel<D>
        <<<cb, THREADS, 0, fe_cuda_stream(s->be)>>>(s->n_cells, s->cells, e, s->block_shift, x, y);
    FE_CUDA_LAUNCHED("lma_atomic_kernel");
    return FE_SUCCESS;
  }
  lma_product_kernel<D>
      <<<cb, THREADS, 0, fe_cuda_stream(s->be)>>>(s->n_cells, s->cells, e, s->block_shift, x, work);
  FE_CUDA_LAUNCHED("lma_product_kernel");
  return fe_incidence_sum_cuda(s, work, y);
}

int fe_lma_apply_cuda(const struct fe_space *s, const double *e, const double *x, double *y,
                      double *work)
{
  return s->d == 2 ? lma_apply_d<2>(s, e, x, y, work) : lma_apply_d<3>(s, e, x, y, work);
}

__global__ void lma_diagonal_kernel(long n_nodes, int nv, const int *inc_ptr, const int *inc,
                                    const double *e, int shift, double *diag)
{
  const long n = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (n < n_nodes) diag[n] = fe_node_lma_diagonal(n, nv, inc_ptr, inc, e, shift);
}

int fe_lma_diagonal_cuda(const struct fe_space *s, const double *e, double *diag)
{
  const unsigned nb = (unsigned)((s->n_nodes + THREADS - 1) / THREADS);
  lma_diagonal_kernel<<<nb, THREADS, 0, fe_cuda_stream(s->be)>>>(s->n_nodes, s->nv, s->inc_ptr,
                                                                 s->inc, e, s->block_shift, diag);
  FE_CUDA_LAUNCHED("lma_diagonal_kernel");
  return FE_SUCCESS;
}
