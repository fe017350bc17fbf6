#include "io/case.h"

#include "core/error.h"
#include "io/program.h"
#include "io/schedule.h"
#include "io/series.h"
#include "io/snapshot.h"
#include "io/vtk.h"
#include "io/xml.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlschemas.h>

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Words of the case file and the command line, indexed by enum value. */
static const char *const splitting_words[] = {[FE_SPLIT_STRANG] = "strang", [FE_SPLIT_LIE] = "lie"};
static const char *const advection_words[] = {
    [FE_ADVECTION_RK4] = "rk4", [FE_ADVECTION_NONE] = "none", [FE_ADVECTION_THETA] = "theta"};
static const char *const mass_words[] = {
    [FE_MASS_CONSISTENT] = "consistent", [FE_MASS_LUMPED] = "lumped"};
static const char *const stabilisation_words[] = {[FE_STABILISATION_NONE] = "none",
                                                  [FE_STABILISATION_FCT] = "fct",
                                                  [FE_STABILISATION_SUPG] = "supg"};
static const char *const nu_bar_words[] = {[FE_NU_BAR_OPTIMAL] = "optimal",
                                           [FE_NU_BAR_DOUBLY_ASYMPTOTIC] = "doubly_asymptotic",
                                           [FE_NU_BAR_CRITICAL_RULE] = "critical_rule",
                                           [FE_NU_BAR_UNITY] = "unity"};
static const char *const loads_words[] = {
    [FE_LOADS_QUADRATURE] = "quadrature", [FE_LOADS_INTERPOLATED] = "interpolated"};
static const char *const pc_words[] = {[FE_PC_JACOBI] = "jacobi", [FE_PC_NONE] = "none"};
static const char *const tensor_names[6] = {"xx", "xy", "xz", "yy", "yz", "zz"};

struct reader {
  const char *path; /* the case file as messages show it (shown_path) */
  struct fe_case *c;
};

/* ---- messages ---------------------------------------------------------- */

static int word_index(const char *word, const char *const *words, int n)
{
  for (int i = 0; i < n; i++)
    if (!strcmp(word, words[i])) return i;
  return -1;
}

static void word_list(const char *const *words, int n, char *buf, size_t size)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < n && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", words[i]);
}

/* "FILE:LINE: <element attr="value">: message", FE_ERR_INPUT. */
static int node_error(const struct reader *r, xmlNode *n, const char *attr, const char *src,
                      int src_line, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int node_error(const struct reader *r, xmlNode *n, const char *attr, const char *src,
                      int src_line, const char *fmt, ...)
{
  char msg[1024], tag[512], q[FE_QUOTE_SIZE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  xmlChar *value = attr ? xmlGetNoNsProp(n, BAD_CAST attr) : NULL;
  const char *v = (const char *)value;
  if (value && strlen(v) > FE_QUOTE_MAX) /* a long path: cut, so that the message stays readable */
    snprintf(tag, sizeof tag, "%s %s=%s", (const char *)n->name, attr,
             fe_quote(v, FE_QUOTE_MAX, q, sizeof q));
  else if (value)
    snprintf(tag, sizeof tag, "%s %s=\"%s\"", (const char *)n->name, attr, v);
  else
    snprintf(tag, sizeof tag, "%s", (const char *)n->name);
  xmlFree(value);
  return fe_error_raise(FE_ERR_INPUT, src, src_line, "%s:%ld: <%s>: %s", r->path, xmlGetLineNo(n),
                        tag, msg);
}

#define NODE_CHECK(cond, r, n, attr, ...)                                                          \
  do {                                                                                             \
    if (!(cond)) return node_error((r), (n), (attr), __FILE__, __LINE__, __VA_ARGS__);             \
  } while (0)

/* ---- parsing and validation --------------------------------------------- */

static int parse_file(const char *path, const char *shown, xmlDoc **doc)
{
  struct stat st;
  char quoted[FE_QUOTE_SIZE];
  FE_CHECK(!stat(path, &st), FE_ERR_INPUT, "cannot open case file %s: %s",
           fe_quote(path, FE_QUOTE_MAX, quoted, sizeof quoted), strerror(errno));
  FE_CHECK(!S_ISDIR(st.st_mode), FE_ERR_INPUT, "case file %s is a directory",
           fe_quote(path, FE_QUOTE_MAX, quoted, sizeof quoted));
  struct fe_xml_error err = {0};
  struct fe_xml_quiet q;
  fe_xml_quiet_begin(&q, &err);
  *doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_BIG_LINES);
  fe_xml_quiet_end(&q);
  if (*doc && !err.have) return FE_SUCCESS;
  xmlFreeDoc(*doc);
  *doc = NULL;
  FE_CHECK(err.have, FE_ERR_INPUT, "%s: cannot read the case file", shown);
  fe_xml_tidy(err.msg);
  FE_RAISE(FE_ERR_INPUT, "%s:%d: malformed XML: %s", shown, err.line, err.msg);
}

/* The root and version are checked before the schema for a clearer message. */
static int check_root(const struct reader *r, xmlNode *root)
{
  NODE_CHECK(!strcmp((const char *)root->name, "fesim") && !root->ns, r, root, NULL,
             "not a fesim case file: the root element must be <fesim version=\"1\">");
  /* Entities would need substitution before validation; a case file needs none. */
  NODE_CHECK(!root->doc->intSubset && !root->doc->extSubset, r, root, NULL,
             "document type declarations (<!DOCTYPE ...>) are not allowed in a case file");
  xmlChar *v = xmlGetNoNsProp(root, BAD_CAST "version");
  NODE_CHECK(v, r, root, NULL, "missing attribute version=\"1\" (the case format version)");
  int ok = !strcmp((const char *)v, "1");
  xmlFree(v);
  NODE_CHECK(ok, r, root, "version", "unsupported case format version; this fesim reads version 1");
  return FE_SUCCESS;
}

/* "Element 'time', attribute 'dt': 'abc' is not ..." becomes
 * "FILE:LINE: <time dt="abc">: 'abc' is not ...". */
static int schema_error(const struct reader *r, xmlNode *root, struct fe_xml_error *err)
{
  xmlNode *n = err->node ? err->node : root;
  if (n->type == XML_ATTRIBUTE_NODE && n->parent) n = n->parent;
  char attr[128] = "";
  const char *msg = err->msg;
  if (!strncmp(msg, "Element '", 9) && strstr(msg + 9, "'")) {
    msg = strstr(msg + 9, "'") + 1;
    if (!strncmp(msg, ", attribute '", 13) && strstr(msg + 13, "'")) {
      const char *end = strstr(msg + 13, "'");
      snprintf(attr, sizeof attr, "%.*s", (int)(end - (msg + 13)), msg + 13);
      msg = end + 1;
    }
    if (msg[0] == ':') msg++;
  }
  char text[1024];
  snprintf(text, sizeof text, "%s", msg);
  fe_xml_tidy(text);
  xmlNode *up = n->parent;
  if (!strcmp(text, "this element is not expected") && up && up->type == XML_ELEMENT_NODE)
    snprintf(text, sizeof text, "unexpected element in <%s>", (const char *)up->name);
  const char *a = attr[0] && n->type == XML_ELEMENT_NODE ? attr : NULL;
  if (attr[0] && !a)
    return node_error(r, n, NULL, __FILE__, __LINE__, "attribute '%s': %s", attr, text);
  return node_error(r, n, a, __FILE__, __LINE__, "%s", text);
}

static int validate(const struct reader *r, xmlDoc *doc)
{
  struct fe_xml_error err = {0};
  struct fe_xml_quiet q;
  fe_xml_quiet_begin(&q, &err);
  xmlSchemaParserCtxt *pc = xmlSchemaNewMemParserCtxt(fe_case_schema, (int)fe_case_schema_size);
  xmlSchema *schema = NULL;
  if (pc) {
    xmlSchemaSetParserStructuredErrors(pc, fe_xml_keep_first, &err);
    schema = xmlSchemaParse(pc);
    xmlSchemaFreeParserCtxt(pc);
  }
  xmlSchemaValidCtxt *vc = schema ? xmlSchemaNewValidCtxt(schema) : NULL;
  int rc = -1;
  if (vc) {
    xmlSchemaSetValidStructuredErrors(vc, fe_xml_keep_first, &err);
    rc = xmlSchemaValidateDoc(vc, doc);
    xmlSchemaFreeValidCtxt(vc);
  }
  xmlSchemaFree(schema);
  fe_xml_quiet_end(&q);
  FE_CHECK(schema, FE_ERR_RESOURCE, "internal error: the built-in case schema does not load: %s",
           err.msg);
  if (rc == 0) return FE_SUCCESS;
  FE_CHECK(err.have, FE_ERR_INPUT, "%s: the case file does not follow the case schema", r->path);
  return schema_error(r, xmlDocGetRootElement(doc), &err);
}

/* ---- values ------------------------------------------------------------- */

static xmlNode *child(xmlNode *parent, const char *name)
{
  for (xmlNode *n = parent ? parent->children : NULL; n; n = n->next)
    if (n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name)) return n;
  return NULL;
}

