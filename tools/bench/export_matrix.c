/* Matrix export for peer solvers: on the structured mesh of fesim-bench-operators
 * (unit square, 2 N^2 triangles; unit cube, 6 N^3 tetrahedra), the operator its
 * CG benchmark solves (M + 0.01 K, identity diffusivity, Dirichlet nodes on the
 * whole boundary) assembled by addto, written as the CSR that fesim applies
 * (Dirichlet rows and columns replaced by the identity; the explicit zeros they
 * leave in the sparsity kept, as cuSPARSE sees them), with b = A 1 computed by
 * fesim's own apply.  Before writing, the CSR is checked against that apply,
 * for symmetry and for identity Dirichlet rows.
 *
 *   fesim-export-matrix DIM N FILE [cpu|cuda]
 *
 * FILE, little-endian (numpy.fromfile reads each part in turn):
 *   char[8] "FESIMCSR"; int64 version (1), n, nnz, dim, cells;
 *   int32 rowptr[n + 1]; int32 colind[nnz]; float64 values[nnz]; float64 b[n]. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assembly/csr.h"
#include "assembly/operator.h"
#include "backends/backends.h"
#include "core/error.h"
#include "io/structured.h"

struct exported {
  int dim;
  long cells, n, nnz;
  int *rowptr, *colind;
  double *values, *b;
  unsigned char *is_dirichlet;
};

static void exported_free(struct exported *x)
{
  free(x->rowptr);
  free(x->colind);
  free(x->values);
  free(x->b);
  free(x->is_dirichlet);
}

/* The benchmark's form on the backend: addto, its CSR downloaded, b = A' 1 by fe_op_apply. */
static int assemble(const struct fe_backend *be, struct fe_mesh *m, struct exported *x)
{
  struct fe_space *space;
  FE_CALL(fe_space_create(be, m, x->is_dirichlet, &space));
  const int d = m->dim, ns = FE_NSYM(d);
  double h[6] = {0};
  for (int k = 0; k < ns; k++) h[k] = (k == 0 || k == (d == 2 ? 2 : 3) || k == 5) ? 1.0 : 0.0;
  double *diff = NULL;
  struct fe_op *op = NULL;
  struct fe_vec *ones = NULL, *y = NULL;
  int err = fe_backend_alloc(be, sizeof h, h, &diff);
  const struct fe_coefficients coef = {.diffusivity = diff, .uniform_diffusivity = 1};
  const struct fe_form form = {.mass = 1.0, .diffusion = 0.01};
  if (!err) err = fe_operator_create(space, FE_STRATEGY_ADDTO, &op);
  if (!err) err = fe_operator_assemble(op, &form, &coef);
  const struct fe_csr *csr = err ? NULL : fe_operator_csr(op);
  if (csr) {
    x->n = csr->n;
    x->nnz = csr->nnz;
    x->rowptr = malloc((size_t)(x->n + 1) * sizeof *x->rowptr);
    x->colind = malloc((size_t)x->nnz * sizeof *x->colind);
    x->values = malloc((size_t)x->nnz * sizeof *x->values);
    x->b = malloc((size_t)x->n * sizeof *x->b);
    if (!x->rowptr || !x->colind || !x->values || !x->b)
      err = fe_error_raise(FE_ERR_RESOURCE, __FILE__, __LINE__,
                           "out of host memory for a CSR of %ld non-zeros", x->nnz);
  }
  if (!err) err = fe_csr_download(csr, x->rowptr, x->colind, x->values);
  if (!err) err = fe_vec_create(be, (size_t)x->n, &ones);
  if (!err) err = fe_vec_create(be, (size_t)x->n, &y);
  if (!err) err = fe_vec_set(ones, 1.0);
  if (!err) err = fe_op_apply(op, ones, y);
  if (!err) err = fe_vec_download(y, x->b);
  fe_vec_destroy(ones);
  fe_vec_destroy(y);
  fe_op_destroy(op);
  fe_backend_free(be, diff);
  fe_space_destroy(space);
  return err;
}

