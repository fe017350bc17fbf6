/* Periodic meshes (issue 14, item 3): the reading and numbering of the copies (MSH 2.2 read
 * by fesim, MSH 4.1 by Gmsh, a .geo meshed by Gmsh, 2D and 3D), the merged incidence, the
 * halo's exchanges, and every strategy's operator on a periodic mesh against PᵀAP assembled
 * densely from the element matrices (P: the copies of each unknown), Dirichlet walls through
 * the copies included; the lumped mass and a limited step of flux-corrected transport. */
#include <stdlib.h>
#include <string.h>

#include "assembly/fct.h"
#include "assembly/kernels.h"
#include "assembly/operator.h"
#include "assembly/reference.h"
#include "backend_cpu.h"
#include "core/error.h"
#include "csr_checks.h"
#include "io/expr.h"
#include "periodic.h"
#include "solvers/halo.h"
#include "test.h"
#include "threads_checks.h"

static char data_dir[4096];

static struct fe_mesh *read_mesh(const char *name)
{
  char path[4352];
  snprintf(path, sizeof path, "%s/mesh/%s", data_dir, name);
  struct fe_mesh *m = NULL;
  CHECK_OK(fe_mesh_read(path, NULL, &m));
  return m;
}

/* Every copy lies where its owner is shifted by whole periods along the periodic axes, exactly
 * (fesim places it so); the owners lie off the far sides; n_aliased as expected. */
static void check_copies(const struct fe_mesh *m, int axes, int aliased)
{
  CHECK(m->n_aliased == aliased);
  const int owned = m->n_nodes - m->n_aliased;
  for (int n = 0; n < m->n_nodes; n++) {
    const int o = fe_mesh_owner(m, n);
    CHECK(o < owned && fe_mesh_owner(m, o) == o);
    for (int a = 0; a < m->dim; a++) {
      const double x = m->coords[n * m->dim + a], xo = m->coords[o * m->dim + a];
      CHECK(x == xo || ((axes >> a & 1) && x == xo + 1.0));
      if (n < owned && (axes >> a & 1)) CHECK(x < 1.0);
    }
  }
}

static void read_squares(void)
{
  const char *names[] = {"periodic_22.msh", "periodic_41.msh", "periodic_41_noaffine.msh"};
  for (int i = 0; i < 3; i++) {
    struct fe_mesh *m = read_mesh(names[i]);
    if (!m) continue;
    CHECK(m->n_nodes == 9 && m->n_cells == 8 && m->n_links == 2);
    check_copies(m, 3, 5); /* the right and top sides: 3 corners, 2 midpoints */
    for (int f = 0; f < m->n_facets; f++) CHECK(m->facet_link && m->facet_link[f] > 0);
    fe_mesh_destroy(m);
  }
  /* a script meshed by Gmsh: the cube periodic in x, y and z */
  struct fe_mesh *m = read_mesh("periodic_cube.geo");
  if (m) {
    int far = 0; /* nodes on a face x_a = 1 */
    for (int n = 0; n < m->n_nodes; n++) {
      int on = 0;
      for (int a = 0; a < 3; a++) on |= m->coords[n * 3 + a] == 1.0;
      far += on;
    }
    check_copies(m, 7, far);
    fe_mesh_destroy(m);
  }
}

/* Each copy's list is the union of the lists of its unknown's copies, ascending. */
static void merged_incidence(void)
{
  struct fe_mesh *m = meshgen_periodic(2, 4, 0.3, 7u, 3);
  int *ptr, *inc, *mptr, *minc;
  CHECK_OK(fe_mesh_incidence(m, &ptr, &inc));
  CHECK_OK(fe_mesh_incidence(m, &mptr, &minc));
  CHECK_OK(fe_mesh_merge_copies(m, &mptr, &minc));
  for (int n = 0; n < m->n_nodes; n++) {
    const int o = fe_mesh_owner(m, n);
    CHECK(mptr[n + 1] - mptr[n] == mptr[o + 1] - mptr[o]);
    CHECK(!memcmp(minc + mptr[n], minc + mptr[o], sizeof(int) * (mptr[n + 1] - mptr[n])));
    for (int k = mptr[n] + 1; k < mptr[n + 1]; k++) CHECK(minc[k - 1] < minc[k]);
    int count = 0; /* the entries of every copy of n's unknown */
    for (int c = 0; c < m->n_nodes; c++)
      if (fe_mesh_owner(m, c) == o) count += ptr[c + 1] - ptr[c];
    CHECK(mptr[n + 1] - mptr[n] == count);
    for (int k = mptr[n]; k < mptr[n + 1]; k++)
      CHECK(fe_mesh_owner(m, m->cells[minc[k]]) == o); /* the entry's vertex is a copy */
  }
  free(ptr);
  free(inc);
  free(mptr);
  free(minc);
  meshgen_free(m);
}