static int required_child(const struct reader *r, xmlNode *parent, const char *name, xmlNode **n)
{
  *n = child(parent, name);
  NODE_CHECK(*n, r, parent, NULL, "missing <%s>", name);
  return FE_SUCCESS;
}

static int is_element(xmlNode *n, const char *name)
{
  return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

static int has_attr(xmlNode *n, const char *attr);

/* Before the schema (its root is a repeated choice, for the repeated <tracer>): the children
 * a case needs, each of the others at most once. */
static int check_required(const struct reader *r, xmlNode *root)
{
  static const char *const needed[] = {"name", "mesh", "time", "tracer"};
  static const char *const axes[] = {"x", "y"};
  for (int i = 0; i < COUNT(needed); i++)
    NODE_CHECK(child(root, needed[i]), r, root, NULL,
               "missing <%s>; a case needs <name>, <mesh>, <time> and <tracer>", needed[i]);
  for (xmlNode *e = root->children; e; e = e->next) {
    if (e->type != XML_ELEMENT_NODE || is_element(e, "tracer")) continue;
    xmlNode *first = child(root, (const char *)e->name);
    NODE_CHECK(first == e, r, e, NULL,
               "given twice (first at line %ld); a case has one <%s> (only <tracer> repeats)",
               xmlGetLineNo(first), (const char *)e->name);
  }
  xmlNode *v = child(root, "velocity");
  if (v && (child(v, "file") || has_attr(v, "series") || !v->children))
    v = NULL; /* files, or empty: read_velocity says */
  for (int d = 0; v && d < COUNT(axes); d++)
    NODE_CHECK(child(v, axes[d]), r, v, NULL,
               "missing <%s>; a velocity has components x and y (and z in 3D)", axes[d]);
  return FE_SUCCESS;
}

/* Trimmed copy of the text of n. */
static int text_of(xmlNode *n, char **out)
{
  xmlChar *raw = xmlNodeGetContent(n);
  const char *s = raw ? (const char *)raw : "";
  while (isspace((unsigned char)*s)) s++;
  size_t len = strlen(s);
  while (len > 0 && isspace((unsigned char)s[len - 1])) len--;
  int err = fe_malloc(len + 1, out);
  if (!err) {
    memcpy(*out, s, len);
    (*out)[len] = '\0';
  }
  xmlFree(raw);
  return err;
}

static int parse_double(const char *s, double *v)
{
  char *end;
  *v = strtod(s, &end);
  while (isspace((unsigned char)*end)) end++;
  return end != s && !*end;
}

/* Leaves *v alone when the attribute is absent. */
static int attr_double(const struct reader *r, xmlNode *n, const char *attr, double *v)
{
  xmlChar *s = xmlGetNoNsProp(n, BAD_CAST attr);
  if (!s) return FE_SUCCESS;
  double x;
  int ok = parse_double((const char *)s, &x);
  xmlFree(s);
  NODE_CHECK(ok, r, n, attr, "%s must be a number", attr);
  NODE_CHECK(isfinite(x), r, n, attr, "%s must be a finite number", attr);
  *v = x;
  return FE_SUCCESS;
}

static int attr_int(const struct reader *r, xmlNode *n, const char *attr, int *v)
{
  xmlChar *s = xmlGetNoNsProp(n, BAD_CAST attr);
  if (!s) return FE_SUCCESS;
  char *end;
  errno = 0;
  long x = strtol((const char *)s, &end, 10);
  while (isspace((unsigned char)*end)) end++;
  int ok = end != (char *)s && !*end;
  int range = errno != ERANGE && x >= INT_MIN && x <= INT_MAX;
  xmlFree(s);
  NODE_CHECK(ok, r, n, attr, "%s must be an integer", attr);
  NODE_CHECK(range, r, n, attr, "%s is out of range", attr);
  *v = (int)x;
  return FE_SUCCESS;
}

static int lookup_word(const struct reader *r, xmlNode *n, const char *attr, const char *word,
                       const char *const *words, int n_words, int *v)
{
  int i = word_index(word, words, n_words);
  char list[256];
  word_list(words, n_words, list, sizeof list);
  NODE_CHECK(i >= 0, r, n, attr, "unknown value '%s'; expected one of %s", word, list);
  *v = i;
  return FE_SUCCESS;
}

/* The schema's xs:token collapses spaces: so must we. */
static int attr_word(const struct reader *r, xmlNode *n, const char *attr, const char *const *words,
                     int n_words, int *v)
{
  xmlChar *s = xmlGetNoNsProp(n, BAD_CAST attr);
  if (!s) return FE_SUCCESS;
  char word[64];
  if (sscanf((const char *)s, " %63s", word) != 1) word[0] = '\0';
  xmlFree(s);
  return lookup_word(r, n, attr, word, words, n_words, v);
}

/* An xs:token attribute whose words the schema lists (its one word, spaces
 * collapsed) replaces *out when present. */
static int attr_token(xmlNode *n, const char *attr, char **out)
{
  xmlChar *s = xmlGetNoNsProp(n, BAD_CAST attr);
  if (!s) return FE_SUCCESS;
  char word[64];
  if (sscanf((const char *)s, " %63s", word) != 1) word[0] = '\0';
  xmlFree(s);
  free(*out);
  *out = NULL;
  return fe_strdup(word, out);
}

static int read_expr(struct reader *r, xmlNode *n, struct fe_expr **e)
{
  xmlChar *text = xmlNodeGetContent(n);
  int err = fe_expr_create(text ? (const char *)text : "", &r->c->params, r->path,
                           (int)xmlGetLineNo(n), (const char *)n->name, e);
  xmlFree(text);
  return err;
}

/* Letters, digits, '_', '-', '.': safe in every file name we build. */
static int valid_base_name(const char *s)
{
  if (!*s) return 0;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && !strchr("_-.", *s)) return 0;
  return 1;
}

static int valid_identifier(const char *s)
{
  if (!isalpha((unsigned char)*s) && *s != '_') return 0;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_') return 0;
  return 1;
}

/* ---- elements ----------------------------------------------------------- */

static int read_name(struct reader *r, xmlNode *n)
{
  FE_CALL(text_of(n, &r->c->name));
  NODE_CHECK(valid_base_name(r->c->name), r, n, NULL,
             "'%s' is not a valid output base name; expected letters, digits, '_', '-' or '.'",
             r->c->name);
  return FE_SUCCESS;
}

static int join_path(const char *dir, const char *file, char **out)
{
  if (file[0] == '/' || !strcmp(dir, ".")) return fe_strdup(file, out);
  size_t n = strlen(dir) + strlen(file) + 2;
  FE_CALL(fe_malloc(n, out));
  snprintf(*out, n, "%s/%s", dir, file);
  return FE_SUCCESS;
}

static int read_mesh(struct reader *r, xmlNode *n)
{
  struct fe_case *c = r->c;
  c->mesh_line = (int)xmlGetLineNo(n);
  xmlChar *file = xmlGetNoNsProp(n, BAD_CAST "file");
  int empty = !file || !file[0];
  if (empty) xmlFree(file);
  NODE_CHECK(!empty, r, n, "file", "the mesh file name is empty");
  int err = join_path(c->dir, (const char *)file, &c->mesh_file);
  xmlFree(file);
  FE_CALL(err);
  struct stat st;
  int found = !stat(c->mesh_file, &st);
  char q[FE_QUOTE_SIZE];
  NODE_CHECK(found, r, n, "file", "mesh file %s not found: %s",
             fe_quote(c->mesh_file, FE_QUOTE_MAX, q, sizeof q), strerror(errno));
  NODE_CHECK(S_ISREG(st.st_mode), r, n, "file", "mesh file %s is not a regular file",
             fe_quote(c->mesh_file, FE_QUOTE_MAX, q, sizeof q));
  if (xmlHasProp(n, BAD_CAST "size")) {
    FE_CALL(attr_double(r, n, "size", &c->mesh_size));
    NODE_CHECK(c->mesh_size > 0, r, n, "size", "size must be > 0");
  }
  return FE_SUCCESS;
}

