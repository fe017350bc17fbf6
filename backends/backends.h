/* The backends of this build and how a run gets one: the one place that
 * knows every kind (DESIGN.md "Backends").  A backend's own folder fills its
 * tables (backends/cpu/backend.c, backends/cuda/backend.cu); here each new
 * backend is checked for empty slots before anyone calls one. */
#ifndef FE_BACKENDS_H
#define FE_BACKENDS_H

#include "solvers/backend.h"

struct fe_backend_options {
  int device;    /* the GPU to run on; -1: the backend's choice (its local rank's, or 0) */
  int verbosity; /* > 0: a note when auto falls back to the CPU */
  const struct fe_comm *comm; /* the run's processes; NULL: this one alone (fe_comm_self).  A
                                 host communicator (solvers/comm_mpi.h) serves the CPU backend;
                                 the CUDA backend makes an NCCL communicator from it */
};

/* A backend of the kind asked for.  cuda: FE_ERR_RESOURCE naming why there is
 * none (no GPU, a build without CUDA); auto: the GPU when one is usable, else
 * the CPU. */
int fe_backend_create(enum fe_backend_kind kind, const struct fe_backend_options *o,
                      struct fe_backend **be);
void fe_backend_destroy(struct fe_backend *be);

/* Whether a backend of this kind can be created here (cuda: a usable GPU). */
int fe_backend_available(enum fe_backend_kind kind);

/* "cpu" or "cpu, cuda": the backends this fesim was built with. */
const char *fe_backends_built(void);

#endif
