/* The VTK XML reader of velocity snapshots (.vtu, "VTK File Formats", XML
 * UnstructuredGrid): one Piece, its Points and one PointData array, read
 * through libxml2.  DataArray formats ascii, binary (base64, inline) and
 * appended (raw or base64); headers UInt32 or UInt64, either byte order; no
 * compression or vtkZLibDataCompressor (zlib), as ParaView and meshio write by
 * default.  Raw appended data is not XML: the document is parsed up to it,
 * and the arrays are read from the bytes after its '_'. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <zlib.h>

#include "core/error.h"
#include "io/point_data.h"
#include "io/xml.h"

struct vtu {
  const char *shown;
  int big;                       /* byte_order="BigEndian" */
  int header;                    /* bytes of a header integer: 4 (UInt32) or 8 (UInt64) */
  int zlib;                      /* compressor="vtkZLibDataCompressor" */
  const unsigned char *appended; /* the appended data after its '_', or NULL */
  size_t appended_size;
  int appended_base64;
};

/* A DataArray's bytes as they come: raw, or base64 decoded quantum by quantum (a padded
 * quantum ends early and decoding goes on: VTK encodes the header and the data apart, other
 * writers together), the bytes of a quantum not taken yet kept for the next take. */
struct source {
  const unsigned char *p, *end;
  int base64;
  unsigned char pending[3];
  int at, have; /* pending[at .. have) not taken yet */
};

static int fail(const struct vtu *v, xmlNode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(const struct vtu *v, xmlNode *n, const char *fmt, ...)
{
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (n)
    FE_RAISE(FE_ERR_INPUT, "%s:%ld: <%s>: %s", v->shown, xmlGetLineNo(n), (const char *)n->name,
             msg);
  FE_RAISE(FE_ERR_INPUT, "%s: %s", v->shown, msg);
}

static int sextet(unsigned char c)
{
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

/* The next base64 quantum's bytes into s->pending: 1, or 0 at the end or for a bad one. */
static int quantum(struct source *s)
{
  int q[4], k = 0;
  while (k < 4 && s->p < s->end) {
    const unsigned char c = *s->p++;
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    q[k] = c == '=' ? -2 : sextet(c);
    if (q[k++] == -1) return 0;
  }
  if (k < 4 || q[0] < 0 || q[1] < 0 || (q[2] == -2 && q[3] != -2)) return 0;
  s->pending[0] = (unsigned char)(q[0] << 2 | q[1] >> 4);
  s->pending[1] = (unsigned char)((q[1] & 15) << 4 | (q[2] < 0 ? 0 : q[2] >> 2));
  s->pending[2] = (unsigned char)((q[2] < 0 ? 0 : (q[2] & 3) << 6) | (q[3] < 0 ? 0 : q[3]));
  s->at = 0;
  s->have = q[2] < 0 ? 1 : q[3] < 0 ? 2 : 3;
  return 1;
}

/* n bytes into out: 1, or 0 when the source ends first or holds other characters. */
static int take(struct source *s, unsigned char *out, size_t n)
{
  if (!s->base64) {
    if ((size_t)(s->end - s->p) < n) return 0;
    memcpy(out, s->p, n);
    s->p += n;
    return 1;
  }
  for (size_t got = 0; got < n;) {
    if (s->at == s->have && !quantum(s)) return 0;
    while (s->at < s->have && got < n) out[got++] = s->pending[s->at++];
  }
  return 1;
}

static int take_uint(const struct vtu *v, struct source *s, uint64_t *x)
{
  unsigned char b[8];
  if (!take(s, b, (size_t)v->header)) return 0;
  *x = 0;
  for (int i = 0; i < v->header; i++) *x |= (uint64_t)b[v->big ? v->header - 1 - i : i] << (8 * i);
  return 1;
}

/* The text of n's own text children, without its elements' (VTK puts <InformationKey> elements
 * with values of their own inside a DataArray). */
static xmlChar *own_text(xmlNode *n)
{
  xmlChar *text = NULL;
  for (xmlNode *c = n->children; c; c = c->next)
    if (c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) {
      xmlChar *more = xmlStrcat(text, c->content);
      text = more;
    }
  return text;
}

static const char *attr(xmlNode *n, const char *name, char *buf, size_t size)
{
  xmlChar *s = xmlGetProp(n, BAD_CAST name);
  buf[0] = 0; /* an absent attribute reads as empty in messages */
  if (!s) return NULL;
  snprintf(buf, size, "%s", (const char *)s);
  xmlFree(s);
  return buf;
}

static xmlNode *child(xmlNode *n, const char *name, int *count)
{
  xmlNode *first = NULL;
  *count = 0;
  for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, name)) {
      if (!first) first = c;
      (*count)++;
    }
  return first;
}

