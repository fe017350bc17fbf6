#include "io/mesh.h"

#include "core/error.h"

#include <errno.h>
#include <unistd.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <gmshc.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { GMSH_LINE2 = 1, GMSH_TRIANGLE3 = 2, GMSH_TETRAHEDRON4 = 4 };

/* Gmsh 4.8 keeps the unread rest of a .geo file in its lexer after a syntax
 * error, and the next .geo parsed in this process would start with it; the
 * flush Gmsh itself uses is not in its API, so it is called when present. */
void fe_gmsh_yyflush(void) __asm__("_Z12gmsh_yyflushv") __attribute__((weak));

/* What is taken from Gmsh before it is finalized: node indices are positions
 * in Gmsh's node list. */
struct raw {
  size_t n_nodes;
  size_t *node_tags;
  double *xyz; /* 3 per node */
  int *dense;  /* node tag -> index when tags are compact, else NULL */
  size_t dense_n;
  size_t *sorted_tags; /* sorted (tag, index) pairs when tags are sparse */
  int *sorted_index;
  int dim;
  size_t n_cells, cap_cells;
  int *cells;
  size_t *cell_id;
  int *cell_region;
  int *cell_entity; /* Gmsh entity (surface or volume) of each cell, for messages */
  size_t n_facets, cap_facets;
  int *facets;
  size_t *facet_id;
  int *facet_group;
};

static void raw_free(struct raw *r)
{
  gmshFree(r->node_tags);
  gmshFree(r->xyz);
  free(r->dense);
  free(r->sorted_tags);
  free(r->sorted_index);
  free(r->cells);
  free(r->cell_id);
  free(r->cell_region);
  free(r->cell_entity);
  free(r->facets);
  free(r->facet_id);
  free(r->facet_group);
}

/* Makes room for `need` elements in arrays that share one capacity. */
static int grow(size_t need, size_t *cap, int nv, int **conn, size_t **ids, int **labels)
{
  if (need <= *cap) return FE_SUCCESS;
  size_t n = *cap ? 2 * *cap : 1024;
  n = n < need ? need : n;
  int *c = realloc(*conn, n * nv * sizeof *c);
  if (c) *conn = c;
  size_t *i = c ? realloc(*ids, n * sizeof *i) : NULL;
  if (i) *ids = i;
  int *l = i ? realloc(*labels, n * sizeof *l) : NULL;
  if (l) *labels = l;
  FE_CHECK(l, FE_ERR_RESOURCE, "out of host memory: could not allocate %zu elements", n);
  *cap = n;
  return FE_SUCCESS;
}

/* ---- Gmsh session ---------------------------------------------------------- */

/* Reports the first error Gmsh logged, if any or if ierr is set. */
static int gmsh_status(const char *path, int ierr, const char *what)
{
  char **log = NULL;
  size_t n = 0;
  int lerr;
  char first[512] = "";
  gmshLoggerGet(&log, &n, &lerr);
  for (size_t i = 0; i < n; i++) {
    if (!first[0] && !strncmp(log[i], "Error", 5)) {
      const char *s = log[i] + 5;
      s += strspn(s, " :");
      snprintf(first, sizeof first, "%s", s);
    }
    gmshFree(log[i]);
  }
  gmshFree(log);
  if (!ierr && !first[0]) return FE_SUCCESS;
  if (fe_gmsh_yyflush) fe_gmsh_yyflush();
  const char *dot = strrchr(path, '.');
  const char *expected = dot && !strcasecmp(dot, ".geo")
                             ? (strcmp(what, "read") ? "a geometry that Gmsh can mesh"
                                                     : "a valid Gmsh geometry script")
                             : "a complete Gmsh mesh (format 2.2 or 4.1, ASCII or binary)";
  FE_RAISE(FE_ERR_INPUT, "%s: Gmsh could not %s it%s%s%s; expected %s", path, what,
           first[0] ? " (" : "", first, first[0] ? ")" : "", expected);
}

