#include "io/structured.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"

static double lcg(unsigned *state)
{
  *state = *state * 1664525u + 1013904223u;
  return (*state >> 8) / 16777216.0;
}

static void make_coords(struct fe_mesh *m, int n, double jitter, unsigned seed)
{
  const int dim = m->dim, np = n + 1;
  const double h = 1.0 / n;
  for (long p = 0; p < m->n_nodes; p++) {
    const int idx[3] = {(int)(p % np), (int)(p / np % np), (int)(p / ((long)np * np))};
    int interior = 1;
    for (int a = 0; a < dim; a++) interior &= idx[a] > 0 && idx[a] < n;
    for (int a = 0; a < dim; a++)
      m->coords[p * dim + a] = idx[a] * h + (interior && jitter > 0 ? jitter * h * (lcg(&seed) - 0.5) : 0);
  }
}

static void make_cells(struct fe_mesh *m, int n)
{
  const long np = n + 1;
  if (m->dim == 2) {
#pragma omp parallel for schedule(static)
    for (long q = 0; q < (long)n * n; q++) {
      const long i = q % n, j = q / n, v0 = j * np + i, v1 = v0 + 1, v2 = v0 + np, v3 = v2 + 1;
      const int t[6] = {(int)v0, (int)v1, (int)v3, (int)v0, (int)v3, (int)v2};
      memcpy(m->cells + q * 6, t, sizeof t);
    }
    return;
  }
  /* Kuhn subdivision: the 6 tetrahedra along the main diagonal of each cube;
   * odd permutations give negative volumes, so their last two vertices swap */
  static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  static const int odd[6] = {0, 1, 1, 0, 0, 1};
#pragma omp parallel for schedule(static)
  for (long q = 0; q < (long)n * n * n; q++) {
    int *c = m->cells + q * 24;
    for (int t = 0; t < 6; t++) {
      long cur[3] = {q % n, q / n % n, q / ((long)n * n)};
      *c++ = (int)((cur[2] * np + cur[1]) * np + cur[0]);
      for (int s = 0; s < 3; s++) {
        cur[perm[t][s]]++;
        *c++ = (int)((cur[2] * np + cur[1]) * np + cur[0]);
      }
      if (odd[t]) {
        int v = c[-1];
        c[-1] = c[-2];
        c[-2] = v;
      }
    }
  }
}

/* Boundary facets: segments in 2D; in 3D two triangles per boundary square,
 * split along the diagonal that the Kuhn tetrahedra use. */
static void make_facets(struct fe_mesh *m, int n)
{
  const int np = n + 1;
  int *f = m->facets;
  if (m->dim == 2) {
    for (int i = 0; i < n; i++) {
      const int s[4][2] = {{i, i + 1}, {n * np + i, n * np + i + 1}, {i * np, (i + 1) * np},
                           {i * np + n, (i + 1) * np + n}};
      for (int k = 0; k < 4; k++, f += 2) memcpy(f, s[k], sizeof s[k]);
    }
    return;
  }
  for (int axis = 0; axis < 3; axis++)
    for (int side = 0; side < 2; side++)
      for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
          int e1 = (axis + 1) % 3, e2 = (axis + 2) % 3;
          if (e1 > e2) {
            int t = e1;
            e1 = e2;
            e2 = t;
          }
          int base[3];
          base[axis] = side * n;
          base[e1] = i;
          base[e2] = j;
          const int stride[3] = {1, np, np * np};
          const int a = base[0] + base[1] * np + base[2] * np * np;
          const int b = a + stride[e1], c = a + stride[e2], d = a + stride[e1] + stride[e2];
          const int t[6] = {a, b, d, a, c, d};
          memcpy(f, t, sizeof t);
          f += 6;
        }
}

int fe_mesh_create_structured(int dim, int n, double jitter, unsigned seed, struct fe_mesh **out)
{
  FE_CHECK((dim == 2 || dim == 3) && n >= 1, FE_ERR_USAGE, "structured mesh: dimension %d, %d divisions",
           dim, n);
  const long np = n + 1;
  const long nodes = dim == 2 ? np * np : np * np * np;
  const long cells = dim == 2 ? 2L * n * n : 6L * n * n * n;
  FE_CHECK(cells * (dim + 1) < 2147483647L, FE_ERR_USAGE,
           "structured mesh of %ld cells: more than 32-bit indices can hold", cells);
  struct fe_mesh *m;
  FE_CALLOC(1, &m);
  *out = m;
  m->dim = dim;
  m->nv = dim + 1;
  m->n_nodes = (int)nodes;
  m->n_cells = (int)cells;
  m->n_facets = dim == 2 ? 4 * n : 12 * n * n;
  m->n_groups = 2;
  int err = fe_strdup("structured", &m->path);
  if (!err) err = fe_malloc((size_t)nodes * dim * sizeof(double), &m->coords);
  if (!err) err = fe_malloc((size_t)cells * (dim + 1) * sizeof(int), &m->cells);
  if (!err) err = fe_malloc((size_t)cells * sizeof(int), &m->cell_region);
  if (!err) err = fe_malloc((size_t)cells * sizeof(size_t), &m->cell_id);
  if (!err) err = fe_malloc((size_t)m->n_facets * dim * sizeof(int), &m->facets);
  if (!err) err = fe_malloc((size_t)m->n_facets * sizeof(int), &m->facet_group);
  if (!err) err = fe_calloc(2, sizeof *m->groups, &m->groups);
  if (!err) err = fe_strdup("boundary", &m->groups[0].name);
  if (!err) err = fe_strdup("domain", &m->groups[1].name);
  if (err) {
    fe_mesh_destroy(m);
    *out = NULL;
    return err;
  }
  m->groups[0] = (struct fe_physical){dim - 1, 1, m->groups[0].name};
  m->groups[1] = (struct fe_physical){dim, 1, m->groups[1].name};
  make_coords(m, n, jitter, seed);
  make_cells(m, n);
  make_facets(m, n);
#pragma omp parallel for schedule(static)
  for (long c = 0; c < cells; c++) {
    m->cell_region[c] = 1;
    m->cell_id[c] = (size_t)c + 1;
  }
  for (int f = 0; f < m->n_facets; f++) m->facet_group[f] = 1;
  return FE_SUCCESS;
}
