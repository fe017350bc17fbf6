/* fe_program_compile, the one parser of expressions: values against the same
 * formulas written in C at random points (every operator and function, unary
 * minus below ^, ^ grouping to the left, the precedence of comparisons, and,
 * or), NaN where it is used and not where it is not (if, and, or), constants
 * folded, every fault with its column, parameters' values
 * (fe_program_compile_constant), and the limits of the machine on texts of
 * any length and depth; a program at a time t (fe_program_at_time) gives the
 * same bits as the program at t, with t and what depends on it alone folded;
 * a^2 is a * a. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "io/expr.h"
#include "io/program.h"
#include "test.h"

static char *names[] = {"kappa", "alpha", "beta", "width", "r0", "t0"};
static double values[] = {0.3, 1.5, -2.5, 0.005, 0.4, 1.0};
static const struct fe_params params = {6, names, values};
static const double kappa = 0.3, alpha = 1.5, beta = -2.5, width = 0.005, r0 = 0.4, t0 = 1.0;
static const double PI = 3.14159265358979323846, E = 2.71828182845904523536;

#define FORMULA(name, formula)                                                                     \
  static double name(double x, double y, double z, double t)                                       \
  {                                                                                                \
    (void)x, (void)y, (void)z, (void)t;                                                            \
    return formula;                                                                                \
  }
/* clang-format would read the formulas as declarations */
/* clang-format off */
FORMULA(f_x, x)
FORMULA(f_neg_pow, -pow(x, 2))
FORMULA(f_pow_left, pow(pow(2, 3), 2))
FORMULA(f_pow_chain, pow(pow(x, y), z))
FORMULA(f_pow_neg, pow(x, -y))
FORMULA(f_pow_neg_chain, pow(x, -pow(y, z)))
FORMULA(f_neg_pow_neg, -pow(x, -pow(y, 2)))
FORMULA(f_pow_neg_mul, pow(2, -3) * x)
FORMULA(f_pow_pow_neg, pow(pow(x, 2), -1))
FORMULA(f_neg_mul, (-x) * y)
FORMULA(f_mul_neg, alpha * -beta)
FORMULA(f_mul_neg_pow, x * -pow(y, 2))
FORMULA(f_sub_neg, x - (-y))
FORMULA(f_neg_neg, x)
FORMULA(f_neg_group, -(x + y) * z)
FORMULA(f_sub_left, (x - y) - z)
FORMULA(f_div_left, (x / y) / z)
FORMULA(f_precedence, 1 - x + y * z / pow(t, 2))
FORMULA(f_numbers, 1e-4 * x + .5 * y + 2. * z + 1.5E+2)
FORMULA(f_trig, sin(x) + cos(y) - tan(z))
FORMULA(f_inverse, asin(x / 3) + acos(y / 3) + atan(z))
FORMULA(f_hyperbolic, sinh(x) * cosh(y) / tanh(z + 2))
FORMULA(f_gauss, exp(-(pow(x - 0.25, 2) + pow(y, 2)) / 0.005))
FORMULA(f_log_sqrt_abs, log(fabs(x - 1) + 2) + sqrt(y * y + 1))
FORMULA(f_constants, PI * E * t)
FORMULA(f_params, pow(kappa, 2) * t - pow(pow(x, y), 0.5))
FORMULA(f_rotating, width / (width + 4 * kappa * t) *
                        exp(-(pow(x - r0 * cos(t), 2) + pow(y - r0 * sin(t), 2)) / (width + 4 * kappa * t)))
FORMULA(f_groups, x)
FORMULA(f_neg_two_squared, -4)
FORMULA(f_mul_neg_squared, -18)
FORMULA(f_rational, x * y * z * t / (1 + pow(x, 2)))
FORMULA(f_heat, pow(t0 / (t + t0), 1.5) * exp(-pow(x, 2) / (4 * kappa * (t + t0))))
FORMULA(f_spaces, sin(x) + log(E))
FORMULA(f_min_max, fmin(x, y) + fmax(z, t) - fmin(-x, -t))
FORMULA(f_atan2, atan2(y - 1, x - 1) + atan2(-z, t - 1))
FORMULA(f_floor_erf, floor(4 * x) + erf(y - 1) - floor(-z))
FORMULA(f_compare, (x < y) + 2 * (x <= y) + 4 * (x > y) + 8 * (x >= y) + 16 * (x == x) + 32 * (x != y) + 64 * (y == 0.1))
FORMULA(f_compare_sum, x + y < z * 2)
FORMULA(f_and_or, (x + y < 2 && z > 1) || t < 0.5)
FORMULA(f_or_and, x < 1 || (y < 1 && z < 1))
FORMULA(f_neg_compare, -x < -pow(y, 2))
FORMULA(f_compare_groups, (x < 1) < (y < 1))
FORMULA(f_truth_arithmetic, 2 * (x > 1) - 1)
FORMULA(f_if, x < y ? x : y * z)
FORMULA(f_if_sqrt, x > 1 ? sqrt(x - 1) : -sqrt(1 - x))
FORMULA(f_if_nested, x < 0.5 ? 1 : y < 0.5 ? 2 : z < 0.5 ? 3 : 4)
FORMULA(f_slotted, pow(x - 1, 2) + pow(y - 1, 2) < 0.25 && (fabs(x - 1) > 0.1 || y > 1.3) ? 1 : 0)
FORMULA(f_if_neg_pow, (x > 1 ? 1 : 0) * -pow(y, 2))
FORMULA(f_params_compare, x * (kappa < alpha) + (beta >= 0))
/* clang-format on */

