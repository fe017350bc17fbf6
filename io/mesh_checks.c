#include "io/mesh_checks.h"

#include "core/error.h"
#include "io/shares.h"

#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_size(const void *a, const void *b)
{
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

/* The checks on every thread report the fault that a serial loop meets first: the lowest index
 * of those found (reduction(min)), checked after the loop. */

int fe_mesh_check_coords(const char *path, const struct fe_mesh_raw *r, const int *used_old, int n)
{
  int bad = n; /* the first node not finite */
#pragma omp parallel for schedule(static) reduction(min : bad)
  for (int i = 0; i < n; i++) {
    const double *x = r->xyz + 3 * (size_t)used_old[i];
    if (!(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2])) && i < bad) bad = i;
  }
  if (bad == n) return FE_SUCCESS;
  const double *x = r->xyz + 3 * (size_t)used_old[bad];
  FE_RAISE(FE_ERR_INPUT, "%s: node %zu is at (%g, %g, %g); expected finite coordinates", path,
           r->node_tags[used_old[bad]], x[0], x[1], x[2]);
}

int fe_mesh_check_plane(const char *path, const struct fe_mesh_raw *r, const int *used_old, int n)
{
  double z0 = r->xyz[3 * (size_t)used_old[0] + 2], lo = INFINITY, hi = -INFINITY;
#pragma omp parallel for schedule(static) reduction(min : lo) reduction(max : hi)
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      double x = r->xyz[3 * (size_t)used_old[i] + k];
      lo = x < lo ? x : lo;
      hi = x > hi ? x : hi;
    }
  double tol = 1e-10 * (hi - lo);
  int bad = n; /* the first node off the plane */
#pragma omp parallel for schedule(static) reduction(min : bad)
  for (int i = 0; i < n; i++)
    if (!(fabs(r->xyz[3 * (size_t)used_old[i] + 2] - z0) <= tol) && i < bad) bad = i;
  FE_CHECK(bad == n, FE_ERR_INPUT,
           "%s: a 2D mesh must lie in a plane z = const: node %zu has z = %g, node %zu has "
           "z = %g",
           path, r->node_tags[used_old[bad]], r->xyz[3 * (size_t)used_old[bad] + 2],
           r->node_tags[used_old[0]], z0);
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

/* A cell of zero measure (round-off of its longest edge's): its measure, and longest edge. */
static int degenerate(const struct fe_mesh *m, const int *cell, double *s, double *longest)
{
  *s = signed_measure(m, cell);
  *longest = longest_edge(m, cell);
  return !(fabs(*s) > 1e-12 * *longest * *longest * (m->dim == 3 ? *longest : 1));
}

