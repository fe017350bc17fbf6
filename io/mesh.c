#include "io/mesh.h"

#include "core/error.h"
#include "core/timer.h"
#include "io/geo_check.h"
#include "io/mesh_checks.h"
#include "io/mesh_periodic.h"
#include "io/mesh_raw.h"
#include "io/mesher.h"
#include "io/shares.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- node ordering: reverse Cuthill-McKee ---------------------------------- */

struct graph {
  int n;
  size_t *xadj;
  int *adj;
};

static void graph_free(struct graph *g)
{
  free(g->xadj);
  free(g->adj);
}

/* The cells at each node: the raw nodes' incidence (the cell entries cell * nv + vertex at
 * inc[inc_ptr[raw] ..], ascending), a node's found through its raw node used[node]. */
struct incidence {
  int nv;
  const int *cells; /* the mesh's nodes of the cells */
  const int *used;
  const size_t *inc_ptr, *inc;
};

/* Nodes met once each: open addressing, every entry stamped with the node whose neighbours it
 * holds, so that nothing is cleared from one node to the next.  size: a power of 2. */
struct node_set {
  int (*slot)[2]; /* node, stamp */
  size_t size;
};

/* Makes room for n nodes (half full at most), in scratch s; 0, or the bytes it could not get. */
static size_t set_reserve(struct node_set *set, struct fe_scratch *s, size_t n)
{
  size_t size = 64;
  while (size < 2 * n) size *= 2;
  if (size <= set->size) return 0;
  const size_t lack = fe_scratch_reserve(s, size * sizeof *set->slot);
  if (lack) return lack;
  set->slot = s->p;
  set->size = size;
  for (size_t h = 0; h < size; h++) set->slot[h][1] = -1;
  return 0;
}

/* 1 when b is new to the set for `stamp` (and is added), 0 when it was there. */
static int set_add(struct node_set *set, int b, int stamp)
{
  for (size_t h = ((size_t)b * 2654435761u) & (set->size - 1);; h = (h + 1) & (set->size - 1)) {
    if (set->slot[h][1] != stamp) {
      set->slot[h][0] = b;
      set->slot[h][1] = stamp;
      return 1;
    }
    if (set->slot[h][0] == b) return 0;
  }
}

/* The neighbours of node a, each once, in the order its cells (ascending) and their vertices
 * give them: into out, unless NULL; how many.  set: room for the vertices of a's cells. */
static size_t neighbours(const struct incidence *in, int a, struct node_set *set, int *out)
{
  const int raw = in->used[a], nv = in->nv;
  size_t deg = 0;
  for (size_t j = in->inc_ptr[raw]; j < in->inc_ptr[raw + 1]; j++) {
    const int *c = in->cells + in->inc[j] / nv * nv;
    for (int v = 0; v < nv; v++) {
      if (c[v] == a || !set_add(set, c[v], a)) continue;
      if (out) out[deg] = c[v];
      deg++;
    }
  }
  return deg;
}

/* Every node's neighbours: counted (into xadj[a + 1]), or written (at adj + xadj[a]); 0, or the
 * bytes a thread could not get. */
static size_t neighbours_all(const struct incidence *in, struct graph *g, int count)
{
  size_t lack = 0;
#pragma omp parallel reduction(max : lack)
  {
    struct fe_scratch s = {0};
    struct node_set set = {0};
#pragma omp for schedule(static)
    for (int a = 0; a < g->n; a++) {
      const int raw = in->used[a];
      const size_t most = (in->inc_ptr[raw + 1] - in->inc_ptr[raw]) * (size_t)in->nv;
      const size_t short_of = set_reserve(&set, &s, most);
      if (short_of) {
        lack = short_of > lack ? short_of : lack;
        continue;
      }
      if (count)
        g->xadj[a + 1] = neighbours(in, a, &set, NULL);
      else
        neighbours(in, a, &set, g->adj + g->xadj[a]);
    }
    free(s.p);
  }
  return lack;
}

/* Node adjacency through shared cells, from the node -> cell incidence. */
static int graph_build(int n, const struct incidence *in, struct graph *g)
{
  g->n = n;
  FE_CALL(fe_calloc((size_t)n + 1, sizeof *g->xadj, &g->xadj));
  size_t lack = neighbours_all(in, g, 1);
  FE_CHECK(!lack, FE_ERR_RESOURCE, "out of host memory: could not allocate %zu bytes", lack);
  fe_running_sum(g->xadj + 1, (size_t)n);
  FE_CALL(fe_malloc((g->xadj[n] ? g->xadj[n] : 1) * sizeof *g->adj, &g->adj));
  lack = neighbours_all(in, g, 0);
  FE_CHECK(!lack, FE_ERR_RESOURCE, "out of host memory: could not allocate %zu bytes", lack);
  return FE_SUCCESS;
}

