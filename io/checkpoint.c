#include "io/checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/hash.h"
#include "io/file.h"
#include "io/outdir.h"

static const char magic[16] = "fesim-ckpt-v4\n";
static const char magic_prefix[] = "fesim-ckpt-v";
enum { MAX_TEXT = 1 << 20 };   /* bytes in each of the three strings */
enum { MAX_FIELDS = 1 << 16 }; /* tracers */

/* ---------------------------------------------------------------- bytes */

static void put_u64(unsigned char *p, uint64_t v)
{
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p)
{
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

static void put_f64(unsigned char *p, double v)
{
  uint64_t u;
  memcpy(&u, &v, sizeof u);
  put_u64(p, u);
}

static double get_f64(const unsigned char *p)
{
  const uint64_t u = get_u64(p);
  double v;
  memcpy(&v, &u, sizeof v);
  return v;
}

static void put_u32(unsigned char *p, uint32_t v)
{
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---------------------------------------------------------------- mesh identity */

/* Values hashed in their little-endian bytes, a buffer at a time. */
struct feeder {
  struct fe_hash h;
  unsigned char buf[4096];
  size_t used;
};

static void feed(struct feeder *f, uint64_t v, int bytes)
{
  if (f->used + 8 > sizeof f->buf) {
    fe_hash_update(&f->h, f->buf, f->used);
    f->used = 0;
  }
  for (int i = 0; i < bytes; i++) f->buf[f->used++] = (unsigned char)(v >> (8 * i));
}

uint64_t fe_checkpoint_mesh_id(const struct fe_mesh *m)
{
  struct feeder f = {.used = 0};
  fe_hash_init(&f.h, 0);
  const long counts[4] = {m->dim, m->nv, m->n_nodes, m->n_cells};
  for (int i = 0; i < 4; i++) feed(&f, (uint64_t)counts[i], 8);
  for (long i = 0; i < (long)m->n_nodes * m->dim; i++) {
    uint64_t u;
    memcpy(&u, &m->coords[i], sizeof u);
    feed(&f, u, 8);
  }
  for (long i = 0; i < (long)m->n_cells * m->nv; i++) feed(&f, (uint32_t)m->cells[i], 4);
  for (long i = 0; i < m->n_aliased; i++) feed(&f, (uint32_t)m->alias_of[i], 4); /* periodic */
  fe_hash_update(&f.h, f.buf, f.used);
  return fe_hash_final(&f.h);
}

/* ---------------------------------------------------------------- writing */

static size_t text_bytes(const struct fe_checkpoint *cp)
{
  return strlen(cp->name) + strlen(cp->columns) + strlen(cp->fields);
}

size_t fe_checkpoint_size(const struct fe_checkpoint *cp)
{
  const size_t values = (size_t)cp->n_fields * (size_t)cp->n_nodes;
  return FE_CKPT_HEADER + text_bytes(cp) + 8 * ((size_t)cp->n_dumps + values) + 8;
}

int fe_checkpoint_encode(const struct fe_checkpoint *cp, unsigned char **bytes, size_t *size)
{
  const char *text[3] = {cp->name, cp->columns, cp->fields};
  *size = fe_checkpoint_size(cp);
  unsigned char *b;
  FE_CALL(fe_calloc(*size, 1, &b));
  memcpy(b, magic, sizeof magic);
  put_u64(b + FE_CKPT_SIZE, *size);
  put_u64(b + FE_CKPT_MESH_ID, cp->mesh_id);
  put_u64(b + FE_CKPT_N_NODES, (uint64_t)cp->n_nodes);
  put_u64(b + FE_CKPT_N_CELLS, (uint64_t)cp->n_cells);
  put_u64(b + FE_CKPT_STEP, (uint64_t)cp->step);
  put_f64(b + FE_CKPT_TIME, cp->time);
  put_u64(b + FE_CKPT_N_DUMPS, (uint64_t)cp->n_dumps);
  put_f64(b + FE_CKPT_CFL, cp->cfl);
  put_f64(b + FE_CKPT_DT_MAX, cp->dt_max);
  unsigned char *p = b + FE_CKPT_HEADER;
  for (int i = 0; i < 3; i++) {
    const size_t n = strlen(text[i]);
    put_u32(b + FE_CKPT_LENGTHS + 4 * i, (uint32_t)n);
    memcpy(p, text[i], n);
    p += n;
  }
  put_u32(b + FE_CKPT_LENGTHS + 12, (uint32_t)cp->n_fields);
  for (long i = 0; i < cp->n_dumps; i++, p += 8) put_f64(p, cp->dump_times[i]);
  for (long i = 0; i < (long)cp->n_fields * cp->n_nodes; i++, p += 8) put_f64(p, cp->field[i]);
  put_u64(p, fe_hash64(b, *size - 8, 0));
  *bytes = b;
  return FE_SUCCESS;
}

int fe_checkpoint_write(const char *path, const struct fe_checkpoint *cp)
{
  unsigned char *bytes;
  size_t size;
  FE_CALL(fe_checkpoint_encode(cp, &bytes, &size));
  const int err = fe_outdir_write_file(path, bytes, size, 1);
  free(bytes);
  return err;
}

/* ---------------------------------------------------------------- reading */

static int check_magic(const char *q, const unsigned char *b, size_t size)
{
  if (size >= sizeof magic && !memcmp(b, magic, sizeof magic)) return FE_SUCCESS;
  const size_t n = sizeof magic_prefix - 1;
  if (size < n + 1 || memcmp(b, magic_prefix, n))
    FE_RAISE(FE_ERR_INPUT,
             "%s is not a complete fesim checkpoint; expected a file written by fesim "
             "(NAME_checkpoint_NNNNNN.bin), which starts with '%s'",
             q, magic_prefix);
  char version[8] = "";
  for (size_t i = n, k = 0; i < size && k < sizeof version - 1 && b[i] >= '0' && b[i] <= '9'; i++)
    version[k++] = (char)b[i], version[k] = '\0';
  FE_CHECK(atoi(version) != FE_CHECKPOINT_VERSION, FE_ERR_INPUT,
           "%s is damaged (truncated or altered): %zu bytes, its first ones those of a checkpoint",
           q, size);
  FE_RAISE(FE_ERR_INPUT,
           "%s is a checkpoint of format version %s%s; this fesim reads version %d only, whose "
           "checkpoints it can verify: rerun the case from its start",
           q, version[0] ? version : "?",
           atoi(version) >= 1 && atoi(version) < FE_CHECKPOINT_VERSION
               ? " (written by an earlier fesim)"
               : "",
           FE_CHECKPOINT_VERSION);
}

static int check_sum(const char *q, const unsigned char *b, size_t size)
{
  FE_CHECK(size >= FE_CKPT_HEADER + 8, FE_ERR_INPUT,
           "%s is damaged (truncated): %zu bytes, fewer than the %d of the smallest checkpoint", q,
           size, FE_CKPT_HEADER + 8);
  const uint64_t stored = get_u64(b + size - 8), computed = fe_hash64(b, size - 8, 0);
  FE_CHECK(stored == computed, FE_ERR_INPUT,
           "%s is damaged (truncated or altered): its checksum does not match its contents (%zu "
           "bytes; its header gives %llu); expected a checkpoint as fesim wrote it",
           q, size, (unsigned long long)get_u64(b + FE_CKPT_SIZE));
  return FE_SUCCESS;
}

/* Counts and lengths against the file's size, so that none can index past it. */
static int check_layout(const char *q, const unsigned char *b, size_t size)
{
  const uint64_t declared = get_u64(b + FE_CKPT_SIZE);
  FE_CHECK(declared == size, FE_ERR_INPUT,
           "%s is inconsistent: its header gives %llu bytes, the file has %zu", q,
           (unsigned long long)declared, size);
  const int64_t nodes = (int64_t)get_u64(b + FE_CKPT_N_NODES),
                cells = (int64_t)get_u64(b + FE_CKPT_N_CELLS);
  const int64_t step = (int64_t)get_u64(b + FE_CKPT_STEP),
                dumps = (int64_t)get_u64(b + FE_CKPT_N_DUMPS);
  FE_CHECK(nodes > 0 && cells > 0 && step >= 0 && dumps > 0, FE_ERR_INPUT,
           "%s is inconsistent: %lld nodes, %lld cells, step %lld, %lld dumps; expected counts > 0 "
           "(step >= 0)",
           q, (long long)nodes, (long long)cells, (long long)step, (long long)dumps);
  size_t rest = size - FE_CKPT_HEADER - 8;
  for (int i = 0; i < 3; i++) {
    const uint32_t len = get_u32(b + FE_CKPT_LENGTHS + 4 * i);
    FE_CHECK(len <= MAX_TEXT && len <= rest, FE_ERR_INPUT,
             "%s is inconsistent: text %d of its header is %lu bytes long, of %zu left", q, i,
             (unsigned long)len, rest);
    rest -= len;
  }
  const uint32_t fields = get_u32(b + FE_CKPT_LENGTHS + 12);
  FE_CHECK(fields >= 1 && fields <= MAX_FIELDS, FE_ERR_INPUT,
           "%s is inconsistent: it declares %lu tracer fields; expected 1 to %d", q,
           (unsigned long)fields, MAX_FIELDS);
  const uint64_t values = rest / 8;
  FE_CHECK(rest % 8 == 0 && (uint64_t)dumps <= values && (values - (uint64_t)dumps) % fields == 0 &&
               (uint64_t)nodes == (values - (uint64_t)dumps) / fields,
           FE_ERR_INPUT,
           "%s is inconsistent: it declares %lld dump times and %lu x %lld node values (tracers x "
           "nodes), and holds %zu bytes of values",
           q, (long long)dumps, (unsigned long)fields, (long long)nodes, rest);
  return FE_SUCCESS;
}

/* An allocated, printable copy of n bytes of text. */
static int copy_text(const char *q, const char *what, const unsigned char *p, size_t n, char **out)
{
  for (size_t i = 0; i < n; i++)
    FE_CHECK(p[i] >= 0x20 && p[i] < 0x7f, FE_ERR_INPUT,
             "%s is inconsistent: its %s holds the byte 0x%02x; expected printable text", q, what,
             p[i]);
  FE_CALL(fe_malloc(n + 1, out));
  memcpy(*out, p, n);
  (*out)[n] = '\0';
  return FE_SUCCESS;
}

static int parse(const char *q, const unsigned char *b, struct fe_checkpoint *cp)
{
  static const char *const what[3] = {"case name", "stat columns", "dump fields"};
  char **text[3] = {&cp->name, &cp->columns, &cp->fields};
  cp->mesh_id = get_u64(b + FE_CKPT_MESH_ID);
  cp->n_nodes = (long)get_u64(b + FE_CKPT_N_NODES);
  cp->n_cells = (long)get_u64(b + FE_CKPT_N_CELLS);
  cp->step = (long)get_u64(b + FE_CKPT_STEP);
  cp->time = get_f64(b + FE_CKPT_TIME);
  cp->n_dumps = (long)get_u64(b + FE_CKPT_N_DUMPS);
  cp->cfl = get_f64(b + FE_CKPT_CFL);
  cp->dt_max = get_f64(b + FE_CKPT_DT_MAX);
  cp->n_fields = (int)get_u32(b + FE_CKPT_LENGTHS + 12);
  const unsigned char *p = b + FE_CKPT_HEADER;
  for (int i = 0; i < 3; i++) {
    const uint32_t len = get_u32(b + FE_CKPT_LENGTHS + 4 * i);
    FE_CALL(copy_text(q, what[i], p, len, text[i]));
    p += len;
  }
  FE_MALLOC(cp->n_dumps, &cp->dump_times);
  FE_MALLOC((long)cp->n_fields * cp->n_nodes, &cp->field);
  for (long i = 0; i < cp->n_dumps; i++, p += 8) cp->dump_times[i] = get_f64(p);
  for (long i = 0; i < (long)cp->n_fields * cp->n_nodes; i++, p += 8) cp->field[i] = get_f64(p);
  return FE_SUCCESS;
}

/* fesim writes finite states only: anything else was not written by it. */
static int check_finite(const char *q, const struct fe_checkpoint *cp)
{
  FE_CHECK(isfinite(cp->time), FE_ERR_INPUT, "%s holds a time that is not finite (%g)", q,
           cp->time);
  FE_CHECK(isfinite(cp->cfl) && isfinite(cp->dt_max), FE_ERR_INPUT,
           "%s holds a rule of time steps that is not finite (cfl %g, dt_max %g)", q, cp->cfl,
           cp->dt_max);
  for (long i = 0; i < cp->n_dumps; i++)
    FE_CHECK(isfinite(cp->dump_times[i]), FE_ERR_INPUT,
             "%s: the time of dump %ld is not finite (%g)", q, i, cp->dump_times[i]);
  for (long i = 0; i < (long)cp->n_fields * cp->n_nodes; i++)
    FE_CHECK(isfinite(cp->field[i]), FE_ERR_INPUT,
             "%s holds a field that is not finite: %g at node %ld of %ld%s; a checkpoint keeps a "
             "finite state (fesim writes no other)",
             q, cp->field[i], i % cp->n_nodes, cp->n_nodes,
             cp->n_fields > 1 ? " (of a tracer after the first)" : "");
  return FE_SUCCESS;
}

int fe_checkpoint_decode(const char *path, const unsigned char *bytes, size_t size,
                         struct fe_checkpoint *cp)
{
  char q[FE_QUOTE_SIZE + 16], p[FE_QUOTE_SIZE];
  snprintf(q, sizeof q, "checkpoint %s", fe_quote(path, FE_QUOTE_MAX, p, sizeof p));
  memset(cp, 0, sizeof *cp);
  FE_CALL(check_magic(q, bytes, size));
  FE_CALL(check_sum(q, bytes, size));
  FE_CALL(check_layout(q, bytes, size));
  int err = parse(q, bytes, cp);
  if (!err) err = check_finite(q, cp);
  if (err) fe_checkpoint_free(cp);
  return err;
}

int fe_checkpoint_check_file(const char *path)
{
  return fe_file_check_regular(path, "checkpoint", "a checkpoint file written by fesim");
}

/* The whole of a regular file of at most max_bytes (a FIFO named in place of a checkpoint must
 * not hang the run; a shorter file than it was is found by the checksum). */
static int read_whole(const char *path, const char *q, size_t max_bytes, unsigned char **bytes,
                      size_t *size)
{
  int fd;
  size_t n;
  *size = 0;
  FE_CALL(fe_file_open(path, "checkpoint", "a checkpoint file written by fesim", &fd, &n));
  const int err = n > max_bytes ? fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                                                 "checkpoint %s is %zu bytes, more than a "
                                                 "checkpoint of this case can be (%zu bytes): it "
                                                 "belongs to another case or mesh, or is damaged",
                                                 q, n, max_bytes)
                                : fe_file_read_open(fd, path, "checkpoint", n, bytes, size);
  close(fd);
  return err;
}

int fe_checkpoint_read(const char *path, size_t max_bytes, struct fe_checkpoint *cp)
{
  char q[FE_QUOTE_SIZE];
  unsigned char *bytes = NULL;
  size_t size = 0;
  memset(cp, 0, sizeof *cp);
  int err = read_whole(path, fe_quote(path, FE_QUOTE_MAX, q, sizeof q), max_bytes, &bytes, &size);
  if (!err) err = fe_checkpoint_decode(path, bytes, size, cp);
  free(bytes);
  return err;
}

void fe_checkpoint_free(struct fe_checkpoint *cp)
{
  free(cp->name);
  free(cp->columns);
  free(cp->fields);
  free(cp->dump_times);
  free(cp->field);
  cp->name = cp->columns = cp->fields = NULL;
  cp->dump_times = cp->field = NULL;
}

/* ---------------------------------------------------------------- verification */

/* a with %.9g, or %.17g when that does not tell it from b. */
static const char *num(double a, double b, char *buf, size_t size)
{
  char other[40];
  snprintf(buf, size, "%.9g", a);
  snprintf(other, sizeof other, "%.9g", b);
  if (!strcmp(buf, other) && a != b) snprintf(buf, size, "%.17g", a);
  return buf;
}

static int verify_identity(const char *q, const struct fe_checkpoint *cp,
                           const struct fe_checkpoint *run)
{
  char a[FE_QUOTE_SIZE], b[FE_QUOTE_SIZE];
  FE_CHECK(!strcmp(cp->name, run->name), FE_ERR_INPUT,
           "checkpoint %s was written by case %s; this case is %s (<name>): a checkpoint continues "
           "its own case",
           q, fe_quote(cp->name, FE_QUOTE_MAX, a, sizeof a),
           fe_quote(run->name, FE_QUOTE_MAX, b, sizeof b));
  FE_CHECK(cp->mesh_id == run->mesh_id && cp->n_nodes == run->n_nodes &&
               cp->n_cells == run->n_cells,
           FE_ERR_INPUT,
           "checkpoint %s was written on another mesh: %ld nodes, %ld cells, identity %016llx; "
           "this case's mesh has %ld nodes, %ld cells, identity %016llx",
           q, cp->n_nodes, cp->n_cells, (unsigned long long)cp->mesh_id, run->n_nodes, run->n_cells,
           (unsigned long long)run->mesh_id);
  FE_CHECK(!strcmp(cp->columns, run->columns), FE_ERR_INPUT,
           "checkpoint %s was written by a run whose stat file has the columns %s; this case's "
           "has %s",
           q, fe_quote(cp->columns, 2 * FE_QUOTE_MAX, a, sizeof a),
           fe_quote(run->columns, 2 * FE_QUOTE_MAX, b, sizeof b));
  FE_CHECK(!strcmp(cp->fields, run->fields), FE_ERR_INPUT,
           "checkpoint %s was written by a run whose dumps hold the fields %s; this case's hold %s",
           q, fe_quote(cp->fields, FE_QUOTE_MAX, a, sizeof a),
           fe_quote(run->fields, FE_QUOTE_MAX, b, sizeof b));
  FE_CHECK(cp->n_fields == run->n_fields, FE_ERR_INPUT,
           "checkpoint %s holds %d tracer fields; this case has %d tracers", q, cp->n_fields,
           run->n_fields);
  return FE_SUCCESS;
}

/* The same rule of steps: a fixed dt (its value is checked by the times), or the same cfl
 * and dt_max, which choose every step. */
static int verify_rule(const char *q, const struct fe_checkpoint *cp, const struct fe_schedule *s)
{
  char a[40], b[40], c[40], d[40];
  FE_CHECK((cp->cfl > 0) == (s->cfl > 0), FE_ERR_INPUT,
           "checkpoint %s was written by a run whose steps %s; this case's steps %s (<time>): a "
           "restart continues the run's own steps",
           q, cp->cfl > 0 ? "came from a Courant number (cfl)" : "had a fixed dt",
           s->cfl > 0 ? "come from a Courant number (cfl)" : "have a fixed dt");
  FE_CHECK(!(s->cfl > 0) || (cp->cfl == s->cfl && cp->dt_max == s->dt_max), FE_ERR_INPUT,
           "checkpoint %s was written by a run with cfl = %s, dt_max = %s; this case has cfl = "
           "%s, dt_max = %s (<time>): its steps would not be the run's",
           q, num(cp->cfl, s->cfl, a, sizeof a), num(cp->dt_max, s->dt_max, b, sizeof b),
           num(s->cfl, cp->cfl, c, sizeof c), num(s->dt_max, cp->dt_max, d, sizeof d));
  return FE_SUCCESS;
}

/* Fixed dt: step < n_steps, ending at the schedule's time of it. */
static int verify_fixed_step(const char *q, const struct fe_checkpoint *cp,
                             const struct fe_schedule *s)
{
  char a[40], b[40];
  FE_CHECK(
      cp->step < s->n_steps, FE_ERR_INPUT,
      "checkpoint %s is at step %ld; this case has %ld steps (<time>), so nothing is left to run",
      q, cp->step, s->n_steps);
  const double t = fe_schedule_time(s, cp->step);
  FE_CHECK(cp->time == t, FE_ERR_INPUT,
           "checkpoint %s is at step %ld, t = %s; this case's step %ld ends at t = %s: its <time> "
           "(start, dt) is not the one of the run that wrote the checkpoint",
           q, cp->step, num(cp->time, t, a, sizeof a), cp->step, num(t, cp->time, b, sizeof b));
  return FE_SUCCESS;
}

/* cfl: a time in [start, end), at start exactly at step 0, at most FE_MAX_STEPS steps. */
static int verify_cfl_step(const char *q, const struct fe_checkpoint *cp,
                           const struct fe_schedule *s)
{
  char a[40], b[40];
  FE_CHECK(cp->time < s->end, FE_ERR_INPUT,
           "checkpoint %s is at step %ld, t = %s; this case ends at t = %s (<time>), so nothing "
           "is left to run",
           q, cp->step, num(cp->time, s->end, a, sizeof a), num(s->end, cp->time, b, sizeof b));
  FE_CHECK(cp->time >= s->start && (cp->step == 0) == (cp->time == s->start) &&
               cp->step < FE_MAX_STEPS,
           FE_ERR_INPUT,
           "checkpoint %s is at step %ld, t = %s; this case starts at t = %s (<time>): its start "
           "is not the one of the run that wrote the checkpoint",
           q, cp->step, num(cp->time, s->start, a, sizeof a), num(s->start, cp->time, b, sizeof b));
  return FE_SUCCESS;
}

/* " (step N)": the step of dump `index` with a fixed dt. */
static const char *step_of(const struct fe_schedule *s, long index, char *buf, size_t size)
{
  buf[0] = '\0';
  if (!(s->cfl > 0)) snprintf(buf, size, " (step %ld)", fe_schedule_dump_step(s, index));
  return buf;
}

/* The dumps by the checkpoint's step, at the times the schedule gives (with cfl and a dump
 * every few steps: after the start, in order, none after the checkpoint's time). */
static int verify_dumps(const char *q, const struct fe_checkpoint *cp, const struct fe_schedule *s)
{
  char a[40], b[40], every[64], where[40];
  const long dumps = fe_schedule_dumps_by(s, cp->step, cp->time);
  if (s->output_every)
    snprintf(every, sizeof every, "a dump every %ld steps", s->output_every);
  else
    snprintf(every, sizeof every, "a dump every %.9g in time", s->output_period);
  FE_CHECK(cp->n_dumps == dumps, FE_ERR_INPUT,
           "checkpoint %s holds %ld dumps at step %ld; this case's schedule (%s) gives %ld by "
           "then: its <output %s> is not the one of the run that wrote the checkpoint",
           q, cp->n_dumps, cp->step, every, dumps, s->output_every ? "every" : "period");
  for (long i = 0; i < dumps; i++) {
    double ti;
    if (fe_schedule_dump_time(s, i, &ti)) {
      FE_CHECK(cp->dump_times[i] == ti, FE_ERR_INPUT,
               "checkpoint %s has dump %ld at t = %s; this case's schedule has it at t = %s%s", q,
               i, num(cp->dump_times[i], ti, a, sizeof a), num(ti, cp->dump_times[i], b, sizeof b),
               step_of(s, i, where, sizeof where));
      continue;
    }
    FE_CHECK(cp->dump_times[i] > cp->dump_times[i - 1] && cp->dump_times[i] <= cp->time,
             FE_ERR_INPUT,
             "checkpoint %s has dump %ld at t = %s, after dump %ld at t = %.17g; expected dumps in "
             "order, none after its step's t = %.17g",
             q, i, num(cp->dump_times[i], cp->time, a, sizeof a), i - 1, cp->dump_times[i - 1],
             cp->time);
  }
  return FE_SUCCESS;
}

int fe_checkpoint_verify(const char *path, const struct fe_checkpoint *cp,
                         const struct fe_checkpoint *run, const struct fe_schedule *s)
{
  char q[FE_QUOTE_SIZE];
  fe_quote(path, FE_QUOTE_MAX, q, sizeof q);
  FE_CALL(verify_identity(q, cp, run));
  FE_CALL(verify_rule(q, cp, s));
  FE_CALL(s->cfl > 0 ? verify_cfl_step(q, cp, s) : verify_fixed_step(q, cp, s));
  return verify_dumps(q, cp, s);
}