int fe_mesh_orient_cells(struct fe_mesh *m, const struct fe_mesh_raw *r)
{
  int bad = m->n_cells; /* the first degenerate cell */
#pragma omp parallel for schedule(static) reduction(min : bad)
  for (int c = 0; c < m->n_cells; c++) {
    int *cell = m->cells + (size_t)c * m->nv;
    double s, longest;
    if (degenerate(m, cell, &s, &longest)) {
      bad = c < bad ? c : bad;
    } else if (s < 0) {
      int t = cell[m->nv - 1];
      cell[m->nv - 1] = cell[m->nv - 2];
      cell[m->nv - 2] = t;
    }
  }
  if (bad == m->n_cells) return FE_SUCCESS;
  double s, longest;
  char where[160];
  degenerate(m, m->cells + (size_t)bad * m->nv, &s, &longest);
  FE_RAISE(FE_ERR_INPUT,
           "%s: %s is degenerate: its %s is %g (longest edge %g); expected cells of non-zero %s",
           m->path, cell_where(m, r, bad, where, sizeof where), m->dim == 2 ? "area" : "volume",
           fabs(s), longest, m->dim == 2 ? "area" : "volume");
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

/* A facet in its bucket, that of its smallest node: its other nodes, ascending, in one word (the
 * second node in the high half, the third in the low, UINT32_MAX in 2D), so that a bucket's
 * facets sort by their nodes in one comparison. */
struct facet_key {
  uint64_t nodes;
  size_t k; /* cell * nv + the vertex opposite the facet; n_cells * nv + f for facet f of a group */
};

static int facet_before(const struct facet_key *x, const struct facet_key *y)
{
  return x->nodes < y->nodes || (x->nodes == y->nodes && x->k < y->k);
}

static int cmp_facet(const void *a, const void *b) /* facet_before for qsort */
{
  return facet_before(b, a) - facet_before(a, b);
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
  int j = 0, n[3] = {-1, -1, -1};
  f->k = k;
  if (k >= nk) {
    for (int a = 0; a < m->dim; a++) n[a] = m->facets[(k - nk) * m->dim + a];
  } else {
    const size_t c = k / m->nv;
    const int *cell = m->cells + c * m->nv, v = (int)(k - c * m->nv);
    for (int a = 0; a < m->nv; a++)
      if (a != v) n[j++] = cell[a];
  }
  sort_nodes(n, m->dim);
  f->nodes = (uint64_t)(uint32_t)n[1] << 32 | (uint32_t)n[2];
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
static int side(const struct fe_mesh *m, int lowest, const struct facet_key *f)
{
  int s[FE_MAX_NV] = {lowest, (int)(f->nodes >> 32), (int)(uint32_t)f->nodes};
  s[m->dim] = m->cells[f->k];
  return signed_measure(m, s) > 0 ? 1 : -1;
}

/* Pairs the cells of each bucket of facets (those whose smallest node is `lowest`), sorted; the
 * facets of groups in the bucket count the cells that have them.  Returns the facets with both
 * cells on the same side; *shared: the first facet of the bucket with more than two cells
 * (which overlap), or n. */
static long match_bucket(const struct fe_mesh *m, int lowest, const struct facet_key *key,
                         size_t n, struct folds *fo, size_t *shared)
{
  const size_t nk = (size_t)m->n_cells * m->nv;
  long n_folds = 0;
  *shared = n;
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && key[j].nodes == key[i].nodes;) j++;
    size_t cells = i; /* the cells' keys come first: k < nk */
    while (cells < j && key[cells].k < nk) cells++;
    for (size_t g = cells; g < j; g++)
      fo->facet_cells[key[g].k - nk] = (unsigned char)(cells - i < 2 ? cells - i : 2);
    if (cells - i > 2) {
      *shared = i;
      return n_folds;
    }
    if (cells - i < 2) continue;
    const int same = side(m, lowest, &key[i]) == side(m, lowest, &key[i + 1]);
    fo->nbr[key[i].k] = (int)(key[i + 1].k / m->nv);
    fo->nbr[key[i + 1].k] = (int)(key[i].k / m->nv);
    fo->same[key[i].k] = fo->same[key[i + 1].k] = (unsigned char)same;
    n_folds += same;
  }
  return n_folds;
}

/* The n facets of the keys order[0 .. n) into key, sorted. */
static void bucket_keys(const struct fe_mesh *m, const size_t *order, size_t n,
                        struct facet_key *key)
{
  for (size_t j = 0; j < n; j++) facet_of(m, order[j], &key[j]);
  if (n > 32) {
    qsort(key, n, sizeof *key, cmp_facet);
    return;
  }
  for (size_t i = 1; i < n; i++) { /* most buckets: a few dozen facets */
    const struct facet_key t = key[i];
    size_t j = i;
    for (; j > 0 && facet_before(&t, &key[j - 1]); j--) key[j] = key[j - 1];
    key[j] = t;
  }
}

/* The facet of bucket i with more than two cells, from the bucket sorted again. */
static int report_shared(const struct fe_mesh *m, const size_t *start, const size_t *order, int i,
                         struct folds *fo)
{
  static const char *const facet_name[] = {"", "", "edge", "face"};
  const size_t n = start[i + 1] - start[i];
  struct facet_key *key;
  size_t at, t[3];
  FE_MALLOC(n, &key);
  bucket_keys(m, order + start[i], n, key);
  match_bucket(m, i, key, n, fo, &at);
  for (int a = 0; a < 3; a++) t[a] = m->cell_id[key[at + a].k / m->nv];
  free(key);
  qsort(t, 3, sizeof *t, cmp_size);
  FE_RAISE(FE_ERR_INPUT,
           "%s: elements %zu, %zu and %zu share one %s, so they overlap; expected at most two "
           "cells on each %s",
           m->path, t[0], t[1], t[2], facet_name[m->dim], facet_name[m->dim]);
}

/* Every bucket, a thread each: the first bucket with a facet of three cells in *shared (or
 * n_nodes); 0, or the bytes a thread could not get. */