static int param_line(const char *name, xmlNode *parameters)
{
  for (xmlNode *p = parameters->children; p; p = p->next) {
    if (!is_element(p, "param")) continue;
    xmlChar *s = xmlGetNoNsProp(p, BAD_CAST "name");
    int same = s && !strcmp((const char *)s, name);
    xmlFree(s);
    if (same) return (int)xmlGetLineNo(p);
  }
  return 0;
}

/* The name of <param> p, checked, as parameter ps->n. */
static int read_param_name(struct reader *r, xmlNode *p, xmlNode *parameters)
{
  struct fe_params *ps = &r->c->params;
  xmlChar *s = xmlGetNoNsProp(p, BAD_CAST "name");
  NODE_CHECK(s, r, p, NULL, "missing attribute name");
  int err = fe_strdup((const char *)s, &ps->names[ps->n]);
  xmlFree(s);
  FE_CALL(err);
  const char *name = ps->names[ps->n++];
  NODE_CHECK(valid_identifier(name), r, p, "name",
             "'%s' is not a valid parameter name; expected a letter or '_' followed by letters, "
             "digits or '_'",
             name);
  NODE_CHECK(!fe_expr_name_reserved(name), r, p, "name",
             "'%s' is a reserved name; parameters may not be named x y z t pi e and or, nor "
             "after a function",
             name);
  for (int i = 0; i < ps->n - 1; i++)
    NODE_CHECK(strcmp(ps->names[i], name), r, p, "name",
               "parameter '%s' is already defined at line %d", name, param_line(name, parameters));
  return FE_SUCCESS;
}

/* The value of parameter i, <param> p: an expression of the parameters above it. */
static int read_param_value(struct reader *r, xmlNode *p, int i)
{
  struct fe_params *ps = &r->c->params;
  char tag[FE_QUOTE_SIZE + 16];
  if (strlen(ps->names[i]) > FE_QUOTE_MAX) { /* cut as node_error cuts it */
    char q[FE_QUOTE_SIZE];
    snprintf(tag, sizeof tag, "param name=%s", fe_quote(ps->names[i], FE_QUOTE_MAX, q, sizeof q));
  } else {
    snprintf(tag, sizeof tag, "param name=\"%s\"", ps->names[i]);
  }
  xmlChar *text = xmlNodeGetContent(p);
  int err = fe_expr_constant(text ? (const char *)text : "", ps, i, r->path, (int)xmlGetLineNo(p),
                             tag, &ps->values[i]);
  xmlFree(text);
  return err;
}

/* Every name first, so that a value using a later parameter is told so. */
static int read_parameters(struct reader *r, xmlNode *n)
{
  int count = 0;
  for (xmlNode *p = n ? n->children : NULL; p; p = p->next) count += is_element(p, "param");
  if (!count) return FE_SUCCESS;
  FE_CALLOC(count, &r->c->params.names);
  FE_CALLOC(count, &r->c->params.values);
  for (xmlNode *p = n->children; p; p = p->next)
    if (is_element(p, "param")) FE_CALL(read_param_name(r, p, n));
  int i = 0;
  for (xmlNode *p = n->children; p; p = p->next)
    if (is_element(p, "param")) FE_CALL(read_param_value(r, p, i++));
  return FE_SUCCESS;
}

/* The spacing of doubles at t: the smallest step a time t can take. */
static double spacing(double t) { return nextafter(fabs(t), INFINITY) - fabs(t); }

/* The time span must be steppable (io/schedule.h) by `attr` (dt or dt_max, `step`):
 * finite, the step visible at both ends, at most FE_MAX_STEPS steps. */
static int check_steps(struct reader *r, xmlNode *n, const char *attr, double step)
{
  const struct fe_case *c = r->c;
  long steps;
  switch (fe_steps_count(c->t_start, c->t_end, step, &steps)) {
  case FE_STEPS_OK: return FE_SUCCESS;
  case FE_STEPS_SPAN_NOT_FINITE:
    return node_error(r, n, "end", __FILE__, __LINE__,
                      "end - start = %.9g - (%.9g) is not a finite number; expected start and end "
                      "whose difference a double can hold",
                      c->t_end, c->t_start);
  case FE_STEPS_DT_LOST_AT_START:
  case FE_STEPS_DT_LOST_AT_END: {
    const int at_start = c->t_start + step == c->t_start;
    const double t = at_start ? c->t_start : c->t_end;
    const char *where = at_start ? "start" : "end";
    return node_error(r, n, attr, __FILE__, __LINE__,
                      "%s = %.9g is too small for the times: %s %c %s == %s (%s = %.9g, where "
                      "doubles are %.9g apart); expected a %s many times larger than that spacing",
                      attr, step, where, at_start ? '+' : '-', attr, where, where, t, spacing(t),
                      attr);
  }
  default:
    return node_error(r, n, attr, __FILE__, __LINE__,
                      "(end - start) / %s = %.9g steps (start = %.9g, end = %.9g); expected at "
                      "most %.0e steps",
                      attr, (c->t_end - c->t_start) / step, c->t_start, c->t_end,
                      (double)FE_MAX_STEPS);
  }
}

static int has_attr(xmlNode *n, const char *attr)
{
  xmlChar *v = xmlGetNoNsProp(n, BAD_CAST attr);
  xmlFree(v);
  return v != NULL;
}

/* A fixed dt, or cfl with dt_max (steps from the Courant number). */
static int read_time_rule(struct reader *r, xmlNode *n)
{
  struct fe_case *c = r->c;
  const int dt = has_attr(n, "dt"), cfl = has_attr(n, "cfl"), dt_max = has_attr(n, "dt_max");
  NODE_CHECK(!(dt && cfl), r, n, "cfl",
             "found dt and cfl; expected one of them: dt for steps of a fixed length, or cfl with "
             "dt_max for steps from the Courant number");
  NODE_CHECK(dt || cfl, r, n, NULL,
             "found neither dt nor cfl; expected dt=\"...\" (steps of a fixed length) or "
             "cfl=\"...\" with dt_max=\"...\" (steps from the Courant number)");
  NODE_CHECK(!dt_max || cfl, r, n, "dt_max",
             "found dt_max without cfl; expected cfl=\"...\" with it (dt_max bounds the steps the "
             "Courant number chooses), or no dt_max with a fixed dt");
  NODE_CHECK(!cfl || dt_max, r, n, "cfl",
             "found cfl without dt_max; expected dt_max=\"...\" too: the longest step, taken where "
             "and while the flow is slow or still");
  if (dt) {
    FE_CALL(attr_double(r, n, "dt", &c->dt));
    NODE_CHECK(c->dt > 0, r, n, "dt", "dt must be > 0");
    return FE_SUCCESS;
  }
  FE_CALL(attr_double(r, n, "cfl", &c->cfl));
  FE_CALL(attr_double(r, n, "dt_max", &c->dt_max));
  NODE_CHECK(c->cfl > 0, r, n, "cfl", "found cfl = %g; expected a Courant number > 0", c->cfl);
  NODE_CHECK(c->dt_max > 0, r, n, "dt_max", "found dt_max = %g; expected a longest step > 0",
             c->dt_max);
  return FE_SUCCESS;
}

static int read_time(struct reader *r, xmlNode *n)
{
  struct fe_case *c = r->c;
  FE_CALL(attr_double(r, n, "start", &c->t_start));
  FE_CALL(attr_double(r, n, "end", &c->t_end));
  FE_CALL(read_time_rule(r, n));
  NODE_CHECK(c->t_end > c->t_start, r, n, "end", "end must be > start (start=\"%g\")", c->t_start);
  return c->cfl > 0 ? check_steps(r, n, "dt_max", c->dt_max) : check_steps(r, n, "dt", c->dt);
}

