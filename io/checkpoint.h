/* Checkpoints: enough state to continue a run with --restart and reach the
 * same result as an uninterrupted run, bit for bit; and what it takes to
 * trust one: a checksum of the whole file, the identity of the run that
 * wrote it (case name, mesh, stat columns, dump fields) and its place in the
 * case's schedule (step, time, dumps), all checked before any of it is used.
 *
 * File format version 4, little-endian (docs/case-format.md, "Checkpoints and restarts"):
 *   offset  0  16 bytes  "fesim-ckpt-v4\n" and two zero bytes
 *          16  u64       size of the file in bytes, checksum included
 *          24  u64       mesh identity (fe_checkpoint_mesh_id)
 *          32  i64       nodes           40  i64  cells
 *          48  i64       step            56  f64  time at the end of the step
 *          64  i64       dumps written by then
 *          72  f64       cfl: the Courant number the steps were chosen for (0: a fixed dt)
 *          80  f64       dt_max with cfl (0: a fixed dt)
 *          88  u32 x 4   lengths of the case name, the stat columns, the dump fields; the
 *                        number of tracer fields F (1 or more)
 *         104            the three strings (no terminating zeros), the dump times
 *                        (f64 each), the F tracers' fields one after the other (f64 per node)
 *     size - 8  u64       checksum: XXH64 (core/hash.h, seed 0) of every byte before it */
#ifndef FE_CHECKPOINT_H
#define FE_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "io/mesh.h"
#include "io/schedule.h"

#define FE_CHECKPOINT_VERSION 4

enum fe_checkpoint_layout {
  FE_CKPT_SIZE = 16,
  FE_CKPT_MESH_ID = 24,
  FE_CKPT_N_NODES = 32,
  FE_CKPT_N_CELLS = 40,
  FE_CKPT_STEP = 48,
  FE_CKPT_TIME = 56,
  FE_CKPT_N_DUMPS = 64,
  FE_CKPT_CFL = 72,
  FE_CKPT_DT_MAX = 80,
  FE_CKPT_LENGTHS = 88,
  FE_CKPT_HEADER = 104
};

struct fe_checkpoint {
  char *name;       /* the case's <name> */
  char *columns;    /* the stat file's header line, without its newline */
  char *fields;     /* the dump's point fields, comma-separated */
  uint64_t mesh_id; /* fe_checkpoint_mesh_id of the run's mesh */
  long n_nodes, n_cells;
  long step;          /* last completed step */
  double time;        /* the end of that step */
  long n_dumps;       /* dumps written by then */
  double cfl, dt_max; /* the rule of the steps: a Courant number and dt_max, or 0, 0: a fixed dt */
  double *dump_times;
  int n_fields;  /* tracers, in the case's order */
  double *field; /* n_fields * n_nodes values: each tracer's in turn */
};

/* A hash of the mesh as the run numbers it: dimension, counts, coordinates and cells. */
uint64_t fe_checkpoint_mesh_id(const struct fe_mesh *m);
/* The size in bytes of the file holding cp. */
size_t fe_checkpoint_size(const struct fe_checkpoint *cp);

/* The file's bytes (allocated, *size of them). */
int fe_checkpoint_encode(const struct fe_checkpoint *cp, unsigned char **bytes, size_t *size);
/* Write cp to path (through a temporary, flushed to the disk, renamed). */
int fe_checkpoint_write(const char *path, const struct fe_checkpoint *cp);

/* cp from a file's bytes: FE_ERR_INPUT naming `path` when they are not a
 * complete, undamaged checkpoint of this version with finite values.  cp owns
 * what it points to (fe_checkpoint_free). */
int fe_checkpoint_decode(const char *path, const unsigned char *bytes, size_t size,
                         struct fe_checkpoint *cp);
/* FE_ERR_INPUT naming path when it is missing or not a regular file (a FIFO,
 * a device, a directory): checked at once, before anything waits on it. */
int fe_checkpoint_check_file(const char *path);
/* Read path (a regular file, opened without blocking) of at most max_bytes
 * (a larger one cannot belong to the run: FE_ERR_INPUT) and decode it. */
int fe_checkpoint_read(const char *path, size_t max_bytes, struct fe_checkpoint *cp);
void fe_checkpoint_free(struct fe_checkpoint *cp);

/* FE_ERR_INPUT naming what differs, the checkpoint's value and the case's,
 * when cp was not written by a run like `run` (name, mesh, stat columns, dump
 * fields; run's step, time and dumps are not looked at) at a step of `s`: the
 * same rule of steps (a fixed dt, or the same cfl and dt_max), a step before the
 * end, its time the one the schedule gives for that step (fixed dt) or within
 * [start, end) (cfl), its dumps and their times those the schedule gives by then. */
int fe_checkpoint_verify(const char *path, const struct fe_checkpoint *cp,
                         const struct fe_checkpoint *run, const struct fe_schedule *s);

#endif
