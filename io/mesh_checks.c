#include "io/mesh_checks.h"

#include "core/error.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_size(const void *a, const void *b)
{
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

int fe_mesh_check_coords(const char *path, const struct fe_mesh_raw *r, const int *used_old, int n)
{
  for (int i = 0; i < n; i++) {
    const double *x = r->xyz + 3 * (size_t)used_old[i];
    FE_CHECK(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]), FE_ERR_INPUT,
             "%s: node %zu is at (%g, %g, %g); expected finite coordinates", path,
             r->node_tags[used_old[i]], x[0], x[1], x[2]);
  }
  return FE_SUCCESS;
}

int fe_mesh_check_plane(const char *path, const struct fe_mesh_raw *r, const int *used_old, int n)
{
  double z0 = r->xyz[3 * (size_t)used_old[0] + 2], lo = INFINITY, hi = -INFINITY;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      double x = r->xyz[3 * (size_t)used_old[i] + k];
      lo = x < lo ? x : lo;
      hi = x > hi ? x : hi;
    }
  double tol = 1e-10 * (hi - lo);
  for (int i = 0; i < n; i++) {
    double z = r->xyz[3 * (size_t)used_old[i] + 2];
    FE_CHECK(fabs(z - z0) <= tol, FE_ERR_INPUT,
             "%s: a 2D mesh must lie in a plane z = const: node %zu has z = %g, node %zu has "
             "z = %g",
             path, r->node_tags[used_old[i]], z, r->node_tags[used_old[0]], z0);
  }
  return FE_SUCCESS;
}

/* Signed area (2D) or volume (3D) of the simplex c (nv node indices). */
static double signed_measure(const struct fe_mesh *m, const int *c)
{
  int d = m->dim;
  double e[FE_MAX_NV][FE_MAX_DIM] = {{0}};
  for (int v = 1; v < m->nv; v++)
    for (int k = 0; k < d; k++)
      e[v][k] = m->coords[(size_t)c[v] * d + k] - m->coords[(size_t)c[0] * d + k];
  if (d == 2) return 0.5 * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
  return (e[1][0] * (e[2][1] * e[3][2] - e[2][2] * e[3][1]) -
          e[1][1] * (e[2][0] * e[3][2] - e[2][2] * e[3][0]) +
          e[1][2] * (e[2][0] * e[3][1] - e[2][1] * e[3][0])) /
         6.0;
}

static double longest_edge(const struct fe_mesh *m, const int *c)
{
  double l2 = 0;
  for (int a = 0; a < m->nv; a++)
    for (int b = a + 1; b < m->nv; b++) {
      double s = 0;
      for (int k = 0; k < m->dim; k++) {
        double t = m->coords[(size_t)c[b] * m->dim + k] - m->coords[(size_t)c[a] * m->dim + k];
        s += t * t;
      }
      l2 = s > l2 ? s : l2;
    }
  return sqrt(l2);
}

static int entity_of(const struct fe_mesh_raw *r, size_t id)
{
  for (size_t k = 0; k < r->n_cells; k++)
    if (r->cell_id[k] == id) return r->cell_entity[k];
  return 0;
}

/* "element N (triangle of surface S)": a cell, for messages. */
static const char *cell_where(const struct fe_mesh *m, const struct fe_mesh_raw *r, int c, char *buf,
                              size_t size)
{
  snprintf(buf, size, "element %zu (%s of %s %d)", m->cell_id[c],
           m->dim == 2 ? "triangle" : "tetrahedron", m->dim == 2 ? "surface" : "volume",
           entity_of(r, m->cell_id[c]));
  return buf;
}