static int degree(const struct graph *g, int v) { return (int)(g->xadj[v + 1] - g->xadj[v]); }

/* A breadth-first search places the nodes of root's component in the order a serial search
 * meets them: level by level, each node after the children of the nodes placed before its
 * parent (its neighbour placed first in the level before), a parent's children in adjacency
 * order, or by_degree by increasing degree, equal degrees in adjacency order.  A level of many
 * nodes places its children on every thread: each child claims its parent, the lowest place
 * among its neighbours in the level (claim[], an atomic minimum), and each thread then places
 * the children of its share of the level where the counts of the shares before it say
 * (fe_share_offset).  A smaller level is placed by one thread. */
struct search {
  const struct graph *g;
  int *level; /* the node's level; -1: not placed (by this search or an earlier one) */
  int *q;     /* the nodes, as placed */
  int *claim; /* INT_MAX, or the place of the node's parent (reset after each search) */
  int by_degree;
};

/* Child u of a parent whose children begin at q[first] placed at level lev + 1, at q[tail] or,
 * by_degree, before its siblings of higher degree; the new tail. */
static int place(const struct search *s, int u, int lev, int first, int tail)
{
  s->level[u] = lev + 1;
  int k = tail;
  while (s->by_degree && k > first && degree(s->g, s->q[k - 1]) > degree(s->g, u)) {
    s->q[k] = s->q[k - 1];
    k--;
  }
  s->q[k] = u;
  return tail + 1;
}

/* Node v's children, not yet placed, placed at q[tail ..] on level lev + 1; the new tail. */
static int place_children(const struct search *s, int v, int lev, int tail)
{
  const struct graph *g = s->g;
  const int first = tail;
  for (size_t j = g->xadj[v]; j < g->xadj[v + 1]; j++)
    if (s->level[g->adj[j]] < 0) tail = place(s, g->adj[j], lev, first, tail);
  return tail;
}

