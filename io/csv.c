#include "io/csv.h"

#include "core/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

struct fe_csv {
  int fd;
  char *path;
  const char *what;
  off_t size;  /* bytes of complete rows */
  char *line;  /* a row's text */
  size_t room; /* its bytes */
};

static const char *quoted(const char *path, char *buf)
{
  return fe_quote(path, FE_QUOTE_MAX, buf, FE_QUOTE_SIZE);
}

/* Write text at the end of the complete rows; on failure cut the file back there. */
static int append(struct fe_csv *csv, const char *text, size_t n, const char *what)
{
  char q[FE_QUOTE_SIZE];
  size_t done = 0;
  int e = 0;
  while (done < n) {
    const ssize_t w = pwrite(csv->fd, text + done, n - done, csv->size + (off_t)done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      e = w < 0 ? errno : EIO;
      break;
    }
    done += (size_t)w;
  }
  if (!e) {
    csv->size += (off_t)n;
    return FE_SUCCESS;
  }
  const int cut = ftruncate(csv->fd, csv->size) == 0;
  FE_RAISE(FE_ERR_RESOURCE, "cannot write %s: %s (%s not written%s)", quoted(csv->path, q),
           strerror(e), what,
           cut ? "; the file ends with the row before"
               : ", and the file could not be cut back to the row before");
}

static int csv_open(const char *path, const char *what, int flags, struct fe_csv **out)
{
  char q[FE_QUOTE_SIZE];
  struct fe_csv *s;
  *out = NULL;
  FE_CALLOC(1, &s);
  s->what = what;
  int err = fe_strdup(path, &s->path);
  s->fd = err ? -1 : open(path, flags | O_CLOEXEC, 0666);
  if (!err && s->fd < 0)
    err = fe_error_raise(FE_ERR_RESOURCE, __FILE__, __LINE__, "cannot open %s: %s", quoted(path, q),
                         strerror(errno));
  if (err) {
    fe_csv_destroy(s);
    return err;
  }
  *out = s;
  return FE_SUCCESS;
}