/* The components x y (z) as expressions, each once; x and y required. */
static int read_velocity_expressions(struct reader *r, xmlNode *n)
{
  static const char *const axes[3] = {"x", "y", "z"};
  struct fe_case *c = r->c;
  xmlNode *axis[3] = {0};
  for (xmlNode *e = n->children; e; e = e->next) {
    const int a = e->type == XML_ELEMENT_NODE ? word_index((const char *)e->name, axes, 3) : -1;
    if (a < 0) continue;
    NODE_CHECK(!axis[a], r, e, NULL, "given twice (first at line %ld); a velocity has one <%s>",
               xmlGetLineNo(axis[a]), axes[a]);
    axis[a] = e;
  }
  for (int d = 0; d < 3; d++) {
    if (!axis[d] && d == 2) break;
    NODE_CHECK(axis[d], r, n, NULL, "missing <%s>; a velocity has components x and y (and z in 3D)",
               axes[d]);
    FE_CALL(read_expr(r, axis[d], &c->velocity[d]));
    c->n_velocity = d + 1;
  }
  return FE_SUCCESS;
}

/* A snapshot file: a regular file of a format fesim reads, by its extension. */
static int check_velocity_file(struct reader *r, xmlNode *n, const char *attr, const char *path,
                               const char *listed)
{
  char q[FE_QUOTE_SIZE];
  struct stat st;
  fe_quote(path, FE_QUOTE_MAX, q, sizeof q);
  NODE_CHECK(!stat(path, &st), r, n, attr, "velocity file %s%s not found: %s", q, listed,
             strerror(errno));
  NODE_CHECK(S_ISREG(st.st_mode), r, n, attr, "velocity file %s%s is not a regular file", q,
             listed);
  NODE_CHECK(fe_snapshot_format(path) != FE_SNAPSHOT_NONE, r, n, attr,
             "velocity file %s%s: expected .vtk (legacy VTK), .vtu (VTK XML) or .msh (Gmsh "
             "$NodeData)",
             q, listed);
  return FE_SUCCESS;
}

/* Times that increase strictly from snapshot to snapshot; `what` names snapshot k. */
static int check_velocity_time(struct reader *r, xmlNode *n, const char *attr, int k,
                               const char *what, const char *before)
{
  const struct fe_velocity_file *f = r->c->velocity_files;
  NODE_CHECK(k == 0 || f[k].time > f[k - 1].time, r, n, attr,
             "%s is at t = %.17g, not after %s at t = %.17g; expected times that increase from "
             "snapshot to snapshot",
             what, f[k].time, before, k ? f[k - 1].time : 0.0);
  return FE_SUCCESS;
}

/* <file time="T">PATH</file> elements; time may be left out with one file. */
static int read_velocity_file_list(struct reader *r, xmlNode *n, int count)
{
  struct fe_case *c = r->c;
  FE_CALLOC(count, &c->velocity_files);
  xmlNode *prev = NULL;
  for (xmlNode *e = n->children; e; e = e->next) {
    if (!is_element(e, "file")) continue;
    struct fe_velocity_file *f = &c->velocity_files[c->n_velocity_files++];
    char *text;
    FE_CALL(text_of(e, &text));
    const int empty = !text[0];
    int err = empty ? FE_SUCCESS : join_path(c->dir, text, &f->path);
    free(text);
    FE_CALL(err);
    NODE_CHECK(!empty, r, e, NULL, "no file name; expected the path of a velocity file");
    f->time = NAN;
    NODE_CHECK(count == 1 || has_attr(e, "time"), r, e, NULL,
               "missing time=\"...\"; with several files each needs its time");
    FE_CALL(attr_double(r, e, "time", &f->time));
    FE_CALL(check_velocity_file(r, e, NULL, f->path, ""));
    char before[64];
    snprintf(before, sizeof before, "the file at line %ld", prev ? xmlGetLineNo(prev) : 0L);
    FE_CALL(check_velocity_time(r, e, "time", c->n_velocity_files - 1, "this file", before));
    prev = e;
  }
  return FE_SUCCESS;
}

/* series="INDEX": the files and times a .vtk.series or .pvd lists. */
static int read_velocity_series(struct reader *r, xmlNode *n)
{
  struct fe_case *c = r->c;
  xmlChar *v = xmlGetNoNsProp(n, BAD_CAST "series");
  const int empty = !v || !v[0];
  int err = empty ? FE_SUCCESS : fe_strdup((const char *)v, &c->velocity_series);
  xmlFree(v);
  FE_CALL(err);
  NODE_CHECK(!empty, r, n, "series", "the series index's name is empty");
  const char *dot = strrchr(c->velocity_series, '.');
  NODE_CHECK(dot && (!strcasecmp(dot, ".series") || !strcasecmp(dot, ".pvd")), r, n, "series",
             "expected a series index: NAME.vtk.series (as fesim writes) or a .pvd collection");
  char *index;
  FE_CALL(join_path(c->dir, c->velocity_series, &index));
  struct fe_series_entry *entries = NULL;
  int count = 0;
  err = fe_series_read(index, &entries, &count); /* its messages name the index */
  free(index);
  FE_CALL(err);
  err = fe_calloc((size_t)count, sizeof *c->velocity_files, &c->velocity_files);
  for (int k = 0; !err && k < count; k++) {
    struct fe_velocity_file *f = &c->velocity_files[c->n_velocity_files++];
    f->path = entries[k].file;
    f->time = entries[k].time;
    entries[k].file = NULL;
    char listed[FE_QUOTE_SIZE + 32], what[48], before[48];
    snprintf(listed, sizeof listed, " (file %d of the series)", k);
    err = check_velocity_file(r, n, "series", f->path, listed);
    snprintf(what, sizeof what, "file %d of the series", k);
    snprintf(before, sizeof before, "file %d", k - 1);
    if (!err) err = check_velocity_time(r, n, "series", k, what, before);
  }
  fe_series_free(entries, count);
  return err;
}

/* <velocity>: expressions, <file> elements or a series index, one of them; field="NAME" with
 * files only. */
static int read_velocity(struct reader *r, xmlNode *n)
{
  if (!n) return FE_SUCCESS;
  struct fe_case *c = r->c;
  c->velocity_line = (int)xmlGetLineNo(n);
  int files = 0, components = 0;
  for (xmlNode *e = n->children; e; e = e->next) {
    files += is_element(e, "file");
    components += e->type == XML_ELEMENT_NODE && !is_element(e, "file");
  }
  const int series = has_attr(n, "series");
  NODE_CHECK(components + files + series > 0, r, n, NULL,
             "empty; expected the components <x> <y> (<z>), <file> elements or series=\"...\"");
  NODE_CHECK(!(components && (files || series)) && !(files && series), r, n, NULL,
             "found %s and %s; expected one of: the components <x> <y> (<z>) as expressions, "
             "<file> elements, or series=\"...\"",
             components ? "components" : "<file> elements", series ? "series" : "<file> elements");
  if (components) {
    NODE_CHECK(!has_attr(n, "field"), r, n, "field",
               "field names the point array of velocity files; expected it with <file> or "
               "series only");
    return read_velocity_expressions(r, n);
  }
  xmlChar *field = xmlGetNoNsProp(n, BAD_CAST "field");
  free(c->velocity_field);
  c->velocity_field = NULL;
  const int empty = field && !field[0];
  int err = fe_strdup(field ? (const char *)field : "velocity", &c->velocity_field);
  xmlFree(field);
  FE_CALL(err);
  NODE_CHECK(!empty, r, n, "field",
             "the point array's name is empty; expected the name of the "
             "velocity in the files (default velocity)");
  return files ? read_velocity_file_list(r, n, files) : read_velocity_series(r, n);
}

static int has_text(xmlNode *n)
{
  for (xmlNode *t = n->children; t; t = t->next) {
    if (t->type != XML_TEXT_NODE && t->type != XML_CDATA_SECTION_NODE) continue;
    for (const xmlChar *s = t->content; s && *s; s++)
      if (!isspace(*s)) return 1;
  }
  return 0;
}