static size_t match_buckets(const struct fe_mesh *m, const size_t *start, const size_t *order,
                            struct folds *fo, int *shared)
{
  size_t lack = 0;
  long n_folds = 0;
  int first = m->n_nodes;
#pragma omp parallel reduction(max : lack) reduction(+ : n_folds) reduction(min : first)
  {
    struct fe_scratch s = {0};
#pragma omp for schedule(dynamic, 1024)
    for (int i = 0; i < m->n_nodes; i++) {
      const size_t n = start[i + 1] - start[i];
      const size_t short_of = fe_scratch_reserve(&s, n * sizeof(struct facet_key));
      if (short_of) {
        lack = short_of > lack ? short_of : lack;
        continue;
      }
      size_t at;
      bucket_keys(m, order + start[i], n, s.p);
      n_folds += match_bucket(m, i, s.p, n, fo, &at);
      if (at < n && i < first) first = i;
    }
    free(s.p);
  }
  fo->n_folds = n_folds;
  *shared = first;
  return lack;
}

/* Neighbours across every facet, bucketed by the facet's smallest node; the
 * facets of the groups (m->facets) in the same buckets. */
static int match_facets(const struct fe_mesh *m, struct folds *fo)
{
  const int nv = m->nv, d = m->dim;
  const size_t nk = (size_t)m->n_cells * nv, n_keys = nk + (size_t)m->n_facets;
  size_t *start = NULL, *order = NULL;
  int *lowest = NULL, shared; /* n_keys: the smallest node of each key's facet, its bucket */
  FE_CALL(fe_malloc(n_keys * sizeof *lowest, &lowest));
#pragma omp parallel for schedule(static)
  for (size_t c = 0; c < (size_t)m->n_cells; c++)
    for (int v = 0; v < nv; v++) lowest[c * nv + v] = facet_min(m->cells + c * nv, nv, v);
#pragma omp parallel for schedule(static)
  for (size_t f = 0; f < (size_t)m->n_facets; f++)
    lowest[nk + f] = facet_min(m->facets + f * d, d, -1);
  int err = fe_buckets(n_keys, lowest, (size_t)m->n_nodes, &start, &order);
  free(lowest);
  if (err) return err;
  const size_t lack = match_buckets(m, start, order, fo, &shared);
  if (!lack && shared < m->n_nodes) err = report_shared(m, start, order, shared, fo);
  free(start);
  free(order);
  FE_CHECK(!lack, FE_ERR_RESOURCE, "out of host memory: could not allocate %zu bytes", lack);
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
  const int *nbr; /* n_cells * nv: the cell across each facet, or -1 (struct folds) */
  int *piece;     /* n_cells */
  int n;          /* pieces */
  double tol;     /* distances below it are round-off: 1e-10 of the mesh's extent */
};

