#include "io/stat.h"

#include "core/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

struct fe_stat {
  int fd;
  char *path;
  int has_exact;
  off_t size; /* bytes of complete rows */
};

static const char columns_exact[] =
    "step,time,dt,courant,min,max,integral,l2_error,linf_error,advection_iterations,"
    "diffusion_iterations,wall_seconds";
static const char columns_plain[] =
    "step,time,dt,courant,min,max,integral,advection_iterations,diffusion_iterations,"
    "wall_seconds";

const char *fe_stat_columns(int has_exact) { return has_exact ? columns_exact : columns_plain; }

static const char *quoted(const char *path, char *buf)
{
  return fe_quote(path, FE_QUOTE_MAX, buf, FE_QUOTE_SIZE);
}

/* Write text at the end of the complete rows; on failure cut the file back there. */
static int append(struct fe_stat *stat, const char *text, size_t n, const char *what)
{
  char q[FE_QUOTE_SIZE];
  size_t done = 0;
  int e = 0;
  while (done < n) {
    const ssize_t w = pwrite(stat->fd, text + done, n - done, stat->size + (off_t)done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      e = w < 0 ? errno : EIO;
      break;
    }
    done += (size_t)w;
  }
  if (!e) {
    stat->size += (off_t)n;
    return FE_SUCCESS;
  }
  const int cut = ftruncate(stat->fd, stat->size) == 0;
  FE_RAISE(FE_ERR_RESOURCE, "cannot write %s: %s (%s not written%s)", quoted(stat->path, q),
           strerror(e), what,
           cut ? "; the file ends with the row before"
               : ", and the file could not be cut back to the row before");
}

static int stat_open(const char *path, int has_exact, int flags, struct fe_stat **out)
{
  char q[FE_QUOTE_SIZE];
  struct fe_stat *s;
  *out = NULL;
  FE_CALLOC(1, &s);
  s->has_exact = has_exact;
  int err = fe_strdup(path, &s->path);
  s->fd = err ? -1 : open(path, flags | O_CLOEXEC, 0666);
  if (!err && s->fd < 0)
    err = fe_error_raise(FE_ERR_RESOURCE, __FILE__, __LINE__, "cannot open %s: %s", quoted(path, q),
                         strerror(errno));
  if (err) {
    fe_stat_destroy(s);
    return err;
  }
  *out = s;
  return FE_SUCCESS;
}

int fe_stat_create(const char *path, int has_exact, struct fe_stat **stat)
{
  FE_CALL(stat_open(path, has_exact, O_WRONLY | O_CREAT | O_TRUNC, stat));
  const char *h = fe_stat_columns(has_exact);
  int err = append(*stat, h, strlen(h), "the header");
  if (!err) err = append(*stat, "\n", 1, "the header");
  if (err) {
    fe_stat_destroy(*stat);
    *stat = NULL;
  }
  return err;
}

/* ---------------------------------------------------------------- resuming */

static long count_fields(const char *line)
{
  long n = 1;
  for (const char *c = line; *c && *c != '\n'; c++) n += *c == ',';
  return n;
}

/* One line of the file: the header, then rows until the one of `step`. */
static int check_line(const char *q, const char *line, long number, long fields, long step,
                      double time, int *found)
{
  FE_CHECK(strchr(line, '\n'), FE_ERR_INPUT,
           "cannot continue %s: line %ld is incomplete, before the row of step %ld was found; a "
           "restart needs the stat file of the run that wrote the checkpoint",
           q, number, step);
  char *end;
  errno = 0;
  const long k = strtol(line, &end, 10);
  FE_CHECK(end != line && *end == ',' && !errno && count_fields(line) == fields, FE_ERR_INPUT,
           "cannot continue %s: line %ld is not a row of %ld values", q, number, fields);
  if (k != step) return FE_SUCCESS;
  const double t = strtod(end + 1, &end);
  FE_CHECK(*end == ',' && t == time, FE_ERR_INPUT,
           "cannot continue %s: its row of step %ld (line %ld) is at t = %.17g, the checkpoint's "
           "step at t = %.17g; a restart needs the stat file of the run that wrote the checkpoint",
           q, step, number, t, time);
  *found = 1;
  return FE_SUCCESS;
}

