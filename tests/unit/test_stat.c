/* The .stat file: header with and without the error columns, rows that round-trip exactly
 * (17 significant digits) and are on disk as soon as they are written, rows written whole or
 * not at all (a file size limit), continuing a file after a restart (checked without writing),
 * and failures. */
#include "io/stat.h"

#include "core/error.h"
#include "fresh_dir.h"
#include "read_all.h"
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const HEADER_EXACT =
    "step,time,dt,courant,min,max,integral,l2_error,linf_error,advection_iterations,"
    "diffusion_iterations,wall_seconds";
static const char *const HEADER_PLAIN =
    "step,time,dt,courant,min,max,integral,advection_iterations,diffusion_iterations,"
    "wall_seconds";

/* min, max, integral, l2, linf, advection and diffusion iterations (no budget) */
static const struct fe_stat_tracer VALUES[] = {
    {-0.0, 1.0 / 3, 2.0 / 3, 0.0, 0.0, 0, 0, NULL, NULL, 0, 0, 0},
    {-1e-300, 0.99999999999999989, 0.66666666666666663, 1.2345678901234567e-7,
     4.9406564584124654e-324, 12, 7, NULL, NULL, 0, 0, 0},
    {-DBL_MAX, DBL_MAX, DBL_MIN, 3.0000000000000004, 1e300, 2147483647, 1, NULL, NULL, 0, 0, 0},
    {-2.5, 2.5, -123456789.123456789, 1e-17, 1e-16, 3, 99999, NULL, NULL, 0, 0, 0},
};
/* step, time, dt, courant, the tracer's values, wall */
static const struct fe_stat_row ROWS[] = {
    {0, 0.0, 0.1, 0.0, &VALUES[0], 0.0},
    {1, 0.1, 0.1, 0.49999999999999994, &VALUES[1], 0.0012345},
    {2, 0.2, 0.1, 1e-310, &VALUES[2], 1.5},
    {1000000, 1e5 + 0.1, 1.0 / 7, 123.456, &VALUES[3], 3600.25},
};
static const char *const NAMES[] = {"T", "S"};
static const int EXACT[] = {1, 1}, PLAIN[] = {0, 0};

/* One tracer, with or without the error columns. */
static struct fe_stat_layout layout(int has_exact)
{
  return (struct fe_stat_layout){
      .n_tracers = 1, .names = NAMES, .has_exact = has_exact ? EXACT : PLAIN};
}

enum { N_ROWS = sizeof ROWS / sizeof ROWS[0] };

static int same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static double next_double(char **p)
{
  char *end;
  double v = strtod(*p, &end);
  CHECK(end != *p && (*end == ',' || *end == '\n'));
  *p = end + (*end == ',');
  return v;
}

static long next_int(char **p)
{
  char *end;
  long v = strtol(*p, &end, 10);
  CHECK(end != *p && (*end == ',' || *end == '\n'));
  *p = end + (*end == ',');
  return v;
}

/* The file holds the header and exactly rows 0..n-1, each ending in a newline. */
static void check_file(const char *path, int has_exact, int n)
{
  char *text = read_all(path);
  CHECK(text != NULL);
  if (!text) return;
  const char *header = has_exact ? HEADER_EXACT : HEADER_PLAIN;
  size_t len = strlen(header);
  CHECK(strncmp(text, header, len) == 0 && text[len] == '\n');
  char *p = text + len + 1;
  for (int i = 0; i < n && *p; i++) {
    const struct fe_stat_row *r = &ROWS[i];
    const struct fe_stat_tracer *v = r->tracers;
    CHECK(next_int(&p) == r->step);
    CHECK(same(next_double(&p), r->time));
    CHECK(same(next_double(&p), r->dt));
    CHECK(same(next_double(&p), r->courant));
    CHECK(same(next_double(&p), v->min));
    CHECK(same(next_double(&p), v->max));
    CHECK(same(next_double(&p), v->integral));
    if (has_exact) {
      CHECK(same(next_double(&p), v->l2_error));
      CHECK(same(next_double(&p), v->linf_error));
    }
    CHECK(next_int(&p) == v->advection_iterations);
    CHECK(next_int(&p) == v->diffusion_iterations);
    CHECK(same(next_double(&p), r->wall_seconds));
    CHECK(*p == '\n');
    p += *p == '\n';
  }
  CHECK(*p == 0);
  free(text);
}

