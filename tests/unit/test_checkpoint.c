/* io/checkpoint: the file round-trips bit for bit; every damage and every
 * inconsistency is refused with the message that names it (a flipped byte
 * anywhere, a truncated or extended file, an old format, counts that do not
 * fit the file, non-finite values); a checkpoint of another case, mesh,
 * stat columns, dump fields, time step or output period is refused naming
 * both values; the reader neither blocks on a FIFO nor reads more than a
 * checkpoint of the case can hold. */
#include "io/checkpoint.h"

#include "core/error.h"
#include "core/hash.h"
#include "fresh_dir.h"
#include "io/stat.h"
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define COLUMNS_EXACT                                                                              \
  "step,time,dt,courant,min,max,integral,l2_error,linf_error,advection_iterations,"                \
  "diffusion_iterations,wall_seconds"
#define COLUMNS_PLAIN                                                                              \
  "step,time,dt,courant,min,max,integral,advection_iterations,diffusion_iterations,wall_seconds"

static double coords[] = {0, 0, 1, 0, 1, 1, 0, 1};
static int cells[] = {0, 1, 2, 0, 2, 3};
static const struct fe_mesh mesh = {
    .dim = 2, .nv = 3, .n_nodes = 4, .n_cells = 2, .coords = coords, .cells = cells};
static double field[] = {0.25, -1.5, 3e-300, 7};
static double dump_times[] = {0, 0.30000000000000004};

/* The run of the tests: 10 steps of 0.1, a dump every 3 steps; the checkpoint of step 5. */
static struct fe_schedule schedule(void)
{
  struct fe_schedule s;
  CHECK(fe_schedule_init(&s, 0, 1, 0.1, 3, 5) == FE_STEPS_OK);
  return s;
}

static struct fe_checkpoint run_identity(void)
{
  return (struct fe_checkpoint){.name = "case",
                                .columns = COLUMNS_EXACT,
                                .fields = "T,T_exact,T_error",
                                .mesh_id = fe_checkpoint_mesh_id(&mesh),
                                .n_nodes = 4,
                                .n_cells = 2,
                                .n_fields = 1};
}

static struct fe_checkpoint good(void)
{
  struct fe_checkpoint cp = run_identity();
  cp.step = 5;
  cp.time = 0.5;
  cp.n_dumps = 2;
  cp.dump_times = dump_times;
  cp.field = field;
  return cp;
}

/* ---------------------------------------------------------------- stderr capture */

static char captured[8192];

static int capture_begin(void)
{
  fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  FILE *tmp = tmpfile();
  CHECK(tmp != NULL);
  if (tmp) dup2(fileno(tmp), STDERR_FILENO);
  if (tmp) fclose(tmp); /* the descriptor 2 keeps it open */
  return saved;
}

static const char *capture_end(int saved)
{
  fflush(stderr);
  const off_t size = lseek(STDERR_FILENO, 0, SEEK_END);
  ssize_t n = pread(STDERR_FILENO, captured, sizeof captured - 1, 0);
  captured[n > 0 ? n : 0] = '\0';
  (void)size;
  dup2(saved, STDERR_FILENO);
  close(saved);
  return captured;
}

/* decode's code and its one message, which must contain `want`. */
static int decode_says(const unsigned char *b, size_t size, const char *want)
{
  struct fe_checkpoint cp;
  const int saved = capture_begin();
  const int err = fe_checkpoint_decode("x.bin", b, size, &cp);
  const char *msg = capture_end(saved);
  if (!err) fe_checkpoint_free(&cp);
  const int ok = err == FE_ERR_INPUT && strstr(msg, want) != NULL;
  if (!ok) fprintf(stderr, "decode: %d, '%s'; expected a message with '%s'\n", err, msg, want);
  return ok;
}

/* verify's code and its one message, which must contain want and want2 (when not NULL); want
 * NULL: the checkpoint must pass. */