static const struct {
  const char *text;
  double (*f)(double, double, double, double);
} samples[] = {
    {"x", f_x},
    {"-x^2", f_neg_pow},
    {"2^3^2", f_pow_left},
    {"x^y^z", f_pow_chain},
    {"x^-y", f_pow_neg},
    {"x^-y^z", f_pow_neg_chain},
    {"-x^-y^2", f_neg_pow_neg},
    {"2^-3*x", f_pow_neg_mul},
    {"x^2^-1", f_pow_pow_neg},
    {"-x*y", f_neg_mul},
    {"alpha*-beta", f_mul_neg},
    {"x*-y^2", f_mul_neg_pow},
    {"x--y", f_sub_neg},
    {"--x", f_neg_neg},
    {"-(x+y)*z", f_neg_group},
    {"x - y - z", f_sub_left},
    {"x / y / z", f_div_left},
    {"1 - x + y * z / t ^ 2", f_precedence},
    {"1e-4*x + .5*y + 2.*z + 1.5E+2", f_numbers},
    {"sin(x)+cos(y)-tan(z)", f_trig},
    {"asin(x/3)+acos(y/3)+atan(z)", f_inverse},
    {"sinh(x)*cosh(y)/tanh(z+2)", f_hyperbolic},
    {"exp(-((x-0.25)^2 + y^2)/0.005)", f_gauss},
    {"log(abs(x-1)+2) + sqrt(y*y+1)", f_log_sqrt_abs},
    {"pi*e*t", f_constants},
    {"kappa^2*t - x^y^0.5", f_params},
    {"width/(width+4*kappa*t)*exp(-((x-r0*cos(t))^2 + (y-r0*sin(t))^2)/(width+4*kappa*t))",
     f_rotating},
    {"((((x))))", f_groups},
    {"-2^2", f_neg_two_squared},
    {"2*-3^2", f_mul_neg_squared},
    {"x*y*z*t/(1+x^2)", f_rational},
    {"(t0/(t+t0))^1.5*exp(-x^2/(4*kappa*(t+t0)))", f_heat},
    {" sin (x)\t+\nlog ( e ) ", f_spaces},
    {"min(x, y) + max(z, t) - min(-x, -t)", f_min_max},
    {"atan2(y - 1, x - 1) + atan2(-z, t - 1)", f_atan2},
    {"floor(4*x) + erf(y - 1) - floor(-z)", f_floor_erf},
    {"(x < y) + 2*(x <= y) + 4*(x > y) + 8*(x >= y) + 16*(x == x) + 32*(x != y) + 64*(y == 0.1)",
     f_compare},
    {"x + y < z*2", f_compare_sum},
    {"x + y < 2 and z > 1 or t < 0.5", f_and_or},
    {"x < 1 or y < 1 and z < 1", f_or_and},
    {"-x < -y^2", f_neg_compare},
    {"(x < 1) < (y < 1)", f_compare_groups},
    {"2*(x > 1) - 1", f_truth_arithmetic},
    {"if(x < y, x, y*z)", f_if},
    {"if(x > 1, sqrt(x - 1), -sqrt(1 - x))", f_if_sqrt},
    {"if(x < 0.5, 1, if(y < 0.5, 2, if(z < 0.5, 3, 4)))", f_if_nested},
    {"if((x-1)^2 + (y-1)^2 < 0.25 and (abs(x - 1) > 0.1 or y > 1.3), 1, 0)", f_slotted},
    {"if(x > 1, 1, 0) * -y^2", f_if_neg_pow},
    {"x*(kappa < alpha) + (beta >= 0)", f_params_compare},
};

static int compile(const char *text, struct fe_program *p, struct fe_program_error *err)
{
  return fe_program_compile(text, &params, p, err);
}

static void check_values(void)
{
  unsigned seed = 7;
  for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
    struct fe_program p;
    struct fe_program_error err;
    if (compile(samples[i].text, &p, &err)) {
      fprintf(stderr, "'%s': %s at column %d: %s\n", samples[i].text, err.what, err.column,
              err.detail);
      fe_test_failures++;
      continue;
    }
    for (int r = 0; r < 50; r++) {
      double v[4];
      for (int c = 0; c < 4; c++) {
        seed = seed * 1664525u + 1013904223u;
        v[c] = 0.1 + 2.0 * (seed >> 8) / 16777216.0;
      }
      const double expect = samples[i].f(v[0], v[1], v[2], v[3]);
      const double got = fe_program_eval(&p, v[0], v[1], v[2], v[3]);
      struct fe_program at;
      fe_program_at_time(&p, v[3], &at);
      CHECK(at.n >= 1 && at.n <= p.n);
      const double bound = at.n >= 1 ? fe_program_eval(&at, v[0], v[1], v[2], -7.5) : NAN;
      CHECK(bound == got || (isnan(bound) && isnan(got))); /* the same bits; its t unused */
      for (int k = 0; k < at.n; k++) CHECK(at.op[k] != FE_OP_T);
      if (!(fabs(got - expect) <= 1e-14 * fmax(1.0, fabs(expect))))
        fprintf(stderr, "%s at (%g, %g, %g, %g): %.17g, in C %.17g\n", samples[i].text, v[0], v[1],
                v[2], v[3], got, expect);
      CHECK_CLOSE(got, expect, 1e-14);
    }
  }
}

/* A text of `n` copies of `unit` between `head` and `tail`, for the limits. */
static char *repeat(const char *head, const char *unit, int n, const char *tail)
{
  const size_t h = strlen(head), u = strlen(unit), t = strlen(tail);
  char *s = malloc(h + u * (size_t)n + t + 1);
  if (!s) abort();
  memcpy(s, head, h);
  for (int i = 0; i < n; i++) memcpy(s + h + u * (size_t)i, unit, u);
  memcpy(s + h + u * (size_t)n, tail, t + 1);
  return s;
}

