/* The CUDA backend on several processes: one GPU per process, their NCCL communicator made from
 * an id that process 0 draws and the host communicator broadcasts.  Device sums (CG's scalars)
 * and the halo's exchanges go through NCCL on the backend's stream, so that a solve needs no
 * host round trip; host values (stat reductions, the gather of the outputs) through the host
 * communicator (MPI). */
#include <cstdio>
#include <cstring>

#include "backends/cuda/backend_cuda.h"
#include "core/cuda_check.h"
#include "core/error.h"
#include "solvers/halo.h"

static int nccl_error(ncclResult_t r, const char *what)
{
  FE_RAISE(FE_ERR_RESOURCE, "NCCL: %s failed: %s", what, ncclGetErrorString(r));
}

#define FE_NCCL_CALL(expr, what)                                                             \
  do {                                                                                       \
    const ncclResult_t fe_nccl_r_ = (expr);                                                  \
    if (fe_nccl_r_ != ncclSuccess) return nccl_error(fe_nccl_r_, what);                       \
  } while (0)

static struct fe_cuda_ctx *ctx_of(const struct fe_comm *comm) { return (struct fe_cuda_ctx *)comm->ctx; }

static int allreduce(const struct fe_comm *comm, double *v, int n, enum fe_reduce op)
{
  return fe_comm_allreduce(ctx_of(comm)->host_comm, v, n, op);
}

static int allreduce_sum_device(const struct fe_comm *comm, double *v, int n)
{
  const struct fe_cuda_ctx *c = ctx_of(comm);
  FE_NCCL_CALL(ncclAllReduce(v, v, (size_t)n, ncclDouble, ncclSum, c->nccl, c->stream),
               "ncclAllReduce");
  return FE_SUCCESS;
}

static int exchange(const struct fe_comm *comm, int n, const int *ranks, const double *send,
                    const int *send_ptr, double *recv, const int *recv_ptr)
{
  return fe_comm_exchange(ctx_of(comm)->host_comm, n, ranks, send, send_ptr, recv, recv_ptr);
}

static int gather(const struct fe_comm *comm, const double *send, int count, double *recv,
                  const int *counts, const int *displs)
{
  return fe_comm_gather(ctx_of(comm)->host_comm, send, count, recv, counts, displs);
}

static int bcast(const struct fe_comm *comm, void *bytes, int n)
{
  return fe_comm_bcast(ctx_of(comm)->host_comm, bytes, n);
}

static const struct fe_comm_ops ops_nccl = {
    .allreduce = allreduce,
    .allreduce_sum_device = allreduce_sum_device,
    .exchange = exchange,
    .gather = gather,
    .bcast = bcast,
};

int fe_cuda_comm_create(struct fe_cuda_ctx *c, const struct fe_comm *host)
{
  c->host_comm = host;
  ncclUniqueId id;
  if (host->rank == 0) FE_NCCL_CALL(ncclGetUniqueId(&id), "ncclGetUniqueId");
  FE_CALL(fe_comm_bcast(host, &id, (int)sizeof id));
  FE_NCCL_CALL(ncclCommInitRank(&c->nccl, host->size, id, host->rank), "ncclCommInitRank");
  c->comm = (struct fe_comm){host->rank, host->size, host->local_rank, &ops_nccl, c};
  c->backend.comm = &c->comm;
  snprintf(c->backend.description + strlen(c->backend.description),
           sizeof c->backend.description - strlen(c->backend.description), ", NCCL %d",
           NCCL_VERSION_CODE);
  return FE_SUCCESS;
}

/* Finalised before it is destroyed, after the stream's work (a destroy alone hung in a probe). */
void fe_cuda_comm_destroy(struct fe_cuda_ctx *c)
{
  if (!c->nccl) return;
  cudaStreamSynchronize(c->stream);
  ncclCommFinalize(c->nccl);
  ncclCommDestroy(c->nccl);
  c->nccl = NULL;
}