/* What the search of the hierarchy (or a part of it) found, in the order it looks. */
struct meeting {
  int overlap[2];    /* the first two cells of different pieces that overlap, or -1 */
  int touch[2];      /* the first two cells of different pieces with coincident facets, or -1 */
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

/* The pieces as trees of cells (union-find), on every thread: each thread points the cells of
 * its share to the lowest cell they reach inside it (a breadth-first search from each cell not
 * reached yet, in order), then joins the trees across shares, a root under the lower root, so
 * that each piece ends with its lowest cell as root, whatever the order of the joins.
 * parent[c] is always c or a lower cell of c's tree. */
static int root_of(_Atomic int *parent, int c)
{
  for (;;) {
    const int p = atomic_load_explicit(&parent[c], memory_order_relaxed);
    if (p == c) return c;
    const int g = atomic_load_explicit(&parent[p], memory_order_relaxed);
    if (g != p) atomic_store_explicit(&parent[c], g, memory_order_relaxed); /* path halving */
    c = g;
  }
}

static void join(_Atomic int *parent, int a, int b)
{
  for (;;) {
    a = root_of(parent, a);
    b = root_of(parent, b);
    if (a == b) return;
    int hi = a > b ? a : b;
    if (atomic_compare_exchange_weak_explicit(&parent[hi], &hi, a < b ? a : b, memory_order_relaxed,
                                              memory_order_relaxed))
      return;
  }
}

/* The cells of this thread's share [lo, hi) to the lowest cell they reach inside it (parent -1
 * on entry); queue: room for the share at queue[lo ..]. */
static void trees_of_share(const struct fe_mesh *m, const int *nbr, _Atomic int *parent, int *queue,
                           size_t lo, size_t hi)
{
  for (size_t s = lo; s < hi; s++) {
    if (atomic_load_explicit(&parent[s], memory_order_relaxed) >= 0) continue;
    size_t head = lo, tail = lo;
    queue[tail++] = (int)s;
    atomic_store_explicit(&parent[s], (int)s, memory_order_relaxed);
    while (head < tail) {
      const int c = queue[head++];
      for (int v = 0; v < m->nv; v++) {
        const int u = nbr[(size_t)c * m->nv + v];
        if (u < (int)lo || u >= (int)hi ||
            atomic_load_explicit(&parent[u], memory_order_relaxed) >= 0)
          continue;
        atomic_store_explicit(&parent[u], (int)s, memory_order_relaxed);
        queue[tail++] = u;
      }
    }
  }
}

/* piece[c], numbered in the order of the pieces' lowest cells (a breadth-first search from each
 * cell not yet labelled, in order, numbers them so); the number of pieces.  root: n_cells. */
static int label_pieces(const struct fe_mesh *m, const int *nbr, int *piece, int *root,
                        int *n_pieces)
{
  _Atomic int *parent;
  FE_MALLOC(m->n_cells, &parent);
#pragma omp parallel for schedule(static)
  for (int c = 0; c < m->n_cells; c++) atomic_init(&parent[c], -1);
#pragma omp parallel
  {
    size_t lo, hi;
    fe_share((size_t)m->n_cells, &lo, &hi);
    trees_of_share(m, nbr, parent, root, lo, hi);
#pragma omp barrier
    for (size_t c = lo; c < hi; c++) /* the facets to a later share */
      for (int v = 0; v < m->nv; v++)
        if ((size_t)nbr[c * m->nv + v] >= hi && nbr[c * m->nv + v] >= 0)
          join(parent, (int)c, nbr[c * m->nv + v]);
  }
#pragma omp parallel for schedule(static)
  for (int c = 0; c < m->n_cells; c++) root[c] = root_of(parent, c);
  free(parent);
  struct fe_shares s;
#pragma omp parallel num_threads(fe_shares_threads())
  { /* the roots' numbers, in order, into piece[root] */
    size_t lo, hi, n = 0;
    fe_share((size_t)m->n_cells, &lo, &hi);
    for (size_t c = lo; c < hi; c++) n += root[c] == (int)c;
    n = fe_share_offset(&s, n);
    for (size_t c = lo; c < hi; c++)
      if (root[c] == (int)c) piece[c] = (int)n++;
  }
#pragma omp parallel for schedule(static)
  for (int c = 0; c < m->n_cells; c++)
    if (root[c] != c) piece[c] = piece[root[c]];
  *n_pieces = (int)s.total;
  return FE_SUCCESS;
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

static void test_cells(const struct pieces *p, struct meeting *r, int a, int b)
{
  if (p->piece[a] == p->piece[b] || r->overlap[0] >= 0) return;
  struct box ba, bb;
  cell_box(p->m, a, &ba);
  cell_box(p->m, b, &bb);
  if (!box_meet(&ba, &bb, p->tol)) return;
  if (cells_overlap(p->m, a, b, p->tol)) {
    r->overlap[0] = a;
    r->overlap[1] = b;
    return;
  }
  const int n = coincident_facets(p, a, b);
  if (n && r->touch[0] < 0) {
    r->touch[0] = a;
    r->touch[1] = b;
  }
  r->n_coincident += n;
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

/* cell[] sorted by key[] (least significant 16 bits first), each pass a stable sort by 16
 * bits (fe_buckets). */
static int radix_sort(uint64_t *key, int *cell, int n)
{
  uint64_t *key2 = NULL;
  int *cell2 = NULL, *digit = NULL;
  int err = fe_malloc((size_t)n * sizeof *key2, &key2);
  if (!err) err = fe_malloc((size_t)n * sizeof *cell2, &cell2);
  if (!err) err = fe_malloc((size_t)n * sizeof *digit, &digit);
  for (int pass = 0; pass < 4 && !err; pass++) {
    const int shift = 16 * pass;
    size_t *start, *order;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) digit[i] = (int)((key[i] >> shift) & 0xffff);
    err = fe_buckets((size_t)n, digit, (size_t)1 << 16, &start, &order);
    if (err) break;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) {
      key2[i] = key[order[i]];
      cell2[i] = cell[order[i]];
    }
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) {
      key[i] = key2[i];
      cell[i] = cell2[i];
    }
    free(start);
    free(order);
  }
  free(key2);
  free(cell2);
  free(digit);
  return err;
}

