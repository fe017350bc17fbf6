/* The expression grammar of docs/case-format.md, parsed once into fe_program
 * bytecode; every check of an expression's text is made here.
 *
 *   expression  = conjunction { "or" conjunction }
 *   conjunction = comparison { "and" comparison }
 *   comparison  = sum [ ("<" | "<=" | ">" | ">=" | "==" | "!=") sum ]
 *   sum         = term { ("+" | "-") term }
 *   term        = unary { ("*" | "/") unary }
 *   unary       = "-" unary | power
 *   power       = primary { "^" ( "-" unary | primary ) }
 *   primary     = number | variable | parameter | constant
 *               | function "(" expression { "," expression } ")" | "(" expression ")"
 *
 * so a unary minus binds below ^ (-2^2 is -4), ^ groups to the left (2^3^2
 * is 64) and comparisons do not chain (0 < x < 1 is refused).  Each loop of
 * the grammar is a loop here; the parser recurses only at a "(" (a group or a
 * function's arguments) and a unary "-", and each of those counts against
 * FE_PROGRAM_NESTING, so no text can exhaust the C stack.  Constants are
 * folded as they are emitted. */
#include "io/program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/expr.h"

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define TOKEN_QUOTE_MAX 32 /* a name or number quoted in a message */
#define TOKEN_QUOTE_SIZE (TOKEN_QUOTE_MAX + 48)

static const char *const variables[] = {"x", "y", "z", "t"}; /* FE_OP_X + i */
static const char *const constants[] = {"pi", "e"};
static const double constant_values[] = {3.14159265358979323846, 2.71828182845904523536};
static const char *const words[] = {"and", "or"};
static const char *const functions[] = {"sin",  "cos",  "tan", "asin",  "acos", "atan", "sinh",
                                        "cosh", "tanh", "exp", "log",   "sqrt", "abs",  "floor",
                                        "erf",  "min",  "max", "atan2", "if"};
static const struct {
  unsigned char op, arguments;
  const char *usage; /* for a call with another number of arguments */
} function_ops[] = {{FE_OP_SIN, 1, "sin(a)"},
                    {FE_OP_COS, 1, "cos(a)"},
                    {FE_OP_TAN, 1, "tan(a)"},
                    {FE_OP_ASIN, 1, "asin(a)"},
                    {FE_OP_ACOS, 1, "acos(a)"},
                    {FE_OP_ATAN, 1, "atan(a)"},
                    {FE_OP_SINH, 1, "sinh(a)"},
                    {FE_OP_COSH, 1, "cosh(a)"},
                    {FE_OP_TANH, 1, "tanh(a)"},
                    {FE_OP_EXP, 1, "exp(a)"},
                    {FE_OP_LOG, 1, "log(a)"},
                    {FE_OP_SQRT, 1, "sqrt(a)"},
                    {FE_OP_ABS, 1, "abs(a)"},
                    {FE_OP_FLOOR, 1, "floor(a)"},
                    {FE_OP_ERF, 1, "erf(a)"},
                    {FE_OP_MIN, 2, "min(a, b)"},
                    {FE_OP_MAX, 2, "max(a, b)"},
                    {FE_OP_ATAN2, 2, "atan2(y, x)"},
                    {FE_OP_SELECT, 3, "if(condition, a, b)"}}; /* functions[i] */
#define MAX_ARGUMENTS 3

#define EXPECT_OPERAND "a number, a name, '-' or '('"

enum token_kind {
  TOK_START, /* before the first token */
  TOK_END,
  TOK_NUMBER,
  TOK_NAME,
  TOK_LPAREN,
  TOK_RPAREN,
  TOK_PLUS,
  TOK_MINUS,
  TOK_STAR,
  TOK_SLASH,
  TOK_CARET,
  TOK_COMMA,
  TOK_LT,
  TOK_LE,
  TOK_GT,
  TOK_GE,
  TOK_EQ,
  TOK_NE,
  TOK_AND,
  TOK_OR
};