static int read_diffusivity(struct reader *r, xmlNode *n, struct fe_tracer *c)
{
  static const int set2[3] = {0, 1, 3}, set3[6] = {0, 1, 2, 3, 4, 5};
  c->diffusivity_line = (int)xmlGetLineNo(n);
  xmlNode *comp[6] = {0};
  char given[64] = "";
  int n_comp = 0;
  for (xmlNode *e = n->children; e; e = e->next) {
    if (e->type != XML_ELEMENT_NODE) continue;
    int i = word_index((const char *)e->name, tensor_names, 6);
    NODE_CHECK(i >= 0, r, e, NULL, "unknown diffusivity component; expected xx xy xz yy yz zz");
    NODE_CHECK(!comp[i], r, e, NULL, "component given twice (first at line %ld)",
               xmlGetLineNo(comp[i]));
    comp[i] = e;
    n_comp++;
    strcat(given, " ");
    strcat(given, tensor_names[i]);
  }
  int text = has_text(n);
  NODE_CHECK(!(text && n_comp), r, n, NULL,
             "both a scalar expression and tensor components given; expected one of the two");
  if (!n_comp) {
    NODE_CHECK(text, r, n, NULL,
               "empty; expected a scalar expression, or components xx xy yy (2D) or xx xy xz yy "
               "yz zz (3D)");
    c->n_diffusivity = 1;
    return read_expr(r, n, &c->diffusivity[0]);
  }
  const int *set = n_comp == 3 ? set2 : set3;
  int complete = n_comp == 3 || n_comp == 6;
  for (int k = 0; complete && k < n_comp; k++) complete = comp[set[k]] != NULL;
  NODE_CHECK(complete, r, n, NULL,
             "incomplete tensor: found%s; expected xx xy yy (2D) or xx xy xz yy yz zz (3D)", given);
  for (int k = 0; k < n_comp; k++) FE_CALL(read_expr(r, comp[set[k]], &c->diffusivity[k]));
  c->n_diffusivity = n_comp;
  return FE_SUCCESS;
}

/* A group named twice in a tracer's conditions is an error: the message names both lines. */
static int check_group_unique(const struct reader *r, xmlNode *n, const struct fe_tracer *c,
                              const char *ref)
{
  for (int b = 0; b < c->n_boundaries - 1; b++) /* the last one is being read */
    for (int k = 0; k < c->boundaries[b].n_refs; k++)
      NODE_CHECK(strcmp(c->boundaries[b].refs[k], ref), r, n, "physical",
                 "physical group '%s' already has a condition at line %d; a group may appear in "
                 "one <boundary> only",
                 ref, c->boundaries[b].line);
  return FE_SUCCESS;
}

/* The words of attribute attr (physical groups by name or number), each once; tr: the tracer
 * whose <boundary> they are, whose other boundaries must not name them (NULL: none). */
static int read_refs(struct reader *r, xmlNode *n, const char *attr, const struct fe_tracer *tr,
                     char ***refs, int *n_refs)
{
  xmlChar *raw = xmlGetNoNsProp(n, BAD_CAST attr);
  char *list = NULL;
  int err = fe_strdup(raw ? (const char *)raw : "", &list);
  xmlFree(raw);
  FE_CALL(err);
  int count = 0;
  for (char *s = list; *s; s++)
    count += !isspace((unsigned char)*s) && (s == list || isspace((unsigned char)s[-1]));
  err = count ? fe_calloc((size_t)count, sizeof **refs, refs) : FE_SUCCESS;
  char *save = NULL;
  for (char *tok = strtok_r(list, " \t\r\n", &save); tok && !err;
       tok = strtok_r(NULL, " \t\r\n", &save)) {
    if (tr) err = check_group_unique(r, n, tr, tok);
    for (int k = 0; k < *n_refs && !err; k++)
      if (!strcmp((*refs)[k], tok))
        err = node_error(r, n, attr, __FILE__, __LINE__, "physical group '%s' named twice", tok);
    if (!err) err = fe_strdup(tok, &(*refs)[*n_refs]);
    if (!err) ++*n_refs;
  }
  free(list);
  FE_CALL(err);
  NODE_CHECK(*n_refs > 0, r, n, attr,
             "no physical group given; expected names or numbers of Gmsh physical groups%s",
             tr ? "" : " (or no boundaries attribute: every boundary group of the mesh)");
  return FE_SUCCESS;
}

static int read_boundary(struct reader *r, xmlNode *n, struct fe_tracer *tr)
{
  struct fe_boundary *b = &tr->boundaries[tr->n_boundaries++]; /* owned by tr, even on error */
  b->line = (int)xmlGetLineNo(n);
  FE_CALL(read_refs(r, n, "physical", tr, &b->refs, &b->n_refs));
  xmlNode *d = child(n, "dirichlet"), *f = child(n, "neumann");
  NODE_CHECK((d != NULL) != (f != NULL), r, n, NULL,
             "expected exactly one of <dirichlet> or <neumann>");
  b->kind = d ? FE_BC_DIRICHLET : FE_BC_NEUMANN;
  return read_expr(r, d ? d : f, &b->value);
}

/* The dump's point fields: each tracer's NAME, the velocity, each NAME_exact and NAME_error,
 * in the order of fe_case_dump_fields (app/outputs.c writes them so). */
static int dump_fields(const struct fe_case *c, const char **names,
                       char (*own)[FE_VTK_NAME_MAX + 8], int *tracer, int *role)
{
  int n = 0;
  for (int k = 0; k < c->n_tracers; k++) {
    tracer[n] = k, role[n] = 0;
    names[n++] = c->tracers[k].name;
  }
  if (fe_case_has_velocity(c)) tracer[n] = -1, role[n] = 1, names[n++] = "velocity";
  for (int k = 0; k < c->n_tracers; k++) {
    if (!c->tracers[k].exact) continue;
    for (int j = 2; j < 4; j++) {
      snprintf(own[n], sizeof own[n], "%.*s_%s", FE_VTK_NAME_MAX + 1, c->tracers[k].name,
               j == 2 ? "exact" : "error");
      tracer[n] = k, role[n] = j;
      names[n] = own[n];
      n++;
    }
  }
  return n;
}

/* The dump's point fields are distinct, none is named like the dump's own arrays (the cell
 * field region, the time TIME), and each fits VTK's legacy reader (io/vtk.h); a message names
 * the <tracer> whose name makes the clash. */
static int check_field_names(const struct reader *r, xmlNode *const *nodes)
{
  static const char *const role[] = {"the tracer", "the velocity", "the exact solution",
                                     "the error"};
  const struct fe_case *c = r->c;
  const int most = 3 * c->n_tracers + 1;
  const char **names;
  char(*own)[FE_VTK_NAME_MAX + 8];
  int *tracer, *kind;
  FE_CALLOC(most, &names);
  int err = fe_calloc((size_t)most, sizeof *own, &own);
  if (!err) err = fe_calloc((size_t)most, sizeof *tracer, &tracer);
  if (!err) err = fe_calloc((size_t)most, sizeof *kind, &kind);
  const char *other = NULL;
  const int n = err ? 0 : dump_fields(c, names, own, tracer, kind);
  const int clash = err ? -1 : fe_vtk_name_clash(n, names, &other);
  int which = -1;
  for (int j = 0; clash >= 0 && j < clash; j++)
    if (names[j] == other) which = j;
  const char *dump_own = other && strcmp(other, FE_VTK_TIME_FIELD)
                             ? "the cell field " FE_VTK_CELL_FIELD
                             : "the time (field data " FE_VTK_TIME_FIELD ")";
  char first[160] = "";
  if (which >= 0 && tracer[which] >= 0 && tracer[clash] >= 0 && tracer[which] != tracer[clash])
    snprintf(first, sizeof first, " of <tracer name=\"%.64s\"> (line %d)",
             c->tracers[tracer[which]].name, c->tracers[tracer[which]].line);
  if (clash >= 0) {
    const int named = tracer[clash] >= 0 ? tracer[clash] : which >= 0 ? tracer[which] : -1;
    xmlNode *at = nodes[named >= 0 ? named : 0];
    err = node_error(r, at, "name", __FILE__, __LINE__,
                     "the dumps would hold two arrays named '%s': %s%s and %s; expected tracer "
                     "names that no other array of the dumps has (another tracer's, velocity, "
                     "region, TIME, NAME_exact, NAME_error)",
                     names[clash], which >= 0 ? role[kind[which]] : role[kind[clash]], first,
                     which >= 0 ? role[kind[clash]] : dump_own);
  }
  for (int i = 0; !err && i < n; i++)
    if (fe_vtk_encoded_length(names[i]) > FE_VTK_NAME_MAX)
      err = node_error(r, nodes[tracer[i] >= 0 ? tracer[i] : 0], "name", __FILE__, __LINE__,
                       "the field name of %s is %zu bytes long; VTK's legacy reader takes names of "
                       "at most %d: expected a shorter tracer name",
                       role[kind[i]], fe_vtk_encoded_length(names[i]), FE_VTK_NAME_MAX);
  free(names);
  free(own);
  free(tracer);
  free(kind);
  return err;
}