static void write_rows(const char *dir, const char *name, int has_exact)
{
  char path[512];
  snprintf(path, sizeof path, "%s/%s.stat", dir, name);
  struct fe_stat *stat = NULL;
  const struct fe_stat_layout l = layout(has_exact);
  CHECK_OK(fe_stat_create(path, &l, &stat));
  CHECK(stat != NULL);
  if (!stat) return;
  check_file(path, has_exact, 0);
  for (int i = 0; i < N_ROWS; i++) {
    CHECK_OK(fe_stat_write(stat, &ROWS[i]));
    check_file(path, has_exact, i + 1); /* flushed: readable while the run goes on */
  }
  fe_stat_destroy(stat);
  check_file(path, has_exact, N_ROWS);
}

static void test_format(const char *dir)
{
  write_rows(dir, "exact", 1);
  write_rows(dir, "plain", 0);
  char path[512];
  snprintf(path, sizeof path, "%s/plain.stat", dir);
  char *text = read_all(path);
  const char *row1 = "\n1,0.10000000000000001,0.10000000000000001,0.49999999999999994,-1e-300,"
                     "0.99999999999999989,0.66666666666666663,12,7,0.0012344999999999999\n";
  CHECK(text && strstr(text, row1));
  CHECK(text && strstr(text, "\n0,0,0.10000000000000001,0,-0,"));
  free(text);
}

/* dir/name written with the layout's header and rows (then removed): its text holds expected,
 * and a run continues it after its last row with the layout, not with other. */
static void check_written(const char *dir, const char *name, const struct fe_stat_layout *layout,
                          const struct fe_stat_row *rows, int n, const char *expected,
                          const struct fe_stat_layout *other)
{
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  struct fe_stat *stat = NULL;
  CHECK_OK(fe_stat_create(path, layout, &stat));
  for (int r = 0; r < n; r++) CHECK(stat && fe_stat_write(stat, &rows[r]) == FE_SUCCESS);
  fe_stat_destroy(stat);
  char *text = read_all(path);
  CHECK(text && strstr(text, expected));
  free(text);
  long keep;
  const struct fe_stat_row *last = &rows[n - 1];
  CHECK(fe_stat_check_resume(path, other, last->step, last->time, &keep) == FE_ERR_INPUT);
  CHECK_OK(fe_stat_check_resume(path, layout, last->step, last->time, &keep));
  remove(path);
}

/* Several tracers: each one's columns carry its name (T%min, ...), the error columns only for
 * those with an exact solution; a stat file of one tracer is not continued by a run of two. */
static void test_tracers(const char *dir)
{
  static const int some[] = {1, 0};
  const struct fe_stat_layout two = {.n_tracers = 2, .names = NAMES, .has_exact = some};
  char *columns = NULL;
  CHECK_OK(fe_stat_columns(&two, &columns));
  CHECK(columns &&
        !strcmp(columns, "step,time,dt,courant,T%min,T%max,T%integral,T%l2_error,T%linf_error,"
                         "T%advection_iterations,T%diffusion_iterations,S%min,S%max,S%integral,"
                         "S%advection_iterations,S%diffusion_iterations,wall_seconds"));
  free(columns);
  const struct fe_stat_tracer values[2] = {VALUES[1], VALUES[3]};
  const struct fe_stat_row row = {7, 0.7, 0.1, 0.25, values, 2.0};
  const struct fe_stat_layout one = layout(1);
  check_written(dir, "two.stat", &two, &row, 1,
                "\n7,0.69999999999999996,0.10000000000000001,0.25,-1e-300,0.99999999999999989,"
                "0.66666666666666663,1.2345678901234566e-07,4.9406564584124654e-324,12,7,-2.5,2.5,"
                "-123456789.12345679,3,99999,2\n",
                &one);
}

/* Budgets (<fluxes>): each tracer's advective and diffusive flux per boundary group, then its
 * source, absorption and divergence, after its other columns; unprefixed with one tracer. */
