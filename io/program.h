/* Expressions as bytecode for a stack machine that the CPU and the CUDA
 * backend both run, from this one header, so that time-dependent coefficients
 * are evaluated where the fields live (on the GPU: no host round trip).  The
 * case file's text is parsed and checked by libmatheval first (io/expr.c);
 * fe_program_compile then translates that accepted text with the same
 * grammar (unary minus below ^, ^ grouping to the left), and the tests check
 * both agree at random points. */
#ifndef FE_PROGRAM_H
#define FE_PROGRAM_H

#include <math.h>

#include "assembly/element.h" /* FE_HOST_DEVICE */

#ifdef __cplusplus
extern "C" {
#endif

#define FE_PROGRAM_MAX 192 /* instructions */
#define FE_PROGRAM_STACK 24

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

/* Translate text that libmatheval accepted; names are x y z t, the
 * parameters (folded in as constants), pi and e.  Returns 0, or -1 with a
 * reason in `why` (an expression too long or deep for the machine). */
int fe_program_compile(const char *text, const struct fe_params *params, struct fe_program *p,
                       char *why, unsigned long why_size);

/* A program of one constant. */
void fe_program_constant(double value, struct fe_program *p);

#ifdef __cplusplus
}
#endif

#endif
