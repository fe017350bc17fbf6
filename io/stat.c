/* The stat file: a row per step of io/csv.h, the values of struct fe_stat_row. */
#include "io/stat.h"

#include "core/error.h"
#include "io/csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fe_stat {
  struct fe_csv *csv;
  int n_tracers;
  int *has_exact;
  int fluxes, n_flux_groups;
  double *values; /* a row's, after step and time */
};

static const char what[] = "stat file";

/* A tracer's columns, without the tracer's name. */
static const char *const tracer_columns[] = {"min",
                                             "max",
                                             "integral",
                                             "l2_error",
                                             "linf_error",
                                             "advection_iterations",
                                             "diffusion_iterations"};
enum { N_TRACER_COLUMNS = 7, L2_ERROR = 3, LINF_ERROR = 4 };

/* A tracer's budget columns, with fluxes: per boundary group, then the others. */
static const char *const group_columns[] = {"advective_flux", "diffusive_flux"};
static const char *const budget_columns[] = {"source", "absorption", "divergence"};
enum { N_GROUP_COLUMNS = 2, N_BUDGET_COLUMNS = 3 };

/* ",T%" with several tracers, "," with one. */
static char *column_start(const struct fe_stat_layout *l, int k, char *w)
{
  return w + (l->n_tracers > 1 ? sprintf(w, ",%s%%", l->names[k]) : sprintf(w, ","));
}

static int shown(const struct fe_stat_layout *l, int k, int column)
{
  return (column != L2_ERROR && column != LINF_ERROR) || l->has_exact[k];
}

int fe_stat_columns(const struct fe_stat_layout *l, char **columns)
{
  size_t len = 64, labels = 0;
  for (int g = 0; l->fluxes && g < l->n_flux_groups; g++) labels += strlen(l->flux_labels[g]) + 40;
  for (int k = 0; k < l->n_tracers; k++)
    len +=
        (N_TRACER_COLUMNS + N_BUDGET_COLUMNS + 2 * l->n_flux_groups) * (strlen(l->names[k]) + 2) +
        labels + 192;
  FE_CALL(fe_calloc(len, 1, columns));
  char *w = *columns;
  w += sprintf(w, "step,time,dt,courant");
  for (int k = 0; k < l->n_tracers; k++) {
    for (int j = 0; j < N_TRACER_COLUMNS; j++)
      if (shown(l, k, j)) {
        w = column_start(l, k, w);
        w += sprintf(w, "%s", tracer_columns[j]);
      }
    for (int g = 0; l->fluxes && g < l->n_flux_groups; g++)
      for (int j = 0; j < N_GROUP_COLUMNS; j++) {
        w = column_start(l, k, w);
        w += sprintf(w, "%s%%%s", group_columns[j], l->flux_labels[g]);
      }
    for (int j = 0; l->fluxes && j < N_BUDGET_COLUMNS; j++) {
      w = column_start(l, k, w);
      w += sprintf(w, "%s", budget_columns[j]);
    }
  }
  sprintf(w, ",wall_seconds");
  return FE_SUCCESS;
}

/* The file's layout kept for its rows (fe_csv_create or fe_csv_resume's work follows). */
static int stat_new(const struct fe_stat_layout *l, struct fe_stat **out)
{
  FE_CALLOC(1, out);
  struct fe_stat *s = *out;
  s->n_tracers = l->n_tracers;
  FE_CALLOC(l->n_tracers, &s->has_exact);
  for (int k = 0; k < l->n_tracers; k++) s->has_exact[k] = l->has_exact[k] != 0;
  s->fluxes = l->fluxes;
  s->n_flux_groups = l->fluxes ? l->n_flux_groups : 0;
  const int per = N_TRACER_COLUMNS + N_BUDGET_COLUMNS + N_GROUP_COLUMNS * s->n_flux_groups;
  FE_CALLOC((size_t)per * l->n_tracers + 4, &s->values);
  return FE_SUCCESS;
}

static int stat_done(int err, struct fe_stat **stat)
{
  if (!err) return FE_SUCCESS;
  fe_stat_destroy(*stat);
  *stat = NULL;
  return err;
}

int fe_stat_create(const char *path, const struct fe_stat_layout *layout, struct fe_stat **stat)
{
  char *columns;
  *stat = NULL;
  FE_CALL(fe_stat_columns(layout, &columns));
  int err = stat_new(layout, stat);
  if (!err) err = fe_csv_create(path, what, columns, &(*stat)->csv);
  free(columns);
  return stat_done(err, stat);
}

int fe_stat_check_resume(const char *path, const struct fe_stat_layout *layout, long step,
                         double time, long *keep)
{
  char *columns;
  FE_CALL(fe_stat_columns(layout, &columns));
  const int err = fe_csv_check_resume(path, what, columns, step, time, 1, keep);
  free(columns);
  return err;
}

int fe_stat_resume(const char *path, const struct fe_stat_layout *layout, long keep,
                   struct fe_stat **stat)
{
  *stat = NULL;
  FE_CALL(stat_new(layout, stat));
  return stat_done(fe_csv_resume(path, what, keep, &(*stat)->csv), stat);
}

/* The iteration counts as doubles print as the integers they are (%.17g). */
int fe_stat_write(struct fe_stat *stat, const struct fe_stat_row *r)
{
  double *v = stat->values;
  long n = 0;
  v[n++] = r->dt;
  v[n++] = r->courant;
  for (int k = 0; k < stat->n_tracers; k++) {
    const struct fe_stat_tracer *t = &r->tracers[k];
    v[n++] = t->min;
    v[n++] = t->max;
    v[n++] = t->integral;
    if (stat->has_exact[k]) {
      v[n++] = t->l2_error;
      v[n++] = t->linf_error;
    }
    v[n++] = t->advection_iterations;
    v[n++] = t->diffusion_iterations;
    if (!stat->fluxes) continue;
    for (int g = 0; g < stat->n_flux_groups; g++) {
      v[n++] = t->advective_flux ? t->advective_flux[g] : 0.0;
      v[n++] = t->diffusive_flux ? t->diffusive_flux[g] : 0.0;
    }
    v[n++] = t->source;
    v[n++] = t->absorption;
    v[n++] = t->divergence;
  }
  v[n++] = r->wall_seconds;
  return fe_csv_write(stat->csv, r->step, r->time, n, v);
}

void fe_stat_destroy(struct fe_stat *stat)
{
  if (!stat) return;
  fe_csv_destroy(stat->csv);
  free(stat->has_exact);
  free(stat->values);
  free(stat);
}