static int read_tracer(struct reader *r, xmlNode *t, struct fe_tracer *tr)
{
  static const char *const once[] = {"initial", "diffusivity", "source", "exact", "absorption"};
  struct fe_case *c = r->c;
  xmlNode *seen[5] = {0};
  int n_boundaries = 0;
  tr->line = (int)xmlGetLineNo(t);
  xmlChar *name = xmlGetNoNsProp(t, BAD_CAST "name");
  int err = fe_strdup(name ? (const char *)name : "", &tr->name);
  xmlFree(name);
  FE_CALL(err);
  NODE_CHECK(valid_base_name(tr->name), r, t, "name",
             "'%s' is not a valid field name; expected letters, digits, '_', '-' or '.'", tr->name);
  for (const struct fe_tracer *o = c->tracers; o < tr; o++)
    NODE_CHECK(strcmp(o->name, tr->name), r, t, "name",
               "a second tracer named '%s' (the first at line %d); expected a name per tracer, "
               "which names its fields in the dumps and its columns",
               tr->name, o->line);
  for (xmlNode *e = t->children; e; e = e->next) {
    if (e->type != XML_ELEMENT_NODE) continue;
    if (is_element(e, "boundary")) {
      n_boundaries++;
      continue;
    }
    int i = word_index((const char *)e->name, once, COUNT(once));
    NODE_CHECK(i >= 0, r, e, NULL, "unexpected element in <tracer>");
    NODE_CHECK(!seen[i], r, e, NULL, "given twice (first at line %ld); a <tracer> has one <%s>",
               xmlGetLineNo(seen[i]), once[i]);
    seen[i] = e;
  }
  NODE_CHECK(seen[0], r, t, NULL, "missing <initial> (the initial condition)");
  NODE_CHECK(seen[1], r, t, NULL, "missing <diffusivity>");
  FE_CALL(read_expr(r, seen[0], &tr->initial));
  FE_CALL(read_diffusivity(r, seen[1], tr));
  if (seen[2])
    FE_CALL(read_expr(r, seen[2], &tr->source));
  else
    FE_CALL(fe_expr_create("0", &c->params, r->path, (int)xmlGetLineNo(t), "source", &tr->source));
  if (seen[3]) FE_CALL(read_expr(r, seen[3], &tr->exact));
  if (seen[4]) {
    FE_CALL(read_expr(r, seen[4], &tr->absorption));
    tr->absorption_line = (int)xmlGetLineNo(seen[4]);
  }
  if (n_boundaries) FE_CALLOC(n_boundaries, &tr->boundaries);
  for (xmlNode *e = t->children; e; e = e->next)
    if (is_element(e, "boundary")) FE_CALL(read_boundary(r, e, tr));
  return FE_SUCCESS;
}

/* The <tracer> elements in their order, then the names of the dump's fields they make. */
static int read_tracers(struct reader *r, xmlNode *root)
{
  struct fe_case *c = r->c;
  int n = 0;
  for (xmlNode *e = root->children; e; e = e->next) n += is_element(e, "tracer");
  xmlNode **nodes;
  FE_CALLOC(n, &nodes);
  int err = fe_calloc((size_t)n, sizeof *c->tracers, &c->tracers);
  for (xmlNode *e = root->children; e && !err; e = e->next)
    if (is_element(e, "tracer")) {
      nodes[c->n_tracers] = e;
      err = read_tracer(r, e, &c->tracers[c->n_tracers++]); /* owned by c, even on error */
    }
  if (!err) err = check_field_names(r, nodes);
  free(nodes);
  return err;
}

static int read_scheme(struct reader *r, xmlNode *n)
{
  struct fe_case *c = r->c;
  if (!n) return FE_SUCCESS;
  int s = (int)c->splitting, a = (int)c->advection, m = (int)c->mass, st = (int)c->stabilisation;
  int nb = (int)c->nu_bar, ld = (int)c->loads;
  c->scheme_line = (int)xmlGetLineNo(n);
  FE_CALL(attr_double(r, n, "theta", &c->theta));
  NODE_CHECK(c->theta >= 0 && c->theta <= 1, r, n, "theta", "theta must be in [0, 1]");
  FE_CALL(attr_word(r, n, "splitting", splitting_words, COUNT(splitting_words), &s));
  FE_CALL(attr_word(r, n, "advection", advection_words, COUNT(advection_words), &a));
  FE_CALL(attr_word(r, n, "mass", mass_words, COUNT(mass_words), &m));
  FE_CALL(attr_word(r, n, "stabilisation", stabilisation_words, COUNT(stabilisation_words), &st));
  FE_CALL(attr_word(r, n, "nu_bar", nu_bar_words, COUNT(nu_bar_words), &nb));
  FE_CALL(attr_double(r, n, "nu_scale", &c->nu_scale));
  FE_CALL(attr_word(r, n, "loads", loads_words, COUNT(loads_words), &ld));
  NODE_CHECK(c->nu_scale >= 0 && isfinite(c->nu_scale), r, n, "nu_scale",
             "nu_scale must be a finite number >= 0");
  FE_CALL(attr_double(r, n, "conservative_advection", &c->conservative_advection));
  NODE_CHECK(c->conservative_advection >= 0 && c->conservative_advection <= 1, r, n,
             "conservative_advection",
             "found %g; expected beta in [0, 1]: 1 the conservative form div(u T), 0 the "
             "non-conservative u . grad T (Fluidity's conservative_advection)",
             c->conservative_advection);
  c->nu_bar = (enum fe_nu_bar)nb;
  c->loads = (enum fe_loads)ld;
  c->splitting = (enum fe_splitting)s;
  c->advection = (enum fe_advection)a;
  c->mass = (enum fe_mass)m;
  c->stabilisation = (enum fe_stabilisation)st;
  return FE_SUCCESS;
}

static int read_solver(struct reader *r, xmlNode *n)
{
  struct fe_case *c = r->c;
  if (!n) return FE_SUCCESS;
  int pc = (int)c->preconditioner;
  FE_CALL(attr_double(r, n, "rtol", &c->rtol));
  NODE_CHECK(c->rtol >= 0, r, n, "rtol", "rtol must be >= 0");
  FE_CALL(attr_double(r, n, "atol", &c->atol));
  NODE_CHECK(c->atol >= 0, r, n, "atol", "atol must be >= 0");
  FE_CALL(attr_int(r, n, "max_iterations", &c->max_iterations));
  NODE_CHECK(c->max_iterations > 0, r, n, "max_iterations", "max_iterations must be > 0");
  FE_CALL(attr_word(r, n, "preconditioner", pc_words, COUNT(pc_words), &pc));
  c->preconditioner = (enum fe_preconditioner)pc;
  return FE_SUCCESS;
}

static int read_assembly(struct reader *r, xmlNode *n)
{
  if (!n) return FE_SUCCESS;
  FE_CALL(attr_token(n, "strategy", &r->c->strategy));
  xmlChar *v = xmlGetProp(n, (const xmlChar *)"deterministic");
  if (v) { /* xs:boolean, whitespace collapsed: true false 1 0 */
    const char *w = (const char *)v;
    while (isspace((unsigned char)*w)) w++;
    r->c->deterministic = !strncmp(w, "true", 4) || *w == '1';
    xmlFree(v);
  }
  return FE_SUCCESS;
}

static int read_backend(struct reader *r, xmlNode *n)
{
  if (!n) return FE_SUCCESS;
  free(r->c->backend);
  r->c->backend = NULL;
  return text_of(n, &r->c->backend);
}

