/* The CSV files of rows per step (io/csv.h) with a row every N steps, as the probes file has
 * them: a restart keeps the rows up to the last one at or before its step (that row's time
 * checked when it is the step's own), refuses a file whose rows are not multiples of the
 * period, lack that row, are not ascending or have other columns, and leaves the file as it
 * was; the rows continue after the kept ones.  (The stat file, a row per step, is
 * test_stat.c's.) */
#include "io/csv.h"

#include "core/error.h"
#include "read_all.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const COLUMNS = "step,time,T%a,T%b";

/* Rows of steps 0, every, ..., last at t = step / 10, values step and -step. */
static void write_rows(const char *path, long every, long last)
{
  struct fe_csv *csv = NULL;
  CHECK_OK(fe_csv_create(path, "probes file", COLUMNS, &csv));
  for (long k = 0; csv && k <= last; k += every) {
    const double v[2] = {(double)k, -(double)k};
    CHECK_OK(fe_csv_write(csv, k, k / 10.0, 2, v));
  }
  fe_csv_destroy(csv);
}

static long end_of_row(const char *text, long step)
{
  char key[32];
  snprintf(key, sizeof key, "\n%ld,", step);
  const char *row = strstr(text, key);
  return row ? (long)(strchr(row + 1, '\n') + 1 - text) : -1;
}

int main(void)
{
  char path[] = "test_csv.XXXXXX";
  const int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0) TEST_DONE();
  close(fd);
  write_rows(path, 5, 20);
  char *full = read_all(path);
  CHECK(full && !strncmp(full, "step,time,T%a,T%b\n0,0,0,-0\n5,0.5,5,-5\n", 38));
  long keep = -1;
  /* step 17: the rows up to 15's, whose time is not the checkpoint's (another step's) */
  CHECK_OK(fe_csv_check_resume(path, "probes file", COLUMNS, 17, 1.7, 5, &keep));
  CHECK(full && keep == end_of_row(full, 15));
  /* step 15: its own row, at its time */
  CHECK_OK(fe_csv_check_resume(path, "probes file", COLUMNS, 15, 1.5, 5, &keep));
  CHECK(full && keep == end_of_row(full, 15));
  fe_error_set_quiet(1);
  long other = -1;
  CHECK(fe_csv_check_resume(path, "probes file", COLUMNS, 15, 1.6, 5, &other) == FE_ERR_INPUT);
  CHECK(fe_csv_check_resume(path, "probes file", COLUMNS, 17, 1.7, 4, &other) == FE_ERR_INPUT);
  CHECK(fe_csv_check_resume(path, "probes file", COLUMNS, 26, 2.6, 5, &other) == FE_ERR_INPUT);
  CHECK(fe_csv_check_resume(path, "probes file", "step,time,T%a", 17, 1.7, 5, &other) ==
        FE_ERR_INPUT);
  CHECK(fe_csv_check_resume(path, "probes file", COLUMNS, 17, 1.7, 1, &other) == FE_ERR_INPUT);
  char shuffled[] = "test_csv_order.XXXXXX";
  const int sfd = mkstemp(shuffled);
  const char *rows = "step,time,T%a,T%b\n0,0,0,0\n10,1,0,0\n5,0.5,0,0\n15,1.5,0,0\n";
  CHECK(sfd >= 0 && write(sfd, rows, strlen(rows)) == (ssize_t)strlen(rows));
  if (sfd >= 0) close(sfd);
  CHECK(fe_csv_check_resume(shuffled, "probes file", COLUMNS, 15, 1.5, 5, &other) == FE_ERR_INPUT);
  unlink(shuffled);
  fe_error_set_quiet(0);
  char *now = read_all(path);
  CHECK(now && full && !strcmp(now, full));
  free(now);
  /* continued after step 17: rows 20 and 25 */
  struct fe_csv *csv = NULL;
  CHECK_OK(fe_csv_resume(path, "probes file", keep, &csv));
  for (long k = 20; csv && k <= 25; k += 5) {
    const double v[2] = {(double)k, -(double)k};
    CHECK_OK(fe_csv_write(csv, k, k / 10.0, 2, v));
  }
  fe_csv_destroy(csv);
  now = read_all(path);
  CHECK(now && full && !strncmp(now, full, (size_t)keep) &&
        !strcmp(now + keep, "20,2,20,-20\n25,2.5,25,-25\n"));
  free(now);
  free(full);
  unlink(path);
  TEST_DONE();
}
