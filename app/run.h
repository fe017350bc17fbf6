/* A simulation: the case, its mesh and backend, the operators of the split
 * scheme, and the time loop. */
#ifndef FE_RUN_H
#define FE_RUN_H

#include "assembly/operator.h"
#include "io/case.h"
#include "io/mesh.h"
#include "solvers/backend.h"

/* What a run measured (wall-clock seconds), for benchmarks. */
struct fe_run_report {
  long steps;                       /* steps taken by this run */
  double setup, loop, output;       /* set-up (case, mesh, operators), time loop, its outputs */
  double local, global;             /* operator assembly: element matrices, global (addto) */
  int assemblies;
  double advection, diffusion;      /* the split scheme's two parts, assembly and solves included */
  double cg;                        /* inside CG solves */
  long cg_iterations, advection_iterations, diffusion_iterations;
  /* Several processes: the run's error was agreed by every process at one point (each returns
   * it), and process 0 reported it (it failed itself); app/processes.h */
  int agreed, reported;
};

struct fe_options {
  const char *case_path;
  int backend_set;
  enum fe_backend_kind backend;
  int strategy_set;
  enum fe_strategy strategy;
  int stabilisation_set;
  enum fe_stabilisation stabilisation;
  int loads_set;
  enum fe_loads loads;
  int deterministic;        /* --deterministic: reproducible LMA and matfree scatter on the GPU */
  const char *output_dir;
  const char *restart;
  int check;
  int force;                /* --force: overwrite the outputs of another case */
  int verbosity; /* 0 quiet, 1 normal, 2 verbose */
  double mesh_time_limit; /* --mesh-time-limit, 0: the default (io/mesher.h) */
  long max_cells;         /* --max-cells, 0: the default and the memory available */
  /* For programs that drive fe_run (benchmarks): a case already read (case_path
   * is then only its name in messages) and a mesh that replaces mesh@file; both
   * stay the caller's.  report, when set, receives the timings; time_solves makes each CG
   * solve wait for the work queued before it, so that report->cg is CG's own time (a host
   * round trip per solve that a run without it does not make). */
  struct fe_case *case_data;
  struct fe_mesh *mesh;
  struct fe_run_report *report;
  int time_solves;
  /* The run's processes (app/processes.h); NULL: this one alone. */
  const struct fe_comm *comm;
};

/* Parse argv.  Sets *done (and returns 0) after --help or --version. */
int fe_cli_parse(int argc, char **argv, struct fe_options *o, int *done);

/* fesim's whole job for the options: validate, then --check or run.
 * FE_ERR_INTERRUPTED after SIGINT/SIGTERM (checkpoint written). */
int fe_run(const struct fe_options *o);
/* The signal that stopped the run (for the exit code 128 + signal). */
int fe_run_stop_signal(void);

#endif
