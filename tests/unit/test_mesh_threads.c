/* io/mesh's numbering and checks (build_mesh, io/mesh_checks.c) run on every thread: on one
 * thread and on several they give the same mesh, bit for bit (node numbers, coordinates, cells
 * and their vertex order, facets), the same warnings, and for a mesh with several faults the
 * same message: the fault a run on one thread meets first.  The meshes are written here, large
 * enough for every thread to have work: nodes and cells in shuffled order, half of the cells
 * negatively oriented, boundary facets in groups. */
#define _POSIX_C_SOURCE 200809L /* dup, dup2, fileno, mkdtemp: the messages of bad meshes */
#include "io/mesh.h"
#include "io/shares.h"

#include "core/error.h"
#include "fresh_dir.h"
#include "meshgen.h"
#include "test.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A mesh before it is written: nodes, cells (region 10), facets of groups. */
struct msh {
  int dim, n_nodes, n_cells, n_facets;
  double *xyz; /* 3 per node */
  int *cell;   /* dim + 1 per cell */
  int *facet;  /* dim per facet */
  int *group;  /* per facet */
};

static void msh_alloc(struct msh *g, int dim, int nodes, int cells, int facets)
{
  *g = (struct msh){.dim = dim};
  g->xyz = malloc(3 * sizeof(double) * (size_t)nodes);
  g->cell = malloc((size_t)(dim + 1) * sizeof(int) * (size_t)cells);
  g->facet = malloc((size_t)dim * sizeof(int) * (size_t)(facets ? facets : 1));
  g->group = malloc(sizeof(int) * (size_t)(facets ? facets : 1));
  if (!g->xyz || !g->cell || !g->facet || !g->group) abort();
}

static void msh_free(struct msh *g)
{
  free(g->xyz);
  free(g->cell);
  free(g->facet);
  free(g->group);
}

static int add_node(struct msh *g, double x, double y, double z)
{
  g->xyz[3 * g->n_nodes] = x;
  g->xyz[3 * g->n_nodes + 1] = y;
  g->xyz[3 * g->n_nodes + 2] = z;
  return g->n_nodes++;
}

static void add_cell(struct msh *g, const int *v)
{
  memcpy(g->cell + (size_t)(g->dim + 1) * g->n_cells++, v, sizeof(int) * (g->dim + 1));
}

static void add_facet(struct msh *g, const int *v, int group)
{
  memcpy(g->facet + (size_t)g->dim * g->n_facets, v, sizeof(int) * g->dim);
  g->group[g->n_facets++] = group;
}