struct token {
  enum token_kind kind;
  int at, len;  /* byte offset in the text, length */
  double value; /* TOK_NUMBER */
};

struct compiler {
  const char *text;
  char *scratch; /* a copy of the text, where a token is cut out for strtod and messages */
  const struct fe_params *params;
  int usable;   /* the first `usable` parameters may be used; the others are defined later */
  int constant; /* a parameter's value: no x y z t */
  struct token tok, prev; /* the current token and the one before it */
  int nesting;            /* "(" and unary "-" open around the current token */
  int open;               /* "(" among them: may a ')' follow an operand? */
  int comma;              /* the innermost "(" is a call that takes another argument */
  /* the program as emitted: at most one instruction per token, so the text's
   * length bounds it; it is checked against FE_PROGRAM_MAX at the end */
  unsigned char *op;
  double *value;
  int *at; /* byte offset of the token each instruction comes from */
  int n;
  struct fe_program_error *err;
};

static int find(const char *name, int len, const char *const *list, int n)
{
  for (int i = 0; i < n; i++)
    if ((int)strlen(list[i]) == len && !strncmp(list[i], name, (size_t)len)) return i;
  return -1;
}

static int find_param(const struct fe_params *p, const char *name, int len)
{
  return p ? find(name, len, (const char *const *)p->names, p->n) : -1;
}

int fe_program_name_builtin(const char *name)
{
  const int len = (int)strlen(name);
  return find(name, len, variables, COUNT(variables)) >= 0 ||
         find(name, len, constants, COUNT(constants)) >= 0 ||
         find(name, len, words, COUNT(words)) >= 0 ||
         find(name, len, functions, COUNT(functions)) >= 0;
}

/* Locale-independent classes: names and numbers are ASCII. */
static int is_space(char ch) { return ch == ' ' || (ch >= '\t' && ch <= '\r'); }
static int is_digit(char ch) { return ch >= '0' && ch <= '9'; }
static int is_name_start(char ch)
{
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}
static int is_name_char(char ch) { return is_name_start(ch) || is_digit(ch); }
static int is_continuation(unsigned char ch) { return (ch & 0xC0) == 0x80; }

static int fail(struct compiler *c, enum fe_program_fault fault, int at, const char *what,
                const char *detail, const char *expected)
{
  struct fe_program_error *e = c->err;
  e->fault = fault;
  /* every byte before a fault is ASCII (any other is a fault itself), so
   * bytes count characters; at -1 is the whole text, column 0 */
  e->column = at + 1;
  snprintf(e->what, sizeof e->what, "%s", what);
  snprintf(e->detail, sizeof e->detail, "%s", detail);
  snprintf(e->expected, sizeof e->expected, "%s", expected);
  return FE_ERR_INPUT;
}

/* 'sin', 'x + x + ... + x' (400000 characters): a token quoted for a message. */
static const char *quote(const struct compiler *c, const struct token *t, char *buf, size_t size)
{
  char *s = c->scratch + t->at, saved = s[t->len];
  s[t->len] = '\0';
  fe_quote(s, TOKEN_QUOTE_MAX, buf, size);
  s[t->len] = saved;
  return buf;
}

/* ---- tokens ---- */

static int number_length(const char *s)
{
  int i = 0;
  while (is_digit(s[i])) i++;
  if (s[i] == '.') {
    i++;
    while (is_digit(s[i])) i++;
  }
  if (s[i] == 'e' || s[i] == 'E') {
    int j = i + 1;
    if (s[j] == '+' || s[j] == '-') j++;
    if (is_digit(s[j])) {
      while (is_digit(s[j])) j++;
      i = j;
    }
  }
  return i;
}

