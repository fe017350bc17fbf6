/* The legacy VTK reader of velocity snapshots: an UNSTRUCTURED_GRID, ASCII or
 * BINARY (big-endian), of file versions 2 to 5.1 (VTK's "File Formats for VTK
 * Version 4.2" and the OFFSETS/CONNECTIVITY cells of 5.1): the POINTS and one
 * point array, read as VTK's vtkDataReader reads them (keywords in any case,
 * names %XX-encoded); every other section before the array is skipped by its
 * declared size. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/point_data.h"
#include "io/scan.h"

enum { LINE = 1024 };

struct reader {
  const char *shown;
  struct fe_scan s;
  int binary;
  int version; /* major * 10 + minor */
  const char *field;
  struct fe_point_data *pd;
  size_t n_points;
  int have_points;
  char line[LINE];
};

static const struct {
  const char *name;
  enum fe_number_type type;
} types[] = {
    {"bit", FE_NUM_BIT},           {"char", FE_NUM_I8},          {"signed_char", FE_NUM_I8},
    {"unsigned_char", FE_NUM_U8},  {"short", FE_NUM_I16},        {"unsigned_short", FE_NUM_U16},
    {"int", FE_NUM_I32},           {"unsigned_int", FE_NUM_U32}, {"long", FE_NUM_I64},
    {"unsigned_long", FE_NUM_U64}, {"vtktypeint64", FE_NUM_I64}, {"vtktypeuint64", FE_NUM_U64},
    {"vtkidtype", FE_NUM_I64},     {"float", FE_NUM_F32},        {"double", FE_NUM_F64}};

