/* Operator benchmark: on a structured mesh of the unit square or cube, or a Gmsh mesh, time
 * each phase that the strategies compare (local assembly, addto's global
 * assembly, operator apply, a CG iteration) and report the compulsory bytes
 * each phase moves and the bandwidth achieved, next to the device's copy
 * bandwidth.  One CSV row per (phase, strategy) on stdout.
 *
 *   fesim-bench-operators DIM N [cpu|cuda] [REPEATS]
 *   fesim-bench-operators MESH [cpu|cuda] [REPEATS] [SIZE]
 *
 * DIM 2: 2 N^2 triangles; DIM 3: 6 N^3 tetrahedra.  MESH: a Gmsh .msh file, or a .geo script
 * meshed at SIZE (mesh@size; none or <= 0: the script's own), read as fesim reads a case's
 * mesh (renumbered by reverse Cuthill-McKee, cells sorted); on either, the nodes of the
 * mesh's boundary facets are Dirichlet nodes.  The form, M + 0.01 K, is symmetric, so
 * LMA stores the upper triangle of its element matrices (rows lma, lma-deterministic, the
 * element kernels epbE_tpeT, lma-blockB); the rows whose strategy has "-full" store every
 * entry, as addto does, for comparison.
 *
 * FESIM_BENCH_STRATEGIES (a list of row strategies, e.g. "addto,matfree"): only those
 * strategies' rows, without the sweeps of element kernels and interleave widths. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "assembly/csr.h"
#include "assembly/kernels.h"
#include "assembly/operator.h"
#include "backends/backends.h"
#include "core/error.h"
#include "core/timer.h"
#include "io/mesh.h"
#include "io/structured.h"
#include "solvers/cg.h"

struct bench {
  const struct fe_backend *be;
  struct fe_mesh *m;
  struct fe_space *space;
  double *diff;
  struct fe_coefficients coef;
  int repeats;
  double copy_gbs;
};

static void row(const struct bench *b, const char *phase, const char *strategy, double seconds,
                double bytes, double extra)
{
  printf("%d,%d,%d,%s,%s,%s,%.6e,%.6e,%.2f,%.3f,%.4g\n", b->m->dim, b->m->n_cells, b->m->n_nodes,
         b->be->name, strategy, phase, seconds, bytes, bytes / seconds / 1e9,
         bytes / seconds / 1e9 / b->copy_gbs, extra);
  fflush(stdout);
}

/* device copy bandwidth: read + write of a large vector */
static int copy_bandwidth(struct bench *b)
{
  const size_t n = (size_t)1 << 27; /* 1 GiB */
  struct fe_vec *x, *y;
  FE_CALL(fe_vec_create(b->be, n, &x));
  FE_CALL(fe_vec_create(b->be, n, &y));
  FE_CALL(fe_vec_copy(x, y));
  FE_CALL(fe_backend_sync(b->be));
  double t0 = fe_wtime();
  for (int r = 0; r < b->repeats; r++) FE_CALL(fe_vec_copy(x, y));
  FE_CALL(fe_backend_sync(b->be));
  double t = (fe_wtime() - t0) / b->repeats;
  b->copy_gbs = 2.0 * n * sizeof(double) / t / 1e9;
  printf("# copy bandwidth %.1f GB/s\n", b->copy_gbs);
  fe_vec_destroy(x);
  fe_vec_destroy(y);
  return FE_SUCCESS;
}

/* Compulsory bytes of local assembly: coordinates, cells, Dirichlet masks in; the element
 * matrices out, the entries op stores per cell (fe_operator_storage). */
static double local_bytes(const struct bench *b, const struct fe_op *op)
{
  const int d = b->m->dim, nv = d + 1, ns = fe_storage_entries(nv, fe_operator_storage(op));
  const double nc = b->m->n_cells, nn = b->m->n_nodes;
  return nn * d * 8 + nc * nv * 4 + nc + nc * ns * 8;
}

/* Compulsory bytes of the LMA apply: the stored entries and the cells in, x in and y out. */
static double lma_apply_bytes(const struct bench *b, const struct fe_op *op)
{
  const int nv = b->m->dim + 1, ns = fe_storage_entries(nv, fe_operator_storage(op));
  const double nc = b->m->n_cells, nn = b->m->n_nodes;
  return nc * ns * 8 + nc * nv * 4 + nn * 16;
}

