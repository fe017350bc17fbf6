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
static const char *cell_where(const struct fe_mesh *m, const struct fe_mesh_raw *r, int c,
                              char *buf, size_t size)
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
  unsigned char *facet_cells; /* m->n_facets: how many cells have each facet of a group */
};

struct facet_key {
  int n[3]; /* the facet's nodes, ascending (-1 beyond dim) */
  size_t k; /* cell * nv + the vertex opposite the facet; n_cells * nv + f for facet f of a group */
};

static int cmp_facet(const void *a, const void *b)
{
  const struct facet_key *x = a, *y = b;
  for (int i = 0; i < 3; i++)
    if (x->n[i] != y->n[i]) return (x->n[i] > y->n[i]) - (x->n[i] < y->n[i]);
  return (x->k > y->k) - (x->k < y->k);
}

static void sort_nodes(int *n, int count)
{
  for (int a = 1; a < count; a++)
    for (int b = a; b > 0 && n[b - 1] > n[b]; b--) {
      int t = n[b];
      n[b] = n[b - 1];
      n[b - 1] = t;
    }
}

/* The facet of key k: of a cell (opposite one of its vertices) or of a group. */
static void facet_of(const struct fe_mesh *m, size_t k, struct facet_key *f)
{
  const size_t nk = (size_t)m->n_cells * m->nv;
  int j = 0;
  f->n[2] = -1;
  f->k = k;
  if (k >= nk) {
    for (int a = 0; a < m->dim; a++) f->n[a] = m->facets[(k - nk) * m->dim + a];
  } else {
    const size_t c = k / m->nv;
    const int *cell = m->cells + c * m->nv, v = (int)(k - c * m->nv);
    for (int a = 0; a < m->nv; a++)
      if (a != v) f->n[j++] = cell[a];
  }
  sort_nodes(f->n, m->dim);
}

/* The smallest node of the facet opposite vertex `skip` of the count nodes n
 * (skip -1: of all of them). */
static int facet_min(const int *n, int count, int skip)
{
  int lo = INT_MAX;
  for (int a = 0; a < count; a++)
    if (a != skip && n[a] < lo) lo = n[a];
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
 * the same); more than two cells on one facet overlap.  The facets of groups
 * in the bucket count the cells that have them. */
static int match_bucket(const struct fe_mesh *m, struct facet_key *key, size_t n, struct folds *fo)
{
  static const char *const facet_name[] = {"", "", "edge", "face"};
  const size_t nk = (size_t)m->n_cells * m->nv;
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
    size_t cells = i; /* the cells' keys come first: k < nk */
    while (cells < j && key[cells].k < nk) cells++;
    for (size_t g = cells; g < j; g++)
      fo->facet_cells[key[g].k - nk] = (unsigned char)(cells - i < 2 ? cells - i : 2);
    if (cells - i > 2) {
      size_t t[3];
      for (int a = 0; a < 3; a++) t[a] = m->cell_id[key[i + a].k / m->nv];
      qsort(t, 3, sizeof *t, cmp_size);
      FE_RAISE(FE_ERR_INPUT,
               "%s: elements %zu, %zu and %zu share one %s, so they overlap; expected at most two "
               "cells on each %s",
               m->path, t[0], t[1], t[2], facet_name[m->dim], facet_name[m->dim]);
    }
    if (cells - i < 2) continue;
    const int same = side(m, &key[i]) == side(m, &key[i + 1]);
    fo->nbr[key[i].k] = (int)(key[i + 1].k / m->nv);
    fo->nbr[key[i + 1].k] = (int)(key[i].k / m->nv);
    fo->same[key[i].k] = fo->same[key[i + 1].k] = (unsigned char)same;
    fo->n_folds += same;
  }
  return FE_SUCCESS;
}

/* Neighbours across every facet, bucketed by the facet's smallest node; the
 * facets of the groups (m->facets) in the same buckets. */
