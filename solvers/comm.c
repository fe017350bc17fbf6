#include "solvers/comm.h"

#include "core/error.h"

static int allreduce_self(const struct fe_comm *comm, double *v, int n, enum fe_reduce op)
{
  (void)comm, (void)v, (void)n, (void)op;
  return FE_SUCCESS;
}

static int allreduce_sum_device_self(const struct fe_comm *comm, double *v, int n)
{
  (void)comm, (void)v, (void)n;
  return FE_SUCCESS;
}

/* One process has no neighbours. */
static int exchange_self(const struct fe_comm *comm, int n, const int *ranks, const double *send,
                         const int *send_ptr, double *recv, const int *recv_ptr)
{
  (void)comm, (void)ranks, (void)send, (void)send_ptr, (void)recv, (void)recv_ptr;
  FE_CHECK(n == 0, FE_ERR_USAGE, "a halo exchange with %d neighbours on one process", n);
  return FE_SUCCESS;
}

/* One process's gather and scatter: its own values. */
static void copy_values(const double *send, int count, double *recv)
{
  if (recv != send)
    for (int i = 0; i < count; i++) recv[i] = send[i];
}

static int gather_self(const struct fe_comm *comm, const double *send, int count, double *recv,
                       const int *counts, const int *displs)
{
  (void)comm, (void)counts, (void)displs;
  copy_values(send, count, recv);
  return FE_SUCCESS;
}

static int bcast_self(const struct fe_comm *comm, void *bytes, int n)
{
  (void)comm, (void)bytes, (void)n;
  return FE_SUCCESS;
}

static int scatter_self(const struct fe_comm *comm, const double *send, const int *counts,
                        const int *displs, double *recv, int count)
{
  (void)comm, (void)counts, (void)displs;
  copy_values(send, count, recv);
  return FE_SUCCESS;
}

static int send_self(const struct fe_comm *comm, int to, void *bytes, int n)
{
  (void)comm, (void)bytes, (void)n;
  FE_RAISE(FE_ERR_USAGE, "a message to process %d of a run on one process", to);
}

static const struct fe_comm_ops ops_self = {
    .allreduce = allreduce_self,
    .allreduce_sum_device = allreduce_sum_device_self,
    .exchange = exchange_self,
    .gather = gather_self,
    .bcast = bcast_self,
    .scatter = scatter_self,
    .send = send_self,
};

static const struct fe_comm comm_self = {.rank = 0, .size = 1, .local_rank = 0, .ops = &ops_self, .ctx = 0};

const struct fe_comm *fe_comm_self(void) { return &comm_self; }

int fe_comm_allreduce(const struct fe_comm *comm, double *v, int n, enum fe_reduce op)
{
  return comm->size == 1 ? FE_SUCCESS : comm->ops->allreduce(comm, v, n, op);
}

int fe_comm_allreduce_sum_device(const struct fe_comm *comm, double *v, int n)
{
  return comm->size == 1 ? FE_SUCCESS : comm->ops->allreduce_sum_device(comm, v, n);
}

int fe_comm_exchange(const struct fe_comm *comm, int n, const int *ranks, const double *send,
                     const int *send_ptr, double *recv, const int *recv_ptr)
{
  return comm->ops->exchange(comm, n, ranks, send, send_ptr, recv, recv_ptr);
}

int fe_comm_bcast(const struct fe_comm *comm, void *bytes, int n)
{
  return comm->ops->bcast(comm, bytes, n);
}

int fe_comm_gather(const struct fe_comm *comm, const double *send, int count, double *recv,
                   const int *counts, const int *displs)
{
  return comm->ops->gather(comm, send, count, recv, counts, displs);
}

int fe_comm_scatter(const struct fe_comm *comm, const double *send, const int *counts,
                    const int *displs, double *recv, int count)
{
  return comm->ops->scatter(comm, send, counts, displs, recv, count);
}

int fe_comm_send(const struct fe_comm *comm, int to, void *bytes, int n)
{
  return comm->ops->send(comm, to, bytes, n);
}

int fe_comm_root_status(const struct fe_comm *comm, int err)
{
  FE_CALL(fe_comm_bcast(comm, &err, (int)sizeof err));
  return err;
}