/* A random permutation of 0 .. n - 1. */
static int *shuffled(int n, unsigned *seed)
{
  int *p = malloc(sizeof(int) * (size_t)(n ? n : 1));
  if (!p) abort();
  for (int i = 0; i < n; i++) p[i] = i;
  for (int i = n - 1; i > 0; i--) {
    const int j = (int)(meshgen_rand(seed) * (i + 1)), t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
  return p;
}

/* MSH 2.2, node tags and the order of nodes and cells shuffled, every other cell's last two
 * vertices swapped (its orientation reversed). */
static void msh_write(const char *path, const struct msh *g, unsigned seed)
{
  static const int cell_type[] = {0, 0, 2, 4}, facet_type[] = {0, 0, 1, 2};
  const int nv = g->dim + 1;
  int *tag = shuffled(g->n_nodes, &seed), *order = shuffled(g->n_nodes, &seed);
  int *cells = shuffled(g->n_cells, &seed);
  FILE *f = fopen(path, "w");
  CHECK(f);
  if (!f) abort();
  fprintf(f, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%d\n", g->n_nodes);
  for (int k = 0; k < g->n_nodes; k++) {
    const double *x = g->xyz + 3 * (size_t)order[k];
    fprintf(f, "%d %.17g %.17g %.17g\n", tag[order[k]] + 1, x[0], x[1], x[2]);
  }
  fprintf(f, "$EndNodes\n$Elements\n%d\n", g->n_facets + g->n_cells);
  for (int e = 0; e < g->n_facets; e++) {
    fprintf(f, "%d %d 2 %d %d", e + 1, facet_type[g->dim], g->group[e], g->group[e]);
    for (int v = 0; v < g->dim; v++) fprintf(f, " %d", tag[g->facet[(size_t)g->dim * e + v]] + 1);
    fprintf(f, "\n");
  }
  for (int e = 0; e < g->n_cells; e++) {
    int v[4];
    memcpy(v, g->cell + (size_t)nv * cells[e], sizeof(int) * nv);
    if (e % 2) {
      const int t = v[nv - 1];
      v[nv - 1] = v[nv - 2];
      v[nv - 2] = t;
    }
    fprintf(f, "%d %d 2 10 1", g->n_facets + e + 1, cell_type[g->dim]);
    for (int k = 0; k < nv; k++) fprintf(f, " %d", tag[v[k]] + 1);
    fprintf(f, "\n");
  }
  fprintf(f, "$EndElements\n");
  fclose(f);
  free(tag);
  free(order);
  free(cells);
}

/* The unit square in n x n squares of two triangles, node (i, j) at i + (n + 1) j, its sides in
 * groups 1 to 4; rows rows more above it, y from 1 + lift, on nodes of their own (a second
 * piece: touching the first along y = 1 with lift 0, overlapping its top row with lift < 0).
 * Room for `extra` more cells and facets, and twice as many nodes. */
static void square(struct msh *g, int n, int rows, double lift, int extra)
{
  const int side = n + 1;
  msh_alloc(g, 2, side * (side + rows + 1) + 2 * extra, 2 * n * (n + rows) + extra, 4 * n + extra);
  for (int piece = 0; piece < 1 + (rows > 0); piece++) {
    const int first = g->n_nodes, ny = piece ? rows : n;
    const double y0 = piece ? 1 + lift : 0;
    for (int j = 0; j <= ny; j++)
      for (int i = 0; i <= n; i++) add_node(g, (double)i / n, y0 + (double)j / n, 0);
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < n; i++) {
        const int a = first + i + side * j, b = a + 1, c = a + side + 1, d = a + side;
        add_cell(g, (const int[]){a, b, c});
        add_cell(g, (const int[]){a, c, d});
      }
  }
  for (int i = 0; i < n; i++) {
    add_facet(g, (const int[]){i, i + 1}, 1);                         /* bottom */
    add_facet(g, (const int[]){side * n + i, side * n + i + 1}, 2);   /* top */
    add_facet(g, (const int[]){side * i, side * (i + 1)}, 3);         /* left */
    add_facet(g, (const int[]){side * i + n, side * (i + 1) + n}, 4); /* right */
  }
}

/* The unit cube in n^3 cubes of six tetrahedra (Kuhn), its faces x = 0 and x = 1 in groups 1
 * and 2. */
static void cube(struct msh *g, int n)
{
  static const int kuhn[6][4] = {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7},
                                 {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}};
  const int s = n + 1;
  msh_alloc(g, 3, s * s * s, 6 * n * n * n, 4 * n * n);
  for (int k = 0; k <= n; k++)
    for (int j = 0; j <= n; j++)
      for (int i = 0; i <= n; i++) add_node(g, (double)i / n, (double)j / n, (double)k / n);
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        int corner[8], v[4];
        for (int c = 0; c < 8; c++)
          corner[c] = (i + (c & 1)) + s * (j + (c >> 1 & 1)) + s * s * (k + (c >> 2));
        for (int t = 0; t < 6; t++) {
          for (int a = 0; a < 4; a++) v[a] = corner[kuhn[t][a]];
          add_cell(g, v);
        }
      }
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int x = 0; x <= n; x += n) {
        const int a = x + s * j + s * s * k, b = a + s, c = a + s * s, d = b + s * s;
        add_facet(g, (const int[]){a, b, d}, 1 + !!x);
        add_facet(g, (const int[]){a, d, c}, 1 + !!x);
      }
}

/* fe_mesh_read on `threads` threads, its messages (stderr) in msg. */
static int read_on(int threads, const char *path, struct fe_mesh **m, char *msg, size_t size)
{
  FILE *tmp = tmpfile();
  msg[0] = '\0';
  if (!tmp) abort();
  omp_set_num_threads(threads);
  fflush(stderr);
  const int saved = dup(fileno(stderr));
  dup2(fileno(tmp), fileno(stderr));
  const int err = fe_mesh_read(path, NULL, m);
  fflush(stderr);
  dup2(saved, fileno(stderr));
  close(saved);
  rewind(tmp);
  msg[fread(msg, 1, size - 1, tmp)] = '\0';
  fclose(tmp);
  return err;
}

