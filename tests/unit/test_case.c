/* The case reader: every field of a full case, the defaults of a minimal one,
 * tensor diffusivities, paths relative to the case file, parameters that are
 * expressions and a piecewise initial condition, and the words of the
 * command line. */
#include "assembly/operator.h"
#include "core/error.h"
#include "io/case.h"
#include "solvers/backend.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const double E = 2.71828182845904523536;

static char path[4096];

static const char *data(const char *rel)
{
  const char *root = getenv("FESIM_TEST_DATA");
  snprintf(path, sizeof path, "%s/%s", root ? root : "tests/data", rel);
  return path;
}

static double at(const struct fe_expr *e, double x, double y, double z, double t)
{
  const double p[3] = {x, y, z};
  return e ? fe_expr_eval(e, p, t) : NAN;
}

static int same(const char *a, const char *b) { return a && b && !strcmp(a, b); }

static void check_full(void)
{
  struct fe_case *c = NULL;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", data("case"));
  CHECK_OK(fe_case_read(data("case/full.xml"), &c));
  if (!c) return;
  CHECK(same(c->path, data("case/full.xml")));
  CHECK(same(c->dir, dir));
  CHECK(same(c->name, "full-case_1.0"));
  CHECK(same(c->mesh_file, data("case/square.geo")));
  CHECK_CLOSE(c->mesh_size, 0.05, 0);
  CHECK(c->mesh_line == 10);
  CHECK(c->params.n == 2);
  if (c->params.n == 2) {
    CHECK(same(c->params.names[0], "k") && same(c->params.names[1], "U0"));
    CHECK_CLOSE(c->params.values[0], 1e-4, 0);
    CHECK_CLOSE(c->params.values[1], 2.5, 0);
  }
  CHECK_CLOSE(c->t_start, 0.5, 0);
  CHECK_CLOSE(c->t_end, 2, 0);
  CHECK_CLOSE(c->dt, 0.25, 0);
  CHECK(c->n_velocity == 2 && c->velocity[2] == NULL);
  CHECK(c->velocity_line == 12);
  CHECK_CLOSE(at(c->velocity[0], 1, 2, 0, 0), -5, 1e-15);
  CHECK_CLOSE(at(c->velocity[1], 1, 2, 0, 0), 2.5, 1e-15);
  CHECK(same(c->tracers[0].name, "T"));
  CHECK_CLOSE(at(c->tracers[0].initial, 0.25, 0, 0, 0), 1, 1e-15);
  CHECK_CLOSE(at(c->tracers[0].initial, 0.25, 0.1, 0, 0), exp(-2), 1e-14);
  if (c->tracers[0].initial) {
    CHECK(same(fe_expr_text(c->tracers[0].initial), "exp(-((x-0.25)^2 + y^2)           / 0.005)"));
    CHECK(strstr(fe_expr_where(c->tracers[0].initial), "full.xml:19 (<initial>)") != NULL);
  }
  CHECK_CLOSE(at(c->tracers[0].source, 0, 0, 0, 2), 2e-4, 1e-15);
  CHECK(c->tracers[0].source && fe_expr_depends_on_t(c->tracers[0].source) && !fe_expr_depends_on_space(c->tracers[0].source));
  CHECK_CLOSE(at(c->tracers[0].exact, 1, 1, 0, 0), 1 + E, 1e-15);
  CHECK(c->tracers[0].n_diffusivity == 1 && c->tracers[0].diffusivity[1] == NULL);
  CHECK(c->tracers[0].diffusivity_line == 23);
  CHECK_CLOSE(at(c->tracers[0].diffusivity[0], 0, 0, 0, 0), 1e-4, 1e-15);
  CHECK(c->tracers[0].n_boundaries == 2);
  if (c->tracers[0].n_boundaries == 2) {
    const struct fe_boundary *b = c->tracers[0].boundaries;
    CHECK(b[0].n_refs == 2 && same(b[0].refs[0], "left") && same(b[0].refs[1], "3"));
    CHECK(b[0].kind == FE_BC_DIRICHLET && b[0].line == 17);
    CHECK_CLOSE(at(b[0].value, 0, 0, 0, 0.5), 1, 1e-15);
    CHECK(b[1].n_refs == 1 && same(b[1].refs[0], "right"));
    CHECK(b[1].kind == FE_BC_NEUMANN && b[1].line == 24);
    CHECK_CLOSE(at(b[1].value, 0, 0, 0, 0), 2e-4, 1e-15);
  }
  CHECK_CLOSE(c->theta, 1, 0);
  CHECK(c->splitting == FE_SPLIT_LIE);
  CHECK(c->advection == FE_ADVECTION_NONE);
  CHECK(c->mass == FE_MASS_LUMPED);
  CHECK(c->loads == FE_LOADS_INTERPOLATED);
  CHECK_CLOSE(c->rtol, 1e-8, 0);
  CHECK(c->atol == 0);
  CHECK(c->max_iterations == 250);
  CHECK(c->preconditioner == FE_PC_NONE);
  CHECK(same(c->strategy, "addto"));
  CHECK(same(c->backend, "cpu"));
  CHECK(same(c->output_dir, "out/full"));
  CHECK(c->output_every == 20);
  CHECK(c->checkpoint_every == 500);
  fe_case_destroy(c);
}