/* The bytes of an array: the header's byte count, then the data; compressed: the blocks. */
static int array_bytes(const struct vtu *v, xmlNode *n, struct source *s, size_t want,
                       unsigned char *out)
{
  uint64_t count, blocks, block, last;
  if (!v->zlib) {
    if (!take_uint(v, s, &count))
      return fail(v, n, "its data end before its header (%d bytes), or are not base64", v->header);
    if (count != want)
      return fail(v, n, "its header gives %llu bytes; expected %zu (its values)",
                  (unsigned long long)count, want);
    return take(s, out, want)
               ? FE_SUCCESS
               : fail(v, n, "its data end before their %zu bytes, or are not base64", want);
  }
  if (!take_uint(v, s, &blocks) || !take_uint(v, s, &block) || !take_uint(v, s, &last))
    return fail(v, n, "its compressed data end inside their header, or are not base64");
  const uint64_t total = blocks ? (blocks - 1) * block + (last ? last : block) : 0;
  if (total != want || (blocks && !block) || blocks > want + 1)
    return fail(v, n,
                "its compression header gives %llu blocks of %llu bytes (the last %llu); "
                "expected %zu bytes in all (its values)",
                (unsigned long long)blocks, (unsigned long long)block, (unsigned long long)last,
                want);
  uint64_t *sizes;
  FE_CALL(fe_malloc((size_t)(blocks + 1) * sizeof *sizes, &sizes));
  int err = FE_SUCCESS;
  for (uint64_t b = 0; !err && b < blocks; b++)
    if (!take_uint(v, s, &sizes[b]))
      err = fail(v, n, "its compressed data end inside their header, or are not base64");
  size_t done = 0;
  for (uint64_t b = 0; !err && b < blocks; b++) {
    unsigned char *z = NULL;
    const size_t zn = (size_t)sizes[b];
    uLongf len = (uLongf)(b + 1 < blocks || !last ? block : last);
    if (zn > (size_t)16 * want + 64 || fe_malloc(zn + 1, &z))
      err = fail(v, n, "compressed block %llu of %llu bytes, for %llu bytes", (unsigned long long)b,
                 (unsigned long long)zn, (unsigned long long)len);
    else if (!take(s, z, zn))
      err = fail(v, n, "its data end inside compressed block %llu, or are not base64",
                 (unsigned long long)b);
    else if (uncompress(out + done, &len, z, (uLong)zn) != Z_OK ||
             len != (b + 1 < blocks || !last ? block : last))
      err =
          fail(v, n, "compressed block %llu does not inflate to its %llu bytes (zlib)",
               (unsigned long long)b, (unsigned long long)(b + 1 < blocks || !last ? block : last));
    done += len;
    free(z);
  }
  free(sizes);
  return err;
}

static const struct {
  const char *name;
  enum fe_number_type type;
} types[] = {{"Int8", FE_NUM_I8},    {"UInt8", FE_NUM_U8},   {"Int16", FE_NUM_I16},
             {"UInt16", FE_NUM_U16}, {"Int32", FE_NUM_I32},  {"UInt32", FE_NUM_U32},
             {"Int64", FE_NUM_I64},  {"UInt64", FE_NUM_U64}, {"Float32", FE_NUM_F32},
             {"Float64", FE_NUM_F64}};

