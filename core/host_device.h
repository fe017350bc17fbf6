/* FE_HOST_DEVICE marks the static inline functions that both the C compiler
 * and nvcc build (element math, per-node loops, expression programs), so that
 * every backend computes from one source. */
#ifndef FE_HOST_DEVICE_H
#define FE_HOST_DEVICE_H

#ifdef __CUDACC__
#define FE_HOST_DEVICE __host__ __device__
#else
#define FE_HOST_DEVICE
#endif

/* Before a loop whose bounds are constant once a kernel is compiled for a dimension (the
 * element math's loops over vertices and entries): unrolled by nvcc, which otherwise keeps
 * some as loops whose reference-tensor reads then take computed addresses. */
#ifdef __CUDA_ARCH__
#define FE_UNROLL _Pragma("unroll")
#else
#define FE_UNROLL
#endif

/* a * b + c rounded after each operation: nvcc would fuse it into one FMA, and a GPU result
 * would then differ from the CPU's in the last bit. */
FE_HOST_DEVICE static inline double fe_mul_add(double a, double b, double c)
{
#ifdef __CUDA_ARCH__
  return __dadd_rn(__dmul_rn(a, b), c);
#else
  return a * b + c;
#endif
}

/* A value read once in a pass over an array far larger than the caches (the stored element
 * matrices of an apply): on the GPU a streaming load (evict first), so that it does not push
 * out of L2 what the pass reads again (the gathered x, the scattered y). */
FE_HOST_DEVICE static inline double fe_load_once(const double *p)
{
#ifdef __CUDA_ARCH__
  return __ldcs(p);
#else
  return *p;
#endif
}

#endif
