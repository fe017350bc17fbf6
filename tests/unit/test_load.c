/* Loads by quadrature (assembly/load.h through app/coefficients.h) on the CPU, 2D and 3D, on
 * jittered structured meshes:
 *   - a P1 source and a P1 flux: the same loads as the interpolated form (M f_h, with SUPG
 *     (M + tau C^T) f_h; the facet mass matrix), to 1e-13: the rule, the SUPG term and the
 *     gathers agree with the mass matrices;
 *   - a source and a flux of degree 4: sum_i F_i = int f and sum_i F_i x_i = int x f, over the
 *     domain and over its boundary, exact to 1e-13 (with SUPG too, whose term sums to 0), where
 *     the interpolated loads miss them by more than 1e-6;
 *   - the loads do not depend on the number of threads (bit for bit). */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "backend_cpu.h"
#include "load_checks.h"

/* A polynomial as terms c x^a y^b z^c. */
struct term {
  double coef;
  int a, b, c;
};
static const struct term poly[] = {{1, 4, 0, 0},   {2, 1, 3, 0}, {-1.5, 0, 2, 2},
                                   {0.5, 2, 1, 1}, {3, 0, 0, 1}, {-1, 0, 0, 0}};
#define N_TERMS ((int)(sizeof poly / sizeof poly[0]))

/* The polynomial's text (terms with z only in 3D), in buf. */
static const char *poly_text(int dim, char *buf, size_t size)
{
  buf[0] = '\0';
  for (int k = 0; k < N_TERMS; k++)
    if (dim == 3 || poly[k].c == 0)
      snprintf(buf + strlen(buf), size - strlen(buf), "%s%g*x^%d*y^%d*z^%d", buf[0] ? " + " : "",
               poly[k].coef, poly[k].a, poly[k].b, poly[k].c);
  return buf;
}

static double power(double x, int e) { return e == 0 ? 1 : x * power(x, e - 1); }

/* int of x^ax * polynomial over the unit square or cube (boundary 0) or over its boundary. */
static double poly_integral(int dim, int ax, int boundary)
{
  double sum = 0;
  for (int k = 0; k < N_TERMS; k++) {
    if (dim == 2 && poly[k].c) continue;
    const int e[3] = {poly[k].a + ax, poly[k].b, poly[k].c};
    if (!boundary) {
      double v = poly[k].coef;
      for (int j = 0; j < dim; j++) v /= e[j] + 1;
      sum += v;
      continue;
    }
    for (int fixed = 0; fixed < dim; fixed++) /* the faces x_fixed = 0 and x_fixed = 1 */
      for (int side = 0; side < 2; side++) {
        double v = poly[k].coef * power(side, e[fixed]);
        for (int j = 0; j < dim; j++)
          if (j != fixed) v /= e[j] + 1;
        sum += v;
      }
  }
  return sum;
}

/* sum_i F_i and sum_i F_i x_i */
static void moments(const struct fe_mesh *m, const double *f, double *m0, double *m1)
{
  *m0 = *m1 = 0;
  for (long i = 0; i < m->n_nodes; i++) {
    *m0 += f[i];
    *m1 += f[i] * m->coords[i * m->dim];
  }
}

/* The problem of source f and flux g by quadrature (q) and interpolated (i) on the CPU, with
 * two host arrays of n_nodes values. */
struct pair {
  struct load_problem q, i;
  double *a, *b;
};

static void pair_make(const struct fe_mesh *m, const char *f, const char *g, struct pair *p)
{
  load_problem_make(test_cpu(), m, f, g, FE_LOADS_QUADRATURE, &p->q);
  load_problem_make(test_cpu(), m, f, g, FE_LOADS_INTERPOLATED, &p->i);
  p->a = malloc(sizeof(double) * m->n_nodes);
  p->b = malloc(sizeof(double) * m->n_nodes);
}

static void pair_free(struct pair *p)
{
  free(p->a);
  free(p->b);
  load_problem_free(&p->q);
  load_problem_free(&p->i);
}

