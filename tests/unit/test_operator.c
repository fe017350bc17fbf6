/* addto, lma and matfree give the same operator action, diagonal and lifting, equal to
 * a dense matrix assembled independently from the element matrices with the
 * Dirichlet rows and columns eliminated by hand.  2D and 3D, perturbed meshes,
 * a random anisotropic tensor per cell and a random nodal velocity.  LMA stores the upper
 * triangle of symmetric forms' matrices and every entry of the others, and gives the same
 * bits as when it stores every entry; re-assembled with another form it changes storage. */
#include <stdlib.h>
#include <string.h>

#include "assembly/csr.h"
#include "assembly/operator.h"
#include "assembly/reference.h"
#include "backend_cpu.h"
#include "csr_checks.h"
#include "meshgen.h"
#include "test.h"
#include "threads_checks.h"

struct problem {
  struct fe_mesh *m;
  unsigned char *isd;
  double *diff, *vel;
};

static void make_problem(int dim, int n, struct problem *p)
{
  unsigned seed = 12345u + (unsigned)dim;
  p->m = meshgen(dim, n, 0.4, seed);
  const int ns = FE_NSYM(dim);
  p->isd = calloc((size_t)p->m->n_nodes, 1);
  for (int i = 0; i < p->m->n_nodes; i++)
    p->isd[i] = meshgen_on_boundary(p->m, i) && p->m->coords[i * dim] < 0.5; /* part of the boundary */
  p->diff = malloc(sizeof(double) * p->m->n_cells * ns);
  for (int c = 0; c < p->m->n_cells; c++) {
    double *s = p->diff + c * ns;
    for (int k = 0; k < ns; k++) s[k] = 0.2 * (meshgen_rand(&seed) - 0.5);
    s[0] += 1.0; /* diagonally dominant: positive definite */
    s[dim == 2 ? 2 : 3] += 2.0;
    if (dim == 3) s[5] += 0.5;
  }
  p->vel = malloc(sizeof(double) * p->m->n_nodes * dim);
  for (int i = 0; i < p->m->n_nodes * dim; i++) p->vel[i] = meshgen_rand(&seed) - 0.5;
}

static void free_problem(struct problem *p)
{
  meshgen_free(p->m);
  free(p->isd);
  free(p->diff);
  free(p->vel);
}

/* Dense A (unmasked) from the element matrices. */
static double *dense(const struct problem *p, const struct fe_form *form)
{
  const struct fe_mesh *m = p->m;
  const int nv = m->nv, n = m->n_nodes;
  struct fe_reference ref;
  fe_reference_init(m->dim, &ref);
  double *a = calloc((size_t)n * n, sizeof *a);
  for (long c = 0; c < m->n_cells; c++) {
    double e[16];
    fe_cell_matrix(m->dim, &ref, form, m->cells, m->coords, p->diff, p->vel, c, e);
    for (int i = 0; i < nv; i++)
      for (int j = 0; j < nv; j++) a[(long)m->cells[c * nv + i] * n + m->cells[c * nv + j]] += e[i * nv + j];
  }
  return a;
}

static double max_abs(const double *v, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++) s = fmax(s, fabs(v[i]));
  return s;
}

/* The element matrices of an LMA operator (symmetric or full storage) equal those of one that
 * stores every entry, bit for bit, and those are symmetric bit for bit for a symmetric form. */
static void same_elements(const struct fe_space *s, const struct fe_op *a, const struct fe_op *full)
{
  const int nv = s->nv, na = fe_storage_entries(nv, fe_operator_storage(a));
  const enum fe_storage st = fe_operator_storage(a);
  const long nb = fe_blocked_cells(s->n_cells, s->block_shift);
  double *ea = malloc(sizeof(double) * nb * na), *ef = malloc(sizeof(double) * nb * s->nk);
  CHECK_OK(fe_operator_download_elements(a, ea));
  CHECK_OK(fe_operator_download_elements(full, ef));
  int bad = 0;
  for (long c = 0; c < s->n_cells; c++)
    for (int i = 0; i < nv; i++)
      for (int j = 0; j < nv; j++) {
        const double f = ef[fe_block_index(c, i * nv + j, s->nk, s->block_shift)];
        bad += ea[fe_block_index(c, fe_storage_entry(nv, st, i, j), na, s->block_shift)] != f;
        if (st == FE_STORAGE_SYMMETRIC)
          bad += ef[fe_block_index(c, j * nv + i, s->nk, s->block_shift)] != f;
      }
  CHECK(bad == 0);
  free(ea);
  free(ef);
}