static int verify_on(const struct fe_checkpoint *cp, const struct fe_schedule *s, const char *want,
                     const char *want2)
{
  const struct fe_checkpoint id = run_identity();
  const int saved = capture_begin();
  const int err = fe_checkpoint_verify("x.bin", cp, &id, s);
  const char *msg = capture_end(saved);
  const int ok = want ? err == FE_ERR_INPUT && strstr(msg, want) && (!want2 || strstr(msg, want2))
                      : err == FE_SUCCESS;
  if (!ok)
    fprintf(stderr, "verify: %d, '%s'; expected '%s' and '%s'\n", err, msg, want ? want : "",
            want2 ? want2 : "");
  return ok;
}

static int verify_says(const struct fe_checkpoint *cp, const char *want, const char *want2)
{
  const struct fe_schedule s = schedule();
  return verify_on(cp, &s, want, want2);
}

/* ---------------------------------------------------------------- bytes */

static void put_u64(unsigned char *p, uint64_t v)
{
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* A crafted file: its checksum made to fit, so that the checks behind it are reached. */
static void reseal(unsigned char *b, size_t size)
{
  put_u64(b + size - 8, fe_hash64(b, size - 8, 0));
}

static unsigned char *encoded(size_t *size)
{
  struct fe_checkpoint cp = good();
  unsigned char *b = NULL;
  CHECK_OK(fe_checkpoint_encode(&cp, &b, size));
  CHECK(*size == fe_checkpoint_size(&cp));
  return b;
}

static void test_round_trip(void)
{
  size_t size;
  unsigned char *b = encoded(&size);
  struct fe_checkpoint cp;
  CHECK_OK(fe_checkpoint_decode("x.bin", b, size, &cp));
  const struct fe_checkpoint want = good();
  CHECK(!strcmp(cp.name, want.name) && !strcmp(cp.columns, want.columns) &&
        !strcmp(cp.fields, want.fields));
  CHECK(cp.mesh_id == want.mesh_id && cp.n_nodes == 4 && cp.n_cells == 2 && cp.step == 5);
  CHECK(cp.time == 0.5 && cp.n_dumps == 2);
  CHECK(!memcmp(cp.dump_times, dump_times, sizeof dump_times) &&
        !memcmp(cp.field, field, sizeof field));
  const struct fe_checkpoint id = run_identity();
  const struct fe_schedule s = schedule();
  CHECK_OK(fe_checkpoint_verify("x.bin", &cp, &id, &s));
  fe_checkpoint_free(&cp);
  fe_checkpoint_free(&cp); /* twice is harmless */
  /* the layout of io/checkpoint.h */
  CHECK(!memcmp(b, "fesim-ckpt-v4\n\0\0", 16) &&
        (size_t)(b[FE_CKPT_SIZE] + 256 * b[FE_CKPT_SIZE + 1]) == size);
  CHECK(b[FE_CKPT_STEP] == 5 && b[FE_CKPT_N_DUMPS] == 2 && b[FE_CKPT_N_NODES] == 4);
  CHECK(!memcmp(b + FE_CKPT_HEADER, "case", 4));
  free(b);
}

/* Several tracers: their fields one after the other. */
static void test_fields(void)
{
  double two[8] = {1, 2, 3, 4, -5, 6e-300, 7, 8};
  struct fe_checkpoint cp = good(), back = {0};
  cp.n_fields = 2;
  cp.fields = "T,S,T_exact,T_error";
  cp.field = two;
  unsigned char *b;
  size_t size;
  CHECK_OK(fe_checkpoint_encode(&cp, &b, &size));
  CHECK(size == fe_checkpoint_size(&cp) &&
        size == fe_checkpoint_size(&(struct fe_checkpoint){.name = cp.name,
                                                           .columns = cp.columns,
                                                           .fields = cp.fields,
                                                           .n_dumps = 2,
                                                           .n_nodes = 8,
                                                           .n_fields = 1}));
  CHECK_OK(fe_checkpoint_decode("two.bin", b, size, &back));
  CHECK(back.n_fields == 2 && back.n_nodes == 4 && !memcmp(back.field, two, sizeof two));
  fe_checkpoint_free(&back);
  free(b);
}

/* Any byte flipped: the magic, or else the checksum, finds it. */
static void test_flips(void)
{
  size_t size;
  unsigned char *b = encoded(&size);
  int bad = 0;
  for (size_t i = 0; i < size; i++) {
    b[i] ^= 0x40;
    bad += !decode_says(b, size, i < 16 ? "checkpoint" : "checksum does not match its contents");
    b[i] ^= 0x40;
  }
  CHECK(bad == 0);
  b[0] ^= 1;
  CHECK(decode_says(b, size, "is not a complete fesim checkpoint"));
  free(b);
}

static void test_lengths(void)
{
  size_t size;
  unsigned char *b = encoded(&size);
  int bad = 0;
  for (size_t n = 0; n < size; n++)
    bad += !decode_says(b, n, n < 13 ? "is not a complete fesim checkpoint" : "damaged (truncated");
  CHECK(bad == 0);
  unsigned char *longer = calloc(size + 1, 1);
  memcpy(longer, b, size);
  CHECK(decode_says(longer, size + 1, "checksum does not match"));
  reseal(longer, size + 1); /* the checksum moved to the end, the header's size not */
  CHECK(decode_says(longer, size + 1, "its header gives"));
  free(longer);
  free(b);
}

static void test_versions(void)
{
  size_t size;
  unsigned char *b = encoded(&size);
  memcpy(b, "fesim-ckpt-v1\n\0\0", 16);
  CHECK(decode_says(b, size,
                    "format version 1 (written by an earlier fesim); this fesim reads version 4"));
  memcpy(b, "fesim-ckpt-v3\n\0\0", 16);
  CHECK(decode_says(b, size,
                    "format version 3 (written by an earlier fesim); this fesim reads version 4"));
  memcpy(b, "fesim-ckpt-v5\n\0\0", 16);
  CHECK(decode_says(b, size, "format version 5; this fesim reads version 4"));
  free(b);
}

/* Counts, lengths and values that a valid checksum does not excuse. */
static void test_inconsistent(void)
{
  size_t size;
  unsigned char *b = encoded(&size), *c = malloc(size);
  struct {
    size_t at;
    uint64_t value;
    const char *want;
  } counts[] = {
      {FE_CKPT_N_DUMPS, 1ULL << 60, "declares 1152921504606846976 dump times"},
      {FE_CKPT_N_DUMPS, UINT64_MAX, "-1 dumps"},
      {FE_CKPT_N_DUMPS, 3, "declares 3 dump times and 1 x 4 node values (tracers x nodes)"},
      {FE_CKPT_N_NODES, (uint64_t)1 << 62, "1 x 4611686018427387904 node values"},
      {FE_CKPT_N_NODES, 0, "0 nodes"},
      {FE_CKPT_STEP, UINT64_MAX, "step -1"},
      {FE_CKPT_LENGTHS, 0xFFFFFFFFULL | (4ULL << 32), "text 0 of its header is 4294967295 bytes"},
      {FE_CKPT_LENGTHS + 8, 17ULL | (0ULL << 32), "declares 0 tracer fields; expected 1 to 65536"},
      {FE_CKPT_LENGTHS + 8, 17ULL | (2ULL << 32), "declares 2 dump times and 2 x 4 node values"},
      {FE_CKPT_LENGTHS + 8, 17ULL | (70000ULL << 32), "declares 70000 tracer fields"},
  };
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    memcpy(c, b, size);
    put_u64(c + counts[i].at, counts[i].value);
    reseal(c, size);
    CHECK(decode_says(c, size, counts[i].want));
  }
  const size_t values = size - 8 - 8 * 6; /* the first of the 2 dump times and 4 node values */
  const double nan = NAN, inf = INFINITY;
  memcpy(c, b, size);
  memcpy(c + values + 8 * 4, &nan, 8); /* node 2 */
  reseal(c, size);
  CHECK(decode_says(c, size, "holds a field that is not finite: nan at node 2 of 4"));
  memcpy(c, b, size);
  memcpy(c + values + 8, &inf, 8);
  reseal(c, size);
  CHECK(decode_says(c, size, "the time of dump 1 is not finite (inf)"));
  memcpy(c, b, size);
  memcpy(c + FE_CKPT_TIME, &nan, 8);
  reseal(c, size);
  CHECK(decode_says(c, size, "holds a time that is not finite"));
  memcpy(c, b, size);
  memcpy(c + FE_CKPT_DT_MAX, &inf, 8);
  reseal(c, size);
  CHECK(decode_says(c, size, "holds a rule of time steps that is not finite (cfl 0, dt_max inf)"));
  memcpy(c, b, size);
  c[FE_CKPT_HEADER + 1] = 1; /* in the case name */
  reseal(c, size);
  CHECK(decode_says(c, size, "its case name holds the byte 0x01"));
  free(c);
  free(b);
}