static int read_number(struct compiler *c, struct token *t)
{
  t->kind = TOK_NUMBER;
  t->len = number_length(c->text + t->at);
  char *s = c->scratch + t->at, saved = s[t->len], *end;
  s[t->len] = '\0';
  t->value = strtod(s, &end);
  const int whole = end == s + t->len;
  s[t->len] = saved;
  char q[TOKEN_QUOTE_SIZE], detail[160];
  if (!whole) {
    snprintf(detail, sizeof detail, "the C library could not read %s", quote(c, t, q, sizeof q));
    return fail(c, FE_PROGRAM_NUMBER, t->at, "unreadable number", detail, "a decimal number");
  }
  if (!isfinite(t->value)) {
    snprintf(detail, sizeof detail, "%s is beyond the largest double (1.8e308)",
             quote(c, t, q, sizeof q));
    return fail(c, FE_PROGRAM_NUMBER, t->at, "number out of range", detail, "a finite number");
  }
  return FE_SUCCESS;
}

/* Bytes of the UTF-8 character at s when it is one of several bytes, else 0. */
static int utf8_length(const unsigned char *s)
{
  const int n = s[0] >= 0xF5 ? 0 : s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
  for (int i = 1; i < n; i++)
    if (!is_continuation(s[i])) return 0;
  return n;
}

static int unexpected_character(struct compiler *c, int at)
{
  const unsigned char *s = (const unsigned char *)c->text + at;
  const int n = utf8_length(s);
  char what[64];
  if (*s >= 0x20 && *s < 0x7F)
    snprintf(what, sizeof what, "unexpected character '%c'", *s);
  else if (n > 1)
    snprintf(what, sizeof what, "unexpected character '%.*s'", n, (const char *)s);
  else
    snprintf(what, sizeof what, "unexpected byte 0x%02x", *s);
  return fail(c, FE_PROGRAM_CHARACTER, at, what, "", "");
}

/* "<=" ">=" "==" "!=": the kind, or TOK_END. */
static enum token_kind pair_kind(const char *s)
{
  static const char *const pairs[] = {"<=", ">=", "==", "!="};
  static const enum token_kind kinds[] = {TOK_LE, TOK_GE, TOK_EQ, TOK_NE};
  for (int i = 0; i < COUNT(pairs); i++)
    if (s[0] == pairs[i][0] && s[1] == pairs[i][1]) return kinds[i];
  return TOK_END;
}

/* The next token into c->tok; the current one becomes c->prev. */
static int advance(struct compiler *c)
{
  static const char singles[] = "()+-*/^,<>";
  static const enum token_kind single_kinds[] = {TOK_LPAREN, TOK_RPAREN, TOK_PLUS,  TOK_MINUS,
                                                 TOK_STAR,   TOK_SLASH,  TOK_CARET, TOK_COMMA,
                                                 TOK_LT,     TOK_GT};
  const char *s = c->text;
  struct token t = {TOK_END, c->tok.at + c->tok.len, 0, 0};
  while (is_space(s[t.at])) t.at++;
  const char ch = s[t.at];
  const char *single = ch ? strchr(singles, ch) : NULL;
  if (!ch) {
    t.kind = TOK_END;
  } else if (is_digit(ch) || (ch == '.' && is_digit(s[t.at + 1]))) {
    FE_CALL(read_number(c, &t));
  } else if (is_name_start(ch)) {
    while (is_name_char(s[t.at + t.len])) t.len++;
    const int w = find(s + t.at, t.len, words, COUNT(words));
    t.kind = w == 0 ? TOK_AND : w == 1 ? TOK_OR : TOK_NAME;
  } else if (pair_kind(s + t.at) != TOK_END) {
    t.kind = pair_kind(s + t.at);
    t.len = 2;
  } else if (single) {
    t.kind = single_kinds[single - singles];
    t.len = 1;
  } else if (ch == '=') {
    return fail(c, FE_PROGRAM_CHARACTER, t.at, "unexpected character '='", "",
                "'==' to compare two values");
  } else {
    return unexpected_character(c, t.at);
  }
  c->prev = c->tok;
  c->tok = t;
  return FE_SUCCESS;
}

/* ---- messages about tokens ---- */

