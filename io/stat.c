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
  int n = fprintf(stat->file, "step,time,dt,min,max,integral%s,advection_iterations,"
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

int fe_stat_write(struct fe_stat *stat, const struct fe_stat_row *r)
{
  int n = fprintf(stat->file, "%d,%.17g,%.17g,%.17g,%.17g,%.17g", r->step, r->time, r->dt, r->min,
                  r->max, r->integral);
  if (n >= 0 && stat->has_exact) n = fprintf(stat->file, ",%.17g,%.17g", r->l2_error, r->linf_error);
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