/* The box of the n cells cell[] (of cells 0 .. n - 1 with cell NULL); n >= 1. */
static struct box cells_box(const struct fe_mesh *m, const int *cell, int n)
{
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
#pragma omp parallel for schedule(static) reduction(min : lo[:3]) reduction(max : hi[:3])
  for (int i = 0; i < n; i++) {
    struct box b;
    cell_box(m, cell ? cell[i] : i, &b);
    for (int k = 0; k < 3; k++) {
      lo[k] = b.lo[k] < lo[k] ? b.lo[k] : lo[k];
      hi[k] = b.hi[k] > hi[k] ? b.hi[k] : hi[k];
    }
  }
  return (struct box){{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}};
}

/* Leaf l: cells l * BVH_LEAF .. of the n in Morton order. */
static void bvh_leaf(const struct pieces *p, struct bvh *t, int n, int l)
{
  struct bvh_node *nd = &t->node[l];
  nd->first = l * BVH_LEAF;
  nd->count = n - nd->first < BVH_LEAF ? n - nd->first : BVH_LEAF;
  nd->left = nd->right = -1;
  cell_box(p->m, t->cell[nd->first], &nd->b);
  nd->piece = p->piece[t->cell[nd->first]];
  for (int i = nd->first + 1; i < nd->first + nd->count; i++) {
    struct box b;
    cell_box(p->m, t->cell[i], &b);
    box_add(&nd->b, &b);
    if (p->piece[t->cell[i]] != nd->piece) nd->piece = -1;
  }
}

static void bvh_parent(struct bvh *t, int at, int l, int r)
{
  struct bvh_node *n = &t->node[at];
  n->b = t->node[l].b;
  box_add(&n->b, &t->node[r].b);
  n->piece = t->node[l].piece == t->node[r].piece ? t->node[l].piece : -1;
  n->left = l;
  n->right = r;
  n->first = t->node[l].first;
  n->count = t->node[l].count + t->node[r].count;
}

/* Leaves of BVH_LEAF cells in Morton order, then parents of neighbours, level by level (the
 * nodes of a level numbered in order). */
static int bvh_build(const struct pieces *p, int *cell, int n, struct bvh *t)
{
  const struct fe_mesh *m = p->m;
  const int leaves = (n + BVH_LEAF - 1) / BVH_LEAF;
  const struct box all = cells_box(m, cell, n);
  uint64_t *key = NULL;
  int *level = NULL, *up = NULL;
  t->cell = cell;
  int err = fe_malloc((size_t)n * sizeof *key, &key);
  if (!err) err = fe_malloc((size_t)leaves * sizeof *level, &level);
  if (!err) err = fe_malloc((size_t)leaves * sizeof *up, &up);
  if (!err) err = fe_malloc(2 * (size_t)leaves * sizeof *t->node, &t->node);
  if (!err) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) key[i] = morton(m, cell[i], &all);
    err = radix_sort(key, cell, n);
  }
  if (!err) {
#pragma omp parallel for schedule(static)
    for (int l = 0; l < leaves; l++) {
      bvh_leaf(p, t, n, l);
      level[l] = l;
    }
    t->n_nodes = leaves;
  }
  for (int len = leaves; len > 1 && !err;) {
    const int pairs = len / 2;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < pairs; i++) {
      bvh_parent(t, t->n_nodes + i, level[2 * i], level[2 * i + 1]);
      up[i] = t->n_nodes + i;
    }
    if (len % 2) up[pairs] = level[len - 1];
    t->n_nodes += pairs;
    len = pairs + len % 2;
    int *was = level;
    level = up;
    up = was;
  }
  if (!err) t->root = level[0];
  free(key);
  free(level);
  free(up);
  return err;
}

/* What the search does with a pair of nodes: nothing (their boxes apart, or one piece in
 * both), test their cells (two leaves), or look at the pairs of their children. */
enum { PAIR_SKIP, PAIR_LEAVES, PAIR_INNER };

static int pair_kind(const struct pieces *p, const struct bvh *t, int ia, int ib)
{
  const struct bvh_node *a = &t->node[ia], *b = &t->node[ib];
  if (!box_meet(&a->b, &b->b, p->tol) || (a->piece >= 0 && a->piece == b->piece)) return PAIR_SKIP;
  return a->left < 0 && b->left < 0 ? PAIR_LEAVES : PAIR_INNER;
}

