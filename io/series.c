#include "io/series.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "core/error.h"
#include "io/file.h"
#include "io/xml.h"

enum { MAX_ENTRIES = 10000000, MAX_DEPTH = 64 };

struct list {
  const char *path, *shown;
  struct fe_series_entry *e;
  int n, cap;
};

/* dir of path + name, or name when it is absolute or path has no folder. */
static int resolve(const char *path, const char *name, char **out)
{
  const char *slash = strrchr(path, '/');
  if (name[0] == '/' || !slash) return fe_strdup(name, out);
  const size_t dir = (size_t)(slash - path) + 1, n = dir + strlen(name) + 1;
  FE_CALL(fe_malloc(n, out));
  memcpy(*out, path, dir);
  memcpy(*out + dir, name, n - dir);
  return FE_SUCCESS;
}

static int add(struct list *l, const char *name, double time)
{
  if (l->n == l->cap) {
    FE_CHECK(l->cap < MAX_ENTRIES, FE_ERR_INPUT, "%s: more than %d files; expected at most that",
             l->shown, MAX_ENTRIES);
    const int cap = l->cap ? 2 * l->cap : 16;
    struct fe_series_entry *more = realloc(l->e, (size_t)cap * sizeof *more);
    FE_CHECK(more, FE_ERR_RESOURCE, "out of host memory reading %s", l->shown);
    l->e = more;
    l->cap = cap;
  }
  l->e[l->n].time = time;
  FE_CALL(resolve(l->path, name, &l->e[l->n].file));
  l->n++;
  return FE_SUCCESS;
}

/* ---------------------------------------------------------------- JSON (.series) */

struct json {
  const char *shown;
  const char *p;
  long line;
  struct list *list;
};