static void halo_exchanges(void)
{
  const int owner[4] = {2, 0, 2, 5};
  struct fe_halo *h;
  CHECK_OK(fe_halo_create(test_cpu(), 6, 4, owner, &h));
  CHECK(h->n_shared == 3);
  double x[20];
  for (int i = 0; i < 20; i++) x[i] = i + 1;
  CHECK_OK(fe_halo_update(h, 2, x)); /* two values per entry */
  const double up[20] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 5, 6, 1, 2, 5, 6, 11, 12};
  CHECK(!memcmp(x, up, sizeof x));
  double y[10] = {1, 2, 3, 4, 5, 6, 10, 20, 30, 40};
  CHECK_OK(fe_halo_sum(h, y)); /* owner 2 adds ghosts 6 and 8, in that order */
  CHECK(y[0] == 1 + 20 && y[2] == 3 + 10 + 30 && y[5] == 6 + 40 && y[1] == 2 && y[6] == 10);
  fe_error_set_quiet(1);
  const int bad[1] = {6};
  struct fe_halo *no = NULL;
  CHECK(fe_halo_create(test_cpu(), 6, 1, bad, &no) == FE_ERR_USAGE && !no);
  fe_error_set_quiet(0);
  fe_halo_destroy(h);
}

/* A vector's ghost state (solvers/vec.h): an update after a write exchanges, one after
 * another does not, the entry-by-entry operations keep the state of their inputs, and the
 * check (FESIM_CHECK_GHOSTS=1, set in main) finds ghosts taken as current that are not and
 * makes those left stale NaN. */
static void ghost_state(void)
{
  const int owner[4] = {2, 0, 2, 5};
  struct fe_halo *h;
  struct fe_vec *v, *w;
  CHECK_OK(fe_halo_create(test_cpu(), 6, 4, owner, &h));
  CHECK_OK(fe_vec_create_ghosted(h, &v));
  CHECK_OK(fe_vec_create_ghosted(h, &w));
  CHECK(v->ghosts_current); /* zero everywhere */
  double *a = fe_vec_write(v);
  for (int i = 0; i < 6; i++) a[i] = i + 1;
  CHECK(!v->ghosts_current);
  CHECK_OK(fe_vec_update_ghosts(v));
  CHECK(v->ghosts_current && a[6] == 3 && a[7] == 1 && a[8] == 3 && a[9] == 6);
  CHECK_OK(fe_vec_copy(v, w));
  CHECK(w->ghosts_current);
  CHECK_OK(fe_vec_axpy(w, 2.0, v));
  CHECK(w->ghosts_current && w->a[6] == 9);
  const int idx[3] = {2, 6, 8}; /* entry 2 and its copies */
  const double same[3] = {-1, -1, -1};
  CHECK_OK(fe_vec_set_indexed(w, 3, idx, same));
  CHECK(w->ghosts_current);
  fe_vec_write(w)[0] = 7; /* a write seen: the next update exchanges */
  CHECK_OK(fe_vec_update_ghosts(w));
  CHECK(w->a[7] == 7 && w->a[8] == -1);
  a[2] = 30; /* a write through a pointer taken before, unseen: the update is left out, and */
  fe_error_set_quiet(1); /* the check finds the stale ghosts */
  CHECK(fe_vec_update_ghosts(v) == FE_ERR_USAGE);
  fe_error_set_quiet(0);
  CHECK(a[6] == 3);
  fe_vec_write(v);
  CHECK_OK(fe_vec_axpy(w, 1.0, v)); /* stale in, stale out */
  CHECK(!w->ghosts_current);
  CHECK_OK(fe_vec_owned_written(v)); /* ghosts left to the reader: NaN while checking */
  CHECK(!v->ghosts_current && isnan(v->a[6]) && isnan(v->a[9]) && v->a[5] == 6);
  CHECK_OK(fe_vec_update_ghosts(v));
  CHECK(v->a[6] == 30 && v->a[7] == 1 && v->a[9] == 6);
  fe_vec_destroy(v);
  fe_vec_destroy(w);
  fe_halo_destroy(h);
}

