#define _GNU_SOURCE /* pipe2 */
#include "io/mesher.h"

#include "core/error.h"
#include "core/timer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

enum { DIAG_KEEP = 1 << 16, GRACE_SECONDS = 10 };

/* ---- finding and starting the meshing process -------------------------------- */

/* Beside the running program (bin/fesim and bin/fesim-mesh), else where the
 * build put it (tests and tools run from other folders of the build). */
static int find_mesher(char *path, size_t size)
{
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash) {
      *slash = '\0';
      if ((size_t)snprintf(path, size, "%s/%s", self, FE_MESHER_NAME) < size && !access(path, X_OK))
        return FE_SUCCESS;
    }
  }
#ifdef FESIM_MESHER_PATH
  if ((size_t)snprintf(path, size, "%s", FESIM_MESHER_PATH) < size && !access(path, X_OK))
    return FE_SUCCESS;
#endif
  FE_RAISE(FE_ERR_RESOURCE,
           "cannot find %s, the program that reads and meshes Gmsh files for fesim: expected it "
           "beside fesim (%s)",
           FE_MESHER_NAME, n > 0 ? self : "?");
}

struct child {
  pid_t pid;
  int result, diag; /* read ends */
};

/* Pipe ends above the standard descriptors and 3, close-on-exec. */
static int make_pipe(int fds[2])
{
  int p[2];
  if (pipe2(p, O_CLOEXEC)) return -1;
  for (int i = 0; i < 2; i++) {
    fds[i] = fcntl(p[i], F_DUPFD_CLOEXEC, 10);
    close(p[i]);
  }
  return fds[0] >= 0 && fds[1] >= 0 ? 0 : -1;
}

static int start(const char *exe, char *const argv[], struct child *c)
{
  int result[2] = {-1, -1}, diag[2] = {-1, -1};
  FE_CHECK(!make_pipe(result) && !make_pipe(diag), FE_ERR_RESOURCE,
           "cannot create pipes for %s: %s", FE_MESHER_NAME, strerror(errno));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, diag[1], 1);
  posix_spawn_file_actions_adddup2(&fa, diag[1], 2);
  posix_spawn_file_actions_adddup2(&fa, result[1], FE_MESHER_FD);
  fflush(NULL);
  const int rc = posix_spawn(&c->pid, exe, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(result[1]);
  close(diag[1]);
  c->result = result[0];
  c->diag = diag[0];
  if (rc) {
    close(c->result);
    close(c->diag);
    FE_RAISE(FE_ERR_RESOURCE, "cannot start %s: %s", exe, strerror(rc));
  }
  return FE_SUCCESS;
}

/* ---- what comes back ------------------------------------------------------------ */

enum { AT_FRAME, AT_TEXT, AT_HEADER, AT_ARRAYS, AT_GROUPS, AT_END };

struct reception {
  const char *path; /* as messages name it */
  int geo;          /* a script (fe_mesh_is_geo of the file itself) */
  size_t max_cells;
  int state, err;
  unsigned char head[5];
  char text[1024];
  uint32_t text_len;
  size_t have; /* bytes of the current piece */
  struct fe_mesh_raw_header header;
  struct fe_mesh_raw *raw;
  void *where[16];
  size_t bytes[16];
  int n_arrays, array;
  char *groups;
  /* progress */
  int stage;
  char stage_text[256];
  /* the meshing process's messages: the last DIAG_KEEP bytes */
  char *diag;
  size_t diag_len;
};

/* The buffer and size the current state reads into. */
static void target(struct reception *rc, char **at, size_t *size)
{
  switch (rc->state) {
  case AT_FRAME: *at = (char *)rc->head, *size = sizeof rc->head; break;
  case AT_TEXT: *at = rc->text, *size = rc->text_len; break;
  case AT_HEADER: *at = (char *)&rc->header, *size = sizeof rc->header; break;
  case AT_ARRAYS: *at = rc->where[rc->array], *size = rc->bytes[rc->array]; break;
  case AT_GROUPS: *at = rc->groups, *size = (size_t)rc->header.groups_bytes; break;
  default: *at = NULL, *size = 0;
  }
}

