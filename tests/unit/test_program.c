/* The bytecode programs against libmatheval, the parser that validates every
 * expression: the same value at random points for every operator, function
 * and precedence corner (unary minus and ^, ^ grouping to the left). */
#include <matheval.h>
#include <stdlib.h>
#include <string.h>

#include "io/expr.h"
#include "io/program.h"
#include "test.h"

static const char *const exprs[] = {
  "x", "-x^2", "2^3^2", "x^-y", "-x^-y^2", "a*-b", "-(x+y)*z", "x - y - z", "x / y / z",
  "1e-4*x + .5*y", "sin(x)+cos(y)-tan(z)", "asin(x/3)+acos(y/3)+atan(z)", "sinh(x)*cosh(y)/tanh(z+2)",
  "exp(-((x-0.25)^2 + y^2)/0.005)", "log(abs(x)+1) + sqrt(y*y+1)", "pi*e*t", "k^2*t - x^y^0.5",
  "w/(w+4*k*t)*exp(-((x-r0*cos(t))^2 + (y-r0*sin(t))^2)/(w+4*k*t))", "((((x))))",
  "-2^2", "2*-3^2", "x*y*z*t/(1+x^2)", "(t0/(t+t0))^1.5*exp(-x^2/(4*k*(t+t0)))"};

int main(void)
{
  char *names[] = {"k", "a", "b", "w", "r0", "t0"};
  double values[] = {0.3, 1.5, -2.5, 0.005, 0.4, 1.0};
  struct fe_params params = {6, names, values};
  unsigned seed = 7;
  for (size_t i = 0; i < sizeof exprs / sizeof *exprs; i++) {
    struct fe_expr *e;
    CHECK_OK(fe_expr_create(exprs[i], &params, "test", (int)i, "expr", &e));
    if (!e) continue;
    void *ref = evaluator_create((char *)exprs[i]);
    CHECK(ref != NULL);
    char *vn[] = {"x", "y", "z", "t", "k", "a", "b", "w", "r0", "t0"};
    for (int r = 0; r < 50 && ref; r++) {
      double v[10];
      for (int k = 0; k < 4; k++) {
        seed = seed * 1664525u + 1013904223u;
        v[k] = 0.1 + 2.0 * (seed >> 8) / 16777216.0;
      }
      for (int k = 0; k < 6; k++) v[4 + k] = values[k];
      const double expect = evaluator_evaluate(ref, 10, vn, v);
      const double got = fe_expr_eval(e, v, v[3]);
      if (!(fabs(got - expect) <= 1e-13 * fmax(1.0, fabs(expect))))
        fprintf(stderr, "%s at (%g, %g, %g, %g): %.17g, libmatheval %.17g\n", exprs[i], v[0], v[1], v[2],
                v[3], got, expect);
      CHECK_CLOSE(got, expect, 1e-13);
    }
    evaluator_destroy(ref);
    fe_expr_destroy(e);
  }
  /* constants fold: a parameter expression becomes one instruction */
  struct fe_program p;
  char why[64];
  CHECK(fe_program_compile("2*a + k^2 - pi", &params, &p, why, sizeof why) == 0);
  CHECK(p.n == 1 && p.op[0] == FE_OP_CONST);
  CHECK_CLOSE(p.value[0], 2 * 1.5 + 0.09 - 3.14159265358979323846, 1e-15);
  /* limits of the machine are reported, not overrun */
  char deep[400] = "";
  for (int i = 0; i < 60; i++) strcat(deep, "(x+");
  strcat(deep, "1");
  for (int i = 0; i < 60; i++) strcat(deep, ")");
  CHECK(fe_program_compile(deep, &params, &p, why, sizeof why) == -1);
  TEST_DONE();
}
