/* Loads by quadrature on the CUDA backend: the cell and facet loop bodies of assembly/load.h,
 * a thread per cell or facet, the expression's program staged in shared memory (the gather is
 * fe_incidence_sum_cuda).  The reference tensors, the rule and the form travel by value, in
 * the kernels' parameter space. */
#include "assembly/load.h"
#include "backends/cuda/backend_cuda.h"
#include "core/cuda_check.h"

#define THREADS 128

template <int D>
__global__ void load_cells_kernel(const struct fe_reference ref, const struct fe_quadrature rule,
                                  const struct fe_form form, long n_cells, const int *cells,
                                  const double *coords, const double *diff, const double *vel,
                                  const struct fe_program *f, double t, double *work)
{
  __shared__ struct fe_program p;
  fe_cuda_stage_programs(&p, f, 1);
  const long c = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (c < n_cells)
    fe_load_cell(D, &ref, &rule, &form, cells, coords, diff, vel, &p, t, c, work + c * (D + 1));
}

template <int D>
__global__ void load_facets_kernel(const struct fe_quadrature rule, long m, const int *list,
                                   const int *vertices, const double *coords,
                                   const struct fe_program *g, double t, double *work)
{
  __shared__ struct fe_program p;
  fe_cuda_stage_programs(&p, g, 1);
  const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < m) fe_load_facet(D, &rule, vertices, coords, &p, t, list[i], work + (long)list[i] * D);
}

static unsigned blocks(long n) { return (unsigned)((n + THREADS - 1) / THREADS); }

template <int D>
static int cells(const struct fe_space *s, const struct fe_form *form, const double *diff,
                 const double *vel, const struct fe_program *f, double t, double *work)
{
  load_cells_kernel<D><<<blocks(s->n_cells), THREADS, 0, fe_cuda_stream(s->be)>>>(
      s->ref, s->cell_rule, *form, s->n_cells, s->cells, s->coords, diff, vel, f, t, work);
  FE_CUDA_LAUNCHED("load_cells_kernel");
  return FE_SUCCESS;
}

template <int D>
static int facets(const struct fe_space *s, long m, const int *list, const int *vertices,
                  const struct fe_program *g, double t, double *work)
{
  load_facets_kernel<D><<<blocks(m), THREADS, 0, fe_cuda_stream(s->be)>>>(
      s->facet_rule, m, list, vertices, s->coords, g, t, work);
  FE_CUDA_LAUNCHED("load_facets_kernel");
  return FE_SUCCESS;
}

int fe_load_cells_cuda(const struct fe_space *s, const struct fe_form *form, const double *diff,
                       const double *vel, const struct fe_program *f, double t, double *work)
{
  return s->d == 2 ? cells<2>(s, form, diff, vel, f, t, work)
                   : cells<3>(s, form, diff, vel, f, t, work);
}

int fe_load_facets_cuda(const struct fe_space *s, long m, const int *list, const int *vertices,
                        const struct fe_program *g, double t, double *work)
{
  return s->d == 2 ? facets<2>(s, m, list, vertices, g, t, work)
                   : facets<3>(s, m, list, vertices, g, t, work);
}