/* Two operators' apply, apply_full (the lift) and diagonal, bit for bit. */
static void same_bits(struct fe_op *a, struct fe_op *b, const double *x)
{
  const size_t n = a->n;
  struct fe_vec *vx, *ya, *yb;
  CHECK_OK(fe_vec_create(a->be, n, &vx));
  CHECK_OK(fe_vec_create(a->be, n, &ya));
  CHECK_OK(fe_vec_create(a->be, n, &yb));
  CHECK_OK(fe_vec_upload(vx, x));
  double *ha = malloc(sizeof(double) * n), *hb = malloc(sizeof(double) * n);
  for (int kind = 0; kind < 3; kind++) {
    struct fe_op *ops[2] = {a, b};
    struct fe_vec *ys[2] = {ya, yb};
    for (int o = 0; o < 2; o++) {
      if (kind == 0) CHECK_OK(fe_op_apply(ops[o], vx, ys[o]));
      if (kind == 1) CHECK_OK(fe_op_apply_full(ops[o], vx, ys[o]));
      if (kind == 2) CHECK_OK(fe_op_diagonal(ops[o], ys[o]));
    }
    CHECK_OK(fe_vec_download(ya, ha));
    CHECK_OK(fe_vec_download(yb, hb));
    CHECK(memcmp(ha, hb, sizeof(double) * n) == 0);
  }
  free(ha);
  free(hb);
  fe_vec_destroy(vx);
  fe_vec_destroy(ya);
  fe_vec_destroy(yb);
}

