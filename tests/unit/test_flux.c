/* The integrals of a tracer budget on the CPU (assembly/flux.h, tests/unit/flux_checks.h), 2D
 * and 3D, on jittered structured meshes, a P1 velocity with divergence and a P1 field:
 *   - each boundary facet's int (u_h . n) X_h against a host quadrature exact for the
 *     quadratic integrand (2 Gauss points on an edge, the 3 edge midpoints on a face), the
 *     normal from the facet and the cell's centroid, to 1e-14 of the largest;
 *   - summed, the facet integrals are the column sums of the conservative advection operator
 *     (beta = 1) applied to X, and the cell integrals of div u_h what beta adds to the other
 *     form's, 1^T C_1 X = 1^T C_0 X + int (div u_h) X_h; the cell integrals of the P0 rate are
 *     the column sums of the absorption operator: to 1e-13;
 *   - the reaction of a masked operator (mass, diffusion, SUPG advection, absorption), each
 *     strategy, is its unmasked operator's rows at the Dirichlet nodes, to 1e-13, and leaves
 *     the other entries as they were;
 *   - the loops do not depend on the number of threads (bit for bit). */
#include <omp.h>
#include <stdio.h>

#include "assembly/reference.h"
#include "backend_cpu.h"
#include "flux_checks.h"

/* int_F (u_h . n) X_h by quadrature on the host, n from the facet's geometry, pointing away
 * from the cell's centroid (the opposite vertex is the cell's other vertex). */
static double host_facet(const struct flux_problem *p, long k)
{
  const struct fe_mesh *m = p->m;
  const int d = m->dim, *f = p->nodes_host + k * (d + 1);
  double x[4][3] = {{0}}, n[3] = {0, 0, 0}, centroid[3] = {0, 0, 0};
  for (int v = 0; v <= d; v++)
    for (int a = 0; a < d; a++) {
      x[v][a] = m->coords[(long)f[v] * d + a];
      centroid[a] += x[v][a] / (d + 1);
    }
  double area;
  if (d == 2) {
    n[0] = x[1][1] - x[0][1], n[1] = x[0][0] - x[1][0];
    area = hypot(n[0], n[1]);
  } else {
    const double e[2][3] = {{x[1][0] - x[0][0], x[1][1] - x[0][1], x[1][2] - x[0][2]},
                            {x[2][0] - x[0][0], x[2][1] - x[0][1], x[2][2] - x[0][2]}};
    n[0] = e[0][1] * e[1][2] - e[0][2] * e[1][1];
    n[1] = e[0][2] * e[1][0] - e[0][0] * e[1][2];
    n[2] = e[0][0] * e[1][1] - e[0][1] * e[1][0];
    area = 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  }
  const double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  double out = 0;
  for (int a = 0; a < d; a++) out += n[a] * (x[0][a] - centroid[a]);
  const double sign = out > 0 ? 1.0 : -1.0;
  /* the points' barycentric coordinates on the facet, equal weights */
  const double g = 0.5 / sqrt(3.0);
  const double pts2[2][3] = {{0.5 - g, 0.5 + g, 0}, {0.5 + g, 0.5 - g, 0}};
  const double pts3[3][3] = {{0.5, 0.5, 0}, {0, 0.5, 0.5}, {0.5, 0, 0.5}};
  const int np = d == 2 ? 2 : 3;
  double sum = 0;
  for (int q = 0; q < np; q++) {
    const double *b = d == 2 ? pts2[q] : pts3[q];
    double un = 0, xq = 0;
    for (int v = 0; v < d; v++) {
      xq += b[v] * p->x_host[f[v]];
      for (int a = 0; a < d; a++) un += b[v] * p->vel_host[(long)f[v] * d + a] * n[a] / len;
    }
    sum += sign * un * xq / np;
  }
  return area * sum;
}

static void check_facets(const struct fe_mesh *m)
{
  struct flux_problem p;
  flux_problem_make(test_cpu(), m, &p);
  double *got = malloc(sizeof(double) * p.n_facets), worst = 0;
  flux_facets(&p, 2.0, got);
  for (long k = 0; k < p.n_facets; k++) worst = fmax(worst, fabs(got[k] / 2 - host_facet(&p, k)));
  const double scale = flux_max_abs(got, p.n_facets) / 2;
  printf("%dD facets: max |kernel - quadrature| / max = %.3g\n", m->dim, worst / scale);
  CHECK(worst <= 1e-14 * scale);
  free(got);
  flux_problem_free(&p);
}

