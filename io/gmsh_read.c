#define _GNU_SOURCE /* memmem */
#include "io/gmsh_read.h"

#include "core/error.h"

#include <ctype.h>
#include <errno.h>
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
 * error; the flush Gmsh itself uses is not in its API, so it is called when
 * present.  Its parser's current line is exported as a plain global. */
void fe_gmsh_yyflush(void) __asm__("_Z12gmsh_yyflushv") __attribute__((weak));
extern int gmsh_yylineno __attribute__((weak));

int fe_gmsh_parse_line(void) { return &gmsh_yylineno ? gmsh_yylineno : 0; }

/* Meshing (Gmsh's own structures) and a run (element matrices of four
 * operators, geometry, vectors) need about this much per cell, measured
 * with the default case; the larger of the two is what must fit. */
size_t fe_gmsh_bytes_per_cell(int dim) { return dim == 2 ? 1024 : 2048; }

/* The reading state: a raw mesh being filled, and Gmsh's node tags mapped
 * to positions in its node list. */
struct reader {
  const char *file; /* read by Gmsh */
  int geo;          /* a script, run and meshed (fe_mesh_is_geo) */
  const char *path; /* as messages name it */
  const struct fe_gmsh_options *o;
  struct fe_mesh_raw *r;
  int *dense; /* node tag -> position when tags are compact, else NULL */
  size_t dense_n;
  size_t *sorted_tags; /* sorted (tag, position) pairs when tags are sparse */
  int *sorted_index;
  size_t cap_cells, cap_facets;
};

static void reader_free(struct reader *rd)
{
  free(rd->dense);
  free(rd->sorted_tags);
  free(rd->sorted_index);
  rd->dense = NULL;
  rd->sorted_tags = NULL;
  rd->sorted_index = NULL;
}

static void progress(const struct reader *rd, int stage, const char *what)
{
  if (rd->o->progress) rd->o->progress(rd->o->ctx, stage, what);
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

/* ---- Gmsh's log ------------------------------------------------------------ */

/* Reports the first error Gmsh logged, if any or if ierr is set (node tags
 * it skipped as given twice: check_duplicate_nodes). */
static int gmsh_status(const struct reader *rd, int ierr, const char *what)
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
      /* the file as the messages name it, so that a long path leaves the reason in */
      const char *at = strstr(s, rd->file);
      const int cut = at ? (int)(at - s) : (int)strlen(s);
      char said[1024];
      snprintf(said, sizeof said, "%.*s%s%s", cut, s, at ? rd->path : "",
               at ? at + strlen(rd->file) : "");
      snprintf(first, sizeof first, "%.300s%s", said, strlen(said) > 300 ? "..." : "");
    }
    gmshFree(log[i]);
  }
  gmshFree(log);
  if (!ierr && !first[0]) return FE_SUCCESS;
  if (fe_gmsh_yyflush) fe_gmsh_yyflush();
  const char *expected = rd->geo ? (strcmp(what, "read") ? "a geometry that Gmsh can mesh"
                                                         : "a valid Gmsh geometry script")
                                 : "a complete Gmsh mesh (format 2.2 or 4.1, ASCII or binary)";
  FE_RAISE(FE_ERR_INPUT, "%s: Gmsh could not %s it%s%s%s; expected %s", rd->path, what,
           first[0] ? " (" : "", first, first[0] ? ")" : "", expected);
}

/* ---- nodes ----------------------------------------------------------------- */

