/* The local matrix approach on the CUDA backend: y = A^T (E (A x)) in
 * Markall's three stages, the scatter with atomics or, deterministic, as a
 * gather through the node incidence (assembly/node.h). */
#include "assembly/node.h"
#include "backends/cuda/backend_cuda.h"
#include "core/cuda_check.h"
#include "solvers/halo.h"

#define THREADS 256

/* Cell c's vertices, read once for the gather and the scatter, streamed as the element
 * matrices are (fe_load_once); a tetrahedron's as one 16-byte load (cells from cudaMalloc,
 * 16 bytes a cell: aligned). */
template <int D>
__device__ inline void cell_vertices(const int *__restrict__ cells, long c, int v[D + 1])
{
  if constexpr (D == 3) {
    const int4 q = __ldcs(reinterpret_cast<const int4 *>(cells) + c);
    v[0] = q.x;
    v[1] = q.y;
    v[2] = q.z;
    v[3] = q.w;
  } else {
#pragma unroll
    for (int i = 0; i < D + 1; i++) v[i] = __ldcs(cells + c * (D + 1) + i);
  }
}

/* The LMA apply's atomic scatter is warp-aggregated in 3D, where it is bound by L2's
 * throughput (99 % at 24.6M tetrahedra, Nsight Compute) and aggregation made it 1.16-1.22x
 * faster (1.3M-24.6M tetrahedra, H100; 1.06x at 384K); in 2D it made a 1M-triangle apply 9 %
 * slower and an 18M one 5 % faster, so 2D keeps plain atomics (docs/performance.md). */
template <int D>
constexpr bool lma_aggregate = D == 3;

/* Gather and local product in storage ST (enum fe_storage), then the scatter: with atomics
 * into y (ATOMIC), or the products into the work array, which a gather per node sums. */
template <int D, int ST, bool ATOMIC>
__global__ void lma_kernel(long n_cells, const int *__restrict__ cells,
                           const double *__restrict__ e, int shift, const double *__restrict__ x,
                           double *__restrict__ out)
{
  const long c = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (c >= n_cells) return;
  int v[D + 1];
  cell_vertices<D>(cells, c, v);
  double xe[4], ye[4];
#pragma unroll
  for (int j = 0; j < D + 1; j++) xe[j] = x[v[j]];
  fe_cell_lma_multiply(D, (enum fe_storage)ST, e, shift, c, xe, ye);
  fe_cuda_put_local<D, ATOMIC, lma_aggregate<D>>(c, v, ye, out);
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
 * cells: the copies' sums added into the owner (the reverse sum of the halo's copies) and the
 * owner's total copied back (their update), as the gather over the merged incidence gives.
 * Other processes' ghosts: the owned sums are complete already (the operator completes the
 * ghosts). */
int fe_cuda_fold(const struct fe_space *s, double *y)
{
  if (!s->halo || !s->halo->n_copies) return FE_SUCCESS;
  FE_CALL(fe_cuda_copies_sum(s->halo, y));
  return fe_cuda_copies_update(s->halo, 1, y);
}

template <int D, int ST>
static int lma_apply_d(const struct fe_space *s, const double *e, const double *x, double *y,
                       double *work)
{
  const unsigned cb = (unsigned)((s->n_cells + THREADS - 1) / THREADS);
  const cudaStream_t stream = fe_cuda_stream(s->be);
  if (!s->deterministic) {
    FE_CUDA_CALL(cudaMemsetAsync(y, 0, s->n_nodes * sizeof *y, stream));
    lma_kernel<D, ST, true>
        <<<cb, THREADS, 0, stream>>>(s->n_cells, s->cells, e, s->block_shift, x, y);
    FE_CUDA_LAUNCHED("lma_kernel");
    return fe_cuda_fold(s, y);
  }
  lma_kernel<D, ST, false>
      <<<cb, THREADS, 0, stream>>>(s->n_cells, s->cells, e, s->block_shift, x, work);
  FE_CUDA_LAUNCHED("lma_kernel");
  return fe_incidence_sum_cuda(s, s->inc_ptr, s->inc, work, y);
}

int fe_lma_apply_cuda(const struct fe_space *s, enum fe_storage st, const double *e,
                      const double *x, double *y, double *work)
{
  if (st == FE_STORAGE_SYMMETRIC)
    return s->d == 2 ? lma_apply_d<2, FE_STORAGE_SYMMETRIC>(s, e, x, y, work)
                     : lma_apply_d<3, FE_STORAGE_SYMMETRIC>(s, e, x, y, work);
  return s->d == 2 ? lma_apply_d<2, FE_STORAGE_FULL>(s, e, x, y, work)
                   : lma_apply_d<3, FE_STORAGE_FULL>(s, e, x, y, work);
}

