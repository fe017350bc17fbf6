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

/* The element-matrix kernel of dimension d: EPB elements per block and TPE
 * threads per element (two-level), or 0, 0 for one thread per element.
 * FE_ERR_USAGE for a variant that is not compiled (see fe_cuda_element_variant). */
int fe_backend_cuda_set_element_kernel(struct fe_backend *be, int d, int epb, int tpe);
/* The k-th compiled variant of dimension d; 0 when k is past the last. */
int fe_cuda_element_variant(int d, int k, int *epb, int *tpe);

#ifdef __cplusplus
}
#endif

#endif
