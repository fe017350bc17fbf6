/* The legacy VTK writer: exact file sizes and big-endian values read back byte by byte, the
 * .vtk.series index, and failures (missing directory, rename onto a directory, full disk) that
 * must report FE_ERR_RESOURCE and leave no temporary file.
 *
 * Usage: test_vtk [DIR].  The dumps stay in DIR (default: a fresh directory here) for
 * tests/tools/check_vtk.py and tests/tools/check_paraview.py, which read them with VTK and ParaView:
 * tri, tet (hand-made meshes), grid2d and grid3d (structured grids with a moving Gaussian, large
 * enough to cross the writer's conversion buffer). */
#include "io/outdir.h"
#include "io/vtk.h"

#include "core/error.h"
#include "fresh_dir.h"
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The writer takes whole paths; the tests name dumps by directory, case and index. */
static void vtk_path(char *buf, size_t size, const char *dir, const char *name, long index)
{
  char *p = NULL;
  CHECK_OK(fe_vtk_path(dir, name, index, &p));
  snprintf(buf, size, "%s", p ? p : "");
  free(p);
}

static int write_dump(const char *dir, const char *name, long index, double time,
                      const struct fe_mesh *m, int n_fields, const struct fe_vtk_field *fields)
{
  char path[512];
  vtk_path(path, sizeof path, dir, name, index);
  return fe_vtk_write(path, time, m, n_fields, fields);
}

static int write_series(const char *dir, const char *name, long n, const double *times)
{
  char path[512];
  snprintf(path, sizeof path, "%s/%s.vtk.series", dir, name);
  return fe_vtk_write_series(path, name, n, times);
}

enum { GRID2D_N = 220, GRID3D_N = 24 };

static double get_be64(const unsigned char *p)
{
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = v << 8 | p[i];
  double d;
  memcpy(&d, &v, sizeof d);
  return d;
}

static int32_t get_be32(const unsigned char *p)
{
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v = v << 8 | p[i];
  return (int32_t)v;
}

static unsigned char *read_all(const char *path, size_t *size)
{
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  rewind(f);
  unsigned char *buf = malloc(*size + 1);
  if (buf && fread(buf, 1, *size, f) != *size) {
    free(buf);
    buf = NULL;
  }
  if (buf) buf[*size] = 0;
  fclose(f);
  return buf;
}

/* The size the format defines: header lines, binary blocks, one newline after each block. */
static size_t expected_size(const struct fe_mesh *m, double time, int n_fields,
                            const struct fe_vtk_field *fields)
{
  size_t n = (size_t)m->n_nodes, nc = (size_t)m->n_cells;
  size_t size = (size_t)snprintf(NULL, 0,
                                 "# vtk DataFile Version 3.0\nfesim time %.17g\nBINARY\n"
                                 "DATASET UNSTRUCTURED_GRID\nFIELD FieldData 1\nTIME 1 1 double\n",
                                 time) +
                8 + 1;
  size += (size_t)snprintf(NULL, 0, "POINTS %d double\n", m->n_nodes) + 24 * n + 1;
  size += (size_t)snprintf(NULL, 0, "CELLS %d %d\n", m->n_cells, m->n_cells * (m->nv + 1)) +
          4 * nc * (size_t)(m->nv + 1) + 1;
  size += (size_t)snprintf(NULL, 0, "CELL_TYPES %d\n", m->n_cells) + 4 * nc + 1;
  size += (size_t)snprintf(NULL, 0, "POINT_DATA %d\n", m->n_nodes);
  for (int i = 0; i < n_fields; i++) {
    if (fields[i].components == 1)
      size +=
          strlen("SCALARS  double 1\nLOOKUP_TABLE default\n") + strlen(fields[i].name) + 8 * n + 1;
    else
      size += strlen("VECTORS  double\n") + strlen(fields[i].name) + 24 * n + 1;
  }
  size += (size_t)snprintf(NULL, 0, "CELL_DATA %d\nSCALARS region int 1\nLOOKUP_TABLE default\n",
                           m->n_cells) +
          4 * nc + 1;
  return size;
}

