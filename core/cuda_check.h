/* Checks of CUDA runtime and cuSPARSE calls, and of kernel launches, for the
 * .cu files. */
#ifndef FE_CUDA_CHECK_H
#define FE_CUDA_CHECK_H

#include <cuda_runtime.h>
#include <cusparse.h>

#include "core/error.h"

#define FE_CUDA_CALL(expr)                                                                   \
  do {                                                                                       \
    cudaError_t fe_cuda_err_ = (expr);                                                       \
    if (fe_cuda_err_ != cudaSuccess)                                                         \
      return fe_error_raise(FE_ERR_RESOURCE, __FILE__, __LINE__, "CUDA error in %s: %s", #expr, \
                            cudaGetErrorString(fe_cuda_err_));                               \
  } while (0)

#define FE_CUSPARSE_CALL(expr)                                                               \
  do {                                                                                       \
    cusparseStatus_t fe_sp_err_ = (expr);                                                    \
    if (fe_sp_err_ != CUSPARSE_STATUS_SUCCESS)                                               \
      return fe_error_raise(FE_ERR_RESOURCE, __FILE__, __LINE__, "cuSPARSE error in %s: %s", \
                            #expr, cusparseGetErrorString(fe_sp_err_));                      \
  } while (0)

/* After a launch: the launch itself failed (bad configuration) or, with
 * FESIM_CUDA_SYNC set, the kernel failed. */
#define FE_CUDA_LAUNCHED(name)                                                               \
  do {                                                                                       \
    cudaError_t fe_cuda_err_ = cudaGetLastError();                                           \
    if (fe_cuda_err_ == cudaSuccess && fe_cuda_sync_launches())                              \
      fe_cuda_err_ = cudaDeviceSynchronize();                                                \
    if (fe_cuda_err_ != cudaSuccess)                                                         \
      return fe_error_raise(FE_ERR_RESOURCE, __FILE__, __LINE__, "CUDA kernel %s failed: %s", \
                            name, cudaGetErrorString(fe_cuda_err_));                         \
  } while (0)

int fe_cuda_sync_launches(void);

/* Blocks for a grid-stride loop over n items. */
static inline unsigned fe_cuda_blocks(size_t n, unsigned threads)
{
  size_t b = (n + threads - 1) / threads;
  return (unsigned)(b < 1 ? 1 : b > 65535u * 16 ? 65535u * 16 : b);
}

#endif
