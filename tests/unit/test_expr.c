/* Expressions: values against math.h, parameters, constants, dependency flags,
 * the user errors and the messages they print (each fault's kinds and columns
 * are in test_program.c), and parameters' values (fe_expr_constant). */
#include "core/error.h"
#include "io/expr.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const double PI = 3.14159265358979323846, E = 2.71828182845904523536;

static char *param_names[] = {"k", "U_0"};
static double param_values[] = {0.25, -3.0};
static const struct fe_params params = {2, param_names, param_values};

static double value(const char *text, const double xyz[3], double t)
{
  struct fe_expr *e = NULL;
  if (fe_expr_create(text, &params, "test.xml", 7, "initial", &e)) {
    fprintf(stderr, "could not compile '%s'\n", text);
    fe_test_failures++;
    return NAN;
  }
  double v = fe_expr_eval(e, xyz, t);
  fe_expr_destroy(e);
  return v;
}

static int fails(const char *text)
{
  struct fe_expr *e = NULL;
  int err = fe_expr_create(text, &params, "test.xml", 3, "source", &e);
  int ok = err == FE_ERR_INPUT && e == NULL;
  fe_expr_destroy(e);
  return ok;
}

static void check_values(void)
{
  const double p[3] = {0.3, -0.7, 1.9};
  const double t = 0.45, x = p[0], y = p[1], z = p[2];
  CHECK_CLOSE(value("x + 2*y - z/4", p, t), x + 2 * y - z / 4, 1e-15);
  CHECK_CLOSE(value("t*x*y*z", p, t), t * x * y * z, 1e-15);
  CHECK_CLOSE(value("k*x + U_0", p, t), 0.25 * x - 3.0, 1e-15);
  CHECK_CLOSE(value("pi", p, t), PI, 1e-15);
  CHECK_CLOSE(value("e", p, t), E, 1e-15);
  CHECK_CLOSE(value("2*pi*e", p, t), 2 * PI * E, 1e-15);
  CHECK_CLOSE(value("x^2", p, t), x * x, 1e-15);
  CHECK_CLOSE(value("2^10", p, t), 1024, 1e-15);
  CHECK_CLOSE(value("-x^2", p, t), -x * x, 1e-15);
  CHECK_CLOSE(value("(1+x)^(-1.5)", p, t), pow(1 + x, -1.5), 1e-15);
  CHECK_CLOSE(value("1e-4*x + 1.5E+2", p, t), 1e-4 * x + 150, 1e-15);
  CHECK_CLOSE(value("exp(-((x-0.25)^2 + y^2)/0.005)", p, t),
              exp(-((x - 0.25) * (x - 0.25) + y * y) / 0.005), 1e-15);
  CHECK_CLOSE(value("sin(x)", p, t), sin(x), 1e-15);
  CHECK_CLOSE(value("cos(x)", p, t), cos(x), 1e-15);
  CHECK_CLOSE(value("tan(x)", p, t), tan(x), 1e-15);
  CHECK_CLOSE(value("asin(x)", p, t), asin(x), 1e-15);
  CHECK_CLOSE(value("acos(x)", p, t), acos(x), 1e-15);
  CHECK_CLOSE(value("atan(y)", p, t), atan(y), 1e-15);
  CHECK_CLOSE(value("sinh(y)", p, t), sinh(y), 1e-15);
  CHECK_CLOSE(value("cosh(y)", p, t), cosh(y), 1e-15);
  CHECK_CLOSE(value("tanh(y)", p, t), tanh(y), 1e-15);
  CHECK_CLOSE(value("exp(z)", p, t), exp(z), 1e-15);
  CHECK_CLOSE(value("log(z)", p, t), log(z), 1e-15);
  CHECK_CLOSE(value("sqrt(z)", p, t), sqrt(z), 1e-15);
  CHECK_CLOSE(value("abs(y)", p, t), fabs(y), 1e-15);
  CHECK_CLOSE(value("sin (x) + log ( e )", p, t), sin(x) + 1, 1e-15);
  CHECK_CLOSE(value("  x\n  + y\t", p, t), x + y, 1e-15);
  CHECK_CLOSE(value("floor(z)", p, t), 1, 0);
  CHECK_CLOSE(value("erf(y)", p, t), erf(y), 1e-15);
  CHECK_CLOSE(value("min(x, y)", p, t), y, 0);
  CHECK_CLOSE(value("max(x, y)", p, t), x, 0);
  CHECK_CLOSE(value("atan2(y, x)", p, t), atan2(y, x), 1e-15);
  CHECK_CLOSE(value("if(x > 0, sqrt(x), 0)", p, t), sqrt(x), 1e-15);
  CHECK_CLOSE(value("if(y > 0, sqrt(y), 0)", p, t), 0, 0);
  CHECK_CLOSE(
      value("(x < y) + 2*(x <= y) + 4*(x > y) + 8*(x >= y) + 16*(x == x) + 32*(x != x)", p, t),
      4 + 8 + 16, 0);
  CHECK_CLOSE(value("x > 0 and y > 0 or z > 1", p, t), 1, 0);
  CHECK_CLOSE(value("x > 0 and (y > 0 or z > 2)", p, t), 0, 0);
  CHECK_CLOSE(value("if(k < 1, U_0, 1)", p, t), -3, 0);
}

