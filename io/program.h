/* Expressions as bytecode for a stack machine that the CPU and the CUDA
 * backend both run, from this one header, so that time-dependent coefficients
 * are evaluated where the fields live (on the GPU: no host round trip).
 * fe_program_compile is the one parser of the expression grammar
 * (docs/case-format.md): what it accepts is what runs, and every check of an
 * expression's text is made there. */
#ifndef FE_PROGRAM_H
#define FE_PROGRAM_H

#include <math.h>

#include "core/host_device.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FE_PROGRAM_MAX 192      /* instructions, after constants are folded */
#define FE_PROGRAM_STACK 24     /* values held at once while evaluating */
#define FE_PROGRAM_NESTING 100  /* levels of parentheses, function calls and unary minus */
#define FE_PROGRAM_TEXT 1000000 /* characters (bytes) of text */

/* In four ranges, by what an instruction takes from the stack: pushes one
 * value (.. FE_OP_T), takes two (.. FE_OP_OR), takes three (FE_OP_SELECT),
 * replaces the top one (FE_OP_NEG ..). */
/* clang-format off: a line for each range */
enum fe_opcode {
  FE_OP_CONST,
  FE_OP_X,
  FE_OP_Y,
  FE_OP_Z,
  FE_OP_T,
  FE_OP_ADD,
  FE_OP_SUB,
  FE_OP_MUL,
  FE_OP_DIV,
  FE_OP_POW,
  FE_OP_MIN,
  FE_OP_MAX,
  FE_OP_ATAN2,
  FE_OP_LT,
  FE_OP_LE,
  FE_OP_GT,
  FE_OP_GE,
  FE_OP_EQ,
  FE_OP_NE,
  FE_OP_AND,
  FE_OP_OR,
  FE_OP_SELECT,
  FE_OP_NEG,
  FE_OP_SIN,
  FE_OP_COS,
  FE_OP_TAN,
  FE_OP_ASIN,
  FE_OP_ACOS,
  FE_OP_ATAN,
  FE_OP_SINH,
  FE_OP_COSH,
  FE_OP_TANH,
  FE_OP_EXP,
  FE_OP_LOG,
  FE_OP_SQRT,
  FE_OP_ABS,
  FE_OP_FLOOR,
  FE_OP_ERF,
  FE_OP_SQUARE /* a^2: a * a, rounded once (pow may differ in the last bit, and does on GPUs) */
};
/* clang-format on */

struct fe_program {
  int n;
  unsigned char op[FE_PROGRAM_MAX];
  double value[FE_PROGRAM_MAX]; /* FE_OP_CONST operands */
};

/* Truth values are 1 and 0.  A NaN operand of a comparison makes it NaN, as it
 * makes a sum NaN, so that a NaN in a condition is reported like one in a
 * value; min and max keep a NaN too (fmin would drop it).  The right side of
 * `and` and `or` counts only where the left one does not decide, as in C. */
FE_HOST_DEVICE static inline double fe_program_binary(int op, double a, double b)
{
  if (op >= FE_OP_LT && op <= FE_OP_NE && (isnan(a) || isnan(b))) return a + b;
  switch (op) {
  case FE_OP_ADD: return a + b;
  case FE_OP_SUB: return a - b;
  case FE_OP_MUL: return a * b;
  case FE_OP_DIV: return a / b;
  case FE_OP_POW: return pow(a, b);
  case FE_OP_MIN: return a < b || isnan(a) ? a : b;
  case FE_OP_MAX: return a > b || isnan(a) ? a : b;
  case FE_OP_ATAN2: return atan2(a, b);
  case FE_OP_LT: return a < b;
  case FE_OP_LE: return a <= b;
  case FE_OP_GT: return a > b;
  case FE_OP_GE: return a >= b;
  case FE_OP_EQ: return a == b;
  case FE_OP_NE: return a != b;
  case FE_OP_AND: return isnan(a) ? a : a == 0 ? 0.0 : isnan(b) ? b : b != 0;
  default: return isnan(a) ? a : a != 0 ? 1.0 : isnan(b) ? b : b != 0; /* FE_OP_OR */
  }
}

FE_HOST_DEVICE static inline double fe_program_unary(int op, double a)
{
  switch (op) {
  case FE_OP_NEG: return -a;
  case FE_OP_SIN: return sin(a);
  case FE_OP_COS: return cos(a);
  case FE_OP_TAN: return tan(a);
  case FE_OP_ASIN: return asin(a);
  case FE_OP_ACOS: return acos(a);
  case FE_OP_ATAN: return atan(a);
  case FE_OP_SINH: return sinh(a);
  case FE_OP_COSH: return cosh(a);
  case FE_OP_TANH: return tanh(a);
  case FE_OP_EXP: return exp(a);
  case FE_OP_LOG: return log(a);
  case FE_OP_SQRT: return sqrt(a);
  case FE_OP_ABS: return fabs(a);
  case FE_OP_FLOOR: return floor(a);
  case FE_OP_SQUARE: return a * a;
  default: return erf(a); /* FE_OP_ERF */
  }
}

