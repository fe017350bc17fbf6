/* A simulation: the case, its mesh and backend, the operators of the split
 * scheme, and the time loop. */
#ifndef FE_RUN_H
#define FE_RUN_H

#include "io/case.h"

struct fe_options {
  const char *case_path;
  int backend_set;
  enum fe_backend_kind backend;
  int strategy_set;
  enum fe_strategy strategy;
  int deterministic;        /* --deterministic: reproducible LMA scatter on the GPU */
  const char *output_dir;
  const char *restart;
  int check;
  int verbosity; /* 0 quiet, 1 normal, 2 verbose */
};

/* Parse argv.  Sets *done (and returns 0) after --help or --version. */
int fe_cli_parse(int argc, char **argv, struct fe_options *o, int *done);

/* fesim's whole job for the options: validate, then --check or run.
 * FE_ERR_INTERRUPTED after SIGINT/SIGTERM (checkpoint written). */
int fe_run(const struct fe_options *o);
/* The signal that stopped the run (for the exit code 128 + signal). */
int fe_run_stop_signal(void);

#endif
