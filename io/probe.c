#include "io/probe.h"

#include "core/error.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fe_probe_name_valid(const char *name)
{
  const size_t len = strlen(name);
  if (!len || len > FE_PROBE_NAME_MAX) return 0;
  for (const char *s = name; *s; s++)
    if (!isalnum((unsigned char)*s) && !strchr("_-.", *s)) return 0;
  return 1;
}

/* ---------------------------------------------------------------- the CSV file */

enum { MAX_FIELDS = 5 }; /* name, x, y, z and one more: a row of too many values */

static char *trimmed(char *s, char *end)
{
  while (s < end && isspace((unsigned char)*s)) s++;
  while (end > s && isspace((unsigned char)end[-1])) end--;
  *end = '\0';
  return s;
}

/* The comma-separated values of line (changed in place), spaces around each removed; their
 * count, up to MAX_FIELDS of them kept. */
static int split(char *line, char **fields)
{
  int n = 0;
  for (char *s = line;; n++) {
    char *comma = strchr(s, ',');
    char *end = comma ? comma : s + strlen(s);
    if (n < MAX_FIELDS) fields[n] = trimmed(s, end);
    if (!comma) return n + 1;
    s = comma + 1;
  }
}

static int blank(const char *s)
{
  for (; *s; s++)
    if (!isspace((unsigned char)*s)) return 0;
  return 1;
}

struct reader {
  const char *shown;
  FILE *f;
  char line[FE_PROBE_LINE_MAX + 1];
  long number;
  int columns; /* 3 (name x y) or 4 (name x y z) */
};

/* The next line into r->line, its end (LF or CR LF) removed, read a byte at a time so that
 * no line of the file costs more than FE_PROBE_LINE_MAX bytes; *got 0 at the end of the
 * file. */
static int next_line(struct reader *r, int *got)
{
  long n = 0;
  int c;
  while ((c = getc(r->f)) != EOF && c != '\n') {
    FE_CHECK(n < FE_PROBE_LINE_MAX, FE_ERR_INPUT,
             "%s:%ld: a line longer than %d bytes; expected lines name,x,y[,z]", r->shown,
             r->number + 1, FE_PROBE_LINE_MAX);
    FE_CHECK(c, FE_ERR_INPUT, "%s:%ld: a NUL byte; expected a text file of points: name,x,y[,z]",
             r->shown, r->number + 1);
    r->line[n++] = (char)c;
  }
  FE_CHECK(!ferror(r->f), FE_ERR_INPUT, "%s:%ld: cannot read it: %s", r->shown, r->number + 1,
           strerror(errno));
  *got = n > 0 || c == '\n';
  r->number += *got;
  if (n > 0 && r->line[n - 1] == '\r') n--;
  r->line[n] = '\0';
  return FE_SUCCESS;
}

static int read_header(struct reader *r)
{
  static const char *const words[] = {"name", "x", "y", "z"};
  char q[FE_QUOTE_SIZE];
  int got = 0;
  FE_CALL(next_line(r, &got));
  char *text = r->line;                             /* "" when the file is empty */
  if (!strncmp(text, "\xEF\xBB\xBF", 3)) text += 3; /* a UTF-8 byte order mark */
  fe_quote(text, FE_QUOTE_MAX, q, sizeof q);
  char *fields[MAX_FIELDS] = {0};
  const int n = split(text, fields);
  int ok = n == 3 || n == 4;
  for (int i = 0; ok && i < n; i++) ok = !strcmp(fields[i], words[i]);
  FE_CHECK(ok, FE_ERR_INPUT,
           "%s:1: the header is %s; expected the columns name,x,y (2D) or name,x,y,z (3D)",
           r->shown, got ? q : "missing (the file is empty)");
  r->columns = n;
  return FE_SUCCESS;
}

static int read_coordinate(const struct reader *r, const char *name, const char *axis,
                           const char *text, double *x)
{
  char q[FE_QUOTE_SIZE], *end;
  *x = strtod(text, &end);
  FE_CHECK(end != text && !*end, FE_ERR_INPUT, "%s:%ld: probe '%s': %s = %s is not a number",
           r->shown, r->number, name, axis, fe_quote(text, 40, q, sizeof q));
  FE_CHECK(isfinite(*x), FE_ERR_INPUT, "%s:%ld: probe '%s': %s = %s is not a finite number",
           r->shown, r->number, name, axis, text);
  return FE_SUCCESS;
}

