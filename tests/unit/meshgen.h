/* Structured meshes built in memory for the unit tests: the unit square split
 * into 2 n^2 triangles, or the unit cube into 6 n^3 tetrahedra, with
 * optional random perturbation of the interior nodes. */
#ifndef FE_MESHGEN_H
#define FE_MESHGEN_H

#include <stdlib.h>
#include <string.h>

#include "io/mesh.h"

static double meshgen_rand(unsigned *state)
{
  *state = *state * 1664525u + 1013904223u;
  return (*state >> 8) / 16777216.0;
}

static struct fe_mesh *meshgen(int dim, int n, double jitter, unsigned seed)
{
  struct fe_mesh *m = calloc(1, sizeof *m);
  const int np = n + 1;
  m->path = strdup("generated");
  m->dim = dim;
  m->nv = dim + 1;
  m->n_nodes = dim == 2 ? np * np : np * np * np;
  m->n_cells = dim == 2 ? 2 * n * n : 6 * n * n * n;
  m->coords = malloc(sizeof(double) * m->n_nodes * dim);
  m->cells = malloc(sizeof(int) * m->n_cells * m->nv);
  m->cell_region = calloc(m->n_cells, sizeof(int));
  m->cell_id = malloc(sizeof(size_t) * m->n_cells);
  for (int c = 0; c < m->n_cells; c++) m->cell_id[c] = (size_t)c + 1;
  const double h = 1.0 / n;
  for (int p = 0; p < m->n_nodes; p++) {
    int idx[3] = {p % np, (p / np) % np, p / (np * np)};
    for (int a = 0; a < dim; a++) {
      double x = idx[a] * h;
      int interior = 1;
      for (int b = 0; b < dim; b++) interior &= idx[b] > 0 && idx[b] < n;
      if (interior) x += jitter * h * (meshgen_rand(&seed) - 0.5);
      m->coords[p * dim + a] = x;
    }
  }
  int *c = m->cells;
  if (dim == 2) {
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        int v0 = j * np + i, v1 = v0 + 1, v2 = v0 + np, v3 = v2 + 1;
        int t[6] = {v0, v1, v3, v0, v3, v2};
        memcpy(c, t, sizeof t);
        c += 6;
      }
  } else {
    /* Kuhn subdivision: 6 tetrahedra along the main diagonal of each cube */
    static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
          for (int t = 0; t < 6; t++) {
            int cur[3] = {i, j, k};
            *c++ = (cur[2] * np + cur[1]) * np + cur[0];
            for (int s = 0; s < 3; s++) {
              cur[perm[t][s]]++;
              *c++ = (cur[2] * np + cur[1]) * np + cur[0];
            }
          }
  }
  return m;
}

static void meshgen_free(struct fe_mesh *m)
{
  free(m->path);
  free(m->coords);
  free(m->cells);
  free(m->cell_region);
  free(m->cell_id);
  free(m);
}

/* 1 for nodes on the boundary of the unit square / cube */
static int meshgen_on_boundary(const struct fe_mesh *m, int node)
{
  for (int a = 0; a < m->dim; a++) {
    double x = m->coords[node * m->dim + a];
    if (x < 1e-12 || x > 1 - 1e-12) return 1;
  }
  return 0;
}

#endif