/* The values of DataArray n (count tuples of comps components) as doubles, into out. */
static int data_array(const struct vtu *v, xmlNode *n, size_t count, int comps, double *out)
{
  char type[32] = "", format[32] = "ascii", offset[32] = "";
  attr(n, "type", type, sizeof type);
  attr(n, "format", format, sizeof format);
  enum fe_number_type t = FE_NUM_NONE;
  for (size_t i = 0; i < sizeof types / sizeof *types; i++)
    if (!strcmp(type, types[i].name)) t = types[i].type;
  if (t == FE_NUM_NONE)
    return fail(v, n, "type '%s'; expected a number type (Float64, Float32, Int32, ...)", type);
  const size_t values = count * (size_t)comps, bytes = values * (size_t)fe_number_size(t);
  if (!strcmp(format, "ascii")) {
    xmlChar *text = own_text(n);
    const char *p = text ? (const char *)text : "";
    size_t i = 0;
    for (char *end;; i++, p = end) {
      const double x = strtod(p, &end);
      if (end == p) break;
      if (i < values) out[i] = x;
    }
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') p++;
    const int other = *p;
    xmlFree(text);
    if (other) return fail(v, n, "something other than numbers (format ascii)");
    return i == values ? FE_SUCCESS
                       : fail(v, n, "%zu numbers; expected %zu (%zu points, %d components)", i,
                              values, count, comps);
  }
  struct source s;
  xmlChar *text = NULL;
  if (!strcmp(format, "binary")) {
    text = own_text(n);
    const unsigned char *t = (const unsigned char *)(text ? (const char *)text : "");
    s = (struct source){.p = t, .end = t + strlen((const char *)t), .base64 = 1};
  } else if (!strcmp(format, "appended")) {
    char *end;
    const unsigned long long at =
        strtoull(attr(n, "offset", offset, sizeof offset) ? offset : "", &end, 10);
    if (!v->appended) return fail(v, n, "format appended, and the file has no <AppendedData>");
    if (end == offset || *end || at > v->appended_size)
      return fail(v, n, "offset '%s'; expected a place in the appended data (%zu bytes)", offset,
                  v->appended_size);
    s = (struct source){
        .p = v->appended + at, .end = v->appended + v->appended_size, .base64 = v->appended_base64};
  } else {
    return fail(v, n, "format '%s'; expected ascii, binary or appended", format);
  }
  unsigned char *raw;
  int err = fe_malloc(bytes + 1, &raw);
  if (!err) err = array_bytes(v, n, &s, bytes, raw);
  if (!err) fe_number_decode(t, v->big, raw, values, out);
  free(raw);
  xmlFree(text);
  return err;
}

/* The components of DataArray n, as the file says (1 when it does not). */
static int components(const struct vtu *v, xmlNode *n, int *comps)
{
  char buf[32] = "1";
  attr(n, "NumberOfComponents", buf, sizeof buf);
  char *end;
  const long c = strtol(buf, &end, 10);
  if (end == buf || *end || c < 1 || c > 9)
    return fail(v, n, "NumberOfComponents '%s'; expected 1 to 9", buf);
  *comps = (int)c;
  return FE_SUCCESS;
}

static int root_attributes(struct vtu *v, xmlNode *root)
{
  char buf[64];
  if (strcmp((const char *)root->name, "VTKFile"))
    return fail(v, root, "not a VTK XML file; expected <VTKFile type=\"UnstructuredGrid\">");
  if (!attr(root, "type", buf, sizeof buf) || strcmp(buf, "UnstructuredGrid"))
    return fail(v, root,
                "type '%s'; expected UnstructuredGrid (.vtu), the mesh's cells with "
                "their points",
                attr(root, "type", buf, sizeof buf) ? buf : "");
  v->big = attr(root, "byte_order", buf, sizeof buf) && !strcmp(buf, "BigEndian");
  v->header = attr(root, "header_type", buf, sizeof buf) && !strcmp(buf, "UInt64") ? 8 : 4;
  if (attr(root, "header_type", buf, sizeof buf) && strcmp(buf, "UInt32") && strcmp(buf, "UInt64"))
    return fail(v, root, "header_type '%s'; expected UInt32 or UInt64", buf);
  if (attr(root, "compressor", buf, sizeof buf) && buf[0]) {
    if (strcmp(buf, "vtkZLibDataCompressor"))
      return fail(v, root,
                  "compressor '%s': fesim reads vtkZLibDataCompressor and uncompressed "
                  "data; expected the file saved with zlib or no compression",
                  buf);
    v->zlib = 1;
  }
  return FE_SUCCESS;
}

/* The named point array, or the file's only one when it has one and field is its name. */
static xmlNode *point_array(xmlNode *piece, const char *field)
{
  int k;
  xmlNode *pd = child(piece, "PointData", &k);
  for (xmlNode *c = pd ? pd->children : NULL; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE || strcmp((const char *)c->name, "DataArray")) continue;
    xmlChar *name = xmlGetProp(c, BAD_CAST "Name");
    const int same = name && !strcmp((const char *)name, field);
    xmlFree(name);
    if (same) return c;
  }
  return NULL;
}

/* A bound on the values a file of size bytes can hold: zlib inflates at most about 1032 to 1. */
static int plausible(size_t n, size_t size) { return n / 2048 <= size; }