/* With cfl the steps land on the output times: they must be steppable like a dt. */
static int check_output_times(struct reader *r, xmlNode *n)
{
  struct fe_case *c = r->c;
  long outputs;
  const double period = c->output_period;
  switch (fe_steps_count(c->t_start, c->t_end, period, &outputs)) {
  case FE_STEPS_OK: c->output_every = 0; return FE_SUCCESS;
  case FE_STEPS_TOO_MANY:
    return node_error(r, n, "period", __FILE__, __LINE__,
                      "found (end - start) / period = %.9g output times; expected at most %.0e "
                      "(each is the end of a step)",
                      (c->t_end - c->t_start) / period, (double)FE_MAX_STEPS);
  default:
    return node_error(r, n, "period", __FILE__, __LINE__,
                      "found period = %.9g, too small for the times %.9g to %.9g (doubles there "
                      "are %.9g apart); expected a period many times larger than that spacing",
                      period, c->t_start, c->t_end,
                      spacing(fmax(fabs(c->t_start), fabs(c->t_end))));
  }
}

/* With a fixed dt the dumps follow the steps: period = N dt, read as every = N. */
static int period_in_steps(struct reader *r, xmlNode *n)
{
  struct fe_case *c = r->c;
  const double ratio = c->output_period / c->dt, every = nearbyint(ratio);
  xmlNode *time = child(n->parent, "time");
  NODE_CHECK(
      every >= 1 && every <= INT_MAX &&
          fabs(every * c->dt - c->output_period) <= FE_STEP_ROUNDOFF * c->output_period,
      r, n, "period",
      "found period = %.9g with dt = %.9g (line %ld), %.9g steps; expected a whole number of "
      "steps: with a fixed dt the dumps follow the steps (or give <time> cfl and dt_max: "
      "the steps then land on the output times)",
      c->output_period, c->dt, time ? xmlGetLineNo(time) : 0L, ratio);
  c->output_every = (int)every;
  return FE_SUCCESS;
}

static int read_output(struct reader *r, xmlNode *n)
{
  struct fe_case *c = r->c;
  if (!n) return FE_SUCCESS;
  xmlChar *dir = xmlGetNoNsProp(n, BAD_CAST "dir");
  if (dir) {
    free(c->output_dir);
    c->output_dir = NULL;
    int err = fe_strdup((const char *)dir, &c->output_dir);
    xmlFree(dir);
    FE_CALL(err);
    NODE_CHECK(c->output_dir[0], r, n, "dir", "the output directory is empty; use \".\" for here");
  }
  FE_CALL(attr_int(r, n, "every", &c->output_every));
  NODE_CHECK(c->output_every > 0, r, n, "every", "every must be > 0 (a period in steps)");
  if (!has_attr(n, "period")) return FE_SUCCESS;
  NODE_CHECK(!has_attr(n, "every"), r, n, "period",
             "found every and period; expected one of them: every for a dump every N steps, "
             "period for a dump every so much time");
  FE_CALL(attr_double(r, n, "period", &c->output_period));
  NODE_CHECK(c->output_period > 0, r, n, "period",
             "found period = %g; expected a time between dumps > 0", c->output_period);
  return c->cfl > 0 ? check_output_times(r, n) : period_in_steps(r, n);
}

static int read_probe(struct reader *r, xmlNode *n, struct fe_probe *p)
{
  static const char *const axes[] = {"x", "y", "z"};
  xmlChar *name = xmlGetNoNsProp(n, BAD_CAST "name");
  const int err = fe_strdup(name ? (const char *)name : "", &p->name);
  xmlFree(name);
  FE_CALL(err);
  NODE_CHECK(fe_probe_name_valid(p->name), r, n, "name",
             "not a valid probe name; expected 1 to %d letters, digits, '_', '-' or '.'",
             FE_PROBE_NAME_MAX);
  p->line = (int)xmlGetLineNo(n);
  for (int a = 0; a < 3; a++) {
    if (!has_attr(n, axes[a])) continue;
    FE_CALL(attr_double(r, n, axes[a], &p->x[a]));
    p->n_coords = a + 1;
  }
  return FE_SUCCESS;
}

/* The file of points (probes@file): relative to the case file, as the mesh. */
static int read_probe_file(struct reader *r, xmlNode *n)
{
  struct fe_case *c = r->c;
  xmlChar *file = xmlGetNoNsProp(n, BAD_CAST "file");
  if (!file) return FE_SUCCESS;
  const int empty = !file[0];
  if (empty) xmlFree(file);
  NODE_CHECK(!empty, r, n, "file", "the file name of the points is empty");
  const int err = join_path(c->dir, (const char *)file, &c->probes_file);
  xmlFree(file);
  FE_CALL(err);
  struct stat st;
  char q[FE_QUOTE_SIZE], shown[FE_QUOTE_SIZE];
  const int found = !stat(c->probes_file, &st);
  NODE_CHECK(found, r, n, "file", "file of points %s not found: %s",
             fe_quote(c->probes_file, FE_QUOTE_MAX, q, sizeof q), strerror(errno));
  NODE_CHECK(S_ISREG(st.st_mode), r, n, "file", "file of points %s is not a regular file",
             fe_quote(c->probes_file, FE_QUOTE_MAX, q, sizeof q));
  return fe_probes_read_csv(c->probes_file, fe_path_shown(c->probes_file, shown, sizeof shown),
                            &c->probes, &c->n_probes);
}

/* Distinct names: each names the probe's columns of NAME.probes.csv. */
static int check_probe_names(const struct reader *r)
{
  const struct fe_case *c = r->c;
  int first, second;
  char a[2 * FE_QUOTE_SIZE], b[2 * FE_QUOTE_SIZE];
  FE_CALL(fe_probes_find_duplicate(c->probes, c->n_probes, &first, &second));
  if (first < 0) return FE_SUCCESS;
  FE_RAISE(FE_ERR_INPUT,
           "%s: the probe name '%s' is given twice (first: %s); expected a name per probe, which "
           "names its columns of NAME.probes.csv",
           fe_case_probe_where(c, &c->probes[second], a, sizeof a), c->probes[second].name,
           fe_case_probe_where(c, &c->probes[first], b, sizeof b));
}

static int read_probes(struct reader *r, xmlNode *n)
{
  struct fe_case *c = r->c;
  if (!n) return FE_SUCCESS;
  c->probes_line = (int)xmlGetLineNo(n);
  FE_CALL(attr_int(r, n, "every", &c->probes_every));
  NODE_CHECK(c->probes_every > 0, r, n, "every",
             "found every = %d; expected a row every N > 0 steps", c->probes_every);
  int count = 0;
  for (xmlNode *p = n->children; p; p = p->next) count += is_element(p, "probe");
  NODE_CHECK(count <= FE_MAX_PROBES, r, n, NULL, "%d <probe> elements; expected at most %d", count,
             FE_MAX_PROBES);
  if (count) FE_CALLOC(count, &c->probes);
  for (xmlNode *p = n->children; p; p = p->next)
    if (is_element(p, "probe")) FE_CALL(read_probe(r, p, &c->probes[c->n_probes++]));
  FE_CALL(read_probe_file(r, n));
  NODE_CHECK(c->n_probes > 0, r, n, NULL,
             "no probe; expected <probe name=\"...\" x=\"...\" y=\"...\"/> elements, or "
             "file=\"points.csv\" with a row name,x,y per probe");
  return check_probe_names(r);
}

const char *fe_case_probe_where(const struct fe_case *c, const struct fe_probe *p, char *buf,
                                size_t size)
{
  char shown[FE_QUOTE_SIZE];
  if (p->in_file)
    snprintf(buf, size, "%s:%d: probe '%s'", fe_path_shown(c->probes_file, shown, sizeof shown),
             p->line, p->name);
  else
    snprintf(buf, size, "%s:%d: <probe name=\"%s\">", fe_path_shown(c->path, shown, sizeof shown),
             p->line, p->name);
  return buf;
}

/* <fluxes boundaries="...">: the boundary groups whose fluxes the stat file has (resolved
 * against the mesh by app/budget.c); without boundaries, every boundary group. */
static int read_fluxes(struct reader *r, xmlNode *n)
{
  struct fe_case *c = r->c;
  if (!n) return FE_SUCCESS;
  c->fluxes = 1;
  c->fluxes_line = (int)xmlGetLineNo(n);
  if (!has_attr(n, "boundaries")) return FE_SUCCESS;
  return read_refs(r, n, "boundaries", NULL, &c->flux_refs, &c->n_flux_refs);
}