static int gmsh_load(const char *path, int geo, double size)
{
  int ierr = 0;
  gmshOpen(path, &ierr);
  FE_CALL(gmsh_status(path, ierr, "read"));
  if (!geo) return FE_SUCCESS;
  int dim = gmshModelGetDimension(&ierr);
  FE_CHECK(dim >= 2, FE_ERR_INPUT, "%s: nothing to mesh: the model has no surface or volume", path);
  if (size > 0) gmshOptionSetNumber("Mesh.MeshSizeMax", size, &ierr);
  gmshModelMeshGenerate(dim, &ierr);
  return gmsh_status(path, ierr, "mesh");
}

static int element_name(int type, char *name, size_t len)
{
  char *s = NULL;
  double *local = NULL;
  size_t n_local;
  int dim, order, n_nodes, n_primary, ierr = 0;
  gmshModelMeshGetElementProperties(type, &s, &dim, &order, &n_nodes, &local, &n_local, &n_primary,
                                    &ierr);
  snprintf(name, len, "%s", s && !ierr ? s : "unknown element");
  gmshFree(s);
  gmshFree(local);
  return ierr ? -1 : dim;
}

static int mesh_dimension(const char *path, int *dim)
{
  int *types = NULL, ierr = 0;
  size_t n = 0;
  char name[64];
  gmshModelMeshGetElementTypes(&types, &n, -1, -1, &ierr);
  *dim = -1;
  for (size_t i = 0; i < n && !ierr; i++) {
    int d = element_name(types[i], name, sizeof name);
    if (d > *dim) *dim = d;
  }
  gmshFree(types);
  FE_CALL(gmsh_status(path, ierr, "read"));
  FE_CHECK(n > 0, FE_ERR_INPUT,
           "%s: the mesh has no elements; expected triangles (2D) or tetrahedra (3D)", path);
  FE_CHECK(*dim >= 2, FE_ERR_INPUT,
           "%s: the mesh has no cells: its highest element dimension is %d, expected triangles "
           "(2D) or tetrahedra (3D)",
           path, *dim);
  return FE_SUCCESS;
}

/* ---- nodes ----------------------------------------------------------------- */

