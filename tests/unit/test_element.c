/* Element matrices by tensor contraction against matrices computed by hand:
 * reference, rotated, stretched and anisotropic cells, 2D and 3D. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "assembly/reference.h"
#include "io/case.h"
#include "test.h"

static const struct fe_form MASS = {.mass = 1}, LUMPED = {.mass = 1, .lumped = 1}, DIFF = {.diffusion = 1},
                            ADV = {.advection = 1};

/* Element matrix of one cell given by its vertices, diffusivity and velocity. */
static void element(int d, const double x[4][3], const double *dsym, const double u[4][3],
                    const struct fe_form *form, double e[16])
{
  struct fe_reference ref;
  fe_reference_init(d, &ref);
  int cells[4] = {0, 1, 2, 3};
  double coords[12], vel[12], diff[6] = {0};
  for (int v = 0; v < d + 1; v++)
    for (int a = 0; a < d; a++) {
      coords[v * d + a] = x[v][a];
      vel[v * d + a] = u ? u[v][a] : 0;
    }
  if (dsym) memcpy(diff, dsym, sizeof(double) * FE_NSYM(d));
  fe_cell_matrix(d, &ref, form, cells, coords, diff, vel, 0, e);
}

static void check_matrix(int nv, const double *e, const double *expect, double scale, double tol)
{
  for (int k = 0; k < nv * nv; k++) CHECK_CLOSE(e[k], expect[k] * scale, tol);
}