static void claim_min(int *claim, int place)
{
  int was = __atomic_load_n(claim, __ATOMIC_RELAXED);
  while (place < was &&
         !__atomic_compare_exchange_n(claim, &was, place, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}

/* The children of level lev, q[lo .. hi), placed from q[hi] on, by every thread of the team;
 * the new end (a barrier for the threads). */
static int place_level(const struct search *s, int lo, int hi, int lev, struct fe_shares *sh)
{
  const struct graph *g = s->g;
#pragma omp for schedule(static)
  for (int i = lo; i < hi; i++)
    for (size_t j = g->xadj[s->q[i]]; j < g->xadj[s->q[i] + 1]; j++)
      if (s->level[g->adj[j]] < 0) claim_min(&s->claim[g->adj[j]], i);
  size_t a, b, count = 0;
  fe_share((size_t)(hi - lo), &a, &b);
  for (int i = lo + (int)a; i < lo + (int)b; i++)
    for (size_t j = g->xadj[s->q[i]]; j < g->xadj[s->q[i] + 1]; j++)
      count += s->claim[g->adj[j]] == i; /* a place of this level: claimed in it */
  int tail = hi + (int)fe_share_offset(sh, count);
  const int end = hi + (int)sh->total;
  for (int i = lo + (int)a; i < lo + (int)b; i++) {
    const int first = tail;
    for (size_t j = g->xadj[s->q[i]]; j < g->xadj[s->q[i] + 1]; j++)
      if (s->claim[g->adj[j]] == i) tail = place(s, g->adj[j], lev, first, tail);
  }
#pragma omp barrier
  return end;
}

/* Root's component placed at q[start ..]; its end. */
static int search(const struct search *s, int root, int start)
{
  const int threads = fe_shares_threads(), many = 32 * threads; /* nodes a level for all */
  int lo = start, hi = start + 1, lev = 0;
  s->q[start] = root;
  s->level[root] = 0;
  while (lo < hi) {
    if (threads == 1 || hi - lo < many) {
      int tail = hi;
      for (int i = lo; i < hi; i++) tail = place_children(s, s->q[i], lev, tail);
      lo = hi, hi = tail, lev++;
      continue;
    }
    struct fe_shares sh;
#pragma omp parallel num_threads(threads)
    { /* the levels of many nodes that follow, on every thread */
      int l = lo, h = hi, k = lev;
      while (h - l >= many) {
        const int end = place_level(s, l, h, k, &sh);
        l = h, h = end, k++;
      }
#pragma omp master
      lo = l, hi = h, lev = k;
    }
  }
#pragma omp parallel for schedule(static) if (hi - start > 65536)
  for (int i = start; i < hi; i++) s->claim[s->q[i]] = INT_MAX;
  return hi;
}

/* level[] of the count nodes q[] back to -1. */
static void clear_levels(int *level, const int *q, int count)
{
#pragma omp parallel for schedule(static) if (count > 65536)
  for (int i = 0; i < count; i++) level[q[i]] = -1;
}

/* George & Liu's pseudo-peripheral node: a search again from a least-degree node of the last
 * level while the number of levels grows.  s: a search without by_degree, its levels -1 on
 * start's component (and left so). */
static int pseudo_peripheral(const struct search *s, int start)
{
  const struct graph *g = s->g;
  int root = start, count = search(s, root, 0);
  int depth = s->level[s->q[count - 1]] + 1;
  for (int iter = 0; iter < 32; iter++) {
    int last = s->level[s->q[count - 1]], best = s->q[count - 1];
    for (int i = count - 1; i >= 0 && s->level[s->q[i]] == last; i--)
      if (degree(g, s->q[i]) < degree(g, best)) best = s->q[i];
    clear_levels(s->level, s->q, count);
    count = search(s, best, 0);
    const int d = s->level[s->q[count - 1]] + 1;
    if (d <= depth) break;
    root = best;
    depth = d;
  }
  clear_levels(s->level, s->q, count);
  return root;
}

/* perm[old] = new, by reverse Cuthill-McKee, component after component, on every thread with
 * the order of one (struct search). */
static int rcm_order(const struct graph *g, int *perm)
{
  int n = g->n, *level = NULL, *q = NULL, *order = NULL, *claim = NULL;
  int err = fe_malloc((size_t)n * sizeof *level, &level);
  if (!err) err = fe_malloc((size_t)n * sizeof *q, &q);
  if (!err) err = fe_malloc((size_t)n * sizeof *order, &order);
  if (!err) err = fe_malloc((size_t)n * sizeof *claim, &claim);
  if (err) goto done;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++) level[i] = -1, claim[i] = INT_MAX;
  /* the levels' searches and the order's share level[] and claim[]: each leaves its nodes
   * unclaimed, a level search its levels -1, the order's its nodes placed */
  const struct search levels = {.g = g, .level = level, .q = q, .claim = claim};
  const struct search cm = {.g = g, .level = level, .q = order, .claim = claim, .by_degree = 1};
  int tail = 0;
  for (int s = 0; s < n; s++)
    if (level[s] < 0) tail = search(&cm, pseudo_peripheral(&levels, s), tail);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++) perm[order[i]] = n - 1 - i;
done:
  free(level);
  free(q);
  free(order);
  free(claim);
  return err;
}

/* ---- building the mesh ----------------------------------------------------- */

/* The nodes the cells use, numbered in the order the cells first use them: local[raw] (-1 for
 * a node no cell uses) and its inverse used[]; how many in *n.  A node's first use is the cell
 * entry that heads its incidence (inc_ptr, inc: struct incidence). */
static int number_nodes(const struct fe_mesh_raw *r, const size_t *inc_ptr, const size_t *inc,
                        int *local, int *used, int *n)
{
  const size_t nk = r->n_cells * (size_t)(r->dim + 1);
  unsigned char *first; /* nk: 1 for the cell entries that are their node's first use */
  struct fe_shares s;
  FE_CALL(fe_calloc(nk, sizeof *first, &first));
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < r->n_nodes; i++) {
    local[i] = -1;
    if (inc_ptr[i] < inc_ptr[i + 1]) first[inc[inc_ptr[i]]] = 1;
  }