/* The facet and cell integrals against the operators' column sums. */
static void check_sums(const struct fe_mesh *m)
{
  struct flux_problem p;
  flux_problem_make(test_cpu(), m, &p);
  const long n = m->n_nodes, nc = m->n_cells;
  double *facets = malloc(sizeof(double) * p.n_facets), *cells = malloc(sizeof(double) * nc);
  double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
  flux_facets(&p, 1.0, facets);
  const double boundary = flux_sum(facets, p.n_facets);
  const struct fe_form conservative = {.advection = 1, .conservative = 1};
  const struct fe_form plain = {.advection = 1};
  flux_apply(&p, p.free, FE_STRATEGY_LMA, &conservative, a);
  flux_apply(&p, p.free, FE_STRATEGY_LMA, &plain, b);
  flux_cells(&p, 1, cells);
  const double divergence = flux_sum(cells, nc), c1 = flux_sum(a, n), c0 = flux_sum(b, n);
  printf("%dD: facets %.17g, 1^T C_1 X %.17g; 1^T C_0 X + int div u X %.17g (int div u X %.3g)\n",
         m->dim, boundary, c1, c0 + divergence, divergence);
  CHECK_CLOSE(boundary, c1, 1e-13);
  CHECK_CLOSE(c0 + divergence, c1, 1e-13);
  CHECK(fabs(divergence) > 1e-3); /* the velocity has divergence: the check sees beta */
  const struct fe_form absorption = {.absorption = 1};
  flux_apply(&p, p.free, FE_STRATEGY_LMA, &absorption, a);
  flux_cells(&p, 0, cells);
  CHECK_CLOSE(flux_sum(cells, nc), flux_sum(a, n), 1e-13);
  free(facets);
  free(cells);
  free(a);
  free(b);
  flux_problem_free(&p);
}

/* The reaction of each strategy's masked operator: the unmasked rows at the Dirichlet nodes. */
static void check_reaction(const struct fe_mesh *m)
{
  struct flux_problem p;
  flux_problem_make(test_cpu(), m, &p);
  const long n = m->n_nodes;
  double *full = malloc(sizeof(double) * n), *got = malloc(sizeof(double) * n);
  const struct fe_form forms[] = {
      {.mass = 1},
      {.mass = 1, .lumped = 1, .diffusion = 0.3, .absorption = 0.2},
      {.mass = 1, .advection = -0.7, .conservative = 0.5, .supg = 0.5},
  };
  for (size_t f = 0; f < sizeof forms / sizeof *forms; f++)
    for (int s = 0; s < FE_STRATEGY_AUTO; s++) {
      flux_apply(&p, p.free, (enum fe_strategy)s, &forms[f], full);
      flux_reaction(&p, (enum fe_strategy)s, &forms[f], 0.0, got);
      double worst = 0, untouched = 0;
      for (long i = 0; i < n; i++)
        if (p.isd[i]) worst = fmax(worst, fabs(got[i] - full[i]));
      flux_reaction(&p, (enum fe_strategy)s, &forms[f], 5.0, got);
      for (long i = 0; i < n; i++)
        if (!p.isd[i]) untouched = fmax(untouched, fabs(got[i] - 5.0));
      const double scale = flux_max_abs(full, n);
      if (!(worst <= 1e-13 * scale))
        printf("%dD form %zu strategy %s: reaction off by %.3g of %.3g\n", m->dim, f,
               fe_strategy_name((enum fe_strategy)s), worst, scale);
      CHECK(worst <= 1e-13 * scale);
      CHECK(untouched == 0);
    }
  free(full);
  free(got);
  flux_problem_free(&p);
}

static void check_threads(const struct fe_mesh *m)
{
  struct flux_problem p;
  flux_problem_make(test_cpu(), m, &p);
  const long nf = p.n_facets, nc = m->n_cells, n = m->n_nodes;
  double *f[2] = {malloc(sizeof(double) * nf), malloc(sizeof(double) * nf)};
  double *c[2] = {malloc(sizeof(double) * nc), malloc(sizeof(double) * nc)};
  double *r[2] = {malloc(sizeof(double) * n), malloc(sizeof(double) * n)};
  const struct fe_form form = {.mass = 1, .diffusion = 0.1, .advection = 1};
  const int threads = omp_get_max_threads();
  for (int k = 0; k < 2; k++) {
    omp_set_num_threads(k ? 3 : 1);
    flux_facets(&p, 1.0, f[k]);
    flux_cells(&p, 1, c[k]);
    flux_reaction(&p, FE_STRATEGY_MATFREE, &form, 0.0, r[k]);
  }
  omp_set_num_threads(threads);
  CHECK(!memcmp(f[0], f[1], sizeof(double) * nf) && !memcmp(c[0], c[1], sizeof(double) * nc) &&
        !memcmp(r[0], r[1], sizeof(double) * n));
  for (int k = 0; k < 2; k++) {
    free(f[k]);
    free(c[k]);
    free(r[k]);
  }
  flux_problem_free(&p);
}

int main(void)
{
  for (int d = 2; d <= 3; d++) {
    struct fe_mesh *m = meshgen(d, d == 2 ? 12 : 5, 0.3, 7);
    check_facets(m);
    check_sums(m);
    check_reaction(m);
    check_threads(m);
    meshgen_free(m);
  }
  TEST_DONE();
}
