/* Whole-run benchmark: a case file run on a structured mesh of the unit square
 * (2 N^2 triangles) or cube (6 N^3 tetrahedra) generated in memory, with
 * dt = COURANT / N and a fixed number of steps, through the same fe_run as
 * fesim.  One CSV row on stdout (the header with --header).
 *
 *   fesim-bench-case [options] CASE.xml DIM N
 *     --backend cpu|cuda   (default cuda when built with it, else cpu)
 *     --assembly addto|lma|matfree   --deterministic
 *     --steps K (default 10)   --courant C (default 0.25)   --output DIR (default /tmp/fesim-bench)
 *
 * The case's boundary conditions name the physical group "boundary", which is
 * the whole boundary of the structured mesh. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/run.h"
#include "backends/backends.h"
#include "core/error.h"
#include "core/timer.h"
#include "io/structured.h"

static const char header[] =
  "dim,cells,nodes,backend,strategy,steps,setup_s,loop_s,output_s,step_s,local_assembly_s,"
  "global_assembly_s,assemblies,advection_s,diffusion_s,cg_s,cg_iterations,cg_iteration_s,"
  "whole_run_s\n";

static int usage(const char *prog)
{
  fprintf(stderr,
          "usage: %s [--backend cpu|cuda] [--assembly addto|lma|matfree] [--deterministic] "
          "[--steps K] [--courant C] [--output DIR] [--header] CASE.xml DIM N\n",
          prog);
  return FE_ERR_USAGE;
}

static int bench(struct fe_options *o, int dim, int n, int steps, double courant)
{
  struct fe_case *c;
  FE_CALL(fe_case_read(o->case_path, &c));
  c->dt = courant / n;
  c->t_end = c->t_start + steps * c->dt;
  c->output_every = steps + 1; /* the first and the last state only */
  c->checkpoint_every = 0;
  struct fe_mesh *m = NULL;
  struct fe_run_report r;
  const double start = fe_wtime();
  int err = fe_mesh_create_structured(dim, n, 0.0, 1, &m);
  if (!err) {
    o->case_data = c;
    o->mesh = m;
    o->report = &r;
    o->time_solves = 1;
    err = fe_run(o);
  }
  const double whole = fe_wtime() - start;
  if (!err) {
    const char *backend = o->backend == FE_BACKEND_CUDA ? "cuda" : "cpu";
    char strategy[32];
    snprintf(strategy, sizeof strategy, "%s%s", fe_strategy_name(o->strategy),
             o->deterministic ? "-deterministic" : "");
    printf("%d,%d,%d,%s,%s,%ld,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e,%d,%.6e,%.6e,%.6e,%ld,%.6e,%.6e\n",
           dim, m->n_cells, m->n_nodes, backend, strategy, r.steps, r.setup, r.loop, r.output,
           (r.loop - r.output) / r.steps, r.local, r.global, r.assemblies, r.advection, r.diffusion,
           r.cg, r.cg_iterations, r.cg / (r.cg_iterations ? r.cg_iterations : 1), whole);
  }
  fe_mesh_destroy(m);
  fe_case_destroy(c);
  return err;
}

int main(int argc, char **argv)
{
  static const struct option longopts[] = {
    {"backend", required_argument, NULL, 'b'}, {"assembly", required_argument, NULL, 'a'},
    {"deterministic", no_argument, NULL, 'd'}, {"steps", required_argument, NULL, 's'},
    {"courant", required_argument, NULL, 'c'}, {"output", required_argument, NULL, 'o'},
    {"header", no_argument, NULL, 'H'},        {NULL, 0, NULL, 0}};
  struct fe_options o = {.verbosity = 0, .force = 1, .output_dir = "/tmp/fesim-bench",
                         .backend_set = 1, .strategy_set = 1, .strategy = FE_STRATEGY_LMA};
  o.backend = strstr(fe_backends_built(), "cuda") ? FE_BACKEND_CUDA : FE_BACKEND_CPU;
  int steps = 10, ch;
  double courant = 0.25;
  while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    switch (ch) {
    case 'b':
      if (fe_backend_parse(optarg, &o.backend)) return FE_ERR_USAGE;
      break;
    case 'a':
      if (fe_strategy_parse(optarg, &o.strategy)) return FE_ERR_USAGE;
      break;
    case 'd': o.deterministic = 1; break;
    case 's': steps = atoi(optarg); break;
    case 'c': courant = atof(optarg); break;
    case 'o': o.output_dir = optarg; break;
    case 'H': fputs(header, stdout); return 0;
    default: return usage(argv[0]);
    }
  }
  if (argc - optind != 3 || steps < 1 || courant <= 0) return usage(argv[0]);
  o.case_path = argv[optind];
  const int dim = atoi(argv[optind + 1]), n = atoi(argv[optind + 2]);
  if ((dim != 2 && dim != 3) || n < 1) return usage(argv[0]);
  return bench(&o, dim, n, steps, courant);
}