static int cmp_size(const void *a, const void *b)
{
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

/* ---- the file itself: what Gmsh's API does not tell ---------------------------- */

/* An ASCII reading of a .msh beside Gmsh's, for what Gmsh reads but does not
 * pass on: the coordinates of a node given twice (Gmsh keeps one copy and
 * logs "Skipping duplicate node N"), and the physical names its MSH 2 reader
 * drops.  The file is untrusted: every count is a bound, never a size to
 * allocate, tokens and lines are limited, and anything unexpected stops the
 * reading with the reason (the caller decides what that means). */
struct msh_file {
  FILE *fp;
  int version;   /* 2 for MSH 2.x, 41 for 4.1, 0 for another */
  double number; /* the version as written: 2.2, 3, 4, 4.1 */
  int binary;
  const char *section; /* the section being read, for messages */
  long line;           /* the line of the next character, from 1 */
  long tok_line;       /* the line of the last token */
  char why[160];
};

enum { MSH_TOKEN = 64, MSH_LINE = 1024 };

/* Stops the reading: 0, with the first reason kept ("... (line N)" when at
 * the last token). */
static int msh_fail(struct msh_file *f, const char *what, int at)
{
  if (f->why[0]) return 0;
  if (at)
    snprintf(f->why, sizeof f->why, "%s (line %ld)", what, f->tok_line);
  else
    snprintf(f->why, sizeof f->why, "%s", what);
  return 0;
}

static int msh_not_numbers(struct msh_file *f)
{
  char what[80];
  snprintf(what, sizeof what, "the %s section holds something other than numbers", f->section);
  return msh_fail(f, what, 1);
}

/* One line (its end and the blanks before it dropped): 1, or 0 at the end of
 * the file; *whole is 0 when it was longer than size - 1 (the rest skipped). */
static int msh_line(struct msh_file *f, char *buf, size_t size, int *whole)
{
  size_t n = 0;
  int c;
  *whole = 1;
  while ((c = getc_unlocked(f->fp)) != EOF && c != '\n') {
    if (n + 1 < size)
      buf[n++] = (char)c;
    else
      *whole = 0;
  }
  if (c == EOF && !n) return 0;
  while (n && (buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '\t')) n--;
  buf[n] = '\0';
  f->line++;
  return 1;
}

/* The next blank-separated token of the section: 1, or 0 at the end
 * of the file or for a token too long or holding a NUL byte. */
static int msh_token(struct msh_file *f, char *tok)
{
  int c, n = 0;
  while ((c = getc_unlocked(f->fp)) != EOF && isspace(c)) f->line += c == '\n';
  f->tok_line = f->line;
  char what[64];
  snprintf(what, sizeof what, "the file ends in the %s section", f->section);
  if (c == EOF) return msh_fail(f, what, 1);
  do {
    if (n + 1 >= MSH_TOKEN || c == '\0') return msh_not_numbers(f);
    tok[n++] = (char)c;
  } while ((c = getc_unlocked(f->fp)) != EOF && !isspace(c));
  tok[n] = '\0';
  f->line += c == '\n';
  return 1;
}

/* The token tok as a whole number. */
static int msh_size_of(struct msh_file *f, const char *tok, size_t *v)
{
  char *end;
  errno = 0;
  const unsigned long long x = strtoull(tok, &end, 10);
  if (!isdigit((unsigned char)tok[0]) || *end || errno || x > SIZE_MAX) return msh_not_numbers(f);
  *v = (size_t)x;
  return 1;
}

static int msh_size(struct msh_file *f, size_t *v)
{
  char tok[MSH_TOKEN];
  return msh_token(f, tok) && msh_size_of(f, tok, v);
}

static int msh_double(struct msh_file *f, double *v)
{
  char tok[MSH_TOKEN], *end;
  if (!msh_token(f, tok)) return 0;
  *v = strtod(tok, &end);
  if (end == tok || *end) return msh_not_numbers(f);
  return 1;
}

static int msh_open(const char *path, struct msh_file *f)
{
  char line[MSH_LINE];
  int whole;
  memset(f, 0, sizeof *f);
  f->line = 1;
  f->section = "$Nodes";
  f->fp = fopen(path, "rb");
  if (!f->fp) return msh_fail(f, strerror(errno), 0);
  if (!msh_line(f, line, sizeof line, &whole) || strcmp(line, "$MeshFormat") ||
      !msh_line(f, line, sizeof line, &whole))
    return msh_fail(f, "no $MeshFormat section", 0);
  char *end;
  const double version = strtod(line, &end);
  const long type = strtol(end, &end, 10);
  f->binary = type != 0;
  f->number = version;
  f->version = version >= 2 && version < 3 ? 2 : version == 4.1 ? 41 : 0;
  /* a binary file has the integer 1 on the next line, in binary: no '\n' byte */
  while (msh_line(f, line, sizeof line, &whole) && strcmp(line, "$EndMeshFormat")) continue;
  return 1;
}

/* Moves past the next section header named `name` ("$Nodes"): 1, or 0 when
 * there is none (in a binary file: none before the binary data). */
static int msh_find(struct msh_file *f, const char *name)
{
  char line[MSH_LINE], end[MSH_LINE + 8];
  int whole;
  while (msh_line(f, line, sizeof line, &whole)) {
    if (line[0] != '$' || !strncmp(line, "$End", 4)) continue;
    line[strcspn(line, " \t")] = '\0';
    if (!strcmp(line, name)) return 1;
    if (f->binary && strcmp(line, "$Comments") && strcmp(line, "$PhysicalNames")) return 0;
    snprintf(end, sizeof end, "$End%s", line + 1);
    while (msh_line(f, line, sizeof line, &whole) && strcmp(line, end)) continue;
  }
  return 0;
}

/* ---- node tags given twice ---- */

struct dup_nodes {
  size_t n; /* the tags Gmsh skipped, ascending */
  size_t *tag;
  double (*at)[3];     /* where the first copy of each is */
  unsigned char *seen; /* copies of each found: 0, 1, 2 (or more) */
  size_t differ;       /* the first tag found elsewhere the second time, or n */
  double other[3];     /* where */
};

static int cmp_tag(const void *a, const void *b) { return cmp_size(a, b); }

/* The node tags that Gmsh logged as skipped, sorted, once each. */
static int logged_duplicates(struct dup_nodes *d)
{
  char **log = NULL;
  size_t n = 0, cap = 0;
  int lerr, err = FE_SUCCESS;
  gmshLoggerGet(&log, &n, &lerr);
  for (size_t i = 0; i < n; i++) {
    const char *skip = strstr(log[i], "Skipping duplicate node ");
    if (skip && !err) {
      if (d->n == cap) {
        cap = cap ? 2 * cap : 64;
        size_t *more = realloc(d->tag, cap * sizeof *more);
        if (more)
          d->tag = more;
        else
          err = fe_error_raise(FE_ERR_RESOURCE, __FILE__, __LINE__,
                               "out of host memory: could not allocate %zu bytes",
                               cap * sizeof *more);
      }
      if (!err) d->tag[d->n++] = (size_t)strtoull(skip + 24, NULL, 10);
    }
    gmshFree(log[i]);
  }
  gmshFree(log);
  FE_CALL(err);
  if (!d->n) return FE_SUCCESS;
  qsort(d->tag, d->n, sizeof *d->tag, cmp_tag);
  size_t k = 0;
  for (size_t i = 0; i < d->n; i++)
    if (!k || d->tag[i] != d->tag[k - 1]) d->tag[k++] = d->tag[i];
  d->n = k;
  d->differ = k;
  FE_CALL(fe_malloc(k * sizeof *d->at, &d->at));
  return fe_calloc(k, 1, &d->seen);
}

static void dup_node(struct dup_nodes *d, size_t tag, const double *x)
{
  const size_t *hit = bsearch(&tag, d->tag, d->n, sizeof tag, cmp_tag);
  if (!hit) return;
  const size_t i = (size_t)(hit - d->tag);
  if (!d->seen[i])
    memcpy(d->at[i], x, sizeof d->at[i]);
  else if (d->differ == d->n && memcmp(d->at[i], x, sizeof d->at[i])) {
    d->differ = i;
    memcpy(d->other, x, sizeof d->other);
  }
  d->seen[i] += d->seen[i] < 2;
}

/* MSH 2: a count, then "tag x y z" lines. */
static int nodes_msh2(struct msh_file *f, struct dup_nodes *d)
{
  size_t n, tag;
  double x[3];
  if (!msh_size(f, &n)) return 0;
  for (size_t i = 0; i < n; i++) {
    if (!msh_size(f, &tag) || !msh_double(f, &x[0]) || !msh_double(f, &x[1]) ||
        !msh_double(f, &x[2]))
      return 0;
    dup_node(d, tag, x);
  }
  return 1;
}

/* MSH 4.1: blocks of an entity, each its tags and then its coordinates (x y z,
 * and with parametric coordinates one per dimension of the entity). */
static int nodes_msh41(struct msh_file *f, struct dup_nodes *d)
{
  size_t head[4], *tags = NULL, cap = 0;
  int ok = msh_size(f, &head[0]) && msh_size(f, &head[1]) && msh_size(f, &head[2]) &&
           msh_size(f, &head[3]);
  for (size_t b = 0; ok && b < head[0]; b++) {
    size_t block[4] = {0}, n_dup = 0,
           next = 0; /* the block's tags that Gmsh skipped, with positions */
    ok = msh_size(f, &block[0]) && msh_size(f, &block[1]) && msh_size(f, &block[2]) &&
         msh_size(f, &block[3]);
    if (ok && (block[0] > 3 || block[2] > 1))
      ok = msh_fail(f, "a block of the $Nodes section is not 'dim tag parametric count'", 1);
    for (size_t i = 0; ok && i < block[3]; i++) {
      size_t tag;
      ok = msh_size(f, &tag);
      if (!ok || !bsearch(&tag, d->tag, d->n, sizeof tag, cmp_tag)) continue;
      if (n_dup + 2 > cap) {
        size_t *more = realloc(tags, (cap = 2 * cap + 64) * sizeof *more);
        if (!more)
          ok = msh_fail(f, "out of memory", 0);
        else
          tags = more;
      }
      if (ok) {
        tags[n_dup++] = i;
        tags[n_dup++] = tag;
      }
    }
    const size_t extra = block[2] ? block[0] : 0;
    for (size_t i = 0; ok && i < block[3]; i++) {
      double x[3], u;
      ok = msh_double(f, &x[0]) && msh_double(f, &x[1]) && msh_double(f, &x[2]);
      for (size_t k = 0; ok && k < extra; k++) ok = msh_double(f, &u);
      if (ok && next < n_dup && tags[next] == i) {
        dup_node(d, tags[next + 1], x);
        next += 2;
      }
    }
  }
  free(tags);
  return ok;
}

/* Reads every $Nodes section for the copies of the tags in d; 0 with f->why
 * when the file cannot be read so. */
static int scan_duplicates(const char *path, struct dup_nodes *d, char *why, size_t size)
{
  struct msh_file f;
  int ok = msh_open(path, &f), sections = 0;
  if (ok && f.binary) ok = msh_fail(&f, "it is a binary file", 0);
  if (ok && !f.version) ok = msh_fail(&f, "only MSH 2 and 4.1 files are read for this", 0);
  while (ok && msh_find(&f, "$Nodes")) {
    sections++;
    ok = f.version == 2 ? nodes_msh2(&f, d) : nodes_msh41(&f, d);
    char tok[MSH_TOKEN];
    if (ok && (!msh_token(&f, tok) || strcmp(tok, "$EndNodes")))
      ok = msh_fail(&f, "the $Nodes section does not end where its counts say", 1);
  }
  if (ok && !sections) ok = msh_fail(&f, "it has no $Nodes section", 0);
  if (f.fp) fclose(f.fp);
  snprintf(why, size, "%s", f.why);
  return ok;
}

/* "(0.5, 0.5, 0)", with more digits where fewer would show a and b alike. */
static void two_points(const double *a, const double *b, char *pa, char *pb, size_t size)
{
  static const int digits[] = {6, 15, 17};
  for (int i = 0; i < 3; i++) {
    const int p = digits[i];
    snprintf(pa, size, "(%.*g, %.*g, %.*g)", p, a[0], p, a[1], p, a[2]);
    snprintf(pb, size, "(%.*g, %.*g, %.*g)", p, b[0], p, b[1], p, b[2]);
    if (strcmp(pa, pb)) return;
  }
}

static int report_duplicates(const char *path, const struct dup_nodes *d, int scanned,
                             const char *why)
{
  char others[96] = "", pa[96], pb[96];
  size_t first = 0;
  if (scanned)
    while (first < d->n && d->seen[first] >= 2) first++;
  if (d->n > 1)
    snprintf(others, sizeof others, " (and so %s %zu other node tag%s)", d->n > 2 ? "are" : "is",
             d->n - 1, d->n > 2 ? "s" : "");
  if (!scanned || first < d->n)
    FE_RAISE(FE_ERR_INPUT,
             "%s: node %zu is given twice%s, and fesim could not compare the coordinates of the "
             "copies (%s); expected each node tag once",
             path, d->tag[scanned ? first : 0], others,
             scanned ? "the $Nodes sections list it once" : why);
  if (d->differ < d->n) {
    two_points(d->at[d->differ], d->other, pa, pb, sizeof pa);
    FE_RAISE(FE_ERR_INPUT,
             "%s: node %zu is given twice, at %s and at %s; expected each node tag once (Gmsh "
             "would keep one of the two)",
             path, d->tag[d->differ], pa, pb);
  }
  fe_warn("%s: node %zu is given twice, at the same coordinates (%g, %g, %g)%s; the copies are "
          "read as one node",
          path, d->tag[0], d->at[0][0], d->at[0][1], d->at[0][2], others);
  return FE_SUCCESS;
}

/* Gmsh keeps one copy of a node tag given twice: harmless when the copies
 * are at the same place (a warning), an error when they are not, or when
 * that cannot be told (a binary file, a script, a file read otherwise). */
static int check_duplicate_nodes(const struct reader *rd)
{
  struct dup_nodes d = {0};
  char why[160] = "";
  int err = logged_duplicates(&d);
  if (!err && d.n) {
    const int scanned = !rd->geo && scan_duplicates(rd->file, &d, why, sizeof why);
    if (rd->geo) snprintf(why, sizeof why, "they come from the script");
    err = report_duplicates(rd->path, &d, scanned, why);
  }
  free(d.tag);
  free(d.at);
  free(d.seen);
  return err;
}

/* ---- physical names that Gmsh's MSH 2 reader drops ---- */

/* Gmsh 4.8's MSH 2 reader gives a physical name to the first group of a
 * dimension that has it and leaves the next ones unnamed (its
 * GModel::setPhysicalName), so a name given to several groups would quietly
 * mean the first of them.  The names of unnamed groups are taken from the
 * file's $PhysicalNames, line by line as Gmsh reads them (lines of up to
 * 255 characters); a section that cannot be read so leaves the names as they
 * are. */
static void restore_names(const char *path, struct fe_mesh_raw *r)
{
  int unnamed = 0;
  for (int i = 0; i < r->n_groups; i++) unnamed |= !r->groups[i].name[0];
  struct msh_file f = {0};
  if (!unnamed || !msh_open(path, &f) || f.version != 2 || !msh_find(&f, "$PhysicalNames")) {
    if (f.fp) fclose(f.fp);
    return;
  }
  char line[MSH_LINE], *end;
  int whole;
  long n = msh_line(&f, line, sizeof line, &whole) ? strtol(line, &end, 10) : 0;
  for (long k = 0; k < n && msh_line(&f, line, sizeof line, &whole) && whole && strlen(line) < 255;
       k++) {
    const long dim = strtol(line, &end, 10), tag = strtol(end, &end, 10);
    const char *q = strchr(end, '"');
    if (!q) continue;
    const size_t len = strcspn(q + 1, "\"");
    for (int i = 0; i < r->n_groups; i++) {
      struct fe_physical *g = &r->groups[i];
      char *name;
      if (g->dim != dim || g->tag != tag || g->name[0] || !len || fe_malloc(len + 1, &name))
        continue;
      memcpy(name, q + 1, len);
      name[len] = '\0';
      free(g->name);
      g->name = name;
    }
  }
  fclose(f.fp);
}

static int node_map_build(struct reader *rd)
{
  const struct fe_mesh_raw *r = rd->r;
  size_t max_tag = 0, n = r->n_nodes;
  for (size_t i = 0; i < n; i++)
    if (r->node_tags[i] > max_tag) max_tag = r->node_tags[i];
  if (max_tag / 2 <= n + 1024) {
    rd->dense_n = max_tag + 1;
    FE_MALLOC(rd->dense_n, &rd->dense);
    for (size_t t = 0; t < rd->dense_n; t++) rd->dense[t] = -1;
    for (size_t i = 0; i < n; i++) rd->dense[r->node_tags[i]] = (int)i;
    return FE_SUCCESS;
  }
  /* Sparse tags: (tag, position) pairs sorted by tag, searched by bisection. */
  size_t *pairs;
  FE_MALLOC(2 * n, &pairs);
  for (size_t i = 0; i < n; i++) {
    pairs[2 * i] = r->node_tags[i];
    pairs[2 * i + 1] = i;
  }
  qsort(pairs, n, 2 * sizeof *pairs, cmp_size);
  int err = fe_malloc(n * sizeof *rd->sorted_tags, &rd->sorted_tags);
  if (!err) err = fe_malloc(n * sizeof *rd->sorted_index, &rd->sorted_index);
  for (size_t i = 0; i < n && !err; i++) {
    rd->sorted_tags[i] = pairs[2 * i];
    rd->sorted_index[i] = (int)pairs[2 * i + 1];
  }
  free(pairs);
  return err;
}

static int node_index(const struct reader *rd, size_t tag)
{
  if (rd->dense) return tag < rd->dense_n ? rd->dense[tag] : -1;
  size_t lo = 0, hi = rd->r->n_nodes;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (rd->sorted_tags[mid] < tag)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < rd->r->n_nodes && rd->sorted_tags[lo] == tag ? rd->sorted_index[lo] : -1;
}

/* The whole model's nodes, each once, on the entity it is classified on. */
static int read_nodes(struct reader *rd)
{
  struct fe_mesh_raw *r = rd->r;
  size_t n_xyz = 0, n_param = 0, *tags = NULL;
  double *param = NULL, *xyz = NULL;
  int ierr = 0;
  gmshModelMeshGetNodes(&tags, &r->n_nodes, &xyz, &n_xyz, &param, &n_param, -1, -1, 0, 0, &ierr);
  gmshFree(param);
  int err = fe_malloc(r->n_nodes * sizeof *r->node_tags, &r->node_tags);
  if (!err) err = fe_malloc(r->n_nodes * 3 * sizeof *r->xyz, &r->xyz);
  if (!err && r->n_nodes) {
    memcpy(r->node_tags, tags, r->n_nodes * sizeof *tags);
    memcpy(r->xyz, xyz, r->n_nodes * 3 * sizeof *xyz);
  }
  gmshFree(tags);
  gmshFree(xyz);
  FE_CALL(err);
  FE_CALL(gmsh_status(rd, ierr, "read"));
  FE_CHECK(r->n_nodes < INT_MAX, FE_ERR_RESOURCE, "%s: %zu nodes: at most %d are supported",
           rd->path, r->n_nodes, INT_MAX - 1);
  return node_map_build(rd);
}

/* ---- elements -------------------------------------------------------------- */

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

static int mesh_dimension(const struct reader *rd, int *dim)
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
  FE_CALL(gmsh_status(rd, ierr, "read"));
  FE_CHECK(n > 0, FE_ERR_INPUT,
           "%s: the mesh has no elements; expected triangles (2D) or tetrahedra (3D)", rd->path);
  FE_CHECK(*dim >= 2, FE_ERR_INPUT,
           "%s: the mesh has no cells: its highest element dimension is %d, expected triangles "
           "(2D) or tetrahedra (3D)",
           rd->path, *dim);
  return FE_SUCCESS;
}