static const char *name_kind(const struct compiler *c, const struct token *t)
{
  const char *s = c->text + t->at;
  if (find(s, t->len, variables, COUNT(variables)) >= 0) return "the variable";
  if (find(s, t->len, constants, COUNT(constants)) >= 0) return "the constant";
  if (find(s, t->len, functions, COUNT(functions)) >= 0) return "the function";
  return "the parameter";
}

/* "'x'", "the end of the expression" */
static const char *describe_found(const struct compiler *c, char *buf, size_t size)
{
  if (c->tok.kind == TOK_END) return "the end of the expression";
  return quote(c, &c->tok, buf, size);
}

/* "after the number '2'", "after '+'", "at the start of the expression" */
static void describe_before(const struct compiler *c, char *buf, size_t size)
{
  char q[TOKEN_QUOTE_SIZE];
  const struct token *p = &c->prev;
  if (p->kind == TOK_START)
    snprintf(buf, size, "at the start of the expression");
  else if (p->kind == TOK_NUMBER)
    snprintf(buf, size, "after the number %s", quote(c, p, q, sizeof q));
  else if (p->kind == TOK_NAME)
    snprintf(buf, size, "after %s %s", name_kind(c, p), quote(c, p, q, sizeof q));
  else
    snprintf(buf, size, "after %s", quote(c, p, q, sizeof q));
}

/* The current token cannot stand after the previous one. */
static int syntax_error(struct compiler *c, const char *expected)
{
  char found[TOKEN_QUOTE_SIZE], before[TOKEN_QUOTE_SIZE + 32], detail[256];
  const char *f = describe_found(c, found, sizeof found);
  describe_before(c, before, sizeof before);
  snprintf(detail, sizeof detail, "found %s %s", f, before);
  return fail(c, FE_PROGRAM_SYNTAX, c->tok.at, "syntax error", detail, expected);
}

/* An operand is complete and the current token neither continues it with an
 * operator nor closes it: `open` is the "(" it is inside, or NULL. */
static int operator_expected(struct compiler *c, const struct token *open)
{
  if (c->tok.kind == TOK_END && open)
    return fail(c, FE_PROGRAM_PARENTHESES, open->at, "unbalanced parentheses",
                "this '(' is never closed", "')'");
  if (c->tok.kind == TOK_RPAREN && !open)
    return fail(c, FE_PROGRAM_PARENTHESES, c->tok.at, "unbalanced parentheses",
                "found ')' without a matching '('", "an operator");
  return syntax_error(c, c->comma  ? "an operator, ',' or ')'"
                         : c->open ? "an operator or ')'"
                                   : "an operator");
}

/* ---- emitting, with constants folded ---- */

/* The values an instruction takes from the stack (io/program.h's ranges). */
static int arity(int op)
{
  return op <= FE_OP_T ? 0 : op <= FE_OP_OR ? 2 : op == FE_OP_SELECT ? 3 : 1;
}

/* Operation op after the n instructions of ops and values: where its operands (the last
 * instructions) are each a constant, they become the constant it evaluates to, and the new
 * number of instructions is returned; -1 where it does not fold. */
static int fold(unsigned char *ops, double *values, int n, int op)
{
  const int k = arity(op);
  int folds = k > 0 && n >= k;
  for (int j = n - k; folds && j < n; j++) folds = ops[j] == FE_OP_CONST;
  if (!folds) return -1;
  struct fe_program p = {k + 1, {0}, {0}};
  for (int j = 0; j < k; j++) p.value[j] = values[n - k + j];
  p.op[k] = (unsigned char)op;
  values[n - k] = fe_program_eval(&p, 0, 0, 0, 0);
  return n - k + 1;
}

/* An operation on constants alone becomes the constant it evaluates to. */
static void emit(struct compiler *c, int op, double value, int at)
{
  const int n = c->n, folded = fold(c->op, c->value, n, op);
  if (folded >= 0) {
    c->n = folded;
    return;
  }
  c->op[n] = (unsigned char)op;
  c->value[n] = value;
  c->at[n] = at;
  c->n++;
}

