#include "io/vtk.h"

#include "core/error.h"
#include "io/outdir.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { VTK_TRIANGLE = 5, VTK_TETRA = 10 };
enum { BUFFER_BYTES = 1 << 18 };

/* A file being written: conversion buffer, and the errno of the first failed write, which the
 * caller reports once with the path. */
struct writer {
  FILE *file;
  unsigned char *buf;
  int io_errno;
};

struct dump {
  double time;
  const struct fe_mesh *mesh;
  int n_fields;
  const struct fe_vtk_field *fields;
};

struct series {
  const char *name;
  long n;
  const double *times;
};

static void put_be32(unsigned char *p, int32_t value)
{
  uint32_t v = (uint32_t)value;
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (24 - 8 * i));
}

static void put_be64(unsigned char *p, double value)
{
  uint64_t v;
  memcpy(&v, &value, sizeof v);
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (56 - 8 * i));
}

static int emit(struct writer *w, const void *data, size_t bytes)
{
  if (w->io_errno) return FE_ERR_RESOURCE;
  if (bytes && fwrite(data, 1, bytes, w->file) != bytes) {
    w->io_errno = errno ? errno : EIO;
    return FE_ERR_RESOURCE;
  }
  return FE_SUCCESS;
}

static int emitf(struct writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int emitf(struct writer *w, const char *fmt, ...)
{
  if (w->io_errno) return FE_ERR_RESOURCE;
  va_list ap;
  va_start(ap, fmt);
  int n = vfprintf(w->file, fmt, ap);
  va_end(ap);
  if (n < 0) {
    w->io_errno = errno ? errno : EIO;
    return FE_ERR_RESOURCE;
  }
  return FE_SUCCESS;
}

/* n tuples of comps_out big-endian doubles from src (comps_in per tuple), missing components 0. */
static int emit_doubles(struct writer *w, size_t n, int comps_out, const double *src, int comps_in)
{
  const size_t per_block = BUFFER_BYTES / (8 * (size_t)comps_out);
  for (size_t start = 0; start < n; start += per_block) {
    size_t count = n - start < per_block ? n - start : per_block;
    unsigned char *p = w->buf;
    for (size_t i = start; i < start + count; i++)
      for (int c = 0; c < comps_out; c++, p += 8)
        put_be64(p, c < comps_in ? src[i * comps_in + c] : 0.0);
    FE_CALL(emit(w, w->buf, (size_t)(p - w->buf)));
  }
  return emit(w, "\n", 1);
}

/* n tuples of the ints src[i * stride .. + count) (src NULL: the constant `fill`), each tuple
 * preceded by `prefix` when prefix >= 0. */
static int emit_ints(struct writer *w, size_t n, const int *src, int stride, int prefix, int fill)
{
  const size_t width = (size_t)stride + (prefix >= 0);
  const size_t per_block = BUFFER_BYTES / (4 * width);
  for (size_t start = 0; start < n; start += per_block) {
    size_t count = n - start < per_block ? n - start : per_block;
    unsigned char *p = w->buf;
    for (size_t i = start; i < start + count; i++) {
      if (prefix >= 0) {
        put_be32(p, prefix);
        p += 4;
      }
      for (int c = 0; c < stride; c++, p += 4) put_be32(p, src ? src[i * stride + c] : fill);
    }
    FE_CALL(emit(w, w->buf, (size_t)(p - w->buf)));
  }
  return emit(w, "\n", 1);
}

/* Legacy VTK names end at white space; VTK's own writer escapes as %XX, its reader decodes. */
static int emit_name(struct writer *w, const char *name)
{
  for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
    if (*c <= ' ' || *c > '~' || *c == '%')
      FE_CALL(emitf(w, "%%%02X", *c));
    else
      FE_CALL(emit(w, c, 1));
  }
  return FE_SUCCESS;
}

static int emit_field(struct writer *w, int n_nodes, const struct fe_vtk_field *f)
{
  FE_CALL(emitf(w, f->components == 1 ? "SCALARS " : "VECTORS "));
  FE_CALL(emit_name(w, f->name));
  FE_CALL(emitf(w, f->components == 1 ? " double 1\nLOOKUP_TABLE default\n" : " double\n"));
  return emit_doubles(w, (size_t)n_nodes, f->components, f->values, f->components_in);
}