/* One compiled expression evaluated at several points and times. */
static void check_reuse(void)
{
  struct fe_expr *e = NULL;
  CHECK_OK(fe_expr_create("k*(x - U_0*t) + y*z", &params, "c.xml", 12, "exact", &e));
  if (!e) return;
  for (int i = 0; i < 5; i++) {
    double p[3] = {0.1 * i, 1 - 0.2 * i, i}, t = 0.5 * i;
    CHECK_CLOSE(fe_expr_eval(e, p, t), 0.25 * (p[0] + 3 * t) + p[1] * p[2], 1e-15);
  }
  CHECK(!strcmp(fe_expr_where(e), "c.xml:12 (<exact>)"));
  CHECK(!strcmp(fe_expr_text(e), "k*(x - U_0*t) + y*z"));
  fe_expr_destroy(e);
}

static void check_dependencies(void)
{
  static const struct {
    const char *text;
    int t, space;
  } cases[] = {{"1 + k", 0, 0},
               {"sin(t)", 1, 0},
               {"z", 0, 1},
               {"x*t", 1, 1},
               {"pi*e", 0, 0},
               {"if(k > 1, t, x)", 0, 1},
               {"if(x > 1, t, 0)", 1, 1},
               {"min(t, k)", 1, 0}};
  for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
    struct fe_expr *e = NULL;
    CHECK_OK(fe_expr_create(cases[i].text, &params, "d.xml", 1, "source", &e));
    if (!e) continue;
    CHECK(fe_expr_depends_on_t(e) == cases[i].t);
    CHECK(fe_expr_depends_on_space(e) == cases[i].space);
    fe_expr_destroy(e);
  }
}

static void check_errors(void)
{
  CHECK(fails("2x"));   /* syntax */
  CHECK(fails("x +"));  /* syntax */
  CHECK(fails("(x"));   /* parentheses */
  CHECK(fails("x)"));   /* parentheses */
  CHECK(fails(""));     /* empty */
  CHECK(fails("   "));  /* empty */
  CHECK(fails("x[1]")); /* a character outside the grammar */
  CHECK(fails("x;y"));
  CHECK(fails("w*x"));       /* unknown variable */
  CHECK(fails("K"));         /* names are case sensitive */
  CHECK(fails("ln2"));       /* a constant outside the contract */
  CHECK(fails("x*0 + q*0")); /* unknown even where simplification would drop it */
  CHECK(fails("cot(x)"));    /* a function outside the contract */
  CHECK(fails("erfc(x)"));
  CHECK(fails("step (x)"));
  CHECK(fails("foo(x)"));
  CHECK(fails("sin"));   /* a function without its argument */
  CHECK(fails("k(2)"));  /* a parameter used as a function */
  CHECK(fails("1e999")); /* beyond a double */
  CHECK(fails("min(x)")); /* arguments */
  CHECK(fails("if(x > 0, 1)"));
  CHECK(fails("0 < x < 1")); /* comparisons do not chain */
  CHECK(fails("x = 1"));
  CHECK(fails("x and"));
  CHECK(fails(NULL));    /* no text at all: empty */
  CHECK(fe_expr_name_reserved("x") && fe_expr_name_reserved("t"));
  CHECK(fe_expr_name_reserved("pi") && fe_expr_name_reserved("e"));
  CHECK(fe_expr_name_reserved("sqrt") && fe_expr_name_reserved("abs"));
  CHECK(fe_expr_name_reserved("erf") && fe_expr_name_reserved("floor"));
  CHECK(fe_expr_name_reserved("min") && fe_expr_name_reserved("max"));
  CHECK(fe_expr_name_reserved("atan2") && fe_expr_name_reserved("if"));
  CHECK(fe_expr_name_reserved("and") && fe_expr_name_reserved("or"));
  CHECK(!fe_expr_name_reserved("k") && !fe_expr_name_reserved("xy"));
}