/* uniform: the diffusivity of cell 0 in every cell, passed as one tensor */
static void check_dim(int dim, int n, const struct fe_form *form, int uniform, int shift)
{
  struct problem p;
  make_problem(dim, n, &p);
  const int ns = FE_NSYM(dim);
  if (uniform)
    for (long c = 1; c < p.m->n_cells; c++) memcpy(p.diff + c * ns, p.diff, ns * sizeof *p.diff);
  const int nn = p.m->n_nodes;
  const struct fe_backend *be = test_cpu();
  struct fe_space *space;
  CHECK_OK(fe_space_create(be, p.m, p.isd, &space));
  space->block_shift = shift;
  double *dd, *dv;
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * (uniform ? 1 : p.m->n_cells) * ns, p.diff, &dd));
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * nn * dim, p.vel, &dv));
  struct fe_coefficients coef = {.diffusivity = dd, .velocity = dv, .uniform_diffusivity = uniform};
  struct fe_op *lma, *lma_full, *addto, *matfree;
  CHECK_OK(fe_operator_create(space, FE_STRATEGY_LMA, &lma));
  CHECK_OK(fe_operator_create(space, FE_STRATEGY_LMA, &lma_full));
  fe_operator_store_full(lma_full, 1);
  CHECK_OK(fe_operator_create(space, FE_STRATEGY_ADDTO, &addto));
  CHECK_OK(fe_operator_create(space, FE_STRATEGY_MATFREE, &matfree));
  CHECK_OK(fe_operator_assemble(lma, form, &coef));
  CHECK_OK(fe_operator_assemble(lma_full, form, &coef));
  CHECK_OK(fe_operator_assemble(addto, form, &coef));
  CHECK_OK(fe_operator_assemble(matfree, form, &coef));
  /* the upper triangle of a symmetric form's matrices, a non-symmetric form's in full */
  CHECK(fe_operator_storage(lma) ==
        (fe_form_symmetric(form) ? FE_STORAGE_SYMMETRIC : FE_STORAGE_FULL));
  CHECK(fe_operator_storage(lma_full) == FE_STORAGE_FULL);
  CHECK(fe_operator_storage(addto) == FE_STORAGE_FULL);
  same_elements(space, lma, lma_full);

  double *a = dense(&p, form);
  double *x = malloc(sizeof(double) * nn), *ref_masked = calloc(nn, sizeof(double)),
         *ref_full = calloc(nn, sizeof(double)), *ref_diag = malloc(sizeof(double) * nn),
         *y = malloc(sizeof(double) * nn);
  unsigned seed = 99;
  for (int i = 0; i < nn; i++) x[i] = meshgen_rand(&seed) - 0.5;
  for (int i = 0; i < nn; i++) {
    for (int j = 0; j < nn; j++) {
      double aij = a[(long)i * nn + j];
      if (!p.isd[i] && !p.isd[j]) ref_masked[i] += aij * x[j];
      if (!p.isd[i]) ref_full[i] += aij * x[j];
    }
    if (p.isd[i]) ref_masked[i] = ref_full[i] = x[i];
    ref_diag[i] = p.isd[i] ? 1.0 : a[(long)i * nn + i];
  }
  const double scale = max_abs(ref_full, nn) + max_abs(ref_masked, nn);
  struct fe_vec *vx, *vy;
  CHECK_OK(fe_vec_create(be, nn, &vx));
  CHECK_OK(fe_vec_create(be, nn, &vy));
  CHECK_OK(fe_vec_upload(vx, x));
  struct fe_op *ops[4] = {lma, lma_full, addto, matfree};
  for (int o = 0; o < 4; o++) {
    CHECK_OK(fe_op_apply(ops[o], vx, vy));
    CHECK_OK(fe_vec_download(vy, y));
    for (int i = 0; i < nn; i++) CHECK_CLOSE(y[i] / scale, ref_masked[i] / scale, 1e-12);
    CHECK_OK(fe_op_apply_full(ops[o], vx, vy));
    CHECK_OK(fe_vec_download(vy, y));
    for (int i = 0; i < nn; i++) CHECK_CLOSE(y[i] / scale, ref_full[i] / scale, 1e-12);
    CHECK_OK(fe_op_diagonal(ops[o], vy));
    CHECK_OK(fe_vec_download(vy, y));
    for (int i = 0; i < nn; i++) CHECK_CLOSE(y[i], ref_diag[i], 1e-12);
  }
  same_bits(lma, lma_full, x);
  for (int o = 0; o < 4; o++) threads_same_bits(ops[o], vx, vy);
  /* the addto CSR has the sparsity of the node graph */
  struct fe_csr *csr = fe_operator_csr(addto);
  CHECK(csr && fe_operator_csr(lma) == NULL);
  long nnz = 0;
  for (long k = 0; k < (long)nn * nn; k++) nnz += a[k] != 0;
  CHECK(csr->nnz >= nnz);
  CHECK(csr->nnz <= (dim == 2 ? 7 : 27) * (long)nn);
  csr_check_definition(space);
  csr_check_product(csr, x);
  /* the values downloaded (on the CPU gathered from the product's slices) are the masked
   * operator's: the dense matrix's, the identity on the Dirichlet rows and columns */
  {
    int *rowptr = malloc(sizeof(int) * (nn + 1)), *colind = malloc(sizeof(int) * csr->nnz);
    double *values = malloc(sizeof(double) * csr->nnz), amax = max_abs(a, nn * nn);
    CHECK_OK(fe_csr_download(csr, rowptr, colind, values));
    for (int i = 0; i < nn; i++)
      for (int k = rowptr[i]; k < rowptr[i + 1]; k++) {
        const int j = colind[k];
        const double want = p.isd[i] || p.isd[j] ? (i == j) : a[(long)i * nn + j];
        CHECK_CLOSE(values[k] / amax, want / amax, 1e-13);
      }
    free(rowptr);
    free(colind);
    free(values);
  }

  fe_vec_destroy(vx);
  fe_vec_destroy(vy);
  fe_op_destroy(lma);
  fe_op_destroy(lma_full);
  fe_op_destroy(addto);
  fe_op_destroy(matfree);
  fe_backend_free(be, dd);
  fe_backend_free(be, dv);
  fe_space_destroy(space);
  free(a);
  free(x);
  free(y);
  free(ref_masked);
  free(ref_full);
  free(ref_diag);
  free_problem(&p);
}

/* The conservative form conserves: with u . n = 0 on the boundary of the unit square or cube,
 * the columns of the advection operator with beta = 1 sum to 0 (sum_i of int phi_i u . grad
 * phi_j + phi_i (div u) phi_j is the integral of div(u phi_j), a boundary flux), lumped or
 * not; with beta = 0 they do not (-int (div u) phi_j). */
static void conservation(int dim)
{
  struct problem p;
  make_problem(dim, 6, &p);
  const struct fe_mesh *m = p.m;
  for (int i = 0; i < m->n_nodes; i++)
    for (int a = 0; a < dim; a++) {
      const double x = m->coords[i * dim + a], y = m->coords[i * dim + (a + 1) % dim];
      p.vel[i * dim + a] = x * (1 - x) * (1 + 2 * y); /* 0 where x_a is 0 or 1 */
    }
  for (int k = 0; k < 3; k++) {
    const struct fe_form form = {.advection = 1.0, .conservative = k ? 1.0 : 0.0, .lumped = k == 2};
    double *a = dense(&p, &form), worst = 0, scale = 0;
    for (int j = 0; j < m->n_nodes; j++) {
      double sum = 0;
      for (int i = 0; i < m->n_nodes; i++) {
        sum += a[(long)i * m->n_nodes + j];
        scale = fmax(scale, fabs(a[(long)i * m->n_nodes + j]));
      }
      worst = fmax(worst, fabs(sum));
    }
    CHECK(k ? worst <= 1e-14 * scale : worst >= 1e-3 * scale);
    free(a);
  }
  free_problem(&p);
}