static int protocol_error(const struct reception *rc, const char *what)
{
  return fe_error_raise(FE_ERR_INPUT, __FILE__, __LINE__,
                        "%s: the meshing process sent an invalid stream: %s", rc->path, what);
}

/* The current piece is complete: move to the next. */
static int advance(struct reception *rc)
{
  rc->have = 0;
  switch (rc->state) {
  case AT_FRAME:
    memcpy(&rc->text_len, rc->head + 1, sizeof rc->text_len);
    if (rc->head[0] == 'M') {
      rc->state = AT_HEADER;
      return FE_SUCCESS;
    }
    if (rc->head[0] != 'P' || rc->text_len < 1 || rc->text_len >= sizeof rc->text)
      return protocol_error(rc, "an unknown frame");
    rc->state = AT_TEXT;
    return FE_SUCCESS;
  case AT_TEXT:
    rc->text[rc->text_len] = '\0';
    rc->stage = (unsigned char)rc->text[0];
    snprintf(rc->stage_text, sizeof rc->stage_text, "%s", rc->text + 1);
    rc->state = AT_FRAME;
    return FE_SUCCESS;
  case AT_HEADER:
    FE_CALL(fe_mesh_raw_begin(rc->path, &rc->header, rc->max_cells, rc->raw));
    FE_CALL(fe_malloc((size_t)rc->header.groups_bytes + 1, &rc->groups));
    rc->n_arrays = fe_mesh_raw_arrays(rc->raw, rc->where, rc->bytes, 16);
    rc->array = 0;
    rc->state = AT_ARRAYS;
    break;
  case AT_ARRAYS: rc->array++; break;
  case AT_GROUPS: rc->state = AT_END; return FE_SUCCESS;
  default: return protocol_error(rc, "data after the mesh");
  }
  while (rc->state == AT_ARRAYS && rc->array < rc->n_arrays && !rc->bytes[rc->array]) rc->array++;
  if (rc->state == AT_ARRAYS && rc->array == rc->n_arrays) rc->state = AT_GROUPS;
  if (rc->state == AT_GROUPS && !rc->header.groups_bytes) rc->state = AT_END;
  return FE_SUCCESS;
}

/* Reads what the result pipe has; 1 at its end, 0 when more may come. */
static int receive(struct reception *rc, int fd, int *eof)
{
  char *at;
  size_t size;
  target(rc, &at, &size);
  if (rc->state == AT_END) {
    char extra;
    const ssize_t n = read(fd, &extra, 1);
    *eof = n == 0;
    return n > 0 ? protocol_error(rc, "data after the mesh") : FE_SUCCESS;
  }
  const size_t want = size - rc->have > (1u << 24) ? (1u << 24) : size - rc->have;
  const ssize_t n = read(fd, at + rc->have, want);
  if (n < 0)
    return errno == EINTR || errno == EAGAIN ? FE_SUCCESS : protocol_error(rc, strerror(errno));
  *eof = n == 0;
  rc->have += (size_t)n;
  while (rc->state != AT_END) {
    target(rc, &at, &size);
    if (rc->have < size) break;
    FE_CALL(advance(rc));
  }
  return FE_SUCCESS;
}

