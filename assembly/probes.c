/* Probes (assembly/probes.h): located on the host in one pass over the cells, sampled on the
 * backend. */
#include "assembly/probes.h"

#include <math.h>
#include <stdlib.h>

#include "assembly/kernels.h"
#include "core/error.h"

/* ---------------------------------------------------------------- barycentric coordinates */

/* lambda: the barycentric coordinates of x in cell c (lambda_0 = 1 - the others), by
 * Cramer's rule on the edges from vertex 0. */
static void barycentric(const struct fe_mesh *m, long c, const double *x, double *lambda)
{
  const int d = m->dim;
  const double *v[FE_MAX_NV];
  for (int i = 0; i <= d; i++) v[i] = m->coords + (long)m->cells[c * m->nv + i] * d;
  double e[3][3] = {{0}}, r[3] = {0};
  for (int a = 0; a < d; a++) {
    r[a] = x[a] - v[0][a];
    for (int i = 0; i < d; i++) e[i][a] = v[i + 1][a] - v[0][a];
  }
  if (d == 2) {
    const double det = e[0][0] * e[1][1] - e[0][1] * e[1][0];
    lambda[1] = (r[0] * e[1][1] - r[1] * e[1][0]) / det;
    lambda[2] = (e[0][0] * r[1] - e[0][1] * r[0]) / det;
  } else {
    double cross[3][3]; /* e1 x e2, e2 x e0, e0 x e1 */
    for (int i = 0; i < 3; i++) {
      const double *p = e[(i + 1) % 3], *q = e[(i + 2) % 3];
      cross[i][0] = p[1] * q[2] - p[2] * q[1];
      cross[i][1] = p[2] * q[0] - p[0] * q[2];
      cross[i][2] = p[0] * q[1] - p[1] * q[0];
    }
    const double det = e[0][0] * cross[0][0] + e[0][1] * cross[0][1] + e[0][2] * cross[0][2];
    for (int i = 0; i < 3; i++)
      lambda[i + 1] = (r[0] * cross[i][0] + r[1] * cross[i][1] + r[2] * cross[i][2]) / det;
  }
  lambda[0] = 1;
  for (int i = 1; i <= d; i++) lambda[0] -= lambda[i];
}

/* ---------------------------------------------------------------- a bin grid of the points */

struct bins {
  int d;
  long k[3];           /* bins along each axis */
  double lo[3], hi[3]; /* the points' bounding box */
  double width[3];
  long *start; /* the points of bin b: items[start[b] .. start[b + 1]) */
  long *items;
};

static long axis_bin(const struct bins *b, int a, double x)
{
  const double f = floor((x - b->lo[a]) / b->width[a]);
  return f < 0 ? 0 : f >= (double)b->k[a] ? b->k[a] - 1 : (long)f;
}

static long bin_of(const struct bins *b, const double *x)
{
  long index = 0;
  for (int a = b->d - 1; a >= 0; a--) index = index * b->k[a] + axis_bin(b, a, x[a]);
  return index;
}

/* About one point per bin, over the points' bounding box (an axis it does not extend along
 * has one bin). */
static int bins_create(int d, long n, const double *points, struct bins *b)
{
  *b = (struct bins){.d = d};
  const long per_axis = (long)ceil(pow((double)n, 1.0 / d));
  long total = 1;
  for (int a = 0; a < d; a++) {
    b->lo[a] = b->hi[a] = points[a];
    for (long p = 1; p < n; p++) {
      b->lo[a] = fmin(b->lo[a], points[p * 3 + a]);
      b->hi[a] = fmax(b->hi[a], points[p * 3 + a]);
    }
    const double extent = b->hi[a] - b->lo[a];
    b->k[a] = extent > 0 ? per_axis : 1;
    b->width[a] = extent > 0 ? extent / (double)b->k[a] : 1;
    total *= b->k[a];
  }
  FE_CALLOC(total + 1, &b->start);
  FE_MALLOC(n, &b->items);
  for (long p = 0; p < n; p++) b->start[bin_of(b, points + p * 3) + 1]++;
  for (long i = 0; i < total; i++) b->start[i + 1] += b->start[i];
  long *fill;
  FE_MALLOC(total, &fill);
  for (long i = 0; i < total; i++) fill[i] = b->start[i];
  for (long p = 0; p < n; p++) b->items[fill[bin_of(b, points + p * 3)]++] = p;
  free(fill);
  return FE_SUCCESS;
}

static void bins_free(struct bins *b)
{
  free(b->start);
  free(b->items);
}

/* ---------------------------------------------------------------- locating */

/* Cell c as a candidate for point p: it holds p (the first such cell, in ascending order, is
 * kept), or misses it by less than the cells before it did, within FE_PROBE_OUTSIDE. */
static void consider(const struct fe_mesh *m, long c, const double *x, struct fe_probe_location *l)
{
  if (l->cell >= 0 && l->miss <= FE_PROBE_ON_CELL) return;
  double lambda[FE_MAX_NV] = {0};
  barycentric(m, c, x, lambda);
  double low = lambda[0];
  for (int i = 1; i < m->nv; i++) low = fmin(low, lambda[i]);
  if (!(-low <= FE_PROBE_OUTSIDE) || (l->cell >= 0 && -low >= l->miss)) return;
  l->cell = (int)c;
  l->miss = -low;
  for (int i = 0; i < m->nv; i++) l->weights[i] = lambda[i];
}

