/* CG's whole solve on LMA's stored matrices as one persistent kernel (issue 15: a CG iteration
 * on a small mesh costs its launches, not its bytes).  A cooperative grid, each thread up to
 * a few nodes (their values of p and q kept in registers from one phase to the next), runs
 * what cg.cu's kernels run, with two or three grid-wide barriers per iteration instead of five
 * launches:
 *   apply: p = z + beta p made at every vertex the apply reads, q = A' p, p . q; by each node's
 *          row (a gather over its incidence: 2D), or the cells' products, a barrier, and their
 *          sums per node (3D); no atomics either way;
 *   update: x += alpha p, r -= alpha q, z = r .* dinv, p stored, r . z, r . r;
 * every sum a fixed-order reduction of per-block partials that every block makes alike, so each
 * block keeps the same state (fe_cg_state_start, fe_cg_state_record) and stops with the others.
 * Deterministic, and within round-off of the launched kernels (their sums run in another
 * order; the apply's are the deterministic apply's bits). */
#include <cooperative_groups.h>

#include "assembly/node.h"
#include "backends/cuda/reduce.cuh"
#include "core/cuda_check.h"

namespace cg = cooperative_groups;

#define WARPS (FE_REDUCE_THREADS / 32)

struct lma_cg_args {
  long n, n_cells;
  int shift;
  const int *cells, *inc_ptr, *inc;
  const double *e, *dinv;
  struct fe_cg_batch c;
  double rtol, atol;
  int max_iterations;
  double *work;     /* CELLS: the cells' products, n_cells * (D + 1) */
  double *partials; /* [set 0, 1][system][3 sums][block] */
  struct fe_cg_state *gathered;
};

/* (A' v)_n, v(k) the value at node k: node n's incidence in its order, each cell's row summed
 * as fe_lma_entries_multiply sums it (the bits of the deterministic apply). */
template <int D, int ST, typename Value>
__device__ inline double lma_row(const struct lma_cg_args &a, long n, Value v)
{
  constexpr int NV = D + 1, NS = ST == FE_STORAGE_SYMMETRIC ? NV * (NV + 1) / 2 : NV * NV;
  double sum = 0;
  for (int k = __ldg(a.inc_ptr + n), end = __ldg(a.inc_ptr + n + 1); k < end; k++) {
    const int ci = __ldg(a.inc + k), c = ci / NV, i = ci % NV;
    double row = 0;
#pragma unroll
    for (int j = 0; j < NV; j++)
      row += __ldg(a.e + fe_block_index(c, fe_storage_entry(NV, (enum fe_storage)ST, i, j), NS,
                                        a.shift)) *
             v(__ldg(a.cells + (long)c * NV + j));
    sum += row;
  }
  return sum;
}

/* The cells' products E'_c v_c into work (every cell of the grid's share), v(k) the value at
 * node k: the deterministic apply's local stage (fe_lma_entries_multiply), the matrices read
 * through the caches, which keep a small mesh's from one iteration to the next. */
template <int D, int ST, typename Value>
__device__ inline void cell_products(const struct lma_cg_args &a, long first, long stride, Value v)
{
  constexpr int NV = D + 1, NS = ST == FE_STORAGE_SYMMETRIC ? NV * (NV + 1) / 2 : NV * NV;
  for (long c = first; c < a.n_cells; c += stride) {
    double es[FE_NK_MAX], xe[4], ye[4];
#pragma unroll
    for (int k = 0; k < NS; k++) es[k] = __ldg(a.e + fe_block_index(c, k, NS, a.shift));
#pragma unroll
    for (int j = 0; j < NV; j++) xe[j] = v(__ldg(a.cells + c * NV + j));
    fe_lma_entries_multiply(D, (enum fe_storage)ST, es, xe, ye);
#pragma unroll
    for (int i = 0; i < NV; i++) a.work[c * NV + i] = ye[i];
  }
}

/* (A' v)_n: by node n's row (lma_row), or (CELLS) the sum of its cells' products in work
 * (fe_node_incidence_sum), which the grid wrote before its last barrier. */
template <int D, int ST, bool CELLS, typename Value>
__device__ inline double node_product(const struct lma_cg_args &a, long n, Value v)
{
  if constexpr (CELLS)
    return fe_node_incidence_sum(n, a.inc_ptr, a.inc, a.work);
  else
    return lma_row<D, ST>(a, n, v);
}

/* v summed over the warp's lanes into lane 0 (a fixed tree). */
static __device__ inline double warp_sum(double v)
{
  for (int w = 16; w > 0; w /= 2) v += __shfl_down_sync(0xffffffffu, v, w);
  return v;
}

static __device__ inline double *partials_of(const struct lma_cg_args &a, int set, int j)
{
  return a.partials + ((size_t)(set * FE_CG_MANY + j) * 3) * gridDim.x;
}

