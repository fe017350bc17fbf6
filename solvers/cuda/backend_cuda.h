/* The CUDA backend's context, shared by the .cu files. */
#ifndef FE_BACKEND_CUDA_H
#define FE_BACKEND_CUDA_H

#include <cusparse.h>

#include "solvers/backend.h"

#define FE_REDUCE_BLOCKS 1024
#define FE_REDUCE_THREADS 256

struct fe_cuda_ctx {
  int device;
  char name[256];
  double *partials; /* FE_REDUCE_BLOCKS * 3: per-block partial reductions */
  double *result;   /* 3 doubles on the device */
  unsigned *done_blocks; /* blocks of the running reduction that have written their partials */
  double *host;     /* 3 doubles, pinned */
  double *slots;    /* 2 doubles, pinned: scalar_post / scalar_wait */
  cudaEvent_t slot_ready[2];
  cusparseHandle_t sparse;
  int element_epb[2], element_tpe[2]; /* element kernel of 2D, 3D: elements per block,
                                         threads per element; 0, 0: one thread per element */
  struct fe_backend backend;
};

static inline struct fe_cuda_ctx *fe_cuda_ctx(const struct fe_backend *be)
{
  return (struct fe_cuda_ctx *)be->ctx;
}

#endif