#pragma omp parallel num_threads(fe_shares_threads())
  {
    size_t lo, hi, firsts = 0;
    fe_share(nk, &lo, &hi);
    for (size_t k = lo; k < hi; k++) firsts += first[k];
    size_t at = fe_share_offset(&s, firsts);
    for (size_t k = lo; k < hi; k++)
      if (first[k]) local[r->cells[k]] = (int)at++;
  }
  free(first);
  *n = (int)s.total;
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < r->n_nodes; i++)
    if (local[i] >= 0) used[local[i]] = (int)i;
  return FE_SUCCESS;
}

/* Cells in the order of their smallest node, in file order among those of one node.  cells: the
 * mesh's nodes of each cell, in file order. */
static int sort_cells(struct fe_mesh *m, const struct fe_mesh_raw *r, const int *cells)
{
  const int nv = m->nv;
  int *lowest = NULL;
  size_t *start = NULL, *order = NULL;
  FE_CALL(fe_malloc((size_t)m->n_cells * sizeof *lowest, &lowest));
#pragma omp parallel for schedule(static)
  for (int c = 0; c < m->n_cells; c++) {
    int lo = cells[(size_t)c * nv];
    for (int v = 1; v < nv; v++)
      lo = cells[(size_t)c * nv + v] < lo ? cells[(size_t)c * nv + v] : lo;
    lowest[c] = lo;
  }
  int err = fe_buckets((size_t)m->n_cells, lowest, (size_t)m->n_nodes, &start, &order);
  free(lowest);
  if (err) return err;
#pragma omp parallel for schedule(static)
  for (int k = 0; k < m->n_cells; k++) {
    const size_t c = order[k];
    memcpy(m->cells + (size_t)k * nv, cells + c * nv, sizeof(int) * nv);
    m->cell_id[k] = r->cell_id[c];
    m->cell_region[k] = r->cell_region[c];
  }
  free(start);
  free(order);
  return FE_SUCCESS;
}

static int map_facets(struct fe_mesh *m, const struct fe_mesh_raw *r, const int *local,
                      const int *perm)
{
  const int d = m->dim;
  m->n_facets = (int)r->n_facets;
  FE_MALLOC((size_t)m->n_facets * d, &m->facets);
  FE_MALLOC(m->n_facets, &m->facet_group);
  FE_MALLOC(m->n_facets, &m->facet_id);
  size_t bad = (size_t)m->n_facets * d; /* the first facet node that no cell has */
#pragma omp parallel for schedule(static) reduction(min : bad)
  for (int f = 0; f < m->n_facets; f++) {
    for (int v = 0; v < d; v++) {
      const int i = local[r->facets[(size_t)f * d + v]];
      if (i < 0)
        bad = (size_t)f * d + v < bad ? (size_t)f * d + v : bad;
      else
        m->facets[(size_t)f * d + v] = perm[i];
    }
    m->facet_group[f] = r->facet_group[f];
    m->facet_id[f] = r->facet_id[f];
  }
  const size_t f = bad / d;
  FE_CHECK(bad == (size_t)m->n_facets * d, FE_ERR_INPUT,
           "%s: mixed dimensions: element %zu of physical group %d is not %s (its node %zu "
           "belongs to no %s); expected a %dD mesh: %s",
           m->path, r->facet_id[f], r->facet_group[f],
           d == 2 ? "an edge of the triangles" : "a face of the tetrahedra",
           r->node_tags[r->facets[bad]], d == 2 ? "triangle" : "tetrahedron", d,
           d == 2 ? "triangles, and lines on their edges"
                  : "tetrahedra, and triangles on their faces");
  return FE_SUCCESS;
}

/* The coordinates and tags of the nodes, in their new numbers. */
static void copy_nodes(struct fe_mesh *m, const struct fe_mesh_raw *r, const int *used,
                       const int *perm)
{
#pragma omp parallel for schedule(static)
  for (int i = 0; i < m->n_nodes; i++) {
    for (int k = 0; k < m->dim; k++)
      m->coords[(size_t)perm[i] * m->dim + k] = r->xyz[3 * (size_t)used[i] + k];
    m->node_id[perm[i]] = r->node_tags[used[i]];
  }
}

/* Everything on every thread but the breadth-first searches of the node order, with the results
 * of one thread: where an order depends on the items, they are placed as a serial loop would
 * (fe_buckets, fe_share_offset), and a check reports the fault a serial loop meets first. */
