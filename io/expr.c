#include "io/expr.h"

#include "core/error.h"
#include "io/program.h"

#include <ctype.h>
#include <matheval.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fe_expr {
  void *ev;       /* libmatheval's parse: the syntax and names are checked by it */
  char *text;     /* as compiled: trimmed, line breaks turned into spaces */
  char *where;    /* "case.xml:12 (<initial>)" */
  int depends_t, depends_space;
  struct fe_program program; /* what is evaluated, on the host and on the GPU */
};

static const char *const variables[] = {"x", "y", "z", "t"};
static const char *const constants[] = {"pi", "e"};
static const char *const functions[] = {"sin",  "cos",  "tan", "asin", "acos", "atan", "sinh",
                                        "cosh", "tanh", "exp", "log",  "sqrt", "abs"};
/* libmatheval's names beyond the contract: a parameter so named would silently
 * read libmatheval's constant instead of its value. */
static const char *const matheval_names[] = {
    "log2e", "log10e", "ln2",   "ln10",  "pi_2",  "pi_4", "sqrt2", "sqrt1_2",  "cot",
    "sec",   "csc",    "acot",  "asec",  "acsc",  "coth", "sech",  "csch",     "asinh",
    "acosh", "atanh",  "acoth", "asech", "acsch", "step", "delta", "nandelta", "erf"};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define EXPECTED                                                                                   \
  "the variables x y z t, the parameters%s, the constants pi e, the operators + - * / ^ and the "  \
  "functions sin cos tan asin acos atan sinh cosh tanh exp log sqrt abs"

static int find(const char *name, size_t len, const char *const *list, int n)
{
  for (int i = 0; i < n; i++)
    if (strlen(list[i]) == len && !strncmp(list[i], name, len)) return i;
  return -1;
}

static int find_param(const struct fe_params *p, const char *name, size_t len)
{
  return p ? find(name, len, (const char *const *)p->names, p->n) : -1;
}

int fe_expr_name_reserved(const char *name)
{
  size_t len = strlen(name);
  return find(name, len, variables, COUNT(variables)) >= 0 ||
         find(name, len, constants, COUNT(constants)) >= 0 ||
         find(name, len, functions, COUNT(functions)) >= 0 ||
         find(name, len, matheval_names, COUNT(matheval_names)) >= 0;
}

/* " (k L)" for the "expected" part of messages; "" without parameters. */
static void param_list(const struct fe_params *p, char *buf, size_t size)
{
  buf[0] = '\0';
  if (!p || p->n == 0) {
    snprintf(buf, size, " (none defined)");
    return;
  }
  size_t used = (size_t)snprintf(buf, size, " (");
  for (int i = 0; i < p->n && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? " " : "", p->names[i]);
  if (used < size) snprintf(buf + used, size - used, ")");
}

struct context {
  const char *file, *element;
  int line;
  const struct fe_params *params;
};

static int expr_error(const struct context *cx, const char *text, const char *what)
{
  char plist[256];
  param_list(cx->params, plist, sizeof plist);
  return fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                        "%s:%d: <%s>: %s '%s'; expected " EXPECTED, cx->file, cx->line, cx->element,
                        what, text, plist);
}

/* Trimmed copy with tabs and line breaks as spaces (libmatheval reads one line). */
static int normalize(const char *text, char **out)
{
  while (isspace((unsigned char)*text)) text++;
  size_t n = strlen(text);
  while (n > 0 && isspace((unsigned char)text[n - 1])) n--;
  FE_CALL(fe_malloc(n + 1, out));
  for (size_t i = 0; i < n; i++) (*out)[i] = isspace((unsigned char)text[i]) ? ' ' : text[i];
  (*out)[n] = '\0';
  return FE_SUCCESS;
}

/* libmatheval's scanner echoes characters it does not know to stdout and skips
 * them, so they are refused before it sees them. */
static int check_characters(const struct context *cx, const char *text)
{
  for (const char *s = text; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (isalnum(ch) || strchr("_. +-*/^()", ch)) continue;
    char what[64];
    if (isprint(ch))
      snprintf(what, sizeof what, "unexpected character '%c' in expression", ch);
    else
      snprintf(what, sizeof what, "unexpected byte 0x%02x in expression", ch);
    return expr_error(cx, text, what);
  }
  return FE_SUCCESS;
}

static size_t skip_number(const char *s)
{
  size_t i = 0;
  while (isdigit((unsigned char)s[i]) || s[i] == '.') i++;
  if (s[i] == 'e' || s[i] == 'E') {
    size_t j = i + 1;
    if (s[j] == '+' || s[j] == '-') j++;
    if (isdigit((unsigned char)s[j])) {
      while (isdigit((unsigned char)s[j])) j++;
      i = j;
    }
  }
  return i;
}

