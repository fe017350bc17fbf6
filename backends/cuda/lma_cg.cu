/* CG's whole solve on LMA's stored matrices as one persistent kernel (issue 15: a CG iteration
 * on a small mesh costs its launches, not its bytes).  A cooperative grid, each thread up to
 * a few nodes (their p kept in registers from one iteration to the next), runs CG with one
 * reduction per iteration (Chronopoulos and Gear's recurrences, lma_cg_kernel), so that one
 * grid-wide barrier ends an iteration (two in 3D), where five launches did:
 *   the apply: w = A' z, z made at every vertex the apply reads from the last iteration's r,
 *          w and s; by each node's row (a gather over its incidence: 2D), or the cells'
 *          products, a barrier, and their sums per node (3D); no atomics either way;
 *   with it, at the thread's own nodes: s, p, x, r and z updated, and r . z, z . w, r . r;
 * every sum a fixed-order reduction of per-block partials that every block makes alike, so each
 * block keeps the same state (fe_cg_state_start, fe_cg_state_record) and stops with the others.
 * Deterministic, and within round-off of the launched kernels' CG (the same iterates in exact
 * arithmetic; their sums run in another order). */
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
  double *work;     /* CELLS: the cells' products, n_cells * (D + 1) a system */
  double *partials; /* [set 0, 1][system][3 sums][block] */
  double *scratch;  /* [system][set 0, 1][n]: s (cg_sets); after it, with CELLS and several
                       systems, their work arrays */
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
__device__ inline void cell_products(const struct lma_cg_args &a, double *work, long first,
                                     long stride, Value v)
{
  constexpr int NV = D + 1, NS = ST == FE_STORAGE_SYMMETRIC ? NV * (NV + 1) / 2 : NV * NV;
  for (long c = first; c < a.n_cells; c += stride) {
    double es[FE_NK_MAX], xe[4], ye[4];
    const double *ec = a.e + fe_block_index(c, 0, NS, a.shift);
#pragma unroll
    for (int k = 0; k < NS; k++) es[k] = __ldg(ec + (k << a.shift));
#pragma unroll
    for (int j = 0; j < NV; j++) xe[j] = v(__ldg(a.cells + c * NV + j));
    fe_lma_entries_multiply(D, (enum fe_storage)ST, es, xe, ye);
#pragma unroll
    for (int i = 0; i < NV; i++) work[c * NV + i] = ye[i];
  }
}

/* (A' v)_n: by node n's row (lma_row), or (CELLS) the sum of its cells' products in work
 * (fe_node_incidence_sum), which the grid wrote before its last barrier. */
template <int D, int ST, bool CELLS, typename Value>
__device__ inline double node_product(const struct lma_cg_args &a, const double *work, long n,
                                      Value v)
{
  if constexpr (CELLS)
    return fe_node_incidence_sum(n, a.inc_ptr, a.inc, work);
  else
    return lma_row<D, ST>(a, n, v);
}