/* Offset just after `line`, searched from *pos; -1 when absent. */
static long after_line(const unsigned char *buf, size_t size, size_t *pos, const char *line)
{
  size_t len = strlen(line);
  for (size_t i = *pos; i + len <= size; i++)
    if (memcmp(buf + i, line, len) == 0) return (long)(*pos = i + len);
  return -1;
}

/* Every value of the dump, read back as big-endian, against the mesh and fields written. */
static void check_dump(const char *dir, const char *name, int index, double time,
                       const struct fe_mesh *m, int n_fields, const struct fe_vtk_field *fields)
{
  char path[512], line[256];
  vtk_path(path, sizeof path, dir, name, index);
  size_t size = 0, pos = 0;
  unsigned char *buf = read_all(path, &size);
  CHECK(buf != NULL);
  if (!buf) return;
  CHECK(size == expected_size(m, time, n_fields, fields));
  snprintf(line, sizeof line, "# vtk DataFile Version 3.0\nfesim time %.17g\nBINARY\n", time);
  CHECK(memcmp(buf, line, strlen(line)) == 0);
  long at = after_line(buf, size, &pos, "TIME 1 1 double\n");
  CHECK(at > 0 && get_be64(buf + at) == time);

  snprintf(line, sizeof line, "\nPOINTS %d double\n", m->n_nodes);
  at = after_line(buf, size, &pos, line);
  CHECK(at > 0);
  int bad = at <= 0;
  for (int i = 0; at > 0 && i < m->n_nodes; i++)
    for (int c = 0; c < 3; c++) {
      double want = c < m->dim ? m->coords[i * m->dim + c] : 0.0;
      bad += get_be64(buf + at + 24 * i + 8 * c) != want;
    }
  CHECK(bad == 0);

  snprintf(line, sizeof line, "\nCELLS %d %d\n", m->n_cells, m->n_cells * (m->nv + 1));
  at = after_line(buf, size, &pos, line);
  bad = at <= 0;
  for (int e = 0; at > 0 && e < m->n_cells; e++) {
    const unsigned char *p = buf + at + 4 * (size_t)e * (m->nv + 1);
    bad += get_be32(p) != m->nv;
    for (int k = 0; k < m->nv; k++) bad += get_be32(p + 4 + 4 * k) != m->cells[e * m->nv + k];
  }
  CHECK(bad == 0);

  snprintf(line, sizeof line, "\nCELL_TYPES %d\n", m->n_cells);
  at = after_line(buf, size, &pos, line);
  bad = at <= 0;
  for (int e = 0; at > 0 && e < m->n_cells; e++)
    bad += get_be32(buf + at + 4 * e) != (m->dim == 2 ? 5 : 10);
  CHECK(bad == 0);

  snprintf(line, sizeof line, "\nPOINT_DATA %d\n", m->n_nodes);
  CHECK(after_line(buf, size, &pos, line) > 0);
  for (int f = 0; f < n_fields; f++) {
    const struct fe_vtk_field *fd = &fields[f];
    if (fd->components == 1)
      snprintf(line, sizeof line, "SCALARS %s double 1\nLOOKUP_TABLE default\n", fd->name);
    else
      snprintf(line, sizeof line, "VECTORS %s double\n", fd->name);
    at = after_line(buf, size, &pos, line);
    bad = at <= 0;
    for (int i = 0; at > 0 && i < m->n_nodes; i++)
      for (int c = 0; c < fd->components; c++) {
        double want = c < fd->components_in ? fd->values[i * fd->components_in + c] : 0.0;
        bad += get_be64(buf + at + 8 * ((size_t)i * fd->components + c)) != want;
      }
    CHECK(bad == 0);
  }

  snprintf(line, sizeof line, "\nCELL_DATA %d\nSCALARS region int 1\nLOOKUP_TABLE default\n",
           m->n_cells);
  at = after_line(buf, size, &pos, line);
  bad = at <= 0;
  for (int e = 0; at > 0 && e < m->n_cells; e++)
    bad += get_be32(buf + at + 4 * e) != m->cell_region[e];
  CHECK(bad == 0);
  CHECK(at > 0 && (size_t)at + 4 * (size_t)m->n_cells + 1 == size && buf[size - 1] == '\n');
  free(buf);
}

