/* The Courant number's cell loop (assembly/courant.h) on the CUDA backend, a
 * thread per cell. */
#include "assembly/courant.h"
#include "backends/cuda/backend_cuda.h"
#include "core/cuda_check.h"

#define THREADS 256

template <int D>
__global__ void courant_rates_kernel(long n_cells, const int *cells, const double *velocity,
                                     const double *inv_height, double *rate)
{
  const long c = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (c < n_cells) rate[c] = fe_courant_cell_rate(D, cells, velocity, inv_height, c);
}

template <int D>
static int rates(const struct fe_space *s, const double *velocity, const double *inv_height,
                 double *rate)
{
  const unsigned blocks = (unsigned)((s->n_cells + THREADS - 1) / THREADS);
  courant_rates_kernel<D><<<blocks, THREADS, 0, fe_cuda_stream(s->be)>>>(
      s->n_cells, s->cells, velocity, inv_height, rate);
  FE_CUDA_LAUNCHED("courant_rates_kernel");
  return FE_SUCCESS;
}

int fe_courant_cell_rates_cuda(const struct fe_space *s, const double *velocity,
                               const double *inv_height, double *rate)
{
  return s->d == 2 ? rates<2>(s, velocity, inv_height, rate)
                   : rates<3>(s, velocity, inv_height, rate);
}