/* `open` n times, `middle`, `close` n times. */
static char *nest(const char *open, int n, const char *middle, const char *close)
{
  char *head = repeat("", open, n, middle), *s = repeat(head, close, n, "");
  free(head);
  return s;
}

/* Constants fold as they are emitted: what is left is the least the machine
 * must do at each point. */
static void check_folding(void)
{
  struct fe_program p;
  struct fe_program_error err;
  CHECK_OK(compile("2*alpha + kappa^2 - pi", &p, &err));
  CHECK(p.n == 1 && p.op[0] == FE_OP_CONST);
  CHECK_CLOSE(p.value[0], 2 * 1.5 + 0.09 - PI, 1e-15);
  CHECK_OK(compile("-(1+2)", &p, &err));
  CHECK(p.n == 1 && p.value[0] == -3);
  CHECK_OK(compile("sqrt(4)*x + 2*3", &p, &err));
  CHECK(p.n == 5 && p.op[0] == FE_OP_CONST && p.value[0] == 2 && p.op[1] == FE_OP_X &&
        p.op[2] == FE_OP_MUL && p.op[3] == FE_OP_CONST && p.value[3] == 6 && p.op[4] == FE_OP_ADD);
  CHECK_OK(compile("x*2*3", &p, &err)); /* (x*2)*3: nothing to fold, the order is kept */
  CHECK(p.n == 5);
  CHECK_OK(compile("-x", &p, &err));
  CHECK(p.n == 2 && p.op[1] == FE_OP_NEG);
  /* a sum of 200000 constants (400 KB) is one constant */
  char *sum = repeat("1", "+1", 199999, "");
  CHECK_OK(compile(sum, &p, &err));
  CHECK(p.n == 1 && p.value[0] == 200000);
  free(sum);
  fe_program_constant(2.5, &p);
  CHECK(p.n == 1 && fe_program_eval(&p, 1, 2, 3, 4) == 2.5);
  /* the new operations fold as the others do */
  CHECK_OK(compile("min(1, 2) + max(3, -1) + atan2(1, 1) + floor(2.5) + erf(0)", &p, &err));
  CHECK(p.n == 1 && p.op[0] == FE_OP_CONST);
  CHECK_CLOSE(p.value[0], 1 + 3 + PI / 4 + 2, 1e-15);
  CHECK_OK(compile("1 + 2 < 4 and 0 or 1", &p, &err)); /* ((1 + 2 < 4) and 0) or 1 */
  CHECK(p.n == 1 && p.value[0] == 1);
  CHECK_OK(compile("1 + 2 < 4 and (0 or 0)", &p, &err));
  CHECK(p.n == 1 && p.value[0] == 0);
  CHECK_OK(compile("(kappa <= 0.3) + 2*(alpha == 1.5) + 4*(beta != -2.5) + 8*(1 >= 2)", &p, &err));
  CHECK(p.n == 1 && p.value[0] == 3);
  CHECK_OK(compile("if(alpha > 1, 2, 3) * x", &p, &err));
  CHECK(p.n == 3 && p.op[0] == FE_OP_CONST && p.value[0] == 2 && p.op[1] == FE_OP_X);
  /* a constant condition keeps the code of its branch only: t is gone */
  CHECK_OK(compile("if(1 > 2, t, x*2)", &p, &err));
  CHECK(p.n == 3 && p.op[0] == FE_OP_X && p.op[1] == FE_OP_CONST && p.op[2] == FE_OP_MUL);
  CHECK_OK(compile("1 + if(kappa, sin(t), x)", &p, &err));
  CHECK(p.n == 4 && p.op[1] == FE_OP_T && p.op[2] == FE_OP_SIN && p.op[3] == FE_OP_ADD);
  CHECK_OK(compile("if(0, sqrt(-1), 3)", &p, &err)); /* the NaN not taken is dropped */
  CHECK(p.n == 1 && p.value[0] == 3);
  CHECK_OK(compile("if(1, sqrt(-1), 3)", &p, &err));
  CHECK(p.n == 1 && isnan(p.value[0]));
  CHECK_OK(compile("if(0/0, x, y)", &p, &err)); /* a NaN condition is the machine's */
  CHECK(p.n == 4 && p.op[3] == FE_OP_SELECT && isnan(fe_program_eval(&p, 1, 2, 3, 4)));
  CHECK_OK(compile("if(x > 0, 1, 2)", &p, &err));
  CHECK(p.n == 6 && p.op[2] == FE_OP_GT && p.op[5] == FE_OP_SELECT);
  CHECK_OK(compile("min(x, 2*3)", &p, &err));
  CHECK(p.n == 3 && p.value[1] == 6 && p.op[2] == FE_OP_MIN);
}

static double eval1(const char *text, double x)
{
  struct fe_program p;
  struct fe_program_error err;
  if (compile(text, &p, &err)) {
    fprintf(stderr, "'%s': %s at column %d: %s\n", text, err.what, err.column, err.detail);
    fe_test_failures++;
    return -12345;
  }
  return fe_program_eval(&p, x, 0, 0, 0);
}

/* A NaN counts where the value uses it: in the branch an if takes, in a
 * condition, in min and max, on the side of and / or that decides; it does not
 * in the branch not taken or the side that does not decide. */
/* The default case's exact solution at a time: its cos(t), sin(t) and the widths w + 4 k t
 * folded, the point's arithmetic left, the same bits at every point. */