static const char *expected_name(int type)
{
  switch (type) {
  case GMSH_LINE2: return "2-node lines ('Line 2') as boundary of a 2D mesh";
  case GMSH_TRIANGLE3: return "3-node triangles ('Triangle 3')";
  default: return "4-node tetrahedra ('Tetrahedron 4')";
  }
}

/* Every element of entity (dim, tag) must be of `type`. */
static int check_types(const struct reader *rd, int dim, int tag, int type)
{
  int *types = NULL, ierr = 0, bad = -1;
  size_t n = 0;
  gmshModelMeshGetElementTypes(&types, &n, dim, tag, &ierr);
  for (size_t i = 0; i < n && !ierr; i++)
    if (types[i] != type) bad = types[i];
  gmshFree(types);
  FE_CALL(gmsh_status(rd, ierr, "read"));
  if (bad < 0) return FE_SUCCESS;
  size_t *tags = NULL, *nodes = NULL, n_tags = 0, n_nodes = 0;
  char name[64];
  gmshModelMeshGetElementsByType(bad, &tags, &n_tags, &nodes, &n_nodes, tag, 0, 1, &ierr);
  size_t first = n_tags ? tags[0] : 0;
  gmshFree(tags);
  gmshFree(nodes);
  element_name(bad, name, sizeof name);
  FE_RAISE(FE_ERR_INPUT, "%s: element %zu is a '%s'; fesim reads only %s", rd->path, first, name,
           expected_name(type));
}