/* ---- the grammar ---- */

static int expression(struct compiler *c);
static int unary(struct compiler *c);

/* One level deeper at the current token: a "(" or a unary "-". */
static int enter(struct compiler *c)
{
  if (++c->nesting <= FE_PROGRAM_NESTING) return FE_SUCCESS;
  char detail[128], expected[32];
  snprintf(detail, sizeof detail,
           "more than %d levels of parentheses, function calls and unary minus signs",
           FE_PROGRAM_NESTING);
  snprintf(expected, sizeof expected, "at most %d", FE_PROGRAM_NESTING);
  return fail(c, FE_PROGRAM_TOO_DEEP, c->tok.at, "nesting too deep", detail, expected);
}

/* "(" expression ")", a group (takes 0), or a function's arguments "("
 * expression { "," expression } ")" of which it takes `takes` (a "," is
 * expected after fewer), at the "(": how many in *count, where the code of
 * the first MAX_ARGUMENTS starts in start[]. */
static int parenthesized(struct compiler *c, int takes, int *count, int start[MAX_ARGUMENTS])
{
  const struct token open = c->tok;
  const int comma = c->comma;
  FE_CALL(enter(c));
  c->open++;
  *count = 0;
  do {
    c->comma = *count + 1 < takes;
    FE_CALL(advance(c));
    if (*count < MAX_ARGUMENTS) start[*count] = c->n;
    FE_CALL(expression(c));
    ++*count;
  } while (takes && c->tok.kind == TOK_COMMA);
  if (c->tok.kind != TOK_RPAREN) return operator_expected(c, &open);
  c->comma = comma;
  c->open--;
  c->nesting--;
  return advance(c);
}

/* "min(x, y, z)": found 3 arguments to 'min'; expected 2 arguments, as in min(a, b). */
static int argument_count(struct compiler *c, const struct token *name, int f, int count)
{
  char q[TOKEN_QUOTE_SIZE], detail[TOKEN_QUOTE_SIZE + 48], expected[96];
  snprintf(detail, sizeof detail, "found %d argument%s to %s", count, count == 1 ? "" : "s",
           quote(c, name, q, sizeof q));
  const int n = function_ops[f].arguments;
  snprintf(expected, sizeof expected, "%d argument%s, as in %s", n, n == 1 ? "" : "s",
           function_ops[f].usage);
  return fail(c, FE_PROGRAM_ARGUMENTS, name->at, "wrong number of arguments", detail, expected);
}

/* if(c, a, b) with a constant condition is the code of the branch it takes
 * (a NaN condition is left to the machine, whose value is NaN). */
static int select_folds(struct compiler *c, const int start[MAX_ARGUMENTS])
{
  if (start[1] - start[0] != 1 || c->op[start[0]] != FE_OP_CONST || isnan(c->value[start[0]]))
    return 0;
  const int from = c->value[start[0]] != 0 ? start[1] : start[2];
  const int to = c->value[start[0]] != 0 ? start[2] : c->n, n = to - from;
  memmove(c->op + start[0], c->op + from, (size_t)n * sizeof *c->op);
  memmove(c->value + start[0], c->value + from, (size_t)n * sizeof *c->value);
  memmove(c->at + start[0], c->at + from, (size_t)n * sizeof *c->at);
  c->n = start[0] + n;
  return 1;
}

/* `name` "(" arguments ")", at the "(" */
static int call(struct compiler *c, const struct token *name)
{
  const char *s = c->text + name->at;
  const int f = find(s, name->len, functions, COUNT(functions));
  if (f >= 0) {
    int count = 0, start[MAX_ARGUMENTS] = {0};
    FE_CALL(parenthesized(c, function_ops[f].arguments, &count, start));
    if (count != function_ops[f].arguments) return argument_count(c, name, f, count);
    if (function_ops[f].op != FE_OP_SELECT || !select_folds(c, start))
      emit(c, function_ops[f].op, 0, name->at);
    return FE_SUCCESS;
  }
  if (find(s, name->len, variables, COUNT(variables)) >= 0 ||
      find(s, name->len, constants, COUNT(constants)) >= 0 ||
      find_param(c->params, s, name->len) >= 0)
    return operator_expected(c, NULL); /* "k(2)": found '(' after the parameter 'k' */
  char q[TOKEN_QUOTE_SIZE], what[TOKEN_QUOTE_SIZE + 24];
  snprintf(what, sizeof what, "unknown function %s", quote(c, name, q, sizeof q));
  return fail(c, FE_PROGRAM_UNKNOWN_FUNCTION, name->at, what, "", "");
}