static void check_at_time(void)
{
  const char *text = "w/(w+4*k*t)*exp(-((x-r0*cos(t))^2 + (y-r0*sin(t))^2)/(w+4*k*t)) + "
                     "0.5*2*w/(2*w+4*k*t)*exp(-((x+r0*cos(t))^2 + (y+r0*sin(t))^2)/(2*w+4*k*t))";
  const char *names[] = {"k", "w", "r0"};
  const double values[] = {1e-4, 0.005, 0.4};
  const struct fe_params params = {3, (char **)names, (double *)values};
  struct fe_program p, at;
  struct fe_program_error err;
  CHECK_OK(fe_program_compile(text, &params, &p, &err));
  fe_program_at_time(&p, 0.37, &at);
  int trig = 0, exps = 0;
  for (int k = 0; k < at.n; k++) {
    trig += at.op[k] == FE_OP_SIN || at.op[k] == FE_OP_COS;
    exps += at.op[k] == FE_OP_EXP;
  }
  CHECK(trig == 0 && exps == 2 && at.n < p.n - 16);
  for (int i = 0; i < 20; i++) {
    const double x = -1 + 0.1 * i, y = 0.7 - 0.07 * i;
    CHECK(fe_program_eval(&at, x, y, 0, 0) == fe_program_eval(&p, x, y, 0, 0.37));
  }
}

/* a^2 is a * a, rounded once, where the exponent is the constant 2; other powers are pow's. */
static void check_square(void)
{
  struct fe_program p;
  struct fe_program_error err;
  CHECK_OK(compile("x^2", &p, &err));
  CHECK(p.n == 2 && p.op[0] == FE_OP_X && p.op[1] == FE_OP_SQUARE);
  for (int i = 0; i < 50; i++) {
    const double x = 0.1 + 0.37 * i - 1e-3 * i * i;
    CHECK(fe_program_eval(&p, x, 0, 0, 0) == x * x);
  }
  CHECK_OK(compile("(y - 0.25)^(1 + 1)", &p, &err));
  CHECK(p.n == 4 && p.op[3] == FE_OP_SQUARE && fe_program_eval(&p, 0, 1.5, 0, 0) == 1.25 * 1.25);
  CHECK_OK(compile("3^2", &p, &err));
  CHECK(p.n == 1 && p.value[0] == 9);
  CHECK_OK(compile("x^-2", &p, &err));
  CHECK(p.op[p.n - 1] == FE_OP_POW);
  CHECK_OK(compile("x^3", &p, &err));
  CHECK(p.op[p.n - 1] == FE_OP_POW);
  CHECK_OK(compile("2^x", &p, &err));
  CHECK(p.op[p.n - 1] == FE_OP_POW);
}

static void check_nan(void)
{
  CHECK(eval1("if(x > 0, sqrt(x), 0)", -4) == 0);
  CHECK(eval1("if(x > 0, sqrt(x), 0)", 4) == 2);
  CHECK(eval1("if(x > 0, 0, sqrt(x))", 4) == 0);
  CHECK(isnan(eval1("if(x > 0, 0, sqrt(x))", -4)));
  CHECK(eval1("if(x >= 0, log(x), 1/x)", 0) == -INFINITY); /* the taken one, even inf */
  CHECK(isnan(eval1("if(sqrt(x) > 0, 1, 2)", -1)));
  CHECK(isnan(eval1("if(sqrt(x), 1, 2)", -1)));
  CHECK(isnan(eval1("sqrt(x) < 1", -1)) && isnan(eval1("1 == sqrt(x)", -1)));
  CHECK(isnan(eval1("sqrt(x) != 1", -1)) && isnan(eval1("sqrt(x) >= 1", -1)));
  CHECK(isnan(eval1("min(sqrt(x), 1)", -1)) && isnan(eval1("min(1, sqrt(x))", -1)));
  CHECK(isnan(eval1("max(sqrt(x), 1)", -1)) && isnan(eval1("max(1, sqrt(x))", -1)));
  CHECK(eval1("x > 0 and sqrt(x) < 1", -1) == 0);
  CHECK(eval1("x > 0 and sqrt(x) < 1", 0.25) == 1 && eval1("x > 0 and sqrt(x) < 1", 4) == 0);
  CHECK(isnan(eval1("x < 0 and sqrt(x) < 1", -1)));
  CHECK(isnan(eval1("sqrt(x) < 1 and 0", -1)));
  CHECK(eval1("x < 0 or sqrt(x) < 1", -1) == 1);
  CHECK(isnan(eval1("x > 0 or sqrt(x) < 1", -1)));
  CHECK(isnan(eval1("sqrt(x) < 1 or 1", -1)));
  CHECK(eval1("1/x > 0", 0) == 1); /* inf compares as a number */
  CHECK(eval1("2 and x", 3) == 1 && eval1("x or 0", -0.5) == 1 && eval1("0 or x", 0) == 0);
  CHECK(eval1("min(x, 0)", -0.0) == 0 && eval1("atan2(0, x)", -1) == PI);
  CHECK(eval1("floor(x)", -0.5) == -1 && eval1("erf(x)", 40) == 1);
}

/* What a refused text gets: the fault, its column and the words of the message. */
static void check_fault(const char *text, enum fe_program_fault fault, int column, const char *what,
                        const char *detail, const char *expected)
{
  struct fe_program p;
  struct fe_program_error err;
  const int status = compile(text, &p, &err);
  const int ok = status == FE_ERR_INPUT && err.fault == fault && err.column == column &&
                 !strcmp(err.what, what) && !strcmp(err.detail, detail) &&
                 !strcmp(err.expected, expected);
  if (!ok)
    fprintf(stderr, "'%.60s': status %d, fault %d, column %d, '%s' / '%s' / '%s'\n", text, status,
            (int)err.fault, err.column, err.what, err.detail, err.expected);
  CHECK(ok);
}