/* Names outside the grammar are free for parameters. */
static void check_free_names(void)
{
  CHECK(!fe_expr_name_reserved("erfc") && !fe_expr_name_reserved("ln2") &&
        !fe_expr_name_reserved("step") && !fe_expr_name_reserved("not"));
  char *names[] = {"erfc", "ln2"};
  double values[] = {0.5, 4.0};
  const struct fe_params free_params = {2, names, values};
  struct fe_expr *e = NULL;
  CHECK_OK(fe_expr_create("erfc*x + ln2", &free_params, "f.xml", 2, "initial", &e));
  if (!e) return;
  const double p[3] = {3, 0, 0};
  CHECK(fe_expr_eval(e, p, 0) == 5.5);
  fe_expr_destroy(e);
}

/* What fe_expr_create (usable < 0) or fe_expr_constant prints for `text` on
 * stderr, read back through a file. */
static void message_of(const char *text, int usable, char *buf, size_t size)
{
  FILE *tmp = tmpfile();
  if (!tmp) abort();
  fflush(stderr);
  const int saved = dup(2);
  dup2(fileno(tmp), 2);
  struct fe_expr *e = NULL;
  double v;
  if (usable < 0)
    CHECK(fe_expr_create(text, &params, "test.xml", 3, "source", &e) == FE_ERR_INPUT && !e);
  else
    CHECK(fe_expr_constant(text, &params, usable, "test.xml", 5, "param name=\"w\"", &v) ==
          FE_ERR_INPUT);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  rewind(tmp);
  const size_t n = fread(buf, 1, size - 1, tmp);
  buf[n] = '\0';
  fclose(tmp);
  fe_expr_destroy(e);
}

static void check_message_of(const char *text, int usable, const char *expected)
{
  char got[2048];
  message_of(text, usable, got, sizeof got);
  if (strcmp(got, expected)) {
    fprintf(stderr, "message for '%.60s':\n  %s  expected:\n  %s\n", text, got, expected);
    fe_test_failures++;
  }
}

#define OPERATORS_FUNCTIONS                                                                        \
  "the operators + - * / ^ < <= > >= == != and or, and the functions sin cos tan asin acos atan "  \
  "sinh cosh tanh exp log sqrt abs floor erf min max atan2 if\n"
static void check_message(const char *text, const char *expected)
{
  check_message_of(text, -1, expected);
}

#define NAMES                                                                                      \
  "expected the variables x y z t, the parameters (k U_0), the constants pi "                      \
  "e, " OPERATORS_FUNCTIONS

/* "FILE:LINE: <element>: <what> at column C of expression '<text>'[: <detail>]; expected ...",
 * the text cut by fe_quote, and a column into the text as quoted. */
