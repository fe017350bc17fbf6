/* Reference tensors (exact integration) against Gauss quadrature on the
 * reference simplex (collapsed coordinates). */
#include "assembly/reference.h"
#include "test.h"

/* 5-point Gauss-Legendre on [0,1]: exact for degree 9 */
static const double gx[5] = {0.04691007703066800, 0.23076534494715845, 0.5, 0.76923465505284155,
                             0.95308992296933200};
static const double gw[5] = {0.11846344252809454, 0.23931433524968324, 0.28444444444444444,
                             0.23931433524968324, 0.11846344252809454};

/* Integral over the reference simplex of f(lambda) by the Duffy transform. */
static double quad(int d, double (*f)(const double lam[4], const void *), const void *ctx)
{
  double sum = 0;
  for (int a = 0; a < 5; a++)
    for (int b = 0; b < 5; b++)
      for (int c = 0; c < (d == 3 ? 5 : 1); c++) {
        double u = gx[a], v = gx[b], w = d == 3 ? gx[c] : 0;
        double xi[3], jac;
        if (d == 2) {
          xi[0] = u;
          xi[1] = v * (1 - u);
          jac = (1 - u) * gw[a] * gw[b];
        } else {
          xi[0] = u;
          xi[1] = v * (1 - u);
          xi[2] = w * (1 - u) * (1 - v);
          jac = (1 - u) * (1 - u) * (1 - v) * gw[a] * gw[b] * gw[c];
        }
        double lam[4] = {1, 0, 0, 0};
        for (int k = 0; k < d; k++) {
          lam[k + 1] = xi[k];
          lam[0] -= xi[k];
        }
        sum += jac * f(lam, ctx);
      }
  return sum;
}

struct idx {
  int i, j, k;
};

static double f_pair(const double lam[4], const void *ctx)
{
  const struct idx *p = ctx;
  return lam[p->i] * lam[p->j];
}

static double f_triple(const double lam[4], const void *ctx)
{
  const struct idx *p = ctx;
  return lam[p->i] * lam[p->j] * lam[p->k];
}

/* grad lambda_i . G grad lambda_j for the barycentric basis (lambda_0 = 1 - sum xi, lambda_i =
 * xi_{i-1}), a constant, from its own definition of the gradients */
struct form {
  int d, i, j;
  double g[3][3];
};

static double barycentric_grad(int i, int mu) { return (i == mu + 1) - (i == 0); }

static double f_stiffness(const double lam[4], const void *ctx)
{
  (void)lam;
  const struct form *f = ctx;
  double s = 0;
  for (int mu = 0; mu < f->d; mu++)
    for (int nu = 0; nu < f->d; nu++)
      s += barycentric_grad(f->i, mu) * f->g[mu][nu] * barycentric_grad(f->j, nu);
  return s;
}

static double f_one(const double lam[4], const void *ctx)
{
  (void)lam;
  (void)ctx;
  return 1;
}

static void check_dim(int d)
{
  struct fe_reference ref;
  fe_reference_init(d, &ref);
  const int nv = d + 1;
  CHECK_CLOSE(ref.volume, quad(d, f_one, NULL), 1e-14);
  for (int i = 0; i < nv; i++)
    for (int j = 0; j < nv; j++) {
      struct idx p = {i, j, 0};
      CHECK_CLOSE(ref.mass[i * nv + j], quad(d, f_pair, &p), 1e-14);
      double row = 0;
      for (int k = 0; k < nv; k++) row += ref.mass[i * nv + k];
      CHECK_CLOSE(ref.lumped[i * nv + j], i == j ? row : 0, 1e-15);
      /* G : K^ij from the symmetric weights, for a symmetric G (fe_sym_expand's order), is
       * int grad phi_i . G grad phi_j: each unit G on the diagonal, each pair off it */
      for (int mu = 0, g = 0; mu < d; mu++)
        for (int nu = mu; nu < d; nu++, g++) {
          struct form f = {.d = d, .i = i, .j = j};
          f.g[mu][nu] = f.g[nu][mu] = 1;
          CHECK_CLOSE(ref.stiffness_sym[i * nv + j][g], quad(d, f_stiffness, &f), 1e-14);
        }
      for (int mu = 0; mu < d; mu++) {
        for (int k = 0; k < nv; k++) {
          struct idx q = {i, k, 0};
          CHECK_CLOSE(ref.advection[i * nv + j][k * d + mu], quad(d, f_pair, &q) * ref.grad[j][mu], 1e-14);
        }
      }
    }
  /* the monomial formula itself, on a cubic */
  for (int i = 0; i < nv; i++) {
    struct idx p = {i, (i + 1) % nv, (i + 1) % nv};
    int a[4] = {0, 0, 0, 0};
    a[p.i]++;
    a[p.j]++;
    a[p.k]++;
    CHECK_CLOSE(fe_reference_monomial(d, a), quad(d, f_triple, &p), 1e-14);
  }
  /* gradients of the barycentric basis sum to zero */
  for (int mu = 0; mu < d; mu++) {
    double s = 0;
    for (int i = 0; i < nv; i++) s += ref.grad[i][mu];
    CHECK_CLOSE(s, 0, 1e-15);
  }
}

int main(void)
{
  check_dim(2);
  check_dim(3);
  TEST_DONE();
}
