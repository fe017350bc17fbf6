/* fesim-mesh: reads a Gmsh mesh or meshes a .geo script for fesim, confined
 * (io/sandbox.h), and hands the mesh back on descriptor 3 (io/mesher.h).
 * fesim starts it; it is not meant to be run by hand, but can be:
 *   fesim-mesh [--size S] [--read-dir DIR] [--time-limit SECONDS]
 *              [--max-cells N] [--name NAME] [--summary] FILE
 * --name: the file as messages name it (fesim cuts long paths).
 * --summary prints the counts on stdout instead of the mesh (for tests). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "core/error.h"
#include "io/gmsh_read.h"
#include "io/mesher.h"
#include "io/sandbox.h"

struct args {
  const char *file, *name, *read_dir; /* name: the file as messages name it */
  double size, time_limit;
  size_t max_cells;
  int max_cells_given, summary;
};

/* ---- the time limit: a message from the signal handler ----------------------- */

static volatile sig_atomic_t stage = FE_GMSH_STARTING;
static char alarm_head[1024], alarm_middle[128], alarm_tail[512]; /* formatted before it rings */

static size_t put(char *out, size_t at, size_t size, const char *s)
{
  while (*s && at + 1 < size) out[at++] = *s++;
  return at;
}

static void on_alarm(int sig)
{
  (void)sig;
  static const char *const doing[] = {
      [FE_GMSH_STARTING] = "starting Gmsh",     [FE_GMSH_PARSING] = "running the script",
      [FE_GMSH_MESHING_1D] = "meshing curves",  [FE_GMSH_MESHING_2D] = "meshing surfaces",
      [FE_GMSH_MESHING_3D] = "meshing volumes", [FE_GMSH_EXTRACTING] = "collecting the mesh"};
  char msg[3072], digits[16];
  size_t at = put(msg, 0, sizeof msg, alarm_head);
  const int line = stage == FE_GMSH_PARSING ? fe_gmsh_parse_line() : 0;
  if (line > 0) {
    int n = 0;
    for (int v = line; v && n < 15; v /= 10) digits[n++] = (char)('0' + v % 10);
    at = put(msg, at, sizeof msg, ":");
    while (n > 0 && at + 1 < sizeof msg) msg[at++] = digits[--n];
  }
  at = put(msg, at, sizeof msg, alarm_middle);
  at = put(msg, at, sizeof msg, doing[stage]);
  at = put(msg, at, sizeof msg, alarm_tail);
  ssize_t ignored = write(STDERR_FILENO, msg, at);
  (void)ignored;
  _exit(FE_ERR_INPUT);
}

static void arm_alarm(const struct args *a)
{
  snprintf(alarm_head, sizeof alarm_head, "fesim: error: %s", a->name ? a->name : a->file);
  snprintf(alarm_middle, sizeof alarm_middle, ": stopped after %g s while ", a->time_limit);
  snprintf(alarm_tail, sizeof alarm_tail,
           "; expected it to end within --mesh-time-limit %g (an endless loop, or a mesh too "
           "fine?): raise the limit, or mesh it coarser\n",
           a->time_limit);
  signal(SIGALRM, on_alarm);
  const struct itimerval t = {
      {0, 0},
      {(time_t)a->time_limit, (suseconds_t)(1e6 * (a->time_limit - (time_t)a->time_limit))}};
  if (a->time_limit > 0) setitimer(ITIMER_REAL, &t, NULL);
}

/* ---- frames ------------------------------------------------------------------ */

struct out {
  int fd, summary;
};

static int send_frame(int fd, char type, const void *payload, uint32_t n)
{
  char head[5];
  head[0] = type;
  memcpy(head + 1, &n, sizeof n);
  /* frames are small except the mesh, which fe_mesh_raw_write sends */
  if (write(fd, head, sizeof head) != (ssize_t)sizeof head) return -1;
  return n && write(fd, payload, n) != (ssize_t)n ? -1 : 0;
}

static void on_progress(void *ctx, int s, const char *what)
{
  const struct out *o = ctx;
  stage = s;
  char frame[256];
  frame[0] = (char)s;
  const size_t n = strlen(what) < sizeof frame - 1 ? strlen(what) : sizeof frame - 1;
  memcpy(frame + 1, what, n);
  if (!o->summary) send_frame(o->fd, 'P', frame, (uint32_t)n + 1);
}

/* ---- command line ----------------------------------------------------------- */

