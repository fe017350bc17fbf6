/* The Gmsh reader of velocity snapshots: a .msh file (MSH 2.2 or 4.1, ASCII;
 * Gmsh's "MSH file format" reference) holding a $NodeData section of the
 * field, "node-tag value ..." lines after its string, real and integer tags
 * (the view's name, its time, then the time step, the number of components
 * and of values), and, when the file has them, the $Nodes of the mesh, whose
 * coordinates are then checked too.  Gmsh writes such a file for a view
 * (View.Save, gmsh::view::write).  Read by fesim itself, not through Gmsh:
 * Gmsh's readers run only in the confined meshing process (io/mesher.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/point_data.h"
#include "io/scan.h"

enum { LINE = 1024 };

struct msh {
  const char *shown;
  struct fe_scan s;
  int version; /* 2 or 41 */
  const char *field;
  size_t found;   /* $NodeData sections of the field */
  size_t n_nodes; /* $Nodes: tags and coordinates, sorted by tag afterwards */
  size_t *node_tag;
  double *node_xyz;
  char line[LINE];
};

static int fail(const struct msh *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(const struct msh *m, const char *fmt, ...)
{
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  FE_RAISE(FE_ERR_INPUT, "%s:%ld: %s", m->shown, m->s.line, msg);
}

static int size_of(struct msh *m, const char *section, size_t *v)
{
  return fe_scan_size(&m->s, v) ? FE_SUCCESS
                                : fail(m,
                                       "the %s section holds something other than its counts "
                                       "and tags",
                                       section);
}

static int double_of(struct msh *m, const char *section, double *v)
{
  return fe_scan_double(&m->s, v)
             ? FE_SUCCESS
             : fail(m, "the %s section holds something other than numbers", section);
}

/* Past the line "$EndNAME" of the section "$NAME" begun. */
static int section_end(struct msh *m, const char *name)
{
  char want[LINE];
  snprintf(want, sizeof want, "$End%s", name + 1);
  while (fe_scan_nonblank_line(&m->s, m->line, sizeof m->line))
    if (!strcmp(m->line, want)) return FE_SUCCESS;
  return fail(m, "the file ends in the %s section; expected %s", name, want);
}

static int format(struct msh *m)
{
  double version;
  int type, size;
  if (!fe_scan_line(&m->s, m->line, sizeof m->line) || strcmp(m->line, "$MeshFormat"))
    return fail(m, "it does not start with $MeshFormat; expected a Gmsh .msh file");
  if (!fe_scan_line(&m->s, m->line, sizeof m->line) ||
      sscanf(m->line, "%lf %d %d", &version, &type, &size) != 3)
    return fail(m, "found '%.60s'; expected 'version file-type data-size'", m->line);
  if (type != 0)
    return fail(m, "a binary .msh file: fesim reads $NodeData from ASCII files; expected the view "
                   "saved as ASCII (Gmsh: Mesh.Binary = 0)");
  m->version = version >= 2 && version < 3 ? 2 : version == 4.1 ? 41 : 0;
  if (!m->version) return fail(m, "MSH version %g; expected 2.2 or 4.1", version);
  return section_end(m, "$MeshFormat");
}

static int grow_nodes(struct msh *m, size_t more)
{
  if (more > (size_t)(m->s.end - m->s.p)) /* a node takes more than a byte */
    return fail(m, "the $Nodes section gives more nodes than the file has bytes");
  size_t *tags = realloc(m->node_tag, (m->n_nodes + more + 1) * sizeof *tags);
  if (tags) m->node_tag = tags;
  double *xyz = realloc(m->node_xyz, (m->n_nodes + more + 1) * 3 * sizeof *xyz);
  if (xyz) m->node_xyz = xyz;
  FE_CHECK(tags && xyz, FE_ERR_RESOURCE, "out of host memory reading the $Nodes of %s", m->shown);
  return FE_SUCCESS;
}

/* MSH 2: a count, then "tag x y z" lines. */
static int nodes2(struct msh *m)
{
  size_t n;
  FE_CALL(size_of(m, "$Nodes", &n));
  FE_CALL(grow_nodes(m, n));
  for (size_t i = 0; i < n; i++, m->n_nodes++) {
    FE_CALL(size_of(m, "$Nodes", &m->node_tag[m->n_nodes]));
    for (int a = 0; a < 3; a++) FE_CALL(double_of(m, "$Nodes", &m->node_xyz[3 * m->n_nodes + a]));
  }
  return FE_SUCCESS;
}

/* MSH 4.1: blocks of an entity, its tags and then its coordinates (and parametric ones). */
static int nodes41(struct msh *m)
{
  size_t head[4], block[4];
  for (int k = 0; k < 4; k++) FE_CALL(size_of(m, "$Nodes", &head[k]));
  for (size_t b = 0; b < head[0]; b++) {
    for (int k = 0; k < 4; k++) FE_CALL(size_of(m, "$Nodes", &block[k]));
    if (block[0] > 3 || block[2] > 1)
      return fail(m, "a block of the $Nodes section is not 'dim tag parametric count'");
    FE_CALL(grow_nodes(m, block[3]));
    for (size_t i = 0; i < block[3]; i++)
      FE_CALL(size_of(m, "$Nodes", &m->node_tag[m->n_nodes + i]));
    for (size_t i = 0; i < block[3]; i++, m->n_nodes++) {
      double u;
      for (int a = 0; a < 3; a++) FE_CALL(double_of(m, "$Nodes", &m->node_xyz[3 * m->n_nodes + a]));
      for (size_t k = 0; block[2] && k < block[0]; k++) FE_CALL(double_of(m, "$Nodes", &u));
    }
  }
  return FE_SUCCESS;
}

/* A string tag: the rest of the line, its quotes dropped. */
static int string_tag(struct msh *m, char *out, size_t size)
{
  if (!fe_scan_nonblank_line(&m->s, m->line, sizeof m->line))
    return fail(m, "the file ends in the string tags of a $NodeData section");
  const char *s = m->line;
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  if (n >= 2 && s[0] == '"' && s[n - 1] == '"') s++, n -= 2;
  snprintf(out, size, "%.*s", (int)n, s);
  return FE_SUCCESS;
}

/* $NodeData: kept into pd when it is the field's (and the first of them), else skipped. */
static int node_data(struct msh *m, struct fe_point_data *pd)
{
  size_t n_strings, n_reals, n_ints, ints[4] = {0, 1, 0, 0};
  char name[LINE] = "";
  double real;
  FE_CALL(size_of(m, "$NodeData", &n_strings));
  for (size_t i = 0; i < n_strings; i++) {
    char tag[LINE];
    FE_CALL(string_tag(m, tag, sizeof tag));
    if (!i) snprintf(name, sizeof name, "%s", tag);
  }
  FE_CALL(size_of(m, "$NodeData", &n_reals));
  for (size_t i = 0; i < n_reals; i++) FE_CALL(double_of(m, "$NodeData", &real));
  FE_CALL(size_of(m, "$NodeData", &n_ints));
  for (size_t i = 0; i < n_ints; i++) {
    size_t v;
    FE_CALL(size_of(m, "$NodeData", &v));
    if (i < 4) ints[i] = v;
  }
  if (n_ints < 3)
    return fail(m,
                "a $NodeData section with %zu integer tags; expected at least 3 (time step, "
                "components, values)",
                n_ints);
  const size_t comps = ints[1], count = ints[2];
  if (comps < 1 || comps > 9) return fail(m, "$NodeData '%s' of %zu components", name, comps);
  if (count > (size_t)(m->s.end - m->s.p))
    return fail(m, "$NodeData '%s' gives more values than the file has bytes", name);
  const int keep = !strcmp(name, m->field) && !m->found++;
  if (keep) {
    pd->n = count;
    pd->components = (int)comps;
    FE_CALL(fe_malloc((count + 1) * sizeof *pd->tags, &pd->tags));
    FE_CALL(fe_malloc((count + 1) * comps * sizeof *pd->values, &pd->values));
  }
  for (size_t i = 0; i < count; i++) {
    size_t tag;
    FE_CALL(size_of(m, "$NodeData", &tag));
    if (keep) pd->tags[i] = tag;
    for (size_t c = 0; c < comps; c++) {
      FE_CALL(double_of(m, "$NodeData", &real));
      if (keep) pd->values[i * comps + c] = real;
    }
  }
  return section_end(m, "$NodeData");
}

static int cmp_tag(const void *a, const void *b)
{
  const size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

/* The coordinates of the values' nodes, from the file's $Nodes (a node missing: an error). */
static int node_points(struct msh *m, struct fe_point_data *pd)
{
  size_t *order;
  FE_CALL(fe_malloc((m->n_nodes + 1) * 2 * sizeof *order, &order));
  for (size_t i = 0; i < m->n_nodes; i++) order[2 * i] = m->node_tag[i], order[2 * i + 1] = i;
  qsort(order, m->n_nodes, 2 * sizeof *order, cmp_tag);
  int err = fe_malloc(pd->n * 3 * sizeof(double) + 1, &pd->points);
  for (size_t i = 0; !err && i < pd->n; i++) {
    const size_t *hit = bsearch(&pd->tags[i], order, m->n_nodes, 2 * sizeof *order, cmp_tag);
    if (!hit)
      err = fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                           "%s: the $NodeData '%s' gives a value at node tag %zu, which its "
                           "$Nodes do not have; expected values at the file's nodes",
                           m->shown, m->field, pd->tags[i]);
    else
      memcpy(pd->points + 3 * i, m->node_xyz + 3 * hit[1], 3 * sizeof(double));
  }
  free(order);
  return err;
}

static int sections(struct msh *m, struct fe_point_data *pd)
{
  while (fe_scan_nonblank_line(&m->s, m->line, sizeof m->line)) {
    if (m->line[0] != '$')
      return fail(m, "found '%.60s' between sections; expected a section such as $NodeData",
                  m->line);
    char name[LINE];
    snprintf(name, sizeof name, "%s", m->line);
    if (!strcmp(name, "$Nodes"))
      FE_CALL(m->version == 2 ? nodes2(m) : nodes41(m));
    else if (!strcmp(name, "$NodeData"))
      FE_CALL(node_data(m, pd));
    if (!strcmp(name, "$Nodes")) {
      if (!fe_scan_nonblank_line(&m->s, m->line, sizeof m->line) || strcmp(m->line, "$EndNodes"))
        return fail(m, "the $Nodes section does not end where its counts say");
    } else if (strcmp(name, "$NodeData")) {
      FE_CALL(section_end(m, name));
    }
  }
  if (!m->found)
    FE_RAISE(FE_ERR_INPUT,
             "%s: no $NodeData named '%s'; expected the velocity at the nodes, a view named as "
             "<velocity field> says",
             m->shown, m->field);
  if (m->found > 1)
    FE_RAISE(FE_ERR_INPUT,
             "%s: %zu $NodeData sections named '%s' (time steps or partitions of a view); "
             "expected one: a file per snapshot",
             m->shown, m->found, m->field);
  return m->n_nodes ? node_points(m, pd) : FE_SUCCESS;
}

int fe_msh_read_node_data(const char *shown, const unsigned char *bytes, size_t size,
                          const char *field, struct fe_point_data *pd)
{
  struct msh m = {.shown = shown, .field = field};
  fe_scan_init(&m.s, bytes, size);
  memset(pd, 0, sizeof *pd);
  int err = format(&m);
  if (!err) err = sections(&m, pd);
  free(m.node_tag);
  free(m.node_xyz);
  if (err) fe_point_data_free(pd);
  return err;
}
