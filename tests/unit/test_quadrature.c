/* The loads' quadrature rules (assembly/quadrature.h) on the segment, triangle and
 * tetrahedron: positive weights summing to 1, points inside the simplex, every monomial of
 * the barycentric coordinates up to the rule's degree integrated exactly (against
 * fe_reference_monomial) and one of the next degree not, and fe_quadrature_point mapping the
 * rule onto a physical simplex (the unit square and cube, cut into triangles and Kuhn's
 * tetrahedra, integrate x^a y^b z^c exactly up to degree 5). */
#include <math.h>
#include <stdio.h>

#include "assembly/quadrature.h"
#include "assembly/reference.h"
#include "test.h"

static double factorial(int n) { return n < 2 ? 1 : n * factorial(n - 1); }

/* sum_q w_q prod_v lambda_v^a_v: the rule's mean of the monomial over the simplex */
static double rule_mean(const struct fe_quadrature *q, const int a[4])
{
  double sum = 0;
  for (int k = 0; k < q->n; k++) {
    double v = q->w[k];
    for (int i = 0; i < q->dim + 1; i++) v *= pow(q->lambda[k][i], a[i]);
    sum += v;
  }
  return sum;
}

/* Every exponent vector of dim + 1 entries with sum `degree`; returns the largest relative
 * error of the rule over them. */
static double worst_of_degree(const struct fe_quadrature *q, int degree)
{
  double worst = 0;
  int a[4] = {0, 0, 0, 0};
  const int nv = q->dim + 1;
  for (int code = 0; code < 8 * 8 * 8 * 8; code++) {
    int sum = 0;
    for (int i = 0; i < 4; i++) {
      a[i] = i < nv ? (code >> (3 * i)) & 7 : 0;
      sum += a[i];
    }
    if (sum != degree) continue;
    const double exact = factorial(q->dim) * fe_reference_monomial(q->dim, a);
    const double err = fabs(rule_mean(q, a) - exact) / exact;
    worst = err > worst ? err : worst;
  }
  return worst;
}

static void check_rule(int dim, int points)
{
  struct fe_quadrature q;
  fe_quadrature_simplex(dim, &q);
  CHECK(q.dim == dim && q.n == points && q.degree >= 4 && q.n <= FE_QUADRATURE_MAX);
  double wsum = 0;
  for (int k = 0; k < q.n; k++) {
    double lsum = 0;
    CHECK(q.w[k] > 0);
    wsum += q.w[k];
    for (int v = 0; v < dim + 1; v++) {
      CHECK(q.lambda[k][v] > 0 && q.lambda[k][v] < 1);
      lsum += q.lambda[k][v];
    }
    for (int v = dim + 1; v < 4; v++) CHECK(q.lambda[k][v] == 0);
    CHECK_CLOSE(lsum, 1, 1e-15);
  }
  CHECK_CLOSE(wsum, 1, 1e-15);
  for (int p = 0; p <= q.degree; p++) {
    const double worst = worst_of_degree(&q, p);
    if (worst > 1e-14) fprintf(stderr, "dim %d degree %d: relative error %.3g\n", dim, p, worst);
    CHECK(worst <= 1e-14);
  }
  CHECK(worst_of_degree(&q, q.degree + 1) > 1e-6); /* the degree is the rule's, not more */
}

/* int over the unit square (2 triangles) or cube (Kuhn's 6 tetrahedra) of x^a y^b z^c by the
 * rule at physical points, against 1 / ((a + 1) (b + 1) (c + 1)). */
static void check_mapped(int dim)
{
  static const double square[2][3][2] = {{{0, 0}, {1, 0}, {1, 1}}, {{0, 0}, {1, 1}, {0, 1}}};
  struct fe_quadrature q;
  fe_quadrature_simplex(dim, &q);
  for (int a = 0; a <= 5; a++)
    for (int b = 0; a + b <= 5; b++)
      for (int c = 0; a + b + c <= 5 && (dim == 3 || c == 0); c++) {
        double sum = 0;
        const int pieces = dim == 2 ? 2 : 6;
        for (int s = 0; s < pieces; s++) {
          double x[4][3] = {{0}};
          if (dim == 2) {
            for (int v = 0; v < 3; v++)
              for (int k = 0; k < 2; k++) x[v][k] = square[s][v][k];
          } else { /* the path 0 -> e_i -> e_i + e_j -> (1, 1, 1), (i j l) the s-th permutation */
            static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                           {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
            for (int v = 1; v < 4; v++) {
              for (int k = 0; k < 3; k++) x[v][k] = x[v - 1][k];
              x[v][perm[s][v - 1]] = 1;
            }
          }
          const double measure = dim == 2 ? 0.5 : 1.0 / 6;
          for (int k = 0; k < q.n; k++) {
            double p[3];
            fe_quadrature_point(&q, k, dim, x, p);
            sum += measure * q.w[k] * pow(p[0], a) * pow(p[1], b) * (dim == 3 ? pow(p[2], c) : 1);
          }
        }
        CHECK_CLOSE(sum, 1.0 / ((a + 1) * (b + 1) * (c + 1)), 1e-14);
      }
}

int main(void)
{
  check_rule(1, 3);
  check_rule(2, 7);
  check_rule(3, 14);
  check_mapped(2);
  check_mapped(3);
  TEST_DONE();
}