static int match_facets(const struct fe_mesh *m, struct folds *fo)
{
  const size_t nk = (size_t)m->n_cells * m->nv, n_keys = nk + (size_t)m->n_facets;
  size_t *start = NULL, *order = NULL, widest = 0;
  struct facet_key *key = NULL;
  int err = fe_calloc((size_t)m->n_nodes + 2, sizeof *start, &start);
  if (!err) err = fe_malloc(n_keys * sizeof *order, &order);
  if (err) goto done;
  const int nv = m->nv, d = m->dim;
  for (size_t c = 0; c < (size_t)m->n_cells; c++)
    for (int v = 0; v < nv; v++) start[facet_min(m->cells + c * nv, nv, v) + 2]++;
  for (size_t f = 0; f < (size_t)m->n_facets; f++) start[facet_min(m->facets + f * d, d, -1) + 2]++;
  for (int i = 0; i < m->n_nodes; i++) {
    widest = start[i + 2] > widest ? start[i + 2] : widest;
    start[i + 2] += start[i + 1];
  }
  for (size_t c = 0; c < (size_t)m->n_cells; c++)
    for (int v = 0; v < nv; v++)
      order[start[facet_min(m->cells + c * nv, nv, v) + 1]++] = c * nv + v;
  for (size_t f = 0; f < (size_t)m->n_facets; f++)
    order[start[facet_min(m->facets + f * d, d, -1) + 1]++] = nk + f;
  err = fe_malloc((widest ? widest : 1) * sizeof *key, &key);
  for (int i = 0; i < m->n_nodes && !err; i++) {
    size_t n = start[i + 1] - start[i];
    for (size_t j = 0; j < n; j++) facet_of(m, order[start[i] + j], &key[j]);
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

static int report_inverted(const struct fe_mesh *m, const struct fe_mesh_raw *r,
                           const struct folds *fo, const signed char *cls)
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

/* ---- separate pieces ---------------------------------------------------------- */

/* The cells connected through shared facets form the pieces of a mesh.
 * Pieces that share no facet may still meet in space: overlapping, the same
 * domain is meshed twice (an error); touching along facets that coincide but
 * whose nodes are not shared (surfaces meshed apart, Coherence forgotten),
 * nothing crosses from one to the other (a warning).  Only cells near the
 * bounding box of another piece are looked at, through a bounding volume
 * hierarchy over them (cells in Morton order, leaves of a few cells). */

struct box {
  double lo[3], hi[3];
};

struct pieces {
  const struct fe_mesh *m;
  const int *nbr;    /* n_cells * nv: the cell across each facet, or -1 (struct folds) */
  int *piece;        /* n_cells */
  int n;             /* pieces */
  double tol;        /* distances below it are round-off: 1e-10 of the mesh's extent */
  int overlap[2];    /* two cells of different pieces that overlap, or -1 */
  int touch[2];      /* two cells of different pieces with coincident facets, or -1 */
  long n_coincident; /* facets of one piece found coinciding with a facet of another */
};

enum { BVH_LEAF = 4 };

struct bvh_node {
  struct box b;
  int piece;        /* the one piece of all its cells, -1 for several */
  int left, right;  /* children, -1 for a leaf */
  int first, count; /* its cells: bvh.cell[first .. first + count) */
};

struct bvh {
  struct bvh_node *node;
  int n_nodes, root;
  int *cell; /* the cells looked at, in Morton order */
};

static void cell_points(const struct fe_mesh *m, int c, double x[FE_MAX_NV][3])
{
  for (int v = 0; v < m->nv; v++)
    for (int k = 0; k < 3; k++)
      x[v][k] = k < m->dim ? m->coords[(size_t)m->cells[(size_t)c * m->nv + v] * m->dim + k] : 0;
}

static void cell_box(const struct fe_mesh *m, int c, struct box *b)
{
  double x[FE_MAX_NV][3];
  cell_points(m, c, x);
  for (int k = 0; k < 3; k++) {
    b->lo[k] = b->hi[k] = x[0][k];
    for (int v = 1; v < m->nv; v++) {
      b->lo[k] = x[v][k] < b->lo[k] ? x[v][k] : b->lo[k];
      b->hi[k] = x[v][k] > b->hi[k] ? x[v][k] : b->hi[k];
    }
  }
}

static void box_add(struct box *b, const struct box *o)
{
  for (int k = 0; k < 3; k++) {
    b->lo[k] = o->lo[k] < b->lo[k] ? o->lo[k] : b->lo[k];
    b->hi[k] = o->hi[k] > b->hi[k] ? o->hi[k] : b->hi[k];
  }
}

static int box_meet(const struct box *a, const struct box *b, double tol)
{
  for (int k = 0; k < 3; k++)
    if (a->lo[k] > b->hi[k] + tol || b->lo[k] > a->hi[k] + tol) return 0;
  return 1;
}

/* piece[c] by breadth-first search over the facets; the number of pieces. */
static int label_pieces(const struct fe_mesh *m, const int *nbr, int *piece, int *queue)
{
  int n = 0;
  for (int c = 0; c < m->n_cells; c++) piece[c] = -1;
  for (int s = 0; s < m->n_cells; s++) {
    if (piece[s] >= 0) continue;
    int head = 0, tail = 0;
    queue[tail++] = s;
    piece[s] = n;
    while (head < tail) {
      const int c = queue[head++];
      for (int v = 0; v < m->nv; v++) {
        const int u = nbr[(size_t)c * m->nv + v];
        if (u >= 0 && piece[u] < 0) {
          piece[u] = n;
          queue[tail++] = u;
        }
      }
    }
    n++;
  }
  return n;
}

/* ---- two cells ---- */

static double dot3(const double *a, const double *b)
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double *a, const double *b, double *c)
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static void diff3(const double *a, const double *b, double *c)
{
  for (int k = 0; k < 3; k++) c[k] = a[k] - b[k];
}

/* The projections of the n points p and q on axis meet by at most tol (an
 * absolute distance): the axis separates them, or they only touch. */
static int separates(const double p[][3], const double q[][3], int n, const double *axis,
                     double tol)
{
  const double len = sqrt(dot3(axis, axis));
  double lp = INFINITY, hp = -INFINITY, lq = INFINITY, hq = -INFINITY;
  for (int v = 0; v < n; v++) {
    const double a = dot3(p[v], axis), b = dot3(q[v], axis);
    lp = a < lp ? a : lp;
    hp = a > hp ? a : hp;
    lq = b < lq ? b : lq;
    hq = b > hq ? b : hq;
  }
  return (hp < hq ? hp : hq) - (lp > lq ? lp : lq) <= tol * len;
}

/* Two simplices overlap (by more than tol) unless an axis separates them:
 * for convex polytopes it is among the normals of the faces of either and,
 * in 3D, the cross products of an edge of each (the separating axis test,
 * Ericson, Real-Time Collision Detection, 2005, section 5.2.1). */
static int cells_overlap(const struct fe_mesh *m, int a, int b, double tol)
{
  static const int edge[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  double x[2][FE_MAX_NV][3], axis[3], e[2][3];
  cell_points(m, a, x[0]);
  cell_points(m, b, x[1]);
  const int nv = m->nv;
  for (int t = 0; t < 2; t++)
    for (int v = 0; v < nv; v++) {
      if (m->dim == 2) { /* the normal of the edge opposite v */
        const double *p = x[t][(v + 1) % 3], *q = x[t][(v + 2) % 3];
        const double n[3] = {p[1] - q[1], q[0] - p[0], 0};
        if (separates(x[0], x[1], nv, n, tol)) return 0;
        continue;
      }
      const double *p = x[t][(v + 1) % 4], *q = x[t][(v + 2) % 4], *r = x[t][(v + 3) % 4];
      diff3(q, p, e[0]);
      diff3(r, p, e[1]);
      cross3(e[0], e[1], axis);
      if (separates(x[0], x[1], nv, axis, tol)) return 0;
    }
  if (m->dim == 2) return 1;
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++) {
      diff3(x[0][edge[i][1]], x[0][edge[i][0]], e[0]);
      diff3(x[1][edge[j][1]], x[1][edge[j][0]], e[1]);
      cross3(e[0], e[1], axis);
      if (dot3(axis, axis) <= 1e-24 * dot3(e[0], e[0]) * dot3(e[1], e[1])) continue; /* parallel */
      if (separates(x[0], x[1], nv, axis, tol)) return 0;
    }
  return 1;
}

/* Every vertex of the facet of cell a opposite va lies within tol of a
 * vertex of the facet of cell b opposite vb. */
static int facets_coincide(const struct fe_mesh *m, int a, int va, int b, int vb, double tol)
{
  double x[2][FE_MAX_NV][3];
  cell_points(m, a, x[0]);
  cell_points(m, b, x[1]);
  for (int i = 0; i < m->nv; i++) {
    if (i == va) continue;
    int found = 0;
    for (int j = 0; j < m->nv && !found; j++)
      found = j != vb && fabs(x[0][i][0] - x[1][j][0]) <= tol &&
              fabs(x[0][i][1] - x[1][j][1]) <= tol && fabs(x[0][i][2] - x[1][j][2]) <= tol;
    if (!found) return 0;
  }
  return 1;
}

/* Boundary facets of a that coincide with boundary facets of b. */
static int coincident_facets(const struct pieces *p, int a, int b)
{
  const int nv = p->m->nv;
  int n = 0;
  for (int va = 0; va < nv; va++)
    for (int vb = 0; vb < nv && p->nbr[(size_t)a * nv + va] < 0; vb++)
      n += p->nbr[(size_t)b * nv + vb] < 0 && facets_coincide(p->m, a, va, b, vb, p->tol);
  return n;
}

static void test_cells(struct pieces *p, int a, int b)
{
  if (p->piece[a] == p->piece[b] || p->overlap[0] >= 0) return;
  struct box ba, bb;
  cell_box(p->m, a, &ba);
  cell_box(p->m, b, &bb);
  if (!box_meet(&ba, &bb, p->tol)) return;
  if (cells_overlap(p->m, a, b, p->tol)) {
    p->overlap[0] = a;
    p->overlap[1] = b;
    return;
  }
  const int n = coincident_facets(p, a, b);
  if (n && p->touch[0] < 0) {
    p->touch[0] = a;
    p->touch[1] = b;
  }
  p->n_coincident += n;
}

/* ---- the hierarchy ---- */

/* Interleaved bits of the quantised centroid (31 bits an axis in 2D, 21 in 3D). */
static uint64_t morton(const struct fe_mesh *m, int c, const struct box *all)
{
  const int d = m->dim, bits = d == 2 ? 31 : 21;
  double x[FE_MAX_NV][3];
  cell_points(m, c, x);
  uint64_t code = 0;
  for (int k = 0; k < d; k++) {
    double s = 0;
    for (int v = 0; v < m->nv; v++) s += x[v][k] / m->nv;
    const double w = all->hi[k] - all->lo[k];
    const double f = w > 0 ? (s - all->lo[k]) / w : 0;
    const uint64_t q = (uint64_t)((f < 0 ? 0 : f > 1 ? 1 : f) * (double)((1u << bits) - 1));
    for (int bit = 0; bit < bits; bit++) code |= ((q >> bit) & 1u) << (bit * d + k);
  }
  return code;
}

/* cell[] sorted by key[] (least significant 16 bits first). */
static int radix_sort(uint64_t *key, int *cell, int n)
{
  uint64_t *key2 = NULL;
  int *cell2 = NULL;
  size_t *count = NULL;
  int err = fe_malloc((size_t)n * sizeof *key2, &key2);
  if (!err) err = fe_malloc((size_t)n * sizeof *cell2, &cell2);
  if (!err) err = fe_malloc(((size_t)1 << 16) * sizeof *count, &count);
  for (int pass = 0; pass < 4 && !err; pass++) {
    const int shift = 16 * pass;
    memset(count, 0, ((size_t)1 << 16) * sizeof *count);
    for (int i = 0; i < n; i++) count[(key[i] >> shift) & 0xffff]++;
    for (size_t sum = 0, d = 0; d < ((size_t)1 << 16); d++) {
      const size_t c = count[d];
      count[d] = sum;
      sum += c;
    }
    for (int i = 0; i < n; i++) {
      const size_t at = count[(key[i] >> shift) & 0xffff]++;
      key2[at] = key[i];
      cell2[at] = cell[i];
    }
    memcpy(key, key2, (size_t)n * sizeof *key);
    memcpy(cell, cell2, (size_t)n * sizeof *cell);
  }
  free(key2);
  free(cell2);
  free(count);
  return err;
}

static int bvh_parent(struct bvh *t, int l, int r)
{
  struct bvh_node *n = &t->node[t->n_nodes];
  n->b = t->node[l].b;
  box_add(&n->b, &t->node[r].b);
  n->piece = t->node[l].piece == t->node[r].piece ? t->node[l].piece : -1;
  n->left = l;
  n->right = r;
  n->first = t->node[l].first;
  n->count = t->node[l].count + t->node[r].count;
  return t->n_nodes++;
}

/* Leaves of BVH_LEAF cells in Morton order, then parents of neighbours, level by level. */
static int bvh_build(const struct pieces *p, int *cell, int n, struct bvh *t)
{
  const struct fe_mesh *m = p->m;
  const int leaves = (n + BVH_LEAF - 1) / BVH_LEAF;
  uint64_t *key = NULL;
  int *level = NULL;
  struct box all;
  cell_box(m, cell[0], &all);
  for (int i = 1; i < n; i++) {
    struct box b;
    cell_box(m, cell[i], &b);
    box_add(&all, &b);
  }
  t->cell = cell;
  int err = fe_malloc((size_t)n * sizeof *key, &key);
  if (!err) err = fe_malloc((size_t)leaves * sizeof *level, &level);
  if (!err) err = fe_malloc(2 * (size_t)leaves * sizeof *t->node, &t->node);
  for (int i = 0; i < n && !err; i++) key[i] = morton(m, cell[i], &all);
  if (!err) err = radix_sort(key, cell, n);
  for (int l = 0; l < leaves && !err; l++) {
    struct bvh_node *nd = &t->node[t->n_nodes++];
    nd->first = l * BVH_LEAF;
    nd->count = n - nd->first < BVH_LEAF ? n - nd->first : BVH_LEAF;
    nd->left = nd->right = -1;
    cell_box(m, cell[nd->first], &nd->b);
    nd->piece = p->piece[cell[nd->first]];
    for (int i = nd->first + 1; i < nd->first + nd->count; i++) {
      struct box b;
      cell_box(m, cell[i], &b);
      box_add(&nd->b, &b);
      if (p->piece[cell[i]] != nd->piece) nd->piece = -1;
    }
    level[l] = l;
  }
  for (int len = leaves; len > 1 && !err;) {
    int next = 0;
    for (int i = 0; i + 1 < len; i += 2) level[next++] = bvh_parent(t, level[i], level[i + 1]);
    if (len % 2) level[next++] = level[len - 1];
    len = next;
  }
  if (!err) t->root = level[0];
  free(key);
  free(level);
  return err;
}

/* Every pair of cells of different pieces whose boxes meet, through pairs of
 * nodes (a, b) whose boxes meet, until an overlap is found. */
static int bvh_collide(struct pieces *p, const struct bvh *t)
{
  size_t cap = 1024, top = 0;
  int(*stack)[2] = NULL;
  FE_CALL(fe_malloc(cap * sizeof *stack, &stack));
  stack[top][0] = stack[top][1] = t->root;
  top++;
  while (top && p->overlap[0] < 0) {
    top--;
    const struct bvh_node *a = &t->node[stack[top][0]], *b = &t->node[stack[top][1]];
    if (!box_meet(&a->b, &b->b, p->tol) || (a->piece >= 0 && a->piece == b->piece)) continue;
    if (a->left < 0 && b->left < 0) {
      for (int i = a->first; i < a->first + a->count; i++)
        for (int j = a == b ? i + 1 : b->first; j < b->first + b->count; j++)
          test_cells(p, t->cell[i], t->cell[j]);
      continue;
    }
    if (top + 3 > cap) {
      int(*more)[2] = realloc(stack, 2 * cap * sizeof *stack);
      if (!more) {
        free(stack);
        FE_RAISE(FE_ERR_RESOURCE, "out of host memory: could not allocate %zu bytes",
                 2 * cap * sizeof *stack);
      }
      stack = more;
      cap *= 2;
    }
    const int ia = stack[top][0], ib = stack[top][1];
    if (ia == ib) { /* a node against itself: its children against themselves and each other */
      const int pairs[3][2] = {{a->left, a->left}, {a->left, a->right}, {a->right, a->right}};
      memcpy(stack[top], pairs, sizeof pairs);
      top += 3;
    } else if (b->left < 0 || (a->left >= 0 && a->count >= b->count)) {
      const int pairs[2][2] = {{a->left, ib}, {a->right, ib}};
      memcpy(stack[top], pairs, sizeof pairs);
      top += 2;
    } else {
      const int pairs[2][2] = {{ia, b->left}, {ia, b->right}};
      memcpy(stack[top], pairs, sizeof pairs);
      top += 2;
    }
  }
  free(stack);
  return FE_SUCCESS;
}

/* ---- which cells, and the outcome ---- */

/* Pieces up to MAX_BOXED get a box each; a cell of a piece whose box meets
 * up to MAX_MET others is tested against their boxes, with more it is near. */
enum { MAX_BOXED = 4096, MAX_MET = 16 };

/* The box of the whole mesh, and with pb the box of each piece (empty on
 * entry: lo > hi). */
static void boxes(const struct pieces *p, struct box *pb, struct box *all)
{
  const struct fe_mesh *m = p->m;
  cell_box(m, 0, all);
  for (int c = 0; c < m->n_cells; c++) {
    struct box b;
    cell_box(m, c, &b);
    box_add(all, &b);
    if (!pb) continue;
    struct box *q = &pb[p->piece[c]];
    if (q->lo[0] > q->hi[0]) *q = b;
    box_add(q, &b);
  }
}

/* met[start[i] .. start[i + 1]): the pieces whose boxes meet the box of piece i. */
static int meeting_pieces(const struct pieces *p, const struct box *pb, int **start, int **met)
{
  FE_CALL(fe_calloc((size_t)p->n + 1, sizeof **start, start));
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < p->n; i++)
      for (int j = 0; j < p->n; j++) {
        if (i == j || !box_meet(&pb[i], &pb[j], p->tol)) continue;
        if (pass)
          (*met)[(*start)[i]++] = j;
        else
          (*start)[i + 1]++;
      }
    if (pass) break;
    for (int i = 0; i < p->n; i++) (*start)[i + 1] += (*start)[i];
    FE_CALL(fe_malloc((size_t)(*start)[p->n] * sizeof **met + 1, met));
  }
  for (int i = p->n; i > 0; i--) (*start)[i] = (*start)[i - 1]; /* the fill moved them on */
  (*start)[0] = 0;
  return FE_SUCCESS;
}

