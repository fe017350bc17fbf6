/* libFuzzer target: the case reader, fe_case_read (io/case.h), on arbitrary
 * bytes, through its real entry point: each input is written to case.xml in
 * a private directory and read from there.  The directory also holds empty
 * files under the mesh names of the seed cases (the reader only checks that
 * the mesh exists), so that mutated seeds get past <mesh> to the rest.  A
 * case that reads is then evaluated once, as the run's set-up would. */
#include "core/error.h"
#include "io/case.h"
#include "io/expr.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *const mesh_names[] = {"square.geo", "disk.geo", "cube.geo", "mesh.msh"};
#define N_MESH_NAMES ((int)(sizeof mesh_names / sizeof mesh_names[0]))

/* libFuzzer's entry points take no context: the directory is process state. */
static char dir[4096], case_path[4200];

static void file_in_dir(const char *name, char *buf, size_t size)
{
  snprintf(buf, size, "%s/%s", dir, name);
}

static void remove_dir(void)
{
  char p[4200];
  for (int i = 0; i < N_MESH_NAMES; i++) {
    file_in_dir(mesh_names[i], p, sizeof p);
    unlink(p);
  }
  unlink(case_path);
  rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc;
  (void)argv;
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/fesim-fuzz-case.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    perror("fuzz_case: mkdtemp");
    abort();
  }
  for (int i = 0; i < N_MESH_NAMES; i++) {
    char p[4200];
    file_in_dir(mesh_names[i], p, sizeof p);
    FILE *f = fopen(p, "w");
    if (!f) {
      perror("fuzz_case: creating a mesh file");
      abort();
    }
    fclose(f);
  }
  file_in_dir("case.xml", case_path, sizeof case_path);
  atexit(remove_dir);
  return 0;
}

static double eval(const struct fe_expr *e)
{
  static const double xyz[3] = {0.25, 0.5, 0.75};
  return e ? fe_expr_eval(e, xyz, 0.5) : 0;
}

/* Every expression of the case, at one point. */
static double evaluate(const struct fe_case *c)
{
  double sum = eval(c->tracers[0].initial) + eval(c->tracers[0].source) + eval(c->tracers[0].exact);
  for (int d = 0; d < c->n_velocity; d++) sum += eval(c->velocity[d]);
  for (int k = 0; k < c->tracers[0].n_diffusivity; k++) sum += eval(c->tracers[0].diffusivity[k]);
  for (int b = 0; b < c->tracers[0].n_boundaries; b++) sum += eval(c->tracers[0].boundaries[b].value);
  return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  FILE *f = fopen(case_path, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
    perror("fuzz_case: writing the input");
    abort();
  }
  struct fe_case *c = NULL;
  if (fe_case_read(case_path, &c) == FE_SUCCESS) {
    volatile double sink = evaluate(c);
    (void)sink;
    fe_case_destroy(c);
  }
  return 0;
}
