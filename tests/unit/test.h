/* A minimal test harness: each test program runs its checks and exits 0 when
 * all passed, 77 (CTest SKIP_RETURN_CODE) when it cannot run here, 1 otherwise. */
#ifndef FE_TEST_H
#define FE_TEST_H

#include <math.h>
#include <stdio.h>

static int fe_test_failures __attribute__((unused));

#define TEST_SKIP 77

#define CHECK(cond)                                                                \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);     \
      fe_test_failures++;                                                          \
    }                                                                              \
  } while (0)

/* |a - b| <= tol * max(1, |b|) */
#define CHECK_CLOSE(a, b, tol)                                                     \
  do {                                                                             \
    double ta_ = (a), tb_ = (b);                                                   \
    double sc_ = fabs(tb_) > 1 ? fabs(tb_) : 1;                                    \
    if (!(fabs(ta_ - tb_) <= (tol) * sc_)) {                                       \
      fprintf(stderr, "%s:%d: %s = %.17g, expected %s = %.17g (tol %g)\n", __FILE__, \
              __LINE__, #a, ta_, #b, tb_, (double)(tol));                          \
      fe_test_failures++;                                                          \
    }                                                                              \
  } while (0)

#define CHECK_OK(expr) CHECK((expr) == 0)

/* max |x - y| / max |y| (max |x - y| where y is 0) */
static inline double test_relative_difference(const double *x, const double *y, size_t n)
{
  double d = 0, s = 0;
  for (size_t i = 0; i < n; i++) {
    d = fmax(d, fabs(x[i] - y[i]));
    s = fmax(s, fabs(y[i]));
  }
  return s > 0 ? d / s : d;
}

#define TEST_DONE()                                                                \
  do {                                                                             \
    if (fe_test_failures) fprintf(stderr, "%d check(s) failed\n", fe_test_failures); \
    return fe_test_failures ? 1 : 0;                                               \
  } while (0)

#endif