static void reference_triangle(void)
{
  const double x[4][3] = {{0, 0}, {1, 0}, {0, 1}};
  const double iso[3] = {1, 0, 1};
  double e[16];
  const double k[9] = {2, -1, -1, -1, 1, 0, -1, 0, 1};
  element(2, x, iso, NULL, &DIFF, e);
  check_matrix(3, e, k, 0.5, 1e-15);
  const double m[9] = {2, 1, 1, 1, 2, 1, 1, 1, 2};
  element(2, x, NULL, NULL, &MASS, e);
  check_matrix(3, e, m, 1.0 / 24, 1e-15);
  const double l[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  element(2, x, NULL, NULL, &LUMPED, e);
  check_matrix(3, e, l, 1.0 / 6, 1e-15);
  /* u = (1, 0): E_ij = int phi_i dphi_j/dx = (1/6) (-1, 1, 0)_j */
  const double u[4][3] = {{1, 0}, {1, 0}, {1, 0}};
  const double a[9] = {-1, 1, 0, -1, 1, 0, -1, 1, 0};
  element(2, x, NULL, u, &ADV, e);
  check_matrix(3, e, a, 1.0 / 6, 1e-15);
}

/* Right triangle with legs a, b and diffusivity diag(dx, dy). */
static void stretched_anisotropic(void)
{
  const double a = 3.0, b = 0.25, dx = 2.0, dy = 0.1;
  const double x[4][3] = {{0, 0}, {a, 0}, {0, b}};
  const double dsym[3] = {dx, 0, dy};
  const double k[9] = {dx * b / (2 * a) + dy * a / (2 * b), -dx * b / (2 * a), -dy * a / (2 * b),
                       -dx * b / (2 * a), dx * b / (2 * a), 0,
                       -dy * a / (2 * b), 0, dy * a / (2 * b)};
  double e[16];
  element(2, x, dsym, NULL, &DIFF, e);
  check_matrix(3, e, k, 1.0, 1e-14);
  /* rotating the cell and the tensor together leaves the matrix unchanged */
  const double th = 0.7, c = cos(th), s = sin(th);
  double xr[4][3] = {{0}};
  for (int v = 0; v < 3; v++) {
    xr[v][0] = 1.5 + c * x[v][0] - s * x[v][1];
    xr[v][1] = -0.5 + s * x[v][0] + c * x[v][1];
  }
  /* D' = R D R^T */
  const double drot[3] = {c * c * dx + s * s * dy, c * s * (dx - dy), s * s * dx + c * c * dy};
  double er[16];
  element(2, xr, drot, NULL, &DIFF, er);
  check_matrix(3, er, k, 1.0, 1e-13);
  /* an isotropic tensor is unchanged by rotation, so the same cell rotated
   * without rotating D = I gives the reference stiffness of the stretched cell */
  const double iso[3] = {1, 0, 1};
  element(2, x, iso, NULL, &DIFF, e);
  element(2, xr, iso, NULL, &DIFF, er);
  check_matrix(3, er, e, 1.0, 1e-13);
  /* mass scales with the area ab/2 */
  const double m[9] = {2, 1, 1, 1, 2, 1, 1, 1, 2};
  element(2, xr, NULL, NULL, &MASS, e);
  check_matrix(3, e, m, a * b / 2 / 12, 1e-15);
}

static void reference_tetrahedron(void)
{
  const double x[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const double iso[6] = {1, 0, 0, 1, 0, 1};
  double e[16];
  const double k[16] = {3, -1, -1, -1, -1, 1, 0, 0, -1, 0, 1, 0, -1, 0, 0, 1};
  element(3, x, iso, NULL, &DIFF, e);
  check_matrix(4, e, k, 1.0 / 6, 1e-15);
  const double m[16] = {2, 1, 1, 1, 1, 2, 1, 1, 1, 1, 2, 1, 1, 1, 1, 2};
  element(3, x, NULL, NULL, &MASS, e);
  check_matrix(4, e, m, 1.0 / 120, 1e-16);
  /* u = (0, 0, 2): E_ij = (1/24) * 2 * dphi_j/dz = (1/12) (-1, 0, 0, 1)_j */
  const double u[4][3] = {{0, 0, 2}, {0, 0, 2}, {0, 0, 2}, {0, 0, 2}};
  const double a[16] = {-1, 0, 0, 1, -1, 0, 0, 1, -1, 0, 0, 1, -1, 0, 0, 1};
  element(3, x, NULL, u, &ADV, e);
  check_matrix(4, e, a, 1.0 / 12, 1e-15);
}

/* Box-corner tetrahedron with edges a, b, c along the axes and an anisotropic
 * diagonal tensor: K_ij = V grad phi_i . D grad phi_j, V = abc/6. */
static void stretched_tetrahedron(void)
{
  const double a = 2, b = 0.5, c = 0.1, d[3] = {1.0, 3.0, 0.2};
  const double x[4][3] = {{0, 0, 0}, {a, 0, 0}, {0, b, 0}, {0, 0, c}};
  const double dsym[6] = {d[0], 0, 0, d[1], 0, d[2]};
  const double g[4][3] = {{-1 / a, -1 / b, -1 / c}, {1 / a, 0, 0}, {0, 1 / b, 0}, {0, 0, 1 / c}};
  double k[16], e[16];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) {
      k[i * 4 + j] = 0;
      for (int s = 0; s < 3; s++) k[i * 4 + j] += a * b * c / 6 * g[i][s] * d[s] * g[j][s];
    }
  element(3, x, dsym, NULL, &DIFF, e);
  check_matrix(4, e, k, 1.0, 1e-13);
  /* a P1 velocity: rows of the advection matrix sum to zero (u.grad 1 = 0),
   * and its entries are linear in u */
  const double u[4][3] = {{1, 2, 3}, {-1, 0.5, 2}, {0.3, -2, 1}, {4, 1, -1}};
  double u2[4][3], e2[16];
  element(3, x, NULL, u, &ADV, e);
  for (int v = 0; v < 4; v++)
    for (int s = 0; s < 3; s++) u2[v][s] = 2 * u[v][s];
  element(3, x, NULL, u2, &ADV, e2);
  for (int i = 0; i < 4; i++) {
    double row = 0;
    for (int j = 0; j < 4; j++) {
      row += e[i * 4 + j];
      CHECK_CLOSE(e2[i * 4 + j], 2 * e[i * 4 + j], 1e-14);
    }
    CHECK_CLOSE(row, 0, 1e-14);
  }
  /* sum_ij E_ij u-weighted: 1^T E x = int u.grad x_h; for x = z: int u_z = V * mean(u_z) */
  double s = 0;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) s += e[i * 4 + j] * x[j][2];
  CHECK_CLOSE(s, a * b * c / 6 * (3 + 2 + 1 - 1) / 4.0, 1e-14);
}

