/* The local matrix approach on the CUDA backend: y = A^T (E (A x)) in
 * Markall's three stages, the scatter with atomics or, deterministic, as a
 * gather through the node incidence (assembly/node.h). */
#include "assembly/node.h"
#include "backends/cuda/backend_cuda.h"
#include "core/cuda_check.h"
#include "solvers/halo.h"

#define THREADS 256

/* Gather and local product, then the scatter: with atomics into y (ATOMIC), or
 * the products into the work array, which a gather per node sums. */
template <int D, bool ATOMIC>
__global__ void lma_kernel(long n_cells, const int *cells, const double *e, int shift,
                           const double *x, double *out)
{
  const long c = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (c >= n_cells) return;
  double ye[4];
  fe_cell_lma_product(D, e, shift, cells, x, c, ye);
  fe_cuda_put_local<D, ATOMIC>(c, cells, ye, out);
}

__global__ void incidence_sum_kernel(long n_nodes, const int *inc_ptr, const int *inc,
                                     const double *work, double *y)
{
  const long n = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (n < n_nodes) y[n] = fe_node_incidence_sum(n, inc_ptr, inc, work);
}

/* The scatter as a gather per node: a fixed order. */
int fe_incidence_sum_cuda(const struct fe_space *s, const int *ptr, const int *idx,
                          const double *work, double *y)
{
  const unsigned nb = (unsigned)((s->n_nodes + THREADS - 1) / THREADS);
  incidence_sum_kernel<<<nb, THREADS, 0, fe_cuda_stream(s->be)>>>(s->n_nodes, ptr, idx, work, y);
  FE_CUDA_LAUNCHED("incidence_sum_kernel");
  return FE_SUCCESS;
}

/* After an atomic scatter on a periodic mesh each copy of an unknown holds the sum over its own
 * cells: the copies' sums added into the owner (the halo's reverse sum) and the owner's total
 * copied back (its update), as the gather over the merged incidence gives. */
int fe_cuda_fold(const struct fe_space *s, double *y)
{
  if (!s->halo) return FE_SUCCESS;
  FE_CALL(fe_vec_ghost_sum_cuda(s->halo, y));
  return fe_vec_ghost_update_cuda(s->halo, 1, y);
}

template <int D>
static int lma_apply_d(const struct fe_space *s, const double *e, const double *x, double *y,
                       double *work)
{
  const unsigned cb = (unsigned)((s->n_cells + THREADS - 1) / THREADS);
  const cudaStream_t stream = fe_cuda_stream(s->be);
  if (!s->deterministic) {
    FE_CUDA_CALL(cudaMemsetAsync(y, 0, s->n_nodes * sizeof *y, stream));
    lma_kernel<D, true><<<cb, THREADS, 0, stream>>>(s->n_cells, s->cells, e, s->block_shift, x, y);
    FE_CUDA_LAUNCHED("lma_kernel");
    return fe_cuda_fold(s, y);
  }
  lma_kernel<D, false><<<cb, THREADS, 0, stream>>>(s->n_cells, s->cells, e, s->block_shift, x, work);
  FE_CUDA_LAUNCHED("lma_kernel");
  return fe_incidence_sum_cuda(s, s->inc_ptr, s->inc, work, y);
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