static int cmp_size(const void *a, const void *b)
{
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

static int node_map_build(struct raw *r)
{
  size_t max_tag = 0, n = r->n_nodes;
  for (size_t i = 0; i < n; i++)
    if (r->node_tags[i] > max_tag) max_tag = r->node_tags[i];
  if (max_tag / 2 <= n + 1024) {
    r->dense_n = max_tag + 1;
    FE_MALLOC(r->dense_n, &r->dense);
    for (size_t t = 0; t < r->dense_n; t++) r->dense[t] = -1;
    for (size_t i = 0; i < n; i++) r->dense[r->node_tags[i]] = (int)i;
    return FE_SUCCESS;
  }
  /* Sparse tags: (tag, index) pairs sorted by tag, searched by bisection. */
  size_t *pairs;
  FE_MALLOC(2 * n, &pairs);
  for (size_t i = 0; i < n; i++) {
    pairs[2 * i] = r->node_tags[i];
    pairs[2 * i + 1] = i;
  }
  qsort(pairs, n, 2 * sizeof *pairs, cmp_size);
  int err = fe_malloc(n * sizeof *r->sorted_tags, &r->sorted_tags);
  if (!err) err = fe_malloc(n * sizeof *r->sorted_index, &r->sorted_index);
  for (size_t i = 0; i < n && !err; i++) {
    r->sorted_tags[i] = pairs[2 * i];
    r->sorted_index[i] = (int)pairs[2 * i + 1];
  }
  free(pairs);
  return err;
}

static int node_index(const struct raw *r, size_t tag)
{
  if (r->dense) return tag < r->dense_n ? r->dense[tag] : -1;
  size_t lo = 0, hi = r->n_nodes;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (r->sorted_tags[mid] < tag)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < r->n_nodes && r->sorted_tags[lo] == tag ? r->sorted_index[lo] : -1;
}

static int read_nodes(const char *path, struct raw *r)
{
  size_t n_xyz = 0, n_param = 0;
  double *param = NULL;
  int ierr = 0;
  /* The whole model: each node once, on the entity it is classified on. */
  gmshModelMeshGetNodes(&r->node_tags, &r->n_nodes, &r->xyz, &n_xyz, &param, &n_param, -1, -1, 0, 0,
                        &ierr);
  gmshFree(param);
  FE_CALL(gmsh_status(path, ierr, "read"));
  FE_CHECK(r->n_nodes < INT_MAX, FE_ERR_RESOURCE, "%s: %zu nodes: at most %d are supported", path,
           r->n_nodes, INT_MAX - 1);
  return node_map_build(r);
}

/* ---- elements -------------------------------------------------------------- */

static const char *expected_name(int type)
{
  switch (type) {
  case GMSH_LINE2: return "2-node lines ('Line 2') as boundary of a 2D mesh";
  case GMSH_TRIANGLE3: return "3-node triangles ('Triangle 3')";
  default: return "4-node tetrahedra ('Tetrahedron 4')";
  }
}

/* Every element of entity (dim, tag) must be of `type`. */
static int check_types(const char *path, int dim, int tag, int type)
{
  int *types = NULL, ierr = 0, bad = -1;
  size_t n = 0;
  gmshModelMeshGetElementTypes(&types, &n, dim, tag, &ierr);
  for (size_t i = 0; i < n && !ierr; i++)
    if (types[i] != type) bad = types[i];
  gmshFree(types);
  FE_CALL(gmsh_status(path, ierr, "read"));
  if (bad < 0) return FE_SUCCESS;
  size_t *tags = NULL, *nodes = NULL, n_tags = 0, n_nodes = 0;
  char name[64];
  gmshModelMeshGetElementsByType(bad, &tags, &n_tags, &nodes, &n_nodes, tag, 0, 1, &ierr);
  size_t first = n_tags ? tags[0] : 0;
  gmshFree(tags);
  gmshFree(nodes);
  element_name(bad, name, sizeof name);
  FE_RAISE(FE_ERR_INPUT, "%s: element %zu is a '%s'; fesim reads only %s", path, first, name,
           expected_name(type));
}

static int elements_of(const char *path, int tag, int type, size_t **tags, size_t *n_tags,
                       size_t **nodes)
{
  size_t n_nodes = 0;
  int ierr = 0;
  gmshModelMeshGetElementsByType(type, tags, n_tags, nodes, &n_nodes, tag, 0, 1, &ierr);
  return gmsh_status(path, ierr, "read");
}

/* Appends the elements of `type` of entity `tag` (nv node indices each) with
 * label `label` to conn / ids / labels. */
static int append_elements(const char *path, const struct raw *r, int tag, int type, int nv,
                           int label, size_t *count, size_t *cap, int **conn, size_t **ids,
                           int **labels)
{
  size_t *tags = NULL, *nodes = NULL, n = 0, bad = 0;
  int err = elements_of(path, tag, type, &tags, &n, &nodes);
  if (!err) err = grow(*count + n, cap, nv, conn, ids, labels);
  for (size_t e = 0; e < n && !err && !bad; e++) {
    size_t k = *count + e;
    (*ids)[k] = tags[e];
    (*labels)[k] = label;
    for (int v = 0; v < nv; v++) {
      int i = node_index(r, nodes[e * nv + v]);
      if (i < 0) bad = e + 1;
      (*conn)[k * nv + v] = i;
    }
  }
  if (bad)
    err = fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                         "%s: element %zu refers to a node that the mesh does not have", path,
                         tags[bad - 1]);
  if (!err) *count += n;
  gmshFree(tags);
  gmshFree(nodes);
  return err;
}

static int first_physical(int dim, int tag)
{
  int *tags = NULL, ierr = 0;
  size_t n = 0;
  gmshModelGetPhysicalGroupsForEntity(dim, tag, &tags, &n, &ierr);
  int first = !ierr && n ? tags[0] : 0;
  gmshFree(tags);
  return first;
}

/* cell_entity = tag for the cells appended since `from`. */
static int set_entity(struct raw *r, size_t from, int tag)
{
  int *e = realloc(r->cell_entity, (r->cap_cells ? r->cap_cells : 1) * sizeof *e);
  FE_CHECK(e, FE_ERR_RESOURCE, "out of host memory: could not allocate %zu elements", r->cap_cells);
  r->cell_entity = e;
  for (size_t k = from; k < r->n_cells; k++) e[k] = tag;
  return FE_SUCCESS;
}

