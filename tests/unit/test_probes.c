/* Probes (assembly/probes.h): points located once, in 2D and 3D, against a search of every
 * cell with barycentric coordinates computed another way (Gaussian elimination): points at
 * nodes and on edges (shared by several cells: the cell of lowest index, the weights 1 or
 * 1/2 there), inside, just outside the boundary (taken by the cell they miss least, within
 * 0.1 in barycentric coordinates) and beyond it (outside the mesh); all points in one place;
 * the CPU backend's interpolation of a linear field exact at the points, from nodal values
 * and from values at the cells' vertices alike; the time to locate 10^5 points on 10^6 cells
 * (printed). */
#include <stdio.h>
#include <string.h>

#include "backend_cpu.h"
#include "core/timer.h"
#include "probes_checks.h"
#include "readout_checks.h"

/* The barycentric coordinates of x in cell c: [v_0 .. v_d; 1 .. 1] lambda = [x; 1] by
 * Gaussian elimination with partial pivoting. */
static void reference_barycentric(const struct fe_mesh *m, long c, const double *x, double *lambda)
{
  const int d = m->dim, n = d + 1;
  double a[4][5] = {{0}};
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) a[i][j] = i < d ? m->coords[(long)m->cells[c * n + j] * d + i] : 1;
    a[i][n] = i < d ? x[i] : 1;
  }
  for (int k = 0; k < n; k++) {
    int pivot = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(a[i][k]) > fabs(a[pivot][k])) pivot = i;
    for (int j = 0; j <= n; j++) {
      const double t = a[k][j];
      a[k][j] = a[pivot][j];
      a[pivot][j] = t;
    }
    for (int i = k + 1; i < n; i++) {
      const double f = a[i][k] / a[k][k];
      for (int j = k; j <= n; j++) a[i][j] -= f * a[k][j];
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    double s = a[i][n];
    for (int j = i + 1; j < n; j++) s -= a[i][j] * lambda[j];
    lambda[i] = s / a[i][i];
  }
}

/* The rule by a search of every cell: the lowest cell that holds x (smallest barycentric
 * coordinate >= -1e-10), else the one it misses least within 0.1, else -1. */
static long reference_cell(const struct fe_mesh *m, const double *x)
{
  long best = -1;
  double best_low = -INFINITY;
  for (long c = 0; c < m->n_cells; c++) {
    double lambda[4] = {0}, low = INFINITY;
    reference_barycentric(m, c, x, lambda);
    for (int i = 0; i < m->nv; i++) low = fmin(low, lambda[i]);
    if (low >= -FE_PROBE_ON_CELL) return c;
    if (low >= -FE_PROBE_OUTSIDE && low > best_low) best = c, best_low = low;
  }
  return best;
}

/* The point the weights give. */
static void weighted_point(const struct fe_mesh *m, const struct fe_probe_location *l, double *at)
{
  for (int a = 0; a < 3; a++) at[a] = 0;
  for (int i = 0; i < m->nv; i++)
    for (int a = 0; a < m->dim; a++)
      at[a] += l->weights[i] * m->coords[(long)m->cells[(long)l->cell * m->nv + i] * m->dim + a];
}

/* Weights of located point p: >= 0, summing to 1; in the mesh they give the point back. */
static void check_weights(const struct fe_mesh *m, const double *x,
                          const struct fe_probe_location *l)
{
  double sum = 0, at[3] = {0, 0, 0};
  for (int i = 0; i < m->nv; i++) {
    CHECK(l->weights[i] >= 0);
    sum += l->weights[i];
  }
  CHECK_CLOSE(sum, 1, 1e-14);
  weighted_point(m, l, at);
  double d2 = 0;
  for (int a = 0; a < m->dim; a++) d2 += (at[a] - x[a]) * (at[a] - x[a]);
  if (l->distance == 0) CHECK(sqrt(d2) <= 1e-12);
  CHECK_CLOSE(sqrt(d2), l->distance, 1e-12);
}

/* The weight of node `node` in located point l (-1 when not a vertex of its cell). */
static double weight_of(const struct fe_mesh *m, const struct fe_probe_location *l, int node)
{
  for (int i = 0; i < m->nv; i++)
    if (m->cells[(long)l->cell * m->nv + i] == node) return l->weights[i];
  return -1;
}