static int parse(int argc, char **argv, struct args *a)
{
  memset(a, 0, sizeof *a);
  a->max_cells = FE_MESH_MAX_CELLS;
  a->time_limit = FE_MESH_TIME_LIMIT;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    char *end = NULL;
    if (!strcmp(s, "--summary")) {
      a->summary = 1;
      continue;
    }
    if (s[0] != '-') {
      FE_CHECK(!a->file, FE_ERR_USAGE, "fesim-mesh: one mesh file expected, found '%s' after '%s'",
               s, a->file);
      a->file = s;
      continue;
    }
    FE_CHECK(v, FE_ERR_USAGE, "fesim-mesh: option '%s' needs a value", s);
    i++;
    if (!strcmp(s, "--size")) {
      a->size = strtod(v, &end);
    } else if (!strcmp(s, "--time-limit")) {
      a->time_limit = strtod(v, &end);
    } else if (!strcmp(s, "--max-cells")) {
      a->max_cells = (size_t)strtoull(v, &end, 10);
      a->max_cells_given = 1;
    } else if (!strcmp(s, "--read-dir")) {
      a->read_dir = v;
      end = (char *)v + strlen(v);
    } else if (!strcmp(s, "--name")) {
      a->name = v;
      end = (char *)v + strlen(v);
    } else {
      FE_RAISE(FE_ERR_USAGE, "fesim-mesh: '%s' is an unknown option", s);
    }
    FE_CHECK(end && end != v && !*end, FE_ERR_USAGE, "fesim-mesh: '%s' is not a value for %s", v,
             s);
  }
  FE_CHECK(a->file, FE_ERR_USAGE,
           "usage: fesim-mesh [--size S] [--read-dir DIR] [--time-limit SECONDS] [--max-cells N] "
           "[--name NAME] [--summary] FILE");
  return FE_SUCCESS;
}

static int run(const struct args *a)
{
  struct out o = {.fd = a->summary ? STDOUT_FILENO : FE_MESHER_FD, .summary = a->summary};
  size_t total;
  const size_t available = fe_memory_available(&total);
  /* address space: the machine's memory and room for Gmsh's libraries and
   * threads; none when --max-cells lifts the limits (the kernel's
   * out-of-memory killer then takes this process first: oom_score_adj), nor
   * under a sanitizer, which reserves terabytes of it */
  size_t memory = total && !a->max_cells_given
                      ? (total > available ? total : available) + ((size_t)4 << 30)
                      : 0;
#if defined(__SANITIZE_ADDRESS__)
  memory = 0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  memory = 0;
#endif
#endif
  struct fe_sandbox box = {.file = a->file,
                           .read_dir = a->read_dir,
                           .memory = memory,
                           .keep_fd = a->summary ? STDERR_FILENO : FE_MESHER_FD};
  FE_CALL(fe_sandbox_enter(&box));
  char note[96];
  snprintf(note, sizeof note, "confined: %s, seccomp, no file writes",
           box.landlock_abi ? "Landlock" : "no Landlock in this kernel");
  on_progress(&o, FE_GMSH_STARTING, note);
  arm_alarm(a);
  const struct fe_gmsh_options g = {.name = a->name,
                                    .size = a->size,
                                    .max_cells = a->max_cells,
                                    .max_cells_given = a->max_cells_given,
                                    .memory = available,
                                    .progress = on_progress,
                                    .ctx = &o};
  struct fe_mesh_raw r;
  FE_CALL(fe_gmsh_read(a->file, &g, &r));
  int err = FE_SUCCESS;
  if (a->summary) {
    printf("%dD, %zu nodes, %zu cells, %zu facets, %d groups, %d periodic links of %zu node "
           "pairs, Landlock ABI %d\n",
           r.dim, r.n_nodes, r.n_cells, r.n_facets, r.n_groups, r.n_links, r.n_pairs,
           box.landlock_abi);
    fflush(stdout);
  } else if (send_frame(o.fd, 'M', NULL, 0)) {
    err = fe_error_raise(FE_ERR_RESOURCE, __FILE__, __LINE__, "cannot hand the mesh to fesim: %s",
                         strerror(errno));
  } else {
    err = fe_mesh_raw_write(o.fd, &r);
  }
  fe_mesh_raw_free(&r);
  return err;
}

int main(int argc, char **argv)
{
  struct args a;
  int err = parse(argc, argv, &a);
  if (!err) err = run(&a);
  /* _exit: no atexit work (a sanitizer's leak check needs ptrace, refused here) */
  fflush(NULL);
  _exit(err);
}
