/* Test helper of the MPI programs (test_mpi_*.c): MPI started, the communicator of every process,
 * and two CPU backends: one of this process alone (the whole mesh's reference) and one of every
 * process (the parts). */
#ifndef FE_MPI_BACKENDS_H
#define FE_MPI_BACKENDS_H

#include "backends/backends.h"
#include "solvers/comm_mpi.h"
#include "test.h"

struct mpi_backends {
  struct fe_comm *comm;
  struct fe_backend *self, *all;
};

/* 1 when both backends were made. */
static inline int mpi_backends_start(int *argc, char ***argv, struct mpi_backends *b)
{
  MPI_Init(argc, argv);
  *b = (struct mpi_backends){0};
  CHECK_OK(fe_comm_mpi_create(MPI_COMM_WORLD, &b->comm));
  const struct fe_backend_options one = {.device = -1}, all = {.device = -1, .comm = b->comm};
  CHECK_OK(fe_backend_create(FE_BACKEND_CPU, &one, &b->self));
  if (b->comm) CHECK_OK(fe_backend_create(FE_BACKEND_CPU, &all, &b->all));
  return b->self && b->all;
}

static inline void mpi_backends_end(struct mpi_backends *b)
{
  fe_backend_destroy(b->self);
  fe_backend_destroy(b->all);
  fe_comm_mpi_destroy(b->comm);
  MPI_Finalize();
}

#endif
