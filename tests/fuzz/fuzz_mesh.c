/* libFuzzer targets: the mesh reader, fe_mesh_read (io/mesh.h), on arbitrary
 * bytes, through its real entry point: each input is written to a file in a
 * private directory and read from there.  Built twice (tests/fuzz/CMakeLists.txt):
 *   fuzz_mesh  the bytes as a .msh file: Gmsh's reader in the meshing
 *              process, then the stream handed back and our checks;
 *   fuzz_geo   the bytes as a .geo script: the script check (io/geo_check.h),
 *              then Gmsh in the confined meshing process, with a 2 s limit
 *              and at most 200000 cells.
 * Gmsh crashes only its own process now (tests/fuzz/findings): those inputs
 * are answered with exit 2 like any other bad mesh.  After each input the
 * directory must hold the input alone: a script that wrote a file beside it
 * got past the sandbox, and ends the run. */
#include "core/error.h"
#include "io/mesh.h"

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FUZZ_EXTENSION
#define FUZZ_EXTENSION ".msh"
#endif

/* libFuzzer's entry points take no context: the directory is process state. */
static char dir[4096], mesh_path[4200];

static void remove_dir(void)
{
  unlink(mesh_path);
  rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc;
  (void)argv;
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/fesim-fuzz-mesh.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    perror("fuzz_mesh: mkdtemp");
    abort();
  }
  snprintf(mesh_path, sizeof mesh_path, "%s/mesh%s", dir, FUZZ_EXTENSION);
  atexit(remove_dir);
  return 0;
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
    perror("fuzz_mesh: writing an input");
    abort();
  }
}

/* Anything but the input in the directory: the meshing process wrote it. */
static void check_nothing_written(void)
{
  DIR *d = opendir(dir);
  if (!d) abort();
  const char *input = strrchr(mesh_path, '/') + 1;
  for (struct dirent *e; (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, input)) continue;
    fprintf(stderr, "fuzz_mesh: the meshing process wrote '%s' in %s\n", e->d_name, dir);
    abort();
  }
  closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  write_file(mesh_path, data, size);
  const struct fe_mesh_options o = {.read_dir = dir, .time_limit = 2, .max_cells = 200000};
  struct fe_mesh *m = NULL;
  if (fe_mesh_read(mesh_path, &o, &m) == FE_SUCCESS) fe_mesh_destroy(m);
  check_nothing_written();
  return 0;
}