static int read_cells(const char *path, struct raw *r)
{
  int *entities = NULL, ierr = 0, err = FE_SUCCESS;
  size_t n = 0;
  int type = r->dim == 2 ? GMSH_TRIANGLE3 : GMSH_TETRAHEDRON4;
  gmshModelGetEntities(&entities, &n, r->dim, &ierr);
  for (size_t i = 0; i < n / 2 && !err && !ierr; i++) {
    int tag = entities[2 * i + 1];
    size_t from = r->n_cells;
    err = check_types(path, r->dim, tag, type);
    if (!err)
      err = append_elements(path, r, tag, type, r->dim + 1, first_physical(r->dim, tag),
                            &r->n_cells, &r->cap_cells, &r->cells, &r->cell_id, &r->cell_region);
    if (!err) err = set_entity(r, from, tag);
  }
  gmshFree(entities);
  if (!err) err = gmsh_status(path, ierr, "read");
  FE_CALL(err);
  FE_CHECK(r->n_cells > 0, FE_ERR_INPUT, "%s: the mesh has no cells", path);
  FE_CHECK(r->n_cells < INT_MAX, FE_ERR_RESOURCE, "%s: %zu cells: at most %d are supported", path,
           r->n_cells, INT_MAX - 1);
  return FE_SUCCESS;
}

static int read_group_facets(const char *path, struct raw *r, int group)
{
  int *entities = NULL, ierr = 0, err = FE_SUCCESS;
  size_t n = 0;
  int fdim = r->dim - 1, type = r->dim == 2 ? GMSH_LINE2 : GMSH_TRIANGLE3;
  gmshModelGetEntitiesForPhysicalGroup(fdim, group, &entities, &n, &ierr);
  for (size_t i = 0; i < n && !err && !ierr; i++) {
    err = check_types(path, fdim, entities[i], type);
    if (!err)
      err = append_elements(path, r, entities[i], type, r->dim, group, &r->n_facets, &r->cap_facets,
                            &r->facets, &r->facet_id, &r->facet_group);
  }
  gmshFree(entities);
  FE_CALL(err);
  return gmsh_status(path, ierr, "read");
}

static int read_groups(const char *path, struct raw *r, struct fe_mesh *m)
{
  int *dim_tags = NULL, ierr = 0, err = FE_SUCCESS;
  size_t n = 0;
  gmshModelGetPhysicalGroups(&dim_tags, &n, -1, &ierr);
  size_t count = 0;
  for (size_t i = 0; i < n / 2; i++)
    if (dim_tags[2 * i] == r->dim || dim_tags[2 * i] == r->dim - 1) count++;
  if (count) err = fe_calloc(count, sizeof *m->groups, &m->groups);
  for (size_t i = 0; i < n / 2 && !err && !ierr; i++) {
    int dim = dim_tags[2 * i], tag = dim_tags[2 * i + 1];
    if (dim != r->dim && dim != r->dim - 1) continue;
    char *name = NULL;
    gmshModelGetPhysicalName(dim, tag, &name, &ierr);
    struct fe_physical *g = &m->groups[m->n_groups++];
    g->dim = dim;
    g->tag = tag;
    err = fe_strdup(name && !ierr ? name : "", &g->name);
    gmshFree(name);
    if (!err && dim == r->dim - 1) err = read_group_facets(path, r, tag);
  }
  gmshFree(dim_tags);
  FE_CALL(err);
  FE_CHECK(r->n_facets < INT_MAX, FE_ERR_RESOURCE, "%s: %zu facets: at most %d are supported", path,
           r->n_facets, INT_MAX - 1);
  return gmsh_status(path, ierr, "read");
}

static int read_model(const char *path, int geo, double size, struct raw *r, struct fe_mesh *m)
{
  FE_CALL(gmsh_load(path, geo, size));
  FE_CALL(mesh_dimension(path, &r->dim));
  FE_CALL(read_nodes(path, r));
  FE_CALL(read_cells(path, r));
  return read_groups(path, r, m);
}

