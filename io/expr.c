#include "io/expr.h"

#include "core/error.h"
#include "io/program.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fe_expr {
  char *text;  /* as compiled: trimmed, line breaks turned into spaces */
  char *where; /* "case.xml:12 (<initial>)" */
  int depends_t, depends_space;
  struct fe_program program; /* parsed and checked by fe_program_compile; evaluated everywhere */
};

#define OPERATORS_FUNCTIONS                                                                        \
  "the operators + - * / ^ < <= > >= == != and or, and the functions sin cos tan asin acos atan "  \
  "sinh cosh tanh exp log sqrt abs floor erf min max atan2 if"
#define EXPECTED "the variables x y z t, the parameters%s, the constants pi e, " OPERATORS_FUNCTIONS
#define EXPECTED_CONSTANT                                                                          \
  "numbers, the constants pi e, the parameters defined above it%s, " OPERATORS_FUNCTIONS

int fe_expr_name_reserved(const char *name) { return fe_program_name_builtin(name); }

/* " (k L)", the first n parameters, for the "expected" part of messages;
 * " (none defined)" without parameters. */
static void param_list(const struct fe_params *p, int n, char *buf, size_t size)
{
  buf[0] = '\0';
  if (!p || n == 0) {
    snprintf(buf, size, " (none defined)");
    return;
  }
  size_t used = (size_t)snprintf(buf, size, " (");
  for (int i = 0; i < n && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? " " : "", p->names[i]);
  if (used < size) snprintf(buf + used, size - used, ")");
}

struct context {
  const char *file, *element;
  int line;
  const struct fe_params *params;
  int usable;   /* parameters usable: the first `usable` */
  int constant; /* a parameter's value */
};

/* "<what> at column C of expression '<text>': <detail>; expected <expected>",
 * the text cut by fe_quote; "in expression" where the fault is the whole text. */
static int expr_error(const struct context *cx, const char *text, const struct fe_program_error *pe)
{
  char plist[256], names[640], quoted[FE_QUOTE_SIZE], at[48];
  param_list(cx->params, cx->usable, plist, sizeof plist);
  snprintf(names, sizeof names, cx->constant ? EXPECTED_CONSTANT : EXPECTED, plist);
  const char *expected = pe->expected[0] ? pe->expected : names;
  if (pe->fault == FE_PROGRAM_EMPTY)
    return fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                          "%s:%d: <%s>: empty expression; expected %s", cx->file, cx->line,
                          cx->element, expected);
  if (pe->column > 0)
    snprintf(at, sizeof at, " at column %d of", pe->column);
  else
    snprintf(at, sizeof at, " in");
  return fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                        "%s:%d: <%s>: %s%s expression %s%s%s; expected %s", cx->file, cx->line,
                        cx->element, pe->what, at,
                        fe_quote(text, FE_QUOTE_MAX, quoted, sizeof quoted),
                        pe->detail[0] ? ": " : "", pe->detail, expected);
}

/* Trimmed copy with tabs and line breaks as spaces: one line for messages,
 * columns counted from its first character. */
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

/* Which of x y z t the program reads (one is folded away only in the branch
 * an if with a constant condition does not take). */
static void note_dependencies(struct fe_expr *e)
{
  for (int i = 0; i < e->program.n; i++) {
    const int op = e->program.op[i];
    e->depends_t |= op == FE_OP_T;
    e->depends_space |= op >= FE_OP_X && op <= FE_OP_Z;
  }
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
  struct fe_program_error pe;
  const int err = fe_program_compile(e->text, cx->params, &e->program, &pe);
  if (err == FE_ERR_INPUT) return expr_error(cx, e->text, &pe);
  FE_CALL(err);
  note_dependencies(e);
  return FE_SUCCESS;
}

int fe_expr_create(const char *text, const struct fe_params *params, const char *file, int line,
                   const char *element, struct fe_expr **expr)
{
  struct context cx = {.file = file ? file : "expression",
                       .element = element ? element : "expression",
                       .line = line,
                       .params = params,
                       .usable = params ? params->n : 0};
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

int fe_expr_constant(const char *text, const struct fe_params *params, int usable, const char *file,
                     int line, const char *element, double *value)
{
  struct context cx = {file, element, line, params, usable, .constant = 1};
  char *trimmed;
  FE_CALL(normalize(text ? text : "", &trimmed));
  struct fe_program_error pe;
  int err = fe_program_compile_constant(trimmed, params, usable, value, &pe);
  if (err == FE_ERR_INPUT) err = expr_error(&cx, trimmed, &pe);
  if (!err && !isfinite(*value)) {
    char quoted[FE_QUOTE_SIZE];
    err = fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                         "%s:%d: <%s>: expression %s is %s; expected a finite value", file, line,
                         element, fe_quote(trimmed, FE_QUOTE_MAX, quoted, sizeof quoted),
                         isnan(*value) ? "nan"
                         : *value > 0  ? "inf"
                                       : "-inf");
  }
  free(trimmed);
  return err;
}

void fe_expr_destroy(struct fe_expr *e)
{
  if (!e) return;
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

int fe_expr_is_zero(const struct fe_expr *e)
{
  const double p[3] = {0, 0, 0};
  return !e->depends_t && !e->depends_space && fe_expr_eval(e, p, 0) == 0;
}
const char *fe_expr_text(const struct fe_expr *e) { return e->text; }
const char *fe_expr_where(const struct fe_expr *e) { return e->where; }
