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

/* The slow part of a backend's start, the CUDA driver and the GPU's context (0.2-0.4 s on the
 * GPU machines), begun on a thread of its own so that it overlaps the mesh's reading; the
 * fe_backend_create that follows finds it done.  NULL where there is nothing to begin (the CPU
 * backend, a build without CUDA) or no thread to be had: the start is then all
 * fe_backend_create's.  A warm-up reports nothing: fe_backend_create meets any failure again and
 * reports it. */
struct fe_backend_warm_up;
struct fe_backend_warm_up *fe_backend_warm_up(enum fe_backend_kind kind,
                                              const struct fe_backend_options *o);
/* Waits for the warm-up's thread, created or not a backend after it, and frees it; the seconds
 * the start took there (0 for NULL). */
double fe_backend_warm_up_end(struct fe_backend_warm_up *w);

/* Whether a backend of this kind can be created here (cuda: a usable GPU). */
int fe_backend_available(enum fe_backend_kind kind);

/* "cpu" or "cpu, cuda": the backends this fesim was built with. */
const char *fe_backends_built(void);

#endif
