/* The .stat file: one CSV row per step (case-format.md, "Outputs"). */
#ifndef FE_STAT_H
#define FE_STAT_H

#include <stdio.h>

struct fe_stat_row {
  long step;
  double time, dt, min, max, integral;
  double l2_error, linf_error; /* written only when the case has <exact> */
  int advection_iterations, diffusion_iterations;
  double wall_seconds;
};

struct fe_stat;

/* Create dir/NAME.stat with its header.  FE_ERR_RESOURCE when it cannot. */
int fe_stat_create(const char *dir, const char *name, int has_exact, struct fe_stat **stat);
/* Continue dir/NAME.stat after a restart from `step`: keep the header and the
 * rows of steps 0..step (later rows, from the run that was stopped, go), then
 * append.  FE_ERR_INPUT when the file is missing or has fewer rows. */
int fe_stat_resume(const char *dir, const char *name, int has_exact, int step, struct fe_stat **stat);
/* Append one row (17 significant digits) and flush it. */
int fe_stat_write(struct fe_stat *stat, const struct fe_stat_row *row);
void fe_stat_destroy(struct fe_stat *stat);

#endif
