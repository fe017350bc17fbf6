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

/* Block-wide reduction of v[3] into thread 0 (shared memory tree: fixed order). */
static __device__ void block_reduce(int op, double v[3])
{
  __shared__ double s[3][FE_REDUCE_THREADS];
  for (int k = 0; k < 3; k++) s[k][threadIdx.x] = v[k];
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) {
      double a[3] = {s[0][threadIdx.x], s[1][threadIdx.x], s[2][threadIdx.x]};
      double b[3] = {s[0][threadIdx.x + w], s[1][threadIdx.x + w], s[2][threadIdx.x + w]};
      combine(op, a, b);
      for (int k = 0; k < 3; k++) s[k][threadIdx.x] = a[k];
    }
    __syncthreads();
  }
  for (int k = 0; k < 3; k++) v[k] = s[k][0];
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
  block_reduce(op, v);
  if (threadIdx.x == 0)
    for (int k = 0; k < 3; k++) partials[k * FE_REDUCE_BLOCKS + blockIdx.x] = v[k];
  __threadfence(); /* this block's partials visible to the last block */
  if (threadIdx.x == 0) last = atomicAdd(done_blocks, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return false;
  identity(op, v);
  for (int b = threadIdx.x; b < (int)gridDim.x; b += blockDim.x) {
    double p[3] = {__ldcg(partials + b), __ldcg(partials + FE_REDUCE_BLOCKS + b),
                   __ldcg(partials + 2 * FE_REDUCE_BLOCKS + b)};
    combine(op, v, p);
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
    for (int k = 0; k < (op == 0 ? 1 : op == 2 ? 2 : 3); k++) result[k] = v[k]; /* op 1, 3: 3 */
}

static inline int reduce_blocks(size_t n)
{
  size_t b = (n + FE_REDUCE_THREADS - 1) / FE_REDUCE_THREADS;
  return (int)(b < 1 ? 1 : b > FE_REDUCE_BLOCKS ? FE_REDUCE_BLOCKS : b);
}

#endif
