/* io/snapshot: velocity files of every format read onto a mesh, each against the velocity at
 * the nodes: legacy VTK binary as fesim writes it, ASCII (versions 4.2 and 5.1, other sections
 * around the field, the points in another order, a %-encoded name); VTK XML ascii, base64
 * inline with UInt32 and UInt64 headers encoded apart and together, appended raw and base64,
 * zlib-compressed, big-endian Float32; Gmsh $NodeData of MSH 2.2 and 4.1, with and without
 * $Nodes, and as Gmsh itself writes a view; 2D and 3D.  Then every fault a file can have, each
 * FE_ERR_INPUT with one message naming the file and what it found. */
#define _POSIX_C_SOURCE 200809L /* dup, dup2, fileno, mkdtemp, mkfifo */
#include "io/snapshot.h"

#include <gmshc.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/error.h"
#include "fresh_dir.h"
#include "io/structured.h"
#include "io/vtk.h"
#include "test.h"

static char dir[200];

static const char *at(const char *name)
{
  static char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return path;
}

/* The velocity of the tests at a point: (1 + 2x - y, 0.5 + x y, z - x). */
static void velocity(const double *x, double *u)
{
  u[0] = 1 + 2 * x[0] - x[1];
  u[1] = 0.5 + x[0] * x[1];
  u[2] = x[2] - x[0];
}

static void node_xyz(const struct fe_mesh *m, int n, double x[3])
{
  x[0] = x[1] = x[2] = 0;
  for (int a = 0; a < m->dim; a++) x[a] = m->coords[(size_t)n * m->dim + a];
}

/* The value written for component a at node n: 0 for z in 2D. */
static double value(const struct fe_mesh *m, int n, int a)
{
  double x[3], u[3];
  node_xyz(m, n, x);
  velocity(x, u);
  return a < m->dim ? u[a] : 0.0;
}

static struct fe_mesh *read_mesh(const char *name)
{
  char path[4352];
  snprintf(path, sizeof path, "%s/mesh/%s", getenv("FESIM_TEST_DATA"), name);
  struct fe_mesh *m = NULL;
  CHECK_OK(fe_mesh_read(path, NULL, &m));
  return m;
}

/* ---------------------------------------------------------------- writers */

static FILE *create(const char *name)
{
  FILE *f = fopen(at(name), "wb");
  CHECK(f != NULL);
  return f;
}

/* The order the points are written in: perm[i] is the node of point i. */
static int *order(const struct fe_mesh *m, int reversed)
{
  int *perm = malloc(sizeof(int) * (size_t)m->n_nodes);
  for (int i = 0; i < m->n_nodes; i++) perm[i] = reversed ? m->n_nodes - 1 - i : i;
  return perm;
}

/* Legacy ASCII: version 4.2 (CELLS with counts) or 5.1 (OFFSETS and CONNECTIVITY), sections
 * before and after the field, which is a FIELD array (4.2) or VECTORS (5.1). */