/* Several vectors at once (fe_lma_apply_many_cuda), M of them: each cell's matrix and
 * vertices read once, the products scattered with atomics. */
template <int M>
struct lma_vectors {
  const double *x[M];
  double *y[M];
};

template <int D, int ST, int M>
__global__ void lma_many_kernel(long n_cells, const int *__restrict__ cells,
                                const double *__restrict__ e, int shift, lma_vectors<M> v)
{
  const long c = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (c >= n_cells) return;
  int vert[D + 1];
  cell_vertices<D>(cells, c, vert);
  double es[FE_NK_MAX];
  fe_cell_lma_entries(D, (enum fe_storage)ST, e, shift, c, es);
#pragma unroll
  for (int k = 0; k < M; k++) {
    double xe[4], ye[4];
#pragma unroll
    for (int j = 0; j < D + 1; j++) xe[j] = v.x[k][vert[j]];
    fe_lma_entries_multiply(D, (enum fe_storage)ST, es, xe, ye);
    fe_cuda_put_local<D, true, lma_aggregate<D>>(c, vert, ye, v.y[k]);
  }
}

template <int D, int ST, int M>
static int lma_many_d(const struct fe_space *s, const double *e, const double *const *x,
                      double *const *y)
{
  const unsigned cb = (unsigned)((s->n_cells + THREADS - 1) / THREADS);
  const cudaStream_t stream = fe_cuda_stream(s->be);
  lma_vectors<M> v;
  for (int k = 0; k < M; k++) {
    v.x[k] = x[k];
    v.y[k] = y[k];
    FE_CUDA_CALL(cudaMemsetAsync(y[k], 0, s->n_nodes * sizeof *y[k], stream));
  }
  lma_many_kernel<D, ST, M><<<cb, THREADS, 0, stream>>>(s->n_cells, s->cells, e, s->block_shift, v);
  FE_CUDA_LAUNCHED("lma_many_kernel");
  for (int k = 0; k < M; k++) FE_CALL(fe_cuda_fold(s, y[k]));
  return FE_SUCCESS;
}

template <int D, int ST>
static int lma_many_chunk(const struct fe_space *s, const double *e, int m, const double *const *x,
                          double *const *y)
{
  switch (m) {
  case 1: return lma_apply_d<D, ST>(s, e, x[0], y[0], NULL); /* atomic: no work array */
  case 2: return lma_many_d<D, ST, 2>(s, e, x, y);
  case 3: return lma_many_d<D, ST, 3>(s, e, x, y);
  default: return lma_many_d<D, ST, 4>(s, e, x, y);
  }
}

/* Up to four vectors a pass: past four the registers the products hold cost more occupancy
 * than a second read of the matrices does. */
int fe_lma_apply_many_cuda(const struct fe_space *s, enum fe_storage st, const double *e, int m,
                           const double *const *x, double *const *y)
{
  FE_CHECK(!s->deterministic, FE_ERR_USAGE,
           "an LMA apply to several vectors scatters with atomics: not in a deterministic space");
  for (int k = 0; k < m; k += 4) {
    const int chunk = m - k < 4 ? m - k : 4;
    int err;
    if (st == FE_STORAGE_SYMMETRIC)
      err = s->d == 2 ? lma_many_chunk<2, FE_STORAGE_SYMMETRIC>(s, e, chunk, x + k, y + k)
                      : lma_many_chunk<3, FE_STORAGE_SYMMETRIC>(s, e, chunk, x + k, y + k);
    else
      err = s->d == 2 ? lma_many_chunk<2, FE_STORAGE_FULL>(s, e, chunk, x + k, y + k)
                      : lma_many_chunk<3, FE_STORAGE_FULL>(s, e, chunk, x + k, y + k);
    FE_CALL(err);
  }
  return FE_SUCCESS;
}

__global__ void lma_diagonal_kernel(long n_nodes, int nv, enum fe_storage st, const int *inc_ptr,
                                    const int *inc, const double *e, int shift, double *diag)
{
  const long n = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (n < n_nodes) diag[n] = fe_node_lma_diagonal(n, nv, st, inc_ptr, inc, e, shift);
}

int fe_lma_diagonal_cuda(const struct fe_space *s, enum fe_storage st, const double *e,
                         double *diag)
{
  const unsigned nb = (unsigned)((s->n_nodes + THREADS - 1) / THREADS);
  lma_diagonal_kernel<<<nb, THREADS, 0, fe_cuda_stream(s->be)>>>(s->n_nodes, s->nv, st, s->inc_ptr,
                                                                 s->inc, e, s->block_shift, diag);
  FE_CUDA_LAUNCHED("lma_diagonal_kernel");
  return FE_SUCCESS;
}