static void dirichlet_masking(void)
{
  /* vertex 1 Dirichlet and owned, vertex 2 Dirichlet not owned */
  unsigned dmask = (1u << 1) | (1u << 2) | (1u << 5);
  CHECK(fe_dirichlet_entry(0, 0, dmask, 7.0) == 7.0);
  CHECK(fe_dirichlet_entry(0, 1, dmask, 7.0) == 0.0);
  CHECK(fe_dirichlet_entry(1, 0, dmask, 7.0) == 0.0);
  CHECK(fe_dirichlet_entry(1, 1, dmask, 7.0) == 1.0);
  CHECK(fe_dirichlet_entry(2, 2, dmask, 7.0) == 0.0);
  /* the blocked layout: for every width, a bijection of (cell, entry) onto the storage */
  for (int shift = 0; shift <= FE_BLOCK_SHIFT_MAX; shift++) {
    const long b = 1L << shift, n = 3 * b + 5, len = fe_blocked_cells(n, shift) * 9;
    CHECK(fe_blocked_cells(n, shift) % b == 0 && fe_blocked_cells(n, shift) >= n);
    CHECK(fe_block_index(0, 1, 9, shift) == b && fe_block_index(b, 0, 9, shift) == 9 * b);
    unsigned char *seen = calloc((size_t)len, 1);
    for (long c = 0; c < n; c++)
      for (int k = 0; k < 9; k++) {
        const long i = fe_block_index(c, k, 9, shift);
        CHECK(i >= 0 && i < len && !seen[i]);
        if (i >= 0 && i < len) seen[i] = 1;
        if (c + 1 < n && (c + 1) % b) CHECK(fe_block_index(c + 1, k, 9, shift) == i + 1); /* coalesced */
      }
    free(seen);
  }
}

/* The absorption term is the mass matrix weighted by the cell's rate: a M + e lambda_c M, and
 * lumped with the mass; the matrix-free product applies the same matrix. */
static void absorption(void)
{
  const double x[4][3] = {{0, 0}, {1, 0}, {0, 1}};
  const double m[9] = {2, 1, 1, 1, 2, 1, 1, 1, 2}, lumped[9] = {4, 0, 0, 0, 4, 0, 0, 0, 4};
  const double lambda[2] = {7.0, 3.0};
  struct fe_form form = {.mass = 0.5, .absorption = 2.0, .lambda = lambda + 1};
  double e[16];
  element(2, x, NULL, NULL, &form, e);
  check_matrix(3, e, m, (0.5 + 2.0 * 3.0) / 24, 1e-15);
  form.uniform_lambda = 1;
  form.lambda = lambda;
  form.lumped = 1;
  element(2, x, NULL, NULL, &form, e);
  check_matrix(3, e, lumped, (0.5 + 2.0 * 7.0) / 24, 1e-15);
  struct fe_reference ref;
  fe_reference_init(2, &ref);
  const int cells[3] = {0, 1, 2};
  const double coords[6] = {0, 0, 1, 0, 0, 1}, xv[3] = {1.0, -2.0, 0.5};
  double y[4];
  form.lumped = 0;
  fe_cell_matfree_product(2, 0, &ref, &form, cells, coords, NULL, NULL, 0, xv, 0, y);
  for (int i = 0; i < 3; i++) {
    double expect = 0;
    for (int j = 0; j < 3; j++) expect += m[i * 3 + j] * (0.5 + 2.0 * 7.0) / 24 * xv[j];
    CHECK_CLOSE(y[i], expect, 1e-15);
  }
  /* the symmetric form's product without its velocity terms: the same bits */
  double ys[4];
  fe_cell_matfree_product(2, 1, &ref, &form, cells, coords, NULL, NULL, 0, xv, 0, ys);
  for (int i = 0; i < 3; i++) CHECK(ys[i] == y[i]);
}

/* ---- SUPG (assembly/element.h, Fluidity's Upwind_Stabilisation.F90) */

static void supg_xi(void)
{
  const int opt = FE_NU_BAR_OPTIMAL, da = FE_NU_BAR_DOUBLY_ASYMPTOTIC, cr = FE_NU_BAR_CRITICAL_RULE,
            un = FE_NU_BAR_UNITY;
  CHECK_CLOSE(fe_supg_xi(opt, 2.0), 1 / tanh(2.0) - 0.5, 1e-15);
  CHECK_CLOSE(fe_supg_xi(opt, 0.3), 1 / tanh(0.3) - 1 / 0.3, 1e-14);
  CHECK_CLOSE(fe_supg_xi(opt, 20.0), 1 - 1 / 20.0, 1e-15);
  /* the series below 0.1 against coth - 1/p in long double, either side of the switch */
  const double ps[3] = {0.0999, 0.1001, 0.05};
  for (int k = 0; k < 3; k++) {
    const long double p = ps[k], exact = 1 / tanhl(p) - 1 / p;
    CHECK(fabs(fe_supg_xi(opt, ps[k]) - (double)exact) <= 5e-14 * (double)exact);
  }
  CHECK_CLOSE(fe_supg_xi(opt, 1e-6), 1e-6 / 3 - 1e-18 / 45, 1e-15);
  CHECK(fe_supg_xi(opt, 0) == 0);
  CHECK_CLOSE(fe_supg_xi(da, 1.5), 0.5, 1e-15);
  CHECK_CLOSE(fe_supg_xi(da, 4.0), 1.0, 1e-15);
  CHECK_CLOSE(fe_supg_xi(cr, 0.5), 0.0, 1e-15);
  CHECK_CLOSE(fe_supg_xi(cr, 2.0), 0.5, 1e-15);
  CHECK_CLOSE(fe_supg_xi(un, 0.1), 1.0, 1e-15);
  for (int nb = 0; nb < 4; nb++) /* odd in Pe */
    for (double p = 0.25; p < 30; p *= 1.7) CHECK(fe_supg_xi(nb, -p) == -fe_supg_xi(nb, p));
}

