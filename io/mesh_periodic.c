#include "io/mesh_periodic.h"

#include "core/error.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A pair's slave must lie where its link's transform takes its master, to this fraction of the
 * shortest edge at either node: a pairing with a neighbour is off by about one edge. */
#define FE_PERIODIC_TOLERANCE 1e-3

struct periodic {
  struct fe_mesh *m;
  struct fe_mesh_raw *r;
  const int *local, *used, *cells;
  int *parent;          /* union-find forest of the classes of copies */
  unsigned char *slave; /* the node is a slave of some pair */
  double *edge;         /* the shortest edge at each node */
  double *shift;        /* per link: the translation of its first pair, where it has no affine */
  const char *links;    /* where the links come from, for messages */
};

static const char *kind(int dim)
{
  static const char *const k[] = {"point", "curve", "surface", "volume"};
  return dim >= 0 && dim <= 3 ? k[dim] : "entity";
}

static size_t tag_of(const struct periodic *p, int node) { return p->r->node_tags[p->used[node]]; }

static const double *xyz(const struct periodic *p, int node)
{
  return p->r->xyz + 3 * p->used[node];
}

static int find(int *parent, int i)
{
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

static int shortest_edges(struct periodic *p)
{
  const struct fe_mesh *m = p->m;
  FE_CALL(fe_malloc((size_t)m->n_nodes * sizeof *p->edge, &p->edge));
  for (int i = 0; i < m->n_nodes; i++) p->edge[i] = INFINITY;
  for (long c = 0; c < m->n_cells; c++)
    for (int a = 0; a < m->nv; a++)
      for (int b = a + 1; b < m->nv; b++) {
        const int i = p->cells[c * m->nv + a], j = p->cells[c * m->nv + b];
        const double *x = xyz(p, i), *y = xyz(p, j);
        const double h = sqrt(pow(x[0] - y[0], 2) + pow(x[1] - y[1], 2) + pow(x[2] - y[2], 2));
        p->edge[i] = fmin(p->edge[i], h);
        p->edge[j] = fmin(p->edge[j], h);
      }
  return FE_SUCCESS;
}

/* Where link l takes the master point x: its affine transform (Gmsh's 4 x 4, by rows), else
 * the translation of its first pair. */
static void transform(const struct periodic *p, int l, const double *x, double *y)
{
  const double *a = p->r->link_affine + 16 * l;
  for (int i = 0; i < 3; i++)
    y[i] = p->r->link[4 * l + 3]
               ? a[4 * i] * x[0] + a[4 * i + 1] * x[1] + a[4 * i + 2] * x[2] + a[4 * i + 3]
               : x[i] + p->shift[3 * l + i];
}

/* Pair k: both nodes in cells (or neither: skipped, *use 0), distinct, the slave where the
 * link's transform takes the master. */
static int check_pair(struct periodic *p, size_t k, int *use)
{
  const struct fe_mesh_raw *r = p->r;
  const int *q = r->pair + 3 * k, l = q[2], *link = r->link + 4 * l;
  const int s = p->local[q[0]], t = p->local[q[1]], d = p->m->dim;
  const char *path = p->m->path, *kd = kind(link[0]);
  *use = s >= 0 || t >= 0;
  if (!*use) return FE_SUCCESS;
  FE_CHECK(s >= 0 && t >= 0, FE_ERR_INPUT,
           "%s: %s pairs node %zu of %s %d with node %zu of %s %d, and node %zu is in no %s; "
           "expected nodes of the mesh's cells",
           path, p->links, r->node_tags[q[0]], kd, link[1], r->node_tags[q[1]], kd, link[2],
           r->node_tags[s < 0 ? q[0] : q[1]], d == 2 ? "triangle" : "tetrahedron");
  FE_CHECK(s != t, FE_ERR_INPUT,
           "%s: node %zu is its own master: %s pairs it with itself (%s %d with %s %d); "
           "expected a node of the master %s",
           path, tag_of(p, s), p->links, kd, link[1], kd, link[2], kd);
  const double *xs = xyz(p, s), *xm = xyz(p, t);
  if (!link[3] && isnan(p->shift[3 * l]))
    for (int i = 0; i < 3; i++) p->shift[3 * l + i] = xs[i] - xm[i];
  double y[3];
  transform(p, l, xm, y);
  const double off = sqrt(pow(y[0] - xs[0], 2) + pow(y[1] - xs[1], 2) + pow(y[2] - xs[2], 2));
  const double tol = FE_PERIODIC_TOLERANCE * fmin(p->edge[s], p->edge[t]);
  if (off <= tol) return FE_SUCCESS;
  char ps[96], pm[96], py[96];
  FE_RAISE(FE_ERR_INPUT,
           "%s: %s pairs node %zu at %s of %s %d with node %zu at %s of %s %d, which %s takes "
           "to %s, %.3g from node %zu: more than %.3g (%g of the shortest edge there); expected "
           "each slave node where the transform takes its master",
           path, p->links, tag_of(p, s), fe_mesh_point_text(d, xs, ps, sizeof ps), kd, link[1],
           tag_of(p, t), fe_mesh_point_text(d, xm, pm, sizeof pm), kd, link[2],
           link[3] ? "the link's affine transform" : "the translation of the link's first pair",
           fe_mesh_point_text(d, y, py, sizeof py), off, tag_of(p, s), tol, FE_PERIODIC_TOLERANCE);
}

/* Each slave where its pair's transform takes the master, masters first: a pass per link in a
 * chain (a corner of a periodic cube is a copy of a copy of a copy). */
static void place(struct periodic *p)
{
  const struct fe_mesh_raw *r = p->r;
  for (int pass = 0; pass < 4; pass++)
    for (size_t k = 0; k < r->n_pairs; k++) {
      const int *q = r->pair + 3 * k;
      if (p->local[q[0]] >= 0 && p->local[q[1]] >= 0)
        transform(p, q[2], r->xyz + 3 * q[1], p->r->xyz + 3 * q[0]);
    }
}

/* Every class of copies has a node that is no slave; *owner[root] the one of lowest Gmsh tag. */
static int owners(struct periodic *p, int *owner)
{
  const int n = p->m->n_nodes;
  for (int i = 0; i < n; i++) owner[i] = -1;
  for (int i = 0; i < n; i++) {
    const int c = find(p->parent, i);
    if (!p->slave[i] && (owner[c] < 0 || tag_of(p, i) < tag_of(p, owner[c]))) owner[c] = i;
  }
  for (int i = 0; i < n; i++)
    FE_CHECK(owner[find(p->parent, i)] >= 0, FE_ERR_INPUT,
             "%s: node %zu is its own master: its master nodes in %s, and theirs, lead back to "
             "it; expected chains of masters that end at a node that is no slave",
             p->m->path, tag_of(p, i), p->links);
  return FE_SUCCESS;
}

/* No cell has two copies of one unknown: it would span the periodic domain. */
static int check_cells(const struct periodic *p)
{
  const struct fe_mesh *m = p->m;
  for (long c = 0; c < m->n_cells; c++)
    for (int a = 0; a < m->nv; a++)
      for (int b = a + 1; b < m->nv; b++) {
        const int i = p->cells[c * m->nv + a], j = p->cells[c * m->nv + b];
        FE_CHECK(find(p->parent, i) != find(p->parent, j), FE_ERR_INPUT,
                 "%s: element %zu has nodes %zu and %zu, which %s make copies of one node: the "
                 "cell spans the periodic domain; expected at least two cells across each "
                 "periodic direction",
                 m->path, p->r->cell_id[c], tag_of(p, i), tag_of(p, j),
                 fe_mesh_is_geo(m->path) ? "the script's Periodic links" : "the $Periodic links");
      }
  return FE_SUCCESS;
}

/* perm changed so that the aliased nodes come after the others, each part in perm's order. */
static int number(struct periodic *p, const int *owner, int *perm)
{
  struct fe_mesh *m = p->m;
  const int n = m->n_nodes;
  int *order, *moved;
  FE_CALL(fe_malloc((size_t)n * sizeof *order, &order));
  int err = fe_malloc((size_t)n * sizeof *moved, &moved);
  for (int i = 0; i < n && !err; i++) order[perm[i]] = i;
  m->n_aliased = 0;
  for (int i = 0; i < n && !err; i++) m->n_aliased += owner[find(p->parent, i)] != i;
  const int owned = n - m->n_aliased;
  if (!err) err = fe_malloc(((size_t)m->n_aliased + 1) * sizeof *m->alias_of, &m->alias_of);
  for (int k = 0, next = 0, alias = owned; k < n && !err; k++) {
    const int i = order[k];
    moved[i] = owner[find(p->parent, i)] == i ? next++ : alias++;
  }
  for (int i = 0; i < n && !err; i++)
    if (moved[i] >= owned) m->alias_of[moved[i] - owned] = moved[owner[find(p->parent, i)]];
  if (!err) memcpy(perm, moved, (size_t)n * sizeof *perm);
  free(order);
  free(moved);
  return err;
}

/* The links, and which of them holds each facet (its slave or master entity). */
static int copy_links(struct periodic *p)
{
  struct fe_mesh *m = p->m;
  const struct fe_mesh_raw *r = p->r;
  FE_CALL(fe_malloc(((size_t)r->n_links + 1) * sizeof *m->links, &m->links));
  m->n_links = r->n_links;
  for (int l = 0; l < r->n_links; l++)
    m->links[l] = (struct fe_periodic_link){r->link[4 * l], r->link[4 * l + 1], r->link[4 * l + 2]};
  FE_CALL(fe_calloc(r->n_facets + 1, sizeof *m->facet_link, &m->facet_link));
  for (size_t f = 0; f < r->n_facets; f++)
    for (int l = 0; l < r->n_links && !m->facet_link[f]; l++) {
      const int *k = r->link + 4 * l, e = r->facet_entity[f];
      if (k[0] == m->dim - 1 && (k[1] == e || k[2] == e)) m->facet_link[f] = l + 1;
    }
  return FE_SUCCESS;
}

static int classes(struct periodic *p, int *perm)
{
  const struct fe_mesh_raw *r = p->r;
  const int n = p->m->n_nodes;
  FE_CALL(fe_malloc((size_t)n * sizeof *p->parent, &p->parent));
  FE_CALL(fe_calloc((size_t)n, 1, &p->slave));
  FE_CALL(fe_malloc(((size_t)r->n_links + 1) * 3 * sizeof *p->shift, &p->shift));
  for (int i = 0; i < n; i++) p->parent[i] = i;
  for (int l = 0; l < 3 * r->n_links; l++) p->shift[l] = NAN;
  FE_CALL(shortest_edges(p));
  for (size_t k = 0; k < r->n_pairs; k++) {
    int use;
    FE_CALL(check_pair(p, k, &use));
    if (!use) continue;
    const int s = p->local[r->pair[3 * k]], t = p->local[r->pair[3 * k + 1]];
    p->slave[s] = 1;
    p->parent[find(p->parent, s)] = find(p->parent, t);
  }
  int *owner;
  FE_CALL(fe_malloc((size_t)n * sizeof *owner, &owner));
  int err = owners(p, owner);
  if (!err) err = check_cells(p);
  if (!err) place(p);
  if (!err) err = number(p, owner, perm);
  free(owner);
  return err;
}

int fe_mesh_periodic(struct fe_mesh *m, struct fe_mesh_raw *r, const int *local, const int *used,
                     const int *cells, int *perm)
{
  if (!r->n_links) return FE_SUCCESS;
  struct periodic p = {.m = m,
                       .r = r,
                       .local = local,
                       .used = used,
                       .cells = cells,
                       .links = fe_mesh_is_geo(m->path) ? "Gmsh's meshing of the script's "
                                                          "Periodic links"
                                                        : "the $Periodic section"};
  int err = copy_links(&p);
  if (!err) err = classes(&p, perm);
  free(p.parent);
  free(p.slave);
  free(p.edge);
  free(p.shift);
  return err;
}