/* PᵀAP (n_owned square), A the unmasked matrix of the element matrices. */
static double *dense_periodic(const struct periodic_problem *p, const struct fe_form *form)
{
  const struct fe_mesh *m = p->m;
  const int nv = m->nv, no = m->n_nodes - m->n_aliased;
  struct fe_reference ref;
  fe_reference_init(m->dim, &ref);
  double *b = calloc((size_t)no * no, sizeof *b);
  for (long c = 0; c < m->n_cells; c++) {
    double e[16];
    fe_cell_matrix(m->dim, &ref, form, m->cells, m->coords, p->diff, p->vel, c, e);
    for (int i = 0; i < nv; i++)
      for (int j = 0; j < nv; j++)
        b[(long)fe_mesh_owner(m, m->cells[c * nv + i]) * no +
          fe_mesh_owner(m, m->cells[c * nv + j])] += e[i * nv + j];
  }
  return b;
}

static void check_operators(int dim, int n, int axes, int walls, const struct fe_form *form)
{
  struct periodic_problem p;
  periodic_problem_make(dim, n, axes, walls, 4321u + (unsigned)dim, &p);
  const struct fe_mesh *m = p.m;
  const int nn = m->n_nodes, no = nn - m->n_aliased, ns = FE_NSYM(dim);
  const struct fe_backend *be = test_cpu();
  struct fe_space *space;
  CHECK_OK(fe_space_create(be, m, p.isd, &space));
  CHECK(space->n_owned == no && (space->halo != NULL) == (m->n_aliased > 0));
  csr_check_definition(space); /* rows of the owners, every copy's cells in them */
  double *dd, *dv;
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * m->n_cells * ns, p.diff, &dd));
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * nn * dim, p.vel, &dv));
  const struct fe_coefficients coef = {.diffusivity = dd, .velocity = dv};
  double *b = dense_periodic(&p, form);
  double *x = malloc(sizeof(double) * nn), *masked = calloc(no, sizeof(double)),
         *full = calloc(no, sizeof(double)), *diag = malloc(sizeof(double) * no),
         *y = malloc(sizeof(double) * nn);
  unsigned seed = 77;
  for (int i = 0; i < nn; i++) x[i] = meshgen_rand(&seed) - 0.5; /* copies: garbage */
  for (int u = 0; u < no; u++) {
    for (int v = 0; v < no; v++) {
      if (!p.isd[u] && !p.isd[v]) masked[u] += b[(long)u * no + v] * x[v];
      if (!p.isd[u]) full[u] += b[(long)u * no + v] * x[v];
    }
    if (p.isd[u]) masked[u] = full[u] = x[u];
    diag[u] = p.isd[u] ? 1.0 : b[(long)u * no + u];
  }
  double scale = 0;
  for (int u = 0; u < no; u++) scale = fmax(scale, fabs(full[u]) + fabs(masked[u]));
  struct fe_vec *vx, *vy;
  CHECK_OK(fe_space_vec_create(space, &vx));
  CHECK_OK(fe_space_vec_create(space, &vy));
  CHECK(vx->n == (size_t)nn && vx->n_owned == (size_t)no);
  for (int s = 0; s < FE_STRATEGY_AUTO; s++) {
    struct fe_op *op;
    CHECK_OK(fe_operator_create(space, (enum fe_strategy)s, &op));
    CHECK_OK(fe_operator_assemble(op, form, &coef));
    const double *ref[3] = {masked, full, diag};
    for (int what = 0; what < 3; what++) {
      CHECK_OK(fe_vec_upload(vx, x)); /* the operator exchanges the ghosts itself */
      CHECK_OK(fe_vec_set(vy, 7.0));
      if (what == 0) CHECK_OK(fe_op_apply(op, vx, vy));
      if (what == 1) CHECK_OK(fe_op_apply_full(op, vx, vy));
      if (what == 2) CHECK_OK(fe_op_diagonal(op, vy));
      CHECK_OK(fe_vec_update_ghosts(vy)); /* as a reader of the copies takes them */
      CHECK_OK(fe_vec_download(vy, y));
      for (int i = 0; i < nn; i++) {
        const int o = fe_mesh_owner(m, i);
        CHECK_CLOSE(y[i] / scale, ref[what][o] / scale, 1e-12);
        CHECK(y[i] == y[o]); /* every copy holds its owner's value */
      }
    }
    CHECK_OK(fe_vec_upload(vx, x));
    threads_same_bits(op, vx, vy);
    if (fe_operator_csr(op)) csr_check_product(fe_operator_csr(op), x); /* x: owners first */
    fe_op_destroy(op);
  }
  fe_vec_destroy(vx);
  fe_vec_destroy(vy);
  fe_backend_free(be, dd);
  fe_backend_free(be, dv);
  fe_space_destroy(space);
  free(b);
  free(x);
  free(y);
  free(masked);
  free(full);
  free(diag);
  periodic_problem_free(&p);
}

