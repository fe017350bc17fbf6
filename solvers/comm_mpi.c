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

static const struct fe_comm_ops ops_mpi = {
    .allreduce = allreduce_mpi,
    .allreduce_sum_device = allreduce_sum_device_mpi,
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
