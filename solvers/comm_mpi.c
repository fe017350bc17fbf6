#include "solvers/comm_mpi.h"

#include <stdlib.h>

#include "core/error.h"

static int mpi_error(int rc, const char *what)
{
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(rc, text, &len);
  FE_RAISE(FE_ERR_RESOURCE, "MPI: %s failed: %s", what, text);
}

static MPI_Comm mpi_of(const struct fe_comm *comm) { return *(const MPI_Comm *)comm->ctx; }

static int allreduce_mpi(const struct fe_comm *comm, double *v, int n, enum fe_reduce op)
{
  static const MPI_Op ops[] = {
      [FE_REDUCE_SUM] = MPI_SUM, [FE_REDUCE_MIN] = MPI_MIN, [FE_REDUCE_MAX] = MPI_MAX};
  const int rc = MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, ops[op], mpi_of(comm));
  return rc == MPI_SUCCESS ? FE_SUCCESS : mpi_error(rc, "MPI_Allreduce");
}

/* The backend's memory is the host's (the CPU backend): the same reduction. */
static int allreduce_sum_device_mpi(const struct fe_comm *comm, double *v, int n)
{
  return allreduce_mpi(comm, v, n, FE_REDUCE_SUM);
}

enum { HALO_TAG = 7 };

/* Every receive posted first, then the sends, then all waited for. */
static int exchange_mpi(const struct fe_comm *comm, int n, const int *ranks, const double *send,
                        const int *send_ptr, double *recv, const int *recv_ptr)
{
  MPI_Request *req;
  FE_CALLOC(2 * n + 1, &req);
  int rc = MPI_SUCCESS;
  for (int k = 0; k < n && rc == MPI_SUCCESS; k++)
    rc = MPI_Irecv(recv + recv_ptr[k], recv_ptr[k + 1] - recv_ptr[k], MPI_DOUBLE, ranks[k],
                   HALO_TAG, mpi_of(comm), &req[k]);
  for (int k = 0; k < n && rc == MPI_SUCCESS; k++)
    rc = MPI_Isend(send + send_ptr[k], send_ptr[k + 1] - send_ptr[k], MPI_DOUBLE, ranks[k],
                   HALO_TAG, mpi_of(comm), &req[n + k]);
  if (rc == MPI_SUCCESS) rc = MPI_Waitall(2 * n, req, MPI_STATUSES_IGNORE);
  free(req);
  return rc == MPI_SUCCESS ? FE_SUCCESS : mpi_error(rc, "the halo exchange");
}

static int gather_mpi(const struct fe_comm *comm, const double *send, int count, double *recv,
                      const int *counts, const int *displs)
{
  const int rc = MPI_Gatherv(send, count, MPI_DOUBLE, recv, counts, displs, MPI_DOUBLE, 0,
                             mpi_of(comm));
  return rc == MPI_SUCCESS ? FE_SUCCESS : mpi_error(rc, "MPI_Gatherv");
}

static int bcast_mpi(const struct fe_comm *comm, void *bytes, int n)
{
  const int rc = MPI_Bcast(bytes, n, MPI_BYTE, 0, mpi_of(comm));
  return rc == MPI_SUCCESS ? FE_SUCCESS : mpi_error(rc, "MPI_Bcast");
}

static int scatter_mpi(const struct fe_comm *comm, const double *send, const int *counts,
                       const int *displs, double *recv, int count)
{
  const int rc = MPI_Scatterv(send, counts, displs, MPI_DOUBLE, recv, count, MPI_DOUBLE, 0,
                              mpi_of(comm));
  return rc == MPI_SUCCESS ? FE_SUCCESS : mpi_error(rc, "MPI_Scatterv");
}

enum { SEND_TAG = 8 };

static int send_mpi(const struct fe_comm *comm, int to, void *bytes, int n)
{
  int rc = MPI_SUCCESS;
  if (comm->rank == 0)
    rc = MPI_Send(bytes, n, MPI_BYTE, to, SEND_TAG, mpi_of(comm));
  else if (comm->rank == to)
    rc = MPI_Recv(bytes, n, MPI_BYTE, 0, SEND_TAG, mpi_of(comm), MPI_STATUS_IGNORE);
  return rc == MPI_SUCCESS ? FE_SUCCESS : mpi_error(rc, "a message from process 0");
}

static const struct fe_comm_ops ops_mpi = {
    .allreduce = allreduce_mpi,
    .allreduce_sum_device = allreduce_sum_device_mpi,
    .exchange = exchange_mpi,
    .gather = gather_mpi,
    .bcast = bcast_mpi,
    .scatter = scatter_mpi,
    .send = send_mpi,
};

int fe_comm_mpi_create(MPI_Comm mpi_comm, struct fe_comm **out)
{
  struct fe_comm *comm;
  MPI_Comm *own;
  FE_CALLOC(1, &comm);
  int err = fe_calloc(1, sizeof *own, &own);
  int rc = err ? MPI_SUCCESS : MPI_Comm_dup(mpi_comm, own);
  if (!err && rc != MPI_SUCCESS) err = mpi_error(rc, "MPI_Comm_dup");
  if (err) {
    free(own);
    free(comm);
    return err;
  }
  *comm = (struct fe_comm){.ops = &ops_mpi, .ctx = own};
  MPI_Comm_rank(*own, &comm->rank);
  MPI_Comm_size(*own, &comm->size);
  /* the rank among the processes that share this host's memory, whatever the launcher */
  MPI_Comm host;
  rc = MPI_Comm_split_type(*own, MPI_COMM_TYPE_SHARED, comm->rank, MPI_INFO_NULL, &host);
  if (rc != MPI_SUCCESS) {
    fe_comm_mpi_destroy(comm);
    return mpi_error(rc, "MPI_Comm_split_type");
  }
  MPI_Comm_rank(host, &comm->local_rank);
  MPI_Comm_free(&host);
  *out = comm;
  return FE_SUCCESS;
}

void fe_comm_mpi_destroy(struct fe_comm *comm)
{
  if (!comm) return;
  MPI_Comm_free((MPI_Comm *)comm->ctx);
  free(comm->ctx);
  free(comm);
}