static int write_dump(struct writer *w, const void *ctx)
{
  const struct dump *d = ctx;
  const struct fe_mesh *m = d->mesh;
  unsigned char time_be[8];
  put_be64(time_be, d->time);
  FE_CALL(emitf(w, "# vtk DataFile Version 3.0\nfesim time %.17g\nBINARY\n", d->time));
  FE_CALL(emitf(w, "DATASET UNSTRUCTURED_GRID\nFIELD FieldData 1\nTIME 1 1 double\n"));
  FE_CALL(emit(w, time_be, sizeof time_be));
  FE_CALL(emitf(w, "\nPOINTS %d double\n", m->n_nodes));
  FE_CALL(emit_doubles(w, (size_t)m->n_nodes, 3, m->coords, m->dim));
  FE_CALL(emitf(w, "CELLS %d %lld\n", m->n_cells, (long long)m->n_cells * (m->nv + 1)));
  FE_CALL(emit_ints(w, (size_t)m->n_cells, m->cells, m->nv, m->nv, 0));
  FE_CALL(emitf(w, "CELL_TYPES %d\n", m->n_cells));
  FE_CALL(emit_ints(w, (size_t)m->n_cells, NULL, 1, -1, m->dim == 2 ? VTK_TRIANGLE : VTK_TETRA));
  FE_CALL(emitf(w, "POINT_DATA %d\n", m->n_nodes));
  for (int i = 0; i < d->n_fields; i++) FE_CALL(emit_field(w, m->n_nodes, &d->fields[i]));
  FE_CALL(emitf(w, "CELL_DATA %d\nSCALARS region int 1\nLOOKUP_TABLE default\n", m->n_cells));
  return emit_ints(w, (size_t)m->n_cells, m->cell_region, 1, -1, 0);
}

static int emit_json_string(struct writer *w, const char *s)
{
  FE_CALL(emit(w, "\"", 1));
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    if (*c == '"' || *c == '\\')
      FE_CALL(emitf(w, "\\%c", *c));
    else if (*c < 0x20)
      FE_CALL(emitf(w, "\\u%04x", *c));
    else
      FE_CALL(emit(w, c, 1));
  }
  return emit(w, "\"", 1);
}

static int write_series(struct writer *w, const void *ctx)
{
  const struct series *s = ctx;
  FE_CALL(emitf(w, "{\n  \"file-series-version\": \"1.0\",\n  \"files\": ["));
  for (long i = 0; i < s->n; i++) {
    char *file;
    FE_CALL(fe_vtk_path(NULL, s->name, i, &file));
    int err = emitf(w, "%s\n    { \"name\": ", i ? "," : "");
    if (!err) err = emit_json_string(w, file);
    free(file);
    FE_CALL(err);
    FE_CALL(emitf(w, ", \"time\": %.17g }", s->times[i]));
  }
  return emitf(w, "\n  ]\n}\n");
}

/* Write path through its temporary file (io/outdir.h) and rename it over path, so readers never
 * see a partial file.  On any failure the temporary file is removed. */
static int write_atomic(const char *path, int (*body)(struct writer *, const void *),
                        const void *ctx, size_t buffer_bytes)
{
  char *tmp, q[FE_QUOTE_SIZE];
  FE_CALL(fe_outdir_tmp_path(path, &tmp));
  struct writer w = {0};
  int err = fe_malloc(buffer_bytes, &w.buf);
  errno = 0;
  w.file = err ? NULL : fopen(tmp, "wb");
  if (!err && !w.file) w.io_errno = errno ? errno : EIO;
  if (w.file) {
    err = body(&w, ctx);
    if (!w.io_errno && fflush(w.file) != 0) w.io_errno = errno ? errno : EIO;
    if (fclose(w.file) != 0 && !w.io_errno) w.io_errno = errno ? errno : EIO;
    if (!err && !w.io_errno && rename(tmp, path) != 0) w.io_errno = errno ? errno : EIO;
    if (err || w.io_errno) remove(tmp);
  }
  free(w.buf);
  free(tmp);
  if (w.io_errno)
    FE_RAISE(FE_ERR_RESOURCE, "cannot write %s: %s", fe_quote(path, FE_QUOTE_MAX, q, sizeof q),
             strerror(w.io_errno));
  return err;
}