/* The pairs of children of an inner pair, in the order the search pushes them (it looks at the
 * last first); how many. */
static int child_pairs(const struct bvh *t, int ia, int ib, int pairs[3][2])
{
  const struct bvh_node *a = &t->node[ia], *b = &t->node[ib];
  if (ia == ib) { /* a node against itself: its children against themselves and each other */
    const int self[3][2] = {{a->left, a->left}, {a->left, a->right}, {a->right, a->right}};
    memcpy(pairs, self, sizeof self);
    return 3;
  }
  if (b->left < 0 || (a->left >= 0 && a->count >= b->count)) { /* a's children against b */
    const int split[2][2] = {{a->left, ib}, {a->right, ib}};
    memcpy(pairs, split, sizeof split);
  } else {
    const int split[2][2] = {{ia, b->left}, {ia, b->right}};
    memcpy(pairs, split, sizeof split);
  }
  return 2;
}

/* Every pair of cells of different pieces whose boxes meet, under the pair of nodes (ia, ib),
 * depth first, until an overlap is found; stack: a thread's.  0, or the bytes it could not get. */
static size_t collide_from(const struct pieces *p, const struct bvh *t, int ia, int ib,
                           struct fe_scratch *stack, struct meeting *r)
{
  size_t top = 0;
  int(*pair)[2];
  const size_t lack = fe_scratch_reserve(stack, 1024 * sizeof *pair);
  if (lack) return lack;
  pair = stack->p;
  pair[top][0] = ia;
  pair[top][1] = ib;
  top++;
  while (top && r->overlap[0] < 0) {
    top--;
    const int a = pair[top][0], b = pair[top][1], kind = pair_kind(p, t, a, b);
    if (kind == PAIR_SKIP) continue;
    if (kind == PAIR_LEAVES) {
      const struct bvh_node *na = &t->node[a], *nb = &t->node[b];
      for (int i = na->first; i < na->first + na->count; i++)
        for (int j = na == nb ? i + 1 : nb->first; j < nb->first + nb->count; j++)
          test_cells(p, r, t->cell[i], t->cell[j]);
      continue;
    }
    const size_t short_of = fe_scratch_reserve(stack, (top + 3) * sizeof *pair);
    if (short_of) return short_of;
    pair = stack->p;
    top += (size_t)child_pairs(t, a, b, &pair[top]);
  }
  return 0;
}

/* The pairs of nodes at the top of the search, in the order it looks at them (each pair's
 * children in the reverse of their push), until there are some per thread: *n of them. */
static int search_front(const struct pieces *p, const struct bvh *t, int want, int (**front)[2],
                        int *n)
{
  int(*pairs)[2] = NULL, (*more)[2] = NULL, count = 1, grown = 1;
  FE_CALL(fe_malloc(sizeof *pairs, &pairs));
  pairs[0][0] = pairs[0][1] = t->root;
  while (count < want && grown) {
    int next = 0, child[3][2];
    grown = 0;
    if (fe_malloc(3 * (size_t)count * sizeof *more, &more)) {
      free(pairs);
      return FE_ERR_RESOURCE;
    }
    for (int i = 0; i < count; i++) {
      const int kind = pair_kind(p, t, pairs[i][0], pairs[i][1]);
      if (kind == PAIR_LEAVES) memcpy(more[next++], pairs[i], sizeof *pairs);
      if (kind != PAIR_INNER) continue;
      for (int k = child_pairs(t, pairs[i][0], pairs[i][1], child); k-- > 0;)
        memcpy(more[next++], child[k], sizeof *child);
      grown = 1;
    }
    free(pairs);
    pairs = more;
    count = next;
  }
  *front = pairs;
  *n = count;
  return FE_SUCCESS;
}

/* The search on every thread, a part of the front each, put together in the front's order:
 * the first overlap of the first part that has one, else the first touch and every
 * coincident facet, as a search on one thread finds them. */