static void test_fluxes(const char *dir)
{
  static const char *const labels[] = {"inlet", "4"};
  static const int none[] = {0, 0};
  const struct fe_stat_layout two = {.n_tracers = 2,
                                     .names = NAMES,
                                     .has_exact = none,
                                     .fluxes = 1,
                                     .n_flux_groups = 2,
                                     .flux_labels = labels};
  char *columns = NULL;
  CHECK_OK(fe_stat_columns(&two, &columns));
  CHECK(columns &&
        !strcmp(columns,
                "step,time,dt,courant,T%min,T%max,T%integral,T%advection_iterations,"
                "T%diffusion_iterations,T%advective_flux%inlet,T%diffusive_flux%inlet,"
                "T%advective_flux%4,T%diffusive_flux%4,T%source,T%absorption,T%divergence,S%min,"
                "S%max,S%integral,S%advection_iterations,S%diffusion_iterations,"
                "S%advective_flux%inlet,S%diffusive_flux%inlet,S%advective_flux%4,"
                "S%diffusive_flux%4,S%source,S%absorption,S%divergence,wall_seconds"));
  free(columns);
  const struct fe_stat_layout one = {.n_tracers = 1,
                                     .names = NAMES,
                                     .has_exact = none,
                                     .fluxes = 1,
                                     .n_flux_groups = 1,
                                     .flux_labels = labels};
  CHECK_OK(fe_stat_columns(&one, &columns));
  CHECK(columns && !strcmp(columns, "step,time,dt,courant,min,max,integral,advection_iterations,"
                                    "diffusion_iterations,advective_flux%inlet,"
                                    "diffusive_flux%inlet,source,absorption,divergence,"
                                    "wall_seconds"));
  free(columns);
  static const double adv[] = {0.25}, diff[] = {-1.5};
  struct fe_stat_tracer value = VALUES[0];
  value.advective_flux = adv;
  value.diffusive_flux = diff;
  value.source = 2;
  value.absorption = 0.125;
  value.divergence = -0.5;
  const struct fe_stat_row rows[2] = {{0, 0.0, 0.0, 0.0, &VALUES[0], 0.0},
                                      {1, 0.5, 0.5, 0.0, &value, 1.0}};
  const struct fe_stat_layout plain = layout(0);
  check_written(dir, "fluxes.stat", &one, rows, 2,
                "\n0,0,0,0,-0,0.33333333333333331,0.66666666666666663,0,0,0,0,0,0,0,0\n1,0.5,0.5,0,"
                "-0,0.33333333333333331,0.66666666666666663,0,0,0.25,-1.5,2,0.125,-0.5,1\n",
                &plain);
}

static void test_failures(const char *dir)
{
  char sub[512];
  snprintf(sub, sizeof sub, "%s/no/such/dir/x.stat", dir);
  struct fe_stat *stat = (struct fe_stat *)&stat;
  const struct fe_stat_layout plain = layout(0), exact = layout(1);
  CHECK(fe_stat_create(sub, &plain, &stat) == FE_ERR_RESOURCE);
  CHECK(stat == NULL);
  fe_stat_destroy(NULL);

  if (access("/dev/full", W_OK) == 0) {
    char link[512];
    snprintf(link, sizeof link, "%s/full.stat", dir);
    unlink(link);
    CHECK(symlink("/dev/full", link) == 0);
    CHECK(fe_stat_create(link, &exact, &stat) == FE_ERR_RESOURCE);
    CHECK(stat == NULL);
    unlink(link);
  }
}

static void write_text(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  CHECK(f && fputs(text, f) >= 0);
  if (f) fclose(f);
}

static int same_file(const char *path, const char *text)
{
  char *now = read_all(path);
  const int same = now && !strcmp(now, text);
  free(now);
  return same;
}

/* A restart from step 1 keeps the header and rows 0 and 1, drops the rest (a stopped run's),
 * and appends; every refusal leaves the file as it was. */
