/* The .stat file: one CSV row per step (docs/case-format.md, "Outputs"): the step, its time,
 * length and Courant number, then each tracer's extrema, integral, error norms (with an exact
 * solution), solver iterations and, with <fluxes>, its budget (each boundary group's advective
 * and diffusive fluxes, then the source, absorption and divergence terms), then the wall
 * clock.  With one tracer the columns are
 * named as they always were (min, max, ...); with several, each tracer's carry its name as
 * Fluidity's statistics do (T%min, S%min, ...). */
#ifndef FE_STAT_H
#define FE_STAT_H

/* Which columns a stat file has: its tracers in order, their names, which of them have an
 * exact solution (l2_error and linf_error columns), and whether each has a budget, through
 * which boundary groups (their column labels: advective_flux%LABEL, diffusive_flux%LABEL). */
struct fe_stat_layout {
  int n_tracers;
  const char *const *names;
  const int *has_exact;
  int fluxes;
  int n_flux_groups;
  const char *const *flux_labels;
};

/* One tracer's values in a row. */
struct fe_stat_tracer {
  double min, max, integral;
  double l2_error, linf_error; /* written only when the tracer has <exact> */
  int advection_iterations, diffusion_iterations;
  /* with fluxes: rates over the step, positive into the domain (app/budget.h) */
  const double *advective_flux, *diffusive_flux; /* per boundary group of the layout */
  double source, absorption, divergence;
};

struct fe_stat_row {
  long step;
  double time, dt;
  double courant; /* the step's largest cell Courant number, from the velocity at its start */
  const struct fe_stat_tracer *tracers; /* the layout's n_tracers */
  double wall_seconds;
};

struct fe_stat;

/* The header line (without its newline), allocated: the columns of the file. */
int fe_stat_columns(const struct fe_stat_layout *layout, char **columns);

/* Create path with its header (an earlier file is replaced).  FE_ERR_RESOURCE when it cannot. */
int fe_stat_create(const char *path, const struct fe_stat_layout *layout, struct fe_stat **stat);

/* Whether path can be continued after `step`, which ended at `time`, without
 * writing anything: its header must be this run's columns, and it must hold
 * the row of `step` with that time, after complete rows.  *keep: the bytes up
 * to the end of that row (later rows, of a run that was stopped, are
 * dropped by fe_stat_resume).  FE_ERR_INPUT naming what does not fit. */
int fe_stat_check_resume(const char *path, const struct fe_stat_layout *layout, long step,
                         double time, long *keep);
/* Cut path to `keep` bytes (fe_stat_check_resume) and append rows after them. */
int fe_stat_resume(const char *path, const struct fe_stat_layout *layout, long keep,
                   struct fe_stat **stat);

/* Append one row (17 significant digits), whole or not at all: when the disk
 * is full (or a file size limit is reached) the file is cut back to its last
 * complete row and FE_ERR_RESOURCE returned. */
int fe_stat_write(struct fe_stat *stat, const struct fe_stat_row *row);
void fe_stat_destroy(struct fe_stat *stat);

#endif