/* An expression at a node is its value at the node's owner (a copy takes its owner's value),
 * listed by nodes or not; at the cells' centroids, of the cells' own vertices. */
static void evaluation(void)
{
  struct fe_mesh *m = meshgen_periodic(2, 5, 0.3, 9u, 3);
  const struct fe_backend *be = test_cpu();
  struct fe_space *space;
  CHECK_OK(fe_space_create(be, m, NULL, &space));
  const struct fe_params none = {0, NULL, NULL};
  struct fe_expr *e;
  CHECK_OK(fe_expr_create("x + 10*y + t", &none, "test.xml", 1, "initial", &e));
  const int nn = m->n_nodes;
  double *out = malloc(sizeof(double) * nn), *cells = malloc(sizeof(double) * m->n_cells);
  int *idx = malloc(sizeof(int) * nn);
  for (int i = 0; i < nn; i++) idx[i] = nn - 1 - i; /* copies first */
  CHECK_OK(fe_space_evaluate(space, 0, NULL, NULL, nn, fe_expr_program(e), 1, 0.5, out));
  for (int i = 0; i < nn; i++) {
    const double *x = m->coords + 2 * fe_mesh_owner(m, i);
    CHECK(out[i] == x[0] + 10 * x[1] + 0.5);
  }
  CHECK_OK(fe_space_evaluate(space, 0, idx, NULL, nn, fe_expr_program(e), 1, 0.5, out));
  for (int i = 0; i < nn; i++) {
    const double *x = m->coords + 2 * fe_mesh_owner(m, idx[i]);
    CHECK(out[i] == x[0] + 10 * x[1] + 0.5);
  }
  CHECK_OK(fe_space_evaluate(space, 1, NULL, NULL, m->n_cells, fe_expr_program(e), 1, 0, cells));
  for (int c = 0; c < m->n_cells; c++) {
    double x[2] = {0, 0};
    for (int v = 0; v < 3; v++)
      for (int a = 0; a < 2; a++) x[a] += m->coords[m->cells[c * 3 + v] * 2 + a] / 3;
    CHECK_CLOSE(cells[c], x[0] + 10 * x[1], 1e-13);
  }
  free(out);
  free(cells);
  free(idx);
  fe_expr_destroy(e);
  fe_space_destroy(space);
  meshgen_free(m);
}

/* The lumped mass sums the cells around every copy; a limited step of a doubly periodic field
 * keeps sum m_i u_i over the unknowns, and its copies their owners' values. */