static int fail(const struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(const struct reader *r, const char *fmt, ...)
{
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (r->binary)
    FE_RAISE(FE_ERR_INPUT,
             "%s: %s; expected a legacy VTK file (UNSTRUCTURED_GRID, ASCII or BINARY)", r->shown,
             msg);
  FE_RAISE(FE_ERR_INPUT,
           "%s:%ld: %s; expected a legacy VTK file (UNSTRUCTURED_GRID, ASCII or BINARY)", r->shown,
           r->s.line, msg);
}

static enum fe_number_type type_of(const char *name)
{
  for (size_t i = 0; i < sizeof types / sizeof *types; i++)
    if (fe_scan_is(name, types[i].name)) return types[i].type;
  return FE_NUM_NONE;
}

/* %XX sequences decoded (VTK writes names so since version 6). */
static void decode_name(const char *in, char *out, size_t size)
{
  size_t n = 0;
  for (const char *c = in; *c && n + 1 < size; c++) {
    unsigned v;
    if (*c == '%' && sscanf(c + 1, "%2x", &v) == 1 && c[1] && c[2]) {
      out[n++] = (char)v;
      c += 2;
    } else {
      out[n++] = *c;
    }
  }
  out[n] = '\0';
}

/* The words of the next keyword line (blank lines skipped): up to 6 words; 0 at the end. */
static int keyword_line(struct reader *r, char words[6][LINE / 4], int *n)
{
  if (!fe_scan_nonblank_line(&r->s, r->line, sizeof r->line)) return 0;
  *n = 0;
  char *save = NULL;
  for (char *w = strtok_r(r->line, " \t", &save); w && *n < 6; w = strtok_r(NULL, " \t", &save))
    snprintf(words[(*n)++], LINE / 4, "%s", w);
  return 1;
}

/* count values of type `type` (named `what` in messages): into out, or skipped (out NULL). */
static int values(struct reader *r, const char *type_name, size_t count, const char *what,
                  double *out)
{
  const enum fe_number_type t = type_of(type_name);
  if (t == FE_NUM_NONE)
    return fail(r, "%s of type '%s', which fesim cannot read or skip", what, type_name);
  if (r->binary) {
    const size_t size = fe_number_size(t);
    if (size && count > (size_t)(r->s.end - r->s.p) / size)
      return fail(r, "the file ends inside the %s (%zu values of %s)", what, count, type_name);
    const unsigned char *p = fe_scan_bytes(&r->s, size ? count * size : (count + 7) / 8);
    if (!p)
      return fail(r, "the file ends inside the %s (%zu values of %s)", what, count, type_name);
    if (out) fe_number_decode(t, 1, p, count, out);
    return FE_SUCCESS;
  }
  for (size_t i = 0; i < count; i++) {
    double v;
    if (!fe_scan_double(&r->s, &v))
      return fail(r, "the %s holds %zu values, or something other than numbers; expected %zu", what,
                  i, count);
    if (out) out[i] = v;
  }
  return FE_SUCCESS;
}

/* A size of a keyword line: a whole number below 2^40. */
static int count_of(struct reader *r, const char *word, const char *keyword, size_t *v)
{
  char *end;
  const unsigned long long x = strtoull(word, &end, 10);
  if (end == word || *end || word[0] == '-' || x >= (1ull << 40))
    return fail(r, "%s: '%s' is not a count", keyword, word);
  *v = (size_t)x;
  return FE_SUCCESS;
}

static int check_words(struct reader *r, int n, int least, const char *form)
{
  return n >= least ? FE_SUCCESS
                    : fail(r, "a line '%s' with too few words; expected '%s'", r->line, form);
}

static int points(struct reader *r, char w[6][LINE / 4], int n)
{
  FE_CALL(check_words(r, n, 3, "POINTS n dataType"));
  if (r->have_points) return fail(r, "a second POINTS section; expected one");
  FE_CALL(count_of(r, w[1], "POINTS", &r->n_points));
  if (!r->n_points) return fail(r, "POINTS 0: no points");
  if (r->n_points > (size_t)(r->s.end - r->s.p)) /* at least a byte each */
    return fail(r, "POINTS %zu: more points than the file has bytes", r->n_points);
  FE_CALL(fe_malloc(r->n_points * 3 * sizeof(double), &r->pd->points));
  r->have_points = 1;
  return values(r, w[2], 3 * r->n_points, "POINTS", r->pd->points);
}

/* CELLS: n size and size integers (before 5.0), or OFFSETS and CONNECTIVITY arrays (5.x). */
static int cells(struct reader *r, char w[6][LINE / 4], int n)
{
  size_t a, b;
  FE_CALL(check_words(r, n, 3, "CELLS n size"));
  FE_CALL(count_of(r, w[1], "CELLS", &a));
  FE_CALL(count_of(r, w[2], "CELLS", &b));
  if (r->version < 50) return values(r, "int", b, "CELLS", NULL);
  for (int k = 0; k < 2; k++) {
    static const char *const name[2] = {"OFFSETS", "CONNECTIVITY"};
    if (!keyword_line(r, w, &n) || !fe_scan_is(w[0], name[k]) || n < 2)
      return fail(r, "found '%s' after CELLS; expected '%s dataType' (file version 5)", r->line,
                  name[k]);
    FE_CALL(values(r, w[1], k ? b : a, name[k], NULL));
  }
  return FE_SUCCESS;
}

/* METADATA blocks (VTK 8 and later) end at an empty line. */
static void metadata(struct reader *r)
{
  while (fe_scan_line(&r->s, r->line, sizeof r->line) && r->line[0]) continue;
}

/* Keeps the array when it is the point field asked for. */
static int array(struct reader *r, int point_data, const char *name, size_t tuples, int comps,
                 const char *type, const char *what)
{
  char decoded[LINE];
  decode_name(name, decoded, sizeof decoded);
  const int wanted = point_data && !strcmp(decoded, r->field) && !r->pd->values;
  if (!wanted) return values(r, type, tuples * (size_t)comps, what, NULL);
  if (tuples != r->n_points)
    return fail(r, "the point array '%s' has %zu values for %zu points", decoded, tuples,
                r->n_points);
  if (comps < 1 || comps > 9) return fail(r, "%s '%s' of %d components", what, decoded, comps);
  FE_CALL(fe_malloc(tuples * (size_t)comps * sizeof(double), &r->pd->values));
  r->pd->components = comps;
  return values(r, type, tuples * (size_t)comps, what, r->pd->values);
}

/* FIELD name n: n arrays of "name components tuples type" and their values. */
static int field_data(struct reader *r, char w[6][LINE / 4], int n, int point_data)
{
  size_t arrays, comps, tuples;
  FE_CALL(check_words(r, n, 3, "FIELD name numArrays"));
  FE_CALL(count_of(r, w[2], "FIELD", &arrays));
  for (size_t i = 0; i < arrays; i++) {
    if (!keyword_line(r, w, &n)) return fail(r, "the file ends in a FIELD of %zu arrays", arrays);
    if (fe_scan_is(w[0], "METADATA")) {
      metadata(r);
      i--;
      continue;
    }
    FE_CALL(check_words(r, n, 4, "arrayName numComponents numTuples dataType"));
    FE_CALL(count_of(r, w[1], "FIELD array", &comps));
    FE_CALL(count_of(r, w[2], "FIELD array", &tuples));
    FE_CALL(
        array(r, point_data, w[0], tuples, (int)(comps < 100 ? comps : 100), w[3], "FIELD array"));
  }
  return FE_SUCCESS;
}

/* One section of POINT_DATA or CELL_DATA (count tuples); *known 0 when w[0] is none. */
static int attribute(struct reader *r, char w[6][LINE / 4], int n, int point_data, size_t count,
                     int *known)
{
  static const struct {
    const char *name;
    int comps; /* 0: from the line */
  } fixed[] = {{"VECTORS", 3}, {"NORMALS", 3}, {"TENSORS", 9}, {"TENSORS6", 6}};
  *known = 1;
  for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++)
    if (fe_scan_is(w[0], fixed[k].name)) {
      FE_CALL(check_words(r, n, 3, "VECTORS name dataType"));
      return array(r, point_data, w[1], count, fixed[k].comps, w[2], fixed[k].name);
    }
  if (fe_scan_is(w[0], "SCALARS")) {
    FE_CALL(check_words(r, n, 3, "SCALARS name dataType [numComp]"));
    size_t comps = 1;
    if (n > 3) FE_CALL(count_of(r, w[3], "SCALARS", &comps));
    char name[LINE / 4], type[LINE / 4];
    snprintf(name, sizeof name, "%s", w[1]);
    snprintf(type, sizeof type, "%s", w[2]);
    if (!keyword_line(r, w, &n) || !fe_scan_is(w[0], "LOOKUP_TABLE"))
      return fail(r, "found '%s' after SCALARS; expected 'LOOKUP_TABLE name'", r->line);
    return array(r, point_data, name, count, (int)(comps < 100 ? comps : 100), type, "SCALARS");
  }
  if (fe_scan_is(w[0], "TEXTURE_COORDINATES")) {
    size_t dim;
    FE_CALL(check_words(r, n, 4, "TEXTURE_COORDINATES name dim dataType"));
    FE_CALL(count_of(r, w[2], "TEXTURE_COORDINATES", &dim));
    return values(r, w[3], count * dim, "TEXTURE_COORDINATES", NULL);
  }
  if (fe_scan_is(w[0], "COLOR_SCALARS")) { /* unsigned char in binary, floats in ASCII */
    size_t m;
    FE_CALL(check_words(r, n, 3, "COLOR_SCALARS name nValues"));
    FE_CALL(count_of(r, w[2], "COLOR_SCALARS", &m));
    return values(r, r->binary ? "unsigned_char" : "float", count * m, "COLOR_SCALARS", NULL);
  }
  if (fe_scan_is(w[0], "LOOKUP_TABLE")) {
    size_t m;
    FE_CALL(check_words(r, n, 3, "LOOKUP_TABLE name size"));
    FE_CALL(count_of(r, w[2], "LOOKUP_TABLE", &m));
    return values(r, r->binary ? "unsigned_char" : "float", 4 * m, "LOOKUP_TABLE", NULL);
  }
  if (fe_scan_is(w[0], "GLOBAL_IDS") || fe_scan_is(w[0], "PEDIGREE_IDS")) {
    FE_CALL(check_words(r, n, 3, "GLOBAL_IDS name dataType"));
    return values(r, w[2], count, w[0], NULL);
  }
  if (fe_scan_is(w[0], "FIELD")) return field_data(r, w, n, point_data);
  if (fe_scan_is(w[0], "METADATA")) {
    metadata(r);
    return FE_SUCCESS;
  }
  *known = 0;
  return FE_SUCCESS;
}

