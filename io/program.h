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

enum fe_opcode {
  FE_OP_CONST, FE_OP_X, FE_OP_Y, FE_OP_Z, FE_OP_T,
  FE_OP_ADD, FE_OP_SUB, FE_OP_MUL, FE_OP_DIV, FE_OP_POW, FE_OP_NEG,
  FE_OP_SIN, FE_OP_COS, FE_OP_TAN, FE_OP_ASIN, FE_OP_ACOS, FE_OP_ATAN,
  FE_OP_SINH, FE_OP_COSH, FE_OP_TANH, FE_OP_EXP, FE_OP_LOG, FE_OP_SQRT, FE_OP_ABS
};

struct fe_program {
  int n;
  unsigned char op[FE_PROGRAM_MAX];
  double value[FE_PROGRAM_MAX]; /* FE_OP_CONST operands */
};

FE_HOST_DEVICE static inline double fe_program_eval(const struct fe_program *p, double x, double y,
                                                    double z, double t)
{
  double s[FE_PROGRAM_STACK];
  int sp = 0;
  for (int i = 0; i < p->n; i++) {
    const int op = p->op[i];
    if (op <= FE_OP_T) {
      s[sp++] = op == FE_OP_CONST ? p->value[i] : op == FE_OP_X ? x : op == FE_OP_Y ? y : op == FE_OP_Z ? z : t;
      continue;
    }
    if (op <= FE_OP_POW) {
      const double b = s[--sp], a = s[sp - 1];
      s[sp - 1] = op == FE_OP_ADD ? a + b : op == FE_OP_SUB ? a - b : op == FE_OP_MUL ? a * b
                : op == FE_OP_DIV ? a / b : pow(a, b);
      continue;
    }
    double *a = &s[sp - 1];
    switch (op) {
    case FE_OP_NEG: *a = -*a; break;
    case FE_OP_SIN: *a = sin(*a); break;
    case FE_OP_COS: *a = cos(*a); break;
    case FE_OP_TAN: *a = tan(*a); break;
    case FE_OP_ASIN: *a = asin(*a); break;
    case FE_OP_ACOS: *a = acos(*a); break;
    case FE_OP_ATAN: *a = atan(*a); break;
    case FE_OP_SINH: *a = sinh(*a); break;
    case FE_OP_COSH: *a = cosh(*a); break;
    case FE_OP_TANH: *a = tanh(*a); break;
    case FE_OP_EXP: *a = exp(*a); break;
    case FE_OP_LOG: *a = log(*a); break;
    case FE_OP_SQRT: *a = sqrt(*a); break;
    default: *a = fabs(*a); break;
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
  FE_PROGRAM_TOO_LONG          /* over FE_PROGRAM_TEXT or FE_PROGRAM_MAX */
};

struct fe_program_error {
  enum fe_program_fault fault;
  int column;        /* 1-based, in characters of the text; 0: the whole text */
  char what[128];    /* "syntax error", "unknown variable 'w'" */
  char detail[256];  /* "found 'x' after the number '2'", or "" */
  char expected[96]; /* "an operator", or "" where the caller lists the names */
};

/* Parse, check and compile `text`: the variables x y z t, the parameters
 * (folded in as constants), the constants pi and e, numbers, + - * / ^,
 * parentheses and the 13 functions.  Returns FE_SUCCESS; FE_ERR_INPUT with
 * `err` filled and nothing printed; or FE_ERR_RESOURCE (out of memory,
 * reported).  The C stack it uses is bounded whatever the text. */
int fe_program_compile(const char *text, const struct fe_params *params, struct fe_program *p,
                       struct fe_program_error *err);

/* 1 when `name` is a variable, a constant or a function of the grammar. */
int fe_program_name_builtin(const char *name);

/* A program of one constant. */
void fe_program_constant(double value, struct fe_program *p);

#ifdef __cplusplus
}
#endif

#endif
