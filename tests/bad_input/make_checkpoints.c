/* Hand-made checkpoints for the --restart tests (tests/bad_input.cmake), made
 * at test time from a good one that fesim wrote, so that they follow the
 * current file format:
 *
 *   make_checkpoints variants GOOD.bin DIR
 *       writes into DIR one checkpoint per way of being wrong (damaged,
 *       inconsistent, of another run) and a FIFO and a directory in place of
 *       a checkpoint;
 *   make_checkpoints move GOOD.bin DIR START END DT EVERY STEP
 *       writes DIR/NAME_checkpoint_STEP.bin: GOOD's state placed at STEP of
 *       the schedule (START, END, DT, a dump every EVERY steps), with the
 *       stat file the restart continues (its header and the row of STEP). */
#include "core/error.h"
#include "core/hash.h"
#include "io/checkpoint.h"
#include "io/schedule.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static int fail(const char *what)
{
  fprintf(stderr, "make_checkpoints: %s\n", what);
  return 1;
}

static int save(const char *dir, const char *name, const unsigned char *b, size_t size)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  const int ok = f && fwrite(b, 1, size, f) == size;
  if (f && fclose(f)) return fail(path);
  return ok ? 0 : fail(path);
}

/* cp encoded into DIR/NAME. */
static int save_cp(const char *dir, const char *name, const struct fe_checkpoint *cp)
{
  unsigned char *b;
  size_t size;
  if (fe_checkpoint_encode(cp, &b, &size)) return 1;
  const int err = save(dir, name, b, size);
  free(b);
  return err;
}

static void put_u64(unsigned char *p, uint64_t v)
{
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* The bytes of GOOD with the u64 at `at` set to v and the checksum made to fit. */
static int save_patched(const char *dir, const char *name, const struct fe_checkpoint *good,
                        size_t at, uint64_t v)
{
  unsigned char *b;
  size_t size;
  if (fe_checkpoint_encode(good, &b, &size)) return 1;
  put_u64(b + at, v);
  put_u64(b + size - 8, fe_hash64(b, size - 8, 0));
  const int err = save(dir, name, b, size);
  free(b);
  return err;
}

static int damaged(const char *dir, const struct fe_checkpoint *good)
{
  unsigned char *b;
  size_t size;
  if (fe_checkpoint_encode(good, &b, &size)) return 1;
  int err = save(dir, "empty.bin", b, 0);
  err |= save(dir, "truncated.bin", b, size - 100);
  b[size / 2] ^= 0x10;
  err |= save(dir, "flipped.bin", b, size);
  b[size / 2] ^= 0x10;
  memcpy(b, "fesim-ckpt-v1\n\0\0", 16);
  err |= save(dir, "version1.bin", b, size);
  free(b);
  err |= save_patched(dir, "huge_dumps.bin", good, FE_CKPT_N_DUMPS, 1ULL << 60);
  return err;
}

static int other_runs(const char *dir, struct fe_checkpoint *good)
{
  struct fe_checkpoint cp = *good;
  double times[1000];
  for (int i = 0; i < 1000; i++) times[i] = i < good->n_dumps ? good->dump_times[i] : i;
  cp.n_dumps = good->n_dumps + 1; /* one dump more than the schedule gives: consistent otherwise */
  cp.dump_times = times;
  int err = save_cp(dir, "dump_count.bin", &cp);
  cp.n_dumps = 1000; /* more than the run can write: larger than its checkpoints can be */
  err |= save_cp(dir, "dump_count_large.bin", &cp);
  cp = *good;
  const double kept = good->field[3];
  good->field[3] = NAN; /* encoded with its checksum: only the value is wrong */
  err |= save_cp(dir, "nan_field.bin", &cp);
  good->field[3] = kept;
  cp = *good;
  cp.time = good->time / 2; /* written with half the dt */
  err |= save_cp(dir, "other_dt.bin", &cp);
  cp = *good;
  cp.step = 10, cp.time = 1;
  err |= save_cp(dir, "past_end.bin", &cp);
  cp = *good;
  cp.name = "other";
  err |= save_cp(dir, "other_name.bin", &cp);
  cp = *good;
  cp.mesh_id ^= 1; /* same node and cell counts, another mesh */
  err |= save_cp(dir, "other_mesh.bin", &cp);
  cp = *good;
  cp.columns = "step,time,dt,courant,min,max,integral,l2_error,linf_error,advection_iterations,"
               "diffusion_iterations,wall_seconds";
  err |= save_cp(dir, "other_columns.bin", &cp);
  cp = *good;
  cp.fields = "T,velocity";
  err |= save_cp(dir, "other_fields.bin", &cp);
  return err;
}

static int variants(const char *good_path, const char *dir)
{
  struct fe_checkpoint good;
  if (fe_checkpoint_read(good_path, (size_t)1 << 30, &good)) return 1;
  int err = damaged(dir, &good) || other_runs(dir, &good);
  fe_checkpoint_free(&good);
  char path[4096];
  snprintf(path, sizeof path, "%s/fifo.bin", dir);
  unlink(path);
  err |= mkfifo(path, 0666) != 0;
  snprintf(path, sizeof path, "%s/directory.bin", dir);
  rmdir(path);
  err |= mkdir(path, 0777) != 0;
  return err ? fail("cannot write the variants") : 0;
}

/* GOOD's identity and field at `step` of the schedule, and its stat file. */
static int move(const char *good_path, const char *dir, char **arg)
{
  struct fe_checkpoint cp;
  struct fe_schedule s;
  if (fe_schedule_init(&s, atof(arg[0]), atof(arg[1]), atof(arg[2]), atol(arg[3]), 0))
    return fail("not a schedule");
  const long step = atol(arg[4]);
  if (fe_checkpoint_read(good_path, (size_t)1 << 30, &cp)) return 1;
  double *times = malloc((size_t)fe_schedule_dumps_after(&s, step) * sizeof *times);
  cp.step = step;
  cp.time = fe_schedule_time(&s, step);
  cp.n_dumps = fe_schedule_dumps_after(&s, step);
  for (long i = 0; i < cp.n_dumps; i++)
    times[i] = fe_schedule_time(&s, fe_schedule_dump_step(&s, i));
  free(cp.dump_times);
  cp.dump_times = times;
  char name[512], path[4096];
  snprintf(name, sizeof name, "%s_checkpoint_%06ld.bin", cp.name, step);
  int err = save_cp(dir, name, &cp);
  snprintf(path, sizeof path, "%s/%s.stat", dir, cp.name);
  FILE *f = fopen(path, "w");
  err |= !f ||
         fprintf(f, "%s\n%ld,%.17g,%.17g,0,0,1,0.25,0,1,0\n", cp.columns, step, cp.time, s.dt) < 0;
  if (f) err |= fclose(f) != 0;
  fe_checkpoint_free(&cp);
  return err ? fail("cannot write the moved checkpoint") : 0;
}

int main(int argc, char **argv)
{
  if (argc == 4 && !strcmp(argv[1], "variants")) return variants(argv[2], argv[3]);
  if (argc == 9 && !strcmp(argv[1], "move")) return move(argv[2], argv[3], argv + 4);
  return fail(
      "usage: make_checkpoints variants GOOD.bin DIR | move GOOD.bin DIR START END DT EVERY STEP");
}
