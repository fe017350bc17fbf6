#include "io/stat.h"

#include "core/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct fe_stat {
  FILE *file;
  char *path;
  int has_exact;
};

/* Flush after every row so that a killed run leaves only complete rows. */
static int flush_checked(struct fe_stat *stat, int printed)
{
  int e = errno;
  if (printed >= 0) {
    errno = 0;
    if (fflush(stat->file) == 0) return FE_SUCCESS;
    e = errno;
  }
  FE_RAISE(FE_ERR_RESOURCE, "cannot write %s: %s", stat->path, strerror(e ? e : EIO));
}

static int open_stat(const char *dir, const char *name, int has_exact, struct fe_stat *stat)
{
  size_t size = (dir ? strlen(dir) : 0) + strlen(name) + 8;
  FE_MALLOC(size, &stat->path);
  if (dir && dir[0])
    snprintf(stat->path, size, "%s/%s.stat", dir, name);
  else
    snprintf(stat->path, size, "%s.stat", name);
  stat->has_exact = has_exact;
  errno = 0;
  stat->file = fopen(stat->path, "w");
  FE_CHECK(stat->file, FE_ERR_RESOURCE, "cannot create %s: %s", stat->path, strerror(errno));
  int n = fprintf(stat->file,
                  "step,time,dt,min,max,integral%s,advection_iterations,"
                  "diffusion_iterations,wall_seconds\n",
                  has_exact ? ",l2_error,linf_error" : "");
  return flush_checked(stat, n);
}

int fe_stat_create(const char *dir, const char *name, int has_exact, struct fe_stat **stat)
{
  *stat = NULL;
  struct fe_stat *s;
  FE_CALLOC(1, &s);
  int err = open_stat(dir, name, has_exact, s);
  if (err) {
    fe_stat_destroy(s);
    return err;
  }
  *stat = s;
  return FE_SUCCESS;
}

/* Copy the header and the rows of steps <= step from path into tmp. */
static int keep_rows(const char *path, const char *tmp, int step)
{
  FILE *in = fopen(path, "r");
  FE_CHECK(in, FE_ERR_INPUT, "cannot continue %s: %s; a restart needs the stat file of the run",
           path, strerror(errno));
  FILE *out = fopen(tmp, "w");
  if (!out) {
    int e = errno;
    fclose(in);
    FE_RAISE(FE_ERR_RESOURCE, "cannot write %s: %s", tmp, strerror(e));
  }
  char line[4096];
  int kept = 0, ok = 1, header = 1;
  while (ok && fgets(line, sizeof line, in)) {
    if (!header && (atoi(line) > step || !strchr(line, '\n'))) break; /* later or incomplete */
    ok = fputs(line, out) >= 0;
    kept += !header;
    header = 0;
  }
  fclose(in);
  ok = (fclose(out) == 0) && ok;
  if (!ok || kept < step + 1) {
    remove(tmp);
    FE_CHECK(ok, FE_ERR_RESOURCE, "cannot write %s", tmp);
    FE_RAISE(FE_ERR_INPUT, "cannot continue %s: it has %d rows up to step %d, expected %d", path,
             kept, step, step + 1);
  }
  return FE_SUCCESS;
}

int fe_stat_resume(const char *dir, const char *name, int has_exact, int step,
                   struct fe_stat **stat)
{
  *stat = NULL;
  struct fe_stat *s;
  FE_CALLOC(1, &s);
  size_t size = (dir ? strlen(dir) : 0) + strlen(name) + 32;
  char *tmp = NULL;
  int err = fe_malloc(size, &s->path);
  if (!err) err = fe_malloc(size, &tmp);
  if (!err) {
    snprintf(s->path, size, "%s/%s.stat", dir && dir[0] ? dir : ".", name);
    snprintf(tmp, size, "%s.tmp", s->path);
    s->has_exact = has_exact;
    err = keep_rows(s->path, tmp, step);
  }
  if (!err && rename(tmp, s->path) != 0)
    err = fe_error_raise(FE_ERR_RESOURCE, __FILE__, __LINE__, "cannot replace %s: %s", s->path,
                         strerror(errno));
  if (!err) {
    s->file = fopen(s->path, "a");
    if (!s->file)
      err = fe_error_raise(FE_ERR_RESOURCE, __FILE__, __LINE__, "cannot append to %s: %s", s->path,
                           strerror(errno));
  }
  free(tmp);
  if (err) {
    fe_stat_destroy(s);
    return err;
  }
  *stat = s;
  return FE_SUCCESS;
}

int fe_stat_write(struct fe_stat *stat, const struct fe_stat_row *r)
{
  int n = fprintf(stat->file, "%ld,%.17g,%.17g,%.17g,%.17g,%.17g", r->step, r->time, r->dt, r->min,
                  r->max, r->integral);
  if (n >= 0 && stat->has_exact)
    n = fprintf(stat->file, ",%.17g,%.17g", r->l2_error, r->linf_error);
  if (n >= 0)
    n = fprintf(stat->file, ",%d,%d,%.17g\n", r->advection_iterations, r->diffusion_iterations,
                r->wall_seconds);
  return flush_checked(stat, n);
}

void fe_stat_destroy(struct fe_stat *stat)
{
  if (!stat) return;
  if (stat->file) fclose(stat->file);
  free(stat->path);
  free(stat);
}