int fe_mesh_orient_cells(struct fe_mesh *m, const struct fe_mesh_raw *r)
{
  for (int c = 0; c < m->n_cells; c++) {
    int *cell = m->cells + (size_t)c * m->nv;
    double s = signed_measure(m, cell), longest = longest_edge(m, cell);
    char where[160];
    FE_CHECK(fabs(s) > 1e-12 * longest * longest * (m->dim == 3 ? longest : 1), FE_ERR_INPUT,
             "%s: %s is degenerate: its %s is %g (longest edge %g); expected cells of non-zero %s",
             m->path, cell_where(m, r, c, where, sizeof where), m->dim == 2 ? "area" : "volume",
             fabs(s), longest, m->dim == 2 ? "area" : "volume");
    if (s < 0) {
      int t = cell[m->nv - 1];
      cell[m->nv - 1] = cell[m->nv - 2];
      cell[m->nv - 2] = t;
    }
  }
  return FE_SUCCESS;
}

/* ---- inverted cells ---------------------------------------------------------- */

/* The vertex order of a cell is a convention of the file (Gmsh writes the
 * triangles of a surface whose curve loop is reversed clockwise, and
 * orient_cells reorders them), so it cannot tell an inverted cell.  Geometry
 * can: two cells that share a facet lie on opposite sides of it in a mesh,
 * and on the same side when one of them is folded over the other, so that the
 * two overlap.  The cells connected through shared facets then fall into two
 * classes, the cells on either side of the folds; the smaller class (fewer
 * cells, then less measure) is the inverted one. */
struct folds {
  int *nbr;            /* n_cells * nv: the cell across the facet opposite each vertex, or -1 */
  unsigned char *same; /* n_cells * nv: 1 where that cell lies on the same side of the facet */
  long n_folds;        /* facets with both cells on the same side */
};

struct facet_key {
  int n[3]; /* the facet's nodes, ascending (-1 beyond dim) */
  size_t k; /* cell * nv + the vertex opposite the facet */
};

static int cmp_facet(const void *a, const void *b)
{
  const struct facet_key *x = a, *y = b;
  for (int i = 0; i < 3; i++)
    if (x->n[i] != y->n[i]) return (x->n[i] > y->n[i]) - (x->n[i] < y->n[i]);
  return (x->k > y->k) - (x->k < y->k);
}

/* The facet of cell c opposite its vertex v. */
static void facet_of(const struct fe_mesh *m, size_t c, int v, struct facet_key *f)
{
  const int *cell = m->cells + c * m->nv;
  int j = 0;
  f->n[2] = -1;
  f->k = c * m->nv + v;
  for (int a = 0; a < m->nv; a++)
    if (a != v) f->n[j++] = cell[a];
  for (int a = 1; a < m->dim; a++)
    for (int b = a; b > 0 && f->n[b - 1] > f->n[b]; b--) {
      int t = f->n[b];
      f->n[b] = f->n[b - 1];
      f->n[b - 1] = t;
    }
}

static int facet_min(const int *cell, int nv, int v)
{
  int lo = INT_MAX;
  for (int a = 0; a < nv; a++)
    if (a != v && cell[a] < lo) lo = cell[a];
  return lo;
}

/* The side of facet f on which the opposite vertex of f->k lies. */
static int side(const struct fe_mesh *m, const struct facet_key *f)
{
  int s[FE_MAX_NV];
  memcpy(s, f->n, sizeof(int) * m->dim);
  s[m->dim] = m->cells[f->k];
  return signed_measure(m, s) > 0 ? 1 : -1;
}

/* Pairs the cells of each bucket of facets (those whose smallest node is
 * the same); more than two cells on one facet overlap. */