static void test_resume(const char *dir)
{
  char path[512];
  snprintf(path, sizeof path, "%s/resume.stat", dir);
  struct fe_stat *stat = NULL;
  const struct fe_stat_layout plain = layout(0), exact = layout(1);
  CHECK_OK(fe_stat_create(path, &exact, &stat));
  for (int i = 0; i < N_ROWS && stat; i++) CHECK_OK(fe_stat_write(stat, &ROWS[i]));
  fe_stat_destroy(stat);
  char *full = read_all(path);
  CHECK(full != NULL);
  if (!full) return;
  long keep = -1;
  CHECK_OK(fe_stat_check_resume(path, &exact, 1, 0.1, &keep));
  const char *row2 = strstr(full, "\n2,");
  CHECK(row2 && keep == row2 + 1 - full);
  /* refusals: other columns, another time for the step, no such step, no file */
  long other = -1;
  CHECK(fe_stat_check_resume(path, &plain, 1, 0.1, &other) == FE_ERR_INPUT);
  CHECK(fe_stat_check_resume(path, &exact, 1, 0.2, &other) == FE_ERR_INPUT);
  CHECK(fe_stat_check_resume(path, &exact, 5, 0.5, &other) == FE_ERR_INPUT);
  char missing[512];
  snprintf(missing, sizeof missing, "%s/missing.stat", dir);
  CHECK(fe_stat_check_resume(missing, &exact, 1, 0.1, &other) == FE_ERR_INPUT);
  CHECK(same_file(path, full) && access(missing, F_OK) != 0);
  /* an incomplete line before the step's row (a killed run's last line): refused */
  char *cut = strdup(full);
  cut[keep - 3] = '\0'; /* row 1 without its end */
  write_text(path, cut);
  CHECK(fe_stat_check_resume(path, &exact, 1, 0.1, &other) == FE_ERR_INPUT);
  CHECK(same_file(path, cut));
  free(cut);
  /* continued after step 1 */
  write_text(path, full);
  CHECK_OK(fe_stat_resume(path, &exact, keep, &stat));
  struct fe_stat_row next = ROWS[2];
  CHECK(stat && fe_stat_write(stat, &next) == FE_SUCCESS);
  fe_stat_destroy(stat);
  char *now = read_all(path);
  const size_t len2 =
      row2 ? (size_t)(strchr(row2 + 1, '\n') - row2) : 0; /* row 2 and its newline */
  CHECK(now && !strncmp(now, full, (size_t)keep) && strlen(now + keep) == len2 &&
        !strncmp(now + keep, row2 + 1, len2));
  free(now);
  free(full);
  remove(path);
}

/* A row that reaches a file size limit (EFBIG; SIGXFSZ ignored as fesim does) is not left
 * in part: the file ends with the row before. */
static void test_size_limit(const char *dir)
{
  char path[512];
  snprintf(path, sizeof path, "%s/limit.stat", dir);
  struct fe_stat *stat = NULL;
  const struct fe_stat_layout plain = layout(0);
  CHECK_OK(fe_stat_create(path, &plain, &stat));
  CHECK(stat && fe_stat_write(stat, &ROWS[0]) == FE_SUCCESS);
  char *before = read_all(path);
  struct rlimit old, limit;
  void (*handler)(int) = signal(SIGXFSZ, SIG_IGN);
  CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
  limit = old;
  limit.rlim_cur = before ? strlen(before) + 20 : 0; /* row 1 crosses it */
  CHECK(setrlimit(RLIMIT_FSIZE, &limit) == 0);
  CHECK(stat && fe_stat_write(stat, &ROWS[1]) == FE_ERR_RESOURCE);
  CHECK(stat && fe_stat_write(stat, &ROWS[2]) == FE_ERR_RESOURCE);
  CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
  signal(SIGXFSZ, handler);
  fe_stat_destroy(stat);
  CHECK(before && same_file(path, before));
  free(before);
  remove(path);
}

int main(int argc, char **argv)
{
  char fresh[] = "test_stat.XXXXXX";
  const char *dir = argc > 1 ? argv[1] : mkdtemp(fresh);
  if (!dir || (mkdir(dir, 0777) != 0 && errno != EEXIST)) {
    fprintf(stderr, "test_stat: cannot create the output directory %s: %s\n", dir ? dir : fresh,
            strerror(errno));
    return 1;
  }
  test_format(dir);
  test_tracers(dir);
  test_fluxes(dir);
  test_failures(dir);
  test_resume(dir);
  test_size_limit(dir);
  if (argc == 1) {
    remove_fresh(dir);
    CHECK(access(dir, F_OK) != 0);
  }
  TEST_DONE();
}
