/* The CSV files a run appends a row to as it steps: the stat file (io/stat.h) and the probes
 * file (docs/case-format.md, "Outputs").  A header line names the columns; each row starts
 * with the step and its time, then the values, 17 significant digits each.  A row is written
 * whole or not at all, so the file always ends with a complete row; a restart keeps the rows
 * up to its checkpoint's step and appends after them. */
#ifndef FE_CSV_H
#define FE_CSV_H

struct fe_csv;

/* Create path with the header `columns` (an earlier file is replaced).  `what` names the file
 * in messages ("stat file").  FE_ERR_RESOURCE when it cannot. */
int fe_csv_create(const char *path, const char *what, const char *columns, struct fe_csv **csv);

/* Whether path can be continued after `step`, which ended at `time`, without writing anything.
 * Its header must be `columns`; its rows, complete lines of as many values, at ascending steps
 * that are multiples of `every` (1 for a row per step), up to the last multiple of every at or
 * before `step`, whose row must be there (at the time `time` when it is `step`'s row).  *keep:
 * the bytes up to the end of that row (later rows, of a run that was stopped, are dropped by
 * fe_csv_resume).  FE_ERR_INPUT naming what does not fit. */
int fe_csv_check_resume(const char *path, const char *what, const char *columns, long step,
                        double time, long every, long *keep);
/* Cut path to `keep` bytes (fe_csv_check_resume) and append rows after them. */
int fe_csv_resume(const char *path, const char *what, long keep, struct fe_csv **csv);

/* Append the row "step,time,values[0],...,values[n-1]" (17 significant digits), whole or not
 * at all: when the disk is full (or a file size limit is reached) the file is cut back to its
 * last complete row and FE_ERR_RESOURCE returned. */
int fe_csv_write(struct fe_csv *csv, long step, double time, long n, const double *values);
void fe_csv_destroy(struct fe_csv *csv);

#endif
