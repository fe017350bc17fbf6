#include "io/snapshot.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "io/file.h"
#include "io/point_data.h"

/* ---------------------------------------------------------------- numbers and point data */

void fe_point_data_free(struct fe_point_data *pd)
{
  free(pd->values);
  free(pd->points);
  free(pd->tags);
  memset(pd, 0, sizeof *pd);
}

int fe_number_size(enum fe_number_type t)
{
  static const int size[] = {
      [FE_NUM_NONE] = 0, [FE_NUM_BIT] = 0, [FE_NUM_I8] = 1,  [FE_NUM_U8] = 1,
      [FE_NUM_I16] = 2,  [FE_NUM_U16] = 2, [FE_NUM_I32] = 4, [FE_NUM_U32] = 4,
      [FE_NUM_I64] = 8,  [FE_NUM_U64] = 8, [FE_NUM_F32] = 4, [FE_NUM_F64] = 8};
  return size[t];
}

static uint64_t load(const unsigned char *p, int size, int big)
{
  uint64_t v = 0;
  for (int i = 0; i < size; i++) v |= (uint64_t)p[big ? size - 1 - i : i] << (8 * i);
  return v;
}

static double decode_one(enum fe_number_type t, uint64_t v)
{
  switch (t) {
  case FE_NUM_I8: return (double)(int8_t)v;
  case FE_NUM_U8: return (double)(uint8_t)v;
  case FE_NUM_I16: return (double)(int16_t)v;
  case FE_NUM_U16: return (double)(uint16_t)v;
  case FE_NUM_I32: return (double)(int32_t)v;
  case FE_NUM_U32: return (double)(uint32_t)v;
  case FE_NUM_I64: return (double)(int64_t)v;
  case FE_NUM_U64: return (double)v;
  case FE_NUM_F32: {
    const uint32_t w = (uint32_t)v;
    float f;
    memcpy(&f, &w, sizeof f);
    return f;
  }
  default: {
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
  }
  }
}

void fe_number_decode(enum fe_number_type t, int big, const unsigned char *p, size_t n, double *out)
{
  if (t == FE_NUM_BIT) { /* most significant bit first, as VTK packs them */
    for (size_t i = 0; i < n; i++) out[i] = (p[i / 8] >> (7 - i % 8)) & 1;
    return;
  }
  const int size = fe_number_size(t);
  for (size_t i = 0; i < n; i++) out[i] = decode_one(t, load(p + i * (size_t)size, size, big));
}

/* ---------------------------------------------------------------- the reader of a mesh */

enum fe_snapshot_format fe_snapshot_format(const char *path)
{
  static const char *const ext[] = {".vtk", ".vtu", ".msh"};
  const char *dot = strrchr(path, '.');
  for (int f = 0; dot && !strchr(dot, '/') && f < 3; f++)
    if (!strcasecmp(dot, ext[f])) return (enum fe_snapshot_format)f;
  return FE_SNAPSHOT_NONE;
}

/* A node in the grid of its coordinates (cells of the grid's size, from the mesh's corner). */
struct cell_node {
  int64_t key[3];
  int node;
};

struct tag_node {
  size_t tag;
  int node;
};

struct fe_snapshot_reader {
  const struct fe_mesh *m;
  double *tol;              /* per node: FE_SNAPSHOT_TOLERANCE of its shortest edge */
  double cell, lo[3];       /* the grid */
  struct cell_node *grid;   /* the nodes sorted by grid cell; NULL until a file needs it */
  struct tag_node *by_tag;  /* the nodes sorted by Gmsh tag; NULL until a file needs it */
  int *node_of;             /* per entry of the file being read: its node */
  unsigned char *taken;     /* per node: given a value by the file being read */
  const char *shown, *mesh; /* the file and the mesh, for messages */
};

static void node_xyz(const struct fe_mesh *m, int n, double x[3])
{
  x[0] = x[1] = x[2] = 0;
  for (int a = 0; a < m->dim; a++) x[a] = m->coords[(size_t)n * m->dim + a];
}

/* The distance of the file's point p from node n (in 2D, x and y only). */
static double distance(const struct fe_mesh *m, const double *p, int n)
{
  double x[3], s = 0;
  node_xyz(m, n, x);
  for (int a = 0; a < m->dim; a++) s += (p[a] - x[a]) * (p[a] - x[a]);
  return sqrt(s);
}