static void check_location(int dim, int n)
{
  struct fe_mesh *m = meshgen(dim, n, 0.3, 5);
  long count;
  double *x = probe_points(m, &count);
  struct fe_probe_location *loc = malloc(sizeof *loc * count);
  CHECK_OK(fe_probes_locate(m, count, x, loc));
  const long edges = m->n_cells < 200 ? m->n_cells : 200;
  const long first_edge = m->n_nodes, first_outside = count - 50;
  int wrong = 0;
  for (long p = 0; p < count; p++) {
    const long expect = reference_cell(m, x + p * 3);
    if (loc[p].cell != expect && wrong++ < 5)
      fprintf(stderr, "%dD point %ld: cell %d, a search of every cell finds %ld\n", dim, p,
              loc[p].cell, expect);
    CHECK(loc[p].cell >= 0);
    if (loc[p].cell < 0) continue;
    check_weights(m, x + p * 3, &loc[p]);
    if (p < first_edge) CHECK_CLOSE(weight_of(m, &loc[p], (int)p), 1, 1e-12);
    CHECK((p >= first_outside) == (loc[p].distance > 0));
  }
  CHECK(wrong == 0);
  /* the edges' midpoints: 1/2 at both ends */
  for (long c = 0, p = first_edge; c < edges; c++)
    for (int i = 0; i < m->nv; i++)
      for (int j = i + 1; j < m->nv; j++, p++) {
        CHECK_CLOSE(weight_of(m, &loc[p], m->cells[c * m->nv + i]), 0.5, 1e-12);
        CHECK_CLOSE(weight_of(m, &loc[p], m->cells[c * m->nv + j]), 0.5, 1e-12);
      }
  /* just outside: within a hundredth of a cell of the boundary x = 0, on it by the weights */
  const double h = 1.0 / n;
  for (long p = first_outside; p < count; p++) {
    double at[3] = {0, 0, 0};
    weighted_point(m, &loc[p], at);
    CHECK(loc[p].distance > 0 && loc[p].distance < 0.05 * h && loc[p].miss < FE_PROBE_OUTSIDE);
    CHECK(fabs(at[0]) < 1e-15);
  }
  free(loc);
  free(x);
  meshgen_free(m);
}

/* Beyond the tolerance: outside the mesh; all the points in one place: one bin. */
static void check_outside(int dim)
{
  const int n = 8;
  struct fe_mesh *m = meshgen(dim, n, 0.3, 9);
  const double h = 1.0 / n;
  double x[4 * 3] = {-0.05 * h, 0.5, 0.5, -0.5 * h, 0.5, 0.5, 2, 0.5, 0.5, 0.5, 0.5, 1 + h};
  struct fe_probe_location loc[4];
  CHECK_OK(fe_probes_locate(m, 4, x, loc));
  CHECK(loc[0].cell >= 0 && loc[0].miss > 0.01 && loc[0].miss < FE_PROBE_OUTSIDE);
  CHECK(loc[1].cell == -1 && loc[2].cell == -1);
  CHECK((loc[3].cell == -1) == (dim == 3)); /* z is ignored in 2D */
  double same[5 * 3];
  for (int p = 0; p < 5; p++) same[p * 3] = 0.3, same[p * 3 + 1] = 0.6, same[p * 3 + 2] = 0.2;
  struct fe_probe_location at[5];
  CHECK_OK(fe_probes_locate(m, 5, same, at));
  for (int p = 0; p < 5; p++)
    CHECK(at[p].cell == reference_cell(m, same) && at[p].cell == at[0].cell);
  meshgen_free(m);
}

/* The CPU backend: the linear component exact at the points in the mesh. */
static void check_interpolation(int dim, int n)
{
  struct fe_mesh *m = meshgen(dim, n, 0.3, 5);
  long count;
  double *x = probe_points(m, &count), *field = probe_field(m);
  struct fe_probe_location *loc = malloc(sizeof *loc * count);
  double *out = malloc(sizeof(double) * count * 2);
  CHECK_OK(fe_probes_locate(m, count, x, loc));
  probe_values_on(test_cpu(), m, count, loc, field, out);
  for (long p = 0; p < count; p++) {
    double at[3] = {0, 0, 0};
    weighted_point(m, &loc[p], at);
    const double exact = 1 + 2 * at[0] - 3 * at[1] + (dim == 3 ? 0.5 * at[2] : 0);
    CHECK_CLOSE(out[p * 2], exact, 1e-13);
  }
  free(out);
  free(loc);
  free(field);
  free(x);
  meshgen_free(m);
}

/* 10^5 random points on a mesh of 10^6 cells: one pass over the cells (printed, not asserted). */
static void report_time(void)
{
  struct fe_mesh *m = meshgen(2, 708, 0.3, 3);
  const long n = 100000;
  double *x = calloc((size_t)n * 3, sizeof *x);
  unsigned seed = 11;
  for (long p = 0; p < n * 3; p++) x[p] = meshgen_rand(&seed);
  struct fe_probe_location *loc = malloc(sizeof *loc * n);
  const double start = fe_wtime();
  CHECK_OK(fe_probes_locate(m, n, x, loc));
  const double seconds = fe_wtime() - start;
  long found = 0;
  for (long p = 0; p < n; p++) found += loc[p].cell >= 0;
  CHECK(found == n);
  printf("located %ld points on %d cells in %.3f s\n", n, m->n_cells, seconds);
  free(loc);
  free(x);
  meshgen_free(m);
}

int main(void)
{
  check_location(2, 12);
  check_location(3, 4);
  check_outside(2);
  check_outside(3);
  check_interpolation(2, 20);
  check_interpolation(3, 6);
  check_readout(test_cpu());
  report_time();
  TEST_DONE();
}