/* Checkpoints of another run, each refused naming both values. */
static void test_verify(void)
{
  struct fe_checkpoint cp = good();
  cp.name = "other";
  CHECK(verify_says(&cp, "was written by case 'other'; this case is 'case'", NULL));
  cp = good();
  cp.mesh_id ^= 1;
  CHECK(verify_says(&cp, "was written on another mesh: 4 nodes, 2 cells, identity",
                    "this case's mesh has 4 nodes"));
  cp = good();
  cp.n_nodes = 5;
  CHECK(verify_says(&cp, "another mesh: 5 nodes", NULL));
  cp = good();
  cp.columns = COLUMNS_PLAIN;
  CHECK(verify_says(&cp,
                    "whose stat file has the columns "
                    "'step,time,dt,courant,min,max,integral,advection_iterations",
                    "this case's has 'step,time,dt,courant,min,max,integral,l2_error"));
  cp = good();
  cp.n_fields = 2;
  CHECK(verify_says(&cp, "holds 2 tracer fields; this case has 1 tracers", NULL));
  cp = good();
  cp.fields = "T,velocity";
  CHECK(verify_says(&cp, "dumps hold the fields 'T,velocity'; this case's hold 'T,T_exact,T_error'",
                    NULL));
  cp = good();
  cp.step = 10;
  CHECK(verify_says(&cp, "is at step 10; this case has 10 steps", NULL));
  cp = good();
  cp.time = nextafter(0.5, 1); /* one unit in the last place */
  CHECK(verify_says(
      &cp, "is at step 5, t = 0.50000000000000011; this case's step 5 ends at t = 0.5", NULL));
  cp = good();
  cp.time = 0.25; /* dt 0.05 */
  CHECK(verify_says(&cp, "t = 0.25; this case's step 5 ends at t = 0.5: its <time>", NULL));
  cp = good();
  cp.n_dumps = 1;
  CHECK(verify_says(
      &cp, "holds 1 dumps at step 5; this case's schedule (a dump every 3 steps) gives 2", NULL));
  double times[] = {0, 0.3};
  cp = good();
  cp.dump_times = times;
  CHECK(verify_says(&cp,
                    "has dump 1 at t = 0.29999999999999999; this case's schedule has it at t = "
                    "0.30000000000000004 (step 3)",
                    NULL));
  cp = good();
  cp.cfl = 0.5, cp.dt_max = 0.1;
  CHECK(verify_says(&cp,
                    "whose steps came from a Courant number (cfl); this case's steps have a "
                    "fixed dt (<time>)",
                    NULL));
}