/* 1D-like cells: tau = xi(Pe) h / (2 |u|) with Pe = |u| h / (2 k) (Donea & Huerta eq. 2.49),
 * whichever vertex the flow leaves from; no diffusivity: xi = 1. */
static void supg_tau(void)
{
  const double h = 0.1, k = 0.05;
  const struct fe_form form = {.supg = 0.5, .nu_bar = FE_NU_BAR_OPTIMAL};
  const double a[4][3] = {{0, 0}, {h, 0}, {0, h}}, b[4][3] = {{h, h}, {0, h}, {h, 0}};
  const double u1[4][3] = {{1, 0}, {1, 0}, {1, 0}}, u2[4][3] = {{2, 0}, {2, 0}, {2, 0}};
  const double iso[3] = {k, 0, k}, aniso[3] = {k, 0, 7.0}, none[3] = {0, 0, 0};
  const double xi1 = fe_supg_xi(0, 1.0), xi2 = fe_supg_xi(0, 2.0);
  CHECK_CLOSE(fe_supg_tau(2, &form, a, u1, iso), xi1 * h / 2, 1e-15);
  CHECK_CLOSE(fe_supg_tau(2, &form, b, u1, iso), xi1 * h / 2, 1e-15);
  CHECK_CLOSE(fe_supg_tau(2, &form, a, u1, aniso), xi1 * h / 2, 1e-15); /* k along the flow */
  CHECK_CLOSE(fe_supg_tau(2, &form, a, u2, iso), xi2 * h / 4, 1e-15);
  CHECK_CLOSE(fe_supg_tau(2, &form, a, u2, none), h / 4, 1e-15);
  const double still[4][3] = {{0, 0}, {0, 0}, {0, 0}};
  CHECK(fe_supg_tau(2, &form, a, still, iso) == 0);
  const struct fe_form scaled = {.supg = 1.0, .nu_bar = FE_NU_BAR_UNITY};
  CHECK_CLOSE(fe_supg_tau(2, &scaled, a, u1, iso), h, 1e-15);
}

/* Gradients of the barycentric coordinates of a cell. */
static void barycentric_gradients(int d, const double x[4][3], double g[4][3])
{
  double jinv[3][3];
  fe_geometry(d, x, jinv);
  for (int a = 0; a < d; a++) {
    g[0][a] = 0;
    for (int mu = 0; mu < d; mu++) {
      g[mu + 1][a] = jinv[mu][a];
      g[0][a] -= jinv[mu][a];
    }
  }
}

/* The element matrix of mass, diffusion and advection, Galerkin and SUPG, with and without
 * the conservative form's beta (int phi_i (div u) phi_j, tested with N_i + tau u . grad N_i
 * too), by quadrature exact for quadratics (edge midpoints of a triangle, the 4-point rule of
 * a tetrahedron), against the tensor contractions and the matrix-free product, consistent and
 * lumped. */