int fe_snapshot_reader_create(const struct fe_mesh *m, struct fe_snapshot_reader **out)
{
  struct fe_snapshot_reader *r;
  FE_CALLOC(1, &r);
  r->m = m;
  int err = fe_malloc((size_t)m->n_nodes * sizeof *r->tol, &r->tol);
  if (!err) err = fe_calloc((size_t)m->n_nodes, 1, &r->taken);
  if (err) {
    fe_snapshot_reader_destroy(r);
    return err;
  }
  for (int n = 0; n < m->n_nodes; n++) r->tol[n] = INFINITY;
  for (int c = 0; c < m->n_cells; c++)
    for (int i = 0; i < m->nv; i++)
      for (int j = i + 1; j < m->nv; j++) {
        const int a = m->cells[c * m->nv + i], b = m->cells[c * m->nv + j];
        double x[3];
        node_xyz(m, a, x);
        const double e = FE_SNAPSHOT_TOLERANCE * distance(m, x, b);
        r->tol[a] = fmin(r->tol[a], e);
        r->tol[b] = fmin(r->tol[b], e);
      }
  *out = r;
  return FE_SUCCESS;
}

void fe_snapshot_reader_destroy(struct fe_snapshot_reader *r)
{
  if (!r) return;
  free(r->tol);
  free(r->grid);
  free(r->by_tag);
  free(r->node_of);
  free(r->taken);
  free(r);
}

static int cmp_key(const int64_t *a, const int64_t *b)
{
  for (int k = 0; k < 3; k++)
    if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
}

static int cmp_cell_node(const void *a, const void *b)
{
  return cmp_key(((const struct cell_node *)a)->key, ((const struct cell_node *)b)->key);
}

static void grid_key(const struct fe_snapshot_reader *r, const double *p, int64_t key[3])
{
  for (int a = 0; a < 3; a++) {
    /* clamped, so that a point far away (or not finite) has a key, and its neighbours too:
     * it matches no node */
    double q = a < r->m->dim ? floor((p[a] - r->lo[a]) / r->cell) : 0;
    q = q > 4e18 ? 4e18 : q > -4e18 ? q : -4e18;
    key[a] = (int64_t)q;
  }
}

/* The grid: cells no smaller than twice the largest tolerance, so that a point within the
 * tolerance of a node lies in the node's cell or a neighbour. */
static int build_grid(struct fe_snapshot_reader *r)
{
  const struct fe_mesh *m = r->m;
  double tol_max = 0, hi[3] = {0, 0, 0};
  r->lo[0] = r->lo[1] = r->lo[2] = INFINITY;
  for (int n = 0; n < m->n_nodes; n++) {
    double x[3];
    node_xyz(m, n, x);
    for (int a = 0; a < m->dim; a++) r->lo[a] = fmin(r->lo[a], x[a]), hi[a] = fmax(hi[a], x[a]);
    if (isfinite(r->tol[n])) tol_max = fmax(tol_max, r->tol[n]);
  }
  double extent = 0;
  for (int a = 0; a < m->dim; a++) extent = fmax(extent, hi[a] - r->lo[a]);
  /* at most about 2^20 cells an axis: the keys stay far from overflow */
  r->cell = fmax(fmax(2 * tol_max, extent * 1e-6), 1e-300);
  FE_MALLOC(m->n_nodes, &r->grid);
  for (int n = 0; n < m->n_nodes; n++) {
    double x[3];
    node_xyz(m, n, x);
    grid_key(r, x, r->grid[n].key);
    r->grid[n].node = n;
  }
  qsort(r->grid, (size_t)m->n_nodes, sizeof *r->grid, cmp_cell_node);
  return FE_SUCCESS;
}

