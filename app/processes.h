/* The processes of a run: this one alone, or the K that `mpirun -n K fesim case.xml` started
 * (MPI, where fesim is built with it).  Process 0 prints; the others' output is held back, and
 * shown, naming the process, only when it fails alone. */
#ifndef FE_PROCESSES_H
#define FE_PROCESSES_H

#include <stdio.h>

#include "app/run.h"
#include "solvers/comm.h"

struct fe_processes {
  int rank, size;
  struct fe_comm *comm; /* NULL: one process */
  int saved_stderr;     /* the others: their stderr, while theirs goes to `held` */
  FILE *held;
};

/* Started by a launcher (mpirun's environment: OMPI_COMM_WORLD_SIZE, PMI_SIZE) with more than
 * one process: MPI set up and a communicator of them all.  FE_ERR_USAGE when fesim is built
 * without MPI; FE_ERR_RESOURCE when MPI fails. */
int fe_processes_start(int *argc, char ***argv, struct fe_processes *p);

/* The end of the run whose result is err on this process, and the exit code: the errors that
 * every process meets at the same point (bad input, a solver that fails, a stop signal, and
 * those agreed by every process: report->agreed) end every process with their code, reported
 * by process 0 (or, where it did not fail, by the processes that did, each named); any other
 * (out of memory, a file that cannot be written) may be this process's alone: its message is
 * shown, naming the process, and MPI_Abort stops every process with its code. */
int fe_processes_finish(struct fe_processes *p, int err, const struct fe_run_report *report);

#endif
