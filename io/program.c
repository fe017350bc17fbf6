/* Translation of expression text into fe_program bytecode: recursive descent
 * with libmatheval's precedences (bison: %left + -; %left * /; %left NEG;
 * %left ^), constants folded. */
#include "io/program.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/expr.h"

struct parser {
  const char *s;
  const struct fe_params *params;
  struct fe_program *p;
  int depth, max_depth;
  const char *error;
};

static void skip(struct parser *ps)
{
  while (isspace((unsigned char)*ps->s)) ps->s++;
}

static void emit(struct parser *ps, int op, double value)
{
  struct fe_program *p = ps->p;
  if (p->n >= FE_PROGRAM_MAX) {
    ps->error = "the expression is too long";
    return;
  }
  p->op[p->n] = (unsigned char)op;
  p->value[p->n] = value;
  p->n++;
  if (op <= FE_OP_T) ps->depth++;
  else if (op <= FE_OP_POW) ps->depth--;
  if (ps->depth > ps->max_depth) ps->max_depth = ps->depth;
  /* fold operations on constants */
  const int n = p->n;
  if (op >= FE_OP_NEG && n >= 2 && p->op[n - 2] == FE_OP_CONST) {
    struct fe_program one = {2, {FE_OP_CONST, (unsigned char)op}, {p->value[n - 2], 0}};
    p->value[n - 2] = fe_program_eval(&one, 0, 0, 0, 0);
    p->n--;
  } else if (op >= FE_OP_ADD && op <= FE_OP_POW && n >= 3 && p->op[n - 2] == FE_OP_CONST &&
             p->op[n - 3] == FE_OP_CONST) {
    struct fe_program two = {3, {FE_OP_CONST, FE_OP_CONST, (unsigned char)op}, {p->value[n - 3], p->value[n - 2], 0}};
    p->value[n - 3] = fe_program_eval(&two, 0, 0, 0, 0);
    p->n -= 2;
  }
}

static void expression(struct parser *ps);
static void unary(struct parser *ps);

static const char *const function_names[] = {"sin",  "cos",  "tan", "asin", "acos", "atan", "sinh",
                                             "cosh", "tanh", "exp", "log",  "sqrt", "abs"};

static void name(struct parser *ps)
{
  const char *b = ps->s;
  while (isalnum((unsigned char)*ps->s) || *ps->s == '_') ps->s++;
  const size_t len = (size_t)(ps->s - b);
  skip(ps);
  if (*ps->s == '(') {
    for (int f = 0; f < 13; f++)
      if (strlen(function_names[f]) == len && !strncmp(b, function_names[f], len)) {
        ps->s++;
        expression(ps);
        skip(ps);
        if (*ps->s != ')') ps->error = "missing )";
        ps->s++;
        emit(ps, FE_OP_SIN + f, 0);
        return;
      }
    ps->error = "unknown function";
    return;
  }
  static const char *const vars = "xyzt";
  if (len == 1 && strchr(vars, *b)) {
    emit(ps, FE_OP_X + (int)(strchr(vars, *b) - vars), 0);
    return;
  }
  if (len == 2 && !strncmp(b, "pi", 2)) {
    emit(ps, FE_OP_CONST, 3.14159265358979323846);
    return;
  }
  if (len == 1 && *b == 'e') {
    emit(ps, FE_OP_CONST, 2.71828182845904523536);
    return;
  }
  for (int i = 0; ps->params && i < ps->params->n; i++)
    if (strlen(ps->params->names[i]) == len && !strncmp(b, ps->params->names[i], len)) {
      emit(ps, FE_OP_CONST, ps->params->values[i]);
      return;
    }
  ps->error = "unknown name";
}

static void primary(struct parser *ps)
{
  skip(ps);
  const char c = *ps->s;
  if (c == '(') {
    ps->s++;
    expression(ps);
    skip(ps);
    if (*ps->s != ')') ps->error = "missing )";
    ps->s++;
  } else if (isdigit((unsigned char)c) || c == '.') {
    char *end;
    double v = strtod(ps->s, &end);
    ps->s = end;
    emit(ps, FE_OP_CONST, v);
  } else if (isalpha((unsigned char)c) || c == '_') {
    name(ps);
  } else {
    ps->error = "unexpected character";
  }
}

/* power: primary ('^' operand)*, left to right; an operand may carry unary minus */
static void power(struct parser *ps)
{
  primary(ps);
  for (skip(ps); !ps->error && *ps->s == '^'; skip(ps)) {
    ps->s++;
    skip(ps);
    if (*ps->s == '-')
      unary(ps);
    else
      primary(ps);
    emit(ps, FE_OP_POW, 0);
  }
}

static void unary(struct parser *ps)
{
  skip(ps);
  if (*ps->s == '-') {
    ps->s++;
    unary(ps);
    emit(ps, FE_OP_NEG, 0);
    return;
  }
  power(ps);
}

static void term(struct parser *ps)
{
  unary(ps);
  for (skip(ps); !ps->error && (*ps->s == '*' || *ps->s == '/'); skip(ps)) {
    const int op = *ps->s++ == '*' ? FE_OP_MUL : FE_OP_DIV;
    unary(ps);
    emit(ps, op, 0);
  }
}

static void expression(struct parser *ps)
{
  term(ps);
  for (skip(ps); !ps->error && (*ps->s == '+' || *ps->s == '-'); skip(ps)) {
    const int op = *ps->s++ == '+' ? FE_OP_ADD : FE_OP_SUB;
    term(ps);
    emit(ps, op, 0);
  }
}

int fe_program_compile(const char *text, const struct fe_params *params, struct fe_program *p,
                       char *why, unsigned long why_size)
{
  memset(p, 0, sizeof *p);
  struct parser ps = {text, params, p, 0, 0, NULL};
  expression(&ps);
  skip(&ps);
  if (!ps.error && *ps.s) ps.error = "unexpected text after the expression";
  if (!ps.error && ps.max_depth > FE_PROGRAM_STACK) ps.error = "the expression nests too deeply";
  if (ps.error) {
    snprintf(why, why_size, "%s", ps.error);
    return -1;
  }
  return 0;
}

void fe_program_constant(double value, struct fe_program *p)
{
  memset(p, 0, sizeof *p);
  p->n = 1;
  p->op[0] = FE_OP_CONST;
  p->value[0] = value;
}
