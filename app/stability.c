#include "app/stability.h"

#include <complex.h>
#include <math.h>

enum { MODES = 512, XIS = 21 };

/* Whether RK4 at Courant number c is stable for every mode of the scheme with this xi. */
static int stable(double c, int lumped, double xi)
{
  for (int k = 1; k <= MODES; k++) {
    const double th = 3.14159265358979323846 * k / MODES;
    const double complex m = (lumped ? 1.0 : (2 + cos(th)) / 3) - I * xi * sin(th) / 2;
    const double complex z = -c * (I * sin(th) + xi * (1 - cos(th))) / m;
    const double complex r = 1 + z * (1 + z * (0.5 + z * (1.0 / 6 + z / 24)));
    if (cabs(r) > 1 + 1e-12) return 0;
  }
  return 1;
}

/* The first loss of stability in steps of 0.01, then bisected to 1e-6. */
static double limit(int lumped, double xi)
{
  double lo = 0;
  while (lo < 10 && stable(lo + 0.01, lumped, xi)) lo += 0.01;
  double hi = lo + 0.01;
  while (hi - lo > 1e-6) {
    const double mid = 0.5 * (lo + hi);
    if (stable(mid, lumped, xi))
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

double fe_rk4_stable_courant(int lumped, double xi_max)
{
  double best = limit(lumped, 0);
  for (int k = 1; xi_max > 0 && k < XIS; k++) {
    const double c = limit(lumped, xi_max * k / (XIS - 1));
    best = c < best ? c : best;
  }
  return best;
}