static int read_with_gmsh(const char *path, int geo, double size, struct raw *r, struct fe_mesh *m)
{
  int ierr = 0;
  gmshInitialize(0, NULL, 0, &ierr);
  FE_CHECK(!ierr, FE_ERR_RESOURCE, "%s: could not start Gmsh", path);
  gmshOptionSetNumber("General.Terminal", 0, &ierr);
  gmshLoggerStart(&ierr);
  int err = read_model(path, geo, size, r, m);
  gmshLoggerStop(&ierr);
  gmshFinalize(&ierr);
  return err;
}

/* Gmsh 4.8's .msh reader crashes on some malformed files (a physical name of
 * dimension 5, element blocks that overrun the declared count:
 * tests/fuzz/findings).  A child process reads the file first, as below, with
 * its messages silenced; when it dies on a signal the file is reported as
 * malformed instead of crashing fesim.  Costs a second read of .msh files
 * (not of .geo files, which Gmsh meshes). */
enum { PROBE_VALID = 40, PROBE_INVALID = 41 }; /* the child's exit codes */

static int probe_in_child(const char *path, double size)
{
  fflush(NULL);
  const pid_t pid = fork();
  if (pid == 0) {
    fe_error_set_quiet(1);
    const int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
      dup2(devnull, STDOUT_FILENO);
      dup2(devnull, STDERR_FILENO);
    }
    struct raw r = {0};
    struct fe_mesh m = {0};
    _exit(read_with_gmsh(path, 0, size, &r, &m) ? PROBE_INVALID : PROBE_VALID);
  }
  if (pid < 0) return FE_SUCCESS; /* no child: read it here, unguarded */
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) continue;
  FE_CHECK(!WIFSIGNALED(status), FE_ERR_INPUT,
           "%s: Gmsh crashed reading it (%s): the file is malformed; expected a complete Gmsh mesh "
           "(format 2.2 or 4.1, ASCII or binary)",
           path, strsignal(WTERMSIG(status)));
  /* any other exit: the child was stopped by a memory checker (AddressSanitizer exits 1) */
  FE_CHECK(WEXITSTATUS(status) == PROBE_VALID || WEXITSTATUS(status) == PROBE_INVALID, FE_ERR_INPUT,
           "%s: Gmsh crashed reading it (exit %d): the file is malformed; expected a complete Gmsh "
           "mesh (format 2.2 or 4.1, ASCII or binary)",
           path, WEXITSTATUS(status));
  return FE_SUCCESS;
}

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

/* Node adjacency through shared cells, from the node -> cell incidence. */
static int graph_build(int n, int n_cells, int nv, const int *cells, struct graph *g)
{
  size_t *inc_ptr = NULL;
  int *inc = NULL, *mark = NULL;
  int err = fe_calloc((size_t)n + 1, sizeof *inc_ptr, &inc_ptr);
  if (!err) err = fe_malloc((size_t)n_cells * nv * sizeof *inc, &inc);
  if (!err) err = fe_malloc((size_t)n * sizeof *mark, &mark);
  if (!err) err = fe_calloc((size_t)n + 1, sizeof *g->xadj, &g->xadj);
  if (err) goto done;
  for (size_t k = 0; k < (size_t)n_cells * nv; k++) inc_ptr[cells[k] + 1]++;
  for (int i = 0; i < n; i++) inc_ptr[i + 1] += inc_ptr[i];
  for (size_t k = 0; k < (size_t)n_cells * nv; k++) inc[inc_ptr[cells[k]]++] = (int)(k / nv);
  for (int i = n; i > 0; i--) inc_ptr[i] = inc_ptr[i - 1];
  inc_ptr[0] = 0;
  for (int pass = 0; pass < 2 && !err; pass++) {
    for (int i = 0; i < n; i++) mark[i] = -1;
    for (int a = 0; a < n; a++) {
      size_t deg = pass ? g->xadj[a] : 0;
      for (size_t j = inc_ptr[a]; j < inc_ptr[a + 1]; j++) {
        const int *c = cells + (size_t)inc[j] * nv;
        for (int v = 0; v < nv; v++) {
          int b = c[v];
          if (b == a || mark[b] == a) continue;
          mark[b] = a;
          if (pass) g->adj[deg] = b;
          deg++;
        }
      }
      if (!pass) g->xadj[a + 1] = g->xadj[a] + deg;
    }
    if (!pass) err = fe_malloc(g->xadj[n] * sizeof *g->adj, &g->adj);
  }
  g->n = n;
done:
  free(inc_ptr);
  free(inc);
  free(mark);
  return err;
}