static int read_row(struct reader *r, struct fe_probe *p)
{
  static const char *const axes[] = {"x", "y", "z"};
  char q[FE_QUOTE_SIZE], *fields[MAX_FIELDS] = {0};
  const int n = split(r->line, fields);
  FE_CHECK(n == r->columns, FE_ERR_INPUT, "%s:%ld: %d values; expected %d, as the header %s says",
           r->shown, r->number, n, r->columns, r->columns == 3 ? "name,x,y" : "name,x,y,z");
  FE_CHECK(fe_probe_name_valid(fields[0]), FE_ERR_INPUT,
           "%s:%ld: %s is not a valid probe name; expected 1 to %d letters, digits, '_', '-' or "
           "'.'",
           r->shown, r->number, fe_quote(fields[0], 40, q, sizeof q), FE_PROBE_NAME_MAX);
  for (int a = 0; a < r->columns - 1 && a < 3; a++)
    FE_CALL(read_coordinate(r, fields[0], axes[a], fields[a + 1], &p->x[a]));
  p->n_coords = r->columns - 1;
  p->line = (int)r->number;
  p->in_file = 1;
  return fe_strdup(fields[0], &p->name);
}

static int grow(struct fe_probe **probes, int n, int *capacity)
{
  if (n < *capacity) return FE_SUCCESS;
  const int more = *capacity ? 2 * *capacity : 16;
  struct fe_probe *p = realloc(*probes, (size_t)more * sizeof *p);
  FE_CHECK(p, FE_ERR_RESOURCE, "out of memory: a table of %d probes", more);
  memset(p + *capacity, 0, (size_t)(more - *capacity) * sizeof *p);
  *probes = p;
  *capacity = more;
  return FE_SUCCESS;
}

static int read_rows(struct reader *r, struct fe_probe **probes, int *n)
{
  int capacity = *n, got = 0, read = 0;
  for (;;) {
    FE_CALL(next_line(r, &got));
    if (!got) break;
    if (blank(r->line)) continue;
    FE_CHECK(*n < FE_MAX_PROBES, FE_ERR_INPUT, "%s:%ld: probe %d of the case; expected at most %d",
             r->shown, r->number, *n + 1, FE_MAX_PROBES);
    FE_CALL(grow(probes, *n, &capacity));
    FE_CALL(read_row(r, &(*probes)[*n]));
    ++*n;
    read++;
  }
  FE_CHECK(read, FE_ERR_INPUT,
           "%s: no probe: a header and no rows; expected a row name,x,y%s per probe", r->shown,
           r->columns == 4 ? ",z" : "");
  return FE_SUCCESS;
}

int fe_probes_read_csv(const char *path, const char *shown, struct fe_probe **probes, int *n)
{
  struct reader r = {.shown = shown};
  r.f = fopen(path, "r");
  FE_CHECK(r.f, FE_ERR_INPUT, "%s: cannot open it: %s", shown, strerror(errno));
  int err = read_header(&r);
  if (!err) err = read_rows(&r, probes, n);
  fclose(r.f);
  return err;
}

/* ---------------------------------------------------------------- names */

struct named {
  const char *name;
  int index;
};

static int by_name(const void *a, const void *b)
{
  const struct named *x = a, *y = b;
  const int c = strcmp(x->name, y->name);
  return c ? c : (x->index > y->index) - (x->index < y->index);
}

int fe_probes_find_duplicate(const struct fe_probe *probes, int n, int *first, int *second)
{
  struct named *order;
  *first = *second = -1;
  FE_MALLOC(n + 1, &order);
  for (int i = 0; i < n; i++) order[i] = (struct named){probes[i].name, i};
  qsort(order, (size_t)n, sizeof *order, by_name);
  for (int k = 1; k < n; k++) {
    const int i = order[k - 1].index, j = order[k].index;
    if (strcmp(order[k - 1].name, order[k].name)) continue;
    if (*second < 0 || j < *second) *first = i, *second = j; /* the earliest in the case */
  }
  free(order);
  return FE_SUCCESS;
}

void fe_probes_free(struct fe_probe *probes, int n)
{
  for (int i = 0; probes && i < n; i++) free(probes[i].name);
  free(probes);
}