static int match_bucket(const struct fe_mesh *m, struct facet_key *key, size_t n, struct folds *fo)
{
  static const char *const facet_name[] = {"", "", "edge", "face"};
  if (n > 32) {
    qsort(key, n, sizeof *key, cmp_facet);
  } else { /* most buckets: a few dozen facets */
    for (size_t i = 1; i < n; i++)
      for (size_t j = i; j > 0 && cmp_facet(&key[j - 1], &key[j]) > 0; j--) {
        struct facet_key t = key[j];
        key[j] = key[j - 1];
        key[j - 1] = t;
      }
  }
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && !memcmp(key[j].n, key[i].n, sizeof key[i].n);) j++;
    if (j - i > 2) {
      size_t t[3];
      for (int a = 0; a < 3; a++) t[a] = m->cell_id[key[i + a].k / m->nv];
      qsort(t, 3, sizeof *t, cmp_size);
      FE_RAISE(FE_ERR_INPUT,
               "%s: elements %zu, %zu and %zu share one %s, so they overlap; expected at most two "
               "cells on each %s",
               m->path, t[0], t[1], t[2], facet_name[m->dim], facet_name[m->dim]);
    }
    if (j - i < 2) continue;
    const int same = side(m, &key[i]) == side(m, &key[i + 1]);
    fo->nbr[key[i].k] = (int)(key[i + 1].k / m->nv);
    fo->nbr[key[i + 1].k] = (int)(key[i].k / m->nv);
    fo->same[key[i].k] = fo->same[key[i + 1].k] = (unsigned char)same;
    fo->n_folds += same;
  }
  return FE_SUCCESS;
}

/* Neighbours across every facet, bucketed by the facet's smallest node. */
static int match_facets(const struct fe_mesh *m, struct folds *fo)
{
  const size_t nk = (size_t)m->n_cells * m->nv;
  size_t *start = NULL, *order = NULL, widest = 0;
  struct facet_key *key = NULL;
  int err = fe_calloc((size_t)m->n_nodes + 2, sizeof *start, &start);
  if (!err) err = fe_malloc(nk * sizeof *order, &order);
  if (err) goto done;
  const int nv = m->nv;
  for (size_t c = 0; c < (size_t)m->n_cells; c++)
    for (int v = 0; v < nv; v++) start[facet_min(m->cells + c * nv, nv, v) + 2]++;
  for (int i = 0; i < m->n_nodes; i++) {
    widest = start[i + 2] > widest ? start[i + 2] : widest;
    start[i + 2] += start[i + 1];
  }
  for (size_t c = 0; c < (size_t)m->n_cells; c++)
    for (int v = 0; v < nv; v++)
      order[start[facet_min(m->cells + c * nv, nv, v) + 1]++] = c * nv + v;
  err = fe_malloc((widest ? widest : 1) * sizeof *key, &key);
  for (int i = 0; i < m->n_nodes && !err; i++) {
    size_t n = start[i + 1] - start[i];
    for (size_t j = 0; j < n; j++) {
      size_t k = order[start[i] + j];
      facet_of(m, k / nv, (int)(k % nv), &key[j]);
    }
    err = match_bucket(m, key, n, fo);
  }
done:
  free(start);
  free(order);
  free(key);
  return err;
}

/* The inverted class of the part of the mesh queue[0..n): fewer cells, then
 * less measure, then the later elements of the file. */
static int smaller_class(const struct fe_mesh *m, const signed char *cls, const int *queue, int n)
{
  long count[2] = {0, 0};
  double measure[2] = {0, 0};
  size_t lowest[2] = {SIZE_MAX, SIZE_MAX};
  for (int j = 0; j < n; j++) count[cls[queue[j]] < 0]++;
  if (count[0] != count[1]) return count[1] < count[0];
  for (int j = 0; j < n; j++) {
    int c = queue[j], i = cls[c] < 0;
    measure[i] += fabs(signed_measure(m, m->cells + (size_t)c * m->nv));
    lowest[i] = m->cell_id[c] < lowest[i] ? m->cell_id[c] : lowest[i];
  }
  if (measure[0] != measure[1]) return measure[1] < measure[0];
  return lowest[1] > lowest[0];
}

/* cls[c] = +1 or -1, opposite across each fold, by breadth-first search over
 * the facets of each connected part; then the smaller class of each part
 * becomes 2 (inverted), the other 1. */