#define OPERAND "a number, a name, '-' or '('"

static void check_faults(void)
{
  check_fault("", FE_PROGRAM_EMPTY, 0, "empty expression", "", "");
  check_fault(" \t\n", FE_PROGRAM_EMPTY, 0, "empty expression", "", "");
  /* syntax: what was found after what, and what could stand there */
  check_fault("2x + y", FE_PROGRAM_SYNTAX, 2, "syntax error", "found 'x' after the number '2'",
              "an operator");
  check_fault("(2x)", FE_PROGRAM_SYNTAX, 3, "syntax error", "found 'x' after the number '2'",
              "an operator or ')'");
  check_fault("x y", FE_PROGRAM_SYNTAX, 3, "syntax error", "found 'y' after the variable 'x'",
              "an operator");
  check_fault("pi(2)", FE_PROGRAM_SYNTAX, 3, "syntax error", "found '(' after the constant 'pi'",
              "an operator");
  check_fault("kappa(2)", FE_PROGRAM_SYNTAX, 6, "syntax error",
              "found '(' after the parameter 'kappa'", "an operator");
  check_fault("(x)(y)", FE_PROGRAM_SYNTAX, 4, "syntax error", "found '(' after ')'", "an operator");
  check_fault("x +", FE_PROGRAM_SYNTAX, 4, "syntax error",
              "found the end of the expression after '+'", OPERAND);
  check_fault("*x", FE_PROGRAM_SYNTAX, 1, "syntax error",
              "found '*' at the start of the expression", OPERAND);
  check_fault("x ^ * y", FE_PROGRAM_SYNTAX, 5, "syntax error", "found '*' after '^'", OPERAND);
  check_fault("+x", FE_PROGRAM_SYNTAX, 1, "syntax error",
              "found '+' at the start of the expression", OPERAND);
  check_fault("()", FE_PROGRAM_SYNTAX, 2, "syntax error", "found ')' after '('", OPERAND);
  check_fault("sin x", FE_PROGRAM_SYNTAX, 5, "syntax error", "found 'x' after the function 'sin'",
              "'('");
  check_fault("sin", FE_PROGRAM_SYNTAX, 4, "syntax error",
              "found the end of the expression after the function 'sin'", "'('");
  check_fault("1.5.2", FE_PROGRAM_SYNTAX, 4, "syntax error", "found '.2' after the number '1.5'",
              "an operator");
  check_fault("0x10", FE_PROGRAM_SYNTAX, 2, "syntax error", "found 'x10' after the number '0'",
              "an operator");
  /* characters outside the grammar, the expected part left to the caller's list */
  check_fault("x[1]", FE_PROGRAM_CHARACTER, 2, "unexpected character '['", "", "");
  check_fault("x;y", FE_PROGRAM_CHARACTER, 2, "unexpected character ';'", "", "");
  check_fault("x + .", FE_PROGRAM_CHARACTER, 5, "unexpected character '.'", "", "");
  check_fault("2*\xcf\x80", FE_PROGRAM_CHARACTER, 3, "unexpected character '\xcf\x80'", "", "");
  check_fault("x\x01", FE_PROGRAM_CHARACTER, 2, "unexpected byte 0x01", "", "");
  check_fault("\xff", FE_PROGRAM_CHARACTER, 1, "unexpected byte 0xff", "", "");
  /* names */
  check_fault("v*x", FE_PROGRAM_UNKNOWN_VARIABLE, 1, "unknown variable 'v'", "", "");
  check_fault("x*0 + q*0", FE_PROGRAM_UNKNOWN_VARIABLE, 7, "unknown variable 'q'", "", "");
  check_fault("K", FE_PROGRAM_UNKNOWN_VARIABLE, 1, "unknown variable 'K'", "", "");
  check_fault("ln2", FE_PROGRAM_UNKNOWN_VARIABLE, 1, "unknown variable 'ln2'", "", "");
  check_fault("1 + cot(x)", FE_PROGRAM_UNKNOWN_FUNCTION, 5, "unknown function 'cot'", "", "");
  check_fault("erfc(x)", FE_PROGRAM_UNKNOWN_FUNCTION, 1, "unknown function 'erfc'", "", "");
  check_fault("step (x)", FE_PROGRAM_UNKNOWN_FUNCTION, 1, "unknown function 'step'", "", "");
  /* parentheses */
  check_fault("(x", FE_PROGRAM_PARENTHESES, 1, "unbalanced parentheses", "this '(' is never closed",
              "')'");
  check_fault("((x)", FE_PROGRAM_PARENTHESES, 1, "unbalanced parentheses",
              "this '(' is never closed", "')'");
  check_fault("2*sin(x", FE_PROGRAM_PARENTHESES, 6, "unbalanced parentheses",
              "this '(' is never closed", "')'");
  check_fault("(x))", FE_PROGRAM_PARENTHESES, 4, "unbalanced parentheses",
              "found ')' without a matching '('", "an operator");
  /* numbers */
  check_fault("2*1e999", FE_PROGRAM_NUMBER, 3, "number out of range",
              "'1e999' is beyond the largest double (1.8e308)", "a finite number");
  /* arguments */
  check_fault("min(x, y, 1)", FE_PROGRAM_ARGUMENTS, 1, "wrong number of arguments",
              "found 3 arguments to 'min'", "2 arguments, as in min(a, b)");
  check_fault("if(x > 0, 1)", FE_PROGRAM_ARGUMENTS, 1, "wrong number of arguments",
              "found 2 arguments to 'if'", "3 arguments, as in if(condition, a, b)");
  check_fault("2*atan2(x)", FE_PROGRAM_ARGUMENTS, 3, "wrong number of arguments",
              "found 1 argument to 'atan2'", "2 arguments, as in atan2(y, x)");
  check_fault("max (x)", FE_PROGRAM_ARGUMENTS, 1, "wrong number of arguments",
              "found 1 argument to 'max'", "2 arguments, as in max(a, b)");
  check_fault("sin(x, y)", FE_PROGRAM_ARGUMENTS, 1, "wrong number of arguments",
              "found 2 arguments to 'sin'", "1 argument, as in sin(a)");
  check_fault("x + floor(1, 2, 3, 4)", FE_PROGRAM_ARGUMENTS, 5, "wrong number of arguments",
              "found 4 arguments to 'floor'", "1 argument, as in floor(a)");
  check_fault("min()", FE_PROGRAM_SYNTAX, 5, "syntax error", "found ')' after '('", OPERAND);
  check_fault("min(, 1)", FE_PROGRAM_SYNTAX, 5, "syntax error", "found ',' after '('", OPERAND);
  check_fault("min(1,)", FE_PROGRAM_SYNTAX, 7, "syntax error", "found ')' after ','", OPERAND);
  check_fault("min(x, y", FE_PROGRAM_PARENTHESES, 4, "unbalanced parentheses",
              "this '(' is never closed", "')'");
  /* where another argument may follow, a ',' is expected too */
  check_fault("min(2x, 1)", FE_PROGRAM_SYNTAX, 6, "syntax error", "found 'x' after the number '2'",
              "an operator, ',' or ')'");
  check_fault("min(1, 2x)", FE_PROGRAM_SYNTAX, 9, "syntax error", "found 'x' after the number '2'",
              "an operator or ')'");
  check_fault("if(x, (2x), 1)", FE_PROGRAM_SYNTAX, 9, "syntax error",
              "found 'x' after the number '2'", "an operator or ')'");
  check_fault("if(x, (2) 3, 1)", FE_PROGRAM_SYNTAX, 11, "syntax error", "found '3' after ')'",
              "an operator, ',' or ')'");
  check_fault("(1, 2)", FE_PROGRAM_SYNTAX, 3, "syntax error", "found ',' after the number '1'",
              "an operator or ')'");
  check_fault("1, 2", FE_PROGRAM_SYNTAX, 2, "syntax error", "found ',' after the number '1'",
              "an operator");
  check_fault("if x", FE_PROGRAM_SYNTAX, 4, "syntax error", "found 'x' after the function 'if'",
              "'('");
  /* comparisons, and, or */
  check_fault("0 < x < 1", FE_PROGRAM_SYNTAX, 7, "syntax error",
              "found '<' after a comparison: comparisons do not chain",
              "'and' between two comparisons, as in 0 < x and x < 1");
  check_fault("x == y != 1", FE_PROGRAM_SYNTAX, 8, "syntax error",
              "found '!=' after a comparison: comparisons do not chain",
              "'and' between two comparisons, as in 0 < x and x < 1");
  check_fault("x <", FE_PROGRAM_SYNTAX, 4, "syntax error",
              "found the end of the expression after '<'", OPERAND);
  check_fault("x and", FE_PROGRAM_SYNTAX, 6, "syntax error",
              "found the end of the expression after 'and'", OPERAND);
  check_fault("or x", FE_PROGRAM_SYNTAX, 1, "syntax error",
              "found 'or' at the start of the expression", OPERAND);
  check_fault("x and or y", FE_PROGRAM_SYNTAX, 7, "syntax error", "found 'or' after 'and'",
              OPERAND);
  check_fault("x y and 1", FE_PROGRAM_SYNTAX, 3, "syntax error", "found 'y' after the variable 'x'",
              "an operator");
  check_fault("x = 1", FE_PROGRAM_CHARACTER, 3, "unexpected character '='", "",
              "'==' to compare two values");
  check_fault("x < = 1", FE_PROGRAM_CHARACTER, 5, "unexpected character '='", "",
              "'==' to compare two values");
  check_fault("x => 1", FE_PROGRAM_CHARACTER, 3, "unexpected character '='", "",
              "'==' to compare two values");
  check_fault("!x", FE_PROGRAM_CHARACTER, 1, "unexpected character '!'", "", "");
  check_fault("x && y", FE_PROGRAM_CHARACTER, 3, "unexpected character '&'", "", "");
  check_fault("x || y", FE_PROGRAM_CHARACTER, 3, "unexpected character '|'", "", "");
  check_fault("and2 + x", FE_PROGRAM_UNKNOWN_VARIABLE, 1, "unknown variable 'and2'", "", "");
}

