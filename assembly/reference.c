#include "assembly/reference.h"

#include <string.h>

static double factorial(int n)
{
  double f = 1;
  for (int i = 2; i <= n; i++) f *= i;
  return f;
}

double fe_reference_monomial(int d, const int a[4])
{
  double num = 1;
  int sum = 0;
  for (int i = 0; i < d + 1; i++) {
    num *= factorial(a[i]);
    sum += a[i];
  }
  return num / factorial(d + sum);
}

/* int phi_i phi_k over the reference simplex (phi = barycentric lambda). */
static double integral_pair(int d, int i, int k)
{
  int a[4] = {0, 0, 0, 0};
  a[i]++;
  a[k]++;
  return fe_reference_monomial(d, a);
}

void fe_reference_init(int d, struct fe_reference *ref)
{
  const int nv = d + 1;
  const int zero[4] = {0, 0, 0, 0};
  memset(ref, 0, sizeof *ref);
  ref->d = d;
  ref->volume = fe_reference_monomial(d, zero);
  for (int mu = 0; mu < d; mu++) {
    ref->grad[0][mu] = -1; /* lambda_0 = 1 - sum xi */
    ref->grad[mu + 1][mu] = 1;
  }
  for (int i = 0; i < nv; i++)
    for (int j = 0; j < nv; j++) {
      const int k = i * nv + j;
      ref->mass[k] = integral_pair(d, i, j);
      ref->lumped[i * nv + i] += ref->mass[k];
      for (int mu = 0, g = 0; mu < d; mu++)
        for (int nu = mu; nu < d; nu++, g++) { /* K^ij_{mu nu} = grad_i,mu grad_j,nu |ref| */
          const double k_mu_nu = ref->grad[i][mu] * ref->grad[j][nu] * ref->volume;
          ref->stiffness_sym[k][g] =
              nu > mu ? k_mu_nu + ref->grad[i][nu] * ref->grad[j][mu] * ref->volume : k_mu_nu;
        }
      for (int v = 0; v < nv; v++)
        for (int mu = 0; mu < d; mu++)
          ref->advection[k][v * d + mu] = integral_pair(d, i, v) * ref->grad[j][mu];
    }
}
