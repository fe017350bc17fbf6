/* Test helper of the MPI programs (test_mpi_*.c): MPI started, the communicator of every process,
 * and two backends: a CPU backend of this process alone (the whole mesh's reference) and one of
 * every process (the parts): the CPU's, or with the argument `cuda` the CUDA backend, a GPU per
 * process (NCCL), where every process has a GPU of its own (else the program skips: 77). */
#ifndef FE_MPI_BACKENDS_H
#define FE_MPI_BACKENDS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backends.h"
#include "solvers/comm_mpi.h"
#include "test.h"
#ifdef FESIM_HAVE_CUDA
#include "backends/cuda/cuda.h"
#endif

struct mpi_backends {
  struct fe_comm *comm;
  struct fe_backend *self, *all;
};

/* Whether every process has a GPU of its own: the fewest GPUs a process sees, at least as
 * many as the processes of the most crowded node (one node here). */
static inline int mpi_backends_gpus(int processes)
{
  int gpus = 0;
#ifdef FESIM_HAVE_CUDA
  gpus = fe_cuda_device_count();
#endif
  MPI_Allreduce(MPI_IN_PLACE, &gpus, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return gpus >= processes;
}

/* 1 when both backends were made; exits 77 (skipped) on every process where `cuda` is asked for
 * without a GPU for each. */
static inline int mpi_backends_start(int *argc, char ***argv, struct mpi_backends *b)
{
  MPI_Init(argc, argv);
  *b = (struct mpi_backends){0};
  CHECK_OK(fe_comm_mpi_create(MPI_COMM_WORLD, &b->comm));
  const enum fe_backend_kind kind =
      *argc > 1 && !strcmp((*argv)[1], "cuda") ? FE_BACKEND_CUDA : FE_BACKEND_CPU;
  if (kind == FE_BACKEND_CUDA && b->comm && !mpi_backends_gpus(b->comm->size)) {
    if (b->comm->rank == 0) printf("FESIM_SKIP: fewer GPUs than the %d processes\n", b->comm->size);
    fe_comm_mpi_destroy(b->comm);
    MPI_Finalize();
    exit(77);
  }
  const struct fe_backend_options one = {.device = -1}, all = {.device = -1, .comm = b->comm};
  CHECK_OK(fe_backend_create(FE_BACKEND_CPU, &one, &b->self));
  if (b->comm) CHECK_OK(fe_backend_create(kind, &all, &b->all));
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