/* What fe_program_compile_constant refuses, as check_fault. */
static void check_constant_fault(const char *text, int usable, enum fe_program_fault fault,
                                 int column, const char *what, const char *detail)
{
  double v;
  struct fe_program_error err;
  const int status = fe_program_compile_constant(text, &params, usable, &v, &err);
  const int ok = status == FE_ERR_INPUT && err.fault == fault && err.column == column &&
                 !strcmp(err.what, what) && !strcmp(err.detail, detail) && !err.expected[0];
  if (!ok)
    fprintf(stderr, "'%.60s': status %d, fault %d, column %d, '%s' / '%s' / '%s'\n", text, status,
            (int)err.fault, err.column, err.what, err.detail, err.expected);
  CHECK(ok);
}

/* A parameter's value: an expression of numbers, pi, e and the parameters
 * above it (the first `usable`), folded to one number. */
static void check_constants(void)
{
  double v = -1;
  struct fe_program_error err;
  CHECK_OK(fe_program_compile_constant("2*pi", &params, 0, &v, &err));
  CHECK(v == 2 * PI);
  CHECK_OK(fe_program_compile_constant("2*alpha + kappa^2", &params, 2, &v, &err));
  CHECK_CLOSE(v, 2 * 1.5 + 0.09, 1e-15);
  CHECK_OK(fe_program_compile_constant("if(kappa < 1 and e > 2, max(beta, -3) + floor(pi), 0)",
                                       &params, 3, &v, &err));
  CHECK(v == -2.5 + 3);
  CHECK_OK(fe_program_compile_constant("atan2(1, 0) + erf(0) + min(1, 2)", &params, 0, &v, &err));
  CHECK_CLOSE(v, PI / 2 + 1, 1e-15);
  CHECK_OK(fe_program_compile_constant("1/0", &params, 0, &v, &err)); /* the caller checks */
  CHECK(isinf(v));
  CHECK_OK(fe_program_compile_constant("if(0, sqrt(-1), 1)", &params, 0, &v, &err));
  CHECK(v == 1);
  check_constant_fault("2*x", 6, FE_PROGRAM_NOT_CONSTANT, 3, "variable 'x' in a parameter",
                       "a parameter is one number, evaluated when the case is read");
  check_constant_fault("if(t > 0, 1, 2)", 6, FE_PROGRAM_NOT_CONSTANT, 4,
                       "variable 't' in a parameter",
                       "a parameter is one number, evaluated when the case is read");
  check_constant_fault("kappa + alpha", 1, FE_PROGRAM_LATER_PARAMETER, 9,
                       "parameter 'alpha' used before its definition",
                       "a parameter may use only the parameters defined above it");
  check_constant_fault("kappa", 0, FE_PROGRAM_LATER_PARAMETER, 1,
                       "parameter 'kappa' used before its definition",
                       "a parameter may use only the parameters defined above it");
  check_constant_fault("2*q", 6, FE_PROGRAM_UNKNOWN_VARIABLE, 3, "unknown variable 'q'", "");
  check_constant_fault("", 6, FE_PROGRAM_EMPTY, 0, "empty expression", "");
  CHECK(fe_program_compile_constant("min(1)", &params, 6, &v, &err) == FE_ERR_INPUT &&
        err.fault == FE_PROGRAM_ARGUMENTS);
}