static int scan(FILE *f, const char *q, int has_exact, long step, double time, long *keep)
{
  const char *columns = fe_stat_columns(has_exact);
  char *line = NULL, qa[FE_QUOTE_SIZE * 2], qb[FE_QUOTE_SIZE * 2];
  size_t cap = 0;
  ssize_t n = getline(&line, &cap, f);
  const int header =
      n > 0 && (size_t)n == strlen(columns) + 1 && !strncmp(line, columns, (size_t)n - 1);
  if (n > 0 && !header) line[strcspn(line, "\n")] = '\0';
  int err =
      header
          ? FE_SUCCESS
          : fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                           "cannot continue %s: its columns are %s, this run writes %s; a restart "
                           "continues the stat file of its own run",
                           q, fe_quote(n > 0 ? line : "", 2 * FE_QUOTE_MAX, qa, sizeof qa),
                           fe_quote(columns, 2 * FE_QUOTE_MAX, qb, sizeof qb));
  long number = 1, fields = count_fields(columns);
  *keep = n > 0 ? n : 0;
  int found = 0;
  while (!err && !found && (n = getline(&line, &cap, f)) > 0) {
    err = check_line(q, line, ++number, fields, step, time, &found);
    *keep += n;
  }
  free(line);
  FE_CALL(err);
  FE_CHECK(found, FE_ERR_INPUT,
           "cannot continue %s: it has no row of step %ld (its last complete row is on line %ld); "
           "a restart needs the stat file of the run that wrote the checkpoint",
           q, step, number);
  return FE_SUCCESS;
}

int fe_stat_check_resume(const char *path, int has_exact, long step, double time, long *keep)
{
  char q[FE_QUOTE_SIZE];
  quoted(path, q);
  FILE *f = fopen(path, "r");
  FE_CHECK(f, FE_ERR_INPUT, "cannot continue %s: %s; a restart needs the stat file of the run", q,
           strerror(errno));
  const int err = scan(f, q, has_exact, step, time, keep);
  fclose(f);
  return err;
}

int fe_stat_resume(const char *path, int has_exact, long keep, struct fe_stat **stat)
{
  char q[FE_QUOTE_SIZE];
  FE_CALL(stat_open(path, has_exact, O_WRONLY, stat));
  (*stat)->size = (off_t)keep;
  if (ftruncate((*stat)->fd, (off_t)keep) == 0) return FE_SUCCESS;
  const int e = errno;
  fe_stat_destroy(*stat);
  *stat = NULL;
  FE_RAISE(FE_ERR_RESOURCE, "cannot cut %s back to the checkpoint's row: %s", quoted(path, q),
           strerror(e));
}

/* ---------------------------------------------------------------- rows */

int fe_stat_write(struct fe_stat *stat, const struct fe_stat_row *r)
{
  char line[640], what[64];
  int n = snprintf(line, sizeof line, "%ld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", r->step, r->time,
                   r->dt, r->courant, r->min, r->max, r->integral);
  if (stat->has_exact)
    n += snprintf(line + n, sizeof line - (size_t)n, ",%.17g,%.17g", r->l2_error, r->linf_error);
  n += snprintf(line + n, sizeof line - (size_t)n, ",%d,%d,%.17g\n", r->advection_iterations,
                r->diffusion_iterations, r->wall_seconds);
  /* 12 numbers of at most 24 characters each */
  FE_CHECK(n > 0 && (size_t)n < sizeof line, FE_ERR_RESOURCE,
           "internal error: a stat row of %d bytes", n);
  snprintf(what, sizeof what, "the row of step %ld", r->step);
  return append(stat, line, (size_t)n, what);
}

void fe_stat_destroy(struct fe_stat *stat)
{
  if (!stat) return;
  if (stat->fd >= 0) close(stat->fd);
  free(stat->path);
  free(stat);
}