static void fct(int dim, int n)
{
  struct periodic_problem p;
  periodic_problem_make(dim, n, dim == 2 ? 3 : 7, 0, 4321u + (unsigned)dim, &p);
  const struct fe_mesh *m = p.m;
  const int nn = m->n_nodes, no = nn - m->n_aliased;
  const struct fe_backend *be = test_cpu();
  struct fe_space *space;
  CHECK_OK(fe_space_create(be, m, NULL, &space));
  struct fe_fct *f;
  CHECK_OK(fe_fct_create(space, 1.0, &f)); /* conservative: u is no divergence-free field */
  double *ml = malloc(sizeof(double) * nn), *ref = calloc(nn, sizeof(double)),
         *u = malloc(sizeof(double) * nn), *out = malloc(sizeof(double) * nn), total = 0;
  CHECK_OK(be->assembly->fct.lumped_mass(space, ml));
  for (long c = 0; c < m->n_cells; c++) {
    double x[4][3], jinv[3][3];
    fe_cell_coords(dim, m->cells, m->coords, c, x);
    const double det = fabs(fe_geometry(dim, x, jinv));
    for (int v = 0; v < m->nv; v++)
      ref[fe_mesh_owner(m, m->cells[c * m->nv + v])] += det / (dim == 2 ? 6 : 24);
  }
  for (int i = 0; i < nn; i++) CHECK_CLOSE(ml[i], ref[fe_mesh_owner(m, i)], 1e-14);
  for (int u0 = 0; u0 < no; u0++) total += ref[u0];
  CHECK_CLOSE(total, 1.0, 1e-13); /* the unit square or cube, each unknown once */
  unsigned seed = 5;
  for (int i = 0; i < nn; i++) u[i] = meshgen_rand(&seed); /* the step updates the ghosts */
  double *dv;
  CHECK_OK(fe_backend_alloc(be, sizeof(double) * nn * dim, p.vel, &dv));
  struct fe_vec *vu, *vout;
  CHECK_OK(fe_space_vec_create(space, &vu));
  CHECK_OK(fe_space_vec_create(space, &vout));
  CHECK_OK(fe_vec_upload(vu, u));
  double courant;
  CHECK_OK(fe_fct_step(f, dv, vu, NULL, 0.02, vout, &courant, NULL));
  CHECK_OK(fe_vec_download(vout, out));
  double before = 0, after = 0;
  for (int i = 0; i < no; i++) before += ml[i] * u[i], after += ml[i] * out[i];
  CHECK_CLOSE(after, before, 1e-14);
  for (int i = 0; i < nn; i++) CHECK(out[i] == out[fe_mesh_owner(m, i)]);
  fe_vec_destroy(vu);
  fe_vec_destroy(vout);
  fe_backend_free(be, dv);
  fe_fct_destroy(f);
  fe_space_destroy(space);
  free(ml);
  free(ref);
  free(u);
  free(out);
  periodic_problem_free(&p);
}

int main(void)
{
  const char *dir = getenv("FESIM_TEST_DATA");
  if (!dir) {
    fprintf(stderr, "FESIM_TEST_DATA is not set\n");
    return 1;
  }
  snprintf(data_dir, sizeof data_dir, "%s", dir);
  setenv("FESIM_CHECK_GHOSTS", "1", 1); /* whatever ctest's environment says */
  read_squares();
  merged_incidence();
  halo_exchanges();
  ghost_state();
  evaluation();
  const struct fe_form mass = {.mass = 1.0}, lumped = {.mass = 1.0, .lumped = 1, .diffusion = 0.1},
                       diffusion = {.mass = 1.0, .diffusion = 0.3}, advection = {.advection = -1.0},
                       everything = {.mass = 0.7, .diffusion = 0.2, .advection = 0.5},
                       supg = {.mass = 1.0, .diffusion = 0.1, .advection = -0.8, .supg = 0.5};
  const struct fe_form *forms[] = {&mass, &lumped, &diffusion, &advection, &everything, &supg};
  for (int k = 0; k < 6; k++) {
    check_operators(2, 6, 3, 0, forms[k]); /* periodic in x and y */
    check_operators(2, 6, 1, 1, forms[k]); /* a channel: periodic in x, Dirichlet walls */
    check_operators(3, 3, 7, 0, forms[k]);
    check_operators(3, 3, 5, 1, forms[k]); /* periodic in x and z, walls in y */
  }
  fct(2, 6);
  fct(3, 3);
  TEST_DONE();
}