static int header(struct reader *r)
{
  char w[6][LINE / 4];
  int n, major = 0, minor = 0;
  if (!fe_scan_line(&r->s, r->line, sizeof r->line) ||
      sscanf(r->line, "# vtk DataFile Version %d.%d", &major, &minor) < 1)
    return fail(r, "it does not start with '# vtk DataFile Version'");
  if (major < 1 || major > 99 || minor < 0 || minor > 9)
    return fail(r, "'%s': version %d.%d; expected a version such as 3.0 or 5.1", r->line, major,
                minor);
  r->version = 10 * major + minor;
  if (!fe_scan_line(&r->s, r->line, sizeof r->line)) return fail(r, "no title line");
  if (!keyword_line(r, w, &n) || !(fe_scan_is(w[0], "ASCII") || fe_scan_is(w[0], "BINARY")))
    return fail(r, "found '%s' on the third line; expected ASCII or BINARY", r->line);
  r->binary = fe_scan_is(w[0], "BINARY");
  if (!keyword_line(r, w, &n) || !fe_scan_is(w[0], "DATASET") || n < 2)
    return fail(r, "found '%s' after the header; expected 'DATASET UNSTRUCTURED_GRID'", r->line);
  if (!fe_scan_is(w[1], "UNSTRUCTURED_GRID"))
    return fail(r, "a dataset %s; expected UNSTRUCTURED_GRID, the mesh's cells with their points",
                w[1]);
  return FE_SUCCESS;
}

