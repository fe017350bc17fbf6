/* libFuzzer target: the checkpoint reader, fe_checkpoint_decode and
 * fe_checkpoint_verify (io/checkpoint.h), on arbitrary bytes, against a
 * fixed run (a 4-node mesh, a case "fuzz" with an exact solution, 10 steps
 * of 0.1 and a dump every 3).  Each input is decoded twice: as it is, and
 * with its checksum made to fit, so that the fuzzer reaches the checks
 * behind the checksum.  A checkpoint that decodes must encode back to the
 * same bytes (the format has one spelling of each checkpoint).
 *
 * With FESIM_FUZZ_WRITE_SEEDS=DIR the target writes its seeds into DIR and
 * exits: a valid checkpoint of every step, made by the writer under test
 * (tests/fuzz/run.cmake, WRITE_SEEDS). */
#include "core/error.h"
#include "core/hash.h"
#include "io/checkpoint.h"
#include "io/stat.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double coords[] = {0, 0, 1, 0, 1, 1, 0, 1};
static int cells[] = {0, 1, 2, 0, 2, 3};
static const struct fe_mesh mesh = {
    .dim = 2, .nv = 3, .n_nodes = 4, .n_cells = 2, .coords = coords, .cells = cells};
/* libFuzzer's entry points take no context: the run is process state. */
static struct fe_checkpoint run;
static struct fe_schedule schedule;

static void write_seeds(const char *dir)
{
  double field[4] = {0.5, -1, 2, 1e-3}, times[8];
  for (long step = 0; step < schedule.n_steps; step++) {
    struct fe_checkpoint cp = run;
    cp.step = step;
    cp.time = fe_schedule_time(&schedule, step);
    cp.n_dumps = fe_schedule_dumps_after(&schedule, step);
    for (long i = 0; i < cp.n_dumps; i++)
      times[i] = fe_schedule_time(&schedule, fe_schedule_dump_step(&schedule, i));
    cp.dump_times = times;
    cp.field = field;
    char path[4200];
    snprintf(path, sizeof path, "%s/fuzz_checkpoint_%06ld.bin", dir, step);
    if (fe_checkpoint_write(path, &cp)) abort();
  }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc;
  (void)argv;
  run = (struct fe_checkpoint){.name = "fuzz",
                               .columns = "step,time,dt,courant,min,max,integral,l2_error,"
                                          "linf_error,advection_iterations,diffusion_iterations,"
                                          "wall_seconds",
                               .fields = "T,T_exact,T_error",
                               .mesh_id = fe_checkpoint_mesh_id(&mesh),
                               .n_nodes = 4,
                               .n_cells = 2,
                               .n_fields = 1};
  if (fe_schedule_init(&schedule, 0, 1, 0.1, 3, 5) != FE_STEPS_OK) abort();
  const char *seeds = getenv("FESIM_FUZZ_WRITE_SEEDS");
  if (seeds && *seeds) {
    write_seeds(seeds);
    exit(0);
  }
  return 0;
}

static void decode(const uint8_t *data, size_t size)
{
  struct fe_checkpoint cp;
  if (fe_checkpoint_decode("fuzz.bin", data, size, &cp) != FE_SUCCESS) return;
  volatile double sink = cp.time;
  for (long i = 0; i < cp.n_dumps; i++) sink += cp.dump_times[i];
  for (long i = 0; i < cp.n_nodes; i++) sink += cp.field[i];
  (void)sink;
  fe_checkpoint_verify("fuzz.bin", &cp, &run, &schedule);
  unsigned char *again;
  size_t size_again;
  if (fe_checkpoint_encode(&cp, &again, &size_again)) abort();
  if (size_again != size || memcmp(again, data, size)) abort(); /* decoded, yet not the file */
  free(again);
  fe_checkpoint_free(&cp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  decode(data, size);
  if (size < 8) return 0;
  uint8_t *sealed = malloc(size);
  if (!sealed) return 0;
  memcpy(sealed, data, size);
  const uint64_t sum = fe_hash64(sealed, size - 8, 0);
  for (int i = 0; i < 8; i++) sealed[size - 8 + i] = (uint8_t)(sum >> (8 * i));
  decode(sealed, size);
  free(sealed);
  return 0;
}