/* local assembly with every variant of the element kernel the backend has, in the form's
 * storage (the upper triangle) and in full ("-full") */
static int sweep_element_kernels(struct bench *b)
{
  const int d = b->m->dim;
  const struct fe_form form = {.mass = 1.0, .diffusion = 0.01};
  const struct fe_element_kernels *ek = &b->be->assembly->element;
  for (int full = 0; full < 2; full++) {
    struct fe_op *op;
    FE_CALL(fe_operator_create(b->space, FE_STRATEGY_LMA, &op));
    fe_operator_store_full(op, full);
    int epb, tpe;
    for (int k = 0; ek->variant(d, k, &epb, &tpe); k++) {
      FE_CALL(ek->use_variant(b->be, d, epb, tpe));
      FE_CALL(fe_operator_assemble(op, &form, &b->coef));
      const struct fe_assembly_times t0 = *fe_operator_times(op);
      for (int r = 0; r < b->repeats; r++) FE_CALL(fe_operator_assemble(op, &form, &b->coef));
      char name[64];
      snprintf(name, sizeof name, "epb%d_tpe%d%s", epb, tpe, full ? "-full" : "");
      row(b, "element_kernel", name, (fe_operator_times(op)->local - t0.local) / b->repeats,
          local_bytes(b, op), 0);
    }
    FE_CALL(ek->use_variant(b->be, d, 0, 0));
    fe_op_destroy(op);
  }
  return FE_SUCCESS;
}

/* LMA local assembly and apply for each interleave width of the element storage, in the
 * form's storage and in full */
static int sweep_block_widths(struct bench *b)
{
  const struct fe_mesh *m = b->m;
  const struct fe_form form = {.mass = 1.0, .diffusion = 0.01};
  struct fe_vec *x, *y;
  FE_CALL(fe_vec_create(b->be, m->n_nodes, &x));
  FE_CALL(fe_vec_create(b->be, m->n_nodes, &y));
  FE_CALL(fe_vec_set(x, 1.0));
  for (int full = 0; full < 2; full++)
    for (int shift = 0; shift <= FE_BLOCK_SHIFT_MAX; shift++) {
      b->space->block_shift = shift;
      struct fe_op *op;
      FE_CALL(fe_operator_create(b->space, FE_STRATEGY_LMA, &op));
      fe_operator_store_full(op, full);
      FE_CALL(fe_operator_assemble(op, &form, &b->coef));
      const struct fe_assembly_times t0 = *fe_operator_times(op);
      for (int r = 0; r < b->repeats; r++) FE_CALL(fe_operator_assemble(op, &form, &b->coef));
      char name[32];
      snprintf(name, sizeof name, "lma%s-block%d", full ? "-full" : "", 1 << shift);
      row(b, "local_assembly", name, (fe_operator_times(op)->local - t0.local) / b->repeats,
          local_bytes(b, op), 0);
      FE_CALL(fe_op_apply(op, x, y));
      FE_CALL(fe_backend_sync(b->be));
      const double s = fe_wtime();
      for (int r = 0; r < b->repeats; r++) FE_CALL(fe_op_apply(op, x, y));
      FE_CALL(fe_backend_sync(b->be));
      row(b, "apply", name, (fe_wtime() - s) / b->repeats, lma_apply_bytes(b, op), 0);
      fe_op_destroy(op);
    }
  b->space->block_shift = FE_BLOCK_SHIFT_DEFAULT;
  fe_vec_destroy(x);
  fe_vec_destroy(y);
  return FE_SUCCESS;
}

/* Whether FESIM_BENCH_STRATEGIES, where set, names the rows' strategy name; NULL: the sweeps
 * of element kernels and interleave widths. */
static int chosen(const char *name)
{
  const char *list = getenv("FESIM_BENCH_STRATEGIES");
  if (!list || !*list) return 1;
  if (!name) return 0;
  const size_t n = strlen(name);
  for (const char *w = list; *w;) {
    const size_t k = strcspn(w, ",");
    if (k == n && !strncmp(w, name, n)) return 1;
    w += k + (w[k] == ',');
  }
  return 0;
}