static void legacy_ascii(const struct fe_mesh *m, const char *name, int v51, int reversed)
{
  FILE *f = create(name);
  int *perm = order(m, reversed), *pos = malloc(sizeof(int) * (size_t)m->n_nodes);
  for (int i = 0; i < m->n_nodes; i++) pos[perm[i]] = i;
  fprintf(f, "# vtk DataFile Version %s\nsnapshot\nASCII\nDATASET UNSTRUCTURED_GRID\n",
          v51 ? "5.1" : "4.2");
  fprintf(f, "FIELD FieldData 2\nTIME 1 1 double\n0.5\nCYCLE 1 1 int\n3\n");
  fprintf(f, "POINTS %d double\n", m->n_nodes);
  for (int i = 0; i < m->n_nodes; i++) {
    double x[3];
    node_xyz(m, perm[i], x);
    fprintf(f, "%.17g %.17g %.17g\n", x[0], x[1], x[2]);
  }
  if (v51) {
    fprintf(f, "CELLS %d %d\nOFFSETS vtktypeint64\n", m->n_cells + 1, m->n_cells * m->nv);
    for (int c = 0; c <= m->n_cells; c++) fprintf(f, "%d\n", c * m->nv);
    fprintf(f, "CONNECTIVITY vtktypeint64\n");
  } else {
    fprintf(f, "CELLS %d %d\n", m->n_cells, m->n_cells * (m->nv + 1));
  }
  for (int c = 0; c < m->n_cells; c++) {
    if (!v51) fprintf(f, "%d ", m->nv);
    for (int v = 0; v < m->nv; v++) fprintf(f, "%d ", pos[m->cells[c * m->nv + v]]);
    fprintf(f, "\n");
  }
  fprintf(f, "CELL_TYPES %d\n", m->n_cells);
  for (int c = 0; c < m->n_cells; c++) fprintf(f, "%d\n", m->dim == 2 ? 5 : 10);
  fprintf(f, "POINT_DATA %d\nSCALARS p float 1\nLOOKUP_TABLE default\n", m->n_nodes);
  for (int i = 0; i < m->n_nodes; i++) fprintf(f, "%d\n", i);
  fprintf(f, "VECTORS other double\n");
  for (int i = 0; i < m->n_nodes; i++) fprintf(f, "9 9 9\n");
  if (v51)
    fprintf(f, "METADATA\nINFORMATION 0\n\nVECTORS u%%20vel double\n");
  else
    fprintf(f, "FIELD FieldData 1\nu%%20vel 3 %d double\n", m->n_nodes);
  for (int i = 0; i < m->n_nodes; i++)
    fprintf(f, "%.17g %.17g %.17g\n", value(m, perm[i], 0), value(m, perm[i], 1),
            value(m, perm[i], 2));
  fprintf(f, "CELL_DATA %d\nSCALARS region int 1\nLOOKUP_TABLE default\n", m->n_cells);
  for (int c = 0; c < m->n_cells; c++) fprintf(f, "1\n");
  fclose(f);
  free(perm);
  free(pos);
}

static void base64(FILE *f, const unsigned char *b, size_t n)
{
  static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < n; i += 3) {
    const unsigned v = (unsigned)b[i] << 16 | (i + 1 < n ? (unsigned)b[i + 1] << 8 : 0) |
                       (i + 2 < n ? b[i + 2] : 0);
    fprintf(f, "%c%c%c%c", abc[v >> 18], abc[v >> 12 & 63], i + 1 < n ? abc[v >> 6 & 63] : '=',
            i + 2 < n ? abc[v & 63] : '=');
  }
}

/* How a .vtu is written. */
struct vtu_style {
  const char *format;  /* ascii, binary, appended */
  int uint64;          /* header_type UInt64 */
  int together;        /* base64: header and data encoded as one */
  int big;             /* BigEndian */
  int float32;         /* Float32 values and points */
  int zlib;            /* vtkZLibDataCompressor */
  int base64_appended; /* appended data encoded base64 */
  int reversed;        /* points in reverse order */
  /* faults */
  int drop;    /* the last point left out */
  double move; /* added to the first point's x */
  int twice;   /* the second point at the first one's place */
  double w;    /* the third component in 2D */
  int poison;  /* the first value NaN */
};