static int degree(const struct graph *g, int v) { return (int)(g->xadj[v + 1] - g->xadj[v]); }

/* Breadth-first levels from root; q receives the component in BFS order.
 * Returns the number of levels; level[] must be -1 on the component. */
static int bfs_levels(const struct graph *g, int root, int *level, int *q, int *count)
{
  int head = 0, tail = 0;
  q[tail++] = root;
  level[root] = 0;
  while (head < tail) {
    int v = q[head++];
    for (size_t j = g->xadj[v]; j < g->xadj[v + 1]; j++) {
      int u = g->adj[j];
      if (level[u] >= 0) continue;
      level[u] = level[v] + 1;
      q[tail++] = u;
    }
  }
  *count = tail;
  return level[q[tail - 1]] + 1;
}

/* George & Liu's pseudo-peripheral node: BFS again from a least-degree node
 * of the last level while the number of levels grows. */
static int pseudo_peripheral(const struct graph *g, int start, int *level, int *q)
{
  int root = start, count;
  int depth = bfs_levels(g, root, level, q, &count);
  for (int iter = 0; iter < 32; iter++) {
    int last = level[q[count - 1]], best = q[count - 1];
    for (int i = count - 1; i >= 0 && level[q[i]] == last; i--)
      if (degree(g, q[i]) < degree(g, best)) best = q[i];
    for (int i = 0; i < count; i++) level[q[i]] = -1;
    int d = bfs_levels(g, best, level, q, &count);
    if (d <= depth) break;
    root = best;
    depth = d;
  }
  for (int i = 0; i < count; i++) level[q[i]] = -1;
  return root;
}

/* perm[old] = new, by reverse Cuthill-McKee, component after component. */
static int rcm_order(const struct graph *g, int *perm)
{
  int n = g->n, *level = NULL, *q = NULL, *order = NULL;
  int err = fe_malloc((size_t)n * sizeof *level, &level);
  if (!err) err = fe_malloc((size_t)n * sizeof *q, &q);
  if (!err) err = fe_malloc((size_t)n * sizeof *order, &order);
  if (err) goto done;
  for (int i = 0; i < n; i++) level[i] = perm[i] = -1;
  int tail = 0;
  for (int s = 0; s < n; s++) {
    if (perm[s] >= 0) continue;
    int root = pseudo_peripheral(g, s, level, q);
    int head = tail;
    order[tail++] = root;
    perm[root] = 1;
    while (head < tail) {
      int v = order[head++], first = tail;
      for (size_t j = g->xadj[v]; j < g->xadj[v + 1]; j++) {
        int u = g->adj[j];
        if (perm[u] >= 0) continue;
        perm[u] = 1;
        /* insert by increasing degree */
        int k = tail++;
        while (k > first && degree(g, order[k - 1]) > degree(g, u)) {
          order[k] = order[k - 1];
          k--;
        }
        order[k] = u;
      }
    }
  }
  for (int i = 0; i < n; i++) perm[order[i]] = n - 1 - i;
done:
  free(level);
  free(q);
  free(order);
  return err;
}

/* ---- building the mesh ----------------------------------------------------- */

static int check_coords(const char *path, const struct raw *r, const int *used_old, int n)
{
  for (int i = 0; i < n; i++) {
    const double *x = r->xyz + 3 * (size_t)used_old[i];
    FE_CHECK(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]), FE_ERR_INPUT,
             "%s: node %zu is at (%g, %g, %g); expected finite coordinates", path,
             r->node_tags[used_old[i]], x[0], x[1], x[2]);
  }
  return FE_SUCCESS;
}

static int check_plane(const char *path, const struct raw *r, const int *used_old, int n)
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

static int entity_of(const struct raw *r, size_t id)
{
  for (size_t k = 0; k < r->n_cells; k++)
    if (r->cell_id[k] == id) return r->cell_entity[k];
  return 0;
}

