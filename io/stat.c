/* The stat file: a row per step of io/csv.h, the values of struct fe_stat_row. */
#include "io/stat.h"

#include "core/error.h"
#include "io/csv.h"

#include <stdlib.h>

struct fe_stat {
  struct fe_csv *csv;
  int has_exact;
};

static const char what[] = "stat file";

static const char columns_exact[] =
    "step,time,dt,courant,min,max,integral,l2_error,linf_error,advection_iterations,"
    "diffusion_iterations,wall_seconds";
static const char columns_plain[] =
    "step,time,dt,courant,min,max,integral,advection_iterations,diffusion_iterations,"
    "wall_seconds";

const char *fe_stat_columns(int has_exact) { return has_exact ? columns_exact : columns_plain; }

/* The file made or continued by open (fe_csv_create or fe_csv_resume's work). */
static int stat_new(int has_exact, struct fe_stat **out)
{
  FE_CALLOC(1, out);
  (*out)->has_exact = has_exact;
  return FE_SUCCESS;
}

static int stat_done(int err, struct fe_stat **stat)
{
  if (!err) return FE_SUCCESS;
  fe_stat_destroy(*stat);
  *stat = NULL;
  return err;
}

int fe_stat_create(const char *path, int has_exact, struct fe_stat **stat)
{
  *stat = NULL;
  FE_CALL(stat_new(has_exact, stat));
  return stat_done(fe_csv_create(path, what, fe_stat_columns(has_exact), &(*stat)->csv), stat);
}

int fe_stat_check_resume(const char *path, int has_exact, long step, double time, long *keep)
{
  return fe_csv_check_resume(path, what, fe_stat_columns(has_exact), step, time, 1, keep);
}

int fe_stat_resume(const char *path, int has_exact, long keep, struct fe_stat **stat)
{
  *stat = NULL;
  FE_CALL(stat_new(has_exact, stat));
  return stat_done(fe_csv_resume(path, what, keep, &(*stat)->csv), stat);
}

/* The iteration counts as doubles print as the integers they are (%.17g). */
int fe_stat_write(struct fe_stat *stat, const struct fe_stat_row *r)
{
  double v[10];
  int n = 0;
  v[n++] = r->dt;
  v[n++] = r->courant;
  v[n++] = r->min;
  v[n++] = r->max;
  v[n++] = r->integral;
  if (stat->has_exact) {
    v[n++] = r->l2_error;
    v[n++] = r->linf_error;
  }
  v[n++] = r->advection_iterations;
  v[n++] = r->diffusion_iterations;
  v[n++] = r->wall_seconds;
  return fe_csv_write(stat->csv, r->step, r->time, n, v);
}

void fe_stat_destroy(struct fe_stat *stat)
{
  if (!stat) return;
  fe_csv_destroy(stat->csv);
  free(stat);
}