/* With cfl: 0 to 1, cfl 0.5, dt_max 0.1, a dump every 0.25 in time; the checkpoint of step 7
 * at t = 0.6, after the dumps at 0, 0.25 and 0.5. */
static struct fe_schedule cfl_schedule(void)
{
  struct fe_schedule s;
  CHECK(fe_schedule_init_cfl(&s, 0, 1, 0.5, 0.1, 0, 0.25, 5) == FE_STEPS_OK);
  return s;
}

static double cfl_dump_times[] = {0, 0.25, 0.5};

static struct fe_checkpoint cfl_good(void)
{
  struct fe_checkpoint cp = good();
  cp.step = 7;
  cp.time = 0.6;
  cp.n_dumps = 3;
  cp.dump_times = cfl_dump_times;
  cp.cfl = 0.5;
  cp.dt_max = 0.1;
  return cp;
}

static int cfl_verify_says(const struct fe_checkpoint *cp, const struct fe_schedule *s,
                           const char *want)
{
  return verify_on(cp, s, want, NULL);
}

/* A checkpoint of a run whose steps came from a Courant number: its rule, its time within the
 * case's span, its dumps those of the output times it passed (or, dumped every few steps, in
 * order and not after its time). */
static void test_verify_cfl(void)
{
  const struct fe_schedule s = cfl_schedule();
  struct fe_checkpoint cp = cfl_good();
  CHECK(cfl_verify_says(&cp, &s, NULL));
  cp.cfl = 0.25;
  CHECK(cfl_verify_says(&cp, &s,
                        "written by a run with cfl = 0.25, dt_max = 0.1; this case has cfl = 0.5, "
                        "dt_max = 0.1 (<time>): its steps would not be the run's"));
  cp = cfl_good();
  cp.dt_max = nextafter(0.1, 1);
  CHECK(cfl_verify_says(&cp, &s,
                        "dt_max = 0.10000000000000002; this case has cfl = 0.5, "
                        "dt_max = 0.10000000000000001"));
  cp = cfl_good();
  cp.cfl = cp.dt_max = 0;
  CHECK(cfl_verify_says(&cp, &s,
                        "whose steps had a fixed dt; this case's steps come from a "
                        "Courant number (cfl) (<time>)"));
  cp = cfl_good();
  cp.time = 1;
  CHECK(cfl_verify_says(&cp, &s,
                        "is at step 7, t = 1; this case ends at t = 1 (<time>), so "
                        "nothing is left to run"));
  cp = cfl_good();
  cp.time = -0.5;
  CHECK(cfl_verify_says(&cp, &s, "t = -0.5; this case starts at t = 0 (<time>)"));
  cp = cfl_good();
  cp.step = 0; /* at step 0 the time is the start */
  CHECK(cfl_verify_says(&cp, &s, "is at step 0, t = 0.6; this case starts at t = 0"));
  cp = cfl_good();
  cp.time = 0.75; /* past the output time 0.75 with 3 dumps */
  CHECK(cfl_verify_says(&cp, &s,
                        "holds 3 dumps at step 7; this case's schedule (a dump every 0.25 in "
                        "time) gives 4 by then: its <output period> is not the one"));
  double other[] = {0, 0.25, 0.4};
  cp = cfl_good();
  cp.dump_times = other;
  CHECK(cfl_verify_says(&cp, &s, "has dump 2 at t = 0.4; this case's schedule has it at t = 0.5"));
  /* dumped every 2 steps: 4 dumps by step 7, at times the run chose */
  struct fe_schedule by_steps;
  CHECK(fe_schedule_init_cfl(&by_steps, 0, 1, 0.5, 0.1, 2, 0, 0) == FE_STEPS_OK);
  double chosen[] = {0, 0.2, 0.35, 0.5};
  cp = cfl_good();
  cp.n_dumps = 4;
  cp.dump_times = chosen;
  CHECK(cfl_verify_says(&cp, &by_steps, NULL));
  chosen[2] = 0.7;
  CHECK(cfl_verify_says(&cp, &by_steps,
                        "has dump 2 at t = 0.7, after dump 1 at t = 0.20000000000000001; expected "
                        "dumps in order, none after its step's t = 0.59999999999999998"));
  chosen[2] = 0.35, chosen[1] = 0;
  CHECK(cfl_verify_says(&cp, &by_steps, "has dump 1 at t = 0, after dump 0"));
}