/* This block's sums v[0..2] as its partials of (set, system j): each warp's, then the warps'
 * in order.  Visible to the other blocks after the grid's next barrier. */
static __device__ void block_partials(const struct lma_cg_args &a, int set, int j,
                                      const double v[3])
{
  __shared__ double warps[FE_CG_MANY][3][WARPS];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int k = 0; k < 3; k++) {
    const double s = warp_sum(v[k]);
    if (lane == 0) warps[j][k][warp] = s;
  }
  __syncthreads();
  if (threadIdx.x < 3) {
    double s = 0;
    for (int w = 0; w < WARPS; w++) s += warps[j][threadIdx.x][w];
    partials_of(a, set, j)[(size_t)threadIdx.x * gridDim.x + blockIdx.x] = s;
  }
}

/* The sums of (set, system j) over the blocks in a fixed order (each thread's blocks, the
 * lanes, the warps), made by every block alike: the same bits in every thread of the grid.
 * The warps' sums in two halves, `half` alternating from one call to the next, so that a
 * call's writes never meet the reads of the call before.  Read past L1, which other blocks'
 * writes miss.  (Every warp reading every partial, with no block barrier, was slower from 10K
 * nodes up: docs/performance.md.) */
static __device__ void grid_sums(const struct lma_cg_args &a, int set, int j, int half, double v[3])
{
  __shared__ double warps[2][3][WARPS];
  const double *p = partials_of(a, set, j);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int k = 0; k < 3; k++) {
    double s = 0;
    for (int b = threadIdx.x; b < (int)gridDim.x; b += blockDim.x)
      s += __ldcg(p + (size_t)k * gridDim.x + b);
    s = warp_sum(s);
    if (lane == 0) warps[half][k][warp] = s;
  }
  __syncthreads();
  for (int k = 0; k < 3; k++) {
    v[k] = 0;
    for (int w = 0; w < WARPS; w++) v[k] += warps[half][k][w];
  }
}

/* M: the most systems, K: the most nodes a thread takes (their p and q in registers); CELLS:
 * the apply as the cells' products, then the grid's barrier, then their sums per node (one
 * system), else by rows. */
