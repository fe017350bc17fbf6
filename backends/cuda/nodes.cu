/* Per-node and per-point work on the CUDA backend: the loop bodies of
 * assembly/node.h, a thread per node or point. */
#include "assembly/node.h"
#include "backends/cuda/backend_cuda.h"
#include "core/cuda_check.h"

#define THREADS 256

/* y_n += scale * sum over the boundary cells at lift node n of E_{n j} x_j, j Dirichlet: a
 * gather per node, so the sums have a fixed order; its terms listed at set-up, so that a
 * thread's loads do not wait for one another (fe_space's lift lists). */
__global__ void lift_kernel(long n_lift, const int *lift_nodes, const int *ptr, const int *entry,
                            const int *col, const double *elift, double scale, const double *x,
                            double *y)
{
  const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= n_lift) return;
  const int n = lift_nodes[i];
  y[n] = fe_node_lift(i, ptr, entry, col, elift, scale, x, y[n]);
}

int fe_lift_cuda(const struct fe_space *s, const double *elift, double scale, const double *x,
                 double *y)
{
  if (!s->n_lift_nodes) return FE_SUCCESS;
  const unsigned nb = (unsigned)((s->n_lift_nodes + THREADS - 1) / THREADS);
  lift_kernel<<<nb, THREADS, 0, fe_cuda_stream(s->be)>>>(
      s->n_lift_nodes, s->lift_nodes, s->lift_ptr, s->lift_entry, s->lift_col, elift, scale, x, y);
  FE_CUDA_LAUNCHED("lift_kernel");
  return FE_SUCCESS;
}

/* y_n += scale * (A x)_n at Dirichlet node n from the full matrices of its cells: a gather per
 * node, so the sums have a fixed order. */
__global__ void reaction_kernel(long n_dirichlet, const int *dirichlet, int nv, const int *inc_ptr,
                                const int *inc, const int *cells, const int *bindex,
                                const double *elift, double scale, const double *x, double *y)
{
  const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= n_dirichlet) return;
  const int n = dirichlet[i];
  y[n] = fe_node_reaction(nv, n, inc_ptr, inc, cells, bindex, elift, scale, x, y[n]);
}

int fe_reaction_cuda(const struct fe_space *s, const double *elift, double scale, const double *x,
                     double *y)
{
  if (!s->n_dirichlet) return FE_SUCCESS;
  const unsigned nb = (unsigned)((s->n_dirichlet + THREADS - 1) / THREADS);
  reaction_kernel<<<nb, THREADS, 0, fe_cuda_stream(s->be)>>>(s->n_dirichlet, s->dirichlet, s->nv,
                                                             s->inc_ptr, s->inc, s->cells,
                                                             s->bindex, elift, scale, x, y);
  FE_CUDA_LAUNCHED("reaction_kernel");
  return FE_SUCCESS;
}

template <int D>
__global__ void facet_load_kernel(long n_nodes, const int *ptr, const int *slots, const double *w,
                                  const double *g, double *out)
{
  const long n = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (n < n_nodes) out[n] = fe_node_facet_load(D, n, ptr, slots, w, g);
}

int fe_facet_load_cuda(const struct fe_space *s, const int *ptr, const int *slots, const double *w,
                       const double *g, double *out)
{
  const unsigned nb = (unsigned)((s->n_nodes + THREADS - 1) / THREADS);
  if (s->d == 2)
    facet_load_kernel<2>
        <<<nb, THREADS, 0, fe_cuda_stream(s->be)>>>(s->n_nodes, ptr, slots, w, g, out);
  else
    facet_load_kernel<3>
        <<<nb, THREADS, 0, fe_cuda_stream(s->be)>>>(s->n_nodes, ptr, slots, w, g, out);
  FE_CUDA_LAUNCHED("facet_load_kernel");
  return FE_SUCCESS;
}

#define EVAL_MAX_PROGRAMS 6

template <int D>
__global__ void evaluate_kernel(int at_cells, const int *cells, const double *coords,
                                const int *owner, const int *idx, const int *opos, long m,
                                const struct fe_program *progs, int nprog, double t, double *out)
{
  __shared__ struct fe_program p[EVAL_MAX_PROGRAMS];
  fe_cuda_stage_programs(p, progs, nprog);
  const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < m) fe_point_evaluate(D, at_cells, i, cells, coords, owner, idx, opos, p, nprog, t, out);
}

int fe_evaluate_cuda(const struct fe_space *s, int at_cells, const int *idx, const int *opos,
                     long m, const struct fe_program *progs, int nprog, double t, double *out)
{
  FE_CHECK(nprog <= EVAL_MAX_PROGRAMS, FE_ERR_USAGE, "at most %d programs at once",
           EVAL_MAX_PROGRAMS);
  if (!m) return FE_SUCCESS;
  const unsigned blocks = (unsigned)((m + 127) / 128);
  if (s->d == 2)
    evaluate_kernel<2><<<blocks, 128, 0, fe_cuda_stream(s->be)>>>(
        at_cells, s->cells, s->coords, s->owner, idx, opos, m, progs, nprog, t, out);
  else
    evaluate_kernel<3><<<blocks, 128, 0, fe_cuda_stream(s->be)>>>(
        at_cells, s->cells, s->coords, s->owner, idx, opos, m, progs, nprog, t, out);
  FE_CUDA_LAUNCHED("evaluate_kernel");
  return FE_SUCCESS;
}

template <int D> __global__ void count_indefinite_kernel(long m, const double *tensors, int *count)
{
  const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  int a, b;
  double v;
  if (i < m && fe_sym_psd_failure(D, tensors + i * FE_NSYM(D), &a, &b, &v)) atomicAdd(count, 1);
}

int fe_count_indefinite_cuda(const struct fe_space *s, long m, const double *tensors, int *count)
{
  if (!m) return FE_SUCCESS;
  const unsigned blocks = (unsigned)((m + THREADS - 1) / THREADS);
  if (s->d == 2)
    count_indefinite_kernel<2><<<blocks, THREADS, 0, fe_cuda_stream(s->be)>>>(m, tensors, count);
  else
    count_indefinite_kernel<3><<<blocks, THREADS, 0, fe_cuda_stream(s->be)>>>(m, tensors, count);
  FE_CUDA_LAUNCHED("count_indefinite_kernel");
  return FE_SUCCESS;
}

__global__ void interpolate_kernel(long n, int nv, const int *nodes, const double *weights,
                                   const double *field, int ncomp, double *out)
{
  const long p = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (p < n) fe_point_interpolate(nv, p, nodes, weights, field, ncomp, out);
}

int fe_interpolate_cuda(const struct fe_space *s, long n, const int *nodes, const double *weights,
                        const double *field, int ncomp, double *out)
{
  if (!n) return FE_SUCCESS;
  const unsigned blocks = (unsigned)((n + THREADS - 1) / THREADS);
  interpolate_kernel<<<blocks, THREADS, 0, fe_cuda_stream(s->be)>>>(n, s->nv, nodes, weights, field,
                                                                    ncomp, out);
  FE_CUDA_LAUNCHED("interpolate_kernel");
  return FE_SUCCESS;
}