/* The node within its tolerance of p, -1 when none. */
static int node_at(const struct fe_snapshot_reader *r, const double *p)
{
  const int d = r->m->dim;
  int64_t key[3], k[3];
  grid_key(r, p, key);
  for (int o = 0; o < (d == 2 ? 9 : 27); o++) {
    k[0] = key[0] + o % 3 - 1;
    k[1] = key[1] + o / 3 % 3 - 1;
    k[2] = d == 2 ? 0 : key[2] + o / 9 - 1;
    size_t lo = 0, hi = (size_t)r->m->n_nodes; /* the first entry not below k */
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (cmp_key(r->grid[mid].key, k) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    for (size_t i = lo; i < (size_t)r->m->n_nodes && !cmp_key(r->grid[i].key, k); i++)
      if (distance(r->m, p, r->grid[i].node) <= r->tol[r->grid[i].node]) return r->grid[i].node;
  }
  return -1;
}

/* Point i at p is within the tolerance of no node: the nearest one named. */
static int no_node(const struct fe_snapshot_reader *r, const char *which, const double *p)
{
  const struct fe_mesh *m = r->m;
  int best = 0;
  for (int n = 1; n < m->n_nodes; n++)
    if (distance(m, p, n) < distance(m, p, best)) best = n;
  double x[3];
  char a[96], b[96];
  node_xyz(m, best, x);
  FE_RAISE(FE_ERR_INPUT,
           "%s: %s at %s is %.3g from the nearest node of the mesh %s, at %s: more than %.3g (%g "
           "of the shortest edge there); expected the nodes of the run's mesh: a velocity on "
           "another mesh is not interpolated",
           r->shown, which, fe_mesh_point_text(m->dim, p, a, sizeof a), distance(m, p, best),
           r->mesh, fe_mesh_point_text(m->dim, x, b, sizeof b), r->tol[best],
           FE_SNAPSHOT_TOLERANCE);
}

/* VTK: point i is node i for every point, or each point is matched by its coordinates. */
static int match_points(struct fe_snapshot_reader *r, const struct fe_point_data *pd)
{
  const struct fe_mesh *m = r->m;
  FE_CHECK(pd->n == (size_t)m->n_nodes, FE_ERR_INPUT,
           "%s: %zu points; expected the %d nodes of the mesh %s (the velocity at each node of "
           "the run's mesh)",
           r->shown, pd->n, m->n_nodes, r->mesh);
  int in_order = 1;
  for (int n = 0; in_order && n < m->n_nodes; n++)
    in_order = distance(m, pd->points + 3 * (size_t)n, n) <= r->tol[n];
  for (int n = 0; in_order && n < m->n_nodes; n++) r->node_of[n] = n;
  if (in_order) return FE_SUCCESS;
  if (!r->grid) FE_CALL(build_grid(r));
  memset(r->taken, 0, (size_t)m->n_nodes);
  for (size_t i = 0; i < pd->n; i++) {
    const double *p = pd->points + 3 * i;
    char which[48], a[96];
    snprintf(which, sizeof which, "point %zu", i);
    const int n = node_at(r, p);
    if (n < 0) return no_node(r, which, p);
    FE_CHECK(!r->taken[n], FE_ERR_INPUT,
             "%s: point %zu at %s is at a node of the mesh %s that an earlier point is at too; "
             "expected each node of the mesh once",
             r->shown, i, fe_mesh_point_text(m->dim, p, a, sizeof a), r->mesh);
    r->taken[n] = 1;
    r->node_of[i] = n;
  }
  return FE_SUCCESS;
}

static int cmp_tag(const void *a, const void *b)
{
  const size_t x = ((const struct tag_node *)a)->tag, y = ((const struct tag_node *)b)->tag;
  return (x > y) - (x < y);
}

/* $NodeData: by Gmsh node tag; the coordinates checked where the file has them. */
static int match_tags(struct fe_snapshot_reader *r, const struct fe_point_data *pd)
{
  const struct fe_mesh *m = r->m;
  FE_CHECK(m->node_id, FE_ERR_INPUT,
           "%s: $NodeData gives values by Gmsh node tag, and the mesh %s has none (it was not "
           "read from a Gmsh file); expected a VTK file",
           r->shown, r->mesh);
  if (!r->by_tag) {
    FE_MALLOC(m->n_nodes, &r->by_tag);
    for (int n = 0; n < m->n_nodes; n++) r->by_tag[n] = (struct tag_node){m->node_id[n], n};
    qsort(r->by_tag, (size_t)m->n_nodes, sizeof *r->by_tag, cmp_tag);
  }
  memset(r->taken, 0, (size_t)m->n_nodes);
  for (size_t i = 0; i < pd->n; i++) {
    const struct tag_node key = {pd->tags[i], 0};
    const struct tag_node *hit = bsearch(&key, r->by_tag, (size_t)m->n_nodes, sizeof key, cmp_tag);
    r->node_of[i] = hit ? hit->node : -1;
    if (!hit) continue; /* a node of no cell */
    FE_CHECK(!r->taken[hit->node], FE_ERR_INPUT,
             "%s: node tag %zu is given twice in the $NodeData; expected one value per node",
             r->shown, pd->tags[i]);
    r->taken[hit->node] = 1;
    char which[48];
    snprintf(which, sizeof which, "node tag %zu", pd->tags[i]);
    if (pd->points && distance(m, pd->points + 3 * i, hit->node) > r->tol[hit->node])
      return no_node(r, which, pd->points + 3 * i);
  }
  for (int n = 0; n < m->n_nodes; n++) {
    if (r->taken[n]) continue;
    double x[3];
    char a[96];
    node_xyz(m, n, x);
    long missing = 0;
    for (int k = 0; k < m->n_nodes; k++) missing += !r->taken[k];
    FE_RAISE(FE_ERR_INPUT,
             "%s: no value for %ld of the %d nodes of the mesh %s, node tag %zu at %s among them; "
             "expected a value at every node",
             r->shown, missing, m->n_nodes, r->mesh, m->node_id[n],
             fe_mesh_point_text(m->dim, x, a, sizeof a));
  }
  return FE_SUCCESS;
}

/* d components (or 3 in 2D, the third 0), finite, into the mesh's order. */
static int take_values(const struct fe_snapshot_reader *r, const struct fe_point_data *pd,
                       const char *field, double *out)
{
  const int d = r->m->dim, c = pd->components;
  FE_CHECK(c == d || (d == 2 && c == 3), FE_ERR_INPUT,
           "%s: the point array '%s' has %d component%s; expected a velocity of %s on the %dD "
           "mesh %s",
           r->shown, field, c, c == 1 ? "" : "s", d == 2 ? "2 (or 3, the third 0)" : "3", d,
           r->mesh);
  double speed = 0;
  for (size_t i = 0; i < pd->n * (size_t)c; i++) {
    const double v = pd->values[i];
    FE_CHECK(isfinite(v), FE_ERR_INPUT,
             "%s: the velocity '%s' is %g at %s %zu (component %zu); expected finite values",
             r->shown, field, v, pd->tags ? "node tag" : "point",
             pd->tags ? pd->tags[i / c] : i / c, i % c + 1);
    speed = fmax(speed, fabs(v));
  }
  for (size_t i = 0; i < pd->n; i++) {
    const double *v = pd->values + i * (size_t)c;
    FE_CHECK(c == d || fabs(v[2]) <= FE_SNAPSHOT_PLANE * speed, FE_ERR_INPUT,
             "%s: the velocity '%s' has z component %g at %s %zu, and the mesh %s is 2D; expected "
             "0 there (to %g of the largest component, %g): a flow in the plane of the mesh",
             r->shown, field, v[2], pd->tags ? "node tag" : "point", pd->tags ? pd->tags[i] : i,
             r->mesh, FE_SNAPSHOT_PLANE, speed);
    if (r->node_of[i] < 0) continue;
    for (int a = 0; a < d; a++) out[(size_t)r->node_of[i] * d + a] = v[a];
  }
  return FE_SUCCESS;
}

static int check_points(const struct fe_snapshot_reader *r, const struct fe_point_data *pd)
{
  for (size_t i = 0; pd->points && i < 3 * pd->n; i++)
    FE_CHECK(isfinite(pd->points[i]), FE_ERR_INPUT,
             "%s: the coordinates of %s %zu are not finite (%g); expected finite coordinates",
             r->shown, pd->tags ? "node tag" : "point", pd->tags ? pd->tags[i / 3] : i / 3,
             pd->points[i]);
  return FE_SUCCESS;
}

static int read_point_data(const char *path, const char *shown, const char *field,
                           struct fe_point_data *pd)
{
  unsigned char *bytes;
  size_t size;
  FE_CALL(fe_file_read(path, "velocity file", "a file of the velocity at the mesh's nodes", &bytes,
                       &size));
  int err;
  switch (fe_snapshot_format(path)) {
  case FE_SNAPSHOT_VTK: err = fe_vtk_read_points(shown, bytes, size, field, pd); break;
  case FE_SNAPSHOT_VTU: err = fe_vtu_read_points(shown, bytes, size, field, pd); break;
  case FE_SNAPSHOT_MSH: err = fe_msh_read_node_data(shown, bytes, size, field, pd); break;
  default:
    err = fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                         "%s: not a velocity file by its extension; expected .vtk (legacy VTK), "
                         ".vtu (VTK XML) or .msh (Gmsh $NodeData)",
                         shown);
  }
  free(bytes);
  return err;
}

int fe_snapshot_read(struct fe_snapshot_reader *r, const char *path, const char *field, double *out)
{
  char shown[FE_QUOTE_SIZE], mesh[FE_QUOTE_SIZE];
  struct fe_point_data pd = {0};
  r->shown = fe_path_shown(path, shown, sizeof shown);
  r->mesh = fe_path_shown(r->m->path ? r->m->path : "(built in memory)", mesh, sizeof mesh);
  FE_CALL(read_point_data(path, r->shown, field, &pd));
  free(r->node_of);
  int err = fe_malloc((pd.n + 1) * sizeof *r->node_of, &r->node_of);
  if (!err) err = check_points(r, &pd);
  if (!err) err = pd.tags ? match_tags(r, &pd) : match_points(r, &pd);
  if (!err) err = take_values(r, &pd, field, out);
  fe_point_data_free(&pd);
  return err;
}