/* A parameter's value may not use x y z t, nor a parameter defined after it. */
static int not_constant(struct compiler *c, const struct token *name, int variable)
{
  char q[TOKEN_QUOTE_SIZE], what[TOKEN_QUOTE_SIZE + 48];
  if (variable) {
    snprintf(what, sizeof what, "variable %s in a parameter", quote(c, name, q, sizeof q));
    return fail(c, FE_PROGRAM_NOT_CONSTANT, name->at, what,
                "a parameter is one number, evaluated when the case is read", "");
  }
  snprintf(what, sizeof what, "parameter %s used before its definition",
           quote(c, name, q, sizeof q));
  return fail(c, FE_PROGRAM_LATER_PARAMETER, name->at, what,
              "a parameter may use only the parameters defined above it", "");
}

/* A name that is not called: a variable, a constant or a parameter. */
static int operand(struct compiler *c, const struct token *name)
{
  const char *s = c->text + name->at;
  int i;
  if ((i = find(s, name->len, variables, COUNT(variables))) >= 0) {
    if (c->constant) return not_constant(c, name, 1);
    emit(c, FE_OP_X + i, 0, name->at);
  } else if ((i = find(s, name->len, constants, COUNT(constants))) >= 0) {
    emit(c, FE_OP_CONST, constant_values[i], name->at);
  } else if ((i = find_param(c->params, s, name->len)) >= 0) {
    if (i >= c->usable) return not_constant(c, name, 0);
    emit(c, FE_OP_CONST, c->params->values[i], name->at);
  } else if (find(s, name->len, functions, COUNT(functions)) >= 0) {
    return syntax_error(c, "'('"); /* "sin x": found 'x' after the function 'sin' */
  } else {
    char q[TOKEN_QUOTE_SIZE], what[TOKEN_QUOTE_SIZE + 24];
    snprintf(what, sizeof what, "unknown variable %s", quote(c, name, q, sizeof q));
    return fail(c, FE_PROGRAM_UNKNOWN_VARIABLE, name->at, what, "", "");
  }
  return FE_SUCCESS;
}

static int primary(struct compiler *c)
{
  const struct token t = c->tok;
  int count = 0, start[MAX_ARGUMENTS] = {0};
  switch (t.kind) {
  case TOK_NUMBER: emit(c, FE_OP_CONST, t.value, t.at); return advance(c);
  case TOK_NAME:
    FE_CALL(advance(c));
    return c->tok.kind == TOK_LPAREN ? call(c, &t) : operand(c, &t);
  case TOK_LPAREN: return parenthesized(c, 0, &count, start);
  default: return syntax_error(c, EXPECT_OPERAND);
  }
}

/* Left to right: 2^3^2 is (2^3)^2; an exponent may start with a unary minus,
 * which then takes the rest of the chain: x^-y^2 is x^(-(y^2)). */
static int power(struct compiler *c)
{
  FE_CALL(primary(c));
  while (c->tok.kind == TOK_CARET) {
    const int at = c->tok.at;
    FE_CALL(advance(c));
    FE_CALL(c->tok.kind == TOK_MINUS ? unary(c) : primary(c));
    const int square = c->op[c->n - 1] == FE_OP_CONST && c->value[c->n - 1] == 2;
    c->n -= square; /* x^2: x * x (the exponent, a constant, is one instruction) */
    emit(c, square ? FE_OP_SQUARE : FE_OP_POW, 0, at);
  }
  return FE_SUCCESS;
}

