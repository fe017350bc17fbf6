/* The cost of a grid-wide barrier in a persistent cooperative kernel (what CG as one kernel,
 * backends/cuda/lma_cg.cu, pays twice an iteration): cooperative groups' grid.sync() alone, a
 * hand-made sense-reversing barrier, and grid.sync() with a partial per block written before
 * it and summed by every block after it (as the kernel's sums do), at 10 to 396 blocks of 256
 * threads.
 *
 *   fesim-bench-barrier [BARRIERS]      (default 2000; one CSV row per variant and grid)
 *
 * Prints blocks,variant,seconds per barrier.  docs/performance.md, "CG as one kernel". */
#include <cooperative_groups.h>

#include <cstdio>
#include <cstdlib>

namespace cg = cooperative_groups;

#define THREADS 256

static __global__ void grid_sync(int barriers, double *sink)
{
  cg::grid_group grid = cg::this_grid();
  double v = threadIdx.x;
  for (int i = 0; i < barriers; i++) {
    v = v * 0.999 + 1;
    grid.sync();
  }
  if (v == -1) *sink = v; /* never: keeps the loop */
}

/* one counter and one generation word: the last block to arrive starts the next generation */
static __device__ unsigned arrived, generation;

static __device__ void sense_barrier(unsigned *mine)
{
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned g = *mine;
    __threadfence();
    if (atomicAdd(&arrived, 1) == gridDim.x - 1) {
      arrived = 0;
      __threadfence();
      atomicExch(&generation, g + 1);
    } else {
      while (*(volatile unsigned *)&generation == g) {
      }
    }
    *mine = g + 1;
  }
  __syncthreads();
}

static __global__ void hand_made(int barriers, double *sink)
{
  __shared__ unsigned mine;
  if (threadIdx.x == 0) mine = *(volatile unsigned *)&generation;
  __syncthreads();
  double v = threadIdx.x;
  for (int i = 0; i < barriers; i++) {
    v = v * 0.999 + 1;
    sense_barrier(&mine);
  }
  if (v == -1) *sink = v;
}

static __global__ void sync_and_sum(int barriers, double *partials, double *sink)
{
  cg::grid_group grid = cg::this_grid();
  __shared__ double s[THREADS];
  double v = threadIdx.x;
  for (int i = 0; i < barriers; i++) {
    double *p = partials + (i & 1) * 1024; /* two halves, alternating */
    if (threadIdx.x == 0) p[blockIdx.x] = v;
    grid.sync();
    double a = 0;
    for (int b = threadIdx.x; b < (int)gridDim.x; b += blockDim.x) a += __ldcg(p + b);
    s[threadIdx.x] = a;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
      if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
      __syncthreads();
    }
    v = s[0] * 1e-3;
    __syncthreads();
  }
  if (v == -1) *sink = v;
}

#define CALL(x)                                                                                  \
  do {                                                                                           \
    cudaError_t e_ = (x);                                                                        \
    if (e_ != cudaSuccess) {                                                                     \
      fprintf(stderr, "fesim-bench-barrier: %s: %s\n", #x, cudaGetErrorString(e_));              \
      return 4;                                                                                  \
    }                                                                                            \
  } while (0)

int main(int argc, char **argv)
{
  char *end = NULL;
  int barriers = argc > 1 ? (int)strtol(argv[1], &end, 10) : 2000;
  if (argc > 2 || (argc > 1 && (*end || barriers < 1))) {
    fprintf(stderr, "usage: fesim-bench-barrier [BARRIERS >= 1]\n");
    return 1;
  }
  int cooperative = 0, sms = 0;
  CALL(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, 0));
  CALL(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  if (!cooperative) {
    fprintf(stderr, "fesim-bench-barrier: the GPU launches no cooperative kernels\n");
    return 4;
  }
  double *sink, *partials;
  CALL(cudaMalloc(&sink, sizeof(double)));
  CALL(cudaMalloc(&partials, 2048 * sizeof(double)));
  cudaEvent_t start, stop;
  CALL(cudaEventCreate(&start));
  CALL(cudaEventCreate(&stop));
  const int grids[] = {10, 40, sms, 2 * sms, 3 * sms};
  const char *names[] = {"grid_sync", "hand_made", "grid_sync_and_sums"};
  const void *kernels[] = {(const void *)grid_sync, (const void *)hand_made,
                           (const void *)sync_and_sum};
  printf("blocks,variant,seconds_per_barrier\n");
  for (int g = 0; g < 5; g++)
    for (int k = 0; k < 3; k++) {
      int per_sm = 0;
      CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernels[k], THREADS, 0));
      if (grids[g] > per_sm * sms) continue; /* not resident together */
      void *args2[] = {&barriers, &sink}, *args3[] = {&barriers, &partials, &sink};
      float ms = 0;
      for (int rep = 0; rep < 2; rep++) { /* the first warms up */
        CALL(cudaEventRecord(start));
        CALL(cudaLaunchCooperativeKernel(kernels[k], grids[g], THREADS, k == 2 ? args3 : args2));
        CALL(cudaEventRecord(stop));
        CALL(cudaEventSynchronize(stop));
        CALL(cudaEventElapsedTime(&ms, start, stop));
      }
      printf("%d,%s,%.4e\n", grids[g], names[k], 1e-3 * ms / barriers);
    }
  return 0;
}
