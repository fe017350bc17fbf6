/* The CUDA backend's entry points for the registry (backends/backends.c), in
 * C: its kernels and context are private (backend_cuda.h). */
#ifndef FE_CUDA_H
#define FE_CUDA_H

#include "solvers/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable CUDA devices (0 when none or no driver), without printing. */
int fe_cuda_device_count(void);
/* The backend on GPU `device` (-1: the one of comm->local_rank, the process's rank on its
 * host, modulo the devices; 0 for one process), with its own stream; FE_ERR_RESOURCE naming the reason when
 * no usable GPU is present.  comm: the run's processes (NULL: this one); on
 * several, an NCCL communicator of their GPUs for the device reductions and
 * the halo's exchanges, the host's values through comm. */
int fe_backend_cuda_create(int device, const struct fe_comm *comm, struct fe_backend **be);

/* The CUDA driver and GPU `device`'s context (chosen as fe_backend_cuda_create chooses it) started
 * on a thread of its own: fe_backend_warm_up (backends/backends.h).  NULL when no thread could
 * be had. */
struct fe_backend_warm_up *fe_cuda_warm_up(int device, int local_rank);
/* Waits for it; the seconds the start took on its thread.  Frees it. */
double fe_cuda_warm_up_end(struct fe_backend_warm_up *w);

#ifdef __cplusplus
}
#endif

#endif