static int bvh_collide(const struct pieces *p, const struct bvh *t, struct meeting *r)
{
  int(*front)[2] = NULL, n = 0;
  struct meeting *part = NULL;
  FE_CALL(search_front(p, t, 16 * omp_get_max_threads(), &front, &n));
  int err = fe_malloc(((size_t)n + 1) * sizeof *part, &part), first_overlap = n;
  size_t lack = 0;
  if (!err) {
#pragma omp parallel reduction(max : lack)
    {
      struct fe_scratch stack = {0};
#pragma omp for schedule(dynamic, 1)
      for (int i = 0; i < n; i++) {
        int known;
#pragma omp atomic read
        known = first_overlap;
        if (i > known) continue; /* after an overlap: nothing it finds is reported */
        part[i] = (struct meeting){{-1, -1}, {-1, -1}, 0};
        const size_t short_of = collide_from(p, t, front[i][0], front[i][1], &stack, &part[i]);
        lack = short_of > lack ? short_of : lack;
        if (part[i].overlap[0] < 0) continue;
#pragma omp critical(fe_mesh_first_overlap)
        if (i < first_overlap) {
#pragma omp atomic write
          first_overlap = i;
        }
      }
      free(stack.p);
    }
  }
  for (int i = 0; !err && !lack && i < n; i++) {
    if (part[i].overlap[0] >= 0) {
      memcpy(r->overlap, part[i].overlap, sizeof r->overlap);
      break;
    }
    if (r->touch[0] < 0) memcpy(r->touch, part[i].touch, sizeof r->touch);
    r->n_coincident += part[i].n_coincident;
  }
  free(front);
  free(part);
  FE_CHECK(!lack, FE_ERR_RESOURCE, "out of host memory: could not allocate %zu bytes", lack);
  return err;
}

/* ---- which cells, and the outcome ---- */

/* Pieces up to MAX_BOXED get a box each; a cell of a piece whose box meets
 * up to MAX_MET others is tested against their boxes, with more it is near. */
enum { MAX_BOXED = 4096, MAX_MET = 16 };

/* b into q, either of them empty (lo > hi). */
static void box_put(struct box *q, const struct box *b)
{
  if (b->lo[0] > b->hi[0]) return;
  if (q->lo[0] > q->hi[0])
    *q = *b;
  else
    box_add(q, b);
}

static const struct box empty_box = {{INFINITY, 0, 0}, {-INFINITY, 0, 0}};

/* The box of each piece (MAX_BOXED at most): each thread puts the boxes of its cells into boxes
 * of its own, put together after (in any order: the same smallest and largest coordinates). */
static int piece_boxes(const struct pieces *p, struct box *pb)
{
  const int threads = omp_get_max_threads(), n = p->n;
  struct box *own;
  FE_MALLOC((size_t)threads * n, &own);
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < (size_t)threads * n; i++) own[i] = empty_box;
#pragma omp parallel num_threads(threads)
  {
    struct box *mine = own + (size_t)omp_get_thread_num() * n;
#pragma omp for schedule(static)
    for (int c = 0; c < p->m->n_cells; c++) {
      struct box b;
      cell_box(p->m, c, &b);
      box_put(&mine[p->piece[c]], &b);
    }
  }
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++) {
    pb[i] = empty_box;
    for (int t = 0; t < threads; t++) box_put(&pb[i], &own[(size_t)t * n + i]);
  }
  free(own);
  return FE_SUCCESS;
}

/* The pieces other than i whose boxes meet the box of piece i: into out unless NULL; how many. */
static int meeting(const struct pieces *p, const struct box *pb, int i, int *out)
{
  int n = 0;
  for (int j = 0; j < p->n; j++) {
    if (i == j || !box_meet(&pb[i], &pb[j], p->tol)) continue;
    if (out) out[n] = j;
    n++;
  }
  return n;
}

/* met[start[i] .. start[i + 1]): the pieces whose boxes meet the box of piece i. */
static int meeting_pieces(const struct pieces *p, const struct box *pb, int **start, int **met)
{
  FE_CALL(fe_calloc((size_t)p->n + 1, sizeof **start, start));
  int *at = *start;
#pragma omp parallel for schedule(dynamic, 16)
  for (int i = 0; i < p->n; i++) at[i + 1] = meeting(p, pb, i, NULL);
  for (int i = 0; i < p->n; i++) at[i + 1] += at[i];
  FE_CALL(fe_malloc((size_t)at[p->n] * sizeof **met + 1, met));
#pragma omp parallel for schedule(dynamic, 16)
  for (int i = 0; i < p->n; i++) meeting(p, pb, i, *met + at[i]);
  return FE_SUCCESS;
}