static int build_mesh(struct fe_mesh *m, struct fe_mesh_raw *r)
{
  int nv = r->dim + 1, *local = NULL, *used = NULL, *perm = NULL, *cells = NULL, n = 0, err;
  struct graph g = {0};
  size_t nc = r->n_cells, *inc_ptr = NULL, *inc = NULL;
  m->dim = r->dim;
  m->nv = nv;
  m->n_cells = (int)nc;
  err = fe_buckets(nc * nv, r->cells, r->n_nodes, &inc_ptr, &inc);
  if (!err) err = fe_malloc(r->n_nodes * sizeof *local, &local);
  if (!err) err = fe_malloc(r->n_nodes * sizeof *used, &used);
  if (err) goto done;
  err = number_nodes(r, inc_ptr, inc, local, used, &n);
  m->n_nodes = n;
  if (!err) err = fe_malloc(nc * nv * sizeof *cells, &cells);
  if (!err) err = fe_mesh_check_coords(m->path, r, used, n);
  if (!err && m->dim == 2) err = fe_mesh_check_plane(m->path, r, used, n);
  if (err) goto done;
#pragma omp parallel for schedule(static)
  for (size_t k = 0; k < nc * nv; k++) cells[k] = local[r->cells[k]];
  const struct incidence in = {
      .nv = nv, .cells = cells, .used = used, .inc_ptr = inc_ptr, .inc = inc};
  err = graph_build(n, &in, &g);
  free(inc_ptr);
  free(inc);
  inc_ptr = inc = NULL;
  if (!err) err = fe_malloc((size_t)n * sizeof *perm, &perm);
  if (!err) err = rcm_order(&g, perm);
  if (!err) err = fe_mesh_periodic(m, r, local, used, cells, perm);
  if (!err) err = fe_malloc((size_t)n * m->dim * sizeof *m->coords, &m->coords);
  if (!err) err = fe_malloc((size_t)n * sizeof *m->node_id, &m->node_id);
  if (!err) err = fe_malloc(nc * nv * sizeof *m->cells, &m->cells);
  if (!err) err = fe_malloc(nc * sizeof *m->cell_id, &m->cell_id);
  if (!err) err = fe_malloc(nc * sizeof *m->cell_region, &m->cell_region);
  if (err) goto done;
  copy_nodes(m, r, used, perm);
#pragma omp parallel for schedule(static)
  for (size_t k = 0; k < nc * nv; k++) cells[k] = perm[cells[k]];
  err = sort_cells(m, r, cells);
  if (!err) err = fe_mesh_orient_cells(m, r);
  if (!err) err = map_facets(m, r, local, perm);
  if (!err) err = fe_mesh_check_cells(m, r);
done:
  graph_free(&g);
  free(inc_ptr);
  free(inc);
  free(local);
  free(used);
  free(perm);
  free(cells);
  return err;
}

/* ---- physical names given to several groups ------------------------------------ */

static int cmp_group(const void *a, const void *b)
{
  const struct fe_physical *x = *(const struct fe_physical *const *)a;
  const struct fe_physical *y = *(const struct fe_physical *const *)b;
  if (x->dim != y->dim) return x->dim - y->dim;
  const int c = strcmp(x->name, y->name);
  return c ? c : (x->tag > y->tag) - (x->tag < y->tag);
}

/* "4 and 7", "4, 7 and 9", "4, 7, 9, ... and 12 (20 groups)". */
static void list_tags(const struct fe_physical *const *g, int n, char *buf, size_t size)
{
  enum { SHOWN = 6 };
  buf[0] = '\0';
  for (int i = 0; i < n; i++) {
    const size_t len = strlen(buf);
    if (i == SHOWN - 1 && n > SHOWN) {
      snprintf(buf + len, size - len, ", ... and %d (%d groups)", g[n - 1]->tag, n);
      return;
    }
    snprintf(buf + len, size - len, "%s%d", !i ? "" : i == n - 1 ? " and " : ", ", g[i]->tag);
  }
}

/* A physical name given to several groups of one dimension (a .msh may do
 * that; Gmsh's .geo parser refuses it): the groups stay usable by number,
 * and fe_bcs_create refuses the name. */