template <int D, int ST, int M, int K, bool CELLS>
__global__ void __launch_bounds__(FE_REDUCE_THREADS, 3) lma_cg_kernel(struct lma_cg_args a)
{
  static_assert(!CELLS || M == 1, "one work array: one system");
  __shared__ struct fe_cg_state st[FE_CG_MANY];
  cg::grid_group grid = cg::this_grid();
  const long first = blockIdx.x * (long)blockDim.x + threadIdx.x,
             stride = (long)gridDim.x * blockDim.x; /* the cells' (grid-stride) */
  /* the nodes: each block a span of them, a thread every blockDim.x-th of it, so that a small
   * mesh spreads over every block of the grid, not over a block per FE_REDUCE_THREADS nodes */
  const long span = (a.n + gridDim.x - 1) / gridDim.x, node0 = blockIdx.x * span + threadIdx.x,
             node_end = blockIdx.x * span + span < a.n ? blockIdx.x * span + span : a.n;
  const int m = a.c.m;
  const double *dinv = a.dinv;
  /* start: q = A' x, r = b - q, z = r .* dinv, and b . b, r . r, r . z (cg_residual_kernel's) */
  if constexpr (CELLS) {
    const double *x = a.c.x[0];
    cell_products<D, ST>(a, first, stride, [&](int k) { return x[k]; });
    grid.sync();
  }
  for (int j = 0; j < m; j++) {
    const double *x = a.c.x[j], *b = a.c.b[j];
    double *r = a.c.r[j], *z = a.c.z[j];
    double v[3] = {0, 0, 0};
#pragma unroll
    for (int t = 0; t < K; t++) {
      const long n = node0 + t * (long)blockDim.x;
      if (n >= node_end) break;
      const double bn = b[n],
                   rn = bn - node_product<D, ST, CELLS>(a, n, [&](int k) { return x[k]; });
      const double zn = dinv ? rn * __ldg(dinv + n) : rn;
      r[n] = rn;
      z[n] = zn;
      v[0] += bn * bn;
      v[1] += rn * rn;
      v[2] += rn * zn;
    }
    block_partials(a, 0, j, v);
  }
  grid.sync();
  int half = 0; /* grid_sums' shared half: one call after another */
  for (int j = 0; j < m; j++) {
    double v[3];
    grid_sums(a, 0, j, half ^= 1, v);
    if (threadIdx.x == 0) {
      st[j] = (struct fe_cg_state){.bb = v[0], .rr0 = v[1], .rz = {v[2], 0}};
      fe_cg_state_start(&st[j], a.rtol, a.atol, a.max_iterations);
    }
  }
  __syncthreads();
  double pk[M][K], qk[M][K];
  for (int it = 0;; it++) {
    int going = 0;
    for (int j = 0; j < m; j++) going |= st[j].go_on;
    if (!going) break;
    /* apply: p and q of this thread's nodes into registers; p itself is read, not written */
    if constexpr (CELLS) {
      const double *z = a.c.z[0], *p = a.c.p[0];
      const double beta = it ? st[0].rz[0] / st[0].rz_old : 0;
      cell_products<D, ST>(a, first, stride,
                           [&](long k) { return it ? z[k] + beta * p[k] : z[k]; });
      grid.sync();
    }
#pragma unroll
    for (int j = 0; j < M; j++) {
      if (j >= m) break;
      double v[3] = {0, 0, 0};
      if (st[j].go_on) {
        const double *z = a.c.z[j], *p = a.c.p[j];
        const double beta = it ? st[j].rz[0] / st[j].rz_old : 0;
        auto direction = [&](long k) { return it ? z[k] + beta * p[k] : z[k]; };
#pragma unroll
        for (int t = 0; t < K; t++) {
          const long n = node0 + t * (long)blockDim.x;
          if (n >= node_end) break;
          qk[j][t] = node_product<D, ST, CELLS>(a, n, direction);
          pk[j][t] = direction(n);
          v[0] += pk[j][t] * qk[j][t];
        }
      }
      block_partials(a, 1, j, v);
    }
    grid.sync();
    /* update, and p stored: no row reads it any more */
#pragma unroll
    for (int j = 0; j < M; j++) {
      if (j >= m) break;
      double v[3];
      grid_sums(a, 1, j, half ^= 1, v);
      const double pq = v[0];
      v[0] = v[1] = 0;
      if (st[j].go_on) {
        const double alpha = st[j].rz[0] / pq;
        double *x = a.c.x[j], *r = a.c.r[j], *z = a.c.z[j], *p = a.c.p[j];
#pragma unroll
        for (int t = 0; t < K; t++) {
          const long n = node0 + t * (long)blockDim.x;
          if (n >= node_end) break;
          x[n] += alpha * pk[j][t];
          const double rn = r[n] - alpha * qk[j][t];
          const double zn = dinv ? rn * __ldg(dinv + n) : rn;
          r[n] = rn;
          z[n] = zn;
          p[n] = pk[j][t];
          v[0] += rn * zn;
          v[1] += rn * rn;
        }
      }
      block_partials(a, 0, j, v);
      if (threadIdx.x == 0 && st[j].go_on) st[j].pq = pq;
    }
    grid.sync();
    for (int j = 0; j < m; j++) {
      double v[3];
      grid_sums(a, 0, j, half ^= 1, v);
      if (threadIdx.x == 0 && st[j].go_on) {
        st[j].rz_old = st[j].rz[0];
        st[j].rz[0] = v[0];
        st[j].rz[1] = v[1];
        fe_cg_state_record(&st[j]);
      }
    }
    __syncthreads();
  }
  if (blockIdx.x == 0 && threadIdx.x < m) {
    *a.c.s[threadIdx.x] = st[threadIdx.x];
    if (a.gathered) a.gathered[threadIdx.x] = st[threadIdx.x];
  }
}

/* A small mesh's nodes are spread over the multiprocessors down to this many a block: in 3D
 * the cells' pass and the node sums of 10K nodes over 132 blocks instead of 42 took 13.3
 * against 17.3 us an iteration on an H100; in 2D it changed nothing measurable
 * (docs/performance.md). */
#define SPREAD_NODES 32

/* The grid: a block per FE_REDUCE_THREADS nodes, or one per SPREAD_NODES up to a block per
 * multiprocessor, at most as many as stay resident together (a cooperative launch's
 * condition); 0 where the device cannot launch one or the mesh needs more than K nodes a
 * thread.  The blocks a multiprocessor holds are asked once per variant and device. */
template <int D, int ST, int M, int K, bool CELLS>
static int grid_size(struct fe_cuda_ctx *x, long n, int *blocks)
{
  const void *kernel = (const void *)lma_cg_kernel<D, ST, M, K, CELLS>;
  int v = 0;
  while (v < FE_CUDA_CG_VARIANTS && x->cg_occupancy[v].kernel &&
         x->cg_occupancy[v].kernel != kernel)
    v++;
  FE_CHECK(v < FE_CUDA_CG_VARIANTS, FE_ERR_USAGE,
           "more variants of CG as one kernel than FE_CUDA_CG_VARIANTS (%d)", FE_CUDA_CG_VARIANTS);
  if (!x->cg_occupancy[v].kernel) {
    int per_sm = 0;
    FE_CUDA_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, lma_cg_kernel<D, ST, M, K, CELLS>, FE_REDUCE_THREADS, 0));
    x->cg_occupancy[v].kernel = kernel;
    x->cg_occupancy[v].per_sm = per_sm;
  }
  const long full = (n + FE_REDUCE_THREADS - 1) / FE_REDUCE_THREADS,
             spread = (n + SPREAD_NODES - 1) / SPREAD_NODES,
             wanted = full > x->sms ? full : spread < x->sms ? spread : x->sms,
             most = (long)x->cg_occupancy[v].per_sm * x->sms;
  const long b = wanted < most ? wanted : most;
  *blocks = x->cooperative && n <= b * FE_REDUCE_THREADS * K ? (int)b : 0;
  return FE_SUCCESS;
}

