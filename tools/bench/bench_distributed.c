/* Distributed solver benchmark: the unit square or cube of bench_operators (a structured mesh,
 * made in memory, not meshed by Gmsh, so that sizes one GPU cannot hold take seconds to set up)
 * cut by METIS into one part per process, as `mpirun -n K fesim` cuts a case's mesh
 * (app/distribution.h), and on each strategy's operator of M + 0.01 K (Jacobi CG, Dirichlet
 * walls) the times per call, the slowest process's:
 *   apply         y = A' x with its ghosts complete (x's exchange before, y's after);
 *   apply_owned   y = A' x on the owned entries (x's exchange only): what CG applies;
 *   cg_iteration  a CG solve of 50 iterations over their count (fesim's drive: host-driven on
 *                 several processes, one iteration ahead or not (solvers/cg.h); a CUDA graph
 *                 on one GPU);
 * and, apart from the strategy, the communication of a CG iteration:
 *   exchange      one halo update of a vector (the apply's);
 *   allreduce     one sum of two scalars held on the backend (CG's r.z and r.r; p.q is a
 *                 third of one scalar);
 *   communication one exchange and two all-reduces: what a CG iteration communicates.
 * One CSV row per (strategy, phase) on process 0's stdout; a partition line before.
 *
 *   mpirun -n K fesim-bench-distributed DIM N [cpu|cuda] [REPEATS] [STRATEGY...]
 *
 * DIM 2: 2 N^2 triangles; DIM 3: 6 N^3 tetrahedra; strategies default: lma addto matfree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/distribution.h"
#include "app/processes.h"
#include "assembly/operator.h"
#include "assembly/space.h"
#include "backends/backends.h"
#include "core/error.h"
#include "core/timer.h"
#include "io/structured.h"
#include "solvers/cg.h"
#include "solvers/halo.h"

struct bench {
  const struct fe_comm *comm; /* the host's, NULL on one process */
  const struct fe_backend *be;
  const struct fe_mesh *whole, *m; /* m: this process's part (whole on one process) */
  struct fe_space *space;
  struct fe_coefficients coef;
  int repeats, processes;
};

/* The slowest process's seconds. */
static int slowest(const struct bench *b, double *t)
{
  return b->comm ? fe_comm_allreduce(b->comm, t, 1, FE_REDUCE_MAX) : FE_SUCCESS;
}

/* Every process's queue drained, then every process here. */
static int line_up(const struct bench *b)
{
  FE_CALL(fe_backend_sync(b->be));
  double v = 0.0;
  return b->comm ? fe_comm_allreduce(b->comm, &v, 1, FE_REDUCE_SUM) : FE_SUCCESS;
}

static void row(const struct bench *b, const char *strategy, const char *phase, double seconds,
                int iterations)
{
  if (b->comm && b->comm->rank) return;
  printf("%d,%d,%ld,%ld,%s,%s,%s,%.6e,%d\n", b->processes, b->whole->dim, (long)b->whole->n_cells,
         (long)b->whole->n_nodes, b->be->name, strategy, phase, seconds, iterations);
  fflush(stdout);
}

enum action { APPLY, APPLY_OWNED, EXCHANGE, ALLREDUCE };

static int act(const struct bench *b, enum action what, struct fe_op *op, struct fe_vec *x,
               struct fe_vec *y, double *scalars)
{
  /* a new input each time, as CG's direction: its ghosts exchanged */
  if (what == APPLY || what == APPLY_OWNED) fe_vec_write(x);
  switch (what) {
  case APPLY: return fe_op_apply(op, x, y);
  case APPLY_OWNED: return fe_op_apply_owned(op, x, y);
  case EXCHANGE: return fe_halo_update(b->space->halo, 1, fe_vec_write(x));
  case ALLREDUCE: return fe_comm_allreduce_sum_device(b->be->comm, scalars, 2);
  }
  return FE_SUCCESS;
}