static void check_defaults(void)
{
  struct fe_case *c = NULL;
  CHECK_OK(fe_case_read(data("case/minimal.xml"), &c));
  if (!c) return;
  CHECK(same(c->name, "minimal"));
  CHECK(c->mesh_size == 0);
  CHECK(c->params.n == 0);
  CHECK(c->n_velocity == 0 && !c->velocity[0] && !c->velocity[1] && !c->velocity[2]);
  CHECK(same(c->tracers[0].name, "c"));
  CHECK(c->tracers[0].source != NULL);
  CHECK(c->tracers[0].source && same(fe_expr_text(c->tracers[0].source), "0"));
  CHECK(at(c->tracers[0].source, 1, 2, 3, 4) == 0);
  CHECK(c->tracers[0].exact == NULL);
  CHECK(c->tracers[0].n_diffusivity == 1);
  CHECK_CLOSE(at(c->tracers[0].diffusivity[0], 0, 0, 0, 0), 0.1, 1e-15);
  CHECK(c->tracers[0].n_boundaries == 0);
  CHECK(c->theta == 0.5);
  CHECK(c->splitting == FE_SPLIT_STRANG);
  CHECK(c->advection == FE_ADVECTION_RK4);
  CHECK(c->mass == FE_MASS_CONSISTENT);
  CHECK(c->loads == FE_LOADS_QUADRATURE);
  CHECK(c->rtol == 1e-10);
  CHECK(c->atol == 1e-14);
  CHECK(c->max_iterations == 1000);
  CHECK(c->preconditioner == FE_PC_JACOBI);
  CHECK(c->strategy == NULL); /* the backend's default */
  CHECK(same(c->backend, "auto"));
  CHECK(same(c->output_dir, "."));
  CHECK(c->output_every == 1 && c->output_period == 0);
  CHECK(c->checkpoint_every == 0);
  CHECK(c->cfl == 0 && c->dt_max == 0);
  CHECK(c->n_probes == 0 && c->probes == NULL && c->probes_every == 1 && !c->probes_file);
  fe_case_destroy(c);
}

/* <probe> elements first, then the rows of the file of points (a byte order mark, CR LF, blank
 * lines and spaces around the values), each with where it is given. */
static void check_probes(void)
{
  struct fe_case *c = NULL;
  char where[2 * FE_QUOTE_SIZE];
  CHECK_OK(fe_case_read(data("case/probes.xml"), &c));
  if (!c) return;
  CHECK(c->probes_every == 5 && c->probes_line == 10);
  CHECK(same(c->probes_file, data("case/points.csv")));
  CHECK(c->n_probes == 4);
  static const char *const names[] = {"centre", "top.right-2", "well_1", "well_2"};
  static const double xy[4][3] = {{0.5, 0.5, 0}, {1, 1, 0}, {0.25, 0.75, 0}, {0.1, 0.25, 0}};
  static const int coords[] = {2, 3, 2, 2}, lines[] = {11, 12, 3, 5}, in_file[] = {0, 0, 1, 1};
  for (int p = 0; p < 4 && c->n_probes == 4; p++) {
    const struct fe_probe *q = &c->probes[p];
    CHECK(same(q->name, names[p]) && q->n_coords == coords[p] && q->line == lines[p]);
    CHECK(q->in_file == in_file[p]);
    for (int a = 0; a < 3; a++) CHECK(q->x[a] == xy[p][a]);
  }
  if (c->n_probes == 4) {
    CHECK(strstr(fe_case_probe_where(c, &c->probes[1], where, sizeof where),
                 "probes.xml:12: <probe name=\"top.right-2\">") != NULL);
    CHECK(strstr(fe_case_probe_where(c, &c->probes[3], where, sizeof where),
                 "points.csv:5: probe 'well_2'") != NULL);
  }
  fe_case_destroy(c);
}