/* full: LMA storing every entry of the (symmetric) form's matrices */
static int bench_strategy(struct bench *b, enum fe_strategy strategy, int full, int deterministic)
{
  const struct fe_mesh *m = b->m;
  const int d = m->dim, nv = d + 1, nk = nv * nv;
  const double nc = m->n_cells, nn = m->n_nodes;
  char name[48];
  snprintf(name, sizeof name, "%s%s%s", fe_strategy_name(strategy), full ? "-full" : "",
           deterministic ? "-deterministic" : "");
  if (!chosen(name)) return FE_SUCCESS;
  b->space->deterministic = deterministic;
  struct fe_op *op;
  FE_CALL(fe_operator_create(b->space, strategy, &op));
  fe_operator_store_full(op, full);
  const struct fe_form form = {.mass = 1.0, .diffusion = 0.01};
  FE_CALL(fe_operator_assemble(op, &form, &b->coef)); /* warm-up */
  const struct fe_assembly_times t0 = *fe_operator_times(op);
  for (int r = 0; r < b->repeats; r++) FE_CALL(fe_operator_assemble(op, &form, &b->coef));
  const struct fe_assembly_times *t = fe_operator_times(op);
  if (!deterministic && strategy != FE_STRATEGY_MATFREE)
    row(b, "local_assembly", name, (t->local - t0.local) / b->repeats, local_bytes(b, op), 0);
  struct fe_csr *csr = fe_operator_csr(op);
  if (csr) /* element matrices and map in; CSR values read and written */
    row(b, "global_assembly", name, (t->global - t0.global) / b->repeats,
        nc * nk * 12 + csr->nnz * 16.0, 0);

  struct fe_vec *x, *y;
  FE_CALL(fe_vec_create(b->be, m->n_nodes, &x));
  FE_CALL(fe_vec_create(b->be, m->n_nodes, &y));
  FE_CALL(fe_vec_set(x, 1.0));
  FE_CALL(fe_op_apply(op, x, y));
  FE_CALL(fe_backend_sync(b->be));
  double s = fe_wtime();
  for (int r = 0; r < b->repeats; r++) FE_CALL(fe_op_apply(op, x, y));
  FE_CALL(fe_backend_sync(b->be));
  const double apply = (fe_wtime() - s) / b->repeats;
  /* matfree: coordinates, cells and masks instead of element matrices */
  const double apply_bytes = csr ? csr->nnz * 12.0 + nn * 4 + nn * 16
                             : strategy == FE_STRATEGY_MATFREE
                                 ? nn * d * 8 + nc * nv * 4 + nc + nn * 16
                                 : lma_apply_bytes(b, op);
  row(b, "apply", name, apply, apply_bytes, 0);

  /* CG iterations on M + 0.01 K (Jacobi), a fixed count: each residual read before the
   * next iteration is queued (cg_iteration_sync), one iteration late (cg_iteration_ahead),
   * on the GPU in a loop of the device's own (cg_iteration_graph), and as fesim drives it
   * (cg_iteration: on the GPU one kernel where the operator has one for the mesh, LMA up to
   * FESIM_CUDA_CG_KERNEL nodes, else the graph) */
  struct fe_cg *cg;
  FE_CALL(fe_cg_create(x, &cg));
  const int drives[4] = {FE_CG_DRIVE_SYNC, FE_CG_DRIVE_AHEAD, FE_CG_DRIVE_DEVICE, FE_CG_DRIVE_AUTO};
  const char *rows[4] = {"cg_iteration_sync", "cg_iteration_ahead", "cg_iteration_graph",
                         "cg_iteration"};
  for (int k = 0; k < 4; k++) {
    if (k > 0 && !b->be->asynchronous) break;
    if (k == 2 && !b->be->device_loops) continue;
    struct fe_cg_options opt = {.max_iterations = 50, .jacobi = 1, .drive = drives[k]};
    struct fe_cg_result res;
    FE_CALL(fe_vec_set(y, 0.0));
    FE_CALL(fe_cg_solve(cg, op, x, y, &opt, &res)); /* warm-up (and the device's loop built) */
    FE_CALL(fe_vec_set(y, 0.0));
    FE_CALL(fe_backend_sync(b->be));
    s = fe_wtime();
    FE_CALL(fe_cg_solve(cg, op, x, y, &opt, &res));
    FE_CALL(fe_backend_sync(b->be));
    const double it = (fe_wtime() - s) / (res.iterations ? res.iterations : 1);
    /* apply + p.q (2 vectors) + update (x, p, r, q, dinv read; x, r, z written: 8) +
     * direction (3) */
    row(b, b->be->asynchronous ? rows[k] : "cg_iteration", name, it,
        apply_bytes + nn * 8 * (2 + 8 + 3), res.iterations);
  }
  fe_cg_destroy(cg);
  fe_vec_destroy(x);
  fe_vec_destroy(y);
  fe_op_destroy(op);
  return FE_SUCCESS;
}

