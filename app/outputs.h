/* Everything a run writes in its output directory: NAME.run (which case file the outputs
 * belong to) under the directory's lock, the stat file (a row per step), the probes file (the
 * fields at the case's probes), the VTK dumps and their series, the checkpoints; and
 * --restart, which continues from a checkpoint. */
#ifndef FE_OUTPUTS_H
#define FE_OUTPUTS_H

#include "app/distribution.h"
#include "app/run.h"
#include "app/scheme.h"
#include "assembly/probes.h"
#include "io/checkpoint.h"
#include "io/csv.h"
#include "io/outdir.h"
#include "io/schedule.h"
#include "io/stat.h"
#include "solvers/readout.h"

/* Where a tracer's values of the stat row are in the outputs' readout. */
struct fe_row_at {
  int range, integral;       /* its extrema, lumped . T */
  int error_range, error_l2; /* with an exact solution: the error's extrema, e . M e */
};

struct fe_outputs {
  const struct fe_options *opt;
  const struct fe_case *c;
  const struct fe_mesh *m;    /* the whole mesh: what the files hold (process 0 of several,
                                 which writes them; the others: their part) */
  const struct fe_mesh *part; /* the nodes of the vectors: m, or this process's part of it */
  const struct fe_distribution *dist; /* several processes: process 0 writes; NULL: one */
  const struct fe_schedule *sched;
  const char *dir;
  char *case_real; /* the case file's absolute path (NAME.run, the lock) */
  int n_tracers;
  const char **field_names; /* the dump's point fields: each tracer, the velocity, each tracer's
                               NAME_exact and NAME_error (those with an exact solution) */
  int n_fields;
  char **exact_names, **error_names; /* per tracer; NULL without an exact solution */
  char *fields_text;
  const char **tracer_names; /* the stat file's layout */
  int *has_exact;
  int n_flux_groups;  /* <fluxes>: the boundary groups of the budget columns */
  int *flux_groups;   /* their indices in the mesh's groups (fe_flux_groups_find) */
  char **flux_labels; /* their columns' labels (fe_budget_labels) */
  char *stat_columns;
  struct fe_checkpoint id; /* what identifies the run in its checkpoints */
  int have_mesh_id;
  char *stat_path, *series_path;
  struct fe_stat *stat;
  struct fe_outdir_lock *lock;
  struct fe_checkpoint restart; /* --restart: the verified checkpoint, until restored */
  long stat_keep;               /* --restart: bytes of the stat file up to its row */
  /* with <probes>: NAME.probes.csv, its columns FIELD%PROBE (each tracer's, then the
   * velocity's components velocity%x ...), each field's columns in the probes' order */
  char *probes_path, *probes_columns;
  struct fe_csv *probes_file;
  long probes_keep;              /* --restart: bytes of the probes file up to its last row */
  struct fe_vec *probe_values;   /* n_probes per tracer: their values, then n_probes * d: the
                                    velocity's, probe by probe */
  struct fe_vec *probe_velocity; /* u(t) at the nodes, for the probes (with a velocity) */
  double probe_velocity_time;    /* the t it holds (NAN: none yet) */
  double *h_probes;              /* host: the probes' row in column order */
  long saved_step;               /* step of the newest checkpoint written or restored, or -1 */
  char *saved_path;              /* that checkpoint */
  long n_dumps;
  double *dump_times; /* the times of the dumps written, dump_capacity of them at most */
  long dump_capacity;
  /* on the backend */
  struct fe_halo *halo;           /* a periodic mesh's copies as ghosts: the reductions skip them */
  struct fe_vec *lumped;          /* int phi_n: integral = lumped . T */
  struct fe_vec **exact, **error; /* per tracer, with its exact solution: at the end of step
                                     error_step */
  struct fe_vec *mass_error;      /* M error */
  long error_step;
  struct fe_stat_tracer *row_tracers; /* the stat row's values of each tracer */
  struct fe_row_at *row_at;           /* where each tracer's values are in a step's readout */
  struct fe_outputs_queued {          /* two steps' values queued (fe_outputs_queue), by parity: */
    struct fe_readout *readout;       /* the stat row's and the probes' values, tagged by step */
    int probes_at;                    /* with its probes (-1: none) their values' place */
  } queued[2];
  /* on the host: the dump's fields and the checkpoint's, m's n_nodes per tracer */
  double *h_tracers, *h_velocity, *h_exact, *h_error;
  double *h_part; /* several processes: a vector of the part, ncomp values per node at most */
  double t_out; /* wall-clock seconds writing dumps */
};

