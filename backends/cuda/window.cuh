/* The device side of the NCCL windows of a run on several processes (backends/cuda/comm.cu):
 * the words by which the GPUs pass values into each other's windows (the halo's updates), and
 * the sums over the processes that comm.cu's sum kernel and CG's reductions (cg.cu) make by
 * the GPUs' own loads and stores.
 *
 * The values travel as NCCL's LL protocol sends them: each 8-byte word half a value and the
 * operation's tag (the count of the operations through the window before it, plus one, in 32
 * bits), so that a word that holds the tag is whole and current: no fence before a flag and no
 * flag to cross the link after the values (docs/performance.md, "LL words").  An operation's words
 * alternate between two halves of the window, so that a process writes the next operation's while
 * another still reads this one's, and never the half another reads: before it writes that half
 * again it has read a word of the operation in between from every process it writes to, which that
 * process wrote after it had read.  The tag differs from the one the half held before (two
 * operations earlier) and from a fresh window's zeros. */
#ifndef FE_WINDOW_CUH
#define FE_WINDOW_CUH

#include <cuda/atomic>
#include <nccl_device.h>

#include "backends/cuda/backend_cuda.h"

/* An LL word: 32 bits of a value below the tag */
typedef unsigned long long fe_ll_word;

/* Where channel c's words from process `from` start in half k & 1 of the sums' window: two
 * halves of FE_SUMS_CHANNELS * size * FE_SUMS_MAX values, two words each. */
static __device__ inline size_t sums_at(int size, int channel, int from, unsigned long long k)
{
  const size_t value = 2 * sizeof(fe_ll_word),
               half = (size_t)FE_SUMS_CHANNELS * size * FE_SUMS_MAX * value;
  return (size_t)(k & 1) * half + ((size_t)channel * size + from) * FE_SUMS_MAX * value;
}

/* Value v as the two words of tag t at w (another process's memory: relaxed stores, each
 * word whole) */
static __device__ inline void ll_store(fe_ll_word *w, double v, unsigned t)
{
  const unsigned long long bits = (unsigned long long)__double_as_longlong(v);
  const fe_ll_word tag = (fe_ll_word)t << 32;
  cuda::atomic_ref<fe_ll_word, cuda::thread_scope_system>(w[0]).store(tag | (bits & 0xffffffffull),
                                                                      cuda::memory_order_relaxed);
  cuda::atomic_ref<fe_ll_word, cuda::thread_scope_system>(w[1]).store(tag | (bits >> 32),
                                                                      cuda::memory_order_relaxed);
}

/* A word of tag t and no value at w: a mark */
static __device__ inline void ll_mark(fe_ll_word *w, unsigned t)
{
  cuda::atomic_ref<fe_ll_word, cuda::thread_scope_system>(*w).store((fe_ll_word)t << 32,
                                                                    cuda::memory_order_relaxed);
}

/* The word at w (this process's memory) once it holds tag t */
static __device__ inline fe_ll_word ll_await(fe_ll_word *w, unsigned t)
{
  fe_ll_word word;
  do
    word = cuda::atomic_ref<fe_ll_word, cuda::thread_scope_system>(*w).load(
        cuda::memory_order_relaxed);
  while ((unsigned)(word >> 32) != t);
  return word;
}

/* The value of tag t at w (this process's memory), once both its words hold the tag */
static __device__ inline double ll_load(fe_ll_word *w, unsigned t)
{
  const fe_ll_word lo = ll_await(w, t), hi = ll_await(w + 1, t);
  return __longlong_as_double((long long)((hi << 32) | (lo & 0xffffffffull)));
}

/* The sums over the processes of v[0 .. N) (N <= FE_SUMS_MAX) through channel `channel` of the
 * sums' window, by one block whose threads all call it and all hold the same v: every
 * process's values into every process's window (LL words); then each thread adds the
 * processes' values in rank order, so that every process, and every thread, holds the same
 * bits.  Nothing where s.win is NULL (one process, or NCCL's calls made apart).  A channel's
 * operations follow each other in launch order (one at a time).  N is a constant so that v
 * stays in registers: a reduction kernel's running sums are its v. */
template <int N>
static __device__ void fe_window_sum(const struct fe_cuda_sums s, int channel, double *v)
{
  if (!s.win) return;
  const unsigned long long k = s.count[channel];
  const unsigned tag = (unsigned)(k + 1);
  for (int to = threadIdx.x; to < s.size; to += blockDim.x) {
    fe_ll_word *in =
        (fe_ll_word *)ncclGetLsaPointer(s.win, sums_at(s.size, channel, s.rank, k), to);
#pragma unroll
    for (int i = 0; i < N; i++) ll_store(in + 2 * i, v[i], tag);
  }
  double sum[N];
#pragma unroll
  for (int i = 0; i < N; i++) sum[i] = 0;
  for (int r = 0; r < s.size; r++) {
    fe_ll_word *in = (fe_ll_word *)ncclGetLocalPointer(s.win, sums_at(s.size, channel, r, k));
#pragma unroll
    for (int i = 0; i < N; i++) sum[i] += ll_load(in + 2 * i, tag);
  }
#pragma unroll
  for (int i = 0; i < N; i++) v[i] = sum[i];
  __syncthreads(); /* every thread has read k */
  if (threadIdx.x == 0) s.count[channel] = k + 1;
}

#endif