/* Appends the elements of `type` of entity `tag` (nv node positions each)
 * with label `label` to conn / ids / labels. */
static int append_elements(const struct reader *rd, int tag, int type, int nv, int label,
                           size_t *count, size_t *cap, int **conn, size_t **ids, int **labels)
{
  size_t *tags = NULL, *nodes = NULL, n = 0, n_nodes = 0, bad = 0;
  int ierr = 0;
  gmshModelMeshGetElementsByType(type, &tags, &n, &nodes, &n_nodes, tag, 0, 1, &ierr);
  int err = gmsh_status(rd, ierr, "read");
  if (!err) err = grow(*count + n, cap, nv, conn, ids, labels);
  for (size_t e = 0; e < n && !err && !bad; e++) {
    size_t k = *count + e;
    (*ids)[k] = tags[e];
    (*labels)[k] = label;
    for (int v = 0; v < nv; v++) {
      int i = node_index(rd, nodes[e * nv + v]);
      if (i < 0) bad = e + 1;
      (*conn)[k * nv + v] = i;
    }
  }
  if (bad)
    err = fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                         "%s: element %zu refers to a node that the mesh does not have", rd->path,
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

/* entity[k] = tag for the elements appended since `from` (to `to`), the array grown to cap. */
static int set_entity(int **entity, size_t cap, size_t from, size_t to, int tag)
{
  int *e = realloc(*entity, (cap ? cap : 1) * sizeof *e);
  FE_CHECK(e, FE_ERR_RESOURCE, "out of host memory: could not allocate %zu elements", cap);
  *entity = e;
  for (size_t k = from; k < to; k++) e[k] = tag;
  return FE_SUCCESS;
}

static int read_cells(struct reader *rd)
{
  struct fe_mesh_raw *r = rd->r;
  int *entities = NULL, ierr = 0, err = FE_SUCCESS;
  size_t n = 0;
  int type = r->dim == 2 ? GMSH_TRIANGLE3 : GMSH_TETRAHEDRON4;
  gmshModelGetEntities(&entities, &n, r->dim, &ierr);
  for (size_t i = 0; i < n / 2 && !err && !ierr; i++) {
    int tag = entities[2 * i + 1];
    size_t from = r->n_cells;
    err = check_types(rd, r->dim, tag, type);
    if (!err)
      err = append_elements(rd, tag, type, r->dim + 1, first_physical(r->dim, tag), &r->n_cells,
                            &rd->cap_cells, &r->cells, &r->cell_id, &r->cell_region);
    if (!err) err = set_entity(&r->cell_entity, rd->cap_cells, from, r->n_cells, tag);
  }
  gmshFree(entities);
  if (!err) err = gmsh_status(rd, ierr, "read");
  FE_CALL(err);
  FE_CHECK(r->n_cells > 0, FE_ERR_INPUT, "%s: the mesh has no cells", rd->path);
  FE_CHECK(r->n_cells <= rd->o->max_cells, FE_ERR_INPUT,
           "%s: the mesh has %zu cells, more than the limit of %zu; raise the limit with "
           "--max-cells",
           rd->path, r->n_cells, rd->o->max_cells);
  return FE_SUCCESS;
}

static int read_group_facets(struct reader *rd, int group)
{
  struct fe_mesh_raw *r = rd->r;
  int *entities = NULL, ierr = 0, err = FE_SUCCESS;
  size_t n = 0;
  int fdim = r->dim - 1, type = r->dim == 2 ? GMSH_LINE2 : GMSH_TRIANGLE3;
  gmshModelGetEntitiesForPhysicalGroup(fdim, group, &entities, &n, &ierr);
  for (size_t i = 0; i < n && !err && !ierr; i++) {
    const size_t from = r->n_facets;
    err = check_types(rd, fdim, entities[i], type);
    if (!err)
      err = append_elements(rd, entities[i], type, r->dim, group, &r->n_facets, &rd->cap_facets,
                            &r->facets, &r->facet_id, &r->facet_group);
    if (!err) err = set_entity(&r->facet_entity, rd->cap_facets, from, r->n_facets, entities[i]);
  }
  gmshFree(entities);
  FE_CALL(err);
  return gmsh_status(rd, ierr, "read");
}

static int read_groups(struct reader *rd)
{
  struct fe_mesh_raw *r = rd->r;
  int *dim_tags = NULL, ierr = 0, err = FE_SUCCESS;
  size_t n = 0;
  gmshModelGetPhysicalGroups(&dim_tags, &n, -1, &ierr);
  size_t count = 0;
  for (size_t i = 0; i < n / 2; i++)
    if (dim_tags[2 * i] == r->dim || dim_tags[2 * i] == r->dim - 1) count++;
  if (count) err = fe_calloc(count, sizeof *r->groups, &r->groups);
  for (size_t i = 0; i < n / 2 && !err && !ierr; i++) {
    int dim = dim_tags[2 * i], tag = dim_tags[2 * i + 1];
    if (dim != r->dim && dim != r->dim - 1) continue;
    char *name = NULL;
    gmshModelGetPhysicalName(dim, tag, &name, &ierr);
    struct fe_physical *g = &r->groups[r->n_groups++];
    g->dim = dim;
    g->tag = tag;
    err = fe_strdup(name && !ierr ? name : "", &g->name);
    gmshFree(name);
    if (!err && dim == r->dim - 1) err = read_group_facets(rd, tag);
  }
  gmshFree(dim_tags);
  FE_CALL(err);
  FE_CHECK(r->n_facets < INT_MAX / 4, FE_ERR_RESOURCE, "%s: %zu facets: at most %d are supported",
           rd->path, r->n_facets, INT_MAX / 4 - 1);
  return gmsh_status(rd, ierr, "read");
}

/* ---- periodic boundaries ------------------------------------------------------ */

/* Where the links and pairs of r are built: their capacities. */
struct periodic_build {
  size_t cap_links, cap_pairs;
};

static int add_link(struct reader *rd, struct periodic_build *b, int dim, int slave, int master,
                    const double *affine)
{
  struct fe_mesh_raw *r = rd->r;
  FE_CHECK(r->n_links < (1 << 20), FE_ERR_INPUT, "%s: more than %d periodic links", rd->path,
           1 << 20);
  if ((size_t)r->n_links == b->cap_links) {
    const size_t cap = b->cap_links ? 2 * b->cap_links : 16;
    int *l = realloc(r->link, cap * 4 * sizeof *l);
    if (l) r->link = l;
    double *a = l ? realloc(r->link_affine, cap * 16 * sizeof *a) : NULL;
    if (a) r->link_affine = a;
    FE_CHECK(a, FE_ERR_RESOURCE, "out of host memory: could not allocate %zu periodic links", cap);
    b->cap_links = cap;
  }
  int *l = r->link + 4 * r->n_links;
  l[0] = dim;
  l[1] = slave;
  l[2] = master;
  l[3] = affine != NULL;
  for (int k = 0; k < 16; k++) r->link_affine[16 * r->n_links + k] = affine ? affine[k] : 0;
  r->n_links++;
  return FE_SUCCESS;
}

static const char *entity_kind(int dim)
{
  static const char *const kind[] = {"point", "curve", "surface", "volume"};
  return dim >= 0 && dim <= 3 ? kind[dim] : "entity";
}

/* The pair (slave, master) of node tags, of the last link; line > 0: where the file says so. */
static int add_pair(struct reader *rd, struct periodic_build *b, size_t slave, size_t master,
                    long line)
{
  struct fe_mesh_raw *r = rd->r;
  const int *l = r->link + 4 * (r->n_links - 1);
  const int s = node_index(rd, slave), m = node_index(rd, master);
  char at[32] = "";
  if (line > 0) snprintf(at, sizeof at, " (line %ld)", line);
  FE_CHECK(
      s >= 0 && m >= 0, FE_ERR_INPUT,
      "%s: the $Periodic section%s pairs node %zu of %s %d with node %zu of %s %d, and the mesh "
      "has no node %zu; expected node tags of the $Nodes section",
      rd->path, at, slave, entity_kind(l[0]), l[1], master, entity_kind(l[0]), l[2],
      s < 0 ? slave : master);
  FE_CHECK(r->n_pairs < 16 * r->n_nodes && r->n_pairs < INT_MAX / 4, FE_ERR_INPUT,
           "%s: %zu periodic node pairs for %zu nodes; expected a few per node", rd->path,
           r->n_pairs, r->n_nodes);
  if (r->n_pairs == b->cap_pairs) {
    const size_t cap = b->cap_pairs ? 2 * b->cap_pairs : 1024;
    int *p = realloc(r->pair, cap * 3 * sizeof *p);
    FE_CHECK(p, FE_ERR_RESOURCE, "out of host memory: could not allocate %zu periodic pairs", cap);
    r->pair = p;
    b->cap_pairs = cap;
  }
  int *p = r->pair + 3 * r->n_pairs++;
  p[0] = s;
  p[1] = m;
  p[2] = r->n_links - 1;
  return FE_SUCCESS;
}

/* The links Gmsh holds (a meshed .geo, a .msh 4): each entity of a dimension below the cells'
 * that has a master other than itself. */
static int periodic_from_model(struct reader *rd, struct periodic_build *b)
{
  const int cells = rd->r->dim;
  for (int dim = 0; dim <= cells; dim++) {
    int *entities = NULL, ierr = 0, err = FE_SUCCESS;
    size_t n = 0;
    gmshModelGetEntities(&entities, &n, dim, &ierr);
    for (size_t i = 0; i < n / 2 && !err && !ierr; i++) {
      const int tag = entities[2 * i + 1];
      int master = tag;
      size_t *slaves = NULL, *masters = NULL, ns = 0, nm = 0, na = 0;
      double *affine = NULL;
      gmshModelMeshGetPeriodicNodes(dim, tag, &master, &slaves, &ns, &masters, &nm, &affine, &na, 0,
                                    &ierr);
      if (!ierr && master != tag && dim == cells)
        err = fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                             "%s: %s %d is periodic with %s %d; expected periodic %s of the "
                             "%dD mesh's boundary, not of its cells",
                             rd->path, entity_kind(dim), tag, entity_kind(dim), master,
                             cells == 2 ? "curves" : "surfaces", cells);
      if (!ierr && !err && master != tag)
        err = add_link(rd, b, dim, tag, master, na == 16 ? affine : NULL);
      for (size_t k = 0; k < ns && k < nm && !err && !ierr; k++)
        err = add_pair(rd, b, slaves[k], masters[k], 0);
      gmshFree(slaves);
      gmshFree(masters);
      gmshFree(affine);
    }
    gmshFree(entities);
    FE_CALL(err);
    FE_CALL(gmsh_status(rd, ierr, "read"));
  }
  return FE_SUCCESS;
}