size_t fe_vtk_encoded_length(const char *name)
{
  size_t n = 0;
  for (const unsigned char *c = (const unsigned char *)name; *c; c++)
    n += *c <= ' ' || *c > '~' || *c == '%' ? 3 : 1;
  return n;
}

int fe_vtk_name_clash(int n, const char *const *names, const char **other)
{
  static const char *const own[] = {FE_VTK_CELL_FIELD, FE_VTK_TIME_FIELD};
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < 2; k++)
      if (!strcmp(names[i], own[k])) {
        *other = own[k];
        return i;
      }
    for (int j = 0; j < i; j++)
      if (!strcmp(names[i], names[j])) {
        *other = names[j];
        return i;
      }
  }
  *other = NULL;
  return -1;
}

static int check_dump(const char *path, const struct fe_mesh *m, int n_fields,
                      const struct fe_vtk_field *fields)
{
  char q[FE_QUOTE_SIZE];
  fe_quote(path, FE_QUOTE_MAX, q, sizeof q);
  FE_CHECK(m->dim == 2 || m->dim == 3, FE_ERR_INPUT,
           "VTK dump %s: mesh dimension %d, expected 2 or 3", q, m->dim);
  const char *names[16], *other;
  FE_CHECK(n_fields >= 0 && n_fields <= 16, FE_ERR_INPUT,
           "VTK dump %s: %d fields, expected at most 16", q, n_fields);
  for (int i = 0; i < n_fields; i++) {
    const struct fe_vtk_field *f = &fields[i];
    int ok = f->name && f->name[0] && f->values &&
             ((f->components == 1 && f->components_in == 1) ||
              (f->components == 3 && f->components_in >= 1 && f->components_in <= 3));
    FE_CHECK(ok, FE_ERR_INPUT,
             "VTK dump %s: field %d (\"%s\"): %d components from %d stored, expected 1 from 1 "
             "or 3 from 1-3, with values",
             q, i, f->name ? f->name : "", f->components, f->components_in);
    FE_CHECK(fe_vtk_encoded_length(f->name) <= FE_VTK_NAME_MAX, FE_ERR_INPUT,
             "VTK dump %s: the name of field %d is %zu bytes long in the file; VTK's reader takes "
             "at most %d",
             q, i, fe_vtk_encoded_length(f->name), FE_VTK_NAME_MAX);
    names[i] = f->name;
  }
  const int clash = fe_vtk_name_clash(n_fields, names, &other);
  FE_CHECK(clash < 0, FE_ERR_INPUT,
           "VTK dump %s: field %d is named \"%s\" like another array of the dump", q, clash,
           other ? other : "");
  return FE_SUCCESS;
}

int fe_vtk_write(const char *path, double time, const struct fe_mesh *mesh, int n_fields,
                 const struct fe_vtk_field *fields)
{
  FE_CALL(check_dump(path, mesh, n_fields, fields));
  struct dump d = {time, mesh, n_fields, fields};
  return write_atomic(path, write_dump, &d, BUFFER_BYTES);
}

int fe_vtk_write_series(const char *path, const char *name, long n, const double *times)
{
  char q[FE_QUOTE_SIZE];
  for (long i = 0; i < n; i++)
    FE_CHECK(isfinite(times[i]), FE_ERR_NUMERICAL, "%s: time of dump %ld is %g",
             fe_quote(path, FE_QUOTE_MAX, q, sizeof q), i, times[i]);
  struct series s = {name, n, times};
  return write_atomic(path, write_series, &s, 0);
}

int fe_vtk_path(const char *dir, const char *name, long index, char **path)
{
  return fe_outdir_path(dir, path, "%s_%06ld.vtk", name, index);
}