static void check_messages(void)
{
  fe_error_set_quiet(0);
  check_message("2x + y", "fesim: error: test.xml:3: <source>: syntax error at column 2 of "
                          "expression '2x + y': found 'x' after the number '2'; expected an "
                          "operator\n");
  check_message("x*w", "fesim: error: test.xml:3: <source>: unknown variable 'w' at column 3 of "
                       "expression 'x*w'; " NAMES);
  check_message("cot(x)", "fesim: error: test.xml:3: <source>: unknown function 'cot' at column 1 "
                          "of expression 'cot(x)'; " NAMES);
  check_message("x[1]", "fesim: error: test.xml:3: <source>: unexpected character '[' at column 2 "
                        "of expression 'x[1]'; " NAMES);
  check_message("  \n ", "fesim: error: test.xml:3: <source>: empty expression; " NAMES);
  check_message("\n  (x +\n   y", "fesim: error: test.xml:3: <source>: unbalanced parentheses at "
                                  "column 1 of expression '(x +    y': this '(' is never closed; "
                                  "expected ')'\n");
  check_message("min(x, y, 1)", "fesim: error: test.xml:3: <source>: wrong number of arguments at "
                                "column 1 of expression 'min(x, y, 1)': found 3 arguments to "
                                "'min'; expected 2 arguments, as in min(a, b)\n");
  check_message("if(x > 0,\n 1)", "fesim: error: test.xml:3: <source>: wrong number of arguments "
                                  "at column 1 of expression 'if(x > 0,  1)': found 2 arguments "
                                  "to 'if'; expected 3 arguments, as in if(condition, a, b)\n");
  check_message("x +\n  2y", "fesim: error: test.xml:3: <source>: syntax error at column 8 of "
                             "expression 'x +   2y': found 'y' after the number '2'; expected an "
                             "operator\n");
  /* a long text: cut to its start and end, with its length, the column still exact */
  char *text = malloc(400001), quoted[FE_QUOTE_SIZE], expected[1024];
  if (!text) abort();
  for (int i = 0; i < 199999; i++) memcpy(text + 2 * i, "x+", 2);
  memcpy(text + 399998, "2x", 3);
  fe_quote(text, FE_QUOTE_MAX, quoted, sizeof quoted);
  snprintf(expected, sizeof expected,
           "fesim: error: test.xml:3: <source>: syntax error at column 400000 of expression %s: "
           "found 'x' after the number '2'; expected an operator\n",
           quoted);
  check_message(text, expected);
  CHECK(strstr(expected, "...") && strstr(expected, "(400000 characters)"));
  text[399999] = '\0'; /* x+x+...+x+2: 400 KB, too long for the machine */
  fe_quote(text, FE_QUOTE_MAX, quoted, sizeof quoted);
  snprintf(expected, sizeof expected,
           "fesim: error: test.xml:3: <source>: too many instructions in expression %s: it needs "
           "399999 instructions after folding constants; expected at most 192\n",
           quoted);
  check_message(text, expected);
  free(text);
  fe_error_set_quiet(1);
}

/* A parameter's value, from the parameters above it; what is refused, and why. */
static void check_constants(void)
{
  double v = 0;
  CHECK_OK(fe_expr_constant("2*pi", &params, 0, "c.xml", 4, "param name=\"w\"", &v));
  CHECK(v == 2 * PI);
  CHECK_OK(
      fe_expr_constant("\n  k*4 + if(U_0 < 0, -U_0, 0)\n", &params, 2, "c.xml", 4, "param", &v));
  CHECK(v == 4);
  fe_error_set_quiet(0);
  check_message_of("2*x", 2,
                   "fesim: error: test.xml:5: <param name=\"w\">: variable 'x' in a parameter at "
                   "column 3 of expression '2*x': a parameter is one number, evaluated when the "
                   "case is read; expected numbers, the constants pi e, the parameters defined "
                   "above it (k U_0), " OPERATORS_FUNCTIONS);
  check_message_of("k + U_0", 1,
                   "fesim: error: test.xml:5: <param name=\"w\">: parameter 'U_0' used before its "
                   "definition at column 5 of expression 'k + U_0': a parameter may use only the "
                   "parameters defined above it; expected numbers, the constants pi e, the "
                   "parameters defined above it (k), " OPERATORS_FUNCTIONS);
  check_message_of("k", 0,
                   "fesim: error: test.xml:5: <param name=\"w\">: parameter 'k' used before its "
                   "definition at column 1 of expression 'k': a parameter may use only the "
                   "parameters defined above it; expected numbers, the constants pi e, the "
                   "parameters defined above it (none defined), " OPERATORS_FUNCTIONS);
  check_message_of(" 1/(k - 0.25) ", 2,
                   "fesim: error: test.xml:5: <param name=\"w\">: expression '1/(k - 0.25)' is "
                   "inf; expected a finite value\n");
  check_message_of("log(-k)", 2,
                   "fesim: error: test.xml:5: <param name=\"w\">: expression 'log(-k)' is nan; "
                   "expected a finite value\n");
  check_message_of("min(k)", 2,
                   "fesim: error: test.xml:5: <param name=\"w\">: wrong number of arguments at "
                   "column 1 of expression 'min(k)': found 1 argument to 'min'; expected 2 "
                   "arguments, as in min(a, b)\n");
  fe_error_set_quiet(1);
}

int main(void)
{
  check_values();
  check_reuse();
  check_dependencies();
  check_free_names();
  fe_error_set_quiet(1); /* the error cases would print their messages */
  check_errors();
  check_messages();
  check_constants();
  fe_error_set_quiet(0);
  fe_expr_destroy(NULL);
  TEST_DONE();
}