/* System j's cells' products (CELLS). */
template <int D> static __device__ inline double *work_of(const struct lma_cg_args &a, int j)
{
  return a.work + (size_t)j * a.n_cells * (D + 1);
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

/* System j's vectors of the single-reduction recurrences, set b of two (the set an iteration
 * reads at other nodes, the other the set it writes): the residual r in the solver's r and z,
 * w = A z in its p and q, s = A p in the kernel's scratch. */
struct cg_sets {
  double *r, *w, *s;
};

static __device__ inline cg_sets sets_of(const struct lma_cg_args &a, int j, int b)
{
  return {b ? a.c.z[j] : a.c.r[j], b ? a.c.q[j] : a.c.p[j],
          a.scratch + ((size_t)2 * j + b) * (size_t)a.n};
}

/* z = r .* dinv at node k (dinv NULL: z = r). */
static __device__ inline double precondition(const double *dinv, long k, double r)
{
  return dinv ? r * __ldg(dinv + k) : r;
}

/* Iteration it's s and r at node k from the set it reads (now), with its alpha and beta: one
 * expression, so that node k's values are the same bits wherever they are made. */
static __device__ inline double s_next(const cg_sets &now, double be, int it, long k)
{
  return it ? now.w[k] + be * now.s[k] : now.w[k];
}

static __device__ inline double r_next(const cg_sets &now, double al, long k, double s)
{
  return now.r[k] - al * s;
}

/* M: the most systems, K: the most nodes a thread takes (their p in registers); CELLS: the
 * apply as the cells' products (each system's in its own work array), then the grid's
 * barrier, then their sums per node, else by rows.
 *
 * CG with one reduction per iteration (Chronopoulos and Gear, J. Comput. Appl. Math. 25,
 * 1989; PETSc's KSPCG with -ksp_cg_single_reduction): with w = A z and s = A p kept by
 * recurrence, an iteration is
 *   s = w + beta s, p = z + beta p, x += alpha p, r -= alpha s, z = r .* dinv, w = A z,
 *   then gamma = r . z, delta = z . w and r . r summed at once, beta = gamma / gamma_old,
 *   alpha = gamma / (delta - beta gamma / alpha_old),
 * the same iterates as CG's in exact arithmetic.  The apply reads z at other nodes: each
 * makes it there from the last iteration's r, w and s, which the iteration's writes (the
 * other set) leave alone, so that one barrier (two with CELLS) ends an iteration. */
template <int D, int ST, int M, int K, bool CELLS>
__global__ void __launch_bounds__(FE_REDUCE_THREADS, 3) lma_cg_kernel(struct lma_cg_args a)
{
  __shared__ struct fe_cg_state st[FE_CG_MANY];
  __shared__ double alpha[FE_CG_MANY], beta[FE_CG_MANY];
  cg::grid_group grid = cg::this_grid();
  const long first = blockIdx.x * (long)blockDim.x + threadIdx.x,
             stride = (long)gridDim.x * blockDim.x; /* the cells' (grid-stride) */
  /* the nodes: each block a span of them, a thread every blockDim.x-th of it, so that a small
   * mesh spreads over every block of the grid, not over a block per FE_REDUCE_THREADS nodes */
  const long span = (a.n + gridDim.x - 1) / gridDim.x, node0 = blockIdx.x * span + threadIdx.x,
             node_end = blockIdx.x * span + span < a.n ? blockIdx.x * span + span : a.n;
  const int m = a.c.m;
  const double *dinv = a.dinv;
  /* start: r = b - A' x into set 0, and b . b, r . r, r . z (cg_residual_kernel's) */
  if constexpr (CELLS) {
    for (int j = 0; j < m; j++) {
      const double *x = a.c.x[j];
      cell_products<D, ST>(a, work_of<D>(a, j), first, stride, [&](long k) { return x[k]; });
    }
    grid.sync();
  }
  for (int j = 0; j < m; j++) {
    const double *x = a.c.x[j], *b = a.c.b[j];
    double *r = sets_of(a, j, 0).r;
    double v[3] = {0, 0, 0};
#pragma unroll
    for (int t = 0; t < K; t++) {
      const long n = node0 + t * (long)blockDim.x;
      if (n >= node_end) break;
      const double bn = b[n], rn = bn - node_product<D, ST, CELLS>(a, work_of<D>(a, j), n,
                                                                   [&](long k) { return x[k]; });
      const double zn = precondition(dinv, n, rn);
      r[n] = rn;
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
  /* and w = A' z into set 0, z . w: the first alpha */
  if constexpr (CELLS) {
    for (int j = 0; j < m; j++) {
      const double *r = sets_of(a, j, 0).r;
      cell_products<D, ST>(a, work_of<D>(a, j), first, stride,
                           [&](long k) { return precondition(dinv, k, r[k]); });
    }
    grid.sync();
  }
  for (int j = 0; j < m; j++) {
    const cg_sets now = sets_of(a, j, 0);
    double v[3] = {0, 0, 0};
#pragma unroll
    for (int t = 0; t < K; t++) {
      const long n = node0 + t * (long)blockDim.x;
      if (n >= node_end) break;
      const double wn = node_product<D, ST, CELLS>(
          a, work_of<D>(a, j), n, [&](long k) { return precondition(dinv, k, now.r[k]); });
      now.w[n] = wn;
      v[0] += precondition(dinv, n, now.r[n]) * wn;
    }
    block_partials(a, 1, j, v);
  }
  grid.sync();
  for (int j = 0; j < m; j++) {
    double v[3];
    grid_sums(a, 1, j, half ^= 1, v);
    if (threadIdx.x == 0) {
      st[j].pq = v[0];
      alpha[j] = st[j].rz[0] / v[0];
      beta[j] = 0;
    }
  }
  __syncthreads();
  double pk[M][K];
  for (int it = 0;; it++) {
    int going = 0;
    for (int j = 0; j < m; j++) going |= st[j].go_on;
    if (!going) break;
    const int set = it & 1; /* the set read (and the partials' set); the other is written */
    if constexpr (CELLS) {
      for (int j = 0; j < m; j++) {
        if (!st[j].go_on) continue;
        const cg_sets now = sets_of(a, j, set);
        const double al = alpha[j], be = beta[j];
        cell_products<D, ST>(a, work_of<D>(a, j), first, stride, [&](long k) {
          return precondition(dinv, k, r_next(now, al, k, s_next(now, be, it, k)));
        });
      }
      grid.sync();
    }
#pragma unroll
    for (int j = 0; j < M; j++) {
      if (j >= m) break;
      double v[3] = {0, 0, 0};
      if (st[j].go_on) {
        const cg_sets now = sets_of(a, j, set), next = sets_of(a, j, set ^ 1);
        const double al = alpha[j], be = beta[j];
        double *x = a.c.x[j];
        auto z_at = [&](long k) {
          return precondition(dinv, k, r_next(now, al, k, s_next(now, be, it, k)));
        };
#pragma unroll
        for (int t = 0; t < K; t++) {
          const long n = node0 + t * (long)blockDim.x;
          if (n >= node_end) break;
          const double zo = precondition(dinv, n, now.r[n]);
          const double pn = it ? zo + be * pk[j][t] : zo;
          const double sn = s_next(now, be, it, n), rn = r_next(now, al, n, sn),
                       zn = precondition(dinv, n, rn);
          const double wn = node_product<D, ST, CELLS>(a, work_of<D>(a, j), n, z_at);
          x[n] += al * pn;
          pk[j][t] = pn;
          next.r[n] = rn;
          next.w[n] = wn;
          next.s[n] = sn;
          v[0] += rn * zn;
          v[1] += zn * wn;
          v[2] += rn * rn;
        }
      }
      block_partials(a, set, j, v);
    }
    grid.sync();
    for (int j = 0; j < m; j++) {
      double v[3];
      grid_sums(a, set, j, half ^= 1, v);
      if (threadIdx.x == 0 && st[j].go_on) {
        st[j].rz_old = st[j].rz[0];
        st[j].rz[0] = v[0];
        st[j].rz[1] = v[2];
        if (fe_cg_state_record(&st[j])) {
          const double be = v[0] / st[j].rz_old;
          st[j].pq = v[1] - be * v[0] / alpha[j]; /* p . A p of the next direction */
          alpha[j] = v[0] / st[j].pq;
          beta[j] = be;
        }
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
             wanted = full > x->sms     ? full
                      : spread < x->sms ? spread
                                        : x->sms,
             most = (long)x->cg_occupancy[v].per_sm * x->sms;
  const long b = wanted < most ? wanted : most;
  *blocks = x->cooperative && n <= b * FE_REDUCE_THREADS * K ? (int)b : 0;
  return FE_SUCCESS;
}

/* The kernel <D, ST, M, K, CELLS> on the grid of the variant of GM systems (its occupancy). */
template <int D, int ST, int M, int K, bool CELLS, int GM = M>
static int lma_cg_d(const struct fe_space *s, const double *e, double *work,
                    const struct fe_cg_job *job, int *done)
{
  struct fe_cuda_ctx *x = fe_cuda_ctx(s->be);
  int blocks = 0;
  FE_CALL((grid_size<D, ST, GM, K, CELLS>(x, (long)job->n, &blocks)));
  if (blocks < 1) return FE_SUCCESS;
  if (!x->cg_partials) /* room for the most blocks any variant runs */
    FE_CUDA_CALL(
        cudaMalloc(&x->cg_partials, (size_t)2 * FE_CG_MANY * 3 * x->cg_blocks * sizeof(double)));
  FE_CHECK(blocks <= x->cg_blocks, FE_ERR_RESOURCE, "CG kernel of %d blocks, room for %d", blocks,
           x->cg_blocks);
  /* s, two sets a system; with CELLS, several systems' cells' products after them (one
   * system's go to the operator's work array) */
  const size_t sets = (size_t)2 * job->c->m * job->n,
               scratch = sets + (CELLS && M > 1 ? (size_t)job->c->m * s->n_cells * (D + 1) : 0);
  if (scratch > x->cg_scratch_doubles) { /* grown where a larger batch or mesh needs it */
    FE_CUDA_CALL(cudaStreamSynchronize(x->stream)); /* no kernel queued reads it any more */
    cudaFree(x->cg_scratch);
    x->cg_scratch = NULL;
    x->cg_scratch_doubles = 0;
    FE_CUDA_CALL(cudaMalloc(&x->cg_scratch, scratch * sizeof(double)));
    x->cg_scratch_doubles = scratch;
  }
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
                          .work = CELLS && M > 1 ? x->cg_scratch + sets : work,
                          .partials = x->cg_partials,
                          .scratch = x->cg_scratch,
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
 * one node a thread (each system's cells' products in the scratch, 3D), and so a system of a
 * deterministic space too, on the several systems' grid: there a system solved with others
 * gives the bits of its solve alone (the same arithmetic and grid; beyond it both take the
 * device's loop).  That system runs the one-system kernel, which holds its p in fewer
 * registers: at 10.2K nodes the several systems' kernel took 10.7-10.9 us an iteration on an
 * H100 where the one system's takes 8.7-9.0 (docs/performance.md). */
template <int D, int ST>
static int lma_cg_systems(const struct fe_space *s, const double *e, double *work,
                          const struct fe_cg_job *job, int *done)
{
  constexpr bool CELLS = D == 3;
  if (job->c->m > 1) return lma_cg_d<D, ST, FE_CG_MANY, 1, CELLS>(s, e, work, job, done);
  if (s->deterministic) return lma_cg_d<D, ST, 1, 1, CELLS, FE_CG_MANY>(s, e, work, job, done);
  return lma_cg_d<D, ST, 1, 4, CELLS>(s, e, work, job, done);
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