/* Gmsh's MSH 4 reader skips, with a note in its log, the pairs of nodes and the links of
 * entities it cannot find: an error here. */
static int periodic_log(const struct reader *rd)
{
  char **log = NULL, what[160] = "";
  size_t n = 0;
  int lerr;
  gmshLoggerGet(&log, &n, &lerr);
  for (size_t i = 0; i < n; i++) {
    const char *at = strstr(log[i], "Could not find periodic ");
    if (at && !what[0]) snprintf(what, sizeof what, "%.120s", at + 24);
    gmshFree(log[i]);
  }
  gmshFree(log);
  if (!what[0]) return FE_SUCCESS;
  FE_RAISE(FE_ERR_INPUT,
           "%s: the $Periodic section refers to %s, which the mesh does not have; expected the "
           "node tags of its $Nodes and the entities of its $Entities",
           rd->path, what);
}

/* MSH 2's $Periodic section, which Gmsh 4.8 skips (Mesh.IgnorePeriodicity): links "dim slave
 * master", each with an optional "Affine" and 16 numbers, then the count of its node pairs
 * and the pairs "slave master". */
static int periodic_msh2_links(struct reader *rd, struct periodic_build *b, struct msh_file *f)
{
  size_t count, head[3], n, pair[2];
  char tok[MSH_TOKEN];
  int ok = msh_size(f, &count);
  for (size_t l = 0; ok && l < count; l++) {
    double affine[16];
    int has_affine = 0;
    ok = msh_size(f, &head[0]) && msh_size(f, &head[1]) && msh_size(f, &head[2]) &&
         msh_token(f, tok);
    if (ok && (head[0] > 3 || head[1] > INT_MAX || head[2] > INT_MAX))
      ok = msh_fail(f, "a link is not 'dim slave master' (dimension 0 to 3, entity tags)", 1);
    if (ok && !strcmp(tok, "Affine")) {
      has_affine = 1;
      for (int k = 0; k < 16 && ok; k++) ok = msh_double(f, &affine[k]);
      ok = ok && msh_token(f, tok);
    }
    ok = ok && msh_size_of(f, tok, &n);
    if (ok && (int)head[0] >= rd->r->dim)
      ok = msh_fail(f, "a link of entities of the cells' dimension", 1);
    if (ok && add_link(rd, b, (int)head[0], (int)head[1], (int)head[2], has_affine ? affine : NULL))
      return FE_ERR_INPUT;
    for (size_t k = 0; ok && k < n; k++) {
      ok = msh_size(f, &pair[0]) && msh_size(f, &pair[1]);
      if (ok && add_pair(rd, b, pair[0], pair[1], f->tok_line)) return FE_ERR_INPUT;
    }
  }
  if (ok && (!msh_token(f, tok) || strcmp(tok, "$EndPeriodic")))
    ok = msh_fail(f, "the section does not end where its counts say", 1);
  return ok ? FE_SUCCESS : -1;
}

