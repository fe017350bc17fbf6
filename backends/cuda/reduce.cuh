/* Fixed-order reductions of the CUDA backend, shared by vec.cu and cg.cu: per-
 * block partials, then the last block to finish sums them in block order, in
 * one launch, so that results do not depend on scheduling (runs and restarts
 * reproduce bit for bit).  op 0: sum of one value; op 1: (min, max, count of
 * non-finite); op 2: sums of two values; op 3: of three.  Each sum in the same order
 * whichever op carries it. */
#ifndef FE_REDUCE_CUH
#define FE_REDUCE_CUH

#include "backends/cuda/backend_cuda.h"

static __device__ inline void combine(int op, double *a, const double *b)
{
  if (op == 0) {
    a[0] += b[0];
  } else if (op == 2) {
    a[0] += b[0];
    a[1] += b[1];
  } else if (op == 3) {
    a[0] += b[0];
    a[1] += b[1];
    a[2] += b[2];
  } else {
    a[0] = fmin(a[0], b[0]);
    a[1] = fmax(a[1], b[1]);
    a[2] += b[2];
  }
}

/* The values op carries: 1 (op 0), 2 (op 2) or 3. */
static __device__ inline int op_values(int op) { return op == 0 ? 1 : op == 2 ? 2 : 3; }

/* Block-wide reduction of v[3] into every thread's v, in a fixed order: the tree that halves the
 * block at each step (thread t takes t + w, w = blockDim.x / 2, ..., 1), its steps across
 * warps in shared memory, its last five in warp 0's registers by shuffles (the same additions
 * in the same order, without a barrier each), and only the values op carries.  blockDim.x a
 * power of two from 32 to FE_REDUCE_THREADS; v's other values are left as they are.  (The
 * barrier at every step cost the CG update and p.q about 2 us an iteration at 0.5M nodes on
 * an H200, with the last block's partials loaded one after another: docs/performance.md.) */
static __device__ void block_reduce(int op, double v[3])
{
  __shared__ double s[3][FE_REDUCE_THREADS];
  const int nk = op_values(op), t = threadIdx.x;
  for (int k = 0; k < nk; k++) s[k][t] = v[k];
  __syncthreads();
  int w = blockDim.x / 2;
  for (; w >= 32; w /= 2) {
    if (t < w) {
      double a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
      for (int k = 0; k < nk; k++) {
        a[k] = s[k][t];
        b[k] = s[k][t + w];
      }
      combine(op, a, b);
      for (int k = 0; k < nk; k++) s[k][t] = a[k];
    }
    __syncthreads();
  }
  if (t < 32) {
    double a[3] = {0, 0, 0};
    for (int k = 0; k < nk; k++) a[k] = s[k][t];
    for (; w > 0; w /= 2) {
      double b[3] = {0, 0, 0};
      for (int k = 0; k < nk; k++) b[k] = __shfl_down_sync(0xffffffffu, a[k], w);
      if (t < w) combine(op, a, b);
    }
    if (t == 0)
      for (int k = 0; k < nk; k++) s[k][0] = a[k];
  }
  __syncthreads();
  for (int k = 0; k < nk; k++) v[k] = s[k][0];
}

static __device__ inline void identity(int op, double v[3])
{
  v[0] = op != 1 ? 0.0 : INFINITY;
  v[1] = op != 1 ? 0.0 : -INFINITY;
  v[2] = 0;
}

/* This block's v into the partials; the last block to finish reduces the
 * partials in block order (the same order every run).  True in that block, whose threads
 * then all hold the result in v. */
static __device__ bool reduce_last_block(int op, double v[3], double *partials,
                                         unsigned *done_blocks)
{
  __shared__ bool last;
  const int nk = op_values(op);
  block_reduce(op, v);
  if (threadIdx.x == 0)
    for (int k = 0; k < nk; k++) partials[k * FE_REDUCE_BLOCKS + blockIdx.x] = v[k];
  __threadfence(); /* this block's partials visible to the last block */
  if (threadIdx.x == 0) last = atomicAdd(done_blocks, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return false;
  identity(op, v);
  /* a thread's partials in block order, REDUCE_LOADS loaded before they are added: their
   * loads overlap instead of waiting on each other */
  constexpr int REDUCE_LOADS = FE_REDUCE_BLOCKS / FE_REDUCE_THREADS;
  for (int b0 = threadIdx.x; b0 < (int)gridDim.x; b0 += REDUCE_LOADS * blockDim.x) {
    double p[REDUCE_LOADS][3] = {};
#pragma unroll
    for (int l = 0; l < REDUCE_LOADS; l++) {
      const int b = b0 + l * blockDim.x;
      if (b < (int)gridDim.x)
        for (int k = 0; k < nk; k++) p[l][k] = __ldcg(partials + k * FE_REDUCE_BLOCKS + b);
    }
#pragma unroll
    for (int l = 0; l < REDUCE_LOADS; l++)
      if (b0 + l * (int)blockDim.x < (int)gridDim.x) combine(op, v, p[l]);
  }
  block_reduce(op, v);
  if (threadIdx.x == 0) *done_blocks = 0;
  return true;
}

/* The reduction of every block's v written to result by the last block. */
static __device__ void finish_reduction(int op, double v[3], double *partials, double *result,
                                        unsigned *done_blocks)
{
  if (reduce_last_block(op, v, partials, done_blocks) && threadIdx.x == 0)
    for (int k = 0; k < op_values(op); k++) result[k] = v[k];
}

static inline int reduce_blocks(size_t n)
{
  size_t b = (n + FE_REDUCE_THREADS - 1) / FE_REDUCE_THREADS;
  return (int)(b < 1 ? 1 : b > FE_REDUCE_BLOCKS ? FE_REDUCE_BLOCKS : b);
}

#endif