static void put(unsigned char *p, uint64_t v, int size, int big)
{
  for (int i = 0; i < size; i++) p[big ? size - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

/* The bytes of an array as the style stores it: header and data (compressed: the blocks). */
static unsigned char *array_bytes(const struct vtu_style *s, const double *x, size_t n,
                                  size_t *header, size_t *size)
{
  const int w = s->float32 ? 4 : 8, h = s->uint64 ? 8 : 4;
  unsigned char *raw = malloc(n * (size_t)w + 1);
  for (size_t i = 0; i < n; i++) {
    uint64_t bits;
    if (s->float32) {
      const float v = (float)x[i];
      uint32_t b32;
      memcpy(&b32, &v, 4);
      bits = b32;
    } else {
      memcpy(&bits, &x[i], 8);
    }
    put(raw + i * (size_t)w, bits, w, s->big);
  }
  size_t len = n * (size_t)w;
  unsigned char *out;
  if (!s->zlib) {
    out = malloc((size_t)h + len);
    put(out, len, h, s->big);
    memcpy(out + h, raw, len);
    *header = (size_t)h;
    *size = (size_t)h + len;
  } else { /* blocks of 40 bytes: several, the last one shorter */
    const size_t block = 40, blocks = (len + block - 1) / block;
    out = malloc((size_t)h * (3 + blocks) + compressBound(len) + blocks * 64);
    size_t at = (size_t)h * (3 + blocks);
    put(out, blocks, h, s->big);
    put(out + h, block, h, s->big);
    put(out + 2 * h, len % block, h, s->big);
    for (size_t b = 0; b < blocks; b++) {
      const size_t part = b + 1 < blocks || !(len % block) ? block : len % block;
      uLongf zn = compressBound(part) + 64;
      CHECK(compress2(out + at, &zn, raw + b * block, part, 6) == Z_OK);
      put(out + (3 + b) * (size_t)h, zn, h, s->big);
      at += zn;
    }
    *header = (size_t)h * (3 + blocks);
    *size = at;
  }
  free(raw);
  return out;
}

static void inline_binary(FILE *f, const struct vtu_style *s, const unsigned char *b, size_t header,
                          size_t size)
{
  if (s->together) {
    base64(f, b, size);
  } else {
    base64(f, b, header);
    base64(f, b + header, size - header);
  }
}

/* One DataArray: its element, and its bytes added to the appended data. */
static void data_array(FILE *f, const struct vtu_style *s, const char *name, int comps,
                       const double *x, size_t n, FILE *appended, long *offset)
{
  fprintf(f, "<DataArray type=\"%s\" %s%s%s NumberOfComponents=\"%d\" format=\"%s\"",
          s->float32 ? "Float32" : "Float64", name ? "Name=\"" : "", name ? name : "",
          name ? "\"" : "", comps, s->format);
  if (!strcmp(s->format, "ascii")) {
    fprintf(f, ">\n");
    for (size_t i = 0; i < n * (size_t)comps; i++) fprintf(f, "%.17g ", x[i]);
    fprintf(f, "\n</DataArray>\n");
    return;
  }
  size_t header, size;
  unsigned char *b = array_bytes(s, x, n * (size_t)comps, &header, &size);
  if (!strcmp(s->format, "binary")) {
    fprintf(f, ">\n");
    inline_binary(f, s, b, header, size);
    fprintf(f, "\n</DataArray>\n");
  } else {
    fprintf(f, " offset=\"%ld\"/>\n", *offset);
    const long before = ftell(appended);
    if (s->base64_appended)
      inline_binary(appended, s, b, header, size);
    else
      fwrite(b, 1, size, appended);
    *offset += ftell(appended) - before;
  }
  free(b);
}

static void vtu(const struct fe_mesh *m, const char *name, const struct vtu_style *s,
                const char *field, int comps)
{
  const size_t n = (size_t)m->n_nodes - (s->drop ? 1 : 0);
  int *perm = order(m, s->reversed);
  double *pts = malloc(sizeof(double) * 3 * n), *val = malloc(sizeof(double) * 3 * n);
  double *sevens = malloc(sizeof(double) * n);
  for (size_t i = 0; i < n; i++) {
    node_xyz(m, perm[i], pts + 3 * i);
    for (int a = 0; a < comps; a++)
      val[i * comps + a] = a == 2 && m->dim == 2 ? s->w : value(m, perm[i], a);
    sevens[i] = 7;
  }
  pts[0] += s->move;
  if (s->twice) memcpy(pts + 3, pts, 3 * sizeof(double));
  if (s->poison) val[0] = NAN;
  FILE *f = create(name), *app = tmpfile();
  long offset = 0;
  fprintf(f,
          "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" "
          "byte_order=\"%s\" header_type=\"%s\"%s>\n<UnstructuredGrid>\n"
          "<Piece NumberOfPoints=\"%zu\" NumberOfCells=\"0\">\n<PointData Vectors=\"%s\">\n",
          s->big ? "BigEndian" : "LittleEndian", s->uint64 ? "UInt64" : "UInt32",
          s->zlib ? " compressor=\"vtkZLibDataCompressor\"" : "", n, field);
  data_array(f, s, "other", 1, sevens, n, app, &offset);
  data_array(f, s, field, comps, val, n, app, &offset);
  fprintf(f, "</PointData>\n<Points>\n");
  data_array(f, s, NULL, 3, pts, n, app, &offset);
  fprintf(f, "</Points>\n<Cells></Cells>\n</Piece>\n</UnstructuredGrid>\n");
  if (!strcmp(s->format, "appended")) {
    fprintf(f, "<AppendedData encoding=\"%s\">\n   _", s->base64_appended ? "base64" : "raw");
    rewind(app);
    for (int c; (c = fgetc(app)) != EOF;) fputc(c, f);
    fprintf(f, "\n</AppendedData>\n");
  }
  fprintf(f, "</VTKFile>\n");
  fclose(app);
  fclose(f);
  free(perm);
  free(pts);
  free(val);
  free(sevens);
}

/* How a .msh is written: MSH 2.2 or 4.1 (version 2 or 41), with the file's $Nodes or without;
 * faults: the last value at the first node's tag (dup), at tag 999 (bogus), the first node
 * moved in $Nodes by shift, the other view named as the field too (same). */
struct msh_style {
  int version, with_nodes;
  int dup, bogus, same;
  double shift;
};

static void msh(const struct fe_mesh *m, const char *name, const struct msh_style *st,
                const char *field)
{
  const int version = st->version, with_nodes = st->with_nodes;
  FILE *f = create(name);
  fprintf(f, "$MeshFormat\n%s 0 8\n$EndMeshFormat\n$Comments\nvelocity\n$EndComments\n",
          version == 2 ? "2.2" : "4.1");
  if (with_nodes && version == 2) {
    fprintf(f, "$Nodes\n%d\n", m->n_nodes);
    for (int n = 0; n < m->n_nodes; n++) {
      double x[3];
      node_xyz(m, n, x);
      fprintf(f, "%zu %.17g %.17g %.17g\n", m->node_id[n], x[0] + (n ? 0 : st->shift), x[1], x[2]);
    }
    fprintf(f, "$EndNodes\n");
  } else if (with_nodes) { /* one block of an entity of dimension 2, parametric coordinates */
    fprintf(f, "$Nodes\n1 %d 1 %d\n2 1 1 %d\n", m->n_nodes, m->n_nodes, m->n_nodes);
    for (int n = 0; n < m->n_nodes; n++) fprintf(f, "%zu\n", m->node_id[n]);
    for (int n = 0; n < m->n_nodes; n++) {
      double x[3];
      node_xyz(m, n, x);
      fprintf(f, "%.17g %.17g %.17g 0.25 0.75\n", x[0] + (n ? 0 : st->shift), x[1], x[2]);
    }
    fprintf(f, "$EndNodes\n");
  }
  fprintf(f, "$NodeData\n1\n\"%s\"\n1\n0\n3\n0\n1\n1\n%zu 7\n$EndNodeData\n",
          st->same ? field : "other", m->node_id[0]);
  fprintf(f, "$NodeData\n1\n\"%s\"\n1\n0.5\n3\n0\n3\n%d\n", field, m->n_nodes);
  for (int n = m->n_nodes - 1; n >= 0; n--) {
    const size_t tag = !n && st->dup ? m->node_id[1] : !n && st->bogus ? 999 : m->node_id[n];
    fprintf(f, "%zu %.17g %.17g %.17g\n", tag, value(m, n, 0), value(m, n, 1), value(m, n, 2));
  }
  fprintf(f, "$EndNodeData\n");
  fclose(f);
}

/* The view as Gmsh writes it: the mesh read by Gmsh, the data added by node tag, saved in MSH
 * version 2.2 or 4.1 (with the mesh). */
static void gmsh_view(const char *mesh, int dim, const char *name, double version)
{
  int ierr;
  gmshInitialize(0, NULL, 0, &ierr);
  gmshOptionSetNumber("General.Terminal", 0, &ierr);
  gmshOpen(mesh, &ierr);
  CHECK(ierr == 0);
  size_t *tags, n_tags, n_xyz, n_par;
  double *xyz, *par;
  gmshModelMeshGetNodes(&tags, &n_tags, &xyz, &n_xyz, &par, &n_par, -1, -1, 0, 0, &ierr);
  double *data = malloc(sizeof(double) * 3 * n_tags);
  for (size_t i = 0; i < n_tags; i++) {
    velocity(xyz + 3 * i, data + 3 * i);
    if (dim == 2) data[3 * i + 2] = 0;
  }
  char *model;
  gmshModelGetCurrent(&model, &ierr);
  const int view = gmshViewAdd("velocity", -1, &ierr);
  gmshViewAddHomogeneousModelData(view, 0, model, "NodeData", tags, n_tags, data, 3 * n_tags, 0.5,
                                  3, 0, &ierr);
  CHECK(ierr == 0);
  gmshOptionSetNumber("Mesh.MshFileVersion", version, &ierr);
  gmshViewWrite(view, at(name), 0, &ierr);
  CHECK(ierr == 0);
  gmshFree(tags);
  gmshFree(xyz);
  gmshFree(par);
  gmshFree(model);
  free(data);
  gmshFinalize(&ierr);
}

/* ---------------------------------------------------------------- reading */

static void expect_ok(struct fe_snapshot_reader *r, const struct fe_mesh *m, const char *name,
                      const char *field, double tol)
{
  double *out = malloc(sizeof(double) * (size_t)m->n_nodes * m->dim);
  const int err = fe_snapshot_read(r, at(name), field, out);
  if (err) fprintf(stderr, "%s: not read\n", name);
  CHECK(err == FE_SUCCESS);
  double worst = 0;
  for (int n = 0; !err && n < m->n_nodes; n++)
    for (int a = 0; a < m->dim; a++)
      worst = fmax(worst, fabs(out[n * m->dim + a] - value(m, n, a)));
  if (worst > tol) fprintf(stderr, "%s: off by %g\n", name, worst);
  CHECK(worst <= tol);
  free(out);
}

static char captured[8192];

/* FE_ERR_INPUT and one message that names the file and contains want. */
static void expect_error(struct fe_snapshot_reader *r, const struct fe_mesh *m, const char *name,
                         const char *field, const char *want)
{
  double *out = malloc(sizeof(double) * (size_t)m->n_nodes * m->dim);
  fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  FILE *tmp = tmpfile();
  dup2(fileno(tmp), STDERR_FILENO);
  const int err = fe_snapshot_read(r, at(name), field, out);
  fflush(stderr);
  const long n = ftell(tmp);
  rewind(tmp);
  const size_t got = fread(captured, 1, sizeof captured - 1, tmp);
  captured[got] = '\0';
  dup2(saved, STDERR_FILENO);
  close(saved);
  fclose(tmp);
  const char *first = strchr(captured, '\n');
  const int one_line = first && !first[1];
  const int ok = err == FE_ERR_INPUT && strstr(captured, want) && strstr(captured, name) &&
                 !strncmp(captured, "fesim: error: ", 14) && one_line;
  if (!ok)
    fprintf(stderr, "%s: code %d, message (%ld bytes) '%s'; expected one with '%s'\n", name, err, n,
            captured, want);
  CHECK(ok);
  free(out);
}

/* A copy of file `from` with `old` replaced by `new` (the first time). */
static void edit(const char *from, const char *to, const char *old, const char *new)
{
  FILE *f = fopen(at(from), "rb");
  fseek(f, 0, SEEK_END);
  const long n = ftell(f);
  rewind(f);
  char *b = malloc((size_t)n + 1);
  CHECK(fread(b, 1, (size_t)n, f) == (size_t)n);
  b[n] = '\0';
  fclose(f);
  char *hit = strstr(b, old);
  CHECK(hit != NULL);
  FILE *g = create(to);
  if (hit) {
    fwrite(b, 1, (size_t)(hit - b), g);
    fputs(new, g);
    fwrite(hit + strlen(old), 1, (size_t)(n - (hit - b)) - strlen(old), g);
  }
  fclose(g);
  free(b);
}

static void truncate_copy(const char *from, const char *to, double fraction)
{
  FILE *f = fopen(at(from), "rb");
  fseek(f, 0, SEEK_END);
  const long n = ftell(f);
  rewind(f);
  char *b = malloc((size_t)n);
  CHECK(fread(b, 1, (size_t)n, f) == (size_t)n);
  fclose(f);
  FILE *g = create(to);
  fwrite(b, 1, (size_t)(fraction * (double)n), g);
  fclose(g);
  free(b);
}

static void formats(const struct fe_mesh *m, const char *mesh_file)
{
  struct fe_snapshot_reader *r;
  CHECK_OK(fe_snapshot_reader_create(m, &r));
  /* fesim's own dump */
  double *u = malloc(sizeof(double) * 3 * (size_t)m->n_nodes);
  for (int n = 0; n < m->n_nodes; n++)
    for (int a = 0; a < 3; a++) u[3 * n + a] = value(m, n, a);
  const struct fe_vtk_field field = {"velocity", 3, u, 3};
  CHECK_OK(fe_vtk_write(at("dump.vtk"), 0.5, m, 1, &field));
  expect_ok(r, m, "dump.vtk", "velocity", 0);
  free(u);
  legacy_ascii(m, "a42.vtk", 0, 1);
  expect_ok(r, m, "a42.vtk", "u vel", 0);
  legacy_ascii(m, "a51.vtk", 1, 0);
  expect_ok(r, m, "a51.vtk", "u vel", 0);
  /* VTK XML */
  const struct vtu_style styles[] = {
      {.format = "ascii", .reversed = 1},
      {.format = "binary"},
      {.format = "binary", .uint64 = 1, .together = 1, .reversed = 1},
      {.format = "binary", .big = 1, .float32 = 1},
      {.format = "appended"},
      {.format = "appended", .base64_appended = 1, .uint64 = 1},
      {.format = "binary", .zlib = 1},
      {.format = "appended", .zlib = 1, .uint64 = 1, .reversed = 1},
      {.format = "appended", .zlib = 1, .base64_appended = 1, .big = 1},
  };
  for (size_t k = 0; k < sizeof styles / sizeof *styles; k++) {
    char name[32];
    snprintf(name, sizeof name, "s%zu.vtu", k);
    vtu(m, name, &styles[k], "velocity", m->dim);
    expect_ok(r, m, name, "velocity", styles[k].float32 ? 1e-6 : 0);
  }
  struct vtu_style three = {.format = "binary"};
  vtu(m, "three.vtu", &three, "velocity", 3); /* in 2D: the third component 0 */
  expect_ok(r, m, "three.vtu", "velocity", 0);
  /* Gmsh $NodeData */
  for (int v = 0; v < 2; v++)
    for (int nodes = 0; nodes < 2; nodes++) {
      char name[32];
      const struct msh_style st = {.version = v ? 41 : 2, .with_nodes = nodes};
      snprintf(name, sizeof name, "nd%d%d.msh", v, nodes);
      msh(m, name, &st, "velocity");
      expect_ok(r, m, name, "velocity", 0);
    }
  gmsh_view(mesh_file, m->dim, "gmsh22.msh", 2.2);
  expect_ok(r, m, "gmsh22.msh", "velocity", 1e-15);
  gmsh_view(mesh_file, m->dim, "gmsh41.msh", 4.1);
  expect_ok(r, m, "gmsh41.msh", "velocity", 1e-15);
  fe_snapshot_reader_destroy(r);
}

/* A .vtu of the style with one fault, and its message. */
static void vtu_fault(struct fe_snapshot_reader *r, const struct fe_mesh *m, const char *name,
                      struct vtu_style st, int comps, const char *want)
{
  vtu(m, name, &st, "velocity", comps);
  expect_error(r, m, name, "velocity", want);
}

static void msh_fault(struct fe_snapshot_reader *r, const struct fe_mesh *m, const char *name,
                      struct msh_style st, const char *want)
{
  msh(m, name, &st, "velocity");
  expect_error(r, m, name, "velocity", want);
}

/* Every fault, on the 2D mesh. */
static void faults(const struct fe_mesh *m)
{
  struct fe_snapshot_reader *r;
  CHECK_OK(fe_snapshot_reader_create(m, &r));
  const struct vtu_style ascii = {.format = "ascii"}, binary = {.format = "binary"};
  vtu(m, "good.vtu", &ascii, "velocity", 2);
  vtu(m, "bin.vtu", &binary, "velocity", 2);
  /* the mesh */
  vtu_fault(r, m, "count.vtu", (struct vtu_style){.format = "ascii", .drop = 1}, 2,
            "8 points; expected the 9 nodes of the mesh");
  vtu_fault(r, m, "moved.vtu", (struct vtu_style){.format = "binary", .move = 0.01}, 2,
            "is 0.01 from the nearest node of the mesh");
  vtu_fault(r, m, "twice.vtu", (struct vtu_style){.format = "binary", .twice = 1}, 2,
            "that an earlier point is at too");
  /* the field */
  expect_error(r, m, "good.vtu", "speed", "no point array named 'speed'");
  expect_error(r, m, "good.vtu", "other",
               "the point array 'other' has 1 component; expected a "
               "velocity of 2 (or 3, the third 0)");
  vtu_fault(r, m, "wz.vtu", (struct vtu_style){.format = "ascii", .w = 0.25}, 3,
            "has z component 0.25 at point 0, and the mesh");
  vtu_fault(r, m, "nan.vtu", (struct vtu_style){.format = "ascii", .poison = 1}, 2,
            "is nan at point 0 (component 1); expected finite");
  /* VTK XML */
  edit("good.vtu", "lz4.vtu", "header_type=\"UInt32\"",
       "header_type=\"UInt32\" compressor=\"vtkLZ4DataCompressor\"");
  expect_error(r, m, "lz4.vtu", "velocity", "compressor 'vtkLZ4DataCompressor': fesim reads");
  edit("good.vtu", "pieces.vtu", "<Piece", "<Piece NumberOfPoints=\"1\"/><Piece");
  expect_error(r, m, "pieces.vtu", "velocity", "2 pieces; expected one");
  edit("good.vtu", "malformed.vtu", "</Points>", "</Pints>");
  expect_error(r, m, "malformed.vtu", "velocity", "malformed XML");
  edit("good.vtu", "poly.vtu", "type=\"UnstructuredGrid\"", "type=\"PolyData\"");
  expect_error(r, m, "poly.vtu", "velocity", "type 'PolyData'; expected UnstructuredGrid");
  edit("good.vtu", "short.vtu", "NumberOfPoints=\"9\"", "NumberOfPoints=\"10\"");
  expect_error(r, m, "short.vtu", "velocity", "27 numbers; expected 30");
  edit("good.vtu", "huge.vtu", "NumberOfPoints=\"9\"", "NumberOfPoints=\"900000000\"");
  expect_error(r, m, "huge.vtu", "velocity", "NumberOfPoints 900000000, more than a file of");
  edit("bin.vtu", "b64.vtu", "Name=\"velocity\" NumberOfComponents=\"2\" format=\"binary\">\n",
       "Name=\"velocity\" NumberOfComponents=\"2\" format=\"binary\">\n*");
  expect_error(r, m, "b64.vtu", "velocity", "or are not base64");
  /* legacy VTK */
  truncate_copy("dump2.vtk", "cut.vtk", 0.3);
  expect_error(r, m, "cut.vtk", "velocity", "the file ends inside the POINTS");
  edit("dump2.vtk", "grid.vtk", "UNSTRUCTURED_GRID", "STRUCTURED_POINTS");
  expect_error(r, m, "grid.vtk", "velocity",
               "a dataset STRUCTURED_POINTS; expected UNSTRUCTURED_GRID");
  edit("dump2.vtk", "head.vtk", "# vtk", "# VTK");
  expect_error(r, m, "head.vtk", "velocity", "it does not start with '# vtk DataFile Version'");
  expect_error(r, m, "dump2.vtk", "flow", "no point array named 'flow'");
  /* Gmsh */
  msh_fault(r, m, "duptag.msh", (struct msh_style){.version = 41, .with_nodes = 1, .dup = 1},
            "is given twice in the $NodeData");
  msh_fault(r, m, "missing.msh", (struct msh_style){.version = 41, .with_nodes = 1, .bogus = 1},
            "the $NodeData 'velocity' gives a value at node tag 999, which its $Nodes do not have");
  msh_fault(r, m, "bare.msh", (struct msh_style){.version = 2, .bogus = 1},
            "no value for 1 of the 9 nodes of the mesh");
  msh_fault(r, m, "two.msh", (struct msh_style){.version = 41, .same = 1},
            "2 $NodeData sections named 'velocity'");
  msh_fault(r, m, "off.msh", (struct msh_style){.version = 2, .with_nodes = 1, .shift = 0.125},
            "is 0.125 from the nearest node of the mesh");
  msh(m, "nd.msh", &(struct msh_style){.version = 41}, "velocity");
  edit("nd.msh", "binary.msh", "4.1 0 8", "4.1 1 8");
  expect_error(r, m, "binary.msh", "velocity", "a binary .msh file");
  edit("nd.msh", "v3.msh", "4.1 0 8", "3 0 8");
  expect_error(r, m, "v3.msh", "velocity", "MSH version 3; expected 2.2 or 4.1");
  /* the file */
  vtu(m, "name.txt", &ascii, "velocity", 2);
  expect_error(r, m, "name.txt", "velocity", "not a velocity file by its extension");
  CHECK(mkfifo(at("fifo.vtk"), 0600) == 0);
  expect_error(r, m, "fifo.vtk", "velocity", "is a FIFO; expected a file of the velocity");
  expect_error(r, m, "none.vtu", "velocity", "cannot open velocity file");
  fe_snapshot_reader_destroy(r);
}

/* Every prefix of a file and every file with one byte changed is read or refused with
 * FE_ERR_INPUT, never more: the readers stay inside the buffer (the sanitized build and
 * valgrind check that) and allocate no more than the file can hold. */
static void robustness(struct fe_snapshot_reader *r, const struct fe_mesh *m, const char *name)
{
  FILE *f = fopen(at(name), "rb");
  fseek(f, 0, SEEK_END);
  const long n = ftell(f);
  rewind(f);
  unsigned char *b = malloc((size_t)n), *c = malloc((size_t)n);
  CHECK(fread(b, 1, (size_t)n, f) == (size_t)n);
  fclose(f);
  char copy[64];
  snprintf(copy, sizeof copy, "mangled%s", strrchr(name, '.'));
  double *out = malloc(sizeof(double) * 3 * (size_t)m->n_nodes);
  unsigned seed = 7;
  fe_error_set_quiet(1);
  for (long k = 0; k < 2 * n; k += 1 + n / 300) {
    memcpy(c, b, (size_t)n);
    long len = k < n ? k : n;
    if (k >= n) { /* one byte changed */
      seed = seed * 1664525u + 1013904223u;
      c[(seed >> 8) % (unsigned)n] ^= (unsigned char)(1 + (seed >> 20) % 255);
    }
    FILE *g = fopen(at(copy), "wb");
    fwrite(c, 1, (size_t)len, g);
    fclose(g);
    const int err = fe_snapshot_read(r, at(copy), "velocity", out);
    if (err != FE_SUCCESS && err != FE_ERR_INPUT)
      fprintf(stderr, "%s mangled at %ld: code %d\n", name, k, err);
    CHECK(err == FE_SUCCESS || err == FE_ERR_INPUT);
  }
  fe_error_set_quiet(0);
  free(out);
  free(b);
  free(c);
}

/* $NodeData needs the Gmsh node tags: a mesh built in memory has none. */
static void untagged(void)
{
  struct fe_mesh *m;
  CHECK_OK(fe_mesh_create_structured(2, 2, 0, 1, &m));
  struct fe_snapshot_reader *r;
  CHECK_OK(fe_snapshot_reader_create(m, &r));
  FILE *f = create("untagged.msh");
  fprintf(f, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$NodeData\n1\n\"velocity\"\n1\n0\n3\n0\n2\n"
             "1\n1 1 1\n$EndNodeData\n");
  fclose(f);
  expect_error(r, m, "untagged.msh", "velocity", "(it was not read from a Gmsh file)");
  fe_snapshot_reader_destroy(r);
  fe_mesh_destroy(m);
}

int main(void)
{
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/fesim_snapshot_XXXXXX", tmp && *tmp ? tmp : "/tmp");
  CHECK(mkdtemp(dir) != NULL);
  char mesh2[4352], mesh3[4352];
  snprintf(mesh2, sizeof mesh2, "%s/mesh/grid8.msh", getenv("FESIM_TEST_DATA"));
  snprintf(mesh3, sizeof mesh3, "%s/mesh/cube_41.msh", getenv("FESIM_TEST_DATA"));
  struct fe_mesh *m2 = read_mesh("grid8.msh"), *m3 = read_mesh("cube_41.msh");
  formats(m3, mesh3);
  formats(m2, mesh2); /* last: the files the robustness checks mangle are 2D */
  {
    double *u = malloc(sizeof(double) * 3 * (size_t)m2->n_nodes);
    for (int n = 0; n < m2->n_nodes; n++)
      for (int a = 0; a < 3; a++) u[3 * n + a] = value(m2, n, a);
    const struct fe_vtk_field field = {"velocity", 3, u, 3};
    CHECK_OK(fe_vtk_write(at("dump2.vtk"), 0.5, m2, 1, &field));
    free(u);
  }
  faults(m2);
  untagged();
  {
    struct fe_snapshot_reader *r;
    CHECK_OK(fe_snapshot_reader_create(m2, &r));
    const char *files[] = {"dump2.vtk", "a42.vtk", "a51.vtk", "s1.vtu",   "s2.vtu",
                           "s5.vtu",    "s7.vtu",  "s8.vtu",  "nd01.msh", "nd11.msh"};
    for (size_t k = 0; k < sizeof files / sizeof *files; k++) robustness(r, m2, files[k]);
    fe_snapshot_reader_destroy(r);
  }
  fe_mesh_destroy(m2);
  fe_mesh_destroy(m3);
  remove_fresh(dir);
  TEST_DONE();
}