static int periodic_msh2(struct reader *rd, struct periodic_build *b, struct msh_file *f)
{
  if (!msh_find(f, "$Periodic")) return FE_SUCCESS;
  f->section = "$Periodic";
  const int err = periodic_msh2_links(rd, b, f);
  FE_CHECK(err >= 0, FE_ERR_INPUT,
           "%s: the $Periodic section cannot be read: %s; expected a count of links, then for "
           "each 'dim slave master', optionally 'Affine' and 16 numbers, the count of its node "
           "pairs and the pairs 'slave master' (MSH 2.2)",
           rd->path, f->why);
  return err;
}

/* Whether the file has a line "$Periodic" anywhere, binary data included. */
static int has_periodic_section(const char *path)
{
  static const char key[] = "\n$Periodic";
  enum { CHUNK = 1 << 20, KEEP = sizeof key };
  char *buf = malloc(CHUNK + KEEP);
  FILE *fp = buf ? fopen(path, "rb") : NULL;
  size_t have = 0, n;
  int found = 0;
  while (fp && !found && (n = fread(buf + have, 1, CHUNK, fp)) > 0) {
    have += n;
    for (const char *p = buf; !found && (p = memmem(p, have - (size_t)(p - buf), key, KEEP - 1));
         p++) {
      const size_t after = (size_t)(p - buf) + KEEP - 1;
      found = after >= have || buf[after] == '\n' || buf[after] == '\r' || buf[after] == ' ';
    }
    const size_t keep = have < KEEP ? have : KEEP;
    memmove(buf, buf + have - keep, keep);
    have = keep;
  }
  if (fp) fclose(fp);
  free(buf);
  return found;
}

/* The node pairs of a .msh: Gmsh's own reading of MSH 4, fesim's of an ASCII MSH 2 (Gmsh 4.8
 * skips its $Periodic section); other versions with a $Periodic section are refused. */