static int read_checkpoint(struct reader *r, xmlNode *n)
{
  if (!n) return FE_SUCCESS;
  FE_CALL(attr_int(r, n, "every", &r->c->checkpoint_every));
  NODE_CHECK(r->c->checkpoint_every > 0, r, n, "every", "every must be > 0 (a period in steps)");
  return FE_SUCCESS;
}

/* Parameters first: every expression may use them, wherever they are written. */
static int read_root(struct reader *r, xmlNode *root)
{
  xmlNode *n;
  FE_CALL(required_child(r, root, "name", &n));
  FE_CALL(read_name(r, n));
  FE_CALL(required_child(r, root, "mesh", &n));
  FE_CALL(read_mesh(r, n));
  FE_CALL(read_parameters(r, child(root, "parameters")));
  FE_CALL(required_child(r, root, "time", &n));
  FE_CALL(read_time(r, n));
  FE_CALL(read_velocity(r, child(root, "velocity")));
  FE_CALL(read_tracers(r, root));
  FE_CALL(read_scheme(r, child(root, "scheme")));
  FE_CALL(read_solver(r, child(root, "solver")));
  FE_CALL(read_assembly(r, child(root, "assembly")));
  FE_CALL(read_backend(r, child(root, "backend")));
  FE_CALL(read_output(r, child(root, "output")));
  FE_CALL(read_probes(r, child(root, "probes")));
  FE_CALL(read_fluxes(r, child(root, "fluxes")));
  return read_checkpoint(r, child(root, "checkpoint"));
}

static int case_create(const char *path, struct fe_case **out)
{
  struct fe_case *c;
  FE_CALLOC(1, &c);
  *out = c;
  c->theta = 0.5;
  c->splitting = FE_SPLIT_STRANG;
  c->advection = FE_ADVECTION_RK4;
  c->mass = FE_MASS_CONSISTENT;
  c->stabilisation = FE_STABILISATION_NONE;
  c->nu_bar = FE_NU_BAR_OPTIMAL;
  c->nu_scale = 0.5;
  c->loads = FE_LOADS_QUADRATURE;
  c->rtol = 1e-10;
  c->atol = 1e-14;
  c->max_iterations = 1000;
  c->preconditioner = FE_PC_JACOBI;
  FE_CALL(fe_strdup("auto", &c->backend));
  c->output_every = 1;
  c->probes_every = 1;
  FE_CALL(fe_strdup(".", &c->output_dir));
  FE_CALL(fe_strdup(path, &c->path));
  const char *slash = strrchr(path, '/');
  if (!slash) return fe_strdup(".", &c->dir);
  size_t n = slash == path ? 1 : (size_t)(slash - path);
  FE_CALL(fe_malloc(n + 1, &c->dir));
  memcpy(c->dir, path, n);
  c->dir[n] = '\0';
  return FE_SUCCESS;
}

int fe_case_read(const char *path, struct fe_case **out)
{
  xmlDoc *doc = NULL;
  struct fe_case *c = NULL;
  *out = NULL;
  char shown[FE_QUOTE_SIZE];
  FE_CALL(parse_file(path, fe_path_shown(path, shown, FE_QUOTE_SIZE), &doc));
  struct reader r = {fe_path_shown(path, shown, FE_QUOTE_SIZE), NULL};
  xmlNode *root = xmlDocGetRootElement(doc);
  int err = root ? check_root(&r, root)
                 : fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__, "%s: no root element", r.path);
  if (!err) err = check_required(&r, root);
  if (!err) err = validate(&r, doc);
  if (!err) err = case_create(path, &c);
  r.c = c;
  if (!err) err = read_root(&r, root);
  xmlFreeDoc(doc);
  if (err) {
    fe_case_destroy(c);
    return err;
  }
  *out = c;
  return FE_SUCCESS;
}

static void tracer_free(struct fe_tracer *tr)
{
  free(tr->name);
  fe_expr_destroy(tr->initial);
  fe_expr_destroy(tr->source);
  fe_expr_destroy(tr->exact);
  fe_expr_destroy(tr->absorption);
  for (int k = 0; k < 6; k++) fe_expr_destroy(tr->diffusivity[k]);
  for (int b = 0; b < tr->n_boundaries; b++) {
    for (int k = 0; k < tr->boundaries[b].n_refs; k++) free(tr->boundaries[b].refs[k]);
    free(tr->boundaries[b].refs);
    fe_expr_destroy(tr->boundaries[b].value);
  }
  free(tr->boundaries);
}

void fe_case_destroy(struct fe_case *c)
{
  if (!c) return;
  free(c->path);
  free(c->dir);
  free(c->name);
  free(c->mesh_file);
  for (int i = 0; i < c->params.n; i++) free(c->params.names[i]);
  free(c->params.names);
  free(c->params.values);
  for (int d = 0; d < 3; d++) fe_expr_destroy(c->velocity[d]);
  for (int k = 0; k < c->n_velocity_files; k++) free(c->velocity_files[k].path);
  free(c->velocity_files);
  free(c->velocity_field);
  free(c->velocity_series);
  for (int t = 0; t < c->n_tracers; t++) tracer_free(&c->tracers[t]);
  free(c->tracers);
  free(c->output_dir);
  fe_probes_free(c->probes, c->n_probes);
  free(c->probes_file);
  for (int k = 0; k < c->n_flux_refs; k++) free(c->flux_refs[k]);
  free(c->flux_refs);
  free(c->strategy);
  free(c->backend);
  free(c);
}

int fe_case_any_exact(const struct fe_case *c)
{
  for (int k = 0; k < c->n_tracers; k++)
    if (c->tracers[k].exact) return 1;
  return 0;
}

/* The same program: the same instructions and constants, bit for bit. */
static int same_expr(const struct fe_expr *a, const struct fe_expr *b)
{
  if (!a || !b) return a == b;
  const struct fe_program *p = fe_expr_program(a), *q = fe_expr_program(b);
  if (p->n != q->n || memcmp(p->op, q->op, (size_t)p->n)) return 0;
  for (int i = 0; i < p->n; i++)
    if (p->op[i] == FE_OP_CONST && memcmp(&p->value[i], &q->value[i], sizeof p->value[i])) return 0;
  return 1;
}

int fe_tracer_same_diffusivity(const struct fe_tracer *a, const struct fe_tracer *b)
{
  if (a->n_diffusivity != b->n_diffusivity) return 0;
  for (int k = 0; k < a->n_diffusivity; k++)
    if (!same_expr(a->diffusivity[k], b->diffusivity[k])) return 0;
  return 1;
}

int fe_tracer_same_absorption(const struct fe_tracer *a, const struct fe_tracer *b)
{
  return same_expr(a->absorption, b->absorption);
}

const char *fe_stabilisation_name(enum fe_stabilisation s) { return stabilisation_words[s]; }

int fe_stabilisation_parse(const char *word, enum fe_stabilisation *s)
{
  const int k = word_index(word, stabilisation_words, COUNT(stabilisation_words));
  FE_CHECK(k >= 0, FE_ERR_USAGE, "unknown stabilisation '%s'; expected one of %s, %s, %s", word,
           stabilisation_words[0], stabilisation_words[1], stabilisation_words[2]);
  *s = (enum fe_stabilisation)k;
  return FE_SUCCESS;
}

const char *fe_nu_bar_name(enum fe_nu_bar n) { return nu_bar_words[n]; }

const char *fe_loads_name(enum fe_loads l) { return loads_words[l]; }

int fe_loads_parse(const char *word, enum fe_loads *l)
{
  const int k = word_index(word, loads_words, COUNT(loads_words));
  FE_CHECK(k >= 0, FE_ERR_USAGE, "unknown loads '%s'; expected one of %s, %s", word, loads_words[0],
           loads_words[1]);
  *l = (enum fe_loads)k;
  return FE_SUCCESS;
}

int fe_case_check_scheme(const struct fe_case *c)
{
  if (c->stabilisation != FE_STABILISATION_FCT || c->advection != FE_ADVECTION_THETA)
    return FE_SUCCESS;
  char shown[FE_QUOTE_SIZE];
  FE_RAISE(FE_ERR_INPUT,
           "%s:%d: <scheme>: stabilisation 'fct' with advection 'theta': flux correction limits "
           "explicit steps; expected advection 'rk4' with fct, or stabilisation 'supg' or 'none' "
           "with advection 'theta'",
           fe_path_shown(c->path, shown, sizeof shown), c->scheme_line);
}