static int json_fail(const struct json *j, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int json_fail(const struct json *j, const char *fmt, ...)
{
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  FE_RAISE(FE_ERR_INPUT,
           "%s:%ld: %s; expected a file series, {\"files\": [{\"name\": ..., \"time\": ...}, ...]} "
           "(JSON)",
           j->shown, j->line, msg);
}

static void blanks(struct json *j)
{
  while (isspace((unsigned char)*j->p)) j->line += *j->p++ == '\n';
}

static int expect(struct json *j, char c)
{
  blanks(j);
  if (*j->p != c) return json_fail(j, "found '%.12s' where '%c' belongs", j->p, c);
  j->p++;
  return FE_SUCCESS;
}

/* A string into buf (UTF-8; escapes decoded), or skipped (buf NULL). */
static int string(struct json *j, char *buf, size_t size)
{
  size_t n = 0;
  FE_CALL(expect(j, '"'));
  for (;;) {
    unsigned c = (unsigned char)*j->p++;
    if (c == '"') break;
    if (c < 0x20) return json_fail(j, "a string that does not end on its line");
    if (c == '\\') {
      const char e = *j->p;
      if (!e) return json_fail(j, "a string that does not end");
      j->p++;
      const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t", *k = e ? strchr(from, e) : NULL;
      unsigned u;
      if (k)
        c = (unsigned char)to[k - from];
      else if (e == 'u' && isxdigit((unsigned char)j->p[0]) && isxdigit((unsigned char)j->p[1]) &&
               isxdigit((unsigned char)j->p[2]) && isxdigit((unsigned char)j->p[3]) &&
               sscanf(j->p, "%4x", &u) == 1) {
        j->p += 4;
        char utf[4];
        int m = u < 0x80 ? 1 : u < 0x800 ? 2 : 3;
        if (m == 1) utf[0] = (char)u;
        if (m == 2) utf[0] = (char)(0xC0 | u >> 6), utf[1] = (char)(0x80 | (u & 63));
        if (m == 3)
          utf[0] = (char)(0xE0 | u >> 12), utf[1] = (char)(0x80 | (u >> 6 & 63)),
          utf[2] = (char)(0x80 | (u & 63));
        for (int i = 0; i < m; i++)
          if (buf && n + 1 < size) buf[n++] = utf[i];
        continue;
      } else {
        return json_fail(j, "a string with the escape '\\%c'", e ? e : ' ');
      }
    }
    if (buf && n + 1 < size) buf[n++] = (char)c;
  }
  if (buf) buf[n] = '\0';
  return FE_SUCCESS;
}

static int number(struct json *j, double *v)
{
  blanks(j);
  char *end;
  *v = strtod(j->p, &end);
  if (end == j->p || !strchr("-0123456789", *j->p))
    return json_fail(j, "found '%.12s' where a number belongs", j->p);
  j->p = end;
  return FE_SUCCESS;
}

/* The members of an object, member() reading each value after its key; or the elements of an
 * array, member() reading each (key NULL). */
static int members(struct json *j, int array, int (*member)(struct json *, const char *, void *),
                   void *ctx)
{
  const char open = array ? '[' : '{', close = array ? ']' : '}';
  char key[64];
  FE_CALL(expect(j, open));
  blanks(j);
  if (*j->p == close) return j->p++, FE_SUCCESS;
  for (;;) {
    if (!array) {
      FE_CALL(string(j, key, sizeof key));
      FE_CALL(expect(j, ':'));
      blanks(j);
    }
    FE_CALL(member(j, array ? NULL : key, ctx));
    blanks(j);
    if (*j->p == close) return j->p++, FE_SUCCESS;
    FE_CALL(expect(j, ','));
  }
}

/* Any value, skipped; ctx: its depth. */
static int skip(struct json *j, const char *key, void *ctx)
{
  (void)key;
  const int depth = *(const int *)ctx + 1;
  double v;
  if (depth > MAX_DEPTH) return json_fail(j, "more than %d levels of nesting", MAX_DEPTH);
  blanks(j);
  if (*j->p == '"') return string(j, NULL, 0);
  if (*j->p == '{' || *j->p == '[') return members(j, *j->p == '[', skip, (void *)&depth);
  static const char *const words[] = {"true", "false", "null"};
  for (int i = 0; i < 3; i++)
    if (!strncmp(j->p, words[i], strlen(words[i]))) return j->p += strlen(words[i]), FE_SUCCESS;
  return number(j, &v);
}

struct entry {
  char name[4096];
  int have_name;
  double time;
};

static int entry_member(struct json *j, const char *key, void *ctx)
{
  struct entry *e = ctx;
  static const int depth = 2;
  if (!strcmp(key, "name") && *j->p == '"')
    return e->have_name = 1, string(j, e->name, sizeof e->name);
  if (!strcmp(key, "time")) return number(j, &e->time);
  return skip(j, key, (void *)&depth);
}

/* {"name": "...", "time": T}, entry k of "files" (ctx: k) */
static int entry(struct json *j, const char *key, void *ctx)
{
  (void)key;
  struct entry e = {.time = NAN};
  const size_t k = (*(size_t *)ctx)++;
  FE_CALL(members(j, 0, entry_member, &e));
  if (!e.have_name || !e.name[0]) return json_fail(j, "entry %zu of \"files\" has no \"name\"", k);
  if (!isfinite(e.time)) return json_fail(j, "entry %zu of \"files\" has no finite \"time\"", k);
  return add(j->list, e.name, e.time);
}

/* The index's members: "files" read, the others skipped; ctx: whether "files" was there. */
static int series_member(struct json *j, const char *key, void *ctx)
{
  static const int depth = 1;
  size_t k = 0;
  if (strcmp(key, "files") || *j->p != '[') return skip(j, key, (void *)&depth);
  *(int *)ctx = 1;
  return members(j, 1, entry, &k);
}

static int json_series(struct json *j)
{
  int files = 0;
  FE_CALL(members(j, 0, series_member, &files));
  return files ? FE_SUCCESS : json_fail(j, "no \"files\" list");
}

/* ---------------------------------------------------------------- XML (.pvd) */

static int pvd_series(struct list *l, const unsigned char *bytes, size_t size)
{
  struct fe_xml_error e = {0};
  xmlDoc *doc = fe_xml_parse(l->shown, (const char *)bytes, size, 0, &e);
  FE_CHECK(doc, FE_ERR_INPUT, "%s:%d: malformed XML: %s; expected a VTK collection (.pvd)",
           l->shown, e.line, e.msg);
  xmlNode *root = xmlDocGetRootElement(doc), *coll = NULL;
  xmlChar *type = root ? xmlGetProp(root, BAD_CAST "type") : NULL;
  int err = FE_SUCCESS;
  if (doc->intSubset || !root || strcmp((const char *)root->name, "VTKFile") || !type ||
      strcmp((const char *)type, "Collection"))
    err = fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                         "%s: not a VTK collection; expected <VTKFile type=\"Collection\"> "
                         "(.pvd)",
                         l->shown);
  xmlFree(type);
  for (xmlNode *c = err ? NULL : root->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, "Collection")) coll = c;
  for (xmlNode *d = coll ? coll->children : NULL; !err && d; d = d->next) {
    if (d->type != XML_ELEMENT_NODE || strcmp((const char *)d->name, "DataSet")) continue;
    xmlChar *file = xmlGetProp(d, BAD_CAST "file"), *step = xmlGetProp(d, BAD_CAST "timestep");
    char *end = NULL;
    const double t = step ? strtod((const char *)step, &end) : NAN;
    if (!file || !file[0] || !step || end == (char *)step || *end || !isfinite(t))
      err = fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                           "%s:%ld: <DataSet>: found file=\"%s\" timestep=\"%s\"; expected a "
                           "file name and a finite time",
                           l->shown, xmlGetLineNo(d), file ? (const char *)file : "",
                           step ? (const char *)step : "");
    else
      err = add(l, (const char *)file, t);
    xmlFree(file);
    xmlFree(step);
  }
  xmlFreeDoc(doc);
  return err;
}

int fe_series_read(const char *path, struct fe_series_entry **entries, int *n)
{
  char shown[FE_QUOTE_SIZE];
  struct list l = {.path = path, .shown = fe_path_shown(path, shown, sizeof shown)};
  unsigned char *bytes;
  size_t size;
  *entries = NULL;
  *n = 0;
  FE_CALL(fe_file_read(path, "series index", "a .vtk.series or .pvd file", &bytes, &size));
  const char *dot = strrchr(path, '.');
  int err;
  if (dot && !strcasecmp(dot, ".pvd")) {
    err = pvd_series(&l, bytes, size);
  } else {
    struct json j = {.shown = l.shown, .p = (const char *)bytes, .line = 1, .list = &l};
    err = strlen((const char *)bytes) != size
              ? fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                               "%s: a NUL byte; expected a JSON file series", l.shown)
              : json_series(&j);
  }
  free(bytes);
  if (!err && !l.n)
    err = fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__, "%s: no files; expected at least one",
                         l.shown);
  if (err) {
    fe_series_free(l.e, l.n);
    return err;
  }
  *entries = l.e;
  *n = l.n;
  return FE_SUCCESS;
}

void fe_series_free(struct fe_series_entry *entries, int n)
{
  for (int i = 0; i < n; i++) free(entries[i].file);
  free(entries);
}