/* m: the mesh, destroyed here */
static int run(struct fe_mesh *m, const char *backend, int repeats)
{
  struct bench b = {.repeats = repeats, .m = m};
  const int dim = m->dim;
  enum fe_backend_kind kind;
  struct fe_backend *be;
  FE_CALL(fe_backend_parse(backend, &kind));
  FE_CALL(fe_backend_create(kind, NULL, &be));
  b.be = be;
  printf("# backend %s\n", be->description);
  unsigned char *isd = calloc((size_t)b.m->n_nodes, 1);
  for (int f = 0; f < b.m->n_facets * dim; f++) isd[b.m->facets[f]] = 1;
  FE_CALL(fe_space_create(b.be, b.m, isd, &b.space));
  /* the identity diffusivity, uniform as in the benchmark cases (one tensor for every cell) */
  const int ns = dim * (dim + 1) / 2;
  double h[6];
  for (int k = 0; k < ns; k++) h[k] = (k == 0 || k == (dim == 2 ? 2 : 3) || k == 5) ? 1.0 : 0.0;
  FE_CALL(fe_backend_alloc(b.be, sizeof h, h, &b.diff));
  b.coef.diffusivity = b.diff;
  b.coef.uniform_diffusivity = 1;
  FE_CALL(copy_bandwidth(&b));
  printf("dim,cells,nodes,backend,strategy,phase,seconds,bytes,GB_per_s,fraction_of_copy,"
         "iterations\n");
  int epb, tpe;
  if (be->assembly->element.variant(dim, 1, &epb, &tpe) && chosen(NULL))
    FE_CALL(sweep_element_kernels(&b));
  if (chosen(NULL)) FE_CALL(sweep_block_widths(&b));
  /* the deterministic scatter too where the default one uses atomics; LMA in both storages */
  for (int full = 0; full < 2; full++) {
    FE_CALL(bench_strategy(&b, FE_STRATEGY_LMA, full, 0));
    if (be->atomic_scatter) FE_CALL(bench_strategy(&b, FE_STRATEGY_LMA, full, 1));
  }
  FE_CALL(bench_strategy(&b, FE_STRATEGY_ADDTO, 0, 0));
  FE_CALL(bench_strategy(&b, FE_STRATEGY_MATFREE, 0, 0));
  if (be->atomic_scatter) FE_CALL(bench_strategy(&b, FE_STRATEGY_MATFREE, 0, 1));
  fe_backend_free(b.be, b.diff);
  fe_space_destroy(b.space);
  fe_mesh_destroy(b.m);
  free(isd);
  fe_backend_destroy(be);
  return FE_SUCCESS;
}

int main(int argc, char **argv)
{
  const char *dot = argc > 1 ? strrchr(argv[1], '.') : NULL;
  const int file = dot && (fe_mesh_is_geo(argv[1]) || !strcasecmp(dot, ".msh"));
  if (argc < (file ? 2 : 3)) {
    fprintf(stderr,
            "usage: %s DIM N [cpu|cuda] [REPEATS]\n       %s MESH.msh|MESH.geo [cpu|cuda] "
            "[REPEATS] [SIZE]\n",
            argv[0], argv[0]);
    return FE_ERR_USAGE;
  }
  const int at = file ? 2 : 3; /* the backend's argument */
  struct fe_mesh *m;
  int err;
  if (file) {
    const struct fe_mesh_options o = {.size = argc > at + 2 ? atof(argv[at + 2]) : 0.0};
    err = fe_mesh_read(argv[1], &o, &m);
  } else {
    err = fe_mesh_create_structured(atoi(argv[1]), atoi(argv[2]), 0.0, 1, &m);
  }
  if (err) return err;
  return run(m, argc > at ? argv[at] : "cpu", argc > at + 1 ? atoi(argv[at + 1]) : 10);
}