static int sections(struct reader *r)
{
  char w[6][LINE / 4];
  int n, point_data = 0, in_data = 0, known;
  size_t count = 0;
  while (!(r->have_points && r->pd->values) && keyword_line(r, w, &n)) {
    if (fe_scan_is(w[0], "POINTS"))
      FE_CALL(points(r, w, n));
    else if (fe_scan_is(w[0], "CELLS"))
      FE_CALL(cells(r, w, n));
    else if (fe_scan_is(w[0], "CELL_TYPES")) {
      FE_CALL(check_words(r, n, 2, "CELL_TYPES n"));
      FE_CALL(count_of(r, w[1], "CELL_TYPES", &count));
      FE_CALL(values(r, "int", count, "CELL_TYPES", NULL));
    } else if (fe_scan_is(w[0], "POINT_DATA") || fe_scan_is(w[0], "CELL_DATA")) {
      FE_CALL(check_words(r, n, 2, "POINT_DATA n"));
      FE_CALL(count_of(r, w[1], w[0], &count));
      point_data = fe_scan_is(w[0], "POINT_DATA");
      in_data = 1;
      if (point_data && (!r->have_points || count != r->n_points))
        return fail(r, "POINT_DATA %zu for %zu POINTS", count, r->n_points);
    } else if (fe_scan_is(w[0], "FIELD") && !in_data) {
      FE_CALL(field_data(r, w, n, 0));
    } else if (fe_scan_is(w[0], "METADATA")) {
      metadata(r);
    } else {
      FE_CALL(attribute(r, w, n, point_data && in_data, count, &known));
      if (!known || !in_data)
        return fail(r, "found '%s'; expected a section of an UNSTRUCTURED_GRID", r->line);
    }
  }
  if (!r->have_points) return fail(r, "no POINTS");
  if (!r->pd->values)
    FE_RAISE(FE_ERR_INPUT,
             "%s: no point array named '%s' (SCALARS, VECTORS or FIELD array of its POINT_DATA); "
             "expected the velocity at the points, named as <velocity field> says",
             r->shown, r->field);
  return FE_SUCCESS;
}

int fe_vtk_read_points(const char *shown, const unsigned char *bytes, size_t size,
                       const char *field, struct fe_point_data *pd)
{
  struct reader r = {.shown = shown, .field = field, .pd = pd};
  fe_scan_init(&r.s, bytes, size);
  memset(pd, 0, sizeof *pd);
  int err = header(&r);
  if (!err) err = sections(&r);
  if (err) {
    fe_point_data_free(pd);
    return err;
  }
  pd->n = r.n_points;
  return FE_SUCCESS;
}