static void keep_diag(struct reception *rc, int fd, int *eof)
{
  char buf[4096];
  const ssize_t n = read(fd, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  *eof = n <= 0;
  if (n <= 0) return;
  if (rc->diag_len + (size_t)n > DIAG_KEEP) { /* drop the oldest half */
    const size_t drop = rc->diag_len / 2 + (size_t)n;
    const size_t keep = rc->diag_len > drop ? rc->diag_len - drop : 0;
    memmove(rc->diag, rc->diag + rc->diag_len - keep, keep);
    rc->diag_len = keep;
  }
  memcpy(rc->diag + rc->diag_len, buf, (size_t)n);
  rc->diag_len += (size_t)n;
}

/* ---- progress ------------------------------------------------------------------ */

struct progress {
  int verbosity, tty, shown_stage;
  double start, last;
};

static void show_progress(struct progress *p, const struct reception *rc)
{
  const char *path = rc->path;
  const double now = fe_wtime(), elapsed = now - p->start;
  if (p->verbosity >= 2 && rc->stage_text[0] && p->shown_stage != rc->stage) {
    fprintf(stderr, "fesim: mesh %s: %s (%.1f s)\n", path, rc->stage_text, elapsed);
    p->shown_stage = rc->stage;
    return;
  }
  if (p->verbosity < 1 || elapsed < 1 || !rc->stage_text[0]) return;
  if (p->tty && now - p->last >= 0.5) {
    fprintf(stderr, "\rfesim: mesh %s: %s, %.0f s   ", path, rc->stage_text, elapsed);
    p->last = now;
  } else if (!p->tty && elapsed >= 10 && now - p->last >= 60) {
    fprintf(stderr, "fesim: note: mesh %s: still %s after %.0f s\n", path, rc->stage_text, elapsed);
    p->last = now;
  }
}

static void end_progress(const struct progress *p)
{
  if (p->tty && p->last > 0) fputs("\r\033[K", stderr);
}

/* ---- the outcome ------------------------------------------------------------------ */

/* The meshing process's own messages ("fesim: ..." lines), passed on; 1
 * when there was an error among them. */
static int pass_on(const struct reception *rc)
{
  int errors = 0;
  const char *s = rc->diag, *end = rc->diag + rc->diag_len;
  while (s < end) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    const size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
    if (len > 7 && !memcmp(s, "fesim: ", 7)) {
      fprintf(stderr, "%.*s\n", (int)len, s);
      errors += len > 14 && !memcmp(s, "fesim: error: ", 14);
    }
    s += len + 1;
  }
  return errors > 0;
}

/* The last line of the meshing process's other output: the reason of a crash. */
static void last_words(const struct reception *rc, char *buf, size_t size)
{
  char line[512] = "";
  const char *s = rc->diag, *end = rc->diag + rc->diag_len;
  while (s < end) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    const size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
    if (len && memcmp(s, "fesim: ", 7 < len ? 7 : len)) {
      const size_t k = len < sizeof line - 1 ? len : sizeof line - 1;
      memcpy(line, s, k);
      line[k] = '\0';
    }
    s += len + 1;
  }
  if (!line[0]) {
    buf[0] = '\0';
    return;
  }
  char q[FE_QUOTE_SIZE];
  snprintf(buf, size, ": %s", fe_quote(line, FE_QUOTE_MAX, q, sizeof q));
}

static int diag_says(const struct reception *rc, const char *what)
{
  return rc->diag_len && memmem(rc->diag, rc->diag_len, what, strlen(what)) != NULL;
}

static int outcome(const struct reception *rc, int status, int timed_out, double limit)
{
  const char *path = rc->path;
  const int geo = rc->geo;
  const char *doing = geo ? "meshing" : "reading";
  const char *expected = geo ? "expected a geometry Gmsh can mesh"
                             : "the file is malformed; expected a complete Gmsh mesh (format 2.2 "
                               "or 4.1, ASCII or binary)";
  char why[600];
  last_words(rc, why, sizeof why);
  if (timed_out)
    FE_RAISE(FE_ERR_INPUT,
             "%s: stopped after %g s (while %s); expected it to finish within --mesh-time-limit "
             "%g: raise the limit, or mesh it coarser",
             path, limit + GRACE_SECONDS, rc->stage_text[0] ? rc->stage_text : doing, limit);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    pass_on(rc); /* warnings */
    if (rc->state == AT_END) return FE_SUCCESS;
    FE_RAISE(FE_ERR_INPUT, "%s: the meshing process ended without handing over a mesh", path);
  }
  if (WIFEXITED(status) && pass_on(rc)) {
    const int code = WEXITSTATUS(status);
    return code == FE_ERR_INPUT || code == FE_ERR_RESOURCE ? code : FE_ERR_RESOURCE;
  }
  const int bad_alloc = diag_says(rc, "std::bad_alloc") || diag_says(rc, "Cannot allocate memory");
  if (bad_alloc || (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
    FE_RAISE(FE_ERR_RESOURCE,
             "%s: the meshing process ran out of memory while %s it (%s); expected a mesh that "
             "fits the memory available: mesh it coarser, or free memory",
             path, doing, bad_alloc ? "std::bad_alloc" : "killed by the kernel");
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    FE_RAISE(FE_ERR_RESOURCE, "cannot run %s%s", FE_MESHER_NAME, why);
  if (WIFSIGNALED(status))
    FE_RAISE(FE_ERR_INPUT, "%s: Gmsh crashed %s it (%s%s): %s", path, doing,
             strsignal(WTERMSIG(status)), why, expected);
  /* any other exit: a memory checker stopped it (AddressSanitizer exits 1) */
  FE_RAISE(FE_ERR_INPUT, "%s: Gmsh crashed %s it (exit %d%s): %s", path, doing, WEXITSTATUS(status),
           why, expected);
}

/* ---- the loop ------------------------------------------------------------------- */

static int wait_for(struct child *c, struct reception *rc, double limit, int verbosity,
                    int *timed_out)
{
  struct progress p = {
      .verbosity = verbosity, .tty = isatty(STDERR_FILENO), .shown_stage = -1, .start = fe_wtime()};
  const double deadline = p.start + limit + GRACE_SECONDS;
  int result_open = 1, diag_open = 1;
  while ((result_open || diag_open) && !rc->err) {
    struct pollfd fds[2] = {{.fd = result_open ? c->result : -1, .events = POLLIN},
                            {.fd = diag_open ? c->diag : -1, .events = POLLIN}};
    const double left = deadline - fe_wtime();
    if (left <= 0) {
      *timed_out = 1;
      break;
    }
    const int n = poll(fds, 2, left > 0.5 ? 500 : (int)(1000 * left) + 1);
    if (n < 0 && errno != EINTR) break;
    int eof = 0;
    if (result_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      rc->err = receive(rc, c->result, &eof);
      if (eof) result_open = 0;
    }
    eof = 0;
    if (diag_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      keep_diag(rc, c->diag, &eof);
      if (eof) diag_open = 0;
    }
    show_progress(&p, rc);
  }
  end_progress(&p);
  if (*timed_out || rc->err) kill(c->pid, SIGKILL);
  int status = 0;
  while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR) continue;
  return status;
}