/* if(c, a, b): both branches are on the stack, and only the one taken is the
 * value, so that a NaN in the other (sqrt(x) where x < 0) goes no further. */
FE_HOST_DEVICE static inline double fe_program_select(double c, double a, double b)
{
  return isnan(c) ? c : c != 0 ? a : b;
}

FE_HOST_DEVICE static inline double fe_program_eval(const struct fe_program *p, double x, double y,
                                                    double z, double t)
{
  double s[FE_PROGRAM_STACK];
  int sp = 0;
  for (int i = 0; i < p->n; i++) {
    const int op = p->op[i];
    if (op <= FE_OP_T) {
      s[sp++] = op == FE_OP_CONST ? p->value[i] : op == FE_OP_X ? x : op == FE_OP_Y ? y : op == FE_OP_Z ? z : t;
    } else if (op <= FE_OP_OR) {
      sp--;
      s[sp - 1] = fe_program_binary(op, s[sp - 1], s[sp]);
    } else if (op == FE_OP_SELECT) {
      sp -= 2;
      s[sp - 1] = fe_program_select(s[sp - 1], s[sp], s[sp + 1]);
    } else {
      s[sp - 1] = fe_program_unary(op, s[sp - 1]);
    }
  }
  return s[0];
}

struct fe_params;

/* Why fe_program_compile refused a text, in words for the caller's message:
 * "<what> at column <column> of expression '...': <detail>; expected <expected>". */
enum fe_program_fault {
  FE_PROGRAM_EMPTY = 1,
  FE_PROGRAM_CHARACTER,        /* a character outside the grammar */
  FE_PROGRAM_SYNTAX,           /* a token where it cannot stand */
  FE_PROGRAM_PARENTHESES,      /* a ')' without '(', a '(' never closed */
  FE_PROGRAM_UNKNOWN_VARIABLE, /* a name that is not x y z t, pi, e or a parameter */
  FE_PROGRAM_UNKNOWN_FUNCTION, /* a name before '(' that is not a function */
  FE_PROGRAM_NUMBER,           /* a number beyond the range of a double */
  FE_PROGRAM_TOO_DEEP,         /* over FE_PROGRAM_NESTING or FE_PROGRAM_STACK */
  FE_PROGRAM_TOO_LONG,         /* over FE_PROGRAM_TEXT or FE_PROGRAM_MAX */
  FE_PROGRAM_ARGUMENTS,        /* a function called with another number of arguments */
  FE_PROGRAM_NOT_CONSTANT,     /* x y z t in a parameter's value */
  FE_PROGRAM_LATER_PARAMETER   /* a parameter's value using one defined after it */
};

struct fe_program_error {
  enum fe_program_fault fault;
  int column;        /* 1-based, in characters of the text; 0: the whole text */
  char what[128];    /* "syntax error", "unknown variable 'w'" */
  char detail[256];  /* "found 'x' after the number '2'", or "" */
  char expected[96]; /* "an operator", or "" where the caller lists the names */
};

/* Parse, check and compile `text`: the variables x y z t, the parameters
 * (folded in as constants), the constants pi and e, numbers, + - * / ^, the
 * comparisons < <= > >= == !=, and, or, parentheses and the 19 functions
 * (if, min, max and atan2 of several arguments).  Returns FE_SUCCESS;
 * FE_ERR_INPUT with `err` filled and nothing printed; or FE_ERR_RESOURCE (out
 * of memory, reported).  The C stack it uses is bounded whatever the text. */
int fe_program_compile(const char *text, const struct fe_params *params, struct fe_program *p,
                       struct fe_program_error *err);

/* A parameter's value: `text` as fe_program_compile takes it, but without
 * x y z t and with only the first `usable` of `params` (those defined above
 * it; a later one is FE_PROGRAM_LATER_PARAMETER), folded to the one number
 * *value (which may be non-finite: the caller checks). */
int fe_program_compile_constant(const char *text, const struct fe_params *params, int usable,
                                double *value, struct fe_program_error *err);

/* 1 when `name` is a variable, a constant, a word (and, or) or a function of
 * the grammar. */
int fe_program_name_builtin(const char *name);

/* A program of one constant. */
void fe_program_constant(double value, struct fe_program *p);

/* *out = p at time t: t a constant, and every operation on constants alone (t, cos(t),
 * w + 4*k*t ...) the constant it evaluates to, so that evaluating out at many points repeats
 * none of them (the CPU backend's node and quadrature loops).  On the host it gives p's value
 * at t, bit for bit: the same functions of the same numbers. */
void fe_program_at_time(const struct fe_program *p, double t, struct fe_program *out);

#ifdef __cplusplus
}
#endif

#endif