int fe_csv_create(const char *path, const char *what, const char *columns, struct fe_csv **csv)
{
  FE_CALL(csv_open(path, what, O_WRONLY | O_CREAT | O_TRUNC, csv));
  int err = append(*csv, columns, strlen(columns), "the header");
  if (!err) err = append(*csv, "\n", 1, "the header");
  if (err) {
    fe_csv_destroy(*csv);
    *csv = NULL;
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

/* What a restart looks for in a file: rows of ascending steps, multiples of every, up to
 * `target`, the last multiple of every at or before `step`, whose time is `time` when it is
 * `step`. */
struct scan {
  const char *q, *what;
  long fields, step, every, target;
  double time;
  long number; /* the line read last */
  long last;   /* the step of the row before (-1 before the first) */
};

/* One row before or at the target's. */
static int check_line(struct scan *s, const char *line, int *found)
{
  FE_CHECK(strchr(line, '\n'), FE_ERR_INPUT,
           "cannot continue %s: line %ld is incomplete, before the row of step %ld was found; a "
           "restart needs the %s of the run that wrote the checkpoint",
           s->q, s->number, s->target, s->what);
  char *end;
  errno = 0;
  const long k = strtol(line, &end, 10);
  FE_CHECK(end != line && *end == ',' && !errno && count_fields(line) == s->fields, FE_ERR_INPUT,
           "cannot continue %s: line %ld is not a row of %ld values", s->q, s->number, s->fields);
  FE_CHECK(k > s->last, FE_ERR_INPUT,
           "cannot continue %s: line %ld is the row of step %ld, after the row of step %ld; "
           "expected the rows of ascending steps",
           s->q, s->number, k, s->last);
  FE_CHECK(k % s->every == 0, FE_ERR_INPUT,
           "cannot continue %s: line %ld is the row of step %ld, where this run writes a row "
           "every %ld steps; a restart needs the %s of the run that wrote the checkpoint",
           s->q, s->number, k, s->every, s->what);
  s->last = k;
  if (k != s->target) return FE_SUCCESS;
  const double t = strtod(end + 1, &end);
  FE_CHECK(*end == ',' && (k != s->step || t == s->time), FE_ERR_INPUT,
           "cannot continue %s: its row of step %ld (line %ld) is at t = %.17g, the checkpoint's "
           "step at t = %.17g; a restart needs the %s of the run that wrote the checkpoint",
           s->q, k, s->number, t, s->time, s->what);
  *found = 1;
  return FE_SUCCESS;
}

static int check_header(const struct scan *s, const char *columns, char *line, ssize_t n)
{
  char qa[FE_QUOTE_SIZE * 2], qb[FE_QUOTE_SIZE * 2];
  const int header =
      n > 0 && (size_t)n == strlen(columns) + 1 && !strncmp(line, columns, (size_t)n - 1);
  if (header) return FE_SUCCESS;
  if (n > 0) line[strcspn(line, "\n")] = '\0';
  FE_RAISE(FE_ERR_INPUT,
           "cannot continue %s: its columns are %s, this run writes %s; a restart continues the "
           "%s of its own run",
           s->q, fe_quote(n > 0 ? line : "", 2 * FE_QUOTE_MAX, qa, sizeof qa),
           fe_quote(columns, 2 * FE_QUOTE_MAX, qb, sizeof qb), s->what);
}

static int scan(FILE *f, struct scan *s, const char *columns, long *keep)
{
  char *line = NULL;
  size_t cap = 0;
  ssize_t n = getline(&line, &cap, f);
  int err = check_header(s, columns, line, n);
  s->number = 1;
  *keep = n > 0 ? n : 0;
  int found = 0;
  while (!err && !found && (n = getline(&line, &cap, f)) > 0) {
    s->number++;
    err = check_line(s, line, &found);
    *keep += n;
  }
  free(line);
  FE_CALL(err);
  FE_CHECK(found, FE_ERR_INPUT,
           "cannot continue %s: it has no row of step %ld (its last complete row is on line %ld); "
           "a restart needs the %s of the run that wrote the checkpoint",
           s->q, s->target, s->number, s->what);
  return FE_SUCCESS;
}

int fe_csv_check_resume(const char *path, const char *what, const char *columns, long step,
                        double time, long every, long *keep)
{
  char q[FE_QUOTE_SIZE];
  quoted(path, q);
  struct scan s = {.q = q,
                   .what = what,
                   .fields = count_fields(columns),
                   .step = step,
                   .every = every,
                   .target = step / every * every,
                   .time = time,
                   .last = -1};
  FILE *f = fopen(path, "r");
  FE_CHECK(f, FE_ERR_INPUT, "cannot continue %s: %s; a restart needs the %s of the run", q,
           strerror(errno), what);
  const int err = scan(f, &s, columns, keep);
  fclose(f);
  return err;
}

int fe_csv_resume(const char *path, const char *what, long keep, struct fe_csv **csv)
{
  char q[FE_QUOTE_SIZE];
  FE_CALL(csv_open(path, what, O_WRONLY, csv));
  (*csv)->size = (off_t)keep;
  if (ftruncate((*csv)->fd, (off_t)keep) == 0) return FE_SUCCESS;
  const int e = errno;
  fe_csv_destroy(*csv);
  *csv = NULL;
  FE_RAISE(FE_ERR_RESOURCE, "cannot cut %s back to the checkpoint's row: %s", quoted(path, q),
           strerror(e));
}

/* ---------------------------------------------------------------- rows */

/* A number of %.17g is at most 24 characters ("-1.2345678901234567e-308"), a step 20; each
 * has a comma or the newline after it. */
enum { NUMBER_MAX = 25 };

int fe_csv_write(struct fe_csv *csv, long step, double time, long n, const double *values)
{
  char what[64];
  const size_t need = (size_t)(n + 2) * NUMBER_MAX + 1;
  if (need > csv->room) {
    char *grown = realloc(csv->line, need);
    FE_CHECK(grown, FE_ERR_RESOURCE, "out of memory: a row of %ld values for %s", n, csv->path);
    csv->line = grown;
    csv->room = need;
  }
  char *p = csv->line, *end = csv->line + need;
  p += snprintf(p, (size_t)(end - p), "%ld,%.17g", step, time);
  for (long i = 0; i < n; i++) p += snprintf(p, (size_t)(end - p), ",%.17g", values[i]);
  *p++ = '\n';
  snprintf(what, sizeof what, "the row of step %ld", step);
  return append(csv, csv->line, (size_t)(p - csv->line), what);
}

void fe_csv_destroy(struct fe_csv *csv)
{
  if (!csv) return;
  if (csv->fd >= 0) close(csv->fd);
  free(csv->path);
  free(csv->line);
  free(csv);
}