static void check_p1(int dim, int n)
{
  struct fe_mesh *m = meshgen(dim, n, 0.3, 5);
  struct pair p;
  pair_make(m, "1 + 2*x - 3*y + z", "2 - x + 0.5*y - z", &p);
  struct load_problem *q = &p.q, *i = &p.i;
  double *a = p.a, *b = p.b;
  for (int supg = 0; supg < 2; supg++) {
    load_source(q, supg * 0.5, 0, a);
    load_source(i, supg * 0.5, 0, b);
    const double diff = load_difference(m->n_nodes, a, b);
    if (!(diff <= 1e-13)) fprintf(stderr, "%dD P1 source, supg %d: %.3g\n", dim, supg, diff);
    CHECK(diff <= 1e-13);
  }
  load_neumann(q, 0, a);
  load_neumann(i, 0, b);
  const double diff = load_difference(m->n_nodes, a, b);
  if (!(diff <= 1e-13)) fprintf(stderr, "%dD P1 flux: %.3g\n", dim, diff);
  CHECK(diff <= 1e-13);
  pair_free(&p);
  meshgen_free(m);
}

static void check_moments(int dim, int n)
{
  char text[512];
  struct fe_mesh *m = meshgen(dim, n, 0.3, 9);
  poly_text(dim, text, sizeof text);
  struct pair p;
  pair_make(m, text, text, &p);
  struct load_problem *q = &p.q, *i = &p.i;
  double *a = p.a, m0, m1;
  const double f0 = poly_integral(dim, 0, 0), f1 = poly_integral(dim, 1, 0);
  const double g0 = poly_integral(dim, 0, 1), g1 = poly_integral(dim, 1, 1);
  for (int supg = 0; supg < 2; supg++) {
    load_source(q, supg * 0.5, 0, a);
    moments(m, a, &m0, &m1);
    CHECK_CLOSE(m0, f0, 1e-13);
    if (!supg) CHECK_CLOSE(m1, f1, 1e-13); /* SUPG's term has a first moment of its own */
  }
  load_neumann(q, 0, a);
  moments(m, a, &m0, &m1);
  CHECK_CLOSE(m0, g0, 1e-13);
  CHECK_CLOSE(m1, g1, 1e-13);
  load_source(i, 0, 0, a); /* the interpolants' loads miss them */
  moments(m, a, &m0, &m1);
  CHECK(fabs(m1 - f1) > 1e-6);
  load_neumann(i, 0, a);
  moments(m, a, &m0, &m1);
  CHECK(fabs(m0 - g0) > 1e-6);
  pair_free(&p);
  meshgen_free(m);
}

static void check_threads(int dim, int n)
{
  char buf[512];
  const char *t = poly_text(dim, buf, sizeof buf);
  struct fe_mesh *m = meshgen(dim, n, 0.3, 3);
  struct load_problem q;
  load_problem_make(test_cpu(), m, t, t, FE_LOADS_QUADRATURE, &q);
  const size_t bytes = sizeof(double) * m->n_nodes;
  double *a[2] = {malloc(bytes), malloc(bytes)}, *b[2] = {malloc(bytes), malloc(bytes)};
  const int threads = omp_get_max_threads();
  for (int k = 0; k < 2; k++) {
    omp_set_num_threads(k ? 3 : 1);
    load_source(&q, 0.5, 0.25, a[k]);
    load_neumann(&q, 0.25, b[k]);
  }
  omp_set_num_threads(threads);
  CHECK(!memcmp(a[0], a[1], bytes) && !memcmp(b[0], b[1], bytes));
  for (int k = 0; k < 2; k++) {
    free(a[k]);
    free(b[k]);
  }
  load_problem_free(&q);
  meshgen_free(m);
}

int main(void)
{
  check_p1(2, 12);
  check_p1(3, 5);
  check_moments(2, 12);
  check_moments(3, 5);
  check_threads(2, 40);
  check_threads(3, 8);
  TEST_DONE();
}