/* The cell's bounding box, grown by what a point missing it by FE_PROBE_OUTSIDE can be away
 * from it: (d + 1) FE_PROBE_OUTSIDE times the cell's size (the points whose barycentric
 * coordinates are all >= -t form the cell scaled by 1 + (d + 1) t about its centroid). */
static void cell_box(const struct fe_mesh *m, long c, double *lo, double *hi)
{
  const int d = m->dim;
  double diagonal = 0;
  for (int a = 0; a < d; a++) {
    lo[a] = hi[a] = m->coords[(long)m->cells[c * m->nv] * d + a];
    for (int i = 1; i < m->nv; i++) {
      const double x = m->coords[(long)m->cells[c * m->nv + i] * d + a];
      lo[a] = fmin(lo[a], x);
      hi[a] = fmax(hi[a], x);
    }
    diagonal += (hi[a] - lo[a]) * (hi[a] - lo[a]);
  }
  const double grow = (d + 1) * FE_PROBE_OUTSIDE * sqrt(diagonal);
  for (int a = 0; a < d; a++) lo[a] -= grow, hi[a] += grow;
}

/* Every point of the bins that cell c's box covers, considered. */
static void visit_cell(const struct fe_mesh *m, const struct bins *b, long c, const double *points,
                       struct fe_probe_location *loc)
{
  const int d = m->dim;
  double lo[3], hi[3];
  long first[3] = {0, 0, 0}, last[3] = {0, 0, 0};
  cell_box(m, c, lo, hi);
  for (int a = 0; a < d; a++) {
    if (hi[a] < b->lo[a] || lo[a] > b->hi[a]) return;
    first[a] = axis_bin(b, a, lo[a]);
    last[a] = axis_bin(b, a, hi[a]);
  }
  for (long k2 = first[2]; k2 <= last[2]; k2++)
    for (long k1 = first[1]; k1 <= last[1]; k1++)
      for (long k0 = first[0]; k0 <= last[0]; k0++) {
        const long bin = (k2 * b->k[1] + k1) * b->k[0] + k0;
        for (long i = b->start[bin]; i < b->start[bin + 1]; i++) {
          const long p = b->items[i];
          consider(m, c, points + p * 3, &loc[p]);
        }
      }
}

/* The weights of a located point: negatives set to 0, rescaled to sum to 1; the distance
 * from the point to the point they give. */
static void finish(const struct fe_mesh *m, const double *x, struct fe_probe_location *l)
{
  if (l->cell < 0) return;
  double sum = 0, at[3] = {0, 0, 0}, d2 = 0;
  for (int i = 0; i < m->nv; i++) sum += l->weights[i] = fmax(l->weights[i], 0);
  for (int i = 0; i < m->nv; i++) {
    l->weights[i] /= sum;
    for (int a = 0; a < m->dim; a++)
      at[a] += l->weights[i] * m->coords[(long)m->cells[(long)l->cell * m->nv + i] * m->dim + a];
  }
  for (int a = 0; a < m->dim; a++) d2 += (x[a] - at[a]) * (x[a] - at[a]);
  l->miss = fmax(l->miss, 0);
  l->distance = l->miss > FE_PROBE_ON_CELL ? sqrt(d2) : 0;
}

int fe_probes_locate(const struct fe_mesh *m, long n, const double *points,
                     struct fe_probe_location *loc)
{
  struct bins b;
  for (long p = 0; p < n; p++) loc[p] = (struct fe_probe_location){.cell = -1};
  if (!n) return FE_SUCCESS;
  int err = bins_create(m->dim, n, points, &b);
  for (long c = 0; !err && c < m->n_cells; c++) visit_cell(m, &b, c, points, loc);
  bins_free(&b);
  for (long p = 0; !err && p < n; p++) finish(m, points + p * 3, &loc[p]);
  return err;
}

/* ---------------------------------------------------------------- on the backend */

int fe_probes_create(const struct fe_space *space, long n, const struct fe_probe_location *loc,
                     struct fe_probes **out)
{
  const struct fe_mesh *m = space->mesh;
  const int nv = space->nv;
  struct fe_probes *pr;
  int *nodes = NULL;
  double *weights = NULL;
  FE_CALLOC(1, &pr);
  pr->space = space;
  pr->n = n;
  int err = fe_malloc((size_t)(n * nv + 1) * sizeof *nodes, &nodes);
  if (!err) err = fe_malloc((size_t)(n * nv + 1) * sizeof *weights, &weights);
  for (long p = 0; !err && p < n; p++)
    for (int i = 0; i < nv; i++) {
      nodes[p * nv + i] = m->cells[(long)loc[p].cell * nv + i];
      weights[p * nv + i] = loc[p].weights[i];
    }
  const size_t count = (size_t)(n * nv + 1);
  if (!err) err = fe_backend_alloc(space->be, count * sizeof *nodes, nodes, &pr->nodes);
  if (!err) err = fe_backend_alloc(space->be, count * sizeof *weights, weights, &pr->weights);
  free(nodes);
  free(weights);
  if (err) {
    fe_probes_destroy(pr);
    return err;
  }
  *out = pr;
  return FE_SUCCESS;
}

void fe_probes_destroy(struct fe_probes *pr)
{
  if (!pr) return;
  fe_backend_free(pr->space->be, pr->nodes);
  fe_backend_free(pr->space->be, pr->weights);
  free(pr);
}

int fe_probes_interpolate(const struct fe_probes *pr, const double *field, int ncomp, double *out)
{
  const struct fe_space *s = pr->space;
  return s->be->assembly->node.interpolate(s, pr->n, pr->nodes, pr->weights, field, ncomp, out);
}