/* The identity changes with any coordinate or cell, and with the numbering. */
static void test_mesh_id(void)
{
  double c2[8];
  int k2[6];
  memcpy(c2, coords, sizeof c2);
  memcpy(k2, cells, sizeof k2);
  struct fe_mesh m = mesh;
  m.coords = c2;
  m.cells = k2;
  const uint64_t id = fe_checkpoint_mesh_id(&mesh);
  CHECK(fe_checkpoint_mesh_id(&m) == id);
  c2[5] = nextafter(1, 2);
  CHECK(fe_checkpoint_mesh_id(&m) != id);
  c2[5] = 1;
  k2[0] = 1, k2[1] = 0; /* another orientation of cell 0 */
  CHECK(fe_checkpoint_mesh_id(&m) != id);
  k2[0] = 0, k2[1] = 1;
  m.n_cells = 1;
  CHECK(fe_checkpoint_mesh_id(&m) != id);
}

static int read_says(const char *path, size_t max, const char *want)
{
  struct fe_checkpoint cp;
  const int saved = capture_begin();
  const int err = fe_checkpoint_read(path, max, &cp);
  const char *msg = capture_end(saved);
  if (!err) fe_checkpoint_free(&cp);
  const int ok = err == FE_ERR_INPUT && strstr(msg, want);
  if (!ok) fprintf(stderr, "read: %d, '%s'; expected '%s'\n", err, msg, want);
  return ok;
}