/* Nesting, instructions, stack and characters: each limit holds exactly, and
 * no text of any length or depth gets more than a fault. */
static void check_limits(void)
{
  struct fe_program p;
  struct fe_program_error err;
  char *s;
  /* FE_PROGRAM_NESTING levels of "(", of function calls, of unary minus */
  s = nest("(", FE_PROGRAM_NESTING, "x", ")");
  CHECK_OK(compile(s, &p, &err));
  CHECK(p.n == 1 && p.op[0] == FE_OP_X);
  free(s);
  s = nest("(", FE_PROGRAM_NESTING + 1, "x", ")");
  check_fault(s, FE_PROGRAM_TOO_DEEP, FE_PROGRAM_NESTING + 1, "nesting too deep",
              "more than 100 levels of parentheses, function calls and unary minus signs",
              "at most 100");
  free(s);
  s = nest("sin(", FE_PROGRAM_NESTING + 1, "x", ")");
  check_fault(s, FE_PROGRAM_TOO_DEEP, 4 * FE_PROGRAM_NESTING + 4, "nesting too deep",
              "more than 100 levels of parentheses, function calls and unary minus signs",
              "at most 100");
  free(s);
  s = repeat("", "-", FE_PROGRAM_NESTING, "x");
  CHECK_OK(compile(s, &p, &err));
  CHECK(p.n == 1 + FE_PROGRAM_NESTING && fe_program_eval(&p, 2, 0, 0, 0) == 2);
  free(s);
  s = repeat("", "-", 100000, "x");
  check_fault(s, FE_PROGRAM_TOO_DEEP, FE_PROGRAM_NESTING + 1, "nesting too deep",
              "more than 100 levels of parentheses, function calls and unary minus signs",
              "at most 100");
  free(s);
  s = repeat("", "(", 100000, "x");
  check_fault(s, FE_PROGRAM_TOO_DEEP, FE_PROGRAM_NESTING + 1, "nesting too deep",
              "more than 100 levels of parentheses, function calls and unary minus signs",
              "at most 100");
  free(s);
  s = repeat("x", "^-x", 100000, ""); /* each "^-" opens a unary minus */
  check_fault(s, FE_PROGRAM_TOO_DEEP, 3 * FE_PROGRAM_NESTING + 3, "nesting too deep",
              "more than 100 levels of parentheses, function calls and unary minus signs",
              "at most 100");
  free(s);
  /* FE_PROGRAM_MAX instructions: 96 x, 95 +, one - */
  s = repeat("-x", "+x", 95, "");
  CHECK_OK(compile(s, &p, &err));
  CHECK(p.n == FE_PROGRAM_MAX);
  free(s);
  s = repeat("x", "+x", 96, "");
  check_fault(s, FE_PROGRAM_TOO_LONG, 0, "too many instructions",
              "it needs 193 instructions after folding constants", "at most 192");
  free(s);
  s = repeat("x", "+x", 199999, ""); /* 400 KB */
  check_fault(s, FE_PROGRAM_TOO_LONG, 0, "too many instructions",
              "it needs 399999 instructions after folding constants", "at most 192");
  free(s);
  s = repeat("x", "^x", 199999, "");
  check_fault(s, FE_PROGRAM_TOO_LONG, 0, "too many instructions",
              "it needs 399999 instructions after folding constants", "at most 192");
  free(s);
  s = repeat("2", "^2", 199999, ""); /* folds, to inf: the value is checked on the mesh */
  CHECK_OK(compile(s, &p, &err));
  CHECK(p.n == 1 && isinf(p.value[0]));
  free(s);
  /* FE_PROGRAM_STACK values at once: x+(x+(...(x+x)...)) */
  s = nest("(x+", FE_PROGRAM_STACK - 1, "x", ")");
  CHECK_OK(compile(s, &p, &err));
  free(s);
  s = nest("(x+", FE_PROGRAM_STACK, "x", ")");
  check_fault(s, FE_PROGRAM_TOO_DEEP, 3 * FE_PROGRAM_STACK + 1, "nesting too deep",
              "evaluating it needs 25 intermediate values at once", "at most 24");
  free(s);
  /* if holds three values at once: if(x, x, if(x, x, ... x)) needs 2 per level and one */
  s = nest("if(x, x, ", (FE_PROGRAM_STACK - 1) / 2, "x", ")");
  CHECK_OK(compile(s, &p, &err));
  CHECK(p.n == 3 * ((FE_PROGRAM_STACK - 1) / 2) + 1 && fe_program_eval(&p, 2, 0, 0, 0) == 2);
  free(s);
  s = nest("if(x, x, ", (FE_PROGRAM_STACK + 1) / 2, "x", ")");
  check_fault(s, FE_PROGRAM_TOO_DEEP, 9 * ((FE_PROGRAM_STACK + 1) / 2) + 1, "nesting too deep",
              "evaluating it needs 25 intermediate values at once", "at most 24");
  free(s);
  s = nest("min(x, ", FE_PROGRAM_STACK - 1, "x", ")");
  CHECK_OK(compile(s, &p, &err));
  CHECK(fe_program_eval(&p, 2, 0, 0, 0) == 2);
  free(s);
  s = nest("min(x, ", FE_PROGRAM_STACK, "x", ")");
  check_fault(s, FE_PROGRAM_TOO_DEEP, 7 * FE_PROGRAM_STACK + 1, "nesting too deep",
              "evaluating it needs 25 intermediate values at once", "at most 24");
  free(s);
  s = nest("if(1, ", FE_PROGRAM_NESTING + 1, "x", ", 0)");
  check_fault(s, FE_PROGRAM_TOO_DEEP, 6 * FE_PROGRAM_NESTING + 3, "nesting too deep",
              "more than 100 levels of parentheses, function calls and unary minus signs",
              "at most 100");
  free(s);
  s = nest("if(1, ", FE_PROGRAM_NESTING, "x", ", 0)"); /* each folds to its branch */
  CHECK_OK(compile(s, &p, &err));
  CHECK(p.n == 1 && p.op[0] == FE_OP_X);
  free(s);
  /* -x < x (4 instructions) and 94 times "and x" (2 each): FE_PROGRAM_MAX */
  s = repeat("-x < x", " and x", 94, "");
  CHECK_OK(compile(s, &p, &err));
  CHECK(p.n == FE_PROGRAM_MAX && fe_program_eval(&p, 1, 0, 0, 0) == 1 &&
        fe_program_eval(&p, -1, 0, 0, 0) == 0);
  free(s);
  s = repeat("-x < x", " or x", 95, "");
  check_fault(s, FE_PROGRAM_TOO_LONG, 0, "too many instructions",
              "it needs 194 instructions after folding constants", "at most 192");
  free(s);
  /* FE_PROGRAM_TEXT characters: 1+1+...+1 folds to one constant */
  s = repeat(" 1", "+1", (FE_PROGRAM_TEXT - 2) / 2, " ");
  CHECK(strlen(s) == FE_PROGRAM_TEXT + 1);
  check_fault(s, FE_PROGRAM_TOO_LONG, 0, "too many characters", "", "at most 1000000 characters");
  s[FE_PROGRAM_TEXT] = '\0';
  CHECK_OK(compile(s, &p, &err));
  CHECK(p.n == 1 && p.value[0] == FE_PROGRAM_TEXT / 2);
  free(s);
}

static void check_names(void)
{
  CHECK(fe_program_name_builtin("x") && fe_program_name_builtin("t"));
  CHECK(fe_program_name_builtin("pi") && fe_program_name_builtin("e"));
  CHECK(fe_program_name_builtin("sqrt") && fe_program_name_builtin("abs"));
  CHECK(fe_program_name_builtin("erf") && fe_program_name_builtin("floor"));
  CHECK(fe_program_name_builtin("min") && fe_program_name_builtin("max"));
  CHECK(fe_program_name_builtin("atan2") && fe_program_name_builtin("if"));
  CHECK(fe_program_name_builtin("and") && fe_program_name_builtin("or"));
  CHECK(!fe_program_name_builtin("ln2") && !fe_program_name_builtin("not"));
  CHECK(!fe_program_name_builtin("step") && !fe_program_name_builtin("If"));
  CHECK(!fe_program_name_builtin("k") && !fe_program_name_builtin("xy"));
}

int main(void)
{
  check_values();
  check_folding();
  check_at_time();
  check_square();
  check_nan();
  check_faults();
  check_constants();
  check_limits();
  check_names();
  TEST_DONE();
}