/* An LMA operator re-assembled with forms that are symmetric or not changes its storage and
 * gives the bits of an operator assembled once with each form. */
static void restorage(int dim, int n)
{
  struct problem p;
  make_problem(dim, n, &p);
  const struct fe_backend *be = test_cpu();
  struct fe_space *space;
  CHECK_OK(fe_space_create(be, p.m, p.isd, &space));
  double *dd, *dv;
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * p.m->n_cells * FE_NSYM(dim), p.diff, &dd));
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * p.m->n_nodes * dim, p.vel, &dv));
  const struct fe_coefficients coef = {.diffusivity = dd, .velocity = dv};
  const struct fe_form forms[] = {{.mass = 1.0, .diffusion = 0.3},
                                  {.mass = 1.0, .diffusion = 0.1, .advection = 0.5},
                                  {.mass = 1.0, .lumped = 1},
                                  {.mass = 1.0, .supg = 0.5},
                                  {.mass = 0.5, .diffusion = 2.0}};
  double *x = malloc(sizeof(double) * p.m->n_nodes);
  unsigned seed = 7;
  for (int i = 0; i < p.m->n_nodes; i++) x[i] = meshgen_rand(&seed) - 0.5;
  struct fe_op *op, *fresh;
  CHECK_OK(fe_operator_create(space, FE_STRATEGY_LMA, &op));
  for (int f = 0; f < 5; f++) {
    CHECK_OK(fe_operator_assemble(op, &forms[f], &coef));
    CHECK(fe_operator_storage(op) == fe_form_storage(&forms[f]));
    CHECK_OK(fe_operator_create(space, FE_STRATEGY_LMA, &fresh));
    CHECK_OK(fe_operator_assemble(fresh, &forms[f], &coef));
    same_bits(op, fresh, x);
    fe_op_destroy(fresh);
  }
  fe_op_destroy(op);
  fe_backend_free(be, dd);
  fe_backend_free(be, dv);
  fe_space_destroy(space);
  free(x);
  free_problem(&p);
}

int main(void)
{
  restorage(2, 7);
  restorage(3, 3);
  conservation(2);
  conservation(3);
  const struct fe_form diffusion = {.mass = 1.0, .diffusion = 0.3}, advection = {.advection = -1.0},
                       everything = {.mass = 0.7, .diffusion = 0.2, .advection = 0.5}, lumped = {.mass = 1.0, .lumped = 1, .diffusion = 0.1};
  /* the conservative advection form (beta): with the mass, lumped, and tested with SUPG */
  const struct fe_form
      conservative = {.mass = 0.7, .diffusion = 0.2, .advection = 0.5, .conservative = 1.0},
      conservative_lumped = {.lumped = 1, .advection = -1.0, .conservative = 0.5},
      conservative_supg = {
          .mass = 1.0, .diffusion = 0.1, .advection = -0.8, .conservative = 1.0, .supg = 0.5};
  /* the mass alone, and tested with SUPG (not symmetric) */
  const struct fe_form mass = {.mass = 1.0}, mass_supg = {.mass = 1.0, .supg = 0.5};
  const struct fe_form *forms[] = {&diffusion,    &advection,           &everything,        &lumped,
                                   &conservative, &conservative_lumped, &conservative_supg, &mass,
                                   &mass_supg};
  for (int f = 0; f < 9; f++)
    for (int uniform = 0; uniform < 2; uniform++) {
      check_dim(2, 7, forms[f], uniform, FE_BLOCK_SHIFT_DEFAULT);
      check_dim(3, 3, forms[f], uniform, FE_BLOCK_SHIFT_DEFAULT);
    }
  for (int shift = 0; shift <= FE_BLOCK_SHIFT_MAX; shift += 3) { /* other interleave widths */
    check_dim(2, 7, forms[2], 0, shift);
    check_dim(3, 3, forms[2], 0, shift);
  }
  TEST_DONE();
}