static void check_series_text(const char *dir, const char *name, const char *want)
{
  char path[512];
  snprintf(path, sizeof path, "%s/%s.vtk.series", dir, name);
  size_t size = 0;
  char *text = (char *)read_all(path, &size);
  CHECK(text && strcmp(text, want) == 0);
  if (text && strcmp(text, want) != 0)
    fprintf(stderr, "%s:\n%s\nexpected:\n%s\n", path, text, want);
  free(text);
}

static void test_triangles(const char *dir)
{
  double coords[] = {0, 0, 1, 0, 1, 1, 0, 1};
  int cells[] = {0, 1, 2, 0, 2, 3};
  int region[] = {1, 7};
  struct fe_mesh m = {.dim = 2,
                      .nv = 3,
                      .n_nodes = 4,
                      .n_cells = 2,
                      .coords = coords,
                      .cells = cells,
                      .cell_region = region};
  double tracer[4], velocity[8];
  double times[] = {0, 0.1, 0.1 + 0.2};
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < 4; i++) {
      tracer[i] = coords[2 * i] + 2 * coords[2 * i + 1] + times[k] + 1.0 / 3;
      velocity[2 * i] = -coords[2 * i + 1] + 0.5;
      velocity[2 * i + 1] = coords[2 * i] - 1e-300 * k;
    }
    struct fe_vtk_field fields[] = {{"tracer", 1, tracer, 1}, {"velocity", 3, velocity, 2}};
    CHECK_OK(write_dump(dir, "tri", k, times[k], &m, 2, fields));
    check_dump(dir, "tri", k, times[k], &m, 2, fields);
  }
  CHECK_OK(write_series(dir, "tri", 3, times));
  check_series_text(dir, "tri",
                    "{\n  \"file-series-version\": \"1.0\",\n  \"files\": [\n"
                    "    { \"name\": \"tri_000000.vtk\", \"time\": 0 },\n"
                    "    { \"name\": \"tri_000001.vtk\", \"time\": 0.10000000000000001 },\n"
                    "    { \"name\": \"tri_000002.vtk\", \"time\": 0.30000000000000004 }\n"
                    "  ]\n}\n");

  /* Hand-computed offsets of the first dump, independent of check_dump's search. */
  char path[512];
  vtk_path(path, sizeof path, dir, "tri", 0);
  size_t size = 0;
  unsigned char *buf = read_all(path, &size);
  CHECK(buf && size == 569);
  if (buf && size == 569) {
    /* 107 header bytes + 8 (time) + "\nPOINTS 4 double\n" (17): points start at 132 */
    CHECK(get_be64(buf + 132 + 24 * 2) == 1.0 && get_be64(buf + 132 + 24 * 2 + 16) == 0.0);
    CHECK(buf[132 + 24 * 2] == 0x3f && buf[132 + 24 * 2 + 1] == 0xf0); /* 1.0 is 3ff0... */
    /* + 96 + "\nCELLS 2 8\n" (11): cells at 239 */
    CHECK(get_be32(buf + 239) == 3 && get_be32(buf + 239 + 16 + 12) == 3);
    CHECK(buf[239 + 3] == 3 && buf[239] == 0);
  }
  free(buf);
}

