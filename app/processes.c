#include "app/processes.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"

#ifdef FESIM_HAVE_MPI
#include <mpi.h>

#include "solvers/comm_mpi.h"
#endif

/* The processes a launcher started, from its environment (Open MPI's, or MPICH's and Slurm's
 * PMI); 1 without one. */
static int launched(void)
{
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
    const char *v = getenv(vars[i]);
    if (v && atoi(v) > 0) return atoi(v);
  }
  return 1;
}

#ifdef FESIM_HAVE_MPI
/* Processes other than 0: stdout dropped, stderr held in a temporary file. */
static void hold_output(struct fe_processes *p)
{
  fflush(stdout);
  fflush(stderr);
  p->held = tmpfile();
  p->saved_stderr = dup(STDERR_FILENO);
  if (!freopen("/dev/null", "w", stdout)) clearerr(stdout);
  if (p->held && p->saved_stderr >= 0) dup2(fileno(p->held), STDERR_FILENO);
}

/* The errors a failing process other than 0 reported, each naming it, on its own stderr (its
 * warnings and notes are process 0's too; a process that stops for another's error has none). */
static void show_held(const struct fe_processes *p)
{
  if (!p->held || p->saved_stderr < 0) return;
  fflush(stderr);
  dup2(p->saved_stderr, STDERR_FILENO);
  rewind(p->held);
  char line[4096];
  while (fgets(line, sizeof line, p->held))
    if (!strncmp(line, "fesim: error: ", 14))
      fprintf(stderr, "fesim: process %d of %d: %s", p->rank, p->size, line + 7);
  fflush(stderr);
}
#endif

int fe_processes_start(int *argc, char ***argv, struct fe_processes *p)
{
  *p = (struct fe_processes){.rank = 0, .size = 1, .saved_stderr = -1};
  const int size = launched();
  if (size == 1) return FE_SUCCESS;
#ifdef FESIM_HAVE_MPI
  if (MPI_Init(argc, argv) != MPI_SUCCESS)
    FE_RAISE(FE_ERR_RESOURCE, "MPI_Init failed on one of %d processes", size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int err = fe_comm_mpi_create(MPI_COMM_WORLD, &p->comm);
  if (err) {
    MPI_Abort(MPI_COMM_WORLD, err);
    return err;
  }
  p->rank = p->comm->rank;
  p->size = p->comm->size;
  if (p->rank) hold_output(p);
  return FE_SUCCESS;
#else
  (void)argc, (void)argv;
  FE_RAISE(FE_ERR_USAGE,
           "started as one of %d processes, but this fesim is built without MPI; rebuild it with "
           "MPI (tools/setup.sh installs it) or run one process",
           size);
#endif
}

int fe_processes_finish(struct fe_processes *p, int err, const struct fe_run_report *report)
{
  if (!p->comm) return err;
#ifdef FESIM_HAVE_MPI
  const int agreed = err && report->agreed;
  const int together = err == FE_SUCCESS || err == FE_ERR_USAGE || err == FE_ERR_INPUT ||
                       err == FE_ERR_NUMERICAL || err == FE_ERR_INTERRUPTED || agreed;
  if (agreed && !report->reported && p->rank) show_held(p);
  if (!together) {
    if (p->rank) show_held(p);
    fflush(NULL);
    MPI_Abort(MPI_COMM_WORLD, err);
  }
  fe_comm_mpi_destroy(p->comm);
  p->comm = NULL;
  MPI_Finalize();
  if (p->held) fclose(p->held);
#else
  (void)report;
#endif
  return err;
}