/* The slowest process's time per call of `what`, after one untimed call. */
static int time_action(const struct bench *b, enum action what, struct fe_op *op, struct fe_vec *x,
                       struct fe_vec *y, double *scalars, double *seconds)
{
  FE_CALL(act(b, what, op, x, y, scalars));
  FE_CALL(line_up(b));
  const double t0 = fe_wtime();
  for (int r = 0; r < b->repeats; r++) FE_CALL(act(b, what, op, x, y, scalars));
  FE_CALL(fe_backend_sync(b->be));
  *seconds = (fe_wtime() - t0) / b->repeats;
  return slowest(b, seconds);
}

static int communication(const struct bench *b)
{
  struct fe_vec *x;
  double *scalars, exchange, allreduce;
  FE_CALL(fe_space_vec_create(b->space, &x));
  FE_CALL(fe_vec_set(x, 1.0));
  FE_CALL(fe_backend_alloc(b->be, 2 * sizeof(double), (double[2]){1.0, 2.0}, &scalars));
  int err = time_action(b, EXCHANGE, NULL, x, NULL, NULL, &exchange);
  if (!err) err = time_action(b, ALLREDUCE, NULL, NULL, NULL, scalars, &allreduce);
  if (!err) {
    row(b, "-", "exchange", exchange, 0);
    row(b, "-", "allreduce", allreduce, 0);
    row(b, "-", "communication", exchange + 2 * allreduce, 0);
  }
  fe_backend_free(b->be, scalars);
  fe_vec_destroy(x);
  return err;
}

static int bench_strategy(const struct bench *b, enum fe_strategy strategy)
{
  const char *name = fe_strategy_name(strategy);
  const struct fe_form form = {.mass = 1.0, .diffusion = 0.01};
  struct fe_op *op;
  struct fe_vec *x = NULL, *y = NULL;
  struct fe_cg *cg = NULL;
  FE_CALL(fe_operator_create(b->space, strategy, &op));
  int err = fe_operator_assemble(op, &form, &b->coef);
  if (!err) err = fe_space_vec_create(b->space, &x);
  if (!err) err = fe_space_vec_create(b->space, &y);
  if (!err) err = fe_vec_set(x, 1.0);
  double t;
  if (!err) err = time_action(b, APPLY, op, x, y, NULL, &t);
  if (!err) row(b, name, "apply", t, 0);
  if (!err) err = time_action(b, APPLY_OWNED, op, x, y, NULL, &t);
  if (!err) row(b, name, "apply_owned", t, 0);
  if (!err) err = fe_cg_create(x, &cg);
  struct fe_cg_options opt = {.max_iterations = 50, .jacobi = 1};
  struct fe_cg_result res = {0};
  for (int k = 0; k < 2 && !err; k++) { /* k = 0: warm-up (the device's loop built) */
    err = fe_vec_set(y, 0.0);
    if (!err && k) err = line_up(b);
    t = fe_wtime();
    if (!err) err = fe_cg_solve(cg, op, x, y, &opt, &res);
    if (!err) err = fe_backend_sync(b->be);
    t = (fe_wtime() - t) / (res.iterations ? res.iterations : 1);
  }
  if (!err) err = slowest(b, &t);
  if (!err) row(b, name, "cg_iteration", t, res.iterations);
  fe_cg_destroy(cg);
  fe_vec_destroy(x);
  fe_vec_destroy(y);
  fe_op_destroy(op);
  return err;
}

/* The partition in one line: the most cells, owned and ghost nodes of a process. */
static int print_partition(const struct bench *b)
{
  double v[3] = {(double)b->m->n_cells,
                 (double)fe_mesh_n_owned(b->m),
                 (double)b->m->n_ghost};
  if (b->comm) FE_CALL(fe_comm_allreduce(b->comm, v, 3, FE_REDUCE_MAX));
  if (!b->comm || !b->comm->rank)
    printf("# %d process(es), %s: at most %.0f cells, %.0f owned and %.0f ghost nodes a process\n",
           b->processes, b->be->description, v[0], v[1], v[2]);
  return FE_SUCCESS;
}