static void test_tetrahedra(const char *dir)
{
  double coords[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
  int cells[] = {0, 1, 2, 3, 1, 2, 3, 4};
  int region[] = {3, 4};
  struct fe_mesh m = {.dim = 3,
                      .nv = 4,
                      .n_nodes = 5,
                      .n_cells = 2,
                      .coords = coords,
                      .cells = cells,
                      .cell_region = region};
  double tracer[5], velocity[15], times[2] = {0.5, 1.25e-7};
  times[1] += times[0];
  for (int k = 0; k < 2; k++) {
    for (int i = 0; i < 15; i++) velocity[i] = coords[i] * (k + 1) - 0.25;
    for (int i = 0; i < 5; i++) tracer[i] = coords[3 * i] - coords[3 * i + 2] * times[k];
    struct fe_vtk_field fields[] = {{"velocity", 3, velocity, 3}, {"tracer", 1, tracer, 1}};
    CHECK_OK(write_dump(dir, "tet", k, times[k], &m, 2, fields));
    check_dump(dir, "tet", k, times[k], &m, 2, fields);
  }
  CHECK_OK(write_series(dir, "tet", 2, times));
  check_series_text(dir, "tet",
                    "{\n  \"file-series-version\": \"1.0\",\n  \"files\": [\n"
                    "    { \"name\": \"tet_000000.vtk\", \"time\": 0.5 },\n"
                    "    { \"name\": \"tet_000001.vtk\", \"time\": 0.50000012500000002 }\n"
                    "  ]\n}\n");
}

/* A Gaussian circling the centre of the unit square/cube; velocity the rotation that moves it. */
static void gaussian(int dim, int n, const double *coords, double t, double *tracer, double *vel)
{
  double cx = 0.5 + 0.25 * cos(t), cy = 0.5 + 0.25 * sin(t);
  for (int i = 0; i < n; i++) {
    const double *x = coords + (size_t)dim * i;
    double z2 = dim == 3 ? (x[2] - 0.5) * (x[2] - 0.5) : 0;
    tracer[i] = exp(-((x[0] - cx) * (x[0] - cx) + (x[1] - cy) * (x[1] - cy) + z2) / 0.02);
    vel[dim * i] = -(x[1] - 0.5);
    vel[dim * i + 1] = x[0] - 0.5;
    if (dim == 3) vel[dim * i + 2] = 0;
  }
}

static void write_grid_series(const char *dir, const char *name, const struct fe_mesh *m)
{
  double *tracer = malloc(sizeof(double) * m->n_nodes);
  double *vel = malloc(sizeof(double) * m->n_nodes * m->dim);
  double times[3] = {0, 0.75, 1.5};
  for (int k = 0; k < 3; k++) {
    gaussian(m->dim, m->n_nodes, m->coords, times[k], tracer, vel);
    struct fe_vtk_field fields[] = {{"tracer", 1, tracer, 1}, {"velocity", 3, vel, m->dim}};
    CHECK_OK(write_dump(dir, name, k, times[k], m, 2, fields));
    if (k == 0) check_dump(dir, name, k, times[k], m, 2, fields);
  }
  CHECK_OK(write_series(dir, name, 3, times));
  free(tracer);
  free(vel);
}

static void test_grid2d(const char *dir)
{
  const int n = GRID2D_N, nc = 2 * (n - 1) * (n - 1);
  double *coords = malloc(sizeof(double) * 2 * n * n);
  int *cells = malloc(sizeof(int) * 3 * nc), *region = malloc(sizeof(int) * nc);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      coords[2 * (j * n + i)] = (double)i / (n - 1);
      coords[2 * (j * n + i) + 1] = (double)j / (n - 1);
    }
  int e = 0;
  for (int j = 0; j + 1 < n; j++)
    for (int i = 0; i + 1 < n; i++) {
      int a = j * n + i, b = a + 1, c = a + n + 1, d = a + n;
      int tri[6] = {a, b, c, a, c, d};
      for (int k = 0; k < 2; k++, e++) {
        memcpy(cells + 3 * e, tri + 3 * k, sizeof(int) * 3);
        region[e] = 1 + (2 * i >= n);
      }
    }
  struct fe_mesh m = {.dim = 2,
                      .nv = 3,
                      .n_nodes = n * n,
                      .n_cells = nc,
                      .coords = coords,
                      .cells = cells,
                      .cell_region = region};
  write_grid_series(dir, "grid2d", &m);
  free(coords);
  free(cells);
  free(region);
}