/* Cell c's box meets the box of another piece (or its piece's box meets more than MAX_MET). */
static int near(const struct pieces *p, const struct box *pb, const int *start, const int *met,
                int c)
{
  const int i = p->piece[c], count = start[i + 1] - start[i];
  if (!count || count > MAX_MET) return count > MAX_MET;
  struct box b;
  cell_box(p->m, c, &b);
  for (int k = start[i]; k < start[i + 1]; k++)
    if (box_meet(&b, &pb[met[k]], p->tol)) return 1;
  return 0;
}

/* The cells whose box meets the box of another piece (all of them when the
 * pieces have no boxes: pb NULL), in order. */
static int near_cells(const struct pieces *p, const struct box *pb, int *cell, int *n)
{
  const struct fe_mesh *m = p->m;
  int *start = NULL, *met = NULL;
  *n = m->n_cells;
  if (!pb) {
#pragma omp parallel for schedule(static)
    for (int c = 0; c < m->n_cells; c++) cell[c] = c;
    return FE_SUCCESS;
  }
  int err = meeting_pieces(p, pb, &start, &met);
  struct fe_shares s = {.total = 0};
  if (!err) {
#pragma omp parallel num_threads(fe_shares_threads())
    {
      size_t lo, hi, count = 0;
      fe_share((size_t)m->n_cells, &lo, &hi);
      for (size_t c = lo; c < hi; c++) count += near(p, pb, start, met, (int)c);
      size_t at = fe_share_offset(&s, count);
      for (size_t c = lo; c < hi; c++)
        if (near(p, pb, start, met, (int)c)) cell[at++] = (int)c;
    }
  }
  *n = (int)s.total;
  free(start);
  free(met);
  return err;
}

static int report_pieces(const struct pieces *p, const struct meeting *found,
                         const struct fe_mesh_raw *r)
{
  static const char *const facets_name[] = {"", "", "edges", "faces"};
  const struct fe_mesh *m = p->m;
  const int *pair = found->overlap[0] >= 0 ? found->overlap : found->touch;
  if (pair[0] < 0) return FE_SUCCESS;
  const int swap = m->cell_id[pair[1]] < m->cell_id[pair[0]];
  char a[160], b[160];
  cell_where(m, r, pair[swap], a, sizeof a);
  cell_where(m, r, pair[!swap], b, sizeof b);
  if (found->overlap[0] >= 0)
    FE_RAISE(FE_ERR_INPUT,
             "%s: %s and %s overlap, and they lie in separate pieces of the mesh (pieces that "
             "share no %.4s; the mesh has %d); expected pieces that do not overlap",
             m->path, a, b, facets_name[m->dim], p->n);
  fe_warn("%s: %s and %s lie in separate pieces of the mesh (pieces that share no %.4s) that "
          "touch: %ld %s of one coincide with %s of another, on nodes of their own (a forgotten "
          "Coherence?); a tracer cannot cross from one piece to the other",
          m->path, a, b, facets_name[m->dim], found->n_coincident, facets_name[m->dim],
          facets_name[m->dim]);
  return FE_SUCCESS;
}

static int check_pieces(const struct fe_mesh *m, const struct fe_mesh_raw *r, const int *nbr)
{
  struct pieces p = {.m = m, .nbr = nbr};
  struct meeting found = {{-1, -1}, {-1, -1}, 0};
  struct bvh t = {0};
  struct box *pb = NULL;
  int *queue = NULL, n_near = 0;
  int err = fe_malloc((size_t)m->n_cells * sizeof *p.piece, &p.piece);
  if (!err) err = fe_malloc((size_t)m->n_cells * sizeof *queue, &queue);
  if (!err) err = label_pieces(m, nbr, p.piece, queue, &p.n);
  if (err || p.n < 2) goto done;
  if (p.n <= MAX_BOXED) err = fe_malloc((size_t)p.n * sizeof *pb, &pb);
  if (!err && pb) err = piece_boxes(&p, pb);
  if (!err) {
    const struct box all = cells_box(m, NULL, m->n_cells);
    p.tol = 1e-10 * sqrt(pow(all.hi[0] - all.lo[0], 2) + pow(all.hi[1] - all.lo[1], 2) +
                         pow(all.hi[2] - all.lo[2], 2));
    err = near_cells(&p, pb, queue, &n_near);
  }
  if (!err && n_near > 1) err = bvh_build(&p, queue, n_near, &t);
  if (!err && n_near > 1) err = bvh_collide(&p, &t, &found);
  if (!err) err = report_pieces(&p, &found, r);
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
  if (!err) {
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < nk; k++) fo.nbr[k] = -1;
  }
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