static void test_files(const char *dir)
{
  char path[512], fifo[512], sub[512];
  snprintf(path, sizeof path, "%s/case_checkpoint_000005.bin", dir);
  const struct fe_checkpoint want = good();
  CHECK_OK(fe_checkpoint_write(path, &want));
  size_t size;
  unsigned char *b = encoded(&size);
  struct fe_checkpoint cp;
  CHECK_OK(fe_checkpoint_read(path, size, &cp));
  CHECK(cp.step == 5 && !memcmp(cp.field, field, sizeof field));
  fe_checkpoint_free(&cp);
  CHECK(read_says(path, size - 1, "more than a checkpoint of this case can be"));
  snprintf(fifo, sizeof fifo, "%s/fifo.bin", dir);
  CHECK(mkfifo(fifo, 0666) == 0);
  CHECK(read_says(fifo, size, "is a FIFO; expected a checkpoint file"));
  CHECK(fe_checkpoint_check_file(fifo) == FE_ERR_INPUT);
  unlink(fifo);
  snprintf(sub, sizeof sub, "%s/sub", dir);
  CHECK(mkdir(sub, 0777) == 0);
  CHECK(read_says(sub, size, "is a directory"));
  rmdir(sub);
  CHECK(read_says("/dev/null", size, "is a character device"));
  snprintf(sub, sizeof sub, "%s/missing.bin", dir);
  CHECK(read_says(sub, size, "No such file or directory"));
  /* written over an existing file through a temporary: none left */
  CHECK_OK(fe_checkpoint_write(path, &want));
  DIR *d = opendir(dir);
  int files = 0;
  for (struct dirent *e; d && (e = readdir(d));) files += e->d_name[0] != '.';
  if (d) closedir(d);
  CHECK(files == 1);
  free(b);
}

int main(void)
{
  char fresh[] = "test_checkpoint.XXXXXX";
  const char *dir = mkdtemp(fresh);
  CHECK(dir != NULL);
  test_round_trip();
  test_fields();
  test_flips();
  test_lengths();
  test_versions();
  test_inconsistent();
  test_verify();
  test_verify_cfl();
  test_mesh_id();
  if (dir) test_files(dir);
  if (dir) remove_fresh(dir);
  TEST_DONE();
}