static void test_grid3d(const char *dir)
{
  /* Each cube cut into the 6 tetrahedra of Kuhn's triangulation along the main diagonal. */
  static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  const int n = GRID3D_N, nc = 6 * (n - 1) * (n - 1) * (n - 1);
  double *coords = malloc(sizeof(double) * 3 * n * n * n);
  int *cells = malloc(sizeof(int) * 4 * nc), *region = malloc(sizeof(int) * nc);
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        double *x = coords + 3 * ((k * n + j) * n + i);
        x[0] = (double)i / (n - 1), x[1] = (double)j / (n - 1), x[2] = (double)k / (n - 1);
      }
  const int step[3] = {1, n, n * n};
  int e = 0;
  for (int k = 0; k + 1 < n; k++)
    for (int j = 0; j + 1 < n; j++)
      for (int i = 0; i + 1 < n; i++)
        for (int p = 0; p < 6; p++, e++) {
          int v = (k * n + j) * n + i;
          cells[4 * e] = v;
          for (int s = 0; s < 3; s++) cells[4 * e + 1 + s] = v += step[perm[p][s]];
          region[e] = 1 + (2 * k >= n);
        }
  struct fe_mesh m = {.dim = 3,
                      .nv = 4,
                      .n_nodes = n * n * n,
                      .n_cells = nc,
                      .coords = coords,
                      .cells = cells,
                      .cell_region = region};
  write_grid_series(dir, "grid3d", &m);
  free(coords);
  free(cells);
  free(region);
}

static int count_temporaries(const char *dir)
{
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *ent; d && (ent = readdir(d));) n += strstr(ent->d_name, FE_TMP_INFIX) != NULL;
  if (d) closedir(d);
  return n;
}

/* One triangle, for the tests of failures and names. */
static double one_coords[] = {0, 0, 1, 0, 0, 1}, one_tracer[] = {1, 2, 3};
static int one_cells[] = {0, 1, 2}, one_region[] = {0};
static const struct fe_mesh one_triangle = {.dim = 2, .nv = 3, .n_nodes = 3, .n_cells = 1,
                                            .coords = one_coords, .cells = one_cells,
                                            .cell_region = one_region};

static void test_failures(const char *dir)
{
  double *coords = one_coords, *tracer = one_tracer;
  const struct fe_mesh m = one_triangle;
  struct fe_vtk_field field = {"tracer", 1, tracer, 1};
  char path[512], sub[512];

  snprintf(sub, sizeof sub, "%s/no/such/dir", dir);
  CHECK(write_dump(sub, "x", 0, 0.0, &m, 1, &field) == FE_ERR_RESOURCE);
  CHECK(write_series(sub, "x", 1, coords) == FE_ERR_RESOURCE);

  /* rename() onto a directory fails after the whole file was written */
  vtk_path(path, sizeof path, dir, "clash", 0);
  CHECK(mkdir(path, 0777) == 0 || errno == EEXIST);
  CHECK(write_dump(dir, "clash", 0, 0.0, &m, 1, &field) == FE_ERR_RESOURCE);
  CHECK(rmdir(path) == 0);

  /* a full disk: the temporary name of this process points at /dev/full */
  if (access("/dev/full", W_OK) == 0) {
    char tmp[600];
    vtk_path(path, sizeof path, dir, "full", 0);
    snprintf(tmp, sizeof tmp, "%s" FE_TMP_INFIX "%ld", path, (long)getpid());
    CHECK(symlink("/dev/full", tmp) == 0);
    CHECK(write_dump(dir, "full", 0, 0.0, &m, 1, &field) == FE_ERR_RESOURCE);
    CHECK(access(path, F_OK) != 0);
  }

  struct fe_vtk_field bad = {"v", 3, tracer, 4};
  CHECK(write_dump(dir, "bad", 0, 0.0, &m, 1, &bad) == FE_ERR_INPUT);
  double nan_time = NAN;
  CHECK(write_series(dir, "bad", 1, &nan_time) == FE_ERR_NUMERICAL);
  CHECK(count_temporaries(dir) == 0);
}

