/* io/mesh: every MSH format, .geo meshing, groups, facets, orientation,
 * RCM numbering and the rejection of bad meshes. */
#define _POSIX_C_SOURCE 200809L /* dup, dup2, fileno: the messages of bad meshes */
#include "io/mesh.h"

#include "core/error.h"
#include "fresh_dir.h"
#include "test.h"

#include <gmshc.h>
#include <locale.h>
#include <omp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char data_dir[4096];

static const char *data(const char *name)
{
  static char path[4352];
  snprintf(path, sizeof path, "%s/mesh/%s", data_dir, name);
  return name[0] == '/' ? name : path; /* a mesh this test wrote */
}

static struct fe_mesh *read_ok(const char *name, double size)
{
  struct fe_mesh *m = NULL;
  const struct fe_mesh_options mo = {.size = size};
  int err = fe_mesh_read(data(name), &mo, &m);
  if (err) fprintf(stderr, "reading %s failed with %d\n", name, err);
  CHECK(err == FE_SUCCESS && m);
  return err ? NULL : m;
}

static const double *node(const struct fe_mesh *m, int i) { return m->coords + (size_t)i * m->dim; }

static double cell_measure(const struct fe_mesh *m, int c)
{
  const int *v = m->cells + (size_t)c * m->nv;
  double e[3][3] = {{0}};
  for (int a = 1; a < m->nv; a++)
    for (int k = 0; k < m->dim; k++) e[a - 1][k] = node(m, v[a])[k] - node(m, v[0])[k];
  if (m->dim == 2) return 0.5 * (e[0][0] * e[1][1] - e[0][1] * e[1][0]);
  return (e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
          e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
          e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0])) /
         6;
}