static int warn_shared_names(const struct fe_mesh *m)
{
  static const char *const kind[] = {"points", "curves", "surfaces", "volumes"};
  const struct fe_physical **g;
  if (m->n_groups < 2) return FE_SUCCESS;
  FE_MALLOC(m->n_groups, &g);
  for (int i = 0; i < m->n_groups; i++) g[i] = &m->groups[i];
  qsort(g, (size_t)m->n_groups, sizeof *g, cmp_group);
  for (int i = 0, j; i < m->n_groups; i = j) {
    for (j = i + 1; j < m->n_groups && g[j]->dim == g[i]->dim && !strcmp(g[j]->name, g[i]->name);)
      j++;
    if (j - i < 2 || !g[i]->name[0]) continue;
    char tags[160], quoted[FE_QUOTE_SIZE];
    list_tags(g + i, j - i, tags, sizeof tags);
    fe_quote(g[i]->name, FE_QUOTE_MAX, quoted, sizeof quoted);
    if (g[i]->dim == m->dim - 1)
      fe_warn("%s: the physical name %s is given to %d groups of %s, %s: refer to them by number "
              "(a <boundary> that names them by this name is refused)",
              m->path, quoted, j - i, kind[g[i]->dim], tags);
    else
      fe_warn("%s: the physical name %s is given to %d groups of %s, %s; fesim tells them apart "
              "by number",
              m->path, quoted, j - i, kind[g[i]->dim], tags);
  }
  free(g);
  return FE_SUCCESS;
}

/* ---- public ---------------------------------------------------------------- */

static int check_file(const char *path, const char *shown, int *geo)
{
  const char *dot = strrchr(path, '.');
  const char *ext = dot && !strchr(dot, '/') ? dot : "(none)";
  *geo = fe_mesh_is_geo(path);
  FE_CHECK(*geo || !strcasecmp(ext, ".msh"), FE_ERR_INPUT,
           "mesh '%s': unknown mesh file type '%s'; expected a Gmsh mesh (.msh, format 2.2 or "
           "4.1) or a Gmsh geometry (.geo)",
           shown, ext);
  FILE *fp = fopen(path, "rb");
  FE_CHECK(fp || errno != ENOENT, FE_ERR_INPUT, "mesh '%s' not found", shown);
  FE_CHECK(fp, FE_ERR_INPUT, "mesh '%s' cannot be read: %s", shown, strerror(errno));
  char line[64] = "";
  size_t n = fread(line, 1, sizeof line - 1, fp);
  const int is_dir = !n && ferror(fp) && errno == EISDIR;
  fclose(fp);
  FE_CHECK(!is_dir, FE_ERR_INPUT, "mesh '%s' is a directory; expected a Gmsh mesh or geometry file",
           shown);
  if (*geo) return FE_SUCCESS;
  /* Gmsh hands a file that is not a mesh to its .geo parser, whose messages
   * would be about geometry syntax, so that case is reported here. */
  FE_CHECK(n, FE_ERR_INPUT, "%s: empty file; expected a Gmsh mesh", shown);
  size_t len = 0;
  int text = 1;
  for (; len < n && line[len] != '\n' && line[len] != '\r'; len++)
    text &= ((unsigned char)line[len] >= 32 && (unsigned char)line[len] < 127) || line[len] == '\t';
  line[len] = '\0';
  if (!strncmp(line, "$MeshFormat", 11)) return FE_SUCCESS;
  if (!text)
    FE_RAISE(FE_ERR_INPUT,
             "%s: not a Gmsh mesh: it starts with binary data, expected '$MeshFormat'", shown);
  FE_RAISE(FE_ERR_INPUT, "%s: not a Gmsh mesh: it starts with '%.40s', expected '$MeshFormat'",
           shown, line);
}

int fe_mesh_read(const char *path, const struct fe_mesh_options *o, struct fe_mesh **mesh)
{
  static const struct fe_mesh_options defaults = {0};
  char buf[FE_QUOTE_SIZE];
  const char *shown = fe_path_shown(path, buf, sizeof buf); /* messages name it so */
  int geo;
  *mesh = NULL;
  FE_CALL(check_file(path, shown, &geo));
  if (geo) FE_CALL(fe_geo_check(path, shown));
  struct fe_mesh *m;
  struct fe_mesh_raw r = {0};
  FE_CALLOC(1, &m);
  int err = fe_strdup(shown, &m->path);
  const double start = fe_wtime();
  if (!err) err = fe_mesher_run(path, o ? o : &defaults, &r);
  m->reader_seconds = fe_wtime() - start;
  if (!err) err = build_mesh(m, &r);
  if (!err) { /* the groups move to the mesh */
    m->groups = r.groups;
    m->n_groups = r.n_groups;
    r.groups = NULL;
    r.n_groups = 0;
    err = warn_shared_names(m);
  }
  fe_mesh_raw_free(&r);
  if (err) {
    fe_mesh_destroy(m);
    return err;
  }
  *mesh = m;
  return FE_SUCCESS;
}

