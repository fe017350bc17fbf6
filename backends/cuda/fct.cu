/* Flux-corrected transport on the CUDA backend: the loop bodies of
 * assembly/fct.h, a thread per cell or node.  The reference tensors travel by
 * value, in the kernels' parameter space (constant memory as well). */
#include "assembly/fct.h"
#include "backends/cuda/backend_cuda.h"
#include "core/cuda_check.h"

#define THREADS 256

template <int D>
__global__ void fct_lumped_mass_kernel(const struct fe_reference ref, long n_nodes,
                                       const int *inc_ptr, const int *inc, const int *cells,
                                       const double *coords, double *ml)
{
  const long n = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (n < n_nodes) ml[n] = fe_fct_node_lumped_mass(D, &ref, n, inc_ptr, inc, cells, coords);
}

template <int D>
__global__ void fct_fluxes_kernel(const struct fe_reference ref, long n_cells, const int *cells,
                                  const double *coords, const struct fe_fct_arrays a)
{
  const long c = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (c < n_cells) fe_fct_cell_fluxes(D, &ref, cells, coords, &a, c);
}

template <int D>
__global__ void fct_low_kernel(long n_nodes, const int *inc_ptr, const int *inc,
                               const unsigned char *dmask, const struct fe_fct_arrays a)
{
  const long n = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (n < n_nodes) fe_fct_node_low(D, n, inc_ptr, inc, dmask, &a);
}

template <int D>
__global__ void fct_ratios_kernel(long n_nodes, const int *inc_ptr, const int *inc,
                                  const int *cells, const unsigned char *dmask,
                                  const struct fe_fct_arrays a)
{
  const long n = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (n < n_nodes) fe_fct_node_ratios(D, n, inc_ptr, inc, cells, dmask, &a);
}

template <int D>
__global__ void fct_limit_kernel(long n_cells, const int *cells, const struct fe_fct_arrays a)
{
  const long c = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (c < n_cells) fe_fct_cell_limit(D, cells, &a, c);
}

template <int D>
__global__ void fct_update_kernel(long n_nodes, const int *inc_ptr, const int *inc,
                                  const unsigned char *dmask, const struct fe_fct_arrays a)
{
  const long n = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (n < n_nodes) fe_fct_node_update(D, n, inc_ptr, inc, dmask, &a);
}

static unsigned blocks(long n) { return (unsigned)((n + THREADS - 1) / THREADS); }

template <int D> static int lumped_mass(const struct fe_space *s, double *ml)
{
  fct_lumped_mass_kernel<D><<<blocks(s->n_nodes), THREADS, 0, fe_cuda_stream(s->be)>>>(
      s->ref, s->n_nodes, s->inc_ptr, s->inc, s->cells, s->coords, ml);
  FE_CUDA_LAUNCHED("fct_lumped_mass_kernel");
  return FE_SUCCESS;
}

template <int D> static int step(const struct fe_space *s, const struct fe_fct_arrays *a)
{
  cudaStream_t st = fe_cuda_stream(s->be);
  const unsigned bc = blocks(s->n_cells), bn = blocks(s->n_nodes);
  fct_fluxes_kernel<D><<<bc, THREADS, 0, st>>>(s->ref, s->n_cells, s->cells, s->coords, *a);
  FE_CUDA_LAUNCHED("fct_fluxes_kernel");
  fct_low_kernel<D><<<bn, THREADS, 0, st>>>(s->n_nodes, s->inc_ptr, s->inc, s->dmask, *a);
  FE_CUDA_LAUNCHED("fct_low_kernel");
  if (a->exchange) FE_CALL(a->exchange(a, FE_FCT_LOW)); /* several processes: on the stream */
  fct_ratios_kernel<D>
      <<<bn, THREADS, 0, st>>>(s->n_nodes, s->inc_ptr, s->inc, s->cells, s->dmask, *a);
  FE_CUDA_LAUNCHED("fct_ratios_kernel");
  if (a->exchange) FE_CALL(a->exchange(a, FE_FCT_RATIOS));
  fct_limit_kernel<D><<<bc, THREADS, 0, st>>>(s->n_cells, s->cells, *a);
  FE_CUDA_LAUNCHED("fct_limit_kernel");
  fct_update_kernel<D><<<bn, THREADS, 0, st>>>(s->n_nodes, s->inc_ptr, s->inc, s->dmask, *a);
  FE_CUDA_LAUNCHED("fct_update_kernel");
  return FE_SUCCESS;
}

int fe_fct_lumped_mass_cuda(const struct fe_space *s, double *ml)
{
  return s->d == 2 ? lumped_mass<2>(s, ml) : lumped_mass<3>(s, ml);
}

int fe_fct_step_cuda(const struct fe_space *s, const struct fe_fct_arrays *a)
{
  return s->d == 2 ? step<2>(s, a) : step<3>(s, a);
}