static int periodic_from_file(struct reader *rd, struct periodic_build *b)
{
  struct msh_file f;
  if (!msh_open(rd->file, &f)) {
    if (f.fp) fclose(f.fp);
    return FE_SUCCESS; /* Gmsh read it: what fesim cannot is no $Periodic it could */
  }
  int err = FE_SUCCESS;
  if (f.number >= 4)
    err = periodic_from_model(rd, b);
  else if (f.version == 2 && !f.binary)
    err = periodic_msh2(rd, b, &f);
  else if (has_periodic_section(rd->file))
    err = fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                         "%s: a periodic mesh in %s MSH %g, whose $Periodic section fesim does "
                         "not read; expected MSH 4.1 (ASCII or binary) or ASCII MSH 2.2",
                         rd->path, f.binary ? "binary" : "ASCII", f.number);
  fclose(f.fp);
  return err;
}

static int entity_exists(int dim, int tag)
{
  int *entities = NULL, ierr = 0, found = 0;
  size_t n = 0;
  gmshModelGetEntities(&entities, &n, dim, &ierr);
  for (size_t i = 0; i < n / 2; i++) found |= entities[2 * i + 1] == tag;
  gmshFree(entities);
  return found && !ierr;
}

/* mark[i] |= bit for the nodes of entity (dim, tag), its boundary's included: those Gmsh
 * places there and those of its elements (a MSH 2 file places a node on one entity only);
 * their number in *count. */
static void entity_nodes(const struct reader *rd, int dim, int tag, unsigned char *mark,
                         unsigned char bit, size_t *count)
{
  size_t *tags = NULL, nt = 0, nc = 0, np = 0, n_types = 0, **etags = NULL, **nodes = NULL,
         *ne = NULL, *nn = NULL, n_etags = 0, n_nodes = 0;
  double *coords = NULL, *param = NULL;
  int *types = NULL, ierr = 0;
  *count = 0;
  if (!entity_exists(dim, tag)) return;
  gmshModelMeshGetNodes(&tags, &nt, &coords, &nc, &param, &np, dim, tag, 1, 0, &ierr);
  for (size_t i = 0; i < nt && !ierr; i++) {
    const int k = node_index(rd, tags[i]);
    if (k >= 0 && !(mark[k] & bit)) ++*count, mark[k] |= bit;
  }
  gmshModelMeshGetElements(&types, &n_types, &etags, &ne, &n_etags, &nodes, &nn, &n_nodes, dim, tag,
                           &ierr);
  for (size_t t = 0; t < n_nodes && !ierr; t++)
    for (size_t i = 0; i < nn[t]; i++) {
      const int k = node_index(rd, nodes[t][i]);
      if (k >= 0 && !(mark[k] & bit)) ++*count, mark[k] |= bit;
    }
  for (size_t t = 0; t < n_etags; t++) gmshFree(etags[t]);
  for (size_t t = 0; t < n_nodes; t++) gmshFree(nodes[t]);
  gmshFree(etags);
  gmshFree(nodes);
  gmshFree(ne);
  gmshFree(nn);
  gmshFree(types);
  gmshFree(tags);
  gmshFree(coords);
  gmshFree(param);
}

/* Link l pairs every node of its slave entity, and the two entities have as many nodes. */
static int check_link(const struct reader *rd, int l, unsigned char *mark,
                      const unsigned char *slave)
{
  const struct fe_mesh_raw *r = rd->r;
  const int *k = r->link + 4 * l;
  const char *kind = entity_kind(k[0]);
  size_t ns, nm, paired = 0, first = 0;
  memset(mark, 0, r->n_nodes);
  entity_nodes(rd, k[0], k[1], mark, 1, &ns);
  entity_nodes(rd, k[0], k[2], mark, 2, &nm);
  for (size_t i = 0; i < r->n_nodes; i++)
    if ((mark[i] & 1) && slave[i])
      paired++;
    else if ((mark[i] & 1) && !first)
      first = i + 1;
  FE_CHECK(!first, FE_ERR_INPUT,
           "%s: node %zu of %s %d has no master node: %s %d is periodic with %s %d, and the "
           "$Periodic section pairs %zu of its %zu nodes; expected each of them paired with a "
           "node of %s %d",
           rd->path, r->node_tags[first - 1], kind, k[1], kind, k[1], kind, k[2], paired, ns, kind,
           k[2]);
  FE_CHECK(!ns || !nm || ns == nm, FE_ERR_INPUT,
           "%s: %s %d has %zu nodes and %s %d, its master in the $Periodic section, has %zu; "
           "expected periodic boundaries with as many nodes, meshed alike",
           rd->path, kind, k[1], ns, kind, k[2], nm);
  return FE_SUCCESS;
}

/* The links and node pairs of periodic boundaries, each link checked against its entities. */
static int read_periodic(struct reader *rd)
{
  struct fe_mesh_raw *r = rd->r;
  struct periodic_build b = {0};
  FE_CALL(rd->geo ? periodic_from_model(rd, &b) : periodic_from_file(rd, &b));
  if (!r->n_links) return FE_SUCCESS;
  unsigned char *mark, *slave;
  FE_CALL(fe_calloc(r->n_nodes + 1, 1, &slave));
  int err = fe_malloc(r->n_nodes + 1, &mark);
  for (size_t k = 0; k < r->n_pairs; k++) slave[r->pair[3 * k]] = 1;
  for (int l = 0; l < r->n_links && !err; l++) err = check_link(rd, l, mark, slave);
  free(mark);
  free(slave);
  return err;
}

/* ---- meshing a .geo within the limits ----------------------------------------- */

/* Measure (area or volume) of the bounding boxes of the entities of dimension
 * dim: an upper bound of the domain's. */
static double box_measure(int dim)
{
  int *entities = NULL, ierr = 0;
  size_t n = 0;
  double total = 0;
  gmshModelGetEntities(&entities, &n, dim, &ierr);
  for (size_t i = 0; i < n / 2 && !ierr; i++) {
    double lo[3], hi[3], e[3];
    gmshModelGetBoundingBox(dim, entities[2 * i + 1], &lo[0], &lo[1], &lo[2], &hi[0], &hi[1],
                            &hi[2], &ierr);
    for (int k = 0; k < 3; k++) e[k] = hi[k] - lo[k];
    /* the dim largest extents: a flat surface need not lie in z = const here */
    for (int a = 0; a < 2; a++)
      for (int b = a + 1; b < 3; b++)
        if (e[b] > e[a]) {
          double t = e[a];
          e[a] = e[b];
          e[b] = t;
        }
    total += dim == 2 ? e[0] * e[1] : e[0] * e[1] * e[2];
  }
  gmshFree(entities);
  return total;
}