/* The cells whose box meets the box of another piece (all of them when the
 * pieces have no boxes: pb NULL). */
static int near_cells(const struct pieces *p, const struct box *pb, int *cell, int *n)
{
  const struct fe_mesh *m = p->m;
  int *start = NULL, *met = NULL;
  *n = 0;
  if (!pb) {
    for (int c = 0; c < m->n_cells; c++) cell[(*n)++] = c;
    return FE_SUCCESS;
  }
  int err = meeting_pieces(p, pb, &start, &met);
  for (int c = 0; c < m->n_cells && !err; c++) {
    const int i = p->piece[c], count = start[i + 1] - start[i];
    int near = count > MAX_MET;
    struct box b;
    if (count && !near) cell_box(m, c, &b);
    for (int k = start[i]; k < start[i + 1] && !near; k++) near = box_meet(&b, &pb[met[k]], p->tol);
    if (near) cell[(*n)++] = c;
  }
  free(start);
  free(met);
  return err;
}

static int report_pieces(const struct pieces *p, const struct fe_mesh_raw *r)
{
  static const char *const facets_name[] = {"", "", "edges", "faces"};
  const struct fe_mesh *m = p->m;
  const int *pair = p->overlap[0] >= 0 ? p->overlap : p->touch;
  if (pair[0] < 0) return FE_SUCCESS;
  const int swap = m->cell_id[pair[1]] < m->cell_id[pair[0]];
  char a[160], b[160];
  cell_where(m, r, pair[swap], a, sizeof a);
  cell_where(m, r, pair[!swap], b, sizeof b);
  if (p->overlap[0] >= 0)
    FE_RAISE(FE_ERR_INPUT,
             "%s: %s and %s overlap, and they lie in separate pieces of the mesh (pieces that "
             "share no %.4s; the mesh has %d); expected pieces that do not overlap",
             m->path, a, b, facets_name[m->dim], p->n);
  fe_warn("%s: %s and %s lie in separate pieces of the mesh (pieces that share no %.4s) that "
          "touch: %ld %s of one coincide with %s of another, on nodes of their own (a forgotten "
          "Coherence?); a tracer cannot cross from one piece to the other",
          m->path, a, b, facets_name[m->dim], p->n_coincident, facets_name[m->dim],
          facets_name[m->dim]);
  return FE_SUCCESS;
}