/* Steps from a Courant number, dumps by time; with a fixed dt a period is a number of steps. */
static void check_time_rules(void)
{
  struct fe_case *c = NULL;
  CHECK_OK(fe_case_read(data("case/cfl.xml"), &c));
  if (c) {
    CHECK(c->dt == 0 && c->cfl == 0.4 && c->dt_max == 0.05);
    CHECK(c->output_every == 0 && c->output_period == 0.25);
    fe_case_destroy(c);
  }
  c = NULL;
  CHECK_OK(fe_case_read(data("case/period_steps.xml"), &c));
  if (c) {
    CHECK(c->dt == 0.1 && c->cfl == 0 && c->dt_max == 0);
    CHECK(c->output_every == 3 && c->output_period == 0.3); /* 0.3 / 0.1 = 2.9999999999999996 */
    fe_case_destroy(c);
  }
}

static void write_file(const char *path, const char *text, size_t n)
{
  FILE *f = fopen(path, "wb");
  CHECK(f && fwrite(text, 1, n, f) == n);
  if (f) fclose(f);
}

/* The file of points at its limits: a NUL byte, FE_MAX_PROBES probes (read) and one more
 * (refused); each refusal an input error. */
static void check_points_files(void)
{
  char file[] = "test_case_points.XXXXXX";
  const int fd = mkstemp(file);
  CHECK(fd >= 0);
  if (fd < 0) return;
  close(fd);
  struct fe_probe *probes = NULL;
  int n = 0;
  write_file(file, "name,x,y\na\0b,1,2\n", 17);
  fe_error_set_quiet(1);
  CHECK(fe_probes_read_csv(file, file, &probes, &n) == FE_ERR_INPUT && n == 0);
  fe_error_set_quiet(0);
  const size_t size = 16 + (size_t)(FE_MAX_PROBES + 1) * 16;
  char *text = malloc(size), *w = text;
  w += sprintf(w, "name,x,y\n");
  for (int i = 0; i < FE_MAX_PROBES; i++) w += sprintf(w, "p%d,%d,0.5\n", i, i % 7);
  write_file(file, text, (size_t)(w - text));
  CHECK_OK(fe_probes_read_csv(file, file, &probes, &n));
  CHECK(n == FE_MAX_PROBES && probes && same(probes[n - 1].name, "p99999"));
  CHECK(n == FE_MAX_PROBES && probes[n - 1].x[0] == 99999 % 7 && probes[n - 1].line == n + 1);
  int first, second;
  CHECK_OK(fe_probes_find_duplicate(probes, n, &first, &second));
  CHECK(first == -1 && second == -1);
  fe_probes_free(probes, n);
  probes = NULL;
  n = 0;
  w += sprintf(w, "q,0,0\n");
  write_file(file, text, (size_t)(w - text));
  fe_error_set_quiet(1);
  CHECK(fe_probes_read_csv(file, file, &probes, &n) == FE_ERR_INPUT && n == FE_MAX_PROBES);
  fe_error_set_quiet(0);
  fe_probes_free(probes, n);
  free(text);
  unlink(file);
}

static void check_tensors(void)
{
  struct fe_case *c = NULL;
  CHECK_OK(fe_case_read(data("case/tensor2d.xml"), &c));
  if (c) { /* stored xx xy yy whatever the order written */
    CHECK(c->tracers[0].n_diffusivity == 3 && c->tracers[0].diffusivity[3] == NULL);
    CHECK_CLOSE(at(c->tracers[0].diffusivity[0], 0, 0, 0, 0), 3, 1e-15);
    CHECK_CLOSE(at(c->tracers[0].diffusivity[1], 0.4, 0, 0, 0), 0.2, 1e-15);
    CHECK_CLOSE(at(c->tracers[0].diffusivity[2], 0, 0, 0, 0), 2, 1e-15);
    fe_case_destroy(c);
  }
  c = NULL;
  CHECK_OK(fe_case_read(data("case/tensor3d.xml"), &c));
  if (c) {
    CHECK(c->tracers[0].n_diffusivity == 6);
    for (int k = 0; k < 6 && c->tracers[0].n_diffusivity == 6; k++)
      CHECK_CLOSE(at(c->tracers[0].diffusivity[k], 0, 0, 0, 0), k + 1, 1e-15);
    CHECK(c->n_velocity == 3);
    CHECK_CLOSE(at(c->velocity[2], 0, 0, 0, 2), 6, 1e-15);
    fe_case_destroy(c);
  }
}