static int unary(struct compiler *c)
{
  if (c->tok.kind != TOK_MINUS) return power(c);
  const int at = c->tok.at;
  FE_CALL(enter(c));
  FE_CALL(advance(c));
  FE_CALL(unary(c));
  c->nesting--;
  emit(c, FE_OP_NEG, 0, at);
  return FE_SUCCESS;
}

static int term(struct compiler *c)
{
  FE_CALL(unary(c));
  while (c->tok.kind == TOK_STAR || c->tok.kind == TOK_SLASH) {
    const struct token op = c->tok;
    FE_CALL(advance(c));
    FE_CALL(unary(c));
    emit(c, op.kind == TOK_STAR ? FE_OP_MUL : FE_OP_DIV, 0, op.at);
  }
  return FE_SUCCESS;
}

static int sum(struct compiler *c)
{
  FE_CALL(term(c));
  while (c->tok.kind == TOK_PLUS || c->tok.kind == TOK_MINUS) {
    const struct token op = c->tok;
    FE_CALL(advance(c));
    FE_CALL(term(c));
    emit(c, op.kind == TOK_PLUS ? FE_OP_ADD : FE_OP_SUB, 0, op.at);
  }
  return FE_SUCCESS;
}

/* The opcode of a comparison token, or -1. */
static int comparison_op(enum token_kind kind)
{
  switch (kind) {
  case TOK_LT: return FE_OP_LT;
  case TOK_LE: return FE_OP_LE;
  case TOK_GT: return FE_OP_GT;
  case TOK_GE: return FE_OP_GE;
  case TOK_EQ: return FE_OP_EQ;
  case TOK_NE: return FE_OP_NE;
  default: return -1;
  }
}

/* At most one comparison: 0 < x < 1 would compare 0 < x, a truth value, with 1. */
static int comparison(struct compiler *c)
{
  FE_CALL(sum(c));
  const struct token op = c->tok;
  if (comparison_op(op.kind) < 0) return FE_SUCCESS;
  FE_CALL(advance(c));
  FE_CALL(sum(c));
  emit(c, comparison_op(op.kind), 0, op.at);
  if (comparison_op(c->tok.kind) < 0) return FE_SUCCESS;
  char q[TOKEN_QUOTE_SIZE], detail[TOKEN_QUOTE_SIZE + 64];
  snprintf(detail, sizeof detail, "found %s after a comparison: comparisons do not chain",
           quote(c, &c->tok, q, sizeof q));
  return fail(c, FE_PROGRAM_SYNTAX, c->tok.at, "syntax error", detail,
              "'and' between two comparisons, as in 0 < x and x < 1");
}

static int conjunction(struct compiler *c)
{
  FE_CALL(comparison(c));
  while (c->tok.kind == TOK_AND) {
    const int at = c->tok.at;
    FE_CALL(advance(c));
    FE_CALL(comparison(c));
    emit(c, FE_OP_AND, 0, at);
  }
  return FE_SUCCESS;
}

static int expression(struct compiler *c)
{
  FE_CALL(conjunction(c));
  while (c->tok.kind == TOK_OR) {
    const int at = c->tok.at;
    FE_CALL(advance(c));
    FE_CALL(conjunction(c));
    emit(c, FE_OP_OR, 0, at);
  }
  return FE_SUCCESS;
}

/* ---- the limits of the machine ---- */

static int check_length(struct compiler *c)
{
  if (c->n <= FE_PROGRAM_MAX) return FE_SUCCESS;
  char detail[96], expected[32];
  snprintf(detail, sizeof detail, "it needs %d instructions after folding constants", c->n);
  snprintf(expected, sizeof expected, "at most %d", FE_PROGRAM_MAX);
  return fail(c, FE_PROGRAM_TOO_LONG, -1, "too many instructions", detail, expected);
}