static double csr_entry(const struct exported *x, long i, int j)
{
  int lo = x->rowptr[i], hi = x->rowptr[i + 1] - 1;
  while (lo <= hi) {
    const int mid = lo + (hi - lo) / 2;
    if (x->colind[mid] == j) return x->values[mid];
    if (x->colind[mid] < j)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NAN; /* not in the sparsity: the pattern is not symmetric */
}

/* The written CSR is what fesim applies (A 1 = b), symmetric, with identity Dirichlet rows. */
static int check(const struct exported *x)
{
  double amax = 0, bmax = 0, residual = 0, asym = 0;
  long dirichlet = 0, bad_rows = 0;
  for (long k = 0; k < x->nnz; k++) amax = fmax(amax, fabs(x->values[k]));
  for (long i = 0; i < x->n; i++) {
    double s = 0;
    int row_ok = 1;
    for (int k = x->rowptr[i]; k < x->rowptr[i + 1]; k++) {
      const int j = x->colind[k];
      s += x->values[k];
      const double t = csr_entry(x, j, (int)i);
      asym = isnan(t) ? INFINITY : fmax(asym, fabs(x->values[k] - t));
      if (x->is_dirichlet[i]) row_ok &= x->values[k] == (j == i ? 1.0 : 0.0);
    }
    residual = fmax(residual, fabs(s - x->b[i]));
    bmax = fmax(bmax, fabs(x->b[i]));
    dirichlet += x->is_dirichlet[i];
    bad_rows += x->is_dirichlet[i] && !row_ok;
  }
  fprintf(
      stderr,
      "fesim-export-matrix: n %ld, nnz %ld, %ld Dirichlet rows; max |A 1 - b| / max |b| = %.2e, "
      "max |A - A^T| / max |A| = %.2e\n",
      x->n, x->nnz, dirichlet, residual / bmax, asym / amax);
  FE_CHECK(residual <= 1e-12 * bmax, FE_ERR_NUMERICAL,
           "the downloaded CSR times ones differs from fesim's apply by %.3e (max |b| %.3e)",
           residual, bmax);
  FE_CHECK(asym <= 1e-12 * amax, FE_ERR_NUMERICAL, "the CSR is not symmetric: max |A - A^T| = %.3e",
           asym);
  FE_CHECK(!bad_rows, FE_ERR_NUMERICAL, "%ld Dirichlet rows are not rows of the identity",
           bad_rows);
  return FE_SUCCESS;
}

static int write_file(const char *path, const struct exported *x)
{
  const uint16_t probe = 1;
  FE_CHECK(*(const unsigned char *)&probe == 1, FE_ERR_RESOURCE,
           "this host is big-endian; the matrix format is little-endian");
  FILE *f = fopen(path, "wb");
  FE_CHECK(f, FE_ERR_RESOURCE, "cannot open '%s' for writing: %s", path, strerror(errno));
  const int64_t head[5] = {1, x->n, x->nnz, x->dim, x->cells};
  int ok = fwrite("FESIMCSR", 8, 1, f) == 1;
  ok = ok && fwrite(head, sizeof head, 1, f) == 1;
  ok = ok && fwrite(x->rowptr, sizeof *x->rowptr, (size_t)x->n + 1, f) == (size_t)x->n + 1;
  ok = ok && fwrite(x->colind, sizeof *x->colind, (size_t)x->nnz, f) == (size_t)x->nnz;
  ok = ok && fwrite(x->values, sizeof *x->values, (size_t)x->nnz, f) == (size_t)x->nnz;
  ok = ok && fwrite(x->b, sizeof *x->b, (size_t)x->n, f) == (size_t)x->n;
  const int closed = fclose(f) == 0;
  FE_CHECK(ok && closed, FE_ERR_RESOURCE, "cannot write '%s': %s", path, strerror(errno));
  return FE_SUCCESS;
}

static int run(int dim, int n, const char *path, const char *backend)
{
  enum fe_backend_kind kind;
  struct fe_backend *be;
  FE_CALL(fe_backend_parse(backend, &kind));
  FE_CALL(fe_backend_create(kind, NULL, &be));
  struct fe_mesh *m = NULL;
  struct exported x = {.dim = dim};
  int err = fe_mesh_create_structured(dim, n, 0.0, 1, &m);
  if (!err) {
    x.cells = m->n_cells;
    err = fe_calloc((size_t)m->n_nodes, 1, &x.is_dirichlet);
  }
  if (!err) {
    for (long f = 0; f < (long)m->n_facets * dim; f++) x.is_dirichlet[m->facets[f]] = 1;
    err = assemble(be, m, &x);
  }
  if (!err) err = check(&x);
  if (!err) err = write_file(path, &x);
  if (!err) printf("%d,%ld,%ld,%ld,%s\n", dim, x.cells, x.n, x.nnz, path);
  exported_free(&x);
  fe_mesh_destroy(m);
  fe_backend_destroy(be);
  return err;
}

int main(int argc, char **argv)
{
  if (argc < 4 || argc > 5 || (argc == 5 && strcmp(argv[4], "cpu") && strcmp(argv[4], "cuda"))) {
    fprintf(stderr, "usage: %s DIM N FILE [cpu|cuda]\n", argv[0]);
    return FE_ERR_USAGE;
  }
  const int dim = atoi(argv[1]), n = atoi(argv[2]);
  if ((dim != 2 && dim != 3) || n < 1) {
    fprintf(stderr, "%s: DIM must be 2 or 3 and N a positive integer\n", argv[0]);
    return FE_ERR_USAGE;
  }
  return run(dim, n, argv[3], argc == 5 ? argv[4] : "cpu");
}