/* Where the outputs go, checked before the mesh is read: the case file's path resolved, the
 * output directory (or its first existing parent) a directory, every name the run may
 * create within the file system's limits.  Nothing is written. */
int fe_outputs_init(struct fe_outputs *o, const struct fe_options *opt, const struct fe_case *c,
                    const struct fe_schedule *sched);
/* The dump's fields, the output paths, the run's identity, the vectors on be; with <fluxes>
 * the boundary groups of the budget, resolved against the mesh (FE_ERR_INPUT for a name that is
 * not a boundary group of it). */
int fe_outputs_prepare(struct fe_outputs *o, const struct fe_mesh *m,
                       const struct fe_distribution *dist, const struct fe_backend *be);
void fe_outputs_destroy(struct fe_outputs *o);

/* --restart: the checkpoint read and verified against this run and the stat file it
 * continues checked; nothing is written.  Process 0 of several (fe_outputs_restore hands the
 * checkpoint to the others). */
int fe_outputs_check_restart(struct fe_outputs *o);
/* The outputs in the directory are this case file's, or none, or --force. */
int fe_outputs_claim(const struct fe_outputs *o);
/* The directory made and locked, checked again under the lock, the temporaries of a killed
 * run removed. */
int fe_outputs_lock(struct fe_outputs *o);
/* The first writes: NAME.run and the stat file (created, or cut to the restart's row). */
int fe_outputs_open(struct fe_outputs *o);
/* Each tracer of s = its initial condition (host values, n_nodes of the whole mesh per tracer:
 * process 0's on several processes, NULL on the others) and *t the start, or the verified
 * checkpoint's fields (process 0's), *step and *t its step and time.  Every process together. */
int fe_outputs_restore(struct fe_outputs *o, const double *initial, struct fe_scheme *s, long *step,
                       double *t);

/* The values of the stat row after step `step` (ended at t), and with probes (not NULL) the
 * probes', queued on the backend behind the step's work and their copy posted: each tracer's
 * extrema and integral, with an exact solution the error and its norms.
 * fe_outputs_write_stat and fe_outputs_write_probes read them with one wait for the backend
 * (solvers/readout.h), also after the next step was queued: the values of two steps are
 * kept. */
int fe_outputs_queue(struct fe_outputs *o, struct fe_scheme *s, const struct fe_probes *probes,
                     long step, double t);
/* The stat row after step `step` (ended at t, of length dt, its largest Courant number
 * `courant`), wall clock from loop_start, also returned in *row (its tracers' values are the
 * outputs'), from the values fe_outputs_queue queued for that step; it checks each tracer, the
 * error norms and the diffusivities. */
int fe_outputs_write_stat(struct fe_outputs *o, struct fe_scheme *s, long step, double t, double dt,
                          double courant, double loop_start, struct fe_stat_row *row);
int fe_outputs_write_dump(struct fe_outputs *o, struct fe_scheme *s, long step, double t);
/* The probes file's row of step (ended at t), queued with the step's stat row by
 * fe_outputs_queue: the tracers and the velocity at the probes, each the P1 interpolant of its
 * nodal values.  A velocity that is not finite there is named (FE_ERR_INPUT). */
int fe_outputs_write_probes(struct fe_outputs *o, struct fe_scheme *s,
                            const struct fe_probes *probes, long step, double t);
/* NAME_checkpoint_NNNNNN.bin of step (ended at t) with every tracer of s, which then is the
 * newest. */
int fe_outputs_write_checkpoint(struct fe_outputs *o, const struct fe_scheme *s, long step,
                                double t);

#endif