static void advection_quadrature(int d, double supg, double beta)
{
  const double x2[4][3] = {{0.1, 0.2}, {1.3, 0.4}, {0.5, 1.1}};
  const double x3[4][3] = {{0.1, 0.2, 0.0}, {1.2, 0.3, 0.1}, {0.4, 1.1, 0.2}, {0.3, 0.4, 0.9}};
  const double u[4][3] = {{1.0, 0.3, -0.2}, {0.7, 0.5, 0.1}, {1.2, -0.1, 0.3}, {0.9, 0.2, 0.4}};
  const double dsym2[3] = {0.03, 0.01, 0.02}, dsym3[6] = {0.03, 0.01, 0.0, 0.02, 0.005, 0.04};
  const double(*x)[3] = d == 2 ? x2 : x3;
  const double *dsym = d == 2 ? dsym2 : dsym3;
  const int nv = d + 1;
  double g[4][3], jinv[3][3];
  barycentric_gradients(d, x, g);
  const double det = fe_geometry(d, x, jinv), vol = fabs(det) / (d == 2 ? 2 : 6);
  /* quadrature points in barycentric coordinates, equal weights */
  double q[4][4];
  const int nq = d == 2 ? 3 : 4;
  const double qa = 0.5854101966249685, qb = 0.1381966011250105;
  for (int p = 0; p < nq; p++)
    for (int v = 0; v < nv; v++) q[p][v] = d == 2 ? (v == p ? 0.0 : 0.5) : (v == p ? qa : qb);
  double div = 0;
  for (int v = 0; v < nv; v++)
    for (int a = 0; a < d; a++) div += u[v][a] * g[v][a];
  CHECK(fabs(div) > 0.1);
  for (int lumped = 0; lumped < 2; lumped++) {
    const struct fe_form form = {.mass = 0.7,
                                 .lumped = lumped,
                                 .diffusion = 0.3,
                                 .advection = -1.3,
                                 .conservative = beta,
                                 .supg = supg,
                                 .nu_bar = FE_NU_BAR_OPTIMAL};
    const double tau = fe_supg_tau(d, &form, x, u, dsym),
                 w = form.mass + form.advection * beta * div;
    CHECK(supg == 0 ? tau == 0 : tau > 0);
    double dm[3][3];
    fe_sym_expand(d, dsym, dm);
    double expect[16] = {0};
    for (int i = 0; i < nv; i++)
      for (int j = 0; j < nv; j++) {
        double mass = 0, supg_mass = 0, adv = 0, stream = 0, diff = 0;
        for (int p = 0; p < nq; p++) {
          double up[3] = {0, 0, 0};
          for (int v = 0; v < nv; v++)
            for (int a = 0; a < d; a++) up[a] += q[p][v] * u[v][a];
          double ugi = 0, ugj = 0;
          for (int a = 0; a < d; a++) {
            ugi += up[a] * g[i][a];
            ugj += up[a] * g[j][a];
          }
          mass += q[p][i] * q[p][j] / nq;
          supg_mass += tau * ugi * q[p][j] / nq;
          adv += q[p][i] * ugj / nq;
          stream += tau * ugi * ugj / nq;
        }
        for (int a = 0; a < d; a++)
          for (int b = 0; b < d; b++) diff += g[i][a] * dm[a][b] * g[j][b];
        if (lumped) mass = i == j ? 1.0 / nv : 0.0;
        expect[i * nv + j] = vol * (w * (mass + supg_mass) + form.diffusion * diff +
                                    form.advection * (adv + stream));
      }
    double e[16];
    element(d, x, dsym, u, &form, e);
    check_matrix(nv, e, expect, 1.0, 1e-14);
    struct fe_reference ref;
    fe_reference_init(d, &ref);
    const int cells[4] = {0, 1, 2, 3};
    double coords[12], vel[12], y[4];
    for (int v = 0; v < nv; v++)
      for (int a = 0; a < d; a++) {
        coords[v * d + a] = x[v][a];
        vel[v * d + a] = u[v][a];
      }
    const double xv[4] = {1.0, -2.0, 0.5, 0.25};
    fe_cell_matfree_product(d, 0, &ref, &form, cells, coords, dsym, vel, 0, xv, 0, y);
    for (int i = 0; i < nv; i++) {
      double ex = 0;
      for (int j = 0; j < nv; j++) ex += expect[i * nv + j] * xv[j];
      CHECK_CLOSE(y[i], ex, 1e-14);
    }
    /* the form's symmetric part (no velocity) through the product compiled without the
     * velocity terms: the same bits as through the general one */
    struct fe_form sym = form;
    sym.advection = sym.supg = 0;
    double y0[4], y1[4];
    fe_cell_matfree_product(d, 0, &ref, &sym, cells, coords, dsym, vel, 0, xv, 0, y0);
    fe_cell_matfree_product(d, 1, &ref, &sym, cells, coords, dsym, vel, 0, xv, 0, y1);
    for (int i = 0; i < nv; i++) CHECK(y1[i] == y0[i] && y0[i] != 0);
  }
}

int main(void)
{
  supg_xi();
  supg_tau();
  for (int d = 2; d <= 3; d++)
    for (int k = 0; k < 4; k++) advection_quadrature(d, k % 2 ? 0.5 : 0.0, k / 2 ? 0.6 : 0.0);
  reference_triangle();
  absorption();
  stretched_anisotropic();
  reference_tetrahedron();
  stretched_tetrahedron();
  dirichlet_masking();
  TEST_DONE();
}