#define SAME(a, b, field, count)                                                                   \
  CHECK(((a)->field == NULL) == ((b)->field == NULL) &&                                            \
        (!(a)->field || !memcmp((a)->field, (b)->field, sizeof *(a)->field * (size_t)(count))))

static void check_same_mesh(const struct fe_mesh *a, const struct fe_mesh *b)
{
  CHECK(a->n_nodes == b->n_nodes && a->n_cells == b->n_cells && a->n_facets == b->n_facets);
  if (a->n_nodes != b->n_nodes || a->n_cells != b->n_cells || a->n_facets != b->n_facets) return;
  SAME(a, b, coords, a->n_nodes * a->dim);
  SAME(a, b, node_id, a->n_nodes);
  SAME(a, b, cells, a->n_cells * a->nv);
  SAME(a, b, cell_region, a->n_cells);
  SAME(a, b, cell_id, a->n_cells);
  SAME(a, b, facets, a->n_facets * a->dim);
  SAME(a, b, facet_group, a->n_facets);
  SAME(a, b, facet_id, a->n_facets);
  SAME(a, b, facet_cells, a->n_facets);
}

/* The node -> cell incidence of m made on `threads` threads: each node's cell entries, ascending
 * (fe_mesh_incidence); at the first node of each facet of a group the same, and none at the other
 * nodes (fe_mesh_facet_incidence). */
static void check_incidence(const struct fe_mesh *m, int threads)
{
  int *ptr, *inc, *fptr, *finc;
  unsigned char *first = calloc((size_t)m->n_nodes + 1, 1);
  omp_set_num_threads(threads);
  CHECK_OK(fe_mesh_incidence(m, &ptr, &inc));
  CHECK_OK(fe_mesh_facet_incidence(m, &fptr, &finc));
  for (int f = 0; f < m->n_facets; f++) first[m->facets[(size_t)f * m->dim]] = 1;
  CHECK(ptr[0] == 0 && ptr[m->n_nodes] == m->n_cells * m->nv && fptr[0] == 0);
  int bad = 0;
  for (int i = 0; i < m->n_nodes; i++) {
    for (int j = ptr[i]; j < ptr[i + 1]; j++)
      bad += m->cells[inc[j]] != i || (j > ptr[i] && inc[j] <= inc[j - 1]);
    const int n = fptr[i + 1] - fptr[i];
    bad += first[i] ? n != ptr[i + 1] - ptr[i] ||
                          memcmp(finc + fptr[i], inc + ptr[i], (size_t)n * sizeof *inc)
                    : n != 0;
  }
  CHECK(bad == 0);
  free(ptr);
  free(inc);
  free(fptr);
  free(finc);
  free(first);
}

/* The mesh g read on 1, 2 and 3 threads: the same error code, messages and mesh; `expected`:
 * what the message of the run on one thread contains ("" for none). */
static void check_threads(const char *dir, const char *name, const struct msh *g, int expected_err,
                          const char *expected)
{
  char path[512], msg[2][4096];
  struct fe_mesh *m[2] = {NULL, NULL};
  snprintf(path, sizeof path, "%s/%s", dir, name);
  msh_write(path, g, 7);
  const int err = read_on(1, path, &m[0], msg[0], sizeof msg[0]);
  if (err != expected_err || !strstr(msg[0], expected) || (!expected[0] && msg[0][0]))
    fprintf(stderr, "%s on one thread: got %d and '%s', expected %d and '%s'\n", name, err, msg[0],
            expected_err, expected);
  CHECK(err == expected_err && strstr(msg[0], expected) && (expected[0] || !msg[0][0]));
  for (int threads = 2; threads <= 3; threads++) {
    const int e = read_on(threads, path, &m[1], msg[1], sizeof msg[1]);
    if (e != err || strcmp(msg[0], msg[1]))
      fprintf(stderr, "%s on %d threads: got %d and '%s', on one %d and '%s'\n", name, threads, e,
              msg[1], err, msg[0]);
    CHECK(e == err && !strcmp(msg[0], msg[1]));
    if (m[0] && m[1]) check_same_mesh(m[0], m[1]);
    if (m[0]) check_incidence(m[0], threads);
    fe_mesh_destroy(m[1]);
    m[1] = NULL;
  }
  fe_mesh_destroy(m[0]);
  unlink(path);
}