/* buf[i * ncomp + k] = x[idx[i] * ncomp + k] */
__global__ void pack_kernel(long n, const int *idx, int ncomp, const double *x, double *buf)
{
  const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int k = 0; k < ncomp; k++) buf[i * ncomp + k] = x[(long)idx[i] * ncomp + k];
}

/* x[idx[i]] += buf[i], i < n: one neighbour's list (no entry twice) */
__global__ void add_kernel(long n, const int *idx, const double *buf, double *x)
{
  const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) x[idx[i]] += buf[i];
}

/* The owned entries each neighbour has as ghosts packed on the device, sent, and received
 * straight into the ghosts (those of a neighbour are contiguous), one NCCL group. */
int fe_cuda_halo_update(const struct fe_halo *h, int ncomp, double *x)
{
  const struct fe_cuda_ctx *c = fe_cuda_ctx(h->be);
  const int nb = h->n_neighbours;
  const long n_send = h->send_ptr[nb];
  if (n_send) {
    pack_kernel<<<(unsigned)((n_send + 255) / 256), 256, 0, c->stream>>>(n_send, h->send, ncomp,
                                                                        x, h->buffer);
    FE_CUDA_LAUNCHED("pack_kernel");
  }
  FE_NCCL_CALL(ncclGroupStart(), "ncclGroupStart");
  for (int k = 0; k < nb; k++) {
    const size_t ns = (size_t)(h->send_ptr[k + 1] - h->send_ptr[k]) * ncomp;
    const size_t nr = (size_t)(h->recv_ptr[k + 1] - h->recv_ptr[k]) * ncomp;
    if (ns)
      FE_NCCL_CALL(ncclSend(h->buffer + (size_t)h->send_ptr[k] * ncomp, ns, ncclDouble,
                            h->neighbours[k], c->nccl, c->stream),
                   "ncclSend");
    if (nr)
      FE_NCCL_CALL(ncclRecv(x + ((size_t)h->n_owned + h->recv_ptr[k]) * ncomp, nr, ncclDouble,
                            h->neighbours[k], c->nccl, c->stream),
                   "ncclRecv");
  }
  FE_NCCL_CALL(ncclGroupEnd(), "ncclGroupEnd");
  return FE_SUCCESS;
}

/* The ghosts sent back to their owners, which add them neighbour by neighbour in rank order. */
int fe_cuda_halo_sum(const struct fe_halo *h, double *x)
{
  const struct fe_cuda_ctx *c = fe_cuda_ctx(h->be);
  const int nb = h->n_neighbours;
  FE_NCCL_CALL(ncclGroupStart(), "ncclGroupStart");
  for (int k = 0; k < nb; k++) {
    const size_t ns = (size_t)(h->recv_ptr[k + 1] - h->recv_ptr[k]);
    const size_t nr = (size_t)(h->send_ptr[k + 1] - h->send_ptr[k]);
    if (ns)
      FE_NCCL_CALL(ncclSend(x + h->n_owned + h->recv_ptr[k], ns, ncclDouble, h->neighbours[k],
                            c->nccl, c->stream),
                   "ncclSend");
    if (nr)
      FE_NCCL_CALL(ncclRecv(h->buffer + h->send_ptr[k], nr, ncclDouble, h->neighbours[k], c->nccl,
                            c->stream),
                   "ncclRecv");
  }
  FE_NCCL_CALL(ncclGroupEnd(), "ncclGroupEnd");
  for (int k = 0; k < nb; k++) {
    const long n = h->send_ptr[k + 1] - h->send_ptr[k];
    if (!n) continue;
    add_kernel<<<(unsigned)((n + 255) / 256), 256, 0, c->stream>>>(
        n, h->send + h->send_ptr[k], h->buffer + h->send_ptr[k], x);
    FE_CUDA_LAUNCHED("add_kernel");
  }
  return FE_SUCCESS;
}