static int check_pieces(const struct fe_mesh *m, const struct fe_mesh_raw *r, const int *nbr)
{
  struct pieces p = {.m = m, .nbr = nbr, .overlap = {-1, -1}, .touch = {-1, -1}};
  struct bvh t = {0};
  struct box *pb = NULL;
  int *queue = NULL, n_near = 0;
  int err = fe_malloc((size_t)m->n_cells * sizeof *p.piece, &p.piece);
  if (!err) err = fe_malloc((size_t)m->n_cells * sizeof *queue, &queue);
  if (!err) p.n = label_pieces(m, nbr, p.piece, queue);
  if (err || p.n < 2) goto done;
  if (p.n <= MAX_BOXED) err = fe_malloc((size_t)p.n * sizeof *pb, &pb);
  for (int i = 0; pb && i < p.n; i++) pb[i] = (struct box){{INFINITY, 0, 0}, {-INFINITY, 0, 0}};
  if (!err) {
    struct box all;
    boxes(&p, pb, &all);
    p.tol = 1e-10 * sqrt(pow(all.hi[0] - all.lo[0], 2) + pow(all.hi[1] - all.lo[1], 2) +
                         pow(all.hi[2] - all.lo[2], 2));
    err = near_cells(&p, pb, queue, &n_near);
  }
  if (!err && n_near > 1) err = bvh_build(&p, queue, n_near, &t);
  if (!err && n_near > 1) err = bvh_collide(&p, &t);
  if (!err) err = report_pieces(&p, r);
done:
  free(p.piece);
  free(queue);
  free(pb);
  free(t.node);
  return err;
}

