/* The CUDA backend, when fesim is built with it. */
#ifndef FE_CUDA_H
#define FE_CUDA_H

#include "solvers/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable CUDA devices (0 when none or no driver), without printing. */
int fe_cuda_device_count(void);
/* Create the backend on device 0; FE_ERR_RESOURCE naming the reason when no
 * usable GPU is present. */
int fe_backend_cuda_create(struct fe_backend **be);
void fe_backend_cuda_destroy(struct fe_backend *be);
/* "NVIDIA H100 80GB HBM3 (sm_90, 79.1 GiB)" */
const char *fe_backend_cuda_describe(const struct fe_backend *be);

#ifdef __cplusplus
}
#endif

#endif
