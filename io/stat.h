/* The .stat file: one CSV row per step (docs/case-format.md, "Outputs"). */
#ifndef FE_STAT_H
#define FE_STAT_H

struct fe_stat_row {
  long step;
  double time, dt;
  double courant; /* the step's largest cell Courant number, from the velocity at its start */
  double min, max, integral;
  double l2_error, linf_error; /* written only when the case has <exact> */
  int advection_iterations, diffusion_iterations;
  double wall_seconds;
};

struct fe_stat;

/* The header line (without its newline): the columns of the file. */
const char *fe_stat_columns(int has_exact);

/* Create path with its header (an earlier file is replaced).  FE_ERR_RESOURCE when it cannot. */
int fe_stat_create(const char *path, int has_exact, struct fe_stat **stat);

/* Whether path can be continued after `step`, which ended at `time`, without
 * writing anything: its header must be this run's columns, and it must hold
 * the row of `step` with that time, after complete rows.  *keep: the bytes up
 * to the end of that row (later rows, of a run that was stopped, are
 * dropped by fe_stat_resume).  FE_ERR_INPUT naming what does not fit. */
int fe_stat_check_resume(const char *path, int has_exact, long step, double time, long *keep);
/* Cut path to `keep` bytes (fe_stat_check_resume) and append rows after them. */
int fe_stat_resume(const char *path, int has_exact, long keep, struct fe_stat **stat);

/* Append one row (17 significant digits), whole or not at all: when the disk
 * is full (or a file size limit is reached) the file is cut back to its last
 * complete row and FE_ERR_RESOURCE returned. */
int fe_stat_write(struct fe_stat *stat, const struct fe_stat_row *row);
void fe_stat_destroy(struct fe_stat *stat);

#endif
