/* libFuzzer target: the mesh reader, fe_mesh_read (io/mesh.h), on arbitrary
 * bytes read as a .msh file (Gmsh's reader, then our checks), through its
 * real entry point: each input is written to mesh.msh in a private directory
 * and read from there.
 *
 * Gmsh 4.8's .msh reader crashes on some malformed files by itself
 * (tests/fuzz/findings/gmsh_*.msh).  So that such inputs do not end every
 * run, Gmsh alone first opens each input in a child process, as io/mesh.c
 * does (initialize, open, finalize); an input on which that child dies is
 * not given to fe_mesh_read, and is saved in $FESIM_FUZZ_GMSH_CRASHES (the
 * first 20) for run.cmake to list.  The child runs no fesim code: a crash in
 * our code still ends the run. */
#include "core/error.h"
#include "io/mesh.h"

#include <errno.h>
#include <fcntl.h>
#include <gmshc.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sanitizer/common_interface_defs.h>

#define MAX_SAVED 20

/* libFuzzer's entry points take no context: the directory is process state. */
static char dir[4096], mesh_path[4200];
static int n_gmsh_crashes;

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
  snprintf(mesh_path, sizeof mesh_path, "%s/mesh.msh", dir);
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

static void child_died(void) { _exit(111); }

/* In the child: no libFuzzer crash handling (no artifact, no report). */
static void gmsh_alone(const char *path)
{
  static const int signals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
  for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) signal(signals[i], SIG_DFL);
  __sanitizer_set_death_callback(child_died);
  int devnull = open("/dev/null", O_WRONLY);
  if (devnull >= 0) __sanitizer_set_report_fd((void *)(intptr_t)devnull);
  int ierr = 0;
  gmshInitialize(0, NULL, 0, &ierr);
  gmshOptionSetNumber("General.Terminal", 0, &ierr);
  gmshOpen(path, &ierr);
  gmshFinalize(&ierr);
  _exit(0);
}

static int gmsh_alone_crashes(const char *path)
{
  pid_t pid = fork();
  if (pid < 0) {
    perror("fuzz_mesh: fork");
    abort();
  }
  if (pid == 0) gmsh_alone(path);
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      perror("fuzz_mesh: waitpid");
      abort();
    }
  return !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}

static void save_gmsh_crash(const uint8_t *data, size_t size)
{
  const char *where = getenv("FESIM_FUZZ_GMSH_CRASHES");
  if (!where || !*where || n_gmsh_crashes > MAX_SAVED) return;
  char path[4200];
  snprintf(path, sizeof path, "%s/gmsh_crash_%02d.msh", where, n_gmsh_crashes);
  write_file(path, data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  write_file(mesh_path, data, size);
  if (gmsh_alone_crashes(mesh_path)) {
    n_gmsh_crashes++;
    save_gmsh_crash(data, size);
    return -1; /* not added to the corpus */
  }
  struct fe_mesh *m = NULL;
  if (fe_mesh_read(mesh_path, 0, &m) == FE_SUCCESS) fe_mesh_destroy(m);
  return 0;
}