/* A case file named without a directory: the mesh is found next to it. */
static void check_relative(void)
{
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd) || chdir(data("case"))) {
    CHECK(!"cannot change into the test data directory");
    return;
  }
  struct fe_case *c = NULL;
  CHECK_OK(fe_case_read("minimal.xml", &c));
  if (c) {
    CHECK(same(c->dir, "."));
    CHECK(same(c->mesh_file, "square.geo"));
  }
  fe_case_destroy(c);
  CHECK(chdir(cwd) == 0);
}

/* Parameters evaluated in order, each from those above it; the slotted
 * cylinder of bad_input/piecewise.xml: 1 inside the disc but not in its slot. */
static void check_piecewise(void)
{
  struct fe_case *c = NULL;
  CHECK_OK(fe_case_read(data("../bad_input/piecewise.xml"), &c));
  if (!c) return;
  CHECK(c->params.n == 5);
  if (c->params.n == 5) {
    CHECK(same(c->params.names[1], "w") && same(c->params.names[4], "top"));
    CHECK(c->params.values[0] == 1e-3);
    CHECK(c->params.values[1] == 2 * 3.14159265358979323846);
    CHECK(c->params.values[2] == 0.15);
    CHECK_CLOSE(c->params.values[3], 0.05, 1e-15);
    CHECK_CLOSE(c->params.values[4], 0.575, 1e-15);
  }
  CHECK(at(c->tracers[0].initial, 0.5, 0.62, 0, 0) == 1);  /* above the slot */
  CHECK(at(c->tracers[0].initial, 0.5, 0.55, 0, 0) == 0);  /* in the slot */
  CHECK(at(c->tracers[0].initial, 0.45, 0.45, 0, 0) == 1); /* beside it */
  CHECK(at(c->tracers[0].initial, 0.5, 0.66, 0, 0) == 0);  /* outside the disc */
  CHECK(at(c->tracers[0].initial, 0.1, 0.1, 0, 0) == 0);
  fe_case_destroy(c);
  c = (struct fe_case *)&c;
  fe_error_set_quiet(1);
  CHECK(fe_case_read(data("../bad_input/param_later.xml"), &c) == FE_ERR_INPUT && c == NULL);
  CHECK(fe_case_read(data("../bad_input/param_variable.xml"), &c) == FE_ERR_INPUT && c == NULL);
  CHECK(fe_case_read(data("../bad_input/param_not_finite.xml"), &c) == FE_ERR_INPUT && !c);
  fe_error_set_quiet(0);
}