static void classify(const struct fe_mesh *m, const struct folds *fo, signed char *cls, int *queue)
{
  const int nv = m->nv;
  for (int s = 0; s < m->n_cells; s++) {
    if (cls[s]) continue;
    int head = 0, tail = 0;
    queue[tail++] = s;
    cls[s] = 1;
    while (head < tail) {
      int c = queue[head++];
      for (int v = 0; v < nv; v++) {
        int u = fo->nbr[(size_t)c * nv + v];
        if (u < 0 || cls[u]) continue;
        cls[u] = (signed char)(fo->same[(size_t)c * nv + v] ? -cls[c] : cls[c]);
        queue[tail++] = u;
      }
    }
    const int bad = smaller_class(m, cls, queue, tail);
    for (int j = 0; j < tail; j++)
      cls[queue[j]] = (signed char)((cls[queue[j]] < 0) == bad ? 2 : 1);
  }
}

static int report_inverted(const struct fe_mesh *m, const struct fe_mesh_raw *r, const struct folds *fo,
                           const signed char *cls)
{
  static const char *const cells_name[] = {"", "", "triangles", "tetrahedra"};
  static const char *const facet_name[] = {"", "", "edge", "face"};
  int first = -1, n_inverted = 0, other = -1;
  for (int c = 0; c < m->n_cells; c++)
    if (cls[c] == 2) {
      n_inverted++;
      if (first < 0 || m->cell_id[c] < m->cell_id[first]) first = c;
    }
  /* contradictory folds (each cell both over and under another) leave no class smaller */
  for (size_t k = 0; first < 0 && k < (size_t)m->n_cells * m->nv; k++)
    if (fo->same[k]) first = (int)(k / m->nv);
  if (first < 0) return FE_SUCCESS;
  for (int v = 0; v < m->nv; v++) {
    int u = fo->nbr[(size_t)first * m->nv + v];
    if (fo->same[(size_t)first * m->nv + v] && (other < 0 || m->cell_id[u] < m->cell_id[other]))
      other = u;
  }
  const int d = m->dim;
  char where[160];
  cell_where(m, r, first, where, sizeof where);
  if (other < 0)
    FE_RAISE(FE_ERR_INPUT,
             "%s: %s is inverted: it lies in a part of the mesh folded over the cells around it; "
             "%d of the %d %s %s inverted; expected cells that do not overlap",
             m->path, where, n_inverted, m->n_cells, cells_name[d], n_inverted == 1 ? "is" : "are");
  char overlap[160];
  snprintf(overlap, sizeof overlap,
           "it and element %zu lie on the same side of their shared %s, so they overlap",
           m->cell_id[other], facet_name[d]);
  if (!n_inverted)
    FE_RAISE(FE_ERR_INPUT, "%s: %s: %s; expected cells that do not overlap", m->path, where,
             overlap);
  FE_RAISE(
      FE_ERR_INPUT,
      "%s: %s is inverted: %s; %d of the %d %s %s inverted; expected cells that do not overlap",
      m->path, where, overlap, n_inverted, m->n_cells, cells_name[d],
      n_inverted == 1 ? "is" : "are");
}

int fe_mesh_check_inverted(const struct fe_mesh *m, const struct fe_mesh_raw *r)
{
  const size_t nk = (size_t)m->n_cells * m->nv;
  struct folds fo = {0};
  signed char *cls = NULL;
  int *queue = NULL;
  int err = fe_malloc(nk * sizeof *fo.nbr, &fo.nbr);
  if (!err) err = fe_calloc(nk, sizeof *fo.same, &fo.same);
  for (size_t k = 0; k < nk && !err; k++) fo.nbr[k] = -1;
  if (!err) err = match_facets(m, &fo);
  if (!err && fo.n_folds) {
    err = fe_calloc((size_t)m->n_cells, sizeof *cls, &cls);
    if (!err) err = fe_malloc((size_t)m->n_cells * sizeof *queue, &queue);
    if (!err) classify(m, &fo, cls, queue);
    if (!err) err = report_inverted(m, r, &fo, cls);
  }
  free(fo.nbr);
  free(fo.same);
  free(cls);
  free(queue);
  return err;
}

/* Cells in the order of their smallest new node (a stable counting sort). */