template <int D, int ST, int M, int K, bool CELLS>
static int lma_cg_d(const struct fe_space *s, const double *e, double *work,
                    const struct fe_cg_job *job, int *done)
{
  struct fe_cuda_ctx *x = fe_cuda_ctx(s->be);
  int blocks = 0;
  FE_CALL((grid_size<D, ST, M, K, CELLS>(x, (long)job->n, &blocks)));
  if (blocks < 1) return FE_SUCCESS;
  if (!x->cg_partials) /* room for the most blocks any variant runs */
    FE_CUDA_CALL(
        cudaMalloc(&x->cg_partials, (size_t)2 * FE_CG_MANY * 3 * x->cg_blocks * sizeof(double)));
  FE_CHECK(blocks <= x->cg_blocks, FE_ERR_RESOURCE, "CG kernel of %d blocks, room for %d", blocks,
           x->cg_blocks);
  struct lma_cg_args a = {.n = (long)job->n,
                          .n_cells = s->n_cells,
                          .shift = s->block_shift,
                          .cells = s->cells,
                          .inc_ptr = s->inc_ptr,
                          .inc = s->inc,
                          .e = e,
                          .dinv = job->dinv,
                          .c = *job->c,
                          .rtol = job->rtol,
                          .atol = job->atol,
                          .max_iterations = job->max_iterations,
                          .work = work,
                          .partials = x->cg_partials,
                          .gathered = job->gathered};
  void *args[] = {&a};
  const cudaError_t launched =
      cudaLaunchCooperativeKernel((const void *)lma_cg_kernel<D, ST, M, K, CELLS>, blocks,
                                  FE_REDUCE_THREADS, args, 0, x->stream);
  if (launched == cudaErrorCooperativeLaunchTooLarge) { /* fewer SMs than the query saw (MPS) */
    cudaGetLastError();
    return FE_SUCCESS; /* the launched kernels, then */
  }
  FE_CUDA_CALL(launched);
  FE_CUDA_LAUNCHED("lma_cg_kernel");
  *done = 1;
  return FE_SUCCESS;
}

/* The apply by rows in 2D (a node's row reads about 6 triangles' 3 entries: less than the
 * cells' pass and its barrier), through the cells in 3D (about 24 tetrahedra's 4 entries: the
 * rows would read 4 times what the cells do).  One system up to 4 nodes a thread; several
 * (2D only: one work array) one node a thread, and so a system of a deterministic space too:
 * there a system solved with others gives the bits of its solve alone (the same kernel, the
 * same grid; beyond it both take the device's loop). */
template <int D, int ST>
static int lma_cg_systems(const struct fe_space *s, const double *e, double *work,
                          const struct fe_cg_job *job, int *done)
{
  if (job->c->m > 1 || s->deterministic) {
    if constexpr (D == 2) return lma_cg_d<D, ST, FE_CG_MANY, 1, false>(s, e, work, job, done);
    return FE_SUCCESS;
  }
  return lma_cg_d<D, ST, 1, 4, D == 3>(s, e, work, job, done);
}

int fe_lma_cg_cuda(const struct fe_space *s, enum fe_storage st, const double *e, double *work,
                   const struct fe_cg_job *job, int *done)
{
  *done = 0;
  /* one process, no periodic copies: every vertex a row reads is an entry of the vectors */
  if (s->halo || (long)job->n != s->n_nodes ||
      s->n_nodes > fe_cuda_ctx(s->be)->cg_kernel_nodes[s->d - 2])
    return FE_SUCCESS;
  if (st == FE_STORAGE_SYMMETRIC)
    return s->d == 2 ? lma_cg_systems<2, FE_STORAGE_SYMMETRIC>(s, e, work, job, done)
                     : lma_cg_systems<3, FE_STORAGE_SYMMETRIC>(s, e, work, job, done);
  return s->d == 2 ? lma_cg_systems<2, FE_STORAGE_FULL>(s, e, work, job, done)
                   : lma_cg_systems<3, FE_STORAGE_FULL>(s, e, work, job, done);
}