/* Tracers in the file's order, each with its own data; which coefficients coincide. */
static void check_tracers(void)
{
  struct fe_case *c = NULL;
  CHECK_OK(fe_case_read(data("case/tracers.xml"), &c));
  if (!c) return;
  CHECK(c->n_tracers == 3);
  if (c->n_tracers != 3) {
    fe_case_destroy(c);
    return;
  }
  const struct fe_tracer *salt = &c->tracers[0], *temp = &c->tracers[1], *dye = &c->tracers[2];
  CHECK(same(salt->name, "salt") && same(temp->name, "temp") && same(dye->name, "dye"));
  CHECK(salt->line == 5 && temp->line == 14 && dye->line == 22);
  CHECK_CLOSE(at(salt->initial, 0, 0, 0, 0), 35, 0);
  CHECK_CLOSE(at(temp->initial, 2, 0, 0, 0), 12, 0);
  CHECK(salt->n_boundaries == 1 && temp->n_boundaries == 2 && dye->n_boundaries == 0);
  CHECK(temp->n_boundaries == 2 && temp->boundaries[0].kind == FE_BC_NEUMANN &&
        temp->boundaries[1].kind == FE_BC_DIRICHLET);
  CHECK(!salt->exact && temp->exact && !dye->exact && fe_case_any_exact(c));
  CHECK(!salt->absorption && temp->absorption && temp->absorption_line == 17);
  CHECK(fe_expr_is_zero(salt->source) && !fe_expr_is_zero(dye->source));
  CHECK(dye->n_diffusivity == 3 && dye->diffusivity_line == 24);
  /* 'k' with k = 1e-4 and '1e-4' compile to the same program; a tensor is not a scalar */
  CHECK(fe_tracer_same_diffusivity(salt, temp) && fe_tracer_same_diffusivity(temp, salt));
  CHECK(!fe_tracer_same_diffusivity(salt, dye));
  CHECK(fe_tracer_same_absorption(salt, dye) && !fe_tracer_same_absorption(salt, temp));
  CHECK(fe_tracer_same_absorption(temp, temp));
  fe_case_destroy(c);
  c = (struct fe_case *)&c;
  CHECK(fe_case_read(data("../bad_input/tracer_twice.xml"), &c) == FE_ERR_INPUT && c == NULL);
  CHECK(fe_case_read(data("../bad_input/time_twice.xml"), &c) == FE_ERR_INPUT && c == NULL);
}

static void check_errors(void)
{
  struct fe_case *c = (struct fe_case *)&c;
  fe_error_set_quiet(1);
  CHECK(fe_case_read(data("../bad_input/dt_negative.xml"), &c) == FE_ERR_INPUT && c == NULL);
  CHECK(fe_case_read(data("case/no_such_case.xml"), &c) == FE_ERR_INPUT && c == NULL);
  CHECK(fe_case_read(data("case/square.geo"), &c) == FE_ERR_INPUT && c == NULL);
  fe_error_set_quiet(0);
  fe_case_destroy(NULL);
}

/* The words of the case file and the command line, read where the strategies and backends live. */
static void check_words(void)
{
  enum fe_strategy s = FE_STRATEGY_LMA;
  enum fe_backend_kind b = FE_BACKEND_AUTO;
  enum fe_loads l = FE_LOADS_QUADRATURE;
  CHECK(fe_loads_parse("interpolated", &l) == FE_SUCCESS && l == FE_LOADS_INTERPOLATED);
  CHECK(fe_loads_parse("quadrature", &l) == FE_SUCCESS && l == FE_LOADS_QUADRATURE);
  CHECK(same(fe_loads_name(FE_LOADS_INTERPOLATED), "interpolated"));
  CHECK(fe_strategy_parse("addto", &s) == FE_SUCCESS && s == FE_STRATEGY_ADDTO);
  CHECK(fe_strategy_parse("lma", &s) == FE_SUCCESS && s == FE_STRATEGY_LMA);
  CHECK(fe_backend_parse("cuda", &b) == FE_SUCCESS && b == FE_BACKEND_CUDA);
  CHECK(fe_backend_parse("cpu", &b) == FE_SUCCESS && b == FE_BACKEND_CPU);
  CHECK(fe_backend_parse("auto", &b) == FE_SUCCESS && b == FE_BACKEND_AUTO);
  fe_error_set_quiet(1);
  CHECK(fe_strategy_parse("csr", &s) == FE_ERR_USAGE && s == FE_STRATEGY_LMA);
  CHECK(fe_backend_parse("gpu", &b) == FE_ERR_USAGE && b == FE_BACKEND_AUTO);
  CHECK(fe_loads_parse("exact", &l) == FE_ERR_USAGE && l == FE_LOADS_QUADRATURE);
  fe_error_set_quiet(0);
  CHECK(same(fe_strategy_name(FE_STRATEGY_ADDTO), "addto"));
  CHECK(same(fe_strategy_name(FE_STRATEGY_LMA), "lma"));
  CHECK(same(fe_backend_name(FE_BACKEND_CPU), "cpu"));
  CHECK(same(fe_backend_name(FE_BACKEND_CUDA), "cuda"));
  CHECK(same(fe_backend_name(FE_BACKEND_AUTO), "auto"));
}

int main(void)
{
  check_full();
  check_defaults();
  check_time_rules();
  check_probes();
  check_points_files();
  check_tensors();
  check_relative();
  check_piecewise();
  check_tracers();
  check_errors();
  check_words();
  TEST_DONE();
}