/* Good meshes: 2D and 3D, and two pieces that touch (a warning, found through the hierarchy). */
static void test_good(const char *dir)
{
  struct msh g;
  square(&g, 300, 0, 0, 0); /* 180000 triangles */
  check_threads(dir, "square.msh", &g, FE_SUCCESS, "");
  msh_free(&g);
  cube(&g, 24); /* 82944 tetrahedra */
  check_threads(dir, "cube.msh", &g, FE_SUCCESS, "");
  msh_free(&g);
  square(&g, 300, 4, 0, 0);
  check_threads(dir, "touch.msh", &g, FE_SUCCESS,
                "that touch: 300 edges of one coincide with edges of another");
  msh_free(&g);
}

/* Meshes with several faults of one kind, spread over the mesh: the message of each names the
 * fault that a run on one thread names. */
static void test_first_fault(const char *dir)
{
  enum { N = 200, FAULTS = 7 };
  const int side = N + 1;
  struct msh g;
  square(&g, N, 0, 0, 0); /* nodes off the plane */
  for (int f = 0; f < FAULTS; f++)
    g.xyz[3 * ((f + 1) * N / (FAULTS + 1) * side + 10 * f) + 2] = 0.5;
  check_threads(dir, "tilted.msh", &g, FE_ERR_INPUT, "a 2D mesh must lie in a plane z = const");
  msh_free(&g);
  square(&g, N, 0, 0, 0); /* nodes not finite */
  for (int f = 0; f < FAULTS; f++)
    g.xyz[3 * ((f + 1) * N / (FAULTS + 1) * side + 10 * f)] = INFINITY;
  check_threads(dir, "infinite.msh", &g, FE_ERR_INPUT, "expected finite coordinates");
  msh_free(&g);
  square(&g, N, 0, 0, FAULTS); /* degenerate cells: three nodes of a row */
  for (int f = 0; f < FAULTS; f++) {
    const int a = (f + 1) * N / (FAULTS + 1) * side + 10 * f;
    add_cell(&g, (const int[]){a, a + 1, a + 2});
  }
  check_threads(dir, "degenerate.msh", &g, FE_ERR_INPUT, "is degenerate");
  msh_free(&g);
  square(&g, N, 0, 0, FAULTS); /* a third cell on edges inside */
  for (int f = 0; f < FAULTS; f++) {
    const int a = (f + 1) * N / (FAULTS + 1) * side + 10 * f + 5;
    add_cell(&g, (const int[]){a, a + 1, a + 1 + 3 * side});
  }
  check_threads(dir, "shared.msh", &g, FE_ERR_INPUT, "share one edge, so they overlap");
  msh_free(&g);
  square(&g, N, 0, 0, FAULTS); /* facets of a group on nodes of no cell */
  for (int f = 0; f < FAULTS; f++) {
    const int a = add_node(&g, 2 + f, 0, 0), b = add_node(&g, 2 + f, 1, 0);
    add_facet(&g, (const int[]){a, b}, 5);
  }
  check_threads(dir, "mixed.msh", &g, FE_ERR_INPUT, "mixed dimensions");
  msh_free(&g);
  square(&g, N, 0, 0, 0); /* nodes moved across their neighbours: folds */
  for (int f = 0; f < FAULTS; f++) {
    const int a = (f + 1) * N / (FAULTS + 1) * side + 20 * f + 30;
    g.xyz[3 * a] += 1.5 / N;
  }
  check_threads(dir, "folds.msh", &g, FE_ERR_INPUT, "is inverted");
  msh_free(&g);
  square(&g, N, 6, -0.5 / N, 0); /* a second piece over the first one's top row */
  check_threads(dir, "overlap.msh", &g, FE_ERR_INPUT,
                "overlap, and they lie in separate pieces of the mesh");
  msh_free(&g);
}

int main(void)
{
  const char *tmp = getenv("TMPDIR");
  char dir[256];
  snprintf(dir, sizeof dir, "%s/fesim-test-mesh-threads.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    perror(dir);
    return 1;
  }
  const int threads = omp_get_max_threads();
  size_t *ptr, *items; /* no buckets (a part without nodes): no items, and one offset */
  CHECK_OK(fe_buckets(0, NULL, 0, &ptr, &items));
  CHECK(ptr[0] == 0);
  free(ptr);
  free(items);
  test_good(dir);
  test_first_fault(dir);
  omp_set_num_threads(threads);
  remove_fresh(dir);
  TEST_DONE();
}