static int is_name_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* The contract is narrower than libmatheval: every name in the text must be a
 * variable, a parameter, pi, e, or one of our functions followed by '('. */
static int check_names(const struct context *cx, const char *text)
{
  const char *s = text;
  while (*s) {
    if (!is_name_char(*s)) {
      s++;
      continue;
    }
    const char *start = s;
    if (isdigit((unsigned char)*s) || *s == '.') s += skip_number(s);
    if (s > start && !is_name_char(*s)) continue;
    while (is_name_char(*s)) s++;
    size_t len = (size_t)(s - start);
    const char *after = s;
    while (*after == ' ') after++;
    char what[160];
    if (*after == '(') {
      if (find(start, len, functions, COUNT(functions)) >= 0) continue;
      snprintf(what, sizeof what, "unknown function '%.*s' in expression", (int)len, start);
      return expr_error(cx, text, what);
    }
    if (find(start, len, variables, COUNT(variables)) >= 0 ||
        find(start, len, constants, COUNT(constants)) >= 0 ||
        find_param(cx->params, start, len) >= 0)
      continue;
    snprintf(what, sizeof what, "unknown variable '%.*s' in expression", (int)len, start);
    return expr_error(cx, text, what);
  }
  return FE_SUCCESS;
}

/* Every variable libmatheval found is x y z t or a parameter; note which
 * of x y z t the expression reads. */
static int bind_variables(struct fe_expr *e, const struct context *cx)
{
  char **names;
  int count;
  evaluator_get_variables(e->ev, &names, &count);
  for (int i = 0; i < count; i++) {
    size_t len = strlen(names[i]);
    int v = find(names[i], len, variables, COUNT(variables));
    if (v < 0 && find_param(cx->params, names[i], len) < 0)
      return expr_error(cx, e->text, "unknown variable in expression");
    e->depends_t |= v == 3;
    e->depends_space |= v >= 0 && v < 3;
  }
  return FE_SUCCESS;
}

static int set_where(struct fe_expr *e, const struct context *cx)
{
  int n = snprintf(NULL, 0, "%s:%d (<%s>)", cx->file, cx->line, cx->element);
  FE_CALL(fe_malloc((size_t)n + 1, &e->where));
  snprintf(e->where, (size_t)n + 1, "%s:%d (<%s>)", cx->file, cx->line, cx->element);
  return FE_SUCCESS;
}

static int expr_init(struct fe_expr *e, const char *text, const struct context *cx)
{
  FE_CALL(set_where(e, cx));
  FE_CALL(normalize(text, &e->text));
  if (!e->text[0]) return expr_error(cx, e->text, "empty expression");
  FE_CALL(check_characters(cx, e->text));
  e->ev = evaluator_create(e->text);
  if (!e->ev) return expr_error(cx, e->text, "cannot parse expression");
  FE_CALL(check_names(cx, e->text));
  FE_CALL(bind_variables(e, cx));
  char why[128];
  if (fe_program_compile(e->text, cx->params, &e->program, why, sizeof why))
    return expr_error(cx, e->text, why);
  return FE_SUCCESS;
}

int fe_expr_create(const char *text, const struct fe_params *params, const char *file, int line,
                   const char *element, struct fe_expr **expr)
{
  struct context cx = {file ? file : "expression", element ? element : "expression", line, params};
  struct fe_expr *e;
  *expr = NULL;
  FE_CALLOC(1, &e);
  int err = expr_init(e, text ? text : "", &cx);
  if (err) {
    fe_expr_destroy(e);
    return err;
  }
  *expr = e;
  return FE_SUCCESS;
}

void fe_expr_destroy(struct fe_expr *e)
{
  if (!e) return;
  if (e->ev) evaluator_destroy(e->ev);
  free(e->text);
  free(e->where);
  free(e);
}

double fe_expr_eval(const struct fe_expr *e, const double xyz[3], double t)
{
  return fe_program_eval(&e->program, xyz[0], xyz[1], xyz[2], t);
}

const struct fe_program *fe_expr_program(const struct fe_expr *e) { return &e->program; }

int fe_expr_depends_on_t(const struct fe_expr *e) { return e->depends_t; }
int fe_expr_depends_on_space(const struct fe_expr *e) { return e->depends_space; }
const char *fe_expr_text(const struct fe_expr *e) { return e->text; }
const char *fe_expr_where(const struct fe_expr *e) { return e->where; }