/* ---- the checks of the cells together -------------------------------------------- */

int fe_mesh_check_cells(struct fe_mesh *m, const struct fe_mesh_raw *r)
{
  const size_t nk = (size_t)m->n_cells * m->nv;
  struct folds fo = {0};
  signed char *cls = NULL;
  int *queue = NULL;
  int err = fe_malloc(nk * sizeof *fo.nbr, &fo.nbr);
  if (!err) err = fe_calloc(nk, sizeof *fo.same, &fo.same);
  if (!err) err = fe_calloc((size_t)m->n_facets, sizeof *m->facet_cells, &m->facet_cells);
  fo.facet_cells = m->facet_cells;
  for (size_t k = 0; k < nk && !err; k++) fo.nbr[k] = -1;
  if (!err) err = match_facets(m, &fo);
  if (!err && fo.n_folds) {
    err = fe_calloc((size_t)m->n_cells, sizeof *cls, &cls);
    if (!err) err = fe_malloc((size_t)m->n_cells * sizeof *queue, &queue);
    if (!err) classify(m, &fo, cls, queue);
    if (!err) err = report_inverted(m, r, &fo, cls);
  }
  if (!err) err = check_pieces(m, r, fo.nbr);
  free(fo.nbr);
  free(fo.same);
  free(cls);
  free(queue);
  return err;
}
