/* The integrals of a tracer budget on the CUDA backend: the facet and cell loop bodies of
 * assembly/flux.h, a thread per facet or cell, each adding to its own entry.  The reference
 * tensors travel by value, in the kernels' parameter space. */
#include "assembly/flux.h"
#include "backends/cuda/backend_cuda.h"
#include "core/cuda_check.h"

#define THREADS 256

template <int D>
__global__ void flux_facets_kernel(long m, const int *nodes, const double *coords,
                                   const double *velocity, const double *x, double scale,
                                   double *acc)
{
  const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < m) acc[i] += scale * fe_flux_facet(D, nodes, coords, velocity, x, i);
}

template <int D>
__global__ void flux_cells_kernel(const struct fe_reference ref, long n_cells, const int *cells,
                                  const double *coords, const double *velocity,
                                  const double *weight, int uniform, const double *x, double scale,
                                  double *acc)
{
  const long c = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (c < n_cells)
    acc[c] += scale * fe_flux_cell(D, &ref, cells, coords, velocity, weight, uniform, x, c);
}

static unsigned blocks(long n) { return (unsigned)((n + THREADS - 1) / THREADS); }

template <int D>
static int facets(const struct fe_space *s, long m, const int *nodes, const double *velocity,
                  const double *x, double scale, double *acc)
{
  flux_facets_kernel<D><<<blocks(m), THREADS, 0, fe_cuda_stream(s->be)>>>(m, nodes, s->coords,
                                                                          velocity, x, scale, acc);
  FE_CUDA_LAUNCHED("flux_facets_kernel");
  return FE_SUCCESS;
}

template <int D>
static int cells(const struct fe_space *s, const double *velocity, const double *weight,
                 int uniform, const double *x, double scale, double *acc)
{
  flux_cells_kernel<D><<<blocks(s->n_cells), THREADS, 0, fe_cuda_stream(s->be)>>>(
      s->ref, s->n_cells, s->cells, s->coords, velocity, weight, uniform, x, scale, acc);
  FE_CUDA_LAUNCHED("flux_cells_kernel");
  return FE_SUCCESS;
}

int fe_flux_facets_cuda(const struct fe_space *s, long m, const int *nodes, const double *velocity,
                        const double *x, double scale, double *acc)
{
  return s->d == 2 ? facets<2>(s, m, nodes, velocity, x, scale, acc)
                   : facets<3>(s, m, nodes, velocity, x, scale, acc);
}

int fe_flux_cells_cuda(const struct fe_space *s, const double *velocity, const double *weight,
                       int uniform, const double *x, double scale, double *acc)
{
  return s->d == 2 ? cells<2>(s, velocity, weight, uniform, x, scale, acc)
                   : cells<3>(s, velocity, weight, uniform, x, scale, acc);
}
