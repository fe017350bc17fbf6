/* Expressions evaluated by the CUDA backend against the CPU backend, at the
 * nodes and cell centroids of a 2D and a 3D mesh: every operator and function
 * of io/program.h, the conditional with a NaN in the branch not taken (finite
 * on both) and in the one taken (NaN on both).  Values to 1e-13 relative (the
 * device's math library may differ from the host's in the last bits);
 * non-finite values alike.  Skips without a GPU. */
#include <stdlib.h>
#include <string.h>

#include "assembly/space.h"
#include "backend_cpu.h"
#include "backend_gpu.h"
#include "backends/backends.h"
#include "io/program.h"
#include "meshgen.h"
#include "test.h"

#define GROUP 6 /* programs evaluated at once (the CUDA kernel stages at most 6) */

static const char *const texts[] = {
    "sin(x) + cos(y) - tan(z + 0.1) + asin(x/2) + acos(y/2) + atan(z) + sinh(x)*cosh(y)/tanh(z + 1)"
    " + exp(-x)*log(y + 1) + sqrt(abs(x - y)) - -x^2 + x/(y + 1)",
    "min(x, y) + max(x, 0.5)*atan2(y - 0.5, x - 0.5) + min(-z, t)",
    "floor(8*x) + erf(4*y - 2) - floor(-3*z + t)",
    "(x < y) + 2*(x <= 0.5) + 4*(y > 0.5) + 8*(y >= x) + 16*(x == x) + 32*(x != y)",
    "if((x - 0.5)^2 + (y - 0.5)^2 < 0.15^2 and (abs(x - 0.5) >= 0.025 or y > 0.575), 1, 0)",
    "if(x > 0.5, sqrt(x - 0.5), -sqrt(0.5 - x)) + if(t > 0.3, t, 0)", /* NaN never taken */
    "x > 0.3 and sqrt(0.3 - x) > 0 or y < 0.5", /* NaN where the and decides on it */
    "if(x < 0.5, 0, log(x - 0.5))",             /* -inf at x = 0.5, where taken */
    "min(sqrt(x - 0.5), 1) + max(1, y)",
    "if(y < 0.25, 1, if(y < 0.5, 2, if(y < 0.75, x, -x))) * (x > 0.2 or z > 0.5)",
};
#define N_TEXTS ((int)(sizeof texts / sizeof texts[0]))

static int alike(double g, double c)
{
  if (isnan(g) || isnan(c)) return isnan(g) && isnan(c);
  if (isinf(g) || isinf(c)) return g == c;
  return fabs(g - c) <= 1e-13 * fmax(1.0, fabs(c));
}

/* progs[0..n) on backend be at the m points (nodes, or centroids with at_cells), into out. */
static void evaluate(const struct fe_backend *be, const struct fe_mesh *m, int at_cells,
                     const struct fe_program *progs, int n, double t, double *out)
{
  struct fe_space *space = NULL;
  struct fe_program *dp = NULL;
  double *dout = NULL;
  const long points = at_cells ? m->n_cells : m->n_nodes;
  const size_t bytes = sizeof(double) * (size_t)points * (size_t)n;
  CHECK_OK(fe_space_create(be, m, NULL, &space));
  CHECK_OK(fe_backend_alloc(be, sizeof *progs * (size_t)n, progs, &dp));
  CHECK_OK(fe_backend_alloc(be, bytes, NULL, &dout));
  if (space && dp && dout) {
    CHECK_OK(fe_space_evaluate(space, at_cells, NULL, NULL, points, dp, n, t, dout));
    CHECK_OK(be->vec->to_host(be, out, dout, bytes));
  }
  fe_backend_free(be, dout);
  fe_backend_free(be, dp);
  fe_space_destroy(space);
}

static void compare(const struct fe_backend *gpu, int dim, int n, const struct fe_program *progs)
{
  struct fe_mesh *m = meshgen(dim, n, 0.3, 17);
  const double t = 0.37;
  for (int at_cells = 0; at_cells < 2; at_cells++) {
    const long points = at_cells ? m->n_cells : m->n_nodes;
    for (int first = 0; first < N_TEXTS; first += GROUP) {
      const int k = N_TEXTS - first < GROUP ? N_TEXTS - first : GROUP;
      double *c = calloc((size_t)points * k, sizeof *c), *g = calloc((size_t)points * k, sizeof *g);
      evaluate(test_cpu(), m, at_cells, progs + first, k, t, c);
      evaluate(gpu, m, at_cells, progs + first, k, t, g);
      int bad = 0, nan = 0;
      for (long i = 0; i < points * k; i++) {
        nan += isnan(c[i]);
        if (alike(g[i], c[i])) continue;
        if (bad++ < 5)
          fprintf(stderr, "%dD %s %ld, '%s': GPU %.17g, CPU %.17g\n", dim,
                  at_cells ? "cell" : "node", i / k, texts[first + i % k], g[i], c[i]);
      }
      CHECK(bad == 0);
      CHECK(first == 0 || nan > 0); /* the second group's NaN cases are exercised */
      free(c);
      free(g);
    }
  }
  meshgen_free(m);
}

int main(void)
{
  struct fe_backend *gpu = test_gpu();
  if (!gpu) return TEST_SKIP;
  struct fe_program progs[N_TEXTS];
  for (int i = 0; i < N_TEXTS; i++) {
    struct fe_program_error err;
    if (fe_program_compile(texts[i], NULL, &progs[i], &err)) {
      fprintf(stderr, "'%s': %s at column %d: %s\n", texts[i], err.what, err.column, err.detail);
      return 1;
    }
  }
  /* the taken branch's NaN is NaN on the host, the one not taken is not */
  CHECK(fe_program_eval(&progs[7], 0.25, 0, 0, 0) == 0);
  CHECK(isnan(fe_program_eval(&progs[8], 0.25, 0, 0, 0)));
  compare(gpu, 2, 16, progs);
  compare(gpu, 3, 6, progs);
  fe_backend_destroy(gpu);
  TEST_DONE();
}
