/* The communicator of a run on several processes, through MPI on the host (DESIGN.md,
 * "Ownership"): every reduction of host values, and those of "device" values when the
 * backend's memory is the host's (the CPU backend), the halo's exchanges of host values, the
 * gather of the outputs, the scatter of what process 0 reads of the whole mesh and the parts of
 * the mesh it sends.  The CUDA backend's device values go
 * through NCCL (backends/cuda/comm.cu), its host values through this communicator. */
#ifndef FE_COMM_MPI_H
#define FE_COMM_MPI_H

#include <mpi.h>

#include "solvers/comm.h"

/* A communicator over the processes of mpi_comm (duplicated: fesim's messages cannot meet
 * another library's).  FE_ERR_RESOURCE when MPI fails. */
int fe_comm_mpi_create(MPI_Comm mpi_comm, struct fe_comm **comm);
void fe_comm_mpi_destroy(struct fe_comm *comm);

#endif