/* "element N (triangle of surface S)": a cell, for messages. */
static const char *cell_where(const struct fe_mesh *m, const struct raw *r, int c, char *buf,
                              size_t size)
{
  snprintf(buf, size, "element %zu (%s of %s %d)", m->cell_id[c],
           m->dim == 2 ? "triangle" : "tetrahedron", m->dim == 2 ? "surface" : "volume",
           entity_of(r, m->cell_id[c]));
  return buf;
}

static int orient_cells(struct fe_mesh *m, const struct raw *r)
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

static int report_inverted(const struct fe_mesh *m, const struct raw *r, const struct folds *fo,
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

static int check_inverted(const struct fe_mesh *m, const struct raw *r)
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
static int sort_cells(struct fe_mesh *m, const struct raw *r, const int *local, const int *perm)
{
  int n = m->n_nodes, nv = m->nv, *start = NULL;
  FE_CALL(fe_calloc((size_t)n + 1, sizeof *start, &start));
  for (int c = 0; c < m->n_cells; c++) {
    int lo = n;
    for (int v = 0; v < nv; v++) {
      int i = perm[local[r->cells[(size_t)c * nv + v]]];
      lo = i < lo ? i : lo;
    }
    start[lo + 1]++;
  }
  for (int i = 0; i < n; i++) start[i + 1] += start[i];
  for (int c = 0; c < m->n_cells; c++) {
    int lo = n, tmp[FE_MAX_NV] = {0};
    for (int v = 0; v < nv; v++) {
      tmp[v] = perm[local[r->cells[(size_t)c * nv + v]]];
      lo = tmp[v] < lo ? tmp[v] : lo;
    }
    int k = start[lo]++;
    memcpy(m->cells + (size_t)k * nv, tmp, sizeof(int) * nv);
    m->cell_id[k] = r->cell_id[c];
    m->cell_region[k] = r->cell_region[c];
  }
  free(start);
  return FE_SUCCESS;
}

static int map_facets(struct fe_mesh *m, const struct raw *r, const int *local, const int *perm)
{
  m->n_facets = (int)r->n_facets;
  FE_MALLOC((size_t)m->n_facets * m->dim, &m->facets);
  FE_MALLOC(m->n_facets, &m->facet_group);
  for (int f = 0; f < m->n_facets; f++) {
    for (int v = 0; v < m->dim; v++) {
      int i = local[r->facets[(size_t)f * m->dim + v]];
      FE_CHECK(i >= 0, FE_ERR_INPUT,
               "%s: mixed dimensions: element %zu of physical group %d is not %s (its node %zu "
               "belongs to no %s); expected a %dD mesh: %s",
               m->path, r->facet_id[f], r->facet_group[f],
               m->dim == 2 ? "an edge of the triangles" : "a face of the tetrahedra",
               r->node_tags[r->facets[(size_t)f * m->dim + v]],
               m->dim == 2 ? "triangle" : "tetrahedron", m->dim,
               m->dim == 2 ? "triangles, and lines on their edges"
                           : "tetrahedra, and triangles on their faces");
      m->facets[(size_t)f * m->dim + v] = perm[i];
    }
    m->facet_group[f] = r->facet_group[f];
  }
  return FE_SUCCESS;
}

static int build_mesh(struct fe_mesh *m, const struct raw *r)
{
  int nv = r->dim + 1, *local = NULL, *used = NULL, *perm = NULL, *cells = NULL, err;
  struct graph g = {0};
  size_t nc = r->n_cells;
  m->dim = r->dim;
  m->nv = nv;
  m->n_cells = (int)nc;
  FE_CALL(fe_malloc(r->n_nodes * sizeof *local, &local));
  for (size_t i = 0; i < r->n_nodes; i++) local[i] = -1;
  int n = 0;
  for (size_t k = 0; k < nc * nv; k++)
    if (local[r->cells[k]] < 0) local[r->cells[k]] = n++;
  m->n_nodes = n;
  err = fe_malloc((size_t)n * sizeof *used, &used);
  if (!err) err = fe_malloc(nc * nv * sizeof *cells, &cells);
  if (err) goto done;
  for (size_t i = 0; i < r->n_nodes; i++)
    if (local[i] >= 0) used[local[i]] = (int)i;
  err = check_coords(m->path, r, used, n);
  if (!err && m->dim == 2) err = check_plane(m->path, r, used, n);
  for (size_t k = 0; k < nc * nv && !err; k++) cells[k] = local[r->cells[k]];
  if (!err) err = graph_build(n, (int)nc, nv, cells, &g);
  if (!err) err = fe_malloc((size_t)n * sizeof *perm, &perm);
  if (!err) err = rcm_order(&g, perm);
  if (!err) err = fe_malloc((size_t)n * m->dim * sizeof *m->coords, &m->coords);
  if (!err) err = fe_malloc(nc * nv * sizeof *m->cells, &m->cells);
  if (!err) err = fe_malloc(nc * sizeof *m->cell_id, &m->cell_id);
  if (!err) err = fe_malloc(nc * sizeof *m->cell_region, &m->cell_region);
  if (err) goto done;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < m->dim; k++)
      m->coords[(size_t)perm[i] * m->dim + k] = r->xyz[3 * (size_t)used[i] + k];
  err = sort_cells(m, r, local, perm);
  if (!err) err = orient_cells(m, r);
  if (!err) err = check_inverted(m, r);
  if (!err) err = map_facets(m, r, local, perm);
done:
  graph_free(&g);
  free(local);
  free(used);
  free(perm);
  free(cells);
  return err;
}

