/* Expressions of the case file, compiled once and evaluated at nodes, cell
 * centroids and facet nodes.  Variables: x y z t and the case parameters;
 * constants pi and e; operators + - * / ^ < <= > >= == != and or; functions
 * sin cos tan asin acos atan sinh cosh tanh exp log sqrt abs floor erf, min
 * max atan2 of two arguments and if(c, a, b) (docs/case-format.md). */
#ifndef FE_EXPR_H
#define FE_EXPR_H

struct fe_expr;
struct fe_program;

struct fe_params {
  int n;
  char **names;
  double *values;
};

/* Compile `text` (from `file`, line `line`, element `element`, for messages)
 * with fe_program_compile.  Every fault it finds (syntax, unknown names,
 * unbalanced parentheses, nesting or length beyond the machine's limits) is
 * FE_ERR_INPUT, reported with its column and the text cut by fe_quote. */
int fe_expr_create(const char *text, const struct fe_params *params, const char *file,
                   int line, const char *element, struct fe_expr **expr);
void fe_expr_destroy(struct fe_expr *expr);

/* A parameter's value: `text` compiled by fe_program_compile_constant with
 * the first `usable` parameters (those defined above it), evaluated once.  A
 * fault, or a value that is not finite, is FE_ERR_INPUT reported as
 * fe_expr_create reports a fault, with `element` ("param name=\"w\"") in <>. */
int fe_expr_constant(const char *text, const struct fe_params *params, int usable, const char *file,
                     int line, const char *element, double *value);

/* Value at point xyz (3 entries; unused ones 0) and time t, by the compiled
 * program (io/program.h): thread-safe. */
double fe_expr_eval(const struct fe_expr *expr, const double xyz[3], double t);

/* The bytecode the backends evaluate. */
const struct fe_program *fe_expr_program(const struct fe_expr *expr);

int fe_expr_depends_on_t(const struct fe_expr *expr);
int fe_expr_depends_on_space(const struct fe_expr *expr);
/* 1 when it is the constant 0 (independent of x y z t). */
int fe_expr_is_zero(const struct fe_expr *expr);
const char *fe_expr_text(const struct fe_expr *expr);
/* Where it was written, for messages: "case.xml:12 (<initial>)". */
const char *fe_expr_where(const struct fe_expr *expr);

/* 1 when `name` cannot name a parameter: x y z t, pi, e, and, or or a function. */
int fe_expr_name_reserved(const char *name);

#endif