void fe_mesh_destroy(struct fe_mesh *mesh)
{
  if (!mesh) return;
  for (int i = 0; i < mesh->n_groups; i++) free(mesh->groups[i].name);
  free(mesh->groups);
  free(mesh->path);
  free(mesh->coords);
  free(mesh->node_id);
  free(mesh->cells);
  free(mesh->cell_region);
  free(mesh->cell_id);
  free(mesh->facets);
  free(mesh->facet_group);
  free(mesh->facet_id);
  free(mesh->facet_cells);
  free(mesh->alias_of);
  free(mesh->links);
  free(mesh->facet_link);
  free(mesh->global_node);
  free(mesh->global_cell);
  free(mesh->global_facet);
  free(mesh->neighbours);
  free(mesh->send_ptr);
  free(mesh->send);
  free(mesh->recv_ptr);
  free(mesh);
}

const struct fe_physical *fe_mesh_find_group(const struct fe_mesh *mesh, int dim, const char *ref)
{
  if (!mesh || !ref) return NULL;
  for (int i = 0; i < mesh->n_groups; i++)
    if (mesh->groups[i].dim == dim && !strcmp(mesh->groups[i].name, ref)) return &mesh->groups[i];
  char *end;
  errno = 0;
  long tag = strtol(ref, &end, 10);
  if (end == ref || *end || errno) return NULL;
  for (int i = 0; i < mesh->n_groups; i++)
    if (mesh->groups[i].dim == dim && mesh->groups[i].tag == tag) return &mesh->groups[i];
  return NULL;
}

int fe_mesh_groups_named(const struct fe_mesh *mesh, int dim, const char *name,
                         const struct fe_physical **found, int max)
{
  int n = 0;
  for (int i = 0; mesh && name && name[0] && i < mesh->n_groups; i++)
    if (mesh->groups[i].dim == dim && !strcmp(mesh->groups[i].name, name)) {
      if (n < max) found[n] = &mesh->groups[i];
      n++;
    }
  return n;
}

/* The cell entries at the nodes marked in at[] (NULL: at every node), on every thread
 * (fe_buckets): those entries, ascending, sorted by node. */
static int incidence_at(const struct fe_mesh *m, const unsigned char *at, int **ptr_out,
                        int **inc_out)
{
  const size_t nent = (size_t)m->n_cells * m->nv, n = (size_t)m->n_nodes;
  FE_CHECK(nent <= INT_MAX, FE_ERR_RESOURCE,
           "%s: %d cells of %d vertices: more cell entries than an int can number (%d)",
           m->path ? m->path : "the mesh", m->n_cells, m->nv, INT_MAX);
  size_t *ptr = NULL, *items = NULL, ne = nent;
  int *p = NULL, *inc = NULL, *entries = NULL, *keys = NULL; /* the entries at marked nodes */
  int err = FE_SUCCESS;
  if (at) {
    err = fe_malloc((nent ? nent : 1) * sizeof *entries, &entries);
    struct fe_shares s = {.total = 0};
    if (!err) {
#pragma omp parallel num_threads(fe_shares_threads())
      {
        size_t lo, hi, count = 0;
        fe_share(nent, &lo, &hi);
        for (size_t k = lo; k < hi; k++) count += at[m->cells[k]] != 0;
        size_t j = fe_share_offset(&s, count);
        for (size_t k = lo; k < hi; k++)
          if (at[m->cells[k]]) entries[j++] = (int)k;
      }
    }
    ne = s.total;
    if (!err) err = fe_malloc((ne ? ne : 1) * sizeof *keys, &keys);
    if (!err) {
#pragma omp parallel for schedule(static)
      for (size_t j = 0; j < ne; j++) keys[j] = m->cells[entries[j]];
    }
  }
  if (!err) err = fe_buckets(ne, at ? keys : m->cells, n, &ptr, &items);
  free(keys);
  if (!err) err = fe_malloc((n + 1) * sizeof *p, &p);
  if (!err) err = fe_malloc((ne ? ne : 1) * sizeof *inc, &inc);
  if (!err) {
#pragma omp parallel
    {
#pragma omp for schedule(static) nowait
      for (size_t i = 0; i <= n; i++) p[i] = (int)ptr[i];
#pragma omp for schedule(static)
      for (size_t j = 0; j < ne; j++) inc[j] = at ? entries[items[j]] : (int)items[j];
    }
  }
  free(entries);
  free(ptr);
  free(items);
  if (err) {
    free(p);
    free(inc);
    return err;
  }
  *ptr_out = p;
  *inc_out = inc;
  return FE_SUCCESS;
}