/* Names as VTK's reader takes them: at most 255 bytes once encoded, none twice in a dump, none
 * named like the dump's own arrays (region, TIME). */
static void test_names(const char *dir)
{
  CHECK(fe_vtk_encoded_length("T_exact") == 7 && fe_vtk_encoded_length("a b%") == 8);
  const char *ok[] = {"T", "velocity", "T_exact", "T_error"}, *other = NULL;
  CHECK(fe_vtk_name_clash(4, ok, &other) == -1 && other == NULL);
  const char *twice[] = {"velocity", "velocity"}, *region[] = {"T", "region"}, *time[] = {"TIME"};
  CHECK(fe_vtk_name_clash(2, twice, &other) == 1 && other && !strcmp(other, "velocity"));
  CHECK(fe_vtk_name_clash(2, region, &other) == 1 && other && !strcmp(other, "region"));
  CHECK(fe_vtk_name_clash(1, time, &other) == 0);
  double *tracer = one_tracer;
  const struct fe_mesh m = one_triangle;
  char name[300];
  memset(name, 'a', sizeof name);
  name[FE_VTK_NAME_MAX] = '\0'; /* the longest */
  struct fe_vtk_field longest = {name, 1, tracer, 1};
  CHECK_OK(write_dump(dir, "names", 0, 0.0, &m, 1, &longest));
  name[FE_VTK_NAME_MAX] = 'a';
  name[FE_VTK_NAME_MAX + 1] = '\0';
  CHECK(write_dump(dir, "names", 1, 0.0, &m, 1, &longest) == FE_ERR_INPUT);
  struct fe_vtk_field same[] = {{"T", 1, tracer, 1}, {"T", 1, tracer, 1}};
  CHECK(write_dump(dir, "names", 1, 0.0, &m, 2, same) == FE_ERR_INPUT);
  struct fe_vtk_field own = {"region", 1, tracer, 1};
  CHECK(write_dump(dir, "names", 1, 0.0, &m, 1, &own) == FE_ERR_INPUT);
  char path[512];
  vtk_path(path, sizeof path, dir, "names", 1);
  CHECK(access(path, F_OK) != 0);
  vtk_path(path, sizeof path, dir, "names", 0);
  remove(path);
}

int main(int argc, char **argv)
{
  char fresh[] = "test_vtk.XXXXXX";
  const char *dir = argc > 1 ? argv[1] : mkdtemp(fresh);
  if (!dir || (mkdir(dir, 0777) != 0 && errno != EEXIST)) {
    fprintf(stderr, "test_vtk: cannot create the output directory %s: %s\n", dir ? dir : fresh,
            strerror(errno));
    return 1;
  }
  char buf[64];
  vtk_path(buf, sizeof buf, "out", "case", 12);
  CHECK(strcmp(buf, "out/case_000012.vtk") == 0);
  vtk_path(buf, sizeof buf, "", "case", 1234567);
  CHECK(strcmp(buf, "case_1234567.vtk") == 0);
  vtk_path(buf, sizeof buf, NULL, "case", 12345678901L); /* dump indices are 64-bit */
  CHECK(strcmp(buf, "case_12345678901.vtk") == 0);
  test_names(dir);

  test_triangles(dir);
  test_tetrahedra(dir);
  test_grid2d(dir);
  test_grid3d(dir);
  test_failures(dir);
  if (argc > 1) {
    printf("test_vtk: dumps in %s\n", dir); /* kept for the VTK reader check */
  } else {
    remove_fresh(dir);
    CHECK(access(dir, F_OK) != 0);
  }
  TEST_DONE();
}