static int read_doc(struct vtu *v, xmlDoc *doc, const char *field, struct fe_point_data *pd,
                    size_t size)
{
  xmlNode *root = xmlDocGetRootElement(doc);
  FE_CALL(root_attributes(v, root));
  int k;
  xmlNode *grid = child(root, "UnstructuredGrid", &k);
  if (!grid) return fail(v, root, "no <UnstructuredGrid>");
  xmlNode *piece = child(grid, "Piece", &k);
  if (k != 1)
    return fail(v, grid,
                "%d pieces; expected one (a parallel run's pieces are separate .vtu "
                "files of a .pvtu: merge them first)",
                k);
  char buf[64];
  char *end;
  const unsigned long long n =
      strtoull(attr(piece, "NumberOfPoints", buf, sizeof buf) ? buf : "", &end, 10);
  if (end == buf || *end || !n || n >= (1ull << 40))
    return fail(v, piece, "NumberOfPoints '%s'; expected a number of points > 0", buf);
  if (!plausible(3 * (size_t)n, size))
    return fail(v, piece, "NumberOfPoints %llu, more than a file of %zu bytes can hold", n, size);
  xmlNode *points = child(piece, "Points", &k), *coords = child(points, "DataArray", &k);
  if (!coords) return fail(v, piece, "no <Points> with a <DataArray>");
  int comps;
  FE_CALL(components(v, coords, &comps));
  if (comps != 3) return fail(v, coords, "points of %d components; expected 3", comps);
  xmlNode *values = point_array(piece, field);
  if (!values)
    return fail(v, piece,
                "no point array named '%s' (<PointData><DataArray Name=\"%s\">); "
                "expected the velocity at the points, named as <velocity field> says",
                field, field);
  FE_CALL(components(v, values, &comps));
  pd->n = (size_t)n;
  pd->components = comps;
  FE_CALL(fe_malloc(pd->n * 3 * sizeof(double), &pd->points));
  FE_CALL(fe_malloc(pd->n * (size_t)comps * sizeof(double), &pd->values));
  FE_CALL(data_array(v, coords, pd->n, 3, pd->points));
  return data_array(v, values, pd->n, comps, pd->values);
}

/* Where the appended data start: after the '_' that follows <AppendedData ...>, or none. */
static const unsigned char *appended_start(const unsigned char *bytes, size_t size, int *base64,
                                           size_t *tag)
{
  const char *open = strstr((const char *)bytes, "<AppendedData");
  if (!open || (size_t)(open - (const char *)bytes) >= size) return NULL;
  const char *close = strchr(open, '>'), *enc = strstr(open, "encoding=");
  if (!close) return NULL;
  *base64 = enc && enc < close && !strncmp(enc + 10, "base64", 6);
  *tag = (size_t)(close + 1 - (const char *)bytes);
  const char *under = close + 1;
  while (*under == ' ' || *under == '\n' || *under == '\r' || *under == '\t') under++;
  return *under == '_' ? (const unsigned char *)under + 1 : NULL;
}

int fe_vtu_read_points(const char *shown, const unsigned char *bytes, size_t size,
                       const char *field, struct fe_point_data *pd)
{
  struct vtu v = {.shown = shown};
  size_t head = size, tag = 0;
  memset(pd, 0, sizeof *pd);
  v.appended = appended_start(bytes, size, &v.appended_base64, &tag);
  char *text = NULL;
  if (v.appended) { /* the document up to the data, closed */
    static const char close[] = "</AppendedData></VTKFile>";
    v.appended_size = size - (size_t)(v.appended - bytes);
    head = tag + sizeof close - 1;
    FE_CALL(fe_malloc(head + 1, &text));
    memcpy(text, bytes, tag);
    memcpy(text + tag, close, sizeof close);
  }
  struct fe_xml_error e = {0};
  xmlDoc *doc = fe_xml_parse(shown, text ? text : (const char *)bytes, head, XML_PARSE_HUGE, &e);
  int err = FE_SUCCESS;
  if (!doc)
    err = fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                         "%s:%d: malformed XML: %s; expected a VTK XML file (.vtu)", shown, e.line,
                         e.msg);
  else if (doc->intSubset || doc->extSubset)
    err = fail(&v, NULL, "a document type declaration (<!DOCTYPE ...>); expected none");
  else
    err = read_doc(&v, doc, field, pd, size);
  xmlFreeDoc(doc);
  free(text);
  if (err) fe_point_data_free(pd);
  return err;
}