static double facet_measure(const struct fe_mesh *m, int f)
{
  const int *v = m->facets + (size_t)f * m->dim;
  double a[3] = {0}, b[3] = {0};
  for (int k = 0; k < m->dim; k++) {
    a[k] = node(m, v[1])[k] - node(m, v[0])[k];
    if (m->dim == 3) b[k] = node(m, v[2])[k] - node(m, v[0])[k];
  }
  if (m->dim == 2) return sqrt(a[0] * a[0] + a[1] * a[1]);
  double n[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  return 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

static int bandwidth(const struct fe_mesh *m)
{
  int bw = 0;
  for (size_t k = 0; k < (size_t)m->n_cells * m->nv; k += m->nv)
    for (int a = 0; a < m->nv; a++)
      for (int b = 0; b < m->nv; b++) {
        int d = abs(m->cells[k + a] - m->cells[k + b]);
        bw = d > bw ? d : bw;
      }
  return bw;
}

/* The bandwidth of the cells in Gmsh's own node numbering. */
static int gmsh_bandwidth(const char *path, int type, int nv)
{
  int ierr = 0, bw = 0;
  size_t *tags, n_tags, *nodes, n_nodes;
  gmshInitialize(0, NULL, 0, &ierr);
  gmshOptionSetNumber("General.Terminal", 0, &ierr);
  gmshOpen(path, &ierr);
  gmshModelMeshGetElementsByType(type, &tags, &n_tags, &nodes, &n_nodes, -1, 0, 1, &ierr);
  for (size_t k = 0; k < n_nodes; k += nv)
    for (int a = 0; a < nv; a++)
      for (int b = 0; b < nv; b++) {
        long d = labs((long)nodes[k + a] - (long)nodes[k + b]);
        bw = d > bw ? (int)d : bw;
      }
  gmshFree(tags);
  gmshFree(nodes);
  gmshFinalize(&ierr);
  return bw;
}

/* Checks shared by every good mesh: measure 1, positive cells, every node
 * used, cells sorted by smallest node, facets of each boundary group. */
static void check_mesh(const struct fe_mesh *m, int dim, const char *const *bnd, int region)
{
  CHECK(m->dim == dim && m->nv == dim + 1);
  double total = 0, min = INFINITY;
  int positive = 1, sorted = 1, prev = 0, all_region = 1;
  char *used = calloc((size_t)m->n_nodes, 1);
  for (int c = 0; c < m->n_cells; c++) {
    double s = cell_measure(m, c);
    total += s;
    min = s < min ? s : min;
    positive &= s > 0;
    int lo = m->n_nodes;
    for (int v = 0; v < m->nv; v++) {
      int i = m->cells[(size_t)c * m->nv + v];
      CHECK(i >= 0 && i < m->n_nodes);
      if (i < 0 || i >= m->n_nodes) {
        free(used);
        return;
      }
      used[i] = 1;
      lo = i < lo ? i : lo;
    }
    sorted &= lo >= prev;
    prev = lo;
    all_region &= m->cell_region[c] == region;
    CHECK(m->cell_id[c] > 0);
  }
  int all_used = 1;
  for (int i = 0; i < m->n_nodes; i++) all_used &= used[i];
  free(used);
  CHECK_CLOSE(total, 1.0, 1e-12);
  CHECK(positive);
  CHECK(sorted);
  CHECK(all_used);
  CHECK(all_region);

  const struct fe_physical *g = fe_mesh_find_group(m, dim, "10");
  CHECK(g && g->tag == region && g->dim == dim);
  CHECK(g && fe_mesh_find_group(m, dim, g->name) == g);
  CHECK(!fe_mesh_find_group(m, dim - 1, "10"));
  CHECK(!fe_mesh_find_group(m, dim, "nowhere"));
  CHECK(!fe_mesh_find_group(m, dim, "10x"));
  CHECK(m->n_groups == 2 * dim + 1);
  for (int b = 0; b < 2 * dim; b++) {
    char num[16];
    snprintf(num, sizeof num, "%d", b + 1);
    g = fe_mesh_find_group(m, dim - 1, bnd[b]);
    CHECK(g && g->tag == b + 1 && !strcmp(g->name, bnd[b]));
    CHECK(g && fe_mesh_find_group(m, dim - 1, num) == g);
    /* bnd[b] is the face x_{b/2} = b % 2 */
    double len = 0;
    int n = 0, on_face = 1;
    for (int f = 0; f < m->n_facets; f++) {
      if (m->facet_group[f] != b + 1) continue;
      len += facet_measure(m, f);
      n++;
      for (int v = 0; v < dim; v++)
        on_face &= node(m, m->facets[(size_t)f * dim + v])[b / 2] == (double)(b % 2);
    }
    CHECK(n > 0);
    CHECK(on_face);
    CHECK_CLOSE(len, 1.0, 1e-12);
  }
}

static const char *const square_bnd[] = {"left", "right", "bottom", "top"};
static const char *const cube_bnd[] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};

static void test_formats(const char *base, int dim, const char *const *bnd)
{
  static const char *const fmt[] = {"22", "22b", "41", "41b"};
  struct fe_mesh *first = NULL;
  for (int i = 0; i < 4; i++) {
    char name[64];
    snprintf(name, sizeof name, "%s_%s.msh", base, fmt[i]);
    struct fe_mesh *m = read_ok(name, 0);
    if (!m) continue;
    check_mesh(m, dim, bnd, 10);
    if (!first) {
      first = m;
      continue;
    }
    CHECK(m->n_nodes == first->n_nodes);
    CHECK(m->n_cells == first->n_cells);
    CHECK(m->n_facets == first->n_facets);
    fe_mesh_destroy(m);
  }
  if (!first) return;
  CHECK(first->n_cells > 100 && first->n_cells < 1000);
  int bw = bandwidth(first);
  char name[64];
  snprintf(name, sizeof name, "%s_41.msh", base);
  int gmsh_bw = gmsh_bandwidth(data(name), dim == 2 ? 2 : 4, dim + 1);
  printf("%s: %d nodes, %d cells, bandwidth %d (Gmsh order %d)\n", base, first->n_nodes,
         first->n_cells, bw, gmsh_bw);
  CHECK(bw < first->n_nodes / 2);
  CHECK(bw < gmsh_bw);
  fe_mesh_destroy(first);
}

/* Half of the cells negatively oriented in the file: all positive after reading.
 * Sparse node tags (up to ~1.4e7 for 142 nodes) give the same mesh. */
static void test_flipped_sparse(void)
{
  struct fe_mesh *a = read_ok("square_22.msh", 0), *b = read_ok("square_sparse.msh", 0);
  if (b) check_mesh(b, 2, square_bnd, 10);
  if (a && b) {
    CHECK(a->n_nodes == b->n_nodes && a->n_cells == b->n_cells);
    CHECK(!memcmp(a->cells, b->cells, sizeof(int) * 3 * a->n_cells));
    CHECK(!memcmp(a->coords, b->coords, sizeof(double) * 2 * a->n_nodes));
  }
  fe_mesh_destroy(a);
  fe_mesh_destroy(b);
  struct fe_mesh *m = read_ok("square_flip.msh", 0);
  if (m) check_mesh(m, 2, square_bnd, 10);
  fe_mesh_destroy(m);
  m = read_ok("cube_flip.msh", 0);
  if (m) check_mesh(m, 3, cube_bnd, 10);
  fe_mesh_destroy(m);
}

/* fe_mesh_read with stderr captured in msg: the error code, the mesh in *m. */
static int read_captured(const char *name, struct fe_mesh **m, char *msg, size_t size)
{
  FILE *tmp = tmpfile();
  msg[0] = '\0';
  if (!tmp) {
    CHECK(tmp);
    return -1;
  }
  fflush(stderr);
  int saved = dup(fileno(stderr));
  dup2(fileno(tmp), fileno(stderr));
  int err = fe_mesh_read(data(name), NULL, m);
  fflush(stderr);
  dup2(saved, fileno(stderr));
  close(saved);
  rewind(tmp);
  size_t n = fread(msg, 1, size - 1, tmp);
  msg[n] = '\0';
  fclose(tmp);
  return err;
}

/* fe_mesh_read of a bad mesh: FE_ERR_INPUT, no mesh, and its one message
 * (stderr captured) in msg. */
static void read_bad(const char *name, char *msg, size_t size)
{
  struct fe_mesh *m = (struct fe_mesh *)1;
  int err = read_captured(name, &m, msg, size);
  if (err != FE_ERR_INPUT) fprintf(stderr, "%s: got %d, expected %d\n", name, err, FE_ERR_INPUT);
  CHECK(err == FE_ERR_INPUT);
  CHECK(m == NULL);
}

/* fe_mesh_read of a mesh that is read with one warning containing `expected`
 * (NULL: with no message at all). */
static struct fe_mesh *read_warned(const char *name, const char *expected)
{
  char msg[2048], head[64];
  struct fe_mesh *m = NULL;
  int err = read_captured(name, &m, msg, sizeof msg);
  if (err || (expected ? !strstr(msg, expected) : msg[0] != '\0'))
    fprintf(stderr, "%s: got %d and\n  %s  expected 0 and %s\n", name, err, msg,
            expected ? expected : "no message");
  CHECK(err == FE_SUCCESS && m);
  CHECK(expected ? strstr(msg, expected) != NULL : !msg[0]);
  if (expected) {
    snprintf(head, sizeof head, "fesim: warning: ");
    CHECK(!strncmp(msg, head, strlen(head)) && strstr(msg, data(name)) == msg + strlen(head));
    CHECK(!strchr(msg, '\n') || !strchr(msg, '\n')[1]); /* one line */
  }
  return m;
}

static void check_message(const char *name, const char *expected)
{
  char msg[2048];
  read_bad(name, msg, sizeof msg);
  if (!strstr(msg, expected))
    fprintf(stderr, "%s: message\n  %s  does not contain\n  %s\n", name, msg, expected);
  CHECK(strstr(msg, expected) != NULL);
  CHECK(strstr(msg, data(name)) == msg + strlen("fesim: error: ")); /* names the file first */
}

/* Vertex order is a convention: grid8 has a clockwise surface, kuhn every
 * second tetrahedron negative; both are valid.  A cell folded over its
 * neighbour is inverted, named by its Gmsh element tag and entity. */
static void test_inverted(void)
{
  struct fe_mesh *m = read_ok("grid8.msh", 0);
  if (m) {
    check_mesh(m, 2, square_bnd, 10);
    CHECK(m->n_cells == 8 && m->n_nodes == 9);
  }
  fe_mesh_destroy(m);
  m = read_ok("kuhn.msh", 0);
  if (m) {
    check_mesh(m, 3, cube_bnd, 10);
    CHECK(m->n_cells == 6 && m->n_nodes == 8);
  }
  fe_mesh_destroy(m);
  check_message("fold.msh",
                ": element 18 (triangle of surface 2) is inverted: it and element 17 "
                "lie on the same side of their shared edge, so they overlap; 1 of the 8 "
                "triangles is inverted; expected cells that do not overlap");
  check_message("fold2.msh", ": element 16 (triangle of surface 2) is inverted: it and element 11 "
                             "lie on the same side of their shared edge, so they overlap; 2 of the "
                             "8 triangles are inverted");
  check_message("fold_3d.msh",
                ": element 13 (tetrahedron of volume 1) is inverted: it and element "
                "14 lie on the same side of their shared face, so they overlap; 1 of "
                "the 6 tetrahedra is inverted");
  check_message("overlap.msh", ": elements 17, 18 and 19 share one edge, so they overlap; expected "
                               "at most two cells on each edge");
}

/* A node tag given twice (Gmsh keeps one copy): at the same coordinates a
 * warning, elsewhere an error with both places, and an error when the file
 * cannot be read for the coordinates. */
static void test_duplicate_nodes(void)
{
  struct fe_mesh *m = read_warned("dup_same_22.msh", ": node 5 is given twice, at the same "
                                                     "coordinates (0.5, 0.5, 0) (and so is 1 other "
                                                     "node tag); the copies are read as one node");
  if (m) check_mesh(m, 2, square_bnd, 10);
  fe_mesh_destroy(m);
  m = read_warned("dup_same_41.msh", ": node 5 is given twice, at the same coordinates (0.5, 0.5, "
                                     "0); the copies are read as one node");
  if (m) check_mesh(m, 2, square_bnd, 10);
  fe_mesh_destroy(m);
  check_message("dup_diff_22.msh",
                ": node 5 is given twice, at (0.5, 0.5, 0) and at (0.7, 0.5, "
                "0); expected each node tag once (Gmsh would keep one of the two)");
  check_message("dup_diff_41.msh", ": node 5 is given twice, at (0.5, 0.5, 0) and at (0.5, "
                                   "0.5000001, 0); expected each node tag once");
  check_message("dup_binary_22.msh", ": node 5 is given twice, and fesim could not compare the "
                                     "coordinates of the copies (it is a binary file); expected "
                                     "each node tag once");
}

/* A physical name given to two groups of one dimension: both keep it (also
 * from MSH 2, whose reader in Gmsh drops the second), with a warning. */
static void test_shared_names(void)
{
  struct fe_mesh *m =
      read_warned("names_shared.msh", ": the physical name 'wall' is given to 2 "
                                      "groups of curves, 1 and 4: refer to them by "
                                      "number (a <boundary> that names them by this "
                                      "name is refused)");
  if (m) {
    const struct fe_physical *g[4];
    CHECK(fe_mesh_groups_named(m, 1, "wall", g, 4) == 2);
    CHECK(g[0]->tag == 1 && g[1]->tag == 4);
    CHECK(fe_mesh_groups_named(m, 1, "right", g, 4) == 1 && g[0]->tag == 2);
    CHECK(fe_mesh_groups_named(m, 2, "wall", g, 4) == 0);
    CHECK(fe_mesh_groups_named(m, 1, "", g, 4) == 0);
    CHECK(fe_mesh_find_group(m, 1, "4") && fe_mesh_find_group(m, 1, "4")->tag == 4);
  }
  fe_mesh_destroy(m);
  m = read_warned("names_shared_region.msh",
                  ": the physical name 'domain' is given to 2 groups of "
                  "surfaces, 10 and 11; fesim tells them apart by number");
  fe_mesh_destroy(m);
}

/* facet_cells: 1 for the facets of a group on the boundary, 2 inside the
 * domain, 0 on no cell; facet_id the Gmsh element tags. */
static void check_facet_cells(const char *name, const int *expected, int n_groups)
{
  struct fe_mesh *m = read_ok(name, 0);
  if (!m) return;
  CHECK(m->facet_cells && m->facet_id);
  for (int f = 0; m->facet_cells && f < m->n_facets; f++) {
    const int g = m->facet_group[f];
    CHECK(g >= 1 && g <= n_groups);
    if (g >= 1 && g <= n_groups && m->facet_cells[f] != expected[g - 1])
      fprintf(stderr, "%s: element %zu of group %d: %d cells, expected %d\n", name, m->facet_id[f],
              g, m->facet_cells[f], expected[g - 1]);
    CHECK(g < 1 || g > n_groups || m->facet_cells[f] == expected[g - 1]);
    CHECK(m->facet_id[f] > 0);
  }
  fe_mesh_destroy(m);
}

static void test_facet_cells(void)
{
  static const int internal[] = {1, 1, 1, 1, 2, 0}, internal_3d[] = {2, 0}, square[] = {1, 1, 1, 1};
  check_facet_cells("internal.msh", internal, 6);
  check_facet_cells("internal_3d.msh", internal_3d, 2);
  check_facet_cells("square_41.msh", square, 4);
  check_facet_cells("cube_22b.msh", (const int[]){1, 1, 1, 1, 1, 1}, 6);
}

/* Pieces of a mesh that share no facet: overlapping an error, touching on
 * nodes of their own a warning, apart (also nested, or sharing a node) fine. */
static void test_pieces(void)
{
  check_message("pieces_overlap.msh",
                ": element 10 (triangle of surface 1) and element 13 (triangle of surface 2) "
                "overlap, and they lie in separate pieces of the mesh (pieces that share no edge; "
                "the mesh has 2); expected pieces that do not overlap");
  check_message("pieces_overlap_3d.msh",
                ": element 6 (tetrahedron of volume 1) and element 12 (tetrahedron of volume 2) "
                "overlap, and they lie in separate pieces of the mesh (pieces that share no face; "
                "the mesh has 2)");
  const char *touch = "lie in separate pieces of the mesh (pieces that share no %s) that touch: 2 "
                      "%ss of one coincide with %ss of another, on nodes of their own (a forgotten "
                      "Coherence?); a tracer cannot cross from one piece to the other";
  char expected[512];
  snprintf(expected, sizeof expected, touch, "edge", "edge", "edge");
  struct fe_mesh *m = read_warned("pieces_touch.msh", expected);
  CHECK(m && m->n_cells == 16 && m->n_nodes == 18);
  fe_mesh_destroy(m);
  snprintf(expected, sizeof expected, touch, "face", "face", "face");
  m = read_warned("pieces_touch_3d.msh", expected);
  CHECK(m && m->n_cells == 12 && m->n_nodes == 16);
  fe_mesh_destroy(m);
  static const char *const fine[] = {"pieces_apart.msh", "pieces_nested.msh", "pieces_vertex.msh"};
  for (int i = 0; i < 3; i++) fe_mesh_destroy(read_warned(fine[i], NULL));
}

/* Writes a MSH 2.2 mesh of the n triangles tri (3 node indices each) on the
 * nodes xyz (x y each) into path. */
static void write_triangles(const char *path, const double *xyz, int n_nodes, const int *tri, int n)
{
  FILE *f = fopen(path, "w");
  CHECK(f);
  if (!f) return;
  fprintf(f, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%d\n", n_nodes);
  for (int i = 0; i < n_nodes; i++)
    fprintf(f, "%d %.17g %.17g 0\n", i + 1, xyz[2 * i], xyz[2 * i + 1]);
  fprintf(f, "$EndNodes\n$Elements\n%d\n", n);
  for (int e = 0; e < n; e++)
    fprintf(f, "%d 2 2 10 1 %d %d %d\n", e + 1, tri[3 * e] + 1, tri[3 * e + 1] + 1,
            tri[3 * e + 2] + 1);
  fprintf(f, "$EndElements\n");
  fclose(f);
}

/* n unit squares in a row, each two triangles on nodes of their own: 2n
 * pieces touching along the diagonals; apart: the upper triangles moved up
 * by 1.5; overlap: the last upper triangle moved onto its lower one. */
static void write_squares(const char *path, int n, int apart, int overlap)
{
  double *xyz = malloc(12 * (size_t)n * sizeof *xyz);
  int *tri = malloc(6 * (size_t)n * sizeof *tri);
  if (!xyz || !tri) abort();
  for (int i = 0; i < n; i++) {
    const double lift = apart ? 1.5 : 0, shift = overlap && i == n - 1 ? -0.5 : 0;
    const double p[6][2] = {{2 * i, 0},
                            {2 * i + 1, 0},
                            {2 * i + 1, 1},
                            {2 * i, lift + shift},
                            {2 * i + 1, 1 + lift + shift},
                            {2 * i, 1 + lift + shift}};
    for (int k = 0; k < 6; k++) {
      xyz[2 * (6 * i + k)] = p[k][0];
      xyz[2 * (6 * i + k) + 1] = p[k][1];
      tri[6 * i + k] = 6 * i + k;
    }
  }
  write_triangles(path, xyz, 6 * n, tri, 2 * n);
  free(xyz);
  free(tri);
}

/* A strip of n unit squares (one piece) and a tooth above each, on nodes
 * of its own: each tooth touches the strip, whose box meets all n teeth,
 * and its neighbours (n + n - 1 coincident edges). */
static void write_comb(const char *path, int n)
{
  double *xyz = malloc(2 * (6 * (size_t)n + 2) * sizeof *xyz);
  int *tri = malloc(12 * (size_t)n * sizeof *tri), t = 0;
  if (!xyz || !tri) abort();
  static const int split[6] = {0, 1, 2, 0, 2, 3}; /* a square a b c d in two triangles */
  for (int i = 0; i <= n; i++) {                  /* strip: node 2i at (i, 0), 2i + 1 at (i, 1) */
    const double p[4] = {i, 0, i, 1};
    memcpy(xyz + 4 * i, p, sizeof p);
  }
  for (int i = 0; i < n; i++) {
    const int strip[4] = {2 * i, 2 * i + 2, 2 * i + 3, 2 * i + 1};
    const int q = 2 * (n + 1) + 4 * i; /* tooth: (i, 1) (i + 1, 1) (i + 1, 2) (i, 2) */
    const double p[8] = {i, 1, i + 1, 1, i + 1, 2, i, 2};
    memcpy(xyz + 2 * q, p, sizeof p);
    for (int k = 0; k < 6; k++) tri[t++] = strip[split[k]];
    for (int k = 0; k < 6; k++) tri[t++] = q + split[k];
  }
  write_triangles(path, xyz, 2 * (n + 1) + 4 * n, tri, 4 * n);
  free(xyz);
  free(tri);
}

/* Pieces beyond the shortcuts of the check: more pieces than get boxes
 * (4096), and a piece whose box meets more than 16 others. */
static void test_many_pieces(void)
{
  const char *tmp = getenv("TMPDIR");
  char dir[200], path[300], msg[2048];
  snprintf(dir, sizeof dir, "%s/fesim-test-mesh.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    CHECK(0);
    return;
  }
  snprintf(path, sizeof path, "%s/pieces.msh", dir);
  write_squares(path, 2100, 1, 0); /* 4200 pieces, apart */
  fe_mesh_destroy(read_warned(path, NULL));
  write_squares(path, 2100, 0, 0); /* touching along the 2100 diagonals */
  fe_mesh_destroy(
      read_warned(path, "that touch: 2100 edges of one coincide with edges of another"));
  write_squares(path, 2100, 0, 1);
  read_bad(path, msg, sizeof msg);
  CHECK(strstr(msg, ": element 4199 (triangle of surface 1) and element 4200 (triangle of surface "
                    "1) overlap, and they lie in separate pieces of the mesh (pieces that share no "
                    "edge; the mesh has 4200)"));
  write_comb(path, 40);
  fe_mesh_destroy(read_warned(path, "that touch: 79 edges of one coincide with edges of another"));
  remove_fresh(dir);
}

/* What each bad mesh's message says, beyond the file it names. */
static void test_messages(void)
{
  check_message("garbage.msh", ": not a Gmsh mesh: it starts with 'this is not a mesh', expected "
                               "'$MeshFormat'");
  check_message("empty.msh", ": empty file; expected a Gmsh mesh");
  check_message("truncated.msh", ": Gmsh could not read it (Could not read nodes); expected a "
                                 "complete Gmsh mesh (format 2.2 or 4.1, ASCII or binary)");
  check_message("quad.msh", ": element 41 is a 'Quadrilateral 4'; fesim reads only 3-node "
                            "triangles ('Triangle 3')");
  check_message("order2.msh", ": element 41 is a 'Triangle 6'; fesim reads only 3-node triangles");
  check_message("lines.msh", ": the mesh has no cells: its highest element dimension is 1, "
                             "expected triangles (2D) or tetrahedra (3D)");
  check_message("mixed.msh", ": mixed dimensions: element 1 of physical group 1 is not a face of "
                             "the tetrahedra (its node 12 belongs to no tetrahedron)");
  check_message("degenerate.msh", ": element 41 (triangle of surface 1) is degenerate: its area is "
                                  "0 (longest edge 1); expected cells of non-zero area");
  check_message("tilted.msh", ": a 2D mesh must lie in a plane z = const");
  check_message("bad.geo", ": Gmsh could not read it (");
}

static void test_geo(void)
{
  struct fe_mesh *coarse = read_ok("square.geo", 0.1);
  struct fe_mesh *fine = read_ok("square.geo", 0.05);
  if (coarse && fine) {
    check_mesh(coarse, 2, square_bnd, 10);
    check_mesh(fine, 2, square_bnd, 10);
    double ratio = (double)fine->n_cells / coarse->n_cells;
    printf("square.geo: %d cells at size 0.1, %d at 0.05 (ratio %.2f)\n", coarse->n_cells,
           fine->n_cells, ratio);
    CHECK(ratio > 3.2 && ratio < 4.8);
  }
  fe_mesh_destroy(coarse);
  fe_mesh_destroy(fine);

  /* A finer mesh: the RCM bandwidth grows like sqrt(n) on a square. */
  struct fe_mesh *m = read_ok("square.geo", 0.01);
  if (m) {
    int bw = bandwidth(m);
    printf("square.geo size 0.01: %d nodes, bandwidth %d\n", m->n_nodes, bw);
    CHECK(m->n_nodes > 10000);
    CHECK(bw < 3 * sqrt((double)m->n_nodes));
  }
  fe_mesh_destroy(m);

  m = read_ok("cube.geo", 0);
  if (m) check_mesh(m, 3, cube_bnd, 10);
  fe_mesh_destroy(m);
}

static void test_bad(void)
{
  static const char *const bad[] = {
      "garbage.msh",
      "empty.msh",
      "truncated.msh",
      "quad.msh",
      "order2.msh",
      "tilted.msh",
      "mixed.msh",
      "lines.msh",
      "degenerate.msh",
      "bad.geo",
      "missing.msh",
      "missing.geo",
      "square.vtk",
      "square",
      "fold.msh",
      "fold2.msh",
      "fold_3d.msh",
      "overlap.msh",
      "dup_diff_22.msh",
      "dup_diff_41.msh",
      "dup_binary_22.msh",
      "pieces_overlap.msh",
      "pieces_overlap_3d.msh",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    struct fe_mesh *m = (struct fe_mesh *)1;
    int err = fe_mesh_read(data(bad[i]), NULL, &m);
    if (err != FE_ERR_INPUT)
      fprintf(stderr, "%s: got %d, expected %d\n", bad[i], err, FE_ERR_INPUT);
    CHECK(err == FE_ERR_INPUT);
    CHECK(m == NULL);
  }
  /* A .geo with a syntax error must not spoil the next one. */
  struct fe_mesh *m = read_ok("square.geo", 0);
  CHECK(m && m->n_cells > 100);
  fe_mesh_destroy(m);
}

/* Reading and meshing leave this process as they found it: Gmsh runs in the
 * meshing process, so its omp_set_num_threads(1), its locale and its signal
 * handlers stay there (issue 10: every CPU run had used one thread). */
static void test_process_state(void)
{
  static const int signals[] = {SIGINT, SIGTERM, SIGSEGV, SIGFPE, SIGABRT, SIGPIPE, SIGCHLD};
  enum { N_SIGNALS = sizeof signals / sizeof *signals };
  omp_set_num_threads(3);
  setlocale(LC_ALL, "C");
  char locale_before[256];
  snprintf(locale_before, sizeof locale_before, "%s", setlocale(LC_ALL, NULL));
  struct sigaction before[N_SIGNALS], after;
  for (int i = 0; i < N_SIGNALS; i++) sigaction(signals[i], NULL, &before[i]);
  struct fe_mesh *m = read_ok("square.geo", 0.1);
  fe_mesh_destroy(m);
  m = read_ok("cube_22.msh", 0);
  fe_mesh_destroy(m);
  CHECK(omp_get_max_threads() == 3);
  CHECK(!strcmp(setlocale(LC_ALL, NULL), locale_before));
  for (int i = 0; i < N_SIGNALS; i++) {
    sigaction(signals[i], NULL, &after);
    CHECK(after.sa_handler == before[i].sa_handler && after.sa_flags == before[i].sa_flags);
  }
}

int main(void)
{
  const char *dir = getenv("FESIM_TEST_DATA");
  if (!dir) {
    fprintf(stderr, "FESIM_TEST_DATA is not set\n");
    return TEST_SKIP;
  }
  snprintf(data_dir, sizeof data_dir, "%s", dir);
  test_process_state(); /* first: gmsh_bandwidth below runs Gmsh in this process */
  test_formats("square", 2, square_bnd);
  test_formats("cube", 3, cube_bnd);
  test_flipped_sparse();
  test_inverted();
  test_duplicate_nodes();
  test_shared_names();
  test_facet_cells();
  test_pieces();
  test_many_pieces();
  test_messages();
  test_geo();
  test_bad();
  fe_mesh_destroy(NULL);
  TEST_DONE();
}