static void build_argv(const char *exe, const char *path, const char *shown,
                       const struct fe_mesh_options *o, double limit, char args[4][64],
                       const char **argv)
{
  int n = 0;
  argv[n++] = exe;
  snprintf(args[0], sizeof args[0], "%.17g", o->size);
  snprintf(args[1], sizeof args[1], "%.17g", limit);
  argv[n++] = "--size";
  argv[n++] = args[0];
  argv[n++] = "--time-limit";
  argv[n++] = args[1];
  if (o->max_cells > 0) {
    snprintf(args[2], sizeof args[2], "%ld", o->max_cells);
    argv[n++] = "--max-cells";
    argv[n++] = args[2];
  }
  if (o->read_dir) {
    argv[n++] = "--read-dir";
    argv[n++] = o->read_dir;
  }
  argv[n++] = "--name";
  argv[n++] = shown;
  argv[n++] = path;
  argv[n] = NULL;
}

int fe_mesher_run(const char *path, const struct fe_mesh_options *o, struct fe_mesh_raw *r)
{
  char exe[PATH_MAX], args[4][64], buf[FE_QUOTE_SIZE];
  const char *argv[20], *shown = fe_path_shown(path, buf, sizeof buf);
  const double limit = o->time_limit > 0 ? o->time_limit : FE_MESH_TIME_LIMIT;
  memset(r, 0, sizeof *r);
  FE_CALL(find_mesher(exe, sizeof exe));
  build_argv(exe, path, shown, o, limit, args, argv);
  struct reception rc = {.path = shown,
                         .geo = fe_mesh_is_geo(path),
                         .raw = r,
                         .stage = -1,
                         .max_cells = o->max_cells > 0 ? (size_t)o->max_cells : FE_MESH_MAX_CELLS};
  FE_CALL(fe_malloc(DIAG_KEEP, &rc.diag));
  struct child c;
  int err = start(exe, (char *const *)argv, &c);
  if (!err) {
    int timed_out = 0;
    const int status = wait_for(&c, &rc, limit, o->verbosity, &timed_out);
    close(c.result);
    close(c.diag);
    err = rc.err ? rc.err : outcome(&rc, status, timed_out, limit);
  }
  if (!err) err = fe_mesh_raw_finish(shown, &rc.header, rc.groups, r);
  free(rc.diag);
  free(rc.groups);
  if (err) fe_mesh_raw_free(r);
  return err;
}