int fe_mesh_incidence(const struct fe_mesh *m, int **ptr, int **inc)
{
  return incidence_at(m, NULL, ptr, inc);
}

int fe_mesh_facet_incidence(const struct fe_mesh *m, int **ptr, int **inc)
{
  unsigned char *first; /* the first node of a facet of a group */
  FE_CALL(fe_calloc((size_t)m->n_nodes + 1, 1, &first));
  for (int f = 0; f < m->n_facets; f++) first[m->facets[(size_t)f * m->dim]] = 1;
  const int err = incidence_at(m, first, ptr, inc);
  free(first);
  return err;
}

static int cmp_int(const void *a, const void *b)
{
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

int fe_mesh_merge_copies(const struct fe_mesh *m, int **ptr_io, int **items_io)
{
  if (!m->n_aliased) return FE_SUCCESS;
  const int n = m->n_nodes, owned = n - m->n_aliased, *ptr = *ptr_io, *items = *items_io;
  int *first = NULL, *next = NULL, *mptr = NULL, *mitems = NULL; /* copies listed per owner */
  int err = fe_malloc((size_t)owned * sizeof *first, &first);
  if (!err) err = fe_malloc((size_t)n * sizeof *next, &next);
  if (!err) err = fe_calloc((size_t)n + 1, sizeof *mptr, &mptr);
  if (err) goto done;
  for (int o = 0; o < owned; o++) first[o] = -1;
  for (int i = n - 1; i >= 0; i--) { /* each owner's list: itself, then its copies */
    const int o = fe_mesh_owner(m, i);
    next[i] = first[o];
    first[o] = i;
  }
  for (int i = 0; i < n; i++) {
    const int o = fe_mesh_owner(m, i);
    for (int c = first[o]; c >= 0; c = next[c]) mptr[i + 1] += ptr[c + 1] - ptr[c];
  }
  for (int i = 0; i < n; i++) mptr[i + 1] += mptr[i];
  err = fe_malloc((size_t)mptr[n] * sizeof *mitems + 1, &mitems);
  for (int i = 0; i < n && !err; i++) {
    int at = mptr[i];
    for (int c = first[fe_mesh_owner(m, i)]; c >= 0; c = next[c])
      for (int k = ptr[c]; k < ptr[c + 1]; k++) mitems[at++] = items[k];
    qsort(mitems + mptr[i], (size_t)(mptr[i + 1] - mptr[i]), sizeof *mitems, cmp_int);
  }
  if (!err) {
    free(*ptr_io);
    free(*items_io);
    *ptr_io = mptr;
    *items_io = mitems;
    mptr = mitems = NULL;
  }
done:
  free(first);
  free(next);
  free(mptr);
  free(mitems);
  return err;
}

void fe_mesh_copy_owners(const struct fe_mesh *m, int ncomp, double *values)
{
  for (int n = fe_mesh_n_unknowns(m); n < m->n_nodes; n++)
    for (int c = 0; c < ncomp; c++)
      values[(long)n * ncomp + c] = values[(long)fe_mesh_owner(m, n) * ncomp + c];
}

const char *fe_mesh_point_text(int dim, const double *x, char *buf, size_t size)
{
  if (dim == 2)
    snprintf(buf, size, "(%.9g, %.9g)", x[0], x[1]);
  else
    snprintf(buf, size, "(%.9g, %.9g, %.9g)", x[0], x[1], x[2]);
  return buf;
}

int fe_mesh_facet_opposite(const struct fe_mesh *m, const int *ptr, const int *inc, const int *f)
{
  const int d = m->dim;
  for (int k = ptr[f[0]]; k < ptr[f[0] + 1]; k++) {
    const int *cell = m->cells + (long)(inc[k] / m->nv) * m->nv;
    int shared = 0, other = -1;
    for (int v = 0; v < m->nv; v++) {
      int on = 0;
      for (int j = 0; j < d; j++) on |= cell[v] == f[j];
      if (on)
        shared++;
      else
        other = cell[v];
    }
    if (shared == d) return other;
  }
  return -1;
}
