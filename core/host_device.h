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

#endif