/* ---- public ---------------------------------------------------------------- */

static int check_file(const char *path, int *geo)
{
  const char *dot = strrchr(path, '.');
  const char *ext = dot && !strchr(dot, '/') ? dot : "(none)";
  *geo = !strcasecmp(ext, ".geo");
  FE_CHECK(*geo || !strcasecmp(ext, ".msh"), FE_ERR_INPUT,
           "mesh '%s': unknown mesh file type '%s'; expected a Gmsh mesh (.msh, format 2.2 or "
           "4.1) or a Gmsh geometry (.geo)",
           path, ext);
  FILE *fp = fopen(path, "rb");
  FE_CHECK(fp || errno != ENOENT, FE_ERR_INPUT, "mesh '%s' not found", path);
  FE_CHECK(fp, FE_ERR_INPUT, "mesh '%s' cannot be read: %s", path, strerror(errno));
  char line[64] = "";
  size_t n = fread(line, 1, sizeof line - 1, fp);
  const int is_dir = !n && ferror(fp) && errno == EISDIR;
  fclose(fp);
  FE_CHECK(!is_dir, FE_ERR_INPUT, "mesh '%s' is a directory; expected a Gmsh mesh or geometry file",
           path);
  if (*geo) return FE_SUCCESS;
  /* Gmsh hands a file that is not a mesh to its .geo parser, whose messages
   * would be about geometry syntax, so that case is reported here. */
  FE_CHECK(n, FE_ERR_INPUT, "%s: empty file; expected a Gmsh mesh", path);
  size_t len = 0;
  int text = 1;
  for (; len < n && line[len] != '\n' && line[len] != '\r'; len++)
    text &= ((unsigned char)line[len] >= 32 && (unsigned char)line[len] < 127) || line[len] == '\t';
  line[len] = '\0';
  if (!strncmp(line, "$MeshFormat", 11)) return FE_SUCCESS;
  if (!text)
    FE_RAISE(FE_ERR_INPUT,
             "%s: not a Gmsh mesh: it starts with binary data, expected '$MeshFormat'", path);
  FE_RAISE(FE_ERR_INPUT, "%s: not a Gmsh mesh: it starts with '%.40s', expected '$MeshFormat'",
           path, line);
}

int fe_mesh_read(const char *path, double size, struct fe_mesh **mesh)
{
  int geo;
  *mesh = NULL;
  FE_CALL(check_file(path, &geo));
  struct fe_mesh *m;
  struct raw r = {0};
  FE_CALLOC(1, &m);
  int err = fe_strdup(path, &m->path);
  if (!err && !geo) err = probe_in_child(path, size);
  if (!err) err = read_with_gmsh(path, geo, size, &r, m);
  if (!err) err = build_mesh(m, &r);
  raw_free(&r);
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
  free(mesh->cells);
  free(mesh->cell_region);
  free(mesh->cell_id);
  free(mesh->facets);
  free(mesh->facet_group);
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