static int run(const struct fe_comm *comm, int dim, int n, const char *backend, int repeats,
               int n_strategies, char **strategies)
{
  struct bench b = {.comm = comm, .repeats = repeats, .processes = comm ? comm->size : 1};
  struct fe_mesh *whole;
  struct fe_distribution *d = NULL;
  enum fe_backend_kind kind;
  struct fe_backend *be = NULL;
  unsigned char *isd = NULL;
  double *diff = NULL;
  FE_CALL(fe_backend_parse(backend, &kind));
  const double t0 = fe_wtime();
  FE_CALL(fe_mesh_create_structured(dim, n, 0.0, 1, &whole));
  b.whole = b.m = whole;
  const double t1 = fe_wtime();
  int err = comm ? fe_distribution_create(comm, whole, 0, NULL, NULL, &d) : FE_SUCCESS;
  const double t2 = fe_wtime();
  if (!err && d) b.m = d->part;
  const struct fe_backend_options bo = {.device = -1, .comm = comm};
  if (!err) err = fe_backend_create(kind, &bo, &be);
  b.be = be;
  /* Dirichlet walls: the whole mesh's boundary nodes, as this process numbers them */
  unsigned char *wall = calloc((size_t)whole->n_nodes, 1);
  if (!err) err = fe_malloc((size_t)b.m->n_nodes + 1, &isd);
  if (!err && !wall) err = FE_ERR_RESOURCE;
  if (!err) {
    for (long f = 0; f < (long)whole->n_facets * dim; f++) wall[whole->facets[f]] = 1;
    for (long i = 0; i < b.m->n_nodes; i++)
      isd[i] = wall[b.m->global_node ? b.m->global_node[i] : i];
    err = fe_space_create(be, b.m, isd, &b.space);
  }
  /* the identity diffusivity, uniform as in the benchmark cases (one tensor for every cell) */
  double h[6] = {1, 0, 1, 0, 0, 0};
  if (dim == 3) memcpy(h, (double[6]){1, 0, 0, 1, 0, 1}, sizeof h);
  if (!err) err = fe_backend_alloc(be, sizeof h, h, &diff);
  b.coef.diffusivity = diff;
  b.coef.uniform_diffusivity = 1;
  if (!err) err = print_partition(&b);
  if (!err && (!comm || !comm->rank))
    printf("# set-up on process 0: mesh %.1f s, partition %.1f s, backend and space %.1f s\n",
           t1 - t0, t2 - t1, fe_wtime() - t2);
  if (!err && (!comm || !comm->rank))
    printf("processes,dim,cells,nodes,backend,strategy,phase,seconds,iterations\n");
  if (!err) err = communication(&b);
  static char *all[] = {"lma", "addto", "matfree"};
  if (!n_strategies) n_strategies = 3, strategies = all;
  for (int k = 0; k < n_strategies && !err; k++) {
    enum fe_strategy s;
    err = fe_strategy_parse(strategies[k], &s);
    if (!err) err = bench_strategy(&b, s);
  }
  if (be) fe_backend_free(be, diff);
  fe_space_destroy(b.space);
  fe_backend_destroy(be);
  fe_distribution_destroy(d);
  fe_mesh_destroy(whole);
  free(isd);
  free(wall);
  return err;
}

int main(int argc, char **argv)
{
  struct fe_processes p;
  int err = fe_processes_start(&argc, &argv, &p);
  if (err) return err;
  if (argc < 3) {
    fprintf(stderr, "usage: mpirun -n K %s DIM N [cpu|cuda] [REPEATS] [STRATEGY...]\n", argv[0]);
    err = FE_ERR_USAGE;
  } else {
    err = run(p.comm, atoi(argv[1]), atoi(argv[2]), argc > 3 ? argv[3] : "cpu",
              argc > 4 ? atoi(argv[4]) : 20, argc > 5 ? argc - 5 : 0, argv + 5);
  }
  const struct fe_run_report report = {0};
  return fe_processes_finish(&p, err, &report);
}