static int check_stack(struct compiler *c)
{
  int depth = 0, most = 0, first = -1;
  for (int i = 0; i < c->n; i++) {
    depth += 1 - arity(c->op[i]);
    if (depth > most) most = depth;
    if (depth > FE_PROGRAM_STACK && first < 0) first = i;
  }
  if (first < 0) return FE_SUCCESS;
  char detail[96], expected[32];
  snprintf(detail, sizeof detail, "evaluating it needs %d intermediate values at once", most);
  snprintf(expected, sizeof expected, "at most %d", FE_PROGRAM_STACK);
  return fail(c, FE_PROGRAM_TOO_DEEP, c->at[first], "nesting too deep", detail, expected);
}

static int compile(struct compiler *c, struct fe_program *p)
{
  FE_CALL(advance(c));
  if (c->tok.kind == TOK_END) return fail(c, FE_PROGRAM_EMPTY, -1, "empty expression", "", "");
  FE_CALL(expression(c));
  if (c->tok.kind != TOK_END) return operator_expected(c, NULL);
  FE_CALL(check_length(c));
  FE_CALL(check_stack(c));
  p->n = c->n;
  memcpy(p->op, c->op, (size_t)c->n);
  memcpy(p->value, c->value, (size_t)c->n * sizeof *p->value);
  return FE_SUCCESS;
}

static int too_long_text(struct compiler *c)
{
  char expected[48];
  snprintf(expected, sizeof expected, "at most %d characters", FE_PROGRAM_TEXT);
  return fail(c, FE_PROGRAM_TOO_LONG, -1, "too many characters", "", expected);
}

/* The first `usable` of `params` may be used; `constant`: not x y z t. */
static int compile_text(const char *text, const struct fe_params *params, int usable, int constant,
                        struct fe_program *p, struct fe_program_error *err)
{
  memset(p, 0, sizeof *p);
  memset(err, 0, sizeof *err);
  struct compiler c = {.text = text,
                       .params = params,
                       .usable = usable,
                       .constant = constant,
                       .tok = {TOK_START, 0, 0, 0},
                       .err = err};
  const size_t length = strlen(text);
  if (length > FE_PROGRAM_TEXT) return too_long_text(&c);
  const size_t tokens = length + 1;
  int status = fe_malloc(length + 1, &c.scratch);
  if (!status) status = fe_malloc(tokens, &c.op);
  if (!status) status = fe_malloc(tokens * sizeof *c.value, &c.value);
  if (!status) status = fe_malloc(tokens * sizeof *c.at, &c.at);
  if (!status) {
    memcpy(c.scratch, text, length + 1);
    status = compile(&c, p);
  }
  free(c.scratch);
  free(c.op);
  free(c.value);
  free(c.at);
  return status;
}

int fe_program_compile(const char *text, const struct fe_params *params, struct fe_program *p,
                       struct fe_program_error *err)
{
  return compile_text(text, params, params ? params->n : 0, 0, p, err);
}

int fe_program_compile_constant(const char *text, const struct fe_params *params, int usable,
                                double *value, struct fe_program_error *err)
{
  struct fe_program p;
  FE_CALL(compile_text(text, params, usable, 1, &p, err));
  *value = p.value[0]; /* without x y z t every operation folds: p is one constant */
  return FE_SUCCESS;
}

void fe_program_at_time(const struct fe_program *p, double t, struct fe_program *out)
{
  int n = 0;
  for (int i = 0; i < p->n; i++) {
    const int op = p->op[i] == FE_OP_T ? FE_OP_CONST : p->op[i];
    const int folded = fold(out->op, out->value, n, op);
    if (folded >= 0) {
      n = folded;
      continue;
    }
    out->op[n] = (unsigned char)op;
    out->value[n++] = p->op[i] == FE_OP_T ? t : p->value[i];
  }
  out->n = n;
}

void fe_program_constant(double value, struct fe_program *p)
{
  memset(p, 0, sizeof *p);
  p->n = 1;
  p->op[0] = FE_OP_CONST;
  p->value[0] = value;
}