/* Mean length of the elements of the curves, once they are meshed. */
static int mean_edge(struct reader *rd, double *h)
{
  struct fe_mesh_raw *r = rd->r;
  size_t *tags = NULL, *nodes = NULL, n = 0, n_nodes = 0;
  int ierr = 0;
  *h = 0;
  FE_CALL(read_nodes(rd));
  gmshModelMeshGetElementsByType(GMSH_LINE2, &tags, &n, &nodes, &n_nodes, -1, 0, 1, &ierr);
  double total = 0;
  size_t counted = 0;
  for (size_t e = 0; e < n; e++) {
    int a = node_index(rd, nodes[2 * e]), b = node_index(rd, nodes[2 * e + 1]);
    if (a < 0 || b < 0) continue;
    double s = 0;
    for (int k = 0; k < 3; k++) s += pow(r->xyz[3 * (size_t)a + k] - r->xyz[3 * (size_t)b + k], 2);
    total += sqrt(s);
    counted++;
  }
  gmshFree(tags);
  gmshFree(nodes);
  if (counted) *h = total / counted;
  /* the nodes are read again, all of them, once the mesh is complete */
  free(r->node_tags);
  free(r->xyz);
  r->node_tags = NULL;
  r->xyz = NULL;
  r->n_nodes = 0;
  reader_free(rd);
  return gmsh_status(rd, ierr, "mesh");
}

/* Cells of a mesh of the dim-dimensional measure `measure` with edges about
 * h long: equilateral triangles (sqrt(3)/4 h^2) or regular tetrahedra
 * (h^3 / (6 sqrt(2))). */
static double cells_for(int dim, double measure, double h)
{
  return dim == 2 ? measure / (0.4330127 * h * h) : measure / (0.1178511 * h * h * h);
}

static int check_estimate(struct reader *rd, int dim, double *estimate)
{
  const struct fe_gmsh_options *o = rd->o;
  double h;
  FE_CALL(mean_edge(rd, &h));
  const double measure = box_measure(dim);
  *estimate = h > 0 ? cells_for(dim, measure, h) : 0;
  if (!(h > 0 && measure > 0)) return FE_SUCCESS; /* nothing to estimate from: Gmsh will say */
  char at[96];
  if (o->size > 0)
    snprintf(at, sizeof at, "<mesh size=\"%g\">", o->size);
  else
    snprintf(at, sizeof at, "the script's mesh sizes");
  const char *cells = dim == 2 ? "triangles" : "tetrahedra";
  const char *what = dim == 2 ? "an area" : "a volume";
  FE_CHECK(*estimate <= (double)o->max_cells, FE_ERR_INPUT,
           "%s: meshing it at %s would make about %.2g %s (%s of about %.3g at edges of about "
           "%.3g), more than the limit of %zu cells; raise the limit with --max-cells, or mesh "
           "it coarser",
           rd->path, at, *estimate, cells, what, measure, h, o->max_cells);
  const double need = *estimate * (double)fe_gmsh_bytes_per_cell(dim);
  FE_CHECK(o->max_cells_given || !o->memory || need <= (double)o->memory, FE_ERR_INPUT,
           "%s: meshing it at %s would make about %.2g %s (%s of about %.3g at edges of about "
           "%.3g), which need about %.1f GiB, more than the %.1f GiB of memory available; mesh "
           "it coarser, or give --max-cells to mesh it anyway",
           rd->path, at, *estimate, cells, what, measure, h, need / (1 << 30),
           (double)o->memory / (1 << 30));
  return FE_SUCCESS;
}

static int generate(struct reader *rd, int dim, int stage, const char *what)
{
  int ierr = 0;
  progress(rd, stage, what);
  gmshModelMeshGenerate(dim, &ierr);
  return gmsh_status(rd, ierr, "mesh");
}

/* Curves single-threaded whatever the script asks (Gmsh 4.8's threaded
 * curve meshing corrupts its heap: issue 10), the estimate checked against
 * the limits, then surfaces and volumes with the threads the script asks. */
static int mesh_geo(struct reader *rd)
{
  int ierr = 0;
  const int dim = gmshModelGetDimension(&ierr);
  FE_CHECK(dim >= 2, FE_ERR_INPUT, "%s: nothing to mesh: the model has no surface or volume",
           rd->path);
  if (rd->o->size > 0) gmshOptionSetNumber("Mesh.MeshSizeMax", rd->o->size, &ierr);
  gmshOptionSetNumber("Mesh.MaxNumThreads1D", 1, &ierr);
  FE_CALL(generate(rd, 1, FE_GMSH_MESHING_1D, "meshing curves"));
  double estimate;
  FE_CALL(check_estimate(rd, dim, &estimate));
  char what[96];
  snprintf(what, sizeof what, "meshing surfaces%s", dim == 2 ? "" : " (boundary)");
  if (dim == 2 && estimate > 0)
    snprintf(what, sizeof what, "meshing surfaces (about %.2g triangles)", estimate);
  FE_CALL(generate(rd, 2, FE_GMSH_MESHING_2D, what));
  if (dim == 3) {
    snprintf(what, sizeof what, "meshing volumes (about %.2g tetrahedra)", estimate);
    FE_CALL(generate(rd, 3, FE_GMSH_MESHING_3D, what));
  }
  return FE_SUCCESS;
}

static int read_model(struct reader *rd)
{
  int ierr = 0;
  progress(rd, FE_GMSH_PARSING, rd->geo ? "running the script" : "reading");
  gmshOpen(rd->file, &ierr);
  if (!rd->geo) FE_CALL(periodic_log(rd));
  FE_CALL(gmsh_status(rd, ierr, "read"));
  if (rd->geo) FE_CALL(mesh_geo(rd));
  FE_CALL(check_duplicate_nodes(rd));
  progress(rd, FE_GMSH_EXTRACTING, "collecting nodes and cells");
  FE_CALL(mesh_dimension(rd, &rd->r->dim));
  FE_CALL(read_nodes(rd));
  FE_CALL(read_cells(rd));
  FE_CALL(read_groups(rd));
  FE_CALL(read_periodic(rd));
  if (!rd->geo) restore_names(rd->file, rd->r);
  return FE_SUCCESS;
}

int fe_gmsh_read(const char *path, const struct fe_gmsh_options *o, struct fe_mesh_raw *r)
{
  struct reader rd = {
      .file = path, .geo = fe_mesh_is_geo(path), .path = o->name ? o->name : path, .o = o, .r = r};
  int ierr = 0;
  memset(r, 0, sizeof *r);
  progress(&rd, FE_GMSH_STARTING, "starting Gmsh");
  gmshInitialize(0, NULL, 0, &ierr);
  FE_CHECK(!ierr, FE_ERR_RESOURCE, "%s: could not start Gmsh", rd.path);
  gmshOptionSetNumber("General.Terminal", 0, &ierr);
  gmshLoggerStart(&ierr);
  int err = read_model(&rd);
  gmshLoggerStop(&ierr);
  gmshFinalize(&ierr);
  reader_free(&rd);
  if (err) fe_mesh_raw_free(r);
  return err;
}
